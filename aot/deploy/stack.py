"""Stack analysis (``StackReport``): every object is compiled with
``-fstack-usage`` (per-function frame, ``.su``) and ``-fcallgraph-info=su``
(per-object call graph in VCG, ``.ci``, whose node labels carry the same frame
sizes). The graphs of all objects are merged by function name and the worst
path from a root function is the largest sum of frames along any call chain
(a longest-path search; the runtime has no recursion, a cycle is reported).
Calls through function pointers: ``worst_path(root, indirect_targets=[...])``
makes every indirect call site call each listed function (e.g. every kernel
in the registry), which bounds the kernel dispatch. Functions compiled
without .su/.ci files (newlib's memcpy/memset, libgcc) get their frames from
the linked image's disassembly (``binary_frames``: its PUSH, VPUSH and SUB SP,
BL/B.W to other functions). ``stack_budget`` adds the reset
handler's frame above main and the exceptions that may nest on top of the
deepest chain: each costs its hardware frame (104 bytes with FP context,
Armv7-M/Armv8-M ARM "Exception entry") plus its handler's own chain.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from aot.errors import FirmwareError

#: Hardware frame of one exception entry with the FP context (26 words;
#: Armv7-M / Armv8-M ARM, "Exception entry"); 32 bytes without an FPU.
EXCEPTION_FRAME_BYTES = 104
#: Exception handlers of the Cortex-M port that may run on the main stack:
#: SysTick (QEMU's cycle counter) can preempt anything, a fault can hit
#: inside it. Absent ones (no SysTick on a DWT board) are skipped.
EXCEPTION_ROOTS = ("mote_port_systick_handler", "mote_port_fault_entry")
OBJDUMP = "arm-none-eabi-objdump"

#: Node GCC's -fcallgraph-info uses for a call through a function pointer.
INDIRECT_CALL = "__indirect_call"


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


@dataclass
class StackBudget:
    """The reserve `aot build` links (bytes, 8-aligned) and its parts: the
    deepest chain from main (`main_bytes`, size.json's stack_worst_case_bytes),
    the reset handler's frame above it, and the nested exceptions."""
    reserve_bytes: int
    main_bytes: int
    reset_bytes: int
    exception_bytes: int
    main_chain: list


def stack_budget(art) -> StackBudget:
    """Main stack to reserve: the worst call chain from main, bounded through
    the kinds of indirect call in the build: the runtime's dispatch in
    execute (may call any linked kernel or delegate backend function), method
    init's and destroy's calls through the backend registry (any backend
    function: none without delegates) and a kernel helper's call of a per-element
    or per-row function pointer (may call any leaf function of its own
    object file: the pointers all name static loops of that file); plus the
    reset handler's frame and the exceptions of EXCEPTION_ROOTS, nested."""
    report = art.stack
    by_object = _functions_by_object(art.objects)
    # a delegate backend's functions (backends/): what method init and destroy
    # call through the backend registry (none on a build without delegates)
    backend = set().union(*[fs for o, fs in by_object.items() if "/backends/" in o.replace("\\", "/")])
    kernels = [f for f in report.frames if f.startswith("mote_kernel_")] + sorted(backend)
    frames = dict(report.frames)
    calls = {}
    for fn, callees in report.calls.items():
        if INDIRECT_CALL in callees and (fn == "mote_method_init" or fn.endswith(":delegates_destroy")):
            callees = (set(callees) - {INDIRECT_CALL}) | backend
        elif INDIRECT_CALL in callees and not fn.startswith("mote_method_"):
            own = next((fs for fs in by_object.values() if fn in fs), set())
            leaves = {f for f in own if f != fn and not report.calls.get(f)}
            callees = (set(callees) - {INDIRECT_CALL}) | leaves
        calls[fn] = set(callees)
    for fn, (frame, callees) in binary_frames(art.elf, exclude=frames).items():
        frames[fn] = frame
        calls.setdefault(fn, set()).update(callees)
    bounded = StackReport(frames, report.qualifiers, calls)
    main, chain, _unresolved = bounded.worst_path("main", indirect_targets=kernels)
    exceptions = sum(EXCEPTION_FRAME_BYTES + bounded.worst_path(h)[0]
                     for h in EXCEPTION_ROOTS if h in frames)
    reset = frames.get("mote_port_reset_handler", 0)
    # AAPCS: the stack stays 8-byte aligned.
    reserve = (reset + main + exceptions + 7) & ~7
    return StackBudget(reserve, main, reset, exceptions, chain)


_DIS_FN = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
_DIS_INSN = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")
_DIS_TARGET = re.compile(r"<([^>+]+)>")


def binary_frames(elf, exclude=()) -> dict:
    """function -> (frame bytes, callees) from the disassembly of `elf`, for
    the functions not in `exclude` (those with compiler .su frames): the sum
    of every PUSH (4 bytes per register), VPUSH (4 per S, 8 per D register)
    and SUB SP, #imm in the function (an upper bound: newlib's memcpy pushes
    only after its short-copy path, another path may push separately);
    callees are the targets of BL and of tail-call B.W to another function. Raises FirmwareError if objdump fails."""
    import subprocess
    r = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", str(elf)], capture_output=True, text=True)
    if r.returncode != 0:
        raise FirmwareError(f"{OBJDUMP} failed on {elf}: {r.stderr.strip()}")
    out: dict = {}
    fn = None
    for line in r.stdout.splitlines():
        m = _DIS_FN.match(line)
        if m:
            fn = None if m.group(1) in exclude else m.group(1)
            if fn is not None:
                out[fn] = [0, set()]
            continue
        m = _DIS_INSN.match(line)
        if fn is None or not m:
            continue
        op, args = m.group(1).split(".")[0], m.group(2)
        out[fn][0] += _alloc_bytes(op, args)
        if op in ("bl", "b") and "<" in args and "+" not in args:
            t = _DIS_TARGET.search(args)
            if t and t.group(1) != fn:
                out[fn][1].add(t.group(1))
    return {f: (v[0], v[1]) for f, v in out.items()}


def _alloc_bytes(op: str, args: str) -> int:
    """Stack bytes one instruction allocates (0 for any other)."""
    if op in ("push", "stmdb") and (op == "push" or args.startswith("sp!")):
        return 4 * _reg_count(args)
    if op == "vpush":
        return (8 if "d" in args else 4) * _reg_count(args)
    m = re.match(r"^sp,\s*(?:sp,\s*)?#(\d+)", args)
    if op == "sub" and m:
        return int(m.group(1))
    return 0


def _reg_count(args: str) -> int:
    """Registers in a register list "{r4, r5, r6, lr}" / "{d8-d15}"."""
    inner = args[args.index("{") + 1:args.index("}")] if "{" in args else ""
    count = 0
    for part in filter(None, (p.strip() for p in inner.split(","))):
        if "-" in part:
            a, b = part.split("-")
            count += int(re.sub(r"\D", "", b)) - int(re.sub(r"\D", "", a)) + 1
        else:
            count += 1
    return count


def _functions_by_object(objects) -> dict:
    """object path -> names of the functions it defines (from its .su file; static
    functions appear both plain and as "file:name", as -fcallgraph-info names them)."""
    out = {}
    for obj in objects:
        su = Path(obj).with_suffix(".su")
        if not su.exists():
            continue
        names = set()
        for line in su.read_text().splitlines():
            m = re.match(r"^(.*?):(\d+):(\d+):(\S+)\s+(\d+)\s+(\S+)$", line.strip())
            if m:
                names.add(m.group(4))
                names.add(f"{m.group(1)}:{m.group(4)}")
        out[str(obj)] = names
    return out
