/*
 * tinylm_app.c - the tiny LM's firmware: greedy text generation on the device.
 *
 * The program has two methods (examples/tinylm/tinylm.py): prefill(tokens
 * [1, PROMPT] int64) and decode(token [1, 1] int64, pos [1] int64), both
 * returning the next-token logits [1, V] float32 and sharing the KV cache
 * (mutable buffers). The prompt is the build's one embedded input set
 * (model_inputs.S: prefill's input bytes). The app runs prefill, then
 * TINYLM_NEW_TOKENS - 1 decode steps, each fed the argmax of the previous
 * logits (greedy, lowest index on ties, as torch.argmax), and prints
 *
 *   MOTE BOOT <board>
 *   TOK <step> <token id> <instructions of that step>
 *   MOTE DONE <tokens>
 *
 * (instructions: mote_port_cycles(), exact instruction counts under QEMU
 * -icount). Errors print "MOTE ERROR <stage> <code>" and exit 1.
 *
 * TINYLM_DECODE_ONLY (the demo's traced build, for the cycle estimate) skips
 * prefill and runs the decode steps on the initial cache: a decode step costs
 * the same whatever the cache holds (attention always spans every position).
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/model.h"
#include "mote_model.h"
#include "mote_port.h"

#ifndef MOTE_APP_BOARD_NAME
#define MOTE_APP_BOARD_NAME "unknown"
#endif
#ifndef TINYLM_NEW_TOKENS
#define TINYLM_NEW_TOKENS 48
#endif
#ifndef TINYLM_PROMPT
#error "TINYLM_PROMPT (the prompt's length in tokens) comes from the build"
#endif

extern const uint8_t mote_inputs[]; /* the prompt: TINYLM_PROMPT int64 token ids */

static void fail(const char *stage, mote_err_t err)
{
    mote_port_puts("MOTE ERROR ");
    mote_port_puts(stage);
    mote_port_putc(' ');
    mote_port_put_i32((int32_t)err);
    mote_port_putc('\n');
    mote_port_exit(1);
}

static void check(const char *stage, mote_err_t err)
{
    if (err != MOTE_OK) {
        fail(stage, err);
    }
}

/* Index of the largest of `n` logits (the first one on a tie). */
static uint32_t argmax(const float *x, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i) {
        if (x[i] > x[best]) {
            best = i;
        }
    }
    return best;
}

/* Runs the selected method; prints its TOK line; returns the next token. */
static int64_t step(uint32_t k)
{
    const void *out;
    size_t nbytes;
    const uint32_t t0 = mote_port_cycles();
    check("run", mote_model_run());
    const uint32_t spent = mote_port_cycles() - t0;
    check("output", mote_model_get_output(0, &out, &nbytes));
    const uint32_t tok = argmax((const float *)out, (uint32_t)(nbytes / sizeof(float)));
    mote_port_puts("TOK ");
    mote_port_put_u32(k);
    mote_port_putc(' ');
    mote_port_put_u32(tok);
    mote_port_putc(' ');
    mote_port_put_u32(spent);
    mote_port_putc('\n');
    return (int64_t)tok;
}

int main(void)
{
    static int64_t token[1], pos[1];
    mote_port_puts("MOTE BOOT " MOTE_APP_BOARD_NAME "\n");
    check("init", mote_model_init());
#ifndef TINYLM_DECODE_ONLY
    check("select", mote_model_select_method("prefill"));
    check("input", mote_model_set_input(0, mote_inputs, (size_t)TINYLM_PROMPT * sizeof(int64_t)));
    token[0] = step(0);
#else
    token[0] = (int64_t)((const int64_t *)(const void *)mote_inputs)[0];
#endif
    check("select", mote_model_select_method("decode"));
    for (uint32_t k = 1; k < (uint32_t)TINYLM_NEW_TOKENS; ++k) {
        pos[0] = (int64_t)TINYLM_PROMPT + (int64_t)k - 1;
        check("input", mote_model_set_input(0, token, sizeof token));
        check("input", mote_model_set_input(1, pos, sizeof pos));
        token[0] = step(k);
    }
    mote_port_puts("MOTE DONE ");
    mote_port_put_u32((uint32_t)TINYLM_NEW_TOKENS);
    mote_port_putc('\n');
    return 0;
}
