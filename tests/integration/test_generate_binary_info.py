"""Raspberry Pi binary info (`picotool info -a`) in the images of the projects
`aot generate` writes for a user's own build, as `aot build` gives it.

A copy of examples/cmake with `mote_add_model(... BOARD pico|pico2 ... PORT)`,
cross-built with arm-none-eabi-gcc (the toolchain file's core flags are the
ones `aot board-sources` reports for the board) under SOURCE_DATE_EPOCH: the
block is read back from the linked ELF and from the UF2 of its flash image
with aot.deploy.binary_info, every entry against the project's own files (the
generated mote_sources.json's model, dtype and planned arena, the board
file's UART pins, the Mote package version, SOURCE_DATE_EPOCH's date, the end
of the flash image), and the pico2 project's entries against an `aot build`
of the same model file. A non-RP board's generated project carries no block
(tests/integration/test_cmake.py's mps2-an505 build; the fast checks here)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from aot.deploy import binary_info as bi
from aot.deploy.boards import load_board
from aot.deploy.firmware import flash_images
from aot.deploy.generate import board_sources

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cmake"
PYTHON = sys.executable
#: 2026-12-07 00:00:00 UTC
EPOCH = "1796601600"
#: (board, int8): one RP2040 and one RP2350 image, both dtypes
CASES = [("pico", True), ("pico2", False)]
EXAMPLE_LINE = "mote_add_model(app MODEL model.py BOARD ${MOTE_BOARD} INT8 SELFTEST 4 PORT)"
QEMU_LINE = "mote_add_qemu_run(app BOARD ${MOTE_BOARD})"


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n"
                                  f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def cmake_project(base: Path, board: str, int8: bool) -> Path:
    """examples/cmake for `board` outside the checkout, configured and built; returns the build folder."""
    src = base / "tinycnn"  # a model.py is named by its folder: the model "tinycnn"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    cml = src / "CMakeLists.txt"
    assert EXAMPLE_LINE in cml.read_text()
    line = f"mote_add_model(app MODEL model.py BOARD ${{MOTE_BOARD}}{' INT8' if int8 else ''} SELFTEST 2 PORT)"
    text = cml.read_text().replace(EXAMPLE_LINE, line)
    assert QEMU_LINE in text
    # the pico's run target runs on rp2040js; the Pico 2 has no simulator
    cml.write_text(text if board == "pico" else text.replace(QEMU_LINE, ""))
    flags = " ".join(board_sources(board)["arch_flags"])
    toolchain = src / "toolchain.cmake"
    toolchain.write_text("set(CMAKE_SYSTEM_NAME Generic)\nset(CMAKE_SYSTEM_PROCESSOR arm)\n"
                         "set(CMAKE_C_COMPILER arm-none-eabi-gcc)\nset(CMAKE_ASM_COMPILER arm-none-eabi-gcc)\n"
                         "set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)\n"
                         f'set(CMAKE_C_FLAGS_INIT "{flags}")\nset(CMAKE_ASM_FLAGS_INIT "{flags}")\n')
    build = base / "build"
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    _run(["cmake", "-S", src, "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", "-DCMAKE_BUILD_TYPE=MinSizeRel",
          f"-DMOTE_PYTHON={PYTHON}", f"-DMOTE_DIR={ROOT}", f"-DMOTE_BOARD={board}"], env=env)
    _run(["cmake", "--build", build, "-j2"], env=env, timeout=900)
    return build


def expected_summary(gen: Path, board: str, image_bytes: int) -> dict:
    """What the image must carry, from the generated folder's own files and the board file."""
    sources = json.loads((gen / "mote_sources.json").read_text())
    b = load_board(board)
    arena = sum(sources["memory"]["arena_bytes"])
    return {
        "program name": f"mote {sources['model']}",
        "version": version("mote-aot"),
        "build date": "2026-12-07",
        "description": f"Mote model {sources['model']}, {'int8' if sources['int8'] else 'fp32'}, arena {arena} bytes",
        "binary end": f"0x{b.flash.origin + image_bytes:08x}",
        "pins": {f"GP{b.uart.pins['tx_pin']}": "UART0 TX", f"GP{b.uart.pins['rx_pin']}": "UART0 RX"},
    }


@pytest.fixture(scope="module")
def cmake_builds(tmp_path_factory):
    return {board: cmake_project(tmp_path_factory.mktemp(f"cmake-{board}"), board, int8) for board, int8 in CASES}


@pytest.mark.slow
@pytest.mark.parametrize("board,int8", CASES)
def test_cmake_project_image_carries_the_binary_info(cmake_builds, board, int8, tmp_path):
    build = cmake_builds[board]
    gen = build / "mote" / "app"
    elf = build / "app.elf"
    b = load_board(board)
    # the post-build step of mote_add_model(... PORT) on a UF2 board: app.uf2 beside the ELF,
    # the bytes `aot uf2` and `aot build`'s path (flash_images) make of the ELF
    post_build = (build / "app.uf2").read_bytes()
    made = tmp_path / "aot-uf2.uf2"
    _run([PYTHON, "-m", "aot", "uf2", elf, "--board", board, "-o", made])
    assert post_build == made.read_bytes()
    binf, uf2 = flash_images(b, elf)
    assert uf2 == build / "app.uf2" and uf2.read_bytes() == post_build
    expected = expected_summary(gen, board, binf.stat().st_size)
    assert expected["program name"] == "mote tinycnn" and expected["pins"] == {"GP0": "UART0 TX", "GP1": "UART0 RX"}
    assert expected["description"].startswith(f"Mote model tinycnn, {'int8' if int8 else 'fp32'}, arena ")
    assert sum(json.loads((gen / "mote_sources.json").read_text())["memory"]["arena_bytes"]) > 0
    chip = {"pico": "RP2040", "pico2": "RP2350"}[board]
    from_uf2 = bi.read_uf2(uf2.read_bytes())
    from_elf = bi.read_elf(elf, chip)
    assert from_uf2.summary() == expected and from_elf == from_uf2 == bi.read_elf(elf)
    other = {"RP2040": "RP2350", "RP2350": "RP2040"}[chip]
    with pytest.raises(bi.BinaryInfoError, match=f"^{elf} is an {chip} image .*, not an {other} image: read it as {chip}"):
        bi.read_elf(elf, other)
    # the generated header is the one `aot build` writes for this model (one writer)
    program = bi.ProgramInfo(name=expected["program name"], version=expected["version"],
                             build_date=expected["build date"], description=expected["description"])
    assert (gen / bi.HEADER_NAME).read_text() == bi.header_text(b, program)
    print(f"\n{board}: {from_uf2.summary()}")


@pytest.mark.slow
@pytest.mark.sim
def test_cmake_pico_image_runs_on_rp2040js(cmake_builds):
    """docs/integrating/cmake.md: `aot qemu build/app.elf --board pico` boots the post-build
    app.uf2 on rp2040js (nothing written: it is the ELF's) and the self-test passes; so does
    the project's `app-run` target (mote_add_qemu_run(app BOARD pico))."""
    build = cmake_builds["pico"]
    before = (build / "app.uf2").read_bytes()
    proc = _run([PYTHON, "-m", "aot", "qemu", build / "app.elf", "--board", "pico", "--timeout", "30"], timeout=900)
    assert proc.stderr == "" and (build / "app.uf2").read_bytes() == before
    assert "MOTE SELFTEST PASS n=2" in proc.stdout and proc.stdout.rstrip().endswith("MOTE EXIT 0"), proc.stdout
    proc = _run(["cmake", "--build", build, "--target", "app-run"], timeout=900)
    assert "Mote: running app on pico on rp2040js" in proc.stdout and "MOTE SELFTEST PASS n=2" in proc.stdout
    assert (build / "app.uf2").read_bytes() == before


@pytest.mark.slow
def test_cmake_project_carries_what_aot_build_gives(cmake_builds, tmp_path):
    """`aot build` of the same model file for pico2 (fp32, the same date): every entry
    but the binary end (the images differ: the app, the stack) is the same."""
    build = cmake_builds["pico2"]
    model = build.parent / "tinycnn" / "model.py"
    out = tmp_path / "aot-build"
    _run([PYTHON, "-m", "aot", "build", model, "--board", "pico2", "-o", out],
         env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCH), timeout=900)
    built = bi.read_uf2((out / "firmware.uf2").read_bytes()).summary()
    # `aot uf2` of aot build's own ELF is aot build's firmware.uf2, byte for byte
    _run([PYTHON, "-m", "aot", "uf2", out / "firmware.elf", "--board", "pico2", "-o", tmp_path / "again.uf2"])
    assert (tmp_path / "again.uf2").read_bytes() == (out / "firmware.uf2").read_bytes()
    generated = bi.read_elf(build / "app.elf", "RP2350").summary()
    assert built.pop("binary end") != generated.pop("binary end")
    assert built == generated and built["description"].startswith("Mote model tinycnn, fp32, arena ")


# --------------------------------------------------------------------------- fast


def test_generated_headers_and_port_sources_follow_the_board():
    """`aot generate --dry-run --json` names mote_binary_info.h for RP boards only (CMake
    lists it as the generate step's output); the port compiles ports/rp2/binary_info.c
    for them only, and every board's generated linker script is the one `aot build` links."""
    from aot.deploy.generate import generated_headers, port_manifest
    for board, rp in (("pico", True), ("pico2", True), ("mps2-an505", False), ("nucleo-f446re", False)):
        b = load_board(board)
        assert (bi.HEADER_NAME in generated_headers(b)) is rp, board
        port = port_manifest(b)["sources"]
        assert (str(ROOT / "ports" / "rp2" / "binary_info.c") in port) is rp, board
    proc = _run([PYTHON, "-m", "aot", "generate", EXAMPLE / "model.py", "--board", "pico", "--dry-run", "--json"])
    assert json.loads(proc.stdout)["generated_headers"] == ["model_pte.h", "mote_model.h", "mote_binary_info.h"]
