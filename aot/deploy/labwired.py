"""Running Pico 2 (RP2350) firmware in LabWired (PyPI ``labwired``, pinned 0.25.0).

LabWired is a virtual-time simulator driven from Python (``labwired.Sim``:
``run_for`` / ``expect`` advance simulated time; ``uart_transcript`` returns
everything UART0 sent). Its packaged ``rp2350`` chip has a Cortex-M33 core,
the PL011 UART0 at 0x40070000 and a clock/reset model of CLOCKS, RESETS,
XOSC and PLL_SYS at the RP2350 addresses. It loads ELF files only.

What it models, as far as Mote's pico2 port goes (labwired 0.25.0):

* XOSC STATUS.STABLE and PLL_SYS CS.LOCK read 1 at once (no start-up or lock
  time); CLK_REF/CLK_SYS_SELECTED follow the SRC fields; RESET_DONE follows
  RESET; IO_BANK0 / PADS_BANK0 are plain storage. The port's clock code runs
  unchanged and does not hang.
* The Debug Exception and Monitor Control block (DHCSR..DEMCR, 0xE000EDF0 to
  0xE000EDFF) is not mapped: the port's DEMCR.TRCENA write is a precise
  BusFault. :func:`system_config` adds a 16-byte storage stub there, so the
  firmware runs unchanged. DWT CYCCNT at 0xE0001004 counts.
* Core defects (labwired 0.25.0, found by stepping it against unicorn and by
  a probe image of single instructions):
  VLDR (literal) reads from Align(instruction address, 4) + imm instead of
  Align(PC, 4) + imm, i.e. 4 bytes low. VMLA, VMLS, VNMLA, VNMLS, VNMUL,
  VSQRT, VABS, VNEG, VCMP, VSEL, VMAXNM, VMINNM, VRINTN and VCVTA (.F32) are
  UNDEFINED (UsageFault); VADD, VSUB, VMUL, VDIV, VFMA, VFMS, VCVT, VMOV,
  VLDR/VSTR (register base) and VLDM/VSTM work. SXTB16, UXTB16 and SXTAB16
  leave Rd unwritten (DESIGN.md: "SXTB16 returns its input"); SSAT is
  UNDEFINED. Flag-setting logical ops with a rotated immediate (TST, BICS
  with 0x80000000, ...) leave C unchanged instead of setting it from the
  immediate. A hard-float image therefore cannot run a model here (GCC emits
  literal VLDR in the runtime and VMLA in the fp32 kernels), nor can the DSP
  int8 kernels; :func:`sim_board` gives the same board with the soft-float
  ABI (no FPU instruction at all), which the simulator executes correctly
  (small_cnn: 1.84 M instructions stepped against unicorn, no register or
  memory difference).
* Read-back: PL011 UARTLCR_H/UARTCR and SCB CPACR read 0 after being written;
  IBRD/FBRD, the clock, reset, PLL, XOSC, IO_BANK0 and PADS registers read
  back what the port wrote.

End of a run: the pico2 port has no semihosting; ``mote_port_exit()`` prints
``MOTE EXIT <status>`` (after ``MOTE DONE``, ``MOTE ERROR`` or a fault report)
and then sleeps in WFI forever, so the runner stops at that line. Every run
is bounded by a wall-clock timeout and by a simulated-time budget.
"""
from __future__ import annotations

import dataclasses
import re
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Union

from aot.deploy.boards import Board, load_board
from aot.errors import MoteError, LabwiredError, LabwiredTimeout

#: The labwired release this runner was written against (see its defects above).
LABWIRED_VERSION = "0.25.0"

#: Debug control block (DHCSR 0xE000EDF0, DCRSR, DCRDR, DEMCR 0xE000EDFC).
DCB_BASE = 0xE000EDF0
DCB_SIZE = 16

_EXIT = re.compile(r"MOTE EXIT (-?\d+)\r?\n")


@dataclass
class LabwiredRun:
    status: int           # the firmware's exit status (from "MOTE EXIT <status>")
    uart: str             # UART0 text, "\r\n" turned into "\n"
    sim_seconds: float    # simulated time at the end of the run
    sim_cycles: int       # simulated core clock cycles (at the chip's 150 MHz)
    wall_seconds: float
    registers: dict       # address -> 32-bit value read after the run (see `read_after`)


def _labwired():
    try:
        import labwired
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise LabwiredError(f"labwired is not installed (pip install labwired=={LABWIRED_VERSION})") from e
    return labwired


def system_config(directory: Union[str, Path]) -> Path:
    """Write Mote's LabWired system file into `directory` and return its path.

    The packaged rp2350 chip plus a storage-only stub over the debug control
    block (DEMCR is written by mote_port_cycles_init to enable the DWT).
    """
    lw = _labwired()
    chip = Path(lw.__file__).resolve().parent / "configs" / "chips" / "rp2350.yaml"
    if not chip.is_file():
        raise LabwiredError(f"labwired has no packaged rp2350 chip ({chip})")
    path = Path(directory) / "mote-pico2.yaml"
    path.write_text(
        "# Mote: LabWired RP2350 + the Cortex-M debug control block as storage.\n"
        'name: "mote-pico2"\n'
        f'chip: "{chip}"\n'
        "external_devices: []\n"
        "peripherals:\n"
        '  - id: "dcb"\n'
        '    type: "stub"\n'
        f"    base_address: 0x{DCB_BASE:08X}\n"
        f'    size: "{DCB_SIZE}B"\n')
    return path


def elf_from_image(image: bytes, base: int, path: Union[str, Path]) -> Path:
    """Wrap a flat flash image (a .bin, or a UF2's payload) in a one-segment ELF.

    LabWired loads ELF files only; this keeps the bytes exactly as flashed.
    The entry point is the image's reset vector (word 1 of the vector table).
    """
    if len(image) < 8:
        raise LabwiredError("image too short for a vector table")
    entry = struct.unpack_from("<I", image, 4)[0]
    ehsize, phsize = 52, 32
    offset = 0x100
    header = struct.pack("<4sBBBBB7sHHIIIIIHHHHHH", b"\x7fELF", 1, 1, 1, 0, 0, b"\0" * 7,
                         2, 40, 1, entry, ehsize, 0, 0x05000000, ehsize, phsize, 1, 0, 0, 0)
    # PT_LOAD, offset, vaddr, paddr, filesz, memsz, flags R+X, align
    phdr = struct.pack("<IIIIIIII", 1, offset, base, base, len(image), len(image), 5, 4)
    blob = header + phdr
    blob += b"\0" * (offset - len(blob)) + image
    out = Path(path)
    out.write_bytes(blob)
    return out


def _elf_path(image: Path, work: Path, board: Board) -> Path:
    data = image.read_bytes()
    if data[:4] == b"\x7fELF":
        return image
    if image.suffix == ".uf2":
        from aot.deploy.uf2 import parse_uf2
        family, base, payload = parse_uf2(data, board.flash)
        if board.uf2_family_id is not None and family != board.uf2_family_id:
            raise LabwiredError(f"{image}: UF2 family 0x{family:08x}, {board.name} needs "
                                f"0x{board.uf2_family_id:08x}")
        return elf_from_image(payload, base, work / "image.elf")
    if image.suffix == ".bin":
        return elf_from_image(data, board.flash.origin, work / "image.elf")
    raise LabwiredError(f"{image}: not an ELF, .uf2 or .bin file")


def run(image: Union[str, Path], timeout_s: float = 60.0, max_sim_s: float = 10.0,
        slice_s: float = 0.002, read_after: Sequence[int] = (),
        board: Union[str, Board] = "pico2") -> LabwiredRun:
    """Boot `image` (.elf, .uf2 or .bin) on LabWired's RP2350 until ``MOTE EXIT``.

    Simulated time advances in `slice_s` steps; the run stops at the exit line,
    and LabwiredTimeout is raised after `timeout_s` seconds of wall time or
    `max_sim_s` seconds of simulated time. `read_after` lists addresses whose
    32-bit values are read from the machine after the run (peripheral state).
    """
    lw = _labwired()
    board = load_board(board)
    image = Path(image)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mote-labwired-") as tmp:
        work = Path(tmp)
        elf = _elf_path(image, work, board)
        try:
            sim = lw.Sim(str(elf), system=str(system_config(work)))
        except ValueError as e:
            raise LabwiredError(f"labwired cannot load {image}: {e}") from None
        with sim:
            while True:
                try:
                    sim.expect(_EXIT.pattern, timeout=slice_s)
                except lw.ExpectTimeout:
                    pass
                # The transcript keeps every byte (expect's stream may drop a
                # line split across two slices), so the exit line is found there.
                text = _text(sim.uart_transcript())
                found = _EXIT.findall(text)
                if found:
                    status = int(found[-1])
                    break
                if time.monotonic() - t0 > timeout_s or sim.time >= max_sim_s:
                    raise LabwiredTimeout(
                        f"{image} did not print MOTE EXIT within {timeout_s} s wall / {max_sim_s} s "
                        f"simulated (at {sim.time:.4f} s); UART so far:\n{text[-2000:]}", text)
            registers = {a: sim.read_u32(a) for a in read_after}
            return LabwiredRun(status=status, uart=text, sim_seconds=float(sim.time),
                               sim_cycles=int(sim.cycles), wall_seconds=time.monotonic() - t0,
                               registers=registers)


def run_pico2(elf_or_uf2: Union[str, Path], timeout_s: float = 60.0) -> tuple[int, str]:
    """Run a Pico 2 image on LabWired; returns (exit status, UART0 text)."""
    r = run(elf_or_uf2, timeout_s=timeout_s)
    return r.status, r.uart


def sim_board(board: Union[str, Board] = "pico2") -> Board:
    """`board` compiled for the soft-float ABI (no FPU instructions at all).

    For LabWired only: its VLDR (literal) is wrong and VMLA.F32, VCMP, VSEL...
    are UNDEFINED (see the module docstring). Same port, clocks, UART, memory map and boot block; fp32 math is
    done by libgcc's IEEE single-precision routines, so with the same
    operation order the outputs are bit-identical to the FPU's (round to nearest,
    no flush-to-zero, VMLA rounds the product and the sum separately).
    """
    b = load_board(board)
    return dataclasses.replace(b, mfloat_abi="soft", mfpu=None, fpu=False)


def _text(s: str) -> str:
    return s.replace("\r\n", "\n")
