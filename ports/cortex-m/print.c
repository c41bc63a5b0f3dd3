/* print.c - small formatted output over the port UART, and the hex lines the
 * applications read from it (no stdio, no heap). */
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

static int port_hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

uint32_t mote_port_read_hex_rest(uint8_t *buf, uint32_t cap)
{
    int c;
    uint32_t got = 0;
    int hi = -1;
    while ((c = mote_port_getc()) >= 0 && c != '\n') {
        int v = port_hex_value(c);
        if (v < 0) continue; /* the space after the tag, '\r' */
        if (hi < 0) {
            hi = v;
        } else {
            if (got < cap) buf[got] = (uint8_t)((hi << 4) | v);
            ++got;
            hi = -1;
        }
    }
    return got;
}

int mote_port_read_hex_line(char tag, uint8_t *buf, uint32_t cap, uint32_t *len)
{
    int c;
    do {
        c = mote_port_getc();
        if (c < 0 || c == 'Q') return 0;
    } while (c != tag);
    *len = mote_port_read_hex_rest(buf, cap);
    return 1;
}
