/*
 * selftest.c - port self-test firmware.
 *
 * Prints "MOTE hello", then times a loop of exactly 2*MOTE_SELFTEST_LOOP_N
 * instructions (subs + bne per turn) and an empty region:
 *   CYCLES <n>        cycles (QEMU: instructions) around the loop
 *   CYCLES_EMPTY <n>  the same measurement around nothing (call overhead)
 *   LOOP_INSNS <n>    the loop's instruction count, 2*N
 * and a runtime log line through mote_port_log (runtime/include/mote/port.h):
 *   LOG -5 7 beef ok -1234567890123 %
 * then exits with status 0.
 * -DMOTE_SELFTEST_FAULT: reads MOTE_SELFTEST_FAULT_ADDR after "MOTE hello";
 * the HardFault handler must report the PC of that load.
 * -DMOTE_SELFTEST_STACK_OVERFLOW: uses more stack than the build reserves;
 * on Armv8-M, MSPLIM turns that into a fault (CFSR.STKOF).
 * Lines "FPU <n>", "DSP <n>" and "MVE <n>" (when the core has them) prove the
 * start-up code enabled the coprocessors the board file declares.
 * -DMOTE_SELFTEST_ECHO: reads bytes from the UART until '\n' and prints
 * "ECHO <sum of bytes> <count>".
 */
#include <stdint.h>
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif
#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif

#include "mote/port.h"
#include "mote_port.h"

#ifndef MOTE_SELFTEST_LOOP_N
#define MOTE_SELFTEST_LOOP_N 10000u
#endif
#ifndef MOTE_SELFTEST_FAULT_ADDR
#define MOTE_SELFTEST_FAULT_ADDR 0xF0000000u
#endif

uint32_t mote_selftest_fault_read(void);

/* Kept out of line so the test can find the faulting load inside this symbol. */
__attribute__((noinline)) uint32_t mote_selftest_fault_read(void)
{
    return *(volatile uint32_t *)MOTE_SELFTEST_FAULT_ADDR;
}

#ifdef MOTE_SELFTEST_STACK_OVERFLOW
uint32_t mote_selftest_big_frame(uint32_t seed);

__attribute__((noinline)) uint32_t mote_selftest_big_frame(uint32_t seed)
{
    volatile uint32_t big[MOTE_SELFTEST_STACK_OVERFLOW / 4];
    uint32_t i;
    uint32_t sum = 0u;
    for (i = 0; i < MOTE_SELFTEST_STACK_OVERFLOW / 4; i++) {
        big[i] = seed + i;
    }
    for (i = 0; i < MOTE_SELFTEST_STACK_OVERFLOW / 4; i++) {
        sum += big[i];
    }
    return sum;
}
#endif

static void mote_selftest_features(void)
{
#if defined(__ARM_FP)
    {
        volatile float a = 1.5f;
        volatile float b = 2.25f;
        mote_port_puts("FPU ");
        mote_port_put_u32((uint32_t)(a * b * 1000.0f)); /* 3375 */
        mote_port_puts("\r\n");
    }
#endif
#if defined(__ARM_FEATURE_DSP)
    {
        volatile int32_t x = (int32_t)((3u << 16) | 2u); /* halfwords 3, 2 */
        volatile int32_t y = (int32_t)((5u << 16) | 7u); /* halfwords 5, 7 */
        mote_port_puts("DSP ");
        mote_port_put_i32(__smlad(x, y, 100)); /* 3*5 + 2*7 + 100 = 129 */
        mote_port_puts("\r\n");
    }
#endif
#if defined(__ARM_FEATURE_MVE)
    {
        volatile int32_t v = 3;
        int32x4_t q = vdupq_n_s32(v);
        q = vmulq_n_s32(q, 7);
        mote_port_puts("MVE ");
        mote_port_put_i32(vaddvq_s32(q)); /* 4 lanes * 21 = 84 */
        mote_port_puts("\r\n");
    }
#endif
}

int main(void)
{
    uint32_t c0;
    uint32_t c1;
    uint32_t e0;
    uint32_t e1;
    uint32_t n = MOTE_SELFTEST_LOOP_N;

    mote_port_puts("MOTE hello\r\n");
    mote_selftest_features();
#ifdef MOTE_SELFTEST_STACK_OVERFLOW
    mote_port_puts("STACK TEST\r\n");
    mote_port_put_u32(mote_selftest_big_frame(n));
    mote_port_puts("\r\nNOT REACHED\r\n");
#endif
#ifdef MOTE_SELFTEST_FAULT
    mote_port_puts("FAULT TEST\r\n");
    mote_port_put_hex32(mote_selftest_fault_read());
    mote_port_puts("\r\nNOT REACHED\r\n");
#endif
#ifdef MOTE_SELFTEST_ECHO
    {
        uint32_t sum = 0u;
        uint32_t count = 0u;
        int ch;
        do {
            ch = mote_port_getc();
            if (ch < 0) {
                break;
            }
            sum += (uint32_t)ch;
            count++;
        } while (ch != '\n');
        mote_port_puts("ECHO ");
        mote_port_put_u32(sum);
        mote_port_putc(' ');
        mote_port_put_u32(count);
        mote_port_puts("\r\n");
    }
#endif
    c0 = mote_port_cycles();
    __asm volatile(".syntax unified\n\t" /* GCC wraps Thumb-1 asm in divided syntax */
                   "1:\n\t"
                   "subs %0, %0, #1\n\t"
                   "bne 1b"
                   : "+l"(n) /* low register: Thumb-1 subs */
                   :
                   : "cc");
    c1 = mote_port_cycles();
    e0 = mote_port_cycles();
    e1 = mote_port_cycles();

    mote_port_puts("CYCLES ");
    mote_port_put_u32(c1 - c0);
    mote_port_puts("\r\nCYCLES_EMPTY ");
    mote_port_put_u32(e1 - e0);
    mote_port_puts("\r\nLOOP_INSNS ");
    mote_port_put_u32(2u * MOTE_SELFTEST_LOOP_N);
    mote_port_puts("\r\n");
    mote_port_log("LOG %d %u %x %s %lld %%", -5, 7u, 0xbeefu, "ok", -1234567890123LL);
    mote_port_puts("MOTE done\r\n");
    return 0;
}
