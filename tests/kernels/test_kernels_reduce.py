"""Reduce family kernels (reductions, arg-reductions, top-k, cumulative, norms,
distances) called directly, against torch eager."""
import math

import pytest
import torch
import torch.nn.functional as F

from tests.kernels.kernels_ffi import DTYPE, ERR

TOL = 1e-5
F32, I32, I64 = DTYPE[torch.float32], DTYPE[torch.int32], DTYPE[torch.int64]
NAN = float("nan")


def same(out, ref, tol=TOL):
    """Exact for integer/bool outputs; fp within tol relative to max |ref|; NaN/inf where torch has them."""
    assert out.shape == ref.shape, (out.shape, ref.shape)
    assert out.dtype == ref.dtype
    if not ref.is_floating_point():
        return torch.equal(out, ref)
    fin = torch.isfinite(ref)
    if not torch.equal(torch.isnan(out), torch.isnan(ref)) or not torch.equal(out[torch.isinf(ref)], ref[torch.isinf(ref)]):
        return False
    if not fin.any():
        return True
    scale = max(ref[fin].abs().max().item(), 1e-30)
    return (out[fin] - ref[fin]).abs().max().item() / scale <= tol


def blank(ref):
    if ref.is_floating_point():
        return torch.full_like(ref, NAN)
    return torch.full_like(ref, -7) if ref.dtype != torch.bool else torch.zeros_like(ref)


def run(K, name, refs, *args):
    """Call `name` on args plus fresh outs shaped like refs; assert OK and equal."""
    refs = refs if isinstance(refs, (tuple, list)) else (refs,)
    outs = [blank(r) for r in refs]
    rc = K.call(name, *args, *outs)
    assert rc == 0, f"{name} returned {rc}"
    for o, r in zip(outs, refs):
        assert same(o, r), f"{name}:\n got {o}\nwant {r}"
    return outs


def rand(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed + 7 * len(shape) + sum(shape))
    if dtype == torch.float32:
        return torch.randn(shape, generator=g)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.6
    return torch.randint(-50, 50, shape, generator=g, dtype=dtype)


INTS_FLOAT = [torch.float32, torch.int32, torch.int64]

# ----------------------------------------------------------------- amax / amin

AMAX = [((3, 4, 5), [1]), ((3, 4, 5), [0, 2]), ((3, 4, 5), []), ((2, 3, 4, 5), [2, 3]),
        ((2, 3, 4, 5), [-1, 0]), ((), []), ((), [0]), ((4, 0, 3), [0]), ((7,), [0]), ((1, 5, 1), [1])]


@pytest.mark.parametrize("dtype", INTS_FLOAT)
@pytest.mark.parametrize("shape,dims", AMAX, ids=[f"{s}-{d}" for s, d in AMAX])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin(K, dtype, shape, dims, keepdim):
    x = rand(shape, dtype)
    run(K, "aten::amax.out", torch.amax(x, dims, keepdim), x, dims, keepdim)
    run(K, "aten::amin.out", torch.amin(x, dims, keepdim), x, dims, keepdim)


def test_amax_nan_and_errors(K):
    x = torch.randn(3, 6)
    x[1, 2] = NAN
    run(K, "aten::amax.out", torch.amax(x, [1]), x, [1], False)
    run(K, "aten::amin.out", torch.amin(x, [0]), x, [0], False)
    o = torch.empty(3)
    assert K.call("aten::amax.out", x, [1], False, torch.empty(3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::amax.out", x.double(), [1], False, torch.empty(3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::amax.out", x.int(), [1], False, torch.empty(3, dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call("aten::amax.out", x, [1], False, torch.empty(6)) == ERR["SHAPE"]
    assert K.call("aten::amax.out", x, [1], True, o) == ERR["SHAPE"]
    assert K.call("aten::amax.out", x, [2], False, o) == ERR["ARGS"]
    assert K.call("aten::amin.out", x, [1, -1], False, o) == ERR["ARGS"]
    assert K.call("aten::amin.out", x, None, False, torch.empty(())) == ERR["ARGS"]
    assert K.call("aten::amin.out", x, [1], o) == ERR["ARGS"]
    assert K.call("aten::amax.out", torch.empty(0, 3), [0], False, torch.empty(3)) == ERR["SHAPE"]


# ---------------------------------------------------------- linalg_vector_norm

INF = float("inf")
NORMS = [(2.0, [-1], True), (2, [1], False), (1.0, [0, 2], False), (INF, [2], True), (-INF, [0], False),
         (0.0, [1], True), (3.0, [-1], False), (0.5, None, False), (2.0, [], True), (-1.5, [2], False)]


@pytest.mark.parametrize("ord_,dims,keepdim", NORMS, ids=[f"{o}-{d}-{k}" for o, d, k in NORMS])
def test_linalg_vector_norm(K, ord_, dims, keepdim):
    x = rand((3, 4, 5))
    x[0, 1, :2] = 0.0  # zeros: ord 0 counts the others
    want = torch.linalg.vector_norm(x, ord_, dims, keepdim)
    run(K, "aten::linalg_vector_norm.out", want, x, ord_, dims, keepdim, None)
    run(K, "aten::linalg_vector_norm.out", want, x, ord_, dims, keepdim, DTYPE[torch.float32])


def test_linalg_vector_norm_edges_and_errors(K):
    x = torch.randn(3, 6)
    x[1, 2] = NAN
    for o in (2.0, INF, -INF, 1.0, 0.0):  # NaN propagates (ord 0: a NaN is non-zero)
        run(K, "aten::linalg_vector_norm.out", torch.linalg.vector_norm(x, o, [1]), x, o, [1], False, None)
    e = torch.empty(0, 3)
    run(K, "aten::linalg_vector_norm.out", torch.linalg.vector_norm(e, 2.0, [0]), e, 2.0, [0], False, None)
    o = torch.empty(3)
    # an empty reduction has no inf / negative-order norm (torch raises)
    assert K.call("aten::linalg_vector_norm.out", e, INF, [0], False, None, o) == ERR["SHAPE"]
    assert K.call("aten::linalg_vector_norm.out", e, -1.0, [0], False, None, o) == ERR["SHAPE"]
    assert K.call("aten::linalg_vector_norm.out", x, 2.0, [1], False, None, torch.empty(6)) == ERR["SHAPE"]
    assert K.call("aten::linalg_vector_norm.out", x, 2.0, [1], True, None, o) == ERR["SHAPE"]
    assert K.call("aten::linalg_vector_norm.out", x, 2.0, [2], False, None, o) == ERR["ARGS"]
    assert K.call("aten::linalg_vector_norm.out", x, 2.0, [1, -1], False, None, o) == ERR["ARGS"]
    assert K.call("aten::linalg_vector_norm.out", x, NAN, [1], False, None, o) == ERR["ARGS"]
    assert K.call("aten::linalg_vector_norm.out", x, True, [1], False, None, o) == ERR["ARGS"]
    assert K.call("aten::linalg_vector_norm.out", x, 2.0, [1], False, DTYPE[torch.float64], o) == ERR["DTYPE"]
    assert K.call("aten::linalg_vector_norm.out", x.int(), 2.0, [1], False, None, o) == ERR["DTYPE"]
    assert K.call("aten::linalg_vector_norm.out", x, 2.0, [1], False, o) == ERR["ARGS"]


# ---------------------------------------------------------- argmax / argmin

ARG = [((3, 7), None), ((3, 7), 1), ((3, 7), 0), ((3, 7), -1), ((2, 3, 4), 1), ((2, 3, 4), None),
       ((), None), ((), 0), ((5,), 0), ((0, 4), 1), ((1, 6, 1), -2)]


@pytest.mark.parametrize("dtype", INTS_FLOAT)
@pytest.mark.parametrize("shape,dim", ARG, ids=[f"{s}-{d}" for s, d in ARG])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_argmin(K, dtype, shape, dim, keepdim):
    x = rand(shape, dtype)
    if dtype != torch.float32 and x.numel():
        x = x % 4  # many ties: the first index wins
    run(K, "aten::argmax.out", torch.argmax(x, dim, keepdim), x, dim, keepdim)
    run(K, "aten::argmin.out", torch.argmin(x, dim, keepdim), x, dim, keepdim)


def test_argmax_ties_nan_errors(K):
    x = torch.tensor([[1.0, 3.0, 3.0, NAN, NAN], [2.0, 2.0, 1.0, 1.0, 0.0], [NAN, 1.0, 5.0, 5.0, 1.0]])
    for dim in (None, 0, 1):
        run(K, "aten::argmax.out", torch.argmax(x, dim), x, dim, False)
        run(K, "aten::argmin.out", torch.argmin(x, dim), x, dim, False)
    o = torch.empty(3, dtype=torch.int64)
    assert K.call("aten::argmax.out", x, 1, False, torch.empty(3, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call("aten::argmax.out", x.bool(), 1, False, o) == ERR["DTYPE"]
    assert K.call("aten::argmax.out", x, 1, False, torch.empty(5, dtype=torch.int64)) == ERR["SHAPE"]
    assert K.call("aten::argmax.out", x, 2, False, o) == ERR["ARGS"]
    assert K.call("aten::argmin.out", x, [1], False, o) == ERR["ARGS"]
    assert K.call("aten::argmin.out", x, 1, o) == ERR["ARGS"]
    assert K.call("aten::argmax.out", torch.empty(3, 0), 1, False, o) == ERR["SHAPE"]
    assert K.call("aten::argmax.out", torch.empty(0), None, False, torch.empty((), dtype=torch.int64)) == ERR["SHAPE"]


# ------------------------------------------------------------ max.dim / min.dim

DIMS = [((3, 7), 1), ((3, 7), 0), ((2, 3, 4), -1), ((2, 3, 4), 1), ((), 0), ((6,), 0), ((0, 4), 1), ((2, 1, 3), 1)]


@pytest.mark.parametrize("dtype", INTS_FLOAT)
@pytest.mark.parametrize("shape,dim", DIMS, ids=[f"{s}-{d}" for s, d in DIMS])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_dim(K, dtype, shape, dim, keepdim):
    x = rand(shape, dtype)
    if dtype != torch.float32 and x.numel():
        x = x % 3
    v, i = torch.max(x, dim, keepdim)
    run(K, "aten::max.dim_max", (v, i), x, dim, keepdim)
    v, i = torch.min(x, dim, keepdim)
    run(K, "aten::min.dim_min", (v, i), x, dim, keepdim)


def test_max_dim_nan_errors(K):
    x = torch.tensor([[1.0, NAN, 3.0, NAN], [4.0, 4.0, -1.0, 0.0]])
    run(K, "aten::max.dim_max", tuple(torch.max(x, 1)), x, 1, False)
    run(K, "aten::min.dim_min", tuple(torch.min(x, 1)), x, 1, False)
    run(K, "aten::max.dim_max", tuple(torch.max(x, 0)), x, 0, False)
    v, i = torch.empty(2), torch.empty(2, dtype=torch.int64)
    assert K.call("aten::max.dim_max", x, 1, False, v, i.int()) == ERR["DTYPE"]
    assert K.call("aten::max.dim_max", x, 1, False, v.double(), i) == ERR["DTYPE"]
    assert K.call("aten::max.dim_max", x, 1, False, torch.empty(4), i) == ERR["SHAPE"]
    assert K.call("aten::max.dim_max", x, 1, False, v, torch.empty(2, 1, dtype=torch.int64)) == ERR["SHAPE"]
    assert K.call("aten::min.dim_min", x, 2, False, v, i) == ERR["ARGS"]
    assert K.call("aten::min.dim_min", x, 1, v, i) == ERR["ARGS"]
    assert K.call("aten::min.dim_min", torch.empty(2, 0), 1, False, v, i) == ERR["SHAPE"]


# ------------------------------------------------------------ max / min unary

@pytest.mark.parametrize("dtype", INTS_FLOAT)
@pytest.mark.parametrize("shape", [(3, 7), (), (1,), (2, 3, 4)])
def test_max_min_unary(K, dtype, shape):
    x = rand(shape, dtype)
    run(K, "aten::max.unary_out", x.max(), x)
    run(K, "aten::min.unary_out", x.min(), x)


def test_max_unary_nan_errors(K):
    x = torch.tensor([1.0, NAN, 5.0])
    run(K, "aten::max.unary_out", x.max(), x)
    run(K, "aten::min.unary_out", x.min(), x)
    assert K.call("aten::max.unary_out", x, torch.empty(1)) == ERR["SHAPE"]
    assert K.call("aten::max.unary_out", torch.empty(0), torch.empty(())) == ERR["SHAPE"]
    assert K.call("aten::max.unary_out", x, torch.empty((), dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call("aten::min.unary_out", x.bool(), torch.empty((), dtype=torch.bool)) == ERR["DTYPE"]
    assert K.call("aten::min.unary_out", x) == ERR["ARGS"]


# ------------------------------------------------------------------------ any

ANY_DTYPES = [torch.bool, torch.float32, torch.int32, torch.int64, torch.uint8]


def _any_in(shape, dtype):
    x = rand(shape, torch.float32)
    m = x > 0.8
    if dtype == torch.bool:
        return m
    return (m.to(dtype) * 3) if dtype != torch.float32 else torch.where(m, x, torch.zeros_like(x))


@pytest.mark.parametrize("dtype", ANY_DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (), (0, 3), (4, 1)])
def test_any(K, dtype, shape):
    x = _any_in(shape, dtype)
    run(K, "aten::any.all_out", torch.any(x), x)
    for d in range(-len(shape), max(len(shape), 1)):
        for keep in (False, True):
            run(K, "aten::any.out", torch.any(x, d, keep), x, d, keep)
    dims_cases = [None, []] + ([[0], [0, -1]] if len(shape) >= 2 else [])
    for dims in dims_cases:
        for keep in (False, True):
            ref = torch.ops.aten.any.dims(x, dims, keep)
            run(K, "aten::any.dims_out", ref, x, dims, keep)


def test_any_special_values_errors(K):
    x = torch.tensor([[0.0, -0.0], [NAN, 0.0], [0.0, 1e-30]])
    run(K, "aten::any.out", torch.any(x, 1), x, 1, False)
    run(K, "aten::any.all_out", torch.any(x[:1]), x[:1].contiguous())
    b = torch.empty(3, dtype=torch.bool)
    assert K.call("aten::any.out", x, 1, False, torch.empty(3, dtype=torch.uint8)) == ERR["DTYPE"]
    assert K.call("aten::any.out", x.half(), 1, False, b) == ERR["DTYPE"]
    assert K.call("aten::any.out", x, 1, False, torch.empty(2, dtype=torch.bool)) == ERR["SHAPE"]
    assert K.call("aten::any.out", x, 2, False, b) == ERR["ARGS"]
    assert K.call("aten::any.dims_out", x, [1, 1], False, b) == ERR["ARGS"]
    assert K.call("aten::any.dims_out", x, [1], False, torch.empty(3, 1, dtype=torch.bool)) == ERR["SHAPE"]
    assert K.call("aten::any.all_out", x, torch.empty(1, dtype=torch.bool)) == ERR["SHAPE"]
    assert K.call("aten::any.all_out", x, b, b) == ERR["ARGS"]


# ----------------------------------------------------------------------- prod

@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.int64, torch.bool])
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (), (0, 3), (6,)])
def test_prod(K, dtype, shape):
    x = rand(shape, dtype)
    if dtype == torch.float32:
        x = x * 0.3 + 1.0
    elif dtype != torch.bool:
        x = x % 5 - 2
    run(K, "aten::prod.out", torch.prod(x), x, None)
    run(K, "aten::prod.out", torch.prod(x, dtype=torch.float32), x, F32)
    for d in range(-len(shape), max(len(shape), 1)):
        for keep in (False, True):
            run(K, "aten::prod.int_out", torch.prod(x, d, keep), x, d, keep, None)
    if dtype != torch.float32:
        run(K, "aten::prod.out", torch.prod(x, dtype=torch.int32), x, I32)
        run(K, "aten::prod.int_out", torch.prod(x, 0, dtype=torch.float32), x, 0, False, F32)


def test_prod_wraps_and_errors(K):
    x = torch.full((40,), 1 << 10, dtype=torch.int64) + 3
    run(K, "aten::prod.out", torch.prod(x), x, None)  # int64 overflow wraps like torch
    x32 = torch.full((3, 9), 77777, dtype=torch.int32)
    run(K, "aten::prod.int_out", torch.prod(x32, 1, dtype=torch.int32), x32, 1, False, I32)
    f = torch.randn(3, 4)
    assert K.call("aten::prod.out", f, None, torch.empty((), dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call("aten::prod.out", f, I64, torch.empty((), dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call("aten::prod.out", f.double(), None, torch.empty((), dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::prod.out", f, None, torch.empty(1)) == ERR["SHAPE"]
    assert K.call("aten::prod.out", f, 1.5, torch.empty(())) == ERR["ARGS"]
    assert K.call("aten::prod.int_out", f, 1, False, None, torch.empty(4)) == ERR["SHAPE"]
    assert K.call("aten::prod.int_out", f, 3, False, None, torch.empty(3)) == ERR["ARGS"]
    assert K.call("aten::prod.int_out", f, 1, False, torch.empty(3)) == ERR["ARGS"]


# ------------------------------------------------------- sum of integers/masks

SUMI = [((3, 5), [1]), ((3, 5), None), ((3, 5), []), ((2, 3, 4), [0, 2]), ((), None), ((0, 3), [0]), ((4,), [-1])]


@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.int64, torch.uint8, torch.int8])
@pytest.mark.parametrize("shape,dims", SUMI, ids=[f"{s}-{d}" for s, d in SUMI])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_int(K, dtype, shape, dims, keepdim):
    x = rand(shape, torch.int64 if dtype != torch.bool else torch.bool)
    if dtype != torch.bool:
        x = (x % 100).to(dtype)
    d = dims if dims else list(range(len(shape)))
    run(K, "aten::sum.IntList_out", x.sum(d, keepdim=keepdim), x, dims, keepdim, None)
    run(K, "aten::sum.IntList_out", x.sum(d, keepdim=keepdim, dtype=torch.int32), x, dims, keepdim, I32)
    run(K, "aten::sum.IntList_out", x.sum(d, keepdim=keepdim, dtype=torch.float32), x, dims, keepdim, F32)


def test_sum_int_wraps_and_errors(K):
    x = torch.full((3, 4), 2 ** 62, dtype=torch.int64)
    run(K, "aten::sum.IntList_out", x.sum(1), x, [1], False, None)  # wraps like torch
    m = torch.ones(3, 4, dtype=torch.bool)
    assert K.call("aten::sum.IntList_out", m, [1], False, None, torch.empty(3, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call("aten::sum.IntList_out", m, [1], False, DTYPE[torch.float64], torch.empty(3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::sum.IntList_out", m, [1], False, None, torch.empty(4, dtype=torch.int64)) == ERR["SHAPE"]
    assert K.call("aten::sum.IntList_out", m, [2], False, None, torch.empty(3, dtype=torch.int64)) == ERR["ARGS"]
    assert K.call("aten::sum.IntList_out", m, [1], False, 1.0, torch.empty(3, dtype=torch.int64)) == ERR["ARGS"]
    # the float32 path is unchanged
    f = torch.randn(3, 4)
    run(K, "aten::sum.IntList_out", f.sum(1), f, [1], False, None)


# ------------------------------------------------------------------ mean.dtype

@pytest.mark.parametrize("shape", [(3, 7), (), (2, 3, 4), (0, 2)])
def test_mean_dtype(K, shape):
    x = rand(shape)
    run(K, "aten::mean.dtype_out", x.mean(), x, None)
    run(K, "aten::mean.dtype_out", x.mean(dtype=torch.float32), x, F32)


def test_mean_dtype_errors(K):
    x = torch.randn(3, 4)
    assert K.call("aten::mean.dtype_out", x, DTYPE[torch.float64], torch.empty(())) == ERR["DTYPE"]
    assert K.call("aten::mean.dtype_out", x.int(), None, torch.empty(())) == ERR["DTYPE"]
    assert K.call("aten::mean.dtype_out", x, None, torch.empty(1, 1)) == ERR["SHAPE"]
    assert K.call("aten::mean.dtype_out", x, torch.empty(())) == ERR["ARGS"]


# ------------------------------------------------------------------ var / var_mean

VAR = [((3, 7), [1]), ((3, 7), None), ((3, 7), []), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]),
       ((5,), [0]), ((), None), ((4, 1), [1]), ((0, 3), [0])]


@pytest.mark.parametrize("shape,dims", VAR, ids=[f"{s}-{d}" for s, d in VAR])
@pytest.mark.parametrize("correction", [None, 0, 1, 2, 0.5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_var_correction(K, shape, dims, correction, keepdim):
    x = rand(shape) * 3 + 1
    with pytest.warns(None) if False else _quiet():
        ref = torch.var(x, dims, correction=correction, keepdim=keepdim)
        rv, rm = torch.var_mean(x, dims, correction=correction, keepdim=keepdim)
    run(K, "aten::var.correction_out", ref, x, dims, correction, keepdim)
    run(K, "aten::var_mean.correction_out", (rv, rm), x, dims, correction, keepdim)


@pytest.mark.parametrize("shape,dims", VAR, ids=[f"{s}-{d}" for s, d in VAR])
@pytest.mark.parametrize("unbiased", [True, False])
def test_var_legacy(K, shape, dims, unbiased):
    x = rand(shape) * 2 - 1
    for keep in (False, True):
        with _quiet():
            ref = torch.ops.aten.var.dim(x, dims, unbiased, keep)
        run(K, "aten::var.out", ref, x, dims, unbiased, keep)


def test_var_errors(K):
    x = torch.randn(3, 4)
    o = torch.empty(3)
    assert K.call("aten::var.correction_out", x, [1], None, False, o.double()) == ERR["DTYPE"]
    assert K.call("aten::var.correction_out", x.int(), [1], None, False, o) == ERR["DTYPE"]
    assert K.call("aten::var.correction_out", x, [1], None, False, torch.empty(4)) == ERR["SHAPE"]
    assert K.call("aten::var.correction_out", x, [3], None, False, o) == ERR["ARGS"]
    assert K.call("aten::var.correction_out", x, [1], None, o) == ERR["ARGS"]
    assert K.call("aten::var_mean.correction_out", x, [1], None, False, o, torch.empty(4)) == ERR["SHAPE"]
    assert K.call("aten::var_mean.correction_out", x, [1], None, False, o) == ERR["ARGS"]
    assert K.call("aten::var.out", x, [1], 1, False, o) == ERR["ARGS"]
    assert K.call("aten::var.out", x, [1], True, False, torch.empty(3, 1)) == ERR["SHAPE"]


class _quiet:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        self._w.__exit__(*a)


# --------------------------------------------------------------------- cumsum

@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.int64, torch.bool])
@pytest.mark.parametrize("shape", [(3, 7), (2, 3, 4), (), (0, 3), (9,)])
def test_cumsum(K, dtype, shape):
    x = rand(shape, dtype)
    for d in range(-len(shape), max(len(shape), 1)):
        run(K, "aten::cumsum.out", torch.cumsum(x, d), x, d, None)
        run(K, "aten::cumsum.out", torch.cumsum(x, d, dtype=torch.float32), x, d, F32)
        if dtype != torch.float32:
            run(K, "aten::cumsum.out", torch.cumsum(x, d, dtype=torch.int32), x, d, I32)
            run(K, "aten::cumsum.out", torch.cumsum(x, d, dtype=torch.int64), x, d, I64)


def test_cumsum_errors(K):
    x = torch.randn(3, 4)
    assert K.call("aten::cumsum.out", x, 1, None, torch.empty(3, 4, dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call("aten::cumsum.out", x, 1, I64, torch.empty(3, 4, dtype=torch.int64)) == ERR["DTYPE"]
    assert K.call("aten::cumsum.out", x.int(), 1, None, torch.empty(3, 4, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call("aten::cumsum.out", x.double(), 1, None, torch.empty(3, 4, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("aten::cumsum.out", x, 1, None, torch.empty(4, 3)) == ERR["SHAPE"]
    assert K.call("aten::cumsum.out", x, 2, None, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call("aten::cumsum.out", x, 1, torch.empty(3, 4)) == ERR["ARGS"]


# ----------------------------------------------------------------------- topk

TOPK = [((3, 7), 3, -1), ((3, 7), 1, 0), ((3, 7), 7, 1), ((3, 7), 0, 1), ((2, 5, 4), 2, 1),
        ((10,), 4, 0), ((), 1, 0), ((2, 0), 0, 1), ((0, 5), 2, 1)]


@pytest.mark.parametrize("dtype", INTS_FLOAT)
@pytest.mark.parametrize("shape,k,dim", TOPK, ids=[f"{s}-{k}-{d}" for s, k, d in TOPK])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(K, dtype, shape, k, dim, largest):
    x = rand(shape)
    if dtype != torch.float32:  # distinct integers
        x = (x * 1000).round().to(dtype) if x.dim() == 0 else torch.argsort(x.flatten()).reshape(shape).to(dtype) * 3 - 20
    v, i = torch.topk(x, k, dim, largest, True)
    run(K, "aten::topk.values", (v, i), x, k, dim, largest, True)
    # sorted=False: torch leaves the order open; the kernel gives the sorted one
    out_v, out_i = blank(v), blank(i)
    assert K.call("aten::topk.values", x, k, dim, largest, False, out_v, out_i) == 0
    assert same(out_v, v) and torch.equal(out_i, i)


def test_topk_nan_ties_errors(K):
    x = torch.tensor([1.0, 3.0, NAN, 3.0, 2.0, -1.0])
    for largest in (True, False):
        for k in (1, 3, 6):
            v, i = torch.topk(x, k, largest=largest)
            ov, oi = blank(v), blank(i)
            assert K.call("aten::topk.values", x, k, -1, largest, True, ov, oi) == 0
            # the tied 3.0s: torch fixes no order among equal values (the kernel keeps input
            # order); the values, and which elements were picked, must agree
            assert same(ov, v) and same(x[oi], v) and torch.equal(oi.sort().values, i.sort().values)
    v, i = torch.empty(3), torch.empty(3, dtype=torch.int64)
    assert K.call("aten::topk.values", x, 3, 0, True, True, v, i.int()) == ERR["DTYPE"]
    assert K.call("aten::topk.values", x, 3, 0, True, True, v.double(), i) == ERR["DTYPE"]
    assert K.call("aten::topk.values", x, 3, 0, True, True, torch.empty(4), i) == ERR["SHAPE"]
    assert K.call("aten::topk.values", x, 7, 0, True, True, v, i) == ERR["ARGS"]
    assert K.call("aten::topk.values", x, -1, 0, True, True, v, i) == ERR["ARGS"]
    assert K.call("aten::topk.values", x, 3, 1, True, True, v, i) == ERR["ARGS"]
    assert K.call("aten::topk.values", x, 3, 0, True, v, i) == ERR["ARGS"]


# ------------------------------------------------------------------ layer norm

LN = [((2, 3, 6), [6]), ((4, 768), [768]), ((2, 2048), [2048]), ((2, 3, 4), [3, 4]), ((5, 8), [8]), ((7,), [7]), ((2, 3, 1), [1]), ((0, 4), [4])]


@pytest.mark.parametrize("shape,norm", LN, ids=[f"{s}-{n}" for s, n in LN])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_native_layer_norm(K, shape, norm, affine):
    x = rand(shape) * 2 + 0.5
    w = rand(tuple(norm), seed=1) if affine != "none" else None
    b = rand(tuple(norm), seed=2) if affine == "both" else None
    refs = torch.native_layer_norm(x, norm, w, b, 1e-5)
    run(K, "aten::native_layer_norm.out", refs, x, norm, w, b, 1e-5)


def test_native_layer_norm_in_place_and_errors(K):
    x = torch.randn(4, 6)
    ref = torch.native_layer_norm(x, [6], None, None, 1e-5)
    y, m, r = x.clone(), torch.empty(4, 1), torch.empty(4, 1)
    assert K.call("aten::native_layer_norm.out", y, [6], None, None, 1e-5, y, m, r) == 0
    assert same(y, ref[0]) and same(m, ref[1]) and same(r, ref[2])
    o, m, r = torch.empty(4, 6), torch.empty(4, 1), torch.empty(4, 1)
    assert K.call("aten::native_layer_norm.out", x, [6], None, None, 1e-5, o.double(), m, r) == ERR["DTYPE"]
    assert K.call("aten::native_layer_norm.out", x, [6], torch.ones(6).double(), None, 1e-5, o, m, r) == ERR["DTYPE"]
    assert K.call("aten::native_layer_norm.out", x, [5], None, None, 1e-5, o, m, r) == ERR["SHAPE"]
    assert K.call("aten::native_layer_norm.out", x, [6], torch.ones(5), None, 1e-5, o, m, r) == ERR["SHAPE"]
    assert K.call("aten::native_layer_norm.out", x, [6], None, None, 1e-5, o, torch.empty(4), r) == ERR["SHAPE"]
    assert K.call("aten::native_layer_norm.out", x, [4, 6, 1], None, None, 1e-5, o, m, r) == ERR["SHAPE"]
    assert K.call("aten::native_layer_norm.out", x, [6], None, None, 1e-5, o, m) == ERR["ARGS"]
    assert K.call("aten::native_layer_norm.out", x, 6, None, None, 1e-5, o, m, r) == ERR["ARGS"]


# ------------------------------------------------------------------ group norm

GN = [((2, 4, 3, 3), 2), ((2, 4, 3, 3), 1), ((2, 4, 3, 3), 4), ((3, 6), 3), ((1, 6, 5), 2), ((2, 4, 2, 2, 2), 2)]


@pytest.mark.parametrize("shape,group", GN, ids=[f"{s}-{g}" for s, g in GN])
@pytest.mark.parametrize("affine", [False, True])
def test_native_group_norm(K, shape, group, affine):
    x = rand(shape) * 3 - 1
    n, c = shape[0], shape[1]
    hw = math.prod(shape[2:])
    w = rand((c,), seed=1) if affine else None
    b = rand((c,), seed=2) if affine else None
    refs = torch.native_group_norm(x, w, b, n, c, hw, group, 1e-5)
    run(K, "aten::native_group_norm.out", refs, x, w, b, n, c, hw, group, 1e-5)


def test_native_group_norm_errors(K):
    x = torch.randn(2, 4, 3)
    o, m, r = torch.empty(2, 4, 3), torch.empty(2, 2), torch.empty(2, 2)
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 3, 2, 1e-5, o, m, r) == 0
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 3, 2, 1e-5, o, m, r.double()) == ERR["DTYPE"]
    assert K.call("aten::native_group_norm.out", x.int(), None, None, 2, 4, 3, 2, 1e-5, o, m, r) == ERR["DTYPE"]
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 3, 3, 1e-5, o, m, r) == ERR["SHAPE"]
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 4, 2, 1e-5, o, m, r) == ERR["SHAPE"]
    assert K.call("aten::native_group_norm.out", x, torch.ones(3), None, 2, 4, 3, 2, 1e-5, o, m, r) == ERR["SHAPE"]
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 3, 2, 1e-5, o, torch.empty(2, 4), r) == ERR["SHAPE"]
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 3, 0, 1e-5, o, m, r) == ERR["ARGS"]
    assert K.call("aten::native_group_norm.out", x, None, None, 2, 4, 3, 2, o, m, r) == ERR["ARGS"]


# -------------------------------------------------------- training batch norm

BN = [(2, 3, 4, 4), (4, 5), (3, 2, 7), (1, 3, 2, 2, 2)]


@pytest.mark.parametrize("shape", BN, ids=str)
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_legit_no_stats(K, shape, affine):
    x = rand(shape) * 2 + 1
    c = shape[1]
    w = rand((c,), seed=1) if affine else None
    b = rand((c,), seed=2) if affine else None
    refs = torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
    run(K, "aten::_native_batch_norm_legit.no_stats_out", refs, x, w, b, True, 0.1, 1e-5)


def test_batch_norm_legit_errors(K):
    x = torch.randn(2, 3, 4)
    o, m, s = torch.empty(2, 3, 4), torch.empty(3), torch.empty(3)
    name = "aten::_native_batch_norm_legit.no_stats_out"
    assert K.call(name, x, None, None, False, 0.1, 1e-5, o, m, s) == ERR["ARGS"]
    assert K.call(name, x, None, None, True, 0.1, 1e-5, o, m) == ERR["ARGS"]
    assert K.call(name, x.double(), None, None, True, 0.1, 1e-5, o, m, s) == ERR["DTYPE"]
    assert K.call(name, x, torch.ones(3).int(), None, True, 0.1, 1e-5, o, m, s) == ERR["DTYPE"]
    assert K.call(name, x, torch.ones(4), None, True, 0.1, 1e-5, o, m, s) == ERR["SHAPE"]
    assert K.call(name, x, None, None, True, 0.1, 1e-5, o, torch.empty(0), s) == ERR["SHAPE"]
    assert K.call(name, x, None, None, True, 0.1, 1e-5, torch.empty(2, 3, 5), m, s) == ERR["SHAPE"]
    assert K.call(name, torch.empty(0, 3), None, None, True, 0.1, 1e-5, torch.empty(0, 3), m, s) == ERR["SHAPE"]


# ------------------------------------------------------------ cdist / pdist

PS = [2.0, 1.0, 0.0, 3.0, 0.5, math.inf]


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("s1,s2", [((4, 6), (5, 6)), ((2, 3, 4), (2, 7, 4)), ((1, 3), (2, 3)), ((0, 3), (4, 3)),
                                   ((30, 5), (27, 5)), ((2, 3, 4), (5, 4)), ((2, 1, 3, 4), (3, 5, 4)),
                                   ((3, 4), (2, 2, 5, 4)), ((2, 1, 3, 4), (1, 4, 2, 4))])
def test_cdist(K, p, s1, s2):
    a, b = rand(s1), rand(s2, seed=100)
    if p == 0.0:
        a, b = a.round(), b.round()  # equal elements happen
    ref = torch.ops.aten._cdist_forward(a, b, p, None)
    run(K, "aten::_cdist_forward.out", ref, a, b, p, None)
    run(K, "aten::_cdist_forward.out", torch.ops.aten._cdist_forward(a, b, p, 2), a, b, p, 2)


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("shape", [(5, 6), (2, 3), (1, 4), (7, 1)])
def test_pdist(K, p, shape):
    x = rand(shape)
    if p == 0.0:
        x = x.round()
    run(K, "aten::_pdist_forward.out", torch.ops.aten._pdist_forward(x, p), x, p)


def test_dist_errors(K):
    a, b = torch.randn(4, 6), torch.randn(5, 6)
    o = torch.empty(4, 5)
    assert K.call("aten::_cdist_forward.out", a, b, -1.0, None, o) == ERR["ARGS"]
    assert K.call("aten::_cdist_forward.out", a, b, 2.0, 3, o) == ERR["ARGS"]
    assert K.call("aten::_cdist_forward.out", a, b, 2.0, None) == ERR["ARGS"]
    assert K.call("aten::_cdist_forward.out", a.double(), b, 2.0, None, o) == ERR["DTYPE"]
    assert K.call("aten::_cdist_forward.out", a, torch.randn(5, 5), 2.0, None, o) == ERR["SHAPE"]
    assert K.call("aten::_cdist_forward.out", a, b, 2.0, None, torch.empty(5, 4)) == ERR["SHAPE"]
    assert K.call("aten::_cdist_forward.out", a.expand(3, 4, 6).contiguous(), torch.randn(2, 5, 6), 2.0, None,
                  torch.empty(3, 4, 5)) == ERR["SHAPE"]
    assert K.call("aten::_cdist_forward.out", a[None], torch.randn(2, 5, 6), 2.0, None, torch.empty(1, 4, 5)) == ERR["SHAPE"]
    assert K.call("aten::_pdist_forward.out", a, 2.0, torch.empty(5)) == ERR["SHAPE"]
    assert K.call("aten::_pdist_forward.out", a, -2.0, torch.empty(6)) == ERR["ARGS"]
    assert K.call("aten::_pdist_forward.out", a.int(), 2.0, torch.empty(6)) == ERR["DTYPE"]
    assert K.call("aten::_pdist_forward.out", a[None], 2.0, torch.empty(6)) == ERR["SHAPE"]


# ------------------------------------------- whole models through the compiler

class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def _rms(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


def _rms_mul(x):  # RMSNorm without pow (x * x), until pow has a kernel
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)


def _seeded(make):
    torch.manual_seed(0)
    m = make()
    for p in m.parameters():  # non-trivial affine parameters
        with torch.no_grad():
            p.copy_(torch.randn_like(p))
    return m.eval()


MODELS = {
    "layernorm": (lambda: _seeded(lambda: torch.nn.LayerNorm(8)), (2, 5, 8)),
    "layernorm_no_affine": (lambda: torch.nn.LayerNorm([4, 8], elementwise_affine=False), (2, 4, 8)),
    "layernorm_no_bias": (lambda: _seeded(lambda: torch.nn.LayerNorm(8, bias=False)), (3, 8)),
    "groupnorm": (lambda: _seeded(lambda: torch.nn.GroupNorm(2, 6)), (2, 6, 4, 4)),
    "groupnorm_no_affine": (lambda: torch.nn.GroupNorm(3, 6, affine=False), (1, 6, 5)),
    "instancenorm": (lambda: torch.nn.InstanceNorm2d(3), (2, 3, 4, 4)),
    "rmsnorm_mul": (lambda: _Fn(_rms_mul), (2, 3, 8)),
    "max_dim": (lambda: _Fn(lambda x: x.max(dim=1)), (3, 6)),
    "argmax": (lambda: _Fn(lambda x: x.argmax(-1)), (3, 6)),
    "topk": (lambda: _Fn(lambda x: torch.topk(x, 3)), (3, 6)),
    "cumsum": (lambda: _Fn(lambda x: torch.cumsum(x, 1)), (3, 6)),
    "var": (lambda: _Fn(lambda x: x.var(dim=1)), (3, 6)),
    "std_free_var_mean": (lambda: _Fn(lambda x: torch.var_mean(x, (0, 2), keepdim=True)), (3, 4, 5)),
    "amax": (lambda: _Fn(lambda x: x.amax(dim=(2, 3))), (2, 3, 4, 5)),
    "mask_count": (lambda: _Fn(lambda x: (x.argmax(-1) * 2).sum()), (4, 8)),
    "argmax_classifier": (lambda: _seeded(lambda: torch.nn.Sequential(torch.nn.Linear(8, 5), _Fn(lambda y: y.argmax(-1)))),
                          (4, 8)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_models_compile_and_run(name):
    import numpy as np

    from aot.compiler.pipeline import compile_module
    from aot.host.runtime import Program

    make, shape = MODELS[name]
    module = make().eval()
    x = rand(shape, seed=5)
    c = compile_module(name, module, (x,))
    got = Program(c.pte).method().run([x.numpy()])
    with torch.no_grad():
        want = module(x)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert same(torch.from_numpy(np.asarray(g)).reshape(w.shape), w), name


@pytest.mark.slow
def test_rmsnorm_with_pow_compiles_when_pow_has_a_kernel():
    """Hand-written RMSNorm exports pow.Tensor_Scalar_out (the binary family's
    operator) next to this family's mean.out."""
    from aot.compiler.pipeline import compile_module
    from aot.host.runtime import Program

    x = rand((2, 3, 8), seed=6)
    m = _Fn(_rms)
    got = Program(compile_module("rms", m, (x,)).pte).method().run([x.numpy()])[0]
    assert same(torch.from_numpy(got), _rms(x))


ET_MODELS = {
    "layernorm": (lambda: torch.nn.LayerNorm(6), [(3, 6)]),
    "max_dim": (lambda: _Fn(lambda x: tuple(x.max(1))), [(3, 6)]),
    "topk": (lambda: _Fn(lambda x: tuple(torch.topk(x, 3))), [(3, 6)]),
    "instancenorm": (lambda: torch.nn.InstanceNorm2d(4), [(2, 4, 3, 3)]),
    "cumsum_argmax": (lambda: _Fn(lambda x: (x.cumsum(0), x.argmax())), [(3, 6)]),
    "cdist": (lambda: _Fn(lambda x, y: torch.cdist(x, y)), [(3, 6), (2, 6)]),
    "normalize": (lambda: _Fn(lambda x: F.normalize(x, dim=-1)), [(3, 6)]),
}


@pytest.mark.slow
@pytest.mark.oracle  # ExecuTorch's to_edge makes the program
@pytest.mark.parametrize("name", sorted(ET_MODELS))
def test_executorch_programs_run(name, tmp_path):
    """ExecuTorch's own portable .pte of these models runs on Mote's runtime."""
    import numpy as np
    import warnings

    from executorch.exir import to_edge

    from aot.host.runtime import Program

    make, shapes = ET_MODELS[name]
    module = make().eval()
    xs = tuple(rand(s, seed=9 + i) for i, s in enumerate(shapes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pte = to_edge(torch.export.export(module, xs)).to_executorch().buffer
    got = Program(pte).method().run([x.numpy() for x in xs])
    with torch.no_grad():
        want = module(*xs)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert same(torch.from_numpy(np.asarray(g)).reshape(w.shape), w), name


_FIRMWARE_MODEL = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(16)
        self.gn = nn.GroupNorm(2, 4)
        self.fc = nn.Linear(16, 8)

    def forward(self, x, y):
        a = self.fc(self.ln(x))
        v, i = a.max(dim=1)
        t, ti = torch.topk(a, 3)
        g = self.gn(y).amax(dim=(2, 3))
        return v, i, t, ti, torch.cumsum(a, 1), a.var(dim=1), a.argmax(-1), g, torch.var_mean(a, 1)[1]


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(4, 16, generator=g), torch.randn(2, 4, 3, 3, generator=g))
'''


@pytest.mark.slow
@pytest.mark.sim
def test_family_runs_on_simulated_cortex_m(tmp_path):
    """The family's kernels cross-compile into firmware (stack analysis included)
    and match eager PyTorch on the simulated board."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    f = tmp_path / "reduce_model.py"
    f.write_text(_FIRMWARE_MODEL)
    r = subprocess.run([sys.executable, "-m", "aot.cli", "compare", str(f), "--target", "mps2-an505",
                        "-o", str(tmp_path / "fw"), "--json"], cwd=root, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["max_rel_error"] <= 1e-5, res
