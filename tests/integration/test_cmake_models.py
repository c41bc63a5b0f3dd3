"""Several models in one CMake target (cmake/mote.cmake, examples/cmake-models):
`mote_add_model` called once per model with a NAME, generated together by one
`aot generate` at the end of the directory, cross-built with arm-none-eabi-gcc and
run in QEMU (mps2-an505) in both memory modes: both self-tests pass, and each
model's top class and score are the host runtime's for the same input; a re-build
with nothing changed does nothing, an edited model file re-generates both. Options
that must agree between a target's models are refused at configure time in one
message naming the option."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cmake-models"
TOOLCHAIN = ROOT / "examples" / "cmake" / "arm-none-eabi-m33.cmake"
PYTHON = sys.executable

pytestmark = [pytest.mark.slow, pytest.mark.sim]


def _configure(src: Path, build: Path, *extra) -> subprocess.CompletedProcess:
    return subprocess.run(["cmake", "-S", src, "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}",
                           "-DCMAKE_BUILD_TYPE=MinSizeRel", f"-DMOTE_PYTHON={PYTHON}", f"-DMOTE_DIR={ROOT}",
                           *extra], capture_output=True, text=True)


def _run(cmd, timeout=900) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout + proc.stderr


def _copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("README.md", "__pycache__"))
    return src


def _host_result(pte: Path, x: np.ndarray) -> str:
    """main.c's line for `x` computed by the host runtime from the generated program."""
    from aot.host.runtime import Program
    score = np.asarray(Program(pte.read_bytes()).method().run([x])[0], dtype=np.float32).ravel()
    best = int(np.argmax(score))  # the first of equal highest scores, as main.c
    return f"class {best} (score {int(score[best] * np.float32(1000))}/1000)"


def _inputs(gen: Path) -> dict:
    """main.c's inputs, by model: kws features (i % 7 - 3) / 3, image pixels (i % 16) / 16."""
    models = {m["name"]: m for m in json.loads((gen / "mote_sources.json").read_text())["models"]}
    shape = {name: m["inputs"][0]["shape"] for name, m in models.items()}
    i = {name: np.arange(int(np.prod(s))) for name, s in shape.items()}
    kws = ((i["kws"] % 7).astype(np.float32) - np.float32(3)) / np.float32(3)
    image = (i["image"] % 16).astype(np.float32) / np.float32(16)
    return {"kws": kws.reshape(shape["kws"]), "image": image.reshape(shape["image"])}


def expected_lines(gen: Path) -> list:
    """The lines main.c prints for kws and image, from the host runtime (also
    tests/integration/test_platformio.py's, which builds the same main.c)."""
    x = _inputs(gen)
    return [f"app: {name}: {_host_result(gen / name / 'model.pte', x[name])}" for name in ("kws", "image")]


@pytest.mark.parametrize("memory", ["shared", "separate"])
def test_two_models_build_and_run_in_qemu(tmp_path, memory):
    src = _copy(tmp_path)
    build = tmp_path / "build"
    # Ninja makes the models' output folders (kws/, image/) before aot generate runs
    gen = ["-G", "Ninja"] if memory == "separate" and shutil.which("ninja") else []
    proc = _configure(src, build, f"-DMOTE_MEMORY={memory}", *gen)
    assert proc.returncode == 0, proc.stderr
    assert f"Mote: app: models kws, image compiled at build time by one aot generate (--memory {memory})" \
        in proc.stdout
    log = _run(["cmake", "--build", build, "-j2"])
    assert len(re.findall(r"Mote: aot generate kws\.py, image\.py \(models kws, image", log)) == 1, log
    gen = build / "mote" / "app"
    sources = json.loads((gen / "mote_sources.json").read_text())
    assert sources["memory"] == memory and [m["name"] for m in sources["models"]] == ["kws", "image"]
    out = _run(["cmake", "--build", build, "--target", "app-run"], timeout=180)
    assert f"app: 2 models, memory {memory}" in out, out
    # mote_model_<name>_selftest(): each verdict names its model
    assert re.findall(r"^MOTE SELFTEST PASS n=2 max_abs_err=0 model=(\w+)$", out, re.M) == ["kws", "image"], out
    for line in expected_lines(gen):
        assert line in out, (line, out)
    # The RAM: shared has one activation arena, the larger plan; separate one per model.
    nm = _run(["arm-none-eabi-nm", "-S", build / "app.elf"])
    sizes = {m.group(2): int(m.group(1), 16) for m in re.finditer(r"^\w+ (\w+) [bBdD] (\w+)$", nm, re.M)}
    arenas = {m["name"]: m["arena_bytes"] for m in sources["models"]}
    if memory == "shared":
        assert sizes["mote_models_arena0"] == max(arenas.values()) == sources["planned_ram"]["arena"]
        assert not [s for s in sizes if re.fullmatch(r"mote_model_\w+_arena0", s)]
    else:
        assert {n: sizes[f"mote_model_{n}_arena0"] for n in arenas} == arenas
        assert "mote_models_arena0" not in sizes
    # Nothing changed: nothing generated or compiled. One model file edited: one generate of
    # both (one registry), and the new firmware still passes.
    log = _run(["cmake", "--build", build, "-j2"])
    assert "aot generate" not in log and "Building C object" not in log, log
    kws = src / "kws.py"
    kws.write_text(kws.read_text().replace("CHANNELS = 16", "CHANNELS = 12"))
    log = _run(["cmake", "--build", build, "-j2"])
    assert len(re.findall(r"Mote: aot generate kws\.py, image\.py", log)) == 1, log
    assert json.loads((gen / "mote_sources.json").read_text())["models"][0]["arena_bytes"] < arenas["kws"]
    out = _run(["cmake", "--build", build, "--target", "app-run"], timeout=180)
    # mote_model_<name>_selftest(): each verdict names its model
    assert re.findall(r"^MOTE SELFTEST PASS n=2 max_abs_err=0 model=(\w+)$", out, re.M) == ["kws", "image"], out
    for line in expected_lines(gen):
        assert line in out, (line, out)


def _example_with(tmp_path: Path, kws: str, image: str) -> Path:
    """A copy of examples/cmake-models whose two mote_add_model() calls end in `kws` and `image`."""
    src = _copy(tmp_path)
    cml = src / "CMakeLists.txt"
    text = cml.read_text()
    old_kws = "mote_add_model(app MODEL kws.py NAME kws BOARD ${MOTE_BOARD} INT8 SELFTEST 2 MEMORY ${MOTE_MEMORY} PORT)"
    old_image = "mote_add_model(app MODEL image.py NAME image BOARD ${MOTE_BOARD} INT8 SELFTEST 2)"
    assert old_kws in text and old_image in text
    cml.write_text(text.replace(old_kws, "mote_add_model(app MODEL kws.py " + kws + ")")
                   .replace(old_image, "mote_add_model(app MODEL image.py " + image + ")"))
    return src


@pytest.mark.parametrize("kws, image, message", [
    ("NAME kws BOARD mps2-an505 INT8 PORT", "NAME image BOARD mps2-an505 PORT",
     "Mote: mote_add_model(app): INT8 differs between the models of app (kws (kws.py): INT8, "
     "image (image.py): no INT8): one aot generate compiles a target's models with one recipe"),
    ("NAME kws BOARD mps2-an505 INT8 PORT", "NAME image BOARD mps3-an547 INT8",
     "Mote: mote_add_model(app): BOARD differs between the models of app (kws (kws.py): mps2-an505, "
     "image (image.py): mps3-an547)"),
    ("NAME kws BOARD mps2-an505 SELFTEST 2 PORT", "NAME image BOARD mps2-an505 SELFTEST 4",
     "SELFTEST differs between the models of app (kws (kws.py): 2, image (image.py): 4)"),
    ("NAME kws BOARD mps2-an505 MEMORY shared PORT", "NAME image BOARD mps2-an505 MEMORY separate",
     "Mote: mote_add_model(app): MEMORY differs between the models of app (kws (kws.py): shared, "
     "image (image.py): separate): it is the target's, give it once"),
    ("NAME twin BOARD mps2-an505 PORT", "NAME twin BOARD mps2-an505",
     "two models are named 'twin'"),
    ("NAME Kws BOARD mps2-an505 PORT", "NAME image BOARD mps2-an505", "model name 'Kws'"),
])
def test_models_of_a_target_that_disagree_are_one_configure_error(tmp_path, kws, image, message):
    src = _example_with(tmp_path, kws, image)
    proc = _configure(src, tmp_path / "b")
    assert proc.returncode != 0
    assert message in " ".join(proc.stderr.split()), proc.stderr  # CMake wraps lines


def test_memory_needs_several_models(tmp_path):
    """One call without NAME is today's one-model build: --memory is refused there by aot."""
    src = _copy(tmp_path)
    cml = src / "CMakeLists.txt"
    text = cml.read_text()
    text = text.replace("mote_add_model(app MODEL image.py NAME image BOARD ${MOTE_BOARD} INT8 SELFTEST 2)\n", "")
    cml.write_text(text.replace(" NAME kws ", " "))
    proc = _configure(src, tmp_path / "b")
    assert proc.returncode != 0
    assert "--memory shared|separate chooses how several models share RAM" in " ".join(proc.stderr.split())
    # without MEMORY it is the one-model layout: mote_model.h, no mote_models.h
    cml.write_text(cml.read_text().replace(" MEMORY ${MOTE_MEMORY}", ""))
    build = tmp_path / "one"
    proc = _configure(src, build)
    assert proc.returncode == 0, proc.stderr
    assert "Mote: app: model compiled at build time by aot generate into" in proc.stdout
    rules = " ".join(p.read_text() for p in (build / "CMakeFiles").rglob("build.make"))
    assert "mote/app/mote_model.h" in rules and "mote_models.h" not in rules
