"""`make kws-demo`: the keyword spotter of examples/kws end to end on a simulated
Cortex-M33, one 10 ms hop at a time.

1. the espeak-ng dataset and the trained network (examples.kws.dataset / train:
   both cached under build/kws; made first when missing);
2. eager fp32 accuracy on the held-out voices (the "test" split: voices never
   heard in training) from the whole clips' log-mel features;
3. the streaming int8 program (examples/kws/kws_stream.py --int8), built for
   mps2-an505 (QEMU's Cortex-M33) reading its hops from the UART, and for the
   Pico 2 (sizes);
4. every held-out clip hop by hop (100 hops of int16[1,160]; "R" resets the
   state before each clip) through (a) Mote's host C runtime, the int8
   reference, and (b) the firmware in QEMU, several QEMUs side by side;
5. the figures: accuracy (eager fp32, int8 host runtime, firmware), the
   firmware's confusion matrix as a PNG, QEMU's instructions per hop (-icount:
   exact), the Pico 2 estimate (the Cortex-M33 cost model of aot.deploy.cycles
   over a traced run, at the Pico 2's clock) in ms per hop and as a share of
   the 10 ms hop, flash and RAM (size.json).

Exits 1 when the firmware's output bytes differ from the host runtime's for any
hop (naming the first), or when a step fails (one line); 130 on Ctrl-C.

    python -m examples.kws.demo [--clips N] [--jobs N] [-o build/kws]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MODEL_FILE = HERE / "kws_stream.py"
SIM_BOARD, PICO2 = "mps2-an505", "pico2"
HOP_MS = 10.0
#: hops of the first held-out clip that the traced run (the Pico 2 estimate) runs
TRACE_HOPS = 8
PROG = "kws-demo"


class DemoError(RuntimeError):
    """A step failed: one line for the user."""


class _Cancelled(Exception):
    """Ctrl-C: the QEMU workers stop."""


# --------------------------------------------------------------------------- data


def held_out(data: dict, clips) -> np.ndarray:
    """Indices of the held-out ("test") clips: all, or the first `clips` of them taken
    class by class in turn (each class's clips in the dataset's order, voice after
    voice), so a short run has every class and several voices."""
    test = np.flatnonzero(data["split"] == 2)
    if clips is None or clips >= len(test):
        return test
    labels = data["label"][test]
    rank = np.zeros(len(test), np.int64)
    for k in np.unique(labels):
        rank[labels == k] = np.arange(int((labels == k).sum()))
    order = np.lexsort((labels, rank))          # rank first, then label
    return np.sort(test[order[:clips]])


def hops_of(audio: np.ndarray) -> np.ndarray:
    """int16 clips [N, 16000] -> the stream's hops int16 [N, HOPS, 1, HOP] (model.stream_input)."""
    import torch
    from examples.kws import model as km
    x = km.stream_input(torch.from_numpy(audio)).numpy()
    return np.ascontiguousarray(x.reshape(len(audio), km.HOPS, 1, km.HOP))


# --------------------------------------------------------------------------- the three runs


def eager_scores(net, audio: np.ndarray) -> np.ndarray:
    """fp32 scores [N, classes] of the trained network on whole clips (train.features:
    the log-mel frames the stream computes hop by hop)."""
    import torch
    from examples.kws import train as kt
    with torch.no_grad():
        return net(kt.features(audio)).numpy()


def host_outputs(pte: bytes, hops: np.ndarray, stop: threading.Event) -> tuple:
    """(output bytes of every hop on Mote's host runtime: uint8 [N, HOPS, nbytes], the
    state reset before each clip; the output's numpy dtype)."""
    from aot import progress
    from aot.host.runtime import Program
    method = Program(pte).method()
    dtype = method.output_info(0).dtype
    out = None
    with progress.bar("int8 host runtime", len(hops) * hops.shape[1], "hop") as bar:
        for c, clip in enumerate(hops):
            method.reset_state()
            for h, hop in enumerate(clip):
                if stop.is_set():
                    raise KeyboardInterrupt
                b = np.asarray(method.run([hop])[0]).tobytes()
                if out is None:
                    out = np.zeros((len(hops), hops.shape[1], len(b)), np.uint8)
                out[c, h] = np.frombuffer(b, np.uint8)
            bar.update(len(clip))
    return out, np.dtype(dtype)


def _stdin(hops: np.ndarray, stop: threading.Event):
    """The UART lines for clips `hops`: "R", then a clip's hops as "I <hex>" lines, per
    clip; "Q" at the end (or as soon as the run is cancelled)."""
    from aot.deploy.protocol import QUIT_LINE, RESET_LINE, input_line
    for clip in hops:
        if stop.is_set():
            break
        yield RESET_LINE
        for hop in clip:
            yield input_line([hop])
    yield QUIT_LINE


def firmware_outputs(elf: Path, hops: np.ndarray, nbytes: int, jobs: int, stop: threading.Event,
                     log=print) -> tuple:
    """(output bytes uint8 [N, HOPS, nbytes], instructions int64 [N, HOPS]) of every hop on
    the firmware in QEMU: the clips split over `jobs` QEMUs, each reading its clips'
    lines (aot.deploy.qemu.run_firmware_streaming streams them in while reading the
    OUT lines). Raises DemoError when a QEMU stops early or says something else."""
    from aot import progress
    from aot.deploy.boards import load_board
    from aot.deploy.protocol import parse_line
    from aot.deploy.qemu import run_firmware_streaming
    from aot.errors import MoteError
    board = load_board(SIM_BOARD)
    n, per = hops.shape[0], hops.shape[1]
    outs = np.zeros((n, per, nbytes), np.uint8)
    counts = np.zeros((n, per), np.int64)
    jobs = max(1, min(jobs, n))
    bounds = np.linspace(0, n, jobs + 1).round().astype(int)
    lock = threading.Lock()
    done = [0]
    bar = progress.bar(f"firmware in QEMU ({jobs} at once)", n * per, "hop")
    t0 = time.monotonic()
    step = max(1, n // 10)

    def clip_done() -> None:
        with lock:
            done[0] += 1
            if not progress.enabled() and (done[0] % step == 0 or done[0] == n):
                log(f"      firmware: {done[0]}/{n} clips ({time.monotonic() - t0:.0f} s)")

    def worker(lo: int, hi: int) -> None:
        seen = {"out": 0, "reset": 0}

        def on_line(line: str) -> None:
            if stop.is_set():
                raise _Cancelled
            if line.startswith("OUT "):
                k = seen["out"]
                c, h = lo + k // per, k % per
                parts = line.split(" ", 3)
                if c >= hi or len(parts) != 4 or len(parts[3]) != 2 * nbytes:
                    raise DemoError(f"unexpected firmware line after {k} hops: {line[:120]}")
                outs[c, h] = np.frombuffer(bytes.fromhex(parts[3]), np.uint8)
                counts[c, h] = int(parts[2])
                seen["out"] = k + 1
                bar.update(1)
                if h == per - 1:
                    clip_done()
            elif line.startswith("MOTE RESET"):
                if seen["out"] != seen["reset"] * per:
                    raise DemoError(f"MOTE RESET after {seen['out']} hops, not at a clip's start")
                seen["reset"] += 1
            elif parse_line(line)["event"] == "error":
                raise DemoError(f"the firmware reported {line.strip()} after {seen['out']} hops")

        timeout = 120.0 + 2.0 * (hi - lo) * per   # ~0.02-0.05 s a hop here: ample
        try:
            code, text = run_firmware_streaming(elf, board, timeout_s=timeout, on_line=on_line,
                                                stdin_bytes=_stdin(hops[lo:hi], stop))
        except MoteError as e:
            raise DemoError(str(e).splitlines()[0]) from None
        complete = code == 0 and seen["out"] == (hi - lo) * per and seen["reset"] == hi - lo
        # Ctrl-C on a terminal reaches the QEMUs too (they end at once, status 0): give the
        # main thread a moment to say so, so the run reads as interrupted, not failed
        if stop.is_set() or (not complete and stop.wait(1.0)):
            raise _Cancelled
        if not complete:
            tail = " | ".join(text.strip().splitlines()[-3:])
            raise DemoError(f"the firmware (clips {lo}..{hi - 1}) exited with status {code} after "
                            f"{seen['out']} of {(hi - lo) * per} hops and {seen['reset']} resets: {tail}")

    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(worker, int(bounds[j]), int(bounds[j + 1])) for j in range(jobs)]
            try:
                for f in futures:
                    while True:
                        try:
                            f.result(timeout=0.5)   # a short wait: Ctrl-C gets through
                            break
                        except TimeoutError:
                            continue
            except BaseException:
                stop.set()   # the other workers' next line (or input) ends their QEMU
                raise
    finally:
        bar.close()
    return outs, counts


# --------------------------------------------------------------------------- builds, estimate


def build(compiled, board: str, out: Path, **kw):
    from aot.deploy.build import build_compiled
    return build_compiled(compiled, board, out, **kw)


def pico2_estimate(compiled, hops: np.ndarray, out: Path) -> tuple:
    """(estimated Cortex-M33 cycles per hop, cycles per instruction) from a traced
    run of the first TRACE_HOPS hops of one clip, from a reset state (a build with
    those hops embedded: aot.deploy.cycles.trace_firmware, as `aot run
    --estimate-cycles`)."""
    from aot.deploy.boards import load_board
    from aot.deploy.cycles import trace_firmware
    build(compiled, SIM_BOARD, out, input_sets=[[h] for h in hops[:TRACE_HOPS]])
    est = trace_firmware(out / "firmware.elf", load_board(SIM_BOARD))
    if est.runs != TRACE_HOPS:
        raise DemoError(f"the traced run made {est.runs} inferences, not {TRACE_HOPS}")
    return est.cycles / est.runs, est.cycles_per_instruction, est.costs


def confusion(labels: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    m = np.zeros((k, k), np.int64)
    np.add.at(m, (labels, pred), 1)
    return m


def confusion_png(m: np.ndarray, names, title: str, path: Path) -> None:
    """The confusion matrix (rows: true label, columns: predicted) as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 6.5), dpi=110)
    share = m / np.maximum(m.sum(1, keepdims=True), 1)
    ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j]:
                ax.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if share[i, j] > 0.5 else "black")
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("spoken")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def confusion_text(m: np.ndarray, names) -> str:
    w = max(4, len(str(m.max())) + 1)
    head = " " * 9 + "".join(f"{n[:w - 1]:>{w}}" for n in names)
    rows = [f"{n:>8s} " + "".join(f"{v:>{w}}" if v else f"{'.':>{w}}" for v in row) for n, row in zip(names, m)]
    return "\n".join([head] + rows)


# --------------------------------------------------------------------------- main


def run(a, log=print) -> int:
    from aot.cli import _quiet_dependencies
    _quiet_dependencies()
    from aot.compiler.pipeline import compile_model_file
    from aot.compiler.recipe import Recipe
    from aot.deploy.boards import load_board
    from examples.kws import dataset as ds
    from examples.kws import train as kt
    t0 = time.time()
    out = a.output_dir
    if out.exists() and not out.is_dir():
        raise DemoError(f"-o {out} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()

    log("[1/6] dataset and trained network (build/kws; made once when missing)")
    data = ds.load()
    net = kt.load(log=lambda s: log("      " + s))
    idx = held_out(data, a.clips)
    labels = data["label"][idx]
    n = len(idx)
    voices = len({v.split("+")[1] for v in data["voice"][idx]})
    log(f"      held-out: {n} clips of {voices} voice{'s' if voices != 1 else ''} no training clip has")

    log("[2/6] eager fp32 accuracy (whole clips)")
    eager = eager_scores(net, data["audio"][idx]).argmax(1)

    log("[3/6] export: the streaming program, int8 (kws_stream.py --int8), and the firmware")
    # the program `aot build --board mps2-an505 --int8` ships: the recipe resolved for
    # the board (its DSP kernels take conv weights pre-widened in flash); the Pico 2 is
    # the same Cortex-M33, so one program serves both builds
    recipe = Recipe.from_options(["--int8"], target=load_board(SIM_BOARD))
    compiled = compile_model_file(MODEL_FILE, recipe)
    (out / "kws_stream_int8.pte").write_bytes(compiled.pte)
    fw = build(compiled, SIM_BOARD, out / f"fw-{SIM_BOARD}", uart_inputs=True)
    pico = build(compiled, PICO2, out / f"fw-{PICO2}", uart_inputs=True)

    hops = hops_of(data["audio"][idx])
    per = hops.shape[1]
    log(f"[4/6] int8 reference: {n} clips x {per} hops on Mote's host runtime (the same .pte)")
    host, dtype = host_outputs(compiled.pte, hops, stop)
    nbytes = host.shape[2]

    log(f"[5/6] firmware: {n} clips x {per} hops through {SIM_BOARD} (Cortex-M33) in QEMU, "
        f"\"R\" before each clip")
    t_fw = time.time()
    fwout, counts = firmware_outputs(out / f"fw-{SIM_BOARD}" / "firmware.elf", hops, nbytes, a.jobs, stop, log)
    t_fw = time.time() - t_fw
    same = np.all(fwout == host, axis=2)

    log(f"[6/6] Pico 2 estimate: a traced run of {TRACE_HOPS} hops (Cortex-M33 cost model)")
    cyc_hop, cpi, costs = pico2_estimate(compiled, hops[0], out / "fw-trace")

    def acc(scores_bytes):
        scores = scores_bytes[:, -1].copy().view(dtype).reshape(n, -1)   # the clip's last hop
        return scores.argmax(1)
    host_pred, fw_pred = acc(host), acc(fwout)
    names = ds.LABELS
    m = confusion(labels, fw_pred, len(names))
    fw_acc = float((fw_pred == labels).mean())
    png = out / "confusion_firmware.png"
    confusion_png(m, names, f"firmware ({SIM_BOARD} in QEMU, int8): {100 * fw_acc:.1f} % of {n} "
                  f"held-out clips", png)

    hz = load_board(PICO2).clock_hz
    ms = counts * cpi / hz * 1e3
    log("")
    log(f"accuracy on the held-out voices ({n} clips, {voices} voice{'s' if voices != 1 else ''}):")
    for name, pred in (("eager fp32", eager), ("int8, host runtime", host_pred),
                       (f"firmware ({SIM_BOARD})", fw_pred)):
        log(f"  {name:24s} {100 * float((pred == labels).mean()):6.2f} %")
    log(f"  firmware - eager fp32    {100 * (fw_acc - float((eager == labels).mean())):+6.2f} points")
    log(f"confusion matrix of the firmware: {png}")
    log(confusion_text(m, names))
    log(f"per hop ({HOP_MS:g} ms of audio), {counts.size:,} hops in QEMU:")
    log(f"  instructions (QEMU -icount)  min {counts.min():,}  mean {counts.mean():,.0f}  "
        f"max {counts.max():,}")
    log(f"  Pico 2 ESTIMATE at {hz / 1e6:.0f} MHz: {ms.mean():.2f} ms mean (min {ms.min():.2f}, "
        f"max {ms.max():.2f}) = {100 * ms.mean() / HOP_MS:.1f} % of the {HOP_MS:g} ms hop "
        f"(max {100 * ms.max() / HOP_MS:.1f} %); {cyc_hop:,.0f} cycles per traced hop, "
        f"{cpi:.3f} cycles/instruction")
    log(f"    ({costs.label} cost model; assumes {costs.memory})")
    for name, art in ((SIM_BOARD, fw), (PICO2, pico)):
        board = load_board(name)
        s = art.size
        log(f"  {name:10s} flash {s['flash_bytes']:,} of {board.flash.size:,} B "
            f"({100 * s['flash_bytes'] / board.flash.size:.1f} %), RAM {s['ram_bytes']:,} of "
            f"{board.ram.size:,} B ({100 * s['ram_bytes'] / board.ram.size:.1f} %)")
    record = {"clips": n, "hops": int(counts.size), "voices": voices,
              "accuracy": {"eager_fp32": float((eager == labels).mean()),
                           "int8_host": float((host_pred == labels).mean()), "firmware": fw_acc},
              "bytes_equal_hops": int(same.sum()), "confusion_firmware": m.tolist(), "labels": list(names),
              "instructions_per_hop": {"min": int(counts.min()), "mean": float(counts.mean()),
                                       "max": int(counts.max())},
              "pico2_estimate": {"clock_hz": hz, "cycles_per_instruction": cpi, "traced_hops": TRACE_HOPS,
                                 "cycles_per_traced_hop": cyc_hop, "ms_per_hop_mean": float(ms.mean()),
                                 "ms_per_hop_max": float(ms.max()), "share_of_hop": float(ms.mean() / HOP_MS)},
              "size": {SIM_BOARD: {k: fw.size[k] for k in ("flash_bytes", "ram_bytes")},
                       PICO2: {k: pico.size[k] for k in ("flash_bytes", "ram_bytes")}},
              "firmware_seconds": t_fw, "jobs": a.jobs, "seconds": time.time() - t0}
    (out / "demo.json").write_text(json.dumps(record, indent=1) + "\n")
    log(f"figures: {out / 'demo.json'}")
    log(f"firmware run {t_fw:.0f} s ({1e3 * t_fw / counts.size:.1f} ms of wall time a hop, {a.jobs} QEMU at once); "
        f"done in {time.time() - t0:.0f} s")
    if not same.all():
        c, h = np.argwhere(~same)[0]
        log(f"{PROG}: the firmware's output bytes differ from the host runtime's in "
            f"{int((~same).sum())} of {same.size} hops; first: clip {int(idx[c])} "
            f"(held-out #{int(c)}), hop {int(h)}: firmware {fwout[c, h].tobytes().hex()} "
            f"host {host[c, h].tobytes().hex()}")
        return 1
    log(f"the firmware's output bytes equal the host runtime's for all {same.size:,} hops")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m examples.kws.demo", description=__doc__.split("\n")[0])
    p.add_argument("--clips", type=int, default=None,
                   help="run N held-out clips spread over the split (default: all)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="QEMUs side by side, each running a share of the clips (default: the CPUs)")
    p.add_argument("-o", "--output-dir", type=Path, default=Path("build/kws"))
    a = p.parse_args(argv)
    if a.clips is not None and a.clips < 1 or a.jobs < 1:
        print(f"{PROG}: --clips and --jobs take a positive number", file=sys.stderr)
        return 2
    a.output_dir = a.output_dir.resolve()
    from aot.errors import MoteError
    from examples.kws.dataset import DatasetError
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)   # the dataset's and the weights' caches are build/kws of the tree
        return run(a)
    except (KeyboardInterrupt, _Cancelled):
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except (DemoError, MoteError, DatasetError) as e:
        print(f"{PROG}: {str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}",
              file=sys.stderr)
        return 1
    finally:
        os.chdir(cwd)


if __name__ == "__main__":
    sys.exit(main())
