"""Shared helpers for the benchmark scripts (not a test; asserts nothing about time).

Import this module before torch: it pins every math library to one thread so
Mote, ExecuTorch and eager PyTorch are compared on equal terms.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS"):
    os.environ[_var] = "1"

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BUILD_DIR = ROOT / "build" / "bench"

#: Model used by every --quick run (small, compiles and builds in seconds).
QUICK_MODEL = "small_cnn"

warnings.filterwarnings("ignore")


def arg_parser(doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help=f"one small model ({QUICK_MODEL}) and short timing loops (smoke test)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--models", nargs="*", metavar="NAME",
                    help="zoo or garden models to run (default: all of zoo.MODELS)")
    ap.add_argument("--garden", action="store_true",
                    help="run the model garden (zoo/garden/: zoo.garden.GARDEN) instead")
    return ap


def model_names(args) -> list:
    """The zoo models to run. --quick also moves builds to build/bench/quick/, so a
    smoke run never shares a build directory with a full run."""
    global BUILD_DIR
    from zoo import MODELS
    from zoo.garden import GARDEN
    if args.quick:
        BUILD_DIR = ROOT / "build" / "bench" / "quick"
    if args.quick and not args.models and not getattr(args, "garden", False):
        return [QUICK_MODEL]
    known = list(MODELS) + list(GARDEN)
    names = args.models or (list(GARDEN) if getattr(args, "garden", False) else list(MODELS))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown model(s): {', '.join(unknown)}; choose from {', '.join(known)}")
    return names


def progress(iterable, desc: str, total=None):
    """tqdm on stderr (the tables go to stdout)."""
    from tqdm import tqdm
    return tqdm(iterable, desc=desc, total=total, file=sys.stderr, leave=False,
                dynamic_ncols=True)


def median_us(fn, budget_s: float = 0.5, min_reps: int = 10, max_reps: int = 5000,
              warmup: int = 3) -> float:
    """Median wall time of fn() in microseconds over as many runs as fit in budget_s
    (at least min_reps, at most max_reps)."""
    for _ in range(warmup):
        fn()
    times = []
    t_end = time.perf_counter() + budget_s
    while len(times) < max_reps and (len(times) < min_reps or time.perf_counter() < t_end):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def fmt(v, spec: str = ",") -> str:
    """A table cell: '-' for None, else format(v, spec)."""
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return format(v, spec)


def table(headers: list, rows: list, aligns: str = None) -> str:
    """A plain-text table; first column left-aligned, the rest right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    aligns = aligns or ("l" + "r" * (len(headers) - 1))
    out = []
    for k, r in enumerate(cells):
        out.append("  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                             for c, w, a in zip(r, widths, aligns)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def environment() -> dict:
    import torch
    env = {"date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "host": platform.machine(), "python": platform.python_version(),
           "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
    try:
        from importlib.metadata import version
        env["executorch"] = version("executorch")
    except Exception:  # noqa: BLE001 - informational only
        env["executorch"] = None
    try:
        env["load_average_1min"] = round(os.getloadavg()[0], 2)
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    env["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return env


def write_json(path, data: dict) -> None:
    if not path:
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2, default=str) + "\n")
    print(f"\nwrote {p}")


def size_summary(size: dict) -> dict:
    """Headline figures of a size.json (bytes), whatever its exact part list:
    code (runtime + kernels + port + libc/libgcc, + alignment padding), model (.pte,
    in flash or in the board's model_region), inputs (embedded input sets),
    method_image (the runtime state in flash, aot.target.image),
    flash (flash_bytes + model_region_bytes), ram (ram_bytes), arena."""
    fl = dict(size.get("flash", {}))
    region = size.get("model_region") or {}
    model = fl.get("model", 0) + region.get("model", 0)
    inputs = fl.get("inputs", 0) + region.get("inputs", 0)
    code = sum(v for k, v in fl.items() if k not in ("model", "inputs", "method_image"))
    return {"code": code, "model": model, "inputs": inputs, "method_image": fl.get("method_image", 0),
            "flash": int(size.get("flash_bytes", 0)) + int(size.get("model_region_bytes", 0)),
            "ram": int(size.get("ram_bytes", 0)), "arena": int(size.get("ram", {}).get("arena", 0)),
            "model_in_region": bool(region)}


def ordered_keys(dicts) -> list:
    """Union of the keys of `dicts`, in first-seen order."""
    keys = []
    for d in dicts:
        for k in d:
            if k not in keys:
                keys.append(k)
    return keys


def short_error(e: BaseException, limit: int = 300) -> str:
    """One line for a failed row: the exception's first line plus its most telling line
    (an undefined reference, a region overflow, an error: line) when that differs."""
    import re
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    key = next((ln for ln in lines[1:] if re.search(r"undefined reference|overflow|error:|recursion|"
                                                    r"does not fit|no kernel", ln)), "")
    text = f"{type(e).__name__}: {first}" + (f" ... {key}" if key and key != first else "")
    return text[:limit]
