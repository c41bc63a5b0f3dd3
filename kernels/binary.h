/*
 * kernels/binary.h - shared engine of the arithmetic binary kernels
 * (add/sub/mul/div, tensor and Scalar overloads) and of the float32 unary
 * kernels (exp, neg, relu, rsqrt, sigmoid, tanh, clamp, hardtanh). Internal.
 */
#ifndef MOTE_BINARY_H
#define MOTE_BINARY_H

#include "kutil.h"

typedef enum mote_binop { MOTE_BINOP_ADD, MOTE_BINOP_SUB, MOTE_BINOP_MUL, MOTE_BINOP_DIV } mote_binop_t;

/**
 * Run a binary op on ExecuTorch out-variant arguments:
 *   other_is_scalar: args[1] is a Scalar (the .Scalar_out overloads), else a Tensor;
 *   has_alpha:       args[2] is the Scalar alpha (add/sub), out is last.
 * out = self (op) alpha*other with numpy broadcasting.
 * dtypes: float32 everywhere; or int32/int64 everywhere (not div); a
 * one-element tensor of another dtype (a lifted scalar constant) is accepted
 * next to a float32 tensor. Errors: KERNEL_ARGS, KERNEL_DTYPE, KERNEL_SHAPE.
 */
mote_err_t mote_k_binary(mote_value_t *const *args, uint32_t nargs, mote_binop_t op,
                         int other_is_scalar, int has_alpha);

/**
 * Common checks of a float32 unary kernel with `nargs_expected` arguments:
 * args[0] = self, args[last] = out, same shape, both float32.
 */
mote_err_t mote_k_unary_f32(mote_value_t *const *args, uint32_t nargs, uint32_t nargs_expected,
                            const float **x, float **y, size_t *n);

/**
 * Body of a float32 unary kernel `self, out`: check the arguments with
 * mote_k_unary_f32 (returning its error from the calling kernel) and set
 * out[i] = EXPR, where EXPR reads the element self[i] as the variable V.
 * A macro rather than a helper taking a function pointer: the compiler sees
 * EXPR inside the loop, so it inlines and vectorises it as when each kernel
 * wrote the loop itself. Usage: MOTE_K_UNARY_F32(args, nargs, v, expf(v));
 */
#define MOTE_K_UNARY_F32(ARGS, NARGS, V, EXPR)                                   \
    do {                                                                         \
        const float *mote_k_x_;                                                  \
        float *mote_k_y_;                                                        \
        size_t mote_k_n_, mote_k_i_;                                             \
        MOTE_TRY(mote_k_unary_f32(ARGS, NARGS, 2, &mote_k_x_, &mote_k_y_, &mote_k_n_)); \
        for (mote_k_i_ = 0; mote_k_i_ < mote_k_n_; mote_k_i_++) {                \
            const float V = mote_k_x_[mote_k_i_];                                \
            mote_k_y_[mote_k_i_] = (EXPR);                                       \
        }                                                                        \
    } while (0)

#endif /* MOTE_BINARY_H */
