/*
 * mote::linear_w4.out - fp32 linear layer with 4-bit group-wise weights
 * (weight-only quantization, torchao's IntxWeightOnlyConfig int4 semantics):
 * out[m, n] = sum over groups g of scale[n, g] * (sum over k in g of
 * input[m, k] * q[n, k]) + bias[n], groups and k in order (the arithmetic of
 * aot/compiler/quant/int4ref.py: the weight is never expanded to fp32 in RAM).
 *
 *   args (6): input float32 [M, K], weight packed int4 uint8 [N, K/2]
 *             (kernels/int4.h), scales float32 [N, K/group], bias float32 [N]
 *             or None, group_size int (even, divides K), out float32 [M, N].
 *   dtypes: float32 activations; weight uint8 (or int8) bytes.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, group_size), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (K != 2 * weight columns, scales / bias / out shape).
 *   out must not overlap input.
 */
#include "int4.h"

MOTE_KERNEL("mote::linear_w4.out")

MOTE_K_DECLARE(mote_kernel_mote_linear_w4_out);

/* One output: the group sums of row `w` against input row `x` (k elements). */
static float w4_dot(const float *x, const uint8_t *w, const float *scale, size_t k, size_t group)
{
    float acc = 0.0f;
    size_t g, j;
    for (g = 0; g < k; g += group) {
        float part = 0.0f;
        for (j = g; j < g + group; j += 2u) {
            const uint32_t b = w[j >> 1];
            const int32_t lo = (int32_t)(b & 0x0Fu) - (int32_t)((b & 8u) << 1);
            const int32_t hi = (int32_t)(b >> 4) - (int32_t)((b & 0x80u) >> 3);
            part += x[j] * (float)lo;
            part += x[j + 1u] * (float)hi;
        }
        acc += part * scale[g / group];
    }
    return acc;
}

mote_err_t mote_kernel_mote_linear_w4_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *w, *s, *bias = NULL, *out;
    int64_t group;
    size_t m, n, k, i, o;
    const float *x, *sc, *b;
    float *y;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &w));
    MOTE_TRY(mote_k_tensor(args[2], &s));
    MOTE_TRY(mote_k_opt_tensor(args[3], &bias));
    MOTE_TRY(mote_k_int(args[4], &group));
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_TRY(mote_w4_check(w, s, group));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                   (bias == NULL || bias->dtype == MOTE_DTYPE_FLOAT32),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim == 2 && out->dim == 2, MOTE_ERR_KERNEL_SHAPE);
    m = (size_t)in->sizes[0];
    k = (size_t)in->sizes[1];
    n = (size_t)w->sizes[0];
    MOTE_CHECK(k == 2u * (size_t)w->sizes[1], MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[0] == m && (size_t)out->sizes[1] == n, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(bias == NULL || (bias->dim == 1 && (size_t)bias->sizes[0] == n), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    x = (const float *)in->data;
    sc = (const float *)s->data;
    b = bias != NULL ? (const float *)bias->data : NULL;
    y = (float *)out->data;
    for (i = 0; i < m; i++) {
        for (o = 0; o < n; o++) {
            const float v = w4_dot(x + i * k, (const uint8_t *)w->data + o * (k / 2u), sc + o * (k / (size_t)group),
                                   k, (size_t)group);
            y[i * n + o] = b != NULL ? v + b[o] : v;
        }
    }
    return MOTE_OK;
}
