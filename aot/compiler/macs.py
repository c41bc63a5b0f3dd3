"""Multiply-accumulates per instruction of a planned program, and how many of
them run in int8 kernels: the figure `aot build --int8` reports, and the MAC
column of per-layer tools.

Counted for the operators that do the work (convolutions, matrix products,
their int8 versions); everything else counts 0. Shapes come from the value
table (static), so the count is exact for the program as compiled.
"""
from __future__ import annotations

from math import prod

from aot import ir

#: first argument of each product operator: its weight (or second operand) is
#: the next argument; the output is the instruction's last argument
_CONV = {"aten::convolution"}
_MATMUL = {"aten::mm", "aten::bmm", "aten::addmm", "aten::linear"}
#: the same product operators as ATen call names in the int8 lowering (its fp32
#: fallback sites): the --int8 summary lists those with their MACs, not twice
FALLBACK_MAC_OPS = {"conv2d", "conv1d", "conv_transpose2d", "linear", "matmul", "bmm", "mm", "addmm"}
_INT8 = {"mote::conv2d_s8", "mote::conv2d_s8_nchw", "mote::grouped_conv2d_s8", "mote::depthwise_conv2d_s8", "mote::linear_s8", "mote::bmm_s8",
         "mote::depthwise_planar16_s8"}
#: int8 pointwise writing the planar int16 layout (aot.compiler.layout): its
#: output [N, Cout, H+2ph, W+2pw] has a border, so MACs = input numel * Cout
_INT8_PLANAR_OUT = {"mote::pointwise_s8_planar16"}
#: int8 transposed convolution: counted per input pixel like aten::convolution's transposed form
_INT8_TCONV = {"mote::conv_transpose2d_s8"}
_INT8 = _INT8 | _INT8_TCONV | _INT8_PLANAR_OUT
#: int16-activation products (int8 weights in the int8 ops' layouts)
_INT16 = {"mote::conv2d_s16", "mote::depthwise_conv2d_s16", "mote::linear_s16"}
#: recurrent cells, one step: input [B, I], hidden [B, H], weights [G, I] and
#: [G, H] (the op's weight_ih / weight_hh arguments): B * G * (I + H)
_RNN_WEIGHTS = {"mote::lstm_cell_s8": (3, 4), "mote::gru_cell_s8": (2, 3)}
_INT8 = _INT8 | set(_RNN_WEIGHTS)
#: int4-weight products (weights packed two per byte): [M, K] x [N, K/2] -> [M, N]
_INT4_LINEAR = {"mote::linear_s4", "mote::linear_w4"}
#: the banded product (fp32): input [M, K], values [P] (the bands' entries) -> out [M, N]:
#: M*P, the multiply-adds it does (the dense product it replaces did M*K*N)
_BAND = {"mote::band_mm"}
#: mote:: operators whose MACs are fp32 arithmetic (reports list them with the fp32 ops)
FP32_MOTE_MAC_OPS = frozenset(_BAND)


def _tensor(spec: ir.ProgramSpec, idx: int):
    v = spec.values[idx] if 0 <= idx < len(spec.values) else None
    return v if isinstance(v, ir.TensorValue) else None


def instruction_macs(spec: ir.ProgramSpec, call: ir.KernelCall) -> int:
    """MACs of one instruction (0 for operators that multiply nothing)."""
    if call.op not in _CONV | _MATMUL | _INT8 | _INT16 | _INT4_LINEAR | _BAND or not call.args:
        return 0
    if call.op in _BAND:
        return _tensor(spec, call.args[0]).sizes[0] * prod(_tensor(spec, call.args[1]).sizes)
    if call.op in _RNN_WEIGHTS:
        x = _tensor(spec, call.args[0])
        return x.sizes[0] * sum(prod(_tensor(spec, call.args[i]).sizes) for i in _RNN_WEIGHTS[call.op])
    out = _tensor(spec, call.args[-1])
    if out is None:
        return 0
    n_out = prod(out.sizes)
    if call.op in _INT4_LINEAR:      # input [M, K] -> out [M, N]: M*N*K
        return n_out * _tensor(spec, call.args[0]).sizes[-1]
    if call.op == "mote::bmm_s8":     # a [B, M, K] -> out [B, M, N]: B*M*N*K
        return n_out * _tensor(spec, call.args[0]).sizes[-1]
    if call.op in _INT8_PLANAR_OUT:
        return prod(_tensor(spec, call.args[0]).sizes) * out.sizes[1]
    if call.op in _INT8_TCONV:
        # input [N, H, W, Cin], weight [Cout, KH, KW, Cin/g]: N*H*W*Cin * KH*KW*Cout/g
        x, w = _tensor(spec, call.args[0]), _tensor(spec, call.args[1])
        return prod(x.sizes) * prod(w.sizes) // max(x.sizes[-1], 1)
    if call.op in _INT8 or call.op in _INT16:
        # NHWC / [M, N]: output channels last; weight holds (K per output channel) x channels
        w = _tensor(spec, call.args[1])
        return n_out * prod(w.sizes) // max(out.sizes[-1], 1)
    if call.op == "aten::convolution":
        x, w = _tensor(spec, call.args[0]), _tensor(spec, call.args[1])
        if spec.values[call.args[6]] is True:     # transposed: weight [Cin, Cout/groups, k...]
            return prod(x.sizes) * prod(w.sizes) // max(w.sizes[0], 1)
        return n_out * prod(w.sizes) // max(w.sizes[0], 1)    # weight [Cout, Cin/groups, k...]
    if call.op == "aten::addmm":
        k = _tensor(spec, call.args[1]).sizes[-1]
    else:  # mm, bmm, linear: the first operand's last dim is K
        k = _tensor(spec, call.args[0]).sizes[-1]
    return n_out * k


def int8_mac_share(spec: ir.ProgramSpec, int16: bool = False) -> tuple:
    """(MACs in int8 kernels, all MACs) of ``spec``; int16: (MACs in the
    int16-activation kernels, all MACs). A delegate's MACs count as int8 when
    it runs int8 operators (XNNPACK's qs8)."""
    total = quantized = 0
    for call in spec.instructions:
        if isinstance(call, ir.DelegateCall):   # a delegate is int8 or fp32 throughout (q/dq stay outside)
            total += call.macs
            quantized += call.macs if any(c.op in (_INT16 if int16 else _INT8) for c in call.calls) else 0
            continue
        m = instruction_macs(spec, call)
        total += m
        if int16 and call.op in _INT16:
            quantized += m
        elif not int16 and (call.op in _INT8 or call.op == "mote::linear_s4"):  # int4 x int8: int8 arithmetic
            quantized += m
    return quantized, total
