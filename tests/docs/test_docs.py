"""The manual (docs/, mkdocs.yml) and the README that points into it.

- the site builds with `mkdocs build --strict` (a broken link, anchor,
  include or API reference fails) without importing torch;
- the quick start's commands, the block after a `<!-- quickstart` marker in
  docs/getting-started.md, run as written (README.md holds the same block);
- README.md stays a landing page: at most 8 KB, `make demo` and `make test`
  in its first lines, every relative link resolves;
- every repository path the manual and the README name in `code` exists (a
  file moved without its documentation fails here);
- the generated tables come from their one home: the error codes agree with
  the values the host binding reads (aot.host.abi.error_codes).
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
SITE = ROOT / "build" / "site"
QUICKSTART_OUT = ROOT / "build" / "quickstart"

#: README.md's budget, bytes (issue 33: a landing page, not the manual)
README_MAX_BYTES = 8 * 1024
#: the lines of README.md that must name both commands
README_HEAD_LINES = 12


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def _hook():
    spec = importlib.util.spec_from_file_location("mote_docs_generated", ROOT / "docs" / "_hooks" / "generated.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def quickstart_block(path: Path) -> str:
    """The ```sh block right after the `<!-- quickstart ... -->` line of `path`."""
    text = path.read_text()
    blocks = re.findall(r"^<!-- quickstart\b[^\n]*-->\n```sh\n(.*?)^```$", text, re.S | re.M)
    assert len(blocks) == 1, f"{path.name}: expected one quickstart block, found {len(blocks)}"
    return blocks[0]


def test_site_builds_strictly_without_torch():
    """mkdocs build --strict into build/site, in a fresh interpreter that must not import torch
    (mkdocstrings reads the sources; the hook imports aot.cli, which does not import torch)."""
    script = ("import sys\n"
              "from mkdocs.config import load_config\n"
              "from mkdocs.commands.build import build\n"
              f"build(load_config({str(ROOT / 'mkdocs.yml')!r}, strict=True, site_dir={str(SITE)!r}))\n"
              "print('torch imported:', 'torch' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=_env(), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "torch imported: False" in r.stdout, r.stdout
    # the generated pages hold their sources' contents
    errors = (SITE / "runtime-api.html").read_text()
    assert "MOTE_ERR_CHECKSUM" in errors and "-219" in errors
    assert "mps2-an505" in (SITE / "boards.html").read_text()
    assert "aot generate" in (SITE / "commands.html").read_text()
    assert "compile_module" in (SITE / "api.html").read_text()
    assert "Contract" in (SITE / "design" / "cmsis.html").read_text()  # an included sub-README


def test_readme_is_a_landing_page():
    data = README.read_bytes()
    assert len(data) <= README_MAX_BYTES, f"README.md is {len(data)} B, more than {README_MAX_BYTES}"
    head = "\n".join(data.decode().splitlines()[:README_HEAD_LINES])
    assert "make demo" in head and "make test" in head, head
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", data.decode())
    relative = [l for l in links if "://" not in l]
    assert relative, "README.md links into docs/"
    missing = [l for l in relative if not (ROOT / l).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_readme_quick_start_is_the_manuals():
    assert quickstart_block(README) == quickstart_block(GETTING_STARTED)


#: top-level folders of this repository: a `code` word starting with one names a path in it
REPO_FOLDERS = ("aot/", "runtime/", "kernels/", "cmsis/", "tests/", "zoo/", "boards/", "ports/", "scripts/",
                "examples/", "samples/", "cmake/", "zephyr/", "renode/", "benchmarks/", "backends/", "docs/",
                "integrations/", ".github/")
#: paths the manual names that are the user's, not this repository's
USER_PATHS = {"zephyr/submanifests/mote.yaml"}  # a west workspace's submanifest (docs/integrating/zephyr.md)


def named_paths(text: str) -> list:
    """Repository paths among the words of `code` spans: `aot/cli.py`, `tests/x.py::test`,
    `aot/compiler/source.py:set_qparams` (placeholders with <, *, {, $ or [ left out)."""
    out = []
    for span in re.findall(r"`([^`\n]+)`", text):
        for word in span.split():
            w = word.strip("(),;'\"")
            if w.startswith(REPO_FOLDERS) and not any(c in w for c in "<*{$["):
                out.append(w.split(":")[0].rstrip("."))
    return out


def test_every_path_the_manual_names_exists():
    pages = sorted((ROOT / "docs").rglob("*.md")) + [README]
    named = {(p.relative_to(ROOT).as_posix(), w) for p in pages for w in named_paths(p.read_text())}
    assert len(named) > 100, len(named)
    missing = sorted((page, w) for page, w in named if w not in USER_PATHS and not (ROOT / w).exists())
    assert not missing, f"named in the manual but not in the repository: {missing}"


def test_error_code_table_agrees_with_the_binding():
    from aot.host.abi import error_codes
    rows = _hook().error_codes()
    assert {name: value for _, name, value, _ in rows} == \
        {("MOTE_" if n == "OK" else "MOTE_ERR_") + n: v for n, v in error_codes().items()}
    for group, name, value, meaning in rows:
        if value != 0:
            assert group.startswith(f"-{str(value)[1]}"), (name, group)  # "-2xx: ..." holds -2NN
            assert meaning, f"{name} has no comment in mote/types.h"


def test_board_table_has_every_board():
    table = _hook().boards_markdown()
    for path in (ROOT / "boards").glob("*.json"):
        assert f"| `{path.stem}` |" in table


def test_unknown_generated_table_stops_the_build():
    from mkdocs.exceptions import PluginError
    hook = _hook()

    class Page:
        class file:
            src_path = "x.md"
    with pytest.raises(PluginError, match="unknown generated table 'mote:nope'"):
        hook.on_page_markdown("a\n<!-- mote:nope -->\n", Page, None, None)


@pytest.mark.slow
@pytest.mark.sim
def test_quick_start_runs():
    """The quick start's lines, as written, from the repository root; its outputs are real."""
    shutil.rmtree(QUICKSTART_OUT, ignore_errors=True)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", quickstart_block(GETTING_STARTED)], cwd=ROOT,
                       env=_env(), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    assert (QUICKSTART_OUT / "ds_cnn.pte").read_bytes()[4:8] == b"ET12"
    assert (QUICKSTART_OUT / "ds_cnn.ops.json").is_file()
    assert re.search(r"^PASS: 4 case\(s\)", r.stdout, re.M), r.stdout[-3000:]
    uf2 = (QUICKSTART_OUT / "pico2" / "firmware.uf2").read_bytes()
    assert uf2[:8] == b"UF2\n\x57\x51\x5d\x9e"  # UF2 magic start 0 and 1
