"""The Python dtype tables (aot.ir) agree with the C runtime's mote_dtype_t
(runtime/include/mote/types.h) and its element sizes (mote_dtype_size)."""
import re
import subprocess
from pathlib import Path

import numpy as np

from aot import ir

TYPES_H = Path(__file__).resolve().parents[2] / "runtime" / "include" / "mote" / "types.h"


def _c_enum() -> dict:
    text = TYPES_H.read_text()
    body = re.search(r"typedef enum mote_dtype \{(.*?)\} mote_dtype_t;", text, re.S).group(1)
    return {name.lower(): int(code) for name, code in re.findall(r"MOTE_DTYPE_(\w+)\s*=\s*(\d+)", body)}


def _c_sizes(tmp_path) -> dict:
    """mote_dtype_size() of every code 0..31, as the C compiler evaluates it
    (compiled and run on the host: the function is an inline bit trick, not a table)."""
    src = tmp_path / "sizes.c"
    src.write_text('#include <stdio.h>\n#include "mote/types.h"\n'
                   'int main(void) { unsigned d; for (d = 0; d < 32u; d++) '
                   'printf("%u %u\\n", d, (unsigned)mote_dtype_size((uint8_t)d)); return 0; }\n')
    exe = tmp_path / "sizes"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", f"-I{TYPES_H.parents[1]}", str(src), "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    names = {code: name for name, code in _c_enum().items()}
    sizes = {}
    for line in out.splitlines():
        code, size = (int(v) for v in line.split())
        if size:
            sizes[names.get(code, f"code {code}")] = size
    return sizes


def test_codes_match_types_h():
    c = _c_enum()
    assert len(c) == 9
    py = {ir.SCALAR_TYPE_NAMES[code]: code for code in ir.DTYPE_SIZES}
    assert py == c


def test_sizes_match_mote_dtype_size(tmp_path):
    sizes = _c_sizes(tmp_path)
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
