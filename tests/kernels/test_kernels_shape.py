"""Kernels of the shape family (copies, views, splits, stacking, creation ops)
against torch eager: exact for every dtype (pure copies), 1e-5 relative for
fp32 arithmetic (arange), and their error codes."""
import pytest
import torch
import torch.nn.functional as F

from tests.kernels.kernels_ffi import ERR

DTYPES = [torch.float32, torch.int32, torch.int64, torch.bool, torch.uint8, torch.int8, torch.int16,
          torch.float64]


def _data(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed + 7 * len(shape) + sum(shape))
    x = torch.randn(shape, generator=g) * 50
    if dtype == torch.bool:
        return x > 0
    return x.to(dtype)


def _same(out, ref):
    assert out.shape == ref.shape and out.dtype == ref.dtype
    if out.is_floating_point() and out.dtype != torch.float64:
        err = (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30) if ref.numel() else 0.0
        assert err <= 1e-5, err
    else:
        assert torch.equal(out, ref)


def run(K, name, ref, *args):
    """Call `name` with args + a fresh out like ref (garbage-filled); compare exactly / 1e-5."""
    out = torch.full_like(ref, 7) if ref.dtype != torch.bool else torch.ones_like(ref)
    rc = K.call(name, *args, out)
    assert rc == ERR["OK"], f"{name} returned {rc}"
    _same(out, ref)
    return out


def run_list(K, name, refs, *args):
    outs = [torch.full_like(r, 7) if r.dtype != torch.bool else torch.ones_like(r) for r in refs]
    rc = K.call(name, *args, outs)
    assert rc == ERR["OK"], f"{name} returned {rc}"
    for o, r in zip(outs, refs):
        _same(o, r)


# ----------------------------------------------------------------- splits, stacking


@pytest.mark.parametrize("dtype", DTYPES)
def test_split_with_sizes_copy(K, dtype):
    x = _data((2, 7, 3), dtype)
    for sizes, dim in (([2, 0, 5], 1), ([1, 1], 0), ([3], -1), ([1, 2], 2)):
        run_list(K, "aten::split_with_sizes_copy.out", list(torch.split(x, sizes, dim)), x, sizes, dim)
    v = _data((10,), dtype)
    run_list(K, "aten::split_with_sizes_copy.out", list(torch.split(v, [4, 6])), v, [4, 6], 0)
    e = _data((0, 3), dtype)
    run_list(K, "aten::split_with_sizes_copy.out", list(torch.split(e, [1, 2], 1)), e, [1, 2], 1)


def test_split_with_sizes_copy_errors(K):
    x = torch.randn(2, 6)
    outs = [torch.empty(2, 2), torch.empty(2, 4)]
    name = "aten::split_with_sizes_copy.out"
    assert K.call(name, x, [2, 4], 1, outs) == ERR["OK"]
    assert K.call(name, x, [2, 4], 1) == ERR["ARGS"]
    assert K.call(name, x, [2, 4], 1, outs[0]) == ERR["ARGS"]           # not a Tensor[]
    assert K.call(name, x, [2, 2, 2], 1, outs) == ERR["ARGS"]           # list length
    assert K.call(name, x, [2, 4], 5, outs) == ERR["ARGS"]              # dim
    assert K.call(name, x, [2, 4], 1, [outs[0], outs[1].int()]) == ERR["DTYPE"]
    assert K.call(name, x, [2, 3], 1, [outs[0], torch.empty(2, 3)]) == ERR["SHAPE"]   # sum
    assert K.call(name, x, [2, 4], 1, [outs[0], torch.empty(2, 5)]) == ERR["SHAPE"]
    assert K.call(name, torch.tensor(1.0), [1], 0, [torch.empty(1)]) == ERR["ARGS"]   # 0-dim


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_split_copy(K, dtype):
    x = _data((3, 7), dtype)
    for split, dim in ((3, 1), (2, 0), (7, 1), (10, -1), (1, 0)):
        run_list(K, "aten::split_copy.Tensor_out", list(torch.split(x, split, dim)), x, split, dim)
    e = _data((0, 2), dtype)
    run_list(K, "aten::split_copy.Tensor_out", list(torch.split(e, 0, 0)), e, 0, 0)


def test_split_copy_errors(K):
    x = torch.randn(3, 7)
    name = "aten::split_copy.Tensor_out"
    outs = [torch.empty(3, 3), torch.empty(3, 3), torch.empty(3, 1)]
    assert K.call(name, x, 3, 1, outs) == ERR["OK"]
    assert K.call(name, x, 3, 1, outs[:2]) == ERR["ARGS"]      # too few chunks
    assert K.call(name, x, 0, 1, outs) == ERR["ARGS"]          # split 0
    assert K.call(name, x, -1, 1, outs) == ERR["ARGS"]
    assert K.call(name, x, 3, 1, [outs[0], outs[1], outs[2].double()]) == ERR["DTYPE"]
    assert K.call(name, x, 3, 1, [outs[0], outs[1], torch.empty(3, 2)]) == ERR["SHAPE"]
    assert K.call(name, x, 3.0, 1, outs) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_unbind_copy(K, dtype):
    x = _data((2, 3, 4), dtype)
    for dim in (0, 1, 2, -1):
        run_list(K, "aten::unbind_copy.int_out", list(torch.unbind(x, dim)), x, dim)
    v = _data((5,), dtype)
    run_list(K, "aten::unbind_copy.int_out", list(torch.unbind(v)), v, 0)


def test_unbind_copy_errors(K):
    x = torch.randn(2, 3)
    name = "aten::unbind_copy.int_out"
    assert K.call(name, x, 0, [torch.empty(3), torch.empty(3)]) == ERR["OK"]
    assert K.call(name, x, 0, [torch.empty(3)]) == ERR["ARGS"]
    assert K.call(name, x, 2, [torch.empty(3), torch.empty(3)]) == ERR["ARGS"]
    assert K.call(name, x, 0, [torch.empty(3), torch.empty(3, dtype=torch.int32)]) == ERR["DTYPE"]
    assert K.call(name, x, 0, [torch.empty(3), torch.empty(1, 3)]) == ERR["SHAPE"]
    assert K.call(name, x, 0) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_stack(K, dtype):
    a, b, c = (_data((2, 3), dtype, s) for s in range(3))
    for dim in (0, 1, 2, -1, -3):
        run(K, "aten::stack.out", torch.stack([a, b, c], dim), [a, b, c], dim)
    s0, s1 = _data((), dtype, 1), _data((), dtype, 2)
    run(K, "aten::stack.out", torch.stack([s0, s1]), [s0, s1], 0)
    e = _data((0, 2), dtype)
    run(K, "aten::stack.out", torch.stack([e, e], 1), [e, e], 1)
    run(K, "aten::stack.out", torch.stack([a]), [a], 0)


def test_stack_errors(K):
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    name = "aten::stack.out"
    assert K.call(name, [a, b], 0, torch.empty(2, 2, 3)) == ERR["OK"]
    assert K.call(name, [a, b], 3, torch.empty(2, 2, 3)) == ERR["ARGS"]
    assert K.call(name, [a, b.int()], 0, torch.empty(2, 2, 3)) == ERR["DTYPE"]
    assert K.call(name, [a, b], 0, torch.empty(2, 2, 3, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(name, [a, torch.randn(3, 2)], 0, torch.empty(2, 2, 3)) == ERR["SHAPE"]
    assert K.call(name, [a, b], 0, torch.empty(2, 3, 2)) == ERR["SHAPE"]
    assert K.call(name, [a, b], 0) == ERR["ARGS"]
    assert K.call(name, a, 0, torch.empty(2, 2, 3)) == ERR["ARGS"]


# ----------------------------------------------------------------- plain copies and views


@pytest.mark.parametrize("op", ["aten::alias_copy.out", "aten::detach_copy.out", "aten::lift_fresh_copy.out"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_identity_copies(K, op, dtype):
    for shape in ((2, 3, 4), (), (0, 3), (5,)):
        x = _data(shape, dtype)
        run(K, op, x.clone(), x)
    x = _data((3, 4), dtype)
    ref = x.clone()
    assert K.call(op, x, x) == ERR["OK"] and torch.equal(x, ref)      # in place
    assert K.call(op, x, torch.empty(4, 3, dtype=dtype)) == ERR["SHAPE"]
    other = torch.int16 if dtype != torch.int16 else torch.int32
    assert K.call(op, x, torch.empty(3, 4, dtype=other)) == ERR["DTYPE"]
    assert K.call(op, x) == ERR["ARGS"]
    assert K.call(op, x, 1, torch.empty(3, 4, dtype=dtype)) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose_and_t(K, dtype):
    x = _data((2, 3, 4), dtype)
    for d0, d1 in ((0, 1), (0, 2), (-1, 1), (2, 2)):
        run(K, "aten::transpose_copy.int_out", x.transpose(d0, d1).contiguous(), x, d0, d1)
    s = _data((), dtype)
    run(K, "aten::transpose_copy.int_out", s.clone(), s, 0, -1)
    m = _data((3, 5), dtype)
    run(K, "aten::t_copy.out", m.t().contiguous(), m)
    v = _data((4,), dtype)
    run(K, "aten::t_copy.out", v.t().contiguous(), v)
    run(K, "aten::t_copy.out", s.clone(), s)
    e = _data((0, 3), dtype)
    run(K, "aten::t_copy.out", e.t().contiguous(), e)


def test_transpose_and_t_errors(K):
    x = torch.randn(2, 3, 4)
    assert K.call("aten::transpose_copy.int_out", x, 0, 3, torch.empty(2, 3, 4)) == ERR["ARGS"]
    assert K.call("aten::transpose_copy.int_out", x, 0, 1, torch.empty(3, 2, 4).int()) == ERR["DTYPE"]
    assert K.call("aten::transpose_copy.int_out", x, 0, 1, torch.empty(2, 3, 4)) == ERR["SHAPE"]
    assert K.call("aten::transpose_copy.int_out", x, 0, torch.empty(2, 3, 4)) == ERR["ARGS"]
    assert K.call("aten::t_copy.out", x, torch.empty(4, 3, 2)) == ERR["SHAPE"]
    assert K.call("aten::t_copy.out", x[0], torch.empty(4, 3).long()) == ERR["DTYPE"]
    assert K.call("aten::t_copy.out", x[0], torch.empty(3, 4)) == ERR["SHAPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_squeeze_copy_dim(K, dtype):
    x = _data((2, 1, 3, 1), dtype)
    for dim in (1, 3, -1, 0, 2):
        run(K, "aten::squeeze_copy.dim_out", x.squeeze(dim).contiguous(), x, dim)
    s = _data((), dtype)
    run(K, "aten::squeeze_copy.dim_out", s.squeeze(0), s, 0)
    assert K.call("aten::squeeze_copy.dim_out", x, 4, torch.empty(2, 3, 1, dtype=dtype)) == ERR["ARGS"]
    assert K.call("aten::squeeze_copy.dim_out", x, 1, torch.empty(2, 1, 3, 1, dtype=dtype)) == ERR["SHAPE"]
    other = torch.float16
    assert K.call("aten::squeeze_copy.dim_out", x, 1, torch.empty(2, 3, 1, dtype=other)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_narrow_copy(K, dtype):
    x = _data((3, 6, 2), dtype)
    for dim, start, length in ((1, 1, 3), (1, -2, 2), (0, 0, 3), (2, 1, 0), (-2, 6, 0), (1, -6, 6)):
        run(K, "aten::narrow_copy.out", x.narrow(dim, start, length).contiguous(), x, dim, start, length)
    name = "aten::narrow_copy.out"
    assert K.call(name, x, 1, 4, 3, torch.empty(3, 3, 2, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 1, -7, 1, torch.empty(3, 1, 2, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 1, 0, -1, torch.empty(3, 1, 2, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 3, 0, 1, torch.empty(3, 1, 2, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 1, 0, 2, torch.empty(3, 3, 2, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, x, 1, 0, 2, torch.empty(3, 2, 2, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_diagonal_copy(K, dtype):
    x = _data((3, 4, 5), dtype)
    for off, d1, d2 in ((0, 0, 1), (1, 1, 2), (-2, 1, 2), (2, 2, 0), (-1, -1, 0), (7, 0, 1), (-9, 1, 2)):
        run(K, "aten::diagonal_copy.out", torch.diagonal(x, off, d1, d2).contiguous(), x, off, d1, d2)
    m = _data((4, 4), dtype)
    run(K, "aten::diagonal_copy.out", torch.diagonal(m).contiguous(), m, 0, 0, 1)
    name = "aten::diagonal_copy.out"
    assert K.call(name, x, 0, 1, 1, torch.empty(3, 4, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 0, 0, 3, torch.empty(3, 4, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x[0, 0], 0, 0, 0, torch.empty(1, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 0, 0, 1, torch.empty(5, 4, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, x, 0, 0, 1, torch.empty(5, 3, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_as_strided_copy(K, dtype):
    x = _data((4, 5), dtype)
    for size, stride, off in (((2, 3), (1, 2), 1), ((5, 4), (1, 5), None), ((3, 3), (0, 1), 17),
                              ((2, 2, 2), (10, 5, 1), 0), ((), (), 19), ((0, 3), (100, 1), 3)):
        ref = torch.as_strided(x, size, stride, off if off is not None else 0).contiguous()
        run(K, "aten::as_strided_copy.out", ref, x, list(size), list(stride), off)
    name = "aten::as_strided_copy.out"
    assert K.call(name, x, [2, 3], [1, 9], 3, torch.empty(2, 3, dtype=dtype)) == ERR["ARGS"]    # past the end
    assert K.call(name, x, [2, 3], [1, -1], 3, torch.empty(2, 3, dtype=dtype)) == ERR["ARGS"]
    huge = 2**32 - 1  # terms whose uint64 sum would wrap back inside self
    assert K.call(name, x, [huge] * 5, [huge] * 5, 0, torch.empty(1, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, [1, 1], [huge, huge], 0, torch.empty(1, 1, dtype=dtype)) == ERR["OK"]
    assert K.call(name, x, [2, 3], [1], 0, torch.empty(2, 3, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, [2, 3], [1, 2], -1, torch.empty(2, 3, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, [2, 3], [1, 2], 0, torch.empty(3, 2, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, x, [2, 3], [1, 2], 0, torch.empty(2, 3, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_unfold_copy(K, dtype):
    x = _data((2, 7, 3), dtype)
    for dim, size, step in ((1, 3, 2), (1, 7, 1), (-1, 2, 1), (0, 1, 5), (1, 0, 3), (1, 2, 10)):
        run(K, "aten::unfold_copy.out", x.unfold(dim, size, step).contiguous(), x, dim, size, step)
    s = _data((), dtype)
    run(K, "aten::unfold_copy.out", s.unfold(0, 1, 1).contiguous(), s, 0, 1, 1)
    name = "aten::unfold_copy.out"
    assert K.call(name, x, 1, 8, 1, torch.empty(2, 0, 3, 8, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 1, 2, 0, torch.empty(2, 6, 3, 2, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 3, 2, 1, torch.empty(2, 6, 3, 2, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, 1, 2, 1, torch.empty(2, 6, 2, 3, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, x, 1, 2, 1, torch.empty(2, 6, 3, 2, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_flip(K, dtype):
    x = _data((2, 3, 4), dtype)
    for dims in ([0], [2], [0, 2], [-1, 1, 0], []):
        run(K, "aten::flip.out", torch.flip(x, dims), x, dims)
    s = _data((), dtype)
    run(K, "aten::flip.out", torch.flip(s, [0]), s, [0])
    e = _data((0, 3), dtype)
    run(K, "aten::flip.out", torch.flip(e, [0, 1]), e, [0, 1])
    assert K.call("aten::flip.out", x, [0, -3], torch.empty_like(x)) == ERR["ARGS"]   # repeated
    assert K.call("aten::flip.out", x, [3], torch.empty_like(x)) == ERR["ARGS"]
    assert K.call("aten::flip.out", x, [0], torch.empty(2, 4, 3, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::flip.out", x, [0], torch.empty(2, 3, 4, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_roll(K, dtype):
    x = _data((3, 4, 5), dtype)
    for shifts, dims in (([1], [2]), ([-2], [0]), ([1, -1], [1, 2]), ([7], []), ([-13], []),
                         ([2, 3], [1, 1]), ([0], [1]), ([100], [2])):
        run(K, "aten::roll.out", torch.roll(x, shifts, dims), x, shifts, dims)
    e = _data((0, 3), dtype)
    run(K, "aten::roll.out", torch.roll(e, [1], [1]), e, [1], [1])
    name = "aten::roll.out"
    assert K.call(name, x, [1, 2], [], torch.empty_like(x)) == ERR["ARGS"]
    assert K.call(name, x, [1, 2], [0], torch.empty_like(x)) == ERR["ARGS"]
    assert K.call(name, x, [1], [3], torch.empty_like(x)) == ERR["ARGS"]
    assert K.call(name, x, [1], [0], torch.empty(3, 5, 4, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, x, [1], [0], torch.empty(3, 4, 5, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_repeat(K, dtype):
    x = _data((2, 3), dtype)
    for reps in ([1, 1], [2, 3], [3, 1, 2], [2, 1, 1, 2], [0, 2], [1, 2, 1, 2, 1, 2]):
        run(K, "aten::repeat.out", x.repeat(*reps), x, reps)
    s = _data((), dtype)
    run(K, "aten::repeat.out", s.repeat(3, 2), s, [3, 2])
    run(K, "aten::repeat.out", s.repeat(()), s, [])
    name = "aten::repeat.out"
    assert K.call(name, x, [2], torch.empty(4, 3, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, [2, -1], torch.empty(4, 3, dtype=dtype)) == ERR["ARGS"]
    assert K.call(name, x, [2, 1], torch.empty(4, 4, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, x, [2, 1], torch.empty(4, 3, dtype=torch.float16)) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tril(K, dtype):
    x = _data((2, 4, 5), dtype)
    for diag in (0, 1, -1, 3, -3, 10, -10):
        run(K, "aten::tril.out", torch.tril(x, diag), x, diag)
    m = _data((5, 3), dtype)
    run(K, "aten::tril.out", torch.tril(m, 1), m, 1)
    e = _data((0, 3), dtype)
    run(K, "aten::tril.out", torch.tril(e), e, 0)
    y = x.clone()
    assert K.call("aten::tril.out", y, -1, y) == ERR["OK"]
    _same(y, torch.tril(x, -1))
    assert K.call("aten::tril.out", x[0, 0], 0, torch.empty(5, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::tril.out", x, 0, torch.empty(2, 5, 4, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::tril.out", x, 0, torch.empty(2, 4, 5, dtype=torch.float16)) == ERR["DTYPE"]
    assert K.call("aten::tril.out", x, 0.5, torch.empty_like(x)) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_pixel_shuffle(K, dtype):
    for shape, r in (((1, 8, 2, 3), 2), ((2, 18, 2, 2), 3), ((4, 3, 5), 1), ((2, 1, 4, 2, 2), 2)):
        x = _data(shape, dtype)
        run(K, "aten::pixel_shuffle.out", F.pixel_shuffle(x, r), x, r)
    for shape, r in (((1, 2, 4, 6), 2), ((2, 1, 6, 3), 3), ((3, 2, 2), 1), ((2, 1, 2, 4, 2), 2)):
        x = _data(shape, dtype)
        run(K, "aten::pixel_unshuffle.out", F.pixel_unshuffle(x, r), x, r)
    x = _data((1, 8, 2, 3), dtype)
    assert K.call("aten::pixel_shuffle.out", x, 3, torch.empty(1, 1, 6, 9, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::pixel_shuffle.out", x, 0, torch.empty(1, 8, 2, 3, dtype=dtype)) == ERR["ARGS"]
    assert K.call("aten::pixel_shuffle.out", x, 2, torch.empty(1, 2, 4, 5, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::pixel_shuffle.out", x, 2, torch.empty(1, 2, 4, 6, dtype=torch.float16)) == ERR["DTYPE"]
    assert K.call("aten::pixel_shuffle.out", x[0, 0], 1, torch.empty(2, 3, dtype=dtype)) == ERR["SHAPE"]
    y = _data((1, 2, 4, 6), dtype)
    assert K.call("aten::pixel_unshuffle.out", y, 4, torch.empty(1, 32, 1, 1, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::pixel_unshuffle.out", y, -1, torch.empty(1, 2, 4, 6, dtype=dtype)) == ERR["ARGS"]
    assert K.call("aten::pixel_unshuffle.out", y, 2, torch.empty(1, 8, 3, 2, dtype=dtype)) == ERR["SHAPE"]
    assert K.call("aten::pixel_unshuffle.out", y, 2, torch.empty(1, 8, 2, 3, dtype=torch.float16)) == ERR["DTYPE"]


# ----------------------------------------------------------------- casts and copies


CAST = [torch.float32, torch.float64, torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8, torch.bool]


@pytest.mark.parametrize("src", CAST)
@pytest.mark.parametrize("dst", CAST)
def test_to_copy(K, src, dst):
    x = _data((3, 5), src)
    if src.is_floating_point and not dst.is_floating_point and dst != torch.bool:
        x = x.clamp(-100, 100)  # inside every target's range (C leaves the rest undefined)
        if dst == torch.uint8:
            x = x.abs()
    x[0, 0] = 0
    run(K, "aten::_to_copy.out", x.to(dst), x, False, None)
    run(K, "aten::_to_copy.out", x.to(dst), x, False, 1)
    s = _data((), src)
    run(K, "aten::_to_copy.out", s.to(dst).clone(), s, False, 0)


def test_to_copy_semantics_and_errors(K):
    x = torch.tensor([-2.7, -0.5, 0.0, 0.5, 2.7, 300.0, -300.0, float("nan")])
    run(K, "aten::_to_copy.out", x[:5].to(torch.int32), x[:5], False, None)       # truncation
    run(K, "aten::_to_copy.out", x.to(torch.bool), x, False, None)                 # NaN is true
    run(K, "aten::_to_copy.out", torch.tensor([300, -1, 255]).to(torch.uint8), torch.tensor([300, -1, 255]),
        False, None)                                                               # wraps
    run(K, "aten::_to_copy.out", torch.tensor([300, -129]).to(torch.int8), torch.tensor([300, -129]),
        False, None)
    big = torch.tensor([2**40 + 3, -(2**40) - 5])
    run(K, "aten::_to_copy.out", big.to(torch.int32), big, False, None)
    run(K, "aten::_to_copy.out", big.to(torch.float32), big, False, None)
    name = "aten::_to_copy.out"
    assert K.call(name, x, False, 2, torch.empty(8)) == ERR["ARGS"]                # channels_last
    assert K.call(name, x, None, None, torch.empty(8)) == ERR["ARGS"]
    assert K.call(name, x, False, None, torch.empty(8, dtype=torch.float16)) == ERR["DTYPE"]
    assert K.call(name, x, False, None, torch.empty(4)) == ERR["SHAPE"]
    assert K.call(name, x, False, None) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int32, torch.bool])
def test_copy_out(K, dtype):
    self_ = _data((2, 3, 4), dtype)
    for src_shape, src_dtype in (((2, 3, 4), dtype), ((4,), torch.float32), ((3, 1), torch.int64),
                                 ((), torch.bool), ((1, 3, 4), torch.float64)):
        src = _data(src_shape, src_dtype, 3)
        if src_dtype.is_floating_point and dtype != torch.bool:
            src = src.clamp(-100, 100)
        run(K, "aten::copy.out", self_.clone().copy_(src), self_, src, False)
    name = "aten::copy.out"
    assert K.call(name, self_, _data((3,), dtype), False, torch.empty_like(self_)) == ERR["SHAPE"]
    assert K.call(name, self_, _data((2, 1, 1, 4), dtype), False, torch.empty_like(self_)) == ERR["SHAPE"]
    assert K.call(name, self_, self_, False, torch.empty(2, 3, 5, dtype=dtype)) == ERR["SHAPE"]
    assert K.call(name, self_, self_, False, torch.empty(2, 3, 4, dtype=torch.float16)) == ERR["DTYPE"]
    assert K.call(name, self_, self_, False, torch.empty(2, 3, 4, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(name, self_, self_, torch.empty_like(self_)) == ERR["ARGS"]


def test_copy_in_place(K):
    x = torch.randn(3, 4)
    src = torch.arange(4, dtype=torch.int64)
    ref = x.clone().copy_(src)
    assert K.call("aten::copy_.default", x, src, False, x) == ERR["OK"]
    _same(x, ref)
    y = torch.zeros(2, 3, dtype=torch.int32)
    s = torch.tensor([[1.9], [-2.9]])
    ref = y.clone().copy_(s)
    assert K.call("aten::copy_.default", y, s, False) == ERR["OK"]
    _same(y, ref)
    assert K.call("aten::copy_.default", x, src, False, torch.empty(3, 4)) == ERR["ARGS"]  # return is not self
    assert K.call("aten::copy_.default", x, src) == ERR["ARGS"]
    assert K.call("aten::copy_.default", x, src.half(), False, x) == ERR["DTYPE"]
    assert K.call("aten::copy_.default", x, torch.zeros(5), False, x) == ERR["SHAPE"]


# ----------------------------------------------------------------- fills and creation


@pytest.mark.parametrize("dtype", CAST)
def test_fills(K, dtype):
    x = _data((3, 4), dtype)
    for v in (2, 0, -3, True, 2.75, -1.5):
        if dtype == torch.uint8 and v in (-3, -1.5):
            continue
        run(K, "aten::fill.Scalar_out", torch.full_like(x, v), x, v)
        run(K, "aten::full_like.out", torch.full_like(x, v), x, v, None)
        run(K, "aten::full_like.out", torch.full_like(x, v, dtype=torch.float32), x, v, 0)
        t = torch.tensor(v)
        run(K, "aten::fill.Tensor_out", x.clone().fill_(t), x, t)
    e = _data((0, 2), dtype)
    run(K, "aten::fill.Scalar_out", e.clone(), e, 1.0)
    s = _data((), dtype)
    run(K, "aten::full_like.out", torch.full_like(s, 1), s, 1, None)
    y = x.clone()
    assert K.call("aten::fill.Scalar_out", y, 1, y) == ERR["OK"]
    _same(y, torch.ones_like(x))


def test_fill_errors(K):
    x = torch.randn(3, 4)
    assert K.call("aten::fill.Scalar_out", x, 1.0, torch.empty(3, 4).int()) == ERR["DTYPE"]
    assert K.call("aten::fill.Scalar_out", x, 1.0, torch.empty(4, 3)) == ERR["SHAPE"]
    assert K.call("aten::fill.Scalar_out", x, [1], torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call("aten::fill.Tensor_out", x, torch.ones(1), torch.empty(3, 4)) == ERR["SHAPE"]
    assert K.call("aten::fill.Tensor_out", x, torch.tensor(1.0).half(), torch.empty(3, 4)) == ERR["DTYPE"]
    assert K.call("aten::fill.Tensor_out", x, 1.0, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call("aten::full_like.out", x, 1.0, None, torch.empty(3, 4).half()) == ERR["DTYPE"]
    assert K.call("aten::full_like.out", x, 1.0, 2, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call("aten::full_like.out", x, 1.0, None, torch.empty(3)) == ERR["SHAPE"]
    assert K.call("aten::full_like.out", x, 1.0, torch.empty(3, 4)) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", CAST)
def test_ones_zeros_empty(K, dtype):
    for shape in ((2, 3), (), (0, 4), (5,)):
        run(K, "aten::ones.out", torch.ones(shape, dtype=dtype), list(shape))
        run(K, "aten::zeros.out", torch.zeros(shape, dtype=dtype), list(shape))
        run(K, "aten::empty.out", torch.zeros(shape, dtype=dtype), list(shape), None)
        run(K, "dim_order_ops::_empty_dim_order.out", torch.zeros(shape, dtype=dtype), list(shape), None)
    run(K, "aten::empty.out", torch.zeros(2, 3, dtype=dtype), [2, 3], 0)
    run(K, "dim_order_ops::_empty_dim_order.out", torch.zeros(2, 3, dtype=dtype), [2, 3], [0, 1])


def test_creation_errors(K):
    for op in ("aten::ones.out", "aten::zeros.out"):
        assert K.call(op, [2, 3], torch.empty(3, 2)) == ERR["SHAPE"]
        assert K.call(op, [2, 3], torch.empty(2, 3).half()) == ERR["DTYPE"]
        assert K.call(op, 2, torch.empty(2)) == ERR["ARGS"]
        assert K.call(op, [2]) == ERR["ARGS"]
    assert K.call("aten::empty.out", [2, 3], 2, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call("aten::empty.out", [2, 3], None, torch.empty(2, 2)) == ERR["SHAPE"]
    assert K.call("aten::empty.out", [2, 3], None, torch.empty(2, 3).half()) == ERR["OK"]  # any dtype
    name = "dim_order_ops::_empty_dim_order.out"
    assert K.call(name, [2, 3], [1, 0], torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(name, [2, 3], [0], torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call(name, [2, 3], None, torch.empty(3, 2)) == ERR["SHAPE"]
    assert K.call("aten::scalar_tensor.out", 1.0, torch.empty(2)) == ERR["SHAPE"]
    assert K.call("aten::scalar_tensor.out", 1.0, torch.empty(()).half()) == ERR["DTYPE"]
    assert K.call("aten::scalar_tensor.out", [1], torch.empty(())) == ERR["ARGS"]


@pytest.mark.parametrize("dtype", CAST)
def test_scalar_tensor(K, dtype):
    for v in (3, 0, 1.5, True):
        run(K, "aten::scalar_tensor.out", torch.scalar_tensor(v, dtype=dtype), v)


@pytest.mark.parametrize("args", [(5,), (0,), (2.5,), (1, 7), (2, 11, 3), (10, 0, -3), (0.5, 3.0, 0.25),
                                  (-1.0, 1.0, 0.1), (1.0, 4), (3, 3), (0.0, 1.0, 1e-3)])
@pytest.mark.parametrize("dtype", [None, torch.float32, torch.int64, torch.int32, torch.float64])
def test_arange(K, args, dtype):
    full = args if len(args) == 3 else (args + (1,) if len(args) == 2 else (0,) + args + (1,))
    try:
        ref = torch.arange(*args, dtype=dtype)
    except (ValueError, RuntimeError):  # int64: a float step truncated to 0
        out = torch.empty(0, dtype=dtype)
        assert K.call("aten::arange.start_out", *full, out) == ERR["ARGS"]
        return
    outs = []
    if len(args) == 1:
        outs.append(torch.full_like(ref, 7))
        assert K.call("aten::arange.out", args[0], outs[-1]) == ERR["OK"]
    outs.append(torch.full_like(ref, 7))
    assert K.call("aten::arange.start_out", *full, outs[-1]) == ERR["OK"]
    for out in outs:
        if ref.dtype == torch.float64:  # torch's vector lanes round a little differently
            assert out.dtype == ref.dtype and torch.allclose(out, ref, rtol=1e-12, atol=1e-12)
        else:
            _same(out, ref)


def test_arange_errors(K):
    assert K.call("aten::arange.out", -1, torch.empty(0, dtype=torch.int64)) == ERR["ARGS"]
    assert K.call("aten::arange.out", 5, torch.empty(4, dtype=torch.int64)) == ERR["SHAPE"]
    assert K.call("aten::arange.out", 5, torch.empty(5, dtype=torch.bool)) == ERR["DTYPE"]
    assert K.call("aten::arange.out", [5], torch.empty(5)) == ERR["ARGS"]
    assert K.call("aten::arange.start_out", 0, 5, 0, torch.empty(5)) == ERR["ARGS"]
    assert K.call("aten::arange.start_out", 0, 5, -1, torch.empty(5)) == ERR["ARGS"]
    assert K.call("aten::arange.start_out", 0, 5, 1, torch.empty(1, 5)) == ERR["SHAPE"]
    assert K.call("aten::arange.start_out", 0, 5, 1) == ERR["ARGS"]


def test_strided_copy_into_an_overlapping_out_is_defined(K):
    """A crafted program can make a copy's out overlap its input (fuzz_mote found
    slice_copy into a shifted view of its own input: memcpy-param-overlap under
    ASan). mote_k_strided_copy moves each piece with memmove, so the row copy is
    the original input's values, shifted, whatever the direction of overlap."""
    for shift in (2, -2):
        buf = torch.arange(20, dtype=torch.float32)
        lo = 4
        src = buf[lo:lo + 8]
        out = buf[lo + shift:lo + shift + 8]
        want = src.clone()
        assert K.call("aten::slice_copy.Tensor_out", src, 0, 0, 8, 1, out) == 0
        assert torch.equal(out, want), (shift, out, want)


# ------------------------------------------------- the streaming window's data movement


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.float32, torch.float64])
def test_streaming_window_rows(K, dtype):
    """A streaming model's history window: cat a new column onto [1, C, k], slice the
    oldest column off, and slices along outer dims: rows of 1 byte to past the
    memmove threshold (32 B), at every relative alignment of the rows (the kernels
    move short rows inline and whole runs at once: issue #38)."""
    for k in (1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 97):
        win, new = _data((1, 5, k), dtype), _data((1, 5, 1), dtype, seed=1)
        cat = run(K, "aten::cat.out", torch.cat([win, new], -1), [win, new], -1)
        run(K, "aten::slice_copy.Tensor_out", cat[:, :, 1:].contiguous(), cat, -1, 1, None, 1)
        run(K, "aten::slice_copy.Tensor_out", cat[:, :, 1::2].contiguous(), cat, 2, 1, None, 2)
        top = _data((1, 2, k), dtype, seed=3)
        run(K, "aten::cat.out", torch.cat([top, win, top], 1), [top, win, top], 1)
        x = _data((3, 4, k + 1), dtype, seed=2)
        run(K, "aten::slice_copy.Tensor_out", x[:, 1:3].contiguous(), x, 1, 1, 3, 1)
        run(K, "aten::slice_copy.Tensor_out", x[1:, :, 1:].contiguous(), x[1:].contiguous(), 2, 1, None, 1)
        run(K, "aten::flip.out", torch.flip(x, [0]), x, [0])
        run(K, "aten::flip.out", torch.flip(x, [1]), x, [1])
        run_list(K, "aten::split_with_sizes_copy.out", list(torch.split(x, [1, k], 2)), x, [1, k], 2)


@pytest.mark.parametrize("src", [torch.int8, torch.uint8, torch.int16, torch.int32])
def test_to_copy_integer_to_float32_every_length(K, src):
    """The dense integer -> float32 loops (four a pass, then the rest) for lengths 0-9
    and 513, and int32 values that float32 rounds (2^24 + 1, the int32 limits)."""
    info = torch.iinfo(src)
    for n in list(range(10)) + [513]:
        x = torch.randint(info.min, info.max, (n,), dtype=torch.int64).to(src)
        if n > 0:
            x[0] = info.min
            x[-1] = info.max
        run(K, "aten::_to_copy.out", x.to(torch.float32), x, False, None)
    if src == torch.int32:
        x = torch.tensor([2**24 + 1, -(2**24) - 3, 2**31 - 1, -(2**31), 2**30 + 65, 7], dtype=torch.int32)
        out = run(K, "aten::_to_copy.out", x.to(torch.float32), x, False, None)
        assert torch.equal(out, x.to(torch.float32))
