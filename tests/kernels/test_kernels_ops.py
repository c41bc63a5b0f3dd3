"""Elementwise, activation, pooling, reduction and shape kernels against torch eager."""
import pytest
import torch
import torch.nn.functional as F

from tests.kernels.kernels_ffi import ERR

TOL = 1e-5


def rel_err(out, ref):
    if out.dtype in (torch.int64, torch.int32, torch.bool):
        return 0.0 if torch.equal(out, ref) else 1.0
    return (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)


def nan_like(ref):
    return torch.full_like(ref, float("nan")) if ref.is_floating_point() else torch.empty_like(ref)


def check(K, name, ref, *args, out=None):
    out = nan_like(ref) if out is None else out
    rc = K.call(name, *args, out)
    assert rc == 0, f"{name} returned {rc}"
    assert out.shape == ref.shape
    assert rel_err(out, ref) <= TOL, f"{name}: rel err {rel_err(out, ref)}"
    return out


BCAST = [((3, 5, 7), (3, 5, 7)), ((2, 3, 5), (5,)), ((2, 1, 5), (1, 3, 1)), ((4, 1), (3,)),
         ((), (2, 3)), ((1, 7, 3, 3), (1, 7, 1, 1)), ((6, 5), ())]


@pytest.mark.parametrize("sa,sb", BCAST, ids=[f"{a}x{b}" for a, b in BCAST])
def test_binary_broadcast(K, sa, sb):
    torch.manual_seed(len(sa) * 10 + len(sb))
    a, b = torch.randn(sa), torch.randn(sb) + 3.0
    check(K, "aten::add.out", torch.add(a, b, alpha=1.5), a, b, 1.5)
    check(K, "aten::add.out", a + b, a, b, 1)
    check(K, "aten::sub.out", torch.sub(a, b, alpha=0.25), a, b, 0.25)
    check(K, "aten::mul.out", a * b, a, b)
    check(K, "aten::div.out", a / b, a, b)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_binary_int(K, dtype):
    a = torch.randint(-100, 100, (3, 4), dtype=dtype)
    b = torch.randint(-100, 100, (4,), dtype=dtype)
    check(K, "aten::add.out", torch.add(a, b, alpha=3), a, b, 3)
    check(K, "aten::sub.out", a - b, a, b, 1)
    check(K, "aten::mul.out", a * b, a, b)
    check(K, "aten::add.Scalar_out", a + 7, a, 7, 1)
    check(K, "aten::mul.Scalar_out", a * -2, a, -2)


def test_scalar_overloads(K):
    a = torch.randn(4, 5, 3)
    check(K, "aten::add.Scalar_out", torch.add(a, 0.5, alpha=2.0), a, 0.5, 2.0)
    check(K, "aten::sub.Scalar_out", torch.sub(a, 0.25, alpha=1), a, 0.25, 1)
    check(K, "aten::mul.Scalar_out", a * 4.0, a, 4.0)
    check(K, "aten::mul.Scalar_out", a * 3, a, 3)
    check(K, "aten::add.Scalar_out", a + 1, a, True, 1)


def test_lifted_scalar_tensor(K):
    """ExecuTorch lifts `z * 0.5` to mul.out with a 0-dim tensor, maybe of another dtype."""
    a = torch.randn(2, 7, 3)
    for s in (torch.tensor(0.5, dtype=torch.float64), torch.tensor(3), torch.tensor(0.5)):
        check(K, "aten::mul.out", a * s.float(), a, s)
        check(K, "aten::sub.out", a - s.float(), a, s, 1)
    s = torch.tensor(2.0, dtype=torch.float64)
    check(K, "aten::sub.out", s.float() - a, s, a, 1)


def test_binary_in_place(K):
    a, b = torch.randn(5, 6), torch.randn(6)
    ref = a + b
    assert K.call("aten::add.out", a, b, 1, a) == 0
    assert rel_err(a, ref) <= TOL


def test_binary_errors(K):
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    assert K.call("aten::add.out", a, torch.randn(2, 4), 1, torch.empty(3, 4)) == ERR["SHAPE"]
    assert K.call("aten::add.out", a, b, 1, torch.empty(3, 5)) == ERR["SHAPE"]
    assert K.call("aten::add.out", a, b, 1, torch.empty(1, 3, 4)) == ERR["SHAPE"]
    assert K.call("aten::add.out", a, b.double(), 1, torch.empty(3, 4)) == ERR["DTYPE"]
    assert K.call("aten::div.out", a.int(), b.int(), torch.empty(3, 4, dtype=torch.int32)) == ERR["DTYPE"]
    assert K.call("aten::mul.out", a, b, 1, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call("aten::mul.Scalar_out", a, b, torch.empty(3, 4)) == ERR["ARGS"]
    assert K.call("aten::add.out", a, 2.0, 1, torch.empty(3, 4)) == ERR["ARGS"]


UNARY = {
    "aten::relu.out": torch.relu, "aten::sigmoid.out": torch.sigmoid, "aten::tanh.out": torch.tanh,
    "aten::neg.out": torch.neg, "aten::exp.out": torch.exp,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(K, name):
    x = torch.randn(3, 7, 5) * 3
    check(K, name, UNARY[name](x), x)
    y = x.clone()
    assert K.call(name, y, y) == 0  # in place
    assert rel_err(y, UNARY[name](x)) <= TOL
    assert K.call(name, x, torch.empty(3, 7, 4)) == ERR["SHAPE"]
    assert K.call(name, x.double(), torch.empty(3, 7, 5, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call(name, x) == ERR["ARGS"]


def test_rsqrt_hardtanh_clamp(K):
    x = torch.randn(4, 9) * 3
    check(K, "aten::rsqrt.out", torch.rsqrt(x.abs() + 0.1), x.abs() + 0.1)
    check(K, "aten::hardtanh.out", F.hardtanh(x, -0.5, 0.5), x, -0.5, 0.5)
    check(K, "aten::hardtanh.out", F.relu6(x), x, 0, 6)
    check(K, "aten::clamp.out", torch.clamp(x, -1.0, 2.0), x, -1.0, 2.0)
    check(K, "aten::clamp.out", torch.clamp(x, min=0.3), x, 0.3, None)
    check(K, "aten::clamp.out", torch.clamp(x, max=-0.2), x, None, -0.2)
    assert K.call("aten::clamp.out", x, None, None, torch.empty(4, 9)) == ERR["ARGS"]
    assert K.call("aten::hardtanh.out", x, -1.0, 1.0, torch.empty(4, 8)) == ERR["SHAPE"]
    assert K.call("aten::hardtanh.out", x, None, 1.0, torch.empty(4, 9)) == ERR["ARGS"]


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax(K, dim):
    x = torch.randn(3, 6, 5) * 4
    check(K, "aten::_softmax.out", torch.softmax(x, dim), x, dim, False)
    check(K, "aten::_log_softmax.out", torch.log_softmax(x, dim), x, dim, False)
    assert K.call("aten::_softmax.out", x, 3, False, torch.empty(3, 6, 5)) == ERR["ARGS"]
    assert K.call("aten::_softmax.out", x, dim, True, torch.empty(3, 6, 5)) == ERR["ARGS"]
    assert K.call("aten::_softmax.out", x, dim, False, torch.empty(3, 6, 4)) == ERR["SHAPE"]


MAXPOOL = [((1, 3, 10, 10), 2, [], 0, 1, False), ((2, 5, 11, 9), 3, [2], 1, 1, False),
           ((1, 4, 11, 9), 3, [2], 1, 1, True), ((3, 9, 13), [3, 2], [2, 1], [1, 0], 2, False),
           ((1, 2, 7, 8), 2, [2], 0, 1, True)]


@pytest.mark.parametrize("case", MAXPOOL, ids=[str(c) for c in MAXPOOL])
def test_max_pool2d_with_indices(K, case):
    shape, k, s, p, d, ceil = case
    x = torch.randn(shape)
    ref, ind = F.max_pool2d(x, k, s if s else None, p, d, ceil_mode=ceil, return_indices=True)
    out, oi = nan_like(ref), torch.full_like(ind, -7)
    ks = k if isinstance(k, list) else [k, k]
    pp = p if isinstance(p, list) else [p, p]
    rc = K.call("aten::max_pool2d_with_indices.out", x, ks, s, pp, [d, d], ceil, out, oi)
    assert rc == 0 and rel_err(out, ref) == 0.0 and torch.equal(oi, ind)


def test_max_pool_errors(K):
    x = torch.randn(1, 2, 8, 8)
    out, oi = torch.empty(1, 2, 4, 4), torch.empty(1, 2, 4, 4, dtype=torch.int64)
    f = "aten::max_pool2d_with_indices.out"
    assert K.call(f, x, [2, 2], [], [0, 0], [1, 1], False, out, oi) == 0
    assert K.call(f, x, [2, 2], [], [0, 0], [1, 1], False, out, oi.int()) == ERR["DTYPE"]
    assert K.call(f, x, [2, 2], [], [0, 0], [1, 1], False, torch.empty(1, 2, 4, 5), oi) == ERR["SHAPE"]
    assert K.call(f, x, [2, 2], [], [2, 2], [1, 1], False, out, oi) == ERR["ARGS"]  # pad > k/2


AVGPOOL = [((1, 3, 10, 10), 2, [], 0, False, True, None), ((2, 5, 11, 9), 3, [2], 1, False, True, None),
           ((1, 4, 11, 9), 3, [2], 1, True, False, None), ((1, 6, 5, 5), 3, [1], 1, False, False, None),
           ((1, 6, 7, 6), 3, [2], 1, True, True, None), ((3, 7, 8), 2, [1], 1, False, True, 3)]


@pytest.mark.parametrize("case", AVGPOOL, ids=[str(c) for c in AVGPOOL])
def test_avg_pool2d(K, case):
    shape, k, s, p, ceil, cip, dov = case
    x = torch.randn(shape)
    ref = F.avg_pool2d(x, k, s if s else None, p, ceil, cip, dov)
    check(K, "aten::avg_pool2d.out", ref, x, [k, k], s, [p, p], ceil, cip, dov)


def test_avg_pool_errors(K):
    x = torch.randn(1, 2, 8, 8)
    f = "aten::avg_pool2d.out"
    assert K.call(f, x, [2, 2], [], [0, 0], False, True, None, torch.empty(1, 2, 4, 3)) == ERR["SHAPE"]
    assert K.call(f, x, [2, 2], [], [0, 0], False, True, 0, torch.empty(1, 2, 4, 4)) == ERR["ARGS"]
    assert K.call(f, x.double(), [2, 2], [], [0, 0], False, True, None,
                  torch.empty(1, 2, 4, 4, dtype=torch.float64)) == ERR["DTYPE"]


@pytest.mark.parametrize("shape,osz", [((1, 64, 25, 5), [1, 1]), ((2, 3, 10, 7), [3, 4]),
                                       ((5, 9, 9), [2, 2]), ((1, 2, 4, 4), [4, 4])])
def test_adaptive_avg_pool2d(K, shape, osz):
    x = torch.randn(shape)
    check(K, "aten::_adaptive_avg_pool2d.out", F.adaptive_avg_pool2d(x, osz), x, osz)
    assert K.call("aten::_adaptive_avg_pool2d.out", x, osz, torch.empty(1)) == ERR["SHAPE"]


RED = [((1, 64, 5, 5), [-1, -2], True), ((1, 64, 5, 5), [2, 3], False), ((2, 3, 4), [1], False),
       ((2, 3, 4), [0, 2], True), ((2, 3, 4), None, False), ((6, 7), [], True), ((1, 6, 42), [1], False)]


@pytest.mark.parametrize("shape,dims,keep", RED, ids=[str(r) for r in RED])
def test_mean_sum(K, shape, dims, keep):
    x = torch.randn(shape)
    d = dims if dims else list(range(len(shape)))
    check(K, "aten::mean.out", x.mean(d, keepdim=keep), x, dims, keep, None)
    check(K, "aten::sum.IntList_out", x.sum(d, keepdim=keep), x, dims, keep, None)


def test_reduction_errors(K):
    x = torch.randn(2, 3, 4)
    assert K.call("aten::mean.out", x, [1], False, None, torch.empty(2, 3)) == ERR["SHAPE"]
    assert K.call("aten::mean.out", x, [3], False, None, torch.empty(2, 3)) == ERR["ARGS"]
    assert K.call("aten::mean.out", x, [1, 1], False, None, torch.empty(2, 4)) == ERR["ARGS"]
    assert K.call("aten::mean.out", x, [1], False, 7, torch.empty(2, 4)) == ERR["DTYPE"]
    assert K.call("aten::mean.out", x, [1], False, 6, torch.empty(2, 4)) == 0
    assert K.call("aten::sum.IntList_out", x.int(), [1], False, None,
                  torch.empty(2, 4, dtype=torch.int32)) == ERR["DTYPE"]


def test_batch_norm(K):
    x = torch.randn(2, 5, 4, 3)
    w, b = torch.rand(5) + 0.5, torch.randn(5)
    m, v = torch.randn(5), torch.rand(5) + 0.5
    ref = F.batch_norm(x, m, v, w, b, False, 0.1, 1e-5)
    e = torch.empty(0)
    f = "aten::_native_batch_norm_legit_no_training.out"
    out = nan_like(ref)
    assert K.call(f, x, w, b, m, v, 0.1, 1e-5, out, e, e) == 0 and rel_err(out, ref) <= TOL
    ref2 = F.batch_norm(x, m, v, None, None, False, 0.1, 1e-3)
    s1, s2 = torch.empty(5), torch.empty(5)
    assert K.call(f, x, None, None, m, v, 0.1, 1e-3, out, s1, s2) == 0
    assert rel_err(out, ref2) <= TOL and torch.equal(s1, m)
    assert rel_err(s2, torch.rsqrt(v + 1e-3)) <= TOL
    assert K.call(f, x, w, b, m, torch.rand(4), 0.1, 1e-5, out, e, e) == ERR["SHAPE"]
    assert K.call(f, x, w, b, m, v, 0.1, 1e-5, torch.empty(2, 5, 4, 4), e, e) == ERR["SHAPE"]
    assert K.call(f, x, w.double(), b, m, v, 0.1, 1e-5, out, e, e) == ERR["DTYPE"]


def test_cat(K):
    a, b, c = torch.randn(1, 4, 6, 6), torch.randn(1, 3, 6, 6), torch.randn(1, 1, 6, 6)
    check(K, "aten::cat.out", torch.cat([a, b, c], 1), [a, b, c], 1)
    check(K, "aten::cat.out", torch.cat([a, a], 0), [a, a], 0)
    check(K, "aten::cat.out", torch.cat([a, a], -1), [a, a], -1)
    check(K, "aten::cat.out", torch.cat([a, b], 1), [a, torch.empty(0), b], 1)
    i = torch.arange(6).reshape(2, 3)
    check(K, "aten::cat.out", torch.cat([i, i], 0), [i, i], 0)
    assert K.call("aten::cat.out", [a, b], 1, torch.empty(1, 8, 6, 6)) == ERR["SHAPE"]
    assert K.call("aten::cat.out", [a, torch.randn(1, 3, 6, 5)], 1, torch.empty(1, 7, 6, 6)) == ERR["SHAPE"]
    assert K.call("aten::cat.out", [a, b.double()], 1, torch.empty(1, 7, 6, 6)) == ERR["DTYPE"]
    assert K.call("aten::cat.out", a, 1, torch.empty(1, 4, 6, 6)) == ERR["ARGS"]


def test_permute_view_clone(K):
    x = torch.randn(2, 7, 3, 5)
    check(K, "aten::permute_copy.out", x.permute(0, 2, 3, 1).contiguous(), x, [0, 2, 3, 1])
    check(K, "aten::permute_copy.out", x.permute(3, 1, 0, 2).contiguous(), x, [-1, 1, 0, 2])
    for w in (torch.randn(12, 64), torch.randn(37, 70), torch.randn(128, 784)):
        check(K, "aten::permute_copy.out", w.t().contiguous(), w, [1, 0])
    check(K, "aten::permute_copy.out", x.permute(0, 1, 3, 2).contiguous(), x, [0, 1, 3, 2])
    y = torch.randn(3, 17, 5)
    check(K, "aten::permute_copy.out", y.permute(0, 2, 1).contiguous(), y, [0, -1, 1])
    h = torch.randint(-9, 9, (5, 19), dtype=torch.int64)
    check(K, "aten::permute_copy.out", h.t().contiguous(), h, [1, 0])
    i = torch.arange(24).reshape(2, 3, 4)
    check(K, "aten::permute_copy.out", i.permute(2, 0, 1).contiguous(), i, [2, 0, 1])
    check(K, "aten::view_copy.out", x.reshape(14, -1), x, [14, -1])
    check(K, "aten::view_copy.out", x.reshape(210), x, [210])
    check(K, "aten::clone.out", x.clone(), x, None)
    check(K, "dim_order_ops::_clone_dim_order.out", x.clone(), x, False, [0, 1, 2, 3])
    check(K, "dim_order_ops::_clone_dim_order.out", x.clone(), x, False, None)
    assert K.call("aten::permute_copy.out", x, [0, 0, 1, 2], torch.empty(2, 2, 7, 3)) == ERR["ARGS"]
    assert K.call("aten::permute_copy.out", x, [0, 2, 3, 1], torch.empty(2, 7, 3, 5)) == ERR["SHAPE"]
    assert K.call("aten::view_copy.out", x, [13, -1], torch.empty(13, 16)) == ERR["SHAPE"]
    assert K.call("aten::view_copy.out", x, [-1, -1], torch.empty(14, 15)) == ERR["ARGS"]
    assert K.call("aten::clone.out", x, None, torch.empty(2, 7, 3, 5, dtype=torch.float64)) == ERR["DTYPE"]
    assert K.call("dim_order_ops::_clone_dim_order.out", x, False, [0, 2, 3, 1],
                  torch.empty(2, 7, 3, 5)) == ERR["ARGS"]


PERMUTE_SHAPES = [(2, 3, 5, 7), (1, 3, 8, 12), (3, 4, 4, 5), (1, 2, 6, 1), (4, 9), (9, 4), (7, 13),
                  (3, 1, 4), (5,), (), (2, 3, 4, 5, 3), (1, 3, 9, 11), (1, 11, 9, 3), (4, 0, 3)]


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.bool, torch.int16, torch.float16,
                                   torch.float32, torch.int64, torch.float64])
def test_permute_every_order(K, dtype):
    """Every permutation of ranks 0-5 (the NCHW <-> NHWC of an RGB image, transposes with
    2/3/4/other rows and columns, trailing blocks that stay together, size-1 and empty
    dims) for every element size: bytes equal torch's."""
    import itertools
    torch.manual_seed(5)
    for shape in PERMUTE_SHAPES:
        x = torch.randint(-128 if dtype.is_signed else 0, 128, shape).to(dtype)
        for perm in itertools.permutations(range(len(shape))):
            ref = x.permute(perm).contiguous()
            out = torch.zeros_like(ref)
            assert K.call("aten::permute_copy.out", x, list(perm), out) == 0
            assert torch.equal(out, ref), (shape, perm)


def test_expand_squeeze_unsqueeze(K):
    x = torch.randn(3, 1, 5)
    check(K, "aten::expand_copy.out", x.expand(2, 3, 4, 5).contiguous(), x, [2, 3, 4, 5], False)
    check(K, "aten::expand_copy.out", x.expand(-1, 6, -1).contiguous(), x, [-1, 6, -1], False)
    check(K, "aten::squeeze_copy.dims_out", x.squeeze(1), x, [1])
    check(K, "aten::squeeze_copy.dims_out", x.squeeze((0, 1)), x, [0, -2])
    check(K, "aten::unsqueeze_copy.out", x.unsqueeze(0), x, 0)
    check(K, "aten::unsqueeze_copy.out", x.unsqueeze(-1), x, -1)
    check(K, "aten::unsqueeze_copy.out", x.unsqueeze(2), x, 2)
    assert K.call("aten::expand_copy.out", x, [3, 4, 6], False, torch.empty(3, 4, 6)) == ERR["SHAPE"]
    assert K.call("aten::squeeze_copy.dims_out", x, [1], torch.empty(3, 1, 5)) == ERR["SHAPE"]
    assert K.call("aten::unsqueeze_copy.out", x, 4, torch.empty(3, 1, 5, 1)) == ERR["ARGS"]


@pytest.mark.parametrize("pad", [[1, 2], [0, 0, 3, 1], [2, 1, 1, 0, 1, 1], [-1, 2, 1, -2]])
def test_constant_pad_nd(K, pad):
    x = torch.randn(2, 3, 5, 4)
    check(K, "aten::constant_pad_nd.out", F.pad(x, pad, value=0.5), x, pad, 0.5)
    check(K, "aten::constant_pad_nd.out", F.pad(x, pad), x, pad, 0)


def test_constant_pad_errors(K):
    x = torch.randn(2, 3)
    assert K.call("aten::constant_pad_nd.out", x, [1], 0, torch.empty(2, 4)) == ERR["ARGS"]
    assert K.call("aten::constant_pad_nd.out", x, [1, 1], 0, torch.empty(2, 4)) == ERR["SHAPE"]


def test_slice_select(K):
    x = torch.randn(4, 9, 5)
    check(K, "aten::slice_copy.Tensor_out", x[:, 2:7:2].contiguous(), x, 1, 2, 7, 2)
    check(K, "aten::slice_copy.Tensor_out", x[:, :, :3].contiguous(), x, -1, None, 3, 1)
    check(K, "aten::slice_copy.Tensor_out", x[1:].contiguous(), x, 0, 1, None, 1)
    check(K, "aten::slice_copy.Tensor_out", x[:, -4:100].contiguous(), x, 1, -4, 100, 1)
    check(K, "aten::slice_copy.Tensor_out", x[:, :16].contiguous(), x, 1, 0, 2**62, 1)
    check(K, "aten::select_copy.int_out", x[:, 3].contiguous(), x, 1, 3)
    check(K, "aten::select_copy.int_out", x[..., -1].contiguous(), x, -1, -1)
    check(K, "aten::select_copy.int_out", x[2].contiguous(), x, 0, 2)
    assert K.call("aten::slice_copy.Tensor_out", x, 1, 0, 3, 0, torch.empty(4, 3, 5)) == ERR["ARGS"]
    assert K.call("aten::slice_copy.Tensor_out", x, 1, 0, 3, 1, torch.empty(4, 4, 5)) == ERR["SHAPE"]
    assert K.call("aten::select_copy.int_out", x, 1, 9, torch.empty(4, 5)) == ERR["ARGS"]
    assert K.call("aten::select_copy.int_out", x, 1, 2, torch.empty(4, 9)) == ERR["SHAPE"]


def test_full(K):
    check(K, "aten::full.out", torch.full((3, 5), 2.5), [3, 5], 2.5)
    check(K, "aten::full.out", torch.full((4,), 7, dtype=torch.int64), [4], 7)
    check(K, "aten::full.out", torch.full((2, 2), True), [2, 2], True)
    check(K, "aten::full.out", torch.zeros(3, 1), [3, 1], 0.0)
    assert K.call("aten::full.out", [3, 4], 1.0, torch.empty(3, 5)) == ERR["SHAPE"]
    assert K.call("aten::full.out", [3, 4], 1.0, torch.empty(3, 4, dtype=torch.complex64)
                  if False else torch.empty(3, 4)) == 0


def test_non_contiguous_dim_order_rejected(K):
    """A tensor with a non-identity dim_order is rejected with KERNEL_ARGS."""
    import ctypes as C
    from tests.kernels.kernels_ffi import TAG, Tensor, Value
    x = torch.randn(1, 2, 3, 4)
    out = torch.empty(1, 2, 3, 4)
    keep = []
    sizes = (C.c_int32 * 4)(1, 2, 3, 4)
    order = (C.c_uint8 * 4)(0, 2, 3, 1)
    t = Tensor(C.c_void_p(x.data_ptr()), sizes, order, 24, 96, 4, 6)
    keep += [sizes, order, t]
    v = Value()
    v.tag = TAG["TENSOR"]
    v.u.t = C.pointer(t)
    assert K.call("aten::relu.out", v, out) == ERR["ARGS"]
