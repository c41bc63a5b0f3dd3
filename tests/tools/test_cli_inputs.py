"""Issue "Foundation" §3, host side: the command line answers a user's mistake
with one line (never a traceback), float64 inputs are cast with a note the same
way on every target, and two programs exported into one folder keep their own
ops.json."""
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

AOT = [sys.executable, "-m", "aot.cli"]
ROOT = Path(__file__).resolve().parents[2]

MODEL = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(2, 8),)
'''

GAIN = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.gain = nn.Parameter(torch.rand(8) + 0.5)
        self.shift = nn.Parameter(torch.rand(8))

    def forward(self, x):
        y = self.fc(x) * self.gain
        y = y + self.shift
        return torch.tanh(y)


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(4, 8),)


def calibration_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(4, 8, generator=g),) for _ in range(8)]
'''


def _aot(*args, cwd=None):
    return subprocess.run(AOT + [str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _one_line_error(r, *needles):
    assert r.returncode in (1, 2), r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.strip().splitlines() if "error" in ln]
    assert len(lines) == 1, r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("m")
    (d / "sig.py").write_text(MODEL)
    return d / "sig.py"


@pytest.mark.slow  # several aot processes, each importing torch
def test_two_programs_in_one_folder_keep_their_manifests(model_file, tmp_path):
    for name in ("a", "b"):
        r = _aot("export", model_file, "-o", tmp_path / f"{name}.pte")
        assert r.returncode == 0, r.stderr
    for name in ("a", "b"):
        m = json.loads((tmp_path / f"{name}.ops.json").read_text())
        data = (tmp_path / f"{name}.pte").read_bytes()
        assert m["pte_bytes"] == len(data)
    assert not (tmp_path / "ops.json").exists()
    # `aot inspect` finds the manifest of its own program
    r = _aot("inspect", tmp_path / "a.pte", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["manifest_memory"]["arena_bytes"]


@pytest.mark.slow  # several aot processes, each importing torch
def test_calib_with_wrong_layout_is_one_line(model_file, tmp_path):
    np.savez(tmp_path / "bad.npz", np.zeros((3, 5), np.float32))
    r = _aot("export", model_file, "--int8", "--calib", tmp_path / "bad.npz", "-o", tmp_path / "m.pte")
    _one_line_error(r, "--calib", "(3, 5)", "(2, 8)")
    np.savez(tmp_path / "two.npz", np.zeros((2, 8), np.float32), np.zeros((2, 8), np.float32))
    r = _aot("export", model_file, "--int8", "--calib", tmp_path / "two.npz", "-o", tmp_path / "m.pte")
    _one_line_error(r, "2 arrays for 1 model inputs")
    (tmp_path / "text.npz").write_text("not an archive")
    r = _aot("export", model_file, "--int8", "--calib", tmp_path / "text.npz", "-o", tmp_path / "m.pte")
    _one_line_error(r, "not an .npz archive")
    assert not (tmp_path / "m.pte").exists()
    h = _aot("export", "--help")
    assert "[S, *shape]" in " ".join(h.stdout.split())


@pytest.mark.slow  # several aot processes, each importing torch
def test_inputs_not_npz_is_one_line(model_file, tmp_path):
    assert _aot("export", model_file, "-o", tmp_path / "m.pte").returncode == 0
    (tmp_path / "in.txt").write_text("1 2 3")
    r = _aot("run", tmp_path / "m.pte", "--inputs", tmp_path / "in.txt")
    _one_line_error(r, "not an .npz archive")
    np.save(tmp_path / "x.npy", np.zeros((2, 8), np.float32))
    r = _aot("run", tmp_path / "m.pte", "--inputs", tmp_path / "x.npy")
    _one_line_error(r, ".npz")


@pytest.mark.parametrize("value", ["0", "-3", "soon"])
def test_timeout_must_be_positive(model_file, tmp_path, value):
    r = _aot("run", tmp_path, "--target", "mps2-an505", "--timeout", value)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--timeout" in r.stderr


@pytest.mark.slow  # aot processes, each importing torch
def test_float64_inputs_are_cast_with_a_note_on_the_host(model_file, tmp_path):
    assert _aot("export", model_file, "-o", tmp_path / "m.pte").returncode == 0
    x = np.random.default_rng(0).standard_normal((2, 8))  # float64, as np.random gives
    np.savez(tmp_path / "in.npz", x)
    r = _aot("run", tmp_path / "m.pte", "--inputs", tmp_path / "in.npz", "--json")
    assert r.returncode == 0, r.stderr
    assert "input 0 is float64; cast to float32" in r.stderr
    got = np.asarray(json.loads(r.stdout)["outputs"][0], np.float32)
    np.savez(tmp_path / "in32.npz", x.astype(np.float32))
    r32 = _aot("run", tmp_path / "m.pte", "--inputs", tmp_path / "in32.npz", "--json")
    assert np.array_equal(got, np.asarray(json.loads(r32.stdout)["outputs"][0], np.float32))
    assert "note" not in r32.stderr
    np.savez(tmp_path / "int.npz", np.zeros((2, 8), np.int32))
    _one_line_error(_aot("run", tmp_path / "m.pte", "--inputs", tmp_path / "int.npz"), "int32", "float32")


def test_int8_with_a_parameter_in_elementwise_ops(tmp_path):
    """`x * self.gain`, `x + self.shift` crashed the int8 lowering with a raw RuntimeError."""
    f = tmp_path / "gain_model.py"
    f.write_text(GAIN)
    from aot.compiler.quant.lowering import Int8FallbackWarning
    from aot.compiler.pipeline import compile_model_file
    from aot.host.runtime import Program
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = compile_model_file(f, int8=True)
    x = c.example_inputs[0]
    got = Program(c.pte).method().run([x.numpy()])[0]
    want = c.reference(x).detach().numpy()
    assert np.max(np.abs(got - want)) <= 2 * 2.0 / 255  # within a quantum or two of PT2E (tanh)
    fallbacks = [w for w in caught if issubclass(w.category, Int8FallbackWarning)]
    assert fallbacks, "the elementwise ops on parameters run in fp32 with a warning"
    # each warning points at the user's model file and line, not at aot/
    for w in fallbacks:
        assert Path(w.filename).name == "gain_model.py", w.filename
        assert 12 <= w.lineno <= 15
        assert "gain_model.py:" in str(w.message)


TWO_UNSUPPORTED = '''import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        y = torch.special.bessel_j0(x)
        return torch.special.bessel_y0(y)


def model():
    return M().eval()


def example_inputs():
    return (torch.randn(2, 3),)
'''


@pytest.mark.slow  # several aot processes, each importing torch
def test_export_into_a_folder_and_inspect_a_folder(model_file, tmp_path):
    """`-o FOLDER` writes FOLDER/<model>.pte (not a traceback); `aot inspect` of a folder
    reads its model.pte, and a missing program is one `error:` line."""
    out = tmp_path / "out"
    out.mkdir()
    r = _aot("export", model_file, "-o", out)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["sig.debug.json", "sig.ops.json", "sig.pte"]
    (out / "sig.pte").rename(out / "model.pte")
    r = _aot("inspect", out, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pte_bytes"] == (out / "model.pte").stat().st_size
    r = _aot("inspect", tmp_path)
    assert r.returncode == 1 and r.stderr.strip() == f"aot inspect: error: {tmp_path / 'model.pte'}: No such file or directory"


@pytest.mark.slow  # several aot processes, each importing torch
def test_every_unsupported_operator_is_named(tmp_path):
    f = tmp_path / "two.py"
    f.write_text(TWO_UNSUPPORTED)
    r = _aot("export", f, "-o", tmp_path / "two.pte")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert ("operator aten::special_bessel_j0.out is not supported by the Mote runtime at two.py:7 "
            "(also unsupported: aten::special_bessel_y0.out at two.py:8)") in r.stderr
    assert not (tmp_path / "two.pte").exists()


@pytest.mark.slow  # aot processes, each importing torch
def test_int8_without_calibration_data_says_so(model_file, tmp_path):
    r = _aot("export", model_file, "--int8", "-o", tmp_path / "q.pte")
    assert r.returncode == 0, r.stderr
    assert "no calibration data" in r.stderr and f"{model_file}:1" in r.stderr


@pytest.mark.slow  # aot processes, each importing torch
def test_an_operator_with_side_effects_is_named_with_its_line(tmp_path):
    """torch.linalg.inv exports with an effect token (its error check); the export
    error names that operator and the model line, not the graph's input kind."""
    (tmp_path / "inv.py").write_text("import torch\n\n\nclass M(torch.nn.Module):\n"
                                     "    def forward(self, x):\n        return torch.linalg.inv(x)\n\n\n"
                                     "def model():\n    return M().eval()\n\n\n"
                                     "def example_inputs():\n    return (torch.eye(3) * 2,)\n")
    r = _aot("export", tmp_path / "inv.py", "-o", tmp_path / "out")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "aten::_linalg_check_errors.default is not supported" in r.stderr and "inv.py:6" in r.stderr
    assert not (tmp_path / "out").exists()


def _strict_json(text: str):
    """json.loads that refuses the NaN/Infinity tokens RFC 8259 does not have."""
    def refuse(token):
        raise ValueError(f"non-JSON token {token}")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow  # two aot processes, each importing torch
def test_run_json_is_strict_json_when_an_output_is_nan(model_file, tmp_path):
    """A NaN in the model's output is `null` in --json (Python's json would write NaN)."""
    assert _aot("export", model_file, "-o", tmp_path / "m.pte").returncode == 0
    x = np.zeros((2, 8), np.float32)
    x[0, 0] = np.nan
    np.savez(tmp_path / "in.npz", x)
    r = _aot("run", tmp_path / "m.pte", "--inputs", tmp_path / "in.npz", "--json")
    assert r.returncode == 0, r.stderr
    out = _strict_json(r.stdout)["outputs"][0]
    assert out[0] == [None] * 4  # row 0 went through fc with a NaN: every output NaN
    assert all(0.0 < v < 1.0 for v in out[1])  # row 1 is sigmoid of finite values


@pytest.mark.parametrize("argv, line", [
    (["build", "m.py", "--board", "mps2-an505", "--memory", "bogus"],
     "aot build: error: argument --memory: invalid choice: 'bogus' (choose from 'shared', 'separate')"),
    (["generate", "m.py", "--board", "mps2-an505", "--opt", "fast"],
     "aot generate: error: argument --opt: invalid choice: 'fast' (choose from 'size', 'speed')"),
    (["run", "m.pte", "--bogus"], "aot: error: unrecognized arguments: --bogus"),
    (["build"], "aot build: error: the following arguments are required: MODEL, --board"),
])
def test_a_bad_option_is_one_line_without_the_usage(argv, line):
    r = subprocess.run(AOT + argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr == line + "\n", r.stderr
