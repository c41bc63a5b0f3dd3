"""The event tracer on the host library and `aot profile --target host`.

The tracer (runtime/include/mote/trace.h) is compiled into libmote.so; these
tests read it through aot.host.runtime.Method.run_traced and the CLI."""
import ctypes as C
import json

import numpy as np
import pytest

import zoo
from aot.cli import main
from aot.compiler.pipeline import compile_model_file
from aot.compiler.debug_record import debug_record, debug_record_path
from aot.host.abi import TraceEvent, Tracer, error_codes
from aot.host.runtime import Program


@pytest.fixture(scope="module")
def small():
    c = compile_model_file(str(zoo.path("small_cnn")))
    return c, [t.numpy() for t in c.example_inputs]


def test_one_event_per_instruction_in_order(small):
    c, x = small
    m = Program(c.pte).method()
    tr = m.run_traced(x)
    assert [e[0] for e in tr.events] == list(range(len(c.spec.instructions)))
    assert tr.dropped == 0
    inside = sum((end - start) & 0xFFFFFFFF for _, start, end in tr.events)
    assert 0 < inside <= tr.run_ticks  # every event lies within the traced execute
    # tracing does not change the result
    np.testing.assert_array_equal(tr.outputs[0], m.run(x)[0])


def test_capture_gives_each_instructions_output(small):
    c, x = small
    rec = debug_record(c)
    capture = {r["instr"]: r["outputs"] for r in rec["instructions"]}
    tr = Program(c.pte).method().run_traced(x, capture=capture)
    last = rec["instructions"][-1]
    got = tr.captured[last["instr"]][0]
    assert list(got.shape) == last["output_shapes"][0]
    np.testing.assert_array_equal(got, tr.outputs[0])  # the last op writes the program output
    assert sorted(tr.captured) == sorted(k for k, v in capture.items() if v)


def test_full_buffer_counts_dropped_events(small):
    c, x = small
    m = Program(c.pte).method()
    lib = m._lib
    events = (TraceEvent * 2)()
    t = Tracer(events=events, capacity=2)
    assert lib.mote_method_set_tracer(m._ptr, C.byref(t)) == 0
    m.run(x)
    n = len(c.spec.instructions)
    assert (t.count, t.dropped) == (2, n - 2)
    assert [events[0].instr, events[1].instr] == [0, 1]
    assert lib.mote_method_set_tracer(m._ptr, None) == 0


def test_set_tracer_refuses_a_missing_buffer(small):
    c, _ = small
    m = Program(c.pte).method()
    t = Tracer(events=None, capacity=4)
    assert m._lib.mote_method_set_tracer(m._ptr, C.byref(t)) == error_codes()["INVALID_ARGUMENT"]


def test_profile_host_json_rows_sum_to_the_whole_run(capsys):
    assert main(["profile", str(zoo.path("ds_cnn")), "--target", "host", "--json", "--repeats", "10"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["tick_unit"] == "ns" and p["target"] == "host"
    assert len(p["ops"]) == 21
    assert p["total_ticks"] == sum(o["ticks"] for o in p["ops"])
    assert {o["op"] for o in p["ops"]} >= {"aten::convolution.out", "aten::relu.out", "aten::addmm.out"}
    assert all(o["source"].startswith("ds_cnn.py:") for o in p["ops"])
    assert p["ops"][0]["module"] == "module 'features.0' (Conv2d)"
    assert p["ops"][0]["macs"] == 320_000 and p["ops"][0]["kernel"] == "portable"
    # wall-clock on a shared machine: how close the rows come to the untraced
    # run is a benchmark figure (README), not something a test can hold
    assert p["whole_ticks"] > 0 and p["agreement"] == pytest.approx(p["total_ticks"] / p["whole_ticks"])


def test_export_writes_the_debug_record(tmp_path):
    out = tmp_path / "ds.pte"
    assert main(["export", str(zoo.path("ds_cnn")), "--int8", "-o", str(out)]) == 0
    rec = json.loads(debug_record_path(out).read_text())
    conv = next(r for r in rec["instructions"] if r["op"] == "mote::conv2d_s8.out")
    # the fused int8 conv names its PT2E weight, bias, conv, relu and requantize nodes
    assert conv["nodes"][-3:] == ["conv2d", "relu", "quantize_per_tensor_default_1"]
    assert len(conv["nodes"]) == 5
    assert conv["q"] == {"node": "quantize_per_tensor_default_1", "perm": [0, 2, 3, 1]}
    assert conv["output_shapes"] == [[1, 25, 5, 64]]


@pytest.mark.slow  # aot processes, each importing torch
def test_profile_of_an_untraced_build_is_one_line(tmp_path, capsys):
    out = tmp_path / "b"
    assert main(["build", str(zoo.path("small_cnn")), "--board", "mps2-an505", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["profile", str(out), "--target", "mps2-an505"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--trace profile" in err[0] and "Traceback" not in err[0]


def test_profile_of_an_exported_pte_and_a_foreign_record(tmp_path, capsys):
    a, b = tmp_path / "a.pte", tmp_path / "b.pte"
    assert main(["export", str(zoo.path("small_cnn")), "-o", str(a)]) == 0
    assert main(["export", str(zoo.path("mlp")), "-o", str(b)]) == 0
    capsys.readouterr()
    assert main(["profile", str(a), "--target", "host", "--json", "--repeats", "3"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["model"] == "small_cnn" and len(p["ops"]) > 0
    # a record copied from another program is refused, not read as this one's
    debug_record_path(a).write_bytes(debug_record_path(b).read_bytes())
    assert main(["profile", str(a), "--target", "host"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another program" in err[0]


def test_an_output_folder_that_does_not_exist_fails_first(capsys, tmp_path):
    assert main(["profile", str(zoo.path("small_cnn")), "--target", "host",
                 "--png", str(tmp_path / "no" / "p.png")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not exist" in err[0]


def test_a_variant_of_one_core_labels_only_that_cores_rows():
    """call_variant's "planes(MVE)" (the MVE depthwise runs per-channel planes, the
    DSP one channels-last): "MVE planes" on an MVE board, "DSP" on a DSP board;
    "planes" (both cores) labels both."""
    from aot.devtools.profile import profile_from_events
    rec = {"model": "m", "int8": True, "instructions": [
        {"op": "mote::depthwise_conv2d_s8.out", "variant": v, "input_shapes": [], "output_shapes": [],
         "macs": 9, "source": "", "module": ""} for v in ("planes(MVE)", "planes", None)]}
    runs = [{"events": [(0, 0, 10), (1, 10, 20), (2, 20, 30)], "overhead": 0}]
    for core in ("MVE", "DSP"):
        p = profile_from_events(rec, runs, "instructions", 30, lambda op: core, "board")
        mve = f"{core} planes" if core == "MVE" else core
        assert [o["kernel"] for o in p["ops"]] == [mve, f"{core} planes", core]
