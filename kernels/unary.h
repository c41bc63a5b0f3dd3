/*
 * kernels/unary.h - shared argument checks and loops of the elementwise
 * unary kernels: math functions (sin, log, erf, ...), rounding, sign/abs,
 * activations (gelu, elu, leaky_relu, logit), predicates (isnan, isinf,
 * logical_not) and bitwise_not. Internal.
 *
 * Dtypes are passed as bit masks of mote_dtype_t codes (MOTE_U_BIT).
 * Float results are computed in float (expf, not exp) on float32 paths, as
 * PyTorch computes float32 tensors; integer and bool inputs of the ops that
 * produce float (sin of an int tensor) are converted to float first, as
 * PyTorch's type promotion does (their out is float32).
 */
#ifndef MOTE_UNARY_H
#define MOTE_UNARY_H

#include <math.h>

#include "kutil.h"

/** Bit of dtype code `d` in a dtype mask. */
#define MOTE_U_BIT(d) (1ul << (d))
/** The integer dtypes Mote's runtime knows. */
#define MOTE_U_INTS                                                                    \
    (MOTE_U_BIT(MOTE_DTYPE_UINT8) | MOTE_U_BIT(MOTE_DTYPE_INT8) |                      \
     MOTE_U_BIT(MOTE_DTYPE_INT16) | MOTE_U_BIT(MOTE_DTYPE_INT32) | MOTE_U_BIT(MOTE_DTYPE_INT64))
/** Inputs of the ops whose out is float32: float32, integers and bool. */
#define MOTE_U_TO_FLOAT (MOTE_U_BIT(MOTE_DTYPE_FLOAT32) | MOTE_U_INTS | MOTE_U_BIT(MOTE_DTYPE_BOOL))
/** Every dtype of the runtime but float16 (the "any input" of the predicates). */
#define MOTE_U_ANY \
    (MOTE_U_TO_FLOAT | MOTE_U_BIT(MOTE_DTYPE_FLOAT64) | MOTE_U_BIT(MOTE_DTYPE_FLOAT16))

/**
 * Checks of a unary kernel with `nexp` arguments, args[0] = self and
 * args[nexp - 1] = out, in the house order: count and tags
 * (MOTE_ERR_KERNEL_ARGS), then self's dtype in `in_dtypes` and out's in
 * `out_dtypes` (and equal to self's when `same_dtype`; MOTE_ERR_KERNEL_DTYPE),
 * then out's shape equal to self's (MOTE_ERR_KERNEL_SHAPE). Arguments between
 * self and out are the caller's to parse.
 */
mote_err_t mote_u_check(mote_value_t *const *args, uint32_t nargs, uint32_t nexp,
                        unsigned long in_dtypes, unsigned long out_dtypes, int same_dtype,
                        mote_tensor_t **in, mote_tensor_t **out);

/** Element i of an integer or bool tensor as float (C conversion, as static_cast). */
float mote_u_load_f32(const mote_tensor_t *t, size_t i);

/** Element i of a tensor of a dtype in MOTE_U_ANY is nonzero (NaN is nonzero, -0.0 is not). */
int mote_u_nonzero(const mote_tensor_t *t, size_t i);

/**
 * Round half to even (PyTorch's torch.round, C's nearbyint in the default
 * rounding mode) without depending on the floating-point environment.
 * The sign of a zero result is self's (round(-0.4) = -0.0).
 */
static inline float mote_u_round_even(float v)
{
    float r = floorf(v);
    const float d = v - r; /* exact: the fraction of a float is a float */
    if (d > 0.5f || (d == 0.5f && floorf(r * 0.5f) != r * 0.5f)) {
        r += 1.0f;
    }
    return copysignf(r, v);
}

/**
 * out[i] = f(x[i]) over out's numel: IN and OUT tensors, TI/TO their C
 * element types, EXPR reads the element as the variable V (type TI).
 * Read-before-write per index, so exact aliasing of equal-size elements is safe.
 */
#define MOTE_U_MAP(TI, TO, IN, OUT, V, EXPR)                                   \
    do {                                                                       \
        const TI *mote_u_x_ = (const TI *)(IN)->data;                          \
        TO *mote_u_y_ = (TO *)(OUT)->data;                                     \
        const size_t mote_u_n_ = (OUT)->numel;                                 \
        size_t mote_u_i_;                                                      \
        for (mote_u_i_ = 0; mote_u_i_ < mote_u_n_; mote_u_i_++) {              \
            const TI V = mote_u_x_[mote_u_i_];                                 \
            mote_u_y_[mote_u_i_] = (EXPR);                                     \
        }                                                                      \
    } while (0)

/**
 * Body of a float-valued kernel (self, out) (sin, log, sqrt, ...): checks
 * the arguments (self float32, an integer dtype or bool; out float32, self's
 * shape; returns the error from the calling kernel) and sets out[i] = EXPR
 * with the element as the float V. The float32 loop sees EXPR inline (the
 * compiler vectorises it); other inputs are converted per element.
 */
#define MOTE_U_FLOAT(ARGS, NARGS, V, EXPR)                                             \
    do {                                                                               \
        mote_tensor_t *mote_u_in_, *mote_u_out_;                                       \
        MOTE_TRY(mote_u_check(ARGS, NARGS, 2, MOTE_U_TO_FLOAT,                         \
                              MOTE_U_BIT(MOTE_DTYPE_FLOAT32), 0, &mote_u_in_, &mote_u_out_)); \
        if (mote_u_in_->dtype == MOTE_DTYPE_FLOAT32) {                                 \
            MOTE_U_MAP(float, float, mote_u_in_, mote_u_out_, V, EXPR);               \
        } else {                                                                       \
            float *mote_u_yf_ = (float *)mote_u_out_->data;                            \
            size_t mote_u_j_;                                                          \
            for (mote_u_j_ = 0; mote_u_j_ < mote_u_out_->numel; mote_u_j_++) {         \
                const float V = mote_u_load_f32(mote_u_in_, mote_u_j_);                \
                mote_u_yf_[mote_u_j_] = (EXPR);                                        \
            }                                                                          \
        }                                                                              \
    } while (0)

/**
 * Body of a rounding kernel (ceil, floor, round, trunc): float32 -> FEXPR of
 * the float V; integer dtypes are copied unchanged (PyTorch returns the same
 * integers, same dtype). out has self's dtype and shape.
 */
#define MOTE_U_ROUNDING(ARGS, NARGS, V, FEXPR)                                         \
    do {                                                                               \
        mote_tensor_t *mote_u_in_, *mote_u_out_;                                       \
        MOTE_TRY(mote_u_check(ARGS, NARGS, 2, MOTE_U_BIT(MOTE_DTYPE_FLOAT32) | MOTE_U_INTS, \
                              MOTE_U_BIT(MOTE_DTYPE_FLOAT32) | MOTE_U_INTS, 1,         \
                              &mote_u_in_, &mote_u_out_));                             \
        if (mote_u_in_->dtype == MOTE_DTYPE_FLOAT32) {                                 \
            MOTE_U_MAP(float, float, mote_u_in_, mote_u_out_, V, FEXPR);              \
        } else {                                                                       \
            mote_k_copy_data(mote_u_in_, mote_u_out_);                                 \
        }                                                                              \
    } while (0)

#endif /* MOTE_UNARY_H */
