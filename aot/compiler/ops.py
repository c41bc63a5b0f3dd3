"""What the compiler may emit: exactly the operators that have a kernel.

Names are ExecuTorch operator names with their overload: "namespace::name.overload".
The set is read from the kernels themselves (:mod:`aot.compiler.kernels`), never
listed here: adding a kernel file makes its operator available, and an operator
without one is refused by the lowering with :class:`aot.errors.UnsupportedOpError`
before anything is written. Argument combinations a kernel refuses (dtypes,
flags such as a transposed convolution) are found by running the program's
calls through the host build of the same kernels (:mod:`aot.compiler.accept`).
"""
from __future__ import annotations

from aot.compiler.kernels import in_place_ops, in_place_rows_ops, portable_ops


def supported_ops() -> frozenset:
    """Every operator the runtime can execute ("ns::op.overload")."""
    return portable_ops()


def in_place(name: str) -> bool:
    """True if the kernel of ``name`` may write its output over its first input."""
    return name in in_place_ops()


def in_place_rows(name: str) -> bool:
    """True if the kernel of ``name`` may write its output over its input row
    by row (MOTE_KERNEL_IN_PLACE_ROWS; the two may differ in size)."""
    return name in in_place_rows_ops()


def is_supported(name: str) -> bool:
    """True if the runtime has a kernel for ``name`` ("ns::op.overload")."""
    return name in portable_ops()
