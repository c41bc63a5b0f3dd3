/*
 * npz.h - .npz (numpy.savez: a zip archive of .npy members) reader and writer for mote-run.
 *
 * Reading: stored (uncompressed) members only, with or without ZIP64 extra fields
 * (numpy writes every member with force_zip64); sizes, offsets and the CRC-32 of
 * each member are checked against the file. A deflated member is an error naming
 * numpy.savez_compressed. Writing: a stored zip of .npy members, readable by np.load.
 * Host tool code (stdio); not part of libmote.
 */
#ifndef MOTE_NPZ_H
#define MOTE_NPZ_H

#include <stddef.h>
#include <stdint.h>

#include "npy.h"

#define MOTE_NPZ_MAX_MEMBERS 64
#define MOTE_NPZ_MAX_NAME 128

typedef struct mote_npz_member {
    char name[MOTE_NPZ_MAX_NAME]; /* member name without the ".npy" suffix */
    mote_npy_t npy;               /* parsed member; data points into the archive buffer */
} mote_npz_member_t;

/*
 * Parses the .npz held in buf into members[0..*count-1], ordered arr_0, arr_1, ...
 * when every member is named arr_<n> (numpy.savez's positional arrays), else in
 * the archive's member order. Returns 0, or -1 with a message in err.
 */
int mote_npz_parse(const uint8_t *buf, size_t size, mote_npz_member_t *members, uint32_t max,
                   uint32_t *count, const char **err);

/* True when buf starts like a zip archive (local file header or empty-archive end record). */
int mote_npz_is_zip(const uint8_t *buf, size_t size);

/* A .npz being written: members are appended, then mote_npz_close writes the directory. */
typedef struct mote_npz_writer {
    void *file; /* FILE * */
    uint32_t count;
    uint32_t offset;
    int failed;
    struct {
        char name[MOTE_NPZ_MAX_NAME + 4];
        uint32_t crc, size, offset;
    } entry[MOTE_NPZ_MAX_MEMBERS];
} mote_npz_writer_t;

int mote_npz_open(mote_npz_writer_t *w, const char *path);
/* Appends member `name`.npy holding the array. Returns 0 or -1. */
int mote_npz_add(mote_npz_writer_t *w, const char *name, uint8_t dtype, const int32_t *sizes, uint32_t dim,
                 const void *data, size_t nbytes);
/* Writes the central directory and closes the file. Returns 0 or -1 (also after an earlier failure). */
int mote_npz_close(mote_npz_writer_t *w);

#endif
