"""aot.tools.jsonout: every --json option writes strict JSON (RFC 8259 has no NaN/Infinity)."""
import json

import numpy as np
import pytest

from aot.tools import jsonout


def test_non_finite_floats_become_null_at_any_depth():
    obj = {"snr": float("inf"), "ops": [{"err": float("nan")}, (1.5, float("-inf"))], "n": 3}
    assert json.loads(jsonout.dumps(obj)) == {"snr": None, "ops": [{"err": None}, [1.5, None]], "n": 3}


def test_numpy_values_become_numbers_and_lists():
    obj = {"out": np.array([[1.0, np.nan], [np.inf, -2.5]], np.float32), "k": np.int64(7),
           "s": np.float32(np.nan)}
    assert json.loads(jsonout.dumps(obj)) == {"out": [[1.0, None], [None, -2.5]], "k": 7, "s": None}


def test_python_json_would_have_written_nan():
    """The reason for the module: the default writer emits a token strict parsers refuse."""
    assert "NaN" in json.dumps({"x": float("nan")})
    assert "NaN" not in jsonout.dumps({"x": float("nan")})
    with pytest.raises(ValueError):
        json.dumps({"x": float("nan")}, allow_nan=False)
