"""Stage 1: capture an ``nn.Module`` with torch.export and decompose it to Core ATen.

Linear decomposes to ``permute(weight)`` + ``addmm``; the passes then fold the
permute of the constant weight ahead of time (see aot/compiler/passes/const_fold.py).
"""
from __future__ import annotations

import contextlib
import io
import sys

import torch

from aot.compiler.source import raised_at
from aot.errors import ExportError


def export(module: torch.nn.Module, example_inputs) -> torch.export.ExportedProgram:
    """Export ``module`` called on ``example_inputs`` (tuple of tensors) and run
    the Core ATen decompositions. Returns the decomposed ExportedProgram.
    Raises ExportError when torch.export fails."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    if module.training:
        module.eval()  # batch norm / dropout must export in inference form
    return to_core_aten(capture(module, example_inputs, strict=False))


def capture(module: torch.nn.Module, example_inputs, **kwargs) -> torch.export.ExportedProgram:
    """``torch.export.export(module, example_inputs, **kwargs)``, its failure one
    ExportError line naming where the model's code raised ("bad.py:9", when the error
    came from the user's forward). What the export writes to stderr (warnings, the
    model's own messages) is passed on, except the partial graph torch prints before a
    data-dependent failure, which the one line replaces. Raises ExportError."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            return torch.export.export(module, tuple(example_inputs), **kwargs)
    except Exception as e:
        graph = str(getattr(e, "partial_fx_graph", "") or "")
        said = io.StringIO(said.getvalue().replace(graph, "") if graph else said.getvalue())
        where = raised_at(e) or _raised_in_module(e, module)
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        if "data-dependent" in first:  # torch's words for an `if`, int() or size taken from a tensor's values
            first = _short_expression(first)
            first += (" (Python control flow or a size taken from a tensor's values: the graph must be the "
                      "same for every input)")
        raise ExportError(f"torch.export failed{f' at {where}' if where else ''}: {first}") from e
    finally:
        text = said.getvalue()
        if text.strip():
            sys.stderr.write(text if text.endswith("\n") else text + "\n")


def _short_expression(line: str, keep: int = 80) -> str:
    """torch's data-dependent error line with its symbolic expression cut to `keep`
    characters (SSDLite's runs to thousands) and what follows it (the unhinted copy,
    the size-like symbols) dropped."""
    head, sep, rest = line.partition("data-dependent expression ")
    if not sep:
        return line
    expr = rest.split(" (unhinted", 1)[0]
    return head + sep + (expr if len(expr) <= keep else expr[:keep] + " ...")


def _raised_in_module(exc: BaseException, root: torch.nn.Module) -> str:
    """"module '0' (Linear)": the innermost submodule of `root` whose forward is on `exc`'s
    traceback, for an error raised inside torch's own layers (an nn.Sequential has no
    user code on the stack); "" when none is."""
    names = {id(m): name for name, m in root.named_modules()}
    found, tb = "", exc.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, torch.nn.Module) and id(owner) in names:
            name = names[id(owner)]
            found = f"module '{name}' ({type(owner).__name__})" if name else found
        tb = tb.tb_next
    return found


#: ops the decomposition keeps (by name, so torchao need not be imported):
#: torchao's weight dequantization, which aot/compiler/quant/int4.py folds
#: into Mote's int4 kernels instead of a float weight
KEEP = ("torchao.dequantize_affine.default",)


def to_core_aten(ep: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """Run torch's default Core ATen decomposition table on ``ep``, except :data:`KEEP`."""
    table = torch.export.default_decompositions()
    for op in [op for op in table if str(op) in KEEP]:
        del table[op]
    try:
        return ep.run_decompositions(table)
    except Exception as e:
        raise ExportError(f"Core ATen decomposition failed: {e}") from e
