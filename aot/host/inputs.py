"""Program inputs from files, made to fit a program: the one rule shared by
`aot build --inputs`, `aot run` (host and simulators) and the Python mote-run.

An ``.npz`` gives the inputs in order: ``arr_0, arr_1, ...`` numerically
(``arr_10`` after ``arr_9``; what ``np.savez(f, x, y)`` writes), then any other
names in archive order.
"""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from aot.errors import InputError


def load_npz_inputs(path) -> list:
    """Arrays of the .npz at ``path`` in input order (see the module docstring).
    Raises InputError when the file is missing or not an .npz archive."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        z = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile):
        raise InputError(f"{path}: not an .npz archive (write one with np.savez(path, x0, x1, ...))") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise InputError(f"{path}: a single .npy array; give an .npz (np.savez(path, x0, x1, ...))")
    with z:
        numbered = sorted((int(k[4:]), k) for k in z.files if k.startswith("arr_") and k[4:].isdigit())
        named = [k for k in z.files if not (k.startswith("arr_") and k[4:].isdigit())]
        return [np.asarray(z[k]) for k in [k for _, k in numbered] + named]


def conform_inputs(arrays: Sequence, shapes: Sequence, dtypes: Sequence,
                   note: Optional[Callable[[str], None]] = None) -> list:
    """Check ``arrays`` against a program's input ``shapes`` and numpy ``dtypes``
    and return contiguous arrays of exactly those dtypes.

    float64 becomes float32 where the program takes float32 (what
    ``np.random.randn`` gives), reported through ``note`` in one line; any
    other dtype or shape difference raises InputError naming the input.
    """
    if len(arrays) != len(shapes):
        raise InputError(f"{len(arrays)} input arrays given, the program takes {len(shapes)}")
    out = []
    for i, (a, shape, dt) in enumerate(zip(arrays, shapes, dtypes)):
        a, dt = np.asarray(a), np.dtype(dt)
        if tuple(a.shape) != tuple(shape):
            raise InputError(f"input {i}: shape {list(a.shape)}, the program takes {list(shape)}")
        if a.dtype != dt:
            if a.dtype == np.float64 and dt == np.float32:
                if note is not None:
                    note(f"input {i} is float64; cast to float32, the dtype the program takes")
                a = a.astype(np.float32)
            else:
                raise InputError(f"input {i}: dtype {a.dtype}, the program takes {dt}")
        out.append(np.asarray(a, order="C"))  # keeps 0-d arrays 0-d
    return out
