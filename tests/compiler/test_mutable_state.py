"""Mutable buffers: models whose forward updates registered buffers (zoo/stateful/)
compile to programs whose state lives in its own arena, starts at the buffer's
value, persists across execute calls, resets, and matches eager PyTorch called
the same way; ExecuTorch runs Mote's stateful programs and Mote runs ExecuTorch's."""
import copy

import numpy as np
import pytest
import torch

from aot import ir
from aot.compiler.pipeline import compile_model_file, compile_module
from aot.compiler.plan import MUTABLE_MEM_ID
from aot.errors import LoweringError
from aot.host.runtime import Program
from aot.pte.reader import parse_pte
from aot.tools.compare import compare, random_inputs
from zoo.stateful import STATEFUL, path

STEPS = 20


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def get(name, int8=False):
        if (name, int8) not in cache:
            cache[name, int8] = compile_model_file(path(name), int8=int8)
        return cache[name, int8]
    return get


def _mutable(spec) -> dict:
    return {v.fqn: v for v in spec.values if isinstance(v, ir.TensorValue) and v.is_mutable}


class Window(torch.nn.Module):
    """The smallest stateful model: a 3-sample window, and a counter bumped in place."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.arange(3.0))
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        self.window.copy_(torch.cat([self.window[1:], x]))
        self.calls.add_(1)
        return self.window * self.calls


def test_state_is_planned_in_its_own_arena_with_its_initial_value(compiled):
    c = compiled("streaming_kws")
    buf = _mutable(c.spec)["frames"]
    assert (buf.mem_id, buf.mem_offset, buf.sizes) == (MUTABLE_MEM_ID, 0, [1, 1, 49, 10])
    assert c.spec.arena_sizes[MUTABLE_MEM_ID] == c.mutable_bytes == 49 * 10 * 4
    assert buf.initial == bytes(49 * 10 * 4)
    # no activation is planned in the state's arena, and the write-back is the last call
    assert {v.mem_id for v in c.spec.values if isinstance(v, ir.TensorValue) and not v.is_mutable
            and v.mem_id is not None} == {1}
    last = c.spec.instructions[-1]
    assert (last.op, last.overload, last.args[0]) == ("aten::copy_", "default", c.spec.values.index(buf))
    # the .pte carries it in ExecuTorch's layout: planned + data_buffer_idx + fqn
    t = next(t for t in parse_pte(c.pte).plans[0].tensors.values() if t.initial is not None)
    assert (t.fqn, t.mem_id, t.initial) == ("frames", MUTABLE_MEM_ID, buf.initial)
    from aot.tools.inspect import inspect_file
    assert inspect_file(parse_pte(c.pte))["methods"][0]["mutable_buffers"] == [
        {"value": c.spec.values.index(buf), "name": "frames", "mem_id": 2, "offset": 0, "bytes": 1960}]


def test_running_stats_keeps_every_buffer_it_updates(compiled):
    bufs = _mutable(compiled("running_stats").spec)
    assert sorted(bufs) == ["mean", "steps", "var"]
    assert np.frombuffer(bufs["var"].initial, np.float32).tolist() == [1.0] * 6


@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_steps_match_eager_on_host(compiled, name):
    r = compare(compiled(name), "host", seed=3, steps=STEPS)
    assert r["steps"] == STEPS and len(r["per_step"]) == STEPS
    assert r["max_rel_error"] <= 1e-5, r
    # the state matters: the same input twice gives different outputs
    m = Program(compiled(name).pte).method()
    x = [a.numpy() for a in random_inputs(compiled(name).example_inputs, 0)]
    assert not np.array_equal(m.run(x)[0], m.run(x)[0])


def test_state_persists_resets_and_starts_fresh_per_init():
    c = compile_module("window", Window().eval(), (torch.zeros(1),))
    m = Program(c.pte).method()
    outs = [m.run([np.array([v], np.float32)])[0].tolist() for v in (10.0, 20.0)]
    assert outs == [[1.0, 2.0, 10.0], [4.0, 20.0, 40.0]]   # window shifted, calls 1 then 2
    m.reset_state()
    assert m.run([np.array([10.0], np.float32)])[0].tolist() == outs[0]
    assert Program(c.pte).method().run([np.array([10.0], np.float32)])[0].tolist() == outs[0]


def test_compile_leaves_the_model_and_its_buffers_untouched(compiled):
    c = compiled("running_stats", int8=True)  # calibration runs forward 64 times
    assert torch.equal(c.eager.mean, torch.zeros(6)) and float(c.eager.steps) == 0.0
    assert float(c.reference.steps) == 0.0


def test_int8_state_names_and_steps_against_pt2e(compiled):
    c = compiled("running_stats", int8=True)
    assert sorted(_mutable(c.spec)) == ["mean", "steps", "var"]  # the model's names, not the lowering's
    r = compare(c, "host", seed=3, steps=STEPS)
    assert r["pt2e_max_quanta"] <= 1.001, r  # one output quantum (float rounding of the dequantized value)
    k = compiled("streaming_kws", int8=True)
    assert sorted(_mutable(k.spec)) == ["frames"]
    assert compare(k, "host", seed=3, steps=STEPS)["pt2e_max_quanta"] <= 1.001


def test_int8_window_state_is_int8_with_its_own_qparams(compiled):
    """A buffer replaced by a new value each call (the KWS window) is stored int8
    at its own qparams (a quarter of the fp32 bytes); buffers updated by in-place
    arithmetic (running statistics) stay fp32; the program's state after N steps is
    PT2E's reference state quantized at those qparams, value for value."""
    from aot.compiler.quant.pt2e import int8_state_qparams
    from aot.compiler.pipeline import program_inputs
    from aot.tools.compare import random_inputs
    k = compiled("streaming_kws", int8=True)
    frames = [v for v in k.spec.values if getattr(v, "is_mutable", False)]
    assert [(v.fqn, v.dtype, v.sizes) for v in frames] == [("frames", 1, [1, 1, 49, 10])]  # int8
    assert k.mutable_bytes == 490
    # the window cat([frames[:, :, 1:], x]) runs on int8 bytes: the buffer shares x's qparams
    assert k.program.graph_module.meta["mote_int8"].fallback_sites == []
    assert "mote::window_push" in {i.op for i in k.spec.instructions}  # in place: aot/compiler/windows.py
    (scale, zp), = int8_state_qparams(k.reference).values()
    assert 0 < scale < 1 and -128 <= zp <= 127
    r = compiled("running_stats", int8=True)
    assert {v.fqn: v.dtype for v in r.spec.values if getattr(v, "is_mutable", False)} == {
        "mean": 6, "var": 6, "steps": 6}  # float32
    lowered = __import__("copy").deepcopy(k.program).module()  # the int8 graph, state held int8
    assert lowered.frames.dtype == torch.int8
    m = Program(k.pte).method()
    ref = __import__("copy").deepcopy(k.reference)
    with torch.no_grad():
        for step in range(5):
            inputs = random_inputs(k.example_inputs, 100 + step)
            got = m.run(program_inputs(k, inputs))[0]
            assert np.array_equal(got, lowered(*inputs).numpy()), step  # integer reference, state carried
            ref(*inputs)
    q = torch.clamp(torch.round(ref.frames / scale) + zp, -128, 127)
    assert torch.equal((q - zp) * scale, ref.frames)  # PT2E's state lies on the int8 grid
    assert torch.equal(lowered.frames, q.to(torch.int8))  # and the program's state is it, value for value
    assert int((q != zp).sum()) == 5 * 10  # five frames in the window, the rest the initial zeros


def test_mutating_an_input_is_refused_in_one_line():
    class Bad(torch.nn.Module):
        def forward(self, x):
            x.add_(1)
            return x * 2

    with pytest.raises(LoweringError, match="mutates its input"):
        compile_module("bad", Bad().eval(), (torch.zeros(2),))


# --------------------------------------------------------------------------- ExecuTorch both ways

@pytest.mark.oracle
def test_executorch_runs_motes_stateful_program(compiled):
    from executorch.runtime import Runtime

    c = compiled("streaming_kws")
    et = Runtime.get().load_program(c.pte).load_method("forward")
    eager = copy.deepcopy(c.eager)
    for k in range(5):
        (x,) = random_inputs(c.example_inputs, k)
        want = eager(x).detach()
        assert torch.allclose(et.execute([x])[0], want, rtol=1e-5, atol=1e-6), k


@pytest.mark.oracle
def test_mote_runs_executorchs_stateful_program():
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
    from executorch.runtime import Runtime

    model = Window().eval()
    with torch.no_grad():
        model.window.copy_(torch.tensor([5.0, 6.0, 7.0]))  # a non-zero start: the initial value travels
    ep = torch.export.export(copy.deepcopy(model), (torch.zeros(1),))
    pte = to_edge(ep).to_executorch(ExecutorchBackendConfig(
        emit_mutable_buffer_names=True,
        passes=[InitializedMutableBufferPass(["window", "calls"])])).buffer
    mote = Program(pte).method()
    et = Runtime.get().load_program(pte).load_method("forward")
    for v in (1.0, 2.0, 3.0):
        x = torch.tensor([v])
        want = model(x)
        assert mote.run([x.numpy()])[0].tolist() == want.tolist() == et.execute([x])[0].tolist()
    mote.reset_state()
    assert mote.run([np.array([1.0], np.float32)])[0].tolist() == [6.0, 7.0, 1.0]


# --------------------------------------------------------------------------- corrupt state data

def _patched(pte: bytes, change) -> bytes:
    """`pte` with its Program changed by `change(program)`, re-serialised with the same segments."""
    from aot.compiler.emit import assemble
    from aot.pte import schema as fb
    parsed = parse_pte(pte)
    prog = fb.read_program(pte)
    change(prog)
    return assemble(fb.serialize_program(prog), list(parsed.segments))[0]


def _error(pte: bytes) -> str:
    from aot.host.runtime import MoteError
    with pytest.raises(MoteError) as e:
        Program(pte).method()
    return e.value.name


def test_corrupt_mutable_data_is_refused_with_a_specific_code():
    pte = compile_module("window", Window().eval(), (torch.zeros(1),)).pte

    def offset_past_the_segment(p):
        p.mutable_data_segments[0].offsets[-1] = 1 << 20

    def no_such_segment(p):
        p.mutable_data_segments[0].segment_index = 9

    def no_such_offset(p):
        p.mutable_data_segments[0].offsets = [0]

    assert _error(_patched(pte, offset_past_the_segment)) == "MOTE_ERR_DATA_TOO_SHORT"
    assert _error(_patched(pte, no_such_segment)) == "MOTE_ERR_BAD_INDEX"
    assert _error(_patched(pte, no_such_offset)) == "MOTE_ERR_BAD_INDEX"
    Program(_patched(pte, lambda p: None)).method()  # the round trip itself loads


def test_compare_reports_a_digest_of_each_steps_output_bytes():
    """outputs_sha256: one digest per step of the program's raw outputs, so two targets'
    reports show byte-identical results; the state moves, so steps differ."""
    from aot.tools.compare import _digest
    c = compile_model_file(path("running_stats"), int8=True)
    r = compare(c, "host", seed=3, steps=3)
    m = Program(c.pte).method()
    want = [_digest(m.run([a.numpy() for a in random_inputs(c.example_inputs, 3 + k)])) for k in range(3)]
    assert r["outputs_sha256"] == want and len(set(want)) == 3
