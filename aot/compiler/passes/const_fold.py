"""Constant folding: evaluate ahead of time every node that depends only on
parameters, buffers and constants (e.g. ``permute(weight)`` of a Linear), so no
weight is copied, permuted or transposed at run time.

A folded value is stored in the program, so folding never makes a value larger than
the constants it derives from (an ``expand`` or ``repeat`` of a weight, a broadcast
``add``): such a node, and what depends on it, runs at run time instead. A value made
from no constant at all (``full``, ``arange``) folds up to FREE_FOLD_BYTES."""
from __future__ import annotations

import torch

from aot.compiler.passes.edge_program import EdgeProgram

#: ops never folded (non-deterministic: their value is not a constant)
_KEEP = {torch.ops.aten.rand.default, torch.ops.aten.randn.default,
         torch.ops.aten.bernoulli.default}


#: the most bytes a folded value derived from no constant may take (a zeros/arange table)
FREE_FOLD_BYTES = 1024


def _nbytes(v) -> int:
    if isinstance(v, torch.Tensor):
        return v.numel() * v.element_size()
    if isinstance(v, (list, tuple)):
        return sum(_nbytes(x) for x in v)
    return 0


def _roots(prog: EdgeProgram, roots: dict, n: torch.fx.Node) -> frozenset:
    """The constant placeholders (names) a foldable node's value derives from."""
    out = set()
    for i in n.all_input_nodes:
        out |= roots[i] if i in roots else {i.name} if prog.is_const(i) else set()
    return frozenset(out)


def _contiguous(v):
    """`v` (a tensor or a tuple/list of them) laid out contiguously: every tensor of the
    edge graph is (a permute is a permute_copy, remove_noops dropped the clones that
    made torch's views of it valid), so a folded value is too."""
    if isinstance(v, torch.Tensor):
        return v.contiguous()
    if isinstance(v, (list, tuple)):
        return type(v)([_contiguous(x) for x in v])
    return v


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
    roots = {}  # folded node -> the constants its value derives from
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
            val = _contiguous(n.target(*_real(prog, env, n.args), **_real(prog, env, n.kwargs)))
        src = _roots(prog, roots, n)
        if _nbytes(val) > max(sum(_nbytes(prog.constants[r]) for r in src), FREE_FOLD_BYTES if not src else 0):
            continue  # larger than what it is made of: computed at run time (module docstring)
        env[n], roots[n] = val, src
        folded += 1
    # materialize only the folded values a non-folded node still reads; the
    # rest (e.g. the original weight before its permute) is pruned
    for n, val in env.items():
        if not isinstance(val, torch.Tensor):
            continue
        users = [u for u in n.users if u not in env]
        if not users:
            continue
        c = prog.add_constant(n.name, val, made_from=roots[n])
        for u in users:
            u.replace_input_with(n, c)
    prog.prune_constants()
    return folded

