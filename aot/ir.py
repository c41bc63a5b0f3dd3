"""Mote's lowered program: the contract between the AOT passes and the emitter.

A :class:`ProgramSpec` is what ``aot.compiler.plan`` hands to ``aot.compiler.emit``: one method
("forward") as a flat value table plus a single chain of kernel calls, in
ExecuTorch's execution-plan terms. Every tensor is either a constant (bytes
that go to the constant data segment), planned (``mem_id``/``mem_offset`` in an
arena, bytes), or unplanned (an alias filled in at run time, e.g. the output of
``executorch_prim::et_view.default``).

Dtypes are ExecuTorch ScalarType codes (see :data:`SCALAR_TYPE_NAMES`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np

#: ExecuTorch ScalarType code -> name (the program schema's scalar_type.fbs).
SCALAR_TYPE_NAMES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64",
                     5: "float16", 6: "float32", 7: "float64", 11: "bool",
                     12: "qint8", 13: "quint8", 14: "qint32", 15: "bfloat16",
                     27: "uint16", 28: "uint32", 29: "uint64"}
#: ScalarType code -> element size in bytes
SCALAR_TYPE_SIZES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1,
                     12: 1, 13: 1, 14: 4, 15: 2, 27: 2, 28: 4, 29: 8}
#: The codes Mote's runtime accepts (``mote_dtype_t`` in runtime/include/mote/types.h;
#: tests/host/test_dtypes.py proves the two agree) -> element size in bytes.
DTYPE_SIZES = {c: SCALAR_TYPE_SIZES[c] for c in (0, 1, 2, 3, 4, 5, 6, 7, 11)}
#: ScalarType code -> numpy dtype, for the runtime's codes
DTYPE_NUMPY = {c: np.dtype("bool" if SCALAR_TYPE_NAMES[c] == "bool" else SCALAR_TYPE_NAMES[c])
               for c in DTYPE_SIZES}
#: numpy dtype -> ScalarType code
NUMPY_CODES = {v: k for k, v in DTYPE_NUMPY.items()}


def dtype_name(code: int) -> str:
    """Name of ScalarType ``code`` ("float32"), or "scalar<code>" when unknown."""
    return SCALAR_TYPE_NAMES.get(code, f"scalar{code}")


@dataclass
class TensorValue:
    """A tensor in the value table.

    sizes: static shape; dtype: ScalarType code; dim_order: permutation
    (contiguous = 0..n-1). Exactly one of: ``constant`` (raw little-endian
    bytes, len == nbytes), ``mem_id``/``mem_offset`` (planned, mem_id >= 1),
    or neither (unplanned alias). A mutable buffer (model state that persists
    across calls) is planned and also has ``initial`` (its bytes at init and
    after a reset, len == nbytes) and ``fqn`` (the module's buffer name).
    origin: for a constant, the user's name of what it was made from
    ("features.3.weight", or "fc.weight" for its folded transpose; messages only,
    never serialized).
    """
    sizes: list[int]
    dtype: int
    dim_order: Optional[list[int]] = None
    constant: Optional[bytes] = None
    mem_id: Optional[int] = None
    mem_offset: Optional[int] = None
    name: str = ""
    initial: Optional[bytes] = None
    fqn: str = ""
    origin: str = ""

    @property
    def is_mutable(self) -> bool:
        """True for a mutable buffer (state that persists across calls)."""
        return self.initial is not None

    @property
    def numel(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_SIZES[self.dtype]



def derived_origin(v: "TensorValue", what: str) -> str:
    """The origin of a constant made from `v` (its DSP panel, its requantization record):
    "features.6.weight (DSP panel)", or "" when `v` has none."""
    return f"{v.origin} ({what})" if v.origin else ""

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
    the stack trace table); scratch_bytes: planned scratch size; node: the
    edge graph node lowered to this call; nodes: the user's graph nodes it
    computes after fusions (aot.compiler.source.fused_nodes; the PT2E
    converted graph's for int8); module: "module 'path' (Class)" or "";
    q: int8 value's (quantize node name, perm) or None (aot debug's record);
    qparams: a mote:: int8 op's real-valued quantization
    (aot.compiler.source.set_qparams) or None; not serialised."""
    op: str
    overload: str
    args: list[int]
    source: str = ""
    scratch_bytes: int = 0
    node: str = ""
    nodes: list = field(default_factory=list)
    module: str = ""
    q: Optional[tuple] = None
    qparams: Optional[dict] = None


#: ExecuTorch's view operator (``executorch_prim::et_view.default(Tensor self,
#: int[] size) -> Tensor``): its output is an unplanned alias of its input that
#: the runtime resolves itself (no kernel). The one home of the name.
ET_VIEW_OP = "executorch_prim::et_view"
ET_VIEW = ET_VIEW_OP + ".default"


@dataclass
class DelegateCall:
    """A subgraph handed to a backend (ExecuTorch's DelegateCall instruction).

    backend: the backend's id, as the program's ``delegates`` table and the
    runtime's registry name it ("XnnpackBackend"); payload: the bytes its
    ``preprocess`` produced (stored in a data segment); args: value indices,
    the ``num_inputs`` inputs then the outputs; compile_specs: (key, bytes)
    pairs the backend reads at init; calls: the kernel calls it replaced, in
    order (for inspect, MAC counts and source lines: their own values are
    gone from the value table); macs: their multiply-accumulates.
    """
    backend: str
    payload: bytes
    args: list[int]
    num_inputs: int
    compile_specs: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    macs: int = 0
    source: str = ""
    scratch_bytes: int = 0
    node: str = ""
    nodes: list = field(default_factory=list)
    module: str = ""
    q: Optional[tuple] = None

    #: what generic code that names instructions "op.overload" prints
    @property
    def op(self) -> str:
        return "delegate::" + self.backend

    @property
    def overload(self) -> str:
        return "call"


def kernel_calls(spec: "ProgramSpec") -> list:
    """The KernelCalls of ``spec``, delegated ones excluded: what a build links kernels for."""
    return [c for c in spec.instructions if isinstance(c, KernelCall)]


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
    instructions: list = field(default_factory=list)  # KernelCall | DelegateCall
    arena_sizes: list[int] = field(default_factory=lambda: [0])
    method_name: str = "forward"
    #: extra facts for ops.json / inspect (lower bound, planner used, ...)
    plan_info: dict = field(default_factory=dict)
