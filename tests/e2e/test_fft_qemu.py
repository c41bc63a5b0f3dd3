"""The real-FFT kernels on Cortex-M in QEMU (the bare-metal harness of
test_int8_kernels_qemu.py): mote::rfft_mag_q15 on the M33 with the DSP stages
(cmsis/op_mote_rfft_mag_q15.c) and plain (kernels/), on the M55 (cmsis/ and plain),
and mote::rfft_mag_q31 on both cores, and every op on a Cortex-M3 (no DSP, no FPU), give
every byte of the integer reference
aot/compiler/fftref.py; mote::rfft_mag (fp32, FPU) matches numpy within 1e-5. Also
measures instructions per transform (-icount shift=0) for N = 256, 512, 1024:
build/fft_qemu.json."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from aot.compiler import fftref
from tests.e2e.test_int8_kernels_qemu import TARGETS, build, parse, run_qemu, write_vectors

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.sim
SIZES = (256, 512, 1024)
#: a core without DSP extension or FPU (the fixed-point ops' reason to be): the plain
#: stages, the bit-by-bit square root, software float for the fp32 op
EXTRA_TARGETS = {"m3-plain": ("mps2-an385", ["-mcpu=cortex-m3", "-mfloat-abi=soft"], 0x0, 0x400000, "ref")}
SUPPORT = ("kernels/fft.c", "kernels/kutil.c")


def _kernel_file(op: str, target: str) -> str:
    """cmsis/ first on the optimized targets (the firmware build's rule), else kernels/."""
    opt = ROOT / "cmsis" / f"op_mote_{op}.c"
    return f"cmsis/op_mote_{op}.c" if TARGETS[target][4] == "cmsis" and opt.exists() else f"kernels/op_mote_{op}.c"


def _cases(target):
    rng = np.random.default_rng(38)
    cases = []
    srcs = SUPPORT + tuple(_kernel_file(op, target) for op in ("rfft_mag", "rfft_mag_q15", "rfft_mag_q31"))
    for n in SIZES:
        t = np.arange(n)
        pcm = np.clip(np.round(20000 * np.sin(2 * np.pi * 7.3 * t / n) + rng.normal(0, 3000, n)),
                      -32768, 32767).astype(np.int16)[None]
        t15, t31 = fftref.twiddles(n, np.int16), fftref.twiddles(n, np.int32)
        for power in (1, 2):
            cases.append(dict(name=f"q15_{n}_p{power}", op="rfft_mag_q15", args=[pcm, t15, power],
                              out=fftref.rfft_mag_q15(pcm, t15, power), scratch=2 * n, macs=0, srcs=srcs))
        cases.append(dict(name=f"q31_{n}_p2", op="rfft_mag_q31", args=[pcm, t31, 2, 31],
                          out=fftref.rfft_mag_q31(pcm, t31, 2, 31), scratch=4 * n, macs=0, srcs=srcs))
        cases.append(dict(name=f"q31_{n}_p1", op="rfft_mag_q31", args=[pcm, t31, 1, 0],
                          out=fftref.rfft_mag_q31(pcm, t31, 1, 0), scratch=4 * n, macs=0, srcs=srcs))
        x = (pcm.astype(np.float32) / 32768.0)
        cases.append(dict(name=f"f32_{n}_p2", op="rfft_mag", args=[x, fftref.twiddles(n, np.float32), 2, 1.0],
                          out=np.zeros((1, n // 2 + 1), np.float32), scratch=4 * n, macs=0, srcs=srcs,
                          want=np.abs(np.fft.rfft(x.astype(np.float64), axis=-1)) ** 2))
    return cases


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    for tool in ("arm-none-eabi-gcc", "qemu-system-arm"):
        assert shutil.which(tool), f"{tool} is required"
    out, figures = {}, {}
    with pytest.MonkeyPatch.context() as mp:
        for name, target in EXTRA_TARGETS.items():  # the harness builds from its TARGETS table
            mp.setitem(TARGETS, name, target)
        for target in list(TARGETS):
            tmp = tmp_path_factory.mktemp(f"fft-{target}")
            cases = _cases(target)
            write_vectors(tmp / "vectors.h", cases)
            rc, text = run_qemu(TARGETS[target][0], build(tmp, target, cases, extra=("-lm",)))
            assert rc == 0, f"{target}: exit {rc}\n{text[-2000:]}"
            res, ipt = parse(text)
            out[target] = (cases, res)
            figures[target] = {c["name"]: round(res[c["name"]][1] * ipt) for c in cases if c["name"] in res}
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build/fft_qemu.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures, indent=1))
    return out


@pytest.mark.parametrize("target", list(TARGETS) + list(EXTRA_TARGETS))
def test_fixed_point_bytes_equal_the_reference(results, target):
    cases, res = results[target]
    for c in cases:
        got_rc, _ticks, got = res[c["name"]]
        assert got_rc == 0, c["name"]
        if "want" in c:
            y = np.frombuffer(got, np.float32)
            assert np.max(np.abs(y - c["want"].ravel())) / np.max(c["want"]) <= 1e-5, c["name"]
        else:
            assert got == c["out"].tobytes(), (target, c["name"])
