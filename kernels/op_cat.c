/*
 * aten::cat.out - concatenate tensors along `dim`.
 *
 *   args (3): tensors Tensor[] (>= 1; same rank and sizes except at dim; 1-D
 *             empty tensors [0] are skipped as in PyTorch), dim int, out.
 *   dtypes: any, all equal to out's.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, empty list, NULL item, bad dim),
 *           MOTE_ERR_KERNEL_DTYPE (mixed dtypes), MOTE_ERR_KERNEL_SHAPE (sizes).
 *   out must not overlap the inputs.
 */
#include "kutil.h"

MOTE_KERNEL("aten::cat.out")

MOTE_K_DECLARE(mote_kernel_aten_cat_out);

static int mote_cat_skip(const mote_tensor_t *t)
{
    return t->dim == 1 && t->sizes[0] == 0;
}

mote_err_t mote_kernel_aten_cat_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    mote_tensor_t *out;
    mote_tensor_t *const *ts;
    uint32_t nt, i, d, cd;
    int64_t dim;
    size_t esz, outer, inner, total = 0;
    uint8_t *dst;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_CHECK(args[0]->tag == MOTE_TAG_TENSOR_LIST, MOTE_ERR_KERNEL_ARGS);
    ts = args[0]->u.tensors.items;
    nt = args[0]->u.tensors.len;
    MOTE_CHECK(nt > 0 && ts != NULL, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(out->dim > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim, out->dim, &cd));
    esz = mote_dtype_size(out->dtype);
    MOTE_CHECK(esz != 0, MOTE_ERR_KERNEL_DTYPE);
    for (i = 0; i < nt; i++) {
        const mote_tensor_t *t = ts[i];
        MOTE_CHECK(t != NULL, MOTE_ERR_KERNEL_ARGS);
        {
            mote_value_t v;
            mote_tensor_t *chk;
            v.tag = MOTE_TAG_TENSOR;
            v.u.t = ts[i];
            MOTE_TRY(mote_k_tensor(&v, &chk));
        }
        MOTE_CHECK(t->dtype == out->dtype, MOTE_ERR_KERNEL_DTYPE);
        MOTE_TRY(mote_k_check_numel(t));
        if (mote_cat_skip(t)) {
            continue;
        }
        MOTE_CHECK(t->dim == out->dim, MOTE_ERR_KERNEL_SHAPE);
        for (d = 0; d < out->dim; d++) {
            MOTE_CHECK(d == cd || t->sizes[d] == out->sizes[d], MOTE_ERR_KERNEL_SHAPE);
        }
        total += (size_t)t->sizes[cd];
    }
    MOTE_CHECK(total == (size_t)out->sizes[cd], MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(out));
    outer = mote_k_prod(out, 0, cd);
    inner = mote_k_prod(out, cd + 1, out->dim) * esz;
    /* input by input: its chunk of every outer row (out's rows are total * inner
       bytes apart), so a short chunk (a streaming window's new column) moves in
       one tight loop rather than a call per row */
    dst = (uint8_t *)out->data;
    for (i = 0; i < nt; i++) {
        const mote_tensor_t *t = ts[i];
        size_t chunk;
        if (mote_cat_skip(t)) {
            continue;
        }
        chunk = (size_t)t->sizes[cd] * inner;
        mote_k_copy_rows(dst, total * inner, t->data, (ptrdiff_t)chunk, outer, chunk);
        dst += chunk;
    }
    return MOTE_OK;
}
