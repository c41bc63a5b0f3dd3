/*
 * kernels/softmax.h - shared engine of aten::_softmax.out and
 * aten::_log_softmax.out (argument checks and the row loop). Internal.
 */
#ifndef MOTE_SOFTMAX_H
#define MOTE_SOFTMAX_H

#include "kutil.h"

/**
 * Run (log-)softmax on ExecuTorch out-variant arguments
 *   args (4): self, dim int (negative counts from the end), half_to_float bool
 *             (must be false), out (same shape as self); float32 only.
 * log = 0: out = exp(x - max) / sum(exp(x - max));
 * log = 1: out = x - max - log(sum(exp(x - max))).
 * Errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim out of range, half_to_float),
 * MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out may alias self exactly.
 */
mote_err_t mote_k_softmax_f32(mote_value_t *const *args, uint32_t nargs, int log);

#endif /* MOTE_SOFTMAX_H */
