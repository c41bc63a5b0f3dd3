"""A small vision transformer trained on the scikit-learn 8x8 digits (the demo's data,
examples/digits/data.py): the trained transformer on which int8 parity with PT2E is
shown (tests/e2e/test_digits_vit.py, benchmarks/bench_vit_parity.py).

    python -m examples.digits.vit      # train (or load) and print the held-out accuracy

DigitsViT: 1x8x8 image -> 2x2 patches (a stride-2 conv: 16 patches of width 32) ->
class token + learned position embedding -> 2 pre-norm encoder blocks (LayerNorm,
nn.MultiheadAttention with 2 heads and a softmax, LayerNorm, GELU MLP 32->64->32,
residual adds) -> final LayerNorm -> linear 10 on the class token. Output: logits [N, 10].
About 21 k parameters; training (Adam, cosine schedule, one thread, fixed seed) takes
about 20 s on one core and is bit for bit reproducible. Weights are cached in
build/digits/digits_vit-<recipe hash>.pt like the CNN's (examples/digits/train.py).
"""
from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from examples.digits.train import cache_path, cached, fit, recipe_hash

EPOCHS = 40
BATCH = 32
LR = 3e-3
TRAIN_SEED = 0


class Block(nn.Module):
    """Pre-norm encoder block: x + attn(ln1(x)), then + mlp(ln2(x)). x: [N, 17, d] fp32."""

    def __init__(self, d: int, heads: int, mlp: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp), nn.GELU(), nn.Linear(mlp, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class DigitsViT(nn.Module):
    """[N, 1, 8, 8] float32 in 0..1 -> logits [N, 10]."""

    def __init__(self, d: int = 32, heads: int = 2, depth: int = 2, mlp: int = 64, patch: int = 2):
        super().__init__()
        tokens = (8 // patch) ** 2
        self.patch = nn.Conv2d(1, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, tokens + 1, d) * 0.02)
        self.blocks = nn.Sequential(*[Block(d, heads, mlp) for _ in range(depth)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)                     # [N, 16, d]
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        x = self.ln(self.blocks(x))
        return self.head(x[:, 0])


def train(verbose: bool = True) -> DigitsViT:
    """Train DigitsViT from scratch with the fixed seed; returns the eval-mode model."""
    return fit(DigitsViT, EPOCHS, BATCH, LR, TRAIN_SEED, verbose)


def weights_path(cache_dir: Path | None = None) -> Path:
    """The cache file of the current recipe (build/digits/digits_vit-<hash>.pt)."""
    return cache_path("digits_vit", recipe_hash(DigitsViT, EPOCHS, BATCH, LR, TRAIN_SEED), cache_dir)


def trained_model(cache_dir: Path | None = None, verbose: bool = True) -> DigitsViT:
    """The trained DigitsViT, from the cache when the recipe has not changed."""
    return cached(DigitsViT, weights_path(cache_dir), train, verbose)


if __name__ == "__main__":
    from examples.digits.data import load_split
    from examples.digits.train import accuracy
    m = trained_model()
    _, _, x_te, y_te = load_split()
    print(f"held-out accuracy (eager fp32): {accuracy(m, x_te, y_te):.4f}")
