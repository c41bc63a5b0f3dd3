/* program.c - .pte loader: headers, Program root, segments, constants. */
#include "program_internal.h"

#define MOTE_EH_OFFSET 8u
#define MOTE_EH_MIN_LEN 24u
#define MOTE_EH_FULL_LEN 32u

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

static bool bytes_eq(const uint8_t *p, const char *s, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        if (p[i] != (uint8_t)s[i]) {
            return false;
        }
    }
    return true;
}

/* Reads the eh00 header (if any) into prog: fb_size, segment range. */
static mote_err_t program_header(mote_program_t *prog)
{
    const uint8_t *d = prog->data;
    size_t size = prog->size;
    uint32_t len;
    uint64_t psize, base, dsize;

    prog->segment_base = 0;
    prog->segment_end = 0;
    if (size < MOTE_EH_OFFSET + 4u || !bytes_eq(d + MOTE_EH_OFFSET, "eh00", 4u)) {
        if (size > 0x7fffffffu) {
            return MOTE_ERR_UNSUPPORTED;
        }
        prog->fb_size = (uint32_t)size;
        return MOTE_OK;
    }
    if (size < MOTE_EH_OFFSET + MOTE_EH_MIN_LEN) {
        return MOTE_ERR_TRUNCATED;
    }
    len = rd32(d + MOTE_EH_OFFSET + 4u);
    if (len < MOTE_EH_MIN_LEN || len > 256u) {
        return MOTE_ERR_BAD_HEADER;
    }
    if (MOTE_EH_OFFSET + len > size) {
        return MOTE_ERR_TRUNCATED;
    }
    psize = rd64(d + MOTE_EH_OFFSET + 8u);
    base = rd64(d + MOTE_EH_OFFSET + 16u);
    dsize = len >= MOTE_EH_FULL_LEN ? rd64(d + MOTE_EH_OFFSET + 24u) : 0u;
    if (psize < MOTE_EH_OFFSET + len || psize > 0x7fffffffu) {
        return MOTE_ERR_BAD_HEADER;
    }
    if (psize > size) {
        return MOTE_ERR_TRUNCATED;
    }
    if (base != 0u) {
        if (base < psize) {
            return MOTE_ERR_BAD_HEADER;
        }
        if (base > size || dsize > size - base) {
            return MOTE_ERR_TRUNCATED;
        }
        prog->segment_base = base;
        prog->segment_end = len >= MOTE_EH_FULL_LEN ? base + dsize : (uint64_t)size;
    } else if (dsize != 0u) {
        return MOTE_ERR_BAD_HEADER;
    }
    prog->fb_size = (uint32_t)psize;
    return MOTE_OK;
}

/* Segment `i`: absolute start and size, verified inside the segment data. */
static mote_err_t program_segment(const mote_program_t *prog, uint32_t i, uint64_t *start, uint64_t *size)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_vec_t v;
    mote_fb_table_t t;
    uint64_t off, sz;
    mote_err_t err;

    v.pos = prog->segments_pos;
    v.len = prog->num_segments;
    err = mote_fb_vec_table(&fb, &v, i, &t);
    if (err == MOTE_OK) {
        err = mote_fb_scalar(&fb, &t, MOTE_F_SEGMENT_OFFSET, 8u, 0u, &off);
    }
    if (err == MOTE_OK) {
        err = mote_fb_scalar(&fb, &t, MOTE_F_SEGMENT_SIZE, 8u, 0u, &sz);
    }
    if (err != MOTE_OK) {
        return err;
    }
    if (sz == 0u) { /* an empty segment is valid anywhere, even with no segment data */
        *start = 0;
        *size = 0;
        return MOTE_OK;
    }
    if (prog->segment_base == 0u || off > prog->segment_end - prog->segment_base ||
        sz > prog->segment_end - prog->segment_base - off) {
        return MOTE_ERR_BAD_SEGMENT;
    }
    *start = prog->segment_base + off;
    *size = sz;
    return MOTE_OK;
}

static mote_err_t program_tables(mote_program_t *prog)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_table_t root, t;
    mote_fb_vec_t v;
    uint32_t i;
    uint64_t start, sz, segidx;
    bool present;
    mote_err_t err;

    err = mote_fb_root(&fb, &root);
    if (err != MOTE_OK) {
        return err;
    }
    prog->root = root.pos;
    err = mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_PLANS, 4u, &v);
    if (err != MOTE_OK) {
        return err;
    }
    if (v.len == 0u) {
        return MOTE_ERR_UNSUPPORTED;
    }
    prog->plans_pos = v.pos;
    prog->num_plans = v.len;
    for (i = 0; i < v.len; i++) {
        err = mote_fb_vec_table(&fb, &v, i, &t);
        if (err != MOTE_OK) {
            return err;
        }
    }
    err = mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_SEGMENTS, 4u, &v);
    if (err != MOTE_OK) {
        return err;
    }
    prog->segments_pos = v.pos;
    prog->num_segments = v.len;
    for (i = 0; i < v.len; i++) {
        err = program_segment(prog, i, &start, &sz);
        if (err != MOTE_OK) {
            return err;
        }
    }
    err = mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_CONST_BUFFER, 4u, &v);
    if (err != MOTE_OK) {
        return err;
    }
    prog->const_buffers_pos = v.pos;
    prog->num_const_buffers = v.len;
    for (i = 0; i < v.len; i++) {
        mote_fb_vec_t storage;
        err = mote_fb_vec_table(&fb, &v, i, &t);
        if (err == MOTE_OK) {
            err = mote_fb_vec_field(&fb, &t, MOTE_F_BUFFER_STORAGE, 1u, &storage);
        }
        if (err != MOTE_OK) {
            return err;
        }
    }
    prog->num_const_offsets = 0;
    prog->const_seg = NULL;
    prog->const_seg_size = 0;
    err = mote_fb_table_field(&fb, &root, MOTE_F_PROGRAM_CONST_SEGMENT, &t, &present);
    if (err != MOTE_OK || !present) {
        return err;
    }
    err = mote_fb_scalar(&fb, &t, MOTE_F_SUBSEG_INDEX, 4u, 0u, &segidx);
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(&fb, &t, MOTE_F_SUBSEG_OFFSETS, 8u, &v);
    }
    if (err != MOTE_OK || v.len == 0u) {
        return err;
    }
    if (prog->num_const_buffers != 0u) {
        return MOTE_ERR_BAD_SEGMENT; /* both constant stores in use */
    }
    if (segidx >= prog->num_segments) {
        return MOTE_ERR_BAD_INDEX;
    }
    err = program_segment(prog, (uint32_t)segidx, &start, &sz);
    if (err != MOTE_OK) {
        return err;
    }
    prog->const_offsets_pos = v.pos;
    prog->num_const_offsets = v.len;
    prog->const_seg = prog->data + start;
    prog->const_seg_size = sz;
    return MOTE_OK;
}

mote_err_t mote_program_load(mote_program_t *prog, const void *data, size_t size)
{
    mote_err_t err;

    if (prog == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    prog->magic = 0;
    if (data == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    if (((uintptr_t)data & (MOTE_PROGRAM_ALIGN - 1u)) != 0u) {
        return MOTE_ERR_MEMORY_ALIGNMENT;
    }
    prog->data = (const uint8_t *)data;
    prog->size = size;
    if (size < 8u) {
        return MOTE_ERR_TRUNCATED;
    }
    if (!bytes_eq(prog->data + 4, "ET12", 4u)) {
        return MOTE_ERR_BAD_IDENTIFIER;
    }
    err = program_header(prog);
    if (err == MOTE_OK) {
        err = program_tables(prog);
    }
    if (err == MOTE_OK) {
        prog->magic = MOTE_PROGRAM_MAGIC;
    }
    return err;
}

uint32_t mote_program_method_count(const mote_program_t *prog)
{
    return (prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC) ? prog->num_plans : 0u;
}

mote_err_t mote_program_plan(const mote_program_t *prog, uint32_t index, mote_fb_table_t *out)
{
    mote_fb_t fb;
    mote_fb_vec_t v;

    if (prog == NULL || prog->magic != MOTE_PROGRAM_MAGIC) {
        return MOTE_ERR_NOT_INITIALIZED;
    }
    if (index >= prog->num_plans) {
        return MOTE_ERR_NO_SUCH_METHOD;
    }
    fb = mote_program_fb(prog);
    v.pos = prog->plans_pos;
    v.len = prog->num_plans;
    return mote_fb_vec_table(&fb, &v, index, out);
}

mote_err_t mote_program_method_name(const mote_program_t *prog, uint32_t index, const char **name)
{
    mote_fb_table_t t;
    mote_fb_t fb;
    uint32_t len;
    mote_err_t err = mote_program_plan(prog, index, &t);

    if (err != MOTE_OK) {
        return err;
    }
    if (name == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    fb = mote_program_fb(prog);
    err = mote_fb_string_field(&fb, &t, MOTE_F_PLAN_NAME, name, &len);
    if (err == MOTE_OK && *name == NULL) {
        *name = "";
    }
    return err;
}

mote_err_t mote_program_method_index(const mote_program_t *prog, const char *name, uint32_t *index)
{
    uint32_t i, k;
    const char *s;
    mote_err_t err;

    if (prog == NULL || prog->magic != MOTE_PROGRAM_MAGIC) {
        return MOTE_ERR_NOT_INITIALIZED;
    }
    if (name == NULL || index == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    for (i = 0; i < prog->num_plans; i++) {
        err = mote_program_method_name(prog, i, &s);
        if (err != MOTE_OK) {
            return err;
        }
        for (k = 0; s[k] != '\0' && s[k] == name[k]; k++) {
        }
        if (s[k] == name[k]) {
            *index = i;
            return MOTE_OK;
        }
    }
    return MOTE_ERR_NO_SUCH_METHOD;
}

mote_err_t mote_program_operator_name(const mote_program_t *prog, uint32_t method_index, uint32_t op_index,
                                      const char **name, const char **overload)
{
    mote_fb_table_t plan, op;
    mote_fb_vec_t v;
    mote_fb_t fb;
    uint32_t len;
    mote_err_t err = mote_program_plan(prog, method_index, &plan);

    if (err != MOTE_OK) {
        return err;
    }
    if (name == NULL || overload == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    fb = mote_program_fb(prog);
    err = mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_OPERATORS, 4u, &v);
    if (err == MOTE_OK) {
        err = mote_fb_vec_table(&fb, &v, op_index, &op);
    }
    if (err == MOTE_OK) {
        err = mote_fb_string_field(&fb, &op, MOTE_F_OPERATOR_NAME, name, &len);
    }
    if (err == MOTE_OK) {
        err = mote_fb_string_field(&fb, &op, MOTE_F_OPERATOR_OVERLOAD, overload, &len);
    }
    if (err == MOTE_OK) {
        *name = *name != NULL ? *name : "";
        *overload = *overload != NULL ? *overload : "";
    }
    return err;
}

mote_err_t mote_program_constant(const mote_program_t *prog, uint32_t idx, uint32_t nbytes, uint32_t align,
                                 const uint8_t **data)
{
    mote_fb_t fb = mote_program_fb(prog);
    const uint8_t *p;

    if (prog->num_const_buffers != 0u) {
        mote_fb_vec_t v, storage;
        mote_fb_table_t t;
        mote_err_t err;
        v.pos = prog->const_buffers_pos;
        v.len = prog->num_const_buffers;
        err = mote_fb_vec_table(&fb, &v, idx, &t);
        if (err == MOTE_OK) {
            err = mote_fb_vec_field(&fb, &t, MOTE_F_BUFFER_STORAGE, 1u, &storage);
        }
        if (err != MOTE_OK) {
            return err;
        }
        if (nbytes > storage.len) {
            return MOTE_ERR_DATA_TOO_SHORT;
        }
        p = prog->data + storage.pos;
    } else {
        uint64_t off;
        if (idx >= prog->num_const_offsets) {
            return MOTE_ERR_BAD_INDEX;
        }
        off = mote_fb_u64_at(&fb, prog->const_offsets_pos + 8u * idx);
        if (off > prog->const_seg_size || nbytes > prog->const_seg_size - off) {
            return MOTE_ERR_DATA_TOO_SHORT;
        }
        p = prog->const_seg + off;
    }
    if (((uintptr_t)p & (align - 1u)) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    *data = p;
    return MOTE_OK;
}
