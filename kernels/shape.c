/*
 * kernels/shape.c - shared logic of the shape family (see shape.h).
 */
#include <math.h>
#include <string.h>

#include "kfill.h"
#include "shape.h"

mote_err_t mote_shape_io(mote_value_t *const *args, uint32_t nargs, uint32_t n, mote_tensor_t **in,
                         mote_tensor_t **out)
{
    MOTE_TRY(mote_k_nargs(args, nargs, n));
    MOTE_TRY(mote_k_tensor(args[0], in));
    return mote_k_tensor(args[n - 1u], out);
}

mote_err_t mote_shape_same_dtype(const mote_tensor_t *in, const mote_tensor_t *out)
{
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    return MOTE_OK;
}

mote_err_t mote_shape_check_out(const mote_tensor_t *out, uint32_t rank, const size_t *sizes)
{
    uint32_t d;
    MOTE_CHECK(out->dim == rank, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < rank; d++) {
        MOTE_CHECK(out->sizes[d] >= 0 && (size_t)out->sizes[d] == sizes[d], MOTE_ERR_KERNEL_SHAPE);
    }
    return mote_k_check_numel(out);
}

mote_err_t mote_shape_gather(const mote_tensor_t *in, mote_tensor_t *out, uint32_t rank,
                             const size_t *sizes, const ptrdiff_t *strides, ptrdiff_t offset)
{
    const size_t esz = mote_dtype_size(in->dtype);
    MOTE_CHECK(rank <= MOTE_MAX_DIM, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_shape_check_out(out, rank, sizes));
    MOTE_TRY(mote_k_check_numel(in));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    mote_k_strided_copy(out->data, (const uint8_t *)in->data + offset * (ptrdiff_t)esz, esz, rank, sizes,
                        strides);
    return MOTE_OK;
}

mote_err_t mote_shape_out_list(const mote_value_t *v, mote_tensor_t *const **items, uint32_t *len)
{
    uint32_t i;
    MOTE_CHECK(v != NULL && v->tag == MOTE_TAG_TENSOR_LIST, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(v->u.tensors.len > 0 && v->u.tensors.items != NULL, MOTE_ERR_KERNEL_ARGS);
    for (i = 0; i < v->u.tensors.len; i++) {
        mote_value_t tv;
        mote_tensor_t *chk;
        MOTE_CHECK(v->u.tensors.items[i] != NULL, MOTE_ERR_KERNEL_ARGS);
        tv.tag = MOTE_TAG_TENSOR;
        tv.u.t = v->u.tensors.items[i];
        MOTE_TRY(mote_k_tensor(&tv, &chk));
    }
    *items = v->u.tensors.items;
    *len = v->u.tensors.len;
    return MOTE_OK;
}

mote_err_t mote_shape_split(const mote_tensor_t *in, uint32_t d, mote_tensor_t *const *outs, uint32_t n,
                            const int64_t *sizes, int squeeze)
{
    size_t outer, inner, esz, total = 0, start = 0;
    uint32_t j, k, q;
    size_t want[MOTE_MAX_DIM];
    for (j = 0; j < n; j++) {
        MOTE_TRY(mote_shape_same_dtype(in, outs[j]));
    }
    MOTE_TRY(mote_k_check_numel(in));
    for (j = 0; j < n; j++) {
        MOTE_CHECK(sizes[j] >= 0 && (!squeeze || sizes[j] == 1), MOTE_ERR_KERNEL_SHAPE);
        total += (size_t)sizes[j];
        for (k = 0, q = 0; k < in->dim; k++) {
            if (k == d && squeeze) {
                continue;
            }
            want[q++] = k == d ? (size_t)sizes[j] : (size_t)in->sizes[k];
        }
        MOTE_TRY(mote_shape_check_out(outs[j], q, want));
    }
    MOTE_CHECK(total == (size_t)in->sizes[d], MOTE_ERR_KERNEL_SHAPE);
    esz = mote_dtype_size(in->dtype);
    outer = mote_k_prod(in, 0, d);
    inner = mote_k_prod(in, d + 1u, in->dim) * esz;
    for (j = 0; j < n; j++) {
        const size_t chunk = (size_t)sizes[j] * inner;
        uint8_t *dst = (uint8_t *)outs[j]->data;
        const uint8_t *src = (const uint8_t *)in->data + start * inner;
        mote_k_copy_rows(dst, chunk, src, (ptrdiff_t)(total * inner), outer, chunk);
        start += (size_t)sizes[j];
    }
    return MOTE_OK;
}

mote_err_t mote_shape_split_equal(const mote_tensor_t *in, uint32_t d, mote_tensor_t *const *outs,
                                  uint32_t n, int64_t split, int squeeze)
{
    int64_t sizes[MOTE_SHAPE_MAX_SPLIT];
    int64_t left = in->sizes[d];
    uint32_t j;
    MOTE_CHECK(n <= MOTE_SHAPE_MAX_SPLIT, MOTE_ERR_KERNEL_ARGS);
    for (j = 0; j < n; j++) {
        sizes[j] = left < split ? left : split;
        left -= sizes[j];
    }
    return mote_shape_split(in, d, outs, n, sizes, squeeze);
}

int mote_shape_cast_dtype(uint8_t dt)
{
    return dt == MOTE_DTYPE_UINT8 || dt == MOTE_DTYPE_INT8 || dt == MOTE_DTYPE_INT16 ||
           dt == MOTE_DTYPE_INT32 || dt == MOTE_DTYPE_INT64 || dt == MOTE_DTYPE_FLOAT32 ||
           dt == MOTE_DTYPE_FLOAT64 || dt == MOTE_DTYPE_BOOL;
}

static int shape_is_float(uint8_t dt)
{
    return dt == MOTE_DTYPE_FLOAT32 || dt == MOTE_DTYPE_FLOAT64;
}

static int64_t shape_get_int(const uint8_t *p, uint8_t dt)
{
    switch (dt) {
    case MOTE_DTYPE_UINT8: return *p;
    case MOTE_DTYPE_BOOL: return *p != 0;
    case MOTE_DTYPE_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case MOTE_DTYPE_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case MOTE_DTYPE_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static double shape_get_float(const uint8_t *p, uint8_t dt)
{
    if (dt == MOTE_DTYPE_FLOAT32) {
        float v;
        memcpy(&v, p, 4);
        return (double)v;
    } else {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
}

/* Wraps v (two's complement) to the integer dtype dt and stores it at p. */
static void shape_put_int(uint8_t *p, uint8_t dt, int64_t v)
{
    const uint64_t u = (uint64_t)v;
    switch (dt) {
    case MOTE_DTYPE_UINT8: *p = (uint8_t)(u & 0xffu); break;
    case MOTE_DTYPE_BOOL: *p = (uint8_t)(v != 0); break;
    case MOTE_DTYPE_INT8: {
        const int8_t x = (int8_t)((int32_t)((u & 0xffu) ^ 0x80u) - 0x80);
        memcpy(p, &x, 1);
        break;
    }
    case MOTE_DTYPE_INT16: {
        const int16_t x = (int16_t)((int32_t)((u & 0xffffu) ^ 0x8000u) - 0x8000);
        memcpy(p, &x, 2);
        break;
    }
    case MOTE_DTYPE_INT32: {
        const int32_t x = (int32_t)((int64_t)((u & 0xffffffffu) ^ 0x80000000u) - INT64_C(0x80000000));
        memcpy(p, &x, 4);
        break;
    }
    default: memcpy(p, &v, 8); break;
    }
}

/* Float -> int64 truncating toward zero; NaN -> 0, saturating outside int64. */
static int64_t shape_trunc(double v)
{
    if (v != v) {
        return 0;
    }
    if (v <= -9223372036854775808.0) {
        return INT64_MIN;
    }
    if (v >= 9223372036854775807.0) {
        return INT64_MAX;
    }
    return (int64_t)v;
}

/*
 * Float -> integer dtype dt: truncation toward zero, in range as C and torch
 * convert. Where C leaves the conversion undefined (NaN, out of dt's range;
 * torch's result then depends on the CPU) the value saturates at dt's limits
 * and NaN gives 0, so every port gives the same bytes.
 */
static int64_t shape_float_to_int(double v, uint8_t dt)
{
    double lo, hi;
    switch (dt) {
    case MOTE_DTYPE_UINT8: lo = 0.0; hi = 255.0; break;
    case MOTE_DTYPE_INT8: lo = -128.0; hi = 127.0; break;
    case MOTE_DTYPE_INT16: lo = -32768.0; hi = 32767.0; break;
    case MOTE_DTYPE_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
    default: return shape_trunc(v);
    }
    if (v != v) {
        return 0;
    }
    return v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v;
}

static void shape_convert(uint8_t *dst, uint8_t dt, const uint8_t *src, uint8_t st)
{
    if (shape_is_float(st)) {
        const double v = shape_get_float(src, st);
        if (dt == MOTE_DTYPE_FLOAT32) {
            const float f = (float)v;
            memcpy(dst, &f, 4);
        } else if (dt == MOTE_DTYPE_FLOAT64) {
            memcpy(dst, &v, 8);
        } else if (dt == MOTE_DTYPE_BOOL) {
            *dst = (uint8_t)(v != 0.0);
        } else {
            shape_put_int(dst, dt, shape_float_to_int(v, dt));
        }
    } else {
        const int64_t v = shape_get_int(src, st);
        if (dt == MOTE_DTYPE_FLOAT32) {
            const float f = (float)v;
            memcpy(dst, &f, 4);
        } else if (dt == MOTE_DTYPE_FLOAT64) {
            const double f = (double)v;
            memcpy(dst, &f, 8);
        } else {
            shape_put_int(dst, dt, v);
        }
    }
}

/* y[i] = (float)x[i] for i < n, x of element type T at P. */
#define SHAPE_TO_F32(T, P, Y, N)                                           \
    do {                                                                   \
        const T *x_ = (const T *)(const void *)(P);                        \
        size_t i_;                                                         \
        for (i_ = 0; i_ < (N); i_++) {                                     \
            (Y)[i_] = (float)x_[i_];                                       \
        }                                                                  \
    } while (0)

/* int16 (PCM audio, converted every hop of a streaming model) four a pass: a
   pass of one costs a compare and a taken branch per element (int16 [512]:
   5,900 -> 4,000 cycles on a Cortex-M33; +280 B if every dtype did it). */
static void shape_i16_to_f32(const int16_t *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 4u <= n; i += 4u) {
        const int16_t a = x[i], b = x[i + 1u], c = x[i + 2u], d = x[i + 3u];
        y[i] = (float)a;
        y[i + 1u] = (float)b;
        y[i + 2u] = (float)c;
        y[i + 3u] = (float)d;
    }
    for (; i < n; i++) {
        y[i] = (float)x[i];
    }
}

/*
 * Integer -> float32 over n elements in memory order, one tight loop per
 * source dtype: the general path below goes element by element through int64
 * and a 64-bit integer to float conversion (a library call on a 32-bit core:
 * int16 audio -> float32 cost about 94 cycles an element on a Cortex-M33).
 * (float)v of the int32 is the float of the int64 the general path makes: both
 * round the same integer. Returns 0 (nothing written) for other pairs. An
 * exactly aliased out (same element size: int32) is safe: each element is
 * read before it is written.
 */
static int shape_cast_to_f32(const uint8_t *ps, uint8_t st, float *y, size_t n)
{
    switch (st) {
    case MOTE_DTYPE_INT8: SHAPE_TO_F32(int8_t, ps, y, n); return 1;
    case MOTE_DTYPE_UINT8: SHAPE_TO_F32(uint8_t, ps, y, n); return 1;
    case MOTE_DTYPE_INT16: shape_i16_to_f32((const int16_t *)(const void *)ps, y, n); return 1;
    case MOTE_DTYPE_INT32: SHAPE_TO_F32(int32_t, ps, y, n); return 1;
    default: return 0;
    }
}

mote_err_t mote_shape_cast(const mote_tensor_t *src, mote_tensor_t *out)
{
    ptrdiff_t sst[MOTE_MAX_DIM], st[MOTE_MAX_DIM];
    size_t idx[MOTE_MAX_DIM], sizes[MOTE_MAX_DIM];
    const size_t ses = mote_dtype_size(src->dtype), oes = mote_dtype_size(out->dtype);
    uint32_t d, r = out->dim;
    size_t i;
    ptrdiff_t off = 0;
    const uint8_t *ps = (const uint8_t *)src->data;
    uint8_t *po = (uint8_t *)out->data;
    MOTE_CHECK(src->dim <= out->dim, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(src));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_strides(src, sst);
    for (d = 0; d < r; d++) {
        const uint32_t lead = r - src->dim;
        idx[d] = 0;
        sizes[d] = (size_t)out->sizes[d];
        if (d < lead) {
            st[d] = 0;
        } else if (src->sizes[d - lead] == out->sizes[d]) {
            st[d] = sst[d - lead];
        } else {
            MOTE_CHECK(src->sizes[d - lead] == 1, MOTE_ERR_KERNEL_SHAPE);
            st[d] = 0;
        }
    }
    if (src->dtype == out->dtype && src->numel == out->numel) {
        mote_k_copy_data(src, out);
        return MOTE_OK;
    }
    /* same numel: no dim is broadcast, src and out walk in step */
    if (src->numel == out->numel && out->dtype == MOTE_DTYPE_FLOAT32 &&
        shape_cast_to_f32(ps, src->dtype, (float *)out->data, out->numel)) {
        return MOTE_OK;
    }
    for (i = 0; i < out->numel; i++) {
        shape_convert(po + i * oes, out->dtype, ps + (size_t)off * ses, src->dtype);
        d = r;
        while (d-- > 0) {
            idx[d]++;
            off += st[d];
            if (idx[d] < sizes[d]) {
                break;
            }
            off -= st[d] * (ptrdiff_t)sizes[d];
            idx[d] = 0;
        }
    }
    return MOTE_OK;
}

mote_err_t mote_shape_fill(mote_tensor_t *out, double v)
{
    uint8_t elem[8];
    MOTE_TRY(mote_k_fill_elem(out->dtype, v, elem));
    MOTE_TRY(mote_k_check_numel(out));
    if (out->numel == 0) {
        return MOTE_OK; /* data may be NULL */
    }
    mote_k_fill((uint8_t *)out->data, elem, mote_dtype_size(out->dtype), out->numel);
    return MOTE_OK;
}

mote_err_t mote_shape_size_matches(const mote_value_t *size, const mote_tensor_t *out)
{
    const int64_t *items;
    uint32_t n, i;
    MOTE_TRY(mote_k_ints(size, &items, &n));
    MOTE_CHECK(n == out->dim, MOTE_ERR_KERNEL_SHAPE);
    for (i = 0; i < n; i++) {
        MOTE_CHECK(items[i] == out->sizes[i], MOTE_ERR_KERNEL_SHAPE);
    }
    return MOTE_OK;
}

/* A Scalar as int64: an Int exactly, a Double or Bool truncated toward zero. */
static int64_t shape_scalar_i64(const mote_value_t *v, double d)
{
    return v->tag == MOTE_TAG_INT ? v->u.i : shape_trunc(d);
}

mote_err_t mote_shape_arange(const mote_value_t *start, const mote_value_t *end, const mote_value_t *step,
                             mote_tensor_t *out)
{
    double a, b, s, n;
    int64_t ia, ib, is;
    size_t i, esz;
    uint8_t *po;
    const int fp = out->dtype == MOTE_DTYPE_FLOAT32 || out->dtype == MOTE_DTYPE_FLOAT64;
    MOTE_TRY(mote_k_scalar(start, &a));
    MOTE_TRY(mote_k_scalar(end, &b));
    MOTE_TRY(mote_k_scalar(step, &s));
    MOTE_CHECK(mote_shape_cast_dtype(out->dtype) && out->dtype != MOTE_DTYPE_BOOL, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(s == s && a == a && b == b, MOTE_ERR_KERNEL_ARGS);
    ia = shape_scalar_i64(start, a);
    ib = shape_scalar_i64(end, b);
    is = shape_scalar_i64(step, s);
    if (out->dtype == MOTE_DTYPE_INT64) {
        /* torch: the Scalars become int64 first, the count is integer arithmetic */
        const int64_t sgn = is > 0 ? 1 : -1;
        MOTE_CHECK(is != 0 && ((is > 0 && ib >= ia) || (is < 0 && ib <= ia)), MOTE_ERR_KERNEL_ARGS);
        MOTE_CHECK(ia > -(INT64_C(1) << 53) && ia < (INT64_C(1) << 53) && ib > -(INT64_C(1) << 53) &&
                   ib < (INT64_C(1) << 53) && is > -(INT64_C(1) << 53) && is < (INT64_C(1) << 53),
                   MOTE_ERR_KERNEL_ARGS);
        n = (double)((ib - ia + is - sgn) / is);
    } else {
        MOTE_CHECK(s != 0.0 && ((s > 0.0 && b >= a) || (s < 0.0 && b <= a)), MOTE_ERR_KERNEL_ARGS);
        n = ceil((b - a) / s);
    }
    MOTE_CHECK(n >= 0.0 && n <= 4294967295.0, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(out->dim == 1 && (double)out->sizes[0] == n, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(out));
    esz = mote_dtype_size(out->dtype);
    po = (uint8_t *)out->data;
    for (i = 0; i < out->numel; i++) {
        if (fp) {
            const double d = a + (double)i * s;
            shape_convert(po + i * esz, out->dtype, (const uint8_t *)&d, MOTE_DTYPE_FLOAT64);
        } else {
            /* integer dtypes accumulate in int64 from the truncated start and step */
            shape_put_int(po + i * esz, out->dtype, (int64_t)((uint64_t)ia + (uint64_t)i * (uint64_t)is));
        }
    }
    return MOTE_OK;
}

mote_err_t mote_shape_identity(mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    MOTE_TRY(mote_shape_io(args, nargs, 2, &in, &out));
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(in, out);
    return MOTE_OK;
}

mote_err_t mote_shape_fill_sized(mote_value_t *const *args, uint32_t nargs, double v)
{
    mote_tensor_t *out;
    const int64_t *size;
    uint32_t ns;
    MOTE_TRY(mote_k_nargs(args, nargs, 2));
    MOTE_TRY(mote_k_ints(args[0], &size, &ns));
    MOTE_TRY(mote_k_tensor(args[1], &out));
    MOTE_CHECK(mote_shape_cast_dtype(out->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_shape_size_matches(args[0], out));
    return mote_shape_fill(out, v);
}

mote_err_t mote_shape_pixel_shuffle(mote_value_t *const *args, uint32_t nargs, int down)
{
    mote_tensor_t *in, *out;
    int64_t r;
    uint32_t d, k;
    size_t want[MOTE_MAX_DIM], sz[6], b, c, h, w, ru;
    ptrdiff_t st[6];
    MOTE_TRY(mote_shape_io(args, nargs, 3, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &r));
    MOTE_CHECK(r > 0 && r <= 0xFFFF, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_CHECK(in->dim >= 3, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    k = in->dim;
    ru = (size_t)r;
    /* Both directions as one view: the shuffled side is [B, C, H*r, W*r], the
     * packed side [B, C*r*r, H, W]; b, c, h, w name the common factors. */
    b = mote_k_prod(in, 0, k - 3);
    if (down) {
        MOTE_CHECK((size_t)in->sizes[k - 2] % ru == 0 && (size_t)in->sizes[k - 1] % ru == 0,
                   MOTE_ERR_KERNEL_SHAPE);
        c = (size_t)in->sizes[k - 3];
        h = (size_t)in->sizes[k - 2] / ru;
        w = (size_t)in->sizes[k - 1] / ru;
    } else {
        MOTE_CHECK((size_t)in->sizes[k - 3] % (ru * ru) == 0, MOTE_ERR_KERNEL_SHAPE);
        c = (size_t)in->sizes[k - 3] / (ru * ru);
        h = (size_t)in->sizes[k - 2];
        w = (size_t)in->sizes[k - 1];
    }
    for (d = 0; d < k - 3; d++) {
        want[d] = (size_t)in->sizes[d];
    }
    want[k - 3] = down ? c * ru * ru : c;
    want[k - 2] = down ? h : h * ru;
    want[k - 1] = down ? w : w * ru;
    MOTE_TRY(mote_shape_check_out(out, k, want));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    sz[0] = b;
    sz[1] = c;
    st[0] = (ptrdiff_t)(c * ru * ru * h * w);
    st[1] = (ptrdiff_t)(ru * ru * h * w);
    if (down) { /* out as [B, C, r, r, H, W], reading the shuffled input */
        sz[2] = ru; st[2] = (ptrdiff_t)(w * ru);
        sz[3] = ru; st[3] = 1;
        sz[4] = h;  st[4] = (ptrdiff_t)(ru * w * ru);
        sz[5] = w;  st[5] = (ptrdiff_t)ru;
    } else {    /* out as [B, C, H, r, W, r], reading the packed input */
        sz[2] = h;  st[2] = (ptrdiff_t)w;
        sz[3] = ru; st[3] = (ptrdiff_t)(ru * h * w);
        sz[4] = w;  st[4] = 1;
        sz[5] = ru; st[5] = (ptrdiff_t)(h * w);
    }
    mote_k_strided_copy(out->data, in->data, mote_dtype_size(in->dtype), 6, sz, st);
    return MOTE_OK;
}
