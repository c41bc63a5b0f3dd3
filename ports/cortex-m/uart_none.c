/* uart_none.c - UART driver for boards without one: output is discarded. */
#include "mote_port.h"

void mote_port_uart_init(void)
{
}

void mote_port_putc(char c)
{
    (void)c;
}

int mote_port_getc(void)
{
    return -1;
}
