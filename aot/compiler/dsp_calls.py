"""Where the int8 calls of a DSP program carry what aot.compiler.dsp_weights adds:
argument positions of conv2d_s8's pre-widened weights (and requantization tables) and
of linear_s8's panel or table, the E-form's constants (kernels/requant.h), and the
predicates over a call that read them. Facts only: the lowest layer of the DSP
program passes (aot.compiler.scratch and aot.compiler.dsp_weights import it).
"""
from __future__ import annotations

import numpy as np

from aot import ir

CONV = ("mote::conv2d_s8", "out")
#: conv2d_s8 on the NCHW program input (aot.compiler.quant.int8ref.conv2d_s8_nchw,
#: nchw_stem_pass): conv2d_s8's arguments, the panel included
CONV_NCHW = ("mote::conv2d_s8_nchw", "out")
LINEAR = ("mote::linear_s8", "out")
#: argument index of the pre-widened weights in the 14-argument conv2d_s8
PANEL_ARG = 12
#: argument index of the panel in the 11-argument linear_s8
LINEAR_PANEL_ARG = 9
#: longest row of a linear panel, K rounded up to 8 (MOTE_S8_LIN_PANEL_KMAX)
LINEAR_KMAX = 256
INT16 = ir.NUMPY_CODES[np.dtype(np.int16)]
INT32 = ir.NUMPY_CODES[np.dtype(np.int32)]
INT8 = ir.NUMPY_CODES[np.dtype(np.int8)]


def has_panel(spec: ir.ProgramSpec, call: ir.KernelCall) -> bool:
    """True if conv2d_s8 ``call`` carries pre-widened weights (argument 12 an int16
    tensor), or linear_s8 ``call`` its panel (argument 9)."""
    at = {CONV: PANEL_ARG, CONV_NCHW: PANEL_ARG, LINEAR: LINEAR_PANEL_ARG}.get((call.op, call.overload))
    if at is None or len(call.args) <= at + 1:
        return False
    v = spec.values[call.args[at]]
    return isinstance(v, ir.TensorValue) and v.dtype == INT16


def has_table(spec: ir.ProgramSpec, call: ir.KernelCall) -> bool:
    """True if linear_s8 ``call`` carries its requantization table alone (argument 9
    an int32 tensor, linear_table): the DSP kernel reads the int8 weights in place."""
    if (call.op, call.overload) != LINEAR or len(call.args) <= LINEAR_PANEL_ARG + 1:
        return False
    v = spec.values[call.args[LINEAR_PANEL_ARG]]
    return isinstance(v, ir.TensorValue) and v.dtype == INT32


def is_conv(call) -> bool:
    """True if ``call`` is a conv2d_s8 or conv2d_s8_nchw call (the same arguments)."""
    return isinstance(call, ir.KernelCall) and (call.op, call.overload) in (CONV, CONV_NCHW)


#: the E-form of the table (kernels/requant.h): SSAT's shift E, the marker of its
#: third words, the longest K (MOTE_S8_EFORM_E, _MARK, _KMAX)
EFORM_E = 12
EFORM_MARK = 0x100
EFORM_KMAX = 256
#: its stride-1 pointwise calls of K <= EFORM_PWMAX run their own rows (MOTE_S8_EFORM_PWMAX,
#: mote_s8_eform_pw); K = EFORM_K8 the channel-stationary core (ops.json "pointwise8+etable")
EFORM_PWMAX = 32
EFORM_K8 = 8
