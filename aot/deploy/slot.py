"""Model slots: a firmware built for a slot, and model-only images packed for it.

A slot firmware (`aot build MODEL --board B --slot ...`) links the runtime, the
kernels of its operator set and static memory of reserved sizes, but no program:
the program arrives later in a flash region of its own (the slot) as an image
`aot pack` writes. The build folder's slot.json is the contract both sides use:

  slot.json  {"slot_version": 1, "board", "address", "flash_bytes" (the region),
              "arena_bytes", "mutable_bytes", "state_bytes" (per bank), "scratch_bytes",
              "ops": [...], "inputs"/"outputs": [{"dtype": code, "dtype_name", "sizes"}],
              "image_version", "pte_format_version", "headroom_percent",
              "recipe": {"int8", "int8_io", ...: RECIPE_FIELDS, what aot pack compiles with},
              "sized_for": [{"model", "pte_bytes", "arena_bytes", ...}]}

Image layout (runtime/include/mote/slot.h, the one description of it): a 64-byte
header (magic "MOTS", image format version, .pte format version, program bytes and
CRC-32, scratch slots, self-test sizes, trailer CRC-32, header CRC-32), the .pte,
then the trailer (the plan's scratch slots, the self-test's inputs and expected
outputs). The firmware (runtime/embed/mote_slot.c) checks all of it before the
model runs; `aot pack` checks the same against slot.json and says so in one line.
"""
from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from aot.errors import BuildError, MoteError

#: runtime/include/mote/slot.h: MOTE_SLOT_IMAGE_VERSION, MOTE_SLOT_HEADER_BYTES
IMAGE_VERSION = 1
HEADER_BYTES = 64
MAGIC = b"MOTS"
SCRATCH_ENTRY_BYTES = 12
#: slot.json's own format
SLOT_JSON_VERSION = 1
#: flash erase unit the slot is aligned to (RP2040/RP2350 QSPI flash sectors: 4 KiB)
ERASE_BYTES = 4096
#: default headroom over the largest model the slot is sized for, percent
DEFAULT_HEADROOM = 25
#: runtime/include/mote/method.h: MOTE_ARENA_ALIGN
ARENA_ALIGN = 16


class SlotError(MoteError):
    """A slot image or contract a user gave is not usable (one line)."""


def _pad(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


# --------------------------------------------------------------------------- image


def program_stamp(pte: bytes) -> int:
    """The .pte format version stamped in `pte` (aot.pte.header; 0: unstamped or unreadable:
    the firmware's loader then says what is wrong with it)."""
    from aot.errors import PteFormatError
    from aot.pte.header import parse_header
    try:
        h = parse_header(pte)
    except PteFormatError:
        return 0
    return h.format_version if h is not None else 0


def pack_image(pte: bytes, pte_version: Optional[int] = None, scratch_slots: Sequence = (),
               selftest_inputs: bytes = b"", cases: int = 0, expected: bytes = b"") -> bytes:
    """The slot image of program `pte` (mote/slot.h): header, .pte padded to 16 bytes,
    trailer (scratch slots (instruction, offset, size), `cases` input sets of
    len(selftest_inputs) // cases bytes each, the expected-output blob). pte_version:
    the header's .pte format version (default: the program's own stamp)."""
    if pte_version is None:
        pte_version = program_stamp(pte)
    if cases and len(selftest_inputs) % cases:
        raise SlotError(f"self-test inputs of {len(selftest_inputs)} B do not split into {cases} cases")
    case_inputs = len(selftest_inputs) // cases if cases else 0
    trailer = bytearray()
    for ins, off, size in scratch_slots:
        trailer += struct.pack("<3I", ins, off, size)
    trailer += bytes(-len(trailer) % 8)
    trailer += selftest_inputs
    trailer += bytes(-len(trailer) % 8)
    trailer += expected
    head = struct.pack("<4s11I", MAGIC, IMAGE_VERSION, HEADER_BYTES, pte_version, len(pte), _crc(pte),
                       len(scratch_slots), cases, case_inputs, len(expected), len(trailer), _crc(bytes(trailer)))
    head += bytes(12)
    head += struct.pack("<I", _crc(head))
    assert len(head) == HEADER_BYTES
    return head + pte + bytes(-len(pte) % 16) + bytes(trailer)


def _magic_text(data: bytes) -> str:
    head = bytes(data[:4])
    if not head:
        return "an empty file"
    shown = head.decode("ascii") if all(32 <= b < 127 for b in head) else head.hex()
    return f"it starts with {shown!r}"


def read_image(data: bytes) -> dict:
    """The header fields of a slot image, its program and trailer; SlotError (one
    line) for what is not one (the firmware's checks, as far as they need no model)."""
    info = read_header(data)
    if _crc(info["program"]) != info["program_crc"]:
        raise SlotError("slot image program CRC-32 mismatch")
    return info


def read_header(data: bytes) -> dict:
    """read_image's fields without checking the program's CRC-32 (program_crc: the
    header's): a slot image's header, its CRC-32, format version and layout."""
    if len(data) < HEADER_BYTES or data[:4] != MAGIC:
        raise SlotError(f"not a Mote slot image (no 'MOTS' header: {_magic_text(data)})")
    f = struct.unpack_from("<4s11I", data)
    (_, version, hbytes, pte_version, pbytes, pcrc, nslots, cases, case_inputs, ebytes, tbytes, tcrc) = f
    if struct.unpack_from("<I", data, 60)[0] != _crc(data[:60]):
        raise SlotError("slot image header CRC-32 mismatch")
    if version != IMAGE_VERSION or hbytes != HEADER_BYTES:
        raise SlotError(f"slot image format version {version} (this aot reads {IMAGE_VERSION})")
    tpos = HEADER_BYTES + _pad(pbytes, 16)
    if tpos + tbytes > len(data):
        raise SlotError(f"slot image truncated: {len(data)} B, the header says {tpos + tbytes}")
    pte = data[HEADER_BYTES:HEADER_BYTES + pbytes]
    return {"image_version": version, "pte_version": pte_version, "program_bytes": pbytes, "program": pte,
            "program_crc": pcrc,
            "scratch_slots": nslots, "cases": cases, "case_inputs": case_inputs, "expected_bytes": ebytes,
            "trailer_bytes": tbytes, "trailer_crc_ok": _crc(data[tpos:tpos + tbytes]) == tcrc,
            "image_bytes": tpos + tbytes}


# --------------------------------------------------------------------------- what a model needs


def _io(spec, indices) -> list:
    from aot import ir
    return [{"dtype": int(spec.values[i].dtype), "dtype_name": ir.SCALAR_TYPE_NAMES[int(spec.values[i].dtype)],
             "sizes": [int(s) for s in spec.values[i].sizes]} for i in indices]


def model_needs(compiled, board, work: Path) -> dict:
    """What `compiled` needs of a slot on `board`: program bytes, arena (memory id 1),
    mutable buffers (memory id 2), runtime state on the board's ABI, separate kernel
    scratch, operators, inputs/outputs, methods."""
    from aot.compiler.kernels import RUNTIME_OPS
    from aot.deploy.generate import _cmsis_scratch, target_state_bytes
    spec = compiled.spec
    arenas = list(spec.arena_sizes[1:])
    scratch = int(compiled.manifest.get("memory", {}).get("scratch_bytes") or 0)
    return {"model": compiled.name, "pte_bytes": len(compiled.pte),
            "arena_bytes": int(arenas[0]) if arenas else 0,
            "mutable_bytes": int(arenas[1]) if len(arenas) > 1 else 0,
            "state_bytes": target_state_bytes(compiled.pte, board, work),
            "scratch_bytes": max(scratch, _cmsis_scratch(compiled, board)),
            "ops": sorted(op for op in compiled.op_names if op not in RUNTIME_OPS),
            "inputs": _io(spec, spec.inputs), "outputs": _io(spec, spec.outputs),
            "methods": max(1, len(compiled.methods))}


def _reserve(need: int, headroom: int, align: int) -> int:
    return _pad(need * (100 + headroom) // 100, align) if need else 0


#: the Recipe fields slot.json's "recipe" records: how the firmware's models were compiled,
#: which aot pack compiles an image with unless its command line says otherwise
RECIPE_FIELDS = ("int8", "int8_io", "int4_weights", "int16_activations", "dsp_weights", "linear_tables", "layout")


def operator_purpose(op: str) -> str:
    """" (the int8 kernel of sigmoid, tanh, ...)" for a kernel the int8 lowering emits
    (aot.compiler.quant.patterns: the ops lowered to it); "" for any other."""
    if not op.startswith("mote::"):
        return ""
    from aot.compiler.quant.patterns import lowered_from
    ops = lowered_from(op)
    return f" (the int8 kernel of {', '.join(ops)})" if ops else ""


def explain_refusal(text: str) -> str:
    """`text` (a firmware's line, or a message quoting it) with operator_purpose after a
    "MOTE ERROR slot operator OP missing" refusal's operator."""
    import re
    return re.sub(r"(MOTE ERROR slot operator )(\S+)( missing)",
                  lambda m: m.group(1) + m.group(2) + operator_purpose(m.group(2)) + m.group(3), text)


def resolve_slot_ops(names: Sequence[str], quantized: bool = False) -> tuple:
    """`--slot-ops` names as users write them -> (the kernels' full names, notes). A full
    name ("aten::sigmoid.out") stays; a short one ("sigmoid", "aten::sigmoid", "lut_s8")
    is the kernel of that name (its .out overload when there are several). With a
    quantized recipe an aten op also brings the int8 kernels an --int8 program runs it
    as (sigmoid: mote::lut_s8.out, its lookup table), since that is what the slot's int8
    models will call. BuildError naming the close kernels for a name none matches."""
    import difflib
    from aot.compiler.kernels import kernel_files, optimized_kernel_files
    from aot.paths import KERNELS_DIR
    known = sorted(set(kernel_files(KERNELS_DIR)) | set(optimized_kernel_files()))
    ops, notes = [], []
    for name in names:
        if name in known:
            full = name
        else:
            short = name.split("::", 1)[-1]
            hits = [k for k in known if k.split("::", 1)[1].split(".", 1)[0] == short.split(".", 1)[0]]
            if len(hits) > 1:
                hits = [k for k in hits if k.endswith(".out")] or hits
            if len(hits) != 1:
                close = hits or difflib.get_close_matches(name, known, n=3, cutoff=0.5) \
                    or [k for k in known if short in k][:3]
                raise BuildError(f"--slot-ops {name}: no kernel of that name"
                                 + (f"; did you mean {' or '.join(close)}?" if close else "")
                                 + " (aot ops lists them)")
            full = hits[0]
            notes.append(f"--slot-ops {name}: {full}")
        ops.append(full)
        if quantized and full.startswith("aten::"):
            from aot.compiler.quant.patterns import int8_kernels_of
            extra = [k for k in int8_kernels_of(full.split("::", 1)[1].split(".", 1)[0]) if k in known]
            for k in extra:
                if k not in ops:
                    ops.append(k)
            if extra:
                notes.append(f"--slot-ops {name}: and {', '.join(extra)}, the kernel an --int8 model runs it as")
    return ops, notes


def recipe_record(recipe) -> dict:
    """slot.json's "recipe" of an aot.compiler.recipe.Recipe (RECIPE_FIELDS)."""
    return {k: getattr(recipe, k) for k in RECIPE_FIELDS}


def make_contract(needs: list, board, extra_ops: Sequence[str] = (), flash: Optional[int] = None,
                  address: Optional[int] = None, arena: Optional[int] = None, state: Optional[int] = None,
                  mutable: Optional[int] = None, headroom: int = DEFAULT_HEADROOM,
                  recipe: Optional[dict] = None) -> dict:
    """slot.json of a firmware sized for the models `needs` (model_needs of each; the
    first one's inputs/outputs are the application's, every other must have the same)
    with `extra_ops` besides theirs. A size given wins; the rest is the largest model's
    need plus `headroom` percent. The region: `address`, else the board's "slot", else
    the top of flash; its size `flash`, else the board's slot's, else derived."""
    from aot.pte.header import format_version
    if not needs:
        raise BuildError("a slot firmware needs at least one model to size it for")
    first = needs[0]
    for n in needs[1:]:
        for side in ("inputs", "outputs"):
            if n[side] != first[side]:
                raise BuildError(f"--slot-for {n['model']}: its {side} ({_io_text(n[side])}) differ from "
                                 f"{first['model']}'s ({_io_text(first[side])}): a slot has one set of "
                                 "inputs and outputs")
    if headroom < 0:
        raise BuildError(f"--slot-headroom {headroom}: must be 0 or more percent")
    big = lambda key: max(n[key] for n in needs)  # noqa: E731
    from aot.deploy.generate import select_kernels
    ops = sorted(set(op for n in needs for op in n["ops"]) | set(extra_ops))
    select_kernels(ops, board)  # an operator without a kernel: refused here, naming it
    image_need = HEADER_BYTES + _pad(big("pte_bytes"), 16) + 4096  # + scratch slots, self-test
    region = getattr(board, "slot", None)
    top = board.flash.origin + board.flash.size
    if flash is None:
        flash = region.size if region is not None and address is None else _reserve(image_need, headroom, ERASE_BYTES)
    flash = _pad(int(flash), ERASE_BYTES)
    if address is None:
        address = region.origin if region is not None and region.size == flash else top - flash
    if address % ERASE_BYTES or address < board.flash.origin or address + flash > top:
        raise BuildError(f"slot 0x{address:08x}+{flash:#x}: not a {ERASE_BYTES}-byte aligned range inside "
                         f"{board.name}'s flash (0x{board.flash.origin:08x}..0x{top:08x})")
    contract = {
        "slot_version": SLOT_JSON_VERSION, "board": board.name, "address": address, "flash_bytes": flash,
        "arena_bytes": _pad(int(arena), ARENA_ALIGN) if arena is not None else _reserve(big("arena_bytes"), headroom, ARENA_ALIGN),
        "mutable_bytes": _pad(int(mutable), ARENA_ALIGN) if mutable is not None else _reserve(big("mutable_bytes"), headroom, ARENA_ALIGN),
        "state_bytes": _pad(int(state), 8) if state is not None else _reserve(big("state_bytes"), headroom, 8),
        "scratch_bytes": _pad(big("scratch_bytes"), ARENA_ALIGN),
        "ops": ops, "inputs": first["inputs"], "outputs": first["outputs"],
        "image_version": IMAGE_VERSION, "pte_format_version": format_version(),
        "headroom_percent": headroom,
        **({"recipe": dict(recipe)} if recipe is not None else {}),
        "sized_for": [{k: n[k] for k in ("model", "pte_bytes", "arena_bytes", "mutable_bytes", "state_bytes",
                                         "scratch_bytes")} for n in needs],
    }
    if contract["arena_bytes"] < big("arena_bytes") or contract["state_bytes"] < big("state_bytes") \
            or contract["mutable_bytes"] < big("mutable_bytes"):
        short = [k for k in ("arena_bytes", "state_bytes", "mutable_bytes") if contract[k] < big(k)]
        raise BuildError(f"slot reserve too small for the models it is sized for: "
                         + ", ".join(f"{k} {contract[k]:,} < {big(k):,}" for k in short))
    return contract


def _io_text(io: list) -> str:
    return ", ".join(f"{t['dtype_name']}[{'x'.join(map(str, t['sizes']))}]" for t in io) or "none"


def read_contract(build_dir) -> dict:
    """slot.json of a slot firmware's build folder; SlotError (one line) otherwise."""
    p = Path(build_dir) / "slot.json"
    if not Path(build_dir).is_dir():
        raise SlotError(f"{build_dir}: no such folder (give the slot firmware's build folder: "
                        "`aot build MODEL --board B --slot -o DIR`)")
    if not p.exists():
        raise SlotError(f"{build_dir} is not a slot firmware's folder (no slot.json: build it with "
                        "`aot build MODEL --board B --slot`, or generate its sources with `aot generate ... --slot`)")
    try:
        c = json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise SlotError(f"{p}: not valid JSON ({e})") from None
    if c.get("slot_version") != SLOT_JSON_VERSION:
        raise SlotError(f"{p}: slot.json version {c.get('slot_version')} (this aot reads {SLOT_JSON_VERSION})")
    return c


def firmware_board(build_dir):
    """The board of a slot firmware's folder: build.json's board file (aot build), else
    slot.json's board name (aot generate's folder has slot.json only)."""
    from aot.deploy.boards import load_board
    built = Path(build_dir) / "build.json"
    info = json.loads(built.read_text()) if built.exists() else {"board": read_contract(build_dir)["board"]}
    bf = info.get("board_file")
    return load_board(bf if bf and Path(bf).exists() else info["board"])


def check_needs(contract: dict, needs: dict, image_bytes: int) -> list:
    """What the firmware of `contract` will refuse in a model of `needs` (an image of
    `image_bytes`), as short phrases; [] when it fits. The firmware's order."""
    problems = []
    if image_bytes > contract["flash_bytes"]:
        problems.append(f"image {image_bytes:,} B > slot {contract['flash_bytes']:,} B")
    if needs["methods"] != 1:
        problems.append(f"{needs['methods']} methods (a slot runs one)")
    missing = [op for op in needs["ops"] if op not in contract["ops"]]
    if missing:
        problems.append(f"operator {missing[0]}{operator_purpose(missing[0])} missing"
                        + (f" (+{len(missing) - 1} more)" if len(missing) > 1 else ""))
    for key, what in (("arena_bytes", "arena"), ("mutable_bytes", "mutable"), ("state_bytes", "state")):
        if needs[key] > contract[key]:
            problems.append(f"{what} need {needs[key]:,} B > reserved {contract[key]:,} B")
    for side in ("inputs", "outputs"):
        if needs[side] != contract[side]:
            problems.append(f"{side} {_io_text(needs[side])} != application's {_io_text(contract[side])}")
    return problems


# --------------------------------------------------------------------------- files


def image_for(compiled, selftest=None) -> bytes:
    """The slot image of `compiled` (with `selftest`'s cases, when given)."""
    from aot.compiler.scratch import scratch_slots
    from aot.deploy.generate import input_sets_bytes
    if compiled.ptd is not None:
        raise SlotError("a slot holds one program: build it without --external-weights")
    inputs, expected, cases = b"", b"", 0
    if selftest is not None:
        from aot.deploy.selftest import selftest_blob
        inputs, expected, cases = input_sets_bytes(compiled.spec, selftest.inputs), selftest_blob(selftest), selftest.count
    return pack_image(compiled.pte, None, scratch_slots(compiled.spec), inputs, cases, expected)


#: `aot pack --uf2-family` names on an RP2350 (aot.deploy.uf2); the default is "absolute"
RP2350_SLOT_FAMILIES = ("absolute", "data", "rp2350-arm-s")


def slot_uf2_families(board) -> dict:
    """{name: UF2 family ID} a model image for `board`'s slot may carry ({}: the board takes
    no UF2): the RP2040's own family; on an RP2350 RP2350_SLOT_FAMILIES."""
    from aot.deploy.uf2 import (RP2350_ARM_S_FAMILY_ID, RP2XXX_ABSOLUTE_FAMILY_ID,
                                RP2XXX_DATA_FAMILY_ID)
    if board.uf2_family_id is None:
        return {}
    if board.uf2_family_id != RP2350_ARM_S_FAMILY_ID:
        return {board.name: board.uf2_family_id}
    return dict(zip(RP2350_SLOT_FAMILIES, (RP2XXX_ABSOLUTE_FAMILY_ID, RP2XXX_DATA_FAMILY_ID, RP2350_ARM_S_FAMILY_ID)))


def check_image_file(contract: dict, board, path, firmware) -> dict:
    """What `aot run/test FIRMWARE --slot IMAGE` checks on the host before the simulator
    starts: IMAGE is a slot image (magic, header CRC-32, format versions) in the form
    the board's slot takes (a UF2 of a family the slot takes, written at the slot's
    address, for a UF2 board; else a .bin) and fits the slot of `contract`. Returns
    read_image's fields; SlotError (one line) otherwise. The firmware checks all of it
    again, and the rest (CRC-32s, operators, plan, inputs/outputs) itself."""
    from aot.deploy.uf2 import FAMILY_CHIPS, parse_uf2
    from aot.errors import Uf2Error
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SlotError(f"cannot read the slot image {path}: {e.strerror or e}") from None
    fw = f"{firmware} (a slot firmware for {board.name}"
    families = slot_uf2_families(board)
    repack = f"pack the model for it: aot pack MODEL --firmware {firmware}"
    if data[:4] == b"UF2\n":
        if not families:
            raise SlotError(f"{path} is a UF2; {fw}) takes the slot's .bin: {repack} -o NAME.bin")
        family = int.from_bytes(data[28:32], "little")
        if family not in families.values():
            from aot.deploy.uf2 import family_name
            raise SlotError(f"{path} is a UF2 of family {family_name(family)}; {fw}, "
                            f"{FAMILY_CHIPS.get(board.uf2_family_id, '?')}) takes "
                            + " or ".join(f"0x{f:08x} ({n})" for n, f in families.items()) + f": {repack}")
        try:
            _, base, data = parse_uf2(data, board.flash)
        except Uf2Error as e:
            raise SlotError(f"{path} is not a valid UF2 for {board.name} ({e})") from None
        if base != contract["address"]:
            raise SlotError(f"{path} is written at 0x{base:08x}; the slot of {fw}) is at "
                            f"0x{contract['address']:08x}: {repack}")
    elif families:
        raise SlotError(f"{path} is not a UF2; {fw}) takes the image's UF2: {repack} -o NAME.uf2")
    try:
        info = read_header(data)
    except SlotError as e:
        raise SlotError(f"{path} is {str(e)[0].lower() + str(e)[1:]}; {repack}") from None
    if info["pte_version"] > contract["pte_format_version"]:  # 0: unstamped, as the firmware takes it
        raise SlotError(f"{path} holds a .pte of format version {info['pte_version']}; {fw}) reads "
                        f"{contract['pte_format_version']}: {repack}")
    if info["image_bytes"] > contract["flash_bytes"]:
        raise SlotError(f"{path}: {info['image_bytes']:,} B do not fit the {contract['flash_bytes']:,} B slot of "
                        f"{fw})")
    return info


def slot_uf2_family(board, name: Optional[str] = None) -> int:
    """The UF2 family of a model image for `board`: the RP2040 bootrom takes only its own
    family (written at the blocks' addresses); on an RP2350 "absolute" by default (written
    at the blocks' addresses into unpartitioned flash: the firmware stays bootable and
    untouched), "data" for a slot that is a partition accepting data (docs/slots.md)."""
    from aot.deploy.uf2 import (RP2350_ARM_S_FAMILY_ID, RP2XXX_ABSOLUTE_FAMILY_ID,
                                RP2XXX_DATA_FAMILY_ID)
    if board.uf2_family_id != RP2350_ARM_S_FAMILY_ID:
        if name is not None:
            raise SlotError(f"--uf2-family {name}: {board.name}'s bootrom takes only its own family")
        return board.uf2_family_id
    ids = {"absolute": RP2XXX_ABSOLUTE_FAMILY_ID, "data": RP2XXX_DATA_FAMILY_ID,
           "rp2350-arm-s": RP2350_ARM_S_FAMILY_ID}
    if name is not None and name not in ids:
        raise SlotError(f"--uf2-family {name}: one of {', '.join(RP2350_SLOT_FAMILIES)}")
    return ids[name or "absolute"]


def write_image(contract: dict, board, image: bytes, out: Path, family: Optional[str] = None) -> Path:
    """Write `image` for the slot of `contract`: a UF2 covering only the slot for a board
    with a UF2 family (out ends in .uf2; `family`: slot_uf2_family's name), else the raw
    bytes (.bin) to be written at contract["address"]."""
    out = Path(out)
    if out.suffix == ".uf2":
        if board.uf2_family_id is None:
            raise SlotError(f"{board.name} takes no UF2: write a .bin (its address: 0x{contract['address']:08x})")
        from aot.deploy.uf2 import bin_to_uf2
        out.write_bytes(bin_to_uf2(image, contract["address"], slot_uf2_family(board, family)))
    else:
        out.write_bytes(image)
    return out


def config_header(contract: dict) -> str:
    """mote_slot_config.h: the slot's address and reserved sizes, and the application's
    inputs/outputs as mote_slot_io_t initialisers, for ports/cortex-m/app/mote_slot_app.c."""
    def io(items):
        rows = [f"{{{t['dtype']}u, {len(t['sizes'])}u, {{{', '.join(str(s) for s in t['sizes']) or '0'}}}}}"
                for t in items]
        return "{ " + ", ".join(rows) + " }" if rows else "{ {0u, 0u, {0}} }"
    in_bytes = sum(_numel(t) * _dsize(t) for t in contract["inputs"])
    lines = [
        "/* Generated by aot build --slot (aot/deploy/slot.py) from slot.json; do not edit. */",
        "#ifndef MOTE_SLOT_CONFIG_H", "#define MOTE_SLOT_CONFIG_H", "",
        f"#define MOTE_SLOT_ADDRESS 0x{contract['address']:08x}u /* flash address of the slot */",
        f"#define MOTE_SLOT_FLASH_BYTES {contract['flash_bytes']}u /* reserved flash, bytes */",
        f"#define MOTE_SLOT_ARENA_BYTES {contract['arena_bytes']}u /* activations (memory id 1), bytes */",
        f"#define MOTE_SLOT_MUTABLE_BYTES {contract['mutable_bytes']}u /* mutable buffers (memory id 2) per bank */",
        f"#define MOTE_SLOT_STATE_BYTES {contract['state_bytes']}u /* runtime state per bank, bytes */",
        f"#define MOTE_SLOT_SCRATCH_BYTES {contract['scratch_bytes']}u /* kernel scratch outside the plan */",
        f"#define MOTE_SLOT_NUM_INPUTS {len(contract['inputs'])}u",
        f"#define MOTE_SLOT_NUM_OUTPUTS {len(contract['outputs'])}u",
        f"#define MOTE_SLOT_INPUTS_BYTES {in_bytes}u /* one input set, all inputs back to back */",
        f"#define MOTE_SLOT_INPUTS_IO {io(contract['inputs'])}",
        f"#define MOTE_SLOT_OUTPUTS_IO {io(contract['outputs'])}",
        "", "#endif", ""]
    return "\n".join(lines)


def _numel(t: dict) -> int:
    n = 1
    for s in t["sizes"]:
        n *= s
    return n


def _dsize(t: dict) -> int:
    from aot import ir
    return ir.SCALAR_TYPE_SIZES[t["dtype"]]


# --------------------------------------------------------------------------- firmware


@dataclass
class SlotBuild:
    out_dir: Path
    contract: dict
    size: dict


def build_slot_firmware(compiled_models: list, board, out_dir, contract_args: dict, opt: str = "speed",
                        kernel_opt: str = "auto", input_sets=None, updates: int = 0) -> SlotBuild:
    """`aot build MODEL --board B --slot`: firmware with the runtime, the kernels of the
    slot's operator set, static memory of the reserved sizes and the slot app
    (ports/cortex-m/app/mote_slot_app.c); slot.json, size.json, build.json in `out_dir`.
    input_sets: what the app runs when an image carries no self-test (default: the
    first model's example inputs). updates: bytes of each of the app's two RAM staging
    buffers for images sent over the UART after boot (0: none; MOTE_APP_SLOT_UPDATES)."""
    import hashlib
    from aot.deploy import binary_info
    from aot.deploy.boards import load_board
    from aot.deploy.build import _relink, incbin_source, kernel_opt_groups
    from aot.deploy.firmware import build_firmware
    from aot.deploy.generate import (EMBED_DIR, check_output_folder, input_sets_bytes, resolve_opt,
                                     runtime_sources, select_kernels, staged_folder, support_sources,
                                     write_registry)
    from aot.deploy.stack import stack_budget
    from aot.paths import KERNELS_DIR, PORTS_DIR, RUNTIME_DIR
    from aot.errors import FirmwareError

    board = load_board(board)
    out = Path(out_dir).resolve()
    check_output_folder(out, "build.json", "build")
    first = compiled_models[0]
    with staged_folder(out, "building") as stage:
        gen = stage / "gen"
        gen.mkdir(parents=True, exist_ok=True)
        needs = [model_needs(c, board, gen) for c in compiled_models]
        contract = make_contract(needs, board, **contract_args)
        (gen / "mote_slot_config.h").write_text(config_header(contract))
        write_registry(contract["ops"], gen / "registry.c")
        kernels = select_kernels(contract["ops"], board)
        if input_sets is None:
            input_sets = [[t.numpy() for t in first.example_inputs]]
        blob = input_sets_bytes(first.spec, input_sets)
        (gen / "inputs.bin").write_bytes(blob)
        (gen / "model_inputs.S").write_text(incbin_source("mote_inputs", gen / "inputs.bin", ".rodata.mote_inputs",
                                                          count=len(input_sets)))
        sources = ([PORTS_DIR / "cortex-m" / "app" / "mote_slot_app.c", gen / "registry.c", gen / "model_inputs.S"]
                   + runtime_sources() + [EMBED_DIR / "mote_slot.c", EMBED_DIR / "mote_selftest.c"]
                   + support_sources() + kernels)
        defines = {"MOTE_APP_BOARD_NAME": f'"{board.name}"', "NDEBUG": None,
                   "MOTE_RUNTIME_MUTABLE": int(contract["mutable_bytes"] > 0), "MOTE_RUNTIME_DELEGATES": 0,
                   "MOTE_RUNTIME_EXTERNAL": 0}
        opt_flag, kernel_flag, opt_defines = resolve_opt(opt, kernel_opt)
        defines.update(opt_defines)
        if updates:
            defines["MOTE_APP_SLOT_UPDATES"] = str(_pad(int(updates), 16))
        includes = [gen, RUNTIME_DIR / "include", EMBED_DIR, KERNELS_DIR]
        layout = {"code_in_sram": board.code_in_sram, "slot": [contract["address"], contract["flash_bytes"]]}
        program = binary_info.firmware_program("mote-slot", board.name) if binary_info.board_chip(board) else None
        stack = 16384
        art = build_firmware(board, sources, include_dirs=includes, defines=defines, out_dir=stage,
                             stack_bytes=stack, opt=opt_flag, layout=layout, program=program,
                             **kernel_opt_groups(support_sources() + kernels, kernel_flag))
        needed = stack_budget(art).reserve_bytes
        if needed != stack:
            try:
                _relink(art, board, needed, layout)
            except FirmwareError as e:
                raise BuildError(str(e).splitlines()[0]) from None
        rep = art.size_report()
        sec = rep["sections"]
        slot_ram = 2 * (contract["state_bytes"] + contract["mutable_bytes"]) + contract["arena_bytes"] \
            + contract["scratch_bytes"]
        size = {"flash_bytes": sec["text"] + sec["rodata"] + sec["data"],
                "ram_bytes": sec["data"] + sec["bss"] + needed, "stack_bytes": needed,
                "slot": {"address": contract["address"], "flash_bytes": contract["flash_bytes"],
                         "ram_bytes": slot_ram, "arena_bytes": contract["arena_bytes"],
                         "state_bytes": 2 * contract["state_bytes"], "mutable_bytes": 2 * contract["mutable_bytes"],
                         "scratch_bytes": contract["scratch_bytes"]},
                "kernels": len(kernels), "ops": len(contract["ops"]),
                "uart_updates_bytes": 2 * _pad(int(updates), 16)}
        (stage / "slot.json").write_text(json.dumps(contract, indent=2) + "\n")
        (stage / "size.json").write_text(json.dumps(size, indent=2) + "\n")
        info = {"board": board.name, "board_file": str(board.path), "model": None, "slot": "slot.json",
                "sized_for": [c.name for c in compiled_models], "input_sets": len(input_sets),
                "inputs": [{"sizes": t["sizes"], "dtype": t["dtype"]} for t in contract["inputs"]],
                "outputs": [{"sizes": t["sizes"], "dtype": t["dtype"]} for t in contract["outputs"]],
                "firmware_sha256": hashlib.sha256(art.elf.read_bytes()).hexdigest()}
        (stage / "build.json").write_text(json.dumps(info, indent=2) + "\n")
    return SlotBuild(out_dir=out, contract=contract, size=size)


# --------------------------------------------------------------------------- aot generate --slot


def generate_slot_sources(compiled_models: list, board, out_dir, contract_args: dict, opt: str = "speed") -> dict:
    """`aot generate MODEL --board B --slot`: the sources of a slot firmware for the user's
    own build (CMake, PlatformIO, Zephyr): registry.c (the slot's operators),
    mote_slot_config.h (the reserve and the application's inputs/outputs), slot.json, the
    port files with a linker script that reserves the slot, and mote_sources.json (today's
    keys; "sources" holds the runtime, runtime/embed/mote_slot.c and mote_selftest.c, the
    kernels; "slot" the contract). The application is the user's: it gives mote_slot_init
    buffers of the MOTE_SLOT_* sizes and calls mote_slot_load (ports/cortex-m/app/
    mote_slot_app.c is one). Returns the mote_sources.json dict."""
    from aot.deploy import binary_info
    from aot.deploy.boards import load_board
    from aot.deploy.firmware import linker_script, write_binary_info_header
    from aot.deploy.generate import (EMBED_DIR, GENERATE_STACK_BYTES, OPT_PROFILES, build_keys,
                                     check_output_folder, resolve_opt, select_kernels, staged_folder,
                                     write_registry)
    board = load_board(board)
    if opt not in OPT_PROFILES:
        raise BuildError(f"--opt {opt}: choose one of {', '.join(OPT_PROFILES)}")
    out = Path(out_dir).resolve()
    check_output_folder(out, "mote_sources.json", "generate")
    with staged_folder(out, "generating") as stage:
        needs = [model_needs(c, board, stage) for c in compiled_models]
        (stage / "abi_probe.o").unlink(missing_ok=True)
        contract = make_contract(needs, board, **contract_args)
        (stage / "mote_slot_config.h").write_text(config_header(contract))
        (stage / "slot.json").write_text(json.dumps(contract, indent=2) + "\n")
        write_registry(contract["ops"], stage / "registry.c")
        kernels = select_kernels(contract["ops"], board)
        write_binary_info_header(board, stage, binary_info.firmware_program("mote-slot", board.name))
        _, _, opt_defines = resolve_opt(opt)
        defines = {"NDEBUG": None, "MOTE_RUNTIME_MUTABLE": int(contract["mutable_bytes"] > 0),
                   "MOTE_RUNTIME_DELEGATES": 0, "MOTE_RUNTIME_EXTERNAL": 0, **opt_defines}
        manifest = {
            "board": board.name, "model": None, "slot": contract,
            **build_keys(board, stage, [stage / "registry.c"],
                         [EMBED_DIR / "mote_slot.c", EMBED_DIR / "mote_selftest.c"], kernels, defines, opt,
                         generated_headers=[stage / "mote_slot_config.h"]),
            "inputs": contract["inputs"], "outputs": contract["outputs"],
        }
        # build_keys wrote the port files; this firmware's linker script reserves the slot
        (stage / "port" / "firmware.ld").write_text(linker_script(board, GENERATE_STACK_BYTES,
                                                                  slot=(contract["address"], contract["flash_bytes"])))
        text = json.dumps(manifest, indent=2).replace(str(stage), str(out))
        (stage / "mote_sources.json").write_text(text + "\n")
    return json.loads((out / "mote_sources.json").read_text())


# --------------------------------------------------------------------------- run


def qemu_loader_args(contract: dict, image: Path) -> list:
    """QEMU arguments that place `image` (a .bin) at the slot's address before reset."""
    return ["-device", f"loader,file={Path(image).resolve()},addr=0x{contract['address']:08x},force-raw=on"]


def run_with_image(build_dir, image=None, timeout: float = 60.0, stdin_bytes: bytes = b"") -> tuple:
    """Run a slot firmware's build folder on its board's simulator with `image` in its slot
    (None: an empty slot): QEMU loads a .bin at the slot's address (-device loader); the
    pico's rp2040js writes firmware.uf2 and then the image's UF2, as two drag-and-drops
    would. stdin_bytes: fed to UART0 (a --slot-updates firmware's "S <hex>" lines).
    Returns (exit status, UART text)."""
    import subprocess
    from aot.deploy.boards import load_board
    from aot.deploy.qemu import _text, qemu_command
    from aot.errors import QemuTimeout
    build_dir = Path(build_dir)
    contract = read_contract(build_dir)
    board = firmware_board(build_dir)
    if board.simulator is not None and board.simulator.kind == "rp2040js":
        from aot.deploy import rp2040js
        if image is not None and Path(image).read_bytes()[:4] != b"UF2\n":
            raise SlotError(f"{image}: the pico's slot takes the image's UF2 (aot pack -o NAME.uf2)")
        r = rp2040js.run_uf2(build_dir / "firmware.uf2", board, timeout_s=timeout, slot_uf2=image,
                             stdin_bytes=stdin_bytes or None)
        return (r.exit_status if r.exit_status is not None else 1), r.uart
    cmd = qemu_command(build_dir / "firmware.elf", board)
    if image is not None:
        data = Path(image).read_bytes()
        if data[:4] == b"UF2\n":
            raise SlotError(f"{image}: a UF2; QEMU takes the slot's .bin (aot pack -o NAME.bin)")
        if len(data) > contract["flash_bytes"]:
            raise SlotError(f"{image}: {len(data):,} B do not fit the {contract['flash_bytes']:,} B slot")
        cmd += qemu_loader_args(contract, Path(image))
    try:
        proc = subprocess.run(cmd, input=stdin_bytes, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = _text(e.stdout)
        raise QemuTimeout(f"slot firmware did not exit within {timeout} s; UART so far:\n{out}", out) from None
    return proc.returncode, _text(proc.stdout) + ("" if proc.returncode == 0 or proc.stdout else _text(proc.stderr))


# --------------------------------------------------------------------------- flash


def update_lines(images) -> bytes:
    """The UART lines that send slot images to a --slot-updates firmware, then "Q"."""
    return b"".join(b"S " + Path(p).read_bytes().hex().encode() + b"\n" if isinstance(p, (str, Path))
                    else b"S " + bytes(p).hex().encode() + b"\n" for p in images) + b"Q\n"
