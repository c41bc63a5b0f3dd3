/*
 * kernels/elementwise.c - type promotion, conversions and the n-ary
 * broadcasting loop of the binary family (see elementwise.h).
 */
#include "elementwise.h"

#include <math.h>
#include <string.h>

/* Elements converted per chunk when an input or out needs a dtype change
   (4 stack buffers of 16 x 8 bytes: about 0.6 KB of frame on Cortex-M). */
#define MOTE_EW_CHUNK 16

int mote_ew_category(uint8_t dtype)
{
    switch (dtype) {
    case MOTE_DTYPE_BOOL: return 0;
    case MOTE_DTYPE_UINT8: case MOTE_DTYPE_INT8: case MOTE_DTYPE_INT16:
    case MOTE_DTYPE_INT32: case MOTE_DTYPE_INT64: return 1;
    case MOTE_DTYPE_FLOAT32: case MOTE_DTYPE_FLOAT64: return 2;
    default: return -1;
    }
}

uint8_t mote_ew_domain(uint8_t dtype)
{
    int c = mote_ew_category(dtype);
    return c == 2 ? (uint8_t)MOTE_DTYPE_FLOAT32 : c == 1 ? (uint8_t)MOTE_DTYPE_INT64
                                                         : (uint8_t)MOTE_DTYPE_BOOL;
}

/* torch.promote_types over the supported dtypes (UNDEF propagates the other). */
static uint8_t mote_ew_promote(uint8_t a, uint8_t b)
{
    int ca, cb;
    if (a == MOTE_EW_UNDEF) {
        return b;
    }
    if (b == MOTE_EW_UNDEF || a == b) {
        return a;
    }
    ca = mote_ew_category(a);
    cb = mote_ew_category(b);
    if (ca != cb) {
        return ca > cb ? a : b;
    }
    if (ca == 2) {
        return MOTE_DTYPE_FLOAT64; /* float32 with float64 */
    }
    /* two different integer types */
    if (a == MOTE_DTYPE_UINT8 || b == MOTE_DTYPE_UINT8) {
        uint8_t o = a == MOTE_DTYPE_UINT8 ? b : a;
        return o == MOTE_DTYPE_INT8 ? (uint8_t)MOTE_DTYPE_INT16 : o;
    }
    return mote_dtype_size(a) > mote_dtype_size(b) ? a : b;
}

/* c10's combine_categories(higher, lower). */
static uint8_t mote_ew_combine(uint8_t higher, uint8_t lower)
{
    if (higher == MOTE_EW_UNDEF) {
        return lower;
    }
    if (mote_ew_category(higher) == 2) {
        return higher;
    }
    if (lower != MOTE_EW_UNDEF &&
        (higher == MOTE_DTYPE_BOOL || mote_ew_category(lower) == 2)) {
        return mote_ew_promote(higher, lower);
    }
    return higher;
}

uint8_t mote_ew_result_type(const mote_ew_operand_t *ops, uint32_t n)
{
    uint8_t r[3] = {MOTE_EW_UNDEF, MOTE_EW_UNDEF, MOTE_EW_UNDEF};
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint8_t dt = ops[i].dtype;
        if (mote_ew_category(dt) < 0 || ops[i].kind > 2) {
            return MOTE_EW_UNDEF;
        }
        if (ops[i].kind == 2) {
            /* a wrapped number: Double -> the default dtype, Int -> int64 */
            dt = mote_ew_category(dt) == 2 ? (uint8_t)MOTE_DTYPE_FLOAT32
                 : mote_ew_category(dt) == 1 ? (uint8_t)MOTE_DTYPE_INT64 : dt;
        }
        r[ops[i].kind] = mote_ew_promote(r[ops[i].kind], dt);
    }
    return mote_ew_combine(r[0], mote_ew_combine(r[1], r[2]));
}

uint8_t mote_ew_tensor_kind(const mote_tensor_t *t)
{
    return t->dim == 0 ? 1u : 0u;
}

mote_err_t mote_ew_scalar_tensor(const mote_value_t *v, mote_tensor_t *t, uint8_t *buf)
{
    MOTE_CHECK(v != NULL, MOTE_ERR_KERNEL_ARGS);
    memset(t, 0, sizeof(*t));
    t->data = buf;
    t->numel = 1;
    switch (v->tag) {
    case MOTE_TAG_INT:
        memcpy(buf, &v->u.i, 8);
        t->dtype = MOTE_DTYPE_INT64;
        t->nbytes = 8;
        return MOTE_OK;
    case MOTE_TAG_DOUBLE:
        memcpy(buf, &v->u.d, 8);
        t->dtype = MOTE_DTYPE_FLOAT64;
        t->nbytes = 8;
        return MOTE_OK;
    case MOTE_TAG_BOOL:
        buf[0] = v->u.b ? 1u : 0u;
        t->dtype = MOTE_DTYPE_BOOL;
        t->nbytes = 1;
        return MOTE_OK;
    default: return MOTE_ERR_KERNEL_ARGS;
    }
}

/* Element i of an integer or bool array as int64. */
static int64_t mote_ew_ld_i(const void *src, uint8_t dt, size_t i)
{
    switch (dt) {
    case MOTE_DTYPE_BOOL: return ((const uint8_t *)src)[i] ? 1 : 0;
    case MOTE_DTYPE_UINT8: return ((const uint8_t *)src)[i];
    case MOTE_DTYPE_INT8: return ((const int8_t *)src)[i];
    case MOTE_DTYPE_INT16: return ((const int16_t *)src)[i];
    case MOTE_DTYPE_INT32: return ((const int32_t *)src)[i];
    default: return ((const int64_t *)src)[i];
    }
}

/*
 * Convert n elements: src (dtype sdt) -> dst (dtype ddt), where ddt is a
 * compute domain (float32, int64, bool) or an integer/bool out written from
 * int64 (wrapping to its width, as a cast in torch).
 */
static void mote_ew_cvt(void *dst, uint8_t ddt, const void *src, uint8_t sdt, size_t n)
{
    size_t i;
    const int sfloat = mote_ew_category(sdt) == 2;
    /* the frequent pairs (int32 tensors, int32/bool outs) get plain loops */
    if (sdt == MOTE_DTYPE_INT32 && ddt == MOTE_DTYPE_INT64) {
        for (i = 0; i < n; i++) {
            ((int64_t *)dst)[i] = ((const int32_t *)src)[i];
        }
        return;
    }
    if (sdt == MOTE_DTYPE_INT64 && ddt == MOTE_DTYPE_INT32) {
        for (i = 0; i < n; i++) {
            ((int32_t *)dst)[i] = (int32_t)(uint32_t)(uint64_t)((const int64_t *)src)[i];
        }
        return;
    }
    if (sdt == MOTE_DTYPE_INT64 && ddt == MOTE_DTYPE_BOOL) {
        for (i = 0; i < n; i++) {
            ((uint8_t *)dst)[i] = (uint8_t)(((const int64_t *)src)[i] != 0);
        }
        return;
    }
    if (sdt == MOTE_DTYPE_BOOL && ddt == MOTE_DTYPE_INT64) {
        for (i = 0; i < n; i++) {
            ((int64_t *)dst)[i] = ((const uint8_t *)src)[i] != 0;
        }
        return;
    }
    for (i = 0; i < n; i++) {
        if (ddt == MOTE_DTYPE_FLOAT32) {
            float v;
            if (sdt == MOTE_DTYPE_FLOAT32) {
                v = ((const float *)src)[i];
            } else if (sdt == MOTE_DTYPE_FLOAT64) {
                v = (float)((const double *)src)[i];
            } else {
                v = (float)mote_ew_ld_i(src, sdt, i);
            }
            ((float *)dst)[i] = v;
        } else if (ddt == MOTE_DTYPE_BOOL) {
            int nz;
            if (sdt == MOTE_DTYPE_FLOAT32) {
                nz = ((const float *)src)[i] != 0.0f;
            } else if (sdt == MOTE_DTYPE_FLOAT64) {
                nz = ((const double *)src)[i] != 0.0;
            } else {
                nz = mote_ew_ld_i(src, sdt, i) != 0;
            }
            ((uint8_t *)dst)[i] = (uint8_t)nz;
        } else {
            /* integer destination from an integer/bool source (never float) */
            uint64_t u = sfloat ? 0u : (uint64_t)mote_ew_ld_i(src, sdt, i);
            switch (ddt) {
            case MOTE_DTYPE_UINT8: ((uint8_t *)dst)[i] = (uint8_t)u; break;
            case MOTE_DTYPE_INT8: ((int8_t *)dst)[i] = (int8_t)(uint8_t)u; break;
            case MOTE_DTYPE_INT16: ((int16_t *)dst)[i] = (int16_t)(uint16_t)u; break;
            case MOTE_DTYPE_INT32: ((int32_t *)dst)[i] = (int32_t)(uint32_t)u; break;
            default: ((int64_t *)dst)[i] = (int64_t)u; break;
            }
        }
    }
}

typedef struct mote_ew_plan {
    uint32_t nin;
    uint8_t in_dt[MOTE_EW_MAX_IN], ct[MOTE_EW_MAX_IN];
    uint8_t out_dt, rt;
    int convert;
    size_t st[MOTE_EW_MAX_IN];
    mote_ew_row_fn fn;
    mote_ew_param_t *p;
} mote_ew_plan_t;

/* One contiguous run of n out elements; src[k] at the run's first element. */
static void mote_ew_span(mote_ew_plan_t *pl, const uint8_t *const *src, uint8_t *dst, size_t n)
{
    int64_t buf[MOTE_EW_MAX_IN + 1][MOTE_EW_CHUNK];
    const void *ptr[MOTE_EW_MAX_IN];
    size_t i, m;
    uint32_t k;
    const size_t eso = mote_dtype_size(pl->out_dt);
    if (!pl->convert) {
        for (k = 0; k < pl->nin; k++) {
            ptr[k] = src[k];
        }
        pl->fn(dst, ptr, pl->st, n, pl->p);
        return;
    }
    for (k = 0; k < pl->nin; k++) {
        /* a broadcast (stride 0) input converts its one element once */
        if (pl->in_dt[k] != pl->ct[k] && pl->st[k] == 0) {
            mote_ew_cvt(buf[k], pl->ct[k], src[k], pl->in_dt[k], 1);
        }
    }
    for (i = 0; i < n; i += m) {
        void *o;
        m = n - i < MOTE_EW_CHUNK ? n - i : MOTE_EW_CHUNK;
        for (k = 0; k < pl->nin; k++) {
            const size_t es = mote_dtype_size(pl->in_dt[k]);
            if (pl->in_dt[k] == pl->ct[k]) {
                ptr[k] = src[k] + i * pl->st[k] * es;
            } else {
                if (pl->st[k] != 0) {
                    mote_ew_cvt(buf[k], pl->ct[k], src[k] + i * es, pl->in_dt[k], m);
                }
                ptr[k] = buf[k];
            }
        }
        o = pl->out_dt == pl->rt ? (void *)(dst + i * eso) : (void *)buf[MOTE_EW_MAX_IN];
        pl->fn(o, ptr, pl->st, m, pl->p);
        if (pl->out_dt != pl->rt) {
            mote_ew_cvt(dst + i * eso, pl->out_dt, buf[MOTE_EW_MAX_IN], pl->rt, m);
        }
    }
}

mote_err_t mote_ew_map(mote_tensor_t *const *in, const uint8_t *ct, uint32_t nin,
                       mote_tensor_t *out, uint8_t rt, mote_ew_row_fn fn, mote_ew_param_t *p)
{
    size_t size[MOTE_MAX_DIM], idx[MOTE_MAX_DIM];
    size_t str[MOTE_EW_MAX_IN][MOTE_MAX_DIM];
    ptrdiff_t cst[MOTE_EW_MAX_IN][MOTE_MAX_DIM];
    const uint8_t *src[MOTE_EW_MAX_IN];
    size_t off[MOTE_EW_MAX_IN];
    int64_t one[MOTE_EW_MAX_IN]; /* converted one-element inputs (lifted scalars) */
    uint32_t rank = out->dim, d, k, nd = 0;
    mote_ew_plan_t pl;

    MOTE_CHECK(nin >= 1 && nin <= MOTE_EW_MAX_IN && fn != NULL, MOTE_ERR_KERNEL_ARGS);
    /* out: int64 rows may narrow to any integer/bool out, else out == rt */
    MOTE_CHECK(out->dtype == rt || (rt == MOTE_DTYPE_INT64 && mote_ew_category(out->dtype) >= 0 &&
                                    mote_ew_category(out->dtype) < 2),
               MOTE_ERR_KERNEL_DTYPE);
    for (k = 0; k < nin; k++) {
        MOTE_CHECK(mote_ew_category(in[k]->dtype) >= 0, MOTE_ERR_KERNEL_DTYPE);
        MOTE_CHECK(ct[k] == MOTE_DTYPE_FLOAT32 || ct[k] == MOTE_DTYPE_INT64 ||
                       ct[k] == MOTE_DTYPE_BOOL,
                   MOTE_ERR_KERNEL_DTYPE);
        /* no float -> integer conversion of inputs */
        MOTE_CHECK(ct[k] != MOTE_DTYPE_INT64 || mote_ew_category(in[k]->dtype) < 2,
                   MOTE_ERR_KERNEL_DTYPE);
    }
    MOTE_TRY(mote_k_check_numel(out));
    pl.nin = nin;
    pl.out_dt = out->dtype;
    pl.rt = rt;
    pl.fn = fn;
    pl.p = p;
    pl.convert = out->dtype != rt;
    for (k = 0; k < nin; k++) {
        MOTE_TRY(mote_k_check_numel(in[k]));
        MOTE_CHECK(in[k]->dim <= rank, MOTE_ERR_KERNEL_SHAPE);
        pl.in_dt[k] = in[k]->dtype;
        pl.ct[k] = ct[k];
        mote_k_strides(in[k], cst[k]);
        src[k] = (const uint8_t *)in[k]->data;
        off[k] = 0;
        if (in[k]->dtype != ct[k] && in[k]->numel == 1) {
            /* a scalar converts once here, so the rows run unchunked */
            mote_ew_cvt(&one[k], ct[k], in[k]->data, in[k]->dtype, 1);
            src[k] = (const uint8_t *)&one[k];
            pl.in_dt[k] = ct[k];
        }
        pl.convert |= pl.in_dt[k] != ct[k];
    }
    {
        /* the broadcast shape has the largest input rank, not more */
        uint32_t maxdim = 0;
        for (k = 0; k < nin; k++) {
            maxdim = in[k]->dim > maxdim ? in[k]->dim : maxdim;
        }
        MOTE_CHECK(maxdim == rank, MOTE_ERR_KERNEL_SHAPE);
    }
    for (d = 0; d < rank; d++) {
        const int32_t os = out->sizes[d];
        int32_t want = 1, s[MOTE_EW_MAX_IN];
        int merge = nd > 0;
        for (k = 0; k < nin; k++) {
            s[k] = d + in[k]->dim >= rank ? in[k]->sizes[d + in[k]->dim - rank] : 1;
            if (s[k] != 1) {
                MOTE_CHECK(want == 1 || s[k] == want, MOTE_ERR_KERNEL_SHAPE);
                want = s[k];
            }
        }
        MOTE_CHECK(os == want, MOTE_ERR_KERNEL_SHAPE);
        if (os == 1) {
            continue;
        }
        for (k = 0; k < nin; k++) {
            size_t x = s[k] == 1 ? 0 : (size_t)cst[k][d + in[k]->dim - rank];
            if (merge && str[k][nd - 1] != x * (size_t)os) {
                merge = 0;
            }
            str[k][nd] = x; /* this dim's stride; folded into nd - 1 on a merge */
        }
        if (merge) {
            size[nd - 1] *= (size_t)os;
            for (k = 0; k < nin; k++) {
                str[k][nd - 1] = str[k][nd];
            }
        } else {
            size[nd] = (size_t)os;
            nd++;
        }
    }
    if (out->numel == 0) {
        return MOTE_OK;
    }
    if (nd == 0) {
        for (k = 0; k < nin; k++) {
            pl.st[k] = 0;
        }
        mote_ew_span(&pl, src, (uint8_t *)out->data, 1);
        return p->err;
    }
    for (k = 0; k < nin; k++) {
        pl.st[k] = str[k][nd - 1];
    }
    for (d = 0; d < nd; d++) {
        idx[d] = 0;
    }
    {
        const size_t inner = size[nd - 1], outer = out->numel / inner;
        const size_t eso = mote_dtype_size(out->dtype);
        size_t o;
        uint8_t *po = (uint8_t *)out->data;
        for (o = 0; o < outer; o++) {
            const uint8_t *s[MOTE_EW_MAX_IN];
            for (k = 0; k < nin; k++) {
                s[k] = src[k] + off[k] * mote_dtype_size(pl.in_dt[k]);
            }
            mote_ew_span(&pl, s, po + o * inner * eso, inner);
            d = nd - 1;
            while (d-- > 0) {
                idx[d]++;
                for (k = 0; k < nin; k++) {
                    off[k] += str[k][d];
                }
                if (idx[d] < size[d]) {
                    break;
                }
                for (k = 0; k < nin; k++) {
                    off[k] -= str[k][d] * size[d];
                }
                idx[d] = 0;
            }
        }
    }
    return p->err;
}

/* An operand argument: a tensor, or a Scalar made a 0-dim tensor over buf. */
static mote_err_t mote_ew_operand(const mote_value_t *v, int scalar, mote_tensor_t **t,
                                  mote_tensor_t *tmp, uint8_t *buf, mote_ew_operand_t *desc)
{
    if (scalar) {
        MOTE_TRY(mote_ew_scalar_tensor(v, tmp, buf));
        *t = tmp;
        desc->kind = 2;
    } else {
        MOTE_TRY(mote_k_tensor(v, t));
        desc->kind = mote_ew_tensor_kind(*t);
    }
    desc->dtype = (*t)->dtype;
    return MOTE_OK;
}

mote_err_t mote_ew_binary(mote_value_t *const *args, uint32_t nargs, uint32_t nargs_expected,
                          unsigned form, const mote_ew_op_t *op, mote_ew_param_t *p)
{
    mote_tensor_t *in[2], *out, tmp[2];
    uint8_t buf[2][8];
    mote_ew_operand_t desc[2];
    uint8_t r, dom, rt, ct[2];
    mote_ew_row_fn fn;
    int cr;

    MOTE_TRY(mote_k_nargs(args, nargs, nargs_expected));
    MOTE_TRY(mote_ew_operand(args[0], form == MOTE_EW_ST, &in[0], &tmp[0], buf[0], &desc[0]));
    MOTE_TRY(mote_ew_operand(args[1], form == MOTE_EW_TS, &in[1], &tmp[1], buf[1], &desc[1]));
    MOTE_TRY(mote_k_tensor(args[nargs_expected - 1], &out));

    r = mote_ew_result_type(desc, 2);
    MOTE_CHECK(r != MOTE_EW_UNDEF, MOTE_ERR_KERNEL_DTYPE);
    cr = mote_ew_category(r);
    dom = mote_ew_domain(r);
    switch (op->kind) {
    case MOTE_EW_CMP:
        MOTE_CHECK(out->dtype == MOTE_DTYPE_BOOL, MOTE_ERR_KERNEL_DTYPE);
        if (dom == MOTE_DTYPE_BOOL) {
            dom = MOTE_DTYPE_INT64;
        }
        rt = MOTE_DTYPE_BOOL;
        break;
    case MOTE_EW_LOGICAL:
        MOTE_CHECK(out->dtype == MOTE_DTYPE_BOOL, MOTE_ERR_KERNEL_DTYPE);
        dom = MOTE_DTYPE_BOOL;
        rt = MOTE_DTYPE_BOOL;
        break;
    case MOTE_EW_BITWISE:
    case MOTE_EW_SHIFT:
        MOTE_CHECK(cr < 2 && (op->kind == MOTE_EW_BITWISE || cr == 1), MOTE_ERR_KERNEL_DTYPE);
        MOTE_CHECK(out->dtype == r, MOTE_ERR_KERNEL_DTYPE);
        dom = MOTE_DTYPE_INT64;
        rt = MOTE_DTYPE_INT64;
        p->bits = (uint32_t)(8u * mote_dtype_size(r));
        p->is_unsigned = r == MOTE_DTYPE_UINT8;
        break;
    case MOTE_EW_FLOAT:
        MOTE_CHECK(r != MOTE_DTYPE_FLOAT64 && out->dtype == MOTE_DTYPE_FLOAT32,
                   MOTE_ERR_KERNEL_DTYPE);
        dom = MOTE_DTYPE_FLOAT32;
        rt = MOTE_DTYPE_FLOAT32;
        break;
    default: /* MOTE_EW_ARITH */
        MOTE_CHECK(r != MOTE_DTYPE_FLOAT64 && out->dtype == r, MOTE_ERR_KERNEL_DTYPE);
        rt = dom; /* bool only where the op has a bool row (maximum, minimum) */
        p->bits = (uint32_t)(8u * mote_dtype_size(r));
        break;
    }
    MOTE_CHECK(r != MOTE_DTYPE_FLOAT64, MOTE_ERR_KERNEL_DTYPE);
    fn = dom == MOTE_DTYPE_FLOAT32 ? op->f32 : dom == MOTE_DTYPE_INT64 ? op->i64 : op->b8;
    MOTE_CHECK(fn != NULL, MOTE_ERR_KERNEL_DTYPE);
    ct[0] = ct[1] = dom;
    p->err = MOTE_OK;
    return mote_ew_map(in, ct, 2, out, rt, fn, p);
}

/* ---- row functions of the ops shared by several overloads ---- */

static float mote_ew_remf(float x, float y)
{
    float m = fmodf(x, y);
    if (m != 0.0f && ((y < 0.0f) != (m < 0.0f))) {
        m += y;
    }
    return m;
}

static float mote_ew_floordivf(float x, float y)
{
    float m, q, f;
    if (y == 0.0f) {
        return x / y; /* IEEE: +-inf or NaN */
    }
    m = fmodf(x, y);
    q = (x - m) / y;
    if (m != 0.0f && ((y < 0.0f) != (m < 0.0f))) {
        q -= 1.0f;
    }
    if (q == 0.0f) {
        return copysignf(0.0f, x / y);
    }
    f = floorf(q);
    if (q - f > 0.5f) {
        f += 1.0f;
    }
    return f;
}

static int64_t mote_ew_iremainder(int64_t x, int64_t y)
{
    int64_t r = mote_ew_irem(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) {
        r += y;
    }
    return r;
}

static int64_t mote_ew_ifloordiv(int64_t x, int64_t y)
{
    int64_t q = mote_ew_idiv(x, y);
    if ((x < 0) != (y < 0) && mote_ew_irem(x, y) != 0) {
        q -= 1;
    }
    return q;
}

static int64_t mote_ew_ipow(int64_t a, int64_t b)
{
    uint64_t r = 1u, base = (uint64_t)a;
    if (b < 0) {
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    }
    while (b > 0) {
        if (b & 1) {
            r *= base;
        }
        base *= base;
        b >>= 1;
    }
    return (int64_t)r;
}

static float mote_ew_pow_scalarf(float x, float y)
{
    if (y == 2.0f) {
        return x * x;
    }
    if (y == 0.5f) {
        return sqrtf(x);
    }
    if (y == 3.0f) {
        return x * x * x;
    }
    if (y == -1.0f) {
        return 1.0f / x;
    }
    if (y == -0.5f) {
        return 1.0f / sqrtf(x);
    }
    if (y == -2.0f) {
        return 1.0f / (x * x);
    }
    return powf(x, y);
}

static int64_t mote_ew_shl(int64_t x, int64_t y, uint32_t bits)
{
    return (y < 0 || y >= (int64_t)bits) ? 0 : (int64_t)((uint64_t)x << y);
}

static int64_t mote_ew_shr(int64_t x, int64_t y, uint32_t bits, uint32_t is_unsigned)
{
    const int64_t max = (int64_t)bits - (is_unsigned ? 0 : 1);
    int64_t s = (y < 0 || y >= max) ? max : y;
    if (s >= 64) {
        return 0;
    }
    return x >= 0 ? x >> s : ~(~x >> s);
}

/* Integer division-like rows: a zero divisor sets the error and writes 0. */
#define MOTE_EW_IDIV_ROW(NAME, EXPR)                                             \
    static void NAME(void *out, const void *const *in, const size_t *st, size_t n, \
                     mote_ew_param_t *p)                                         \
    {                                                                            \
        int64_t *o_ = (int64_t *)out;                                            \
        const int64_t *a_ = (const int64_t *)in[0], *b_ = (const int64_t *)in[1]; \
        size_t i_;                                                               \
        for (i_ = 0; i_ < n; i_++) {                                             \
            const int64_t x = a_[i_ * st[0]], y = b_[i_ * st[1]];                \
            if (y == 0) {                                                        \
                p->err = MOTE_ERR_KERNEL_ARGS;                                   \
                o_[i_] = 0;                                                      \
            } else {                                                             \
                o_[i_] = (EXPR);                                                 \
            }                                                                    \
        }                                                                        \
    }

MOTE_EW_ROW2(mote_ew_fmod_f32, float, float, fmodf(x, y))
MOTE_EW_IDIV_ROW(mote_ew_fmod_i64, mote_ew_irem(x, y))
const mote_ew_op_t mote_ew_op_fmod = {MOTE_EW_ARITH, mote_ew_fmod_f32, mote_ew_fmod_i64, NULL};

MOTE_EW_ROW2(mote_ew_rem_f32, float, float, mote_ew_remf(x, y))
MOTE_EW_IDIV_ROW(mote_ew_rem_i64, mote_ew_iremainder(x, y))
const mote_ew_op_t mote_ew_op_remainder = {MOTE_EW_ARITH, mote_ew_rem_f32, mote_ew_rem_i64, NULL};

MOTE_EW_ROW2(mote_ew_floordiv_f32, float, float, mote_ew_floordivf(x, y))
MOTE_EW_IDIV_ROW(mote_ew_floordiv_i64, mote_ew_ifloordiv(x, y))
const mote_ew_op_t mote_ew_op_div_floor = {MOTE_EW_ARITH, mote_ew_floordiv_f32,
                                           mote_ew_floordiv_i64, NULL};

MOTE_EW_ROW2(mote_ew_truncdiv_f32, float, float, truncf(x / y))
MOTE_EW_IDIV_ROW(mote_ew_truncdiv_i64, mote_ew_idiv(x, y))
const mote_ew_op_t mote_ew_op_div_trunc = {MOTE_EW_ARITH, mote_ew_truncdiv_f32,
                                           mote_ew_truncdiv_i64, NULL};

MOTE_EW_ROW2(mote_ew_div_f32, float, float, x / y)
const mote_ew_op_t mote_ew_op_div_true = {MOTE_EW_FLOAT, mote_ew_div_f32, NULL, NULL};

MOTE_EW_ROW2(mote_ew_pow_f32, float, float, powf(x, y))
MOTE_EW_ROW2(mote_ew_pow_i64, int64_t, int64_t, mote_ew_ipow(x, y))
const mote_ew_op_t mote_ew_op_pow = {MOTE_EW_ARITH, mote_ew_pow_f32, mote_ew_pow_i64, NULL};
MOTE_EW_ROW2(mote_ew_pows_f32, float, float, mote_ew_pow_scalarf(x, y))
const mote_ew_op_t mote_ew_op_pow_scalar = {MOTE_EW_ARITH, mote_ew_pows_f32, mote_ew_pow_i64, NULL};

MOTE_EW_ROW2(mote_ew_and_i64, int64_t, int64_t, x & y)
MOTE_EW_ROW2(mote_ew_or_i64, int64_t, int64_t, x | y)
MOTE_EW_ROW2(mote_ew_xor_i64, int64_t, int64_t, x ^ y)
const mote_ew_op_t mote_ew_op_bitwise_and = {MOTE_EW_BITWISE, NULL, mote_ew_and_i64, NULL};
const mote_ew_op_t mote_ew_op_bitwise_or = {MOTE_EW_BITWISE, NULL, mote_ew_or_i64, NULL};
const mote_ew_op_t mote_ew_op_bitwise_xor = {MOTE_EW_BITWISE, NULL, mote_ew_xor_i64, NULL};

MOTE_EW_ROW2(mote_ew_shl_i64, int64_t, int64_t, mote_ew_shl(x, y, p->bits))
MOTE_EW_ROW2(mote_ew_shr_i64, int64_t, int64_t, mote_ew_shr(x, y, p->bits, p->is_unsigned))
const mote_ew_op_t mote_ew_op_lshift = {MOTE_EW_SHIFT, NULL, mote_ew_shl_i64, NULL};
const mote_ew_op_t mote_ew_op_rshift = {MOTE_EW_SHIFT, NULL, mote_ew_shr_i64, NULL};

mote_err_t mote_ew_rounding_mode(const mote_value_t *v, int *mode)
{
    if (mote_k_is_none(v)) {
        *mode = 0;
        return MOTE_OK;
    }
    MOTE_CHECK(v->tag == MOTE_TAG_STRING && v->u.str.ptr != NULL, MOTE_ERR_KERNEL_ARGS);
    if (v->u.str.len == 5 && memcmp(v->u.str.ptr, "trunc", 5) == 0) {
        *mode = 1;
    } else if (v->u.str.len == 5 && memcmp(v->u.str.ptr, "floor", 5) == 0) {
        *mode = 2;
    } else {
        return MOTE_ERR_KERNEL_ARGS;
    }
    return MOTE_OK;
}

const mote_ew_op_t *mote_ew_div_op(int mode)
{
    return mode == 1   ? &mote_ew_op_div_trunc
           : mode == 2 ? &mote_ew_op_div_floor
                       : &mote_ew_op_div_true;
}
