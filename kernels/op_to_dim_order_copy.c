/*
 * dim_order_ops::_to_dim_order_copy.out(self, *, bool non_blocking, int[]? dim_order, out)
 * - ExecuTorch's form of Tensor.to(dtype): an element-wise dtype conversion
 * into a contiguous out tensor (ExecuTorch emits it for .to()/.float()/.int()).
 *
 *   args (4): self, non_blocking bool (ignored), dim_order None or the identity
 *             permutation of out's rank, out (self's shape, any supported dtype).
 *   dtypes: uint8, int8, int16, int32, int64, float32, float64, bool, each way.
 *   conversions: as C / torch casts -- float to integer truncates toward zero;
 *           integer to narrower integer wraps (two's complement); anything to
 *           bool is `!= 0`; bool is 0/1. Where C leaves a float-to-integer
 *           conversion undefined (NaN, out of range) this kernel gives 0 for NaN
 *           and saturates at the target's limits.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, a non-identity dim_order),
 *           MOTE_ERR_KERNEL_DTYPE (float16 or another dtype), MOTE_ERR_KERNEL_SHAPE.
 */
#include "kutil.h"

MOTE_KERNEL("dim_order_ops::_to_dim_order_copy.out")

MOTE_K_DECLARE(mote_kernel_dim_order_ops__to_dim_order_copy_out);

static int todo_is_float(uint8_t dt)
{
    return dt == MOTE_DTYPE_FLOAT32 || dt == MOTE_DTYPE_FLOAT64;
}

static int todo_supported(uint8_t dt)
{
    return dt == MOTE_DTYPE_UINT8 || dt == MOTE_DTYPE_INT8 || dt == MOTE_DTYPE_INT16 ||
           dt == MOTE_DTYPE_INT32 || dt == MOTE_DTYPE_INT64 || dt == MOTE_DTYPE_BOOL || todo_is_float(dt);
}

static int64_t todo_get_int(const void *p, uint8_t dt, size_t i)
{
    switch (dt) {
    case MOTE_DTYPE_UINT8: return ((const uint8_t *)p)[i];
    case MOTE_DTYPE_INT8: return ((const int8_t *)p)[i];
    case MOTE_DTYPE_INT16: return ((const int16_t *)p)[i];
    case MOTE_DTYPE_INT32: return ((const int32_t *)p)[i];
    case MOTE_DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
    default: return ((const int64_t *)p)[i];
    }
}

/* Wraps v to the integer dtype dt (two's complement) and stores it. */
static void todo_put_int(void *p, uint8_t dt, size_t i, int64_t v)
{
    const uint64_t u = (uint64_t)v;
    switch (dt) {
    case MOTE_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)u; break;
    case MOTE_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)((int32_t)((u & 0xffu) ^ 0x80u) - 0x80); break;
    case MOTE_DTYPE_INT16: ((int16_t *)p)[i] = (int16_t)((int32_t)((u & 0xffffu) ^ 0x8000u) - 0x8000); break;
    case MOTE_DTYPE_INT32:
        ((int32_t *)p)[i] = (int32_t)((int64_t)((u & 0xffffffffu) ^ 0x80000000u) - INT64_C(0x80000000));
        break;
    case MOTE_DTYPE_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v != 0); break;
    default: ((int64_t *)p)[i] = v; break;
    }
}

/* Float -> integer dtype: truncation toward zero; NaN -> 0; saturation out of range. */
static int64_t todo_float_to_int(double v, uint8_t dt)
{
    double lo, hi;
    switch (dt) {
    case MOTE_DTYPE_UINT8: lo = 0.0; hi = 255.0; break;
    case MOTE_DTYPE_INT8: lo = -128.0; hi = 127.0; break;
    case MOTE_DTYPE_INT16: lo = -32768.0; hi = 32767.0; break;
    case MOTE_DTYPE_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
    default: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    }
    if (v != v) {
        return 0;
    }
    if (v <= lo) {
        return dt == MOTE_DTYPE_INT64 ? INT64_MIN : (int64_t)lo;
    }
    if (v >= hi) {
        return dt == MOTE_DTYPE_INT64 ? INT64_MAX : (int64_t)hi;
    }
    return (int64_t)v;
}

mote_err_t mote_kernel_dim_order_ops__to_dim_order_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    size_t i, n;
    uint8_t st, dt;
    (void)ctx;
    MOTE_TRY(mote_k_dim_order_args(args, nargs, &in, &out));
    st = in->dtype;
    dt = out->dtype;
    MOTE_CHECK(todo_supported(st) && todo_supported(dt), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    n = in->numel;
    for (i = 0; i < n; i++) {
        if (todo_is_float(st)) {
            const double v = st == MOTE_DTYPE_FLOAT32 ? (double)((const float *)in->data)[i]
                                                      : ((const double *)in->data)[i];
            if (dt == MOTE_DTYPE_FLOAT32) {
                ((float *)out->data)[i] = (float)v;
            } else if (dt == MOTE_DTYPE_FLOAT64) {
                ((double *)out->data)[i] = v;
            } else if (dt == MOTE_DTYPE_BOOL) {
                ((uint8_t *)out->data)[i] = (uint8_t)(v != 0.0);
            } else {
                todo_put_int(out->data, dt, i, todo_float_to_int(v, dt));
            }
        } else {
            const int64_t v = todo_get_int(in->data, st, i);
            if (dt == MOTE_DTYPE_FLOAT32) {
                ((float *)out->data)[i] = (float)v;
            } else if (dt == MOTE_DTYPE_FLOAT64) {
                ((double *)out->data)[i] = (double)v;
            } else {
                todo_put_int(out->data, dt, i, v);
            }
        }
    }
    return MOTE_OK;
}
