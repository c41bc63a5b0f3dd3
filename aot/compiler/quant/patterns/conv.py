"""Patterns of the ops with weights: ``dq(x) -> conv2d / conv1d / linear /
conv_transpose2d (dq(w), dq(bias)) [-> relu / relu6 / hardtanh] -> q``.

Weights are PT2E's folded int8 constants, symmetric per output channel; the
pattern computes the per-channel requantization (multiplier, shift) from
input scale * weight scale / output scale (:func:`int8ref.quantize_multiplier`),
the int32 bias (int64 with int16 activations), packs the weight for the
kernel ([Cout, KH, KW, Cin] / [1, KH, KW, Cout] / [N, K]; int4 two per byte)
and turns the fused activation into the output clamp. conv1d runs as a 2-D
conv of height 1 on its channels-last bytes.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch.fx import Node

from aot.compiler.quant import int8ref, int16ref
from aot.compiler.quant.int4ref import pack_int4
from aot.compiler.quant.opsets import BATCH_NORM_OPS, CONV_OPS, CONV_TRANSPOSE_OPS, LINEAR_OPS
from aot.compiler.quant.patterns.base import DQ_CH, INT16, Pattern, Site, int_inputs
from aot.compiler.quant.values import NHWC, NLC, QRANGE, QVal, fround, pair, tag
from aot.compiler.source import set_qparams

aten = torch.ops.aten

CONV_REASON = ("mote::conv2d_s8 / grouped_conv2d_s8 / depthwise_conv2d_s8 take an int8 input, int8 weights "
               "quantized symmetrically per output channel and a constant bias")
CONV16_REASON = ("mote::conv2d_s16 / depthwise_conv2d_s16 take an int16 input, int8 weights quantized "
                 "symmetrically per output channel, a constant bias, and groups 1 or = input channels")
LINEAR_REASON = ("mote::linear_s8 takes an int8 input, int8 weights quantized symmetrically "
                 "per output channel and a constant bias")


# ------------------------------------------------------------------ constants
def weight(lw, w, axis: int = 0):
    """(int8 weight tensor, scales float64 [Cout]) of a folded per-channel
    weight, quantized along `axis` (1 for a transposed convolution), else None."""
    if not (isinstance(w, Node) and w.target == DQ_CH and w.args[0].op == "get_attr"):
        return None
    wq = lw.attr(w.args[0])
    if wq.dtype != torch.int8 or int(w.args[3]) != axis:
        return None
    scales = lw.attr(w.args[1]).to(torch.float64)
    zps = lw.attr(w.args[2])
    if bool((zps != 0).any()):
        return None
    return wq, scales


def bias_of(lw, b):
    """('q', int32 tensor, scales) or ('f', float tensor) for a bias argument, else None."""
    if isinstance(b, Node) and b.target == DQ_CH and b.args[0].op == "get_attr":
        bq = lw.attr(b.args[0])
        if bq.dtype == torch.int32:
            return "q", bq, lw.attr(b.args[1]).to(torch.float64)
        return None
    if isinstance(b, Node) and b.op == "get_attr":
        return "f", lw.attr(b)
    return None


def int32_bias(lw, bias_arg, bscale: torch.Tensor, cout: int) -> torch.Tensor:
    """int32 [Cout] bias: PT2E's quantized bias, a float bias quantized with
    scale `bscale` (input scale * weight scale per channel), or zeros."""
    if bias_arg is None:
        return torch.zeros(cout, dtype=torch.int32)
    kind_b, *rest = bias_of(lw, bias_arg)
    if kind_b == "q":
        return rest[0].to(torch.int32)
    return torch.round(rest[0].to(torch.float64) / bscale).clamp(
        -(2 ** 31), 2 ** 31 - 1).to(torch.int32)


def int64_bias(lw, bias_arg, bscale: torch.Tensor, cout: int) -> torch.Tensor:
    """int64 [Cout] bias of an int16-activation op: the fp32 bias quantized
    at `bscale` (input scale * weight scale per channel), or zeros."""
    if bias_arg is None:
        return torch.zeros(cout, dtype=torch.int64)
    kind_b, *rest = bias_of(lw, bias_arg)
    b = rest[0].to(torch.int64) if kind_b == "q" else torch.round(rest[0].to(torch.float64) / bscale)
    return b.clamp(-int16ref.BIAS_MAX, int16ref.BIAS_MAX).to(torch.int64)


def requant(in_scale: float, w_scales: torch.Tensor, out_scale: float):
    """int32 [Cout] multipliers and shifts of in_scale * w_scales[c] / out_scale."""
    ms, ss = [], []
    for ws in w_scales.tolist():
        m, s = int8ref.quantize_multiplier(float(in_scale) * ws / float(out_scale))
        ms.append(m)
        ss.append(s)
    return torch.tensor(ms, dtype=torch.int32), torch.tensor(ss, dtype=torch.int32)


def clamp_of(act: Optional[Node], scale: float, zp: int, dtype=torch.int8):
    """[lo, hi] of an output of `dtype` (int8 / int16) with the fused activation `act`."""
    lo, hi = QRANGE[dtype]
    qmin = lo
    if act is None:
        return lo, hi
    if act.target in (aten.relu.default, aten.relu_.default):
        mn, mx = 0.0, None
    elif act.target == aten.relu6.default:
        mn, mx = 0.0, 6.0
    else:
        mn = float(act.args[1]) if len(act.args) > 1 else -1.0
        mx = float(act.args[2]) if len(act.args) > 2 else 1.0
    lo = max(lo, min(hi, zp + fround(mn, scale)))
    if mx is not None:
        hi = min(hi, max(qmin, zp + fround(mx, scale)))
    return lo, hi


def _first(a, i: int, default: int) -> int:
    """The first element of conv1d argument `i` (stride, padding, dilation), else `default`."""
    return int(list(a[i])[0]) if len(a) > i and a[i] is not None else default


def _conv_geometry(core: Node) -> tuple:
    """(stride, padding, dilation) of a conv as the 2-D kernels take them (conv1d: height 1)."""
    a = core.args
    if core.target == aten.conv1d.default:
        return [1, _first(a, 3, 1)], [0, _first(a, 4, 0)], [1, _first(a, 5, 1)]
    return (pair(a[3] if len(a) > 3 else None, [1]), pair(a[4] if len(a) > 4 else None, [0]),
            pair(a[5] if len(a) > 5 else None, [1]))


def _to_ncl(lw, site: Site, node: Node, oshape, s_out: float, zp_out: int) -> QVal:
    """A conv1d result [N, 1, L', Cout] (NHWC) as the channels-last value [N, Cout, L']."""
    tag(node, site.q.name, NLC)
    node = lw.call(aten.view_copy.default, (node, [oshape[0], oshape[2], oshape[1]]), site.core)
    return QVal(node, oshape, NLC, s_out, zp_out)


# ------------------------------------------------------------------ matching
def _weighted(lw, site: Site, axis: int = 0) -> bool:
    """An int8 activation input, a folded per-channel weight, a constant bias or none."""
    a = site.core.args
    b = a[2] if len(a) > 2 else None
    return int_inputs(a[:1]) and weight(lw, a[1], axis) is not None \
        and (b is None or bias_of(lw, b) is not None)


def _conv_groups(lw, site: Site) -> Optional[str]:
    """"conv" (groups 1), "dwconv" (groups = Cin, Cout a multiple) or "gconv"
    (1 < groups < Cin, dividing Cin and Cout: RegNet, ResNeXt) of a conv with a
    rank-4 (conv2d) / rank-3 (conv1d) input and int8 weights, else None."""
    core = site.core
    if not _weighted(lw, site):
        return None
    a = core.args
    groups = int(a[6]) if len(a) > 6 else 1
    xshape = lw.shape(a[0])
    if len(xshape) != (4 if core.target == aten.conv2d.default else 3):
        return None
    if groups == 1:
        return "conv"
    if groups == xshape[1] and lw.shape(core)[1] % xshape[1] == 0:
        return "dwconv"
    if 1 < groups < xshape[1] and xshape[1] % groups == 0 and lw.shape(core)[1] % groups == 0:
        return "gconv"
    return None


def match_conv(lw, site: Site) -> bool:
    return _conv_groups(lw, site) == "conv"


def match_dwconv(lw, site: Site) -> bool:
    if site.core.target in BATCH_NORM_OPS:
        return match_bn(lw, site)
    return _conv_groups(lw, site) == "dwconv"


def match_gconv(lw, site: Site) -> bool:
    return _conv_groups(lw, site) == "gconv"


def match_linear(lw, site: Site) -> bool:
    return _weighted(lw, site)


def match_linear_s4(lw, site: Site) -> bool:
    """A linear whose weights PT2E quantized to [-8, 7] (--int8 --int4-weights), rows of even length."""
    w = site.core.args[1]
    return _weighted(lw, site) and (int(w.args[4]), int(w.args[5])) == (-8, 7) \
        and weight(lw, w)[0].shape[1] % 2 == 0


def match_tconv(lw, site: Site) -> bool:
    return _weighted(lw, site, axis=1) and len(lw.shape(site.core.args[0])) == 4


# ------------------------------------------------------------------ emission
def emit_conv(lw, site: Site) -> QVal:
    """mote::conv2d_s8 / grouped_conv2d_s8 / depthwise_conv2d_s8 on the NHWC input
    (conv1d: [N, C, L] as NHWC [N, 1, L, C], output held channels-last), weight
    packed to [Cout, KH, KW, Cin] / [Cout, KH, KW, Cin/groups] / [1, KH, KW, Cout];
    a BatchNorm: :func:`emit_bn`."""
    core, act = site.core, site.act
    if core.target in BATCH_NORM_OPS:
        return emit_bn(lw, site)
    s_out, zp_out = site.out_qparams
    a, name = core.args, core.name
    depthwise = lw.pattern.name == "dwconv"
    x = lw.dq_src(a[0])
    wq, wsc = weight(lw, a[1])
    bias = int32_bias(lw, a[2] if len(a) > 2 else None, x.scale * wsc, wq.shape[0])
    mult, shift = requant(x.scale, wsc, s_out)
    lo, hi = clamp_of(act, s_out, zp_out)
    oshape = lw.shape(core)
    conv1d = core.target == aten.conv1d.default
    xin, w4 = (lw.nlc4(x, core), wq.unsqueeze(2)) if conv1d else (lw.nhwc(x, core), wq)
    wpk = (w4.permute(1, 2, 3, 0) if depthwise else w4.permute(0, 2, 3, 1)).contiguous()
    grouped = lw.pattern.name == "gconv"
    # depthwise: the depth multiplier; grouped: the groups (both after the geometry)
    extra = (wq.shape[0] // x.shape[1],) if depthwise else (int(a[6]),) if grouped else ()
    op = lw.op("depthwise_conv2d_s8" if depthwise else "grouped_conv2d_s8" if grouped else "conv2d_s8")
    node = lw.call(op, (xin, lw.const(wpk, name + "_w"), lw.const(bias, name + "_b"),
                        lw.const(mult, name + "_m"), lw.const(shift, name + "_s"))
                   + _conv_geometry(core) + extra + (x.zp, zp_out, lo, hi), core)
    if conv1d:
        return _to_ncl(lw, site, node, oshape, s_out, zp_out)
    set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out), wsc.tolist())
    return QVal(node, oshape, NHWC, s_out, zp_out)


def _linear_input(lw, site: Site, x: QVal) -> Node:
    """The input of a linear as the 2-D [M, K] int8 tensor the kernels take."""
    xin = lw.plain(x, site.core)
    if len(x.shape) != 2:
        xin = lw.call(aten.view_copy.default, (xin, [-1, x.shape[-1]]), site.core)
        tag(xin, x.qname, range(len(x.shape)))
    return xin


def _linear_output(lw, site: Site, x: QVal, node: Node, oshape, s_out: float, zp_out: int) -> QVal:
    """The [M, N] result of a linear viewed back to the op's output shape."""
    if len(x.shape) != 2:
        tag(node, site.q.name, range(len(oshape)))
        node = lw.call(aten.view_copy.default, (node, list(oshape)), site.core)
    return QVal(node, oshape, tuple(range(len(oshape))), s_out, zp_out)


def emit_linear(lw, site: Site) -> QVal:
    """mote::linear_s8 (weight [N, K] int8) / linear_s4 (weight [N, K/2], two int4 per byte)."""
    core, act = site.core, site.act
    s_out, zp_out = site.out_qparams
    a, name = core.args, core.name
    x = lw.dq_src(a[0])
    wq, wsc = weight(lw, a[1])
    bias = int32_bias(lw, a[2] if len(a) > 2 else None, x.scale * wsc, wq.shape[0])
    mult, shift = requant(x.scale, wsc, s_out)
    lo, hi = clamp_of(act, s_out, zp_out)
    xin = _linear_input(lw, site, x)
    s4 = lw.pattern.name == "linear_s4"
    op, wconst = (lw.op("linear_s4"), torch.from_numpy(pack_int4(wq.numpy()))) if s4 \
        else (lw.op("linear_s8"), wq)
    node = lw.call(op, (xin, lw.const(wconst, name + "_w"), lw.const(bias, name + "_b"),
                        lw.const(mult, name + "_m"), lw.const(shift, name + "_s"),
                        x.zp, zp_out, lo, hi), core)
    set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out), wsc.tolist())
    return _linear_output(lw, site, x, node, lw.shape(core), s_out, zp_out)


def _s16_consts(lw, site: Site, x: QVal, wq, wsc, w_packed) -> tuple:
    """(packed weight, int64 bias, multiplier, shift) constants and the clamp
    (lo, hi) of an int16-activation conv / linear (no zero points: symmetric)."""
    core = site.core
    s_out = site.out_qparams[0]
    name = core.name
    bias = int64_bias(lw, core.args[2] if len(core.args) > 2 else None, x.scale * wsc, wq.shape[0])
    mult, shift = requant(x.scale, wsc, s_out)
    if int(shift.max()) > int16ref.SHIFT_RANGE[1]:
        raise ValueError(f"int16 lowering: {core.name}: requantization scale "
                         f"{x.scale * float(wsc.max()) / s_out:.3g} beyond what mote::*_s16 takes (2^14)")
    lo, hi = clamp_of(site.act, s_out, 0, torch.int16)
    return (lw.const(w_packed, name + "_w"), lw.const(bias, name + "_b"),
            lw.const(mult, name + "_m"), lw.const(shift, name + "_s")), (lo, hi)


def emit_s16(lw, site: Site) -> QVal:
    """conv2d / conv1d (dense, depthwise) / linear with int16 activations =>
    mote::conv2d_s16 / depthwise_conv2d_s16 / linear_s16: the int8 ops' layouts
    and weight packing, int64 bias, no zero points (aot.compiler.quant.int16ref)."""
    core = site.core
    a = core.args
    x = lw.dq_src(a[0])
    wq, wsc = weight(lw, a[1])
    oshape = lw.shape(core)
    s_out = site.out_qparams[0]
    kind = lw.pattern.name
    if kind == "linear_s16":
        tensors, clamp = _s16_consts(lw, site, x, wq, wsc, wq)
        node = lw.call(lw.op("linear_s16"), (_linear_input(lw, site, x),) + tensors + clamp, core)
        return _linear_output(lw, site, x, node, oshape, s_out, 0)
    conv1d = core.target == aten.conv1d.default
    xin, w4 = (lw.nlc4(x, core), wq.unsqueeze(2)) if conv1d else (lw.nhwc(x, core), wq)
    if kind == "conv_s16":
        op, wpk, dm = lw.op("conv2d_s16"), w4.permute(0, 2, 3, 1).contiguous(), ()
    else:
        op, wpk = lw.op("depthwise_conv2d_s16"), w4.permute(1, 2, 3, 0).contiguous()
        dm = (wq.shape[0] // x.shape[1],)
    tensors, clamp = _s16_consts(lw, site, x, wq, wsc, wpk)
    node = lw.call(op, (xin,) + tensors + _conv_geometry(core) + dm + clamp, core)
    if conv1d:
        return _to_ncl(lw, site, node, oshape, s_out, 0)
    return QVal(node, oshape, NHWC, s_out, 0)


def emit_tconv(lw, site: Site) -> QVal:
    """conv_transpose2d(x, w [Cin, Cout/g, KH, KW], b, stride, padding,
    output_padding, groups, dilation) => mote::conv_transpose2d_s8 on NHWC, the
    weight packed to [Cout, KH, KW, Cin/g]; PT2E's Cout/g weight scales (axis 1)
    apply to every group."""
    core = site.core
    s_out, zp_out = site.out_qparams
    a, name = core.args, core.name
    x = lw.dq_src(a[0])
    wq, wsc = weight(lw, a[1], axis=1)
    groups = int(a[6]) if len(a) > 6 else 1
    cin, cog, kh, kw = wq.shape
    cout = cog * groups
    wsc = wsc.repeat(groups)
    bias = int32_bias(lw, a[2] if len(a) > 2 else None, x.scale * wsc, cout)
    mult, shift = requant(x.scale, wsc, s_out)
    lo, hi = clamp_of(site.act, s_out, zp_out)
    wpk = wq.reshape(groups, cin // groups, cog, kh, kw).permute(0, 2, 3, 4, 1) \
        .reshape(cout, kh, kw, cin // groups).contiguous()
    node = lw.call(lw.op("conv_transpose2d_s8"), (
        lw.nhwc(x, core), lw.const(wpk, name + "_w"), lw.const(bias, name + "_b"),
        lw.const(mult, name + "_m"), lw.const(shift, name + "_s"),
        pair(a[3] if len(a) > 3 else None, [1]), pair(a[4] if len(a) > 4 else None, [0]),
        pair(a[5] if len(a) > 5 else None, [0]), pair(a[7] if len(a) > 7 else None, [1]),
        groups, x.zp, zp_out, lo, hi), core)
    return QVal(node, lw.shape(core), NHWC, s_out, zp_out)


# ------------------------------------------------------------------ BatchNorm
def _bn_affine(lw, core: Node):
    """(a, b) float64 [C] of an inference BatchNorm y = a[c] * x + b[c]
    (a = weight / sqrt(var + eps), b = bias - mean * a) from its constant
    arguments, else None."""
    a = core.args
    if len(a) < 8 or a[5]:
        return None
    consts = []
    for v in a[1:5]:
        if v is None:
            consts.append(None)
        elif isinstance(v, Node) and v.op == "get_attr":
            consts.append(lw.attr(v).to(torch.float64))
        else:
            return None
    weight, bias, mean, var = consts
    if mean is None or var is None:
        return None
    scale = torch.ones_like(var) if weight is None else weight
    shift = torch.zeros_like(var) if bias is None else bias
    inv = scale / torch.sqrt(var + float(a[7]))
    return inv, shift - mean * inv


def _bn_weights(lw, site: Site):
    """(int8 [C] weights, float64 [C] weight scales, int32 [C] bias) of a BatchNorm as a 1x1
    depthwise conv: weight scale |a[c]| / 127 (weight +-127: a[c] exactly; 0 where a[c] is),
    bias b[c] at input scale * weight scale; None when a bias would not fit in 2^30."""
    ab = _bn_affine(lw, site.core)
    if ab is None:
        return None
    a, b = ab
    x_scale = float(site.core.args[0].args[1])
    wsc = torch.where(a == 0, torch.ones_like(a), a.abs() / 127.0)
    wq = torch.round(a / wsc).to(torch.int8)
    bq = torch.round(b / (x_scale * wsc))
    if bool((bq.abs() >= 2 ** 30).any()) or not bool(torch.isfinite(bq).all()):
        return None
    return wq, wsc, bq.to(torch.int32)


def match_bn(lw, site: Site) -> bool:
    """An inference BatchNorm of a 4-D int8 tensor with constant statistics."""
    a = site.core.args
    return int_inputs(a[:1]) and len(lw.shape(a[0])) == 4 and _bn_weights(lw, site) is not None


def emit_bn(lw, site: Site) -> QVal:
    """BatchNorm => mote::depthwise_conv2d_s8 with a 1x1 kernel on NHWC: the
    per-channel affine a[c] * x + b[c] as int8 weights +-127 at scale |a[c]| / 127,
    the int32 bias b[c] / (input scale * weight scale), a fused ReLU as the clamp."""
    core = site.core
    s_out, zp_out = site.out_qparams
    x = lw.dq_src(core.args[0])
    wq, wsc, bias = _bn_weights(lw, site)
    mult, shift = requant(x.scale, wsc, s_out)
    lo, hi = clamp_of(site.act, s_out, zp_out)
    name = core.name
    node = lw.call(lw.op("depthwise_conv2d_s8"), (
        lw.nhwc(x, core), lw.const(wq.reshape(1, 1, 1, -1).contiguous(), name + "_w"),
        lw.const(bias, name + "_b"), lw.const(mult, name + "_m"), lw.const(shift, name + "_s"),
        [1, 1], [0, 0], [1, 1], 1, x.zp, zp_out, lo, hi), core)
    set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out), wsc.tolist())
    return QVal(node, lw.shape(core), NHWC, s_out, zp_out)


PATTERNS = (
    Pattern("conv", CONV_OPS, ("mote::conv2d_s8",), match_conv, emit_conv, CONV_REASON, tail="act"),
    Pattern("dwconv", CONV_OPS | BATCH_NORM_OPS, ("mote::depthwise_conv2d_s8",), match_dwconv, emit_conv,
            CONV_REASON + " (a BatchNorm after no conv runs as a 1x1 depthwise conv: a 4-D input, constant "
            "statistics, a bias within 2^30)", tail="act"),
    Pattern("gconv", CONV_OPS, ("mote::grouped_conv2d_s8",), match_gconv, emit_conv, CONV_REASON,
            tail="act"),
    Pattern("linear_s4", LINEAR_OPS, ("mote::linear_s4",), match_linear_s4, emit_linear, LINEAR_REASON,
            tail="act"),
    Pattern("linear", LINEAR_OPS, ("mote::linear_s8",), match_linear, emit_linear, LINEAR_REASON, tail="act"),
    Pattern("conv_s16", CONV_OPS, ("mote::conv2d_s16",), match_conv, emit_s16, CONV16_REASON, tail="act",
            dtypes=INT16),
    Pattern("dwconv_s16", CONV_OPS, ("mote::depthwise_conv2d_s16",), match_dwconv, emit_s16, CONV16_REASON,
            tail="act", dtypes=INT16),
    Pattern("linear_s16", LINEAR_OPS, ("mote::linear_s16",), match_linear, emit_s16,
            LINEAR_REASON.replace("_s8", "_s16").replace("an int8 input", "an int16 input"), tail="act",
            dtypes=INT16),
    Pattern("tconv", CONV_TRANSPOSE_OPS, ("mote::conv_transpose2d_s8",), match_tconv, emit_tconv,
            "mote::conv_transpose2d_s8 takes a 4-D int8 input, int8 weights quantized symmetrically "
            "per output channel (axis 1) and a constant bias", tail="act"),
)
