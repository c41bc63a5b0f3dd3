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


def _split_program():
    from op_cases import Fn, _r
    module = Fn(lambda x: tuple(t * 1.0 for t in torch.split(x, [1, 3], 1)))
    return compile_module("split", module, (_r(2, 4),))


def test_split_writes_planned_tensors_of_its_out_list():
    """A Tensor[] out is one TensorList of planned tensors; the call carries no return values."""
    from aot import ir
    c = _split_program()
    (call,) = [i for i in c.spec.instructions if i.op == "aten::split_with_sizes_copy"]
    outs = c.spec.values[call.args[-1]]
    assert isinstance(outs, ir.TensorListValue) and len(outs.items) == 2
    for k, sizes in zip(outs.items, ([2, 1], [2, 3])):
        t = c.spec.values[k]
        assert t.sizes == sizes and t.mem_id is not None and t.constant is None


def test_split_out_list_holding_a_constant_is_refused_at_init():
    """Malformed program: one tensor of split's out list is a program constant. Init's write
    proof (runtime/src/method_verify.c) refuses it before any kernel runs."""
    import copy

    from aot import ir
    from aot.compiler.emit import build_program
    from aot.errors import MoteError
    c = _split_program()
    spec = copy.deepcopy(c.spec)
    (call,) = [i for i in spec.instructions if i.op == "aten::split_with_sizes_copy"]
    k = spec.values[call.args[-1]].items[0]
    t = spec.values[k]
    spec.values[k] = ir.TensorValue(sizes=t.sizes, dtype=t.dtype, dim_order=t.dim_order,
                                    constant=bytes(t.nbytes), name=t.name)
    pte = build_program(spec).data
    with pytest.raises(MoteError) as e:
        Program(pte).method()
    assert "OUTPUT_NOT_WRITABLE" in str(e.value)


class _ConvGru(torch.nn.Module):
    """Issue 39's keyword model: Conv1d features, a GRU over 32 steps, a Linear head."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(40, 64, 3, padding=1)
        self.gru = torch.nn.GRU(64, 48, batch_first=True)
        self.fc = torch.nn.Linear(48, 12)

    def forward(self, x):
        y = torch.relu(self.conv(x)).transpose(1, 2)
        out, _ = self.gru(y)
        return self.fc(out[:, -1])


def test_gru_input_projection_is_not_folded_into_copies_of_its_weight():
    """The GRU's input projection (bmm by the weight broadcast over 32 steps) is one mm of
    the weight as it is: before, constant folding stored the broadcast, 1,179,648 B for a
    36,864 B weight (program 1,353,648 B for 98,992 B of weights)."""
    from aot.pte.reader import parse_pte
    torch.manual_seed(0)
    module = _ConvGru().eval()
    x = torch.randn(1, 40, 32)
    c = compile_module("conv_gru", module, (x,))
    weights = sum(p.numel() * 4 for p in module.parameters())
    assert parse_pte(c.pte).constants_bytes <= weights + 1024
    assert not any(i.op == "aten::bmm" for i in c.spec.instructions)
    got = Program(c.pte).method().run([x.numpy()])[0]
    with torch.no_grad():
        want = module(x).numpy()
    assert float(np.max(np.abs(got - want)) / np.max(np.abs(want))) <= 1e-5


def test_folding_never_stores_a_value_larger_than_its_weights():
    """`w.expand(...)` of a constant would fold into 8 copies of w: it runs at run time."""
    from op_cases import Fn
    from aot.pte.reader import parse_pte
    w = torch.randn(1, 16, 16)
    module = Fn(lambda x: x * w.expand(8, 16, 16))
    x = torch.randn(8, 16, 16)
    c = compile_module("expand", module, (x,))
    assert parse_pte(c.pte).constants_bytes <= w.numel() * 4 + 64
    got = Program(c.pte).method().run([x.numpy()])[0]
    np.testing.assert_allclose(got, (x * w).numpy(), rtol=1e-6)
