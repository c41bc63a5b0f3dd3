"""Quantization: PT2E (torchao) annotation and calibration, and the lowerings
of its result to Mote's integer ``mote::`` ops.

- :mod:`.pt2e`: :func:`quantize` (export -> prepare -> calibrate -> convert),
  :func:`prepare_qat`, calibration files;
- :mod:`.annotate`: :class:`MoteQuantizer` (the int8 / int16-activation /
  int4 x int8 schemes) as a table of annotation rules; :mod:`.state`: the
  model's mutable buffers as quantization sees them;
- :mod:`.opsets`: the ATen op kinds both sides key on;
- :mod:`.lowering`: the driver that turns the converted graph into integer
  ops (:func:`lower_int8`, :func:`int8_program`, :class:`Int8Info`,
  :class:`Int8FallbackWarning`);
- :mod:`.patterns`: the table of lowerings (what each matches, emits, and why
  it refuses), in :mod:`.patterns.conv`, :mod:`.patterns.arith`,
  :mod:`.patterns.movement`; :mod:`.values`: the integer value and its layout;
- :mod:`.weights4` (``--int4-weights``: torchao int4 groups) and :mod:`.int4`
  (their fold into ``mote::linear_w4`` / ``embedding_w4``);
- :mod:`.report`: the MAC share and fallback report ``--int8`` prints.

- :mod:`.int8ref`, :mod:`.int16ref`, :mod:`.int4ref`: the integer reference of
  every ``mote::`` op (numpy), which the host, DSP, MVE and plain kernels match
  byte for byte, and the AOT arithmetic (multipliers, shifts, int4 packing).

Importing this package imports nothing
(``import aot`` never loads torch).
"""
