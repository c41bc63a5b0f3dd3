"""aot/compiler/layout.py: the planar int16 layout between a pointwise and
a depthwise conv. The planar pair gives the NHWC pair's bytes (host runtime against
the Python integer reference), the plan gives the planar tensor exactly
2*(H+2p)*(W+2p)*C bytes, and "auto" takes a pair only where the arena does not grow."""
import warnings

import numpy as np
import pytest
import torch
from torch import nn

import zoo
from aot import ir
from aot.compiler.layout import DW_PLANAR, PW_PLANAR, candidates, layout_pass
from aot.compiler.pipeline import compile_model_file, compile_module


def _compile(path_or_module, layout, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if isinstance(path_or_module, nn.Module):
            x = kw.pop("inputs")
            return compile_module("m", path_or_module, x, int8=True, calibration=[x], layout=layout, **kw)
        return compile_model_file(path_or_module, int8=True, layout=layout, **kw)


def _ops(c):
    return [(k.op, k.overload) for k in c.spec.instructions]


def _planar_tensors(c):
    """(value, depthwise call) of every planar tensor of c."""
    out = []
    for k in c.spec.instructions:
        if (k.op, k.overload) == DW_PLANAR:
            out.append((c.spec.values[k.args[0]], k))
    return out


def _same_as_int8ref(c, sets=3):
    from aot.compiler.quant.lowering import int8_program
    from aot.compiler.pipeline import program_inputs
    from aot.host.runtime import Program
    int8_io = any(qp is not None for qp in (c.int8_info.input_qparams or []))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod = int8_program(c.eager, c.example_inputs, c.calibration_data, int8_io=int8_io).module()
    method = Program(c.pte).method()
    g = torch.Generator().manual_seed(7)
    nonzero = False
    for _ in range(sets):
        xs = program_inputs(c, [torch.randn(*t.shape, generator=g) for t in c.example_inputs])
        with torch.no_grad():
            ref = mod(*[torch.from_numpy(x) for x in xs])
        ref = [ref] if isinstance(ref, torch.Tensor) else list(ref)
        out = method.run(xs)
        for a, r in zip(out, ref):
            assert np.asarray(a).dtype == r.numpy().dtype
            assert np.asarray(a).tobytes() == r.numpy().tobytes()
            nonzero |= bool(np.any(r.numpy() != 0))
    assert nonzero


@pytest.fixture(scope="module")
def dscnn():
    return {m: _compile(zoo.path("ds_cnn"), m) for m in ("planar", "nhwc", "auto")}


def test_ds_cnn_planar_pairs_bytes_and_plan(dscnn):
    c = dscnn["planar"]
    ops = _ops(c)
    # three pointwise -> depthwise pairs (the first depthwise reads the stem conv's output)
    assert ops.count(PW_PLANAR) == 3 and ops.count(DW_PLANAR) == 3
    assert ops.count(("mote::depthwise_conv2d_s8", "out")) == 1
    tensors = _planar_tensors(c)
    assert len(tensors) == 3
    for t, call in tensors:
        assert t.dtype == ir.NUMPY_CODES[np.dtype(np.int16)] and t.sizes == [1, 64, 27, 7]
        # exact: 2 * (H + 2p) * (W + 2p) * C, no slack, in arena 1
        assert t.nbytes == 2 * 27 * 7 * 64 == 24192
        assert t.mem_id == 1 and t.mem_offset + t.nbytes <= c.spec.arena_sizes[1]
        assert c.spec.values[call.args[6]].items == [1, 1]   # padding == the border
    rows = c.manifest["layouts"]["pairs"]
    assert [(r["nhwc_bytes"], r["planar_bytes"], r["planar"]) for r in rows] == [(8000, 24192, True)] * 3
    _same_as_int8ref(c)


def test_auto_takes_nothing_without_dsp_kernels(dscnn):
    base = dscnn["nhwc"]
    assert PW_PLANAR not in _ops(base)
    assert dscnn["planar"].arena_bytes > base.arena_bytes   # 8,000 B input + 24,192 B planar at the peak
    auto = dscnn["auto"]
    assert _ops(auto) == _ops(base) and auto.arena_bytes == base.arena_bytes
    rows = auto.manifest["layouts"]["pairs"]
    assert len(rows) == 3 and not any(r["planar"] for r in rows)
    assert all(r["why_not"].startswith("no DSP kernels") for r in rows)


FASTER = "the NHWC pair is faster: the DSP depthwise widens its own planes, conv2d_s8's pointwise is faster"


def test_auto_on_dsp_kernels_keeps_nhwc():
    """The DSP depthwise widens its own input planes in scratch, and conv2d_s8's
    pointwise beats the planar one: auto takes no pair, and says why."""
    c = _compile(zoo.path("ds_cnn"), "auto", dsp_weights=True)
    assert [r["why_not"] for r in c.manifest["layouts"]["pairs"]] == [FASTER] * 3
    assert PW_PLANAR not in _ops(c)


def test_auto_takes_pairs_that_pay_and_fit(monkeypatch):
    """With a speed rule that says yes (the seam for kernels to come), a pair goes
    planar when the arena keeps its size, and stays NHWC when it would grow."""
    import aot.compiler.layout as L
    monkeypatch.setattr(L, "planar_pays", lambda spec, pair, dsp: None)
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, stride=2, padding=1),
                      nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(64, 32, 1), nn.ReLU(),
                      nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.ReLU(), nn.Conv2d(32, 8, 1)).eval()
    x = torch.randn(1, 3, 32, 32)
    # the 32x32x64 activation sets the peak (65,536 B); the planar 32x10x10 tensor is 6,400 B
    c = _compile(m, "auto", inputs=(x,), dsp_weights=True)
    rows = c.manifest["layouts"]["pairs"]
    assert len(rows) == 1 and rows[0]["planar"], rows
    assert rows[0]["arena_with"] <= rows[0]["arena_budget"]
    assert c.spec.plan_info["layouts"]["panel_bytes"] == 2 * 32 * 64
    assert _ops(c).count(PW_PLANAR) == 1
    _same_as_int8ref(c)
    # DS-CNN: 8,000 B in + 24,192 B planar would be the peak
    d = _compile(zoo.path("ds_cnn"), "auto", dsp_weights=True)
    rows = d.manifest["layouts"]["pairs"]
    assert [r["why_not"] for r in rows] == ["the arena would grow"] * 3
    assert all(r["arena_with"] > r["arena_budget"] for r in rows)


def test_mobilenet_planar_bytes_identical():
    c = _compile(zoo.path("mobilenet_v1_025"), "planar")
    assert _ops(c).count(DW_PLANAR) == 12
    for t, call in _planar_tensors(c):
        _, ch, hp, wp = t.sizes
        assert t.nbytes == 2 * ch * hp * wp
    _same_as_int8ref(c, sets=2)


class _Branchy(nn.Module):
    """pw -> dw (a candidate), pw whose output also feeds an add (not one), dw of multiplier 2."""

    def __init__(self):
        super().__init__()
        self.pw1 = nn.Conv2d(8, 16, 1)
        self.dw1 = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.pw2 = nn.Conv2d(16, 16, 1)
        self.dw2 = nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16)
        self.pw3 = nn.Conv2d(16, 8, 1)
        self.dw3 = nn.Conv2d(8, 16, 3, padding=1, groups=8)

    def forward(self, x):
        y = torch.relu(self.dw1(torch.relu(self.pw1(x))))
        z = torch.relu(self.pw2(y))
        z = torch.relu(self.dw2(z + y))      # pw2's output also read by the add
        return self.dw3(self.pw3(z))         # depth multiplier 2


def test_only_single_reader_multiplier_one_pairs():
    torch.manual_seed(0)
    m = _Branchy().eval()
    x = torch.randn(1, 8, 10, 12)
    c = _compile(m, "planar", inputs=(x,))
    ops = _ops(c)
    assert ops.count(PW_PLANAR) == 1 and ops.count(DW_PLANAR) == 1
    assert ops.count(("mote::depthwise_conv2d_s8", "out")) == 2
    _same_as_int8ref(c)


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="unknown layout mode"):
        layout_pass("fast")


def test_candidates_of_nhwc_program(dscnn):
    # the all-NHWC program still has its three candidates; the planar one none left
    assert len(candidates(dscnn["nhwc"].spec)) == 3
    assert candidates(dscnn["planar"].spec) == []


def test_dsp_depthwise_gets_four_planes_where_the_arena_keeps_its_size(monkeypatch):
    """DSP programs: a depthwise call on the plane path gets scratch for four int16
    planes (mote_s8_dw_planes4_bytes) when the arena keeps its size, one plane when
    four would make it grow; the bytes stay the reference's."""
    import aot.compiler.layout as L
    from aot.compiler.layout import DW, DW_PLANES4
    from aot.compiler.scratch import dw_planar_form
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1, groups=16),
                      nn.ReLU(), nn.MaxPool2d(4), nn.Conv2d(16, 16, 1), nn.ReLU(),
                      nn.Conv2d(16, 16, 3, padding=1, groups=16)).eval()
    x = torch.randn(1, 3, 32, 32)
    c = _compile(m, "auto", inputs=(x,), dsp_weights=True)
    dws = [(step, k) for step, k in enumerate(c.spec.instructions) if (k.op, k.overload) == DW]
    assert len(dws) == 2
    # the 32x32x16 depthwise runs at the peak (16,384 B in place and one 34x34 plane):
    # four planes (9,264 B) would grow the arena; the 8x8x16 one runs far below it: four
    # 10x10 planes (16 + 8 * 100 bytes) fit
    assert c.spec.plan_info[DW_PLANES4] == [dws[1][0]]
    assert dws[0][1].scratch_bytes < 16 + 8 * 34 * 34
    assert dws[1][1].scratch_bytes >= 16 + 8 * 10 * 10
    # the kernel's form (mote_variant_dw_planar_form): bit 1, one plane at a time
    assert [dw_planar_form(c.spec, k) & 2 for _, k in dws] == [2, 0]
    assert DW_PLANES4 not in _compile(m, "auto", inputs=(x,), dsp_weights=False).spec.plan_info
    monkeypatch.setattr(L, "planes4_pass", lambda **kw: (lambda spec: None))
    n = _compile(m, "auto", inputs=(x,), dsp_weights=True)
    assert DW_PLANES4 not in n.spec.plan_info
    assert c.spec.arena_sizes[1] == n.spec.arena_sizes[1]
    _same_as_int8ref(c)


def test_dsp_depthwise_planes_grow_the_arena_within_the_budget(monkeypatch):
    """--opt speed lets planes4_pass grow the arena by at most PLANES_GROWTH of the
    arena without planes (a larger fraction here, so the 32x32x16 call gets its four
    planes too); --opt size by nothing. ops.json's "dw_planes" reports the calls and
    the budget; the bytes stay the reference's."""
    import aot.compiler.layout as L
    from aot.compiler.layout import DW, DW_PLANES4, DW_PLANES_ARENA
    from aot.compiler.manifest import build_manifest
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1, groups=16),
                      nn.ReLU(), nn.MaxPool2d(4), nn.Conv2d(16, 16, 1), nn.ReLU(),
                      nn.Conv2d(16, 16, 3, padding=1, groups=16)).eval()
    x = torch.randn(1, 3, 32, 32)
    monkeypatch.setattr(L, "PLANES_GROWTH", 0.5)
    c = _compile(m, "auto", inputs=(x,), dsp_weights=True)
    dws = [step for step, k in enumerate(c.spec.instructions) if (k.op, k.overload) == DW]
    info = c.spec.plan_info[DW_PLANES_ARENA]
    assert c.spec.plan_info[DW_PLANES4] == dws
    assert info["budget"] == info["arena_without"] + int(info["arena_without"] * 0.5)
    assert info["arena_without"] < c.spec.arena_sizes[1] <= info["budget"]
    assert build_manifest(c.spec)["dw_planes"] == {"four": dws, "two": [], **info}
    _same_as_int8ref(c)
    s = _compile(m, "auto", inputs=(x,), dsp_weights=True, opt="size")
    info = s.spec.plan_info[DW_PLANES_ARENA]
    assert info["budget"] == info["arena_without"] == s.spec.arena_sizes[1]
    assert s.spec.plan_info[DW_PLANES4] == [dws[1]]
