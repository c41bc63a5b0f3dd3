"""`aot flash`: put a build folder's firmware, or a UF2 file (`aot uf2`'s, from an ELF
linked by CMake or PlatformIO), on an RP2040 / RP2350 board.

Default route, no tool needed: the chip's bootrom shows a USB drive when the
board is plugged in with BOOTSEL held. The drive holds ``INFO_UF2.TXT`` whose
``Board-ID:`` line names the chip (aot.deploy.uf2.BOOTSEL_BOARD_IDS). The
drive is looked for among the usual mount points (Linux /media/$USER/*,
/run/media/$USER/*, /media/*, /mnt/*; macOS /Volumes/*; Windows drive
letters) or given with ``--drive``. Before anything is written, the UF2's
family ID (read from its blocks) must be the build's board's, the drive's
Board-ID the same chip, and the UF2 the build's firmware.bin; then the file
is written, flushed and fsync'ed, and the bootrom reboots into it. A UF2 file's
board is the one of its family ID; its blocks must lie in that board's flash and
hold an image that chip boots (file_uf2).

``--tool picotool`` runs ``picotool load -x firmware.uf2`` (USB, BOOTSEL);
``--tool pyocd`` runs ``pyocd load --target rp2350|rp2040 firmware.elf``
(SWD through a debug probe; pyOCD reads ELF, not UF2).

Files on the drive are opened without following symbolic links and must be
regular files (a FIFO, a device or a link named INFO_UF2.TXT or firmware.uf2 is
refused, never waited on); INFO_UF2.TXT is read up to INFO_MAX_BYTES, the
build's UF2 up to what the board's flash can hold, and the UF2's blocks are
checked against the board's flash region before its image is assembled.

Every refusal is a FlashError with one line, raised before anything is written.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
import string
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from aot.errors import FlashError, Uf2Error
from aot.deploy.uf2 import BOOTSEL_BOARD_IDS, FAMILY_CHIPS, UF2_BLOCK_SIZE, UF2_PAYLOAD, family_name, parse_uf2

INFO_FILE = "INFO_UF2.TXT"
#: INFO_UF2.TXT is read up to this many bytes (the bootroms write about 100)
INFO_MAX_BYTES = 4096
#: no symlinks followed, no waiting on a FIFO (O_NOFOLLOW / O_NONBLOCK: POSIX; 0 elsewhere)
_OPEN_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
TOOLS = ("picotool", "pyocd")
TOOL_INSTALL = {
    "picotool": "install picotool 2.0 or later (Debian/Ubuntu: apt install picotool, or build it "
                "from Raspberry Pi's picotool sources), then hold BOOTSEL while plugging the board in",
    "pyocd": "pip install pyocd; it flashes through a debug probe (e.g. a Raspberry Pi Debug Probe) "
             "on the board's SWD pins",
}


@dataclass
class FlashResult:
    method: str            # "drive", "picotool" or "pyocd"
    board: str
    chip: str              # "RP2350" / "RP2040"
    family_id: int
    file: Path             # what was flashed
    dest: Optional[Path]   # the file written on the drive ("drive" only)
    bytes: int
    blocks: int            # UF2 blocks


def mount_points() -> list[Path]:
    """Folders where a USB drive is usually mounted on this OS."""
    if os.name == "nt":
        return [Path(f"{c}:\\") for c in string.ascii_uppercase[2:] if Path(f"{c}:\\").exists()]
    roots = []
    if sys.platform == "darwin":
        roots.append(Path("/Volumes"))
    else:
        user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
        if user:
            roots += [Path("/media") / user, Path("/run/media") / user]
        roots += [Path("/media"), Path("/mnt")]
    found = []
    for r in roots:
        try:
            found += sorted(p for p in r.iterdir() if p.is_dir())
        except OSError:
            continue
    return found


def _open(path: Path, flags: int, follow_symlinks: bool = False, mode: int = 0o644) -> int:
    """os.open(path, flags | _OPEN_FLAGS) that never follows a symlink unless follow_symlinks.
    Where the OS has no O_NOFOLLOW (Windows) the link is refused by an lstat first, so the
    refusal is the same everywhere: OSError(ELOOP)."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    if follow_symlinks:
        return os.open(path, flags | (_OPEN_FLAGS & ~nofollow), mode)
    if not (_OPEN_FLAGS & nofollow) and os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symbolic link", str(path))
    return os.open(path, flags | _OPEN_FLAGS, mode)


def read_regular(path: Path, limit: int, follow_symlinks: bool = False) -> bytes:
    """The bytes of `path`, a regular file (not a FIFO or device; not a symlink
    unless follow_symlinks) of at most `limit` bytes. Raises OSError (a symlink:
    ELOOP), FlashError (not a regular file, too large)."""
    fd = _open(path, os.O_RDONLY, follow_symlinks)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FlashError(f"{path} is not a regular file; nothing written")
        if st.st_size > limit:
            raise FlashError(f"{path} has {st.st_size:,} bytes, more than {limit:,}; nothing written")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # grew while being read
        raise FlashError(f"{path} has more than {limit:,} bytes; nothing written")
    return data


def read_board_id(drive: Path) -> Optional[str]:
    """The Board-ID of a BOOTSEL drive's INFO_UF2.TXT, or None when it has none
    (or it is not a regular file of at most INFO_MAX_BYTES: a symlink, a FIFO)."""
    try:
        text = read_regular(Path(drive) / INFO_FILE, INFO_MAX_BYTES).decode("utf-8", errors="replace")
    except (OSError, FlashError):
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "board-id" and value.strip():
            return value.strip()
    return None


def _info_problem(drive: Path) -> str:
    """Why read_board_id found no Board-ID on `drive` (for the refusal's line)."""
    info = Path(drive) / INFO_FILE
    try:
        st = os.lstat(info)
    except OSError:
        return f"no {INFO_FILE} with a Board-ID line"
    if stat.S_ISLNK(st.st_mode):
        return f"its {INFO_FILE} is a symbolic link, not followed"
    if not stat.S_ISREG(st.st_mode):
        return f"its {INFO_FILE} is not a regular file"
    if st.st_size > INFO_MAX_BYTES:
        return f"its {INFO_FILE} has {st.st_size:,} bytes, more than {INFO_MAX_BYTES:,}"
    return f"no Board-ID line in its {INFO_FILE}"


def find_drives(candidates: Optional[list] = None) -> list[tuple[Path, str]]:
    """(folder, Board-ID) of every mounted BOOTSEL drive among `candidates`
    (default: mount_points())."""
    out = []
    for p in (mount_points() if candidates is None else candidates):
        bid = read_board_id(p)
        if bid is not None:
            out.append((Path(p), bid))
    return out


def _refuse_model_image(path, data: bytes) -> None:
    """FlashError when the UF2 `data` holds a Mote model image (aot pack's, aot.deploy.slot
    MAGIC at its first block) rather than a firmware: it is written with --model-only."""
    from aot.deploy.slot import MAGIC
    try:
        family, base, image = parse_uf2(data)
    except Uf2Error:
        return  # the checks that follow name what is wrong with it
    if image[:len(MAGIC)] == MAGIC:
        raise FlashError(f"{path} is a Mote model image (aot pack; family {family_name(family)}, slot "
                         f"0x{base:08x}), not a firmware: write it with `aot flash --model-only {path}`; "
                         "nothing written")


def file_uf2(path) -> tuple:
    """(board, path, its bytes, family ID) of a UF2 file a user made (`aot uf2`, the
    post-build step of cmake/mote.cmake or PlatformIO): its board is the one of boards/
    whose UF2 family is the blocks'; the blocks must lie in that board's flash and
    their image be one that chip's bootrom boots (aot.deploy.rp2.image_chip).
    Raises FlashError naming what is wrong."""
    from aot.deploy import rp2
    from aot.deploy.boards import known_boards, load_board
    path = Path(path)
    rp = {load_board(b).uf2_family_id: load_board(b) for b in known_boards()
          if load_board(b).uf2_family_id is not None}
    largest = max(b.flash.size for b in rp.values())
    try:
        data = read_regular(path, (largest // UF2_PAYLOAD + 1) * UF2_BLOCK_SIZE, follow_symlinks=True)
    except OSError as e:
        raise FlashError(f"cannot read {path}: {e.strerror or e}; nothing written") from None
    _refuse_model_image(path, data)
    family = int.from_bytes(data[28:32], "little") if len(data) >= 32 else None
    board = rp.get(family)
    if board is None:
        raise FlashError(f"{path} is not a UF2 for {', '.join(f'{b.name} ({family_name(f)})' for f, b in rp.items())}"
                         + (f": its first block's family is {family_name(family)}" if family is not None else "")
                         + "; nothing written")
    try:
        family, base, image = parse_uf2(data, board.flash)
    except Uf2Error as e:
        raise FlashError(f"{path} is not a valid UF2 for {board.name} ({e}); nothing written") from None
    chip, evidence = rp2.image_chip(image if base == board.flash.origin else b"")
    if chip != FAMILY_CHIPS[family]:
        what = f"an {chip} image ({evidence})" if chip else f"not an image the bootrom boots ({evidence})"
        raise FlashError(f"{path} is a UF2 for family {family_name(family)}, but its image is {what}; "
                         "nothing written")
    return board, path, data, family


def board_uf2(build_dir) -> tuple:
    """(board, firmware.uf2 path, its bytes, family ID) of a build folder, after
    checking the UF2 is well formed, of the board's family and the build's own
    firmware.bin. Raises FlashError naming what is wrong."""
    from aot.deploy.boards import known_boards, load_board
    from aot.deploy.run import build_board, read_build
    build_dir = Path(build_dir)
    if not (build_dir / "build.json").exists():
        raise FlashError(f"{build_dir} is not a build folder (no build.json): build one with "
                         "`aot build MODEL --board pico2 -o DIR`")
    info = read_build(build_dir, several=True)  # the image holds every model
    board = build_board(info)
    if board.uf2_family_id is None:
        rp = [b for b in known_boards() if load_board(b).uf2_family_id is not None]
        how = (f"it runs in QEMU: aot run {build_dir} --target {board.name}" if board.simulator
               else f"flash {build_dir / 'firmware.elf'} with your debug probe's tool "
                    "(pyocd load, openocd, STM32CubeProgrammer)")
        raise FlashError(f"{build_dir} is built for {board.name}, which takes no UF2 (aot flash writes "
                         f"UF2 images to RP2040/RP2350 boards: {', '.join(rp)}); {how}")
    uf2 = build_dir / "firmware.uf2"
    if not uf2.exists():
        raise FlashError(f"{uf2} is missing; rebuild with `aot build ... --board {board.name}`")
    # bin_to_uf2 gives each block 256 bytes: the board's whole flash is 2x its size
    limit = (board.flash.size // UF2_PAYLOAD + 1) * UF2_BLOCK_SIZE
    try:
        data = read_regular(uf2, limit, follow_symlinks=True)  # the user's own folder
    except OSError as e:
        raise FlashError(f"cannot read {uf2}: {e.strerror or e}; nothing written") from None
    except FlashError as e:
        raise FlashError(f"{e} ({board.name}'s flash holds {board.flash.size:,} bytes); "
                         "rebuild with `aot build`") from None
    try:
        family, base, image = parse_uf2(data, board.flash)
    except Uf2Error as e:
        raise FlashError(f"{uf2} is not a valid UF2 ({e}); rebuild with `aot build`") from None
    if family != board.uf2_family_id:
        raise FlashError(f"{uf2} is a UF2 for family {family_name(family)}, but {build_dir} was built "
                         f"for {board.name}, family {family_name(board.uf2_family_id)}; nothing written")
    binf = build_dir / "firmware.bin"
    if binf.exists():
        try:
            payload = read_regular(binf, board.flash.size, follow_symlinks=True)
        except OSError as e:
            raise FlashError(f"cannot read {binf}: {e.strerror or e}; nothing written") from None
        if base != board.flash.origin or image[:len(payload)] != payload:
            raise FlashError(f"{uf2} does not hold {binf.name} (the folder mixes two builds); "
                             "rebuild with `aot build`; nothing written")
    return board, uf2, data, family


def choose_drive(chip: str, drive=None, candidates: Optional[list] = None) -> Path:
    """The BOOTSEL drive to write to: `drive` after checking its Board-ID, else
    the one drive of `chip` found among the mount points."""
    if drive is not None:
        p = Path(drive)
        if not p.is_dir():
            raise FlashError(f"--drive {drive}: no such folder; nothing written")
        bid = read_board_id(p)
        if bid is None:
            raise FlashError(f"{drive} is not a BOOTSEL drive ({_info_problem(p)}); nothing written")
        if BOOTSEL_BOARD_IDS.get(bid) != chip:
            raise FlashError(f"{drive} is the BOOTSEL drive of an {BOOTSEL_BOARD_IDS.get(bid, bid)} "
                             f"(Board-ID: {bid}), this firmware is for an {chip}; nothing written")
        return p
    drives = find_drives(candidates)
    mine = [p for p, bid in drives if BOOTSEL_BOARD_IDS.get(bid) == chip]
    if len(mine) == 1:
        return mine[0]
    if len(mine) > 1:
        raise FlashError(f"{len(mine)} {chip} BOOTSEL drives are mounted ({', '.join(map(str, mine))}): "
                         "choose one with --drive; nothing written")
    if drives:
        others = ", ".join(f"{p} (Board-ID: {bid})" for p, bid in drives)
        raise FlashError(f"no {chip} BOOTSEL drive found, only {others}: plug in the right board "
                         "holding BOOTSEL, or give --drive; nothing written")
    raise FlashError(f"no {chip} BOOTSEL drive found: hold the BOOTSEL button while plugging the board "
                     "in (its drive shows INFO_UF2.TXT), or give --drive PATH")


def copy_uf2(data: bytes, drive: Path, name: str = "firmware.uf2") -> Path:
    """Write `data` to drive/name, flush and fsync (the bootrom flashes as blocks
    arrive and reboots after the last one). drive/name is never followed as a
    symlink and must be (or become) a regular file: else FlashError, nothing written."""
    dest = Path(drive) / name
    try:
        fd = _open(dest, os.O_WRONLY | os.O_CREAT)
    except OSError as e:
        why = {errno.ELOOP: "it is a symbolic link", errno.ENXIO: "it is a FIFO"}.get(e.errno, e.strerror or e)
        raise FlashError(f"cannot write {dest}: {why}; nothing written") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FlashError(f"{dest} is not a regular file; nothing written")
        os.ftruncate(fd, 0)
        with os.fdopen(fd, "wb", closefd=False) as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise FlashError(f"writing {dest} failed: {e.strerror or e}") from None
    finally:
        os.close(fd)
    return dest


def flash_build(build_dir, drive=None, tool: Optional[str] = None,
                candidates: Optional[list] = None) -> FlashResult:
    """Flash the firmware of `build_dir` (see the module docstring), or a UF2 file
    (`aot uf2`'s, file_uf2) given in its place."""
    path = Path(build_dir)
    if path.is_file():
        if path.suffix.lower() != ".uf2":
            raise FlashError(f"{path} is neither a build folder nor a .uf2 file: make the UF2 of an ELF with "
                             f"`aot uf2 {path} --board pico` (or pico2), then `aot flash` it")
        if tool == "pyocd":
            raise FlashError(f"--tool pyocd loads an ELF through a debug probe, not {path.name}: run "
                             "`pyocd load --target rp2040 (or rp2350) YOUR.elf`")
        board, uf2, data, family = file_uf2(path)
    else:
        board, uf2, data, family = board_uf2(build_dir)
    chip = FAMILY_CHIPS[family]
    blocks = len(data) // UF2_BLOCK_SIZE
    if tool is None:
        dest = copy_uf2(data, choose_drive(chip, drive, candidates))
        return FlashResult("drive", board.name, chip, family, uf2, dest, len(data), blocks)
    if tool not in TOOLS:
        raise FlashError(f"unknown --tool {tool!r}; one of {', '.join(TOOLS)}")
    exe = shutil.which(tool)
    if exe is None:
        raise FlashError(f"{tool} not found on PATH: {TOOL_INSTALL[tool]}")
    if tool == "picotool":
        file = uf2
        cmd = [exe, "load", "-x", str(file)]
    else:
        file = Path(build_dir) / "firmware.elf"
        cmd = [exe, "load", "--target", chip.lower(), str(file)]
    try:
        code = subprocess.run(cmd).returncode
    except OSError as e:
        raise FlashError(f"{tool} could not be started: {e.strerror or e}") from None
    if code != 0:
        raise FlashError(f"`{tool} {' '.join(cmd[1:])}` failed with exit status {code}")
    return FlashResult(tool, board.name, chip, family, file, None, file.stat().st_size,
                       blocks if tool == "picotool" else 0)


def flash_model_only(path, firmware=None, drive=None, tool=None, candidates=None):
    """`aot flash --model-only IMAGE.uf2`: write just a slot image (aot pack's UF2) to an
    RP2040/RP2350 board in BOOTSEL mode; the firmware in flash stays as it is. Checked
    before anything is written: the UF2's family is a board's, its blocks lie in that
    board's flash and not at the firmware's start, they hold a slot image whose header and
    CRC-32s are valid, and with `firmware` (the slot firmware's build folder) they sit at
    its slot.json address and fit the slot. Returns FlashResult; raises
    FlashError (one line, nothing written)."""
    from aot.deploy.boards import known_boards, load_board
    from aot.deploy.slot import ERASE_BYTES, SlotError, read_contract, read_image
    path = Path(path)
    if path.suffix.lower() != ".uf2":
        raise FlashError(f"--model-only writes a slot image's UF2 (aot pack MODEL --firmware DIR -o NAME.uf2), "
                         f"not {path.name}; nothing written")
    from aot.deploy.uf2 import RP2350_ARM_S_FAMILY_ID, RP2XXX_ABSOLUTE_FAMILY_ID, RP2XXX_DATA_FAMILY_ID
    rp = {load_board(b).uf2_family_id: load_board(b) for b in known_boards()
          if load_board(b).uf2_family_id is not None}
    for fam in (RP2XXX_ABSOLUTE_FAMILY_ID, RP2XXX_DATA_FAMILY_ID):  # the RP2350's image-less families
        if RP2350_ARM_S_FAMILY_ID in rp:
            rp[fam] = rp[RP2350_ARM_S_FAMILY_ID]
    largest = max(b.flash.size for b in rp.values())
    try:
        data = read_regular(path, (largest // UF2_PAYLOAD + 1) * UF2_BLOCK_SIZE, follow_symlinks=True)
    except OSError as e:
        raise FlashError(f"cannot read {path}: {e.strerror or e}; nothing written") from None
    family = int.from_bytes(data[28:32], "little") if len(data) >= 32 else None
    board = rp.get(family)
    if board is None:
        raise FlashError(f"{path} is not a UF2 for an RP2040/RP2350 board; nothing written")
    try:
        family, base, image = parse_uf2(data, board.flash)
    except Uf2Error as e:
        raise FlashError(f"{path} is not a valid UF2 for {board.name} ({e}); nothing written") from None
    if base == board.flash.origin:
        raise FlashError(f"{path} starts at the flash's start (0x{base:08x}): a firmware, not a model image; "
                         "flash firmware without --model-only; nothing written")
    try:
        info = read_image(image)
    except SlotError as e:
        raise FlashError(f"{path} does not hold a model image: {e}; nothing written") from None
    if not info["trailer_crc_ok"]:
        raise FlashError(f"{path}: the model image's trailer CRC-32 does not match; nothing written")
    if firmware is not None:
        contract = read_contract(firmware)
        if contract["board"] != board.name:
            raise FlashError(f"{path} is for {board.name}, {firmware} is a slot firmware for {contract['board']}; "
                             "nothing written")
        if base != contract["address"]:
            raise FlashError(f"{path} is written at 0x{base:08x}, the slot of {firmware} is at "
                             f"0x{contract['address']:08x}: pack it for this firmware; nothing written")
        if info["image_bytes"] > contract["flash_bytes"]:
            raise FlashError(f"{path}: {info['image_bytes']:,} B do not fit the {contract['flash_bytes']:,} B slot; "
                             "nothing written")
    elif base % ERASE_BYTES:
        raise FlashError(f"{path} starts at 0x{base:08x}, not at a {ERASE_BYTES}-byte sector: not a slot; "
                         "nothing written")
    chip = FAMILY_CHIPS.get(family, "RP2350")
    blocks = len(data) // UF2_BLOCK_SIZE
    if tool is None:
        dest = copy_uf2(data, choose_drive(chip, drive, candidates), name="model.uf2")
        return FlashResult("drive", board.name, chip, family, path, dest, len(data), blocks)
    if tool != "picotool":
        raise FlashError(f"--model-only --tool {tool}: write the model image with the drive or picotool "
                         "(pyOCD loads ELF files); nothing written")
    exe = shutil.which(tool)
    if exe is None:
        raise FlashError(f"{tool} not found on PATH: {TOOL_INSTALL[tool]}")
    cmd = [exe, "load", str(path)]  # the blocks' own addresses; no -x: the firmware boots as before
    code = subprocess.run(cmd).returncode
    if code != 0:
        raise FlashError(f"`{tool} {' '.join(cmd[1:])}` failed with exit status {code}")
    return FlashResult(tool, board.name, chip, family, path, None, len(data), blocks)
