"""Emit a :class:`aot.ir.ProgramSpec` as a .pte file (ExecuTorch "ET12" format).

File layout written by :func:`emit_program` (all integers little-endian)::

    0   uint32  root table offset (absolute, from byte 0)
    4   "ET12"  flatbuffer file identifier
    8   "eh00"  extended header magic
    12  uint32  extended header length = 40
    16  uint64  program_size: bytes of the flatbuffer *including* this header
    24  uint64  segment_base_offset: file offset of the first data segment
    32  uint64  segment_data_size: bytes from segment_base_offset to the end
    40  "MOTE"  format-version stamp, then uint32 MOTE_PTE_FORMAT_VERSION
    48  ...     rest of the flatbuffer (its relative offsets are unchanged)
    ... zero padding up to segment_base_offset (a multiple of 128)
    segment 0: constant data (every constant tensor, each 16-byte aligned)
    segment 1: initial data of the mutable buffers (only when there are any)
    then one segment per delegate payload (BackendDelegate.processed =
    SEGMENT, index), in the order of the DelegateCall instructions

Value table: the spec's values keep their indices. ExecuTorch's IntList
items are *value indices of Int EValues*, so for every :class:`IntListValue`
the emitter appends Int EValues after the spec's values (one per distinct
integer, shared between lists) and writes their indices as the list items.

Constants: ``Program.constant_segment`` = SubsegmentOffsets(segment 0,
offsets); ``offsets[0]`` is the reserved empty buffer; a constant tensor's
``data_buffer_idx`` (>= 1) indexes ``offsets``. Identical constant bytes share
one buffer. Planned tensors get ``allocation_info`` (memory_id, offset
low/high 32 bits) and ``data_buffer_idx`` 0; unplanned tensors get neither.

Mutable buffers (ExecuTorch's layout for buffers with an initial value): the
tensor is planned *and* has ``data_buffer_idx`` k >= 1, which indexes
``Program.mutable_data_segments[0].offsets`` (SubsegmentOffsets of segment 1;
``offsets[0]`` reserved as for constants); its ``extra_tensor_info`` gives
``mutable_data_segments_idx`` 0 and the buffer's ``fully_qualified_name``. The
runtime copies those bytes into the planned storage at init (and on reset).

KernelCall args are written as given: the spec must follow ExecuTorch's
calling convention (schema arguments in order, out arguments included,
then the returned values, i.e. an out-variant op repeats its out tensor
last: ``relu.out`` args = [self, out, out]).
"""
from __future__ import annotations

from aot.errors import EmitError

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from aot import ir
from aot.pte import schema as fb
from aot.pte.header import EH_PADDED_LENGTH, write_header

#: alignment in bytes of data segments (relative to the file start)
SEGMENT_ALIGNMENT = 128
#: alignment in bytes of each constant inside the constant segment
CONSTANT_ALIGNMENT = 16


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


_LEAF = {"type": None, "context": None, "children_spec": []}


def _tuple_spec(children: list) -> dict:
    return {"type": "builtins.tuple", "context": "null", "children_spec": children}


def container_metadata(n_inputs: int, n_outputs: int) -> fb.ContainerMetadata:
    """Pytree spec strings ExecuTorch's pybindings use to flatten inputs and
    unflatten outputs, for ``n_inputs`` positional tensor inputs and
    ``n_outputs`` tensor outputs (a single output is a bare leaf, several are
    a tuple), in the same JSON form torch.export's serialized TreeSpec uses
    (protocol 1)."""
    inp = [1, _tuple_spec([_tuple_spec([dict(_LEAF) for _ in range(n_inputs)]),
                           {"type": "builtins.dict", "context": "[]", "children_spec": []}])]
    if n_outputs == 1:
        out = [1, dict(_LEAF)]
    else:
        out = [1, _tuple_spec([dict(_LEAF) for _ in range(n_outputs)])]
    return fb.ContainerMetadata(encoded_inp_str=json.dumps(inp), encoded_out_str=json.dumps(out))


@dataclass
class EmitResult:
    """Everything :func:`build_program` decided.

    data: the .pte bytes; program: the schema object written;
    constant_segment: the constant segment bytes; constant_offsets: its
    SubsegmentOffsets.offsets (bytes); buffer_of_value: spec value index ->
    data_buffer_idx for constants; int_values: appended Int value index per
    integer; program_size / segment_base_offset: header fields (bytes)."""
    data: bytes
    program: fb.Program
    constant_segment: bytes
    constant_offsets: list
    buffer_of_value: dict = field(default_factory=dict)
    int_values: dict = field(default_factory=dict)
    program_size: int = 0
    segment_base_offset: int = 0
    #: external weights: the NamedTensors the program refers to by key (aot.pte.flat_tensor)
    external: list = field(default_factory=list)


def _source_frames(source: str) -> fb.FrameList:
    if not source:
        return fb.FrameList(items=[])
    filename, sep, rest = source.rpartition(":")
    line = rest.split()[0] if rest.split() else ""
    if sep and line.isdigit():
        name = rest[len(line):].strip().strip("()") or None
        if name and name.startswith("in "):
            name = name[3:].strip()
        return fb.FrameList(items=[fb.Frame(filename=filename, lineno=int(line), name=name)])
    return fb.FrameList(items=[fb.Frame(filename=source, lineno=0)])


def _wire_overload(op: str, overload: str) -> str:
    """The overload as written: ExecuTorch registers an ATen op's default
    overload under the bare name ("aten::copy_", overload ""), and its runtime
    finds no "aten::copy_.default"; Mote's runtime reads "" as "default"."""
    return "" if op.startswith("aten::") and overload == "default" else overload


def _check_index(i, n: int, what: str) -> None:
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n:
        raise EmitError(f"{what}: value index {i!r} out of range [0, {n})")


class _Segment:
    """One data segment being written: bytes, and the subsegment offsets of the
    buffers in it (``offsets[0]`` is the reserved empty buffer); identical
    bytes are stored once."""

    def __init__(self):
        self.data = bytearray()
        self.offsets = [0]
        self._by_bytes: dict = {}

    def add(self, data: bytes) -> int:
        """Store ``data`` (16-byte aligned); returns its buffer index (>= 1)."""
        idx = self._by_bytes.get(data)
        if idx is None:
            if len(self.offsets) > 1:
                self.data.extend(b"\0" * (_align(len(self.data), CONSTANT_ALIGNMENT) - len(self.data)))
            idx = len(self.offsets)
            self.offsets.append(len(self.data))
            self.data.extend(data)
            self._by_bytes[data] = idx
        return idx


def _tensor(spec: ir.ProgramSpec, idx: int, t: ir.TensorValue, buffer_idx: Optional[int],
            external_key: Optional[str] = None) -> fb.Tensor:
    if t.dtype not in ir.DTYPE_SIZES:
        raise EmitError(f"value {idx}: unsupported dtype code {t.dtype}")
    if any((not isinstance(s, int)) or s < 0 for s in t.sizes):
        raise EmitError(f"value {idx}: bad sizes {t.sizes}")
    dim_order = list(range(len(t.sizes))) if t.dim_order is None else list(t.dim_order)
    if sorted(dim_order) != list(range(len(t.sizes))):
        raise EmitError(f"value {idx}: dim_order {dim_order} is not a permutation of 0..{len(t.sizes) - 1}")
    alloc = None
    if t.mem_id is not None or t.mem_offset is not None:
        if t.constant is not None:
            raise EmitError(f"value {idx}: tensor is both constant and planned")
        if t.mem_id is None or t.mem_offset is None:
            raise EmitError(f"value {idx}: planned tensor needs both mem_id and mem_offset")
        if not 1 <= t.mem_id < len(spec.arena_sizes):
            raise EmitError(f"value {idx}: mem_id {t.mem_id} not in 1..{len(spec.arena_sizes) - 1}")
        if t.mem_offset < 0 or t.mem_offset + t.nbytes > spec.arena_sizes[t.mem_id]:
            raise EmitError(f"value {idx}: [{t.mem_offset}, {t.mem_offset + t.nbytes}) outside arena "
                            f"{t.mem_id} of {spec.arena_sizes[t.mem_id]} bytes")
        alloc = fb.AllocationDetails(memory_id=t.mem_id, memory_offset_low=t.mem_offset & 0xFFFFFFFF,
                                     memory_offset_high=t.mem_offset >> 32)
    extra = None
    if external_key is not None:
        extra = fb.ExtraTensorInfo(fully_qualified_name=external_key, location=fb.TensorDataLocation.EXTERNAL)
    if t.is_mutable:
        if alloc is None:
            raise EmitError(f"value {idx}: mutable buffer {t.fqn} is not planned")
        extra = fb.ExtraTensorInfo(mutable_data_segments_idx=0, fully_qualified_name=t.fqn or None,
                                   location=fb.TensorDataLocation.SEGMENT)
    return fb.Tensor(scalar_type=t.dtype, storage_offset=0, sizes=list(t.sizes), dim_order=dim_order,
                     requires_grad=False, data_buffer_idx=buffer_idx or 0, allocation_info=alloc,
                     layout=0, shape_dynamism=fb.TensorShapeDynamism.STATIC, extra_tensor_info=extra)


def _emit_plan(spec: ir.ProgramSpec, consts: _Segment, mutable: _Segment, external=None,
               payloads: Optional[list] = None) -> tuple:
    """The ExecutionPlan of ``spec``, its constants and initial values added to
    ``consts`` / ``mutable`` and each delegate's (reference, payload) to
    ``payloads`` (the reference's segment index is its position there until
    build_program places the segments; with ``external``, a dict key -> NamedTensor, the
    constants go there instead and the tensors name their key). Returns
    (plan, buffer_of_value, int_values)."""
    n = len(spec.values)
    payloads = [] if payloads is None else payloads
    if not spec.arena_sizes or spec.arena_sizes[0] != 0:
        raise EmitError("arena_sizes[0] is ExecuTorch's reserved entry and must be 0")
    if any((not isinstance(s, int)) or s < 0 for s in spec.arena_sizes):
        raise EmitError(f"bad arena_sizes {spec.arena_sizes}")

    values: list = [None] * n
    int_values: dict = {}
    extra: list = []
    buffer_of_value: dict = {}

    def int_value(x: int) -> int:
        if x not in int_values:
            int_values[x] = n + len(extra)
            extra.append(fb.EValue(val=fb.Int(int_val=x)))
        return int_values[x]

    for i, v in enumerate(spec.values):
        if v is None:
            ev = fb.Null()
        elif isinstance(v, bool):
            ev = fb.Bool(bool_val=v)
        elif isinstance(v, int):
            if not -2**63 <= v < 2**63:
                raise EmitError(f"value {i}: int {v} does not fit int64")
            ev = fb.Int(int_val=v)
        elif isinstance(v, float):
            ev = fb.Double(double_val=v)
        elif isinstance(v, str):
            ev = fb.String(string_val=v)
        elif isinstance(v, ir.TensorValue):
            bidx = None
            if v.constant is not None or v.is_mutable:
                data = bytes(v.constant if v.constant is not None else v.initial)
                if len(data) != v.nbytes:
                    raise EmitError(f"value {i}: {'constant' if v.constant is not None else 'initial value'} "
                                    f"has {len(data)} bytes, tensor needs {v.nbytes}")
                if v.constant is not None and v.is_mutable:
                    raise EmitError(f"value {i}: tensor is both constant and a mutable buffer")
                if v.constant is not None and external is not None:
                    from aot.pte.flat_tensor import NamedTensor, content_key
                    key = content_key(v.dtype, v.sizes, data)
                    dim_order = list(range(len(v.sizes))) if v.dim_order is None else list(v.dim_order)
                    external.setdefault(key, NamedTensor(key, v.dtype, list(v.sizes), dim_order, data))
                    values[i] = fb.EValue(val=_tensor(spec, i, v, None, external_key=key))
                    continue
                bidx = (consts if v.constant is not None else mutable).add(data)
                if v.constant is not None:
                    buffer_of_value[i] = bidx
            ev = _tensor(spec, i, v, bidx)
        elif isinstance(v, ir.IntListValue):
            for x in v.items:
                if not isinstance(x, int) or isinstance(x, bool) or not -2**63 <= x < 2**63:
                    raise EmitError(f"value {i}: IntList item {x!r} is not an int64")
            ev = fb.IntList(items=[int_value(x) for x in v.items])
        elif isinstance(v, ir.TensorListValue):
            for x in v.items:
                if v.optional and x == -1:
                    continue
                _check_index(x, n, f"value {i} (tensor list)")
                if not isinstance(spec.values[x], ir.TensorValue):
                    raise EmitError(f"value {i}: tensor list item {x} is not a tensor")
            ev = (fb.OptionalTensorList if v.optional else fb.TensorList)(items=list(v.items))
        elif isinstance(v, ir.DoubleListValue):
            ev = fb.DoubleList(items=[float(x) for x in v.items])
        elif isinstance(v, ir.BoolListValue):
            ev = fb.BoolList(items=[bool(x) for x in v.items])
        else:
            raise EmitError(f"value {i}: unsupported value type {type(v).__name__}")
        values[i] = fb.EValue(val=ev)
    values.extend(extra)

    for what, lst in (("input", spec.inputs), ("output", spec.outputs)):
        for x in lst:
            _check_index(x, n, what)
            if not isinstance(spec.values[x], ir.TensorValue):
                raise EmitError(f"{what} {x} is not a tensor")

    operators: list = []
    op_index: dict = {}
    instructions: list = []
    frames: list = []
    delegates: list = []
    for k, call in enumerate(spec.instructions):
        if isinstance(call, ir.DelegateCall):
            for a in call.args:
                _check_index(a, n, f"instruction {k} (delegate {call.backend})")
            ref = fb.BackendDelegateDataReference(location=fb.DataLocation.SEGMENT, index=len(payloads))
            payloads.append((ref, bytes(call.payload)))
            delegates.append(fb.BackendDelegate(id=call.backend, processed=ref, compile_specs=[
                fb.CompileSpec(key=key, value=bytes(val)) for key, val in call.compile_specs]))
            instructions.append(fb.Instruction(instr_args=fb.DelegateCall(delegate_index=len(delegates) - 1,
                                                                          args=list(call.args))))
            frames.append(_source_frames(call.source))
            continue
        if not isinstance(call, ir.KernelCall):
            raise EmitError(f"instruction {k}: unsupported {type(call).__name__}")
        if "::" not in call.op:
            raise EmitError(f"instruction {k}: operator {call.op!r} lacks a namespace")
        key = (call.op, call.overload)
        if key not in op_index:
            op_index[key] = len(operators)
            operators.append(fb.Operator(name=call.op, overload=_wire_overload(call.op, call.overload)))
        for a in call.args:
            _check_index(a, n, f"instruction {k} ({call.op}.{call.overload})")
        instructions.append(fb.Instruction(instr_args=fb.KernelCall(op_index=op_index[key],
                                                                    args=list(call.args))))
        frames.append(_source_frames(call.source))
    stacktrace = frames if any(f.items for f in frames) else None

    plan = fb.ExecutionPlan(
        name=spec.method_name,
        container_meta_type=container_metadata(len(spec.inputs), len(spec.outputs)),
        values=values, inputs=list(spec.inputs), outputs=list(spec.outputs),
        chains=[fb.Chain(inputs=list(spec.inputs), outputs=list(spec.outputs),
                         instructions=instructions, stacktrace=stacktrace)],
        operators=operators, delegates=delegates, non_const_buffer_sizes=list(spec.arena_sizes))
    return plan, buffer_of_value, int_values


def build_program(specs, external: bool = False) -> EmitResult:
    """Lower ``specs`` (one :class:`aot.ir.ProgramSpec`, or a list: one method
    each, unique names, in the order the program lists them) to a schema
    Program and the .pte bytes (see module doc). The methods share one constant
    segment (identical bytes stored once) and one mutable-data segment.
    external: every constant tensor goes to ``EmitResult.external`` instead
    (a .ptd's NamedTensors, keyed by content: aot.pte.flat_tensor.content_key)
    and the program names it (ExtraTensorInfo location EXTERNAL).

    Raises EmitError for an inconsistent spec (index out of range, constant
    length != nbytes, planned tensor outside its arena, non-tensor input,
    two methods of one name...)."""
    specs = [specs] if isinstance(specs, ir.ProgramSpec) else list(specs)
    if not specs:
        raise EmitError("a program needs at least one method")
    names = [s.method_name for s in specs]
    if len(set(names)) != len(names):
        raise EmitError(f"method names must be unique, got {names}")
    consts, mutable = _Segment(), _Segment()
    ext = {} if external else None
    plans, first, payloads = [], None, []
    for spec in specs:
        plan, buffer_of_value, int_values = _emit_plan(spec, consts, mutable, ext, payloads)
        plans.append(plan)
        first = first or (buffer_of_value, int_values)
    buffer_of_value, int_values = first
    segments = [bytes(consts.data)] + ([bytes(mutable.data)] if len(mutable.offsets) > 1 else [])
    for ref, payload in payloads:   # delegate payloads: one segment each, after the data segments
        ref.index = len(segments)
        segments.append(payload)
    program = fb.Program(
        version=0, execution_plan=plans, constant_buffer=[], backend_delegate_data=[],
        segments=_segment_table(segments),
        constant_segment=fb.SubsegmentOffsets(segment_index=0, offsets=consts.offsets),
        mutable_data_segments=[fb.SubsegmentOffsets(segment_index=1, offsets=mutable.offsets)]
        if len(segments) > 1 else [], named_data=[])
    try:
        flat = fb.serialize_program(program)
    except fb.SchemaError as e:
        raise EmitError(str(e)) from None
    data, psize, base = assemble(flat, segments)
    return EmitResult(data=data, program=program, constant_segment=bytes(consts.data),
                      constant_offsets=consts.offsets, buffer_of_value=buffer_of_value,
                      external=list(ext.values()) if ext else [],
                      int_values=int_values, program_size=psize, segment_base_offset=base)


def _segment_table(segments: list) -> list:
    """DataSegment entries for ``segments`` laid out as :func:`assemble` does
    (each at a multiple of SEGMENT_ALIGNMENT from the segment base)."""
    table, off = [], 0
    for s in segments:
        off = _align(off, SEGMENT_ALIGNMENT)
        table.append(fb.DataSegment(offset=off, size=len(s)))
        off += len(s)
    return table


def assemble(flatbuffer: bytes, segments: list) -> tuple:
    """Insert the extended header into ``flatbuffer`` and append ``segments``
    (each starting at a multiple of SEGMENT_ALIGNMENT bytes; their
    DataSegment offsets in the flatbuffer must already match this layout).

    Returns (file bytes, program_size, segment_base_offset)."""
    if len(flatbuffer) < 8 or flatbuffer[4:8] != fb.FILE_IDENTIFIER:
        raise EmitError("not an ET12 flatbuffer")
    program_size = len(flatbuffer) + EH_PADDED_LENGTH
    base = _align(program_size, SEGMENT_ALIGNMENT)
    seg_data = bytearray()
    for s in segments:
        seg_data.extend(b"\0" * (_align(len(seg_data), SEGMENT_ALIGNMENT) - len(seg_data)))
        seg_data.extend(s)
    root = int.from_bytes(flatbuffer[0:4], "little") + EH_PADDED_LENGTH
    out = bytearray(root.to_bytes(4, "little"))
    out += flatbuffer[4:8]
    out += write_header(program_size, base, len(seg_data))
    out += flatbuffer[8:]
    out += b"\0" * (base - len(out))
    out += seg_data
    return bytes(out), program_size, base


def emit_program(spec: ir.ProgramSpec) -> bytes:
    """The .pte bytes of ``spec`` (flatbuffer + "eh00" header + constant segment).

    Raises EmitError if the spec is inconsistent."""
    return build_program(spec).data


def atomic_write(path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a
    rename, so readers never see a partial file and a failure leaves the old
    file (or none) and no temporary behind. Mode 0644. Raises OSError."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_pte(spec: ir.ProgramSpec, path) -> int:
    """Emit ``spec`` and write it to ``path`` atomically (temporary file in
    the same directory, fsync, rename): a failed emit or write never leaves a
    partial or stale-but-new file. Returns the file size in bytes.

    Raises EmitError (bad spec) or OSError (I/O)."""
    data = emit_program(spec)
    atomic_write(path, data)
    return len(data)
