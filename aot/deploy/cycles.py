"""Cycle estimates from an instruction trace of a QEMU run: the Cortex-M33
(Pico 2 / RP2350) and the Cortex-M0+ (Pico / RP2040).

QEMU's `-icount shift=0` counts instructions exactly, and instructions are not
cycles: a load costs more than an add, a taken branch refills the pipeline.
This module runs the firmware once more with QEMU's translation and
execution log (`-d in_asm,exec,nochain`), rebuilds from it how often every
instruction of the inference ran (the region from entering
``mote_method_execute`` to the return into its caller) and prices each
instruction by class with the cost table of one core (CoreCosts: M33,
M0PLUS; `cost_model` picks it from the board's core). One pricing function
(insn_cost) reads either table.

Cortex-M33 (M33; traced on mps2-an505, the same Armv8-M Mainline core):

========================================  ======  ==========================================
class (mnemonics)                         cycles  note
========================================  ======  ==========================================
data processing, moves, compares, IT      1
multiply, MAC, DSP (mul, mla, smlad, ...)  1       the M33's single-cycle 32x32 multiplier and
                                                  DSP extension
long multiply (umull, smlal, ...)         1
divide (sdiv, udiv)                       7       2 to 12 (data dependent): the midpoint
load (ldr*, vldr) after a non-load        2       later loads of a run pipeline: 1 each
store (str*, vstr)                        1
ldm/pop, stm/push (and vldm/vpush)        1 + N   N registers
taken branch (b, bl, bx, cbz, tbb, ...)   1 + P   P = pipeline refill, 2 from SRAM; code in
                                                  XIP flash adds its wait states per refill
not-taken conditional branch              1
pop/ldm/ldr into pc                       1 + N + P
FP add/sub/mul/convert/move (v*)          1
FP multiply-accumulate (vmla, vfma, ...)  3
FP divide, square root                    14
========================================  ======  ==========================================

Sources: the instruction timings of the Armv7-M/Armv8-M Mainline
three-stage pipeline as Arm documents them for the Cortex-M3/M4 (Cortex-M3
and Cortex-M4 Technical Reference Manuals, "Instruction set summary" with
cycle counts: loads 2 unless pipelined, stores 1, LDM/STM 1+N, branches
1+P with P 1-3, divides 2-12) and the Cortex-M33 TRM's statements that its
32x32 multiplies, MACs and DSP instructions are single-cycle and that the
FPv5 single-precision unit adds/multiplies in 1 cycle, fused MACs in 3,
divides and square roots in 14. It is an estimate: data-side wait states
(weights read from XIP flash through the RP2350's cache), bus contention
and register-dependency stalls are not modelled (M33.memory, which
`aot run --estimate-cycles` prints with the figure).

Cortex-M0+ (M0PLUS; the RP2040's core). QEMU has no Cortex-M0+ machine and
the pico board runs on rp2040js, not QEMU; the trace comes from QEMU's
`microbit` (nRF51, Cortex-M0), which executes the same Armv6-M instruction
set: the same model built for `--board microbit` is traced there and its
instructions priced with the M0+'s two-stage pipeline. It is an RP2040/M0+
estimate from an M0 trace (the M0's own timings differ: 3-cycle branches,
4+N pop-and-return). Timings from Arm's Cortex-M0+ Technical Reference Manual
(r0p1, ARM DDI 0484C, 3.3 "Instruction set summary", Table 3.1, zero wait
states):

========================================  ======  ==========================================
class (mnemonics)                         cycles  note
========================================  ======  ==========================================
data processing, moves, compares,         1       adds, movs, lsls, sxtb, rev, cpsid, nop, ...
extends, reverses, hints
multiply (muls)                           1       the TRM's fast-multiplier option (1 or 32);
                                                  the RP2040 has the single-cycle multiplier
                                                  (RP2040 datasheet, 2.4 "Cortex-M0+": the
                                                  processor's configuration)
load (ldr, ldrb, ldrh, ldrsb, ldrsh)      2       no pipelining of consecutive loads; 1 only
                                                  on the single-cycle I/O port (the RP2040's
                                                  SIO), which an inference does not touch
store (str, strb, strh)                   2
ldm/pop, stm/push                         1 + N   N registers, lr of a push included
pop with pc (pop and return)              3 + N   N registers besides pc
taken branch (b, b<cond> taken)           2
not-taken conditional branch              1
bl                                        3
bx, blx, mov/add into pc                  2
mrs, msr, isb, dsb, dmb                   3
wfi, wfe                                  2       plus the time asleep
========================================  ======  ==========================================

What the RP2040's memory system adds (M0PLUS.memory): code and the weights run
from the 2 MiB QSPI flash through the XIP cache, whose hits take 1 cycle (RP2040
datasheet, 2.6.3.1 "XIP Cache": 16 kB, two-way set-associative, 1 cycle hit),
i.e. no wait state; SRAM is zero-wait-state and uncontended with one core and
no DMA. The estimate assumes every XIP access hits: a miss is a serial flash
read (tens of cycles), which a kernel whose code and weights exceed 16 KiB meets.

Per program instruction: a firmware built with the event tracer (`aot build
--trace profile`) reads the ticks (MARKER, mote_port_ticks) before and after
every instruction of its traced inference; `estimate` cuts each inference at
those calls (Inference.spans, the calls left out) and `instruction_spans`
picks each program instruction's span, the stretch `aot profile` counts, which
`aot profile --estimate-cycles` prices per row (aot.devtools.profile.
add_cycle_estimate; `annotate` expands a span per instruction address for
`aot profile --annotate`). Such a firmware runs every input set untraced, then
traced: `Estimate.untraced()` keeps the untraced inferences, the figure of
`aot run --estimate-cycles`.

Energy per inference (``energy``): the estimated cycles at the board's clock
times its typical active power from the board file ("power": active_mw at
clock_hz, with its source). For the Pico 2 no RP2350 datasheet figure was
found; boards/pico2.json says so and uses a measured board figure (about
80 mW at 150 MHz, idle: J. Geerling, "Raspberry Pi Pico 2 - RP2350 adds more
PIO, RISC-V cores", https://jeffgeerling.com/blog/2024/raspberry-pi-pico-2-rp2350-adds-more-pio-risc-v-cores),
a lower bound for a core busy with kernels.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Union

from aot import progress


@dataclass(frozen=True)
class CoreCosts:
    """The cycle table of one core (see the module docstring), in cycles per
    execution. refill: the pipeline refill after a taken branch or a write to
    pc (a taken branch, bx, blx, mov/add into pc cost 1 + refill; an ldm/pop
    loading pc 1 + N + refill, N counting pc). None: the core has no such
    instruction (a trace holding one is not of this core)."""
    name: str                   #: the "model" key of the JSON figures ("cortex-m33")
    label: str                  #: the core as the output names it ("Cortex-M33")
    refill: int
    load: int                   #: ldr*, vldr, lda* (the first of a run)
    load_pipelined: int         #: a load right after a load
    store: int
    bl: int
    multiply: int               #: mul, MAC, DSP multiplies
    system: int                 #: mrs, msr, isb, dsb, dmb
    wait: int                   #: wfi, wfe (without the time asleep)
    divide: Optional[int]
    fp: Optional[int]           #: FP add/sub/mul/convert/move
    fp_mac: Optional[int]
    fp_divide: Optional[int]
    #: the board whose clock (and power figure) turns cycles into time and energy, its
    #: product and chip names ("pico2", "Pico 2", "RP2350")
    clock_board: str
    product: str
    chip: str
    #: what the estimate assumes of the memory system (printed with every estimate)
    memory: str
    #: where the trace comes from, when it is not the priced core itself
    traced_on: str = ""

    @property
    def note(self) -> str:
        """The line that says what priced a trace of another core ("" for none)."""
        return f"priced with the {self.chip}'s {self.label} timings from {self.traced_on}" if self.traced_on else ""


#: Cortex-M33 (Pico 2 / RP2350), traced on mps2-an505.
M33 = CoreCosts(
    name="cortex-m33", label="Cortex-M33", refill=2, load=2, load_pipelined=1, store=1, bl=3,
    multiply=1, system=1, wait=1, divide=7, fp=1, fp_mac=3, fp_divide=14,
    clock_board="pico2", product="Pico 2", chip="RP2350",
    memory=("code and data in zero-wait-state memory: no flash/XIP wait states or cache misses "
            "(on a Pico 2, weights in QSPI flash behind a 16 KiB XIP cache cost more unless in "
            "SRAM), no bus contention, no register-dependency stalls"))
#: Cortex-M0+ (Pico / RP2040: single-cycle multiplier), from a QEMU microbit (Cortex-M0) trace.
M0PLUS = CoreCosts(
    name="cortex-m0plus", label="Cortex-M0+", refill=1, load=2, load_pipelined=2, store=2, bl=3,
    multiply=1, system=3, wait=2, divide=None, fp=None, fp_mac=None, fp_divide=None, clock_board="pico",
    product="Pico", chip="RP2040",
    memory=("RP2040: every XIP flash access (code, weights) a cache hit (1 cycle, no wait state; a miss "
            "is a serial flash read), SRAM zero-wait-state and uncontended (one core, no DMA), no "
            "exception taken during the inference"),
    traced_on="the QEMU microbit (Cortex-M0) trace of the same Armv6-M code")
#: The cost table for a traced board's core (Board.core). An Armv6-M trace is priced
#: as the RP2040's Cortex-M0+ (the only Armv6-M chip Mote targets).
COST_MODELS = {"cortex-m33": M33, "cortex-m0": M0PLUS, "cortex-m0plus": M0PLUS}
#: The refusal of --estimate-cycles on a target that is no simulated board (host, serial:PORT).
ESTIMATE_TARGETS = ("--estimate-cycles traces a run on a simulated board with a cost model "
                    "(--target mps2-an505: Cortex-M33; --target microbit: Cortex-M0+)")
#: Pipeline refill after a taken branch from zero-wait-state memory on the M33, cycles.
REFILL_CYCLES = M33.refill
#: What the M33 estimate assumes of the memory system.
MEMORY_ASSUMPTIONS = M33.memory


def costs_named(name: str) -> CoreCosts:
    """The cost table whose name is `name` (an estimate's "model" key)."""
    return next(c for c in COST_MODELS.values() if c.name == name)


def cost_model(board) -> CoreCosts:
    """The cost table that prices a QEMU trace of `board` (aot.deploy.boards.Board).
    Raises RunError with one line for a board that has none or is not run on QEMU."""
    from aot.errors import RunError
    costs = COST_MODELS.get(board.core)
    if board.simulator is not None and board.simulator.kind == "rp2040js":
        raise RunError(f"--estimate-cycles prices a QEMU trace; {board.name} runs on rp2040js, whose "
                       "OUT figures are core cycles already: for Mote's Cortex-M0+ estimate build the "
                       "same model with --board microbit and run it with --target microbit "
                       "--estimate-cycles")
    if costs is None:
        raise RunError(f"--estimate-cycles has Cortex-M33 (mps2-an505) and Cortex-M0+ (microbit) cost "
                       f"models; {board.name} is a {board.core}")
    if board.simulator is None or board.simulator.kind != "qemu":
        raise RunError(f"--estimate-cycles traces a run on QEMU; {board.name} has no QEMU machine")
    return costs


def energy(cycles: int, board) -> Optional[dict]:
    """Estimated energy of `cycles` on `board` (its "power" entry: active_mw at
    clock_hz): {"microjoules", "milliseconds", "active_mw", "clock_hz", "source"},
    or None for a board without a power figure."""
    p = getattr(board, "power", None)
    if not p:
        return None
    seconds = cycles / p["clock_hz"]
    return {"microjoules": seconds * p["active_mw"] * 1e3, "milliseconds": seconds * 1e3,
            "active_mw": p["active_mw"], "clock_hz": p["clock_hz"], "source": p["source"]}
#: Functions whose TBs mark the end of the measured region: the callers of
#: mote_method_execute (the embedding API's run, the firmware app's loop).
CALLERS = ("mote_model_run", "app_run_one", "main")
ENTRY = "mote_method_execute"
#: The tick read of the runtime's event tracer (mote/port.h), called before and
#: after every program instruction of a traced inference (mote/trace.h).
MARKER = "mote_port_ticks"

_IN = re.compile(r"^IN: ?(\S*)")
_INSN = re.compile(r"^0x([0-9a-f]+):\s+((?:[0-9a-f]{4} ?)+)\s+(\S+)\s*(.*)$")
_TRACE = re.compile(r"^Trace \d+: (0x[0-9a-f]+) \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] ?(\S*)")

_COND = ("eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al")
_BRANCHES = ("b", "bl", "bx", "blx", "cbz", "cbnz", "tbb", "tbh")
#: Mnemonics whose last letters spell a condition code ("muls": ls) and are no
#: conditional form of a shorter one
_ENDS_LIKE_A_CONDITION = frozenset(("muls", "movs", "lsls", "bics", "sbcs", "smmls", "vmls", "vnmls"))


@dataclass(frozen=True)
class Insn:
    """One decoded instruction of a translation block: address, size (bytes),
    mnemonic (lower case, width suffix removed) and operand text."""
    addr: int
    size: int
    mnemonic: str
    operands: str


@dataclass
class Span:
    """Instructions executed in a stretch of a traced run and their estimated
    cycles, with the cycles of each instruction class and of each function (by
    the trace's symbol)."""
    instructions: int = 0
    cycles: int = 0
    by_class: Counter = field(default_factory=Counter)
    by_function: Counter = field(default_factory=Counter)
    instructions_by_class: Counter = field(default_factory=Counter)
    #: executions per (TB host address, first instruction after a load, last branch taken,
    #: symbol): what `annotate` expands per instruction address
    blocks: Counter = field(default_factory=Counter, repr=False, compare=False)

    @property
    def cycles_per_instruction(self) -> float:
        return self.cycles / self.instructions if self.instructions else 0.0

    def extra_by_class(self) -> Counter:
        """Cycles above one per instruction, per class (where the cycles per
        instruction above 1 come from)."""
        return Counter({c: n - self.instructions_by_class[c] for c, n in self.by_class.items()})

    def _add_tb(self, price: "_TbPrice", times: int, function: str) -> None:
        """Adds `times` executions of a translation block priced `price`."""
        self.instructions += times * price.instructions
        self.cycles += times * price.cycles
        for cls, (n, cyc) in price.by_class.items():
            self.by_class[cls] += times * cyc
            self.instructions_by_class[cls] += times * n
        self.by_function[function] += times * price.cycles


@dataclass
class Inference(Span):
    """One inference (one entry into the region). markers: calls of the marker
    function made inside it (the tick reads of a firmware built with the event
    tracer, `aot build --trace profile`: 0 for an untraced inference). spans:
    the inference cut at those calls, markers + 1 Spans, the calls themselves
    in no span (they are in the inference's totals)."""
    markers: int = 0
    spans: list = field(default_factory=list)


@dataclass
class Estimate:
    """The inference regions of a traced run, in order (see `estimate`), the
    translation blocks they ran (host address -> [Insn]) and the cost table that priced them."""
    inferences: list = field(default_factory=list)
    translations: dict = field(default_factory=dict, repr=False, compare=False)
    costs: CoreCosts = M33

    @property
    def runs(self) -> int:
        """Times the region was entered (inferences)."""
        return len(self.inferences)

    @property
    def per_run(self) -> list:
        """Estimated cycles of each inference, in order."""
        return [i.cycles for i in self.inferences]

    @property
    def instructions(self) -> int:
        return sum(i.instructions for i in self.inferences)

    @property
    def cycles(self) -> int:
        return sum(i.cycles for i in self.inferences)

    @property
    def by_class(self) -> Counter:
        return sum((i.by_class for i in self.inferences), Counter())

    @property
    def by_function(self) -> Counter:
        return sum((i.by_function for i in self.inferences), Counter())

    @property
    def cycles_per_instruction(self) -> float:
        return self.cycles / self.instructions if self.instructions else 0.0

    def untraced(self) -> "Estimate":
        """The inferences that called no marker: without the event tracer's
        reads (a --trace profile firmware runs each input set untraced, then
        traced)."""
        return Estimate([i for i in self.inferences if not i.markers], self.translations, self.costs)


def _base(mnemonic: str) -> str:
    """The mnemonic without .w/.n, a condition code or an S suffix where they
    do not change the class ("ldr.w" -> "ldr", "bne" -> "b", "addseq" -> "adds")."""
    m = mnemonic.lower().split(".")[0]
    if m.startswith("b") and m[1:] in _COND:
        return "b"
    if m in _ENDS_LIKE_A_CONDITION:
        return m
    for cc in _COND:  # IT blocks: "moveq", "ldrne", ...
        if len(m) > 3 and m.endswith(cc) and not m.startswith("it"):
            m = m[: -len(cc)]
            break
    return m


def _reglist(operands: str) -> int:
    """Registers in a {..} list ("{r4, r5, lr}", "{r0-r3}", "{s16-s31}")."""
    m = re.search(r"\{([^}]*)\}", operands)
    if not m:
        return 1
    n = 0
    for part in m.group(1).split(","):
        part = part.strip()
        r = re.fullmatch(r"([a-z]+)(\d+)\s*-\s*[a-z]+(\d+)", part)
        n += int(r.group(3)) - int(r.group(2)) + 1 if r else 1
    return n


def insn_cost(insn: Insn, taken: bool, after_load: bool, costs: CoreCosts = M33) -> tuple:
    """(cycles, class) of one execution of `insn` on the core of `costs`. taken:
    it was a branch that changed the flow; after_load: the previous instruction
    was a load (on the M33 a following load pipelines with it). Raises
    ValueError for an instruction the core does not have."""
    m = _base(insn.mnemonic)
    refill = costs.refill
    writes_pc = "pc" in insn.operands.split(",")[0] or bool(re.search(r"\{[^}]*pc[^}]*\}", insn.operands))
    if m in ("pop", "ldm", "ldmia", "ldmdb", "ldmfd", "vpop", "vldm", "vldmia", "vldmdb"):
        n = _reglist(insn.operands)
        return (1 + n + (refill if writes_pc else 0), "load multiple")
    if m in ("push", "stm", "stmia", "stmdb", "stmfd", "vpush", "vstm", "vstmia", "vstmdb"):
        return (1 + _reglist(insn.operands), "store multiple")
    if m == "bl":
        return (costs.bl, "branch taken")
    if m in _BRANCHES:
        return (1 + refill, "branch taken") if taken else (1, "branch not taken")
    if m.startswith("ldr") or m.startswith("vldr") or m.startswith("lda"):
        if writes_pc:
            return (costs.load + refill, "load")
        return (costs.load_pipelined if after_load else costs.load, "load")
    if m.startswith("str") or m.startswith("vstr") or m.startswith("stl"):
        return (costs.store, "store")
    if m in ("mrs", "msr", "isb", "dsb", "dmb"):
        return (costs.system, "system")
    if m in ("wfi", "wfe"):
        return (costs.wait, "system")
    if m in ("sdiv", "udiv"):
        return (_has(costs.divide, insn, costs), "divide")
    if m in ("vdiv", "vsqrt"):
        return (_has(costs.fp_divide, insn, costs), "fp divide")
    if m in ("vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma", "vfnms"):
        return (_has(costs.fp_mac, insn, costs), "fp mac")
    if m.startswith("v"):
        return (_has(costs.fp, insn, costs), "fp")
    if m.startswith(("mul", "mla", "mls", "smul", "smla", "smls", "smua", "smus", "smmul", "smmla",
                     "smmls", "umul", "umla", "umaal", "smlal", "sml")):
        return (costs.multiply, "multiply")
    if writes_pc and m in ("mov", "add"):
        return (1 + refill, "branch taken")
    return (1, "data processing")


def _has(cycles: Optional[int], insn: Insn, costs: CoreCosts) -> int:
    if cycles is None:
        raise ValueError(f"{insn.mnemonic} at 0x{insn.addr:x} is not a {costs.label} instruction: "
                         "the trace is not of that core")
    return cycles


def parse_trace(lines: Iterable[str]):
    """(translations, executions) of a QEMU `-d in_asm,exec,nochain` log:
    translations maps a TB's host address to its instructions (the IN block
    printed before its first execution); executions is the list of
    (host address, guest pc, symbol) in execution order. An execution that
    QEMU rewound (cpu_io_recompile: an I/O access inside the TB) is dropped."""
    tbs: dict = {}
    runs: list = []
    pending: Optional[list] = None
    for line in lines:
        m = _TRACE.match(line)
        if m:
            host, pc, sym = m.group(1), int(m.group(2), 16), m.group(3)
            if pending is not None:
                tbs[host] = pending
                pending = None
            runs.append((host, pc, sym))
            continue
        m = _IN.match(line)
        if m:
            pending = []
            continue
        m = _INSN.match(line)
        if m and pending is not None:
            hexes = m.group(2).split()
            pending.append(Insn(int(m.group(1), 16), 2 * len(hexes), m.group(3), m.group(4)))
            continue
        if line.startswith("cpu_io_recompile") and runs:
            runs.pop()
    return tbs, runs


@dataclass(frozen=True)
class _TbPrice:
    """One execution of a translation block: instructions, cycles, per class
    (instructions, cycles), and whether its last instruction is a load."""
    instructions: int
    cycles: int
    by_class: dict
    ends_with_load: bool


def _price_tb(insns: list, after_load: bool, taken: bool, costs: CoreCosts) -> _TbPrice:
    """`insns` executed once: the first after a load or not, the last a branch
    taken or not (the only two things that differ between executions)."""
    cycles, by_class, prev = 0, {}, after_load
    for i, insn in enumerate(insns):
        cyc, cls = insn_cost(insn, taken and i == len(insns) - 1, prev, costs)
        prev = cls == "load"
        cycles += cyc
        n, c = by_class.get(cls, (0, 0))
        by_class[cls] = (n + 1, c + cyc)
    return _TbPrice(len(insns), cycles, by_class, prev)


def estimate(tbs: dict, runs: list, entry: str = ENTRY, callers: tuple = CALLERS,
             costs: CoreCosts = M33, marker: str = MARKER) -> Estimate:
    """Price every instruction executed inside the region [first TB of `entry`,
    next TB of one of `callers`) of each inference (see module docstring). A
    call of `marker` inside the region (from its first TB until a TB of the
    function that called it runs again) ends one span of the inference and
    starts the next (Inference.spans)."""
    est = Estimate(translations=tbs, costs=costs)
    inside = False
    prev_load = False
    inf: Optional[Inference] = None
    caller: Optional[str] = None    # while inside a marker call: the function it returns to
    prev_sym = None
    # executions per (TB, after a load, last branch taken, symbol), per inference and span
    # (Span.blocks); priced once per distinct key at the end (a TB's cost depends on nothing else)
    prices: dict = {}
    for k, (host, pc, sym) in enumerate(runs):
        if not inside and sym == entry:
            inside = True
            inf = Inference(spans=[Span()])
            est.inferences.append(inf)
            caller = None
        elif inside and sym in callers:
            inside = False
        if not inside:
            prev_sym = sym
            continue
        if caller is None and sym == marker and prev_sym != marker:
            caller = prev_sym
            inf.markers += 1
            inf.spans.append(Span())
        elif caller is not None and sym == caller:
            caller = None
        prev_sym = sym
        insns = tbs.get(host)
        if not insns:
            continue
        last = insns[-1]
        nxt = runs[k + 1][1] if k + 1 < len(runs) else None
        key = (host, prev_load, nxt is not None and nxt != last.addr + last.size, sym or "?")
        inf.blocks[key] += 1
        if caller is None:
            inf.spans[-1].blocks[key] += 1
        price = prices.get(key[:3])
        if price is None:
            price = prices[key[:3]] = _price_tb(insns, key[1], key[2], costs)
        prev_load = price.ends_with_load
    for inf in est.inferences:
        for part in [inf] + inf.spans:
            for (host, after_load, taken, sym), times in part.blocks.items():
                part._add_tb(prices[host, after_load, taken], times, sym)
    return est


def annotate(est: Estimate, span: Span) -> list:
    """Every instruction address `span` (of `est`) executed, in address order:
    {"address", "function", "instruction" (mnemonic and operands), "executions",
    "cycles", "classes": {class: executions}} (one address can be in several
    translation blocks and be priced differently in each: summed)."""
    rows: dict = {}
    for (host, after_load, taken, sym), times in span.blocks.items():
        insns = est.translations[host]
        prev = after_load
        for i, insn in enumerate(insns):
            cyc, cls = insn_cost(insn, taken and i == len(insns) - 1, prev, est.costs)
            prev = cls == "load"
            r = rows.get(insn.addr)
            if r is None:
                r = rows[insn.addr] = {"address": insn.addr, "function": sym,
                                       "instruction": f"{insn.mnemonic} {insn.operands}".strip(),
                                       "executions": 0, "cycles": 0, "classes": Counter()}
            r["executions"] += times
            r["cycles"] += times * cyc
            r["classes"][cls] += times
    return [dict(rows[a], classes=dict(rows[a]["classes"])) for a in sorted(rows)]


def instruction_spans(inference: Inference, events: int) -> list:
    """The Spans of the `events` program instructions of a traced inference
    (the runtime's exec_traced, runtime/src/method_exec.c: after the overhead
    and start reads, one tick read before and one after each instruction, one
    at the end), in execution order: each runs from the return of the read
    before the instruction to the call of the read after it, the stretch
    `aot profile`'s row counts."""
    calls = inference.markers
    if events <= 0 or calls < 2 * events + 1:
        raise ValueError(f"the traced inference read the ticks {calls} times, fewer than 2 x {events} "
                         "instructions + 1: not a run of the event tracer")
    first = calls - 2 * events   # the span after the read before instruction 0
    return [inference.spans[first + 2 * i] for i in range(events)]


def _traced_run(cmd: list, log: Path, timeout_s: float, elf) -> tuple:
    """(exit status, stderr text) of the traced QEMU run `cmd`, whose log grows at `log`;
    a bar shows the log's size while it runs. Raises QemuTimeout after `timeout_s`."""
    from aot.deploy.qemu import QemuTimeout
    with tempfile.TemporaryFile() as err, progress.bar("estimate cycles: traced run", None, "B",
                                                       unit_scale=True) as b:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + timeout_s
        while proc.poll() is None:
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                raise QemuTimeout(f"traced run of {elf} did not end within {timeout_s} s", "")
            time.sleep(0.25)
            if log.is_file():
                b.update(log.stat().st_size - b.n)
        err.seek(0)
        return proc.returncode, err.read().decode(errors="replace")


def _counting(lines, b, every: int = 65536):
    """`lines` (a text file) with bar `b` advanced by their length, every `every` lines."""
    n = pending = 0
    for line in lines:
        pending += len(line)
        n += 1
        if n % every == 0:
            b.update(pending)
            pending = 0
        yield line
    b.update(pending)


def trace_firmware(elf: Union[str, Path], board, timeout_s: float = 600.0,
                   costs: Optional[CoreCosts] = None) -> Estimate:
    """Run `elf` on the board's QEMU machine with the translation/execution log
    and estimate the cycles of its inferences with `costs` (default: the board's,
    cost_model). Raises QemuError/QemuTimeout, RunError for a board without a cost model."""
    from aot.deploy.boards import load_board
    from aot.deploy.qemu import QemuError, qemu_command
    board = load_board(board)
    costs = costs or cost_model(board)
    with tempfile.TemporaryDirectory(prefix="mote-trace-") as tmp:
        log = Path(tmp) / "trace.log"
        cmd = qemu_command(elf, board, serial="null") + ["-d", "in_asm,exec,nochain", "-D", str(log)]
        returncode, stderr = _traced_run(cmd, log, timeout_s, elf)
        if not log.is_file():
            raise QemuError(f"QEMU wrote no trace ({returncode}): {stderr}")
        with open(log, errors="replace") as f, progress.bar("estimate cycles: read trace", log.stat().st_size,
                                                           "B", unit_scale=True) as b:
            tbs, runs = parse_trace(_counting(f, b))
    return estimate(tbs, runs, costs=costs)
