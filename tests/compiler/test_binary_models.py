"""Everyday model code of the "binary" family compiled and run end to end on
the host runtime against eager PyTorch: thresholds, where, causal masks,
powers, maximum, integer // and %, clamp with tensor bounds, mask logic."""
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from op_cases import Fn, _r  # noqa: E402

from aot.compiler.pipeline import compile_module  # noqa: E402
from aot.host.runtime import Program  # noqa: E402

pytestmark = pytest.mark.slow


class CausalAttention(nn.Module):
    def __init__(self, d=8, t=6):
        super().__init__()
        torch.manual_seed(0)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.t = t

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = q @ k.transpose(-2, -1) / 8 ** 0.5
        mask = torch.ones(self.t, self.t).tril() == 0
        scores = scores.masked_fill(mask, float("-inf"))
        return F.softmax(scores, -1) @ v


T = 6
MODELS = {
    "greater": (lambda x: x > 0.5, (_r(3, 4),)),
    "leaky_where": (lambda x: torch.where(x > 0, x, 0.1 * x), (_r(3, 4),)),
    "where_int_zero": (lambda x: torch.where(x > 0, x, 0), (_r(3, 4),)),
    "causal_mask": (lambda s: s.masked_fill(torch.ones(T, T).tril() == 0, float("-inf")), (_r(2, T, T),)),
    "square": (lambda x: x ** 2, (_r(3, 4),)),
    "sqrt_pow": (lambda x: (x * x + 1.0) ** 0.5, (_r(3, 4),)),
    "two_pow": (lambda x: 2 ** x, (_r(3, 4),)),
    "maximum": (lambda x, y: torch.maximum(x, y), (_r(3, 4), _r(4, seed=1))),
    "floordiv_int": (lambda x: x // 2, (torch.arange(-6, 6).reshape(3, 4),)),
    "mod_float": (lambda x: x % 3, (_r(3, 4) * 5,)),
    "mod_int": (lambda x: x % 3, (torch.arange(-6, 6).reshape(3, 4),)),
    "clamp_tensors": (lambda x, lo, hi: torch.clamp(x, lo, hi), (_r(3, 4), _r(4, seed=1) - 1, _r(4, seed=2) + 1)),
    "mask_and": (lambda a, b: (a > 0) & (b > 0), (_r(3, 4), _r(3, 4, seed=1))),
    "mask_or_xor": (lambda a, b: ((a > 0) | (b < 0)) ^ (a > b), (_r(3, 4), _r(3, 4, seed=1))),
    "one_minus": (lambda x: 1 - x, (_r(3, 4),)),
    "two_minus_alpha": (lambda x: torch.sub(2, x, alpha=3), (_r(3, 4),)),
    "shifts": (lambda x: (x << 3) + (x >> 1), (torch.arange(-6, 6).reshape(3, 4),)),
    "int_vs_float": (lambda x: x >= 1.5, (torch.arange(-3, 3, dtype=torch.int32),)),
    "eq_const": (lambda x: x == torch.tensor(0), (torch.arange(-3, 3).float(),)),
    "attention": (lambda: CausalAttention(8, T), (_r(1, T, 8),)),
    "where_scalars": (lambda x: torch.where(x > 0, 1.0, -0.5), (_r(3, 4),)),
    "prelu": (lambda: nn.PReLU(3), (_r(2, 3, 4),)),
    "threshold": (lambda: nn.Threshold(0.1, 20.0), (_r(3, 4),)),
}


def _module(fn):
    m = fn() if fn.__code__.co_argcount == 0 else Fn(fn)
    return m.eval()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_binary_model_runs(name):
    fn, inputs = MODELS[name]
    module = _module(fn)
    c = compile_module(name, module, inputs)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])
    with torch.no_grad():
        want = module(*inputs)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f":
            fin = np.isfinite(w)
            assert np.array_equal(np.isfinite(g), fin) and np.array_equal(g[~fin], w[~fin])
            assert np.max(np.abs(g[fin] - w[fin]), initial=0) <= 1e-5 * max(np.max(np.abs(w[fin]), initial=0), 1e-12)
        else:
            assert np.array_equal(g, w)


def test_invert_mask():
    """`~mask` is bitwise_not.out (the unary family's kernel)."""
    m = Fn(lambda a, b: ~(a > 0) & (b > 0)).eval()
    inputs = (_r(3, 4), _r(3, 4, seed=1))
    c = compile_module("invert", m, inputs)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    assert np.array_equal(got, m(*inputs).numpy())


def test_integer_division_by_an_input_compiles_and_runs():
    """The compile-time acceptance run feeds the example inputs, not zeros: `x // y` and
    `x % y` on int64 inputs compile (a zero divisor is a run-time error, as in torch)."""
    m = Fn(lambda x, y: x // y + x % y).eval()
    inputs = (torch.tensor([[7, -7, 9, 0]]), torch.tensor([[2, 3, -4, 5]]))
    c = compile_module("idiv", m, inputs)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    assert np.array_equal(got, m(*inputs).numpy())
