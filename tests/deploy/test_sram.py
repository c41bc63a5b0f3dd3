"""Code and weights in SRAM (aot build --code-in-sram / --weights-in-sram):
section placement read from the ELF with pyelftools, the copy at boot proven
on QEMU (the same outputs as the flash build), the RAM it costs in size.json,
the default per board (on for pico2, whose flash is behind an XIP cache) and
a program too large for SRAM refused in one line."""
import json
import warnings

import pytest
from elftools.elf.elffile import ELFFile

import zoo
from aot.cli import main
from aot.deploy.boards import load_board


def _build(tmp_path, name, board, *extra, model="small_cnn", int8=True):
    out = tmp_path / name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["build", str(zoo.path(model)), "--board", board, *(["--int8"] if int8 else []),
                     *extra, "-o", str(out)]) == 0
    return out


def _elf(out):
    f = open(out / "firmware.elf", "rb")
    return f, ELFFile(f)


def _symbols(ef) -> dict:
    return {s.name: s for s in ef.get_section_by_name(".symtab").iter_symbols()}


def _placement(out, board) -> dict:
    """{"sram": .mote_sram (vma, lma, size), "kernels": addresses of the mote_kernel_* functions,
    "pte": address of mote_model_pte, "load": __sram_load__}"""
    f, ef = _elf(out)
    with f:
        sec = ef.get_section_by_name(".mote_sram")
        syms = _symbols(ef)
        lma = next(seg["p_paddr"] for seg in ef.iter_segments()
                   if seg["p_type"] == "PT_LOAD" and seg["p_vaddr"] == sec["sh_addr"]) if sec["sh_size"] else None
        return {"sram": (sec["sh_addr"], lma, sec["sh_size"]),
                "kernels": [s["st_value"] & ~1 for n, s in syms.items()
                            if n.startswith("mote_kernel_") and s["st_info"]["type"] == "STT_FUNC"],
                "pte": syms["mote_model_pte"]["st_value"], "load": syms["__sram_load__"]["st_value"],
                "start": syms["__sram_start__"]["st_value"], "end": syms["__sram_end__"]["st_value"]}


def _in(addr, region) -> bool:
    return region.origin <= addr < region.origin + region.size


@pytest.mark.slow  # firmware builds
def test_pico2_runs_its_kernels_from_sram_by_default(tmp_path):
    board = load_board("pico2")
    assert board.code_in_sram and board.xip_cache_bytes == 16384
    out = _build(tmp_path, "on", "pico2")
    p = _placement(out, board)
    vma, lma, size = p["sram"]
    assert size > 0 and _in(vma, board.ram) and _in(lma, board.flash)
    # copied at boot from its load address in flash to its place in SRAM (ports/cortex-m/startup.c)
    assert (p["load"], p["start"], p["end"] - p["start"]) == (lma, vma, size)
    assert p["kernels"] and all(_in(a, board.ram) and vma <= a < vma + size for a in p["kernels"])
    assert _in(p["pte"], board.flash)  # the weights stay in flash unless asked
    s = json.loads((out / "size.json").read_text())
    assert s["ram"]["sram_copy"] == size and sum(s["ram"].values()) == s["ram_bytes"]
    assert json.loads((out / "build.json").read_text())["link"]["layout"] == {"code_in_sram": True,
                                                                           "weights_in_sram": False}
    off = _build(tmp_path, "off", "pico2", "--no-code-in-sram")
    q = _placement(off, board)
    assert q["sram"][2] == 0 and all(_in(a, board.flash) for a in q["kernels"])
    assert "sram_copy" not in json.loads((off / "size.json").read_text())["ram"]


@pytest.mark.sim
@pytest.mark.usefixtures("need_qemu")
def test_code_and_weights_copied_to_sram_at_boot_give_the_same_outputs(tmp_path):
    from aot.deploy.run import run_build
    board = load_board("mps2-an505")
    assert not board.code_in_sram
    flash = _build(tmp_path, "flash", "mps2-an505")
    sram = _build(tmp_path, "sram", "mps2-an505", "--code-in-sram", "--weights-in-sram")
    assert _placement(flash, board)["sram"][2] == 0
    p = _placement(sram, board)
    assert _in(p["pte"], board.ram) and all(_in(a, board.ram) for a in p["kernels"])
    a, b = run_build(flash, timeout=120), run_build(sram, timeout=120)
    assert a.outputs and [o.tobytes() for outs in a.outputs for o in outs] == \
        [o.tobytes() for outs in b.outputs for o in outs]


def test_weights_that_do_not_fit_sram_are_refused(tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["build", str(zoo.path("autoencoder")), "--board", "pico2", "--weights-in-sram",
                     "-o", str(tmp_path / "x")])
    assert code != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--weights-in-sram: the program's" in err[0] and "B short" in err[0], err
