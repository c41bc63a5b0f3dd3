"""The one JSON writer of the `--json` options: strict JSON that any parser reads.

JSON (RFC 8259) has no NaN or Infinity, yet Python's `json.dumps` writes them by default,
and a model's fp32 output, an exact op's SNR or a noisy serial line can hold them. Here a
non-finite float becomes `null`, numpy scalars and arrays become numbers and lists, and
`allow_nan=False` proves nothing non-finite slipped through.
"""
from __future__ import annotations

import json
import math


def json_ready(obj):
    """`obj` with non-finite floats as None and numpy values as Python ones (dicts, lists, tuples walked)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    tolist = getattr(obj, "tolist", None)  # numpy arrays and scalars
    if tolist is not None and type(obj).__module__ == "numpy":
        return json_ready(tolist())
    return obj


def dumps(obj, indent: int | None = None) -> str:
    """`obj` as strict JSON text (no NaN/Infinity tokens; see json_ready)."""
    return json.dumps(json_ready(obj), indent=indent, allow_nan=False)
