"""The firmware line protocol (aot.deploy.protocol) and `aot monitor` against a
TCP socket served by the test (pyserial's socket:// URL, the same code path as
a device); Ctrl-C, --timeout, ports that cannot be opened. QEMU's own UART on a
socket is tested in tests/e2e/test_serial_qemu.py."""
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from aot.cli import main
from aot.errors import MoteError, ProtocolError
from aot.deploy.protocol import QUIT_LINE, RESET_LINE, input_line, parse_line, parse_uart

ROOT = Path(__file__).resolve().parents[2]
F32, I8 = 6, 1
METAS = [{"dtype": F32, "sizes": [1, 3]}, {"dtype": I8, "sizes": [2]}]
Y0 = np.array([[1.5, -2.0, 0.25]], np.float32)
Y1 = np.array([-3, 7], np.int8)
OUT_LINE = f"OUT 0 12345 {Y0.tobytes().hex()},{Y1.tobytes().hex()}"
SESSION = ["MOTE BOOT mps2-an505", "MOTE MODEL pte=2048 state=0 arena=512", OUT_LINE,
           "MOTE SELFTEST PASS n=4 max_abs_err=0.0001", "MOTE PROFILE op=conv2d cycles=99",
           "hello from printf", "MOTE DONE 1"]


# --------------------------------------------------------------------------- protocol


def test_parse_events():
    ev = [parse_line(ln, METAS) for ln in SESSION]
    assert [e["event"] for e in ev] == ["boot", "model", "out", "selftest", "profile", "text", "done"]
    assert ev[0]["board"] == "mps2-an505"
    assert (ev[1]["pte"], ev[1]["state"], ev[1]["arena"]) == (2048, 0, 512)
    assert (ev[2]["index"], ev[2]["count"]) == (0, 12345)
    np.testing.assert_array_equal(ev[2]["outputs"][0], Y0)
    np.testing.assert_array_equal(ev[2]["outputs"][1], Y1)
    assert ev[3]["verdict"] == "PASS" and ev[3]["fields"] == {"n": 4, "max_abs_err": 0.0001}
    assert ev[4]["fields"] == {"op": "conv2d", "cycles": 99}
    assert ev[6]["count"] == 1
    fail = parse_line("MOTE SELFTEST FAIL case=2 max_abs_err=0.5\r")
    assert fail["verdict"] == "FAIL" and fail["fields"]["case"] == 2
    case = parse_line("MOTE SELFTEST CASE 1 ok")
    assert case["verdict"] is None and case["kind"] == "CASE"
    err = parse_line("MOTE ERROR load -205")
    assert (err["event"], err["stage"], err["code"]) == ("error", "load", -205)


def test_out_without_or_against_metadata():
    ev = parse_line(OUT_LINE)
    assert ev["outputs_hex"] == [Y0.tobytes().hex(), Y1.tobytes().hex()] and "outputs" not in ev
    ev = parse_line(OUT_LINE, METAS[:1])
    assert "outputs" not in ev and "printed 2 outputs, the model has 1" in ev["note"]
    with pytest.raises(ProtocolError, match="output 1"):
        parse_uart(OUT_LINE + "\n", [METAS[0], {"dtype": I8, "sizes": [3]}])


def test_parse_uart_and_errors():
    outs, counts = parse_uart("\n".join(SESSION) + "\n", METAS)
    assert counts == [12345] and len(outs) == 1
    with pytest.raises(MoteError, match="MOTE ERROR execute -3"):
        parse_uart("MOTE BOOT x\nMOTE ERROR execute -3\n", METAS)


def test_input_line_framing():
    a, b = np.array([1.0], np.float32), np.array([1, -1], np.int8)
    assert input_line([a, b]) == b"I 0000803f01ff\n"


def test_reset_line_and_its_acknowledgement():
    """"R" resets a --uart-inputs firmware's state (mote_app.c answers "MOTE RESET"): one
    byte the firmware's reader tells from "I" and "Q", a line of its own."""
    assert RESET_LINE == b"R\n" and QUIT_LINE == b"Q\n"
    assert {RESET_LINE[:1], QUIT_LINE[:1], input_line([np.zeros(1, np.int8)])[:1]} == {b"R", b"Q", b"I"}
    ev = parse_line("MOTE RESET\r")
    assert (ev["event"], ev["fields"], ev["line"]) == ("reset", {}, "MOTE RESET")
    # a run with resets between streams reads as before: OUT lines only
    outs, counts = parse_uart("\n".join(["MOTE READY", "MOTE RESET", OUT_LINE, "MOTE RESET", OUT_LINE,
                                          "MOTE DONE 2"]) + "\n", METAS)
    assert counts == [12345, 12345] and len(outs) == 2
    # the app's header and the protocol's docstring document it
    app = (ROOT / "ports/cortex-m/app/mote_app.c").read_text()
    assert "MOTE RESET" in app and "mote_model_reset_state" in app
    import aot.deploy.protocol as protocol
    assert "R\\n" in protocol.__doc__ and "MOTE RESET" in protocol.__doc__


# --------------------------------------------------------------------------- a noisy link

from hypothesis import given, settings, strategies as st

from aot.deploy.protocol import read_selftest, read_traces
from aot.tools.device import event_json, event_text

# the words of the line grammar, so that generated lines reach every line kind
_GRAMMAR_WORDS = ["OUT", "PROF", "DBG", "MOTE", "BOOT", "MODEL", "READY", "DONE", "ERROR", "SELFTEST",
                  "CASE", "PASS", "FAIL", "PROF", "TRACE", "TEXT", "pte=", "events=", "run=", "n=",
                  "case=", "max_abs_err=", "tol=", "nan", "inf", "-inf", "0", "7", "99999999999999999999",
                  "1" * 5000, "\u0661\u0662\u0663", "\u00b2", "abc", "0a0", "ff", ",", " ", "=", "\r", "\n"]
_TOKEN_LINES = st.lists(st.sampled_from(_GRAMMAR_WORDS) | st.text(max_size=8), max_size=12).map("".join)
_NOISY = settings(max_examples=300, deadline=None, database=None, derandomize=True)


def _check_event(ev, line_text):
    """A parsed record: the keys its kind promises, readable by aot monitor."""
    assert isinstance(ev["event"], str) and ev["line"] == line_text.rstrip("\r\n")
    if ev["event"] == "out":
        assert type(ev["index"]) is int and type(ev["count"]) is int and "outputs_hex" in ev
    if ev["event"] == "trace":
        assert all(type(ev[k]) is int for k in ("instr", "start", "end"))
    if ev["event"] == "debug_output":
        assert len(ev["hex"]) % 2 == 0 and bytes.fromhex(ev["hex"]) is not None
    for v in ev.get("fields", {}).values():
        assert type(v) in (int, float, str) and (type(v) is not int or abs(v) < 10 ** 20)
    json.dumps(event_json(ev, None))
    assert all(isinstance(t, str) for t in event_text(ev, None))


@_NOISY
@given(st.binary(max_size=300))
def test_any_bytes_parse_to_a_record(raw):
    ev = parse_line(raw)
    _check_event(ev, raw.decode("utf-8", errors="replace"))


@_NOISY
@given(_TOKEN_LINES)
def test_any_grammar_line_parses_to_a_record(line):
    _check_event(parse_line(line), line)
    _check_event(parse_line(line, METAS), line)


@_NOISY
@given(st.lists(_TOKEN_LINES, max_size=8))
def test_any_lines_end_in_a_result_or_mote_error(lines):
    for reader in (lambda: parse_uart("\n".join(lines), METAS), lambda: read_traces(lines),
                   lambda: read_selftest(lines)):
        try:
            reader()
        except MoteError as e:
            assert len(str(e).splitlines()) <= 1 or "last lines" in str(e)


def test_numbers_that_are_not_the_firmwares():
    # non-ASCII digits: int() accepts them, the protocol does not
    for line in ["OUT \u0661 5 00", "PROF \u0661 2 3", "DBG 1 \u0662 00"]:
        assert parse_line(line)["event"] == "text"
    assert "count" not in parse_line("MOTE DONE \u00b2")  # '²'.isdigit() is True, int('²') raises
    assert parse_line("MOTE DONE 3")["count"] == 3
    assert "count" not in parse_line("MOTE DONE -3") and "count" not in parse_line("MOTE DONE +3")
    assert parse_line("MOTE MODEL pte=\u0661\u0662")["pte"] == "\u0661\u0662"
    # a number of more than 20 digits (and int()'s 4300-digit limit) stays text
    big = "9" * 5000
    assert parse_line(f"OUT 0 {big} 00")["event"] == "text"
    assert parse_line(f"PROF 1 2 {big}")["event"] == "text"
    assert parse_line(f"MOTE MODEL pte={big}")["pte"] == big
    assert parse_line("MOTE MODEL pte=18446744073709551615")["pte"] == 2 ** 64 - 1
    assert parse_line("MOTE ERROR load 1_000")["code"] == "1_000"
    # nan and inf are what mote_selftest_format prints for such errors: floats
    f = parse_line("MOTE SELFTEST PASS n=1 max_abs_err=nan tol=inf x=-inf")["fields"]
    assert math.isnan(f["max_abs_err"]) and f["tol"] == math.inf and f["x"] == -math.inf


def test_odd_hex_and_reserved_words():
    assert parse_line("DBG 1 2 abc")["event"] == "text"  # half a byte
    assert parse_line("DBG 1 2 abcd")["hex"] == "abcd"
    # "MOTE OUT" / "MOTE TRACE" are not OUT / PROF lines: no index, no instr to read
    for word in ("OUT", "TRACE", "DEBUG_OUTPUT", "TEXT"):
        assert parse_line(f"MOTE {word} 1 2")["event"] == "text"
    lines = ["OUT 0 5 00", "MOTE TRACE 1", "MOTE DEBUG_OUTPUT 1", "MOTE PROF events=0 run=1"]
    assert read_traces(lines)[0]["run"] == 1


def test_invalid_utf8():
    ev = parse_line(b"MOTE BOOT \xff\xfe\xc3(\n")
    assert ev["event"] == "boot" and ev["board"] == "\ufffd\ufffd\ufffd("
    assert parse_line(b"OUT 0 1 0\xff")["event"] == "text"


@pytest.mark.parametrize("prof, what", [
    ("MOTE PROF events=1 run=nan", "run='nan' is not an integer"),
    ("MOTE PROF events=1 run=1 overhead=inf", "overhead='inf' is not an integer"),
    ("MOTE PROF events=1 run=1.5", "run='1.5' is not an integer"),
    ("MOTE PROF events=x run=1", "events='x' is not an integer"),
    ("MOTE PROF events=\u0661 run=1", "events='\u0661' is not an integer"),
])
def test_trace_fields_that_are_not_integers(prof, what):
    with pytest.raises(ProtocolError, match=f"^MOTE PROF: {what}$"):
        read_traces(["OUT 0 5 00", "PROF 0 1 2", prof])


@pytest.mark.parametrize("line, what", [
    ("MOTE SELFTEST CASE case=x output=0 max_abs_err=0 tol=0 result=PASS", "case='x' is not an integer"),
    ("MOTE SELFTEST CASE case=0 output=0 max_abs_err=abc tol=0 result=PASS", "max_abs_err='abc' is not a number"),
    ("MOTE SELFTEST PASS n=inf max_abs_err=0", "n='inf' is not an integer"),
    ("MOTE SELFTEST FAIL n=1 max_abs_err=" + "9" * 5000, "max_abs_err='" + "9" * 40 + "' is not a number"),
])
def test_selftest_fields_that_are_not_numbers(line, what):
    with pytest.raises(ProtocolError, match=f": {what}$"):
        read_selftest([line])


def test_selftest_nan_fields_are_read():
    rep = read_selftest(["MOTE SELFTEST CASE case=0 output=0 max_abs_err=nan tol=inf result=FAIL",
                         "MOTE SELFTEST FAIL case=0 n=1 max_abs_err=nan"])
    assert rep["verdict"] == "FAIL" and math.isnan(rep["max_abs_err"]) and rep["rows"][0]["tol"] == math.inf


# --------------------------------------------------------------------------- aot monitor


class LineServer:
    """A TCP server (the 'board') that sends `lines` to its first client, then
    closes the connection (or keeps it open with hold=True)."""

    def __init__(self, lines, hold=False):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.url = f"socket://127.0.0.1:{self.sock.getsockname()[1]}"
        self.lines, self.hold = lines, hold
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.sock.accept()
        with conn:
            for ln in self.lines:
                conn.sendall((ln if isinstance(ln, bytes) else ln.encode()) + b"\r\n")
            if self.hold:
                self.done.wait(30)
        self.sock.close()

    def close(self):
        self.done.set()


def monitor(args, capsys):
    code = main(["monitor"] + args)
    out, err = capsys.readouterr()
    return code, out, err


def fake_build(folder: Path) -> Path:
    folder.mkdir()
    (folder / "model.pte").write_bytes(b"p" * 2048)
    (folder / "firmware.elf").write_bytes(b"e")
    (folder / "build.json").write_text(json.dumps({"board": "mps2-an505", "outputs": METAS,
                                                   "inputs": [], "input_sets": 1}))
    return folder


def test_monitor_text(capsys):
    srv = LineServer(SESSION)
    code, out, err = monitor([srv.url], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "boot: board mps2-an505"
    assert lines[1] == "model: pte 2,048 B, state 0 B, arena 512 B"
    assert lines[2] == "inference 0: 12,345 instructions"  # the BOOT line named a QEMU board
    assert "output 0: " in lines[3] and len(Y0.tobytes()) == 12 and "12 bytes" in lines[3]
    assert "selftest: PASS n=4 max_abs_err=0.0001" in lines
    assert "profile: op=conv2d cycles=99" in lines
    assert "hello from printf" in lines and "done: 1 inferences" in lines
    assert "closed" in err and "Traceback" not in err


def test_monitor_decodes_with_build(tmp_path, capsys):
    srv = LineServer(SESSION)
    code, out, err = monitor([srv.url, "--build", str(fake_build(tmp_path / "b"))], capsys)
    assert code == 0, err
    assert "    output 0: float32 [1, 3] [1.5, -2, 0.25]" in out.splitlines()
    assert "    output 1: int8 [2] [-3, 7]" in out.splitlines()


def test_monitor_json(tmp_path, capsys):
    srv = LineServer(SESSION)
    code, out, err = monitor([srv.url, "--json", "--build", str(fake_build(tmp_path / "b"))], capsys)
    assert code == 0, err
    events = [json.loads(ln) for ln in out.splitlines()]
    assert [e["event"] for e in events] == ["boot", "model", "out", "selftest", "profile", "text", "done"]
    out_ev = events[2]
    assert out_ev["outputs"] == [Y0.tolist(), Y1.tolist()]
    assert out_ev["dtypes"] == ["float32", "int8"] and out_ev["shapes"] == [[1, 3], [2]]
    assert (out_ev["count"], out_ev["counter"]) == (12345, "instructions")
    assert events[3]["verdict"] == "PASS"


def test_monitor_raw(capsys):
    srv = LineServer(SESSION)
    code, out, err = monitor([srv.url, "--raw"], capsys)
    assert code == 0 and out.splitlines() == SESSION


def test_monitor_timeout(capsys):
    srv = LineServer(SESSION[:2], hold=True)
    t0 = time.monotonic()
    code, out, err = monitor([srv.url, "--timeout", "0.5"], capsys)
    srv.close()
    assert code == 0 and out.splitlines()[0] == "boot: board mps2-an505"
    assert time.monotonic() - t0 < 5


NOISE = [b"MOTE BOOT " + b"b" * 300, b"MOTE BOOT ../../../etc/passwd.json", b"MOTE BOOT \x00\xff",
         b"OUT \xd9\xa1 5 00", b"OUT 0 " + b"9" * 5000 + b" 00", b"DBG 1 2 abc", b"MOTE DONE \xc2\xb2",
         b"MOTE MODEL pte=nan state=inf arena=" + b"1" * 5000, b"MOTE OUT 1", b"\xff\xfe garbage",
         b"MOTE BOOT mps2-an505", b"OUT 3 77 00"]


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_monitor_survives_a_noisy_link(capsys, fmt):
    srv = LineServer(NOISE)
    code, out, err = monitor([srv.url] + fmt, capsys)
    assert code == 0 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("aot monitor: socket://") and "closed" in err
    if fmt:
        def refuse(token):  # strict JSON: RFC 8259 has no NaN/Infinity
            raise ValueError(token)
        events = [json.loads(ln, parse_constant=refuse) for ln in out.splitlines()]
        assert [e["event"] for e in events] == ["boot", "boot", "boot", "text", "text", "text", "done",
                                                "model", "text", "text", "boot", "out"]
        assert events[0]["board"] == "b" * 300 and events[2]["board"] == "\x00\ufffd"
        assert events[7]["pte"] is None and events[7]["state"] is None and events[7]["arena"] == "1" * 5000
        # the unknown names gave no counter; the known board after them does
        assert events[-1]["counter"] == "instructions" and events[-1]["count"] == 77
    else:
        lines = out.splitlines()
        assert lines[0] == "boot: board " + "b" * 300 and "done: ? inferences" in lines
        assert "model: pte nan, state inf, arena " + "1" * 5000 in lines
        assert lines[-2] == "inference 3: 77 instructions"


class ChunkPort:
    """A pyserial port stand-in that returns `chunks` one read at a time."""
    port = "fake"
    in_waiting = 0

    def __init__(self, chunks):
        self.chunks = list(chunks)

    def read(self, n):
        if not self.chunks:
            raise OSError("gone")
        return self.chunks.pop(0)


def test_read_lines_bounds_a_line_without_newline(monkeypatch):
    from aot.deploy import serial_port
    monkeypatch.setattr(serial_port, "MAX_LINE_BYTES", 10)
    got = []
    with pytest.raises(MoteError, match="^fake closed"):
        for ln in serial_port.read_lines(ChunkPort([b"a" * 7, b"a" * 7, b"\xff" * 8, b"x\r\nMOTE", b" DONE 1\nok"])):
            got.append(ln)
    assert got == ["a" * 10, "aaaa\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd", "\ufffd\ufffdx",
                   "MOTE DONE 1", "ok"]


@pytest.mark.parametrize("port", ["/dev/mote-no-such-tty", "socket://127.0.0.1:1", "bogus://x"])
def test_monitor_port_that_cannot_be_opened(capsys, port):
    code, out, err = monitor([port], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"aot monitor: error: cannot open {port}")


def test_monitor_ctrl_c_exits_cleanly():
    srv = LineServer(SESSION[:2], hold=True)
    proc = subprocess.Popen([sys.executable, "-m", "aot.cli", "monitor", srv.url], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.strip() == "boot: board mps2-an505"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        srv.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_run_serial_refusals(tmp_path, capsys):
    build = fake_build(tmp_path / "b")
    code = main(["run", str(build), "--target", "serial:"])
    assert code == 1 and "needs a port" in capsys.readouterr().err
    code = main(["run", str(build / "model.pte"), "--target", "serial:loop://"])
    assert code == 1 and "runs a build directory" in capsys.readouterr().err
    np.savez(tmp_path / "in.npz", np.zeros(3, np.float32))
    code = main(["run", str(build), "--target", "serial:loop://", "--inputs", str(tmp_path / "in.npz")])
    err = capsys.readouterr().err
    assert code == 1 and "--uart-inputs" in err and len(err.strip().splitlines()) == 1
    code = main(["run", str(build), "--target", "serial:/dev/mote-no-such-tty", "--timeout", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot open /dev/mote-no-such-tty" in err


def test_run_serial_reads_embedded_runs(tmp_path, capsys):
    """Firmware with embedded inputs: the OUT lines after a reset are read back."""
    build = fake_build(tmp_path / "b")
    (build / "size.json").write_text(json.dumps({"flash_bytes": 10, "ram_bytes": 20}))
    srv = LineServer(SESSION)
    code = main(["run", str(build), "--target", f"serial:{srv.url}", "--json", "--timeout", "10"])
    out, err = capsys.readouterr()
    assert code == 0, err
    res = json.loads(out)
    assert res["outputs"] == [Y0.tolist(), Y1.tolist()] and res["instructions"] == 12345
    assert res["target"] == f"serial:{srv.url}"


def test_run_serial_refuses_another_model(tmp_path, capsys):
    build = fake_build(tmp_path / "b")
    (build / "model.pte").write_bytes(b"p" * 100)
    info = json.loads((build / "build.json").read_text())
    srv = LineServer(SESSION)
    code = main(["run", str(build), "--target", f"serial:{srv.url}", "--timeout", "10"])
    err = capsys.readouterr().err
    assert code == 1 and "the board runs another model (pte=2048 bytes" in err
    assert info["board"] == "mps2-an505"


@pytest.mark.parametrize("line, used", [("MOTE STACK used=1234", 1234), ("MOTE STACK used=abc", None),
                                        ("MOTE STACK used=nan", None), ("MOTE STACK used=\u0661", None)])
def test_stack_used_from_the_uart(line, used):
    from aot.deploy.run import RunResult
    assert RunResult(outputs=[], cycles=[], uart=f"MOTE BOOT x\n{line}\n", exit_code=0).stack_used == used
