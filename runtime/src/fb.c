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

    MOTE_CHECK((pos & 3u) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    MOTE_CHECK(fb_fits(fb, pos, 4u), MOTE_ERR_BAD_OFFSET);
    soff = (int32_t)mote_fb_u32_at(fb, pos);
    vt = (int64_t)pos - (int64_t)soff;
    MOTE_CHECK(vt >= 0 && vt <= (int64_t)fb->size - 4, MOTE_ERR_BAD_VTABLE);
    MOTE_CHECK(((uint32_t)vt & 1u) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    vtsize = fb_u16(fb, (uint32_t)vt);
    tsize = fb_u16(fb, (uint32_t)vt + 2u);
    MOTE_CHECK(vtsize >= 4u && (vtsize & 1u) == 0u && fb_fits(fb, (uint32_t)vt, vtsize), MOTE_ERR_BAD_VTABLE);
    MOTE_CHECK(tsize >= 4u && fb_fits(fb, pos, tsize), MOTE_ERR_BAD_VTABLE);
    out->pos = pos;
    out->vt = (uint32_t)vt;
    out->vtsize = vtsize;
    out->tsize = tsize;
    return MOTE_OK;
}

mote_err_t mote_fb_root(const mote_fb_t *fb, mote_fb_table_t *out)
{
    MOTE_CHECK(fb->size >= 8u, MOTE_ERR_TRUNCATED);
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
    MOTE_CHECK(off >= 4u && (uint32_t)off + width <= t->tsize, MOTE_ERR_BAD_VTABLE);
    MOTE_CHECK(((t->pos + off) & (width - 1u)) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    *pos = t->pos + off;
    return MOTE_OK;
}

mote_err_t mote_fb_scalar(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint32_t width,
                          uint64_t def, uint64_t *out)
{
    uint32_t pos;

    MOTE_TRY(fb_field_pos(fb, t, id, width, &pos));
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

    *target = 0;
    MOTE_TRY(fb_field_pos(fb, t, id, 4u, &pos));
    if (pos == 0u) {
        return MOTE_OK;
    }
    off = mote_fb_u32_at(fb, pos);
    MOTE_CHECK(off != 0u && off <= fb->size - pos, MOTE_ERR_BAD_OFFSET);
    *target = pos + off;
    return MOTE_OK;
}

mote_err_t mote_fb_table_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id,
                               mote_fb_table_t *out, bool *present)
{
    uint32_t target;

    *present = false;
    MOTE_TRY(fb_follow(fb, t, id, &target));
    if (target == 0u) {
        return MOTE_OK;
    }
    MOTE_TRY(mote_fb_table_at(fb, target, out));
    *present = true;
    return MOTE_OK;
}

/* Verifies a vector whose length prefix is at `target`. */
static mote_err_t fb_vec_at(const mote_fb_t *fb, uint32_t target, uint32_t elem, mote_fb_vec_t *out)
{
    uint32_t len, align = elem < 8u ? elem : 8u;

    MOTE_CHECK((target & 3u) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    MOTE_CHECK(fb_fits(fb, target, 4u), MOTE_ERR_BAD_VECTOR);
    len = mote_fb_u32_at(fb, target);
    MOTE_CHECK(len <= (fb->size - target - 4u) / elem, MOTE_ERR_BAD_VECTOR);
    MOTE_CHECK(len == 0u || ((target + 4u) & (align - 1u)) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    out->pos = target + 4u;
    out->len = len;
    return MOTE_OK;
}

mote_err_t mote_fb_vec_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint32_t elem,
                             mote_fb_vec_t *out)
{
    uint32_t target;

    out->pos = 0;
    out->len = 0;
    MOTE_TRY(fb_follow(fb, t, id, &target));
    if (target == 0u) {
        return MOTE_OK;
    }
    return fb_vec_at(fb, target, elem, out);
}

mote_err_t mote_fb_string_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, const char **str,
                                uint32_t *len)
{
    mote_fb_vec_t v;

    *str = NULL;
    *len = 0;
    MOTE_TRY(mote_fb_vec_field(fb, t, id, 1u, &v));
    if (v.pos == 0u) {
        return MOTE_OK;
    }
    /* the terminating NUL must be inside the buffer too */
    MOTE_CHECK(v.len < fb->size - v.pos && fb->buf[v.pos + v.len] == 0u, MOTE_ERR_BAD_VECTOR);
    *str = (const char *)(fb->buf + v.pos);
    *len = v.len;
    return MOTE_OK;
}

mote_err_t mote_fb_vec_table(const mote_fb_t *fb, const mote_fb_vec_t *v, uint32_t i, mote_fb_table_t *out)
{
    uint32_t pos, off;

    MOTE_CHECK(i < v->len, MOTE_ERR_BAD_INDEX);
    pos = v->pos + 4u * i; /* inside the buffer: verified by fb_vec_at */
    off = mote_fb_u32_at(fb, pos);
    MOTE_CHECK(off != 0u && off <= fb->size - pos, MOTE_ERR_BAD_OFFSET);
    return mote_fb_table_at(fb, pos + off, out);
}

mote_err_t mote_fb_union_field(const mote_fb_t *fb, const mote_fb_table_t *t, uint32_t id, uint8_t max_tag,
                               uint8_t *type, mote_fb_table_t *out)
{
    uint64_t tag;
    bool present;

    MOTE_TRY(mote_fb_scalar(fb, t, id, 1u, 0u, &tag));
    *type = (uint8_t)tag;
    if (tag == 0u) {
        return MOTE_OK;
    }
    MOTE_CHECK(tag <= max_tag, MOTE_ERR_BAD_UNION_TAG);
    MOTE_TRY(mote_fb_table_field(fb, t, id + 1u, out, &present));
    MOTE_CHECK(present, MOTE_ERR_BAD_UNION_TAG);
    return MOTE_OK;
}
