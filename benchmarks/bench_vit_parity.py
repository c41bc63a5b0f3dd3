"""Transformers in int8 against their PT2E model: end-to-end output quanta before and after
the residual adds joined the LayerNorm islands (issue 36).

    .venv/bin/python benchmarks/bench_vit_parity.py [--quick] [--json FILE]

Models: the trained digits ViT (examples/digits/vit.py) on the 450 held-out digits;
the garden's tiny_vit (random weights) and torchvision's VisionTransformer in a small
configuration (image 32, patch 8, 2 layers, 2 heads, width 32, MLP 64; random weights,
its zero-initialised head drawn from N(0, 0.2)), when torchvision imports, and
``nn.TransformerEncoder`` post-norm (torch's default) and pre-norm, on 50 random
inputs each (seed 0). Each is quantized twice with Mote's quantizer as
``--int8`` does (torchao PT2E): ``residual_islands=False`` (before: residual adds
int8, each LayerNorm reads the add's int8 output) and True (now: a residual add read
by a LayerNorm joins its fp32 island, the residual stream stays fp32 between the int8
branches). Per scheme: the largest |int8 program - PT2E| per input in output quanta
(max, mean, how many inputs within 2), top-1 agreement with PT2E, accuracy
(digits). The int8 program is run as Mote's integer reference (the lowered graph),
whose bytes the host runtime and the firmware reproduce (tests/e2e/test_garden.py,
tests/e2e/test_digits_vit.py). --quick: the digits ViT on 50 images.
"""
from __future__ import annotations

import sys
import types
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import arg_parser, environment, table, write_json  # noqa: E402

N_RANDOM = 50


def _torchvision_vit():
    """(model, example inputs, calibration) of the small torchvision ViT, or None without torchvision."""
    import torch
    try:
        import torchvision.models as tvm
    except ImportError:
        return None
    except RuntimeError:
        # a CUDA wheel's C extension does not load beside the CPU torch; its detection
        # ops' registrations fail, and the ViT needs none of them
        sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
        for k in [k for k in sys.modules if k.startswith("torchvision") and k != "torchvision._meta_registrations"]:
            del sys.modules[k]
        import torchvision.models as tvm
    torch.manual_seed(0)
    m = tvm.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64)
    torch.nn.init.normal_(m.heads.head.weight, std=0.2)
    g = torch.Generator().manual_seed(7)
    calib = [(torch.randn(1, 3, 32, 32, generator=g),) for _ in range(32)]
    return m.eval(), calib[0], calib


def _encoder(norm_first: bool):
    """(model, example inputs, calibration) of nn.TransformerEncoder (2 layers, width 32,
    4 heads, feed-forward 64, 12 tokens; post-norm as torch's default, or pre-norm) + a
    linear head on the mean token; random weights (seed 0), calibrated on 16 random inputs."""
    import torch
    from torch import nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=norm_first)
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = nn.Linear(32, 5)

        def forward(self, x):
            return self.head(self.enc(x).mean(1))

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    calib = [(torch.randn(1, 12, 32, generator=g),) for _ in range(16)]
    return Encoder().eval(), calib[0], calib


def _cases(quick: bool):
    """[(name, module, example inputs, calibration, eval inputs, labels or None)]."""
    import torch
    from examples.digits import vit_model
    from examples.digits.demo import held_out
    x, y = held_out(50 if quick else None)
    out = [("digits_vit", vit_model.model(), vit_model.example_inputs(), vit_model.calibration_data(),
            [(torch.from_numpy(x[i:i + 1]),) for i in range(len(x))], y)]
    if quick:
        return out
    def rand(shape):  # each model's own 50 inputs, seed 0
        g = torch.Generator().manual_seed(0)
        return [(torch.randn(shape, generator=g),) for _ in range(N_RANDOM)]

    from zoo.garden import tiny_vit
    ex = tiny_vit.example_inputs()
    out.append(("tiny_vit", tiny_vit.model(), ex, tiny_vit.calibration_data(),
                rand(ex[0].shape), None))
    for norm_first in (False, True):
        m, ex, calib = _encoder(norm_first)
        out.append((f"encoder_{'pre' if norm_first else 'post'}_norm", m, ex, calib,
                    rand((1, 12, 32)), None))
    tv = _torchvision_vit()
    if tv is not None:
        m, ex, calib = tv
        out.append(("torchvision_vit", m, ex, calib,
                    rand((1, 3, 32, 32)), None))
    return out


def measure(module, example, calib, inputs, labels, residual_islands: bool) -> dict:
    import torch
    from aot.compiler.quant.annotate import MoteQuantizer
    from aot.compiler.quant.lowering import lower_int8
    from aot.compiler.quant.pt2e import quantize
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conv, _ = quantize(module, example, calib, MoteQuantizer(residual_islands=residual_islands))
        low = lower_int8(conv, example)
        scale = float(low.meta["mote_int8"].output_qparams[0][0])
        ref = np.concatenate([conv(*x).numpy().reshape(1, -1) for x in inputs])
        got = np.concatenate([low(*x).numpy().reshape(1, -1) for x in inputs])
    q = np.rint(np.abs(got.astype(np.float64) - ref).max(axis=1) / scale).astype(int)
    row = {"inputs": len(inputs), "max_quanta": int(q.max()), "mean_quanta": round(float(q.mean()), 2),
           "within_2": int(np.count_nonzero(q <= 2)), "histogram": np.bincount(q).tolist(),
           "top1_agreement": round(float(np.mean(got.argmax(1) == ref.argmax(1))), 4)}
    if labels is not None:
        row["accuracy_int8"] = round(float(np.mean(got.argmax(1) == labels)), 4)
        row["accuracy_pt2e"] = round(float(np.mean(ref.argmax(1) == labels)), 4)
    return row


def main(argv=None) -> int:
    ap = arg_parser(__doc__)
    args = ap.parse_args(argv)
    import torch
    torch.set_num_threads(1)
    results, rows = {}, []
    for name, m, ex, calib, inputs, labels in _cases(args.quick):
        results[name] = {}
        for joined, label in ((False, "before"), (True, "now")):
            r = measure(m, ex, calib, inputs, labels, joined)
            results[name][label] = r
            rows.append([name, label, r["inputs"], r["max_quanta"], f"{r['mean_quanta']:.2f}",
                         f"{r['within_2']}/{r['inputs']}", f"{100 * r['top1_agreement']:.1f}%",
                         f"{100 * r['accuracy_int8']:.2f}% / {100 * r['accuracy_pt2e']:.2f}%"
                         if labels is not None else "-"])
    print("int8 program vs its PT2E model, end to end (output quanta: largest per input)")
    print(table(["model", "residual adds", "inputs", "max q", "mean q", "<= 2 q", "top-1 = PT2E",
                 "accuracy int8 / PT2E"], rows))
    if "torchvision_vit" not in results:
        print("torchvision_vit: torchvision is not installed (it does not install beside torch 2.13.0 "
              "from the registry; put a torchvision wheel's package on PYTHONPATH)")
    write_json(args.json, {"environment": environment(), "models": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
