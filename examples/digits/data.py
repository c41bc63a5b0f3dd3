"""The 8x8 handwritten digits that ship with scikit-learn (1,797 real images, no
download), split into train and held-out test sets with a fixed seed.

Images are 1x8x8 float32 scaled from the dataset's 0..16 grey levels to 0..1.
"""
from __future__ import annotations

import numpy as np

SPLIT_SEED = 0
TEST_FRACTION = 0.25


def load_split(seed: int = SPLIT_SEED, test_fraction: float = TEST_FRACTION):
    """Return (x_train, y_train, x_test, y_test).

    x_*: float32 [N, 1, 8, 8] in 0..1; y_*: int64 [N] labels 0..9. The split is
    stratified by label and depends only on `seed`.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0)[:, None, :, :]
    y = digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(
        x, y, test_size=test_fraction, random_state=seed, stratify=y)
    return x_tr, y_tr, x_te, y_te
