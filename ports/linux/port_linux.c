/* port_linux.c - the port hooks on a hosted Linux system. */
#define _POSIX_C_SOURCE 200112L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mote/port.h"

void mote_port_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mote: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

uint32_t mote_port_ticks(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0u;
    }
    return (uint32_t)((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

void mote_port_abort(void)
{
    abort();
}
