"""Train the tiny LM on the corpus: next-character prediction, AdamW, a fixed
number of steps on two threads (seeded, so every run gives the same weights on
one machine): about 80 s on an idle 2-core machine.

    python -m examples.tinylm.train [--steps N] [-o build/tinylm/tinylm.pt]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from examples.tinylm.corpus import Vocab, load_text
from examples.tinylm.model import MAX_LEN, TinyLM

STEPS, BATCH, LR = 2500, 32, 3e-3
#: the training budget (seconds) on 2 cores; a slower run says so (a busy machine)
BUDGET_S = 120.0
CHECKPOINT = Path("build/tinylm/tinylm.pt")


def train(steps: int = STEPS, out: Path = CHECKPOINT, log=print) -> dict:
    """Train and save {"vocab": chars, "state": state_dict, "loss": last loss,
    "steps", "seconds"} to `out` (atomically); returns it."""
    torch.manual_seed(0)
    torch.set_num_threads(2)
    text = load_text()
    vocab = Vocab(text)
    data = torch.tensor([vocab.index[c] for c in text], dtype=torch.int64)
    model = TinyLM(len(vocab))
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps, pct_start=0.1)
    g = torch.Generator().manual_seed(1)
    t0, loss, done = time.time(), float("nan"), 0
    for step in range(steps):
        starts = torch.randint(0, len(data) - MAX_LEN - 1, (BATCH,), generator=g)
        x = torch.stack([data[s:s + MAX_LEN] for s in starts])
        y = torch.stack([data[s + 1:s + MAX_LEN + 1] for s in starts])
        logits = model(x)
        loss_t = torch.nn.functional.cross_entropy(logits.reshape(-1, len(vocab)), y.reshape(-1))
        opt.zero_grad()
        loss_t.backward()
        opt.step()
        sched.step()
        loss, done = float(loss_t.detach()), step + 1
        if step % 250 == 0 or step == steps - 1:
            log(f"  step {step + 1:5d}/{steps}  loss {loss:.3f}  ({time.time() - t0:.0f} s)")
    seconds = time.time() - t0
    if seconds > BUDGET_S:
        log(f"  note: training took {seconds:.0f} s, more than the {BUDGET_S:.0f} s it takes on an idle 2-core "
            "machine (is another job using the cores?)")
    ckpt = {"vocab": vocab.chars, "state": model.state_dict(), "loss": loss, "steps": done, "seconds": seconds}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    torch.save(ckpt, tmp)
    tmp.replace(out)
    return ckpt


def load(path: Path = CHECKPOINT) -> tuple:
    """(TinyLM in eval mode with the checkpoint's weights, Vocab)."""
    ckpt = torch.load(path, weights_only=True)
    vocab = Vocab("".join(ckpt["vocab"]))
    model = TinyLM(len(vocab))
    model.load_state_dict(ckpt["state"])
    return model.eval(), vocab


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=STEPS)
    p.add_argument("-o", "--output", type=Path, default=CHECKPOINT)
    a = p.parse_args(argv)
    ck = train(a.steps, a.output)
    print(f"trained {ck['steps']} steps in {ck['seconds']:.0f} s, loss {ck['loss']:.3f} -> {a.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
