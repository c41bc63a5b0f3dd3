"""Per-kernel-call scratch planned in arena 1 (mote_memory_t.scratch_slots).

An int8 program's conv calls get scratch blocks from the planner
(plan_info["scratch_offsets"], sizes from kernels/int8_scratch.c); the runtime
verifies every slot at init (a kernel call, inside arenas[0]) and hands each
kernel its own block. A bad slot list is MOTE_ERR_BAD_SCRATCH_PLAN.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BAD_SCRATCH_PLAN = -108


@pytest.fixture(scope="module")
def int8_conv():
    import torch
    from torch import nn
    from aot.compiler.pipeline import compile_module

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU(),
                          nn.Conv2d(8, 4, 1), nn.Flatten()).eval()
    x = torch.randn(1, 3, 8, 8)
    calib = [(torch.randn(1, 3, 8, 8),) for _ in range(4)]
    return compile_module("scratch_conv", model, (x,), int8=True, calibration=calib), x


def _method(host_build, compiled, slots):
    from aot.host import runtime as rt
    lib = host_build / "ports" / "linux" / "libmote.so"
    return rt.Program(compiled.pte, library=lib).method("forward", scratch_slots=slots)


def test_planned_slots_are_in_the_arena_and_run(host_build, int8_conv):
    from aot.compiler.scratch import scratch_slots
    from aot.compiler.plan import verify_plan
    c, x = int8_conv
    verify_plan(c.spec)
    slots = scratch_slots(c.spec)
    assert slots, "the int8 convs need scratch"
    arena = int(sum(c.spec.arena_sizes))
    for i, off, size in slots:
        assert c.spec.instructions[i].op in ("mote::conv2d_s8", "mote::depthwise_conv2d_s8",
                                             "mote::linear_s8")
        assert size == c.spec.instructions[i].scratch_bytes and off + size <= arena
    ref = _method(host_build, c, None).run([x.numpy()])
    got = _method(host_build, c, slots).run([x.numpy()])
    for a, b in zip(ref, got):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_bad_slots_are_refused(host_build, int8_conv):
    from aot.host import runtime as rt
    from aot.compiler.scratch import scratch_slots
    c, _ = int8_conv
    arena = int(sum(c.spec.arena_sizes))
    i, off, size = scratch_slots(c.spec)[0]
    non_kernel = [k for k, call in enumerate(c.spec.instructions) if call.op.endswith("et_view")]
    bad = [[(i, arena, 1)],                       # starts at the end of the arena
           [(i, arena - size + 1, size)],         # runs past the end
           [(i, 0xFFFFFFFF, 0xFFFFFFFF)],         # would overflow
           [(len(c.spec.instructions), 0, 1)],    # no such instruction
           [(i, off, size), (i, off, size)]]      # the same call twice
    assert non_kernel, "the flatten is an et_view instruction"
    bad.append([(non_kernel[0], 0, 1)])           # a view is not a kernel call
    for slots in bad:
        with pytest.raises(rt.MoteError) as e:
            _method(host_build, c, slots)
        assert e.value.code == BAD_SCRATCH_PLAN, slots
        assert e.value.name == "MOTE_ERR_BAD_SCRATCH_PLAN"
