"""Deterministic mutation fuzzing of the loader + verifier under ASan + UBSan.

Mutates a real ExecuTorch-made .pte a few thousand times (seeded) and runs
every mutant through tests/fuzz/fuzz_loader (the libFuzzer target's standalone
driver, gcc sanitized build, test kernels add/mul/relu: load, init, and execute
of what verifies): each must return an error code or MOTE_OK, never crash.
The coverage-guided libFuzzer run is test_libfuzzer.py.
"""
import random
import struct
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
import _harness as H  # noqa: E402
import _synth  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

N_MUTANTS = 3000
SEED = 20260607
INTERESTING = [0, 1, 2, 3, 4, 7, 8, 16, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 0xFFFFFFF0, 0x10000000]


def mutate(rng: random.Random, base: bytes) -> bytes:
    d = bytearray(base)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 5))):
        kind = rng.randrange(6)
        if kind == 0:  # bit flip
            p = rng.randrange(len(d))
            d[p] ^= 1 << rng.randrange(8)
        elif kind == 1:  # interesting u32 at an aligned position (offsets, lengths, indices)
            p = rng.randrange(0, len(d) - 4) & ~3
            struct.pack_into("<I", d, p, rng.choice(INTERESTING + [len(d), len(d) - p, rng.getrandbits(32)]))
        elif kind == 2:  # random byte (union tags, dtypes, bools, dim orders)
            d[rng.randrange(len(d))] = rng.randrange(256)
        elif kind == 3:  # small signed delta on an aligned u32
            p = rng.randrange(0, len(d) - 4) & ~3
            v = (struct.unpack_from("<I", d, p)[0] + rng.randint(-64, 64)) & 0xFFFFFFFF
            struct.pack_into("<I", d, p, v)
        elif kind == 4:  # truncate
            del d[rng.randrange(1, len(d)):]
            if len(d) < 8:
                break
        else:  # copy a chunk over another place
            a, b = rng.randrange(len(d)), rng.randrange(len(d))
            n = rng.randint(1, 64)
            chunk = d[a:a + n]
            d[b:b + len(chunk)] = chunk
    return bytes(d)


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
