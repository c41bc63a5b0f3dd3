"""The model's state (mutable buffers) as quantization sees it: which buffers
a graph updates in place, which nodes compute from them (read without
observers, so calibration's last value is not folded into a constant), and
which buffers an int8 program keeps int8."""
from __future__ import annotations

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
from torch.fx import GraphModule, Node

aten = torch.ops.aten


def _writes_first_arg(n: Node) -> bool:
    """True if call `n` writes its first argument in place (mul_, add_, copy_, index_put_)."""
    schema = getattr(n.target, "_schema", None)
    if n.op != "call_function" or schema is None or not schema.arguments:
        return False
    info = schema.arguments[0].alias_info
    return info is not None and info.is_write


def mutated_buffers(gm: GraphModule) -> set:
    """Targets of the get_attr nodes of unlifted graph `gm` that an in-place op
    writes (directly or through other in-place ops on them): the model's
    mutable buffers, its state across calls."""
    found = set()
    for n in gm.graph.nodes:
        if _writes_first_arg(n):
            base = n.args[0]
            while isinstance(base, Node) and _writes_first_arg(base):
                base = base.args[0]
            if isinstance(base, Node) and base.op == "get_attr":
                found.add(base.target)
    return found


def state_constants(gm: GraphModule) -> set:
    """Nodes of `gm` computed from get_attr values alone, a mutable buffer among
    them (``mean.mul_(0.9)``, ``frames[:, 1:]``): constants to a constant
    folder, but the model's state at run time."""
    mutable = mutated_buffers(gm)
    const, state = set(), set()
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            const.add(n)
            if n.target in mutable:
                state.add(n)
        elif n.op == "call_function" and n.all_input_nodes and all(a in const for a in n.all_input_nodes):
            const.add(n)
            if any(a in state for a in n.all_input_nodes):
                state.add(n)
    return state


def int8_state_qparams(converted: GraphModule) -> dict:
    """{buffer name: (scale, zero point)} of the mutable buffers a converted graph
    writes as ``copy_(buffer, dequantize(quantize(value)))`` with int8 qparams:
    the model state an int8 program keeps int8."""
    qd = torch.ops.quantized_decomposed
    out = {}
    for n in converted.graph.nodes:
        if n.op == "call_function" and n.target == aten.copy_.default and isinstance(n.args[0], Node) \
                and n.args[0].op == "get_attr" and isinstance(n.args[1], Node) \
                and n.args[1].target == qd.dequantize_per_tensor.default:
            q = n.args[1].args[0]
            if isinstance(q, Node) and q.target == qd.quantize_per_tensor.default and q.args[5] == torch.int8:
                out[n.args[0].target] = (float(q.args[1]), int(q.args[2]))
    return out
