"""Stack analysis (``StackReport``): every object is compiled with
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
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from aot.errors import FirmwareError

#: Bytes added to the analysed worst-case stack: exception entry with FP
#: context (104 B, Armv8-M) plus a margin for libgcc helpers the call graph
#: cannot see (soft division, memcpy).
STACK_MARGIN_BYTES = 512

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


def stack_needed(art) -> int:
    """Main stack to reserve: the worst call chain from main, bounded through
    the two kinds of indirect call in the build: the runtime's kernel dispatch
    (may call any linked kernel) and a kernel helper's call of a per-element
    or per-row function pointer (may call any leaf function of its own
    object file: the pointers all name static loops of that file)."""
    report = art.stack
    kernels = [f for f in report.frames if f.startswith("mote_kernel_")]
    by_object = _functions_by_object(art.objects)
    calls = {}
    for fn, callees in report.calls.items():
        if INDIRECT_CALL in callees and not fn.startswith("mote_method_"):
            own = next((fs for fs in by_object.values() if fn in fs), set())
            leaves = {f for f in own if f != fn and not report.calls.get(f)}
            callees = (set(callees) - {INDIRECT_CALL}) | leaves
        calls[fn] = set(callees)
    bounded = StackReport(report.frames, report.qualifiers, calls)
    worst, _chain, _unresolved = bounded.worst_path("main", indirect_targets=kernels)
    # The reset handler's own frame sits above main; round to 8 as AAPCS requires.
    return ((worst + STACK_MARGIN_BYTES) + 7) & ~7


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
