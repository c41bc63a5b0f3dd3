"""Operator cases of the "unary" family (elementwise math and activations),
merged into op_cases.FP32 / EXECUTORCH_ONLY (see op_cases.py).

Inputs stay inside each function's domain (acos on (-1, 1), log on x > 0, ...)
so the comparison with eager PyTorch is on real values, not NaN.

``LAYERS``: torch.nn activation layers that must compile and run end to end
(tests/kernels/test_kernels_unary.py::test_layer_compiles_and_runs), with the
operators Core ATen turns each into.
"""
import torch
import torch.nn.functional as F
from torch import nn

from op_cases import Fn, _r, _seq


def _unit(*shape):
    """Values in (-0.9, 0.9): the domain of acos, asin, atanh."""
    return torch.tanh(_r(*shape)) * 0.9


def _pos(*shape):
    """Values in (0.1, ~4): the domain of log, sqrt, acosh - 1, ..."""
    return _r(*shape).abs() + 0.1


FP32 = {
    "aten::abs.out": (lambda: _seq(nn.Softsign()), (_r(2, 3),)),
    "aten::acos.out": (lambda: Fn(torch.acos), (_unit(2, 3),)),
    "aten::acosh.out": (lambda: Fn(torch.acosh), (_pos(2, 3) + 1.0,)),
    "aten::asin.out": (lambda: Fn(torch.asin), (_unit(2, 3),)),
    "aten::asinh.out": (lambda: Fn(torch.asinh), (_r(2, 3) * 3,)),
    "aten::atan.out": (lambda: Fn(torch.atan), (_r(2, 3) * 3,)),
    "aten::atanh.out": (lambda: Fn(torch.atanh), (_unit(2, 3),)),
    "aten::bitwise_not.out": (lambda: Fn(lambda m: ~m), (_r(2, 5) > 0,)),
    "aten::ceil.out": (lambda: Fn(torch.ceil), (_r(2, 5) * 4,)),
    "aten::cos.out": (lambda: Fn(torch.cos), (_r(2, 3) * 3,)),
    "aten::cosh.out": (lambda: Fn(torch.cosh), (_r(2, 3) * 2,)),
    "aten::elu.out": (lambda: _seq(nn.ELU(0.7)), (_r(2, 3) * 2,)),
    "aten::erf.out": (lambda: Fn(torch.erf), (_r(2, 3),)),
    "aten::expm1.out": (lambda: Fn(torch.expm1), (_r(2, 3),)),
    "aten::floor.out": (lambda: Fn(torch.floor), (_r(2, 5) * 4,)),
    "aten::gelu.out": (lambda: Fn(lambda x: F.gelu(x) - F.gelu(x, approximate="tanh") * 0.5), (_r(2, 3) * 2,)),
    "aten::isinf.out": (lambda: Fn(torch.isinf),
                        (torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), -0.0, 3e38]),)),
    "aten::isnan.out": (lambda: Fn(torch.isnan),
                        (torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), -0.0, 3e38]),)),
    "aten::leaky_relu.out": (lambda: _seq(nn.LeakyReLU(0.2)), (_r(2, 3),)),
    "aten::log.out": (lambda: Fn(torch.log), (_pos(2, 3),)),
    "aten::log10.out": (lambda: Fn(torch.log10), (_pos(2, 3),)),
    "aten::log1p.out": (lambda: Fn(torch.log1p), (_pos(2, 3) - 0.5,)),
    "aten::log2.out": (lambda: Fn(torch.log2), (_pos(2, 3),)),
    "aten::logical_not.out": (lambda: Fn(torch.logical_not), (torch.tensor([0.0, -0.0, 1.5, float("nan")]),)),
    "aten::reciprocal.out": (lambda: Fn(torch.reciprocal), (_pos(2, 3),)),
    "aten::round.out": (lambda: Fn(torch.round), (torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3, -3.7]),)),
    "aten::round.decimals_out": (lambda: Fn(lambda x: torch.round(x, decimals=2)), (_r(2, 5) * 10,)),
    "aten::sign.out": (lambda: Fn(torch.sign), (torch.tensor([-2.0, 0.0, -0.0, 3.0, float("nan")]),)),
    "aten::sin.out": (lambda: Fn(torch.sin), (_r(2, 3) * 3,)),
    "aten::sinh.out": (lambda: Fn(torch.sinh), (_r(2, 3) * 2,)),
    "aten::sqrt.out": (lambda: Fn(torch.sqrt), (_pos(2, 3),)),
    "aten::tan.out": (lambda: Fn(torch.tan), (_unit(2, 3),)),
    "aten::trunc.out": (lambda: Fn(torch.trunc), (_r(2, 5) * 4,)),
}

#: torch.export decomposes these (logit into where/log, glu into slices and
#: sigmoid); ExecuTorch's own passes may emit them: direct kernel tests only.
EXECUTORCH_ONLY = {"aten::logit.out", "aten::glu.out"}

#: nn activation layers -> (module factory, inputs); what each becomes in Core ATen:
#: GELU -> gelu (approximate none / tanh); ELU, SELU -> elu; LeakyReLU -> leaky_relu;
#: SiLU -> sigmoid, mul; Hardswish -> add.Scalar, clamp, mul, div.Scalar;
#: Hardsigmoid -> add.Scalar, clamp, div.Scalar; Softsign -> abs, add.Scalar, div;
#: PReLU -> view_copy, gt.Scalar, mul, where.self; Mish -> exp, log1p, gt.Scalar,
#: where.self, tanh, mul; Softplus -> mul.Scalar, exp, log1p, div.Scalar,
#: gt.Scalar, where.self; CELU -> expm1 (div.Scalar when alpha != 1), gt.Scalar, where.self.
LAYERS = {
    "GELU": (lambda: _seq(nn.GELU()), (_r(2, 8) * 3,)),
    "GELU_tanh": (lambda: _seq(nn.GELU(approximate="tanh")), (_r(2, 8) * 3,)),
    "ELU": (lambda: _seq(nn.ELU()), (_r(2, 8) * 3,)),
    "LeakyReLU": (lambda: _seq(nn.LeakyReLU()), (_r(2, 8) * 3,)),
    "PReLU": (lambda: _seq(nn.Conv2d(3, 4, 1), nn.PReLU(4)), (_r(1, 3, 4, 4),)),
    "SiLU": (lambda: _seq(nn.SiLU()), (_r(2, 8) * 3,)),
    "Hardswish": (lambda: _seq(nn.Hardswish()), (_r(2, 8) * 3,)),
    "Hardsigmoid": (lambda: _seq(nn.Hardsigmoid()), (_r(2, 8) * 3,)),
    "Mish": (lambda: _seq(nn.Mish()), (_r(2, 8) * 3,)),
    "Softplus": (lambda: _seq(nn.Softplus(beta=2.0, threshold=5.0)), (_r(2, 8) * 3,)),
    "Softsign": (lambda: _seq(nn.Softsign()), (_r(2, 8) * 3,)),
    "CELU": (lambda: _seq(nn.CELU(0.5)), (_r(2, 8) * 3,)),
    "SELU": (lambda: _seq(nn.SELU()), (_r(2, 8) * 3,)),
    "GELU_MLP": (lambda: _seq(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4), nn.Tanh()), (_r(2, 8),)),
}
