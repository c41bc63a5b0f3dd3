"""ExecuTorch's own q/dq programs run on Mote.

A model is quantized with ExecuTorch's flow (its XNNPACKQuantizer, torchao's
prepare_pt2e / calibrate / convert_pt2e) and lowered with plain
``executorch.exir.to_edge(...).to_executorch()`` -- no partitioner, so the
program keeps ``quantized_decomposed::quantize_per_tensor.out`` /
``dequantize_per_tensor.out`` / ``dequantize_per_channel.out`` (static) or
``choose_qparams.Tensor_out`` / ``quantize_per_tensor.Tensor_out`` /
``dequantize_per_tensor.Tensor_out`` (dynamic) and runs the float ops between
them in fp32. Mote (aot.host.runtime.Program on libmote.so) runs the .pte and is
compared with ExecuTorch's runtime (pybindings portable_lib) and with the
converted module in eager PyTorch; the new kernels are also compared op by op
with torch's reference (dequantize_per_channel) and ExecuTorch's own kernels
(choose_qparams, the .Tensor_out q/dq).

ExecuTorch's side runs in a subprocess (this file run as a script): loading
``executorch.kernels.quantized`` (needed for the .out variants and their
runtime kernels) defines ``quantized_decomposed::*.out`` schemas in C++, and
if ``aot.compiler.mote_ops`` has already defined the same .out overloads in the
process (it does so when ExecuTorch's library is absent) the library's static
registration throws during dlopen and the process aborts. A pytest session
that imported aot.compiler.mote_ops first would die, so the oracle gets its own process.

Accuracy contract:
- programs whose float ops between q/dq are elementwise (add, relu, ...):
  every output element is bit-identical to ExecuTorch's runtime (one IEEE
  rounding per op in both runtimes, and the q/dq kernels compute the same
  formula);
- programs with convolution / linear: within 1 quantum of the output scale
  (observed: bit-identical to ExecuTorch's runtime on every case here; eager
  differs by one quantum in one element). The fp32 convolution/addmm sum in a
  different order in Mote's blocked GEMM than in ExecuTorch's portable kernels
  (or oneDNN/MKL in eager), so a sum that lies within float rounding of a
  rounding boundary of the next quantize_per_tensor may land in the
  neighbouring integer; the q/dq arithmetic itself is the same formula;
- float outputs (softmax after dequantize, dynamic quantization's addmm
  output): a few ulp (expf, summation order).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

MODELS = ("eltwise", "cnn_per_tensor", "cnn_per_channel", "mlp_softmax", "mlp_dynamic")


# --------------------------------------------------------------------------- oracle (subprocess)

def _oracle_models():
    import torch
    from torch import nn

    class Eltwise(nn.Module):
        def forward(self, x, y):
            return torch.relu(x + y) + x

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
            self.fc = nn.Linear(8 * 4 * 4, 10)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            y = torch.relu(self.conv2(y))
            return self.fc(y.flatten(1))

    class MlpSoftmax(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(20, 32)
            self.fc2 = nn.Linear(32, 6)

        def forward(self, x):
            return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)

    g = torch.Generator().manual_seed(11)

    def rnd(*s):
        return torch.randn(*s, generator=g)

    torch.manual_seed(5)
    return {
        # name: (module, per_channel, calibration input maker[, dynamic])
        "eltwise": (Eltwise(), False, lambda: (rnd(2, 3, 5, 4), rnd(2, 3, 5, 4))),
        "cnn_per_tensor": (Cnn(), False, lambda: (rnd(2, 3, 8, 8),)),
        "cnn_per_channel": (Cnn(), True, lambda: (rnd(2, 3, 8, 8),)),
        "mlp_softmax": (MlpSoftmax(), True, lambda: (rnd(4, 20),)),
        # dynamic activations: choose_qparams + q/dq .Tensor_out (scale, zero point as tensors)
        "mlp_dynamic": (MlpSoftmax(), True, lambda: (rnd(4, 20) * 3,), True),
    }


def _qparam_inputs():
    """Inputs for choose_qparams: ordinary ranges and the edge cases of its algorithm."""
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(50) * s for s in (0.01, 1.0, 7.0, 300.0)]
    xs += [np.zeros(5), np.full(4, 2.5), np.full(4, -2.5), rng.random(9) + 1.0, -rng.random(9) - 1.0,
           np.array([1e-6, 1e-6]), np.array([-1e-6, -2e-6]), np.array([1e-6, -1e-6]),
           np.array([3e-7, -1e-6, 5e-7]), np.array([0.001, 0.002]), np.array([-1e30, 1e30]),
           np.array([1e-40, 0.0]), np.array([7.0]), np.array([-1.0, 2.0]), np.array([-1.0, 254.0])]
    return [x.astype(np.float32) for x in xs]


QRANGES = ((-128, 127, "int8"), (0, 255, "uint8"), (-127, 127, "int8"))


def _oracle(outdir: Path) -> None:
    """Quantize, lower and run every model with ExecuTorch; write .pte + .npz + ops."""
    import executorch.kernels.quantized  # noqa: F401  q/dq .out variants + their kernels
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from executorch.exir import to_edge
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    meta = {}
    for name, (mod, per_channel, make, *dynamic) in _oracle_models().items():
        mod = mod.eval()
        example = make()
        gm = torch.export.export(mod, example).module(check_guards=False)
        quantizer = XNNPACKQuantizer().set_global(
            get_symmetric_quantization_config(is_per_channel=per_channel, is_dynamic=bool(dynamic)))
        prepared = prepare_pt2e(gm, quantizer)
        for _ in range(8):
            prepared(*make())
        converted = convert_pt2e(prepared)
        prog = to_edge(torch.export.export(converted, example)).to_executorch()
        (outdir / f"{name}.pte").write_bytes(prog.buffer)
        plan = prog.executorch_program.execution_plan[0]
        ops = [f"{o.name}.{o.overload}" for o in plan.operators]
        # output scale: the last quantize_per_tensor of the graph (None after softmax)
        out_scale = None
        for node in converted.graph.nodes:
            if node.op == "call_function" and "quantize_per_tensor" in str(node.target) \
                    and "dequantize" not in str(node.target) and isinstance(node.args[1], float):
                out_scale = float(node.args[1])
        last = list(converted.graph.nodes)[-2]  # the node feeding `output`
        if "dequantize_per_tensor" not in str(getattr(last, "target", "")):
            out_scale = None
        et = _load_for_executorch_from_buffer(prog.buffer)
        arrays = {}
        for k in range(3):  # three fresh inputs, not the calibration ones
            xs = make()
            got = et.forward(tuple(xs))
            want = converted(*xs)
            want = want if isinstance(want, (tuple, list)) else (want,)
            for i, x in enumerate(xs):
                arrays[f"in_{k}_{i}"] = x.numpy()
            for i, (a, b) in enumerate(zip(got, want)):
                arrays[f"et_{k}_{i}"] = a.numpy()
                arrays[f"eager_{k}_{i}"] = b.detach().numpy()
        np.savez(outdir / f"{name}.npz", **arrays)
        meta[name] = {"ops": ops, "out_scale": out_scale, "num_inputs": len(example)}
    (outdir / "meta.json").write_text(json.dumps(meta, indent=1))

    # ExecuTorch's own kernels (its AOT library) on choose_qparams and the .Tensor_out q/dq
    ns = torch.ops.quantized_decomposed
    arrays = {}
    for i, x in enumerate(_qparam_inputs()):
        t = torch.from_numpy(x)
        for j, (qmin, qmax, dt) in enumerate(QRANGES):
            dtype = getattr(torch, dt)
            s_, z_ = torch.empty(1, dtype=torch.float64), torch.empty(1, dtype=torch.int64)
            ns.choose_qparams.Tensor_out(t, qmin, qmax, 2.0 ** -12, dtype, scale_out=s_, zero_point_out=z_)
            q = torch.empty(t.shape, dtype=dtype)
            ns.quantize_per_tensor.Tensor_out(t, s_, z_, qmin, qmax, dtype, out=q)
            y = torch.empty(t.shape)
            ns.dequantize_per_tensor.Tensor_out(q, s_, z_, qmin, qmax, dtype, out=y)
            arrays[f"x_{i}"] = x
            arrays[f"scale_{i}_{j}"], arrays[f"zp_{i}_{j}"] = s_.numpy(), z_.numpy()
            arrays[f"q_{i}_{j}"], arrays[f"dq_{i}_{j}"] = q.numpy(), y.numpy()
    np.savez(outdir / "qparams.npz", **arrays)


# --------------------------------------------------------------------------- tests

@pytest.fixture(scope="module")
def et_programs(host_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("et_quantized")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), str(out)], capture_output=True,
                       text=True, timeout=900, env=env)
    assert r.returncode == 0, f"ExecuTorch oracle failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    return out, json.loads((out / "meta.json").read_text())


def _cases(d: Path, name: str, meta: dict):
    with np.load(d / f"{name}.npz") as z:
        for k in range(3):
            ins = [z[f"in_{k}_{i}"] for i in range(meta["num_inputs"])]
            yield ins, z[f"et_{k}_0"], z[f"eager_{k}_0"]


def _quanta(a, b, scale):
    return np.abs(a.astype(np.float64) - b.astype(np.float64)) / scale


@pytest.mark.oracle  # ExecuTorch made the programs and the reference outputs
def test_programs_keep_the_decomposed_qdq_ops(et_programs):
    """The oracle really made undelegated q/dq programs (what this test is about)."""
    _, meta = et_programs
    for name in MODELS:
        ops = meta[name]["ops"]
        ov = "Tensor_out" if name == "mlp_dynamic" else "out"
        assert f"quantized_decomposed::quantize_per_tensor.{ov}" in ops, (name, ops)
        assert f"quantized_decomposed::dequantize_per_tensor.{ov}" in ops, (name, ops)
        assert not any(o.startswith("aten::") and "quantized" in o for o in ops)
    assert "quantized_decomposed::choose_qparams.Tensor_out" in meta["mlp_dynamic"]["ops"]
    assert "quantized_decomposed::dequantize_per_channel.out" in meta["cnn_per_channel"]["ops"]
    assert "quantized_decomposed::dequantize_per_channel.out" not in meta["cnn_per_tensor"]["ops"]
    assert "aten::_softmax.out" in meta["mlp_softmax"]["ops"]
    assert "aten::convolution.out" in meta["cnn_per_channel"]["ops"]


@pytest.mark.oracle  # ExecuTorch made the programs and the reference outputs
def test_eltwise_is_bit_exact(et_programs):
    from aot.host.runtime import Program

    d, meta = et_programs
    m = Program(d / "eltwise.pte").method("forward")
    for ins, et, eager in _cases(d, "eltwise", meta["eltwise"]):
        got = m.run(ins)[0]
        assert got.dtype == np.float32 and got.shape == et.shape
        assert np.array_equal(got.view(np.uint32), et.view(np.uint32))
        assert np.array_equal(got.view(np.uint32), eager.view(np.uint32))
        assert len(np.unique(got)) > 8  # a real signal, not a constant


@pytest.mark.oracle  # ExecuTorch made the programs and the reference outputs
@pytest.mark.parametrize("name", ["cnn_per_tensor", "cnn_per_channel"])
def test_conv_linear_within_one_quantum(et_programs, name):
    from aot.host.runtime import Program

    d, meta = et_programs
    scale = meta[name]["out_scale"]
    assert scale is not None and scale > 0
    m = Program(d / f"{name}.pte").method("forward")
    exact = total = 0
    for ins, et, eager in _cases(d, name, meta[name]):
        got = m.run(ins)[0]
        assert got.dtype == np.float32 and got.shape == et.shape == (2, 10)
        for ref in (et, eager):
            q = _quanta(got, ref, scale)
            # outputs sit on the output grid: differences are whole quanta
            assert np.allclose(q, np.round(q), atol=1e-3), q
            assert q.max() <= 1.0 + 1e-3, (name, q.max())
        exact += int(np.sum(got == et))
        total += got.size
        assert np.abs(got).max() > 10 * scale  # not all-zero
    # off-by-one is a rare rounding-boundary event, not the norm
    assert exact >= 0.9 * total, (exact, total)


@pytest.mark.oracle  # ExecuTorch made the programs and the reference outputs
def test_softmax_after_dequantize(et_programs):
    """fp32 softmax fed by dequantized int8 logits: the quantized part is
    identical; the softmax differs from ExecuTorch's at most by float rounding."""
    from aot.host.runtime import Program

    d, meta = et_programs
    m = Program(d / "mlp_softmax.pte").method("forward")
    for ins, et, eager in _cases(d, "mlp_softmax", meta["mlp_softmax"]):
        got = m.run(ins)[0]
        assert got.shape == et.shape == (4, 6)
        np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-5)
        # a few ulp: expf and the 1/sum multiply round differently from ATen's
        np.testing.assert_allclose(got, et, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(got, eager, rtol=1e-6, atol=1e-7)
        assert got.max() - got.min() > 0.05


@pytest.mark.oracle  # ExecuTorch made the programs and the reference outputs
def test_dynamic_quantization_program(et_programs):
    """choose_qparams.Tensor_out + quantize/dequantize_per_tensor.Tensor_out at run time,
    per-channel int8 weights, fp32 addmm: the activations' scale / zero point and
    int8 values match ExecuTorch's exactly (checked op by op below), so the float
    outputs differ only by addmm's summation order (a few ulp), far below one
    quantum of the activations."""
    from aot.host.runtime import Program

    d, meta = et_programs
    m = Program(d / "mlp_dynamic.pte").method("forward")
    for ins, et, eager in _cases(d, "mlp_dynamic", meta["mlp_dynamic"]):
        got = m.run(ins)[0]
        assert got.shape == et.shape == (4, 6)
        np.testing.assert_allclose(got, et, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-7)
        assert got.max() - got.min() > 0.05


@pytest.mark.oracle  # ExecuTorch made the programs and the reference outputs
def test_choose_qparams_and_tensor_qdq_match_executorch_kernels(et_programs, K):
    """Mote's kernels against ExecuTorch's own (its AOT library, in the oracle
    process), bit for bit, on ordinary inputs and the algorithm's edge cases
    (all zero, one-signed, ranges below the 6.1e-5 scale floor, huge ranges)."""
    import torch

    from tests.kernels.kernels_ffi import DTYPE

    d, _ = et_programs
    ns = "quantized_decomposed::"
    with np.load(d / "qparams.npz") as z:
        n = len([k for k in z.files if k.startswith("x_")])
        assert n >= 15
        for i in range(n):
            x = torch.from_numpy(z[f"x_{i}"])
            for j, (qmin, qmax, dt) in enumerate(QRANGES):
                dtype = getattr(torch, dt)
                s_, zp = torch.full((1,), float("nan"), dtype=torch.float64), torch.full((1,), -7, dtype=torch.int64)
                assert K.call(ns + "choose_qparams.Tensor_out", x, qmin, qmax, 2.0 ** -12, DTYPE[dtype], s_, zp) == 0
                assert s_.numpy().view(np.uint64)[0] == z[f"scale_{i}_{j}"].view(np.uint64)[0], \
                    (i, j, s_.item(), z[f"scale_{i}_{j}"])
                assert zp.item() == z[f"zp_{i}_{j}"][0], (i, j, zp.item(), z[f"zp_{i}_{j}"])
                q = torch.empty(x.shape, dtype=dtype)
                assert K.call(ns + "quantize_per_tensor.Tensor_out", x, s_, zp, qmin, qmax, DTYPE[dtype], q) == 0
                np.testing.assert_array_equal(q.numpy(), z[f"q_{i}_{j}"])
                y = torch.full(x.shape, float("nan"))
                assert K.call(ns + "dequantize_per_tensor.Tensor_out", q, s_, zp, qmin, qmax, DTYPE[dtype], None,
                              y) == 0
                assert np.array_equal(y.numpy().view(np.uint32), z[f"dq_{i}_{j}"].view(np.uint32))


def test_tensor_qparams_kernels_reject_bad_arguments(K):
    import torch

    from tests.kernels.kernels_ffi import DTYPE, ERR

    ns = "quantized_decomposed::"
    i8 = DTYPE[torch.int8]
    x = torch.randn(5)
    s_, zp = torch.empty(1, dtype=torch.float64), torch.empty(1, dtype=torch.int64)
    cq = ns + "choose_qparams.Tensor_out"
    assert K.call(cq, x, -128, 127, 1e-3, i8, s_, zp) == 0 and s_.item() > 0
    assert K.call(cq, x, -128, 127, 1e-3, i8, s_) == ERR["ARGS"]
    assert K.call(cq, x, 127, -128, 1e-3, i8, s_, zp) == ERR["ARGS"]             # qmin >= qmax
    assert K.call(cq, torch.tensor([1.0, float("nan")]), -128, 127, 1e-3, i8, s_, zp) == ERR["ARGS"]
    assert K.call(cq, torch.empty(0), -128, 127, 1e-3, i8, s_, zp) == ERR["SHAPE"]
    assert K.call(cq, x, -128, 127, 1e-3, i8, torch.empty(1), zp) == ERR["DTYPE"]  # scale_out not float64
    assert K.call(cq, x, -128, 127, 1e-3, i8, s_, torch.empty(2, dtype=torch.int64)) == ERR["SHAPE"]
    qt, dqt = ns + "quantize_per_tensor.Tensor_out", ns + "dequantize_per_tensor.Tensor_out"
    q = torch.empty(5, dtype=torch.int8)
    assert K.call(qt, x, s_, zp, -128, 127, i8, q) == 0
    assert K.call(qt, x, s_, zp, -128, 127, i8, torch.empty(5, dtype=torch.uint8)) == ERR["DTYPE"]
    assert K.call(qt, x, s_, zp, -128, 300, i8, q) == ERR["ARGS"]                 # qmax beyond int8
    assert K.call(qt, x, s_, torch.zeros(2, dtype=torch.int64), -128, 127, i8, q) == ERR["SHAPE"]
    assert K.call(qt, x, s_, torch.full((1,), 1 << 40), -128, 127, i8, q) == ERR["ARGS"]
    assert K.call(qt, x, torch.zeros(1, dtype=torch.float64), zp, -128, 127, i8, q) == ERR["ARGS"]
    assert K.call(qt, x, s_, zp, -128, 127, i8, torch.empty(4, dtype=torch.int8)) == ERR["SHAPE"]
    y = torch.empty(5)
    assert K.call(dqt, q, s_, zp, -128, 127, i8, None, y) == 0
    assert K.call(dqt, q, s_, zp, -128, 127, i8, DTYPE[torch.float64], y) == ERR["DTYPE"]
    assert K.call(dqt, q, s_, zp, -128, 127, DTYPE[torch.uint8], None, y) == ERR["DTYPE"]
    assert K.call(dqt, q, s_, zp, -128, 127, i8, None) == ERR["ARGS"]


# --------------------------------------------------------------------------- the new kernel alone

@pytest.fixture(scope="module")
def K():
    from tests.kernels.kernels_ffi import Kernels, build_lib

    return Kernels(build_lib())


DQC = "quantized_decomposed::dequantize_per_channel.out"


@pytest.mark.parametrize("shape,axis", [((6, 3, 2, 2), 0), ((2, 5, 3), 1), ((2, 3, 7), -1), ((4, 2, 3), 2),
                                        ((9,), 0)])
@pytest.mark.parametrize("qdtype", ["int8", "uint8", "int16", "int32"])
@pytest.mark.parametrize("zp_kind", ["int64", "int32", "none"])
@pytest.mark.parametrize("scale_dtype", ["float32", "float64"])
def test_dequantize_per_channel_kernel_matches_torch(K, shape, axis, qdtype, zp_kind, scale_dtype):
    """Bit-identical to torch's reference (the function ExecuTorch's op mirrors)."""
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (functional reference)

    qd = getattr(torch, qdtype)
    info = torch.iinfo(qd)
    lo, hi = max(info.min, -40000), min(info.max, 40000)
    g = torch.Generator().manual_seed(len(shape) * 7 + axis)
    q = torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(qd)
    c = shape[axis]
    scales = (torch.rand(c, generator=g, dtype=torch.float64) * 0.1 + 1e-3).to(getattr(torch, scale_dtype))
    zps = None if zp_kind == "none" else torch.randint(-20, 21, (c,), generator=g).to(getattr(torch, zp_kind))
    ref = torch.ops.quantized_decomposed.dequantize_per_channel(
        q, scales, None if zps is None else zps.to(torch.int64), axis, info.min, info.max, qd)
    from tests.kernels.kernels_ffi import DTYPE

    out = torch.full(shape, float("nan"))
    assert K.call(DQC, q, scales, zps, axis, info.min, info.max, DTYPE[qd], None, out) == 0
    assert out.dtype == ref.dtype == torch.float32
    assert torch.equal(out.view(torch.int32), ref.view(torch.int32))
    # out_dtype = float32 spelled out is accepted too
    out2 = torch.full(shape, float("nan"))
    assert K.call(DQC, q, scales, zps, axis, info.min, info.max, DTYPE[qd], DTYPE[torch.float32], out2) == 0
    assert torch.equal(out2, out)


def test_dequantize_per_channel_kernel_rejects_bad_arguments(K):
    import torch

    from tests.kernels.kernels_ffi import DTYPE, ERR

    q = torch.randint(-128, 128, (4, 3), dtype=torch.int8)
    s = torch.full((4,), 0.5)
    z = torch.zeros(4, dtype=torch.int64)
    out = torch.empty(4, 3)
    ok = (q, s, z, 0, -128, 127, DTYPE[torch.int8], None, out)
    assert K.call(DQC, *ok) == 0
    assert torch.equal(out, q.float() * 0.5)

    def bad(i, v):
        a = list(ok)
        a[i] = v
        return K.call(DQC, *a)

    assert K.call(DQC, *ok[:-1]) == ERR["ARGS"]                       # argument count
    assert K.call(DQC, *([None] * 9)) == ERR["ARGS"]
    assert bad(3, 2) == ERR["ARGS"] and bad(3, -3) == ERR["ARGS"]      # axis out of range
    assert bad(3, 0.5) == ERR["ARGS"]                                  # axis not an int
    assert bad(1, torch.full((3,), 0.5)) == ERR["SHAPE"]               # scales length != channels
    assert bad(1, torch.full((4, 1), 0.5)) == ERR["SHAPE"]
    assert bad(2, torch.zeros(3, dtype=torch.int64)) == ERR["SHAPE"]
    assert bad(2, torch.full((4,), 1 << 40, dtype=torch.int64)) == ERR["ARGS"]  # zp beyond int32
    assert bad(1, torch.full((4,), 1, dtype=torch.int32)) == ERR["DTYPE"]       # integer scales
    assert bad(2, torch.zeros(4)) == ERR["DTYPE"]                      # float zero points
    assert bad(6, DTYPE[torch.uint8]) == ERR["DTYPE"]                         # dtype != input's dtype
    assert bad(6, DTYPE[torch.float32]) == ERR["DTYPE"]
    assert bad(7, DTYPE[torch.float64]) == ERR["DTYPE"]                       # out_dtype not float32
    assert bad(8, torch.empty(4, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert bad(8, torch.empty(3, 4)) == ERR["SHAPE"]
    assert bad(0, torch.tensor(3, dtype=torch.int8)) == ERR["ARGS"]    # 0-dim input has no channels


# --------------------------------------------------------------------------- .to(dtype) in ET programs

CAST_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64", "bool"]


def _cast_source(src, dst, g):
    """Values of dtype src whose conversion to dst torch defines (no NaN / out-of-range float)."""
    import torch

    sd, dd = getattr(torch, src), getattr(torch, dst)
    if sd == torch.bool:
        return torch.rand(40, generator=g) > 0.5
    if sd.is_floating_point:
        if dd.is_floating_point or dd == torch.bool:
            x = torch.randn(40, generator=g, dtype=torch.float64) * 1e3
            x[:4] = torch.tensor([0.0, -0.0, 1e-300, 3.4e38])
            return x.to(sd)
        info = torch.iinfo(dd)
        lo, hi = max(info.min, -2.0 ** 40), min(info.max, 2.0 ** 40)
        x = torch.rand(40, generator=g, dtype=torch.float64) * (hi - lo) + lo
        # near both ends
        x[:6] = torch.tensor([lo, (hi - 1) if sd == torch.float64 or hi < 2 ** 24 else lo, -0.99, 0.99, -0.5, 2.5],
                             dtype=torch.float64)
        return x.to(sd)
    info = torch.iinfo(sd)
    x = torch.randint(max(info.min, -2 ** 62), min(info.max, 2 ** 62), (40,), generator=g, dtype=torch.int64)
    x[:3] = torch.tensor([info.min, info.max, 0])
    if sd == torch.int64:
        x[3] = 2 ** 53 + 1  # rounds when converted to float
    return x.to(sd)


@pytest.mark.parametrize("src", CAST_DTYPES)
@pytest.mark.parametrize("dst", CAST_DTYPES)
def test_to_dim_order_copy_kernel_matches_torch(K, src, dst):
    import torch

    g = torch.Generator().manual_seed(CAST_DTYPES.index(src) * 8 + CAST_DTYPES.index(dst))
    x = _cast_source(src, dst, g).reshape(5, 8)
    want = x.to(getattr(torch, dst))
    out = torch.empty_like(want)
    assert K.call("dim_order_ops::_to_dim_order_copy.out", x, False, [0, 1], out) == 0
    assert torch.equal(out, want), (src, dst, x, out, want)
    out2 = torch.empty_like(want)
    assert K.call("dim_order_ops::_to_dim_order_copy.out", x, False, None, out2) == 0
    assert torch.equal(out2, want)


def test_to_dim_order_copy_kernel_edges_and_errors(K):
    import torch

    from tests.kernels.kernels_ffi import ERR

    op = "dim_order_ops::_to_dim_order_copy.out"
    x = torch.tensor([float("nan"), 1e10, -1e10, float("inf"), -float("inf"), 200.7, -200.7])
    for dt, lo, hi in ((torch.int8, -128, 127), (torch.uint8, 0, 255), (torch.int32, -2 ** 31, 2 ** 31 - 1),
                       (torch.int64, -2 ** 63, 2 ** 63 - 1)):
        out = torch.empty(7, dtype=dt)
        assert K.call(op, x, False, None, out) == 0
        # NaN -> 0; out of range saturates (C leaves these undefined)
        big = 10 ** 10 if dt == torch.int64 else hi  # 1e10 fits in int64
        want = [0, big, -big if dt == torch.int64 else lo, hi, lo, min(200, hi), max(-200, lo)]
        assert out.tolist() == want, (dt, out.tolist())
        # aten::_to_copy converts through the same helper (one home for casts)
        out2 = torch.empty(7, dtype=dt)
        assert K.call("aten::_to_copy.out", x, False, None, out2) == 0
        assert out2.tolist() == want, (dt, out2.tolist())
    assert K.call(op, torch.tensor([float("nan"), 0.0, -0.0]), False, None, out := torch.empty(3, dtype=torch.bool)) == 0
    assert out.tolist() == [True, False, False]
    y = torch.zeros(2, 3)
    assert K.call(op, torch.zeros(2, 3, dtype=torch.int32), False, [1, 0], y) == ERR["ARGS"]  # channels-last
    assert K.call(op, torch.zeros(2, 3, dtype=torch.int32), False, [0], y) == ERR["ARGS"]
    assert K.call(op, torch.zeros(2, 3, dtype=torch.int32), False, None) == ERR["ARGS"]
    assert K.call(op, torch.zeros(3, 2, dtype=torch.int32), False, None, y) == ERR["SHAPE"]
    assert K.call(op, torch.zeros(2, 3, dtype=torch.float16), False, None, y) == ERR["DTYPE"]
    assert K.call(op, torch.zeros(2, 3), False, None, torch.zeros(2, 3, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.oracle  # ExecuTorch's to_edge made the program
def test_program_with_dtype_conversions(tmp_path):
    """ExecuTorch lowers .to(dtype) to dim_order_ops::_to_dim_order_copy.out."""
    import torch
    from torch import nn

    from aot.host.runtime import Program

    import _harness as H

    class Casts(nn.Module):
        def forward(self, x, i):
            return (x.to(torch.int32) + i).to(torch.float32) * x, x.to(torch.uint8), i.to(torch.float64)

    g = torch.Generator().manual_seed(4)
    x = torch.rand(3, 5, generator=g) * 200 + 0.5
    i = torch.randint(-1000, 1000, (3, 5), generator=g, dtype=torch.int32)
    pte = H.export_pte(Casts(), (x, i), tmp_path / "casts.pte")
    m = Program(pte).method("forward")
    got = m.run([x.numpy(), i.numpy()])
    want = Casts()(x, i)
    assert [a.dtype for a in got] == [np.float32, np.uint8, np.float64]
    for a, b in zip(got, want):
        assert np.array_equal(a, b.numpy())


if __name__ == "__main__":
    _oracle(Path(sys.argv[1]))
