"""``aot inspect model.pte [--json] [--png FILE]``: what a .pte contains
(``--png``: a picture of the arena plan, :mod:`aot.tools.memplot`).

:func:`inspect_pte` returns a JSON-able dict: operators (``name.overload``
with call count and tensor dtypes), values, inputs/outputs (shape, dtype,
bytes), instructions, the memory plan (every planned tensor: mem_id, offset,
bytes, first/last instruction that uses it), arena bytes against the live
bytes lower bound, constant bytes and the file size. :func:`render_text`
turns it into a readable report. Works on Mote's and ExecuTorch's files.

Lower bound (``arena_lower_bound_bytes``): a tensor is live from the first to
the last instruction that uses it, directly or through an unplanned view of it
(``executorch_prim::et_view``); inputs from instruction 0, outputs to the
last; at each instruction the live tensors' byte ranges are unioned per
memory id (aliases that share bytes count once) and summed; the bound is the
peak over instructions. No plan can use fewer bytes than the peak of the sum of
live tensor bytes; the ratio arena/lower bound shows the planner's waste. If an
``ops.json`` written by :mod:`aot.compiler.manifest` sits next to the .pte, its
planner-reported figures are shown too.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Iterable, Optional

from aot.pte import schema as fb
from aot.compiler.liveness import (VIEW_OPS, lifetimes, live_bytes_lower_bound, plan_conflicts,
                                   with_view_aliases)
from aot.pte.reader import PlanInfo, PteFile, PteFormatError, read_pte
from aot.tools import jsonout


def _plan_uses(p: PlanInfo) -> list:
    uses = []
    for ins in p.instructions:
        vs = []
        for a in ins.args:
            v = p.values[a] if 0 <= a < len(p.values) else None
            if isinstance(v, (fb.TensorList, fb.OptionalTensorList)):
                vs.extend(x for x in (v.items or []) if x >= 0)
            else:
                vs.append(a)
        uses.append([x for x in vs if x in p.tensors])
    return uses


def _value_desc(p: PlanInfo, i: int, v) -> dict:
    d: dict = {"index": i, "type": type(v).__name__ if v is not None else "None"}
    if isinstance(v, fb.Tensor):
        t = p.tensors[i]
        d.update(shape=t.sizes, dtype=t.dtype_name, bytes=t.nbytes, kind=t.kind)
        if t.kind == "planned":
            d.update(mem_id=t.mem_id, offset=t.mem_offset)
        if t.kind == "constant":
            d["buffer_idx"] = t.buffer_idx
        if t.dim_order and t.dim_order != list(range(len(t.sizes))):
            d["dim_order"] = t.dim_order
    elif isinstance(v, fb.Int):
        d["value"] = v.int_val
    elif isinstance(v, fb.Bool):
        d["value"] = v.bool_val
    elif isinstance(v, fb.Double):
        d["value"] = v.double_val
    elif isinstance(v, fb.String):
        d["value"] = v.string_val
    elif isinstance(v, fb.IntList):
        try:
            d["value"] = p.int_list(i)
        except PteFormatError:
            d["items"] = list(v.items or [])
    elif isinstance(v, (fb.DoubleList, fb.BoolList)):
        d["value"] = list(v.items or [])
    elif isinstance(v, (fb.TensorList, fb.OptionalTensorList)):
        d["items"] = list(v.items or [])
    return d


def _io(p: PlanInfo, idxs: list) -> list:
    out = []
    for i in idxs:
        t = p.tensors.get(i)
        if t is None:
            out.append({"index": i, "type": type(p.values[i]).__name__ if 0 <= i < len(p.values) else "?"})
        else:
            out.append({"index": i, "shape": t.sizes, "dtype": t.dtype_name, "bytes": t.nbytes})
    return out


def plan_liveness(p: PlanInfo) -> tuple:
    """(uses, live_uses, live_outputs, life) of one parsed method, by the rules
    of :mod:`aot.compiler.liveness`: ``uses`` per instruction (tensor value
    indices, lists expanded), ``live_uses``/``live_outputs`` with each
    unplanned view's storage added, ``life`` value index -> (first, last)
    instruction index (inclusive)."""
    uses = _plan_uses(p)
    views = [(ins.index, ins.args[0], ins.args[-1]) for ins in p.instructions
             if ins.op in VIEW_OPS and len(ins.args) >= 2 and p.tensors.get(ins.args[-1]) is not None
             and p.tensors[ins.args[-1]].kind == "unplanned"]
    live_uses, live_outs = with_view_aliases(uses, views, p.outputs)
    return uses, live_uses, live_outs, lifetimes(live_uses, p.inputs, live_outs)


def inspect_plan(p: PlanInfo) -> dict:
    """The report of one method (see :func:`inspect_pte`)."""
    uses, live_uses, live_outs, life = plan_liveness(p)
    ops: dict = {}
    for ins, us in zip(p.instructions, uses):
        if ins.kind != "kernel":
            continue
        e = ops.setdefault(ins.op, {"name": ins.op, "count": 0, "dtypes": set()})
        e["count"] += 1
        e["dtypes"].update(p.tensors[v].dtype_name for v in us)
    op_list = [dict(e, dtypes=sorted(e["dtypes"])) for e in ops.values()]
    planned = {i: (t.mem_id, t.mem_offset, t.nbytes) for i, t in p.tensors.items() if t.kind == "planned"}
    plan_rows = []
    for i, t in sorted(p.tensors.items(), key=lambda kv: (kv[1].mem_id or 0, kv[1].mem_offset or 0, kv[0])):
        if t.kind != "planned":
            continue
        f, l = life.get(i, (None, None))
        plan_rows.append({"value": i, "mem_id": t.mem_id, "offset": t.mem_offset, "bytes": t.nbytes,
                          "first": f, "last": l, "shape": t.sizes, "dtype": t.dtype_name})
    constants = [t for t in p.tensors.values() if t.kind == "constant"]
    return {
        "name": p.name,
        "ops": op_list,
        "num_values": len(p.values),
        "values": [_value_desc(p, i, v) for i, v in enumerate(p.values)],
        "inputs": _io(p, p.inputs),
        "outputs": _io(p, p.outputs),
        "instructions": [{"index": ins.index, "kind": ins.kind, "op": ins.op, "args": ins.args,
                          "source": ins.source} for ins in p.instructions],
        "memory_plan": plan_rows,
        "arena_bytes": p.non_const_buffer_sizes[1:],
        "arena_total_bytes": sum(p.non_const_buffer_sizes[1:]),
        "arena_lower_bound_bytes": live_bytes_lower_bound(planned, live_uses, p.inputs, live_outs),
        "plan_conflicts": [list(c) for c in plan_conflicts(planned, live_uses, p.inputs, live_outs)],
        "num_constants": len(constants),
        "constant_tensor_bytes": sum(t.nbytes for t in constants),  # a buffer shared by n tensors: n times
        # what the program stores: each constant buffer once (several values may view one)
        "constant_buffers": len({t.buffer_idx for t in constants}),
        "constant_stored_bytes": sum({t.buffer_idx: t.nbytes for t in constants}.values()),
        "unplanned_tensors": sorted(i for i, t in p.tensors.items() if t.kind == "unplanned"),
        # state kept across calls (planned with an initial value), and weights kept in a .ptd
        "mutable_buffers": [{"value": i, "name": t.fqn, "mem_id": t.mem_id, "offset": t.mem_offset,
                             "bytes": t.nbytes} for i, t in sorted(p.tensors.items()) if t.initial is not None],
        "external_tensors": [{"value": i, "key": t.fqn, "bytes": t.nbytes, "shape": list(t.sizes),
                              "dtype": t.dtype_name} for i, t in sorted(p.tensors.items()) if t.kind == "external"],
    }


def inspect_file(pte: PteFile, path: Optional[Path] = None) -> dict:
    """Report of a parsed .pte (see :func:`inspect_pte`)."""
    methods = [inspect_plan(p) for p in pte.plans]
    h = pte.header
    info = {
        "path": str(path) if path else None,
        "pte_bytes": pte.size,
        "header": None if h is None else {"program_size": h.program_size,
                                          "segment_base_offset": h.segment_base_offset,
                                          "segment_data_size": h.segment_data_size,
                                          "format_version": h.format_version},
        "segments": [len(s) for s in pte.segments],
        "constants_bytes": pte.constants_bytes,
        "methods": methods,
    }
    if methods:
        first = next((m for m in methods if m["name"] == "forward"), methods[0])
        for k in ("ops", "inputs", "outputs", "memory_plan", "arena_bytes", "arena_total_bytes",
                  "arena_lower_bound_bytes", "num_constants", "constant_tensor_bytes",
                  "constant_buffers", "constant_stored_bytes"):
            info[k] = first[k]
    if path is not None:
        from aot.compiler.manifest import manifest_path
        mf = manifest_path(Path(path))
        if mf.is_file():
            try:
                manifest = json.loads(mf.read_text())
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                # Only the manifest written for this very program counts.
                if manifest.get("pte_sha256") == digest:
                    info["manifest_memory"] = {k: v for k, v in manifest.get("memory", {}).items()
                                               if v is not None}
                    variants = {o["name"]: o["variants"] for o in manifest.get("ops", [])
                                if o.get("variants")}
                    if variants:   # the optimized kernels' variant per call
                        info["kernel_variants"] = variants
                    if manifest.get("delegation"):   # --delegate: what the backend took, what fell back
                        info["delegation"] = manifest["delegation"]
            except (OSError, ValueError, AttributeError):
                pass
    return info


def inspect_pte(path) -> dict:
    """Inspect the .pte at ``path``. Keys: pte_bytes, header, segments (bytes
    each), constants_bytes, methods (per method: ops, values, inputs,
    outputs, instructions, memory_plan, arena_bytes, arena_lower_bound_bytes,
    ...), and the "forward" method's keys repeated at top level.

    Raises PteFormatError (malformed file) or OSError."""
    path = Path(path)
    return inspect_file(read_pte(path), path)


def _kb(n) -> str:
    return "?" if n is None else f"{n} B" if n < 10240 else f"{n / 1024:.1f} KiB"


def render_text(info: dict) -> str:
    """Human-readable report of :func:`inspect_pte`'s dict."""
    L = []
    L.append(f"{info.get('path') or '<pte>'}: {info['pte_bytes']} bytes, constants {info['constants_bytes']} bytes"
             f", segments {info['segments']}")
    if info.get("header"):
        h = info["header"]
        L.append(f"  eh00: program_size={h['program_size']} segment_base_offset={h['segment_base_offset']}"
                 f" segment_data_size={h['segment_data_size']}"
                 f" format_version={h.get('format_version', 0) or 'unstamped'}")
    for m in info["methods"]:
        L.append(f"method {m['name']}: {m['num_values']} values, {len(m['instructions'])} instructions")
        for key in ("inputs", "outputs"):
            for io in m[key]:
                L.append(f"  {key[:-1]:6} v{io['index']}: {io.get('dtype', io.get('type'))}"
                         f"{io.get('shape', '')} {io.get('bytes', '')} B")
        L.append("  ops:")
        for o in m["ops"]:
            L.append(f"    {o['count']:4d} x {o['name']:45} {','.join(o['dtypes'])}")
        L.append("  instructions:")
        for ins in m["instructions"]:
            src = f"   # {ins['source']}" if ins.get("source") else ""
            L.append(f"    {ins['index']:4d} {ins['op'] or ins['kind']} {ins['args']}{src}")
        L.append("  memory plan (value mem_id offset bytes first..last shape dtype):")
        for r in m["memory_plan"]:
            L.append(f"    v{r['value']:<4d} mem{r['mem_id']} @{r['offset']:<8d} {r['bytes']:8d} B "
                     f"[{r['first']}..{r['last']}] {r['shape']} {r['dtype']}")
        lb = m["arena_lower_bound_bytes"]
        tot = m["arena_total_bytes"]
        ratio = f" ({tot / lb:.2f}x)" if lb else ""
        L.append(f"  arenas {m['arena_bytes']} = {_kb(tot)}; live-bytes lower bound {_kb(lb)}{ratio}")
        shared = (f" in {m['constant_buffers']} stored buffers"
                  if m["constant_buffers"] != m["num_constants"] else "")
        L.append(f"  constants: {m['num_constants']} tensors{shared}, {m['constant_stored_bytes']} bytes stored")
        if m["mutable_buffers"]:
            L.append(f"  mutable buffers (state kept across calls): " + ", ".join(
                f"{b['name'] or 'v%d' % b['value']} {b['bytes']} B @mem{b['mem_id']}+{b['offset']}"
                for b in m["mutable_buffers"]))
        if m["external_tensors"]:
            ext = m["external_tensors"]
            L.append(f"  external tensors (in a .ptd): {len(ext)}, {sum(e['bytes'] for e in ext)} bytes")
        if m["plan_conflicts"]:
            L.append(f"  WARNING: live tensors overlap in memory: {m['plan_conflicts']}")
        if m["unplanned_tensors"]:
            L.append(f"  unplanned (alias) tensors: {m['unplanned_tensors']}")
    d = info.get("delegation")
    if d:
        from aot.compiler.partition import report_lines
        L.extend(report_lines(d))
    for op, vs in (info.get("kernel_variants") or {}).items():
        L.append(f"kernel variants of {op} (ops.json): " +
                 ", ".join(f"{v} x{n}" for v, n in sorted(vs.items())))
    mm = info.get("manifest_memory")
    if mm:
        L.append("ops.json memory: " + ", ".join(f"{k}={v}" for k, v in mm.items()))
    return "\n".join(L) + "\n"


def add_inspect_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aot inspect``: pte path, --json, --png."""
    parser.add_argument("pte", help="path of the .pte file")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--png", metavar="FILE",
                        help="also draw the arena plan (tensor lifetimes x byte ranges, kernel scratch "
                             "when a build folder's mote_model.h records it) to this PNG")


def run_inspect(args: argparse.Namespace, draw=None) -> int:
    """Run ``aot inspect``: prints the report (with ``--png``, ``draw(path,
    png)`` draws the arena plan first: aot.tools.memplot.draw_arena_plan,
    passed in by aot.cli because memplot reads this module); returns 0, or 1 if the file is missing
    or malformed (message on stderr). A PNG that cannot be written raises
    MoteError (one line from the CLI)."""
    path = Path(args.pte)
    if path.is_dir():  # a build folder: its program
        path = path / "model.pte"
    try:
        info = inspect_pte(path)
    except PteFormatError as e:
        print(f"aot inspect: error: {path}: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"aot inspect: error: {path}: {e.strerror or e}", file=sys.stderr)
        return 1
    png = None
    if getattr(args, "png", None) and draw is not None:
        png = draw(path, args.png)
        info["arena_png"] = png
    if args.json:
        print(jsonout.dumps(info, indent=2))
    else:
        sys.stdout.write(render_text(info))
        if png is not None:
            print(f"arena plan: {png['path']} ({png['tensors']} tensors, {png['scratch_blocks']} scratch blocks"
                  + ("" if png["scratch_source"] else "; kernel scratch not recorded in the .pte") + ")")
    return 0


def main(argv=None) -> int:
    """``python -m aot.tools.inspect model.pte [--json]``: the old form of ``aot inspect`` (kept one release)."""
    p = argparse.ArgumentParser(prog="aot inspect", description=__doc__.splitlines()[0])
    add_inspect_arguments(p)
    args = p.parse_args(argv)
    if args.png:
        p.error("--png: use `aot inspect` (aot.cli passes the drawing in)")
    return run_inspect(args)


if __name__ == "__main__":
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.tools.inspect", "aot inspect")
    sys.exit(main())
