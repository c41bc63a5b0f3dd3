"""Pictures of a program's static memory plan: ``aot inspect model.pte --png FILE``.

:func:`draw_arena_plan` draws one method of a .pte: every planned tensor is a
rectangle whose x-extent is its lifetime (first to last instruction index that
uses it, both inclusive: a rectangle spans ``first - 0.5 .. last + 0.5``; an
in-place handoff's input keeps the left half of the handing-over instruction's
column, its output the right half) and whose y-extent is its byte range in its
arena (``offset .. offset + nbytes``, bytes). Kernel scratch blocks planned in
arena 1 are hatched grey at their instruction. A block under 0.6% of its
panel's height is drawn that tall, to stay visible (the summary keeps true
bytes). Each memory id (arena) is its own panel, with its size (solid line) and
the live-bytes lower bound (dashed; see below) as horizontal lines; a program
whose ``ops.json`` sits beside it also shows the planner's bound (dotted:
:func:`aot.compiler.plan.lower_bound`, tensors as separate buffers plus
scratch, which in-place reuse can beat). Instructions are tick-labelled with
their operator up to 64 instructions.

Nothing here computes lifetimes or bounds: the plan rows, lifetimes and the
lower bound are :mod:`aot.tools.inspect`'s (rules in
:mod:`aot.compiler.liveness`). Per arena the dashed line is
:func:`aot.compiler.liveness.live_bytes_lower_bound` of that arena's tensors,
with the scratch blocks counted as tensors live at their one instruction when
they are known; with no scratch it is exactly ``aot inspect``'s figure.

Where the scratch plan comes from: the .pte does not record it (it is the
planner's ``plan_info["scratch_offsets"]``, :func:`aot.compiler.scratch.scratch_slots`).
``aot build`` / ``aot generate`` write it to ``mote_model.h``
(``MOTE_MODEL_SCRATCH_SLOTS``) beside ``model.pte``: a header whose
``MOTE_MODEL_CRC32`` is the program's is read. In Python pass
``scratch_slots`` or use :func:`draw_compiled`. Without it, the picture says
that scratch is not shown.

Two rectangles overlap only where the plan lets two tensors share bytes: an
exact alias (same offset and size) or an in-place handoff (a kernel writing its
output over its input, from the same first byte, at the one instruction where
the input dies and the output is born). Any other overlap is a plan conflict
(:func:`aot.compiler.liveness.plan_conflicts`) and is outlined in red.

The PNG is rendered with matplotlib's Agg canvas (no display, no pyplot state)
and written atomically (temporary file + rename): a failure leaves no partial
file.
"""
from __future__ import annotations

import io
import re
import zlib
from pathlib import Path
from typing import Optional, Union

from aot.errors import MoteError

#: the firmware header beside model.pte that carries the scratch plan
HEADER_NAME = "mote_model.h"
#: at most this many instructions get their operator name as a tick label
_NAMED_TICKS_LIMIT = 64

_TENSOR_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948",
                  "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#a0cbe8")
_SCRATCH_FACE = "#d9d9d9"
_SCRATCH_EDGE = "#6b6b6b"
_CONFLICT = "#d62728"
#: a block smaller than this share of its panel's height is drawn this tall (to stay visible)
_MIN_HEIGHT = 0.006


def header_scratch_slots(header_text: str, pte_bytes: bytes) -> Optional[list]:
    """The kernel scratch slots [(instruction, offset, size)] (offset and size in
    bytes, arena 1) of a ``mote_model.h`` text, or None when the header has no
    scratch table or its ``MOTE_MODEL_CRC32`` is not ``pte_bytes``' CRC-32."""
    crc = re.search(r"^#define MOTE_MODEL_CRC32 0x([0-9a-fA-F]+)u", header_text, re.M)
    table = re.search(r"^#define MOTE_MODEL_SCRATCH_SLOTS \{(.*)\}\s*$", header_text, re.M)
    count = re.search(r"^#define MOTE_MODEL_NUM_SCRATCH_SLOTS (\d+)", header_text, re.M)
    if crc is None or table is None or count is None:
        return None
    if int(crc.group(1), 16) != zlib.crc32(pte_bytes):
        return None
    slots = [tuple(int(x) for x in m)
             for m in re.findall(r"\{\s*(\d+)u,\s*(\d+)u,\s*(\d+)u\s*\}", table.group(1))]
    return slots[:int(count.group(1))]


def _read_source(pte) -> tuple:
    """(bytes, path or None) of a .pte given as bytes, a path, or a build folder."""
    if isinstance(pte, (bytes, bytearray, memoryview)):
        return bytes(pte), None
    path = Path(pte)
    if path.is_dir():        # a build / generate folder: its program
        path = path / "model.pte"
    try:
        return path.read_bytes(), path
    except OSError as e:
        raise MoteError(f"{path}: {e.strerror or e}") from None


def _model_name(path: Optional[Path]) -> str:
    if path is None:
        return "program"
    return path.resolve().parent.name if path.name == "model.pte" else path.stem


def _short_op(op: Optional[str], kind: str) -> str:
    if not op:
        return kind
    return op.split("::")[-1].rsplit(".", 1)[0]


def arena_plan(pte: Union[bytes, str, Path], method: Optional[str] = None,
               scratch_slots: Optional[list] = None, name: Optional[str] = None,
               planner_lower_bound: Optional[int] = None) -> dict:
    """What :func:`draw_arena_plan` draws, as a JSON-able dict (bytes and
    instruction indices throughout).

    ``pte``: .pte bytes, a .pte path or a build folder (its ``model.pte``);
    ``method``: the method's name (default "forward", else the first);
    ``scratch_slots``: [(instruction, offset, size)] of kernel scratch in arena 1
    (default: from a matching ``mote_model.h`` beside a path, else none);
    ``name``: the model's name (default: a matching mote_model.h's
    MOTE_MODEL_NAME, else the file's stem or a build folder's name);
    ``planner_lower_bound``: the planner's bound in bytes (default: from a
    matching ``ops.json`` beside a path).

    Keys: model, method, instructions (count), ops (short name per
    instruction), rects (per planned tensor with a lifetime: value, mem_id,
    first, last, offset, bytes, kind "tensor"; then per scratch block: value
    None, kind "scratch"), tensors (planned tensors drawn), tensors_not_used
    (planned but used by no instruction: not drawn), scratch_blocks,
    scratch_source ("mote_model.h", "given" or None: not known), arenas (per
    memory id: mem_id, bytes, lower_bound_bytes, tensors, scratch_blocks),
    arena_total_bytes, lower_bound_bytes (``aot inspect``'s, tensors only),
    planner_lower_bound_bytes (ops.json's, or None), shared (pairs of values
    whose bytes and lifetimes overlap legitimately: aliases and in-place
    handoffs), plan_conflicts (pairs that overlap wrongly).

    Raises MoteError (unreadable file; PteFormatError for one that is not a .pte)."""
    from aot.compiler.liveness import live_bytes_lower_bound
    from aot.pte.reader import parse_pte
    from aot.tools.inspect import inspect_file, plan_liveness

    data, path = _read_source(pte)
    pf = parse_pte(data)
    if not pf.plans:
        raise MoteError("the program has no methods: no memory plan to draw")
    names = [p.name for p in pf.plans]
    if method is None:
        method = "forward" if "forward" in names else names[0]
    if method not in names:
        raise MoteError(f"no method {method!r} in the program (methods: {', '.join(names)})")
    plan = pf.plan(method)
    info = inspect_file(pf, path)
    report = next(m for m in info["methods"] if m["name"] == method)
    _, live_uses, live_outs, _ = plan_liveness(plan)

    source = None
    if scratch_slots is not None:
        source = "given"
    elif path is not None and (path.parent / HEADER_NAME).is_file() and len(pf.plans) == 1:
        try:
            text = (path.parent / HEADER_NAME).read_text(errors="replace")
        except OSError:
            text = ""
        scratch_slots = header_scratch_slots(text, data)
        if scratch_slots is not None:
            source = HEADER_NAME
            found = re.search(r'^#define MOTE_MODEL_NAME "(.*)"\s*$', text, re.M)
            name = name or (found.group(1) if found else None)
    scratch_slots = [tuple(int(x) for x in s) for s in (scratch_slots or [])]

    rects, not_used = [], 0
    for r in report["memory_plan"]:
        if r["first"] is None:
            not_used += 1
            continue
        rects.append({"value": r["value"], "kind": "tensor", "mem_id": r["mem_id"], "first": r["first"],
                      "last": r["last"], "offset": r["offset"], "bytes": r["bytes"]})
    n_tensors = len(rects)
    for step, off, size in scratch_slots:
        rects.append({"value": None, "kind": "scratch", "mem_id": 1, "first": step, "last": step,
                      "offset": off, "bytes": size})

    sizes = list(plan.non_const_buffer_sizes)
    mem_ids = sorted({m for m in range(1, len(sizes)) if sizes[m] > 0} | {r["mem_id"] for r in rects})
    arenas = []
    for m in mem_ids:
        planned = {r["value"]: (m, r["offset"], r["bytes"]) for r in rects
                   if r["mem_id"] == m and r["kind"] == "tensor"}
        uses = [list(vs) for vs in live_uses] or [[]]
        for k, r in enumerate(rects):
            if r["mem_id"] == m and r["kind"] == "scratch" and 0 <= r["first"] < len(uses):
                planned[("scratch", k)] = (m, r["offset"], r["bytes"])
                uses[r["first"]].append(("scratch", k))
        arenas.append({"mem_id": m, "bytes": sizes[m] if m < len(sizes) else 0,
                       "lower_bound_bytes": live_bytes_lower_bound(planned, uses, plan.inputs, live_outs),
                       "tensors": sum(1 for r in rects if r["mem_id"] == m and r["kind"] == "tensor"),
                       "scratch_blocks": sum(1 for r in rects if r["mem_id"] == m and r["kind"] == "scratch")})

    conflicts = {tuple(c) for c in report["plan_conflicts"]}
    shared = []
    tens = [r for r in rects if r["kind"] == "tensor" and r["bytes"] > 0]
    for i, a in enumerate(tens):
        for b in tens[i + 1:]:
            if (a["mem_id"] == b["mem_id"] and a["offset"] < b["offset"] + b["bytes"]
                    and b["offset"] < a["offset"] + a["bytes"]
                    and a["first"] <= b["last"] and b["first"] <= a["last"]):
                pair = tuple(sorted((a["value"], b["value"])))
                if pair not in conflicts:
                    shared.append(list(pair))
    mm = info.get("manifest_memory") or {}
    return {
        "model": name or _model_name(path),
        "method": method,
        "instructions": len(plan.instructions),
        "ops": [_short_op(ins.op, ins.kind) for ins in plan.instructions],
        "rects": rects,
        "tensors": n_tensors,
        "tensors_not_used": not_used,
        "scratch_blocks": len(scratch_slots),
        "scratch_source": source,
        "arenas": arenas,
        "arena_total_bytes": report["arena_total_bytes"],
        "lower_bound_bytes": report["arena_lower_bound_bytes"],
        "planner_lower_bound_bytes": (planner_lower_bound if planner_lower_bound is not None else
                                      mm.get("arena_lower_bound_bytes") if len(pf.plans) == 1 else None),
        "shared": sorted(shared),
        "plan_conflicts": sorted(list(c) for c in conflicts),
    }


def _fmt_bytes(n: int) -> str:
    return f"{n:,} B"


def _render(plan: dict, title: Optional[str]) -> tuple:
    """PNG bytes and (width, height) in pixels of ``plan`` (see :func:`arena_plan`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    n = max(plan["instructions"], 1)
    arenas = plan["arenas"] or [{"mem_id": 1, "bytes": 0, "lower_bound_bytes": 0, "tensors": 0,
                                 "scratch_blocks": 0}]
    named = plan["instructions"] <= _NAMED_TICKS_LIMIT
    width = min(max(9.0, 3.5 + 0.42 * n), 24.0)
    height = 1.9 + 3.6 * len(arenas) + (1.1 if named else 0.3)
    dpi = 110
    fig = Figure(figsize=(width, height), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    axes = fig.subplots(len(arenas), 1, sharex=True, squeeze=False)[:, 0]
    conflict_vals = {v for pair in plan["plan_conflicts"] for v in pair}
    planner_lb = plan["planner_lower_bound_bytes"] if len(arenas) == 1 else None

    # an in-place handoff (input dies at the instruction that writes the output
    # over it) shares that instruction's column: input left half, output right half
    by_value = {r["value"]: r for r in plan["rects"] if r["kind"] == "tensor"}
    trim_right, trim_left = set(), set()
    for a, b in plan["shared"]:
        ra, rb = by_value[a], by_value[b]
        if ra["last"] == rb["first"] and ra["first"] < rb["first"]:
            trim_right.add(a)
            trim_left.add(b)
        elif rb["last"] == ra["first"] and rb["first"] < ra["first"]:
            trim_right.add(b)
            trim_left.add(a)
    tensor_rank = {r["value"]: k for k, r in enumerate(sorted(by_value.values(),
                                                              key=lambda r: (r["first"], r["offset"])))}

    drawn = []   # (patch, rect dict, axes)
    for ax, arena in zip(axes, arenas):
        m = arena["mem_id"]
        mine = [r for r in plan["rects"] if r["mem_id"] == m]
        top = max([arena["bytes"], arena["lower_bound_bytes"], planner_lb or 0]
                  + [r["offset"] + r["bytes"] for r in mine] + [1])
        min_h = top * 1.07 * _MIN_HEIGHT
        for r in sorted(mine, key=lambda r: (r["kind"] != "scratch", r["first"])):
            x0, x1 = r["first"] - 0.5, r["last"] + 0.5
            h = max(r["bytes"], min_h) if r["bytes"] > 0 else 0
            if r["kind"] == "scratch":
                p = Rectangle((x0 + 0.08, r["offset"]), x1 - x0 - 0.16, h, facecolor=_SCRATCH_FACE,
                              edgecolor=_SCRATCH_EDGE, hatch="///", linewidth=0.6, zorder=2)
            else:
                x0 += 0.5 if r["value"] in trim_left else 0.0
                x1 -= 0.5 if r["value"] in trim_right else 0.0
                bad = r["value"] in conflict_vals or r["offset"] + r["bytes"] > arena["bytes"]
                p = Rectangle((x0, r["offset"]), x1 - x0, h,
                              facecolor=_TENSOR_COLORS[tensor_rank[r["value"]] % len(_TENSOR_COLORS)],
                              alpha=0.85, edgecolor=_CONFLICT if bad else "#1f1f1f",
                              linewidth=1.6 if bad else 0.6, zorder=3)
            ax.add_patch(p)
            drawn.append((p, r, ax))
        ax.axhline(arena["bytes"], color="#111111", linewidth=1.6, zorder=4)
        ax.axhline(arena["lower_bound_bytes"], color="#1f77ff", linewidth=1.4, linestyle=(0, (5, 4)), zorder=5)
        if planner_lb is not None:
            ax.axhline(planner_lb, color="#c000c0", linewidth=1.6, linestyle=(0, (1, 3)), zorder=6)
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(0, top * 1.07)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{int(y):,}"))
        ax.set_ylabel("arena offset (bytes)")
        ax.grid(axis="x", color="#e6e6e6", linewidth=0.6, zorder=0)
        ax.set_axisbelow(True)
        lb_note = " incl. scratch" if arena["scratch_blocks"] else ""
        handles = [Line2D([], [], color="#111111", linewidth=1.6, label=f"arena {_fmt_bytes(arena['bytes'])}"),
                   Line2D([], [], color="#1f77ff", linewidth=1.4, linestyle=(0, (5, 4)),
                          label=f"live-bytes lower bound{lb_note} {_fmt_bytes(arena['lower_bound_bytes'])}")]
        if planner_lb is not None:
            handles.append(Line2D([], [], color="#c000c0", linewidth=1.6, linestyle=(0, (1, 3)),
                                  label=f"planner's lower bound (separate buffers) {_fmt_bytes(planner_lb)}"))
        handles.append(Patch(facecolor=_TENSOR_COLORS[0], alpha=0.85, edgecolor="#1f1f1f",
                             label=f"tensor ({arena['tensors']})"))
        if arena["scratch_blocks"]:
            handles.append(Patch(facecolor=_SCRATCH_FACE, edgecolor=_SCRATCH_EDGE, hatch="///",
                                 label=f"kernel scratch ({arena['scratch_blocks']})"))
        if any(r["value"] in conflict_vals for r in mine):
            handles.append(Patch(facecolor="white", edgecolor=_CONFLICT, linewidth=1.6, label="plan conflict"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
                  frameon=False, borderaxespad=0.0)
        ax.set_title(f"memory id {m}: {_fmt_bytes(arena['bytes'])}", fontsize=9, loc="left")

    last = axes[-1]
    last.set_xlabel("instruction")
    if named:
        last.set_xticks(range(plan["instructions"]))
        last.set_xticklabels([f"{k} {op}" for k, op in enumerate(plan["ops"])], rotation=90, fontsize=7)
    else:
        last.xaxis.set_major_locator(MaxNLocator(integer=True))
    total = plan["arena_total_bytes"]
    head = title or f"{plan['model']}: arena plan of {plan['method']}, {_fmt_bytes(total)}"
    notes = [f"{plan['tensors']} planned tensors"]
    if plan["tensors_not_used"]:
        notes.append(f"{plan['tensors_not_used']} used by no instruction (not drawn)")
    if plan["shared"]:
        k = len(plan["shared"])
        notes.append(f"{k} in-place pair{'s share' if k > 1 else ' shares'} bytes (in the handing-over "
                     "instruction's column: input left half, output right half)")
    if plan["plan_conflicts"]:
        k = len(plan["plan_conflicts"])
        notes.append(f"{k} PLAN CONFLICT{'S' if k > 1 else ''} (red)")
    if plan["scratch_source"] is None:
        notes.append("kernel scratch, if any, not shown: a .pte does not record it "
                     "(mote_model.h of aot build / aot generate does)")
    fig.suptitle(head, fontsize=12, x=0.01, y=1.0 - 0.12 / height, ha="left", va="top")
    fig.text(0.01, 1.0 - 0.45 / height, "; ".join(notes), fontsize=8, ha="left", va="top", color="#444444",
             wrap=True)
    # margins fixed before the labels inside rectangles are placed; the saved
    # image is then cropped/grown to everything drawn (bbox_inches="tight")
    fig.subplots_adjust(left=0.95 / width, right=1 - 3.2 / width, top=1 - 1.05 / height,
                        bottom=(1.6 if named else 0.55) / height, hspace=0.35)
    canvas.draw()
    renderer = canvas.get_renderer()
    for p, r, ax in drawn:
        if r["kind"] == "scratch":
            continue
        box = p.get_window_extent(renderer)
        cx, cy = p.get_x() + p.get_width() / 2, r["offset"] + r["bytes"] / 2
        for text in (f"v{r['value']} {r['bytes']:,} B", f"v{r['value']}\n{r['bytes']:,} B", f"v{r['value']}"):
            t = ax.text(cx, cy, text, ha="center", va="center", fontsize=7, zorder=7, color="#111111")
            tb = t.get_window_extent(renderer)
            if tb.width + 4 <= box.width and tb.height + 2 <= box.height:
                break
            t.remove()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", pad_inches=0.15)
    png = buf.getvalue()
    # IHDR: width and height, big-endian, at bytes 16..24 of every PNG
    return png, (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big"))


def draw_arena_plan(pte: Union[bytes, str, Path], png_path, title: Optional[str] = None, *,
                    method: Optional[str] = None, scratch_slots: Optional[list] = None,
                    name: Optional[str] = None, planner_lower_bound: Optional[int] = None) -> dict:
    """Draw the arena plan of ``pte`` (.pte bytes, a .pte path or a build folder)
    to the PNG ``png_path`` (written atomically; parent folders are created).

    ``title`` replaces the default "<model>: arena plan of <method>, <bytes>";
    ``method``, ``scratch_slots`` ([(instruction, offset bytes, size bytes)]
    in arena 1), ``name`` and ``planner_lower_bound`` as in :func:`arena_plan`.

    Returns a summary: path, model, method, tensors (planned tensors drawn),
    tensors_not_used, scratch_blocks, scratch_source, arena_bytes (per memory
    id), arena_total_bytes, lower_bound_bytes (per memory id, live bytes incl.
    the scratch drawn), planner_lower_bound_bytes (or None), shared,
    plan_conflicts, width_px, height_px (of the PNG).
    Raises MoteError: unreadable input, not a .pte (PteFormatError), PNG not
    writable."""
    from aot.compiler.emit import atomic_write
    plan = arena_plan(pte, method=method, scratch_slots=scratch_slots, name=name,
                      planner_lower_bound=planner_lower_bound)
    png, (w, h) = _render(plan, title)
    out = Path(png_path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, png)
    except OSError as e:
        raise MoteError(f"cannot write {out}: {e.strerror or e}") from None
    return {
        "path": str(out),
        "model": plan["model"],
        "method": plan["method"],
        "tensors": plan["tensors"],
        "tensors_not_used": plan["tensors_not_used"],
        "scratch_blocks": plan["scratch_blocks"],
        "scratch_source": plan["scratch_source"],
        "arena_bytes": [a["bytes"] for a in plan["arenas"]],
        "arena_total_bytes": plan["arena_total_bytes"],
        "lower_bound_bytes": [a["lower_bound_bytes"] for a in plan["arenas"]],
        "planner_lower_bound_bytes": plan["planner_lower_bound_bytes"],
        "shared": plan["shared"],
        "plan_conflicts": plan["plan_conflicts"],
        "width_px": w,
        "height_px": h,
    }


def draw_compiled(compiled, png_path, title: Optional[str] = None) -> dict:
    """:func:`draw_arena_plan` of an :class:`aot.compiler.pipeline.Compiled`
    (e.g. ``compile_model_file(path, int8=True)``, what ``aot export`` writes),
    with its kernel scratch blocks and the planner's lower bound from the
    compile's own plan."""
    from aot.compiler.scratch import scratch_slots
    name = compiled.name + (" (int8)" if compiled.int8 else "")
    return draw_arena_plan(compiled.pte, png_path, title, scratch_slots=scratch_slots(compiled.spec),
                           name=name, planner_lower_bound=compiled.spec.plan_info.get("arena_lower_bound_bytes"))
