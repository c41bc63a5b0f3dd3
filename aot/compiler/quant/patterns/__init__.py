"""The int8 / int16 lowering patterns: one table, one small driver.

:data:`PATTERNS` lists every lowering of a PT2E group ``dq -> op [-> tail] ->
q`` to Mote's integer ops (:class:`base.Pattern`: the ops it matches, the ops
it emits, its match and emit functions, its fallback reason). :func:`find`
picks the group's core op and tail for a quantize node and tries the patterns
that take the core's op kind, in table order; the first that matches lowers
it. An op no pattern takes runs in fp32 between dequantize and quantize, and
the reason of the pattern that refused it (or "no int8 kernel") is what the
fallback warning and the --int8 report say.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch.fx import Node

from aot.compiler.quant.opsets import FUSABLE_ACTS
from aot.compiler.quant.patterns import arith, conv, movement
from aot.compiler.quant.patterns.base import Pattern, Site, is_dq_of_q, matmul_factor

PATTERNS: tuple = conv.PATTERNS + arith.PATTERNS + movement.PATTERNS

#: op kind -> the patterns that take it, in table order
BY_OP: dict = {}
for _p in PATTERNS:
    for _t in _p.ops:
        BY_OP.setdefault(_t, []).append(_p)
#: the ops a fused relu / relu6 / hardtanh may follow (patterns with tail "act")
ACT_CORES = frozenset(t for p in PATTERNS if p.tail == "act" for t in p.ops)

INT16_REASON = ("int16 activations run conv, depthwise conv and linear (and the views between them) "
                "in integer kernels")


def site_of(q: Node) -> Optional[Site]:
    """The group ending in quantize node `q`: its core op and the tail between
    them (a fused activation after a conv / linear / add / mul, a constant
    factor after a matmul), or None if q does not directly follow one op."""
    f = q.args[0]
    if not isinstance(f, Node) or f.op != "call_function" or len(f.users) != 1:
        return None
    if f.target in FUSABLE_ACTS and isinstance(f.args[0], Node) and len(f.args[0].users) == 1 \
            and f.args[0].op == "call_function":
        if f.args[0].target in ACT_CORES:
            return Site(q, f.args[0], f)
    elif matmul_factor(f) is not None:
        return Site(q, f.args[0], f)
    return Site(q, f)


def _dtype_ok(p: Pattern, site: Site) -> bool:
    """int8 patterns take int8 groups; an int16 group (output or an input int16)
    needs a pattern that takes int16, with output and every input int16."""
    ins = [x for x in site.core.all_input_nodes if is_dq_of_q(x)]
    if site.q.args[5] != torch.int16 and all(x.args[0].args[5] != torch.int16 for x in ins):
        return torch.int8 in p.dtypes
    return torch.int16 in p.dtypes and site.q.args[5] == torch.int16 \
        and all(x.args[0].args[5] == torch.int16 for x in ins)


def find(lw, q: Node) -> Optional[tuple]:
    """(pattern, site) lowering the group that ends in `q`, else None; a core op
    that patterns take but refuse gets the reason in ``lw.refused``."""
    site = site_of(q)
    if site is None:
        return None
    takers = [p for p in BY_OP.get(site.core.target, ()) if site.act is None or p.tail is not None]
    fit = [p for p in takers if _dtype_ok(p, site)]
    if takers and not fit:
        lw.refused[site.core] = INT16_REASON
    for p in fit:
        if p.match(lw, site):
            return p, site
        lw.refused[site.core] = p.reason
    return None


__all__ = ["PATTERNS", "BY_OP", "Pattern", "Site", "find", "site_of", "INT16_REASON"]


def _short(op) -> str:
    """"sigmoid" of aten.sigmoid.default / aten.sigmoid_.default (the in-place form's name too)."""
    name = op.name().split("::", 1)[-1].split(".", 1)[0] if hasattr(op, "name") else str(op)
    return name[:-1] if name.endswith("_") and not name.startswith("_") else name


def lowered_from(kernel: str) -> list:
    """The aten ops (short names, e.g. "sigmoid") the int8 / int16 patterns lower to
    `kernel` ("mote::lut_s8.out" or "mote::lut_s8"), in table order; [] for a kernel no
    pattern emits (an aten kernel runs its own op)."""
    base = kernel.split(".", 1)[0]
    out: list = []
    for p in PATTERNS:
        if base in p.emits:
            for name in sorted(_short(o) for o in p.ops):
                if name not in out:
                    out.append(name)
    return out


def int8_kernels_of(op: str) -> list:
    """The mote:: kernels ("mote::lut_s8.out") an int8 program runs aten op `op` (a short
    name, "sigmoid") as: the emits of the patterns that take it."""
    out: list = []
    for p in PATTERNS:
        if torch.int8 in p.dtypes and any(_short(o) == op for o in p.ops):
            for e in p.emits:
                if e.startswith("mote::") and e + ".out" not in out:
                    out.append(e + ".out")
    return out
