"""int8 kernels on Cortex-M in QEMU: the DSP path (mps2-an505, Cortex-M33), the
MVE path (mps3-an547, Cortex-M55) and the plain reference (kernels/) on the M33
run embedded test vectors in a bare-metal harness (tests/kernels/int8_harness/);
every output byte must equal aot/compiler/quant/int8ref.py. Also measures instructions per call
(-icount shift=0, SysTick calibrated against a loop of known length) and prints
MACs per instruction; the figures go to build/int8_kernels_qemu.json."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aot.compiler.quant import int8ref as R
from aot.compiler.dsp_weights import LINEAR_PANEL_ARG, PANEL_ARG, call_panel, linear_panel

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "tests/kernels/int8_harness"
pytestmark = pytest.mark.sim

TARGETS = {
    # name: (machine, cpu flags, memory origin, memory length, kernel set)
    "m33-dsp": ("mps2-an505", ["-mcpu=cortex-m33", "-mfloat-abi=hard"], 0x10000000, 0x400000, "cmsis"),
    "m55-mve": ("mps3-an547", ["-mcpu=cortex-m55", "-mfloat-abi=hard"], 0x10000000, 0x80000, "cmsis"),
    "m33-ref": ("mps2-an505", ["-mcpu=cortex-m33", "-mfloat-abi=hard"], 0x10000000, 0x400000, "ref"),
    "m55-ref": ("mps3-an547", ["-mcpu=cortex-m55", "-mfloat-abi=hard"], 0x10000000, 0x80000, "ref"),
}
OPTIMIZED = ("conv2d_s8", "depthwise_conv2d_s8", "linear_s8", "linear_s4", "mean_s8", "add_s8",
             "pointwise_s8_planar16", "depthwise_planar16_s8")


def conv_scratch_bytes(cin, kh, kw, cout, prewidened=False):
    """mote_s8_conv_scratch_bytes() of kernels/requant.h."""
    kpad = (kh * kw * cin + 15) // 16 * 16
    rows = min((cout + 1) // 2 * 2, max(16, (16384 // (2 * kpad)) // 2 * 2))
    return (16 + 7 * kpad + (0 if prewidened else 2 * kpad * rows)
            + 32 * ((cout + 3) // 4 * 4))


def dw_scratch_bytes(cout, kh=3, kw=3, h=1, w=1, pad=(0, 0)):
    """mote_s8_dw_scratch_bytes() of kernels/requant.h: the largest of MVE's tables, its
    planes' int8 lines and the DSP path's int16 input plane."""
    mve = 4 * ((cout + 3) // 4 * 4) + (184 * (cout // 8) if (kh, kw) == (3, 3) else 0)
    hp, wp = h + 2 * pad[0], w + 2 * pad[1]
    lines = 60 * max(hp, wp) + 16 if (kh, kw) == (3, 3) and (hp - 2) * (wp - 2) >= 100 else 0
    plane = 2 * (h + 2 * pad[0]) * (w + 2 * pad[1]) if (kh, kw) == (3, 3) else 0
    return 16 + max(mve, lines, plane)


def _act(act, ozp):
    """(min, max), or "relu": [out_zp, 127] as the lowering emits for a fused ReLU."""
    return (ozp, 127) if act == "relu" else act


def _qp(rng, cout, k):
    ms = [R.quantize_multiplier(float(rng.uniform(0.3, 3.0) / (np.sqrt(k) * 40.0)))
          for _ in range(cout)]
    return (np.array([m for m, _ in ms], np.int32), np.array([s for _, s in ms], np.int32))


def _i8(rng, shape, pool=None, off=0):
    """Random int8 array, or a contiguous view into the shared pool (network cases:
    inputs and weights are slices of one embedded array to fit the M55's 512 KiB)."""
    if pool is None:
        return rng.integers(-128, 128, shape, dtype=np.int8)
    n = int(np.prod(shape))
    off = off % max(1, pool.size - n + 1)
    return pool[off:off + n].reshape(shape)


def _conv(rng, name, n, h, w, cin, cout, k, stride, pad, dil, act=(-128, 127), pool=None):
    x = _i8(rng, (n, h, w, cin), pool, 0)
    wt = _i8(rng, (cout, k[0], k[1], cin), pool, 7919)
    b = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qp(rng, cout, k[0] * k[1] * cin)
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    args = [x, wt, b, m, s, list(stride), list(pad), list(dil), izp, ozp, *_act(act, ozp)]
    out = R.conv2d_s8(*args)
    return dict(name=name, op="conv2d_s8", args=args, out=out,
                macs=out.size * k[0] * k[1] * cin,
                scratch=conv_scratch_bytes(cin, k[0], k[1], cout))


def _with_panel(c, suffix="_panel"):
    """conv case c with its pre-widened DSP weights and, when every channel admits
    it, the fast requantization table (the 14-argument form a program built for a
    DSP board carries); same output, less scratch. A linear_s8 case: its panel
    (11 arguments), or c itself when it admits none."""
    args = list(c["args"])
    if c["op"] == "linear_s8":
        p = linear_panel(*args[1:7])
        if p is None:
            return dict(c, name=c["name"] + suffix)
        args.insert(LINEAR_PANEL_ARG, p)
        return dict(c, name=c["name"] + suffix, args=args)
    args.insert(PANEL_ARG, call_panel(args[1], args[2], args[3], args[4], args[8], args[9]))
    k = args[1].shape
    return dict(c, name=c["name"] + suffix, args=args,
                scratch=conv_scratch_bytes(k[3], k[1], k[2], k[0], prewidened=True))


def _pw_eform(rng, name, n, h, w, cin, cout, bias=3000, qk=None):
    """A stride-1 pointwise conv with out_zp -128 and the range [-128, 127] (a fused
    ReLU), with its pre-widened weights and the E-form table (dsp_weights.eform_table:
    the DSP kernel's conv_rows_pwe)."""
    from aot.compiler.dsp_weights import EFORM_MARK
    x = _i8(rng, (n, h, w, cin))
    wt = _i8(rng, (cout, 1, 1, cin))
    b = rng.integers(-bias, bias, cout).astype(np.int32)
    m, s = _qp(rng, cout, qk or cin)   # qk: the multipliers of a K = qk layer (e in range)
    izp = int(rng.integers(-128, 128))
    args = [x, wt, b, m, s, [1, 1], [0, 0], [1, 1], izp, -128, -128, 127]
    out = R.conv2d_s8(*args)
    p = call_panel(wt, b, m, s, izp, -128, act=(-128, 127))
    nw = ((cout + 1) // 2 * 2) * ((cin + 3) // 4 * 4)
    assert int(p[nw:].astype("<i2").view("<i4")[6]) & EFORM_MARK, name   # the E-form
    args.insert(PANEL_ARG, p)
    return dict(name=name, op="conv2d_s8", args=args, out=out, macs=out.size * cin,
                scratch=conv_scratch_bytes(cin, 1, 1, cout, prewidened=True))


def _stem_eform(rng, name, n, h, w, cout, stride, bias=3000, pool=None):
    """A stem3x3c3 conv (3x3 over 3 channels, pad 1) with out_zp -128 and the range
    [-128, 127], with its pre-widened weights and the E-form table (the DSP kernel's
    conv_stem3_rows with the core mote_s8_dsp_conv3_e)."""
    from aot.compiler.dsp_weights import EFORM_MARK
    x = _i8(rng, (n, h, w, 3), pool, 0)
    wt = _i8(rng, (cout, 3, 3, 3), pool, 7919)
    b = rng.integers(-bias, bias, cout).astype(np.int32)
    m, s = _qp(rng, cout, 27)
    izp = int(rng.integers(-128, 128))
    args = [x, wt, b, m, s, [stride, stride], [1, 1], [1, 1], izp, -128, -128, 127]
    out = R.conv2d_s8(*args)
    p = call_panel(wt, b, m, s, izp, -128, act=(-128, 127))
    nw = ((cout + 1) // 2 * 2) * 28
    assert int(p[nw:].astype("<i2").view("<i4")[6]) & EFORM_MARK, name   # the E-form
    args.insert(PANEL_ARG, p)
    return dict(name=name, op="conv2d_s8", args=args, out=out, macs=out.size * 27,
                scratch=conv_scratch_bytes(3, 3, 3, cout, prewidened=True))


def _nchw(c):
    """conv2d_s8 case c (with its panel) as conv2d_s8_nchw: the input's NCHW bytes, the
    panel's taps in the NCHW column's order (dsp_weights.nchw_panel); the same output."""
    from aot.compiler.dsp_weights import nchw_panel
    args = list(c["args"])
    args[0] = np.ascontiguousarray(args[0].transpose(0, 3, 1, 2))
    args[PANEL_ARG] = nchw_panel(args[PANEL_ARG], args[1].shape[0])
    assert R.conv2d_s8_nchw(*args[:PANEL_ARG], *args[PANEL_ARG + 1:]).tobytes() == c["out"].tobytes()
    return dict(c, args=args, sym="mote_kernel_mote_conv2d_s8_nchw_out")


def _with_table(c, suffix="_table"):
    """linear_s8 case c with its requantization table alone (an int32 argument 9:
    the DSP kernel reads the int8 weights in place, aot.compiler.dsp_weights.linear_table)."""
    from aot.compiler.dsp_weights import linear_table
    args = list(c["args"])
    t = linear_table(*args[1:7])
    assert t is not None, c["name"]
    args.insert(LINEAR_PANEL_ARG, t)
    return dict(c, name=c["name"] + suffix, args=args)


def _dw(rng, name, n, h, w, cin, dm, k, stride, pad, dil, act=(-128, 127), pool=None):
    cout = cin * dm
    x = _i8(rng, (n, h, w, cin), pool, 0)
    wt = _i8(rng, (1, k[0], k[1], cout), pool, 7919)
    b = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qp(rng, cout, k[0] * k[1])
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    args = [x, wt, b, m, s, list(stride), list(pad), list(dil), dm, izp, ozp, *_act(act, ozp)]
    out = R.depthwise_conv2d_s8(*args)
    return dict(name=name, op="depthwise_conv2d_s8", args=args, out=out,
                macs=out.size * k[0] * k[1], scratch=dw_scratch_bytes(cout, *k, h, w, pad))


def _eform(c):
    """Depthwise case `c` with output zero point -128 (a fused ReLU's): the DSP planes'
    E-form of the requantization (mote_s8_dw_planar_eform) when its shifts admit it."""
    args = list(c["args"])
    args[10] = -128
    return dict(c, name=c["name"] + "_e", args=args, out=R.depthwise_conv2d_s8(*args))


def _dw2(c):
    """Depthwise case `c` with scratch for two int16 planes, not four
    (mote_s8_dw_planes2_bytes: the two channels widened at once)."""
    _, h, w, _ = c["args"][0].shape
    pad = c["args"][6]
    return dict(c, scratch=max(c["scratch"], 16 + 4 * (h + 2 * pad[0]) * (w + 2 * pad[1])))


def _with_record(c):
    """E-form depthwise case `c` with the DSP planes' per-channel record as argument 13
    (aot.compiler.dsp_weights.dw_record; the plane transposed as the kernel's rule says:
    output rows narrower than 8 and the columns longer)."""
    from aot.compiler.dsp_weights import DW_RECORD_ARG, dw_record
    args = list(c["args"])
    _, ho, wo, _ = c["out"].shape
    r = dw_record(args[1], args[2], args[3], args[4], args[10], wo < 8 and ho > wo)
    assert r is not None, c["name"]
    args.insert(DW_RECORD_ARG, r)
    return dict(c, name=c["name"] + "_rec", args=args)


def _dw4(c):
    """Depthwise case `c` with scratch for four int16 planes (mote_s8_dw_planes4_bytes)."""
    _, h, w, _ = c["args"][0].shape
    pad = c["args"][6]
    return dict(c, scratch=max(c["scratch"], 16 + 8 * (h + 2 * pad[0]) * (w + 2 * pad[1])))


def _pw_planar(rng, name, n, h, w, cin, cout, border, act=(-128, 127), pool=None, panel=True):
    """Pointwise writing the planar int16 layout (aot/compiler/layout.py); panel:
    the 11-argument form with the weights pre-widened for the DSP kernel."""
    from aot.compiler.dsp_weights import panel as dsp_panel
    x = _i8(rng, (n, h, w, cin), pool, 0)
    wt = _i8(rng, (cout, 1, 1, cin), pool, 7919)
    b = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qp(rng, cout, cin)
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    args = [x, wt, R.fold_input_zero_point(wt, b, izp), m, s, list(border), ozp, *_act(act, ozp)]
    out = R.pointwise_s8_planar16(*args)
    if panel:
        args.append(dsp_panel(wt).astype(np.int16))
    return dict(name=name, op="pointwise_s8_planar16", args=args, out=out,
                macs=n * h * w * cin * cout, scratch=16 + 4 * ((cin + 3) // 4 * 4) + 16 * cout)


def _dw_planar(rng, name, n, h, w, c, k, stride, pad, dil, act=(-128, 127), pool=None):
    """Depthwise reading the planar int16 layout: the input is int8ref.planar16 of an
    int8 activation (zero point subtracted, zero border of the padding)."""
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    if pool is None:
        x = R.planar16(_i8(rng, (n, h, w, c)), izp, pad)
    else:   # network cases: any int16 values, a view of the shared pool
        shape = (n, c, h + 2 * pad[0], w + 2 * pad[1])
        x = pool.view(np.int16)[:int(np.prod(shape))].reshape(shape)
    wt = _i8(rng, (1, k[0], k[1], c), pool, 7919)
    b = rng.integers(-3000, 3000, c).astype(np.int32)
    m, s = _qp(rng, c, k[0] * k[1])
    args = [x, wt, b, m, s, list(stride), list(pad), list(dil), ozp, *_act(act, ozp)]
    out = R.depthwise_planar16_s8(*args)
    return dict(name=name, op="depthwise_planar16_s8", args=args, out=out,
                macs=out.size * k[0] * k[1], scratch=0)


def _linear(rng, name, m, k, n, act=(-128, 127), pool=None):
    x = _i8(rng, (m, k), pool, 0)
    wt = _i8(rng, (n, k), pool, 7919)
    b = rng.integers(-3000, 3000, n).astype(np.int32)
    mm, s = _qp(rng, n, k)
    args = [x, wt, b, mm, s, int(rng.integers(-128, 128)), -4, *_act(act, -4)]
    out = R.linear_s8(*args)
    return dict(name=name, op="linear_s8", args=args, out=out, macs=m * k * n, scratch=0)


def _linear_s4(rng, name, m, k, n, act=(-128, 127)):
    """int8 x int4 linear (weight packed two per byte, kernels/int4.h)."""
    from aot.compiler.quant.int4ref import pack_int4
    x = rng.integers(-128, 128, (m, k), dtype=np.int8)
    wt = pack_int4(rng.integers(-8, 8, (n, k), dtype=np.int8))
    b = rng.integers(-3000, 3000, n).astype(np.int32)
    mm, s = _qp(rng, n, k)
    args = [x, wt, b, mm, s, int(rng.integers(-128, 128)), -4, *_act(act, -4)]
    return dict(name=name, op="linear_s4", args=args, out=R.linear_s4(*args), macs=m * k * n, scratch=0)


def make_cases():
    rng = np.random.default_rng(2026)
    cases = [
        _conv(rng, "dscnn_pw", 1, 25, 5, 64, 64, (1, 1), (1, 1), (0, 0), (1, 1)),
        _conv(rng, "conv3x3", 1, 16, 16, 16, 32, (3, 3), (1, 1), (1, 1), (1, 1)),
        _dw(rng, "dscnn_dw", 1, 25, 5, 64, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
        _linear(rng, "fc256x64", 1, 256, 64),
        _conv(rng, "conv_odd", 1, 7, 6, 5, 7, (3, 3), (2, 2), (1, 1), (1, 1), (-20, 60)),
        _conv(rng, "conv_dil", 2, 9, 8, 3, 17, (3, 2), (1, 2), (2, 1), (2, 1)),
        _conv(rng, "conv_first", 1, 49, 10, 1, 17, (10, 4), (2, 2), (5, 1), (1, 1), (0, 127)),
        _dw(rng, "dw_mult2", 1, 7, 6, 5, 2, (3, 3), (2, 1), (1, 1), (1, 1)),
        _dw(rng, "dw_odd", 1, 6, 7, 17, 1, (3, 3), (1, 2), (2, 2), (2, 2)),
        _linear(rng, "fc_odd", 3, 17, 7),
    ]
    # requantization edges: multipliers 0 / 2^30 / 2^31-1, shifts -31..31, biases at
    # the int32 limits (DSP general path, MVE vector requantization)
    n = 63
    mults = np.array([0, 1 << 30, (1 << 31) - 1, 1518500250, 1431655765] * 13, np.int64)[:n]
    shifts = np.arange(-31, 32, dtype=np.int64)
    rng.shuffle(shifts)
    bias = np.concatenate([np.array([R.INT32_MIN, R.INT32_MAX, -1, 1, 0, 3, -3, 1 << 20,
                                     -(1 << 20), (1 << 30) + 1, -(1 << 30) - 1, 0x4000, -0x4000]),
                           rng.integers(-(1 << 31), 1 << 31, n - 13)]).astype(np.int32)
    for name, x0, zp in (("lin_edges_a", 127, -128), ("lin_edges_b", -128, 127)):
        x = np.array([[x0], [1], [0]], np.int8)
        wt = rng.integers(-128, 128, (n, 1), dtype=np.int8)
        args = [x, wt, bias, mults.astype(np.int32), shifts.astype(np.int32), zp, -3, -128, 127]
        cases.append(dict(name=name, op="linear_s8", args=args, out=R.linear_s8(*args),
                          macs=0, scratch=0))
    x = rng.integers(-128, 128, (1, 4, 5, 8), dtype=np.int8)
    wt = rng.integers(-128, 128, (n, 1, 1, 8), dtype=np.int8)
    args = [x, wt, bias, mults.astype(np.int32), shifts.astype(np.int32), [1, 1], [0, 0],
            [1, 1], 9, -3, -128, 127]
    cases.append(dict(name="conv_edges", op="conv2d_s8", args=args, out=R.conv2d_s8(*args),
                      macs=0, scratch=conv_scratch_bytes(8, 1, 1, n)))
    xd = rng.integers(-128, 128, (1, 4, 5, n), dtype=np.int8)
    wd = rng.integers(-128, 128, (1, 3, 3, n), dtype=np.int8)
    args = [xd, wd, bias, mults.astype(np.int32), shifts.astype(np.int32), [1, 1], [1, 1],
            [1, 1], 1, 9, -3, -128, 127]
    cases.append(dict(name="dw_edges", op="depthwise_conv2d_s8", args=args,
                      out=R.depthwise_conv2d_s8(*args), macs=0, scratch=dw_scratch_bytes(n, 3, 3, 4, 5, (1, 1))))
    # the planar int16 pair: DS-CNN's shapes, MobileNet's stride 2, odd sizes with relu
    # clamps and channel tails, windows of the plain path, requantization edges
    cases += [_pw_planar(rng, "dscnn_pw_planar", 1, 25, 5, 64, 64, (1, 1)),
              _pw_planar(rng, "pw_planar_nopanel", 1, 10, 5, 64, 64, (1, 1), "relu", panel=False),
              _dw_planar(rng, "dscnn_dw_planar", 1, 25, 5, 64, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw_planar(rng, "dw_planar_s1", 1, 12, 12, 16, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw_planar(rng, "dw_planar_s2", 1, 12, 12, 16, (3, 3), (2, 2), (1, 1), (1, 1)),
              _dw_planar(rng, "dw_planar_relu", 1, 6, 10, 8, (3, 3), (1, 1), (1, 1), (1, 1), "relu"),
              _dw_planar(rng, "dw_planar_odd", 1, 7, 9, 5, (3, 3), (2, 2), (1, 1), (1, 1), (-20, 90)),
              _dw_planar(rng, "dw_planar_odd_s1", 2, 5, 7, 3, (3, 3), (1, 1), (1, 1), (1, 1), (-60, 100)),
              _dw_planar(rng, "dw_planar_5x5", 1, 9, 8, 6, (5, 5), (2, 1), (2, 2), (1, 1)),
              _pw_planar(rng, "pw_planar_odd", 1, 5, 3, 12, 7, (1, 2), (-20, 90)),
              _pw_planar(rng, "pw_planar_cin3", 1, 4, 5, 3, 4, (1, 1)),
              _pw_planar(rng, "pw_planar_cin3_plain", 1, 4, 5, 3, 4, (1, 1), panel=False)]
    xe = R.planar16(rng.integers(-128, 128, (1, 4, 5, n), dtype=np.int8), 9, (1, 1))
    args = [xe, wd, bias, mults.astype(np.int32), shifts.astype(np.int32), [1, 1], [1, 1], [1, 1],
            -3, -128, 127]
    cases.append(dict(name="dw_planar_edges", op="depthwise_planar16_s8", args=args,
                      out=R.depthwise_planar16_s8(*args), macs=0, scratch=0))
    args = [x, wt, bias, mults.astype(np.int32), shifts.astype(np.int32), [1, 1], -3, -128, 127]
    from aot.compiler.dsp_weights import panel as dsp_panel
    cases.append(dict(name="pw_planar_edges", op="pointwise_s8_planar16",
                      args=args + [dsp_panel(wt).astype(np.int16)],
                      out=R.pointwise_s8_planar16(*args), macs=0, scratch=48 + 16 * n))
    # depthwise through the DSP path's int16 plane (full int8 range): DS-CNN's 25x5 map
    # (transposed plane), MobileNet-like stride 1 and 2, odd sizes
    cases += [_dw(rng, "dscnn_dw_full", 1, 25, 5, 64, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw(rng, "dw_full_s1", 1, 12, 12, 16, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw(rng, "dw_full_s2", 1, 12, 12, 16, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              _dw(rng, "dw_full_odd", 2, 7, 9, 5, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              _dw(rng, "dw_full_nopad", 1, 9, 10, 12, 1, (3, 3), (1, 1), (0, 0), (1, 1))]
    # depthwise through the MVE planes (mote_s8_dw_variant: 100+ outputs per channel,
    # 400+ with a stride 2): stride 2 along and across the lines, unpadded odd sizes,
    # mixed strides, a batch of two, clamps; and the NHWC path's border pixels with a
    # channel tail (a 6x6 -> 3x3 map)
    cases += [_dw(rng, "dw_planes_s2", 1, 40, 41, 1, 1, (3, 3), (2, 2), (1, 1), (1, 1), (-20, 90)),
              _dw(rng, "dw_planes_s2_nopad", 1, 45, 41, 1, 1, (3, 3), (2, 2), (0, 0), (1, 1), "relu"),
              _dw(rng, "dw_planes_s12", 1, 30, 28, 1, 1, (3, 3), (1, 2), (1, 1), (1, 1)),
              _dw(rng, "dw_planes_batch", 2, 11, 10, 3, 1, (3, 3), (1, 1), (1, 1), (1, 1), "relu"),
              _dw(rng, "dw_nhwc_border", 1, 6, 6, 20, 1, (3, 3), (2, 2), (1, 1), (1, 1), "relu"),
              # the DSP's int16 planes over rows of 4..15 outputs (the last block of a row
              # over its last four columns, a 1x6 block for 2 mod 4): 6 wide, 7 tall (transposed), stride 2 9 wide
              _dw(rng, "dw_dsp_wo6", 1, 6, 6, 8, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_ho7", 1, 7, 5, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_s2_wo9", 1, 16, 17, 4, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              # rows of 10 (a 1x4 block, then the 1x6 one), along W and transposed
              _dw(rng, "dw_dsp_wo10", 1, 5, 10, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_ho10", 1, 10, 5, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              # rows of three (the 1x3 block): MobileNet's 3x3 map, and 2 rows of 3
              _dw(rng, "dw_dsp_wo3", 1, 3, 3, 8, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_2x3", 1, 2, 3, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
              # stride 2 rows of 6 (the 1x6 block: MobileNet's 12 -> 6) and 10, transposed
              _dw(rng, "dw_dsp_s2_wo6", 1, 12, 12, 8, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_s2_wo10", 1, 10, 20, 4, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_s2_ho6", 1, 12, 5, 4, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              # stride 2 rows of three (the 1x3 block: MobileNet's 6 -> 3), transposed
              _dw(rng, "dw_dsp_s2_wo3", 1, 6, 6, 8, 1, (3, 3), (2, 2), (1, 1), (1, 1)),
              _dw(rng, "dw_dsp_s2_ho3", 1, 6, 4, 4, 1, (3, 3), (2, 2), (1, 1), (1, 1))]
    # the same with scratch for four planes (mote_s8_dw_planes4_bytes: the four channels
    # widened at once): odd rows of 7 and 9 (stride 2), rows of 6 and 3, a transposed
    # plane with columns of 7, rows of MobileNet's 48 -> 24 map
    cases += [_dw4(_dw(rng, name, *shape, 1, (3, 3), st, (1, 1), (1, 1)))
              for name, shape, st in (("dw4_wo7", (1, 6, 7, 8), (1, 1)), ("dw4_s2_wo9", (1, 9, 17, 8), (2, 2)),
                                      ("dw4_wo6", (1, 6, 6, 12), (1, 1)), ("dw4_wo3", (1, 3, 3, 8), (1, 1)),
                                      ("dw4_s2_wo3", (1, 6, 6, 4), (2, 2)), ("dw4_ho7", (1, 7, 5, 8), (1, 1)),
                                      ("dw4_s2_48", (1, 8, 48, 8), (2, 2)))]
    # the E-form (out_zp -128): every block (1x4, 1x6, 1x3, strides 1 and 2, transposed),
    # one plane and four at a time
    cases += [_eform(c) for c in cases if c["name"] in (
        "dscnn_dw_full", "dw_full_s1", "dw_dsp_wo6", "dw_dsp_ho7", "dw_dsp_wo3", "dw_dsp_s2_wo6", "dw_dsp_s2_wo3",
        "dw4_s2_wo9")]
    # the E-form's 1x8 block: rows of 8n + 4 + 1, 8n + 1 and 8n outputs, four planes and one
    cases += [_eform(c) for c in (_dw4(_dw(rng, "dw4_wo21", 1, 4, 21, 8, 1, (3, 3), (1, 1), (1, 1), (1, 1))),
                                  _dw(rng, "dw_wo17", 1, 4, 17, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1)),
                                  _dw(rng, "dw_wo16", 1, 3, 16, 4, 1, (3, 3), (1, 1), (1, 1), (1, 1)))]
    # two planes at a time (scratch under four): odd rows, stride 2, transposed, the E-form
    cases += [_dw2(_dw(rng, name, *shape, 1, (3, 3), st, (1, 1), (1, 1)))
              for name, shape, st in (("dw2_wo7", (1, 6, 7, 6), (1, 1)), ("dw2_s2_wo9", (1, 9, 17, 2), (2, 2)),
                                      ("dw2_ho7", (1, 7, 5, 2), (1, 1)), ("dw2_c8", (1, 5, 9, 8), (1, 1)))]
    cases += [_eform(c) for c in cases if c["name"] in ("dw2_wo7", "dw2_s2_wo9", "dw2_c8")]
    # the same blocks with the program's per-channel record (argument 13)
    cases += [_with_record(c) for c in cases if c["name"] in (
        "dw_dsp_wo6_e", "dw_dsp_ho7_e", "dw_dsp_wo3_e", "dw_dsp_s2_wo6_e", "dw4_wo21_e", "dw2_c8_e")]
    xp = rng.integers(-128, 128, (1, 10, 10, n), dtype=np.int8)
    args = [xp, wd, bias, mults.astype(np.int32), shifts.astype(np.int32), [1, 1], [1, 1],
            [1, 1], 1, 9, -3, -128, 127]
    cases.append(dict(name="dw_planes_edges", op="depthwise_conv2d_s8", args=args,
                      out=R.depthwise_conv2d_s8(*args), macs=0,
                      scratch=dw_scratch_bytes(n, 3, 3, 10, 10, (1, 1))))
    # depthwise: a row too wide for the DSP strip (per-pixel windows), a 5x5 window
    # (generic tap loops), relu clamps, an unpadded stride-2 case
    cases += [_dw(rng, "dw_wide", 1, 4, 90, 12, 1, (3, 3), (1, 1), (1, 1), (1, 1), "relu"),
              _dw(rng, "dw_5x5", 1, 9, 8, 16, 1, (5, 5), (2, 1), (2, 2), (1, 1), (-20, 90)),
              _dw(rng, "dw_s2_nopad", 1, 9, 9, 24, 1, (3, 3), (2, 2), (0, 0), (1, 1), "relu"),
              # linear: K beyond one DSP chunk of 256 taps (and K % 4 != 0), 1x1 conv K=8
              _linear(rng, "fc_long", 2, 603, 6, "relu"),
              _conv(rng, "pw_k8", 1, 6, 5, 8, 6, (1, 1), (2, 1), (0, 0), (1, 1), "relu"),
              # window variant: Cin 12 (a word past the 8-byte steps), padding beyond the
              # kernel's reach in W, dilation in H; dilation in W (the tap-by-tap path)
              _conv(rng, "win_c12", 1, 7, 9, 12, 6, (3, 5), (2, 1), (2, 3), (2, 1), (-20, 60)),
              _conv(rng, "win_dilw", 1, 6, 8, 4, 5, (2, 3), (1, 2), (1, 2), (1, 2)),
              # int4 weights: tinylm's shapes (64 -> 192, 64 -> 256 -> 64), a long odd-chunk row,
              # K % 8 and K % 32 tails, one feature, relu
              _linear_s4(rng, "s4_64x192", 1, 64, 192),
              _linear_s4(rng, "s4_256x64", 2, 256, 64, "relu"),
              _linear_s4(rng, "s4_long", 1, 602, 5),
              _linear_s4(rng, "s4_tail", 3, 38, 7),
              _linear_s4(rng, "s4_one", 1, 10, 1)]
    # the same convolutions with pre-widened weights (programs for DSP boards)
    cases += [_with_panel(c) for c in cases
              if c["name"] in ("dscnn_pw", "conv3x3", "conv_odd", "conv_first", "pw_k8",
                               "win_c12", "win_dilw", "conv_edges", "fc256x64", "fc_odd")]
    # stride-1 pointwise layers of small K with the E-form table: VWW's K = 8 -> 16,
    # K = 16 (pixel counts not multiples of 3), K = 32 -> 12 over two images, K = 4,
    # K = 12 -> 2 (one channel pair), a large bias
    cases += [_pw_eform(rng, "pwe_k8", 1, 5, 4, 8, 16), _pw_eform(rng, "pwe_k16", 1, 4, 5, 16, 16),
              _pw_eform(rng, "pwe_k32", 2, 1, 3, 32, 12), _pw_eform(rng, "pwe_k4", 1, 3, 3, 4, 6, qk=32),
              _pw_eform(rng, "pwe_k12", 1, 4, 4, 12, 2), _pw_eform(rng, "pwe_bias", 1, 4, 5, 8, 8, 1 << 20),
              _pw_eform(rng, "pwe_k8c2", 1, 4, 5, 8, 2),   # K = 8, no room for a block: triples
              _pw_eform(rng, "pwe_k128", 1, 1, 3, 128, 2, qk=32)]   # conv_rows, 16-group passes
    # an E-form table edited outside the core's range: refused by the DSP kernel (d = 0,
    # d = 8, a bias not a multiple of 2^(1+d), the two copies of a bias unequal)
    ebase = _pw_eform(rng, "pwe_bad", 1, 2, 3, 8, 4)
    for tag, (word, value) in {"d0": (6, 0x100), "d8": (9, 0x108), "bodd": (0, 6), "bpair": (3, 8)}.items():
        pe = ebase["args"][PANEL_ARG].copy()
        nw = 4 * 8
        t = pe[nw:].astype("<i2").view("<i4").copy()
        t[word] = value
        pe[nw:] = t.view("<i2")
        args = list(ebase["args"])
        args[PANEL_ARG] = pe
        cases.append(dict(ebase, name=f"pwe_bad_{tag}", args=args, dsp_rc="KERNEL_ARGS"))
    # linear layers reading their int8 weights in place with the table (K % 4 = 0..3,
    # N % 4 = 0..3 with N >= 4, batch > 1, clamps narrower than int8): the AD
    # autoencoder's 640-tap first layer (32 of its 128 features), a one-group K, K = 5 (the tail alone after one group)
    cases += [_with_table(c) for c in cases if c["name"] in ("fc256x64", "fc_odd", "fc_long")]
    cases += [_with_table(_linear(rng, "fc640x32", 1, 640, 32)),
              _with_table(_linear(rng, "fc_k4", 2, 4, 5, (-30, 40))),
              _with_table(_linear(rng, "fc_k5", 3, 5, 4, "relu")),
              _with_table(_linear(rng, "fc_k130", 2, 130, 9, (-100, 20)))]
    # tables outside the cores' fast requantization: the DSP kernel refuses them (the
    # reference kernel ignores argument 9, the MVE one reads only its corrected bias);
    # just inside: accepted (the bytes then follow the edited table, not the reference)
    base = _with_table(_linear(rng, "fc_badtab", 1, 20, 8))
    lim2 = (1 << 31) - 20 * 32768
    for tag, (word, value, ok) in {
            "b2odd": (0, 1001, False), "b2hi": (1, lim2, False), "b2lo": (2, -lim2, False),
            "m2p30": (4, 1 << 30, False), "mneg": (7, -1, False), "e0": (6, 0, False),
            "e23": (9, 23, False), "b2in": (3, lim2 - 2, True), "e22": (12, 22, True),
            "mmax": (13, (1 << 31) - 1, True)}.items():
        t = base["args"][LINEAR_PANEL_ARG].copy()
        t[16 + word] = value        # the second block (rows 4..7)
        args = list(base["args"])
        args[LINEAR_PANEL_ARG] = t
        cases.append(dict(base, name=f"fc_tab_{tag}", args=args, dsp_rc=None if ok else "KERNEL_ARGS"))
    # a shift outside [-31, 31] or a negative multiplier in any lane (the MVE check
    # takes four channels a step, the last ones predicated): refused everywhere
    base = _linear(rng, "fc_chan", 1, 8, 10)
    for tag, (ch, word, value) in {"sh32": (6, 4, 32), "shm32": (0, 4, -32), "mneg": (9, 3, -5)}.items():
        args = list(base["args"])
        args[word] = args[word].copy()
        args[word][ch] = value
        cases.append(dict(base, name=f"fc_chan_{tag}", args=args, rc_all="KERNEL_ARGS"))
    # the same in a convolution's general path and its panel's (the DSP kernel checks the
    # multipliers and shifts at its table, not at parse: only its E-form reads none of them)
    for base in (_conv(rng, "conv_chan", 1, 1, 2, 4, 6, (1, 1), (1, 1), (0, 0), (1, 1)),
                 _with_panel(_conv(rng, "conv_chan", 1, 1, 2, 4, 6, (1, 1), (1, 1), (0, 0), (1, 1)))):
        for tag, (ch, word, value) in {"sh32": (5, 4, 32), "shm32": (0, 4, -32), "mneg": (3, 3, -5)}.items():
            args = list(base["args"])
            args[word] = args[word].copy()
            args[word][ch] = value
            cases.append(dict(base, name=f"{base['name']}_{tag}", args=args, rc_all="KERNEL_ARGS",
                              shared_out=True))
    # fewer than four features (VWW's 256 -> 2; N = 3 with a tail of 3 taps, batch 2)
    cases += [_linear(rng, "fc256to2", 1, 256, 2), _linear(rng, "fc_n3", 2, 35, 3, (-50, 50))]
    a = rng.integers(-128, 128, (1, 5, 3, 7), dtype=np.int8)
    b = rng.integers(-128, 128, (1, 5, 3, 7), dtype=np.int8)
    p = R.add_params(0.02, 0.05, 0.06)
    args = [a, b, 3, p["a_multiplier"], p["a_shift"], -7, p["b_multiplier"], p["b_shift"],
            p["left_shift"], -2, p["output_multiplier"], p["output_shift"], -128, 127]
    cases.append(dict(name="add", op="add_s8", args=args, out=R.add_s8(*args), macs=0, scratch=0))
    cases += _add_cases(rng)
    m, s = R.quantize_multiplier(0.9 / 15)
    args = [a, 4, -6, m, s]
    cases.append(dict(name="mean", op="mean_s8", args=args, out=R.mean_s8(*args), macs=0,
                      scratch=0))
    # global average pools: DS-CNN's (25x5x64), and 288 pixels of extreme values (the
    # DSP kernel's int16 pair sums move to int32 every 256 pixels; 16-channel passes past a
    # flush: mean_long17 with the one-pixel cases, whose image has room)
    for name, x, izp in (("mean_dscnn", rng.integers(-128, 128, (1, 25, 5, 64), dtype=np.int8), -128),
                         ("mean_long", np.where(rng.random((1, 18, 16, 9)) < 0.5, -128, 127)
                          .astype(np.int8), 127)):
        m, s = R.quantize_multiplier(0.8 / (x.shape[1] * x.shape[2]))
        args = [x, izp, 5, m, s]
        cases.append(dict(name=name, op="mean_s8", args=args, out=R.mean_s8(*args), macs=0,
                          scratch=0))
    args = [a, [3, 3], [2, 2], [1, 1], False, -5, -100, 120]
    cases.append(dict(name="avgpool", op="avg_pool2d_s8", args=args,
                      out=R.avg_pool2d_s8(*args), macs=0, scratch=0))
    # softmax: random rows, rows near the max with a short diff_min (scale 1.0), and
    # a wide row whose sum of exps puts the final shift above 31
    for name, x, scale in (
            ("softmax", rng.integers(-128, 128, (3, 37), dtype=np.int8), 0.05),
            ("softmax_steep", rng.integers(100, 128, (2, 2, 9), dtype=np.int8), 1.0),
            ("softmax_wide", rng.integers(-20, 20, (1, 1000), dtype=np.int8), 0.002)):
        args = [x, *R.softmax_params(scale)]
        cases.append(dict(name=name, op="softmax_s8", args=args, out=R.softmax_s8(*args),
                          macs=0, scratch=0))
    cases += _resize_cases()
    for c in cases:  # one output buffer for the larger outputs (the M55's 512 KiB)
        if c["out"].nbytes >= 1000:
            c["shared_out"] = True
    return cases


def _conv_eform(rng, name, n, h, w, cin, cout, k, stride=(1, 1), pad=(0, 0), dil=(1, 1)):
    """A conv with out_zp -128 and the range [-128, 127] (a fused ReLU) with its
    pre-widened weights and the E-form table, any window (the DSP kernel's conv_rows)."""
    from aot.compiler.dsp_weights import EFORM_MARK
    x = _i8(rng, (n, h, w, cin))
    wt = _i8(rng, (cout, k[0], k[1], cin))
    b = rng.integers(-3000, 3000, cout).astype(np.int32)
    m, s = _qp(rng, cout, k[0] * k[1] * cin)
    izp = int(rng.integers(-128, 128))
    args = [x, wt, b, m, s, list(stride), list(pad), list(dil), izp, -128, -128, 127]
    out = R.conv2d_s8(*args)
    p = call_panel(wt, b, m, s, izp, -128, act=(-128, 127))
    kp = (k[0] * k[1] * cin + 3) // 4 * 4
    assert int(p[((cout + 1) // 2 * 2) * kp:].astype("<i2").view("<i4")[6]) & EFORM_MARK, name
    args.insert(PANEL_ARG, p)
    return dict(name=name, op="conv2d_s8", args=args, out=out, macs=out.size * k[0] * k[1] * cin,
                scratch=conv_scratch_bytes(cin, k[0], k[1], cout, prewidened=True))


def _one_pixel_cases():
    """Issue 38's streaming keyword spotter: calls with one output pixel (a dilated
    Conv1d over its history as a 1x(2d+1) map; the DSP depthwise kernel's dw_one_pixel,
    the E-form conv's one-pixel core), and the pool over time of [N, T] as [N, T, 1, 1]
    (mean_s8 with one channel: one contiguous run per image). Also: padding taps left
    out of a one-pixel window, two images, ReLU clamps, a 2x3 dilated window, the
    requantization edges on 64 channels; one-pixel cores with K not a multiple of 16
    (the computed entry) and the last pixel of a call (4 pixels: a triple, then one);
    runs of 3 (plain loop), 4, 5 and 1000 bytes of extreme values (the sum wraps
    nowhere: 127 * 1000 fits; the 0..3 bytes at both ends of every start alignment)."""
    rng = np.random.default_rng(38)
    L = [_dw(rng, f"dw_one_d{d}", 1, 1, 2 * d + 1, 64, 1, (1, 3), (1, 1), (0, 0), (1, d)) for d in (1, 8)]
    L += [_dw(rng, "dw_one_pad", 2, 1, 2, 8, 1, (1, 3), (1, 2), (0, 1), (1, 1), "relu"),
          _dw(rng, "dw_one_2x3", 1, 3, 5, 16, 1, (2, 3), (2, 2), (0, 0), (2, 2), (-20, 90)),
          _dw(rng, "dw_one_odd", 1, 1, 3, 6, 1, (1, 3), (1, 1), (0, 0), (1, 1))]   # Cout % 4: groups
    n = 64
    mults = np.array([0, 1 << 30, (1 << 31) - 1, 1518500250, 1431655765] * 13, np.int64)[:n]
    shifts = np.concatenate([np.arange(-31, 32), [-5]]).astype(np.int64)
    rng.shuffle(shifts)
    bias = np.concatenate([np.array([R.INT32_MIN, R.INT32_MAX, -1, 1, 0, 3, -3, 1 << 20, -(1 << 20),
                                     (1 << 30) + 1, -(1 << 30) - 1, 0x4000, -0x4000]),
                           rng.integers(-(1 << 31), 1 << 31, n - 13)]).astype(np.int32)
    xd = rng.integers(-128, 128, (1, 1, 5, n), dtype=np.int8)
    wd = rng.integers(-128, 128, (1, 1, 3, n), dtype=np.int8)
    args = [xd, wd, bias, mults.astype(np.int32), shifts.astype(np.int32), [1, 1], [0, 0], [1, 2], 1, 9, -3,
            -128, 127]
    L.append(dict(name="dw_one_edges", op="depthwise_conv2d_s8", args=args, out=R.depthwise_conv2d_s8(*args),
                  macs=0, scratch=dw_scratch_bytes(n, 1, 3, 1, 5)))
    L += [_pw_eform(rng, "pwe_one_k64", 1, 1, 1, 64, 64), _pw_eform(rng, "pwe_one_k40", 1, 1, 1, 40, 8),
          _pw_eform(rng, "pwe_4px_k44", 1, 2, 2, 44, 10),
          _conv_eform(rng, "conv_one_1x3", 1, 1, 3, 40, 64, (1, 3)),
          _conv_eform(rng, "conv_one_pad", 2, 1, 2, 12, 6, (1, 3), pad=(0, 1), stride=(1, 2))]
    for name, x, izp in (("mean_c1", rng.integers(-128, 128, (64, 97, 1, 1), dtype=np.int8), -3),
                         ("mean_c1_short", rng.integers(-128, 128, (7, 3, 1, 1), dtype=np.int8), 100),
                         ("mean_c1_4", rng.integers(-128, 128, (9, 2, 2, 1), dtype=np.int8), -128),
                         ("mean_c1_5", rng.integers(-128, 128, (7, 5, 1, 1), dtype=np.int8), 7),
                         ("mean_c1_long", np.where(rng.random((3, 1000, 1, 1)) < 0.5, -128, 127)
                          .astype(np.int8), 127),
                         # 257 extreme pixels of 17 channels: 16 a pass, then one, past a flush
                         ("mean_long17", np.where(rng.random((1, 257, 1, 17)) < 0.5, -128, 127)
                          .astype(np.int8), -128)):
        m, s = R.quantize_multiplier(0.8 / (x.shape[1] * x.shape[2]))
        args = [x, izp, 5, m, s]
        L.append(dict(name=name, op="mean_s8", args=args, out=R.mean_s8(*args), macs=0, scratch=0))
    return L


def _add_cases(rng):
    """add_s8 through each DSP core (kernels: a power input first / after the swap,
    two general inputs, two power inputs), the C tail (lengths not a multiple of 4),
    saturation at both ends, relu, and arguments no core takes (input shift 0 with a
    multiplier other than 2^30, output shift 0: the reference's arithmetic)."""
    m30, mmax = 1 << 30, (1 << 31) - 1
    cases = []
    for name, shape, (sa, sb, so), zps, act in (
            ("add_resnet", (1, 4, 4, 32), (0.05, 0.03, 0.06), (-128, 3, -128), "relu"),
            ("add_swap_odd", (1, 3, 5, 7), (0.01, 0.04, 0.03), (127, -128, 5), (-128, 127)),
            ("add_same_scale", (2, 19), (0.02, 0.02, 0.05), (-7, 9, -1), (-100, 100)),
            ("add_saturate", (1, 4, 3, 5), (0.5, 0.3, 0.004), (0, -3, 2), (-128, 127))):
        a = rng.integers(-128, 128, shape, dtype=np.int8)
        b = rng.integers(-128, 128, shape, dtype=np.int8)
        p = R.add_params(sa, sb, so)
        args = [a, b, zps[0], p["a_multiplier"], p["a_shift"], zps[1], p["b_multiplier"],
                p["b_shift"], p["left_shift"], zps[2], p["output_multiplier"],
                p["output_shift"], *_act(act, zps[2])]
        cases.append(dict(name=name, op="add_s8", args=args, out=R.add_s8(*args), macs=0,
                          scratch=0))
    a = rng.integers(-128, 128, (1, 6, 7, 5), dtype=np.int8)
    b = rng.integers(-128, 128, (1, 6, 7, 5), dtype=np.int8)
    for name, (ma, sha), (mb, shb), (mo, sho) in (
            ("add_gen_gen", (mmax, -3), (1518500250, -1), (1431655765, -19)),
            ("add_shift0", (mmax, 0), (m30, -1), (mmax, -20)),
            ("add_out_shift0", (m30, 0), (mmax, -1), (m30, 0))):
        args = [a, b, -3, ma, sha, 11, mb, shb, 20, -9, mo, sho, -128, 127]
        cases.append(dict(name=name, op="add_s8", args=args, out=R.add_s8(*args), macs=0,
                          scratch=0))
    return cases


def _resize_cases():
    """Transposed convolution (unet_small's up2; groups 2 with output padding and a
    clamp) and nearest / bilinear upsampling (portable kernels on every target)."""
    rng = np.random.default_rng(7)
    cases = []
    for name, (h, w, cin, cout, g, k, st, pd, op, dl, act) in (
            ("tconv_unet", (8, 8, 32, 16, 1, (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), (-128, 127))),
            ("tconv_g2", (5, 4, 4, 6, 2, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (-20, 127)))):
        m, s = _qp(rng, cout, k[0] * k[1] * cin // g)
        args = [_i8(rng, (1, h, w, cin)), _i8(rng, (cout, k[0], k[1], cin // g)),
                rng.integers(-3000, 3000, cout).astype(np.int32), m, s, list(st), list(pd),
                list(op), list(dl), g, int(rng.integers(-128, 128)), int(rng.integers(-128, 128)),
                *act]
        cases.append(dict(name=name, op="conv_transpose2d_s8", args=args,
                          out=R.conv_transpose2d_s8(*args), macs=0, scratch=0))
    x = _i8(rng, (1, 5, 4, 6))
    ih, iw = np.array([0, 0, 1, 2, 2, 3, 4, 4], np.int32), np.array([0, 1, 1, 2, 3, 3, 3], np.int32)
    cases.append(dict(name="nearest", op="upsample_nearest2d_s8", args=[x, ih, iw],
                      out=R.upsample_nearest2d_s8(x, ih, iw), macs=0, scratch=0))
    for name, size, ac in (("bilinear_x2", (10, 8), False), ("bilinear_ac", (13, 7), True)):
        steps = [R.upsample_scale_q32(5, size[0], ac), R.upsample_scale_q32(4, size[1], ac)]
        args = [x, list(size), ac, steps]
        cases.append(dict(name=name, op="upsample_bilinear2d_s8", args=args,
                          out=R.upsample_bilinear2d_s8(*args), macs=0, scratch=0))
    return cases


# Whole-network layer lists: every conv / depthwise / linear layer of the zoo's
# DS-CNN, MobileNetV1-0.25 and ResNet-8 with its real shape, stride, padding and
# fused activation; a shape that repeats is measured once and counted `count`
# times. Pools, adds and softmax are left out (a few thousand instructions).
# Estimated whole-network MACs per instruction = sum(MACs) / sum(instructions).
def _mobilenet_layers(rng, pool):
    L = [(_conv(rng, "conv1_3x3s2_3to8", 1, 96, 96, 3, 8, (3, 3), (2, 2), (1, 1), (1, 1),
                "relu", pool), 1)]
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1),
              (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]
    hw, cin, seen = 48, 8, {}
    for cout, st in blocks:
        ho = (hw - 1) // st + 1
        key = (hw, cin, cout, st)
        if key in seen:
            seen[key][0][1] += 1
            seen[key][1][1] += 1
        else:
            dw = [_dw(rng, f"dw{cin}_{hw}s{st}", 1, hw, hw, cin, 1, (3, 3), (st, st), (1, 1),
                      (1, 1), "relu", pool), 1]
            pw = [_conv(rng, f"pw{cin}to{cout}_{ho}", 1, ho, ho, cin, cout, (1, 1), (1, 1),
                        (0, 0), (1, 1), "relu", pool), 1]
            seen[key] = (dw, pw)
            L += [dw, pw]
        hw, cin = ho, cout
    L.append((_linear(rng, "fc256to2", 1, 256, 2, pool=pool), 1))
    return [tuple(x) for x in L]


def _mobilenet_planar_layers(rng, pool):
    """MobileNetV1-0.25 as `--layout planar` compiles it: each pointwise that feeds a
    depthwise writes the planar int16 layout and that depthwise reads it (the first
    depthwise reads the stem conv's NHWC output; the last pointwise writes NHWC)."""
    L = [(_conv(rng, "conv1_3x3s2_3to8", 1, 96, 96, 3, 8, (3, 3), (2, 2), (1, 1), (1, 1),
                "relu", pool), 1)]
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1),
              (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]
    hw, cin, seen = 48, 8, {}
    for i, (cout, st) in enumerate(blocks):
        ho = (hw - 1) // st + 1
        nxt = blocks[i + 1][1] if i + 1 < len(blocks) else None
        key = (hw, cin, cout, st, i == 0, nxt is None)
        if key in seen:
            for e in seen[key]:
                e[1] += 1
            hw, cin = ho, cout
            continue
        if i == 0:
            dw = [_dw(rng, f"dw{cin}_{hw}s{st}", 1, hw, hw, cin, 1, (3, 3), (st, st), (1, 1), (1, 1), "relu",
                      pool), 1]
        else:
            dw = [_dw_planar(rng, f"dwp{cin}_{hw}s{st}", 1, hw, hw, cin, (3, 3), (st, st), (1, 1), (1, 1),
                             pool=pool), 1]
        if nxt is None:
            pw = [_conv(rng, f"pw{cin}to{cout}_{ho}", 1, ho, ho, cin, cout, (1, 1), (1, 1), (0, 0), (1, 1),
                        "relu", pool), 1]
        else:
            pw = [_pw_planar(rng, f"pwp{cin}to{cout}_{ho}", 1, ho, ho, cin, cout, (1, 1), pool=pool), 1]
        seen[key] = (dw, pw)
        L += [dw, pw]
        hw, cin = ho, cout
    L.append((_linear(rng, "fc256to2", 1, 256, 2, pool=pool), 1))
    return [tuple(x) for x in L]


NETWORKS = {
    "ds_cnn": lambda rng, pool: [
        (_conv(rng, "conv1_10x4s2_1to64", 1, 49, 10, 1, 64, (10, 4), (2, 2), (5, 1), (1, 1),
               "relu", pool), 1),
        (_dw(rng, "dw64_25x5", 1, 25, 5, 64, 1, (3, 3), (1, 1), (1, 1), (1, 1), "relu",
             pool), 4),
        (_conv(rng, "pw64to64_25x5", 1, 25, 5, 64, 64, (1, 1), (1, 1), (0, 0), (1, 1), "relu",
               pool), 4),
        (_linear(rng, "fc64to12", 1, 64, 12, pool=pool), 1),
    ],
    "mobilenet_v1_025": _mobilenet_layers,
    "mobilenet_v1_025+planar": _mobilenet_planar_layers,
    "ds_cnn+planar": lambda rng, pool: [
        (_conv(rng, "conv1_10x4s2_1to64", 1, 49, 10, 1, 64, (10, 4), (2, 2), (5, 1), (1, 1),
               "relu", pool), 1),
        (_dw(rng, "dw64_25x5", 1, 25, 5, 64, 1, (3, 3), (1, 1), (1, 1), (1, 1), "relu", pool), 1),
        (_pw_planar(rng, "pwp64to64_25x5", 1, 25, 5, 64, 64, (1, 1), pool=pool), 3),
        (_dw_planar(rng, "dwp64_25x5", 1, 25, 5, 64, (3, 3), (1, 1), (1, 1), (1, 1), pool=pool), 3),
        (_conv(rng, "pw64to64_25x5", 1, 25, 5, 64, 64, (1, 1), (1, 1), (0, 0), (1, 1), "relu",
               pool), 1),
        (_linear(rng, "fc64to12", 1, 64, 12, pool=pool), 1),
    ],
    "resnet8": lambda rng, pool: [
        (_conv(rng, "stem_3x3_3to16", 1, 32, 32, 3, 16, (3, 3), (1, 1), (1, 1), (1, 1), "relu",
               pool), 1),
        (_conv(rng, "s1c1_3x3_16to16", 1, 32, 32, 16, 16, (3, 3), (1, 1), (1, 1), (1, 1),
               "relu", pool), 1),
        (_conv(rng, "s1c2_3x3_16to16", 1, 32, 32, 16, 16, (3, 3), (1, 1), (1, 1), (1, 1),
               pool=pool), 1),
        (_conv(rng, "s2c1_3x3s2_16to32", 1, 32, 32, 16, 32, (3, 3), (2, 2), (1, 1), (1, 1),
               "relu", pool), 1),
        (_conv(rng, "s2c2_3x3_32to32", 1, 16, 16, 32, 32, (3, 3), (1, 1), (1, 1), (1, 1),
               pool=pool), 1),
        (_conv(rng, "s2sc_1x1s2_16to32", 1, 32, 32, 16, 32, (1, 1), (2, 2), (0, 0), (1, 1),
               pool=pool), 1),
        (_conv(rng, "s3c1_3x3s2_32to64", 1, 16, 16, 32, 64, (3, 3), (2, 2), (1, 1), (1, 1),
               "relu", pool), 1),
        (_conv(rng, "s3c2_3x3_64to64", 1, 8, 8, 64, 64, (3, 3), (1, 1), (1, 1), (1, 1),
               pool=pool), 1),
        (_conv(rng, "s3sc_1x1s2_32to64", 1, 16, 16, 32, 64, (1, 1), (2, 2), (0, 0), (1, 1),
               pool=pool), 1),
        (_linear(rng, "fc64to10", 1, 64, 10, pool=pool), 1),
    ],
}
# stem3x3c3 layers (RGB first layers: the DSP kernel's conv_stem3_rows) beside the
# networks' own (a harness of their own: the single-case one is at the M55's 512 KiB):
# stride 2 with a border column on the right and a ReLU clamp, stride 1 over two images
# (rows of 10: a triple cut by the row end), unpadded with strides (1, 2), an odd Cout
# (conv_rows); and with the E-form table (VWW's and ResNet-8's stems), which the M33
# build takes as it is (make_network: a case with its panel already)
NETWORKS["stems"] = lambda rng, pool: [
    (_conv(rng, "stem3_s2", 1, 31, 33, 3, 8, (3, 3), (2, 2), (1, 1), (1, 1), "relu", pool), 1),
    (_conv(rng, "stem3_s1", 2, 17, 20, 3, 6, (3, 3), (1, 1), (1, 1), (1, 1), pool=pool), 1),
    (_conv(rng, "stem3_nopad", 1, 26, 29, 3, 4, (3, 3), (1, 2), (0, 0), (1, 1), (-20, 60), pool), 1),
    (_conv(rng, "stem3_odd", 1, 26, 27, 3, 5, (3, 3), (2, 1), (1, 1), (1, 1), pool=pool), 1),
    (_stem_eform(rng, "stem3e_s2", 1, 31, 33, 8, 2, pool=pool), 1),
    (_stem_eform(rng, "stem3e_s1", 2, 17, 20, 6, 1, pool=pool), 1),
    # conv2d_s8_nchw (the input's NCHW bytes, its panel in the NCHW column's order):
    # the E-form run and border windows, the fast table's C path (ReLU; unpadded with
    # strides (1, 2): plane 2's last segment at x = 0 reads the byte before), and an
    # odd Cout (the plain loop); the M55 takes them through its plain loop
    (_nchw(_stem_eform(rng, "stem3n_e_s2", 1, 31, 33, 8, 2, pool=pool)), 1),
    (_nchw(_stem_eform(rng, "stem3n_e_s1", 2, 17, 20, 6, 1, pool=pool)), 1),
    (_nchw(_with_panel(_conv(rng, "stem3n_s2", 1, 31, 33, 3, 8, (3, 3), (2, 2), (1, 1), (1, 1),
                             "relu", pool), "")), 1),
    (_nchw(_with_panel(_conv(rng, "stem3n_nopad", 1, 26, 29, 3, 4, (3, 3), (1, 2), (0, 0), (1, 1),
                             (-20, 60), pool), "")), 1),
    (_nchw(_with_panel(_conv(rng, "stem3n_odd", 1, 26, 27, 3, 5, (3, 3), (2, 1), (1, 1), (1, 1),
                             pool=pool), "")), 1)]
NET_TARGETS = ("m33-dsp", "m55-mve")


def make_network(name, panels=False):
    """(pool, [(case, count)]); panels: every conv with its pre-widened weights, as
    a program for a DSP board carries them (aot/compiler/dsp_weights.py)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    pool = rng.integers(-128, 128, 80 * 1024, dtype=np.int8)   # the planar 48x48x16 input: 80,000 B
    layers = NETWORKS[name](rng, pool)
    if panels:
        layers = [(_with_panel(c, "") if c["op"] in ("conv2d_s8", "linear_s8") and
                   not (c["op"] == "conv2d_s8" and len(c["args"]) == 13) else c, n)
                  for c, n in layers]
    for c, _count in layers:
        c["shared_out"] = True
    return pool, layers


def _c_array(ctype, vals):
    body = ",".join(str(int(v)) for v in np.asarray(vals).ravel())
    return f"{{{body}}}" if body else "{0}"


def _symbol(c):
    """The kernel a case calls: mote::<op> unless the case names another (c["sym"])."""
    return c.get("sym", f"mote_kernel_mote_{c['op']}_out")


def write_vectors(path, cases, pool=None):
    dt = {np.dtype(np.int8): ("int8_t", 1), np.dtype(np.int16): ("int16_t", 2),
          np.dtype(np.int32): ("int32_t", 3),
          np.dtype(np.uint8): ("uint8_t", 0), np.dtype(np.float32): ("float", 6)}
    L = ["/* generated by tests/e2e/test_int8_kernels_qemu.py */", "#include <stdbool.h>",
         '#include "mote/kernel.h"',
         "typedef struct { const char *name; mote_kernel_fn_t fn; mote_value_t *const *args;",
         "  uint32_t nargs; mote_tensor_t *out; void *scratch; size_t scratch_size; } harness_case_t;"]
    smax = max(c["scratch"] for c in cases)
    L.append(f"static uint8_t harness_scratch[{max(smax, 16)}] __attribute__((aligned(16)));")
    omax = max([c["out"].nbytes for c in cases if c.get("shared_out")] or [0])
    if omax:
        L.append(f"static int8_t harness_out[{omax}] __attribute__((aligned(16)));")
    if pool is not None:
        L.append(f"static const int8_t harness_pool[] = {_c_array('int8_t', pool)};")
        pool_addr = pool.__array_interface__["data"][0]
    for sym in sorted({_symbol(c) for c in cases}):
        L.append(f"mote_err_t {sym}(mote_kernel_ctx_t *, mote_value_t *const *, uint32_t);")
    written = {}  # id(array) -> its data symbol: a case that repeats another's inputs shares them
    for i, c in enumerate(cases):
        vals = []
        for j, a in enumerate(list(c["args"]) + [c["out"]]):
            is_out = j == len(c["args"])
            pre = f"c{i}_a{j}"
            if isinstance(a, np.ndarray):
                ctype, code = dt[a.dtype]
                data = f"{pre}_d"
                if is_out and c.get("shared_out"):
                    data = "harness_out"
                elif is_out:
                    L.append(f"static {ctype} {pre}_d[{a.size}];")
                elif pool is not None and np.shares_memory(a, pool):
                    data = f"harness_pool + {a.__array_interface__['data'][0] - pool_addr}"
                elif id(a) in written:
                    data = written[id(a)]
                else:
                    # word aligned: a pre-widened weight panel is read as words
                    if ctype == "float":   # float32 as its bit patterns (NaN, infinities exact)
                        L.append(f"static const uint32_t {pre}_d[] = {_c_array('uint32_t', a.view(np.uint32))};")
                    else:
                        L.append(f"static const {ctype} {pre}_d[] __attribute__((aligned(4))) = "
                                 f"{_c_array(ctype, a)};")
                    written[id(a)] = data
                L.append(f"static const int32_t {pre}_s[] = {_c_array('int32_t', a.shape)};")
                L.append(f"static mote_tensor_t {pre}_t = {{(void *)({data}), {pre}_s, NULL, "
                         f"{a.size}u, {a.nbytes}u, {a.ndim}, {code}}};")
                vals.append(f"{{MOTE_TAG_TENSOR, {{.t = &{pre}_t}}}}")
            elif isinstance(a, bool):
                vals.append(f"{{MOTE_TAG_BOOL, {{.b = {'true' if a else 'false'}}}}}")
            elif isinstance(a, (int, np.integer)):
                vals.append(f"{{MOTE_TAG_INT, {{.i = {int(a)}LL}}}}")
            elif isinstance(a, float):
                vals.append(f"{{MOTE_TAG_DOUBLE, {{.d = {a!r}}}}}")
            else:
                L.append(f"static const int64_t {pre}_l[] = {_c_array('int64_t', a)};")
                vals.append(f"{{MOTE_TAG_INT_LIST, {{.ints = {{{pre}_l, {len(a)}u}}}}}}")
        L.append(f"static mote_value_t c{i}_v[] = {{{', '.join(vals)}}};")
        ptrs = ", ".join(f"&c{i}_v[{j}]" for j in range(len(vals)))
        L.append(f"static mote_value_t *const c{i}_p[] = {{{ptrs}}};")
    L.append(f"#define HARNESS_CASES {len(cases)}u")
    L.append("static const harness_case_t harness_cases[] = {")
    for i, c in enumerate(cases):
        n = len(c["args"]) + 1
        L.append(f'  {{"{c["name"]}", {_symbol(c)}, c{i}_p, {n}u, '
                 f'&c{i}_a{n - 1}_t, harness_scratch, sizeof(harness_scratch)}},')
    L.append("};")
    path.write_text("\n".join(L) + "\n")


def build(tmp, target, cases, extra=()):
    """The harness ELF of `cases` for `target`; extra: more compiler/linker arguments ("-lm")."""
    machine, cpu, origin, length, kset = TARGETS[target]
    ops = sorted({c["op"] for c in cases})
    srcs = []
    for op in ops:
        opt = ROOT / "cmsis" / f"op_mote_{op}.c"
        srcs.append(opt if kset == "cmsis" and opt.exists() else ROOT / "kernels" / f"op_mote_{op}.c")
    if any("srcs" in c for c in cases):   # cases of other kernels name their sources
        srcs = sorted({ROOT / f for c in cases for f in c.get("srcs", ())})
    srcs += sorted((ROOT / "kernels").glob("s8_*.c"))  # what requant.h declares (parsers, bands)
    path = {"m33-dsp": "dsp", "m55-mve": "mve"}.get(target, "plain-ref")
    elf = tmp / f"{target}.elf"
    cmd = ["arm-none-eabi-gcc", *cpu, "-mthumb", "-std=c99", "-O2", "-Wall", "-Wextra",
           "-Wpedantic", "-Wmissing-prototypes", "-Werror", "-ffunction-sections",
           "-fdata-sections", f"-I{ROOT / 'runtime/include'}", f"-I{HARNESS}", f"-I{tmp}",
           f'-DMOTE_S8_PATH="{path}"', "-nostartfiles", "--specs=nano.specs",
           "--specs=nosys.specs", f"-T{HARNESS / 'link.ld'}",
           f"-Wl,--defsym=MEM_ORIGIN={origin},--defsym=MEM_LENGTH={length},--gc-sections",
           "-o", str(elf), str(HARNESS / "startup.c"), str(HARNESS / "main.c"),
           *map(str, srcs), *extra]
    subprocess.run(cmd, check=True)
    return elf


def run_qemu(machine, elf):
    cmd = ["timeout", "120", "qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none",
           "-serial", "none", "-semihosting-config", "enable=on,target=native",
           "-icount", "shift=0", "-kernel", str(elf)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    return p.returncode, p.stdout + p.stderr


def parse(text):
    res, calib = {}, None
    for m in re.finditer(r"case (\S+) rc=(-?\d+) ticks=(\d+) out=([0-9a-f]*)", text):
        res[m.group(1)] = (int(m.group(2)), int(m.group(3)), bytes.fromhex(m.group(4)))
    m = re.search(r"calib ticks=(\d+) instr=(\d+)", text)
    if m:
        calib = int(m.group(2)) / int(m.group(1))  # instructions per tick
    return res, calib


@pytest.fixture(scope="module")
def cases():
    return make_cases()


@pytest.fixture(scope="module")
def results(tmp_path_factory, cases):
    for tool in ("arm-none-eabi-gcc", "qemu-system-arm"):
        assert shutil.which(tool), f"{tool} is required"
    tmp = tmp_path_factory.mktemp("int8fw")
    write_vectors(tmp / "vectors.h", cases)
    out = {}
    for target, (machine, *_rest) in TARGETS.items():
        elf = build(tmp, target, cases)
        rc, text = run_qemu(machine, elf)
        assert rc == 0, f"{target}: exit {rc}\n{text[-2000:]}"
        out[target] = parse(text) + (text,)
    figures = {}
    for target, (res, ipt, _) in out.items():
        for c in cases:
            if c["macs"] and c["name"] in res:
                instr = res[c["name"]][1] * ipt
                figures.setdefault(target, {})[c["name"]] = dict(
                    macs=c["macs"], instructions=round(instr),
                    macs_per_instruction=round(c["macs"] / instr, 3))
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build/int8_kernels_qemu.json").write_text(json.dumps(figures, indent=1))
    print("\n" + json.dumps(figures, indent=1))
    return out


@pytest.mark.parametrize("target", list(TARGETS))
def test_bytes_match_reference(results, cases, target):
    res, ipt, text = results[target]
    assert ipt and ipt > 0
    expected_path = {"m33-dsp": "dsp", "m55-mve": "mve"}.get(target, "plain-ref")
    assert f"path {expected_path}" in text
    from aot.host.abi import error_codes
    for c in cases:
        rc, _ticks, got = res[c["name"]]
        if "rc_all" in c:   # refused by every kernel
            assert rc == error_codes()[c["rc_all"]], (target, c["name"], rc)
            continue
        if "dsp_rc" in c and target == "m33-dsp":   # an edited table: refused, or accepted
            assert rc == (error_codes()[c["dsp_rc"]] if c["dsp_rc"] else 0), (target, c["name"], rc)
            continue
        if "dsp_rc" in c and target == "m55-mve":   # MVE takes the table's bias as it is
            assert rc == 0, (target, c["name"], rc)
            continue
        assert rc == 0, (target, c["name"])
        assert got == c["out"].tobytes(), (target, c["name"])


@pytest.fixture(scope="module")
def network_results(tmp_path_factory):
    """Per network and optimized target: bytes of every layer and instruction counts;
    figures (per layer and the whole-network estimate) to build/int8_networks_qemu.json."""
    tmp = tmp_path_factory.mktemp("int8net")
    figures, out = {}, {}
    for net in NETWORKS:
        for target in NET_TARGETS:
            pool, layers = make_network(net, panels=target == "m33-dsp")
            cases = [c for c, _ in layers]
            d = tmp / net / target
            d.mkdir(parents=True)
            write_vectors(d / "vectors.h", cases, pool)
            machine = TARGETS[target][0]
            rc, text = run_qemu(machine, build(d, target, cases))
            assert rc == 0, f"{net} {target}: exit {rc}\n{text[-2000:]}"
            res, ipt = parse(text)
            out[(net, target)] = (res, layers)
            tot_m = tot_i = 0.0
            per = {}
            for c, count in layers:
                instr = res[c["name"]][1] * ipt
                tot_m += c["macs"] * count
                tot_i += instr * count
                per[c["name"]] = dict(count=count, macs=c["macs"], instructions=round(instr),
                                      macs_per_instruction=round(c["macs"] / instr, 3))
            figures.setdefault(net, {})[target] = dict(
                macs=int(tot_m), instructions=round(tot_i),
                macs_per_instruction=round(tot_m / tot_i, 3), layers=per)
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build/int8_networks_qemu.json").write_text(json.dumps(figures, indent=1))
    print("\n" + "\n".join(f"{net:18s} {t}: {f['macs_per_instruction']:.3f} MACs/instr "
                             f"({f['macs']} MACs, {f['instructions']} instr)"
                             for net, v in figures.items() for t, f in v.items()))
    return out


@pytest.mark.parametrize("net", list(NETWORKS))
@pytest.mark.parametrize("target", NET_TARGETS)
def test_network_layers_match_reference(network_results, net, target):
    res, layers = network_results[(net, target)]
    for c, _count in layers:
        rc, _ticks, got = res[c["name"]]
        assert rc == 0, (net, target, c["name"])
        assert got == c["out"].tobytes(), (net, target, c["name"])


def _permute_cases():
    """aten::permute_copy of bytes through the word paths (2/3/4 rows interleaved, 2/3/4
    columns de-interleaved: MVE scatter / gather on the M55 for 16 at a time), 4 x 4
    blocks, tails of every length, and 2-byte elements."""
    rng = np.random.default_rng(21)
    cases = []
    for shape, dims in (((1, 3, 9, 7), [0, 2, 3, 1]), ((1, 2, 5, 11), [0, 2, 3, 1]),
                        ((1, 4, 39), [0, 2, 1]), ((1, 37, 3), [0, 2, 1]), ((2, 21, 2), [0, 2, 1]),
                        ((1, 6, 5, 4), [0, 3, 1, 2]), ((19, 13), [1, 0]), ((3, 5, 2, 7), [2, 0, 3, 1])):
        x = rng.integers(0, 256, shape, dtype=np.uint8)
        cases.append(dict(name=f"permute_{'x'.join(map(str, shape))}", op="permute_copy",
                          sym="mote_kernel_aten_permute_copy_out", args=[x, dims],
                          out=np.ascontiguousarray(x.transpose(dims)), macs=0, scratch=0,
                          srcs=("kernels/op_permute_copy.c", "kernels/kutil.c")))
    x = rng.integers(-30000, 30000, (1, 3, 6, 5), dtype=np.int16)
    cases.append(dict(name="permute_s16", op="permute_copy", sym="mote_kernel_aten_permute_copy_out",
                      args=[x, [0, 2, 3, 1]], out=np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
                      macs=0, scratch=0, srcs=("kernels/op_permute_copy.c", "kernels/kutil.c")))
    return cases


def _quantize_cases():
    """quantize_per_tensor to int8 (the model input of a float-input program; MVE float
    on the M55: four a step): ties, bounds, a narrowed range, NaN, infinities, tails."""
    from aot.compiler.quant import int8ref as R  # noqa: F401  (the reference module's home)
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the ops)
    rng = np.random.default_rng(23)
    cases = []
    for i, (n, scale, zp, lo, hi) in enumerate(((103, 0.05, 3, -128, 127), (64, 0.0137, -128, -128, 127),
                                                (37, 0.25, -7, -100, 90))):
        x = np.concatenate([rng.normal(0, 3, n), (np.arange(-8, 8) + 0.5) * scale,
                            [1e30, -1e30, 0.0, -0.0]]).astype(np.float32)
        out = torch.ops.quantized_decomposed.quantize_per_tensor(
            torch.from_numpy(x), scale, zp, lo, hi, torch.int8).numpy()
        x = np.concatenate([x, np.array([np.nan, np.inf, -np.inf], np.float32)])
        out = np.concatenate([out, np.array([zp, hi, lo], np.int8)])
        cases.append(dict(name=f"quantize_{i}", op="quantize", sym=(
            "mote_kernel_quantized_decomposed_quantize_per_tensor_out"),
            args=[x, scale, zp, lo, hi, 1], out=out, macs=0, scratch=0,
            srcs=("kernels/op_quantize_per_tensor.c",)))
    return cases


@pytest.mark.parametrize("target", ["m33-ref", "m55-mve"])
def test_quantize_bytes_on_cortex_m(tmp_path, target):
    """quantize_per_tensor on the M33 (FPv5: VRINTX, VMAXNM) and the M55 (MVE float):
    every byte equals torch's (NaN: the zero point, infinities: the bounds)."""
    cases = _quantize_cases()
    write_vectors(tmp_path / "vectors.h", cases)
    elf = build(tmp_path, target, cases)
    rc, text = run_qemu(TARGETS[target][0], elf)
    assert rc == 0, text[-2000:]
    res, _ = parse(text)
    for c in cases:
        got_rc, _ticks, got = res[c["name"]]
        assert got_rc == 0 and got == c["out"].tobytes(), c["name"]


@pytest.mark.parametrize("target", ["m33-ref", "m55-mve"])
def test_permute_bytes_on_cortex_m(tmp_path, target):
    """The permute kernel on the M33 (word paths) and the M55 (MVE scatter / gather):
    every byte equals numpy's transpose."""
    cases = _permute_cases()
    write_vectors(tmp_path / "vectors.h", cases)
    elf = build(tmp_path, target, cases)
    rc, text = run_qemu(TARGETS[target][0], elf)
    assert rc == 0, text[-2000:]
    res, _ = parse(text)
    for c in cases:
        got_rc, _ticks, got = res[c["name"]]
        assert got_rc == 0 and got == c["out"].tobytes(), c["name"]


def _island_cases():
    """The kernels that keep issue 36's ops in int8: grouped convolution (RegNetX's
    group width 16, a stride-2 one with a clamp; plain C on every target), mul with a
    broadcast operand (a squeeze-excitation gate; plain C), and the 1x1 depthwise conv a
    BatchNorm that follows no conv becomes (depthwise_conv2d_s8: DSP / MVE paths too), max
    pool with ceil_mode (plain C)."""
    from tests.kernels.test_int8_island_kernels import GCONV_CASES, MUL_CASES, _gconv_args, _mul_args
    rng = np.random.default_rng(36)
    cases = []
    for i, case in enumerate(GCONV_CASES[:2]):
        args = _gconv_args(rng, case)
        cases.append(dict(name=f"gconv{i}", op="grouped_conv2d_s8", args=args,
                          out=R.grouped_conv2d_s8(*args), macs=0, scratch=0))
    for i, (sa, sb) in enumerate(MUL_CASES):
        args = _mul_args(rng, sa, sb)
        cases.append(dict(name=f"mul_bcast{i}", op="mul_s8", args=args, out=R.mul_s8(*args), macs=0,
                          scratch=0))
    # BatchNorm: weights +-127, a ReLU clamp, and the same with output zero point -128 (E-form)
    bn = _dw(rng, "bn_1x1", 1, 6, 5, 24, 1, (1, 1), (1, 1), (0, 0), (1, 1), "relu")
    bn["args"][1] = np.where(rng.random((1, 1, 1, 24)) < 0.5, -127, 127).astype(np.int8)
    bn["out"] = R.depthwise_conv2d_s8(*bn["args"])
    cases += [bn, _eform(bn)]
    from tests.kernels.test_int8_island_kernels import CEIL_POOL_CASES, _pool_args
    for i, case in enumerate(CEIL_POOL_CASES):   # max_pool2d_s8 with ceil_mode (plain C)
        args = _pool_args(rng, case, True)
        cases.append(dict(name=f"maxpool_ceil{i}", op="max_pool2d_s8", args=args, out=R.max_pool2d_s8(*args),
                          macs=0, scratch=0))
    return cases


@pytest.mark.parametrize("target", list(TARGETS))
def test_island_kernel_bytes_on_cortex_m(tmp_path, target):
    """Issue 36's int8 kernels (grouped conv, broadcast mul, BatchNorm as a 1x1
    depthwise conv, ceil-mode max pool) on the M33 (DSP and plain builds) and the M55 (MVE and plain):
    every byte equals the integer reference."""
    cases = _island_cases()
    write_vectors(tmp_path / "vectors.h", cases)
    elf = build(tmp_path, target, cases)
    rc, text = run_qemu(TARGETS[target][0], elf)
    assert rc == 0, text[-2000:]
    assert f"path {({'m33-dsp': 'dsp', 'm55-mve': 'mve'}).get(target, 'plain-ref')}" in text
    res, _ = parse(text)
    for c in cases:
        got_rc, _ticks, got = res[c["name"]]
        assert got_rc == 0 and got == c["out"].tobytes(), (target, c["name"])


@pytest.mark.parametrize("target", list(TARGETS))
def test_one_pixel_bytes_on_cortex_m(tmp_path, target):
    """Issue 38's one-pixel calls and one-channel pools (_one_pixel_cases) on the M33
    (DSP and plain builds) and the M55 (MVE and plain): every byte equals the integer
    reference; the instructions per call go to build/int8_one_pixel_qemu.json."""
    cases = _one_pixel_cases()
    write_vectors(tmp_path / "vectors.h", cases)
    elf = build(tmp_path, target, cases)
    rc, text = run_qemu(TARGETS[target][0], elf)
    assert rc == 0, text[-2000:]
    assert f"path {({'m33-dsp': 'dsp', 'm55-mve': 'mve'}).get(target, 'plain-ref')}" in text
    res, ipt = parse(text)
    figures = {}
    for c in cases:
        got_rc, ticks, got = res[c["name"]]
        assert got_rc == 0 and got == c["out"].tobytes(), (target, c["name"])
        figures[c["name"]] = round(ticks * ipt)
    path = ROOT / "build/int8_one_pixel_qemu.json"
    path.parent.mkdir(exist_ok=True)
    old = json.loads(path.read_text()) if path.exists() else {}
    old[target] = figures
    path.write_text(json.dumps(old, indent=1))
    print(f"\n{target}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
