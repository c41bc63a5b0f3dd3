"""mote::lstm_cell_s8 and mote::gru_cell_s8 (kernels/op_mote_*_cell_s8.c, kernels/s8_rnn.c)
against the Python integer reference aot/compiler/quant/recurrentref.py, byte for byte,
through ctypes (the harness of test_int8_kernels.py); the reference's sigmoid / tanh
tables against the float functions; argument checks."""
import ctypes

import numpy as np
import pytest

from aot.compiler.quant import int8ref
from aot.compiler.quant import recurrentref as R
from tests.kernels.test_int8_kernels import ERR_ARGS, ERR_DTYPE, ERR_SHAPE, Call, Ctx, libs  # noqa: F401

# batch, input size, hidden size, cell_frac_bits (LSTM), product scale spread
CASES = [(1, 6, 32, 15, 1.0), (2, 10, 32, 11, 1.0), (3, 5, 7, 0, 1.0), (1, 32, 48, 6, 30.0),
         (2, 3, 4, 13, 1e-3)]


def _args(rng, lstm, b, i, h, k, spread):
    g = (4 if lstm else 3) * h
    x = rng.integers(-128, 128, (b, i), dtype=np.int8)
    hid = rng.integers(-128, 128, (b, h), dtype=np.int8)
    w_ih = rng.integers(-127, 128, (g, i), dtype=np.int8)
    w_hh = rng.integers(-127, 128, (g, h), dtype=np.int8)
    bias = rng.integers(-40000, 40000, (2, g)).astype(np.int32)
    ms, ss = [], []
    for _ in range(2 * g):  # products of about +-8 at 2^-20 (spread: saturating or tiny gates)
        m, s = int8ref.quantize_multiplier(float(rng.uniform(0.5, 2.0) * 2 ** 20 * spread / (128 * 128)))
        ms.append(m)
        ss.append(s)
    mult = np.array(ms, np.int32).reshape(2, g)
    shift = np.array(ss, np.int32).reshape(2, g)
    zp = int(rng.integers(-20, 20))
    hm, hs = int8ref.quantize_multiplier((2.0 ** -30 if lstm else 2.0 ** -15) / float(rng.uniform(0.004, 0.02)))
    table = R.activation_tables()
    if lstm:
        cell = rng.integers(-32768, 32768, (b, h), dtype=np.int16)
        return [x, hid, cell, w_ih, w_hh, bias, mult, shift, table, k, zp, hm, hs]
    return [x, hid, w_ih, w_hh, bias, mult, shift, table, zp, hm, hs]


def _run(lib, lstm, args):
    b, h = args[1].shape
    outs = [np.zeros((b, h), np.int8)] + ([np.zeros((b, h), np.int16)] if lstm else [])
    call = Call(list(args) + outs)
    fn = getattr(lib, "mote_kernel_mote_lstm_cell_s8_out" if lstm else "mote_kernel_mote_gru_cell_s8_out")
    fn.restype = ctypes.c_int
    ctx = Ctx(None, 0)
    return fn(ctypes.byref(ctx), call.ptrs, len(call.ptrs)), outs


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("lstm", [True, False], ids=["lstm", "gru"])
def test_cell_matches_reference(libs, lstm, case):
    """Random int8 states, weights, biases and requantization over gates that saturate
    (spread 30), stay near zero (1e-3) or fill Q3.12: every byte equals the reference."""
    ref, _ = libs
    rng = np.random.default_rng(hash((lstm,) + case) % 2 ** 32)
    for _ in range(3):
        args = _args(rng, lstm, *case)
        exp = R.lstm_cell_s8(*args) if lstm else (R.gru_cell_s8(*args),)
        rc, outs = _run(ref, lstm, args)
        assert rc == 0
        for o, e in zip(outs, exp):
            assert o.dtype == e.dtype and np.array_equal(o, e)
        assert len(np.unique(outs[0])) > 1  # not a constant output


def test_activation_tables_track_the_functions():
    """The interpolated Q0.15 sigmoid / tanh of every Q3.12 input is within 2 LSB
    (measured: 1 LSB for sigmoid, 2 for tanh) of round(f(x) * 2^15)."""
    t = R.activation_tables()
    v = np.arange(-32768, 32768, dtype=np.int64)
    x = v / 4096.0
    for row, f, bound in ((0, lambda a: 1 / (1 + np.exp(-a)), 1), (1, np.tanh, 2)):
        exact = np.clip(np.round(f(x) * 32768), -32768, 32767)
        err = np.abs(R.act16(v, 12, t[row]).astype(np.int64) - exact)
        assert err.max() <= bound, (row, err.max())


def test_cell_refuses_bad_arguments(libs):
    """Wrong count, dtype, shape, or a shift / cell_frac_bits out of range: an error code."""
    ref, _ = libs
    rng = np.random.default_rng(3)
    args = _args(rng, True, 1, 4, 8, 11, 1.0)
    assert _run(ref, True, args)[0] == 0
    bad = list(args)
    bad[0] = args[0].astype(np.int16)
    assert _run(ref, True, bad)[0] == ERR_DTYPE
    bad = list(args)
    bad[3] = args[3][:-1]
    assert _run(ref, True, bad)[0] == ERR_SHAPE
    bad = list(args)
    bad[7] = args[7].copy()
    bad[7][0, 0] = 31
    assert _run(ref, True, bad)[0] == ERR_ARGS
    bad = list(args)
    bad[9] = 16
    assert _run(ref, True, bad)[0] == ERR_ARGS
    call = Call(args)  # no outputs
    fn = ref.mote_kernel_mote_lstm_cell_s8_out
    fn.restype = ctypes.c_int
    assert fn(ctypes.byref(Ctx(None, 0)), call.ptrs, len(call.ptrs)) == ERR_ARGS
