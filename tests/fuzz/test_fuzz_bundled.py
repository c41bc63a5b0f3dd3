"""Deterministic mutation fuzzing of the bundled-program (.bpte) reader (issue 34).

The runtime has no C reader of bundled programs: `aot test` reads them in Python
(aot/deploy/selftest.py read_bpte -> aot/pte/bundled.py, then the program inside
through aot/pte/reader.py parse_pte). Each of N_MUTANTS seeded mutants of two
bundles (tensor cases of two methods; Int/Bool/Double values and a non-default
dim order) must end in a parsed bundle or the project's error (MoteError) with a
one-line message, never another exception; a mutant still running after
HANG_S seconds is a hang (like libFuzzer's -timeout). A failure names the mutant
and keeps its bytes in the test's tmp directory.
"""
import random
import signal
import sys
import traceback
from collections import Counter
from pathlib import Path

import flatbuffers
import numpy as np
import pytest

from aot.compiler import emit
from aot.deploy.selftest import read_bpte
from aot.errors import MoteError
from aot.pte.bundled import (BUNDLE_VERSION, FILE_IDENTIFIER, Bool, BundledMethodTestCase, BundledMethodTestSuite,
                             BundledProgram, Double, Int, Tensor, Value, serialize_bundled, tensor_value)
from aot.pte.reader import parse_pte
from aot.pte.schema import write_table
from tests.pte.test_format_specs import linear_relu_spec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _mutate import mutate  # noqa: E402

N_MUTANTS = 10000
SEED = 20261207
HANG_S = 10


class _Hang(Exception):
    pass


def _bases(tmp_path) -> list:
    spec, reference = linear_relu_spec()
    pte = tmp_path / "m.pte"
    emit.write_pte(spec, pte)
    program = pte.read_bytes()
    rng = np.random.default_rng(0)
    cases = []
    for _ in range(2):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        cases.append(([x], reference(x)))
    tensors = serialize_bundled(program, {"forward": cases, "other": cases[:1]})
    # scalar values and a tensor stored in dim order (1, 0)
    t = np.arange(6, dtype=np.int32).reshape(2, 3)
    transposed = Value(Tensor(scalar_type=3, sizes=[2, 3], data=np.ascontiguousarray(t.T).tobytes(),
                              dim_order=[1, 0]))
    root = BundledProgram(version=BUNDLE_VERSION, program=program, method_test_suites=[
        BundledMethodTestSuite(method_name="forward", test_cases=[BundledMethodTestCase(
            inputs=[tensor_value(cases[0][0][0]), Value(Int(-3)), Value(Bool(True)), Value(Double(0.5)), transposed],
            expected_outputs=[tensor_value(cases[0][1][0])])])])
    b = flatbuffers.Builder(1024)
    b.Finish(write_table(b, root), file_identifier=FILE_IDENTIFIER)
    return [tensors, bytes(b.Output())]


def _read(path: Path) -> str:
    """What `aot test` reads of a .bpte: the bundle and its cases, then the program inside."""
    program, name, st = read_bpte(path)
    parse_pte(program)
    return "parsed"


def run_mutants(bases: list, n: int, seed: int, workdir: Path) -> Counter:
    """Reads n seeded mutants of `bases` (written one at a time to workdir): outcome counts
    ("parsed" or the MoteError's class name). Fails (pytest.fail) on anything else, naming the
    mutant, whose bytes stay in workdir."""
    rng = random.Random(seed)
    outcomes = Counter()

    def alarm(signum, frame):
        raise _Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    path = workdir / "mutant.bpte"
    try:
        for i in range(n):
            path.write_bytes(mutate(rng, bases[i % len(bases)]))
            signal.setitimer(signal.ITIMER_REAL, HANG_S)
            try:
                outcomes[_read(path)] += 1
            except _Hang:
                kept = workdir / f"hang-{seed}-{i}.bpte"
                path.rename(kept)
                pytest.fail(f"mutant {i} (seed {seed}) still read after {HANG_S} s: {kept}")
            except MoteError as e:
                msg = str(e)
                if not msg or "\n" in msg:
                    kept = workdir / f"multiline-{seed}-{i}.bpte"
                    path.rename(kept)
                    pytest.fail(f"mutant {i} ({kept}): refusal is not one line: {msg!r}")
                outcomes[type(e).__name__] += 1
            except Exception:  # noqa: BLE001 -- anything else is the finding
                kept = workdir / f"crash-{seed}-{i}.bpte"
                path.rename(kept)
                pytest.fail(f"mutant {i} (seed {seed}, {kept}) raised instead of refusing:\n{traceback.format_exc()}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return outcomes


def test_bundled_reader_mutation_fuzz(tmp_path):
    bases = _bases(tmp_path)
    for i, b in enumerate(bases):  # both bases read whole
        (tmp_path / "base.bpte").write_bytes(b)
        assert _read(tmp_path / "base.bpte") == "parsed", i
    outcomes = run_mutants(bases, N_MUTANTS, SEED, tmp_path)
    print("bundled reader outcomes:", dict(outcomes.most_common()))
    # the mutations reach past the header: some bundles still parse, others are refused by both readers
    assert outcomes["parsed"] > N_MUTANTS // 20
    assert outcomes["RunError"] > N_MUTANTS // 20 and outcomes["PteFormatError"] > 0
