"""Tiny ViT on 1x3x32x32: 4x4 patchify conv (64 patches, width 32), class token, learned
position embedding, two pre-norm encoder blocks (nn.MultiheadAttention, 4 heads; LayerNorm;
GELU MLP), classification from the class token."""
import torch
from torch import nn

from zoo._common import calibration_from, seeded


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyViT(nn.Module):
    def __init__(self, d=32, heads=4, depth=2, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 65, d) * 0.02)
        self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(depth)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)          # [1, 64, d]
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        x = self.ln(self.blocks(x))
        return self.head(x[:, 0])


def model() -> nn.Module:
    seeded(0)
    return TinyViT().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(42)),)


def calibration_data():
    return calibration_from(example_inputs())
