"""Mote's Python integer reference for the ``mote::`` int8 operators.

This module *defines* the expected bytes of every int8 kernel: the C kernels
(``kernels/op_mote_*.c``, ``cmsis/``) must match it bit for bit. It follows
``docs/int8-ops.md`` exactly (TFLite / CMSIS-NN int8 scheme, double-rounding
fixed-point requantization).

Conventions:

- Activations are ``numpy.int8`` arrays; 4-D activations are NHWC ``[N, H, W, C]``.
- Weights are int8, bias / multiplier / shift int32 (per output channel, the
  last axis of the output).
- Only :func:`quantize_multiplier` touches floating point (it runs ahead of
  time); every op is integer arithmetic (int32 semantics, computed in int64
  where an intermediate needs it, then wrapped to int32 as a C int32 would).

Errors: ``ValueError`` for shapes/arguments that do not fit the contract.
"""
from __future__ import annotations

import math
from typing import Sequence, Tuple

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1

__all__ = [
    "quantize_multiplier", "srdhm", "rdbpot", "requantize",
    "conv2d_s8", "conv2d_s8_nchw", "grouped_conv2d_s8", "depthwise_conv2d_s8", "pointwise_s8_planar16", "depthwise_planar16_s8",
    "planar16", "fold_input_zero_point", "linear_s8", "bmm_s8", "add_s8", "mul_s8",
    "avg_pool2d_s8", "max_pool2d_s8", "mean_s8", "pad_s8",
    "conv_transpose2d_s8", "upsample_nearest2d_s8", "upsample_bilinear2d_s8",
    "upsample_scale_q32", "UPSAMPLE_WEIGHT_BITS",
    "softmax_s8", "softmax_params", "exp_on_negative_values", "one_over_one_plus_x",
    "add_params", "INT32_MIN", "INT32_MAX",
]


# --------------------------------------------------------------------------- helpers

def _wrap32(x: np.ndarray) -> np.ndarray:
    """Wrap int64 values to int32 two's complement (what C int32 arithmetic does)."""
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _pair(v, name: str) -> Tuple[int, int]:
    v = list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v, v]
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise ValueError(f"{name} must have 2 entries, got {v}")
    return int(v[0]), int(v[1])


def _check_int8(x: np.ndarray, name: str, ndim: int | None = None) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.int8:
        raise ValueError(f"{name} must be int8, got {x.dtype}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {x.shape}")
    return x


def _clamp_s8(x: np.ndarray, lo: int = -128, hi: int = 127) -> np.ndarray:
    if not (-128 <= lo <= hi <= 127):
        raise ValueError(f"activation range [{lo}, {hi}] not within int8")
    return np.clip(x, lo, hi).astype(np.int8)


# --------------------------------------------------------------------------- requantization

def quantize_multiplier(real: float) -> Tuple[int, int]:
    """Fixed-point form of a positive real multiplier (runs ahead of time).

    Returns ``(multiplier, shift)``: multiplier int32 in [2^30, 2^31) (Q31), or 0
    for ``real == 0`` / tiny values; shift int (> 0 = left shift), so that
    ``real ~= multiplier * 2^(shift - 31)``. Rounding of the mantissa is half
    away from zero (C ``round``). Raises ``ValueError`` for a negative or
    non-finite ``real``.
    """
    real = float(real)
    if not math.isfinite(real) or real < 0:
        raise ValueError(f"multiplier must be finite and >= 0, got {real}")
    q, e = math.frexp(real)
    m = math.floor(q * (1 << 31) + 0.5)  # q*2^31 is exact in double; q >= 0
    if m == (1 << 31):
        m //= 2
        e += 1
    if e < -31:
        m, e = 0, 0
    if e > 30:
        raise ValueError(f"multiplier {real} too large for int32 fixed point")
    return int(m), int(e)


def srdhm(a, b) -> np.ndarray:
    """Saturating rounding doubling high multiply of int32 ``a`` and ``b``.

    Elementwise (broadcasting), int32 in/out: ``(a*b + nudge) / 2^31`` with C
    division, nudge = 2^30 for a non-negative product else 1 - 2^30;
    ``srdhm(INT32_MIN, INT32_MIN) == INT32_MAX``.
    """
    a = _i64(a)
    b = _i64(b)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    v = ab + nudge
    q = np.where(v >= 0, v >> 31, -((-v) >> 31))  # truncate toward zero
    q = np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, q)
    return q.astype(np.int32)


def rdbpot(x, e) -> np.ndarray:
    """Rounding divide by power of two: ``x / 2^e`` rounded half away from zero.

    x int32, e int in [0, 31] (broadcasting), int32 out.
    """
    x = _i64(x)
    e = _i64(e)
    if np.any(e < 0) or np.any(e > 31):
        raise ValueError("rdbpot exponent must be in [0, 31]")
    mask = (np.int64(1) << e) - 1
    rem = x & mask
    thr = (mask >> 1) + (x < 0)
    return ((x >> e) + (rem > thr)).astype(np.int32)


def requantize(x, multiplier, shift) -> np.ndarray:
    """TFLite double-rounding requantization of int32 ``x``.

    ``RDBPOT(SRDHM(x * 2^max(s,0), M), max(-s,0))``; multiplier/shift broadcast
    against x (per channel: along the last axis). The left shift wraps like C
    int32 arithmetic. Returns int32.
    """
    s = _i64(shift)
    left = np.maximum(s, 0)
    right = np.maximum(-s, 0)
    xl = _wrap32(_i64(x) << left)
    return rdbpot(srdhm(xl, multiplier), right)


# --------------------------------------------------------------------------- convolutions

def _conv_core(xs: np.ndarray, w: np.ndarray, stride, padding, dilation,
               depthwise: bool) -> np.ndarray:
    """xs: int64 [N,H,W,C] already zero-point-corrected; w: int64
    [Cout,KH,KW,Cin] (dense) or [KH,KW,C] (depthwise, C == xs channels).
    Returns int64 accumulators [N,Ho,Wo,Cout]."""
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    n, h, wd, c = xs.shape
    kh, kw = (w.shape[1], w.shape[2]) if not depthwise else (w.shape[0], w.shape[1])
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError("convolution output would be empty")
    xp = np.pad(xs, ((0, 0), (ph, ph), (pw, pw), (0, 0)))  # padded taps contribute 0
    cout = w.shape[0] if not depthwise else c
    acc = np.zeros((n, ho, wo, cout), dtype=np.int64)
    if not depthwise:
        # im2col: [N*Ho*Wo, KH*KW*Cin] x [KH*KW*Cin, Cout]
        cols = np.empty((n, ho, wo, kh, kw, c), dtype=np.int64)
        for i in range(kh):
            for j in range(kw):
                cols[:, :, :, i, j, :] = xp[:, i * dh: i * dh + sh * (ho - 1) + 1: sh,
                                            j * dw: j * dw + sw * (wo - 1) + 1: sw, :]
        acc = cols.reshape(n * ho * wo, kh * kw * c) @ w.reshape(w.shape[0], -1).T
        return acc.reshape(n, ho, wo, cout)
    for i in range(kh):
        for j in range(kw):
            acc += xp[:, i * dh: i * dh + sh * (ho - 1) + 1: sh,
                      j * dw: j * dw + sw * (wo - 1) + 1: sw, :] * w[i, j, :]
    return acc


def _finish(acc, bias, multiplier, shift, out_zp, act_min, act_max) -> np.ndarray:
    acc = _wrap32(_i64(acc) + _i64(bias))
    out = _i64(requantize(acc, multiplier, shift)) + int(out_zp)
    return _clamp_s8(out, int(act_min), int(act_max))


def conv2d_s8(input, weight, bias, multiplier, shift, stride, padding, dilation,
              input_zero_point: int, output_zero_point: int,
              activation_min: int, activation_max: int) -> np.ndarray:
    """int8 2-D convolution, NHWC.

    input int8 [N,H,W,Cin]; weight int8 [Cout,KH,KW,Cin]; bias, multiplier,
    shift int32 [Cout]; stride/padding (symmetric)/dilation int[2] (h, w).
    acc = bias[c] + sum (x - in_zp) * w over valid taps; out =
    clamp(requantize(acc, M[c], s[c]) + out_zp, act_min, act_max).
    Returns int8 [N,Ho,Wo,Cout].
    """
    x = _check_int8(input, "input", 4)
    w = _check_int8(weight, "weight", 4)
    if w.shape[3] != x.shape[3]:
        raise ValueError(f"weight Cin {w.shape[3]} != input C {x.shape[3]}")
    cout = w.shape[0]
    for name, v in (("bias", bias), ("multiplier", multiplier), ("shift", shift)):
        if np.shape(v) != (cout,):
            raise ValueError(f"{name} must have shape [{cout}], got {np.shape(v)}")
    xs = _i64(x) - int(input_zero_point)
    acc = _conv_core(xs, _i64(w), _pair(stride, "stride"), _pair(padding, "padding"),
                     _pair(dilation, "dilation"), depthwise=False)
    return _finish(acc, bias, multiplier, shift, output_zero_point, activation_min,
                   activation_max)


def conv2d_s8_nchw(input, weight, bias, multiplier, shift, stride, padding, dilation,
                   input_zero_point: int, output_zero_point: int,
                   activation_min: int, activation_max: int) -> np.ndarray:
    """conv2d_s8 on an NCHW input: input int8 [N,Cin,H,W] (the model's own layout),
    weight int8 [Cout,KH,KW,Cin] as conv2d_s8's; the bytes of conv2d_s8 on
    input.transpose(0, 2, 3, 1). Returns int8 [N,Ho,Wo,Cout] (NHWC)."""
    x = _check_int8(input, "input", 4)
    return conv2d_s8(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), weight, bias, multiplier, shift,
                     stride, padding, dilation, input_zero_point, output_zero_point,
                     activation_min, activation_max)


def grouped_conv2d_s8(input, weight, bias, multiplier, shift, stride, padding, dilation,
                      groups: int, input_zero_point: int, output_zero_point: int,
                      activation_min: int, activation_max: int) -> np.ndarray:
    """int8 grouped 2-D convolution (1 < groups < Cin: RegNet, ResNeXt), NHWC.

    input int8 [N,H,W,Cin]; weight int8 [Cout,KH,KW,Cin/groups]; output channel
    c reads the input channels of group c // (Cout/groups); the rest as
    :func:`conv2d_s8` (each group is a conv2d_s8 of its channels). Returns int8
    [N,Ho,Wo,Cout].
    """
    x = _check_int8(input, "input", 4)
    w = _check_int8(weight, "weight", 4)
    g = int(groups)
    cout, cin_g = w.shape[0], w.shape[3]
    if g < 1 or cout % g or cin_g * g != x.shape[3]:
        raise ValueError(f"weight {w.shape} / groups {g} do not fit input {x.shape}")
    for name, v in (("bias", bias), ("multiplier", multiplier), ("shift", shift)):
        if np.shape(v) != (cout,):
            raise ValueError(f"{name} must have shape [{cout}], got {np.shape(v)}")
    cog = cout // g
    parts = [conv2d_s8(np.ascontiguousarray(x[..., gi * cin_g:(gi + 1) * cin_g]),
                       w[gi * cog:(gi + 1) * cog], *(np.asarray(v)[gi * cog:(gi + 1) * cog]
                                                     for v in (bias, multiplier, shift)),
                       stride, padding, dilation, input_zero_point, output_zero_point,
                       activation_min, activation_max) for gi in range(g)]
    return np.concatenate(parts, axis=3)


def depthwise_conv2d_s8(input, weight, bias, multiplier, shift, stride, padding,
                        dilation, depth_multiplier: int, input_zero_point: int,
                        output_zero_point: int, activation_min: int,
                        activation_max: int) -> np.ndarray:
    """int8 depthwise 2-D convolution, NHWC.

    input int8 [N,H,W,Cin]; weight int8 [1,KH,KW,Cout] with Cout = Cin *
    depth_multiplier; output channel c reads input channel c // depth_multiplier.
    Returns int8 [N,Ho,Wo,Cout].
    """
    x = _check_int8(input, "input", 4)
    w = _check_int8(weight, "weight", 4)
    dm = int(depth_multiplier)
    if w.shape[0] != 1 or dm < 1 or w.shape[3] != x.shape[3] * dm:
        raise ValueError(f"depthwise weight {w.shape} does not fit input {x.shape} x {dm}")
    cout = w.shape[3]
    for name, v in (("bias", bias), ("multiplier", multiplier), ("shift", shift)):
        if np.shape(v) != (cout,):
            raise ValueError(f"{name} must have shape [{cout}], got {np.shape(v)}")
    xs = _i64(x) - int(input_zero_point)
    if dm > 1:
        xs = np.repeat(xs, dm, axis=3)
    acc = _conv_core(xs, _i64(w[0]), _pair(stride, "stride"), _pair(padding, "padding"),
                     _pair(dilation, "dilation"), depthwise=True)
    return _finish(acc, bias, multiplier, shift, output_zero_point, activation_min,
                   activation_max)


# ------------------------------------------------ planar int16 (the depthwise's layout)

def planar16(x, zero_point: int, border) -> np.ndarray:
    """The planar layout of an int8 NHWC activation for a depthwise conv:
    int16 [N, C, H + 2*ph, W + 2*pw], value x - zero_point, a border of
    (ph, pw) zeros around each channel's plane (what the pointwise producer
    ``pointwise_s8_planar16`` writes and ``depthwise_planar16_s8`` reads)."""
    x = _check_int8(x, "input", 4)
    ph, pw = _pair(border, "border")
    if ph < 0 or pw < 0:
        raise ValueError(f"border {border} must be >= 0")
    xs = (_i64(x) - int(zero_point)).transpose(0, 3, 1, 2)
    return np.pad(xs, ((0, 0), (0, 0), (ph, ph), (pw, pw))).astype(np.int16)


def fold_input_zero_point(weight, bias, input_zero_point: int) -> np.ndarray:
    """bias - in_zp * sum(w) per output channel, wrapped to int32: the bias of
    an op that multiplies raw int8 inputs (weight [Cout, ...]). Exact: the
    int32 accumulator wraps like C int32, so the sum's order does not matter."""
    w = _i64(_check_int8(weight, "weight"))
    return _wrap32(_i64(bias) - int(input_zero_point) * w.reshape(w.shape[0], -1).sum(1)).astype(np.int32)


def pointwise_s8_planar16(input, weight, bias, multiplier, shift, border,
                          output_zero_point: int, activation_min: int,
                          activation_max: int) -> np.ndarray:
    """int8 1x1 convolution (stride 1, no padding) that writes its output in the
    planar int16 layout of the depthwise conv reading it.

    input int8 [N,H,W,Cin]; weight int8 [Cout,1,1,Cin]; bias int32 [Cout] with
    the input zero point folded in (:func:`fold_input_zero_point`); multiplier,
    shift int32 [Cout]; border int[2] (ph, pw). acc = bias[c] + sum x * w (raw
    x); q = clamp(requantize(acc, M[c], s[c]) + out_zp, act_min, act_max) (the
    int8 value conv2d_s8 gives); out int16 [N, Cout, H+2ph, W+2pw] =
    q - out_zp inside, 0 on the border (= :func:`planar16` of conv2d_s8's output).
    """
    x = _check_int8(input, "input", 4)
    w = _check_int8(weight, "weight", 4)
    if w.shape[1:3] != (1, 1) or w.shape[3] != x.shape[3]:
        raise ValueError(f"pointwise weight {w.shape} does not fit input {x.shape}")
    q = conv2d_s8(x, w, bias, multiplier, shift, (1, 1), (0, 0), (1, 1), 0, output_zero_point,
                  activation_min, activation_max)
    return planar16(q, output_zero_point, border)


def depthwise_planar16_s8(input, weight, bias, multiplier, shift, stride, padding, dilation,
                          output_zero_point: int, activation_min: int,
                          activation_max: int) -> np.ndarray:
    """int8 depthwise convolution (depth multiplier 1) of a planar int16 input.

    input int16 [N, C, H+2ph, W+2pw] (input zero point already subtracted, a
    zero border of the padding (ph, pw)); weight int8 [1,KH,KW,C]; bias,
    multiplier, shift int32 [C]; stride / padding / dilation int[2].
    acc = bias[c] + sum x * w over every tap (the border adds 0); out int8
    NHWC [N,Ho,Wo,C] = clamp(requantize(acc) + out_zp, act_min, act_max):
    the bytes of depthwise_conv2d_s8 on the int8 tensor the planar one holds.
    """
    x = np.asarray(input)
    if x.dtype != np.int16 or x.ndim != 4:
        raise ValueError(f"input must be int16 4-D [N, C, H, W], got {x.dtype} {x.shape}")
    w = _check_int8(weight, "weight", 4)
    ph, pw = _pair(padding, "padding")
    c = x.shape[1]
    if w.shape[0] != 1 or w.shape[3] != c:
        raise ValueError(f"depthwise weight {w.shape} does not fit input {x.shape}")
    if x.shape[2] <= 2 * ph or x.shape[3] <= 2 * pw:
        raise ValueError(f"planar input {x.shape} has no interior inside padding {(ph, pw)}")
    xs = _i64(x).transpose(0, 2, 3, 1)
    acc = _conv_core(xs, _i64(w[0]), _pair(stride, "stride"), (0, 0),
                     _pair(dilation, "dilation"), depthwise=True)
    return _finish(acc, bias, multiplier, shift, output_zero_point, activation_min,
                   activation_max)


def linear_s8(input, weight, bias, multiplier, shift, input_zero_point: int,
              output_zero_point: int, activation_min: int,
              activation_max: int) -> np.ndarray:
    """int8 fully connected: input int8 [M,K], weight int8 [N,K], bias /
    multiplier / shift int32 [N] -> int8 [M,N]."""
    x = _check_int8(input, "input", 2)
    w = _check_int8(weight, "weight", 2)
    if w.shape[1] != x.shape[1]:
        raise ValueError(f"weight K {w.shape[1]} != input K {x.shape[1]}")
    acc = (_i64(x) - int(input_zero_point)) @ _i64(w).T
    return _finish(acc, bias, multiplier, shift, output_zero_point, activation_min,
                   activation_max)


def linear_s4(input, weight, bias, multiplier, shift, input_zero_point: int,
              output_zero_point: int, activation_min: int,
              activation_max: int) -> np.ndarray:
    """int8 fully connected with int4 weights: weight packed uint8 [N, K/2]
    (aot.compiler.quant.int4ref) -> :func:`linear_s8` of the unpacked weights."""
    from aot.compiler.quant.int4ref import unpack_int4
    x = _check_int8(input, "input", 2)
    w = unpack_int4(np.asarray(weight, np.uint8), x.shape[1])
    return linear_s8(x, w, bias, multiplier, shift, input_zero_point, output_zero_point,
                     activation_min, activation_max)


def bmm_s8(a, b, b_transposed: bool, a_zero_point: int, b_zero_point: int,
           output_zero_point: int, output_multiplier: int, output_shift: int,
           activation_min: int, activation_max: int) -> np.ndarray:
    """int8 batched matrix product of two activations (attention's q @ k^T, p @ v).

    a int8 [B, M, K]; b int8 [B, K, N], or [B, N, K] when ``b_transposed``
    (a transposed operand as it already lies in memory); per-tensor zero points.
    acc = sum_k (a[b,m,k] - a_zp) * (b[b,k,n] - b_zp) (int32, wrapping like C);
    out = clamp(requantize(acc, M, s) + out_zp, act_min, act_max) with the real
    multiplier a_scale * b_scale / out_scale (times any constant factor folded
    in, e.g. attention's 1/sqrt(d)). Returns int8 [B, M, N]. ``ValueError`` when
    batch or K differ, or multiplier / shift are out of range.
    """
    x = _check_int8(a, "a", 3)
    y = _check_int8(b, "b", 3)
    if bool(b_transposed):
        y = np.swapaxes(y, 1, 2)
    if y.shape[0] != x.shape[0] or y.shape[1] != x.shape[2]:
        raise ValueError(f"bmm_s8: a {x.shape} and b (as [B,K,N]) {y.shape} do not fit")
    if not 0 <= int(output_multiplier) <= INT32_MAX or not -31 <= int(output_shift) <= 31:
        raise ValueError("bmm_s8: output multiplier / shift out of range")
    acc = _wrap32(np.matmul(_i64(x) - int(a_zero_point), _i64(y) - int(b_zero_point)))
    out = _i64(requantize(acc, output_multiplier, output_shift)) + int(output_zero_point)
    return _clamp_s8(out, int(activation_min), int(activation_max))


def conv_transpose2d_s8(input, weight, bias, multiplier, shift, stride, padding,
                        output_padding, dilation, groups: int, input_zero_point: int,
                        output_zero_point: int, activation_min: int,
                        activation_max: int) -> np.ndarray:
    """int8 transposed 2-D convolution (``torch.nn.functional.conv_transpose2d``), NHWC.

    input int8 [N,H,W,Cin]; weight int8 [Cout,KH,KW,Cin/groups] (output channel c
    reads input channels of group c // (Cout/groups)); bias, multiplier, shift
    int32 [Cout]; stride, padding, output_padding, dilation int[2] (h, w).
    Input pixel (iy, ix) tap (ky, kx) adds to output (iy*sh - ph + ky*dh,
    ix*sw - pw + kx*dw); Ho = (H-1)*sh - 2*ph + dh*(KH-1) + oph + 1 (Wo alike).
    acc = bias[c] + sum (x - in_zp) * w; out = clamp(requantize(acc, M[c], s[c])
    + out_zp, act_min, act_max). Returns int8 [N,Ho,Wo,Cout].
    """
    x = _check_int8(input, "input", 4)
    w = _check_int8(weight, "weight", 4)
    g = int(groups)
    sh, sw = _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    oph, opw = _pair(output_padding, "output_padding")
    dh, dw = _pair(dilation, "dilation")
    n, h, wd, cin = x.shape
    cout, kh, kw, cin_g = w.shape
    if g < 1 or cin % g or cout % g or cin_g * g != cin:
        raise ValueError(f"weight {w.shape} / groups {g} do not fit input {x.shape}")
    if min(sh, sw, dh, dw) < 1 or min(ph, pw) < 0 or not (0 <= oph < max(sh, dh)) \
            or not (0 <= opw < max(sw, dw)):
        raise ValueError("bad stride / padding / output_padding / dilation")
    for name, v in (("bias", bias), ("multiplier", multiplier), ("shift", shift)):
        if np.shape(v) != (cout,):
            raise ValueError(f"{name} must have shape [{cout}], got {np.shape(v)}")
    hf = (h - 1) * sh + dh * (kh - 1) + 1 + oph     # rows before removing the padding
    wf = (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    ho, wo = hf - 2 * ph, wf - 2 * pw
    if ho <= 0 or wo <= 0:
        raise ValueError("transposed convolution output would be empty")
    xs = _i64(x) - int(input_zero_point)
    wi = _i64(w)
    cog = cout // g
    full = np.zeros((n, hf, wf, cout), np.int64)
    for gi in range(g):   # scatter: every input pixel adds its taps to the output
        xg = xs[..., gi * cin_g:(gi + 1) * cin_g]
        for i in range(kh):
            for j in range(kw):
                wg = wi[gi * cog:(gi + 1) * cog, i, j, :]            # [Cout/g, Cin/g]
                full[:, i * dh: i * dh + sh * (h - 1) + 1: sh, j * dw: j * dw + sw * (wd - 1) + 1: sw,
                     gi * cog:(gi + 1) * cog] += xg @ wg.T
    acc = full[:, ph:ph + ho, pw:pw + wo, :]
    return _finish(acc, bias, multiplier, shift, output_zero_point, activation_min,
                   activation_max)


# --------------------------------------------------------------------------- upsampling

#: fractional bits of the bilinear interpolation weights (per axis)
UPSAMPLE_WEIGHT_BITS = 15
#: largest source step of upsample_bilinear2d_s8 in Q32 (keeps (2*o+1)*step < 2^63)
UPSAMPLE_MAX_SCALE_Q32 = 1 << 46


def upsample_nearest2d_s8(input, index_h, index_w) -> np.ndarray:
    """Nearest-neighbour resize of NHWC int8 ``input`` [N,H,W,C] by source index
    tables: out[n, y, x, :] = input[n, index_h[y], index_w[x], :]. index_h
    int32 [Ho] in [0, H), index_w int32 [Wo] in [0, W) (computed ahead of time
    with torch's own index rule, so any scale / size / nearest-exact mode is
    exact). Same qparams in and out. Returns int8 [N,Ho,Wo,C]."""
    x = _check_int8(input, "input", 4)
    ih, iw = np.asarray(index_h), np.asarray(index_w)
    for name, t, lim in (("index_h", ih, x.shape[1]), ("index_w", iw, x.shape[2])):
        if t.dtype != np.int32 or t.ndim != 1 or t.size < 1:
            raise ValueError(f"{name} must be a non-empty int32 vector")
        if t.min() < 0 or t.max() >= lim:
            raise ValueError(f"{name} out of range [0, {lim})")
    return x[:, ih][:, :, iw]


def upsample_scale_q32(in_size: int, out_size: int, align_corners: bool,
                       scale_factor=None) -> int:
    """AOT: the source step of one output pixel of bilinear upsampling in Q32,
    from ATen's area_pixel_compute_scale<float> (align_corners: (in-1)/(out-1),
    0 for out == 1; else 1/scale_factor when given, else in/out), as the fp32
    value torch uses; an identity resize (out == in) is step 1 (ATen copies)."""
    if out_size == in_size:
        return 1 << 32
    if align_corners:
        real = np.float32((in_size - 1) / (out_size - 1)) if out_size > 1 else np.float32(0)
    elif scale_factor is not None and scale_factor > 0:
        real = np.float32(1.0 / float(scale_factor))
    else:
        real = np.float32(in_size) / np.float32(out_size)
    q = int(round(float(real) * 2.0 ** 32))
    if not 0 <= q <= UPSAMPLE_MAX_SCALE_Q32:
        raise ValueError(f"upsample scale {float(real)} out of range")
    return q


def _linear_taps(out_size: int, in_size: int, step: int, align_corners: bool):
    """Per output index: (i0, i1, lambda1 in Q(UPSAMPLE_WEIGHT_BITS)) of ATen's
    linear interpolation, in integer arithmetic: src = o*step (align_corners) or
    max(((2o+1)*step - 2^32) / 2, 0) (Q32, floor); i0 = min(src >> 32, in-1);
    frac = clamp(src - i0*2^32, 0, 2^32); lambda1 = (frac + 2^16) >> 17;
    i1 = i0 + (i0 < in-1)."""
    o = np.arange(out_size, dtype=np.int64)
    if align_corners:
        src = o * step
    else:
        src = np.maximum(((2 * o + 1) * step - (1 << 32)) >> 1, 0)
    i0 = np.minimum(src >> 32, in_size - 1)
    frac = np.clip(src - (i0 << 32), 0, 1 << 32)
    lam = (frac + (1 << (31 - UPSAMPLE_WEIGHT_BITS))) >> (32 - UPSAMPLE_WEIGHT_BITS)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, lam


def upsample_bilinear2d_s8(input, output_size, align_corners: bool, scale_q32) -> np.ndarray:
    """Bilinear resize of NHWC int8 ``input`` [N,H,W,C] to [N,Ho,Wo,C]
    (``output_size`` = (Ho, Wo)), same qparams in and out.

    ``scale_q32`` = (step_h, step_w): source step per output pixel in Q32
    (:func:`upsample_scale_q32`). Per axis :func:`_linear_taps` gives i0, i1 and
    the weight l1 (Q15, l0 = 2^15 - l1). acc = sum of the four raw int8 values
    times lh*lw (int64; the weights sum to 2^30, so the zero point cancels);
    out = acc / 2^30 rounded half to even (always within int8).
    """
    x = _check_int8(input, "input", 4)
    ho, wo = _pair(output_size, "output_size")
    sh, sw = (int(v) for v in scale_q32)
    n, h, w, c = x.shape
    if ho < 1 or wo < 1 or h < 1 or w < 1:
        raise ValueError("empty upsampling")
    for v in (sh, sw):
        if not 0 <= v <= UPSAMPLE_MAX_SCALE_Q32:
            raise ValueError(f"scale_q32 {v} out of range")
    one = 1 << UPSAMPLE_WEIGHT_BITS
    h0, h1, lh = _linear_taps(ho, h, sh, bool(align_corners))
    w0, w1, lw = _linear_taps(wo, w, sw, bool(align_corners))
    xi = _i64(x)
    lh, lw = lh[None, :, None, None], lw[None, None, :, None]
    top = xi[:, h0][:, :, w0] * (one - lw) + xi[:, h0][:, :, w1] * lw
    bot = xi[:, h1][:, :, w0] * (one - lw) + xi[:, h1][:, :, w1] * lw
    acc = top * (one - lh) + bot * lh
    bits = 2 * UPSAMPLE_WEIGHT_BITS
    q = acc >> bits
    rem = acc & ((1 << bits) - 1)
    half = 1 << (bits - 1)
    q = q + ((rem > half) | ((rem == half) & (q & 1 == 1)))
    return _clamp_s8(q)


# --------------------------------------------------------------------------- elementwise

def add_params(a_scale: float, b_scale: float, out_scale: float,
               left_shift: int = 20) -> dict:
    """AOT parameters of :func:`add_s8` from the three float scales:
    ``left_shift``, ``a_multiplier``, ``a_shift``, ``b_multiplier``, ``b_shift``,
    ``output_multiplier``, ``output_shift`` (ints)."""
    twice_max = 2.0 * max(float(a_scale), float(b_scale))
    am, ash = quantize_multiplier(float(a_scale) / twice_max)
    bm, bsh = quantize_multiplier(float(b_scale) / twice_max)
    om, osh = quantize_multiplier(twice_max / ((1 << left_shift) * float(out_scale)))
    return dict(left_shift=left_shift, a_multiplier=am, a_shift=ash, b_multiplier=bm,
                b_shift=bsh, output_multiplier=om, output_shift=osh)


def add_s8(a, b, a_zero_point: int, a_multiplier: int, a_shift: int,
           b_zero_point: int, b_multiplier: int, b_shift: int, left_shift: int,
           output_zero_point: int, output_multiplier: int, output_shift: int,
           activation_min: int, activation_max: int) -> np.ndarray:
    """TFLite int8 add of two same-shape int8 tensors (see :func:`add_params`)."""
    a = _check_int8(a, "a")
    b = _check_int8(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"add_s8 shapes differ: {a.shape} vs {b.shape}")
    ls = int(left_shift)
    a2 = requantize((_i64(a) - int(a_zero_point)) << ls, a_multiplier, a_shift)
    b2 = requantize((_i64(b) - int(b_zero_point)) << ls, b_multiplier, b_shift)
    s = _wrap32(_i64(a2) + _i64(b2))
    out = _i64(requantize(s, output_multiplier, output_shift)) + int(output_zero_point)
    return _clamp_s8(out, int(activation_min), int(activation_max))


def mul_s8(a, b, a_zero_point: int, b_zero_point: int, output_zero_point: int,
           output_multiplier: int, output_shift: int, activation_min: int,
           activation_max: int) -> np.ndarray:
    """int8 elementwise multiply; the real multiplier is a_scale * b_scale /
    out_scale. b has a's shape or broadcasts to it (a's rank, each size a's or
    1: a squeeze-excitation gate [N, 1, 1, C] over NHWC [N, H, W, C]); the
    result has a's shape."""
    a = _check_int8(a, "a")
    b = _check_int8(b, "b")
    if b.ndim != a.ndim or any(sb not in (1, sa) for sa, sb in zip(a.shape, b.shape)):
        raise ValueError(f"mul_s8: b {b.shape} does not broadcast to a {a.shape}")
    p = (_i64(a) - int(a_zero_point)) * (_i64(b) - int(b_zero_point))
    out = _i64(requantize(p, output_multiplier, output_shift)) + int(output_zero_point)
    return _clamp_s8(out, int(activation_min), int(activation_max))


# --------------------------------------------------------------------------- pooling

def _windows(xp: np.ndarray, kh, kw, sh, sw, dh, dw, ho, wo):
    for i in range(kh):
        for j in range(kw):
            yield xp[:, i * dh: i * dh + sh * (ho - 1) + 1: sh,
                     j * dw: j * dw + sw * (wo - 1) + 1: sw, :]


def _pool_out(h, w, k, s, p, d):
    ho = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    wo = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if ho <= 0 or wo <= 0:
        raise ValueError("pooling output would be empty")
    return ho, wo


def avg_pool2d_s8(input, kernel_size, stride, padding, count_include_pad: bool,
                  zero_point: int, activation_min: int, activation_max: int) -> np.ndarray:
    """int8 average pool, NHWC, same qparams in and out.

    Window sum of raw int8 values; padded taps add ``zero_point`` when
    ``count_include_pad`` (and are counted), else are skipped. out =
    (sum +- count/2) / count with C division (half away from zero), clamped.
    Returns int8 [N,Ho,Wo,C].
    """
    x = _check_int8(input, "input", 4)
    k = _pair(kernel_size, "kernel_size")
    s = _pair(stride, "stride") if len(list(stride)) else k
    p = _pair(padding, "padding")
    n, h, w, c = x.shape
    ho, wo = _pool_out(h, w, k, s, p, (1, 1))
    xp = np.pad(_i64(x), ((0, 0), (p[0], p[0]), (p[1], p[1]), (0, 0)),
                constant_values=int(zero_point))
    valid = np.pad(np.ones((1, h, w, 1), np.int64), ((0, 0), (p[0], p[0]), (p[1], p[1]), (0, 0)))
    total = np.zeros((n, ho, wo, c), np.int64)
    count = np.zeros((1, ho, wo, 1), np.int64)
    for win, vwin in zip(_windows(xp, *k, *s, 1, 1, ho, wo),
                         _windows(valid, *k, *s, 1, 1, ho, wo)):
        if count_include_pad:
            total += win
            count += 1
        else:
            total += win * vwin
            count += vwin
    half = count // 2
    q = np.where(total >= 0, (total + half) // count, -((-total + half) // count))
    return _clamp_s8(q, int(activation_min), int(activation_max))


def pool_ceil_dim(size: int, k: int, s: int, p: int, d: int) -> int:
    """Output size of a pooling axis with ceil_mode (PyTorch's rule): windows may run
    past the end, but the last one starts inside the input or its left padding."""
    out = -(-(size + 2 * p - d * (k - 1) - 1) // s) + 1
    if (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d_s8(input, kernel_size, stride, padding, dilation, activation_min: int,
                  activation_max: int, ceil_mode: bool = False) -> np.ndarray:
    """int8 max pool, NHWC, same qparams in and out; padded taps are ignored
    (ceil_mode: also the taps of the last windows past the input's end).
    Returns int8 [N,Ho,Wo,C]."""
    x = _check_int8(input, "input", 4)
    k = _pair(kernel_size, "kernel_size")
    s = _pair(stride, "stride") if len(list(stride)) else k
    p = _pair(padding, "padding")
    d = _pair(dilation, "dilation")
    n, h, w, c = x.shape
    if ceil_mode:
        ho, wo = pool_ceil_dim(h, k[0], s[0], p[0], d[0]), pool_ceil_dim(w, k[1], s[1], p[1], d[1])
    else:
        ho, wo = _pool_out(h, w, k, s, p, d)
    # rows / columns past the padded input that the last windows reach (ceil_mode)
    eh = max(0, (ho - 1) * s[0] + d[0] * (k[0] - 1) + 1 - (h + 2 * p[0]))
    ew = max(0, (wo - 1) * s[1] + d[1] * (k[1] - 1) + 1 - (w + 2 * p[1]))
    xp = np.pad(x.astype(np.int16), ((0, 0), (p[0], p[0] + eh), (p[1], p[1] + ew), (0, 0)),
                constant_values=-129)  # below every int8: never the max of a window
    out = np.full((n, ho, wo, c), -129, np.int16)
    for win in _windows(xp, *k, *s, *d, ho, wo):
        np.maximum(out, win, out=out)
    return _clamp_s8(out, int(activation_min), int(activation_max))


def mean_s8(input, input_zero_point: int, output_zero_point: int, multiplier: int,
            shift: int) -> np.ndarray:
    """int8 global average over H and W of NHWC ``input`` [N,H,W,C].

    acc = sum (x - in_zp); out = clamp(requantize(acc, M, s) + out_zp) with the
    real multiplier in_scale / (out_scale * H * W). Returns int8 [N,1,1,C].
    """
    x = _check_int8(input, "input", 4)
    acc = _wrap32((_i64(x) - int(input_zero_point)).sum(axis=(1, 2), keepdims=True))
    out = _i64(requantize(acc, multiplier, shift)) + int(output_zero_point)
    return _clamp_s8(out)


def pad_s8(input, pads: Sequence[int], pad_value: int) -> np.ndarray:
    """Constant pad of NHWC int8 ``input`` in H and W; pads = (top, bottom,
    left, right) >= 0; returns int8 [N, H+t+b, W+l+r, C]."""
    x = _check_int8(input, "input", 4)
    t, b, l, r = (int(v) for v in pads)
    if min(t, b, l, r) < 0:
        raise ValueError(f"pads must be >= 0, got {pads}")
    if not -128 <= int(pad_value) <= 127:
        raise ValueError(f"pad_value {pad_value} not int8")
    return np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=int(pad_value))


# --------------------------------------------------------------------------- lookup tables

def lut_s8(input, table) -> np.ndarray:
    """Elementwise table lookup: out[i] = table[input[i] + 128], any shape.
    ``table`` is int8 [256], computed ahead of time for one activation function
    and one pair of input / output quantization parameters
    (aot.compiler.quant.patterns.arith.lut_table)."""
    x = _check_int8(input, "input")
    t = _check_int8(table, "table", 1)
    if t.shape != (256,):
        raise ValueError(f"table must have 256 entries, has {t.shape[0]}")
    return t[x.astype(np.int16) + 128]


# --------------------------------------------------------------------------- softmax
#
# TFLite / CMSIS-NN int8 softmax over the last axis, in gemmlowp-style fixed
# point. Values are int32 carried in int64 numpy arrays; every add/sub that C
# does in int32 is wrapped with _wrap32.

#: integer bits of the scaled input difference (Q5.26) and of the sum of exps (Q12.19)
SOFTMAX_DIFF_INT_BITS = 5
SOFTMAX_ACCUM_INT_BITS = 12
#: largest last-dimension size: depth * 2^19 (the sum of exps in Q12.19) stays < 2^31
SOFTMAX_MAX_DEPTH = 4095
#: the fixed output quantization of softmax_s8 (TFLite convention)
SOFTMAX_OUT_SCALE = 1.0 / 256.0
SOFTMAX_OUT_ZERO_POINT = -128

_EXP_BARREL = (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)


def softmax_params(input_scale: float, beta: float = 1.0) -> Tuple[int, int, int]:
    """AOT parameters of :func:`softmax_s8` (runs ahead of time, float).

    real = min(beta * input_scale * 2^(31-5), 2^31 - 1); (multiplier,
    left_shift) = frexp rule of :func:`quantize_multiplier` (left_shift in
    [0, 31]); diff_min = -floor((2^5 - 1) * 2^(31-5) / 2^left_shift) (TFLite's
    CalculateInputRadius(5, left_shift, 31), negated). Returns
    ``(input_multiplier, input_left_shift, diff_min)``. ``ValueError`` when the
    real multiplier is below 0.5 (left shift would be negative) or not finite.
    """
    real = float(beta) * float(input_scale) * float(1 << (31 - SOFTMAX_DIFF_INT_BITS))
    if not math.isfinite(real) or real < 0.5:
        raise ValueError(f"softmax: beta * input_scale = {beta * input_scale} out of range")
    real = min(real, float(INT32_MAX))
    q, e = math.frexp(real)
    m = math.floor(q * (1 << 31) + 0.5)
    if m == (1 << 31):
        m //= 2
        e += 1
    if not 0 <= e <= 31:
        raise AssertionError(e)
    radius = (((1 << SOFTMAX_DIFF_INT_BITS) - 1) << (31 - SOFTMAX_DIFF_INT_BITS)) >> e
    return int(m), int(e), -int(radius)


def _sat_lshift(x, e: int) -> np.ndarray:
    """gemmlowp SaturatingRoundingMultiplyByPOT<e> for e > 0: x * 2^e saturated to int32."""
    x = _i64(x)
    thr = (1 << (31 - e)) - 1
    return np.where(x > thr, INT32_MAX, np.where(x < -thr, INT32_MIN, x << e))


def _mul(a, b) -> np.ndarray:
    return _i64(srdhm(a, b))


def _exp_on_quarter(a) -> np.ndarray:
    """exp(a) for Q0.31 a in [-1/4, 0): Taylor polynomial around -1/8."""
    x = _wrap32(_i64(a) + (1 << 28))
    x2 = _mul(x, x)
    x3 = _mul(x2, x)
    x4 = _mul(x2, x2)
    x4_4 = _i64(rdbpot(x4, 2))
    poly = _i64(rdbpot(_wrap32(_mul(_wrap32(x4_4 + x3), 715827883) + x2), 1))
    return _wrap32(1895147668 + _mul(1895147668, _wrap32(x + poly)))


def exp_on_negative_values(a) -> np.ndarray:
    """exp of Q5.26 values a <= 0 (int32), result Q0.31 (int32); exp(0) = 2^31 - 1.

    a mod 1/4 goes through the polynomial; each set bit of the multiple of 1/4
    (2^-2 .. 2^4) multiplies by the Q0.31 constant exp(-2^k).
    """
    a = _i64(a)
    quarter = 1 << 24                                  # 1/4 in Q5.26
    amq = (a & (quarter - 1)) - quarter                # in [-1/4, 0)
    result = _exp_on_quarter(_sat_lshift(amq, 5))      # Q5.26 -> Q0.31
    rem = _wrap32(amq - a)
    for k, c in enumerate(_EXP_BARREL):
        result = np.where((rem & (1 << (24 + k))) != 0, _mul(result, c), result)
    return np.where(a == 0, INT32_MAX, result).astype(np.int32)


def one_over_one_plus_x(a) -> np.ndarray:
    """1 / (1 + a) for Q0.31 a in [0, 1): result Q0.31 (Newton-Raphson, 3 steps in Q2.29)."""
    s = _i64(a) + INT32_MAX
    half = np.where(s >= 0, (s + 1) // 2, -((1 - s) // 2))  # (s + sign) / 2, C division
    x = _wrap32(1515870810 + _mul(half, -1010580540))       # 48/17 - 32/17 * half
    for _ in range(3):
        one_minus = _wrap32((1 << 29) - _mul(half, x))
        x = _wrap32(x + _sat_lshift(_mul(x, one_minus), 2))
    return _sat_lshift(x, 1).astype(np.int32)


def _bit_length(x: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 values below 2^32 (integer binary search)."""
    v = _i64(x).copy()
    n = np.zeros_like(v)
    for s in (16, 8, 4, 2, 1):
        big = v >= (1 << s)
        n += np.where(big, s, 0)
        v = np.where(big, v >> s, v)
    return n + (v > 0)


def softmax_s8(input, input_multiplier: int, input_left_shift: int,
               diff_min: int) -> np.ndarray:
    """int8 softmax over the last axis; output scale 1/256, zero point -128.

    Per row: diff = x - max(row) (<= 0); entries with diff < diff_min give
    -128; otherwise scaled = requantize(diff, M, left_shift) (Q5.26), e =
    exp_on_negative_values(scaled) (Q0.31); sum = sum of RDBPOT(e, 12) (Q12.19);
    headroom = clz32(sum), nbou = 12 - headroom, scale =
    one_over_one_plus_x((sum << headroom) - 2^31); out = clamp(RDBPOT(SRDHM(scale,
    e), nbou + 23) - 128) (a shift above 31 gives 0). Parameters from
    :func:`softmax_params`. The last dimension must be in [1, 4095].
    """
    x = _check_int8(input, "input")
    ls = int(input_left_shift)
    if x.ndim < 1 or not 1 <= x.shape[-1] <= SOFTMAX_MAX_DEPTH:
        raise ValueError(f"softmax_s8: last dimension of {x.shape} not in [1, {SOFTMAX_MAX_DEPTH}]")
    if not 0 <= ls <= 31 or not 0 <= int(input_multiplier) <= INT32_MAX or int(diff_min) > 0:
        raise ValueError("softmax_s8: multiplier / left shift / diff_min out of range")
    rows = _i64(x).reshape(-1, x.shape[-1])
    diff = rows - rows.max(axis=1, keepdims=True)
    valid = diff >= int(diff_min)
    scaled = requantize(diff, int(input_multiplier), ls)
    e = _i64(exp_on_negative_values(np.where(valid, scaled, 0)))
    total = _wrap32(np.where(valid, _i64(rdbpot(e, SOFTMAX_ACCUM_INT_BITS)), 0).sum(axis=1))
    headroom = 32 - _bit_length(total)                 # total >= 2^19 > 0
    nbou = SOFTMAX_ACCUM_INT_BITS - headroom
    shifted = ((total << headroom) & 0xFFFFFFFF) - (1 << 31)
    scale = _i64(one_over_one_plus_x(shifted))
    prod = _mul(scale[:, None], e)
    sh = (nbou + 31 - 8)[:, None] + np.zeros_like(prod)
    q = np.where(sh > 31, 0, _i64(rdbpot(prod, np.minimum(sh, 31))))
    out = np.where(valid, q - 128, -128)
    return _clamp_s8(out).reshape(x.shape)
