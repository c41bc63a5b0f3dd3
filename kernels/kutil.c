/*
 * kernels/kutil.c - argument accessors, broadcasting, strided copy and sum
 * reduction shared by the portable kernels, and the argument parsing that
 * pairs of kernels share (sum/mean, the two dim-order copies, mm/bmm).
 */
#include "kutil.h"

#include "gemm.h"

#include <string.h>

mote_err_t mote_k_nargs(mote_value_t *const *args, uint32_t nargs, uint32_t n)
{
    uint32_t i;
    MOTE_CHECK(args != NULL && nargs == n, MOTE_ERR_KERNEL_ARGS);
    for (i = 0; i < n; i++) {
        MOTE_CHECK(args[i] != NULL, MOTE_ERR_KERNEL_ARGS);
    }
    return MOTE_OK;
}

int mote_k_is_none(const mote_value_t *v)
{
    return v == NULL || v->tag == MOTE_TAG_NONE || v->tag == MOTE_TAG_NULL;
}

mote_err_t mote_k_tensor(const mote_value_t *v, mote_tensor_t **out)
{
    const mote_tensor_t *t;
    uint32_t d;
    MOTE_CHECK(v != NULL && v->tag == MOTE_TAG_TENSOR && v->u.t != NULL, MOTE_ERR_KERNEL_ARGS);
    t = v->u.t;
    MOTE_CHECK(t->dim <= MOTE_MAX_DIM, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(t->dim == 0 || t->sizes != NULL, MOTE_ERR_KERNEL_ARGS);
    if (t->dim_order != NULL) {
        for (d = 0; d < t->dim; d++) {
            MOTE_CHECK(t->dim_order[d] == d, MOTE_ERR_KERNEL_ARGS);
        }
    }
    MOTE_CHECK(t->numel == 0 || t->data != NULL, MOTE_ERR_KERNEL_ARGS);
    *out = v->u.t;
    return MOTE_OK;
}

mote_err_t mote_k_opt_tensor(const mote_value_t *v, mote_tensor_t **out)
{
    if (mote_k_is_none(v)) {
        *out = NULL;
        return MOTE_OK;
    }
    return mote_k_tensor(v, out);
}

mote_err_t mote_k_scalar(const mote_value_t *v, double *out)
{
    MOTE_CHECK(v != NULL, MOTE_ERR_KERNEL_ARGS);
    switch (v->tag) {
    case MOTE_TAG_INT: *out = (double)v->u.i; return MOTE_OK;
    case MOTE_TAG_DOUBLE: *out = v->u.d; return MOTE_OK;
    case MOTE_TAG_BOOL: *out = v->u.b ? 1.0 : 0.0; return MOTE_OK;
    default: return MOTE_ERR_KERNEL_ARGS;
    }
}

mote_err_t mote_k_int(const mote_value_t *v, int64_t *out)
{
    MOTE_CHECK(v != NULL && v->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    *out = v->u.i;
    return MOTE_OK;
}

mote_err_t mote_k_bool(const mote_value_t *v, int *out)
{
    MOTE_CHECK(v != NULL && v->tag == MOTE_TAG_BOOL, MOTE_ERR_KERNEL_ARGS);
    *out = v->u.b ? 1 : 0;
    return MOTE_OK;
}

mote_err_t mote_k_double(const mote_value_t *v, double *out)
{
    MOTE_CHECK(v != NULL, MOTE_ERR_KERNEL_ARGS);
    if (v->tag == MOTE_TAG_DOUBLE) {
        *out = v->u.d;
        return MOTE_OK;
    }
    MOTE_CHECK(v->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    *out = (double)v->u.i;
    return MOTE_OK;
}

mote_err_t mote_k_ints(const mote_value_t *v, const int64_t **items, uint32_t *len)
{
    MOTE_CHECK(v != NULL && v->tag == MOTE_TAG_INT_LIST, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(v->u.ints.len == 0 || v->u.ints.items != NULL, MOTE_ERR_KERNEL_ARGS);
    *items = v->u.ints.items;
    *len = v->u.ints.len;
    return MOTE_OK;
}

mote_err_t mote_k_dim(int64_t dim, uint32_t rank, uint32_t *out)
{
    int64_t r = rank == 0 ? 1 : (int64_t)rank;
    MOTE_CHECK(dim >= -r && dim < r, MOTE_ERR_KERNEL_ARGS);
    *out = (uint32_t)(dim < 0 ? dim + r : dim);
    return MOTE_OK;
}

int mote_k_same_shape(const mote_tensor_t *a, const mote_tensor_t *b)
{
    uint32_t d;
    if (a->dim != b->dim) {
        return 0;
    }
    for (d = 0; d < a->dim; d++) {
        if (a->sizes[d] != b->sizes[d]) {
            return 0;
        }
    }
    return 1;
}

size_t mote_k_prod(const mote_tensor_t *t, uint32_t lo, uint32_t hi)
{
    size_t p = 1;
    uint32_t d;
    for (d = lo; d < hi && d < t->dim; d++) {
        p *= (size_t)t->sizes[d];
    }
    return p;
}

mote_err_t mote_k_check_numel(const mote_tensor_t *t)
{
    uint32_t d;
    uint64_t p = 1;
    for (d = 0; d < t->dim; d++) {
        MOTE_CHECK(t->sizes[d] >= 0, MOTE_ERR_KERNEL_SHAPE);
        p *= (uint64_t)t->sizes[d];
        MOTE_CHECK(p <= 0xFFFFFFFFu, MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK(p == t->numel, MOTE_ERR_KERNEL_SHAPE);
    return MOTE_OK;
}

void mote_k_copy_data(const mote_tensor_t *in, mote_tensor_t *out)
{
    if (out->data != in->data && out->numel > 0) {
        memmove(out->data, in->data, (size_t)out->numel * mote_dtype_size(out->dtype));
    }
}

void mote_k_strides(const mote_tensor_t *t, ptrdiff_t *strides)
{
    ptrdiff_t s = 1;
    uint32_t d = t->dim;
    while (d-- > 0) {
        strides[d] = s;
        s *= (ptrdiff_t)t->sizes[d];
    }
}

mote_err_t mote_k_broadcast2(const mote_tensor_t *a, const mote_tensor_t *b, mote_tensor_t *out,
                             mote_k_row2_fn fn, const void *param)
{
    size_t size[MOTE_MAX_DIM], sa[MOTE_MAX_DIM], sb[MOTE_MAX_DIM];
    size_t idx[MOTE_MAX_DIM];
    ptrdiff_t ast[MOTE_MAX_DIM], bst[MOTE_MAX_DIM];
    uint32_t rank = out->dim, d, n = 0;
    size_t esa = mote_dtype_size(a->dtype), esb = mote_dtype_size(b->dtype);
    size_t eso = mote_dtype_size(out->dtype);
    size_t inner, outer, o;
    const uint8_t *pa = (const uint8_t *)a->data, *pb = (const uint8_t *)b->data;
    uint8_t *po = (uint8_t *)out->data;

    MOTE_CHECK(a->dim <= rank && b->dim <= rank, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(a->dim == rank || b->dim == rank, MOTE_ERR_KERNEL_SHAPE);
    mote_k_strides(a, ast);
    mote_k_strides(b, bst);
    for (d = 0; d < rank; d++) {
        int32_t os = out->sizes[d];
        int32_t as = d + a->dim >= rank ? a->sizes[d + a->dim - rank] : 1;
        int32_t bs = d + b->dim >= rank ? b->sizes[d + b->dim - rank] : 1;
        int32_t want = as == 1 ? bs : as;
        MOTE_CHECK(as == bs || as == 1 || bs == 1, MOTE_ERR_KERNEL_SHAPE);
        MOTE_CHECK(os == want, MOTE_ERR_KERNEL_SHAPE);
        if (os == 1) {
            continue;
        }
        {
            size_t xa = as == 1 ? 0 : (size_t)ast[d + a->dim - rank];
            size_t xb = bs == 1 ? 0 : (size_t)bst[d + b->dim - rank];
            /* merge with the previous (outer) dim when both inputs stay linear */
            if (n > 0 && sa[n - 1] == xa * (size_t)os && sb[n - 1] == xb * (size_t)os) {
                size[n - 1] *= (size_t)os;
                sa[n - 1] = xa;
                sb[n - 1] = xb;
            } else {
                size[n] = (size_t)os;
                sa[n] = xa;
                sb[n] = xb;
                n++;
            }
        }
    }
    if (out->numel == 0) {
        return MOTE_OK;
    }
    if (n == 0) {
        fn(po, pa, 0, pb, 0, 1, param);
        return MOTE_OK;
    }
    inner = size[n - 1];
    outer = out->numel / inner;
    for (d = 0; d < n; d++) {
        idx[d] = 0;
    }
    {
        size_t offa = 0, offb = 0;
        for (o = 0; o < outer; o++) {
            fn(po + o * inner * eso, pa + offa * esa, sa[n - 1], pb + offb * esb, sb[n - 1], inner,
               param);
            /* advance the outer index (dims 0..n-2) */
            d = n - 1;
            while (d-- > 0) {
                idx[d]++;
                offa += sa[d];
                offb += sb[d];
                if (idx[d] < size[d]) {
                    break;
                }
                offa -= sa[d] * size[d];
                offb -= sb[d] * size[d];
                idx[d] = 0;
            }
        }
    }
    return MOTE_OK;
}

/*
 * The walk of a strided copy reduced: size-1 dims dropped, and a dim merged
 * into the next when the source steps over both as one (strides[d-1] ==
 * strides[d] * sizes[d]), so the innermost dim is the longest run the source
 * allows. Returns the reduced rank (0: one element). total > 0.
 */
static uint32_t kutil_merge_dims(uint32_t rank, const size_t *sizes, const ptrdiff_t *strides,
                                 size_t *sz, ptrdiff_t *st)
{
    uint32_t d, k = 0;
    for (d = 0; d < rank; d++) {
        if (sizes[d] == 1) {
            continue;
        }
        if (k > 0 && st[k - 1] == strides[d] * (ptrdiff_t)sizes[d]) {
            sz[k - 1] *= sizes[d];
            st[k - 1] = strides[d];
        } else {
            sz[k] = sizes[d];
            st[k] = strides[d];
            k++;
        }
    }
    return k;
}

/* Word load and store at any byte address: one LDR / STR on cores with
   unaligned access (Armv7-M, Armv8-M Mainline), byte accesses elsewhere. */
static uint32_t kutil_ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void kutil_st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

/* Rows at least this long go to memmove, one call a row; shorter ones inline. */
#define KUTIL_ROW_CALL 32u

void mote_k_copy_rows(void *dst, size_t ds, const void *src, ptrdiff_t ss, size_t rows, size_t n)
{
    uint8_t *const d = (uint8_t *)dst;
    const uint8_t *const s = (const uint8_t *)src;
    size_t r, i;
    if (rows == 0 || n == 0) {
        return;
    }
    if (rows == 1 || (ds == n && ss == (ptrdiff_t)n)) { /* one run */
        memmove(d, s, rows * n);
    } else if (n >= KUTIL_ROW_CALL) {
        for (r = 0; r < rows; r++) {
            memmove(d + r * ds, s + (ptrdiff_t)r * ss, n);
        }
    } else if (n == 1) {
        for (r = 0; r < rows; r++) {
            d[r * ds] = s[(ptrdiff_t)r * ss];
        }
    } else {
        for (r = 0; r < rows; r++) {
            uint8_t *y = d + r * ds;
            const uint8_t *x = s + (ptrdiff_t)r * ss;
            for (i = 0; i + 4u <= n; i += 4u) {
                kutil_st32(y + i, kutil_ld32(x + i));
            }
            for (; i < n; i++) {
                y[i] = x[i];
            }
        }
    }
}

/* One step of a strided copy: `rows` rows (source row stride rs) of `inner`
   elements (source element stride sin; rows is 1 unless sin is 1). */
static void kutil_copy_block(uint8_t *po, const uint8_t *ps, size_t esz, size_t rows, ptrdiff_t rs,
                             size_t inner, ptrdiff_t sin)
{
    size_t i;
    if (sin == 1) {
        mote_k_copy_rows(po, inner * esz, ps, rs * (ptrdiff_t)esz, rows, inner * esz);
    } else if (esz == 4) {
        for (i = 0; i < inner; i++) {
            memmove(po + i * 4, ps + (ptrdiff_t)i * sin * 4, 4);
        }
    } else if (esz == 1) { /* int8 / uint8 / bool: no call per byte */
        for (i = 0; i < inner; i++) {
            po[i] = ps[(ptrdiff_t)i * sin];
        }
    } else {
        for (i = 0; i < inner; i++) {
            memmove(po + i * esz, ps + (ptrdiff_t)i * sin * (ptrdiff_t)esz, esz);
        }
    }
}

void mote_k_strided_copy(void *out, const void *src, size_t esz, uint32_t rank,
                         const size_t *sizes, const ptrdiff_t *strides)
{
    size_t idx[MOTE_MAX_DIM], sz[MOTE_MAX_DIM];
    ptrdiff_t st[MOTE_MAX_DIM];
    size_t total = 1, inner, rows = 1, o;
    ptrdiff_t off = 0, rs = 0;
    uint32_t d, outer_dims;
    uint8_t *po = (uint8_t *)out;
    const uint8_t *ps = (const uint8_t *)src;

    for (d = 0; d < rank; d++) {
        total *= sizes[d];
        idx[d] = 0;
    }
    if (total == 0) {
        return;
    }
    rank = kutil_merge_dims(rank, sizes, strides, sz, st);
    if (rank == 0) {
        memmove(po, ps, esz);
        return;
    }
    inner = sz[rank - 1];
    outer_dims = rank - 1;
    if (st[rank - 1] == 1 && rank >= 2) { /* contiguous rows: a block of them a step */
        rows = sz[rank - 2];
        rs = st[rank - 2];
        outer_dims = rank - 2;
    }
    for (o = 0; o < total / (inner * rows); o++) {
        kutil_copy_block(po, ps + off * (ptrdiff_t)esz, esz, rows, rs, inner, st[rank - 1]);
        po += rows * inner * esz;
        d = outer_dims;
        while (d-- > 0) {
            idx[d]++;
            off += st[d];
            if (idx[d] < sz[d]) {
                break;
            }
            off -= st[d] * (ptrdiff_t)sz[d];
            idx[d] = 0;
        }
    }
}

mote_err_t mote_k_reduce_dims(const mote_value_t *v, const mote_tensor_t *in, uint8_t *reduce)
{
    uint32_t d, len = 0;
    const int64_t *items = NULL;
    if (!mote_k_is_none(v)) {
        MOTE_TRY(mote_k_ints(v, &items, &len));
    }
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = (uint8_t)(len == 0 ? 1 : 0);
    }
    for (d = 0; d < len; d++) {
        uint32_t k;
        MOTE_TRY(mote_k_dim(items[d], in->dim, &k));
        MOTE_CHECK(!reduce[k], MOTE_ERR_KERNEL_ARGS); /* a dim listed twice */
        reduce[k] = 1;
    }
    return MOTE_OK;
}

mote_err_t mote_k_reduce_out_shape(const mote_tensor_t *in, const uint8_t *reduce, int keepdim,
                                   const mote_tensor_t *out)
{
    uint32_t d, k = 0;
    for (d = 0; d < in->dim; d++) {
        if (reduce[d]) {
            if (keepdim) {
                MOTE_CHECK(k < out->dim && out->sizes[k] == 1, MOTE_ERR_KERNEL_SHAPE);
                k++;
            }
        } else {
            MOTE_CHECK(k < out->dim && out->sizes[k] == in->sizes[d], MOTE_ERR_KERNEL_SHAPE);
            k++;
        }
    }
    MOTE_CHECK(k == out->dim, MOTE_ERR_KERNEL_SHAPE);
    return MOTE_OK;
}

void mote_k_reduce_sum_f32(const mote_tensor_t *in, const uint8_t *reduce, float *out,
                           size_t out_numel, float scale)
{
    /* Walk the input in memory order. Input dim d maps to the output with
       stride ostr[d] (0 when reduced). Runs along the last dim either reduce
       into one accumulator or add into a row of out. */
    ptrdiff_t ostr[MOTE_MAX_DIM];
    size_t idx[MOTE_MAX_DIM];
    const float *x = (const float *)in->data;
    uint32_t rank = in->dim, d;
    size_t inner, outer, o, i, off = 0;
    ptrdiff_t s = 1;

    for (i = 0; i < out_numel; i++) {
        out[i] = 0.0f;
    }
    if (in->numel == 0 || rank == 0) {
        if (in->numel == 1 && out_numel == 1) {
            out[0] = x[0];
        }
        for (i = 0; i < out_numel; i++) {
            out[i] *= scale;
        }
        return;
    }
    d = rank;
    while (d-- > 0) {
        ostr[d] = reduce[d] ? 0 : s;
        if (!reduce[d]) {
            s *= in->sizes[d];
        }
        idx[d] = 0;
    }
    inner = (size_t)in->sizes[rank - 1];
    outer = in->numel / inner;
    for (o = 0; o < outer; o++) {
        const float *row = x + o * inner;
        if (reduce[rank - 1]) {
            float acc = 0.0f;
            for (i = 0; i < inner; i++) {
                acc += row[i];
            }
            out[off] += acc;
        } else {
            float *orow = out + off;
            for (i = 0; i < inner; i++) {
                orow[i] += row[i];
            }
        }
        d = rank - 1;
        while (d-- > 0) {
            idx[d]++;
            off += (size_t)ostr[d];
            if (idx[d] < (size_t)in->sizes[d]) {
                break;
            }
            off -= (size_t)ostr[d] * (size_t)in->sizes[d];
            idx[d] = 0;
        }
    }
    for (i = 0; i < out_numel; i++) {
        out[i] *= scale;
    }
}

mote_err_t mote_k_reduce_f32_args(mote_value_t *const *args, uint32_t nargs, mote_tensor_t **in,
                                  mote_tensor_t **out, uint8_t *reduce)
{
    int keepdim;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], in));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_TRY(mote_k_tensor(args[4], out));
    if (!mote_k_is_none(args[3])) {
        int64_t dt;
        MOTE_TRY(mote_k_int(args[3], &dt));
        MOTE_CHECK(dt == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    }
    MOTE_CHECK((*in)->dtype == MOTE_DTYPE_FLOAT32 && (*out)->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_reduce_dims(args[1], *in, reduce));
    MOTE_TRY(mote_k_reduce_out_shape(*in, reduce, keepdim, *out));
    MOTE_TRY(mote_k_check_numel(*in));
    return mote_k_check_numel(*out);
}

mote_err_t mote_k_dim_order_args(mote_value_t *const *args, uint32_t nargs, mote_tensor_t **in,
                                 mote_tensor_t **out)
{
    int non_blocking; /* checked for its tag only: a copy on the CPU is always blocking */
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], in));
    MOTE_TRY(mote_k_bool(args[1], &non_blocking));
    MOTE_TRY(mote_k_tensor(args[3], out));
    if (!mote_k_is_none(args[2])) {
        /* only the contiguous layout: dim_order must be 0, 1, ..., rank-1 */
        const int64_t *order;
        uint32_t len, d;
        MOTE_TRY(mote_k_ints(args[2], &order, &len));
        MOTE_CHECK(len == (*out)->dim, MOTE_ERR_KERNEL_ARGS);
        for (d = 0; d < len; d++) {
            MOTE_CHECK(order[d] == (int64_t)d, MOTE_ERR_KERNEL_ARGS);
        }
    }
    return MOTE_OK;
}

mote_err_t mote_k_matmul_f32(mote_value_t *const *args, uint32_t nargs, uint32_t rank)
{
    /* sizes[r0 + 0..1] are the matrix dims; rank 3 has the batch dim in front */
    const uint32_t r0 = rank - 2;
    mote_tensor_t *a, *b, *out;
    size_t nb, m, n, k, i;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &a));
    MOTE_TRY(mote_k_tensor(args[1], &b));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(a->dtype == MOTE_DTYPE_FLOAT32 && b->dtype == MOTE_DTYPE_FLOAT32 &&
                     out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(a->dim == rank && b->dim == rank && out->dim == rank, MOTE_ERR_KERNEL_SHAPE);
    nb = r0 > 0 ? (size_t)a->sizes[0] : 1;
    m = (size_t)a->sizes[r0];
    k = (size_t)a->sizes[r0 + 1];
    n = (size_t)b->sizes[r0 + 1];
    MOTE_CHECK(r0 == 0 || ((size_t)b->sizes[0] == nb && (size_t)out->sizes[0] == nb),
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)b->sizes[r0] == k, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[r0] == m && (size_t)out->sizes[r0 + 1] == n,
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(a));
    MOTE_TRY(mote_k_check_numel(b));
    MOTE_TRY(mote_k_check_numel(out));
    for (i = 0; i < nb; i++) {
        mote_gemm_f32(m, n, k, (const float *)a->data + i * m * k, k,
                      (const float *)b->data + i * k * n, n, (float *)out->data + i * m * n, n,
                      NULL, 0, 0, 1.0f, 0.0f);
    }
    return MOTE_OK;
}
