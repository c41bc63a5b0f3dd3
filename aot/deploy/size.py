"""``size_report(elf)`` attributes every input section of the link map to its
object file and to a group (runtime, kernels, port, model, app, toolchain), and
every ELF symbol to a group by prefix (``mote_kernel_``, ``mote_model_``,
``mote_port_``, other ``mote_``).
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Iterable, Optional, Union

_MAP_INPUT = re.compile(r"^ (\S+)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$")
_MAP_NAME_ONLY = re.compile(r"^ (\S+)$")
_MAP_ADDR_LINE = re.compile(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$")


def _section_kind(name: str) -> Optional[str]:
    if name.startswith((".text", ".vectors", ".mote_image_def", ".ARM.exidx", ".ARM.extab")):
        return "text"
    if name.startswith((".rodata", ".mote_model", ".mote_binary_info")):
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
        flash_used = sum(secs[n]["sh_size"] for n in (".text", ".ARM.extab", ".ARM.exidx", ".data", ".mote_sram")
                         if n in secs)
        ram_used = sum(secs[n]["sh_size"] for n in (".data", ".bss", ".mote_sram") if n in secs) + stack
        report["sram_copy"] = secs[".mote_sram"]["sh_size"] if ".mote_sram" in secs else 0
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


# --------------------------------------------------------------------------- size.json


#: RAM objects of the embedding API's storage (runtime/embed/mote_model.c): size.json part -> symbols.
_APP_RAM = {"arena": ("mote_embed_arena0", "mote_embed_arena1"), "runtime_state": ("mote_embed_state",),
            "scratch": ("mote_embed_scratch",), "runtime": ("mote_embed_program", "mote_embed_methods", "mote_embed_current")}


#: the same storage in a build of several models (aot.deploy.multimodel): each model's arenas,
#: --memory shared's one arena and scratch
_MODELS_RAM = (("arena", re.compile(r"mote_model_\w+_arena[01]|mote_models_arena0")),
               ("scratch", re.compile(r"mote_models_scratch")))


def _app_ram_part(name: str) -> Optional[str]:
    """size.json RAM part of an ELF symbol of the embedding API's storage, or None."""
    for part, names in _APP_RAM.items():
        if name in names:
            return part
    for part, pattern in _MODELS_RAM:
        if pattern.fullmatch(name):
            return part
    return None


def _flash_part(obj: str, out: Path) -> str:
    """size.json flash part of a linked object (a path from the link map)."""
    p = obj.replace("\\", "/")
    if ".a(" in p or "/lib/gcc/" in p or "arm-none-eabi/lib" in p:
        return "toolchain"
    prefix = str(out / "obj") + "/"
    rel = p[len(prefix):] if p.startswith(prefix) else p
    base = rel.rsplit("/", 1)[-1]
    if base.startswith(("model_inputs.S", "model_selftest_inputs.c")):
        return "inputs"
    if base.startswith("model_selftest.c"):
        return "selftest"
    if base.startswith("model_image.c"):
        return "method_image"
    if base.startswith("model_pte.c"):
        return "model"
    if base.startswith("mote_embed_"):  # several models: runtime/embed/mote_model.c per model
        return "runtime"
    if base.startswith("registry.c") or rel.startswith(("kernels/", "cmsis/")):
        return "kernels"
    if rel.startswith("runtime/"):
        return "runtime"
    return "port"


def size_json(art, compiled, board, state, scratch, stack, analysed, kernels,
               input_blob_bytes, selftest_blob_bytes: int = 0) -> dict:
    """Flash and RAM by part, every figure read from the link map and the ELF.

    flash: bytes of each part's input sections placed in flash (text, rodata,
    data load image) + "padding" (alignment gaps) = flash_bytes (.text,
    .ARM.*, .data of the ELF). On boards with a model_region the program and
    the input sets live there instead (model_region). A --selftest build has
    a "selftest" part: the expected outputs and tolerances (its cases' inputs
    are the "inputs" part); a build with method images (aot.deploy.image) a
    "method_image" part: the runtime state as const data. ram: the app's static
    buffers (ELF symbol sizes) + the stack section + "sram_copy" (with
    --code-in-sram / --weights-in-sram: the kernels' code or the program
    copied from flash to SRAM at boot; their flash bytes stay in their parts)
    + "port" (every other .data/.bss byte: port variables, alignment) = ram_bytes.
    """
    from elftools.elf.elffile import ELFFile
    rep = art.size_report()
    out = art.elf.parent.resolve()
    names = ("runtime", "kernels", "port", "toolchain", "model", "inputs")
    parts = {k: 0 for k in names + (("selftest",) if selftest_blob_bytes else ())}
    if any(Path(o).name.startswith("model_image.c") for o in rep.get("objects", {})):
        parts["method_image"] = 0
    for obj, kinds in rep.get("objects", {}).items():
        parts[_flash_part(obj, out)] += int(kinds["text"] + kinds["rodata"] + kinds["data"])
    region = None
    if board.model_region is not None:
        moved = [k for k in ("model", "inputs", "selftest") if k in parts]
        region = {k: parts[k] for k in moved}
        region["padding"] = int(rep.get("model_region_used", 0)) - sum(region.values())
        for k in moved:
            parts[k] = 0
    flash = dict(parts)
    flash["padding"] = int(rep["flash_used"]) - sum(parts.values())

    ram = {k: 0 for k in _APP_RAM}
    with open(art.elf, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        for sym in symtab.iter_symbols():
            part = _app_ram_part(sym.name)
            if part is not None:  # several models: each one's static symbols of the same name
                ram[part] += int(sym["st_size"])
    ram["stack"] = int(rep["sections"].get("stack", 0))
    if rep.get("sram_copy"):  # --code-in-sram / --weights-in-sram: copied from flash at boot
        ram["sram_copy"] = int(rep["sram_copy"])
    ram["port"] = int(rep["ram_used"]) - sum(ram.values())
    size = {
        "board": board.name,
        "flash": flash,
        "ram": ram,
        "flash_bytes": int(rep["flash_used"]),
        "ram_bytes": int(rep["ram_used"]),
        "flash_size": board.flash.size,
        "ram_size": board.ram.size,
        "planned": {"arena": int(sum(compiled.spec.arena_sizes)), "runtime_state": state,
                    "scratch": scratch, "stack": stack, "pte": len(compiled.pte),
                    "inputs": int(input_blob_bytes),
                    **({"selftest": int(selftest_blob_bytes)} if selftest_blob_bytes else {})},
        "stack_worst_case_bytes": analysed,
        "kernels": [p.name for p in kernels],
        "model_constants_bytes": int(compiled.manifest.get("memory", {}).get("constants_bytes") or 0),
    }
    if region is not None:
        size["model_region"] = region
        size["model_region_bytes"] = int(rep.get("model_region_used", 0))
        size["model_region_size"] = board.model_region.size
    return size


def size_table(size: dict) -> str:
    """The size.json figures as a text table."""
    lines = [f"{'part':<16}{'flash B':>12}{'RAM B':>12}"]
    for k, v in size["flash"].items():
        lines.append(f"{k:<16}{v:>12,}{'':>12}")
    for k, v in size["ram"].items():  # the "arena" part holds the mutable buffers' arena too
        lines.append(f"{'arena + mutable' if k == 'arena' else k:<16}{'':>12}{v:>12,}")
    fl, fs = size["flash_bytes"], size["flash_size"]
    rl, rs = size["ram_bytes"], size["ram_size"]
    lines.append(f"{'total':<16}{fl:>12,}{rl:>12,}")
    if "model_region" in size:
        parts = ", ".join(f"{k} {v:,}" for k, v in size["model_region"].items())
        lines.append(f"model region: {size['model_region_bytes']:,} B of "
                     f"{size['model_region_size']:,} ({parts})")
    lines.append(f"{'board budget':<16}{fs:>12,}{rs:>12,}   "
                 f"({100 * fl / fs:.1f}% flash, {100 * rl / rs:.1f}% RAM)")
    return "\n".join(lines)
