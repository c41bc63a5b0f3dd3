"""A matrix product by a constant weight that is mostly zeros, each column's nonzeros
in one contiguous row range, runs on the bands only: ``mm(x, W)`` and
``addmm(bias, x, W)`` (beta = alpha = 1) with W a float32 constant ``[K, N]``
become ``mote::band_mm(x, values, bands, bias)``.

A mel filterbank is such a weight: ``torch.matmul(power [.., 257], mel [257, 40])``
(torch.export's ``mm``, or a ``bmm`` by the broadcast matrix that
:mod:`aot.compiler.passes.broadcast_matmul` turns into an ``mm``) multiplies 10,280
entries of which 493 are not zero. ``nn.Linear`` and ``F.linear`` by such a weight
arrive here as ``addmm`` / ``mm`` of its folded transpose.

Which weights (:func:`aot.compiler.bandref.worth_it`): the band storage (4 bytes per
band value, 8 per column) at most half the dense weight, so the product does at most
half the dense one's multiply-adds and the program stores at most half its bytes. The
storage, the kernel's arithmetic and its error bound against the dense fp32 product
are :mod:`aot.compiler.bandref`'s. Runs after constant folding (a weight made from
constants is a constant by then) and before the views are lowered.

A bias of another shape than ``[N]`` is added after the product (``aten::add``). A
constant on the left (``mm(W, x)``) stays a dense ``mm``.
"""
from __future__ import annotations

import torch

from aot.compiler import bandref
from aot.compiler.passes.edge_program import EdgeProgram
from aot.compiler.source import copy_source_meta, fused_nodes, set_fused

aten = torch.ops.aten


def _operands(n: torch.fx.Node):
    """(x, weight, bias or None) of an ``mm`` / plain ``addmm`` node, else None."""
    if n.op != "call_function":
        return None
    if n.target == aten.mm.default and len(n.args) == 2 and not n.kwargs:
        return n.args[0], n.args[1], None
    if n.target == aten.addmm.default:
        beta = n.kwargs.get("beta", n.args[3] if len(n.args) > 3 else 1)
        alpha = n.kwargs.get("alpha", n.args[4] if len(n.args) > 4 else 1)
        if beta == 1 and alpha == 1:
            return n.args[1], n.args[2], n.args[0]
    return None


def _f32(node) -> bool:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32


def lower_band_mm(prog: EdgeProgram) -> int:
    """Rewrite every ``mm`` / ``addmm`` by a banded constant weight into ``mote::band_mm``
    (see the module docstring). Returns how many were rewritten."""
    from aot.compiler.mote_ops import op as mote_op
    graph = prog.graph
    packed = {}  # weight placeholder name -> (values node, bands node), or None: stays dense
    done = 0
    for n in list(graph.nodes):
        found = _operands(n)
        if found is None:
            continue
        x, w, bias = found
        if not prog.is_const(w) or not (_f32(x) and _f32(n)) or (bias is not None and not _f32(bias)):
            continue
        weight = prog.constants[w.name]
        if w.name not in packed:
            packed[w.name] = None
            if weight.dtype == torch.float32 and weight.dim() == 2 and bandref.worth_it(weight.numpy()):
                values, bands = bandref.bands_of(weight.numpy())
                packed[w.name] = (prog.add_constant(f"{w.name}_band_values", torch.from_numpy(values), [w]),
                                  prog.add_constant(f"{w.name}_bands", torch.from_numpy(bands), [w]))
        if packed[w.name] is None:
            continue
        values, bands = packed[w.name]
        out = n.meta["val"]
        inline = bias is None or tuple(bias.meta["val"].shape) == (int(weight.shape[1]),)
        with graph.inserting_before(n):
            new = graph.call_function(mote_op("band_mm"), (x, values, bands, bias if inline else None))
            copy_source_meta(new, n)
            new.meta["val"] = torch.empty(tuple(out.shape), dtype=torch.float32, device="meta")
            set_fused(new, fused_nodes(n))
            result = new
            if not inline:
                result = graph.call_function(aten.add.Tensor, (bias, new))
                copy_source_meta(result, n)
                result.meta["val"] = torch.empty(tuple(out.shape), dtype=torch.float32, device="meta")
                set_fused(result, fused_nodes(n))
        n.replace_all_uses_with(result)
        graph.erase_node(n)
        if bias is None:
            _absorb_bias(prog, new)
        done += 1
    return done


def _absorb_bias(prog: EdgeProgram, new: torch.fx.Node) -> bool:
    """``band_mm(x, ...) + c`` (c a number, the product's only reader: a log-mel's
    ``log(mel + floor)``) as band_mm's bias, a constant [N] of c: the kernel adds the
    bias last, to the same float32 sum, so the values are the add's, one call fewer."""
    users = list(new.users)
    if len(users) != 1:
        return False
    add = users[0]
    if add.target not in (aten.add.Tensor, aten.add.Scalar) or add.args[0] is not new or add.kwargs \
            or len(add.args) != 2 or not isinstance(add.args[1], (int, float)) or isinstance(add.args[1], bool):
        return False
    n = int(new.meta["val"].shape[-1])
    bias = prog.add_constant(f"{new.name}_bias", torch.full((n,), float(add.args[1]), dtype=torch.float32), [])
    new.args = new.args[:3] + (bias,)
    set_fused(new, fused_nodes(new) + fused_nodes(add))
    add.replace_all_uses_with(new)
    prog.graph.erase_node(add)
    return True
