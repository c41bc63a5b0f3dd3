"""sha256 digests of the programs Mote compiles from the zoo, the garden, the
stateful models, the digits demo and a few option variants (program_digests.json).

A refactoring that must not change behaviour (moving packages, reshaping how
options travel) must leave every .pte and ops.json byte as it was;
test_program_digests.py compiles each case and compares. When a change to the
bytes is intended (a new operator lowering, a schema change), regenerate the
file from the repository root and commit it with the change:

    .venv/bin/python tests/compiler/program_digests.py

Each case is (key, model file, compile_model_file keyword arguments); the key
names the model and its options. The digests are those of this repository's
pinned toolchain (torch, torchao) on x86-64; calibration runs fp32 PyTorch, so
another CPU family could round a scale differently.
"""
from __future__ import annotations

import hashlib
import json
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DIGESTS = Path(__file__).resolve().with_name("program_digests.json")
#: what the digests cover: the program and its manifest (the files `aot export` writes
#: besides the debug record), and the .ptd with external weights
FILES = ("pte", "ops.json", "ptd")


def cases() -> list:
    """[(key, model file path, compile keyword arguments)] in a stable order."""
    import zoo
    from zoo.garden import GARDEN, path as garden_path
    from zoo.stateful import STATEFUL, path as stateful_path
    out = []
    models = ([("zoo", n, zoo.path(n)) for n in zoo.MODELS]
              + [("garden", n, garden_path(n)) for n in sorted(GARDEN)]
              + [("stateful", n, stateful_path(n)) for n in sorted(STATEFUL)])
    for group, name, path in models:
        for int8 in (False, True):
            out.append((f"{group}/{name}/{'int8' if int8 else 'fp32'}", path, {"int8": int8}))
    # option variants: every compile option that changes the program's bytes
    ds, mlp = zoo.path("ds_cnn"), zoo.path("mlp")
    out += [
        ("variant/ds_cnn/int8-io", ds, {"int8": True, "int8_io": True}),
        ("variant/ds_cnn/int8-dsp-weights", ds, {"int8": True, "dsp_weights": True}),
        ("variant/ds_cnn/int16-activations", ds, {"int16_activations": True}),
        ("variant/mobilenet_v2/planner-greedy", zoo.path("mobilenet_v2"), {"planner": "greedy"}),
        ("variant/ds_cnn/delegate-xnnpack", ds, {"delegate": "xnnpack"}),
        ("variant/ds_cnn/int8-delegate-xnnpack", ds, {"int8": True, "delegate": "xnnpack"}),
        ("variant/mlp/int4-weights-32", mlp, {"int4_weights": 32}),
        ("variant/mlp/int8-int4-weights", mlp, {"int8": True, "int4_weights": 32}),
        ("variant/mlp/external-weights", mlp, {"external_weights": True}),
    ]
    return out


def _demo_cases() -> list:
    """The digits demo's two programs, compiled as `make demo` compiles them."""
    return [(f"demo/digits/{'int8' if int8 else 'fp32'}", None, {"int8": int8}) for int8 in (False, True)]


def all_cases() -> list:
    return cases() + _demo_cases()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: torch's intra-op threads while a case compiles: calibration's fp32 reductions round
#: by how the work is split over threads, so an int8 case's scales (and bytes) depend on
#: it (zoo/cov_batchnorm/int8 differs between 1 and 2 threads). The digests were recorded
#: with 2 (the 2-core machine's default); fixing it keeps them from depending on the
#: machine's cores or on OMP_NUM_THREADS (scripts/run_tests.sh sets 1 per xdist worker).
THREADS = 2


def compile_case(path, kwargs: dict):
    """The Compiled of one case (path None: the digits demo's program), compiled with
    THREADS intra-op threads."""
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if path is None:
                from examples.digits.demo import compile_digits
                return compile_digits(kwargs["int8"])
            from aot.compiler.pipeline import compile_model_file
            return compile_model_file(path, **kwargs)
    finally:
        torch.set_num_threads(threads)


def file_digests(compiled) -> dict:
    """{"pte": sha256, "ops.json": sha256[, "ptd": sha256]} of a Compiled: the bytes
    aot.compiler.pipeline.write_outputs writes."""
    d = {"pte": _sha(compiled.pte),
         "ops.json": _sha((json.dumps(compiled.manifest, indent=2) + "\n").encode())}
    if compiled.ptd is not None:
        d["ptd"] = _sha(compiled.ptd)
    return d


def weight_bytes(compiled) -> int:
    """Bytes of the eager model's parameters and buffers (each tensor once, over every
    method's module): what the program's constants start from."""
    seen, total = set(), 0
    for module in [compiled.eager] + [mp.eager for mp in compiled.methods or []]:
        if not hasattr(module, "parameters"):
            continue
        for t in list(module.parameters()) + list(module.buffers()):
            if id(t) not in seen:
                seen.add(id(t))
                total += t.numel() * t.element_size()
    return total


def constant_bytes(compiled) -> int:
    """Bytes of the program's constant data (.pte segment, or the .ptd's tensors)."""
    from aot.pte.reader import parse_pte
    if compiled.ptd is not None:
        return len(compiled.ptd)
    return parse_pte(compiled.pte).constants_bytes


def differences(expected: dict, got: dict) -> list:
    """Names of the files whose digest differs (or is only on one side)."""
    return sorted(k for k in set(expected) | set(got) if expected.get(k) != got.get(k))


def load() -> dict:
    return json.loads(DIGESTS.read_text())


def main() -> int:
    out = {}
    for key, path, kwargs in all_cases():
        out[key] = file_digests(compile_case(path, kwargs))
        print(f"{key}: {out[key]['pte'][:16]}", flush=True)
    DIGESTS.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} digests to {DIGESTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
