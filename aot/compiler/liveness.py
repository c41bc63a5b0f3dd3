"""Tensor lifetimes over a method's instructions, and what follows from them:
the live-bytes lower bound and plan conflicts. The one home of these rules;
the planner (:mod:`aot.compiler.plan`), the manifest and ``aot inspect`` (on any
.pte, ours or ExecuTorch's) all call these functions.

Rules: a tensor is live from the first to the last instruction that uses it,
directly or through an unplanned view of it (``executorch_prim::et_view``,
:data:`aot.ir.ET_VIEW`); both ends inclusive, so an op's inputs and outputs
never share bytes. Program inputs are live from instruction 0, outputs to the
last instruction.

Inputs are plain data, so the module works on an :class:`aot.ir.ProgramSpec`
and on a parsed .pte alike: ``uses`` is, per instruction, the tensor value
indices it touches (lists expanded); ``views`` is (instruction, source value,
view value) for each view instruction; ``planned`` maps value index ->
(mem_id, offset, nbytes).
"""
from __future__ import annotations

from typing import Iterable

from aot import ir

#: operators whose output (last arg) is an unplanned alias of their first arg
VIEW_OPS = (ir.ET_VIEW,)


def view_roots(views: Iterable) -> dict:
    """view value -> the storage it aliases (views of views resolve to the first source)."""
    root: dict = {}
    for _, src, out in views:
        root[out] = root.get(src, src)
    return root


def with_view_aliases(uses: list, views: list, outputs: Iterable[int]) -> tuple:
    """Make the storage behind views live wherever the view is used.

    Returns (uses, outputs) with each view's root source added next to the view."""
    root = view_roots(views)
    new_uses = []
    for vs in uses:
        extra = [root[v] for v in vs if v in root and root[v] not in vs]
        new_uses.append(list(vs) + list(dict.fromkeys(extra)))
    outs = list(outputs)
    outs += [root[v] for v in outs if v in root and root[v] not in outs]
    return new_uses, outs


def lifetimes(uses: list, inputs: Iterable[int], outputs: Iterable[int]) -> dict:
    """value index -> (first, last) instruction index that uses it (inclusive).

    Inputs start at instruction 0, outputs end at the last one. Apply
    :func:`with_view_aliases` first to extend storage over its views."""
    n = len(uses)
    life: dict = {}
    for k, vs in enumerate(uses):
        for v in vs:
            f, l = life.get(v, (k, k))
            life[v] = (min(f, k), max(l, k))
    last = max(n - 1, 0)
    for v in inputs:
        f, l = life.get(v, (0, 0))
        life[v] = (0, l)
    for v in outputs:
        f, l = life.get(v, (last, last))
        life[v] = (f, last)
    return life


def _union_bytes(ranges: list) -> int:
    total, end = 0, None
    for lo, hi in sorted(ranges):
        if end is None or lo >= end:
            total += hi - lo
            end = hi
        elif hi > end:
            total += hi - end
            end = hi
    return total


def live_bytes_lower_bound(planned: dict, uses: list, inputs: Iterable[int],
                           outputs: Iterable[int]) -> int:
    """Peak over instructions of the live planned bytes: at each instruction the
    live tensors' byte ranges are unioned per memory id (aliases that share
    bytes count once) and summed. Returns bytes."""
    life = lifetimes(uses, inputs, outputs)
    steps = max(len(uses), 1)
    peak = 0
    for k in range(steps):
        per_mem: dict = {}
        for v, (mem, off, nb) in planned.items():
            if v in life and life[v][0] <= k <= life[v][1] and nb > 0:
                per_mem.setdefault(mem, []).append((off, off + nb))
        peak = max(peak, sum(_union_bytes(r) for r in per_mem.values()))
    return peak


def plan_conflicts(planned: dict, uses: list, inputs: Iterable[int], outputs: Iterable[int]) -> list:
    """Pairs (a, b) of planned tensors whose bytes overlap in the same memory
    id while both are live, excluding exact aliases (same offset and size) and
    in-place handoffs (same first byte, one's last instruction the other's
    first: a kernel writing its output over its input, elementwise or by rows).
    A correct plan has none."""
    life = lifetimes(uses, inputs, outputs)
    items = sorted((v, m, o, n) for v, (m, o, n) in planned.items() if v in life and n > 0)
    out = []
    for i, (a, ma, oa, na) in enumerate(items):
        for b, mb, ob, nb in items[i + 1:]:
            if ma != mb or (oa, na) == (ob, nb) or oa >= ob + nb or ob >= oa + na:
                continue
            (fa, la), (fb_, lb) = life[a], life[b]
            if oa == ob and (la == fb_ or lb == fa):
                continue
            if fa <= lb and fb_ <= la:
                out.append((a, b))
    return out


# --------------------------------------------------------------------------- on a ProgramSpec


def call_tensors(spec: ir.ProgramSpec, call) -> list:
    """The tensor value indices instruction ``call`` reads or writes (tensor lists expanded)."""
    vs = []
    for a in call.args:
        v = spec.values[a]
        if isinstance(v, ir.TensorValue):
            vs.append(a)
        elif isinstance(v, ir.TensorListValue):
            vs.extend(i for i in v.items if i >= 0)
    return vs


def spec_uses(spec: ir.ProgramSpec) -> list:
    """Per instruction of ``spec``, the tensor value indices it reads or writes."""
    return [call_tensors(spec, call) for call in spec.instructions]


def spec_views(spec: ir.ProgramSpec) -> list:
    """(instruction, source, view) of every et_view of ``spec``."""
    return [(k, c.args[0], c.args[-1]) for k, c in enumerate(spec.instructions)
            if f"{c.op}.{c.overload}" in VIEW_OPS and len(c.args) >= 2]


def spec_planned(spec: ir.ProgramSpec) -> dict:
    """value index -> (mem_id, offset, nbytes) of ``spec``'s planned tensors."""
    return {i: (v.mem_id, v.mem_offset, v.nbytes) for i, v in enumerate(spec.values)
            if isinstance(v, ir.TensorValue) and v.mem_id is not None}


def spec_lower_bound(spec: ir.ProgramSpec) -> int:
    """:func:`live_bytes_lower_bound` of ``spec``'s placed tensors, bytes."""
    uses, outs = with_view_aliases(spec_uses(spec), spec_views(spec), spec.outputs)
    return live_bytes_lower_bound(spec_planned(spec), uses, spec.inputs, outs)
