"""The firmware's UART line protocol: the one home of its reader and writer.

Lines the firmware prints (ports/cortex-m/app/mote_app.c writes them; the
SELFTEST lines come from runtime/embed/mote_selftest.c, also in a user's firmware):

    MOTE BOOT <board>
    MOTE MODEL pte=<bytes> state=<bytes> arena=<bytes>
    MOTE READY                                   (--uart-inputs firmware: send inputs now)
    MOTE RESET                                   (--uart-inputs firmware: the state was reset, after "R")
    OUT <index> <count> <output 0 hex>[,<output 1 hex>...]
    MOTE DONE <inferences>
    MOTE ERROR <stage> <code>
    MOTE SELFTEST CASE case=<k> output=<o> max_abs_err=<e> tol=<t> result=PASS|FAIL
    MOTE SELFTEST PASS n=<cases> max_abs_err=<e>
    MOTE SELFTEST FAIL case=<k> output=<o> element=<i> got=<g> want=<w> tol=<t> failed=<f> n=<cases> max_abs_err=<e>
    (and any other "MOTE <WORD> key=value ..." line)

Several models in one firmware (aot build A=a.py B=b.py; read_models_selftest):

    MOTE MODEL name=<name> pte=<bytes> state=<bytes> arena=<bytes>   (one per model)
    MOTE RUN model=<name>           the OUT and SELFTEST lines that follow are that model's
    MOTE SELFTEST ... model=<name>  (every SELFTEST line of a named model, also from
                                    mote_model_<name>_selftest() in a user's firmware)

Traced firmware (aot build --trace profile|debug), after each OUT line:

    DBG <instr> <value> <tensor hex>             (--trace debug: each instruction's outputs)
    PROF <instr> <start> <end>                   one per executed instruction, ticks
    MOTE PROF events=<n> dropped=<d> overhead=<ticks> run=<ticks>

<count> is the inference's cycle count (DWT on silicon) or exact instruction
count (QEMU -icount). Output tensors are the hex of their little-endian bytes.

Lines the host sends to ``--uart-inputs`` firmware (MOTE_APP_UART_INPUTS):

    I <hex of every input's bytes back to back>\\n    one inference
    R\\n                                              reset the state: the model's mutable
                                                     buffers back to their initial values
                                                     (mote_model_reset_state), acknowledged
                                                     with "MOTE RESET"; a stateful (streaming)
                                                     program then runs its next stream
    Q\\n                                              end the run

`parse_line` turns one line into an event dict (JSON-ready except for
"outputs", which are numpy arrays when the outputs' metadata is known);
`parse_uart` reads a whole run's text; `input_line` writes one inference's
input line (RESET_LINE and QUIT_LINE are the other two). aot.deploy.run (QEMU)
and aot.deploy.serial (a real port) both use these; `read_selftest` reads a --selftest firmware's lines into the report
aot.deploy.selftest.run_host makes on the host.
"""
from __future__ import annotations

import re
from typing import Optional

import numpy as np

from aot import ir
from aot.errors import MoteError, ProtocolError

# The firmware prints ASCII only: [0-9] with re.ASCII, not \d (int() would take '١٢٣'),
# a number has at most 20 digits (uint64), a tensor's hex whole bytes.
_NUM = r"([0-9]{1,20})"
_OUT = re.compile(rf"^OUT {_NUM} {_NUM} ([0-9a-fA-F,]*)$", re.ASCII)
_MOTE = re.compile(r"^MOTE ([A-Z][A-Z0-9_]*)(?: (.*))?$", re.ASCII)
_PROF = re.compile(rf"^PROF {_NUM} {_NUM} {_NUM}$", re.ASCII)
_DBG = re.compile(rf"^DBG {_NUM} {_NUM} ((?:[0-9a-fA-F]{{2}})*)$", re.ASCII)
_INT = re.compile(r"[+-]?[0-9]{1,20}", re.ASCII)
# what mote_selftest_format and printf's %d/%u/%f/%e/%g print: no '_', no ' 1', no '١'
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,3})?"
                    r"|nan|inf)", re.ASCII | re.IGNORECASE)


def _number(text: str):
    """An ASCII integer of at most 20 digits as int, a float the firmware prints
    (1.250e-3, nan, inf) as float, anything else as the text itself."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def _fields(words: list) -> dict:
    out = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = _number(v)
    return out


def _int_field(fields: dict, key: str, default: int, line_kind: str) -> int:
    """fields[key] as an int (default when absent). Raises ProtocolError when
    the line gave something else (text, a float, nan)."""
    v = fields.get(key, default)
    if type(v) is not int:
        raise ProtocolError(f"{line_kind}: {key}={str(v)[:40]!r} is not an integer")
    return v


def _float_field(fields: dict, key: str, line_kind: str) -> float:
    """fields[key] as a float (nan when absent). Raises ProtocolError on text."""
    v = fields.get(key, float("nan"))
    if type(v) not in (int, float):
        raise ProtocolError(f"{line_kind}: {key}={str(v)[:40]!r} is not a number")
    return float(v)


def decode_outputs(hex_parts: list, outputs_meta: list) -> list:
    """numpy arrays of one OUT line's hex fields; `outputs_meta` is build.json's
    "outputs" (dtype, sizes per output). Raises ProtocolError when they do not fit."""
    if len(hex_parts) != len(outputs_meta):
        raise ProtocolError(f"the firmware printed {len(hex_parts)} outputs, the model has "
                            f"{len(outputs_meta)}")
    arrays = []
    for i, (hexs, meta) in enumerate(zip(hex_parts, outputs_meta)):
        dt = np.dtype(ir.DTYPE_NUMPY[meta["dtype"]])
        shape = [int(s) for s in meta["sizes"]]
        want = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        if len(hexs) != 2 * want:
            raise ProtocolError(f"output {i}: the firmware printed {len(hexs) // 2} bytes, the model's "
                                f"{meta['dtype']} {shape} has {want}")
        arrays.append(np.frombuffer(bytes.fromhex(hexs), dtype=dt).reshape(shape).copy())
    return arrays


#: the events of lines that are not "MOTE <WORD>" lines
_OTHER_KINDS = ("out", "trace", "debug_output", "text")


def parse_line(line: str, outputs_meta: Optional[list] = None) -> dict:
    """One protocol line as an event:

    {"event": "boot", "board"} · {"event": "model", "pte", "state", "arena"} ·
    {"event": "ready"} · {"event": "reset", "fields"} (after an "R" line) ·
    {"event": "done", "count"} · {"event": "error", "stage", "code"} ·
    {"event": "out", "index", "count", "outputs" (arrays; with outputs_meta) or
    "outputs_hex" (without, or when they do not fit: then "note" says why)} ·
    {"event": "selftest", "verdict" ("PASS"/"FAIL"/None), "fields"} ·
    {"event": "trace", "instr", "start", "end"} (PROF) ·
    {"event": "debug_output", "instr", "value", "hex"} (DBG) ·
    {"event": <word lower-cased>, "fields"} for any other "MOTE <WORD>" line ·
    {"event": "text"} for anything else. Every event carries "line".

    `line` may be bytes (decoded as UTF-8 with replacement). Never raises: a
    line that does not fit its kind's grammar (non-ASCII digits, a number of
    more than 20 digits, odd hex) is a "text" event.
    """
    if isinstance(line, (bytes, bytearray)):
        line = bytes(line).decode("utf-8", errors="replace")
    line = line.rstrip("\r\n")
    m = _PROF.match(line)
    if m:
        return {"event": "trace", "instr": int(m.group(1)), "start": int(m.group(2)),
                "end": int(m.group(3)), "line": line}
    m = _DBG.match(line)
    if m:
        return {"event": "debug_output", "instr": int(m.group(1)), "value": int(m.group(2)),
                "hex": m.group(3), "line": line}
    m = _OUT.match(line)
    if m:
        ev = {"event": "out", "index": int(m.group(1)), "count": int(m.group(2))}
        parts = m.group(3).split(",")
        if outputs_meta is not None:
            try:
                ev["outputs"] = decode_outputs(parts, outputs_meta)
            except ProtocolError as e:
                ev["outputs_hex"] = parts
                ev["note"] = str(e)
        else:
            ev["outputs_hex"] = parts
        ev["line"] = line
        return ev
    m = _MOTE.match(line)
    if not m:
        return {"event": "text", "line": line}
    word, rest = m.group(1), (m.group(2) or "")
    if word.lower() in _OTHER_KINDS:  # "MOTE OUT x" is not an OUT line: no index, no count
        return {"event": "text", "line": line}
    words = rest.split()
    ev: dict = {"event": word.lower()}
    if word == "BOOT":
        ev["board"] = rest.strip()
    elif word == "MODEL":
        ev.update(_fields(words))
    elif word == "DONE" and words and re.fullmatch(_NUM, words[0], re.ASCII):
        ev["count"] = int(words[0])
    elif word == "ERROR":
        ev["stage"] = words[0] if words else ""
        ev["code"] = _number(words[1]) if len(words) > 1 else None
    elif word == "SELFTEST":
        ev["verdict"] = words[0] if words and words[0] in ("PASS", "FAIL") else None
        ev["kind"] = words[0] if words and "=" not in words[0] else None
        ev["fields"] = _fields(words)
    elif word != "READY":
        ev["fields"] = _fields(words)
    ev["line"] = line
    return ev


def parse_uart(text: str, outputs_meta: list) -> tuple:
    """A whole run's UART text as (outputs per inference, count per inference).
    Raises MoteError naming the line when the firmware reported an error."""
    outs, counts = [], []
    for line in text.splitlines():
        ev = parse_line(line, outputs_meta)
        if ev["event"] == "error":
            raise MoteError(f"firmware reported: {ev['line']}")
        if ev["event"] == "out":
            if "outputs" not in ev:
                raise ProtocolError(ev["note"])
            outs.append(ev["outputs"])
            counts.append(ev["count"])
    return outs, counts


def read_traces(lines) -> list:
    """The traced runs of a --trace firmware's lines (any iterable of str), one
    dict per inference: {"count": the OUT line's untraced count, "events":
    [(instr, start, end)], "overhead", "run", "dropped" (MOTE PROF's fields),
    "outputs": {instr: [(value index, bytes)]} (DBG lines)}. Raises MoteError
    on a firmware error, ProtocolError when no traced run is complete."""
    runs, cur = [], None
    for line in lines:
        ev = parse_line(line)
        kind = ev["event"]
        if kind == "error":
            raise MoteError(f"firmware reported: {ev['line']}")
        if kind == "out":
            cur = {"count": ev["count"], "events": [], "outputs": {}}
        elif cur is None:
            continue
        elif kind == "trace":
            cur["events"].append((ev["instr"], ev["start"], ev["end"]))
        elif kind == "debug_output":
            cur["outputs"].setdefault(ev["instr"], []).append((ev["value"], bytes.fromhex(ev["hex"])))
        elif kind == "prof":
            f = ev["fields"]
            cur.update({k: _int_field(f, k, 0, "MOTE PROF") for k in ("overhead", "run", "dropped")})
            if _int_field(f, "events", -1, "MOTE PROF") != len(cur["events"]):
                raise ProtocolError(f"MOTE PROF says {f.get('events')} events, "
                                    f"{len(cur['events'])} PROF lines arrived")
            runs.append(cur)
            cur = None
    if not runs:
        raise ProtocolError("no traced run (PROF lines and a MOTE PROF line): was the firmware "
                            "built with aot build --trace profile?")
    return runs


def input_line(arrays: list) -> bytes:
    """The line that gives --uart-inputs firmware one inference's inputs."""
    return b"I " + b"".join(np.ascontiguousarray(a).tobytes() for a in arrays).hex().encode() + b"\n"


#: the line that ends a --uart-inputs firmware's run
QUIT_LINE = b"Q\n"
#: the line that sets a --uart-inputs firmware's model state back to its initial values
#: (the firmware answers "MOTE RESET")
RESET_LINE = b"R\n"


def read_selftest(lines, on_line=None) -> dict:
    """The self-test report from a --selftest firmware's lines (any iterable of
    str: a finished run's text split in lines, or a serial port's lines as
    they arrive), read up to the verdict line:

    {"verdict": "PASS"|"FAIL", "n", "max_abs_err", "rows": [{"case", "output",
    "max_abs_err", "tol", "verdict"}], "fail": the FAIL line's fields or None}.

    on_line: called with each line. Raises ProtocolError when the lines end
    without a verdict, MoteError when the firmware reports an error."""
    rows, seen = [], []
    for line in lines:
        seen.append(line)
        if on_line is not None:
            on_line(line)
        ev = parse_line(line)
        if ev["event"] == "error":
            raise MoteError(f"firmware reported: {ev['line']}")
        if ev["event"] != "selftest":
            continue
        f = ev["fields"]
        if ev["kind"] == "CASE":
            kind = "MOTE SELFTEST CASE"
            rows.append({"case": _int_field(f, "case", len(rows), kind),
                         "output": _int_field(f, "output", 0, kind),
                         "max_abs_err": _float_field(f, "max_abs_err", kind),
                         "tol": _float_field(f, "tol", kind), "verdict": str(f.get("result", "?"))})
        elif ev["verdict"] is not None:
            fail = None
            if ev["verdict"] == "FAIL":
                fail = {k: f[k] for k in ("case", "output", "element", "got", "want", "tol", "failed")
                        if k in f}
            kind = f"MOTE SELFTEST {ev['verdict']}"
            return {"verdict": ev["verdict"], "n": _int_field(f, "n", len({r["case"] for r in rows}), kind),
                    "max_abs_err": _float_field(f, "max_abs_err", kind), "rows": rows, "fail": fail}
    raise ProtocolError("no MOTE SELFTEST PASS/FAIL line" + (f"; last lines: {seen[-5:]}" if seen
                                                               else ": no lines at all"))


_MODEL_NAME = re.compile(r"(?:^| )(?:name|model)=([a-z_][a-z0-9_]*)(?: |$)", re.ASCII)


def read_models_selftest(lines, on_line=None) -> dict:
    """The self-test reports of a firmware with several models (aot build A=a.py B=b.py
    --selftest; ports/cortex-m/app/mote_app.c): each "MOTE MODEL name=<name> ..." line announces
    a model, each "MOTE RUN model=<name>" line gives the lines after it to that model, and
    each model's lines are read as read_selftest reads one model's. Returns {name: report}
    in the announced order once every model has its verdict. Raises ProtocolError when the
    lines end first (naming the models without one), MoteError on a firmware error."""
    names, per, reports, current, seen = [], {}, {}, None, []
    for line in lines:
        seen.append(line)
        if on_line is not None:
            on_line(line)
        ev = parse_line(line)
        kind = ev["event"]
        if kind == "error":
            raise MoteError(f"firmware reported: {ev['line']}")
        words = ev["line"].split(" ", 2)
        m = _MODEL_NAME.search(words[2]) if kind in ("model", "run") and len(words) == 3 else None
        if kind == "model" and m:
            names.append(m.group(1))
            per[m.group(1)] = []
        elif kind == "run" and m:
            current = m.group(1)
        elif kind == "selftest" and ev["fields"].get("model") in per:  # the line names its model
            current = ev["fields"]["model"]
        if kind == "selftest" and current in per:
            per[current].append(line)
            if ev["verdict"] is not None:
                reports[current] = read_selftest(per[current])
                if len(reports) == len(names):
                    return {n: reports[n] for n in names}
    missing = [n for n in names if n not in reports]
    raise ProtocolError((f"no MOTE SELFTEST PASS/FAIL line for model(s) {', '.join(missing)}" if names
                         else "no MOTE MODEL name=... line: not a firmware with several models")
                        + (f"; last lines: {seen[-5:]}" if seen else ": no lines at all"))
