"""int8 (XNNPACK's qs8 / qc8) in the XNNPACK payload: which of Mote's mote::
int8 operators the backend takes, and their nodes.

Mote's int8 kernels take fixed-point multipliers; XNNPACK requantizes in fp32
from real scales. The int8 lowering records the PT2E scales and zero points
each mote:: op came from (aot.compiler.source.set_qparams, KernelCall.qparams),
and the values here carry them: activations per-tensor qint8, weights
per-channel qcint8 (symmetric, zero point 0), biases qcint32 at input scale x
weight scale. Activations are already NHWC int8 in Mote's program, so the
payload's dims are the program's sizes and no layout change is needed at the
subgraph's edges.

Taken: the operators of :data:`TAKEN` (add and mul of equal shapes; mean as
global average pooling; linear as a fully connected node with qcint8 weights,
as ExecuTorch writes it, which Mote's backend runs as a 1x1 convolution, the
2022 XNNPACK having no per-channel fully connected); the partitioner adds
views of int8 tensors. XNNPACK's qs8 operators refuse requantization scales
outside fixed ranges (XNNPACK's operator create functions); a call whose
scales fall outside stays on Mote's kernels. XNNPACK rounds its fp32
requantization where Mote's kernels use fixed-point multipliers: the two can
differ by one output quantum (an add, typically); both stay within one of
PT2E's reference.
"""
from __future__ import annotations

import math

import numpy as np

from aot import ir
from aot.backends.xnnpack import schema as xs

#: the mote:: int8 operators this module lowers
TAKEN = frozenset({"mote::conv2d_s8", "mote::depthwise_conv2d_s8", "mote::linear_s8", "mote::add_s8",
                   "mote::mul_s8", "mote::max_pool2d_s8", "mote::mean_s8"})
#: [low, high) of the requantization scale each XNNPACK qs8 operator accepts
#: (XNNPACK's xnn_create_*_qs8 / _qc8 checks): conv / fully connected
#: input*weight/output, add input/output, multiply a*b/output, average pooling input/output
_CONV_RANGE = (2.0 ** -32, 256.0)
_ADD_RANGE = (2.0 ** -10, 256.0)
_MUL_RANGE = (2.0 ** -16, 256.0)
_GAVG_RANGE = (2.0 ** -8, 256.0)


def _f32(x: float) -> float:
    return float(np.float32(x))


def _in_range(scale: float, rng: tuple) -> bool:
    return rng[0] <= scale < rng[1]


def supports(spec: ir.ProgramSpec, call: ir.KernelCall) -> str:
    """"" if XNNPACK's qs8 path takes this int8 call, else why not (one phrase)."""
    qp, a = call.qparams, call.args
    if call.op not in TAKEN:
        return "Mote's XNNPACK partitioner takes no int8 form of this operator"
    if qp is None:
        return "no quantization parameters recorded for this int8 operator"
    (si, _), (so, _) = qp["inputs"][0], qp["output"]
    if call.op in ("mote::conv2d_s8", "mote::depthwise_conv2d_s8", "mote::linear_s8"):
        w = spec.values[a[1]]
        if not isinstance(w, ir.TensorValue) or w.constant is None or len(qp.get("weight_scales") or ()) == 0:
            return "int8 weights must be constants with per-channel scales"
        if call.op == "mote::linear_s8" and len(spec.values[a[0]].sizes) != 2:
            return "int8 fully connected of a 2-D input only"
        worst = [si * ws / so for ws in qp["weight_scales"]]
        if not all(_in_range(r, _CONV_RANGE) for r in worst):
            return "a requantization scale outside XNNPACK's [2^-32, 256)"
        return ""
    if call.op in ("mote::add_s8", "mote::mul_s8"):
        x, y = spec.values[a[0]], spec.values[a[1]]
        if x.sizes != y.sizes or x.constant is not None or y.constant is not None:
            return "two computed int8 tensors of one shape only"
        (sa, _), (sb, _) = qp["inputs"]
        ok = (_in_range(sa / so, _ADD_RANGE) and _in_range(sb / so, _ADD_RANGE)) if call.op == "mote::add_s8" \
            else _in_range(sa * sb / so, _MUL_RANGE)
        return "" if ok else "input / output scale ratio outside XNNPACK's qs8 range"
    if call.op == "mote::mean_s8":
        if len(spec.values[a[0]].sizes) != 4:
            return "int8 mean of a 4-D tensor only"
        return "" if _in_range(si / so, _GAVG_RANGE) else "input / output scale ratio outside XNNPACK's [2^-8, 256)"
    return ""          # max_pool2d_s8


def value_qparams(spec: ir.ProgramSpec, calls: list) -> dict:
    """{value index: (scale, zero point)} of every int8 activation the calls
    read or write (views pass them on)."""
    qp: dict = {}
    for c in calls:
        if c.qparams is not None:
            for arg, (s, z) in zip(c.args, c.qparams["inputs"]):
                qp.setdefault(arg, (s, z))
            qp[c.args[-1]] = tuple(c.qparams["output"])
    for _ in range(len(calls)):   # views: the same quantization on both sides, either way
        for c in calls:
            if f"{c.op}.{c.overload}" == ir.ET_VIEW:
                src, dst = c.args[0], c.args[-1]
                if src in qp:
                    qp.setdefault(dst, qp[src])
                elif dst in qp:
                    qp[src] = qp[dst]
    return qp


def _arg_names(op: str) -> list:
    """Argument names of mote:: op `op`, from its schema (aot.compiler.mote_ops.SCHEMAS;
    imported here, where int8 programs have it loaded already)."""
    from aot.compiler.mote_ops import SCHEMAS
    return [arg.split()[-1] for arg in SCHEMAS[op.split("::", 1)[1]].split(",")]


def _arg_index(op: str, name: str) -> int:
    """Position of argument `name` in mote:: op `op`'s arguments."""
    return _arg_names(op).index(name)


def per_tensor(scale: float, zp: int) -> xs.PerTensorQuant:
    return xs.PerTensorQuant(scale=_f32(scale), zero_point=int(zp))


def _bound(q: int, scale: float, zp: int, lowest: bool) -> float:
    """A clamp bound in real units (what XNNPACK quantizes back), unbounded at int8's own limit."""
    if q == (-128 if lowest else 127):
        return -math.inf if lowest else math.inf
    return (q - zp) * scale


def lower(g, call: ir.KernelCall) -> None:
    """Adds the nodes of int8 call `call` to graph `g` (partitioner._Graph)."""
    s, a, qp = g.spec, call.args, call.qparams
    (so, zo) = qp["output"]
    lo = hi = None
    if "activation_min" in _arg_names(call.op):   # a fused clamp
        lo = _bound(s.values[a[_arg_index(call.op, "activation_min")]], so, zo, True)
        hi = _bound(s.values[a[_arg_index(call.op, "activation_max")]], so, zo, False)
    if call.op in ("mote::conv2d_s8", "mote::depthwise_conv2d_s8", "mote::linear_s8"):
        _conv(g, call, lo, hi)
    elif call.op in ("mote::add_s8", "mote::mul_s8"):
        g.add("XNNAdd" if call.op == "mote::add_s8" else "XNNMultiply", lo, hi, input1_id=g.id(a[0]),
              input2_id=g.id(a[1]), output_id=g.out(a[-1]), flags=0)
    elif call.op == "mote::max_pool2d_s8":
        k, st, pd, dl = (g.ints(a[_arg_index(call.op, n)]) for n in ("kernel_size", "stride", "padding", "dilation"))
        g.add("XNNMaxPooling2d", lo, hi, padding_top=pd[0], padding_right=pd[1], padding_bottom=pd[0],
              padding_left=pd[1], pooling_height=k[0], pooling_width=k[1], stride_height=st[0],
              stride_width=st[1], dilation_height=dl[0], dilation_width=dl[1], input_id=g.id(a[0]),
              output_id=g.out(a[-1]), flags=0)
    elif call.op == "mote::mean_s8":
        g.add("XNNGlobalAvgPooling2d", input_id=g.id(a[0]), output_id=g.out(a[-1]), flags=0)
    else:
        raise AssertionError(f"XNNPACK qs8 took {call.op} it cannot lower")


def _conv(g, call: ir.KernelCall, lo: float, hi: float) -> None:
    s, a, qp = g.spec, call.args, call.qparams
    si = qp["inputs"][0][0]
    ws = [_f32(w) for w in qp["weight_scales"]]
    w = s.values[a[1]]
    bias = np.frombuffer(s.values[a[2]].constant, dtype=np.int32)
    bscale = [_f32(np.float32(si) * np.float32(x)) for x in ws]
    b = g.qconstant(bias.tobytes(), [len(ws)], xs.QCINT32, xs.PerChannelQuant(scale=bscale, channel_dim=0))
    if call.op == "mote::linear_s8":            # filter [N, K], as ExecuTorch writes a qc8 fully connected
        filt = g.qconstant(w.constant, list(w.sizes), xs.QCINT8, xs.PerChannelQuant(scale=ws, channel_dim=0))
        g.add("XNNFullyConnected", lo, hi, input1_id=g.id(a[0]), filter_id=filt, bias_id=b,
              output_id=g.out(a[-1]), flags=0)
        return
    depthwise = call.op == "mote::depthwise_conv2d_s8"
    fdims = list(w.sizes)                       # OHWI, or [1, KH, KW, Cout] depthwise
    stride, pad, dil = (g.ints(a[_arg_index(call.op, n)]) for n in ("stride", "padding", "dilation"))
    cin = s.values[a[0]].sizes[3]
    cout = fdims[3] if depthwise else fdims[0]
    icg, groups = (1, cin) if depthwise else (cin, 1)
    filt = g.qconstant(w.constant, fdims, xs.QCINT8, xs.PerChannelQuant(scale=ws, channel_dim=3 if depthwise else 0))
    g.add("XNNDepthwiseConv2d" if depthwise else "XNNConv2d", lo, hi,
          padding_top=pad[0], padding_right=pad[1], padding_bottom=pad[0], padding_left=pad[1],
          kernel_height=fdims[1], kernel_width=fdims[2], subsampling_height=stride[0], subsampling_width=stride[1],
          dilation_height=dil[0], dilation_width=dil[1], group_input_channels=icg,
          group_output_channels=cout // groups, groups=groups, adjustment_height=0, adjustment_width=0,
          input1_id=g.id(a[0]), filter_id=filt, bias_id=b, output_id=g.out(a[-1]), flags=0)
