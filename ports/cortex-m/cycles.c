/*
 * cycles.c - mote_port_cycles(): DWT CYCCNT on silicon, SysTick x icount in QEMU.
 *
 * DWT (Armv7-M / Armv8-M ARM, "Data Watchpoint and Trace unit"):
 *   DEMCR 0xE000EDFC bit 24 TRCENA enables the DWT; DWT_CTRL 0xE0001000
 *   bit 0 CYCCNTENA starts CYCCNT at 0xE0001004 (core clock cycles).
 * SysTick (same manuals, "The system timer, SysTick"): CSR 0xE000E010
 *   (bit 0 ENABLE, bit 1 TICKINT, bit 2 CLKSOURCE = processor clock), RVR
 *   0xE000E014 (24-bit reload), CVR 0xE000E018 (counts down). ICSR
 *   0xE000ED04 bit 26 PENDSTSET: a SysTick exception is pending.
 *
 * QEMU with -icount shift=0 runs one instruction per nanosecond of virtual
 * time but SysTick only moves every 1e9/MOTE_BOARD_SYSTICK_HZ ns (50 on
 * mps2-an505). mote_port_cycles() therefore spins (4 instructions per turn,
 * interrupts masked) until the counter changes: the edge time is known
 * exactly, and the turns spun say how long before the edge the call started
 * (entry = edge - 4 * turns). The time spent spinning varies from call to
 * call (0..50 instructions), so the value returned is the entry time minus
 * all the spinning done by earlier calls: a clock that stops while it spins.
 * Two calls then differ by the instructions between them plus a constant
 * (the non-spinning part of one call, measured by calling twice in a row),
 * exact to the 4-instruction loop.
 *
 * Silicon without DWT CYCCNT (Armv6-M: Cortex-M0/M0+; board cycle_counter
 * "systick"): SysTick on the processor clock counts down from 2^24 - 1 and
 * its exception counts the wraps, so cycles = wraps * 2^24 + (2^24 - 1 - CVR)
 * (a wrap that is pending but not yet handled is added when CVR is high).
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"

void mote_port_cycles_init(void);

#if MOTE_BOARD_CYCLES_DWT

#define MOTE_DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define MOTE_DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define MOTE_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

void mote_port_cycles_init(void)
{
    MOTE_DEMCR |= (1u << 24); /* TRCENA */
    MOTE_DWT_CYCCNT = 0u;
    MOTE_DWT_CTRL |= 1u; /* CYCCNTENA */
}

uint32_t mote_port_cycles(void)
{
    return MOTE_DWT_CYCCNT;
}

#elif MOTE_BOARD_CYCLES_SYSTICK_ICOUNT

#define MOTE_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define MOTE_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define MOTE_SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define MOTE_SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define MOTE_SYST_MAX 0x00FFFFFFu   /* 24-bit counter */
#define MOTE_SPIN_INSNS 4u          /* ldr, adds, cmp, beq */

void mote_port_systick_handler(void);

static volatile uint32_t mote_port_systick_wraps;
static uint32_t mote_port_spun; /* instructions spent spinning by earlier calls */

void mote_port_systick_handler(void)
{
    mote_port_systick_wraps++;
}

void mote_port_cycles_init(void)
{
    mote_port_systick_wraps = 0u;
    mote_port_spun = 0u;
    MOTE_SYST_CSR = 0u;
    MOTE_SYST_RVR = MOTE_SYST_MAX;
    MOTE_SYST_CVR = 0u;   /* any write clears the counter */
    MOTE_SYST_CSR = 7u;   /* ENABLE | TICKINT | CLKSOURCE(cpu) */
}

uint32_t mote_port_cycles(void)
{
    uint32_t primask;
    uint32_t v0;
    uint32_t v;
    uint32_t turns = 0u;
    uint32_t wraps;
    uint64_t ticks;
    uint32_t ns;
    uint32_t spun;

    __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    v0 = MOTE_SYST_CVR;
    __asm volatile(".syntax unified\n\t" /* GCC wraps Thumb-1 asm in divided syntax */
                   "1:\n\t"
                   "ldr %[v], [%[cvr]]\n\t"
                   "adds %[t], %[t], #1\n\t"
                   "cmp %[v], %[v0]\n\t"
                   "beq 1b"
                   : [v] "=&l"(v), [t] "+&l"(turns) /* "l": low registers (Thumb-1) */
                   : [cvr] "l"(&MOTE_SYST_CVR), [v0] "l"(v0)
                   : "cc", "memory");
    wraps = mote_port_systick_wraps;
    if ((MOTE_SCB_ICSR & (1u << 26)) != 0u && v > (MOTE_SYST_MAX / 2u)) {
        wraps++; /* wrapped at this edge; the handler has not run yet */
    }
    spun = mote_port_spun;
    mote_port_spun = spun + turns * MOTE_SPIN_INSNS;
    __asm volatile("msr primask, %0" : : "r"(primask) : "memory");

    ticks = ((uint64_t)wraps << 24) + (uint64_t)(MOTE_SYST_MAX - v);
    /* ns per tick in Q8 fixed point: 1e9 * 256 / systick_hz (exact for 20/32 MHz). */
    ns = (uint32_t)((ticks * (uint64_t)MOTE_BOARD_SYSTICK_NS_Q8) >> 8);
    return ns - turns * MOTE_SPIN_INSNS - spun;
}

#elif MOTE_BOARD_CYCLES_SYSTICK

#define MOTE_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define MOTE_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define MOTE_SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define MOTE_SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define MOTE_SYST_MAX 0x00FFFFFFu

void mote_port_systick_handler(void);

static volatile uint32_t mote_port_systick_wraps;

void mote_port_systick_handler(void)
{
    mote_port_systick_wraps++;
}

void mote_port_cycles_init(void)
{
    mote_port_systick_wraps = 0u;
    MOTE_SYST_CSR = 0u;
    MOTE_SYST_RVR = MOTE_SYST_MAX;
    MOTE_SYST_CVR = 0u;
    MOTE_SYST_CSR = 7u; /* ENABLE | TICKINT | CLKSOURCE(cpu) */
}

uint32_t mote_port_cycles(void)
{
    uint32_t primask;
    uint32_t v;
    uint32_t wraps;
    __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    v = MOTE_SYST_CVR;
    wraps = mote_port_systick_wraps;
    if ((MOTE_SCB_ICSR & (1u << 26)) != 0u && v > (MOTE_SYST_MAX / 2u)) {
        wraps++;
    }
    __asm volatile("msr primask, %0" : : "r"(primask) : "memory");
    return (wraps << 24) + (MOTE_SYST_MAX - v);
}

#else
#error "mote_board.h selects no cycle counter"
#endif
