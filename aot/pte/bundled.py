"""ExecuTorch's BundledProgram format ("BP08", `.bpte`): a program with test
cases around it, described by hand from the format's documented structure and
written/read with the same flatbuffer machinery as the program
(aot.pte.schema: one writer, one reader, separate namespaces).

Structure (root BundledProgram):

    BundledProgram          version u32 · method_test_suites [BundledMethodTestSuite]
                            · program [u8] (the .pte bytes, data aligned to 32)
    BundledMethodTestSuite  method_name str · test_cases [BundledMethodTestCase]
    BundledMethodTestCase   inputs [Value] · expected_outputs [Value]
    Value                   val: union ValueUnion { Tensor, Int, Bool, Double }
    Tensor                  scalar_type i8 (ScalarType code) · sizes [i32]
                            · data [u8] (aligned to 16) · dim_order [u8]
    Int / Bool / Double     int_val i64 / bool_val bool / double_val f64

`BUNDLE_VERSION` is the schema version ExecuTorch stamps (2). Only tensor
values become numpy arrays here (`value_array`); Mote's programs take and give
tensors.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import flatbuffers
import numpy as np

from aot import ir
from aot.errors import FlatbufferError
from aot.pte.schema import _fb, define_namespace, read_root, write_table

FILE_IDENTIFIER = b"BP08"
BUNDLE_VERSION = 2


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
class Tensor:
    scalar_type: int = _fb("i8", 0)
    sizes: Optional[list] = _fb("[i32]", "[]")
    data: Optional[bytes] = _fb("[u8]", "[]", align=16)
    dim_order: Optional[list] = _fb("[u8]", "[]")


@dataclass
class Value:
    val: Any = _fb("U:ValueUnion")


@dataclass
class BundledMethodTestCase:
    inputs: Optional[list] = _fb("[T:Value]", "[]")
    expected_outputs: Optional[list] = _fb("[T:Value]", "[]")


@dataclass
class BundledMethodTestSuite:
    method_name: Optional[str] = _fb("str")
    test_cases: Optional[list] = _fb("[T:BundledMethodTestCase]", "[]")


@dataclass
class BundledProgram:
    version: int = _fb("u32", 0)
    method_test_suites: Optional[list] = _fb("[T:BundledMethodTestSuite]", "[]")
    program: Optional[bytes] = _fb("[u8]", "[]", align=32)


BP08 = define_namespace(
    (Int, Bool, Double, Tensor, Value, BundledMethodTestCase, BundledMethodTestSuite,
     BundledProgram),
    {"ValueUnion": [Tensor, Int, Bool, Double]})


def tensor_value(array) -> Value:
    """A numpy array as a bundled tensor Value (contiguous, default dim order)."""
    a = np.ascontiguousarray(array)
    code = ir.NUMPY_CODES.get(a.dtype)
    if code is None:
        raise FlatbufferError(f"no ScalarType for numpy dtype {a.dtype}")
    return Value(Tensor(scalar_type=code, sizes=[int(s) for s in a.shape], data=a.tobytes(),
                        dim_order=list(range(a.ndim))))


def value_array(value: Value, what: str = "value") -> np.ndarray:
    """A bundled Value as a numpy array: tensors by their bytes (a non-default
    dim order is laid out back into sizes order); Int/Bool/Double as 0-d
    arrays. Raises FlatbufferError when the tensor's bytes do not fit it."""
    v = value.val
    if isinstance(v, Int):
        return np.array(v.int_val, dtype=np.int64)
    if isinstance(v, Bool):
        return np.array(v.bool_val, dtype=np.bool_)
    if isinstance(v, Double):
        return np.array(v.double_val, dtype=np.float64)
    if not isinstance(v, Tensor):
        raise FlatbufferError(f"{what} is empty")
    if v.scalar_type not in ir.DTYPE_NUMPY:
        raise FlatbufferError(f"{what}: unsupported scalar type {ir.dtype_name(v.scalar_type)}")
    dt = np.dtype(ir.DTYPE_NUMPY[v.scalar_type])
    sizes = [int(s) for s in (v.sizes or [])]
    order = list(v.dim_order or range(len(sizes)))
    if sorted(order) != list(range(len(sizes))):
        raise FlatbufferError(f"{what}: dim_order {order} does not fit sizes {sizes}")
    if any(s < 0 for s in sizes):
        raise FlatbufferError(f"{what}: negative size in {sizes}")
    data = v.data or b""
    want = math.prod(sizes) * dt.itemsize  # Python ints: a product of i32 sizes never wraps
    if len(data) != want:
        raise FlatbufferError(f"{what}: {len(data)} data bytes, a {dt} tensor of {sizes} has {want}")
    stored = np.frombuffer(data, dtype=dt).reshape([sizes[d] for d in order])
    return np.ascontiguousarray(stored.transpose(np.argsort(order))).copy()


def serialize_bundled(program: bytes, suites: dict) -> bytes:
    """The .bpte bytes of `program` (a .pte) with `suites`: method name ->
    list of (inputs, expected outputs) pairs, each a list of numpy arrays."""
    root = BundledProgram(version=BUNDLE_VERSION, program=bytes(program), method_test_suites=[
        BundledMethodTestSuite(method_name=name, test_cases=[
            BundledMethodTestCase(inputs=[tensor_value(a) for a in ins],
                                  expected_outputs=[tensor_value(a) for a in outs])
            for ins, outs in cases])
        for name, cases in suites.items()])
    b = flatbuffers.Builder(1024 + len(program))
    b.Finish(write_table(b, root), file_identifier=FILE_IDENTIFIER)
    return bytes(b.Output())


def read_bundled(buf) -> BundledProgram:
    """Parse .bpte bytes. Raises FlatbufferError (wrong identifier, bad offsets)."""
    return read_root(buf, BundledProgram, FILE_IDENTIFIER)


def bundled_suites(bp: BundledProgram) -> dict:
    """method name -> list of (inputs, expected outputs) as numpy arrays."""
    out = {}
    for s in bp.method_test_suites or []:
        name = s.method_name or "forward"
        cases = []
        for k, c in enumerate(s.test_cases or []):
            cases.append(([value_array(v, f"{name} case {k} input {i}")
                           for i, v in enumerate(c.inputs or [])],
                          [value_array(v, f"{name} case {k} expected output {i}")
                           for i, v in enumerate(c.expected_outputs or [])]))
        out[name] = cases
    return out
