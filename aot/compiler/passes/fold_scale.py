"""A power-of-two scale folded into the constant that multiplies next:
``(x * s) * C`` -> ``x * (s * C)`` for a number s = +-2^k and a float32 constant C
(an audio front end's ``pcm.float() * (1 / 32768) * window``): one elementwise
call fewer.

Exact: s * C is C with its exponents moved (checked: no element leaves the normal
range), and x * (s * C) rounds the same real product as (x * s) * C, whose first
factor x * s is exact too, except where x * s itself overflows or is subnormal
(|x * s| above 3.4e38 or below 1.2e-38); there the folded form is the more exact one.
"""
from __future__ import annotations

import math

import torch

from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.source import fused_nodes, set_fused

aten = torch.ops.aten
_MUL = (aten.mul.Tensor, aten.mul.Scalar)


def _power_of_two(v) -> bool:
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v == 0 or not math.isfinite(v):
        return False
    m, _ = math.frexp(abs(v))
    return m == 0.5


def _scaled(c: torch.Tensor, s: float):
    """float32 ``s * c`` if it is exact for every element (normal values stay normal), else None."""
    if c.dtype != torch.float32:
        return None
    out = c * s
    back = out / s
    normal = (out == 0) | (out.abs() >= torch.finfo(torch.float32).tiny)
    finite = torch.isfinite(out) | ~torch.isfinite(c)
    return out if bool(torch.equal(back, c) and normal.all() and finite.all()) else None


def fold_scales(prog: EdgeProgram) -> int:
    """Rewrite every ``mul(mul(x, s), C)`` (either operand order of the outer mul; the
    inner mul's only reader the outer one) into ``mul(x, s * C)``. Returns how many."""
    done = 0
    for n in list(prog.graph.nodes):
        if n.op != "call_function" or n.target not in _MUL or n.kwargs or len(n.args) != 2:
            continue
        for inner, const in ((n.args[0], n.args[1]), (n.args[1], n.args[0])):
            if not (isinstance(inner, torch.fx.Node) and isinstance(const, torch.fx.Node) and prog.is_const(const)):
                continue
            if inner.op != "call_function" or inner.target not in _MUL or inner.kwargs or len(inner.users) != 1:
                continue
            x, s = inner.args
            if not isinstance(x, torch.fx.Node) or not _power_of_two(s):
                continue
            val = x.meta.get("val")
            if not isinstance(val, torch.Tensor) or val.dtype != torch.float32:
                continue
            folded = _scaled(prog.constants[const.name], float(s))
            if folded is None:
                continue
            c = prog.add_constant(f"{const.name}_scaled", folded, [const])
            n.args = (x, c)
            set_fused(n, fused_nodes(inner) + fused_nodes(n))
            prog.graph.erase_node(inner)
            done += 1
            break
    return done
