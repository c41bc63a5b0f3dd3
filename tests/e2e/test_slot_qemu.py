"""A model slot in QEMU (mps2-an505, Cortex-M33): one firmware built once with
`aot build --slot`, model images packed with `aot pack` loaded into its slot in turn
(QEMU -device loader at the slot's address). A retrained model (same architecture,
other weights) runs and passes its self-test with the host runtime's bytes; a model
needing an operator the firmware lacks, one whose plan exceeds the reserved arena, a
corrupted image and an empty slot are each refused with their one line, and nothing
of them runs."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from aot.cli import main as aot_main
from aot.deploy.slot import read_image, run_with_image

pytestmark = [pytest.mark.slow, pytest.mark.sim, pytest.mark.usefixtures("need_qemu")]

BOARD = "mps2-an505"
#: name -> (seed, activation, hidden width): all take float32[1, 16] and give float32[1, 4]
MODELS = {"base": (0, "ReLU", 32), "retrained": (1, "ReLU", 32), "sigmoid": (1, "Sigmoid", 32),
          "wide": (1, "ReLU", 2048)}
TEMPLATE = '''import torch
from torch import nn


def model():
    torch.manual_seed({seed})
    return nn.Sequential(nn.Linear(16, {width}), nn.{act}(), nn.Linear({width}, 4)).eval()


def example_inputs():
    return (torch.randn(1, 16, generator=torch.Generator().manual_seed(7)),)
'''


def write_models(folder):
    out = {}
    for name, (seed, act, width) in MODELS.items():
        p = folder / f"{name}.py"
        p.write_text(TEMPLATE.format(seed=seed, act=act, width=width))
        out[name] = p
    return out


@pytest.fixture(scope="module")
def slot(tmp_path_factory):
    root = tmp_path_factory.mktemp("slot")
    models = write_models(root)
    fw = root / "fw"
    assert aot_main(["build", str(models["base"]), "--board", BOARD, "--slot", "-o", str(fw)]) == 0
    return root, models, fw, json.loads((fw / "slot.json").read_text())


def pack(slot, name, *extra):
    root, models, fw, _ = slot
    out = root / f"{name}.bin"
    assert aot_main(["pack", str(models[name]), "--firmware", str(fw), "-o", str(out), *extra]) == 0
    return out


def error_lines(text):
    return [ln for ln in text.splitlines() if ln.startswith("MOTE ERROR")]


def host_output(path):
    from aot.compiler.pipeline import compile_model_file
    from aot.host.runtime import Program
    c = compile_model_file(path)
    x = c.example_inputs[0].numpy()
    return np.asarray(Program(c.pte).method().run([x])[0]), c


def test_slot_json_is_the_contract(slot):
    _, models, fw, contract = slot
    _, base = host_output(models["base"])
    assert contract["address"] == 0x10300000 and contract["flash_bytes"] == 0x100000  # boards/mps2-an505.json
    assert contract["ops"] == ["aten::addmm.out", "aten::relu.out"]
    assert contract["recipe"] == {"int8": False, "int8_io": False, "int4_weights": None, "int16_activations": False,
                                  "dsp_weights": False, "linear_tables": False, "layout": "auto"}
    assert contract["inputs"] == [{"dtype": 6, "dtype_name": "float32", "sizes": [1, 16]}]
    assert contract["outputs"] == [{"dtype": 6, "dtype_name": "float32", "sizes": [1, 4]}]
    arena = base.spec.arena_sizes[1]
    assert contract["arena_bytes"] == -(-arena * 125 // 100 // 16) * 16  # + 25 % headroom, 16-byte aligned
    size = json.loads((fw / "size.json").read_text())
    assert size["slot"]["ram_bytes"] == contract["arena_bytes"] + 2 * contract["state_bytes"]
    ld = (fw / "firmware.ld").read_text()
    assert "FLASH (rx) : ORIGIN = 0x10000000, LENGTH = 0x300000" in ld
    assert "SLOT (r)   : ORIGIN = 0x10300000, LENGTH = 0x100000" in ld


def test_retrained_model_runs_and_passes_its_selftest(slot):
    _, models, fw, _ = slot
    image = pack(slot, "retrained", "--selftest")
    status, text = run_with_image(fw, image, timeout=60)
    assert status == 0, text
    assert error_lines(text) == []
    assert re.search(r"^MOTE SLOT ok pte=\d+ arena=\d+ state=\d+ cases=1$", text, re.M), text
    assert "MOTE SELFTEST PASS n=1" in text
    want, _ = host_output(models["retrained"])
    base, _ = host_output(models["base"])
    got = re.search(r"^OUT 0 \d+ ([0-9a-f]+)$", text, re.M).group(1)
    assert bytes.fromhex(got) == want.astype("<f4").tobytes()
    assert not np.array_equal(want, base)  # other weights: other outputs than the model it was sized for


def test_image_needing_a_missing_operator_is_refused(slot, capsys):
    _, models, fw, _ = slot
    root = slot[0]
    # without --unchecked, aot pack refuses it in one line naming the operator
    assert aot_main(["pack", str(models["sigmoid"]), "--firmware", str(fw), "-o", str(root / "x.bin")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "operator aten::sigmoid.out missing" in err[0], err
    assert not (root / "x.bin").exists()
    status, text = run_with_image(fw, pack(slot, "sigmoid", "--unchecked"), timeout=60)
    assert status == 1
    assert error_lines(text) == ["MOTE ERROR slot operator aten::sigmoid.out missing"]
    assert "OUT " not in text and "MOTE SLOT none" in text


def test_image_whose_plan_exceeds_the_reserved_arena_is_refused(slot):
    _, models, fw, contract = slot
    _, wide = host_output(models["wide"])
    status, text = run_with_image(fw, pack(slot, "wide", "--unchecked"), timeout=60)
    assert status == 1
    assert error_lines(text) == [f"MOTE ERROR slot arena need={wide.spec.arena_sizes[1]} "
                                 f"reserved={contract['arena_bytes']}"]
    assert "OUT " not in text


def test_corrupted_image_and_empty_slot_are_refused(slot):
    root, _, fw, _ = slot
    image = pack(slot, "retrained")
    data = bytearray(image.read_bytes())
    info = read_image(bytes(data))
    data[64 + info["program_bytes"] // 2] ^= 0x40  # one bit of the program
    bad = root / "corrupt.bin"
    bad.write_bytes(bytes(data))
    status, text = run_with_image(fw, bad, timeout=60)
    assert status == 1
    lines = error_lines(text)
    assert len(lines) == 1 and lines[0].startswith("MOTE ERROR slot crc program header=0x"), text
    status, text = run_with_image(fw, None, timeout=60)
    assert status == 1 and error_lines(text) == ["MOTE ERROR slot empty"]


def test_aot_test_and_run_take_the_image(slot, capsys):
    root, _, fw, _ = slot
    image = pack(slot, "retrained", "--selftest")
    capsys.readouterr()
    assert aot_main(["test", str(fw), "--target", BOARD, "--slot", str(image)]) == 0
    out = capsys.readouterr().out
    assert "PASS: 1 case(s), max abs err 0" in out and f"in the slot of {fw}" in out
    assert aot_main(["test", str(fw), "--slot", str(pack(slot, "sigmoid", "--unchecked"))]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["aot test: error: firmware reported: MOTE ERROR slot operator aten::sigmoid.out missing"]
    assert aot_main(["run", str(fw)]) == 1  # no image: an empty slot
    assert "MOTE ERROR slot empty" in capsys.readouterr().out


def test_pico_loads_the_firmware_uf2_and_then_the_slot_uf2(slot, tmp_path):
    """rp2040js writes firmware.uf2, then the model image's UF2 (only the slot's pages), as
    two drag-and-drops onto the Pico's BOOTSEL drive would."""
    from aot.deploy.uf2 import RP2040_FAMILY_ID, parse_uf2
    root, models, _, _ = slot
    fw = tmp_path / "fw-pico"
    assert aot_main(["build", str(models["base"]), "--board", "pico", "--slot", "-o", str(fw)]) == 0
    contract = json.loads((fw / "slot.json").read_text())
    assert (contract["address"], contract["flash_bytes"]) == (0x10180000, 0x80000)  # boards/pico.json
    good, bad = tmp_path / "r.uf2", tmp_path / "s.uf2"
    assert aot_main(["pack", str(models["retrained"]), "--firmware", str(fw), "--selftest", "-o", str(good)]) == 0
    assert aot_main(["pack", str(models["sigmoid"]), "--firmware", str(fw), "--unchecked", "-o", str(bad)]) == 0
    family, base, _ = parse_uf2(good.read_bytes())
    assert (family, base) == (RP2040_FAMILY_ID, 0x10180000)
    status, text = run_with_image(fw, good, timeout=300)
    assert status == 0 and "MOTE SELFTEST PASS n=1" in text, text
    want, _ = host_output(models["retrained"])
    got = re.search(r"^OUT 0 \d+ ([0-9a-f]+)$", text, re.M).group(1)
    assert bytes.fromhex(got) == want.astype("<f4").tobytes()  # the M0+'s bytes are the host's
    status, text = run_with_image(fw, bad, timeout=300)
    assert status == 1 and error_lines(text) == ["MOTE ERROR slot operator aten::sigmoid.out missing"]
    # on a board: the firmware once, then the model alone (folders standing in for the BOOTSEL drive)
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n")
    assert aot_main(["flash", str(fw), "--drive", str(drive)]) == 0
    assert aot_main(["flash", "--model-only", str(good), "--firmware", str(fw), "--drive", str(drive)]) == 0
    assert (drive / "firmware.uf2").read_bytes() == (fw / "firmware.uf2").read_bytes()
    assert (drive / "model.uf2").read_bytes() == good.read_bytes()


def test_a_slot_sized_for_two_models_carries_both_operator_sets(slot, tmp_path):
    root, models, _, _ = slot
    fw = tmp_path / "fw2"
    # MODEL MODEL --slot is MODEL --slot-for MODEL: both size the slot
    assert aot_main(["build", str(models["base"]), str(models["sigmoid"]), "--board", BOARD, "--slot",
                     "--slot-headroom", "0", "-o", str(fw)]) == 0
    contract = json.loads((fw / "slot.json").read_text())
    assert contract["ops"] == ["aten::addmm.out", "aten::relu.out", "aten::sigmoid.out"]
    assert [m["model"] for m in contract["sized_for"]] == ["base", "sigmoid"]
    assert contract["arena_bytes"] == max(m["arena_bytes"] for m in contract["sized_for"])  # no headroom
    image = tmp_path / "s.bin"
    assert aot_main(["pack", str(models["sigmoid"]), "--firmware", str(fw), "--selftest", "-o", str(image)]) == 0
    status, text = run_with_image(fw, image, timeout=60)
    assert status == 0 and "MOTE SELFTEST PASS n=1" in text, text


USER_APP = r'''
/* A user's own application over `aot generate --slot`'s sources: load the slot, run the
 * model once on zeros, print the refusal or output 0's first float bits. */
#include <stdint.h>
#include "mote/slot.h"
#include "mote_port.h"
#include "mote_slot_config.h"

static uint8_t arena[MOTE_SLOT_ARENA_BYTES] __attribute__((aligned(16)));
static uint8_t state[2][MOTE_SLOT_STATE_BYTES] __attribute__((aligned(16)));
static const mote_slot_io_t ins[] = MOTE_SLOT_INPUTS_IO, outs[] = MOTE_SLOT_OUTPUTS_IO;
static mote_slot_t slot;
static uint8_t zeros[MOTE_SLOT_INPUTS_BYTES];

int main(void)
{
    mote_slot_memory_t mem = {0};
    mote_slot_report_t r;
    char line[160];
    const mote_tensor_t *t;
    mem.arena.ptr = arena; mem.arena.size = sizeof arena;
    mem.state[0].ptr = state[0]; mem.state[0].size = sizeof state[0];
    mem.state[1].ptr = state[1]; mem.state[1].size = sizeof state[1];
    mem.inputs = ins; mem.num_inputs = MOTE_SLOT_NUM_INPUTS;
    mem.outputs = outs; mem.num_outputs = MOTE_SLOT_NUM_OUTPUTS;
    if (mote_slot_init(&slot, &mem) != MOTE_OK) return 2;
    mote_err_t err = mote_slot_load(&slot, (const void *)(uintptr_t)MOTE_SLOT_ADDRESS, MOTE_SLOT_FLASH_BYTES, &r);
    mote_slot_report_line(&r, line, sizeof line);
    mote_port_puts(line);
    mote_port_putc('\n');
    if (err != MOTE_OK) return 1;
    mote_method_t *m = mote_slot_method(&slot);
    if (mote_method_set_input(m, 0, zeros, sizeof zeros) != MOTE_OK || mote_method_execute(m) != MOTE_OK
        || mote_method_get_output(m, 0, &t) != MOTE_OK) return 3;
    mote_port_puts("USER OUT ");
    mote_port_put_u32(((const uint32_t *)t->data)[0]);
    mote_port_putc('\n');
    return 0;
}
'''


def test_generate_slot_sources_build_a_users_own_firmware(slot, tmp_path):
    """`aot generate --slot`: the sources, include folders, defines and the port's linker
    script (the slot reserved) of mote_sources.json, compiled and linked as a user's
    build would, with the user's own application; in QEMU it loads a packed image."""
    import subprocess
    root, models, _, _ = slot
    src = tmp_path / "src"
    assert aot_main(["generate", str(models["base"]), "--board", BOARD, "--slot", "-o", str(src)]) == 0
    ms = json.loads((src / "mote_sources.json").read_text())
    assert ms["slot"]["ops"] == ["aten::addmm.out", "aten::relu.out"] and ms["model"] is None
    assert any(p.endswith("runtime/embed/mote_slot.c") for p in ms["sources"])
    assert "SLOT (r)   : ORIGIN = 0x10300000, LENGTH = 0x100000" in Path(ms["port"]["linker_script"]).read_text()
    (tmp_path / "app.c").write_text(USER_APP)
    defs = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in ms["defines"].items()]
    incs = [f"-I{d}" for d in ms["include_dirs"] + ms["port"]["include_dirs"]]
    objs = []
    for i, s in enumerate(ms["sources"] + ms["port"]["sources"] + [str(tmp_path / "app.c")]):
        o = tmp_path / f"o{i}.o"
        subprocess.run(["arm-none-eabi-gcc", *ms["arch_flags"], *ms["cflags"], "-Os", *defs, *incs, "-c", s,
                        "-o", str(o)], check=True)
        objs.append(str(o))
    elf = tmp_path / "user.elf"
    subprocess.run(["arm-none-eabi-gcc", *ms["port"]["ldflags"], "-o", str(elf), *objs, *ms["port"]["libs"]],
                   check=True)
    contract = ms["slot"]
    image = tmp_path / "r.bin"
    assert aot_main(["pack", str(models["retrained"]), "--firmware", str(src), "-o", str(image)]) == 0
    from aot.deploy.qemu import qemu_command
    from aot.deploy.slot import qemu_loader_args
    r = subprocess.run(qemu_command(elf, BOARD) + qemu_loader_args(contract, image), capture_output=True,
                       timeout=60)
    text = r.stdout.decode()
    assert r.returncode == 0, text
    assert "MOTE SLOT ok" in text and re.search(r"^USER OUT \d+$", text, re.M), text


def test_int8_model_with_planned_kernel_scratch_in_a_slot(tmp_path, capsys):
    """An int8 CNN whose kernels' scratch the plan places in the arena: the slot image
    carries the scratch slots (trailer), the firmware hands them to init, and the three
    self-test cases give the host runtime's bytes."""
    import zoo
    from aot.deploy.slot import read_image
    fw, image = tmp_path / "fw", tmp_path / "cnn.bin"
    assert aot_main(["build", str(zoo.path("small_cnn")), "--int8", "--board", BOARD, "--slot", "-o", str(fw)]) == 0
    assert json.loads((fw / "slot.json").read_text())["recipe"]["int8"] is True
    capsys.readouterr()
    # no --int8: aot pack compiles with the firmware's recipe (slot.json "recipe")
    assert aot_main(["pack", str(zoo.path("small_cnn")), "--firmware", str(fw), "--selftest", "3",
                     "-o", str(image)]) == 0
    assert ", the firmware's --int8): fits:" in capsys.readouterr().out
    assert read_image(image.read_bytes())["scratch_slots"] > 0
    capsys.readouterr()
    assert aot_main(["test", str(fw), "--slot", str(image)]) == 0
    assert "PASS: 3 case(s), max abs err 0" in capsys.readouterr().out


def test_a_firmware_without_a_slot_carries_none_of_it(slot, tmp_path):
    """The must-hold: `aot build` without --slot links no slot code and reserves no slot
    (the linker script and firmware.bin of such a build are those of before the feature:
    zoo/mlp.py's are byte-identical, docs/slots.md)."""
    import subprocess
    _, models, _, _ = slot
    out = tmp_path / "plain"
    assert aot_main(["build", str(models["base"]), "--board", BOARD, "-o", str(out)]) == 0
    syms = subprocess.run(["arm-none-eabi-nm", str(out / "firmware.elf")], capture_output=True, text=True,
                          check=True).stdout
    assert "mote_slot" not in syms and "missing_operator" not in syms
    ld = (out / "firmware.ld").read_text()
    assert "SLOT" not in ld and "FLASH (rx) : ORIGIN = 0x10000000, LENGTH = 0x400000" in ld
    assert not (out / "slot.json").exists()


def test_update_on_a_call_keeps_the_active_model_when_refused(slot, tmp_path):
    """--slot-updates: after the boot check the firmware takes images over the UART and
    loads each on the call. A refused one (missing operator, corrupted) prints its line and
    the active model runs on with the same bytes; an accepted one replaces it; one larger
    than the staging buffer is refused in one line."""
    from aot.deploy.slot import update_lines
    root, models, _, _ = slot
    fw = tmp_path / "fwu"
    assert aot_main(["build", str(models["base"]), "--board", BOARD, "--slot", "--slot-updates", "8K",
                     "-o", str(fw)]) == 0
    assert json.loads((fw / "size.json").read_text())["uart_updates_bytes"] == 16384
    boot = tmp_path / "r.bin"
    assert aot_main(["pack", str(models["retrained"]), "--firmware", str(fw), "-o", str(boot)]) == 0
    images = {}
    for name, extra in (("sigmoid", ["--unchecked"]), ("base", ["--selftest"]), ("wide", ["--unchecked"])):
        images[name] = tmp_path / f"{name}.bin"
        assert aot_main(["pack", str(models[name]), "--firmware", str(fw), "-o", str(images[name]), *extra]) == 0
    corrupt = bytearray(boot.read_bytes())
    corrupt[64 + 300] ^= 1
    status, text = run_with_image(fw, boot, timeout=120, stdin_bytes=update_lines(
        [images["sigmoid"], bytes(corrupt), images["base"], images["wide"]]))
    assert status == 0, text
    lines = [ln for ln in text.splitlines() if ln.startswith(("MOTE SLOT", "MOTE ERROR", "OUT"))]
    outs = [ln.split()[3] for ln in lines if ln.startswith("OUT")]
    kinds = [ln.split()[0] if ln.startswith("OUT") else " ".join(ln.split()[:4]) for ln in lines[1:]]
    assert kinds == [f"MOTE SLOT ok pte={read_image(boot.read_bytes())['program_bytes']}", "OUT",
                     "MOTE ERROR slot operator", "MOTE SLOT kept", "OUT",
                     "MOTE ERROR slot crc", "MOTE SLOT kept", "OUT",
                     f"MOTE SLOT ok pte={len(read_image(images['base'].read_bytes())['program'])}", "OUT",
                     "MOTE ERROR slot update"], lines
    want_r, _ = host_output(models["retrained"])
    want_b, _ = host_output(models["base"])
    assert outs[:3] == [want_r.astype("<f4").tobytes().hex()] * 3  # refused images changed nothing
    assert outs[3] == want_b.astype("<f4").tobytes().hex()
    assert "MOTE SELFTEST PASS n=1" in text and lines[-1] == "MOTE ERROR slot update too-long max=8192"
