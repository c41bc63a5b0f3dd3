"""The aot package is layered: every import points down, there is no import
cycle, and ``import aot`` (and the commands that only read a .pte or talk to a
board) never load torch."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

AOT = Path(__file__).resolve().parents[1] / "aot"

#: lowest first; a module may import its own layer or any layer below it
LAYERS = [
    {"aot.errors", "aot.paths", "aot.ir", "aot.progress"},
    {"aot.pte"},
    {"aot.host"},
    {"aot.compiler", "aot.backends"},  # a backend's partitioner plugs into the compiler's delegation pass
    {"aot.deploy", "aot.target"},  # aot.target: the old name's python -m pointers (one release)
    {"aot.devtools"},
    {"aot.tools"},
    {"aot.cli", "aot"},
]


def _module_name(path: Path) -> str:
    rel = path.relative_to(AOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    for depth in range(module.count(".") + 1, 0, -1):
        prefix = ".".join(module.split(".")[:depth])
        for i, names in enumerate(LAYERS):
            if prefix in names:
                return i
    raise AssertionError(f"module {module} is in no layer: add it to LAYERS")


def _dynamic_import(node) -> str:
    """The aot module a call ``__import__("aot.x", ...)`` or ``importlib.import_module("aot.x")``
    (or ``import_module(f"aot.x.{name}")``: its constant prefix, "aot.x") names, else ""."""
    if not isinstance(node, ast.Call) or not node.args:
        return ""
    f = node.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    if name not in ("__import__", "import_module"):
        return ""
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        module = arg.value
    elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        module = str(arg.values[0].value).rsplit(".", 1)[0]  # "aot.backends.{name}" -> aot.backends
    else:
        return ""
    return module if module.split(".")[0] == "aot" else ""


def _imports(path: Path) -> set:
    """aot modules imported anywhere in the file (top level and inside functions), by
    import statements and by __import__ / importlib.import_module calls."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if _dynamic_import(node):
            found.add(_dynamic_import(node))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "aot")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "aot":
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if (AOT.parent / (sub.replace(".", "/") + ".py")).exists()
                          or (AOT.parent / sub.replace(".", "/")).is_dir() else node.module)
    return found


def _graph() -> dict:
    return {_module_name(p): _imports(p) for p in sorted(AOT.rglob("*.py"))}


def test_every_import_points_down():
    graph = _graph()
    assert len(graph) > 40  # the walk sees the whole package
    upward = [f"{m} (layer {_layer(m)}) imports {d} (layer {_layer(d)})"
              for m, deps in graph.items() for d in deps if _layer(d) > _layer(m)]
    assert upward == []


def test_compiler_never_imports_deploy_or_tools():
    graph = _graph()
    bad = [(m, d) for m, deps in graph.items() if m.startswith("aot.compiler")
           for d in deps if d.startswith(("aot.deploy", "aot.tools", "aot.cli"))]
    assert bad == []


def test_no_import_cycle():
    graph = _graph()
    # resolve package imports to their __init__ module names present in the graph
    edges = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    state, cycles = {}, []
    for root in edges:  # iterative DFS (white 0 / grey 1 / black 2)
        if state.get(root):
            continue
        stack = [(root, iter(sorted(edges[root])))]
        path = [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sorted(edges[nxt]))))
                path.append(nxt)
    assert cycles == []


def test_layer_check_detects_an_upward_import(tmp_path):
    """The walk really sees imports inside functions (a lazy import going up counts)."""
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from aot.deploy.build import build_compiled\n")
    assert _imports(f) == {"aot.deploy.build"}
    assert _layer("aot.deploy.build") > _layer("aot.compiler.plan")


def test_layer_check_sees_dynamic_imports(tmp_path):
    """__import__ and importlib.import_module count as imports (a circle once hid behind
    __import__("aot.cli") in aot/tools/compare.py); file loaders do not."""
    f = tmp_path / "m.py"
    f.write_text("import importlib\n"
                 "x = __import__('aot.cli', fromlist=['build_parser'])\n"
                 "def f(name):\n"
                 "    importlib.import_module('aot.deploy.qemu')\n"
                 "    importlib.import_module(f'aot.backends.{name}.partitioner')\n"
                 "    importlib.import_module('numpy')\n"
                 "    importlib.util.spec_from_file_location('m', 'aot/cli.py')\n")
    assert _imports(f) == {"aot.cli", "aot.deploy.qemu", "aot.backends"}


@pytest.mark.parametrize("modules", [
    "aot",
    "aot.cli",
    "aot.tools.inspect",
    "aot.deploy.run, aot.deploy.qemu, aot.deploy.uf2, aot.deploy.boards",
    "aot.host.runtime",
    "aot.tools.preflight, aot.compiler.model_path, aot.compiler.recipe, aot.deploy.generate",
    "aot.tools.compare, aot.tools.profile, aot.tools.debug, aot.tools.commands",
])
def test_fast_start_without_torch(modules):
    code = (f"import sys, importlib\nfor m in '{modules}'.split(', '): importlib.import_module(m)\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", f"{modules} imports torch"
