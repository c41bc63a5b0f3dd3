"""Issue "Foundation" §3, firmware side: a build folder is all one build or the
previous one, `aot run` refuses a folder whose files do not belong together,
re-linking with new inputs links libm like the build does, float64 inputs are
cast with a note as on the host, and a board given as a file works with
build, run and compare."""
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
AOT = [sys.executable, "-m", "aot.cli"]

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

# sigmoid / tanh / exp / log: the kernels call expf/tanhf/logf from libm
MODEL = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x):
        y = self.fc(x)
        return torch.log_softmax(torch.tanh(y) + torch.sigmoid(y), -1)


def model():
    torch.manual_seed(0)
    return M().eval()


def example_inputs():
    return (torch.randn(1, 6),)
'''

BIG = '''import torch
from torch import nn


def model():
    torch.manual_seed(0)
    return nn.Linear(1024, 256).eval()  # 1 MiB of weights: more than nucleo-f446re's flash


def example_inputs():
    return (torch.randn(1, 1024),)
'''


def _aot(*args):
    return subprocess.run(AOT + [str(a) for a in args], capture_output=True, text=True, timeout=600)


def _digest(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("fw")
    (d / "act.py").write_text(MODEL)
    out = d / "build"
    r = _aot("build", d / "act.py", "--board", "mps2-an505", "-o", out)
    assert r.returncode == 0, r.stderr
    return d, out


def _eager(x: np.ndarray) -> np.ndarray:
    ns: dict = {}
    exec(MODEL, ns)
    with torch.no_grad():
        return ns["model"]()(torch.from_numpy(x)).numpy()


def test_run_with_new_inputs_relinks_with_libm(built):
    d, out = built
    x = np.random.default_rng(3).standard_normal((1, 6)).astype(np.float32)
    np.savez(d / "in.npz", x)
    r = _aot("run", out, "--target", "mps2-an505", "--inputs", d / "in.npz", "--json")
    assert r.returncode == 0, r.stderr
    got = np.asarray(json.loads(r.stdout)["outputs"][0], np.float32)
    assert np.max(np.abs(got - _eager(x))) <= 1e-5


def test_float64_inputs_are_cast_with_a_note_on_the_simulator(built):
    d, out = built
    x = np.random.default_rng(4).standard_normal((1, 6))  # float64
    np.savez(d / "in64.npz", x)
    r = _aot("run", out, "--target", "mps2-an505", "--inputs", d / "in64.npz", "--json")
    assert r.returncode == 0, r.stderr
    assert "input 0 is float64; cast to float32" in r.stderr
    got = np.asarray(json.loads(r.stdout)["outputs"][0], np.float32)
    host = _aot("run", out / "model.pte", "--inputs", d / "in64.npz", "--json")
    assert np.array_equal(got, np.asarray(json.loads(host.stdout)["outputs"][0], np.float32))


def test_failed_build_leaves_the_previous_folder_untouched(built, tmp_path):
    d, out = built
    copy = tmp_path / "build"
    shutil.copytree(out, copy)
    before = _digest(copy)
    (tmp_path / "big.py").write_text(BIG)
    r = _aot("build", tmp_path / "big.py", "--board", "nucleo-f446re", "-o", copy)
    assert r.returncode == 1 and "does not fit nucleo-f446re" in r.stderr
    assert _digest(copy) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left


def test_run_refuses_a_folder_mixing_two_builds(built, tmp_path):
    d, out = built
    mixed = tmp_path / "mixed"
    shutil.copytree(out, mixed)
    r = _aot("export", d / "act.py", "--int8", "-o", tmp_path / "other.pte")
    assert r.returncode == 0, r.stderr
    shutil.copy(tmp_path / "other.pte", mixed / "model.pte")
    r = _aot("run", mixed, "--target", "mps2-an505")
    assert r.returncode == 1 and "model.pte does not match build.json" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_board_file_works_with_build_run_and_compare(built, tmp_path):
    d, _ = built
    board = json.loads((ROOT / "boards" / "mps2-an505.json").read_text())
    board["name"] = "my-m33"
    board_file = tmp_path / "my-m33.json"
    board_file.write_text(json.dumps(board))
    out = tmp_path / "b"
    r = _aot("build", d / "act.py", "--board", board_file, "-o", out)
    assert r.returncode == 0, r.stderr
    r = _aot("run", out, "--target", board_file, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["instructions"] > 0
    r = _aot("compare", d / "act.py", "--target", board_file, "--json", "-o", tmp_path / "c")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["max_rel_error"] <= 1e-5


def test_verify_checksum_stops_a_corrupt_program_at_boot(built, tmp_path):
    """`aot build --verify-checksum`: the firmware runs as usual, and one flipped weight
    byte in the program in flash stops it with MOTE_ERR_CHECKSUM before load (without
    the option the same corruption loads and runs)."""
    from aot.host.runtime import error_codes
    from aot.deploy.qemu import run_firmware

    d, plain = built
    out = tmp_path / "crc"
    r = _aot("build", d / "act.py", "--board", "mps2-an505", "-o", out, "--verify-checksum")
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "build.json").read_text())["verify_checksum"] is True
    assert "#define MOTE_MODEL_CRC32" in (out / "mote_model.h").read_text()
    r = _aot("run", out, "--target", "mps2-an505", "--json")
    assert r.returncode == 0, r.stderr

    def corrupt(folder: Path) -> Path:
        pte = (folder / "model.pte").read_bytes()
        elf = bytearray((folder / "firmware.elf").read_bytes())
        at = elf.find(pte)
        assert at > 0 and elf.find(pte, at + 1) < 0
        elf[at + len(pte) - 5] ^= 0x40  # a byte of the last weight (the constant segment ends the file)
        bad = tmp_path / f"{folder.name}-corrupt.elf"
        bad.write_bytes(bytes(elf))
        return bad

    status, uart = run_firmware(corrupt(out), "mps2-an505", timeout_s=60)
    assert status != 0 and f"MOTE ERROR checksum {error_codes()['CHECKSUM']}" in uart, uart
    status, uart = run_firmware(corrupt(plain), "mps2-an505", timeout_s=60)
    assert status == 0 and "MOTE DONE" in uart and "MOTE ERROR" not in uart, uart
