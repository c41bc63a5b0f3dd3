"""`aot profile` and `aot debug` on the simulated Cortex-M33 (mps2-an505):
the firmware's event tracer (aot build --trace profile|debug) over the UART."""
import json
import socket

import pytest

import zoo
from aot.cli import main
from aot.deploy.qemu import start_on_tcp

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

BOARD = "mps2-an505"


@pytest.fixture(scope="module")
def ds_profile(tmp_path_factory):
    """DS-CNN int8 (int8 I/O) profiled on mps2-an505 by `aot profile --json`,
    with its PNG and ETDump: (folder, firmware build folder, the JSON)."""
    import contextlib
    import io
    root = tmp_path_factory.mktemp("profile")
    out = root / "fw"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["profile", str(zoo.path("ds_cnn")), "--int8", "--int8-io", "--target", BOARD, "--json",
                     "-o", str(out), "--png", str(root / "p.png"), "--etdump", str(root / "p.etdp")])
    assert code == 0
    (root / "p.json").write_text(buf.getvalue())
    return root, out, json.loads(buf.getvalue())


def test_profile_rows_sum_to_the_untraced_count(ds_profile):
    root, out, p = ds_profile
    assert p["tick_unit"] == "instructions" and p["target"] == BOARD
    assert len(p["ops"]) == 13
    # exact instruction counts: the rows account for the whole inference within 1 %
    assert abs(p["total_ticks"] - p["whole_ticks"]) <= 0.01 * p["whole_ticks"]
    # a whole DS-CNN inference (2.66 M MACs) at under 2 MACs per M33 instruction
    assert p["whole_ticks"] > 1_330_000
    convs = [o for o in p["ops"] if o["op"] == "mote::conv2d_s8.out"]
    # the variant that ran, per layer: the first conv (Cin 1) is the stem, the others pointwise
    # (all with the E-form table: out_zp -128, the full range)
    assert len(convs) == 5 and [o["kernel"] for o in convs] == ["DSP stem+etable"] + ["DSP pointwise+etable"] * 4
    assert all(o["source"] == "ds_cnn.py:31" for o in convs)
    # its 25x5 depthwise maps run channel by channel over per-channel planes
    dws = [o["kernel"] for o in p["ops"] if o["op"] == "mote::depthwise_conv2d_s8.out"]
    assert dws == ["DSP planes+eform"] * 4
    assert convs[1]["macs"] == 512_000 and convs[1]["macs_per_tick"] == pytest.approx(512_000 / convs[1]["ticks"])
    assert abs(sum(o["share"] for o in p["ops"]) - 1.0) < 1e-9
    assert (out / "model.debug.json").exists() and json.loads((out / "build.json").read_text())["trace"] == "profile"


def test_the_etdump_reads_in_executorchs_inspector(ds_profile):
    from executorch.devtools import Inspector
    from executorch.devtools.inspector import TimeScale
    root, _, _ = ds_profile
    p = json.loads((root / "p.json").read_text())
    with open(root / "p.etdp", "rb") as f:
        assert f.read(12)[8:12] == b"ED00"
    insp = Inspector(etdump_path=str(root / "p.etdp"), source_time_scale=TimeScale.CYCLES,
                     target_time_scale=TimeScale.CYCLES)
    (block,) = insp.event_blocks
    events = [e for e in block.events if e.name != "Method::execute"]
    assert [e.name for e in events] == [o["op"] for o in p["ops"]]
    assert [e.perf_data.raw[0] for e in events] == [float(o["ticks"]) for o in p["ops"]]


def test_the_png_is_a_chart(ds_profile):
    import matplotlib.image
    root, _, _ = ds_profile
    img = matplotlib.image.imread(root / "p.png")
    assert img.shape[0] > 300 and img.shape[1] > 600
    assert img[..., :3].std() > 0.05  # bars and text, not a blank canvas


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_profile_over_serial_matches_the_simulator(ds_profile, capsys):
    """A traced firmware behind a socket (as a board behind its port): the same rows."""
    root, out, _ = ds_profile
    p_sim = json.loads((root / "p.json").read_text())
    port = _free_port()
    proc = start_on_tcp(out / "firmware.elf", BOARD, port)
    try:
        assert main(["profile", str(out), "--target", f"serial:socket://127.0.0.1:{port}", "--json",
                     "--timeout", "120"]) == 0
    finally:
        proc.kill()
        proc.wait()
    p = json.loads(capsys.readouterr().out)
    assert p["tick_unit"] == "instructions"
    assert [o["ticks"] for o in p["ops"]] == [o["ticks"] for o in p_sim["ops"]]


def test_debug_int8_on_the_board_equals_the_host(capsys, tmp_path):
    args = ["debug", str(zoo.path("ds_cnn")), "--int8", "--int8-io", "--json"]
    assert main(args + ["--target", BOARD, "-o", str(tmp_path / "dbg")]) == 0
    board = json.loads(capsys.readouterr().out)
    assert main(args + ["--target", "host"]) == 0
    host = json.loads(capsys.readouterr().out)
    assert board["first_divergent"] is None
    assert len(board["ops"]) == 13
    assert all(o["quanta_vs_pt2e"] <= 1 for o in board["ops"])
    assert all(o["quanta_vs_int8ref"] in (0, None) for o in board["ops"])
    strip = lambda r: [(o["instr"], o["max_abs_error"], o["quanta_vs_pt2e"]) for o in r["ops"]]  # noqa: E731
    assert strip(board) == strip(host)


def _symbols(elf) -> set:
    from elftools.elf.elffile import ELFFile
    with open(elf, "rb") as f:
        return {s.name for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols()}


def test_the_tracer_is_compiled_out_by_default(ds_profile, tmp_path):
    """Without --trace the firmware has no tracer code and the same mote_method_t."""
    _, traced, _ = ds_profile
    plain = tmp_path / "plain"
    assert main(["build", str(zoo.path("ds_cnn")), "--int8", "--int8-io", "--board", BOARD, "-o", str(plain)]) == 0
    assert "mote_method_set_tracer" in _symbols(traced / "firmware.elf")
    assert "mote_method_set_tracer" not in _symbols(plain / "firmware.elf")
    size = lambda d: json.loads((d / "size.json").read_text())["flash"]["runtime"]  # noqa: E731
    assert size(plain) < size(traced)
