/*
 * kernels/reduce.c - the reduction engine of the reduce family (see reduce.h):
 * reduction geometry and odometers, dim-list parsing, min/max/arg-min/max,
 * any, prod, variance, and the argument checks several kernels share.
 */
#include <math.h>

#include "reduce.h"

void mote_red_geom(const mote_tensor_t *in, const uint8_t *reduce, mote_red_geom_t *g)
{
    ptrdiff_t st[MOTE_MAX_DIM];
    uint32_t d;
    int last = -1; /* kind of the previous listed dim: 0 kept, 1 reduced */
    g->nk = 0;
    g->nr = 0;
    g->out_numel = 1;
    g->red_numel = 1;
    mote_k_strides(in, st);
    for (d = 0; d < in->dim; d++) {
        const size_t sz = (size_t)in->sizes[d];
        const int r = reduce[d] != 0;
        if (r) {
            g->red_numel *= sz;
        } else {
            g->out_numel *= sz;
        }
        if (sz == 1) {
            continue;
        }
        if (r) {
            if (last == 1 && g->rstride[g->nr - 1] == st[d] * (ptrdiff_t)sz) {
                g->rsize[g->nr - 1] *= sz;
                g->rstride[g->nr - 1] = st[d];
            } else {
                g->rsize[g->nr] = sz;
                g->rstride[g->nr] = st[d];
                g->nr++;
            }
        } else {
            if (last == 0 && g->kstride[g->nk - 1] == st[d] * (ptrdiff_t)sz) {
                g->ksize[g->nk - 1] *= sz;
                g->kstride[g->nk - 1] = st[d];
            } else {
                g->ksize[g->nk] = sz;
                g->kstride[g->nk] = st[d];
                g->nk++;
            }
        }
        last = r;
    }
}

void mote_red_it_reset(mote_red_it_t *it)
{
    uint32_t d;
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        it->idx[d] = 0;
    }
    it->off = 0;
}

void mote_red_it_next(mote_red_it_t *it, const size_t *size, const ptrdiff_t *stride, uint32_t n)
{
    uint32_t d = n;
    while (d-- > 0) {
        it->idx[d]++;
        it->off += stride[d];
        if (it->idx[d] < size[d]) {
            return;
        }
        it->off -= stride[d] * (ptrdiff_t)size[d];
        it->idx[d] = 0;
    }
}

mote_err_t mote_red_one_dim(int64_t dim, const mote_tensor_t *in, uint8_t *reduce)
{
    uint32_t d, k;
    MOTE_TRY(mote_k_dim(dim, in->dim, &k));
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = (uint8_t)(d == k ? 1 : 0);
    }
    return MOTE_OK;
}

mote_err_t mote_red_dim_list(const mote_value_t *v, const mote_tensor_t *in, int empty_is_all,
                             uint8_t *reduce)
{
    uint32_t d, len = 0;
    const int64_t *items = NULL;
    const int all = mote_k_is_none(v);
    if (!all) {
        MOTE_TRY(mote_k_ints(v, &items, &len));
    }
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = (uint8_t)(all || (len == 0 && empty_is_all) ? 1 : 0);
    }
    for (d = 0; d < len; d++) {
        uint32_t k;
        MOTE_TRY(mote_k_dim(items[d], in->dim, &k));
        MOTE_CHECK(!reduce[k], MOTE_ERR_KERNEL_ARGS); /* a dim listed twice */
        reduce[k] = 1;
    }
    return MOTE_OK;
}

int mote_red_is_intlike(mote_dtype_t dt)
{
    return dt == MOTE_DTYPE_BOOL || dt == MOTE_DTYPE_UINT8 || dt == MOTE_DTYPE_INT8 ||
           dt == MOTE_DTYPE_INT16 || dt == MOTE_DTYPE_INT32 || dt == MOTE_DTYPE_INT64;
}

int64_t mote_red_load_i64(const void *data, mote_dtype_t dt, size_t i)
{
    switch (dt) {
    case MOTE_DTYPE_BOOL: return ((const uint8_t *)data)[i] != 0;
    case MOTE_DTYPE_UINT8: return ((const uint8_t *)data)[i];
    case MOTE_DTYPE_INT8: return ((const int8_t *)data)[i];
    case MOTE_DTYPE_INT16: return ((const int16_t *)data)[i];
    case MOTE_DTYPE_INT32: return ((const int32_t *)data)[i];
    case MOTE_DTYPE_INT64: return ((const int64_t *)data)[i];
    default: return 0;
    }
}

/*
 * The walk every reduction shares: for each out element o (kept dims
 * row-major) the pointer XB to its first input, then its inputs in reduced
 * order (element offsets OFF from XB), position R counting from 0. X and XB
 * are `const T *` with ESZ of them per element (1 for a typed walk, the
 * element size for a byte walk over any dtype).
 * OUTER_INIT runs before the inputs, BODY on each input XB[OFF], OUTER_FINI
 * after them.
 */
#define MOTE_RED_WALK(G, T, X, ESZ, XB, OFF, R, OUTER_INIT, BODY, OUTER_FINI)             \
    do {                                                                                 \
        const uint32_t nr_ = (G)->nr;                                                    \
        const size_t rin_ = nr_ > 0 ? (G)->rsize[nr_ - 1] : 1;                           \
        const ptrdiff_t rst_ = nr_ > 0 ? (G)->rstride[nr_ - 1] : 0;                      \
        const size_t rout_ = rin_ > 0 ? (G)->red_numel / rin_ : 0;                       \
        mote_red_it_t ko_, ri_;                                                          \
        size_t o;                                                                        \
        mote_red_it_reset(&ko_);                                                         \
        for (o = 0; o < (G)->out_numel; o++) {                                           \
            const T *XB = (X) + ko_.off * (ptrdiff_t)(ESZ);                              \
            size_t ro_, i_;                                                              \
            OUTER_INIT;                                                                  \
            mote_red_it_reset(&ri_);                                                     \
            for (ro_ = 0; ro_ < rout_; ro_++) {                                          \
                for (i_ = 0; i_ < rin_; i_++) {                                          \
                    const ptrdiff_t OFF = ri_.off + (ptrdiff_t)i_ * rst_;                \
                    const size_t R = ro_ * rin_ + i_;                                    \
                    (void)R;                                                             \
                    BODY;                                                                \
                }                                                                        \
                mote_red_it_next(&ri_, (G)->rsize, (G)->rstride, nr_ > 0 ? nr_ - 1 : 0); \
            }                                                                            \
            OUTER_FINI;                                                                  \
            mote_red_it_next(&ko_, (G)->ksize, (G)->kstride, (G)->nk);                   \
        }                                                                                \
    } while (0)

#define MOTE_RED_ISNAN_F(v) ((v) != (v))
#define MOTE_RED_ISNAN_I(v) 0

/* best: a value better than `m`: NaN first (once), then strictly larger/smaller */
#define MOTE_RED_ARG_FN(NAME, T, ISNAN)                                                  \
    static void NAME(const T *x, const mote_red_geom_t *g, T *vals, int64_t *idx,        \
                     int is_max)                                                         \
    {                                                                                    \
        T m = 0;                                                                         \
        int64_t mi = 0;                                                                  \
        MOTE_RED_WALK(g, T, x, 1, xb, off, r, (m = xb[0], mi = 0),                          \
                      {                                                                  \
                          const T v = xb[off];                                           \
                          if (!ISNAN(m) && (ISNAN(v) || (is_max ? v > m : v < m))) {     \
                              m = v;                                                     \
                              mi = (int64_t)r;                                           \
                          }                                                              \
                      },                                                                 \
                      {                                                                  \
                          if (vals != NULL) {                                            \
                              vals[o] = m;                                               \
                          }                                                              \
                          if (idx != NULL) {                                             \
                              idx[o] = mi;                                               \
                          }                                                              \
                      });                                                                \
    }

MOTE_RED_ARG_FN(mote_red_arg_f32, float, MOTE_RED_ISNAN_F)
MOTE_RED_ARG_FN(mote_red_arg_i32, int32_t, MOTE_RED_ISNAN_I)
MOTE_RED_ARG_FN(mote_red_arg_i64, int64_t, MOTE_RED_ISNAN_I)

void mote_red_arg(const mote_tensor_t *in, const mote_red_geom_t *g, void *vals, int64_t *idx,
                  int is_max)
{
    switch (in->dtype) {
    case MOTE_DTYPE_FLOAT32:
        mote_red_arg_f32((const float *)in->data, g, (float *)vals, idx, is_max);
        break;
    case MOTE_DTYPE_INT32:
        mote_red_arg_i32((const int32_t *)in->data, g, (int32_t *)vals, idx, is_max);
        break;
    case MOTE_DTYPE_INT64:
        mote_red_arg_i64((const int64_t *)in->data, g, (int64_t *)vals, idx, is_max);
        break;
    default: break;
    }
}

void mote_red_minmax(const mote_tensor_t *in, const mote_red_geom_t *g, void *out, int is_max)
{
    mote_red_arg(in, g, out, NULL, is_max);
}

static int mote_red_nonzero(const void *x, mote_dtype_t dt)
{
    switch (dt) {
    case MOTE_DTYPE_FLOAT32: return *(const float *)x != 0.0f;
    case MOTE_DTYPE_FLOAT64: return *(const double *)x != 0.0;
    default: return mote_red_load_i64(x, dt, 0) != 0;
    }
}

int mote_red_any_dtypes(const mote_tensor_t *in, const mote_tensor_t *out)
{
    const mote_dtype_t want = in->dtype == MOTE_DTYPE_UINT8 ? MOTE_DTYPE_UINT8 : MOTE_DTYPE_BOOL;
    return (mote_red_is_intlike(in->dtype) || in->dtype == MOTE_DTYPE_FLOAT32 ||
            in->dtype == MOTE_DTYPE_FLOAT64) &&
           out->dtype == want;
}

void mote_red_any(const mote_tensor_t *in, const mote_red_geom_t *g, uint8_t *out)
{
    const size_t esz = mote_dtype_size(in->dtype);
    const uint8_t *x = (const uint8_t *)in->data;
    int acc = 0;
    MOTE_RED_WALK(g, uint8_t, x, esz, xb, off, r, acc = 0,
                  {
                      if (!acc) {
                          acc = mote_red_nonzero(xb + off * (ptrdiff_t)esz, in->dtype);
                      }
                  },
                  out[o] = (uint8_t)acc);
}

void mote_red_prod(const mote_tensor_t *in, const mote_red_geom_t *g, void *out,
                   mote_dtype_t out_dtype)
{
    if (out_dtype == MOTE_DTYPE_FLOAT32 && in->dtype == MOTE_DTYPE_FLOAT32) {
        const float *x = (const float *)in->data;
        float acc = 1.0f;
        MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = 1.0f, acc *= xb[off],
                      ((float *)out)[o] = acc);
    } else if (out_dtype == MOTE_DTYPE_FLOAT32) {
        const uint8_t *x = (const uint8_t *)in->data;
        const size_t esz = mote_dtype_size(in->dtype);
        float acc = 1.0f;
        MOTE_RED_WALK(g, uint8_t, x, esz, xb, off, r, acc = 1.0f,
                      acc *= (float)mote_red_load_i64(xb + off * (ptrdiff_t)esz, in->dtype, 0),
                      ((float *)out)[o] = acc);
    } else {
        /* integers wrap as in torch: multiply as unsigned 64-bit */
        const uint8_t *x = (const uint8_t *)in->data;
        const size_t esz = mote_dtype_size(in->dtype);
        uint64_t acc = 1;
        MOTE_RED_WALK(g, uint8_t, x, esz, xb, off, r, acc = 1,
                      acc *= (uint64_t)mote_red_load_i64(xb + off * (ptrdiff_t)esz, in->dtype, 0),
                      {
                          if (out_dtype == MOTE_DTYPE_INT64) {
                              ((int64_t *)out)[o] = (int64_t)acc;
                          } else {
                              ((int32_t *)out)[o] = (int32_t)(uint32_t)acc;
                          }
                      });
    }
}

void mote_red_vector_norm_f32(const mote_tensor_t *in, const mote_red_geom_t *g, double ord, float *out)
{
    const float *x = (const float *)in->data;
    float acc = 0.0f;
    if (ord == 0.0) {
        MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = 0.0f, acc += xb[off] != 0.0f ? 1.0f : 0.0f,
                      out[o] = acc);
    } else if (isinf(ord)) {
        const int is_max = ord > 0.0;
        MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = is_max ? 0.0f : INFINITY,
                      {
                          const float a = fabsf(xb[off]);
                          if (MOTE_RED_ISNAN_F(a) || MOTE_RED_ISNAN_F(acc)) {
                              acc = NAN;
                          } else if (is_max ? a > acc : a < acc) {
                              acc = a;
                          }
                      },
                      out[o] = acc);
    } else if (ord == 1.0) {
        MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = 0.0f, acc += fabsf(xb[off]), out[o] = acc);
    } else if (ord == 2.0) {
        MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = 0.0f, acc += xb[off] * xb[off], out[o] = sqrtf(acc));
    } else {
        const float p = (float)ord, inv = (float)(1.0 / ord);
        MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = 0.0f, acc += powf(fabsf(xb[off]), p),
                      out[o] = powf(acc, inv));
    }
}

void mote_red_var_f32(const mote_tensor_t *in, const mote_red_geom_t *g, double correction,
                      float *var, float *mean)
{
    const float *x = (const float *)in->data;
    double dof = (double)g->red_numel - correction;
    const float div = (float)(dof > 0.0 ? dof : 0.0);
    const float n = (float)g->red_numel;
    float acc = 0.0f, mu = 0.0f;
    /* pass 1: the means, into var (or mean) */
    float *means = mean != NULL ? mean : var;
    MOTE_RED_WALK(g, float, x, 1, xb, off, r, acc = 0.0f, acc += xb[off], means[o] = acc / n);
    /* pass 2: squared deviations from the mean */
    MOTE_RED_WALK(g, float, x, 1, xb, off, r, (acc = 0.0f, mu = means[o]),
                  {
                      const float dv = xb[off] - mu;
                      acc += dv * dv;
                  },
                  var[o] = acc / div);
}

mote_err_t mote_red_var_args(mote_value_t *const *args, uint32_t nargs, uint32_t nouts,
                             mote_tensor_t **in, mote_red_geom_t *g, double *correction)
{
    uint8_t reduce[MOTE_MAX_DIM];
    mote_tensor_t *outs[2];
    int keepdim;
    uint32_t i;
    MOTE_TRY(mote_k_nargs(args, nargs, 4 + nouts));
    MOTE_TRY(mote_k_tensor(args[0], in));
    *correction = 1.0;
    if (!mote_k_is_none(args[2])) {
        MOTE_TRY(mote_k_scalar(args[2], correction));
    }
    MOTE_TRY(mote_k_bool(args[3], &keepdim));
    for (i = 0; i < nouts; i++) {
        MOTE_TRY(mote_k_tensor(args[4 + i], &outs[i]));
    }
    MOTE_TRY(mote_red_dim_list(args[1], *in, 1, reduce));
    MOTE_CHECK((*in)->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    for (i = 0; i < nouts; i++) {
        MOTE_CHECK(outs[i]->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    }
    MOTE_TRY(mote_k_check_numel(*in));
    for (i = 0; i < nouts; i++) {
        MOTE_TRY(mote_k_reduce_out_shape(*in, reduce, keepdim, outs[i]));
        MOTE_TRY(mote_k_check_numel(outs[i]));
    }
    mote_red_geom(*in, reduce, g);
    return MOTE_OK;
}

static int mote_red_minmax_dtype(mote_dtype_t dt)
{
    return dt == MOTE_DTYPE_FLOAT32 || dt == MOTE_DTYPE_INT32 || dt == MOTE_DTYPE_INT64;
}

static int mote_red_aminmax_dtypes(const mote_tensor_t *in, const mote_tensor_t *out)
{
    return mote_red_minmax_dtype(in->dtype) && out->dtype == in->dtype;
}

mote_err_t mote_red_dims_args(mote_value_t *const *args, uint32_t nargs, int empty_is_all,
                              mote_red_dtypes_t dtypes, mote_tensor_t **in, mote_tensor_t **out,
                              mote_red_geom_t *g)
{
    uint8_t reduce[MOTE_MAX_DIM];
    int keepdim;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], in));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_TRY(mote_k_tensor(args[3], out));
    MOTE_TRY(mote_red_dim_list(args[1], *in, empty_is_all, reduce));
    MOTE_CHECK(dtypes == MOTE_RED_DTYPES_ANY ? mote_red_any_dtypes(*in, *out)
                                             : mote_red_aminmax_dtypes(*in, *out),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(*in));
    MOTE_TRY(mote_k_reduce_out_shape(*in, reduce, keepdim, *out));
    MOTE_TRY(mote_k_check_numel(*out));
    mote_red_geom(*in, reduce, g);
    return MOTE_OK;
}


mote_err_t mote_red_aminmax(mote_value_t *const *args, uint32_t nargs, int is_max)
{
    mote_tensor_t *in, *out;
    mote_red_geom_t g;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(args[1]->tag == MOTE_TAG_INT_LIST, MOTE_ERR_KERNEL_ARGS); /* int[1], not optional */
    MOTE_TRY(mote_red_dims_args(args, nargs, 1, MOTE_RED_DTYPES_MINMAX, &in, &out, &g));
    MOTE_CHECK(g.red_numel > 0, MOTE_ERR_KERNEL_SHAPE); /* max of nothing: torch raises */
    mote_red_minmax(in, &g, out->data, is_max);
    return MOTE_OK;
}

mote_err_t mote_red_dim_minmax(mote_value_t *const *args, uint32_t nargs, int is_max)
{
    mote_tensor_t *in, *vals, *idx;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    int64_t dim;
    int keepdim;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_TRY(mote_k_tensor(args[3], &vals));
    MOTE_TRY(mote_k_tensor(args[4], &idx));
    MOTE_TRY(mote_red_one_dim(dim, in, reduce));
    MOTE_CHECK(mote_red_minmax_dtype(in->dtype) && vals->dtype == in->dtype &&
                   idx->dtype == MOTE_DTYPE_INT64,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, vals));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, idx));
    MOTE_TRY(mote_k_check_numel(vals));
    MOTE_TRY(mote_k_check_numel(idx));
    mote_red_geom(in, reduce, &g);
    MOTE_CHECK(g.red_numel > 0, MOTE_ERR_KERNEL_SHAPE);
    mote_red_arg(in, &g, vals->data, (int64_t *)idx->data, is_max);
    return MOTE_OK;
}

mote_err_t mote_red_argminmax(mote_value_t *const *args, uint32_t nargs, int is_max)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    int keepdim;
    uint32_t d;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    if (mote_k_is_none(args[1])) {
        for (d = 0; d < MOTE_MAX_DIM; d++) {
            reduce[d] = 1; /* flattened: the index is the flat index */
        }
    } else {
        int64_t dim;
        MOTE_TRY(mote_k_int(args[1], &dim));
        MOTE_TRY(mote_red_one_dim(dim, in, reduce));
    }
    MOTE_CHECK(mote_red_minmax_dtype(in->dtype) && out->dtype == MOTE_DTYPE_INT64,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_TRY(mote_k_check_numel(out));
    mote_red_geom(in, reduce, &g);
    MOTE_CHECK(g.red_numel > 0, MOTE_ERR_KERNEL_SHAPE);
    mote_red_arg(in, &g, NULL, (int64_t *)out->data, is_max);
    return MOTE_OK;
}

mote_err_t mote_red_unary_minmax(mote_value_t *const *args, uint32_t nargs, int is_max)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    uint32_t d;
    MOTE_TRY(mote_k_nargs(args, nargs, 2));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &out));
    MOTE_CHECK(mote_red_minmax_dtype(in->dtype) && out->dtype == in->dtype,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_CHECK(out->dim == 0 && out->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(in->numel > 0, MOTE_ERR_KERNEL_SHAPE); /* max of nothing: torch raises */
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = 1;
    }
    mote_red_geom(in, reduce, &g);
    mote_red_minmax(in, &g, out->data, is_max);
    return MOTE_OK;
}

mote_err_t mote_red_acc_dtype(const mote_value_t *v, const mote_tensor_t *in, mote_dtype_t *dt)
{
    const int intlike = mote_red_is_intlike(in->dtype);
    if (mote_k_is_none(v)) {
        *dt = intlike ? MOTE_DTYPE_INT64 : in->dtype;
    } else {
        int64_t code;
        MOTE_TRY(mote_k_int(v, &code));
        *dt = (mote_dtype_t)code;
    }
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 || intlike, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(*dt == MOTE_DTYPE_FLOAT32 ||
                   ((*dt == MOTE_DTYPE_INT32 || *dt == MOTE_DTYPE_INT64) && intlike),
               MOTE_ERR_KERNEL_DTYPE);
    return MOTE_OK;
}

mote_err_t mote_red_sum_int(mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    mote_dtype_t dt;
    int keepdim;
    size_t esz;
    const uint8_t *x;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_CHECK(mote_k_is_none(args[3]) || args[3]->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_TRY(mote_red_dim_list(args[1], in, 1, reduce));
    MOTE_CHECK(mote_red_is_intlike(in->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_red_acc_dtype(args[3], in, &dt));
    MOTE_CHECK(out->dtype == dt, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_TRY(mote_k_check_numel(out));
    mote_red_geom(in, reduce, &g);
    esz = mote_dtype_size(in->dtype);
    x = (const uint8_t *)in->data;
    if (dt == MOTE_DTYPE_FLOAT32) {
        float acc = 0.0f;
        MOTE_RED_WALK(&g, uint8_t, x, esz, xb, off, r, acc = 0.0f,
                      acc += (float)mote_red_load_i64(xb + off * (ptrdiff_t)esz, in->dtype, 0),
                      ((float *)out->data)[o] = acc);
    } else {
        uint64_t acc = 0; /* integers wrap as in torch */
        MOTE_RED_WALK(&g, uint8_t, x, esz, xb, off, r, acc = 0,
                      acc += (uint64_t)mote_red_load_i64(xb + off * (ptrdiff_t)esz, in->dtype, 0),
                      {
                          if (dt == MOTE_DTYPE_INT64) {
                              ((int64_t *)out->data)[o] = (int64_t)acc;
                          } else {
                              ((int32_t *)out->data)[o] = (int32_t)(uint32_t)acc;
                          }
                      });
    }
    return MOTE_OK;
}
