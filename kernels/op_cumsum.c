/*
 * aten::cumsum.out - torch.cumsum(x, dim, dtype=None): running sums along `dim`.
 *
 *   args (4): self, dim int (negative counts from the end; 0-d accepts 0/-1),
 *             dtype ScalarType? (None: int64 for integer/bool self, else self's
 *             dtype), out (self's shape, of that dtype).
 *   dtypes: self float32 or bool/uint8/int8/int16/int32/int64; out float32
 *           (float32 sums), or int32/int64 for an integer/bool self (wrapping
 *           like torch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape). out must not overlap self.
 */
#include "reduce.h"

MOTE_KERNEL("aten::cumsum.out")

MOTE_K_DECLARE(mote_kernel_aten_cumsum_out);

mote_err_t mote_kernel_aten_cumsum_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *in, *out;
    mote_dtype_t dt;
    int64_t dim;
    uint32_t d;
    size_t outer, len, inner, o, i, k;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_CHECK(mote_k_is_none(args[2]) || args[2]->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_TRY(mote_red_acc_dtype(args[2], in, &dt));
    MOTE_CHECK(out->dtype == dt, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    outer = mote_k_prod(in, 0, d);
    len = in->dim == 0 ? 1 : (size_t)in->sizes[d];
    inner = mote_k_prod(in, d + 1, in->dim);
    if (in->numel == 0) {
        return MOTE_OK;
    }
    for (o = 0; o < outer; o++) {
        for (i = 0; i < inner; i++) {
            const size_t base = o * len * inner + i;
            if (dt == MOTE_DTYPE_FLOAT32) {
                float *y = (float *)out->data + base;
                float acc = 0.0f;
                if (in->dtype == MOTE_DTYPE_FLOAT32) {
                    const float *x = (const float *)in->data + base;
                    for (k = 0; k < len; k++) {
                        acc += x[k * inner];
                        y[k * inner] = acc;
                    }
                } else {
                    for (k = 0; k < len; k++) {
                        acc += (float)mote_red_load_i64(in->data, in->dtype, base + k * inner);
                        y[k * inner] = acc;
                    }
                }
            } else {
                uint64_t acc = 0; /* integers wrap as in torch */
                for (k = 0; k < len; k++) {
                    acc += (uint64_t)mote_red_load_i64(in->data, in->dtype, base + k * inner);
                    if (dt == MOTE_DTYPE_INT64) {
                        ((int64_t *)out->data)[base + k * inner] = (int64_t)acc;
                    } else {
                        ((int32_t *)out->data)[base + k * inner] = (int32_t)(uint32_t)acc;
                    }
                }
            }
        }
    }
    return MOTE_OK;
}
