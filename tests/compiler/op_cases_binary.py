"""Operator cases of the "binary" family (comparisons, logical, bitwise,
shifts, pow, atan2, fmod/remainder, rounding divisions, maximum/minimum, rsub,
clamp.Tensor, where): one small model per operator the compiler emits, merged
into op_cases.FP32 (see op_cases.py)."""
import torch

from op_cases import Fn, _r


def _i(*shape, lo=-6, hi=7, dtype=torch.int64, seed=0):
    g = torch.Generator().manual_seed(seed + 100 + sum(shape))
    return torch.randint(lo, hi, shape, generator=g, dtype=dtype)


def _m(*shape, seed=0):
    return _r(*shape, seed=seed) > 0


FP32 = {
    # comparisons (bool out)
    "aten::eq.Scalar_out": (lambda: Fn(lambda x: x == 2), (_i(3, 4),)),
    "aten::eq.Tensor_out": (lambda: Fn(lambda x, y: x == y), (_i(3, 4, dtype=torch.int32, lo=-2, hi=2),
                                                              _i(4, dtype=torch.int32, lo=-2, hi=2))),
    "aten::ne.Scalar_out": (lambda: Fn(lambda x: x != 0), (_i(2, 5, dtype=torch.int32, lo=-1, hi=2),)),
    "aten::ne.Tensor_out": (lambda: Fn(lambda x, y: x != y), (_m(3, 4), _m(1, 4, seed=1))),
    "aten::lt.Scalar_out": (lambda: Fn(lambda x: x < 0.25), (_r(2, 3),)),
    "aten::lt.Tensor_out": (lambda: Fn(lambda x, y: x < y), (_r(2, 3, 4), _r(3, 1))),
    "aten::le.Scalar_out": (lambda: Fn(lambda x: x <= 1.5), (_i(3, 3),)),
    "aten::le.Tensor_out": (lambda: Fn(lambda x, y: x <= y), (_i(4, 3), _i(3, seed=2))),
    "aten::gt.Scalar_out": (lambda: Fn(lambda x: x > 0.5), (_r(2, 3),)),
    "aten::gt.Tensor_out": (lambda: Fn(lambda x, y: x > y), (_r(2, 3), _r(2, 3, seed=1))),
    "aten::ge.Scalar_out": (lambda: Fn(lambda x: x >= 0), (_r(4, 2),)),
    "aten::ge.Tensor_out": (lambda: Fn(lambda x, y: x >= y), (_r(2, 4), _r(1, seed=3))),
    # logical (bool out, any input dtype)
    "aten::logical_and.out": (lambda: Fn(torch.logical_and), (_m(2, 3), _r(2, 3))),
    "aten::logical_or.out": (lambda: Fn(torch.logical_or), (_m(3, 4), _m(3, 4, seed=1))),
    "aten::logical_xor.out": (lambda: Fn(torch.logical_xor), (_i(3, 4, lo=-1, hi=2), _m(4))),
    # bitwise (int, bool)
    "aten::bitwise_and.Scalar_out": (lambda: Fn(lambda x: x & 3), (_i(3, 4, lo=-50, hi=50),)),
    "aten::bitwise_and.Tensor_out": (lambda: Fn(lambda x, y: x & y), (_m(3, 4), _m(3, 4, seed=1))),
    "aten::bitwise_or.Scalar_out": (lambda: Fn(lambda x: x | 5), (_i(3, 4, lo=-50, hi=50, dtype=torch.int32),)),
    "aten::bitwise_or.Tensor_out": (lambda: Fn(lambda x, y: x | y), (_i(3, 4, lo=-50, hi=50), _i(4, lo=0, hi=64))),
    "aten::bitwise_xor.Scalar_out": (lambda: Fn(lambda x: x ^ 1), (_i(2, 6),)),
    "aten::bitwise_xor.Tensor_out": (lambda: Fn(lambda x, y: x ^ y), (_m(2, 6), _m(2, 6, seed=1))),
    # shifts (x << y exports as __lshift__; the compiler maps it to bitwise_left_shift)
    "aten::bitwise_left_shift.Tensor_out": (lambda: Fn(lambda x, y: x << y),
                                            (_i(3, 4, lo=-100, hi=100), _i(3, 4, lo=0, hi=9))),
    "aten::bitwise_left_shift.Tensor_Scalar_out": (lambda: Fn(lambda x: x << 2), (_i(3, 4, lo=-100, hi=100),)),
    "aten::bitwise_right_shift.Tensor_out": (lambda: Fn(lambda x, y: x >> y),
                                             (_i(3, 4, lo=-1000, hi=1000, dtype=torch.int32),
                                              _i(4, lo=0, hi=12, dtype=torch.int32))),
    "aten::bitwise_right_shift.Tensor_Scalar_out": (lambda: Fn(lambda x: x >> 1), (_i(3, 4, lo=-100, hi=100),)),
    # pow
    "aten::pow.Tensor_Scalar_out": (lambda: Fn(lambda x: x ** 2), (_r(2, 3),)),
    "aten::pow.Tensor_Tensor_out": (lambda: Fn(lambda x, y: (x * x + 0.5) ** y), (_r(2, 3), _r(3, seed=1))),
    "aten::pow.Scalar_out": (lambda: Fn(lambda x: 2 ** x), (_r(2, 3),)),
    "aten::atan2.out": (lambda: Fn(torch.atan2), (_r(2, 3), _r(2, 3, seed=1))),
    # modulo and rounding divisions
    "aten::fmod.Scalar_out": (lambda: Fn(lambda x: torch.fmod(x * 4, 1.5)), (_r(3, 4),)),
    "aten::fmod.Tensor_out": (lambda: Fn(torch.fmod), (_r(3, 4) * 4, _r(4, seed=1) + 3.0)),
    "aten::remainder.Scalar_out": (lambda: Fn(lambda x: x % 3), (_r(3, 4) * 5,)),
    "aten::remainder.Scalar_Tensor_out": (lambda: Fn(lambda x: 5.0 % x), (_r(3, 4) + 3.0,)),
    "aten::remainder.Tensor_out": (lambda: Fn(lambda x, y: x % y), (_r(3, 4) * 5, _r(3, 4, seed=1) + 3.0)),
    "aten::div.out_mode": (lambda: Fn(lambda x, y: torch.div(x, y, rounding_mode="floor")),
                           (_r(3, 4) * 5, _r(3, 4, seed=1) + 3.0)),
    "aten::div.Scalar_mode_out": (lambda: Fn(lambda x: x // 2), (_i(3, 4, lo=-9, hi=10),)),
    # maximum / minimum, rsub, clamp with tensors, where
    "aten::maximum.out": (lambda: Fn(torch.maximum), (_r(2, 3), _r(3, seed=1))),
    "aten::minimum.out": (lambda: Fn(torch.minimum), (_r(2, 3), _r(2, 1, seed=1))),
    "aten::rsub.Scalar_out": (lambda: Fn(lambda x: 1 - x), (_r(2, 3),)),
    "aten::clamp.Tensor_out": (lambda: Fn(lambda x, lo, hi: torch.clamp(x, lo, hi)),
                               (_r(2, 3), _r(3, seed=1) - 0.5, _r(2, 1, seed=2) + 0.5)),
    "aten::where.self_out": (lambda: Fn(lambda x: torch.where(x > 0, x, 0.1 * x)), (_r(2, 3),)),
}

#: torch.export turns floor_divide into div.Tensor_mode(floor) and masked_fill
#: into where.self; these kernels run ExecuTorch-made programs (tested directly
#: in tests/kernels/test_kernels_binary.py).
EXECUTORCH_ONLY = {"aten::floor_divide.out", "aten::masked_fill.Scalar_out"}
