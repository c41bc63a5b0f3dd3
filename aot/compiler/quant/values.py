"""An integer value of the lowered graph (:class:`QVal`) and the small layout
and rounding helpers the lowering and its patterns share.

4-D int8 activations are physically NHWC: a value records its logical shape
and the permutation ``perm`` with physical = logical.permute(perm).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.fx import Node

from aot.compiler.source import set_quant

NHWC = (0, 2, 3, 1)
#: channels-last layout of a 3-D [N, C, L] value (physical [N, L, C])
NLC = (0, 2, 1)
#: (quant_min, quant_max) of each activation dtype the lowering takes; int16 is
#: symmetric (zero point 0) and feeds the mote::*_s16 ops
QRANGE = {torch.int8: (-128, 127), torch.int16: (-32768, 32767)}


@dataclass
class QVal:
    """An int8 (or int16) value of the new graph: ``node`` holds the physical
    tensor (logical tensor permuted by ``perm``)."""
    node: Node
    shape: tuple          # logical shape
    perm: tuple           # physical = logical.permute(perm)
    scale: float
    zp: int
    qmin: int = -128
    qmax: int = 127
    qname: str = ""       # the PT2E quantize node this value stands for
    dtype: torch.dtype = torch.int8   # torch.int16 with --int16-activations


def inv(p) -> tuple:
    """The inverse permutation of ``p``."""
    out = [0] * len(p)
    for i, v in enumerate(p):
        out[v] = i
    return tuple(out)


def tag(node: Node, qname: str, perm) -> None:
    """Record on an int8 node which PT2E quantize node it holds and in which
    layout (``meta["mote_q"] = (name, perm)``: physical = logical.permute(perm),
    possibly reshaped). Tests use it to compare every op with PT2E layer by
    layer; the copy in meta["custom"] survives the re-export for aot debug."""
    if qname and "mote_q" not in node.meta:
        node.meta["mote_q"] = (qname, tuple(int(d) for d in perm))
        set_quant(node, qname, perm)


def same_bytes(shape, p1, p2) -> bool:
    """True if the two layouts of a tensor of logical `shape` hold the same
    bytes (the dims larger than 1 keep their relative order)."""
    a = [d for d in p1 if shape[d] != 1]
    b = [d for d in p2 if shape[d] != 1]
    return a == b


def fround(v: float, scale: float) -> int:
    """round-half-even(v / scale) as torch's quantize_per_tensor computes it (fp32)."""
    inv_scale = np.float32(1.0) / np.float32(scale)
    return int(np.round(np.float32(v) * inv_scale))


def pair(v, default) -> list:
    """An int or a 1- or 2-list (None: `default`) as two ints (kernel size, stride, ...)."""
    if v is None:
        v = default
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return [int(x) for x in (v * 2 if len(v) == 1 else v)]


def arg(node: Node, i: int, name: str, default=None):
    """Argument `i` (keyword `name`) of call `node`, else `default`."""
    return node.args[i] if len(node.args) > i else node.kwargs.get(name, default)
