"""The banded matrix product of ``mote::band_mm``: a constant weight ``W [K, N]`` whose
column j is zero outside one contiguous row range ``[lo_j, lo_j + len_j)`` (a mel
filterbank: each triangular filter covers a few neighbouring FFT bins) is stored as
its bands only, and ``out[i, j] = sum_t x[i, lo_j + t] * W[lo_j + t, j]`` (t < len_j)
plus ``bias[j]``.

Storage (what the compiler writes, what kernels/op_mote_band_mm.c reads):

- ``values`` float32 ``[P]``: the bands one after the other, column 0 first
  (``P = sum_j len_j``), each in row order;
- ``bands`` int32 ``[N, 2]``: ``(lo_j, len_j)``; column j's values start at
  ``len_0 + ... + len_{j-1}``. The kernel checks ``0 <= lo_j``, ``0 <= len_j``,
  ``lo_j + len_j <= K`` and that the lengths add up to exactly ``P`` before it reads
  anything, so a corrupted table is refused, never read out of bounds.

When to lower (:func:`worth_it`): the band's storage ``4 P + 8 N`` bytes (values and the
two int32 per column) at most half the dense weight's ``4 K N``. The kernel's work is
proportional to the same quantity (P multiply-adds plus a few instructions per column)
and the dense product's to ``K N`` multiply-adds, so the rule is also a cost estimate:
the band must at least halve both flash and arithmetic. The mel filterbank of the
keyword spotter (257 x 40, 493 nonzeros): 2,292 B for 41,120 B.

Arithmetic: each output is the band's products summed in row order in float32, one
accumulator, bias added last. The dense product adds the same nonzero products plus
exact zeros, in its own order, so the two agree to fp32 summation-order error:
``|band - dense| <= (gamma(len_j) + gamma(K)) * sum_k |x[i, k]| |W[k, j]|`` with
``gamma(n) = n u / (1 - n u)``, ``u = 2^-24`` (bias: one more rounding of the sum, ``u``
times its magnitude). A non-finite input (inf, NaN) outside a column's band makes that
output NaN, as ``inf * 0`` makes the dense product's: the results are the same kind
of number in every case.
"""
from __future__ import annotations

import numpy as np

#: the threshold of :func:`worth_it`: band storage / dense storage at most this
MAX_BAND_RATIO = 0.5


def bands_of(w) -> tuple:
    """``(values float32 [P], bands int32 [N, 2])`` of a weight ``w [K, N]``: per column
    the smallest row range holding all its nonzeros (an all-zero column: ``(0, 0)``)."""
    w = np.asarray(w, dtype=np.float32)
    if w.ndim != 2:
        raise ValueError(f"a band weight is 2-D, not {w.shape}")
    k, n = w.shape
    bands = np.zeros((n, 2), dtype=np.int32)
    parts = []
    for j in range(n):
        nz = np.flatnonzero(w[:, j])
        if nz.size == 0:
            continue
        lo, hi = int(nz[0]), int(nz[-1]) + 1
        bands[j] = (lo, hi - lo)
        parts.append(w[lo:hi, j])
    values = np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, dtype=np.float32)
    return values, bands


def band_bytes(bands) -> int:
    """Bytes of the band storage of ``bands`` ([N, 2]): 4 per value + 8 per column."""
    bands = np.asarray(bands)
    return 4 * int(bands[:, 1].sum()) + 8 * int(bands.shape[0])


def worth_it(w) -> bool:
    """True if ``w [K, N]`` is stored and multiplied as bands (see the module docstring):
    band storage <= MAX_BAND_RATIO x the dense ``4 K N`` bytes."""
    w = np.asarray(w)
    if w.ndim != 2 or w.size == 0 or np.count_nonzero(w) > MAX_BAND_RATIO * w.size:
        return False  # (the bands hold at least the nonzeros)
    _, bands = bands_of(w)
    return band_bytes(bands) <= MAX_BAND_RATIO * 4 * w.size


def band_mm(x, values, bands, bias=None) -> np.ndarray:
    """``out [M, N]`` float32 of input ``x [M, K]`` (the kernel's arithmetic and order)."""
    x = np.asarray(x, dtype=np.float32)
    values = np.asarray(values, dtype=np.float32).reshape(-1)
    bands = np.asarray(bands, dtype=np.int64).reshape(-1, 2)
    m, k = x.shape
    n = bands.shape[0]
    lo, ln = bands[:, 0], bands[:, 1]
    if (lo < 0).any() or (ln < 0).any() or (lo + ln > k).any() or int(ln.sum()) != values.size:
        raise ValueError("band table does not fit the input / values")
    off = np.concatenate([[0], np.cumsum(ln)[:-1]]).astype(np.int64)
    acc = np.zeros((m, n), dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        for t in range(int(ln.max()) if n else 0):
            live = ln > t
            cols = np.flatnonzero(live)
            acc[:, cols] = acc[:, cols] + x[:, lo[cols] + t] * values[off[cols] + t]
        bad = ~np.isfinite(x)
        if bad.any():
            idx = np.arange(k)
            for j in range(n):
                outside = (idx < lo[j]) | (idx >= lo[j] + ln[j])
                acc[bad[:, outside].any(axis=1), j] = np.nan
        if bias is not None:
            acc = acc + np.asarray(bias, dtype=np.float32).reshape(n)
    return acc.astype(np.float32)


def error_bound(x, w, bias=None) -> np.ndarray:
    """Elementwise bound ``[M, N]`` of |band_mm - dense fp32 mm| for ``x [M, K]``, ``w [K, N]``
    (the module docstring's: both sums' fp32 error against the exact one)."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    w = np.asarray(w, dtype=np.float64)
    k = w.shape[0]
    _, bands = bands_of(w)
    u = 2.0 ** -24

    def gamma(n):
        return n * u / (1 - n * u)

    mag = x @ np.abs(w)
    bound = (gamma(bands[:, 1].astype(np.float64))[None, :] + gamma(k)) * mag
    if bias is not None:
        bound = bound + 2 * u * (mag + np.abs(np.asarray(bias, dtype=np.float64)))  # bias [N] or [M, N]
    return bound
