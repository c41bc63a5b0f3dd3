"""ExecuTorch's flat-tensor format ("FT01", `.ptd`): named data kept apart from
the program, described by hand from the format's documented structure and
written/read with the program's flatbuffer machinery (aot.pte.schema).

Structure (root FlatTensor)::

    FlatTensor    version u32 · segments [DataSegment] · named_data [NamedData]
    DataSegment   offset u64 (from the segment base) · size u64
    NamedData     key str · segment_index u32 · tensor_layout TensorLayout
    TensorLayout  scalar_type i8 (ScalarType code) · sizes [i32] · dim_order [u8]

File layout (all integers little-endian)::

    0   uint32  root table offset          4   "FT01" file identifier
    8   "FH01"  header magic               12  uint32 header length (40)
    16  uint64  flatbuffer_offset: the header's padded length (48)
    24  uint64  flatbuffer_size: bytes of the flatbuffer without the header
    32  uint64  segment_base_offset: file offset of the segment data
    40  uint64  segment_data_size
    56  ...     rest of the flatbuffer, zero padding to segment_base_offset
    segment data: each named tensor's bytes, SEGMENT_ALIGNMENT-aligned

The header sits after the flatbuffer's first 8 bytes as the program's "eh00"
header does (the root offset is moved past it). A program refers to a tensor
here by its key: the tensor's ExtraTensorInfo has location EXTERNAL and
fully_qualified_name = key.
"""
from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from typing import Optional

import flatbuffers

from aot.errors import FlatbufferError
from aot.pte.schema import _fb, define_namespace, read_root, write_table

FILE_IDENTIFIER = b"FT01"
HEADER_MAGIC = b"FH01"
HEADER_LENGTH = 40
PADDED_HEADER_LENGTH = 48
FLAT_TENSOR_VERSION = 0
#: alignment of each tensor's bytes from the segment base (and of the base), bytes
SEGMENT_ALIGNMENT = 16


@dataclass
class TensorLayout:
    scalar_type: int = _fb("i8", 0)
    sizes: Optional[list] = _fb("[i32]", "[]")
    dim_order: Optional[list] = _fb("[u8]", "[]")


@dataclass
class DataSegment:
    offset: int = _fb("u64", 0)
    size: int = _fb("u64", 0)


@dataclass
class NamedData:
    key: Optional[str] = _fb("str")
    segment_index: int = _fb("u32", 0)
    tensor_layout: Optional[TensorLayout] = _fb("T:TensorLayout")


@dataclass
class FlatTensor:
    version: int = _fb("u32", 0)
    segments: Optional[list] = _fb("[T:DataSegment]", "[]")
    named_data: Optional[list] = _fb("[T:NamedData]", "[]")


NAMESPACE = define_namespace((TensorLayout, DataSegment, NamedData, FlatTensor), {})


@dataclass
class NamedTensor:
    """One tensor of a .ptd: key, ScalarType code, sizes, dim order, raw bytes."""
    key: str
    dtype: int
    sizes: list
    dim_order: list
    data: bytes


def content_key(dtype: int, sizes, data: bytes) -> str:
    """The key Mote gives a tensor: a hash of its dtype, shape and bytes, so two
    programs that hold the same weight (two heads over one backbone) name it
    alike and one .ptd serves both."""
    h = hashlib.sha256(struct.pack("<bB", 0, dtype) + struct.pack(f"<{len(sizes)}q", *sizes) + data)
    return "mote:" + h.hexdigest()[:32]


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def write_ptd(tensors: list) -> bytes:
    """The .ptd bytes of `tensors` ([NamedTensor], keys unique), in order."""
    keys = [t.key for t in tensors]
    if len(set(keys)) != len(keys):
        raise FlatbufferError("a .ptd needs unique keys")
    data, segments = bytearray(), []
    for t in tensors:
        data.extend(bytes(_align(len(data), SEGMENT_ALIGNMENT) - len(data)))
        segments.append(DataSegment(offset=len(data), size=len(t.data)))
        data.extend(t.data)
    root = FlatTensor(version=FLAT_TENSOR_VERSION, segments=segments, named_data=[
        NamedData(key=t.key, segment_index=i, tensor_layout=TensorLayout(
            scalar_type=t.dtype, sizes=list(t.sizes), dim_order=list(t.dim_order)))
        for i, t in enumerate(tensors)])
    b = flatbuffers.Builder(1024)
    b.Finish(write_table(b, root), file_identifier=FILE_IDENTIFIER)
    flat = bytes(b.Output())
    base = _align(len(flat) + PADDED_HEADER_LENGTH, max(SEGMENT_ALIGNMENT, 16))
    header = (HEADER_MAGIC + struct.pack("<I", HEADER_LENGTH)
              + struct.pack("<QQQQ", PADDED_HEADER_LENGTH, len(flat), base, len(data)))
    header += bytes(PADDED_HEADER_LENGTH - len(header))
    root_off = struct.unpack_from("<I", flat, 0)[0] + PADDED_HEADER_LENGTH
    out = struct.pack("<I", root_off) + flat[4:8] + header + flat[8:]
    return out + bytes(base - len(out)) + bytes(data)


def read_ptd(data: bytes) -> dict:
    """key -> NamedTensor of a .ptd (Mote's or ExecuTorch's). Raises FlatbufferError."""
    if len(data) < 8 + HEADER_LENGTH or data[4:8] != FILE_IDENTIFIER:
        raise FlatbufferError(f"not a .ptd: file identifier {bytes(data[4:8])!r} is not {FILE_IDENTIFIER!r}")
    if data[8:12] != HEADER_MAGIC:
        raise FlatbufferError("corrupt .ptd: no FH01 header at byte 8")
    length, = struct.unpack_from("<I", data, 12)
    fb_off, fb_size, base, dsize = struct.unpack_from("<QQQQ", data, 16)
    if length < HEADER_LENGTH or fb_off + fb_size > len(data) or base + dsize > len(data):
        raise FlatbufferError("corrupt .ptd header: sizes run past the file")
    root = read_root(data[:fb_off + fb_size], FlatTensor, FILE_IDENTIFIER)
    out = {}
    for nd in root.named_data or []:
        segs = root.segments or []
        if not 0 <= nd.segment_index < len(segs):
            raise FlatbufferError(f".ptd: {nd.key}: segment {nd.segment_index} does not exist")
        s = segs[nd.segment_index]
        if s.offset + s.size > dsize:
            raise FlatbufferError(f".ptd: {nd.key}: segment runs past the data")
        lay = nd.tensor_layout or TensorLayout()
        out[nd.key or ""] = NamedTensor(nd.key or "", lay.scalar_type, list(lay.sizes or []),
                                        list(lay.dim_order or []), bytes(data[base + s.offset:base + s.offset + s.size]))
    return out
