"""Read .pte files (Mote's and ExecuTorch's) into plain Python dataclasses.

:func:`read_pte` parses the flatbuffer with :mod:`aot.pte.schema`'s bounds-checked
reader, the optional "eh00" extended header and the data segments, and
resolves every constant tensor's bytes. Any malformation raises
:class:`PteFormatError`.
"""
from __future__ import annotations

from aot.errors import PteFormatError

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from aot import ir
from aot.pte import schema as fb
from aot.pte.header import ExtendedHeader, parse_header

@dataclass
class TensorInfo:
    """A tensor value, flattened. nbytes = numel * element size (bytes).
    kind: "constant" | "planned" | "unplanned" | "external" (bytes in a .ptd
    under key ``fqn``); mem_id/mem_offset for planned;
    buffer_idx (data_buffer_idx) and data (bytes) for constants. A mutable
    buffer (planned with an initial value) also has ``initial`` (bytes) and
    ``fqn`` (its module name, when the program records one)."""
    index: int
    dtype: int
    sizes: list
    dim_order: list
    kind: str
    nbytes: int
    buffer_idx: int = 0
    mem_id: Optional[int] = None
    mem_offset: Optional[int] = None
    data: Optional[bytes] = None
    initial: Optional[bytes] = None
    fqn: str = ""

    @property
    def dtype_name(self) -> str:
        return ir.dtype_name(self.dtype)


@dataclass
class InstructionInfo:
    """kind: "kernel" | "delegate" | "move" | "jump_false" | "free";
    op: "name.overload" for kernels; args: value indices."""
    index: int
    kind: str
    op: Optional[str] = None
    op_index: Optional[int] = None
    args: list = field(default_factory=list)
    source: Optional[str] = None


@dataclass
class PlanInfo:
    """One execution plan (method)."""
    name: str
    values: list                 # fb.EValue.val per index (schema objects, None = NONE)
    tensors: dict                # value index -> TensorInfo
    inputs: list
    outputs: list
    operators: list              # "name.overload" strings
    instructions: list           # [InstructionInfo] of chain 0..n in order
    non_const_buffer_sizes: list
    encoded_inp_str: Optional[str] = None
    encoded_out_str: Optional[str] = None

    def int_list(self, index: int) -> list:
        """The integers of IntList value ``index`` (items are Int value indices)."""
        v = self.values[index]
        if not isinstance(v, fb.IntList):
            raise PteFormatError(f"value {index} is not an IntList")
        out = []
        for j in v.items or []:
            if not 0 <= j < len(self.values) or not isinstance(self.values[j], fb.Int):
                raise PteFormatError(f"IntList {index} item {j} is not an Int value")
            out.append(self.values[j].int_val)
        return out


@dataclass
class PteFile:
    """A parsed .pte. size: file bytes; segments: bytes of each data segment."""
    size: int
    header: Optional[ExtendedHeader]
    program: fb.Program
    segments: list
    plans: list

    @property
    def constants_bytes(self) -> int:
        """Bytes of the constant data (segment or legacy inline buffers)."""
        cs = self.program.constant_segment
        if cs is not None and cs.offsets and len(cs.offsets) > 1:
            return len(self.segments[cs.segment_index])
        return sum(len(b.storage or b"") for b in self.program.constant_buffer or [])

    def plan(self, name: str = "forward") -> PlanInfo:
        for p in self.plans:
            if p.name == name:
                return p
        raise KeyError(name)


_INSTR_KIND = {fb.KernelCall: "kernel", fb.DelegateCall: "delegate", fb.MoveCall: "move",
               fb.JumpFalseCall: "jump_false", fb.FreeCall: "free"}


def _frame_source(fl) -> Optional[str]:
    if fl is None or not fl.items:
        return None
    f = fl.items[-1]
    s = f"{f.filename}:{f.lineno}"
    return s + (f" ({f.name})" if f.name else "")


def _constant_bytes(prog: fb.Program, segments: list, t: TensorInfo, nvalue: int) -> bytes:
    cs = prog.constant_segment
    if cs is not None and cs.offsets:
        if not 0 <= t.buffer_idx < len(cs.offsets):
            raise PteFormatError(f"value {nvalue}: data_buffer_idx {t.buffer_idx} outside "
                                 f"{len(cs.offsets)} constant offsets")
        if cs.segment_index >= len(segments):
            raise PteFormatError(f"constant segment index {cs.segment_index} out of range")
        seg = segments[cs.segment_index]
        off = cs.offsets[t.buffer_idx]
        if off + t.nbytes > len(seg):
            raise PteFormatError(f"value {nvalue}: constant [{off}, {off + t.nbytes}) outside "
                                 f"segment of {len(seg)} bytes")
        return seg[off:off + t.nbytes]
    bufs = prog.constant_buffer or []
    if not 0 <= t.buffer_idx < len(bufs):
        raise PteFormatError(f"value {nvalue}: data_buffer_idx {t.buffer_idx} outside constant_buffer")
    data = bufs[t.buffer_idx].storage or b""
    if t.nbytes > len(data):
        raise PteFormatError(f"value {nvalue}: constant buffer shorter than {t.nbytes} bytes")
    return bytes(data[:t.nbytes])


def _mutable_bytes(prog: fb.Program, segments: list, t: TensorInfo, extra, nvalue: int) -> bytes:
    """Initial value of mutable buffer `t`: offsets[data_buffer_idx] of its
    mutable_data_segments entry (ExtraTensorInfo's, else 0)."""
    k = extra.mutable_data_segments_idx if extra is not None else 0
    subs = prog.mutable_data_segments or []
    if not 0 <= k < len(subs) or not 0 <= subs[k].segment_index < len(segments):
        raise PteFormatError(f"value {nvalue}: mutable data segment {k} does not exist")
    offs = subs[k].offsets or []
    if not 0 <= t.buffer_idx < len(offs):
        raise PteFormatError(f"value {nvalue}: data_buffer_idx {t.buffer_idx} outside {len(offs)} mutable offsets")
    seg, off = segments[subs[k].segment_index], offs[t.buffer_idx]
    if off + t.nbytes > len(seg):
        raise PteFormatError(f"value {nvalue}: initial value [{off}, {off + t.nbytes}) outside "
                             f"segment of {len(seg)} bytes")
    return seg[off:off + t.nbytes]


def _plan_info(prog: fb.Program, segments: list, ep: fb.ExecutionPlan) -> PlanInfo:
    vals = [ev.val if ev is not None else None for ev in ep.values or []]
    # an empty overload is the default one (ExecuTorch writes "aten::copy_", ""),
    # as the runtime's registry lookup reads it
    ops = [f"{o.name or ''}.{o.overload or 'default'}" for o in ep.operators or []]
    tensors = {}
    for i, v in enumerate(vals):
        if not isinstance(v, fb.Tensor):
            continue
        sizes = list(v.sizes or [])
        if any(s < 0 for s in sizes):
            raise PteFormatError(f"value {i}: negative size in {sizes}")
        numel = 1
        for s in sizes:
            numel *= s
        nbytes = numel * fb.SCALAR_TYPE_SIZES.get(v.scalar_type, 0)
        a = v.allocation_info
        extra = v.extra_tensor_info
        if extra is not None and extra.location == fb.TensorDataLocation.EXTERNAL:
            kind = "external"  # its bytes are in a .ptd, under key extra.fully_qualified_name
        elif a is not None:
            kind = "planned"
        elif v.data_buffer_idx > 0:
            kind = "constant"
        else:
            kind = "unplanned"
        t = TensorInfo(index=i, dtype=v.scalar_type, sizes=sizes, dim_order=list(v.dim_order or []),
                       kind=kind, nbytes=nbytes, buffer_idx=v.data_buffer_idx,
                       mem_id=a.memory_id if a else None, mem_offset=a.offset if a else None)
        if kind == "constant":
            t.data = _constant_bytes(prog, segments, t, i)
        elif kind == "external":
            t.fqn = extra.fully_qualified_name or ""
        elif kind == "planned" and v.data_buffer_idx > 0:
            t.initial = _mutable_bytes(prog, segments, t, v.extra_tensor_info, i)
            t.fqn = (v.extra_tensor_info.fully_qualified_name or "") if v.extra_tensor_info else ""
        tensors[i] = t
    instrs = []
    for c in ep.chains or []:
        st = c.stacktrace or []
        for k, ins in enumerate(c.instructions or []):
            a = ins.instr_args
            info = InstructionInfo(index=len(instrs), kind=_INSTR_KIND.get(type(a), "none"))
            if isinstance(a, fb.KernelCall):
                if not 0 <= a.op_index < len(ops):
                    raise PteFormatError(f"instruction {k}: op_index {a.op_index} out of range")
                info.op, info.op_index, info.args = ops[a.op_index], a.op_index, list(a.args or [])
            elif isinstance(a, fb.DelegateCall):
                info.args = list(a.args or [])
            elif isinstance(a, fb.MoveCall):
                info.args = [a.move_from, a.move_to]
            elif isinstance(a, fb.JumpFalseCall):
                info.args = [a.cond_value_index]
            elif isinstance(a, fb.FreeCall):
                info.args = [a.value_index]
            for x in info.args:
                if not 0 <= x < len(vals):
                    raise PteFormatError(f"instruction {k}: value index {x} out of range")
            if k < len(st):
                info.source = _frame_source(st[k])
            instrs.append(info)
    cm = ep.container_meta_type
    return PlanInfo(name=ep.name or "", values=vals, tensors=tensors, inputs=list(ep.inputs or []),
                    outputs=list(ep.outputs or []), operators=ops, instructions=instrs,
                    non_const_buffer_sizes=list(ep.non_const_buffer_sizes or []),
                    encoded_inp_str=cm.encoded_inp_str if cm else None,
                    encoded_out_str=cm.encoded_out_str if cm else None)


def parse_pte(data: bytes) -> PteFile:
    """Parse .pte bytes. Raises PteFormatError for any malformation."""
    data = bytes(data)
    if len(data) < 8:
        raise PteFormatError(f"file of {len(data)} bytes is too short")
    if data[4:8] != fb.FILE_IDENTIFIER:
        raise PteFormatError(f"file identifier {data[4:8]!r} is not {fb.FILE_IDENTIFIER!r}")
    hdr = parse_header(data)
    psize = len(data)
    if hdr is not None:
        if not 8 + hdr.length <= hdr.program_size <= len(data):
            raise PteFormatError(f"program_size {hdr.program_size} outside file of {len(data)} bytes")
        psize = hdr.program_size
        if hdr.segment_base_offset and not hdr.program_size <= hdr.segment_base_offset <= len(data):
            raise PteFormatError(f"segment_base_offset {hdr.segment_base_offset} outside "
                                 f"[{hdr.program_size}, {len(data)}]")
        if hdr.segment_base_offset + hdr.segment_data_size > len(data):
            raise PteFormatError("segment data runs past the end of the file")
    try:
        prog = fb.read_program(data[:psize])
    except fb.FlatbufferError as e:
        raise PteFormatError(str(e)) from None
    segments = []
    for i, s in enumerate(prog.segments or []):
        if hdr is None:
            if s.size == 0:     # ExecuTorch writes an empty segment without a header
                segments.append(b"")
                continue
            raise PteFormatError("program has segments but no extended header")
        start = hdr.segment_base_offset + s.offset
        if s.size and (start + s.size > len(data)):
            raise PteFormatError(f"segment {i} [{start}, {start + s.size}) outside file of {len(data)} bytes")
        segments.append(data[start:start + s.size])
    plans = [_plan_info(prog, segments, ep) for ep in prog.execution_plan or []]
    return PteFile(size=len(data), header=hdr, program=prog, segments=segments, plans=plans)


def read_pte(path) -> PteFile:
    """Read and parse the .pte at ``path``. Raises PteFormatError / OSError."""
    return parse_pte(Path(path).read_bytes())


def plan_to_spec(plan: PlanInfo):
    """Convert a parsed method back into an :class:`aot.ir.ProgramSpec`
    (e.g. to re-emit an ExecuTorch-made program). IntLists become their
    integers; constants carry their bytes. Raises PteFormatError for
    instructions other than KernelCall (delegates, control flow)."""
    from aot import ir

    vals: list = []
    for i, v in enumerate(plan.values):
        if v is None or isinstance(v, fb.Null):
            vals.append(None)
        elif isinstance(v, fb.Int):
            vals.append(int(v.int_val))
        elif isinstance(v, fb.Bool):
            vals.append(bool(v.bool_val))
        elif isinstance(v, fb.Double):
            vals.append(float(v.double_val))
        elif isinstance(v, fb.String):
            vals.append(v.string_val or "")
        elif isinstance(v, fb.Tensor):
            t = plan.tensors[i]
            vals.append(ir.TensorValue(sizes=list(t.sizes), dtype=t.dtype, dim_order=list(t.dim_order) or None,
                                       constant=t.data if t.kind == "constant" else None,
                                       mem_id=t.mem_id, mem_offset=t.mem_offset, initial=t.initial,
                                       fqn=t.fqn))
        elif isinstance(v, fb.IntList):
            vals.append(ir.IntListValue(plan.int_list(i)))
        elif isinstance(v, fb.DoubleList):
            vals.append(ir.DoubleListValue(list(v.items or [])))
        elif isinstance(v, fb.BoolList):
            vals.append(ir.BoolListValue(list(v.items or [])))
        elif isinstance(v, (fb.TensorList, fb.OptionalTensorList)):
            vals.append(ir.TensorListValue(list(v.items or []), optional=isinstance(v, fb.OptionalTensorList)))
        else:
            raise PteFormatError(f"value {i}: cannot convert {type(v).__name__}")
    calls = []
    for ins in plan.instructions:
        if ins.kind != "kernel":
            raise PteFormatError(f"instruction {ins.index}: {ins.kind} is not supported by ProgramSpec")
        name, _, overload = ins.op.rpartition(".")
        calls.append(ir.KernelCall(op=name, overload=overload, args=list(ins.args), source=ins.source or ""))
    return ir.ProgramSpec(values=vals, inputs=list(plan.inputs), outputs=list(plan.outputs),
                          instructions=calls, arena_sizes=list(plan.non_const_buffer_sizes) or [0],
                          method_name=plan.name or "forward")
