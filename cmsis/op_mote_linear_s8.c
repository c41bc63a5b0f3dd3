/*
 * mote::linear_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h).
 * No scratch: MVE dots each input row against four weight rows in place (zero
 * point folded into the bias as zp * sum w) and requantizes four outputs per vector; DSP widens
 * the input row (x - zp) once per 256 taps onto the stack and accumulates four
 * output features per pass with SXTB16 + SMLAD.
 * Same bytes as kernels/op_mote_linear_s8.c.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::linear_s8.out")

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);

#if defined(MOTE_S8_DSP)
/** Taps of the input row widened per pass (on the stack: LIN_CHUNK * 2 bytes). */
#define LIN_CHUNK 256

/**
 * Widen x[0..n) (n a multiple of 4) minus the zero point into SXTB16 pairs:
 * per 4 taps (x0 - zp, x2 - zp), (x1 - zp, x3 - zp).
 */
MOTE_S8_HOT static void linear_widen(const int8_t *x, int32_t n, int32_t zp, int32_t *xb)
{
    const int32_t zp2 = (int32_t)(((uint32_t)zp & 0xffffu) | ((uint32_t)zp << 16));
    int32_t i;
    for (i = 0; i < n; i += 4, xb += 2) {
        const uint32_t v = mote_s8_ld32(x + i);
        xb[0] = __ssub16(__sxtb16((int32_t)v), zp2);
        xb[1] = __ssub16(mote_s8_sxtb16_ror8(v), zp2);
    }
}

/**
 * Four weight rows (w, w + k, w + 2k, w + 3k) against the widened taps xb over n
 * taps (a multiple of 4): per 4 taps one LDRD of x, then per row LDR (register
 * offsets from row 0), two SXTB16 and two SMLAD (24 instructions with the loop,
 * 16 MACs). acc[] accumulates.
 */
MOTE_S8_HOT static void linear_dot4(const int8_t *w, int32_t k, const int32_t *xb, int32_t n, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t xe, xo, v, t;
    int32_t cnt = n >> 2;
    if (cnt > 0) {
#define LIN_ROW(a)                                                                         \
    "sxtb16 %[t], %[v]\n\t"                                                                \
    "smlad " a ", %[t], %[xe], " a "\n\t"                                                  \
    "sxtb16 %[v], %[v], ror #8\n\t"                                                        \
    "smlad " a ", %[v], %[xo], " a "\n\t"
        __asm__ volatile("1:\n\t"
                         "ldrd %[xe], %[xo], [%[xb]], #8\n\t"
                         "ldr %[v], [%[w], %[k]]\n\t" LIN_ROW("%[a1]")
                         "ldr %[v], [%[w], %[k], lsl #1]\n\t" LIN_ROW("%[a2]")
                         "add %[t], %[w], %[k]\n\t"
                         "ldr %[v], [%[t], %[k], lsl #1]\n\t" LIN_ROW("%[a3]")
                         "ldr %[v], [%[w]], #4\n\t" LIN_ROW("%[a0]")
                         "subs %[n], %[n], #1\n\t"
                         "bne 1b\n\t"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
                           [w] "+r"(w), [xb] "+r"(xb), [n] "+r"(cnt), [xe] "=&r"(xe),
                           [xo] "=&r"(xo), [v] "=&r"(v), [t] "=&r"(t)
                         : [k] "r"(k)
                         : "cc", "memory");
#undef LIN_ROW
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/**
 * One input row: the taps widened LIN_CHUNK at a time (x - zp, int16), four
 * output features per pass over them (a feature tail reuses the last row and
 * stores only the valid ones), the last K % 4 taps in plain C.
 */
MOTE_S8_HOT static void linear_row(const mote_s8_conv_params_t *p, const int8_t *x, int8_t *o)
{
    const int32_t k = p->cin;
    const int32_t k4 = k & ~3;
    int32_t xb[LIN_CHUNK / 2];
    int32_t n, c0, j, i;
    if (k4 <= LIN_CHUNK) {
        linear_widen(x, k4, p->in_zp, xb);
    }
    for (n = 0; n < p->cout; n += 4) {
        const int32_t nv = p->cout - n < 4 ? p->cout - n : 4;
        int32_t acc[4] = {0, 0, 0, 0};
        const int8_t *w = p->weight + (size_t)n * k;
        if (nv < 4) { /* rows past the end: compute the last valid row again */
            w = p->weight + (size_t)(p->cout - 4 >= 0 ? p->cout - 4 : 0) * k;
        }
        if (p->cout >= 4) {
            for (c0 = 0; c0 < k4; c0 += LIN_CHUNK) {
                const int32_t kc = k4 - c0 < LIN_CHUNK ? k4 - c0 : LIN_CHUNK;
                if (k4 > LIN_CHUNK) {
                    linear_widen(x + c0, kc, p->in_zp, xb);
                }
                linear_dot4(w + c0, k, xb, kc, acc);
            }
            for (i = k4; i < k; i++) {
                const int32_t xv = (int32_t)x[i] - p->in_zp;
                for (j = 0; j < 4; j++) {
                    acc[j] += xv * w[(size_t)j * k + i];
                }
            }
        } else { /* fewer than four features in all: plain C */
            for (j = 0; j < nv; j++) {
                const int8_t *wr = w + (size_t)j * k;
                for (i = 0; i < k; i++) {
                    acc[j] += ((int32_t)x[i] - p->in_zp) * wr[i];
                }
            }
        }
        for (j = 0; j < nv; j++) {
            /* which accumulator holds feature n + j */
            const int32_t a = nv < 4 && p->cout >= 4 ? acc[j + 4 - nv] : acc[j];
            o[n + j] = mote_s8_finish_c(p, (int32_t)((uint32_t)a + (uint32_t)p->bias[n + j]),
                                        n + j);
        }
    }
}
#endif

#if defined(MOTE_S8_MVE)
/** Every output row, four output features per pass (zero point folded into the bias). */
MOTE_S8_HOT static void linear_mve(const mote_s8_conv_params_t *p)
{
    const int32_t k = p->cin;
    int32_t m, n;
    for (n = 0; n < p->cout; n += 4) {
        const int8_t *w0 = p->weight + (size_t)n * k;
        const int8_t *w1 = n + 1 < p->cout ? w0 + k : w0;
        const int8_t *w2 = n + 2 < p->cout ? w1 + k : w1;
        const int8_t *w3 = n + 3 < p->cout ? w2 + k : w2;
        const int8_t *rows[4];
        int32_t cb[4], s[4], j;
        rows[0] = w0;
        rows[1] = w1;
        rows[2] = w2;
        rows[3] = w3;
        for (j = 0; j < 4; j++) {
            cb[j] = n + j < p->cout
                        ? (int32_t)((uint32_t)p->bias[n + j] -
                                    (uint32_t)p->in_zp * (uint32_t)mote_s8_mve_sum(rows[j], k))
                        : 0;
        }
        for (m = 0; m < p->n; m++) {
            mote_s8_mve_dot4(p->input + (size_t)m * k, w0, w1, w2, w3, k, s);
            mote_s8_mve_store4(p, s, cb, n, p->output + (size_t)m * p->cout);
        }
    }
}
#endif

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_s8_conv_params_t p;
    const mote_err_t e = mote_s8_linear_parse(args, nargs, 1, &p);
    (void)ctx;
    if (e != MOTE_OK) {
        return e;
    }
#if defined(MOTE_S8_MVE)
    linear_mve(&p);
#elif defined(MOTE_S8_DSP)
    {
        int32_t m;
        for (m = 0; m < p.n; m++) {
            linear_row(&p, p.input + (size_t)m * p.cin, p.output + (size_t)m * p.cout);
        }
    }
#else
    {
        const int32_t k = p.cin;
        int32_t m, n;
        for (m = 0; m < p.n; m++) {
            const int8_t *x = p.input + (size_t)m * k;
            for (n = 0; n < p.cout; n++) {
                const int8_t *w = p.weight + (size_t)n * k;
                uint32_t acc = (uint32_t)p.bias[n];
                int32_t i;
                for (i = 0; i < k; i++) {
                    acc += (uint32_t)(((int32_t)x[i] - p.in_zp) * (int32_t)w[i]);
                }
                p.output[(size_t)m * p.cout + n] = mote_s8_finish_c(&p, (int32_t)acc, n);
            }
        }
    }
#endif
    return MOTE_OK;
}
