"""`aot flash` against folders that look like a BOOTSEL drive, and with fake
picotool/pyocd executables on PATH: the copy, every refusal (nothing written),
drive discovery and the tool command lines."""
import hashlib
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from aot.cli import main
from aot.deploy import flash
from aot.deploy.uf2 import RP2040_FAMILY_ID, RP2350_ARM_S_FAMILY_ID, bin_to_uf2, parse_uf2

RP2350_INFO = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"
RP2040_INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"


def make_build(folder: Path, board="pico2", family=RP2350_ARM_S_FAMILY_ID, nbytes=1000,
               uf2=True) -> Path:
    """A build folder as `aot build` leaves it, as far as `aot flash` reads it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.pte").write_bytes(b"pte" * 10)
    (folder / "firmware.elf").write_bytes(b"\x7fELF" + b"\0" * 60)
    image = bytes(range(256)) * (nbytes // 256) + b"\x5a" * (nbytes % 256)
    (folder / "firmware.bin").write_bytes(image)
    if uf2:
        (folder / "firmware.uf2").write_bytes(bin_to_uf2(image, 0x10000000, family))
    info = {"board": board, "input_sets": 1, "outputs": [], "inputs": [],
            "pte_sha256": hashlib.sha256((folder / "model.pte").read_bytes()).hexdigest(),
            "firmware_sha256": hashlib.sha256((folder / "firmware.elf").read_bytes()).hexdigest()}
    (folder / "build.json").write_text(json.dumps(info))
    return folder


def make_drive(folder: Path, info=RP2350_INFO) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if info is not None:
        (folder / "INFO_UF2.TXT").write_text(info)
    (folder / "INDEX.HTM").write_text("<html></html>")
    return folder


def drive_files(drive: Path) -> set:
    return {p.name for p in drive.iterdir()}


@pytest.fixture
def no_mounts(monkeypatch):
    """Drive discovery sees only the folders a test puts in the list."""
    found = []
    monkeypatch.setattr(flash, "mount_points", lambda: list(found))
    return found


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_family_ids_are_the_uf2_modules():
    assert RP2350_ARM_S_FAMILY_ID == 0xE48BFF59 and RP2040_FAMILY_ID == 0xE48BFF56
    assert flash.BOOTSEL_BOARD_IDS["RP2350"] == "RP2350"
    assert flash.BOOTSEL_BOARD_IDS["RPI-RP2"] == "RP2040"


def test_copy_to_drive_given(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RP2350")
    code, out, err = run(["flash", str(build), "--drive", str(drive)], capsys)
    assert code == 0, err
    written = (drive / "firmware.uf2").read_bytes()
    assert written == (build / "firmware.uf2").read_bytes()
    assert parse_uf2(written)[0] == RP2350_ARM_S_FAMILY_ID
    blocks = len(written) // 512
    assert f"{len(written):,} bytes, {blocks} UF2 blocks" in out
    assert "0xe48bff59 (RP2350" in out and str(drive) in out


def test_drive_found_among_mount_points(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    usb = make_drive(tmp_path / "media" / "USBSTICK", info=None)  # a drive without INFO_UF2.TXT
    other = make_drive(tmp_path / "media" / "RPI-RP2", RP2040_INFO)
    mine = make_drive(tmp_path / "media" / "RP2350")
    no_mounts += [usb, other, mine]
    code, out, err = run(["flash", str(build)], capsys)
    assert code == 0, err
    assert (mine / "firmware.uf2").exists()
    assert drive_files(other) == {"INFO_UF2.TXT", "INDEX.HTM"}
    assert drive_files(usb) == {"INDEX.HTM"}


def test_rp2040_drive_and_uf2(tmp_path, capsys, no_mounts, monkeypatch):
    """An RP2040 board file (family 0xe48bff56) flashes onto an RPI-RP2 drive."""
    board = json.loads((flash.Path(flash.__file__).parents[2] / "boards" / "pico2.json").read_text())
    board.update(name="pico1-test", uf2_family_id="0xe48bff56")
    bf = tmp_path / "pico1-test.json"
    bf.write_text(json.dumps(board))
    build = make_build(tmp_path / "b", board="pico1-test", family=RP2040_FAMILY_ID)
    info = json.loads((build / "build.json").read_text())
    info["board_file"] = str(bf)
    (build / "build.json").write_text(json.dumps(info))
    drive = make_drive(tmp_path / "RPI-RP2", RP2040_INFO)
    code, out, err = run(["flash", str(build), "--drive", str(drive)], capsys)
    assert code == 0, err
    assert "RP2040" in out and (drive / "firmware.uf2").exists()
    # and the RP2350 drive refuses it
    d2 = make_drive(tmp_path / "RP2350")
    code, out, err = run(["flash", str(build), "--drive", str(d2)], capsys)
    assert code == 1 and "nothing written" in err
    assert drive_files(d2) == {"INFO_UF2.TXT", "INDEX.HTM"}


def _refused(capsys, args, *drives):
    before = [drive_files(d) for d in drives]
    code, out, err = run(args, capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aot flash: error: "), err
    assert "Traceback" not in err
    assert [drive_files(d) for d in drives] == before
    return lines[0]


def test_refuses_a_drive_of_another_chip(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RPI-RP2", RP2040_INFO)
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "RP2040 (Board-ID: RPI-RP2)" in msg and "RP2350" in msg


def test_refuses_an_other_chips_drive_found(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RPI-RP2", RP2040_INFO)
    no_mounts.append(drive)
    msg = _refused(capsys, ["flash", str(build)], drive)
    assert "no RP2350 BOOTSEL drive found, only" in msg and "RPI-RP2" in msg


def test_refuses_a_folder_that_is_not_a_bootsel_drive(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "stick", info=None)
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "not a BOOTSEL drive" in msg
    msg = _refused(capsys, ["flash", str(build), "--drive", str(tmp_path / "nope")])
    assert "no such folder" in msg


def test_refuses_a_uf2_of_another_family(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b", family=RP2040_FAMILY_ID)  # pico2 build, RP2040 UF2
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "0xe48bff56 (RP2040)" in msg and "pico2" in msg and "0xe48bff59" in msg


def test_refuses_a_uf2_of_another_build(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    (build / "firmware.bin").write_bytes(b"\x01" * 1000)
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "mixes two builds" in msg


def test_refuses_a_broken_uf2(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    (build / "firmware.uf2").write_bytes(b"\0" * 700)
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "not a valid UF2" in msg


def test_refuses_a_missing_uf2(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b", uf2=False)
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "firmware.uf2 is missing" in msg


@pytest.mark.parametrize("board,says", [("mps2-an505", "aot run"), ("nucleo-f446re", "firmware.elf")])
def test_refuses_a_board_without_uf2(tmp_path, capsys, no_mounts, board, says):
    build = make_build(tmp_path / "b", board=board, uf2=False)
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert f"built for {board}, which takes no UF2" in msg and "pico2" in msg and says in msg


def test_refuses_when_no_drive_is_found(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    msg = _refused(capsys, ["flash", str(build)])
    assert "hold the BOOTSEL button while plugging the board in" in msg


def test_refuses_two_drives(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    a, b = make_drive(tmp_path / "a" / "RP2350"), make_drive(tmp_path / "b2" / "RP2350")
    no_mounts += [a, b]
    msg = _refused(capsys, ["flash", str(build)], a, b)
    assert "2 RP2350 BOOTSEL drives" in msg and "--drive" in msg


def test_refuses_a_folder_that_is_not_a_build(tmp_path, capsys, no_mounts):
    msg = _refused(capsys, ["flash", str(tmp_path)])
    assert "not a build folder" in msg


def test_mount_points_of_this_os(tmp_path, monkeypatch):
    """Linux: /media/$USER/* and friends are listed, and only folders."""
    if os.name == "nt" or sys.platform == "darwin":
        pytest.skip("Linux layout")
    monkeypatch.setenv("USER", "nobody-mote-test")
    points = flash.mount_points()
    assert all(p.is_dir() for p in points)
    assert all(str(p).startswith(("/media", "/run/media", "/mnt")) for p in points)


# --------------------------------------------------------------------------- tools


def fake_tool(bindir: Path, name: str, status: int = 0) -> Path:
    """An executable `name` that records its argv (one per line) in bindir/name.argv."""
    bindir.mkdir(exist_ok=True)
    exe = bindir / name
    exe.write_text(f"#!{sys.executable}\nimport sys\n"
                   f"open({str(bindir / (name + '.argv'))!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
                   f"print('{name}: fake, loaded')\nsys.exit({status})\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


def test_picotool(tmp_path, capsys, monkeypatch, no_mounts):
    build = make_build(tmp_path / "b")
    bindir = tmp_path / "bin"
    fake_tool(bindir, "picotool")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    code, out, err = run(["flash", str(build), "--tool", "picotool"], capsys)
    assert code == 0, err
    argv = (bindir / "picotool.argv").read_text().splitlines()
    assert argv == ["load", "-x", str(build / "firmware.uf2")]
    assert "picotool loaded" in out


def test_pyocd(tmp_path, capsys, monkeypatch, no_mounts):
    build = make_build(tmp_path / "b")
    bindir = tmp_path / "bin"
    fake_tool(bindir, "pyocd")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    code, out, err = run(["flash", str(build), "--tool", "pyocd"], capsys)
    assert code == 0, err
    argv = (bindir / "pyocd.argv").read_text().splitlines()
    assert argv == ["load", "--target", "rp2350", str(build / "firmware.elf")]


def test_tool_failure_is_one_line(tmp_path, capsys, monkeypatch, no_mounts):
    build = make_build(tmp_path / "b")
    bindir = tmp_path / "bin"
    fake_tool(bindir, "picotool", status=3)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    code, out, err = run(["flash", str(build), "--tool", "picotool"], capsys)
    assert code == 1 and "failed with exit status 3" in err and "Traceback" not in err


@pytest.mark.parametrize("tool,says", [("picotool", "picotool 2.0"), ("pyocd", "pip install pyocd")])
def test_missing_tool(tmp_path, capsys, monkeypatch, no_mounts, tool, says):
    build = make_build(tmp_path / "b")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    msg = _refused(capsys, ["flash", str(build), "--tool", tool])
    assert f"{tool} not found on PATH" in msg and says in msg


def test_tool_still_checks_the_uf2_family(tmp_path, capsys, monkeypatch, no_mounts):
    build = make_build(tmp_path / "b", family=RP2040_FAMILY_ID)
    bindir = tmp_path / "bin"
    fake_tool(bindir, "picotool")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    msg = _refused(capsys, ["flash", str(build), "--tool", "picotool"])
    assert "0xe48bff56 (RP2040)" in msg
    assert not (bindir / "picotool.argv").exists()


# --------------------------------------------------------------------------- what a drive can hold


def _refused_in_a_thread(capsys, args, *drives):
    """_refused, run in a thread so that a regression that waits on a FIFO fails
    the test instead of hanging the suite."""
    import threading
    got = {}
    t = threading.Thread(target=lambda: got.update(msg=_refused(capsys, args, *drives)), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "aot flash is waiting on a FIFO"
    return got["msg"]


@pytest.fixture(params=["O_NOFOLLOW", "lstat"])
def nofollow(request, monkeypatch):
    """Both ways flash refuses a symlink: POSIX's O_NOFOLLOW, and the lstat check of an OS
    without it (Windows), simulated by taking the flag out of the open flags."""
    if request.param == "lstat":
        monkeypatch.setattr(flash, "_OPEN_FLAGS", flash._OPEN_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    return request.param


def test_info_file_that_is_a_symlink_is_not_followed(tmp_path, capsys, no_mounts, nofollow):
    build = make_build(tmp_path / "b")
    (tmp_path / "elsewhere.txt").write_text(RP2350_INFO)
    drive = make_drive(tmp_path / "RP2350", info=None)
    (drive / "INFO_UF2.TXT").symlink_to(tmp_path / "elsewhere.txt")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert msg.endswith("is not a BOOTSEL drive (its INFO_UF2.TXT is a symbolic link, not followed); "
                        "nothing written")
    no_mounts.append(drive)  # nor is it found among the mount points
    assert flash.find_drives() == []


def test_info_file_that_is_a_fifo_does_not_hang(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RP2350", info=None)
    os.mkfifo(drive / "INFO_UF2.TXT")
    msg = _refused_in_a_thread(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert "(its INFO_UF2.TXT is not a regular file)" in msg


def test_info_file_of_2_gib_is_not_read(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RP2350")
    with open(drive / "INFO_UF2.TXT", "r+b") as f:  # sparse: 2 GiB that take no disk
        f.truncate(2 << 30)
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert f"(its INFO_UF2.TXT has {2 << 30:,} bytes, more than {flash.INFO_MAX_BYTES:,})" in msg
    assert flash.read_board_id(drive) is None


def test_uf2_on_the_drive_that_is_a_symlink_is_not_written_through(tmp_path, capsys, no_mounts, nofollow):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RP2350")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (drive / "firmware.uf2").symlink_to(victim)
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert msg.endswith(f"cannot write {drive / 'firmware.uf2'}: it is a symbolic link; nothing written")
    assert victim.read_text() == "keep me"


def test_uf2_on_the_drive_that_is_a_fifo_is_refused(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    drive = make_drive(tmp_path / "RP2350")
    os.mkfifo(drive / "firmware.uf2")
    msg = _refused_in_a_thread(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert msg.endswith(f"cannot write {drive / 'firmware.uf2'}: it is a FIFO; nothing written")


def test_uf2_beyond_the_boards_flash_is_refused_before_allocation(tmp_path, capsys, no_mounts):
    import struct
    build = make_build(tmp_path / "b")
    data = bytearray((build / "firmware.uf2").read_bytes())
    struct.pack_into("<I", data, 512 + 12, 0xFFFFFF00)  # second block near the top of 4 GiB
    (build / "firmware.uf2").write_bytes(bytes(data))
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    assert ("block 1: 256 bytes at 0xffffff00 are outside the board's flash (0x10000000, 4,194,304 bytes)"
            in msg)


def test_uf2_larger_than_the_boards_flash_is_not_read(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    with open(build / "firmware.uf2", "r+b") as f:
        f.truncate(2 << 30)
    drive = make_drive(tmp_path / "RP2350")
    msg = _refused(capsys, ["flash", str(build), "--drive", str(drive)], drive)
    limit = (0x400000 // 256 + 1) * 512
    assert f"has {2 << 30:,} bytes, more than {limit:,}; nothing written (pico2's flash holds " in msg


def test_build_folder_files_may_be_symlinks(tmp_path, capsys, no_mounts):
    build = make_build(tmp_path / "b")
    (build / "firmware.uf2").rename(tmp_path / "kept.uf2")
    (build / "firmware.uf2").symlink_to(tmp_path / "kept.uf2")
    drive = make_drive(tmp_path / "RP2350")
    code, out, err = run(["flash", str(build), "--drive", str(drive)], capsys)
    assert code == 0, err
    assert (drive / "firmware.uf2").read_bytes() == (tmp_path / "kept.uf2").read_bytes()


# --------------------------------------------------------------------------- a UF2 file (`aot uf2`'s)


def rp2040_image(nbytes: int = 1000) -> bytes:
    """A flash image the RP2040 bootrom boots: a boot2 ending in its CRC-32, then code."""
    from aot.deploy.rp2 import boot2_crc32
    boot2 = bytes(range(252))
    return boot2 + boot2_crc32(boot2).to_bytes(4, "little") + b"\x5a" * nbytes


def test_a_uf2_file_flashes_onto_the_drive_of_its_familys_chip(tmp_path, capsys, no_mounts):
    uf2 = tmp_path / "app.uf2"
    uf2.write_bytes(bin_to_uf2(rp2040_image(), 0x10000000, RP2040_FAMILY_ID))
    drive = make_drive(tmp_path / "RPI-RP2", RP2040_INFO)
    other = make_drive(tmp_path / "RP2350")
    no_mounts += [other, drive]
    code, out, err = run(["flash", str(uf2)], capsys)
    assert code == 0, err
    assert (drive / "firmware.uf2").read_bytes() == uf2.read_bytes()
    assert drive_files(other) == {"INFO_UF2.TXT", "INDEX.HTM"}
    assert out == (f"aot flash: wrote app.uf2 to {drive / 'firmware.uf2'}: {len(uf2.read_bytes()):,} bytes, "
                   "5 UF2 blocks, family 0xe48bff56 (RP2040, board pico); the board reboots into it\n")


def test_a_uf2_file_is_refused_in_one_line(tmp_path, capsys, no_mounts):
    drive = make_drive(tmp_path / "RPI-RP2", RP2040_INFO)
    uf2 = tmp_path / "app.uf2"
    # family RP2040, image for the RP2350 (an IMAGE_DEF block)
    import struct
    block = struct.pack("<5I", 0xFFFFDED3, 0x10210142, 0x000001FF, 0, 0xAB123579)  # ports/pico2/image_def.c's
    uf2.write_bytes(bin_to_uf2(bytes(272) + block + bytes(100), 0x10000000, RP2040_FAMILY_ID))
    line = _refused(capsys, ["flash", str(uf2), "--drive", str(drive)], drive)
    assert line == (f"aot flash: error: {uf2} is a UF2 for family 0xe48bff56 (RP2040), but its image is an "
                    "RP2350 image (an IMAGE_DEF block at +0x110); nothing written")
    uf2.write_bytes(bin_to_uf2(rp2040_image(), 0x10000000, 0x12345678))
    line = _refused(capsys, ["flash", str(uf2), "--drive", str(drive)], drive)
    assert line.startswith(f"aot flash: error: {uf2} is not a UF2 for ") and \
        line.endswith(": its first block's family is 0x12345678 (unknown chip); nothing written")
    assert "pico (0xe48bff56 (RP2040))" in line and "pico2 (0xe48bff59 (RP2350))" in line
    elf = tmp_path / "app.elf"
    elf.write_bytes(b"\x7fELF")
    assert _refused(capsys, ["flash", str(elf)], drive) == (
        f"aot flash: error: {elf} is neither a build folder nor a .uf2 file: make the UF2 of an ELF with "
        f"`aot uf2 {elf} --board pico` (or pico2), then `aot flash` it")
    uf2.write_bytes(bin_to_uf2(rp2040_image(), 0x10000000, RP2040_FAMILY_ID))
    assert "--tool pyocd loads an ELF" in _refused(capsys, ["flash", str(uf2), "--tool", "pyocd"], drive)


@pytest.mark.parametrize("family,chip", [(0xE48BFF57, "RP2350 absolute"), (RP2040_FAMILY_ID, "RP2040")])
def test_a_model_image_without_model_only_says_so(tmp_path, capsys, no_mounts, family, chip):
    # aot pack's UF2 for a pico2 slot (family absolute) or a pico slot (RP2040's family)
    from aot.deploy.slot import pack_image
    drive = make_drive(tmp_path / "RP2350")
    uf2 = tmp_path / "model.uf2"
    uf2.write_bytes(bin_to_uf2(pack_image(b"\0" * 64, 1), 0x10300000, family))
    line = _refused(capsys, ["flash", str(uf2), "--drive", str(drive)], drive)
    assert line == (f"aot flash: error: {uf2} is a Mote model image (aot pack; family 0x{family:08x} ({chip}), "
                    f"slot 0x10300000), not a firmware: write it with `aot flash --model-only {uf2}`; "
                    "nothing written")
