"""Stateful models: their forward updates registered buffers (mutable buffers),
so each call sees what the previous calls left. Each file is a model file in
the `aot` convention; one call is one step of a stream. Weights are random with
a fixed seed.
"""
from pathlib import Path

STATEFUL_DIR = Path(__file__).resolve().parent

#: name -> one line on the state it keeps
STATEFUL = {
    "streaming_kws": "the last 49 MFCC frames in a buffer (copy_ of a shifted window)",
    "running_stats": "running mean and variance of a sensor stream (in-place mul_/add_), and a step count",
}


def path(name: str) -> Path:
    """Path of the stateful model file ``name``."""
    return STATEFUL_DIR / f"{name}.py"
