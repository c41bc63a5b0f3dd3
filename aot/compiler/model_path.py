"""The model file a command names, checked without loading it (and without torch), so
a missing file or a wrong suffix is refused before any slow import."""
from __future__ import annotations

from pathlib import Path

from aot.errors import ModelFileError

#: what `aot export`/`build`/`generate`/`compare`/`debug` compile: a .py model file
#: (model()/example_inputs()) or a .pt2 ExportedProgram (torch.export.save)
MODEL_SUFFIXES = (".py", ".pt2")


def model_path(path) -> Path:
    """`path` resolved, when it is a file with a MODEL_SUFFIXES suffix. Raises ModelFileError."""
    p = Path(path).resolve()
    if not p.is_file():
        raise ModelFileError(f"model file not found: {p}" if not p.exists()
                             else f"{p} is not a file: expected a .py model file or a .pt2 ExportedProgram")
    if p.suffix not in MODEL_SUFFIXES:
        raise ModelFileError(f"{p.name}: expected a .py model file or a .pt2 ExportedProgram")
    return p
