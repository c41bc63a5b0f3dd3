#!/usr/bin/env bash
# Runs the whole suite on every core (pytest-xdist; MOTE_TEST_WORKERS=1 for one
# process). --dist loadfile keeps each test file in one worker, so a file's
# session caches (firmware builds, host builds) are made once.
# pytest's "no tests collected" (exit 5) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
workers="${MOTE_TEST_WORKERS:-$(nproc)}"
par=()
[ "$workers" -gt 1 ] && par=(-n "$workers" --dist loadfile)
.venv/bin/python -m pytest -q -ra "${par[@]}" "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "run_tests: pytest collected no tests - failing" >&2
    exit 1
fi
exit "$rc"
