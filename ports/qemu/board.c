/* board.c - QEMU mps2/mps3 board set-up: the FPGA clocks need no set-up; UART0 and SysTick. */
#include "mote_port.h"

void mote_port_cycles_init(void);

void mote_port_board_init(void)
{
    mote_port_uart_init();
    mote_port_cycles_init();
}
