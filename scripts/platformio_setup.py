#!/usr/bin/env python3
"""Offline PlatformIO set-up for Mote (idempotent; everything under build/platformio/).

PlatformIO normally downloads its SCons, the toolchain and the platform from
its registry, which these machines cannot reach. This script gives
PlatformIO (the `platformio` package of the .venv) all three locally:

* core dir     build/platformio/core (PLATFORMIO_CORE_DIR; nothing in ~/.platformio)
* tool-scons   SCons from PyPI (the version PlatformIO's core asks for) as a
               tool package in <core>/packages/tool-scons, owner "platformio"
* toolchain    build/platformio/packages/toolchain-gccarmnoneeabi: a package.json
               and bin/ of symlinks to the system arm-none-eabi-* tools, installed
               with a symlink:// spec
* platform     integrations/platformio/platform (Mote's QEMU boards), installed with a
               symlink:// spec under the name "mote-qemu"; its boards/*.json are
               generated from Mote's boards/*.json first (mote_pio.write_platform_boards;
               --boards does only that)

Usage:  .venv/bin/python scripts/platformio_setup.py [--core-dir DIR] [--quiet]
Then:   export PLATFORMIO_CORE_DIR=$PWD/build/platformio/core
        pio run -d examples/platformio/qemu-an505 -t upload

Prints the core dir on its last line ("PLATFORMIO_CORE_DIR=<path>").
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIO_ROOT = ROOT / "build" / "platformio"
DEFAULT_CORE = PIO_ROOT / "core"
PLATFORM_DIR = ROOT / "integrations" / "platformio" / "platform"
PLATFORM_NAME = "mote-qemu"
TOOLCHAIN_NAME = "toolchain-gccarmnoneeabi"
GCC = "arm-none-eabi-gcc"

QUIET = False


def log(msg: str) -> None:
    if not QUIET:
        print(f"platformio-setup: {msg}", flush=True)


def fail(msg: str) -> None:
    print(f"platformio-setup: error: {msg}", file=sys.stderr)
    sys.exit(1)


def pio_bin() -> list[str]:
    """PlatformIO of this Python (the .venv's), as a command."""
    return [sys.executable, "-m", "platformio"]


def run_pio(args: list[str], env: dict) -> str:
    proc = subprocess.run(pio_bin() + args, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"`pio {' '.join(args)}` failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


# --------------------------------------------------------------------------- tool-scons


def scons_version_for(requirement: str) -> str:
    """SCons release for PlatformIO's tool-scons requirement: tool-scons
    versions encode SCons X.Y.Z as X.(X*10000 + Y*100 + Z).0, so
    "~4.41101.0" -> "4.11.1" and "~4.40801.0" -> "4.8.1"."""
    ver = requirement.lstrip("~^=<>! ")
    parts = ver.split(".")
    if len(parts) < 2 or not parts[1].isdigit():
        raise ValueError(f"unexpected tool-scons requirement {requirement!r}")
    mid = int(parts[1])
    return f"{mid // 10000}.{(mid // 100) % 100}.{mid % 100}"


def tool_scons_version(requirement: str) -> str:
    return requirement.lstrip("~^=<>! ")


def ensure_tool_scons(core: Path) -> None:
    from platformio.dependencies import get_core_dependencies
    from platformio.package.meta import PackageMetadata, PackageSpec

    requirement = get_core_dependencies()["tool-scons"]
    pkg_version = tool_scons_version(requirement)
    scons_version = scons_version_for(requirement)
    dest = core / "packages" / "tool-scons"
    meta_file = dest / ".piopm"
    if meta_file.is_file():
        try:
            meta = json.loads(meta_file.read_text())
            if meta.get("version") == pkg_version and (dest / "scons.py").is_file() \
                    and (dest / "SCons" / "__init__.py").is_file():
                log(f"tool-scons {pkg_version} (SCons {scons_version}) already in place")
                return
        except ValueError:
            pass
    log(f"making tool-scons {pkg_version} from PyPI's SCons {scons_version}")
    staging = dest.with_name("tool-scons.staging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    # The SCons of this Python when it is the right release, else pip fetches it.
    copied = False
    try:
        import SCons  # noqa: F401  (only to find its folder and version)
        from SCons import __version__ as have
        if have == scons_version:
            shutil.copytree(Path(SCons.__file__).parent, staging / "SCons",
                            ignore=shutil.ignore_patterns("__pycache__"))
            copied = True
    except ImportError:
        pass
    if not copied:
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                               "--no-compile", "--target", str(staging), f"scons=={scons_version}"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            fail(f"pip could not fetch scons=={scons_version}:\n{proc.stdout}{proc.stderr}")
    if not (staging / "SCons" / "__init__.py").is_file():
        fail(f"no SCons package in {staging}")
    # PlatformIO starts SCons as `python <tool-scons>/scons.py ...`.
    (staging / "scons.py").write_text(
        "# Generated by Mote's scripts/platformio_setup.py: starts the SCons next to this file.\n"
        "import os\nimport sys\n\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
        "import SCons.Script  # noqa: E402\n\n"
        "if __name__ == '__main__':\n"
        "    SCons.Script.main()\n")
    (staging / "package.json").write_text(json.dumps({
        "name": "tool-scons",
        "version": pkg_version,
        "description": f"SCons {scons_version} from PyPI, packaged offline by Mote's platformio_setup.py",
        "keywords": ["build tools"],
        "license": "MIT",
    }, indent=2) + "\n")
    # Owner "platformio": PlatformIO looks its core packages up as platformio/tool-scons.
    PackageMetadata(type="tool", name="tool-scons", version=pkg_version,
                    spec=PackageSpec(owner="platformio", name="tool-scons",
                                     requirements=requirement)).dump(str(staging / ".piopm"))
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(dest)


# --------------------------------------------------------------------------- toolchain


def gcc_package_version(dumpversion: str) -> str:
    """PlatformIO's toolchain-gccarmnoneeabi versions are 1.MMmmpp.0 for GCC
    MM.mm.pp (12.2.1 -> 1.120201.0)."""
    nums = [int(x) for x in dumpversion.strip().split(".")] + [0, 0]
    major, minor, patch = nums[:3]
    return f"1.{major * 10000 + minor * 100 + patch}.0"


def ensure_toolchain(env: dict) -> Path:
    gcc = shutil.which(GCC)
    if gcc is None:
        fail(f"{GCC} not found (Debian: apt install gcc-arm-none-eabi libnewlib-arm-none-eabi)")
    bindir = Path(gcc).parent
    dumpversion = subprocess.run([gcc, "-dumpversion"], capture_output=True, text=True).stdout
    version = gcc_package_version(dumpversion)
    pkg = PIO_ROOT / "packages" / TOOLCHAIN_NAME
    (pkg / "bin").mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": TOOLCHAIN_NAME,
        "version": version,
        "description": f"The system's GNU Arm Embedded toolchain (GCC {dumpversion.strip()}, "
                       f"symlinks to {bindir})",
        "keywords": ["toolchain", "build tools", "compiler", "assembler", "linker"],
    }
    text = json.dumps(manifest, indent=2) + "\n"
    if not (pkg / "package.json").is_file() or (pkg / "package.json").read_text() != text:
        (pkg / "package.json").write_text(text)
    tools = sorted(p for p in bindir.glob("arm-none-eabi-*") if p.is_file())
    wanted = {t.name: t for t in tools}
    for link in (pkg / "bin").iterdir():
        if link.name not in wanted:
            link.unlink()
    for name, target in wanted.items():
        link = pkg / "bin" / name
        if link.is_symlink() and os.readlink(link) == str(target):
            continue
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(target)
    log(f"{TOOLCHAIN_NAME} {version}: {len(wanted)} tools linked from {bindir}")
    run_pio(["pkg", "install", "-g", "--skip-dependencies", "--tool", f"symlink://{pkg}"], env)
    return pkg


# --------------------------------------------------------------------------- platform


def write_boards() -> None:
    """The local platform's board manifests, from Mote's boards/*.json (one home)."""
    sys.path.insert(0, str(PLATFORM_DIR.parent))
    import mote_pio
    for path in mote_pio.write_platform_boards(ROOT):
        log(f"wrote {path.relative_to(ROOT)}")


def ensure_platform(env: dict) -> None:
    if not (PLATFORM_DIR / "platform.json").is_file():
        fail(f"no platform.json in {PLATFORM_DIR}")
    write_boards()
    run_pio(["pkg", "install", "-g", "--skip-dependencies", "--platform", f"symlink://{PLATFORM_DIR}"], env)
    log(f"platform {PLATFORM_NAME} -> {PLATFORM_DIR}")


def ensure_settings(core: Path, env: dict) -> None:
    # No telemetry and no upgrade checks: there is no network here but PyPI.
    state_file = core / "appstate.json"
    state = {}
    if state_file.is_file():
        try:
            state = json.loads(state_file.read_text())
        except ValueError:
            state = {}
    settings = state.get("settings", {})
    if settings.get("enable_telemetry") is False and settings.get("check_platformio_interval") == 36500:
        return
    run_pio(["settings", "set", "enable_telemetry", "No"], env)
    run_pio(["settings", "set", "check_platformio_interval", "36500"], env)


def main(argv=None) -> int:
    global QUIET
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--core-dir", default=str(DEFAULT_CORE), help="PLATFORMIO_CORE_DIR (default: %(default)s)")
    ap.add_argument("--quiet", action="store_true", help="print only the last line")
    ap.add_argument("--boards", action="store_true",
                    help="only (re)write integrations/platformio/platform/boards/*.json from boards/*.json")
    args = ap.parse_args(argv)
    QUIET = args.quiet
    if args.boards:
        write_boards()
        return 0
    try:
        import platformio
    except ImportError:
        fail("the platformio package is not installed in this Python "
             f"({sys.executable}); `make bootstrap` installs it (pyproject.toml, dev extras)")
    core = Path(args.core_dir).resolve()
    core.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PLATFORMIO_CORE_DIR=str(core), PLATFORMIO_DISABLE_UPGRADE_CHECK="true")
    os.environ.update(PLATFORMIO_CORE_DIR=str(core))
    log(f"PlatformIO Core {platformio.__version__}, core dir {core}")
    ensure_settings(core, env)
    ensure_tool_scons(core)
    ensure_toolchain(env)
    ensure_platform(env)
    print(f"PLATFORMIO_CORE_DIR={core}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
