/*
 * kernels/s8_args.c - argument parsers of the int8 (mote::*_s8) kernels
 * (declared in requant.h): tags, dtypes, ranks, contiguity, sizes and value
 * ranges, each failure as a kernel error code (MOTE_ERR_KERNEL_ARGS / DTYPE /
 * SHAPE). One copy for every kernel of a firmware instead of one per kernel:
 * DS-CNN int8 on a Cortex-M33 links four kernels that parse tensors and int[2]
 * lists.
 */
#include "requant.h"
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

/** Tensor argument with a given dtype and rank, contiguous; else an error code. */
mote_err_t mote_s8_tensor_arg(mote_value_t *v, uint8_t dtype, uint8_t dim, mote_tensor_t **out)
{
    mote_tensor_t *t;
    uint32_t i;
    uint64_t numel = 1;
    if (v == NULL || v->tag != MOTE_TAG_TENSOR || v->u.t == NULL) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    t = v->u.t;
    if (t->dtype != dtype) {
        return MOTE_ERR_KERNEL_DTYPE;
    }
    if (t->dim != dim || (dim > 0 && t->sizes == NULL)) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    for (i = 0; i < dim; i++) {
        if (t->sizes[i] < 0) {
            return MOTE_ERR_KERNEL_SHAPE;
        }
        if (t->dim_order != NULL && t->dim_order[i] != i) {
            return MOTE_ERR_KERNEL_SHAPE; /* only contiguous layouts */
        }
        numel *= (uint64_t)t->sizes[i];
    }
    if (numel != t->numel || numel * mote_dtype_size(dtype) > t->nbytes ||
        (numel > 0 && t->data == NULL)) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    *out = t;
    return MOTE_OK;
}

/** Int argument within [lo, hi]. */
mote_err_t mote_s8_int_arg(const mote_value_t *v, int64_t lo, int64_t hi, int32_t *out)
{
    if (v == NULL || v->tag != MOTE_TAG_INT || v->u.i < lo || v->u.i > hi) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    *out = (int32_t)v->u.i;
    return MOTE_OK;
}

/** Int argument within [-128, 127] (MOTE_S8_ZP_ARG): one unsigned compare of i + 128. */
mote_err_t mote_s8_zp_arg(const mote_value_t *v, int32_t *out)
{
    if (v == NULL || v->tag != MOTE_TAG_INT || (uint64_t)v->u.i + 128u > 255u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    *out = (int32_t)v->u.i;
    return MOTE_OK;
}

/** int[n] argument, each item within [lo, hi]. */
mote_err_t mote_s8_ints_arg(const mote_value_t *v, uint32_t n, int64_t lo, int64_t hi, int32_t *out)
{
    uint32_t i;
    if (v == NULL || v->tag != MOTE_TAG_INT_LIST || v->u.ints.len != n ||
        (n > 0 && v->u.ints.items == NULL)) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    for (i = 0; i < n; i++) {
        if (v->u.ints.items[i] < lo || v->u.ints.items[i] > hi) {
            return MOTE_ERR_KERNEL_ARGS;
        }
        out[i] = (int32_t)v->u.ints.items[i];
    }
    return MOTE_OK;
}

/** int[2] argument (an int[1] is broadcast to both), items within [lo, hi]. */
mote_err_t mote_s8_pair_arg(const mote_value_t *v, int64_t lo, int64_t hi, int32_t out[2])
{
    if (v != NULL && v->tag == MOTE_TAG_INT_LIST && v->u.ints.len == 1) {
        MOTE_TRY(mote_s8_ints_arg(v, 1, lo, hi, out));
        out[1] = out[0]; /* only once out[0] is set */
        return MOTE_OK;
    }
    return mote_s8_ints_arg(v, 2, lo, hi, out);
}

/** Same dtype int8 and same sizes (any rank). */
int mote_s8_same_shape(const mote_tensor_t *a, const mote_tensor_t *b)
{
    uint32_t i;
    if (a->dim != b->dim || a->numel != b->numel) {
        return 0;
    }
    for (i = 0; i < a->dim; i++) {
        if (a->sizes[i] != b->sizes[i]) {
            return 0;
        }
    }
    return 1;
}

/** Tensor of any rank up to MOTE_MAX_DIM with a given dtype, contiguous. */
mote_err_t mote_s8_any_tensor_arg(mote_value_t *v, uint8_t dtype, mote_tensor_t **out)
{
    if (v == NULL || v->tag != MOTE_TAG_TENSOR || v->u.t == NULL || v->u.t->dim > MOTE_MAX_DIM) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    return mote_s8_tensor_arg(v, dtype, v->u.t->dim, out);
}

/** Checks act_min <= act_max, both int8. */
mote_err_t mote_s8_act_args(const mote_value_t *vmin, const mote_value_t *vmax,
                            int32_t *amin, int32_t *amax)
{
    MOTE_CHECK(MOTE_S8_ZP_ARG(vmin, amin) == MOTE_OK && MOTE_S8_ZP_ARG(vmax, amax) == MOTE_OK &&
                   *amin <= *amax,
 MOTE_ERR_KERNEL_ARGS);
    return MOTE_OK;
}

/* ------------------------------------------------------ add / mul, pooling */

/**
 * The tensors of add_s8 / mul_s8 (`nargs_expected` args): a = args[0],
 * b = args[1], out = the last one, all int8 of one shape (any rank).
 */
mote_err_t mote_s8_binary_args(mote_value_t *const *args, uint32_t nargs,
                               uint32_t nargs_expected, mote_tensor_t **ta,
                               mote_tensor_t **tb, mote_tensor_t **to)
{
    MOTE_CHECK(args != NULL && nargs == nargs_expected, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_any_tensor_arg(args[0], MOTE_DTYPE_INT8, ta));
    MOTE_TRY(mote_s8_any_tensor_arg(args[1], MOTE_DTYPE_INT8, tb));
    MOTE_TRY(mote_s8_any_tensor_arg(args[nargs - 1], MOTE_DTYPE_INT8, to));
    MOTE_CHECK(mote_s8_same_shape(*ta, *tb) && mote_s8_same_shape(*ta, *to), MOTE_ERR_KERNEL_SHAPE);
    return MOTE_OK;
}

/** add_s8: parse, check, and derive the folded form (kernels/requant.h). */
mote_err_t mote_s8_add_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_add_params_t *p)
{
    mote_tensor_t *ta;
    mote_tensor_t *tb;
    mote_tensor_t *to;
    int i;
    MOTE_TRY(mote_s8_binary_args(args, nargs, 15u, &ta, &tb, &to));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &p->zp[0]));
    MOTE_TRY(mote_s8_int_arg(args[3], 0, INT32_MAX, &p->mult[0]));
    MOTE_TRY(mote_s8_int_arg(args[4], -31, 31, &p->shift[0]));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[5], &p->zp[1]));
    MOTE_TRY(mote_s8_int_arg(args[6], 0, INT32_MAX, &p->mult[1]));
    MOTE_TRY(mote_s8_int_arg(args[7], -31, 31, &p->shift[1]));
    MOTE_TRY(mote_s8_int_arg(args[8], 0, 31, &p->left_shift));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[9], &p->out_zp));
    MOTE_TRY(mote_s8_int_arg(args[10], 0, INT32_MAX, &p->out_mult));
    MOTE_TRY(mote_s8_int_arg(args[11], -31, 31, &p->out_shift));
    MOTE_TRY(mote_s8_act_args(args[12], args[13], &p->act_min, &p->act_max));
    p->a = (const int8_t *)ta->data;
    p->b = (const int8_t *)tb->data;
    p->out = (int8_t *)to->data;
    p->numel = ta->numel;
    /* the folded form: |(q - zp) << L| <= 255 * 2^21 < 2^29, so 2x fits, every
       |y_i| < 2^29 and |2 (y_0 + y_1)| < 2^31; e_o <= 22 keeps |r_o| < 2^30 */
    p->fast = mote_s8_add_fast_ok(p->left_shift, p->shift[0], p->shift[1], p->out_shift);
    for (i = 0; i < 2 && p->fast; i++) {
        const int32_t l = p->left_shift + (p->shift[i] > 0 ? p->shift[i] : 0);
        p->pmul[i] = (int32_t)1 << (l + 1);
        p->padd[i] = -p->zp[i] * p->pmul[i];
        p->e[i] = p->shift[i] < 0 ? -p->shift[i] : 0;
        p->r[i] = p->e[i] > 0 ? (int32_t)(1u << (p->e[i] - 1)) : 0;
    }
    p->e_o = -p->out_shift;
    p->r_o = p->fast ? (int32_t)(1 << (p->e_o - 1)) + p->out_zp * (int32_t)(1 << p->e_o) : 0;
    return MOTE_OK;
}

/**
 * The leading arguments of avg_pool2d_s8 / max_pool2d_s8 (`nargs_expected`
 * args): input args[0] and out (the last) int8 NHWC, kernel_size args[1],
 * stride args[2] (an empty list means stride = kernel_size, PyTorch's
 * default), padding args[3]. The op-specific arguments follow args[3].
 */
mote_err_t mote_s8_pool_args(mote_value_t *const *args, uint32_t nargs,
                             uint32_t nargs_expected, mote_tensor_t **ti,
                             mote_tensor_t **to, int32_t k[2], int32_t s[2],
                             int32_t pd[2])
{
    MOTE_CHECK(args != NULL && nargs == nargs_expected, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, ti));
    MOTE_TRY(mote_s8_tensor_arg(args[nargs - 1], MOTE_DTYPE_INT8, 4, to));
    MOTE_TRY(mote_s8_pair_arg(args[1], 1, 0x7fff, k));
    if (args[2] != NULL && args[2]->tag == MOTE_TAG_INT_LIST && args[2]->u.ints.len == 0) {
        s[0] = k[0];
        s[1] = k[1];
    } else {
        MOTE_TRY(mote_s8_pair_arg(args[2], 1, 0x7fff, s));
    }
    return mote_s8_pair_arg(args[3], 0, 0x7fff, pd);
}

/**
 * Output height and width of a pooling window (dilation d) over ti; checks
 * that to is [N, Ho, Wo, C] with Ho, Wo >= 1.
 */
mote_err_t mote_s8_pool_out_shape(const mote_tensor_t *ti, const mote_tensor_t *to,
                                  const int32_t k[2], const int32_t s[2],
                                  const int32_t pd[2], const int32_t d[2],
                                  int32_t *ho, int32_t *wo)
{
    *ho = mote_s8_out_dim(ti->sizes[1], k[0], s[0], pd[0], d[0]);
    *wo = mote_s8_out_dim(ti->sizes[2], k[1], s[1], pd[1], d[1]);
    if (*ho < 1 || *wo < 1 || to->sizes[0] != ti->sizes[0] || to->sizes[1] != *ho ||
        to->sizes[2] != *wo || to->sizes[3] != ti->sizes[3]) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    return MOTE_OK;
}

/** bias, multiplier, shift [Cout] int32 into p (their values unchecked). */
static mote_err_t chan_tensors(mote_value_t *const *args, int32_t cout, mote_s8_conv_params_t *p)
{
    mote_tensor_t *b;
    mote_tensor_t *m;
    mote_tensor_t *s;
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT32, 1, &b));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT32, 1, &m));
    MOTE_TRY(mote_s8_tensor_arg(args[2], MOTE_DTYPE_INT32, 1, &s));
    MOTE_CHECK(b->sizes[0] == cout && m->sizes[0] == cout && s->sizes[0] == cout, MOTE_ERR_KERNEL_SHAPE);
    p->bias = (const int32_t *)b->data;
    p->mult = (const int32_t *)m->data;
    p->shift = (const int32_t *)s->data;
    return MOTE_OK;
}

/** Shared tail: bias, multiplier, shift [Cout] int32 and their value checks. */
mote_err_t mote_s8_chan_args(mote_value_t *const *args, int32_t cout, mote_s8_conv_params_t *p)
{
    MOTE_TRY(chan_tensors(args, cout, p));
    return mote_s8_chan_values(p);
}

/** Every p->mult[c] >= 0 and p->shift[c] in [-31, 31], c < p->cout. */
mote_err_t mote_s8_chan_values(const mote_s8_conv_params_t *p)
{
    const int32_t cout = p->cout;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    {   /* MVE (Cortex-M55): four channels a step, shift + 31 <= 62 unsigned, mult >= 0 */
        int32_t c;
        uint32x4_t sh = vdupq_n_u32(0);
        int32x4_t mu = vdupq_n_s32(0);
        for (c = 0; c < cout; c += 4) {
            const mve_pred16_t pr = vctp32q((uint32_t)(cout - c));
            sh = vmaxq_u32(sh, vreinterpretq_u32_s32(vaddq_n_s32(vldrwq_z_s32(p->shift + c, pr), 31)));
            mu = vminq_s32(mu, vldrwq_z_s32(p->mult + c, pr));
        }
        MOTE_CHECK(vmaxvq_u32(0u, sh) <= 62u && vminvq_s32(0, mu) >= 0, MOTE_ERR_KERNEL_ARGS);
    }
#else
    {   /* one test after the loop, not two branches per channel (a call's fixed cost: 64
           channels of a streaming layer's one pixel took 750 instructions): a shift s is
           in [-31, 31] exactly when s + 31 and 31 - s are both >= 0 (unsigned: neither
           has bit 31), a multiplier >= 0 when its bit 31 is clear; four channels a step
           through walking pointers (locals: at -Os p-> is reloaded every step) */
        const int32_t *sh = p->shift, *mu = p->mult;
        const int32_t *const end4 = sh + (cout & ~3), *const end = sh + (cout > 0 ? cout : 0);
        uint32_t any = 0;
        for (; sh < end4; sh += 4, mu += 4) {
            const uint32_t s0 = (uint32_t)sh[0], s1 = (uint32_t)sh[1];
            const uint32_t s2 = (uint32_t)sh[2], s3 = (uint32_t)sh[3];
            any |= (s0 + 31u) | (31u - s0) | (s1 + 31u) | (31u - s1) | (s2 + 31u) | (31u - s2) |
                   (s3 + 31u) | (31u - s3) | (uint32_t)mu[0] | (uint32_t)mu[1] | (uint32_t)mu[2] |
                   (uint32_t)mu[3];
        }
        for (; sh < end; sh++, mu++) {
            const uint32_t s0 = (uint32_t)*sh;
            any |= (s0 + 31u) | (31u - s0) | (uint32_t)*mu;
        }
        MOTE_CHECK((any >> 31) == 0u, MOTE_ERR_KERNEL_ARGS);
    }
#endif
    return MOTE_OK;
}

/**
 * mote_s8_pair_arg(v, lo, 0x7fff, out) for lo 0 or 1, in one pass (the three lists
 * of every convolution call): an int[2], or an int[1] broadcast, items in [lo, 0x7fff].
 * Without the int64 bounds passed on the stack and the call per list length.
 */
static mote_err_t geom_pair(const mote_value_t *v, uint32_t lo, int32_t out[2])
{
    const int64_t *it;
    uint32_t n;
    uint64_t a, b;
    const uint64_t span = 0x8000u - lo;
    if (v == NULL || v->tag != MOTE_TAG_INT_LIST) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    n = v->u.ints.len;
    it = v->u.ints.items;
    if (n - 1u > 1u || it == NULL) { /* len 1 or 2 */
        return MOTE_ERR_KERNEL_ARGS;
    }
    a = (uint64_t)it[0] - lo;        /* item - lo < 0x8000 - lo: lo <= item <= 0x7fff */
    b = (uint64_t)it[n - 1u] - lo;
    if (a >= span || b >= span) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    out[0] = (int32_t)it[0];
    out[1] = (int32_t)it[n - 1u];
    return MOTE_OK;
}

/**
 * The geometry shared by the int8 and int16 convolutions: input (args[0],
 * [N, H, W, Cin] of `dtype`; [N, Cin, H, W] when depthwise is MOTE_S8_CONV_NCHW, which
 * sets p->nchw), int8 weight (args[1]; depthwise [1, KH, KW, Cout]), stride / padding /
 * dilation (args[5..7]), the depth multiplier (args[8] when depthwise is 1) and the
 * output (the last argument, `dtype`, shape checked). *next is
 * the index of the first argument after them.
 */
mote_err_t mote_conv_geometry(mote_value_t *const *args, uint32_t nargs, int depthwise, uint8_t dtype,
                              mote_s8_conv_params_t *p, mote_tensor_t **in, mote_tensor_t **out,
                              uint32_t *next)
{
    mote_tensor_t *wt;
    int32_t st[2];
    int32_t pd[2];
    int32_t dl[2];
    MOTE_TRY(mote_s8_tensor_arg(args[0], dtype, 4, in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 4, &wt));
    MOTE_TRY(mote_s8_tensor_arg(args[nargs - 1], dtype, 4, out));
    MOTE_TRY(geom_pair(args[5], 1u, st));
    MOTE_TRY(geom_pair(args[6], 0u, pd));
    MOTE_TRY(geom_pair(args[7], 1u, dl));
    *next = 8;
    p->depth_mult = 1;
    p->nchw = depthwise == MOTE_S8_CONV_NCHW;
    if (depthwise == 1) {
        MOTE_TRY(mote_s8_int_arg(args[(*next)++], 1, 0x7fff, &p->depth_mult));
    }
    p->n = (*in)->sizes[0];
    p->h = (*in)->sizes[1 + p->nchw];
    p->w = (*in)->sizes[2 + p->nchw];
    p->cin = (*in)->sizes[3 - 2 * p->nchw];
    p->kh = wt->sizes[1];
    p->kw = wt->sizes[2];
    if (depthwise == 1) {
        p->cout = wt->sizes[3];
        MOTE_CHECK(wt->sizes[0] == 1 && (int64_t)p->cin * p->depth_mult == p->cout, MOTE_ERR_KERNEL_SHAPE);
    } else {
        p->cout = wt->sizes[0];
        MOTE_CHECK(wt->sizes[3] == p->cin, MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK(p->kh >= 1 && p->kw >= 1 && p->cin >= 1 && p->cout >= 1, MOTE_ERR_KERNEL_SHAPE);
    p->stride_h = st[0];
    p->stride_w = st[1];
    p->pad_h = pd[0];
    p->pad_w = pd[1];
    p->dil_h = dl[0];
    p->dil_w = dl[1];
    p->ho = mote_s8_out_dim(p->h, p->kh, p->stride_h, p->pad_h, p->dil_h);
    p->wo = mote_s8_out_dim(p->w, p->kw, p->stride_w, p->pad_w, p->dil_w);
    MOTE_CHECK((*out)->sizes[0] == p->n && (*out)->sizes[1] == p->ho && (*out)->sizes[2] == p->wo &&
                   (*out)->sizes[3] == p->cout && p->ho >= 1 && p->wo >= 1,
               MOTE_ERR_KERNEL_SHAPE);
    p->weight = (const int8_t *)wt->data;
    p->wpanel = NULL;
    p->wtable = NULL;
    p->oy0 = 0;
    p->oy1 = p->ho;
    return MOTE_OK;
}

/**
 * Parse conv2d_s8 (depthwise = 0, 13 args, or 14 with the pre-widened weights
 * as argument 12) or depthwise_conv2d_s8 (depthwise = 1, 14 args, or 15 with the DSP
 * planes' per-channel record as argument 13: p->wtable) into *p,
 * checking tags, dtypes, shapes and ranges.
 */
mote_err_t mote_s8_conv_parse(mote_value_t *const *args, uint32_t nargs,
                              int depthwise, mote_s8_conv_params_t *p)
{
    mote_tensor_t *in;
    mote_tensor_t *out;
    uint32_t a; /* index of the first scalar after the int[2] lists */
    const int qlater = (depthwise & MOTE_S8_CONV_QLATER) != 0;
    depthwise &= ~MOTE_S8_CONV_QLATER;
    MOTE_CHECK(args != NULL && (nargs == 14u || nargs == 13u + (uint32_t)(depthwise == 1) * 2u),
               MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_conv_geometry(args, nargs, depthwise, MOTE_DTYPE_INT8, p, &in, &out, &a));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[a], &p->in_zp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[a + 1], &p->out_zp));
    MOTE_TRY(mote_s8_act_args(args[a + 2], args[a + 3], &p->act_min, &p->act_max));
    MOTE_TRY(qlater ? chan_tensors(&args[2], p->cout, p) : mote_s8_chan_args(&args[2], p->cout, p));
    if (depthwise != 1 && nargs == 14u) {
        /* the panel, optionally followed by the fast requantization table */
        mote_tensor_t *wp;
        const uint32_t nw = mote_s8_conv_panel_numel(p->kh * p->kw * p->cin, p->cout);
        const uint32_t nt = mote_s8_conv_table_numel(p->cout);
        MOTE_TRY(mote_s8_tensor_arg(args[12], MOTE_DTYPE_INT16, 1, &wp));
        MOTE_CHECK(nw > 0u && nt > 0u && ((uintptr_t)wp->data & 3u) == 0u &&
                       ((uint64_t)wp->sizes[0] == nw || (uint64_t)wp->sizes[0] == (uint64_t)nw + nt),
                   MOTE_ERR_KERNEL_SHAPE);
        p->wpanel = (const int16_t *)wp->data;
        if ((uint64_t)wp->sizes[0] != nw) {
            p->wtable = (const int32_t *)(const void *)(p->wpanel + nw); /* nw: a multiple of 8 */
        }
    }
    if (depthwise == 1 && nargs == 15u) {
        /* the DSP planes' per-channel record (aot/compiler/dsp_weights.py dw_record) */
        mote_tensor_t *rt;
        MOTE_TRY(mote_s8_tensor_arg(args[13], MOTE_DTYPE_INT32, 1, &rt));
        MOTE_CHECK(p->cout <= 0x7fffffff / MOTE_S8_DW_RECORD_WORDS && ((uintptr_t)rt->data & 3u) == 0u &&
                       (int64_t)rt->sizes[0] == (int64_t)p->cout * MOTE_S8_DW_RECORD_WORDS,
                   MOTE_ERR_KERNEL_SHAPE);
        p->wtable = (const int32_t *)rt->data;
    }
    p->input = (const int8_t *)in->data;
    p->output = (int8_t *)out->data;
    return MOTE_OK;
}

/**
 * The geometry shared by the int8, int4-weight and int16 linears: input
 * (args[0], [M, K] of `dtype`), weight (args[1]: int8 [N, K], or with
 * per_byte = 2 uint8 [N, K/2] holding two int4 values per byte, K even) and
 * output (the last argument, [M, N] of `dtype`): N = M rows, H = W = KH = KW = 1,
 * Cin = K.
 */
mote_err_t mote_linear_geometry(mote_value_t *const *args, uint32_t nargs, uint8_t dtype, int32_t per_byte,
                                mote_s8_conv_params_t *p, mote_tensor_t **in, mote_tensor_t **out)
{
    mote_tensor_t *wt;
    MOTE_TRY(mote_s8_tensor_arg(args[0], dtype, 2, in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], per_byte == 2 ? MOTE_DTYPE_UINT8 : MOTE_DTYPE_INT8, 2, &wt));
    MOTE_TRY(mote_s8_tensor_arg(args[nargs - 1], dtype, 2, out));
    p->n = (*in)->sizes[0];
    p->cin = (*in)->sizes[1];
    p->cout = wt->sizes[0];
    MOTE_CHECK(p->cin % per_byte == 0 && (int64_t)wt->sizes[1] * per_byte == p->cin &&
                   (*out)->sizes[0] == p->n && (*out)->sizes[1] == p->cout && p->cin >= 1 && p->cout >= 1,
               MOTE_ERR_KERNEL_SHAPE);
    p->h = p->w = p->kh = p->kw = p->ho = p->wo = 1;
    p->stride_h = p->stride_w = p->dil_h = p->dil_w = 1;
    p->pad_h = p->pad_w = 0;
    p->depth_mult = 1;
    p->nchw = 0;
    p->wpanel = NULL;
    p->wtable = NULL;
    p->oy0 = 0;
    p->oy1 = 1;
    p->weight = (const int8_t *)wt->data;
    return MOTE_OK;
}

/**
 * Parse linear_s8 (per_byte = 1) or linear_s4 (per_byte = 2: p->weight holds
 * the packed int4 bytes) into *p; both take 10 args, linear_s8 11 with its DSP
 * panel as an int16 argument 9 (p->wpanel, p->wtable after it) or its
 * requantization table alone as an int32 argument 9 (p->wtable, p->wpanel NULL).
 */
mote_err_t mote_s8_linear_parse(mote_value_t *const *args, uint32_t nargs, int32_t per_byte,
                                mote_s8_conv_params_t *p)
{
    mote_tensor_t *in;
    mote_tensor_t *out;
    MOTE_CHECK(args != NULL && (nargs == 10u || (per_byte == 1 && nargs == 11u)),
               MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_linear_geometry(args, nargs, MOTE_DTYPE_INT8, per_byte, p, &in, &out));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[5], &p->in_zp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[6], &p->out_zp));
    MOTE_TRY(mote_s8_act_args(args[7], args[8], &p->act_min, &p->act_max));
    MOTE_TRY(mote_s8_chan_args(&args[2], p->cout, p));
    if (nargs == 11u && args[9] != NULL && args[9]->tag == MOTE_TAG_TENSOR && args[9]->u.t != NULL &&
        args[9]->u.t->dtype == MOTE_DTYPE_INT32) {
        /* the requantization table alone (the weights read in place) */
        mote_tensor_t *wt;
        const uint32_t nt = mote_s8_linear_table_numel(p->cin, p->cout);
        MOTE_TRY(mote_s8_tensor_arg(args[9], MOTE_DTYPE_INT32, 1, &wt));
        MOTE_CHECK(nt > 0u && (uint64_t)wt->sizes[0] == nt, MOTE_ERR_KERNEL_SHAPE);
        p->wtable = (const int32_t *)wt->data;
    } else if (nargs == 11u) {
        mote_tensor_t *wp;
        const uint32_t np = mote_s8_linear_panel_numel(p->cin, p->cout);
        MOTE_TRY(mote_s8_tensor_arg(args[9], MOTE_DTYPE_INT16, 1, &wp));
        MOTE_CHECK(np > 0u && (uint64_t)wp->sizes[0] == np && ((uintptr_t)wp->data & 3u) == 0u,
                   MOTE_ERR_KERNEL_SHAPE);
        p->wpanel = (const int16_t *)wp->data;
        /* the table after round4(N) * round8(K) elements: a multiple of 32 */
        p->wtable = (const int32_t *)(const void *)(p->wpanel + (size_t)((p->cout + 3) & ~3) *
                                                                   (size_t)((p->cin + 7) & ~7));
    }
    p->input = (const int8_t *)in->data;
    p->output = (int8_t *)out->data;
    return MOTE_OK;
}

/* ------------------------------------------------- int16 activations (s16) */

/* Bias, multiplier and shift of an s16 kernel (args[0..2]): int64 bias within
   +-MOTE_S16_BIAS_MAX, multiplier >= 0, shift in [-31, 14] (mote_requantize_s64). */
static mote_err_t s16_chan_args(mote_value_t *const *args, mote_s16_conv_params_t *q)
{
    mote_tensor_t *b;
    mote_tensor_t *m;
    mote_tensor_t *s;
    const int32_t cout = q->g.cout;
    int32_t c;
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT64, 1, &b));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT32, 1, &m));
    MOTE_TRY(mote_s8_tensor_arg(args[2], MOTE_DTYPE_INT32, 1, &s));
    MOTE_CHECK(b->sizes[0] == cout && m->sizes[0] == cout && s->sizes[0] == cout, MOTE_ERR_KERNEL_SHAPE);
    q->bias = (const int64_t *)b->data;
    q->g.mult = (const int32_t *)m->data;
    q->g.shift = (const int32_t *)s->data;
    q->g.bias = NULL;
    for (c = 0; c < cout; c++) {
        MOTE_CHECK(q->g.mult[c] >= 0 && q->g.shift[c] >= -31 && q->g.shift[c] <= 14 &&
                       q->bias[c] >= -MOTE_S16_BIAS_MAX && q->bias[c] <= MOTE_S16_BIAS_MAX,
                   MOTE_ERR_KERNEL_ARGS);
    }
    return MOTE_OK;
}

/* The activation range (two ints within int16, min <= max). */
static mote_err_t s16_act_args(const mote_value_t *vmin, const mote_value_t *vmax, mote_s8_conv_params_t *p)
{
    MOTE_CHECK(mote_s8_int_arg(vmin, INT16_MIN, INT16_MAX, &p->act_min) == MOTE_OK &&
                   mote_s8_int_arg(vmax, INT16_MIN, INT16_MAX, &p->act_max) == MOTE_OK &&
                   p->act_min <= p->act_max,
               MOTE_ERR_KERNEL_ARGS);
    return MOTE_OK;
}

mote_err_t mote_s16_conv_parse(mote_value_t *const *args, uint32_t nargs, int depthwise,
                               mote_s16_conv_params_t *q)
{
    mote_tensor_t *in;
    mote_tensor_t *out;
    uint32_t a;
    MOTE_CHECK(args != NULL && nargs == (depthwise ? 12u : 11u), MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_conv_geometry(args, nargs, depthwise, MOTE_DTYPE_INT16, &q->g, &in, &out, &a));
    MOTE_CHECK((int64_t)q->g.kh * q->g.kw * (depthwise ? 1 : q->g.cin) <= MOTE_S16_TAPS_MAX,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(s16_act_args(args[a], args[a + 1], &q->g));
    MOTE_TRY(s16_chan_args(&args[2], q));
    q->g.in_zp = q->g.out_zp = 0;
    q->g.input = NULL;
    q->g.output = NULL;
    q->input = (const int16_t *)in->data;
    q->output = (int16_t *)out->data;
    return MOTE_OK;
}

mote_err_t mote_s16_linear_parse(mote_value_t *const *args, uint32_t nargs, mote_s16_conv_params_t *q)
{
    mote_tensor_t *in;
    mote_tensor_t *out;
    MOTE_CHECK(args != NULL && nargs == 8u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_linear_geometry(args, nargs, MOTE_DTYPE_INT16, 1, &q->g, &in, &out));
    MOTE_CHECK(q->g.cin <= MOTE_S16_TAPS_MAX, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(s16_act_args(args[5], args[6], &q->g));
    MOTE_TRY(s16_chan_args(&args[2], q));
    q->g.in_zp = q->g.out_zp = 0;
    q->g.input = NULL;
    q->g.output = NULL;
    q->input = (const int16_t *)in->data;
    q->output = (int16_t *)out->data;
    return MOTE_OK;
}

mote_err_t mote_s8_mean_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_mean_params_t *p)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    if (args == NULL || nargs != 6u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &ti));
    MOTE_TRY(mote_s8_tensor_arg(args[5], MOTE_DTYPE_INT8, 4, &to));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[1], &p->in_zp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &p->out_zp));
    MOTE_TRY(mote_s8_int_arg(args[3], 0, INT32_MAX, &p->mult));
    MOTE_TRY(mote_s8_int_arg(args[4], -31, 31, &p->shift));
    p->n = ti->sizes[0];
    p->hw = ti->sizes[1] * ti->sizes[2];
    p->c = ti->sizes[3];
    if (to->sizes[0] != p->n || to->sizes[1] != 1 || to->sizes[2] != 1 || to->sizes[3] != p->c) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    p->input = (const int8_t *)ti->data;
    p->output = (int8_t *)to->data;
    return MOTE_OK;
}
