"""Target (aot.deploy.target): --board (what you build for) and --target (where you run)
resolve once; the Board is loaded there and handed down."""
import pytest

from aot.cli import main
from aot.deploy.target import BOARD, HOST, LINUX, SERIAL, build_target, run_target, simulated_boards
from aot.errors import BoardError, RunError


@pytest.mark.parametrize("board,kernels,dsp", [("mps2-an505", "DSP", True), ("mps3-an547", "MVE", False),
                                               ("mps2-an385", "plain C", False), ("pico2", "DSP", True)])
def test_a_board_target_derives_its_kernels(board, kernels, dsp):
    t = build_target(board)
    assert (t.kind, t.name, t.board.name) == (BOARD, board, board)
    assert (t.int8_kernels, t.dsp_kernels) == (kernels, dsp)


def test_a_board_file_and_a_board_object_resolve_to_the_same_board():
    from aot.paths import BOARDS_DIR
    by_file = build_target(str(BOARDS_DIR / "mps2-an505.json"))
    assert by_file.board == build_target("mps2-an505").board
    assert build_target(by_file.board).board is by_file.board    # a Board is taken as it is, not reloaded


def test_run_targets():
    assert run_target("host").kind == HOST and run_target("host").board is None
    assert run_target("host").int8_kernels == "portable"
    s = run_target("serial:/dev/ttyACM0")
    assert (s.kind, s.port, s.board) == (SERIAL, "/dev/ttyACM0", None)
    with pytest.raises(RunError, match=r"^--target serial:PORT needs a port"):
        run_target("serial:")
    assert run_target("linux-aarch64", linux=True).kind == LINUX
    with pytest.raises(BoardError, match="unknown board 'linux-aarch64'"):
        run_target("linux-aarch64")                  # a command that does not run on Linux
    with pytest.raises(BoardError, match="unknown board 'serial:x'"):
        run_target("serial:x", serial=False)         # a command that does not talk to a real board
    sim = run_target("mps2-an505")
    assert sim.simulated and sim.require_simulator("unused") is sim
    with pytest.raises(RunError, match="^no simulator here$"):
        run_target("pico2").require_simulator("no simulator here")


def test_simulated_boards_are_the_boards_naming_a_simulator():
    sims = simulated_boards()
    assert {"mps2-an505", "mps3-an547"} <= set(sims) and "pico2" not in sims
    assert all(build_target(b).simulated for b in sims)


@pytest.mark.parametrize("argv,message", [
    (["compare", "zoo/mlp.py", "--target", "pico2"], "aot compare: error: board pico2 has no simulator to compare on\n"),
    (["build", "zoo/mlp.py", "--board", "nope"], "aot build: error: unknown board 'nope'; known boards: "),
    (["run", "x.pte", "--target", "serial:"], "aot run: error: --target serial:PORT needs a port"),
])
def test_a_bad_board_or_target_is_one_line_before_any_compile(argv, message, capsys):
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith(message)


def test_running_inputs_on_a_selftest_build_names_selftest(tmp_path):
    """A --selftest build links no inputs object: `aot run --inputs` on it says so (found by a
    fresh-clone trial: it said "build.json has no link information; rebuild", which cannot help)."""
    import hashlib
    import json
    from aot.deploy.run import relink_with_inputs
    (tmp_path / "model.pte").write_bytes(b"pte")
    (tmp_path / "firmware.elf").write_bytes(b"elf")
    info = {"board": "mps2-an505", "selftest": 4,
            "pte_sha256": hashlib.sha256(b"pte").hexdigest(), "firmware_sha256": hashlib.sha256(b"elf").hexdigest(),
            "link": {"objects": [], "inputs_object": None}}
    (tmp_path / "build.json").write_text(json.dumps(info))
    with pytest.raises(RunError, match="was built with --selftest: its firmware checks its own cases"):
        relink_with_inputs(tmp_path, [[]])
