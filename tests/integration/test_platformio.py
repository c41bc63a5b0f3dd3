"""The PlatformIO integration (library.json, integrations/platformio, examples/platformio).

Slow part (markers slow, sim): the offline set-up (scripts/platformio_setup.py,
idempotent), then a copy of examples/platformio/qemu-an505 outside the
checkout, its model a copy too, built and run in QEMU with
`pio run -t upload`: the self-test passes; a second run with nothing changed
neither re-generates nor re-compiles; an edited model file re-generates and
still passes; a firmware's non-zero exit status fails the upload.

Fast part: the extraScript's option parsing, board mapping and cache key
(integrations/platformio/mote_pio.py), the local platform's boards against
boards/*.json, the manifests as PlatformIO parses them, and the set-up
script's version arithmetic.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "platformio" / "qemu-an505"
PIO_DIR = ROOT / "integrations" / "platformio"
PLATFORM = PIO_DIR / "platform"
SETUP = ROOT / "scripts" / "platformio_setup.py"
PYTHON = sys.executable

sys.path.insert(0, str(PIO_DIR))
import mote_pio  # noqa: E402

PASS_RE = re.compile(r"^MOTE SELFTEST PASS n=4 max_abs_err=\S+$", re.M)


def _load_setup():
    spec = importlib.util.spec_from_file_location("platformio_setup", SETUP)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------- fast


def test_board_from_mcu_and_explicit():
    boards = mote_pio.known_boards()
    assert "mps2-an505" in boards and "pico2" in boards
    # Mote's local platform: the mcu is the Mote board name.
    assert mote_pio.mote_board_for("mps2-an505", None, boards) == "mps2-an505"
    assert mote_pio.mote_board_for("MPS3-AN547", None, boards) == "mps3-an547"
    # Community platforms: RP2350 (rpipico2) and RP2040 (rpipico).
    assert mote_pio.mote_board_for("rp2350", None, boards) == "pico2"
    assert mote_pio.mote_board_for("rp2040", None, boards) == "pico"
    # custom_mote_board wins over the mcu.
    assert mote_pio.mote_board_for("rp2350", "mps2-an505", boards) == "mps2-an505"
    with pytest.raises(mote_pio.MoteOptionError, match="set custom_mote_board"):
        mote_pio.mote_board_for("esp32", None, boards)
    with pytest.raises(mote_pio.MoteOptionError, match="no such Mote board"):
        mote_pio.mote_board_for("rp2350", "pico3", boards)
    # Every board the table maps to exists.
    assert set(mote_pio.MCU_TO_BOARD.values()) <= set(boards)


def test_read_options(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "c.npz").write_bytes(b"npz")
    ini = {"model": "m.py", "int8": "yes", "selftest": "2", "calib": "c.npz"}
    o = mote_pio.read_options(ini.get, tmp_path, "mps2-an505")
    assert (o.model, o.board, o.int8, o.selftest, o.calib, o.port) == \
        ((tmp_path / "m.py").resolve(), "mps2-an505", True, 2, (tmp_path / "c.npz").resolve(), None)
    assert o.generate_args(Path("/o")) == ["generate", str(o.model), "--board", "mps2-an505", "--int8",
                                           "--calib", str(o.calib), "--selftest", "2", "-o", "/o"]
    o = mote_pio.read_options({"model": "m.py", "selftest": "yes", "port": "no"}.get, tmp_path, "rp2350")
    assert (o.board, o.int8, o.selftest, o.calib, o.port) == ("pico2", False, 4, None, False)
    assert "--selftest" in o.generate_args(Path("/o")) and "--int8" not in o.generate_args(Path("/o"))
    assert mote_pio.read_options({"model": "m.py", "selftest": "no"}.get, tmp_path, "rp2350").selftest == 0
    with pytest.raises(mote_pio.MoteOptionError, match="custom_mote_model is not set"):
        mote_pio.read_options({}.get, tmp_path, "mps2-an505")
    with pytest.raises(mote_pio.MoteOptionError, match="file not found"):
        mote_pio.read_options({"model": "nope.py"}.get, tmp_path, "mps2-an505")
    with pytest.raises(mote_pio.MoteOptionError, match="custom_mote_int8 = maybe"):
        mote_pio.read_options({"model": "m.py", "int8": "maybe"}.get, tmp_path, "mps2-an505")
    with pytest.raises(mote_pio.MoteOptionError, match="custom_mote_selftest = lots"):
        mote_pio.read_options({"model": "m.py", "selftest": "lots"}.get, tmp_path, "mps2-an505")


def test_custom_mote_options_go_to_aot_generate_as_they_are(tmp_path):
    """custom_mote_options: any aot generate option, split as a shell would, after the specific
    ones; aot generate's own parser (the Recipe's) reads them all, so they are in the cache key."""
    (tmp_path / "m.py").write_text("x = 1\n")
    ini = {"model": "m.py", "int8": "yes", "options": "--int4-weights --group-size 64  --external-weights"}
    o = mote_pio.read_options(ini.get, tmp_path, "mps2-an505")
    assert o.options == ["--int4-weights", "--group-size", "64", "--external-weights"]
    args = o.generate_args(Path("/o"))
    assert args == ["generate", str(o.model), "--board", "mps2-an505", "--int8", "--int4-weights",
                    "--group-size", "64", "--external-weights", "-o", "/o"]
    from aot.compiler.recipe import Recipe
    from aot.deploy.target import build_target
    r = Recipe.from_options(args[4:-2], build_target("mps2-an505"))
    assert (r.int8, r.int4_weights, r.external_weights, r.int4_linear) == (True, 64, True, True)
    plain = mote_pio.read_options({"model": "m.py", "int8": "yes"}.get, tmp_path, "mps2-an505")
    assert mote_pio.cache_key(o) != mote_pio.cache_key(plain)
    with pytest.raises(mote_pio.MoteOptionError, match="custom_mote_options = --calib 'x: No closing quotation"):
        mote_pio.read_options({"model": "m.py", "options": "--calib 'x"}.get, tmp_path, "mps2-an505")


def test_a_bad_custom_mote_memory_is_aot_s_one_line(tmp_path):
    """custom_mote_memory = bogus: the aot generate the script runs answers in one line (the
    script shows aot's output as is), not argparse's usage block first."""
    for f in ("kws.py", "image.py"):
        (tmp_path / f).write_text("x = 1\n")
    o = mote_pio.read_options({"model": "kws=kws.py, image=image.py", "memory": "bogus"}.get, tmp_path, "mps2-an505")
    r = subprocess.run(mote_pio.aot_command(sys.executable) + o.generate_args(tmp_path / "gen"), capture_output=True,
                       text=True, cwd=tmp_path, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 2 and r.stdout == "" and r.stderr == (
        "aot generate: error: argument --memory: invalid choice: 'bogus' (choose from 'shared', 'separate')\n")


def test_several_models_in_custom_mote_model(tmp_path):
    """custom_mote_model lists several models (a line or comma separated, each `path.py` or
    `name=path.py`): one aot generate of them all, with custom_mote_memory; one model
    without a name is today's command, and custom_mote_memory is refused for it."""
    for f in ("kws.py", "image.py", "sub/other.py"):
        (tmp_path / f).parent.mkdir(exist_ok=True)
        (tmp_path / f).write_text("x = 1\n")
    kws, image, other = ((tmp_path / f).resolve() for f in ("kws.py", "image.py", "sub/other.py"))
    ini = {"model": "kws=kws.py, image.py\n other = sub/other.py\n", "int8": "yes", "memory": "separate"}
    o = mote_pio.read_options(ini.get, tmp_path, "mps2-an505")
    assert o.model == kws and o.memory == "separate"
    assert o.generate_args(Path("/o")) == ["generate", f"kws={kws}", str(image), f"other={other}",
                                           "--board", "mps2-an505", "--int8", "--memory", "separate",
                                           "-o", "/o"]
    k0 = mote_pio.cache_key(o)
    (tmp_path / "sub" / "helper.py").write_text("SCALE = 2\n")  # beside the third model: in the key
    assert mote_pio.cache_key(o) != k0
    one = mote_pio.read_options({"model": "kws.py"}.get, tmp_path, "mps2-an505")
    assert one.models == [] and one.generate_args(Path("/o")) == ["generate", str(kws), "--board",
                                                                  "mps2-an505", "-o", "/o"]
    named = mote_pio.read_options({"model": "kws=kws.py"}.get, tmp_path, "mps2-an505")
    assert named.generate_args(Path("/o"))[:2] == ["generate", f"kws={kws}"]
    with pytest.raises(mote_pio.MoteOptionError, match="custom_mote_memory = shared: it chooses how several "
                                                       "models share RAM"):
        mote_pio.read_options({"model": "kws.py", "memory": "shared"}.get, tmp_path, "mps2-an505")
    with pytest.raises(mote_pio.MoteOptionError, match=r"custom_mote_model = nope\.py: file not found"):
        mote_pio.read_options({"model": "kws=kws.py, image=nope.py"}.get, tmp_path, "mps2-an505")
    with pytest.raises(mote_pio.MoteOptionError, match="custom_mote_model is not set"):
        mote_pio.read_options({"model": " , \n"}.get, tmp_path, "mps2-an505")


def test_cache_key_follows_contents_only(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    model = tmp_path / "m.py"
    model.write_text("WIDTH = 8\n")
    calib = tmp_path / "c.npz"
    calib.write_bytes(b"one")
    opts = mote_pio.read_options({"model": "m.py", "int8": "yes", "calib": "c.npz"}.get, tmp_path,
                                 "mps2-an505")
    k0 = mote_pio.cache_key(opts)
    assert re.fullmatch(r"[0-9a-f]{64}", k0)
    os.utime(model, (1, 1))  # a touch is not a change
    assert mote_pio.cache_key(opts) == k0
    model.write_text("WIDTH = 12\n")
    k1 = mote_pio.cache_key(opts)
    assert k1 != k0
    calib.write_bytes(b"two")
    k2 = mote_pio.cache_key(opts)
    assert k2 not in (k0, k1)
    (tmp_path / "helper.py").write_text("SCALE = 2\n")  # what the model file may import
    k3 = mote_pio.cache_key(opts)
    assert k3 not in (k0, k1, k2)
    opts.int8 = False
    assert mote_pio.cache_key(opts) not in (k0, k1, k2, k3)
    opts.int8 = True
    opts.board = "mps3-an547"
    assert mote_pio.cache_key(opts) != k3
    opts.board = "mps2-an505"
    assert mote_pio.cache_key(opts) == k3
    # The output folder is not an input.
    assert mote_pio.cache_key(opts) == mote_pio.cache_key(opts)
    # SOURCE_DATE_EPOCH is (the build date in a pico/pico2 image's binary info), when it is set.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796601600")
    k4 = mote_pio.cache_key(opts)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796688000")
    assert k4 not in (k3, mote_pio.cache_key(opts))
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert mote_pio.cache_key(opts) == k3
    # Mote's compiler is: the key covers aot/**/*.py and boards/*.json.
    files = mote_pio.compiler_files()
    assert ROOT / "aot" / "deploy" / "generate.py" in files
    assert ROOT / "boards" / "mps2-an505.json" in files


def test_find_python_explains_how_to_install(tmp_path):
    py, where = mote_pio.find_python(None, PYTHON)
    assert where == "the Python that runs PlatformIO" and py == PYTHON
    bogus = tmp_path / "python-without-aot"
    bogus.write_text("#!/bin/sh\nexit 1\n")
    bogus.chmod(0o755)
    with pytest.raises(mote_pio.MoteSetupError) as e:
        mote_pio.find_python(str(bogus), PYTHON)
    msg = str(e.value)
    assert "cannot find Mote's `aot` compiler" in msg and "custom_mote_python" in msg
    assert f"-m pip install torch==2.13.0 -e {mote_pio.MOTE_ROOT}" in msg


def test_sources_helpers():
    a, b, c = Path("/r/kernels/a.c"), Path("/r/kernels/b.c"), Path("/r/runtime/src/c.c")
    assert mote_pio.group_by_dir([a, c, b]) == {Path("/r/kernels"): ["a.c", "b.c"],
                                                Path("/r/runtime/src"): ["c.c"]}
    assert mote_pio.cppdefines({"NDEBUG": None, "MOTE_KERNELS_INT32": 0}) == ["NDEBUG",
                                                                             ("MOTE_KERNELS_INT32", 0)]
    assert mote_pio.libs_of(["-lm", "-lc", "-lgcc"]) == ["m", "c", "gcc"]
    srcs = mote_pio.MoteSources(board="b", sources=[], kernel_sources=[], defines={}, cflags=[],
                                arch_flags=[], include_dirs=[Path("/g"), Path("/m/runtime/include"),
                                                             Path("/m/kernels")])
    assert srcs.root == Path("/m")


def test_platform_boards_match_mote_boards():
    """Each board of the local platform is the Mote board of the same name:
    core, FPU, float ABI, QEMU machine, flash and RAM sizes."""
    names = sorted(p.stem for p in (PLATFORM / "boards").glob("*.json"))
    assert names == ["mps2-an385", "mps2-an386", "mps2-an500", "mps2-an505", "mps3-an547"]
    for name in names:
        pio = json.loads((PLATFORM / "boards" / f"{name}.json").read_text())
        mote = json.loads((ROOT / "boards" / f"{name}.json").read_text())
        b = pio["build"]
        assert b["mcu"] == name and mote_pio.mote_board_for(b["mcu"]) == name
        assert b["cpu"] == mote["mcpu"]
        assert b.get("fpu") == mote.get("mfpu"), name
        assert b["float_abi"] == mote["mfloat_abi"]
        assert int(b["f_cpu"].rstrip("L")) == mote["clock_hz"]
        assert pio["upload"]["qemu_machine"] == mote["simulator"]["machine"]
        assert pio["upload"]["maximum_size"] == int(mote["flash"]["size"], 16)
        assert pio["upload"]["maximum_ram_size"] == int(mote["ram"]["size"], 16)
        assert pio["upload"]["protocol"] == "qemu"


def test_platform_board_files_are_generated_from_mote_boards():
    """integrations/platformio/platform/boards/*.json are exactly what mote_pio.platform_boards
    makes of boards/*.json (one home: the board file); regenerate with
    `.venv/bin/python scripts/platformio_setup.py --boards`."""
    committed = {p.name: p.read_text() for p in (PLATFORM / "boards").glob("*.json")}
    assert committed == mote_pio.platform_boards(ROOT), \
        "run .venv/bin/python scripts/platformio_setup.py --boards and commit the boards"


def test_platform_board_follows_an_edited_board(tmp_path):
    """A change to a board file reaches its PlatformIO board; a board that is gone
    leaves, one of another platform (micro:bit) never enters."""
    (tmp_path / "boards").mkdir()
    for name in ("mps2-an505", "microbit"):
        (tmp_path / "boards" / f"{name}.json").write_text((ROOT / "boards" / f"{name}.json").read_text())
    board = json.loads((tmp_path / "boards" / "mps2-an505.json").read_text())
    board["clock_hz"], board["flash"]["size"] = 25_000_000, "0x200000"
    (tmp_path / "boards" / "mps2-an505.json").write_text(json.dumps(board))
    stale = tmp_path / "integrations" / "platformio" / "platform" / "boards" / "gone.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    written = mote_pio.write_platform_boards(tmp_path)
    assert [p.name for p in written] == ["mps2-an505.json"] and not stale.exists()
    pio = json.loads(written[0].read_text())
    assert pio["build"]["f_cpu"] == "25000000L" and pio["upload"]["maximum_size"] == 0x200000
    assert pio["name"] == "Arm MPS2+ AN505 (Cortex-M33, QEMU)"
    assert mote_pio.write_platform_boards(tmp_path) == []  # unchanged files are not rewritten


def test_manifests_parse_as_platformio_reads_them():
    from platformio.package.manifest.parser import ManifestParserFactory
    lib = ManifestParserFactory.new_from_file(str(ROOT / "library.json")).as_dict()
    assert lib["name"] == "Mote" and lib["frameworks"] == ["*"]
    assert lib["build"]["extraScript"] == "integrations/platformio/extra_script.py"
    assert (ROOT / lib["build"]["extraScript"]).is_file()
    assert lib["build"]["srcFilter"] == ["-<*>"]  # the extraScript adds every source
    plat = ManifestParserFactory.new_from_file(str(PLATFORM / "platform.json")).as_dict()
    assert plat["name"] == "mote-qemu"
    assert plat["packages"]["toolchain-gccarmnoneeabi"]["type"] == "toolchain"
    # PlatformIO finds the platform class by the platform's name.
    from platformio.platform.factory import PlatformFactory
    assert PlatformFactory.get_clsname(plat["name"]) == "MoteqemuPlatform"
    assert "class MoteqemuPlatform(PlatformBase)" in (PLATFORM / "platform.py").read_text()


def test_setup_version_arithmetic():
    setup = _load_setup()
    from platformio.dependencies import get_core_dependencies
    req = get_core_dependencies()["tool-scons"]
    assert setup.scons_version_for("~4.41101.0") == "4.11.1"
    assert setup.scons_version_for("~4.40801.0") == "4.8.1"
    assert re.fullmatch(r"\d+\.\d+\.\d+", setup.scons_version_for(req))
    assert setup.gcc_package_version("12.2.1\n") == "1.120201.0"
    assert setup.gcc_package_version("13.3") == "1.130300.0"


# --------------------------------------------------------------------------- slow: PlatformIO + QEMU


@pytest.fixture(scope="module")
def pio_env():
    """The offline set-up (idempotent), as `make platformio-example` does it."""
    if importlib.util.find_spec("platformio") is None:
        pytest.fail("the platformio package is missing from this Python: run `make bootstrap` "
                    "(pyproject.toml dev extras pin platformio)")
    proc = subprocess.run([PYTHON, str(SETUP)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    core = proc.stdout.strip().splitlines()[-1].split("=", 1)[1]
    assert Path(core) == ROOT / "build" / "platformio" / "core"
    assert (Path(core) / "packages" / "tool-scons" / "scons.py").is_file()
    env = dict(os.environ, PLATFORMIO_CORE_DIR=core, PLATFORMIO_DISABLE_UPGRADE_CHECK="true")
    env.pop("PLATFORMIO_WORKSPACE_DIR", None)
    env.pop("PLATFORMIO_BUILD_DIR", None)
    return env


@pytest.fixture(scope="module")
def project(tmp_path_factory, pio_env):
    """A copy of the example outside the checkout; its model a copy in another folder."""
    base = tmp_path_factory.mktemp("pio")
    proj = base / "app"
    shutil.copytree(EXAMPLE, proj, ignore=shutil.ignore_patterns(".pio", "README.md", "model.py"))
    models = base / "models"
    models.mkdir()
    shutil.copy(EXAMPLE / "model.py", models / "gesture.py")
    ini = (proj / "platformio.ini").read_text()
    assert re.search(r"^custom_mote_model = model\.py$", ini, re.M), ini
    assert re.search(r"^lib_deps = symlink://\.\./\.\./\.\.$", ini, re.M), ini
    ini = re.sub(r"^custom_mote_model = .*$", "custom_mote_model = ../models/gesture.py", ini, flags=re.M)
    ini = re.sub(r"^lib_deps = .*$", f"lib_deps = symlink://{ROOT}", ini, flags=re.M)
    (proj / "platformio.ini").write_text(ini)
    return proj, models / "gesture.py"


def _upload(proj: Path, env: dict):
    proc = subprocess.run([PYTHON, "-m", "platformio", "run", "-d", str(proj), "-t", "upload"],
                          capture_output=True, text=True, env=env, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def _gen(proj: Path) -> Path:
    return proj / ".pio" / "build" / "mps2-an505" / "mote" / "gen"


def _mtimes(folder: Path) -> dict:
    return {p.relative_to(folder): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def _compiled(log: str) -> list[str]:
    return re.findall(r"^Compiling \.pio/build/mps2-an505/(\S+)$", log, re.M)


@pytest.mark.slow
@pytest.mark.sim
def test_example_builds_runs_in_qemu_and_passes_selftest(project, pio_env):
    proj, _ = project
    code, log = _upload(proj, pio_env)
    assert code == 0, log[-6000:]
    assert re.search(r"^mote: aot generate \S+gesture\.py \(board mps2-an505, int8, self-test 4 case\(s\); "
                     r"hash [0-9a-f]{16}; aot from ", log, re.M), log[-6000:]
    assert re.search(r"^program \(\.pte\)\s+[\d,]+\s*$", log, re.M), "size table missing:\n" + log[-4000:]
    assert PASS_RE.search(log), log[-4000:]
    assert len(re.findall(r"^MOTE SELFTEST CASE case=\d output=0 .* result=PASS$", log, re.M)) == 4
    assert re.search(r"^app: inference in \d+ ticks: class [0-3] of 4 ", log, re.M), log[-3000:]
    assert "mote: firmware exited with status 0" in log
    compiled = _compiled(log)
    # The generated files, the runtime, the program's kernels (cmsis/ int8 on the M33), the port, main.c.
    for obj in ("mote/obj/gen/model_pte.o", "mote/obj/gen/registry.o", "mote/obj/gen/model_selftest.o",
                "mote/obj/runtime/src/program.o", "mote/obj/runtime/embed/mote_model.o",
                "mote/obj-O2/cmsis/op_mote_conv2d_s8.o", "mote/obj-port/ports/cortex-m/startup.o",
                "mote/obj-port/ports/qemu/uart_cmsdk.o", "src/main.o"):
        assert obj in compiled, (obj, compiled)
    assert not any("op_convolution" in c for c in compiled), compiled  # fp32 kernel not needed
    sources = json.loads((_gen(proj) / "mote_sources.json").read_text())
    assert sources["board"] == "mps2-an505" and sources["int8"] is True
    assert len(compiled) == len(sources["sources"]) + len(sources["port"]["sources"]) + 1


@pytest.mark.slow
@pytest.mark.sim
def test_second_run_regenerates_and_recompiles_nothing(project, pio_env):
    proj, _ = project
    gen = _gen(proj)
    before = _mtimes(gen)
    elf = proj / ".pio" / "build" / "mps2-an505" / "program.elf"
    elf_mtime = elf.stat().st_mtime_ns
    assert (gen / "model_pte.c") in [gen / p for p in before]
    code, log = _upload(proj, pio_env)
    assert code == 0, log[-6000:]
    key = (gen.parent / "inputs.sha256").read_text().strip()
    assert re.search(r"^mote: generated sources up to date \(hash %s\)$" % key[:16], log, re.M), log[-4000:]
    assert "mote: aot generate" not in log
    assert _compiled(log) == [] and "Linking" not in log, log[-4000:]
    assert _mtimes(gen) == before  # model_pte.c and every generated file untouched
    assert elf.stat().st_mtime_ns == elf_mtime
    assert PASS_RE.search(log), log[-4000:]


@pytest.mark.slow
@pytest.mark.sim
def test_repeated_script_loads_add_the_sources_once(project, pio_env):
    """A second builder of the library in one environment (here a second copy
    of it in the project's lib/) runs the extraScript again: no second
    generate, no duplicate objects, the same firmware."""
    proj, _ = project
    (proj / "lib").mkdir(exist_ok=True)
    link = proj / "lib" / "mote-again"
    link.symlink_to(ROOT, target_is_directory=True)
    try:
        code, log = _upload(proj, pio_env)
    finally:
        link.unlink()
    assert code == 0, log[-6000:]
    assert "Found 2 compatible libraries" in log
    assert log.count("mote: generated sources up to date") == 1
    assert "mote: library builder 2 of this environment: sources already added, flags only" in log
    assert "mote: aot generate" not in log and _compiled(log) == [], log[-4000:]
    assert PASS_RE.search(log), log[-4000:]


@pytest.mark.slow
@pytest.mark.sim
def test_broken_model_fails_the_build_and_keeps_no_cache_key(project, pio_env):
    proj, model = project
    gen = _gen(proj)
    src = model.read_text()
    model.write_text(src + "\nraise RuntimeError('broken on purpose')\n")
    try:
        code, log = _upload(proj, pio_env)
    finally:
        model.write_text(src)
    assert code != 0, log[-3000:]
    assert "mote: error: aot generate failed (exit 1)" in log, log[-3000:]
    assert "broken on purpose" in log
    assert not (gen.parent / "inputs.sha256").exists()  # the next build generates again
    assert "MOTE SELFTEST" not in log and "Linking" not in log


@pytest.mark.slow
@pytest.mark.sim
def test_model_change_regenerates_and_still_passes(project, pio_env):
    proj, model = project
    gen = _gen(proj)
    old_key = mote_pio.cache_key(mote_pio.read_options(
        {"model": str(model), "int8": "yes", "selftest": "yes"}.get, proj, "mps2-an505"))
    old_pte = (gen / "model.pte").read_bytes()
    src = model.read_text()
    assert "CHANNELS = 16" in src
    model.write_text(src.replace("CHANNELS = 16", "CHANNELS = 12"))
    code, log = _upload(proj, pio_env)
    assert code == 0, log[-6000:]
    new_key = (gen.parent / "inputs.sha256").read_text().strip()
    assert new_key != old_key
    assert re.search(r"^mote: aot generate .*hash %s;" % new_key[:16], log, re.M), log[-4000:]
    assert (gen / "model.pte").read_bytes() != old_pte
    compiled = set(_compiled(log))
    assert "mote/obj/gen/model_pte.o" in compiled and "mote/obj/gen/model_selftest.o" in compiled
    # the embedding API reads mote_model.h's sizes (SCons sees its literal #include)
    assert "mote/obj/runtime/embed/mote_model.o" in compiled, compiled
    # Only what reads the generated files; the runtime core and the kernels stay built.
    assert "mote/obj/runtime/src/program.o" not in compiled
    assert not any(c.startswith(("mote/obj-O2/", "mote/obj-port/")) for c in compiled), compiled
    assert PASS_RE.search(log), log[-4000:]
    assert "mote: firmware exited with status 0" in log


@pytest.mark.slow
@pytest.mark.sim
def test_upload_fails_with_the_firmware_exit_status(project, pio_env):
    proj, _ = project
    main_c = proj / "src" / "main.c"
    src = main_c.read_text()
    assert src.rstrip().endswith("return 0;\n}".rstrip())
    main_c.write_text(src[: src.rindex("return 0;")] + "return 3;\n}\n")
    try:
        code, log = _upload(proj, pio_env)
    finally:
        main_c.write_text(src)
    assert code != 0, log[-3000:]
    assert PASS_RE.search(log)  # the self-test still ran; the app's own status fails the upload
    assert "mote: firmware exited with status 3" in log, log[-3000:]
    assert "mote: generated sources up to date" in log
    assert _compiled(log) == ["src/main.o"], _compiled(log)


@pytest.mark.slow
@pytest.mark.sim
def test_custom_mote_options_reach_the_generated_program(pio_env, tmp_path):
    """custom_mote_options hands aot generate what only the command line had: int16
    activations and external weights (model_ptd.c, attached by mote_model_init())."""
    proj = tmp_path / "app"
    shutil.copytree(EXAMPLE, proj, ignore=shutil.ignore_patterns(".pio", "README.md"))
    ini = (proj / "platformio.ini").read_text()
    ini = re.sub(r"^lib_deps = .*$", f"lib_deps = symlink://{ROOT}", ini, flags=re.M)
    (proj / "platformio.ini").write_text(ini + "custom_mote_options = --int16-activations --external-weights\n")
    code, log = _upload(proj, pio_env)
    assert code == 0, log[-6000:]
    assert re.search(r"^mote: aot generate \S+model\.py \(board mps2-an505, int8, self-test 4 case\(s\), "
                     r"--int16-activations --external-weights; hash ", log, re.M), log[-6000:]
    ops = {op["name"].split(".")[0] for op in json.loads((_gen(proj) / "ops.json").read_text())["ops"]}
    assert {"mote::conv2d_s16", "mote::linear_s16"} <= ops, ops
    assert "mote/obj/gen/model_ptd.o" in _compiled(log), _compiled(log)
    assert PASS_RE.search(log), log[-4000:]


@pytest.mark.slow
@pytest.mark.sim
def test_two_models_build_and_run_in_qemu(pio_env, tmp_path):
    """custom_mote_model with two models (a line each, NAME=path) and custom_mote_memory =
    separate: examples/cmake-models' main.c and models in a PlatformIO project; both
    self-tests pass and each model's result is the host runtime's."""
    from test_cmake_models import EXAMPLE as MODELS, expected_lines
    proj = tmp_path / "app"
    (proj / "src").mkdir(parents=True)
    shutil.copy(MODELS / "main.c", proj / "src" / "main.c")
    for f in ("kws.py", "image.py"):
        shutil.copy(MODELS / f, proj / f)
    (proj / "platformio.ini").write_text(
        f"[env:mps2-an505]\nplatform = mote-qemu\nboard = mps2-an505\nlib_deps = symlink://{ROOT}\n"
        "custom_mote_model =\n    kws=kws.py\n    image=image.py\ncustom_mote_memory = separate\n"
        "custom_mote_int8 = yes\ncustom_mote_selftest = 2\n")
    code, log = _upload(proj, pio_env)
    assert code == 0, log[-6000:]
    assert re.search(r"^mote: aot generate kws=\S+/kws\.py image=\S+/image\.py \(board mps2-an505, int8, "
                     r"self-test 2 case\(s\), memory separate; hash ", log, re.M), log[-6000:]
    gen = _gen(proj)
    sources = json.loads((gen / "mote_sources.json").read_text())
    assert sources["memory"] == "separate" and [m["name"] for m in sources["models"]] == ["kws", "image"]
    compiled = _compiled(log)
    for obj in ("mote/obj/gen/registry.o", "mote/obj/gen/kws/mote_embed_kws.o",
                "mote/obj/gen/image/mote_embed_selftest_image.o", "src/main.o"):
        assert obj in compiled, (obj, compiled)
    assert "mote/obj/runtime/embed/mote_model.o" not in compiled  # compiled per model, through the wrappers
    assert "app: 2 models, memory separate" in log, log[-4000:]
    assert re.findall(r"^MOTE SELFTEST PASS n=2 max_abs_err=0 model=(\w+)$", log, re.M) == ["kws", "image"], \
        log[-4000:]
    for line in expected_lines(gen):
        assert line in log, (line, log[-4000:])
    assert "mote: firmware exited with status 0" in log


@pytest.mark.slow
def test_pico_project_image_carries_the_binary_info(pio_env, tmp_path):
    """A Pico (RP2040) environment: Mote's local platform with the board's core
    overridden to the Pico's (board_build.mcu = rp2040 -> Mote board pico,
    board_build.cpu = cortex-m0plus) and Mote's port, standing in for the community
    Raspberry Pi platform, which comes only from PlatformIO's registry. Its image
    carries the binary info `aot build` gives the model (`picotool info -a`), read
    back from PlatformIO's ELF and from the UF2 of its program.bin."""
    from importlib.metadata import version
    from aot.deploy import binary_info as bi
    from aot.deploy.boards import load_board
    from aot.deploy.uf2 import bin_to_uf2
    proj = tmp_path / "app"
    shutil.copytree(EXAMPLE, proj, ignore=shutil.ignore_patterns(".pio", "README.md", "platformio.ini"))
    (proj / "platformio.ini").write_text(
        "[env:pico]\nplatform = mote-qemu\nboard = mps2-an385\nboard_build.mcu = rp2040\n"
        f"board_build.cpu = cortex-m0plus\nlib_deps = symlink://{ROOT}\ncustom_mote_model = model.py\n"
        "custom_mote_int8 = yes\ncustom_mote_selftest = 2\n")
    env = dict(pio_env, SOURCE_DATE_EPOCH="1796601600")  # 2026-12-07
    proc = subprocess.run([PYTHON, "-m", "platformio", "run", "-d", str(proj)], capture_output=True, text=True,
                          env=env, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert re.search(r"^mote: aot generate \S+model\.py \(board pico, int8, self-test 2 case\(s\); ", log, re.M)
    assert "mote: bare-metal port for pico: " in log, log[-4000:]
    out = proj / ".pio" / "build" / "pico"
    sources = json.loads((out / "mote" / "gen" / "mote_sources.json").read_text())
    assert sources["board"] == "pico" and "-mcpu=cortex-m0plus" in sources["arch_flags"]
    board = load_board("pico")
    image = (out / "program.bin").read_bytes()
    expected = {
        "program name": f"mote {sources['model']}", "version": version("mote-aot"), "build date": "2026-12-07",
        "description": f"Mote model {sources['model']}, int8, arena {sum(sources['memory']['arena_bytes'])} bytes",
        "binary end": f"0x{board.flash.origin + len(image):08x}",
        "pins": {f"GP{board.uart.pins['tx_pin']}": "UART0 TX", f"GP{board.uart.pins['rx_pin']}": "UART0 RX"}}
    assert sources["model"] == "app" and expected["pins"] == {"GP0": "UART0 TX", "GP1": "UART0 RX"}
    from_uf2 = bi.read_uf2(bin_to_uf2(image, board.flash.origin, board.uf2_family_id))
    from_elf = bi.read_elf(out / "program.elf", "RP2040")
    assert from_uf2.summary() == expected and from_elf == from_uf2
    # the extra script's post-build action: program.uf2 beside the ELF, `aot uf2`'s bytes
    assert "mote: UF2 for pico (family 0xe48bff56): program.uf2 beside the ELF after each link" in log, log[-4000:]
    made = tmp_path / "made.uf2"
    subprocess.run([PYTHON, "-m", "aot", "uf2", out / "program.elf", "--board", "pico", "-o", made], check=True,
                   capture_output=True)
    assert (out / "program.uf2").read_bytes() == made.read_bytes() == bin_to_uf2(image, board.flash.origin,
                                                                                   board.uf2_family_id)


@pytest.mark.slow
@pytest.mark.sim
def test_in_tree_example_with_the_readme_command(pio_env, tmp_path):
    """Exactly `pio run -d examples/platformio/qemu-an505 -t upload` from the
    repository root (as `make platformio-example` runs it), its .pio folder kept
    out of the checkout through PLATFORMIO_WORKSPACE_DIR."""
    env = dict(pio_env, PLATFORMIO_WORKSPACE_DIR=str(tmp_path / "ws"))
    proc = subprocess.run([str(Path(PYTHON).parent / "pio"), "run", "-d", "examples/platformio/qemu-an505",
                           "-t", "upload"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert PASS_RE.search(log), log[-4000:]
    assert not (EXAMPLE / ".pio").exists()
