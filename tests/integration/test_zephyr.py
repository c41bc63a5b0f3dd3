"""Mote as a Zephyr module, checked without a Zephyr tree (none installs here).

What runs:
  - zephyr/module.yml against the fields Zephyr's module documentation
    describes (a validator written from those facts, tested on bad files too);
  - integrations/zephyr/Kconfig with kconfiglib, over explicit STUBS of the Zephyr symbols
    it refers to (tests/integration/zephyr_standin/Kconfig.stubs): types,
    defaults per board (MOTE_BOARD, the DSP/MVE symbols), refused assignments;
  - the west manifest fragment with west's own manifest parser;
  - examples/zephyr/digits/sample.yaml (twister's console harness) and the port
    (ports/zephyr) compiled for the M33 against stand-in declarations;
  - slow: the module's CMake under the Zephyr stand-in
    (tests/integration/zephyr_standin: a fake Zephyr CMake package, not
    Zephyr): `aot generate` runs at build time and every source compiles with
    arm-none-eabi-gcc for rpi_pico2/rp2350a/m33 (DSP path) and
    mps3/corstone300/an547 (MVE path); mps2/an521/cpu0 is also linked with a
    stand-in kernel over Mote's bare-metal port and run in QEMU.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
STANDIN = ROOT / "tests" / "integration" / "zephyr_standin"
SAMPLE = ROOT / "examples" / "zephyr" / "digits"
PYTHON = sys.executable
BOARDS = ("rpi_pico2/rp2350a/m33", "mps2/an521/cpu0", "mps3/corstone300/an547")

sys.path.insert(0, str(STANDIN / "scripts"))
import standin_kconfig  # noqa: E402


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n"
                                  f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


# --------------------------------------------------------------------------- module.yml

#: The fields of zephyr/module.yml as Zephyr's module documentation describes them
#: ("Module yaml file description": name, build (in-module files, sysbuild, external
#: files, depends, settings), samples/tests/boards for twister, blobs, security;
#: package-managers for `west packages`).
MODULE_TOP = {"name": str, "build": dict, "samples": list, "tests": list, "boards": list,
              "blobs": list, "security": dict, "package-managers": dict}
MODULE_BUILD = {"cmake": str, "kconfig": str, "cmake-ext": bool, "kconfig-ext": bool,
                "sysbuild-cmake": str, "sysbuild-kconfig": str, "sysbuild-cmake-ext": bool,
                "sysbuild-kconfig-ext": bool, "depends": list, "settings": dict}
MODULE_SETTINGS = ("board_root", "dts_root", "snippet_root", "soc_root", "arch_root",
                   "module_ext_root", "sca_root")
MODULE_BLOB = {"path", "sha256", "type", "version", "license-path", "url", "description", "doc-url"}


def module_yml_errors(meta, root: Path) -> list:
    """What is wrong with a parsed module.yml for the module at `root` (empty: valid)."""
    errs = []
    if not isinstance(meta, dict):
        return ["module.yml is not a mapping"]
    for key, val in meta.items():
        if key not in MODULE_TOP:
            errs.append(f"unknown top-level field {key!r}")
        elif not isinstance(val, MODULE_TOP[key]):
            errs.append(f"{key}: expected {MODULE_TOP[key].__name__}")
    name = meta.get("name")
    if isinstance(name, str) and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        errs.append(f"name {name!r}: not a usable module name")
    build = meta.get("build") if isinstance(meta.get("build"), dict) else {}
    for key, val in build.items():
        if key not in MODULE_BUILD:
            errs.append(f"unknown build field {key!r}")
        elif not isinstance(val, MODULE_BUILD[key]):
            errs.append(f"build.{key}: expected {MODULE_BUILD[key].__name__}")
    if isinstance(build.get("cmake"), str) and not (root / build["cmake"] / "CMakeLists.txt").is_file():
        errs.append(f"build.cmake: no CMakeLists.txt in {build['cmake']}")
    if isinstance(build.get("kconfig"), str) and not (root / build["kconfig"]).is_file():
        errs.append(f"build.kconfig: no file {build['kconfig']}")
    for key in ("depends",):
        if isinstance(build.get(key), list) and not all(isinstance(d, str) for d in build[key]):
            errs.append(f"build.{key}: expected module names")
    settings = build.get("settings") if isinstance(build.get("settings"), dict) else {}
    for key, val in settings.items():
        if key not in MODULE_SETTINGS:
            errs.append(f"unknown build.settings field {key!r}")
        elif not isinstance(val, str) or not (root / val).is_dir():
            errs.append(f"build.settings.{key}: {val!r} is not a folder of the module")
    for key in ("samples", "tests", "boards"):
        for d in meta.get(key) or []:
            if not isinstance(d, str) or not (root / d).is_dir():
                errs.append(f"{key}: {d!r} is not a folder of the module")
    for blob in meta.get("blobs") or []:
        if not isinstance(blob, dict) or not set(blob) <= MODULE_BLOB:
            errs.append(f"blobs: bad entry {blob!r}")
    return errs


def test_module_yml_has_only_documented_fields_and_its_paths_exist():
    meta = yaml.safe_load((ROOT / "zephyr" / "module.yml").read_text())
    assert module_yml_errors(meta, ROOT) == []
    assert meta["name"] == "mote"
    assert meta["build"] == {"cmake": "integrations/zephyr", "kconfig": "integrations/zephyr/Kconfig"}
    assert meta["samples"] == ["examples/zephyr"]


@pytest.mark.parametrize("meta, fragment", [
    ({"name": "mote", "biuld": {}}, "unknown top-level field 'biuld'"),
    ({"name": "mote", "build": {"cmake": "nowhere"}}, "no CMakeLists.txt in nowhere"),
    ({"name": "mote", "build": {"kconfig": "zephyr/Kconfig.missing"}}, "no file"),
    ({"name": "mote", "build": {"cmake-ext": "yes"}}, "build.cmake-ext: expected bool"),
    ({"name": "mote", "build": {"settings": {"board_roots": "."}}}, "unknown build.settings field"),
    ({"name": "mote", "samples": ["samples/none"]}, "is not a folder"),
    ({"name": "mote lib"}, "not a usable module name"),
])
def test_module_yml_validator_rejects_what_the_documentation_does_not_allow(meta, fragment):
    errs = module_yml_errors(meta, ROOT)
    assert any(fragment in e for e in errs), errs


def test_standin_reads_the_module_like_zephyr():
    m = standin_kconfig.read_module(ROOT)
    assert m["name"] == "mote" and m["upper"] == "MOTE"
    assert m["cmake_dir"] == ROOT / "integrations" / "zephyr" and m["kconfig"] == ROOT / "integrations" / "zephyr" / "Kconfig"


# --------------------------------------------------------------------------- Kconfig

def _configure_kconfig(tmp_path: Path, board: str, conf: str):
    """Evaluate integrations/zephyr/Kconfig for `board` with prj.conf text `conf` through the
    stand-in's Kconfig step; returns (exit code, {CONFIG_name: value}, stderr)."""
    prj = tmp_path / "prj.conf"
    prj.write_text(conf)
    out = tmp_path / "zephyr"
    proc = subprocess.run([PYTHON, STANDIN / "scripts" / "standin_kconfig.py", "--board", board,
                           "--out", out, "--conf", prj, "--module", ROOT],
                          capture_output=True, text=True)
    values = {}
    if proc.returncode == 0:
        for line in (out / ".config").read_text().splitlines():
            m = re.fullmatch(r"(CONFIG_\w+)=(.*)", line)
            if m:
                values[m.group(1)] = m.group(2).strip('"')
    return proc.returncode, values, proc.stderr


def _kconfig():
    """integrations/zephyr/Kconfig under the stubs alone (no board), as kconfiglib sees it."""
    import os
    import kconfiglib
    os.environ["ZEPHYR_MOTE_MODULE_DIR"] = str(ROOT)
    top = Path(__file__).with_name("zephyr_standin") / "Kconfig.stubs"
    text = f'source "{top}"\nsource "{ROOT / "integrations" / "zephyr" / "Kconfig"}"\n'
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".Kconfig", delete=False) as f:
        f.write(text)
    try:
        return kconfiglib.Kconfig(f.name, warn_to_stderr=False)
    finally:
        Path(f.name).unlink()


def test_kconfig_parses_with_kconfiglib_and_defines_the_options():
    import kconfiglib
    kconf = _kconfig()
    assert kconf.warnings == []
    want = {"MOTE": kconfiglib.BOOL, "MOTE_MODEL": kconfiglib.STRING, "MOTE_INT8": kconfiglib.BOOL, "MOTE_INT8_IO": kconfiglib.BOOL,
            "MOTE_CALIB": kconfiglib.STRING, "MOTE_SELFTEST": kconfiglib.INT, "MOTE_LOG": kconfiglib.BOOL,
            "MOTE_VERIFY_CHECKSUM": kconfiglib.BOOL, "MOTE_BOARD": kconfiglib.STRING,
            "MOTE_RP2350_DSP": kconfiglib.BOOL, "MOTE_S8_FORCE_PLAIN": kconfiglib.BOOL,
            "MOTE_KERNELS_O2": kconfiglib.BOOL, "MOTE_MODEL_SECTION": kconfiglib.STRING,
            "MOTE_ABORT_PANIC": kconfiglib.BOOL, "MOTE_ABORT_REBOOT": kconfiglib.BOOL,
            "MOTE_AOT_OPTIONS": kconfiglib.STRING, "MOTE_MEMORY_SHARED": kconfiglib.BOOL,
            "MOTE_MEMORY_SEPARATE": kconfiglib.BOOL}
    got = {s.name: s.type for s in kconf.unique_defined_syms if s.name.startswith("MOTE")}
    assert got == want
    # every MOTE_* option has help text and is inside `if MOTE`
    for sym in kconf.unique_defined_syms:
        if sym.name.startswith("MOTE") and sym.name != "MOTE":
            assert sym.nodes[0].help, f"{sym.name} has no help"
            assert "MOTE" in kconfiglib.expr_str(sym.direct_dep), sym.name
    assert kconfiglib.expr_str(kconf.syms["MOTE"].direct_dep) == "CPU_CORTEX_M"


def test_kconfig_refers_only_to_known_zephyr_symbols():
    """Every non-MOTE symbol integrations/zephyr/Kconfig names is a stub (Kconfig.stubs) or a
    board/SoC symbol of Zephyr's hardware model listed here (defined by Zephyr
    only for the board being built), so a typo cannot hide as 'undefined = n'."""
    kconf = _kconfig()
    board_syms = {"BOARD_RPI_PICO2", "BOARD_MPS2_AN521_CPU0", "BOARD_MPS2_AN521_CPU0_NS",
                  "BOARD_MPS2_AN521_CPU1", "BOARD_MPS3_CORSTONE300_AN547",
                  "BOARD_MPS3_CORSTONE300_AN547_NS", "SOC_SERIES_RP2350"}
    text = "\n".join(ln.split("#")[0] for ln in (ROOT / "integrations" / "zephyr" / "Kconfig").read_text().splitlines())
    referenced = {w for w in re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", text) if w in kconf.syms}
    assert {"CPU_CORTEX_M", "ARMV8_M_DSP", "PRINTK", "REBOOT", "BOARD_RPI_PICO2"} <= referenced
    undefined = {w for w in referenced if not kconf.syms[w].nodes and not w.startswith("MOTE")}
    assert undefined <= board_syms, sorted(undefined - board_syms)
    boards = json.loads((STANDIN / "boards.json").read_text())
    listed = {s for k, b in boards.items() if not k.startswith("_") for s in b["symbols"]}
    assert {"BOARD_RPI_PICO2", "BOARD_MPS2_AN521_CPU0", "BOARD_MPS3_CORSTONE300_AN547",
            "SOC_SERIES_RP2350"} <= listed


@pytest.mark.parametrize("board, mote_board, dsp, mvei", [
    ("rpi_pico2/rp2350a/m33", "pico2", True, False),
    ("mps2/an521/cpu0", "mps2-an505", False, False),
    ("mps3/corstone300/an547", "mps3-an547", True, True),
])
def test_kconfig_defaults_per_board(tmp_path, board, mote_board, dsp, mvei):
    rc, cfg, err = _configure_kconfig(tmp_path, board, "CONFIG_MOTE=y\nCONFIG_MOTE_MODEL=\"m.py\"\n")
    assert rc == 0, err
    assert cfg["CONFIG_MOTE_BOARD"] == mote_board
    assert ("CONFIG_ARMV8_M_DSP" in cfg) is dsp
    assert ("CONFIG_ARMV8_1_M_MVEI" in cfg) is mvei
    # the RP2350's DSP comes from MOTE_RP2350_DSP (Zephyr's RP2350 SoC does not select it)
    assert ("CONFIG_MOTE_RP2350_DSP" in cfg) is board.startswith("rpi_pico2")
    assert cfg["CONFIG_MOTE_SELFTEST"] == "0" and cfg["CONFIG_MOTE_VERIFY_CHECKSUM"] == "y"
    assert cfg["CONFIG_MOTE_MODEL_SECTION"] == ".rodata.mote_model"
    assert "CONFIG_MOTE_ABORT_PANIC" in cfg and "CONFIG_MOTE_INT8" not in cfg
    assert "CONFIG_REQUIRES_FULL_LIBC" in cfg
    assert "CONFIG_MOTE_MEMORY_SHARED" in cfg and "CONFIG_MOTE_MEMORY_SEPARATE" not in cfg


def test_kconfig_off_by_default_and_refuses_what_cannot_be(tmp_path):
    rc, cfg, _ = _configure_kconfig(tmp_path, "mps2/an521/cpu0", "")
    assert rc == 0 and "CONFIG_MOTE" not in cfg and "CONFIG_MOTE_BOARD" not in cfg
    # MOTE_LOG needs PRINTK; MOTE_CALIB needs MOTE_INT8; AN521 CPU0 has no FPU: all refused
    for conf, sym in (("CONFIG_PRINTK=n\nCONFIG_MOTE_LOG=y\n", "CONFIG_MOTE_LOG"),
                      ("CONFIG_MOTE_CALIB=\"c.npz\"\n", "CONFIG_MOTE_CALIB"),
                      ("CONFIG_MOTE_INT8_IO=y\n", "CONFIG_MOTE_INT8_IO"),
                      ("CONFIG_FPU=y\n", "CONFIG_FPU"),
                      ("CONFIG_MOTE_SELFTEST=1000\n", "CONFIG_MOTE_SELFTEST"),
                      ("CONFIG_MOTE_ABORT_REBOOT=y\n", "CONFIG_MOTE_ABORT_REBOOT"),
                      ("CONFIG_MOTE_NO_SUCH_OPTION=y\n", "MOTE_NO_SUCH_OPTION")):
        rc, _, err = _configure_kconfig(tmp_path, "mps2/an521/cpu0", "CONFIG_MOTE=y\n" + conf)
        assert rc == 1 and sym in err, (conf, err)
    rc, cfg, err = _configure_kconfig(tmp_path, "mps2/an521/cpu0",
                                      "CONFIG_MOTE=y\nCONFIG_REBOOT=y\nCONFIG_MOTE_ABORT_REBOOT=y\n"
                                      "CONFIG_MOTE_INT8=y\nCONFIG_MOTE_CALIB=\"c.npz\"\nCONFIG_MOTE_LOG=y\n")
    assert rc == 0, err
    assert cfg["CONFIG_MOTE_ABORT_REBOOT"] == "y" and cfg["CONFIG_MOTE_CALIB"] == "c.npz"
    assert "CONFIG_MOTE_ABORT_PANIC" not in cfg and cfg["CONFIG_MOTE_LOG"] == "y"


def test_sample_prj_conf_is_accepted_for_every_board(tmp_path):
    for board in BOARDS:
        d = tmp_path / board.replace("/", "_")
        d.mkdir()
        conf = (SAMPLE / "prj.conf").read_text()
        extra = SAMPLE / "boards" / (board.replace("/", "_") + ".conf")
        if extra.exists():
            conf += extra.read_text()
        rc, cfg, err = _configure_kconfig(d, board, conf)
        assert rc == 0, (board, err)
        assert cfg["CONFIG_MOTE_INT8"] == "y" and cfg["CONFIG_MOTE_SELFTEST"] == "4"
        assert cfg["CONFIG_MOTE_MODEL"] == "../../../examples/digits/model.py"
        assert (SAMPLE / cfg["CONFIG_MOTE_MODEL"]).resolve() == ROOT / "examples" / "digits" / "model.py"
        assert ("CONFIG_FPU" in cfg) is (board != "mps2/an521/cpu0")


# --------------------------------------------------------------------------- west, sample.yaml, port

def test_west_manifest_fragment_parses_with_west():
    from west.manifest import Manifest, validate
    data = yaml.safe_load((ROOT / "zephyr" / "west-mote.yml").read_text())
    validate(data)
    projects = [p for p in Manifest.from_data(data).projects if p.name != "manifest"]
    assert [(p.name, p.path, p.revision) for p in projects] == [("mote", "modules/lib/mote", "main")]
    assert projects[0].url.endswith("/mote")


def test_sample_yaml_console_harness_matches_the_selftest_verdict():
    from aot.deploy.protocol import parse_line
    meta = yaml.safe_load((SAMPLE / "sample.yaml").read_text())
    common = meta["common"]
    assert sorted(common["platform_allow"]) == sorted(BOARDS)
    assert common["integration_platforms"] == ["mps2/an521/cpu0"]
    assert common["harness"] == "console" and common["harness_config"]["type"] == "one_line"
    (regex,) = common["harness_config"]["regex"]
    assert set(meta["tests"]) == {"sample.mote.digits.int8", "sample.mote.digits.fp32"}
    assert meta["tests"]["sample.mote.digits.fp32"]["extra_configs"] == ["CONFIG_MOTE_INT8=n"]
    passed = "MOTE SELFTEST PASS n=4 max_abs_err=0"
    failed = ("MOTE SELFTEST FAIL case=1 output=0 element=3 got=12 want=13 tol=0 failed=1 n=4 "
              "max_abs_err=1")
    assert re.search(regex, passed) and not re.search(regex, failed)
    assert parse_line(passed)["verdict"] == "PASS" and parse_line(failed)["verdict"] == "FAIL"
    # the sample's CMakeLists.txt is a Zephyr application's
    cm = (SAMPLE / "CMakeLists.txt").read_text()
    assert "find_package(Zephyr REQUIRED HINTS $ENV{ZEPHYR_BASE})" in cm
    assert "target_sources(app PRIVATE src/main.c)" in cm


def _nm_undefined(obj: Path) -> set:
    out = _run(["arm-none-eabi-nm", "-u", obj]).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@pytest.mark.parametrize("abort, calls", [
    ("", {"vprintk", "printk", "k_cycle_get_32", "zephyr_standin_k_panic"}),
    ("-DCONFIG_MOTE_ABORT_REBOOT=1", {"vprintk", "printk", "k_cycle_get_32", "sys_reboot"}),
])
def test_port_compiles_for_the_m33_and_calls_only_zephyr_api(tmp_path, abort, calls):
    src = ROOT / "ports" / "zephyr" / "mote_port_zephyr.c"
    text = src.read_text()
    for api, header in (("vprintk", "zephyr/sys/printk.h"), ("printk", "zephyr/sys/printk.h"),
                        ("k_cycle_get_32", "zephyr/kernel.h"), ("k_panic", "zephyr/kernel.h"),
                        ("sys_reboot", "zephyr/sys/reboot.h")):
        assert api in text.split("*/")[0] and header in text, api  # cited in the header comment
    includes = set(re.findall(r"#include [<\"]([^>\"]+)[>\"]", text))
    assert includes == {"stdarg.h", "stdint.h", "zephyr/kernel.h", "zephyr/sys/printk.h",
                        "zephyr/sys/reboot.h", "mote/port.h"}
    obj = tmp_path / "port.o"
    _run(["arm-none-eabi-gcc", "-mcpu=cortex-m33", "-mthumb", "-std=c99", "-Wall", "-Wextra",
          "-Wpedantic", "-Wmissing-prototypes", "-Werror", "-Os", *([abort] if abort else []),
          "-I", STANDIN / "include", "-I", ROOT / "runtime" / "include", "-c", src, "-o", obj])
    assert _nm_undefined(obj) == calls
    defined = _run(["arm-none-eabi-nm", "--defined-only", obj]).stdout
    for hook in ("mote_port_log", "mote_port_ticks", "mote_port_abort"):
        assert re.search(rf"\bT {hook}$", defined, re.M), hook


# --------------------------------------------------------------------------- the stand-in build (slow)

def _standin_build(build: Path, board: str, *extra, app: Path = SAMPLE) -> dict:
    """Configure examples/zephyr/digits (or `app`) with the stand-in for `board` and build it."""
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run(["cmake", *gen, "-S", app, "-B", build, f"-DBOARD={board}", f"-DZEPHYR_MODULES={ROOT}",
          f"-DPython3_EXECUTABLE={PYTHON}", f"-DZephyr_DIR={STANDIN / 'share' / 'zephyr-package' / 'cmake'}",
          "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *extra])
    log = _run(["cmake", "--build", build, "-j2"])
    commands = json.loads((build / "compile_commands.json").read_text())
    model = build / "zephyr" / "modules" / "mote" / "model"
    libs = dict(line.split(" ", 1) for line in
                (build / "zephyr" / "standin_libraries.txt").read_text().splitlines() if line)
    return {"log": log.stdout, "commands": {c["file"]: c for c in commands}, "model": model,
            "sources": json.loads((model / "mote_sources.json").read_text()), "libs": libs,
            "arch": (build / "zephyr" / "standin_arch_flags.txt").read_text().split()}


def _object(cmd: dict) -> Path:
    m = re.search(r"-o (\S+)", cmd["command"])
    return Path(cmd["directory"]) / m.group(1)


def _disasm(obj: Path) -> str:
    return _run(["arm-none-eabi-objdump", "-d", obj]).stdout


def _check_build(b: dict, mote_board: str, mcpu: str, int8: bool = True) -> None:
    model, src = b["model"], b["sources"]
    for name in ("model_pte.c", "model_pte.h", "mote_model.h", "registry.c", "model_selftest.c",
                 "model.pte", "ops.json", "model.bpte", "mote_sources.json"):
        assert (model / name).is_file(), name
    assert src["board"] == mote_board and src["int8"] is int8
    header = (model / "mote_model.h").read_text()
    assert re.search(r"#define MOTE_MODEL_SELFTEST_CASES 4u", header)
    assert re.search(r"#define MOTE_MODEL_CRC32 0x[0-9a-f]{8}u", header)
    assert "MOTE_VERIFY_CHECKSUM" in src["defines"]
    # every source aot generate lists was compiled, into an object, for this core
    for path in src["sources"]:
        cmd = b["commands"].get(path)
        assert cmd is not None, f"{path} was not compiled"
        assert _object(cmd).is_file(), path
        assert f"-mcpu={mcpu} " in cmd["command"], (path, cmd["command"])
        assert "-imacros" in cmd["command"]
    main = b["commands"][str(SAMPLE / "src" / "main.c")]
    assert _object(main).is_file() and f"-mcpu={mcpu} " in main["command"]
    port = b["commands"][str(ROOT / "ports" / "zephyr" / "mote_port_zephyr.c")]
    assert _object(port).is_file()
    # the kernels at -O2 after Zephyr's -Os; the runtime core keeps -Os
    for path in src["kernel_sources"]:
        flags = b["commands"][path]["command"].split()
        assert flags.index("-O2") > flags.index("-Os"), path
    core = b["commands"][str(ROOT / "runtime" / "src" / "program.c")]["command"].split()
    assert "-O2" not in core and "-Os" in core
    # the program lands in read-only data (Zephyr's rodata), aligned for in-place use
    pte = _object(b["commands"][str(model / "model_pte.c")])
    sections = _run(["arm-none-eabi-readelf", "-SW", pte]).stdout
    m = re.search(r"\.rodata\.mote_model\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-f]+)\s.*\s(\d+)$", sections, re.M)
    assert m and int(m.group(1), 16) == src["pte_bytes"] and int(m.group(2)) >= 16, sections
    assert set(b["libs"]) == {"app", "mote", f"mote_{mote_board.replace('-', '_')}"}


#: every Cortex-M kernel source in cmsis/ (all are compiled into mote_<board>)
CMSIS_KERNELS = {p.name for p in (ROOT / "cmsis").glob("op_*.c")}
#: Armv8-M DSP-extension instructions the cmsis/ kernels' DSP paths use (SMLAD/SXTB16 in
#: the convolutions, SXTAB16 in mean_s8, SMMLAR/SSUB8/SEL in add_s8's requantize and clamp,
#: SMUAD/SMUSDX in the Q15 FFT's butterflies)
DSP_INSNS = r"\s(smlad|sxtb16|sxtab16|smmlar|ssub8|sel|smuad|smusdx)\s"


def _cmsis_objects(b: dict, used: bool = True) -> dict:
    """The cmsis/ kernels compiled into mote_<board> (all three; an int8 model uses some)."""
    objs = {Path(p).name: _object(c) for p, c in b["commands"].items()
            if Path(p).parent == ROOT / "cmsis"}
    model = {Path(p).name for p in b["sources"]["kernel_sources"] if Path(p).parent == ROOT / "cmsis"}
    assert bool(model) is used and model <= set(objs), (model, set(objs))
    return objs


@pytest.mark.slow
def test_standin_build_rpi_pico2_m33_dsp(tmp_path):
    b = _standin_build(tmp_path / "b", "rpi_pico2/rp2350a/m33")
    assert "Mote: aot generate model.py for pico2" in b["log"]
    _check_build(b, "pico2", "cortex-m33")
    assert b["arch"] == ["-mcpu=cortex-m33", "-mthumb", "-mfpu=fpv5-sp-d16", "-mfloat-abi=hard"]
    # Zephyr's SoC layer owns the image's Raspberry Pi binary info: Mote compiles none there
    # (docs/integrating/zephyr.md)
    assert str(ROOT / "ports" / "rp2" / "binary_info.c") not in b["commands"]
    assert str(ROOT / "runtime" / "src" / "program.c") in b["commands"]
    cmsis = _cmsis_objects(b)
    assert set(cmsis) == CMSIS_KERNELS
    for name, obj in cmsis.items():   # the DSP path: a DSP-extension instruction in each that has one
        if "defined(MOTE_S8_DSP)" in (ROOT / "cmsis" / name).read_text():
            assert re.search(DSP_INSNS, _disasm(obj)), name
    # a second build with nothing changed neither re-generates nor re-compiles
    again = _run(["cmake", "--build", tmp_path / "b", "-j2"]).stdout
    assert "aot generate" not in again and "Building C" not in again, again


@pytest.mark.slow
def test_aot_options_reach_the_generated_program(tmp_path):
    """CONFIG_MOTE_AOT_OPTIONS hands aot generate what only the command line had: int16
    activations and external weights (model_ptd.c, compiled into the module's library in
    a section of its own)."""
    conf = tmp_path / "options.conf"
    conf.write_text('CONFIG_MOTE_AOT_OPTIONS="--int16-activations --external-weights"\n')
    b = _standin_build(tmp_path / "b", "rpi_pico2/rp2350a/m33", f"-DEXTRA_CONF_FILE={conf}")
    ops = {op["name"].split(".")[0] for op in json.loads((b["model"] / "ops.json").read_text())["ops"]}
    assert {"mote::conv2d_s16", "mote::linear_s16"} <= ops, ops
    ptd = b["model"] / "model_ptd.c"
    assert str(ptd) in b["sources"]["sources"] and (b["model"] / "model.ptd").read_bytes()[4:8] == b"FT01"
    cmd = b["commands"][str(ptd)]
    assert '-DMOTE_MODEL_PTD_SECTION=\\".rodata.mote_model.ptd\\"' in cmd["command"], cmd["command"]
    sections = _run(["arm-none-eabi-readelf", "-SW", _object(cmd)]).stdout
    assert ".rodata.mote_model.ptd" in sections, sections


@pytest.mark.slow
def test_a_bad_aot_option_is_one_configure_error(tmp_path):
    conf = tmp_path / "options.conf"
    conf.write_text('CONFIG_MOTE_AOT_OPTIONS="--int8-io --int16-activations"\n')
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    proc = subprocess.run(["cmake", *gen, "-S", SAMPLE, "-B", tmp_path / "b", "-DBOARD=rpi_pico2/rp2350a/m33",
                           f"-DZEPHYR_MODULES={ROOT}", f"-DPython3_EXECUTABLE={PYTHON}",
                           f"-DZephyr_DIR={STANDIN / 'share' / 'zephyr-package' / 'cmake'}",
                           f"-DEXTRA_CONF_FILE={conf}"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert ("Mote: aot generate: error: --int16-activations keeps fp32 program inputs and outputs: drop "
            "--int8-io" in " ".join(proc.stderr.split())), proc.stderr


@pytest.mark.slow
def test_standin_build_mps3_an547_m55_mve(tmp_path):
    b = _standin_build(tmp_path / "b", "mps3/corstone300/an547")
    _check_build(b, "mps3-an547", "cortex-m55")
    assert b["arch"][:1] == ["-mcpu=cortex-m55"] and "-mfloat-abi=hard" in b["arch"]
    cmsis = _cmsis_objects(b)
    assert set(cmsis) == CMSIS_KERNELS
    for name, obj in cmsis.items():   # the MVE path: Q registers
        assert re.search(r"\sq[0-7]\b", _disasm(obj)), name


def _link_and_run(b: dict, tmp_path: Path) -> tuple:
    """Link a stand-in build for mps2/an521/cpu0 (the module's archives and the app's, whole,
    as Zephyr links its libraries) with a stand-in kernel over Mote's bare-metal mps2-an505
    port and run it in QEMU (mps2-an505: the same Cortex-M33 memory map): (status, UART text)."""
    from aot.deploy.qemu import run_firmware
    port = b["sources"]["port"]
    objs = []
    incs = [f"-I{d}" for d in port["include_dirs"]] + [f"-I{STANDIN / 'include'}"]
    units = [p for p in port["sources"] if not p.endswith("runtime_port.c")]  # the hooks are ports/zephyr's
    units.append(str(STANDIN / "qemu" / "kernel_qemu.c"))
    for i, unit in enumerate(units):
        obj = tmp_path / f"port{i}.o"
        # exit.c's bare-metal mote_port_abort gives way to the Zephyr port's
        rename = ["-Dmote_port_abort=mote_port_abort_bare_metal"] if unit.endswith("exit.c") else []
        _run(["arm-none-eabi-gcc", *b["arch"], "-std=c99", "-Os", "-ffunction-sections", "-fdata-sections",
              "-Wall", "-Werror", *rename, *incs, "-c", unit, "-o", obj])
        objs.append(obj)
    elf = tmp_path / "zephyr_standin.elf"
    archives = [b["libs"][k] for k in ("app", "mote", "mote_mps2_an505")]
    _run(["arm-none-eabi-gcc", *b["arch"], "-nostartfiles", "--specs=nano.specs",
          f"-T{port['linker_script']}", "-Wl,--gc-sections", "-Wl,--no-warn-rwx-segments",
          f"-Wl,-Map={tmp_path / 'zephyr_standin.map'}", "-o", elf, *objs,
          "-Wl,--whole-archive", *archives, "-Wl,--no-whole-archive", *port["libs"]])
    return run_firmware(elf, "mps2-an505", timeout_s=60)


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("variant", ["int8", "fp32"])
def test_standin_mps2_an521_links_and_passes_selftest_in_qemu(tmp_path, variant):
    """mps2/an521/cpu0: Zephyr enables neither DSP nor FPU on CPU0, so the
    stand-in compiles for cortex-m33+nodsp, soft float, and the cmsis/ kernels
    take their plain-C path. The module's archives and the sample's main.c are
    linked whole (as Zephyr links its libraries) with a stand-in kernel over
    Mote's bare-metal mps2-an505 port, run in QEMU (mps2-an505: the same
    Cortex-M33 memory map), and the sample.yaml regex must match its output.
    fp32: sample.yaml's second test (CONFIG_MOTE_INT8=n, as an EXTRA_CONF_FILE),
    with the runtime's log lines (MOTE_LOG) and the reboot abort compiled in."""
    extra = []
    if variant == "fp32":
        conf = tmp_path / "fp32.conf"
        conf.write_text("CONFIG_MOTE_INT8=n\nCONFIG_MOTE_LOG=y\nCONFIG_REBOOT=y\nCONFIG_MOTE_ABORT_REBOOT=y\n")
        extra = [f"-DEXTRA_CONF_FILE={conf}"]
    b = _standin_build(tmp_path / "b", "mps2/an521/cpu0", *extra)
    _check_build(b, "mps2-an505", "cortex-m33+nodsp", int8=variant == "int8")
    core = b["commands"][str(ROOT / "runtime" / "src" / "program.c")]["command"]
    assert (" -DMOTE_LOG " in core) is (variant == "fp32")
    assert b["arch"] == ["-mcpu=cortex-m33+nodsp", "-mthumb", "-mfloat-abi=soft"]
    for name, obj in _cmsis_objects(b, used=variant == "int8").items():   # plain C: no DSP, no MVE
        text = _disasm(obj)
        assert not re.search(DSP_INSNS, text) and not re.search(r"\sq[0-7]\b", text), name

    status, text = _link_and_run(b, tmp_path)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    assert status == 0, text
    assert lines[0] == "MOTE BOOT zephyr:mps2"
    mem = b["sources"]["memory"]
    assert lines[1] == (f"MOTE MODEL pte={b['sources']['pte_bytes']} state={mem['runtime_state_bytes']} "
                        f"arena={mem['arena_bytes'][0]}")
    cases = [ln for ln in lines if ln.startswith("MOTE SELFTEST CASE")]
    assert len(cases) == 4 and all(ln.endswith("result=PASS") for ln in cases), text
    regex = yaml.safe_load((SAMPLE / "sample.yaml").read_text())["common"]["harness_config"]["regex"][0]
    verdict = [ln for ln in lines if re.search(regex, ln)]
    if variant == "int8":   # integer outputs match byte for byte
        assert verdict == ["MOTE SELFTEST PASS n=4 max_abs_err=0"], text
    else:
        assert len(verdict) == 1 and verdict[0].startswith("MOTE SELFTEST PASS n=4 "), text
    assert not any("ERROR" in ln or "FAIL" in ln for ln in lines), text


MODELS_SAMPLE = ROOT / "examples" / "zephyr" / "models"


def test_kconfig_takes_several_models_and_a_memory_mode(tmp_path):
    """examples/zephyr/models' prj.conf (two models, shared) and the same with separate memory."""
    conf = (MODELS_SAMPLE / "prj.conf").read_text()
    rc, cfg, err = _configure_kconfig(tmp_path, "mps2/an521/cpu0", conf)
    assert rc == 0, err
    assert cfg["CONFIG_MOTE_MODEL"] == "kws=../../cmake-models/kws.py, image=../../cmake-models/image.py"
    assert cfg["CONFIG_MOTE_MEMORY_SHARED"] == "y" and "CONFIG_MOTE_MEMORY_SEPARATE" not in cfg
    rc, cfg, err = _configure_kconfig(tmp_path, "mps2/an521/cpu0", conf + "CONFIG_MOTE_MEMORY_SEPARATE=y\n")
    assert rc == 0, err
    assert cfg["CONFIG_MOTE_MEMORY_SEPARATE"] == "y" and "CONFIG_MOTE_MEMORY_SHARED" not in cfg
    meta = yaml.safe_load((MODELS_SAMPLE / "sample.yaml").read_text())
    assert meta["tests"]["sample.mote.models.separate"]["extra_configs"] == ["CONFIG_MOTE_MEMORY_SEPARATE=y"]


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("memory", ["shared", "separate"])
def test_standin_two_models_mps2_an521_pass_in_qemu(tmp_path, memory):
    """examples/zephyr/models (CONFIG_MOTE_MODEL with two models, CONFIG_MOTE_MEMORY_<mode>: its
    sample.yaml's two tests): one aot generate at build time, every generated source compiled
    for the M33 (the embedding source once per model, through its wrapper), linked and run in
    QEMU: both self-tests pass, each model's result is the host runtime's, and the sample's
    twister regexes match in order."""
    from test_cmake_models import expected_lines
    conf = tmp_path / "memory.conf"
    conf.write_text(f"CONFIG_MOTE_MEMORY_{memory.upper()}=y\n")
    b = _standin_build(tmp_path / "b", "mps2/an521/cpu0", f"-DEXTRA_CONF_FILE={conf}", app=MODELS_SAMPLE)
    assert re.search(r"Mote: aot generate kws\.py, image\.py \(models kws, image, --memory %s\) for "
                     r"mps2-an505" % memory, b["log"]), b["log"][-3000:]
    src = b["sources"]
    assert src["memory"] == memory and [m["name"] for m in src["models"]] == ["kws", "image"]
    for path in src["sources"]:
        assert path in b["commands"] and _object(b["commands"][path]).is_file(), path
    assert str(ROOT / "runtime" / "embed" / "mote_model.c") not in b["commands"]
    assert (b["model"] / "mote_models.h").is_file() and (b["model"] / "mote_model_kws.h").is_file()
    status, text = _link_and_run(b, tmp_path)
    assert status == 0, text
    assert f"app: 2 models, memory {memory}" in text, text
    # mote_model_<name>_selftest(): every line names its model
    assert re.findall(r"^MOTE SELFTEST PASS n=2 max_abs_err=0 model=(\w+)$", text, re.M) == ["kws", "image"], text
    assert len(re.findall(r"^MOTE SELFTEST CASE .* result=PASS model=(?:kws|image)$", text, re.M)) == 4, text
    for line in expected_lines(b["model"]):
        assert line in text, (line, text)
    harness = yaml.safe_load((MODELS_SAMPLE / "sample.yaml").read_text())["common"]["harness_config"]
    assert harness["type"] == "multi_line" and harness["ordered"] is True
    at = 0
    for regex in harness["regex"]:
        m = re.compile(regex).search(text, at)
        assert m, (regex, text[at:])
        at = m.end()


@pytest.mark.slow
def test_separate_memory_for_one_model_is_one_configure_error(tmp_path):
    conf = tmp_path / "one.conf"
    conf.write_text('CONFIG_MOTE_MODEL="../../cmake-models/kws.py"\nCONFIG_MOTE_MEMORY_SEPARATE=y\n')
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    proc = subprocess.run(["cmake", *gen, "-S", MODELS_SAMPLE, "-B", tmp_path / "b", "-DBOARD=mps2/an521/cpu0",
                           f"-DZEPHYR_MODULES={ROOT}", f"-DPython3_EXECUTABLE={PYTHON}",
                           f"-DZephyr_DIR={STANDIN / 'share' / 'zephyr-package' / 'cmake'}",
                           f"-DEXTRA_CONF_FILE={conf}"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert ("Mote: CONFIG_MOTE_MEMORY_SEPARATE chooses how several models share RAM, CONFIG_MOTE_MODEL names "
            "one (../../cmake-models/kws.py)" in " ".join(proc.stderr.split())), proc.stderr
