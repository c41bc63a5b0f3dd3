/* npy.h - minimal .npy (format 1.0/2.0, little-endian, C order) reader and writer for mote-run. */
#ifndef MOTE_NPY_H
#define MOTE_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "mote/types.h"

#define MOTE_NPY_MAX_DIM 16

typedef struct mote_npy {
    uint8_t dtype;                  /* mote_dtype_t */
    uint32_t dim;
    int64_t shape[MOTE_NPY_MAX_DIM];
    const uint8_t *data;            /* inside the file buffer */
    size_t nbytes;
} mote_npy_t;

/* Parses a .npy file held in buf. Returns 0, or -1 with a message in err. */
int mote_npy_parse(const uint8_t *buf, size_t size, mote_npy_t *out, const char **err);

#define MOTE_NPY_MAX_HEADER 576 /* bytes of a v1.0 header mote_npy_header writes, at most */

/* Builds the v1.0 header (magic, length, dict padded to 64 bytes) of an array in buf.
 * Returns 0 with its length in *len, or -1. */
int mote_npy_header(uint8_t *buf, size_t cap, uint8_t dtype, const int32_t *sizes, uint32_t dim, size_t *len);

/* Writes a .npy v1.0 file. Returns 0 or -1. */
int mote_npy_write(const char *path, uint8_t dtype, const int32_t *sizes, uint32_t dim, const void *data,
                   size_t nbytes);

#endif
