/*
 * int8 kernel harness: runs every case of the generated vectors.h through the
 * kernel ABI and prints, per case:
 *   case <name> rc=<rc> ticks=<systick ticks> out=<hex bytes>
 * then "calib ticks=<t> instr=<n>" (a loop of known instruction count) and
 * "path <dsp|mve|plain>". Exit status 0.
 */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "mote/kernel.h"
#include "vectors.h" /* generated: HARNESS_CASES, harness_cases[] */

#ifndef MOTE_S8_PATH
#define MOTE_S8_PATH "unknown"
#endif

static char line[256];

static void put_hex_bytes(const int8_t *p, uint32_t n)
{
    static const char hx[] = "0123456789abcdef";
    uint32_t i, j = 0;
    for (i = 0; i < n; i++) {
        line[j++] = hx[((uint8_t)p[i]) >> 4];
        line[j++] = hx[((uint8_t)p[i]) & 15u];
        if (j >= sizeof(line) - 2) {
            line[j] = 0;
            harness_puts(line);
            j = 0;
        }
    }
    line[j] = 0;
    harness_puts(line);
}

static void put_u(uint32_t v)
{
    char b[12];
    int i = 11;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    harness_puts(&b[i]);
}

static void put_i(int32_t v)
{
    if (v < 0) {
        harness_puts("-");
        put_u((uint32_t)(-(v + 1)) + 1u);
    } else {
        put_u((uint32_t)v);
    }
}

int main(void)
{
    uint32_t i, t0, t1;
    harness_ticks_start();
    harness_puts("path " MOTE_S8_PATH "\n");
    for (i = 0; i < HARNESS_CASES; i++) {
        const harness_case_t *c = &harness_cases[i];
        mote_kernel_ctx_t ctx;
        mote_err_t rc;
        ctx.scratch = c->scratch;
        ctx.scratch_size = c->scratch_size;
        t0 = harness_ticks();
        rc = c->fn(&ctx, c->args, c->nargs);
        t1 = harness_ticks();
        harness_puts("case ");
        harness_puts(c->name);
        harness_puts(" rc=");
        put_i(rc);
        harness_puts(" ticks=");
        put_u((t0 - t1) & 0x00FFFFFFu);
        harness_puts(" out=");
        put_hex_bytes((const int8_t *)c->out->data, c->out->nbytes);
        harness_puts("\n");
    }
    t0 = harness_ticks();
    harness_spin(1000000u);
    t1 = harness_ticks();
    harness_puts("calib ticks=");
    put_u((t0 - t1) & 0x00FFFFFFu);
    harness_puts(" instr=2000000\n");
    return 0;
}
