"""The "index" family's kernels against torch eager: gather/scatter/index,
embedding, the *_scatter copies, padding, upsampling, linear, transposed
convolution (ints and bools exact, fp32 max rel err <= 1e-5)."""
import pytest
import torch
import torch.nn.functional as F

from tests.kernels.kernels_ffi import ERR

TOL = 1e-5


def rel_err(out, ref):
    if not out.is_floating_point():
        return 0.0 if torch.equal(out, ref) else 1.0
    if out.numel() == 0:
        return 0.0
    return (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)


def fresh(ref):
    return torch.full_like(ref, float("nan")) if ref.is_floating_point() else torch.full_like(ref, 7)


def check(K, name, ref, *args):
    out = fresh(ref)
    rc = K.call(name, *args, out)
    assert rc == 0, f"{name} returned {rc}"
    assert out.shape == ref.shape and out.dtype == ref.dtype
    assert rel_err(out, ref) <= TOL, f"{name}: rel err {rel_err(out, ref)}"
    return out


def gen(seed):
    return torch.Generator().manual_seed(seed)


DTYPES = [torch.float32, torch.int32, torch.int64, torch.bool]


def values(shape, dtype, seed=0):
    x = torch.randn(shape, generator=gen(seed)) * 5
    return x > 0 if dtype == torch.bool else x.to(dtype)


# ---------------------------------------------------------------- embedding

@pytest.mark.parametrize("idt", [torch.int64, torch.int32])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (), (0,), (2, 1, 4)])
def test_embedding(K, idt, shape):
    w = torch.randn(11, 6, generator=gen(1))
    ids = torch.randint(0, 11, shape, generator=gen(2)).to(idt)
    check(K, "aten::embedding.out", F.embedding(ids, w), w, ids, -1, False, False)


def test_embedding_errors(K):
    w = torch.randn(11, 6)
    ids = torch.tensor([[1, 10]])
    out = torch.empty(1, 2, 6)
    assert K.call("aten::embedding.out", w, ids, -1, False, False, out) == 0
    for bad in (11, -1, 1 << 40):
        assert K.call("aten::embedding.out", w, torch.tensor([[1, bad]]), -1, False, False, out) == ERR["ARGS"]
    assert K.call("aten::embedding.out", w, ids.float(), -1, False, False, out) == ERR["DTYPE"]
    assert K.call("aten::embedding.out", w, ids, -1, False, False, out.double()) == ERR["DTYPE"]
    assert K.call("aten::embedding.out", w, ids, -1, False, False, torch.empty(1, 2, 5)) == ERR["SHAPE"]
    assert K.call("aten::embedding.out", w.reshape(66), ids, -1, False, False, out) == ERR["SHAPE"]
    assert K.call("aten::embedding.out", w, ids, -1, False, out) == ERR["ARGS"]


# ---------------------------------------------------------------- index_select

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(K, dtype, dim):
    x = values((4, 5, 3), dtype)
    for idx in (torch.tensor([2, 0, 2]), torch.tensor([1], dtype=torch.int32), torch.tensor(2),
                torch.tensor([], dtype=torch.int64)):
        check(K, "aten::index_select.out", torch.index_select(x, dim, idx.long()), x, dim, idx)


def test_index_select_errors(K):
    x = torch.randn(4, 5)
    out = torch.empty(4, 2)
    assert K.call("aten::index_select.out", x, 1, torch.tensor([5, 0]), out) == ERR["ARGS"]
    assert K.call("aten::index_select.out", x, 1, torch.tensor([-1, 0]), out) == ERR["ARGS"]
    assert K.call("aten::index_select.out", x, 2, torch.tensor([1, 0]), out) == ERR["ARGS"]
    assert K.call("aten::index_select.out", x, 1, torch.tensor([1.0, 0.0]), out) == ERR["DTYPE"]
    assert K.call("aten::index_select.out", x, 1, torch.tensor([1, 0]), torch.empty(4, 3)) == ERR["SHAPE"]
    assert K.call("aten::index_select.out", x, 1, torch.tensor([[1, 0]]), out) == ERR["SHAPE"]


# ---------------------------------------------------------------- gather / scatter

GS = [((3, 4), 1, (3, 2)), ((3, 4), 0, (5, 4)), ((2, 3, 4), -1, (2, 2, 4)), ((2, 3, 4), 1, (1, 2, 3)),
      ((4,), 0, (6,)), ((3, 4), 1, (0, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", GS, ids=[str(c) for c in GS])
def test_gather(K, dtype, case):
    shape, dim, ishape = case
    x = values(shape, dtype)
    idx = torch.randint(0, shape[dim], ishape, generator=gen(3))
    check(K, "aten::gather.out", torch.gather(x, dim, idx), x, dim, idx, False)
    check(K, "aten::gather.out", torch.gather(x, dim, idx), x, dim, idx.int(), False)


def test_gather_0d(K):
    x = torch.tensor(2.5)
    check(K, "aten::gather.out", torch.gather(x, 0, torch.tensor(0)), x, 0, torch.tensor(0), False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [((3, 4), 1, (3, 2)), ((5, 4), 0, (2, 3)), ((2, 3, 4), -1, (2, 2, 2))])
def test_scatter(K, dtype, case):
    shape, dim, ishape = case
    x = values(shape, dtype)
    # distinct indices along dim (torch leaves the winner of duplicates unspecified)
    perm = torch.stack([torch.randperm(shape[dim], generator=gen(i))[:ishape[dim]] for i in range(
        int(torch.tensor(ishape).prod()) // ishape[dim])])
    idx = perm.reshape(*[s for d, s in enumerate(ishape) if d != dim % len(ishape)], ishape[dim])
    idx = idx.movedim(-1, dim).contiguous()
    src = values(tuple(s + 1 for s in ishape), dtype, seed=5)
    check(K, "aten::scatter.src_out", x.scatter(dim, idx, src), x, dim, idx, src)
    v = 3 if dtype != torch.float32 else 2.5
    if dtype == torch.bool:
        v = True
    check(K, "aten::scatter.value_out", x.scatter(dim, idx, v), x, dim, idx, v)
    if dtype != torch.bool:
        dup = torch.randint(0, shape[dim], ishape, generator=gen(9))
        check(K, "aten::scatter_add.out", x.scatter_add(dim, dup, src), x, dim, dup, src)


def test_scatter_in_place_and_errors(K):
    x = torch.randn(3, 4)
    idx = torch.tensor([[0, 3], [1, 2], [2, 0]])
    src = torch.randn(3, 2)
    ref = x.scatter_add(1, idx, src)
    y = x.clone()
    assert K.call("aten::scatter_add.out", y, 1, idx, src, y) == 0
    assert rel_err(y, ref) <= TOL
    out = torch.empty(3, 4)
    for name, extra in (("aten::scatter.src_out", src), ("aten::scatter_add.out", src),
                        ("aten::scatter.value_out", 1.0)):
        assert K.call(name, x, 1, torch.tensor([[4]]), extra, out) == ERR["ARGS"]
        assert K.call(name, x, 1, torch.tensor([[-1]]), extra, out) == ERR["ARGS"]
        assert K.call(name, x, 2, idx, extra, out) == ERR["ARGS"]
        assert K.call(name, x, 1, idx.float(), extra, out) == ERR["DTYPE"]
        assert K.call(name, x, 1, idx, extra, torch.empty(3, 5)) == ERR["SHAPE"]
        assert K.call(name, x, 1, torch.zeros(4, 1, dtype=torch.long), extra, out) == ERR["SHAPE"]
        assert K.call(name, x, 1, idx, extra) == ERR["ARGS"]
    assert K.call("aten::scatter.src_out", x, 1, idx, torch.randn(3, 1), out) == ERR["SHAPE"]
    assert K.call("aten::scatter.src_out", x, 1, idx, src.double(), out) == ERR["DTYPE"]
    assert K.call("aten::scatter_add.out", x > 0, 1, idx, src > 0, out > 0) == ERR["DTYPE"]
    assert K.call("aten::gather.out", x, 1, torch.tensor([[4]]), False, torch.empty(1, 1)) == ERR["ARGS"]
    assert K.call("aten::gather.out", x, 1, idx, False, torch.empty(3, 3)) == ERR["SHAPE"]
    assert K.call("aten::gather.out", x, 1, torch.zeros(4, 1, dtype=torch.long), False,
                  torch.empty(4, 1)) == ERR["SHAPE"]


# ---------------------------------------------------------------- index.Tensor / index_put

def _I(*v):
    return torch.tensor(v)


INDEX = [
    ((5, 4), [_I(4, 0, -1, 2)]),
    ((5, 4), [None, _I(3, -4)]),
    ((2, 5, 3), [None, _I(0, 4, 1).int()]),
    ((3, 4, 5), [_I(0, 2), None, _I([1], [4])]),           # non-adjacent: broadcast dims first
    ((3, 4, 5), [None, _I([0], [3]), _I(1, 4, 2)]),         # adjacent, broadcast [2, 3]
    ((3, 4, 5), [_I(2), _I(1, 3)]),                         # 0-d index
    ((4, 3), [_I(True, False, True, True)]),                # bool mask
    ((4, 3), [_I([True, False, True], [False, False, True], [True, True, True],
                 [False, False, False])]),                  # 2-D mask
    ((4, 3, 2), [None, _I(False, True, True)]),
    ((4, 3), [_I(1, -1), _I(True, False, True)]),           # int broadcast with a mask
    ((4, 3), [_I(False, False, False, False)]),             # empty result
    ((6,), [_I([[0, 5], [-6, 2]])]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(INDEX)))
def test_index_tensor(K, dtype, case):
    shape, idx = INDEX[case]
    x = values(shape, dtype)
    ref = x[tuple(slice(None) if i is None else i for i in idx)]
    check(K, "aten::index.Tensor_out", ref, x, idx)


def test_index_tensor_errors(K):
    x = torch.randn(5, 4)
    out = torch.empty(2, 4)
    assert K.call("aten::index.Tensor_out", x, [_I(1, 2)], out) == 0
    assert K.call("aten::index.Tensor_out", x, [_I(1, 5)], out) == ERR["ARGS"]
    assert K.call("aten::index.Tensor_out", x, [_I(1, -6)], out) == ERR["ARGS"]
    assert K.call("aten::index.Tensor_out", x, [_I(1.0, 2.0)], out) == ERR["DTYPE"]
    assert K.call("aten::index.Tensor_out", x, [_I(1, 2)], out.double()) == ERR["DTYPE"]
    assert K.call("aten::index.Tensor_out", x, [_I(1, 2)], torch.empty(3, 4)) == ERR["SHAPE"]
    assert K.call("aten::index.Tensor_out", x, [_I(1, 2), _I(0, 1, 2)], out) == ERR["SHAPE"]
    assert K.call("aten::index.Tensor_out", x, [_I(1), _I(1), _I(1)], torch.empty(1)) == ERR["SHAPE"]
    assert K.call("aten::index.Tensor_out", x, [_I(True, False)], out) == ERR["SHAPE"]
    assert K.call("aten::index.Tensor_out", x, _I(1, 2), out) == ERR["ARGS"]
    assert K.call("aten::index.Tensor_out", x, [_I(1, 2)]) == ERR["ARGS"]


PUT = [
    ((5, 4), [_I(0, 3)], (2, 4)),
    ((5, 4), [_I(0, 3)], (4,)),                             # values broadcast
    ((5, 4), [None, _I(1, -1)], (5, 1)),
    ((3, 4, 5), [_I(0, 2), None, _I([1], [4])], (2, 2, 4)),
    ((4, 3), [_I(True, False, True, True)], ()),
    ((4, 3), [_I(1, 2), _I(0, 2)], (2,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(PUT)))
def test_index_put(K, dtype, case):
    shape, idx, vshape = PUT[case]
    x = values(shape, dtype)
    v = values(vshape, dtype, seed=4)
    put = torch.ops.aten.index_put.default  # takes Tensor?[] (None items)
    check(K, "aten::index_put.out", put(x, idx, v, False), x, idx, v, False)
    if dtype != torch.bool:
        check(K, "aten::index_put.out", put(x, idx, v, True), x, idx, v, True)


def test_index_put_accumulate_duplicates_and_in_place(K):
    x = torch.randn(5, 4)
    idx = [_I(0, 3, 0, 0)]
    v = torch.randn(4, 4)
    ref = x.index_put((idx[0],), v, accumulate=True)
    check(K, "aten::index_put.out", ref, x, idx, v, True)
    y = x.clone()
    assert K.call("aten::index_put.out", y, idx, v, True, y) == 0
    assert rel_err(y, ref) <= TOL
    xi = torch.tensor([1 << 62, 5])
    check(K, "aten::index_put.out", xi.index_put((_I(0, 0),), torch.tensor(1 << 62), accumulate=True),
          xi, [_I(0, 0)], torch.tensor(1 << 62), True)  # wraps as torch


@pytest.mark.parametrize("acc", [False, True])
def test_index_put_in_place_op(K, acc):
    """aten::index_put_ gets ExecuTorch's KernelCall: the schema's 4 arguments, then self again."""
    x = torch.randn(5, 4)
    idx = [None, _I(2, 0, 2)]
    v = torch.randn(5, 3)
    ref = torch.ops.aten.index_put.default(x, idx, v, acc)
    y = x.clone()
    assert K.call("aten::index_put_.default", y, idx, v, acc, y) == 0
    assert rel_err(y, ref) <= TOL
    assert K.call("aten::index_put_.default", y, idx, v, acc, y.clone()) == ERR["ARGS"]  # not self
    assert K.call("aten::index_put_.default", y, idx, v, acc) == ERR["ARGS"]
    assert K.call("aten::index_put_.default", y, [_I(9)], torch.randn(4), acc, y) == ERR["ARGS"]
    assert K.call("aten::index_put_.default", y, idx, v.double(), acc, y) == ERR["DTYPE"]
    assert K.call("aten::index_put_.default", y, idx, torch.randn(5, 2), acc, y) == ERR["SHAPE"]


def test_index_put_errors(K):
    x = torch.randn(5, 4)
    out = torch.empty(5, 4)
    assert K.call("aten::index_put.out", x, [_I(5)], torch.ones(4), False, out) == ERR["ARGS"]
    assert K.call("aten::index_put.out", x, [_I(0, 1)], torch.ones(3), False, out) == ERR["SHAPE"]
    assert K.call("aten::index_put.out", x, [_I(0, 1)], torch.ones(1, 2, 4), False, out) == ERR["SHAPE"]
    assert K.call("aten::index_put.out", x, [_I(0, 1)], torch.ones(4), False, torch.empty(5, 3)) == ERR["SHAPE"]
    assert K.call("aten::index_put.out", x, [_I(0, 1)], torch.ones(4).double(), False, out) == ERR["DTYPE"]
    assert K.call("aten::index_put.out", x > 0, [_I(0)], torch.ones(4) > 0, True, out > 0) == ERR["DTYPE"]
    assert K.call("aten::index_put.out", x, [_I(0, 1)], torch.ones(4), 1, out) == ERR["ARGS"]


# ---------------------------------------------------------------- slice / select / masked scatter

@pytest.mark.parametrize("dtype", DTYPES)
def test_slice_select_scatter(K, dtype):
    x = values((4, 6, 3), dtype)
    for dim, start, end, step in ((1, 1, 5, 2), (0, None, None, 1), (-1, -2, None, 1), (1, 4, 2, 1),
                                  (1, -100, 100, 3), (2, 0, 1, 5)):
        n = len(range(*slice(start, end, step).indices(x.shape[dim])))
        shape = list(x.shape)
        shape[dim] = n
        src = values(tuple(shape), dtype, seed=8)
        ref = torch.slice_scatter(x, src, dim, start, end, step)
        check(K, "aten::slice_scatter.out", ref, x, src, dim, start, end, step)
    for dim, index in ((0, 3), (1, -1), (2, 0)):
        shape = list(x.shape)
        del shape[dim]
        src = values(tuple(shape), dtype, seed=9)
        check(K, "aten::select_scatter.out", torch.select_scatter(x, src, dim, index), x, src, dim, index)


def test_slice_select_scatter_errors(K):
    x = torch.randn(4, 6)
    out = torch.empty(4, 6)
    assert K.call("aten::slice_scatter.out", x, torch.randn(4, 2), 1, 1, 5, 0, out) == ERR["ARGS"]
    assert K.call("aten::slice_scatter.out", x, torch.randn(4, 3), 1, 1, 5, 2, out) == ERR["SHAPE"]
    assert K.call("aten::slice_scatter.out", x, torch.randn(4, 2).double(), 1, 1, 5, 2, out) == ERR["DTYPE"]
    assert K.call("aten::slice_scatter.out", x, torch.randn(4, 2), 1, 1, 5, 2) == ERR["ARGS"]
    assert K.call("aten::select_scatter.out", x, torch.randn(4), 1, 6, out) == ERR["ARGS"]
    assert K.call("aten::select_scatter.out", x, torch.randn(4), 1, -7, out) == ERR["ARGS"]
    assert K.call("aten::select_scatter.out", x, torch.randn(6), 1, 0, out) == ERR["SHAPE"]
    assert K.call("aten::select_scatter.out", x, torch.randn(4).int(), 1, 0, out) == ERR["DTYPE"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1)), ((), (2, 3)),
                                    ((0, 4), (4,))])
def test_masked_scatter(K, dtype, shapes):
    xs, ms = shapes
    x = values(xs, dtype)
    m = torch.randn(ms, generator=gen(6)) > 0
    src = values((20,), dtype, seed=7)
    check(K, "aten::masked_scatter.out", x.masked_scatter(m, src), x, m, src)


def test_masked_scatter_errors(K):
    x = torch.randn(3, 4)
    m = torch.ones(3, 4, dtype=torch.bool)
    out = torch.empty(3, 4)
    assert K.call("aten::masked_scatter.out", x, m, torch.randn(11), out) == ERR["SHAPE"]
    assert K.call("aten::masked_scatter.out", x, m.int(), torch.randn(12), out) == ERR["DTYPE"]
    assert K.call("aten::masked_scatter.out", x, m, torch.randn(12).double(), out) == ERR["DTYPE"]
    assert K.call("aten::masked_scatter.out", x, m, torch.randn(12), torch.empty(3, 5)) == ERR["SHAPE"]
    assert K.call("aten::masked_scatter.out", x, m, torch.randn(12)) == ERR["ARGS"]


# ---------------------------------------------------------------- padding

PADS = {1: [(2, 1), (0, 3), (1, 0), (-1, 2)], 2: [(1, 2, 3, 0), (2, 2, 2, 2), (0, 0, 1, -1)],
        3: [(1, 1, 1, 1, 1, 1), (0, 2, 1, 0, 2, 1)]}


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_pad(K, k, mode, dtype):
    name = f"aten::{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d.out"
    for batched in (False, True):
        shape = ((2,) if batched else ()) + (3,) + (4, 5, 6)[3 - k:]
        x = values(shape, dtype)
        for pad in PADS[k]:
            ref = F.pad(x.float(), pad, mode=mode).to(dtype)
            check(K, name, ref, x, list(pad))


def test_pad_errors(K):
    x = torch.randn(2, 3, 4)
    assert K.call("aten::reflection_pad1d.out", x, [4, 0], torch.empty(2, 3, 8)) == ERR["ARGS"]
    assert K.call("aten::reflection_pad1d.out", x, [1, 1, 1], torch.empty(2, 3, 6)) == ERR["ARGS"]
    assert K.call("aten::reflection_pad1d.out", x, [1, 1], torch.empty(2, 3, 7)) == ERR["SHAPE"]
    assert K.call("aten::reflection_pad1d.out", x, [1, 1], torch.empty(2, 3, 6).double()) == ERR["DTYPE"]
    assert K.call("aten::replication_pad2d.out", torch.randn(3), [1, 1, 1, 1], torch.empty(5)) == ERR["SHAPE"]
    assert K.call("aten::replication_pad3d.out", x, [1] * 6, torch.empty(4, 5, 6)) == ERR["SHAPE"]
    assert K.call("aten::replication_pad1d.out", torch.randn(2, 0), [1, 1], torch.empty(2, 2)) == ERR["SHAPE"]
    assert K.call("aten::replication_pad1d.out", x, [1, 1]) == ERR["ARGS"]


# ---------------------------------------------------------------- upsampling

UP = [((1, 2, 3, 4), None, [2.0, 2.0]), ((2, 3, 5, 4), None, [3.0, 1.5]), ((1, 1, 6, 8), None, [0.5, 0.75]),
      ((1, 2, 3, 4), [7, 9], None), ((1, 2, 6, 5), [4, 3], None), ((1, 2, 3, 4), [3, 4], None),
      ((1, 1, 1, 1), [3, 2], None), ((1, 2, 4, 4), [1, 1], None), ((1, 2, 3, 3), None, [1.7, 2.3])]


@pytest.mark.parametrize("case", UP, ids=[str(c) for c in UP])
def test_upsample_nearest(K, case):
    shape, size, scales = case
    x = torch.randn(shape, generator=gen(3))
    ref = F.interpolate(x, size=size, scale_factor=scales, mode="nearest")
    check(K, "aten::upsample_nearest2d.vec_out", ref, x, size, scales)
    xi = (x * 10).long()
    ref_int = torch.ops.aten.upsample_nearest2d.vec(xi.float(), size, scales).long()  # a copy: any dtype
    check(K, "aten::upsample_nearest2d.vec_out", ref_int, xi, size, scales)


@pytest.mark.parametrize("case", UP, ids=[str(c) for c in UP])
@pytest.mark.parametrize("ac", [False, True])
def test_upsample_bilinear(K, case, ac):
    shape, size, scales = case
    x = torch.randn(shape, generator=gen(4))
    ref = F.interpolate(x, size=size, scale_factor=scales, mode="bilinear", align_corners=ac)
    check(K, "aten::upsample_bilinear2d.vec_out", ref, x, size, ac, scales)


def test_upsample_errors(K):
    x = torch.randn(1, 2, 3, 4)
    out = torch.empty(1, 2, 6, 8)
    assert K.call("aten::upsample_nearest2d.vec_out", x, [6, 8], [2.0, 2.0], out) == ERR["ARGS"]
    assert K.call("aten::upsample_nearest2d.vec_out", x, None, None, out) == ERR["ARGS"]
    assert K.call("aten::upsample_nearest2d.vec_out", x, [6], None, out) == ERR["ARGS"]
    assert K.call("aten::upsample_nearest2d.vec_out", x, [6, 8], None, torch.empty(1, 2, 6, 7)) == ERR["SHAPE"]
    assert K.call("aten::upsample_nearest2d.vec_out", x, None, [2.0, 2.0], out.double()) == ERR["DTYPE"]
    assert K.call("aten::upsample_nearest2d.vec_out", x[0], [6, 8], None, out[0]) == ERR["SHAPE"]
    assert K.call("aten::upsample_bilinear2d.vec_out", x, [6, 8], False, None, out) == 0
    assert K.call("aten::upsample_bilinear2d.vec_out", x.double(), [6, 8], False, None, out.double()) == ERR["DTYPE"]
    assert K.call("aten::upsample_bilinear2d.vec_out", x, [6, 8], 0, None, out) == ERR["ARGS"]
    assert K.call("aten::upsample_bilinear2d.vec_out", x, None, False, [-2.0, 2.0], out) == ERR["ARGS"]
    assert K.call("aten::upsample_bilinear2d.vec_out", x, [6, 8], False, None) == ERR["ARGS"]


AA = [((1, 2, 8, 9), [3, 4], None), ((1, 1, 5, 5), [10, 7], None), ((2, 3, 9, 6), [4, 6], None),
      ((1, 2, 12, 10), [5, 4], [0.45, 0.4]), ((1, 1, 4, 4), [1, 1], None), ((1, 1, 6, 7), [6, 7], None)]


@pytest.mark.parametrize("case", AA, ids=[str(c) for c in AA])
@pytest.mark.parametrize("ac", [False, True])
def test_upsample_bilinear_aa(K, case, ac):
    shape, size, scales = case
    x = torch.randn(shape, generator=gen(5))
    sh, sw = scales if scales else (None, None)
    ref = torch.ops.aten._upsample_bilinear2d_aa(x, size, ac, sh, sw)
    check(K, "aten::_upsample_bilinear2d_aa.out", ref, x, size, ac, sh, sw)
    if not ac and scales is None:
        assert torch.allclose(ref, F.interpolate(x, size=size, mode="bilinear", antialias=True))


def test_upsample_bilinear_aa_errors(K):
    x = torch.randn(1, 2, 8, 8)
    out = torch.empty(1, 2, 4, 4)
    assert K.call("aten::_upsample_bilinear2d_aa.out", x, [4, 4], False, None, None, out) == 0
    assert K.call("aten::_upsample_bilinear2d_aa.out", x, [4], False, None, None, out) == ERR["ARGS"]
    assert K.call("aten::_upsample_bilinear2d_aa.out", x, [4, 4], False, -1.0, None, out) == ERR["ARGS"]
    assert K.call("aten::_upsample_bilinear2d_aa.out", x, [4, 5], False, None, None, out) == ERR["SHAPE"]
    assert K.call("aten::_upsample_bilinear2d_aa.out", x.double(), [4, 4], False, None, None,
                  out.double()) == ERR["DTYPE"]
    assert K.call("aten::_upsample_bilinear2d_aa.out", x, [4, 4], False, None, out) == ERR["ARGS"]


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sampler(K, mode, padding, ac):
    x = torch.randn(2, 3, 5, 7, generator=gen(1))
    g = torch.rand(2, 4, 6, 2, generator=gen(2)) * 3.0 - 1.5       # inside and outside [-1, 1]
    g[0, 0, 0] = torch.tensor([1.0, -1.0])                            # corners
    g[0, 0, 1] = torch.tensor([-1.0, 1.0])
    g[1, 0, 0] = torch.tensor([0.25, -0.5])                           # exact pixel centers / halves
    ref = torch.grid_sampler_2d(x, g, mode, padding, ac)
    check(K, "aten::grid_sampler_2d.out", ref, x, g, mode, padding, ac)


def test_grid_sampler_errors(K):
    x, g = torch.randn(1, 2, 4, 4), torch.rand(1, 3, 3, 2)
    out = torch.empty(1, 2, 3, 3)
    assert K.call("aten::grid_sampler_2d.out", x, g, 0, 0, False, out) == 0
    g[0, 0, 0, 0] = float("nan")
    assert K.call("aten::grid_sampler_2d.out", x, g, 0, 0, False, out) == 0 and out[0, :, 0, 0].eq(0).all()
    assert K.call("aten::grid_sampler_2d.out", x, g, 2, 0, False, out) == ERR["ARGS"]  # bicubic
    assert K.call("aten::grid_sampler_2d.out", x, g, 0, 3, False, out) == ERR["ARGS"]
    assert K.call("aten::grid_sampler_2d.out", x, torch.rand(1, 3, 3, 3), 0, 0, False, out) == ERR["SHAPE"]
    assert K.call("aten::grid_sampler_2d.out", x, torch.rand(2, 3, 3, 2), 0, 0, False, out) == ERR["SHAPE"]
    assert K.call("aten::grid_sampler_2d.out", x, g, 0, 0, False, torch.empty(1, 2, 3, 4)) == ERR["SHAPE"]
    assert K.call("aten::grid_sampler_2d.out", x.double(), g.double(), 0, 0, False, out.double()) == ERR["DTYPE"]
    assert K.call("aten::grid_sampler_2d.out", x, g, 0, 0, out) == ERR["ARGS"]


# ---------------------------------------------------------------- linear

@pytest.mark.parametrize("shape", [(2, 6), (6,), (2, 3, 6), (0, 6)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(K, shape, bias):
    x = torch.randn(shape, generator=gen(1))
    w = torch.randn(4, 6, generator=gen(2))
    b = torch.randn(4, generator=gen(3)) if bias else None
    check(K, "aten::linear.out", F.linear(x, w, b), x, w, b)


def test_linear_errors(K):
    x, w = torch.randn(2, 6), torch.randn(4, 6)
    assert K.call("aten::linear.out", x, torch.randn(4, 5), None, torch.empty(2, 4)) == ERR["SHAPE"]
    assert K.call("aten::linear.out", x, w, torch.randn(3), torch.empty(2, 4)) == ERR["SHAPE"]
    assert K.call("aten::linear.out", x, w, None, torch.empty(2, 5)) == ERR["SHAPE"]
    assert K.call("aten::linear.out", x.double(), w.double(), None, torch.empty(2, 4).double()) == ERR["DTYPE"]
    assert K.call("aten::linear.out", x, w, torch.empty(2, 4)) == ERR["ARGS"]


# ---------------------------------------------------------------- transposed convolution

TCONV = [
    # n, cin, cout, size, k, stride, pad, out_pad, dil, groups, bias
    (1, 4, 2, (5, 5), (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), 1, True),
    (1, 4, 6, (5, 6), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 2, True),
    (2, 3, 5, (4, 7), (3, 2), (1, 3), (2, 0), (0, 2), (2, 1), 1, False),
    (1, 6, 6, (3, 3), (3, 3), (2, 2), (1, 1), (0, 1), (1, 1), 6, True),
    (1, 4, 2, (7,), (3,), (2,), (1,), (1,), (1,), 2, True),
    (2, 3, 4, (6,), (4,), (3,), (0,), (2,), (2,), 1, False),
    (1, 2, 3, (1, 1), (3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1, True),
]


@pytest.mark.parametrize("case", TCONV, ids=[str(c) for c in TCONV])
def test_conv_transposed(K, case):
    n, cin, cout, size, k, s, p, op, d, g, bias = case
    x = torch.randn(n, cin, *size, generator=gen(1))
    w = torch.randn(cin, cout // g, *k, generator=gen(2))
    b = torch.randn(cout, generator=gen(3)) if bias else None
    f = F.conv_transpose2d if len(size) == 2 else F.conv_transpose1d
    ref = f(x, w, b, s, p, op, g, d)
    check(K, "aten::convolution.out", ref, x, w, b, list(s), list(p), list(d), True, list(op), g)


def test_conv_transposed_errors(K):
    x, w, b = torch.randn(1, 4, 5, 5), torch.randn(4, 1, 3, 3), torch.randn(2)
    out = torch.empty(1, 2, 10, 10)

    def run(x=x, w=w, b=b, s=(2, 2), p=(1, 1), op=(1, 1), g=2, out=out):
        return K.call("aten::convolution.out", x, w, b, list(s), list(p), [1, 1], True, list(op), g, out)
    assert run() == 0
    assert run(op=(2, 2)) == ERR["ARGS"]           # output_padding must be < stride or dilation
    assert run(s=(0, 2)) == ERR["ARGS"]
    assert run(g=3) == ERR["SHAPE"]
    assert run(out=torch.empty(1, 2, 9, 10)) == ERR["SHAPE"]
    assert run(w=torch.randn(3, 1, 3, 3)) == ERR["SHAPE"]
    assert run(b=torch.randn(3)) == ERR["SHAPE"]
    assert run(x=x.double()) == ERR["DTYPE"]
