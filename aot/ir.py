"""Mote's lowered program: the contract between the AOT passes and the emitter.

A :class:`ProgramSpec` is what ``aot.plan`` hands to ``aot.emit``: one method
("forward") as a flat value table plus a single chain of kernel calls, in
ExecuTorch's execution-plan terms. Every tensor is either a constant (bytes
that go to the constant data segment), planned (``mem_id``/``mem_offset`` in an
arena, bytes), or unplanned (an alias filled in at run time, e.g. the output of
``executorch_prim::et_view.default``).

Dtypes are ExecuTorch ScalarType codes (see :data:`DTYPE_CODES`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np
import torch

#: torch dtype -> ExecuTorch ScalarType code (program schema, scalar_type.fbs)
DTYPE_CODES = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.bool: 11,
}
#: ScalarType code -> element size in bytes
DTYPE_SIZES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1}
#: ScalarType code -> numpy dtype
DTYPE_NUMPY = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64,
               5: np.float16, 6: np.float32, 7: np.float64, 11: np.bool_}


@dataclass
class TensorValue:
    """A tensor in the value table.

    sizes: static shape; dtype: ScalarType code; dim_order: permutation
    (contiguous = 0..n-1). Exactly one of: ``constant`` (raw little-endian
    bytes, len == nbytes), ``mem_id``/``mem_offset`` (planned, mem_id >= 1),
    or neither (unplanned alias).
    """
    sizes: list[int]
    dtype: int
    dim_order: Optional[list[int]] = None
    constant: Optional[bytes] = None
    mem_id: Optional[int] = None
    mem_offset: Optional[int] = None
    name: str = ""

    @property
    def numel(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_SIZES[self.dtype]


@dataclass
class IntListValue:
    """A list of ints. In the .pte, IntList items are *value indices* of Int
    values; the emitter creates those Int values."""
    items: list[int]


@dataclass
class TensorListValue:
    """A list of tensors, as value indices. ``optional`` allows -1 (None)."""
    items: list[int]
    optional: bool = False


Value = Union[None, int, bool, float, str, TensorValue, IntListValue, TensorListValue,
              "DoubleListValue", "BoolListValue"]


@dataclass
class DoubleListValue:
    items: list[float]


@dataclass
class BoolListValue:
    items: list[bool]


@dataclass
class KernelCall:
    """op: "namespace::name" (e.g. "aten::addmm"); overload: e.g. "out";
    args: value indices in the out-variant schema order, outputs last.
    source: "file:line" of the model code that produced it (for errors and
    the stack trace table); scratch_bytes: planned scratch size."""
    op: str
    overload: str
    args: list[int]
    source: str = ""
    scratch_bytes: int = 0


@dataclass
class ProgramSpec:
    """One method of a program, fully planned.

    values: the value table; inputs/outputs: value indices;
    instructions: one chain; arena_sizes: bytes per mem_id (index 0 is
    ExecuTorch's reserved entry and is always 0).
    """
    values: list = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    instructions: list[KernelCall] = field(default_factory=list)
    arena_sizes: list[int] = field(default_factory=lambda: [0])
    method_name: str = "forward"
    #: extra facts for ops.json / inspect (lower bound, planner used, ...)
    plan_info: dict = field(default_factory=dict)
