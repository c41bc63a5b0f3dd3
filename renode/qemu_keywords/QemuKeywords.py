"""Renode's Robot Framework keywords, on QEMU.

renode/tests/*.robot are written for `renode-test`, which hands them Renode's
keywords through ``Resource ${RENODEKEYWORDS}``. Where Renode is not installed
they run with ``robot`` and RENODEKEYWORDS pointing at renode-keywords.robot
beside this file, which imports this library: the same keyword names and
arguments, carried out by QEMU through aot.deploy.qemu (the command line and
the machine come from the board files, as for `aot run`).

What is understood (anything else fails with the command named):

* monitor commands, through ``Execute Command`` or a script (``Execute Script``,
  ``include @file``): ``$name=value`` and ``$name?=value`` (``$name`` is then
  replaced in later commands), ``mach create ["name"]``, ``machine
  LoadPlatformDescription @file.repl``, ``sysbus LoadELF @file.elf``,
  ``showAnalyzer <uart>`` (nothing to show: the UART goes to the tester),
  ``start``; comments (``#``) and ``:header:`` lines of .resc files.
* a platform is one of renode/*.repl; PLATFORMS names the Mote board it
  stands for, whose QEMU machine runs the firmware. A board without one
  (pico2: a memory-map stand-in with no QEMU machine) skips the test with the
  reason.
* ``Create Terminal Tester`` accepts only the platform's UART at the board's
  UART0 address (QEMU's serial0); ``Wait For Line On Uart`` waits for a line
  containing the text (or matching it, ``treatAsRegex=true``) after the last
  matched line, and fails with the lines seen when the time runs out or the
  firmware exits first; ``Register Failing Uart String`` fails a wait as soon
  as such a line appears.
* ``Setup``/``Teardown``/``Reset Emulation``/``Test Teardown`` (the settings
  renode-test supplies) stop QEMU and forget the machine.

Time here is wall-clock time (Renode's testers count virtual time).
"""
from __future__ import annotations

import re
import shlex
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from robot.api import SkipExecution  # noqa: E402

from aot.deploy.boards import load_board  # noqa: E402
from aot.deploy.qemu import start_firmware  # noqa: E402

#: renode/<file>.repl -> the Mote board (boards/<name>.json) it stands for.
PLATFORMS = {"mps2-an505.repl": "mps2-an505", "pico2.repl": "pico2"}

#: Renode's default tester timeout (Set Default Uart Timeout), seconds.
DEFAULT_TIMEOUT = 8.0

_PERIPHERAL = re.compile(r"^(\w+):\s*([\w.]+)\s*@")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


class KeywordError(AssertionError):
    """A keyword failed (Robot reports the message)."""


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
    """UART0 of a running QEMU: the lines read so far, a cursor past the last
    match, and the strings that fail a wait."""

    def __init__(self, proc):
        self.proc = proc
        self.lines: list = []
        self.partial = ""
        self.cursor = 0
        self.failing: list = []
        self.done = False
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

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
                    self.done = True
                    self.cond.notify_all()
                    return
                pending += data
                *whole, pending = pending.split(b"\n")
                self.lines.extend(w.decode("utf-8", "replace").rstrip("\r") for w in whole)
                self.partial = pending.decode("utf-8", "replace")
                self.cond.notify_all()


class QemuKeywords:
    """Renode's keywords (the subset renode/tests use), run on QEMU."""

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
                self._uart.thread.join(timeout=5)
            for f in (proc.stdout, proc.stderr):
                if f is not None:
                    f.close()
        self._proc = None
        self._uart = None
        self._machine = None
        self._platform = None
        self._board = None
        self._elf = None
        self._tester = None      # (uart name, timeout)
        self._failing: list = []

    def setup(self) -> None:
        """Suite setup (renode-keywords.robot's Setup): nothing to start."""
        self._reset()

    def teardown(self) -> None:
        """Suite teardown: stop QEMU."""
        self._reset()

    def reset_emulation(self) -> None:
        """Stop QEMU and forget the machine, its ELF and the tester."""
        self._reset()
        self._variables = {}

    def test_teardown(self) -> None:
        """Test teardown: as Reset Emulation."""
        self.reset_emulation()

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
                raise KeywordError("this QEMU stand-in runs one machine per test")
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
            elf = _path_arg(words[2])
            if not elf.is_file():
                raise KeywordError(f"sysbus LoadELF: no file {elf} (build the firmware first: "
                                   "see the robot file's comments)")
            self._elf = elf.resolve()
            return ""
        if head == "showAnalyzer" and len(words) == 2:
            self._uart_address(words[1])
            return ""
        raise KeywordError(f"Could not execute command '{command}': not a command this QEMU "
                           "stand-in for Renode understands (see renode/qemu_keywords/QemuKeywords.py)")

    def _load_platform(self, path: Path) -> str:
        if not path.is_file():
            raise KeywordError(f"machine LoadPlatformDescription: no file {path}")
        name = PLATFORMS.get(path.name)
        if name is None:
            raise KeywordError(f"platform {path.name} has no Mote board here (known: "
                               f"{', '.join(sorted(PLATFORMS))})")
        board = load_board(name)
        if board.simulator is None or board.simulator.kind != "qemu":
            raise SkipExecution(
                f"{path.name} stands for board {board.name}, which has no QEMU machine "
                f"(boards/{board.name}.json: simulator null); this test runs under renode-test only")
        self._platform = path.resolve()
        self._board = board
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
            raise KeywordError(f"{uart} is not UART0 of board {self._board.name} (0x{base:08x}); QEMU "
                               "shows only UART0")
        return base

    # ----------------------------------------------------------------- emulation

    def start_emulation(self) -> None:
        """Boot the loaded ELF on the platform's QEMU machine."""
        if self._proc is not None:
            return
        if self._board is None or self._elf is None:
            raise KeywordError("Start Emulation: load a platform and an ELF first")
        self._proc = start_firmware(self._elf, self._board)
        self._uart = _Uart(self._proc)

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
        after the last line matched; returns {line, timestamp, groups}."""
        _, default = self._need_tester(testerId)
        if self._uart is None:
            raise KeywordError("Wait For Line On Uart: the emulation is not started")
        limit = default if timeout is None else float(timeout)
        u, start = self._uart, time.monotonic()

        def match(text: str, pattern: str, regex: bool):
            if regex:
                return re.search(pattern, text)
            return pattern in text

        with u.cond:
            while True:
                while u.cursor < len(u.lines):
                    line = u.lines[u.cursor]
                    u.cursor += 1
                    for pattern, regex in self._failing:
                        if match(line, pattern, regex):
                            raise KeywordError("Terminal tester failed!\n\nTest failing entry has "
                                               f"been found on UART:\n{line}")
                    m = match(line, content, bool(treatAsRegex))
                    if m:
                        groups = list(m.groups()) if treatAsRegex else []
                        return {"line": line, "timestamp": (time.monotonic() - start) * 1000.0,
                                "groups": groups}
                if includeUnfinishedLine and u.partial and match(u.partial, content, bool(treatAsRegex)):
                    return {"line": u.partial, "timestamp": (time.monotonic() - start) * 1000.0,
                            "groups": []}
                left = limit - (time.monotonic() - start)
                if u.done or left <= 0:
                    break
                u.cond.wait(min(left, 0.5))
        why = (f"the firmware exited (QEMU status {self._proc.wait()})" if u.done
               else f"no such line within {limit:g} s")
        seen = "\n".join(u.lines[-60:]) or "(nothing)"
        raise KeywordError(f"Terminal tester failed!\n\nExpected line containing {content!r}: {why}. "
                           f"UART lines (last 60):\n{seen}")

    def _need_tester(self, tester_id):
        if self._tester is None:
            raise KeywordError("Terminal tester for given ID was not found. Did you forget to call "
                               "`Create Terminal Tester`?")
        if tester_id not in (None, 1):
            raise KeywordError(f"Terminal tester for given ID={tester_id} was not found")
        return self._tester
