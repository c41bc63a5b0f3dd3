"""The numerical debugger: every instruction's output on the target against the
reference computation of the same op, to find the first op whose numbers drift.

Per instruction that writes a tensor, with the same inputs everywhere:

* target: the program on the host library (outputs read through the tracer's
  callback, mote/trace.h) or on a simulated board (a `--trace debug`
  firmware prints them as DBG lines);
* ``program``: the Core ATen program that was lowered (Compiled.program) run
  node by node in PyTorch. fp32: the eager model's own ops. int8: Mote's
  integer reference (the ``mote::`` ops are aot.compiler.quant.int8ref), which the
  device must match bit for bit (``quanta_vs_int8ref`` 0);
* int8 only, ``pt2e``: the PT2E converted model (convert_pt2e) node by node;
  an int8 op's value is the output of the quantize node it ends in
  (``q`` in the debug record), compared in quanta and dequantized. Twice:
  op by op, PT2E fed the target's own values (each quantize node's output
  replaced by the target's; ``quanta_vs_pt2e``: the op's own error, what
  divergence is judged on), and end to end on the model inputs
  (``quanta_vs_pt2e_end_to_end``, ``snr_db_end_to_end``: what accumulates).

Row (one per instruction that writes a tensor): {"instr", "op", "source",
"module", "nodes", "shape", "max_abs_error", "max_rel_error", "snr_db" (inf
when equal: null in JSON), "quanta_vs_int8ref", "quanta_vs_pt2e",
"quanta_vs_pt2e_end_to_end", "reference"}; reference None: not compared
(no reference value, "note" says so; its error fields are None);
errors are against the reference the row names ("eager" for fp32, "pt2e" for
int8, "int8ref" for int8 values PT2E has no node for). max_rel_error =
max|got - ref| / max|ref|; snr_db = 10 log10(sum ref^2 / sum (got - ref)^2)
(inf when equal). ``first_divergent``: index into ``ops`` of the first row
over tolerance (fp32: max_rel_error > tol; int8: more than tol_quanta quanta
from PT2E, or any quantum from the integer reference), or None. int8 reports
also have ``islands`` (:func:`fp32_islands`): per fp32 island between
dequantize and quantize, the end-to-end quanta vs PT2E going in and coming
out and their ratio, the island's gain.
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


def node_values(gm: torch.fx.GraphModule, inputs, replace: Optional[dict] = None) -> dict:
    """Every node's output of `gm` run on `inputs`, by node name (tensors
    detached; tuples kept). replace: {node name: tensor} used downstream in
    place of that node's own output (which is still what the result holds):
    the graph then runs each op on the values another run produced."""
    values: dict = {}
    replace = replace or {}

    class _Capture(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op in ("call_function", "placeholder"):
                values[n.name] = out
            return replace.get(n.name, out)

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


def compare_outputs(compiled, record: dict, captured: dict, model_inputs,
                    tol: float = DEFAULT_TOL, tol_quanta: int = DEFAULT_TOL_QUANTA) -> dict:
    """The debugger's report from the target's per-instruction outputs.

    captured: {instr: [array per record output]} (the target's values, physical
    layout); model_inputs: the fp32 inputs given to the model (the program got
    aot.compiler.pipeline.program_inputs of them). One row per instruction
    that wrote a tensor; a row with reference None was not compared (no
    reference value: named in "note")."""
    from aot.compiler.pipeline import program_inputs
    prog_in = [torch.from_numpy(np.ascontiguousarray(a)) for a in program_inputs(compiled, model_inputs)]
    ref_prog = node_values(compiled.program.module(), prog_in)
    pt2e = _Pt2e(compiled, record, captured, model_inputs) if compiled.int8 else None
    rows, first = [], None
    for r in record["instructions"]:
        outs = captured.get(r["instr"])
        if not outs or not r["outputs"]:
            continue
        got = outs[0]
        row = {"instr": r["instr"], "op": r["op"], "source": r["source"], "module": r["module"],
               "nodes": r["nodes"], "shape": list(got.shape), "quanta_vs_int8ref": None,
               "quanta_vs_pt2e": None, "quanta_vs_pt2e_end_to_end": None,
               "max_abs_error": None, "max_rel_error": None, "snr_db": None, "reference": None}
        prog = _first_output(ref_prog.get(r["node"]), got)
        if compiled.int8 and got.dtype == np.int8:
            row.update(_int8_row(r, got, prog, pt2e))
        else:
            ref = prog if compiled.int8 else _eager_value(r, ref_prog, got)
            if ref is not None:
                row.update(error_row(got, ref), reference="program" if compiled.int8 else "eager")
        if row["reference"] is None:
            row["note"] = "no reference value for this op (not compared)"
        rows.append(row)
        if first is None and _diverges(row, compiled.int8, tol, tol_quanta):
            first = len(rows) - 1
    rep = {"model": record["model"], "int8": record["int8"], "tol": tol,
           "tol_quanta": tol_quanta if compiled.int8 else None, "ops": rows, "first_divergent": first}
    if compiled.int8:
        rep["islands"] = fp32_islands(record, rows)
    return rep


DEQUANTIZE = "quantized_decomposed::dequantize_per_tensor.out"
QUANTIZE = "quantized_decomposed::quantize_per_tensor.out"


def fp32_islands(record: dict, rows: list) -> list:
    """Every fp32 island of an int8 program (instructions between dequantize and
    quantize: planned norms, fp32 fallbacks) with the end-to-end drift it passes on.

    One entry per quantize instruction that ends an island, walking back through the
    fp32 instructions that feed it to the dequantizes that start it: {"instrs":
    [instruction indices, in order], "ops": [its fp32 ops but dequantize / quantize],
    "module", "source" (of its last fp32 op), "quanta_in": the largest end-to-end
    quanta vs PT2E of the int8 tensors it dequantizes (in their quanta), "quanta_out":
    the same of the int8 tensor it quantizes (in its quanta), "gain": quanta_out /
    quanta_in (None when quanta_in is 0 or either is unknown)}. A gain above 1 is an
    island that amplifies the differences it is given; it is PT2E's own sensitivity
    (the island computes what PT2E computes from the same int8 input: its quantize
    row's ``quanta_vs_pt2e`` is the op's own error)."""
    by_instr = {r["instr"]: r for r in record["instructions"]}
    row_of = {o["instr"]: o for o in rows}
    producer: dict = {}   # value index -> instruction that last wrote it
    islands = []
    for r in record["instructions"]:
        if r["op"] == QUANTIZE and r["inputs"]:
            isl = _island_behind(r, by_instr, producer)
            if isl is not None:
                instrs, starts = isl
                q_in = [row_of.get(p, {}).get("quanta_vs_pt2e_end_to_end") for p in starts]
                q_out = row_of.get(r["instr"], {}).get("quanta_vs_pt2e_end_to_end")
                known = bool(q_in) and None not in q_in
                qi = max(q_in) if known else None
                fp32 = [by_instr[i] for i in instrs if by_instr[i]["op"] not in (DEQUANTIZE, QUANTIZE)]
                last = fp32[-1] if fp32 else r
                islands.append({"instrs": instrs, "ops": [f["op"] for f in fp32], "module": last["module"],
                                "source": last["source"], "quanta_in": qi, "quanta_out": q_out,
                                "gain": (q_out / qi) if qi and q_out is not None else None})
        for v in r["outputs"]:
            producer[v] = r["instr"]
    return islands


def _island_behind(q: dict, by_instr: dict, producer: dict) -> Optional[tuple]:
    """([instruction indices of the island that quantize `q` ends], [instructions that
    wrote the int8 tensors its dequantizes read]), or None when `q` reads no
    dequantized value (the program's input quantize)."""
    seen, starts, stack, deq = set(), [], [q["instr"]], False
    while stack:
        k = stack.pop()
        if k in seen:
            continue
        seen.add(k)
        r = by_instr[k]
        if r["op"] == DEQUANTIZE:
            deq = True
            starts += [producer[v] for v in r["inputs"] if v in producer]
            continue
        stack += [producer[v] for v in r["inputs"] if v in producer]
    return (sorted(seen), sorted(set(starts))) if deq else None


def _first_output(v, got: np.ndarray) -> Optional[np.ndarray]:
    """The reference value of an op's first output (`v` or v[0] for an op
    with several, e.g. max_pool2d_with_indices) in `got`'s shape, or None."""
    if isinstance(v, (tuple, list)):
        v = v[0] if v else None
    a = _as_array(v)
    if a is None or a.size != got.size:
        return None
    return a.reshape(got.shape)


def _eager_value(r: dict, ref_prog: dict, got: np.ndarray) -> Optional[np.ndarray]:
    """fp32: the value of the last graph node the call stands for (a folded
    batch norm's output for a conv), else of the call's own node."""
    for name in list(reversed(r["nodes"] or [])) + [r["node"]]:
        v = _first_output(ref_prog.get(name), got)
        if v is not None:
            return v
    return None


def _logical(got: np.ndarray, perm, shape) -> np.ndarray:
    """The device's physical int8 value (logical.permute(perm), reshaped) back
    in the logical `shape`."""
    phys = got.reshape([shape[p] for p in perm])
    return np.ascontiguousarray(np.transpose(phys, np.argsort(perm)))


class _Pt2e:
    """The PT2E converted model run twice: end to end on the model inputs, and
    op by op on the target's own values (each quantize node's output replaced
    by what the target computed for it), so an op's own error is told apart
    from the error it inherits."""

    def __init__(self, compiled, record: dict, captured: dict, model_inputs):
        gm = compiled.reference
        x = [t if isinstance(t, torch.Tensor) else torch.from_numpy(np.asarray(t)) for t in model_inputs]
        self.end_to_end = node_values(gm, x)
        self.qparams = {n.name: (float(n.args[1]), int(n.args[2])) for n in gm.graph.nodes
                        if n.op == "call_function" and len(n.args) > 2 and "quantize_per_tensor" in str(n.target)
                        and "dequantize" not in str(n.target)}
        replace = {}
        for r in record["instructions"]:
            q, outs = r.get("q"), captured.get(r["instr"])
            ref = _as_array(self.end_to_end.get(q["node"])) if q and outs else None
            if ref is None or q["node"] in replace or outs[0].dtype != np.int8 or ref.size != outs[0].size \
                    or ref.ndim != len(q["perm"]):
                continue
            replace[q["node"]] = torch.from_numpy(_logical(outs[0], q["perm"], ref.shape))
        self.local = node_values(gm, x, replace)

    def value(self, which: dict, q: dict, got: np.ndarray) -> Optional[np.ndarray]:
        v = _as_array(which.get(q["node"]))
        if v is None or v.size != got.size or v.ndim != len(q["perm"]):
            return None
        return _physical(v, q["perm"], got.shape).astype(np.int32)


def _int8_row(r: dict, got: np.ndarray, prog, pt2e: "_Pt2e") -> dict:
    out: dict = {}
    g = got.astype(np.int32)
    if prog is not None and prog.dtype == np.int8:
        out["quanta_vs_int8ref"] = int(np.max(np.abs(g - prog.astype(np.int32))))
    q = r.get("q")
    qp = pt2e.qparams.get(q["node"]) if q else None
    local = pt2e.value(pt2e.local, q, got) if q else None
    if local is not None and qp is not None:
        whole = pt2e.value(pt2e.end_to_end, q, got)
        scale, zp = qp
        out["quanta_vs_pt2e"] = int(np.max(np.abs(g - local)))
        out.update(error_row((g - zp) * scale, (local - zp) * scale), reference="pt2e")
        if whole is not None:
            out["quanta_vs_pt2e_end_to_end"] = int(np.max(np.abs(g - whole)))
            out["snr_db_end_to_end"] = error_row((g - zp) * scale, (whole - zp) * scale)["snr_db"]
    elif prog is not None:
        out.update(error_row(got, prog), reference="int8ref")
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
    from aot.deploy.protocol import read_traces
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


def render_islands(islands: list) -> list:
    """The fp32 islands' lines (fp32_islands): quanta vs PT2E end to end in and out, the gain;
    the island with the largest gain is marked with '>'."""
    if not islands:
        return []
    gains = [i["gain"] for i in islands if i["gain"] is not None]
    top = max(gains) if gains else None
    head = ["", "instrs", "fp32 ops", "q in", "q out", "gain", "source", "module"]
    rows = []
    for i in islands:
        ops = ", ".join(o.split("::")[-1].split(".")[0] for o in i["ops"]) or "-"
        mark = ">" if top is not None and i["gain"] == top and top > 1 else ""
        rows.append([mark, f"#{i['instrs'][0]}-#{i['instrs'][-1]}", ops,
                     "-" if i["quanta_in"] is None else str(i["quanta_in"]),
                     "-" if i["quanta_out"] is None else str(i["quanta_out"]),
                     "-" if i["gain"] is None else f"{i['gain']:.1f}",
                     i["source"] or "-", i["module"].replace("module ", "") or "-"])
    widths = [max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(head)]
    out = ["", "fp32 islands (dequantize -> fp32 ops -> quantize): the largest end-to-end quanta vs PT2E "
           "of their int8 inputs (q in) and output (q out), gain = out / in"]
    out.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    if top is not None and top > 1:
        i = next(i for i in islands if i["gain"] == top)
        out.append(f"largest amplification: x{top:.1f} ({i['quanta_in']} -> {i['quanta_out']} quanta) at "
                   f"#{i['instrs'][-1]} {i['source'] or ''} {i['module']}".rstrip())
    return out


def render_text(rep: dict) -> str:
    """The report as a table; the first divergent row is marked with '>'."""
    lines = [f"debug: {rep['model']}{' int8' if rep['int8'] else ''} on {rep.get('target', '?')}: "
             + ("errors vs PT2E fed this target's inputs of each op (dequantized); quanta vs that "
                "(q op), vs PT2E end to end (q e2e) and vs Mote's integer reference (q ref)"
                if rep["int8"] else "errors vs the eager model's op on the same inputs")]
    head = ["", "#", "op", "shape", "max abs err", "rel err", "SNR dB"] + \
        (["q op", "q e2e", "q ref"] if rep["int8"] else []) + ["source", "module"]
    rows = []
    for i, o in enumerate(rep["ops"]):
        fmt = lambda v, f: "-" if v is None else (f"{v:{f}}" if math.isfinite(v) else str(v))  # noqa: E731
        row = [">" if i == rep["first_divergent"] else "", str(o["instr"]), o["op"],
               "x".join(map(str, o["shape"])), fmt(o["max_abs_error"], ".3e"), fmt(o["max_rel_error"], ".2e"),
               fmt(o["snr_db"], ".1f")]
        if rep["int8"]:
            row += ["-" if o[k] is None else str(o[k])
                    for k in ("quanta_vs_pt2e", "quanta_vs_pt2e_end_to_end", "quanta_vs_int8ref")]
        row += [o["source"] or "-", o["module"].replace("module ", "") or "-"]
        rows.append(row)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines += render_islands(rep.get("islands") or [])
    fd = rep["first_divergent"]
    if fd is None:
        bar = (f"<= {rep['tol_quanta']} quantum from PT2E op by op, 0 from the integer reference"
               if rep["int8"] else f"relative error <= {rep['tol']:g}")
        lines.append(f"no op over tolerance ({bar})")
    skipped = sum(1 for o in rep["ops"] if o["reference"] is None)
    if skipped:
        lines.append(f"{skipped} op(s) not compared ('-'): no reference value for them")
    if fd is not None:
        o = rep["ops"][fd]
        lines.append(f"first divergent op: #{o['instr']} {o['op']} at {o['source'] or 'unknown source'} "
                     f"{o['module']}".rstrip())
    return "\n".join(lines)
