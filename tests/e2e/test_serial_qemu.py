"""The serial loop against QEMU with UART0 on a TCP socket
(aot.deploy.qemu.start_on_tcp: -serial tcp:...,server=on,wait=on), so the same
pyserial code that talks to a real board's port is exercised:

* `aot monitor socket://...` decodes a real firmware's BOOT/MODEL/OUT/DONE lines;
* `aot run DIR --target serial:socket://...` against --uart-inputs firmware gives
  the outputs of the host runtime (within fp32 tolerance) and exactly those of
  `aot run DIR --target mps2-an505` (QEMU fed through stdin).
"""
import json
import socket

import numpy as np
import pytest

import zoo
from aot.cli import main
from aot.deploy.qemu import start_on_tcp
from aot.deploy.run import run_host

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

BOARD = "mps2-an505"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """small_cnn fp32 for mps2-an505, built by `aot build`: with inputs embedded
    from in.npz, and with --uart-inputs."""
    root = tmp_path_factory.mktemp("serial")
    x = np.random.default_rng(7).standard_normal((1, 1, 8, 8)).astype(np.float32)
    np.savez(root / "in.npz", x)
    model = str(zoo.path("small_cnn"))
    assert main(["build", model, "--board", BOARD, "-o", str(root / "embedded"),
                 "--inputs", str(root / "in.npz")]) == 0
    assert main(["build", model, "--board", BOARD, "-o", str(root / "uart"), "--uart-inputs"]) == 0
    return root, x


@pytest.fixture
def qemu_on_socket():
    procs = []

    def start(build_dir):
        port = _free_port()
        procs.append(start_on_tcp(build_dir / "firmware.elf", BOARD, port))
        return f"socket://127.0.0.1:{port}"
    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stderr.close()


def test_monitor_decodes_firmware_lines(builds, qemu_on_socket, capsys):
    root, x = builds
    build = root / "embedded"
    capsys.readouterr()
    url = qemu_on_socket(build)
    assert main(["monitor", url, "--json", "--build", str(build), "--timeout", "60"]) == 0
    out, err = capsys.readouterr()
    events = [json.loads(ln) for ln in out.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds == ["boot", "model", "out", "stack", "done"], out
    assert events[0]["board"] == BOARD
    assert events[1]["pte"] == (build / "model.pte").stat().st_size
    ev = events[2]
    assert ev["counter"] == "instructions" and ev["count"] > 1000
    host = run_host(build / "model.pte", [x])["runs"][0]["outputs"]
    dev = np.array(ev["outputs"][0], np.float32)
    assert ev["shapes"] == [list(host[0].shape)] and ev["dtypes"] == ["float32"]
    np.testing.assert_allclose(dev, host[0], rtol=1e-5, atol=1e-5 * np.abs(host[0]).max())
    assert events[3]["fields"]["used"] > 0  # painted-stack peak, bytes
    assert events[4]["count"] == 1
    assert "closed" in err  # QEMU exited after MOTE DONE


def test_monitor_text_and_raw(builds, qemu_on_socket, capsys):
    root, _ = builds
    build = root / "embedded"
    capsys.readouterr()
    assert main(["monitor", qemu_on_socket(build), "--raw", "--timeout", "60"]) == 0
    raw = capsys.readouterr().out.splitlines()
    assert raw[0] == f"MOTE BOOT {BOARD}" and raw[2].startswith("OUT 0 ") and raw[-1] == "MOTE DONE 1"
    assert main(["monitor", qemu_on_socket(build), "--timeout", "60"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == f"boot: board {BOARD}"
    assert text[2].startswith("inference 0: ") and text[2].endswith(" instructions")
    assert text[3].startswith("    output 0: ") and text[-1] == "done: 1 inferences"


def test_run_over_serial_matches_host_and_stdin(builds, qemu_on_socket, capsys, tmp_path):
    root, x = builds
    build = root / "uart"
    capsys.readouterr()
    url = qemu_on_socket(build)
    out_npz = tmp_path / "out.npz"
    assert main(["run", str(build), "--target", f"serial:{url}", "--inputs", str(root / "in.npz"),
                 "--outputs", str(out_npz), "--json", "--timeout", "60"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["target"] == f"serial:{url}"
    serial_out = np.load(out_npz)["output_0"]
    np.testing.assert_array_equal(np.array(res["outputs"][0], np.float32), serial_out)
    host = run_host(build / "model.pte", [x])["runs"][0]["outputs"][0]
    np.testing.assert_allclose(serial_out, host, rtol=1e-5, atol=1e-5 * np.abs(host).max())
    # the same firmware fed through QEMU's stdin: identical bytes, the same instruction count
    assert main(["run", str(build), "--target", BOARD, "--inputs", str(root / "in.npz"), "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)
    assert np.array(sim["outputs"][0], np.float32).tobytes() == serial_out.tobytes()
    # The count can move by a few instructions: how long the firmware waited for the
    # UART shifts the SysTick phase (its wrap interrupt) against the inference.
    assert abs(sim["instructions"] - res["instructions"]) <= max(64, res["instructions"] // 10000)


def test_run_over_serial_twice_on_one_boot(builds, qemu_on_socket, capsys):
    """No "Q" is sent: the board stays ready, a second run on the same boot works.
    (QEMU's socket takes one client at a time; the second connects after the first closes.)"""
    root, _ = builds
    build = root / "uart"
    capsys.readouterr()
    url = qemu_on_socket(build)
    for _ in range(2):
        assert main(["run", str(build), "--target", f"serial:{url}", "--inputs",
                     str(root / "in.npz"), "--timeout", "60"]) == 0
        out = capsys.readouterr().out
        assert "inference 0: " in out and " instructions" in out


def test_run_over_serial_embedded_firmware(builds, qemu_on_socket, capsys):
    """Firmware with embedded inputs: `aot run --target serial:` reads the runs of a boot."""
    root, x = builds
    build = root / "embedded"
    capsys.readouterr()
    assert main(["run", str(build), "--target", f"serial:{qemu_on_socket(build)}", "--json",
                 "--timeout", "60"]) == 0
    res = json.loads(capsys.readouterr().out)
    host = run_host(build / "model.pte", [x])["runs"][0]["outputs"][0]
    np.testing.assert_allclose(np.array(res["outputs"][0], np.float32), host, rtol=1e-5,
                               atol=1e-5 * np.abs(host).max())


def test_flash_a_real_pico2_build(tmp_path, capsys):
    """`aot build --board pico2` then `aot flash` into a folder that looks like the
    Pico 2's BOOTSEL drive: the drive gets the build's UF2, byte for byte."""
    from aot.deploy.uf2 import parse_uf2
    build = tmp_path / "pico2"
    assert main(["build", str(zoo.path("small_cnn")), "--board", "pico2", "-o", str(build)]) == 0
    drive = tmp_path / "RP2350"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\n"
                                        "Board-ID: RP2350\n")
    capsys.readouterr()
    assert main(["flash", str(build), "--drive", str(drive)]) == 0
    out = capsys.readouterr().out
    uf2 = (build / "firmware.uf2").read_bytes()
    assert (drive / "firmware.uf2").read_bytes() == uf2
    family, base, image = parse_uf2(uf2)
    assert family == 0xE48BFF59 and base == 0x10000000
    assert image[:(build / "firmware.bin").stat().st_size] == (build / "firmware.bin").read_bytes()
    assert f"{len(uf2):,} bytes, {len(uf2) // 512} UF2 blocks" in out
