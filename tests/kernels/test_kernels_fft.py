"""The real-input FFT kernels (kernels/fft.[ch], op_mote_rfft_mag*.c) through ctypes:
fp32 against numpy's float64 rfft (≤ 1e-5 relative: max |error| of a row over max |X|
of that row), Q15 / Q31 byte for byte against the integer reference
aot/compiler/fftref.py and within its documented bound of the exact DFT, on every
length 2..4096 and on sines, impulses, DC, full-scale square waves and noise; argument
and scratch checks."""
import numpy as np
import pytest
import torch

from aot.compiler import fftref
from tests.kernels.kernels_ffi import ERR

SIZES = [2 ** k for k in range(1, 13)]


def _signals(n, rng, full):
    """Rows of test signals of length n in [-full, full]: noise, a sine between bins,
    an impulse, DC, a full-scale square wave, a chirp."""
    t = np.arange(n)
    rows = [rng.uniform(-full, full, n),
            full * 0.9 * np.sin(2 * np.pi * 3.3 * t / n + 0.4),
            np.where(t == min(5, n - 1), full, 0.0),
            np.full(n, 0.5 * full),
            np.where((t // max(1, n // 8)) % 2 == 0, full, -full),
            full * 0.5 * np.cos(np.pi * t * t / n)]
    return np.stack(rows)


def _run(K, op, x, tw, power, *extra, out_dtype=torch.float32, elem=4, scratch=None):
    n = x.shape[-1]
    out = torch.zeros(tuple(x.shape[:-1]) + (n // 2 + 1,), dtype=out_dtype)
    buf = bytearray(n * elem) if scratch is None else scratch
    err = K.call(op, torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(tw), power, *extra, out,
                 scratch=buf)
    return err, out.numpy()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("power", [1, 2])
def test_fp32_matches_numpy(K, n, power):
    rng = np.random.default_rng(n + power)
    x = _signals(n, rng, 3.0).astype(np.float32)
    tw = fftref.twiddles(n, np.float32)
    err, got = _run(K, "mote::rfft_mag.out", x, tw, power, 0.5)
    assert err == ERR["OK"]
    want = 0.5 * np.abs(np.fft.rfft(x.astype(np.float64), axis=-1)) ** power
    rel = np.max(np.abs(got - want), axis=-1) / np.maximum(np.max(np.abs(want), axis=-1), 1e-30)
    assert rel.max() <= 1e-5, (n, rel)


def test_fp32_batched_rows_and_large_n(K):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 16384)).astype(np.float32)
    err, got = _run(K, "mote::rfft_mag.out", x, fftref.twiddles(16384, np.float32), 1, 1.0)
    assert err == ERR["OK"] and got.shape == (2, 3, 8193)
    want = np.abs(np.fft.rfft(x.astype(np.float64), axis=-1))
    assert np.max(np.abs(got - want)) / np.max(want) <= 1e-5


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("power", [1, 2])
def test_q15_bit_exact_and_within_bound(K, n, power):
    rng = np.random.default_rng(100 + n + power)
    x = np.clip(np.round(_signals(n, rng, 32767.0)), -32768, 32767).astype(np.int16)
    x[0, 0] = -32768  # the most negative sample
    tw = fftref.twiddles(n, np.int16)
    err, got = _run(K, "mote::rfft_mag_q15.out", x, tw, power, out_dtype=torch.int32, elem=2)
    assert err == ERR["OK"]
    ref = fftref.rfft_mag_q15(x, tw, power)
    np.testing.assert_array_equal(got, ref)
    exact = np.abs(np.fft.rfft(x.astype(np.float64), axis=-1)) / n        # |X/N| in Q15 LSB
    bound = fftref.error_bound(n, 16)
    if power == 1:
        assert np.max(np.abs(got - exact)) <= bound + 0.5
    else:
        assert np.all(np.abs(got - exact ** 2) <= 2 * exact * bound + bound ** 2)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("wide", [False, True])
def test_q31_bit_exact_and_within_bound(K, n, wide):
    rng = np.random.default_rng(200 + n + wide)
    if wide:
        x = np.clip(np.round(_signals(n, rng, 2.0 ** 31 - 1)), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
        x[0, 0] = -2 ** 31
        v = x.astype(np.float64)
    else:
        x = np.clip(np.round(_signals(n, rng, 32767.0)), -32768, 32767).astype(np.int16)
        v = x.astype(np.float64) * 65536
    tw = fftref.twiddles(n, np.int32)
    exact = np.abs(np.fft.rfft(v, axis=-1)) / n                              # |V/N| in Q31 LSB
    bound = fftref.error_bound(n, 32)
    err, mag = _run(K, "mote::rfft_mag_q31.out", x, tw, 1, 0, out_dtype=torch.int32)
    assert err == ERR["OK"]
    np.testing.assert_array_equal(mag, fftref.rfft_mag_q31(x, tw, 1, 0))
    sat = exact >= 2 ** 31 - 1 - bound
    assert np.all(np.abs(mag - exact)[~sat] <= bound + 0.5)
    assert np.all(mag[sat] >= 2 ** 31 - 1 - 2 * bound)
    for shift in (31, 40):
        err, pw = _run(K, "mote::rfft_mag_q31.out", x, tw, 2, shift, out_dtype=torch.int32)
        assert err == ERR["OK"]
        np.testing.assert_array_equal(pw, fftref.rfft_mag_q31(x, tw, 2, shift))
        want = exact ** 2 / 2.0 ** shift
        tol = (2 * exact * bound + bound ** 2) / 2.0 ** shift + 0.5
        ok = want < 2 ** 31 - 1 - tol
        assert np.all(np.abs(pw - want)[ok] <= tol[ok])


def test_fixed_point_quiet_signal_keeps_its_resolution(K):
    """A -60 dBFS tone: Q31 keeps the bins the Q15 path rounds to a few LSBs."""
    n = 512
    t = np.arange(n)
    x = np.round(32.0 * np.sin(2 * np.pi * 20 * t / n)).astype(np.int16)[None]
    exact = np.abs(np.fft.rfft(x.astype(np.float64), axis=-1)) / n
    _, q15 = _run(K, "mote::rfft_mag_q15.out", x, fftref.twiddles(n, np.int16), 1, out_dtype=torch.int32, elem=2)
    _, q31 = _run(K, "mote::rfft_mag_q31.out", x, fftref.twiddles(n, np.int32), 1, 0, out_dtype=torch.int32)
    peak = int(np.argmax(exact))
    assert abs(q15[0, peak] - exact[0, peak]) <= fftref.error_bound(n, 16) + 0.5
    assert abs(q31[0, peak] / 65536 - exact[0, peak]) <= 1e-3 * exact[0, peak]


def test_square_root_paths_give_the_same_bytes(K):
    """The magnitude's integer square root: from a float estimate (cores with an FPU, the
    host) or bit by bit (cores without one, MOTE_FFT_BIT_SQRT): the same integers."""
    from tests.kernels.kernels_ffi import LIB, Kernels, build_lib
    bits = Kernels(build_lib(["-DMOTE_FFT_BIT_SQRT"], LIB.with_name("libmote_kernels_bitsqrt.so")))
    rng = np.random.default_rng(9)
    for n in (64, 1024):
        x15 = np.clip(np.round(_signals(n, rng, 32767.0)), -32768, 32767).astype(np.int16)
        x31 = np.clip(np.round(_signals(n, rng, 2.0 ** 31 - 1)), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
        for lib in (K, bits):
            _, q15 = _run(lib, "mote::rfft_mag_q15.out", x15, fftref.twiddles(n, np.int16), 1,
                          out_dtype=torch.int32, elem=2)
            _, q31 = _run(lib, "mote::rfft_mag_q31.out", x31, fftref.twiddles(n, np.int32), 1, 0,
                          out_dtype=torch.int32)
            np.testing.assert_array_equal(q15, fftref.rfft_mag_q15(x15, fftref.twiddles(n, np.int16), 1))
            np.testing.assert_array_equal(q31, fftref.rfft_mag_q31(x31, fftref.twiddles(n, np.int32), 1, 0))


def test_argument_checks(K):
    n = 64
    x = np.zeros((2, n), np.float32)
    tw = fftref.twiddles(n, np.float32)
    op = "mote::rfft_mag.out"
    assert _run(K, op, x, tw, 1, 1.0)[0] == ERR["OK"]
    assert _run(K, op, x, tw, 3, 1.0)[0] == ERR["ARGS"]                       # power
    assert _run(K, op, x, tw[:-2], 1, 1.0)[0] == ERR["SHAPE"]                 # twiddle count
    assert _run(K, op, np.zeros((2, 48), np.float32), fftref.twiddles(48, np.float32), 1, 1.0)[0] == ERR["SHAPE"]
    assert _run(K, op, x.astype(np.float64), tw, 1, 1.0)[0] == ERR["DTYPE"]
    assert _run(K, op, x, tw, 1, 1.0, scratch=bytearray(4 * n - 4))[0] == ERR["SCRATCH"]
    out = torch.zeros(2, n // 2)                                               # wrong out size
    assert K.call(op, torch.from_numpy(x), torch.from_numpy(tw), 1, 1.0, out, scratch=bytearray(4 * n)) \
        == ERR["SHAPE"]
    assert K.call(op, torch.from_numpy(x), torch.from_numpy(tw), 1, 1.0) == ERR["ARGS"]  # argument count
    q = np.zeros((1, n), np.int16)
    assert _run(K, "mote::rfft_mag_q15.out", q, fftref.twiddles(n, np.int32), 1, out_dtype=torch.int32,
                elem=2)[0] == ERR["DTYPE"]                                     # Q31 twiddles for Q15
    assert _run(K, "mote::rfft_mag_q31.out", q, fftref.twiddles(n, np.int32), 2, 63,
                out_dtype=torch.int32)[0] == ERR["ARGS"]                       # shift
    assert _run(K, "mote::rfft_mag_q31.out", q.astype(np.float32), fftref.twiddles(n, np.int32), 2, 31,
                out_dtype=torch.int32)[0] == ERR["DTYPE"]


def test_scratch_size_is_the_kernels_formula():
    from aot.compiler.scratch import _scratch_library
    lib = _scratch_library()
    assert lib.mote_scratch_mote_rfft_mag(512, 4) == 2048 and lib.mote_scratch_mote_rfft_mag(512, 2) == 1024
    assert lib.mote_scratch_mote_rfft_mag(48, 4) == 0 and lib.mote_scratch_mote_rfft_mag(131072, 4) == 0


def test_twiddle_tables():
    t15, t31, t32 = (fftref.twiddles(256, d) for d in (np.int16, np.int32, np.float32))
    assert t15[0] == 32767 and t15[1] == 0 and t31[0] == 2 ** 31 - 1
    ang = 2 * np.pi * np.arange(128) / 256
    exact = np.stack([np.cos(ang), np.sin(ang)], 1).reshape(-1)
    inner = np.abs(exact) < 1 - 1e-9   # rounded to nearest; 1.0 is the largest value, one LSB below
    for table, one in ((t15, 2.0 ** 15), (t31, 2.0 ** 31)):
        assert np.max(np.abs(table / one - exact)[inner]) <= 0.5 / one + 1e-12
        assert np.max(np.abs(table / one - exact)) <= 1 / one + 1e-12
    assert np.max(np.abs(t32[1::2] - np.sin(ang))) <= 6e-8
