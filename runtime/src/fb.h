/*
 * fb.h - internal: a verifying FlatBuffers reader (little-endian wire format).
 *
 * Every accessor checks the offsets, lengths and alignment it uses against
 * the buffer [buf, buf+size) and returns a specific mote_err_t; nothing is
 * read before it is checked. Positions are byte offsets from buf (uint32_t:
 * a flatbuffer is < 2 GiB). Scalars are assembled byte by byte, so no
 * unaligned access happens even on a misaligned field. No recursion.
 */
#ifndef MOTE_FB_H
#define MOTE_FB_H

#include "mote/types.h"

typedef struct mote_fb {
    const uint8_t *buf;
    uint32_t size; /* bytes */
} mote_fb_t;

/** A verified table: its position and its vtable's position and length. */
typedef struct mote_fb_table {
    uint32_t pos;    /* table start (the soffset to the vtable) */
    uint32_t vt;     /* vtable start */
    uint16_t vtsize; /* vtable length, bytes */
    uint16_t tsize;  /* table inline length, bytes */
} mote_fb_table_t;

/** A verified vector: position of element 0 and element count. */
typedef struct mote_fb_vec {
    uint32_t pos;
    uint32_t len;
} mote_fb_vec_t;

uint32_t mote_fb_u32_at(const mote_fb_t *fb, uint32_t pos);
uint64_t mote_fb_u64_at(const mote_fb_t *fb, uint32_t pos);

/** Root table of the buffer. Errors: TRUNCATED, BAD_OFFSET, BAD_ALIGNMENT, BAD_VTABLE. */
MOTE_NODISCARD mote_err_t mote_fb_root(const mote_fb_t *fb, mote_fb_table_t *out);

/** Verifies the table at `pos`. Errors as mote_fb_root. */
MOTE_NODISCARD mote_err_t mote_fb_table_at(const mote_fb_t *fb, uint32_t pos, mote_fb_table_t *out);

/**
 * Scalar field `id` of `width` bytes (1, 2, 4, 8), zero-extended into *out;
 * absent fields give `def`. Errors: BAD_VTABLE (field outside the table),
 * BAD_ALIGNMENT.
 */
MOTE_NODISCARD mote_err_t mote_fb_scalar(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                                         uint32_t width, uint64_t def, uint64_t *out);

/** Sub-table field; *present = false when absent. */
MOTE_NODISCARD mote_err_t mote_fb_table_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                                              mote_fb_table_t *out, bool *present);

/**
 * Vector field of `elem`-byte elements (absent = empty). Element data is
 * checked to be aligned to min(elem, 8). Errors: BAD_OFFSET, BAD_VECTOR,
 * BAD_ALIGNMENT, TRUNCATED.
 */
MOTE_NODISCARD mote_err_t mote_fb_vec_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                                            uint32_t elem, mote_fb_vec_t *out);

/** String field: NUL-terminated inside the buffer; absent = NULL/0. */
MOTE_NODISCARD mote_err_t mote_fb_string_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                                               const char **str, uint32_t *len);

/** Table element `i` of a vector of tables (offsets). */
MOTE_NODISCARD mote_err_t mote_fb_vec_table(const mote_fb_t *fb, const mote_fb_vec_t *v, uint32_t i,
                                            mote_fb_table_t *out);

/**
 * Union stored in fields (id, id+1): *type gets the tag (0 = NONE); when the
 * tag is non-zero the value table must be present (else BAD_UNION_TAG).
 * Tags above max_tag give BAD_UNION_TAG.
 */
MOTE_NODISCARD mote_err_t mote_fb_union_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                                              uint8_t max_tag, uint8_t *type, mote_fb_table_t *out);

#endif /* MOTE_FB_H */
