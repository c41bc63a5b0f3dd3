/*
 * kernels/reduce.h - shared engine of the reduction family: amax/amin,
 * max/min (unary and .dim), argmax/argmin, any, prod, var/var_mean, cumsum
 * and topk. Internal.
 *
 * A reduction is described by a geometry (mote_red_geom_t): the kept dims
 * (in order: they enumerate the out elements row-major) and the reduced dims
 * (in order: they enumerate each out element's inputs row-major, so the
 * position r of an input in that enumeration is the index along a single
 * reduced dim, or the flat index when every dim is reduced). Dims of size 1
 * are dropped and neighbours of the same kind merged.
 */
#ifndef MOTE_REDUCE_H
#define MOTE_REDUCE_H

#include "kutil.h"

typedef struct mote_red_geom {
    uint32_t nk, nr;                  /* kept / reduced dims after merging */
    size_t ksize[MOTE_MAX_DIM], rsize[MOTE_MAX_DIM];
    ptrdiff_t kstride[MOTE_MAX_DIM], rstride[MOTE_MAX_DIM]; /* element strides in `in` */
    size_t out_numel, red_numel;      /* out elements, inputs per out element */
} mote_red_geom_t;

/** Odometer over `n` dims of sizes/strides: idx and the element offset. */
typedef struct mote_red_it {
    size_t idx[MOTE_MAX_DIM];
    ptrdiff_t off;
} mote_red_it_t;

/** Geometry of reducing `in` over the dims flagged in reduce[] (in->dim entries). */
void mote_red_geom(const mote_tensor_t *in, const uint8_t *reduce, mote_red_geom_t *g);
/** Start an odometer at offset 0. */
void mote_red_it_reset(mote_red_it_t *it);
/** Advance an odometer by one element (last dim fastest). */
void mote_red_it_next(mote_red_it_t *it, const size_t *size, const ptrdiff_t *stride, uint32_t n);

/** reduce[] for the single dim `dim` of `in` (negative counts from the end; 0-d accepts 0/-1). */
mote_err_t mote_red_one_dim(int64_t dim, const mote_tensor_t *in, uint8_t *reduce);

/**
 * reduce[] from an `int[]? dim` argument: None = all dims; an empty list =
 * all dims when empty_is_all, else no dim (any.dims). Repeats are ARGS.
 */
mote_err_t mote_red_dim_list(const mote_value_t *v, const mote_tensor_t *in, int empty_is_all,
                             uint8_t *reduce);

/** 1 for the integer dtypes int8/uint8/int16/int32/int64 and bool. */
int mote_red_is_intlike(mote_dtype_t dt);

/** Element i of an int-like tensor's data (bool/uint8 zero-extended) as int64. */
int64_t mote_red_load_i64(const void *data, mote_dtype_t dt, size_t i);

/**
 * out (in's dtype: float32, int32 or int64) = max (is_max) or min of each
 * out element's inputs; a NaN input gives NaN. g->red_numel must be > 0.
 */
void mote_red_minmax(const mote_tensor_t *in, const mote_red_geom_t *g, void *out, int is_max);

/**
 * idx[o] = position r (see above) of the max (is_max) or min of each out
 * element's inputs, the first one on ties, a NaN counting as the extreme
 * (the first NaN wins); vals (in's dtype, or NULL) receives the value.
 * float32, int32 or int64; g->red_numel must be > 0.
 */
void mote_red_arg(const mote_tensor_t *in, const mote_red_geom_t *g, void *vals, int64_t *idx,
                  int is_max);

/** any's dtype rule: self bool/int8/uint8/int16/int32/int64/float32/float64, out bool (uint8 for uint8). */
int mote_red_any_dtypes(const mote_tensor_t *in, const mote_tensor_t *out);

/** out[o] (bool, one byte) = 1 if any input is non-zero (NaN counts); any dtype of size 1/4/8. */
void mote_red_any(const mote_tensor_t *in, const mote_red_geom_t *g, uint8_t *out);

/**
 * out = product of the inputs (1 for none). out float32 (in float32, or an
 * int-like in cast to float) or int32/int64 (int-like in, wrapping like torch).
 */
void mote_red_prod(const mote_tensor_t *in, const mote_red_geom_t *g, void *out,
                   mote_dtype_t out_dtype);

/**
 * float32 variance: var[o] = sum((x - mean)^2) / max(0, N - correction)
 * (two passes, float); mean (or NULL) receives the mean. N = 0 gives NaN.
 */
void mote_red_var_f32(const mote_tensor_t *in, const mote_red_geom_t *g, double correction,
                      float *var, float *mean);

/**
 * float32 vector norm of each out element's inputs (torch.linalg.vector_norm):
 * ord 0 = count of non-zero inputs (NaN counts), inf = max |x|, -inf = min |x|
 * (a NaN input gives NaN), 1 = sum |x|, 2 = sqrt(sum x*x), other ord =
 * (sum |x|^ord)^(1/ord); float accumulation in input order. An empty reduction
 * gives 0 (the caller refuses ord < 0 and inf there, as torch does).
 */
void mote_red_vector_norm_f32(const mote_tensor_t *in, const mote_red_geom_t *g, double ord, float *out);

/**
 * Arguments of var.correction_out / var_mean.correction_out:
 * (self, dim int[]? (None or [] = all), correction Scalar? (None = 1),
 *  keepdim bool, out...), `nouts` float32 outs of the reduced shape.
 * Checks count/tags, dtypes and shapes; fills g and the correction.
 */
mote_err_t mote_red_var_args(mote_value_t *const *args, uint32_t nargs, uint32_t nouts,
                             mote_tensor_t **in, mote_red_geom_t *g, double *correction);

/** Dtype rule of mote_red_dims_args: amax/amin's, or any's. */
typedef enum mote_red_dtypes { MOTE_RED_DTYPES_MINMAX, MOTE_RED_DTYPES_ANY } mote_red_dtypes_t;

/**
 * Arguments of the dim-list reductions amax.out / amin.out / any.dims_out:
 * (self, dim, keepdim bool, out) with the dim list parsed by
 * mote_red_dim_list(empty_is_all). Checks count/tags, dtypes (rule `dtypes`:
 * MINMAX = float32/int32/int64 with out in self's dtype, ANY =
 * mote_red_any_dtypes; else KERNEL_DTYPE) and out's shape; fills g.
 */
mote_err_t mote_red_dims_args(mote_value_t *const *args, uint32_t nargs, int empty_is_all,
                              mote_red_dtypes_t dtypes, mote_tensor_t **in, mote_tensor_t **out,
                              mote_red_geom_t *g);

/**
 * The whole of max.dim_max / min.dim_min: args (self, dim int, keepdim
 * bool, values, indices int64), float32/int32/int64 values in self's dtype.
 */
mote_err_t mote_red_dim_minmax(mote_value_t *const *args, uint32_t nargs, int is_max);

/**
 * The whole of argmax.out / argmin.out: args (self, dim int? (None =
 * flattened), keepdim bool, out int64), self float32/int32/int64.
 */
mote_err_t mote_red_argminmax(mote_value_t *const *args, uint32_t nargs, int is_max);

/**
 * The whole of max.unary_out / min.unary_out: args (self, out 0-d of self's
 * dtype), float32/int32/int64, self non-empty.
 */
mote_err_t mote_red_unary_minmax(mote_value_t *const *args, uint32_t nargs, int is_max);

/**
 * The whole of amax.out / amin.out: args (self, dim int[] ([] = all), keepdim
 * bool, out of self's dtype), float32/int32/int64, reduced dims non-empty.
 */
mote_err_t mote_red_aminmax(mote_value_t *const *args, uint32_t nargs, int is_max);

/**
 * Optional ScalarType argument `v` and the dtype torch gives a sum-like
 * result (prod, cumsum): None -> int64 for int-like `in`, else in's dtype.
 * *dt receives the dtype; it must be float32, int32 or int64 and `in`
 * float32 or int-like (KERNEL_DTYPE); an integer result needs an int-like `in`.
 */
mote_err_t mote_red_acc_dtype(const mote_value_t *v, const mote_tensor_t *in, mote_dtype_t *dt);

/**
 * sum.IntList_out on an integer/bool self (the float32 path stays in kutil):
 * args (self, dim int[]? (None or [] = all), keepdim bool, dtype ScalarType?
 * (None: int64), out). out int64/int32 (wrapping like torch) or float32.
 */
mote_err_t mote_red_sum_int(mote_value_t *const *args, uint32_t nargs);

#endif /* MOTE_REDUCE_H */
