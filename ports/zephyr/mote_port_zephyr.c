/*
 * mote_port_zephyr.c - the runtime's port hooks (mote/port.h) on Zephyr.
 *
 * Only Zephyr's public API is used:
 *
 *   mote_port_log    vprintk() and printk() from <zephyr/sys/printk.h>: the
 *                    line's conversions (%d %u %x %s %c, l/ll/z modifiers) are
 *                    printk's, then a "\n" (the console driver adds the "\r").
 *                    With CONFIG_PRINTK=n both print nothing.
 *   mote_port_ticks  k_cycle_get_32() from <zephyr/kernel.h>: the system
 *                    timer's hardware cycle counter, which wraps at 2^32; its
 *                    rate is sys_clock_hw_cycles_per_sec() (the CPU clock when
 *                    the system timer is the Cortex-M SysTick).
 *   mote_port_abort  sys_reboot(SYS_REBOOT_COLD) from <zephyr/sys/reboot.h>
 *                    with CONFIG_MOTE_ABORT_REBOOT, otherwise k_panic() from
 *                    <zephyr/kernel.h> (Zephyr's fatal error handler).
 *
 * integrations/zephyr/CMakeLists.txt compiles this file into the module's library when
 * CONFIG_MOTE=y; a Zephyr application never implements these hooks itself.
 */
#include <stdarg.h>
#include <stdint.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>
#ifdef CONFIG_MOTE_ABORT_REBOOT
#include <zephyr/sys/reboot.h>
#endif

#include "mote/port.h"

void mote_port_log(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(fmt, ap);
    va_end(ap);
    printk("\n");
}

uint32_t mote_port_ticks(void)
{
    return k_cycle_get_32();
}

void mote_port_abort(void)
{
#ifdef CONFIG_MOTE_ABORT_REBOOT
    sys_reboot(SYS_REBOOT_COLD);
#else
    k_panic();
#endif
    for (;;) {
        /* neither returns; this keeps the function's contract if one did */
    }
}
