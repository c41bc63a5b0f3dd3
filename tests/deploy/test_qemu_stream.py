"""aot.deploy.qemu.run_firmware_streaming with a long UART input: written by a thread
from an iterable while the output is read, so tens of MB in and out neither deadlock
(QEMU blocks on a full stdout pipe while the host would block writing its stdin) nor
sit whole in memory. `cat` stands in for QEMU: it answers every line at once, the
worst case for the pipes. The real firmware's stream is tests/e2e/test_kws_firmware.py."""
import time

import pytest

import aot.deploy.qemu as qemu

LINE = b"I " + b"ab" * 320 + b"\n"     # one hop of the keyword spotter: int16[1,160]


@pytest.fixture
def cat(monkeypatch):
    monkeypatch.setattr(qemu, "QEMU", "cat")
    monkeypatch.setattr(qemu, "qemu_command", lambda elf, board, serial="stdio": ["cat"])


def test_long_stream_in_and_out_without_deadlock(cat):
    n = 20_000                                   # 12.8 MB each way (the old write-first deadlocked at 64 KB)
    made, seen, ahead = [0], [0], [0]

    def lines():
        for _ in range(n):
            made[0] += 1
            ahead[0] = max(ahead[0], made[0] - seen[0])
            yield LINE

    def on_line(text):
        seen[0] += 1

    t0 = time.monotonic()
    code, out = qemu.run_firmware_streaming("fw.elf", "mps2-an505", timeout_s=120, on_line=on_line,
                                            stdin_bytes=lines())
    assert code == 0 and seen[0] == n and made[0] == n
    assert out.count("\n") == n and out.startswith(LINE.decode())
    # streamed: the writer never ran more than the pipes hold ahead of the reader
    assert ahead[0] < 2_000, ahead[0]
    assert time.monotonic() - t0 < 60


def test_bytes_input_still_works(cat):
    code, out = qemu.run_firmware_streaming("fw.elf", "mps2-an505", timeout_s=30,
                                            stdin_bytes=LINE * 500)
    assert code == 0 and out == LINE.decode() * 500


def test_a_cancelled_run_kills_the_simulator(cat):
    """on_line raising (Ctrl-C in a demo's worker) ends the run at once, the endless input too."""
    def endless():
        while True:
            yield LINE

    class Stop(Exception):
        pass

    def on_line(text):
        raise Stop

    t0 = time.monotonic()
    with pytest.raises(Stop):
        qemu.run_firmware_streaming("fw.elf", "mps2-an505", timeout_s=60, on_line=on_line, stdin_bytes=endless())
    assert time.monotonic() - t0 < 15


def test_an_input_error_ends_the_input_and_is_raised(cat):
    def broken():
        yield LINE
        raise ValueError("no more hops")

    with pytest.raises(ValueError, match="no more hops"):
        qemu.run_firmware_streaming("fw.elf", "mps2-an505", timeout_s=30, stdin_bytes=broken())
