"""Portable fp32 kernels: side-by-side timings (not a test; asserts nothing).

  .venv/bin/python benchmarks/bench_kernels.py [--reps N] [--no-models]

1. Convolution layers of ResNet-8, DS-CNN and MobileNetV1-0.25: Mote's
   aten::convolution.out (through ctypes) vs torch.nn.functional.conv2d, one thread.
2. Whole zoo models: ExecuTorch's portable program for the model, run op by op
   on Mote's kernels (ctypes; per-call overhead of ~1 us included) vs eager PyTorch,
   beside the ExecuTorch 1.5.1 portable-kernel figures measured for the project.
The kernel library is built with the test flags (-O3, no -march; --cflags adds more).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.kernels.kernels_ffi import Kernels, build_lib  # noqa: E402

#: ExecuTorch 1.5.1 portable kernels, 1 thread (µs), as measured for the project brief
ET_PORTABLE_US = {"ds_cnn": 10_059, "mobilenet_v1_025": 29_565, "resnet8": 34_876}

# (label, cin, cout, h, w, kh, kw, stride, pad_h, pad_w, groups)
LAYERS = [
    ("resnet8 stem 3->16 32x32", 3, 16, 32, 32, 3, 3, 1, 1, 1, 1),
    ("resnet8 s1 16->16 32x32", 16, 16, 32, 32, 3, 3, 1, 1, 1, 1),
    ("resnet8 s2a 16->32 s2", 16, 32, 32, 32, 3, 3, 2, 1, 1, 1),
    ("resnet8 s2b 32->32 16x16", 32, 32, 16, 16, 3, 3, 1, 1, 1, 1),
    ("resnet8 s2 shortcut 1x1 s2", 16, 32, 32, 32, 1, 1, 2, 0, 0, 1),
    ("resnet8 s3a 32->64 s2", 32, 64, 16, 16, 3, 3, 2, 1, 1, 1),
    ("resnet8 s3b 64->64 8x8", 64, 64, 8, 8, 3, 3, 1, 1, 1, 1),
    ("ds_cnn conv1 1->64 10x4 s2", 1, 64, 49, 10, 10, 4, 2, 5, 1, 1),
    ("ds_cnn dw 64 3x3 25x5", 64, 64, 25, 5, 3, 3, 1, 1, 1, 64),
    ("ds_cnn pw 64->64 25x5", 64, 64, 25, 5, 1, 1, 1, 0, 0, 1),
    ("mbv1 conv1 3->8 s2 96x96", 3, 8, 96, 96, 3, 3, 2, 1, 1, 1),
    ("mbv1 dw 8 3x3 48x48", 8, 8, 48, 48, 3, 3, 1, 1, 1, 8),
    ("mbv1 pw 8->16 48x48", 8, 16, 48, 48, 1, 1, 1, 0, 0, 1),
    ("mbv1 dw 64 s2 24x24", 64, 64, 24, 24, 3, 3, 2, 1, 1, 64),
    ("mbv1 pw 128->128 6x6", 128, 128, 6, 6, 1, 1, 1, 0, 0, 1),
]


def bench(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--no-models", action="store_true")
    ap.add_argument("--cflags", default="", help='extra compiler flags, e.g. "-march=native"')
    args = ap.parse_args()
    torch.set_num_threads(1)
    from tests.kernels.kernels_ffi import LIB
    if args.cflags:
        K = Kernels(build_lib(args.cflags.split(), LIB.with_name("libmote_kernels_bench.so")))
    else:
        K = Kernels(build_lib())
    print(f"{'conv layer':34s} {'MACs':>9s} {'mote us':>9s} {'torch us':>9s} {'GMAC/s':>7s}")
    for lab, cin, cout, h, w, kh, kw, s, ph, pw, g in LAYERS:
        x = torch.randn(1, cin, h, w)
        wt = torch.randn(cout, cin // g, kh, kw)
        b = torch.randn(cout)
        ref = F.conv2d(x, wt, b, s, (ph, pw), 1, g)
        out = torch.empty_like(ref)
        run = K.prepare("aten::convolution.out", x, wt, b, [s, s], [ph, pw], [1, 1], False,
                        [0, 0], g, out)
        assert run() == 0
        err = (out - ref).abs().max().item() / ref.abs().max().item()
        assert err < 1e-5, (lab, err)
        macs = ref.numel() * (cin // g) * kh * kw
        tm = bench(run, args.reps)
        with torch.no_grad():
            tt = bench(lambda: F.conv2d(x, wt, b, s, (ph, pw), 1, g), args.reps)
        print(f"{lab:34s} {macs:9d} {tm:9.1f} {tt:9.1f} {macs / tm / 1e3:7.2f}")
    if args.no_models:
        return
    from tests.kernels.zoo_runner import ZooProgram
    from zoo import MODELS
    print()
    print(f"{'model':18s} {'ops':>4s} {'mote us':>9s} {'eager us':>9s} {'ET port. us':>11s} {'vs ET':>6s}")
    for name in MODELS:
        prog = ZooProgram(K, name)
        tm = prog.time_us(args.reps)
        with torch.no_grad():
            te = bench(lambda: prog.model(*prog.inputs), args.reps)
        et = ET_PORTABLE_US.get(name)
        ets = f"{et:11d}" if et else f"{'-':>11s}"
        ratio = f"{et / tm:5.1f}x" if et else f"{'-':>6s}"
        print(f"{name:18s} {len(prog.calls):4d} {tm:9.1f} {te:9.1f} {ets} {ratio}")


if __name__ == "__main__":
    main()
