/*
 * app_host_port.c - ports/cortex-m's port API on a Linux host (stdio), so the
 * firmware application ports/cortex-m/app/mote_app.c runs as a host program
 * in tests (its boot-time checksum check, test_crc32.py).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mote/port.h"
#include "mote_port.h"

void mote_port_putc(char c)
{
    putchar(c);
}

int mote_port_getc(void)
{
    return getchar();
}

void mote_port_uart_init(void)
{
}

void mote_port_puts(const char *s)
{
    fputs(s, stdout);
}

void mote_port_write(const void *data, uint32_t len)
{
    fwrite(data, 1, len, stdout);
}

void mote_port_put_u32(uint32_t v)
{
    printf("%lu", (unsigned long)v);
}

void mote_port_put_i32(int32_t v)
{
    printf("%ld", (long)v);
}

void mote_port_put_hex32(uint32_t v)
{
    printf("%08lx", (unsigned long)v);
}

uint32_t mote_port_cycles(void)
{
    return 0u;
}

/* The runtime's tick source (mote/port.h): the host build's runtime archive has the tracer (MOTE_TRACE). */
uint32_t mote_port_ticks(void)
{
    return mote_port_cycles();
}

/* The host has no painted stack to measure: report 0 bytes. */
uint32_t mote_port_stack_peak(void)
{
    return 0u;
}

void mote_port_exit(int status)
{
    fflush(stdout);
    exit(status);
}

void mote_port_abort(void)
{
    mote_port_exit(MOTE_PORT_EXIT_ABORT);
}
