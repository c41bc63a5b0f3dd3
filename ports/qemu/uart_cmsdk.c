/*
 * uart_cmsdk.c - Arm CMSDK APB UART (UART0 of the QEMU mps2-an505 and
 * mps3-an547 machines).
 *
 * Registers (Arm Cortex-M System Design Kit TRM, "APB UART"):
 *   0x000 DATA     bits 7:0 transmit / receive byte
 *   0x004 STATE    bit 0 TX buffer full, bit 1 RX buffer full
 *   0x008 CTRL     bit 0 TX enable, bit 1 RX enable
 *   0x010 BAUDDIV  UART clock / baud rate, minimum 16
 * Base address and clocks come from the board file through mote_board.h.
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"

#define MOTE_CMSDK_UART_REG(off) (*(volatile uint32_t *)((uintptr_t)MOTE_BOARD_UART_BASE + (off)))
#define MOTE_CMSDK_UART_DATA MOTE_CMSDK_UART_REG(0x000u)
#define MOTE_CMSDK_UART_STATE MOTE_CMSDK_UART_REG(0x004u)
#define MOTE_CMSDK_UART_CTRL MOTE_CMSDK_UART_REG(0x008u)
#define MOTE_CMSDK_UART_BAUDDIV MOTE_CMSDK_UART_REG(0x010u)

#define MOTE_CMSDK_STATE_TXFULL (1u << 0)
#define MOTE_CMSDK_STATE_RXFULL (1u << 1)
#define MOTE_CMSDK_CTRL_TXEN (1u << 0)
#define MOTE_CMSDK_CTRL_RXEN (1u << 1)

void mote_port_uart_init(void)
{
    uint32_t div = (uint32_t)(MOTE_BOARD_UART_CLOCK_HZ / MOTE_BOARD_UART_BAUD);
    MOTE_CMSDK_UART_BAUDDIV = div < 16u ? 16u : div;
    MOTE_CMSDK_UART_CTRL = MOTE_CMSDK_CTRL_TXEN | MOTE_CMSDK_CTRL_RXEN;
}

void mote_port_putc(char c)
{
    while ((MOTE_CMSDK_UART_STATE & MOTE_CMSDK_STATE_TXFULL) != 0u) {
    }
    MOTE_CMSDK_UART_DATA = (uint32_t)(uint8_t)c;
}

int mote_port_getc(void)
{
    while ((MOTE_CMSDK_UART_STATE & MOTE_CMSDK_STATE_RXFULL) == 0u) {
    }
    return (int)(MOTE_CMSDK_UART_DATA & 0xFFu);
}
