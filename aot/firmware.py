"""Bare-metal firmware builds for Cortex-M boards (arm-none-eabi-gcc + newlib-nano).

``build_firmware(board, sources, ...)`` compiles the caller's C sources with
the board's port (ports/cortex-m + ports/<port> + the UART driver named by the
board file), generates ``mote_board.h`` and the linker script from the board
file, links with ``--gc-sections`` against newlib-nano without start files,
and writes ``firmware.elf``, ``.bin``, ``.map`` and, for boards with a UF2
family, ``.uf2``. ``aot build`` uses it to link runtime + kernels + model.

Stack analysis (``StackReport``): every object is compiled with
``-fstack-usage`` (per-function frame, ``.su``) and ``-fcallgraph-info=su``
(per-object call graph in VCG, ``.ci``, whose node labels carry the same frame
sizes). The graphs of all objects are merged by function name and the worst
path from a root function is the largest sum of frames along any call chain
(a longest-path search; the runtime has no recursion, a cycle is reported).
Limits: calls through function pointers (kernel dispatch) and calls into
libc/libgcc (no .ci) count as 0 bytes and are listed in ``unresolved``;
``worst_path(root, indirect_targets=[...])`` makes every indirect call site
call each listed function (e.g. every kernel in the registry), which bounds
the kernel dispatch. Exception entry adds 32 bytes (basic frame) or 104 bytes
(with FP context) per active exception on top.

``size_report(elf)`` attributes every input section of the link map to its
object file and to a group (runtime, kernels, port, model, app, toolchain), and
every ELF symbol to a group by prefix (``mote_kernel_``, ``mote_model_``,
``mote_port_``, other ``mote_``).
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Union

from aot.boards import ROOT, Board, load_board
from aot.errors import MoteError

PORTS_DIR = ROOT / "ports"
CORTEX_M_DIR = PORTS_DIR / "cortex-m"

CC = "arm-none-eabi-gcc"
OBJCOPY = "arm-none-eabi-objcopy"

#: Warnings every firmware source is compiled with (DESIGN.md, "The C runtime").
WARN_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror"]

DEFAULT_STACK_BYTES = 8 * 1024

#: Node GCC's -fcallgraph-info uses for a call through a function pointer.
INDIRECT_CALL = "__indirect_call"


class FirmwareError(MoteError):
    """Compiling or linking firmware failed (message carries the compiler output)."""


@dataclass
class StackReport:
    """Per-function frames and a call graph merged from .su/.ci files."""

    frames: dict[str, int]  # function -> frame bytes (static part)
    qualifiers: dict[str, str]  # function -> "static" | "dynamic" | "dynamic,bounded"
    calls: dict[str, set[str]]  # caller -> callees (names; "__indirect_call" for pointers)

    def worst_path(self, root: str = "main",
                   indirect_targets: Iterable[str] = ()) -> tuple[int, list[str], set[str]]:
        """(bytes, call chain, unresolved callees) of the deepest chain from `root`.

        Longest path over the call DAG with memoization, iterative (no Python
        recursion limit). A cycle raises FirmwareError (unbounded stack).
        `indirect_targets`: functions an indirect call ("__indirect_call") may reach.
        """
        if root not in self.frames:
            raise FirmwareError(f"stack analysis: no function {root!r} in the build")
        targets = set(indirect_targets)
        if targets:
            calls = {}
            for fn, callees in self.calls.items():
                if INDIRECT_CALL in callees:
                    callees = (callees - {INDIRECT_CALL}) | targets
                calls[fn] = callees
        else:
            calls = self.calls
        best: dict[str, tuple[int, Optional[str]]] = {}
        unresolved: set[str] = set()
        state: dict[str, int] = {}  # 1 = on stack, 2 = done
        stack: list[tuple[str, Iterable[str]]] = [(root, iter(sorted(calls.get(root, ()))))]
        state[root] = 1
        while stack:
            fn, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[fn] = 2
                deepest, via = 0, None
                for callee in calls.get(fn, ()):
                    if callee in best and best[callee][0] > deepest:
                        deepest, via = best[callee][0], callee
                best[fn] = (self.frames.get(fn, 0) + deepest, via)
                continue
            if nxt not in self.frames:
                unresolved.add(nxt)
                continue
            if state.get(nxt) == 1:
                chain = [f for f, _ in stack] + [nxt]
                raise FirmwareError("stack analysis: recursion " + " -> ".join(chain))
            if state.get(nxt) == 2:
                continue
            state[nxt] = 1
            stack.append((nxt, iter(sorted(calls.get(nxt, ())))))
        path, fn = [], root
        while fn is not None:
            path.append(fn)
            fn = best[fn][1]
        return best[root][0], path, unresolved

    @property
    def max_frame(self) -> tuple[str, int]:
        fn = max(self.frames, key=lambda f: self.frames[f])
        return fn, self.frames[fn]


@dataclass
class FirmwareArtifacts:
    board: Board
    elf: Path
    bin: Path
    uf2: Optional[Path]
    map: Path
    linker_script: Path
    board_header: Path
    objects: list[Path]
    stack_bytes: int  # reserved main stack, bytes
    stack: StackReport = field(repr=False)

    def size_report(self) -> dict:
        return size_report(self.elf, self.map, out_dir=self.elf.parent)


# --------------------------------------------------------------------------- board files


def port_sources(board: Board) -> list[Path]:
    """The port files a board links: common Cortex-M, its port, its UART driver."""
    common = [CORTEX_M_DIR / n for n in ("vectors.S", "startup.c", "exit.c", "print.c", "cycles.c",
                                         "runtime_port.c")]
    if board.port == "qemu":
        port = [PORTS_DIR / "qemu" / "board.c"]
    elif board.port == "pico2":
        port = [PORTS_DIR / "pico2" / "board.c", PORTS_DIR / "pico2" / "image_def.c"]
    else:
        port = [CORTEX_M_DIR / "board_generic.c"]
    uart = {
        "cmsdk": PORTS_DIR / "qemu" / "uart_cmsdk.c",
        "pl011": PORTS_DIR / "pico2" / "uart_pl011.c",
        "none": CORTEX_M_DIR / "uart_none.c",
    }[board.uart.kind]
    return common + port + [uart]


def port_include_dirs(board: Board) -> list[Path]:
    dirs = [CORTEX_M_DIR, ROOT / "runtime" / "include"]
    if board.port in ("qemu", "pico2"):
        dirs.append(PORTS_DIR / board.port)
    return dirs


def board_header(board: Board) -> str:
    """mote_board.h: the board file's facts as C macros."""
    ns_q8 = 0
    if board.simulator is not None:
        ns_q8 = (1_000_000_000 * 256 + board.simulator.systick_hz // 2) // board.simulator.systick_hz
    lines = [
        f"/* Generated by aot/firmware.py from {board.path.name}; do not edit. */",
        "#ifndef MOTE_BOARD_H",
        "#define MOTE_BOARD_H",
        f'#define MOTE_BOARD_NAME "{board.name}"',
        f"#define MOTE_BOARD_CLOCK_HZ {board.clock_hz}u /* core clock, Hz */",
        f"#define MOTE_BOARD_FLASH_ORIGIN 0x{board.flash.origin:08x}u",
        f"#define MOTE_BOARD_FLASH_SIZE 0x{board.flash.size:x}u /* bytes */",
        f"#define MOTE_BOARD_RAM_ORIGIN 0x{board.ram.origin:08x}u",
        f"#define MOTE_BOARD_RAM_SIZE 0x{board.ram.size:x}u /* bytes */",
        f"#define MOTE_BOARD_HAS_FPU {int(board.fpu)}",
        f"#define MOTE_BOARD_HAS_DSP {int(board.dsp)}",
        f"#define MOTE_BOARD_HAS_MVE {int(board.mve)}",
        f"#define MOTE_BOARD_SEMIHOSTING {int(board.semihosting)}",
        f"#define MOTE_BOARD_IRQ_COUNT {board.irq_count}",
        f"#define MOTE_BOARD_CYCLES_DWT {int(board.cycle_counter == 'dwt')}",
        f"#define MOTE_BOARD_CYCLES_SYSTICK_ICOUNT {int(board.cycle_counter == 'systick-icount')}",
        f"#define MOTE_BOARD_SYSTICK_NS_Q8 {ns_q8}u /* QEMU: ns (= instructions) per SysTick tick, Q8 */",
        f"#define MOTE_BOARD_UART_BAUD {board.uart.baud}u",
    ]
    if board.uart.base is not None:
        lines.append(f"#define MOTE_BOARD_UART_BASE 0x{board.uart.base:08x}u")
        lines.append(f"#define MOTE_BOARD_UART_CLOCK_HZ {board.uart.clock_hz or board.clock_hz}u")
    lines += ["#endif /* MOTE_BOARD_H */", ""]
    return "\n".join(lines)


def linker_script(board: Board, stack_bytes: int = DEFAULT_STACK_BYTES) -> str:
    """GNU ld script: .vectors first in flash, code and .rodata in flash, .data
    copied from flash to RAM, .bss after it, the main stack at the top of RAM."""
    if stack_bytes <= 0 or stack_bytes % 8:
        raise FirmwareError(f"stack_bytes must be a positive multiple of 8, got {stack_bytes}")
    image_def = ""
    image_def_check = ""
    if board.port == "pico2":
        image_def = (
            "        /* RP2350 boot block (IMAGE_DEF); the bootrom searches the first\n"
            "           4 KB of the image (RP2350 datasheet, 5.9.5). */\n"
            "        __mote_image_def_start__ = .;\n"
            "        KEEP(*(.mote_image_def))\n"
            "        __mote_image_def_end__ = .;\n"
        )
        image_def_check = (
            "ASSERT(__mote_image_def_end__ > __mote_image_def_start__, \"IMAGE_DEF block missing\")\n"
            "ASSERT(__mote_image_def_end__ <= ORIGIN(FLASH) + 4096,\n"
            "       \"IMAGE_DEF block must lie in the first 4 KB of flash\")\n"
        )
    mr = board.model_region
    model_mem = f"\n    MODEL (r)  : ORIGIN = 0x{mr.origin:08x}, LENGTH = 0x{mr.size:x}" if mr else ""
    model_in_flash = "" if mr else "        *(.mote_model .mote_model.*)\n"
    model_sec = ("\n    /* Large model constants (section .mote_model*) in the board's model_region. */\n"
                 "    .mote_model : ALIGN(16) { *(.mote_model .mote_model.*) } > MODEL\n") if mr else ""
    return f"""/* Generated by aot/firmware.py from boards/{board.path.name}; do not edit. */
ENTRY(mote_port_reset_handler)

MEMORY
{{
    FLASH (rx) : ORIGIN = 0x{board.flash.origin:08x}, LENGTH = 0x{board.flash.size:x}
    RAM (rwx)  : ORIGIN = 0x{board.ram.origin:08x}, LENGTH = 0x{board.ram.size:x}{model_mem}
}}

__stack_size__ = {stack_bytes};

SECTIONS
{{
    .text :
    {{
        KEEP(*(.vectors))
{image_def}        *(.text .text.*)
        *(.rodata .rodata.*)
{model_in_flash}        . = ALIGN(4);
    }} > FLASH
{model_sec}
    .ARM.extab : {{ *(.ARM.extab* .gnu.linkonce.armextab.*) }} > FLASH
    .ARM.exidx :
    {{
        __exidx_start = .;
        *(.ARM.exidx* .gnu.linkonce.armexidx.*)
        __exidx_end = .;
    }} > FLASH

    .data : ALIGN(4)
    {{
        __data_start__ = .;
        *(.data .data.*)
        . = ALIGN(4);
        __data_end__ = .;
    }} > RAM AT > FLASH
    __data_load__ = LOADADDR(.data);

    .bss (NOLOAD) : ALIGN(4)
    {{
        __bss_start__ = .;
        *(.bss .bss.* COMMON)
        . = ALIGN(4);
        __bss_end__ = .;
    }} > RAM

    /* Main stack: the top {stack_bytes} bytes of RAM; MSPLIM = __stack_limit__ on Armv8-M. */
    .stack (ORIGIN(RAM) + LENGTH(RAM) - __stack_size__) (NOLOAD) :
    {{
        __stack_limit__ = .;
        . = . + __stack_size__;
        __stack_top = .;
    }} > RAM

    /DISCARD/ : {{ *(.init_array* .fini_array* .preinit_array*) }}
}}

ASSERT(__bss_end__ <= __stack_limit__, "RAM overflow: .data + .bss + stack do not fit the board's RAM")
{image_def_check}"""


# --------------------------------------------------------------------------- build


def _run(cmd: Sequence[str], what: str) -> None:
    proc = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if proc.returncode != 0:
        raise FirmwareError(f"{what} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}\n"
                            f"command: {' '.join(map(str, cmd))}")


def _object_path(src: Path, obj_dir: Path, used: set[Path]) -> Path:
    src = src.resolve()
    try:
        rel = src.relative_to(ROOT)
    except ValueError:
        rel = Path("ext") / src.name
    obj = obj_dir / rel.with_name(rel.name + ".o")
    n = 1
    while obj in used:
        obj = obj_dir / rel.with_name(f"{rel.name}.{n}.o")
        n += 1
    used.add(obj)
    return obj


def _define_flags(defines) -> list[str]:
    if not defines:
        return []
    if isinstance(defines, Mapping):
        return [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in defines.items()]
    return [d if d.startswith("-D") else f"-D{d}" for d in defines]


def build_firmware(
    board: Union[str, Board],
    sources: Sequence[Union[str, Path]],
    include_dirs: Sequence[Union[str, Path]] = (),
    defines: Union[Mapping[str, object], Sequence[str], None] = None,
    out_dir: Union[str, Path] = "build/firmware",
    extra_objects: Sequence[Union[str, Path]] = (),
    stack_bytes: int = DEFAULT_STACK_BYTES,
    opt: str = "-Os",
    fast_sources: Sequence[Union[str, Path]] = (),
    fast_opt: str = "-O2",
    extra_cflags: Sequence[str] = (),
    name: str = "firmware",
    jobs: int = 2,
) -> FirmwareArtifacts:
    """Compile `sources` + the board's port, link, and write elf/bin/map(/uf2)."""
    board = load_board(board)
    if shutil.which(CC) is None:
        raise FirmwareError(f"{CC} not found (Debian: apt install gcc-arm-none-eabi libnewlib-arm-none-eabi)")
    for flag in (opt, fast_opt):
        if flag not in ("-Os", "-O2", "-O3", "-O1", "-O0", "-Og"):
            raise FirmwareError(f"unsupported optimization flag {flag!r}")
    # Hot code (the kernels) may be compiled for speed while the rest stays
    # small: `fast_sources` get `fast_opt` instead of `opt`.
    fast = {Path(f).resolve() for f in fast_sources}
    out = Path(out_dir).resolve()
    gen = out / "gen"
    obj_dir = out / "obj"
    gen.mkdir(parents=True, exist_ok=True)
    obj_dir.mkdir(parents=True, exist_ok=True)

    header = gen / "mote_board.h"
    header.write_text(board_header(board))
    script = out / f"{name}.ld"
    script.write_text(linker_script(board, stack_bytes))

    all_sources = [Path(s) for s in sources] + port_sources(board)
    incs = [gen] + port_include_dirs(board) + [Path(d) for d in include_dirs]
    cflags = (board.arch_flags + [opt, "-g", "-ffunction-sections", "-fdata-sections",
                                  "-fno-common", "-fstack-usage", "-fcallgraph-info=su"]
              + WARN_FLAGS + [f"-I{d}" for d in incs] + _define_flags(defines) + list(extra_cflags))

    used: set[Path] = set()
    jobs_list = []
    for src in all_sources:
        if not src.exists():
            raise FirmwareError(f"source file not found: {src}")
        obj = _object_path(src, obj_dir, used)
        obj.parent.mkdir(parents=True, exist_ok=True)
        flags = cflags
        if src.resolve() in fast:
            flags = [fast_opt if f == opt else f for f in cflags]
        if src.suffix == ".S":
            flags = board.arch_flags + ["-g"] + [f"-I{d}" for d in incs] + _define_flags(defines)
        jobs_list.append(([CC] + flags + ["-c", str(src), "-o", str(obj)], obj, src))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = [pool.submit(_run, cmd, f"compiling {src}") for cmd, _, src in jobs_list]
        for f in futs:
            f.result()
    objects = [obj for _, obj, _ in jobs_list] + [Path(o).resolve() for o in extra_objects]

    elf = out / f"{name}.elf"
    mapf = out / f"{name}.map"
    link = (board.arch_flags + ["-nostartfiles", "--specs=nano.specs", f"-T{script}",
                                "-Wl,--gc-sections", f"-Wl,-Map={mapf}", "-Wl,--no-warn-rwx-segments",
                                "-o", str(elf)]
            + [str(o) for o in objects] + ["-lm", "-lc", "-lgcc"])
    _run([CC] + link, f"linking {elf.name}")
    binf = out / f"{name}.bin"
    # The .bin is the flash image; a separate model_region is not part of it.
    _run([OBJCOPY, "-O", "binary", "-R", ".mote_model", str(elf), str(binf)], "objcopy")
    uf2 = None
    if board.uf2_family_id is not None:
        from aot.uf2 import bin_to_uf2

        uf2 = out / f"{name}.uf2"
        uf2.write_bytes(bin_to_uf2(binf.read_bytes(), board.flash.origin, board.uf2_family_id))
    return FirmwareArtifacts(board=board, elf=elf, bin=binf, uf2=uf2, map=mapf, linker_script=script,
                             board_header=header, objects=objects, stack_bytes=stack_bytes,
                             stack=stack_report([o for o in objects if o.parent.is_relative_to(obj_dir)]))


# --------------------------------------------------------------------------- stack


_CI_NODE = re.compile(r'node:\s*\{\s*title:\s*"([^"]+)"\s*label:\s*"([^"]*)"')
_CI_EDGE = re.compile(r'edge:\s*\{\s*sourcename:\s*"([^"]+)"\s*targetname:\s*"([^"]+)"')
_CI_FRAME = re.compile(r"\\n(\d+) bytes \(([a-z,]+)\)")
_SU_LINE = re.compile(r"^(.*?):(\d+):(\d+):(\S+)\s+(\d+)\s+(\S+)$")


def stack_report(objects: Iterable[Path]) -> StackReport:
    """Merge the .su and .ci files written next to `objects`."""
    frames: dict[str, int] = {}
    quals: dict[str, str] = {}
    calls: dict[str, set[str]] = {}
    for obj in objects:
        su = obj.with_suffix(".su")
        ci = obj.with_suffix(".ci")
        if su.exists():
            for line in su.read_text().splitlines():
                m = _SU_LINE.match(line.strip())
                if m:
                    fn = m.group(4)
                    frames[fn] = max(frames.get(fn, 0), int(m.group(5)))
                    quals[fn] = m.group(6)
        if ci.exists():
            text = ci.read_text()
            for title, label in _CI_NODE.findall(text):
                m = _CI_FRAME.search(label)
                if m:
                    frames[title] = max(frames.get(title, 0), int(m.group(1)))
                    quals.setdefault(title, m.group(2))
            for src, dst in _CI_EDGE.findall(text):
                calls.setdefault(src, set()).add(dst)
    return StackReport(frames, quals, calls)


# --------------------------------------------------------------------------- sizes


_MAP_INPUT = re.compile(r"^ (\S+)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$")
_MAP_NAME_ONLY = re.compile(r"^ (\S+)$")
_MAP_ADDR_LINE = re.compile(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$")


def _section_kind(name: str) -> Optional[str]:
    if name.startswith((".text", ".vectors", ".mote_image_def", ".ARM.exidx", ".ARM.extab")):
        return "text"
    if name.startswith((".rodata", ".mote_model")):
        return "rodata"
    if name.startswith(".data"):
        return "data"
    if name.startswith((".bss", "COMMON")):
        return "bss"
    return None


def _object_group(obj: str, out_dir: Optional[Path]) -> str:
    p = obj.replace("\\", "/")
    if ".a(" in p or p.endswith(".a") or "/lib/gcc/" in p or "arm-none-eabi/lib" in p:
        return "toolchain"
    rel = p
    if out_dir is not None:
        prefix = str(Path(out_dir).resolve() / "obj") + "/"
        if p.startswith(prefix):
            rel = p[len(prefix):]
    base = rel.rsplit("/", 1)[-1]
    if rel.startswith("runtime/") or "/mote_runtime/" in "/" + rel:
        return "runtime"
    if rel.startswith(("kernels/", "cmsis/")) or base.startswith("op_"):
        return "kernels"
    if rel.startswith("ports/"):
        return "port"
    if "model" in base:
        return "model"
    return "app"


def _symbol_group(name: str) -> str:
    if name.startswith("mote_kernel_"):
        return "kernels"
    if name.startswith("mote_model_"):
        return "model"
    if name.startswith(("mote_port_", "mote_selftest_")):
        return "port"
    if name.startswith("mote_"):
        return "runtime"
    return "other"


def parse_map(map_path: Path) -> list[tuple[str, int, int, str]]:
    """(input section, address, size, object) for every input section linked."""
    rows = []
    lines = Path(map_path).read_text().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("Linker script and memory map"))
    except StopIteration:
        return rows
    pending = None
    for line in lines[start:]:
        if pending is not None:
            m = _MAP_ADDR_LINE.match(line)
            pending_name, pending = pending, None
            if m:
                rows.append((pending_name, int(m.group(1), 16), int(m.group(2), 16), m.group(3).strip()))
                continue
        m = _MAP_INPUT.match(line)
        if m:
            rows.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16), m.group(4).strip()))
            continue
        m = _MAP_NAME_ONLY.match(line)
        if m and not m.group(1).startswith("*"):
            pending = m.group(1)
    return rows


def size_report(elf: Union[str, Path], map_path: Union[str, Path, None] = None,
                out_dir: Union[str, Path, None] = None) -> dict:
    """Sizes in bytes. Keys:
    sections: {text, rodata, data, bss, stack}, flash_used, ram_used, flash_size, ram_size,
    model_region_used (bytes of .mote_model* placed in the board's model_region),
    groups: {runtime|kernels|port|model|app|toolchain: {text, rodata, data, bss}} (link map),
    objects: {object: {text, rodata, data, bss}},
    symbols: {runtime|kernels|port|model|other: {text, rodata, data, bss}} (ELF symbols by prefix).
    """
    from elftools.elf.elffile import ELFFile

    elf = Path(elf)
    map_path = Path(map_path) if map_path else elf.with_suffix(".map")
    out_dir = Path(out_dir) if out_dir else elf.parent
    kinds = ("text", "rodata", "data", "bss")
    zero = lambda: {k: 0 for k in kinds}  # noqa: E731

    report: dict = {"sections": zero(), "groups": {}, "objects": {}, "symbols": {}}
    if map_path.exists():
        for sec, _addr, size, obj in parse_map(map_path):
            kind = _section_kind(sec)
            if kind is None or size == 0 or obj.startswith(("*(", "load address")):
                continue
            grp = _object_group(obj, out_dir)
            report["groups"].setdefault(grp, zero())[kind] += size
            report["objects"].setdefault(obj, zero())[kind] += size
            report["sections"][kind] += size

    with open(elf, "rb") as f:
        ef = ELFFile(f)
        secs = {s.name: s for s in ef.iter_sections()}
        stack = secs[".stack"]["sh_size"] if ".stack" in secs else 0
        flash_used = sum(secs[n]["sh_size"] for n in (".text", ".ARM.extab", ".ARM.exidx", ".data")
                         if n in secs)
        ram_used = sum(secs[n]["sh_size"] for n in (".data", ".bss") if n in secs) + stack
        model_region_used = secs[".mote_model"]["sh_size"] if ".mote_model" in secs else 0
        symtab = ef.get_section_by_name(".symtab")
        if symtab is not None:
            for sym in symtab.iter_symbols():
                st = sym["st_info"]["type"]
                if st not in ("STT_FUNC", "STT_OBJECT") or sym["st_size"] == 0:
                    continue
                shndx = sym["st_shndx"]
                if not isinstance(shndx, int):
                    continue
                sname = ef.get_section(shndx).name
                if st == "STT_FUNC":
                    kind = "text"
                elif sname == ".data":
                    kind = "data"
                elif sname == ".bss":
                    kind = "bss"
                else:
                    kind = "rodata"
                report["symbols"].setdefault(_symbol_group(sym.name), zero())[kind] += sym["st_size"]
    report["sections"]["stack"] = stack
    report["flash_used"] = flash_used
    report["ram_used"] = ram_used
    report["model_region_used"] = model_region_used
    board_sizes = _board_sizes_from_script(elf.with_suffix(".ld"))
    report.update(board_sizes)
    return report


def _board_sizes_from_script(script: Path) -> dict:
    out = {}
    if script.exists():
        text = script.read_text()
        for region, key in (("FLASH", "flash_size"), ("RAM", "ram_size")):
            m = re.search(region + r"\s*\([a-z]+\)\s*:\s*ORIGIN\s*=\s*0x[0-9a-f]+,\s*LENGTH\s*=\s*0x([0-9a-f]+)",
                          text)
            if m:
                out[key] = int(m.group(1), 16)
    return out


def elf_undefined_or_defined(elf: Union[str, Path], names: Iterable[str]) -> set[str]:
    """Which of `names` appear in the ELF's symbol table (defined or not)."""
    from elftools.elf.elffile import ELFFile

    wanted = set(names)
    found = set()
    with open(elf, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        if symtab is not None:
            for sym in symtab.iter_symbols():
                if sym.name in wanted:
                    found.add(sym.name)
    return found


HEAP_SYMBOLS = ("malloc", "calloc", "realloc", "free", "_malloc_r", "_calloc_r", "_realloc_r",
                "_free_r", "_sbrk", "_sbrk_r")
