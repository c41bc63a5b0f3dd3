"""Pre-widened DSP conv weights (aot.compiler.dsp_weights) and shared constant
values (aot.compiler.share_values): the layout, the scratch they save, and the
value table they shrink. Firmware bytes with the panel: tests/e2e/test_firmware_int8.py."""
import numpy as np
import pytest

from aot import ir
from aot.compiler.quant import int8ref as R
from aot.compiler.dsp_weights import (EFORM_E, EFORM_MARK, LINEAR_PANEL_ARG, PANEL_ARG, add_dsp_weights,
                                      call_panel, eform_table, fast_table, has_eform, has_panel, has_table, linear_panel, linear_table, linear_trade_line, panel)
from aot.compiler.pipeline import compile_model_file
from aot.compiler.scratch import call_variant, scratch_bytes
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


def _smmlar(a, b, acc):
    return (acc * (1 << 32) + a * b + (1 << 31)) >> 32


def test_linear_panel_layout_blocks_rows_by_four():
    # 5 rows (a second block with three zero rows), K = 6 (padded to 8)
    w = np.arange(1, 31, dtype=np.int8).reshape(5, 6)
    ones = np.ones(5, np.int32)
    p = linear_panel(w, 0 * ones, ones * ((1 << 30) + 5), -ones, 0, 0)
    rows = np.zeros((8, 8), np.int16)
    rows[:5, :6] = w
    block0 = [v for g in (0, 4) for r in range(4) for v in rows[r, [g, g + 2, g + 1, g + 3]]]
    block1 = [v for g in (0, 4) for r in range(4, 8) for v in rows[r, [g, g + 2, g + 1, g + 3]]]
    assert p[:32].tolist() == block0 and p[32:64].tolist() == block1
    t = p[64:].astype("<i2").view("<i4")     # two blocks of 16 words
    assert t.size == 32
    assert t[16 + 4:16 + 16].tolist() == [(1 << 30) + 5, 1, 1] + [(1 << 30) + 1, 1, 1] * 3
    # K beyond one stack row (round8(K) > 256): no panel
    assert linear_panel(np.zeros((4, 257), np.int8), ones[:4] * 0, ones[:4] * ((1 << 30) + 5),
                        -ones[:4], 0, 0) is None


def test_linear_table_blocks_rows_by_four_the_last_ending_at_n():
    """The table alone (weights read in place): linear_panel's block table, the
    last block at rows N-4..N-1 (overlapping the one before when N % 4 != 0)."""
    rng = np.random.default_rng(11)
    for n, k in ((7, 10), (8, 4), (4, 641), (9, 5)):
        w = rng.integers(-128, 128, (n, k), dtype=np.int8)
        ms = [R.quantize_multiplier(float(v)) for v in rng.uniform(1e-4, 0.4, n)]
        mult = np.array([m for m, _ in ms], np.int32)
        shift = np.array([s for _, s in ms], np.int32)
        bias = rng.integers(-40000, 40000, n).astype(np.int32)
        t = linear_table(w, bias, mult, shift, -7, 3)
        assert t.dtype == np.int32 and t.size == 16 * ((n + 3) // 4)
        ft = fast_table(w.reshape(n, 1, 1, k), bias, mult, shift, -7, 3).reshape(-1, 10)
        starts = [min(r, n - 4) for r in range(0, n, 4)]
        for b, r0 in enumerate(starts):
            blk = t[16 * b:16 * b + 16]
            for j in range(4):
                pair, i = divmod(r0 + j, 2)
                assert blk[j] == 2 * (int(bias[r0 + j]) + 7 * int(w[r0 + j].astype(np.int64).sum()))
                assert blk[j] == ft[pair, 2 * i]
                assert blk[4 + 3 * j:7 + 3 * j].tolist() == [mult[r0 + j], ft[pair, 5 + 3 * i], -shift[r0 + j]]
        # where K fits a panel, the panel's table is the same for every full block
        p = linear_panel(w, bias, mult, shift, -7, 3)
        if p is not None and n % 4 == 0:
            assert p[(n + 3) // 4 * 4 * ((k + 7) // 8 * 8):].astype("<i2").view("<i4").tolist() == t.tolist()
    ones = np.ones(3, np.int32)
    # fewer than four rows or taps, or a row outside the fast requantization: no table
    assert linear_table(np.ones((3, 8), np.int8), 0 * ones, ones << 30, -ones, 0, 0) is None
    assert linear_table(np.ones((4, 3), np.int8), np.zeros(4, np.int32), np.full(4, 1 << 30, np.int32) + 1,
                        np.full(4, -1, np.int32), 0, 0) is None
    assert linear_table(np.ones((4, 8), np.int8), np.zeros(4, np.int32), np.full(4, (1 << 30) + 1, np.int32),
                        np.array([-1, -1, 0, -1], np.int32), 0, 0) is None


def test_autoencoder_linear_forms_by_opt():
    """--opt speed: the 640-tap first layer (beyond a panel's 256) takes its table
    alone, every other layer its int16 panel; --opt size: every layer its table
    (16 bytes per four features instead of 2 per weight); same host bytes."""
    from aot.compiler.scratch import call_variant
    from aot.host.runtime import Program
    got = {opt: compile_model_file("zoo/autoencoder.py", int8=True, int8_io=True, dsp_weights=True, opt=opt)
           for opt in ("speed", "size")}
    plain = compile_model_file("zoo/autoencoder.py", int8=True, int8_io=True)
    fcs = {opt: [c for c in g.spec.instructions if c.op == "mote::linear_s8"] for opt, g in got.items()}
    sp = got["speed"].spec
    assert [call_variant(sp, c) for c in fcs["speed"]] == ["rows+table"] + ["panel"] * 9
    assert [call_variant(got["size"].spec, c) for c in fcs["size"]] == ["rows+table"] * 10
    for opt, g in got.items():
        added = 0
        for c in fcs[opt]:
            w = g.spec.values[c.args[1]]
            n, k = w.sizes
            v = g.spec.values[c.args[LINEAR_PANEL_ARG]]
            if has_table(g.spec, c):
                wt = np.frombuffer(w.constant, np.int8).reshape(n, k)
                b, m, s = (np.frombuffer(g.spec.values[c.args[i]].constant, "<i4") for i in (2, 3, 4))
                assert v.constant == linear_table(wt, b, m, s, g.spec.values[c.args[5]],
                                                  g.spec.values[c.args[6]]).astype("<i4").tobytes()
                assert v.nbytes == 64 * ((n + 3) // 4)
            added += v.nbytes
        assert g.spec.plan_info["dsp_weights_bytes"] == added
    assert got["size"].spec.plan_info["dsp_weights_bytes"] < 30_000 < 380_000 < got["speed"].spec.plan_info[
        "dsp_weights_bytes"]
    # the trade `aot build` prints: the nine layers that admit both forms, their panels'
    # and tables' bytes (the first layer, 640 taps, admits no panel), the same either way
    panels = [c for c in fcs["speed"] if has_panel(sp, c)]
    trade = sp.plan_info["linear_trade"]
    assert trade == dict(got["size"].spec.plan_info["linear_trade"], opt="speed")
    assert trade["layers"] == len(panels) == 9
    assert trade["panel_bytes"] == sum(sp.values[c.args[LINEAR_PANEL_ARG]].nbytes for c in panels)
    assert trade["table_bytes"] == sum(64 * ((sp.values[c.args[1]].sizes[0] + 3) // 4) for c in panels)
    assert trade["macs"] == sum(sp.values[c.args[1]].sizes[0] * sp.values[c.args[1]].sizes[1] for c in panels)
    line = linear_trade_line(trade)
    assert f"{trade['panel_bytes']:,} B" in line and f"{trade['table_bytes']:,} B" in line
    assert f"{round(trade['macs'] * (23 / 16 - 21 / 32)):,} fewer instructions" in line
    x = [np.random.default_rng(4).integers(-128, 128, (1, 640), dtype=np.int8)]
    outs = [Program(c.pte).method().run(x)[0].tobytes() for c in (plain, got["speed"], got["size"])]
    assert len(set(outs)) == 1 and any(outs[0])
    # "none" leaves the linear layers alone; an unknown mode is refused
    spec = compile_model_file("zoo/autoencoder.py", int8=True, int8_io=True).spec
    assert add_dsp_weights(spec, linear=False) == 0
    with pytest.raises(ValueError):
        add_dsp_weights(spec, linear="fast")


def test_mve_programs_carry_linear_tables_only(ds_cnn):
    """linear_tables (MVE boards): the linear layer gets its table alone, the convs
    no panel; the host bytes stay those of the plain program."""
    from aot.host.runtime import Program
    mve = compile_model_file("zoo/ds_cnn.py", int8=True, int8_io=True, linear_tables=True)
    sp = mve.spec
    assert not any(has_panel(sp, c) for c in sp.instructions)
    fcs = [c for c in sp.instructions if c.op == "mote::linear_s8"]
    assert fcs and all(has_table(sp, c) for c in fcs)
    assert sp.plan_info["dsp_weights_bytes"] == sum(64 * ((sp.values[c.args[1]].sizes[0] + 3) // 4) for c in fcs)
    assert "linear_trade" not in sp.plan_info     # no panel to trade on MVE boards
    x = [np.random.default_rng(3).integers(-128, 128, (1, 1, 49, 10), dtype=np.int8)]
    a = Program(ds_cnn[False].pte).method().run(x)
    b = Program(mve.pte).method().run(x)
    assert np.any(a[0] != 0) and a[0].tobytes() == b[0].tobytes()


def test_fast_table_requantizes_like_the_reference():
    """The kernel's 4-instruction form on the table's words (SMMLAR, + sign, ASR, SSAT)
    equals requantize + zero point + clamp of the reference, per channel."""
    rng = np.random.default_rng(5)
    cout, k, izp, ozp = 5, 12, 7, -9
    w = rng.integers(-128, 128, (cout, 1, 2, 6), dtype=np.int8)
    ms = [R.quantize_multiplier(float(v)) for v in rng.uniform(1e-4, 0.4, cout)]
    mult = np.array([m for m, _ in ms], np.int32)
    shift = np.array([s for _, s in ms], np.int32)
    bias = rng.integers(-40000, 40000, cout).astype(np.int32)
    t = fast_table(w, bias, mult, shift, izp, ozp).astype(np.int64)
    assert t.size == 10 * 3                      # round2(5) / 2 pairs
    sw = w.reshape(cout, -1).astype(np.int64).sum(1)
    for c in range(cout):
        pair, j = divmod(c, 2)
        e = t[10 * pair + 2 * j], t[10 * pair + 4 + 3 * j:10 * pair + 7 + 3 * j]
        b2, (m, rz, sh) = e
        assert b2 == 2 * (bias[c] - izp * sw[c]) and m == mult[c] and sh == -shift[c]
        for s in rng.integers(-k * 16384, k * 16384, 200).tolist() + [0, -1, 1]:
            acc = int(bias[c] - izp * sw[c] + s)
            t2 = 2 * acc                                          # doubled column + b2
            got = max(-128, min(127, (_smmlar(t2, int(m), int(rz)) + (t2 >> 31 if t2 < 0 else 0)) >> int(sh)))
            want = max(-128, min(127, R.requantize(np.array([acc]), int(mult[c]), int(shift[c]))[0] + ozp))
            assert got == want, (c, acc)
    # a channel outside the fast form (shift >= 0): no table, the panel alone
    shift[2] = 1
    assert fast_table(w, bias, mult, shift, izp, ozp) is None
    assert call_panel(w, bias, mult, shift, izp, ozp).size == panel(w).size


def test_eform_table_requantizes_like_the_reference():
    """The E-form (kernels/requant.h): SMMLA of t = 2^(1+d) acc (the panel's weights
    and the bias scaled), then SSAT of >> E, equals requantize + zero point -128 and
    the range [-128, 127] of the reference, per channel; the panel rows are scaled."""
    rng = np.random.default_rng(11)
    cout, k, izp = 6, 8, 9
    w = rng.integers(-128, 128, (cout, 1, 1, k), dtype=np.int8)
    ms = [R.quantize_multiplier(float(v)) for v in rng.uniform(2 ** -11, 2 ** -5, cout)]
    mult = np.array([m for m, _ in ms], np.int32)
    shift = np.array([s for _, s in ms], np.int32)
    bias = rng.integers(-40000, 40000, cout).astype(np.int32)
    scale, t = eform_table(w, bias, mult, shift, izp, -128)
    t = t.astype(np.int64)
    sw = w.reshape(cout, -1).astype(np.int64).sum(1)
    for c in range(cout):
        pair, j = divmod(c, 2)
        b, (m, rz, f) = t[10 * pair + 2 * j], t[10 * pair + 4 + 3 * j:10 * pair + 7 + 3 * j]
        d = EFORM_E + int(shift[c])
        assert f == EFORM_MARK | d and 1 <= d <= 7 and scale[c] == 2 ** (1 + d) and m == mult[c]
        assert b == scale[c] * (bias[c] - izp * sw[c]) and b == t[10 * pair + 2 * j + 1]
        for s in rng.integers(-k * 16384, k * 16384, 300).tolist() + [0, -1, 1]:
            acc = int(bias[c] - izp * sw[c] + s)
            y = ((acc * int(scale[c]) * int(m)) >> 32) + int(rz)          # SMMLA
            got = max(-128, min(127, y >> EFORM_E))                      # SSAT #8, asr #E
            want = max(-128, min(127, R.requantize(np.array([acc]), int(mult[c]), int(shift[c]))[0] - 128))
            assert got == want, (c, acc)
    # the panel holds each row times its scale (not twice); the table follows it
    p = call_panel(w, bias, mult, shift, izp, -128, act=(-128, 127)).astype(np.int64)
    rows = panel(w).astype(np.int64).reshape(cout // 2, -1, 2, 4) * scale.reshape(-1, 1, 2, 1)
    assert np.array_equal(p[:panel(w).size], rows.reshape(-1))
    # outside it: an out_zp other than -128, a narrower range, an odd Cout, K > 256, e out of range
    assert eform_table(w, bias, mult, shift, izp, -127) is None
    assert eform_table(w, bias, mult, shift, izp, -128, (-128, 100)) is None
    assert eform_table(w[:5], bias[:5], mult[:5], shift[:5], izp, -128) is None
    w40 = rng.integers(-128, 128, (cout, 1, 1, 260), dtype=np.int8)
    assert eform_table(w40, bias, mult, shift, izp, -128) is None
    assert eform_table(w, bias, mult, np.full(cout, -EFORM_E, np.int32), izp, -128) is None
    assert call_panel(w, bias, mult, shift, izp, -127, act=(-127, 127)).size == \
        call_panel(w, bias, mult, shift, izp, -127).size


def test_mobilenet_convs_take_the_eform():
    """VWW's convs carry the E-form table (full range, out_zp -128): its pointwise
    layers and its stem (K = 27, ReLU6 over the full range: conv_stem3_rows)."""
    c = compile_model_file("zoo/mobilenet_v1_025.py", int8=True, int8_io=True, dsp_weights=True).spec
    convs = [x for x in c.instructions if x.op in ("mote::conv2d_s8", "mote::conv2d_s8_nchw")]
    ks = [int(np.prod(c.values[x.args[1]].sizes[1:])) for x in convs]
    assert all(has_eform(c, x) for x in convs)
    assert ks.count(32) == 2 and 8 in ks and 16 in ks and ks[0] == 27
    assert [call_variant(c, x) for x in convs][:6] == ["stem3x3c3+nchw+etable", "pointwise8+etable",
                                                      "pointwise+etable", "pointwise+etable",
                                                      "pointwise+etable", "pointwise+etable"]


def test_mobilenet_stem_reads_the_nchw_input():
    """With the DSP weights VWW's stem reads the int8 NCHW program input itself
    (nchw_stem_pass: no permute_copy left), its panel the NHWC stem's with every row's
    taps in the NCHW column's order (the table the same); without them the permute stays."""
    from aot.compiler.dsp_weights import NCHW_K, nchw_panel
    dsp = compile_model_file("zoo/mobilenet_v1_025.py", int8=True, int8_io=True, dsp_weights=True).spec
    plain = compile_model_file("zoo/mobilenet_v1_025.py", int8=True, int8_io=True).spec
    assert [x.op for x in plain.instructions][:2] == ["aten::permute_copy", "mote::conv2d_s8"]
    stem = dsp.instructions[0]
    assert stem.op == "mote::conv2d_s8_nchw" and stem.args[0] == dsp.inputs[0]
    assert not any(x.op == "aten::permute_copy" for x in dsp.instructions)
    assert list(dsp.values[stem.args[0]].sizes) == [1, 3, 96, 96]
    w = dsp.values[stem.args[1]]
    wt = np.frombuffer(w.constant, np.int8).reshape(w.sizes)
    chans = [np.frombuffer(dsp.values[stem.args[i]].constant, "<i4") for i in (2, 3, 4)]
    zps = [dsp.values[stem.args[i]] for i in (8, 9)]
    nhwc = call_panel(wt, *chans, *zps, act=(-128, 127))
    p = np.frombuffer(dsp.values[stem.args[PANEL_ARG]].constant, "<i2")
    assert p.tobytes() == nchw_panel(nhwc, 8).tobytes()
    n = 8 * 28
    assert p[n:].tobytes() == nhwc[n:].tobytes() and p[:n].tobytes() != nhwc[:n].tobytes()
    # row 0's K order: position k holds NHWC tap NCHW_K[k] (SXTB16 order inside a group)
    row0 = nhwc[:n].reshape(4, 7, 2, 4)[0, :, 0][:, [0, 2, 1, 3]].reshape(28)
    got0 = p[:n].reshape(4, 7, 2, 4)[0, :, 0][:, [0, 2, 1, 3]].reshape(28)
    assert list(got0) == [row0[k] for k in NCHW_K]


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
        wt = np.frombuffer(w.constant, np.int8).reshape(w.sizes)
        b, m, s = (np.frombuffer(dsp.values[c.args[i]].constant, "<i4") for i in (2, 3, 4))
        # (none is the RGB stem: each takes the E-form where it admits it)
        ref = call_panel(wt, b, m, s, dsp.values[c.args[8]], dsp.values[c.args[9]],
                         act=(dsp.values[c.args[10]], dsp.values[c.args[11]]))
        assert has_eform(dsp, c)
        assert pv.constant == ref.astype("<i2").tobytes()
        # DS-CNN's convs all take the E-form requantization: the table follows the panel
        assert ref.size == panel(wt).size + 20 * ((w.sizes[0] + 1) // 2)
        added += pv.nbytes
        # the kernel's own scratch no longer holds widened rows (16 KiB cap, rows x 2 x Kpad)
        assert scratch_bytes(dsp, c) < scratch_bytes(plain, c0)
    # the fully connected layer carries its panel (weights by blocks of four rows and
    # the requantization table) as argument 9
    fcs = [c for c in dsp.instructions if c.op == "mote::linear_s8"]
    assert fcs and all(has_panel(dsp, c) for c in fcs)
    for c in fcs:
        w, pv = dsp.values[c.args[1]], dsp.values[c.args[LINEAR_PANEL_ARG]]
        wt = np.frombuffer(w.constant, np.int8).reshape(w.sizes)
        b, m, s = (np.frombuffer(dsp.values[c.args[i]].constant, "<i4") for i in (2, 3, 4))
        ref = linear_panel(wt, b, m, s, dsp.values[c.args[5]], dsp.values[c.args[6]])
        assert pv.constant == ref.astype("<i2").tobytes()
        n, k = w.sizes
        assert ref.size == (n + 3) // 4 * 4 * ((k + 7) // 8 * 8 + 8)
        added += pv.nbytes
    # each depthwise layer its per-channel record (40 bytes a channel)
    dws = [c for c in dsp.instructions if c.op == "mote::depthwise_conv2d_s8"]
    added += sum(40 * int(dsp.values[c.args[1]].sizes[3]) for c in dws)
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


def test_ops_json_names_the_kernel_variant_of_every_call(ds_cnn):
    """ops.json counts the optimized kernels' variant per call (the C rule of
    kernels/requant.h, mote_s8_conv_variant, through the host library): DS-CNN's
    10x4 first conv over one channel is a stem, its 1x1 convs pointwise; with DSP
    weights both carry the requantization table (its E-form: out_zp -128, the full
    range) and the FC its panel."""
    from aot.compiler.manifest import build_manifest
    from aot.compiler.scratch import call_variant
    got = {}
    for d, c in ds_cnn.items():
        ops = {o["name"]: o for o in build_manifest(c.spec)["ops"]}
        got[d] = (ops["mote::conv2d_s8.out"]["variants"], ops["mote::linear_s8.out"]["variants"])
        # 25x5 maps, full int8 range: both cores run the depthwise over per-channel planes;
        # the DSP program's in the E-form
        assert ops["mote::depthwise_conv2d_s8.out"]["variants"] == ({"planes+eform(DSP)": 4} if d else {"planes": 4})
    assert got[False] == ({"stem": 1, "pointwise": 4}, {"rows": 1})
    assert got[True] == ({"stem+etable": 1, "pointwise+etable": 4}, {"panel": 1})
    # a padded 3x3 window over 16 channels is neither
    spec = ds_cnn[False].spec
    conv = next(k for k in spec.instructions if k.op == "mote::conv2d_s8")
    w = spec.values[conv.args[1]]
    x = spec.values[conv.args[0]]
    saved = (list(w.sizes), list(x.sizes), list(spec.values[conv.args[6]].items))
    try:
        w.sizes, x.sizes = [w.sizes[0], 3, 3, 16], [x.sizes[0], x.sizes[1], x.sizes[2], 16]
        spec.values[conv.args[6]].items = [1, 1]
        assert call_variant(spec, conv) == "window"
        # the same window over three channels (an RGB first layer) has its own stem
        w.sizes, x.sizes = [w.sizes[0], 3, 3, 3], [x.sizes[0], x.sizes[1], x.sizes[2], 3]
        assert call_variant(spec, conv) == "stem3x3c3"
    finally:
        w.sizes, x.sizes, spec.values[conv.args[6]].items = saved


def test_depthwise_variant_follows_the_rule_of_requant_h(ds_cnn):
    """The depthwise label is mote_s8_dw_variant's (kernels/requant.h), the kernels'
    own dispatch: a clamp other than the full int8 range leaves the DSP's int16 planes
    (its assembly saturates to int8 only) but not the MVE's; a 6x6 map (36 outputs per
    channel) leaves the MVE's (rows of 3+ outputs still take the DSP's, a 3x3 map
    its 1x3 block); a 2x2 map and a 5x5 window run channels-last on both."""
    from aot.compiler.scratch import call_variant
    spec = ds_cnn[False].spec
    dw = next(k for k in spec.instructions if k.op == "mote::depthwise_conv2d_s8")
    x, w = spec.values[dw.args[0]], spec.values[dw.args[1]]
    saved = (list(x.sizes), list(w.sizes), spec.values[dw.args[11]])
    try:
        assert call_variant(spec, dw) == "planes"
        spec.values[dw.args[11]] = saved[2] + 1
        assert call_variant(spec, dw) == "planes(MVE)"
        spec.values[dw.args[11]] = saved[2]
        x.sizes = [1, 6, 6, x.sizes[3]]
        assert call_variant(spec, dw) == "planes(DSP)"
        x.sizes = [1, 3, 3, x.sizes[3]]
        assert call_variant(spec, dw) == "planes(DSP)"
        x.sizes = [1, 2, 2, x.sizes[3]]
        assert call_variant(spec, dw) is None
        x.sizes, w.sizes = list(saved[0]), [1, 5, 5, w.sizes[3]]
        assert call_variant(spec, dw) is None
    finally:
        x.sizes, w.sizes, spec.values[dw.args[11]] = saved


def test_add_s8_variant_rule():
    """add_s8's core follows from its multipliers and shifts (mote_s8_add_variant of
    kernels/requant.h, the kernels' own dispatch, through the host library): the
    compiler's arguments (int8ref.add_params) select power+general, equal input
    scales power+power; two negative input shifts general+general; an input with
    shift 0 and a multiplier other than 2^30 the folded form in C; left shift 22 or
    an output shift of 0 or -23 the reference's arithmetic."""
    from aot.compiler.quant import int8ref as R
    from aot.compiler.scratch import ADD_VARIANTS, _scratch_library
    lib = _scratch_library()

    def variant(am, ash, bm, bsh, ls, osh):
        return ADD_VARIANTS[int(lib.mote_variant_mote_add_s8(am, ash, bm, bsh, ls, osh))]

    for (sa, sb, so), want in (((0.02, 0.05, 0.06), "power+general"),
                               ((0.5, 0.01, 0.03), "power+general"),
                               ((0.04, 0.04, 0.05), "power+power")):
        p = R.add_params(sa, sb, so)
        assert variant(p["a_multiplier"], p["a_shift"], p["b_multiplier"], p["b_shift"],
                       p["left_shift"], p["output_shift"]) == want
    m30, mmax = 1 << 30, (1 << 31) - 1
    assert variant(mmax, -3, 1518500250, -1, 20, -19) == "general+general"
    assert variant(mmax, -3, m30, -1, 20, -19) == "power+general"   # 2^30 with e < L: a power
    assert variant(mmax, 0, m30, -1, 20, -19) == "folded"
    assert variant(m30, 0, mmax, -1, 22, -19) == "reference"
    assert variant(m30, 0, mmax, -1, 20, 0) == "reference"
    assert variant(m30, 0, mmax, -1, 20, -23) == "reference"
    assert variant(m30, -19, mmax, -1, 20, -22) == "power+general"   # e + 1 <= left shift
    assert variant(m30, -20, mmax, -1, 20, -22) == "general+general"
    assert variant(m30, -19, m30, -19, 20, -22) == "power+power"


def test_depthwise_eform_label_and_rule(ds_cnn):
    """A DSP program's depthwise whose channels admit the E-form (kernels/requant.h
    mote_s8_dw_planar_eform: out_zp -128, e in [5, 11], the scaled bias bound) is
    labelled planes+eform(DSP); the same call in a program for every core keeps "planes",
    and a channel outside the form (e = 12) leaves it."""
    from aot.compiler.scratch import call_variant, dw_planar_eform
    plain, dsp = ds_cnn[False].spec, ds_cnn[True].spec
    dw = [k for k in dsp.instructions if k.op == "mote::depthwise_conv2d_s8"]
    assert dw and all(dw_planar_eform(dsp, k) for k in dw)
    assert [call_variant(dsp, k) for k in dw] == ["planes+eform(DSP)"] * len(dw)
    assert {call_variant(plain, k) for k in plain.instructions if k.op == "mote::depthwise_conv2d_s8"} == {"planes"}
    sh = dsp.values[dw[0].args[4]]
    saved = sh.constant
    try:
        s = np.frombuffer(saved, "<i4").copy()
        s[3] = -12
        sh.constant = s.tobytes()
        assert not dw_planar_eform(dsp, dw[0]) and call_variant(dsp, dw[0]) == "planes"
    finally:
        sh.constant = saved


def test_depthwise_record_holds_each_channels_job(ds_cnn):
    """DSP programs give every depthwise call in the E-form its per-channel record
    (argument 13, int32 [10 * C]): per channel bias * 2^s, the (w0, w1) / (w2, w1) pairs
    of each kernel row of the plane times 2^s (DS-CNN's 25x5 maps: the plane transposed,
    its rows are the window's columns), the multiplier, rz and e (s = 13 - e); programs
    for every core carry none."""
    from aot.compiler.dsp_weights import DW_RECORD_ARG
    plain, dsp = ds_cnn[False].spec, ds_cnn[True].spec
    assert all(len(k.args) == 15 for k in plain.instructions if k.op == "mote::depthwise_conv2d_s8")
    dws = [k for k in dsp.instructions if k.op == "mote::depthwise_conv2d_s8"]
    assert dws and all(len(k.args) == 16 for k in dws)
    k = dws[0]
    v = dsp.values
    rec = np.frombuffer(v[k.args[DW_RECORD_ARG]].constant, "<i4").reshape(-1, 10)
    w = np.frombuffer(v[k.args[1]].constant, np.int8).reshape(v[k.args[1]].sizes).astype(np.int64)
    b, m, sh = (np.frombuffer(v[k.args[i]].constant, "<i4").astype(np.int64) for i in (2, 3, 4))
    assert rec.shape == (w.shape[3], 10)
    for c in (0, 5, w.shape[3] - 1):
        e = -int(sh[c])
        s = 13 - e
        half = lambda word, hi: ((int(word) >> (16 if hi else 0)) + 0x8000) % 0x10000 - 0x8000  # noqa: E731
        assert int(rec[c, 0]) == int(b[c]) << s
        for r in range(3):   # transposed plane: kernel row r is the window's column r
            wa, wb = rec[c, 1 + 2 * r], rec[c, 2 + 2 * r]
            assert [half(wa, 0), half(wa, 1), half(wb, 0), half(wb, 1)] == \
                [int(w[0, 0, r, c]) << s, int(w[0, 1, r, c]) << s, int(w[0, 2, r, c]) << s, int(w[0, 1, r, c]) << s]
        assert list(rec[c, 7:]) == [m[c], (1 << 11) + (int(v[k.args[10]]) << 12) + (1 << (11 - e)), e]
