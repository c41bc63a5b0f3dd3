"""mote::band_mm (kernels/op_mote_band_mm.c) through ctypes: byte for byte the floats of
aot/compiler/bandref.py, and against the dense fp32 product (torch.mm / addmm) within
the documented summation-order bound (bandref.error_bound) on the keyword spotter's mel
filterbank and on random banded matrices (empty and full columns, 1 to 7 rows, with and
without bias); non-finite inputs give the dense product's NaN / inf; every corruption of
the band table or the shapes is refused before anything is written."""
import numpy as np
import pytest
import torch

from aot.compiler import bandref
from tests.kernels.kernels_ffi import ERR

OP = "mote::band_mm.out"


def _run(K, x, values, bands, bias=None, out_shape=None):
    m, n = x.shape[0], bands.shape[0]
    out = torch.full(out_shape or (m, n), 7.0, dtype=torch.float32)
    err = K.call(OP, torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(values)),
                 torch.from_numpy(np.ascontiguousarray(bands)),
                 None if bias is None else torch.from_numpy(np.ascontiguousarray(bias)), out)
    return err, out.numpy()


def _banded(k, n, rng, empty=0.1, full=0.05):
    """A random [k, n] float32 weight, each column one band (some empty, some all of k),
    zeros inside a band too."""
    w = np.zeros((k, n), np.float32)
    for j in range(n):
        r = rng.random()
        if r < empty:
            continue
        if r < empty + full:
            lo, hi = 0, k
        else:
            lo = int(rng.integers(0, k))
            hi = int(rng.integers(lo + 1, min(k, lo + 1 + max(1, k // 6)) + 1))
        w[lo:hi, j] = rng.standard_normal(hi - lo).astype(np.float32)
        if hi - lo > 2:
            w[lo + 1, j] = 0.0
        w[lo, j] = w[lo, j] or 1.0   # the band starts and ends on a nonzero
        w[hi - 1, j] = w[hi - 1, j] or 1.0
    return w


def _check(K, x, w, bias=None):
    values, bands = bandref.bands_of(w)
    err, got = _run(K, x, values, bands, bias)
    assert err == ERR["OK"]
    np.testing.assert_array_equal(got, bandref.band_mm(x, values, bands, bias))
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    dense = (torch.mm(tx, tw) if bias is None else torch.addmm(torch.from_numpy(bias), tx, tw)).numpy()
    bound = bandref.error_bound(x, w, bias)
    assert np.all(np.abs(got.astype(np.float64) - dense) <= bound), np.max(np.abs(got - dense) - bound)
    exact = x.astype(np.float64) @ w.astype(np.float64) + (0 if bias is None else bias.astype(np.float64))
    assert np.all(np.abs(got - exact) <= bound)
    return got


@pytest.mark.parametrize("rows", [1, 3, 7])
def test_mel_filterbank(K, rows):
    from examples.kws.model import mel_filterbank
    mel = mel_filterbank().numpy()                      # [257, 40]
    assert bandref.worth_it(mel)
    values, bands = bandref.bands_of(mel)
    assert values.size == np.count_nonzero(mel) == 493 and bandref.band_bytes(bands) == 2292
    rng = np.random.default_rng(rows)
    power = (rng.standard_normal((rows, 257)) ** 2 * 10.0 ** rng.uniform(-6, 3, (rows, 1))).astype(np.float32)
    _check(K, power, mel)


@pytest.mark.parametrize("k, n, rows, seed", [(257, 40, 1, 0), (64, 16, 2, 1), (33, 50, 5, 2), (1, 3, 4, 3),
                                              (300, 7, 3, 4), (16, 1, 2, 5)])
@pytest.mark.parametrize("with_bias", [False, True])
def test_random_banded_matrices(K, k, n, rows, seed, with_bias):
    rng = np.random.default_rng(seed)
    w = _banded(k, n, rng)
    x = rng.standard_normal((rows, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32) if with_bias else None
    _check(K, x, w, bias)


def test_empty_bands_and_empty_table(K):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.zeros((3, 4), np.float32)
    values, bands = bandref.bands_of(w)
    assert values.size == 0 and not bands.any()
    err, got = _run(K, x, values, bands, np.array([1, 2, 3, 4], np.float32))
    assert err == ERR["OK"] and np.array_equal(got, np.tile(np.float32([1, 2, 3, 4]), (2, 1)))


def test_non_finite_inputs_give_the_dense_products_nan_and_inf(K):
    from examples.kws.model import mel_filterbank
    mel = mel_filterbank().numpy()
    values, bands = bandref.bands_of(mel)
    x = np.abs(np.random.default_rng(9).standard_normal((4, 257))).astype(np.float32)
    x[0, 100] = np.inf            # inside a couple of bands, outside the rest
    x[1, 5] = np.nan
    x[2, 0] = np.inf              # bin 0: in no mel band
    x[2, 256] = -np.inf
    x[3, 50] = 3e38               # finite, but the row's sum overflows: still finite outputs
    x[3, 51] = 3e38
    err, got = _run(K, x, values, bands)
    assert err == ERR["OK"]
    with np.errstate(invalid="ignore", over="ignore"):
        dense = torch.mm(torch.from_numpy(x), torch.from_numpy(mel)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(dense))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(dense))
    np.testing.assert_array_equal(got, bandref.band_mm(x, values, bands))
    assert np.isinf(got[0]).any() and np.isnan(got[0]).any()   # inf in its bands, NaN (inf * 0) elsewhere
    assert np.isnan(got[1]).all() and np.isnan(got[2]).all() and not np.isnan(got[3]).any()


def _corrupt_cases(values, bands, x):
    k = x.shape[1]
    cases = []
    b = bands.copy(); b[3, 0] = -1; cases.append(("negative lo", values, b))                       # noqa: E702
    b = bands.copy(); b[3, 1] = -1; cases.append(("negative len", values, b))                      # noqa: E702
    b = bands.copy(); b[5, 0] = k - b[5, 1] + 1; cases.append(("band past K", values, b))          # noqa: E702
    b = bands.copy(); b[5, 0] = k + 1; b[5, 1] = 0; cases.append(("lo past K", values, b))         # noqa: E702
    b = bands.copy(); b[0, 1] = 2 ** 31 - 1; cases.append(("huge len", values, b))                 # noqa: E702
    b = bands.copy(); b[0, 0] = 2 ** 31 - 1; cases.append(("huge lo", values, b))                  # noqa: E702
    b = bands.copy(); b[-1, 1] -= 1; cases.append(("lengths short of P", values, b))               # noqa: E702
    b = bands.copy(); b[2, 1] += 1; b[2, 0] = max(0, b[2, 0] - 1)                                    # noqa: E702
    cases.append(("lengths past P", values, b))
    cases.append(("values cut", values[:-1], bands))
    return cases


def test_corrupted_tables_are_refused_before_any_write(K):
    from examples.kws.model import mel_filterbank
    values, bands = bandref.bands_of(mel_filterbank().numpy())
    x = np.ones((2, 257), np.float32)
    assert _run(K, x, values, bands)[0] == ERR["OK"]
    for what, v, b in _corrupt_cases(values, bands, x):
        err, got = _run(K, x, v, b)
        assert err == ERR["SHAPE"], what
        assert np.all(got == 7.0), what


def test_argument_checks(K):
    rng = np.random.default_rng(1)
    w = _banded(20, 6, rng, empty=0)
    values, bands = bandref.bands_of(w)
    x = rng.standard_normal((3, 20)).astype(np.float32)
    bias = np.zeros(6, np.float32)
    assert _run(K, x, values, bands, bias)[0] == ERR["OK"]
    assert _run(K, x.astype(np.float64), values, bands)[0] == ERR["DTYPE"]
    assert _run(K, x, values.astype(np.float64), bands)[0] == ERR["DTYPE"]
    assert _run(K, x, values, bands.astype(np.int64))[0] == ERR["DTYPE"]
    assert _run(K, x, values, bands, bias.astype(np.float64))[0] == ERR["DTYPE"]
    assert _run(K, x, values, bands, np.zeros(5, np.float32))[0] == ERR["SHAPE"]         # bias size
    assert _run(K, x, values, bands, np.zeros((1, 6), np.float32))[0] == ERR["SHAPE"]    # bias rank
    assert _run(K, x, values, bands, out_shape=(3, 5))[0] == ERR["SHAPE"]                # out columns
    assert _run(K, x, values, bands, out_shape=(2, 6))[0] == ERR["SHAPE"]                # out rows
    assert _run(K, x.reshape(3, 20, 1), values, bands, out_shape=(3, 6))[0] == ERR["SHAPE"]
    assert _run(K, x, values.reshape(1, -1), bands)[0] == ERR["SHAPE"]                   # values rank
    assert _run(K, x, values, np.ascontiguousarray(bands[:, :1]))[0] == ERR["SHAPE"]     # bands [N, 1]
    assert _run(K, x, values, bands.reshape(-1))[0] == ERR["SHAPE"]                      # bands rank
    out = torch.zeros(3, 6)
    assert K.call(OP, torch.from_numpy(x), torch.from_numpy(values), torch.from_numpy(bands), out) == ERR["ARGS"]
    assert K.call(OP, torch.from_numpy(x), torch.from_numpy(values), 3, None, out) == ERR["ARGS"]
