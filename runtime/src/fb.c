/* fb.c - verifying FlatBuffers reader; see fb.h. */
#include "fb.h"

static uint16_t fb_u16(const mote_fb_t *fb, uint32_t pos)
{
    return (uint16_t)(fb->buf[pos] | ((uint16_t)fb->buf[pos + 1] << 8));
}

uint32_t mote_fb_u32_at(const mote_fb_t *fb, uint32_t pos)
{
    const uint8_t *p = fb->buf + pos;
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

uint64_t mote_fb_u64_at(const mote_fb_t *fb, uint32_t pos)
{
    return (uint64_t)mote_fb_u32_at(fb, pos) | ((uint64_t)mote_fb_u32_at(fb, pos + 4u) << 32);
}

/* Is [pos, pos+n) inside the buffer? */
static bool fb_fits(const mote_fb_t *fb, uint32_t pos, uint32_t n)
{
    return pos <= fb->size && n <= fb->size - pos;
}

mote_err_t mote_fb_table_at(const mote_fb_t *fb, uint32_t pos, mote_fb_table_t *out)
{
    int32_t soff;
    int64_t vt;
    uint16_t vtsize, tsize;

    if ((pos & 3u) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    if (!fb_fits(fb, pos, 4u)) {
        return MOTE_ERR_BAD_OFFSET;
    }
    soff = (int32_t)mote_fb_u32_at(fb, pos);
    vt = (int64_t)pos - (int64_t)soff;
    if (vt < 0 || vt > (int64_t)fb->size - 4) {
        return MOTE_ERR_BAD_VTABLE;
    }
    if (((uint32_t)vt & 1u) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    vtsize = fb_u16(fb, (uint32_t)vt);
    tsize = fb_u16(fb, (uint32_t)vt + 2u);
    if (vtsize < 4u || (vtsize & 1u) != 0u || !fb_fits(fb, (uint32_t)vt, vtsize)) {
        return MOTE_ERR_BAD_VTABLE;
    }
    if (tsize < 4u || !fb_fits(fb, pos, tsize)) {
        return MOTE_ERR_BAD_VTABLE;
    }
    out->pos = pos;
    out->vt = (uint32_t)vt;
    out->vtsize = vtsize;
    out->tsize = tsize;
    return MOTE_OK;
}

mote_err_t mote_fb_root(const mote_fb_t *fb, mote_fb_table_t *out)
{
    if (fb->size < 8u) {
        return MOTE_ERR_TRUNCATED;
    }
    return mote_fb_table_at(fb, mote_fb_u32_at(fb, 0), out);
}

/* Position of field `id` (width bytes) or 0 when absent. */
static mote_err_t fb_field_pos(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint32_t width,
                               uint32_t *pos)
{
    uint32_t voff = 4u + 2u * id;
    uint16_t off;

    *pos = 0;
    if (voff + 2u > t->vtsize) {
        return MOTE_OK;
    }
    off = fb_u16(fb, t->vt + voff);
    if (off == 0u) {
        return MOTE_OK;
    }
    if (off < 4u || (uint32_t)off + width > t->tsize) {
        return MOTE_ERR_BAD_VTABLE;
    }
    if (((t->pos + off) & (width - 1u)) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    *pos = t->pos + off;
    return MOTE_OK;
}

mote_err_t mote_fb_scalar(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint32_t width,
                          uint64_t def, uint64_t *out)
{
    uint32_t pos;
    mote_err_t err = fb_field_pos(fb, t, id, width, &pos);

    if (err != MOTE_OK) {
        return err;
    }
    if (pos == 0u) {
        *out = def;
    } else if (width == 1u) {
        *out = fb->buf[pos];
    } else if (width == 2u) {
        *out = fb_u16(fb, pos);
    } else if (width == 4u) {
        *out = mote_fb_u32_at(fb, pos);
    } else {
        *out = mote_fb_u64_at(fb, pos);
    }
    return MOTE_OK;
}

/* Follows the uoffset stored in field `id`; *target = 0 when absent. */
static mote_err_t fb_follow(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint32_t *target)
{
    uint32_t pos, off;
    mote_err_t err = fb_field_pos(fb, t, id, 4u, &pos);

    *target = 0;
    if (err != MOTE_OK || pos == 0u) {
        return err;
    }
    off = mote_fb_u32_at(fb, pos);
    if (off == 0u || off > fb->size - pos) {
        return MOTE_ERR_BAD_OFFSET;
    }
    *target = pos + off;
    return MOTE_OK;
}

mote_err_t mote_fb_table_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                               mote_fb_table_t *out, bool *present)
{
    uint32_t target;
    mote_err_t err = fb_follow(fb, t, id, &target);

    *present = false;
    if (err != MOTE_OK || target == 0u) {
        return err;
    }
    err = mote_fb_table_at(fb, target, out);
    if (err == MOTE_OK) {
        *present = true;
    }
    return err;
}

/* Verifies a vector whose length prefix is at `target`. */
static mote_err_t fb_vec_at(const mote_fb_t *fb, uint32_t target, uint32_t elem, mote_fb_vec_t *out)
{
    uint32_t len, align = elem < 8u ? elem : 8u;

    if ((target & 3u) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    if (!fb_fits(fb, target, 4u)) {
        return MOTE_ERR_BAD_VECTOR;
    }
    len = mote_fb_u32_at(fb, target);
    if (len > (fb->size - target - 4u) / elem) {
        return MOTE_ERR_BAD_VECTOR;
    }
    if (len != 0u && ((target + 4u) & (align - 1u)) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    out->pos = target + 4u;
    out->len = len;
    return MOTE_OK;
}

mote_err_t mote_fb_vec_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint32_t elem,
                             mote_fb_vec_t *out)
{
    uint32_t target;
    mote_err_t err = fb_follow(fb, t, id, &target);

    out->pos = 0;
    out->len = 0;
    if (err != MOTE_OK || target == 0u) {
        return err;
    }
    return fb_vec_at(fb, target, elem, out);
}

mote_err_t mote_fb_string_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, const char **str,
                                uint32_t *len)
{
    mote_fb_vec_t v;
    mote_err_t err = mote_fb_vec_field(fb, t, id, 1u, &v);

    *str = NULL;
    *len = 0;
    if (err != MOTE_OK || v.pos == 0u) {
        return err;
    }
    /* the terminating NUL must be inside the buffer too */
    if (v.len >= fb->size - v.pos || fb->buf[v.pos + v.len] != 0u) {
        return MOTE_ERR_BAD_VECTOR;
    }
    *str = (const char *)(fb->buf + v.pos);
    *len = v.len;
    return MOTE_OK;
}

mote_err_t mote_fb_vec_table(const mote_fb_t *fb, const mote_fb_vec_t *v, uint32_t i, mote_fb_table_t *out)
{
    uint32_t pos, off;

    if (i >= v->len) {
        return MOTE_ERR_BAD_INDEX;
    }
    pos = v->pos + 4u * i; /* inside the buffer: verified by fb_vec_at */
    off = mote_fb_u32_at(fb, pos);
    if (off == 0u || off > fb->size - pos) {
        return MOTE_ERR_BAD_OFFSET;
    }
    return mote_fb_table_at(fb, pos + off, out);
}

mote_err_t mote_fb_union_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint8_t max_tag,
                               uint8_t *type, mote_fb_table_t *out)
{
    uint64_t tag;
    bool present;
    mote_err_t err = mote_fb_scalar(fb, t, id, 1u, 0u, &tag);

    if (err != MOTE_OK) {
        return err;
    }
    *type = (uint8_t)tag;
    if (tag == 0u) {
        return MOTE_OK;
    }
    if (tag > max_tag) {
        return MOTE_ERR_BAD_UNION_TAG;
    }
    err = mote_fb_table_field(fb, t, id + 1u, out, &present);
    if (err == MOTE_OK && !present) {
        err = MOTE_ERR_BAD_UNION_TAG;
    }
    return err;
}
