"""Pre-widened DSP conv weights (aot.compiler.dsp_weights) and shared constant
values (aot.compiler.share_values): the layout, the scratch they save, and the
value table they shrink. Firmware bytes with the panel: tests/e2e/test_firmware_int8.py."""
import numpy as np
import pytest

from aot import ir
from aot.compiler.dsp_weights import PANEL_ARG, has_panel, panel
from aot.compiler.pipeline import compile_model_file
from aot.compiler.scratch import scratch_bytes
from aot.compiler.share_values import share_values


def test_panel_layout_pairs_rows_and_orders_taps_for_sxtb16():
    # 3 rows (odd: the last pairs with itself), K = 5 (padded to 8 with zeros)
    w = np.arange(1, 16, dtype=np.int8).reshape(3, 1, 1, 5)
    p = panel(w)
    assert p.dtype == np.int16 and p.size == 4 * 8   # round2(3) * round4(5)
    a, b, c = w.reshape(3, 5).astype(np.int16)
    first_pair = [a[0], a[2], a[1], a[3], b[0], b[2], b[1], b[3],
                  a[4], 0, 0, 0, b[4], 0, 0, 0]
    second_pair = [c[0], c[2], c[1], c[3], c[0], c[2], c[1], c[3], c[4], 0, 0, 0, c[4], 0, 0, 0]
    assert p.tolist() == first_pair + second_pair


@pytest.fixture(scope="module")
def ds_cnn():
    return {d: compile_model_file("zoo/ds_cnn.py", int8=True, int8_io=True, dsp_weights=d)
            for d in (False, True)}


def test_every_conv_carries_its_panel_and_drops_the_widening_scratch(ds_cnn):
    plain, dsp = ds_cnn[False].spec, ds_cnn[True].spec
    convs = [k for k, c in enumerate(dsp.instructions) if c.op == "mote::conv2d_s8"]
    assert convs and all(has_panel(dsp, dsp.instructions[k]) for k in convs)
    assert not any(has_panel(plain, c) for c in plain.instructions)
    added = 0
    for k in convs:
        c, c0 = dsp.instructions[k], plain.instructions[k]
        assert c.args[:PANEL_ARG] == c0.args[:PANEL_ARG] and c.args[PANEL_ARG + 1:] == c0.args[PANEL_ARG:]
        w, pv = dsp.values[c.args[1]], dsp.values[c.args[PANEL_ARG]]
        ref = panel(np.frombuffer(w.constant, np.int8).reshape(w.sizes))
        assert pv.constant == ref.astype("<i2").tobytes()
        added += pv.nbytes
        # the kernel's own scratch no longer holds widened rows (16 KiB cap, rows x 2 x Kpad)
        assert scratch_bytes(dsp, c) < scratch_bytes(plain, c0)
    assert dsp.plan_info["dsp_weights_bytes"] == added > 0
    assert ds_cnn[True].arena_bytes < ds_cnn[False].arena_bytes


def test_host_bytes_equal_with_and_without_panel(ds_cnn):
    from aot.host.runtime import Program
    x = [np.random.default_rng(3).integers(-128, 128, (1, 1, 49, 10), dtype=np.int8)]
    a = Program(ds_cnn[False].pte).method().run(x)
    b = Program(ds_cnn[True].pte).method().run(x)
    assert np.any(a[0] != 0) and a[0].tobytes() == b[0].tobytes()


def test_share_values_keeps_one_value_per_constant_and_remaps():
    t = ir.TensorValue(sizes=[2], dtype=6, dim_order=[0], mem_id=1, mem_offset=0)
    u = ir.TensorValue(sizes=[2], dtype=6, dim_order=[0], mem_id=1, mem_offset=16)
    spec = ir.ProgramSpec(values=[t, 3, ir.IntListValue([1, 1]), 3, ir.IntListValue([1, 1]), True, 1,
                                  ir.TensorListValue([0]), u, 3],
                          inputs=[0], outputs=[8],
                          instructions=[ir.KernelCall("aten::a", "out", [0, 1, 2, 5, 8, 8]),
                                        ir.KernelCall("aten::b", "out", [7, 3, 4, 6, 9, 9])])
    removed = share_values(spec)
    # 3 (index 3) and [1, 1] (index 4) fold into the first ones; True and 1 stay apart;
    # the 3 at index 9 is the second call's out (written): kept
    assert removed == 2
    assert len(spec.values) == 8
    assert spec.values[1] == 3 and spec.values[3] is True and spec.values[4] == 1
    assert spec.instructions[0].args == [0, 1, 2, 3, 6, 6]
    assert spec.instructions[1].args == [5, 1, 2, 4, 7, 7]
    assert spec.values[5].items == [0] and spec.outputs == [6] and spec.values[7] == 3


def test_share_values_shrinks_ds_cnn_state(ds_cnn):
    spec = ds_cnn[False].spec
    ints = [v for v in spec.values if isinstance(v, int) and not isinstance(v, bool)]
    assert len(ints) == len(set(ints))       # each constant int once
    lists = [tuple(v.items) for v in spec.values if isinstance(v, ir.IntListValue)]
    assert len(lists) == len(set(lists))
