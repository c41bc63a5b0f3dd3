"""What a lowering pattern declares (:class:`Pattern`), the group of PT2E nodes
it is tried on (:class:`Site`), and the checks its ``match`` functions share.

A pattern's ``match(lw, site)`` only reads the PT2E graph (through the
lowering ``lw``: shapes, constants); its ``emit(lw, site)`` adds nodes to the
new graph and returns the :class:`aot.compiler.quant.values.QVal` the site's
quantize node stands for, creating ``mote::`` ops only through
``lw.op(name)``, which refuses an op the pattern does not declare in ``emits``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
from torch.fx import Node

from aot.compiler.quant.opsets import MATMUL_OPS, MATMUL_SCALE_OPS

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed
Q = qd.quantize_per_tensor.default
DQ = qd.dequantize_per_tensor.default
DQ_CH = qd.dequantize_per_channel.default

INT8 = frozenset({torch.int8})
INT16 = frozenset({torch.int16})
INT8_16 = INT8 | INT16


@dataclass(frozen=True)
class Site:
    """One candidate group of the PT2E graph: ``q`` the quantize node that ends
    it, ``core`` the op, ``act`` the op between them the pattern absorbs (a
    fused relu / relu6 / hardtanh, or a constant factor after a matmul) or None."""
    q: Node
    core: Node
    act: Optional[Node] = None

    @property
    def out_qparams(self) -> tuple:
        """(scale, zero point) of the group's quantized output."""
        return float(self.q.args[1]), int(self.q.args[2])


@dataclass(frozen=True)
class Pattern:
    """One lowering: the core ``ops`` it matches (dq -> op [-> tail] -> q),
    the ops it ``emits`` ("mote::name" from aot.compiler.mote_ops, or the aten
    op it runs on the integer tensor), ``match(lw, site) -> bool``,
    ``emit(lw, site) -> QVal``, and ``reason``: why such an op runs in fp32
    when ``match`` refuses it (the text of the fallback warning and the
    --int8 report). ``tail``: "act" takes a fused relu / relu6 / hardtanh after
    the op, "scale" a positive constant factor (mul / div) after a matmul;
    ``dtypes``: the activation dtypes it takes (int8, int16). The int4-weight
    fold (aot.compiler.quant.int4) declares its patterns with this class too,
    with its own match / emit arguments."""
    name: str
    ops: frozenset
    emits: tuple
    match: Callable
    emit: Callable
    reason: str
    tail: Optional[str] = None
    dtypes: frozenset = INT8

    def mote_ops(self) -> set:
        """Names of the mote:: ops this pattern emits (without the namespace)."""
        return {e.split("::", 1)[1] for e in self.emits if e.startswith("mote::")}


def is_dq_of_q(n) -> bool:
    """True if `n` dequantizes an activation (the output of a quantize node)."""
    return (isinstance(n, Node) and n.op == "call_function" and n.target == DQ
            and isinstance(n.args[0], Node) and n.args[0].target == Q)


def int_inputs(xs) -> bool:
    """True if every node of `xs` dequantizes an activation."""
    return all(is_dq_of_q(x) for x in xs)


def same_qparams(qa: Node, qb: Node) -> bool:
    """True if quantize nodes `qa` and `qb` use one (scale, zero point, range, dtype)."""
    return tuple(qa.args[1:6]) == tuple(qb.args[1:6])


def shares_input_qparams(site: Site) -> bool:
    """The core's first argument is an int8 activation with the output's qparams."""
    a = site.core.args
    return int_inputs(a[:1]) and same_qparams(a[0].args[0], site.q)


def matmul_factor(f: Node) -> Optional[float]:
    """The positive constant c of ``matmul(..) * c`` / ``matmul(..) / c`` (as a
    factor), when `f` is that mul/div and the matmul has no other user."""
    if f.target not in MATMUL_SCALE_OPS or len(f.args) != 2 or not isinstance(f.args[0], Node):
        return None
    c = f.args[1]
    inner = f.args[0]
    if inner.op != "call_function" or inner.target not in MATMUL_OPS or len(inner.users) != 1 \
            or not isinstance(c, (int, float)) or isinstance(c, bool) or not c > 0 \
            or not math.isfinite(float(c)):
        return None
    return float(c) if f.target == aten.mul.Tensor else 1.0 / float(c)
