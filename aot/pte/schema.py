"""ExecuTorch's program schema ("ET12"), described by hand, with a flatbuffer
writer and a bounds-checked reader.

The schema is written here from the format's documented structure: every table
is a dataclass whose fields, *in declaration order*, are the table's fields in
slot order. Each field carries its wire type in ``metadata["fb"]``:

=============  ==========================================================
``"bool"``     1-byte bool       ``"i8" "u8" "i16" "u16"`` small integers
``"i32"``      int32             ``"u32"`` uint32, ``"i64"``/``"u64"`` 64-bit
``"f32"``      float             ``"f64"`` double
``"str"``      UTF-8 string
``"T:Name"``   sub-table         ``"[x]"`` vector of x (scalar, str or table)
``"U:Name"``   union: occupies two slots (the uint8 type tag, then the value);
               the Python value is an instance of one member table, or None
=============  ==========================================================

Union tags are 1-based positions in :data:`UNIONS` (0 = NONE). Vectors and
optional tables/strings that are ``None`` are not written; an empty list is
written as an empty vector. The reader returns ``None`` for absent
vectors/tables/strings and the schema default for absent scalars.

Only :mod:`flatbuffers` (the Builder) is used; no generated code.
"""
from __future__ import annotations

from aot.errors import SchemaError, FlatbufferError

import dataclasses
import struct
from dataclasses import dataclass, field
from typing import Any, Optional

import flatbuffers

FILE_IDENTIFIER = b"ET12"

# ---------------------------------------------------------------- enums


class ScalarType:
    """ExecuTorch ScalarType codes (scalar_type.fbs)."""
    BYTE, CHAR, SHORT, INT, LONG, HALF, FLOAT, DOUBLE = 0, 1, 2, 3, 4, 5, 6, 7
    BOOL, QINT8, QUINT8, QINT32, BFLOAT16 = 11, 12, 13, 14, 15
    UINT16, UINT32, UINT64 = 27, 28, 29


from aot.ir import SCALAR_TYPE_NAMES, SCALAR_TYPE_SIZES  # noqa: E402,F401 (re-exported)


class TensorShapeDynamism:
    STATIC, DYNAMIC_BOUND, DYNAMIC_UNBOUND = 0, 1, 2


class DataLocation:
    """BackendDelegateDataReference.location."""
    INLINE, SEGMENT = 0, 1


class TensorDataLocation:
    """ExtraTensorInfo.location."""
    SEGMENT, EXTERNAL = 0, 1


# ---------------------------------------------------------------- tables

def _fb(kind: str, default: Any = None, align: int = 0):
    """A schema field of wire type ``kind`` (see module docstring); ``align``:
    the alignment a ``[u8]`` vector's data must start at (the schema's
    force_align), read back as ``bytes``."""
    meta = {"fb": kind, "align": align}
    if kind.startswith("[") and default == "[]":
        return field(default_factory=list, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class ContainerMetadata:
    encoded_inp_str: Optional[str] = _fb("str")
    encoded_out_str: Optional[str] = _fb("str")


@dataclass
class Null:
    pass


@dataclass
class AllocationDetails:
    """memory_id: arena id (>= 1); offset in bytes = low | high << 32."""
    memory_id: int = _fb("u32", 0)
    memory_offset_low: int = _fb("u32", 0)
    memory_offset_high: int = _fb("u32", 0)

    @property
    def offset(self) -> int:
        return self.memory_offset_low | (self.memory_offset_high << 32)


@dataclass
class ExtraTensorInfo:
    mutable_data_segments_idx: int = _fb("u64", 0)
    fully_qualified_name: Optional[str] = _fb("str")
    location: int = _fb("i8", 0)
    device_type: int = _fb("i8", 0)
    device_index: int = _fb("i8", 0)


@dataclass
class Tensor:
    scalar_type: int = _fb("i8", 0)
    storage_offset: int = _fb("i32", 0)
    sizes: Optional[list] = _fb("[i32]", "[]")
    dim_order: Optional[list] = _fb("[u8]", "[]")
    requires_grad: bool = _fb("bool", False)
    data_buffer_idx: int = _fb("u32", 0)
    allocation_info: Optional[AllocationDetails] = _fb("T:AllocationDetails")
    layout: int = _fb("i8", 0)
    shape_dynamism: int = _fb("i8", 0)
    extra_tensor_info: Optional[ExtraTensorInfo] = _fb("T:ExtraTensorInfo")


@dataclass
class Int:
    int_val: int = _fb("i64", 0)


@dataclass
class Bool:
    bool_val: bool = _fb("bool", False)


@dataclass
class Double:
    double_val: float = _fb("f64", 0.0)


@dataclass
class String:
    string_val: Optional[str] = _fb("str")


@dataclass
class IntList:
    """items: value indices of Int EValues (stored as int64)."""
    items: Optional[list] = _fb("[i64]", "[]")


@dataclass
class DoubleList:
    items: Optional[list] = _fb("[f64]", "[]")


@dataclass
class BoolList:
    items: Optional[list] = _fb("[bool]", "[]")


@dataclass
class TensorList:
    """items: value indices of Tensor EValues."""
    items: Optional[list] = _fb("[i32]", "[]")


@dataclass
class OptionalTensorList:
    """items: value indices of Tensor EValues, or -1 for None."""
    items: Optional[list] = _fb("[i32]", "[]")


@dataclass
class EValue:
    val: Any = _fb("U:KernelTypes")


@dataclass
class Operator:
    name: Optional[str] = _fb("str")
    overload: Optional[str] = _fb("str")


@dataclass
class KernelCall:
    op_index: int = _fb("i32", 0)
    args: Optional[list] = _fb("[i32]", "[]")


@dataclass
class DelegateCall:
    delegate_index: int = _fb("i32", 0)
    args: Optional[list] = _fb("[i32]", "[]")


@dataclass
class MoveCall:
    move_from: int = _fb("i32", 0)
    move_to: int = _fb("i32", 0)


@dataclass
class JumpFalseCall:
    cond_value_index: int = _fb("i32", 0)
    destination_instruction: int = _fb("i32", 0)


@dataclass
class FreeCall:
    value_index: int = _fb("i32", 0)


@dataclass
class Instruction:
    instr_args: Any = _fb("U:InstructionArguments")


@dataclass
class Frame:
    filename: Optional[str] = _fb("str")
    lineno: int = _fb("i32", 0)
    name: Optional[str] = _fb("str")
    context: Optional[str] = _fb("str")


@dataclass
class FrameList:
    items: Optional[list] = _fb("[T:Frame]", "[]")


@dataclass
class BackendDelegateDataReference:
    location: int = _fb("i8", 0)
    index: int = _fb("u32", 0)


@dataclass
class CompileSpec:
    key: Optional[str] = _fb("str")
    value: Optional[list] = _fb("[u8]", "[]")


@dataclass
class BackendDelegate:
    id: Optional[str] = _fb("str")
    processed: Optional[BackendDelegateDataReference] = _fb("T:BackendDelegateDataReference")
    compile_specs: Optional[list] = _fb("[T:CompileSpec]", "[]")


@dataclass
class Chain:
    inputs: Optional[list] = _fb("[i32]", "[]")
    outputs: Optional[list] = _fb("[i32]", "[]")
    instructions: Optional[list] = _fb("[T:Instruction]", "[]")
    stacktrace: Optional[list] = _fb("[T:FrameList]")


@dataclass
class NonConstBufferDevice:
    buffer_idx: int = _fb("i32", 0)
    device_type: int = _fb("i8", 0)
    device_index: int = _fb("i8", 0)


@dataclass
class ExecutionPlan:
    name: Optional[str] = _fb("str")
    container_meta_type: Optional[ContainerMetadata] = _fb("T:ContainerMetadata")
    values: Optional[list] = _fb("[T:EValue]", "[]")
    inputs: Optional[list] = _fb("[i32]", "[]")
    outputs: Optional[list] = _fb("[i32]", "[]")
    chains: Optional[list] = _fb("[T:Chain]", "[]")
    operators: Optional[list] = _fb("[T:Operator]", "[]")
    delegates: Optional[list] = _fb("[T:BackendDelegate]", "[]")
    non_const_buffer_sizes: Optional[list] = _fb("[i64]", "[]")
    non_const_buffer_device: Optional[list] = _fb("[T:NonConstBufferDevice]")


@dataclass
class Buffer:
    """Legacy inline constant storage (vector aligned to 16 bytes)."""
    storage: Optional[bytes] = _fb("[u8]", "[]", align=16)


@dataclass
class BackendDelegateInlineData:
    data: Optional[bytes] = _fb("[u8]", "[]", align=16)


@dataclass
class DataSegment:
    """offset: bytes from the segment base offset; size: bytes."""
    offset: int = _fb("u64", 0)
    size: int = _fb("u64", 0)


@dataclass
class SubsegmentOffsets:
    """offsets: byte offsets into segments[segment_index]; [0] is reserved."""
    segment_index: int = _fb("u32", 0)
    offsets: Optional[list] = _fb("[u64]", "[]")


@dataclass
class NamedData:
    key: Optional[str] = _fb("str")
    segment_index: int = _fb("u32", 0)


@dataclass
class Program:
    version: int = _fb("u32", 0)
    execution_plan: Optional[list] = _fb("[T:ExecutionPlan]", "[]")
    constant_buffer: Optional[list] = _fb("[T:Buffer]", "[]")
    backend_delegate_data: Optional[list] = _fb("[T:BackendDelegateInlineData]", "[]")
    segments: Optional[list] = _fb("[T:DataSegment]", "[]")
    constant_segment: Optional[SubsegmentOffsets] = _fb("T:SubsegmentOffsets")
    mutable_data_segments: Optional[list] = _fb("[T:SubsegmentOffsets]")
    named_data: Optional[list] = _fb("[T:NamedData]")


@dataclass(frozen=True)
class Namespace:
    """One flatbuffer schema: its tables by name and its unions (name -> member
    table classes; the wire tag of member i is i + 1). ET12 is defined below;
    aot.pte.bundled defines BP08 with the same writer and reader."""
    tables: dict
    unions: dict


#: table class -> the Namespace it belongs to
_NAMESPACE_OF: dict = {}


def define_namespace(tables, unions: dict) -> Namespace:
    """Register schema table classes `tables` (and `unions` over them) as one namespace."""
    ns = Namespace({cls.__name__: cls for cls in tables}, unions)
    for cls in tables:
        _NAMESPACE_OF[cls] = ns
    return ns


def _ns(cls) -> Namespace:
    ns = _NAMESPACE_OF.get(cls)
    if ns is None or ns.tables.get(cls.__name__) is not cls:
        raise SchemaError(f"{cls.__name__} is not a schema table")
    return ns


ET12 = define_namespace((
    ContainerMetadata, Null, AllocationDetails, ExtraTensorInfo, Tensor, Int, Bool,
    Double, String, IntList, DoubleList, BoolList, TensorList, OptionalTensorList,
    EValue, Operator, KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall,
    Instruction, Frame, FrameList, BackendDelegateDataReference, CompileSpec,
    BackendDelegate, Chain, NonConstBufferDevice, ExecutionPlan, Buffer,
    BackendDelegateInlineData, DataSegment, SubsegmentOffsets, NamedData, Program), {
    "KernelTypes": [Null, Int, Bool, Double, Tensor, String, IntList, DoubleList,
                    BoolList, TensorList, OptionalTensorList],
    "InstructionArguments": [KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall],
})
TABLES = ET12.tables
UNIONS = ET12.unions


# scalar kind -> (struct format, size, Builder slot method, Builder prepend method)
_SCALARS = {
    "bool": ("<?", 1, "PrependBoolSlot", "PrependBool"),
    "i8": ("<b", 1, "PrependInt8Slot", "PrependInt8"),
    "u8": ("<B", 1, "PrependUint8Slot", "PrependUint8"),
    "i16": ("<h", 2, "PrependInt16Slot", "PrependInt16"),
    "u16": ("<H", 2, "PrependUint16Slot", "PrependUint16"),
    "i32": ("<i", 4, "PrependInt32Slot", "PrependInt32"),
    "u32": ("<I", 4, "PrependUint32Slot", "PrependUint32"),
    "i64": ("<q", 8, "PrependInt64Slot", "PrependInt64"),
    "u64": ("<Q", 8, "PrependUint64Slot", "PrependUint64"),
    "f32": ("<f", 4, "PrependFloat32Slot", "PrependFloat32"),
    "f64": ("<d", 8, "PrependFloat64Slot", "PrependFloat64"),
}


@dataclass(frozen=True)
class _Slot:
    name: str
    kind: str
    slot: int          # for unions: the slot of the type tag; value is slot + 1
    default: Any
    align: int = 0     # [u8] vectors: force_align of the data (read back as bytes)


_LAYOUT_CACHE: dict = {}


def table_layout(cls) -> list:
    """[_Slot] of a schema table class, in slot order (unions take two slots)."""
    lay = _LAYOUT_CACHE.get(cls)
    if lay is None:
        lay, slot = [], 0
        for f in dataclasses.fields(cls):
            kind = f.metadata["fb"]
            default = f.default if f.default is not dataclasses.MISSING else None
            lay.append(_Slot(f.name, kind, slot, default, f.metadata.get("align", 0)))
            slot += 2 if kind.startswith("U:") else 1
        _LAYOUT_CACHE[cls] = lay
    return lay


def _num_slots(cls) -> int:
    lay = table_layout(cls)
    return 0 if not lay else lay[-1].slot + (2 if lay[-1].kind.startswith("U:") else 1)


# ---------------------------------------------------------------- writer


def _union_tag(ns: Namespace, union: str, obj) -> int:
    members = ns.unions[union]
    for i, cls in enumerate(members):
        if type(obj) is cls:
            return i + 1
    raise SchemaError(f"{type(obj).__name__} is not a member of union {union}")


def _write_vector(b: flatbuffers.Builder, ns: Namespace, owner: str, s: _Slot, items) -> int:
    n = len(items)
    name, elem = s.name, s.kind[1:-1]
    if elem in _SCALARS:
        _, size, _, prepend = _SCALARS[elem]
        align = max(size, s.align)
        if elem == "u8" and isinstance(items, (bytes, bytearray, memoryview)):
            b.StartVector(1, n, align)
            b.head = b.head - n
            b.Bytes[b.head:b.head + n] = bytes(items)
            return b.EndVector()
        b.StartVector(size, n, align)
        fn = getattr(b, prepend)
        for x in reversed(items):
            fn(x)
        return b.EndVector()
    if elem == "str":
        offs = [b.CreateString(s) for s in items]
    elif elem.startswith("T:"):
        cls = ns.tables[elem[2:]]
        offs = []
        for obj in items:
            if type(obj) is not cls:
                raise SchemaError(f"{owner}.{name}: expected {cls.__name__}, got {type(obj).__name__}")
            offs.append(write_table(b, obj))
    else:
        raise SchemaError(f"unsupported vector element {elem!r}")
    b.StartVector(4, n, 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def write_table(b: flatbuffers.Builder, obj) -> int:
    """Serialize schema object ``obj`` (and its children) into builder ``b``.

    Returns the table's offset. Raises SchemaError for objects that do not
    match the schema (wrong class, union member, scalar out of range)."""
    cls = type(obj)
    ns = _ns(cls)
    lay = table_layout(cls)
    offs: dict = {}
    for s in lay:
        v = getattr(obj, s.name)
        if v is None or s.kind in _SCALARS:
            continue
        if s.kind == "str":
            if not isinstance(v, str):
                raise SchemaError(f"{cls.__name__}.{s.name}: expected str")
            offs[s.name] = b.CreateString(v)
        elif s.kind.startswith("T:"):
            if type(v) is not ns.tables[s.kind[2:]]:
                raise SchemaError(f"{cls.__name__}.{s.name}: expected {s.kind[2:]}")
            offs[s.name] = write_table(b, v)
        elif s.kind.startswith("U:"):
            _union_tag(ns, s.kind[2:], v)
            offs[s.name] = write_table(b, v)
        elif s.kind.startswith("["):
            offs[s.name] = _write_vector(b, ns, cls.__name__, s, v)
    b.StartObject(_num_slots(cls))
    for s in lay:
        v = getattr(obj, s.name)
        if s.kind in _SCALARS:
            fmt = _SCALARS[s.kind][0]
            try:
                struct.pack(fmt, v)
            except (struct.error, TypeError) as e:
                raise SchemaError(f"{cls.__name__}.{s.name}={v!r}: {e}") from None
            getattr(b, _SCALARS[s.kind][2])(s.slot, v, s.default)
        elif s.kind.startswith("U:"):
            if v is not None:
                b.PrependUint8Slot(s.slot, _union_tag(ns, s.kind[2:], v), 0)
                b.PrependUOffsetTRelativeSlot(s.slot + 1, offs[s.name], 0)
        elif v is not None:
            b.PrependUOffsetTRelativeSlot(s.slot, offs[s.name], 0)
    return b.EndObject()


def serialize_program(program: Program) -> bytes:
    """The plain flatbuffer of ``program``: 4-byte root offset, "ET12", data.

    No extended header (see :func:`aot.compiler.emit.emit_program`). Raises SchemaError."""
    b = flatbuffers.Builder(4096)
    root = write_table(b, program)
    b.Finish(root, file_identifier=FILE_IDENTIFIER)
    return bytes(b.Output())


# ---------------------------------------------------------------- reader


class _Reader:
    """Bounds-checked reader of tables in ``buf`` (a bytes-like object)."""

    MAX_OBJECTS = 5_000_000
    #: bytes of tables, strings and vectors a reader may visit beyond 2x the buffer:
    #: unshared, they are disjoint parts of it (a table at least its 4-byte vtable
    #: offset), so only sub-objects referenced again and again (1,000 plans sharing
    #: one vector of 1,000 values) reach the limit, which keeps a read linear in the file
    VISIT_SLACK = 64 << 10

    def __init__(self, buf):
        self.buf = memoryview(buf).cast("B") if not isinstance(buf, bytes) else buf
        self.n = len(buf)
        self.objects = 0
        self.visited = 0
        self.visit_limit = 2 * self.n + self.VISIT_SLACK

    def _visit(self, nbytes: int) -> None:
        self.visited += nbytes
        if self.visited > self.visit_limit:
            raise FlatbufferError(f"the tables, strings and vectors reached from this {self.n:,}-byte buffer "
                                  f"add up to more than {self.visit_limit:,} bytes: sub-objects shared "
                                  "many times (a writer stores each once)")

    def _need(self, pos: int, size: int, what: str) -> None:
        if pos < 0 or size < 0 or pos + size > self.n:
            raise FlatbufferError(f"{what} at {pos} (+{size} bytes) outside buffer of {self.n} bytes")

    def scalar(self, kind: str, pos: int):
        fmt, size = _SCALARS[kind][:2]
        self._need(pos, size, kind)
        return struct.unpack_from(fmt, self.buf, pos)[0]

    def deref(self, pos: int) -> int:
        return pos + self.scalar("u32", pos)

    def string(self, pos: int) -> str:
        p = self.deref(pos)
        n = self.scalar("u32", p)
        self._need(p + 4, n, "string")
        self._visit(4 + n)
        # the runtime takes any bytes in a name (it compares them, never decodes them): bytes
        # that are not UTF-8 read as escapes ("\\xff"), as aot.host.runtime shows them, so the
        # readers accept what the runtime runs
        return bytes(self.buf[p + 4:p + 4 + n]).decode("utf-8", errors="backslashreplace")

    def vector(self, ns: Namespace, owner: str, s: _Slot, pos: int):
        name, elem = s.name, s.kind[1:-1]
        p = self.deref(pos)
        n = self.scalar("u32", p)
        start = p + 4
        if elem in _SCALARS:
            fmt, size = _SCALARS[elem][:2]
            self._need(start, n * size, f"vector {owner}.{name}")
            self._visit(4 + n * size)
            if elem == "u8" and s.align:
                return bytes(self.buf[start:start + n])
            return list(struct.unpack_from("<%d%s" % (n, fmt[1]), self.buf, start))
        self._need(start, n * 4, f"vector {owner}.{name}")
        self._visit(4 + n * 4)
        if elem == "str":
            return [self.string(start + 4 * i) for i in range(n)]
        cls = ns.tables[elem[2:]]
        return [self.table(cls, self.deref(start + 4 * i)) for i in range(n)]

    def table(self, cls, pos: int):
        self.objects += 1
        if self.objects > self.MAX_OBJECTS:
            raise FlatbufferError("too many tables (shared sub-objects blow up)")
        self._visit(4)
        if pos % 4:
            raise FlatbufferError(f"{cls.__name__} table at unaligned offset {pos}")
        vt = pos - self.scalar("i32", pos)
        vt_size = self.scalar("u16", vt)
        obj_size = self.scalar("u16", vt + 2)
        if vt_size < 4 or vt_size % 2:
            raise FlatbufferError(f"{cls.__name__}: bad vtable size {vt_size} at {vt}")
        self._need(vt, vt_size, "vtable")
        self._need(pos, obj_size, f"{cls.__name__} table")

        def field_pos(slot):
            if 4 + 2 * slot + 2 > vt_size:
                return 0
            off = self.scalar("u16", vt + 4 + 2 * slot)
            if off and off >= obj_size:
                raise FlatbufferError(f"{cls.__name__}: field offset {off} beyond table size {obj_size}")
            return pos + off if off else 0

        ns = _ns(cls)
        kw = {}
        for s in table_layout(cls):
            fp = field_pos(s.slot)
            if s.kind in _SCALARS:
                kw[s.name] = self.scalar(s.kind, fp) if fp else s.default
                continue
            if s.kind.startswith("U:"):
                tag = self.scalar("u8", fp) if fp else 0
                vp = field_pos(s.slot + 1)
                members = ns.unions[s.kind[2:]]
                if tag == 0:
                    kw[s.name] = None
                elif tag > len(members):
                    raise FlatbufferError(f"{cls.__name__}.{s.name}: bad union tag {tag}")
                elif not vp:
                    raise FlatbufferError(f"{cls.__name__}.{s.name}: tag {tag} without value")
                else:
                    kw[s.name] = self.table(members[tag - 1], self.deref(vp))
                continue
            if not fp:
                kw[s.name] = None
            elif s.kind == "str":
                kw[s.name] = self.string(fp)
            elif s.kind.startswith("T:"):
                kw[s.name] = self.table(ns.tables[s.kind[2:]], self.deref(fp))
            else:
                kw[s.name] = self.vector(ns, cls.__name__, s, fp)
        return cls(**kw)


def read_root(buf, root_cls, identifier: bytes):
    """Parse the flatbuffer ``buf`` whose root table is ``root_cls`` and whose
    file identifier must be ``identifier``. Raises FlatbufferError."""
    r = _Reader(buf)
    if r.n < 8:
        raise FlatbufferError(f"buffer of {r.n} bytes is too short for a flatbuffer")
    ident = bytes(r.buf[4:8])
    if ident != identifier:
        raise FlatbufferError(f"file identifier {ident!r} is not {identifier!r}")
    return r.table(root_cls, r.deref(0))


def read_program(buf) -> Program:
    """Parse the flatbuffer ``buf`` (root offset at byte 0, optional "eh00"
    header inside, as in a .pte) into a :class:`Program`.

    Raises FlatbufferError if the file identifier is not "ET12" or any offset,
    vtable, vector or union tag is malformed."""
    return read_root(buf, Program, FILE_IDENTIFIER)
