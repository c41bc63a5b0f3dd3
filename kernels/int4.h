/*
 * int4.h - 4-bit weights shared by mote::linear_w4 and mote::embedding_w4.
 *
 * A weight row of K int4 values is K/2 bytes: element 2i in the low nibble of
 * byte i, element 2i+1 in the high nibble, two's complement nibbles (the
 * packing of CMSIS-NN's s4 kernels; aot/compiler/quant/int4ref.py packs it). Each
 * group of `group` consecutive elements of a row has one float32 scale
 * (symmetric: w = q * scale), scales [rows, K / group].
 */
#ifndef MOTE_KERNELS_INT4_H
#define MOTE_KERNELS_INT4_H
#include "kutil.h"

/* The int4 value at nibble `k` of a packed row, in [-8, 7]. */
static inline int32_t mote_w4_at(const uint8_t *row, size_t k)
{
    const uint32_t nib = (k & 1u) ? (uint32_t)(row[k >> 1] >> 4) : (uint32_t)(row[k >> 1] & 0x0Fu);
    return (int32_t)nib - (int32_t)((nib & 8u) << 1);
}

/*
 * Checks packed weight `w` (uint8 or int8 [rows, K/2]), scales `s` (float32
 * [rows, K/group]) and `group` (even, > 0, divides K) for K = 2 * w->sizes[1].
 * Errors: MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE, MOTE_ERR_KERNEL_ARGS (group).
 */
mote_err_t mote_w4_check(const mote_tensor_t *w, const mote_tensor_t *s, int64_t group);

#endif
