/*
 * mote::window_push.default - in place: a window of the last L frames along
 * `dim` takes n new frames: state = cat(state, new, dim)[..., n:, ...] (the
 * oldest n frames leave, the others move n frames toward the start, `new`
 * fills the end). What a streaming model's history update
 *     full = cat([buf, new], dim); buf.copy_(full[..., n:])
 * lowers to when the model then reads only the buffer's new value
 * (aot/compiler/windows.py): one call and one move of L - n frames, where
 * cat, slice_copy and copy_ were three calls moving 3L bytes.
 *
 *   args (4): state (read and written: the mutable buffer), new, dim int, and
 *             in an ExecuTorch KernelCall the returned value, which must be
 *             state (it is the argument the runtime proves writable).
 *   dtypes: any, state and new alike.
 *   shapes: state [..., L, ...], new [..., n, ...], equal outside dim; 1 <= n <= L.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, the return not state, dim out
 *           of range), MOTE_ERR_KERNEL_DTYPE (dtypes differ),
 *           MOTE_ERR_KERNEL_SHAPE (ranks or sizes outside dim differ, n not
 *           in [1, L]): checked before anything is written.
 *   new may overlap state (a crafted program): every piece moves with
 *   memmove, so the values are defined, if meaningless.
 */
#include <string.h>

#include "kutil.h"

MOTE_KERNEL("mote::window_push.default")

MOTE_K_DECLARE(mote_kernel_mote_window_push_default);

mote_err_t mote_kernel_mote_window_push_default(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *state, *fresh, *ret;
    int64_t dim64;
    uint32_t dim, d;
    size_t rows, frame, keep, add;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4u));
    MOTE_TRY(mote_k_tensor(args[0], &state));
    MOTE_TRY(mote_k_tensor(args[1], &fresh));
    MOTE_TRY(mote_k_int(args[2], &dim64));
    MOTE_TRY(mote_k_tensor(args[3], &ret));
    MOTE_CHECK(ret == state || (ret->data == state->data && mote_k_same_shape(ret, state) &&
                                ret->dtype == state->dtype), MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(state->dtype == fresh->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(state->dim == fresh->dim && state->dim > 0u, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim64, state->dim, &dim));
    for (d = 0; d < state->dim; d++) {
        MOTE_CHECK(d == dim || state->sizes[d] == fresh->sizes[d], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK(fresh->sizes[dim] >= 1 && fresh->sizes[dim] <= state->sizes[dim], MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(state));
    MOTE_TRY(mote_k_check_numel(fresh));
    if (state->nbytes == 0u) {
        return MOTE_OK;
    }
    /* one row per index of the dims before dim; a frame is one index of dim (bytes) */
    rows = mote_k_prod(state, 0u, dim);
    frame = state->nbytes / rows / (size_t)state->sizes[dim];
    add = (size_t)fresh->sizes[dim] * frame;
    keep = (size_t)state->sizes[dim] * frame - add;
    /* each row moves toward its start (rows are disjoint), then takes its new frames */
    mote_k_copy_rows(state->data, keep + add, (const uint8_t *)state->data + add, (ptrdiff_t)(keep + add), rows,
                     keep);
    mote_k_copy_rows((uint8_t *)state->data + keep, keep + add, fresh->data, (ptrdiff_t)add, rows, add);
    return MOTE_OK;
}
