"""Issue 39 (a new user's first hour): one line per failure with the model's file:line,
no third-party chatter unless -v, a progress bar on long steps when asked for."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # aot processes, each importing torch

RAISES = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x).view(3, 5)


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(2, 8),)
'''

MISMATCH = '''import torch
from torch import nn


def model():
    return nn.Sequential(nn.Linear(10, 4)).eval()


def example_inputs():
    return (torch.randn(1, 12),)
'''

NONZERO = '''import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        return torch.nonzero(x > 0)


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(2, 8),)
'''

GRU = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 8, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(1, 4, 8),)
'''


def _aot(*args, env=None):
    return subprocess.run([sys.executable, "-m", "aot.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("int8", [False, True])
def test_forward_that_raises_is_one_line_with_the_model_line(tmp_path, int8):
    (tmp_path / "bad.py").write_text(RAISES)
    r = _aot("export", tmp_path / "bad.py", "-o", tmp_path / "m.pte", *(["--int8"] if int8 else []))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ": error: " in ln]
    assert errors == ["aot export: error: torch.export failed at bad.py:11: "
                      "shape '[3, 5]' is invalid for input of size 8"], r.stderr
    assert len(r.stderr.splitlines()) <= 2  # (with --int8: the no-calibration-data warning)
    assert not (tmp_path / "m.pte").exists()


@pytest.mark.parametrize("int8", [False, True])
def test_shape_error_inside_a_torch_layer_names_the_module_and_no_torch_log(tmp_path, int8):
    """A Linear fed the wrong width fails in torch's own code: the line names the layer, and
    torch's fake-tensor logger (whose level importing torch resets) prints no traceback."""
    (tmp_path / "lin.py").write_text(MISMATCH)
    r = _aot("export", tmp_path / "lin.py", "-o", tmp_path / "m.pte", *(["--int8"] if int8 else []))
    assert r.returncode == 1 and "Traceback" not in r.stderr and "fake_tensor" not in r.stderr, r.stderr
    assert [ln for ln in r.stderr.splitlines() if ": error: " in ln] == [
        "aot export: error: torch.export failed at module '0' (Linear): a and b must have same reduction "
        "dim, but got [1, 12] X [10, 4]."], r.stderr
    assert len(r.stderr.splitlines()) <= 2


def test_data_dependent_shape_is_named_as_such(tmp_path):
    (tmp_path / "nz.py").write_text(NONZERO)
    r = _aot("export", tmp_path / "nz.py", "-o", tmp_path / "m.pte")
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("aot export: error: operator aten::nonzero.out is not supported by the Mote "
                               "runtime at nz.py:7 (output shape depends on the data")
    assert "kernels/excluded.json" in r.stderr and "built-in function" not in r.stderr


def test_gru_export_is_quiet_unless_verbose(tmp_path):
    """torch's `_flat_weights ... register_buffer` note (attributed to contextlib.py) is hidden;
    -v shows it; MOTE_PROGRESS=1 draws the compile's stage bar on stderr."""
    (tmp_path / "gru.py").write_text(GRU)
    r = _aot("export", tmp_path / "gru.py", "-o", tmp_path / "m.pte", env={"MOTE_PROGRESS": "1"})
    assert r.returncode == 0, r.stderr
    assert "_flat_weights" not in r.stderr and "contextlib" not in r.stderr
    assert "compile gru: lower" in r.stderr  # the progress bar's stage
    v = _aot("-v", "export", tmp_path / "gru.py", "-o", tmp_path / "m.pte", env={"MOTE_PROGRESS": "0"})
    assert v.returncode == 0 and "_flat_weights" in v.stderr
    assert "compile gru" not in v.stderr
