/*
 * STAND-IN kernel for a QEMU smoke run, not Zephyr: the four Zephyr functions
 * Mote's Zephyr port and sample call (printk, vprintk, k_cycle_get_32,
 * k_panic, sys_reboot), implemented over Mote's own bare-metal Cortex-M port
 * (ports/cortex-m: UART, cycle counter, semihosting exit). With it, a
 * stand-in build of examples/zephyr/digits (the module's libraries and the
 * sample's main.c, unchanged) links against the mps2-an505 start-up code and
 * runs in QEMU, so the port's log path and the sample's lines are exercised.
 *
 * vprintk handles what the port and the sample print: %d %i %u %x %c %s %%
 * with the l and z modifiers (32-bit values; no width or precision).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>
#include <zephyr/sys/reboot.h>

#include "mote_port.h"

static void put_unsigned(uint32_t v, unsigned base)
{
    char buf[11];
    unsigned n = 0;
    do {
        buf[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0u);
    while (n > 0u) {
        mote_port_putc(buf[--n]);
    }
}

void vprintk(const char *fmt, va_list ap)
{
    while (*fmt != '\0') {
        char c = *fmt++;
        if (c != '%') {
            if (c == '\n') {
                mote_port_putc('\r');
            }
            mote_port_putc(c);
            continue;
        }
        while (*fmt == 'l' || *fmt == 'z') {
            fmt++;
        }
        c = *fmt;
        if (c == '\0') {
            break;
        }
        fmt++;
        if (c == 'd' || c == 'i') {
            int32_t v = va_arg(ap, int32_t);
            if (v < 0) {
                mote_port_putc('-');
                put_unsigned(0u - (uint32_t)v, 10u);
            } else {
                put_unsigned((uint32_t)v, 10u);
            }
        } else if (c == 'u' || c == 'x') {
            put_unsigned(va_arg(ap, uint32_t), c == 'u' ? 10u : 16u);
        } else if (c == 'c') {
            mote_port_putc((char)va_arg(ap, int));
        } else if (c == 's') {
            const char *s = va_arg(ap, const char *);
            mote_port_puts(s != NULL ? s : "(null)");
        } else {
            mote_port_putc(c);
        }
    }
}

void printk(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
}

uint32_t k_cycle_get_32(void)
{
    return mote_port_cycles();
}

void zephyr_standin_k_panic(void)
{
    mote_port_puts("ZEPHYR STAND-IN k_panic\r\n");
    mote_port_exit(4);
    for (;;) {
    }
}

void sys_reboot(int type)
{
    (void)type;
    mote_port_puts("ZEPHYR STAND-IN sys_reboot\r\n");
    mote_port_exit(5);
    for (;;) {
    }
}
