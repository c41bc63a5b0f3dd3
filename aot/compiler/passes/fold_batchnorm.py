"""Fold inference BatchNorm into the convolution before it.

conv(x, W, b) -> bn(mean, var, gamma, beta, eps) equals conv(x, W', b') with
  s = gamma / sqrt(var + eps),  W' = W * s (per output channel),  b' = (b - mean) * s + beta.
A BatchNorm that does not follow a (non-transposed) conv with constant weights
stays as ``_native_batch_norm_legit_no_training`` (the runtime has a kernel).
"""
from __future__ import annotations

import operator

import torch

from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.source import mark_fused

aten = torch.ops.aten
BN = aten._native_batch_norm_legit_no_training.default


def _foldable(prog: EdgeProgram, bn) -> bool:
    conv = bn.args[0]
    if not (isinstance(conv, torch.fx.Node) and conv.target == aten.convolution.default):
        return False
    if len(conv.users) != 1 or conv.args[6]:  # conv used elsewhere, or transposed
        return False
    w, b = conv.args[1], conv.args[2]
    if not prog.is_const(w) or not (b is None or prog.is_const(b)):
        return False
    if not all(a is None or prog.is_const(a) for a in bn.args[1:5]):
        return False
    # only the normalized output may be used (the saved stats are empty in eval)
    return all(u.target == operator.getitem and u.args[1] == 0 for u in bn.users)


def fold_batchnorm(prog: EdgeProgram) -> int:
    """Fold every conv -> batch norm pair. Returns the number folded."""
    folded = 0
    for bn in list(prog.graph.nodes):
        if bn.op != "call_function" or bn.target != BN or not _foldable(prog, bn):
            continue
        conv = bn.args[0]
        c = prog.constants
        w = c[conv.args[1].name].double()
        cout = w.shape[0]
        b = c[conv.args[2].name].double() if conv.args[2] is not None else torch.zeros(cout, dtype=torch.float64)
        gamma = c[bn.args[1].name].double() if bn.args[1] is not None else torch.ones(cout, dtype=torch.float64)
        beta = c[bn.args[2].name].double() if bn.args[2] is not None else torch.zeros(cout, dtype=torch.float64)
        mean, var = c[bn.args[3].name].double(), c[bn.args[4].name].double()
        eps = float(bn.args[6])
        scale = gamma / torch.sqrt(var + eps)
        dtype = c[conv.args[1].name].dtype
        new_w = (w * scale.reshape([-1] + [1] * (w.dim() - 1))).to(dtype)
        new_b = ((b - mean) * scale + beta).to(dtype)
        wn = prog.add_constant(f"{conv.name}_w_bn", new_w, made_from=[conv.args[1]])
        bnode = prog.add_constant(f"{conv.name}_b_bn", new_b,
                                  made_from=[a for a in (conv.args[2], bn.args[2]) if a is not None][:1])
        args = list(conv.args)
        args[1], args[2] = wn, bnode
        conv.args = tuple(args)
        mark_fused(conv, [bn.name] + [u.name for u in bn.users])  # for aot debug's record
        for u in list(bn.users):
            u.replace_all_uses_with(conv)
            prog.graph.erase_node(u)
        prog.graph.erase_node(bn)
        folded += 1
    prog.prune_constants()
    return folded
