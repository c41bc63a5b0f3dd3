"""Train the digits CNN on the scikit-learn digits (a few seconds on 2 CPU cores).

The trained weights are cached next to this file (`digits_cnn.pt`) keyed by a
hash of the training recipe, so `aot` commands that load the model file do not
retrain every time.
"""
from __future__ import annotations

import hashlib
import os
import inspect
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from examples.digits.data import load_split

EPOCHS = 80
BATCH = 32
LR = 1e-2
TRAIN_SEED = 0
#: Training runs on one thread: the model is tiny, so a second intra-op
#: thread only adds synchronisation (and on a busy 2-core machine a 3 ms step
#: becomes a 150+ ms one). One thread is also reproducible bit for bit.
TRAIN_THREADS = 1


class DigitsCNN(nn.Module):
    """1x8x8 -> conv3x3(16)+ReLU -> conv3x3 s2 (32)+ReLU -> conv3x3(32)+ReLU
    -> global average pool (a mean over H and W) -> linear 10. Output: logits [N, 10].

    The pool is written as `mean((2, 3))` rather than nn.AdaptiveAvgPool2d(1):
    torch.export decomposes the adaptive pool into as_strided views, which the
    Mote runtime does not run, while a mean lowers to aten::mean.out (fp32) and
    mote::mean_s8 (int8)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = torch.relu(self.conv3(x))
        return self.fc(x.mean((2, 3)))


def _recipe_hash() -> str:
    return recipe_hash(DigitsCNN, EPOCHS, BATCH, LR, TRAIN_SEED)


def recipe_hash(model_cls: type, epochs: int, batch: int, lr: float, seed: int) -> str:
    """16 hex digits naming a training recipe: the model class's source and the
    hyper-parameters (a changed model or recipe gets a new cache file)."""
    src = inspect.getsource(model_cls) + f"{epochs}/{batch}/{lr}/{seed}/{TRAIN_THREADS}"
    return hashlib.sha256(src.encode()).hexdigest()[:16]


def train(verbose: bool = True) -> DigitsCNN:
    """Train the CNN from scratch with a fixed seed; returns the eval-mode model."""
    return fit(DigitsCNN, EPOCHS, BATCH, LR, TRAIN_SEED, verbose)


def fit(model_cls: type, epochs: int, batch: int, lr: float, seed: int,
        verbose: bool = True) -> nn.Module:
    """Train ``model_cls()`` on the training split from seed `seed` (Adam at `lr`, cosine
    schedule over `epochs`, mini-batches of `batch`) on TRAIN_THREADS threads, bit for bit
    reproducible; returns the eval-mode model."""
    threads = torch.get_num_threads()
    torch.set_num_threads(TRAIN_THREADS)
    try:
        return _fit(model_cls, epochs, batch, lr, seed, verbose)
    finally:
        torch.set_num_threads(threads)


def _fit(model_cls: type, epochs: int, batch: int, lr: float, seed: int, verbose: bool) -> nn.Module:
    torch.manual_seed(seed)
    x_tr, y_tr, _, _ = load_split()
    x_tr, y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
    model = model_cls()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    loss_fn = nn.CrossEntropyLoss()
    t0 = time.time()
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = loss_fn(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            opt.step()
        sched.step()
    if verbose:
        print(f"trained {model_cls.__name__}: {epochs} epochs on {len(x_tr)} images in {time.time() - t0:.1f} s")
    return model.eval()


def cache_path(stem: str, digest: str, cache_dir: Path | None = None) -> Path:
    """Where trained weights of recipe `digest` are cached: build/digits/<stem>-<digest>.pt."""
    cache_dir = cache_dir or Path(__file__).resolve().parents[2] / "build" / "digits"
    return cache_dir / f"{stem}-{digest}.pt"


def cached(model_cls: type, cache: Path, train_fn, verbose: bool = True) -> nn.Module:
    """``model_cls()`` with the weights in `cache`, or trained now by ``train_fn(verbose)``
    and saved there (atomically: several test processes may train at once)."""
    model = model_cls()
    if cache.exists():
        model.load_state_dict(torch.load(cache, weights_only=True))
        return model.eval()
    model = train_fn(verbose)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    torch.save(model.state_dict(), tmp)
    tmp.replace(cache)
    return model


def trained_model(cache_dir: Path | None = None, verbose: bool = True) -> DigitsCNN:
    """The trained model, from the cache when the recipe has not changed."""
    return cached(DigitsCNN, cache_path("digits_cnn", _recipe_hash(), cache_dir), train, verbose)


def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    """Top-1 accuracy of `model` on images x [N,1,8,8] with labels y [N]."""
    with torch.no_grad():
        pred = model(torch.from_numpy(x)).argmax(1).numpy()
    return float((pred == y).mean())


if __name__ == "__main__":
    m = trained_model()
    _, _, x_te, y_te = load_split()
    print(f"held-out accuracy (eager fp32): {accuracy(m, x_te, y_te):.4f}")
