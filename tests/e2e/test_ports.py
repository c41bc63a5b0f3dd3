"""Cortex-M ports: the self-test firmware on QEMU (mps2-an505 = Cortex-M33,
mps3-an547 = Cortex-M55), the fault handler, UART input, exact instruction
counts, the Pico 2 image (vector table, IMAGE_DEF, UF2), the build-only board,
no heap in any image, and the size / stack reports of aot.deploy.firmware."""
import json
import re
import struct
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from aot.deploy.boards import load_board
from aot.errors import FirmwareError
from aot.deploy.firmware import build_firmware
from aot.deploy.size import HEAP_SYMBOLS, elf_undefined_or_defined, size_report
from aot.deploy.qemu import QemuTimeout, qemu_command, run_firmware
from aot.deploy.uf2 import parse_uf2

ROOT = Path(__file__).resolve().parents[2]

SELFTEST = ROOT / "ports" / "cortex-m" / "selftest.c"
QEMU_BOARDS = ("mps2-an505", "mps3-an547")
LOOP_N = 10000
FAULT_ADDR = 0xF0000000


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    """Builds on demand, once per (board, variant)."""
    cache = {}
    base = tmp_path_factory.mktemp("fw")

    def get(board, variant="plain", **kw):
        key = (board, variant)
        if key not in cache:
            defines = {"plain": {}, "fault": {"MOTE_SELFTEST_FAULT": None},
                       "echo": {"MOTE_SELFTEST_ECHO": None},
                       "stack": {"MOTE_SELFTEST_STACK_OVERFLOW": 16384}}[variant]
            defines = dict(defines, MOTE_SELFTEST_LOOP_N=f"{LOOP_N}u")
            cache[key] = build_firmware(board, [SELFTEST], defines=defines,
                                        out_dir=base / f"{board}-{variant}", stack_bytes=4096, **kw)
        return cache[key]

    return get


def _symbol(elf, name):
    with open(elf, "rb") as f:
        sym = ELFFile(f).get_section_by_name(".symtab").get_symbol_by_name(name)
    assert sym, name
    return sym[0]["st_value"], sym[0]["st_size"]


def _figures(text):
    return {k: int(v) for k, v in re.findall(r"^([A-Z_]+) (\d+)$", text, re.M)}


# ----------------------------------------------------------------------------- QEMU


@pytest.mark.sim
@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_selftest_runs(fw, board):
    a = fw(board)
    code, text = run_firmware(a.elf, board, timeout_s=20)
    assert code == 0, text
    assert text.startswith("MOTE hello\n")
    assert "LOG -5 7 beef ok -1234567890123 %\n" in text
    assert text.endswith("MOTE done\n")
    f = _figures(text)
    assert f["LOOP_INSNS"] == 2 * LOOP_N
    # The start-up code enabled what the board file declares (else: UsageFault NOCP).
    assert f["FPU"] == 3375 and f["DSP"] == 129
    assert f.get("MVE") == (84 if a.board.mve else None)


@pytest.mark.sim
@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_instruction_counts_exact_and_deterministic(fw, board):
    a = fw(board)
    runs = [run_firmware(a.elf, board, timeout_s=20) for _ in range(2)]
    assert runs[0] == runs[1]  # -icount shift=0: identical counts, identical text
    f = _figures(runs[0][1])
    net = f["CYCLES"] - f["CYCLES_EMPTY"]
    # subs + bne per turn: exactly 2N instructions; the SysTick edge spin makes the
    # measurement exact to a few instructions (observed: 20000 and 20004).
    assert abs(net - 2 * LOOP_N) <= 8, f
    assert 0 < f["CYCLES_EMPTY"] < 60, f  # call overhead of mote_port_cycles()


@pytest.mark.sim
@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_fault_handler_prints_faulting_pc(fw, board):
    a = fw(board, "fault")
    code, text = run_firmware(a.elf, board, timeout_s=20)
    assert code == 3, text  # MOTE_PORT_EXIT_FAULT
    assert "FAULT TEST" in text and "NOT REACHED" not in text
    m = re.search(r"MOTE FAULT exception=(\d+) pc=0x([0-9a-f]{8})", text)
    assert m, text
    assert int(m.group(1)) == 3  # HardFault (the BusFault escalates: not enabled)
    pc = int(m.group(2), 16)
    start, size = _symbol(a.elf, "mote_selftest_fault_read")
    assert start & ~1 <= pc < (start & ~1) + size  # the load inside the faulting function
    assert f"bfar=0x{FAULT_ADDR:08x}" in text  # precise bus fault at the address read


@pytest.mark.sim
@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_stack_overflow_is_caught_and_predicted(fw, board):
    a = fw(board, "stack")  # a 16 KiB frame on a 4 KiB stack
    worst, path, _ = a.stack.worst_path("main")
    assert "mote_selftest_big_frame" in path and worst > 16384 > a.stack_bytes  # predicted
    code, text = run_firmware(a.elf, board, timeout_s=20)
    assert code == 3, text
    assert "STACK TEST" in text and "NOT REACHED" not in text
    cfsr = int(re.search(r"cfsr=0x([0-9a-f]{8})", text).group(1), 16)
    assert cfsr & (1 << 20)  # UsageFault STKOF: MSPLIM guards the reserved stack
    pc = int(re.search(r" pc=0x([0-9a-f]{8})", text).group(1), 16)
    start, size = _symbol(a.elf, "mote_selftest_big_frame")
    assert start & ~1 <= pc < (start & ~1) + size


@pytest.mark.sim
def test_uart_input(fw):
    a = fw("mps2-an505", "echo")
    payload = bytes([1, 2, 255, 0, 3]) + b"abc\n"  # raw bytes, Ctrl-A included
    code, text = run_firmware(a.elf, "mps2-an505", timeout_s=20, stdin_bytes=payload)
    assert code == 0, text
    assert f"ECHO {sum(payload)} {len(payload)}\n" in text


@pytest.mark.sim
def test_timeout_is_an_error(fw):
    a = fw("mps2-an505", "echo")  # waits for a newline that never comes
    with pytest.raises(QemuTimeout) as e:
        run_firmware(a.elf, "mps2-an505", timeout_s=1.5)
    assert "did not exit" in str(e.value)
    assert e.value.output.startswith("MOTE hello")


def test_qemu_command_line(fw):
    cmd = qemu_command("x.elf", "mps3-an547")
    s = " ".join(cmd)
    for part in ("-machine mps3-an547", "-nographic", "-semihosting-config enable=on,target=native",
                 "-icount shift=0", "-kernel x.elf", "-serial stdio", "-monitor none"):
        assert part in s
    with pytest.raises(Exception, match="no QEMU machine"):
        qemu_command("x.elf", "pico2")


@pytest.mark.sim
def test_board_file_is_all_a_new_board_needs(fw, tmp_path):
    """A board that exists only as a data file (different RAM size) builds and runs."""
    d = json.loads((ROOT / "boards" / "mps2-an505.json").read_text())
    d.update(name="my-an505", ram={"origin": "0x38000000", "size": "0x10000"})
    p = tmp_path / "my-an505.json"
    p.write_text(json.dumps(d))
    a = build_firmware(str(p), [SELFTEST], out_dir=tmp_path / "out", stack_bytes=2048)
    assert _symbol(a.elf, "__stack_top")[0] == 0x38010000
    code, text = run_firmware(a.elf, load_board(str(p)), timeout_s=20)
    assert code == 0 and "MOTE done" in text


# ----------------------------------------------------------------------------- pico2


def test_pico2_image(fw):
    a = fw("pico2")
    board = a.board
    binary = a.bin.read_bytes()
    assert 0 < len(binary) <= board.flash.size
    # Vector table at the start of the image (= flash origin 0x10000000).
    assert _symbol(a.elf, "mote_port_vectors")[0] == board.flash.origin
    sp, reset = struct.unpack_from("<2I", binary, 0)
    assert board.ram.origin < sp <= board.ram.end and sp % 8 == 0
    assert sp == board.ram.end  # initial MSP = top of the 520 KiB SRAM
    assert reset & 1 == 1  # Thumb bit
    assert board.flash.origin <= (reset & ~1) < board.flash.origin + len(binary)
    assert (reset & ~1) == _symbol(a.elf, "mote_port_reset_handler")[0] & ~1
    # IMAGE_DEF: in the first 4 KB, word aligned, exact words (RP2350 datasheet 5.9.5.1).
    start = binary.find(struct.pack("<I", 0xFFFFDED3))
    assert 0 < start and start % 4 == 0 and start + 20 <= 4096
    words = struct.unpack_from("<5I", binary, start)
    assert words == (0xFFFFDED3, 0x10210142, 0x000001FF, 0x00000000, 0xAB123579)
    item = words[1]
    assert item & 0xFF == 0x42 and (item >> 8) & 0xFF == 1  # IMAGE_TYPE, 1 word
    flags = item >> 16
    assert flags & 0xF == 1 and (flags >> 4) & 3 == 2 and (flags >> 8) & 7 == 0 and (flags >> 12) & 7 == 1
    # The IRQ table fits before the block: 16 + 52 vectors.
    assert start == 4 * (16 + board.irq_count)
    # UF2 round trip.
    assert a.uf2 is not None
    fam, base, image = parse_uf2(a.uf2.read_bytes())
    assert (fam, base) == (0xE48BFF59, 0x10000000)
    assert image[:len(binary)] == binary and set(image[len(binary):]) <= {0}
    # 150 MHz PLL and the UART divisor are compile-time facts in the generated header.
    h = a.board_header.read_text()
    assert "#define MOTE_BOARD_UART_BASE 0x40070000u" in h
    assert "#define MOTE_BOARD_CYCLES_DWT 1" in h and "MOTE_BOARD_SEMIHOSTING 0" in h


def test_build_only_board_compiles(fw):
    a = fw("nucleo-f446re")
    sp, reset = struct.unpack_from("<2I", a.bin.read_bytes(), 0)
    assert sp == 0x20000000 + 128 * 1024
    assert reset & 1 and 0x08000000 <= reset < 0x08000000 + 512 * 1024
    assert a.uf2 is None


@pytest.mark.parametrize("board", ["mps2-an505", "mps3-an547", "pico2", "nucleo-f446re", "pico", "microbit",
                                   "mps2-an385"])
def test_no_heap_in_any_image(fw, board):
    for variant in ("plain", "fault"):
        a = fw(board, variant)
        assert elf_undefined_or_defined(a.elf, HEAP_SYMBOLS) == set()
        assert elf_undefined_or_defined(a.elf, ["main", "mote_port_reset_handler"]) == {
            "main", "mote_port_reset_handler"}


def test_stack_does_not_fit_is_a_link_error(tmp_path):
    with pytest.raises(FirmwareError, match="RAM overflow|overlaps|will not fit"):
        build_firmware("nucleo-f446re", [SELFTEST], out_dir=tmp_path, stack_bytes=256 * 1024)


def test_compile_error_is_reported(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return undeclared; }\n")
    with pytest.raises(FirmwareError, match="undeclared"):
        build_firmware("mps2-an505", [bad], out_dir=tmp_path / "o")


def test_warnings_are_errors(tmp_path):
    src = tmp_path / "warn.c"
    src.write_text("int helper(void) { return 1; }\nint main(void) { return helper(); }\n")
    with pytest.raises(FirmwareError, match="missing-prototypes"):
        build_firmware("mps2-an505", [src], out_dir=tmp_path / "o")


# ----------------------------------------------------------------------------- reports


def test_size_report(fw):
    a = fw("pico2")
    r = size_report(a.elf)
    assert r["sections"]["stack"] == 4096
    assert r["flash_size"] == 4 * 1024 * 1024 and r["ram_size"] == 520 * 1024
    assert r["flash_used"] == len(a.bin.read_bytes())
    port = r["groups"]["port"]
    assert port["text"] > 0 and port["bss"] == 0
    # selftest.c lives in ports/, so everything but libgcc is "port".
    assert set(r["groups"]) <= {"port", "toolchain"}
    total_text = sum(g["text"] for g in r["groups"].values())
    assert total_text == r["sections"]["text"]
    assert r["sections"]["text"] + r["sections"]["rodata"] <= r["flash_used"]
    assert r["symbols"]["port"]["text"] > 0
    obj = next(k for k in r["objects"] if k.endswith("image_def.c.o"))
    assert r["objects"][obj]["text"] == 20  # the 5-word boot block, placed with .vectors


def test_size_report_groups_by_source_path(fw, tmp_path):
    """runtime/ kernels/ model objects are told apart by path and symbol prefix."""
    (tmp_path / "kernels").mkdir()
    k = tmp_path / "kernels" / "op_fake.c"
    k.write_text('#include <stdint.h>\nint32_t mote_kernel_fake(int32_t x);\n'
                 'int32_t mote_kernel_fake(int32_t x) { return x * 3 + 1; }\n')
    m = tmp_path / "mote_model_data.c"
    m.write_text('#include <stdint.h>\nextern const uint8_t mote_model_pte[300];\n'
                 'const uint8_t mote_model_pte[300] = {1, 2, 3};\n')
    app = tmp_path / "app.c"
    app.write_text('#include <stdint.h>\nextern const uint8_t mote_model_pte[300];\n'
                   'int32_t mote_kernel_fake(int32_t x);\n'
                   'int main(void) { return (int)mote_kernel_fake(mote_model_pte[2]) - 10; }\n')
    a = build_firmware("mps2-an505", [app, k, m], out_dir=tmp_path / "o")
    r = a.size_report()
    assert r["symbols"]["model"]["rodata"] == 300
    assert r["symbols"]["kernels"]["text"] > 0
    assert r["groups"]["model"]["rodata"] == 300
    assert r["groups"]["kernels"]["text"] > 0
    assert r["groups"]["app"]["text"] > 0
    code, _ = run_firmware(a.elf, "mps2-an505", timeout_s=20)
    assert code == 0  # 3 * 3 + 1 - 10


def test_stack_report(fw):
    a = fw("mps2-an505")
    st = a.stack
    assert st.frames["main"] > 0
    worst, path, unresolved = st.worst_path("mote_port_reset_handler")
    assert path[:2] == ["mote_port_reset_handler", "main"]
    assert worst == sum(st.frames[f] for f in path)
    assert worst >= st.frames["main"] + st.frames["mote_port_reset_handler"]
    assert worst < a.stack_bytes
    assert st.max_frame[1] == max(st.frames.values())
    assert st.worst_path("mote_port_log")[0] >= st.frames["mote_port_log"]
    with pytest.raises(FirmwareError, match="no function"):
        st.worst_path("nope")


def test_stack_report_graph_rules(tmp_path):
    """Longest path, indirect calls bounded by the given targets, recursion rejected;
    read from real .su/.ci files of a small host-independent source."""
    from aot.deploy.stack import StackReport, stack_report

    src = tmp_path / "g.c"
    src.write_text(
        "typedef int (*fn_t)(int);\n"
        "int leaf_small(int x); int leaf_big(int x); int mid(int x); int top(fn_t f, int x);\n"
        "int leaf_small(int x) { volatile int a[4]; a[0] = x; return a[0]; }\n"
        "int leaf_big(int x) { volatile int a[64]; a[0] = x; return a[0]; }\n"
        "int mid(int x) { volatile int a[8]; a[0] = x; return leaf_small(a[0]) + 1; }\n"
        "int top(fn_t f, int x) { volatile int a[2]; a[0] = x; return mid(a[0]) + f(x); }\n")
    import subprocess
    obj = tmp_path / "g.c.o"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m33", "-mthumb", "-O2", "-fno-inline", "-c", str(src),
                    "-o", str(obj), "-fstack-usage", "-fcallgraph-info=su"], check=True)
    st = stack_report([obj])
    f = st.frames
    assert f["leaf_big"] >= 256 and f["leaf_small"] >= 16
    worst, path, unresolved = st.worst_path("top")
    assert path == ["top", "mid", "leaf_small"] and worst == f["top"] + f["mid"] + f["leaf_small"]
    assert unresolved == {"__indirect_call"}
    worst2, path2, unresolved2 = st.worst_path("top", indirect_targets=["leaf_big", "leaf_small"])
    assert path2 == ["top", "leaf_big"] and worst2 == f["top"] + f["leaf_big"] and not unresolved2
    cyc = StackReport({"a": 8, "b": 8}, {}, {"a": {"b"}, "b": {"a"}})
    with pytest.raises(FirmwareError, match="recursion a -> b -> a"):
        cyc.worst_path("a")


MODEL_DATA = """#include <stdint.h>
#define N (1024u * 1024u)
extern const uint8_t mote_model_pte[N];
__attribute__((section(".mote_model"), aligned(16)))
const uint8_t mote_model_pte[N] = {1, 2, 3, [N - 1] = 200};
"""
MODEL_MAIN = """#include <stdint.h>
#include "mote_port.h"
#define N (1024u * 1024u)
extern const uint8_t mote_model_pte[N];
int main(void)
{
    const volatile uint8_t *p = mote_model_pte;
    uint32_t i, s = 0;
    for (i = 0; i < N; i++) {
        s += p[i];
    }
    mote_port_put_hex32((uint32_t)(uintptr_t)mote_model_pte);
    mote_port_putc(' ');
    mote_port_put_u32(s);
    mote_port_puts("\\r\\n");
    return 0;
}
"""


@pytest.mark.sim
@pytest.mark.parametrize("board, where", [("mps3-an547", 0x38000000), ("mps2-an505", 0x10000000)])
def test_large_model_constants(tmp_path, board, where):
    """A 1 MiB .mote_model array: in the an547's QSPI model_region (its ITCM flash holds
    512 KiB), in flash elsewhere; the firmware reads every byte back."""
    (tmp_path / "app.c").write_text(MODEL_MAIN)
    (tmp_path / "model_data.c").write_text(MODEL_DATA)
    a = build_firmware(board, [tmp_path / "app.c", tmp_path / "model_data.c"], out_dir=tmp_path / "o")
    addr, size = _symbol(a.elf, "mote_model_pte")
    assert size == 1 << 20 and where <= addr < where + a.board.flash.size + (8 << 20)
    r = a.size_report()
    assert r["symbols"]["model"]["rodata"] == 1 << 20
    assert r["groups"]["model"]["rodata"] == 1 << 20
    if a.board.model_region is not None:
        assert r["model_region_used"] == 1 << 20 and r["flash_used"] < 8192
        assert a.bin.stat().st_size < 8192  # the flash image excludes the model region
    else:
        assert r["model_region_used"] == 0 and r["flash_used"] > 1 << 20
    code, text = run_firmware(a.elf, board, timeout_s=30)
    assert code == 0 and text == f"0x{addr:08x} 206\n"
