"""`aot uf2 ELF --board B [-o OUT.uf2]`: the UF2 of an ELF a user linked (CMake,
PlatformIO) made by the one ELF->UF2 path `aot build` uses
(aot.deploy.firmware.uf2_from_elf = write_flash_bin + uf2_image, as flash_images
writes firmware.uf2), its one-line refusals, and `aot qemu ELF --board pico`
writing that UF2 when it is missing or stale before it runs it on rp2040js.

The images are port self-test firmware linked by build_firmware (the link of
`aot build`), whose <name>.uf2 flash_images wrote beside the ELF: `aot uf2`'s
output must equal those bytes."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aot.deploy.firmware import build_firmware
from aot.deploy.uf2 import parse_uf2

ROOT = Path(__file__).resolve().parents[2]
SELFTEST = ROOT / "ports" / "cortex-m" / "selftest.c"
FAMILY = {"pico": 0xE48BFF56, "pico2": 0xE48BFF59}


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    base = tmp_path_factory.mktemp("uf2cmd")
    return {b: build_firmware(b, [SELFTEST], out_dir=base / b, stack_bytes=4096, name="app")
            for b in ("pico", "pico2", "nucleo-f446re")}


def aot(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aot", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("board", ["pico", "pico2"])
def test_uf2_equals_the_one_the_build_wrote(images, board, tmp_path):
    a = images[board]
    out = tmp_path / "out.uf2"
    r = aot("uf2", a.elf, "--board", board, "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == a.uf2.read_bytes()
    family, base, image = parse_uf2(out.read_bytes())
    binary = a.bin.read_bytes()
    assert (family, base) == (FAMILY[board], 0x10000000) and image[:len(binary)] == binary
    blocks = len(out.read_bytes()) // 512
    assert blocks == (len(binary) + 255) // 256
    assert r.stdout == (f"aot uf2: wrote {out}: {blocks} UF2 blocks ({blocks * 256:,} bytes of flash from "
                        f"0x10000000), family 0x{FAMILY[board]:08x} ({'RP2040' if board == 'pico' else 'RP2350'}); "
                        f"flash it with `aot flash {out}` or copy it to the board's BOOTSEL drive\n")


def test_uf2_default_output_is_beside_the_elf(images, tmp_path):
    elf = tmp_path / "app.elf"
    elf.write_bytes(images["pico"].elf.read_bytes())
    r = aot("uf2", elf, "--board", "pico")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "app.uf2").read_bytes() == images["pico"].uf2.read_bytes()


def _refused(args, line):
    r = aot("uf2", *args)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", f"aot uf2: error: {line}\n")


def test_uf2_refusals_are_one_line(images, tmp_path):
    pico, pico2, nucleo = images["pico"].elf, images["pico2"].elf, images["nucleo-f446re"].elf
    _refused([pico2, "--board", "pico"], f"{pico2} is an RP2350 image (an IMAGE_DEF block at +0x110), "
                                         "not an RP2040 image for board pico: use --board pico2")
    _refused([pico, "--board", "pico2"], f"{pico} is an RP2040 image (a boot2 with its CRC-32), "
                                         "not an RP2350 image for board pico2: use --board pico")
    text = tmp_path / "app.elf"
    text.write_text("not an ELF\n")
    _refused([text, "--board", "pico"], f"{text} is not an ELF file (Magic number does not match)")
    _refused([tmp_path / "none.elf", "--board", "pico"], f"{tmp_path / 'none.elf'}: no such file")
    _refused([pico, "--board", "mps2-an505"], "board mps2-an505 takes no UF2 (boards/mps2-an505.json: "
                                              "no uf2_family_id)")
    # an STM32 image (flash at 0x08000000) for the pico: outside its flash
    r = aot("uf2", nucleo, "--board", "pico")
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"aot uf2: error: {nucleo}: section .text (") and r.stderr.endswith(
        " bytes at 0x08000000) lies outside the flash of board pico (0x10000000, 2,097,152 bytes): "
        "an ELF linked for another board\n"), r.stderr
    # a host ELF (this Python) is not Arm code
    r = aot("uf2", os.path.realpath(sys.executable), "--board", "pico")
    assert r.returncode == 1 and "is an ELF for EM_X86_64 (64-bit), not for a 32-bit Arm core" in r.stderr


@pytest.mark.sim
def test_qemu_on_the_pico_writes_the_missing_or_stale_uf2(images, tmp_path):
    """`aot qemu build/app.elf --board pico` (a CMake user's ELF, no UF2 beside it):
    the UF2 is written from the ELF, then run on rp2040js to the firmware's exit."""
    elf = tmp_path / "app.elf"
    elf.write_bytes(images["pico"].elf.read_bytes())
    uf2 = tmp_path / "app.uf2"
    r = aot("qemu", elf, "--board", "pico", "--timeout", "5")
    assert r.returncode == 0, r.stderr
    assert r.stderr == (f"aot qemu: wrote {uf2} from app.elf (it was missing; as `aot uf2 {elf} --board pico` "
                        "makes it)\n")
    assert "MOTE EXIT 0" in r.stdout
    assert uf2.read_bytes() == images["pico"].uf2.read_bytes()
    uf2.write_bytes(images["pico2"].uf2.read_bytes())  # another image's UF2
    r = aot("qemu", elf, "--board", "pico", "--timeout", "5")
    assert r.returncode == 0 and "the one there was another image's" in r.stderr, r.stderr
    assert uf2.read_bytes() == images["pico"].uf2.read_bytes()
    r = aot("qemu", images["pico2"].elf, "--board", "pico", "--timeout", "5")
    assert (r.returncode, r.stderr) == (2, f"aot qemu: {images['pico2'].elf} is an RP2350 image (an IMAGE_DEF "
                                           "block at +0x110), not an RP2040 image for board pico: use --board pico2\n")
