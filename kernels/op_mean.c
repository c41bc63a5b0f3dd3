/*
 * aten::mean.out - mean over the dims in `dim` (None or [] = all dims).
 *
 *   args (5): self, dim int[]? (negative counts from the end, no repeats), keepdim bool,
 *             dtype ScalarType? (None or Float = 6), out (reduced shape; reduced
 *             dims kept as 1 when keepdim).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape). out must not overlap self.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("aten::mean.out")

MOTE_K_DECLARE(mote_kernel_aten_mean_out);

mote_err_t mote_kernel_aten_mean_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    int keepdim;
    size_t count;
    uint32_t d;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_K_TRY(mote_k_tensor(args[0], &in));
    MOTE_K_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_K_TRY(mote_k_tensor(args[4], &out));
    if (!mote_k_is_none(args[3])) {
        int64_t dt;
        MOTE_K_TRY(mote_k_int(args[3], &dt));
        MOTE_K_CHECK(dt == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    }
    MOTE_K_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_TRY(mote_k_reduce_dims(args[1], in, reduce));
    MOTE_K_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_K_TRY(mote_k_check_numel(in));
    MOTE_K_TRY(mote_k_check_numel(out));
    count = 1;
    for (d = 0; d < in->dim; d++) {
        if (reduce[d]) {
            count *= (size_t)in->sizes[d];
        }
    }
    mote_k_reduce_sum_f32(in, reduce, (float *)out->data, out->numel,
                          count > 0 ? 1.0f / (float)count : 0.0f);
    if (count == 0) {
        size_t i;
        for (i = 0; i < out->numel; i++) {
            ((float *)out->data)[i] = NAN; /* mean of nothing is NaN */
        }
    }
    return MOTE_OK;
}
