"""Issue 36: L2-normalised embeddings (F.normalize, torch.linalg.vector_norm) compile
in fp32 (aten::linalg_vector_norm.out, kernels/op_linalg_vector_norm.c) and, under
--int8, F.normalize's chain (vector_norm, clamp_min, expand_as, div) is a planned fp32
island: the embedding is quantized into it and the quotient out of it, no int8 tensor
stranded, no fallback warning."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from aot.compiler.pipeline import compile_module
from aot.host.runtime import Program

pytestmark = pytest.mark.slow


class Embed(nn.Module):
    """A verification embedding: Linear -> L2 normalisation (face / speaker models' head)."""

    def __init__(self, p=2.0):
        super().__init__()
        self.fc, self.p = nn.Linear(16, 8), p

    def forward(self, x):
        return F.normalize(self.fc(x), p=self.p, dim=-1)


class Norms(nn.Module):
    """vector_norm alone, by ord, dims and keepdim."""

    def forward(self, x):
        return (torch.linalg.vector_norm(x, dim=-1), torch.linalg.vector_norm(x, 1, (0, 2), keepdim=True),
                torch.linalg.vector_norm(x, float("inf"), 1), torch.linalg.vector_norm(x, 0.5))


def _x(*shape, seed=1):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _seeded(make):
    torch.manual_seed(0)
    return make().eval()


CALIB = [(_x(4, 16, seed=10 + i),) for i in range(8)]


@pytest.mark.parametrize("make,x", [(Embed, _x(4, 16)), (lambda: Embed(p=1.0), _x(4, 16)), (Norms, _x(3, 4, 5))],
                         ids=["normalize", "normalize_p1", "norms"])
def test_fp32_matches_eager(make, x):
    m = _seeded(make)
    c = compile_module("norm", m, (x,))
    assert "aten::linalg_vector_norm.out" in c.op_names
    got = Program(c.pte).method().run([x.numpy()])
    with torch.no_grad():
        want = m(x)
    want = (want,) if isinstance(want, torch.Tensor) else want
    for g, w in zip(got, want):
        w = w.numpy()
        # measured: normalize 1.2e-07, normalize_p1 6.0e-08, norms 0.0 (relative to max(1, max |w|))
        assert np.abs(g - w).max() <= 1e-6 * max(1.0, float(np.abs(w).max())), (g, w)


def _int8(m):
    from aot.compiler.quant.lowering import Int8FallbackWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error", Int8FallbackWarning)  # an island is no fallback
        return compile_module("embed", m, CALIB[0], int8=True, calibration=CALIB)


def test_int8_normalize_is_a_planned_island():
    c = _int8(_seeded(Embed))
    info = c.int8_info
    assert info.fallback_ops == []
    assert [k for k, _ in info.fp32_islands] == ["normalize"]
    assert info.fp32_islands[0][1] == f"test_vector_norm.py:{Embed.forward.__code__.co_firstlineno + 1}"
    assert c.op_names == ["aten::clamp.out", "aten::div.out", "aten::expand_copy.out",
                          "aten::linalg_vector_norm.out", "mote::linear_s8.out",
                          "quantized_decomposed::dequantize_per_tensor.out",
                          "quantized_decomposed::quantize_per_tensor.out"]


def test_int8_normalize_matches_pt2e_and_the_integer_reference():
    """Host bytes equal the lowered int8 program run eagerly (the Python reference, its
    island in torch's fp32) and the outputs are within a quantum of PT2E's."""
    from aot.compiler.quant.lowering import int8_program
    m = _seeded(Embed)
    c = _int8(m)
    method = Program(c.pte).method()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = int8_program(m, CALIB[0], CALIB).module()
    scale = c.int8_info.output_qparams[0][0]
    worst = 0.0
    for (x,) in CALIB + [(_x(4, 16, seed=99),)]:
        got = method.run([x.numpy()])[0]
        with torch.no_grad():
            assert got.tobytes() == ref(x).numpy().tobytes()
            worst = max(worst, float(np.abs(got - c.reference(x).numpy()).max()) / scale)
    assert worst <= 1.0 + 1e-3  # measured: 0.0 quanta on all nine inputs


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_int8_normalize_same_bytes_on_the_m33(tmp_path):
    from aot.tools.compare import compare
    c = _int8(_seeded(Embed))
    host = compare(c, "host", seed=5)
    board = compare(c, "mps2-an505", seed=5, out_dir=tmp_path)
    assert board["outputs_sha256"] == host["outputs_sha256"]
    assert board["pt2e_max_abs_error"] == host["pt2e_max_abs_error"]


class NormOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return torch.linalg.vector_norm(self.fc(x), dim=-1)


def test_int8_vector_norm_alone_is_an_island():
    m = _seeded(NormOnly)
    c = _int8(m)
    assert [k for k, _ in c.int8_info.fp32_islands] == ["vector_norm"] and c.int8_info.fallback_ops == []
    scale = c.int8_info.output_qparams[0][0]
    method = Program(c.pte).method()
    worst = max(float(np.abs(method.run([x.numpy()])[0] - c.reference(x).detach().numpy()).max()) / scale
                for (x,) in CALIB)
    assert worst <= 1.0 + 1e-3, worst  # measured: 0.0 quanta
