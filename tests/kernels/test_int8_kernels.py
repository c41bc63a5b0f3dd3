"""int8 kernels (kernels/op_mote_*.c and the plain path of cmsis/) against the
Python integer reference aot/compiler/quant/int8ref.py, byte for byte, through ctypes."""
import ctypes
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aot import ir
from aot.compiler.quant import int8ref as R
from aot.host.abi import TAG, IntList as _Ints, KernelCtx as Ctx, Tensor, Value, error_codes
from aot.tools.ops import SIGNAL_PREFIXES, STATE_PREFIXES

ROOT = Path(__file__).resolve().parents[2]
# MOTE_INT8_TEST_CFLAGS adds flags, e.g. "-fsanitize=undefined -fno-sanitize-recover=all".
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror",
          "-O2", "-fPIC", "-shared", f"-I{ROOT / 'runtime/include'}",
          *os.environ.get("MOTE_INT8_TEST_CFLAGS", "").split()]
#: what requant.h declares: the argument parsers and the band iterator
S8_SUPPORT = sorted((ROOT / "kernels").glob("s8_*.c"))
# the int8 operators of the mote namespace (the *_w4 ones are fp32 with int4 weights; the
# signal kernels, aot.tools.ops.SIGNAL_PREFIXES: the real FFT's mote::rfft_mag* and the fp32
# mote::band_mm, have their own tests, test_kernels_fft.py and test_kernels_band_mm.py)
# (and the state op mote::window_push, test_kernels_window_push.py)
_SIGNAL_FILES = tuple("op_" + s.replace("::", "_") for s in SIGNAL_PREFIXES + STATE_PREFIXES)
_INT8 = lambda p: not p.stem.endswith("_w4") and not p.stem.startswith(_SIGNAL_FILES)  # noqa: E731
REF_SRCS = sorted(p for p in (ROOT / "kernels").glob("op_mote_*.c") if _INT8(p)) + [
    ROOT / "kernels/op_quantize_per_tensor.c", ROOT / "kernels/op_dequantize_per_tensor.c",
    ROOT / "kernels/int8_scratch.c", *S8_SUPPORT, ROOT / "tests/kernels/int8_harness/host_abi.c"]
CMSIS_SRCS = sorted(p for p in (ROOT / "cmsis").glob("op_mote_*.c") if _INT8(p)) + S8_SUPPORT

TAG_INT, TAG_BOOL, TAG_DOUBLE, TAG_TENSOR, TAG_INT_LIST, TAG_NULL = (
    TAG["INT"], TAG["BOOL"], TAG["DOUBLE"], TAG["TENSOR"], TAG["INT_LIST"], TAG["NULL"])
DT = {np.dtype(ir.DTYPE_NUMPY[c]): c for c in ir.DTYPE_SIZES}
ERR_ARGS, ERR_DTYPE, ERR_SHAPE, ERR_SCRATCH = (error_codes()[f"KERNEL_{k}"]
                                               for k in ("ARGS", "DTYPE", "SHAPE", "SCRATCH"))


def _build(tmp, name, srcs, extra=()):
    so = tmp / name
    subprocess.run(["gcc", *CFLAGS, *extra, "-o", str(so), *map(str, srcs), "-lm"], check=True)
    return ctypes.CDLL(str(so))


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("int8")
    ref = _build(tmp, "libref.so", REF_SRCS)
    cm = _build(tmp, "libcmsis.so", CMSIS_SRCS)
    return ref, cm


class Call:
    """Holds the ctypes objects of one kernel call alive."""

    def __init__(self, args):
        self.keep = []
        self.values = (Value * len(args))()
        for v, a in zip(self.values, args):
            self._set(v, a)
        self.ptrs = (ctypes.POINTER(Value) * len(args))(
            *[ctypes.pointer(v) for v in self.values])

    def _set(self, v, a):
        if isinstance(a, np.ndarray):
            a = np.ascontiguousarray(a)
            self.keep.append(a)
            sizes = (ctypes.c_int32 * max(a.ndim, 1))(*a.shape)
            t = Tensor(a.ctypes.data, sizes, None, a.size, a.nbytes, a.ndim, DT[a.dtype])
            self.keep += [sizes, t]
            v.tag, v.u.t = TAG_TENSOR, ctypes.pointer(t)
        elif isinstance(a, bool):
            v.tag, v.u.b = TAG_BOOL, a
        elif isinstance(a, int):
            v.tag, v.u.i = TAG_INT, a
        elif isinstance(a, float):
            v.tag, v.u.d = TAG_DOUBLE, a
        elif a is None:
            v.tag = TAG_NULL
        else:
            items = (ctypes.c_int64 * max(len(a), 1))(*a)
            self.keep.append(items)
            v.tag, v.u.ints = TAG_INT_LIST, _Ints(items, len(a))


def run(lib, sym, args, out_shape, out_dtype=np.int8, scratch=0):
    out = np.zeros(out_shape, out_dtype)
    call = Call(list(args) + [out])
    buf = ctypes.create_string_buffer(max(scratch, 1))
    ctx = Ctx(ctypes.addressof(buf) if scratch else None, scratch)
    fn = getattr(lib, sym)
    fn.restype = ctypes.c_int
    rc = fn(ctypes.byref(ctx), call.ptrs, len(call.ptrs))
    return rc, out


def test_abi_matches(libs):
    ref, _ = libs
    ref.mote_test_abi.restype = ctypes.c_size_t
    assert ref.mote_test_abi(0) == ctypes.sizeof(Tensor)
    assert ref.mote_test_abi(1) == ctypes.sizeof(Value)
    assert ref.mote_test_abi(2) == Value.u.offset
    assert ref.mote_test_abi(3) == Tensor.numel.offset
    assert ref.mote_test_abi(4) == Tensor.dim.offset
    assert ref.mote_test_abi(5) == ctypes.sizeof(Ctx)


def _qparams(rng, cout, k, big=False):
    mults, shifts = [], []
    for _ in range(cout):
        r = rng.uniform(0.3, 3.0) / (np.sqrt(k) * 40.0)
        if big:
            r *= rng.choice([1e-6, 1e-3, 1.0, 50.0, 3000.0])
        m, s = R.quantize_multiplier(float(r))
        mults.append(m)
        shifts.append(s)
    return np.array(mults, np.int32), np.array(shifts, np.int32)


def conv_scratch(lib, n, h, w, cin, cout, kh, kw, prewidened=0):
    lib.mote_scratch_mote_conv2d_s8.restype = ctypes.c_size_t
    return lib.mote_scratch_mote_conv2d_s8(n, h, w, cin, cout, kh, kw, prewidened)


CONV_CASES = [
    # n, h, w, cin, cout, kh, kw, stride, pad, dil, act
    (1, 5, 5, 3, 5, (3, 3), (1, 1), (1, 1), (1, 1), (-128, 127)),
    (1, 7, 6, 5, 7, (3, 3), (2, 2), (1, 1), (1, 1), (-128, 127)),
    (2, 6, 7, 7, 17, (3, 2), (2, 1), (1, 0), (1, 1), (-20, 60)),
    (1, 9, 9, 17, 3, (3, 3), (1, 1), (2, 2), (2, 2), (-128, 127)),
    (1, 8, 4, 16, 8, (1, 1), (1, 1), (0, 0), (1, 1), (-128, 127)),
    (1, 5, 3, 3, 5, (1, 1), (2, 2), (0, 0), (1, 1), (-128, 127)),
    (1, 25, 5, 64, 64, (1, 1), (1, 1), (0, 0), (1, 1), (-128, 127)),
    (1, 10, 4, 8, 12, (10, 4), (2, 2), (5, 1), (1, 1), (-128, 50)),  # DS-CNN first layer
    (1, 6, 6, 5, 4, (5, 5), (1, 1), (2, 2), (1, 1), (-128, 127)),
    (1, 4, 4, 1, 1, (3, 3), (1, 1), (1, 1), (1, 1), (-128, 127)),
]


def _conv_args(rng, case):
    n, h, w, cin, cout, (kh, kw), stride, pad, dil, (amin, amax) = case
    x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
    wt = rng.integers(-128, 128, (cout, kh, kw, cin), dtype=np.int8)
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qparams(rng, cout, kh * kw * cin)
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    return [x, wt, bias, m, s, list(stride), list(pad), list(dil), izp, ozp, amin, amax]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_s8(libs, case):
    ref, cm = libs
    rng = np.random.default_rng(hash(case) & 0xffff)
    args = _conv_args(rng, case)
    exp = R.conv2d_s8(*args)
    rc, out = run(ref, "mote_kernel_mote_conv2d_s8_out", args, exp.shape)
    assert rc == 0
    assert out.tobytes() == exp.tobytes()
    n, h, w, cin = args[0].shape
    cout, kh, kw, _ = args[1].shape
    sc = conv_scratch(ref, n, h, w, cin, cout, kh, kw)
    rc, out2 = run(cm, "mote_kernel_mote_conv2d_s8_out", args, exp.shape, scratch=sc)
    assert rc == 0
    assert out2.tobytes() == exp.tobytes()
    if case[6] != (1, 1):  # relu6-style clamps actually bite
        assert out.min() >= case[-1][0] and out.max() <= case[-1][1]
    rc, _ = run(cm, "mote_kernel_mote_conv2d_s8_out", args, exp.shape, scratch=sc - 17)
    assert rc == ERR_SCRATCH


DW_CASES = [
    # n, h, w, cin, mult, kh, kw, stride, pad, dil, act
    (1, 5, 5, 3, 1, (3, 3), (1, 1), (1, 1), (1, 1), (-128, 127)),
    (1, 7, 6, 5, 2, (3, 3), (2, 2), (1, 1), (1, 1), (-128, 127)),
    (2, 6, 7, 17, 1, (3, 3), (2, 1), (1, 1), (2, 2), (-10, 70)),
    (1, 25, 5, 64, 1, (3, 3), (1, 1), (1, 1), (1, 1), (-128, 127)),
    (1, 9, 8, 7, 2, (5, 3), (1, 2), (2, 1), (1, 2), (-128, 127)),
    (1, 4, 4, 3, 3, (1, 1), (1, 1), (0, 0), (1, 1), (-128, 127)),
    (1, 4, 90, 12, 1, (3, 3), (1, 1), (1, 1), (1, 1), (-5, 127)),
    (1, 9, 8, 16, 1, (5, 5), (2, 1), (2, 2), (1, 1), (-20, 90)),
]


@pytest.mark.parametrize("case", DW_CASES)
def test_depthwise_conv2d_s8(libs, case):
    ref, cm = libs
    n, h, w, cin, dm, (kh, kw), stride, pad, dil, (amin, amax) = case
    rng = np.random.default_rng(hash(case) & 0xffff)
    cout = cin * dm
    x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
    wt = rng.integers(-128, 128, (1, kh, kw, cout), dtype=np.int8)
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qparams(rng, cout, kh * kw)
    args = [x, wt, bias, m, s, list(stride), list(pad), list(dil), dm,
            int(rng.integers(-128, 128)), int(rng.integers(-128, 128)), amin, amax]
    exp = R.depthwise_conv2d_s8(*args)
    for lib in (ref, cm):
        rc, out = run(lib, "mote_kernel_mote_depthwise_conv2d_s8_out", args, exp.shape)
        assert rc == 0
        assert out.tobytes() == exp.tobytes()


@pytest.mark.parametrize("m,k,n", [(1, 3, 5), (2, 17, 7), (3, 64, 12), (1, 250, 10), (4, 1, 1)])
def test_linear_s8(libs, m, k, n):
    ref, cm = libs
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    x = rng.integers(-128, 128, (m, k), dtype=np.int8)
    wt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    bias = rng.integers(-5000, 5000, n).astype(np.int32)
    mm, s = _qparams(rng, n, k)
    args = [x, wt, bias, mm, s, int(rng.integers(-128, 128)), 5, 0, 127]
    exp = R.linear_s8(*args)
    for lib in (ref, cm):
        rc, out = run(lib, "mote_kernel_mote_linear_s8_out", args, exp.shape)
        assert rc == 0
        assert out.tobytes() == exp.tobytes()


def test_linear_s8_table_form(libs):
    """The 11-argument linear_s8 with its requantization table alone (an int32
    argument 9, aot.compiler.dsp_weights.linear_table): the host kernels accept it
    and give the reference's bytes; a table of the wrong size or dtype, or one for
    N < 4, is refused."""
    from aot.compiler.dsp_weights import linear_table
    ref, cm = libs
    for m, k, n in ((1, 640, 128), (2, 17, 7), (3, 6, 4)):
        rng = np.random.default_rng(k + n)
        x = rng.integers(-128, 128, (m, k), dtype=np.int8)
        wt = rng.integers(-128, 128, (n, k), dtype=np.int8)
        bias = rng.integers(-5000, 5000, n).astype(np.int32)
        mm, s = _qparams(rng, n, k)
        args = [x, wt, bias, mm, s, int(rng.integers(-128, 128)), 5, -20, 90]
        exp = R.linear_s8(*args)
        t = linear_table(*args[1:7])
        assert t is not None and t.size == 16 * ((n + 3) // 4)
        for lib in (ref, cm):
            rc, out = run(lib, "mote_kernel_mote_linear_s8_out", args[:9] + [t] + args[9:], exp.shape)
            assert rc == 0 and out.tobytes() == exp.tobytes()
            assert run(lib, "mote_kernel_mote_linear_s8_out", args[:9] + [t[:-1]] + args[9:],
                       exp.shape)[0] == ERR_SHAPE
            assert run(lib, "mote_kernel_mote_linear_s8_out", args[:9] + [t.astype(np.int64)] + args[9:],
                       exp.shape)[0] == ERR_DTYPE
    x = np.zeros((1, 8), np.int8)
    args = [x, np.ones((3, 8), np.int8), np.zeros(3, np.int32), np.full(3, 1 << 30, np.int32),
            np.full(3, -1, np.int32), 0, 0, -128, 127]
    assert linear_table(*args[1:7]) is None
    for lib in (ref, cm):
        assert run(lib, "mote_kernel_mote_linear_s8_out", args + [np.zeros(16, np.int32)],
                   (1, 3))[0] == ERR_SHAPE


@pytest.mark.parametrize("m,k,n", [(1, 2, 5), (2, 16, 7), (3, 64, 12), (1, 250, 10), (4, 8, 1), (2, 606, 9)])
def test_linear_s4(libs, m, k, n):
    """int4 x int8: the reference kernel and the plain path of cmsis/ against int8ref."""
    from aot.compiler.quant.int4ref import pack_int4
    ref, cm = libs
    rng = np.random.default_rng(m * 1000 + k * 10 + n + 4)
    x = rng.integers(-128, 128, (m, k), dtype=np.int8)
    wt = pack_int4(rng.integers(-8, 8, (n, k), dtype=np.int8))
    bias = rng.integers(-5000, 5000, n).astype(np.int32)
    mm, s = _qparams(rng, n, k)
    args = [x, wt, bias, mm, s, int(rng.integers(-128, 128)), 5, -128, 127]
    exp = R.linear_s4(*args)
    assert len(np.unique(exp)) > 2
    for lib in (ref, cm):
        rc, out = run(lib, "mote_kernel_mote_linear_s4_out", args, exp.shape)
        assert rc == 0
        assert out.tobytes() == exp.tobytes()
    rc, _ = run(ref, "mote_kernel_mote_linear_s4_out", [x, wt[:, :-1]] + args[2:], exp.shape)
    assert rc == ERR_SHAPE  # K != 2 * packed columns


def test_requantize_edges(libs):
    """K=1 linear drives requantize(bias + (x-zp)*w) over edge multipliers/shifts:
    ties, INT32 extremes, shift -31..31, multiplier 0 and 2^31-1."""
    ref, cm = libs
    rng = np.random.default_rng(7)
    n = 64
    mults = np.array([0, 1 << 30, (1 << 31) - 1, 1 << 30, 1518500250] * 13, np.int64)[:n]
    shifts = np.array(list(range(-31, 32)) + [0], np.int64)[:n]
    rng.shuffle(shifts)
    bias = np.concatenate([
        np.array([R.INT32_MIN, R.INT32_MAX, -1, 1, 0, 3, -3, 1 << 20, -(1 << 20),
                  (1 << 30) + 1, -(1 << 30) - 1, 5 << 10, -(5 << 10), 0x4000, -0x4000, 7]),
        rng.integers(-(1 << 31), 1 << 31, n - 16)]).astype(np.int32)
    for x0, zp in ((0, 0), (-128, 127), (127, -128), (1, 0)):
        x = np.array([[x0], [-x0 if x0 != -128 else 127]], np.int8)
        wt = rng.integers(-128, 128, (n, 1), dtype=np.int8)
        args = [x, wt, bias, mults.astype(np.int32), shifts.astype(np.int32), zp, -3, -128, 127]
        exp = R.linear_s8(*args)
        for lib in (ref, cm):
            rc, out = run(lib, "mote_kernel_mote_linear_s8_out", args, exp.shape)
            assert rc == 0
            assert out.tobytes() == exp.tobytes()
    # the scalar helpers directly, through mean_s8 on a 1x1 map: requantize(x - zp, M, s)
    for m, s in ((1 << 30, 0), ((1 << 31) - 1, -1), (1 << 30, -31), (1 << 30, 31), (0, 5),
                 (1 << 30, 1), (1431655765, -2)):
        x = np.arange(-128, 128, dtype=np.int8).reshape(1, 1, 1, 256)
        exp = R.mean_s8(x, 0, 0, m, s)
        rc, out = run(ref, "mote_kernel_mote_mean_s8_out", [x, 0, 0, m, s], exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()


@pytest.mark.parametrize("shape", [(1, 5, 3, 7), (17,), (2, 3)])
def test_add_mul_s8(libs, shape):
    ref, _ = libs
    rng = np.random.default_rng(len(shape))
    a = rng.integers(-128, 128, shape, dtype=np.int8)
    b = rng.integers(-128, 128, shape, dtype=np.int8)
    for sa, sb, so in ((0.02, 0.05, 0.06), (0.1, 0.01, 0.03), (0.5, 0.5, 0.25)):
        p = R.add_params(sa, sb, so)
        args = [a, b, 3, p["a_multiplier"], p["a_shift"], -7, p["b_multiplier"], p["b_shift"],
                p["left_shift"], -2, p["output_multiplier"], p["output_shift"], -128, 127]
        exp = R.add_s8(*args)
        rc, out = run(ref, "mote_kernel_mote_add_s8_out", args, exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()
        m, s = R.quantize_multiplier(sa * sb / so)
        args = [a, b, 5, -9, 4, m, s, -100, 100]
        exp = R.mul_s8(*args)
        rc, out = run(ref, "mote_kernel_mote_mul_s8_out", args, exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()


def _add_param_sets():
    """add_s8 arguments: the compiler's (add_params: left shift 20, input shifts <= 0)
    over scale ratios up to 2^10, zero points at both ends, relu and narrow clamps;
    and edges outside the folded form (kernels/requant.h) or at its limits: left
    shift 21 / 22, positive input shifts, output shift 0 / positive / -22 / -23,
    multipliers 0 and 2^31 - 1, input shift -31."""
    rng = np.random.default_rng(32)
    sets = []
    for i in range(10):
        sa, sb, so = (float(2.0 ** rng.uniform(-10, 0)) for _ in range(3))
        p = R.add_params(sa, sb, so)
        zpa, zpb, zpo = (int(v) for v in rng.integers(-128, 128, 3))
        zpa, zpb = ((-128, 127), (127, -128), (0, 0))[i % 3] if i < 3 else (zpa, zpb)
        act = ((-128, 127), (zpo, 127), (-100, 50))[i % 3]
        sets.append([3 if i == 9 else zpa, zpb, p["a_multiplier"], p["a_shift"], p["b_multiplier"],
                     p["b_shift"], p["left_shift"], zpo, p["output_multiplier"], p["output_shift"],
                     *act])
    m30, mmax = 1 << 30, (1 << 31) - 1
    for ls, (ma, sa), (mb, sb), (mo, so) in (
            (21, (m30, 0), (mmax, -1), (mmax, -20)), (22, (m30, 0), (mmax, -1), (mmax, -21)),
            (20, (m30, 1), (mmax, -2), (mmax, -20)), (20, (m30, 0), (mmax, -1), (m30, 0)),
            (20, (m30, 0), (mmax, -1), (m30, 3)), (20, (0, 0), (mmax, -1), (mmax, -22)),
            (20, (mmax, -31), (m30, 0), (mmax, -20)),
            (20, (mmax, -3), (m30, -1), (mmax, -23)), (0, (mmax, 0), (m30, 0), (mmax, -1)),
            (20, (m30, -1), (1518500250, -1), (1431655765, -19))):
        sets.append([-128, 127, ma, sa, mb, sb, ls, -5, mo, so, -128, 127])
    return sets


@pytest.mark.parametrize("params", _add_param_sets())
def test_add_s8_every_pair(libs, params):
    """Every (a, b) byte pair (65,536, odd lengths via a tail of 7) against the
    reference, on the portable kernel and cmsis/'s plain path."""
    a = np.repeat(np.arange(-128, 128, dtype=np.int8), 256)
    b = np.tile(np.arange(-128, 128, dtype=np.int8), 256)
    a, b = np.concatenate([a, a[:7]]), np.concatenate([b, b[-7:]])
    zpa, zpb, ma, sa, mb, sb, ls, zpo, mo, so, lo, hi = params
    args = [a, b, zpa, ma, sa, zpb, mb, sb, ls, zpo, mo, so, lo, hi]
    exp = R.add_s8(*args)
    assert len(set(exp.tolist())) > 2  # not a constant output
    for lib in libs:
        rc, out = run(lib, "mote_kernel_mote_add_s8_out", args, exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()


@pytest.mark.parametrize("mult,shift,zps,act", [
    (1518500250, -9, (3, -7, -2), (-128, 127)), ((1 << 31) - 1, -15, (-128, 127, 5), (5, 127)),
    (1 << 30, 0, (0, 0, 0), (-100, 50)), (1431655765, -22, (127, -128, -128), (-128, 127)),
    (1 << 30, 14, (9, -9, 1), (-128, 127)), (1 << 30, 15, (9, -9, 1), (-128, 127)),
    (1 << 30, -23, (-128, -128, 7), (-128, 127)), (0, -3, (1, 2, 3), (-128, 127)),
    ((1 << 31) - 1, -8, (-128, -128, 0), (-128, 127))])
def test_mul_s8_every_pair(libs, mult, shift, zps, act):
    """Every (a, b) byte pair: the folded requantization (requant.h) and, past its
    limits (left shift 15, e 23), the reference's arithmetic."""
    ref, _ = libs
    a = np.repeat(np.arange(-128, 128, dtype=np.int8), 256)
    b = np.tile(np.arange(-128, 128, dtype=np.int8), 256)
    args = [a, b, zps[0], zps[1], zps[2], mult, shift, *act]
    exp = R.mul_s8(*args)
    rc, out = run(ref, "mote_kernel_mote_mul_s8_out", args, exp.shape)
    assert rc == 0 and out.tobytes() == exp.tobytes()


POOL_CASES = [
    ((1, 7, 5, 3), (3, 3), (2, 2), (1, 1), True),
    ((1, 7, 5, 3), (3, 3), (2, 2), (1, 1), False),
    ((2, 6, 6, 5), (2, 2), (), (0, 0), False),
    ((1, 25, 5, 17), (25, 5), (1, 1), (0, 0), True),
    ((1, 5, 4, 7), (3, 2), (1, 2), (1, 1), False),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_pools(libs, case):
    ref, _ = libs
    shape, k, s, p, incl = case
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    args = [x, list(k), list(s), list(p), incl, -5, -100, 120]
    exp = R.avg_pool2d_s8(*args)
    rc, out = run(ref, "mote_kernel_mote_avg_pool2d_s8_out", args, exp.shape)
    assert rc == 0 and out.tobytes() == exp.tobytes()
    for dil in ((1, 1), (2, 1)):
        try:
            exp = R.max_pool2d_s8(x, list(k), list(s), list(p), list(dil), -128, 100)
        except ValueError:
            continue
        rc, out = run(ref, "mote_kernel_mote_max_pool2d_s8_out",
                      [x, list(k), list(s), list(p), list(dil), -128, 100], exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()


def test_mean_pad(libs):
    ref, _ = libs
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, (2, 5, 3, 7), dtype=np.int8)
    m, s = R.quantize_multiplier(0.9 / 15)
    exp = R.mean_s8(x, 4, -6, m, s)
    rc, out = run(ref, "mote_kernel_mote_mean_s8_out", [x, 4, -6, m, s], exp.shape)
    assert rc == 0 and out.tobytes() == exp.tobytes()
    for pads in ((1, 2, 0, 3), (0, 0, 0, 0), (2, 0, 1, 0)):
        exp = R.pad_s8(x, pads, -9)
        rc, out = run(ref, "mote_kernel_mote_pad_s8_out", [x, list(pads), -9], exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()


def test_quantize_dequantize(libs):
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the ops)
    ref, _ = libs
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.normal(0, 3, 300), np.arange(-10, 10) * 0.05 + 0.025,
                        [1e9, -1e9, 0.0, -0.0]]).astype(np.float32)
    for scale, zp in ((0.05, 3), (0.0137, -128), (1.0, 0)):
        exp = torch.ops.quantized_decomposed.quantize_per_tensor(
            torch.from_numpy(x), scale, zp, -128, 127, torch.int8).numpy()
        rc, out = run(ref, "mote_kernel_quantized_decomposed_quantize_per_tensor_out",
                      [x, scale, zp, -128, 127, 1], x.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()
        rc, out = run(ref, "mote_kernel_quantized_decomposed_quantize_per_tensor_out",
                      [x, scale, zp, -100, 100, 1], x.shape)
        assert rc == 0 and out.min() == -100 and out.max() == 100
        q = rng.integers(-128, 128, (3, 4, 5), dtype=np.int8)
        expd = torch.ops.quantized_decomposed.dequantize_per_tensor(
            torch.from_numpy(q), scale, zp, -128, 127, torch.int8).numpy()
        rc, outd = run(ref, "mote_kernel_quantized_decomposed_dequantize_per_tensor_out",
                       [q, scale, zp, -128, 127, 1, None], q.shape, np.float32)
        assert rc == 0 and outd.tobytes() == expd.tobytes()


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32"])
def test_quantize_every_output_dtype(libs, dtype):
    """quantize_per_tensor against torch for each output dtype over ties (x.5 of a
    step: round half to even), both bounds, narrowed bounds, +-1e30 (not for int32,
    where torch's float -> int32 cast of 2^31 wraps); NaN gives the zero point
    (clamped) and +-inf the bounds (Mote's documented convention)."""
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the ops)
    ref, _ = libs
    code, tdt = {"uint8": (0, torch.uint8), "int8": (1, torch.int8), "int16": (2, torch.int16),
                 "int32": (3, torch.int32)}[dtype]
    info = torch.iinfo(tdt)
    rng = np.random.default_rng(code)
    for scale, zp, lo, hi in ((0.05, 3, info.min, info.max), (0.25, -7, info.min + 5, info.max - 9),
                              (1.0, 0, info.min, info.max)):
        zp = min(max(zp, lo), hi)
        x = np.concatenate([rng.normal(0, 3, 200) * (1 if dtype != "int32" else 1e6),
                            (np.arange(-8, 8) + 0.5) * scale, [0.0, -0.0],
                            [1e30, -1e30] if dtype != "int32" else []]).astype(np.float32)
        exp = torch.ops.quantized_decomposed.quantize_per_tensor(
            torch.from_numpy(x), scale, zp, lo, hi, tdt).numpy()
        rc, out = run(ref, "mote_kernel_quantized_decomposed_quantize_per_tensor_out",
                      [x, scale, zp, lo, hi, code], x.shape, exp.dtype)
        assert rc == 0 and out.tobytes() == exp.tobytes()
        y = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
        rc, out = run(ref, "mote_kernel_quantized_decomposed_quantize_per_tensor_out",
                      [y, scale, zp, lo, hi, code], y.shape, exp.dtype)
        assert rc == 0 and out.tolist()[:3] == [zp, hi, lo]


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32"])
def test_dequantize_every_input_dtype(libs, dtype):
    """dequantize_per_tensor against torch for each input dtype over its whole range,
    and the formula (float)(q - zp) * scale where q - zp leaves int32's reach of an
    int32 subtraction (zero points beyond +-2^30: the int64 path)."""
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the ops)
    ref, _ = libs
    code, tdt = {"uint8": (0, torch.uint8), "int8": (1, torch.int8), "int16": (2, torch.int16),
                 "int32": (3, torch.int32)}[dtype]
    info = torch.iinfo(tdt)
    rng = np.random.default_rng(code + 40)
    q = np.concatenate([rng.integers(max(info.min, -(1 << 20)), min(info.max, 1 << 20), 300),
                        [info.min, info.max, 0]]).astype(dtype)
    for scale, zp in ((0.05, 3), (0.0137, -128), (1.0, 0), (0.5, 1000)):
        exp = torch.ops.quantized_decomposed.dequantize_per_tensor(
            torch.from_numpy(q), scale, zp, info.min, info.max, tdt).numpy()
        rc, out = run(ref, "mote_kernel_quantized_decomposed_dequantize_per_tensor_out",
                      [q, scale, zp, info.min, info.max, code, None], q.shape, np.float32)
        if dtype == "int32":   # torch subtracts in float; Mote in integers (exact)
            exp = ((q.astype(np.int64) - zp).astype(np.float32) * np.float32(scale))
        assert rc == 0 and out.tobytes() == exp.tobytes()
    for zp in ((1 << 30) + 1, -(1 << 31)):
        exp = (q.astype(np.int64) - zp).astype(np.float32) * np.float32(0.25)
        rc, out = run(ref, "mote_kernel_quantized_decomposed_dequantize_per_tensor_out",
                      [q, 0.25, zp, info.min, info.max, code, None], q.shape, np.float32)
        assert rc == 0 and out.tobytes() == exp.tobytes()


def test_errors(libs):
    ref, cm = libs
    rng = np.random.default_rng(0)
    args = _conv_args(rng, CONV_CASES[0])
    exp_shape = R.conv2d_s8(*args).shape
    for lib in (ref, cm):
        sym = "mote_kernel_mote_conv2d_s8_out"
        assert run(lib, sym, args[:-1], exp_shape, scratch=4096)[0] == ERR_ARGS
        assert run(lib, sym, args, (1, 5, 5, 4), scratch=4096)[0] == ERR_SHAPE
        bad = list(args)
        bad[2] = bad[2].astype(np.int8)
        assert run(lib, sym, bad, exp_shape, scratch=4096)[0] == ERR_DTYPE
        bad = list(args)
        bad[8] = 200  # input zero point out of int8
        assert run(lib, sym, bad, exp_shape, scratch=4096)[0] == ERR_ARGS
        bad = list(args)
        bad[4] = bad[4].copy()
        bad[4][0] = 40  # shift out of [-31, 31]
        assert run(lib, sym, bad, exp_shape, scratch=4096)[0] == ERR_ARGS
        bad = list(args)
        bad[10], bad[11] = 10, -10  # act_min > act_max
        assert run(lib, sym, bad, exp_shape, scratch=4096)[0] == ERR_ARGS
    assert run(cm, "mote_kernel_mote_conv2d_s8_out", args, exp_shape, scratch=0)[0] == ERR_SCRATCH
    assert conv_scratch(ref, 1, 5, 5, 3, 5, 3, 3) == 16 + 7 * 32 + 2 * 32 * 6 + 32 * 8
    assert conv_scratch(ref, 1, 5, 5, 3, 5, 3, 3, prewidened=1) == 16 + 7 * 32 + 32 * 8
    assert conv_scratch(ref, 1, 5, 5, 0, 5, 3, 3) == 0
    ref.mote_scratch_mote_depthwise_conv2d_s8.restype = ctypes.c_size_t
    # the largest of MVE's tables, its planes' int8 lines 60 * max(H + 2 ph, W + 2 pw) + 16
    # (from 100 outputs per channel) and the DSP path's int16 plane 2 * (H + 2 ph) * (W + 2 pw)
    assert ref.mote_scratch_mote_depthwise_conv2d_s8(1, 5, 5, 3, 6, 3, 3, 1, 1) == 16 + 2 * 7 * 7
    assert ref.mote_scratch_mote_depthwise_conv2d_s8(1, 24, 24, 32, 32, 3, 3, 1, 1) == 16 + 60 * 26 + 16
    assert ref.mote_scratch_mote_depthwise_conv2d_s8(1, 5, 5, 64, 64, 3, 3, 1, 1) == 16 + 4 * 64 + 184 * 8
    assert ref.mote_scratch_mote_depthwise_conv2d_s8(1, 48, 48, 8, 8, 3, 3, 1, 1) == 16 + 2 * 50 * 50
    assert ref.mote_scratch_mote_depthwise_conv2d_s8(1, 5, 5, 12, 12, 5, 5, 2, 2) == 16 + 4 * 12
    ref.mote_scratch_mote_linear_s8.restype = ctypes.c_size_t
    assert ref.mote_scratch_mote_linear_s8(1, 64, 10) == 0


SOFTMAX_CASES = [
    # shape, input scale
    ((2, 6), 0.1),
    ((3, 10), 0.02),
    ((1, 1), 0.05),
    ((2, 3, 17), 1 / 16),
    ((4, 1000), 0.01),            # sum of exps above 2^28: final shift above 31
    ((1, 4095), 0.001),
    ((5, 7), 0.75),
    ((2, 33), 40.0),              # multiplier capped at 2^31 - 1, left shift 31, diff_min 0
    ((3, 2, 2, 8), 2.0 ** -27),   # smallest scale: left shift 0
]


@pytest.mark.parametrize("shape,scale", SOFTMAX_CASES)
def test_softmax_s8(libs, shape, scale):
    ref, _ = libs
    rng = np.random.default_rng(shape[-1])
    m, ls, dmin = R.softmax_params(scale)
    xs = [rng.integers(-128, 128, shape, dtype=np.int8),
          np.full(shape, 17, np.int8),                       # all equal
          np.clip(rng.integers(-3, 4, shape) + 120, -128, 127).astype(np.int8)]
    dom = np.full(shape, -128, np.int8)
    dom[..., 0] = 127                                        # one dominant entry
    xs.append(dom)
    for x in xs:
        for d in (dmin, max(dmin, -3), 0):
            exp = R.softmax_s8(x, m, ls, d)
            rc, out = run(ref, "mote_kernel_mote_softmax_s8_out", [x, m, ls, d], exp.shape)
            assert rc == 0
            assert out.tobytes() == exp.tobytes()


def test_softmax_s8_exhaustive_pairs(libs):
    """Every pair row (a, b) of int8 for a few input scales: 65536 rows each."""
    ref, _ = libs
    a, b = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128), indexing="ij")
    x = np.stack([a.ravel(), b.ravel()], axis=1).astype(np.int8)
    for scale in (0.003, 0.0625, 0.1, 0.37):
        m, ls, dmin = R.softmax_params(scale)
        exp = R.softmax_s8(x, m, ls, dmin)
        rc, out = run(ref, "mote_kernel_mote_softmax_s8_out", [x, m, ls, dmin], exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()
        assert exp.min() == -128 or scale < 0.01


def test_softmax_s8_errors(libs):
    ref, _ = libs
    x = np.zeros((2, 5), np.int8)
    m, ls, dmin = R.softmax_params(0.1)
    sym = "mote_kernel_mote_softmax_s8_out"
    assert run(ref, sym, [x, m, ls, dmin], (2, 5))[0] == 0
    assert run(ref, sym, [x, m, ls], (2, 5))[0] == ERR_ARGS
    assert run(ref, sym, [x, m, 32, dmin], (2, 5))[0] == ERR_ARGS
    assert run(ref, sym, [x, m, ls, 1], (2, 5))[0] == ERR_ARGS
    assert run(ref, sym, [x, -1, ls, dmin], (2, 5))[0] == ERR_ARGS
    assert run(ref, sym, [x, m, ls, dmin], (2, 4))[0] == ERR_SHAPE
    assert run(ref, sym, [x.astype(np.int32), m, ls, dmin], (2, 5))[0] == ERR_DTYPE
    big = np.zeros((1, 4096), np.int8)
    assert run(ref, sym, [big, m, ls, dmin], (1, 4096))[0] == ERR_SHAPE
    with pytest.raises(ValueError):
        R.softmax_s8(big, m, ls, dmin)


def test_lut_s8(libs):
    ref, _ = libs
    rng = np.random.default_rng(11)
    table = rng.integers(-128, 128, 256, dtype=np.int8)
    sym = "mote_kernel_mote_lut_s8_out"
    for shape in ((2, 3, 4, 5), (7,), (), (1, 0, 3)):
        x = rng.integers(-128, 128, shape, dtype=np.int8)
        if shape == (7,):
            x[:2] = (-128, 127)    # both ends of the table
        rc, out = run(ref, sym, [x, table], x.shape)
        assert rc == 0 and out.tobytes() == R.lut_s8(x, table).tobytes()
    x = np.concatenate([np.arange(-128, 128), [5, -128, 127]]).astype(np.int8)  # every value, a tail of 3
    rc, out = run(ref, sym, [x, table], x.shape)
    assert rc == 0 and out.tobytes() == table[x.astype(np.int32) + 128].tobytes()
    x = rng.integers(-128, 128, (3, 4), dtype=np.int8)
    assert run(ref, sym, [x, table[:255]], x.shape)[0] == ERR_SHAPE
    assert run(ref, sym, [x, table], (3, 5))[0] == ERR_SHAPE
    assert run(ref, sym, [x, table.astype(np.int16)], x.shape)[0] == ERR_DTYPE
    assert run(ref, sym, [x], x.shape)[0] == ERR_ARGS


@pytest.mark.parametrize("nb,m,k,n", [(1, 1, 1, 1), (4, 65, 8, 65), (4, 65, 65, 8), (2, 16, 16, 16),
                                      (3, 5, 33, 7), (1, 2, 300, 3)])
def test_bmm_s8(libs, nb, m, k, n):
    """mote::bmm_s8 (plain C) == int8ref.bmm_s8 byte for byte, both layouts of b,
    random zero points, multipliers over many decades, clamps."""
    ref, _ = libs
    rng = np.random.default_rng(nb * 7919 + m * 131 + k * 17 + n)
    sym = "mote_kernel_mote_bmm_s8_out"
    a = rng.integers(-128, 128, (nb, m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (nb, k, n), dtype=np.int8)
    if k > 2:
        a[0, 0, :] = -128          # accumulator extremes: (-128 - 127) * (127 + 128)
        b[0, :, 0] = 127
    for trans in (False, True):
        bb = np.ascontiguousarray(b.transpose(0, 2, 1)) if trans else b
        for scale in (1e-6, 1e-3, 1.0 / 3, 1.0, 30.0):
            mm, s = R.quantize_multiplier(scale / (np.sqrt(k) * 64.0))
            za, zb, zo = (int(v) for v in rng.integers(-128, 128, 3))
            lo, hi = (-128, 127) if scale != 1.0 else (-20, 90)
            args = [a, bb, trans, za, zb, zo, mm, s, lo, hi]
            exp = R.bmm_s8(*args)
            assert exp.shape == (nb, m, n)
            if not trans:
                assert exp.tobytes() == R.bmm_s8(a, np.ascontiguousarray(b.transpose(0, 2, 1)),
                                                  True, *args[3:]).tobytes()
            rc, out = run(ref, sym, args, exp.shape)
            assert rc == 0 and out.tobytes() == exp.tobytes()
    # a hand-checked value: (3 - 1) * (4 - 2) + (5 - 1) * (6 - 2) = 20, times 0.5, + 3
    m2, s2 = R.quantize_multiplier(0.5)
    one = [np.array([[[3, 5]]], np.int8), np.array([[[4], [6]]], np.int8), False, 1, 2, 3, m2, s2,
           -128, 127]
    assert R.bmm_s8(*one).tolist() == [[[13]]]
    assert run(ref, sym, one, (1, 1, 1))[1].tolist() == [[[13]]]


def test_bmm_s8_errors(libs):
    ref, _ = libs
    sym = "mote_kernel_mote_bmm_s8_out"
    a = np.zeros((2, 3, 4), np.int8)
    b = np.zeros((2, 4, 5), np.int8)
    ok = [a, b, False, 0, 0, 0, 1 << 30, -3, -128, 127]
    assert run(ref, sym, ok, (2, 3, 5))[0] == 0
    assert run(ref, sym, ok[:-1], (2, 3, 5))[0] == ERR_ARGS                      # count
    assert run(ref, sym, [a, b, 0] + ok[3:], (2, 3, 5))[0] == ERR_ARGS           # flag tag
    assert run(ref, sym, ok[:3] + [200] + ok[4:], (2, 3, 5))[0] == ERR_ARGS     # zero point
    assert run(ref, sym, ok[:6] + [-1] + ok[7:], (2, 3, 5))[0] == ERR_ARGS      # multiplier
    assert run(ref, sym, ok[:7] + [32] + ok[8:], (2, 3, 5))[0] == ERR_ARGS      # shift
    assert run(ref, sym, ok[:8] + [5, 4], (2, 3, 5))[0] == ERR_ARGS             # act_min > max
    assert run(ref, sym, [a.astype(np.int16)] + ok[1:], (2, 3, 5))[0] == ERR_DTYPE
    assert run(ref, sym, ok, (2, 3, 5), out_dtype=np.int32)[0] == ERR_DTYPE
    assert run(ref, sym, [a, b, True] + ok[3:], (2, 3, 5))[0] == ERR_SHAPE      # [B,N,K] expected
    assert run(ref, sym, [a, b[:1]] + ok[2:], (2, 3, 5))[0] == ERR_SHAPE        # batch
    assert run(ref, sym, ok, (2, 3, 4))[0] == ERR_SHAPE                          # out size
    assert run(ref, sym, [a[0]] + ok[1:], (2, 3, 5))[0] == ERR_SHAPE             # rank
    with pytest.raises(ValueError):
        R.bmm_s8(a, b, True, *ok[3:])


# ----------------------------------------------------------------- int16 activations (s16)

def _s16_qparams(rng, cout, k):
    """Multipliers that spread outputs over the int16 range, shifts in [-31, 14]."""
    mults, shifts = [], []
    for _ in range(cout):
        m, s = R.quantize_multiplier(float(rng.uniform(0.3, 3.0) / (np.sqrt(k) * 600.0)))
        mults.append(m)
        shifts.append(s)
    return np.array(mults, np.int32), np.array(shifts, np.int32)


@pytest.mark.parametrize("case", CONV_CASES[:6] + [CONV_CASES[7]])
def test_conv2d_s16(libs, case):
    from aot.compiler.quant import int16ref as R16
    ref, _ = libs
    n, h, w, cin, cout, (kh, kw), stride, pad, dil, (amin, amax) = case
    rng = np.random.default_rng(hash(case) & 0xffff)
    x = rng.integers(-32768, 32768, (n, h, w, cin), dtype=np.int16)
    wt = rng.integers(-127, 128, (cout, kh, kw, cin), dtype=np.int8)
    bias = rng.integers(-(1 << 22), 1 << 22, cout).astype(np.int64)
    m, s = _s16_qparams(rng, cout, kh * kw * cin)
    lo, hi = amin * 256, amax * 256 + 255
    args = [x, wt, bias, m, s, list(stride), list(pad), list(dil), lo, hi]
    exp = R16.conv2d_s16(*args)
    assert exp.dtype == np.int16 and len(np.unique(exp)) > 10  # outputs spread, not saturated
    rc, out = run(ref, "mote_kernel_mote_conv2d_s16_out", args, exp.shape, np.int16)
    assert rc == 0
    assert out.tobytes() == exp.tobytes()


@pytest.mark.parametrize("case", DW_CASES)
def test_depthwise_conv2d_s16(libs, case):
    from aot.compiler.quant import int16ref as R16
    ref, _ = libs
    n, h, w, cin, dm, (kh, kw), stride, pad, dil, (amin, amax) = case
    rng = np.random.default_rng(hash(case) & 0xffff)
    cout = cin * dm
    x = rng.integers(-32768, 32768, (n, h, w, cin), dtype=np.int16)
    wt = rng.integers(-127, 128, (1, kh, kw, cout), dtype=np.int8)
    bias = rng.integers(-(1 << 30), 1 << 30, cout).astype(np.int64)
    m, s = _s16_qparams(rng, cout, kh * kw)
    args = [x, wt, bias, m, s, list(stride), list(pad), list(dil), dm, amin * 256, amax * 256]
    exp = R16.depthwise_conv2d_s16(*args)
    rc, out = run(ref, "mote_kernel_mote_depthwise_conv2d_s16_out", args, exp.shape, np.int16)
    assert rc == 0
    assert out.tobytes() == exp.tobytes()


@pytest.mark.parametrize("m,k,n", [(1, 3, 5), (2, 17, 7), (3, 64, 12), (1, 250, 10), (4, 1, 1), (1, 4096, 3)])
def test_linear_s16(libs, m, k, n):
    from aot.compiler.quant import int16ref as R16
    ref, _ = libs
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    x = rng.integers(-32768, 32768, (m, k), dtype=np.int16)
    wt = rng.integers(-127, 128, (n, k), dtype=np.int8)
    bias = rng.integers(-(1 << 40), 1 << 40, n).astype(np.int64)
    mm, s = _s16_qparams(rng, n, k)
    args = [x, wt, bias, mm, s, -32768, 32767]
    exp = R16.linear_s16(*args)
    rc, out = run(ref, "mote_kernel_mote_linear_s16_out", args, exp.shape, np.int16)
    assert rc == 0
    assert out.tobytes() == exp.tobytes()


def test_requantize_s64_edges(libs):
    """Extreme accumulators, multipliers (0, near 2^31: the 0x7FFF cap) and
    shifts (-31, 14) through linear_s16 with K = 1, against the reference."""
    from aot.compiler.quant import int16ref as R16
    ref, _ = libs
    accs = [0, 1, -1, 12345, -12345, (1 << 40) + 32767 * 127, -(1 << 40) - 32768 * 127]
    for mult in (0, 1, 1 << 15, (1 << 30) + 12345, 0x7FFF0000 - 1, 0x7FFF0000, (1 << 31) - 1):
        for shift in (-31, -17, -1, 0, 7, 14):
            xs = np.array([[v] for v in (32767, -32768, 0)], np.int16)
            wt = np.array([[127], [-128]], np.int8)
            for b in accs[:5] + [1 << 40, -(1 << 40)]:
                args = [xs, wt, np.array([b, -b], np.int64), np.array([mult] * 2, np.int32),
                        np.array([shift] * 2, np.int32), -32768, 32767]
                exp = R16.linear_s16(*args)
                rc, out = run(ref, "mote_kernel_mote_linear_s16_out", args, exp.shape, np.int16)
                assert rc == 0 and out.tobytes() == exp.tobytes(), (mult, shift, b)
    # exact value: 1000 * 2^30 (a Q31 0.5) >> 0 = 500
    args = [np.array([[1000]], np.int16), np.array([[1]], np.int8), np.zeros(1, np.int64),
            np.array([1 << 30], np.int32), np.array([0], np.int32), -32768, 32767]
    assert R16.linear_s16(*args)[0, 0] == 500
    assert run(ref, "mote_kernel_mote_linear_s16_out", args, (1, 1), np.int16)[1][0, 0] == 500


def test_s16_errors(libs):
    ref, _ = libs
    x = np.zeros((1, 4), np.int16)
    wt = np.zeros((2, 4), np.int8)
    ok = [x, wt, np.zeros(2, np.int64), np.full(2, 1 << 30, np.int32), np.zeros(2, np.int32), -32768, 32767]

    def rc(args, shape=(1, 2), dtype=np.int16):
        return run(ref, "mote_kernel_mote_linear_s16_out", args, shape, dtype)[0]

    assert rc(ok) == 0
    assert rc([x.astype(np.int8)] + ok[1:]) == ERR_DTYPE
    assert rc(ok, dtype=np.int8) == ERR_DTYPE
    assert rc(ok[:2] + [np.zeros(2, np.int32)] + ok[3:]) == ERR_DTYPE  # bias must be int64
    assert rc(ok[:4] + [np.full(2, 15, np.int32)] + ok[5:]) == ERR_ARGS  # shift > 14
    assert rc(ok[:2] + [np.full(2, (1 << 40) + 1, np.int64)] + ok[3:]) == ERR_ARGS
    assert rc(ok[:5] + [-40000, 32767]) == ERR_ARGS
    assert rc(ok[:5] + [10, 5]) == ERR_ARGS
    assert rc(ok, shape=(1, 3)) == ERR_SHAPE
    assert rc(ok[:-1]) == ERR_ARGS  # 7 arguments


PLANAR_CASES = [
    # n, h, w, cin, cout (pointwise) / depthwise: kh, kw, stride, pad, dil, act
    (1, 25, 5, 64, 64, (3, 3), (1, 1), (1, 1), (1, 1), (-128, 127)),   # DS-CNN
    (1, 6, 7, 8, 16, (3, 3), (2, 2), (1, 1), (1, 1), (-128, 127)),     # MobileNet stride 2
    (1, 7, 6, 8, 5, (3, 3), (2, 2), (1, 1), (1, 1), (-20, 90)),        # odd sizes, channel tail
    (2, 5, 4, 12, 6, (3, 3), (1, 1), (1, 1), (1, 1), (-60, 127)),      # two images
    (1, 9, 8, 3, 7, (5, 3), (1, 2), (2, 1), (1, 2), (-128, 127)),      # plain paths (Cin 3, 5x3)
    (1, 4, 4, 4, 4, (3, 3), (1, 1), (0, 0), (1, 1), (-128, 127)),      # no border
]


@pytest.mark.parametrize("case", PLANAR_CASES)
def test_planar_pair_is_the_nhwc_pair(libs, case):
    """pointwise_s8_planar16 -> depthwise_planar16_s8 give conv2d_s8 -> depthwise_conv2d_s8's
    bytes (int8ref, host reference and the plain Cortex-M path), and the planar tensor is
    int8ref.planar16 of conv2d_s8's output: zero point subtracted, zero border."""
    ref, cm = libs
    n, h, w, cin, cout, (kh, kw), stride, pad, dil, (amin, amax) = case
    rng = np.random.default_rng(hash(case) & 0xffff)
    x = rng.integers(-128, 128, (n, h, w, cin), dtype=np.int8)
    pw = rng.integers(-128, 128, (cout, 1, 1, cin), dtype=np.int8)
    pb = rng.integers(-3000, 3000, cout).astype(np.int32)
    pm, ps = _qparams(rng, cout, cin)
    izp, mzp, ozp = (int(v) for v in rng.integers(-128, 128, 3))
    mid = R.conv2d_s8(x, pw, pb, pm, ps, [1, 1], [0, 0], [1, 1], izp, mzp, amin, amax)
    dw = rng.integers(-128, 128, (1, kh, kw, cout), dtype=np.int8)
    db = rng.integers(-3000, 3000, cout).astype(np.int32)
    dm, ds = _qparams(rng, cout, kh * kw)
    exp = R.depthwise_conv2d_s8(mid, dw, db, dm, ds, list(stride), list(pad), list(dil), 1, mzp, ozp,
                                -128, 127)
    fb = R.fold_input_zero_point(pw, pb, izp)
    pargs = [x, pw, fb, pm, ps, list(pad), mzp, amin, amax]
    planar = R.pointwise_s8_planar16(*pargs)
    assert planar.dtype == np.int16 and planar.shape == (n, cout, h + 2 * pad[0], w + 2 * pad[1])
    assert planar.tobytes() == R.planar16(mid, mzp, pad).tobytes()
    dargs = [planar, dw, db, dm, ds, list(stride), list(pad), list(dil), ozp, -128, 127]
    assert R.depthwise_planar16_s8(*dargs).tobytes() == exp.tobytes()
    from aot.compiler.dsp_weights import panel
    sc = planar_scratch(ref, cin, cout)
    assert sc == 16 + 4 * ((cin + 3) // 4 * 4) + 16 * cout
    with_panel = pargs[:9] + [panel(pw)]
    for lib in (ref, cm):
        for a in (pargs, with_panel):      # the 11-argument form carries the DSP panel
            rc, out = run(lib, "mote_kernel_mote_pointwise_s8_planar16_out", a, planar.shape, np.int16,
                          scratch=sc)
            assert rc == 0 and out.tobytes() == planar.tobytes()
        rc, out = run(lib, "mote_kernel_mote_depthwise_planar16_s8_out", dargs, exp.shape)
        assert rc == 0 and out.tobytes() == exp.tobytes()
    rc, _ = run(cm, "mote_kernel_mote_pointwise_s8_planar16_out", pargs, planar.shape, np.int16, scratch=sc - 1)
    assert rc == ERR_SCRATCH
    rc, _ = run(cm, "mote_kernel_mote_pointwise_s8_planar16_out", pargs[:9] + [panel(pw)[:-2]], planar.shape,
                np.int16, scratch=sc)
    assert rc == ERR_SHAPE


def planar_scratch(lib, cin, cout):
    lib.mote_scratch_mote_pointwise_s8_planar16.restype = ctypes.c_size_t
    return lib.mote_scratch_mote_pointwise_s8_planar16(cin, cout)


def test_planar_errors(libs):
    ref, cm = libs
    x = np.zeros((1, 4, 4, 4), np.int8)
    w = np.zeros((4, 1, 1, 4), np.int8)
    z = np.zeros(4, np.int32)
    m = np.full(4, 1 << 30, np.int32)
    s = np.full(4, -3, np.int32)
    for lib in (ref, cm):
        # planar output one column short of the border
        rc, _ = run(lib, "mote_kernel_mote_pointwise_s8_planar16_out", [x, w, z, m, s, [1, 1], 0, -128, 127],
                    (1, 4, 6, 5), np.int16, scratch=64)
        assert rc == ERR_SHAPE
        # a 3x3 weight is not a pointwise
        rc, _ = run(lib, "mote_kernel_mote_pointwise_s8_planar16_out",
                    [x, np.zeros((4, 3, 3, 4), np.int8), z, m, s, [1, 1], 0, -128, 127], (1, 4, 6, 6), np.int16,
                    scratch=64)
        assert rc == ERR_SHAPE
        # the depthwise takes int16 planar input only
        rc, _ = run(lib, "mote_kernel_mote_depthwise_planar16_s8_out",
                    [np.zeros((1, 4, 6, 6), np.int8), np.zeros((1, 3, 3, 4), np.int8), z, m, s, [1, 1], [1, 1],
                     [1, 1], 0, -128, 127], (1, 4, 4, 4))
        assert rc == ERR_DTYPE
        # padding larger than the plane leaves no interior
        rc, _ = run(lib, "mote_kernel_mote_depthwise_planar16_s8_out",
                    [np.zeros((1, 4, 6, 6), np.int16), np.zeros((1, 3, 3, 4), np.int8), z, m, s, [1, 1], [3, 3],
                     [1, 1], 0, -128, 127], (1, 4, 4, 4))
        assert rc == ERR_SHAPE


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_s8_nchw(libs, case):
    """conv2d_s8_nchw on the NCHW bytes of conv2d_s8's input gives conv2d_s8's bytes:
    the integer reference, the portable kernel and the Cortex-M file's (its plain loop
    on the host; the DSP stem in tests/e2e/test_int8_kernels_qemu.py)."""
    ref, cm = libs
    rng = np.random.default_rng(hash(case) & 0xffff)
    args = _conv_args(rng, case)
    exp = R.conv2d_s8(*args)
    nchw = [np.ascontiguousarray(args[0].transpose(0, 3, 1, 2))] + args[1:]
    assert R.conv2d_s8_nchw(*nchw).tobytes() == exp.tobytes()
    for lib in libs:
        rc, out = run(lib, "mote_kernel_mote_conv2d_s8_nchw_out", nchw, exp.shape)
        assert rc == 0
        assert out.tobytes() == exp.tobytes()
    # the NHWC input itself is refused (its H read as Cin), not misread
    if args[0].shape[1] != args[0].shape[3]:
        assert run(ref, "mote_kernel_mote_conv2d_s8_nchw_out", args, exp.shape)[0] == ERR_SHAPE
