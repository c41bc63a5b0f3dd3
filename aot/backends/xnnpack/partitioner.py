"""What XNNPACK takes from a Mote program, and the lowering of a subgraph to
ExecuTorch's XNNPACK payload (schema.py).

fp32: convolution (groups 1, or depthwise: one input
channel per group), addmm with a constant weight (fully connected), add / mul
of two equal-shape tensors, relu / hardtanh / clamp, sigmoid, softmax over
the last dimension, mean over H and W (global average pooling) and et_view
where NCHW and NHWC order agree. Inside the payload every 4-D tensor is NHWC
(XNNPACK's layout); the 2022 XNNPACK Debian ships has no subgraph transpose,
so the layout changes at the subgraph's edges are Mote aten::permute_copy
calls before and after the DelegateCall. A clamp right after a convolution,
fully connected or add whose result nothing else reads is fused into it
(the node's output_min_max), as ExecuTorch's XNNPACK preprocess does.

int8: Mote's mote:: int8 operators as XNNPACK's qs8 / qc8 ones (qs8.py).
"""
from __future__ import annotations

import math
from math import prod

import numpy as np

from aot import ir
from aot.backends.xnnpack import qs8
from aot.pte.schema import ScalarType
from aot.backends.xnnpack import schema as xs
from aot.compiler.partition import Partitioner, Subgraph

NCHW_TO_NHWC = [0, 2, 3, 1]
NHWC_TO_NCHW = [0, 3, 1, 2]
#: quantize / dequantize at a quantized program's edges: Mote's kernels
_CONVERSIONS = {"quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_tensor"}
_FUSE_INTO = {"XNNConv2d", "XNNDepthwiseConv2d", "XNNFullyConnected", "XNNAdd", "XNNMultiply"}


def _t(spec, i):
    v = spec.values[i]
    return v if isinstance(v, ir.TensorValue) else None


def _ints(spec, i) -> list:
    v = spec.values[i]
    return list(v.items) if isinstance(v, ir.IntListValue) else [v]


def _nhwc(sizes: list) -> list:
    return [sizes[i] for i in NCHW_TO_NHWC] if len(sizes) == 4 else list(sizes)


def _layout_free(sizes: list) -> bool:
    """NCHW and NHWC linear order agree for a 4-D tensor of these sizes."""
    return len(sizes) != 4 or sizes[1] == 1 or sizes[2] * sizes[3] == 1


class XnnpackPartitioner(Partitioner):
    name = "xnnpack"
    backend = "XnnpackBackend"
    #: XNN_EXTRA_BYTES (xnnpack.h): "the caller must allocate" 16 readable bytes after
    #: every tensor XNNPACK reads; its kernels read past the end, never write
    read_past_end = 16

    def supports(self, spec: ir.ProgramSpec, call: ir.KernelCall) -> str:
        name = f"{call.op}.{call.overload}"
        tensors = [_t(spec, a) for a in call.args if _t(spec, a) is not None]
        if call.op in _CONVERSIONS:
            return "int8 <-> fp32 conversion: Mote's kernel, outside the delegate"
        if name == ir.ET_VIEW and tensors[0].dtype == ScalarType.CHAR:
            return ""                        # int8 activations are NHWC in the program already
        if any(t.dtype == ScalarType.CHAR for t in tensors):
            return qs8.supports(spec, call)
        other = next((t for t in tensors if t.dtype != ScalarType.FLOAT), None)
        if other is not None:   # e.g. max_pool2d_with_indices' int64 indices
            return f"XNNPACK takes fp32 tensors here; this call has an {ir.SCALAR_TYPE_NAMES.get(other.dtype, other.dtype)} one"
        a = call.args
        if name == "aten::convolution.out":
            w = _t(spec, a[1])
            if w is None or w.constant is None or len(w.sizes) != 4:
                return "2-D convolution with a constant weight only"
            if spec.values[a[6]] is True:
                return "transposed convolution"
            groups = spec.values[a[8]]
            if groups != 1 and w.sizes[1] != 1:
                return "grouped convolution (neither groups 1 nor depthwise)"
            if a[2] is not None and _t(spec, a[2]) is not None and _t(spec, a[2]).constant is None:
                return "non-constant bias"
            return ""
        if name == "aten::addmm.out":
            w, b = _t(spec, a[2]), _t(spec, a[0])
            if w is None or w.constant is None or b is None or b.constant is None:
                return "fully connected needs a constant weight and bias"
            if spec.values[a[3]] != 1 or spec.values[a[4]] != 1:
                return "beta / alpha other than 1"
            return ""
        if name in ("aten::add.out", "aten::mul.out"):
            x, y = _t(spec, a[0]), _t(spec, a[1])
            if x is None or y is None or x.sizes != y.sizes or x.constant is not None or y.constant is not None:
                return "two computed tensors of one shape only"
            if name == "aten::add.out" and spec.values[a[2]] != 1:
                return "alpha other than 1"
            return ""
        if name in ("aten::relu.out", "aten::sigmoid.out"):
            return ""
        if name in ("aten::hardtanh.out", "aten::clamp.out"):
            return "" if all(spec.values[i] is None or isinstance(spec.values[i], (int, float))
                             for i in a[1:3]) else "tensor bounds"
        if name == "aten::_softmax.out":
            x = _t(spec, a[0])
            return "" if len(x.sizes) == 2 and spec.values[a[1]] in (1, -1) else "softmax over the last dim of 2-D only"
        if name == "aten::mean.out":
            x = _t(spec, a[0])
            dims = {d % 4 for d in _ints(spec, a[1])} if len(x.sizes) == 4 else set()
            return "" if dims == {2, 3} else "mean over H and W of a 4-D tensor only"
        if name == ir.ET_VIEW:
            return "" if _layout_free(_t(spec, a[0]).sizes) and _layout_free(_t(spec, a[-1]).sizes) else \
                "a view that NHWC order changes"
        return "Mote's XNNPACK partitioner does not take this operator"

    def lower(self, spec: ir.ProgramSpec, sub: Subgraph) -> ir.DelegateCall:
        g = _Graph(spec, qs8.value_qparams(spec, sub.calls))
        args = []
        for i in sub.inputs:          # the delegate's inputs: NHWC copies of 4-D ones
            args.append(_boundary(spec, i, sub.before, NCHW_TO_NHWC, into=True))
        outs = []
        for o in sub.outputs:
            outs.append(_boundary(spec, o, sub.after, NHWC_TO_NCHW, into=False))
        for k, (mote, new) in enumerate(zip(sub.inputs + sub.outputs, args + outs)):
            g.external(mote, new, k, xs.EXTERNAL_INPUT if k < len(args) else xs.EXTERNAL_OUTPUT)
        for call in sub.calls:
            g.node(call)
        g.fuse_clamps(set(sub.outputs))
        payload = g.payload(len(args) + len(outs))
        return ir.DelegateCall(self.backend, payload, args + outs, len(args))

    def finish(self, spec: ir.ProgramSpec) -> None:
        """An elementwise fallback between two subgraphs runs on their NHWC
        tensors: the two layout changes around it go."""
        while _elide_layout_changes(spec):
            pass


#: Mote fp32 kernels that compute each element from the same element alone
#: (any shape, any layout): between two subgraphs they run on the NHWC tensors
#: as they are, so the layout changes around them go (XnnpackPartitioner.finish)
ELEMENTWISE = frozenset({"aten::tanh", "aten::gelu", "aten::elu", "aten::leaky_relu", "aten::hardswish",
                         "aten::hardsigmoid", "aten::silu", "aten::exp", "aten::abs", "aten::neg",
                         "aten::sqrt", "aten::rsqrt", "aten::log", "aten::erf", "aten::sin", "aten::cos"})


def _is_permute(spec, call, perm: list) -> bool:
    return isinstance(call, ir.KernelCall) and call.op == "aten::permute_copy" and \
        list(spec.values[call.args[1]].items) == perm


def _readers(spec, value: int) -> list:
    """Indices of the instructions that read `value` (as an input argument)."""
    from aot.compiler.liveness import call_tensors
    out = []
    for k, c in enumerate(spec.instructions):
        written = {c.args[-1]} if isinstance(c, ir.KernelCall) else set(c.args[c.num_inputs:])
        if value in set(call_tensors(spec, c)) - written:
            out.append(k)
    return out


def _elide_layout_changes(spec) -> bool:
    """One `NHWC->NCHW permute -> elementwise op -> NCHW->NHWC permute` between
    two delegates becomes the op on the NHWC tensors (True if it found one)."""
    ins = spec.instructions
    for k in range(len(ins) - 2):
        p1, op, p2 = ins[k], ins[k + 1], ins[k + 2]
        if not (_is_permute(spec, p1, NHWC_TO_NCHW) and _is_permute(spec, p2, NCHW_TO_NHWC)
                and isinstance(op, ir.KernelCall) and op.op in ELEMENTWISE):
            continue
        nchw_in, nchw_out = p1.args[-1], op.args[-1]
        tensors = {a for a in op.args if isinstance(spec.values[a], ir.TensorValue)}
        if tensors != {nchw_in, nchw_out} or p2.args[0] != nchw_out \
                or nchw_in in spec.outputs or nchw_out in spec.outputs \
                or _readers(spec, nchw_in) != [k + 1] or _readers(spec, nchw_out) != [k + 2]:
            continue
        nhwc_in, nhwc_out = p1.args[0], p2.args[-1]
        op.args = [nhwc_in if a == nchw_in else nhwc_out if a == nchw_out else a for a in op.args]
        spec.instructions = ins[:k] + [op] + ins[k + 3:]
        return True
    return False


def _boundary(spec, v: int, calls: list, perm: list, into: bool) -> int:
    """The tensor the delegate reads (into) or writes for Mote value `v`: `v`
    itself unless 4-D, else a new NHWC tensor and a permute_copy call between them."""
    t = spec.values[v]
    if len(t.sizes) != 4 or t.dtype != ScalarType.FLOAT:   # int8 activations are NHWC already
        return v
    spec.values.append(ir.TensorValue(sizes=_nhwc(t.sizes), dtype=t.dtype,
                                      dim_order=[0, 1, 2, 3], name=t.name + "_nhwc"))
    nv = len(spec.values) - 1
    spec.values.append(ir.IntListValue(list(perm)))
    dims = len(spec.values) - 1
    src, dst = (v, nv) if into else (nv, v)
    calls.append(ir.KernelCall("aten::permute_copy", "out", [src, dims, dst, dst], source=""))
    return nv


class _Graph:
    """An XNNGraph being built: Mote value index -> XNNPACK value id."""

    def __init__(self, spec, qparams: dict):
        self.spec = spec
        self.qparams = qparams     # int8 value -> (scale, zero point) (qs8.value_qparams)
        self.ids: dict = {}
        self.values: list = []
        self.nodes: list = []
        self.consts = bytearray()
        self.const_entries = [xs.ConstantDataOffset(0, 0)]
        self.externs: set = set()

    def _value(self, dims, buffer=0, ext=xs.INVALID_ID, flags=0, quant=None, datatype=xs.QINT8) -> int:
        """A new fp32 value; with `quant` (a PerTensorQuant / PerChannelQuant) a quantized one
        of `datatype` (default qint8, the activations')."""
        vid = len(self.values)
        t = xs.XNNTensorValue(datatype=datatype if quant is not None else xs.FP32, num_dims=len(dims),
                              dims=[int(d) for d in dims], constant_buffer_idx=buffer, external_id=ext,
                              flags=flags, id_out=vid)
        self.values.append(xs.XValue(t if quant is None else xs.XNNQuantizedTensorValue(t, quant)))
        return vid

    def _dims_quant(self, i: int) -> tuple:
        """(payload dims, quantization or None) of Mote value i: int8 as it is, fp32 4-D as NHWC."""
        t = self.spec.values[i]
        if t.dtype == ScalarType.CHAR:
            return list(t.sizes), qs8.per_tensor(*self.qparams[i])
        return _nhwc(t.sizes), None

    def external(self, mote: int, new: int, ext: int, flags: int) -> None:
        _, quant = self._dims_quant(mote)      # the dims: the (NHWC) argument's
        self.ids[mote] = self._value(self.spec.values[new].sizes, ext=ext, flags=flags, quant=quant)
        self.externs.add(self.ids[mote])

    def _append_const(self, raw: bytes) -> int:
        self.consts.extend(b"\0" * (-len(self.consts) % xs.ALIGNMENT))
        self.const_entries.append(xs.ConstantDataOffset(len(self.consts), len(raw)))
        self.consts.extend(raw)
        return len(self.const_entries) - 1

    def constant(self, data: np.ndarray) -> int:
        data = np.ascontiguousarray(data, dtype=np.float32)
        return self._value(data.shape if data.ndim else [1], buffer=self._append_const(data.tobytes()))

    def qconstant(self, raw: bytes, dims: list, datatype: int, quant) -> int:
        """A quantized constant (int8 weights, int32 bias) of `raw` bytes."""
        return self._value(dims, buffer=self._append_const(raw), quant=quant, datatype=datatype)

    def ints(self, i: int) -> list:
        """An int list argument, a single value doubled (stride 2 -> [2, 2])."""
        v = _ints(self.spec, i)
        return v * 2 if len(v) == 1 else v

    def array(self, i: int) -> np.ndarray:
        t = self.spec.values[i]
        return np.frombuffer(t.constant, dtype=np.float32).reshape(t.sizes)

    def id(self, i: int) -> int:
        """The id of Mote value i: computed inside, an input, or a constant (4-D in NHWC)."""
        if i not in self.ids:
            a = self.array(i)
            self.ids[i] = self.constant(a.transpose(NCHW_TO_NHWC) if a.ndim == 4 else a)
        return self.ids[i]

    def out(self, i: int) -> int:
        if i not in self.ids:
            dims, quant = self._dims_quant(i)
            self.ids[i] = self._value(dims, quant=quant)
        return self.ids[i]

    def add(self, kind: str, lo=-math.inf, hi=math.inf, **fields) -> None:
        mm = None if (lo, hi) == (-math.inf, math.inf) else xs.OutputMinMax(float(lo), float(hi))
        self.nodes.append(xs.XNode(xnode_union=xs.NODE_TYPES[kind](**fields), debug_handle=len(self.nodes),
                                   output_min_max=mm))

    def node(self, call: ir.KernelCall) -> None:
        s, a = self.spec, call.args
        name = f"{call.op}.{call.overload}"
        if call.op.startswith("mote::"):
            qs8.lower(self, call)
        elif name == "aten::convolution.out":
            self._conv(a)
        elif name == "aten::addmm.out":
            w = self.array(a[2]).T            # Mote keeps mat2 as [IC, OC]; XNNPACK's filter is [OC, IC]
            self.add("XNNFullyConnected", input1_id=self.id(a[1]), filter_id=self.constant(w),
                     bias_id=self.constant(self.array(a[0]).reshape(-1)), output_id=self.out(a[-1]), flags=0)
        elif name in ("aten::add.out", "aten::mul.out"):
            self.add("XNNAdd" if call.op == "aten::add" else "XNNMultiply", input1_id=self.id(a[0]),
                     input2_id=self.id(a[1]), output_id=self.out(a[-1]), flags=0)
        elif name == "aten::relu.out":
            self.add("XNNClamp", 0.0, math.inf, input_id=self.id(a[0]), output_id=self.out(a[-1]), flags=0)
        elif name in ("aten::hardtanh.out", "aten::clamp.out"):
            lo, hi = s.values[a[1]], s.values[a[2]]
            self.add("XNNClamp", -math.inf if lo is None else lo, math.inf if hi is None else hi,
                     input_id=self.id(a[0]), output_id=self.out(a[-1]), flags=0)
        elif name == "aten::sigmoid.out":
            self.add("XNNSigmoid", input_id=self.id(a[0]), output_id=self.out(a[-1]), flags=0)
        elif name == "aten::_softmax.out":
            self.add("XNNSoftmax", input_id=self.id(a[0]), output_id=self.out(a[-1]), flags=0)
        elif name == "aten::mean.out":
            x, o = s.values[a[0]], s.values[a[-1]]
            if len(o.sizes) == 4:
                self.add("XNNGlobalAvgPooling2d", input_id=self.id(a[0]), output_id=self.out(a[-1]), flags=0)
            else:                              # keepdim=False: pool to [N, 1, 1, C], then reshape
                mid = self._value([x.sizes[0], 1, 1, x.sizes[1]])
                self.add("XNNGlobalAvgPooling2d", input_id=self.id(a[0]), output_id=mid, flags=0)
                self._reshape(mid, a[-1])
        elif name == ir.ET_VIEW:
            self._reshape(self.id(a[0]), a[-1])
        else:
            raise AssertionError(f"XNNPACK partitioner took {name} it cannot lower")

    def _reshape(self, src: int, out: int) -> None:
        shape = self._dims_quant(out)[0]
        self.add("XNNStaticReshape", num_dims=len(shape), new_shape=shape, input_id=src,
                 output_id=self.out(out), flags=0)

    def _conv(self, a: list) -> None:
        s = self.spec
        w = self.array(a[1])                  # [OC, IC/groups, KH, KW]
        oc, icg, kh, kw = w.shape
        groups = s.values[a[8]]
        stride, pad, dil = (self.ints(a[i]) for i in (3, 4, 5))
        depthwise = icg == 1
        if depthwise:                          # [1, KH, KW, OC]
            filt = self.constant(w.transpose(1, 2, 3, 0))
        else:                                  # OHWI
            filt = self.constant(w.transpose(0, 2, 3, 1))
        bias = xs.INVALID_ID
        if _t(s, a[2]) is not None:
            bias = self.constant(self.array(a[2]).reshape(-1))
        self.add("XNNDepthwiseConv2d" if depthwise else "XNNConv2d",
                 padding_top=pad[0], padding_right=pad[1], padding_bottom=pad[0], padding_left=pad[1],
                 kernel_height=kh, kernel_width=kw, subsampling_height=stride[0], subsampling_width=stride[1],
                 dilation_height=dil[0], dilation_width=dil[1], group_input_channels=icg,
                 group_output_channels=oc // groups, groups=groups, adjustment_height=0, adjustment_width=0,
                 input1_id=self.id(a[0]), filter_id=filt, bias_id=bias, output_id=self.out(a[-1]), flags=0)

    def fuse_clamps(self, keep: set) -> None:
        """A clamp whose input only it reads and that a fusable node computes
        becomes that node's output_min_max (the node writes the clamp's output)."""
        readers: dict = {}
        for n in self.nodes:
            for f in ("input_id", "input1_id", "input2_id"):
                if hasattr(n.xnode_union, f):
                    readers[getattr(n.xnode_union, f)] = readers.get(getattr(n.xnode_union, f), 0) + 1
        kept = []
        for n in self.nodes:
            u = n.xnode_union
            prev = kept[-1] if kept else None
            if (type(u).__name__ == "XNNClamp" and prev is not None and type(prev.xnode_union).__name__ in _FUSE_INTO
                    and prev.xnode_union.output_id == u.input_id and readers.get(u.input_id) == 1
                    and u.input_id not in self.externs and prev.output_min_max is None):
                prev.xnode_union.output_id = u.output_id
                prev.output_min_max = n.output_min_max or xs.OutputMinMax(-math.inf, math.inf)
                continue
            kept.append(n)
        self.nodes = kept

    def payload(self, num_externs: int) -> bytes:
        tensors = [xs.tensor_of(v) for v in self.values]
        ins = [t.id_out for t in tensors if t.flags & xs.EXTERNAL_INPUT]
        outs = [t.id_out for t in tensors if t.flags & xs.EXTERNAL_OUTPUT]
        graph = xs.XNNGraph(version="0", xnodes=self.nodes, xvalues=self.values, num_externs=num_externs,
                            input_ids=ins, output_ids=outs, constant_data=self.const_entries)
        return xs.serialize_payload(graph, bytes(self.consts))


PARTITIONER = XnnpackPartitioner()
