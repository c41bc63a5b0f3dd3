/*
 * kernels/kutil.h - internal helpers shared by the portable kernels (not part
 * of the public ABI). Argument accessors return MOTE_ERR_KERNEL_ARGS when a
 * value has the wrong tag; tensors must be contiguous (dim_order NULL or the
 * identity permutation).
 */
#ifndef MOTE_KUTIL_H
#define MOTE_KUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "mote/kernel.h"

/* Errors propagate with MOTE_TRY / MOTE_CHECK (mote/types.h), as in the runtime. */

/** Prototype of a kernel function (kernels define non-static symbols). */
#define MOTE_K_DECLARE(sym) \
    mote_err_t sym(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)

/** args non-NULL, exactly n of them, none NULL. */
mote_err_t mote_k_nargs(mote_value_t *const *args, uint32_t nargs, uint32_t n);
/** True for a None / NULL value (an omitted optional argument). */
int mote_k_is_none(const mote_value_t *v);
/** A contiguous tensor argument (tag Tensor, non-NULL, identity dim order). */
mote_err_t mote_k_tensor(const mote_value_t *v, mote_tensor_t **out);
/** A tensor argument or None (then *out = NULL). */
mote_err_t mote_k_opt_tensor(const mote_value_t *v, mote_tensor_t **out);
/** A Scalar argument: Int, Double or Bool value, as double. */
mote_err_t mote_k_scalar(const mote_value_t *v, double *out);
/** An int argument (tag Int). */
mote_err_t mote_k_int(const mote_value_t *v, int64_t *out);
/** A bool argument (tag Bool). */
mote_err_t mote_k_bool(const mote_value_t *v, int *out);
/** A Double argument (Double, or Int accepted). */
mote_err_t mote_k_double(const mote_value_t *v, double *out);
/** An int[] argument (tag IntList). */
mote_err_t mote_k_ints(const mote_value_t *v, const int64_t **items, uint32_t *len);
/** Normalise a possibly negative dim for a tensor of rank `rank` (rank 0 accepts 0/-1). */
mote_err_t mote_k_dim(int64_t dim, uint32_t rank, uint32_t *out);
/** Same rank and sizes. */
int mote_k_same_shape(const mote_tensor_t *a, const mote_tensor_t *b);
/** Product of sizes[lo..hi-1]. */
size_t mote_k_prod(const mote_tensor_t *t, uint32_t lo, uint32_t hi);
/** numel == product of sizes, and nbytes consistent with the dtype. */
mote_err_t mote_k_check_numel(const mote_tensor_t *t);

/**
 * Row function of a broadcast binary op: out[i] = f(a[i*sa], b[i*sb]) for
 * i < n, sa/sb in {0, 1} (element strides).
 */
typedef void (*mote_k_row2_fn)(void *out, const void *a, size_t sa, const void *b, size_t sb,
                               size_t n, const void *param);

/**
 * Numpy-broadcast `a` and `b` to out's shape and call `fn` on contiguous
 * runs. Returns MOTE_ERR_KERNEL_SHAPE unless out's shape is exactly the
 * broadcast shape. Exact aliasing of out with a full-shape input is safe.
 */
mote_err_t mote_k_broadcast2(const mote_tensor_t *a, const mote_tensor_t *b, mote_tensor_t *out,
                             mote_k_row2_fn fn, const void *param);

/**
 * rows x n bytes: row r of src (at src + r * ss bytes; ss may be negative or 0)
 * to dst + r * ds. Rows that are one run move with one memmove, long rows with a
 * memmove each, short rows (a streaming cat appends 1 byte a row, a slice of a
 * short window moves a few) inline a word at a time, where a call per row
 * would cost more than the row. Overlapping rows get defined, if meaningless,
 * values (see mote_k_strided_copy).
 */
void mote_k_copy_rows(void *dst, size_t ds, const void *src, ptrdiff_t ss, size_t rows, size_t n);

/**
 * Strided gather copy: out (contiguous, `rank` dims of `sizes`) element at
 * index (i0..) = src[sum(i_d * strides[d])] (element strides, may be 0).
 * Dims the source steps over as one run are merged first, so a slice along an
 * outer dim moves whole runs, not rows of the last dim; contiguous rows move
 * with mote_k_copy_rows.
 * Every piece moves with memmove or through registers: Mote's planner never
 * overlaps a copy's out with its input, but a crafted program can, and memcpy
 * would then be undefined (found by fuzz_mote: slice_copy into a shifted view
 * of its input). Such a program gets defined, if meaningless, values.
 */
void mote_k_strided_copy(void *out, const void *src, size_t esz, uint32_t rank,
                         const size_t *sizes, const ptrdiff_t *strides);

/**
 * Copy in's elements to out (same dtype and numel, checked by the caller):
 * the shared tail of clone and the *_copy view ops. Nothing to do when the
 * planner gave out the same buffer as in; memmove for partial overlaps.
 */
void mote_k_copy_data(const mote_tensor_t *in, mote_tensor_t *out);

/** Contiguous element strides of t (strides[d] = prod sizes[d+1..]). */
void mote_k_strides(const mote_tensor_t *t, ptrdiff_t *strides);

/**
 * Sum-reduce fp32 `in` over the dims flagged in `reduce` (rank in->dim) into
 * `out` (contiguous, numel = product of kept sizes), then multiply by scale.
 */
void mote_k_reduce_sum_f32(const mote_tensor_t *in, const uint8_t *reduce, float *out,
                           size_t out_numel, float scale);

/** Parse a dim list argument (None or [] = all dims) into reduce flags. */
mote_err_t mote_k_reduce_dims(const mote_value_t *v, const mote_tensor_t *in, uint8_t *reduce);

/** Check out's shape for a reduction of `in` over `reduce` with keepdim. */
mote_err_t mote_k_reduce_out_shape(const mote_tensor_t *in, const uint8_t *reduce, int keepdim,
                                   const mote_tensor_t *out);

/**
 * Arguments of the float32 reductions sum.IntList_out / mean.out:
 * (self, dim int[]?, keepdim bool, dtype ScalarType? (None or Float), out).
 * Sets reduce[] from dim and checks dtypes and out's reduced shape.
 */
mote_err_t mote_k_reduce_f32_args(mote_value_t *const *args, uint32_t nargs, mote_tensor_t **in,
                                  mote_tensor_t **out, uint8_t *reduce);

/**
 * Arguments of the dim-order ops _clone_dim_order.out / _to_dim_order_copy.out:
 * (self, non_blocking bool, dim_order int[]? (None or the identity of out's
 * rank), out). Dtypes and shapes are left to the kernel.
 */
mote_err_t mote_k_dim_order_args(mote_value_t *const *args, uint32_t nargs, mote_tensor_t **in,
                                 mote_tensor_t **out);

/**
 * The whole of mm.out (rank 2: [M,K] @ [K,N]) and bmm.out (rank 3: a batch
 * of those, [B,M,K] @ [B,K,N]): args (self, mat2, out), float32, checked,
 * then out = self @ mat2 with the fp32 GEMM core (gemm.h).
 */
mote_err_t mote_k_matmul_f32(mote_value_t *const *args, uint32_t nargs, uint32_t rank);

#endif /* MOTE_KUTIL_H */
