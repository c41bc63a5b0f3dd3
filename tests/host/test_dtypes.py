"""The Python dtype tables (aot.ir) agree with the C runtime's mote_dtype_t
(runtime/include/mote/types.h) and its element sizes (mote_dtype_size)."""
import re
from pathlib import Path

import numpy as np

from aot import ir

TYPES_H = Path(__file__).resolve().parents[2] / "runtime" / "include" / "mote" / "types.h"


def _c_enum() -> dict:
    text = TYPES_H.read_text()
    body = re.search(r"typedef enum mote_dtype \{(.*?)\} mote_dtype_t;", text, re.S).group(1)
    return {name.lower(): int(code) for name, code in re.findall(r"MOTE_DTYPE_(\w+)\s*=\s*(\d+)", body)}


def _c_sizes() -> dict:
    text = TYPES_H.read_text()
    body = re.search(r"mote_dtype_size\(uint8_t dtype\)(.*?)\n\}", text, re.S).group(1)
    sizes = {}
    for cases, size in re.findall(r"((?:case MOTE_DTYPE_\w+:\s*)+)return (\d+);", body):
        for name in re.findall(r"MOTE_DTYPE_(\w+)", cases):
            sizes[name.lower()] = int(size)
    return sizes


def test_codes_match_types_h():
    c = _c_enum()
    assert len(c) == 9
    py = {ir.SCALAR_TYPE_NAMES[code]: code for code in ir.DTYPE_SIZES}
    assert py == c


def test_sizes_match_mote_dtype_size():
    sizes = _c_sizes()
    assert sizes == {ir.SCALAR_TYPE_NAMES[k]: v for k, v in ir.DTYPE_SIZES.items()}


def test_numpy_table_round_trips():
    for code, dt in ir.DTYPE_NUMPY.items():
        assert dt.itemsize == ir.DTYPE_SIZES[code]
        assert ir.NUMPY_CODES[dt] == code
    assert ir.NUMPY_CODES[np.dtype(np.float32)] == 6


def test_error_codes_match_the_runtime_names():
    """aot.host.runtime.error_codes() (parsed from types.h) names every code the way the
    C runtime's mote_err_name does, and the codes are distinct."""
    from aot.host.runtime import _load_lib, err_name, error_codes

    codes = error_codes()
    assert codes["OK"] == 0 and len(codes) > 40
    assert len(set(codes.values())) == len(codes)
    lib = _load_lib()
    for name, code in codes.items():
        assert err_name(code, lib) == ("MOTE_OK" if name == "OK" else f"MOTE_ERR_{name}")
