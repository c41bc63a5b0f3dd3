/*
 * kernels/unary.c - argument checks and element access shared by the
 * elementwise unary kernels (unary.h).
 */
#include "unary.h"

mote_err_t mote_u_check(mote_value_t *const *args, uint32_t nargs, uint32_t nexp,
                        unsigned long in_dtypes, unsigned long out_dtypes, int same_dtype,
                        mote_tensor_t **in, mote_tensor_t **out)
{
    MOTE_TRY(mote_k_nargs(args, nargs, nexp));
    MOTE_TRY(mote_k_tensor(args[0], in));
    MOTE_TRY(mote_k_tensor(args[nexp - 1], out));
    MOTE_CHECK((*in)->dtype < 32 && (in_dtypes & MOTE_U_BIT((*in)->dtype)) != 0,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK((*out)->dtype < 32 && (out_dtypes & MOTE_U_BIT((*out)->dtype)) != 0,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(!same_dtype || (*in)->dtype == (*out)->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(*in, *out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(*in));
    MOTE_TRY(mote_k_check_numel(*out));
    return MOTE_OK;
}

float mote_u_load_f32(const mote_tensor_t *t, size_t i)
{
    switch (t->dtype) {
    case MOTE_DTYPE_UINT8: return (float)((const uint8_t *)t->data)[i];
    case MOTE_DTYPE_INT8: return (float)((const int8_t *)t->data)[i];
    case MOTE_DTYPE_INT16: return (float)((const int16_t *)t->data)[i];
    case MOTE_DTYPE_INT32: return (float)((const int32_t *)t->data)[i];
    case MOTE_DTYPE_INT64: return (float)((const int64_t *)t->data)[i];
    case MOTE_DTYPE_BOOL: return ((const uint8_t *)t->data)[i] ? 1.0f : 0.0f;
    case MOTE_DTYPE_FLOAT32: return ((const float *)t->data)[i];
    default: return 0.0f;
    }
}

int mote_u_nonzero(const mote_tensor_t *t, size_t i)
{
    switch (t->dtype) {
    case MOTE_DTYPE_UINT8:
    case MOTE_DTYPE_INT8:
    case MOTE_DTYPE_BOOL: return ((const uint8_t *)t->data)[i] != 0;
    case MOTE_DTYPE_INT16: return ((const int16_t *)t->data)[i] != 0;
    case MOTE_DTYPE_FLOAT16: return (((const uint16_t *)t->data)[i] & 0x7fffu) != 0;
    case MOTE_DTYPE_INT32: return ((const int32_t *)t->data)[i] != 0;
    case MOTE_DTYPE_FLOAT32: return ((const float *)t->data)[i] != 0.0f;
    case MOTE_DTYPE_INT64: return ((const int64_t *)t->data)[i] != 0;
    case MOTE_DTYPE_FLOAT64: return ((const double *)t->data)[i] != 0.0;
    default: return 0;
    }
}
