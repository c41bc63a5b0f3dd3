"""4-bit weights (--int4-weights): torchao's symmetric int4 group-wise weights for
Linear and Embedding become Mote's packed int4 kernels (mote::linear_w4,
mote::embedding_w4); the program matches torchao's reference within 1e-5 relative
on the host and on mps2-an505, in a fraction of the fp32 program's flash."""
from pathlib import Path

import numpy as np
import pytest
import torch

from aot.compiler.quant import int4ref
from aot.compiler.pipeline import compile_module, compile_model_file
from aot.errors import MoteError
from aot.host.runtime import Program
from aot.tools.compare import compare

MODEL = '''
import torch
class LM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(64, 64)
        self.up = torch.nn.Linear(64, 128)
        self.down = torch.nn.Linear(128, 64, bias=False)
        self.odd = torch.nn.Linear(64, 48)      # rows of 64: quantized
        self.head = torch.nn.Linear(48, 10)     # rows of 48: not a multiple of 32, kept fp32
    def forward(self, t):
        h = self.emb(t)
        return self.head(self.odd(self.down(torch.relu(self.up(h)))))
def model():
    return LM().eval()
def example_inputs():
    return (torch.randint(0, 64, (1, 7), generator=torch.Generator().manual_seed(1)),)
'''


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("int4") / "lm.py"
    p.write_text(MODEL)
    return p


@pytest.fixture(scope="module")
def compiled(model_file):
    return {g: compile_model_file(model_file, int4_weights=g) for g in (32, 64)}


def test_packing_round_trips_and_is_low_nibble_first():
    q = np.random.default_rng(0).integers(-8, 8, (5, 64))
    p = int4ref.pack_int4(q)
    assert p.shape == (5, 32) and p.dtype == np.uint8
    assert np.array_equal(int4ref.unpack_int4(p, 64), q)
    assert int4ref.pack_int4(np.array([[-1, 2]]))[0, 0] == 0x2F  # -1 -> 0xF low, 2 -> high


def test_reference_linear_is_the_dequantized_weights_product():
    rng = np.random.default_rng(1)
    q, s = rng.integers(-8, 8, (16, 64)), rng.random((16, 2), dtype=np.float32)
    x, b = rng.standard_normal((3, 64), dtype=np.float32), rng.standard_normal(16, dtype=np.float32)
    w = q * np.repeat(s, 32, axis=1)
    got = int4ref.linear_w4(x, int4ref.pack_int4(q), s, b, 32)
    np.testing.assert_allclose(got, x @ w.T + b, rtol=1e-5, atol=1e-5)


def test_int4_program_uses_the_int4_kernels_and_matches_torchao(compiled):
    c = compiled[32]
    ops = {f"{k.op}.{k.overload}" for k in c.spec.instructions}
    assert {"mote::linear_w4.out", "mote::embedding_w4.out"} <= ops
    assert [n for n, _ in c.int4.skipped] == ["head"]
    assert sorted(n for n, _, _ in c.int4.quantized) == ["down", "emb", "odd", "up"]
    r = compare(c, "host", seed=2)
    assert r["max_rel_error"] <= 1e-5, r            # against torchao's int4 model
    assert 1e-3 < r["fp32_max_rel_error"] < 0.5, r  # and int4 is not fp32
    # int4 weights + one fp32 scale per 32: about 1/6.4 of the fp32 weight bytes
    fp32 = compile_module("lm32", c.fp32_eager, c.example_inputs)
    assert len(c.pte) < 0.3 * len(fp32.pte)


def test_group_size_changes_the_scales(compiled):
    assert len(compiled[64].pte) < len(compiled[32].pte)
    assert compare(compiled[64], "host", seed=3)["max_rel_error"] <= 1e-5


def test_refusals_are_one_line(model_file, tmp_path):
    conv = tmp_path / "conv.py"
    conv.write_text("import torch\ndef model():\n    return torch.nn.Conv2d(1, 2, 3).eval()\n"
                    "def example_inputs():\n    return (torch.zeros(1, 1, 4, 4),)\n")
    with pytest.raises(MoteError, match="no Linear or Embedding"):
        compile_model_file(conv, int4_weights=32)


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_int4_on_mps2_an505_matches_torchao(compiled, tmp_path):
    r = compare(compiled[32], "mps2-an505", seed=4, out_dir=tmp_path / "lm")
    assert r["max_rel_error"] <= 1e-5, r


# --------------------------------------------------------------------------- int4 x int8

MLP8 = '''
import torch
def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)).eval()
def example_inputs():
    return (torch.randn(1, 32),)
def calibration_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(1, 32, generator=g),) for _ in range(32)]
'''


@pytest.fixture(scope="module")
def int4x8(tmp_path_factory):
    p = tmp_path_factory.mktemp("s4") / "mlp8.py"
    p.write_text(MLP8)
    return compile_model_file(p, int8=True, int4_weights=32), compile_model_file(p, int8=True)


def test_int4_weights_with_int8_activations_run_linear_s4(int4x8):
    s4, s8 = int4x8
    ops = {f"{k.op}.{k.overload}" for k in s4.spec.instructions}
    assert "mote::linear_s4.out" in ops and "mote::linear_s8.out" not in ops
    w = [v for v in s4.spec.values if getattr(v, "constant", None) is not None and v.dtype == 0]
    assert sorted(tuple(v.sizes) for v in w) == [(10, 32), (64, 16)]  # packed two per byte
    assert len(s4.pte) < len(s8.pte)
    from aot.compiler.macs import int8_mac_share
    assert int8_mac_share(s4.spec) == (32 * 64 + 64 * 10,) * 2  # every MAC in an int8 kernel


def test_linear_s4_is_exact_to_the_integer_reference_and_within_a_quantum_of_pt2e(int4x8):
    from aot.compiler.pipeline import program_inputs
    from aot.tools.compare import random_inputs
    s4, _ = int4x8
    ref = s4.program.module()  # the lowered graph: mote ops run aot/compiler/quant/int8ref.py
    m = Program(s4.pte).method()
    for seed in range(4):
        (x,) = random_inputs(s4.example_inputs, seed)
        got = m.run(program_inputs(s4, (x,)))[0]
        with torch.no_grad():
            want = ref(x)
        assert np.array_equal(got, want.numpy()), seed
    r = compare(s4, "host", seed=5)
    assert r["pt2e_max_quanta"] <= 1.001, r


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_linear_s4_same_bytes_in_firmware(int4x8, tmp_path):
    from aot.tools.compare import random_inputs, run_steps_on_target
    s4, _ = int4x8
    steps = [random_inputs(s4.example_inputs, 10 + k) for k in range(3)]
    host, _ = run_steps_on_target(s4, steps, "host")
    fw, _ = run_steps_on_target(s4, steps, "mps2-an505", out_dir=tmp_path / "s4")
    assert [[a.tobytes() for a in h] for h in host] == [[np.asarray(b).tobytes() for b in f] for f in fw]


@pytest.mark.slow  # several aot processes, each importing torch
def test_options_that_need_another_are_one_line(tmp_path):
    """--group-size without --int4-weights and --int8-io without --int8 used to be ignored."""
    import subprocess
    import sys
    for flags, want in ((["--group-size", "64"], "add --int4-weights"), (["--int8-io"], "add --int8")):
        r = subprocess.run([sys.executable, "-m", "aot", "export", str(Path(__file__).resolve().parents[2] / "zoo" / "mlp.py"), *flags,
                            "-o", str(tmp_path / "m.pte")], capture_output=True, text=True, timeout=300)
        assert r.returncode == 1 and want in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert not (tmp_path / "m.pte").exists()
