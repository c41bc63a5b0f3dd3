/*
 * runtime_port.c - the runtime's port functions (runtime/include/mote/port.h)
 * on bare-metal Cortex-M: log lines over the board UART, ticks from
 * mote_port_cycles(), abort through mote_port_abort() (exit.c).
 *
 * mote_port_log understands %d %i %u %x %X %c %s %p %% with the length
 * modifiers l, ll and z (no width or precision); it formats straight to the
 * UART, so it needs no buffer and no heap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "mote/port.h"
#include "mote_port.h"

static void mote_port_put_u64(uint64_t v, unsigned base, int upper)
{
    char buf[20];
    unsigned n = 0;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        buf[n++] = digits[v % base];
        v /= base;
    } while (v != 0u);
    while (n > 0u) {
        mote_port_putc(buf[--n]);
    }
}

void mote_port_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    while (*fmt != '\0') {
        int lng = 0; /* 0 int, 1 long, 2 long long, 3 size_t */
        char c = *fmt++;
        if (c != '%') {
            mote_port_putc(c);
            continue;
        }
        if (*fmt == 'l') {
            fmt++;
            lng = 1;
            if (*fmt == 'l') {
                fmt++;
                lng = 2;
            }
        } else if (*fmt == 'z') {
            fmt++;
            lng = 3;
        }
        c = *fmt;
        if (c == '\0') {
            break;
        }
        fmt++;
        if (c == 'd' || c == 'i') {
            int64_t v = lng == 2 ? va_arg(ap, long long)
                      : lng == 1 ? (int64_t)va_arg(ap, long)
                      : lng == 3 ? (int64_t)va_arg(ap, ptrdiff_t)
                                 : (int64_t)va_arg(ap, int);
            if (v < 0) {
                mote_port_putc('-');
                mote_port_put_u64(0u - (uint64_t)v, 10u, 0);
            } else {
                mote_port_put_u64((uint64_t)v, 10u, 0);
            }
        } else if (c == 'u' || c == 'x' || c == 'X') {
            uint64_t v = lng == 2 ? va_arg(ap, unsigned long long)
                       : lng == 1 ? (uint64_t)va_arg(ap, unsigned long)
                       : lng == 3 ? (uint64_t)va_arg(ap, size_t)
                                  : (uint64_t)va_arg(ap, unsigned);
            mote_port_put_u64(v, c == 'u' ? 10u : 16u, c == 'X');
        } else if (c == 'c') {
            mote_port_putc((char)va_arg(ap, int));
        } else if (c == 's') {
            const char *s = va_arg(ap, const char *);
            mote_port_puts(s != NULL ? s : "(null)");
        } else if (c == 'p') {
            mote_port_put_hex32((uint32_t)(uintptr_t)va_arg(ap, void *));
        } else {
            mote_port_putc(c); /* "%%" and unknown conversions print the character */
        }
    }
    va_end(ap);
    mote_port_puts("\r\n");
}

uint32_t mote_port_ticks(void)
{
    return mote_port_cycles();
}
