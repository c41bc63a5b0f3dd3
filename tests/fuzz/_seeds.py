"""Seed programs for the fuzz targets that feed inputs and .ptd files too.

fuzz_container() writes the fuzz data layout of tests/fuzz/fuzz_loader.c
(program, optional .ptd, the input bytes, then the 12-byte "MFZ1" trailer).

`python tests/fuzz/_seeds.py OUTDIR` compiles small models with the Mote
compiler and writes each as a container into OUTDIR/corpus (test_libfuzzer.py
runs it once per content key, in a subprocess: torch stays out of pytest), and
OUTDIR/seeds.json: file name -> whether one of its inputs holds integer
indices:

  index-*.mfz: one data-dependent kernel each (embedding, gather, index_select,
               index.Tensor, index_put, scatter, scatter_add, masked_scatter),
               its example inputs as the input bytes (valid indices: the seed
               runs to the end; mutation then moves them out of range).
  ptd-*.mfz:   programs with external weights (--external-weights) and their
               .ptd: as Mote writes it (keys in byte order: binary search) and
               with the entries reversed (keys not sorted, as ExecuTorch 1.5.1
               writes them: linear scan), one of them an embedding table held
               in the .ptd and read at indices from the input bytes.
"""
import json
import struct
import sys
from pathlib import Path

MAGIC = b"MFZ1"


def fuzz_container(pte: bytes, ptd: bytes = b"", inputs: bytes = b"") -> bytes:
    """Fuzz data carrying program `pte`, the .ptd `ptd` (b"": none) and the input byte stream `inputs`."""
    return pte + ptd + inputs + struct.pack("<II", len(pte), len(ptd)) + MAGIC


def with_input_bytes(src: Path, out: Path, seed: int, nbytes: int = 1024) -> list:
    """Writes each .pte of `src` into `out` as a container whose input bytes are `nbytes` seeded
    random bytes (floats of every class: normal, huge, inf, NaN); returns the new paths."""
    import random
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for f in sorted(src.glob("*.pte")):
        made.append(out / f"{f.stem}.mfz")
        made[-1].write_bytes(fuzz_container(f.read_bytes(), b"", rng.randbytes(nbytes)))
    return made


def _models():
    """name -> (module factory, example inputs, compile options)."""
    import torch
    from torch import nn

    class Fn(nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *xs):
            return self.fn(*xs)

    class Tok(nn.Module):  # token ids -> embedding -> linear -> mean
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(12, 8)
            self.fc = nn.Linear(8, 3)

        def forward(self, ids):
            return self.fc(self.emb(ids)).mean(dim=1)

    def x(*shape, seed=1):
        return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))

    ids = torch.tensor([[3, 0, 11, 7], [1, 1, 2, 10]])
    i2 = torch.tensor([[0, 1], [2, 3], [1, 0]])
    return {
        "index-embedding": (lambda: nn.Sequential(nn.Embedding(10, 4)), (torch.tensor([[3, 0, 9], [1, 2, 8]]),), {}),
        "index-embedding-int32": (lambda: nn.Embedding(20, 5),
                                  (torch.tensor([[3, 0, 19]], dtype=torch.int32),), {}),
        "index-gather": (lambda: Fn(lambda a, i: torch.gather(a, 1, i)),
                         (x(3, 5), torch.tensor([[0, 4], [2, 2], [1, 3]])), {}),
        "index-index-select": (lambda: Fn(lambda a, i: torch.index_select(a, 1, i)),
                               (x(3, 5), torch.tensor([4, 0, 2])), {}),
        "index-tensor": (lambda: Fn(lambda a, i: a[:, i]), (x(3, 5), torch.tensor([4, 0, -1, 2])), {}),
        "index-two-tensors": (lambda: Fn(lambda a, i, j: a[i, :, j]),
                              (x(3, 4, 5), torch.tensor([0, 2]), torch.tensor([[1], [4]])), {}),
        "index-put-accumulate": (lambda: Fn(lambda a, i, v: a.index_put((i,), v, accumulate=True)),
                                 (x(5, 4), torch.tensor([0, 3, 0]), x(3, 4, seed=2)), {}),
        "index-setitem": (lambda: Fn(lambda a, i: a.index_put((i,), torch.zeros(2, 4))),
                          (x(5, 4), torch.tensor([0, 3])), {}),
        "index-scatter-src": (lambda: Fn(lambda a, i, s: a.scatter(1, i, s)), (x(3, 4), i2, x(3, 2, seed=2)), {}),
        "index-scatter-value": (lambda: Fn(lambda a, i: a.scatter(1, i, 2.5)), (x(3, 4), i2), {}),
        "index-scatter-add": (lambda: Fn(lambda a, i, s: a.scatter_add(1, i, s)), (x(3, 4), i2, x(3, 2, seed=2)), {}),
        "index-masked-scatter": (lambda: Fn(lambda a, m, s: a.masked_scatter(m, s)),
                                 (x(3, 4), x(3, 4, seed=3) > 0, x(12)), {}),
        "index-tok": (Tok, (ids,), {}),
        "index-tok-int8": (Tok, (ids,), {"int8": True}),
        "ptd-tok": (Tok, (ids,), {"external_weights": True}),
        "ptd-mlp": (lambda: nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4)), (x(2, 6),),
                    {"external_weights": True}),
    }


def _input_bytes(inputs) -> bytes:
    return b"".join(t.contiguous().numpy().tobytes() for t in inputs)


def write_seeds(out: Path) -> dict:
    """Writes every seed into `out`; returns file name -> whether an input holds integer indices."""
    import torch

    from aot.compiler.pipeline import compile_module
    from aot.pte.flat_tensor import read_ptd, write_ptd
    names = {}
    for name, (make, inputs, options) in _models().items():
        torch.manual_seed(0)
        c = compile_module(name, make().eval(), inputs, **options)
        data = _input_bytes(inputs)
        indices = any(not t.dtype.is_floating_point and t.dtype != torch.bool for t in inputs)
        if options.get("external_weights"):
            assert c.ptd, name
            keys = list(read_ptd(c.ptd))
            assert keys == sorted(keys, key=str.encode), (name, keys)
            (out / f"{name}-sorted.mfz").write_bytes(fuzz_container(c.pte, c.ptd, data))
            unsorted = write_ptd(list(reversed(list(read_ptd(c.ptd).values()))))
            assert len(keys) < 2 or list(read_ptd(unsorted)) != keys, name
            (out / f"{name}-unsorted.mfz").write_bytes(fuzz_container(c.pte, unsorted, data))
            names.update({f"{name}-sorted.mfz": indices, f"{name}-unsorted.mfz": indices})
        else:
            (out / f"{name}.mfz").write_bytes(fuzz_container(c.pte, b"", data))
            names[f"{name}.mfz"] = indices
    return names


if __name__ == "__main__":
    out = Path(sys.argv[1])
    (out / "corpus").mkdir(parents=True, exist_ok=True)
    (out / "seeds.json").write_text(json.dumps(write_seeds(out / "corpus"), indent=1, sort_keys=True))
