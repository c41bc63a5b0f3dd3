"""Running Raspberry Pi Pico (RP2040) firmware on rp2040js, the RP2040 model from npm.

rp2040js (pinned in sim/rp2040/package.json and package-lock.json; installed by
scripts/bootstrap.sh with ``npm ci --prefix sim/rp2040``) models the RP2040's
Cortex-M0+ core with cycle accounting, clocks and PLLs, resets, XIP, PL011 UARTs
and timers, but ships no bootrom. The pieces of ours:

* sim/rp2040/bootrom/bootrom.S: a bootrom stand-in written from the RP2040
  datasheet (ROM table and lookup, the flash routines a boot2 calls, the boot2
  CRC-32 check and copy to SRAM). :func:`bootrom` assembles it once per source
  version into build/sim-rp2040/ (bootrom.bin + the addresses of its park loops).
* sim/rp2040/run.js: loads the build's UF2 as the Pico's USB drive would, runs
  the core until UART0 prints ``MOTE EXIT <status>`` (the rp2040 port has no
  semihosting) or a budget of core cycles runs out; faults, a refused UF2 and a
  refused boot2 each end the run with a named result (see its header).

The image run is the one ``aot build --board pico`` writes (firmware.uf2 beside
firmware.elf), byte for byte: nothing in the firmware knows it is simulated.
Cycle counts: the rp2040 port's counter is SysTick on the core clock
(ports/cortex-m/cycles.c); rp2040js advances SysTick with its core cycle count,
so an OUT line's count is rp2040js's cycles for that inference.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from aot.deploy.boards import Board, load_board
from aot.deploy.proc_stream import stream_stdout
from aot.errors import RunError
from aot.paths import ROOT

SIM_DIR = ROOT / "sim" / "rp2040"
RUNNER = SIM_DIR / "run.js"
BOOTROM_SOURCE = SIM_DIR / "bootrom" / "bootrom.S"
#: where the assembled bootrom is kept (one folder per source digest)
BOOTROM_BUILD_DIR = ROOT / "build" / "sim-rp2040"
#: the rp2040js release package.json pins
RP2040JS_VERSION = "1.4.1"
NODE = "node"
#: default budget of a run, in seconds of simulated time at the board's core clock
DEFAULT_SIM_SECONDS = 10.0
#: an image that prints nothing on UART0 in this many simulated seconds does not start
#: (a Mote image prints MOTE BOOT ~30,000 cycles after reset): run.js ends it as "silent"
FIRST_OUTPUT_SECONDS = 1.0
#: wall-clock safety of a run (wall_limit): seconds, plus seconds per simulated second
WALL_MIN_SECONDS = 60.0
WALL_PER_SIM_SECOND = 20.0
#: run.js results other than "exit", as one line each (the runner's message follows)
_RESULT_LINES = {
    "bad_uf2": "{uf2} is not a complete RP2040 image: {message}",
    "bad_boot2": "the RP2040 bootrom did not boot {uf2}: {message}",
    "fault": "the firmware hard-faulted on the RP2040 (rp2040js): {message}",
    "budget": "the firmware did not finish on the RP2040 (rp2040js): {message} (raise --timeout: "
              "seconds of simulated time)",
    "asleep": "the firmware stopped on the RP2040 (rp2040js): {message}",
    "silent": "the firmware did not start on the RP2040 (rp2040js): {message}",
}


@dataclass
class Rp2040Run:
    """One run of run.js. result: "exit" or a failure (bad_uf2, bad_boot2, fault,
    budget, asleep); exit_status: the firmware's MOTE EXIT status (None without
    one); uart: UART0's text ("\\r\\n" as "\\n"); cycles: core cycles of the whole run;
    boot2_cycles / image_cycles: cycles from reset until boot2 (in SRAM) and the
    image's reset handler ran their first instruction; out_cycles: the cycle count as
    each OUT line ended; message: the runner's line."""
    result: str
    exit_status: Optional[int]
    uart: str
    cycles: int
    boot2_cycles: Optional[int]
    image_cycles: Optional[int]
    out_cycles: list
    message: str
    fault: Optional[dict]

    def error_line(self, uf2: Union[str, Path]) -> str:
        """The one line a user reads for a run that did not end in MOTE EXIT."""
        return _RESULT_LINES[self.result].format(uf2=Path(uf2).name, message=self.message)


def check_installed() -> None:
    """Raise RunError (one line, with the fix) unless node and the pinned rp2040js are here."""
    if shutil.which(NODE) is None:
        raise RunError("node is not installed (Debian: apt install nodejs npm); the pico board "
                       "runs on rp2040js")
    pkg = SIM_DIR / "node_modules" / "rp2040js" / "package.json"
    try:
        version = json.loads(pkg.read_text()).get("version")
    except (OSError, ValueError):
        version = None
    if version != RP2040JS_VERSION:
        raise RunError(f"rp2040js {RP2040JS_VERSION} is not installed in {SIM_DIR} "
                       f"(found {version}); run `npm ci --prefix sim/rp2040` (scripts/bootstrap.sh does)")


def bootrom() -> tuple[Path, Path]:
    """(bootrom.bin, bootrom.json) of the stand-in, assembled when its source changed.
    bootrom.json maps its global symbols (mote_rom_usb_boot, mote_rom_hardfault, ...)
    to ROM addresses."""
    from aot.deploy.firmware import CC, OBJCOPY
    src = BOOTROM_SOURCE.read_bytes()
    out = BOOTROM_BUILD_DIR / hashlib.sha256(src).hexdigest()[:16]
    binf, symf = out / "bootrom.bin", out / "bootrom.json"
    if binf.exists() and symf.exists():
        return binf, symf
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        elf, raw = Path(tmp) / "bootrom.elf", Path(tmp) / "bootrom.bin"
        for cmd in ([CC, "-mcpu=cortex-m0plus", "-mthumb", "-nostdlib", "-Wl,-Ttext=0", "-Wl,-e,rom_start",
                     str(BOOTROM_SOURCE), "-o", str(elf)],
                    [OBJCOPY, "-O", "binary", str(elf), str(raw)]):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RunError(f"assembling the RP2040 bootrom stand-in failed: {proc.stderr.strip()}")
        nm = subprocess.run([CC.replace("gcc", "nm"), "-g", str(elf)], capture_output=True, text=True)
        symbols = {f[2]: int(f[0], 16) for f in (ln.split() for ln in nm.stdout.splitlines()) if len(f) == 3}
        if "mote_rom_usb_boot" not in symbols:
            raise RunError(f"{BOOTROM_SOURCE.name}: no mote_rom_usb_boot symbol")
        (Path(tmp) / "bootrom.json").write_text(json.dumps(symbols, sort_keys=True) + "\n")
        os.replace(raw, binf)
        os.replace(Path(tmp) / "bootrom.json", symf)
    return binf, symf


def cycle_budget(board: Board, sim_seconds: float = DEFAULT_SIM_SECONDS) -> int:
    """Core cycles in `sim_seconds` of simulated time at the board's clock."""
    return int(board.clock_hz * sim_seconds)


def runner_command(uf2: Union[str, Path], board: Board, max_cycles: int, status_path: Path,
                   stdin_path: Optional[Path] = None, tester: bool = False, slot_uf2=None) -> list:
    """The command line of one run.js run of `uf2` on `board` (after check_installed):
    the bootrom stand-in, a budget of `max_cycles` core cycles, the status written to
    `status_path`; stdin_path: bytes for UART0's receiver; tester: run.js's --tester
    protocol (per-line cycle stamps, pause at the budget; see run.js). Every run ends as
    "silent" when the image prints nothing within FIRST_OUTPUT_SECONDS, and reports its
    progress each simulated second. slot_uf2: a model image's UF2 (aot pack) written after
    `uf2`, as a second drag-and-drop writes it (aot.deploy.slot)."""
    rom, symbols = bootrom()
    second = cycle_budget(board, 1.0)
    cmd = [NODE, str(RUNNER), "--bootrom", str(rom), "--rom-symbols", str(symbols), "--uf2", str(uf2),
           "--cycles", str(int(max_cycles)), "--flash-bytes", str(board.flash.size), "--status", str(status_path),
           "--first-output", str(cycle_budget(board, FIRST_OUTPUT_SECONDS)), "--progress", str(second)]
    if stdin_path is not None:
        cmd += ["--stdin", str(stdin_path)]
    if slot_uf2 is not None:
        cmd += ["--slot-uf2", str(slot_uf2)]
    if tester:
        cmd.append("--tester")
    return cmd


def read_status(status_path: Path, uart: str) -> Rp2040Run:
    """The Rp2040Run of a finished run.js run from its --status file and UART0 text."""
    try:
        st = json.loads(Path(status_path).read_text())
    except (OSError, ValueError):
        raise RunError(f"the rp2040js runner ended without a status; UART:\n{uart[-2000:]}") from None
    return Rp2040Run(st["result"], st.get("exit_status"), uart, int(st.get("cycles") or 0),
                     st.get("boot2_cycles"), st.get("image_cycles"), list(st.get("out_cycles") or []),
                     st.get("message", ""), st.get("fault"))


def run_uf2(uf2: Union[str, Path], board: Union[str, Board] = "pico", max_cycles: Optional[int] = None,
            timeout_s: float = 300.0, on_line=None, stdin_bytes: Optional[bytes] = None,
            slot_uf2=None) -> Rp2040Run:
    """Run `uf2` on rp2040js from reset (bootrom stand-in, boot2, image).

    max_cycles: the run's budget in core cycles (default: DEFAULT_SIM_SECONDS at the
    board's clock). timeout_s: wall-clock safety only; a run is bounded by cycles.
    on_line: called with each UART0 line as it arrives. stdin_bytes: fed to UART0's
    receiver as its FIFO has room."""
    board = load_board(board)
    check_installed()
    budget = max_cycles if max_cycles is not None else cycle_budget(board)
    with tempfile.TemporaryDirectory(prefix="mote-rp2040-") as tmp:
        status_path = Path(tmp) / "status.json"
        stdin_path = None
        if stdin_bytes:
            stdin_path = Path(tmp) / "stdin.bin"
            stdin_path.write_bytes(stdin_bytes)
        text = _stream(runner_command(uf2, board, budget, status_path, stdin_path, slot_uf2=slot_uf2), timeout_s,
                       on_line, budget, board)
        return read_status(status_path, text)


def start_uf2(uf2: Union[str, Path], board: Union[str, Board], max_cycles: int,
              status_path: Union[str, Path]) -> subprocess.Popen:
    """Start `uf2` on rp2040js with run.js's --tester protocol and return at once
    (aot.deploy.qemu.start_firmware's counterpart, for renode/sim_keywords): UART0 is
    the process's stdout (binary pipe); stderr carries "@line <cycles>" after each
    UART0 line and "@paused <cycles>" when `max_cycles` core cycles are spent, after
    which the run waits for a larger budget (a decimal line on stdin, a pipe; closing
    it ends the run as "budget"). The status is written to `status_path` at the end
    (read_status). The caller reads stdout and stderr to their ends or kills the process."""
    board = load_board(board)
    check_installed()
    cmd = runner_command(uf2, board, max_cycles, Path(status_path), tester=True)
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def image_uf2(elf: Union[str, Path], board: Union[str, Board], work_dir: Union[str, Path]) -> Path:
    """The UF2 a user flashes for `elf`, which rp2040js boots: firmware.uf2 beside it (as
    `aot build` writes it) after proving it is the UF2 of this ELF (aot.deploy.firmware
    .uf2_from_elf, the helper `aot build` writes it with); without one, that UF2 written
    into `work_dir`. Raises RunError (one line) when the sibling is another image."""
    from aot.deploy.firmware import uf2_from_elf
    board = load_board(board)
    elf = Path(elf)
    made = uf2_from_elf(board, elf)
    sibling = elf.with_suffix(".uf2")
    if sibling.exists():
        if sibling.read_bytes() != made:
            raise RunError(f"{sibling} is not the UF2 of {elf.name} (a stale or edited image); "
                           "rebuild with `aot build`")
        return sibling
    out = Path(work_dir) / sibling.name
    out.write_bytes(made)
    return out


def _stream(cmd: list, timeout_s: float, on_line, budget: int, board: Board) -> str:
    """Run `cmd`, calling on_line per stdout line; its text ("\\r\\n" as "\\n"). Its
    stderr's "@progress <cycles>" lines drive a bar of simulated seconds (aot.progress)."""
    from aot import progress
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    hz = float(board.clock_hz)
    bar = progress.bar(f"rp2040js ({board.name})", round(budget / hz, 1), "s sim")

    def read_stderr() -> None:
        done = 0.0
        for raw in proc.stderr:
            if raw.startswith(b"@progress "):
                now = int(raw.split()[1]) / hz
                bar.update(round(now - done, 1))
                done = round(now, 1)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()

    def timed_out(_so_far: bytes) -> RunError:
        return RunError(f"rp2040js did not finish a budget of {budget:,} cycles within {timeout_s:g} s "
                        "of wall time (the machine is busy, or raise the timeout)")
    try:
        _, stdout = stream_stdout(proc, timeout_s, on_line, timed_out)
    finally:
        reader.join(timeout=5)
        bar.close()
        proc.stdout.close()
        proc.stderr.close()
    return stdout.decode("utf-8", errors="replace").replace("\r\n", "\n")


def wall_limit(sim_seconds: float) -> float:
    """Wall-clock safety for a run of `sim_seconds` simulated seconds: rp2040js simulates
    the 125 MHz core at roughly 50-60 M cycles/s on an idle host core (0.4-0.5x real
    time) and 20 M cycles/s on a busy one, so WALL_PER_SIM_SECOND leaves room for a
    machine several times busier still."""
    return WALL_MIN_SECONDS + WALL_PER_SIM_SECOND * sim_seconds


def run_firmware_streaming(elf: Union[str, Path], board: Union[str, Board], sim_seconds: float = DEFAULT_SIM_SECONDS,
                           on_line=None, stdin_bytes: Optional[bytes] = None) -> tuple[int, str]:
    """aot.deploy.qemu.run_firmware_streaming's contract for an rp2040js board: run the UF2
    a user flashes for `elf` (firmware.uf2 beside it, as `aot build` writes it, run as it
    is; without one, e.g. a CMake build's ELF, the UF2 made from the ELF) for at most `sim_seconds` of
    simulated time (`aot run/test --timeout` on the pico: a cycle budget, as Renode's
    virtual time), return (the firmware's MOTE EXIT status, UART0 text). A run that does
    not reach MOTE EXIT (refused UF2 or boot2, hard fault, silent image, cycle budget
    spent) raises RunError with one line."""
    from aot.deploy.firmware import uf2_from_elf
    board = load_board(board)
    with tempfile.TemporaryDirectory(prefix="mote-rp2040-") as tmp:
        uf2 = Path(elf).with_suffix(".uf2")
        if not uf2.exists():  # an ELF linked elsewhere (CMake, PlatformIO): the UF2 a user would flash
            uf2 = Path(tmp) / uf2.name
            uf2.write_bytes(uf2_from_elf(board, Path(elf)))
        run = run_uf2(uf2, board, max_cycles=cycle_budget(board, sim_seconds), timeout_s=wall_limit(sim_seconds),
                      on_line=on_line, stdin_bytes=stdin_bytes)
    if run.result != "exit":
        raise RunError(run.error_line(uf2))
    return run.exit_status, run.uart
