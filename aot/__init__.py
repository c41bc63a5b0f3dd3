"""Mote's ahead-of-time compiler: nn.Module -> planned program -> .pte.

Public entry points:
  export(module, example_inputs) -> torch.export.ExportedProgram (Core ATen)
  lower(ep_or_module, example_inputs=None) -> aot.ir.ProgramSpec (planned)

The package is layered; each layer imports only the ones below it:
  aot.cli -> aot.tools -> aot.deploy, aot.host -> aot.compiler -> aot.pte -> aot.ir
(aot.errors and aot.paths sit at the bottom). ``import aot`` does not import
torch: the entry points below load the compiler on first use, so commands
that only read a .pte or talk to a board start fast.
"""
from __future__ import annotations


def export(module, example_inputs):
    """Export ``module`` (eval nn.Module) on ``example_inputs`` (tuple of
    tensors) to a Core ATen ExportedProgram. Raises aot.errors.ExportError."""
    from aot.compiler.export import export as _export
    return _export(module, example_inputs)


def lower(ep_or_module, example_inputs=None, **kwargs):
    """Lower an ExportedProgram or nn.Module to a memory-planned
    aot.ir.ProgramSpec. Raises aot.errors.UnsupportedOpError (op name and
    model file:line), LoweringError, PlanError."""
    from aot.compiler.lower import lower as _lower
    return _lower(ep_or_module, example_inputs, **kwargs)


__all__ = ["export", "lower"]
