"""Reference (numpy) of Mote's 4-bit weight operators: packing, and the
weight-only linear and embedding the ``mote::linear_w4`` / ``mote::embedding_w4``
kernels compute (kernels/op_mote_linear_w4.c, op_mote_embedding_w4.c).

Weights: symmetric int4 per group of ``group_size`` consecutive elements of a
row (torchao's ``IntxWeightOnlyConfig(weight_dtype=torch.int4,
granularity=PerGroup(G))``: q in [-8, 7], zero point 0, w = q * scale). Packed
two per byte along the row, element 2i in the low nibble of byte i and 2i+1 in
the high nibble (two's complement nibbles, as CMSIS-NN's s4 kernels store them);
row lengths are multiples of the group size, so even. Scales: float32
[rows, row_length / group_size].

Arithmetic (fp32, the order the C kernels use): for each output, per group,
``acc_g = sum_k x[k] * float(q[k])`` then ``acc += acc_g * scale[g]``, groups
in order, then ``+ bias``.
"""
from __future__ import annotations

import numpy as np


def pack_int4(q: np.ndarray) -> np.ndarray:
    """int [rows, K] in [-8, 7] -> uint8 [rows, ceil(K / 2)] (see module doc)."""
    q = np.asarray(q, dtype=np.int64)
    if q.ndim != 2 or q.size and (q.min() < -8 or q.max() > 7):
        raise ValueError("pack_int4: a 2-D array of values in [-8, 7]")
    rows, k = q.shape
    nib = (q & 0xF).astype(np.uint8)
    if k % 2:
        nib = np.concatenate([nib, np.zeros((rows, 1), np.uint8)], axis=1)
    return (nib[:, 0::2] | (nib[:, 1::2] << 4)).astype(np.uint8)


def unpack_int4(packed: np.ndarray, k: int) -> np.ndarray:
    """uint8 [rows, ceil(k / 2)] -> int8 [rows, k] (inverse of :func:`pack_int4`)."""
    p = np.asarray(packed, dtype=np.uint8)
    nib = np.stack([p & 0xF, p >> 4], axis=-1).reshape(p.shape[0], -1)[:, :k].astype(np.int16)
    return np.where(nib > 7, nib - 16, nib).astype(np.int8)


def linear_w4(x, weight, scales, bias, group_size: int) -> np.ndarray:
    """x float32 [M, K]; weight packed [N, ceil(K/2)]; scales float32 [N, K/G];
    bias float32 [N] or None -> float32 [M, N]."""
    x = np.asarray(x, np.float32)
    m, k = x.shape
    q = unpack_int4(weight, k).astype(np.float32)
    s = np.asarray(scales, np.float32)
    n, groups = s.shape
    out = np.zeros((m, n), np.float32)
    for g in range(groups):
        lo, hi = g * group_size, min(k, (g + 1) * group_size)
        acc = np.zeros((m, n), np.float32)
        for kk in range(lo, hi):  # k in order, as the kernel
            acc += x[:, kk:kk + 1] * q[None, :, kk][0]
        out += acc * s[:, g]
    if bias is not None:
        out += np.asarray(bias, np.float32)
    return out


def embedding_w4(weight, scales, indices, group_size: int) -> np.ndarray:
    """weight packed [V, D/2] (D a multiple of group_size); scales float32
    [V, D/G]; indices int (any shape) -> float32 [*indices.shape, D]: row
    q * scale of each index."""
    dim = 2 * np.asarray(weight).shape[1]
    q = unpack_int4(weight, dim).astype(np.float32)
    s = np.repeat(np.asarray(scales, np.float32), group_size, axis=1)[:, :dim]
    table = q * s
    return table[np.asarray(indices, np.int64)]
