"""Reading a simulator's stdout as it arrives, line by line, under a wall-time limit: the one
loop QEMU (aot.deploy.qemu) and rp2040js (aot.deploy.rp2040js) runs share."""
from __future__ import annotations

import selectors
import subprocess
import time
from typing import Callable, Optional


def stream_stdout(proc: subprocess.Popen, timeout_s: float, on_line: Optional[Callable[[str], None]],
                  on_timeout: Callable[[bytes], BaseException]) -> tuple:
    """(exit status, stdout bytes) of `proc`, calling on_line(text) for each complete line as
    it arrives. After `timeout_s` seconds of wall time the process is killed and
    on_timeout(stdout so far) is raised; on any exception the process is killed first."""
    deadline = time.monotonic() + timeout_s
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    chunks, pending = [], b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise on_timeout(b"".join(chunks))
            if not sel.select(timeout=min(left, 0.5)):
                continue
            data = proc.stdout.read1(65536)
            if not data:
                break
            chunks.append(data)
            pending += data
            *lines, pending = pending.split(b"\n")
            if on_line is not None:
                for ln in lines:
                    on_line(ln.decode("utf-8", errors="replace").rstrip("\r"))
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        sel.close()
    return code, b"".join(chunks)
