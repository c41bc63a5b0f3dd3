"""Layout choice per tensor (a ProgramSpec pass on the lowered int8 program,
between lowering and memory planning).

int8 activations are NHWC (docs/int8-ops.md). A depthwise convolution wants
its input planar instead: channel-major, int16, the input zero point already
subtracted and a zero border of its padding, so its Cortex-M inner loop is
loads and SMLAD/SMLADX only (cmsis/op_mote_depthwise_planar16_s8.c). Where a
pointwise (1x1, stride 1, unpadded) ``mote::conv2d_s8`` writes a tensor that
only a depth-multiplier-1 ``mote::depthwise_conv2d_s8`` reads, the pair can
become

    mote::pointwise_s8_planar16   (int8 NHWC -> int16 [N, C, H+2ph, W+2pw])
    mote::depthwise_planar16_s8   (that -> int8 NHWC, for the next pointwise)

with the same output bytes (aot.compiler.quant.int8ref is the contract: the
pointwise's input zero point is folded into its bias here, ahead of time).
The planar tensor is 2*(H+2ph)*(W+2pw)*C bytes, about 2.4x its int8 NHWC
form, and the planar depthwise cannot run in place, so the choice is per
tensor against a RAM budget:

- ``"auto"`` (default): a pair takes the planar layout where it is faster
  (:func:`planar_pays`: with today's kernels nowhere, the DSP depthwise widens its
  own input planes in scratch) and the arena planned with it is no larger than
  the arena of the all-NHWC program (the pairs are tried one at a time, the most
  depthwise MACs first, each kept only if the arena stays within that budget);
- ``"planar"``: every pair planar (the arena grows; for measurements and for
  kernels to come);
- ``"nhwc"``: none (the int8 layouts of docs/int8-ops.md only).

The plan itself needs no special case: the planar tensor is an ordinary int16
value of its true size, and neither new kernel declares an in-place marker.
``spec.plan_info["layouts"]`` reports each candidate: the tensor, its bytes
NHWC and planar, whether it was taken and the arena with and without it.
"""
from __future__ import annotations

import copy
from typing import Callable, Optional

import numpy as np

from aot import ir
from aot.compiler.quant import int8ref
from aot.compiler.scratch import (  # noqa: F401 (re-exported: the planes' keys and sizes)
    DW_PLANES2, DW_PLANES4, dw_planes2_bytes, dw_planes4_bytes)

MODES = ("auto", "planar", "nhwc")
PW = ("mote::conv2d_s8", "out")
DW = ("mote::depthwise_conv2d_s8", "out")
PW_PLANAR = ("mote::pointwise_s8_planar16", "out")
DW_PLANAR = ("mote::depthwise_planar16_s8", "out")
INT16 = ir.NUMPY_CODES[np.dtype(np.int16)]
INT32 = ir.NUMPY_CODES[np.dtype(np.int32)]
INT8 = ir.NUMPY_CODES[np.dtype(np.int8)]
#: schema argument count (without out) of conv2d_s8 / depthwise_conv2d_s8
_PW_ARGS, _DW_ARGS = 12, 13


def _ints(spec: ir.ProgramSpec, i: int) -> Optional[list]:
    v = spec.values[i]
    return [int(x) for x in v.items] if isinstance(v, ir.IntListValue) else None


def _pair(items: Optional[list]) -> Optional[list]:
    if items is None or len(items) not in (1, 2):
        return None
    return items * 2 if len(items) == 1 else items


def candidates(spec: ir.ProgramSpec) -> list:
    """(pointwise step, depthwise step) of every pair that may go planar: the
    pointwise a 1x1 stride-1 unpadded conv2d_s8 (13 arguments: no DSP panel)
    with constant weight and bias, its output read by nothing but the
    depthwise's input (not a program output, no view of it), the depthwise of
    depth multiplier 1 and input zero point the pointwise's output zero point."""
    uses: dict = {}
    for step, call in enumerate(spec.instructions):
        for a in set(call.args):
            uses.setdefault(a, []).append(step)
    io = set(spec.inputs) | set(spec.outputs)
    found = []
    for step, call in enumerate(spec.instructions):
        if not isinstance(call, ir.KernelCall) or (call.op, call.overload) != PW:
            continue
        if len(call.args) != _PW_ARGS + 2:
            continue
        x, w, b = (spec.values[call.args[i]] for i in range(3))
        out = call.args[_PW_ARGS]
        if w.constant is None or b.constant is None or len(w.sizes) != 4 or w.sizes[1:3] != [1, 1]:
            continue
        if _pair(_ints(spec, call.args[5])) != [1, 1] or _pair(_ints(spec, call.args[6])) != [0, 0]:
            continue
        readers = [s for s in uses.get(out, []) if s != step]
        if out in io or len(readers) != 1:
            continue
        d = spec.instructions[readers[0]]
        if not isinstance(d, ir.KernelCall) or (d.op, d.overload) != DW or len(d.args) != _DW_ARGS + 2:
            continue
        if d.args[0] != out or out in d.args[1:_DW_ARGS]:
            continue
        if spec.values[d.args[8]] != 1 or spec.values[d.args[9]] != spec.values[call.args[9]]:
            continue
        if _pair(_ints(spec, d.args[6])) is None:
            continue
        found.append((step, readers[0]))
    return found


def planar_pays(spec: ir.ProgramSpec, pair, dsp: bool) -> Optional[str]:
    """None if the planar pair is expected to run faster than the NHWC pair, else
    why not (one phrase). With today's kernels it never is (QEMU instruction
    counts, tests/e2e/test_int8_kernels_qemu.py): on the DSP cores the NHWC
    depthwise widens each channel's input into an int16 plane in scratch itself
    (about 4 instructions per input, no RAM beyond one plane) and then runs the
    same SMLAD plane kernel, while the planar pointwise is slower than conv2d_s8's
    (0.83 against 1.14 MACs per instruction at K = 64: +187,000 instructions on
    MobileNet's 12x12x64 pair against 37,000 for the depthwise's widening); on the
    M55 the NHWC MVE pointwise is faster still (2.08 against 1.64)."""
    if not dsp:
        return "no DSP kernels: the NHWC pair is faster (MVE pointwise)"
    return "the NHWC pair is faster: the DSP depthwise widens its own planes, conv2d_s8's pointwise is faster"


def _const_of(spec: ir.ProgramSpec, i: int, dtype) -> np.ndarray:
    v = spec.values[i]
    return np.frombuffer(v.constant, dtype).reshape(v.sizes)


def apply(spec: ir.ProgramSpec, pairs, panels: bool = False) -> int:
    """Rewrite each (pointwise step, depthwise step) of ``pairs`` into the planar
    pair, in place (new values appended: the folded bias and the border; with
    ``panels`` the pointwise's weights pre-widened for the DSP kernel as argument
    9, aot.compiler.dsp_weights.panel). Returns the panels' bytes."""
    from aot.compiler.dsp_weights import panel
    added = 0
    replaced = []
    for ps, ds in pairs:
        pc, dc = spec.instructions[ps], spec.instructions[ds]
        a = pc.args
        out = a[_PW_ARGS]
        w = _const_of(spec, a[1], np.int8)
        bias = _const_of(spec, a[2], np.int32)
        folded = int8ref.fold_input_zero_point(w, bias, int(spec.values[a[8]])).astype("<i4")
        bv = spec.values[a[2]]
        replaced.append(a[2])
        spec.values.append(ir.TensorValue(sizes=list(bv.sizes), dtype=INT32, dim_order=[0],
                                          constant=folded.tobytes(), name=f"{bv.name}_folded", origin=ir.derived_origin(bv, "zero point folded")))
        fb = len(spec.values) - 1
        border = _pair(_ints(spec, dc.args[6]))
        spec.values.append(ir.IntListValue(items=list(border)))
        bd = len(spec.values) - 1
        t = spec.values[out]
        n, h, wd, _ = t.sizes
        cout = int(w.shape[0])
        t.sizes = [n, cout, h + 2 * border[0], wd + 2 * border[1]]
        t.dtype = INT16
        t.dim_order = [0, 1, 2, 3]
        # pointwise: input, weight, folded bias, multiplier, shift, border, out zp, clamp
        pc.op, pc.overload = PW_PLANAR
        pc.args = [a[0], a[1], fb, a[3], a[4], bd, a[9], a[10], a[11], out, out]
        if panels:
            wv = spec.values[a[1]]
            pn = panel(w).astype("<i2")
            spec.values.append(ir.TensorValue(sizes=[int(pn.size)], dtype=INT16, dim_order=[0],
                                              constant=pn.tobytes(), name=f"{wv.name}_dsp", origin=ir.derived_origin(wv, "DSP panel")))
            pc.args.insert(9, len(spec.values) - 1)
            added += pn.nbytes
        pc.q = None  # the planar tensor is not the int8 value aot debug compares
        d = dc.args
        dc.op, dc.overload = DW_PLANAR
        dc.args = [d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[10], d[11], d[12], d[13], d[13]]
    _drop_unused_constants(spec, replaced)
    return added


def _drop_unused_constants(spec: ir.ProgramSpec, idxs) -> None:
    """Turn the constants of ``idxs`` (the biases replaced by their folded
    copies) into None values when nothing reads them any more, directly or
    through a tensor list: no flash for them. Indices stay."""
    used = set()
    for c in spec.instructions:
        for a in c.args:
            used.add(a)
            v = spec.values[a]
            if isinstance(v, ir.TensorListValue):
                used.update(v.items)
    for i in idxs:
        if i not in used and i not in spec.inputs and i not in spec.outputs:
            spec.values[i] = None


def _macs(spec: ir.ProgramSpec, step: int) -> int:
    from aot.compiler.macs import instruction_macs
    return instruction_macs(spec, spec.instructions[step])


def _arena(spec: ir.ProgramSpec, pairs, then, scratch_fn, planner: str, panels: bool) -> int:
    from aot.compiler.lower import set_scratch
    from aot.compiler.plan import plan_memory
    s = copy.deepcopy(spec)
    apply(s, pairs, panels)
    for p in then:
        p(s)
    if scratch_fn is not None:
        set_scratch(s, scratch_fn)
    plan_memory(s, planner=planner)
    return int(s.arena_sizes[1])


def layout_pass(mode: str = "auto", *, scratch_fn: Optional[Callable] = None, planner: str = "best",
                then=(), dsp_weights: bool = False, pays: Optional[Callable] = None) -> Callable:
    """The spec pass choosing the layouts (``mode``: :data:`MODES`). scratch_fn,
    planner and ``then`` (the spec passes that run after this one) make the
    trial plans of "auto" the plan the program gets; dsp_weights: the planar
    pointwise carries its weights pre-widened (as conv2d_s8 does with
    aot.compiler.dsp_weights: flash instead of scratch and widening time); pays:
    the speed rule of "auto" (default :func:`planar_pays`; its signature)."""
    if mode not in MODES:
        raise ValueError(f"unknown layout mode {mode!r}; choose from {MODES}")

    def run(spec: ir.ProgramSpec) -> None:
        rule = pays or planar_pays
        cands = candidates(spec)
        report = []
        chosen = []
        if cands and mode != "nhwc":
            order = sorted(cands, key=lambda c: -_macs(spec, c[1]))
            if mode == "planar":
                chosen = list(order)
            else:
                fast = [c for c in order if rule(spec, c, dsp_weights) is None]
                for c in order:
                    if c not in fast:
                        report.append({"step": c[0], "why_not": rule(spec, c, dsp_weights)})
                budget = _arena(spec, [], then, scratch_fn, planner, dsp_weights) if fast else 0
                for c in fast:
                    arena = _arena(spec, chosen + [c], then, scratch_fn, planner, dsp_weights)
                    if arena <= budget:
                        chosen.append(c)
                    report.append({"step": c[0], "arena_budget": budget, "arena_with": arena})
                    if arena > budget:
                        report[-1]["why_not"] = "the arena would grow"
        by_step = {r["step"]: r for r in report}
        rows = []
        for ps, ds in cands:
            t = spec.values[spec.instructions[ps].args[_PW_ARGS]]
            n, h, w, c = t.sizes
            bh, bw = _pair(_ints(spec, spec.instructions[ds].args[6]))
            row = {"tensor": t.name, "pointwise": spec.instructions[ps].node or spec.instructions[ps].source,
                   "depthwise": spec.instructions[ds].node or spec.instructions[ds].source,
                   "nhwc_bytes": n * h * w * c, "planar_bytes": 2 * n * c * (h + 2 * bh) * (w + 2 * bw),
                   "planar": (ps, ds) in chosen}
            row.update({k: v for k, v in by_step.get(ps, {}).items() if k != "step"})
            rows.append(row)
        panel_bytes = apply(spec, sorted(chosen), dsp_weights)
        spec.plan_info["layouts"] = {"mode": mode, "pairs": rows, "panel_bytes": panel_bytes}

    return run


#: How much planes4_pass may grow the arena at --opt speed (a fraction of the arena
#: without planes): MobileNetV1-0.25 (VWW, int8 I/O) gets four planes on its first four
#: depthwise layers for 1,328 B more arena (55,936 -> 57,264 B):
#: 9,498,374 -> 9,424,089 estimated M33 cycles.
PLANES_GROWTH = 1 / 16

#: spec.plan_info key: {"arena_without": the arena (bytes) with no call given two or four
#: planes, "budget": the most planes4_pass let the arena grow to}
DW_PLANES_ARENA = "dw_planes_arena"


def planes4_pass(*, scratch_fn: Callable, planner: str = "best", growth: float = 0.0) -> Callable:
    """The spec pass (DSP boards, after the passes that change calls) that gives a
    depthwise_conv2d_s8 call taking the DSP plane path (aot.compiler.scratch.dw_planar)
    scratch for four int16 planes where the arena does not grow by more than `growth`
    (a fraction of the arena of the program without any; 0: not at all): the kernel
    then widens four channels per call (cmsis/op_mote_depthwise_conv2d_s8.c dw_widen4,
    about 2.2 instructions per input value against 3.8 one plane at a time). Calls are
    tried the most input values first, each kept only if the planned arena stays within
    that budget (spec.plan_info[DW_PLANES4]: the steps, in order); the calls left get
    two planes (dw_widen2) by the same test (spec.plan_info[DW_PLANES2]).
    spec.plan_info[DW_PLANES_ARENA] gives the arena without any and the budget (bytes)."""
    from aot.compiler.scratch import dw_planar

    def run(spec: ir.ProgramSpec) -> None:
        spec.plan_info[DW_PLANES4] = []
        cands = []
        for step, call in enumerate(spec.instructions):
            if (call.op, call.overload) != DW or not dw_planar(spec, call):
                continue
            need = dw_planes4_bytes(spec, call)
            if need and need > int(scratch_fn(spec, call) or 0):
                x = spec.values[call.args[0]]
                cands.append((-int(np.prod(x.sizes)), step))
        if not cands:
            return
        base = _arena(spec, [], (), scratch_fn, planner, False)
        budget = base + int(base * growth)
        spec.plan_info[DW_PLANES_ARENA] = {"arena_without": base, "budget": budget}
        granted = []
        for _, step in sorted(cands):
            spec.plan_info[DW_PLANES4] = sorted(granted + [step])
            if _arena(spec, [], (), scratch_fn, planner, False) <= budget:
                granted.append(step)
        spec.plan_info[DW_PLANES4] = sorted(granted)
        # the rest: two planes (dw_widen2) where those keep the arena
        spec.plan_info[DW_PLANES2] = []
        two = []
        for _, step in sorted(cands):
            call = spec.instructions[step]
            if step in granted or not dw_planes2_bytes(spec, call) or \
                    dw_planes2_bytes(spec, call) <= int(scratch_fn(spec, call) or 0):
                continue
            spec.plan_info[DW_PLANES2] = sorted(two + [step])
            if _arena(spec, [], (), scratch_fn, planner, False) <= budget:
                two.append(step)
        spec.plan_info[DW_PLANES2] = sorted(two)

    return run
