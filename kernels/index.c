/*
 * kernels/index.c - shared logic of the index family (see index.h).
 */
#include "index.h"

#include <string.h>

int mote_k_idx_dtype(uint8_t dtype)
{
    return dtype == MOTE_DTYPE_INT64 || dtype == MOTE_DTYPE_INT32;
}

int64_t mote_k_idx_get(const mote_tensor_t *t, size_t i)
{
    if (t->dtype == MOTE_DTYPE_INT64) {
        return ((const int64_t *)t->data)[i];
    }
    return (int64_t)((const int32_t *)t->data)[i];
}

mote_err_t mote_k_idx_wrap(int64_t v, int64_t n, int neg, size_t *out)
{
    if (neg && v < 0 && v >= -n) {
        v += n;
    }
    MOTE_CHECK(v >= 0 && v < n, MOTE_ERR_KERNEL_ARGS);
    *out = (size_t)v;
    return MOTE_OK;
}

mote_err_t mote_k_scalar_store(uint8_t dtype, double v, void *buf)
{
    int is_int = dtype == MOTE_DTYPE_INT64 || dtype == MOTE_DTYPE_INT32 ||
                 dtype == MOTE_DTYPE_INT16 || dtype == MOTE_DTYPE_INT8 || dtype == MOTE_DTYPE_UINT8;
    if (is_int) {
        /* the conversion of an out-of-range (or NaN) double is undefined: refuse it */
        MOTE_CHECK(v == v && v > -9.2233720368547758e18 && v < 9.2233720368547758e18,
                   MOTE_ERR_KERNEL_ARGS);
    }
    switch (dtype) {
    case MOTE_DTYPE_FLOAT32: { float f = (float)v; memcpy(buf, &f, 4); break; }
    case MOTE_DTYPE_FLOAT64: memcpy(buf, &v, 8); break;
    case MOTE_DTYPE_INT64: { int64_t x = (int64_t)v; memcpy(buf, &x, 8); break; }
    case MOTE_DTYPE_INT32: { int32_t x = (int32_t)(uint32_t)(uint64_t)(int64_t)v; memcpy(buf, &x, 4); break; }
    case MOTE_DTYPE_INT16: { int16_t x = (int16_t)(uint16_t)(uint64_t)(int64_t)v; memcpy(buf, &x, 2); break; }
    case MOTE_DTYPE_INT8: { int8_t x = (int8_t)(uint8_t)(uint64_t)(int64_t)v; memcpy(buf, &x, 1); break; }
    case MOTE_DTYPE_UINT8: { uint8_t x = (uint8_t)(uint64_t)(int64_t)v; memcpy(buf, &x, 1); break; }
    case MOTE_DTYPE_BOOL: { uint8_t x = (uint8_t)(v != 0.0); memcpy(buf, &x, 1); break; }
    default: return MOTE_ERR_KERNEL_DTYPE;
    }
    return MOTE_OK;
}

int mote_k_acc_dtype(uint8_t dtype)
{
    return dtype == MOTE_DTYPE_FLOAT32 || dtype == MOTE_DTYPE_FLOAT64 || dtype == MOTE_DTYPE_INT64 ||
           dtype == MOTE_DTYPE_INT32 || dtype == MOTE_DTYPE_INT16 || dtype == MOTE_DTYPE_INT8 ||
           dtype == MOTE_DTYPE_UINT8;
}

void mote_k_acc(uint8_t dtype, void *dst, const void *src)
{
    switch (dtype) {
    case MOTE_DTYPE_FLOAT32: *(float *)dst += *(const float *)src; break;
    case MOTE_DTYPE_FLOAT64: *(double *)dst += *(const double *)src; break;
    /* integers wrap as in torch: add as unsigned */
    case MOTE_DTYPE_INT64:
        *(int64_t *)dst = (int64_t)((uint64_t) * (int64_t *)dst + (uint64_t) * (const int64_t *)src);
        break;
    case MOTE_DTYPE_INT32:
        *(int32_t *)dst = (int32_t)((uint32_t) * (int32_t *)dst + (uint32_t) * (const int32_t *)src);
        break;
    case MOTE_DTYPE_INT16:
        *(int16_t *)dst = (int16_t)(uint16_t)((uint32_t)(uint16_t) * (int16_t *)dst +
                                              (uint32_t)(uint16_t) * (const int16_t *)src);
        break;
    case MOTE_DTYPE_INT8:
        *(int8_t *)dst = (int8_t)(uint8_t)((uint32_t)(uint8_t) * (int8_t *)dst +
                                           (uint32_t)(uint8_t) * (const int8_t *)src);
        break;
    case MOTE_DTYPE_UINT8:
        *(uint8_t *)dst = (uint8_t)((uint32_t) * (uint8_t *)dst + (uint32_t) * (const uint8_t *)src);
        break;
    default: break;
    }
}

void mote_k_coord_next(size_t *c, const size_t *sz, uint32_t rank)
{
    uint32_t d = rank;
    while (d > 0) {
        d--;
        if (++c[d] < sz[d]) {
            return;
        }
        c[d] = 0;
    }
}

/* sizes of t as a rank >= 1 shape (0-d -> [1]) */
static uint32_t mote_sg_shape(const mote_tensor_t *t, size_t *sz)
{
    uint32_t d;
    if (t->dim == 0) {
        sz[0] = 1;
        return 1;
    }
    for (d = 0; d < t->dim; d++) {
        sz[d] = (size_t)t->sizes[d];
    }
    return t->dim;
}

static void mote_sg_strides(const size_t *sz, uint32_t rank, size_t *st)
{
    size_t s = 1;
    uint32_t d = rank;
    while (d > 0) {
        d--;
        st[d] = s;
        s *= sz[d];
    }
}

mote_err_t mote_k_scatter_gather(mote_sg_mode_t mode, const mote_tensor_t *self, int64_t dim,
                                 const mote_tensor_t *index, const mote_tensor_t *src,
                                 const void *value, mote_tensor_t *out)
{
    size_t ssz[MOTE_MAX_DIM], isz[MOTE_MAX_DIM], csz[MOTE_MAX_DIM];
    size_t sst[MOTE_MAX_DIM], cst[MOTE_MAX_DIM], c[MOTE_MAX_DIM];
    uint32_t rank, d, cd;
    size_t esz, n, i;
    const int has_src = mode == MOTE_SG_SCATTER || mode == MOTE_SG_SCATTER_ADD;
    const int gather = mode == MOTE_SG_GATHER;
    const uint8_t *sp;
    uint8_t *op;

    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == self->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_idx_dtype(index->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(!has_src || src->dtype == self->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mode != MOTE_SG_SCATTER_ADD || mote_k_acc_dtype(self->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_dim(dim, self->dim, &cd));
    rank = mote_sg_shape(self, ssz);
    MOTE_CHECK(index->dim == self->dim || (index->dim <= 1 && self->dim <= 1 && index->numel <= 1),
               MOTE_ERR_KERNEL_SHAPE);
    (void)mote_sg_shape(index, isz);
    if (index->dim != self->dim) {
        isz[0] = index->numel; /* a 0-d / [1] index next to a 0-d / [1] self */
    }
    MOTE_TRY(mote_k_check_numel(self));
    MOTE_TRY(mote_k_check_numel(index));
    MOTE_TRY(mote_k_check_numel(out));
    for (d = 0; d < rank; d++) {
        MOTE_CHECK(d == cd || isz[d] <= ssz[d], MOTE_ERR_KERNEL_SHAPE);
    }
    if (has_src) {
        MOTE_TRY(mote_k_check_numel(src));
        MOTE_CHECK(src->dim == self->dim || (src->dim <= 1 && self->dim <= 1),
                   MOTE_ERR_KERNEL_SHAPE);
        (void)mote_sg_shape(src, csz);
        if (src->dim != self->dim) {
            csz[0] = src->numel;
        }
        for (d = 0; d < rank; d++) {
            MOTE_CHECK(isz[d] <= csz[d], MOTE_ERR_KERNEL_SHAPE);
        }
        mote_sg_strides(csz, rank, cst);
    }
    if (gather) {
        MOTE_CHECK(out->numel == index->numel, MOTE_ERR_KERNEL_SHAPE);
        MOTE_CHECK(out->dim == index->dim, MOTE_ERR_KERNEL_SHAPE);
        for (d = 0; d < out->dim; d++) {
            MOTE_CHECK(out->sizes[d] == index->sizes[d], MOTE_ERR_KERNEL_SHAPE);
        }
    } else {
        MOTE_CHECK(mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
        mote_k_copy_data(self, out);
    }
    mote_sg_strides(ssz, rank, sst);
    n = index->numel;
    sp = (const uint8_t *)self->data;
    op = (uint8_t *)out->data;
    for (d = 0; d < rank; d++) {
        c[d] = 0;
    }
    for (i = 0; i < n; i++) {
        size_t j, off = 0, coff = 0;
        MOTE_TRY(mote_k_idx_wrap(mote_k_idx_get(index, i), (int64_t)ssz[cd], 0, &j));
        for (d = 0; d < rank; d++) {
            off += (d == cd ? j : c[d]) * sst[d];
            if (has_src) {
                coff += c[d] * cst[d];
            }
        }
        switch (mode) {
        case MOTE_SG_GATHER: memmove(op + i * esz, sp + off * esz, esz); break;
        case MOTE_SG_SCATTER:
            memmove(op + off * esz, (const uint8_t *)src->data + coff * esz, esz);
            break;
        case MOTE_SG_SCATTER_VAL: memcpy(op + off * esz, value, esz); break;
        case MOTE_SG_SCATTER_ADD:
            mote_k_acc(self->dtype, op + off * esz, (const uint8_t *)src->data + coff * esz);
            break;
        }
        mote_k_coord_next(c, isz, rank);
    }
    return MOTE_OK;
}

static int mote_adv_is_mask(uint8_t dtype)
{
    return dtype == MOTE_DTYPE_BOOL || dtype == MOTE_DTYPE_UINT8;
}

mote_err_t mote_k_adv_init(mote_k_adv_t *g, const mote_tensor_t *self, const mote_value_t *indices)
{
    mote_tensor_t *const *items;
    uint32_t len, k, sd = 0, d, r = self->dim, first = 0xFFu, last = 0, any = 0, adjacent = 1;
    memset(g, 0, sizeof(*g));
    g->self = self;
    MOTE_CHECK(indices != NULL && (indices->tag == MOTE_TAG_TENSOR_LIST ||
                                   indices->tag == MOTE_TAG_OPT_TENSOR_LIST),
               MOTE_ERR_KERNEL_ARGS);
    items = indices->u.tensors.items;
    len = indices->u.tensors.len;
    MOTE_CHECK(len == 0 || items != NULL, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_check_numel(self));
    /* dtypes first, then shapes */
    for (k = 0; k < len; k++) {
        const mote_tensor_t *t = items[k];
        if (t != NULL) {
            mote_value_t v;
            mote_tensor_t *chk;
            v.tag = MOTE_TAG_TENSOR;
            v.u.t = items[k];
            MOTE_TRY(mote_k_tensor(&v, &chk));
            MOTE_CHECK(mote_k_idx_dtype(t->dtype) || mote_adv_is_mask(t->dtype),
                       MOTE_ERR_KERNEL_DTYPE);
        }
    }
    for (k = 0; k < len; k++) {
        const mote_tensor_t *t = items[k];
        if (t == NULL) {
            sd++;
            continue;
        }
        MOTE_TRY(mote_k_check_numel(t));
        if (mote_adv_is_mask(t->dtype)) {
            size_t i, nnz = 0;
            const uint8_t *m = (const uint8_t *)t->data;
            MOTE_CHECK(t->dim > 0 && sd + t->dim <= r, MOTE_ERR_KERNEL_SHAPE);
            for (i = 0; i < t->numel; i++) {
                nnz += m[i] != 0;
            }
            for (d = 0; d < t->dim; d++) {
                MOTE_CHECK(t->sizes[d] == self->sizes[sd + d], MOTE_ERR_KERNEL_SHAPE);
                g->idx[sd + d] = t;
                g->mask[sd + d] = 1;
                g->comp[sd + d] = (uint8_t)d;
                g->nnz[sd + d] = nnz;
                g->cache_p[sd + d] = (size_t)-1;
            }
            sd += t->dim;
        } else {
            MOTE_CHECK(sd < r, MOTE_ERR_KERNEL_SHAPE);
            g->idx[sd++] = t;
        }
    }
    MOTE_CHECK(sd <= r, MOTE_ERR_KERNEL_SHAPE);
    /* broadcast shape of the index tensors (a mask counts as [nnz]) */
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        g->bsz[d] = 1;
    }
    for (d = 0; d < r; d++) {
        const mote_tensor_t *t = g->idx[d];
        uint32_t rk = t == NULL ? 0 : (g->mask[d] ? 1u : t->dim);
        if (t == NULL) {
            continue;
        }
        any = 1;
        if (first == 0xFFu) {
            first = d;
        }
        last = d;
        if (rk > g->bdim) {
            g->bdim = rk;
        }
    }
    for (d = 0; d < r; d++) {
        const mote_tensor_t *t = g->idx[d];
        uint32_t rk, j;
        if (t == NULL) {
            continue;
        }
        rk = g->mask[d] ? 1u : t->dim;
        for (j = 0; j < rk; j++) {
            size_t s = g->mask[d] ? g->nnz[d] : (size_t)t->sizes[j];
            size_t *b = &g->bsz[g->bdim - rk + j];
            if (s == 1) {
                continue;
            }
            MOTE_CHECK(*b == 1 || *b == s, MOTE_ERR_KERNEL_SHAPE);
            *b = s;
        }
    }
    if (any) {
        for (d = first; d <= last; d++) {
            adjacent &= g->idx[d] != NULL;
        }
    }
    /* result shape */
    g->bpos = any ? (adjacent ? first : 0) : 0;
    g->rdim = 0;
    for (d = 0; d < r; d++) {
        if (any && d == g->bpos && adjacent) {
            uint32_t j;
            MOTE_CHECK(g->rdim + g->bdim <= MOTE_MAX_DIM, MOTE_ERR_KERNEL_SHAPE);
            for (j = 0; j < g->bdim; j++) {
                g->rsrc[g->rdim] = 0xFFu;
                g->rsz[g->rdim++] = g->bsz[j];
            }
        }
        if (any && !adjacent && d == 0) {
            uint32_t j;
            MOTE_CHECK(g->bdim <= MOTE_MAX_DIM, MOTE_ERR_KERNEL_SHAPE);
            for (j = 0; j < g->bdim; j++) {
                g->rsrc[g->rdim] = 0xFFu;
                g->rsz[g->rdim++] = g->bsz[j];
            }
        }
        if (g->idx[d] == NULL) {
            MOTE_CHECK(g->rdim < MOTE_MAX_DIM, MOTE_ERR_KERNEL_SHAPE);
            g->rsrc[g->rdim] = (uint8_t)d;
            g->rpos[d] = (uint8_t)g->rdim;
            g->rsz[g->rdim++] = (size_t)self->sizes[d];
        }
    }
    g->rnumel = 1;
    for (d = 0; d < g->rdim; d++) {
        g->rnumel *= g->rsz[d];
    }
    return MOTE_OK;
}

/* linear position of the p-th nonzero element of mask t (p < nnz) */
static size_t mote_adv_mask_pos(mote_k_adv_t *g, uint32_t d, size_t p)
{
    const mote_tensor_t *t = g->idx[d];
    const uint8_t *m = (const uint8_t *)t->data;
    size_t k, pos;
    if (g->cache_p[d] != (size_t)-1 && p >= g->cache_p[d]) {
        k = g->cache_p[d];
        pos = g->cache_l[d];
    } else {
        k = (size_t)-1; /* wraps to 0 at the first nonzero */
        pos = (size_t)-1;
    }
    while (k != p && pos + 1 < t->numel) {
        pos++;
        k += m[pos] != 0;
    }
    g->cache_p[d] = k;
    g->cache_l[d] = pos;
    return pos;
}

mote_err_t mote_k_adv_offset(mote_k_adv_t *g, const size_t *rc, size_t *off)
{
    const mote_tensor_t *self = g->self;
    size_t o = 0;
    uint32_t d, j;
    const size_t *bc = rc + g->bpos;
    for (d = 0; d < self->dim; d++) {
        const mote_tensor_t *t = g->idx[d];
        size_t v;
        if (t == NULL) {
            v = rc[g->rpos[d]];
        } else if (g->mask[d]) {
            size_t p = g->nnz[d] == 1 ? 0 : bc[g->bdim - 1], pos, inner = 1;
            MOTE_CHECK(p < g->nnz[d], MOTE_ERR_KERNEL_ARGS);
            pos = mote_adv_mask_pos(g, d, p);
            for (j = (uint32_t)g->comp[d] + 1u; j < t->dim; j++) {
                inner *= (size_t)t->sizes[j];
            }
            v = (pos / inner) % (size_t)t->sizes[g->comp[d]];
        } else {
            size_t lin = 0;
            for (j = 0; j < t->dim; j++) {
                size_t s = (size_t)t->sizes[j];
                lin = lin * s + (s == 1 ? 0 : bc[g->bdim - t->dim + j]);
            }
            MOTE_TRY(mote_k_idx_wrap(mote_k_idx_get(t, lin), (int64_t)self->sizes[d], 1, &v));
        }
        o = o * (size_t)self->sizes[d] + v;
    }
    *off = o;
    return MOTE_OK;
}

mote_err_t mote_k_index_put(mote_value_t *const *args, uint32_t out_arg)
{
    mote_tensor_t *self, *vals, *out;
    mote_k_adv_t g;
    int acc;
    size_t esz, i, rc[MOTE_MAX_DIM], vst[MOTE_MAX_DIM];
    uint32_t d;
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_CHECK(args[1]->tag == MOTE_TAG_TENSOR_LIST || args[1]->tag == MOTE_TAG_OPT_TENSOR_LIST,
               MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[2], &vals));
    MOTE_TRY(mote_k_bool(args[3], &acc));
    MOTE_TRY(mote_k_tensor(args[out_arg], &out));
    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == self->dtype && vals->dtype == self->dtype,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(!acc || mote_k_acc_dtype(self->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_adv_init(&g, self, args[1]));
    MOTE_CHECK(mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(vals));
    MOTE_TRY(mote_k_check_numel(out));
    /* values broadcast (right-aligned) to the indexed shape */
    MOTE_CHECK(vals->dim <= g.rdim, MOTE_ERR_KERNEL_SHAPE);
    {
        size_t s = 1;
        for (d = g.rdim; d > 0; d--) {
            uint32_t rd = d - 1u;
            if (rd + vals->dim >= g.rdim) {
                size_t vs = (size_t)vals->sizes[rd + vals->dim - g.rdim];
                MOTE_CHECK(vs == 1 || vs == g.rsz[rd], MOTE_ERR_KERNEL_SHAPE);
                vst[rd] = vs == 1 ? 0 : s;
                s *= vs;
            } else {
                vst[rd] = 0;
            }
        }
    }
    mote_k_copy_data(self, out);
    for (d = 0; d < g.rdim; d++) {
        rc[d] = 0;
    }
    for (i = 0; i < g.rnumel; i++) {
        size_t off, voff = 0;
        const uint8_t *src;
        MOTE_TRY(mote_k_adv_offset(&g, rc, &off));
        for (d = 0; d < g.rdim; d++) {
            voff += rc[d] * vst[d];
        }
        src = (const uint8_t *)vals->data + voff * esz;
        if (acc) {
            mote_k_acc(self->dtype, (uint8_t *)out->data + off * esz, src);
        } else {
            memmove((uint8_t *)out->data + off * esz, src, esz);
        }
        mote_k_coord_next(rc, g.rsz, g.rdim);
    }
    return MOTE_OK;
}

mote_err_t mote_k_scatter_src(mote_sg_mode_t mode, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *self, *idx, *src, *out;
    int64_t dim;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &idx));
    MOTE_TRY(mote_k_tensor(args[3], &src));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    return mote_k_scatter_gather(mode, self, dim, idx, src, NULL, out);
}
