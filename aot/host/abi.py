"""ctypes mirrors of the runtime's public C structs and enums: the one home
used by the host binding (aot.host.runtime) and by the tests that call
kernels directly.

Sources: runtime/include/mote/types.h (mote_tensor_t, mote_value_t,
mote_tag_t, mote_err_t), mote/kernel.h (mote_kernel_ctx_t,
mote_kernel_entry_t), mote/method.h (mote_buffer_t, mote_memory_t,
mote_method_requirements_t, mote_scratch_slot_t), mote/config.h
(MOTE_MAX_ARENAS). Enum values are parsed from the headers; the struct
layouts are checked against the compiler's by tests/kernels (abi_helper.c)
and by the binding's MOTE_MAX_ARENAS handshake.
"""
from __future__ import annotations

import ctypes as C
import re
from functools import lru_cache

from aot.paths import RUNTIME_DIR

TYPES_H = RUNTIME_DIR / "include" / "mote" / "types.h"
CONFIG_H = RUNTIME_DIR / "include" / "mote" / "config.h"


def _max_arenas() -> int:
    m = re.search(r"^#define MOTE_MAX_ARENAS (\d+)u?$", CONFIG_H.read_text(), re.M)
    if m is None:
        raise RuntimeError(f"{CONFIG_H}: no '#define MOTE_MAX_ARENAS <n>' line")
    return int(m.group(1))


#: arenas a method may use (sizes mote_memory_t); the library is checked against it at load
MAX_ARENAS = _max_arenas()


def _enum(prefix: str) -> dict:
    """{SHORT_NAME: value} of every `MOTE_<prefix>_<NAME> = <int>` in types.h."""
    pat = re.compile(rf"^\s*MOTE_{prefix}(\w+)\s*=\s*(-?\d+)\b", re.M)
    return {n: int(v) for n, v in pat.findall(TYPES_H.read_text())}


@lru_cache(maxsize=None)
def error_codes() -> dict:
    """mote_err_t: short name ("OK", "INPUT_SHAPE", "KERNEL_ARGS", ...) -> code."""
    return {"OK": _enum("")["OK"], **_enum("ERR_")}


#: mote_tag_t: short name ("TENSOR", "INT_LIST", ...) -> tag
TAG = _enum("TAG_")


class Buffer(C.Structure):
    """mote_buffer_t: ptr, size in bytes."""
    _fields_ = [("ptr", C.c_void_p), ("size", C.c_size_t)]


class Requirements(C.Structure):
    """mote_method_requirements_t (sizes and alignments in bytes)."""
    _fields_ = [("state_size", C.c_size_t), ("state_align", C.c_size_t),
                ("num_arenas", C.c_uint32), ("arena_size", C.c_size_t * MAX_ARENAS),
                ("arena_align", C.c_size_t)]


class ScratchSlot(C.Structure):
    """mote_scratch_slot_t: instruction index, offset and size in bytes."""
    _fields_ = [("instruction", C.c_uint32), ("offset", C.c_uint32), ("size", C.c_uint32)]


class Memory(C.Structure):
    """mote_memory_t: state, arenas, scratch and its per-instruction slots, the backend pool,
    the method image (a mote_method_image_t pointer, or None)."""
    _fields_ = [("state", Buffer), ("arenas", Buffer * MAX_ARENAS),
                ("num_arenas", C.c_uint32), ("scratch", Buffer),
                ("scratch_slots", C.POINTER(ScratchSlot)), ("num_scratch_slots", C.c_uint32),
                ("backend", Buffer), ("image", C.c_void_p)]


class Tensor(C.Structure):
    """mote_tensor_t (numel elements, nbytes bytes, dtype a mote_dtype_t code)."""
    _fields_ = [("data", C.c_void_p), ("sizes", C.POINTER(C.c_int32)),
                ("dim_order", C.POINTER(C.c_uint8)), ("numel", C.c_uint32),
                ("nbytes", C.c_uint32), ("dim", C.c_uint8), ("dtype", C.c_uint8)]


class Str(C.Structure):
    _fields_ = [("ptr", C.c_char_p), ("len", C.c_uint32)]


class IntList(C.Structure):
    _fields_ = [("items", C.POINTER(C.c_int64)), ("len", C.c_uint32)]


class DoubleList(C.Structure):
    _fields_ = [("items", C.POINTER(C.c_double)), ("len", C.c_uint32)]


class BoolList(C.Structure):
    _fields_ = [("items", C.POINTER(C.c_uint8)), ("len", C.c_uint32)]


class TensorList(C.Structure):
    """Tensor lists and optional tensor lists (NULL items are None)."""
    _fields_ = [("items", C.POINTER(C.POINTER(Tensor))), ("len", C.c_uint32)]


class ValueUnion(C.Union):
    _fields_ = [("i", C.c_int64), ("b", C.c_bool), ("d", C.c_double), ("t", C.POINTER(Tensor)),
                ("str", Str), ("ints", IntList), ("doubles", DoubleList), ("bools", BoolList),
                ("tensors", TensorList)]


class Value(C.Structure):
    """mote_value_t: tag (TAG) and the union."""
    _fields_ = [("tag", C.c_uint8), ("u", ValueUnion)]


class KernelCtx(C.Structure):
    """mote_kernel_ctx_t: the instruction's scratch (size in bytes)."""
    _fields_ = [("scratch", C.c_void_p), ("scratch_size", C.c_size_t)]


#: mote_kernel_fn_t
KernelFn = C.CFUNCTYPE(C.c_int, C.POINTER(KernelCtx), C.POINTER(C.POINTER(Value)), C.c_uint32)


class KernelEntry(C.Structure):
    """mote_kernel_entry_t: operator name and kernel function."""
    _fields_ = [("name", C.c_char_p), ("fn", C.c_void_p)]


class TraceEvent(C.Structure):
    """mote_trace_event_t (mote/trace.h): instruction index, start and end ticks."""
    _fields_ = [("instr", C.c_uint32), ("start", C.c_uint32), ("end", C.c_uint32)]


#: mote_trace_fn_t: (user, method, instruction index)
TraceFn = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p, C.c_uint32)


class Tracer(C.Structure):
    """mote_tracer_t (mote/trace.h); ticks are mote_port_ticks() (ns on Linux)."""
    _fields_ = [("events", C.POINTER(TraceEvent)), ("capacity", C.c_uint32), ("count", C.c_uint32),
                ("dropped", C.c_uint32), ("run_start", C.c_uint32), ("run_end", C.c_uint32),
                ("overhead", C.c_uint32), ("after", TraceFn), ("user", C.c_void_p)]
