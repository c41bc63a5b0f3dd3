"""aot.tools.inspect, aot.pte.reader and aot.compiler.manifest: on our programs and on a program
ExecuTorch itself produced (zoo/small_cnn.py)."""
import argparse
import json
import random
import subprocess

import numpy as np
import pytest

from aot.compiler import emit, manifest
from aot.tools import inspect as ins
from aot.pte import schema as fb
from aot.pte.header import format_version
from aot.pte.reader import PteFormatError, parse_pte, read_pte
from tests.pte.test_format_specs import linear_relu_spec, scalars_spec, view_cat_permute_spec


def _write(tmp_path, spec, name="model.pte"):
    p = tmp_path / name
    emit.write_pte(spec, p)
    return p


# ------------------------------------------------------------------ our programs

def test_inspect_linear_relu(tmp_path):
    spec, _ = linear_relu_spec()
    path = _write(tmp_path, spec)
    info = ins.inspect_pte(path)
    assert info["pte_bytes"] == path.stat().st_size
    assert info["constants_bytes"] == 64
    assert info["ops"] == [{"name": "aten::addmm.out", "count": 1, "dtypes": ["float32"]},
                           {"name": "aten::relu.out", "count": 1, "dtypes": ["float32"]}]
    assert info["inputs"] == [{"index": 0, "shape": [2, 3], "dtype": "float32", "bytes": 24}]
    assert info["outputs"] == [{"index": 6, "shape": [2, 4], "dtype": "float32", "bytes": 32}]
    assert info["memory_plan"] == [
        {"value": 0, "mem_id": 1, "offset": 0, "bytes": 24, "first": 0, "last": 0, "shape": [2, 3], "dtype": "float32"},
        {"value": 6, "mem_id": 1, "offset": 0, "bytes": 32, "first": 1, "last": 1, "shape": [2, 4], "dtype": "float32"},
        {"value": 5, "mem_id": 1, "offset": 32, "bytes": 32, "first": 0, "last": 1, "shape": [2, 4], "dtype": "float32"},
    ]
    assert info["arena_bytes"] == [64]
    # step 0: x 24 + addmm 32; step 1: addmm 32 + relu 32
    assert info["arena_lower_bound_bytes"] == 64
    assert info["num_constants"] == 2 and info["constant_tensor_bytes"] == 16 + 48
    m = info["methods"][0]
    assert m["plan_conflicts"] == []
    assert m["instructions"][0] == {"index": 0, "kind": "kernel", "op": "aten::addmm.out",
                                    "args": [1, 0, 2, 3, 4, 5, 5], "source": "model.py:12 (forward)"}
    assert m["values"][3] == {"index": 3, "type": "Int", "value": 1}
    assert m["values"][1]["kind"] == "constant" and m["values"][1]["buffer_idx"] == 1
    json.dumps(info)   # JSON-able


def test_inspect_view_cat_permute(tmp_path):
    spec, _ = view_cat_permute_spec()
    info = ins.inspect_pte(_write(tmp_path, spec))
    names = {o["name"]: o["count"] for o in info["ops"]}
    assert names == {"aten::cat.out": 1, "executorch_prim::et_view.default": 1,
                     "aten::permute_copy.out": 1, "aten::relu.out": 1}
    rows = {r["value"]: r for r in info["memory_plan"]}
    assert set(rows) == {0, 1, 5, 9, 10}                     # view (7) is unplanned
    assert (rows[5]["mem_id"], rows[5]["first"], rows[5]["last"]) == (2, 0, 3)  # output lives to the end
    assert (rows[9]["first"], rows[9]["last"]) == (2, 3)
    m = info["methods"][0]
    assert m["unplanned_tensors"] == [7]
    assert m["values"][6] == {"index": 6, "type": "IntList", "value": [3, 6]}
    assert m["values"][3] == {"index": 3, "type": "TensorList", "items": [0, 2, 1]}
    # step 3: cat 72 + perm 72 + relu 72
    assert info["arena_lower_bound_bytes"] == 216 == info["arena_total_bytes"]
    assert m["plan_conflicts"] == []


def test_plan_conflict_detected(tmp_path):
    spec, _ = view_cat_permute_spec()
    spec.values[9].mem_offset = 64                            # overlaps relu output [0, 72)
    info = ins.inspect_pte(_write(tmp_path, spec))
    assert info["methods"][0]["plan_conflicts"] == [[9, 10]]
    assert "WARNING" in ins.render_text(info)


def test_lower_bound_counts_aliases_once():
    planned = {0: (1, 0, 100), 1: (1, 0, 100), 2: (1, 100, 50), 3: (2, 0, 10)}
    uses = [[0, 2], [1, 2, 3], [3]]
    assert ins.live_bytes_lower_bound(planned, uses, [0], [3]) == 160
    assert ins.lifetimes(uses, [0], [3]) == {0: (0, 0), 1: (1, 1), 2: (0, 1), 3: (1, 2)}


def test_render_text_and_cli(tmp_path, capsys):
    spec, _ = linear_relu_spec()
    path = _write(tmp_path, spec)
    text = ins.render_text(ins.inspect_pte(path))
    assert "aten::addmm.out" in text and "live-bytes lower bound 64 B (1.00x)" in text
    assert "# model.py:13 (forward)" in text
    p = argparse.ArgumentParser()
    ins.add_inspect_arguments(p)
    assert ins.run_inspect(p.parse_args([str(path), "--json"])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["arena_bytes"] == [64]
    assert ins.main([str(path)]) == 0
    assert "memory plan" in capsys.readouterr().out
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"\0\0\0\0XXXX" + b"\0" * 64)
    assert ins.run_inspect(p.parse_args([str(bad)])) == 1
    assert "ET12" in capsys.readouterr().err
    assert ins.run_inspect(p.parse_args([str(tmp_path / "missing.pte")])) == 1


def test_inspect_reads_manifest_next_to_pte(tmp_path):
    spec, _ = linear_relu_spec()
    path = _write(tmp_path, spec)
    manifest.write_manifest(spec, tmp_path / "ops.json", {"memory": {"stack_bytes": 512}})
    info = ins.inspect_pte(path)
    assert info["manifest_memory"]["stack_bytes"] == 512
    assert "stack_bytes=512" in ins.render_text(info)


# ------------------------------------------------------------------ reader robustness

def test_reader_errors():
    data = emit.emit_program(linear_relu_spec()[0])
    with pytest.raises(PteFormatError, match="too short"):
        parse_pte(data[:4])
    with pytest.raises(PteFormatError, match="identifier"):
        parse_pte(data[:4] + b"ET11" + data[8:])
    with pytest.raises(PteFormatError, match="program_size"):
        parse_pte(data[:200])
    bad = bytearray(data)
    bad[12:16] = (8).to_bytes(4, "little")                      # header length too small
    with pytest.raises(PteFormatError, match="header length"):
        parse_pte(bytes(bad))
    bad = bytearray(data)
    bad[0:4] = (len(data) + 100).to_bytes(4, "little")            # root offset outside
    with pytest.raises(PteFormatError):
        parse_pte(bytes(bad))
    with pytest.raises(PteFormatError):                           # segment data cut off
        parse_pte(data[:-1])


def test_reader_fuzz_never_crashes():
    """Random byte flips inside the flatbuffer: parse or PteFormatError, nothing else."""
    data = emit.emit_program(view_cat_permute_spec()[0])
    psize = parse_pte(data).header.program_size
    rng = random.Random(1234)
    errors = 0
    for _ in range(400):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(40, psize)] = rng.randrange(256)
        try:
            parse_pte(bytes(b))
        except PteFormatError:
            errors += 1
    assert errors > 0


def test_schema_reader_bad_union_tag():
    prog = fb.Program(execution_plan=[fb.ExecutionPlan(values=[fb.EValue(val=fb.Int(int_val=0x55AA55AA))])])
    data = bytearray(fb.serialize_program(prog))
    assert fb.read_program(bytes(data)).execution_plan[0].values[0].val.int_val == 0x55AA55AA
    # the EValue vtable's first slot points at the tag byte (value 2 = Int); make it 42
    tags = [i for i in range(len(data)) if data[i] == fb.UNIONS["KernelTypes"].index(fb.Int) + 1]
    hit = False
    for pos in tags:
        b = bytearray(data)
        b[pos] = 42
        try:
            fb.read_program(bytes(b))
        except fb.FlatbufferError as e:
            hit = hit or "union tag 42" in str(e)
    assert hit


# ------------------------------------------------------------------ manifest and header

def test_kernel_symbol():
    assert manifest.kernel_symbol("aten::addmm.out") == "mote_kernel_aten_addmm_out"
    assert manifest.kernel_symbol("quantized_decomposed::quantize_per_tensor.out") == \
        "mote_kernel_quantized_decomposed_quantize_per_tensor_out"
    with pytest.raises(ValueError):
        manifest.kernel_symbol("aten::bad-name.out")


def test_manifest(tmp_path):
    spec, _ = view_cat_permute_spec()
    spec.instructions[2].scratch_bytes = 40
    m = manifest.write_manifest(spec, tmp_path / "ops.json",
                                {"board": "pico2", "memory": {"runtime_state_bytes": 1234},
                                 "kernels": {"aten::relu.out": "mote_cmsis_relu_f32"}})
    assert json.loads((tmp_path / "ops.json").read_text()) == m
    assert m["ops"] == [
        {"name": "aten::cat.out", "dtypes": ["float32"], "kernel": "mote_kernel_aten_cat_out", "count": 1},
        {"name": "executorch_prim::et_view.default", "dtypes": ["float32"],
         "kernel": "mote_kernel_executorch_prim_et_view_default", "count": 1},
        {"name": "aten::permute_copy.out", "dtypes": ["float32"],
         "kernel": "mote_kernel_aten_permute_copy_out", "count": 1},
        {"name": "aten::relu.out", "dtypes": ["float32"], "kernel": "mote_cmsis_relu_f32", "count": 1},
    ]
    assert m["memory"] == {"arena_bytes": [144, 72], "arena_lower_bound_bytes": 216,
                           "constants_bytes": 24, "runtime_state_bytes": 1234,
                           "scratch_bytes": 40, "stack_bytes": None}
    assert m["inputs"] == [{"index": 0, "shape": [2, 3], "dtype": "float32", "bytes": 24},
                           {"index": 1, "shape": [2, 3], "dtype": "float32", "bytes": 24}]
    assert m["outputs"][1] == {"index": 5, "shape": [6, 3], "dtype": "float32", "bytes": 72}
    assert m["board"] == "pico2"
    assert m["pte_bytes"] == len(emit.emit_program(spec))


def test_manifest_int8_dtypes_and_plan_info(tmp_path):
    spec = scalars_spec()
    spec.plan_info = {"lower_bound": 16, "scratch_bytes": 8}
    m = manifest.write_manifest(spec, tmp_path / "ops.json", {})
    assert m["ops"] == [{"name": "aten::clone.out", "dtypes": ["int8"],
                         "kernel": "mote_kernel_aten_clone_out", "count": 1}]
    assert m["memory"]["arena_lower_bound_bytes"] == 16 and m["memory"]["scratch_bytes"] == 8
    assert m["memory"]["constants_bytes"] == 16


def test_model_header_compiles_with_exact_values(tmp_path):
    spec, _ = view_cat_permute_spec()
    h = tmp_path / "mote_model.h"
    text = manifest.write_model_header(spec, h, "cat_view")
    pte = len(emit.emit_program(spec))
    for line in ("#define MOTE_MODEL_NUM_ARENAS 2u", "#define MOTE_MODEL_ARENA0_BYTES 144u",
                 "#define MOTE_MODEL_ARENA1_BYTES 72u", "#define MOTE_MODEL_CONSTANTS_BYTES 24u",
                 f"#define MOTE_MODEL_PTE_BYTES {pte}u", "#define MOTE_MODEL_INPUT0_BYTES 24u",
                 "#define MOTE_MODEL_INPUT1_BYTES 24u", "#define MOTE_MODEL_OUTPUT0_BYTES 72u",
                 "#define MOTE_MODEL_OUTPUT1_BYTES 72u", "#define MOTE_MODEL_NUM_INPUTS 2u",
                 "#define MOTE_MODEL_INPUT0_DTYPE 6 /* float32 */", "#define MOTE_MODEL_OUTPUT0_NUMEL 18u"):
        assert line in text.splitlines()
    c = tmp_path / "t.c"
    c.write_text('#include "mote_model.h"\n#include <stdint.h>\n'
                 "static uint8_t arena0[MOTE_MODEL_ARENA0_BYTES];\n"
                 "typedef char check[(MOTE_MODEL_ARENA0_BYTES == 144u && MOTE_MODEL_PTE_BYTES == %du) ? 1 : -1];\n"
                 "uint8_t *get(void);\nuint8_t *get(void) { return arena0; }\n" % pte)
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-c",
                        "-o", str(tmp_path / "t.o"), str(c)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ oracle: an ExecuTorch-made .pte

@pytest.fixture(scope="module")
def et_small_cnn(tmp_path_factory):
    import torch
    from executorch.exir import to_edge
    from zoo import small_cnn
    model = small_cnn.model()
    et = to_edge(torch.export.export(model, small_cnn.example_inputs())).to_executorch()
    path = tmp_path_factory.mktemp("et") / "small_cnn.pte"
    path.write_bytes(et.buffer)
    return model, path


@pytest.mark.oracle
def test_inspect_executorch_small_cnn(et_small_cnn):
    from executorch.exir._serialize._program import deserialize_pte_binary
    model, path = et_small_cnn
    info = ins.inspect_pte(path)
    assert {o["name"]: o["count"] for o in info["ops"]} == {
        "aten::convolution.out": 2, "aten::relu.out": 2, "aten::permute_copy.out": 1, "aten::addmm.out": 1}
    assert all(o["dtypes"] == ["float32"] for o in info["ops"])
    assert [(i["shape"], i["dtype"]) for i in info["inputs"]] == [([1, 1, 8, 8], "float32")]
    assert [(o["shape"], o["dtype"]) for o in info["outputs"]] == [([1, 10], "float32")]
    assert info["pte_bytes"] == path.stat().st_size
    # against ExecuTorch's own deserializer
    prog = deserialize_pte_binary(path.read_bytes()).program
    plan = prog.execution_plan[0]
    assert info["arena_bytes"] == list(plan.non_const_buffer_sizes[1:])
    want = {}
    for i, ev in enumerate(plan.values):
        t = ev.val
        if type(t).__name__ == "Tensor" and t.allocation_info is not None:
            want[i] = (t.allocation_info.memory_id, t.allocation_info.memory_offset_low)
    assert {r["value"]: (r["mem_id"], r["offset"]) for r in info["memory_plan"]} == want
    assert all(r["first"] is not None for r in info["memory_plan"])
    assert 0 < info["arena_lower_bound_bytes"] <= info["arena_total_bytes"]
    n_const = sum(1 for ev in plan.values if type(ev.val).__name__ == "Tensor" and ev.val.data_buffer_idx > 0)
    assert info["num_constants"] == n_const == 6
    assert info["constant_tensor_bytes"] == sum(p.numel() * 4 for p in model.parameters())
    assert info["constants_bytes"] >= info["constant_tensor_bytes"]


@pytest.mark.oracle
def test_reader_constants_of_executorch_file(et_small_cnn):
    model, path = et_small_cnn
    pte = read_pte(path)
    plan = pte.plan()
    consts = [plan.tensors[i] for i in sorted(plan.tensors) if plan.tensors[i].kind == "constant"]
    params = dict(model.named_parameters())
    by_shape = {tuple(p.shape): p for p in params.values()}
    for t in consts:
        p = by_shape[tuple(t.sizes)]
        assert np.frombuffer(t.data, np.float32).tobytes() == p.detach().numpy().tobytes()
    # convolution args: IntLists resolve through Int values (stride of conv2 is [2, 2])
    conv2 = [i for i in plan.instructions if i.op == "aten::convolution.out"][1]
    assert plan.int_list(conv2.args[3]) == [2, 2]
    # our writer re-serializes ExecuTorch's program losslessly
    again = fb.read_program(fb.serialize_program(pte.program))
    assert again == pte.program


@pytest.mark.oracle
def test_our_small_linear_matches_executorch_layout_facts(et_small_cnn):
    """Both files carry the same header layout conventions; Mote's header is
    ExecuTorch's 32 bytes plus the 8-byte format-version stamp."""
    _, path = et_small_cnn
    theirs = read_pte(path)
    ours = parse_pte(emit.emit_program(linear_relu_spec()[0]))
    assert (theirs.header.length, theirs.header.format_version) == (32, 0)
    assert (ours.header.length, ours.header.format_version) == (40, format_version())
    for p in (theirs, ours):
        h = p.header
        assert h.segment_base_offset % 128 == 0
        assert h.program_size <= h.segment_base_offset
        assert h.segment_base_offset + h.segment_data_size == p.size
        assert p.program.constant_segment.offsets[0] == 0
        assert all(o % 16 == 0 for o in p.program.constant_segment.offsets)


@pytest.mark.oracle
def test_reemitted_executorch_program_runs_identically(et_small_cnn):
    """ExecuTorch's small_cnn .pte -> our reader -> ProgramSpec -> our emitter ->
    ExecuTorch's runtime: same output bits as ExecuTorch's own file (and eager torch)."""
    import torch
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    from aot.pte.reader import plan_to_spec
    from zoo import small_cnn
    model, path = et_small_cnn
    theirs = path.read_bytes()
    spec = plan_to_spec(read_pte(path).plan())
    ours = emit.emit_program(spec)
    assert ours != theirs
    x = small_cnn.example_inputs()
    m_theirs = _load_for_executorch_from_buffer(theirs)   # keeps a pointer to `theirs`
    m_ours = _load_for_executorch_from_buffer(ours)
    out_theirs = m_theirs.forward(x)[0].clone()
    out_ours = m_ours.forward(x)[0].clone()
    assert torch.equal(out_ours, out_theirs)
    with torch.no_grad():
        ref = model(*x)
    assert (out_ours - ref).abs().max().item() <= 1e-5 * max(1.0, ref.abs().max().item())
    # and inspect sees the same plan in both
    a = ins.inspect_file(parse_pte(ours))
    b = ins.inspect_file(parse_pte(theirs))
    for key in ("ops", "inputs", "outputs", "memory_plan", "arena_bytes", "arena_lower_bound_bytes",
                "constant_tensor_bytes"):
        assert a[key] == b[key], key


def test_view_keeps_its_source_alive(tmp_path):
    """cat (mem2) is viewed at step 1 and the view is read at step 2: cat lives to step 2
    even though cat itself is not an argument there; a plan putting perm over cat conflicts."""
    spec, _ = view_cat_permute_spec()
    spec.outputs = [10]                      # cat no longer an output
    info = ins.inspect_pte(_write(tmp_path, spec))
    rows = {r["value"]: r for r in info["memory_plan"]}
    assert (rows[5]["first"], rows[5]["last"]) == (0, 2)
    assert info["methods"][0]["plan_conflicts"] == []
    # steps: 0: x+y+cat 120; 1: cat 72; 2: cat+perm 144; 3: perm+relu 144
    assert manifest.spec_lower_bound(spec) == info["arena_lower_bound_bytes"] == 144
    spec.values[9].mem_id, spec.values[9].mem_offset = 2, 8     # perm over cat's bytes
    spec.arena_sizes = [0, 144, 80]
    info = ins.inspect_pte(_write(tmp_path, spec, "bad.pte"))
    assert info["methods"][0]["plan_conflicts"] == [[5, 9]]
    assert ins.with_view_aliases([[5], [5, 7], [7, 9]], [(1, 5, 7)], [9]) == \
        ([[5], [5, 7], [7, 9, 5]], [9])
    assert ins.with_view_aliases([[5, 7]], [(0, 5, 7)], [7]) == ([[5, 7]], [7, 5])


# ------------------------------------------------------------------ shared sub-objects (issue 34)

def _shared_plans_pte(nplans: int, nvalues: int) -> bytes:
    """A program whose `nplans` execution plans all point at one vector of
    `nvalues` offsets to one Int EValue: a few bytes per plan in the file, but
    nplans * nvalues values to a reader that re-reads shared sub-objects."""
    import flatbuffers
    tag = fb.ET12.unions["KernelTypes"].index(fb.Int) + 1
    b = flatbuffers.Builder(0)
    b.StartObject(1)
    b.PrependInt64Slot(0, 7, 0)
    i = b.EndObject()
    b.StartObject(2)
    b.PrependUint8Slot(0, tag, 0)
    b.PrependUOffsetTRelativeSlot(1, i, 0)
    ev = b.EndObject()
    b.StartVector(4, nvalues, 4)
    for _ in range(nvalues):
        b.PrependUOffsetTRelative(ev)
    values = b.EndVector()
    plans = []
    for _ in range(nplans):
        b.StartObject(fb._num_slots(fb.ExecutionPlan))
        b.PrependUOffsetTRelativeSlot([s.name for s in fb.table_layout(fb.ExecutionPlan)].index("values"),
                                      values, 0)
        plans.append(b.EndObject())
    b.StartVector(4, nplans, 4)
    for p in reversed(plans):
        b.PrependUOffsetTRelative(p)
    pv = b.EndVector()
    b.StartObject(fb._num_slots(fb.Program))
    b.PrependUOffsetTRelativeSlot([s.name for s in fb.table_layout(fb.Program)].index("execution_plan"), pv, 0)
    root = b.EndObject()
    b.Finish(root, file_identifier=fb.FILE_IDENTIFIER)
    return bytes(b.Output())


def test_plans_sharing_values_read_once_each(tmp_path):
    # 3 plans sharing 3 values: 9 values, within what the file's bytes allow
    pte = parse_pte(_shared_plans_pte(3, 3))
    assert [[v.int_val for v in p.values] for p in pte.plans] == [[7, 7, 7]] * 3


def test_plans_sharing_values_many_times_are_refused(tmp_path, capsys):
    # 1,000 plans x 1,000 values from 16,096 bytes: 61 s and 1.7 GB in aot inspect before
    data = _shared_plans_pte(1000, 1000)
    assert len(data) == 16096
    with pytest.raises(PteFormatError, match=r"^the tables, strings and vectors reached from this 16,096-byte "
                                             r"buffer add up to more than 97,728 bytes: sub-objects shared"):
        parse_pte(data)
    path = tmp_path / "shared.pte"
    path.write_bytes(data)
    from aot.cli import main
    assert main(["inspect", str(path)]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "sub-objects shared many times" in err


def test_constants_shared_by_several_values_are_counted_once(tmp_path):
    """Issue 39: a GRU's recurrent weight is read by each step's value, stored once: the
    text gives the stored bytes (the header's constants figure), not one copy per value."""
    import torch
    from aot.compiler.pipeline import compile_module
    torch.manual_seed(0)
    gru = torch.nn.GRU(8, 8, batch_first=True).eval()
    c = compile_module("gru", gru, (torch.randn(1, 6, 8),))
    path = tmp_path / "gru.pte"
    path.write_bytes(c.pte)
    info = ins.inspect_pte(path)
    assert info["num_constants"] > info["constant_buffers"]  # each step's view of weight_hh
    assert info["constant_tensor_bytes"] > info["constant_stored_bytes"]
    assert info["constant_stored_bytes"] == info["constants_bytes"]
    text = ins.render_text(info)
    assert (f"constants: {info['num_constants']} tensors in {info['constant_buffers']} stored buffers, "
            f"{info['constants_bytes']} bytes stored") in text
    assert str(info["constant_tensor_bytes"]) not in text
