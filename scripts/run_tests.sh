#!/usr/bin/env bash
# Runs the whole suite on every core (pytest-xdist; MOTE_TEST_WORKERS=1 for one
# process). --dist loadfile keeps each test file in one worker, so a file's
# session caches (firmware builds, host builds) are made once.
# pytest's "no tests collected" (exit 5) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
workers="${MOTE_TEST_WORKERS:-$(nproc)}"
par=()
if [ "$workers" -gt 1 ]; then
    par=(-n "$workers" --dist loadfile)
    # one intra-op thread per worker (torch, OpenMP, BLAS; the tests' own `aot`
    # subprocesses inherit it): the workers already fill the cores, and two workers
    # each running torch on every core made a small stateful model's eager step
    # (a calibration hop of examples/kws) ~25x slower on a loaded 2-core machine
    export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" MKL_NUM_THREADS="${MKL_NUM_THREADS:-1}"
fi
.venv/bin/python -m pytest -q -ra "${par[@]}" "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "run_tests: pytest collected no tests - failing" >&2
    exit 1
fi
exit "$rc"
