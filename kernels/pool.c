/*
 * kernels/pool.c - pooling window geometry (output size with ceil_mode).
 */
#include "pool.h"

static mote_err_t mote_pool_pair(const mote_value_t *v, int allow_empty, ptrdiff_t dflt_h,
                                 ptrdiff_t dflt_w, ptrdiff_t *h, ptrdiff_t *w)
{
    const int64_t *it;
    uint32_t n;
    MOTE_TRY(mote_k_ints(v, &it, &n));
    if (n == 0) {
        MOTE_CHECK(allow_empty, MOTE_ERR_KERNEL_ARGS);
        *h = dflt_h;
        *w = dflt_w;
        return MOTE_OK;
    }
    MOTE_CHECK(n == 1 || n == 2, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(it[0] >= 0 && it[0] < 65536 && it[n - 1] >= 0 && it[n - 1] < 65536,
                 MOTE_ERR_KERNEL_ARGS);
    *h = (ptrdiff_t)it[0];
    *w = (ptrdiff_t)it[n - 1];
    return MOTE_OK;
}

static size_t mote_pool_out(ptrdiff_t in, ptrdiff_t k, ptrdiff_t s, ptrdiff_t p, ptrdiff_t d,
                            int ceil_mode, int *ok)
{
    ptrdiff_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    ptrdiff_t o;
    if (num < 0) {
        *ok = 0;
        return 0;
    }
    o = num / s + 1;
    if (ceil_mode && (o - 1) * s >= in + p) {
        o--;
    }
    if (o <= 0) {
        *ok = 0;
        return 0;
    }
    return (size_t)o;
}

mote_err_t mote_pool_geom(const mote_tensor_t *in, const mote_value_t *ks, const mote_value_t *st,
                          const mote_value_t *pd, const mote_value_t *dl, int ceil_mode,
                          const mote_tensor_t *out, mote_pool_geom_t *g)
{
    int ok = 1;
    uint32_t r = in->dim;
    MOTE_TRY(mote_pool_pair(ks, 0, 0, 0, &g->kh, &g->kw));
    MOTE_TRY(mote_pool_pair(st, 1, g->kh, g->kw, &g->sh, &g->sw));
    MOTE_TRY(mote_pool_pair(pd, 0, 0, 0, &g->ph, &g->pw));
    if (dl != NULL) {
        MOTE_TRY(mote_pool_pair(dl, 0, 0, 0, &g->dh, &g->dw));
    } else {
        g->dh = g->dw = 1;
    }
    MOTE_CHECK(g->kh > 0 && g->kw > 0 && g->sh > 0 && g->sw > 0 && g->dh > 0 && g->dw > 0,
                 MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(g->ph <= g->kh / 2 && g->pw <= g->kw / 2, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(r == 3 || r == 4, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(out->dim == r, MOTE_ERR_KERNEL_SHAPE);
    g->h = (size_t)in->sizes[r - 2];
    g->w = (size_t)in->sizes[r - 1];
    g->planes = mote_k_prod(in, 0, r - 2);
    g->oh = mote_pool_out((ptrdiff_t)g->h, g->kh, g->sh, g->ph, g->dh, ceil_mode, &ok);
    g->ow = mote_pool_out((ptrdiff_t)g->w, g->kw, g->sw, g->pw, g->dw, ceil_mode, &ok);
    MOTE_CHECK(ok && g->h > 0 && g->w > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(out->sizes[0] == in->sizes[0] && (r == 3 || out->sizes[1] == in->sizes[1]) &&
                     (size_t)out->sizes[r - 2] == g->oh && (size_t)out->sizes[r - 1] == g->ow,
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    return MOTE_OK;
}
