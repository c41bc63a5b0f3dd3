"""Renode's Robot Framework keywords, on QEMU and rp2040js.

renode/tests/*.robot are written for `renode-test`, which hands them Renode's
keywords through ``Resource ${RENODEKEYWORDS}``. Where Renode is not installed
they run with ``robot`` and RENODEKEYWORDS pointing at renode-keywords.robot
beside this file, which imports this library: the same keyword names and
arguments, carried out by the simulator the Mote board names (boards/<board>.json
"simulator"), as for `aot run`:

* QEMU (kind "qemu", e.g. mps2-an505): aot.deploy.qemu.start_firmware runs the
  ELF on the board's machine.
* rp2040js (kind "rp2040js", the pico): aot.deploy.rp2040js.start_uf2 boots the
  UF2 a user flashes for the ELF through the bootrom stand-in and the image's own
  boot2, as `aot run --target pico` does. That UF2 is firmware.uf2 beside the ELF
  (what `aot build` writes), used only once it is proven byte-identical to the UF2
  made from the ELF (aot.deploy.rp2040js.image_uf2); without one, that UF2.

What is understood (anything else fails with the command named):

* monitor commands, through ``Execute Command`` or a script (``Execute Script``,
  ``include @file``): ``$name=value`` and ``$name?=value`` (``$name`` is then
  replaced in later commands), ``mach create ["name"]``, ``machine
  LoadPlatformDescription @file.repl``, ``sysbus LoadELF @file.elf``,
  ``<cpu> VectorTableOffset <address>`` (checked to be where the board's image
  keeps its vector table; the simulators boot there themselves: on the pico the
  image's boot2 sets VTOR), ``showAnalyzer <uart>`` (nothing to show: the UART
  goes to the tester), ``start``; comments (``#``) and ``:header:`` lines of
  .resc files.
* a platform is one of renode/*.repl; PLATFORMS names the Mote board it
  stands for, and its cpuType must be the board's core. A board without a
  simulator (pico2: a memory-map stand-in, no QEMU machine, no RP2350 model)
  skips the test with the reason.
* ``Create Terminal Tester`` accepts only the platform's UART at the board's
  UART0 address (the one UART the simulators show); ``Wait For Line On Uart``
  waits for a line containing the text (or matching it, ``treatAsRegex=true``)
  after the last matched line, and fails with the lines seen when the time runs
  out or the firmware ends first; ``Register Failing Uart String`` fails a wait
  as soon as such a line appears.
* ``Setup``/``Teardown``/``Reset Emulation``/``Test Teardown`` (the settings
  renode-test supplies) stop the simulator and forget the machine.

Time. On QEMU a timeout is wall-clock time. On rp2040js it is virtual time, as
in Renode: T seconds are T x the board's clock_hz core cycles, and a run is
bounded by cycles, never by the machine's speed. A wait starts at the cycle at
which the line its predecessor matched ended (cycle 0, reset, for the first wait
after Start Emulation) and may last its timeout from there: its deadline. The
runner (run.js --tester) stamps every UART0 line with the core cycle at which it
ended, and pauses when it has spent the cycles granted so far: it starts paused
(Start Emulation grants one cycle), and each wait grants up to its deadline. So
the run goes no further than the last deadline a wait asked for. A wait fails
when the runner passed its deadline without the line ("cycle budget of N
spent"), or when the run ended first (MOTE EXIT, a hard fault, ...: the runner's
end reason). A returned timestamp is the line's virtual time in milliseconds.
"""
from __future__ import annotations

import re
import shlex
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from robot.api import SkipExecution  # noqa: E402

from aot.deploy import rp2040js  # noqa: E402
from aot.deploy.boards import load_board  # noqa: E402
from aot.deploy.qemu import start_firmware  # noqa: E402
from aot.errors import MoteError  # noqa: E402

#: renode/<file>.repl -> the Mote board (boards/<name>.json) it stands for.
PLATFORMS = {"mps2-an505.repl": "mps2-an505", "pico.repl": "pico", "pico2.repl": "pico2"}

#: simulator kinds (boards/*.json "simulator": {"kind"}) this library runs
SIMULATORS = ("qemu", "rp2040js")

#: Renode's default tester timeout (Set Default Uart Timeout), seconds.
DEFAULT_TIMEOUT = 8.0

_PERIPHERAL = re.compile(r"^(\w+):\s*([\w.]+)\s*@")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_CPU_TYPE = re.compile(r'^\s+cpuType:\s*"([^"]+)"', re.M)


class KeywordError(AssertionError):
    """A keyword failed (Robot reports the message, as Renode's keywords do: without
    the exception's name)."""

    ROBOT_SUPPRESS_NAME = True


def renode_cpu_type(core: str) -> str:
    """Renode's cpuType for a board's core (boards/*.json "core"): GCC's name, with
    Renode's "+" for "plus" (cortex-m0plus -> cortex-m0+)."""
    return core.replace("plus", "+")


def repl_cpu_types(path: Path) -> list:
    """The cpuType of every CPU of a .repl."""
    return _CPU_TYPE.findall(path.read_text())


def _path_arg(text: str) -> Path:
    """A monitor path argument (``@path``, quoted or not), relative to the cwd
    as Renode takes it."""
    text = text.strip().strip('"').strip("'")
    if text.startswith("@"):
        text = text[1:]
    return Path(text).expanduser()


def _repl_peripherals(path: Path) -> dict:
    """name -> (type, [addresses]) of a .repl's peripherals (the registration
    of each: its header line and, for a multi-registration block, the lines up
    to the closing brace)."""
    out, current, depth = {}, None, 0
    for raw in path.read_text().splitlines():
        line = raw.split("//", 1)[0].rstrip()
        m = _PERIPHERAL.match(line)
        if m and current is None:
            current, rest = m.group(1), line.split("@", 1)[1]
            out[current] = (m.group(2), [int(a, 16) for a in _ADDRESS.findall(rest)])
            depth = rest.count("{") - rest.count("}")
        elif current is not None:
            out[current][1].extend(int(a, 16) for a in _ADDRESS.findall(line))
            depth += line.count("{") - line.count("}")
        if depth <= 0:
            current = None
    return out


class _Uart:
    """UART0 of a running simulator: the lines read so far, a cursor past the
    last match. stamped (rp2040js --tester): stderr's "@line <cycles>" (one per
    line, in order) and "@paused <cycles>" are read too; other stderr lines are
    kept in `notes`."""

    def __init__(self, proc, stamped: bool = False):
        self.proc = proc
        self.lines: list = []
        self.partial = ""
        self.cursor = 0
        self.stamps = [] if stamped else None
        self.paused = None       # the cycle of the runner's last pause
        self.notes: list = []
        self.out_done = False
        self.err_done = not stamped
        self.cond = threading.Condition()
        self.threads = [threading.Thread(target=self._read, daemon=True)]
        if stamped:
            self.threads.append(threading.Thread(target=self._read_stamps, daemon=True))
        for t in self.threads:
            t.start()

    @property
    def done(self) -> bool:
        return self.out_done and self.err_done

    @property
    def reached(self) -> int:
        """The furthest cycle the runner is known to have passed."""
        return max(self.paused or 0, self.stamps[-1] if self.stamps else 0)

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                data = self.proc.stdout.read1(65536)
            except (OSError, ValueError):  # the pipe was closed under us (reset)
                data = b""
            with self.cond:
                if not data:
                    if pending:
                        self.lines.append(pending.decode("utf-8", "replace").rstrip("\r"))
                    self.partial = ""
                    self.out_done = True
                    self.cond.notify_all()
                    return
                pending += data
                *whole, pending = pending.split(b"\n")
                self.lines.extend(w.decode("utf-8", "replace").rstrip("\r") for w in whole)
                self.partial = pending.decode("utf-8", "replace")
                self.cond.notify_all()

    def _read_stamps(self) -> None:
        while True:
            try:
                raw = self.proc.stderr.readline()
            except (OSError, ValueError):
                raw = b""
            with self.cond:
                if not raw:
                    self.err_done = True
                    self.cond.notify_all()
                    return
                text = raw.decode("utf-8", "replace").rstrip()
                kind, _, value = text.partition(" ")
                if kind == "@line" and value.isdigit():
                    self.stamps.append(int(value))
                elif kind == "@paused" and value.isdigit():
                    self.paused = int(value)
                elif kind == "@progress":  # each simulated second: for a progress bar, not a note
                    pass
                elif text:
                    self.notes.append(text)
                self.cond.notify_all()


def _match(text: str, pattern: str, regex: bool):
    if regex:
        return re.search(pattern, text)
    return pattern in text


class SimKeywords:
    """Renode's keywords (the subset renode/tests use), run on QEMU or rp2040js."""

    ROBOT_LIBRARY_SCOPE = "SUITE"

    def __init__(self):
        self._variables: dict = {}
        self._reset()

    # ----------------------------------------------------------------- lifecycle

    def _reset(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if self._uart is not None:
                for t in self._uart.threads:
                    t.join(timeout=5)
            for f in (proc.stdin, proc.stdout, proc.stderr):
                if f is not None:
                    f.close()
        work = getattr(self, "_work", None)
        if work is not None:
            work.cleanup()
        self._proc = None
        self._uart = None
        self._work = None        # a temporary folder of the run (rp2040js: status, made UF2)
        self._machine = None
        self._platform = None
        self._board = None
        self._elf = None
        self._image = None       # rp2040js: the UF2 it boots
        self._tester = None      # (uart name, timeout)
        self._failing: list = []
        self._anchor = 0         # rp2040js: the cycle the next wait starts at
        self._granted = 0        # rp2040js: the budget granted to the runner, cycles

    def setup(self) -> None:
        """Suite setup (renode-keywords.robot's Setup): nothing to start."""
        self._reset()

    def teardown(self) -> None:
        """Suite teardown: stop the simulator."""
        self._reset()

    def reset_emulation(self) -> None:
        """Stop the simulator and forget the machine, its ELF and the tester."""
        self._reset()
        self._variables = {}

    def test_teardown(self) -> None:
        """Test teardown: as Reset Emulation."""
        self.reset_emulation()

    @property
    def _kind(self) -> str:
        return self._board.simulator.kind

    # ----------------------------------------------------------------- monitor

    def execute_command(self, command: str, machine: str = None) -> str:
        """One monitor command (the ones listed in this module's docstring)."""
        return self._command(command)

    def execute_script(self, path: str) -> str:
        """Every command of a .resc script, in order."""
        return self._script(_path_arg(path))

    def _script(self, path: Path) -> str:
        if not path.is_file():
            raise KeywordError(f"Could not execute script: no file {path}")
        out = []
        for raw in path.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith(":"):
                continue
            out.append(self._command(line))
        return "".join(out)

    def _substitute(self, text: str) -> str:
        def var(m):
            name = m.group(1)
            if name not in self._variables:
                raise KeywordError(f"variable ${name} is not set (command: {text!r})")
            return self._variables[name]
        return re.sub(r"\$(\w+)", var, text)

    def _command(self, command: str) -> str:
        command = command.strip()
        m = re.match(r"^\$(\w+)\s*(\?=|=)\s*(.*)$", command)
        if m:
            name, op, value = m.groups()
            if op == "=" or name not in self._variables:
                self._variables[name] = self._substitute(value.strip())
            return ""
        command = self._substitute(command)
        words = shlex.split(command)
        if not words:
            return ""
        head = words[0]
        if head == "mach" and len(words) >= 2 and words[1] == "create":
            if self._machine is not None:
                raise KeywordError("this stand-in for Renode runs one machine per test")
            self._machine = words[2] if len(words) > 2 else "machine-0"
            return ""
        if head in ("include", "i") and len(words) == 2:
            return self._script(_path_arg(words[1]))
        if head == "start" and len(words) == 1:
            self.start_emulation()
            return ""
        if self._machine is None:
            raise KeywordError(f"Could not execute command '{command}': no machine (mach create first)")
        if head == "machine" and len(words) == 3 and words[1] == "LoadPlatformDescription":
            return self._load_platform(_path_arg(words[2]))
        if head == "sysbus" and len(words) == 3 and words[1] == "LoadELF":
            return self._load_elf(_path_arg(words[2]))
        if len(words) == 3 and words[1] == "VectorTableOffset":
            return self._vector_table(words[0], words[2])
        if head == "showAnalyzer" and len(words) == 2:
            self._uart_address(words[1])
            return ""
        raise KeywordError(f"Could not execute command '{command}': not a command this stand-in for "
                           "Renode understands (see renode/sim_keywords/SimKeywords.py)")

    def _load_platform(self, path: Path) -> str:
        if not path.is_file():
            raise KeywordError(f"machine LoadPlatformDescription: no file {path}")
        name = PLATFORMS.get(path.name)
        if name is None:
            raise KeywordError(f"platform {path.name} has no Mote board here (known: "
                               f"{', '.join(sorted(PLATFORMS))})")
        board = load_board(name)
        cpus = repl_cpu_types(path)
        if cpus != [renode_cpu_type(board.core)]:
            raise KeywordError(f"{path.name}: its CPU ({', '.join(cpus) or 'none'}) is not board "
                               f"{board.name}'s core ({renode_cpu_type(board.core)})")
        if board.simulator is None or board.simulator.kind not in SIMULATORS:
            raise SkipExecution(
                f"{path.name} stands for board {board.name}, which has no simulator here "
                f"(boards/{board.name}.json: simulator null: no QEMU machine, no rp2040js); "
                "this test runs under renode-test only")
        self._platform = path.resolve()
        self._board = board
        return ""

    def _load_elf(self, elf: Path) -> str:
        if not elf.is_file():
            raise KeywordError(f"sysbus LoadELF: no file {elf} (build the firmware first: "
                               "see the robot file's comments)")
        if self._board is None:
            raise KeywordError("sysbus LoadELF: load a platform first")
        self._elf = elf.resolve()
        if self._kind == "rp2040js":
            # the UF2 a user flashes for this ELF: proven equal to the one made from it
            self._work = self._work or tempfile.TemporaryDirectory(prefix="mote-robot-")
            try:
                self._image = rp2040js.image_uf2(self._elf, self._board, self._work.name)
            except MoteError as e:
                raise KeywordError(f"sysbus LoadELF: {e}") from None
        return ""

    def _vector_table(self, cpu: str, value: str) -> str:
        """``<cpu> VectorTableOffset <address>``: the board's image keeps its vector
        table there (after boot2 on the pico); the simulators boot from it themselves."""
        if self._platform is None:
            raise KeywordError(f"no platform loaded: cannot find {cpu}")
        name = cpu.split(".", 1)[1] if cpu.startswith("sysbus.") else cpu
        kind, _ = _repl_peripherals(self._platform).get(name, (None, []))
        if kind is None or not kind.startswith("CPU."):
            raise KeywordError(f"Peripheral for machine {self._machine} not found or of wrong type: {cpu}")
        try:
            address = int(value, 0)
        except ValueError:
            raise KeywordError(f"{cpu} VectorTableOffset: {value!r} is not an address") from None
        vectors = self._board.flash.origin + self._board.boot2_bytes
        if address != vectors:
            raise KeywordError(f"{cpu} VectorTableOffset 0x{address:08x}: board {self._board.name}'s image "
                               f"keeps its vector table at 0x{vectors:08x}")
        return ""

    def _uart_address(self, uart: str) -> int:
        """The board's UART0 address, after checking that `uart` (sysbus.<name>)
        is a UART of the loaded platform registered there."""
        if self._platform is None:
            raise KeywordError(f"no platform loaded: cannot find {uart}")
        name = uart.split(".", 1)[1] if uart.startswith("sysbus.") else uart
        kind, addresses = _repl_peripherals(self._platform).get(name, (None, []))
        if kind is None or not kind.startswith("UART."):
            raise KeywordError(f"Peripheral for machine {self._machine} not found or of wrong type: {uart}")
        base = self._board.uart.base
        if base not in addresses:
            raise KeywordError(f"{uart} is not UART0 of board {self._board.name} (0x{base:08x}); the "
                               "simulators show only UART0")
        return base

    # ----------------------------------------------------------------- emulation

    def start_emulation(self) -> None:
        """Boot the loaded ELF on the board's simulator (rp2040js: its UF2, paused
        until a wait grants cycles)."""
        if self._proc is not None:
            return
        if self._board is None or self._elf is None:
            raise KeywordError("Start Emulation: load a platform and an ELF first")
        if self._kind == "qemu":
            self._proc = start_firmware(self._elf, self._board)
            self._uart = _Uart(self._proc)
            return
        self._anchor, self._granted = 0, 1
        try:
            self._proc = rp2040js.start_uf2(self._image, self._board, self._granted,
                                            Path(self._work.name) / "status.json")
        except MoteError as e:
            raise KeywordError(f"Start Emulation: {e}") from None
        self._uart = _Uart(self._proc, stamped=True)

    def _cycles(self, seconds: float) -> int:
        """Core cycles in `seconds` of virtual time at the board's clock."""
        return max(1, round(seconds * self._board.clock_hz))

    def _grant(self, cycles: int) -> None:
        """Let the rp2040js runner run up to `cycles` (it pauses past its budget)."""
        if cycles <= self._granted:
            return
        self._granted = cycles
        try:
            self._proc.stdin.write(b"%d\n" % cycles)
            self._proc.stdin.flush()
        except (BrokenPipeError, ValueError):  # the run already ended
            pass

    def _end_reason(self) -> str:
        """How the rp2040js run ended, from its status (after it exited)."""
        self._proc.wait()
        with self._uart.cond:
            uart = "\n".join(self._uart.lines)
        try:
            run = rp2040js.read_status(Path(self._work.name) / "status.json", uart)
        except MoteError as e:
            return f"{e}; stderr: {' '.join(self._uart.notes)[-500:]}"
        if run.result == "exit":
            return f"the firmware exited (MOTE EXIT {run.exit_status}) at cycle {run.cycles:,}"
        return run.error_line(self._image)

    # ----------------------------------------------------------------- UART

    def create_terminal_tester(self, uart: str, timeout: float = None, machine: str = None,
                               endLineOption: str = None, defaultPauseEmulation: bool = None,
                               defaultWaitForEcho: bool = None, defaultMatchNextLine: bool = None,
                               binaryMode: bool = False) -> int:
        """Attach a tester to `uart` (UART0 of the platform); returns its id (1)."""
        if self._tester is not None:
            raise KeywordError(f"Terminal tester for peripheral {uart} already exists")
        self._uart_address(uart)
        self._tester = (uart, DEFAULT_TIMEOUT if timeout is None else float(timeout))
        return 1

    def register_failing_uart_string(self, pattern: str, treatAsRegex: bool = False,
                                     testerId: int = None) -> None:
        """A line containing (matching) `pattern` fails the waits from now on."""
        self._need_tester(testerId)
        self._failing.append((pattern, bool(treatAsRegex)))

    def wait_for_line_on_uart(self, content: str, timeout: float = None, testerId: int = None,
                              treatAsRegex: bool = False, includeUnfinishedLine: bool = False,
                              pauseEmulation: bool = None, matchNextLine: bool = None) -> dict:
        """Wait for a line containing `content` (a regex with treatAsRegex=true)
        after the last line matched; returns {line, timestamp, groups}
        (timestamp: ms, virtual on rp2040js, wall-clock on QEMU)."""
        _, default = self._need_tester(testerId)
        if self._uart is None:
            raise KeywordError("Wait For Line On Uart: the emulation is not started")
        limit = default if timeout is None else float(timeout)
        regex = bool(treatAsRegex)
        if self._kind == "rp2040js":
            if includeUnfinishedLine:
                raise KeywordError("Wait For Line On Uart: includeUnfinishedLine is not supported on "
                                   "rp2040js (a line gets its cycle stamp when it ends)")
            return self._wait_virtual(content, limit, regex)
        return self._wait_wall(content, limit, regex, bool(includeUnfinishedLine))

    def _check_failing(self, line: str) -> None:
        for pattern, regex in self._failing:
            if _match(line, pattern, regex):
                raise KeywordError("Terminal tester failed!\n\nTest failing entry has "
                                   f"been found on UART:\n{line}")

    def _fail(self, content: str, why: str) -> None:
        seen = "\n".join(self._uart.lines[-60:]) or "(nothing)"
        raise KeywordError(f"Terminal tester failed!\n\nExpected line containing {content!r}: {why}. "
                           f"UART lines (last 60):\n{seen}")

    def _wait_wall(self, content: str, limit: float, regex: bool, unfinished: bool) -> dict:
        """QEMU: the wait bounded by wall-clock time."""
        u, start = self._uart, time.monotonic()
        with u.cond:
            while True:
                while u.cursor < len(u.lines):
                    line = u.lines[u.cursor]
                    u.cursor += 1
                    self._check_failing(line)
                    m = _match(line, content, regex)
                    if m:
                        groups = list(m.groups()) if regex else []
                        return {"line": line, "timestamp": (time.monotonic() - start) * 1000.0,
                                "groups": groups}
                if unfinished and u.partial and _match(u.partial, content, regex):
                    return {"line": u.partial, "timestamp": (time.monotonic() - start) * 1000.0,
                            "groups": []}
                left = limit - (time.monotonic() - start)
                if u.done or left <= 0:
                    break
                u.cond.wait(min(left, 0.5))
        why = (f"the firmware exited (QEMU status {self._proc.wait()})" if u.done
               else f"no such line within {limit:g} s")
        self._fail(content, why)

    def _wait_virtual(self, content: str, limit: float, regex: bool) -> dict:
        """rp2040js: the wait bounded by core cycles (see the module's docstring)."""
        u, clock = self._uart, self._board.clock_hz
        start = self._anchor
        budget = self._cycles(limit)
        deadline = start + budget
        self._grant(deadline)
        wall_limit = rp2040js.wall_limit(limit)  # a safety against a stuck runner only
        wall_end = time.monotonic() + wall_limit
        why = None
        with u.cond:
            while True:
                late = None
                while u.cursor < min(len(u.lines), len(u.stamps)):
                    stamp = u.stamps[u.cursor]
                    if stamp > deadline:
                        late = stamp
                        break
                    line = u.lines[u.cursor]
                    u.cursor += 1
                    self._check_failing(line)
                    m = _match(line, content, regex)
                    if m:
                        self._anchor = stamp
                        return {"line": line, "timestamp": stamp * 1000.0 / clock,
                                "groups": list(m.groups()) if regex else []}
                scanned = late is not None or u.cursor == len(u.lines) == len(u.stamps)
                if scanned and (late is not None or u.reached >= deadline):
                    why = (f"no such line within {limit:g} s of virtual time: the wait's cycle budget of "
                           f"{budget:,} cycles ({limit:g} s x {clock:,} Hz, from cycle {start:,}) was spent "
                           + (f"(the next line ended at cycle {late:,})" if late is not None
                              else f"(rp2040js paused at cycle {u.reached:,})"))
                    break
                if u.done:
                    break  # the run ended first: its end reason, below
                if time.monotonic() > wall_end:
                    why = (f"rp2040js did not reach cycle {deadline:,} within {wall_limit:g} s of wall time "
                           "(a safety limit; the machine is busy or the runner is stuck)")
                    break
                u.cond.wait(0.5)
        if why is None:
            why = self._end_reason()
        self._fail(content, why)

    def _need_tester(self, tester_id):
        if self._tester is None:
            raise KeywordError("Terminal tester for given ID was not found. Did you forget to call "
                               "`Create Terminal Tester`?")
        if tester_id not in (None, 1):
            raise KeywordError(f"Terminal tester for given ID={tester_id} was not found")
        return self._tester
