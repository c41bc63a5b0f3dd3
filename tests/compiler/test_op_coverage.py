"""One source of truth for what the runtime can run (issue "Foundation" §2).

The compiler's operator set is read from the kernel files; every operator it
can emit is compiled here from a small PyTorch model, checked by the compiler
against the host build of the kernels (aot.compiler.accept) and run on the host
runtime against eager PyTorch. Calls a kernel refuses fail at export, naming the
operator and the model's file:line, and write nothing.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import op_cases  # noqa: E402

from aot.compiler.kernels import in_place_ops, kernel_files, portable_ops  # noqa: E402
from aot.compiler.ops import supported_ops  # noqa: E402
from aot.compiler.pipeline import compile_model_file, compile_module  # noqa: E402
from aot.errors import UnsupportedOpError  # noqa: E402
from aot.host.runtime import Program  # noqa: E402

pytestmark = pytest.mark.slow


def _ops(compiled) -> set:
    return {f"{c.op}.{c.overload}" for c in compiled.spec.instructions}


def _max_rel(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12))


def test_every_operator_with_a_kernel_has_a_case():
    cases = (set(op_cases.FP32) | set(op_cases.INT8) | set(op_cases.INT8_PLANAR) | set(op_cases.INT8_NCHW) | set(op_cases.INT4X8) | set(op_cases.INT16)
             | set(op_cases.INT8_RNN) | set(op_cases.INT8_STATE) | op_cases.EXECUTORCH_ONLY)
    assert supported_ops() - cases == set(), "a kernel without a case in tests/compiler/op_cases*.py"
    assert cases - supported_ops() == set(), "a case for an operator without a kernel"


def test_operator_set_is_read_from_the_kernel_files(tmp_path):
    kernels = kernel_files()
    assert "aten::div.Scalar_out" in kernels and kernels["aten::div.Scalar_out"].name == "op_div_scalar.c"
    assert portable_ops() == frozenset(kernels) | {"executorch_prim::et_view.default"}
    # in-place reuse is declared by the kernels too
    assert "aten::relu.out" in in_place_ops() and "aten::convolution.out" not in in_place_ops()


@pytest.mark.parametrize("op", sorted(op_cases.FP32))
def test_fp32_operator_compiles_and_runs(op):
    make, inputs = op_cases.FP32[op]
    module = make().eval()
    c = compile_module(op.replace("::", "_"), module, inputs)
    assert op in _ops(c)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])
    with torch.no_grad():
        want = module(*inputs)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        assert _max_rel(g, w.numpy()) <= 1e-5, op


def test_int8_operators_compile_and_run():
    make, inputs = op_cases.INT8_MODEL
    module = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module("int8_ops", module, inputs, int8=True)
    assert set(op_cases.INT8) <= _ops(c)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    with torch.no_grad():
        want = c.reference(*inputs).numpy()
    assert np.max(np.abs(got - want)) <= 1.0 / 256 + 1e-7  # softmax output quantum


def test_int8_recurrent_cells_compile_and_run():
    """nn.LSTM and nn.GRU under --int8: one cell op per step, the host's output bytes equal
    to the integer reference's (aot.compiler.quant.recurrentref, through Compiled.reference)."""
    make, inputs = op_cases.INT8_RNN_MODEL
    module = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module("int8_rnn", module, inputs, int8=True)
    assert set(op_cases.INT8_RNN) <= _ops(c)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    with torch.no_grad():
        want = c.reference(*inputs).numpy()
    assert np.array_equal(got, want)


def test_int8_window_compiles_and_runs_with_its_state():
    """An int8 window updated in place: the host's bytes equal the integer reference's
    (the lowered program, its own state carried) call after call."""
    import copy
    make, inputs = op_cases.INT8_STATE_MODEL
    calib = [(torch.randn(1, 4, 1, generator=torch.Generator().manual_seed(k)),) for k in range(8)]
    c = compile_module("int8_state", make(), inputs, int8=True, calibration=calib)
    assert set(op_cases.INT8_STATE) <= _ops(c)
    method, lowered = Program(c.pte).method(), copy.deepcopy(c.program).module()
    with torch.no_grad():
        for (x,) in calib[:4]:
            assert np.array_equal(method.run([x.numpy()])[0], lowered(x).numpy())


def test_int8_planar_operators_compile_and_run_as_their_nhwc_pair():
    """--layout planar turns a pointwise -> depthwise pair into the planar int16 ops;
    the program's output bytes are the NHWC program's."""
    make, inputs = op_cases.INT8_PLANAR_MODEL
    module = make()
    out = {}
    for layout in ("planar", "nhwc"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = compile_module(f"planar_{layout}", module, inputs, int8=True, calibration=[inputs], layout=layout)
        assert (set(op_cases.INT8_PLANAR) <= _ops(c)) == (layout == "planar")
        out[layout] = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    assert np.any(out["nhwc"] != 0)
    assert out["planar"].tobytes() == out["nhwc"].tobytes()


def test_int8_nchw_stem_compiles_and_runs_as_the_nhwc_stem():
    """With DSP weights the RGB stem reads the NCHW input (no permute_copy before it);
    the program's output bytes are those of the program without DSP weights."""
    make, inputs = op_cases.INT8_NCHW_MODEL
    module = make()
    out, permutes = {}, {}
    for dsp in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = compile_module(f"nchw_{dsp}", module, inputs, int8=True, calibration=[inputs], dsp_weights=dsp)
        assert (set(op_cases.INT8_NCHW) <= _ops(c)) == dsp
        permutes[dsp] = sum(k.op == "aten::permute_copy" for k in c.spec.instructions)
        out[dsp] = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    assert permutes[True] == permutes[False] - 1  # the input's; the output's stays
    assert np.any(out[False] != 0)
    assert out[True].tobytes() == out[False].tobytes()


def _write_model(tmp_path, body: str, inputs: str) -> Path:
    f = tmp_path / "user_model.py"
    f.write_text("import torch\nfrom torch import nn\n\n\n" + body
                 + f"\n\ndef model():\n    return M().eval()\n\n\ndef example_inputs():\n    return {inputs}\n")
    return f


def test_a_call_the_kernel_refuses_fails_at_export_with_file_line(tmp_path):
    # a constant index out of range: torch.export does not look at values, the kernel does
    f = _write_model(tmp_path, "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.register_buffer('idx', torch.tensor([1, 9]))\n\n"
                     "    def forward(self, x):\n        return x[:, self.idx]\n",
                     "(torch.randn(2, 4),)")
    out = tmp_path / "out" / "m.pte"
    with pytest.raises(UnsupportedOpError) as e:
        compile_model_file(f, out_pte=out)
    msg = str(e.value)
    assert "aten::index.Tensor_out" in msg and "user_model.py:11" in msg and "MOTE_ERR_KERNEL_ARGS" in msg
    assert not out.parent.exists()


def test_transposed_convolution_runs(tmp_path):
    """nn.ConvTranspose2d was refused at export (transposed -> KERNEL_ARGS); it now runs."""
    f = _write_model(tmp_path, "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        torch.manual_seed(0)\n        self.up = nn.ConvTranspose2d(4, 2, 2, stride=2)\n\n"
                     "    def forward(self, x):\n        return self.up(x)\n",
                     "(torch.randn(1, 4, 5, 5),)")
    c = compile_model_file(f)
    assert "aten::convolution.out" in _ops(c)
    x = c.example_inputs[0]
    got = Program(c.pte).method().run([x.numpy()])[0]
    with torch.no_grad():
        want = c.eager(x).numpy()
    assert got.shape == want.shape == (1, 2, 10, 10)
    assert _max_rel(got, want) <= 1e-5


def test_x_over_scalar_runs(tmp_path):
    """`x / 6.0` (hardswish-like code, attention's / sqrt(d)) exported and then failed at init."""
    f = _write_model(tmp_path, "class M(nn.Module):\n    def forward(self, x):\n"
                     "        return x * torch.clamp(x + 3.0, 0.0, 6.0) / 6.0\n", "(torch.randn(2, 8),)")
    c = compile_model_file(f)
    assert "aten::div.Scalar_out" in _ops(c)
    x = c.example_inputs[0]
    got = Program(c.pte).method().run([x.numpy()])[0]
    want = (x * torch.clamp(x + 3.0, 0.0, 6.0) / 6.0).numpy()
    assert _max_rel(got, want) <= 1e-6


def test_unsupported_op_names_op_and_line(tmp_path):
    f = _write_model(tmp_path, "class M(nn.Module):\n    def forward(self, x):\n"
                     "        return torch.special.bessel_j0(x)\n", "(torch.randn(2, 8),)")
    with pytest.raises(UnsupportedOpError) as e:
        compile_model_file(f, out_pte=tmp_path / "o" / "m.pte")
    assert "bessel_j0" in str(e.value) and "user_model.py:7" in str(e.value)
    assert not (tmp_path / "o").exists()


def test_int4_x_int8_operators_compile_and_run():
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU()).eval()
    inputs = (torch.randn(2, 32, generator=torch.Generator().manual_seed(2)),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module("int4x8_ops", module, inputs, int8=True, int4_weights=32)
    assert set(op_cases.INT4X8) <= _ops(c)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    with torch.no_grad():
        want = c.reference(*inputs).numpy()
    scale = float(c.int8_info.output_qparams[0][0])
    assert np.max(np.abs(got - want)) <= scale * 1.001  # one output quantum of PT2E


def test_int16_activation_operators_compile_and_run():
    torch.manual_seed(0)
    module = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 10)).eval()
    inputs = (torch.randn(1, 3, 6, 6, generator=torch.Generator().manual_seed(3)),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compile_module("int16_ops", module, inputs, int8=True, int16_activations=True)
    assert set(op_cases.INT16) <= _ops(c)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    with torch.no_grad():  # the lowered graph: the s16 ops run aot/compiler/quant/int16ref.py
        want = c.program.module()(*inputs).numpy()
    assert np.array_equal(got, want)
