/* int4.c - checks shared by the 4-bit weight kernels (int4.h). */
#include "int4.h"

mote_err_t mote_w4_check(const mote_tensor_t *w, const mote_tensor_t *s, int64_t group)
{
    size_t k;
    MOTE_CHECK((w->dtype == MOTE_DTYPE_UINT8 || w->dtype == MOTE_DTYPE_INT8) && s->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(w->dim == 2 && s->dim == 2 && s->sizes[0] == w->sizes[0], MOTE_ERR_KERNEL_SHAPE);
    k = 2u * (size_t)w->sizes[1];
    MOTE_CHECK(group > 0 && group % 2 == 0 && (uint64_t)group <= (uint64_t)k + 1u && k % (size_t)group == 0u,
               MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK((size_t)s->sizes[1] == k / (size_t)group, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(w));
    return mote_k_check_numel(s);
}
