"""Views: view / _unsafe_view / reshape / squeeze / unsqueeze become
``executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor``, whose
output aliases its input (no copy; the runtime points the output at the
input's storage, and the planner keeps the input alive as long as the view).

Where aliasing is not possible the view becomes ``aten::view_copy`` (a copy
into its own planned buffer): when the input is a placeholder (a user input
or a constant, which must not be aliased by a planned tensor) or when the view
itself is a graph output (outputs need their own planned buffer)."""
from __future__ import annotations

import torch

from aot import ir
from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.source import fused_nodes, set_fused

aten = torch.ops.aten

VIEW_OPS = {
    aten.view.default, aten._unsafe_view.default, aten.reshape.default,
    aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default,
    aten.view_copy.default, aten.flatten.using_ints,
}


def et_view(self: torch.Tensor, size: list) -> torch.Tensor:
    """Graph target standing for executorch_prim::et_view.default: the output
    is ``self`` viewed as ``size`` (shares storage)."""
    return self.view(size)


#: the operator name the lowering emits for :func:`et_view`
ET_VIEW_NAME = ir.ET_VIEW_OP


def lower_views(prog: EdgeProgram) -> tuple:
    """Rewrite every view op. Returns (number of et_view, number of view_copy)."""
    outputs = set(prog.output_nodes())
    n_alias = n_copy = 0
    for n in list(prog.graph.nodes):
        if n.op != "call_function" or n.target not in VIEW_OPS:
            continue
        src = n.args[0]
        size = [int(s) for s in n.meta["val"].shape]
        copy = src.op == "placeholder" or n in outputs
        target = aten.view_copy.default if copy else et_view
        with prog.graph.inserting_before(n):
            new = prog.graph.call_function(target, (src, size))
        new.meta = dict(n.meta)
        set_fused(new, fused_nodes(n))  # the view node it replaces (aot debug's record)
        n.replace_all_uses_with(new)
        prog.graph.erase_node(n)
        n_copy += copy
        n_alias += not copy
    return n_alias, n_copy
