"""aot.devtools.etdump: a Mote profile written as ExecuTorch's ETDump, checked
against ExecuTorch's own deserializer and devtools Inspector (the oracle)."""
import struct
import warnings

import pytest

from aot.devtools.etdump import etdump_bytes, inspector_time_scale, write_etdump
from aot.errors import MoteError

# Three executed instructions (instruction 1 is, say, a view and has no event),
# with distinct durations so a swapped or mis-scaled field shows.
OPS = [
    {"instr": 0, "op": "aten::convolution.out", "start": 12, "end": 1012, "ticks": 1000},
    {"instr": 2, "op": "mote::conv2d_s8.out", "start": 1020, "end": 3520, "ticks": 2500, "calls": 1},
    {"instr": 3, "op": "aten::add.out", "start": 3530, "end": 3537, "ticks": 7},
]
TOTAL = 3600


def _profile(unit="instructions", ops=OPS, total=TOTAL, **extra):
    return {"tick_unit": unit, "total_ticks": total, "runs": 1, "ops": [dict(o) for o in ops], **extra}


def _inspector(path, source, target):
    from executorch.devtools import Inspector
    from executorch.devtools.inspector import TimeScale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # "Output Buffer not found": we write no debug data
        return Inspector(etdump_path=str(path), source_time_scale=TimeScale(source),
                         target_time_scale=TimeScale(target))


# ------------------------------------------------------------------ layout


def test_size_prefix_root_and_identifier():
    data = etdump_bytes(_profile())
    size, root = struct.unpack_from("<II", data, 0)
    assert size == len(data) - 4                 # size prefix counts the bytes after it
    assert data[8:12] == b"ED00"                 # identifier follows the root offset
    assert 12 <= 4 + root < len(data)            # root table is inside the buffer
    assert data[4:8] != b"ED00" and data[0:4] != b"ED00"


def test_write_etdump_writes_the_same_bytes(tmp_path):
    path = tmp_path / "model.etdp"
    write_etdump(_profile(), path)
    assert path.read_bytes() == etdump_bytes(_profile())
    assert etdump_bytes(_profile()) != etdump_bytes(_profile(total=TOTAL + 1))


def test_unwritable_path_is_a_mote_error(tmp_path):
    with pytest.raises(MoteError, match="cannot write ETDump"):
        write_etdump(_profile(), tmp_path / "missing-dir" / "x.etdp")


# ------------------------------------------------------------------ oracle: ExecuTorch


@pytest.mark.oracle
def test_executorch_deserializer_reads_it_back():
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc
    dump = deserialize_from_etdump_flatcc(etdump_bytes(_profile(run_start=5)))
    assert dump.version == 0
    assert len(dump.run_data) == 1
    run = dump.run_data[0]
    assert run.name == "Execute"
    assert run.bundled_input_index == -1
    assert run.allocators is None
    assert all(e.allocation_event is None and e.debug_event is None for e in run.events)
    got = [(p.name, p.chain_index, p.instruction_id, p.start_time, p.end_time,
            p.delegate_debug_id_int, p.delegate_debug_id_str)
           for p in (e.profile_event for e in run.events)]
    assert got == [
        ("aten::convolution.out", 0, 0, 12, 1012, -1, None),
        ("mote::conv2d_s8.out", 0, 2, 1020, 3520, -1, None),
        ("aten::add.out", 0, 3, 3530, 3537, -1, None),
        ("Method::execute", -1, 0, 5, 5 + TOTAL, -1, None),
    ]


@pytest.mark.oracle
def test_executorch_deserializer_reads_large_ticks_and_no_ops():
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc
    big = 2**40 + 3                             # beyond 32 bits: start/end are u64
    ops = [{"instr": 70000, "op": "aten::mm.out", "start": big, "end": big + 9, "ticks": 9}]
    run = deserialize_from_etdump_flatcc(etdump_bytes(_profile("cycles", ops, total=20))).run_data[0]
    pe = run.events[0].profile_event
    assert (pe.instruction_id, pe.start_time, pe.end_time) == (70000, big, big + 9)
    run = deserialize_from_etdump_flatcc(etdump_bytes(_profile(ops=[], total=42))).run_data[0]
    assert [(e.profile_event.name, e.profile_event.end_time) for e in run.events] == [("Method::execute", 42)]


@pytest.mark.oracle
def test_inspector_shows_ops_with_our_ticks(tmp_path):
    path = tmp_path / "model.etdp"
    write_etdump(_profile("instructions"), path)
    ins = _inspector(path, inspector_time_scale("instructions"), "cycles")
    assert [b.name for b in ins.event_blocks] == ["Execute"]
    events = ins.event_blocks[0].events
    assert [(e.name, e._instruction_id, e.perf_data.raw, e.is_delegated_op) for e in events] == [
        ("aten::convolution.out", 0, [1000.0], False),
        ("mote::conv2d_s8.out", 2, [2500.0], False),
        ("aten::add.out", 3, [7.0], False),
        ("Method::execute", 0, [float(TOTAL)], False),
    ]
    assert [e.perf_data.avg for e in events[:3]] == [o["ticks"] for o in OPS]
    assert [e.start_time for e in events] == [[12], [1020], [3530], [0]]
    df = ins.to_dataframe()
    assert list(df["event_name"]) == [o["op"] for o in OPS] + ["Method::execute"]
    assert list(df["p50 (cycles)"]) == [1000.0, 2500.0, 7.0, float(TOTAL)]


@pytest.mark.oracle
def test_inspector_scales_nanosecond_profiles(tmp_path):
    path = tmp_path / "ns.etdp"
    write_etdump(_profile("ns"), path)
    ins = _inspector(path, inspector_time_scale("ns"), "us")      # ticks / 1000
    raw = {e.name: e.perf_data.raw for e in ins.event_blocks[0].events}
    assert raw == {"aten::convolution.out": [pytest.approx(1.0)],
                   "mote::conv2d_s8.out": [pytest.approx(2.5)],
                   "aten::add.out": [pytest.approx(0.007)],
                   "Method::execute": [pytest.approx(3.6)]}


# ------------------------------------------------------------------ bad input


def _without(key):
    p = _profile()
    del p[key]
    return p


def _op_with(**kv):
    p = _profile()
    p["ops"][1].update(kv)
    return p


def _op_without(key):
    p = _profile()
    del p["ops"][1][key]
    return p


@pytest.mark.parametrize("profile, message", [
    (_without("tick_unit"), "has no 'tick_unit'"),
    (_without("total_ticks"), "has no 'total_ticks'"),
    (_without("ops"), "has no 'ops'"),
    (_profile("seconds"), "tick_unit 'seconds' is not one of"),
    (_profile(total=-1), "total_ticks is negative"),
    (_profile(total=2.5), "total_ticks must be an integer"),
    ({**_profile(), "ops": {"instr": 0}}, "ops must be a list"),
    ({**_profile(), "ops": [3]}, r"ops\[0\] must be a dict"),
    (_op_without("op"), r"ops\[1\] has no 'op'"),
    (_op_without("instr"), r"ops\[1\] \(mote::conv2d_s8.out\) has no 'instr'"),
    (_op_without("start"), "has no 'start'"),
    (_op_without("end"), "has no 'end'"),
    (_op_without("ticks"), "has no 'ticks'"),
    (_op_with(op=""), "non-empty operator name"),
    (_op_with(ticks=-4), r"ops\[1\] \(mote::conv2d_s8.out\).ticks is negative \(-4\)"),
    (_op_with(start=-1), "start is negative"),
    (_op_with(instr=-1), "instr is negative"),
    (_op_with(instr=2**31), "instr = 2147483648 is outside"),
    (_op_with(end=2**64), "end = 18446744073709551616 is outside"),
    (_op_with(start=True), "start must be an integer"),
    (_op_with(start=3600, end=3599), r"ends before it starts \(start 3600, end 3599 ticks\)"),
    (_profile(run_start=-3), "run_start is negative"),
    ("not a dict", "profile must be a dict"),
])
def test_bad_profile_is_one_line_mote_error(profile, message):
    with pytest.raises(MoteError, match=message) as exc:
        etdump_bytes(profile)
    assert "\n" not in str(exc.value)


def test_inspector_time_scale():
    assert inspector_time_scale("instructions") == "cycles"
    assert inspector_time_scale("cycles") == "cycles"
    assert inspector_time_scale("ns") == "ns"
    with pytest.raises(MoteError):
        inspector_time_scale("ms")
