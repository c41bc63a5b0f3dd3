"""Memory planning (aot/compiler/plan.py): lower bound, planners, in-place reuse, verifier."""
import copy
import importlib

import pytest

import zoo
from aot import ir
from aot.errors import PlanError
from aot.compiler.lower import lower
from aot.compiler.plan import analyze, lower_bound, plan_memory, tensor_alignment, verify_plan

_SPECS = {}


def _spec(name):
    if name not in _SPECS:
        m = importlib.import_module(f"zoo.{name}")
        _SPECS[name] = lower(m.model(), m.example_inputs())
    return copy.deepcopy(_SPECS[name])


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_plan_at_or_below_lower_bound(name):
    spec = _spec(name)
    info = spec.plan_info
    print(f"{name}: arena {info['arena_bytes']} B, lower bound {info['arena_lower_bound_bytes']} B, "
          f"in-place {info['in_place']}, {info['planner']}")
    verify_plan(spec)
    assert spec.arena_sizes == [0, info["arena_bytes"]]
    assert 0 < info["arena_bytes"] <= info["arena_lower_bound_bytes"]
    assert info["arena_lower_bound_bytes"] == lower_bound(spec)
    for v in spec.inputs + spec.outputs:  # I/O live in the arena, as in ExecuTorch
        assert spec.values[v].mem_id == 1
    for v in spec.values:
        if isinstance(v, ir.TensorValue) and v.mem_id is not None:
            assert v.mem_offset % tensor_alignment(v) == 0
            assert v.mem_offset % (16 if v.dtype == 6 else 4) == 0  # fp32: 16, int8: 4


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_greedy_and_no_in_place_plans_verify(name):
    spec = _spec(name)
    plan_memory(spec, planner="greedy")
    greedy = spec.plan_info["arena_bytes"]
    plan_memory(spec, planner="best", in_place=False)
    info = spec.plan_info
    # without in-place reuse no valid plan can beat the bound
    assert info["in_place"] == 0 and info["arena_bytes"] >= info["arena_lower_bound_bytes"]
    print(f"{name}: greedy+in-place {greedy} B, best without in-place {info['arena_bytes']} B, "
          f"bound {info['arena_lower_bound_bytes']} B")


def test_known_figures():
    # MLP 784-128-64-10: peak is the first layer, input 784 floats + output 128 floats
    spec = _spec("mlp")
    assert spec.plan_info["arena_lower_bound_bytes"] == (784 + 128) * 4
    assert spec.plan_info["arena_bytes"] == (784 + 128) * 4
    # resnet8: both 16x32x32 tensors of a residual block live together
    spec = _spec("resnet8")
    assert spec.plan_info["arena_lower_bound_bytes"] == 3 * 16 * 32 * 32 * 4


def _tiny_spec():
    """a (1x32 f32 input); b = mm(a, w); c = relu(b); d = add(c, a) (output)."""
    T = lambda: ir.TensorValue(sizes=[1, 32], dtype=6, dim_order=[0, 1])
    w = ir.TensorValue(sizes=[32, 32], dtype=6, dim_order=[0, 1], constant=bytes(32 * 32 * 4))
    values = [T(), w, T(), T(), T(), 1]
    #         a    w  b    c    d    alpha
    instr = [
        ir.KernelCall("aten::mm", "out", [0, 1, 2, 2]),
        ir.KernelCall("aten::relu", "out", [2, 3, 3]),
        ir.KernelCall("aten::add", "out", [3, 0, 5, 4, 4]),
    ]
    return ir.ProgramSpec(values=values, inputs=[0], outputs=[4], instructions=instr)


def test_lower_bound_and_in_place_on_hand_built_graph():
    spec = _tiny_spec()
    lv = analyze(spec)
    assert lv.life == {0: (0, 2), 2: (0, 1), 3: (1, 2), 4: (2, 2)}
    # step 0: a + b; step 1: a + b + c; step 2: a + c + d  (128 bytes each)
    assert lower_bound(spec) == 3 * 128
    plan_memory(spec)
    # relu writes over b (dies there); add writes over c (the input a is never reused)
    assert spec.plan_info["in_place"] == 2
    assert spec.values[3].mem_offset == spec.values[2].mem_offset == spec.values[4].mem_offset
    assert spec.values[0].mem_offset != spec.values[2].mem_offset
    assert spec.plan_info["arena_bytes"] == 2 * 128


def test_verifier_catches_overlap():
    spec = _spec("small_cnn")
    first = spec.instructions[0]             # convolution(input, w, b, ..., out, out)
    x, out = spec.values[first.args[0]], spec.values[first.args[-1]]
    small, big = sorted((x, out), key=lambda t: t.nbytes)
    small.mem_offset = big.mem_offset        # conv output and its input share bytes
    with pytest.raises(PlanError, match="overlap"):
        verify_plan(spec)


def test_verifier_catches_misalignment_and_overflow():
    spec = _spec("small_cnn")
    t = spec.values[spec.outputs[0]]
    t.mem_offset += 4
    with pytest.raises(PlanError, match="aligned"):
        verify_plan(spec)
    spec = _spec("small_cnn")
    spec.arena_sizes[1] -= 16
    with pytest.raises(PlanError, match="outside arena"):
        verify_plan(spec)
    spec = _spec("small_cnn")
    spec.values[spec.inputs[0]].mem_id = None
    with pytest.raises(PlanError, match="not planned"):
        verify_plan(spec)


def test_scratch_is_planned():
    spec = _tiny_spec()
    spec.instructions[0].scratch_bytes = 1000
    plan_memory(spec)
    off = spec.plan_info["scratch_offsets"][0]
    # the scratch of step 0 must not overlap a or b (both live at step 0)
    for v in (0, 2):
        t = spec.values[v]
        assert off >= t.mem_offset + t.nbytes or off + 1000 <= t.mem_offset
    assert spec.plan_info["arena_lower_bound_bytes"] == 2 * 128 + 1000
    assert spec.plan_info["arena_bytes"] == 2 * 128 + 1000
    spec.plan_info["scratch_offsets"][0] = spec.values[0].mem_offset
    with pytest.raises(PlanError, match="scratch@0"):
        verify_plan(spec)


def test_unknown_planner():
    with pytest.raises(ValueError, match="unknown planner"):
        plan_memory(_tiny_spec(), planner="magic")
