"""mote::rfft_mag_window (kernels/op_mote_rfft_mag_window.c) through ctypes: its bins are
mote::rfft_mag's of the float32 products float(x) * window, bit for bit, for int16 and
float32 rows of every length 2..4096 and both powers (so fusing a cast and a window's
multiply into the transform changes no byte); malformed calls are refused before
anything is written."""
import numpy as np
import pytest
import torch

from aot.compiler import fftref
from tests.kernels.kernels_ffi import ERR

OP, PLAIN = "mote::rfft_mag_window.out", "mote::rfft_mag.out"


def _out(x, n):
    return torch.full(tuple(x.shape[:-1]) + (n // 2 + 1,), 7.0, dtype=torch.float32)


def _windowed(K, x, tw, power, scale, w, scratch=None):
    n = x.shape[-1]
    out = _out(x, n)
    err = K.call(OP, torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(tw), power, scale,
                 torch.from_numpy(w), out, scratch=bytearray(4 * n) if scratch is None else scratch)
    return err, out.numpy()


@pytest.mark.parametrize("n", [2, 4, 8, 64, 256, 512, 1024, 4096])
@pytest.mark.parametrize("dtype", [np.int16, np.float32])
@pytest.mark.parametrize("power", [1, 2])
def test_bins_equal_rfft_mag_of_the_windowed_rows(K, n, dtype, power):
    rng = np.random.default_rng(n + power)
    x = (rng.integers(-32768, 32768, (3, n)) if dtype == np.int16 else rng.standard_normal((3, n))).astype(dtype)
    w = (np.hanning(n + 1)[:n] / 32768.0).astype(np.float32)       # a periodic Hann, scaled as a front end's
    tw = fftref.twiddles(n, np.float32)
    err, got = _windowed(K, x, tw, power, 0.25, w)
    assert err == ERR["OK"]
    rows = x.astype(np.float32) * w                                   # the mul's float32 products
    plain = _out(rows, n)
    assert K.call(PLAIN, torch.from_numpy(rows), torch.from_numpy(tw), power, 0.25, plain,
                  scratch=bytearray(4 * n)) == ERR["OK"]
    assert np.array_equal(got, plain.numpy())
    want = fftref.rfft_mag_window(x, tw, power, 0.25, w)
    assert np.max(np.abs(got - want)) <= 1e-5 * np.max(np.abs(want)) + 1e-30


@pytest.mark.parametrize("case, err", [
    ("window_length", "SHAPE"), ("window_rank", "SHAPE"), ("window_dtype", "DTYPE"), ("input_int32", "DTYPE"),
    ("scratch_short", "SCRATCH"), ("five_args", "ARGS"), ("power_3", "ARGS")])
def test_malformed_calls_are_refused_before_any_write(K, case, err):
    n = 64
    x = torch.arange(2 * n, dtype=torch.int16).reshape(2, n)
    tw = torch.from_numpy(fftref.twiddles(n, np.float32))
    w = torch.ones(n, dtype=torch.float32)
    out = _out(x, n)
    args = {
        "window_length": (x, tw, 2, 1.0, torch.ones(n - 1), out),
        "window_rank": (x, tw, 2, 1.0, torch.ones(1, n), out),
        "window_dtype": (x, tw, 2, 1.0, torch.ones(n, dtype=torch.int16), out),
        "input_int32": (x.to(torch.int32), tw, 2, 1.0, w, out),
        "scratch_short": (x, tw, 2, 1.0, w, out),
        "five_args": (x, tw, 2, 1.0, out),
        "power_3": (x, tw, 3, 1.0, w, out),
    }[case]
    scratch = bytearray(4 * n - 4 if case == "scratch_short" else 4 * n)
    assert K.call(OP, *args, scratch=scratch) == ERR[err]
    assert torch.all(out == 7.0)
