/*
 * aten::gelu.out - Gaussian error linear unit (nn.GELU), elementwise:
 *   approximate "none": out = 0.5 * x * (1 + erf(x / sqrt(2)))
 *   approximate "tanh": out = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
 *
 *   args (3): self, approximate str ("none" or "tanh"), out (same shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, another approximate string),
 *           MOTE_ERR_KERNEL_DTYPE (not float32), MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place). NaN propagates.
 */
#include <string.h>

#include "unary.h"

MOTE_KERNEL("aten::gelu.out")
MOTE_KERNEL_IN_PLACE("aten::gelu.out")

MOTE_K_DECLARE(mote_kernel_aten_gelu_out);

/* 1 for "tanh", 0 for "none", -1 for anything else. */
static int mote_gelu_mode(const mote_value_t *v)
{
    if (v->tag != MOTE_TAG_STRING || v->u.str.ptr == NULL) {
        return -1;
    }
    if (v->u.str.len == 4 && memcmp(v->u.str.ptr, "none", 4) == 0) {
        return 0;
    }
    if (v->u.str.len == 4 && memcmp(v->u.str.ptr, "tanh", 4) == 0) {
        return 1;
    }
    return -1;
}

mote_err_t mote_kernel_aten_gelu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    const float k_sqrt1_2 = 0.70710678118654752440f; /* 1 / sqrt(2) */
    const float k_beta = 0.79788456080286535588f;    /* sqrt(2 / pi) */
    const float k_kappa = 0.044715f;
    mote_tensor_t *in, *out;
    int mode;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    mode = mote_gelu_mode(args[1]);
    MOTE_CHECK(mode >= 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_u_check(args, nargs, 3, MOTE_U_BIT(MOTE_DTYPE_FLOAT32),
                          MOTE_U_BIT(MOTE_DTYPE_FLOAT32), 1, &in, &out));
    if (mode == 0) {
        MOTE_U_MAP(float, float, in, out, v, 0.5f * v * (1.0f + erff(v * k_sqrt1_2)));
    } else {
        MOTE_U_MAP(float, float, in, out, v,
                   0.5f * v * (1.0f + tanhf(k_beta * (v + k_kappa * v * v * v))));
    }
    return MOTE_OK;
}
