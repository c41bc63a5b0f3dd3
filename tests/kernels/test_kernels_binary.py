"""Kernels of the "binary" family (kernels/elementwise.[ch] and its op_*.c)
against torch eager: comparisons, logical, bitwise, shifts, pow, atan2,
fmod/remainder/floor_divide, rounding divisions, maximum/minimum, rsub,
clamp.Tensor, where, masked_fill."""
import ctypes as C

import pytest
import torch

from tests.kernels.kernels_ffi import ERR, TAG, Value

TOL = 1e-5
F32, I32, I64, BOOL = torch.float32, torch.int32, torch.int64, torch.bool


def _s(text: str) -> Value:
    """A String value (rounding_mode)."""
    v = Value()
    v.tag = TAG["STRING"]
    raw = text.encode()
    v.u.str.ptr = raw
    v.u.str.len = len(raw)
    _KEEP.append(raw)
    return v


_KEEP = []


def same(out, ref) -> bool:
    if out.dtype != ref.dtype or out.shape != ref.shape:
        return False
    if not ref.is_floating_point():
        return torch.equal(out, ref)
    if not torch.equal(torch.isnan(out), torch.isnan(ref)):
        return False
    ok = ~torch.isnan(ref)
    o, r = out[ok].double(), ref[ok].double()
    if not torch.equal(torch.isinf(o), torch.isinf(r)) or not torch.equal(o[torch.isinf(r)], r[torch.isinf(r)]):
        return False
    fin = torch.isfinite(r)
    if fin.sum() == 0:
        return True
    return ((o[fin] - r[fin]).abs().max() / max(r[fin].abs().max().item(), 1e-30)).item() <= TOL


def run(K, name, ref, *args):
    out = torch.full_like(ref, float("nan")) if ref.is_floating_point() else torch.zeros_like(ref)
    if ref.dtype == BOOL:
        out = ~torch.zeros_like(ref) if ref.numel() and not ref.all() else torch.zeros_like(ref)
    rc = K.call(name, *args, out)
    assert rc == 0, f"{name} returned {rc}"
    assert same(out, ref), f"{name}: got {out} want {ref}"
    return out


def rnd(shape, dtype, seed=0, lo=-5, hi=6):
    g = torch.Generator().manual_seed(seed * 31 + len(shape) + sum(shape))
    if dtype == F32:
        return torch.randn(shape, generator=g) * 3
    if dtype == BOOL:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(lo, hi, shape, generator=g, dtype=dtype)


SHAPES = [((3, 5, 7), (3, 5, 7)), ((2, 3, 5), (5,)), ((2, 1, 5), (1, 3, 1)), ((4, 1), (3,)),
          ((), (2, 3)), ((6, 5), ()), ((), ()), ((0, 3), (3,)), ((2, 0), (1, 1))]
SID = [f"{a}x{b}" for a, b in SHAPES]

CMP = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge}


# ---- comparisons -----------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CMP))
@pytest.mark.parametrize("dtype", [F32, I32, I64, BOOL])
@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_compare_tensor(K, name, dtype, sa, sb):
    a, b = rnd(sa, dtype, 1, -2, 3), rnd(sb, dtype, 2, -2, 3)
    run(K, f"aten::{name}.Tensor_out", CMP[name](a, b), a, b)


@pytest.mark.parametrize("name", sorted(CMP))
def test_compare_scalar(K, name):
    fn = CMP[name]
    x = torch.tensor([[-1.5, 0.0, 0.5, 2.0], [float("nan"), float("inf"), -float("inf"), 1.0]])
    for s in (0.5, 0, 2, True, -float("inf")):
        run(K, f"aten::{name}.Scalar_out", fn(x, s), x, s)
    xi = torch.arange(-4, 5, dtype=I64).reshape(3, 3)
    for dt in (I32, I64):
        for s in (1, 1.5, -0.5, True):  # int tensor vs float Scalar compares as float
            run(K, f"aten::{name}.Scalar_out", fn(xi.to(dt), s), xi.to(dt), s)
    m = torch.tensor([True, False, True])
    for s in (True, False, 1, 0.5):
        run(K, f"aten::{name}.Scalar_out", fn(m, s), m, s)
    z = torch.tensor(2.0)  # 0-dim self
    run(K, f"aten::{name}.Scalar_out", fn(z, 2), z, 2)


def test_compare_promotion(K):
    x = torch.randn(3, 4)
    # a fp32 tensor and a 0-dim int64 constant lifted from a Python number
    for c in (torch.tensor(0), torch.tensor(1, dtype=I32), torch.tensor(0.25, dtype=torch.float64)):
        run(K, "aten::gt.Tensor_out", x > c, x, c)
        run(K, "aten::eq.Tensor_out", c == x, c, x)
    xi = torch.arange(-3, 3, dtype=I32)
    run(K, "aten::lt.Tensor_out", xi < torch.tensor(0.5), xi, torch.tensor(0.5))
    big = torch.tensor([2**40, -2**40, 3], dtype=I64)
    run(K, "aten::ne.Tensor_out", big != big.to(I32), big, big.to(I32))
    run(K, "aten::ge.Tensor_out", xi >= torch.tensor([True]), xi, torch.tensor([True]))
    run(K, "aten::le.Tensor_out", x <= xi[:4], x, xi[:4].clone())
    # compared in float32 like torch: 0.1f == 0.1, int64 2**24 + 1 == 2.0**24
    p1 = torch.tensor([0.1, 0.2])
    run(K, "aten::eq.Scalar_out", p1 == 0.1, p1, 0.1)
    run(K, "aten::gt.Scalar_out", p1 > 0.1, p1, 0.1)
    n = torch.tensor([2**24 + 1, 2**24])
    run(K, "aten::eq.Scalar_out", n == 16777216.0, n, 16777216.0)
    run(K, "aten::eq.Scalar_out", n == 2**24 + 1, n, 2**24 + 1)


def test_compare_errors(K):
    a, b = torch.randn(3, 4), torch.randn(4)
    ob = torch.empty(3, 4, dtype=BOOL)
    assert K.call("aten::gt.Tensor_out", a, b, torch.empty(3, 4)) == ERR["DTYPE"]
    assert K.call("aten::gt.Tensor_out", a, b, torch.empty(3, 5, dtype=BOOL)) == ERR["SHAPE"]
    assert K.call("aten::gt.Tensor_out", a, torch.randn(3), ob) == ERR["SHAPE"]
    assert K.call("aten::gt.Tensor_out", a, b, torch.empty(1, 3, 4, dtype=BOOL)) == ERR["SHAPE"]
    assert K.call("aten::gt.Tensor_out", a.double(), b, ob) == ERR["DTYPE"]
    assert K.call("aten::gt.Tensor_out", a.half(), b, ob) == ERR["DTYPE"]
    assert K.call("aten::gt.Tensor_out", a, 0.5, ob) == ERR["ARGS"]
    assert K.call("aten::gt.Scalar_out", a, b, ob) == ERR["ARGS"]
    assert K.call("aten::gt.Scalar_out", a, ob) == ERR["ARGS"]
    assert K.call("aten::eq.Scalar_out", a, 1, ob, ob) == ERR["ARGS"]


def test_compare_in_place(K):
    m1, m2 = rnd((4, 6), BOOL, 1), rnd((4, 6), BOOL, 2)
    ref = m1 == m2
    assert K.call("aten::eq.Tensor_out", m1, m2, m1) == 0
    assert torch.equal(m1, ref)


# ---- logical ---------------------------------------------------------------

LOGICAL = {"and": torch.logical_and, "or": torch.logical_or, "xor": torch.logical_xor}


@pytest.mark.parametrize("name", sorted(LOGICAL))
@pytest.mark.parametrize("da,db", [(BOOL, BOOL), (F32, F32), (I64, BOOL), (I32, F32)])
@pytest.mark.parametrize("sa,sb", SHAPES[:6], ids=SID[:6])
def test_logical(K, name, da, db, sa, sb):
    a, b = rnd(sa, da, 1, -1, 2), rnd(sb, db, 2, -1, 2)
    run(K, f"aten::logical_{name}.out", LOGICAL[name](a, b), a, b)


def test_logical_nan_and_errors(K):
    a = torch.tensor([float("nan"), 0.0, -0.0, 2.0])
    b = torch.tensor([1.0, float("nan"), 1.0, 0.0])
    for name, fn in LOGICAL.items():
        run(K, f"aten::logical_{name}.out", fn(a, b), a, b)
    assert K.call("aten::logical_and.out", a, b, torch.empty(4)) == ERR["DTYPE"]
    assert K.call("aten::logical_or.out", a, b, torch.empty(3, dtype=BOOL)) == ERR["SHAPE"]
    assert K.call("aten::logical_xor.out", a, 1.0, torch.empty(4, dtype=BOOL)) == ERR["ARGS"]
    assert K.call("aten::logical_xor.out", a, b) == ERR["ARGS"]


# ---- bitwise and shifts ----------------------------------------------------

BITWISE = {"and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor}


@pytest.mark.parametrize("name", sorted(BITWISE))
@pytest.mark.parametrize("da,db", [(I32, I32), (I64, I64), (BOOL, BOOL), (I32, I64), (BOOL, I32)])
@pytest.mark.parametrize("sa,sb", SHAPES[:7], ids=SID[:7])
def test_bitwise_tensor(K, name, da, db, sa, sb):
    a, b = rnd(sa, da, 1, -300, 300), rnd(sb, db, 2, -300, 300)
    run(K, f"aten::bitwise_{name}.Tensor_out", BITWISE[name](a, b), a, b)


@pytest.mark.parametrize("name", sorted(BITWISE))
def test_bitwise_scalar(K, name):
    fn = BITWISE[name]
    for dt in (I32, I64):
        x = rnd((3, 7), dt, 3, -1000, 1000)
        for s in (5, -2, 0, True):
            run(K, f"aten::bitwise_{name}.Scalar_out", fn(x, s), x, s)
    m = rnd((5,), BOOL, 4)
    run(K, f"aten::bitwise_{name}.Scalar_out", fn(m, True), m, True)
    run(K, f"aten::bitwise_{name}.Scalar_out", fn(m, 3), m, 3)  # bool with Int -> int64
    x = torch.randn(3)
    assert K.call(f"aten::bitwise_{name}.Scalar_out", x, 1, torch.empty(3)) == ERR["DTYPE"]
    assert K.call(f"aten::bitwise_{name}.Tensor_out", x, x, torch.empty(3)) == ERR["DTYPE"]
    xi = torch.arange(3)
    assert K.call(f"aten::bitwise_{name}.Scalar_out", xi, 1.5, torch.empty(3)) == ERR["DTYPE"]
    assert K.call(f"aten::bitwise_{name}.Tensor_out", xi, xi, torch.empty(3, dtype=I32)) == ERR["DTYPE"]
    assert K.call(f"aten::bitwise_{name}.Tensor_out", xi, xi, torch.empty(4, dtype=I64)) == ERR["SHAPE"]
    assert K.call(f"aten::bitwise_{name}.Tensor_out", xi, 1, torch.empty(3, dtype=I64)) == ERR["ARGS"]


SHIFT = {"left": torch.bitwise_left_shift, "right": torch.bitwise_right_shift}


@pytest.mark.parametrize("name", sorted(SHIFT))
@pytest.mark.parametrize("dtype", [I32, I64, torch.uint8, torch.int16])
def test_shift(K, name, dtype):
    fn = SHIFT[name]
    lo = 0 if dtype == torch.uint8 else -1000
    bits = torch.iinfo(dtype).bits
    x = rnd((4, 9), dtype, 5, lo, 1000 if dtype != torch.uint8 else 256)
    s = torch.tensor([0, 1, 3, bits - 2, bits - 1, bits, bits + 1, 70, -1 if lo < 0 else 2], dtype=dtype)
    run(K, f"aten::bitwise_{name}_shift.Tensor_out", fn(x, s), x, s)
    run(K, f"aten::bitwise_{name}_shift.Tensor_out", fn(x, s[2]), x, s[2].clone())  # 0-dim amount
    for k in (0, 2, bits - 1, bits, 100):
        run(K, f"aten::bitwise_{name}_shift.Tensor_Scalar_out", fn(x, k), x, k)
    e = torch.empty(0, dtype=dtype)
    run(K, f"aten::bitwise_{name}_shift.Tensor_Scalar_out", fn(e, 1), e, 1)


def test_shift_negative_amount_and_errors(K):
    x = torch.tensor([-8, 8, -1, 5], dtype=I64)
    s = torch.tensor([-1, -64, 63, 64])
    for name, fn in SHIFT.items():
        run(K, f"aten::bitwise_{name}_shift.Tensor_out", fn(x, s), x, s)
        run(K, f"aten::bitwise_{name}_shift.Tensor_Scalar_out", fn(x, -3), x, -3)
    m = torch.tensor([True, False])
    run(K, "aten::bitwise_left_shift.Tensor_Scalar_out", m << 1, m, 1)  # bool with Int -> int64
    assert K.call("aten::bitwise_left_shift.Tensor_out", m, m, torch.empty(2, dtype=BOOL)) == ERR["DTYPE"]
    assert K.call("aten::bitwise_left_shift.Tensor_out", x.float(), s, torch.empty(4)) == ERR["DTYPE"]
    assert K.call("aten::bitwise_right_shift.Tensor_Scalar_out", x, 1.0, torch.empty(4)) == ERR["DTYPE"]
    assert K.call("aten::bitwise_right_shift.Tensor_out", x, s, torch.empty(4, dtype=I32)) == ERR["DTYPE"]
    assert K.call("aten::bitwise_right_shift.Tensor_out", x, s[:3], torch.empty(4, dtype=I64)) == ERR["SHAPE"]
    assert K.call("aten::bitwise_right_shift.Tensor_Scalar_out", x, s, torch.empty(4, dtype=I64)) == ERR["ARGS"]


# ---- pow, atan2 ------------------------------------------------------------

def test_pow_tensor_scalar(K):
    x = torch.randn(4, 6) * 3
    x[0, :4] = torch.tensor([0.0, -0.0, float("inf"), -float("inf")])
    x[1, 0] = float("nan")
    for e in (2, 3, 0.5, -0.5, -1, -2, 1, 0, 1.7, -2.5, 4.0, True):
        run(K, "aten::pow.Tensor_Scalar_out", torch.pow(x, e), x, e)
    xi = torch.arange(-6, 6, dtype=I64).reshape(3, 4)
    for dt in (I32, I64):
        for e in (0, 1, 2, 3, 7, 40):  # wraps like torch
            run(K, "aten::pow.Tensor_Scalar_out", torch.pow(xi.to(dt), e), xi.to(dt), e)
        run(K, "aten::pow.Tensor_Scalar_out", torch.pow(xi.to(dt), 0.5), xi.to(dt), 0.5)  # -> float32
    assert K.call("aten::pow.Tensor_Scalar_out", xi, -1, torch.empty(3, 4, dtype=I64)) == ERR["ARGS"]
    assert K.call("aten::pow.Tensor_Scalar_out", xi, 2, torch.empty(3, 4)) == ERR["DTYPE"]
    assert K.call("aten::pow.Tensor_Scalar_out", x, 2, torch.empty(4, 5)) == ERR["SHAPE"]
    assert K.call("aten::pow.Tensor_Scalar_out", x, x, torch.empty(4, 6)) == ERR["ARGS"]
    m = torch.tensor([True, False])
    assert K.call("aten::pow.Tensor_Scalar_out", m, True, torch.empty(2, dtype=BOOL)) == ERR["DTYPE"]


@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_pow_tensor_tensor(K, sa, sb):
    a, b = rnd(sa, F32, 1).abs() + 0.1, rnd(sb, F32, 2)
    run(K, "aten::pow.Tensor_Tensor_out", torch.pow(a, b), a, b)
    ai, bi = rnd(sa, I64, 1, -4, 5), rnd(sb, I64, 2, -3, 9)
    run(K, "aten::pow.Tensor_Tensor_out", torch.pow(ai, bi), ai, bi)


def test_pow_tensor_tensor_special(K):
    a = torch.tensor([-2.0, -0.0, float("nan"), 1.0, float("inf"), 2.0])
    b = torch.tensor([0.5, -1.0, 0.0, float("nan"), -2.0, 100.0])
    run(K, "aten::pow.Tensor_Tensor_out", torch.pow(a, b), a, b)
    ai = torch.tensor([1, -1, -1, 2, 0, 3], dtype=I32)
    bi = torch.tensor([-5, -3, -2, -1, -1, 21], dtype=I32)
    run(K, "aten::pow.Tensor_Tensor_out", torch.pow(ai, bi), ai, bi)
    run(K, "aten::pow.Tensor_Tensor_out", torch.pow(ai, torch.tensor(0.5)), ai, torch.tensor(0.5))
    assert K.call("aten::pow.Tensor_Tensor_out", a, b, torch.empty(6, dtype=I64)) == ERR["DTYPE"]


def test_pow_scalar_base(K):
    x = torch.randn(3, 5) * 2
    for base in (2, 2.5, 0.5, -1.5, 1, 0):
        run(K, "aten::pow.Scalar_out", torch.pow(base, x), base, x)
    xi = torch.arange(0, 12, dtype=I32).reshape(3, 4)
    run(K, "aten::pow.Scalar_out", torch.pow(3, xi), 3, xi)
    run(K, "aten::pow.Scalar_out", torch.pow(2.0, xi), 2.0, xi)  # -> float32
    run(K, "aten::pow.Scalar_out", torch.pow(2, torch.tensor(3.0)), 2, torch.tensor(3.0))
    assert K.call("aten::pow.Scalar_out", x, x, torch.empty(3, 5)) == ERR["ARGS"]
    assert K.call("aten::pow.Scalar_out", 2, x, torch.empty(3, 4)) == ERR["SHAPE"]


@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_atan2(K, sa, sb):
    a, b = rnd(sa, F32, 1), rnd(sb, F32, 2)
    run(K, "aten::atan2.out", torch.atan2(a, b), a, b)


def test_atan2_special_and_int(K):
    a = torch.tensor([0.0, -0.0, 0.0, 1.0, float("inf"), float("nan")])
    b = torch.tensor([0.0, -1.0, -0.0, 0.0, float("inf"), 1.0])
    run(K, "aten::atan2.out", torch.atan2(a, b), a, b)
    ai, bi = torch.arange(-3, 3, dtype=I32), torch.arange(1, 7, dtype=I64)
    run(K, "aten::atan2.out", torch.atan2(ai, bi), ai, bi)
    assert K.call("aten::atan2.out", a, b, torch.empty(6, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::atan2.out", a, b, torch.empty(5)) == ERR["SHAPE"]
    assert K.call("aten::atan2.out", a, 1.0, torch.empty(6)) == ERR["ARGS"]


# ---- fmod, remainder, floor_divide, div modes ------------------------------

MOD = {"fmod": torch.fmod, "remainder": torch.remainder}


@pytest.mark.parametrize("name", sorted(MOD))
@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_mod_tensor(K, name, sa, sb):
    fn = MOD[name]
    a, b = rnd(sa, F32, 1) * 3, rnd(sb, F32, 2)
    run(K, f"aten::{name}.Tensor_out", fn(a, b), a, b)
    ai, bi = rnd(sa, I64, 1, -50, 50), rnd(sb, I64, 2, 1, 9) * (1 - 2 * rnd(sb, I64, 3, 0, 2))
    run(K, f"aten::{name}.Tensor_out", fn(ai, bi), ai, bi)
    run(K, f"aten::{name}.Tensor_out", fn(ai.to(I32), bi.to(I32)), ai.to(I32), bi.to(I32))


@pytest.mark.parametrize("name", sorted(MOD))
def test_mod_scalar_and_special(K, name):
    fn = MOD[name]
    x = torch.tensor([-7.5, -3.0, -0.0, 0.0, 2.5, 7.0, float("inf"), float("nan")])
    for s in (3, -3, 2.5, -0.75, 0.0, float("inf")):
        run(K, f"aten::{name}.Scalar_out", fn(x, s), x, s)
    xi = torch.arange(-7, 8, dtype=I64)
    for dt in (I32, I64):
        for s in (3, -3, 1, -1):
            run(K, f"aten::{name}.Scalar_out", fn(xi.to(dt), s), xi.to(dt), s)
        run(K, f"aten::{name}.Scalar_out", fn(xi.to(dt), 2.5), xi.to(dt), 2.5)  # -> float32
    m = torch.tensor([torch.iinfo(I64).min, 5])
    run(K, f"aten::{name}.Scalar_out", fn(m, -1), m, -1)
    # integer division by zero: torch raises ZeroDivisionError; the kernel returns ARGS
    assert K.call(f"aten::{name}.Scalar_out", xi, 0, torch.empty(15, dtype=I64)) == ERR["ARGS"]
    assert K.call(f"aten::{name}.Tensor_out", xi, torch.zeros(15, dtype=I64),
                  torch.empty(15, dtype=I64)) == ERR["ARGS"]
    assert K.call(f"aten::{name}.Tensor_out", xi, xi, torch.empty(15, dtype=I32)) == ERR["DTYPE"]
    assert K.call(f"aten::{name}.Tensor_out", x, x, torch.empty(7)) == ERR["SHAPE"]
    b = torch.tensor([True])
    assert K.call(f"aten::{name}.Tensor_out", b, b, torch.empty(1, dtype=BOOL)) == ERR["DTYPE"]
    assert K.call(f"aten::{name}.Scalar_out", x, x, torch.empty(8)) == ERR["ARGS"]


def test_remainder_scalar_tensor(K):
    x = torch.tensor([[-7.5, -3.0, -0.0, 0.0], [2.5, 7.0, float("inf"), float("nan")]])
    for s in (5, -5, 2.5, -0.75, 0.0):
        run(K, "aten::remainder.Scalar_Tensor_out", torch.remainder(s, x), s, x)
    xi = torch.tensor([-7, -3, -1, 1, 2, 7])
    for dt in (I32, I64):
        for s in (5, -5, 0):
            run(K, "aten::remainder.Scalar_Tensor_out", torch.remainder(s, xi.to(dt)), s, xi.to(dt))
        run(K, "aten::remainder.Scalar_Tensor_out", torch.remainder(2.5, xi.to(dt)), 2.5, xi.to(dt))
    assert K.call("aten::remainder.Scalar_Tensor_out", 3, torch.tensor([1, 0]),
                  torch.empty(2, dtype=I64)) == ERR["ARGS"]
    assert K.call("aten::remainder.Scalar_Tensor_out", 3, xi, torch.empty(6, dtype=I32)) == ERR["DTYPE"]
    assert K.call("aten::remainder.Scalar_Tensor_out", 3, xi, torch.empty(5, dtype=I64)) == ERR["SHAPE"]
    assert K.call("aten::remainder.Scalar_Tensor_out", xi, xi, torch.empty(6, dtype=I64)) == ERR["ARGS"]


@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_floor_divide(K, sa, sb):
    a, b = rnd(sa, F32, 1) * 5, rnd(sb, F32, 2)
    run(K, "aten::floor_divide.out", torch.floor_divide(a, b), a, b)
    ai, bi = rnd(sa, I64, 1, -50, 50), rnd(sb, I64, 2, 1, 7) * (1 - 2 * rnd(sb, I64, 3, 0, 2))
    run(K, "aten::floor_divide.out", torch.floor_divide(ai, bi), ai, bi)


def test_floor_divide_special(K):
    a = torch.tensor([7.0, -7.0, 7.0, -7.0, 0.0, -0.0, 1.0, -1.0, 0.0, float("nan"), 5.0, 1e30])
    b = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 0.0, 0.0, 1.0, float("inf"), 3.0])
    run(K, "aten::floor_divide.out", torch.floor_divide(a, b), a, b)
    ai = torch.tensor([torch.iinfo(I64).min, 7, -7], dtype=I64)
    bi = torch.tensor([-1, -2, 2], dtype=I64)
    run(K, "aten::floor_divide.out", torch.floor_divide(ai, bi), ai, bi)
    assert K.call("aten::floor_divide.out", ai, torch.tensor([1, 0, 1]), torch.empty(3, dtype=I64)) == ERR["ARGS"]
    assert K.call("aten::floor_divide.out", ai, bi, torch.empty(3)) == ERR["DTYPE"]
    assert K.call("aten::floor_divide.out", ai, 2, torch.empty(3, dtype=I64)) == ERR["ARGS"]


MODES = [None, "trunc", "floor"]


def _mode(m):
    return None if m is None else _s(m)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_div_out_mode(K, mode, sa, sb):
    a, b = rnd(sa, F32, 1) * 5, rnd(sb, F32, 2)
    run(K, "aten::div.out_mode", torch.div(a, b, rounding_mode=mode), a, b, _mode(mode))
    ai, bi = rnd(sa, I32, 1, -50, 50), rnd(sb, I64, 2, 1, 7) * (1 - 2 * rnd(sb, I64, 3, 0, 2))
    run(K, "aten::div.out_mode", torch.div(ai, bi, rounding_mode=mode), ai, bi, _mode(mode))


@pytest.mark.parametrize("mode", MODES)
def test_div_scalar_mode(K, mode):
    x = torch.tensor([-7.5, -3.0, -0.0, 0.0, 2.5, 7.0, float("inf"), float("nan")])
    for s in (2, -2, 0.5, -0.75, 0.0):
        run(K, "aten::div.Scalar_mode_out", torch.div(x, s, rounding_mode=mode), x, s, _mode(mode))
    xi = torch.arange(-9, 10, dtype=I64)
    for dt in (I32, I64):
        for s in (2, -2, 3, 1.5):
            run(K, "aten::div.Scalar_mode_out", torch.div(xi.to(dt), s, rounding_mode=mode),
                xi.to(dt), s, _mode(mode))


def test_div_mode_errors(K):
    x, xi = torch.randn(4), torch.arange(4)
    o = torch.empty(4)
    assert K.call("aten::div.out_mode", x, x, _s("round"), o) == ERR["ARGS"]
    assert K.call("aten::div.out_mode", x, x, 3, o) == ERR["ARGS"]
    assert K.call("aten::div.out_mode", x, x, o) == ERR["ARGS"]
    assert K.call("aten::div.out_mode", xi, xi, None, torch.empty(4, dtype=I64)) == ERR["DTYPE"]
    assert K.call("aten::div.out_mode", xi, xi + 1, _s("floor"), o) == ERR["DTYPE"]
    assert K.call("aten::div.Scalar_mode_out", xi, 0, _s("trunc"), torch.empty(4, dtype=I64)) == ERR["ARGS"]
    assert K.call("aten::div.Scalar_mode_out", x, 2, None, torch.empty(5)) == ERR["SHAPE"]
    assert K.call("aten::div.Scalar_mode_out", x, x, None, o) == ERR["ARGS"]


# ---- maximum / minimum, rsub ----------------------------------------------

MAXMIN = {"maximum": torch.maximum, "minimum": torch.minimum}


@pytest.mark.parametrize("name", sorted(MAXMIN))
@pytest.mark.parametrize("da,db", [(F32, F32), (I32, I32), (I64, I32), (BOOL, BOOL), (F32, I64)])
@pytest.mark.parametrize("sa,sb", SHAPES, ids=SID)
def test_maximum_minimum(K, name, da, db, sa, sb):
    a, b = rnd(sa, da, 1), rnd(sb, db, 2)
    run(K, f"aten::{name}.out", MAXMIN[name](a, b), a, b)


def test_maximum_minimum_nan_and_errors(K):
    a = torch.tensor([float("nan"), 1.0, 2.0, float("nan"), -float("inf")])
    b = torch.tensor([1.0, float("nan"), 3.0, float("nan"), 0.0])
    for name, fn in MAXMIN.items():
        run(K, f"aten::{name}.out", fn(a, b), a, b)
        assert K.call(f"aten::{name}.out", a, b, torch.empty(5, dtype=I64)) == ERR["DTYPE"]
        assert K.call(f"aten::{name}.out", a, b, torch.empty(1, 5)) == ERR["SHAPE"]
        assert K.call(f"aten::{name}.out", a, 1.0, torch.empty(5)) == ERR["ARGS"]
    a2 = a.clone()
    assert K.call("aten::maximum.out", a2, b, a2) == 0  # in place
    assert same(a2, torch.maximum(a, b))


def test_rsub(K):
    x = torch.randn(3, 5)
    for other, alpha in ((1, 1), (2.5, 1), (1.0, 2.5), (-3, 0.5)):
        run(K, "aten::rsub.Scalar_out", torch.rsub(x, other, alpha=alpha), x, other, alpha)
    for dt in (I32, I64):
        xi = torch.arange(-6, 6, dtype=dt).reshape(3, 4)
        for other, alpha in ((1, 1), (10, 3), (-2, -1)):
            run(K, "aten::rsub.Scalar_out", torch.rsub(xi, other, alpha=alpha), xi, other, alpha)
        run(K, "aten::rsub.Scalar_out", torch.rsub(xi, 0.5), xi, 0.5, 1)  # -> float32
    big = torch.tensor([2**62, -2**62])
    run(K, "aten::rsub.Scalar_out", torch.rsub(big, 2**62, alpha=3), big, 2**62, 3)  # wraps
    z = torch.tensor(4.0)
    run(K, "aten::rsub.Scalar_out", torch.rsub(z, 1), z, 1, 1)
    xi = torch.arange(4)
    assert K.call("aten::rsub.Scalar_out", xi, 1, 0.5, torch.empty(4, dtype=I64)) == ERR["DTYPE"]
    m = torch.tensor([True])
    assert K.call("aten::rsub.Scalar_out", m, True, 1, torch.empty(1, dtype=BOOL)) == ERR["DTYPE"]
    assert K.call("aten::rsub.Scalar_out", x, True, 1, torch.empty(3, 5)) == ERR["DTYPE"]
    assert K.call("aten::rsub.Scalar_out", x, 1, 1, torch.empty(3, 4)) == ERR["SHAPE"]
    assert K.call("aten::rsub.Scalar_out", x, x, 1, torch.empty(3, 5)) == ERR["ARGS"]
    assert K.call("aten::rsub.Scalar_out", x, 1, torch.empty(3, 5)) == ERR["ARGS"]
    y = x.clone()
    assert K.call("aten::rsub.Scalar_out", y, 1, 1, y) == 0 and same(y, 1 - x)


# ---- clamp.Tensor, where, masked_fill -------------------------------------

CLAMP = [((2, 3), (3,), (2, 1)), ((4,), (), ()), ((), (), ()), ((2, 1, 3), (4, 1), (3,)), ((0, 3), (3,), (1,))]


@pytest.mark.parametrize("sx,sl,sh", CLAMP, ids=[str(c) for c in CLAMP])
def test_clamp_tensor(K, sx, sl, sh):
    x, lo, hi = rnd(sx, F32, 1), rnd(sl, F32, 2) - 1, rnd(sh, F32, 3) + 1
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, lo, hi), x, lo, hi)
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, lo), x, lo, None)
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, None, hi), x, None, hi)
    xi, li, hi_ = rnd(sx, I32, 1, -9, 9), rnd(sl, I32, 2, -5, 0), rnd(sh, I32, 3, 0, 5)
    run(K, "aten::clamp.Tensor_out", torch.clamp(xi, li, hi_), xi, li, hi_)
    run(K, "aten::clamp.Tensor_out", torch.clamp(xi, li), xi, li, None)


def test_clamp_tensor_special(K):
    x = torch.tensor([1.0, float("nan"), 3.0, -2.0, 5.0])
    lo = torch.tensor([float("nan"), 0.0, 0.0, 0.0, 0.0])
    hi = torch.tensor([2.0, 2.0, float("nan"), -1.0, 4.0])
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, lo, hi), x, lo, hi)
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, lo), x, lo, None)
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, None, hi), x, None, hi)
    xi = torch.arange(-3, 3, dtype=I64)
    run(K, "aten::clamp.Tensor_out", torch.clamp(xi, torch.tensor(-1.5)), xi, torch.tensor(-1.5), None)
    run(K, "aten::clamp.Tensor_out", torch.clamp(x, torch.tensor(1)), x, torch.tensor(1), None)
    assert K.call("aten::clamp.Tensor_out", x, None, None, torch.empty(5)) == ERR["ARGS"]
    assert K.call("aten::clamp.Tensor_out", x, 0.0, hi, torch.empty(5)) == ERR["ARGS"]
    assert K.call("aten::clamp.Tensor_out", x, lo, hi, torch.empty(5, dtype=I64)) == ERR["DTYPE"]
    assert K.call("aten::clamp.Tensor_out", x, lo[:2], hi, torch.empty(5)) == ERR["SHAPE"]
    m = torch.tensor([True])
    assert K.call("aten::clamp.Tensor_out", m, m, None, torch.empty(1, dtype=BOOL)) == ERR["DTYPE"]
    y = x.clone()
    assert K.call("aten::clamp.Tensor_out", y, lo, hi, y) == 0 and same(y, torch.clamp(x, lo, hi))


WHERE = [((2, 3), (2, 3), (2, 3)), ((2, 3), (), (2, 3)), ((4, 4), (), ()), ((3, 1), (1, 4), (4,)),
         ((), (2, 2), ()), ((1, 2, 1), (3, 1, 1), (4,)), ((0, 2), (2,), ())]


@pytest.mark.parametrize("sc,sa,sb", WHERE, ids=[str(w) for w in WHERE])
@pytest.mark.parametrize("dtype", [F32, I32, I64, BOOL])
def test_where(K, sc, sa, sb, dtype):
    c, a, b = rnd(sc, BOOL, 1), rnd(sa, dtype, 2), rnd(sb, dtype, 3)
    run(K, "aten::where.self_out", torch.where(c, a, b), c, a, b)


def test_where_promotion_and_errors(K):
    c = torch.tensor([[True, False, True], [False, False, True]])
    x = torch.randn(2, 3)
    # torch.where(x > 0, x, 0): a 0-dim int64 / float64 constant does not widen fp32
    for k in (torch.tensor(0), torch.tensor(-float("inf")), torch.tensor(0.5, dtype=torch.float64)):
        run(K, "aten::where.self_out", torch.where(c, x, k), c, x, k)
        run(K, "aten::where.self_out", torch.where(c, k, x), c, k, x)
    xi = torch.arange(6, dtype=I32).reshape(2, 3)
    run(K, "aten::where.self_out", torch.where(c, xi, torch.tensor(7)), c, xi, torch.tensor(7))
    run(K, "aten::where.self_out", torch.where(c, xi, torch.tensor(0.5)), c, xi, torch.tensor(0.5))
    run(K, "aten::where.self_out", torch.where(c, xi, x), c, xi, x)
    run(K, "aten::where.self_out", torch.where(c, c, xi.to(I64)), c, c, xi.to(I64))
    o = torch.empty(2, 3)
    assert K.call("aten::where.self_out", c.to(torch.uint8), x, x, o) == ERR["DTYPE"]
    assert K.call("aten::where.self_out", c, x, x, torch.empty(2, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::where.self_out", c, xi, xi, o) == ERR["DTYPE"]
    assert K.call("aten::where.self_out", c, x, torch.randn(2), o) == ERR["SHAPE"]
    assert K.call("aten::where.self_out", c, x, x, torch.empty(3, 3)) == ERR["SHAPE"]
    assert K.call("aten::where.self_out", c, x, 0.0, o) == ERR["ARGS"]
    assert K.call("aten::where.self_out", c, x, o) == ERR["ARGS"]
    y = x.clone()
    assert K.call("aten::where.self_out", c, torch.tensor(0.0), y, y) == 0  # in place over other
    assert same(y, torch.where(c, torch.tensor(0.0), x))


def test_causal_mask_where(K):
    T = 5
    mask = torch.ones(T, T).tril() == 0
    s = torch.randn(2, T, T)
    ninf = torch.tensor(float("-inf"))
    run(K, "aten::where.self_out", s.masked_fill(mask, float("-inf")), mask, ninf, s)


MFILL = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (3, 1)), ((), ()), ((5,), ()), ((0, 2), (2,))]


@pytest.mark.parametrize("sx,sm", MFILL, ids=[str(m) for m in MFILL])
@pytest.mark.parametrize("dtype", [F32, I32, I64, BOOL])
def test_masked_fill(K, sx, sm, dtype):
    x, m = rnd(sx, dtype, 1), rnd(sm, BOOL, 2)
    values = {F32: (float("-inf"), 0.5, 3), I32: (7, -2, 2.7), I64: (-9, 2**40, -3.9), BOOL: (True, 0, 1.0)}
    for v in values[dtype]:
        run(K, "aten::masked_fill.Scalar_out", x.masked_fill(m, v), x, m, v)


def test_masked_fill_errors(K):
    x, m = torch.randn(3, 4), torch.rand(3, 4) > 0.5
    o = torch.empty(3, 4)
    assert K.call("aten::masked_fill.Scalar_out", x, m.float(), 1.0, o) == ERR["DTYPE"]
    assert K.call("aten::masked_fill.Scalar_out", x, m, 1.0, torch.empty(3, 4, dtype=I64)) == ERR["DTYPE"]
    assert K.call("aten::masked_fill.Scalar_out", x[0], m, 1.0, torch.empty(3, 4)) == ERR["SHAPE"]
    assert K.call("aten::masked_fill.Scalar_out", x, m[:2], 1.0, o) == ERR["SHAPE"]
    assert K.call("aten::masked_fill.Scalar_out", x, m, 1.0, torch.empty(4, 3)) == ERR["SHAPE"]
    assert K.call("aten::masked_fill.Scalar_out", x, m, x, o) == ERR["ARGS"]
    xi = torch.arange(4)
    assert K.call("aten::masked_fill.Scalar_out", xi, m[0], float("nan"), torch.empty(4, dtype=I64)) == ERR["ARGS"]
    y = x.clone()
    assert K.call("aten::masked_fill.Scalar_out", y, m, -1.0, y) == 0 and same(y, x.masked_fill(m, -1.0))
