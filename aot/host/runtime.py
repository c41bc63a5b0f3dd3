"""ctypes binding to the host runtime library (libmote.so).

    prog = Program("model.pte")            # or Program(bytes)
    m = prog.method("forward")
    m.requirements                          # exact byte sizes (state, arenas)
    outs = m.run([x])                       # list[np.ndarray] -> list[np.ndarray]

All runtime memory (program copy, state, arenas) is allocated here, in Python,
with the sizes the runtime reports, and passed in: the C side never allocates.
Errors raise MoteError(code, name) with the mote_err_t enum name.

The library is build/host/ports/linux/libmote.so under the repository root;
the environment variable MOTE_LIB overrides the path.
"""
from __future__ import annotations

import ctypes as C
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aot.errors import RuntimeCallError  # the CLI reports these cleanly
from aot.errors import RuntimeCallError as MoteError  # noqa: F401 (the binding's historical name)
from aot.host.abi import TAG, MAX_ARENAS, error_codes  # noqa: F401 (error_codes re-exported)
from aot.host.abi import Buffer as _Buffer, Memory as _Memory, Requirements as _Requirements
from aot.host.abi import ScratchSlot as _ScratchSlot, Tensor as _Tensor, Value as _Value
from aot.host.abi import TraceEvent as _TraceEvent, TraceFn as _TraceFn, Tracer as _Tracer
from aot.host.inputs import load_npz_inputs  # noqa: F401 (re-exported)
from aot.ir import DTYPE_NUMPY, NUMPY_CODES
from aot.paths import HOST_BUILD_DIR

PROGRAM_ALIGN = 16
ARENA_ALIGN = 16
TAG_INT, TAG_BOOL, TAG_DOUBLE, TAG_TENSOR = TAG["INT"], TAG["BOOL"], TAG["DOUBLE"], TAG["TENSOR"]


@dataclass(frozen=True)
class Requirements:
    """Exact memory a method needs, in bytes."""
    state_size: int
    state_align: int
    arena_sizes: tuple
    arena_align: int


@dataclass
class Trace:
    """One traced execute (mote/trace.h). events: (instruction, start, end)
    ticks in execution order; overhead: ticks one mote_port_ticks() call adds
    to each event's end - start; run_ticks: the whole execute; tick_unit:
    "ns" (the Linux port's CLOCK_MONOTONIC); captured: {instruction: [arrays]}
    copied from the values asked for, right after that instruction ran."""
    outputs: list
    events: list
    overhead: int
    run_ticks: int
    dropped: int
    captured: dict
    tick_unit: str = "ns"


@dataclass(frozen=True)
class TensorInfo:
    dtype: np.dtype
    shape: tuple
    nbytes: int


_libs: dict = {}


def library_path() -> Path:
    env = os.environ.get("MOTE_LIB")
    return Path(env) if env else HOST_BUILD_DIR / "ports" / "linux" / "libmote.so"


def _c_text(raw: bytes) -> str:
    """A name the program holds (operator, method), as the runtime returns it:
    the program is untrusted, so bytes that are not UTF-8 show as \\xNN escapes."""
    return raw.decode("utf-8", errors="backslashreplace")


def _load_lib(path=None):
    """The runtime library at `path` (default: library_path()), loaded once per path."""
    path = Path(path) if path is not None else library_path()
    if str(path) in _libs:
        return _libs[str(path)]
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: build it with "
                                "`cmake -S . -B build/host && cmake --build build/host` or set MOTE_LIB")
    lib = C.CDLL(str(path))
    vp, u32, i32, sz = C.c_void_p, C.c_uint32, C.c_int32, C.c_size_t
    sigs = {
        "mote_program_load": (i32, [vp, vp, sz]),
        "mote_program_method_count": (u32, [vp]),
        "mote_program_method_index": (i32, [vp, C.c_char_p, C.POINTER(u32)]),
        "mote_program_method_name": (i32, [vp, u32, C.POINTER(C.c_char_p)]),
        "mote_program_operator_name": (i32, [vp, u32, u32, C.POINTER(C.c_char_p), C.POINTER(C.c_char_p)]),
        "mote_method_memory_requirements": (i32, [vp, u32, C.POINTER(_Requirements)]),
        "mote_method_init": (i32, [vp, vp, u32, C.POINTER(_Memory)]),
        "mote_method_execute": (i32, [vp]),
        "mote_method_reset_state": (i32, [vp]),
        "mote_method_failed_operator": (i32, [vp]),
        "mote_method_failed_instruction": (i32, [vp]),
        "mote_method_num_inputs": (u32, [vp]),
        "mote_method_num_outputs": (u32, [vp]),
        "mote_method_input_value": (i32, [vp, u32, C.POINTER(C.POINTER(_Value))]),
        "mote_method_output_value": (i32, [vp, u32, C.POINTER(C.POINTER(_Value))]),
        "mote_method_set_input_checked": (i32, [vp, u32, C.c_uint8, C.POINTER(C.c_int64), u32, vp, sz]),
        "mote_method_state_counts": (i32, [vp, u32, C.POINTER(C.c_uint64)]),
        "mote_err_name": (C.c_char_p, [i32]),
        "mote_host_sizeof_program": (sz, []),
        "mote_host_sizeof_method": (sz, []),
        "mote_host_sizeof_data_map": (sz, []),
        "mote_data_map_load": (i32, [vp, vp, sz]),
        "mote_data_map_index_size": (sz, [vp]),
        "mote_data_map_set_index": (i32, [vp, vp, sz]),
        "mote_program_named_index_size": (sz, [vp]),
        "mote_program_set_named_index": (i32, [vp, vp, sz]),
        "mote_program_set_data_map": (i32, [vp, vp]),
        "mote_host_max_arenas": (u32, []),
        "mote_method_destroy": (None, [vp]),
        "mote_method_backend_pool_used": (sz, [vp]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    # Only in a library built with MOTE_TRACE (mote/trace.h); the host build has it.
    lib.mote_traced = hasattr(lib, "mote_method_set_tracer")
    if lib.mote_traced:
        lib.mote_method_set_tracer.restype = i32
        lib.mote_method_set_tracer.argtypes = [vp, C.POINTER(_Tracer)]
        lib.mote_method_value.restype = i32
        lib.mote_method_value.argtypes = [vp, u32, C.POINTER(C.POINTER(_Value))]
    if lib.mote_host_max_arenas() != MAX_ARENAS:
        raise RuntimeError("libmote.so was built with a different MOTE_MAX_ARENAS")
    _libs[str(path)] = lib
    return lib


def _error(name: str, what: str) -> RuntimeCallError:
    """The binding's own refusal, with the code the C runtime uses for it."""
    return MoteError(error_codes()[name], f"MOTE_ERR_{name}", what)


def err_name(code: int, lib=None) -> str:
    return (lib or _load_lib()).mote_err_name(code).decode()


def _check(lib, code: int, what: str = "") -> None:
    if code != 0:
        raise MoteError(code, err_name(code, lib), what)


def _aligned(nbytes: int, align: int) -> np.ndarray:
    """A zeroed uint8 array of nbytes whose data address is a multiple of align."""
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes]


def _read(source) -> bytes:
    return Path(source).read_bytes() if isinstance(source, (str, os.PathLike)) else bytes(source)


#: the backend pool a host Method gives its delegates (mote/backend.h), bytes:
#: XNNPACK's packed weights and workspace; pages are only touched when used
HOST_BACKEND_POOL_BYTES = 64 << 20
#: the largest pool :func:`method_sized` tries (virtual memory: untouched pages cost nothing)
HOST_BACKEND_POOL_MAX_BYTES = 16 << 30


def method_sized(program: "Program", name=None, pool: int = HOST_BACKEND_POOL_BYTES) -> "Method":
    """``program.method(name)`` with a backend pool sized from the program: `pool` bytes
    first (e.g. what an earlier run measured), doubled while the delegates' init reports
    MOTE_ERR_BACKEND_MEMORY, up to HOST_BACKEND_POOL_MAX_BYTES (then that error, naming
    the pool). ``Method.backend_pool_used`` then says what the delegates took."""
    pool = max(int(pool), 1 << 20)
    while True:
        try:
            return program.method(name, backend_pool=pool)
        except RuntimeCallError as e:
            if e.name != "MOTE_ERR_BACKEND_MEMORY" or pool >= HOST_BACKEND_POOL_MAX_BYTES:
                raise
            pool = min(2 * pool, HOST_BACKEND_POOL_MAX_BYTES)


class Program:
    """A loaded .pte program (a private aligned copy of the bytes)."""

    def __init__(self, source, library=None, data_map=None):
        """source: a path or the bytes of a .pte; library: path of a libmote build (default
        library_path()); data_map: a path or the bytes of the .ptd holding the program's
        external weights (mote/data_map.h), attached before any method is initialised."""
        lib = self._lib = _load_lib(library)
        #: the file the program came from ("" for bytes): every error of a call on it names it
        self.label = str(source) if isinstance(source, (str, os.PathLike)) else ""
        data = _read(source)
        self._data = _aligned(len(data), PROGRAM_ALIGN)
        self._data[:] = np.frombuffer(data, dtype=np.uint8)
        self._obj = _aligned(lib.mote_host_sizeof_program(), 16)
        code = lib.mote_program_load(self._obj.ctypes.data, self._data.ctypes.data, len(data))
        if code != 0:
            name = f"{source}" if isinstance(source, (str, os.PathLike)) else "the program"
            hint = {"MOTE_ERR_BAD_IDENTIFIER": f"load {name}: not a .pte program (no ET12 identifier at byte 4)"
                                               + ("; a .ptd goes to --ptd" if bytes(data[4:8]) == b"FT01" else "")
                    }.get(err_name(code, lib), f"load {name}")
            raise MoteError(code, err_name(code, lib), hint)
        # the named data's lookup index (mote/program.h): binary searches instead of a scan per key
        self._named_index = _aligned(max(lib.mote_program_named_index_size(self._obj.ctypes.data), 4), 4)
        _check(lib, lib.mote_program_set_named_index(self._obj.ctypes.data, self._named_index.ctypes.data,
                                                     len(self._named_index)), self.where("named data index"))
        if data_map is not None:
            ptd = _read(data_map)
            self._ptd = _aligned(len(ptd), PROGRAM_ALIGN)
            self._ptd[:] = np.frombuffer(ptd, dtype=np.uint8)
            self._map = _aligned(lib.mote_host_sizeof_data_map(), 16)
            label = f"{data_map}" if isinstance(data_map, (str, os.PathLike)) else ".ptd"
            code = lib.mote_data_map_load(self._map.ctypes.data, self._ptd.ctypes.data, len(ptd))
            hint = {"MOTE_ERR_BAD_IDENTIFIER": "no FT01 flat-tensor identifier at byte 4",
                    "MOTE_ERR_TRUNCATED": "shorter than its header says"}.get(err_name(code, lib) if code else "")
            if hint:
                label += f" is not a .ptd file ({hint})"
            _check(lib, code, f"load {label}")
            # keys not in order (ExecuTorch's .ptd): an index in our memory, so each lookup is a binary search
            self._map_index = _aligned(max(lib.mote_data_map_index_size(self._map.ctypes.data), 4), 4)
            _check(lib, lib.mote_data_map_set_index(self._map.ctypes.data, self._map_index.ctypes.data,
                                                    len(self._map_index)), f"index {label}")
            _check(lib, lib.mote_program_set_data_map(self._obj.ctypes.data, self._map.ctypes.data),
                   self.where(f"attach {label}"))

    @property
    def _ptr(self):
        return self._obj.ctypes.data

    def where(self, what: str) -> str:
        """`what` prefixed with the program's file ("m.pte: requirements"), for error lines."""
        return f"{self.label}: {what}" if self.label else what

    @property
    def method_names(self) -> list:
        lib = self._lib
        names = []
        for i in range(lib.mote_program_method_count(self._ptr)):
            s = C.c_char_p()
            _check(lib, lib.mote_program_method_name(self._ptr, i, C.byref(s)), self.where(f"method {i}'s name"))
            names.append(_c_text(s.value))
        return names

    @property
    def method_count(self) -> int:
        """Number of methods (execution plans)."""
        return int(self._lib.mote_program_method_count(self._ptr))

    def method_index(self, name: str) -> int:
        idx = C.c_uint32()
        _check(self._lib, self._lib.mote_program_method_index(self._ptr, name.encode(), C.byref(idx)), self.where(name))
        return idx.value

    def requirements(self, method="forward") -> Requirements:
        idx = method if isinstance(method, int) else self.method_index(method)
        req = _Requirements()
        _check(self._lib, self._lib.mote_method_memory_requirements(self._ptr, idx, C.byref(req)), self.where("requirements"))
        return Requirements(req.state_size, req.state_align,
                            tuple(req.arena_size[i] for i in range(req.num_arenas)), req.arena_align)

    def state_counts(self, method=0) -> dict:
        """Entries of each runtime-state region (see mote_method_state_counts):
        {"values", "tensors", "ints", "tptrs", "instrs", "kargs"} -> count."""
        idx = method if isinstance(method, int) else self.method_index(method)
        arr = (C.c_uint64 * 6)()
        _check(self._lib, self._lib.mote_method_state_counts(self._ptr, idx, arr), self.where("state counts"))
        return dict(zip(("values", "tensors", "ints", "tptrs", "instrs", "kargs"), (int(v) for v in arr)))

    def operator_name(self, method_index: int, op_index: int) -> str:
        n, o = C.c_char_p(), C.c_char_p()
        _check(self._lib, self._lib.mote_program_operator_name(self._ptr, method_index, op_index,
                                                      C.byref(n), C.byref(o)))
        return f"{_c_text(n.value)}.{_c_text(o.value)}" if o.value else _c_text(n.value)

    def method(self, name=None, state_size: int | None = None, arena_sizes=None,
               scratch_slots=None, share_state_with: "Method | None" = None,
               backend_pool: int = HOST_BACKEND_POOL_BYTES) -> "Method":
        """Initialises a method: `name` (str), an index, or None for the first.
        state_size / arena_sizes override the buffer sizes (for tests);
        backend_pool: bytes of the pool its delegates allocate from;
        scratch_slots: (instruction, offset, size) kernel scratch planned in arena 1;
        share_state_with: a method of this program whose mutable-buffer arena
        (memory id 2) this one uses too, so both see one state (prefill and
        decode over one KV cache). Init writes the initial values into it: init
        every method before the first run."""
        return Method(self, 0 if name is None else name, state_size, arena_sizes, scratch_slots,
                      share_state_with, backend_pool)


#: Shared kernel scratch (bytes) a host Method gives every call without a planned
#: slot: on the host the int8 reference kernels need scratch only to run in place
#: by rows (their row ring, kernels/requant.h), and a .pte does not carry the
#: plan's slots, so a generous buffer stands in for them (mote-run gives the
#: same: ports/linux/mote_run.c RUN_SCRATCH_BYTES).
HOST_SCRATCH_BYTES = 1 << 20


class Method:
    """An initialised method with its own state and arenas."""

    def __init__(self, program: Program, name="forward", state_size: int | None = None, arena_sizes=None,
                 scratch_slots=None, share_state_with=None, backend_pool: int = HOST_BACKEND_POOL_BYTES):
        lib = self._lib = program._lib
        self.program = program
        self.index = name if isinstance(name, int) else program.method_index(name)
        self.requirements = program.requirements(self.index)
        req = self.requirements
        n = req.state_size if state_size is None else state_size
        self._state = _aligned(n, max(req.state_align, 16))
        sizes = req.arena_sizes if arena_sizes is None else tuple(arena_sizes)
        self._arenas = [_aligned(s, req.arena_align) for s in sizes]
        if share_state_with is not None:
            other = share_state_with
            if other.program is not program or len(other._arenas) < 2 or len(self._arenas) < 2 \
                    or other._arenas[1].size != self._arenas[1].size:
                raise _error("INVALID_ARGUMENT", "share_state_with: not a method of this program with the same "
                                                 "mutable-buffer arena")
            self._arenas[1] = other._arenas[1]
        self._mem = _Memory()
        self._mem.state = _Buffer(self._state.ctypes.data, n)
        for i, a in enumerate(self._arenas):
            self._mem.arenas[i] = _Buffer(a.ctypes.data, a.size)
        self._mem.num_arenas = len(self._arenas)
        slots = [tuple(int(x) for x in s) for s in (scratch_slots or [])]
        self._slots = (_ScratchSlot * max(len(slots), 1))(*[_ScratchSlot(*s) for s in slots])
        self._scratch = _aligned(HOST_SCRATCH_BYTES, 16)
        self._mem.scratch = _Buffer(self._scratch.ctypes.data, HOST_SCRATCH_BYTES)
        if slots:
            self._mem.scratch_slots = C.cast(self._slots, C.POINTER(_ScratchSlot))
            self._mem.num_scratch_slots = len(slots)
        self._pool = _aligned(backend_pool, 16)
        self._mem.backend = _Buffer(self._pool.ctypes.data, backend_pool)
        self._obj = _aligned(lib.mote_host_sizeof_method(), 16)
        code = lib.mote_method_init(self._ptr, program._ptr, self.index, C.byref(self._mem))
        self._initialised = code == 0
        if code != 0:
            what = "init"
            op = lib.mote_method_failed_operator(self._ptr)
            if err_name(code, lib) == "MOTE_ERR_BACKEND_MEMORY":
                what += (f" (the delegates need more than the {backend_pool / (1 << 20):g} MiB backend pool: "
                         "Program.method(backend_pool=BYTES) sets it; aot compare and aot run grow it as the "
                         "program needs)")
            elif op >= 0:
                what += f" (no kernel for {program.operator_name(self.index, op)})"
                self.missing_operator = program.operator_name(self.index, op)
            raise MoteError(code, err_name(code, lib), program.where(what))

    @property
    def _ptr(self):
        return self._obj.ctypes.data

    def __del__(self):
        # the delegates' library handles (their memory is self._pool); a plain
        # address, as numpy may be gone at interpreter exit
        if getattr(self, "_initialised", False):
            self._initialised = False
            self._lib.mote_method_destroy(self._obj.__array_interface__["data"][0])

    @property
    def backend_pool_used(self) -> int:
        """Bytes of the backend pool the method's delegates took at most (0 without delegates)."""
        return int(self._lib.mote_method_backend_pool_used(self._ptr))

    @property
    def num_inputs(self) -> int:
        return self._lib.mote_method_num_inputs(self._ptr)

    @property
    def num_outputs(self) -> int:
        return self._lib.mote_method_num_outputs(self._ptr)

    def _value(self, i: int, output: bool):
        v = C.POINTER(_Value)()
        fn = self._lib.mote_method_output_value if output else self._lib.mote_method_input_value
        _check(self._lib, fn(self._ptr, i, C.byref(v)), "output" if output else "input")
        return v.contents

    @staticmethod
    def _info(t: _Tensor) -> TensorInfo:
        shape = tuple(t.sizes[k] for k in range(t.dim))
        return TensorInfo(np.dtype(DTYPE_NUMPY[t.dtype]), shape, t.nbytes)

    def input_info(self, i: int) -> TensorInfo:
        v = self._value(i, False)
        if v.tag != TAG_TENSOR:
            raise _error("BAD_VALUE_TYPE", f"input {i} is not a tensor")
        return self._info(v.u.t.contents)

    def output_info(self, i: int) -> TensorInfo:
        v = self._value(i, True)
        if v.tag != TAG_TENSOR:
            raise _error("BAD_VALUE_TYPE", f"output {i} is not a tensor")
        return self._info(v.u.t.contents)

    def set_input(self, i: int, array) -> None:
        a = np.asarray(array, order="C")  # not ascontiguousarray: it turns a 0-d array into [1]
        if a.dtype not in NUMPY_CODES:
            raise _error("INPUT_DTYPE", f"input {i}: numpy dtype {a.dtype}")
        want = self.input_info(i)
        if a.dtype != want.dtype:
            raise _error("INPUT_DTYPE", f"input {i}: the program takes {want.dtype}, got {a.dtype}")
        if tuple(a.shape) != tuple(want.shape):
            raise _error("INPUT_SHAPE", f"input {i}: the program takes shape {list(want.shape)}, got {list(a.shape)}")
        sizes = (C.c_int64 * max(a.ndim, 1))(*a.shape)
        _check(self._lib, self._lib.mote_method_set_input_checked(self._ptr, i, NUMPY_CODES[a.dtype], sizes, a.ndim,
                                                         a.ctypes.data, a.nbytes), f"input {i}")

    def reset_state(self) -> None:
        """Set the method's mutable buffers (model state kept across calls)
        back to their initial values (mote_method_reset_state)."""
        _check(self._lib, self._lib.mote_method_reset_state(self._ptr), "reset_state")

    def execute(self) -> None:
        code = self._lib.mote_method_execute(self._ptr)
        if code != 0:
            pc = self._lib.mote_method_failed_instruction(self._ptr)
            err = MoteError(code, err_name(code, self._lib), f"execute (instruction {pc})")
            err.instruction = int(pc)
            raise err

    @classmethod
    def _array(cls, t: _Tensor) -> np.ndarray:
        """A copy of tensor `t`'s data (its logical shape, its dtype)."""
        info = cls._info(t)
        if not t.nbytes:
            return np.zeros(info.shape, dtype=info.dtype)
        buf = (C.c_uint8 * t.nbytes).from_address(t.data)
        return np.frombuffer(bytes(buf), dtype=info.dtype).reshape(info.shape)

    def run_traced(self, inputs, capture=None) -> Trace:
        """run() with the event tracer attached: ticks around every instruction
        and, for capture = {instruction: [value indices]}, copies of those
        tensor values right after that instruction ran (a numerical
        debugger's intermediate outputs). Needs a MOTE_TRACE library."""
        if not self._lib.mote_traced:
            raise _error("UNSUPPORTED", "this runtime library was built without MOTE_TRACE")
        cap = {int(k): [int(x) for x in v] for k, v in (capture or {}).items()}
        captured: dict = {}
        # a JumpFalse loop can run an instruction more than once: room for 4 passes
        n_events = max(4 * self.program.state_counts(self.index)["instrs"], 16)
        events = (_TraceEvent * n_events)()

        def after(_user, _m, instr):
            for vi in cap.get(instr, ()):
                v = C.POINTER(_Value)()
                if self._lib.mote_method_value(self._ptr, vi, C.byref(v)) == 0 and v.contents.tag == TAG_TENSOR:
                    captured.setdefault(instr, []).append(self._array(v.contents.u.t.contents))

        fn = _TraceFn(after) if cap else _TraceFn()
        tracer = _Tracer(events=events, capacity=n_events, after=fn)
        _check(self._lib, self._lib.mote_method_set_tracer(self._ptr, C.byref(tracer)), "tracer")
        try:
            outs = self.run(inputs)
        finally:
            _check(self._lib, self._lib.mote_method_set_tracer(self._ptr, None), "tracer")
        evs = [(e.instr, e.start, e.end) for e in events[:tracer.count]]
        return Trace(outputs=outs, events=evs, overhead=tracer.overhead,
                     run_ticks=(tracer.run_end - tracer.run_start) & 0xFFFFFFFF,
                     dropped=tracer.dropped, captured=captured)

    def outputs(self) -> list:
        outs = []
        for i in range(self.num_outputs):
            v = self._value(i, True)
            if v.tag == TAG_TENSOR:
                outs.append(self._array(v.u.t.contents))
            elif v.tag == TAG_INT:
                outs.append(int(v.u.i))
            elif v.tag == TAG_BOOL:
                outs.append(bool(v.u.b))
            elif v.tag == TAG_DOUBLE:
                outs.append(float(v.u.d))
            else:
                outs.append(None)
        return outs

    def run(self, inputs) -> list:
        """Copies inputs in, executes once, returns copies of the outputs."""
        inputs = list(inputs)
        if len(inputs) != self.num_inputs:
            raise _error("INPUT_INDEX", f"method takes {self.num_inputs} inputs, {len(inputs)} given")
        for i, x in enumerate(inputs):
            self.set_input(i, x)
        self.execute()
        return self.outputs()


def _read_inputs(paths) -> list:
    arrays = []
    for p in paths:
        if str(p).endswith(".npz"):
            arrays.extend(load_npz_inputs(p))
        else:
            arrays.append(np.load(p))
    return arrays


def main(argv=None) -> int:
    """mote-run in Python: python -m aot.host.runtime program.pte [in.npy|in.npz ...] [-o out.npz];
    the old form of `aot run` (kept one release)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m aot.host.runtime",
                                 description="Run a .pte method on the host runtime (libmote.so).")
    ap.add_argument("program")
    ap.add_argument("inputs", nargs="*", help=".npy files, or .npz files (arrays in arr_0, arr_1, ... order)")
    ap.add_argument("-m", "--method", default="forward")
    ap.add_argument("-o", "--output", default="out.npz", help=".npz with output_0, output_1, ...")
    ap.add_argument("--lib", default=None, help="libmote.so to use (default: MOTE_LIB or build/host)")
    args = ap.parse_args(argv)
    try:
        m = Program(args.program, library=args.lib).method(args.method)
        outs = m.run(_read_inputs(args.inputs))
    except MoteError as e:
        print(f"mote-run: {e}")
        return 2
    np.savez(args.output, **{f"output_{i}": np.asarray(o) for i, o in enumerate(outs)})
    for i, o in enumerate(outs):
        o = np.asarray(o)
        print(f"output {i}: {o.dtype} {list(o.shape)}")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.host.runtime PROGRAM.pte IN.npz -o OUT.npz",
                           "aot run PROGRAM.pte --inputs IN.npz --outputs OUT.npz")
    raise SystemExit(main())

