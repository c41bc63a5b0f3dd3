"""A Target: what a command builds for or runs on, resolved once from its name.

Two options name one:

- ``--board NAME`` (``aot build``, ``aot generate``) is **what you build for**: a board
  of ``boards/`` or a board file (.json). Its core, features and ABI pick the kernels
  (plain, DSP or MVE int8), size the runtime state and place the program in its memory.
- ``--target NAME`` (``aot run``, ``compare``, ``test``, ``profile``, ``debug``) is
  **where you run**: ``host`` (the host library, libmote.so), a Linux target
  (``linux-aarch64``, cross-built and run under qemu-user), a simulated board (a board
  whose file names a simulator, e.g. ``mps2-an505``) or ``serial:PORT`` (the firmware
  on a real board, over its serial port).

:func:`build_target` resolves ``--board`` and :func:`run_target` ``--target``; both give a
:class:`Target`, whose ``board`` is loaded once and handed down (the deploy functions
take the Board, they do not load it again by name). Unknown names and targets a
command cannot use are one line (RunError / BoardError).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

from aot.deploy.boards import Board, known_boards, load_board
from aot.errors import RunError

#: --target kinds
HOST, LINUX, BOARD, SERIAL = "host", "linux", "board", "serial"
SERIAL_PREFIX = "serial:"


@dataclass(frozen=True)
class Target:
    """A resolved --board or --target.

    kind: "host", "linux", "board" (a board: built for, or run on its simulator) or
    "serial" (a real board on `port`); name: as the user spelled it ("mps2-an505",
    "boards/x.json", "host", "serial:/dev/ttyACM0"); board: the Board (kind "board";
    for "serial", None: the build folder names the board); port: the serial port."""
    kind: str
    name: str
    board: Optional[Board] = None
    port: Optional[str] = None

    # ------------------------------------------------------------------ derived from the board

    @property
    def dsp_kernels(self) -> bool:
        """The int8 kernels are cmsis/'s DSP ones (so --dsp-weights applies): a DSP core without MVE."""
        return self.board is not None and self.board.dsp_kernels

    @property
    def int8_kernels(self) -> str:
        """Which int8 kernels a build for this target runs: "MVE", "DSP", "plain C" (a Cortex-M
        without either) or "portable" (host, Linux)."""
        if self.board is None:
            return "portable"
        return "MVE" if self.board.mve else "DSP" if self.board.dsp_kernels else "plain C"

    @property
    def simulated(self) -> bool:
        """A board whose file names a simulator (QEMU): firmware runs here."""
        return self.board is not None and self.board.simulator is not None

    def require_simulator(self, message: str) -> "Target":
        """This target, if it is a simulated board; else RunError(message)."""
        if self.kind == BOARD and not self.simulated:
            raise RunError(message)
        return self


def build_target(name) -> Target:
    """The target of ``--board NAME`` (a name in boards/, a board file, or a Board): what a
    build is for. Raises BoardError naming the known boards."""
    board = load_board(name)
    return Target(BOARD, str(name) if not isinstance(name, Board) else board.name, board)


def run_target(name: str, serial: bool = True, linux: bool = False) -> Target:
    """The target of ``--target NAME``: host, serial:PORT (when the command talks to a real
    board: `serial`), a Linux target (when the command runs on one: `linux`) or a board (by
    name or board file). A board is loaded here, once; a serial target needs its port."""
    if name == HOST:
        return Target(HOST, name)
    if serial and name.startswith(SERIAL_PREFIX):
        port = name[len(SERIAL_PREFIX):]
        if not port:
            raise RunError("--target serial:PORT needs a port (serial:/dev/ttyACM0, serial:COM3, "
                           "serial:socket://127.0.0.1:4321)")
        return Target(SERIAL, name, port=port)
    if linux:
        from aot.deploy.linux import is_linux_target
        if is_linux_target(name):
            return Target(LINUX, name)
    return Target(BOARD, name, load_board(name))


@functools.lru_cache(maxsize=None)
def simulated_boards() -> tuple:
    """The boards of boards/ whose file names a simulator (read once), for --target help texts
    and messages."""
    return tuple(b for b in known_boards() if load_board(b).simulator is not None)
