"""Cases of the reduce family (reductions, arg-reductions, top-k, cumulative,
norms): one small model per operator, merged into op_cases.FP32."""
import torch
import torch.nn.functional as F
from torch import nn

from op_cases import Fn, _r, _seq


class _BoolIn(nn.Module):
    """fn applied to a bool mask input (any.* reduce masks)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, m):
        return self.fn(m)


_MASK = _r(3, 5) > 0.3

FP32 = {
    "aten::amax.out": (lambda: Fn(lambda x: x.amax(dim=(2, 3))), (_r(2, 3, 4, 5),)),
    "aten::amin.out": (lambda: Fn(lambda x: x.amin(dim=1, keepdim=True)), (_r(3, 6),)),
    "aten::linalg_vector_norm.out": (lambda: Fn(lambda x: F.normalize(x, dim=1) + torch.linalg.vector_norm(
        x, 3.0, (1, 2), keepdim=True)), (_r(2, 3, 4),)),
    "aten::any.all_out": (lambda: _BoolIn(lambda m: m.any()), (_MASK,)),
    "aten::any.dims_out": (lambda: _BoolIn(lambda m: m.any(dim=(0, 1))), (_MASK,)),
    "aten::any.out": (lambda: _BoolIn(lambda m: m.any(dim=1)), (_MASK,)),
    "aten::argmax.out": (lambda: Fn(lambda x: x.argmax(-1)), (_r(3, 7),)),
    "aten::argmin.out": (lambda: Fn(lambda x: x.argmin()), (_r(3, 7),)),
    "aten::max.dim_max": (lambda: Fn(lambda x: x.max(dim=1)), (_r(3, 7),)),
    "aten::min.dim_min": (lambda: Fn(lambda x: x.min(dim=0, keepdim=True)), (_r(3, 7),)),
    "aten::max.unary_out": (lambda: Fn(lambda x: x.max()), (_r(3, 7),)),
    "aten::min.unary_out": (lambda: Fn(lambda x: x.min()), (_r(3, 7),)),
    "aten::mean.dtype_out": (lambda: Fn(lambda x: x.mean(dtype=torch.float32)), (_r(3, 7),)),
    "aten::prod.int_out": (lambda: Fn(lambda x: x.prod(1)), (_r(3, 5),)),
    "aten::prod.out": (lambda: Fn(lambda x: x.prod()), (_r(2, 5) * 0.5 + 1.0,)),
    "aten::var.correction_out": (lambda: Fn(lambda x: x.var(dim=1)), (_r(3, 7),)),
    "aten::var_mean.correction_out": (lambda: Fn(lambda x: torch.var_mean(x, dim=-1, correction=0)),
                                      (_r(3, 7),)),
    "aten::cumsum.out": (lambda: Fn(lambda x: torch.cumsum(x, 1)), (_r(3, 7),)),
    "aten::topk.values": (lambda: Fn(lambda x: torch.topk(x, 3)), (_r(3, 7),)),
    "aten::native_layer_norm.out": (lambda: _seq(nn.LayerNorm(6)), (_r(2, 3, 6),)),
    "aten::native_group_norm.out": (lambda: _seq(nn.GroupNorm(2, 4)), (_r(2, 4, 3, 3),)),
    "aten::_native_batch_norm_legit.no_stats_out": (
        lambda: Fn(lambda x: F.batch_norm(x, None, None, training=True)), (_r(2, 3, 4, 4),)),
    "aten::_cdist_forward.out": (lambda: Fn(lambda x, y: torch.cdist(x, y)), (_r(4, 6), _r(5, 6))),
    "aten::_pdist_forward.out": (lambda: Fn(lambda x: F.pdist(x)), (_r(5, 6),)),
}

#: never emitted from a model by torch.export: var.out is the legacy overload
#: (x.var() exports var.correction)
EXECUTORCH_ONLY = {"aten::var.out"}
