"""Kernel scratch sizes: how many bytes of working memory each optimized int8
kernel call needs, planned by the compiler inside the arena; and the kernel
variant each call runs (``call_variant``: shown in ops.json, ``aot inspect``
and ``aot profile``).

The sizes come from the C functions of kernels/int8_scratch.c (the same
formulas the cmsis/ kernels check ctx->scratch_size against), compiled for the
host into a small shared library cached by content under build/.scratch and
called through ctypes: one home of each formula, in C, next to the kernels.
"""
from __future__ import annotations

import subprocess

from aot.compiler.dsp_calls import EFORM_K8, EFORM_MARK, EFORM_PWMAX, PANEL_ARG, has_panel, has_table, is_conv
from aot.errors import LoweringError
from aot.paths import KERNELS_DIR, ROOT, RUNTIME_DIR


def scratch_slots(spec) -> list:
    """(instruction, offset, size) of each kernel call's scratch the planner
    placed in arena 1 (plan_info["scratch_offsets"]), by instruction."""
    offs = (spec.plan_info or {}).get("scratch_offsets") or {}
    return [(int(i), int(offs[i]), int(spec.instructions[i].scratch_bytes))
            for i in sorted(offs) if spec.instructions[i].scratch_bytes]


_SCRATCH_LIB = {}


def _scratch_library():
    """ctypes handle of kernels/int8_scratch.c built for the host (cached by content)."""
    import ctypes
    import hashlib
    import shutil
    src = KERNELS_DIR / "int8_scratch.c"
    digest = hashlib.sha256(src.read_bytes() + (KERNELS_DIR / "requant.h").read_bytes()
                            + (KERNELS_DIR / "fft.h").read_bytes()).hexdigest()[:16]
    if digest in _SCRATCH_LIB:
        return _SCRATCH_LIB[digest]
    cache = ROOT / "build" / ".scratch"
    cache.mkdir(parents=True, exist_ok=True)
    lib_path = cache / f"libmote_scratch-{digest}.so"
    if not lib_path.exists():
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            raise LoweringError("no host C compiler (cc) to compute int8 kernel scratch sizes")
        tmp = lib_path.with_name(lib_path.name + f".{id(src)}.tmp")
        proc = subprocess.run([cc, "-std=c99", "-O1", "-shared", "-fPIC", "-I", str(KERNELS_DIR),
                               "-I", str(RUNTIME_DIR / "include"), str(src), "-o", str(tmp)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise LoweringError(f"compiling {src.name} for the host failed: {proc.stderr.strip()}")
        tmp.replace(lib_path)
    lib = ctypes.CDLL(str(lib_path))
    for name, nargs in (("mote_scratch_mote_conv2d_s8", 8),
                        ("mote_scratch_mote_depthwise_conv2d_s8", 9),
                        ("mote_scratch_mote_linear_s8", 3),
                        ("mote_scratch_mote_pointwise_s8_planar16", 2),
                        ("mote_scratch_mote_rfft_mag", 2),
                        ("mote_scratch_rows_in_place", 10)):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_size_t
        fn.argtypes = [ctypes.c_int32] * nargs
    lib.mote_variant_mote_conv2d_s8.restype = ctypes.c_int32
    lib.mote_variant_mote_conv2d_s8.argtypes = [ctypes.c_int32] * 7
    lib.mote_variant_mote_depthwise_conv2d_s8.restype = ctypes.c_int32
    lib.mote_variant_mote_depthwise_conv2d_s8.argtypes = [ctypes.c_int32] * 12
    lib.mote_variant_mote_add_s8.restype = ctypes.c_int32
    lib.mote_variant_mote_add_s8.argtypes = [ctypes.c_int32] * 6
    lib.mote_variant_dw_planar_alias.restype = ctypes.c_int32
    lib.mote_variant_dw_planar_alias.argtypes = [ctypes.c_int32] * 2
    lib.mote_variant_dw_planar_form.restype = ctypes.c_int32
    lib.mote_variant_dw_planar_form.argtypes = [ctypes.c_int32] * 8 + [ctypes.c_int64]
    lib.mote_variant_dw_planar_channel.restype = ctypes.c_int32
    lib.mote_variant_dw_planar_channel.argtypes = [ctypes.c_int32] * 2
    lib.mote_variant_dw_planar_eform.restype = ctypes.c_int32
    lib.mote_variant_dw_planar_eform.argtypes = [ctypes.c_int32] * 3
    lib.mote_variant_conv_eform_k64.restype = ctypes.c_int32
    lib.mote_variant_conv_eform_k64.argtypes = [ctypes.c_int32]
    lib.mote_variant_conv_direct_in_place.restype = ctypes.c_int32
    lib.mote_variant_conv_direct_in_place.argtypes = [ctypes.c_int32] * 9
    _SCRATCH_LIB[digest] = lib
    return lib


def _nhwc(call, sizes) -> list:
    """A conv call's input sizes as [N, H, W, Cin] (conv2d_s8_nchw's input is [N, Cin, H, W])."""
    return [sizes[0], sizes[2], sizes[3], sizes[1]] if call.op == "mote::conv2d_s8_nchw" else list(sizes)


#: the real-FFT ops (kernels/fft.h) -> bytes of one value of their transform
FFT_ELEMENT_BYTES = {"mote::rfft_mag.out": 4, "mote::rfft_mag_q15.out": 2, "mote::rfft_mag_q31.out": 4,
                     "mote::rfft_mag_window.out": 4}


def scratch_bytes(spec, call) -> int:
    """Scratch bytes the kernel of `call` (an ir.KernelCall) needs: the optimized Cortex-M
    int8 kernels' working memory, the real FFT's transform (every build)."""
    name = f"{call.op}.{call.overload}"
    vals = spec.values
    if name in ("mote::conv2d_s8.out", "mote::conv2d_s8_nchw.out", "mote::depthwise_conv2d_s8.out"):
        x, w, out = vals[call.args[0]], vals[call.args[1]], vals[call.args[-1]]
        n, h, wd, cin = (int(v) for v in _nhwc(call, x.sizes))
        cout = int(out.sizes[3])
        kh, kw = int(w.sizes[1]), int(w.sizes[2])
        if name != "mote::depthwise_conv2d_s8.out":
            return int(_scratch_library().mote_scratch_mote_conv2d_s8(
                n, h, wd, cin, cout, kh, kw, int(has_panel(spec, call))))
        pad = vals[call.args[6]].items
        ph, pw = (int(pad[0]), int(pad[-1]))
        own = int(_scratch_library().mote_scratch_mote_depthwise_conv2d_s8(n, h, wd, cin, cout, kh, kw, ph, pw))
        if spec.plan_info.get(DW_PLANES4) and spec.instructions.index(call) in spec.plan_info[DW_PLANES4]:
            own = max(own, dw_planes4_bytes(spec, call))  # the DSP plane path's four planes
        elif spec.plan_info.get(DW_PLANES2) and spec.instructions.index(call) in spec.plan_info[DW_PLANES2]:
            own = max(own, dw_planes2_bytes(spec, call))  # two
        return own
    if name == "mote::pointwise_s8_planar16.out":
        return int(_scratch_library().mote_scratch_mote_pointwise_s8_planar16(
            int(vals[call.args[0]].sizes[3]), int(vals[call.args[1]].sizes[0])))
    if name in FFT_ELEMENT_BYTES:  # the real FFT's complex values (kernels/fft.h)
        n = int(vals[call.args[0]].sizes[-1])
        return int(_scratch_library().mote_scratch_mote_rfft_mag(n, FFT_ELEMENT_BYTES[name]))
    if name == "mote::linear_s8.out":
        x, w = vals[call.args[0]], vals[call.args[1]]
        m = 1
        for s_ in x.sizes[:-1]:
            m *= int(s_)
        return int(_scratch_library().mote_scratch_mote_linear_s8(m, int(x.sizes[-1]),
                                                                   int(w.sizes[0])))
    return 0


#: labels of conv2d_s8's variants, by the MOTE_S8_CONV_* codes of kernels/requant.h
#: (mote_s8_conv_variant there is the rule, the kernels' own dispatch)
CONV_VARIANTS = {1: "pointwise", 2: "stem", 3: "window", 4: "stem3x3c3"}
#: labels of depthwise_conv2d_s8's per-channel plane paths, by the MOTE_S8_DW_* mask of
#: kernels/requant.h (mote_s8_dw_variant): both cores, or the one named in parentheses
#: (`aot profile` shows it on that core's rows only, see aot.devtools.profile)
DW_VARIANTS = {1: "planes(MVE)", 2: "planes(DSP)", 3: "planes"}
#: the DSP bit of that mask (MOTE_S8_DW_DSP_PLANES)
DW_DSP_PLANES = 2
#: labels of add_s8's variants, by the MOTE_S8_ADD_* codes of kernels/requant.h
ADD_VARIANTS = {0: "reference", 1: "folded", 2: "power+general", 3: "general+general",
                4: "power+power"}


def call_variant(spec, call):
    """The variant of the optimized (cmsis/) kernel that runs `call`, or None for
    an op without variants. conv2d_s8: "pointwise" / "stem" / "stem3x3c3" / "window" by shape
    (mote_variant_mote_conv2d_s8), "+table" when the program carries the DSP
    kernel's requantization table (aot.compiler.dsp_weights), "+etable" its E-form
    (two-instruction requantization; "pointwise8+etable": stride 1, K = 8, the
    channel-stationary core); linear_s8: "panel"
    with its DSP panel, "rows+table" with its table alone (the int8 weights read in
    place, four rows at a time), else "rows"; depthwise_conv2d_s8 (depth multiplier 1):
    "planes" when the DSP and MVE kernels run it channel by channel over a plane (by
    shape and activation range, mote_s8_dw_variant), "planes(MVE)" / "planes(DSP)" when
    only that core's kernel does, "planes+eform(DSP)" in a DSP program whose plane takes
    the E-form requantization (dw_planar_eform), else None (channels-last on both); add_s8: which
    core its multipliers and shifts select (mote_variant_mote_add_s8: "power+general"
    for the compiler's arguments, "power+power" for equal input scales)."""
    name = f"{call.op}.{call.overload}"
    vals = spec.values
    if name == "mote::linear_s8.out":
        return "panel" if has_panel(spec, call) else "rows+table" if has_table(spec, call) else "rows"
    if name == "mote::depthwise_conv2d_s8.out":
        label = DW_VARIANTS.get(dw_code(spec, call))
        # a DSP program (aot.compiler.layout.planes4_pass ran) whose plane takes the E-form:
        # the DSP kernel's variant alone
        if label is not None and "dw_planes4" in spec.plan_info and dw_planar_eform(spec, call):
            label = label.split("(")[0] + "+eform(DSP)"
        return label
    if name == "mote::add_s8.out":
        ints = [int(vals[a]) for a in (call.args[3], call.args[4], call.args[6],
                                             call.args[7], call.args[8], call.args[11])]
        code = int(_scratch_library().mote_variant_mote_add_s8(*ints))
        return ADD_VARIANTS.get(code, f"variant {code}")
    if name not in ("mote::conv2d_s8.out", "mote::conv2d_s8_nchw.out"):
        return None
    code = conv_code(spec, call)
    label = CONV_VARIANTS.get(code, f"variant {code}")
    if name == "mote::conv2d_s8_nchw.out":   # the column gathered from the input's planes
        label += "+nchw"
    if conv_has_table(spec, call):
        if has_eform(spec, call):   # stride-1 Cin = K = 8: the channel-stationary core (MOTE_S8_EFORM_K8)
            k8 = eform_pw(spec, call) and int(vals[call.args[0]].sizes[3]) == EFORM_K8
            label = (f"pointwise{EFORM_K8}" if k8 else label) + "+etable"
        else:
            label += "+table"
    return label


def conv_has_table(spec, call) -> bool:
    """True if conv2d_s8 `call`'s pre-widened weights end with the DSP kernel's fast
    requantization table (aot.compiler.dsp_weights: the panel's numel beyond
    round2(Cout) * round4(K), as the kernel's parser reads it)."""
    if not has_panel(spec, call):
        return False
    w = spec.values[call.args[1]]
    numel = int(spec.values[call.args[PANEL_ARG]].sizes[0])
    k = int(w.sizes[1]) * int(w.sizes[2]) * int(w.sizes[3])
    return numel > ((int(w.sizes[0]) + 1) & ~1) * ((k + 3) & ~3)


def conv_eform_k64(spec, call) -> bool:
    """True if the DSP conv2d_s8 runs `call` (with the E-form table) by its core of
    16-group passes (mote_s8_eform_k64 in kernels/requant.h, by K)."""
    w = spec.values[call.args[1]]
    k = int(w.sizes[1]) * int(w.sizes[2]) * int(w.sizes[3])
    return bool(_scratch_library().mote_variant_conv_eform_k64(k))


def conv_code(spec, call) -> int:
    """conv2d_s8 `call`'s MOTE_S8_CONV_* code (mote_s8_conv_variant in kernels/requant.h)."""
    vals = spec.values
    w = vals[call.args[1]]
    pad, dil = vals[call.args[6]], vals[call.args[7]]
    return int(_scratch_library().mote_variant_mote_conv2d_s8(
        int(w.sizes[3]), int(w.sizes[1]), int(w.sizes[2]), int(pad.items[0]), int(pad.items[-1]),
        int(dil.items[0]), int(dil.items[-1])))


def dw_code(spec, call) -> int:
    """depthwise_conv2d_s8 `call`'s MOTE_S8_DW_* mask (mote_s8_dw_variant in kernels/requant.h,
    by shape and activation range; 0 also for a depth multiplier other than 1)."""
    vals = spec.values
    x, w = vals[call.args[0]], vals[call.args[1]]
    if len(x.sizes) != 4 or len(w.sizes) != 4 or int(vals[call.args[8]]) != 1:
        return 0
    st, pad, dil = (vals[call.args[i]].items for i in (5, 6, 7))
    return int(_scratch_library().mote_variant_mote_depthwise_conv2d_s8(
        int(w.sizes[1]), int(w.sizes[2]), int(st[0]), int(st[-1]), int(dil[0]), int(dil[-1]),
        int(x.sizes[1]), int(x.sizes[2]), int(pad[0]), int(pad[-1]),
        int(vals[call.args[11]]), int(vals[call.args[12]])))


def _placement(a, b) -> int:
    """0: planned tensors a and b apart, 1: b at a's first byte, 2: overlapping otherwise."""
    if a.mem_id is None or b.mem_id is None or a.mem_id != b.mem_id:
        return 0
    a0, b0 = int(a.mem_offset), int(b.mem_offset)
    if a0 == b0:
        return 1
    return 2 if (b0 < a0 + a.nbytes and a0 < b0 + b.nbytes) else 0


def placement(spec, call) -> int:
    """Where conv2d_s8 / depthwise_conv2d_s8 `call`'s output lies against its input:
    0 apart, 1 at the input's first byte (planned in place), 2 overlapping otherwise."""
    return _placement(spec.values[call.args[0]], spec.values[call.args[-1]])


def conv_direct_in_place(spec, call) -> bool:
    """True if the DSP conv2d_s8 runs `call`, planned in place, without the row ring
    (mote_s8_conv_direct_in_place in kernels/requant.h)."""
    vals = spec.values
    x, w, out = vals[call.args[0]], vals[call.args[1]], vals[call.args[-1]]
    stride, pad = vals[call.args[5]], vals[call.args[6]]
    return placement(spec, call) == 1 and bool(_scratch_library().mote_variant_conv_direct_in_place(
        int(x.sizes[3]), int(w.sizes[1]), int(w.sizes[2]), int(stride.items[0]), int(stride.items[-1]),
        int(pad.items[0]), int(pad.items[-1]), int(out.sizes[3]), int(has_panel(spec, call))))


def dw_planar(spec, call) -> bool:
    """True if the DSP depthwise_conv2d_s8 runs `call` through its int16 plane: the
    kernel's rules (kernels/requant.h) over its shape and activation range
    (mote_s8_dw_variant's MOTE_S8_DW_DSP_PLANES), its placement
    (mote_s8_dw_planar_alias) and every channel's shift and bias
    (mote_s8_dw_planar_channel; channel tensors computed at run time: False)."""
    import numpy as np
    vals = spec.values
    bias, shift = vals[call.args[2]], vals[call.args[4]]
    lib = _scratch_library()
    if not dw_code(spec, call) & DW_DSP_PLANES or not lib.mote_variant_dw_planar_alias(
            placement(spec, call), int(vals[call.args[0]].sizes[0])):
        return False
    if bias.constant is None or shift.constant is None:
        return False
    b = np.frombuffer(bias.constant, "<i4")
    s = np.frombuffer(shift.constant, "<i4")
    return all(lib.mote_variant_dw_planar_channel(int(si), int(bi)) for si, bi in zip(s, b))


def dw_planar_eform(spec, call) -> bool:
    """True if the DSP depthwise_conv2d_s8 runs `call` through its int16 plane with the
    E-form of the requantization (SMMLA, SSAT ASR #12: mote_s8_dw_planar_eform in
    kernels/requant.h for every channel, Cout a multiple of 4)."""
    import numpy as np
    if not dw_planar(spec, call):
        return False
    vals = spec.values
    bias, shift = vals[call.args[2]], vals[call.args[4]]
    if int(vals[call.args[-1]].sizes[3]) % 4:
        return False
    lib = _scratch_library()
    ozp = int(vals[call.args[10]])
    b = np.frombuffer(bias.constant, "<i4")
    s = np.frombuffer(shift.constant, "<i4")
    return all(lib.mote_variant_dw_planar_eform(ozp, int(si), int(bi)) for si, bi in zip(s, b))


def dw_planar_form(spec, call) -> int:
    """The DSP plane path's form for depthwise_conv2d_s8 `call` (mote_variant_dw_planar_form):
    bit 0 transposed, bit 1 one plane at a time, bit 2 the 1x6 block, bit 3 the 1x3 block, by its shapes,
    stride and planned scratch (at least call.scratch_bytes reach the kernel)."""
    vals = spec.values
    x, out, pad = vals[call.args[0]], vals[call.args[-1]], vals[call.args[6]]
    return int(_scratch_library().mote_variant_dw_planar_form(
        int(out.sizes[1]), int(out.sizes[2]), int(out.sizes[3]), int(x.sizes[1]), int(x.sizes[2]),
        int(pad.items[0]), int(pad.items[-1]), int(vals[call.args[5]].items[0]), int(call.scratch_bytes)))


def rows_ring_bytes(spec, call, band: int = 1) -> int:
    """Extra scratch bytes `call` (conv2d_s8 / depthwise_conv2d_s8, its kernel
    marked MOTE_KERNEL_IN_PLACE_ROWS) needs to run with its output over its
    input: the ring of (lag + band) output rows (mote_s8_rows_ring_bytes in
    kernels/requant.h). 0 when the call cannot run in place (batch > 1)."""
    vals = spec.values
    x, out = vals[call.args[0]], vals[call.args[-1]]
    if len(x.sizes) != 4 or len(out.sizes) != 4:
        return 0
    stride = spec.values[call.args[5]]
    pad = spec.values[call.args[6]]
    n, h, w, cin = (int(v) for v in x.sizes)
    _, ho, wo, cout = (int(v) for v in out.sizes)
    return int(_scratch_library().mote_scratch_rows_in_place(
        n, h, w, cin, ho, wo, cout, int(stride.items[0]), int(pad.items[0]),
        band))


def has_eform(spec: ir.ProgramSpec, call: ir.KernelCall) -> bool:
    """True if conv2d_s8 ``call``'s panel ends with the E-form table (its third word
    marked, EFORM_MARK): the DSP kernel's conv_rows_pwe (MOTE_S8_USE_CONV_PWE)."""
    if not is_conv(call) or not conv_has_table(spec, call):
        return False
    import numpy as np
    w = spec.values[call.args[1]]
    k = int(np.prod(w.sizes[1:]))
    pv = spec.values[call.args[PANEL_ARG]]
    n = ((int(w.sizes[0]) + 1) & ~1) * ((k + 3) & ~3)        # int16 elements of the rows
    t = np.frombuffer(pv.constant, "<i4", count=10, offset=2 * n)
    return bool(int(t[6]) & EFORM_MARK)


def eform_pw(spec: ir.ProgramSpec, call: ir.KernelCall) -> bool:
    """conv2d_s8 ``call`` is a stride-1 pointwise one with Cin <= EFORM_PWMAX
    (MOTE_S8_CONV_POINTWISE by the kernels' rule, aot.compiler.scratch.conv_code): with
    the E-form it runs the kernel's conv_rows_pwe (mote_s8_eform_pw)."""
    return (conv_code(spec, call) == 1 and list(spec.values[call.args[5]].items) == [1, 1]
            and int(spec.values[call.args[0]].sizes[3]) <= EFORM_PWMAX)


def _padding(spec, call) -> tuple:
    """(pad_h, pad_w) of a depthwise_conv2d_s8 call (argument 6: one or two ints)."""
    v = spec.values[call.args[6]]
    p = [int(x) for x in getattr(v, "items", ())]
    return (p * 2 if len(p) == 1 else p) if len(p) in (1, 2) else (0, 0)


#: spec.plan_info key: steps of depthwise_conv2d_s8 calls whose scratch holds four
#: int16 planes (scratch_bytes reads it)
DW_PLANES4 = "dw_planes4"


#: spec.plan_info key: steps of the depthwise calls whose scratch holds two int16 planes
DW_PLANES2 = "dw_planes2"


def dw_planes2_bytes(spec: ir.ProgramSpec, call: ir.KernelCall) -> int:
    """Scratch bytes with which the DSP depthwise_conv2d_s8 widens two channels at once
    (mote_s8_dw_planes2_bytes in kernels/requant.h), 0 when Cout is odd."""
    x, out = spec.values[call.args[0]], spec.values[call.args[-1]]
    ph, pw = _padding(spec, call)
    if int(out.sizes[3]) % 2:
        return 0
    return 16 + 4 * (int(x.sizes[1]) + 2 * ph) * (int(x.sizes[2]) + 2 * pw)


def dw_planes4_bytes(spec: ir.ProgramSpec, call: ir.KernelCall) -> int:
    """Scratch bytes with which the DSP depthwise_conv2d_s8 widens four channels at
    once (mote_s8_dw_planes4_bytes in kernels/requant.h: four int16 planes of the
    padded input after 16 bytes of alignment), 0 when Cout is not a multiple of 4."""
    x, out = spec.values[call.args[0]], spec.values[call.args[-1]]
    ph, pw = _padding(spec, call)
    if int(out.sizes[3]) % 4:
        return 0
    return 16 + 8 * (int(x.sizes[1]) + 2 * ph) * (int(x.sizes[2]) + 2 * pw)
