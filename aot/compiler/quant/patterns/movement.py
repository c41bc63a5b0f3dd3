"""Patterns of the ops that move, select or resample int8 elements with the
same qparams in and out (pooling, padding, upsampling, slicing, views,
permutes, concatenation, embedding rows): each runs on the integer tensor,
in its physical layout where the op allows.
"""
from __future__ import annotations

import torch

from aot.compiler.quant import int8ref
from aot.compiler.quant.opsets import (CAT_OPS, EMBEDDING_OPS, IDENTITY_OPS, MOVE_OPS, PAD_OPS,
                                       PERMUTE_OPS, UPSAMPLE_BILINEAR, UPSAMPLE_NEAREST, VIEW_OPS)
from aot.compiler.quant.patterns.base import (DQ, INT8_16, Pattern, Site, int_inputs, is_dq_of_q, same_qparams,
                                              shares_input_qparams)
from aot.compiler.quant.values import NHWC, NLC, QVal, fround, inv, pair, tag
from aot.compiler.source import set_qparams

aten = torch.ops.aten

SHARED = "its input's qparams"


def _rank(lw, site: Site) -> int:
    return len(lw.shape(site.core.args[0]))


def _shared_rank4(lw, site: Site) -> bool:
    return shares_input_qparams(site) and _rank(lw, site) == 4


def _out(lw, site: Site, node, perm) -> QVal:
    """The site's output value: `node` holding it as logical.permute(perm)."""
    return QVal(node, lw.shape(site.core), tuple(perm), *site.out_qparams)


# ------------------------------------------------------------------ pooling
def match_maxpool(lw, site: Site) -> bool:
    return _shared_rank4(lw, site)


def emit_maxpool(lw, site: Site) -> QVal:
    """mote::max_pool2d_s8 on NHWC (kernel, stride, padding, dilation, ceil_mode)."""
    core = site.core
    a = core.args
    x = lw.dq_src(a[0])
    k = pair(a[1], None)
    st = pair(a[2] if len(a) > 2 and len(a[2]) else None, k)
    pd = pair(a[3] if len(a) > 3 else None, [0])
    dl = pair(a[4] if len(a) > 4 else None, [1])
    ceil = bool(a[5]) if len(a) > 5 else bool(core.kwargs.get("ceil_mode", False))
    node = lw.call(lw.op("max_pool2d_s8"), (lw.nhwc(x, core), k, st, pd, dl, -128, 127, ceil), core)
    set_qparams(node, [(x.scale, x.zp)], site.out_qparams)
    return _out(lw, site, node, NHWC)


def match_avgpool(lw, site: Site) -> bool:
    a = site.core.args
    return _shared_rank4(lw, site) and not (len(a) > 4 and a[4]) and not (len(a) > 6 and a[6] is not None)


def emit_avgpool(lw, site: Site) -> QVal:
    """mote::avg_pool2d_s8 on NHWC (kernel, stride, padding, count_include_pad)."""
    core = site.core
    a = core.args
    x = lw.dq_src(a[0])
    k = pair(a[1], None)
    st = pair(a[2] if len(a) > 2 and len(a[2]) else None, k)
    pd = pair(a[3] if len(a) > 3 else None, [0])
    cip = bool(a[5]) if len(a) > 5 else bool(core.kwargs.get("count_include_pad", True))
    node = lw.call(lw.op("avg_pool2d_s8"), (lw.nhwc(x, core), k, st, pd, cip, x.zp, -128, 127), core)
    return _out(lw, site, node, NHWC)


# ------------------------------------------------------------------ pad
def match_pad(lw, site: Site) -> bool:
    """Constant padding >= 0 of W (3-D [N, C, L]) or of W and H (4-D)."""
    core = site.core
    a = core.args
    if core.target == aten.pad.default and (a[2] if len(a) > 2 else core.kwargs.get("mode", "constant")) \
            != "constant":
        return False
    if not shares_input_qparams(site) or min(a[1]) < 0:
        return False
    rank = _rank(lw, site)
    return (rank == 4 and len(a[1]) in (2, 4)) or (rank == 3 and len(a[1]) == 2)


def emit_pad(lw, site: Site) -> QVal:
    """mote::pad_s8 on NHWC with the pad value quantized ([N, C, L]: as NHWC
    [N, 1, L, C], padding W, the result held channels-last)."""
    core = site.core
    a = core.args
    x = lw.dq_src(a[0])
    vi = 2 if core.target == aten.constant_pad_nd.default else 3
    value = a[vi] if len(a) > vi else core.kwargs.get("value", 0.0)
    value = 0.0 if value is None else float(value)
    if len(x.shape) == 3:
        left, right = (int(v) for v in a[1])
        pv = max(-128, min(127, x.zp + fround(value, x.scale)))
        node = lw.call(lw.op("pad_s8"), (lw.nlc4(x, core), [0, 0, left, right], pv), core)
        tag(node, site.q.name, NLC)
        oshape = lw.shape(core)
        node = lw.call(aten.view_copy.default, (node, [oshape[0], oshape[2], oshape[1]]), core)
        return _out(lw, site, node, NLC)
    left, right, top, bottom = ([int(v) for v in a[1]] + [0, 0])[:4]
    pv = max(-128, min(127, x.zp + fround(value, x.scale)))
    node = lw.call(lw.op("pad_s8"), (lw.nhwc(x, core), [top, bottom, left, right], pv), core)
    return _out(lw, site, node, NHWC)


# ------------------------------------------------------------------ upsampling
def match_nearest(lw, site: Site) -> bool:
    return _shared_rank4(lw, site) and lw.shape(site.core.args[0])[2] * lw.shape(site.core.args[0])[3] <= 1 << 24


def match_bilinear(lw, site: Site) -> bool:
    return _shared_rank4(lw, site) and max(lw.shape(site.core) + lw.shape(site.core.args[0])) <= 0x7fff


def emit_nearest(lw, site: Site) -> QVal:
    """mote::upsample_nearest2d_s8: source index tables from torch's own op run
    on an index grid (exact for every scale / size / mode)."""
    core = site.core
    a, name = core.args, core.name
    x = lw.dq_src(a[0])
    h, w = x.shape[2], x.shape[3]
    grid = torch.arange(h * w, dtype=torch.float32).reshape(1, 1, h, w)
    idx = core.target(grid, *a[1:], **core.kwargs)[0, 0].to(torch.int64)
    ih, iw = (idx[:, 0] // w).to(torch.int32), (idx[0, :] % w).to(torch.int32)
    node = lw.call(lw.op("upsample_nearest2d_s8"), (
        lw.nhwc(x, core), lw.const(ih, name + "_ih"), lw.const(iw, name + "_iw")), core)
    return _out(lw, site, node, NHWC)


def emit_bilinear(lw, site: Site) -> QVal:
    """mote::upsample_bilinear2d_s8: ATen's fp32 source step per axis in Q32
    (int8ref.upsample_scale_q32), align_corners as given."""
    core = site.core
    a = core.args
    x = lw.dq_src(a[0])
    oshape = lw.shape(core)
    ac = bool(a[2]) if len(a) > 2 else bool(core.kwargs.get("align_corners", False))
    if core.target == aten.upsample_bilinear2d.vec:
        sf = a[3] if len(a) > 3 else core.kwargs.get("scale_factors")
        sf = list(sf) if sf is not None else [None, None]
    else:
        sf = [a[3] if len(a) > 3 else core.kwargs.get("scales_h"),
              a[4] if len(a) > 4 else core.kwargs.get("scales_w")]
    ho, wo = oshape[2], oshape[3]
    steps = [int8ref.upsample_scale_q32(x.shape[2], ho, ac, sf[0]),
             int8ref.upsample_scale_q32(x.shape[3], wo, ac, sf[1])]
    node = lw.call(lw.op("upsample_bilinear2d_s8"), (lw.nhwc(x, core), [ho, wo], ac, steps), core)
    return _out(lw, site, node, NHWC)


# ------------------------------------------------------------------ element selection
def match_shared(lw, site: Site) -> bool:
    """An int8 input whose qparams the output shares."""
    return shares_input_qparams(site)


def emit_slice(lw, site: Site) -> QVal:
    """aten::slice_copy on the physical tensor: the sliced dim's position in it."""
    a = site.core.args
    x = lw.dq_src(a[0])
    dim = int(a[1]) % len(x.shape) if len(a) > 1 else 0
    start = a[2] if len(a) > 2 else None
    end = a[3] if len(a) > 3 else None
    step = int(a[4]) if len(a) > 4 else 1
    node = lw.selection(aten.slice_copy.Tensor, (x.node, list(x.perm).index(dim), start, end, step), site.core)
    return _out(lw, site, node, x.perm)


def emit_select(lw, site: Site) -> QVal:
    """aten::select_copy on the physical tensor; the remaining dims keep their order."""
    a = site.core.args
    x = lw.dq_src(a[0])
    dim = int(a[1]) % len(x.shape)
    node = lw.selection(aten.select_copy.int, (x.node, list(x.perm).index(dim), int(a[2])), site.core)
    rest = [d for d in x.perm if d != dim]          # logical dims in physical order
    return _out(lw, site, node, tuple(d - (d > dim) for d in rest))


def emit_move(lw, site: Site) -> QVal:
    """Data movement that is the same on int8 bytes (pixel (un)shuffle), NCHW as torch's op."""
    core = site.core
    node = lw.call(core.target, (lw.plain(lw.dq_src(core.args[0]), core),) + tuple(core.args[1:]), core)
    return _out(lw, site, node, range(len(lw.shape(core))))


def emit_cat(lw, site: Site) -> QVal:
    """aten::cat of the int8 inputs in the first one's layout (dim remapped to it)."""
    core = site.core
    a = core.args
    vs = [lw.dq_src(n) or lw.state_qval(n) for n in a[0]]
    perm = vs[0].perm
    dim = int(a[1]) if len(a) > 1 else int(core.kwargs.get("dim", 0))
    dim %= len(lw.shape(core))
    nodes = [lw.layout(v, perm, core) for v in vs]
    node = lw.call(aten.cat.default, (nodes, list(perm).index(dim)), core)
    return _out(lw, site, node, perm)


def match_cat(lw, site: Site) -> bool:
    """Every input int8 at the output's qparams: an activation, or an int8 state or a
    slice of one (the buffer of a sliding window, written back at these qparams)."""
    def shares(x) -> bool:
        if is_dq_of_q(x):
            return same_qparams(x.args[0], site.q)
        t = lw.state_source(x)
        return t is not None and lw.int8_state[t] == site.out_qparams
    return all(shares(x) for x in site.core.args[0])


# ------------------------------------------------------------------ views
def emit_view(lw, site: Site) -> QVal:
    """aten::view_copy of the value in its plain (logical) layout."""
    core = site.core
    oshape = lw.shape(core)
    node = lw.call(aten.view_copy.default, (lw.plain(lw.dq_src(core.args[0]), core), list(oshape)), core)
    return _out(lw, site, node, range(len(oshape)))


def emit_permute(lw, site: Site) -> QVal:
    """No data movement: the same physical tensor with a relabelled layout."""
    a = site.core.args
    x = lw.dq_src(a[0])
    if site.core.target == aten.transpose.int:
        r = len(x.shape)
        p = list(range(r))
        d0, d1 = int(a[1]) % r, int(a[2]) % r
        p[d0], p[d1] = p[d1], p[d0]
    else:
        p = [int(d) % len(x.shape) for d in a[1]]
    pinv = inv(p)
    return _out(lw, site, x.node, tuple(pinv[d] for d in x.perm))


def emit_identity(lw, site: Site) -> QVal:
    x = lw.dq_src(site.core.args[0])
    return _out(lw, site, x.node, x.perm)


# ------------------------------------------------------------------ embedding
def int8_table(lw, site: Site):
    """(int8 table, scale, zero point) of an embedding whose table PT2E
    folded to a per-tensor int8 constant with the output's qparams, else None."""
    core, q = site.core, site.q
    w = core.args[0]
    if not (isinstance(w, torch.fx.Node) and w.op == "call_function" and w.target == DQ
            and isinstance(w.args[0], torch.fx.Node) and w.args[0].op == "get_attr"):
        return None
    t = lw.attr(w.args[0])
    if t.dtype != torch.int8 or tuple(w.args[1:6]) != tuple(q.args[1:6]):
        return None
    if len(core.args) > 4 and core.args[4]:   # sparse
        return None
    return t, float(w.args[1]), int(w.args[2])


def emit_embedding(lw, site: Site) -> QVal:
    """Row gather on the int8 table (aten::embedding); the output shares its qparams."""
    core = site.core
    table, _, _ = int8_table(lw, site)
    node = lw.call(aten.embedding.default, (lw.const(table, core.name + "_table"), lw.map_arg(core.args[1])),
                   core)
    return _out(lw, site, node, range(len(lw.shape(core))))


PATTERNS = (
    Pattern("maxpool", frozenset({aten.max_pool2d.default}), ("mote::max_pool2d_s8",), match_maxpool,
            emit_maxpool, f"mote::max_pool2d_s8 takes a 4-D int8 input with {SHARED}"),
    Pattern("avgpool", frozenset({aten.avg_pool2d.default}), ("mote::avg_pool2d_s8",), match_avgpool,
            emit_avgpool, f"mote::avg_pool2d_s8 takes a 4-D int8 input with {SHARED}, no ceil_mode "
            "and no divisor_override"),
    Pattern("pad", PAD_OPS, ("mote::pad_s8",), match_pad, emit_pad,
            f"mote::pad_s8 pads W (3-D) or H and W (4-D) by constants >= 0 with {SHARED}"),
    Pattern("slice", frozenset({aten.slice.Tensor}), ("aten::slice_copy",), match_shared, emit_slice,
            f"slice runs on int8 with {SHARED}"),
    Pattern("select", frozenset({aten.select.int}), ("aten::select_copy",), match_shared, emit_select,
            f"select runs on int8 with {SHARED}"),
    Pattern("move", MOVE_OPS, ("aten::pixel_shuffle", "aten::pixel_unshuffle"), _shared_rank4, emit_move,
            f"pixel (un)shuffle runs on a 4-D int8 tensor with {SHARED}"),
    Pattern("nearest", UPSAMPLE_NEAREST, ("mote::upsample_nearest2d_s8",), match_nearest, emit_nearest,
            f"mote::upsample_nearest2d_s8 takes a 4-D int8 input of at most 2^24 pixels with {SHARED}"),
    Pattern("bilinear", UPSAMPLE_BILINEAR, ("mote::upsample_bilinear2d_s8",), match_bilinear, emit_bilinear,
            f"mote::upsample_bilinear2d_s8 takes a 4-D int8 input, sizes up to 32767, with {SHARED}"),
    Pattern("view", VIEW_OPS, ("aten::view_copy",), match_shared, emit_view,
            f"a view runs on the integer tensor with {SHARED}", dtypes=INT8_16),
    Pattern("permute", PERMUTE_OPS, (), match_shared, emit_permute,
            f"a permute relabels the integer tensor's layout with {SHARED}", dtypes=INT8_16),
    Pattern("identity", IDENTITY_OPS, (), match_shared, emit_identity,
            f"contiguous / clone / dropout pass the integer tensor with {SHARED}", dtypes=INT8_16),
    Pattern("cat", CAT_OPS, ("aten::cat",), match_cat, emit_cat,
            "cat runs on int8 when every input shares the output's qparams"),
    Pattern("embedding", EMBEDDING_OPS, ("aten::embedding",), lambda lw, site: int8_table(lw, site) is not None,
            emit_embedding, "an int8 embedding takes a per-tensor int8 table with the output's qparams "
            "(not sparse)"),
)
