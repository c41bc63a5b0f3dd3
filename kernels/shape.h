/*
 * kernels/shape.h - shared logic of the shape family (copies, views, splits,
 * stacking, creation ops). Internal, not part of the ABI.
 *
 * Most view copies (transpose, t, diagonal, narrow, squeeze, as_strided,
 * unfold, flip, pixel_shuffle, ...) are one strided gather of the input:
 * out[i0..ik] = in[offset + sum_d i_d * strides[d]] (element strides, maybe
 * negative or 0), done by mote_shape_gather.
 */
#ifndef MOTE_SHAPE_H
#define MOTE_SHAPE_H

#include "kutil.h"

/** Most chunks split_copy.Tensor_out writes (its sizes live on the stack). */
#define MOTE_SHAPE_MAX_SPLIT 64u

/**
 * Common start of a one-input copy kernel with `n` arguments: argument count,
 * args[0] a tensor (self), args[n-1] a tensor (out). Extra arguments are left
 * to the kernel.
 */
mote_err_t mote_shape_io(mote_value_t *const *args, uint32_t nargs, uint32_t n, mote_tensor_t **in,
                         mote_tensor_t **out);

/** in and out have one dtype of known size (any dtype), else KERNEL_DTYPE. */
mote_err_t mote_shape_same_dtype(const mote_tensor_t *in, const mote_tensor_t *out);

/**
 * out (rank `rank`, sizes `sizes`, checked: KERNEL_SHAPE) gets the strided
 * gather of in starting at element `offset`. The caller proved every index
 * reached lies inside in (numel of both checked here). out must not overlap in.
 */
mote_err_t mote_shape_gather(const mote_tensor_t *in, mote_tensor_t *out, uint32_t rank,
                             const size_t *sizes, const ptrdiff_t *strides, ptrdiff_t offset);

/** out has exactly `rank` dims of `sizes` (and a consistent numel), else KERNEL_SHAPE. */
mote_err_t mote_shape_check_out(const mote_tensor_t *out, uint32_t rank, const size_t *sizes);

/**
 * The Tensor[] out argument `v` (tag TensorList, >= 1 non-NULL contiguous
 * tensors): items and count, else KERNEL_ARGS.
 */
mote_err_t mote_shape_out_list(const mote_value_t *v, mote_tensor_t *const **items, uint32_t *len);

/**
 * Write consecutive chunks of `in` along dim `d` into the n tensors of `outs`:
 * chunk j has sizes[j] elements along d (their sum must be in->sizes[d]).
 * With `squeeze` (unbind) every size is 1 and the outputs lack dim d.
 * Checks dtypes (KERNEL_DTYPE) then every out's shape (KERNEL_SHAPE).
 */
mote_err_t mote_shape_split(const mote_tensor_t *in, uint32_t d, mote_tensor_t *const *outs, uint32_t n,
                            const int64_t *sizes, int squeeze);

/** Same as mote_shape_split with equal chunks of `split` (last one smaller). */
mote_err_t mote_shape_split_equal(const mote_tensor_t *in, uint32_t d, mote_tensor_t *const *outs,
                                  uint32_t n, int64_t split, int squeeze);

/** A dtype the cast helpers handle: uint8/int8/int16/int32/int64/float32/float64/bool. */
int mote_shape_cast_dtype(uint8_t dt);

/**
 * out = src converted to out's dtype (as torch's .to(): float -> integer
 * truncates toward zero; where C leaves that undefined, NaN gives 0 and a value
 * out of the target's range saturates at its limits; integer -> narrower
 * integer wraps; anything -> bool is != 0), src numpy-broadcast to out's shape
 * (KERNEL_SHAPE otherwise). Dtypes checked by the caller
 * (mote_shape_cast_dtype). out may equal src exactly. The one home of dtype
 * conversion: aten::_to_copy and dim_order_ops::_to_dim_order_copy use it.
 */
mote_err_t mote_shape_cast(const mote_tensor_t *src, mote_tensor_t *out);

/**
 * The whole of a materialised alias (alias_copy, detach_copy, lift_fresh_copy):
 * args (2) self, out of self's shape and dtype (KERNEL_ARGS / KERNEL_DTYPE /
 * KERNEL_SHAPE); out = self. out may alias self exactly (nothing is copied).
 */
mote_err_t mote_shape_identity(mote_value_t *const *args, uint32_t nargs);

/**
 * The whole of ones.out / zeros.out: args (2) size int[], out with those sizes
 * (KERNEL_SHAPE) and a cast dtype (KERNEL_DTYPE); every element set to v.
 */
mote_err_t mote_shape_fill_sized(mote_value_t *const *args, uint32_t nargs, double v);

/**
 * The whole of pixel_shuffle.out (down = 0: [*, C*r*r, H, W] -> [*, C, H*r, W*r],
 * out[.., c, h*r+i, w*r+j] = self[.., c*r*r + i*r + j, h, w]) and
 * pixel_unshuffle.out (down = 1, the inverse). args (3): self (rank >= 3), r int
 * (1..65535, else KERNEL_ARGS), out. KERNEL_SHAPE when the channels (shuffle)
 * or H, W (unshuffle) do not divide by r, or out's shape differs. out must not
 * overlap self.
 */
mote_err_t mote_shape_pixel_shuffle(mote_value_t *const *args, uint32_t nargs, int down);

/** Fill all of out with the Scalar v converted to out's dtype (KERNEL_DTYPE if unsupported). */
mote_err_t mote_shape_fill(mote_tensor_t *out, double v);

/**
 * The `size` int[] argument of a creation op against out: same rank and
 * sizes, else KERNEL_SHAPE.
 */
mote_err_t mote_shape_size_matches(const mote_value_t *size, const mote_tensor_t *out);

/**
 * The whole of arange.out / arange.start_out after argument count, as torch
 * computes it: Scalars start, end, step (Int, Double or Bool values); out 1-D,
 * float32/float64/int8/uint8/int16/int32/int64 (KERNEL_DTYPE).
 *   float out: n = ceil((end - start) / step), out[i] = start + i * step in double;
 *   int64 out: the Scalars truncated to int64 first, n = (end - start + step -
 *       sign(step)) / step in integers (|values| < 2^53), out[i] = start + i * step;
 *   other integer outs: n as for float, out[i] = trunc(start) + i * trunc(step), wrapped.
 * step must be non-zero and point from start toward end (KERNEL_ARGS); out
 * must have n elements (KERNEL_SHAPE).
 */
mote_err_t mote_shape_arange(const mote_value_t *start, const mote_value_t *end, const mote_value_t *step,
                             mote_tensor_t *out);

#endif /* MOTE_SHAPE_H */
