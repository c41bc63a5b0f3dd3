"""`aot demo` runs the digits example (examples/digits/demo.py) of the checkout: the
aot package never imports examples/ (the whole pipeline: tests/e2e/test_digits.py)."""
import argparse
import ast
from pathlib import Path

import pytest

from aot.errors import MoteError
from aot.tools import demo

ROOT = Path(__file__).resolve().parents[2]


def _args(*argv):
    ap = argparse.ArgumentParser()
    demo.add_demo_arguments(ap)
    return ap.parse_args(list(argv))


def test_options_reach_the_example():
    assert demo.demo_argv(_args()) == []
    assert demo.demo_argv(_args("--images", "7", "--no-progress")) == ["--images", "7", "--no-progress"]


def test_the_example_is_there_and_reads_the_same_options():
    script = ROOT / "examples" / "digits" / "demo.py"
    assert script.is_file() and demo.DEMO_MODULE == "examples.digits.demo"
    assert "add_demo_arguments" in script.read_text()


def test_a_checkout_without_the_example_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(demo, "ROOT", tmp_path)
    with pytest.raises(MoteError, match=r"the demo is examples/digits/demo\.py of a Mote checkout"):
        demo.demo_command(_args())


def test_no_aot_module_imports_examples_zoo_or_tests():
    bad = []
    for path in (ROOT / "aot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in names
                    if n.split(".")[0] in ("examples", "zoo", "tests")]
    assert bad == []
