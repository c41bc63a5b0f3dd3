/* npz.c - see npz.h. Zip structures: local file header, central directory, end record (+ ZIP64). */
#include "npz.h"

#include <stdio.h>
#include <string.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_END64_LOC 0x07064b50u
#define LOCAL_LEN 30u
#define CENTRAL_LEN 46u
#define END_LEN 22u

static char npz_msg[256]; /* error text naming a member */

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return rd16(p) | (rd16(p + 2) << 16);
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/* CRC-32 (IEEE 802.3, reflected, as zip uses), continued from crc. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    size_t i;
    int k;
    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

int mote_npz_is_zip(const uint8_t *buf, size_t size)
{
    return size >= 4 && (rd32(buf) == SIG_LOCAL || rd32(buf) == SIG_END);
}

/* Reads the ZIP64 extended-information extra field over the values that are saturated. */
static int zip64_extra(const uint8_t *x, size_t xlen, uint64_t *usize, uint64_t *csize, uint64_t *off)
{
    size_t p = 0;
    while (p + 4 <= xlen) {
        uint32_t id = rd16(x + p), len = rd16(x + p + 2);
        if (p + 4 + len > xlen) {
            return -1;
        }
        if (id == 0x0001u) {
            const uint8_t *f = x + p + 4;
            size_t q = 0;
            if (*usize == 0xFFFFFFFFu) {
                if (q + 8 > len) {
                    return -1;
                }
                *usize = rd64(f + q);
                q += 8;
            }
            if (*csize == 0xFFFFFFFFu) {
                if (q + 8 > len) {
                    return -1;
                }
                *csize = rd64(f + q);
                q += 8;
            }
            if (off != NULL && *off == 0xFFFFFFFFu) {
                if (q + 8 > len) {
                    return -1;
                }
                *off = rd64(f + q);
            }
            return 0;
        }
        p += 4 + len;
    }
    return 0;
}

/* Locates the central directory: *cd_off, *cd_size, *n. */
static int find_directory(const uint8_t *buf, size_t size, uint64_t *cd_off, uint64_t *cd_size, uint64_t *n,
                          const char **err)
{
    size_t e, lowest;
    const uint8_t *end = NULL;

    if (size < END_LEN) {
        *err = "not a zip archive (too short)";
        return -1;
    }
    lowest = size - END_LEN > 0xFFFFu ? size - END_LEN - 0xFFFFu : 0;
    for (e = size - END_LEN + 1; e-- > lowest;) {
        if (rd32(buf + e) == SIG_END && e + END_LEN + rd16(buf + e + 20) == size) {
            end = buf + e;
            break;
        }
    }
    if (end == NULL) {
        *err = "not a zip archive (no end of central directory record)";
        return -1;
    }
    if (rd16(end + 4) != 0 || rd16(end + 6) != 0) {
        *err = "multi-disk zip archives are not supported";
        return -1;
    }
    *n = rd16(end + 10);
    *cd_size = rd32(end + 12);
    *cd_off = rd32(end + 16);
    if (*n == 0xFFFFu || *cd_size == 0xFFFFFFFFu || *cd_off == 0xFFFFFFFFu) {
        uint64_t p;
        const uint8_t *z;
        if (e < 20 || rd32(buf + e - 20) != SIG_END64_LOC) {
            *err = "ZIP64 end record locator missing";
            return -1;
        }
        p = rd64(buf + e - 20 + 8);
        if (p > size || size - p < 56 || rd32(buf + p) != SIG_END64) {
            *err = "bad ZIP64 end of central directory record";
            return -1;
        }
        z = buf + p;
        *n = rd64(z + 32);
        *cd_size = rd64(z + 40);
        *cd_off = rd64(z + 48);
    }
    if (*cd_off > size || *cd_size > size - *cd_off) {
        *err = "central directory outside the file";
        return -1;
    }
    return 0;
}

/* Member order for arr_<n> names: n, or -1 when the name is not of that form. */
static long arr_index(const char *name)
{
    long v = 0;
    const char *p = name + 4;
    if (strncmp(name, "arr_", 4) != 0 || *p == '\0' || (p[0] == '0' && p[1] != '\0')) {
        return -1;
    }
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || v > 100000) {
            return -1;
        }
        v = v * 10 + (*p - '0');
    }
    return v;
}

static int member_error(const char *name, const char *what, const char **err)
{
    char shown[MOTE_NPZ_MAX_NAME];
    size_t i;
    for (i = 0; name[i] != '\0' && i + 1 < sizeof(shown); i++) { /* printable ASCII only */
        shown[i] = (name[i] >= 0x20 && name[i] < 0x7f) ? name[i] : '?';
    }
    shown[i] = '\0';
    snprintf(npz_msg, sizeof(npz_msg), "member '%s': %s", shown, what);
    *err = npz_msg;
    return -1;
}

int mote_npz_parse(const uint8_t *buf, size_t size, mote_npz_member_t *members, uint32_t max,
                   uint32_t *count, const char **err)
{
    uint64_t cd_off, cd_size, n, i;
    size_t p;
    uint32_t k, j;
    int all_arr = 1;

    *count = 0;
    if (find_directory(buf, size, &cd_off, &cd_size, &n, err) != 0) {
        return -1;
    }
    if (n > max) {
        *err = "too many members";
        return -1;
    }
    p = (size_t)cd_off;
    for (i = 0; i < n; i++) {
        const uint8_t *c = buf + p, *lh;
        uint32_t method, flags, nlen, xlen, clen, crc, lnlen, lxlen;
        uint64_t csize, usize, off, data;
        mote_npz_member_t *m = &members[*count];
        const char *why = "";

        if (p > cd_off + cd_size || cd_off + cd_size - p < CENTRAL_LEN || rd32(c) != SIG_CENTRAL) {
            *err = "bad central directory entry";
            return -1;
        }
        flags = rd16(c + 8);
        method = rd16(c + 10);
        crc = rd32(c + 16);
        csize = rd32(c + 20);
        usize = rd32(c + 24);
        nlen = rd16(c + 28);
        xlen = rd16(c + 30);
        clen = rd16(c + 32);
        off = rd32(c + 42);
        if (cd_off + cd_size - p - CENTRAL_LEN < (uint64_t)nlen + xlen + clen) {
            *err = "central directory entry runs past the directory";
            return -1;
        }
        if (nlen == 0 || nlen >= MOTE_NPZ_MAX_NAME) {
            *err = "member name empty or too long";
            return -1;
        }
        memcpy(m->name, c + CENTRAL_LEN, nlen);
        m->name[nlen] = '\0';
        if (memchr(m->name, '\0', nlen) != NULL) {
            *err = "member name contains NUL";
            return -1;
        }
        p += CENTRAL_LEN + nlen + xlen + clen;
        if (zip64_extra(c + CENTRAL_LEN + nlen, xlen, &usize, &csize, &off) != 0) {
            return member_error(m->name, "bad ZIP64 extra field", err);
        }
        if (nlen < 5 || strcmp(m->name + nlen - 4, ".npy") != 0) {
            continue; /* not an array (numpy ignores such members too) */
        }
        if (method == 8) {
            return member_error(m->name,
                                "deflate-compressed (numpy.savez_compressed); mote-run reads stored "
                                "archives: write the inputs with numpy.savez",
                                err);
        }
        if (method != 0) {
            return member_error(m->name, "unsupported compression method (only stored members)", err);
        }
        if (flags & 1u) {
            return member_error(m->name, "encrypted members are not supported", err);
        }
        if (csize != usize) {
            return member_error(m->name, "stored member with different packed and unpacked sizes", err);
        }
        if (off > size || size - off < LOCAL_LEN || rd32(buf + off) != SIG_LOCAL) {
            return member_error(m->name, "bad local file header offset", err);
        }
        lh = buf + off;
        lnlen = rd16(lh + 26);
        lxlen = rd16(lh + 28);
        if (rd16(lh + 8) != method || lnlen != nlen || memcmp(lh + LOCAL_LEN, m->name, nlen) != 0) {
            return member_error(m->name, "local header disagrees with the central directory", err);
        }
        data = off + LOCAL_LEN + lnlen + lxlen;
        if (data > size || usize > size - data) {
            return member_error(m->name, "data runs past the end of the file", err);
        }
        if (crc32_update(0, buf + data, (size_t)usize) != crc) {
            return member_error(m->name, "CRC-32 mismatch (corrupt archive)", err);
        }
        if (mote_npy_parse(buf + data, (size_t)usize, &m->npy, &why) != 0) {
            return member_error(m->name, why, err);
        }
        m->name[nlen - 4] = '\0';
        if (arr_index(m->name) < 0) {
            all_arr = 0;
        }
        (*count)++;
    }
    if (all_arr) { /* positional arrays: arr_0, arr_1, ..., arr_10 by number */
        for (k = 1; k < *count; k++) {
            for (j = k; j > 0 && arr_index(members[j - 1].name) > arr_index(members[j].name); j--) {
                mote_npz_member_t t = members[j];
                members[j] = members[j - 1];
                members[j - 1] = t;
            }
        }
        for (k = 1; k < *count; k++) {
            if (arr_index(members[k - 1].name) == arr_index(members[k].name)) {
                return member_error(members[k].name, "duplicate member", err);
            }
        }
    }
    return 0;
}

/* ---- writer ---- */

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xffu);
    p[1] = (uint8_t)((v >> 8) & 0xffu);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffffu);
    put16(p + 2, v >> 16);
}

static int npz_put(mote_npz_writer_t *w, const void *p, size_t n)
{
    if (w->failed || n > (size_t)(0xFFFFFFFFu - w->offset) ||
        (n != 0 && fwrite(p, 1, n, (FILE *)w->file) != n)) {
        w->failed = 1;
        return -1;
    }
    w->offset += (uint32_t)n;
    return 0;
}

int mote_npz_open(mote_npz_writer_t *w, const char *path)
{
    memset(w, 0, sizeof(*w));
    w->file = fopen(path, "wb");
    return w->file == NULL ? -1 : 0;
}

int mote_npz_add(mote_npz_writer_t *w, const char *name, uint8_t dtype, const int32_t *sizes, uint32_t dim,
                 const void *data, size_t nbytes)
{
    uint8_t header[MOTE_NPY_MAX_HEADER], lh[LOCAL_LEN];
    size_t hlen, nlen;
    uint32_t crc;

    if (w->failed || w->count >= MOTE_NPZ_MAX_MEMBERS || strlen(name) >= MOTE_NPZ_MAX_NAME ||
        mote_npy_header(header, sizeof(header), dtype, sizes, dim, &hlen) != 0 ||
        nbytes > 0xFFFFFFFFu - hlen) {
        w->failed = 1;
        return -1;
    }
    snprintf(w->entry[w->count].name, sizeof(w->entry[0].name), "%s.npy", name);
    nlen = strlen(w->entry[w->count].name);
    crc = crc32_update(crc32_update(0, header, hlen), (const uint8_t *)data, nbytes);
    memset(lh, 0, sizeof(lh));
    put32(lh, SIG_LOCAL);
    put16(lh + 4, 20);       /* version needed: 2.0 */
    put16(lh + 12, 0x0021u); /* 1980-01-01 */
    put32(lh + 14, crc);
    put32(lh + 18, (uint32_t)(hlen + nbytes));
    put32(lh + 22, (uint32_t)(hlen + nbytes));
    put16(lh + 26, (uint32_t)nlen);
    w->entry[w->count].crc = crc;
    w->entry[w->count].size = (uint32_t)(hlen + nbytes);
    w->entry[w->count].offset = w->offset;
    if (npz_put(w, lh, sizeof(lh)) != 0 || npz_put(w, w->entry[w->count].name, nlen) != 0 ||
        npz_put(w, header, hlen) != 0 || npz_put(w, data, nbytes) != 0) {
        return -1;
    }
    w->count++;
    return 0;
}

int mote_npz_close(mote_npz_writer_t *w)
{
    uint8_t c[CENTRAL_LEN], e[END_LEN];
    uint32_t i, cd_off = w->offset;
    int ok;

    if (w->file == NULL) {
        return -1;
    }
    for (i = 0; i < w->count && !w->failed; i++) {
        size_t nlen = strlen(w->entry[i].name);
        memset(c, 0, sizeof(c));
        put32(c, SIG_CENTRAL);
        put16(c + 4, 20);
        put16(c + 6, 20);
        put16(c + 14, 0x0021u);
        put32(c + 16, w->entry[i].crc);
        put32(c + 20, w->entry[i].size);
        put32(c + 24, w->entry[i].size);
        put16(c + 28, (uint32_t)nlen);
        put32(c + 42, w->entry[i].offset);
        if (npz_put(w, c, sizeof(c)) == 0) {
            (void)npz_put(w, w->entry[i].name, nlen);
        }
    }
    memset(e, 0, sizeof(e));
    put32(e, SIG_END);
    put16(e + 8, w->count);
    put16(e + 10, w->count);
    put32(e + 12, w->offset - cd_off);
    put32(e + 16, cd_off);
    (void)npz_put(w, e, sizeof(e));
    ok = !w->failed;
    if (fclose((FILE *)w->file) != 0) {
        ok = 0;
    }
    w->file = NULL;
    return ok ? 0 : -1;
}
