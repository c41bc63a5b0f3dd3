"""Deterministic mutation fuzzing of the loader + verifier under ASan + UBSan.

Mutates a real ExecuTorch-made .pte a few thousand times (seeded) and runs
every mutant through tests/fuzz/fuzz_loader (the libFuzzer target's standalone
driver, gcc sanitized build, test kernels add/mul/relu: load, init, and execute
of what verifies): each must return an error code or MOTE_OK, never crash.
The coverage-guided libFuzzer run is test_libfuzzer.py.
"""
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as H  # noqa: E402
import _synth  # noqa: E402
from _mutate import mutate  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

N_MUTANTS = 3000
SEED = 20260607


def test_mutation_fuzz(pte, asan_build, tmp_path):
    exe = asan_build / "tests" / "fuzz" / "fuzz_loader"
    bases = [pte("const_mul").read_bytes(), pte("view_chain").read_bytes(), _synth.build()]
    rng = random.Random(SEED)
    files = []
    for i in range(N_MUTANTS):
        f = tmp_path / f"m{i:05d}.pte"
        f.write_bytes(mutate(rng, bases[i % len(bases)]))
        files.append(f)
    codes = Counter()
    known = set(H.E.values())
    for k in range(0, len(files), 500):
        chunk = files[k:k + 500]
        res = H.run_checker(exe, chunk)
        assert len(res) == len(chunk)
        for f, r in zip(chunk, res):
            code = int(r[0])
            assert code in known, (f.name, r)
            codes[r[1]] += 1
    print("fuzz outcomes:", dict(codes.most_common()))
    # the mutations reach deep into the verifier, not just the header checks
    assert len(codes) >= 8
    assert codes["MOTE_OK"] > 0  # survived load and the whole verification (add/mul/relu programs)
    assert codes["MOTE_ERR_OP_NOT_FOUND"] > 0  # zoo-style programs: values and memory plan verified
