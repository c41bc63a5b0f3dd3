"""mote::conv_transpose2d_s8, mote::upsample_nearest2d_s8 and
mote::upsample_bilinear2d_s8 (kernels/op_mote_*.c) against the Python integer
reference aot/compiler/quant/int8ref.py, byte for byte, through ctypes (the harness of
test_int8_kernels.py); the integer reference against torch's float ops."""
import numpy as np
import pytest
import torch

from aot.compiler.quant import int8ref as R
from tests.kernels.test_int8_kernels import ERR_ARGS, ERR_DTYPE, ERR_SHAPE, _qparams, libs, run  # noqa: F401

F = torch.nn.functional

# n, h, w, cin, cout, groups, (kh, kw), stride, padding, output_padding, dilation, act
TCONV_CASES = [
    (1, 8, 8, 32, 16, 1, (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), (-128, 127)),   # unet_small's up2
    (1, 5, 4, 4, 6, 2, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (-20, 127)),       # groups 2 + relu clamp
    (2, 3, 5, 3, 5, 1, (3, 2), (1, 2), (0, 1), (0, 1), (1, 1), (-128, 127)),
    (1, 4, 4, 6, 6, 3, (3, 3), (3, 2), (2, 1), (2, 1), (2, 1), (-128, 60)),
    (1, 3, 3, 4, 4, 4, (2, 3), (1, 1), (0, 1), (0, 0), (2, 2), (-128, 127)),      # depthwise-like
    (1, 1, 1, 5, 7, 1, (4, 4), (2, 2), (1, 1), (0, 1), (1, 1), (-128, 127)),
    (1, 6, 2, 8, 2, 2, (1, 1), (2, 3), (0, 0), (1, 2), (1, 1), (-128, 127)),
]


def _tconv_args(rng, case):
    n, h, w, cin, cout, g, (kh, kw), st, pd, op, dl, (amin, amax) = case
    x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
    wt = rng.integers(-127, 128, (cout, kh, kw, cin // g), dtype=np.int8)
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qparams(rng, cout, kh * kw * cin // g)
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    return [x, wt, bias, m, s, list(st), list(pd), list(op), list(dl), g, izp, ozp, amin, amax]


@pytest.mark.parametrize("case", TCONV_CASES)
def test_conv_transpose2d_s8_bytes(libs, case):
    ref, _ = libs
    rng = np.random.default_rng(hash(case) % 2 ** 32)
    for _ in range(3):
        args = _tconv_args(rng, case)
        exp = R.conv_transpose2d_s8(*args)
        rc, out = run(ref, "mote_kernel_mote_conv_transpose2d_s8_out", args, exp.shape)
        assert rc == 0
        assert np.array_equal(out, exp)
        assert len(np.unique(exp)) > 3     # not saturated: the values carry information


def test_conv_transpose2d_s8_random_shapes(libs):
    ref, _ = libs
    rng = np.random.default_rng(5)
    done = 0
    while done < 40:
        g = int(rng.choice([1, 2, 3]))
        st, dl = [int(v) for v in rng.integers(1, 4, 2)], [int(v) for v in rng.integers(1, 3, 2)]
        case = (int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 6)),
                g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4)), g,
                tuple(int(v) for v in rng.integers(1, 4, 2)), tuple(st),
                tuple(int(v) for v in rng.integers(0, 3, 2)),
                (int(rng.integers(0, max(st[0], dl[0]))), int(rng.integers(0, max(st[1], dl[1])))),
                tuple(dl), (-128, 127))
        args = _tconv_args(rng, case)
        try:
            exp = R.conv_transpose2d_s8(*args)
        except ValueError:   # empty output
            continue
        rc, out = run(ref, "mote_kernel_mote_conv_transpose2d_s8_out", args, exp.shape)
        assert rc == 0 and np.array_equal(out, exp), case
        done += 1


def test_conv_transpose2d_s8_reference_is_torch():
    """int8ref's accumulators are torch's conv_transpose2d of (x - zp) with the
    weight unpacked back to torch's [Cin, Cout/groups, KH, KW]."""
    rng = np.random.default_rng(1)
    for case in TCONV_CASES:
        n, h, w, cin, cout, g, (kh, kw), st, pd, op, dl, _ = case
        x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
        wt = rng.integers(-127, 128, (cin, cout // g, kh, kw), dtype=np.int8)
        izp = int(rng.integers(-128, 128))
        want = F.conv_transpose2d(torch.tensor(x, dtype=torch.float64).permute(0, 3, 1, 2) - izp,
                                  torch.tensor(wt, dtype=torch.float64), None, st, pd, op, g, dl)
        packed = torch.tensor(wt).reshape(g, cin // g, cout // g, kh, kw).permute(0, 2, 3, 4, 1) \
            .reshape(cout, kh, kw, cin // g).numpy()
        # multiplier 2^30, shift -10: out = round(acc / 2^11)
        got = R.conv_transpose2d_s8(x, packed, np.zeros(cout, np.int32), np.full(cout, 1 << 30, np.int32),
                                    np.full(cout, -10, np.int32), st, pd, op, dl, g, izp, 0, -128, 127)
        want = np.clip(np.round(want.permute(0, 2, 3, 1).numpy() / 2048), -128, 127)
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 1   # rounding ties only


def test_conv_transpose2d_s8_errors(libs):
    ref, _ = libs
    rng = np.random.default_rng(2)
    case = TCONV_CASES[1]
    good = _tconv_args(rng, case)
    exp = R.conv_transpose2d_s8(*good)
    sym = "mote_kernel_mote_conv_transpose2d_s8_out"
    assert run(ref, sym, good, exp.shape)[0] == 0
    bad = [(7, [3, 1], ERR_ARGS),                       # output_padding >= max(stride, dilation)
           (9, 0, ERR_ARGS),                            # groups 0
           (9, 3, ERR_SHAPE),                           # groups do not divide the channels
           (10, 200, ERR_ARGS),                         # zero point out of int8
           (13, -50, ERR_ARGS),                         # act_max < act_min (-20)
           (4, np.full(6, 40, np.int32), ERR_ARGS),     # shift out of range
           (2, np.zeros(5, np.int32), ERR_SHAPE),       # bias length
           (1, good[1].astype(np.int16), ERR_DTYPE)]
    for i, v, code in bad:
        args = list(good)
        args[i] = v
        assert run(ref, sym, args, exp.shape)[0] == code, (i, v)
    assert run(ref, sym, good, (1, exp.shape[1] + 1, exp.shape[2], 6))[0] == ERR_SHAPE
    assert run(ref, sym, good[:-1], exp.shape)[0] == ERR_ARGS


def _nearest_tables(h, w, size, scales, op=torch.ops.aten.upsample_nearest2d.vec):
    grid = torch.arange(h * w, dtype=torch.float32).reshape(1, 1, h, w)
    idx = op(grid, size, scales)[0, 0].to(torch.int64)
    return (idx[:, 0] // w).to(torch.int32).numpy(), (idx[0, :] % w).to(torch.int32).numpy()


@pytest.mark.parametrize("shape,size,scales", [
    ((1, 4, 5, 3), None, [2.0, 2.0]), ((2, 3, 7, 8), None, [1.5, 0.5]), ((1, 5, 3, 1), [7, 11], None),
    ((1, 6, 6, 16), [3, 4], None), ((1, 1, 1, 5), None, [3.0, 4.0]), ((1, 3, 5, 2), None, [1.7, 2.3])])
def test_upsample_nearest2d_s8_bytes(libs, shape, size, scales):
    ref, _ = libs
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    ih, iw = _nearest_tables(shape[1], shape[2], size, scales)
    exp = R.upsample_nearest2d_s8(x, ih, iw)
    want = torch.ops.aten.upsample_nearest2d.vec(torch.tensor(x).permute(0, 3, 1, 2).float(), size, scales)
    assert np.array_equal(exp, want.permute(0, 2, 3, 1).numpy().astype(np.int8))   # torch's values
    rc, out = run(ref, "mote_kernel_mote_upsample_nearest2d_s8_out", [x, ih, iw], exp.shape)
    assert rc == 0 and np.array_equal(out, exp)
    sym = "mote_kernel_mote_upsample_nearest2d_s8_out"
    bad = ih.copy()
    bad[-1] = shape[1]
    assert run(ref, sym, [x, bad, iw], exp.shape)[0] == ERR_ARGS
    assert run(ref, sym, [x, ih.astype(np.int64), iw], exp.shape)[0] == ERR_DTYPE
    assert run(ref, sym, [x, ih, iw], (exp.shape[0], exp.shape[1], exp.shape[2] + 1, exp.shape[3]))[0] \
        == ERR_SHAPE


def _bilinear_case(rng, h, w, size, scales, ac):
    x = rng.integers(-128, 128, (2, h, w, 3), dtype=np.int8)
    want = torch.ops.aten.upsample_bilinear2d.vec(torch.tensor(x).permute(0, 3, 1, 2).float(), size, ac,
                                                  scales).permute(0, 2, 3, 1).numpy()
    ho, wo = want.shape[1:3]
    steps = [R.upsample_scale_q32(h, ho, ac, None if scales is None else scales[0]),
             R.upsample_scale_q32(w, wo, ac, None if scales is None else scales[1])]
    return x, [ho, wo], steps, want


def test_upsample_bilinear2d_s8_bytes_and_torch(libs):
    """Random sizes / scale factors / align_corners: C bytes == int8ref, and
    int8ref within half a quantum (+ fp32 noise) of torch on the same integers,
    so after rounding within one quantum of PT2E's dq -> bilinear -> q."""
    ref, _ = libs
    rng = np.random.default_rng(4)
    worst, n = 0.0, 0
    for i in range(120):
        h, w = (int(v) for v in rng.integers(1, 9, 2))
        ac = bool(i % 2)
        if i % 3:
            scales = [float(rng.choice([0.5, 0.75, 1.0, 1.2, 1.5, 1.7, 2.0, 3.0, 4.0])) for _ in range(2)]
            size = None
        else:
            scales, size = None, [int(v) for v in rng.integers(1, 17, 2)]
        if scales is not None and (int(h * scales[0]) < 1 or int(w * scales[1]) < 1):
            continue
        x, osz, steps, want = _bilinear_case(rng, h, w, size, scales, ac)
        exp = R.upsample_bilinear2d_s8(x, osz, ac, steps)
        rc, out = run(ref, "mote_kernel_mote_upsample_bilinear2d_s8_out", [x, osz, ac, steps], exp.shape)
        assert rc == 0 and np.array_equal(out, exp), (h, w, size, scales, ac)
        worst = max(worst, float(np.abs(exp - want).max()))
        n += 1
    assert n > 80
    assert worst <= 0.5 + 1e-2, worst


def test_upsample_bilinear2d_s8_scale2_is_exact_on_quarters(libs):
    """scale 2, align_corners False: weights 1/4, 3/4 are exact, so the result is
    the exact interpolation rounded half to even."""
    rng = np.random.default_rng(6)
    x = rng.integers(-128, 128, (1, 4, 4, 8), dtype=np.int8)
    got = R.upsample_bilinear2d_s8(x, [8, 8], False, [1 << 31, 1 << 31])
    exact = F.interpolate(torch.tensor(x, dtype=torch.float64).permute(0, 3, 1, 2), scale_factor=2,
                          mode="bilinear", align_corners=False).permute(0, 2, 3, 1).numpy()
    assert np.array_equal(got, np.round(exact).astype(np.int8))


def test_upsample_bilinear2d_s8_errors(libs):
    ref, _ = libs
    rng = np.random.default_rng(7)
    x, osz, steps, _ = _bilinear_case(rng, 3, 4, None, [2.0, 2.0], False)
    sym = "mote_kernel_mote_upsample_bilinear2d_s8_out"
    shape = (2, 6, 8, 3)
    assert run(ref, sym, [x, osz, False, steps], shape)[0] == 0
    assert run(ref, sym, [x, osz, 1, steps], shape)[0] == ERR_ARGS           # not a bool
    assert run(ref, sym, [x, osz, False, [-1, 1 << 31]], shape)[0] == ERR_ARGS
    assert run(ref, sym, [x, osz, False, [1 << 47, 1 << 31]], shape)[0] == ERR_ARGS
    assert run(ref, sym, [x, [6, 9], False, steps], shape)[0] == ERR_SHAPE
    assert run(ref, sym, [x.astype(np.uint8), osz, False, steps], shape)[0] == ERR_DTYPE
