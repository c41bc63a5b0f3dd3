"""4-bit weights: fold torchao's weight dequantization into Mote's int4 kernels.

A model quantized with torchao's ``IntxWeightOnlyConfig(weight_dtype=torch.int4,
granularity=PerGroup(G))`` (what ``--int4-weights`` applies) exports each
Linear / Embedding weight as ``torchao::dequantize_affine(qdata int8 [N, K],
[1, G], scale [N, K/G], zero_point [N, K/G], int8, -8, 7)`` feeding the fp32 op
(aot.compiler.export keeps that op out of the Core ATen decomposition). Here
each such weight with a zero zero point becomes packed int4 (two per byte,
aot.compiler.int4ref) plus its float32 scales, and its consumer a
``mote::linear_w4`` (``addmm`` / ``mm`` of the permuted weight) or a
``mote::embedding_w4`` (``embedding``). A dequantized weight something else
also reads stays as well and is folded to fp32 by const_fold.
"""
from __future__ import annotations

import torch

from aot.compiler import mote_ops
from aot.compiler.int4ref import pack_int4
from aot.compiler.passes.edge_program import EdgeProgram

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


def fuse_int4_weights(prog: EdgeProgram) -> int:
    """Rewrite every int4 weight's linear / embedding (see module doc). Returns
    the number of ops rewritten."""
    done = 0
    for dq in list(prog.graph.nodes):
        w = _int4_weight(prog, dq)
        if w is None:
            continue
        q, scales, g = w
        packed = scale_node = None

        def consts():
            nonlocal packed, scale_node
            if packed is None:
                packed = prog.add_constant(f"{dq.name}_w4", torch.from_numpy(pack_int4(q.numpy())))
                scale_node = prog.add_constant(f"{dq.name}_scales", scales.contiguous())
            return packed, scale_node

        for u in list(dq.users):
            if u.op != "call_function":
                continue
            if u.target == aten.embedding.default and u.args[0] is dq:
                p, s = consts()
                _replace(prog, u, mote_ops.op("embedding_w4"), (p, s, u.args[1], g))
                done += 1
            elif u.target == aten.permute.default and list(u.args[1]) == [1, 0]:
                for mm in list(u.users):
                    if mm.target == aten.addmm.default and mm.args[2] is u and len(mm.args) == 3 \
                            and not mm.kwargs:
                        p, s = consts()
                        _replace(prog, mm, mote_ops.op("linear_w4"), (mm.args[1], p, s, mm.args[0], g))
                        done += 1
                    elif mm.target == aten.mm.default and mm.args[1] is u:
                        p, s = consts()
                        _replace(prog, mm, mote_ops.op("linear_w4"), (mm.args[0], p, s, None, g))
                        done += 1
                if not u.users:
                    prog.graph.erase_node(u)
    prog.prune_constants()
    return done
