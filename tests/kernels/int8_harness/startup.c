/*
 * Minimal bare-metal startup for the int8 kernel harness (QEMU mps2-an505 /
 * mps3-an547, Secure state): vector table, .data/.bss init, FPU/MVE enable,
 * semihosting output and exit. Self-contained on purpose (no ports/ code).
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"

extern uint32_t __stack_top[];
extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
int main(void);
void harness_reset(void);
void harness_fault(void);

static uint32_t semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void harness_puts(const char *s)
{
    (void)semihost(0x04u, s); /* SYS_WRITE0 */
}

void harness_exit(int code)
{
    uint32_t block[2];
    block[0] = 0x20026u; /* ADP_Stopped_ApplicationExit */
    block[1] = (uint32_t)code;
    for (;;) {
        (void)semihost(0x20u, block); /* SYS_EXIT_EXTENDED */
    }
}

void harness_fault(void)
{
    harness_puts("FAULT\n");
    harness_exit(3);
}

void harness_reset(void)
{
    volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20; /* CP10, CP11 full access: FPU and MVE */
    __asm__ volatile("dsb\n isb" ::: "memory");
    memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
    memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start));
    harness_exit(main());
}

typedef void (*vector_t)(void);
__attribute__((section(".vectors"), used)) const vector_t harness_vectors[16] = {
    (vector_t)(uintptr_t)__stack_top, harness_reset, harness_fault, harness_fault,
    harness_fault, harness_fault, harness_fault, 0, 0, 0, 0, harness_fault, 0, 0,
    harness_fault, harness_fault,
};

/* SysTick: free-running 24-bit down counter on the core clock (no interrupt). */
void harness_ticks_start(void)
{
    volatile uint32_t *st = (volatile uint32_t *)0xE000E010u;
    st[0] = 0;
    st[1] = 0x00FFFFFFu; /* RVR */
    st[2] = 0;           /* CVR */
    st[0] = 5u;          /* ENABLE | CLKSOURCE = core */
}

uint32_t harness_ticks(void)
{
    return *(volatile uint32_t *)0xE000E018u; /* CVR, counts down */
}

/* Exactly 2 * n + O(1) instructions: the calibration of ticks per instruction. */
void harness_spin(uint32_t n)
{
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n) : : "cc");
}
