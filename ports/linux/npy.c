/* npy.c - see npy.h. Only what mote-run needs: descr, fortran_order=False, shape. */
#include "npy.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *descr;
    uint8_t dtype;
} npy_types[] = {
    {"<f4", MOTE_DTYPE_FLOAT32}, {"<f8", MOTE_DTYPE_FLOAT64}, {"<f2", MOTE_DTYPE_FLOAT16},
    {"|i1", MOTE_DTYPE_INT8},    {"|u1", MOTE_DTYPE_UINT8},   {"<i2", MOTE_DTYPE_INT16},
    {"<i4", MOTE_DTYPE_INT32},   {"<i8", MOTE_DTYPE_INT64},   {"|b1", MOTE_DTYPE_BOOL},
};
#define NPY_NTYPES (sizeof(npy_types) / sizeof(npy_types[0]))

/* Finds `key` in the header dict text and returns the character after its ':'. */
static const char *npy_key(const char *h, size_t len, const char *key)
{
    size_t klen = strlen(key), i;
    for (i = 0; i + klen < len; i++) {
        if (memcmp(h + i, key, klen) == 0) {
            i += klen;
            while (i < len && (h[i] == ' ' || h[i] == ':')) {
                i++;
            }
            return i < len ? h + i : NULL;
        }
    }
    return NULL;
}

int mote_npy_parse(const uint8_t *buf, size_t size, mote_npy_t *out, const char **err)
{
    size_t hlen, hstart, i, numel = 1, esize;
    const char *h, *p, *end;

    memset(out, 0, sizeof(*out));
    if (size < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        *err = "not a .npy file";
        return -1;
    }
    if (buf[6] == 1) {
        hlen = (size_t)buf[8] | ((size_t)buf[9] << 8);
        hstart = 10;
    } else if (buf[6] == 2 || buf[6] == 3) {
        if (size < 12) {
            *err = "truncated header";
            return -1;
        }
        hlen = (size_t)buf[8] | ((size_t)buf[9] << 8) | ((size_t)buf[10] << 16) | ((size_t)buf[11] << 24);
        hstart = 12;
    } else {
        *err = "unsupported .npy version";
        return -1;
    }
    if (hlen > size - hstart) {
        *err = "truncated header";
        return -1;
    }
    h = (const char *)buf + hstart;
    end = h + hlen;
    p = npy_key(h, hlen, "'descr'");
    if (p == NULL || *p != '\'') {
        *err = "no descr";
        return -1;
    }
    p++;
    for (i = 0; i < NPY_NTYPES; i++) {
        size_t n = strlen(npy_types[i].descr);
        if ((size_t)(end - p) > n && memcmp(p, npy_types[i].descr, n) == 0 && p[n] == '\'') {
            break;
        }
        /* single-byte types may be written with '<' or '|' */
        if (npy_types[i].descr[0] == '|' && (size_t)(end - p) > n && p[0] == '<' &&
            memcmp(p + 1, npy_types[i].descr + 1, n - 1) == 0 && p[n] == '\'') {
            break;
        }
    }
    if (i == NPY_NTYPES) {
        *err = "unsupported dtype (need little-endian f2/f4/f8/i1/u1/i2/i4/i8/b1)";
        return -1;
    }
    out->dtype = npy_types[i].dtype;
    p = npy_key(h, hlen, "'fortran_order'");
    if (p == NULL || (size_t)(end - p) < 5 || memcmp(p, "False", 5) != 0) {
        *err = "fortran_order arrays are not supported";
        return -1;
    }
    p = npy_key(h, hlen, "'shape'");
    if (p == NULL || *p != '(') {
        *err = "no shape";
        return -1;
    }
    p++;
    while (p < end && *p != ')') {
        int64_t v = 0;
        while (p < end && (*p == ' ' || *p == ',')) {
            p++;
        }
        if (p < end && *p == ')') {
            break;
        }
        if (p >= end || *p < '0' || *p > '9') {
            *err = "bad shape";
            return -1;
        }
        while (p < end && *p >= '0' && *p <= '9') {
            if (v > (INT64_C(1) << 40)) {
                *err = "shape too large";
                return -1;
            }
            v = v * 10 + (*p - '0');
            p++;
        }
        if (out->dim >= MOTE_NPY_MAX_DIM) {
            *err = "too many dimensions";
            return -1;
        }
        out->shape[out->dim++] = v;
        if (v != 0 && numel > ((size_t)1 << 40) / (size_t)v) {
            *err = "shape too large";
            return -1;
        }
        numel *= (size_t)v;
    }
    esize = mote_dtype_size(out->dtype);
    out->nbytes = numel * esize;
    out->data = buf + hstart + hlen;
    if (out->nbytes > size - hstart - hlen) {
        *err = "data shorter than shape x dtype";
        return -1;
    }
    return 0;
}

int mote_npy_header(uint8_t *buf, size_t cap, uint8_t dtype, const int32_t *sizes, uint32_t dim, size_t *len)
{
    char header[512];
    int n;
    size_t hlen, total, i;
    const char *descr = NULL;

    for (i = 0; i < NPY_NTYPES; i++) {
        if (npy_types[i].dtype == dtype) {
            descr = npy_types[i].descr;
        }
    }
    if (descr == NULL) {
        return -1;
    }
    n = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (i = 0; i < dim && n > 0 && (size_t)n < sizeof(header) - 64; i++) {
        n += snprintf(header + n, sizeof(header) - (size_t)n, "%ld%s", (long)sizes[i],
                      dim == 1 ? "," : (i + 1 < dim ? ", " : ""));
    }
    if (n < 0 || (size_t)n > sizeof(header) - 80) {
        return -1;
    }
    n += snprintf(header + n, sizeof(header) - (size_t)n, "), }");
    hlen = (size_t)n;
    total = (10 + hlen + 1 + 63) / 64 * 64; /* pad with spaces, end with '\n' */
    if (total > cap) {
        return -1;
    }
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (uint8_t)((total - 10) & 0xff);
    buf[9] = (uint8_t)((total - 10) >> 8);
    memcpy(buf + 10, header, hlen);
    memset(buf + 10 + hlen, ' ', total - 10 - hlen - 1);
    buf[total - 1] = '\n';
    *len = total;
    return 0;
}

int mote_npy_write(const char *path, uint8_t dtype, const int32_t *sizes, uint32_t dim, const void *data,
                   size_t nbytes)
{
    uint8_t header[MOTE_NPY_MAX_HEADER];
    size_t len;
    FILE *f;

    if (mote_npy_header(header, sizeof(header), dtype, sizes, dim, &len) != 0) {
        return -1;
    }
    f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    if (fwrite(header, 1, len, f) != len || (nbytes != 0 && fwrite(data, 1, nbytes, f) != nbytes)) {
        fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}
