"""Observers and warnings shared by the int8 annotation (:mod:`aot.compiler.quant.annotate`),
its recurrent-cell part (:mod:`aot.compiler.quant.recurrent`) and the lowering
(:mod:`aot.compiler.quant.lowering`): a leaf module, so those three import it without
importing each other."""
from __future__ import annotations

import torch
from torchao.quantization.pt2e import observer as _obs

__all__ = ["FiniteMinMaxObserver", "Int8FallbackWarning"]


class Int8FallbackWarning(UserWarning):
    """An op of the quantized graph has no int8 kernel and runs in fp32."""


class FiniteMinMaxObserver(_obs.MinMaxObserver):
    """MinMaxObserver that ignores infinities and NaNs (a causal mask's -inf
    before softmax): the range is the one of the finite values, and -inf then
    quantizes to quant_min (torch's quantize clamps). With only finite values
    it is exactly MinMaxObserver."""

    def forward(self, x_orig):
        if isinstance(x_orig, torch.Tensor) and x_orig.is_floating_point() and x_orig.numel() \
                and not bool(torch.isfinite(x_orig).all()):
            x = x_orig.detach()
            x = x[torch.isfinite(x)]
            if x.numel():
                super().forward(x)
            return x_orig
        return super().forward(x_orig)
