"""Delegation to XNNPACK on the AOT side: the partitioner's subgraphs, the
payload in ExecuTorch's XNNPACK format, the delegates table and DelegateCall
instructions. ExecuTorch's runtime (with its XNNPACK backend) is the oracle:
it runs Mote's delegated programs, and they must match eager PyTorch."""
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from aot import ir
from aot.backends.xnnpack import schema as xs
from aot.compiler.pipeline import compile_model_file
from aot.errors import MoteError
from aot.pte import schema as fb

ROOT = Path(__file__).resolve().parents[2]

MIXED = textwrap.dedent("""\
    import torch
    from torch import nn


    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.fc = nn.Linear(8 * 8 * 8, 10)

        def forward(self, x):
            y = torch.relu(self.c1(x))
            y = torch.tanh(y)
            y = torch.clamp(self.c2(y), -1.0, 1.0) + y
            return torch.softmax(self.fc(y.flatten(1)), dim=1)


    def model():
        torch.manual_seed(0)
        return Mixed().eval()


    def example_inputs():
        return (torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(1)),)
    """)


_COMPILED: dict = {}


def _delegated(model: str):
    """The zoo model compiled with --delegate xnnpack, once per test process."""
    if model not in _COMPILED:
        _COMPILED[model] = compile_model_file(ROOT / "zoo" / f"{model}.py", delegate="xnnpack")
    return _COMPILED[model]


def _executorch(pte: bytes, inputs) -> list:
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    m = _load_for_executorch_from_buffer(pte)
    return [o.numpy() for o in m.forward(tuple(inputs))]


def _max_rel(got, want) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    p = tmp_path_factory.mktemp("mixed") / "mixed.py"
    p.write_text(MIXED)
    return p


@pytest.mark.oracle
@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_executorch_runs_a_zoo_model_mote_delegated(model):
    c = _delegated(model)
    d = c.delegation
    assert d["backend"] == "XnnpackBackend" and d["delegated_macs"] == d["total_macs"] > 0
    assert d["fallbacks"] == []
    # the whole network is one subgraph; only the NCHW -> NHWC copy of the input stays with Mote
    assert [f"{k.op}.{k.overload}" for k in c.spec.instructions] == \
        ["aten::permute_copy.out", "delegate::XnnpackBackend.call"]
    x = c.example_inputs
    want = c.eager(*x).detach().numpy()
    got = _executorch(c.pte, x)[0]
    assert got.shape == want.shape
    assert _max_rel(got, want) <= 1e-5


@pytest.mark.oracle
def test_a_model_mixing_delegated_and_mote_ops(mixed):
    c = compile_model_file(mixed, delegate="xnnpack")
    kinds = ["D" if isinstance(k, ir.DelegateCall) else f"{k.op}" for k in c.spec.instructions]
    # tanh (elementwise) runs on the NHWC tensors between two subgraphs: no layout change around it
    assert kinds == ["aten::permute_copy", "D", "aten::tanh", "D", "aten::permute_copy",
                     "executorch_prim::et_view", "D"]
    fell = {(f["op"], f["source"]) for f in c.delegation["fallbacks"]}
    assert ("aten::tanh.out", "mixed.py:14") in fell
    assert ("executorch_prim::et_view.default", "mixed.py:16") in fell
    x = c.example_inputs
    got = _executorch(c.pte, x)[0]
    assert _max_rel(got, c.eager(*x).detach().numpy()) <= 1e-5


def test_program_layout_follows_executorch(mixed):
    """delegates table entries name the backend and a data segment holding an XH00 payload;
    DelegateCall args are the planned inputs then outputs; delegated weights leave the constant segment."""
    from aot.pte.header import parse_header
    c = compile_model_file(mixed, delegate="xnnpack")
    plain = compile_model_file(mixed)
    prog = fb.read_program(c.pte)
    plan = prog.execution_plan[0]
    assert [d.id for d in plan.delegates] == ["XnnpackBackend"] * 3
    base = parse_header(c.pte).segment_base_offset
    calls = [i.instr_args for i in plan.chains[0].instructions if isinstance(i.instr_args, fb.DelegateCall)]
    views = {k.args[-1] for k in c.spec.instructions if f"{k.op}.{k.overload}" == ir.ET_VIEW}
    for call, d, dc in zip(calls, plan.delegates, [k for k in c.spec.instructions if isinstance(k, ir.DelegateCall)]):
        assert d.processed.location == fb.DataLocation.SEGMENT
        seg = prog.segments[d.processed.index]
        payload = c.pte[base + seg.offset: base + seg.offset + seg.size]
        assert payload == dc.payload
        graph, consts = xs.read_payload(payload)
        assert graph.num_externs == len(call.args) == len(graph.input_ids) + len(graph.output_ids)
        for a in call.args:  # planned (the backend writes there), or an et_view of planned memory
            assert plan.values[a].val.allocation_info is not None or a in views
        for e in graph.constant_data[1:]:
            assert e.offset % xs.ALIGNMENT == 0 and e.offset + e.size <= len(consts)
    # weights live in the payloads only: none left in the constant segment
    assert prog.segments[0].size == 0 < fb.read_program(plain.pte).segments[0].size


def test_payload_round_trip_and_node_tags():
    g = xs.XNNGraph(version="0", xnodes=[xs.XNode(xnode_union=xs.NODE_TYPES["XNNClamp"](
        input_id=0, output_id=1), output_min_max=xs.OutputMinMax(0.0, 6.0))],
        xvalues=[xs.XValue(xs.XNNTensorValue(xs.FP32, 2, [1, 4], 0, k, flag, k))
                 for k, flag in ((0, xs.EXTERNAL_INPUT), (1, xs.EXTERNAL_OUTPUT))],
        num_externs=2, input_ids=[0], output_ids=[1], constant_data=[xs.ConstantDataOffset(0, 0)])
    p = xs.serialize_payload(g, b"\1\2\3")
    back, consts = xs.read_payload(p)
    assert back.xnodes[0].xnode_union == g.xnodes[0].xnode_union and consts == b"\1\2\3"
    assert back.xnodes[0].output_min_max.output_max == 6.0
    assert p[4:8] == b"XH00" and int.from_bytes(p[10:14], "little") == 32
    # tags are the schema's positions (ExecuTorch's runtime switches on them)
    assert xs.NODE_TAGS["XNNAdd"] == 1 and xs.NODE_TAGS["XNNConv2d"] == 7
    assert xs.NODE_TAGS["XNNDepthwiseConv2d"] == 13 and xs.NODE_TAGS["XNNStaticReshape"] == 20
    with pytest.raises(Exception, match="XH00"):
        xs.read_payload(b"\0" * 40)


@pytest.mark.oracle
def test_payload_header_reads_in_executorchs_serializer():
    from executorch.backends.xnnpack.serialization.xnnpack_graph_serialize import XNNHeader
    c = _delegated("ds_cnn")
    dc = next(k for k in c.spec.instructions if isinstance(k, ir.DelegateCall))
    h = XNNHeader.from_bytes(dc.payload[:xs.HEADER_LENGTH])
    assert h.flatbuffer_offset == 32 and h.constant_data_offset % 16 == 0
    assert h.constant_data_offset + h.constant_data_size == len(dc.payload)


def _payload_span(pte: bytes, k: int = 0) -> tuple:
    """(start, end) in `pte` of delegate k's payload segment."""
    from aot.pte.header import parse_header
    prog = fb.read_program(pte)
    seg = prog.segments[prog.execution_plan[0].delegates[k].processed.index]
    start = parse_header(pte).segment_base_offset + seg.offset
    return start, start + seg.size


@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_mote_runs_a_zoo_model_through_its_xnnpack_backend(model):
    from aot.host.runtime import Program
    c = _delegated(model)
    m = Program(c.pte).method()
    x = c.example_inputs
    got = m.run([a.numpy() for a in x])[0]
    assert _max_rel(got, c.eager(*x).detach().numpy()) <= 1e-5
    # XNNPACK's packed weights and workspace came from the caller's pool
    assert 0 < m.backend_pool_used < (8 << 20)


def test_mote_runs_a_model_mixing_delegated_and_mote_ops(mixed):
    from aot.host.runtime import Program
    c = compile_model_file(mixed, delegate="xnnpack")
    x = c.example_inputs
    got = Program(c.pte).method().run([a.numpy() for a in x])[0]
    assert _max_rel(got, c.eager(*x).detach().numpy()) <= 1e-5


@pytest.mark.oracle
@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_mote_runs_executorchs_xnnpack_program(model):
    """ExecuTorch's own XNNPACK lowering (weights in the program's named data, NCHW <-> NHWC
    transposes at the subgraph's edges) runs on Mote's backend."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from aot.compiler.model_file import load_model_file
    from aot.host.runtime import Program
    mf = load_model_file(ROOT / "zoo" / f"{model}.py")
    x = tuple(mf.example_inputs)
    ep = torch.export.export(mf.module, x)
    pte = bytes(to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch().buffer)
    assert fb.read_program(pte).named_data            # the weights are not in the payloads
    got = Program(pte).method().run([a.numpy() for a in x])[0]
    assert _max_rel(got, mf.module(*x).detach().numpy()) <= 1e-5


def test_backend_errors_are_specific_codes(mixed):
    """A pool too small, a payload the backend cannot read, a backend the build lacks:
    each its own code at init, never a crash."""
    from aot.host.runtime import MoteError as RtError, Program
    c = compile_model_file(mixed, delegate="xnnpack")
    with pytest.raises(RtError, match="BACKEND_MEMORY"):
        Program(c.pte).method(backend_pool=4096)
    start, end = _payload_span(c.pte)
    bad = bytearray(c.pte)
    bad[start + 4:start + 8] = b"XH99"                       # not an XNNPACK payload
    with pytest.raises(RtError, match="BACKEND_PAYLOAD"):
        Program(bytes(bad)).method()
    bad = bytearray(c.pte)
    bad[start + 14:start + 18] = (end - start).to_bytes(4, "little")   # flatbuffer runs past the payload
    with pytest.raises(RtError, match="BACKEND_PAYLOAD"):
        Program(bytes(bad)).method()
    other = c.pte.replace(b"XnnpackBackend", b"NpuBackend\0\0\0\0")
    with pytest.raises(RtError, match="NO_SUCH_BACKEND"):
        Program(other).method()


@pytest.mark.slow  # aot processes, each importing torch
def test_aot_compare_delegate_json_reports_parity_and_share():
    import json
    r = subprocess.run([sys.executable, "-m", "aot", "compare", "zoo/ds_cnn.py", "--target", "host",
                        "--delegate", "xnnpack", "--json"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["max_rel_error"] <= 1e-5
    d = rep["delegation"]
    assert d["backend"] == "XnnpackBackend" and d["delegated_share"] == 1.0 and d["fallbacks"] == []
    assert d["delegated_operators"] == 21 and d["subgraphs"] == 1
    assert rep["backend_pool_bytes"] > 0


@pytest.mark.slow  # aot processes, each importing torch
def test_aot_compare_delegate_on_a_board_is_one_line(mixed):
    r = subprocess.run([sys.executable, "-m", "aot", "compare", str(mixed), "--target", "mps2-an505",
                        "--delegate", "xnnpack"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "runs on --target host" in r.stderr


def test_unsupported_combinations_are_one_line_errors(mixed, tmp_path):
    from aot.compiler.partition import partitioner
    with pytest.raises(MoteError, match="no such backend; there are: xnnpack"):
        partitioner("tpu")
    with pytest.raises(MoteError, match=r"fp32 and int8 programs .*\(drop --int16-activations"):
        compile_model_file(mixed, int16_activations=True, delegate="xnnpack")
    with pytest.raises(MoteError, match="--external-weights does not apply"):
        compile_model_file(mixed, delegate="xnnpack", external_weights=str(tmp_path / "w.ptd"))


def test_share_of_a_model_nothing_is_delegated_from_is_zero(tmp_path):
    """No MACs and nothing the backend takes: 0 %, not 100 % (and a view alone is not delegated)."""
    p = tmp_path / "nothing.py"
    p.write_text("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                 "        return torch.tanh(x).reshape(2, 8)\n\n\ndef model():\n    return M()\n\n\n"
                 "def example_inputs():\n    return (torch.randn(4, 4),)\n")
    c = compile_model_file(p, delegate="xnnpack")
    assert c.delegation["delegated_share"] == 0.0 and c.delegation["subgraphs"] == 0
    assert not any(isinstance(k, ir.DelegateCall) for k in c.spec.instructions)


@pytest.mark.slow  # aot processes, each importing torch
def test_aot_export_delegate_prints_share_and_fallbacks(mixed, tmp_path):
    r = subprocess.run([sys.executable, "-m", "aot", "export", str(mixed), "--delegate", "xnnpack",
                        "-o", str(tmp_path / "m.pte")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "delegated to XnnpackBackend: 7 operator(s) in 3 subgraph(s), 100.0% of 23,552 MACs" in r.stdout
    assert "fell back: aten::tanh.out at mixed.py:14" in r.stdout
    import json
    ops = json.loads((tmp_path / "m.ops.json").read_text())
    assert ops["delegation"]["delegated_operators"] == 7 and ops["delegation"]["subgraphs"] == 3
    assert sum(ops["delegation"]["delegated_ops"].values()) == 7
    assert ops["delegation"]["delegated_ops"]["aten::convolution.out"] == 2
    r = subprocess.run([sys.executable, "-m", "aot", "inspect", str(tmp_path / "m.pte")], capture_output=True,
                       text=True, cwd=ROOT)
    assert r.returncode == 0 and "2 x aten::convolution.out" in r.stdout, r.stderr
    assert "fell back: aten::tanh.out at mixed.py:14" in r.stdout
    assert "delegate::XnnpackBackend.call" not in {o["name"] for o in ops["ops"]}


def _with_payload(c, edit, k: int) -> bytes:
    """c's program with delegate k's XNNGraph changed by edit(graph)."""
    import copy as _copy
    from aot.compiler.emit import build_program
    spec = _copy.deepcopy(c.spec)
    dc = [i for i in spec.instructions if isinstance(i, ir.DelegateCall)][k]
    graph, consts = xs.read_payload(dc.payload)
    edit(graph)
    dc.payload = xs.serialize_payload(graph, consts)
    return build_program(spec).data


def test_backend_proves_every_write_stays_inside_its_tensor(mixed):
    """Payloads that would let XNNPACK write outside a value or into what it may not
    write are refused at init: a declared output smaller than the conv computes, a
    node writing a constant, an external output on an input argument's position."""
    from aot.host.runtime import MoteError as RtError, Program
    c = compile_model_file(mixed, delegate="xnnpack")
    # delegate 1: depthwise conv (+ the clamp fused into it) -> add; the conv's output is internal
    assert Program(_with_payload(c, lambda g: None, 1)).method() is not None   # unchanged: accepted

    def conv(g):
        return next(n.xnode_union for n in g.xnodes if type(n.xnode_union).__name__ == "XNNDepthwiseConv2d")

    def shrink_conv_output(g):
        out = g.xvalues[conv(g).output_id].xvalue_union
        out.dims = [out.dims[0], 1, out.dims[2], out.dims[3]]   # still broadcasts in the add after it
    def write_the_filter(g):
        conv(g).output_id = conv(g).filter_id
    def output_on_the_input(g):
        v = next(v.xvalue_union for v in g.xvalues if v.xvalue_union.flags == xs.EXTERNAL_OUTPUT)
        v.external_id = 0
    def a_result_nobody_reads(g):   # Debian's XNNPACK gives it no memory and asserts (found by libFuzzer)
        src = xs.tensor_of(g.xvalues[conv(g).output_id])
        g.xvalues.append(xs.XValue(xs.XNNTensorValue(datatype=xs.FP32, num_dims=src.num_dims, dims=src.dims,
                                                     external_id=xs.INVALID_ID, id_out=len(g.xvalues))))
        g.xnodes.append(xs.XNode(xnode_union=xs.NODE_TYPES["XNNSigmoid"](input_id=src.id_out,
                                                                         output_id=len(g.xvalues) - 1, flags=0)))
    for edit in (shrink_conv_output, write_the_filter, output_on_the_input, a_result_nobody_reads):
        with pytest.raises(RtError, match="BACKEND_PAYLOAD"):
            Program(_with_payload(c, edit, 1)).method()



def test_backend_refuses_a_value_two_nodes_write(mixed):
    """Before any xnn_define_* call the backend proves that each value has at most one
    producing node (Debian's XNNPACK asserts `producer == XNN_INVALID_NODE_ID`: SIGABRT,
    tests/runtime/repro/xnn_two_producers_min.pte) and that no node writes an external
    input or a constant: such payloads are MOTE_ERR_BACKEND_PAYLOAD at init."""
    from aot.host.runtime import MoteError as RtError, Program
    c = compile_model_file(mixed, delegate="xnnpack")

    def conv(g):
        return next(n.xnode_union for n in g.xnodes if type(n.xnode_union).__name__ == "XNNDepthwiseConv2d")

    def conv_index(g):
        return next(i for i, n in enumerate(g.xnodes) if n.xnode_union is conv(g))

    def second_producer(g):   # a Clamp of the conv's input also writes the conv's output, after it
        extra = xs.NODE_TYPES["XNNClamp"](input_id=conv(g).input1_id, output_id=conv(g).output_id, flags=0)
        g.xnodes.insert(conv_index(g) + 1, xs.XNode(xnode_union=extra))
    def second_producer_first(g):   # the same, with the extra writer before the conv
        extra = xs.NODE_TYPES["XNNClamp"](input_id=conv(g).input1_id, output_id=conv(g).output_id, flags=0)
        g.xnodes.insert(conv_index(g), xs.XNode(xnode_union=extra))
    def write_an_external_input(g):
        conv(g).output_id = next(v.xvalue_union.id_out for v in g.xvalues
                                 if v.xvalue_union.flags == xs.EXTERNAL_INPUT)
    payload = [i for i in c.spec.instructions if isinstance(i, ir.DelegateCall)][1].payload
    for edit in (second_producer, second_producer_first, write_an_external_input):
        g, _ = xs.read_payload(payload)
        edit(g)
        outs = [n.xnode_union.output_id for n in g.xnodes]
        assert (len(outs) != len(set(outs))) == (edit is not write_an_external_input)   # the edit did what it says
        with pytest.raises(RtError, match="BACKEND_PAYLOAD") as e:
            Program(_with_payload(c, edit, 1)).method()
        assert e.value.name == "MOTE_ERR_BACKEND_PAYLOAD", edit.__name__


# ---------------------------------------------------------------- int8 (qs8 / qc8)

MIXED8 = textwrap.dedent("""\
    import torch
    from torch import nn


    class Mixed8(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.fc = nn.Linear(8 * 4 * 4, 10)

        def forward(self, x):
            y = torch.relu(self.c1(x))
            y = torch.sigmoid(y)
            y = torch.relu(self.c2(y)) + y
            y = nn.functional.avg_pool2d(y, 2)
            return self.fc(y.flatten(1))


    def model():
        torch.manual_seed(0)
        return Mixed8().eval()


    def example_inputs():
        return (torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(1)),)


    def calibration_data():
        g = torch.Generator().manual_seed(2)
        return [(torch.randn(1, 3, 8, 8, generator=g),) for _ in range(8)]
    """)

_COMPILED8: dict = {}


def _delegated8(model: str, int8_io: bool = False):
    """The zoo model compiled with --int8 (--int8-io) --delegate xnnpack, once per test process."""
    key = (model, int8_io)
    if key not in _COMPILED8:
        _COMPILED8[key] = compile_model_file(ROOT / "zoo" / f"{model}.py", int8=True, int8_io=int8_io,
                                             delegate="xnnpack")
    return _COMPILED8[key]


def _quanta(got, want, scale: float) -> float:
    """Largest difference in output quanta, to 1e-3 (dequantized outputs carry fp32 rounding)."""
    return round(float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max() / scale), 3)


@pytest.fixture(scope="module")
def mixed8(tmp_path_factory):
    p = tmp_path_factory.mktemp("mixed8") / "mixed8.py"
    p.write_text(MIXED8)
    return p


@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_int8_zoo_model_runs_whole_in_xnnpack_within_a_quantum(model):
    """Every int8 MAC goes to XNNPACK's qs8 / qc8 operators; the output is within one output
    quantum of PT2E's reference and of Mote's own int8 kernels on the same input."""
    from aot.compiler.pipeline import program_inputs
    from aot.host.runtime import Program
    c = _delegated8(model)
    d = c.delegation
    assert d["delegated_macs"] == d["total_macs"] > 0 and d["subgraphs"] == 1
    assert {f["op"] for f in d["fallbacks"]} <= {"quantized_decomposed::quantize_per_tensor.out",
                                                "quantized_decomposed::dequantize_per_tensor.out",
                                                "aten::permute_copy.out"}
    plain = compile_model_file(ROOT / "zoo" / f"{model}.py", int8=True)
    scale = c.int8_info.output_qparams[0][0]
    for seed in range(3):
        x = tuple(torch.randn(t.shape, generator=torch.Generator().manual_seed(seed)) for t in c.example_inputs)
        m = Program(c.pte).method()
        got = m.run(program_inputs(c, x))[0]
        assert _quanta(got, c.reference(*x).detach().numpy(), scale) <= 1.0
        assert _quanta(got, Program(plain.pte).method().run(program_inputs(plain, x))[0], scale) <= 1.0
    assert 0 < m.backend_pool_used < (8 << 20)


@pytest.mark.oracle
@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_executorch_runs_mote_int8_delegated_program_byte_for_byte(model):
    """With --int8-io the program is the delegate (and at most a layout change before it), so
    ExecuTorch's runtime runs it as it is: its int8 output equals Mote's byte for byte."""
    from aot.compiler.pipeline import program_inputs
    from aot.host.runtime import Program
    c = _delegated8(model, int8_io=True)
    assert sum(isinstance(k, ir.DelegateCall) for k in c.spec.instructions) == 1
    xi = program_inputs(c, c.example_inputs)
    assert xi[0].dtype == np.int8
    et = _executorch(c.pte, [torch.from_numpy(a) for a in xi])[0]
    mote = Program(c.pte).method().run(xi)[0]
    assert et.dtype == np.int8 and np.array_equal(et, mote)


@pytest.mark.oracle
@pytest.mark.parametrize("model", ["ds_cnn", "mobilenet_v1_025", "resnet8"])
def test_mote_runs_executorchs_qs8_xnnpack_program(model):
    """ExecuTorch's own int8 lowering (XNNPACKQuantizer, per-channel; Convert nodes at the
    edges, the input's NCHW -> NHWC transpose after its Convert, qc8 weights with their
    scales in constant data, a qc8 fully connected) runs on Mote's backend and gives
    ExecuTorch's output exactly."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from aot.compiler.model_file import load_model_file
    from aot.host.runtime import Program
    mf = load_model_file(ROOT / "zoo" / f"{model}.py")
    x = tuple(mf.example_inputs)
    gm = torch.export.export(mf.module, x).module(check_guards=False)
    prepared = prepare_pt2e(gm, XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True)))
    prepared(*x)
    converted = convert_pt2e(prepared)
    pte = bytes(to_edge_transform_and_lower(torch.export.export(converted, x),
                                            partitioner=[XnnpackPartitioner()]).to_executorch().buffer)
    graph, _ = xs.read_payload(pte[slice(*_payload_span(pte))])
    kinds = {type(n.xnode_union).__name__ for n in graph.xnodes}
    assert {"XNNConvert", "XNNFullyConnected", "XNNConv2d"} <= kinds
    got = Program(pte).method().run([a.numpy() for a in x])[0]
    assert np.array_equal(got, _executorch(pte, x)[0])


def test_int8_model_mixing_delegated_and_mote_ops(mixed8):
    """sigmoid (a table lookup) and average pooling stay on Mote's int8 kernels between
    XNNPACK subgraphs; the whole stays within one quantum of PT2E."""
    from aot.compiler.pipeline import program_inputs
    from aot.host.runtime import Program
    c = compile_model_file(mixed8, int8=True, delegate="xnnpack")
    d = c.delegation
    assert d["subgraphs"] == 3
    fell = {(f["op"], f["source"]) for f in d["fallbacks"]}
    assert ("mote::lut_s8.out", "mixed8.py:14") in fell and ("mote::avg_pool2d_s8.out", "mixed8.py:16") in fell
    x = c.example_inputs
    got = Program(c.pte).method().run(program_inputs(c, x))[0]
    assert _quanta(got, c.reference(*x).detach().numpy(), c.int8_info.output_qparams[0][0]) <= 1.0


@pytest.mark.slow  # aot processes, each importing torch
def test_aot_compare_int8_delegate_json():
    import json
    r = subprocess.run([sys.executable, "-m", "aot", "compare", "zoo/ds_cnn.py", "--target", "host", "--int8",
                        "--delegate", "xnnpack", "--json"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["int8"] and rep["pt2e_max_quanta"] <= 1.0
    assert rep["delegation"]["delegated_share"] == 1.0 and rep["backend_pool_bytes"] > 0


def test_backend_verifies_quantized_values():
    """Quantization a payload declares is checked before XNNPACK sees it: a zero or NaN
    scale, a zero point outside int8, per-channel scales that do not match the channel dim
    (or one of them negative), dynamic quantization, and an int8 argument declared fp32."""
    from aot.host.runtime import MoteError as RtError, Program
    c = _delegated8("ds_cnn")
    assert Program(_with_payload(c, lambda g: None, 0)).method() is not None   # unchanged: accepted

    def values(g, kind):
        return [v.xvalue_union for v in g.xvalues
                if isinstance(v.xvalue_union, xs.XNNQuantizedTensorValue)
                and isinstance(v.xvalue_union.quant_params, kind)]

    def zero_scale(g):
        values(g, xs.PerTensorQuant)[1].quant_params.scale = 0.0
    def nan_scale(g):
        values(g, xs.PerTensorQuant)[1].quant_params.scale = float("nan")
    def zero_point_300(g):
        values(g, xs.PerTensorQuant)[1].quant_params.zero_point = 300
    def short_channel_scales(g):
        q = values(g, xs.PerChannelQuant)[0].quant_params
        q.scale = q.scale[:-1]
    def negative_channel_scale(g):
        q = values(g, xs.PerChannelQuant)[0].quant_params
        q.scale = [-q.scale[0]] + list(q.scale[1:])
    def channel_dim_past_the_dims(g):
        values(g, xs.PerChannelQuant)[0].quant_params.channel_dim = 4
    def dynamic(g):
        values(g, xs.PerTensorQuant)[1].quant_params = xs.PerTokenDynamicQuant(num_nonbatch_dims=1)
    for edit in (zero_scale, nan_scale, zero_point_300, short_channel_scales, negative_channel_scale,
                 channel_dim_past_the_dims, dynamic):
        with pytest.raises(RtError, match="BACKEND_PAYLOAD"):
            Program(_with_payload(c, edit, 0)).method()

    def input_declared_fp32(g):
        v = next(xs.tensor_of(v) for v in g.xvalues if xs.tensor_of(v).flags == xs.EXTERNAL_INPUT)
        g.xvalues[v.id_out] = xs.XValue(xs.XNNTensorValue(datatype=xs.FP32, num_dims=v.num_dims, dims=v.dims,
                                                          external_id=v.external_id, flags=v.flags, id_out=v.id_out))
    with pytest.raises(RtError, match="KERNEL_DTYPE"):
        Program(_with_payload(c, input_declared_fp32, 0)).method()


CONV1X1 = textwrap.dedent("""\
    import torch
    from torch import nn


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv2d(2, 2, 1)

        def forward(self, x):
            return torch.relu(self.c(x))


    def model():
        torch.manual_seed(0)
        return M().eval()


    def example_inputs():
        return (torch.randn(1, 2, 4, 4, generator=torch.Generator().manual_seed(1)),)
    """)


def test_staged_convert_writes_only_what_a_node_may(tmp_path):
    """ExecuTorch's int8 input pattern (Convert of an fp32 argument, then a data-moving
    transpose) is staged by the backend: the Convert then writes the transpose's output, and
    that output must pass the same proof as any node's (here: a constant of the payload,
    i.e. program bytes, is refused; an internal value is accepted and runs)."""
    import copy as _copy
    from aot.compiler.emit import build_program
    from aot.host.runtime import MoteError as RtError, Program
    p = tmp_path / "conv1x1.py"
    p.write_text(CONV1X1)
    c = compile_model_file(p, delegate="xnnpack")
    nodes = xs.NODE_TYPES

    def program(target_constant: bool) -> bytes:
        spec = _copy.deepcopy(c.spec)
        dc = next(i for i in spec.instructions if isinstance(i, ir.DelegateCall))
        assert [spec.values[a].sizes for a in dc.args] == [[1, 4, 4, 2], [1, 4, 4, 2]]

        def tv(i, dims, dt=xs.FP32, ext=xs.INVALID_ID, flags=0, buf=0):
            return xs.XNNTensorValue(datatype=dt, num_dims=len(dims), dims=dims, constant_buffer_idx=buf,
                                     external_id=ext, flags=flags, id_out=i)

        def q8(t):
            return xs.XValue(xs.XNNQuantizedTensorValue(t, xs.PerTensorQuant(scale=0.05, zero_point=0)))
        values = [xs.XValue(tv(0, [1, 2, 4, 4], ext=0, flags=xs.EXTERNAL_INPUT)),
                  q8(tv(1, [1, 2, 4, 4], dt=xs.QINT8)),
                  q8(tv(2, [1, 4, 4, 2], dt=xs.QINT8, buf=1 if target_constant else 0)),
                  xs.XValue(tv(3, [1, 4, 4, 2], ext=1, flags=xs.EXTERNAL_OUTPUT))]
        g = xs.XNNGraph(version="0", num_externs=2, input_ids=[0], output_ids=[3], xvalues=values,
                        xnodes=[xs.XNode(xnode_union=nodes["XNNConvert"](input_id=0, output_id=1, flags=0)),
                                xs.XNode(xnode_union=nodes["XNNStaticTranspose"](
                                    num_dims=4, perm=[0, 2, 3, 1], input_id=1, output_id=2, flags=0)),
                                xs.XNode(xnode_union=nodes["XNNConvert"](input_id=2, output_id=3, flags=0))],
                        constant_data=[xs.ConstantDataOffset(0, 0), xs.ConstantDataOffset(0, 32)])
        dc.payload = xs.serialize_payload(g, bytes(32))
        return build_program(spec).data

    m = Program(program(False)).method()
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) * 0.05
    got = m.run([x])[0]
    # Mote's edge permutes around the delegate; inside, the argument's bytes read as [1, 2, 4, 4],
    # transposed to [1, 4, 4, 2], converted to int8 at 0.05 and back (exact for these values)
    inside = x.transpose(0, 2, 3, 1).reshape(1, 2, 4, 4).transpose(0, 2, 3, 1)
    assert np.allclose(got, inside.transpose(0, 3, 1, 2), atol=1e-6)
    with pytest.raises(RtError, match="BACKEND_PAYLOAD"):
        Program(program(True)).method()


# ------------------------------------------- XNNPACK's assertions (backends/xnnpack/README.md)

def _tv(i, dims, dt=xs.FP32, ext=xs.INVALID_ID, flags=0, buf=0):
    """An XValue: tensor `i` of `dims` (constant entry `buf`, argument `ext` with `flags`)."""
    return xs.XValue(xs.XNNTensorValue(datatype=dt, num_dims=len(dims), dims=dims, constant_buffer_idx=buf,
                                       external_id=ext, flags=flags, id_out=i))


def _q8(i, dims, dt=xs.QINT8, scale=0.05, zero_point=0, buf=0):
    """A per-tensor quantized XValue."""
    t = xs.tensor_of(_tv(i, dims, dt=dt, buf=buf))
    return xs.XValue(xs.XNNQuantizedTensorValue(t, xs.PerTensorQuant(scale=scale, zero_point=zero_point)))


def _with_graph(c, values, nodes, consts=b"", n_consts=1, edit=None) -> bytes:
    """c's program (one delegate, one input, one output) with its payload replaced by a graph of
    `values` and `nodes` (node tables), changed by edit(graph) when given; constant entries
    1..n_consts all at offset 0 of `consts`."""
    import copy as _copy
    from aot.compiler.emit import build_program
    spec = _copy.deepcopy(c.spec)
    dc = next(i for i in spec.instructions if isinstance(i, ir.DelegateCall))
    g = xs.XNNGraph(version="0", num_externs=2, input_ids=[0], output_ids=[1], xvalues=values,
                    xnodes=[xs.XNode(xnode_union=n) for n in nodes],
                    constant_data=[xs.ConstantDataOffset(0, 0)] +
                    [xs.ConstantDataOffset(0, len(consts))] * n_consts)
    if edit is not None:
        edit(g)
    dc.payload = xs.serialize_payload(g, consts)
    return build_program(spec).data


@pytest.fixture(scope="module")
def conv1x1(tmp_path_factory):
    """CONV1X1 delegated: one DelegateCall whose arguments are [1, 4, 4, 2] fp32 (in, out)."""
    p = tmp_path_factory.mktemp("conv1x1") / "conv1x1.py"
    p.write_text(CONV1X1)
    c = compile_model_file(p, delegate="xnnpack")
    dc = next(i for i in c.spec.instructions if isinstance(i, ir.DelegateCall))
    assert [c.spec.values[a].sizes for a in dc.args] == [[1, 4, 4, 2], [1, 4, 4, 2]]
    return c


def _refused_payloads(mixed_c, conv1x1_c) -> dict:
    """name -> (program bytes, accepted?) for the preconditions XNNPACK asserts on (or that its
    define functions take for granted), each with its accepted control."""
    N = xs.NODE_TYPES

    def node(g, name):
        return next(n.xnode_union for n in g.xnodes if type(n.xnode_union).__name__ == name)

    def edit(name, **fields):
        def f(g):
            for k, v in fields.items():
                setattr(node(g, name), k, v)
        return f

    def reverse_nodes(g):            # the add reads the conv's output before the conv writes it
        g.xnodes.reverse()

    def second_value_on_input_argument(g):   # XNNPACK keeps one value per external id: the later
        g.xvalues.insert(0, _tv(0, [1, 8, 16, 4], ext=0, flags=xs.EXTERNAL_INPUT))   # one replaces it
        for i, v in enumerate(g.xvalues[1:], 1):
            xs.tensor_of(v).id_out = i
        for n in g.xnodes:
            u = n.xnode_union
            for f in ("input1_id", "input2_id", "filter_id", "bias_id", "output_id"):
                if getattr(u, f, xs.INVALID_ID) != xs.INVALID_ID:
                    setattr(u, f, getattr(u, f) + 1)

    def second_value_on_output_argument(g):
        g.xvalues.append(_tv(len(g.xvalues), [1, 512], ext=1, flags=xs.EXTERNAL_OUTPUT))

    io = [_tv(0, [1, 4, 4, 2], ext=0, flags=xs.EXTERNAL_INPUT), _tv(1, [1, 4, 4, 2], ext=1, flags=xs.EXTERNAL_OUTPUT)]

    def chain(kind, q_in=True, q_out=True, convert_in=xs.QINT8):
        """in -> Convert -> v2 -> kind -> v3 -> Convert -> out (v2, v3 qint8 or fp32; v3 at
        scale 1/256, zero point -128: the only qint8 output XNNPACK's sigmoid takes)."""
        v2 = _q8(2, [1, 4, 4, 2], dt=convert_in) if q_in else _tv(2, [1, 4, 4, 2])
        v3 = _q8(3, [1, 4, 4, 2], scale=1 / 256, zero_point=-128) if q_out else _tv(3, [1, 4, 4, 2])
        return _with_graph(conv1x1_c, io + [v2, v3],
                           [N["XNNConvert"](input_id=0, output_id=2, flags=0),
                            N[kind](input_id=2, output_id=3, flags=0),
                            N["XNNConvert"](input_id=3, output_id=1, flags=0)])

    w = _with_payload
    return {
        # value ids: in range, defined, INVALID only for a bias
        "input id past the values": (w(mixed_c, edit("XNNDepthwiseConv2d", input1_id=99), 1), False),
        "input id INVALID": (w(mixed_c, edit("XNNDepthwiseConv2d", input1_id=xs.INVALID_ID), 1), False),
        "filter id INVALID": (w(mixed_c, edit("XNNDepthwiseConv2d", filter_id=xs.INVALID_ID), 1), False),
        "second input INVALID": (w(mixed_c, edit("XNNAdd", input2_id=xs.INVALID_ID), 1), False),
        "output id past the values": (w(mixed_c, edit("XNNAdd", output_id=99), 1), False),
        "no bias (INVALID)": (w(mixed_c, edit("XNNDepthwiseConv2d", bias_id=xs.INVALID_ID), 1), True),
        # topological order
        "nodes reversed": (w(mixed_c, reverse_nodes, 1), False),
        # one value per external id
        "second value on an input argument": (w(mixed_c, second_value_on_input_argument, 1), False),
        "second value on an output argument": (w(mixed_c, second_value_on_output_argument, 1), False),
        # datatypes per node kind
        "qint8 softmax (fp32 only)": (chain("XNNSoftmax"), False),
        "qint8 sigmoid": (chain("XNNSigmoid"), True),
        "fp32 sigmoid into qint8": (chain("XNNSigmoid", q_in=False), False),
        "convert fp32 -> fp32": (chain("XNNSigmoid", q_in=False, q_out=False), False),
        "convert fp32 -> qint32": (chain("XNNSigmoid", convert_in=xs.QINT32), False),
        # no empty tensors: XNNPACK gives a graph whose internal values all have 0 bytes no
        # workspace, and the add's setup asserted `output_data != NULL` (SIGABRT)
        "empty internal value": (_with_graph(conv1x1_c, io[:1] + [
            _tv(1, [1, 1, 1, 32], ext=1, flags=xs.EXTERNAL_OUTPUT), _tv(2, [1, 0, 1, 32], buf=1),
            _tv(3, [1, 0, 1, 32], buf=1), _tv(4, [1, 0, 1, 32])],
            [N["XNNAdd"](input1_id=2, input2_id=3, output_id=4, flags=0),
             N["XNNGlobalAvgPooling2d"](input_id=4, output_id=1, flags=0)]), False),
    }


def test_backend_proves_what_xnnpack_asserts(mixed, conv1x1):
    """Every precondition backends/xnnpack/README.md lists is proven before XNNPACK creates the
    runtime: a payload breaking one is MOTE_ERR_BACKEND_PAYLOAD at init (never XNNPACK's
    assertion, a SIGABRT), and each one's control (the same graph keeping the rule) inits."""
    from aot.host.runtime import MoteError as RtError, Program
    mixed_c = compile_model_file(mixed, delegate="xnnpack")
    cases = _refused_payloads(mixed_c, conv1x1)
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(1, 2, 4, 4)
    for name, (pte, accepted) in cases.items():
        if accepted:
            assert Program(pte).method() is not None, name
            continue
        with pytest.raises(RtError) as e:
            Program(pte).method()
        assert e.value.name == "MOTE_ERR_BACKEND_PAYLOAD", name
    # the accepted qint8 sigmoid computes: in -> int8 (scale 0.05) -> sigmoid -> int8 (1/256, -128) -> out
    got = Program(cases["qint8 sigmoid"][0]).method().run([x])[0]
    q_in = np.round(x.astype(np.float64) / 0.05) * 0.05
    want = np.round(1 / (1 + np.exp(-q_in)) * 256) / 256
    assert np.array_equal(got, want.astype(np.float32)), np.abs(got - want).max() * 256


def test_backend_refuses_a_nonzero_filter_zero_point():
    """A qint8 (per-tensor) filter must have zero point 0: Debian's XNNPACK logs an error for
    another one and then computes as if it were 0. The same payload with zero point 0 inits."""
    from aot.host.runtime import MoteError as RtError, Program
    c = _delegated8("ds_cnn")

    def per_tensor_filter(zero_point):
        def edit(g):
            conv = next(n.xnode_union for n in g.xnodes if type(n.xnode_union).__name__ == "XNNConv2d")
            filt, bias = g.xvalues[conv.filter_id].xvalue_union, g.xvalues[conv.bias_id].xvalue_union
            scale = max(filt.quant_params.scale)
            filt.tensor_value.datatype = xs.QINT8
            filt.quant_params = xs.PerTensorQuant(scale=scale, zero_point=zero_point)
            bias.tensor_value.datatype = xs.QINT32
            bias.quant_params = xs.PerTensorQuant(scale=scale * 0.01, zero_point=0)
        return edit

    assert Program(_with_payload(c, per_tensor_filter(0), 0)).method() is not None
    with pytest.raises(RtError) as e:
        Program(_with_payload(c, per_tensor_filter(3), 0)).method()
    assert e.value.name == "MOTE_ERR_BACKEND_PAYLOAD"


def test_refused_payloads_never_reach_xnnpack_under_asan(mixed, conv1x1, tmp_path):
    """The ASan + UBSan build's mote-run refuses each of them at init with the code, with no
    sanitizer report (XNNPACK never runs on them)."""
    import os
    import subprocess
    from shared_build import ASAN, cmake_build
    exe = cmake_build(ASAN, sanitize=True) / "ports" / "linux" / "mote-run"
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:halt_on_error=1", UBSAN_OPTIONS="halt_on_error=1")
    cases = _refused_payloads(compile_model_file(mixed, delegate="xnnpack"), conv1x1)
    for k, (name, (pte, accepted)) in enumerate(cases.items()):
        f = tmp_path / f"case{k}.pte"
        f.write_bytes(pte)
        r = subprocess.run([str(exe), "-o", str(tmp_path / "out"), str(f)], capture_output=True, text=True,
                           timeout=120, env=env)
        assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, (name, r.stderr[-3000:])
        if not accepted:
            assert r.returncode == 2 and "MOTE_ERR_BACKEND_PAYLOAD" in r.stdout + r.stderr, (name, r.returncode,
                                                                                                r.stderr[-2000:])


def test_every_backend_pool_size_refuses_or_inits(mixed):
    """A backend pool too small for a payload is MOTE_ERR_BACKEND_MEMORY at whatever point it
    runs out. Debian's XNNPACK does not check its memory planner's allocations (a NULL write,
    SIGSEGV, at some sizes) and returned success without a runtime when its blobs did not fit
    (SIGSEGV in xnn_setup_runtime): the backend keeps the planner's tables free until then
    (xnnpack_backend.c, g_reserve). Every size in 16-byte steps up to the first that fits, which is
    about the high-water mark the method reports (it counts that reserve)."""
    from aot.host.runtime import MoteError as RtError, Program
    c = compile_model_file(mixed, delegate="xnnpack")
    used = Program(c.pte).method().backend_pool_used
    size, refused = 1024, 0
    while True:
        try:
            Program(c.pte).method(backend_pool=size)
            break
        except RtError as e:
            assert e.name == "MOTE_ERR_BACKEND_MEMORY", (size, e.name)
            refused += 1
        size += 16
    # every smaller size was refused; the reported high-water mark is enough, give or take the
    # padding of XNNPACK's 64-byte aligned blocks (another pool, another base address mod 64)
    assert refused == (size - 1024) // 16 and used - 1024 <= size <= used + 256, (size, used)


def _many_nodes(conv1x1_c, n: int, edit=None) -> bytes:
    """conv1x1's program with a payload of about n nodes: ExecuTorch's int8 input pattern (Convert
    of the fp32 argument, a data-moving transpose: staged), then n - 3 nodes alternating a
    layout-free transpose ([1, 4, 4, 2] <-> [4, 1, 4, 2]: a reshape) and an unbounded qint8
    Clamp, then a Convert to the fp32 output (n - 3 a multiple of 4). Each transpose goes
    through the backend's staging."""
    N = xs.NODE_TYPES
    a, b = [1, 4, 4, 2], [4, 1, 4, 2]
    values = [_tv(0, [1, 2, 4, 4], ext=0, flags=xs.EXTERNAL_INPUT), _tv(1, a, ext=1, flags=xs.EXTERNAL_OUTPUT),
              _q8(2, [1, 2, 4, 4]), _q8(3, a)]
    nodes = [N["XNNConvert"](input_id=0, output_id=2, flags=0),
             N["XNNStaticTranspose"](num_dims=4, perm=[0, 2, 3, 1], input_id=2, output_id=3, flags=0)]
    prev, dims = 3, a
    for i in range(n - 3):
        out = len(values)
        if i % 2 == 0:
            dims = b if dims == a else a
            nodes.append(N["XNNStaticTranspose"](num_dims=4, perm=[1, 0, 2, 3], input_id=prev, output_id=out,
                                                 flags=0))
        else:
            nodes.append(N["XNNClamp"](input_id=prev, output_id=out, flags=0))
        values.append(_q8(out, dims))
        prev = out
    assert (n - 3) % 4 == 0 and dims == a
    nodes.append(N["XNNConvert"](input_id=prev, output_id=1, flags=0))
    return _with_graph(conv1x1_c, values, nodes, edit=edit)


def test_a_payload_of_many_nodes_inits_and_computes(conv1x1):
    """Staging is linear in the payload (each value's writer is recorded once, not searched
    for per transpose; benchmarks/ measures it): 4,003 nodes init and compute what 3 do."""
    from aot.host.runtime import Program
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) * 0.05
    # Mote's edge permutes around the delegate; inside, the argument's bytes read as [1, 2, 4, 4],
    # transposed to [1, 4, 4, 2], converted to int8 at 0.05 and back (exact for these values)
    inside = x.transpose(0, 2, 3, 1).reshape(1, 2, 4, 4).transpose(0, 2, 3, 1)
    for n in (3, 4003):
        got = Program(_many_nodes(conv1x1, n)).method().run([x])[0]
        assert np.allclose(got, inside.transpose(0, 3, 1, 2), atol=1e-6), n


def test_a_payload_over_the_node_cap_is_refused_before_xnnpack(conv1x1):
    """XNNPACK's planner is quadratic in a subgraph's values, so a payload holds at most
    MOTE_XNNPACK_MAX_NODES (8,192) nodes: 8,188 init, 8,196 are MOTE_ERR_UNSUPPORTED."""
    from aot.host.runtime import MoteError, Program
    Program(_many_nodes(conv1x1, 8187)).method()  # + the Convert: 8,188 nodes
    with pytest.raises(MoteError) as e:
        Program(_many_nodes(conv1x1, 8195)).method()
    assert e.value.name == "MOTE_ERR_UNSUPPORTED"


def test_constants_xnnpack_reads_have_its_extra_bytes_after_them(conv1x1):
    """XNNPACK reads up to XNN_EXTRA_BYTES (16) past the end of a tensor's data (xnnpack.h: the
    caller must allocate them). A constant an Add reads at run time that ends less than 16 bytes
    before the end of the program file (the payload is the file's last segment here) is read
    from a padded copy in the backend pool; 16 bytes of payload after it, in place."""
    from aot.host.runtime import Program
    c = np.arange(32, dtype=np.float32) * 0.5

    def program(pad: int) -> bytes:
        def entry_size(g):
            g.constant_data[1].size = c.nbytes
        return _with_graph(conv1x1, [_tv(0, [1, 4, 4, 2], ext=0, flags=xs.EXTERNAL_INPUT),
                                     _tv(1, [1, 4, 4, 2], ext=1, flags=xs.EXTERNAL_OUTPUT),
                                     _tv(2, [1, 4, 4, 2], buf=1)],
                           [xs.NODE_TYPES["XNNAdd"](input1_id=0, input2_id=2, output_id=1, flags=0)],
                           consts=c.tobytes() + bytes(pad), edit=entry_size)

    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(1, 2, 4, 4)
    want = x + c.reshape(1, 4, 4, 2).transpose(0, 3, 1, 2)   # the delegate adds in NHWC
    used = {}
    for pad in (0, 16):
        pte = program(pad)
        start, end = _payload_span(pte)
        assert end == len(pte)                                # nothing after the payload
        m = Program(pte).method()
        used[pad] = m.backend_pool_used
        assert np.array_equal(m.run([x])[0], want), pad
    assert used[0] - used[16] >= c.nbytes, used               # the copy of the constant, in the pool


def test_arena_leaves_xnnpack_its_extra_bytes_after_the_last_tensor():
    """XNN_EXTRA_BYTES (xnnpack.h): XNNPACK may read 16 bytes past any tensor it is given;
    the plan of a delegating program ends each arena that far after its last tensor."""
    import zoo
    from aot.compiler.pipeline import compile_model_file
    c = compile_model_file(zoo.path("mlp"), delegate="xnnpack")
    plain = compile_model_file(zoo.path("mlp"))
    ends = [v.mem_offset + v.nbytes for v in c.spec.values
            if isinstance(v, ir.TensorValue) and v.mem_id == 1]
    assert c.spec.arena_sizes[1] - max(ends) >= 16
    assert c.spec.plan_info["arena_tail_bytes"] == 16 and "arena_tail_bytes" not in plain.spec.plan_info


# ----------------------------------------------------------- the backend pool sized from the program

def test_pool_too_small_names_its_size_and_how_to_set_it():
    """Issue 36: -303 says how large the pool was and what sets it."""
    from aot.host.runtime import MoteError as RtError, Program
    c = _delegated("mobilenet_v1_025")
    with pytest.raises(RtError) as e:
        Program(c.pte).method(backend_pool=1 << 20)
    assert "MOTE_ERR_BACKEND_MEMORY" in str(e.value)
    assert "more than the 1 MiB backend pool: Program.method(backend_pool=BYTES) sets it" in str(e.value)


def test_method_sized_grows_the_pool_as_the_program_needs():
    """method_sized starts from a pool too small and doubles it until the delegates' init
    passes; what they took then fits the pool it settled on, and the outputs are right."""
    from aot.host.runtime import Program, method_sized
    c = _delegated("mobilenet_v1_025")
    m = method_sized(Program(c.pte), pool=1 << 20)
    x = c.example_inputs
    got = m.run([a.numpy() for a in x])[0]
    assert _max_rel(got, c.eager(*x).detach().numpy()) <= 1e-5
    # measured: mobilenet_v1_025 takes 1,513,000 B (more than 1 MiB, within the 2 MiB it settled on)
    assert (1 << 20) < m.backend_pool_used <= (2 << 20)


def test_mote_run_pool_option_and_its_error_line(tmp_path):
    """mote-run -p MiB sets the pool; a pool too small is one line naming it and -p."""
    import numpy as np
    from aot.deploy.linux import LINUX_TARGETS  # noqa: F401 (mote-run is the host build's)
    exe = ROOT / "build" / "host" / "ports" / "linux" / "mote-run"
    c = _delegated("mobilenet_v1_025")
    (tmp_path / "m.pte").write_bytes(c.pte)
    np.savez(tmp_path / "in.npz", *[a.numpy() for a in c.example_inputs])
    run = lambda *a: subprocess.run([str(exe), *a, "-o", str(tmp_path / "out.npz"), str(tmp_path / "m.pte"),  # noqa: E731
                                     str(tmp_path / "in.npz")], capture_output=True, text=True, timeout=120)
    r = run("-p", "1")
    assert r.returncode == 2 and r.stderr.splitlines() == [
        f"mote-run: {tmp_path / 'm.pte'}: init: MOTE_ERR_BACKEND_MEMORY (-303): the delegates need more than "
        "the 1 MiB backend pool (-p MiB sets it)"], r.stderr
    r = run("-p", "4")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        assert _max_rel(z["output_0"], c.eager(*c.example_inputs).detach().numpy()) <= 1e-5
    assert run("-p", "0").returncode == 1 and run("-p", "x").returncode == 1


@pytest.mark.slow  # an aot process, importing torch
def test_aot_export_delegate_records_the_pool_it_measured(tmp_path):
    """aot export --delegate runs the program once on the host and records what its
    delegates took of the backend pool: ops.json memory.backend_pool_bytes, the
    mote_model.h macro, and the summary line; mote-run inits with that many MiB."""
    import json
    import math
    from aot.compiler.manifest import model_header_text
    r = subprocess.run([sys.executable, "-m", "aot", "export", str(ROOT / "zoo" / "mobilenet_v1_025.py"),
                        "--delegate", "xnnpack", "-o", str(tmp_path / "m.pte")],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    ops = json.loads((tmp_path / "m.ops.json").read_text())
    need = ops["memory"]["backend_pool_bytes"]
    from aot.host.runtime import Program
    m = Program((tmp_path / "m.pte").read_bytes()).method()
    m.run([a.numpy() for a in _delegated("mobilenet_v1_025").example_inputs])
    assert need == m.backend_pool_used > 0  # measured here: 1,513,000 B
    assert f"backend pool: {need:,} B measured on the host" in r.stdout
    c = _delegated("mobilenet_v1_025")
    assert f"#define MOTE_MODEL_BACKEND_POOL_BYTES {need}u" in model_header_text(c.spec, "m", ops)
    import numpy as np
    np.savez(tmp_path / "in.npz", *[a.numpy() for a in c.example_inputs])
    exe = ROOT / "build" / "host" / "ports" / "linux" / "mote-run"
    r = subprocess.run([str(exe), "-p", str(math.ceil(need / (1 << 20))), "-o", str(tmp_path / "out.npz"),
                        str(tmp_path / "m.pte"), str(tmp_path / "in.npz")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
