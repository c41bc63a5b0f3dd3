"""aten::convolution.out, addmm/mm/bmm against torch eager (fp32, max rel err <= 1e-5)."""
import pytest
import torch
import torch.nn.functional as F

from tests.kernels.kernels_ffi import ERR

TOL = 1e-5


def rel_err(out, ref):
    return (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)


def conv(K, x, w, b, stride, padding, dilation, groups, out=None):
    ref = F.conv2d(x, w, b, stride, padding, dilation, groups) if x.dim() == 4 else \
        F.conv1d(x, w, b, stride, padding, dilation, groups)
    if out is None:
        out = torch.full_like(ref, float("nan"))
    sp = x.dim() - 2
    rc = K.call("aten::convolution.out", x, w, b, [stride] * sp, [padding] * sp,
                [dilation] * sp, False, [0] * sp, groups, out)
    return rc, out, ref


CASES = [
    # n, cin, cout, h, w, k, stride, pad, dil, groups, bias
    (1, 3, 16, 32, 32, 3, 1, 1, 1, 1, True),      # ResNet-8 stem
    (1, 16, 32, 32, 32, 3, 2, 1, 1, 1, True),     # stride 2
    (1, 5, 7, 11, 13, 3, 1, 1, 1, 1, True),       # odd channels
    (2, 6, 10, 9, 17, 5, 2, 2, 1, 1, False),      # batch 2, 5x5, no bias
    (1, 7, 9, 12, 14, 3, 1, 2, 2, 1, True),       # dilation 2
    (1, 6, 9, 10, 11, 3, 1, 1, 1, 3, True),       # groups 3
    (1, 13, 13, 9, 7, 3, 1, 1, 1, 13, True),      # depthwise
    (1, 13, 13, 10, 9, 3, 2, 1, 1, 13, True),     # depthwise stride 2
    (1, 8, 16, 9, 9, 3, 1, 0, 2, 8, True),        # depthwise multiplier 2
    (1, 10, 10, 12, 11, 3, 1, 2, 2, 10, True),    # depthwise dilation 2
    (1, 5, 5, 7, 9, 3, 2, 0, 1, 5, False),        # depthwise stride 2, no padding
    (1, 6, 6, 9, 9, 5, 1, 2, 1, 6, True),         # depthwise 5x5
    (1, 64, 64, 25, 5, 3, 1, 1, 1, 64, True),     # DS-CNN depthwise
    (1, 3, 70, 6, 7, 3, 1, 1, 1, 1, True),        # K = 27, Cout tail
    (1, 40, 8, 5, 6, 3, 1, 1, 1, 1, True),        # K = 360 > one packed panel
    (1, 64, 64, 25, 5, 1, 1, 0, 1, 1, True),      # DS-CNN pointwise
    (1, 9, 6, 7, 5, 1, 1, 0, 1, 1, False),        # pointwise odd
    (1, 9, 6, 7, 5, 1, 2, 0, 1, 1, True),         # 1x1 stride 2
    (1, 4, 5, 3, 3, 5, 1, 2, 1, 1, True),         # kernel larger than input
    (1, 3, 8, 4, 40, 3, 3, 1, 1, 1, True),        # wide, stride 3
]


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_conv2d(K, case):
    n, cin, cout, h, w, k, s, p, d, g, bias = case
    torch.manual_seed(hash(case) % 1000)
    x = torch.randn(n, cin, h, w)
    wt = torch.randn(cout, cin // g, k, k)
    b = torch.randn(cout) if bias else None
    rc, out, ref = conv(K, x, wt, b, s, p, d, g)
    assert rc == 0
    assert rel_err(out, ref) <= TOL


def test_conv2d_dscnn_first_layer(K):
    """Non-square kernel and padding (DS-CNN's 10x4 stride 2)."""
    torch.manual_seed(0)
    x = torch.randn(1, 1, 49, 10)
    w = torch.randn(64, 1, 10, 4)
    b = torch.randn(64)
    ref = F.conv2d(x, w, b, 2, (5, 1))
    out = torch.empty_like(ref)
    rc = K.call("aten::convolution.out", x, w, b, [2, 2], [5, 1], [1, 1], False, [0, 0], 1, out)
    assert rc == 0 and rel_err(out, ref) <= TOL


def test_conv1d(K):
    torch.manual_seed(1)
    x = torch.randn(2, 5, 23)
    w = torch.randn(7, 5, 3)
    rc, out, ref = conv(K, x, w, torch.randn(7), 2, 1, 1, 1)
    assert rc == 0 and rel_err(out, ref) <= TOL


def test_conv_errors(K):
    x = torch.randn(1, 4, 8, 8)
    w = torch.randn(6, 4, 3, 3)
    b = torch.randn(6)
    out = torch.empty(1, 6, 8, 8)
    args = lambda **kw: dict(dict(x=x, w=w, b=b, tr=False, g=1, out=out), **kw)  # noqa: E731

    def run(a):
        return K.call("aten::convolution.out", a["x"], a["w"], a["b"], [1, 1], [1, 1], [1, 1],
                      a["tr"], [0, 0], a["g"], a["out"])
    assert run(args()) == 0
    assert run(args(tr=True)) == ERR["SHAPE"]  # transposed: weight [Cin=6, ..] vs a 4-channel input
    assert run(args(out=torch.empty(1, 6, 8, 7))) == ERR["SHAPE"]  # wrong out width
    assert run(args(w=torch.randn(6, 3, 3, 3))) == ERR["SHAPE"]    # Cin mismatch
    assert run(args(b=torch.randn(5))) == ERR["SHAPE"]             # bias size
    assert run(args(g=3)) == ERR["SHAPE"]                          # groups do not divide
    assert run(args(x=x.double())) == ERR["DTYPE"]
    assert run(args(g=0)) == ERR["ARGS"]
    assert K.call("aten::convolution.out", x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0],
                  1) == ERR["ARGS"]                                # missing out
    assert K.call("aten::convolution.out", x, w, b, [0, 1], [1, 1], [1, 1], False, [0, 0],
                  1, out) == ERR["ARGS"]                           # stride 0


@pytest.mark.parametrize("m,k,n", [(1, 784, 128), (5, 13, 11), (8, 64, 16), (3, 1, 7), (9, 33, 1)])
@pytest.mark.parametrize("bias_shape", ["n", "1n", "mn", "m1", "scalar"])
def test_addmm(K, m, k, n, bias_shape):
    torch.manual_seed(m * 100 + k + n)
    a, b = torch.randn(m, k), torch.randn(k, n)
    shape = dict(n=(n,), **{"1n": (1, n)}, mn=(m, n), m1=(m, 1), scalar=())[bias_shape]
    bias = torch.randn(shape)
    out = torch.empty(m, n)
    for beta, alpha in [(1, 1), (0.5, 2.0)]:
        ref = torch.addmm(bias, a, b, beta=beta, alpha=alpha)
        rc = K.call("aten::addmm.out", bias, a, b, beta, alpha, out)
        assert rc == 0 and rel_err(out, ref) <= TOL


def test_addmm_in_place_bias_and_errors(K):
    a, b = torch.randn(6, 10), torch.randn(10, 9)
    bias = torch.randn(6, 9)
    ref = torch.addmm(bias, a, b)
    assert K.call("aten::addmm.out", bias, a, b, 1, 1, bias) == 0  # out aliases self
    assert rel_err(bias, ref) <= TOL
    out = torch.empty(6, 9)
    assert K.call("aten::addmm.out", torch.randn(9), a, torch.randn(11, 9), 1, 1, out) == ERR["SHAPE"]
    assert K.call("aten::addmm.out", torch.randn(8), a, b, 1, 1, out) == ERR["SHAPE"]
    assert K.call("aten::addmm.out", torch.randn(9), a, b, 1, 1, torch.empty(6, 8)) == ERR["SHAPE"]
    assert K.call("aten::addmm.out", torch.randn(9), a.double(), b, 1, 1, out) == ERR["DTYPE"]
    assert K.call("aten::addmm.out", torch.randn(9), a, b, 1, out) == ERR["ARGS"]


@pytest.mark.parametrize("m,k,n", [(7, 5, 19), (4, 8, 8), (1, 3, 2), (33, 17, 9)])
def test_mm_bmm(K, m, k, n):
    torch.manual_seed(m + k + n)
    a, b = torch.randn(m, k), torch.randn(k, n)
    out = torch.empty(m, n)
    assert K.call("aten::mm.out", a, b, out) == 0
    assert rel_err(out, a @ b) <= TOL
    a3, b3 = torch.randn(3, m, k), torch.randn(3, k, n)
    out3 = torch.empty(3, m, n)
    assert K.call("aten::bmm.out", a3, b3, out3) == 0
    assert rel_err(out3, torch.bmm(a3, b3)) <= TOL
    assert K.call("aten::mm.out", a, b, torch.empty(m, n + 1)) == ERR["SHAPE"]
    assert K.call("aten::bmm.out", a3, torch.randn(2, k, n), out3) == ERR["SHAPE"]
    assert K.call("aten::mm.out", a, b.to(torch.int32), out) == ERR["DTYPE"]
