/*
 * aten::full.out - out = fill_value everywhere.
 *
 *   args (3): size int[] (>= 0), fill_value Scalar, out with sizes == size.
 *   dtypes: out float32/float64/int8/uint8/int16/int32/int64/bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out sizes differ from size).
 */
#include "kfill.h"

MOTE_KERNEL("aten::full.out")

MOTE_K_DECLARE(mote_kernel_aten_full_out);

mote_err_t mote_kernel_aten_full_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    mote_tensor_t *out;
    const int64_t *size;
    uint32_t ns, i;
    double v;
    uint8_t elem[8];
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_ints(args[0], &size, &ns));
    MOTE_TRY(mote_k_scalar(args[1], &v));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_TRY(mote_k_fill_elem(out->dtype, v, elem));
    MOTE_CHECK(ns == out->dim, MOTE_ERR_KERNEL_SHAPE);
    for (i = 0; i < ns; i++) {
        MOTE_CHECK(size[i] == out->sizes[i], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_fill((uint8_t *)out->data, elem, mote_dtype_size(out->dtype), out->numel);
    return MOTE_OK;
}
