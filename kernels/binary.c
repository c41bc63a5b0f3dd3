/*
 * kernels/binary.c - broadcast arithmetic shared by add/sub/mul/div.
 */
#include "binary.h"

/*
 * Dtype selection: the host library compiles every integer path; a firmware
 * build (`aot build`) defines MOTE_KERNELS_INT32 / MOTE_KERNELS_INT64 to 0
 * when the program has no such arithmetic, so only the dtypes used are
 * compiled in (checked on the ELF's symbols by the tests).
 */
#ifndef MOTE_KERNELS_INT32
#define MOTE_KERNELS_INT32 1
#endif
#ifndef MOTE_KERNELS_INT64
#define MOTE_KERNELS_INT64 1
#endif

typedef struct mote_binparam {
    mote_binop_t op;
    double alpha;
} mote_binparam_t;

/* out[i] = a[i*sa] OP b[i*sb]; contiguous and scalar cases get their own loops. */
#define MOTE_BIN_LOOPS(T, EXPR)                                         \
    do {                                                                \
        T *o_ = (T *)out;                                               \
        const T *a_ = (const T *)a;                                     \
        const T *b_ = (const T *)b;                                     \
        size_t i_;                                                      \
        if (sa == 1 && sb == 1) {                                       \
            for (i_ = 0; i_ < n; i_++) {                                \
                const T x = a_[i_], y = b_[i_];                         \
                o_[i_] = (EXPR);                                        \
            }                                                           \
        } else if (sa == 1) {                                           \
            const T y = b_[0];                                          \
            for (i_ = 0; i_ < n; i_++) {                                \
                const T x = a_[i_];                                     \
                o_[i_] = (EXPR);                                        \
            }                                                           \
        } else if (sb == 1) {                                           \
            const T x = a_[0];                                          \
            for (i_ = 0; i_ < n; i_++) {                                \
                const T y = b_[i_];                                     \
                o_[i_] = (EXPR);                                        \
            }                                                           \
        } else {                                                        \
            const T x = a_[0], y = b_[0];                               \
            for (i_ = 0; i_ < n; i_++) {                                \
                o_[i_] = (EXPR);                                        \
            }                                                           \
        }                                                               \
    } while (0)

static void mote_bin_row_f32(void *out, const void *a, size_t sa, const void *b, size_t sb,
                             size_t n, const void *param)
{
    const mote_binparam_t *p = (const mote_binparam_t *)param;
    const float al = (float)p->alpha;
    switch (p->op) {
    case MOTE_BINOP_ADD:
        if (al == 1.0f) {
            MOTE_BIN_LOOPS(float, x + y);
        } else {
            MOTE_BIN_LOOPS(float, x + al * y);
        }
        break;
    case MOTE_BINOP_SUB:
        if (al == 1.0f) {
            MOTE_BIN_LOOPS(float, x - y);
        } else {
            MOTE_BIN_LOOPS(float, x - al * y);
        }
        break;
    case MOTE_BINOP_MUL: MOTE_BIN_LOOPS(float, x * y); break;
    case MOTE_BINOP_DIV: MOTE_BIN_LOOPS(float, x / y); break;
    }
}

#if MOTE_KERNELS_INT32
static void mote_bin_row_i32(void *out, const void *a, size_t sa, const void *b, size_t sb,
                             size_t n, const void *param)
{
    const mote_binparam_t *p = (const mote_binparam_t *)param;
    const int32_t al = (int32_t)p->alpha;
    switch (p->op) {
    case MOTE_BINOP_ADD: MOTE_BIN_LOOPS(int32_t, (int32_t)((uint32_t)x + (uint32_t)al * (uint32_t)y)); break;
    case MOTE_BINOP_SUB: MOTE_BIN_LOOPS(int32_t, (int32_t)((uint32_t)x - (uint32_t)al * (uint32_t)y)); break;
    case MOTE_BINOP_MUL: MOTE_BIN_LOOPS(int32_t, (int32_t)((uint32_t)x * (uint32_t)y)); break;
    case MOTE_BINOP_DIV: break;
    }
}

#endif

#if MOTE_KERNELS_INT64
static void mote_bin_row_i64(void *out, const void *a, size_t sa, const void *b, size_t sb,
                             size_t n, const void *param)
{
    const mote_binparam_t *p = (const mote_binparam_t *)param;
    const int64_t al = (int64_t)p->alpha;
    switch (p->op) {
    case MOTE_BINOP_ADD: MOTE_BIN_LOOPS(int64_t, (int64_t)((uint64_t)x + (uint64_t)al * (uint64_t)y)); break;
    case MOTE_BINOP_SUB: MOTE_BIN_LOOPS(int64_t, (int64_t)((uint64_t)x - (uint64_t)al * (uint64_t)y)); break;
    case MOTE_BINOP_MUL: MOTE_BIN_LOOPS(int64_t, (int64_t)((uint64_t)x * (uint64_t)y)); break;
    case MOTE_BINOP_DIV: break;
    }
}

#endif

/* Row function of an integer out dtype compiled into this build, or NULL. */
static mote_k_row2_fn mote_bin_int_row(uint8_t dtype)
{
#if MOTE_KERNELS_INT32
    if (dtype == MOTE_DTYPE_INT32) {
        return mote_bin_row_i32;
    }
#endif
#if MOTE_KERNELS_INT64
    if (dtype == MOTE_DTYPE_INT64) {
        return mote_bin_row_i64;
    }
#endif
    (void)dtype;
    return NULL;
}

/* Value of a one-element tensor of any supported dtype, as double. */
static mote_err_t mote_bin_elem(const mote_tensor_t *t, double *v)
{
    MOTE_CHECK(t->numel == 1, MOTE_ERR_KERNEL_DTYPE);
    switch (t->dtype) {
    case MOTE_DTYPE_FLOAT32: *v = (double)*(const float *)t->data; return MOTE_OK;
    case MOTE_DTYPE_FLOAT64: *v = *(const double *)t->data; return MOTE_OK;
    case MOTE_DTYPE_INT32: *v = (double)*(const int32_t *)t->data; return MOTE_OK;
    case MOTE_DTYPE_INT64: *v = (double)*(const int64_t *)t->data; return MOTE_OK;
    case MOTE_DTYPE_INT8: *v = (double)*(const int8_t *)t->data; return MOTE_OK;
    case MOTE_DTYPE_UINT8: *v = (double)*(const uint8_t *)t->data; return MOTE_OK;
    case MOTE_DTYPE_BOOL: *v = *(const uint8_t *)t->data ? 1.0 : 0.0; return MOTE_OK;
    default: return MOTE_ERR_KERNEL_DTYPE;
    }
}

mote_err_t mote_k_binary(mote_value_t *const *args, uint32_t nargs, mote_binop_t op,
                         int other_is_scalar, int has_alpha)
{
    mote_tensor_t *a, *b = NULL, *out;
    mote_tensor_t sa_t, sb_t; /* float32 stand-ins for lifted scalars */
    float sa_v = 0.0f, sb_v = 0.0f;
    int32_t v32 = 0;
    int64_t v64 = 0;
    double alpha = 1.0, other = 0.0;
    mote_binparam_t p;
    mote_k_row2_fn fn;
    const uint32_t want = has_alpha ? 4u : 3u;

    MOTE_TRY(mote_k_nargs(args, nargs, want));
    MOTE_TRY(mote_k_tensor(args[0], &a));
    if (other_is_scalar) {
        MOTE_TRY(mote_k_scalar(args[1], &other));
    } else {
        MOTE_TRY(mote_k_tensor(args[1], &b));
    }
    if (has_alpha) {
        MOTE_TRY(mote_k_scalar(args[2], &alpha));
    }
    MOTE_TRY(mote_k_tensor(args[want - 1], &out));
    MOTE_TRY(mote_k_check_numel(a));
    MOTE_TRY(mote_k_check_numel(out));
    if (b != NULL) {
        MOTE_TRY(mote_k_check_numel(b));
    }

    if (out->dtype == MOTE_DTYPE_FLOAT32) {
        fn = mote_bin_row_f32;
        if (a->dtype != MOTE_DTYPE_FLOAT32) {
            /* a lifted scalar on the left: only next to a float32 tensor */
            MOTE_CHECK(b != NULL && b->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
            MOTE_TRY(mote_bin_elem(a, &other));
            sa_v = (float)other;
            sa_t = *a;
            sa_t.data = &sa_v;
            sa_t.dtype = MOTE_DTYPE_FLOAT32;
            sa_t.nbytes = 4;
            a = &sa_t;
        }
        if (b == NULL) {
            sb_v = (float)other;
            sb_t.data = &sb_v;
            sb_t.sizes = NULL;
            sb_t.dim_order = NULL;
            sb_t.numel = 1;
            sb_t.nbytes = 4;
            sb_t.dim = 0;
            sb_t.dtype = MOTE_DTYPE_FLOAT32;
            b = &sb_t;
        } else if (b->dtype != MOTE_DTYPE_FLOAT32) {
            MOTE_TRY(mote_bin_elem(b, &other));
            sb_v = (float)other;
            sb_t = *b;
            sb_t.data = &sb_v;
            sb_t.dtype = MOTE_DTYPE_FLOAT32;
            sb_t.nbytes = 4;
            b = &sb_t;
        }
    } else if ((fn = mote_bin_int_row(out->dtype)) != NULL) {
        MOTE_CHECK(op != MOTE_BINOP_DIV && a->dtype == out->dtype, MOTE_ERR_KERNEL_DTYPE);
        MOTE_CHECK(alpha == (double)(int64_t)alpha, MOTE_ERR_KERNEL_DTYPE);
        if (b == NULL) {
            MOTE_CHECK(other == (double)(int64_t)other, MOTE_ERR_KERNEL_DTYPE);
            sb_t.sizes = NULL;
            sb_t.dim_order = NULL;
            sb_t.numel = 1;
            sb_t.dim = 0;
            sb_t.dtype = out->dtype;
            v32 = (int32_t)other;
            v64 = (int64_t)other;
            sb_t.data = out->dtype == MOTE_DTYPE_INT32 ? (void *)&v32 : (void *)&v64;
            sb_t.nbytes = out->dtype == MOTE_DTYPE_INT32 ? 4u : 8u;
            b = &sb_t;
        } else {
            MOTE_CHECK(b->dtype == out->dtype, MOTE_ERR_KERNEL_DTYPE);
        }
    } else {
        return MOTE_ERR_KERNEL_DTYPE;
    }
    p.op = op;
    p.alpha = alpha;
    return mote_k_broadcast2(a, b, out, fn, &p);
}

mote_err_t mote_k_unary_f32(mote_value_t *const *args, uint32_t nargs, uint32_t nargs_expected,
                            const float **x, float **y, size_t *n)
{
    mote_tensor_t *in, *out;
    MOTE_TRY(mote_k_nargs(args, nargs, nargs_expected));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[nargs_expected - 1], &out));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(out));
    *x = (const float *)in->data;
    *y = (float *)out->data;
    *n = out->numel;
    return MOTE_OK;
}
