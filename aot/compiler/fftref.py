"""The real-input FFT of ``mote::rfft_mag`` / ``rfft_mag_q15`` / ``rfft_mag_q31``:
the twiddle tables the compiler stores with a program, and the integer reference
of the fixed-point kernels (kernels/fft.h states the method; this module computes
the same integers with numpy, so the C kernels on every core are checked byte for
byte against it).

Shapes: a signal ``x`` is ``[..., N]`` (N a power of two, 2..65536), a spectrum
``[..., N/2 + 1]``. Twiddles: ``[N]``, the pairs (cos 2πk/N, sin 2πk/N) for k < N/2,
computed in float64 and rounded to the op's dtype (Q15 / Q31: nearest, 1.0 as the
largest value).
"""
from __future__ import annotations

import math

import numpy as np

#: largest transform length (MOTE_FFT_MAX_N, kernels/fft.h)
MAX_N = 65536

#: op -> the numpy dtype of its twiddle table
TWIDDLE_DTYPES = {"rfft_mag": np.float32, "rfft_mag_q15": np.int16, "rfft_mag_q31": np.int32}


def valid_length(n: int) -> bool:
    """True if the kernels transform rows of ``n`` samples (a power of two, 2..MAX_N)."""
    return 2 <= n <= MAX_N and n & (n - 1) == 0


def twiddles(n: int, dtype) -> np.ndarray:
    """The twiddle table of an ``n``-point transform in ``dtype`` (float32, int16
    Q15 or int32 Q31): ``[n]`` values (cos, sin)(2πk/n), k < n/2."""
    k = np.arange(n // 2, dtype=np.float64)
    ang = 2.0 * np.pi * k / n
    pairs = np.stack([np.cos(ang), np.sin(ang)], axis=1).reshape(-1)
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return pairs.astype(np.float32)
    bits = 8 * dtype.itemsize - 1
    top = (1 << bits) - 1
    return np.clip(np.round(pairs * (1 << bits)), -top, top).astype(dtype)


def _bitrev(m: int) -> np.ndarray:
    """Bit-reversal permutation of range(m) (m a power of two)."""
    bits = m.bit_length() - 1
    idx = np.arange(m)
    rev = np.zeros(m, dtype=np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return rev


def _isqrt_round(p: np.ndarray) -> np.ndarray:
    """Nearest integer to sqrt(p) (p >= 0, int64 or uint64 < 2^64), elementwise, exact."""
    p = np.asarray(p).astype(object)
    from math import isqrt
    flat = [isqrt(int(v)) for v in p.reshape(-1)]
    r = np.array([r + 1 if int(v) - r * r > r else r for v, r in zip(p.reshape(-1), flat)], dtype=object)
    return r.reshape(p.shape)


def _stages(z: np.ndarray, tw: np.ndarray, n: int, frac: int) -> np.ndarray:
    """The fixed-point stages on z ([rows, M, 2] int64, bit-reversed order) with Q`frac`
    twiddles: t = (W c) >> (frac + 1), a' = (a >> 1) + t, c' = (a >> 1) - t."""
    m = n // 2
    half = 1
    w = tw.astype(np.int64).reshape(-1, 2)
    while half < m:
        stride = m // half
        idx = np.arange(m).reshape(-1, 2 * half)
        top, bot = idx[:, :half].reshape(-1), idx[:, half:].reshape(-1)
        j = top % (2 * half)
        wc, ws = w[j * stride, 0], w[j * stride, 1]
        a, c = z[:, top, :], z[:, bot, :]
        tr = (wc * c[..., 0] + ws * c[..., 1]) >> (frac + 1)
        ti = (wc * c[..., 1] - ws * c[..., 0]) >> (frac + 1)
        hr, hi = a[..., 0] >> 1, a[..., 1] >> 1
        new = z.copy()
        new[:, top, 0], new[:, top, 1] = hr + tr, hi + ti
        new[:, bot, 0], new[:, bot, 1] = hr - tr, hi - ti
        z = new
        half *= 2
    return z


def _pack(x: np.ndarray, n: int) -> np.ndarray:
    """Rows of x (int64 [rows, n]) as bit-reversed complex pairs, halved (floor)."""
    m = n // 2
    z = np.empty((x.shape[0], m, 2), dtype=np.int64)
    rev = _bitrev(m)
    z[:, rev, 0] = x[:, 0::2] >> 1
    z[:, rev, 1] = x[:, 1::2] >> 1
    return z


def _split_pairs(z: np.ndarray, tw: np.ndarray, n: int):
    """(a, b, c, d, wc, ws) per bin k in [0, M]: Z'[k] = (a, b), Z'[M-k] = (c, d), W^k = (wc, -ws)."""
    m = n // 2
    k = np.arange(m + 1)
    ik, im = np.where(k == m, 0, k), np.where(k == 0, 0, m - k)
    w = tw.astype(np.int64).reshape(-1, 2)
    wc = np.where(k == m, -w[0, 0], w[ik, 0])
    ws = np.where(k == m, 0, w[ik, 1])
    return z[:, ik, 0], z[:, ik, 1], z[:, im, 0], z[:, im, 1], wc, ws


def _pairs(er, ei, pr, pi, n: int):
    """The bins' parts from E and P = W O per bin k in [0, M] (axis 1): E + P, except the
    bins k > M/2 (k < M), which take E - P of their partner M - k (|X[M-k]| = |E - P|,
    W^(M-k) = -conj W^k: the kernels compute the two bins of a pair from one pair of loads)."""
    m = n // 2
    xr, xi = er + pr, ei + pi
    hi = np.array([k for k in range(1, m) if 2 * k > m], dtype=np.int64)
    if hi.size:
        j = m - hi
        xr[:, hi] = er[:, j] - pr[:, j]
        xi[:, hi] = ei[:, j] - pi[:, j]
    return xr, xi


def rfft_mag_q15(x, twiddle, power: int) -> np.ndarray:
    """The integers of mote::rfft_mag_q15: x int16 [..., N], twiddle int16 [N] ->
    int32 [..., N/2 + 1], |X/N| rounded (power 1) or |X/N|^2 (power 2, Q30 for Q15 x)."""
    x = np.asarray(x)
    n = x.shape[-1]
    rows = x.reshape(-1, n).astype(np.int64)
    z = _stages(_pack(rows, n), np.asarray(twiddle), n, 15)
    a, b, c, d, wc, ws = _split_pairs(z, np.asarray(twiddle), n)
    er, ei, orr, oi = (a + c) * 16384, (b - d) * 16384, b + d, c - a
    pr, pi = (wc * orr + ws * oi) >> 1, (wc * oi - ws * orr) >> 1
    xr30, xi30 = _pairs(er, ei, pr, pi, n)
    xr, xi = (xr30 + 16384) >> 15, (xi30 + 16384) >> 15
    p = xr * xr + xi * xi
    out = p if power == 2 else _isqrt_round(p).astype(np.int64)
    return out.astype(np.int32).reshape(x.shape[:-1] + (n // 2 + 1,))


def rfft_mag_q31(x, twiddle, power: int, shift: int) -> np.ndarray:
    """The integers of mote::rfft_mag_q31: x int16 (read as x << 16) or int32
    [..., N], twiddle int32 [N] -> int32 [..., N/2 + 1]: |V/N| rounded (power 1)
    or |V/N|^2 >> shift rounded (power 2), saturated to int32."""
    x = np.asarray(x)
    n = x.shape[-1]
    rows = x.reshape(-1, n).astype(np.int64)
    if x.dtype == np.int16:
        rows = rows << 16
    tw = np.asarray(twiddle)
    z = _stages(_pack(rows, n), tw, n, 31)
    a, b, c, d, wc, ws = _split_pairs(z, tw, n)
    er, ei, orr, oi = (a + c) >> 1, (b - d) >> 1, (b + d) >> 1, (c - a) >> 1
    # products of 31-bit values by Q31 twiddles: beyond int64 only in their sum's
    # intermediate; object ints keep them exact
    wc, ws = wc.astype(object), ws.astype(object)
    orr, oi = orr.astype(object), oi.astype(object)
    pr, pi = (wc * orr + ws * oi) >> 31, (wc * oi - ws * orr) >> 31
    xr, xi = _pairs(er.astype(object), ei.astype(object), pr, pi, n)
    p = xr * xr + xi * xi
    if power == 2:
        v = ((p >> (shift - 1)) + 1) >> 1 if shift > 0 else p
    else:
        v = _isqrt_round(p)
    v = np.minimum(v, (1 << 31) - 1)
    return np.array(v.tolist(), dtype=np.int64).astype(np.int32).reshape(x.shape[:-1] + (n // 2 + 1,))


def rfft_mag(x, twiddle, power: int, scale: float) -> np.ndarray:
    """What mote::rfft_mag computes, in float64 then rounded to float32 (the eager
    stand-in of the op; the kernel runs its own fp32 transform): scale * |rfft(x)|^power."""
    spec = np.abs(np.fft.rfft(np.asarray(x, dtype=np.float64), axis=-1))
    return (scale * spec ** power).astype(np.float32)


def rfft_mag_window(x, twiddle, power: int, scale: float, window) -> np.ndarray:
    """What mote::rfft_mag_window computes: rfft_mag of the float32 products
    float32(x) * window (the kernel's windowed row, rounded as the mul rounds it)."""
    row = np.asarray(x).astype(np.float32) * np.asarray(window, dtype=np.float32)
    return rfft_mag(row, twiddle, power, scale)


def error_bound(n: int, bits: int) -> float:
    """Bound on |X'_k - X_k / N| (complex, in units of the fixed-point LSB: Q15 for
    bits 16, Q31 for bits 32) of the fixed-point transform of an N-point row, X the exact
    DFT of the row's values (docs/front-ends.md derives it): the packing's floor (√2/2),
    per stage at most 2.48 (floor of a/2: 1/2 and of t: 1 per component, √2 · 1.5; the
    twiddle's error, at most 1 LSB of a unit vector (1.0 is stored as the largest
    value), times |c|/2 < 0.71 · 2^(B-1): 0.36), never amplified (a butterfly averages
    two errors); the split weighs the two bins it reads by coefficients whose squares
    sum to 1 (√2 times the stage error) and adds its own rounding (Q15: twiddle 0.71 +
    final rounding √2/2; Q31: the E/O floors √2, the product's floor √2, twiddle 0.36)."""
    stages = max(0, (n // 2).bit_length() - 1)
    e_stages = math.sqrt(2) / 2 + 2.48 * stages
    own = 0.71 + math.sqrt(2) / 2 if bits == 16 else 2 * math.sqrt(2) + 0.36
    return math.sqrt(2) * e_stages + own
