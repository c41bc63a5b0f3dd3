"""aot.compiler.emit / aot.pte.schema: .pte layout, round trip through aot.pte.reader, and
ExecuTorch's own runtime and deserializer as the compatibility oracle."""
import json
import os
import struct

import numpy as np
import pytest

from aot import ir
from aot.compiler import emit
from aot.pte import header
from aot.pte import schema as fb
from aot.pte.reader import parse_pte
from tests.pte.test_format_specs import (linear_relu_spec, relu_only_spec, scalars_spec,
                               view_cat_permute_spec)

ALL_SPECS = {
    "linear_relu": lambda: linear_relu_spec()[0],
    "view_cat_permute": lambda: view_cat_permute_spec()[0],
    "relu_only": lambda: relu_only_spec()[0],
    "scalars": scalars_spec,
}


# ------------------------------------------------------------------ layout

@pytest.mark.parametrize("name", sorted(ALL_SPECS))
def test_file_layout(name):
    spec = ALL_SPECS[name]()
    res = emit.build_program(spec)
    data = res.data
    root, = struct.unpack_from("<I", data, 0)
    assert data[4:8] == b"ET12"
    assert data[8:12] == b"eh00"
    length, psize, base, dsize = struct.unpack_from("<IQQQ", data, 12)
    assert length == 40
    # Mote's stamp: "MOTE" + the runtime's MOTE_PTE_FORMAT_VERSION, padded to 48 bytes
    assert data[40:44] == b"MOTE"
    assert struct.unpack_from("<I", data, 44)[0] == header.format_version() >= 1
    assert psize == res.program_size <= len(data)
    assert base == res.segment_base_offset
    assert base % 128 == 0 and psize <= base < psize + 128
    assert base + dsize == len(data)
    assert dsize == len(res.constant_segment)
    assert data[base:] == res.constant_segment
    assert data[psize:base] == b"\0" * (base - psize)
    assert 56 <= root < psize
    # removing the header gives a plain flatbuffer the schema reader accepts
    plain = struct.pack("<I", root - 48) + data[4:8] + data[56:psize]
    assert fb.read_program(plain) == res.program


def test_constant_segment_offsets_aligned_and_deduplicated():
    spec = scalars_spec()
    res = emit.build_program(spec)
    assert res.constant_offsets[0] == 0
    assert all(o % emit.CONSTANT_ALIGNMENT == 0 for o in res.constant_offsets)
    # values 1 and 13 hold identical bytes: one buffer
    assert res.buffer_of_value[1] == res.buffer_of_value[13] == 1
    assert len(res.constant_offsets) == 2
    spec, _ = linear_relu_spec()
    res = emit.build_program(spec)
    assert res.constant_offsets == [0, 0, 16]       # bias 16 bytes, then W^T 48 bytes
    assert len(res.constant_segment) == 16 + 48
    assert res.constant_segment[16:] == spec.values[2].constant


def test_no_constants_gives_empty_segment():
    res = emit.build_program(relu_only_spec()[0])
    assert res.constant_offsets == [0]
    assert res.constant_segment == b""
    assert len(res.data) == res.segment_base_offset
    pte = parse_pte(res.data)
    assert pte.program.segments == [fb.DataSegment(0, 0)]


def test_container_metadata_strings():
    cm = emit.container_metadata(1, 1)
    leaf = {"type": None, "context": None, "children_spec": []}
    assert json.loads(cm.encoded_inp_str) == [1, {
        "type": "builtins.tuple", "context": "null", "children_spec": [
            {"type": "builtins.tuple", "context": "null", "children_spec": [leaf]},
            {"type": "builtins.dict", "context": "[]", "children_spec": []}]}]
    assert json.loads(cm.encoded_out_str) == [1, leaf]
    cm = emit.container_metadata(2, 3)
    assert len(json.loads(cm.encoded_inp_str)[1]["children_spec"][0]["children_spec"]) == 2
    assert json.loads(cm.encoded_out_str)[1]["children_spec"] == [leaf] * 3


# ------------------------------------------------------------------ round trip

@pytest.mark.parametrize("name", sorted(ALL_SPECS))
def test_round_trip_every_field(name):
    spec = ALL_SPECS[name]()
    res = emit.build_program(spec)
    pte = parse_pte(res.data)
    assert pte.program == res.program          # whole schema object tree
    assert pte.size == len(res.data)
    assert pte.header.program_size == res.program_size
    assert pte.header.segment_base_offset == res.segment_base_offset
    assert pte.header.segment_data_size == len(res.constant_segment)
    plan = pte.plan("forward")
    assert plan.inputs == spec.inputs and plan.outputs == spec.outputs
    assert plan.non_const_buffer_sizes == spec.arena_sizes
    assert plan.encoded_inp_str == emit.container_metadata(len(spec.inputs), len(spec.outputs)).encoded_inp_str
    # operators: deduplicated, in order of first use
    want_ops = []
    for c in spec.instructions:
        if f"{c.op}.{c.overload}" not in want_ops:
            want_ops.append(f"{c.op}.{c.overload}")
    assert plan.operators == want_ops
    assert [i.op for i in plan.instructions] == [f"{c.op}.{c.overload}" for c in spec.instructions]
    assert [i.args for i in plan.instructions] == [c.args for c in spec.instructions]
    # values keep their indices; IntLists point at appended Int values
    assert len(plan.values) >= len(spec.values)
    for i, v in enumerate(spec.values):
        got = plan.values[i]
        if v is None:
            assert isinstance(got, fb.Null)
        elif isinstance(v, bool):
            assert got == fb.Bool(v)
        elif isinstance(v, int):
            assert got == fb.Int(v)
        elif isinstance(v, float):
            assert got == fb.Double(v)
        elif isinstance(v, str):
            assert got == fb.String(v)
        elif isinstance(v, ir.IntListValue):
            assert plan.int_list(i) == v.items
            assert all(j >= len(spec.values) for j in got.items)
        elif isinstance(v, ir.TensorListValue):
            assert type(got) is (fb.OptionalTensorList if v.optional else fb.TensorList)
            assert got.items == v.items
        elif isinstance(v, (ir.DoubleListValue, ir.BoolListValue)):
            assert got.items == v.items
        else:
            t = plan.tensors[i]
            assert (t.dtype, t.sizes, t.nbytes) == (v.dtype, v.sizes, v.nbytes)
            assert t.dim_order == list(range(len(v.sizes)))
            assert got.storage_offset == 0 and got.shape_dynamism == 0 and not got.requires_grad
            if v.constant is not None:
                assert t.kind == "constant" and t.buffer_idx >= 1 and got.allocation_info is None
                assert t.data == v.constant
            elif v.mem_id is not None:
                assert t.kind == "planned" and got.data_buffer_idx == 0
                assert (t.mem_id, t.mem_offset) == (v.mem_id, v.mem_offset)
            else:
                assert t.kind == "unplanned" and got.data_buffer_idx == 0 and got.allocation_info is None


def test_stacktrace_cites_model_lines():
    spec, _ = linear_relu_spec()
    pte = parse_pte(emit.emit_program(spec))
    chain = pte.program.execution_plan[0].chains[0]
    assert chain.stacktrace[0].items == [fb.Frame(filename="model.py", lineno=12, name="forward")]
    assert [i.source for i in pte.plan().instructions] == ["model.py:12 (forward)", "model.py:13 (forward)"]
    # no sources -> no stacktrace table
    assert parse_pte(emit.emit_program(relu_only_spec()[0])).program.execution_plan[0].chains[0].stacktrace is None


def test_int_values_shared_between_int_lists():
    spec = scalars_spec()
    res = emit.build_program(spec)
    items = res.program.execution_plan[0].values[11].val.items
    n = len(spec.values)
    assert items == [n, n + 1, n]                 # 7 reused, -2**40 once
    assert res.int_values == {7: n, -(2 ** 40): n + 1}


def test_64bit_arena_offset_split_low_high():
    off = (1 << 33) + 64
    spec = ir.ProgramSpec(values=[ir.TensorValue([4], 6, mem_id=1, mem_offset=off),
                                  ir.TensorValue([4], 6, mem_id=1, mem_offset=0)],
                          inputs=[0], outputs=[1],
                          instructions=[ir.KernelCall("aten::relu", "out", [0, 1, 1])],
                          arena_sizes=[0, off + 16])
    a = parse_pte(emit.emit_program(spec)).program.execution_plan[0].values[0].val.allocation_info
    assert (a.memory_offset_low, a.memory_offset_high) == (64, 2) and a.offset == off


def test_dim_order_written():
    t = ir.TensorValue([1, 2, 3, 4], 6, dim_order=[0, 2, 3, 1], mem_id=1, mem_offset=0)
    spec = ir.ProgramSpec(values=[t], inputs=[0], outputs=[0], arena_sizes=[0, 96])
    assert parse_pte(emit.emit_program(spec)).plan().tensors[0].dim_order == [0, 2, 3, 1]


# ------------------------------------------------------------------ errors

def _bad(mutate):
    spec, _ = linear_relu_spec()
    mutate(spec)
    with pytest.raises(emit.EmitError):
        emit.emit_program(spec)


def test_emit_rejects_bad_specs():
    _bad(lambda s: s.instructions[0].args.append(99))                     # index out of range
    _bad(lambda s: setattr(s.values[1], "constant", b"\0" * 3))           # wrong constant length
    _bad(lambda s: setattr(s.values[5], "mem_offset", 40))                # past arena end
    _bad(lambda s: setattr(s.values[5], "mem_id", 2))                     # no such arena
    _bad(lambda s: setattr(s.values[5], "mem_id", None))                  # offset without id
    _bad(lambda s: setattr(s.values[1], "mem_id", 1))                     # const and planned
    _bad(lambda s: setattr(s.values[0], "dim_order", [0, 0]))             # not a permutation
    _bad(lambda s: setattr(s.values[0], "dtype", 9))                      # complex: unsupported
    _bad(lambda s: setattr(s, "inputs", [3]))                             # input not a tensor
    _bad(lambda s: setattr(s, "arena_sizes", [8, 64]))                    # entry 0 reserved
    _bad(lambda s: s.values.append(object()))                             # unknown value type
    _bad(lambda s: s.values.append(ir.IntListValue([1.5])))               # IntList of floats
    _bad(lambda s: s.values.append(2 ** 64))                              # int64 overflow
    _bad(lambda s: s.values.append(ir.TensorListValue([3])))              # list item not a tensor
    _bad(lambda s: setattr(s.instructions[0], "op", "addmm"))             # no namespace


def test_write_pte_is_atomic(tmp_path):
    spec, _ = linear_relu_spec()
    out = tmp_path / "model.pte"
    n = emit.write_pte(spec, out)
    assert out.read_bytes() == emit.emit_program(spec) and n == out.stat().st_size
    good = out.read_bytes()
    bad, _ = linear_relu_spec()
    bad.instructions[1].args = [5, 6, 77]
    with pytest.raises(emit.EmitError):
        emit.write_pte(bad, out)
    assert out.read_bytes() == good                      # old file untouched
    assert sorted(os.listdir(tmp_path)) == ["model.pte"]  # no temp file left
    fresh = tmp_path / "fresh.pte"
    with pytest.raises(emit.EmitError):
        emit.write_pte(bad, fresh)
    assert not fresh.exists()
    assert sorted(os.listdir(tmp_path)) == ["model.pte"]


def test_write_pte_failure_during_write_leaves_nothing(tmp_path, monkeypatch):
    spec, _ = linear_relu_spec()
    out = tmp_path / "m.pte"

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(emit.os, "replace", boom)
    with pytest.raises(OSError):
        emit.write_pte(spec, out)
    assert os.listdir(tmp_path) == []


def test_schema_rejects_wrong_objects():
    with pytest.raises(fb.SchemaError):
        fb.serialize_program(fb.Program(execution_plan=[fb.Operator()]))
    with pytest.raises(fb.SchemaError):
        fb.serialize_program(fb.Program(execution_plan=[fb.ExecutionPlan(
            values=[fb.EValue(val=fb.KernelCall())])]))
    with pytest.raises(fb.SchemaError):
        fb.serialize_program(fb.Program(version=-1))


# ------------------------------------------------------------------ oracle: ExecuTorch

def _run_executorch(data: bytes, inputs):
    import torch
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    m = _load_for_executorch_from_buffer(data)    # does not copy `data`: caller keeps it alive
    return [o.numpy() for o in m.forward(tuple(torch.from_numpy(x) for x in inputs))]


@pytest.mark.oracle
@pytest.mark.parametrize("build", [linear_relu_spec, view_cat_permute_spec, relu_only_spec])
def test_executorch_runs_our_program(build):
    spec, ref = build()
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal(spec.values[i].sizes).astype(np.float32) for i in spec.inputs]
    got = _run_executorch(emit.emit_program(spec), inputs)
    want = ref(*inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)
    # exact for the copies (cat output is a pure copy)
    if build is view_cat_permute_spec:
        assert np.array_equal(got[1], want[1])


@pytest.mark.oracle
def test_executorch_requires_return_value_in_args():
    """Why KernelCall args repeat the out tensor: ExecuTorch's unboxing checks the count."""
    spec, _ = relu_only_spec()
    spec.instructions[0].args = [0, 1]
    with pytest.raises(RuntimeError):
        _run_executorch(emit.emit_program(spec), [np.ones(4, np.float32)])


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(ALL_SPECS))
def test_executorch_deserializer_reads_our_program(name):
    from executorch.exir._serialize._program import deserialize_pte_binary
    spec = ALL_SPECS[name]()
    res = emit.build_program(spec)
    prog = deserialize_pte_binary(res.data).program
    plan = prog.execution_plan[0]
    assert plan.name == "forward"
    assert list(plan.non_const_buffer_sizes) == spec.arena_sizes
    assert [(o.name, o.overload) for o in plan.operators] == \
        [(o.name, o.overload) for o in res.program.execution_plan[0].operators]
    assert plan.container_meta_type.encoded_inp_str == \
        res.program.execution_plan[0].container_meta_type.encoded_inp_str
    assert len(plan.values) == len(res.program.execution_plan[0].values)
    for i, v in enumerate(spec.values):
        if isinstance(v, ir.TensorValue):
            t = plan.values[i].val
            assert list(t.sizes) == v.sizes and int(t.scalar_type) == v.dtype
            if v.constant is not None:
                # ExecuTorch's deserializer moves segment constants back into constant_buffer
                assert bytes(prog.constant_buffer[t.data_buffer_idx].storage)[:v.nbytes] == v.constant
            elif v.mem_id is not None:
                assert (t.allocation_info.memory_id, t.allocation_info.memory_offset_low) == \
                    (v.mem_id, v.mem_offset)
            else:
                assert t.allocation_info is None and t.data_buffer_idx == 0


@pytest.mark.oracle
def test_container_metadata_matches_executorch_export():
    import torch
    from executorch.exir import to_edge
    from aot.pte.reader import parse_pte as parse

    class One(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x)

    class Two(torch.nn.Module):
        def forward(self, x, y):
            return x + y, x * y

    for mod, ins, n_out in ((One(), (torch.randn(2, 3),), 1),
                            (Two(), (torch.randn(2, 3), torch.randn(2, 3)), 2)):
        et = to_edge(torch.export.export(mod, ins)).to_executorch()
        plan = parse(et.buffer).plan()
        ours = emit.container_metadata(len(ins), n_out)
        assert plan.encoded_inp_str == ours.encoded_inp_str
        assert plan.encoded_out_str == ours.encoded_out_str


@pytest.mark.oracle
def test_executorch_rejects_nothing_we_emit_for_scalars():
    """Every EValue kind loads in ExecuTorch (clone.out runs on the int8 tensor)."""
    import torch
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    spec = scalars_spec()
    data = emit.emit_program(spec)    # the pybinding does not copy: keep the bytes alive
    m = _load_for_executorch_from_buffer(data)
    x = torch.arange(16, dtype=torch.int8)
    out = m.forward((x,))
    assert torch.equal(out[0], x)


def test_schema_inline_buffers_are_16_byte_aligned():
    blobs = [b"", b"a", bytes(range(37)), b"\xff" * 16]
    prog = fb.Program(constant_buffer=[fb.Buffer(storage=x) for x in blobs],
                      backend_delegate_data=[fb.BackendDelegateInlineData(data=b"xyz")])
    data = fb.serialize_program(prog)
    back = fb.read_program(data)
    assert [b.storage for b in back.constant_buffer] == blobs
    assert back.backend_delegate_data[0].data == b"xyz"
    # each vector's data (after its 4-byte length) starts on a 16-byte boundary
    for blob in blobs[1:]:
        pos = data.find(len(blob).to_bytes(4, "little") + blob)
        assert pos >= 0 and (pos + 4) % 16 == 0
