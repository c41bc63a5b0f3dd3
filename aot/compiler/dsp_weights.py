"""Pre-widened int8 conv weights for the Cortex-M DSP kernel (a ProgramSpec pass
between lowering and memory planning).

The DSP conv2d_s8 kernel (cmsis/op_mote_conv2d_s8.c) multiplies int16 pairs
with SMLAD. Without help it widens its weight rows into the arena at run time
(up to 16 KiB of scratch per call, ``mote_s8_conv_dsp_rows``). With this pass
the program carries the widened rows as one more constant per conv (int16,
argument 12 of the 14-argument ``mote::conv2d_s8.out``), read straight from
flash: the call's scratch drops by that panel, and the flash grows by two bytes
per weight (the int8 weights stay: the reference and MVE kernels, and the DSP
kernel's zero-point correction, read them). The layout is the kernel's: rows in
pairs (an odd last row paired with itself), per pair and group of four taps
``[a0 a2 a1 a3 b0 b2 b1 b3]`` (SXTB16 order), K = KH*KW*Cin zero-padded to a
multiple of 4; ``mote_s8_conv_panel_numel`` in kernels/requant.h checks it.

When every channel of the call admits the kernel's fast requantization
(``fast_table``), the panel holds twice the weights (the fast path sums 2 * acc)
and ends with that requantization table too, so the kernel reads the
zero-point-corrected bias from flash instead of summing the weights at every call: per pair of rows 10 int32 words (20 int16 elements),
``2bc_a 2bc_a 2bc_b 2bc_b M_a rz_a e_a M_b rz_b e_b`` with bc = bias - in_zp * sum w
(int32, wrapping), e = -shift and rz = 2^(e-1) + (out_zp << e)
(``mote_s8_conv_table_numel``; the kernel checks e, M and the bound again).

linear_s8 takes argument 9 in one of two forms (``add_dsp_weights``'s ``linear``):
its int16 panel (weights by blocks of four rows, pre-widened, and the table; round8(K)
<= 256: the fastest form, 2 more flash bytes per weight) or its int32 table alone
(``linear_table``: the kernel reads the int8 weights in place, 16 bytes per four
output features; any K, the form --opt size keeps).
"""
from __future__ import annotations

import numpy as np

from aot import ir
from aot.compiler.dsp_calls import (  # noqa: F401 (the DSP facts, used here and by importers)
    CONV, CONV_NCHW, LINEAR, PANEL_ARG, LINEAR_PANEL_ARG, LINEAR_KMAX, INT16, INT32, INT8, has_panel, has_table, is_conv, EFORM_E, EFORM_MARK, EFORM_KMAX, EFORM_PWMAX, EFORM_K8)
from aot.compiler.scratch import eform_pw, has_eform  # noqa: F401 (re-exported)


def panel(weight: np.ndarray) -> np.ndarray:
    """int16 panel of an int8 conv weight [Cout, KH, KW, Cin] (layout: module docstring)."""
    cout = weight.shape[0]
    w = weight.reshape(cout, -1).astype(np.int16)
    k = w.shape[1]
    kp = (k + 3) & ~3
    rows = np.zeros(((cout + 1) & ~1, kp), np.int16)
    rows[:cout, :k] = w
    if cout % 2:
        rows[cout] = rows[cout - 1]
    g = rows.reshape(-1, 2, kp // 4, 4)[:, :, :, [0, 2, 1, 3]]   # pair, row, group, tap
    return np.ascontiguousarray(g.transpose(0, 2, 1, 3)).reshape(-1)


def _wrap32(v: np.ndarray) -> np.ndarray:
    return ((np.asarray(v, np.int64) + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int64)


def fast_table(weight: np.ndarray, bias, mult, shift, in_zp: int, out_zp: int):
    """The DSP kernel's fast requantization table (int32 [10 * round2(Cout) / 2],
    layout: module docstring) of a conv2d_s8 call, or None when a channel does not
    admit it: shift in [-22, -1], multiplier in (2^30, 2^31) and
    |bias - in_zp * sum w| + K * 2^14 < 2^30 (cmsis/mote_s8_arm.h, mote_s8_fast_ok)."""
    cout = weight.shape[0]
    w = weight.reshape(cout, -1).astype(np.int64)
    k = w.shape[1]
    bias, mult, shift = (np.asarray(a, np.int64).reshape(cout) for a in (bias, mult, shift))
    bc = _wrap32(bias - int(in_zp) * w.sum(1))
    if not (np.all((shift >= -22) & (shift <= -1)) and np.all(mult > (1 << 30))
            and np.all(np.abs(bc) + k * 16384 < (1 << 30))):
        return None
    e = -shift
    rz = _wrap32((1 << (e - 1)) + (int(out_zp) << e))
    rows = list(range(cout)) + ([cout - 1] if cout % 2 else [])
    t = []
    for a, b in zip(rows[0::2], rows[1::2]):
        t += [2 * bc[a], 2 * bc[a], 2 * bc[b], 2 * bc[b],
              mult[a], rz[a], e[a], mult[b], rz[b], e[b]]
    return _wrap32(np.array(t, np.int64)).astype(np.int32)


def eform_table(weight: np.ndarray, bias, mult, shift, in_zp: int, out_zp: int, act=(-128, 127)):
    """(scale, table) of the E-form of the fast table for a conv2d_s8 call
    (kernels/requant.h, MOTE_S8_EFORM_E), or None when it does not admit it:
    K <= EFORM_KMAX, Cout even, out_zp = -128 and ``act`` = (-128, 127) (a fused ReLU:
    no sign correction), every channel fast (fast_table) with d = E - e in [1, 7] and
    (|bc| + K * 2^14) * 2^(1 + d) < 2^31. scale: per channel 2^(1 + d), the factor of
    its panel weights (int16: |w| * 2^8 <= 2^15); table: per pair 2^(1+d) bc twice
    for each row, then M, 2^(E-1) + (out_zp << E) + 2^(d-1), MARK | d of each."""
    cout = weight.shape[0]
    k = int(np.prod(weight.shape[1:]))
    if k > EFORM_KMAX or cout % 2 or int(out_zp) != -128 or tuple(int(a) for a in act) != (-128, 127):
        return None
    t = fast_table(weight, bias, mult, shift, in_zp, out_zp)
    if t is None:
        return None
    t = t.astype(np.int64).reshape(-1, 10)
    bc = t[:, [0, 2]].reshape(-1) // 2                     # per channel, row order
    e = t[:, [6, 9]].reshape(-1)
    d = EFORM_E - e
    if not (np.all((d >= 1) & (d <= 7)) and np.all((np.abs(bc) + k * 16384) << (1 + d) < (1 << 31))):
        return None
    scale = np.left_shift(1, 1 + d)
    rz = (1 << (EFORM_E - 1)) + (int(out_zp) << EFORM_E) + np.left_shift(1, d - 1)
    b = (bc * scale).reshape(-1, 2)
    f = (EFORM_MARK | d).reshape(-1, 2)
    rz = rz.reshape(-1, 2)
    m = t[:, [4, 7]]
    out = np.stack([b[:, 0], b[:, 0], b[:, 1], b[:, 1], m[:, 0], rz[:, 0], f[:, 0],
                    m[:, 1], rz[:, 1], f[:, 1]], axis=1).reshape(-1)
    return scale, _wrap32(out).astype(np.int32)


def call_panel(weight: np.ndarray, bias, mult, shift, in_zp: int, out_zp: int, act=None) -> np.ndarray:
    """The int16 constant of a conv2d_s8 call: its panel, then its fast table
    (as little-endian int16 pairs) when it has one. With the table the panel holds
    twice the weights (-256..254): the fast requantization takes 2 * acc, which
    then comes out of the raw column without doubling it. ``act`` (act_min, act_max)
    given: the E-form (eform_table: each row scaled by its 2^(1 + d), the E-form
    table) when the call admits it (any variant: the RGB stem's conv_stem3_rows
    runs it too)."""
    p = panel(weight)
    if act is not None:
        et = eform_table(weight, bias, mult, shift, in_zp, out_zp, act)
        if et is not None:
            scale, t = et
            rows = p.reshape(weight.shape[0] // 2, -1, 2, 4)       # pair, group, row, 4
            rows = rows * scale.reshape(-1, 1, 2, 1)
            return np.concatenate([rows.reshape(-1), t.astype("<i4").view("<i2")]).astype(np.int16)
    t = fast_table(weight, bias, mult, shift, in_zp, out_zp)
    if t is None:
        return p
    return np.concatenate([2 * p, t.astype("<i4").view("<i2").astype(np.int16)])




PERMUTE = ("aten::permute_copy", "out")
#: the K order of the NCHW stem's column (cmsis/op_mote_conv2d_s8.c CONV_STEM3N_COL):
#: position k holds the tap of NHWC K index NCHW_K[k] ((row * 3 + x) * 3 + channel;
#: 27 is the panel's zero pad: the column's byte before plane 2's last row there)
NCHW_K = (0, 9, 6, 15, 18, 1, 24, 7, 10, 19, 16, 25, 2, 11, 8, 17,
          20, 27, 26, 23, 3, 21, 12, 4, 13, 5, 22, 14)


def nchw_panel(p: np.ndarray, cout: int) -> np.ndarray:
    """The int16 constant of a STEM3X3C3 call (call_panel: rows of K = 28 in pairs,
    groups of four taps in SXTB16 order, then the table) with the taps of every row
    put in the NCHW column's order (NCHW_K); the table is unchanged (it sums the
    weights, in any order)."""
    n = ((cout + 1) & ~1) * 28
    rows = p[:n].reshape(-1, 7, 2, 4)[..., [0, 2, 1, 3]]        # pair, group, row, tap 4g+j
    k = rows.transpose(0, 2, 1, 3).reshape(-1, 2, 28)[:, :, list(NCHW_K)]
    out = k.reshape(-1, 2, 7, 4).transpose(0, 2, 1, 3)[..., [0, 2, 1, 3]]
    return np.concatenate([out.reshape(-1), p[n:]]).astype(p.dtype)


def nchw_stem_pass(spec: ir.ProgramSpec) -> int:
    """Where an int8 NCHW tensor (the program input with int8 I/O, else its quantized
    copy) is permuted to NHWC (``aten::permute_copy`` [0, 2, 3, 1])
    for one STEM3X3C3 conv2d_s8 call alone that carries the DSP kernel's table (Cout
    even: the kernel's conv_stem3_rows), that call becomes ``mote::conv2d_s8_nchw`` on
    that tensor itself (its panel's taps in the NCHW column's order, nchw_panel) and
    the permute goes: the same bytes out, one copy of the input less. Returns the number
    of calls changed."""
    from aot.compiler.liveness import call_tensors
    from aot.compiler.scratch import conv_code, conv_has_table
    uses: dict = {}
    for step, c in enumerate(spec.instructions):
        for v in set(call_tensors(spec, c)):
            uses.setdefault(v, []).append(step)
    drop = []
    for step, pc in enumerate(spec.instructions):
        if not isinstance(pc, ir.KernelCall) or (pc.op, pc.overload) != PERMUTE:
            continue
        src, dims, t = pc.args[0], spec.values[pc.args[1]], pc.args[-1]
        if spec.values[src].dtype != INT8 or t in spec.outputs or not isinstance(dims, ir.IntListValue) \
                or [int(d) for d in dims.items] != [0, 2, 3, 1] or len(uses.get(t, [])) != 2:
            continue
        c = spec.instructions[[s for s in uses[t] if s != step][0]]
        if not is_conv(c) or (c.op, c.overload) != CONV or c.args[0] != t or t in c.args[1:-1] \
                or conv_code(spec, c) != 4 or int(spec.values[c.args[-1]].sizes[3]) % 2:
            continue
        if not conv_has_table(spec, c):
            continue
        pv = spec.values[c.args[PANEL_ARG]]
        p = nchw_panel(np.frombuffer(pv.constant, "<i2"), int(spec.values[c.args[-1]].sizes[3]))
        spec.values.append(ir.TensorValue(sizes=[int(p.size)], dtype=INT16, dim_order=[0],
                                          constant=p.astype("<i2").tobytes(), name=f"{pv.name}_nchw", origin=ir.derived_origin(pv, "NCHW panel")))
        if len(uses.get(c.args[PANEL_ARG], [])) == 1:
            spec.values[c.args[PANEL_ARG]] = None
        c.args[PANEL_ARG] = len(spec.values) - 1
        c.op, c.args[0] = CONV_NCHW[0], src
        spec.values[t] = None
        drop.append(step)
    for step in reversed(drop):
        del spec.instructions[step]
    return len(drop)


def linear_panel(weight: np.ndarray, bias, mult, shift, in_zp: int, out_zp: int):
    """The int16 panel of a linear_s8 call (weight int8 [N, K]) for the DSP kernel,
    or None when it has none (round8(K) > LINEAR_KMAX, or a row without the fast
    requantization): rows in blocks of four (rows past N zero), per block and group
    of four taps the rows' SXTB16 pairs [r0 r2 r1 r3] in row order, K zero-padded to
    8; then per block 16 int32: 2bc of the four rows, and M rz e of each (rows past
    N: 0 and 2^30 + 1, 1, 1). mote_s8_linear_panel_numel checks the size."""
    n, k = weight.shape
    k8 = (k + 7) & ~7
    if k8 > LINEAR_KMAX:
        return None
    t = fast_table(weight.reshape(n, 1, 1, k), bias, mult, shift, in_zp, out_zp)
    if t is None:
        return None
    n4 = (n + 3) & ~3
    rows = np.zeros((n4, k8), np.int16)
    rows[:n, :k] = weight
    g = rows.reshape(n4 // 4, 4, k8 // 4, 4)[:, :, :, [0, 2, 1, 3]]   # block, row, group, tap
    w16 = np.ascontiguousarray(g.transpose(0, 2, 1, 3)).reshape(-1)
    # the conv table's pairs regrouped by four rows
    pairs = t.astype(np.int64).reshape(-1, 10)
    b2 = np.zeros(n4, np.int64)
    mre = np.tile(np.array([(1 << 30) + 1, 1, 1], np.int64), (n4, 1))
    for r in range(n):
        q, j = divmod(r, 2)
        b2[r] = pairs[q, 2 * j]
        mre[r] = pairs[q, 4 + 3 * j:7 + 3 * j]
    tab = np.concatenate([b2.reshape(-1, 4), mre.reshape(-1, 12)], axis=1).reshape(-1)
    return np.concatenate([w16, _wrap32(tab).astype("<i4").view("<i2").astype(np.int16)])


def linear_table(weight: np.ndarray, bias, mult, shift, in_zp: int, out_zp: int):
    """The int32 requantization table of a linear_s8 call (weight int8 [N, K]) for
    the DSP kernel that reads the int8 weights in place, four rows at a time (no
    copy of the weights: 16 words per block of four rows), or None when it has
    none (N < 4, K < 4, or a row without the fast requantization). Blocks start at
    rows 0, 4, 8, ... and the last at N - 4 (overlapping the one before when
    N % 4 != 0); each is linear_panel's block table: 2bc of the four rows, then
    M, rz, e of each. mote_s8_linear_table_numel checks the size."""
    n, k = weight.shape
    if n < 4 or k < 4:
        return None
    t = fast_table(weight.reshape(n, 1, 1, k), bias, mult, shift, in_zp, out_zp)
    if t is None:
        return None
    pairs = t.astype(np.int64).reshape(-1, 10)
    blocks = []
    for r0 in [min(r, n - 4) for r in range(0, n, 4)]:
        b2, mre = [], []
        for r in range(r0, r0 + 4):
            q, j = divmod(r, 2)
            b2.append(pairs[q, 2 * j])
            mre += pairs[q, 4 + 3 * j:7 + 3 * j].tolist()
        blocks += b2 + mre
    return _wrap32(np.array(blocks, np.int64)).astype(np.int32)


#: --opt speed: a linear layer's int16 panel where round8(K) fits it, else its table;
#: size: the table alone (the flash-lean form: 16 bytes per four output features)
LINEAR_MODES = ("panel", "table", "none")


def linear_constant(weight: np.ndarray, bias, mult, shift, in_zp: int, out_zp: int,
                    mode: str = "panel"):
    """Argument 9 of a linear_s8 call for the DSP kernel: its int16 panel
    (linear_panel) when ``mode`` is "panel" and it has one, else its int32 table
    (linear_table) when it has one, else None."""
    if mode == "panel":
        p = linear_panel(weight, bias, mult, shift, in_zp, out_zp)
        if p is not None:
            return p.astype(np.int16)
    if mode in ("panel", "table"):
        return linear_table(weight, bias, mult, shift, in_zp, out_zp)
    return None


#: instructions per MAC of the DSP linear_s8 cores' inner loops (cmsis/op_mote_linear_s8.c):
#: the panel core 21 per 32 MACs, the table core (int8 weights in place) 23 per 16
PANEL_INSTR_PER_MAC = 21 / 32
TABLE_INSTR_PER_MAC = 23 / 16


def _linear_trade(w: np.ndarray, b, m, sh, in_zp: int, out_zp: int, trade: dict) -> None:
    """Add one linear_s8 layer to ``trade`` (spec.plan_info["linear_trade"]): the
    flash of its int16 panel and of its table alone, and its MACs, when it admits both."""
    p = linear_panel(w, b, m, sh, in_zp, out_zp)
    t = linear_table(w, b, m, sh, in_zp, out_zp)
    if p is not None and t is not None:
        trade["layers"] += 1
        trade["panel_bytes"] += 2 * int(p.size)
        trade["table_bytes"] += 4 * int(t.size)
        trade["macs"] += int(w.size)


def linear_trade_line(trade: dict) -> str:
    """One line for `aot build`: what the linear layers that admit both forms cost
    in program flash as int16 panels (--opt speed) and as tables alone (--opt
    size), and the inner loops' instructions per inference the panels save."""
    d = trade["panel_bytes"] - trade["table_bytes"]
    saved = round(trade["macs"] * (TABLE_INSTR_PER_MAC - PANEL_INSTR_PER_MAC))
    form = "int16 panels" if trade["opt"] == "speed" else "tables"
    return (f"--opt {trade['opt']}: {trade['layers']} linear layer(s) as {form}; "
            f"int16 panels take {trade['panel_bytes']:,} B of program flash, tables alone {trade['table_bytes']:,} B "
            f"({d:+,} B for about {saved:,} fewer instructions per inference, inner loops)")


def _add_linear_panel(spec: ir.ProgramSpec, call: ir.KernelCall, mode: str = "panel", trade: bool = True) -> int:
    """Argument 9 of a linear_s8 (10 kernel arguments) with constant weights and
    channel tensors that admits a panel or table (linear_constant); the bytes
    added (0 if none)."""
    vals = [spec.values[call.args[i]] for i in (1, 2, 3, 4)]
    if not all(isinstance(v, ir.TensorValue) and v.constant is not None for v in vals):
        return 0
    w = np.frombuffer(vals[0].constant, np.int8).reshape(vals[0].sizes)
    b, m, sh = (np.frombuffer(v.constant, "<i4") for v in vals[1:])
    zps = (spec.values[call.args[5]], spec.values[call.args[6]])
    if mode != "none" and trade:   # DSP boards: the panel / table trade --opt chooses
        book = spec.plan_info.setdefault("linear_trade", {"opt": "speed" if mode == "panel" else "size",
                                                           "layers": 0, "panel_bytes": 0, "table_bytes": 0,
                                                           "macs": 0})
        _linear_trade(w, b, m, sh, *zps, book)
    p = linear_constant(w, b, m, sh, *zps, mode)
    if p is None:
        return 0
    p = p.astype("<i2" if p.dtype == np.int16 else "<i4")
    spec.values.append(ir.TensorValue(sizes=[int(p.size)], dtype=ir.NUMPY_CODES[np.dtype(p.dtype.type)],
                                      dim_order=[0], constant=p.tobytes(),
                                      name=f"{vals[0].name}_{'dsp' if p.dtype == np.int16 else 'rq'}",
                                      origin=ir.derived_origin(vals[0], 'DSP panel' if p.dtype == np.int16 else 'requantization table')))
    call.args.insert(LINEAR_PANEL_ARG, len(spec.values) - 1)
    return p.nbytes


DW = ("mote::depthwise_conv2d_s8", "out")
#: argument index of the per-channel record in the 14-argument depthwise_conv2d_s8
DW_RECORD_ARG = 13
#: int32 words of one channel's record (cmsis/mote_s8_planar.h dwp_job_t's first fields)
DW_RECORD_WORDS = 10


def dw_record(weight: np.ndarray, bias, mult, shift, out_zp: int, transpose: bool):
    """The DSP depthwise plane's per-channel record (int32 [10 * C]) of a 3x3
    depthwise_conv2d_s8 call whose channels all take the E-form (kernels/requant.h
    mote_s8_dw_planar_eform, C a multiple of 4), or None: per channel the job words of
    cmsis/mote_s8_planar.h in order, bias * 2^s, then per kernel row of the plane (its
    columns when ``transpose``: mote_s8_dw_planar_transposed) the int16 pairs
    (w0, w1) * 2^s and (w2, w1) * 2^s (low half first), the multiplier,
    rz = 2^11 + (out_zp << 12) + 2^(11 - e) and e, with e = -shift and s = 13 - e.
    The kernel copies a channel's record instead of deriving it (dwp_job)."""
    from aot.compiler.scratch import _scratch_library
    w = np.asarray(weight, np.int64)
    if w.ndim != 4 or w.shape[:3] != (1, 3, 3) or w.shape[3] % 4:
        return None
    c = w.shape[3]
    bias, mult, shift = (np.asarray(a, np.int64).reshape(c) for a in (bias, mult, shift))
    lib = _scratch_library()
    if not all(lib.mote_variant_dw_planar_eform(int(out_zp), int(sh), int(b)) for sh, b in zip(shift, bias)):
        return None
    out = np.zeros((c, DW_RECORD_WORDS), np.int64)
    for k in range(c):
        e = -int(shift[k])
        s = 13 - e
        taps = w[0, :, :, k].T if transpose else w[0, :, :, k]   # [kernel row of the plane, tap]
        t = taps * (1 << s)
        words = []
        for r in range(3):
            words += [(t[r, 0] & 0xffff) | ((t[r, 1] & 0xffff) << 16), (t[r, 2] & 0xffff) | ((t[r, 1] & 0xffff) << 16)]
        out[k] = [int(bias[k]) << s, *words, int(mult[k]), (1 << 11) + (int(out_zp) << 12) + (1 << (11 - e)), e]
    return _wrap32(out.reshape(-1)).astype(np.int32)


def has_dw_record(spec: ir.ProgramSpec, call: ir.KernelCall) -> bool:
    """True if depthwise_conv2d_s8 ``call`` carries its per-channel record (argument 13,
    an int32 tensor: dw_record)."""
    if (call.op, call.overload) != DW or len(call.args) != DW_RECORD_ARG + 3:
        return False
    v = spec.values[call.args[DW_RECORD_ARG]]
    return isinstance(v, ir.TensorValue) and v.dtype == INT32


def _add_dw_record(spec: ir.ProgramSpec, call: ir.KernelCall) -> int:
    """Argument 13 of a depthwise_conv2d_s8 call (13 kernel arguments, then out) with constant weights
    and channel tensors on the DSP plane path in the E-form: its record (dw_record); the
    bytes added (0 if none)."""
    from aot.compiler.scratch import DW_DSP_PLANES, dw_code, dw_planar_form
    vals = [spec.values[call.args[i]] for i in (1, 2, 3, 4)]
    if not all(isinstance(v, ir.TensorValue) and v.constant is not None for v in vals) or \
            not dw_code(spec, call) & DW_DSP_PLANES:
        return 0
    w = np.frombuffer(vals[0].constant, np.int8).reshape(vals[0].sizes)
    b, m, sh = (np.frombuffer(v.constant, "<i4") for v in vals[1:])
    r = dw_record(w, b, m, sh, int(spec.values[call.args[10]]), bool(dw_planar_form(spec, call) & 1))
    if r is None:
        return 0
    r = r.astype("<i4")
    spec.values.append(ir.TensorValue(sizes=[int(r.size)], dtype=INT32, dim_order=[0], constant=r.tobytes(),
                                      name=f"{vals[0].name}_rec", origin=ir.derived_origin(vals[0], "depthwise record")))
    call.args.insert(DW_RECORD_ARG, len(spec.values) - 1)
    return r.nbytes


def add_dsp_weights(spec: ir.ProgramSpec, linear="panel", conv: bool = True) -> int:
    """Give every 13-argument conv2d_s8 call of ``spec`` its pre-widened weights
    (a new int16 constant as argument 12), and every linear_s8 its argument 9 by
    ``linear`` (LINEAR_MODES; True is "panel", False "none"): "panel" the int16
    panel where it fits (linear_panel; 2 bytes of flash per weight, the fastest
    form), else the int32 table (linear_table; 16 bytes per four features, the
    weights read in place); "table" the table alone (--opt size; and MVE boards,
    with ``conv`` False: the MVE convs take no panel); "none" neither. With ``conv``,
    every 13-argument depthwise_conv2d_s8 on the DSP planes in the E-form gets its
    per-channel record as argument 13 (dw_record).
    Returns the constant bytes added, also kept as spec.plan_info["dsp_weights_bytes"]."""
    mode = {True: "panel", False: "none"}.get(linear, linear)
    if mode not in LINEAR_MODES:
        raise ValueError(f"linear: one of {LINEAR_MODES}, got {linear!r}")
    added = 0
    for call in spec.instructions:
        if (call.op, call.overload) == LINEAR:
            if not has_panel(spec, call) and not has_table(spec, call):
                added += _add_linear_panel(spec, call, mode, trade=conv)
            continue
        if conv and (call.op, call.overload) == DW and len(call.args) == DW_RECORD_ARG + 2:
            added += _add_dw_record(spec, call)
            continue
        if not conv or (call.op, call.overload) != CONV or has_panel(spec, call):
            continue
        wv = spec.values[call.args[1]]
        if wv.constant is None:
            continue  # weights computed at run time: the kernel widens them itself
        w = np.frombuffer(wv.constant, np.int8).reshape(wv.sizes)
        chans = [spec.values[call.args[i]] for i in (2, 3, 4)]
        zps = [spec.values[call.args[i]] for i in (8, 9)]
        if all(isinstance(v, ir.TensorValue) and v.constant is not None for v in chans):
            b, m, sh = (np.frombuffer(v.constant, "<i4") for v in chans)
            act = (int(spec.values[call.args[10]]), int(spec.values[call.args[11]]))
            p = call_panel(w, b, m, sh, *zps, act=act).astype("<i2")
        else:
            p = panel(w).astype("<i2")
        spec.values.append(ir.TensorValue(sizes=[int(p.size)], dtype=INT16,
                                          dim_order=[0], constant=p.tobytes(),
                                          name=f"{wv.name}_dsp", origin=ir.derived_origin(wv, "DSP panel")))
        call.args.insert(PANEL_ARG, len(spec.values) - 1)
        added += p.nbytes
    if conv:
        nchw_stem_pass(spec)
    spec.plan_info["dsp_weights_bytes"] = added
    return added
