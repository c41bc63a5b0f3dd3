"""CRC-32 of a program: mote_program_crc32 / mote_program_verify_crc32 against zlib.crc32,
and the firmware app's boot-time check (MOTE_VERIFY_CHECKSUM, MOTE_MODEL_CRC32)."""
import ctypes as C
import random
import shutil
import subprocess
import zlib

import numpy as np
import pytest

import _harness as H

APP = H.ROOT / "ports" / "cortex-m" / "app" / "mote_app.c"
EMBED = H.ROOT / "runtime" / "embed" / "mote_model.c"  # the embedding API: the boot-time check lives here
WARN = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror"]


@pytest.fixture(scope="module")
def lib(host_build):
    lib = C.CDLL(str(host_build / "ports" / "linux" / "libmote.so"))
    lib.mote_program_crc32.argtypes = [C.c_void_p, C.c_size_t]
    lib.mote_program_crc32.restype = C.c_uint32
    lib.mote_program_verify_crc32.argtypes = [C.c_void_p, C.c_size_t, C.c_uint32]
    lib.mote_program_verify_crc32.restype = C.c_int
    return lib


def crc(lib, data: bytes) -> int:
    buf = np.frombuffer(data, dtype=np.uint8) if data else None
    return lib.mote_program_crc32(buf.ctypes.data if buf is not None else None, len(data))


def test_known_values(lib):
    assert crc(lib, b"") == 0
    assert crc(lib, b"123456789") == 0xCBF43926  # the CRC-32/ISO-HDLC check value
    assert crc(lib, b"a") == 0xE8B7BE43
    assert crc(lib, bytes(32)) == zlib.crc32(bytes(32)) == 0x190A55AD


def test_matches_zlib_on_random_bytes(lib):
    rng = random.Random(1234)
    for n in [1, 2, 3, 4, 7, 15, 16, 17, 255, 256, 1000, 4096, 65537]:
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert crc(lib, data) == zlib.crc32(data), n


def test_matches_zlib_on_a_whole_pte(lib, pte):
    data = pte("const_mul").read_bytes()
    assert crc(lib, data) == zlib.crc32(data)
    assert len(data) > 1000


def test_verify(lib, pte):
    data = pte("add_relu").read_bytes()
    buf = np.frombuffer(data, dtype=np.uint8)
    want = zlib.crc32(data)
    assert lib.mote_program_verify_crc32(buf.ctypes.data, len(data), want) == 0
    assert lib.mote_program_verify_crc32(buf.ctypes.data, len(data), want ^ 1) == H.E["CHECKSUM"]
    assert lib.mote_program_verify_crc32(buf.ctypes.data, len(data) - 1, want) == H.E["CHECKSUM"]
    assert lib.mote_program_verify_crc32(None, 5, 0) == H.E["INVALID_ARGUMENT"]
    assert lib.mote_program_verify_crc32(None, 0, 0) == 0


# ------------------------------------------------------------------ the firmware application

MODEL_H = """#define MOTE_MODEL_STATE_BYTES {state}
#define MOTE_MODEL_ARENA0_BYTES {arena}
#define MOTE_MODEL_SCRATCH_BYTES 0
#define MOTE_MODEL_INPUTS_BYTES {inputs}
#define MOTE_MODEL_PTE_BYTES {pte}u
{crc}
"""


def _model_h(d, crc_line="", state=4096, arena=4096, inputs=96, pte=300):
    """A hand-written mote_model.h and aot generate's model_pte.h for a `pte`-byte program."""
    from aot.deploy.generate import pte_header_text
    (d / "mote_model.h").write_text(MODEL_H.format(state=state, arena=arena, inputs=inputs, crc=crc_line,
                                                   pte=pte))
    (d / "model_pte.h").write_text(pte_header_text("test", pte))


@pytest.mark.parametrize("defines,ok", [([], True), (["-DMOTE_VERIFY_CHECKSUM"], False),
                                        (["-DMOTE_VERIFY_CHECKSUM", "-DMOTE_MODEL_CRC32=0x1234u"], True)])
def test_app_compiles_for_cortex_m(defines, ok, tmp_path):
    """Without MOTE_VERIFY_CHECKSUM the embedding API needs no CRC macro; with it,
    MOTE_MODEL_CRC32 must exist. The app itself compiles either way."""
    gcc = shutil.which("arm-none-eabi-gcc")
    assert gcc, "arm-none-eabi-gcc missing (scripts/bootstrap.sh installs gcc-arm-none-eabi)"
    _model_h(tmp_path)
    flags = [gcc, *WARN, "-Os", "-mcpu=cortex-m33", "-mthumb", f"-I{H.ROOT / 'runtime/include'}",
             f"-I{H.ROOT / 'runtime/embed'}", f"-I{H.ROOT / 'ports/cortex-m'}", f"-I{tmp_path}", *defines]
    r = subprocess.run(flags + ["-c", str(EMBED), "-o", str(tmp_path / "embed.o")], capture_output=True, text=True)
    assert (r.returncode == 0) == ok, r.stderr
    if ok:
        syms = subprocess.run(["arm-none-eabi-nm", str(tmp_path / "embed.o")], capture_output=True, text=True,
                              check=True).stdout
        assert ("mote_program_verify_crc32" in syms) == ("-DMOTE_VERIFY_CHECKSUM" in defines)
        r = subprocess.run(flags + ["-c", str(APP), "-o", str(tmp_path / "app.o")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    else:
        assert "MOTE_MODEL_CRC32" in r.stderr


INPUTS_S = """    .section .rodata
    .balign 16
    .global mote_inputs
mote_inputs:
    .incbin "{inputs}"
    .balign 4
    .global mote_inputs_count
mote_inputs_count:
    .long 1
    .section .note.GNU-stack,"",@progbits
"""


def _host_app(d, pte_bytes, crc_value, host_build):
    """mote_app.c built for the host (tests/runtime/app_host_port.c) on the embedding
    API, with aot generate's model_pte.c of `pte_bytes` and one input embedded."""
    from aot.deploy.generate import pte_source_text
    (d / "model_pte.c").write_text(pte_source_text("test", pte_bytes))
    x = np.linspace(-1, 1, 24, dtype=np.float32)
    (d / "inputs.bin").write_bytes(x.tobytes())
    (d / "model_inputs.S").write_text(INPUTS_S.format(inputs=d / "inputs.bin"))
    _model_h(d, f"#define MOTE_MODEL_CRC32 0x{crc_value:08x}u", pte=len(pte_bytes))
    exe = d / "app"
    subprocess.run(["cc", *WARN, "-O1", "-DMOTE_VERIFY_CHECKSUM", "-DMOTE_APP_BOARD_NAME=\"host\"",
                    f"-I{H.ROOT / 'runtime/include'}", f"-I{H.ROOT / 'runtime/embed'}",
                    f"-I{H.ROOT / 'ports/cortex-m'}", f"-I{d}",
                    str(APP), str(EMBED), str(d / "model_pte.c"), str(H.ROOT / "tests/runtime/app_host_port.c"),
                    str(d / "model_inputs.S"),
                    "-Wl,--start-group", str(host_build / "runtime/libmote_runtime.a"),
                    str(host_build / "kernels/libmote_kernels.a"), *_backend_libs(host_build), "-Wl,--end-group",
                    "-lm", "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60), x


def _backend_libs(host_build) -> list:
    """The host kernel library's registry names the backends the host build has (XNNPACK)."""
    xnn = host_build / "backends/xnnpack/libmote_backend_xnnpack.a"
    return [str(xnn), "-lXNNPACK"] if xnn.exists() else []  # inside the link group: it reads the runtime's fb.c


def test_app_checks_the_model_at_boot(pte, models, host_build, tmp_path):
    import torch

    data = pte("const_mul").read_bytes()
    good = zlib.crc32(data)
    r, x = _host_app(tmp_path, data, good, host_build)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "MOTE BOOT host" and lines[-1] == "MOTE DONE 1"
    out_hex = [ln for ln in lines if ln.startswith("OUT 0 ")][0].split()[-1]
    mod, _ = models["const_mul"]
    with torch.no_grad():
        want = mod(torch.from_numpy(x.reshape(2, 3, 4))).numpy().astype(np.float32)
    got = np.frombuffer(bytes.fromhex(out_hex), dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    # a wrong expected CRC stops the app before the loader
    r, _ = _host_app(tmp_path, data, good ^ 0x80000000, host_build)
    assert r.returncode == 1
    assert r.stdout.splitlines()[-1] == f"MOTE ERROR checksum {H.E['CHECKSUM']}"
    # so does one flipped bit in a weight the loader cannot notice
    bad = bytearray(data)
    bad[-5] ^= 0x01
    r, _ = _host_app(tmp_path, bytes(bad), good, host_build)
    assert r.returncode == 1 and "MOTE ERROR checksum -219" in r.stdout
