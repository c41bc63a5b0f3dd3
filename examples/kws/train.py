"""Train the keyword spotter on the espeak-ng dataset (examples/kws/dataset.py).

The front end has no parameters: its log-mel features are computed once per
clip by the same PyTorch code the device runs (model.LogMel), and the network
trains on them. The weights are cached at build/kws/kws.pt under a hash of
the recipe; the best epoch on the validation voices is kept.

    python -m examples.kws.train        # prints accuracy per split
"""
from __future__ import annotations

import hashlib
import inspect
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from examples.kws import dataset as ds
from examples.kws import model as km

EPOCHS = 40
BATCH = 64
LR = 3e-3
WEIGHT_DECAY = 1e-4
SEED = 0
THREADS = 2
WEIGHTS = Path("build/kws/kws.pt")


def features(audio: np.ndarray, batch: int = 256) -> torch.Tensor:
    """Log-mel features float32 [N, N_MELS, HOPS] of int16 clips [N, 16000] (model.clip_features)."""
    front = km.LogMel()
    with torch.no_grad():
        return torch.cat([km.clip_features(front, torch.from_numpy(audio[i:i + batch]))
                          for i in range(0, len(audio), batch)])


def accuracy(net: nn.Module, feats: torch.Tensor, labels: torch.Tensor) -> float:
    net.eval()
    with torch.no_grad():
        return float((net(feats).argmax(1) == labels).float().mean())


#: what the trained weights depend on in model.py (the streaming form, KwsStream,
#: runs the trained network and does not retrain it)
TRAINED_FROM = ("mel_filterbank", "LogMel", "KwsNet", "stream_input", "clip_features", "KwsModel")
TRAINED_CONSTANTS = ("N_FFT", "HOP", "N_MELS", "F_MIN", "F_MAX", "LOG_FLOOR", "WINDOW", "ALIGN", "HOPS",
                     "CHANNELS", "DILATIONS")


def recipe_key() -> str:
    src = "".join(inspect.getsource(getattr(km, name)) for name in TRAINED_FROM)
    src += repr([getattr(km, name) for name in TRAINED_CONSTANTS]) + inspect.getsource(sys.modules[__name__])
    blob = json.dumps(ds.recipe(), sort_keys=True) + src
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def train(data: dict, log=print) -> km.KwsNet:
    torch.manual_seed(SEED)
    torch.set_num_threads(THREADS)
    feats = features(data["audio"])
    labels = torch.from_numpy(data["label"])
    split = torch.from_numpy(data["split"])
    tr, va = split == 0, split == 1
    xtr, ytr, xva, yva = feats[tr], labels[tr], feats[va], labels[va]
    net = km.KwsNet()
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, LR, total_steps=EPOCHS * ((len(xtr) + BATCH - 1) // BATCH))
    best, best_state = -1.0, None
    gen = torch.Generator().manual_seed(SEED)
    for epoch in range(EPOCHS):
        net.train()
        t0 = time.time()
        for idx in torch.randperm(len(xtr), generator=gen).split(BATCH):
            x = xtr[idx]
            # time shift by whole frames: the word moves, the features stay exact
            x = torch.roll(x, int(torch.randint(-8, 9, (1,), generator=gen)), dims=2)
            loss = nn.functional.cross_entropy(net(x), ytr[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        acc = accuracy(net, xva, yva)
        if acc > best:
            best, best_state = acc, {k: v.clone() for k, v in net.state_dict().items()}
        log(f"epoch {epoch + 1}/{EPOCHS}: loss {loss.item():.3f} val {acc:.2%} ({time.time() - t0:.1f} s)")
    net.load_state_dict(best_state)
    return net.eval()


def load(path: Path = WEIGHTS, log=print) -> km.KwsNet:
    """The trained network (trained first when the cache is missing or stale)."""
    key = recipe_key()
    if path.is_file():
        saved = torch.load(path, weights_only=True)
        if saved.get("recipe") == key:
            net = km.KwsNet()
            net.load_state_dict(saved["state"])
            return net.eval()
    net = train(ds.load(), log)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"recipe": key, "state": net.state_dict()}, path)
    return net


def main() -> int:
    data = ds.load()
    net = load()
    feats = features(data["audio"])
    labels = torch.from_numpy(data["label"])
    for s, name in enumerate(ds.SPLITS):
        m = torch.from_numpy(data["split"] == s)
        print(f"{name}: {accuracy(net, feats[m], labels[m]):.2%} of {int(m.sum())} clips")
    return 0


if __name__ == "__main__":
    sys.exit(main())
