"""Talking to a board's UART through pyserial: `aot monitor` and
`aot run DIR --target serial:PORT`.

PORT is a device (/dev/ttyACM0, /dev/ttyUSB0, COM3, /dev/cu.usbmodem1102) or
a pyserial URL (socket://127.0.0.1:4321 for QEMU's UART on a TCP socket,
loop:// for a loopback). The same code talks to a real board and to QEMU
(aot.deploy.qemu.start_on_tcp), so the simulator tests exercise it.

The line protocol itself (what the lines mean, how inputs are framed) lives in
aot.deploy.protocol.
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

from aot.errors import MoteError, RunError, SerialPortError
from aot.deploy.protocol import input_line, parse_line

#: pyserial's read timeout: how often a waiting reader looks at its deadline, s
POLL_S = 0.1


def open_port(port: str, baud: int = 115200):
    """A pyserial port for `port` (device path or URL), 8N1 at `baud`.
    Raises SerialPortError with one readable line when it cannot be opened."""
    try:
        import serial
    except ImportError:
        raise MoteError("pyserial is not installed: pip install pyserial==3.5 "
                        "(scripts/bootstrap.sh installs it)") from None
    try:
        ser = serial.serial_for_url(port, baudrate=baud, bytesize=8, parity="N", stopbits=1,
                                    timeout=POLL_S, write_timeout=10, do_not_open=True)
        if type(ser).__module__.endswith("protocol_socket"):
            # pyserial empties a port's input when it opens it. On a device that drops
            # stale bytes; on a socket it would drop the first lines of a simulator whose
            # UART starts when the client connects (QEMU server=on,wait=on): keep them.
            ser.reset_input_buffer = lambda: None
            ser.open()
            del ser.reset_input_buffer
        else:
            ser.open()
        return ser
    except (serial.SerialException, ValueError, OSError) as e:
        if isinstance(getattr(e, "errno", None), int):
            reason = os.strerror(e.errno)
        else:  # pyserial repeats the port: keep what follows it
            reason = re.sub(r"^(\[Errno \d+\] )?[Cc]ould not open port \S+: ", "", str(e).strip())
        reason = reason or type(e).__name__
        raise SerialPortError(f"cannot open {port}: {reason}") from None


#: the longest line read_lines keeps, bytes: an OUT line of 8 MiB of outputs fits;
#: a link that sends more without a newline has its bytes cut into lines this long
MAX_LINE_BYTES = 16 << 20


def read_lines(ser, deadline: Optional[float] = None) -> Iterator[str]:
    """Lines from `ser` (without "\\r\\n", decoded as UTF-8 with replacement) as
    they arrive, until `deadline` (time.monotonic()) if given; at most
    MAX_LINE_BYTES each (longer ones are cut). Raises SerialPortError when the
    port goes away (device unplugged, socket closed); the text of an unfinished
    last line is then yielded first."""
    import serial

    def text(b) -> str:
        return bytes(b).decode("utf-8", errors="replace").rstrip("\r")

    pending = bytearray()
    while deadline is None or time.monotonic() < deadline:
        try:
            data = ser.read(max(1, ser.in_waiting))
        except (serial.SerialException, OSError) as e:
            if pending:
                yield text(pending)
            raise SerialPortError(f"{ser.port or 'the port'} closed ({e})") from None
        if not data:
            continue
        start = len(pending)
        pending += data
        end = pending.find(b"\n", start)  # only the new bytes: linear in the bytes read
        while end >= 0:
            yield text(pending[:end])
            del pending[:end + 1]
            end = pending.find(b"\n")
        while len(pending) > MAX_LINE_BYTES:
            yield text(pending[:MAX_LINE_BYTES])
            del pending[:MAX_LINE_BYTES]


def count_name(board) -> str:
    """What an OUT line's count is on `board` (Board.count_unit): exact instructions
    under QEMU (-icount), core cycles on silicon (DWT)."""
    return board.count_unit


def run_serial(build_dir, port: str, inputs: Optional[list] = None, timeout: float = 120.0,
               note: Optional[Callable[[str], None]] = None) -> dict:
    """Run the firmware of `build_dir`, already on a board (or QEMU) behind
    `port`, and read its outputs back; the result dict is shaped like
    aot.deploy.run.run_simulator's.

    ``--uart-inputs`` firmware: `inputs` (one inference's arrays) is sent as one
    "I <hex>" line and the next OUT line read back; the run is not ended with "Q",
    so the board stays ready for the next run. Firmware with embedded inputs:
    `inputs` must be None; its OUT lines are read until it has run every set
    (reset the board to make it run them).
    """
    from aot.deploy.run import _check_inputs, build_board, read_build
    build_dir = Path(build_dir).resolve()
    info = read_build(build_dir)
    board = build_board(info)
    metas = info["outputs"]
    counter = count_name(board)
    pte_bytes = (build_dir / "model.pte").stat().st_size
    say = note or (lambda _m: None)
    if info.get("uart_inputs"):
        if inputs is None:
            raise RunError("this firmware reads its inputs from the UART: give --inputs")
        sets = [_check_inputs(info, inputs)]
    else:
        if inputs is not None:
            raise RunError(f"{build_dir}'s firmware runs the inputs embedded at build time; to send "
                           "--inputs over serial, build it with `aot build --uart-inputs` and flash it")
        sets = [None] * int(info["input_sets"])
    ser = open_port(port, board.uart.baud)
    seen: list[str] = []
    runs = []
    deadline = time.monotonic() + timeout
    try:
        if not info.get("uart_inputs"):
            say(f"waiting up to {timeout:g} s for {len(sets)} inference(s) on {port}: reset the board")
        lines = read_lines(ser, deadline)
        for s in sets:
            if s is not None:
                ser.write(input_line(s))
                ser.flush()
            while True:
                try:
                    line = next(lines)
                except StopIteration:
                    raise RunError(f"no OUT line from {port} within {timeout:g} s; is the board "
                                   f"running {build_dir.name}'s firmware at {board.uart.baud} baud? "
                                   f"last lines: {seen[-5:]}") from None
                seen.append(line)
                ev = parse_line(line, metas)
                if ev["event"] == "error":
                    raise RunError(f"the board reported: {line}")
                if ev["event"] == "model" and ev.get("pte") not in (None, pte_bytes):
                    raise RunError(f"the board runs another model (pte={ev['pte']} bytes, "
                                   f"{build_dir.name}/model.pte has {pte_bytes}): flash "
                                   f"{build_dir.name} first (aot flash)")
                if ev["event"] == "out":
                    if "outputs" not in ev:
                        raise RunError(f"the board's outputs do not fit {build_dir.name}'s model "
                                       f"({ev['note']}): flash {build_dir.name} first (aot flash)")
                    runs.append({"outputs": ev["outputs"], counter: ev["count"]})
                    break
    except SerialPortError as e:
        raise RunError(f"{e} after {len(runs)} of {len(sets)} inferences; last lines: {seen[-5:]}") from None
    finally:
        ser.close()
    from aot.deploy.run import read_json
    size = read_json(build_dir / "size.json", ("flash_bytes", "ram_bytes"))
    return {"target": f"serial:{port}", "program": str(build_dir), "counter": counter,
            "runs": runs, "flash_bytes": size["flash_bytes"], "ram_bytes": size["ram_bytes"],
            "uart": "\n".join(seen) + "\n"}
