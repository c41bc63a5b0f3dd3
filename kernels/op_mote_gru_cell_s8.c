/*
 * mote::gru_cell_s8.out - one GRU time step with int8 input, hidden state and
 * weights and int16 gates (docs/quantization.md, "Recurrent cells";
 * aot/compiler/quant/recurrentref.py gru_cell_s8 is the same arithmetic).
 * Per batch row b and hidden unit j, gate rows j, H+j, 2H+j (r, z, n), the
 * products at 2^-20 (gx: input, gh: hidden):
 *   r, z = sigmoid(clamp16(round((gx + gh) / 2^8)))                 Q0.15
 *   n    = tanh(clamp16(round((gx_n + ((r * gh_n + 2^14) >> 15)) / 2^8)))
 *   t1   = rq64((2^15 - z) * n, hidden_multiplier, hidden_shift), t2 = z * (h - zp)
 *   h'   = clamp8(((t1 + t2 + 2^14) >> 15) + zp)
 *
 *   args (12): input int8 [B, I], hidden int8 [B, H], weight_ih int8 [3H, I],
 *              weight_hh int8 [3H, H], bias int32 [2, 3H], multiplier int32 [2, 3H],
 *              shift int32 [2, 3H], table int16 [2, 1025], int hidden_zero_point,
 *              int hidden_multiplier, int hidden_shift, out int8 [B, H].
 *   dtypes: int8 input, hidden, weights and out, int16 table, int32 bias / requantization.
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out must not alias the inputs (the planner gives it its own memory).
 */
#include "kutil.h"
#include "s8_rnn.h"

MOTE_KERNEL("mote::gru_cell_s8.out")

MOTE_K_DECLARE(mote_kernel_mote_gru_cell_s8_out);

mote_err_t mote_kernel_mote_gru_cell_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_rnn_params_t p;
    int32_t b, j;
    (void)ctx;
    MOTE_TRY(mote_rnn_parse(args, nargs, 0, &p));
    for (b = 0; b < p.batch; b++) {
        for (j = 0; j < p.hidden_size; j++) {
            const size_t at = (size_t)b * (size_t)p.hidden_size + (size_t)j;
            int64_t gx[3], gh[3];
            int64_t r, z, n, t1, t2, h2;
            mote_rnn_products(&p, b, j, gx, gh);
            r = mote_rnn_act12(&p, 0, (int32_t)mote_rnn_q12(gx[0] + gh[0]));
            z = mote_rnn_act12(&p, 0, (int32_t)mote_rnn_q12(gx[1] + gh[1]));
            n = mote_rnn_act12(&p, 1, (int32_t)mote_rnn_q12(gx[2] + ((r * gh[2] + 16384) >> 15)));
            t1 = mote_rnn_rq64((32768 - z) * n, p.hidden_mult, p.hidden_shift);
            t2 = z * ((int64_t)p.hidden[at] - p.hidden_zp);
            h2 = ((t1 + t2 + 16384) >> 15) + p.hidden_zp;
            p.out[at] = (int8_t)(h2 < -128 ? -128 : (h2 > 127 ? 127 : h2));
        }
    }
    return MOTE_OK;
}
