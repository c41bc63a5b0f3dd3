"""A batched matmul whose right operand is one matrix broadcast over the batch is one mm.

torch's matmul of a [B, n, k] activation by a [k, m] weight, as torch.export decomposes it
inside recurrent cells (nn.GRU, nn.LSTM: the input projection over every time step),
becomes ``bmm(a, view(expand(w, [B, k, m])))``: the weight copied B times. Constant
folding would then store those B copies in the program (a 32-step GRU with 144 x 64
weights: 1,179,648 B for 36,864 B of weight), and without folding the copy would be
made in the arena at every inference. Since every batch multiplies by the same matrix,
the rows of all batches can go through one mm instead:

    bmm(a [B, n, k], broadcast w) = view(mm(view(a, [B*n, k]), w2 [k, m]), [B, n, m])

where w2 is w without its leading size-1 dimension. Nothing is copied and the weight
stays the size it was.
"""
from __future__ import annotations

import torch

from aot.compiler.passes.edge_program import EdgeProgram

aten = torch.ops.aten
_VIEWS = (aten.view.default, aten._unsafe_view.default, aten.reshape.default)


def _shape(n) -> tuple:
    return tuple(n.meta["val"].shape)


def _broadcast_matrix(b: torch.fx.Node):
    """The [k, m] (or [1, k, m]) node that `b`, a bmm operand [B, k, m], broadcasts over
    the batch (through an expand and optional same-shape views), else None."""
    while b.op == "call_function" and b.target in _VIEWS and _shape(b.args[0]) == _shape(b):
        b = b.args[0]
    if b.op != "call_function" or b.target != aten.expand.default:
        return None
    src = b.args[0]
    k, m = _shape(b)[1:]
    return src if _shape(src) in ((k, m), (1, k, m)) else None


def _call(graph, target, args, like: torch.fx.Node, val: torch.Tensor) -> torch.fx.Node:
    n = graph.call_function(target, args)
    n.meta.update({key: like.meta[key] for key in ("stack_trace", "nn_module_stack") if key in like.meta})
    n.meta["val"] = val
    return n


def bmm_to_mm(prog: EdgeProgram) -> int:
    """Rewrite every bmm whose right operand broadcasts one matrix (see the module
    docstring). Returns how many were rewritten."""
    rewritten = 0
    graph = prog.graph
    for n in list(graph.nodes):
        if n.op != "call_function" or n.target != aten.bmm.default:
            continue
        a, b = n.args[:2]
        w = _broadcast_matrix(b)
        if w is None:
            continue
        (batch, rows, k), m = _shape(a), _shape(n)[2]
        av, wv, ov = a.meta["val"], w.meta["val"], n.meta["val"]
        with graph.inserting_before(n):
            if len(_shape(w)) == 3:
                w = _call(graph, aten.view.default, (w, [k, m]), n, wv.reshape(k, m))
            flat = _call(graph, aten.view.default, (a, [batch * rows, k]), n, av.reshape(batch * rows, k))
            mm = _call(graph, aten.mm.default, (flat, w), n, ov.reshape(batch * rows, m))
            out = _call(graph, aten.view.default, (mm, [batch, rows, m]), n, ov)
        n.replace_all_uses_with(out)
        graph.erase_node(n)
        rewritten += 1
    if rewritten:
        graph.eliminate_dead_code()
    return rewritten
