"""4-bit weights: fold torchao's weight dequantization into Mote's int4 kernels.

A model quantized with torchao's ``IntxWeightOnlyConfig(weight_dtype=torch.int4,
granularity=PerGroup(G))`` (what ``--int4-weights`` applies) exports each
Linear / Embedding weight as ``torchao::dequantize_affine(qdata int8 [N, K],
[1, G], scale [N, K/G], zero_point [N, K/G], int8, -8, 7)`` feeding the fp32 op
(aot.compiler.export keeps that op out of the Core ATen decomposition). Here
each such weight with a zero zero point becomes packed int4 (two per byte,
aot.compiler.quant.int4ref) plus its float32 scales, and its consumer a
``mote::linear_w4`` (``addmm`` / ``mm`` of the permuted weight) or a
``mote::embedding_w4`` (``embedding``): :data:`PATTERNS`. A dequantized weight
something else also reads stays as well and is folded to fp32 by const_fold.
"""
from __future__ import annotations

import torch

from aot.compiler import mote_ops
from aot.compiler.quant.int4ref import pack_int4
from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.quant.patterns.base import Pattern

aten = torch.ops.aten
DEQUANTIZE_AFFINE = "torchao.dequantize_affine.default"


def _int4_weight(prog: EdgeProgram, dq: torch.fx.Node):
    """(qdata int8 [N, K], scales float32 [N, K/G], G) of a torchao int4
    per-group symmetric dequantize on constants, else None."""
    if dq.op != "call_function" or str(dq.target) != DEQUANTIZE_AFFINE or len(dq.args) < 7:
        return None
    qdata, block, scale, zp, dtype, qmin, qmax = dq.args[:7]
    if not all(prog.is_const(a) for a in (qdata, scale, zp)) or (qmin, qmax) != (-8, 7):
        return None
    q, s, z = (prog.constants[a.name] for a in (qdata, scale, zp))
    if q.dim() != 2 or list(block) != [1, block[1]] or q.shape[1] % block[1] or block[1] % 2:
        return None
    g = int(block[1])
    if tuple(s.shape) != (q.shape[0], q.shape[1] // g) or bool(z.to(torch.int64).any()):
        return None
    if dq.kwargs.get("output_dtype", torch.float32) != torch.float32:
        return None
    return q, s.to(torch.float32), g


def _replace(prog: EdgeProgram, node: torch.fx.Node, target, args: tuple) -> None:
    with prog.graph.inserting_before(node):
        new = prog.graph.call_function(target, args)
    new.meta = dict(node.meta)
    node.replace_all_uses_with(new)
    prog.graph.erase_node(node)


# Each pattern: match(consumer, dq, via) with `via` the transpose (permute [1, 0])
# of the dequantized weight `dq` the consumer reads, or None when it reads dq
# itself; emit(consumer, packed, scales, group) -> the mote:: op's arguments.
def _match_embedding(c: torch.fx.Node, dq: torch.fx.Node, via) -> bool:
    return via is None and c.args[0] is dq


def _emit_embedding(c: torch.fx.Node, packed, scales, g: int) -> tuple:
    return packed, scales, c.args[1], g


def _match_linear(c: torch.fx.Node, dq: torch.fx.Node, via) -> bool:
    if via is None:
        return False
    if c.target == aten.addmm.default:
        return c.args[2] is via and len(c.args) == 3 and not c.kwargs
    return c.args[1] is via


def _emit_linear(c: torch.fx.Node, packed, scales, g: int) -> tuple:
    if c.target == aten.addmm.default:
        return c.args[1], packed, scales, c.args[0], g
    return c.args[0], packed, scales, None, g


_KEPT = "the weight is dequantized to fp32 at compile time (const_fold) for "
#: the int4-weight lowerings (Pattern: ops matched, mote:: op emitted, reason otherwise)
PATTERNS = (
    Pattern("embedding_w4", frozenset({aten.embedding.default}), ("mote::embedding_w4",),
            _match_embedding, _emit_embedding, _KEPT + "an op other than embedding(weight, indices)"),
    Pattern("linear_w4", frozenset({aten.addmm.default, aten.mm.default}), ("mote::linear_w4",),
            _match_linear, _emit_linear, _KEPT + "an op other than addmm / mm of its transpose"),
)


def _consumers(u: torch.fx.Node) -> tuple:
    """(via, consumers) of user `u` of a dequantized weight: (None, [u]), or
    (u, u's users) when u transposes it (permute [1, 0])."""
    if u.target == aten.permute.default and list(u.args[1]) == [1, 0]:
        return u, list(u.users)
    return None, [u]


def fuse_int4_weights(prog: EdgeProgram) -> int:
    """Rewrite every int4 weight's linear / embedding (see module doc; the
    patterns in :data:`PATTERNS`). Returns the number of ops rewritten."""
    done = 0
    for dq in list(prog.graph.nodes):
        w = _int4_weight(prog, dq)
        if w is None:
            continue
        q, scales, g = w
        packed = scale_node = None
        for u in list(dq.users):
            if u.op != "call_function":
                continue
            via, consumers = _consumers(u)
            for c in consumers:
                p = next((p for p in PATTERNS if c.target in p.ops and p.match(c, dq, via)), None)
                if p is None:
                    continue
                if packed is None:
                    src = [a for a in dq.all_input_nodes if prog.is_const(a)]
                    packed = prog.add_constant(f"{dq.name}_w4", torch.from_numpy(pack_int4(q.numpy())), src)
                    scale_node = prog.add_constant(f"{dq.name}_scales", scales.contiguous(), src)
                _replace(prog, c, mote_ops.op(p.mote_ops().pop()), p.emit(c, packed, scale_node, g))
                done += 1
            if via is not None and not u.users:
                prog.graph.erase_node(u)
    prog.prune_constants()
    return done
