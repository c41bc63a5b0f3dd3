"""Proof, before anything is written, that the kernels accept every call of a
program: the operator set comes from the kernel files (aot.compiler.kernels),
and the argument combinations (dtypes, shapes, flags such as a transposed
convolution or a dilation a kernel does not implement) are decided by the
kernels themselves. The compiled program runs once on the host build of the
same kernel sources (libmote.so, all kernels) on the model's example inputs
(values the model is known to run on: no integer division by zero, indices
in range), and a call a
kernel refuses becomes an export-time :class:`aot.errors.UnsupportedOpError`
naming the operator, the kernel's reason and the model's file:line, instead of
an error code on the device.
"""
from __future__ import annotations

from aot import ir
from aot.errors import MoteError, RuntimeCallError, UnsupportedOpError


def check_kernels_accept(spec: ir.ProgramSpec, pte: bytes, example_inputs=(), method: str | None = None,
                        data_map: bytes | None = None) -> None:
    """Run ``pte`` (the program of ``spec``: its method ``method``, default the
    first) once on the host runtime with the
    example inputs (tensors; an input whose dtype or shape the program does not
    take, e.g. a float example for an int8_io program, is fed zeros). Raises
    UnsupportedOpError for a call whose kernel refuses its arguments, MoteError
    when the host runtime is missing or refuses the program."""
    import numpy as np

    from aot.host.runtime import Program, library_path
    if not library_path().exists():
        raise MoteError(f"the host runtime {library_path()} is not built; run `make bootstrap` "
                        "(it checks that the kernels accept the program)")
    program = Program(pte, data_map=data_map)  # data_map: the .ptd of external weights
    method = program.method(method if method is not None else 0)
    examples = [np.asarray(t.detach().cpu().numpy() if hasattr(t, "detach") else t) for t in example_inputs]
    inputs = []
    for i in range(method.num_inputs):
        info = method.input_info(i)
        ex = examples[i] if i < len(examples) else None
        ok = ex is not None and ex.dtype == info.dtype and tuple(ex.shape) == tuple(info.shape)
        inputs.append(np.asarray(ex, order="C") if ok else np.zeros(info.shape, info.dtype))
    try:
        method.run(inputs)
    except RuntimeCallError as e:
        k = e.instruction
        if k is None or not 0 <= k < len(spec.instructions):
            raise
        call = spec.instructions[k]
        raise UnsupportedOpError(f"{call.op}.{call.overload}", call.source,
                                 f"its kernel refuses these arguments: {e.name}") from None
