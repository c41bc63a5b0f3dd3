/*
 * aten::round.decimals_out - torch.round(x, decimals=d): round to d decimal
 * places, halves to even, elementwise:
 *   d >= 0: out = round(x * 10^d) / 10^d
 *   d <  0: out = round(x / 10^-d) * 10^-d
 * (10^|d| taken in float, as PyTorch computes float32 tensors).
 *
 *   args (3): self, decimals int, out (same shape).
 *   dtypes: float32 (PyTorch refuses integer dtypes here).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not float32),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place). NaN and +-inf propagate.
 */
#include <float.h>

#include "unary.h"

MOTE_KERNEL("aten::round.decimals_out")
MOTE_KERNEL_IN_PLACE("aten::round.decimals_out")

MOTE_K_DECLARE(mote_kernel_aten_round_decimals_out);

mote_err_t mote_kernel_aten_round_decimals_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t decimals;
    uint64_t mag, k;
    double p = 1.0;
    float ten;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_int(args[1], &decimals));
    MOTE_TRY(mote_u_check(args, nargs, 3, MOTE_U_BIT(MOTE_DTYPE_FLOAT32),
                          MOTE_U_BIT(MOTE_DTYPE_FLOAT32), 1, &in, &out));
    /* 10^|decimals| in double (exact up to 10^22), then float: pow(10, d) cast */
    mag = decimals < 0 ? 0u - (uint64_t)decimals : (uint64_t)decimals;
    for (k = 0; k < mag && p <= (double)FLT_MAX; k++) {
        p *= 10.0;
    }
    ten = p <= (double)FLT_MAX ? (float)p : HUGE_VALF; /* beyond float's range: inf, as the cast */
    if (decimals >= 0) {
        MOTE_U_MAP(float, float, in, out, v, mote_u_round_even(v * ten) / ten);
    } else {
        MOTE_U_MAP(float, float, in, out, v, mote_u_round_even(v / ten) * ten);
    }
    return MOTE_OK;
}
