/*
 * kernels/binary.h - shared engine of the arithmetic binary kernels
 * (add/sub/mul/div, tensor and Scalar overloads). Internal.
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

#endif /* MOTE_BINARY_H */
