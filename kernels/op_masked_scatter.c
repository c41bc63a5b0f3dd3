/*
 * aten::masked_scatter.out - out = self (broadcast with mask) where mask is
 * false; where it is true, the next element of source (row-major order).
 *
 *   args (4): self, mask (broadcastable with self), source (numel >= the number
 *             of true elements of the broadcast mask), out (broadcast shape).
 *   dtypes: self any, source and out == self; mask bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (shapes, source too short).
 *   out may alias self exactly.
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::masked_scatter.out")

MOTE_K_DECLARE(mote_kernel_aten_masked_scatter_out);

typedef struct {
    const uint8_t *src;
    size_t n, *k, esz;
    int *overrun;
} mote_msc_t;

static void mote_msc_row(void *out, const void *a, size_t sa, const void *b, size_t sb, size_t n,
                         const void *param)
{
    const mote_msc_t *p = (const mote_msc_t *)param;
    const uint8_t *x = (const uint8_t *)a, *m = (const uint8_t *)b;
    uint8_t *y = (uint8_t *)out;
    size_t i, e = p->esz;
    for (i = 0; i < n; i++) {
        if (m[i * sb] != 0) {
            if (*p->k >= p->n) {
                *p->overrun = 1;
                return;
            }
            memmove(y + i * e, p->src + *p->k * e, e);
            (*p->k)++;
        } else {
            memmove(y + i * e, x + i * sa * e, e);
        }
    }
}

mote_err_t mote_kernel_aten_masked_scatter_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *self, *mask, *source, *out;
    mote_msc_t p;
    size_t k = 0;
    int overrun = 0;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[1], &mask));
    MOTE_TRY(mote_k_tensor(args[2], &source));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    p.esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(p.esz != 0 && source->dtype == self->dtype && out->dtype == self->dtype,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mask->dtype == MOTE_DTYPE_BOOL, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(self));
    MOTE_TRY(mote_k_check_numel(mask));
    MOTE_TRY(mote_k_check_numel(source));
    MOTE_TRY(mote_k_check_numel(out));
    p.src = (const uint8_t *)source->data;
    p.n = source->numel;
    p.k = &k;
    p.overrun = &overrun;
    MOTE_TRY(mote_k_broadcast2(self, mask, out, mote_msc_row, &p));
    MOTE_CHECK(!overrun, MOTE_ERR_KERNEL_SHAPE);
    return MOTE_OK;
}
