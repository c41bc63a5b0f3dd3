"""The one list of operators the Mote runtime has kernels for.

Names are ExecuTorch operator names with their overload: "namespace::name.overload".
Everything in the ``mote::`` namespace (Mote's own int8 ops) is supported.
The lowering refuses any other operator with :class:`aot.errors.UnsupportedOpError`
before anything is written.
"""
from __future__ import annotations

#: every out-variant (or prim) operator the runtime implements
SUPPORTED_OPS = frozenset({
    "aten::convolution.out",
    "aten::addmm.out",
    "aten::mm.out",
    "aten::bmm.out",
    "aten::add.out",
    "aten::add.Scalar_out",
    "aten::sub.out",
    "aten::sub.Scalar_out",
    "aten::mul.out",
    "aten::mul.Scalar_out",
    "aten::div.out",
    "aten::div.Scalar_out",
    "aten::relu.out",
    "aten::hardtanh.out",
    "aten::clamp.out",
    "aten::sigmoid.out",
    "aten::tanh.out",
    "aten::_softmax.out",
    "aten::_log_softmax.out",
    "aten::max_pool2d_with_indices.out",
    "aten::avg_pool2d.out",
    "aten::mean.out",
    "aten::sum.IntList_out",
    "aten::_adaptive_avg_pool2d.out",
    "aten::cat.out",
    "aten::permute_copy.out",
    "aten::view_copy.out",
    "executorch_prim::et_view.default",
    "aten::_native_batch_norm_legit_no_training.out",
    "aten::clone.out",
    "aten::expand_copy.out",
    "aten::squeeze_copy.dims_out",
    "aten::unsqueeze_copy.out",
    "aten::constant_pad_nd.out",
    "aten::slice_copy.Tensor_out",
    "aten::select_copy.int_out",
    "aten::full.out",
    "aten::neg.out",
    "aten::exp.out",
    "aten::rsqrt.out",
    "quantized_decomposed::quantize_per_tensor.out",
    "quantized_decomposed::dequantize_per_tensor.out",
})

#: namespaces whose every operator is supported (Mote's own kernels)
SUPPORTED_NAMESPACES = frozenset({"mote"})

#: ops whose output may take the storage of an input that dies at that op
#: (elementwise: out[i] depends only on in[i], read before written)
IN_PLACE_OPS = frozenset({
    "aten::relu.out", "aten::hardtanh.out", "aten::clamp.out", "aten::sigmoid.out",
    "aten::tanh.out", "aten::neg.out", "aten::exp.out", "aten::rsqrt.out",
    "aten::add.out", "aten::add.Scalar_out", "aten::sub.out", "aten::sub.Scalar_out",
    "aten::mul.out", "aten::mul.Scalar_out", "aten::div.out", "aten::div.Scalar_out",
    # int8 elementwise (docs/int8-ops.md): out[i] from a[i], b[i] only
    "mote::add_s8.out", "mote::mul_s8.out",
})


def is_supported(name: str) -> bool:
    """True if the runtime has a kernel for ``name`` ("ns::op.overload")."""
    return name in SUPPORTED_OPS or name.split("::", 1)[0] in SUPPORTED_NAMESPACES
