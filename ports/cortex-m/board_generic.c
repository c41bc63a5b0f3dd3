/* board_generic.c - board set-up for "generic" boards: reset clocks, no UART set-up beyond the driver's. */
#include "mote_port.h"

void mote_port_cycles_init(void);

void mote_port_board_init(void)
{
    mote_port_uart_init();
    mote_port_cycles_init();
}
