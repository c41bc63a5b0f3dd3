"""The Pico (RP2040) image on rp2040js (npm, sim/rp2040; aot/deploy/rp2040js.py).

The UF2 `aot build --board pico --selftest` writes boots from reset through Mote's
bootrom stand-in and the image's own boot2, and its self-test passes in fp32 and
int8 under `aot test --target pico`. What a user can get wrong ends in one line from
`aot run`, bounded by core cycles: a corrupted boot2, a UF2 for another chip family,
a UF2 whose blocks leave a hole or miss one, a firmware that hard-faults, a budget
spent.
"""
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from aot.deploy import rp2040js
from aot.deploy.boards import load_board
from aot.deploy.firmware import boot2_crc32
from aot.deploy.uf2 import RP2040_FAMILY_ID, RP2350_ARM_S_FAMILY_ID, bin_to_uf2

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "zoo" / "small_cnn.py"
AOT = [sys.executable, "-m", "aot.cli"]
FLASH = 0x10000000

pytestmark = [pytest.mark.sim]


def _aot(*args, timeout=600):
    return subprocess.run(AOT + [str(a) for a in args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """{"fp32", "int8"}: build folders of `aot build zoo/small_cnn.py --board pico --selftest`."""
    out = {}
    for dtype, extra in (("fp32", []), ("int8", ["--int8"])):
        d = tmp_path_factory.mktemp(f"pico-{dtype}")
        r = _aot("build", MODEL, "--board", "pico", "--selftest", *extra, "-o", d)
        assert r.returncode == 0, r.stderr
        out[dtype] = d
    return out


def _one_error_line(r, command="run"):
    assert r.returncode != 0
    err = r.stderr.strip()
    assert "\n" not in err and err.startswith(f"aot {command}: error: "), r.stderr
    return err


def _blocks(uf2: bytes) -> list:
    return [bytearray(uf2[i:i + 512]) for i in range(0, len(uf2), 512)]


def _copy(build: Path, tmp_path: Path) -> Path:
    dst = tmp_path / build.name
    shutil.copytree(build, dst)
    return dst


@pytest.mark.parametrize("dtype", ["fp32", "int8"])
def test_selftest_passes_on_rp2040(builds, dtype):
    d = builds[dtype]
    # the image run is the one the build wrote: its UF2 is its .bin for RP2040 flash
    uf2 = (d / "firmware.uf2").read_bytes()
    assert uf2 == bin_to_uf2((d / "firmware.bin").read_bytes(), FLASH, RP2040_FAMILY_ID)
    r = _aot("test", d, "--target", "pico", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS: 4 case(s)" in r.stdout
    run = rp2040js.run_uf2(d / "firmware.uf2", "pico")
    assert (run.result, run.exit_status) == ("exit", 0)
    # reset -> bootrom (CRC-32 of boot2) -> boot2 in SRAM -> the image's reset handler
    assert 0 < run.boot2_cycles < run.image_cycles < run.cycles
    counts = [int(ln.split()[2]) for ln in run.uart.splitlines() if ln.startswith("OUT ")]
    assert len(counts) == 4 and all(0 < c < run.cycles for c in counts)
    assert sum(counts) < run.cycles - run.image_cycles
    # the firmware's SysTick count of inference k+1 lies within the core cycles between
    # OUT lines k and k+1 (rp2040js advances SysTick with its core cycle count), and is
    # most of them (the rest: comparing and printing)
    assert len(run.out_cycles) == 4
    for k in range(3):
        between = run.out_cycles[k + 1] - run.out_cycles[k]
        assert 0.5 * between < counts[k + 1] < between


@pytest.mark.parametrize("model", ["ds_cnn", "garden/tcn"])
@pytest.mark.parametrize("dtype", ["fp32", "int8"])
def test_kws_and_a_garden_model_selftest_on_rp2040(model, dtype, tmp_path):
    """DS-CNN (KWS, 2.66 M MACs) and the garden's TCN (Conv1d) fit the RP2040's 264 KiB
    and pass their self-test on rp2040js; fp32 runs on soft float (DS-CNN: ~578 M cycles,
    4.6 s at 125 MHz, per inference), inside `aot test`'s default budget of 120 s of
    simulated time. Two cases keep the fp32 run short."""
    d = tmp_path / "b"
    extra = ["--int8"] if dtype == "int8" else []
    r = _aot("build", ROOT / "zoo" / f"{model}.py", "--board", "pico", "--selftest", "2", *extra, "-o", d)
    assert r.returncode == 0, r.stderr
    r = _aot("test", d, "--target", "pico", "--json", timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    import json
    rep = json.loads(r.stdout)
    assert rep["verdict"] == "PASS" and rep["n"] == 2 and rep["target"] == "pico"
    assert all(row["verdict"] == "PASS" for row in rep["rows"])


def test_a_budget_too_small_names_the_timeout(builds):
    err = _one_error_line(_aot("test", builds["int8"], "--target", "pico", "--timeout", "0.001", timeout=120),
                          "test")
    assert "cycle budget (125000 cycles) ran out" in err and "raise --timeout" in err


def test_profile_and_debug_on_rp2040(tmp_path):
    """`aot profile` prices each op in rp2040js core cycles (the rows account for the
    untraced inference) and `aot debug` finds every int8 op within 1 quantum of PT2E and
    equal to the integer reference, on the Cortex-M0+."""
    import json
    r = _aot("profile", MODEL, "--int8", "--target", "pico", "--json", "-o", tmp_path / "p", timeout=600)
    assert r.returncode == 0, r.stderr
    p = json.loads(r.stdout)
    assert p["tick_unit"] == "cycles" and p["target"] == "pico" and len(p["ops"]) == 8
    assert abs(p["total_ticks"] - p["whole_ticks"]) <= 0.01 * p["whole_ticks"]
    convs = [o for o in p["ops"] if o["op"] == "mote::conv2d_s8.out"]
    assert [o["macs"] for o in convs] == [4_608, 18_432] and all(o["kernel"] == "portable" for o in convs)
    r = _aot("debug", MODEL, "--int8", "--target", "pico", "--json", "-o", tmp_path / "d", timeout=600)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["first_divergent"] is None and len(d["ops"]) == 8
    assert all(o["quanta_vs_pt2e"] in (None, 0, 1) for o in d["ops"])
    assert all(o["quanta_vs_int8ref"] in (0, None) for o in d["ops"])


def test_corrupted_boot2_is_refused(builds, tmp_path):
    d = _copy(builds["int8"], tmp_path)
    blocks = _blocks((d / "firmware.uf2").read_bytes())
    body = bytes(blocks[0][32:32 + 252])
    assert struct.unpack_from("<I", blocks[0], 32 + 252)[0] == boot2_crc32(body)  # intact before
    blocks[0][32 + 5] ^= 0x01
    (d / "firmware.uf2").write_bytes(b"".join(blocks))
    err = _one_error_line(_aot("run", d, "--target", "pico", timeout=120))
    assert "the RP2040 bootrom did not boot firmware.uf2" in err and "CRC-32" in err


def test_wrong_family_is_refused(builds, tmp_path):
    d = _copy(builds["int8"], tmp_path)
    blocks = _blocks((d / "firmware.uf2").read_bytes())
    for b in blocks:
        struct.pack_into("<I", b, 28, RP2350_ARM_S_FAMILY_ID)
    (d / "firmware.uf2").write_bytes(b"".join(blocks))
    err = _one_error_line(_aot("run", d, "--target", "pico", timeout=120))
    assert "no block is for the RP2040 (family 0xe48bff56)" in err and "0xe48bff59 (RP2350 Arm Secure)" in err


def test_hole_and_missing_block_are_refused(builds, tmp_path):
    blocks = _blocks((builds["int8"] / "firmware.uf2").read_bytes())
    missing = blocks[:3] + blocks[4:]            # block 3 of n never arrives
    (tmp_path / "missing.uf2").write_bytes(b"".join(missing))
    run = rp2040js.run_uf2(tmp_path / "missing.uf2", "pico")
    assert run.result == "bad_uf2" and "1 of its" in run.message and "first: block 3" in run.message
    hole = [bytearray(b) for b in missing]       # renumbered: complete, but flash 0x10000300.. is a hole
    for k, b in enumerate(hole):
        struct.pack_into("<II", b, 20, k, len(hole))
    (tmp_path / "hole.uf2").write_bytes(b"".join(hole))
    run = rp2040js.run_uf2(tmp_path / "hole.uf2", "pico")
    assert run.result == "bad_uf2" and "hole in flash at 0x10000300..0x10000400" in run.message
    assert run.cycles == 0 and run.uart == ""


def test_hard_fault_ends_in_one_line(builds, tmp_path):
    d = _copy(builds["int8"], tmp_path)
    nm = subprocess.run(["arm-none-eabi-nm", str(d / "firmware.elf")], capture_output=True, text=True,
                        check=True).stdout
    main = next(int(f[0], 16) for f in (ln.split() for ln in nm.splitlines()) if f[-1] == "main")
    main &= ~1
    uf2 = bytearray((d / "firmware.uf2").read_bytes())
    off = (main - FLASH) // 256 * 512 + 32 + (main - FLASH) % 256
    struct.pack_into("<H", uf2, off, 0xDE00)     # UDF #0 as main's first instruction
    (d / "firmware.uf2").write_bytes(bytes(uf2))
    err = _one_error_line(_aot("run", d, "--target", "pico", timeout=120))
    assert f"hard fault at pc=0x{main:08x}" in err and "exited with status 3" in err
    run = rp2040js.run_uf2(d / "firmware.uf2", "pico")
    assert run.result == "fault" and f"MOTE FAULT exception=3 pc=0x{main:08x}" in run.uart


def test_an_image_that_never_prints_ends_after_one_simulated_second(builds, tmp_path):
    """A reset handler that spins reading an SIO register rp2040js does not model (a
    runaway image: no fault, no UART byte) ends as "silent" after FIRST_OUTPUT_SECONDS of
    simulated time, not at the budget; rp2040js's console line per access is counted, not
    piped (hundreds of thousands of them once blocked the runner on a full stderr pipe)."""
    d = _copy(builds["int8"], tmp_path)
    uf2 = bytearray((d / "firmware.uf2").read_bytes())
    reset = struct.unpack_from("<I", uf2, 1 * 512 + 32 + 4)[0] & ~1   # vector 1 at 0x10000104
    # movs r0,#0xd0; lsls r0,#24; movs r1,#0xf8; lsls r1,#1; ldr r2,[r0,r1]; b .-2  (0xd00001f0)
    loop = struct.pack("<6H", 0x20D0, 0x0600, 0x21F8, 0x0049, 0x5842, 0xE7FD)
    off = (reset - FLASH) // 256 * 512 + 32 + (reset - FLASH) % 256
    assert (reset - FLASH) % 256 + len(loop) <= 256
    uf2[off:off + len(loop)] = loop
    (d / "firmware.uf2").write_bytes(bytes(uf2))
    board = load_board("pico")
    run = rp2040js.run_uf2(d / "firmware.uf2", board)
    second = rp2040js.cycle_budget(board, rp2040js.FIRST_OUTPUT_SECONDS)
    assert run.result == "silent" and second < run.cycles < second + 100 and run.uart == ""
    assert "put nothing on UART0 in its first 125000000 cycles" in run.message
    assert "first: Read from invalid SIO address: 1f0" in run.message
    err = _one_error_line(_aot("run", d, "--target", "pico", timeout=300))
    assert "the firmware did not start on the RP2040 (rp2040js)" in err


def test_cycle_budget_bounds_a_run(builds):
    board = load_board("pico")
    run = rp2040js.run_uf2(builds["int8"] / "firmware.uf2", board, max_cycles=200_000)
    assert run.result == "budget" and 200_000 < run.cycles < 200_100
    assert "MOTE BOOT pico" in run.uart and "MOTE DONE" not in run.uart
    assert rp2040js.cycle_budget(board) == 10 * 125_000_000


def test_uart_inputs_reach_the_firmware(tmp_path):
    """--uart-inputs: the runner feeds UART0's receiver as its FIFO has room; the outputs
    are the host runtime's for the same program and input, byte for byte."""
    import numpy as np
    from aot.deploy.run import run_host, run_simulator
    d = tmp_path / "uin"
    r = _aot("build", MODEL, "--board", "pico", "--int8", "--uart-inputs", "-o", d)
    assert r.returncode == 0, r.stderr
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 1, 8, 8)
    sim = run_simulator(d, "pico", [x], timeout=120)
    host = run_host(d / "model.pte", [x])
    assert sim["counter"] == "cycles" and sim["runs"][0]["cycles"] > 100_000
    assert np.asarray(sim["runs"][0]["outputs"][0]).tobytes() == np.asarray(host["runs"][0]["outputs"][0]).tobytes()


def test_missing_rp2040js_is_one_line(monkeypatch, tmp_path):
    from aot.errors import RunError
    monkeypatch.setattr(rp2040js, "SIM_DIR", tmp_path)
    with pytest.raises(RunError) as e:
        rp2040js.check_installed()
    assert "rp2040js 1.4.1 is not installed" in str(e.value) and "npm ci --prefix sim/rp2040" in str(e.value)


def test_bus_fault_enters_the_firmwares_handler(tmp_path):
    """The port self-test's fault variant reads 0xf0000000 (nothing answers there): the
    core enters HardFault at that load, as on silicon, and the pico port's handler
    reports it on UART0 before the run ends as a fault."""
    import re
    from aot.deploy.firmware import build_firmware
    a = build_firmware("pico", [ROOT / "ports" / "cortex-m" / "selftest.c"],
                       defines={"MOTE_SELFTEST_FAULT": None}, out_dir=tmp_path / "fw", stack_bytes=4096)
    run = rp2040js.run_uf2(a.uf2, "pico")
    assert (run.result, run.exit_status) == ("fault", 3)  # MOTE_PORT_EXIT_FAULT, from the firmware
    assert "FAULT TEST" in run.uart and "NOT REACHED" not in run.uart
    m = re.search(r"MOTE FAULT exception=3 pc=0x([0-9a-f]{8})", run.uart)
    nm = subprocess.run(["arm-none-eabi-nm", "-S", str(a.elf)], capture_output=True, text=True, check=True).stdout
    start, size = next((int(f[0], 16) & ~1, int(f[1], 16)) for f in (ln.split() for ln in nm.splitlines())
                       if f[-1] == "mote_selftest_fault_read")
    assert m and start <= int(m.group(1), 16) < start + size
    assert run.fault["pc"] == "0x" + m.group(1) and "f0000000" in run.message
