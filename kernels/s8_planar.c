/*
 * kernels/s8_planar.c - argument parsers of the planar int16 pair
 * (mote::pointwise_s8_planar16, mote::depthwise_planar16_s8) and the border
 * writer, one copy per firmware (declared in kernels/requant.h).
 */
#include "requant.h"

mote_err_t mote_s8_planar_pw_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_planar_params_t *q)
{
    mote_s8_conv_params_t *p = &q->g;
    mote_tensor_t *in;
    mote_tensor_t *wt;
    mote_tensor_t *out;
    int32_t bd[2];
    MOTE_CHECK(args != NULL && (nargs == 10u || nargs == 11u), MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 4, &wt));
    MOTE_TRY(mote_s8_tensor_arg(args[nargs - 1], MOTE_DTYPE_INT16, 4, &out));
    MOTE_TRY(mote_s8_pair_arg(args[5], 0, 0x7fff, bd));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[6], &p->out_zp));
    MOTE_TRY(mote_s8_act_args(args[7], args[8], &p->act_min, &p->act_max));
    p->n = in->sizes[0];
    p->h = p->ho = in->sizes[1];
    p->w = p->wo = in->sizes[2];
    p->cin = in->sizes[3];
    p->cout = wt->sizes[0];
    MOTE_CHECK(wt->sizes[1] == 1 && wt->sizes[2] == 1 && wt->sizes[3] == p->cin && p->cin >= 1 &&
                   p->cout >= 1,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_s8_chan_args(&args[2], p->cout, p));
    q->hp = (int32_t)((int64_t)p->h + 2 * (int64_t)bd[0] > INT32_MAX ? -1 : p->h + 2 * bd[0]);
    q->wp = (int32_t)((int64_t)p->w + 2 * (int64_t)bd[1] > INT32_MAX ? -1 : p->w + 2 * bd[1]);
    MOTE_CHECK(out->sizes[0] == p->n && out->sizes[1] == p->cout && out->sizes[2] == q->hp &&
                   out->sizes[3] == q->wp,
               MOTE_ERR_KERNEL_SHAPE);
    p->kh = p->kw = 1;
    p->stride_h = p->stride_w = p->dil_h = p->dil_w = p->depth_mult = 1;
    p->pad_h = bd[0];
    p->pad_w = bd[1];
    p->in_zp = 0;
    p->weight = (const int8_t *)wt->data;
    p->wpanel = NULL;
    if (nargs == 11u) {
        mote_tensor_t *wp;
        MOTE_TRY(mote_s8_tensor_arg(args[9], MOTE_DTYPE_INT16, 1, &wp));
        MOTE_CHECK((uint64_t)wp->sizes[0] == mote_s8_conv_panel_numel(p->cin, p->cout) &&
                       ((uintptr_t)wp->data & 3u) == 0u,
                   MOTE_ERR_KERNEL_SHAPE);
        p->wpanel = (const int16_t *)wp->data;
    }
    p->input = (const int8_t *)in->data;
    p->output = NULL;
    p->oy0 = 0;
    p->oy1 = p->h;
    q->pin = NULL;
    q->pout = (int16_t *)out->data;
    return MOTE_OK;
}

mote_err_t mote_s8_planar_dw_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_planar_params_t *q)
{
    mote_s8_conv_params_t *p = &q->g;
    mote_tensor_t *in;
    mote_tensor_t *wt;
    mote_tensor_t *out;
    int32_t st[2];
    int32_t pd[2];
    int32_t dl[2];
    MOTE_CHECK(args != NULL && nargs == 12u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT16, 4, &in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 4, &wt));
    MOTE_TRY(mote_s8_tensor_arg(args[11], MOTE_DTYPE_INT8, 4, &out));
    MOTE_TRY(mote_s8_pair_arg(args[5], 1, 0x7fff, st));
    MOTE_TRY(mote_s8_pair_arg(args[6], 0, 0x7fff, pd));
    MOTE_TRY(mote_s8_pair_arg(args[7], 1, 0x7fff, dl));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[8], &p->out_zp));
    MOTE_TRY(mote_s8_act_args(args[9], args[10], &p->act_min, &p->act_max));
    p->n = in->sizes[0];
    p->cin = p->cout = in->sizes[1];
    q->hp = in->sizes[2];
    q->wp = in->sizes[3];
    p->h = q->hp - 2 * pd[0]; /* pd <= 0x7fff: no overflow */
    p->w = q->wp - 2 * pd[1];
    p->kh = wt->sizes[1];
    p->kw = wt->sizes[2];
    MOTE_CHECK(wt->sizes[0] == 1 && wt->sizes[3] == p->cout && p->cout >= 1 && p->h >= 1 && p->w >= 1 &&
                   p->kh >= 1 && p->kw >= 1,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_s8_chan_args(&args[2], p->cout, p));
    p->stride_h = st[0];
    p->stride_w = st[1];
    p->pad_h = pd[0];
    p->pad_w = pd[1];
    p->dil_h = dl[0];
    p->dil_w = dl[1];
    p->depth_mult = 1;
    p->ho = mote_s8_out_dim(p->h, p->kh, p->stride_h, p->pad_h, p->dil_h);
    p->wo = mote_s8_out_dim(p->w, p->kw, p->stride_w, p->pad_w, p->dil_w);
    MOTE_CHECK(out->sizes[0] == p->n && out->sizes[1] == p->ho && out->sizes[2] == p->wo &&
                   out->sizes[3] == p->cout && p->ho >= 1 && p->wo >= 1,
               MOTE_ERR_KERNEL_SHAPE);
    p->in_zp = 0;
    p->weight = (const int8_t *)wt->data;
    p->wpanel = NULL;
    p->input = NULL;
    p->output = (int8_t *)out->data;
    p->oy0 = 0;
    p->oy1 = p->ho;
    q->pin = (const int16_t *)in->data;
    q->pout = NULL;
    return MOTE_OK;
}

void mote_s8_planar_border(const mote_s8_planar_params_t *q)
{
    const mote_s8_conv_params_t *p = &q->g;
    const size_t plane = (size_t)q->hp * (size_t)q->wp;
    const size_t planes = (size_t)p->n * (size_t)p->cout;
    size_t k;
    int32_t y, x;
    if (p->pad_h == 0 && p->pad_w == 0) {
        return;
    }
    for (k = 0; k < planes; k++) {
        int16_t *pl = q->pout + k * plane;
        for (y = 0; y < q->hp; y++) {
            int16_t *row = pl + (size_t)y * (size_t)q->wp;
            if (y < p->pad_h || y >= p->pad_h + p->h) {
                for (x = 0; x < q->wp; x++) {
                    row[x] = 0;
                }
            } else {
                for (x = 0; x < p->pad_w; x++) {
                    row[x] = 0;
                    row[q->wp - 1 - x] = 0;
                }
            }
        }
    }
}
