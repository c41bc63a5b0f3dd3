"""`aot build --board pico|pico2` images carry Raspberry Pi binary info
(`picotool info -a`): read back from the UF2 and the ELF with
aot.deploy.binary_info, every entry exact against the build's own files
(build.json's model and dtype, size.json's planned arena, the board file's
UART pins, the Mote package version, SOURCE_DATE_EPOCH's date, the end of
firmware.bin)."""
import json
from importlib.metadata import version

import pytest

from aot.deploy import binary_info as bi
from aot.deploy.boards import load_board

#: 2026-12-07 00:00:00 UTC
EPOCH = "1796601600"
CASES = [("small_cnn", "pico", True), ("small_cnn", "pico2", False)]


@pytest.fixture(scope="module")
def builds(fw, tmp_path_factory):
    from aot.deploy.build import build_compiled
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        for model, board, int8 in CASES:
            d = tmp_path_factory.mktemp(f"{model}-{board}")
            out[board] = build_compiled(fw.compile(model, int8), board, d / "build")
    return out


@pytest.mark.parametrize("model,board,int8", CASES)
def test_every_entry_from_uf2_and_elf(builds, model, board, int8):
    art = builds[board]
    info_json = json.loads((art.out_dir / "build.json").read_text())
    size = json.loads((art.out_dir / "size.json").read_text())
    assert (info_json["model"], info_json["int8"]) == (model, int8)
    b = load_board(board)
    chip = {"pico": "RP2040", "pico2": "RP2350"}[board]
    expected = {
        "program name": f"mote {model}",
        "version": version("mote-aot"),
        "build date": "2026-12-07",
        "description": f"Mote model {model}, {'int8' if int8 else 'fp32'}, arena {size['planned']['arena']} bytes",
        "binary end": f"0x{b.flash.origin + art.bin.stat().st_size:08x}",  # the flash image's end
        "pins": {f"GP{b.uart.pins['tx_pin']}": "UART0 TX", f"GP{b.uart.pins['rx_pin']}": "UART0 RX"},
    }
    assert size["planned"]["arena"] > 0 and expected["pins"] == {"GP0": "UART0 TX", "GP1": "UART0 RX"}
    from_uf2 = bi.read_uf2(art.uf2.read_bytes())
    from_elf = bi.read_elf(art.elf, chip)
    assert from_uf2.summary() == expected and from_elf == from_uf2
    print(f"\n{board}: binary info {from_uf2.summary()}")
