"""Stage 4: static memory plan. Every non-constant tensor (graph inputs and
outputs included, as ExecuTorch does) gets an offset in arena mem_id 1, except
mutable buffers (model state that persists across calls), which are packed
into their own arena, mem_id 2 (:data:`MUTABLE_MEM_ID`): activations never
reuse their bytes, and the caller may keep that arena while it reuses arena 1
for other work between calls.

Lifetimes are over instruction steps: a tensor is live from the first
instruction that mentions it (step 0 for graph inputs) to the last one (the
last step for graph outputs); both ends inclusive, so an op's inputs and
outputs never share bytes. Outputs of ``executorch_prim::et_view`` are
aliases: they stay unplanned and extend their base tensor's lifetime.

Lower bound: max over steps of the summed bytes (true sizes, no alignment) of
the tensors live at that step, aliases counted once, plus that step's scratch.
No placement of separate buffers can go below it; in-place reuse can: an
elementwise op (its kernel declares MOTE_KERNEL_IN_PLACE, aot.compiler.kernels) whose input dies at that op
and has the out tensor's sizes and dtype writes its output over the input.

Offsets are multiples of ``ALIGNMENT`` (16 bytes, enough for any scalar type
and for 128-bit vector loads), except one-byte tensors (int8, uint8, bool),
which are word aligned (``BYTE_TENSOR_ALIGNMENT``, 4 bytes): the int8 kernels
read activations with word or byte loads (LDR/SXTB16, MVE VLDRB), never
LDRD/LDM, and 16-byte padding between small int8 tensors is what pushed a plan
above the lower bound. The arena size is the end of the last tensor (true
size), so alignment padding costs only what it takes between tensors.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from aot import ir
from aot.errors import PlanError
from aot.compiler import liveness
from aot.compiler.ops import in_place, in_place_rows

ALIGNMENT = 16
BYTE_TENSOR_ALIGNMENT = 4
#: output rows an in-place-by-rows call computes per band: the ring holds
#: lag + ROW_BAND rows (kernels/requant.h, mote_s8_conv_rows)
ROW_BAND = 1


def tensor_alignment(t: ir.TensorValue) -> int:
    """Offset alignment (bytes) the plan gives tensor ``t`` (see module docstring)."""
    return BYTE_TENSOR_ALIGNMENT if ir.DTYPE_SIZES[t.dtype] == 1 else ALIGNMENT
ARENA_MEM_ID = 1
#: the arena of the mutable buffers (present only when the method has some)
MUTABLE_MEM_ID = 2
#: above this many buffers the "best" planner skips its random search
_SEARCH_LIMIT = 400
_SEARCH_TRIALS = 300
#: up to this many buffers the "best" planner tries every placement order
_EXHAUSTIVE_LIMIT = 7


@dataclass
class Liveness:
    """life: value index -> (first step, last step) of every planned tensor,
    extended over its aliases; alias_root: et_view output -> base value;
    scratch: step -> bytes; steps: number of instructions."""
    life: dict = field(default_factory=dict)
    alias_root: dict = field(default_factory=dict)
    scratch: dict = field(default_factory=dict)
    steps: int = 0


def analyze(spec: ir.ProgramSpec) -> Liveness:
    """Lifetimes of the planned tensors of ``spec`` (rules: aot.compiler.liveness)."""
    lv = Liveness(steps=len(spec.instructions))
    views = liveness.spec_views(spec)
    lv.alias_root = liveness.view_roots(views)
    uses, outs = liveness.with_view_aliases(liveness.spec_uses(spec), views, spec.outputs)
    for v, span in liveness.lifetimes(uses, spec.inputs, outs).items():
        tv = spec.values[v]
        if v not in lv.alias_root and isinstance(tv, ir.TensorValue) and tv.constant is None \
                and not tv.is_mutable:
            lv.life[v] = span
    lv.scratch = {step: c.scratch_bytes for step, c in enumerate(spec.instructions) if c.scratch_bytes}
    return lv


def lower_bound(spec: ir.ProgramSpec, lv: Liveness = None) -> int:
    """Max over steps of the bytes of simultaneously live planned tensors
    (true sizes) plus scratch. Bytes."""
    lv = lv or analyze(spec)
    best = 0
    for step in range(max(lv.steps, 1)):
        live = sum(spec.values[v].nbytes for v, (s, e) in lv.life.items() if s <= step <= e)
        best = max(best, live + lv.scratch.get(step, 0))
    return best


def in_place_pairs(spec: ir.ProgramSpec, lv: Liveness) -> list:
    """(input, output, step) triples where the output may reuse the input's
    bytes: elementwise op, input (or the base of an et_view input) dies at
    this step, same sizes, bytes and dtype, the input neither a graph input
    (the caller's data) nor a graph output."""
    io = set(spec.inputs) | {lv.alias_root.get(o, o) for o in spec.outputs}
    pairs, taken = [], set()
    for step, call in enumerate(spec.instructions):
        if not in_place(f"{call.op}.{call.overload}"):
            continue
        out = call.args[-1]
        ot = spec.values[out]
        if out in spec.inputs or out not in lv.life:
            continue
        for a in call.args[:-1]:
            t = spec.values[a]
            if a == out or not isinstance(t, ir.TensorValue):
                continue
            # an et_view operand reuses its base's bytes (same linear order)
            base = lv.alias_root.get(a, a)
            if base not in lv.life or base in io or base in taken:
                continue
            if (lv.life[base][1] == step and t.sizes == ot.sizes and t.dtype == ot.dtype
                    and spec.values[base].nbytes == ot.nbytes):
                pairs.append((base, out, step))
                taken.add(base)
                break
    return pairs


def in_place_rows_pairs(spec: ir.ProgramSpec, lv: Liveness, taken=()) -> list:
    """(input, output, step, ring bytes) of the window ops (their kernel marks
    MOTE_KERNEL_IN_PLACE_ROWS: int8 conv, depthwise conv) that may write their
    output from their input's first byte on: the input (or the base of an
    et_view input) dies at this step and is neither a graph input nor output nor
    in ``taken``, and the kernel's row rule allows it (one image): the call then
    needs ``ring bytes`` more scratch (aot.compiler.scratch.rows_ring_bytes)."""
    from aot.compiler.scratch import rows_ring_bytes
    io = set(spec.inputs) | {lv.alias_root.get(o, o) for o in spec.outputs}
    pairs, taken = [], set(taken)
    for step, call in enumerate(spec.instructions):
        if not in_place_rows(f"{call.op}.{call.overload}"):
            continue
        a, out = call.args[0], call.args[-1]
        base = lv.alias_root.get(a, a)
        if out in spec.inputs or out not in lv.life or base not in lv.life or base in io:
            continue
        if base in taken or lv.life[base][1] != step or base == out:
            continue
        if spec.values[base].nbytes != spec.values[a].nbytes:
            continue
        ring = rows_ring_bytes(spec, call, ROW_BAND)
        # in place saves at most the smaller tensor's bytes at this step
        if 0 < ring < min(spec.values[base].nbytes, spec.values[out].nbytes):
            pairs.append((base, out, step, ring))
            taken.add(base)
    return pairs


@dataclass
class _Buf:
    members: list
    size: int
    start: int
    end: int
    offset: int = 0
    align: int = ALIGNMENT


def _buffers(spec: ir.ProgramSpec, lv: Liveness, pairs: list) -> list:
    group = {v: v for v in lv.life}

    def root(v):
        while group[v] != v:
            v = group[v]
        return v

    for a, out, _ in pairs:
        group[out] = root(a)
    by_root = {}
    for v in lv.life:
        by_root.setdefault(root(v), []).append(v)
    bufs = []
    for members in by_root.values():
        bufs.append(_Buf(members, max(spec.values[m].nbytes for m in members),
                         min(lv.life[m][0] for m in members), max(lv.life[m][1] for m in members),
                         align=max(tensor_alignment(spec.values[m]) for m in members)))
    for step, nbytes in sorted(lv.scratch.items()):
        bufs.append(_Buf([("scratch", step)], nbytes, step, step))
    return bufs


def _align(x: int, a: int = ALIGNMENT) -> int:
    return (x + a - 1) // a * a


def _place(bufs: list, order: list, best_fit: bool) -> tuple:
    """Place bufs in ``order``: each at the lowest (first-fit) or tightest
    (best-fit) aligned gap among the already placed buffers whose lifetimes
    overlap it. Returns (offsets list by buffer index, arena bytes)."""
    offsets = [None] * len(bufs)
    placed = []
    top = 0
    for i in order:
        b = bufs[i]
        busy = sorted((offsets[j], offsets[j] + bufs[j].size) for j in placed
                      if bufs[j].start <= b.end and b.start <= bufs[j].end and bufs[j].size)
        cands = [0] + [_align(e, b.align) for _, e in busy]
        choice, slack = None, None
        for o in cands:
            if any(s < o + b.size and o < e for s, e in busy):
                continue
            nxt = min((s for s, _ in busy if s >= o + b.size), default=None)
            gap = (nxt - o - b.size) if nxt is not None else float("inf")
            if choice is None or (best_fit and gap < slack) or (not best_fit and o < choice):
                choice, slack = o, gap
        offsets[i] = choice
        placed.append(i)
        top = max(top, choice + b.size)
    return offsets, top


def _orders(bufs: list) -> dict:
    idx = list(range(len(bufs)))
    return {
        "size": sorted(idx, key=lambda i: (-bufs[i].size, bufs[i].start)),
        "area": sorted(idx, key=lambda i: (-bufs[i].size * (bufs[i].end - bufs[i].start + 1), bufs[i].start)),
        "longest": sorted(idx, key=lambda i: (-(bufs[i].end - bufs[i].start), -bufs[i].size)),
        "start": sorted(idx, key=lambda i: (bufs[i].start, -bufs[i].size)),
    }


def plan_greedy(bufs: list) -> tuple:
    """Greedy best-fit by size, descending. Returns (offsets, arena bytes)."""
    return _place(bufs, _orders(bufs)["size"], best_fit=True)


def plan_best(bufs: list) -> tuple:
    """Several orderings x {first-fit, best-fit}, then every placement order
    (up to 7 buffers) or a seeded random search around the size order (up to
    400 buffers); keeps the smallest arena.
    Returns (offsets, arena bytes, winning heuristic name)."""
    best = None
    for name, order in _orders(bufs).items():
        for bf in (False, True):
            offs, top = _place(bufs, order, bf)
            if best is None or top < best[1]:
                best = (offs, top, f"{name}-{'best' if bf else 'first'}-fit")
    if len(bufs) <= _EXHAUSTIVE_LIMIT:
        # tiny graphs: every placement order (first-fit is optimal for some order)
        for order in itertools.permutations(range(len(bufs))):
            offs, top = _place(bufs, list(order), False)
            if top < best[1]:
                best = (offs, top, "exhaustive")
        return best
    if len(bufs) <= _SEARCH_LIMIT:
        rng = random.Random(0)
        base = list(_orders(bufs)["size"])
        for trial in range(_SEARCH_TRIALS):
            order = base[:]
            # perturb the size order a little: nearby swaps keep big-first
            for _ in range(1 + trial % 4):
                i = rng.randrange(len(order))
                j = min(len(order) - 1, i + rng.randrange(1, 4))
                order[i], order[j] = order[j], order[i]
            offs, top = _place(bufs, order, trial % 2 == 1)
            if top < best[1]:
                best = (offs, top, "search")
                base = order
    return best


PLANNERS = ("greedy", "best")


def plan_memory(spec: ir.ProgramSpec, planner: str = "best", in_place: bool = True) -> None:
    """Plan ``spec`` in place: sets mem_id/mem_offset of every planned tensor,
    ``arena_sizes`` = [0, arena bytes] and ``plan_info`` ({"arena_bytes",
    "arena_lower_bound_bytes", "planner", "in_place", "alignment",
    "scratch_offsets"}), then verifies. Raises ValueError for an unknown
    planner, PlanError if the plan fails verification."""
    if planner not in PLANNERS:
        raise ValueError(f"unknown planner {planner!r}; choose from {PLANNERS}")
    lv = analyze(spec)
    pairs = in_place_pairs(spec, lv) if in_place else []
    rows = in_place_rows_pairs(spec, lv, {a for a, _, _ in pairs}) if in_place else []
    best = None
    # with every in-place-by-rows pair (each adds its ring to the call's scratch)
    # and without: the smaller arena wins, a tie goes to the plan without rings
    for chosen in ([[], rows] if rows else [[]]):
        lvc = Liveness(life=lv.life, alias_root=lv.alias_root, scratch=dict(lv.scratch), steps=lv.steps)
        for _, _, step, ring in chosen:
            lvc.scratch[step] = lvc.scratch.get(step, 0) + ring
        bufs = _buffers(spec, lvc, pairs + [(a, o, st) for a, o, st, _ in chosen])
        if planner == "greedy":
            offs, top = plan_greedy(bufs)
            name = "greedy-size-best-fit"
        else:
            offs, top, name = plan_best(bufs)
        if best is None or top < best[2]:
            best = (bufs, offs, top, name, chosen)
    bufs, offs, top, name, chosen = best
    for _, _, step, ring in chosen:
        spec.instructions[step].scratch_bytes += ring
    scratch = {}
    for b, off in zip(bufs, offs):
        for m in b.members:
            if isinstance(m, tuple):
                scratch[m[1]] = off
            else:
                spec.values[m].mem_id = ARENA_MEM_ID
                spec.values[m].mem_offset = off
    # a backend that reads past a tensor's end (aot.compiler.partition.Partitioner.read_past_end)
    # reads inside the arena even for the tensor planned last
    top += spec.plan_info.get("arena_tail_bytes", 0)
    spec.arena_sizes = [0, top]
    mutable = plan_mutable(spec)
    spec.plan_info.update({
        "mutable_bytes": mutable,
        "arena_bytes": top,
        "arena_lower_bound_bytes": lower_bound(spec, lv),
        "planner": f"{planner}:{name}",
        "in_place": len(pairs),
        "in_place_rows": len(chosen),
        "row_rings": {step: ring for _, _, step, ring in chosen},
        "alignment": ALIGNMENT,
        "scratch_offsets": scratch,
    })
    verify_plan(spec)


def _mutable(spec: ir.ProgramSpec) -> list:
    return [v for v in spec.values if isinstance(v, ir.TensorValue) and v.is_mutable]


def _mutable_layout(specs: list) -> tuple:
    """(name -> (offset, bytes, dtype), arena bytes): the mutable buffers of
    `specs` packed in first-seen order, each aligned as any tensor (all live all
    the time: nothing shares). Raises PlanError when two methods give one name
    different sizes or dtypes."""
    layout, top = {}, 0
    for spec in specs:
        for v in _mutable(spec):
            if v.fqn in layout:
                _, size, dtype = layout[v.fqn]
                if (size, dtype) != (v.nbytes, v.dtype):
                    raise PlanError(f"mutable buffer {v.fqn}: {v.nbytes} B of {ir.dtype_name(v.dtype)} in method "
                                    f"{spec.method_name}, {size} B of {ir.dtype_name(dtype)} in another")
                continue
            off = _align(top, tensor_alignment(v))
            layout[v.fqn] = (off, v.nbytes, v.dtype)
            top = off + v.nbytes
    return layout, top


def _place_mutable(spec: ir.ProgramSpec, layout: dict, top: int) -> None:
    """Give `spec`'s mutable buffers their offsets in arena MUTABLE_MEM_ID (of `top` bytes)."""
    mine = _mutable(spec)
    for v in mine:
        v.mem_id, v.mem_offset = MUTABLE_MEM_ID, layout[v.fqn][0]
    if mine:
        spec.arena_sizes = spec.arena_sizes[:MUTABLE_MEM_ID] + [top]
        spec.plan_info["mutable_bytes"] = top


def plan_mutable(spec: ir.ProgramSpec) -> int:
    """Pack the mutable buffers of ``spec`` into arena MUTABLE_MEM_ID (see
    :func:`_mutable_layout`) and append that arena's size to
    ``spec.arena_sizes`` when there is one. Returns its size in bytes (0: none)."""
    layout, top = _mutable_layout([spec])
    _place_mutable(spec, layout, top)
    return top


def share_mutable(specs: list) -> int:
    """Give the methods of one program one layout of their mutable buffers
    (by name: a buffer several methods update, e.g. a KV cache written by
    ``prefill`` and ``decode``, has one offset in arena MUTABLE_MEM_ID), so the
    caller hands every method the same arena and they share the state. Each
    method with mutable buffers gets the whole layout's size. Returns that
    size in bytes. Raises PlanError when two methods give one name different
    sizes or dtypes; re-verifies every plan."""
    layout, top = _mutable_layout(specs)
    for spec in specs:
        _place_mutable(spec, layout, top)
        verify_plan(spec)
    return top


def _legit_in_place(spec, lv, a, b) -> bool:
    """True if (a, b) is an input/output pair of an in-place-capable op at the
    step where a dies and b is born, at the same offset."""
    (sa, ea), (sb, eb) = lv.life[a], lv.life[b]
    if ea == sb:
        first, second, step = a, b, ea
    elif eb == sa:
        first, second, step = b, a, eb
    else:
        return False
    call = spec.instructions[step]
    va, vb = spec.values[first], spec.values[second]
    if in_place_rows(f"{call.op}.{call.overload}"):
        # out from the input's first byte on, sizes may differ (kernels/requant.h)
        return (call.args[-1] == second and lv.alias_root.get(call.args[0], call.args[0]) == first
                and va.mem_offset == vb.mem_offset)
    operands = {lv.alias_root.get(x, x) for x in call.args[:-1]}
    return (in_place(f"{call.op}.{call.overload}") and call.args[-1] == second
            and first in operands and first != second and va.mem_offset == vb.mem_offset
            and va.nbytes == vb.nbytes)


def verify_plan(spec: ir.ProgramSpec) -> None:
    """Check the plan of ``spec``: every planned tensor has mem_id >= 1, an
    aligned offset, fits its arena; no two tensors live at the same step share
    a byte (in-place pairs excepted; scratch included). Raises PlanError."""
    lv = analyze(spec)
    spans = []  # (name, value index or None, mem_id, lo, hi, start, end)
    for v, (s, e) in lv.life.items():
        t = spec.values[v]
        if t.mem_id is None or t.mem_offset is None or t.mem_id < 1:
            raise PlanError(f"tensor {v} ({t.name}) is not planned")
        if t.mem_id >= len(spec.arena_sizes):
            raise PlanError(f"tensor {v} ({t.name}) in unknown arena {t.mem_id}")
        if t.mem_offset % tensor_alignment(t):
            raise PlanError(f"tensor {v} ({t.name}) offset {t.mem_offset} not "
                            f"{tensor_alignment(t)}-byte aligned")
        if t.mem_offset < 0 or t.mem_offset + t.nbytes > spec.arena_sizes[t.mem_id]:
            raise PlanError(f"tensor {v} ({t.name}) [{t.mem_offset}, {t.mem_offset + t.nbytes}) "
                            f"outside arena {t.mem_id} of {spec.arena_sizes[t.mem_id]} bytes")
        spans.append((t.name or str(v), v, t.mem_id, t.mem_offset, t.mem_offset + t.nbytes, s, e))
    for v, t in enumerate(spec.values):
        if isinstance(t, ir.TensorValue) and t.is_mutable:
            if t.mem_id != MUTABLE_MEM_ID or t.mem_offset is None or t.mem_id >= len(spec.arena_sizes) \
                    or t.mem_offset % tensor_alignment(t) or t.mem_offset + t.nbytes > spec.arena_sizes[t.mem_id]:
                raise PlanError(f"mutable buffer {v} ({t.fqn}) is not inside arena {MUTABLE_MEM_ID}")
            if len(t.initial) != t.nbytes:
                raise PlanError(f"mutable buffer {v} ({t.fqn}): {len(t.initial)} initial bytes for {t.nbytes}")
            spans.append((t.fqn or str(v), v, t.mem_id, t.mem_offset, t.mem_offset + t.nbytes, 0, max(lv.steps, 1)))
    for step, off in spec.plan_info.get("scratch_offsets", {}).items():
        size = spec.instructions[step].scratch_bytes
        if off + size > spec.arena_sizes[ARENA_MEM_ID]:
            raise PlanError(f"scratch of step {step} outside the arena")
        spans.append((f"scratch@{step}", None, ARENA_MEM_ID, off, off + size, step, step))
    spans.sort(key=lambda x: (x[2], x[3]))
    for i, a in enumerate(spans):
        for b in spans[i + 1:]:
            if b[2] != a[2] or b[3] >= a[4]:
                break  # sorted by offset: nothing further overlaps a
            if a[4] == a[3] or b[4] == b[3]:
                continue  # empty tensors occupy no bytes
            if a[5] <= b[6] and b[5] <= a[6]:
                if a[1] in lv.life and b[1] in lv.life and _legit_in_place(spec, lv, a[1], b[1]):
                    continue
                raise PlanError(f"{a[0]} [{a[3]}, {a[4]}) and {b[0]} [{b[3]}, {b[4]}) overlap "
                                f"while both live (steps {a[5]}-{a[6]} and {b[5]}-{b[6]})")
