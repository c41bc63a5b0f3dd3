"""Remove ops that do nothing at inference: clone, alias, detach, dropout
(eval), lift_fresh_copy, and the _assert_tensor_metadata checks export adds
around `.to(dtype)`. Every tensor in the edge graph is contiguous, so a
clone never changes layout either."""
from __future__ import annotations

import torch

from aot.compiler.passes.edge_program import EdgeProgram

aten = torch.ops.aten

NOOPS = {
    aten.clone.default, aten.alias.default, aten.detach.default,
    aten.lift_fresh_copy.default, aten.dropout.default,
}

#: checks torch.export leaves in the graph (no result, no out variant)
ASSERTS = {aten._assert_tensor_metadata.default}


def remove_noops(prog: EdgeProgram) -> int:
    """Replace every no-op with its input. Returns how many were removed.
    A clone that copies a placeholder straight to the output is kept (the
    output needs its own buffer)."""
    outputs = set(prog.output_nodes())
    removed = 0
    for n in list(prog.graph.nodes):
        if n.op == "call_function" and n.target in ASSERTS and not n.users:
            prog.graph.erase_node(n)  # export-time metadata checks (`.to(dtype)`): nothing to run
            removed += 1
            continue
        if n.op != "call_function" or n.target not in NOOPS:
            continue
        src = n.args[0]
        if n in outputs and getattr(src, "op", None) == "placeholder":
            continue
        n.replace_all_uses_with(src)
        prog.graph.erase_node(n)
        removed += 1
    return removed
