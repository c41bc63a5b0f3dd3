"""Issue 39: every user mistake that needs no model is refused before torch is imported
(aot.tools.preflight, called by aot.cli.main): one line, the command's own message."""
import subprocess
import sys
from pathlib import Path

import pytest

from aot.cli import build_parser
from aot.tools.preflight import preflight

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "zoo" / "mlp.py")
#: aot.cli.main with torch made unimportable: a refusal that imported it would fail loudly
NO_TORCH = "import sys; sys.modules['torch'] = None; from aot.cli import main; sys.exit(main(sys.argv[1:]))"

MISTAKES = [
    (["export", "nope.py"], "model file not found"),
    (["export", str(ROOT / "README.md")], "expected a .py model file or a .pt2"),
    (["build", MLP, "--board", "pico3"], "unknown board 'pico3'"),
    (["build", MLP, "--board", "pico2", "--opt", "fast"], "--opt fast: choose"),
    (["build", MLP, "--board", "pico2", "--kernel-opt=-O9"], "--kernel-opt -O9: choose auto"),
    (["build", MLP, "--board", "pico2", "--int8-io"], "--int8-io keeps an int8 program's inputs"),
    (["build", MLP, "--board", "pico2", "--int8", "--calib", "nope.npz"], "--calib nope.npz: no such file"),
    (["build", MLP, "--board", "pico2", "--inputs", "nope.npz"], "--inputs nope.npz: no such file"),
    (["build", MLP, "--board", "pico2", "-o", str(ROOT / "README.md")], "is a file, not a folder"),
    (["build", MLP, "--board", "pico2", "-o", str(ROOT / "docs")], "not a folder `aot build` wrote"),
    (["build", MLP, "--board", "pico2", "-o", str(ROOT / "README.md" / "b")], "cannot write there"),
    (["build", MLP, "--board", "pico2", "-o", "/proc/mote-out"], "-o /proc/mote-out: cannot write there"),
    (["generate", MLP, "--board", "pico2", "-o", "/sys/kernel/mote"], "cannot write there"),
    (["generate", MLP, "--board", "nope"], "unknown board 'nope'"),
    (["compare", MLP, "--target", "pico3"], "unknown board 'pico3'"),
    (["compare", MLP, "--target", "pico2"], "board pico2 has no simulator to compare on"),
    (["profile", MLP, "--target", "pico2"], "board pico2 has no simulator"),
    (["debug", MLP, "--target", "host", "--int4-weights", "--group-size", "64", "--int16-activations"],
     "--int16-activations takes int8 weights"),
    (["profile", "nope.pte", "--target", "host"], "nope.pte: no such file"),
    (["debug", str(ROOT / "zoo"), "--target", "host"], "`aot profile` takes build folders and .pte files"),
    (["debug", MLP, "--target", "serial:/dev/ttyACM0"], "aot debug runs on host or a simulated board"),
    (["run", "nope.pte"], "nope.pte: no such file"),
    (["run", MLP, "--target", "serial:"], "serial:PORT needs a port"),
    (["test", "nope"], "nope: no such file"),
    (["qemu", "x.elf", "--board", "nope"], "unknown board 'nope'"),
]


@pytest.mark.parametrize("argv,needle", MISTAKES, ids=[" ".join(Path(a).name for a in m[0][:3]) + f" [{i}]"
                                                       for i, m in enumerate(MISTAKES)])
def test_refused_in_one_line_without_torch(argv, needle):
    r = subprocess.run([sys.executable, "-c", NO_TORCH, *argv], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"aot {argv[0]}: error: ") and needle in r.stderr, r.stderr


@pytest.mark.parametrize("argv", [
    ["export", MLP, "-o", "unused.pte"],
    ["build", MLP, "--board", "pico2", "--int8", "--opt", "size", "--kernel-opt=-O2"],
    ["compare", MLP, "--target", "linux-aarch64"],
    ["run", str(ROOT / "zoo"), "--target", "serial:socket://127.0.0.1:1"],
])
def test_a_good_command_line_passes(argv, tmp_path):
    """Preflight refuses nothing the command itself would take (it writes nothing either)."""
    before = set(tmp_path.iterdir())
    preflight(build_parser().parse_args(argv))
    assert set(tmp_path.iterdir()) == before
