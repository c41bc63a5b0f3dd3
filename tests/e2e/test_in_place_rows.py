"""int8 conv / depthwise conv planned in place by rows (MOTE_KERNEL_IN_PLACE_ROWS):
the output starts at the input's first byte and the kernel computes it row band
by row band through a ring in its scratch (kernels/requant.h), or, on the DSP,
directly (the sliding strip of the depthwise kernel, the 1x1 conv that reads a
pixel pair before writing it). One small model per geometry; each must be
planned in place (plan_info["in_place_rows"]), and its output bytes must equal
the same program planned without in-place reuse, on the host (reference
kernels), on mps2-an505 (DSP) and mps3-an547 (MVE)."""
import numpy as np
import pytest
import torch

from aot.compiler.pipeline import compile_module
from aot.compiler.plan import plan_memory
from aot.compiler.emit import emit_program

torch.manual_seed(0)


class _Chain(torch.nn.Module):
    """stem conv (its output dies at the op under test) -> op under test -> head;
    one input channel, so the op under test is the step that sets the arena."""

    def __init__(self, cin, op):
        super().__init__()
        self.stem = torch.nn.Conv2d(1, cin, 3, padding=1)
        self.op = op
        self.head = torch.nn.Conv2d(op.out_channels, 4, 1)

    def forward(self, x):
        return self.head(torch.relu(self.op(torch.relu(self.stem(x)))))


#: name -> (channels after the stem, op under test, input H, W): which path it takes
CASES = {
    # DSP: sliding strip in place; MVE / host: band driver, lag 1
    "dw3x3_s1": (8, torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), 17, 11),
    # output smaller than the input: band driver everywhere
    "dw3x3_s2": (8, torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8), 40, 41),
    # channels not a multiple of 4: the DSP's channel tail, so the band driver
    "dw3x3_c6": (6, torch.nn.Conv2d(6, 6, 3, padding=1, groups=6), 24, 15),
    # 3x3 conv: band driver, widened weights once for all bands
    "conv3x3": (8, torch.nn.Conv2d(8, 8, 3, padding=1), 16, 12),
    # 1x1 Cout < Cin: DSP direct, others band driver
    "pw_narrow": (16, torch.nn.Conv2d(16, 8, 1), 20, 15),
    # 1x1 Cout > Cin: the output outgrows the input, lag > 0
    "pw_wide": (8, torch.nn.Conv2d(8, 12, 1), 16, 11),
}


def _compile(name):
    cin, op, h, w = CASES[name]
    m = _Chain(cin, op).eval()
    calib = [torch.randn(1, 1, h, w) for _ in range(8)]
    return compile_module(name, m, (calib[0],), int8=True, calibration=calib, int8_io=True)


def _without_in_place(c):
    """The same program planned with in-place reuse off (scratch without rings)."""
    import copy
    spec = copy.deepcopy(c.spec)
    for step, ring in spec.plan_info.get("row_rings", {}).items():
        spec.instructions[step].scratch_bytes -= ring
    plan_memory(spec, in_place=False)
    return spec


@pytest.mark.parametrize("name", sorted(CASES))
def test_planned_in_place_and_host_bytes_equal(name):
    from aot.host.runtime import Program
    c = _compile(name)
    assert c.spec.plan_info["in_place_rows"] >= 1, c.spec.plan_info
    assert c.arena_bytes < _without_in_place(c).arena_sizes[1]
    x = [np.random.default_rng(1).integers(-128, 128, t.shape, dtype=np.int8)
         for t in (c.example_inputs[0],)]
    got = Program(c.pte).method().run(x)
    ref = Program(emit_program(_without_in_place(c))).method().run(x)
    assert np.any(ref[0] != 0)
    assert [o.tobytes() for o in got] == [o.tobytes() for o in ref]


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("board", ["mps2-an505", "mps3-an547"])
def test_firmware_bytes_equal_host(board, tmp_path):
    """All geometries on the DSP and MVE kernels: firmware bytes == host bytes."""
    from aot.host.runtime import Program
    from aot.deploy.build import build_compiled
    from aot.deploy.run import run_build
    for name in sorted(CASES):
        c = _compile(name)
        sets = [[np.random.default_rng(s).integers(-128, 128, c.example_inputs[0].shape, dtype=np.int8)]
                for s in range(2)]
        host = [Program(c.pte).method().run(s) for s in sets]
        build_compiled(c, board, tmp_path / name, input_sets=sets)
        dev = run_build(tmp_path / name, timeout=120).outputs
        assert [[o.tobytes() for o in s] for s in dev] == [[o.tobytes() for o in s] for s in host], \
            f"{name} on {board}"
