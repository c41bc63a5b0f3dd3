"""One causal self-attention layer with a KV cache, as a program of three
methods over one module (shared weights, one cache):

- ``prefill(x [1, 8, 16] float32)``: attends over the 8 positions and writes
  their keys and values to the cache's first 8 rows; returns [1, 8, 16];
- ``decode(x [1, 1, 16] float32, pos [1] int64)``: writes the new key and value
  at row ``pos`` and attends over rows 0..pos; returns [1, 1, 16];
- ``reset()``-like ``clear(x [1])``: zeroes the cache; returns x.

State: ``k_cache`` and ``v_cache`` [1, 16, 16] float32 (16 positions, width 16).
"""
import torch
from torch import nn

from aot.compiler.model_file import BoundMethod
from zoo._common import seeded

WIDTH, MAX_LEN, PROMPT = 16, 16, 8


class KVAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.out = nn.Linear(WIDTH, WIDTH)
        self.register_buffer("k_cache", torch.zeros(1, MAX_LEN, WIDTH))
        self.register_buffer("v_cache", torch.zeros(1, MAX_LEN, WIDTH))
        self.register_buffer("positions", torch.arange(MAX_LEN))

    def attend(self, q, upto):
        """q [1, T, W] against cache rows < upto (a [T, 1] bound per query)."""
        scores = q @ self.k_cache.transpose(1, 2) / WIDTH ** 0.5          # [1, T, MAX_LEN]
        scores = scores.masked_fill(self.positions.view(1, 1, MAX_LEN) >= upto, float("-inf"))
        return self.out(torch.softmax(scores, dim=-1) @ self.v_cache)

    def prefill(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_cache[:, :PROMPT] = k
        self.v_cache[:, :PROMPT] = v
        return self.attend(q, (torch.arange(PROMPT) + 1).view(1, PROMPT, 1))

    def decode(self, x, pos):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_cache.index_copy_(1, pos, k)
        self.v_cache.index_copy_(1, pos, v)
        return self.attend(q, (pos + 1).view(1, 1, 1))

    def clear(self, x):
        self.k_cache.zero_()
        self.v_cache.zero_()
        return x + 0


def methods():
    seeded(0)
    core = KVAttention().eval()
    g = torch.Generator().manual_seed(42)
    return {
        "prefill": (BoundMethod(core, "prefill").eval(), (torch.randn(1, PROMPT, WIDTH, generator=g),)),
        "decode": (BoundMethod(core, "decode").eval(), (torch.randn(1, 1, WIDTH, generator=g),
                                                   torch.tensor([PROMPT]))),
        "clear": (BoundMethod(core, "clear").eval(), (torch.zeros(1),)),
    }
