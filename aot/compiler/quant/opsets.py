"""The ATen op kinds quantization names: one home for the sets both the PT2E
annotation (:mod:`aot.compiler.quant.annotate`) and the int8 / int16 lowering
patterns (:mod:`aot.compiler.quant.patterns`) key on. Each set holds
``torch.ops.aten`` overloads (the targets of an exported graph's nodes);
:data:`ISLAND_KEY` is the node meta key by which the annotation tells the
lowering which fp32 ops are kept fp32 on purpose.
"""
from __future__ import annotations

import torch

aten = torch.ops.aten

CONV_OPS = frozenset({aten.conv2d.default, aten.conv1d.default})
LINEAR_OPS = frozenset({aten.linear.default})
#: transposed convolutions: weight [Cin, Cout/groups, kh, kw], per-channel axis 1
CONV_T = aten.conv_transpose2d.input
CONV_TRANSPOSE_OPS = frozenset({CONV_T})
#: activations that fuse into the preceding conv / linear / add / mul (the int8 op's clamp)
FUSABLE_ACTS = frozenset({aten.relu.default, aten.relu_.default, aten.relu6.default,
                          aten.hardtanh.default, aten.hardtanh_.default})
#: inference BatchNorm (running statistics): a per-channel affine; one that does not follow a
#: convolution (DenseNet's BN -> ReLU -> conv) runs as a 1x1 depthwise mote::depthwise_conv2d_s8
BATCH_NORM_OPS = frozenset({aten.batch_norm.default})
#: nearest upsampling (an index-table gather) and bilinear upsampling
UPSAMPLE_NEAREST = frozenset({aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default,
                              aten._upsample_nearest_exact2d.vec, aten._upsample_nearest_exact2d.default})
UPSAMPLE_BILINEAR = frozenset({aten.upsample_bilinear2d.vec, aten.upsample_bilinear2d.default})
#: resampling that only moves or convexly mixes elements: output shares the input's qparams
UPSAMPLE_OPS = UPSAMPLE_NEAREST | UPSAMPLE_BILINEAR
#: ops that only move elements (same qparams in and out): run on the int8 tensor as they are
MOVE_OPS = frozenset({aten.pixel_shuffle.default, aten.pixel_unshuffle.default})
#: views the lowering turns into aten::view_copy on the int8 tensor
VIEW_OPS = frozenset({aten.flatten.using_ints, aten.view.default, aten.reshape.default,
                      aten._unsafe_view.default, aten.squeeze.dim, aten.squeeze.dims,
                      aten.squeeze.default, aten.unsqueeze.default, aten.view_copy.default})
PERMUTE_OPS = frozenset({aten.permute.default, aten.transpose.int})
#: ops that leave the values as they are
IDENTITY_OPS = frozenset({aten.contiguous.default, aten.clone.default, aten.dropout.default})
BINARY_OPS = frozenset({aten.add.Tensor, aten.add_.Tensor, aten.mul.Tensor, aten.mul_.Tensor})
SCALAR_OPS = frozenset({aten.add.Tensor, aten.add_.Tensor, aten.sub.Tensor, aten.sub_.Tensor,
                        aten.mul.Tensor, aten.mul_.Tensor, aten.div.Tensor, aten.rsub.Scalar})
POOL_OPS = frozenset({aten.max_pool2d.default, aten.avg_pool2d.default})
PAD_OPS = frozenset({aten.constant_pad_nd.default, aten.pad.default})
#: output shares the qparams of the (first) input
SHARED_OPS = (POOL_OPS | PAD_OPS | MOVE_OPS | IDENTITY_OPS | UPSAMPLE_OPS | PERMUTE_OPS
              | {aten.flatten.using_ints, aten.view.default, aten.reshape.default,
                 aten.slice.Tensor, aten.select.int, aten.squeeze.dim, aten.squeeze.dims,
                 aten.unsqueeze.default})
MEAN_OPS = frozenset({aten.adaptive_avg_pool2d.default, aten.mean.dim})


def _with_inplace(*names: str) -> frozenset:
    """aten.<name>.default and, where torch has it, the in-place aten.<name>_.default."""
    out = set()
    for n in names:
        out.add(getattr(aten, n).default)
        if hasattr(aten, n + "_"):
            out.add(getattr(aten, n + "_").default)
    return frozenset(out)


#: elementwise functions of one tensor (other arguments constant) that run in
#: int8 as a 256-entry lookup table (mote::lut_s8): own input and output observers
LUT_OPS = _with_inplace("sigmoid", "tanh", "hardsigmoid", "hardswish", "gelu", "silu", "elu",
                        "leaky_relu", "relu", "relu6", "hardtanh", "mish", "softplus", "celu",
                        "selu", "exp", "abs", "neg")
#: own input and output observers; lowered to an int8 op or kept fp32 between q/dq
OWN_QPARAM_OPS = MEAN_OPS | LUT_OPS
#: norms kept in fp32 on purpose (planned fp32 islands): own input and output
#: observers, so only the norm runs in fp32 (input dequantized, output quantized
#: at once); the int8 lowering reports them as islands, not as fallbacks.
#: RMSNorm (x * rsqrt(mean(x^2) + eps) [* weight]) is matched as a chain (annotate._rms_norm_chain).
FP32_ISLAND_OPS = frozenset({aten.layer_norm.default, aten.group_norm.default,
                             aten.native_layer_norm.default, aten.native_group_norm.default})
#: vector norms: F.normalize's chain x / clamp_min(vector_norm(x), eps)[.expand_as(x)]
#: is a planned fp32 island (annotate._normalize_chain: x quantized before, the quotient
#: after); a norm alone is an island of its own (own input and output observers)
VECTOR_NORM_OPS = frozenset({aten.linalg_vector_norm.default})
#: meta key on the nodes of a planned fp32 island: (kind, is_last); the last
#: node's output is the island's (quantized) output
ISLAND_KEY = "mote_fp32_island"
#: per-channel PReLU (one slope per channel; no per-channel table kernel): an
#: fp32 island like the norms. A single-slope PReLU is a LUT op (mote::lut_s8).
PRELU_OPS = frozenset({aten.prelu.default})
#: masked_fill: with -inf feeding a softmax (a causal attention mask) the pair is
#: an fp32 island: the scores are quantized before the mask, the probabilities
#: after the softmax (annotate.SOFTMAX_OUT_QSPEC), so masked positions get exactly 0 as in
#: fp32 (an int8 -128 in their place would still weigh exp(-range) each). Any
#: other constant fill: output shares its input's qparams (the value saturates).
MASKED_FILL_OPS = frozenset({aten.masked_fill.Scalar})
#: embedding: the table is quantized per tensor (affine int8) and the output
#: shares its qparams; the lowering gathers int8 rows (aten::embedding on int8)
EMBEDDING_OPS = frozenset({aten.embedding.default})
CAT_OPS = frozenset({aten.cat.default, aten.concat.default})
#: own input observer, fixed output qparams (annotate.SOFTMAX_OUT_QSPEC)
SOFTMAX_OPS = frozenset({aten.softmax.int, aten._softmax.default})
#: batched matrix products of two activations (mote::bmm_s8)
MATMUL_OPS = frozenset({aten.matmul.default, aten.bmm.default})
#: a constant factor after a matmul that folds into its requantization
MATMUL_SCALE_OPS = frozenset({aten.mul.Tensor, aten.div.Tensor})
#: ops whose int16 form exists (``--int16-activations``): conv2d / conv1d
#: (dense and depthwise) and linear, with a fused relu / relu6 / hardtanh; the
#: layout-only ops between them share their input's qparams; everything else
#: runs in fp32 between dequantize and quantize
INT16_SHARED_OPS = frozenset({aten.flatten.using_ints, aten.view.default, aten.reshape.default,
                              aten.permute.default, aten.squeeze.dim, aten.squeeze.dims,
                              aten.unsqueeze.default, aten.transpose.int, aten.contiguous.default,
                              aten.clone.default, aten.dropout.default})
#: Fourier transforms of an audio front end: the transform, the elementwise
#: scaling and windowing before it and the magnitude / power, mel projection
#: (a product with a constant) and log after it are one planned fp32 island
#: (annotate._front_end_chain): the samples are read as they come, the
#: spectrum never sees an int8 grid, and the log-mel features are quantized once
FFT_OPS = frozenset({aten.fft_rfft.default, aten._fft_r2c.default, aten.fft_fft.default,
                     aten.stft.default, aten.stft.center})
#: ops before the transform that belong to its island (the other operands constants)
FRONT_END_PRE_OPS = frozenset({aten.mul.Tensor, aten.div.Tensor, aten.add.Tensor, aten.sub.Tensor,
                               aten.to.dtype, aten._to_copy.default, aten.unfold.default,
                               aten.view.default, aten.reshape.default, aten.unsqueeze.default,
                               aten.squeeze.dim, aten.slice.Tensor, aten.contiguous.default,
                               aten.clone.default,
                               # torch.stft(center=True)'s padding of the samples
                               aten.pad.default, aten.constant_pad_nd.default,
                               aten.reflection_pad1d.default})
#: logarithms: the island ends with the first one (the log-mel features)
LOG_OPS = frozenset({aten.log.default, aten.log10.default, aten.log2.default, aten.log1p.default})
#: ops after the transform that belong to its island, up to and including a log
FRONT_END_POST_OPS = (LOG_OPS | FRONT_END_PRE_OPS
                      | frozenset({aten.abs.default, aten.pow.Tensor_Scalar, aten.sqrt.default,
                                   aten.matmul.default, aten.mm.default, aten.clamp.default,
                                   aten.clamp_min.default, aten.permute.default, aten.transpose.int}))
