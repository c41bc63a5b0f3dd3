"""Board descriptions: one JSON file per board under ``boards/``.

A board is data only: core and compiler flags, features, clock, the flash and
RAM regions the generated linker script uses, the UART the port drives, the
port (``qemu``, ``pico2``, ``generic``) and the simulator (a QEMU machine or
``None``). Adding a board whose UART kind and port already exist needs no code.

Fields (addresses and sizes may be JSON integers or "0x..." strings):

    name, description, core ("cortex-m0" | "cortex-m0plus" | "cortex-m3" |
                             "cortex-m4" | "cortex-m7" | "cortex-m33" | "cortex-m55")
    mcpu, mfpu, mfloat_abi           -> -mcpu= / -mfpu= / -mfloat-abi=
    mfpu may be null (no -mfpu=: cores without an FPU use mfloat_abi "soft")
    features {fpu, dsp, mve}         booleans; checked against the core (no FPU or
                                     DSP on Armv6-M / Cortex-M3, MVE only on M55)
    clock_hz                         core clock after the port's clock set-up, Hz
    flash {origin, size}, ram {origin, size}   bytes
    uart {kind: cmsdk|pl011|nrf51|stm32-usart|none, base, baud, clock_hz}
    port: qemu | pico2 | rp2040 | stm32f446 | generic
    cycle_counter: dwt | systick | systick-icount   (systick: core clock cycles from
                                     SysTick + wrap count, for cores without DWT CYCCNT)
    semihosting: bool                mote_port_exit() uses SYS_EXIT_EXTENDED
    simulator: null | {kind: "qemu", machine, systick_hz} | {kind: "rp2040js", machine: "rp2040"}
                                     (rp2040js: the npm RP2040 model, sim/rp2040, rp2040 port only)
    uf2_family_id: null | "0x..."    UF2 family written by aot.deploy.uf2
    clock_tree (optional) {name: integer}: the port's clock set-up numbers (PLL
                                     dividers, wait states), each a MOTE_BOARD_CLOCK_<NAME> macro
    uart.tx_pin / uart.rx_pin (optional): pins the port routes to the UART
    boot2 (optional) {size}: bytes at the start of flash before the vector table that
                                     the port's boot stage fills (RP2040: 256)
    irq_count                        external interrupt vectors in the table
    xip (optional) {cache_bytes, code_in_sram}: code and constants run from
                                     flash through an XIP cache of cache_bytes;
                                     code_in_sram: `aot build` copies the kernels
                                     to SRAM at boot by default (--code-in-sram)
    power (optional) {active_mw, clock_hz, source}: typical active power at
                                     clock_hz, for `aot run --estimate-cycles`'s
                                     energy per inference, with its source
    slot (optional) {origin, size}: the default model slot of `aot build --slot`
                                     (aot.deploy.slot): 4 KiB-aligned flash the firmware
                                     leaves for a model written on its own
    model_region (optional) {origin, size}: read-only memory for sections named
                                     .mote_model* (large model constants) when flash
                                     is small; without it they stay in flash
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from aot.errors import MoteError, BoardError
from aot.paths import BOARDS_DIR

#: Repository root and the boards/ folder.

CORES = ("cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33",
         "cortex-m55")
#: Armv6-M cores: Thumb-1 only, no DWT cycle counter, no FPU/DSP; the M0 has no VTOR.
ARMV6M_CORES = ("cortex-m0", "cortex-m0plus")
#: Cores that may carry an FPU / the DSP extension (Armv7E-M, Armv8-M Mainline, 8.1-M).
FPU_CORES = ("cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")
DSP_CORES = FPU_CORES
UART_KINDS = ("cmsdk", "pl011", "nrf51", "stm32-usart", "none")
PORTS = ("qemu", "pico2", "rp2040", "stm32f446", "generic")
CYCLE_COUNTERS = ("dwt", "systick", "systick-icount")
#: simulator.kind values: QEMU machines, and rp2040js (npm) for the RP2040 (sim/rp2040)
SIMULATOR_KINDS = ("qemu", "rp2040js")
FLOAT_ABIS = ("soft", "softfp", "hard")


@dataclass(frozen=True)
class Region:
    origin: int  # first address
    size: int  # bytes

    @property
    def end(self) -> int:
        return self.origin + self.size

    def contains(self, addr: int, length: int = 1) -> bool:
        return self.origin <= addr and addr + length <= self.end


@dataclass(frozen=True)
class Uart:
    kind: str
    base: Optional[int]
    baud: int
    clock_hz: Optional[int]
    pins: dict = field(default_factory=dict, compare=False)  # tx_pin / rx_pin when the port routes pins


@dataclass(frozen=True)
class Simulator:
    kind: str  # "qemu" or "rp2040js" (sim/rp2040: the RP2040 model from npm, aot.deploy.rp2040js)
    machine: str  # QEMU: -machine value; rp2040js: "rp2040"
    systick_hz: Optional[int] = None  # QEMU: SysTick (CPU clock source) frequency it models, Hz; rp2040js: None (SysTick counts core cycles)


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    core: str
    mcpu: str
    mfpu: Optional[str]
    mfloat_abi: str
    fpu: bool
    dsp: bool
    mve: bool
    clock_hz: int
    flash: Region
    ram: Region
    uart: Uart
    port: str
    cycle_counter: str
    semihosting: bool
    simulator: Optional[Simulator]
    uf2_family_id: Optional[int]
    irq_count: int
    path: Path = field(compare=False)

    @property
    def count_unit(self) -> str:
        """What the firmware's cycle counter counts here: "instructions" under QEMU
        (-icount, cycle_counter systick-icount), else "cycles" of the core clock (DWT or
        SysTick on silicon; rp2040js's cycle accounting for the pico)."""
        return "instructions" if self.cycle_counter == "systick-icount" else "cycles"

    @property
    def dsp_kernels(self) -> bool:
        """True if the board's int8 kernels are cmsis/'s DSP versions (DSP, no MVE:
        mote_s8_arm.h picks MVE first)."""
        return self.dsp and not self.mve
    model_region: Optional[Region] = None
    boot2_bytes: int = 0  # flash bytes before the vector table (RP2040 boot2 stage)
    clock_tree: dict = field(default_factory=dict, compare=False)  # port clock set-up numbers
    xip_cache_bytes: int = 0  # code and constants run through an XIP cache of this size (0: no XIP)
    code_in_sram: bool = False  # default of `aot build --code-in-sram`: kernels copied to SRAM at boot
    power: Optional[dict] = field(default=None, compare=False)  # {active_mw, clock_hz, source}
    slot: Optional[Region] = None  # default model slot of `aot build --slot` (inside flash)

    @property
    def arch_flags(self) -> list[str]:
        """Compiler/linker flags selecting the core, FPU and float ABI."""
        flags = ["-mthumb", f"-mcpu={self.mcpu}", f"-mfloat-abi={self.mfloat_abi}"]
        if self.mfpu and self.mfpu != "none":
            flags.append(f"-mfpu={self.mfpu}")
        return flags

    @property
    def armv6m(self) -> bool:
        """Armv6-M (Cortex-M0/M0+): Thumb-1, no DWT CYCCNT, no FPU or DSP."""
        return self.core in ARMV6M_CORES

    @property
    def has_vtor(self) -> bool:
        """The Cortex-M0 has no Vector Table Offset Register (vectors stay at 0)."""
        return self.core != "cortex-m0"

    @property
    def armv8m(self) -> bool:
        """Armv8-M Mainline (or 8.1-M): has MSPLIM and the Security Extension."""
        return self.core in ("cortex-m33", "cortex-m55")


def _int(value, what: str, path: Path) -> int:
    if isinstance(value, bool):
        raise BoardError(f"{path.name}: {what} must be an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            pass
    raise BoardError(f"{path.name}: {what} must be an integer or '0x...' string, got {value!r}")


def _need(d: dict, key: str, path: Path, ctx: str = ""):
    if key not in d:
        raise BoardError(f"{path.name}: missing field {ctx}{key!r}")
    return d[key]


def _choice(value, choices, what: str, path: Path) -> str:
    if value not in choices:
        raise BoardError(f"{path.name}: {what} is {value!r}; expected one of {', '.join(choices)}")
    return value


def known_boards() -> list[str]:
    """Names of every board file in boards/, sorted."""
    return sorted(p.stem for p in BOARDS_DIR.glob("*.json"))


def parse_board(path: Path) -> Board:
    """Load and validate one board file."""
    path = Path(path)
    try:
        d = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise BoardError(f"{path.name}: not valid JSON: {e}") from e
    if not isinstance(d, dict):
        raise BoardError(f"{path.name}: top level must be an object")

    name = _need(d, "name", path)
    if name != path.stem:
        raise BoardError(f"{path.name}: name {name!r} differs from the file name")
    core = _choice(_need(d, "core", path), CORES, "core", path)
    feats = _need(d, "features", path)
    for k in ("fpu", "dsp", "mve"):
        if not isinstance(_need(feats, k, path, "features."), bool):
            raise BoardError(f"{path.name}: features.{k} must be true or false")
    if feats["mve"] and core != "cortex-m55":
        raise BoardError(f"{path.name}: MVE needs an Armv8.1-M core (cortex-m55), not {core}")
    if feats["fpu"] and core not in FPU_CORES:
        raise BoardError(f"{path.name}: {core} has no FPU (features.fpu must be false)")
    if feats["dsp"] and core not in DSP_CORES:
        raise BoardError(f"{path.name}: {core} has no DSP extension (features.dsp must be false)")
    mfloat_abi = _choice(_need(d, "mfloat_abi", path), FLOAT_ABIS, "mfloat_abi", path)
    if feats["fpu"] is False and mfloat_abi != "soft":
        raise BoardError(f"{path.name}: mfloat_abi {mfloat_abi!r} needs features.fpu "
                         "(cores without an FPU use 'soft')")
    if feats["fpu"] is False and d.get("mfpu") not in (None, "none"):
        raise BoardError(f"{path.name}: mfpu {d.get('mfpu')!r} on a board without features.fpu")

    regions = {}
    for rname in ("flash", "ram", "model_region"):
        if rname == "model_region" and d.get(rname) is None:
            regions[rname] = None
            continue
        r = _need(d, rname, path)
        reg = Region(_int(_need(r, "origin", path, rname + "."), rname + ".origin", path),
                     _int(_need(r, "size", path, rname + "."), rname + ".size", path))
        if reg.size <= 0 or reg.origin % 4 or reg.size % 4 or reg.end > 1 << 32:
            raise BoardError(f"{path.name}: {rname} region {reg} is not a word-aligned 32-bit range")
        regions[rname] = reg
    named = [(n, r) for n, r in regions.items() if r is not None]
    for i, (na, ra) in enumerate(named):
        for nb, rb in named[i + 1:]:
            if ra.origin < rb.end and rb.origin < ra.end:
                raise BoardError(f"{path.name}: {na} and {nb} regions overlap")

    u = _need(d, "uart", path)
    ukind = _choice(_need(u, "kind", path, "uart."), UART_KINDS, "uart.kind", path)
    ubase = None if u.get("base") is None else _int(u["base"], "uart.base", path)
    if ukind != "none" and ubase is None:
        raise BoardError(f"{path.name}: uart.base is required for a {ukind} UART")
    uclk = None if u.get("clock_hz") is None else _int(u["clock_hz"], "uart.clock_hz", path)
    pins = {k: _int(u[k], "uart." + k, path) for k in ("tx_pin", "rx_pin") if u.get(k) is not None}
    uart = Uart(ukind, ubase, _int(_need(u, "baud", path, "uart."), "uart.baud", path), uclk, pins)
    tree = d.get("clock_tree") or {}
    if not isinstance(tree, dict):
        raise BoardError(f"{path.name}: clock_tree must be an object")
    clock_tree = {k: _int(v, "clock_tree." + k, path) for k, v in tree.items() if k != "note"}

    port = _choice(_need(d, "port", path), PORTS, "port", path)
    sim = d.get("simulator")
    simulator = None
    if sim is not None:
        kind = _need(sim, "kind", path, "simulator.")
        if kind not in SIMULATOR_KINDS:
            raise BoardError(f"{path.name}: simulator.kind must be one of {', '.join(SIMULATOR_KINDS)}")
        machine = str(_need(sim, "machine", path, "simulator."))
        if kind == "qemu":
            simulator = Simulator(kind, machine, _int(_need(sim, "systick_hz", path, "simulator."),
                                                      "simulator.systick_hz", path))
        else:
            if machine != "rp2040" or port != "rp2040":
                raise BoardError(f"{path.name}: simulator rp2040js runs the rp2040 port (machine 'rp2040')")
            simulator = Simulator(kind, machine)
    counter = _choice(_need(d, "cycle_counter", path), CYCLE_COUNTERS, "cycle_counter", path)
    if counter == "systick-icount" and (simulator is None or simulator.kind != "qemu"):
        raise BoardError(f"{path.name}: cycle_counter 'systick-icount' needs a QEMU simulator")
    if counter == "dwt" and core in ARMV6M_CORES:
        raise BoardError(f"{path.name}: {core} has no DWT cycle counter (use 'systick')")
    boot2 = _int(d.get("boot2", {}).get("size", 0) if d.get("boot2") else 0, "boot2.size", path)
    if boot2 < 0 or boot2 % 4:
        raise BoardError(f"{path.name}: boot2.size must be a non-negative multiple of 4")
    fam = d.get("uf2_family_id")
    return Board(
        name=name,
        description=str(d.get("description", "")),
        core=core,
        mcpu=str(_need(d, "mcpu", path)),
        mfpu=d.get("mfpu"),
        mfloat_abi=mfloat_abi,
        fpu=feats["fpu"], dsp=feats["dsp"], mve=feats["mve"],
        clock_hz=_int(_need(d, "clock_hz", path), "clock_hz", path),
        flash=regions["flash"], ram=regions["ram"],
        uart=uart, port=port, cycle_counter=counter,
        semihosting=bool(d.get("semihosting", False)),
        simulator=simulator,
        uf2_family_id=None if fam is None else _int(fam, "uf2_family_id", path),
        irq_count=_int(d.get("irq_count", 32), "irq_count", path),
        path=path,
        model_region=regions["model_region"],
        boot2_bytes=boot2,
        clock_tree=clock_tree,
        xip_cache_bytes=_int((d.get("xip") or {}).get("cache_bytes", 0), "xip.cache_bytes", path),
        code_in_sram=bool((d.get("xip") or {}).get("code_in_sram", False)),
        power=_power(d.get("power"), path),
        slot=_slot(d.get("slot"), regions["flash"], path),
    )


#: flash erase unit a slot region is aligned to (aot.deploy.slot.ERASE_BYTES)
SLOT_ALIGN = 4096


def _slot(d, flash: "Region", path: Path) -> Optional["Region"]:
    """The board file's "slot" entry {origin, size}: a SLOT_ALIGN-aligned range inside
    flash, after its first sector (the firmware's), or None."""
    if d is None:
        return None
    reg = Region(_int(_need(d, "origin", path, "slot."), "slot.origin", path),
                 _int(_need(d, "size", path, "slot."), "slot.size", path))
    if (reg.size <= 0 or reg.origin % SLOT_ALIGN or reg.size % SLOT_ALIGN or reg.origin <= flash.origin
            or reg.end > flash.end):
        raise BoardError(f"{path.name}: slot region {reg} is not a {SLOT_ALIGN}-byte aligned range inside flash")
    return reg


def _power(d, path: Path) -> Optional[dict]:
    """The board file's "power" entry: {active_mw (> 0), clock_hz, source (text)}, or None."""
    if d is None:
        return None
    out = {"active_mw": float(d.get("active_mw", 0)), "clock_hz": _int(_need(d, "clock_hz", path), "power.clock_hz", path),
           "source": str(_need(d, "source", path))}
    if not out["active_mw"] > 0:
        raise BoardError(f"{path.name}: power.active_mw must be > 0")
    return out


def load_board(name_or_path) -> Board:
    """Load a board by name ("pico2") or by the path of a board file."""
    if isinstance(name_or_path, Board):
        return name_or_path
    p = Path(str(name_or_path))
    if p.suffix == ".json" and p.exists():
        return parse_board(p)
    f = BOARDS_DIR / f"{name_or_path}.json"
    if not f.exists():
        raise BoardError(f"unknown board {str(name_or_path)!r}; known boards: "
                         f"{', '.join(known_boards())}")
    return parse_board(f)
