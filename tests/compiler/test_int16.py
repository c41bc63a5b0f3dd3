"""--int16-activations: conv / linear with int16 activations and int8 weights
(mote::conv2d_s16, depthwise_conv2d_s16, linear_s16), against the integer
reference, PT2E's int16 reference, the fp32 model and the firmware."""
import subprocess
import sys

import numpy as np
import pytest
import torch

from aot.compiler.pipeline import compile_model_file, program_inputs
from aot.errors import MoteError
from aot.host.runtime import Program
from aot.tools.compare import compare, random_inputs

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
S16_OPS = {"mote::conv2d_s16.out", "mote::depthwise_conv2d_s16.out", "mote::linear_s16.out"}

#: conv1d (dense and depthwise, relu6-clamped), a linear over [N, L, C] (3-D input),
#: and a max pool between them that stays fp32
SEQ16 = '''
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.c1 = torch.nn.Conv1d(4, 12, 5, padding=2)
        self.dw = torch.nn.Conv1d(12, 12, 3, padding=1, groups=12)
        self.pool = torch.nn.MaxPool1d(2)
        self.fc = torch.nn.Linear(12, 6)
    def forward(self, x):
        y = torch.nn.functional.relu6(self.c1(x))
        y = torch.relu(self.dw(y))
        y = self.pool(y)
        return self.fc(y.transpose(1, 2))
def model():
    return Net().eval()
def example_inputs():
    return (torch.randn(1, 4, 32),)
def calibration_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(1, 4, 32, generator=g),) for _ in range(16)]
'''


@pytest.fixture(scope="module")
def ds16():
    return compile_model_file(ROOT / "zoo/ds_cnn.py", int16_activations=True)


@pytest.fixture(scope="module")
def seq16(tmp_path_factory):
    p = tmp_path_factory.mktemp("s16") / "seq16.py"
    p.write_text(SEQ16)
    return compile_model_file(p, int16_activations=True)


def _ops(c):
    return {f"{k.op}.{k.overload}" for k in c.spec.instructions}


def test_ds_cnn_runs_every_mac_in_int16_kernels(ds16):
    from aot.compiler.macs import int8_mac_share
    ops = _ops(ds16)
    assert S16_OPS <= ops and not any(o.endswith("_s8.out") for o in ops)
    quantized, total = int8_mac_share(ds16.spec, int16=True)
    assert quantized == total > 2_000_000
    assert ds16.int8 and ds16.int16
    assert "int16: 100.0% of" in ds16.summary()
    # int16 activations between the layers, int64 bias, int8 weights
    dtypes = {ds16.spec.values[k.args[i]].dtype for k in ds16.spec.instructions
              if k.op == "mote::conv2d_s16" for i in (0, 1, 2)}
    assert dtypes == {2, 1, 4}  # int16 input, int8 weight, int64 bias (ExecuTorch ScalarType codes)


@pytest.mark.parametrize("name", ["ds16", "seq16"])
def test_host_is_exact_to_the_integer_reference_and_within_a_quantum_of_pt2e(name, request):
    c = request.getfixturevalue(name)
    ref = c.program.module()  # the lowered graph: the s16 ops run aot/compiler/quant/int16ref.py
    m = Program(c.pte).method()
    for seed in range(3):
        inputs = random_inputs(c.example_inputs, seed)
        got = m.run(program_inputs(c, inputs))[0]
        with torch.no_grad():
            want = ref(*inputs)
        assert np.array_equal(got, want.numpy()), seed
    r = compare(c, "host", seed=7)
    assert r["int16_activations"] is True
    assert r["pt2e_max_quanta"] <= 1.001, r


def test_seq16_lowers_conv1d_depthwise_and_3d_linear(seq16):
    ops = _ops(seq16)
    assert S16_OPS <= ops
    assert "aten::max_pool2d_with_indices.out" in ops or any("max_pool" in o for o in ops)  # fp32 island
    # out-variant calls end (..., activation_min, activation_max, out, out)
    clamps = {k.op: (seq16.spec.values[k.args[-4]], seq16.spec.values[k.args[-3]])
              for k in seq16.spec.instructions if k.op.endswith("_s16")}
    # relu6 / relu fused as the int16 clamp (zero point 0: the low end is 0; relu6's 6.0
    # is the top of its output range), the linear unclamped
    assert clamps == {"mote::conv2d_s16": (0, 32767), "mote::depthwise_conv2d_s16": (0, 32767),
                      "mote::linear_s16": (-32768, 32767)}


def test_int16_is_closer_to_fp32_than_int8(ds16):
    """Over ds_cnn's calibration set: the int16x8 program's error against the
    fp32 model is well below the int8 one's (same weights quantization)."""
    from aot.compiler.quant.pt2e import quantize
    int8_ref, _ = quantize(ds16.eager, ds16.example_inputs, ds16.calibration_data)
    samples = list(ds16.calibration_data)[:24]
    m = Program(ds16.pte).method()
    e16 = e8 = 0.0
    with torch.no_grad():
        for (x,) in samples:
            want = ds16.eager(x).numpy()
            e16 = max(e16, float(np.abs(m.run(program_inputs(ds16, (x,)))[0] - want).max()))
            e8 = max(e8, float(np.abs(int8_ref(x).numpy() - want).max()))
    assert e16 < e8 / 2, (e16, e8)


@pytest.mark.slow  # aot processes, each importing torch
def test_refusals_are_one_line(tmp_path):
    p = tmp_path / "m.py"
    p.write_text(SEQ16)
    with pytest.raises(MoteError, match="--int8-io"):
        compile_model_file(p, int16_activations=True, int8_io=True)
    with pytest.raises(MoteError, match="--int4-weights"):
        compile_model_file(p, int16_activations=True, int4_weights=32)
    r = subprocess.run([sys.executable, "-m", "aot", "export", str(p), "--int16-activations", "--int8-io",
                        "-o", str(tmp_path / "m.pte")], capture_output=True, text=True)
    assert r.returncode == 1 and not (tmp_path / "m.pte").exists()
    assert r.stderr.strip().splitlines()[-1].startswith("aot export: error: --int16-activations")
    assert "Traceback" not in r.stderr


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_int16_same_bytes_in_firmware(seq16, tmp_path):
    from aot.tools.compare import run_steps_on_target
    steps = [random_inputs(seq16.example_inputs, 20 + k) for k in range(3)]
    host, _ = run_steps_on_target(seq16, steps, "host")
    fw, _ = run_steps_on_target(seq16, steps, "mps2-an505", out_dir=tmp_path / "s16")
    assert [[a.tobytes() for a in h] for h in host] == [[np.asarray(b).tobytes() for b in f] for f in fw]
