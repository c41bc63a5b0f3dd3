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

import bisect
import heapq
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


class _CoveredBytes:
    """Bytes covered by a multiset of byte ranges [lo, hi) that grows and shrinks: a segment
    tree over the ranges' sorted distinct ends, each node holding how many ranges cover it
    whole and how many bytes under it are covered. add/remove: O(log n) for n ends."""

    def __init__(self, ends: list):
        self.x = sorted(set(ends))
        self.pos = {v: i for i, v in enumerate(self.x)}
        size = max(len(self.x) - 1, 1)
        self.count = [0] * (4 * size)
        self.length = [0] * (4 * size)
        self.last = size

    @property
    def covered(self) -> int:
        return self.length[1]

    def change(self, lo: int, hi: int, delta: int) -> None:
        """Adds (delta 1) or removes (delta -1) the range [lo, hi) (one of the ends given)."""
        if hi > lo:
            self._update(1, 0, self.last, self.pos[lo], self.pos[hi], delta)

    def _update(self, node: int, a: int, b: int, lo: int, hi: int, delta: int) -> None:
        # node covers the elementary ranges a..b-1 (bytes x[a]..x[b]); depth <= log2(n) + 2
        if hi <= a or b <= lo:
            return
        if lo <= a and b <= hi:
            self.count[node] += delta
        else:
            mid = (a + b) // 2
            self._update(2 * node, a, mid, lo, hi, delta)
            self._update(2 * node + 1, mid, b, lo, hi, delta)
        if self.count[node] > 0:
            self.length[node] = self.x[b] - self.x[a]
        elif b - a == 1:
            self.length[node] = 0
        else:
            self.length[node] = self.length[2 * node] + self.length[2 * node + 1]


def live_bytes_lower_bound(planned: dict, uses: list, inputs: Iterable[int],
                           outputs: Iterable[int]) -> int:
    """Peak over instructions of the live planned bytes: at each instruction the
    live tensors' byte ranges are unioned per memory id (aliases that share
    bytes count once) and summed. Returns bytes.

    Work: a sweep over the instructions, each tensor entering its memory id's
    union at its first instruction and leaving after its last: O((n + v) log v)
    for n instructions and v planned tensors."""
    life = lifetimes(uses, inputs, outputs)
    steps = max(len(uses), 1)
    items = [(v, mem, off, off + nb) for v, (mem, off, nb) in planned.items() if v in life and nb > 0]
    ends: dict = {}
    for _, mem, lo, hi in items:
        ends.setdefault(mem, []).extend((lo, hi))
    union = {mem: _CoveredBytes(e) for mem, e in ends.items()}
    starts: dict = {}
    stops: dict = {}
    for it in items:
        f, l = life[it[0]]
        if f <= l and f < steps and l >= 0:
            starts.setdefault(max(f, 0), []).append(it)
            stops.setdefault(min(l, steps - 1), []).append(it)
    total = peak = 0
    for k in range(steps):
        for phase, delta in ((starts, 1), (None, 0), (stops, -1)):
            if phase is None:
                peak = max(peak, total)
                continue
            for _, mem, lo, hi in phase.get(k, ()):
                u = union[mem]
                total -= u.covered
                u.change(lo, hi, delta)
                total += u.covered
    return peak


def plan_conflicts(planned: dict, uses: list, inputs: Iterable[int], outputs: Iterable[int]) -> list:
    """Pairs (a, b) of planned tensors whose bytes overlap in the same memory
    id while both are live, excluding exact aliases (same offset and size) and
    in-place handoffs (same first byte, one's last instruction the other's
    first: a kernel writing its output over its input, elementwise or by rows).
    A correct plan has none. Sorted, a < b in each pair.

    Work: a sweep over first instructions; each tensor is checked against the
    live tensors of its memory id whose offsets lie within the id's largest
    tensor size below its end (found by bisection): O(v log v + checks) for v
    planned tensors, where checks is small unless many tensors live at once
    near the same bytes."""
    life = lifetimes(uses, inputs, outputs)
    items = sorted((life[v][0], v, m, o, n) for v, (m, o, n) in planned.items() if v in life and n > 0)
    longest: dict = {}
    for _, _, m, _, n in items:
        longest[m] = max(longest.get(m, 0), n)
    live: dict = {}   # mem id -> sorted [(offset, value)] of the tensors live at the sweep's instruction
    ending: list = []  # heap of (last instruction, mem id, offset, value)
    out = []
    for fb_, b, m, ob, nb in items:
        while ending and ending[0][0] < fb_:
            _, mem, off, v = heapq.heappop(ending)
            lst = live[mem]
            del lst[bisect.bisect_left(lst, (off, v))]
        lst = live.setdefault(m, [])
        lb = life[b][1]
        lo = bisect.bisect_left(lst, (ob - longest[m] + 1, -1))
        hi = bisect.bisect_left(lst, (ob + nb, -1))
        for oa, a in lst[lo:hi]:
            na = planned[a][2]
            if (oa, na) == (ob, nb) or oa >= ob + nb or ob >= oa + na:
                continue
            fa, la = life[a]
            if oa == ob and (la == fb_ or lb == fa):
                continue
            out.append((min(a, b), max(a, b)))
        bisect.insort(lst, (ob, b))
        heapq.heappush(ending, (lb, m, ob, b))
    return sorted(out)


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
