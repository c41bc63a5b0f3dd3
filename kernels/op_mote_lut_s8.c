/*
 * mote::lut_s8.out - elementwise int8 activation by table lookup:
 * out[i] = table[input[i] + 128]. The compiler computes the 256-entry table
 * ahead of time from the activation (sigmoid, tanh, hardswish, GELU, SiLU,
 * ELU, LeakyReLU, ...) and the input / output quantization parameters, as
 * dequantize -> f -> quantize gives it (docs/int8-ops.md), so any
 * activation costs one load per element.
 *
 *   args (3): input int8 (any shape), table int8 [256], out int8 (input's shape).
 *   dtypes: int8 (input, table, out).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not int8),
 *           MOTE_ERR_KERNEL_SHAPE (table not [256], out shape differs).
 *   out may alias input exactly (in place).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::lut_s8.out")
MOTE_KERNEL_IN_PLACE("mote::lut_s8.out")

mote_err_t mote_kernel_mote_lut_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

mote_err_t mote_kernel_mote_lut_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *in;
    mote_tensor_t *table;
    mote_tensor_t *out;
    const int8_t *x;
    const int8_t *t;
    int8_t *y;
    uint32_t i, n;

    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 3u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_any_tensor_arg(args[0], MOTE_DTYPE_INT8, &in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 1, &table));
    MOTE_TRY(mote_s8_any_tensor_arg(args[2], MOTE_DTYPE_INT8, &out));
    MOTE_CHECK(table->numel == 256u && mote_s8_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    x = (const int8_t *)in->data;
    t = (const int8_t *)table->data + 128; /* indexed by the int8 value itself */
    y = (int8_t *)out->data;
    n = in->numel; /* a local: the byte stores may alias the tensor headers */
    for (i = 0; i + 4u <= n; i += 4u) { /* four loads before four stores (in place) */
        const int32_t a0 = x[i], a1 = x[i + 1u], a2 = x[i + 2u], a3 = x[i + 3u];
        y[i] = t[a0];
        y[i + 1u] = t[a1];
        y[i + 2u] = t[a2];
        y[i + 3u] = t[a3];
    }
    for (; i < n; i++) {
        y[i] = t[(int32_t)x[i]];
    }
    return MOTE_OK;
}
