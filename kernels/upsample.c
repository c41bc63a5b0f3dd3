/*
 * kernels/upsample.c - 2-D upsampling geometry (see upsample.h).
 */
#include "upsample.h"

#include <math.h>

mote_err_t mote_k_up2d_vec(mote_k_up2d_t *g, const mote_value_t *input, const mote_value_t *osize,
                           const mote_value_t *scales, const mote_value_t *out)
{
    int has_size = !mote_k_is_none(osize), has_scale = !mote_k_is_none(scales);
    MOTE_TRY(mote_k_tensor(input, &g->in));
    MOTE_TRY(mote_k_tensor(out, &g->out));
    g->has_sh = g->has_sw = 0;
    g->sh = g->sw = 0.0;
    MOTE_CHECK(has_size != has_scale, MOTE_ERR_KERNEL_ARGS);
    if (has_size) {
        const int64_t *sz;
        uint32_t n;
        MOTE_TRY(mote_k_ints(osize, &sz, &n));
        MOTE_CHECK(n == 2 && sz[0] >= 0 && sz[1] >= 0 && sz[0] < 0x7FFFFFFF && sz[1] < 0x7FFFFFFF,
                   MOTE_ERR_KERNEL_ARGS);
        g->oh = (size_t)sz[0];
        g->ow = (size_t)sz[1];
    } else {
        MOTE_CHECK(scales->tag == MOTE_TAG_DOUBLE_LIST && scales->u.doubles.len == 2 &&
                       scales->u.doubles.items != NULL,
                   MOTE_ERR_KERNEL_ARGS);
        g->sh = scales->u.doubles.items[0];
        g->sw = scales->u.doubles.items[1];
        MOTE_CHECK(g->sh > 0.0 && g->sw > 0.0 && g->sh < 65536.0 && g->sw < 65536.0,
                   MOTE_ERR_KERNEL_ARGS);
        g->has_sh = g->has_sw = 1;
    }
    MOTE_CHECK(g->in->dim == 4 && g->out->dim == 4, MOTE_ERR_KERNEL_SHAPE);
    g->h = (size_t)g->in->sizes[2];
    g->w = (size_t)g->in->sizes[3];
    if (has_scale) {
        g->oh = (size_t)floor((double)g->h * g->sh);
        g->ow = (size_t)floor((double)g->w * g->sw);
    }
    g->nc = (size_t)g->in->sizes[0] * (size_t)g->in->sizes[1];
    MOTE_CHECK(g->out->sizes[0] == g->in->sizes[0] && g->out->sizes[1] == g->in->sizes[1] &&
                   (size_t)g->out->sizes[2] == g->oh && (size_t)g->out->sizes[3] == g->ow,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(g->oh * g->ow == 0 || g->h * g->w > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(g->in));
    return mote_k_check_numel(g->out);
}

float mote_k_up_scale(int has, double scale, size_t in, size_t out)
{
    if (has && scale > 0.0) {
        return (float)(1.0 / scale);
    }
    return out > 0 ? (float)in / (float)out : 0.0f;
}

float mote_k_up_area_scale(int align_corners, int has, double scale, size_t in, size_t out)
{
    if (align_corners) {
        return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
    }
    return mote_k_up_scale(has, scale, in, out);
}

size_t mote_k_up_nearest(size_t i, int has, double scale, size_t in, size_t out)
{
    float s;
    size_t k;
    if (out == in) {
        return i;
    }
    if (out == 2 * in) {
        return i >> 1;
    }
    s = mote_k_up_scale(has, scale, in, out);
    k = (size_t)floorf((float)i * s);
    return k < in - 1 ? k : in - 1;
}

void mote_k_up_linear(float scale, int align_corners, size_t i, size_t in, size_t *i0, size_t *i1,
                      float *l0, float *l1)
{
    float r, lam;
    size_t k;
    if (align_corners) {
        r = scale * (float)i;
    } else {
        r = scale * ((float)i + 0.5f) - 0.5f;
        r = r < 0.0f ? 0.0f : r;
    }
    k = (size_t)floorf(r);
    k = k < in - 1 ? k : in - 1;
    lam = r - (float)k;
    lam = lam < 0.0f ? 0.0f : (lam > 1.0f ? 1.0f : lam);
    *i0 = k;
    *i1 = k < in - 1 ? k + 1 : k;
    *l1 = lam;
    *l0 = 1.0f - lam;
}
