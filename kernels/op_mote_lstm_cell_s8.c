/*
 * mote::lstm_cell_s8.out - one LSTM time step with int8 input, hidden state and
 * weights, int16 gates and int16 cell state (the integer LSTM scheme of
 * CMSIS-NN / TFLite Micro; docs/quantization.md, "Recurrent cells";
 * aot/compiler/quant/recurrentref.py lstm_cell_s8 is the same arithmetic).
 * Per batch row b and hidden unit j, gate rows j, H+j, 2H+j, 3H+j (i, f, g, o):
 *   q      = clamp16(round((x-product + h-product) / 2^8))        Q3.12
 *   i, f, o = sigmoid(q), g = tanh(q)                              Q0.15
 *   c'     = clamp16((f * c * 2^15 + i * g * 2^k + 2^29) >> 30)    scale 2^-k
 *   h'     = clamp8(rq64(o * tanh(c'), hidden_multiplier, hidden_shift) + hidden_zero_point)
 *
 *   args (15): input int8 [B, I], hidden int8 [B, H], cell int16 [B, H],
 *              weight_ih int8 [4H, I], weight_hh int8 [4H, H], bias int32 [2, 4H],
 *              multiplier int32 [2, 4H], shift int32 [2, 4H], table int16 [2, 1025],
 *              int cell_frac_bits (k, 0..15), int hidden_zero_point,
 *              int hidden_multiplier, int hidden_shift, out int8 [B, H], cell_out int16 [B, H].
 *   dtypes: int8 input, hidden, weights and out, int16 cell / table, int32 bias / requantization.
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out and cell_out must not alias the inputs (the planner gives them their own memory).
 */
#include "kutil.h"
#include "s8_rnn.h"

MOTE_KERNEL("mote::lstm_cell_s8.out")
MOTE_KERNEL_OUTPUTS("mote::lstm_cell_s8.out", 2)

MOTE_K_DECLARE(mote_kernel_mote_lstm_cell_s8_out);

mote_err_t mote_kernel_mote_lstm_cell_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_rnn_params_t p;
    int32_t b, j, g;
    (void)ctx;
    MOTE_TRY(mote_rnn_parse(args, nargs, 1, &p));
    for (b = 0; b < p.batch; b++) {
        for (j = 0; j < p.hidden_size; j++) {
            const size_t at = (size_t)b * (size_t)p.hidden_size + (size_t)j;
            int64_t a[4], gx[4], gh[4];
            int64_t c2;
            int64_t h2;
            mote_rnn_products(&p, b, j, gx, gh);
            for (g = 0; g < 4; g++) {
                a[g] = mote_rnn_act12(&p, g == 2, (int32_t)mote_rnn_q12(gx[g] + gh[g]));
            }
            c2 = (a[1] * (int64_t)p.cell[at] * 32768 + a[0] * a[2] * ((int64_t)1 << p.cell_frac_bits) +
                  ((int64_t)1 << 29)) >> 30;
            c2 = c2 < -32768 ? -32768 : (c2 > 32767 ? 32767 : c2);
            h2 = mote_rnn_rq64(a[3] * (int64_t)mote_rnn_act(&p, 1, (int32_t)c2, p.cell_frac_bits), p.hidden_mult,
                               p.hidden_shift) + p.hidden_zp;
            p.cell_out[at] = (int16_t)c2;
            p.out[at] = (int8_t)(h2 < -128 ? -128 : (h2 > 127 ? 127 : h2));
        }
    }
    return MOTE_OK;
}
