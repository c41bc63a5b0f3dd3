"""The training text: the GNU GPL version 3, which every Debian system ships
(base-files, /usr/share/common-licenses/GPL-3), so nothing downloads at run
time. Characters become token ids in sorted order."""
from __future__ import annotations

from pathlib import Path

import torch

CORPUS = Path("/usr/share/common-licenses/GPL-3")


def load_text() -> str:
    """The corpus, whitespace runs folded to single spaces. Raises FileNotFoundError."""
    if not CORPUS.is_file():
        raise FileNotFoundError(f"{CORPUS} is missing (Debian's base-files package ships it)")
    return " ".join(CORPUS.read_text(encoding="utf-8").split())


class Vocab:
    """Characters <-> token ids (sorted characters of the corpus)."""

    def __init__(self, text: str):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, s: str) -> torch.Tensor:
        return torch.tensor([[self.index[c] for c in s]], dtype=torch.int64)

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)
