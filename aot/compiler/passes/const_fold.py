"""Constant folding: evaluate ahead of time every node that depends only on
parameters, buffers and constants (e.g. ``permute(weight)`` of a Linear), so no
weight is copied, permuted or transposed at run time."""
from __future__ import annotations

import torch

from aot.compiler.passes.edge_program import EdgeProgram

#: ops never folded (non-deterministic: their value is not a constant)
_KEEP = {torch.ops.aten.rand.default, torch.ops.aten.randn.default,
         torch.ops.aten.bernoulli.default}


def _real(prog: EdgeProgram, env: dict, a):
    if isinstance(a, torch.fx.Node):
        return env[a] if a in env else prog.constants[a.name]
    if isinstance(a, (list, tuple)):
        return type(a)(_real(prog, env, x) for x in a)
    return a


def fold_constants(prog: EdgeProgram) -> int:
    """Replace constant subgraphs by new constant placeholders. Returns the
    number of nodes folded."""
    env = {}  # folded node -> real value (tensors and tuples of tensors)
    folded = 0
    outputs = set(prog.output_nodes())
    for n in list(prog.graph.nodes):
        if n.op != "call_function" or n.target in _KEEP:
            continue
        if not all(prog.is_const(i) or i in env for i in n.all_input_nodes):
            continue
        if n in outputs:
            continue  # a graph output must be computed into the arena
        with torch.no_grad():
            val = n.target(*_real(prog, env, n.args), **_real(prog, env, n.kwargs))
        env[n] = val
        folded += 1
    # materialize only the folded values a non-folded node still reads; the
    # rest (e.g. the original weight before its permute) is pruned
    for n, val in env.items():
        if not isinstance(val, torch.Tensor):
            continue
        users = [u for u in n.users if u not in env]
        if not users:
            continue
        c = prog.add_constant(n.name, val)
        for u in users:
            u.replace_input_with(n, c)
    prog.prune_constants()
    return folded

