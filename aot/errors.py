"""Errors the AOT compiler raises. All derive from :class:`MoteError` so the
CLI can turn any of them into exit code 1 with a readable message."""
from __future__ import annotations


class MoteError(Exception):
    """Base class of every error the Mote AOT compiler raises on purpose."""


class ModelFileError(MoteError):
    """A model file cannot be loaded: wrong suffix, missing ``model()`` /
    ``example_inputs()``, wrong return types."""


class ExportError(MoteError):
    """torch.export could not capture the model (message carries torch's)."""


class UnsupportedOpError(MoteError):
    """The graph uses an operator the Mote runtime has no kernel for.

    ``op``: the operator name (e.g. "aten::cumsum.out" or "aten::cumsum.default"
    when no out-variant exists); ``source``: "file.py:LINE" of the model code
    that produced it ("" when unknown).
    """

    def __init__(self, op: str, source: str = "", detail: str = ""):
        self.op = op
        self.source = source
        where = f" at {source}" if source else ""
        extra = f" ({detail})" if detail else ""
        super().__init__(f"operator {op} is not supported by the Mote runtime{where}{extra}")


class LoweringError(MoteError):
    """The graph has a construct the lowering cannot express (dynamic shapes,
    unsupported dtypes, buffer mutation, ...)."""


class PlanError(MoteError):
    """A memory plan is invalid: overlapping live tensors, a tensor outside
    its arena, a misaligned offset or an unplanned tensor."""
