"""The CMake integration (cmake/mote.cmake, examples/cmake): a user's plain
CMake project with `mote_add_model()`, cross-built with arm-none-eabi-gcc
through the example's toolchain file and run in QEMU (mps2-an505), then
re-built: nothing changed -> nothing re-generated or re-compiled; the model
file changed -> `aot generate` runs again and the new firmware passes its
self-test. Also the installed package (`cmake --install`, find_package(Mote))."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared_build import build_lock

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cmake"
PYTHON = sys.executable

pytestmark = [pytest.mark.slow, pytest.mark.sim]


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def _configure(src: Path, build: Path, *extra) -> None:
    _run(["cmake", "-S", src, "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={src / 'arm-none-eabi-m33.cmake'}",
          "-DCMAKE_BUILD_TYPE=MinSizeRel", f"-DMOTE_PYTHON={PYTHON}", *extra])


def _build(build: Path) -> str:
    proc = _run(["cmake", "--build", build, "-j2"])
    return proc.stdout + proc.stderr


def _qemu(build: Path) -> tuple:
    proc = subprocess.run(["cmake", "--build", build, "--target", "app-run"], capture_output=True,
                          text=True, timeout=180)
    return proc.returncode, proc.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of examples/cmake outside the checkout, configured against it."""
    base = tmp_path_factory.mktemp("cmake")
    src = base / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    build = base / "build"
    _configure(src, build, f"-DMOTE_DIR={ROOT}")
    return src, build


def test_example_builds_runs_and_passes_selftest(project):
    src, build = project
    log = _build(build)
    assert "Mote: aot generate model.py for mps2-an505" in log
    code, out = _qemu(build)
    assert code == 0, out
    assert re.search(r"^MOTE SELFTEST PASS n=4 max_abs_err=0$", out, re.M), out
    assert re.search(r"^app: class \d+ \(score -?\d+/1000\)$", out, re.M), out
    # Only the program's kernels are linked: the registry names exactly ops.json's.
    gen = build / "mote" / "app"
    nm = _run(["arm-none-eabi-nm", build / "app.elf"]).stdout
    linked = {m.group(1) for m in re.finditer(r" T (mote_kernel_\w+)$", nm, re.M)
              if not m.group(1).startswith("mote_kernel_registry")}
    import json
    wanted = {op["kernel"] for op in json.loads((gen / "ops.json").read_text())["ops"]
              if op["kernel"] != "mote_kernel_executorch_prim_et_view_default"}
    assert linked == wanted, linked ^ wanted
    assert "mote_kernel_aten_convolution_out" not in linked  # an fp32 kernel the int8 model does not use
    # mps2-an505 is no Raspberry Pi chip: no binary info (tests/integration/test_generate_binary_info.py
    # has the pico and pico2 projects'), neither its header file, its symbols nor its marker word
    from aot.deploy import binary_info
    assert not (gen / binary_info.HEADER_NAME).exists()
    assert not re.search(r" mote_bi_\w+$", nm, re.M)
    assert binary_info.MARKER_START.to_bytes(4, "little") not in (build / "app.elf").read_bytes()


def test_rebuild_without_change_does_nothing(project):
    src, build = project
    gen = build / "mote" / "app"
    before = {p: p.stat().st_mtime_ns for p in (gen / "model_pte.c", gen / "mote_model.h", build / "app.elf")}
    log = _build(build)
    assert "aot generate" not in log, log
    assert "Building C object" not in log, log
    assert {p: p.stat().st_mtime_ns for p in before} == before


def test_source_change_recompiles_only_it(project):
    src, build = project
    main = src / "main.c"
    main.write_text(main.read_text() + "\n/* touched */\n")
    log = _build(build)
    assert "aot generate" not in log, log
    assert re.findall(r"Building C object (\S+)", log) == ["CMakeFiles/app.dir/main.c.obj"], log


def test_model_change_regenerates_and_still_passes(project):
    src, build = project
    gen = build / "mote" / "app"
    arena_before = re.search(r"MOTE_MODEL_ARENA0_BYTES (\d+)u", (gen / "mote_model.h").read_text()).group(1)
    model = src / "model.py"
    model.write_text(model.read_text().replace("WIDTH = 8 ", "WIDTH = 12 "))
    log = _build(build)
    assert "Mote: aot generate model.py for mps2-an505" in log
    rebuilt = re.findall(r"Building (?:C|ASM) object (\S+)", log)
    assert rebuilt and not [o for o in rebuilt if "/ports/" in o], rebuilt  # the port depends on the board only
    assert "CMakeFiles/app.dir/main.c.obj" in rebuilt  # it includes mote_model.h
    header = (gen / "mote_model.h").read_text()
    arena_after = re.search(r"MOTE_MODEL_ARENA0_BYTES (\d+)u", header).group(1)
    assert int(arena_after) > int(arena_before)  # 12 channels instead of 8 in the first feature map
    code, out = _qemu(build)
    assert code == 0 and "MOTE SELFTEST PASS n=4" in out, out


def test_installed_package_find_package(tmp_path):
    """cmake --install of the checkout's host build (scripts/bootstrap.sh made
    it), then the example with find_package(Mote)."""
    prefix = tmp_path / "prefix"
    with build_lock(ROOT / "build" / "host"):
        _run(["cmake", "--build", ROOT / "build" / "host", "-j2"])  # re-configures if CMakeLists changed
        _run(["cmake", "--install", ROOT / "build" / "host", "--prefix", prefix])
    assert (prefix / "share" / "mote" / "build" / "host" / "ports" / "linux" / "libmote.so").is_file()
    assert (prefix / "lib" / "cmake" / "Mote" / "MoteConfig.cmake").is_file()
    assert (prefix / "share" / "mote" / "aot" / "deploy" / "generate.py").is_file()
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    build = tmp_path / "build"
    _configure(src, build, "-DMOTE_FIND_PACKAGE=ON", f"-DMote_DIR={prefix / 'lib' / 'cmake' / 'Mote'}")
    cache = (build / "CMakeCache.txt").read_text()
    assert f"MOTE_ROOT:INTERNAL={prefix / 'share' / 'mote'}" in cache
    _build(build)
    code, out = _qemu(build)
    assert code == 0 and "MOTE SELFTEST PASS n=4" in out, out


def test_missing_model_is_one_configure_error(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    (src / "model.py").unlink()
    proc = subprocess.run(["cmake", "-S", src, "-B", tmp_path / "b",
                           f"-DCMAKE_TOOLCHAIN_FILE={src / 'arm-none-eabi-m33.cmake'}",
                           f"-DMOTE_PYTHON={PYTHON}", f"-DMOTE_DIR={ROOT}"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert f"Mote: model file {src / 'model.py'} not found" in " ".join(proc.stderr.split())  # CMake wraps lines


def test_forgotten_toolchain_file_is_one_configure_error(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    proc = subprocess.run(["cmake", "-S", src, "-B", tmp_path / "b", f"-DMOTE_PYTHON={PYTHON}",
                           f"-DMOTE_DIR={ROOT}"], capture_output=True, text=True)
    assert proc.returncode != 0
    err = " ".join(proc.stderr.split())
    assert "Mote: BOARD mps2-an505 is a Cortex-M board, but the C compiler" in err and "toolchain file" in err


def test_port_without_asm_is_one_configure_error(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    cml = src / "CMakeLists.txt"
    cml.write_text(cml.read_text().replace("project(mote_cmake_example C ASM)", "project(mote_cmake_example C)"))
    proc = subprocess.run(["cmake", "-S", src, "-B", tmp_path / "b",
                           f"-DCMAKE_TOOLCHAIN_FILE={src / 'arm-none-eabi-m33.cmake'}",
                           f"-DMOTE_PYTHON={PYTHON}", f"-DMOTE_DIR={ROOT}"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "enable ASM in your project, project(<name> C ASM)" in " ".join(proc.stderr.split())


def _example_with(tmp_path, line: str) -> Path:
    """A copy of examples/cmake whose mote_add_model() call is `line`."""
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md"))
    cml = src / "CMakeLists.txt"
    old = "mote_add_model(app MODEL model.py BOARD ${MOTE_BOARD} INT8 SELFTEST 4 PORT)"
    assert old in cml.read_text()
    cml.write_text(cml.read_text().replace(old, line))
    return src


def test_options_reach_the_generated_program(tmp_path):
    """OPTIONS hands aot generate what only the command line had: int16 activations and
    external weights (a .ptd linked as model_ptd.c), and --selftest among them."""
    src = _example_with(tmp_path, "mote_add_model(app MODEL model.py BOARD ${MOTE_BOARD} PORT "
                                  "OPTIONS --int16-activations --external-weights --selftest 2)")
    build = tmp_path / "build"
    _configure(src, build, f"-DMOTE_DIR={ROOT}")
    _build(build)
    gen = build / "mote" / "app"
    ops = {op["name"]: op["dtypes"] for op in json.loads((gen / "ops.json").read_text())["ops"]}
    assert {"mote::conv2d_s16", "mote::linear_s16"} <= {n.split(".")[0] for n in ops}, ops
    assert (gen / "model.ptd").read_bytes()[4:8] == b"FT01"
    assert list(build.rglob("model_ptd.c.obj")), "model_ptd.c was not compiled"
    code, out = _qemu(build)
    assert code == 0 and "MOTE SELFTEST PASS n=2" in out, out


def test_a_bad_option_is_one_configure_error(tmp_path):
    src = _example_with(tmp_path, "mote_add_model(app MODEL model.py BOARD ${MOTE_BOARD} PORT OPTIONS --int8-io)")
    proc = subprocess.run(["cmake", "-S", src, "-B", tmp_path / "b",
                           f"-DCMAKE_TOOLCHAIN_FILE={src / 'arm-none-eabi-m33.cmake'}",
                           f"-DMOTE_PYTHON={PYTHON}", f"-DMOTE_DIR={ROOT}"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert ("Mote: aot generate: error: --int8-io keeps an int8 program's inputs and outputs int8: add --int8"
            in " ".join(proc.stderr.split()))
