/*
 * kernels/pad.h - shared body of reflection_pad{1,2,3}d.out and
 * replication_pad{1,2,3}d.out. Internal.
 */
#ifndef MOTE_PAD_H
#define MOTE_PAD_H

#include "kutil.h"

/**
 * Whole kernel (self, padding int[2k], out) padding the last k dims (k = 1..3)
 * of a rank k+1 or k+2 tensor: padding = [left, right] per dim, last dim
 * first. reflect: mirror without repeating the edge (each pad < the input
 * size); else replicate the edge (input size > 0). Negative pads crop.
 * Any dtype (out == self). Errors: KERNEL_ARGS (count/tags, padding length,
 * a reflection pad >= the size), KERNEL_DTYPE, KERNEL_SHAPE (rank, out).
 */
mote_err_t mote_k_pad_nd(mote_value_t *const *args, uint32_t nargs, uint32_t k, int reflect);

#endif /* MOTE_PAD_H */
