"""aot/compiler/quant/int8ref.py: hand-computed cases and float sanity for the int8 reference."""
import math

import numpy as np
import pytest
import torch

from aot.compiler.quant import int8ref as R

M_HALF = 1 << 30  # Q31 0.5


# ----------------------------------------------------------------------------- requantization

@pytest.mark.parametrize("real,expected", [
    (0.5, (1 << 30, 0)),
    (1.0, (1 << 30, 1)),
    (0.75, (3 << 29, 0)),
    (0.25, (1 << 30, -1)),
    (3.0, (3 << 29, 2)),
    (0.0, (0, 0)),
    (1e-12, (0, 0)),                     # exponent below -31 -> zero multiplier
    (1 - 2 ** -40, (1 << 30, 1)),        # mantissa rounds up to 2^31 -> renormalised
    (0.1, (1717986918, -3)),             # round(0.8 * 2^31) = 1717986918.4 -> ...918
])
def test_quantize_multiplier(real, expected):
    assert R.quantize_multiplier(real) == expected


def test_quantize_multiplier_range_and_errors():
    for r in np.geomspace(1e-6, 100, 200):
        m, s = R.quantize_multiplier(r)
        assert (1 << 30) <= m < (1 << 31)
        assert abs(m * 2.0 ** (s - 31) - r) <= r * 2 ** -30
    with pytest.raises(ValueError):
        R.quantize_multiplier(-0.5)
    with pytest.raises(ValueError):
        R.quantize_multiplier(float("nan"))


@pytest.mark.parametrize("a,b,expected", [
    (R.INT32_MIN, R.INT32_MIN, R.INT32_MAX),   # the one overflowing case saturates
    (1 << 30, 1 << 30, 1 << 29),
    (-(1 << 30), 1 << 30, -(1 << 29)),
    (3, 1 << 30, 2),        # 1.5 -> 2 (positive tie away from zero)
    (-3, 1 << 30, -1),      # -1.5 -> -1 (negative nudge 1-2^30, C division)
    (1, 1 << 30, 1),        # 0.5 -> 1
    (-1, 1 << 30, 0),       # -0.5 -> 0
    (R.INT32_MAX, R.INT32_MAX, R.INT32_MAX - 1),
    (R.INT32_MIN, R.INT32_MAX, -R.INT32_MAX),
    (0, R.INT32_MIN, 0),
])
def test_srdhm(a, b, expected):
    assert int(R.srdhm(a, b)) == expected


@pytest.mark.parametrize("x,e,expected", [
    (5, 1, 3), (-5, 1, -3),         # +-2.5 -> away from zero
    (6, 2, 2), (-6, 2, -2),         # +-1.5
    (-7, 2, -2), (-5, 2, -1),       # -1.75, -1.25
    (7, 0, 7), (-7, 0, -7),
    (R.INT32_MIN, 31, -1), (R.INT32_MAX, 31, 1),
    (R.INT32_MIN, 1, -(1 << 30)),
])
def test_rdbpot(x, e, expected):
    assert int(R.rdbpot(x, e)) == expected


def test_rdbpot_rejects_bad_exponent():
    with pytest.raises(ValueError):
        R.rdbpot(1, -1)
    with pytest.raises(ValueError):
        R.rdbpot(1, 32)


@pytest.mark.parametrize("x,m,s,expected", [
    (100, M_HALF, 0, 50),
    (100, M_HALF, -1, 25),
    (100, M_HALF, 2, 200),
    (-3, M_HALF, 0, -1),            # SRDHM tie toward zero for negatives
    (3, M_HALF, 0, 2),
    (5, M_HALF, -1, 2),             # 5/4 = 1.25, but SRDHM 2.5 -> 3, RDBPOT(3,1) = 2 (double rounding)
    (-5, M_HALF, -1, -1),           # -2.5 -> SRDHM -2 -> RDBPOT(-2,1) = -1
    (R.INT32_MIN, M_HALF, 0, -(1 << 30)),
    (R.INT32_MAX, M_HALF, 1, -1),   # x * 2 wraps to -2 like C int32; -1 * ... -> -1
    (1 << 30, M_HALF, 2, 0),        # x * 2^2 = 2^32 wraps to 0 like C int32
    (7, 0, 0, 0),
])
def test_requantize_cases(x, m, s, expected):
    assert int(R.requantize(x, m, s)) == expected


def test_requantize_per_channel_broadcast():
    x = np.array([[100, 100, -100]], np.int32)
    out = R.requantize(x, np.array([M_HALF, M_HALF, M_HALF]), np.array([0, -1, 1]))
    assert out.tolist() == [[50, 25, -100]]
    assert out.dtype == np.int32


def test_requantize_matches_float_within_one():
    rng = np.random.default_rng(0)
    x = rng.integers(-(1 << 24), 1 << 24, 20000)
    reals = rng.uniform(1e-5, 3.0, 20000)
    ms, ss = zip(*(R.quantize_multiplier(r) for r in reals))
    got = R.requantize(x, np.array(ms), np.array(ss)).astype(np.int64)
    want = np.round(x * reals).astype(np.int64)
    assert np.abs(got - want).max() <= 1
    assert (got == want).mean() > 0.9


# ----------------------------------------------------------------------------- ops

ONE = R.quantize_multiplier(1.0)  # requantize is then the identity


def _conv_float(x, w, bias, izp, stride, padding, dilation, groups):
    xt = torch.from_numpy(x.astype(np.float64) - izp).permute(0, 3, 1, 2)
    wt = torch.from_numpy(w.astype(np.float64))
    y = torch.nn.functional.conv2d(xt, wt, torch.from_numpy(bias.astype(np.float64)),
                                   stride, padding, dilation, groups)
    return y.permute(0, 2, 3, 1).numpy()


def test_conv2d_s8_hand_case():
    # 1x3x3x1 input, 2x2 kernel, one channel, identity requantization
    x = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9], np.int8).reshape(1, 3, 3, 1)
    w = np.array([1, 0, 0, -1], np.int8).reshape(1, 2, 2, 1)
    out = R.conv2d_s8(x, w, np.array([10], np.int32), np.array([ONE[0]]), np.array([ONE[1]]),
                      [1, 1], [0, 0], [1, 1], 1, -3, -128, 127)
    # acc = (x00-1) - (x11-1) + 10 = x00 - x11 + 10 = 6 everywhere; + out_zp -3
    assert out.dtype == np.int8 and out.shape == (1, 2, 2, 1)
    assert out.ravel().tolist() == [3, 3, 3, 3]


def test_conv2d_s8_padding_taps_contribute_zero():
    x = np.full((1, 1, 1, 1), 7, np.int8)
    w = np.ones((1, 3, 3, 1), np.int8)
    out = R.conv2d_s8(x, w, np.zeros(1, np.int32), np.array([ONE[0]]), np.array([ONE[1]]),
                      [1, 1], [1, 1], [1, 1], 5, 0, -128, 127)
    assert out.ravel().tolist() == [2]   # only the centre tap: 7 - 5


@pytest.mark.parametrize("cin,cout,k,stride,pad,dil", [
    (3, 5, (3, 3), (2, 2), (1, 1), (1, 1)),
    (7, 13, (1, 1), (1, 1), (0, 0), (1, 1)),
    (5, 6, (3, 2), (1, 2), (2, 1), (2, 1)),
    (1, 17, (10, 4), (2, 2), (5, 1), (1, 1)),
])
def test_conv2d_s8_vs_float(cin, cout, k, stride, pad, dil):
    rng = np.random.default_rng(cin * 100 + cout)
    x = rng.integers(-128, 128, (2, 11, 9, cin)).astype(np.int8)
    w = rng.integers(-127, 128, (cout, k[0], k[1], cin)).astype(np.int8)
    bias = rng.integers(-5000, 5000, cout).astype(np.int32)
    reals = rng.uniform(1e-4, 2e-3, cout)
    m, s = (np.array(v) for v in zip(*(R.quantize_multiplier(r) for r in reals)))
    izp, ozp = -7, 4
    out = R.conv2d_s8(x, w, bias, m, s, stride, pad, dil, izp, ozp, -100, 120)
    acc = _conv_float(x, w.transpose(0, 3, 1, 2), bias, izp, stride, pad, dil, 1)
    want = np.clip(np.round(acc * reals) + ozp, -100, 120)
    assert out.shape == want.shape
    assert np.abs(out.astype(np.int64) - want).max() <= 1
    assert out.min() >= -100 and out.max() <= 120


@pytest.mark.parametrize("c,dm,stride,pad", [(6, 1, (2, 2), (1, 1)), (3, 2, (1, 1), (0, 0)),
                                             (17, 1, (1, 2), (1, 0))])
def test_depthwise_conv2d_s8_vs_float(c, dm, stride, pad):
    rng = np.random.default_rng(c + dm)
    x = rng.integers(-128, 128, (1, 8, 7, c)).astype(np.int8)
    cout = c * dm
    w = rng.integers(-127, 128, (1, 3, 3, cout)).astype(np.int8)
    bias = rng.integers(-500, 500, cout).astype(np.int32)
    reals = rng.uniform(1e-3, 1e-2, cout)
    m, s = (np.array(v) for v in zip(*(R.quantize_multiplier(r) for r in reals)))
    out = R.depthwise_conv2d_s8(x, w, bias, m, s, stride, pad, [1, 1], dm, 3, -2, -128, 127)
    acc = _conv_float(x, w[0].transpose(2, 0, 1)[:, None], bias, 3, stride, pad, (1, 1), c)
    want = np.clip(np.round(acc * reals) - 2, -128, 127)
    assert out.shape == want.shape
    assert np.abs(out.astype(np.int64) - want).max() <= 1


def test_linear_s8_hand_and_float():
    x = np.array([[1, 2, 3]], np.int8)
    w = np.array([[1, 1, 1], [0, -2, 1]], np.int8)
    out = R.linear_s8(x, w, np.array([0, 100], np.int32), np.array([ONE[0]] * 2),
                      np.array([ONE[1]] * 2), 1, 0, -128, 127)
    assert out.tolist() == [[3, 100 - 2 + 2]]
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, (3, 17)).astype(np.int8)
    w = rng.integers(-127, 128, (9, 17)).astype(np.int8)
    reals = rng.uniform(1e-3, 5e-3, 9)
    m, s = (np.array(v) for v in zip(*(R.quantize_multiplier(r) for r in reals)))
    out = R.linear_s8(x, w, np.zeros(9, np.int32), m, s, 5, -1, -128, 127)
    want = np.clip(np.round(((x.astype(np.int64) - 5) @ w.T.astype(np.int64)) * reals) - 1,
                   -128, 127)
    assert np.abs(out.astype(np.int64) - want).max() <= 1
    with pytest.raises(ValueError):
        R.linear_s8(x, w[:, :5], np.zeros(9, np.int32), m, s, 0, 0, -128, 127)


def test_add_s8_vs_float():
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, (2, 5, 3, 7)).astype(np.int8)
    b = rng.integers(-128, 128, (2, 5, 3, 7)).astype(np.int8)
    sa, za, sb, zb, so, zo = 0.02, -3, 0.05, 10, 0.06, 1
    p = R.add_params(sa, sb, so)
    assert p["left_shift"] == 20
    out = R.add_s8(a, b, za, p["a_multiplier"], p["a_shift"], zb, p["b_multiplier"],
                   p["b_shift"], p["left_shift"], zo, p["output_multiplier"], p["output_shift"],
                   -128, 127)
    want = np.clip(np.round(((a.astype(np.int64) - za) * sa + (b.astype(np.int64) - zb) * sb) / so) + zo,
                   -128, 127)
    assert np.abs(out.astype(np.int64) - want).max() <= 1
    # fused relu: clamp at the output zero point
    out2 = R.add_s8(a, b, za, p["a_multiplier"], p["a_shift"], zb, p["b_multiplier"],
                    p["b_shift"], 20, zo, p["output_multiplier"], p["output_shift"], zo, 127)
    assert out2.min() == zo


def test_mul_s8_vs_float():
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (4, 9)).astype(np.int8)
    b = rng.integers(-128, 128, (4, 9)).astype(np.int8)
    sa, sb, so = 0.03, 0.02, 0.1
    m, s = R.quantize_multiplier(sa * sb / so)
    out = R.mul_s8(a, b, 2, -5, 3, m, s, -128, 127)
    want = np.clip(np.round((a.astype(np.int64) - 2) * (b.astype(np.int64) + 5) * sa * sb / so)
                   + 3, -128, 127)
    assert np.abs(out.astype(np.int64) - want).max() <= 1


def test_avg_pool2d_s8_rounding_and_padding():
    x = np.array([1, 2, -1, -2], np.int8).reshape(1, 1, 4, 1)
    out = R.avg_pool2d_s8(x, [1, 2], [1, 2], [0, 0], True, 0, -128, 127)
    assert out.ravel().tolist() == [2, -2]          # 1.5 -> 2, -1.5 -> -2
    x = np.full((1, 2, 2, 1), 10, np.int8)
    inc = R.avg_pool2d_s8(x, [3, 3], [1, 1], [1, 1], True, -5, -128, 127)
    exc = R.avg_pool2d_s8(x, [3, 3], [1, 1], [1, 1], False, -5, -128, 127)
    # corner: 4 valid taps of 10 + 5 padded taps of -5 -> 15/9 = 1.67 -> 2
    assert inc.ravel().tolist() == [2, 2, 2, 2]
    assert exc.ravel().tolist() == [10, 10, 10, 10]


def test_avg_pool2d_s8_vs_torch():
    rng = np.random.default_rng(6)
    x = rng.integers(-128, 128, (1, 9, 7, 5)).astype(np.int8)
    for cip in (True, False):
        out = R.avg_pool2d_s8(x, [3, 3], [2, 2], [1, 1], cip, 0, -128, 127)
        xt = torch.from_numpy(x.astype(np.float64)).permute(0, 3, 1, 2)
        want = torch.nn.functional.avg_pool2d(xt, 3, 2, 1, count_include_pad=cip)
        want = want.permute(0, 2, 3, 1).numpy()
        assert np.abs(out - want).max() <= 0.5 + 1e-9


def test_max_pool2d_s8_vs_torch():
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, (2, 9, 8, 3)).astype(np.int8)
    x[0, 0, 0, 0] = -128
    out = R.max_pool2d_s8(x, [3, 3], [2, 2], [1, 1], [1, 1], -128, 127)
    xt = torch.from_numpy(x.astype(np.float32)).permute(0, 3, 1, 2)
    want = torch.nn.functional.max_pool2d(xt, 3, 2, 1).permute(0, 2, 3, 1).numpy()
    assert np.array_equal(out, want.astype(np.int8))
    out = R.max_pool2d_s8(x, [2, 2], [], [0, 0], [1, 1], -10, 50)  # default stride = kernel
    want = torch.nn.functional.max_pool2d(xt, 2).permute(0, 2, 3, 1).numpy().clip(-10, 50)
    assert np.array_equal(out, want.astype(np.int8))


def test_mean_s8():
    x = np.arange(-8, 8, dtype=np.int8).reshape(1, 4, 2, 2)
    m, s = R.quantize_multiplier(1.0 / 8)
    out = R.mean_s8(x, 0, 0, m, s)
    # channel 0: -8,-6,...,6 -> mean -1; channel 1: -7..7 -> 0
    assert out.shape == (1, 1, 1, 2) and out.ravel().tolist() == [-1, 0]
    rng = np.random.default_rng(8)
    x = rng.integers(-128, 128, (2, 5, 6, 11)).astype(np.int8)
    r = 0.05 / (0.01 * 30)
    m, s = R.quantize_multiplier(r)
    out = R.mean_s8(x, -3, 7, m, s)
    want = np.clip(np.round((x.astype(np.int64) + 3).sum(axis=(1, 2), keepdims=True) * r) + 7,
                   -128, 127)
    assert np.abs(out - want).max() <= 1


def test_pad_s8():
    x = np.arange(6, dtype=np.int8).reshape(1, 2, 3, 1)
    out = R.pad_s8(x, [1, 0, 2, 1], -9)
    assert out.shape == (1, 3, 6, 1)
    assert out[0, :, :, 0].tolist() == [[-9] * 6, [-9, -9, 0, 1, 2, -9], [-9, -9, 3, 4, 5, -9]]
    with pytest.raises(ValueError):
        R.pad_s8(x, [-1, 0, 0, 0], 0)


def test_rejects_wrong_dtypes_and_shapes():
    with pytest.raises(ValueError):
        R.conv2d_s8(np.zeros((1, 2, 2, 1), np.int16), np.zeros((1, 1, 1, 1), np.int8),
                    np.zeros(1, np.int32), [1], [0], [1, 1], [0, 0], [1, 1], 0, 0, -128, 127)
    with pytest.raises(ValueError):
        R.add_s8(np.zeros(3, np.int8), np.zeros(4, np.int8), 0, 1, 0, 0, 1, 0, 20, 0, 1, 0,
                 -128, 127)


def test_resnet8_sized_conv_is_fast():
    import time
    rng = np.random.default_rng(9)
    x = rng.integers(-128, 128, (1, 32, 32, 16)).astype(np.int8)
    w = rng.integers(-127, 128, (16, 3, 3, 16)).astype(np.int8)
    one = np.full(16, ONE[0]), np.full(16, ONE[1])
    t = time.perf_counter()
    for _ in range(5):
        R.conv2d_s8(x, w, np.zeros(16, np.int32), *one, [1, 1], [1, 1], [1, 1], 0, 0, -128, 127)
    assert (time.perf_counter() - t) / 5 < 0.2
    assert math.isfinite(t)


# ----------------------------------------------------------------------------- softmax

def _float_softmax_q(x, scale):
    """Float softmax of the dequantized rows, in output quanta (x 256)."""
    f = x.astype(np.float64) * scale
    p = np.exp(f - f.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True) * 256.0


@pytest.mark.parametrize("scale,expected", [
    (0.1, (1717986918, 23, -248)),        # 0.1 * 2^26 = 0.8 * 2^23; radius 31 * 2^26 / 2^23
    (1 / 16, (1 << 30, 23, -248)),
    (1.0, (1 << 30, 27, -15)),            # floor(31 * 2^26 / 2^27) = 15
    (0.01, (1374389535, 20, -1984)),
    (2.0 ** -27, (1 << 30, 0, -(31 << 26))),
    (40.0, ((1 << 31) - 1, 31, 0)),       # capped at 2^31 - 1: only the max counts
])
def test_softmax_params(scale, expected):
    assert R.softmax_params(scale) == expected


def test_softmax_params_errors():
    with pytest.raises(ValueError):
        R.softmax_params(2.0 ** -29)      # left shift would be negative
    with pytest.raises(ValueError):
        R.softmax_params(float("inf"))


def test_exp_and_reciprocal_fixed_point():
    a = -np.arange(0, 16 << 26, 997 << 13, dtype=np.int64)       # Q5.26 in [-16, 0]
    e = R.exp_on_negative_values(a).astype(np.float64) / 2 ** 31
    # 4th-order Taylor polynomial on [-1/4, 0): |x^5 / 120| <= 2.6e-7 at x = 1/8
    assert np.abs(e - np.exp(a / 2 ** 26)).max() < 2.6e-7
    assert R.exp_on_negative_values(np.array([0]))[0] == R.INT32_MAX
    # -1 = -1/4 (polynomial) - 1/4 - 1/2 (barrel constants): 224 ulp above exp(-1) * 2^31
    assert R.exp_on_negative_values(np.array([-(1 << 26)]))[0] == 790015308
    assert abs(790015308 - math.exp(-1) * 2 ** 31) < 300
    x = np.arange(0, 1 << 31, 1 << 21, dtype=np.int64)
    r = R.one_over_one_plus_x(x).astype(np.float64) / 2 ** 31
    assert np.abs(r - 1 / (1 + x / 2 ** 31)).max() < 4e-9                 # a few ulp of Q0.31
    assert R.one_over_one_plus_x(np.array([1 << 30]))[0] == 1431655762   # 2/3: 2^31 * 2/3 - 3.3


@pytest.mark.parametrize("scale", [0.003, 0.01, 0.02, 0.05, 1 / 16, 0.1, 0.3, 1.0])
def test_softmax_s8_close_to_float(scale):
    rng = np.random.default_rng(int(scale * 1000))
    for depth in (1, 2, 5, 10, 64, 300):
        x = rng.integers(-128, 128, (50, depth), dtype=np.int8)
        out = R.softmax_s8(x, *R.softmax_params(scale))
        assert out.dtype == np.int8 and out.shape == x.shape
        want = np.minimum(_float_softmax_q(x, scale), 255.0)     # 1.0 saturates at 127
        err = np.abs(out.astype(np.float64) + 128 - want).max()
        assert err <= 0.5 + 0.02, (depth, err)                  # within 1/256 / 2 + small


def test_softmax_s8_hand_checked():
    p = R.softmax_params(0.1)
    # all-equal rows: 1/n exactly when representable, 1.0 saturates at 127
    for n, v in ((1, 127), (2, 0), (3, -43), (4, -64), (256, -127)):
        out = R.softmax_s8(np.full((2, n), 5, np.int8), *p)
        assert (out == v).all(), (n, out)
    # one dominant entry: at scale 0.1 the others (diff -255 < diff_min -248) are cut off
    x = np.array([[127] + [-128] * 9], np.int8)
    assert R.softmax_s8(x, *p).tolist() == [[127] + [-128] * 9]
    # at scale 0.01: p = 1 / (1 + 9 e^-2.55) = 150.35 / 256, the others 11.74 / 256
    assert R.softmax_s8(x, *R.softmax_params(0.01)).tolist() == [[22] + [-116] * 9]
    # diff_min cutoff: with diff_min = -1 the entry at diff -10 is left out of the sum
    m, ls, dmin = R.softmax_params(0.05)
    x = np.array([[10, 0, 9]], np.int8)
    assert R.softmax_s8(x, m, ls, dmin).tolist() == [[-28, -67, -33]]   # 100.1, 60.7, 95.2
    assert R.softmax_s8(x, m, ls, -1).tolist() == [[3, -128, -3]]       # 131.2, -, 124.8
    # rows are independent; leading dims are batch dims
    y = np.stack([x, x[:, ::-1]]).reshape(2, 1, 3)
    assert R.softmax_s8(y, m, ls, dmin).tolist() == [[[-28, -67, -33]], [[-33, -67, -28]]]


def test_softmax_s8_errors():
    p = R.softmax_params(0.1)
    with pytest.raises(ValueError):
        R.softmax_s8(np.zeros((1, 4096), np.int8), *p)
    with pytest.raises(ValueError):
        R.softmax_s8(np.zeros((2, 3), np.int16), *p)
    with pytest.raises(ValueError):
        R.softmax_s8(np.zeros((2, 3), np.int8), p[0], 32, p[2])
