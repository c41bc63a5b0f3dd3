"""ExecuTorch's profile dump format ("ED00", `.etdp`) written from a Mote
per-operator profile, so ExecuTorch's devtools Inspector can read it.

The layout is described here by hand from ExecuTorch's documented ETDump schema
(devtools/etdump/etdump_schema_flatcc.fbs) and written with the program's
flatbuffer machinery (aot.pte.schema). Only the tables Mote writes are described:

    ETDump        version u32 · run_data [RunData]
    RunData       name str · bundled_input_index i32 (-1: none)
                  · allocators [Allocator] · events [Event]
    Event         exactly one of: profile_event ProfileEvent
                  · allocation_event AllocationEvent · debug_event (not written)
    ProfileEvent  name str · chain_index i32 · instruction_id i32 (-1: none)
                  · delegate_debug_id_int i32 (-1: none) · delegate_debug_id_str str
                  · delegate_debug_metadata [u8] · start_time u64 · end_time u64

Facts about the file taken from ExecuTorch's runtime event tracer (ETDumpGen),
which this file mirrors so that tools written for its dumps read ours alike:

* the buffer is size-prefixed: bytes 0-3 hold the length of the rest (uint32
  little-endian), bytes 4-7 the root offset, bytes 8-11 the identifier "ED00";
* the schema version it stamps is 0;
* `Method::execute` opens an event block (RunData) named "Execute" and, when
  it returns, one ProfileEvent named "Method::execute" around the whole run,
  logged outside any instruction: chain_index -1 and instruction_id 0 (the
  tracer's unset chain id and debug handle). Events are appended as they end,
  so the instructions' events precede it.

Times are the profile's ticks, unscaled. ETDump does not record their unit: a
reader is told it (the Inspector's ``source_time_scale``); see
:func:`inspector_time_scale`.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import flatbuffers

from aot.errors import MoteError
from aot.pte.schema import _fb, define_namespace, write_table

FILE_IDENTIFIER = b"ED00"
#: the schema version ExecuTorch's runtime stamps (ETDUMP_VERSION)
ETDUMP_VERSION = 0
#: name of the event block (RunData) ExecuTorch's Method::execute opens
RUN_NAME = "Execute"
#: name of the ProfileEvent around a whole execute
METHOD_EXECUTE = "Method::execute"
#: chain_index / instruction_id of an event logged outside any instruction
UNSET_CHAIN_INDEX = -1
UNSET_INSTRUCTION_ID = 0

#: profile tick unit -> the Inspector's TimeScale value for it. Instruction
#: counts (QEMU -icount) have no time unit; like cycles they are read 1:1.
TICK_UNITS = {"instructions": "cycles", "cycles": "cycles", "ns": "ns"}

_U64_MAX = 2**64 - 1
_I32_MAX = 2**31 - 1


# ---------------------------------------------------------------- tables


@dataclass
class Allocator:
    name: Optional[str] = _fb("str")


@dataclass
class AllocationEvent:
    """allocation_size in bytes, from allocator allocator_id of RunData.allocators."""
    allocator_id: int = _fb("i32", 0)
    allocation_size: int = _fb("u64", 0)


@dataclass
class ProfileEvent:
    """start_time / end_time: ticks of the unit the profile was taken in."""
    name: Optional[str] = _fb("str")
    chain_index: int = _fb("i32", 0)
    instruction_id: int = _fb("i32", -1)
    delegate_debug_id_int: int = _fb("i32", -1)
    delegate_debug_id_str: Optional[str] = _fb("str")
    delegate_debug_metadata: Optional[list] = _fb("[u8]")
    start_time: int = _fb("u64", 0)
    end_time: int = _fb("u64", 0)


@dataclass
class Event:
    profile_event: Optional[ProfileEvent] = _fb("T:ProfileEvent")
    allocation_event: Optional[AllocationEvent] = _fb("T:AllocationEvent")
    debug_event: Any = _fb("T:DebugEvent")      # slot 2; Mote writes no debug events


@dataclass
class RunData:
    name: Optional[str] = _fb("str")
    bundled_input_index: int = _fb("i32", -1)
    allocators: Optional[list] = _fb("[T:Allocator]")
    events: Optional[list] = _fb("[T:Event]")


@dataclass
class ETDump:
    version: int = _fb("u32", 0)
    run_data: Optional[list] = _fb("[T:RunData]", "[]")


ED00 = define_namespace((Allocator, AllocationEvent, ProfileEvent, Event, RunData, ETDump), {})


# ---------------------------------------------------------------- profile -> tables


def _int(value, what: str, low: int, high: int) -> int:
    """``value`` as an int in [low, high], else MoteError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise MoteError(f"profile: {what} must be an integer, got {value!r}")
    value = int(value)
    if not low <= value <= high:
        if value < 0 <= low:
            raise MoteError(f"profile: {what} is negative ({value})")
        raise MoteError(f"profile: {what} = {value} is outside [{low}, {high}]")
    return value


def _get(d: dict, key: str, what: str):
    if not isinstance(d, dict):
        raise MoteError(f"profile: {what} must be a dict, got {type(d).__name__}")
    if key not in d:
        raise MoteError(f"profile: {what} has no {key!r}")
    return d[key]


def _op_event(i: int, op: dict) -> ProfileEvent:
    """The ProfileEvent of ``op``, entry ``i`` of profile["ops"]."""
    what = f"ops[{i}]"
    name = _get(op, "op", what)
    if not isinstance(name, str) or not name:
        raise MoteError(f"profile: {what}.op must be a non-empty operator name, got {name!r}")
    what = f"ops[{i}] ({name})"
    instr = _int(_get(op, "instr", what), f"{what}.instr", 0, _I32_MAX)
    start = _int(_get(op, "start", what), f"{what}.start", 0, _U64_MAX)
    end = _int(_get(op, "end", what), f"{what}.end", 0, _U64_MAX)
    _int(_get(op, "ticks", what), f"{what}.ticks", 0, _U64_MAX)
    if end < start:
        raise MoteError(f"profile: {what} ends before it starts (start {start}, end {end} ticks)")
    return ProfileEvent(name=name, chain_index=0, instruction_id=instr,
                        start_time=start, end_time=end)


def inspector_time_scale(tick_unit: str) -> str:
    """The ExecuTorch Inspector TimeScale value ("cycles" or "ns") to pass as
    ``source_time_scale`` for a profile taken in ``tick_unit``. With "cycles"
    the Inspector requires ``target_time_scale`` "cycles" too and reports raw
    ticks. Raises MoteError for an unknown unit."""
    if tick_unit not in TICK_UNITS:
        raise MoteError(f"profile: tick_unit {tick_unit!r} is not one of {', '.join(TICK_UNITS)}")
    return TICK_UNITS[tick_unit]


def profile_to_etdump(profile: dict) -> ETDump:
    """The ETDump of one run of ``profile`` (see :func:`etdump_bytes`)."""
    inspector_time_scale(_get(profile, "tick_unit", "profile"))
    total = _int(_get(profile, "total_ticks", "profile"), "total_ticks", 0, _U64_MAX)
    run_start = _int(profile.get("run_start", 0), "run_start", 0, _U64_MAX - total)
    ops = _get(profile, "ops", "profile")
    if not isinstance(ops, (list, tuple)):
        raise MoteError(f"profile: ops must be a list, got {type(ops).__name__}")
    events = [Event(profile_event=_op_event(i, op)) for i, op in enumerate(ops)]
    events.append(Event(profile_event=ProfileEvent(
        name=METHOD_EXECUTE, chain_index=UNSET_CHAIN_INDEX, instruction_id=UNSET_INSTRUCTION_ID,
        start_time=run_start, end_time=run_start + total)))
    return ETDump(version=ETDUMP_VERSION, run_data=[RunData(name=RUN_NAME, events=events)])


# ---------------------------------------------------------------- bytes


def etdump_bytes(profile: dict) -> bytes:
    """The ETDump file bytes of one run of a Mote per-operator profile.

    ``profile``: {"tick_unit": "instructions" | "cycles" | "ns",
    "total_ticks": int (the whole execute), "ops": [{"instr": instruction
    index in chain 0, "op": operator name, "start": int, "end": int, "ticks":
    int}, ...]} (other keys ignored; an optional "run_start", default 0, is
    the tick the execute began at, on the ops' clock).

    One RunData "Execute" holds one ProfileEvent per op (name = op, chain 0,
    instruction_id = instr, start_time/end_time = start/end ticks, so its
    duration is end - start), then "Method::execute" spanning
    [run_start, run_start + total_ticks]. Raises MoteError (one line) for a
    missing key, an unknown tick unit, a negative or non-integer tick, or an
    op that ends before it starts."""
    root = profile_to_etdump(profile)
    b = flatbuffers.Builder(256 + 96 * len(root.run_data[0].events))
    b.FinishSizePrefixed(write_table(b, root), file_identifier=FILE_IDENTIFIER)
    return bytes(b.Output())


def write_etdump(profile: dict, path) -> None:
    """Write :func:`etdump_bytes` of ``profile`` to ``path`` (conventionally
    ``*.etdp``). Raises MoteError for a bad profile or an unwritable path."""
    data = etdump_bytes(profile)
    try:
        Path(path).write_bytes(data)
    except OSError as e:
        raise MoteError(f"cannot write ETDump {path}: {e.strerror or e}") from None
