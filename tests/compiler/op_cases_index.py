"""Cases of the "index" family (gather/scatter/index, embedding, upsampling,
padding, transposed convolution): operator -> (module factory, inputs)."""
import torch
import torch.nn.functional as F
from torch import nn

from op_cases import Fn, _r, _seq


def _ids(*shape, high, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g)


FP32 = {
    "aten::embedding.out": (lambda: _seq(nn.Embedding(10, 4)), (_ids(2, 3, high=10),)),
    "aten::index.Tensor_out": (lambda: Fn(lambda x, i: x[:, i]), (_r(3, 5), torch.tensor([4, 0, -1, 2]))),
    "aten::index_select.out": (lambda: Fn(lambda x, i: torch.index_select(x, 1, i)), (_r(3, 5), torch.tensor([4, 0, 2]))),
    "aten::gather.out": (lambda: Fn(lambda x, i: torch.gather(x, 1, i)), (_r(3, 4), _ids(3, 2, high=4))),
    "aten::index_put.out": (lambda: Fn(lambda x, i, v: x.index_put((i,), v, accumulate=True)),
                            (_r(5, 4), torch.tensor([0, 3, 0]), _r(3, 4))),
    "aten::scatter.src_out": (lambda: Fn(lambda x, i, s: x.scatter(1, i, s)),
                              (_r(3, 4), torch.tensor([[0, 1], [2, 3], [1, 0]]), _r(3, 2))),
    "aten::scatter.value_out": (lambda: Fn(lambda x, i: x.scatter(1, i, 2.5)),
                                (_r(3, 4), torch.tensor([[0, 1], [2, 3], [1, 0]]))),
    "aten::scatter_add.out": (lambda: Fn(lambda x, i, s: x.scatter_add(1, i, s)),
                              (_r(3, 4), torch.tensor([[0, 1], [2, 3], [1, 1]]), _r(3, 2))),
    "aten::slice_scatter.out": (lambda: Fn(lambda x, s: torch.slice_scatter(x, s, 1, 1, 5, 2)), (_r(3, 6), _r(3, 2))),
    "aten::masked_scatter.out": (lambda: Fn(lambda x, m, s: x.masked_scatter(m, s)), (_r(3, 4), _r(3, 4) > 0, _r(12))),
    "aten::upsample_nearest2d.vec_out": (lambda: _seq(nn.Upsample(scale_factor=2, mode="nearest")), (_r(1, 2, 3, 4),)),
    "aten::upsample_bilinear2d.vec_out": (lambda: _seq(nn.Upsample(scale_factor=2, mode="bilinear")), (_r(1, 2, 3, 4),)),
    "aten::_upsample_bilinear2d_aa.out": (lambda: Fn(lambda x: F.interpolate(x, size=(3, 5), mode="bilinear",
                                                                             antialias=True)), (_r(1, 2, 7, 9),)),
    "aten::grid_sampler_2d.out": (lambda: Fn(lambda x, g: F.grid_sample(x, g, align_corners=False)),
                                  (_r(1, 2, 5, 6), torch.rand(1, 3, 4, 2, generator=torch.Generator().manual_seed(0)) * 2.4 - 1.2)),
}

#: torch.export decomposes these (select_scatter -> where, linear -> permute + mm,
#: the paddings -> index.Tensor) or never emits them (index_put_: in place, made by
#: ExecuTorch's re-inplacing): only ExecuTorch-made programs carry them.
EXECUTORCH_ONLY = {
    "aten::select_scatter.out", "aten::linear.out", "aten::index_put_.default",
    "aten::reflection_pad1d.out", "aten::reflection_pad2d.out", "aten::reflection_pad3d.out",
    "aten::replication_pad1d.out", "aten::replication_pad2d.out", "aten::replication_pad3d.out",
}
