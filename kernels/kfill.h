/*
 * kernels/kfill.h - a Scalar converted to one element of a dtype. Internal.
 */
#ifndef MOTE_KFILL_H
#define MOTE_KFILL_H

#include <string.h>

#include "kutil.h"

/** Store `v` as one element of `dtype` into buf (8 bytes); KERNEL_DTYPE if unsupported. */
static inline mote_err_t mote_k_fill_elem(uint8_t dtype, double v, uint8_t *buf)
{
    switch (dtype) {
    case MOTE_DTYPE_FLOAT32: { float x = (float)v; memcpy(buf, &x, 4); return MOTE_OK; }
    case MOTE_DTYPE_FLOAT64: memcpy(buf, &v, 8); return MOTE_OK;
    case MOTE_DTYPE_INT32: { int32_t x = (int32_t)v; memcpy(buf, &x, 4); return MOTE_OK; }
    case MOTE_DTYPE_INT64: { int64_t x = (int64_t)v; memcpy(buf, &x, 8); return MOTE_OK; }
    case MOTE_DTYPE_INT16: { int16_t x = (int16_t)v; memcpy(buf, &x, 2); return MOTE_OK; }
    case MOTE_DTYPE_INT8: { int8_t x = (int8_t)v; memcpy(buf, &x, 1); return MOTE_OK; }
    case MOTE_DTYPE_UINT8: { uint8_t x = (uint8_t)v; memcpy(buf, &x, 1); return MOTE_OK; }
    case MOTE_DTYPE_BOOL: buf[0] = v != 0.0 ? 1u : 0u; return MOTE_OK;
    default: return MOTE_ERR_KERNEL_DTYPE;
    }
}

/** Fill n elements of esz bytes at dst with the element in buf. */
static inline void mote_k_fill(uint8_t *dst, const uint8_t *elem, size_t esz, size_t n)
{
    size_t i;
    if (esz == 4) {
        float f;
        memcpy(&f, elem, 4);
        {
            uint32_t u;
            memcpy(&u, elem, 4);
            if (u == 0) {
                if (n > 0) { /* an empty tensor may have no storage (NULL) */
                    memset(dst, 0, n * 4);
                }
                return;
            }
        }
        for (i = 0; i < n; i++) {
            memcpy(dst + i * 4, &f, 4);
        }
        return;
    }
    for (i = 0; i < n; i++) {
        memcpy(dst + i * esz, elem, esz);
    }
}

#endif /* MOTE_KFILL_H */
