#!/usr/bin/env bash
# Runs the whole suite. pytest's "no tests collected" (exit 5) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest -q -ra "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "run_tests: pytest collected no tests - failing" >&2
    exit 1
fi
exit "$rc"
