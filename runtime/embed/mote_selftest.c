/*
 * mote_selftest.c - checks a method's outputs against the embedded
 * expected outputs (mote_selftest.h) and, for the embedding API, runs every
 * case `aot generate --selftest` put in model_selftest.c (mote_model_selftest).
 */
#include <math.h> /* INFINITY */
#include <stddef.h>
#include <stdint.h>

#include "mote/model.h"
#include "mote/port.h"
#include "mote_selftest.h"

static uint32_t st_pad8(uint32_t n)
{
    return (n + 7u) & ~7u;
}

const char *mote_selftest_format(float v, char buf[16])
{
    char *p = buf;
    if (v != v) {
        p[0] = 'n'; p[1] = 'a'; p[2] = 'n'; p[3] = '\0';
        return buf;
    }
    if (v < 0.0f) {
        *p++ = '-';
        v = -v;
    }
    if (v == INFINITY) {
        p[0] = 'i'; p[1] = 'n'; p[2] = 'f'; p[3] = '\0';
        return buf;
    }
    if (v == 0.0f) {
        p[0] = '0'; p[1] = '\0';
        return buf;
    }
    int32_t e = 0;
    while (v >= 10.0f) {
        v /= 10.0f;
        ++e;
    }
    while (v < 1.0f) {
        v *= 10.0f;
        --e;
    }
    uint32_t d = (uint32_t)(v * 1000.0f + 0.5f);
    if (d >= 10000u) {
        d /= 10u;
        ++e;
    }
    *p++ = (char)('0' + d / 1000u);
    *p++ = '.';
    *p++ = (char)('0' + (d / 100u) % 10u);
    *p++ = (char)('0' + (d / 10u) % 10u);
    *p++ = (char)('0' + d % 10u);
    *p++ = 'e';
    if (e < 0) {
        *p++ = '-';
        e = -e;
    }
    /* |e| <= 45 for a float: at most two digits */
    if (e >= 10) {
        *p++ = (char)('0' + e / 10);
    }
    *p++ = (char)('0' + e % 10);
    *p = '\0';
    return buf;
}

/* Element i of a tensor of `dtype` as a float (for the error and the report). */
static float st_element(const uint8_t *data, uint8_t dtype, uint32_t i)
{
    switch (dtype) {
    case MOTE_DTYPE_FLOAT32: return ((const float *)(const void *)data)[i];
    case MOTE_DTYPE_FLOAT64: return (float)((const double *)(const void *)data)[i];
    case MOTE_DTYPE_INT8: return (float)((const int8_t *)(const void *)data)[i];
    case MOTE_DTYPE_INT16: return (float)((const int16_t *)(const void *)data)[i];
    case MOTE_DTYPE_INT32: return (float)((const int32_t *)(const void *)data)[i];
    case MOTE_DTYPE_INT64: return (float)((const int64_t *)(const void *)data)[i];
    case MOTE_DTYPE_FLOAT16: return (float)((const uint16_t *)(const void *)data)[i];
    default: return (float)data[i]; /* uint8, bool */
    }
}

void mote_selftest_begin(mote_selftest_t *st, const uint8_t *blob)
{
    st->cursor = blob;
    st->max_err = 0.0f;
    st->failed = 0u;
    st->first_case = st->first_output = st->first_element = 0u;
    st->first_got = st->first_want = st->first_tol = 0.0f;
    st->model = NULL;
}

/* " model=" before a named model's name, "" for one model (the lines unchanged). */
static const char *st_model_key(const mote_selftest_t *st)
{
    return st->model != NULL ? " model=" : "";
}

static const char *st_model_name(const mote_selftest_t *st)
{
    return st->model != NULL ? st->model : "";
}

/* Checks one output; returns 1 when every element passes. */
static int st_check_output(mote_selftest_t *st, const mote_tensor_t *t, const uint8_t *want, float tol,
                           uint32_t index, uint32_t o, float *max_err)
{
    const uint8_t *got = (const uint8_t *)t->data;
    uint32_t esize = t->numel > 0u ? t->nbytes / t->numel : 1u;
    int is_float = t->dtype == MOTE_DTYPE_FLOAT32 || t->dtype == MOTE_DTYPE_FLOAT64;
    int ok = 1;
    for (uint32_t i = 0; i < t->numel; ++i) {
        uint32_t b = 0;
        while (b < esize && got[i * esize + b] == want[i * esize + b]) {
            ++b;
        }
        if (b == esize) {
            continue; /* the same bytes */
        }
        float g = st_element(got, t->dtype, i);
        float w = st_element(want, t->dtype, i);
        float e = g > w ? g - w : w - g;
        if (e != e) {
            e = INFINITY; /* NaN on one side */
        }
        if (e > *max_err) {
            *max_err = e;
        }
        if ((!is_float || !(e <= tol)) && ok) {
            ok = 0;
            if (st->failed == 0u) {
                st->first_case = index;
                st->first_output = o;
                st->first_element = i;
                st->first_got = g;
                st->first_want = w;
                st->first_tol = tol;
            }
        }
    }
    return ok;
}

mote_err_t mote_selftest_check(mote_selftest_t *st, const mote_method_t *m, uint32_t index)
{
    uint32_t n = mote_method_num_outputs(m);
    const float *tols = (const float *)(const void *)st->cursor;
    st->cursor += st_pad8(4u * n);
    for (uint32_t o = 0; o < n; ++o) {
        const mote_tensor_t *t;
        MOTE_TRY(mote_method_get_output(m, o, &t));
        const uint8_t *want = st->cursor;
        st->cursor += st_pad8(t->nbytes);
        float max_err = 0.0f;
        int ok = st_check_output(st, t, want, tols[o], index, o, &max_err);
        if (!ok) {
            ++st->failed;
        }
        if (max_err > st->max_err) {
            st->max_err = max_err;
        }
        char e[16], tol[16];
        mote_port_log("MOTE SELFTEST CASE case=%u output=%u max_abs_err=%s tol=%s result=%s%s%s", (unsigned)index,
                      (unsigned)o, mote_selftest_format(max_err, e), mote_selftest_format(tols[o], tol),
                      ok ? "PASS" : "FAIL", st_model_key(st), st_model_name(st));
    }
    return MOTE_OK;
}

mote_err_t mote_selftest_verdict(const mote_selftest_t *st, uint32_t cases)
{
    char e[16];
    if (st->failed == 0u) {
        mote_port_log("MOTE SELFTEST PASS n=%u max_abs_err=%s%s%s", (unsigned)cases,
                      mote_selftest_format(st->max_err, e), st_model_key(st), st_model_name(st));
        return MOTE_OK;
    }
    char g[16], w[16], t[16];
    mote_port_log("MOTE SELFTEST FAIL case=%u output=%u element=%u got=%s want=%s tol=%s failed=%u n=%u "
                  "max_abs_err=%s%s%s",
                  (unsigned)st->first_case, (unsigned)st->first_output, (unsigned)st->first_element,
                  mote_selftest_format(st->first_got, g), mote_selftest_format(st->first_want, w),
                  mote_selftest_format(st->first_tol, t), (unsigned)st->failed, (unsigned)cases,
                  mote_selftest_format(st->max_err, e), st_model_key(st), st_model_name(st));
    return MOTE_ERR_SELFTEST;
}
