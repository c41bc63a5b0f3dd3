"""Issue 36's blocks (tests/compiler/test_int8_stays_int8.py: in-place residual,
grouped conv, squeeze-excitation, BatchNorm after no conv, ceil-mode max pool,
einsum attention) compiled with
--int8 and run as firmware on mps2-an505 (Cortex-M33: DSP kernels, the
program's pre-widened DSP weights) and mps3-an547 (Cortex-M55: MVE kernels):
every output byte equals the host runtime's, which equals the Python integer
reference (tests/compiler/test_int8_stays_int8.py)."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))
import test_int8_stays_int8 as B  # noqa: E402

pytestmark = pytest.mark.sim

BLOCKS = {
    "resnet_basic_block": (lambda: B.BasicBlock(), (1, 8, 8, 8)),
    "regnetx_block": (lambda: B.RegNetXBlock(), (1, 16, 12, 12)),
    "squeeze_excitation": (lambda: B.SqueezeExcitation(gate=nn.Sigmoid), (1, 3, 10, 10)),
    "densenet_block": (lambda: B.DenseBlock(), (1, 3, 8, 8)),
    "squeezenet_stem": (lambda: B.SqueezeNetStem(), (1, 3, 33, 33)),
    "maxvit_attention": (lambda: B.MaxViTAttention(), (1, 2, 9, 16)),
}


@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("board", ["mps2-an505", "mps3-an547"])
@pytest.mark.parametrize("name", list(BLOCKS))
def test_block_int8_bytes_on_cortex_m_equal_host(tmp_path, name, board):
    from aot.deploy.build import build_compiled
    from aot.deploy.run import run_build
    from aot.host.runtime import Program
    make, shape = BLOCKS[name]
    c, calib, held = B._compiled(make(), shape)
    sets = [[t.numpy() for t in x] for x in calib[:2] + held]
    host = [Program(c.pte).method().run(s) for s in sets]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build_compiled(c, board, tmp_path / "fw", input_sets=sets)
    got = run_build(tmp_path / "fw", timeout=120).outputs
    assert len(got) == len(host)
    for g, h in zip(got, host):
        assert len(g) == len(h) == 1
        assert np.asarray(g[0], h[0].dtype).reshape(h[0].shape).tobytes() == h[0].tobytes(), name
