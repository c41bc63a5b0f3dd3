"""The kernels that exist, read from their sources: the one source of truth for
what the runtime can run.

Every kernel file (kernels/op_*.c, and the Cortex-M versions in cmsis/op_*.c)
carries ``MOTE_KERNEL("ns::name.overload")`` and, when its out tensor may take
the bytes of its first input, ``MOTE_KERNEL_IN_PLACE("ns::name.overload")``
(runtime/include/mote/kernel.h). The marker syntax and the kernel symbol rule
live in kernels/gen_registry.py, the generator of the runtime's registry; this
module loads that script rather than restating its rules, so the compiler's
operator set, the registry and the kernels cannot drift apart.
"""
from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

from aot import ir
from aot.paths import CMSIS_DIR, KERNELS_DIR

#: Operators the runtime executes itself, without a kernel (views alias storage).
RUNTIME_OPS = frozenset({ir.ET_VIEW})

_IN_PLACE = re.compile(r'^\s*MOTE_KERNEL_IN_PLACE\(\s*"([^"]+)"\s*\)', re.M)
_IN_PLACE_ROWS = re.compile(r'^\s*MOTE_KERNEL_IN_PLACE_ROWS\(\s*"([^"]+)"\s*\)', re.M)


@functools.lru_cache(maxsize=1)
def _generator():
    """kernels/gen_registry.py as a module (standard library only, no side effects)."""
    spec = importlib.util.spec_from_file_location("mote_gen_registry", KERNELS_DIR / "gen_registry.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kernel_symbol(op_name: str) -> str:
    """C symbol of the kernel of ``"ns::name.overload"``: ``mote_kernel_ns_name_overload``.

    Raises ValueError if the result is not a C identifier."""
    try:
        sym = _generator().symbol(op_name)
    except ValueError:
        sym = ""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", sym):
        raise ValueError(f"operator {op_name!r} gives no valid C identifier ({sym!r})")
    return sym


def kernel_files(directory: Path = KERNELS_DIR) -> dict:
    """Operator name -> kernel source file (Path) of every op_*.c in ``directory``."""
    if not directory.is_dir():
        return {}
    return {op: directory / name for op, name in _generator().scan(directory).items()}


@functools.lru_cache(maxsize=1)
def kernel_outputs() -> dict:
    """Operator name -> how many trailing arguments its kernel writes
    (MOTE_KERNEL_OUTPUTS, else 1), for every kernel of kernels/."""
    return {op: n for op, (_, n) in _generator().scan_outputs(KERNELS_DIR).items()}


@functools.lru_cache(maxsize=1)
def portable_ops() -> frozenset:
    """Every operator with a portable kernel (kernels/), plus the runtime's own ops."""
    return frozenset(kernel_files(KERNELS_DIR)) | RUNTIME_OPS


def optimized_kernel_files() -> dict:
    """Operator name -> cmsis/ kernel file (Cortex-M DSP/MVE versions)."""
    return kernel_files(CMSIS_DIR)


def _marked(pattern, folder: Path = KERNELS_DIR) -> frozenset:
    found = set()
    for path in sorted(folder.glob("op_*.c")):
        found.update(pattern.findall(path.read_text(encoding="utf-8")))
    return frozenset(found)


@functools.lru_cache(maxsize=1)
def in_place_ops() -> frozenset:
    """Operators whose kernel declares MOTE_KERNEL_IN_PLACE."""
    return _marked(_IN_PLACE)


@functools.lru_cache(maxsize=1)
def in_place_rows_ops(folder: Path = KERNELS_DIR) -> frozenset:
    """Operators whose kernel (in ``folder``: kernels/, or cmsis/ for the
    Cortex-M versions) declares MOTE_KERNEL_IN_PLACE_ROWS: a window op whose out
    may start at its input's first byte (the row ring, kernels/requant.h)."""
    return _marked(_IN_PLACE_ROWS, folder)


#: dtype names a kernel's header comment may list on its "dtypes:" lines
DTYPE_WORDS = ("float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "bool")
_DTYPES_PARA = re.compile(r"^\s*\*\s*dtypes?:(.*?)(?=^\s*\*\s*(?:\w[\w ]*:|$)|\*/)", re.M | re.S)


def kernel_dtypes(op: str) -> tuple:
    """The dtypes the kernel of ``op`` takes, from the "dtypes:" paragraph of its
    header comment (the kernel's own documentation, so one home): names from
    DTYPE_WORDS in the order given; "any" means every dtype the runtime has.
    Empty for runtime ops and kernels without such a paragraph."""
    path = kernel_files().get(op)
    if path is None:
        return ()
    m = _DTYPES_PARA.search(path.read_text(encoding="utf-8"))
    if m is None:
        return ()
    text = m.group(1)
    if re.search(r"\bany\b", text):
        return tuple(ir.dtype_name(c) for c in sorted(ir.DTYPE_SIZES))
    found = {w: text.find(w) for w in DTYPE_WORDS if re.search(rf"\b{w}\b", text)}
    if "fp32" in text and "float32" not in found:
        found["float32"] = text.find("fp32")
    return tuple(sorted(found, key=found.get))


def int8_variants(op: str) -> tuple:
    """Which implementations exist for an int8 operator: "reference" (kernels/),
    "DSP" / "MVE" when its cmsis/ version has that path (MOTE_S8_DSP / MOTE_S8_MVE,
    cmsis/mote_s8_arm.h)."""
    out = ["reference"] if op in kernel_files() else []
    path = optimized_kernel_files().get(op)
    if path is not None:
        text = path.read_text(encoding="utf-8")
        out += [v for v in ("DSP", "MVE") if f"defined(MOTE_S8_{v})" in text]
    return tuple(out)


EXCLUDED_JSON = KERNELS_DIR / "excluded.json"


@functools.lru_cache(maxsize=1)
def excluded_ops() -> dict:
    """ExecuTorch portable operators Mote leaves out on purpose: name -> reason
    (kernels/excluded.json)."""
    import json
    return dict(json.loads(EXCLUDED_JSON.read_text(encoding="utf-8"))["excluded"])
