"""Mote's ahead-of-time compiler: nn.Module -> planned program -> .pte.

Public entry points:
  export(module, example_inputs) -> torch.export.ExportedProgram (Core ATen)
  lower(ep_or_module, example_inputs=None) -> aot.ir.ProgramSpec (planned)

``aot.export`` and ``aot.lower`` are these functions, not the stage modules of
the same name: reach module members with ``from aot.lower import build_spec``
(``import aot.lower as m`` would bind the function).
"""
from __future__ import annotations

# Import the stage modules first: importing a submodule binds its name on the
# package, and the functions below must be what ``aot.export`` / ``aot.lower``
# refer to (a later ``import aot.lower`` finds the module loaded and rebinds nothing).
from aot import export as _export_stage  # noqa: E402
from aot import lower as _lower_stage  # noqa: E402


def export(module, example_inputs):
    """Export ``module`` (eval nn.Module) on ``example_inputs`` (tuple of
    tensors) to a Core ATen ExportedProgram. Raises aot.errors.ExportError."""
    return _export_stage.export(module, example_inputs)


def lower(ep_or_module, example_inputs=None, **kwargs):
    """Lower an ExportedProgram or nn.Module to a memory-planned
    aot.ir.ProgramSpec. Raises aot.errors.UnsupportedOpError (op name and
    model file:line), LoweringError, PlanError."""
    return _lower_stage.lower(ep_or_module, example_inputs, **kwargs)


__all__ = ["export", "lower"]
