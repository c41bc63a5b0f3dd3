/*
 * mote_port.h - the bare-metal Cortex-M port API (ports/cortex-m).
 *
 * Firmware built by aot.deploy.firmware links exactly one implementation of each
 * function: the common Cortex-M files (startup, cycles, exit, print), the
 * board's port (ports/qemu or ports/pico2 or the generic stub) and the UART
 * driver named by the board file. Board facts arrive as macros in the
 * generated "mote_board.h" (see aot/deploy/firmware.py).
 *
 * Start-up order: the reset handler copies .data, zeroes .bss, enables the
 * FPU when the board has one, sets MSPLIM (Armv8-M), calls
 * mote_port_board_init() (clocks, UART, cycle counter), then main(). A
 * return from main() calls mote_port_exit() with main's value.
 */
#ifndef MOTE_CORTEX_M_PORT_H
#define MOTE_CORTEX_M_PORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Exit statuses the port itself uses (main's own value is passed through). */
#define MOTE_PORT_EXIT_ABORT 2 /* mote_port_abort() */
#define MOTE_PORT_EXIT_FAULT 3 /* HardFault or an unexpected exception */

/** Board set-up run by the reset handler before main(): clocks, UART, counter. */
void mote_port_board_init(void);

/** Blocking write of one byte to the board UART (discarded when there is none). */
void mote_port_putc(char c);
/** Blocking read of one byte from the board UART; -1 when the board has none. */
int mote_port_getc(void);
/** UART driver set-up; called by mote_port_board_init(). */
void mote_port_uart_init(void);

/** Writes a NUL-terminated string (no newline added). */
void mote_port_puts(const char *s);
/** Writes `len` bytes. */
void mote_port_write(const void *data, uint32_t len);
/** Writes an unsigned decimal number. */
void mote_port_put_u32(uint32_t v);
/** Writes a signed decimal number. */
void mote_port_put_i32(int32_t v);
/** Writes "0x" and 8 hex digits. */
void mote_port_put_hex32(uint32_t v);
/**
 * Reads one line "<tag> <hex>" from the UART (ports/cortex-m/app: "I" inputs, "S" slot
 * images): skips bytes up to `tag`, then stores the line's hex digit pairs in buf up to
 * '\n' or the end of input (other characters, such as the space after the tag and '\r',
 * are skipped; bytes beyond `cap` are counted, not stored). *len: the bytes the line held.
 * Returns 0 (*len untouched) when a 'Q' or the end of input comes before the tag, else 1.
 */
int mote_port_read_hex_line(char tag, uint8_t *buf, uint32_t cap, uint32_t *len);
/**
 * The rest of a hex line whose tag the caller has read (mote_app.c reads its own tags:
 * "R" resets the state between "I" lines): its hex digit pairs into buf up to '\n' or the
 * end of input, as mote_port_read_hex_line. Returns the bytes the line held (those beyond
 * `cap` counted, not stored).
 */
uint32_t mote_port_read_hex_rest(uint8_t *buf, uint32_t cap);

/**
 * Free-running counter, wrapping at 2^32.
 * Silicon (board cycle_counter "dwt"): DWT CYCCNT, core clock cycles.
 * QEMU (cycle_counter "systick-icount", run with -icount shift=0, where one
 * instruction is one nanosecond of virtual time): SysTick on the CPU clock,
 * converted to nanoseconds = instructions. SysTick only ticks every
 * 1e9/systick_hz instructions (50 on mps2-an505), so each call spins to the
 * next edge and leaves its own spinning out of the count: the difference of
 * two calls is the instructions between them plus a constant overhead (the
 * difference of two back-to-back calls), exact to about 4 instructions.
 */
uint32_t mote_port_cycles(void);

/**
 * Bytes of the reserved main stack used so far (high-water mark, bytes from
 * __stack_top down to the lowest word that no longer holds the pattern the
 * reset handler painted). A measurement for the size report, not a guard:
 * MSPLIM (Armv8-M) catches an overflow.
 */
uint32_t mote_port_stack_peak(void);

/** Ends the program: semihosting SYS_EXIT_EXTENDED on simulators, else parks the core. */
void mote_port_exit(int status) __attribute__((noreturn));
/** Prints "MOTE ABORT" and exits with MOTE_PORT_EXIT_ABORT. */
void mote_port_abort(void) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif
#endif /* MOTE_CORTEX_M_PORT_H */
