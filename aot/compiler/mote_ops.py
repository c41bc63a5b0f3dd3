"""``mote::`` int8 operators registered with ``torch.library``.

Importing this module defines, for every op of ``docs/int8-ops.md``, a
functional overload ``torch.ops.mote.<name>.default`` and an out-variant
``torch.ops.mote.<name>.out`` (same arguments, then keyword ``out``), with
fake (meta) implementations for ``torch.export`` and CPU implementations that
run :mod:`aot.compiler.quant.int8ref` (the integer reference), so a lowered graph runs eagerly.

Tensors: activations int8 (4-D NHWC), weights int8, bias / multiplier / shift
int32. Shapes are documented in :mod:`aot.compiler.quant.int8ref`. The ``*_s16`` ops
take int16 activations and an int64 bias (:mod:`aot.compiler.quant.int16ref`);
the recurrent cells ``lstm_cell_s8`` (two outputs: hidden int8, cell int16) and
``gru_cell_s8`` run :mod:`aot.compiler.quant.recurrentref`.
"""
from __future__ import annotations

import numpy as np
import torch

from aot.compiler.quant import int8ref

NAMESPACE = "mote"

#: op name -> (argument schema without out, tensor argument names)
SCHEMAS = {
    "conv2d_s8": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                 "int[2] stride, int[2] padding, int[2] dilation, int input_zero_point, "
                 "int output_zero_point, int activation_min, int activation_max",
    # conv2d_s8 on an NCHW input (a program input read by an RGB stem in place of
    # its NHWC copy: aot.compiler.dsp_weights.nchw_stem_pass; int8ref.conv2d_s8_nchw)
    "conv2d_s8_nchw": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                      "int[2] stride, int[2] padding, int[2] dilation, int input_zero_point, "
                      "int output_zero_point, int activation_min, int activation_max",
    "depthwise_conv2d_s8": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, "
                           "Tensor shift, int[2] stride, int[2] padding, int[2] dilation, "
                           "int depth_multiplier, int input_zero_point, int output_zero_point, "
                           "int activation_min, int activation_max",
    # the planar int16 layout between a pointwise and the depthwise reading it
    # (aot.compiler.layout; int8ref.planar16)
    "pointwise_s8_planar16": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, "
                             "Tensor shift, int[2] border, int output_zero_point, "
                             "int activation_min, int activation_max",
    "grouped_conv2d_s8": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                         "int[2] stride, int[2] padding, int[2] dilation, int groups, "
                         "int input_zero_point, int output_zero_point, int activation_min, "
                         "int activation_max",
    "depthwise_planar16_s8": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, "
                             "Tensor shift, int[2] stride, int[2] padding, int[2] dilation, "
                             "int output_zero_point, int activation_min, int activation_max",
    "linear_s8": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                 "int input_zero_point, int output_zero_point, int activation_min, "
                 "int activation_max",
    "linear_s4": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                 "int input_zero_point, int output_zero_point, int activation_min, "
                 "int activation_max",
    "bmm_s8": "Tensor a, Tensor b, bool b_transposed, int a_zero_point, int b_zero_point, "
              "int output_zero_point, int output_multiplier, int output_shift, "
              "int activation_min, int activation_max",
    "add_s8": "Tensor a, Tensor b, int a_zero_point, int a_multiplier, int a_shift, "
              "int b_zero_point, int b_multiplier, int b_shift, int left_shift, "
              "int output_zero_point, int output_multiplier, int output_shift, "
              "int activation_min, int activation_max",
    "mul_s8": "Tensor a, Tensor b, int a_zero_point, int b_zero_point, int output_zero_point, "
              "int output_multiplier, int output_shift, int activation_min, int activation_max",
    "avg_pool2d_s8": "Tensor input, int[2] kernel_size, int[2] stride, int[2] padding, "
                     "bool count_include_pad, int zero_point, int activation_min, "
                     "int activation_max",
    # ceil_mode last: the kernel also takes the programs written before it (no ceil_mode)
    "max_pool2d_s8": "Tensor input, int[2] kernel_size, int[2] stride, int[2] padding, "
                     "int[2] dilation, int activation_min, int activation_max, bool ceil_mode=False",
    "mean_s8": "Tensor input, int input_zero_point, int output_zero_point, int multiplier, "
               "int shift",
    "pad_s8": "Tensor input, int[4] pads, int pad_value",
    "softmax_s8": "Tensor input, int input_multiplier, int input_left_shift, int diff_min",
    "lut_s8": "Tensor input, Tensor table",
    "conv_transpose2d_s8": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, "
                           "Tensor shift, int[2] stride, int[2] padding, int[2] output_padding, "
                           "int[2] dilation, int groups, int input_zero_point, "
                           "int output_zero_point, int activation_min, int activation_max",
    "upsample_nearest2d_s8": "Tensor input, Tensor index_h, Tensor index_w",
    "upsample_bilinear2d_s8": "Tensor input, int[2] output_size, bool align_corners, "
                              "int[2] scale_q32",
    # int16 activations (zero point 0), int8 weights, int64 bias: aot.compiler.quant.int16ref
    "conv2d_s16": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                  "int[2] stride, int[2] padding, int[2] dilation, int activation_min, "
                  "int activation_max",
    "depthwise_conv2d_s16": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, "
                            "Tensor shift, int[2] stride, int[2] padding, int[2] dilation, "
                            "int depth_multiplier, int activation_min, int activation_max",
    "linear_s16": "Tensor input, Tensor weight, Tensor bias, Tensor multiplier, Tensor shift, "
                  "int activation_min, int activation_max",
}


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t


def _conv_shape(n, h, w, cout, k, stride, padding, dilation):
    ho = (h + 2 * padding[0] - dilation[0] * (k[0] - 1) - 1) // stride[0] + 1
    wo = (w + 2 * padding[1] - dilation[1] * (k[1] - 1) - 1) // stride[1] + 1
    return (n, ho, wo, cout)


def _shape(name: str, args) -> tuple:
    """Output shape of op `name` from its (functional) arguments."""
    name = name.replace("_s16", "_s8")  # the int16 ops take their int8 twins' geometry arguments
    if name == "conv2d_s8":
        x, w = args[0], args[1]
        return _conv_shape(x.shape[0], x.shape[1], x.shape[2], w.shape[0],
                           (w.shape[1], w.shape[2]), args[5], args[6], args[7])
    if name == "grouped_conv2d_s8":
        x, w = args[0], args[1]
        return _conv_shape(x.shape[0], x.shape[1], x.shape[2], w.shape[0],
                           (w.shape[1], w.shape[2]), args[5], args[6], args[7])
    if name == "conv2d_s8_nchw":
        x, w = args[0], args[1]
        return _conv_shape(x.shape[0], x.shape[2], x.shape[3], w.shape[0],
                           (w.shape[1], w.shape[2]), args[5], args[6], args[7])
    if name == "depthwise_conv2d_s8":
        x, w = args[0], args[1]
        return _conv_shape(x.shape[0], x.shape[1], x.shape[2], w.shape[3],
                           (w.shape[1], w.shape[2]), args[5], args[6], args[7])
    if name == "pointwise_s8_planar16":
        x, w, (ph, pw) = args[0], args[1], args[5]
        return (x.shape[0], w.shape[0], x.shape[1] + 2 * ph, x.shape[2] + 2 * pw)
    if name == "depthwise_planar16_s8":
        x, w, (ph, pw) = args[0], args[1], args[6]
        return _conv_shape(x.shape[0], x.shape[2] - 2 * ph, x.shape[3] - 2 * pw, w.shape[3],
                           (w.shape[1], w.shape[2]), args[5], args[6], args[7])
    if name in ("linear_s8", "linear_s4"):
        return (args[0].shape[0], args[1].shape[0])
    if name == "bmm_s8":
        a, b = args[0], args[1]
        return (a.shape[0], a.shape[1], b.shape[1] if args[2] else b.shape[2])
    if name in ("add_s8", "mul_s8", "softmax_s8", "lut_s8"):
        return tuple(args[0].shape)
    if name == "avg_pool2d_s8":
        x = args[0]
        stride = args[2] if len(args[2]) else args[1]
        return _conv_shape(x.shape[0], x.shape[1], x.shape[2], x.shape[3], args[1],
                           stride, args[3], (1, 1))
    if name == "max_pool2d_s8":
        x = args[0]
        stride = args[2] if len(args[2]) else args[1]
        if len(args) > 7 and args[7]:
            return (x.shape[0], *(int8ref.pool_ceil_dim(x.shape[1 + i], args[1][i], stride[i], args[3][i],
                                                        args[4][i]) for i in range(2)), x.shape[3])
        return _conv_shape(x.shape[0], x.shape[1], x.shape[2], x.shape[3], args[1],
                           stride, args[3], args[4])
    if name == "mean_s8":
        x = args[0]
        return (x.shape[0], 1, 1, x.shape[3])
    if name == "pad_s8":
        x, p = args[0], args[1]
        return (x.shape[0], x.shape[1] + p[0] + p[1], x.shape[2] + p[2] + p[3], x.shape[3])
    if name == "conv_transpose2d_s8":
        x, w = args[0], args[1]
        (sh, sw), (ph, pw), (oph, opw), (dh, dw) = args[5], args[6], args[7], args[8]
        return (x.shape[0], (x.shape[1] - 1) * sh - 2 * ph + dh * (w.shape[1] - 1) + oph + 1,
                (x.shape[2] - 1) * sw - 2 * pw + dw * (w.shape[2] - 1) + opw + 1, w.shape[0])
    if name == "upsample_nearest2d_s8":
        x = args[0]
        return (x.shape[0], args[1].shape[0], args[2].shape[0], x.shape[3])
    if name == "upsample_bilinear2d_s8":
        x = args[0]
        return (x.shape[0], args[1][0], args[1][1], x.shape[3])
    raise KeyError(name)


def _registered(probe: str) -> bool:
    """True when mote::<probe> is registered already (this module reloaded)."""
    ns = getattr(torch.ops, NAMESPACE)
    if hasattr(ns, probe):
        try:
            getattr(ns, probe).default
            return True
        except (AttributeError, RuntimeError):
            pass
    return False


def _register_family(probe: str, entries):
    """Define and implement a family of one-output ops: entries (name, argument schema,
    reference function on numpy arrays, fake function giving the output's empty tensor).
    Each op gets its functional and .out forms, CPU implementations that run the
    reference, and fake (meta) implementations. None when mote::<probe> exists."""
    if _registered(probe):
        return None
    lib = torch.library.Library(NAMESPACE, "FRAGMENT")
    for name, args, ref, fake in entries:
        lib.define(f"{name}({args}) -> Tensor")
        lib.define(f"{name}.out({args}, *, Tensor(a!) out) -> Tensor(a!)")

        def cpu(*a, _ref=ref):
            return torch.from_numpy(np.ascontiguousarray(_ref(*[_np(x) for x in a])))

        def cpu_out(*a, out, _cpu=cpu):
            res = _cpu(*a)
            if tuple(out.shape) != tuple(res.shape):
                out.resize_(res.shape)
            out.copy_(res)
            return out

        def fake_out(*a, out):
            return out

        lib.impl(name, cpu, "CPU")
        lib.impl(f"{name}.out", cpu_out, "CPU")
        torch.library.register_fake(f"{NAMESPACE}::{name}", fake, lib=lib)
        torch.library.register_fake(f"{NAMESPACE}::{name}.out", fake_out, lib=lib)
    return lib


def _fake(name: str, out_dtype):
    def fake(*args):
        return args[0].new_empty(_shape(name, args), dtype=out_dtype)
    return fake


def _register():
    from aot.compiler.quant import int16ref

    def entry(name, args):
        s16 = name.endswith("_s16")
        out_dtype = torch.int16 if s16 or name.endswith("planar16") else torch.int8
        return name, args, getattr(int16ref if s16 else int8ref, name), _fake(name, out_dtype)
    return _register_family("pad_s8", [entry(n, a) for n, a in SCHEMAS.items()])


_LIB = _register()

#: 4-bit weight operators (fp32 activations): op name -> argument schema
#: without out (aot.compiler.quant.int4ref gives their arithmetic and packing)
W4_SCHEMAS = {
    "linear_w4": "Tensor input, Tensor weight, Tensor scales, Tensor? bias, int group_size",
    "embedding_w4": "Tensor weight, Tensor scales, Tensor indices, int group_size",
}


def _w4_shape(name: str, args) -> tuple:
    if name == "linear_w4":
        return (args[0].shape[0], args[1].shape[0])
    return tuple(args[2].shape) + (2 * args[0].shape[1],)


def _register_w4():
    from aot.compiler.quant import int4ref

    def fake(name):
        return lambda *a: a[1].new_empty(_w4_shape(name, a), dtype=torch.float32)
    return _register_family("linear_w4", [(n, a, getattr(int4ref, n), fake(n))
                                          for n, a in W4_SCHEMAS.items()])


_W4_LIB = _register_w4()

#: recurrent cells, one time step (aot.compiler.quant.recurrentref): op name ->
#: (argument schema without outs, out arguments with their dtypes)
RNN_SCHEMAS = {
    "lstm_cell_s8": ("Tensor input, Tensor hidden, Tensor cell, Tensor weight_ih, Tensor weight_hh, "
                     "Tensor bias, Tensor multiplier, Tensor shift, Tensor table, int cell_frac_bits, "
                     "int hidden_zero_point, int hidden_multiplier, int hidden_shift",
                     (("out", torch.int8), ("cell_out", torch.int16))),
    "gru_cell_s8": ("Tensor input, Tensor hidden, Tensor weight_ih, Tensor weight_hh, Tensor bias, "
                    "Tensor multiplier, Tensor shift, Tensor table, int hidden_zero_point, "
                    "int hidden_multiplier, int hidden_shift",
                    (("out", torch.int8),)),
}


def _register_rnn():
    from aot.compiler.quant import recurrentref
    ns = getattr(torch.ops, NAMESPACE)
    if hasattr(ns, "gru_cell_s8"):
        try:
            ns.gru_cell_s8.default
            return None  # already registered (module reloaded)
        except (AttributeError, RuntimeError):
            pass
    lib = torch.library.Library(NAMESPACE, "FRAGMENT")
    for name, (args, outs) in RNN_SCHEMAS.items():
        letters = "abcd"
        if len(outs) == 1:
            ret, ret_out = "Tensor", "Tensor(a!)"
        else:
            ret = "(" + ", ".join("Tensor" for _ in outs) + ")"
            ret_out = "(" + ", ".join(f"Tensor({letters[i]}!)" for i in range(len(outs))) + ")"
        out_args = ", ".join(f"Tensor({letters[i]}!) {o}" for i, (o, _) in enumerate(outs))
        lib.define(f"{name}({args}) -> {ret}")
        lib.define(f"{name}.out({args}, *, {out_args}) -> {ret_out}")
        ref = getattr(recurrentref, name)

        def cpu(*a, _ref=ref, _n=len(outs)):
            res = _ref(*[_np(x) for x in a])
            res = res if isinstance(res, tuple) else (res,)
            res = tuple(torch.from_numpy(np.ascontiguousarray(r)) for r in res)
            return res if _n > 1 else res[0]

        def cpu_out(*a, _cpu=cpu, _outs=outs, **kw):
            res = _cpu(*a)
            res = res if isinstance(res, tuple) else (res,)
            dst = tuple(kw[o] for o, _ in _outs)
            for d, r in zip(dst, res):
                if tuple(d.shape) != tuple(r.shape):
                    d.resize_(r.shape)
                d.copy_(r)
            return dst if len(dst) > 1 else dst[0]

        def fake(*a, _outs=outs):
            shape = (a[0].shape[0], a[1].shape[1])
            res = tuple(a[0].new_empty(shape, dtype=dt) for _, dt in _outs)
            return res if len(res) > 1 else res[0]

        def fake_out(*a, _outs=outs, **kw):
            dst = tuple(kw[o] for o, _ in _outs)
            return dst if len(dst) > 1 else dst[0]

        lib.impl(name, cpu, "CPU")
        lib.impl(f"{name}.out", cpu_out, "CPU")
        torch.library.register_fake(f"{NAMESPACE}::{name}", fake, lib=lib)
        torch.library.register_fake(f"{NAMESPACE}::{name}.out", fake_out, lib=lib)
    return lib


_RNN_LIB = _register_rnn()

#: ExecuTorch's out-variants of the edge quantize/dequantize ops (torch only
#: defines the functional ones); same names and argument order as ExecuTorch.
_QD_OUT = {
    "quantize_per_tensor": "quantize_per_tensor.out(Tensor input, float scale, int zero_point, "
                           "int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) "
                           "-> Tensor(a!)",
    "dequantize_per_tensor": "dequantize_per_tensor.out(Tensor input, float scale, "
                             "int zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
                             "ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
}


def _register_qd_out():
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (functional q/dq)
    ns = torch.ops.quantized_decomposed
    lib = None
    for name, schema in _QD_OUT.items():
        if "out" in getattr(ns, name).overloads():
            continue  # already there (e.g. ExecuTorch's library was loaded first)
        lib = lib or torch.library.Library("quantized_decomposed", "FRAGMENT")
        lib.define(schema)
        functional = getattr(ns, name).default

        def cpu_out(*args, out, _f=functional, **kw):
            res = _f(*args, **kw)
            if tuple(out.shape) != tuple(res.shape):
                out.resize_(res.shape)
            out.copy_(res)
            return out

        def fake_out(*args, out, **kw):
            return out

        lib.impl(f"{name}.out", cpu_out, "CPU")
        torch.library.register_fake(f"quantized_decomposed::{name}.out", fake_out, lib=lib)
    return lib


_QD_LIB = _register_qd_out()


def op(name: str):
    """The functional overload ``torch.ops.mote.<name>.default``."""
    return getattr(getattr(torch.ops, NAMESPACE), name).default


def op_out(name: str):
    """The out-variant overload ``torch.ops.mote.<name>.out``."""
    return getattr(getattr(torch.ops, NAMESPACE), name).out


#: the real FFT's spectrum operators (aot.compiler.fftref, kernels/fft.h): op name ->
#: (argument schema without out, out dtype). rfft_mag is what torch.fft.rfft / torch.stft
#: followed by abs (and ** 2) lower to (aot.compiler.passes.spectrum); the fixed-point
#: ones are called as torch.ops.mote.rfft_mag_q15 / _q31 in a model.
FFT_SCHEMAS = {
    "rfft_mag": ("Tensor input, Tensor twiddles, int power, float scale", torch.float32),
    "rfft_mag_q15": ("Tensor input, Tensor twiddles, int power", torch.int32),
    "rfft_mag_q31": ("Tensor input, Tensor twiddles, int power, int shift", torch.int32),
    # rfft_mag of float(input) * window (input int16 or float32): what a cast and a window's
    # multiply before rfft_mag join (aot.compiler.passes.spectrum.fuse_window)
    "rfft_mag_window": ("Tensor input, Tensor twiddles, int power, float scale, Tensor window", torch.float32),
}


def _register_fft():
    from aot.compiler import fftref

    def fake(dtype):
        return lambda x, *a: x.new_empty(tuple(x.shape[:-1]) + (x.shape[-1] // 2 + 1,), dtype=dtype)
    return _register_family("rfft_mag", [(n, a, getattr(fftref, n), fake(dt))
                                         for n, (a, dt) in FFT_SCHEMAS.items()])


_FFT_LIB = _register_fft()

#: the banded product (aot.compiler.bandref, kernels/op_mote_band_mm.c): what mm / addmm
#: by a constant weight whose columns are each one band of nonzeros (a mel filterbank)
#: lower to (aot.compiler.passes.band_mm)
BAND_SCHEMAS = {
    "band_mm": "Tensor input, Tensor values, Tensor bands, Tensor? bias",
}


def _register_band():
    from aot.compiler import bandref

    def fake(x, values, bands, *a):
        return x.new_empty((x.shape[0], bands.shape[0]), dtype=torch.float32)
    return _register_family("band_mm", [(n, a, getattr(bandref, n), fake) for n, a in BAND_SCHEMAS.items()])


_BAND_LIB = _register_band()
