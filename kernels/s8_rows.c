/*
 * kernels/s8_rows.c - the band iterator of int8 conv / depthwise conv planned in
 * place by rows (kernels/requant.h: the rule, the ring, the declarations).
 * One copy for every kernel that uses it; the planner's side of the same rule
 * is mote_s8_rows_ring_bytes (kernels/int8_scratch.c).
 */
#include "requant.h"

/* The ring (a call planned in place that needs it): compiled out when the program
   has none (MOTE_S8_USE_ROWS_RING 0, cmsis/mote_s8_arm.h; undefined: in). */
#if !defined(MOTE_S8_USE_ROWS_RING) || MOTE_S8_USE_ROWS_RING
#define ROWS_RING 1
#else
#define ROWS_RING 0
#endif

#if ROWS_RING
/**
 * n bytes from src to dst (no overlap), a
 * word at a time when both are word aligned: newlib-nano's memcpy/memmove
 * copy byte by byte, and the row ring copies every output byte once.
 */
static void rows_copy_fwd(int8_t *dst, const int8_t *src, size_t n)
{
    if ((((uintptr_t)dst | (uintptr_t)src | n) & 3u) == 0u) {
        uint32_t *d = (uint32_t *)(void *)dst;
        const uint32_t *s = (const uint32_t *)(const void *)src;
        size_t i;
        for (i = 0; i < n / 4u; i++) {
            d[i] = s[i];
        }
        return;
    }
    while (n-- > 0u) {
        *dst++ = *src++;
    }
}

/* it->band = rows from `next`: at most nb, not past the ring's last slot (a band is contiguous). */
static void rows_band(mote_s8_rows_t *it, int32_t next)
{
    const int32_t slot = next % it->slots;
    int32_t nb = it->p->ho - next;
    nb = nb < it->nb ? nb : it->nb;
    nb = nb < it->slots - slot ? nb : it->slots - slot;
    it->band.oy0 = next;
    it->band.oy1 = next + nb;
    it->band.output = it->ring + (size_t)slot * it->orow;
}
#endif

mote_err_t mote_s8_rows_begin(const mote_kernel_ctx_t *ctx, size_t own,
                              const mote_s8_conv_params_t *p, mote_s8_rows_t *it)
{
    const uintptr_t i0 = (uintptr_t)p->input;
    const uintptr_t o0 = (uintptr_t)p->output;
    const size_t ib = (size_t)p->n * (size_t)p->h * (size_t)p->w * (size_t)p->cin;
    int32_t lag;
    it->p = p;
    it->band = *p;
    it->orow = (size_t)p->wo * (size_t)p->cout;
    it->ring = NULL;
    it->done = 0;
    it->nb = p->ho;
    if (o0 >= i0 + ib || i0 >= o0 + (size_t)p->n * (size_t)p->ho * it->orow) {
        return MOTE_OK;
    }
#if !ROWS_RING
    (void)ctx;
    (void)own;
    (void)lag;
    return MOTE_ERR_UNSUPPORTED;
#else
    lag = mote_s8_rows_lag(p);
    MOTE_CHECK(i0 == o0 && lag >= 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(ctx != NULL && ctx->scratch != NULL && ctx->scratch_size >= own + it->orow,
               MOTE_ERR_KERNEL_SCRATCH);
    it->slots = (int32_t)((ctx->scratch_size - own) / it->orow);
    it->nb = it->slots - lag; /* pending rows (<= lag) + a band always fit the ring */
    MOTE_CHECK(it->nb >= 1, MOTE_ERR_KERNEL_SCRATCH);
    it->ring = (int8_t *)ctx->scratch + own;
    rows_band(it, 0);
    return MOTE_OK;
#endif
}

int mote_s8_rows_next(mote_s8_rows_t *it)
{
#if !ROWS_RING
    (void)it;
    return 0; /* one band: rows_begin made no ring */
#else
    const mote_s8_conv_params_t *p = it->p;
    const int32_t next = it->band.oy1;
    if (it->ring == NULL) {
        return 0;
    }
    /* a row goes to the tensor once every input byte it covers is read */
    while (it->done < next && mote_s8_rows_last_reader(p, it->done) < next) {
        rows_copy_fwd(p->output + (size_t)it->done * it->orow,
                      it->ring + (size_t)(it->done % it->slots) * it->orow, it->orow);
        it->done++;
    }
    if (next >= p->ho) {
        return 0;
    }
    rows_band(it, next);
    return 1;
#endif
}
