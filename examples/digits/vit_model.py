"""Model file for `aot`: the small vision transformer of examples/digits/vit.py, trained
on scikit-learn's 8x8 digits.

    aot build --board mps2-an505 --int8 examples/digits/vit_model.py
    aot debug --int8 examples/digits/vit_model.py
"""
import sys
from pathlib import Path

import torch

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from examples.digits.data import load_split  # noqa: E402
from examples.digits.vit import trained_model  # noqa: E402


def model():
    return trained_model()


def example_inputs():
    _, _, x_te, _ = load_split()
    return (torch.from_numpy(x_te[:1]),)


def calibration_data():
    """128 training images, one per input tuple (never the held-out ones)."""
    x_tr, _, _, _ = load_split()
    return [(torch.from_numpy(x_tr[i:i + 1]),) for i in range(128)]
