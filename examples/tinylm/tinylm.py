"""The tiny LM as an `aot` model file: methods() gives ``prefill`` and ``decode``
over one trained TinyLM (examples/tinylm/model.py), sharing its weights and
KV cache. The weights come from the checkpoint `python -m examples.tinylm.train`
writes (build/tinylm/tinylm.pt, or $TINYLM_CHECKPOINT).

    aot compare examples/tinylm/tinylm.py --int4-weights --method decode
"""
import os
from pathlib import Path

import torch

from aot.compiler.model_file import BoundMethod
from examples.tinylm.corpus import Vocab, load_text
from examples.tinylm.model import PROMPT
from examples.tinylm.train import CHECKPOINT, load

#: the prompt the demo continues: the first PROMPT characters of the preamble's first sentence
_TEXT = load_text()
PROMPT_TEXT = _TEXT[_TEXT.index("The GNU General Public License is"):][:PROMPT]


def checkpoint() -> Path:
    return Path(os.environ.get("TINYLM_CHECKPOINT", CHECKPOINT))


def methods():
    if not checkpoint().is_file():
        raise FileNotFoundError(f"no trained weights at {checkpoint()}: run `python -m examples.tinylm.train` "
                                "(make tinylm does)")
    lm, vocab = load(checkpoint())
    prompt = vocab.encode(PROMPT_TEXT)
    return {
        "prefill": (BoundMethod(lm, "prefill").eval(), (prompt,)),
        "decode": (BoundMethod(lm, "decode").eval(), (torch.tensor([[0]]), torch.tensor([PROMPT]))),
    }
