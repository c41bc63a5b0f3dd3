"""Recurrent layers (nn.LSTM, nn.GRU, nn.LSTMCell, nn.GRUCell) compile and run
fp32 on the host runtime within 1e-5 of eager PyTorch. They lower to
split_with_sizes_copy (a Tensor[] out) plus addmm / sigmoid / tanh / mul /
add and the shape copies; the cases live in op_cases_shape.RECURRENT."""
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import op_cases  # noqa: E402,F401  (merges the families first)
import op_cases_shape  # noqa: E402

from aot.compiler.pipeline import compile_module  # noqa: E402
from aot.host.runtime import Program  # noqa: E402

pytestmark = pytest.mark.slow


def _flat(xs) -> list:
    out = []
    for x in xs:
        out += _flat(x) if isinstance(x, (tuple, list)) else [x]
    return out


@pytest.mark.parametrize("name", sorted(op_cases_shape.RECURRENT))
def test_recurrent_layer_runs_like_eager(name):
    make, inputs = op_cases_shape.RECURRENT[name]
    module = make()
    c = compile_module(name, module, inputs)
    ops = {f"{i.op}.{i.overload}" for i in c.spec.instructions}
    assert "aten::split_with_sizes_copy.out" in ops
    got = Program(c.pte).method().run([x.numpy() for x in _flat(inputs)])
    with torch.no_grad():
        want = _flat([module(*inputs)])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.shape == w.shape
        assert float(np.max(np.abs(g - w)) / max(np.max(np.abs(w)), 1e-12)) <= 1e-5, name
