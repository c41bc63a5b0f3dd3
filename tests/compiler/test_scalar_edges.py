"""Issue "Scalars at the edges": 0-d tensors as program inputs and outputs
round-trip through the Python binding, `aot run` and `mote-run`; a Python number
in any Tensor position of a binary op (``1 - x``, ``7 // x``, ``2 ** x``, ...)
compiles to the right program, in fp32 and in int8 builds where the op quantizes."""
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from aot.compiler.pipeline import compile_module, reference_outputs, write_outputs
from aot.host.runtime import Program

ROOT = Path(__file__).resolve().parents[2]


class ScalarIO(nn.Module):
    """A 0-d input scales a vector; a 0-d output (the scaled sum)."""

    def forward(self, x, s):
        y = x * s
        return y, y.sum() + s


def _inputs():
    return (torch.tensor([1.0, -2.0, 3.5]), torch.tensor(2.5))


def _compile():
    return compile_module("scalar_io", ScalarIO(), _inputs())


def test_zero_d_input_and_output_through_the_binding():
    c = _compile()
    x, s = _inputs()
    out = Program(c.pte).method().run([x.numpy(), s.numpy()])
    assert out[0].shape == (3,) and out[1].shape == ()
    np.testing.assert_array_equal(out[0], np.array([2.5, -5.0, 8.75], np.float32))
    assert float(out[1]) == pytest.approx(8.75)
    # a 0-d array where the program takes [1] is still refused, with the shapes named
    c1 = compile_module("vec1", ScalarIO(), (x, torch.tensor([2.5])))
    with pytest.raises(Exception, match=r"shape \[1\], got \[\]"):
        Program(c1.pte).method().run([x.numpy(), s.numpy()])


def test_zero_d_through_aot_run_and_mote_run(tmp_path):
    c = _compile()
    pte = tmp_path / "scalar_io.pte"
    write_outputs(c, pte)
    x, s = _inputs()
    np.savez(tmp_path / "in.npz", x.numpy(), s.numpy())
    r = subprocess.run([sys.executable, "-m", "aot.cli", "run", str(pte), "--inputs", str(tmp_path / "in.npz"),
                        "--json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    outs = json.loads(r.stdout)["outputs"]
    assert outs[0] == [2.5, -5.0, 8.75] and outs[1] == pytest.approx(8.75)   # a 0-d output is a number
    r = subprocess.run([sys.executable, "-m", "aot.cli", "run", str(pte), "--inputs", str(tmp_path / "in.npz")],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0 and "output 1: float32 [] [8.75]" in r.stdout, r.stdout + r.stderr
    exe = ROOT / "build" / "host" / "ports" / "linux" / "mote-run"
    r = subprocess.run([str(exe), "-o", str(tmp_path / "o.npz"), str(pte), str(tmp_path / "in.npz")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o.npz") as z:
        assert z["output_1"].shape == () and z["output_0"].shape == (3,)
        assert float(z["output_1"]) == pytest.approx(8.75)


#: (name, f(x) with a Python number as the first operand, input)
NUMBER_FIRST = [
    ("rsub_int", lambda x: 1 - x, torch.randn(2, 5)),
    ("rsub_float", lambda x: 2.5 - x, torch.randn(2, 5)),
    ("torch_rsub", lambda x: torch.rsub(x, 1), torch.randn(2, 5)),
    ("true_div", lambda x: 3 / x, torch.rand(2, 5) + 0.5),
    ("floor_div", lambda x: 7 // x, torch.rand(2, 5) + 0.5),
    ("trunc_div", lambda x: torch.div(7, x, rounding_mode="trunc"), torch.rand(2, 5) + 0.5),
    ("pow", lambda x: 2 ** x, torch.randn(2, 5)),
    ("remainder", lambda x: 5 % x, torch.rand(2, 5) + 0.5),
    ("int_floor_div", lambda x: 7 // x, torch.arange(1, 11, dtype=torch.int32).reshape(2, 5)),
    ("int_sub_float", lambda x: 2.5 - x, torch.arange(10, dtype=torch.int32).reshape(2, 5)),
    ("where_number", lambda x: torch.where(x > 0, 1.0, x), torch.randn(2, 5)),
    ("atan2", lambda x: torch.atan2(torch.tensor(1.0), x), torch.randn(2, 5)),
]


class _Fn(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


@pytest.mark.parametrize("name,f,x", NUMBER_FIRST, ids=[c[0] for c in NUMBER_FIRST])
def test_python_number_as_first_operand(name, f, x):
    c = compile_module(name, _Fn(f), (x,))
    got = Program(c.pte).method().run([x.numpy()])[0]
    want = f(x)
    assert got.dtype == want.numpy().dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)


class _ConvThen(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.f = f

    def forward(self, x):
        return self.f(self.conv(x))


@pytest.mark.parametrize("name,f", [("rsub", lambda y: 1 - y), ("rsub_relu", lambda y: torch.relu(2.5 - y)),
                                    ("scalar_input_mul", None)])
def test_int8_number_first_and_scalar_input(name, f):
    """int8 builds: the number-first op quantizes around the conv; a 0-d input
    feeds the int8 program; host bytes equal PT2E's reference within one quantum."""
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8, 8)
    if f is None:
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3)

            def forward(self, x, s):
                return self.conv(x) * s
        m, ins = M().eval(), (x, torch.tensor(0.5))
    else:
        m, ins = _ConvThen(f).eval(), (x,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module(name, m, ins, int8=True)
    got = Program(c.pte).method().run([t.numpy() for t in ins])
    ref = reference_outputs(c, ins)
    scale = float(c.int8_info.output_qparams[0][0])
    assert got[0].shape == ref[0].shape
    assert float(np.max(np.abs(got[0] - ref[0]))) <= scale + 1e-6
    assert np.any(got[0] != 0)
