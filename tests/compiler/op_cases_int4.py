"""Cases of the 4-bit weight operators: torchao-quantized layers (IntxWeightOnlyConfig,
int4, group 32), which the compiler folds into mote::linear_w4 / mote::embedding_w4
whatever the flags (aot/compiler/quant/int4.py)."""
import torch
from torch import nn


def _int4(module: nn.Module) -> nn.Module:
    from aot.compiler.quant.weights4 import apply_int4_weights
    torch.manual_seed(0)
    m = module.eval()
    apply_int4_weights(m, 32)
    return m


def _linear():
    torch.manual_seed(0)
    return _int4(nn.Sequential(nn.Linear(64, 16)))


def _embedding():
    torch.manual_seed(0)
    return _int4(nn.Sequential(nn.Embedding(10, 64)))


FP32 = {
    "mote::linear_w4.out": (_linear, (torch.randn(3, 64, generator=torch.Generator().manual_seed(1)),)),
    "mote::embedding_w4.out": (_embedding, (torch.tensor([[1, 4, 9]]),)),
}
