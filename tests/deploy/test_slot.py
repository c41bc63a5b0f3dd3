"""Model slots without a simulator: the image layout aot.deploy.slot writes (the one
mote/slot.h describes), slot.json's derived sizes, the linker script's reserved region,
and `aot flash --model-only` against folders that look like a BOOTSEL drive."""
import json
import struct
import zlib

import pytest

from aot.cli import main
from aot.deploy import flash, slot
from aot.deploy.boards import load_board
from aot.deploy.firmware import linker_script
from aot.deploy.uf2 import RP2350_ARM_S_FAMILY_ID, RP2XXX_ABSOLUTE_FAMILY_ID, bin_to_uf2, parse_uf2
from aot.errors import BuildError

RP2350_INFO = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"
PTE = bytes(range(256)) * 3 + b"tail"  # 772 bytes: the packer does not read the program


def test_image_layout_is_slot_h():
    img = slot.pack_image(PTE, 1, [(2, 64, 32), (5, 0, 16)], b"\x01" * 24, 2, b"\x02" * 40)
    magic, version, hbytes, pver, pbytes, pcrc, nslots, cases, case_in, ebytes, tbytes, tcrc = \
        struct.unpack_from("<4s11I", img)
    assert (magic, version, hbytes, pver, pbytes, nslots, cases, case_in, ebytes) == \
        (b"MOTS", 1, 64, 1, len(PTE), 2, 2, 12, 40)
    assert pcrc == zlib.crc32(PTE) and img[64:64 + len(PTE)] == PTE
    assert img[48:60] == bytes(12) and struct.unpack_from("<I", img, 60)[0] == zlib.crc32(img[:60])
    t = 64 + 784  # the program padded to 16 bytes
    assert struct.unpack_from("<6I", img, t) == (2, 64, 32, 5, 0, 16)
    assert img[t + 24:t + 48] == b"\x01" * 24 and img[t + 48:t + 88] == b"\x02" * 40  # 24 is 8-aligned already
    assert tbytes == 88 == len(img) - t and tcrc == zlib.crc32(img[t:])
    info = slot.read_image(img)
    assert info["program"] == PTE and info["image_bytes"] == len(img) and info["trailer_crc_ok"]


def test_read_image_refuses_in_one_line():
    img = slot.pack_image(PTE, 1)
    with pytest.raises(slot.SlotError, match="no 'MOTS' header"):
        slot.read_image(b"ET12" + img[4:])
    with pytest.raises(slot.SlotError, match="header CRC-32"):
        slot.read_image(img[:16] + b"\xff" + img[17:])
    with pytest.raises(slot.SlotError, match="truncated"):
        slot.read_image(img[:100])


def needs(name="m", arena=1000, state=500, mutable=0, pte=3000, ops=("aten::addmm.out",), sizes=(1, 16)):
    io = [{"dtype": 6, "dtype_name": "float32", "sizes": list(sizes)}]
    return {"model": name, "pte_bytes": pte, "arena_bytes": arena, "mutable_bytes": mutable,
            "state_bytes": state, "scratch_bytes": 0, "ops": list(ops), "inputs": io, "outputs": io,
            "methods": 1}


def test_contract_sizes_are_the_largest_need_plus_headroom():
    board = load_board("mps2-an505")
    c = slot.make_contract([needs(arena=1000, state=500), needs("n", arena=600, state=900, ops=("aten::relu.out",))],
                           board, extra_ops=["aten::sigmoid.out"])
    assert c["arena_bytes"] == 1264 and c["state_bytes"] == 1128 and c["mutable_bytes"] == 0  # x 1.25, aligned
    assert c["ops"] == ["aten::addmm.out", "aten::relu.out", "aten::sigmoid.out"]
    assert (c["address"], c["flash_bytes"]) == (0x10300000, 0x100000)  # boards/mps2-an505.json "slot"
    c = slot.make_contract([needs()], board, flash=70000, arena=4096, headroom=0)
    assert c["flash_bytes"] == 73728 and c["address"] == 0x10400000 - 73728 and c["arena_bytes"] == 4096
    c = slot.make_contract([needs()], load_board("mps3-an547"))  # no "slot" in its board file: derived, at the top
    # (64 B header + 3,008 B program + 4 KiB for scratch slots and self-test) x 1.25 -> 3 sectors
    assert c["flash_bytes"] == 12288 and c["address"] == 0x00000000 + load_board("mps3-an547").flash.end - 12288


def test_contract_refusals():
    board = load_board("mps2-an505")
    with pytest.raises(BuildError, match="inputs .* differ"):
        slot.make_contract([needs(), needs("other", sizes=(1, 8))], board)
    with pytest.raises(BuildError, match="reserve too small.*arena_bytes 512 < 1,000"):
        slot.make_contract([needs()], board, arena=512)
    with pytest.raises(BuildError, match="not a 4096-byte aligned range"):
        slot.make_contract([needs()], board, address=0x10300100)
    with pytest.raises(BuildError, match="aten::no_such_op"):
        slot.make_contract([needs()], board, extra_ops=["aten::no_such_op.out"])


def test_check_needs_names_what_the_firmware_refuses():
    c = slot.make_contract([needs()], load_board("mps2-an505"))
    assert slot.check_needs(c, needs(), 4000) == []
    got = slot.check_needs(c, needs(arena=5000, ops=("aten::addmm.out", "aten::tanh.out"), sizes=(1, 8)), 4000)
    assert got == ["operator aten::tanh.out missing", "arena need 5,000 B > reserved 1,264 B",
                   "inputs float32[1x8] != application's float32[1x16]",
                   "outputs float32[1x8] != application's float32[1x16]"]


def test_linker_script_reserves_the_slot_only_when_asked():
    board = load_board("pico2")
    plain = linker_script(board, 4096)
    assert "SLOT" not in plain and "LENGTH = 0x400000" in plain
    with_slot = linker_script(board, 4096, slot=(0x10300000, 0x100000))
    assert "FLASH (rx) : ORIGIN = 0x10000000, LENGTH = 0x300000" in with_slot
    assert "SLOT (r)   : ORIGIN = 0x10300000, LENGTH = 0x100000" in with_slot
    assert with_slot.replace("LENGTH = 0x300000", "LENGTH = 0x400000").startswith(plain.split("SLOT")[0][:200])


def test_config_header_carries_the_contract():
    c = slot.make_contract([needs()], load_board("mps2-an505"))
    h = slot.config_header(c)
    assert "#define MOTE_SLOT_ADDRESS 0x10300000u" in h and "#define MOTE_SLOT_ARENA_BYTES 1264u" in h
    assert "#define MOTE_SLOT_INPUTS_IO { {6u, 2u, {1, 16}} }" in h and "#define MOTE_SLOT_INPUTS_BYTES 64u" in h


# --------------------------------------------------------------------------- aot flash --model-only


def slot_firmware(folder, board="pico2"):
    folder.mkdir(parents=True, exist_ok=True)
    c = slot.make_contract([needs()], load_board(board))
    (folder / "slot.json").write_text(json.dumps(c))
    (folder / "build.json").write_text(json.dumps({"board": board, "board_file": "", "slot": "slot.json"}))
    return folder, c


def make_drive(folder, info=RP2350_INFO):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "INFO_UF2.TXT").write_text(info)
    return folder


@pytest.fixture
def no_mounts(monkeypatch):
    monkeypatch.setattr(flash, "mount_points", lambda: [])


def test_flash_model_only_writes_just_the_slot(tmp_path, capsys, no_mounts):
    fw, c = slot_firmware(tmp_path / "fw")
    img = slot.pack_image(PTE, 1)
    uf2 = slot.write_image(c, load_board("pico2"), img, tmp_path / "m.uf2")
    drive = make_drive(tmp_path / "RP2350")
    assert main(["flash", "--model-only", str(uf2), "--firmware", str(fw), "--drive", str(drive)]) == 0
    out = capsys.readouterr().out
    written = (drive / "model.uf2").read_bytes()
    family, base, payload = parse_uf2(written)
    assert (family, base) == (RP2XXX_ABSOLUTE_FAMILY_ID, 0x10300000) and payload[:len(img)] == img
    assert len(written) // 512 == -(-len(img) // 256)  # only the slot's pages, none of the firmware's
    assert "model image m.uf2" in out and "(RP2350, board pico2)" in out


@pytest.mark.parametrize("case, message", [
    ("firmware", "a firmware, not a model image"),
    ("not_slot", "does not hold a model image: not a Mote slot image"),
    ("other_address", "is written at 0x10200000, the slot of"),
    ("bin", "not m.bin"),
])
def test_flash_model_only_refusals_write_nothing(tmp_path, capsys, no_mounts, case, message):
    fw, c = slot_firmware(tmp_path / "fw")
    img = slot.pack_image(PTE, 1)
    f = tmp_path / "m.uf2"
    if case == "firmware":
        f.write_bytes(bin_to_uf2(img, 0x10000000, RP2350_ARM_S_FAMILY_ID))
    elif case == "not_slot":
        f.write_bytes(bin_to_uf2(b"\0" * 512, 0x10300000, RP2350_ARM_S_FAMILY_ID))
    elif case == "other_address":
        f.write_bytes(bin_to_uf2(img, 0x10200000, RP2350_ARM_S_FAMILY_ID))
    else:
        f = tmp_path / "m.bin"
        f.write_bytes(img)
    drive = make_drive(tmp_path / "RP2350")
    assert main(["flash", "--model-only", str(f), "--firmware", str(fw), "--drive", str(drive)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "nothing written" in err[0], err
    assert sorted(p.name for p in drive.iterdir()) == ["INFO_UF2.TXT"]


def test_slot_uf2_family_per_chip():
    from aot.deploy.uf2 import RP2040_FAMILY_ID, RP2XXX_DATA_FAMILY_ID
    assert slot.slot_uf2_family(load_board("pico")) == RP2040_FAMILY_ID  # the RP2040 bootrom takes only its own
    assert slot.slot_uf2_family(load_board("pico2")) == RP2XXX_ABSOLUTE_FAMILY_ID == 0xE48BFF57
    assert slot.slot_uf2_family(load_board("pico2"), "data") == RP2XXX_DATA_FAMILY_ID == 0xE48BFF58
    assert slot.slot_uf2_family(load_board("pico2"), "rp2350-arm-s") == RP2350_ARM_S_FAMILY_ID
    with pytest.raises(slot.SlotError, match="takes only its own family"):
        slot.slot_uf2_family(load_board("pico"), "absolute")


# --------------------------------------------------------------------------- aot run/test --slot: the host's check


@pytest.mark.parametrize("command", ["test", "run"])
@pytest.mark.parametrize("board, case, says", [
    ("mps2-an505", "py", "x is not a Mote slot image (no 'MOTS' header: it starts with 'impo'); pack the model "
                         "for it: aot pack MODEL --firmware FW"),
    ("pico", "pico2_uf2", "x is a UF2 of family 0xe48bff57 (RP2350 absolute); FW (a slot firmware for pico, "
                          "RP2040) takes 0xe48bff56 (pico): pack the model for it: aot pack MODEL --firmware FW"),
    ("pico2", "other_address", "x is written at 0x10200000; the slot of FW (a slot firmware for pico2) is at "
                               "0x10300000: pack the model for it: aot pack MODEL --firmware FW"),
    ("pico2", "bin", "x is not a UF2; FW (a slot firmware for pico2) takes the image's UF2: pack the model for "
                     "it: aot pack MODEL --firmware FW -o NAME.uf2"),
    ("mps2-an505", "uf2", "x is a UF2; FW (a slot firmware for mps2-an505) takes the slot's .bin: pack the model "
                          "for it: aot pack MODEL --firmware FW -o NAME.bin"),
    ("mps2-an505", "new_pte", "x holds a .pte of format version 99; FW (a slot firmware for mps2-an505) reads "
                              "{v}: pack the model for it: aot pack MODEL --firmware FW"),
])
def test_run_and_test_check_the_image_against_the_firmware_first(tmp_path, capsys, command, board, case, says):
    from aot.pte.header import format_version
    fw, c = slot_firmware(tmp_path / "fw", board)
    img = slot.pack_image(PTE, 1)
    x = tmp_path / "x"
    if case == "py":
        x.write_text("import torch\n" * 8)
    elif case == "pico2_uf2":
        x.write_bytes(bin_to_uf2(img, 0x10300000 - 0x80000, RP2XXX_ABSOLUTE_FAMILY_ID))  # a pico2 image
    elif case == "other_address":
        x.write_bytes(bin_to_uf2(img, 0x10200000, RP2XXX_ABSOLUTE_FAMILY_ID))
    elif case == "uf2":
        x.write_bytes(bin_to_uf2(img, 0x10300000, RP2XXX_ABSOLUTE_FAMILY_ID))
    elif case == "new_pte":
        x.write_bytes(slot.pack_image(PTE, 99))
    else:
        x.write_bytes(img)
    assert main([command, str(fw), "--slot", str(x)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    want = says.replace("FW", str(fw)).replace("x ", f"{x} ", 1).replace("{v}", str(format_version()))
    assert err == [f"aot {command}: error: {want}"]


def test_pack_adopts_the_firmwares_recipe_unless_told():
    import argparse
    from aot.compiler.recipe import Recipe
    from aot.tools.slot import adopt_recipe
    rec = slot.recipe_record(Recipe(int8=True, int8_io=True, dsp_weights=False))
    assert rec == {"int8": True, "int8_io": True, "int4_weights": None, "int16_activations": False,
                   "dsp_weights": False, "linear_tables": False, "layout": "auto"}
    c = slot.make_contract([needs()], load_board("mps2-an505"), recipe=rec)
    args = argparse.Namespace(int8=False, int8_io=False, int16_activations=False, int4_weights=False,
                              group_size=None, layout="auto", dsp_weights="flash")
    assert adopt_recipe(args, c) == ["--int8", "--int8-io"]
    r = Recipe.from_args(args, load_board("mps2-an505"))
    assert (r.int8, r.int8_io, r.dsp_weights) == (True, True, False)  # the firmware's: widened at run time
    del c["recipe"]  # a slot.json from before the recipe was recorded: the command line alone
    args = argparse.Namespace(int8=False, int8_io=False)
    assert adopt_recipe(args, c) == [] and args.int8 is False


def test_slot_ops_take_short_names_and_int8_brings_the_lut():
    ops, notes = slot.resolve_slot_ops(["sigmoid", "aten::tanh", "add", "aten::relu.out"])
    assert ops == ["aten::sigmoid.out", "aten::tanh.out", "aten::add.out", "aten::relu.out"]  # add: its .out
    assert notes[0] == "--slot-ops sigmoid: aten::sigmoid.out"
    ops, notes = slot.resolve_slot_ops(["sigmoid"], quantized=True)
    assert ops == ["aten::sigmoid.out", "mote::lut_s8.out"]
    assert notes[1] == "--slot-ops sigmoid: and mote::lut_s8.out, the kernel an --int8 model runs it as"
    with pytest.raises(BuildError, match=r"^--slot-ops sigmod: no kernel of that name; did you mean "
                                         r"aten::sigmoid\.out\? \(aot ops lists them\)$"):
        slot.resolve_slot_ops(["sigmod"])


def test_missing_int8_operator_says_what_it_is_for():
    purpose = slot.operator_purpose("mote::lut_s8.out")
    assert purpose.startswith(" (the int8 kernel of ") and ", sigmoid, " in purpose and purpose.endswith(", tanh)")
    assert slot.operator_purpose("aten::sigmoid.out") == ""
    c = slot.make_contract([needs()], load_board("mps2-an505"))
    problems = slot.check_needs(c, needs(ops=("aten::addmm.out", "mote::lut_s8.out")), 100)
    assert problems == [f"operator mote::lut_s8.out{purpose} missing"]
    line = "firmware reported: MOTE ERROR slot operator mote::lut_s8.out missing"
    assert slot.explain_refusal(line) == f"firmware reported: MOTE ERROR slot operator mote::lut_s8.out{purpose} missing"
    assert slot.explain_refusal("MOTE ERROR slot operator aten::sigmoid.out missing") == \
        "MOTE ERROR slot operator aten::sigmoid.out missing"


def test_pack_names_a_missing_firmware_folder_and_output_folder(tmp_path, capsys):
    model = tmp_path / "m.py"
    model.write_text("raise SystemExit('not compiled: the folders are checked first')\n")
    assert main(["pack", str(model), "--firmware", str(tmp_path / "nofw"), "-o", str(tmp_path / "x.bin")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"aot pack: error: {tmp_path / 'nofw'}: no such folder (give the slot firmware's build folder: "
                   "`aot build MODEL --board B --slot -o DIR`)"]
    fw, _ = slot_firmware(tmp_path / "fw", "mps2-an505")
    assert main(["pack", str(model), "--firmware", str(fw), "-o", str(tmp_path / "out" / "x.bin")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"aot pack: error: -o {tmp_path / 'out' / 'x.bin'}: the folder {tmp_path / 'out'} does not exist"]


def test_pack_warns_that_a_pico_bin_is_the_raw_image(tmp_path, capsys):
    model = tmp_path / "m.py"
    model.write_text("import torch\n\n\ndef model():\n    return torch.nn.Linear(16, 16).eval()\n\n\n"
                     "def example_inputs():\n    return (torch.zeros(1, 16),)\n")
    fw, c = slot_firmware(tmp_path / "fw", "pico2")
    out = tmp_path / "m.bin"
    assert main(["pack", str(model), "--firmware", str(fw), "--unchecked", "-o", str(out)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"aot pack: warning: {out} is the raw image (for your own updater, to write at 0x10300000); "
                   "pico2's BOOTSEL drive, aot flash --model-only and aot test take the UF2: -o NAME.uf2"]
    assert slot.read_image(out.read_bytes())["pte_version"] == c["pte_format_version"]
