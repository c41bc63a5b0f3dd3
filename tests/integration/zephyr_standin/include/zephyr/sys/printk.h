/*
 * STAND-IN, not Zephyr's header: printk and vprintk with Zephyr's
 * signatures (and printf format checking), declarations only.
 */
#ifndef ZEPHYR_STANDIN_SYS_PRINTK_H
#define ZEPHYR_STANDIN_SYS_PRINTK_H

#include <stdarg.h>

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* ZEPHYR_STANDIN_SYS_PRINTK_H */
