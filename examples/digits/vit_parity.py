"""int8 parity of the trained digits ViT (examples/digits/vit.py) with its PT2E model, on
the whole held-out set, on the firmware and on the host runtime.

    python -m examples.digits.vit_parity [--boards mps2-an505 mps3-an547] [--images N]

compiles examples/digits/vit_model.py as ``aot build --board <board> --int8`` does
(torchao PT2E, calibrated on 128 training images), builds firmware with the held-out
images embedded in flash (the demo's way: examples/digits/demo.py), runs it in QEMU
(one inference per image), runs the same program through the host runtime
(libmote.so), Mote's Python integer reference, the PT2E reference and eager fp32, and prints accuracies, top-1
agreement with PT2E, the end-to-end output quanta against PT2E (max and the
distribution of each image's max) and whether the firmware's logits equal the host
runtime's byte for byte. tests/e2e/test_digits_vit.py asserts these figures;
docs/quantization.md reports them.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from aot.paths import ROOT
from examples.digits import demo

MODEL_FILE = ROOT / "examples" / "digits" / "vit_model.py"
OUT_ROOT = ROOT / "build" / "digits-vit"
BOARDS = ("mps2-an505", "mps3-an547")


@dataclass
class Parity:
    """Logits [N, 10] float32 of every path on the first N held-out images, per board."""
    y: np.ndarray
    eager: np.ndarray
    pt2e: np.ndarray
    int8ref: Optional[np.ndarray] = None            # Mote's Python integer reference (the lowered graph)
    host: dict = field(default_factory=dict)        # board -> host runtime logits of that board's program
    firmware: dict = field(default_factory=dict)    # board -> firmware logits (QEMU)
    output_scale: dict = field(default_factory=dict)  # board -> the program's output quantum (fp32 units)

    def accuracy(self, logits: np.ndarray) -> float:
        return demo.accuracy(demo.predictions(logits), self.y)

    def agreement(self, logits: np.ndarray) -> float:
        """Fraction of images whose top-1 class equals PT2E's."""
        return float(np.mean(demo.predictions(logits) == demo.predictions(self.pt2e)))

    def quanta(self, board: str) -> np.ndarray:
        """Per image, the largest |firmware - PT2E| logit in output quanta (int)."""
        d = np.abs(self.firmware[board].astype(np.float64) - self.pt2e.astype(np.float64))
        return np.rint(d.max(axis=1) / self.output_scale[board]).astype(np.int64)

    def bytes_equal(self, board: str) -> int:
        """How many images' firmware logits equal the host runtime's byte for byte."""
        return sum(a.tobytes() == b.tobytes() for a, b in zip(self.firmware[board], self.host[board]))


def compile_vit(board: str):
    """examples/digits/vit_model.py compiled as `aot build --board <board> --int8` compiles it."""
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.target import build_target
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_model_file(MODEL_FILE, Recipe.from_options(["--int8"], build_target(board)))


def integer_reference_logits(compiled, x: np.ndarray) -> np.ndarray:
    """Logits of the int8 program run as Mote's Python integer reference (the PT2E model
    lowered to mote:: ops, aot/compiler/quant/int8ref.py), one image at a time."""
    import torch
    from aot.compiler.quant.lowering import int8_program
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod = int8_program(compiled.eager, compiled.example_inputs, converted=compiled.reference).module()
    with torch.no_grad():
        return np.concatenate([mod(torch.from_numpy(x[i:i + 1])).numpy().reshape(1, -1) for i in range(len(x))])


def evaluate(boards: Sequence[str] = BOARDS, limit: Optional[int] = None,
             out_root: Path = OUT_ROOT) -> Parity:
    """Every path on the first `limit` held-out images (all 450 by default)."""
    from aot.deploy.build import build_compiled
    x, y = demo.held_out(limit)
    r = None
    for board in boards:
        c = compile_vit(board)
        if r is None:
            r = Parity(y=y, eager=demo.eager_logits(c, x), pt2e=demo.reference_logits(c, x),
                       int8ref=integer_reference_logits(c, x))
        art = build_compiled(c, board, Path(out_root) / board, input_sets=demo.input_sets(x))
        run = demo.run_firmware(art.out_dir, len(x), board, show_progress=False)
        r.firmware[board] = demo.firmware_logits(run)
        r.host[board] = demo.host_logits(c, x)
        r.output_scale[board] = float(c.int8_info.output_qparams[0][0])
    return r


def report(r: Parity) -> str:
    n = len(r.y)
    lines = [f"digits ViT int8, {n} held-out images: eager fp32 {100 * r.accuracy(r.eager):.2f}%, "
             f"PT2E int8 {100 * r.accuracy(r.pt2e):.2f}%"]
    for board, fw in r.firmware.items():
        q = r.quanta(board)
        hist = ", ".join(f"{k}: {c}" for k, c in enumerate(np.bincount(q)) if c)
        lines.append(f"  {board} firmware {100 * r.accuracy(fw):.2f}%  top-1 = PT2E on "
                     f"{round(r.agreement(fw) * n)}/{n}  output quanta vs PT2E: max {q.max()}, "
                     f"mean of per-image max {q.mean():.2f} (images by max: {hist})  "
                     f"logits == host runtime bytes on {r.bytes_equal(board)}/{n}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m examples.digits.vit_parity", description=__doc__.splitlines()[0])
    ap.add_argument("--boards", nargs="+", default=list(BOARDS))
    ap.add_argument("--images", type=int, default=None, help="the first N held-out images (default all)")
    a = ap.parse_args(argv)
    demo.quiet_libraries()
    import torch
    torch.set_num_threads(1)
    print(report(evaluate(a.boards, a.images)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
