/*
 * exit.c - program exit and the newlib stubs a no-heap build needs.
 *
 * Semihosting (Arm "Semihosting for AArch32 and AArch64", v2): on M-profile
 * the call is BKPT 0xAB with the operation in r0 and the argument in r1.
 * SYS_EXIT_EXTENDED = 0x20 takes a pointer to {reason, subcode};
 * reason ADP_Stopped_ApplicationExit = 0x20026, subcode = exit status.
 * QEMU exits with that status (run with -semihosting-config enable=on).
 *
 * No _sbrk is defined on purpose: anything that pulls the C library's
 * allocator into the image fails to link instead of growing a heap.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mote_board.h"
#include "mote_port.h"

#define MOTE_SEMIHOST_SYS_EXIT_EXTENDED 0x20u
#define MOTE_SEMIHOST_ADP_STOPPED_APPLICATION_EXIT 0x20026u

void _exit(int status) __attribute__((noreturn));

void mote_port_exit(int status)
{
#if MOTE_BOARD_SEMIHOSTING
    volatile uint32_t block[2];
    block[0] = MOTE_SEMIHOST_ADP_STOPPED_APPLICATION_EXIT;
    block[1] = (uint32_t)status;
    __asm volatile("mov r0, %0\n\tmov r1, %1\n\tbkpt 0xab"
                   :
                   : "r"(MOTE_SEMIHOST_SYS_EXIT_EXTENDED), "r"(block)
                   : "r0", "r1", "memory");
#else
    mote_port_puts("MOTE EXIT ");
    mote_port_put_i32((int32_t)status);
    mote_port_puts("\r\n");
#endif
    for (;;) {
        __asm volatile("wfi");
    }
}

void mote_port_abort(void)
{
    mote_port_puts("\r\nMOTE ABORT\r\n");
    mote_port_exit(MOTE_PORT_EXIT_ABORT);
}

/* newlib: exit() and abort() end here. */
void _exit(int status)
{
    mote_port_exit(status);
}

void abort(void)
{
    mote_port_abort();
}
