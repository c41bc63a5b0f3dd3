"""ExecuTorch's XNNPACK delegate payload ("XN01" flatbuffer behind an "XH00"
header), described from the format's documented structure (the schema.fbs
of ExecuTorch's XNNPACK backend) with Mote's flatbuffer writer and reader.

Payload layout (all integers little-endian)::

    0   4 zero bytes (where a bare flatbuffer has its root offset)
    4   "XH00"  header magic
    8   uint16  header length (30)
    10  uint32  flatbuffer offset (from byte 0)
    14  uint32  flatbuffer size, bytes
    18  uint32  constant data offset (from byte 0)
    22  uint64  constant data size, bytes
    ... header padded to 16 bytes; the flatbuffer, padded to 16 bytes; the
    constant data: each constant 16-byte aligned, named by
    XNNGraph.constant_data[k] = (offset from the constant data, size), entry 0 empty.

Only the tables and union members Mote writes or reads are spelled out; the
union tags keep the schema's order (a member's tag is its position + 1), so
the other members are placeholders that make the tags right.
"""
from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass
from typing import Any, Optional

import flatbuffers

from aot.errors import FlatbufferError
from aot.pte.schema import _fb, define_namespace, read_root, write_table

FILE_IDENTIFIER = b"XN01"
HEADER_MAGIC = b"XH00"
HEADER_LENGTH = 30
#: alignment of the header, the flatbuffer and each constant, bytes
ALIGNMENT = 16

# XNNDatatype (the schema's enum; XNNPACK's xnn_datatype has the same codes)
FP32, QINT8, QINT32, QCINT8, QCINT32 = 1, 3, 5, 6, 7
# XNNTensorValue.flags: XNNPACK's XNN_VALUE_FLAG_EXTERNAL_INPUT / _OUTPUT
EXTERNAL_INPUT, EXTERNAL_OUTPUT = 1, 2
#: XNN_INVALID_VALUE_ID (no bias, no external id)
INVALID_ID = 0xFFFFFFFF


@dataclass
class Buffer:
    storage: Optional[bytes] = _fb("[u8]", None, align=16)  # deprecated, never written


@dataclass
class PerChannelQuant:
    scale: Optional[list] = _fb("[f32]", "[]")
    channel_dim: int = _fb("i32", 0)
    scale_buffer_idx: int = _fb("u32", 0)
    num_scales: int = _fb("u32", 0)


@dataclass
class PerTensorQuant:
    scale: float = _fb("f32", 0.0)
    zero_point: int = _fb("i32", 0)


@dataclass
class PerTokenDynamicQuant:
    num_nonbatch_dims: int = _fb("i32", 0)


@dataclass
class PerChannelGroupQuant:
    scale: Optional[list] = _fb("[f32]", "[]")
    channel_dim: int = _fb("i32", 0)
    group_size: int = _fb("i32", 0)
    scale_bf16: Optional[list] = _fb("[u16]")  # deprecated
    scale_buffer_idx: int = _fb("u32", 0)
    num_scales: int = _fb("u32", 0)


@dataclass
class XNNTensorValue:
    """dims: XNNPACK's (NHWC for 4-D activations); constant_buffer_idx: entry
    of XNNGraph.constant_data (0: none); external_id: the delegate argument
    position (inputs, then outputs) or INVALID_ID; flags: EXTERNAL_*; id_out:
    the value's id in the graph."""
    datatype: int = _fb("i16", 0)
    num_dims: int = _fb("u32", 0)
    dims: Optional[list] = _fb("[u32]", "[]")
    constant_buffer_idx: int = _fb("u32", 0)
    external_id: int = _fb("u32", 0)
    flags: int = _fb("u32", 0)
    id_out: int = _fb("u32", 0)


@dataclass
class XNNQuantizedTensorValue:
    tensor_value: Optional[XNNTensorValue] = _fb("T:XNNTensorValue")
    quant_params: Any = _fb("U:XNNQuantParams")


def tensor_of(value) -> "XNNTensorValue":
    """The XNNTensorValue of an XValue (a quantized value's inner one)."""
    u = value.xvalue_union
    return u.tensor_value if isinstance(u, XNNQuantizedTensorValue) else u


def _node(name: str, fields: list) -> type:
    """A node table class: `fields` are (name, wire kind) pairs, all default 0."""
    return dataclasses.make_dataclass(
        name, [(f, Any, _fb(kind, [] if kind.startswith("[") else 0) if not kind.startswith("[") else
                _fb(kind, "[]")) for f, kind in fields])


_1X1 = [("input_id", "u32"), ("output_id", "u32"), ("flags", "u32")]
_2X1 = [("input1_id", "u32"), ("input2_id", "u32"), ("output_id", "u32"), ("flags", "u32")]
_CONV = [(f, "u32") for f in (
    "padding_top", "padding_right", "padding_bottom", "padding_left", "kernel_height", "kernel_width",
    "subsampling_height", "subsampling_width", "dilation_height", "dilation_width",
    "group_input_channels", "group_output_channels", "groups", "adjustment_height", "adjustment_width",
    "input1_id", "filter_id", "bias_id", "output_id", "flags")]
_POOL = [(f, "u32") for f in (
    "padding_top", "padding_right", "padding_bottom", "padding_left", "pooling_height", "pooling_width",
    "stride_height", "stride_width", "dilation_height", "dilation_width", "input_id", "output_id", "flags")]
_FC = [("input1_id", "u32"), ("filter_id", "u32"), ("bias_id", "u32"), ("output_id", "u32"), ("flags", "u32")]
_RESHAPE = [("num_dims", "u32"), ("new_shape", "[u32]"), ("input_id", "u32"), ("output_id", "u32"),
            ("flags", "u32")]
_TRANSPOSE = [("num_dims", "u32"), ("perm", "[u32]"), ("input_id", "u32"), ("output_id", "u32"), ("flags", "u32")]

#: XNodeUnion in the schema's order: (member name, fields or None for a
#: member Mote neither writes nor reads)
_XNODE_MEMBERS = [
    ("XNNAdd", _2X1), ("XNNFullyConnected", _FC), ("XNNSoftmax", _1X1), ("XNNSigmoid", _1X1),
    ("XNNStaticTranspose", _TRANSPOSE), ("XNNClamp", _1X1), ("XNNConv2d", _CONV), ("XNNDiv", _2X1),
    ("XNNStaticResizeBilinear2D", None), ("XNNStaticConstantPad", None), ("XNNAvgPooling2d", _POOL),
    ("XNNMinimum", _2X1), ("XNNDepthwiseConv2d", _CONV), ("XNNMaxPooling2d", _POOL),
    ("XNNMultiply", _2X1), ("XNNSubtract", _2X1), ("XNNFloor", _1X1), ("XNNConvert", _1X1),
    ("XNNGlobalAvgPooling2d", _1X1), ("XNNStaticReshape", _RESHAPE), ("XNNArgMaxPooling2d", None),
    ("XNNSquareRoot", _1X1), ("XNNCeiling", _1X1), ("XNNHardswish", _1X1),
]
NODE_TYPES = {name: _node(name, fields or []) for name, fields in _XNODE_MEMBERS}
#: union tag of each node kind (the runtime's switch uses the same numbers)
NODE_TAGS = {name: i + 1 for i, (name, _) in enumerate(_XNODE_MEMBERS)}


@dataclass
class OutputMinMax:
    output_min: float = _fb("f32", 0.0)
    output_max: float = _fb("f32", 0.0)


@dataclass
class XNode:
    xnode_union: Any = _fb("U:XNodeUnion")
    debug_handle: int = _fb("u32", 0)
    output_min_max: Optional[OutputMinMax] = _fb("T:OutputMinMax")


@dataclass
class XValue:
    xvalue_union: Any = _fb("U:XValueUnion")


@dataclass
class ConstantDataOffset:
    offset: int = _fb("u64", 0)
    size: int = _fb("u64", 0)
    named_key: Optional[str] = _fb("str")


@dataclass
class XNNGraph:
    version: Optional[str] = _fb("str")
    xnodes: Optional[list] = _fb("[T:XNode]", "[]")
    xvalues: Optional[list] = _fb("[T:XValue]", "[]")
    num_externs: int = _fb("u32", 0)
    input_ids: Optional[list] = _fb("[u32]", "[]")
    output_ids: Optional[list] = _fb("[u32]", "[]")
    constant_buffer: Optional[list] = _fb("[T:Buffer]")      # deprecated
    mem_buffer_sizes: Optional[list] = _fb("[u32]")          # deprecated
    constant_data: Optional[list] = _fb("[T:ConstantDataOffset]", "[]")


XN01 = define_namespace(
    (Buffer, PerChannelQuant, PerTensorQuant, PerTokenDynamicQuant, PerChannelGroupQuant, XNNTensorValue,
     XNNQuantizedTensorValue, OutputMinMax, XNode, XValue, ConstantDataOffset, XNNGraph,
     *NODE_TYPES.values()), {
        "XNNQuantParams": [PerChannelQuant, PerTensorQuant, PerTokenDynamicQuant, PerChannelGroupQuant],
        "XNodeUnion": list(NODE_TYPES.values()),
        "XValueUnion": [XNNTensorValue, XNNQuantizedTensorValue],
    })


def _pad(data: bytes, align: int = ALIGNMENT) -> bytes:
    return data + b"\0" * (-len(data) % align)


def serialize_payload(graph: XNNGraph, constants: bytes) -> bytes:
    """The payload bytes of `graph` and its constant data (see module doc)."""
    b = flatbuffers.Builder(1024)
    b.Finish(write_table(b, graph), file_identifier=FILE_IDENTIFIER)
    flat = bytes(b.Output())
    head_len = len(_pad(b"\0" * HEADER_LENGTH))
    fb_len = len(_pad(flat))
    header = (b"\0" * 4 + HEADER_MAGIC + struct.pack("<HIIIQ", HEADER_LENGTH, head_len, len(flat),
                                                     head_len + fb_len, len(constants)))
    return _pad(header) + _pad(flat) + bytes(constants)


def read_payload(data: bytes) -> tuple:
    """(XNNGraph, constant data bytes) of a payload. Raises FlatbufferError."""
    if len(data) < HEADER_LENGTH or data[4:8] != HEADER_MAGIC:
        raise FlatbufferError("not an XNNPACK payload (no XH00 header)")
    _, fb_off, fb_size, c_off, c_size = struct.unpack_from("<HIIIQ", data, 8)
    if fb_off + fb_size > len(data) or c_off + c_size > len(data):
        raise FlatbufferError("XNNPACK payload: flatbuffer or constant data runs past the payload")
    return read_root(data[fb_off:fb_off + fb_size], XNNGraph, FILE_IDENTIFIER), data[c_off:c_off + c_size]
