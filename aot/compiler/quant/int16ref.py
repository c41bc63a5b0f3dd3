"""Mote's Python integer reference for the int16-activation operators
``mote::conv2d_s16``, ``mote::depthwise_conv2d_s16`` and ``mote::linear_s16``.

The scheme is TFLite's int16x8 one, which CMSIS-NN's s16 kernels implement:
activations int16 with zero point 0 (symmetric, [-32768, 32767]), weights int8
symmetric per output channel, bias int64 with scale ``input_scale *
weight_scale[c]``, 64-bit accumulators, and the requantization of
:func:`requantize_s64`. This module defines the bytes the C kernels
(``kernels/op_mote_*_s16.c``) must produce.

Layouts as :mod:`aot.compiler.quant.int8ref`: 4-D activations NHWC, conv weight
[Cout, KH, KW, Cin], depthwise weight [1, KH, KW, Cout], linear weight [N, K].
Errors: ``ValueError`` for shapes or arguments outside the contract (the C
kernels return MOTE_ERR_KERNEL_* for the same cases).
"""
from __future__ import annotations

import numpy as np

from aot.compiler.quant.int8ref import _conv_core, _i64, _pair

__all__ = ["requantize_s64", "conv2d_s16", "depthwise_conv2d_s16", "linear_s16",
           "BIAS_MAX", "TAPS_MAX", "SHIFT_RANGE"]

#: |bias| limit and taps per output the kernels accept (kernels/requant.h
#: MOTE_S16_BIAS_MAX / MOTE_S16_TAPS_MAX): |accumulator| < 2^46
BIAS_MAX = 1 << 40
TAPS_MAX = 1 << 23
#: shifts the 64-bit requantization takes (15 - shift is the right shift, >= 1)
SHIFT_RANGE = (-31, 14)


def requantize_s64(acc, multiplier, shift) -> np.ndarray:
    """int64 ``acc`` times a Q31 ``multiplier`` rounded to Q15, shifted:
    r = M < 0x7FFF0000 ? (M + 2^15) >> 16 : 0x7FFF;
    floor((acc * r + 2^(14 - s)) / 2^(15 - s)). multiplier / shift broadcast
    along the last axis; returns int64 (not yet clamped)."""
    m = _i64(multiplier)
    s = _i64(shift)
    if np.any(s < SHIFT_RANGE[0]) or np.any(s > SHIFT_RANGE[1]) or np.any(m < 0):
        raise ValueError(f"s16 requantization needs multiplier >= 0 and shift in {list(SHIFT_RANGE)}")
    r = np.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, 0x7FFF)
    e = 15 - s
    return (_i64(acc) * r + (np.int64(1) << (e - 1))) >> e


def _check(x, dtype, name: str, ndim: int) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != dtype or x.ndim != ndim:
        raise ValueError(f"{name} must be {np.dtype(dtype).name} {ndim}-D, got {x.dtype} {x.shape}")
    return x


def _finish(acc, bias, multiplier, shift, act_min: int, act_max: int) -> np.ndarray:
    b = _i64(bias)
    if np.any(np.abs(b) > BIAS_MAX):
        raise ValueError("s16 bias beyond +-2^40")
    if not (-32768 <= int(act_min) <= int(act_max) <= 32767):
        raise ValueError(f"activation range [{act_min}, {act_max}] not within int16")
    out = requantize_s64(_i64(acc) + b, multiplier, shift)
    return np.clip(out, int(act_min), int(act_max)).astype(np.int16)


def conv2d_s16(input, weight, bias, multiplier, shift, stride, padding, dilation,
               activation_min: int, activation_max: int) -> np.ndarray:
    """int16 x int8 2-D convolution, NHWC: input int16 [N, H, W, Cin]; weight
    int8 [Cout, KH, KW, Cin]; bias int64, multiplier / shift int32 [Cout];
    stride / padding (symmetric) / dilation (h, w). Returns int16 [N, Ho, Wo, Cout]."""
    x = _check(input, np.int16, "input", 4)
    w = _check(weight, np.int8, "weight", 4)
    if w.shape[3] != x.shape[3] or w[0].size > TAPS_MAX:
        raise ValueError(f"weight {w.shape} does not fit input {x.shape}")
    acc = _conv_core(_i64(x), _i64(w), _pair(stride, "stride"), _pair(padding, "padding"),
                     _pair(dilation, "dilation"), depthwise=False)
    return _finish(acc, bias, multiplier, shift, activation_min, activation_max)


def depthwise_conv2d_s16(input, weight, bias, multiplier, shift, stride, padding, dilation,
                         depth_multiplier: int, activation_min: int, activation_max: int) -> np.ndarray:
    """int16 x int8 depthwise convolution, NHWC: weight int8 [1, KH, KW, Cout],
    Cout = Cin * depth_multiplier. Returns int16 [N, Ho, Wo, Cout]."""
    x = _check(input, np.int16, "input", 4)
    w = _check(weight, np.int8, "weight", 4)
    dm = int(depth_multiplier)
    if w.shape[0] != 1 or dm < 1 or w.shape[3] != x.shape[3] * dm:
        raise ValueError(f"depthwise weight {w.shape} does not fit input {x.shape} x {dm}")
    xs = _i64(x) if dm == 1 else np.repeat(_i64(x), dm, axis=3)
    acc = _conv_core(xs, _i64(w[0]), _pair(stride, "stride"), _pair(padding, "padding"),
                     _pair(dilation, "dilation"), depthwise=True)
    return _finish(acc, bias, multiplier, shift, activation_min, activation_max)


def linear_s16(input, weight, bias, multiplier, shift, activation_min: int,
               activation_max: int) -> np.ndarray:
    """int16 x int8 fully connected: input int16 [M, K], weight int8 [N, K],
    bias int64 / multiplier / shift int32 [N] -> int16 [M, N]."""
    x = _check(input, np.int16, "input", 2)
    w = _check(weight, np.int8, "weight", 2)
    if w.shape[1] != x.shape[1] or x.shape[1] > TAPS_MAX:
        raise ValueError(f"weight K {w.shape[1]} != input K {x.shape[1]}")
    return _finish(_i64(x) @ _i64(w).T, bias, multiplier, shift, activation_min, activation_max)
