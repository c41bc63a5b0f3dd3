"""One front door: every user action is an `aot` subcommand. The `python -m` entry
points of earlier releases still run for one release and say, in one line on stderr,
which `aot` subcommand replaces them; no build integration or document uses them."""
import subprocess
import sys
from pathlib import Path

import pytest

from aot.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]

#: old module -> the `aot` subcommand that replaces it
MOVED = {
    "aot.target.generate": "board-sources",
    "aot.target.qemu": "qemu",
    "aot.deploy.generate": "board-sources",
    "aot.deploy.qemu": "qemu",
    "aot.tools.demo": "demo",
    "aot.tools.inspect": "inspect",
    "aot.tools.compare": "compare",
    "aot.host.runtime": "run",
    "aot.compiler.quantize": "compare",
}
#: entry points that only point (running them would import aot.cli from below it)
POINTER_ONLY = {"aot.tools.compare"}


def _subcommands() -> set:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return set(action.choices)


@pytest.mark.parametrize("module", sorted(MOVED))
def test_old_entry_point_points_to_its_subcommand(module):
    assert MOVED[module] in _subcommands()
    r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    if module in POINTER_ONLY:
        assert r.returncode == 1 and r.stdout == ""
    else:
        assert r.returncode == 0 and "usage:" in r.stdout  # the old form still runs
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("mote:")]  # (torch's import noise aside)
    assert len(lines) == 1 and lines[0].startswith(f"mote: `python -m {module}") and \
        f"is now `aot {MOVED[module]}" in lines[0], r.stderr


def test_every_python_m_entry_point_is_listed():
    """A module with a __main__ block is the aot command itself (aot/__main__.py, aot/cli.py)
    or a moved entry point above."""
    mains = set()
    for path in (ROOT / "aot").rglob("*.py"):
        if 'if __name__ == "__main__":' in path.read_text():
            mains.add(".".join(path.relative_to(ROOT).with_suffix("").parts))
    assert mains - {"aot.cli"} == set(MOVED)


def test_build_integrations_and_docs_call_aot():
    """CMake, PlatformIO, Zephyr, the Makefile and the manual name no `python -m aot.<module>`."""
    files = [ROOT / "Makefile", ROOT / "README.md", *(ROOT / "cmake").rglob("*.cmake"),
             *(ROOT / "integrations").rglob("*.txt"), *(ROOT / "integrations").rglob("*.py"),
             *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*.md"),
             *(ROOT / "examples").rglob("*.cmake")]
    assert {f.parent.name for f in files} >= {"platformio", "zephyr", "cmake", "builder"}  # each one read
    bad = [f"{f.relative_to(ROOT)}: {line.strip()}" for f in files for line in f.read_text().splitlines()
           if "-m aot." in line or '"-m", "aot.' in line]
    assert bad == []
