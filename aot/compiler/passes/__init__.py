"""Graph passes from Core ATen to Mote's functional edge graph, one per module.

Every pass takes and mutates an :class:`aot.compiler.passes.edge_program.EdgeProgram`.
:func:`run_fp32_passes` runs them in the order the fp32 lowering needs.
"""
from __future__ import annotations

from aot.compiler.passes.edge_program import EdgeProgram, from_exported, mutable_buffer_keys


def run_fp32_passes(prog: EdgeProgram) -> EdgeProgram:
    """Fold torchao int4 weights into Mote's int4 ops (quant/int4.py), fuse rfft + abs into
    mote::rfft_mag (spectrum), drop no-ops, rewrite ``1 - x`` / ``<<`` / ``>>`` calls (scalar_ops), fold
    BN into convs, turn a bmm by one broadcast matrix into an mm (broadcast_matmul), fold constants, fold a
    power-of-two scale into the constant multiplying next (fold_scale) and a window multiply (with an int16 cast)
    into the transform reading it (spectrum.fuse_window), run an mm by a banded constant weight on its
    bands (band_mm: a mel filterbank, a scalar added after it as its bias), turn views into et_view/view_copy. Returns
    ``prog`` (mutated)."""
    from aot.compiler.passes.band_mm import lower_band_mm
    from aot.compiler.passes.broadcast_matmul import bmm_to_mm
    from aot.compiler.passes.const_fold import fold_constants
    from aot.compiler.passes.fold_scale import fold_scales
    from aot.compiler.quant.int4 import fuse_int4_weights
    from aot.compiler.passes.fold_batchnorm import fold_batchnorm
    from aot.compiler.passes.remove_noops import remove_noops
    from aot.compiler.passes.scalar_ops import rewrite_scalar_ops
    from aot.compiler.passes.spectrum import fuse_spectrum, fuse_window
    from aot.compiler.passes.views import lower_views

    fuse_int4_weights(prog)  # first: const_fold would turn the int4 weights into fp32 ones
    fuse_spectrum(prog)  # rfft/stft -> abs [** 2]: mote::rfft_mag, before the complex ops meet a kernel check
    remove_noops(prog)
    rewrite_scalar_ops(prog)
    fold_batchnorm(prog)
    bmm_to_mm(prog)  # before folding: the broadcast weight would be folded into B copies
    fold_constants(prog)
    fold_scales(prog)  # after folding: (x * 2^k) * window -> x * (2^k window), one mul
    fuse_window(prog)  # then that window (and an int16 cast) into the transform: mote::rfft_mag_window
    lower_band_mm(prog)  # after folding: a weight made from constants (a folded transpose) is one by then
    lower_views(prog)
    prog.prune_constants()
    prog.graph.lint()
    return prog


__all__ = ["EdgeProgram", "from_exported", "mutable_buffer_keys", "run_fp32_passes"]
