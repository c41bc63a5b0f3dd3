/*
 * key_index.c - an ordering of named entries by key without memory of its own:
 * a heapsort of the caller's index array (entry numbers) and a binary search
 * over it (mote_data_map_set_index, mote_program_set_named_index).
 */
#include "program_internal.h"

int mote_key_cmp(const char *a, uint32_t na, const char *b, uint32_t nb)
{
    const uint32_t n = na < nb ? na : nb;
    uint32_t k;

    if (a == NULL || b == NULL) { /* no key (a program's named_data entry without one): before every key */
        return a == b ? 0 : (a == NULL ? -1 : 1);
    }
    if (a == b) { /* one string shared by two entries (a flatbuffer may share): no need to read it */
        return na < nb ? -1 : (na > nb ? 1 : 0);
    }
    for (k = 0; k < n; k++) {
        if (a[k] != b[k]) {
            return (uint8_t)a[k] < (uint8_t)b[k] ? -1 : 1;
        }
    }
    return na < nb ? -1 : (na > nb ? 1 : 0);
}

/* Entries i, j in index order: key (mote_key_cmp), then entry number, so equal keys keep file order. */
static mote_err_t entry_cmp(mote_key_fn_t key_of, const void *ctx, uint32_t i, uint32_t j, int *c)
{
    const char *a, *b;
    uint32_t na, nb;

    MOTE_TRY(key_of(ctx, i, &a, &na));
    MOTE_TRY(key_of(ctx, j, &b, &nb));
    *c = mote_key_cmp(a, na, b, nb);
    if (*c == 0) {
        *c = i < j ? -1 : (i > j ? 1 : 0);
    }
    return MOTE_OK;
}

/* Moves index[root] down the max-heap index[0..end) until both children are smaller. */
static mote_err_t sift_down(mote_key_fn_t key_of, const void *ctx, uint32_t *index, uint32_t root, uint32_t end)
{
    for (;;) {
        uint32_t child = 2u * root + 1u, big = root; /* n < 2^31 entries: no wrap */
        int c;
        if (child >= end) {
            return MOTE_OK;
        }
        MOTE_TRY(entry_cmp(key_of, ctx, index[big], index[child], &c));
        if (c < 0) {
            big = child;
        }
        if (child + 1u < end) {
            MOTE_TRY(entry_cmp(key_of, ctx, index[big], index[child + 1u], &c));
            if (c < 0) {
                big = child + 1u;
            }
        }
        if (big == root) {
            return MOTE_OK;
        }
        child = index[root];
        index[root] = index[big];
        index[big] = child;
        root = big;
    }
}

mote_err_t mote_key_index_sort(mote_key_fn_t key_of, const void *ctx, uint32_t *index, uint32_t n)
{
    const char *k;
    uint32_t i, end, t, len;

    for (i = 0; i < n; i++) {
        MOTE_TRY(key_of(ctx, i, &k, &len));
        MOTE_CHECK(len <= MOTE_MAX_KEY_BYTES, MOTE_ERR_UNSUPPORTED); /* each comparison reads a bounded key */
        index[i] = i;
    }
    for (i = n / 2u; i > 0u; i--) {
        MOTE_TRY(sift_down(key_of, ctx, index, i - 1u, n));
    }
    for (end = n; end > 1u; end--) {
        t = index[0];
        index[0] = index[end - 1u];
        index[end - 1u] = t;
        MOTE_TRY(sift_down(key_of, ctx, index, 0u, end - 1u));
    }
    return MOTE_OK;
}

mote_err_t mote_key_index_find(mote_key_fn_t key_of, const void *ctx, const uint32_t *index, uint32_t n,
                               const char *key, uint32_t key_len, uint32_t *entry, uint32_t *compares)
{
    uint32_t lo = 0, hi = n, done = 0, found = n;
    const char *k;
    uint32_t kn;

    if (key_len > MOTE_MAX_KEY_BYTES) { /* no indexed entry has one (mote_key_index_sort refused it) */
        if (compares != NULL) {
            *compares = 0;
        }
        return MOTE_ERR_EXTERNAL_MISSING;
    }
    /* Lower bound: the first position whose key is not below `key`; among equal keys the sort put
     * the lowest entry number first, the one a scan of the file would find. */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2u;
        const uint32_t e = index != NULL ? index[mid] : mid;
        int c;
        MOTE_CHECK(e < n, MOTE_ERR_BAD_INDEX);
        MOTE_TRY(key_of(ctx, e, &k, &kn));
        c = mote_key_cmp(key, key_len, k, kn);
        done++;
        if (c <= 0) {
            if (c == 0) {
                found = e;
            }
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    if (compares != NULL) {
        *compares = done;
    }
    MOTE_CHECK(found < n, MOTE_ERR_EXTERNAL_MISSING);
    *entry = found;
    return MOTE_OK;
}
