"""Model file for `aot`: the small vision transformer of examples/digits/vit.py, trained
on scikit-learn's 8x8 digits.

    aot build --board mps2-an505 --int8 examples/digits/vit_model.py
    aot debug --int8 examples/digits/vit_model.py
"""
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from examples.digits.model import calibration_data, example_inputs  # noqa: E402,F401  (the CNN's inputs)
from examples.digits.vit import trained_model  # noqa: E402


def model():
    return trained_model()
