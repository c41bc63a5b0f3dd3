"""`aot demo` (`make demo`): handwritten digits on a simulated Cortex-M33, end to end.

    aot demo [--images N]          (runs python -m examples.digits.demo [--images N])

1. train (or load the cached) digits CNN of examples/digits on scikit-learn's
   8x8 digits;
2. compile examples/digits/model.py twice: fp32, and int8 (torchao PT2E);
3. build firmware like `aot build --board <board> [--int8] examples/digits/model.py`
   for the Raspberry Pi Pico 2 (a .uf2 ready to flash) and for QEMU's
   mps2-an505 (Cortex-M33 with DSP and FPU), with every held-out image
   embedded in flash as input sets;
4. boot the mps2-an505 firmware in QEMU (-icount: exact instruction counts)
   and run each held-out image through it, and the int8 program through the
   host runtime (libmote.so) as well;
5. print one table (accuracies, instructions per inference, an estimated
   Pico 2 latency, flash and RAM against each board's budget), draw a grid of
   held-out digits with their on-device labels, and check that
     * the int8 firmware's accuracy is within 1 percentage point of eager fp32,
     * the int8 firmware predicts exactly what the host runtime predicts,
     * the fp32 firmware's logits are within 1e-5 (relative) of eager PyTorch.
   Exits 1 when a check fails.

Outputs: build/demo/<board>-<fp32|int8>/ (one `aot build` directory each) and
build/demo/digits_predictions.png.

The functions below are the stages; tests/e2e/test_digits.py runs the same
pipeline on a subset of the held-out images.
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from aot.paths import ROOT
from aot.deploy.boards import load_board

MODEL_FILE = ROOT / "examples" / "digits" / "model.py"
OUT_ROOT = ROOT / "build" / "demo"
PNG_NAME = "digits_predictions.png"
#: The board QEMU runs, and the board the .uf2 is for.
SIM_BOARD = "mps2-an505"
FLASH_BOARD = "pico2"
#: Pico 2 core clock used for the latency estimate (RP2350 default, Hz).
PICO2_HZ = 150_000_000
#: Acceptance limits of the checks.
MAX_INT8_ACCURACY_DROP_PP = 1.0
MAX_FP32_REL_ERROR = 1e-5
STAGES = 5


# --------------------------------------------------------------------------- stages


def quiet_libraries() -> None:
    """Silence import-time chatter of torch/torchao that says nothing about the demo."""
    for name in ("torchao", "torch.utils._pytree", "torch._export", "torch.export"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)


def held_out(limit: Optional[int] = None) -> tuple:
    """The held-out images and labels of examples/digits (x [N,1,8,8] float32, y [N] int64),
    the first `limit` of them when given."""
    from examples.digits.data import load_split
    _, _, x_te, y_te = load_split()
    if limit is not None:
        x_te, y_te = x_te[:limit], y_te[:limit]
    return np.ascontiguousarray(x_te), np.ascontiguousarray(y_te)


def train_or_load():
    """The trained digits CNN (trained now unless build/digits holds the cached weights).
    Returns (model, trained_now, cache path)."""
    from examples.digits import train as T
    cache = ROOT / "build" / "digits" / f"digits_cnn-{T._recipe_hash()}.pt"
    trained_now = not cache.exists()
    model = T.trained_model(verbose=trained_now)
    return model, trained_now, cache


def compile_digits(int8: bool):
    """examples/digits/model.py compiled as `aot build --board mps2-an505 [--int8]`
    compiles it (aot.compiler.pipeline.Compiled; both demo boards are Cortex-M33s
    with DSP, so int8 convs carry pre-widened weights)."""
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.target import build_target
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile_model_file(MODEL_FILE, Recipe.from_options(["--int8"] if int8 else [],
                                                                  build_target(SIM_BOARD)))


def input_sets(x: np.ndarray) -> list:
    """One input set per image: [[x[i:i+1]] ...] (the program takes a [1,1,8,8] batch)."""
    return [[x[i:i + 1]] for i in range(len(x))]


def build_dir(out_root: Path, board: str, int8: bool) -> Path:
    return Path(out_root) / f"{board}-{'int8' if int8 else 'fp32'}"


def build_firmware_for(compiled, board: str, x: np.ndarray, out_root: Path):
    """`aot build --board <board> [--int8]` of `compiled`, with the images `x` embedded in flash.
    Returns aot.deploy.build.BuildArtifacts."""
    from aot.deploy.build import build_compiled
    return build_compiled(compiled, board, build_dir(out_root, board, compiled.int8),
                          input_sets=input_sets(x))


def run_firmware(out_dir: Path, n: int, label: str, show_progress: bool = True,
                 timeout: Optional[float] = None):
    """Boot the firmware of build directory `out_dir` in QEMU; one inference per embedded image.
    A tqdm bar advances as the firmware's OUT lines arrive. Returns aot.deploy.run.RunResult."""
    from aot.deploy.run import run_build
    timeout = timeout if timeout is not None else 120.0 + 0.5 * n
    if not show_progress:
        return run_build(out_dir, timeout=timeout)
    from tqdm import tqdm
    with tqdm(total=n, desc=label, unit="img", leave=True, dynamic_ncols=True,
              mininterval=0.25) as bar:
        result = run_build(out_dir, timeout=timeout, progress=lambda done: bar.update(done - bar.n))
        bar.update(n - bar.n)
    return result


def firmware_logits(result) -> np.ndarray:
    """The logits [N, 10] the firmware printed, one row per input set."""
    return np.concatenate([np.asarray(outs[0]).reshape(1, -1) for outs in result.outputs])


def eager_logits(compiled, x: np.ndarray) -> np.ndarray:
    """Eager PyTorch fp32 logits, one image at a time (the batch the program was exported with)."""
    import torch
    with torch.no_grad():
        return np.concatenate([compiled.eager(torch.from_numpy(x[i:i + 1])).numpy()
                               for i in range(len(x))])


def reference_logits(compiled, x: np.ndarray) -> np.ndarray:
    """Logits of compiled.reference: eager fp32, or for int8 the PT2E reference (convert_pt2e)."""
    import torch
    with torch.no_grad():
        return np.concatenate([compiled.reference(torch.from_numpy(x[i:i + 1])).numpy()
                               for i in range(len(x))])


def host_logits(compiled, x: np.ndarray) -> np.ndarray:
    """Logits of the host runtime: aot.host.runtime.Program(compiled.pte).method().run, per image."""
    from aot.host.runtime import Program
    method = Program(compiled.pte).method()
    return np.concatenate([np.asarray(method.run([x[i:i + 1]])[0]).reshape(1, -1)
                           for i in range(len(x))])


def predictions(logits: np.ndarray) -> np.ndarray:
    """Predicted class per row (first maximum on ties, as numpy's argmax)."""
    return np.asarray(logits).argmax(axis=1)


def accuracy(pred: np.ndarray, y: np.ndarray) -> float:
    """Fraction of predictions equal to the labels."""
    pred, y = np.asarray(pred), np.asarray(y)
    if pred.shape != y.shape or pred.size == 0:
        raise ValueError(f"predictions {pred.shape} vs labels {y.shape}")
    return float(np.count_nonzero(pred == y)) / float(y.size)


def max_rel_error(outputs: np.ndarray, reference: np.ndarray) -> float:
    """Largest per-image relative error max|out - ref| / max|ref| (aot.tools.compare's definition)."""
    from aot.tools.compare import error_stats
    return max(error_stats([o], [r])["max_rel_error"] for o, r in zip(outputs, reference))


def pico2_latency_ms(cycles: float) -> float:
    """ESTIMATE: Cortex-M33 cycles (aot.deploy.cycles) / 150 MHz, in ms."""
    return 1e3 * float(cycles) / PICO2_HZ


def estimated_cycles(compiled, board: str, x: np.ndarray, out_root: Path) -> int:
    """Estimated Cortex-M33 cycles of one inference (aot.deploy.cycles: the
    instruction trace of a run priced per instruction class), from a build
    with only the first image: the demo's 450-image firmware would make a
    trace of several GB."""
    from aot.deploy.build import build_compiled
    from aot.deploy.cycles import trace_firmware
    out = out_root / f"cycles-{board}-{'int8' if compiled.int8 else 'fp32'}"
    art = build_compiled(compiled, board, out, input_sets=input_sets(x[:1]))
    est = trace_firmware(art.elf, board)
    return est.cycles // max(est.runs, 1)


def plot_predictions(x: np.ndarray, y: np.ndarray, pred: np.ndarray, path: Path,
                     title: str, max_tiles: int = 120, cols: int = 12) -> dict:
    """A grid of held-out digits labelled "true → device". Every mistake is shown (red frame,
    red bold label); the rest of the grid is filled with correct images in held-out order.
    Writes a PNG (matplotlib, Agg). Returns {"path", "shown", "mistakes_shown"}.

    The digits are pasted into one image drawn by a single imshow (120 subplots
    take seconds to lay out; one axes takes a fraction of that)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    y, pred = np.asarray(y), np.asarray(pred)
    wrong = np.flatnonzero(pred != y)
    right = np.flatnonzero(pred == y)
    room = max(0, max_tiles - len(wrong))
    shown = np.sort(np.concatenate([wrong, right[:room]]))
    n = len(shown)
    cols = max(1, min(cols, n))
    rows = max(1, -(-n // cols))
    px, gap, top = 8, 2, 3           # digit pixels, gap between tiles, label band above a tile
    cw, ch = px + gap, px + gap + top
    canvas = np.zeros((rows * ch, cols * cw), dtype=np.float32)
    fig, ax = plt.subplots(figsize=(0.088 * cw * cols + 0.3, 0.085 * ch * rows + 0.9))
    for k, i in enumerate(shown):
        r, c = divmod(k, cols)
        y0, x0 = r * ch + top, c * cw + 1
        canvas[y0:y0 + px, x0:x0 + px] = np.asarray(x[i]).reshape(px, px)
    ax.imshow(canvas, cmap="gray_r", vmin=0.0, vmax=1.0, interpolation="nearest")
    for k, i in enumerate(shown):
        r, c = divmod(k, cols)
        y0, x0 = r * ch + top, c * cw + 1
        bad = bool(pred[i] != y[i])
        ax.add_patch(Rectangle((x0 - 0.5, y0 - 0.5), px, px, fill=False,
                               edgecolor="#d00000" if bad else "#b0b0b0",
                               linewidth=2.5 if bad else 0.6))
        ax.text(x0 + px / 2 - 0.5, y0 - 1.2, f"{y[i]} → {pred[i]}", ha="center", va="bottom",
                fontsize=10, color="#c00000" if bad else "#1a1a1a",
                fontweight="bold" if bad else "normal")
    ax.set_axis_off()
    ax.set_title(title, fontsize=11)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return {"path": path, "shown": n, "mistakes_shown": int(len(wrong))}


# --------------------------------------------------------------------------- pipeline


@dataclass
class BuildRow:
    """One firmware build: where it is and what it costs."""
    board: str
    dtype: str                 # "fp32" | "int8"
    out_dir: Path
    size: dict                 # size.json
    uf2: Optional[Path] = None


@dataclass
class DemoResult:
    n_images: int
    y: np.ndarray
    eager: np.ndarray          # eager fp32 logits [N, 10]
    pt2e: np.ndarray           # PT2E int8 reference logits
    host_int8: np.ndarray      # host runtime (libmote.so) int8 program logits
    fw_fp32: np.ndarray        # mps2-an505 firmware logits
    fw_int8: np.ndarray
    instr_fp32: list           # instructions per inference, per image
    instr_int8: list
    builds: list = field(default_factory=list)   # BuildRow
    cycles: dict = field(default_factory=dict)   # "fp32"/"int8" -> estimated M33 cycles, one image
    png: Optional[dict] = None
    seconds: dict = field(default_factory=dict)

    @property
    def accuracies(self) -> dict:
        return {k: accuracy(predictions(v), self.y) for k, v in (
            ("eager_fp32", self.eager), ("pt2e_int8", self.pt2e), ("host_int8", self.host_int8),
            ("firmware_fp32", self.fw_fp32), ("firmware_int8", self.fw_int8))}

    def checks(self) -> list:
        """[(name, passed, detail)] for the three acceptance checks."""
        acc = self.accuracies
        drop = 100.0 * abs(acc["firmware_int8"] - acc["eager_fp32"])
        same = predictions(self.fw_int8) == predictions(self.host_int8)
        bits = [a.tobytes() == b.tobytes() for a, b in zip(self.fw_int8, self.host_int8)]
        rel = max_rel_error(self.fw_fp32, self.eager)
        return [
            ("int8 firmware accuracy within 1 pp of eager fp32",
             drop <= MAX_INT8_ACCURACY_DROP_PP,
             f"{100 * acc['firmware_int8']:.2f}% vs {100 * acc['eager_fp32']:.2f}%: "
             f"{drop:.2f} pp (limit {MAX_INT8_ACCURACY_DROP_PP:g} pp)"),
            ("int8 firmware predictions == host runtime (libmote.so) predictions",
             bool(same.all()),
             f"{int(same.sum())}/{len(same)} images agree; logits bit-identical for "
             f"{sum(bits)}/{len(bits)}"),
            ("fp32 firmware logits match eager PyTorch",
             rel <= MAX_FP32_REL_ERROR,
             f"max relative error {rel:.2e} (limit {MAX_FP32_REL_ERROR:g})"),
        ]


class Stages:
    """Prints "[k/5] what..." headers and the time each stage took."""

    def __init__(self, total: int = STAGES, echo: Callable[[str], None] = print):
        self.total, self.k, self.echo = total, 0, echo
        self.t0 = self.t = time.time()
        self.seconds: dict = {}
        self.name: Optional[str] = None

    def start(self, name: str, what: str) -> None:
        self.done()
        self.k += 1
        self.name, self.t = name, time.time()
        self.echo("")
        self.echo(f"[{self.k}/{self.total}] {what}")

    def done(self) -> None:
        if self.name is not None:
            dt = time.time() - self.t
            self.seconds[self.name] = dt
            self.echo(f"      ({self.name}: {dt:.1f} s)")
            self.name = None


def run_pipeline(limit: Optional[int] = None, out_root: Path = OUT_ROOT,
                 boards: Sequence[str] = (FLASH_BOARD, SIM_BOARD), show_progress: bool = True,
                 echo: Callable[[str], None] = print) -> DemoResult:
    """The whole demo on the first `limit` held-out images (all 450 by default).
    `boards` must include SIM_BOARD (the one QEMU runs)."""
    if SIM_BOARD not in boards:
        raise ValueError(f"boards must include {SIM_BOARD!r}, the board QEMU runs")
    out_root = Path(out_root)
    stages = Stages(echo=echo)
    x, y = held_out(limit)
    n = len(x)

    stages.start("train", "training the digits CNN (examples/digits, cached in build/digits)...")
    model, trained_now, cache = train_or_load()
    echo(f"      {'trained and saved' if trained_now else 'loaded cached weights'}: "
         f"{_rel(cache)}")

    stages.start("compile", "compiling examples/digits/model.py: fp32, and int8 (torchao PT2E, "
                            "calibrated on 128 training images)...")
    compiled = {}
    for int8 in (False, True):
        c = compile_digits(int8)
        compiled[int8] = c
        echo(f"      {'int8' if int8 else 'fp32'}: {c.summary()}")

    stages.start("build", f"building firmware with the {n} held-out images embedded in flash...")
    builds = []
    for board in boards:
        for int8 in ((True, False) if board == FLASH_BOARD else (False, True)):
            c = compiled[int8]
            art = build_firmware_for(c, board, x, out_root)
            row = BuildRow(board=board, dtype="int8" if int8 else "fp32", out_dir=art.out_dir,
                           size=art.size, uf2=art.uf2)
            builds.append(row)
            echo(f"      aot build --board {board}{' --int8' if int8 else ''} "
                 f"examples/digits/model.py -> {_rel(art.out_dir)}/")
            if art.uf2 is not None:
                echo(f"        firmware.uf2 ready to flash: {art.uf2}")

    stages.start("run", f"running all {n} held-out images on {SIM_BOARD} (Cortex-M33) in QEMU, "
                        "and on the host (Mote runtime, eager PyTorch, PT2E reference)...")
    runs, cycles = {}, {}
    for int8 in (False, True):
        dtype = "int8" if int8 else "fp32"
        runs[int8] = run_firmware(build_dir(out_root, SIM_BOARD, int8), n,
                                  f"      {SIM_BOARD} {dtype}", show_progress)
        cycles[dtype] = estimated_cycles(compiled[int8], SIM_BOARD, x, out_root)
    host = host_logits(compiled[True], x)
    eager = eager_logits(compiled[False], x)
    pt2e = reference_logits(compiled[True], x)

    stages.start("report", "results")
    result = DemoResult(n_images=n, y=y, eager=eager, pt2e=pt2e, host_int8=host,
                        fw_fp32=firmware_logits(runs[False]), fw_int8=firmware_logits(runs[True]),
                        instr_fp32=list(runs[False].cycles), instr_int8=list(runs[True].cycles),
                        builds=builds, cycles=cycles)
    pred = predictions(result.fw_int8)
    wrong = int(np.count_nonzero(pred != y))
    title = (f"Held-out digits on the {SIM_BOARD} int8 firmware (QEMU): {n - wrong}/{n} correct\n"
             f"label: true → on-device; every mistake in red ({wrong}), "
             f"the rest in held-out order")
    result.png = plot_predictions(x, y, pred, out_root / PNG_NAME, title)
    stages.done()
    result.seconds = dict(stages.seconds, total=time.time() - stages.t0)
    return result


# --------------------------------------------------------------------------- report


def _rel(path) -> str:
    path = Path(path)
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%"


def format_table(r: DemoResult) -> str:
    """The demo's table: accuracy, instructions, estimated Pico 2 latency, flash and RAM."""
    acc = r.accuracies
    n = r.n_images
    i32, i8 = float(np.mean(r.instr_fp32)), float(np.mean(r.instr_int8))
    by = {(b.board, b.dtype): b for b in r.builds}

    def correct(key):
        return f"{100 * acc[key]:6.2f}% ({round(acc[key] * n)}/{n})"

    def size(board, dtype):
        b = by.get((board, dtype))
        if b is None:
            return "-", "-"
        s = b.size
        fl = f"{s['flash_bytes']:,} / {s['flash_size']:,} ({_pct(s['flash_bytes'], s['flash_size'])})"
        ram = f"{s['ram_bytes']:,} / {s['ram_size']:,} ({_pct(s['ram_bytes'], s['ram_size'])})"
        return fl, ram

    head = ("", "held-out accuracy", "instr./inference", "Pico 2 latency*",
            "flash B used / budget", "RAM B used / budget")
    rows = [
        ("eager PyTorch fp32 (host)", correct("eager_fp32"), "-", "-", "-", "-"),
        ("PT2E int8 reference (host)", correct("pt2e_int8"), "-", "-", "-", "-"),
        ("Mote host runtime int8", correct("host_int8"), "-", "-", "-", "-"),
    ]
    for dtype, key, instr in (("fp32", "firmware_fp32", i32), ("int8", "firmware_int8", i8)):
        fl, ram = size(SIM_BOARD, dtype)
        est = r.cycles.get(dtype)
        rows.append((f"firmware {dtype}  {SIM_BOARD} (QEMU)", correct(key), f"{instr:,.0f}",
                     f"~{pico2_latency_ms(est):.2f} ms" if est else "-", fl, ram))
    for dtype in ("fp32", "int8"):
        if (FLASH_BOARD, dtype) in by:
            fl, ram = size(FLASH_BOARD, dtype)
            rows.append((f"firmware {dtype}  {FLASH_BOARD} (.uf2)", "not simulated", "(as above)",
                         "", fl, ram))
    widths = [max(len(str(row[k])) for row in rows + [head]) for k in range(len(head))]
    fmt = lambda row: "  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w)  # noqa: E731
                                for k, (c, w) in enumerate(zip(row, widths)))
    lines = [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(row) for row in rows]
    rng32 = f"{min(r.instr_fp32):,}..{max(r.instr_fp32):,}"
    rng8 = f"{min(r.instr_int8):,}..{max(r.instr_int8):,}"
    inputs = next((b.size["flash"].get("inputs", 0) for b in r.builds), 0)
    lines += [
        "",
        f"instructions: exact counts from QEMU -icount on {SIM_BOARD} (Cortex-M33, DSP + FPU), mean over"
        f" {n} images (fp32 {rng32}, int8 {rng8}).",
        "* ESTIMATE, not a measurement: Cortex-M33 cycles priced per instruction class from the"
        f" instruction trace of one image (aot.deploy.cycles: int8 {r.cycles.get('int8', 0):,},"
        f" fp32 {r.cycles.get('fp32', 0):,} cycles) / {PICO2_HZ / 1e6:.0f} MHz.",
        "  Not modelled: XIP flash wait states and cache misses, bus contention; the .uf2 prints the"
        " measured DWT cycles of each image on UART0 (GP0, 115200 baud).",
        f"flash includes the {n} embedded test images ({inputs:,} B); RAM is the static total"
        " (arena + runtime state + scratch + stack + the rest); nothing is allocated at run time.",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    """`python -m examples.digits.demo [--images N] [--no-progress]`, what `aot demo` runs."""
    from aot.tools.demo import add_demo_arguments
    ap = argparse.ArgumentParser(prog="aot demo", description=__doc__.splitlines()[0])
    add_demo_arguments(ap)
    return demo_command(ap.parse_args(argv))


def demo_command(args) -> int:
    """`aot demo [--images N] [--no-progress]` (see the module docstring); exit status 1
    when a check fails."""
    quiet_libraries()
    import torch
    # The models here are tiny: a second intra-op thread only adds contention.
    torch.set_num_threads(1)
    print("Mote demo: handwritten digits (scikit-learn 8x8) on a simulated Cortex-M33 "
          f"({SIM_BOARD} in QEMU) and a Pico 2 image")
    from aot.errors import MoteError
    try:
        r = run_pipeline(limit=args.images, show_progress=not args.no_progress)
    except MoteError as exc:
        print(f"demo: error: {exc}", file=sys.stderr)
        return 1
    print()
    print(format_table(r))
    print()
    print(f"picture: {r.png['path']}  ({r.png['shown']} digits, {r.png['mistakes_shown']} mistakes"
          " highlighted in red)")
    for b in r.builds:
        if b.uf2 is not None:
            print(f"Pico 2 firmware ({b.dtype}), ready to flash: {b.uf2}")
    print()
    failed = 0
    for name, ok, detail in r.checks():
        print(f"check {'PASS' if ok else 'FAIL'}: {name}: {detail}")
        failed += not ok
    s = r.seconds
    print("\ntime: " + ", ".join(f"{k} {v:.1f} s" for k, v in s.items() if k != "total")
          + f"; total {s['total']:.1f} s")
    if failed:
        print(f"demo: {failed} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
