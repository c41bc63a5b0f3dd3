"""Rewrite calls torch.export leaves in a form with no out-variant kernel:

* ``sub.Tensor(number, x, alpha)`` (``1 - x``: a Python number on the left) ->
  ``rsub.Scalar(x, number, alpha)`` (number - alpha * x);
* ``__lshift__`` / ``__rshift__`` (``x << 2``, ``x >> y``) -> the same overload
  of ``bitwise_left_shift`` / ``bitwise_right_shift`` (identical semantics for
  integer tensors: torch implements both with one kernel).
"""
from __future__ import annotations

import torch

from aot.compiler.passes.edge_program import EdgeProgram

aten = torch.ops.aten

_SHIFTS = {
    aten.__lshift__.Scalar: aten.bitwise_left_shift.Tensor_Scalar,
    aten.__lshift__.Tensor: aten.bitwise_left_shift.Tensor,
    aten.__rshift__.Scalar: aten.bitwise_right_shift.Tensor_Scalar,
    aten.__rshift__.Tensor: aten.bitwise_right_shift.Tensor,
}


def rewrite_scalar_ops(prog: EdgeProgram) -> int:
    """Apply the rewrites above in place. Returns how many calls changed."""
    changed = 0
    for n in list(prog.graph.nodes):
        if n.op != "call_function":
            continue
        if n.target in _SHIFTS:
            n.target = _SHIFTS[n.target]
            changed += 1
        elif (n.target == aten.sub.Tensor and len(n.args) >= 2
              and isinstance(n.args[0], (int, float, bool)) and isinstance(n.args[1], torch.fx.Node)):
            alpha = n.args[2] if len(n.args) > 2 else n.kwargs.get("alpha", 1)
            n.target = aten.rsub.Scalar
            n.args = (n.args[1], n.args[0])
            n.kwargs = {"alpha": alpha}
            changed += 1
    return changed
