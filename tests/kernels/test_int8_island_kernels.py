"""The int8 kernels that keep issue 36's ops in int8 (kernels/op_mote_*.c:
grouped_conv2d_s8, ...) against the Python integer reference
aot/compiler/quant/int8ref.py, byte for byte, through ctypes (the harness of
test_int8_kernels.py); the integer reference against torch's float ops."""
import numpy as np
import pytest
import torch

from aot.compiler.quant import int8ref as R
from tests.kernels.test_int8_kernels import ERR_ARGS, ERR_DTYPE, ERR_SHAPE, _qparams, libs, run  # noqa: F401

F = torch.nn.functional

# ----------------------------------------------------------------------------- grouped conv
# n, h, w, cin, cout, groups, (kh, kw), stride, padding, dilation, act
GCONV_CASES = [
    (1, 8, 8, 32, 32, 2, (3, 3), (1, 1), (1, 1), (1, 1), (-128, 127)),     # RegNetX group width 16
    (1, 7, 6, 24, 48, 3, (3, 3), (2, 2), (1, 1), (1, 1), (-40, 127)),      # stride 2, a ReLU clamp
    (2, 5, 9, 8, 4, 4, (3, 2), (1, 2), (2, 0), (2, 1), (-128, 127)),       # Cout/groups 1
    (1, 4, 4, 6, 9, 3, (1, 1), (1, 1), (0, 0), (1, 1), (-128, 60)),        # grouped pointwise
]
SYM_GCONV = "mote_kernel_mote_grouped_conv2d_s8_out"


def _gconv_args(rng, case):
    n, h, w, cin, cout, g, (kh, kw), st, pd, dl, (amin, amax) = case
    x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
    wt = rng.integers(-127, 128, (cout, kh, kw, cin // g), dtype=np.int8)
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qparams(rng, cout, kh * kw * cin // g)
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    return [x, wt, bias, m, s, list(st), list(pd), list(dl), g, izp, ozp, amin, amax]


@pytest.mark.parametrize("case", GCONV_CASES)
def test_grouped_conv2d_s8_bytes(libs, case):
    ref, _ = libs
    rng = np.random.default_rng(sum(map(hash, map(str, case))) % 2 ** 32)
    for _ in range(3):
        args = _gconv_args(rng, case)
        exp = R.grouped_conv2d_s8(*args)
        rc, out = run(ref, SYM_GCONV, args, exp.shape)
        assert rc == 0
        assert np.array_equal(out, exp)
        assert len(np.unique(exp)) > 3     # not saturated: the values carry information


def test_grouped_conv2d_s8_reference_is_torch():
    """int8ref's accumulators are torch's grouped conv2d of (x - zp) with the weight
    [Cout, KH, KW, Cin/groups] permuted back to torch's [Cout, Cin/groups, KH, KW]."""
    rng = np.random.default_rng(1)
    for case in GCONV_CASES:
        n, h, w, cin, cout, g, (kh, kw), st, pd, dl, _ = case
        x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
        wt = rng.integers(-127, 128, (cout, kh, kw, cin // g), dtype=np.int8)
        izp = int(rng.integers(-128, 128))
        want = F.conv2d(torch.tensor(x, dtype=torch.float64).permute(0, 3, 1, 2) - izp,
                        torch.tensor(wt, dtype=torch.float64).permute(0, 3, 1, 2), None, st, pd, dl, g)
        # multiplier 2^30, shift -10: out = round(acc / 2^11)
        got = R.grouped_conv2d_s8(x, wt, np.zeros(cout, np.int32), np.full(cout, 1 << 30, np.int32),
                                  np.full(cout, -10, np.int32), st, pd, dl, g, izp, 0, -128, 127)
        want = np.clip(np.round(want.permute(0, 2, 3, 1).numpy() / 2048), -128, 127)
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 1   # rounding ties only


def test_grouped_conv2d_s8_errors(libs):
    ref, _ = libs
    rng = np.random.default_rng(2)
    good = _gconv_args(rng, GCONV_CASES[1])
    exp = R.grouped_conv2d_s8(*good)
    assert run(ref, SYM_GCONV, good, exp.shape)[0] == 0
    bad = [(8, 0, ERR_ARGS),                            # groups 0
           (8, 5, ERR_SHAPE),                           # groups do not divide the channels
           (8, 2, ERR_SHAPE),                           # weight Cin/groups * groups != Cin
           (5, [0, 1], ERR_ARGS),                       # stride 0
           (9, 200, ERR_ARGS),                          # zero point out of int8
           (12, -50, ERR_ARGS),                         # act_max < act_min (-40)
           (4, np.full(48, 40, np.int32), ERR_ARGS),    # shift out of range
           (2, np.zeros(47, np.int32), ERR_SHAPE),      # bias length
           (1, good[1].astype(np.int16), ERR_DTYPE)]
    for i, v, code in bad:
        args = list(good)
        args[i] = v
        assert run(ref, SYM_GCONV, args, exp.shape)[0] == code, (i, v)
    assert run(ref, SYM_GCONV, good, (1, exp.shape[1] + 1, exp.shape[2], 48))[0] == ERR_SHAPE
    assert run(ref, SYM_GCONV, good[:-1], exp.shape)[0] == ERR_ARGS


# ----------------------------------------------------------------------------- broadcast mul
# (a shape, b shape): b broadcasts over a (same rank, each size a's or 1)
MUL_CASES = [
    ((1, 5, 4, 8), (1, 1, 1, 8)),      # squeeze-excitation gate over NHWC
    ((2, 3, 4, 5), (2, 3, 1, 1)),      # a gate over NCHW (plain layout)
    ((3, 7), (1, 7)),
    ((4, 1, 6), (1, 1, 1)),            # one value
    ((2, 6, 5), (2, 1, 5)),            # a middle dim broadcast
]
SYM_MUL = "mote_kernel_mote_mul_s8_out"


def _mul_args(rng, sa, sb):
    a = rng.integers(-128, 128, sa, dtype=np.int8)
    b = rng.integers(-128, 128, sb, dtype=np.int8)
    m, s = R.quantize_multiplier(float(rng.uniform(0.2, 1.5)) / 128)
    return [a, b, int(rng.integers(-128, 128)), int(rng.integers(-128, 128)), int(rng.integers(-128, 128)),
            m, s, -128, 127]


@pytest.mark.parametrize("sa,sb", MUL_CASES)
def test_mul_s8_broadcast_bytes(libs, sa, sb):
    ref, _ = libs
    rng = np.random.default_rng(sum(sa) * 31 + sum(sb))
    for _ in range(3):
        args = _mul_args(rng, sa, sb)
        exp = R.mul_s8(*args)
        # the reference is numpy's broadcast of the same integer arithmetic
        assert np.array_equal(exp, R.mul_s8(args[0], np.ascontiguousarray(np.broadcast_to(args[1], sa)),
                                            *args[2:]))
        rc, out = run(ref, SYM_MUL, args, sa)
        assert rc == 0
        assert np.array_equal(out, exp)
        assert len(np.unique(exp)) > 3


def test_mul_s8_broadcast_errors(libs):
    ref, _ = libs
    rng = np.random.default_rng(3)
    good = _mul_args(rng, (1, 5, 4, 8), (1, 1, 1, 8))
    assert run(ref, SYM_MUL, good, (1, 5, 4, 8))[0] == 0
    for b_shape in [(1, 1, 1, 3), (1, 8), (1, 5, 4, 8, 1), (2, 1, 1, 8)]:   # not broadcastable to a
        args = list(good)
        args[1] = rng.integers(-128, 128, b_shape, dtype=np.int8)
        assert run(ref, SYM_MUL, args, (1, 5, 4, 8))[0] == ERR_SHAPE, b_shape
        with pytest.raises(ValueError):
            R.mul_s8(*args)
    # a broadcast over b is not taken (the lowering puts the full operand first); out is a's shape
    args = list(good)
    args[0], args[1] = good[1], good[0]
    assert run(ref, SYM_MUL, args, (1, 5, 4, 8))[0] == ERR_SHAPE
    assert run(ref, SYM_MUL, good, (1, 5, 4, 1))[0] == ERR_SHAPE


# ----------------------------------------------------------------------------- max pool, ceil_mode
# (n, h, w, c), kernel, stride, padding, dilation
CEIL_POOL_CASES = [
    ((1, 13, 13, 8), (3, 3), (2, 2), (0, 0), (1, 1)),     # SqueezeNet: 13 -> 6 (floor 6), 14 -> 7 (floor 6)
    ((1, 14, 11, 5), (3, 3), (2, 2), (0, 0), (1, 1)),
    ((2, 10, 9, 3), (3, 2), (2, 3), (1, 1), (1, 1)),      # GoogLeNet's 3x3/2 with padding
    ((1, 7, 8, 4), (2, 2), (2, 2), (0, 0), (2, 1)),       # dilation
    ((1, 5, 5, 6), (3, 3), (3, 3), (1, 1), (1, 1)),       # a last window that would start in the right padding
]
SYM_MAXPOOL = "mote_kernel_mote_max_pool2d_s8_out"


def _pool_args(rng, case, ceil):
    shape, k, st, pd, dl = case
    return [rng.integers(-128, 128, shape, dtype=np.int8), list(k), list(st), list(pd), list(dl), -100, 120,
            ceil]


@pytest.mark.parametrize("case", CEIL_POOL_CASES)
def test_max_pool2d_s8_ceil_mode_bytes(libs, case):
    ref, _ = libs
    rng = np.random.default_rng(len(CEIL_POOL_CASES) + sum(case[0]))
    args = _pool_args(rng, case, True)
    exp = R.max_pool2d_s8(*args)
    rc, out = run(ref, SYM_MAXPOOL, args, exp.shape)
    assert rc == 0 and np.array_equal(out, exp)
    # torch's own ceil_mode pool of the same values (dilation, padding) gives these bytes before the clamp
    x = torch.tensor(args[0], dtype=torch.float32).permute(0, 3, 1, 2)
    want = F.max_pool2d(x, case[1], case[2], case[3], case[4], ceil_mode=True).permute(0, 2, 3, 1)
    assert np.array_equal(exp, np.clip(want.numpy(), -100, 120).astype(np.int8))
    # ceil_mode False, and the programs without the argument (8 arguments): the floor size
    floor = R.max_pool2d_s8(*args[:7])
    for a in (args[:7] + [False], args[:7]):
        rc, out = run(ref, SYM_MAXPOOL, a, floor.shape)
        assert rc == 0 and np.array_equal(out, floor)


def test_max_pool2d_s8_ceil_mode_errors(libs):
    ref, _ = libs
    rng = np.random.default_rng(4)
    args = _pool_args(rng, CEIL_POOL_CASES[0], True)
    exp = R.max_pool2d_s8(*args)
    assert exp.shape == (1, 6, 6, 8)
    assert run(ref, SYM_MAXPOOL, args, (1, 6, 6, 8))[0] == 0
    assert run(ref, SYM_MAXPOOL, args[:7] + [False], (1, 6, 6, 8))[0] == 0     # 13: ceil = floor
    args14 = _pool_args(rng, CEIL_POOL_CASES[1], True)
    assert run(ref, SYM_MAXPOOL, args14, (1, 7, 5, 5))[0] == 0
    assert run(ref, SYM_MAXPOOL, args14, (1, 6, 5, 5))[0] == ERR_SHAPE         # the floor size with ceil_mode
    assert run(ref, SYM_MAXPOOL, args14[:7] + [False], (1, 7, 5, 5))[0] == ERR_SHAPE
    assert run(ref, SYM_MAXPOOL, args14[:7] + [1], (1, 7, 5, 5))[0] == ERR_ARGS  # not a bool
