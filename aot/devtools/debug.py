"""The numerical debugger: every instruction's output on the target against the
reference computation of the same op, to find the first op whose numbers drift.

Per instruction that writes a tensor, with the same inputs everywhere:

* target: the program on the host library (outputs read through the tracer's
  callback, mote/trace.h) or on a simulated board (a `--trace debug`
  firmware prints them as DBG lines);
* ``program``: the Core ATen program that was lowered (Compiled.program) run
  node by node in PyTorch. fp32: the eager model's own ops. int8: Mote's
  integer reference (the ``mote::`` ops are aot.compiler.int8ref), which the
  device must match bit for bit (``quanta_vs_int8ref`` 0);
* int8 only, ``pt2e``: the PT2E converted model (convert_pt2e) node by node;
  an int8 op's value is the output of the quantize node it ends in
  (``q`` in the debug record), compared in quanta and dequantized.

Row: {"instr", "op", "source", "module", "nodes", "shape", "max_abs_error",
"max_rel_error", "snr_db" (inf when equal: null in JSON), "quanta_vs_int8ref",
"quanta_vs_pt2e", "reference"};
errors are against the reference the row names ("eager" for fp32, "pt2e" for
int8, "int8ref" for int8 values PT2E has no node for). max_rel_error =
max|got - ref| / max|ref|; snr_db = 10 log10(sum ref^2 / sum (got - ref)^2)
(inf when equal). ``first_divergent``: index into ``ops`` of the first row
over tolerance (fp32: max_rel_error > tol; int8: more than tol_quanta quanta
from PT2E, or any quantum from the integer reference), or None.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import torch

from aot.errors import MoteError

#: fp32 rows: relative error above this diverges (the parity bar of aot compare)
DEFAULT_TOL = 1e-4
#: int8 rows: quanta from PT2E above this diverge
DEFAULT_TOL_QUANTA = 1


def node_values(gm: torch.fx.GraphModule, inputs) -> dict:
    """Every node's output of `gm` run on `inputs`, by node name (tensors
    detached; tuples kept)."""
    values: dict = {}

    class _Capture(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op in ("call_function", "placeholder"):
                values[n.name] = out
            return out

    with torch.no_grad():
        _Capture(gm).run(*inputs)
    return values


def _as_array(v) -> Optional[np.ndarray]:
    if isinstance(v, torch.Tensor):
        return v.detach().numpy()
    return None


def _physical(ref: np.ndarray, perm, shape) -> np.ndarray:
    """`ref` (logical) in the device's layout: logical.permute(perm), reshaped to `shape`."""
    return np.ascontiguousarray(np.transpose(ref, perm)).reshape(shape)


def error_row(got: np.ndarray, ref: np.ndarray) -> dict:
    """max_abs_error, max_rel_error and snr_db of `got` against `ref` (float64)."""
    g = np.asarray(got, dtype=np.float64)
    r = np.asarray(ref, dtype=np.float64)
    diff = g - r
    abs_err = float(np.max(np.abs(diff))) if diff.size else 0.0
    scale = float(np.max(np.abs(r))) if r.size else 0.0
    noise = float(np.sum(diff * diff))
    signal = float(np.sum(r * r))
    snr = math.inf if noise == 0 else (10 * math.log10(signal / noise) if signal > 0 else -math.inf)
    return {"max_abs_error": abs_err, "max_rel_error": abs_err / scale if scale > 0 else abs_err,
            "snr_db": snr}


def _qparams(pt2e_gm, qname: str):
    """(scale, zero_point) of PT2E quantize node `qname`."""
    for n in pt2e_gm.graph.nodes:
        if n.name == qname:
            return float(n.args[1]), int(n.args[2])
    return None


def compare_outputs(compiled, record: dict, captured: dict, model_inputs,
                    tol: float = DEFAULT_TOL, tol_quanta: int = DEFAULT_TOL_QUANTA) -> dict:
    """The debugger's report from the target's per-instruction outputs.

    captured: {instr: [array per record output]} (the target's values, physical
    layout); model_inputs: the fp32 inputs given to the model (the program got
    aot.compiler.pipeline.program_inputs of them)."""
    from aot.compiler.pipeline import program_inputs
    prog_in = [torch.from_numpy(np.ascontiguousarray(a)) for a in program_inputs(compiled, model_inputs)]
    ref_prog = node_values(compiled.program.module(), prog_in)
    torch_in = [x if isinstance(x, torch.Tensor) else torch.from_numpy(np.asarray(x)) for x in model_inputs]
    ref_pt2e = node_values(compiled.reference, torch_in) if compiled.int8 else {}
    rows, first = [], None
    for r in record["instructions"]:
        outs = captured.get(r["instr"])
        if not outs or not r["outputs"]:
            continue
        got = outs[0]
        row = {"instr": r["instr"], "op": r["op"], "source": r["source"], "module": r["module"],
               "nodes": r["nodes"], "shape": list(got.shape), "quanta_vs_int8ref": None,
               "quanta_vs_pt2e": None}
        prog = _as_array(ref_prog.get(r["node"]))
        if prog is not None and prog.shape != got.shape and prog.size == got.size:
            prog = prog.reshape(got.shape)
        if compiled.int8 and got.dtype == np.int8:
            row.update(_int8_row(compiled, r, got, prog, ref_pt2e))
        else:
            ref = _eager_value(r, ref_prog) if not compiled.int8 else prog
            if ref is None or ref.size != got.size:
                continue
            row.update(error_row(got, ref.reshape(got.shape)), reference="eager" if not compiled.int8
                       else "program")
        rows.append(row)
        if first is None and _diverges(row, compiled.int8, tol, tol_quanta):
            first = len(rows) - 1
    return {"model": record["model"], "int8": record["int8"], "tol": tol,
            "tol_quanta": tol_quanta if compiled.int8 else None, "ops": rows, "first_divergent": first}


def _eager_value(r: dict, ref_prog: dict) -> Optional[np.ndarray]:
    """fp32: the value of the last graph node the call stands for (a folded
    batch norm's output for a conv)."""
    for name in reversed(r["nodes"] or [r["node"]]):
        v = _as_array(ref_prog.get(name))
        if v is not None:
            return v
    return None


def _int8_row(compiled, r: dict, got: np.ndarray, prog, ref_pt2e: dict) -> dict:
    out: dict = {}
    if prog is not None and prog.dtype == np.int8 and prog.size == got.size:
        out["quanta_vs_int8ref"] = int(np.max(np.abs(got.astype(np.int32) - prog.astype(np.int32))))
    q = r.get("q")
    pt2e = _as_array(ref_pt2e.get(q["node"])) if q else None
    qp = _qparams(compiled.reference, q["node"]) if q else None
    if pt2e is not None and qp is not None and pt2e.size == got.size and pt2e.ndim == len(q["perm"]):
        ref = _physical(pt2e, q["perm"], got.shape).astype(np.int32)
        out["quanta_vs_pt2e"] = int(np.max(np.abs(got.astype(np.int32) - ref)))
        scale, zp = qp
        out.update(error_row((got.astype(np.float64) - zp) * scale, (ref - zp) * scale))
        out["reference"] = "pt2e"
    elif prog is not None and prog.size == got.size:
        out.update(error_row(got, prog.reshape(got.shape)))
        out["reference"] = "int8ref"
    else:
        out.update({"max_abs_error": None, "max_rel_error": None, "snr_db": None, "reference": None})
    return out


def _diverges(row: dict, int8: bool, tol: float, tol_quanta: int) -> bool:
    if int8:
        if row.get("quanta_vs_int8ref"):
            return True
        q = row.get("quanta_vs_pt2e")
        return q is not None and q > tol_quanta
    e = row.get("max_rel_error")
    return e is not None and e > tol


# --------------------------------------------------------------------------- targets


def captured_host(pte: bytes, record: dict, program_in: list) -> dict:
    """{instr: [arrays]}: every instruction's outputs on the host library."""
    from aot.host.runtime import Program
    capture = {r["instr"]: r["outputs"] for r in record["instructions"] if r["outputs"]}
    tr = Program(pte).method().run_traced(program_in, capture=capture)
    return tr.captured


def captured_uart(lines, record: dict) -> dict:
    """{instr: [arrays]} from a --trace debug firmware's DBG lines (first inference)."""
    from aot.target.protocol import read_traces
    run = read_traces(lines)[0]
    by_instr = {r["instr"]: r for r in record["instructions"]}
    out: dict = {}
    for k, items in run["outputs"].items():
        r = by_instr.get(k)
        if r is None:
            raise MoteError(f"the firmware printed outputs of instruction {k}, which the debug record lacks")
        arrays = []
        for value, data in items:
            if value not in r["outputs"]:
                raise MoteError(f"instruction {k}: the firmware printed value {value}, the record "
                                f"lists {r['outputs']}")
            j = r["outputs"].index(value)
            dt = np.dtype(r["output_dtypes"][j])  # "int8", "float32", "bool", ...
            arrays.append(np.frombuffer(data, dtype=dt).reshape(r["output_shapes"][j]).copy())
        out[k] = arrays
    return out


def render_text(rep: dict) -> str:
    """The report as a table; the first divergent row is marked with '>'."""
    lines = [f"debug: {rep['model']}{' int8' if rep['int8'] else ''} on {rep.get('target', '?')} "
             f"({'quanta vs PT2E and vs the integer reference' if rep['int8'] else 'vs eager PyTorch'})"]
    head = ["", "#", "op", "shape", "max abs err", "rel err", "SNR dB"] + \
        (["q vs PT2E", "q vs ref"] if rep["int8"] else []) + ["source", "module"]
    rows = []
    for i, o in enumerate(rep["ops"]):
        fmt = lambda v, f: "-" if v is None else (f"{v:{f}}" if math.isfinite(v) else str(v))  # noqa: E731
        row = [">" if i == rep["first_divergent"] else "", str(o["instr"]), o["op"],
               "x".join(map(str, o["shape"])), fmt(o["max_abs_error"], ".3e"), fmt(o["max_rel_error"], ".2e"),
               fmt(o["snr_db"], ".1f")]
        if rep["int8"]:
            row += ["-" if o["quanta_vs_pt2e"] is None else str(o["quanta_vs_pt2e"]),
                    "-" if o["quanta_vs_int8ref"] is None else str(o["quanta_vs_int8ref"])]
        row += [o["source"] or "-", o["module"].replace("module ", "") or "-"]
        rows.append(row)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    fd = rep["first_divergent"]
    if fd is None:
        lines.append(f"no op over tolerance ({'<= %d quantum from PT2E, 0 from the integer reference' % rep['tol_quanta'] if rep['int8'] else 'relative error <= %g' % rep['tol']})")
    else:
        o = rep["ops"][fd]
        lines.append(f"first divergent op: #{o['instr']} {o['op']} at {o['source'] or 'unknown source'} "
                     f"{o['module']}".rstrip())
    return "\n".join(lines)
