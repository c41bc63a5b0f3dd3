"""Lower a PT2E-converted int8 graph (q/dq around fp32 ops) to Mote's fused
``mote::`` int8 ops with NHWC activations (``docs/int8-ops.md``).

Patterns (``dq`` = ``quantized_decomposed::dequantize_per_tensor``, ``q`` =
``quantize_per_tensor``; weights are ``dequantize_per_channel`` of folded int8
constants):

- ``dq(x) -> conv2d/linear(dq(w), dq(bias)) [-> relu/relu6/hardtanh] -> q`` =>
  ``mote::conv2d_s8`` (groups 1) / ``mote::depthwise_conv2d_s8`` (groups ==
  Cin) / ``mote::linear_s8`` with per-channel multiplier/shift computed here,
  int32 bias, weights pre-packed to [Cout,KH,KW,Cin] / [1,KH,KW,Cout] / [N,K]
  and the activation as the output clamp;
- ``add`` / ``mul`` of two dq tensors (same shape) [-> relu...] => ``mote::add_s8`` / ``mul_s8``;
- ``max_pool2d`` / ``avg_pool2d`` (same qparams in/out) => ``mote::max_pool2d_s8`` / ``avg_pool2d_s8``;
- ``adaptive_avg_pool2d(1)`` / ``mean`` over contiguous dims => ``mote::mean_s8``;
- ``constant_pad_nd`` over H, W => ``mote::pad_s8``;
- ``conv_transpose2d`` [-> relu...] => ``mote::conv_transpose2d_s8`` (weight
  [Cin, Cout/g, KH, KW] per-channel on axis 1, packed to [Cout, KH, KW, Cin/g]);
- nearest (and nearest-exact) upsampling => ``mote::upsample_nearest2d_s8`` with
  source index tables computed here by torch's own op; bilinear upsampling =>
  ``mote::upsample_bilinear2d_s8`` (Q32 source step, :func:`int8ref.upsample_scale_q32`);
- an elementwise function of one tensor (``LUT_OPS`` of aot.compiler.quantize:
  sigmoid, tanh, hardswish, GELU, SiLU, ELU, LeakyReLU, a lone relu, ...)
  => ``mote::lut_s8`` with a 256-entry table computed here by running
  dequantize -> the op -> quantize on every int8 value (:func:`lut_table`),
  so it matches PT2E's reference value for value;
- ``softmax`` (output qparams 1/256, -128: MoteQuantizer's fixed qparams) over
  the dim that is last in the input's physical layout => ``mote::softmax_s8``
  (another dim: fp32 between dequantize and quantize, with the warning below);
- ``matmul`` / ``bmm`` of two dq tensors (rank 2 to 4, equal leading batch dims)
  [-> mul / div by a positive Python number] => ``mote::bmm_s8`` on the operands
  viewed as [B, M, K] and [B, K, N]; a second operand that lies transposed in
  memory (``k`` of ``q @ k.transpose(-2, -1)``) is passed as it is with
  ``b_transposed``; the constant factor (attention's 1/sqrt(d)) folds into the
  requantize multiplier;
- ``masked_fill`` with a constant mask and value (shared qparams) =>
  ``aten::masked_fill`` on the int8 tensor with the quantized value (-inf: -128);
- ``cat`` (shared qparams) => ``aten::cat`` on int8 (dim remapped to the layout);
- pixel (un)shuffle => the same aten op on int8 (NCHW);
- ``slice`` / ``select`` => ``aten::slice_copy`` / ``select_copy`` on int8 in its layout;
- ``permute``/``transpose`` => a relabelled layout (no data movement);
  flatten/view/reshape/(un)squeeze => ``aten::view_copy`` on int8, preceded by
  ``aten::permute_copy`` back to NCHW when NHWC bytes differ from NCHW bytes;
- anything else runs in fp32 between ``dequantize`` and ``quantize`` and a
  :class:`Int8FallbackWarning` names the op.

4-D int8 activations are physically NHWC; the layout is tracked per value
and a ``permute_copy`` is inserted only where a consumer needs another layout.
Inputs and outputs stay fp32 (quantize/dequantize at the edges) unless
``int8_io=True``, in which case they are int8 in the model's own (NCHW) layout.
"""
from __future__ import annotations

import math
import operator
import warnings
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np
import torch
from torch.fx import Graph, GraphModule, Node

from aot.compiler import int8ref, int16ref
from aot.compiler.int4ref import pack_int4
from aot.compiler.quantize import LUT_OPS
from aot.compiler.quantize import ISLAND_KEY, EMBEDDING_OPS, PRELU_OPS
from aot.compiler.source import fused_nodes, module_of, set_fused, set_qparams, set_quant, source_location, source_of
from aot.compiler import mote_ops  # noqa: F401  (registers torch.ops.mote)
import torch.ao.quantization.fx._decomposed  # noqa: F401,E402  (registers quantized_decomposed)

__all__ = ["lower_int8", "int8_program", "Int8FallbackWarning", "Int8Info"]

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed
Q = qd.quantize_per_tensor.default
DQ = qd.dequantize_per_tensor.default
DQ_CH = qd.dequantize_per_channel.default
NHWC = (0, 2, 3, 1)
#: channels-last layout of a 3-D [N, C, L] value (physical [N, L, C])
NLC = (0, 2, 1)

ACTS = {aten.relu.default, aten.relu_.default, aten.relu6.default,
        aten.hardtanh.default, aten.hardtanh_.default}
VIEWS = {aten.flatten.using_ints, aten.view.default, aten.reshape.default,
         aten._unsafe_view.default, aten.squeeze.dim, aten.squeeze.dims,
         aten.squeeze.default, aten.unsqueeze.default, aten.view_copy.default}
IDENTITY = {aten.contiguous.default, aten.clone.default, aten.dropout.default}
SOFTMAX = {aten.softmax.int, aten._softmax.default}
MATMUL = {aten.matmul.default, aten.bmm.default}
#: a constant factor after a matmul (MoteQuantizer puts the output observer after it)
MATMUL_SCALE = {aten.mul.Tensor, aten.div.Tensor}
#: transposed convolution (weight [Cin, Cout/groups, kh, kw])
CONV_T = aten.conv_transpose2d.input
#: nearest upsampling: lowered to an index-table gather (mote::upsample_nearest2d_s8)
UPSAMPLE_NEAREST = {aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default,
                    aten._upsample_nearest_exact2d.vec, aten._upsample_nearest_exact2d.default}
UPSAMPLE_BILINEAR = {aten.upsample_bilinear2d.vec, aten.upsample_bilinear2d.default}
#: ops that only move elements (same qparams in and out): run on the int8 tensor as they are
MOVE_OPS = {aten.pixel_shuffle.default, aten.pixel_unshuffle.default}
_NO_WARN = {DQ_CH, qd.quantize_per_channel.default}


def lut_table(op, args, kwargs, qin: tuple, qout: tuple) -> torch.Tensor:
    """int8 [256]: entry i is quantize(op(dequantize(i - 128), *args, **kwargs))
    with the input (scale, zero point) ``qin`` and output ``qout``, computed
    with torch's own quantize_decomposed ops and ``op``, i.e. what PT2E's
    reference computes for that input value."""
    q = torch.arange(-128, 128, dtype=torch.int8)
    x = DQ(q, float(qin[0]), int(qin[1]), -128, 127, torch.int8)
    y = op(x, *args, **kwargs)
    return Q(y, float(qout[0]), int(qout[1]), -128, 127, torch.int8)


class Int8FallbackWarning(UserWarning):
    """An op of the quantized graph has no int8 kernel and runs in fp32."""


@dataclass
class Int8Info:
    """Facts about a lowering. input_qparams: per program input, (scale,
    zero_point) of its int8 form with ``int8_io`` (None: fp32 input, or
    int8_io off); output_qparams: per quantized output, (scale, zero_point);
    fallback_ops: names of the ops kept in fp32; fp32_islands: per planned
    fp32 island (a norm, or a per-channel PReLU, kept fp32 on purpose between
    dequantize and quantize; no warning), (kind, "file.py:line");
    fallback_sites: every op kept in fp32 next to int8 values, (op name,
    "file.py:line" or ""), one entry per graph node (the warning comes once per op)."""
    input_qparams: list
    output_qparams: list
    fallback_ops: list
    fp32_islands: list = field(default_factory=list)
    fallback_sites: list = field(default_factory=list)


@dataclass
class _QVal:
    """An int8 value of the new graph: ``node`` holds the physical tensor
    (logical tensor permuted by ``perm``)."""
    node: Node
    shape: tuple          # logical shape
    perm: tuple           # physical = logical.permute(perm)
    scale: float
    zp: int
    qmin: int = -128
    qmax: int = 127
    qname: str = ""       # the PT2E quantize node this value stands for
    dtype: torch.dtype = torch.int8   # torch.int16 with --int16-activations


#: (quant_min, quant_max) of each activation dtype the lowering takes; int16 is
#: symmetric (zero point 0) and feeds the mote::*_s16 ops
QRANGE = {torch.int8: (-128, 127), torch.int16: (-32768, 32767)}
#: what an int16 value can flow through without leaving int16
S16_KINDS = frozenset({"conv", "dwconv", "linear", "view", "permute", "identity"})
#: (int8 op, int16 op) of the kinds with weights
_CONV_OPS = {"conv": ("conv2d_s8", "conv2d_s16"), "dwconv": ("depthwise_conv2d_s8", "depthwise_conv2d_s16"),
             "linear": ("linear_s8", "linear_s16")}


def _inv(p):
    out = [0] * len(p)
    for i, v in enumerate(p):
        out[v] = i
    return tuple(out)


def _tag(node: Node, qname: str, perm) -> None:
    """Record on an int8 node which PT2E quantize node it holds and in which
    layout (``meta["mote_q"] = (name, perm)``: physical = logical.permute(perm),
    possibly reshaped). Tests use it to compare every op with PT2E layer by
    layer; the copy in meta["custom"] survives the re-export for aot debug."""
    if qname and "mote_q" not in node.meta:
        node.meta["mote_q"] = (qname, tuple(int(d) for d in perm))
        set_quant(node, qname, perm)


def _same_bytes(shape, p1, p2) -> bool:
    """True if the two layouts of a tensor of logical `shape` hold the same
    bytes (the dims larger than 1 keep their relative order)."""
    a = [d for d in p1 if shape[d] != 1]
    b = [d for d in p2 if shape[d] != 1]
    return a == b


def _fround(v: float, scale: float) -> int:
    """round-half-even(v / scale) as torch's quantize_per_tensor computes it (fp32)."""
    inv = np.float32(1.0) / np.float32(scale)
    return int(np.round(np.float32(v) * inv))


def _pair(v, default):
    if v is None:
        v = default
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return [int(x) for x in (v * 2 if len(v) == 1 else v)]


class _Lowering:
    def __init__(self, gm: GraphModule, example_inputs, int8_io: bool):
        self.gm = gm
        self.int8_io = int8_io
        self.root = torch.nn.Module()
        self.g = Graph()
        self.g.set_codegen(gm.graph._codegen)
        self.env: dict = {}        # old node -> new float node
        self.qv: dict = {}         # old q node -> _QVal
        self.layouts: dict = {}    # (id(qval), perm) -> node
        self.dq_cache: dict = {}   # old q node -> new float node
        self.plans: dict = {}      # old q node -> (kind, core, act)
        self.absorbed: set = set()
        self.n_const = 0
        self.fallback: list = []
        self.input_qparams: list = []
        self.input_q: dict = {}    # placeholder name -> (scale, zp) with int8_io
        self.output_qparams: list = []
        self.example_inputs = example_inputs
        self._propagated = False
        self.warned: set = set()   # targets already reported by Int8FallbackWarning
        self.sites: list = []      # (op, source) of every fp32 fallback node
        self.islands: list = []    # planned fp32 islands: (kind, "file.py:line")
        self.fusing = None         # PT2E node names the group being emitted computes
        from aot.compiler.quantize import int8_state_qparams, mutated_buffers
        self.mutable = mutated_buffers(gm)  # get_attr targets the model updates in place
        # buffers the model replaces by a quantized value: kept int8 ({target: (scale, zp)})
        self.int8_state = int8_state_qparams(gm)
        self.state_nodes: dict = {}  # target -> the new graph's get_attr of that buffer

    # ------------------------------------------------------------------ helpers
    def shape(self, n: Node) -> tuple:
        """Static shape of old node n (export's fake values; q/dq take their
        input's; shape propagation with the example inputs otherwise)."""
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            return tuple(int(d) for d in v.shape)
        if n.op == "call_function" and n.target in (Q, DQ) and isinstance(n.args[0], Node):
            return self.shape(n.args[0])
        if "tensor_meta" not in n.meta and not self._propagated:
            from torch.fx.passes.shape_prop import ShapeProp
            ShapeProp(self.gm).propagate(*self.example_inputs)
            self._propagated = True
        return tuple(int(d) for d in n.meta["tensor_meta"].shape)

    def const(self, t: torch.Tensor, hint: str) -> Node:
        name = f"_mote_{hint}_{self.n_const}"
        self.n_const += 1
        self.root.register_buffer(name, t.detach().contiguous().clone())
        return self.g.get_attr(name)

    def state(self, target: str, t: torch.Tensor) -> Node:
        """The mutable buffer `target` ("frames", "norm.running_mean") under the
        same path in the new module, so the program names it as the model does."""
        *path, leaf = target.split(".")
        mod = self.root
        for part in path:
            if not hasattr(mod, part):
                mod.add_module(part, torch.nn.Module())
            mod = getattr(mod, part)
        mod.register_buffer(leaf, t.detach().contiguous().clone())
        return self.g.get_attr(target)

    def attr(self, n: Node) -> torch.Tensor:
        obj = self.gm
        for part in n.target.split("."):
            obj = getattr(obj, part)
        return obj

    def call(self, target, args, src: Optional[Node] = None) -> Node:
        if target == aten.view_copy.default and isinstance(args[0], Node) \
                and args[0].target == aten.view_copy.default:
            args = (args[0].args[0],) + tuple(args[1:])  # view of a view: one view
        node = self.g.call_function(target, tuple(args))
        if src is not None:
            for k in ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node"):
                if k in src.meta:
                    node.meta[k] = src.meta[k]
            set_fused(node, self.fusing or fused_nodes(src))
        return node

    def layout(self, v: _QVal, perm: tuple, src=None) -> Node:
        """Node holding `v` physically as logical.permute(perm)."""
        if tuple(v.perm) == tuple(perm):
            return v.node
        key = (id(v), tuple(perm))
        if key not in self.layouts:
            phys = [v.shape[d] for d in perm]
            if _same_bytes(v.shape, v.perm, perm):
                node = self.call(aten.view_copy.default, (v.node, phys), src)
            else:
                # physical_new = physical_old.permute(r): r[i] = position of perm[i] in v.perm
                r = [list(v.perm).index(d) for d in perm]
                node = self.call(aten.permute_copy.default, (v.node, r), src)
            self.layouts[key] = node
            _tag(node, v.qname, perm)
            if v.qname:
                set_fused(node, [v.qname])  # a layout change of that value, not the group's op
        return self.layouts[key]

    def nhwc(self, v: _QVal, src=None) -> Node:
        return self.layout(v, NHWC, src)

    def plain(self, v: _QVal, src=None) -> Node:
        return self.layout(v, tuple(range(len(v.shape))), src)

    def dq_src(self, n) -> Optional[_QVal]:
        """The int8 value behind ``dq`` node n (None if n is not such a dq)."""
        if isinstance(n, Node) and n.op == "call_function" and n.target == DQ:
            src = n.args[0]
            if src in self.qv:
                return self.qv[src]
        return None

    def float_of(self, n: Node) -> Node:
        """New-graph float value for old node n (dequantizing int8 on demand)."""
        if n in self.env:
            return self.env[n]
        if n.op == "get_attr" and n.target in self.int8_state:
            # int8 state: stored int8 (its initial value quantized), read dequantized
            s, zp = self.int8_state[n.target]
            node = self.state(n.target, Q(self.attr(n), s, zp, -128, 127, torch.int8))
            self.state_nodes[n.target] = node
            self.env[n] = self.call(DQ, (node, s, zp, -128, 127, torch.int8))
            return self.env[n]
        if n.op == "get_attr" and n.target in self.mutable:
            self.env[n] = self.state(n.target, self.attr(n))
            return self.env[n]
        if n.op == "get_attr":
            self.env[n] = self.const(self.attr(n), n.name)
            return self.env[n]
        if n.op == "call_function" and n.target == DQ and n.args[0] in self.qv:
            src = n.args[0]
            if src not in self.dq_cache:
                v = self.qv[src]
                self.dq_cache[src] = self.call(DQ, (self.plain(v), v.scale, v.zp, v.qmin,
                                                    v.qmax, v.dtype))
            return self.dq_cache[src]
        if n.op == "call_function" and n.target == DQ and isinstance(n.args[0], Node) \
                and n.args[0].op == "get_attr":
            # A quantized constant that no int8 op absorbed (e.g. an nn.Parameter
            # used directly: `x * self.gain`): the op using it runs in fp32, so
            # dequantize the constant ahead of time, exactly as PT2E's reference does.
            s, zp = n.args[1], n.args[2]
            q = self.attr(n.args[0])
            self.env[n] = self.const(DQ(q, s, zp, *n.args[3:]), n.name)
            return self.env[n]
        raise RuntimeError(f"int8 lowering: no value for {n.format_node()}")

    def map_arg(self, a):
        if isinstance(a, Node):
            return self.float_of(a)
        if isinstance(a, (list, tuple)):
            return type(a)(self.map_arg(x) for x in a)
        if isinstance(a, dict):
            return {k: self.map_arg(v) for k, v in a.items()}
        return a

    # ------------------------------------------------------------------ matching
    @staticmethod
    def _is_dq_of_q(n) -> bool:
        return (isinstance(n, Node) and n.op == "call_function" and n.target == DQ
                and isinstance(n.args[0], Node) and n.args[0].target == Q)

    def match(self, q: Node):
        """(kind, core, act) if the float op(s) feeding q lower to an int8 op."""
        f = q.args[0]
        if not isinstance(f, Node) or f.op != "call_function" or len(f.users) != 1:
            return None
        act = None
        core = f
        if f.target in ACTS and isinstance(f.args[0], Node) and len(f.args[0].users) == 1 \
                and f.args[0].op == "call_function":
            inner = f.args[0]
            if inner.target in (aten.conv2d.default, aten.conv1d.default, aten.linear.default,
                                aten.add.Tensor, aten.mul.Tensor, CONV_T):
                core, act = inner, f
        elif self._matmul_factor(f) is not None:
            core, act = f.args[0], f
        t = core.target
        a = core.args
        tensors_ok = lambda xs: all(self._is_dq_of_q(x) for x in xs)  # noqa: E731
        kind = None
        if t in (aten.conv2d.default, aten.conv1d.default, aten.linear.default):
            w = a[1]
            b = a[2] if len(a) > 2 else None
            if tensors_ok([a[0]]) and self._weight(w) is not None \
                    and (b is None or self._bias(b) is not None):
                if t == aten.linear.default:
                    kind = "linear"
                else:
                    groups = int(a[6]) if len(a) > 6 else 1
                    cin = self.shape(a[0])[1]
                    cout = self.shape(core)[1]
                    if len(self.shape(a[0])) == (4 if t == aten.conv2d.default else 3):
                        if groups == 1:
                            kind = "conv"
                        elif groups == cin and cout % cin == 0:
                            kind = "dwconv"
        elif t == CONV_T:
            b = a[2] if len(a) > 2 else None
            if tensors_ok([a[0]]) and len(self.shape(a[0])) == 4 \
                    and self._weight(a[1], axis=1) is not None \
                    and (b is None or self._bias(b) is not None):
                kind = "tconv"
        elif t in (aten.add.Tensor, aten.mul.Tensor):
            if len(a) == 2 and tensors_ok(a[:2]) and self.shape(a[0]) == self.shape(a[1]) \
                    and (t != aten.add.Tensor or core.kwargs.get("alpha", 1) == 1):
                kind = "add" if t == aten.add.Tensor else "mul"
        elif t in MATMUL and (act is None or act.target in MATMUL_SCALE) and tensors_ok(a[:2]):
            sa, sb = self.shape(a[0]), self.shape(a[1])
            if len(sa) == len(sb) and 2 <= len(sa) <= 4 and sa[:-2] == sb[:-2] \
                    and sa[-1] == sb[-2] and min(sa + sb) >= 1:
                kind = "bmm"
        elif t == aten.masked_fill.Scalar and act is None and tensors_ok(a[:1]) \
                and self._same_qparams(a[0].args[0], q) and isinstance(a[1], Node) \
                and a[1].op == "get_attr" and isinstance(a[2], (int, float)) \
                and not isinstance(a[2], bool) and not math.isnan(float(a[2])):
            kind = "masked_fill"
        elif act is None and tensors_ok(a[:1]):
            same = self._same_qparams(a[0].args[0], q)
            rank = len(self.shape(a[0]))
            if t == aten.max_pool2d.default and rank == 4 and same \
                    and not (len(a) > 5 and a[5]):
                kind = "maxpool"
            elif t == aten.avg_pool2d.default and rank == 4 and same \
                    and not (len(a) > 4 and a[4]) and not (len(a) > 6 and a[6] is not None):
                kind = "avgpool"
            elif t == aten.adaptive_avg_pool2d.default and rank == 4 \
                    and list(a[1]) in ([1, 1], [1]):
                kind = "mean"
            elif t == aten.mean.dim and core.kwargs.get("dtype") is None and \
                    self._mean_dims(core) is not None:
                kind = "mean"
            elif (t == aten.constant_pad_nd.default or (
                    t == aten.pad.default and (a[2] if len(a) > 2 else
                                               core.kwargs.get("mode", "constant")) == "constant")) \
                    and same and min(a[1]) >= 0 and ((rank == 4 and len(a[1]) in (2, 4))
                                                     or (rank == 3 and len(a[1]) == 2)):
                kind = "pad"
            elif t == aten.slice.Tensor and same:
                kind = "slice"
            elif t == aten.select.int and same:
                kind = "select"
            elif t in MOVE_OPS and same and rank == 4:
                kind = "move"
            elif t in UPSAMPLE_NEAREST and same and rank == 4 \
                    and self.shape(a[0])[2] * self.shape(a[0])[3] <= 1 << 24:
                kind = "nearest"
            elif t in UPSAMPLE_BILINEAR and same and rank == 4 \
                    and max(self.shape(core) + self.shape(a[0])) <= 0x7fff:
                kind = "bilinear"
            elif t in VIEWS and same:
                kind = "view"
            elif t in (aten.permute.default, aten.transpose.int) and same:
                kind = "permute"
            elif t in IDENTITY and same:
                kind = "identity"
            elif t in SOFTMAX and self._softmax_ok(core, q):
                kind = "softmax"
            elif t in LUT_OPS and not any(isinstance(v, Node) for v in list(a[1:]) +
                                          list(core.kwargs.values())):
                kind = "lut"
        elif t in (aten.cat.default, aten.concat.default) and act is None:
            xs = a[0]
            if tensors_ok(xs) and all(self._same_qparams(x.args[0], q) for x in xs):
                kind = "cat"
        if kind is None and t in PRELU_OPS and act is None and tensors_ok(a[:1]) \
                and self._prelu_slope(core) is not None:
            kind = "lut_prelu"
        if kind is None and t in EMBEDDING_OPS and act is None and self._int8_table(core, q) is not None:
            kind = "embedding"
        if kind is None:
            return None
        if q.args[5] == torch.int16 or any(self._is_dq_of_q(x) and x.args[0].args[5] == torch.int16
                                           for x in core.all_input_nodes):
            ins = [x for x in core.all_input_nodes if self._is_dq_of_q(x)]
            if kind not in S16_KINDS or q.args[5] != torch.int16 \
                    or any(x.args[0].args[5] != torch.int16 for x in ins):
                return None
        return kind, core, act

    def _prelu_slope(self, core: Node):
        """The constant slope of a PReLU with one parameter (a 1-element tensor), else None."""
        w = core.args[1] if len(core.args) > 1 else None
        if isinstance(w, Node) and w.op == "get_attr" and ISLAND_KEY not in core.meta:
            t = self.attr(w)
            if isinstance(t, torch.Tensor) and t.numel() == 1 and t.is_floating_point():
                return t.detach().clone()
        return None

    def _int8_table(self, core: Node, q: Node):
        """(int8 table, scale, zero point) of an embedding whose table PT2E
        folded to a per-tensor int8 constant with the output's qparams, else None."""
        w = core.args[0]
        if not (isinstance(w, Node) and w.op == "call_function" and w.target == DQ
                and isinstance(w.args[0], Node) and w.args[0].op == "get_attr"):
            return None
        t = self.attr(w.args[0])
        if t.dtype != torch.int8 or tuple(w.args[1:6]) != tuple(q.args[1:6]):
            return None
        if len(core.args) > 4 and core.args[4]:   # sparse
            return None
        return t, float(w.args[1]), int(w.args[2])

    def _softmax_ok(self, core: Node, q: Node) -> bool:
        """softmax with int8ref.softmax_s8's output qparams, a supported depth
        and input scale, no dtype conversion."""
        a = core.args
        if core.target == aten.softmax.int:
            extra = a[2] if len(a) > 2 else core.kwargs.get("dtype")
        else:
            extra = a[2] if len(a) > 2 else core.kwargs.get("half_to_float", False)
        if extra not in (None, False):
            return False
        if tuple(q.args[1:6]) != (int8ref.SOFTMAX_OUT_SCALE, int8ref.SOFTMAX_OUT_ZERO_POINT,
                                  -128, 127, torch.int8):
            return False
        shape = self.shape(a[0])
        if not shape or not 1 <= shape[int(a[1]) % len(shape)] <= int8ref.SOFTMAX_MAX_DEPTH:
            return False
        try:
            int8ref.softmax_params(float(a[0].args[0].args[1]))
        except ValueError:
            return False
        return True

    @staticmethod
    def _matmul_factor(f: Node) -> Optional[float]:
        """The positive constant c of ``matmul(..) * c`` / ``matmul(..) / c`` (as a
        factor), when `f` is that mul/div and the matmul has no other user."""
        if f.target not in MATMUL_SCALE or len(f.args) != 2 or not isinstance(f.args[0], Node):
            return None
        c = f.args[1]
        inner = f.args[0]
        if inner.op != "call_function" or inner.target not in MATMUL or len(inner.users) != 1 \
                or not isinstance(c, (int, float)) or isinstance(c, bool) or not c > 0 \
                or not math.isfinite(float(c)):
            return None
        return float(c) if f.target == aten.mul.Tensor else 1.0 / float(c)

    @staticmethod
    def _same_qparams(qa: Node, qb: Node) -> bool:
        return tuple(qa.args[1:6]) == tuple(qb.args[1:6])

    def _weight(self, w, axis: int = 0):
        """(int8 weight tensor, scales float64 [Cout]) of a folded per-channel
        weight, quantized along `axis` (1 for a transposed convolution)."""
        if not (isinstance(w, Node) and w.target == DQ_CH and w.args[0].op == "get_attr"):
            return None
        wq = self.attr(w.args[0])
        if wq.dtype != torch.int8 or int(w.args[3]) != axis:
            return None
        scales = self.attr(w.args[1]).to(torch.float64)
        zps = self.attr(w.args[2])
        if bool((zps != 0).any()):
            return None
        return wq, scales

    def _bias(self, b):
        """('q', int32 tensor, scales) or ('f', float tensor) for a bias argument."""
        if isinstance(b, Node) and b.target == DQ_CH and b.args[0].op == "get_attr":
            bq = self.attr(b.args[0])
            if bq.dtype == torch.int32:
                return "q", bq, self.attr(b.args[1]).to(torch.float64)
            return None
        if isinstance(b, Node) and b.op == "get_attr":
            return "f", self.attr(b)
        return None

    def _mean_dims(self, core: Node):
        shape = self.shape(core.args[0])
        dims = sorted(d % len(shape) for d in core.args[1])
        if dims != list(range(dims[0], dims[-1] + 1)):
            return None
        return dims

    # ------------------------------------------------------------------ emission
    def clamp_of(self, act: Optional[Node], scale: float, zp: int, dtype=torch.int8):
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
        lo = max(lo, min(hi, zp + _fround(mn, scale)))
        if mx is not None:
            hi = min(hi, max(qmin, zp + _fround(mx, scale)))
        return lo, hi

    def requant(self, in_scale: float, w_scales: torch.Tensor, out_scale: float):
        ms, ss = [], []
        for ws in w_scales.tolist():
            m, s = int8ref.quantize_multiplier(float(in_scale) * ws / float(out_scale))
            ms.append(m)
            ss.append(s)
        return torch.tensor(ms, dtype=torch.int32), torch.tensor(ss, dtype=torch.int32)

    def int32_bias(self, bias_arg, bscale: torch.Tensor, cout: int) -> torch.Tensor:
        """int32 [Cout] bias: PT2E's quantized bias, a float bias quantized with
        scale `bscale` (input scale * weight scale per channel), or zeros."""
        if bias_arg is None:
            return torch.zeros(cout, dtype=torch.int32)
        kind_b, *rest = self._bias(bias_arg)
        if kind_b == "q":
            return rest[0].to(torch.int32)
        return torch.round(rest[0].to(torch.float64) / bscale).clamp(
            -(2 ** 31), 2 ** 31 - 1).to(torch.int32)

    def int64_bias(self, bias_arg, bscale: torch.Tensor, cout: int) -> torch.Tensor:
        """int64 [Cout] bias of an int16-activation op: the fp32 bias quantized
        at `bscale` (input scale * weight scale per channel), or zeros."""
        if bias_arg is None:
            return torch.zeros(cout, dtype=torch.int64)
        kind_b, *rest = self._bias(bias_arg)
        b = rest[0].to(torch.int64) if kind_b == "q" else torch.round(rest[0].to(torch.float64) / bscale)
        return b.clamp(-int16ref.BIAS_MAX, int16ref.BIAS_MAX).to(torch.int64)

    def conv_consts(self, kind: str, s16: bool, core: Node, x: _QVal, q: Node, act, wq, wsc, w_packed):
        """(op, leading tensor args, trailing scalar args) of a conv / linear in
        int8 or int16: packed weight, bias (int32 / int64), multiplier, shift;
        then the zero points (int8 only) and the activation clamp."""
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        name = core.name
        cout = wq.shape[0] if kind != "dwconv" else w_packed.shape[-1]
        bias_arg = core.args[2] if len(core.args) > 2 else None
        bias = (self.int64_bias if s16 else self.int32_bias)(bias_arg, x.scale * wsc, cout)
        mult, shift = self.requant(x.scale, wsc, s_out)
        if s16 and int(shift.max()) > int16ref.SHIFT_RANGE[1]:
            raise ValueError(f"int16 lowering: {core.name}: requantization scale "
                             f"{x.scale * float(wsc.max()) / s_out:.3g} beyond what mote::*_s16 takes (2^14)")
        lo, hi = self.clamp_of(act, s_out, zp_out, torch.int16 if s16 else torch.int8)
        op = getattr(torch.ops.mote, _CONV_OPS[kind][1 if s16 else 0]).default
        tensors = (self.const(w_packed, name + "_w"), self.const(bias, name + "_b"),
                   self.const(mult, name + "_m"), self.const(shift, name + "_s"))
        tail = (lo, hi) if s16 else (x.zp, zp_out, lo, hi)
        return op, tensors, tail

    def emit(self, q: Node, kind: str, core: Node, act: Optional[Node]) -> _QVal:
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        a = core.args
        oshape = self.shape(core)
        mk = lambda node, perm: _QVal(node, oshape, tuple(perm), s_out, zp_out)  # noqa: E731
        name = core.name
        if kind in ("conv", "dwconv", "linear") and q.args[5] == torch.int16:
            return self.emit_s16(q, kind, core, act)
        if kind in ("conv", "dwconv", "linear"):
            x = self.dq_src(a[0])
            wq, wsc = self._weight(a[1])
            bias_arg = a[2] if len(a) > 2 else None
            cout = wq.shape[0]
            bias = self.int32_bias(bias_arg, x.scale * wsc, cout)
            mult, shift = self.requant(x.scale, wsc, s_out)
            lo, hi = self.clamp_of(act, s_out, zp_out)
            if kind == "linear":
                xin = self.plain(x, core)
                xshape = x.shape
                if len(xshape) != 2:
                    xin = self.call(aten.view_copy.default, (xin, [-1, xshape[-1]]), core)
                    _tag(xin, x.qname, range(len(xshape)))
                s4 = (int(a[1].args[4]), int(a[1].args[5])) == (-8, 7) and wq.shape[1] % 2 == 0
                op, wconst = (torch.ops.mote.linear_s4.default,
                              torch.from_numpy(pack_int4(wq.numpy()))) if s4 else (torch.ops.mote.linear_s8.default, wq)
                node = self.call(op, (
                    xin, self.const(wconst, name + "_w"), self.const(bias, name + "_b"),
                    self.const(mult, name + "_m"), self.const(shift, name + "_s"),
                    x.zp, zp_out, lo, hi), core)
                set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out), wsc.tolist())
                if len(xshape) != 2:
                    _tag(node, q.name, range(len(oshape)))
                    node = self.call(aten.view_copy.default, (node, list(oshape)), core)
                return mk(node, range(len(oshape)))
            if core.target == aten.conv1d.default:
                return self.emit_conv1d(q, kind, core, x, wq, bias, mult, shift, lo, hi)
            stride = _pair(a[3] if len(a) > 3 else None, [1])
            padding = _pair(a[4] if len(a) > 4 else None, [0])
            dilation = _pair(a[5] if len(a) > 5 else None, [1])
            xin = self.nhwc(x, core)
            if kind == "conv":
                wpk = wq.permute(0, 2, 3, 1).contiguous()
                node = self.call(torch.ops.mote.conv2d_s8.default, (
                    xin, self.const(wpk, name + "_w"), self.const(bias, name + "_b"),
                    self.const(mult, name + "_m"), self.const(shift, name + "_s"),
                    stride, padding, dilation, x.zp, zp_out, lo, hi), core)
                set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out), wsc.tolist())
            else:
                dm = cout // x.shape[1]
                wpk = wq.permute(1, 2, 3, 0).contiguous()
                node = self.call(torch.ops.mote.depthwise_conv2d_s8.default, (
                    xin, self.const(wpk, name + "_w"), self.const(bias, name + "_b"),
                    self.const(mult, name + "_m"), self.const(shift, name + "_s"),
                    stride, padding, dilation, dm, x.zp, zp_out, lo, hi), core)
                set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out), wsc.tolist())
            return mk(node, NHWC)
        if kind in ("add", "mul"):
            xa, xb = self.dq_src(a[0]), self.dq_src(a[1])
            perm = xa.perm
            na, nb = xa.node, self.layout(xb, perm, core)
            lo, hi = self.clamp_of(act, s_out, zp_out)
            if kind == "add":
                p = int8ref.add_params(xa.scale, xb.scale, s_out)
                node = self.call(torch.ops.mote.add_s8.default, (
                    na, nb, xa.zp, p["a_multiplier"], p["a_shift"], xb.zp, p["b_multiplier"],
                    p["b_shift"], p["left_shift"], zp_out, p["output_multiplier"],
                    p["output_shift"], lo, hi), core)
            else:
                m, s = int8ref.quantize_multiplier(xa.scale * xb.scale / s_out)
                node = self.call(torch.ops.mote.mul_s8.default, (
                    na, nb, xa.zp, xb.zp, zp_out, m, s, lo, hi), core)
            set_qparams(node, [(xa.scale, xa.zp), (xb.scale, xb.zp)], (s_out, zp_out))
            return mk(node, perm)
        if kind == "bmm":
            return self.emit_bmm(q, core, act)
        if kind == "tconv":
            return self.emit_conv_transpose(q, core, act)
        if kind == "embedding":   # row gather on the int8 table; the output shares its qparams
            table, _, _ = self._int8_table(core, q)
            node = self.call(aten.embedding.default, (self.const(table, name + "_table"),
                                                      self.map_arg(a[1])), core)
            return mk(node, range(len(oshape)))
        x = self.dq_src(a[0])
        if kind in ("nearest", "bilinear"):
            return self.emit_upsample(q, kind, core, x)
        if kind == "maxpool":
            k = _pair(a[1], None)
            st = _pair(a[2] if len(a) > 2 and len(a[2]) else None, k)
            pd = _pair(a[3] if len(a) > 3 else None, [0])
            dl = _pair(a[4] if len(a) > 4 else None, [1])
            node = self.call(torch.ops.mote.max_pool2d_s8.default,
                             (self.nhwc(x, core), k, st, pd, dl, -128, 127), core)
            set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out))
            return mk(node, NHWC)
        if kind == "avgpool":
            k = _pair(a[1], None)
            st = _pair(a[2] if len(a) > 2 and len(a[2]) else None, k)
            pd = _pair(a[3] if len(a) > 3 else None, [0])
            cip = bool(a[5]) if len(a) > 5 else bool(core.kwargs.get("count_include_pad", True))
            node = self.call(torch.ops.mote.avg_pool2d_s8.default,
                             (self.nhwc(x, core), k, st, pd, cip, x.zp, -128, 127), core)
            return mk(node, NHWC)
        if kind == "mean":
            return self.emit_mean(q, core, x)
        if kind == "pad" and len(x.shape) == 3:
            # [N, C, L] as NHWC [N, 1, L, C]: pad W
            left, right = (int(v) for v in a[1])
            vi = 2 if core.target == aten.constant_pad_nd.default else 3
            value = a[vi] if len(a) > vi else core.kwargs.get("value", 0.0)
            value = 0.0 if value is None else float(value)
            pv = max(-128, min(127, x.zp + _fround(value, x.scale)))
            node = self.call(torch.ops.mote.pad_s8.default,
                             (self.nlc4(x, core), [0, 0, left, right], pv), core)
            _tag(node, q.name, NLC)
            node = self.call(aten.view_copy.default, (node, [oshape[0], oshape[2], oshape[1]]), core)
            return mk(node, NLC)
        if kind == "slice":   # on the physical tensor: the sliced dim's position in it
            dim = int(a[1]) % len(x.shape) if len(a) > 1 else 0
            start = a[2] if len(a) > 2 else None
            end = a[3] if len(a) > 3 else None
            step = int(a[4]) if len(a) > 4 else 1
            node = self.call(aten.slice_copy.Tensor, (x.node, list(x.perm).index(dim), start, end, step), core)
            return mk(node, x.perm)
        if kind == "move":   # data movement that is the same on int8 bytes, NCHW as torch's op
            node = self.call(core.target, (self.plain(x, core),) + tuple(a[1:]), core)
            return mk(node, range(len(oshape)))
        if kind == "select":
            dim = int(a[1]) % len(x.shape)
            node = self.call(aten.select_copy.int, (x.node, list(x.perm).index(dim), int(a[2])), core)
            rest = [d for d in x.perm if d != dim]          # logical dims in physical order
            return mk(node, tuple(d - (d > dim) for d in rest))
        if kind == "pad":
            p = [int(v) for v in a[1]] + [0, 0]
            left, right, top, bottom = p[:4]
            vi = 2 if core.target == aten.constant_pad_nd.default else 3
            value = a[vi] if len(a) > vi else core.kwargs.get("value", 0.0)
            value = 0.0 if value is None else float(value)
            pv = max(-128, min(127, x.zp + _fround(value, x.scale)))
            node = self.call(torch.ops.mote.pad_s8.default,
                             (self.nhwc(x, core), [top, bottom, left, right], pv), core)
            return mk(node, NHWC)
        if kind == "cat":
            vs = [self.dq_src(n) for n in a[0]]
            perm = vs[0].perm
            dim = int(a[1]) if len(a) > 1 else int(core.kwargs.get("dim", 0))
            dim %= len(oshape)
            nodes = [self.layout(v, perm, core) for v in vs]
            node = self.call(aten.cat.default, (nodes, list(perm).index(dim)), core)
            return mk(node, perm)
        if kind == "view":
            node = self.call(aten.view_copy.default, (self.plain(x, core), list(oshape)), core)
            return mk(node, range(len(oshape)))
        if kind == "permute":
            if core.target == aten.transpose.int:
                r = len(x.shape)
                p = list(range(r))
                d0, d1 = int(a[1]) % r, int(a[2]) % r
                p[d0], p[d1] = p[d1], p[d0]
            else:
                p = [int(d) % len(x.shape) for d in a[1]]
            pinv = _inv(p)
            return _QVal(x.node, oshape, tuple(pinv[d] for d in x.perm), s_out, zp_out)
        if kind == "identity":
            return _QVal(x.node, oshape, x.perm, s_out, zp_out)
        if kind == "softmax":
            return self.emit_softmax(q, core, x)
        if kind == "masked_fill":
            return self.emit_masked_fill(q, core, x)
        if kind == "lut_prelu":   # PReLU with one slope: elementwise with a constant
            table = lut_table(core.target, (self._prelu_slope(core),), {}, (x.scale, x.zp),
                              (s_out, zp_out))
            node = self.call(torch.ops.mote.lut_s8.default, (x.node, self.const(table, name + "_lut")), core)
            return _QVal(node, oshape, x.perm, s_out, zp_out)
        if kind == "lut":   # elementwise: any layout, so the physical tensor as it is
            table = lut_table(core.target, core.args[1:], core.kwargs, (x.scale, x.zp), (s_out, zp_out))
            node = self.call(torch.ops.mote.lut_s8.default, (x.node, self.const(table, name + "_lut")), core)
            return _QVal(node, oshape, x.perm, s_out, zp_out)
        raise AssertionError(kind)

    def emit_s16(self, q: Node, kind: str, core: Node, act: Optional[Node]) -> _QVal:
        """conv2d / conv1d (dense, depthwise) / linear with int16 activations =>
        mote::conv2d_s16 / depthwise_conv2d_s16 / linear_s16: the int8 ops' layouts
        and weight packing, int64 bias, no zero points (aot.compiler.int16ref)."""
        a = core.args
        x = self.dq_src(a[0])
        wq, wsc = self._weight(a[1])
        oshape = self.shape(core)
        mk = lambda node, perm: _QVal(node, oshape, tuple(perm), float(q.args[1]), 0)  # noqa: E731
        if kind == "linear":
            op, tensors, tail = self.conv_consts(kind, True, core, x, q, act, wq, wsc, wq)
            xin = self.plain(x, core)
            if len(x.shape) != 2:
                xin = self.call(aten.view_copy.default, (xin, [-1, x.shape[-1]]), core)
                _tag(xin, x.qname, range(len(x.shape)))
            node = self.call(op, (xin,) + tensors + tail, core)
            if len(x.shape) != 2:
                _tag(node, q.name, range(len(oshape)))
                node = self.call(aten.view_copy.default, (node, list(oshape)), core)
            return mk(node, range(len(oshape)))
        conv1d = core.target == aten.conv1d.default
        if conv1d:   # as a 2-D conv of height 1 on [N, 1, L, C] (emit_conv1d's layout)
            first = lambda i, default: int(list(a[i])[0]) if len(a) > i and a[i] is not None else default  # noqa: E731
            geometry = ([1, first(3, 1)], [0, first(4, 0)], [1, first(5, 1)])
            w4 = wq.unsqueeze(2)
            xin = self.nlc4(x, core)
        else:
            geometry = (_pair(a[3] if len(a) > 3 else None, [1]), _pair(a[4] if len(a) > 4 else None, [0]),
                        _pair(a[5] if len(a) > 5 else None, [1]))
            w4 = wq
            xin = self.nhwc(x, core)
        if kind == "conv":
            wpk, dm = w4.permute(0, 2, 3, 1).contiguous(), ()
        else:
            wpk, dm = w4.permute(1, 2, 3, 0).contiguous(), (wq.shape[0] // x.shape[1],)
        op, tensors, tail = self.conv_consts(kind, True, core, x, q, act, wq, wsc, wpk)
        node = self.call(op, (xin,) + tensors + geometry + dm + tail, core)
        if not conv1d:
            return mk(node, NHWC)
        _tag(node, q.name, NLC)
        node = self.call(aten.view_copy.default, (node, [oshape[0], oshape[2], oshape[1]]), core)
        return mk(node, NLC)

    def emit_conv_transpose(self, q: Node, core: Node, act: Optional[Node]) -> _QVal:
        """conv_transpose2d(x, w [Cin, Cout/g, KH, KW], b, stride, padding,
        output_padding, groups, dilation) => mote::conv_transpose2d_s8 on NHWC, the
        weight packed to [Cout, KH, KW, Cin/g]; PT2E's Cout/g weight scales (axis 1)
        apply to every group."""
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        a, name = core.args, core.name
        x = self.dq_src(a[0])
        wq, wsc = self._weight(a[1], axis=1)
        groups = int(a[6]) if len(a) > 6 else 1
        cin, cog, kh, kw = wq.shape
        cout = cog * groups
        wsc = wsc.repeat(groups)
        bias = self.int32_bias(a[2] if len(a) > 2 else None, x.scale * wsc, cout)
        mult, shift = self.requant(x.scale, wsc, s_out)
        lo, hi = self.clamp_of(act, s_out, zp_out)
        wpk = wq.reshape(groups, cin // groups, cog, kh, kw).permute(0, 2, 3, 4, 1) \
            .reshape(cout, kh, kw, cin // groups).contiguous()
        node = self.call(torch.ops.mote.conv_transpose2d_s8.default, (
            self.nhwc(x, core), self.const(wpk, name + "_w"), self.const(bias, name + "_b"),
            self.const(mult, name + "_m"), self.const(shift, name + "_s"),
            _pair(a[3] if len(a) > 3 else None, [1]), _pair(a[4] if len(a) > 4 else None, [0]),
            _pair(a[5] if len(a) > 5 else None, [0]), _pair(a[7] if len(a) > 7 else None, [1]),
            groups, x.zp, zp_out, lo, hi), core)
        return _QVal(node, self.shape(core), NHWC, s_out, zp_out)

    def emit_upsample(self, q: Node, kind: str, core: Node, x: _QVal) -> _QVal:
        """Nearest: source index tables from torch's own op run on an index grid
        (exact for every scale / size / mode). Bilinear: ATen's fp32 source step
        per axis in Q32, align_corners as given."""
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        oshape = self.shape(core)
        a, name = core.args, core.name
        h, w = x.shape[2], x.shape[3]
        if kind == "nearest":
            grid = torch.arange(h * w, dtype=torch.float32).reshape(1, 1, h, w)
            idx = core.target(grid, *a[1:], **core.kwargs)[0, 0].to(torch.int64)
            ih, iw = (idx[:, 0] // w).to(torch.int32), (idx[0, :] % w).to(torch.int32)
            node = self.call(torch.ops.mote.upsample_nearest2d_s8.default, (
                self.nhwc(x, core), self.const(ih, name + "_ih"), self.const(iw, name + "_iw")), core)
            return _QVal(node, oshape, NHWC, s_out, zp_out)
        ac = bool(a[2]) if len(a) > 2 else bool(core.kwargs.get("align_corners", False))
        if core.target == aten.upsample_bilinear2d.vec:
            sf = a[3] if len(a) > 3 else core.kwargs.get("scale_factors")
            sf = list(sf) if sf is not None else [None, None]
        else:
            sf = [a[3] if len(a) > 3 else core.kwargs.get("scales_h"),
                  a[4] if len(a) > 4 else core.kwargs.get("scales_w")]
        ho, wo = oshape[2], oshape[3]
        steps = [int8ref.upsample_scale_q32(h, ho, ac, sf[0]),
                 int8ref.upsample_scale_q32(w, wo, ac, sf[1])]
        node = self.call(torch.ops.mote.upsample_bilinear2d_s8.default,
                         (self.nhwc(x, core), [ho, wo], ac, steps), core)
        return _QVal(node, oshape, NHWC, s_out, zp_out)

    def nlc4(self, x: _QVal, src=None) -> Node:
        """A 3-D int8 value [N, C, L] as the NHWC tensor [N, 1, L, C] (its bytes in
        the channels-last layout NLC, viewed with H = 1) for the 2-D int8 kernels."""
        node = self.call(aten.view_copy.default, (self.layout(x, NLC, src), [x.shape[0], 1, x.shape[2],
                                                                                x.shape[1]]), src)
        _tag(node, x.qname, NLC)
        return node

    def emit_conv1d(self, q: Node, kind: str, core: Node, x: _QVal, wq, bias, mult, shift,
                    lo: int, hi: int) -> _QVal:
        """conv1d as a 2-D int8 conv of height 1: input [N, C, L] as NHWC [N, 1, L, C],
        weight [Cout, Cin/g, K] packed like a [.., 1, K] kernel, output back to [N, Cout, L']
        held channels-last (NLC)."""
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        a, name = core.args, core.name
        oshape = self.shape(core)
        first = lambda i, default: int(list(a[i])[0]) if len(a) > i and a[i] is not None else default  # noqa: E731
        stride, padding, dilation = [1, first(3, 1)], [0, first(4, 0)], [1, first(5, 1)]
        xin = self.nlc4(x, core)
        w4 = wq.unsqueeze(2)                                   # [Cout, Cin/g, 1, K]
        if kind == "conv":
            node = self.call(torch.ops.mote.conv2d_s8.default, (
                xin, self.const(w4.permute(0, 2, 3, 1).contiguous(), name + "_w"),
                self.const(bias, name + "_b"), self.const(mult, name + "_m"),
                self.const(shift, name + "_s"), stride, padding, dilation, x.zp, zp_out, lo, hi), core)
        else:
            node = self.call(torch.ops.mote.depthwise_conv2d_s8.default, (
                xin, self.const(w4.permute(1, 2, 3, 0).contiguous(), name + "_w"),
                self.const(bias, name + "_b"), self.const(mult, name + "_m"),
                self.const(shift, name + "_s"), stride, padding, dilation, oshape[1] // x.shape[1],
                x.zp, zp_out, lo, hi), core)
        _tag(node, q.name, NLC)
        node = self.call(aten.view_copy.default, (node, [oshape[0], oshape[2], oshape[1]]), core)
        return _QVal(node, oshape, NLC, s_out, zp_out)

    def emit_bmm(self, q: Node, core: Node, scale_node: Optional[Node]) -> _QVal:
        """mote::bmm_s8 for matmul(dq(a), dq(b)) [* c]: both operands viewed as 3-D
        [B, M, K] / [B, K, N] (leading dims flattened); `b` is passed as it lies when
        its last two dims are swapped in memory (b_transposed), else in its plain
        layout (permute_copy only if it is held otherwise). Real multiplier
        a_scale * b_scale * c / out_scale. Output plain layout."""
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        oshape = self.shape(core)
        xa, xb = self.dq_src(core.args[0]), self.dq_src(core.args[1])
        r = len(xa.shape)
        plain = tuple(range(r))
        swapped = plain[:-2] + (r - 1, r - 2)
        trans = r >= 2 and tuple(xb.perm) == swapped and xb.shape[-1] > 1 and xb.shape[-2] > 1
        na = self.layout(xa, plain, core)
        nb = xb.node if trans else self.layout(xb, plain, core)
        batch = int(np.prod(xa.shape[:-2], dtype=np.int64))
        m, k, n = xa.shape[-2], xa.shape[-1], xb.shape[-1]
        a3, b3 = [batch, m, k], ([batch, n, k] if trans else [batch, k, n])
        if r != 3:
            na = self.call(aten.view_copy.default, (na, a3), core)
            _tag(na, xa.qname, plain)
            nb = self.call(aten.view_copy.default, (nb, b3), core)
            _tag(nb, xb.qname, swapped if trans else plain)
        factor = 1.0 if scale_node is None else self._matmul_factor(scale_node)
        mult, shift = int8ref.quantize_multiplier(xa.scale * xb.scale * factor / s_out)
        node = self.call(torch.ops.mote.bmm_s8.default, (
            na, nb, bool(trans), xa.zp, xb.zp, zp_out, mult, shift, -128, 127), core)
        if r != 3:
            _tag(node, q.name, plain)
            node = self.call(aten.view_copy.default, (node, list(oshape)), core)
        return _QVal(node, oshape, plain, s_out, zp_out)

    def emit_masked_fill(self, q: Node, core: Node, x: _QVal) -> _QVal:
        """masked_fill(dq(x), constant mask, value) with shared qparams: the same op on
        the int8 tensor in its layout (the mask broadcast and permuted alike) with the
        value quantized; -inf / +inf saturate to -128 / 127, as torch's quantize of
        them does. Exactly PT2E's reference: q(where(m, v, dq(x))) = where(m, q(v), x)."""
        mask = self.attr(core.args[1]).to(torch.bool).expand(x.shape).permute(x.perm).contiguous()
        value = float(core.args[2])
        if math.isinf(value):
            pv = -128 if value < 0 else 127
        else:
            pv = max(-128, min(127, x.zp + _fround(value, x.scale)))
        node = self.call(aten.masked_fill.Scalar, (x.node, self.const(mask, core.name + "_mask"), pv),
                         core)
        return _QVal(node, self.shape(core), x.perm, float(q.args[1]), int(q.args[2]))

    def emit_softmax(self, q: Node, core: Node, x: _QVal) -> _QVal:
        """mote::softmax_s8 on the physical tensor when the softmax dim is its
        last dim; else fp32 softmax between dequantize and quantize."""
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        oshape = self.shape(core)
        dim = int(core.args[1]) % len(x.shape)
        if x.perm.index(dim) == len(x.perm) - 1:
            m, ls, dmin = int8ref.softmax_params(x.scale)
            node = self.call(torch.ops.mote.softmax_s8.default, (x.node, m, ls, dmin), core)
            return _QVal(node, oshape, x.perm, s_out, zp_out)
        self.warn_fallback(core, stacklevel=7)
        f = self.g.call_function(core.target, self.map_arg(core.args), self.map_arg(core.kwargs))
        f.meta = {k: v for k, v in core.meta.items() if k not in ("tensor_meta", "val")}
        node = self.call(Q, (f, s_out, zp_out, -128, 127, torch.int8), core)
        return _QVal(node, oshape, tuple(range(len(oshape))), s_out, zp_out)

    def warn_fallback(self, n: Node, stacklevel: int = 4) -> None:
        """Record op `n` as kept in fp32 (one Int8FallbackWarning per target),
        reported at the model's own file:line with its module path."""
        if n.target is operator.getitem:
            return  # picks one output of a multi-output op, which is reported itself
        name = getattr(n.target, "__name__", str(n.target))
        self.sites.append((name.split(".")[0], source_of(n) or ""))
        if n.target in self.warned:
            return
        self.warned.add(n.target)
        self.fallback.append(str(n.target))
        where = ", ".join(x for x in (source_of(n), module_of(n)) if x)
        scheme = "int16" if any(x.target in (Q, DQ) and len(x.args) > 5 and x.args[5] == torch.int16
                                for x in list(n.all_input_nodes) + list(n.users)) else "int8"
        message = (f"mote {scheme}: no {scheme} kernel for {name} ({n.name}{'; ' + where if where else ''}); "
                   f"it runs in fp32 between dequantize and quantize")
        loc = source_location(n)
        if loc is None:
            warnings.warn(message, Int8FallbackWarning, stacklevel=stacklevel)
        else:
            warnings.warn_explicit(message, Int8FallbackWarning, filename=loc[0], lineno=loc[1],
                                   module="mote.int8")

    def emit_mean(self, q: Node, core: Node, x: _QVal) -> _QVal:
        s_out, zp_out = float(q.args[1]), int(q.args[2])
        oshape = self.shape(core)
        rank = len(x.shape)
        if core.target == aten.adaptive_avg_pool2d.default:
            dims, keep = [2, 3], True
        else:
            dims = self._mean_dims(core)
            keep = bool(core.args[2]) if len(core.args) > 2 else bool(core.kwargs.get("keepdim", False))
        # reduce over dims that are contiguous in the physical layout
        perm = x.perm
        phys_dims = sorted(perm.index(d) for d in dims)
        if phys_dims != list(range(phys_dims[0], phys_dims[-1] + 1)):
            perm = tuple(range(rank))
            phys_dims = dims
        src = self.layout(x, perm, core)
        phys = [x.shape[d] for d in perm]
        lo_d, hi_d = phys_dims[0], phys_dims[-1] + 1
        pre = int(np.prod(phys[:lo_d], dtype=np.int64))
        red = int(np.prod(phys[lo_d:hi_d], dtype=np.int64))
        post = int(np.prod(phys[hi_d:], dtype=np.int64))
        if rank == 4 and (lo_d, hi_d) == (1, 3):
            inp = src  # physical [N, H, W, C], reduce H and W
        else:
            inp = self.call(aten.view_copy.default, (src, [pre, red, 1, post]), core)
            _tag(inp, x.qname, perm)
        m, s = int8ref.quantize_multiplier(x.scale / (s_out * red))
        node = self.call(torch.ops.mote.mean_s8.default, (inp, x.zp, zp_out, m, s), core)
        set_qparams(node, [(x.scale, x.zp)], (s_out, zp_out))
        # physical result: phys with the reduced dims set to 1 (keepdim) or dropped
        kept = [i for i in range(rank) if i not in phys_dims]
        if keep:
            out_phys = [1 if i in phys_dims else phys[i] for i in range(rank)]
            out_perm = perm
        else:
            out_phys = [phys[i] for i in kept]
            remaining = [perm[i] for i in kept]  # logical dims (old numbering) in phys order
            order = sorted(remaining)
            out_perm = tuple(order.index(d) for d in remaining)
        _tag(node, q.name, out_perm)
        if list(out_phys) != [pre, 1, 1, post]:
            node = self.call(aten.view_copy.default, (node, out_phys), core)
        return _QVal(node, oshape, tuple(out_perm), s_out, zp_out)

    # ------------------------------------------------------------------ driver
    def run(self) -> GraphModule:
        nodes = list(self.gm.graph.nodes)
        for n in nodes:
            if n.op == "call_function" and n.target == Q:
                m = self.match(n)
                if m is not None:
                    self.plans[n] = m
                    self.absorbed.add(m[1])
                    if m[2] is not None:
                        self.absorbed.add(m[2])
        for n in nodes:
            if n.op == "placeholder":
                new = self.g.placeholder(n.name, type_expr=n.type)
                new.meta = dict(n.meta)
                self.env[n] = new
            elif n.op == "get_attr":
                continue  # copied on demand
            elif n.op == "output":
                self.g.output(self.map_output(n.args[0]))
            elif n.target == Q:
                self.lower_q(n)
            elif n.target == aten.copy_.default and getattr(n.args[0], "target", None) in self.int8_state:
                # the write-back of an int8 state: the quantized value itself, no dequantize
                self.float_of(n.args[0])
                v = self.qv[n.args[1].args[0]]
                self.env[n] = self.g.call_function(aten.copy_.default, (
                    self.state_nodes[n.args[0].target], self.plain(v, n)))
            elif n.target == DQ or n in self.absorbed:
                continue  # dequantized on demand / fused
            elif n.op == "call_function":
                island = n.meta.get(ISLAND_KEY)
                if island is not None:   # planned fp32 island: reported, not warned
                    if island[1]:
                        self.islands.append((island[0], source_of(n)))
                elif n.target not in _NO_WARN:
                    if any(self._is_dq_of_q(x) for x in n.all_input_nodes) or \
                            any(u.target == Q for u in n.users):
                        self.warn_fallback(n)
                new = self.g.call_function(n.target, self.map_arg(n.args), self.map_arg(n.kwargs))
                new.meta = {k: v for k, v in n.meta.items() if k not in ("tensor_meta", "val")}
                set_fused(new, fused_nodes(n))
                self.env[n] = new
            else:
                raise RuntimeError(f"int8 lowering: unsupported node {n.format_node()}")
        self.input_qparams = [self.input_q.get(n.name) for n in nodes if n.op == "placeholder"]
        self.g.eliminate_dead_code()
        self.g.lint()
        gm = GraphModule(self.root, self.g)
        gm.meta["mote_int8"] = Int8Info(self.input_qparams, self.output_qparams, self.fallback,
                                        self.islands, self.sites)
        return gm

    def lower_q(self, q: Node) -> None:
        s, zp, qmin, qmax, dt = q.args[1:6]
        if QRANGE.get(dt) != (qmin, qmax) or (dt == torch.int16 and zp != 0):
            raise ValueError(f"int8 lowering: unsupported quantize {q.format_node()}")
        if q in self.plans:
            kind, core, act = self.plans[q]
            # the PT2E nodes this group computes: weights/bias, op, activation, requantize
            params = [a for a in core.all_input_nodes  # weight / bias (dequantized constants)
                      if a.op == "get_attr" or (a.all_input_nodes
                                                and all(b.op == "get_attr" for b in a.all_input_nodes))]
            self.fusing = [a.name for a in params] + [core.name] + ([act.name] if act is not None else []) + [q.name]
            try:
                v = self.emit(q, kind, core, act)
            finally:
                self.fusing = None
            v.qname = q.name
            v.qmin, v.qmax, v.dtype = qmin, qmax, dt
            _tag(v.node, q.name, v.perm)
            self.qv[q] = v
            return
        src = q.args[0]
        shape = self.shape(src)
        if self.int8_io and src.op == "placeholder":
            if any(u is not q for u in src.users):
                raise ValueError(f"int8_io: input {src.name} is also used in fp32")
            node = self.env[src]
            self.input_q[src.name] = (float(s), int(zp))
        else:
            self.fusing = [q.name]
            try:
                node = self.call(Q, (self.float_of(src), float(s), int(zp), qmin, qmax, dt), src)
            finally:
                self.fusing = None
        self.qv[q] = _QVal(node, shape, tuple(range(len(shape))), float(s), int(zp), qmin, qmax, q.name, dt)
        _tag(node, q.name, self.qv[q].perm)

    def map_output(self, a):
        if isinstance(a, (list, tuple)):
            return type(a)(self.map_output(x) for x in a)
        if isinstance(a, Node):
            v = self.dq_src(a)
            if v is not None:
                if self.int8_io:
                    self.output_qparams.append((v.scale, v.zp))
                    return self.plain(v)
                self.output_qparams.append((v.scale, v.zp))
            return self.float_of(a)
        return a


def lower_int8(gm, example_inputs: Sequence[torch.Tensor], int8_io: bool = False) -> GraphModule:
    """Rewrite a ``convert_pt2e`` GraphModule into ``mote::`` int8 ops.

    gm: the converted GraphModule (or an ExportedProgram of it);
    example_inputs: fp32 inputs (shapes are propagated with them where the
    graph lacks static shapes);
    int8_io: keep program inputs/outputs int8 (NCHW, as the model's own
    layout; their qparams are in ``result.meta["mote_int8"]``).
    Returns a GraphModule of aten / quantized_decomposed / mote ops whose
    constants (packed weights, int32 bias, multipliers, shifts) are buffers;
    it runs eagerly (mote ops execute :mod:`aot.compiler.int8ref`) and exports with
    ``torch.export``. Emits :class:`Int8FallbackWarning` per op kept in fp32.
    """
    if isinstance(gm, torch.export.ExportedProgram):
        gm = gm.module(check_guards=False)
    return _Lowering(gm, tuple(example_inputs), int8_io).run()


def int8_program(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
                 calibration=None, int8_io: bool = False,
                 converted=None) -> torch.export.ExportedProgram:
    """quantize (PT2E) -> lower_int8 -> ``torch.export.export``.

    calibration: see :func:`aot.compiler.quantize.quantize`; ``converted``: the
    result of that call when the caller already has it (PT2E then does not run
    again; the converted module is not modified). With ``int8_io`` the
    program's inputs are int8 (NCHW; the example inputs are quantized with the
    input qparams) and its outputs int8; the (scale, zero_point) pairs are in
    ``ep.graph_module.meta["mote_int8"]`` (an :class:`Int8Info`).
    Returns the ExportedProgram, ready for the generic lowering.
    """
    if converted is None:
        from aot.compiler.quantize import quantize
        converted, _ = quantize(module, example_inputs, calibration)
    lowered = lower_int8(converted, example_inputs, int8_io=int8_io)
    inputs = tuple(example_inputs)
    info: Int8Info = lowered.meta["mote_int8"]
    if int8_io:
        inputs = tuple(
            x if qp is None else torch.clamp(torch.round(x / qp[0]) + qp[1], -128, 127).to(torch.int8)
            for x, qp in zip(inputs, info.input_qparams))
    ep = torch.export.export(lowered, inputs, strict=False)
    ep.graph_module.meta["mote_int8"] = info
    return ep
