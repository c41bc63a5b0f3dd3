/* xnnpack_shapes.c - the XNNPACK backend's shape proof (see xnnpack_shapes.h). */
#include "xnnpack_shapes.h"

uint64_t xnn_numel(const xnn_dims_t *a)
{
    uint64_t n = 1;
    uint32_t k;

    for (k = 0; k < a->n; k++) {
        n *= a->d[k];
        if (n > (uint64_t)UINT32_MAX) {
            return 0;
        }
    }
    return n;
}

/* One spatial output size: (in + pads - dilation*(kernel-1) - 1) / stride + 1, exactly. */
static mote_err_t out_size(uint32_t in, uint32_t pad_a, uint32_t pad_b, uint32_t kernel, uint32_t stride,
                           uint32_t dilation, uint32_t want)
{
    uint64_t padded = (uint64_t)in + pad_a + pad_b, span;

    MOTE_CHECK(kernel >= 1u && stride >= 1u && dilation >= 1u, MOTE_ERR_BACKEND_PAYLOAD);
    span = (uint64_t)dilation * (kernel - 1u) + 1u;
    MOTE_CHECK(padded >= span && (padded - span) / stride + 1u == want, MOTE_ERR_BACKEND_PAYLOAD);
    return MOTE_OK;
}

mote_err_t xnn_check_conv(const xnn_dims_t *in, const xnn_dims_t *filt, const xnn_dims_t *bias,
                          const xnn_dims_t *out, const uint32_t f[15], bool depthwise)
{
    const uint64_t groups = f[12], gic = f[10], goc = f[11];
    const uint64_t cout = depthwise ? (uint64_t)in->d[3] * goc : groups * goc;

    MOTE_CHECK(in->n == 4u && out->n == 4u && filt->n == 4u, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(f[13] == 0u && f[14] == 0u && groups >= 1u && goc >= 1u, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(out->d[0] == in->d[0] && out->d[3] == cout, MOTE_ERR_BACKEND_PAYLOAD);
    if (depthwise) { /* XNNPACK's: groups are the input channels, goc the depth multiplier */
        MOTE_CHECK(groups == in->d[3] && filt->d[0] == 1u && filt->d[3] == cout, MOTE_ERR_BACKEND_PAYLOAD);
    } else {
        MOTE_CHECK(groups * gic == in->d[3] && filt->d[0] == cout && filt->d[3] == gic, MOTE_ERR_BACKEND_PAYLOAD);
    }
    MOTE_CHECK(filt->d[1] == f[4] && filt->d[2] == f[5], MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(bias == NULL || (bias->n == 1u && bias->d[0] == cout), MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(out_size(in->d[1], f[0], f[2], f[4], f[6], f[8], out->d[1]));
    return out_size(in->d[2], f[3], f[1], f[5], f[7], f[9], out->d[2]);
}

mote_err_t xnn_check_pool(const xnn_dims_t *in, const xnn_dims_t *out, const uint32_t f[10])
{
    MOTE_CHECK(in->n == 4u && out->n == 4u && out->d[0] == in->d[0] && out->d[3] == in->d[3],
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(out_size(in->d[1], f[0], f[2], f[4], f[6], f[8] > 0u ? f[8] : 1u, out->d[1]));
    return out_size(in->d[2], f[3], f[1], f[5], f[7], f[9] > 0u ? f[9] : 1u, out->d[2]);
}

mote_err_t xnn_check_global_pool(const xnn_dims_t *in, const xnn_dims_t *out)
{
    MOTE_CHECK(in->n == 4u && xnn_numel(out) == (uint64_t)in->d[0] * in->d[3] && out->n >= 1u &&
                   out->d[out->n - 1u] == in->d[3],
               MOTE_ERR_BACKEND_PAYLOAD);
    return MOTE_OK;
}

mote_err_t xnn_check_fc(const xnn_dims_t *in, const xnn_dims_t *filt, const xnn_dims_t *bias,
                        const xnn_dims_t *out, bool transposed)
{
    uint32_t ic, oc;
    uint64_t n = xnn_numel(in);

    MOTE_CHECK(filt->n == 2u && in->n >= 1u && n > 0u, MOTE_ERR_BACKEND_PAYLOAD);
    ic = transposed ? filt->d[0] : filt->d[1];
    oc = transposed ? filt->d[1] : filt->d[0];
    MOTE_CHECK(ic >= 1u && n % ic == 0u && xnn_numel(out) == (n / ic) * oc && out->d[out->n - 1u] == oc,
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(bias == NULL || (bias->n == 1u && bias->d[0] == oc), MOTE_ERR_BACKEND_PAYLOAD);
    return MOTE_OK;
}

mote_err_t xnn_check_broadcast(const xnn_dims_t *a, const xnn_dims_t *b, const xnn_dims_t *out)
{
    uint32_t k, n = a->n > b->n ? a->n : b->n;

    MOTE_CHECK(out->n == n, MOTE_ERR_BACKEND_PAYLOAD);
    for (k = 0; k < n; k++) { /* aligned at the last dimension */
        const uint32_t da = k < n - a->n ? 1u : a->d[k - (n - a->n)];
        const uint32_t db = k < n - b->n ? 1u : b->d[k - (n - b->n)];
        MOTE_CHECK(da == db || da == 1u || db == 1u, MOTE_ERR_BACKEND_PAYLOAD);
        MOTE_CHECK(out->d[k] == (da == 1u ? db : da), MOTE_ERR_BACKEND_PAYLOAD);
    }
    return MOTE_OK;
}

mote_err_t xnn_check_same(const xnn_dims_t *in, const xnn_dims_t *out)
{
    uint32_t k;

    MOTE_CHECK(in->n == out->n, MOTE_ERR_BACKEND_PAYLOAD);
    for (k = 0; k < in->n; k++) {
        MOTE_CHECK(in->d[k] == out->d[k], MOTE_ERR_BACKEND_PAYLOAD);
    }
    return MOTE_OK;
}

mote_err_t xnn_check_numel(const xnn_dims_t *in, const xnn_dims_t *out)
{
    MOTE_CHECK(xnn_numel(in) == xnn_numel(out) && xnn_numel(in) > 0u, MOTE_ERR_BACKEND_PAYLOAD);
    return MOTE_OK;
}
