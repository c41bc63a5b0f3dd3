/*
 * Shared arithmetic of the int8 recurrent cells mote::lstm_cell_s8 and
 * mote::gru_cell_s8 (kernels/s8_rnn.c; aot/compiler/quant/recurrentref.py is
 * the same arithmetic and defines the bytes):
 *   - gate products: acc = bias[r] + sum_k v[k] * w[r, k] (int32; the input zero
 *     point is folded into the bias ahead of time), requantized to 2^-20 with
 *     mote_rnn_rq_gate (clamped to int32);
 *   - sigmoid / tanh of an int16 value: a 1025-entry int16 table over [-8, 8]
 *     (steps of 2^-6, output Q0.15) with linear interpolation (mote_rnn_act).
 */
#ifndef MOTE_S8_RNN_H
#define MOTE_S8_RNN_H

#include "mote/kernel.h"

#define MOTE_RNN_TABLE_STEP_BITS 6
#define MOTE_RNN_TABLE_SIZE (16 * (1 << MOTE_RNN_TABLE_STEP_BITS) + 1)
#define MOTE_RNN_GATE_FRAC_BITS 12
#define MOTE_RNN_ACC_FRAC_BITS 20
/** Largest input / hidden size: |acc| <= 2^14 * 2^15 + 2^30 < 2^31. */
#define MOTE_RNN_TAPS_MAX 32768
#define MOTE_RNN_BIAS_MAX ((int32_t)1 << 30)

/** The arguments of one cell step, verified by mote_rnn_parse. */
typedef struct mote_rnn_params {
    int32_t batch, input_size, hidden_size, gates; /* gates = 4H (LSTM) or 3H (GRU) rows */
    const int8_t *input;     /* [B, I] */
    const int8_t *hidden;    /* [B, H] */
    const int16_t *cell;     /* LSTM: [B, H]; GRU: NULL */
    const int8_t *weight_ih; /* [G, I] */
    const int8_t *weight_hh; /* [G, H] */
    const int32_t *bias;     /* [2, G]: input product, recurrent product */
    const int32_t *mult;     /* [2, G], Q31 in [0, 2^31) */
    const int32_t *shift;    /* [2, G], in [-31, 30] */
    const int16_t *table;    /* [2, MOTE_RNN_TABLE_SIZE]: sigmoid, tanh */
    int32_t cell_frac_bits;  /* LSTM: cell scale 2^-k, k in [0, 15] */
    int32_t hidden_zp, hidden_mult, hidden_shift;
    int8_t *out;             /* [B, H] */
    int16_t *cell_out;       /* LSTM: [B, H]; GRU: NULL */
} mote_rnn_params_t;

/**
 * Verify and read the arguments of lstm_cell_s8 (lstm = 1: 15 args: input,
 * hidden, cell, weight_ih, weight_hh, bias, multiplier, shift, table,
 * cell_frac_bits, hidden_zero_point, hidden_multiplier, hidden_shift, out,
 * cell_out) or gru_cell_s8 (lstm = 0: 12 args, no cell / cell_frac_bits /
 * cell_out). Errors: MOTE_ERR_KERNEL_ARGS / DTYPE / SHAPE.
 */
mote_err_t mote_rnn_parse(mote_value_t *const *args, uint32_t nargs, int lstm, mote_rnn_params_t *p);

/** acc * mult * 2^(shift - 31) rounded half up: (acc * M + 2^(30 - S)) >> (31 - S).
 *  |acc| < 2^31, M in [0, 2^31), S in [-31, 30]. */
static inline int64_t mote_rnn_rq64(int64_t acc, int32_t mult, int32_t shift)
{
    const int32_t e = 31 - shift;
    return (acc * (int64_t)mult + ((int64_t)1 << (e - 1))) >> e; /* arithmetic shift */
}

/** A gate product acc * mult * 2^(shift - 31) in 32-bit steps (recurrentref.rq_gate):
 *  hi = (acc * M + 2^31) >> 32, then hi << (S + 1) or rounded half up >> -(S + 1),
 *  clamped to int32. */
static inline int32_t mote_rnn_rq_gate(int32_t acc, int32_t mult, int32_t shift)
{
    const int32_t hi = (int32_t)(((int64_t)acc * mult + ((int64_t)1 << 31)) >> 32);
    const int32_t e = shift + 1;
    if (e <= 0) {
        return (int32_t)(((int64_t)hi + ((int64_t)1 << -e >> 1)) >> -e);
    }
    if (hi > (INT32_MAX >> e)) {
        return INT32_MAX;
    }
    if (hi < (INT32_MIN >> e)) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)hi << e);
}

/** The gate products of hidden unit j for batch row b, at 2^-20, clamped to int32:
 *  gx[g] (input x weight_ih row g*H + j) and gh[g] (hidden x weight_hh), g < 4 (LSTM)
 *  or 3 (GRU). */
void mote_rnn_products(const mote_rnn_params_t *p, int32_t b, int32_t j, int64_t *gx, int64_t *gh);

/** The table's function (0 sigmoid, 1 tanh) of v * 2^-frac_bits, Q0.15, for an int16
 *  v and frac_bits in [0, 15] (recurrentref.act16): v clamped to [-8, 8), p = v + 8 * 2^F;
 *  with s = F - 6 > 0 the entry p >> s and the next, interpolated by the low s bits
 *  (rounded half up); else the entry p << -s. 32-bit arithmetic (|p| < 2^19). */
static inline int32_t mote_rnn_act(const mote_rnn_params_t *p, int fn, int32_t v, int32_t frac_bits)
{
    const int16_t *t = p->table + (fn ? MOTE_RNN_TABLE_SIZE : 0);
    const int32_t lo = -(8 << frac_bits);
    const int32_t s = frac_bits - MOTE_RNN_TABLE_STEP_BITS;
    const int32_t q = (v < lo ? lo : (v > -lo - 1 ? -lo - 1 : v)) - lo;
    int32_t i;
    if (s <= 0) {
        return t[q << -s];
    }
    i = q >> s;
    return t[i] + (((t[i + 1] - t[i]) * (q & ((1 << s) - 1)) + (1 << (s - 1))) >> s);
}

/** mote_rnn_act of a Q3.12 gate value q (already within int16) in 32-bit
 *  arithmetic: the same value (entry (q + 2^15) >> 6, the next, and 6 bits of
 *  interpolation). */
static inline int32_t mote_rnn_act12(const mote_rnn_params_t *p, int fn, int32_t q)
{
    const int16_t *t = p->table + (fn ? MOTE_RNN_TABLE_SIZE : 0);
    const int32_t u = q + 32768;
    const int32_t i = u >> MOTE_RNN_TABLE_STEP_BITS;
    const int32_t fr = u & ((1 << MOTE_RNN_TABLE_STEP_BITS) - 1);
    return t[i] + (((t[i + 1] - t[i]) * fr + (1 << (MOTE_RNN_TABLE_STEP_BITS - 1))) >> MOTE_RNN_TABLE_STEP_BITS);
}

/** A sum at 2^-20 rounded half up to Q3.12 and clamped to int16. */
static inline int64_t mote_rnn_q12(int64_t v)
{
    const int32_t e = MOTE_RNN_ACC_FRAC_BITS - MOTE_RNN_GATE_FRAC_BITS;
    const int64_t q = (v + ((int64_t)1 << (e - 1))) >> e;
    return q < -32768 ? -32768 : (q > 32767 ? 32767 : q);
}

#endif /* MOTE_S8_RNN_H */
