"""Mote's Python integer reference for the recurrent cells ``mote::lstm_cell_s8``
and ``mote::gru_cell_s8`` (one time step each; ``docs/quantization.md``,
"Recurrent cells"). It defines the bytes ``kernels/op_mote_lstm_cell_s8.c`` and
``kernels/op_mote_gru_cell_s8.c`` must produce.

The scheme is the one CMSIS-NN and TFLite Micro ship for integer LSTMs:

- input x and hidden state h int8 per tensor (affine; h has one scale and zero
  point for every step), weights int8 symmetric per output row, bias int32 at
  input_scale * weight_scale[row] with the input zero point folded in
  (bias - zero_point * sum(weight row));
- each gate's two products (input and recurrent) requantized to 20 fractional
  bits (:func:`rq_gate`, clamped to int32), added, rounded to the gate pre-activation int16 Q3.12 (scale 2^-12);
- sigmoid / tanh of an int16 value: a 1025-entry int16 table over [-8, 8]
  (steps of 2^-6, output Q0.15: scale 2^-15) with linear interpolation
  (:func:`activation_tables`, :func:`act16`);
- LSTM cell state int16 with a power-of-two scale 2^-cell_frac_bits;
- requantization: the gate products with :func:`rq_gate` (the rounded high word of
  acc * M, then shifted: 32-bit steps on a Cortex-M), the hidden output with
  :func:`rq64` (acc * M * 2^(S - 31) in 64 bits, rounded half up).

Shapes: input int8 [B, I], hidden int8 [B, H], cell int16 [B, H]; LSTM
weight_ih int8 [4H, I], weight_hh int8 [4H, H] (gate rows i, f, g, o, torch's
order); GRU [3H, .] (r, z, n). bias / multiplier / shift int32 [2, G] (row 0:
input product, row 1: recurrent product; G = 4H or 3H); table int16 [2, 1025]
(sigmoid, tanh). Errors: ``ValueError`` for arguments outside the contract
(the C kernels return MOTE_ERR_KERNEL_* for the same cases).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["rq64", "rq_gate", "act16", "activation_tables", "lstm_cell_s8", "gru_cell_s8",
           "GATE_FRAC_BITS", "ACC_FRAC_BITS", "TABLE_SIZE", "TABLE_STEP_BITS",
           "TAPS_MAX", "BIAS_MAX", "CELL_FRAC_RANGE"]

#: fractional bits of a gate pre-activation (int16 Q3.12, scale 2^-12) and of the
#: requantized products before they are added (2^-20)
GATE_FRAC_BITS = 12
ACC_FRAC_BITS = 20
#: activation table: 1025 int16 entries over [-8, 8], steps of 2^-TABLE_STEP_BITS, Q0.15 out
TABLE_STEP_BITS = 6
TABLE_SIZE = 16 * (1 << TABLE_STEP_BITS) + 1
#: input / hidden length and |bias| the kernels accept: |acc| < 2^31 in int32
TAPS_MAX = 1 << 15
BIAS_MAX = 1 << 30
#: power-of-two cell state scales the LSTM takes: 2^-k, k in [0, 15]
CELL_FRAC_RANGE = (0, 15)


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def rq64(acc, multiplier, shift) -> np.ndarray:
    """acc * multiplier * 2^(shift - 31) rounded half up, in 64 bits:
    (acc * M + 2^(30 - S)) >> (31 - S). acc |.| < 2^31, M in [0, 2^31), S in
    [-31, 30] (multiplier / shift broadcast along the last axis); int64 out."""
    m, s = _i64(multiplier), _i64(shift)
    if np.any(m < 0) or np.any(s < -31) or np.any(s > 30):
        raise ValueError("rq64 needs multiplier >= 0 and shift in [-31, 30]")
    e = 31 - s
    return (_i64(acc) * m + (np.int64(1) << (e - 1))) >> e


def rq_gate(acc, multiplier, shift) -> np.ndarray:
    """A gate product acc * multiplier * 2^(shift - 31) in 32-bit steps: the high word
    hi = (acc * M + 2^31) >> 32 (rounded), then hi << (S + 1), or rounded half up
    >> -(S + 1); clamped to int32. acc |.| < 2^31, M in [0, 2^31), S in [-31, 30]."""
    m, s = _i64(multiplier), _i64(shift)
    if np.any(m < 0) or np.any(s < -31) or np.any(s > 30):
        raise ValueError("rq_gate needs multiplier >= 0 and shift in [-31, 30]")
    hi = (_i64(acc) * m + (np.int64(1) << 31)) >> 32
    e = s + 1
    left = hi << np.maximum(e, 0)
    right = (hi + ((np.int64(1) << np.maximum(-e, 1)) >> 1)) >> np.maximum(-e, 0)
    return np.clip(np.where(e >= 0, left, right), -(1 << 31), (1 << 31) - 1)


def activation_tables() -> np.ndarray:
    """int16 [2, TABLE_SIZE]: sigmoid and tanh at x = -8 + k / 2^TABLE_STEP_BITS,
    times 2^15, rounded half away from zero, clamped to int16 (runs ahead of time)."""
    x = -8.0 + np.arange(TABLE_SIZE, dtype=np.float64) / (1 << TABLE_STEP_BITS)
    out = []
    for f in (lambda v: 1.0 / (1.0 + np.exp(-v)), np.tanh):
        y = f(x) * 32768.0
        out.append(np.clip(np.sign(y) * np.floor(np.abs(y) + 0.5), -32768, 32767))
    return np.stack(out).astype(np.int16)


def act16(v, frac_bits: int, table) -> np.ndarray:
    """The table's function of v * 2^-frac_bits (v int64, any shape), Q0.15 int16:
    v clamped to [-8, 8), p = v + 8 * 2^F; with s = F - 6 >= 0 the entry
    i = p >> s and the next, interpolated by the low s bits (rounded half up,
    arithmetic shifts); with F < 6, entry p << (6 - F)."""
    t = _i64(table)
    f = int(frac_bits)
    if t.shape != (TABLE_SIZE,) or not 0 <= f <= 30:
        raise ValueError(f"act16: table of {TABLE_SIZE} entries and frac_bits in [0, 30] expected")
    lo = -(8 << f)
    p = np.clip(_i64(v), lo, -lo - 1) - lo
    s = f - TABLE_STEP_BITS
    if s <= 0:
        return t[p << -s].astype(np.int16)
    i = p >> s
    fr = p & ((1 << s) - 1)
    return (t[i] + (((t[i + 1] - t[i]) * fr + (1 << (s - 1))) >> s)).astype(np.int16)


def _check(x, dtype, name: str, shape: tuple) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != dtype or x.shape != shape:
        raise ValueError(f"{name} must be {np.dtype(dtype).name} {shape}, got {x.dtype} {x.shape}")
    return x


def _gates(input, hidden, weight_ih, weight_hh, bias, multiplier, shift, table, gates: int):
    """Shared checks and the two products of a cell, each at ACC_FRAC_BITS:
    (gx [B, G], gh [B, G], table [2, TABLE_SIZE], H)."""
    x = np.asarray(input)
    h = np.asarray(hidden)
    if x.dtype != np.int8 or h.dtype != np.int8 or x.ndim != 2 or h.ndim != 2 or x.shape[0] != h.shape[0]:
        raise ValueError(f"input / hidden must be int8 [B, I] / [B, H], got {x.shape} {h.shape}")
    b, i = x.shape
    hid = h.shape[1]
    g = gates * hid
    if not (1 <= i <= TAPS_MAX and 1 <= hid <= TAPS_MAX):
        raise ValueError(f"input and hidden sizes must be in [1, {TAPS_MAX}]")
    wih = _check(weight_ih, np.int8, "weight_ih", (g, i))
    whh = _check(weight_hh, np.int8, "weight_hh", (g, hid))
    bs = _check(bias, np.int32, "bias", (2, g))
    ms = _check(multiplier, np.int32, "multiplier", (2, g))
    ss = _check(shift, np.int32, "shift", (2, g))
    tb = _check(table, np.int16, "table", (2, TABLE_SIZE))
    if np.any(np.abs(_i64(bs)) > BIAS_MAX):
        raise ValueError("bias beyond +-2^30")
    gx = rq_gate(_i64(x) @ _i64(wih).T + bs[0], ms[0], ss[0])
    gh = rq_gate(_i64(h) @ _i64(whh).T + bs[1], ms[1], ss[1])
    return gx, gh, tb, hid


def _q12(v) -> np.ndarray:
    """A sum at ACC_FRAC_BITS rounded (half up) to Q3.12 and clamped to int16."""
    e = ACC_FRAC_BITS - GATE_FRAC_BITS
    return np.clip((_i64(v) + (1 << (e - 1))) >> e, -32768, 32767)


def lstm_cell_s8(input, hidden, cell, weight_ih, weight_hh, bias, multiplier, shift, table,
                 cell_frac_bits: int, hidden_zero_point: int, hidden_multiplier: int,
                 hidden_shift: int) -> tuple:
    """One LSTM step (torch's nn.LSTM equations). Returns (hidden int8 [B, H], cell int16 [B, H]):
    gates q = clamp16(round((gx + gh) / 2^8)) (Q3.12), i, f, o = sigmoid, g = tanh (Q0.15);
    c' = clamp16((f * c * 2^15 + i * g * 2^k + 2^29) >> 30), k = cell_frac_bits;
    h' = clamp8(rq64(o * tanh(c'), hidden_multiplier, hidden_shift) + hidden_zero_point),
    hidden_multiplier / shift standing for 2^-30 / hidden_scale."""
    gx, gh, tb, hid = _gates(input, hidden, weight_ih, weight_hh, bias, multiplier, shift, table, 4)
    c = _check(cell, np.int16, "cell", (gx.shape[0], hid))
    k = int(cell_frac_bits)
    if not CELL_FRAC_RANGE[0] <= k <= CELL_FRAC_RANGE[1] or not -128 <= int(hidden_zero_point) <= 127:
        raise ValueError(f"cell_frac_bits {k} not in {list(CELL_FRAC_RANGE)} or hidden zero point not int8")
    q = _q12(gx + gh)
    ig, fg, gg, og = (q[:, j * hid:(j + 1) * hid] for j in range(4))
    i = _i64(act16(ig, GATE_FRAC_BITS, tb[0]))
    f = _i64(act16(fg, GATE_FRAC_BITS, tb[0]))
    g = _i64(act16(gg, GATE_FRAC_BITS, tb[1]))
    o = _i64(act16(og, GATE_FRAC_BITS, tb[0]))
    c2 = np.clip((f * _i64(c) * (1 << 15) + i * g * (1 << k) + (1 << 29)) >> 30, -32768, 32767)
    tc = _i64(act16(c2, k, tb[1]))
    h2 = rq64(o * tc, int(hidden_multiplier), int(hidden_shift)) + int(hidden_zero_point)
    return np.clip(h2, -128, 127).astype(np.int8), c2.astype(np.int16)


def gru_cell_s8(input, hidden, weight_ih, weight_hh, bias, multiplier, shift, table,
                hidden_zero_point: int, hidden_multiplier: int, hidden_shift: int) -> np.ndarray:
    """One GRU step (torch's nn.GRU equations). Returns hidden int8 [B, H]:
    r, z = sigmoid(clamp16(round((gx + gh) / 2^8))); n = tanh(clamp16(round((gx_n +
    (r * gh_n + 2^14) >> 15) / 2^8))) (Q0.15); with t1 = rq64((2^15 - z) * n,
    hidden_multiplier, hidden_shift) (2^-15 / hidden_scale) and t2 = z * (h - zp):
    h' = clamp8(((t1 + t2 + 2^14) >> 15) + zp)."""
    gx, gh, tb, hid = _gates(input, hidden, weight_ih, weight_hh, bias, multiplier, shift, table, 3)
    zp = int(hidden_zero_point)
    if not -128 <= zp <= 127:
        raise ValueError("hidden zero point not int8")
    sl = [slice(j * hid, (j + 1) * hid) for j in range(3)]
    r = _i64(act16(_q12(gx[:, sl[0]] + gh[:, sl[0]]), GATE_FRAC_BITS, tb[0]))
    z = _i64(act16(_q12(gx[:, sl[1]] + gh[:, sl[1]]), GATE_FRAC_BITS, tb[0]))
    n = _i64(act16(_q12(gx[:, sl[2]] + ((r * gh[:, sl[2]] + (1 << 14)) >> 15)), GATE_FRAC_BITS, tb[1]))
    t1 = rq64(((1 << 15) - z) * n, int(hidden_multiplier), int(hidden_shift))
    t2 = z * (_i64(hidden) - zp)
    return np.clip(((t1 + t2 + (1 << 14)) >> 15) + zp, -128, 127).astype(np.int8)


def cell_frac_bits(scale: float) -> int:
    """k of a power-of-two cell scale 2^-k (ValueError if it is none or out of range)."""
    k = -math.log2(float(scale))
    if abs(k - round(k)) > 1e-9 or not CELL_FRAC_RANGE[0] <= round(k) <= CELL_FRAC_RANGE[1]:
        raise ValueError(f"cell scale {scale} is not 2^-k with k in {list(CELL_FRAC_RANGE)}")
    return int(round(k))
