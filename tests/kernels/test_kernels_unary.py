"""The "unary" family's kernels (kernels/unary.[ch], op_<name>.c: math functions,
rounding, abs/sign, activations, predicates, bitwise/logical not) against torch
eager: float32 within 1e-5 relative (NaN and +-inf where torch has them),
integer and bool results exactly; error codes for wrong arguments, dtypes and
shapes. The nn activation layers compile and run end to end at the bottom."""
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.kernels.kernels_ffi import ERR, TAG, Value
from aot.host.abi import Str

TOL = 1e-5
SHAPES = [(3, 7, 5), (), (0, 4), (1,), (2, 1, 3)]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def same(out: torch.Tensor, ref: torch.Tensor) -> bool:
    """Exact for integers and bools; for floats: NaN and +-inf where ref has
    them, finite values within TOL of ref's largest finite magnitude."""
    if out.shape != ref.shape or out.dtype != ref.dtype:
        return False
    if not ref.is_floating_point():
        return torch.equal(out, ref)
    o, r = out.double(), ref.double()
    if not torch.equal(torch.isnan(o), torch.isnan(r)):
        return False
    inf = torch.isinf(r)
    if not torch.equal(o[inf], r[inf]):
        return False
    fin = torch.isfinite(r)
    if not fin.any():
        return bool(torch.isfinite(o[fin]).all())
    scale = max(r[fin].abs().max().item(), 1e-30)
    return (o[fin] - r[fin]).abs().max().item() / scale <= TOL


def run(K, name, ref, *args, out=None):
    """Call kernel `name` with args + an out like ref (NaN/garbage filled) and
    compare with ref; returns the out tensor."""
    if out is None:
        out = torch.full_like(ref, float("nan")) if ref.is_floating_point() \
            else torch.full_like(ref, 7 if ref.dtype != torch.bool else True)
    rc = K.call(name, *args, out)
    assert rc == 0, f"{name} returned {rc}"
    assert same(out, ref), f"{name}: got {out} want {ref}"
    return out


def string(s: str) -> Value:
    """A String value (gelu's approximate)."""
    b = s.encode()
    v = Value()
    v.tag = TAG["STRING"]
    v.u.str = Str(b, len(b))
    string.keep.append(b)
    return v


string.keep = []


def _in(lo, hi):
    """Input maker: uniform values in (lo, hi) of the given shape."""
    def make(shape, seed=0):
        g = torch.Generator().manual_seed(seed + len(shape))
        return lo + (hi - lo) * torch.rand(shape, generator=g)
    return make


#: float-valued unary ops: torch function, input maker inside the domain,
#: special inputs (their values, compared with torch including inf/NaN)
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 100.0, float("inf"), -float("inf"), float("nan")]
FLOAT_OPS = {
    "acos": (torch.acos, _in(-0.99, 0.99)),
    "acosh": (torch.acosh, _in(1.0, 20.0)),
    "asin": (torch.asin, _in(-0.99, 0.99)),
    "asinh": (torch.asinh, _in(-20.0, 20.0)),
    "atan": (torch.atan, _in(-20.0, 20.0)),
    "atanh": (torch.atanh, _in(-0.99, 0.99)),
    "cos": (torch.cos, _in(-10.0, 10.0)),
    "cosh": (torch.cosh, _in(-8.0, 8.0)),
    "erf": (torch.erf, _in(-4.0, 4.0)),
    "expm1": (torch.expm1, _in(-5.0, 5.0)),
    "log": (torch.log, _in(0.01, 50.0)),
    "log10": (torch.log10, _in(0.01, 50.0)),
    "log1p": (torch.log1p, _in(-0.99, 50.0)),
    "log2": (torch.log2, _in(0.01, 50.0)),
    "reciprocal": (torch.reciprocal, _in(0.1, 10.0)),
    "sin": (torch.sin, _in(-10.0, 10.0)),
    "sinh": (torch.sinh, _in(-8.0, 8.0)),
    "sqrt": (torch.sqrt, _in(0.0, 100.0)),
    "tan": (torch.tan, _in(-1.4, 1.4)),
}


@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_float_op_fp32(K, op, shape):
    fn, make = FLOAT_OPS[op]
    x = make(shape)
    name = f"aten::{op}.out"
    run(K, name, fn(x), x)
    y = x.clone()  # in place: out is self
    assert K.call(name, y, y) == 0 and same(y, fn(x))


@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
def test_float_op_special_values(K, op):
    fn, _ = FLOAT_OPS[op]
    x = torch.tensor(SPECIAL)
    run(K, f"aten::{op}.out", fn(x), x)


@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
@pytest.mark.parametrize("dtype", INTS + [torch.bool], ids=str)
def test_float_op_integer_input_gives_float(K, op, dtype):
    """sin of an int tensor is float32 in torch: the input converts to float first."""
    fn, _ = FLOAT_OPS[op]
    if dtype == torch.bool:
        x = torch.tensor([[True, False, True], [False, False, True]])
    elif dtype == torch.uint8:
        x = torch.tensor([[0, 1, 2], [3, 7, 200]], dtype=dtype)
    else:
        x = torch.tensor([[-3, -1, 0], [1, 2, 100]], dtype=dtype)
    ref = fn(x)
    assert ref.dtype == torch.float32
    run(K, f"aten::{op}.out", ref, x)


def test_float_op_int64_conversion_is_a_float_cast(K):
    x = torch.tensor([2**40 + 1, -(2**53) - 1, 2**62], dtype=torch.int64)
    run(K, "aten::sqrt.out", torch.sqrt(x.abs()), x.abs())
    run(K, "aten::reciprocal.out", torch.reciprocal(x), x)


@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
def test_float_op_errors(K, op):
    name = f"aten::{op}.out"
    x = torch.rand(3, 4) + 0.5
    assert K.call(name, x, torch.empty(3, 5)) == ERR["SHAPE"]
    assert K.call(name, x, torch.empty(4, 3)) == ERR["SHAPE"]
    assert K.call(name, x, torch.empty(1, 3, 4)) == ERR["SHAPE"]
    assert K.call(name, x, torch.empty(3, 4, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(name, x, torch.empty(3, 4, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call(name, x.double(), torch.empty(3, 4)) == ERR["DTYPE"]
    assert K.call(name, x.half(), torch.empty(3, 4)) == ERR["DTYPE"]
    assert K.call(name, x) == ERR["ARGS"]
    assert K.call(name, x, x, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call(name, 1.0, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call(name, x, None) == ERR["ARGS"]


# ---------------------------------------------------------------- rounding

ROUNDING = {"ceil": torch.ceil, "floor": torch.floor, "round": torch.round, "trunc": torch.trunc}
HALVES = [-3.5, -2.5, -1.5, -0.5, -0.4, -0.0, 0.0, 0.4, 0.5, 0.6, 1.5, 2.5, 3.5, 2.4999998, -7.2,
          8388607.5, 8388609.0, -16777217.0, 1e30, float("inf"), -float("inf"), float("nan")]


@pytest.mark.parametrize("op", sorted(ROUNDING))
def test_rounding_fp32(K, op):
    fn, name = ROUNDING[op], f"aten::{op}.out"
    x = torch.tensor(HALVES)
    out = run(K, name, fn(x), x)
    # signed zeros as torch: round(-0.4) = -0.0, ceil(-0.5) = -0.0
    assert torch.equal(torch.signbit(out[torch.isfinite(out)]), torch.signbit(fn(x)[torch.isfinite(out)]))
    for shape in SHAPES:
        x = torch.randn(shape) * 5
        run(K, name, fn(x), x)
        y = x.clone()
        assert K.call(name, y, y) == 0 and same(y, fn(x))


@pytest.mark.parametrize("op", sorted(ROUNDING))
@pytest.mark.parametrize("dtype", INTS, ids=str)
def test_rounding_integers_unchanged(K, op, dtype):
    x = torch.tensor([[0, 1, 5], [100, 7, 9]], dtype=dtype)
    if dtype != torch.uint8:
        x = x - 50
    ref = ROUNDING[op](x)
    assert ref.dtype == dtype
    run(K, f"aten::{op}.out", ref, x)


@pytest.mark.parametrize("op", sorted(ROUNDING))
def test_rounding_errors(K, op):
    name = f"aten::{op}.out"
    x = torch.randn(2, 3)
    assert K.call(name, x, torch.empty(2, 3, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call(name, x.int(), torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call(name, x > 0, torch.empty(2, 3, dtype=torch.bool)) == ERR["DTYPE"]
    assert K.call(name, x.double(), torch.empty(2, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(name, x, torch.empty(3, 2)) == ERR["SHAPE"]
    assert K.call(name, x, 2, torch.empty(2, 3)) == ERR["ARGS"]


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, -1, -2, 40, -40])
def test_round_decimals(K, decimals):
    g = torch.Generator().manual_seed(decimals + 50)
    x = torch.cat([(torch.rand(40, generator=g) - 0.5) * 2000,
                   torch.tensor([2.675, 1.25, -1234.5, 0.125, 0.0, -0.0, float("inf"), float("nan")])])
    ref = torch.round(x, decimals=decimals)
    run(K, "aten::round.decimals_out", ref, x, decimals)
    y = x.clone()
    assert K.call("aten::round.decimals_out", y, decimals, y) == 0 and same(y, ref)
    e = torch.empty(())
    run(K, "aten::round.decimals_out", torch.round(e.fill_(3.14159), decimals=decimals), e, decimals)


def test_round_decimals_errors(K):
    x = torch.randn(2, 3)
    f = "aten::round.decimals_out"
    assert K.call(f, x, 2.0, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, None, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x.int(), 2, torch.empty(2, 3, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call(f, x, 2, torch.empty(2, 4)) == ERR["SHAPE"]
    assert K.call(f, x, torch.empty(2, 3)) == ERR["ARGS"]


# ---------------------------------------------------------------- abs, sign

def test_abs(K):
    x = torch.tensor([-2.5, -0.0, 0.0, 3.0, -float("inf"), float("nan")])
    out = run(K, "aten::abs.out", torch.abs(x), x)
    assert not torch.signbit(out[:3]).any()  # |-0| = +0
    for shape in SHAPES:
        x = torch.randn(shape)
        run(K, "aten::abs.out", torch.abs(x), x)
    for dtype, info in ((torch.int32, torch.iinfo(torch.int32)), (torch.int64, torch.iinfo(torch.int64))):
        x = torch.tensor([[info.min, info.min + 1, -5], [0, 7, info.max]], dtype=dtype)
        run(K, "aten::abs.out", torch.abs(x), x)  # abs(min) wraps to min, as torch
        y = x.clone()
        assert K.call("aten::abs.out", y, y) == 0 and torch.equal(y, torch.abs(x))
    x = torch.randn(2, 3)
    assert K.call("aten::abs.out", x > 0, torch.empty(2, 3, dtype=torch.bool)) == ERR["DTYPE"]
    assert K.call("aten::abs.out", x.to(torch.int16), torch.empty(2, 3, dtype=torch.int16)) == ERR["DTYPE"]
    assert K.call("aten::abs.out", x.int(), torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call("aten::abs.out", x, torch.empty(2, 2)) == ERR["SHAPE"]
    assert K.call("aten::abs.out", x) == ERR["ARGS"]


def test_sign(K):
    x = torch.tensor([-2.5, -0.0, 0.0, 3.0, -float("inf"), float("inf"), float("nan"), 1e-40])
    out = run(K, "aten::sign.out", torch.sign(x), x)  # sign(NaN) = 0 in torch
    assert out[6].item() == 0.0
    for shape in SHAPES:
        x = torch.randn(shape)
        run(K, "aten::sign.out", torch.sign(x), x)
    for dtype in (torch.int32, torch.int64):
        info = torch.iinfo(dtype)
        x = torch.tensor([info.min, -3, 0, 4, info.max], dtype=dtype)
        run(K, "aten::sign.out", torch.sign(x), x)
    b = torch.tensor([True, False, True])
    run(K, "aten::sign.out", torch.sign(b), b)
    y = torch.randn(4, 5)
    ref = torch.sign(y)
    assert K.call("aten::sign.out", y, y) == 0 and torch.equal(y, ref)
    x = torch.randn(2, 3)
    assert K.call("aten::sign.out", x.int(), torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call("aten::sign.out", x.to(torch.int8), torch.empty(2, 3, dtype=torch.int8)) == ERR["DTYPE"]
    assert K.call("aten::sign.out", x, torch.empty(2, 3, 1)) == ERR["SHAPE"]
    assert K.call("aten::sign.out", x, x, torch.empty(2, 3)) == ERR["ARGS"]


# ---------------------------------------------------------------- bitwise / logical not, predicates

@pytest.mark.parametrize("dtype", INTS + [torch.bool], ids=str)
def test_bitwise_not(K, dtype):
    if dtype == torch.bool:
        x = torch.tensor([[True, False], [False, True]])
    else:
        info = torch.iinfo(dtype)
        x = torch.tensor([info.min, info.min + 1, -1 if info.min < 0 else 1, 0, 5, info.max], dtype=dtype)
    run(K, "aten::bitwise_not.out", torch.bitwise_not(x), x)
    y = x.clone()
    assert K.call("aten::bitwise_not.out", y, y) == 0 and torch.equal(y, torch.bitwise_not(x))
    e = torch.empty(0, 3, dtype=dtype)
    run(K, "aten::bitwise_not.out", torch.bitwise_not(e), e)


def test_bitwise_not_errors(K):
    x = torch.randint(-5, 5, (2, 3), dtype=torch.int32)
    f = "aten::bitwise_not.out"
    assert K.call(f, x.float(), torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call(f, x, torch.empty(2, 3, dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call(f, x > 0, torch.empty(2, 3, dtype=torch.uint8)) == ERR["DTYPE"]
    assert K.call(f, x, torch.empty(3, 2, dtype=torch.int32)) == ERR["SHAPE"]
    assert K.call(f, x) == ERR["ARGS"]


ANY = INTS + [torch.bool, torch.float16, torch.float32, torch.float64]


def _values(dtype):
    if dtype == torch.bool:
        return torch.tensor([[True, False, True], [False, False, True]])
    if dtype.is_floating_point:
        return torch.tensor([[0.0, -0.0, 1.5], [float("nan"), float("inf"), -float("inf")],
                             [1e-30, -2.0, 65504.0]], dtype=dtype)
    if dtype == torch.uint8:
        return torch.tensor([[0, 1, 255], [0, 3, 0]], dtype=dtype)
    return torch.tensor([[0, -1, 2], [0, torch.iinfo(dtype).min, torch.iinfo(dtype).max]], dtype=dtype)


@pytest.mark.parametrize("dtype", ANY, ids=str)
@pytest.mark.parametrize("op", ["logical_not", "isnan", "isinf"])
def test_bool_predicates(K, op, dtype):
    fn = getattr(torch, op)
    x = _values(dtype)
    run(K, f"aten::{op}.out", fn(x), x)
    for shape in ((), (0, 2), (4, 1, 3)):
        x = (torch.randn(shape) * 3).to(dtype)
        run(K, f"aten::{op}.out", fn(x), x)


def test_bool_predicates_in_place_and_errors(K):
    b = torch.tensor([True, False, False])
    assert K.call("aten::logical_not.out", b, b) == 0 and torch.equal(b, torch.tensor([False, True, True]))
    x = torch.tensor([1.0, float("nan"), float("inf")])
    for op in ("logical_not", "isnan", "isinf"):
        f = f"aten::{op}.out"
        assert K.call(f, x, torch.empty(3)) == ERR["DTYPE"]
        assert K.call(f, x, torch.empty(3, dtype=torch.uint8)) == ERR["DTYPE"]
        assert K.call(f, x, torch.empty(4, dtype=torch.bool)) == ERR["SHAPE"]
        assert K.call(f, x, torch.empty((), dtype=torch.bool)) == ERR["SHAPE"]
        assert K.call(f, x) == ERR["ARGS"]
        assert K.call(f, True, torch.empty(3, dtype=torch.bool)) == ERR["ARGS"]


# ---------------------------------------------------------------- activations

@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_gelu(K, approximate, shape):
    x = torch.randn(shape) * 4
    ref = F.gelu(x, approximate=approximate)
    run(K, "aten::gelu.out", ref, x, string(approximate))
    y = x.clone()
    assert K.call("aten::gelu.out", y, string(approximate), y) == 0 and same(y, ref)


def test_gelu_special_and_errors(K):
    x = torch.tensor([0.0, -0.0, 10.0, -10.0, 30.0, -30.0, -float("inf"), float("nan")])
    for a in ("none", "tanh"):
        run(K, "aten::gelu.out", F.gelu(x, approximate=a), x, string(a))
        # gelu(+inf) = +inf (torch's scalar loop; its vectorised erf path gives NaN)
        run(K, "aten::gelu.out", torch.tensor([float("inf")]), torch.tensor([float("inf")]), string(a))
    x = torch.randn(2, 3)
    f = "aten::gelu.out"
    assert K.call(f, x, string("Tanh"), torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, string("none "), torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, string(""), torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, 0, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, None, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x.double(), string("none"), torch.empty(2, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(f, x.int(), string("none"), torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call(f, x, string("tanh"), torch.empty(2, 4)) == ERR["SHAPE"]


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
ELU_PARAMS = [(1.0, 1, 1), (0.5, 1.0, 1.0), (SELU_ALPHA, SELU_SCALE, 1), (2, 0.5, 3.0), (1.0, 1.0, 0.25)]


@pytest.mark.parametrize("params", ELU_PARAMS, ids=str)
def test_elu(K, params):
    alpha, scale, input_scale = params
    x = torch.cat([torch.randn(60) * 3, torch.tensor([0.0, -0.0, -50.0, float("inf"), -float("inf"),
                                                      float("nan")])]).reshape(6, 11)
    ref = torch.ops.aten.elu(x, alpha, scale, input_scale)
    run(K, "aten::elu.out", ref, x, alpha, scale, input_scale)
    y = x.clone()
    assert K.call("aten::elu.out", y, alpha, scale, input_scale, y) == 0 and same(y, ref)
    for shape in SHAPES:
        x = torch.randn(shape)
        run(K, "aten::elu.out", torch.ops.aten.elu(x, alpha, scale, input_scale), x, alpha, scale, input_scale)


def test_elu_matches_layers(K):
    x = torch.randn(4, 9) * 3
    run(K, "aten::elu.out", torch.nn.SELU()(x), x, SELU_ALPHA, SELU_SCALE, 1)
    run(K, "aten::elu.out", torch.nn.ELU(0.3)(x), x, 0.3, 1, 1)


def test_elu_errors(K):
    x = torch.randn(2, 3)
    f = "aten::elu.out"
    assert K.call(f, x, 1.0, 1.0, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, 1.0, None, 1.0, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, 1.0, [1, 2], 1.0, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x.int(), 1.0, 1.0, 1.0, torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call(f, x, 1.0, 1.0, 1.0, torch.empty(2, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(f, x, 1.0, 1.0, 1.0, torch.empty(3, 2)) == ERR["SHAPE"]


@pytest.mark.parametrize("slope", [0.01, 0.2, 0, -0.5, 1.5, True])
def test_leaky_relu(K, slope):
    x = torch.cat([torch.randn(30) * 3, torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan")])])
    ref = F.leaky_relu(x, float(slope))
    run(K, "aten::leaky_relu.out", ref, x, slope)
    y = x.clone()
    assert K.call("aten::leaky_relu.out", y, slope, y) == 0 and same(y, ref)
    for shape in SHAPES:
        x = torch.randn(shape)
        run(K, "aten::leaky_relu.out", F.leaky_relu(x, float(slope)), x, slope)


def test_leaky_relu_errors(K):
    x = torch.randn(2, 3)
    f = "aten::leaky_relu.out"
    assert K.call(f, x, None, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x.long(), 0.1, torch.empty(2, 3, dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call(f, x, 0.1, torch.empty(2, 3, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call(f, x, 0.1, torch.empty(6)) == ERR["SHAPE"]


@pytest.mark.parametrize("eps", [None, 1e-6, 0.2, 0.0, -1.0, 0.5])
def test_logit(K, eps):
    x = torch.cat([torch.rand(40), torch.tensor([0.0, 1.0, 0.5, -0.5, 1.5, float("nan"), 1e-7, 1 - 1e-7])])
    ref = torch.logit(x, eps)
    run(K, "aten::logit.out", ref, x, eps)
    y = x.clone()
    assert K.call("aten::logit.out", y, eps, y) == 0 and same(y, ref)
    for shape in SHAPES:
        x = torch.rand(shape)
        run(K, "aten::logit.out", torch.logit(x, eps), x, eps)
    xi = torch.tensor([[0, 1, 2], [-1, 0, 1]], dtype=torch.int32)
    run(K, "aten::logit.out", torch.logit(xi, eps), xi, eps)


def test_logit_errors(K):
    x = torch.rand(2, 3)
    f = "aten::logit.out"
    assert K.call(f, x, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, [1, 2], torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x, True, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(f, x.double(), None, torch.empty(2, 3)) == ERR["DTYPE"]
    assert K.call(f, x, None, torch.empty(2, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(f, x, 1e-3, torch.empty(2, 2)) == ERR["SHAPE"]


GLU = [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((2, 4, 6), 2), ((8,), 0), ((3, 2, 5), -2),
       ((2, 0, 4), 2), ((0, 4), 1), ((1, 2, 1, 1), 1)]


@pytest.mark.parametrize("shape,dim", GLU, ids=str)
def test_glu(K, shape, dim):
    x = torch.randn(shape) * 3
    run(K, "aten::glu.out", F.glu(x, dim), x, dim)


def test_glu_errors(K):
    x = torch.randn(4, 6)
    f = "aten::glu.out"
    assert K.call(f, x, 1, torch.empty(4, 6)) == ERR["SHAPE"]
    assert K.call(f, x, 1, torch.empty(2, 6)) == ERR["SHAPE"]
    assert K.call(f, x, 0, torch.empty(4, 3)) == ERR["SHAPE"]
    assert K.call(f, x, 1, torch.empty(4, 3, 1)) == ERR["SHAPE"]
    assert K.call(f, torch.randn(4, 5), 1, torch.empty(4, 2)) == ERR["SHAPE"]  # odd size at dim
    assert K.call(f, torch.tensor(1.0), 0, torch.empty(())) == ERR["SHAPE"]    # 0-dim
    assert K.call(f, x, 2, torch.empty(4, 3)) == ERR["ARGS"]
    assert K.call(f, x, -3, torch.empty(4, 3)) == ERR["ARGS"]
    assert K.call(f, x, 1.0, torch.empty(4, 3)) == ERR["ARGS"]
    assert K.call(f, x, torch.empty(4, 3)) == ERR["ARGS"]
    assert K.call(f, x.double(), 1, torch.empty(4, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(f, x, 1, torch.empty(4, 3, dtype=torch.int32)) == ERR["DTYPE"]


# ---------------------------------------------------------------- every kernel of the family

FAMILY = sorted([f"aten::{op}.out" for op in list(FLOAT_OPS) + list(ROUNDING)] + [
    "aten::abs.out", "aten::sign.out", "aten::bitwise_not.out", "aten::logical_not.out",
    "aten::isnan.out", "aten::isinf.out", "aten::gelu.out", "aten::elu.out", "aten::leaky_relu.out",
    "aten::logit.out", "aten::glu.out", "aten::round.decimals_out"])


def _nargs(op):
    name, ov = op.split("::")[1].split(".")
    return len(getattr(getattr(torch.ops.aten, name), ov)._schema.arguments)


@pytest.mark.parametrize("op", FAMILY)
def test_bad_arguments_are_rejected(K, op):
    """Wrong count, NULL values or None everywhere: KERNEL_ARGS, never a crash."""
    assert op in K.registry
    n = _nargs(op)
    assert K.call(op, *([None] * n)) == ERR["ARGS"]
    assert K.call(op, *([None] * (n + 1))) == ERR["ARGS"]
    assert K.call(op, *([torch.zeros(2)] * (n - 1))) == ERR["ARGS"]
    assert K.call(op, *([torch.zeros(2)] * (n + 1))) == ERR["ARGS"]


def test_family_has_cases():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))
    import op_cases_unary as U
    assert set(FAMILY) == set(U.FP32) | U.EXECUTORCH_ONLY


# ---------------------------------------------------------------- nn layers end to end

def _layers():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))
    import op_cases_unary as U
    return U


@pytest.mark.slow
@pytest.mark.parametrize("layer", sorted(_layers().LAYERS))
def test_layer_compiles_and_runs(layer):
    """Each nn activation compiles with Mote's compiler and runs on the host runtime."""
    from aot.compiler.pipeline import compile_module
    from aot.host.runtime import Program
    U = _layers()
    make, inputs = U.LAYERS[layer]
    module = make().eval()
    c = compile_module(layer, module, inputs)
    got = Program(c.pte).method().run([x.numpy() for x in inputs])[0]
    with torch.no_grad():
        want = module(*inputs).numpy()
    assert got.shape == want.shape
    err = np.max(np.abs(got.astype(np.float64) - want)) / max(np.max(np.abs(want)), 1e-12)
    assert err <= TOL, f"{layer}: {err}"
