"""How fast `aot` refuses a mistake that needs no model (issue 39: under 0.5 s on a quiet machine).

  .venv/bin/python benchmarks/bench_cli.py [--quick] [--json FILE] [--reps N]

Each command line below is a user's mistake (a missing model file, an unknown board, a
bad option or combination, an output folder that is not Mote's); `aot` must refuse it
in one line before importing torch (aot.tools.preflight). The table gives the median wall
time of `python -m aot.cli ...` over --reps runs, and for scale the time of
`python -c "import torch, torchao"`, which every refusal used to pay first.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as cm  # noqa: E402

#: the issue's examples and their kin: (what, aot arguments)
MISTAKES = [
    ("missing model file", ["export", "nope.py"]),
    ("unknown board", ["build", "zoo/mlp.py", "--board", "pico3"]),
    ("unknown --opt", ["build", "zoo/mlp.py", "--board", "pico2", "--opt", "fast"]),
    ("option combination", ["build", "zoo/mlp.py", "--board", "pico2", "--int8-io"]),
    ("-o not Mote's folder", ["build", "zoo/mlp.py", "--board", "pico2", "-o", "docs"]),
    ("unknown target", ["run", "zoo", "--target", "pico3"]),
]
LIMIT_S = 0.5


def _median_s(argv: list, reps: int) -> tuple:
    times, code = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        code = subprocess.run(argv, cwd=cm.ROOT, capture_output=True).returncode
        times.append(time.perf_counter() - t0)
    return statistics.median(times), code


def main() -> int:
    ap = cm.arg_parser(__doc__)
    ap.add_argument("--reps", type=int, default=5, help="runs per command line (default 5; --quick: 2)")
    args = ap.parse_args()
    reps = 2 if args.quick else args.reps
    rows, figures = [], []
    for what, cmd in cm.progress(MISTAKES, "refusals"):
        t, code = _median_s([sys.executable, "-m", "aot.cli", *cmd], reps)
        figures.append({"mistake": what, "argv": cmd, "seconds": round(t, 3), "exit_code": code})
        rows.append([what, "aot " + " ".join(cmd), f"{t:.2f}", code, "OK" if t < LIMIT_S and code == 1 else "over"])
    t_torch, _ = _median_s([sys.executable, "-c", "import torch, torchao"], reps)
    rows.append(["(import torch, torchao)", "", f"{t_torch:.2f}", "", ""])
    print(f"aot refusals before torch is imported (median of {reps}; target < {LIMIT_S} s quiet)")
    print(cm.table(["mistake", "command", "s", "exit", ""], rows, "llrrl"))
    if args.json:
        Path(args.json).write_text(json.dumps({"environment": cm.environment(), "refusals": figures,
                                               "import_torch_s": round(t_torch, 3)}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
