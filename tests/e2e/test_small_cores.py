"""The small cores in QEMU: mps2-an385 (Cortex-M3, soft float, plain-C int8),
mps2-an386 (Cortex-M4F, DSP), mps2-an500 (Cortex-M7, DSP, FPv5) and microbit
(nRF51, Cortex-M0, Armv6-M, 16 KiB RAM). Each runs the port self-test and a
zoo model fp32 and int8; int8 output bytes equal the host runtime's on every
path (plain C here, DSP on M4/M7); a model too big for the micro:bit fails at
build time. Figures go to build/e2e_firmware_report.json."""
import numpy as np
import pytest

from aot.errors import BuildError
from aot.deploy.firmware import build_firmware
from aot.deploy.qemu import run_firmware
from aot.paths import ROOT

SMALL_BOARDS = ("mps2-an385", "mps2-an386", "mps2-an500", "microbit")
MODEL = "small_cnn"  # fits the micro:bit's 16 KiB RAM in fp32 and int8


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("board", SMALL_BOARDS)
def test_port_selftest(board, tmp_path):
    art = build_firmware(board, [ROOT / "ports" / "cortex-m" / "selftest.c"], out_dir=tmp_path)
    code, out = run_firmware(art.elf, board, timeout_s=30)
    assert code == 0 and "MOTE done" in out, out
    lines = dict(ln.split(" ", 1) for ln in out.splitlines() if " " in ln)
    loop = int(lines["CYCLES"]) - int(lines["CYCLES_EMPTY"])
    assert abs(loop - int(lines["LOOP_INSNS"])) <= 8, out  # exact to the 4-instruction spin
    assert "LOG -5 7 beef ok -1234567890123 %" in out
    has_fpu = board in ("mps2-an386", "mps2-an500")
    assert ("FPU 3375" in out) == has_fpu and ("DSP 129" in out) == has_fpu


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("board", SMALL_BOARDS)
def test_int8_bytes_identical_to_host(fw, board):
    host = fw.host(MODEL, True)
    b = fw.build(MODEL, board, int8=True)
    assert fw.same_bits(b.run.outputs, host), f"{MODEL} int8 on {board}: bytes differ from the host"
    assert any(np.any(o != 0) for s in host for o in s)
    kernels = b.art.size["kernels"]
    # DSP cores link the cmsis/ kernels, the others the plain-C reference of kernels/.
    fw.record(MODEL, board, "int8", bytes_match_host=True, instructions=b.run.cycles[0],
              flash_bytes=b.art.size["flash_bytes"], ram_bytes=b.art.size["ram_bytes"],
              kernels=sorted(kernels))


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
@pytest.mark.parametrize("board", SMALL_BOARDS)
def test_fp32_matches_host(fw, board):
    host = fw.host(MODEL, False)
    b = fw.build(MODEL, board, int8=False)
    for hs, ds in zip(host, b.run.outputs):
        for h, d in zip(hs, ds):
            assert d.shape == h.shape and d.dtype == h.dtype
            rel = float(np.max(np.abs(d.astype(np.float64) - h)) / max(1e-30, float(np.max(np.abs(h)))))
            assert rel <= 1e-5, f"{MODEL} fp32 on {board}: max relative error {rel}"
    fw.record(MODEL, board, "fp32", instructions=b.run.cycles[0],
              flash_bytes=b.art.size["flash_bytes"], ram_bytes=b.art.size["ram_bytes"])


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_too_big_for_microbit_fails_at_build_time(fw, tmp_path):
    from aot.deploy.build import build_compiled
    c = fw.compile("mlp", False)  # 401 KB of fp32 weights: more than the 256 KiB flash
    with pytest.raises(BuildError, match="model does not fit microbit"):
        build_compiled(c, "microbit", tmp_path / "out")
