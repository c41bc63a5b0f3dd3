"""Running firmware in QEMU (qemu-system-arm) with exact instruction counts.

Command line (QEMU 7.2, Debian 12):

    qemu-system-arm -machine <board.simulator.machine> -nographic
        -monitor none -serial stdio
        -semihosting-config enable=on,target=native
        -icount shift=0 -kernel firmware.elf

* ``-nographic`` alone multiplexes the monitor and serial0 on stdio (Ctrl-A
  escapes); ``-monitor none -serial stdio`` gives serial0 = UART0 of the
  mps2/mps3 machines a raw stdio backend, so stdin bytes (any value, 0x01
  included) reach UART0's receiver and UART0's transmitter writes to stdout.
  QEMU only offers a byte when the CMSDK UART's one-byte receive buffer is
  empty, so input written up front is not lost.
* ``-semihosting-config enable=on,target=native``: BKPT 0xAB is a semihosting
  call (without it the core locks up); SYS_EXIT_EXTENDED ends QEMU with the
  firmware's status as the process exit code.
* ``-icount shift=0``: one guest instruction = 1 ns of virtual time, so timers
  measure instruction counts and runs are deterministic.
* A firmware that never exits keeps QEMU running: every run has a timeout and
  QemuTimeout is raised with the output seen so far.
"""
from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path
from typing import Iterable, Optional, Union

from aot.deploy.proc_stream import stream_stdout
from aot.deploy.boards import Board, load_board
from aot.errors import MoteError, QemuError, QemuTimeout

QEMU = "qemu-system-arm"


def qemu_command(elf: Union[str, Path], board: Union[str, Board], serial: str = "stdio") -> list[str]:
    """The QEMU command line; `serial` is UART0's backend (``-serial`` value)."""
    board = load_board(board)
    if board.simulator is None or board.simulator.kind != "qemu":
        raise QemuError(f"board {board.name!r} has no QEMU machine (simulator is null)")
    return [QEMU, "-machine", board.simulator.machine, "-nographic",
            "-monitor", "none", "-serial", serial,
            "-semihosting-config", "enable=on,target=native",
            "-icount", "shift=0", "-kernel", str(elf)]


def _text(data: Optional[bytes]) -> str:
    if not data:
        return ""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def run_firmware(elf: Union[str, Path], board: Union[str, Board], timeout_s: float = 10.0,
                 stdin_bytes: Optional[bytes] = None) -> tuple[int, str]:
    """Run `elf` on the board's QEMU machine; returns (exit status, UART0 text).

    `stdin_bytes` are fed to UART0's receiver. UART text has "\\r\\n" turned into "\\n".
    Raises QemuTimeout when the firmware has not exited after `timeout_s` seconds.
    """
    board = load_board(board)
    if board.simulator is not None and board.simulator.kind == "rp2040js":
        from aot.deploy import rp2040js
        return rp2040js.run_firmware_streaming(elf, board, sim_seconds=max(timeout_s, rp2040js.DEFAULT_SIM_SECONDS),
                                               stdin_bytes=stdin_bytes)
    if shutil.which(QEMU) is None:
        raise QemuError(f"{QEMU} not found (Debian: apt install qemu-system-arm)")
    cmd = qemu_command(elf, board)
    try:
        proc = subprocess.run(cmd, input=stdin_bytes if stdin_bytes is not None else b"",
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        out = _text(e.stdout)
        raise QemuTimeout(f"firmware {elf} did not exit within {timeout_s} s on "
                          f"{cmd[2]}; UART so far:\n{out}", out) from None
    err = _text(proc.stderr)
    if proc.returncode != 0 and not proc.stdout and err:
        raise QemuError(f"QEMU failed ({proc.returncode}): {err.strip()}")
    return proc.returncode, _text(proc.stdout)


def run_firmware_streaming(elf: Union[str, Path], board: Union[str, Board], timeout_s: float = 60.0,
                           on_line=None, stdin_bytes: Union[None, bytes, Iterable[bytes]] = None) -> tuple[int, str]:
    """As run_firmware, but reads UART0 line by line while the firmware runs and
    calls `on_line(line)` for each (for progress bars). Always under `timeout_s`
    seconds of wall time; on timeout QEMU is killed and QemuTimeout raised.

    `stdin_bytes` (UART0's receiver): bytes, or an iterable of byte chunks (a
    generator of input lines) consumed as the firmware reads, so a long stream
    (tens of MB of "I <hex>" lines) is never held whole. A thread writes it while
    this one reads the output: QEMU takes a byte only when the UART's receive
    buffer is empty and blocks on a full stdout, so writing everything first
    would deadlock once the firmware's answers fill the pipe. An exception
    raised by on_line (a cancelled run) kills QEMU and propagates; one raised by
    the iterable ends the input (the firmware sees the end of its stdin) and is
    raised once QEMU has exited.

    A board whose simulator is rp2040js (pico) runs its UF2 there instead
    (aot.deploy.rp2040js.run_firmware_streaming): `timeout_s` is then simulated
    time, a budget of core cycles at the board's clock.
    """
    board = load_board(board)
    if board.simulator is not None and board.simulator.kind == "rp2040js":
        from aot.deploy import rp2040js
        if stdin_bytes is not None and not isinstance(stdin_bytes, (bytes, bytearray)):
            stdin_bytes = b"".join(stdin_bytes)
        return rp2040js.run_firmware_streaming(elf, board, sim_seconds=timeout_s,
                                               on_line=on_line, stdin_bytes=stdin_bytes)
    if shutil.which(QEMU) is None:
        raise QemuError(f"{QEMU} not found (Debian: apt install qemu-system-arm)")
    cmd = qemu_command(elf, board)
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    feeder = None
    if stdin_bytes:
        feeder = _Feeder(proc, stdin_bytes)
    else:
        proc.stdin.close()

    def timed_out(so_far: bytes) -> QemuTimeout:
        return QemuTimeout(f"firmware {elf} did not exit within {timeout_s} s; UART so far:\n"
                           + _text(so_far)[-2000:], _text(so_far))
    try:
        code, stdout = stream_stdout(proc, timeout_s, on_line, timed_out)
    finally:
        if feeder is not None:
            feeder.join()
    if feeder is not None and feeder.error is not None:
        raise feeder.error
    err = _text(proc.stderr.read())
    proc.stderr.close()
    proc.stdout.close()
    out = _text(stdout)
    if code != 0 and not out and err:
        raise QemuError(f"QEMU failed ({code}): {err.strip()}")
    return code, out


class _Feeder(threading.Thread):
    """Writes `data` (bytes or an iterable of byte chunks) to `proc`'s stdin, then
    closes it. A pipe QEMU no longer reads (it exited or was killed) ends the
    writing quietly: QEMU's status and output say what happened. An exception of
    the iterable itself is kept in `error` for the caller to raise."""

    def __init__(self, proc: subprocess.Popen, data):
        super().__init__(name="qemu-stdin", daemon=True)
        self.proc, self.data, self.error = proc, data, None
        self.start()

    def run(self) -> None:
        chunks = iter((self.data,) if isinstance(self.data, (bytes, bytearray, memoryview)) else self.data)
        try:
            while True:
                try:
                    chunk = next(chunks)
                except StopIteration:
                    break
                except BaseException as e:  # noqa: BLE001 - the iterable's own error, raised by the caller
                    self.error = e
                    break
                self.proc.stdin.write(chunk)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # QEMU has gone (ValueError: its stdin was closed under us)
        finally:
            try:
                self.proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass

    def join(self, timeout: Optional[float] = 10.0) -> None:
        super().join(timeout)


def start_firmware(elf: Union[str, Path], board: Union[str, Board]) -> subprocess.Popen:
    """Start `elf` on the board's QEMU machine and return at once: UART0 is the
    process's stdout (binary pipe; stdin closed, stderr piped). For callers that
    read the UART while the firmware runs (renode/sim_keywords, the Renode
    keywords on QEMU); the caller reads stdout to its end or kills the process."""
    if shutil.which(QEMU) is None:
        raise QemuError(f"{QEMU} not found (Debian: apt install qemu-system-arm)")
    return subprocess.Popen(qemu_command(elf, board), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def start_on_tcp(elf: Union[str, Path], board: Union[str, Board], port: int,
                 host: str = "127.0.0.1") -> subprocess.Popen:
    """Start `elf` on the board's QEMU machine with UART0 on a TCP server socket
    (``-serial tcp:HOST:PORT,server=on,wait=on``): QEMU waits for one client,
    then boots, so a client such as ``aot monitor socket://HOST:PORT`` or
    ``aot run DIR --target serial:socket://HOST:PORT`` sees every line, talking
    to it with the same pyserial code as to a real board's serial port.
    The caller ends the process (it runs until the firmware exits)."""
    if shutil.which(QEMU) is None:
        raise QemuError(f"{QEMU} not found (Debian: apt install qemu-system-arm)")
    import time
    cmd = qemu_command(elf, board, serial=f"tcp:{host}:{port},server=on,wait=on")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10.0
    while not _listening(port):  # probing with a connection would be the one client QEMU takes
        if proc.poll() is not None:
            err = _text(proc.stderr.read()).strip()
            raise QemuError(f"QEMU failed ({proc.returncode}) to serve UART0 on {host}:{port}: {err}")
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise QemuError(f"QEMU did not listen on {host}:{port} within 10 s")
        time.sleep(0.05)
    return proc


def _listening(port: int) -> bool:
    """Whether a TCP socket listens on `port` (Linux: /proc/net/tcp; elsewhere
    assumed after a short wait)."""
    import time
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        time.sleep(0.5)
        return True
    for t in tables:
        try:
            rows = t.read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if len(f) > 3 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def ensure_uf2(elf, board) -> Optional[str]:
    """For a board whose simulator boots the UF2 (rp2040js, the pico): make sure the UF2
    beside `elf` (<stem>.uf2, which `aot build`, `aot uf2` and cmake/mote.cmake's post-build
    step write) is the UF2 of this ELF, writing it from the ELF when it is missing or
    another image's (aot.deploy.firmware.uf2_from_elf: the one ELF->UF2 path). Returns
    the line saying so, or None (nothing written; other boards). Raises MoteError (one line)."""
    board = load_board(board)
    if board.simulator is None or board.simulator.kind != "rp2040js":
        return None
    from aot.deploy.firmware import uf2_from_elf
    made = uf2_from_elf(board, elf)
    uf2 = Path(elf).with_suffix(".uf2")
    if uf2.is_file() and uf2.read_bytes() == made:
        return None
    why = "it was missing" if not uf2.exists() else "the one there was another image's"
    uf2.write_bytes(made)
    return f"wrote {uf2} from {Path(elf).name} ({why}; as `aot uf2 {elf} --board {board.name}` makes it)"


def run_elf(elf, board: str, timeout: float = 60.0, prog: str = "aot qemu") -> int:
    """`aot qemu ELF --board BOARD [--timeout S]`: run a firmware ELF on the board's
    QEMU machine, print UART0 as it arrives, return the firmware's exit status (124
    on timeout, 2 when it cannot start: no such file, a board without a QEMU machine,
    QEMU missing; the reason in one line on stderr, after `prog`). The run step of
    build systems that link their own firmware (cmake/mote.cmake's run target, the
    PlatformIO platform). The pico runs on rp2040js from the UF2 beside the ELF, which
    ensure_uf2 writes from the ELF when it is missing or stale."""
    import sys
    if not Path(elf).is_file():
        print(f"{prog}: {elf}: no such firmware file", file=sys.stderr)
        return 2
    try:
        note = ensure_uf2(elf, board)
        if note:
            print(f"{prog}: {note}", file=sys.stderr, flush=True)
        code, _ = run_firmware_streaming(elf, board, timeout_s=timeout,
                                         on_line=lambda line: print(line, flush=True))
    except QemuTimeout:
        print(f"{prog}: {elf} did not exit within {timeout:g} s", file=sys.stderr)
        return 124
    except (QemuError, Exception) as e:  # noqa: BLE001 - bad board name, QEMU missing: one line
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    return code


def _main(argv=None) -> int:
    """`python -m aot.deploy.qemu ELF --board BOARD [--timeout S]`: the old form of
    `aot qemu` (kept one release)."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m aot.deploy.qemu", description=run_elf.__doc__.splitlines()[0])
    p.add_argument("elf")
    p.add_argument("--board", required=True, help="a board of boards/ that names a QEMU machine")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds of wall time (default 60)")
    args = p.parse_args(argv)
    return run_elf(args.elf, args.board, args.timeout, prog="mote qemu")


if __name__ == "__main__":
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.deploy.qemu ELF --board BOARD", "aot qemu ELF --board BOARD")
    raise SystemExit(_main())
