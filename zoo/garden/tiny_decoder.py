"""Tiny decoder-only transformer: 16 int64 token ids (vocabulary 64) -> next-token logits.
Token embedding, two blocks of RMSNorm, causal self-attention with rotary position
embedding (precomputed cos/sin buffers) and a causal mask buffer, SiLU-gated MLP."""
import torch
from torch import nn
from torch.nn import functional as F

from zoo._common import seeded

VOCAB, SEQ, DIM, HEADS = 64, 16, 32, 2


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate(x, cos, sin):
    """Rotary embedding on the last dim (pairs of halves)."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM, bias=False)
        self.out = nn.Linear(DIM, DIM, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(DIM, -1)
        q, k, v = (z.view(b, t, HEADS, DIM // HEADS).transpose(1, 2) for z in (q, k, v))
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        scores = (q @ k.transpose(-2, -1)) / (DIM // HEADS) ** 0.5
        scores = scores.masked_fill(mask, float("-inf"))
        y = F.softmax(scores, -1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, DIM))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = RMSNorm(DIM), RMSNorm(DIM)
        self.attn = Attention()
        self.gate = nn.Linear(DIM, 2 * DIM, bias=False)
        self.up = nn.Linear(DIM, 2 * DIM, bias=False)
        self.down = nn.Linear(2 * DIM, DIM, bias=False)

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.n1(x), cos, sin, mask)
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.norm = RMSNorm(DIM)
        self.lm_head = nn.Linear(DIM, VOCAB, bias=False)
        half = DIM // HEADS // 2
        freqs = 1.0 / (10000 ** (torch.arange(half, dtype=torch.float32) / half))
        ang = torch.arange(SEQ, dtype=torch.float32)[:, None] * freqs[None, :]
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())
        self.register_buffer("mask", torch.ones(SEQ, SEQ).tril() == 0)

    def forward(self, tokens):
        x = self.embed(tokens)
        for blk in self.blocks:
            x = blk(x, self.cos, self.sin, self.mask)
        return self.lm_head(self.norm(x))


def model() -> nn.Module:
    seeded(0)
    return TinyDecoder().eval()


def example_inputs():
    return (torch.randint(0, VOCAB, (1, SEQ), generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randint(0, VOCAB, (1, SEQ), generator=g),) for _ in range(8)]
