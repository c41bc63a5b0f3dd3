/*
 * aten::logit.out - out = log(z / (1 - z)), elementwise, where z = self, or
 * with eps given z = clamp(self, eps, 1 - eps) (NaN stays NaN).
 *
 *   args (3): self, eps float? (None: no clamp; a negative eps also means no clamp,
 *             as in PyTorch), out (same shape).
 *   dtypes: self float32, or an integer dtype / bool (converted to float first);
 *           out float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (other dtypes),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place, float32).
 *   torch.export decomposes logit; ExecuTorch's own programs call this kernel.
 */
#include "unary.h"

MOTE_KERNEL("aten::logit.out")
MOTE_KERNEL_IN_PLACE("aten::logit.out")

MOTE_K_DECLARE(mote_kernel_aten_logit_out);

mote_err_t mote_kernel_aten_logit_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    mote_tensor_t *in, *out;
    float *y;
    double eps = -1.0;
    float lo, hi;
    size_t i;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    if (!mote_k_is_none(args[1])) {
        MOTE_TRY(mote_k_double(args[1], &eps));
    }
    MOTE_TRY(mote_u_check(args, nargs, 3, MOTE_U_TO_FLOAT, MOTE_U_BIT(MOTE_DTYPE_FLOAT32), 0,
                          &in, &out));
    y = (float *)out->data;
    if (eps < 0.0) {
        if (in->dtype == MOTE_DTYPE_FLOAT32) {
            MOTE_U_MAP(float, float, in, out, v, logf(v / (1.0f - v)));
        } else {
            for (i = 0; i < out->numel; i++) {
                const float v = mote_u_load_f32(in, i);
                y[i] = logf(v / (1.0f - v));
            }
        }
        return MOTE_OK;
    }
    lo = (float)eps;
    hi = 1.0f - lo;
    for (i = 0; i < out->numel; i++) {
        float v = in->dtype == MOTE_DTYPE_FLOAT32 ? ((const float *)in->data)[i]
                                                  : mote_u_load_f32(in, i);
        v = v < lo ? lo : (v > hi ? hi : v);
        y[i] = logf(v / (1.0f - v));
    }
    return MOTE_OK;
}
