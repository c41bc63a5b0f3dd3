"""Patterns of the arithmetic on activations: elementwise add / mul of two
int8 tensors, matrix products of two activations (attention), softmax, mean,
and elementwise functions of one tensor as 256-entry lookup tables.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import torch
from torch.fx import Node

from aot.compiler.quant import int8ref
from aot.compiler.quant.opsets import (ISLAND_KEY, LUT_OPS, MASKED_FILL_OPS, MATMUL_OPS, MEAN_OPS,
                                       PRELU_OPS, SOFTMAX_OPS)
from aot.compiler.quant.patterns.base import (DQ, Q, Pattern, Site, int_inputs, matmul_factor,
                                              shares_input_qparams)
from aot.compiler.quant.patterns.conv import clamp_of
from aot.compiler.quant.values import QVal, fround, tag
from aot.compiler.source import set_qparams

aten = torch.ops.aten


def lut_table(op, args, kwargs, qin: tuple, qout: tuple) -> torch.Tensor:
    """int8 [256]: entry i is quantize(op(dequantize(i - 128), *args, **kwargs))
    with the input (scale, zero point) ``qin`` and output ``qout``, computed
    with torch's own quantize_decomposed ops and ``op``, i.e. what PT2E's
    reference computes for that input value."""
    q = torch.arange(-128, 128, dtype=torch.int8)
    x = DQ(q, float(qin[0]), int(qin[1]), -128, 127, torch.int8)
    y = op(x, *args, **kwargs)
    return Q(y, float(qout[0]), int(qout[1]), -128, 127, torch.int8)


# ------------------------------------------------------------------ add, mul
def broadcast_operand(sa, sb) -> Optional[int]:
    """Which operand (0 or 1) of a product of shapes `sa`, `sb` broadcasts to the
    other's shape (same rank, each size the other's or 1) when the shapes differ;
    None when neither does (or the shapes are equal)."""
    if len(sa) != len(sb) or tuple(sa) == tuple(sb):
        return None
    for i, (small, big) in enumerate(((sa, sb), (sb, sa))):
        if all(s in (1, b) for s, b in zip(small, big)):
            return i
    return None


def match_binary(lw, site: Site, broadcast: bool = False) -> bool:
    """Two int8 tensors of one shape (add: alpha 1); with `broadcast` (mul) or
    one broadcast to the other's shape."""
    core = site.core
    a = core.args
    if not (len(a) == 2 and int_inputs(a[:2]) and core.kwargs.get("alpha", 1) == 1):
        return False
    sa, sb = lw.shape(a[0]), lw.shape(a[1])
    return sa == sb or (broadcast and broadcast_operand(sa, sb) is not None)


def match_mul(lw, site: Site) -> bool:
    return match_binary(lw, site, broadcast=True)


def emit_binary(lw, site: Site) -> QVal:
    """mote::add_s8 (each input rescaled to a common scale, int8ref.add_params)
    / mote::mul_s8 (a_scale * b_scale / out_scale) in the first operand's layout;
    a broadcast operand of mul goes second (the product is symmetric), in that layout."""
    core = site.core
    s_out, zp_out = site.out_qparams
    a = core.args
    if broadcast_operand(lw.shape(a[0]), lw.shape(a[1])) == 0:
        a = (a[1], a[0])
    xa, xb = lw.dq_src(a[0]), lw.dq_src(a[1])
    perm = xa.perm
    na, nb = xa.node, lw.layout(xb, perm, core)
    lo, hi = clamp_of(site.act, s_out, zp_out)
    if lw.pattern.name == "add":
        p = int8ref.add_params(xa.scale, xb.scale, s_out)
        node = lw.call(lw.op("add_s8"), (
            na, nb, xa.zp, p["a_multiplier"], p["a_shift"], xb.zp, p["b_multiplier"],
            p["b_shift"], p["left_shift"], zp_out, p["output_multiplier"],
            p["output_shift"], lo, hi), core)
    else:
        m, s = int8ref.quantize_multiplier(xa.scale * xb.scale / s_out)
        node = lw.call(lw.op("mul_s8"), (na, nb, xa.zp, xb.zp, zp_out, m, s, lo, hi), core)
    set_qparams(node, [(xa.scale, xa.zp), (xb.scale, xb.zp)], (s_out, zp_out))
    return QVal(node, lw.shape(core), perm, s_out, zp_out)


# ------------------------------------------------------------------ matmul
def match_bmm(lw, site: Site) -> bool:
    """Two int8 tensors of rank 2 to 6, equal leading (batch) dims, K matching."""
    a = site.core.args
    if not int_inputs(a[:2]):
        return False
    sa, sb = lw.shape(a[0]), lw.shape(a[1])
    return len(sa) == len(sb) and 2 <= len(sa) <= 6 and sa[:-2] == sb[:-2] \
        and sa[-1] == sb[-2] and min(sa + sb) >= 1


def emit_bmm(lw, site: Site) -> QVal:
    """mote::bmm_s8 for matmul(dq(a), dq(b)) [* c]: both operands viewed as 3-D
    [B, M, K] / [B, K, N] (leading dims flattened); `b` is passed as it lies when
    its last two dims are swapped in memory (b_transposed), else in its plain
    layout (permute_copy only if it is held otherwise). Real multiplier
    a_scale * b_scale * c / out_scale. Output plain layout."""
    q, core = site.q, site.core
    s_out, zp_out = site.out_qparams
    oshape = lw.shape(core)
    xa, xb = lw.dq_src(core.args[0]), lw.dq_src(core.args[1])
    r = len(xa.shape)
    plain = tuple(range(r))
    swapped = plain[:-2] + (r - 1, r - 2)
    trans = r >= 2 and tuple(xb.perm) == swapped and xb.shape[-1] > 1 and xb.shape[-2] > 1
    na = lw.layout(xa, plain, core)
    nb = xb.node if trans else lw.layout(xb, plain, core)
    batch = int(np.prod(xa.shape[:-2], dtype=np.int64))
    m, k, n = xa.shape[-2], xa.shape[-1], xb.shape[-1]
    a3, b3 = [batch, m, k], ([batch, n, k] if trans else [batch, k, n])
    if r != 3:
        na = lw.call(aten.view_copy.default, (na, a3), core)
        tag(na, xa.qname, plain)
        nb = lw.call(aten.view_copy.default, (nb, b3), core)
        tag(nb, xb.qname, swapped if trans else plain)
    factor = 1.0 if site.act is None else matmul_factor(site.act)
    mult, shift = int8ref.quantize_multiplier(xa.scale * xb.scale * factor / s_out)
    node = lw.call(lw.op("bmm_s8"), (na, nb, bool(trans), xa.zp, xb.zp, zp_out, mult, shift, -128, 127),
                   core)
    if r != 3:
        tag(node, q.name, plain)
        node = lw.call(aten.view_copy.default, (node, list(oshape)), core)
    return QVal(node, oshape, plain, s_out, zp_out)


# ------------------------------------------------------------------ masked_fill
def match_masked_fill(lw, site: Site) -> bool:
    """A constant mask and a non-NaN constant value; output shares the input's qparams."""
    a = site.core.args
    return shares_input_qparams(site) and isinstance(a[1], Node) and a[1].op == "get_attr" \
        and isinstance(a[2], (int, float)) and not isinstance(a[2], bool) and not math.isnan(float(a[2]))


def emit_masked_fill(lw, site: Site) -> QVal:
    """masked_fill(dq(x), constant mask, value) with shared qparams: the same op on
    the int8 tensor in its layout (the mask broadcast and permuted alike) with the
    value quantized; -inf / +inf saturate to -128 / 127, as torch's quantize of
    them does. Exactly PT2E's reference: q(where(m, v, dq(x))) = where(m, q(v), x)."""
    core = site.core
    x = lw.dq_src(core.args[0])
    mask = lw.attr(core.args[1]).to(torch.bool).expand(x.shape).permute(x.perm).contiguous()
    value = float(core.args[2])
    if math.isinf(value):
        pv = -128 if value < 0 else 127
    else:
        pv = max(-128, min(127, x.zp + fround(value, x.scale)))
    node = lw.call(aten.masked_fill.Scalar, (x.node, lw.const(mask, core.name + "_mask"), pv), core)
    return QVal(node, lw.shape(core), x.perm, *site.out_qparams)


# ------------------------------------------------------------------ softmax
def match_softmax(lw, site: Site) -> bool:
    """softmax with int8ref.softmax_s8's output qparams, a supported depth
    and input scale, no dtype conversion."""
    core, q = site.core, site.q
    a = core.args
    if not int_inputs(a[:1]):
        return False
    if core.target == aten.softmax.int:
        extra = a[2] if len(a) > 2 else core.kwargs.get("dtype")
    else:
        extra = a[2] if len(a) > 2 else core.kwargs.get("half_to_float", False)
    if extra not in (None, False):
        return False
    if tuple(q.args[1:6]) != (int8ref.SOFTMAX_OUT_SCALE, int8ref.SOFTMAX_OUT_ZERO_POINT,
                              -128, 127, torch.int8):
        return False
    shape = lw.shape(a[0])
    if not shape or not 1 <= shape[int(a[1]) % len(shape)] <= int8ref.SOFTMAX_MAX_DEPTH:
        return False
    try:
        int8ref.softmax_params(float(a[0].args[0].args[1]))
    except ValueError:
        return False
    return True


SOFTMAX_LAYOUT_REASON = "mote::softmax_s8 reduces the last dim of the int8 layout; this softmax's dim is not last"


def emit_softmax(lw, site: Site) -> QVal:
    """mote::softmax_s8 on the physical tensor when the softmax dim is its
    last dim; else fp32 softmax between dequantize and quantize."""
    core = site.core
    s_out, zp_out = site.out_qparams
    oshape = lw.shape(core)
    x = lw.dq_src(core.args[0])
    dim = int(core.args[1]) % len(x.shape)
    if x.perm.index(dim) == len(x.perm) - 1:
        m, ls, dmin = int8ref.softmax_params(x.scale)
        node = lw.call(lw.op("softmax_s8"), (x.node, m, ls, dmin), core)
        return QVal(node, oshape, x.perm, s_out, zp_out)
    lw.warn_fallback(core, SOFTMAX_LAYOUT_REASON, stacklevel=7)
    f = lw.g.call_function(core.target, lw.map_arg(core.args), lw.map_arg(core.kwargs))
    f.meta = {k: v for k, v in core.meta.items() if k not in ("tensor_meta", "val")}
    node = lw.call(Q, (f, s_out, zp_out, -128, 127, torch.int8), core)
    return QVal(node, oshape, tuple(range(len(oshape))), s_out, zp_out)


# ------------------------------------------------------------------ mean
def mean_dims(lw, core: Node):
    """The sorted reduced dims of a mean.dim when they are contiguous, else None."""
    shape = lw.shape(core.args[0])
    dims = sorted(d % len(shape) for d in core.args[1])
    if dims != list(range(dims[0], dims[-1] + 1)):
        return None
    return dims


def match_mean(lw, site: Site) -> bool:
    """adaptive_avg_pool2d to 1x1 of a 4-D value, or mean over contiguous dims without a dtype."""
    core = site.core
    a = core.args
    if not int_inputs(a[:1]):
        return False
    if core.target == aten.adaptive_avg_pool2d.default:
        return len(lw.shape(a[0])) == 4 and list(a[1]) in ([1, 1], [1])
    return core.kwargs.get("dtype") is None and mean_dims(lw, core) is not None


def emit_mean(lw, site: Site) -> QVal:
    """mote::mean_s8 over [pre, red, 1, post]: the reduced dims contiguous in the
    physical layout (else the plain layout); multiplier in_scale / (out_scale * red)."""
    q, core = site.q, site.core
    s_out, zp_out = site.out_qparams
    x = lw.dq_src(core.args[0])
    rank = len(x.shape)
    if core.target == aten.adaptive_avg_pool2d.default:
        dims, keep = [2, 3], True
    else:
        dims = mean_dims(lw, core)
        keep = bool(core.args[2]) if len(core.args) > 2 else bool(core.kwargs.get("keepdim", False))
    # reduce over dims that are contiguous in the physical layout
    perm = x.perm
    phys_dims = sorted(perm.index(d) for d in dims)
    if phys_dims != list(range(phys_dims[0], phys_dims[-1] + 1)):
        perm = tuple(range(rank))
        phys_dims = dims
    src = lw.layout(x, perm, core)
    phys = [x.shape[d] for d in perm]
    lo_d, hi_d = phys_dims[0], phys_dims[-1] + 1
    pre = int(np.prod(phys[:lo_d], dtype=np.int64))
    red = int(np.prod(phys[lo_d:hi_d], dtype=np.int64))
    post = int(np.prod(phys[hi_d:], dtype=np.int64))
    if rank == 4 and (lo_d, hi_d) == (1, 3):
        inp = src  # physical [N, H, W, C], reduce H and W
    else:
        inp = lw.call(aten.view_copy.default, (src, [pre, red, 1, post]), core)
        tag(inp, x.qname, perm)
    m, s = int8ref.quantize_multiplier(x.scale / (s_out * red))
    node = lw.call(lw.op("mean_s8"), (inp, x.zp, zp_out, m, s), core)
    set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out))
    out_phys, out_perm = _reduced_layout(phys, perm, phys_dims, keep)
    tag(node, q.name, out_perm)
    if list(out_phys) != [pre, 1, 1, post]:
        node = lw.call(aten.view_copy.default, (node, out_phys), core)
    return QVal(node, lw.shape(core), tuple(out_perm), s_out, zp_out)


def _reduced_layout(phys: list, perm: tuple, phys_dims: list, keep: bool) -> tuple:
    """(physical shape, perm) of a reduction's result: `phys` with the reduced
    dims set to 1 (keepdim) or dropped, the remaining logical dims renumbered."""
    rank = len(phys)
    if keep:
        return [1 if i in phys_dims else phys[i] for i in range(rank)], perm
    kept = [i for i in range(rank) if i not in phys_dims]
    remaining = [perm[i] for i in kept]  # logical dims (old numbering) in phys order
    order = sorted(remaining)
    return [phys[i] for i in kept], tuple(order.index(d) for d in remaining)


# ------------------------------------------------------------------ lookup tables
def prelu_slope(lw, core: Node):
    """The constant slope of a PReLU with one parameter (a 1-element tensor), else None."""
    w = core.args[1] if len(core.args) > 1 else None
    if isinstance(w, Node) and w.op == "get_attr" and ISLAND_KEY not in core.meta:
        t = lw.attr(w)
        if isinstance(t, torch.Tensor) and t.numel() == 1 and t.is_floating_point():
            return t.detach().clone()
    return None


def match_lut(lw, site: Site) -> bool:
    """An int8 input, every other argument constant (PReLU: one constant slope)."""
    core = site.core
    a = core.args
    if not int_inputs(a[:1]):
        return False
    if core.target in PRELU_OPS:
        return prelu_slope(lw, core) is not None
    return not any(isinstance(v, Node) for v in list(a[1:]) + list(core.kwargs.values()))


def emit_lut(lw, site: Site) -> QVal:
    """mote::lut_s8 on the physical tensor as it is (elementwise: any layout),
    with the 256-entry table of :func:`lut_table`."""
    core = site.core
    qout = site.out_qparams
    x = lw.dq_src(core.args[0])
    if core.target in PRELU_OPS:    # PReLU with one slope: elementwise with a constant
        table = lut_table(core.target, (prelu_slope(lw, core),), {}, (x.scale, x.zp), qout)
    else:
        table = lut_table(core.target, core.args[1:], core.kwargs, (x.scale, x.zp), qout)
    node = lw.call(lw.op("lut_s8"), (x.node, lw.const(table, core.name + "_lut")), core)
    return QVal(node, lw.shape(core), x.perm, *qout)


PATTERNS = (
    Pattern("add", frozenset({aten.add.Tensor, aten.add_.Tensor}), ("mote::add_s8",), match_binary, emit_binary,
            "mote::add_s8 adds two int8 tensors of one shape (no broadcast, no constant, alpha 1)", tail="act"),
    Pattern("mul", frozenset({aten.mul.Tensor, aten.mul_.Tensor}), ("mote::mul_s8",), match_mul, emit_binary,
            "mote::mul_s8 multiplies two int8 tensors of one shape, or one broadcast over the other "
            "(same rank, no constant)", tail="act"),
    Pattern("bmm", MATMUL_OPS, ("mote::bmm_s8",), match_bmm, emit_bmm,
            "mote::bmm_s8 multiplies two int8 tensors of rank 2 to 6 with equal batch dims", tail="scale"),
    Pattern("masked_fill", MASKED_FILL_OPS, ("aten::masked_fill",), match_masked_fill, emit_masked_fill,
            "masked_fill runs on int8 with a constant mask, a constant value and its input's qparams"),
    Pattern("softmax", SOFTMAX_OPS, ("mote::softmax_s8",), match_softmax, emit_softmax,
            f"mote::softmax_s8 takes output qparams (1/256, -128), a depth up to {int8ref.SOFTMAX_MAX_DEPTH} "
            "and no dtype conversion"),
    Pattern("mean", MEAN_OPS, ("mote::mean_s8",), match_mean, emit_mean,
            "mote::mean_s8 reduces contiguous dims (adaptive_avg_pool2d: to 1x1) without a dtype"),
    Pattern("lut", LUT_OPS | PRELU_OPS, ("mote::lut_s8",), match_lut, emit_lut,
            "mote::lut_s8 takes an int8 input and constant other arguments (PReLU: one slope)"),
)
