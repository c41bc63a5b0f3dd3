"""The tiny language model: a character-level decoder-only transformer.

2 layers of width 64 (4 heads of 16), RMSNorm, rotary position embedding,
causal self-attention, a SiLU MLP of 128; an embedding table and an untied
output head over the corpus's characters. Context: MAX_LEN = 64 positions.

Three ways to run it, one set of weights:

- ``forward(tokens [B, T] int64) -> logits [B, T, V]``: training, no cache;
- ``prefill(tokens [1, PROMPT] int64) -> logits [1, V]`` of the last position,
  writing every layer's keys and values for positions 0..PROMPT-1 into its KV
  cache (mutable buffers ``blocks.<i>.k_cache`` / ``v_cache`` [1, 4, 64, 16]);
- ``decode(token [1, 1] int64, pos [1] int64) -> logits [1, V]``: writes the
  token's keys and values at row ``pos`` and attends over rows 0..pos.

All three share one attention routine (:meth:`Block.attend`), so eager greedy
decoding with the cache is the model's own arithmetic.
"""
from __future__ import annotations

import torch
from torch import nn
import torch.nn.functional as F

WIDTH, LAYERS, HEADS, HIDDEN, MAX_LEN, PROMPT = 64, 2, 4, 128, 64, 16
HEAD_DIM = WIDTH // HEADS


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate(x, cos, sin):
    """Rotary embedding of x [B, H, T, D] with cos/sin [T, D/2] (halves rotated)."""
    x1, x2 = x[..., :HEAD_DIM // 2], x[..., HEAD_DIM // 2:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(WIDTH), RMSNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH, bias=False)
        self.proj = nn.Linear(WIDTH, WIDTH, bias=False)
        self.up = nn.Linear(WIDTH, HIDDEN, bias=False)
        self.down = nn.Linear(HIDDEN, WIDTH, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, HEADS, MAX_LEN, HEAD_DIM))
        self.register_buffer("v_cache", torch.zeros(1, HEADS, MAX_LEN, HEAD_DIM))

    def heads(self, x, cos, sin):
        """q, k, v [B, H, T, D] of x [B, T, W], q and k rotated."""
        b, t, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
        return rotate(q, cos, sin), rotate(k, cos, sin), v

    @staticmethod
    def attend(q, k, v, qpos, kpos):
        """Causal attention of q [B, H, T, D] over k, v [B, H, S, D]: query at
        position qpos[t] sees keys at kpos[s] <= qpos[t]."""
        scores = q @ k.transpose(-1, -2) * HEAD_DIM ** -0.5
        scores = scores.masked_fill(kpos.view(1, 1, 1, -1) > qpos.view(1, 1, -1, 1), float("-inf"))
        return torch.softmax(scores, dim=-1) @ v

    def finish(self, x, att):
        b, _, t, _ = att.shape
        x = x + self.proj(att.permute(0, 2, 1, 3).reshape(b, t, WIDTH))
        return x + self.down(F.silu(self.up(self.norm2(x))))


class TinyLM(nn.Module):
    def __init__(self, vocab: int):
        super().__init__()
        self.vocab = vocab
        self.embed = nn.Embedding(vocab, WIDTH)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm = RMSNorm(WIDTH)
        self.head = nn.Linear(WIDTH, vocab, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, HEAD_DIM // 2).float() / (HEAD_DIM // 2)))
        angles = torch.arange(MAX_LEN).float()[:, None] * inv[None, :]
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())
        self.register_buffer("positions", torch.arange(MAX_LEN))

    def forward(self, tokens):
        t = tokens.shape[1]
        x = self.embed(tokens)
        pos = self.positions[:t]
        for blk in self.blocks:
            q, k, v = blk.heads(x, self.cos[:t], self.sin[:t])
            x = blk.finish(x, blk.attend(q, k, v, pos, pos))
        return self.head(self.norm(x))

    def prefill(self, tokens):
        x = self.embed(tokens)
        pos = self.positions[:PROMPT]
        for blk in self.blocks:
            q, k, v = blk.heads(x, self.cos[:PROMPT], self.sin[:PROMPT])
            blk.k_cache[:, :, :PROMPT] = k
            blk.v_cache[:, :, :PROMPT] = v
            x = blk.finish(x, blk.attend(q, blk.k_cache, blk.v_cache, pos, self.positions))
        return self.head(self.norm(x[:, -1]))

    def decode(self, token, pos):
        x = self.embed(token)
        cos, sin = self.cos.index_select(0, pos), self.sin.index_select(0, pos)
        for blk in self.blocks:
            q, k, v = blk.heads(x, cos, sin)
            blk.k_cache.index_copy_(2, pos, k)
            blk.v_cache.index_copy_(2, pos, v)
            x = blk.finish(x, blk.attend(q, blk.k_cache, blk.v_cache, pos, self.positions))
        return self.head(self.norm(x[:, -1]))

    @torch.no_grad()
    def generate(self, prompt, new_tokens: int) -> list:
        """Greedy decoding with the KV cache (eager): the token ids after `prompt` [1, PROMPT]."""
        for blk in self.blocks:
            blk.k_cache.zero_()
            blk.v_cache.zero_()
        out = [int(self.prefill(prompt).argmax(-1))]
        for i in range(new_tokens - 1):
            pos = torch.tensor([PROMPT + i])
            out.append(int(self.decode(torch.tensor([[out[-1]]]), pos).argmax(-1)))
        return out
