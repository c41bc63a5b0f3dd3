/* program.c - .pte loader: headers (and the format version stamp), Program root, segments, constants. */
#include "program_internal.h"

#define MOTE_EH_OFFSET 8u       /* file offset of the "eh00" header */
#define MOTE_EH_MIN_LEN 24u     /* magic, length, program_size, segment_base_offset */
#define MOTE_EH_FULL_LEN 32u    /* + segment_data_size */
#define MOTE_EH_STAMP_LEN 40u   /* + "MOTE", u32 format version (mote/program.h) */
#define MOTE_EH_STAMP_MAGIC "MOTE"

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

/* The format version stamp of an eh00 header of `len` bytes at `h` (0: none). */
static mote_err_t program_stamp(const uint8_t *h, uint32_t len, uint32_t *version)
{
    *version = 0;
    if (len < MOTE_EH_STAMP_LEN || !bytes_eq(h + MOTE_EH_FULL_LEN, MOTE_EH_STAMP_MAGIC, 4u)) {
        return MOTE_OK; /* unstamped: ExecuTorch's own file */
    }
    *version = rd32(h + MOTE_EH_FULL_LEN + 4u);
    MOTE_CHECK(*version != 0u, MOTE_ERR_BAD_HEADER);
    MOTE_CHECK(*version <= (uint32_t)MOTE_PTE_FORMAT_VERSION, MOTE_ERR_FORMAT_VERSION);
    return MOTE_OK;
}

/* Reads the eh00 header (if any) into prog: format version, fb_size, segment range. */
static mote_err_t program_header(mote_program_t *prog)
{
    const uint8_t *d = prog->data;
    size_t size = prog->size;
    uint32_t len;
    uint64_t psize, base, dsize;

    prog->segment_base = 0;
    prog->segment_end = 0;
    prog->format_version = 0;
    MOTE_CHECK(size <= (size_t)MOTE_MAX_BYTES, MOTE_ERR_UNSUPPORTED);
    if (size < MOTE_EH_OFFSET + 4u || !bytes_eq(d + MOTE_EH_OFFSET, "eh00", 4u)) {
        prog->fb_size = (uint32_t)size;
        return MOTE_OK;
    }
    MOTE_CHECK(size >= MOTE_EH_OFFSET + MOTE_EH_MIN_LEN, MOTE_ERR_TRUNCATED);
    len = rd32(d + MOTE_EH_OFFSET + 4u);
    MOTE_CHECK(len >= MOTE_EH_MIN_LEN && len <= MOTE_MAX_HEADER_BYTES, MOTE_ERR_BAD_HEADER);
    MOTE_CHECK(MOTE_EH_OFFSET + len <= size, MOTE_ERR_TRUNCATED);
    /* the version first: a newer format may give the other fields new meanings */
    MOTE_TRY(program_stamp(d + MOTE_EH_OFFSET, len, &prog->format_version));
    psize = rd64(d + MOTE_EH_OFFSET + 8u);
    base = rd64(d + MOTE_EH_OFFSET + 16u);
    dsize = len >= MOTE_EH_FULL_LEN ? rd64(d + MOTE_EH_OFFSET + 24u) : 0u;
    MOTE_CHECK(psize >= MOTE_EH_OFFSET + len && psize <= (uint64_t)MOTE_MAX_BYTES, MOTE_ERR_BAD_HEADER);
    MOTE_CHECK(psize <= size, MOTE_ERR_TRUNCATED);
    if (base != 0u) {
        MOTE_CHECK(base >= psize, MOTE_ERR_BAD_HEADER);
        MOTE_CHECK(base <= size && dsize <= size - base, MOTE_ERR_TRUNCATED);
        prog->segment_base = base;
        prog->segment_end = len >= MOTE_EH_FULL_LEN ? base + dsize : (uint64_t)size;
    } else {
        MOTE_CHECK(dsize == 0u, MOTE_ERR_BAD_HEADER);
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

    v.pos = prog->segments_pos;
    v.len = prog->num_segments;
    MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
    MOTE_TRY(mote_fb_scalar(&fb, &t, MOTE_F_SEGMENT_OFFSET, 8u, 0u, &off));
    MOTE_TRY(mote_fb_scalar(&fb, &t, MOTE_F_SEGMENT_SIZE, 8u, 0u, &sz));
    if (sz == 0u) { /* an empty segment is valid anywhere, even with no segment data */
        *start = 0;
        *size = 0;
        return MOTE_OK;
    }
    MOTE_CHECK(prog->segment_base != 0u && off <= prog->segment_end - prog->segment_base &&
                   sz <= prog->segment_end - prog->segment_base - off,
               MOTE_ERR_BAD_SEGMENT);
    *start = prog->segment_base + off;
    *size = sz;
    return MOTE_OK;
}

/* The constant segment (Program.constant_segment), if it has offsets. */
static mote_err_t program_constant_segment(mote_program_t *prog, const mote_fb_t *fb, const mote_fb_table_t *root)
{
    mote_fb_table_t t;
    mote_fb_vec_t v;
    uint64_t start, sz, segidx;
    bool present;

    prog->num_const_offsets = 0;
    prog->const_seg = NULL;
    prog->const_seg_size = 0;
    MOTE_TRY(mote_fb_table_field(fb, root, MOTE_F_PROGRAM_CONST_SEGMENT, &t, &present));
    if (!present) {
        return MOTE_OK;
    }
    MOTE_TRY(mote_fb_scalar(fb, &t, MOTE_F_SUBSEG_INDEX, 4u, 0u, &segidx));
    MOTE_TRY(mote_fb_vec_field(fb, &t, MOTE_F_SUBSEG_OFFSETS, 8u, &v));
    if (v.len == 0u) {
        return MOTE_OK;
    }
    MOTE_CHECK(prog->num_const_buffers == 0u, MOTE_ERR_BAD_SEGMENT); /* both constant stores in use */
    MOTE_CHECK(segidx < prog->num_segments, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(program_segment(prog, (uint32_t)segidx, &start, &sz));
    prog->const_offsets_pos = v.pos;
    prog->num_const_offsets = v.len;
    prog->const_seg = prog->data + start;
    prog->const_seg_size = sz;
    return MOTE_OK;
}

/* The segment and offsets of mutable_data_segments entry `i`. */
static mote_err_t program_mutable_segment(const mote_program_t *prog, uint32_t i, uint64_t *start, uint64_t *size,
                                          mote_fb_vec_t *offsets)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_vec_t v;
    mote_fb_table_t t;
    uint64_t segidx;

    v.pos = prog->mutable_segs_pos;
    v.len = prog->num_mutable_segs;
    MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
    MOTE_TRY(mote_fb_scalar(&fb, &t, MOTE_F_SUBSEG_INDEX, 4u, 0u, &segidx));
    MOTE_TRY(mote_fb_vec_field(&fb, &t, MOTE_F_SUBSEG_OFFSETS, 8u, offsets));
    MOTE_CHECK(segidx < prog->num_segments, MOTE_ERR_BAD_INDEX);
    return program_segment(prog, (uint32_t)segidx, start, size);
}

/* Program.mutable_data_segments: every entry names a segment. */
static mote_err_t program_mutable_segments(mote_program_t *prog, const mote_fb_t *fb, const mote_fb_table_t *root)
{
    mote_fb_vec_t v, offsets;
    uint64_t start, sz;
    uint32_t i;

    MOTE_TRY(mote_fb_vec_field(fb, root, MOTE_F_PROGRAM_MUTABLE_SEGMENTS, 4u, &v));
    prog->mutable_segs_pos = v.pos;
    prog->num_mutable_segs = v.len;
    MOTE_CHECK(MOTE_RUNTIME_MUTABLE || v.len == 0u, MOTE_ERR_UNSUPPORTED); /* built without (mote/config.h) */
    for (i = 0; i < v.len; i++) {
        MOTE_TRY(program_mutable_segment(prog, i, &start, &sz, &offsets));
    }
    return MOTE_OK;
}

static mote_err_t program_tables(mote_program_t *prog)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_table_t root, t;
    mote_fb_vec_t v, storage;
    uint32_t i;
    uint64_t start, sz;

    MOTE_TRY(mote_fb_root(&fb, &root));
    prog->root = root.pos;
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_PLANS, 4u, &v));
    MOTE_CHECK(v.len != 0u, MOTE_ERR_UNSUPPORTED);
    prog->plans_pos = v.pos;
    prog->num_plans = v.len;
    for (i = 0; i < v.len; i++) {
        MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
    }
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_SEGMENTS, 4u, &v));
    prog->segments_pos = v.pos;
    prog->num_segments = v.len;
    for (i = 0; i < v.len; i++) {
        MOTE_TRY(program_segment(prog, i, &start, &sz));
    }
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_CONST_BUFFER, 4u, &v));
    prog->const_buffers_pos = v.pos;
    prog->num_const_buffers = v.len;
    for (i = 0; i < v.len; i++) {
        MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
        MOTE_TRY(mote_fb_vec_field(&fb, &t, MOTE_F_BUFFER_STORAGE, 1u, &storage));
    }
    MOTE_TRY(program_mutable_segments(prog, &fb, &root));
    return program_constant_segment(prog, &fb, &root);
}

mote_err_t mote_program_load(mote_program_t *prog, const void *data, size_t size)
{
    MOTE_CHECK(prog != NULL, MOTE_ERR_INVALID_ARGUMENT);
    prog->magic = 0;
    MOTE_CHECK(data != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(((uintptr_t)data & (MOTE_PROGRAM_ALIGN - 1u)) == 0u, MOTE_ERR_MEMORY_ALIGNMENT);
    prog->data = (const uint8_t *)data;
    prog->size = size;
    MOTE_CHECK(size >= 8u, MOTE_ERR_TRUNCATED);
    MOTE_CHECK(bytes_eq(prog->data + 4, "ET12", 4u), MOTE_ERR_BAD_IDENTIFIER);
    prog->data_map = NULL;
    prog->named_index = NULL;
    prog->num_named_index = 0;
    MOTE_TRY(program_header(prog));
    MOTE_TRY(program_tables(prog));
    prog->magic = MOTE_PROGRAM_MAGIC;
    return MOTE_OK;
}

mote_err_t mote_program_set_data_map(mote_program_t *prog, const mote_data_map_t *map)
{
    MOTE_CHECK(prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(map == NULL || map->magic == MOTE_DATA_MAP_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    prog->data_map = map;
    return MOTE_OK;
}

uint32_t mote_program_method_count(const mote_program_t *prog)
{
    return (prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC) ? prog->num_plans : 0u;
}

uint32_t mote_program_format_version(const mote_program_t *prog)
{
    return (prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC) ? prog->format_version : 0u;
}

mote_err_t mote_program_plan(const mote_program_t *prog, uint32_t index, mote_fb_table_t *out)
{
    mote_fb_t fb;
    mote_fb_vec_t v;

    MOTE_CHECK(prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(index < prog->num_plans, MOTE_ERR_NO_SUCH_METHOD);
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

    MOTE_TRY(mote_program_plan(prog, index, &t));
    MOTE_CHECK(name != NULL, MOTE_ERR_INVALID_ARGUMENT);
    fb = mote_program_fb(prog);
    MOTE_TRY(mote_fb_string_field(&fb, &t, MOTE_F_PLAN_NAME, name, &len));
    if (*name == NULL) {
        *name = "";
    }
    return MOTE_OK;
}

mote_err_t mote_program_method_index(const mote_program_t *prog, const char *name, uint32_t *index)
{
    uint32_t i, k;
    const char *s;

    MOTE_CHECK(prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(name != NULL && index != NULL, MOTE_ERR_INVALID_ARGUMENT);
    for (i = 0; i < prog->num_plans; i++) {
        MOTE_TRY(mote_program_method_name(prog, i, &s));
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

    MOTE_TRY(mote_program_plan(prog, method_index, &plan));
    MOTE_CHECK(name != NULL && overload != NULL, MOTE_ERR_INVALID_ARGUMENT);
    fb = mote_program_fb(prog);
    MOTE_TRY(mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_OPERATORS, 4u, &v));
    MOTE_TRY(mote_fb_vec_table(&fb, &v, op_index, &op));
    MOTE_TRY(mote_fb_string_field(&fb, &op, MOTE_F_OPERATOR_NAME, name, &len));
    MOTE_TRY(mote_fb_string_field(&fb, &op, MOTE_F_OPERATOR_OVERLOAD, overload, &len));
    *name = *name != NULL ? *name : "";
    *overload = *overload != NULL ? *overload : "";
    return MOTE_OK;
}

mote_err_t mote_program_constant(const mote_program_t *prog, uint32_t idx, uint32_t nbytes, uint32_t align,
                                 const uint8_t **data)
{
    mote_fb_t fb = mote_program_fb(prog);
    const uint8_t *p;

    if (prog->num_const_buffers != 0u) {
        mote_fb_vec_t v, storage;
        mote_fb_table_t t;
        v.pos = prog->const_buffers_pos;
        v.len = prog->num_const_buffers;
        MOTE_TRY(mote_fb_vec_table(&fb, &v, idx, &t));
        MOTE_TRY(mote_fb_vec_field(&fb, &t, MOTE_F_BUFFER_STORAGE, 1u, &storage));
        MOTE_CHECK(nbytes <= storage.len, MOTE_ERR_DATA_TOO_SHORT);
        p = prog->data + storage.pos;
    } else {
        uint64_t off;
        MOTE_CHECK(idx < prog->num_const_offsets, MOTE_ERR_BAD_INDEX);
        off = mote_fb_u64_at(&fb, prog->const_offsets_pos + 8u * idx);
        MOTE_CHECK(off <= prog->const_seg_size && nbytes <= prog->const_seg_size - off, MOTE_ERR_DATA_TOO_SHORT);
        p = prog->const_seg + off;
    }
    MOTE_CHECK(((uintptr_t)p & (align - 1u)) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    *data = p;
    return MOTE_OK;
}

mote_err_t mote_program_mutable_data(const mote_program_t *prog, uint32_t seg, uint32_t idx, uint32_t nbytes,
                                     const uint8_t **data)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_vec_t offsets;
    uint64_t start, size, off;

    MOTE_CHECK(seg < prog->num_mutable_segs, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(program_mutable_segment(prog, seg, &start, &size, &offsets));
    MOTE_CHECK(idx < offsets.len, MOTE_ERR_BAD_INDEX);
    off = mote_fb_u64_at(&fb, offsets.pos + 8u * idx);
    MOTE_CHECK(off <= size && nbytes <= size - off, MOTE_ERR_DATA_TOO_SHORT);
    *data = prog->data + start + off;
    return MOTE_OK;
}

bool mote_program_contains(const mote_program_t *prog, const void *p)
{
    const uintptr_t a = (uintptr_t)p, lo = (uintptr_t)prog->data;
    return p != NULL && a >= lo && a - lo < prog->size;
}

mote_err_t mote_program_delegate(const mote_program_t *prog, const mote_fb_table_t *plan, uint32_t index,
                                 const char **id, const uint8_t **payload, size_t *size)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_table_t d, ref, root, inl;
    mote_fb_vec_t v, data;
    uint64_t loc, idx, start, sz;
    uint32_t len;
    bool present;

    MOTE_TRY(mote_fb_vec_field(&fb, plan, MOTE_F_PLAN_DELEGATES, 4u, &v));
    MOTE_CHECK(index < v.len, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(mote_fb_vec_table(&fb, &v, index, &d));
    MOTE_TRY(mote_fb_string_field(&fb, &d, MOTE_F_DELEGATE_ID, id, &len));
    MOTE_CHECK(*id != NULL, MOTE_ERR_BAD_INSTRUCTION);
    MOTE_TRY(mote_fb_table_field(&fb, &d, MOTE_F_DELEGATE_PROCESSED, &ref, &present));
    MOTE_CHECK(present, MOTE_ERR_BAD_INSTRUCTION);
    MOTE_TRY(mote_fb_scalar(&fb, &ref, MOTE_F_DATAREF_LOCATION, 1u, 0u, &loc));
    MOTE_TRY(mote_fb_scalar(&fb, &ref, MOTE_F_DATAREF_INDEX, 4u, 0u, &idx));
    if (loc == MOTE_DATA_SEGMENT) {
        MOTE_CHECK(idx < prog->num_segments, MOTE_ERR_BAD_INDEX);
        MOTE_TRY(program_segment(prog, (uint32_t)idx, &start, &sz));
        *payload = prog->data + start;
        *size = (size_t)sz;
        return MOTE_OK;
    }
    MOTE_CHECK(loc == MOTE_DATA_INLINE, MOTE_ERR_BAD_INSTRUCTION);
    MOTE_TRY(mote_fb_root(&fb, &root));
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_DELEGATE_DATA, 4u, &v));
    MOTE_CHECK(idx < v.len, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(mote_fb_vec_table(&fb, &v, (uint32_t)idx, &inl));
    MOTE_TRY(mote_fb_vec_field(&fb, &inl, 0, 1u, &data));
    *payload = fb.buf + data.pos;
    *size = data.len;
    return MOTE_OK;
}

/* Program.named_data entry `i` (a mote_key_fn_t over the program): its table and key. */
static mote_err_t program_named_entry(const mote_program_t *prog, uint32_t i, mote_fb_table_t *nd, const char **key,
                                      uint32_t *key_len)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_table_t root;
    mote_fb_vec_t v;

    MOTE_TRY(mote_fb_root(&fb, &root));
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_NAMED_DATA, 4u, &v));
    MOTE_TRY(mote_fb_vec_table(&fb, &v, i, nd));
    return mote_fb_string_field(&fb, nd, MOTE_F_NAMED_DATA_KEY, key, key_len); /* absent: NULL, never found */
}

static mote_err_t program_named_key(const void *ctx, uint32_t i, const char **key, uint32_t *key_len)
{
    mote_fb_table_t nd;
    return program_named_entry((const mote_program_t *)ctx, i, &nd, key, key_len);
}

/* Number of Program.named_data entries. */
static mote_err_t program_named_count(const mote_program_t *prog, uint32_t *n)
{
    mote_fb_t fb = mote_program_fb(prog);
    mote_fb_table_t root;
    mote_fb_vec_t v;

    MOTE_TRY(mote_fb_root(&fb, &root));
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_PROGRAM_NAMED_DATA, 4u, &v));
    *n = v.len;
    return MOTE_OK;
}

size_t mote_program_named_index_size(const mote_program_t *prog)
{
    uint32_t n = 0;
    if (prog == NULL || prog->magic != MOTE_PROGRAM_MAGIC || program_named_count(prog, &n) != MOTE_OK) {
        return 0u;
    }
    return (size_t)n * sizeof(uint32_t);
}

mote_err_t mote_program_set_named_index(mote_program_t *prog, uint32_t *index, size_t size)
{
    uint32_t n;

    MOTE_CHECK(prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    prog->named_index = NULL;
    MOTE_TRY(program_named_count(prog, &n));
    if (n == 0u) {
        return MOTE_OK;
    }
    MOTE_CHECK(index != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(((uintptr_t)index & (sizeof(uint32_t) - 1u)) == 0u, MOTE_ERR_MEMORY_ALIGNMENT);
    MOTE_CHECK(size / sizeof(uint32_t) >= n, MOTE_ERR_MEMORY_TOO_SMALL);
    MOTE_TRY(mote_key_index_sort(program_named_key, prog, index, n));
    prog->named_index = index;
    prog->num_named_index = n;
    return MOTE_OK;
}

/* The Program.named_data entry of `key`: the first in the file. *found = false when there is none. */
static mote_err_t program_named_find(const mote_program_t *prog, const char *key, uint32_t key_len,
                                     mote_fb_table_t *nd, bool *found)
{
    const char *k;
    uint32_t i, n, len;
    mote_err_t err;

    *found = false;
    if (prog->named_index != NULL) {
        err = mote_key_index_find(program_named_key, prog, prog->named_index, prog->num_named_index, key, key_len,
                                  &i, NULL);
        if (err == MOTE_ERR_EXTERNAL_MISSING) {
            return MOTE_OK;
        }
        MOTE_TRY(err);
        MOTE_TRY(program_named_entry(prog, i, nd, &k, &len));
        *found = true;
        return MOTE_OK;
    }
    MOTE_TRY(program_named_count(prog, &n));
    for (i = 0; i < n; i++) { /* no index: a scan */
        MOTE_TRY(program_named_entry(prog, i, nd, &k, &len));
        if (k != NULL && mote_key_cmp(key, key_len, k, len) == 0) {
            *found = true;
            return MOTE_OK;
        }
    }
    return MOTE_OK;
}

mote_err_t mote_program_named_data(const mote_program_t *prog, const char *key, uint32_t key_len,
                                   const uint8_t **data, size_t *size)
{
    mote_fb_t fb;
    mote_fb_table_t nd;
    mote_data_entry_t e;
    uint64_t seg, start, sz;
    bool found;

    MOTE_CHECK(prog != NULL && prog->magic == MOTE_PROGRAM_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(key != NULL && data != NULL && size != NULL, MOTE_ERR_INVALID_ARGUMENT);
    fb = mote_program_fb(prog);
    MOTE_TRY(program_named_find(prog, key, key_len, &nd, &found));
    if (found) {
        MOTE_TRY(mote_fb_scalar(&fb, &nd, MOTE_F_NAMED_DATA_SEGMENT, 4u, 0u, &seg));
        MOTE_CHECK(seg < prog->num_segments, MOTE_ERR_BAD_INDEX);
        MOTE_TRY(program_segment(prog, (uint32_t)seg, &start, &sz));
        *data = prog->data + start;
        *size = (size_t)sz;
        return MOTE_OK;
    }
    MOTE_TRY(mote_data_map_find(prog->data_map, key, key_len, &e)); /* then the attached .ptd */
    *data = e.data;
    *size = (size_t)e.nbytes;
    return MOTE_OK;
}
