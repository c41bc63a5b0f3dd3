/* print.c - small formatted output over the port UART (no stdio, no heap). */
#include <stdint.h>

#include "mote_port.h"

void mote_port_puts(const char *s)
{
    while (*s != '\0') {
        mote_port_putc(*s++);
    }
}

void mote_port_write(const void *data, uint32_t len)
{
    const char *p = (const char *)data;
    uint32_t i;
    for (i = 0; i < len; i++) {
        mote_port_putc(p[i]);
    }
}

void mote_port_put_u32(uint32_t v)
{
    char buf[10];
    uint32_t n = 0;
    do {
        buf[n++] = (char)('0' + (v % 10u));
        v /= 10u;
    } while (v != 0u);
    while (n > 0u) {
        mote_port_putc(buf[--n]);
    }
}

void mote_port_put_i32(int32_t v)
{
    if (v < 0) {
        mote_port_putc('-');
        mote_port_put_u32(0u - (uint32_t)v);
    } else {
        mote_port_put_u32((uint32_t)v);
    }
}

void mote_port_put_hex32(uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    int shift;
    mote_port_putc('0');
    mote_port_putc('x');
    for (shift = 28; shift >= 0; shift -= 4) {
        mote_port_putc(digits[(v >> shift) & 0xFu]);
    }
}
