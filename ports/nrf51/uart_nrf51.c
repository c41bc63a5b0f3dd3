/*
 * uart_nrf51.c - Nordic nRF51 UART0 (BBC micro:bit v1; QEMU "microbit").
 *
 * Registers (nRF51 Series Reference Manual, "UART"), offsets from
 * MOTE_BOARD_UART_BASE (0x40002000):
 *   0x000 TASKS_STARTRX  0x008 TASKS_STARTTX   (write 1 to trigger)
 *   0x108 EVENTS_RXDRDY  0x11C EVENTS_TXDRDY   (1 = byte received / sent; write 0 to clear)
 *   0x500 ENABLE         4 = UART enabled
 *   0x50C PSELTXD, 0x514 PSELRXD   GPIO numbers of TXD / RXD
 *   0x518 RXD, 0x51C TXD           receive / transmit byte
 *   0x524 BAUDRATE       baud * 2^32 / 16 MHz rounded to a multiple of 4096
 *                        (the manual's table: 115200 -> 0x01D7E000)
 * micro:bit v1: TXD P0.24, RXD P0.25 (to the interface chip's USB serial).
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"

#define MOTE_NRF_UART_REG(off) (*(volatile uint32_t *)((uintptr_t)MOTE_BOARD_UART_BASE + (off)))
#define MOTE_NRF_UART_STARTRX MOTE_NRF_UART_REG(0x000u)
#define MOTE_NRF_UART_STARTTX MOTE_NRF_UART_REG(0x008u)
#define MOTE_NRF_UART_RXDRDY MOTE_NRF_UART_REG(0x108u)
#define MOTE_NRF_UART_TXDRDY MOTE_NRF_UART_REG(0x11Cu)
#define MOTE_NRF_UART_ENABLE MOTE_NRF_UART_REG(0x500u)
#define MOTE_NRF_UART_PSELTXD MOTE_NRF_UART_REG(0x50Cu)
#define MOTE_NRF_UART_PSELRXD MOTE_NRF_UART_REG(0x514u)
#define MOTE_NRF_UART_RXD MOTE_NRF_UART_REG(0x518u)
#define MOTE_NRF_UART_TXD MOTE_NRF_UART_REG(0x51Cu)
#define MOTE_NRF_UART_BAUDRATE MOTE_NRF_UART_REG(0x524u)

#define MOTE_NRF_UART_ENABLED 4u
/* The UART's baud generator runs from the 16 MHz peripheral clock; the
 * register takes baud * 2^32 / 16 MHz rounded to a multiple of 4096. */
#define MOTE_NRF_UART_BAUD_REG \
    ((uint32_t)((((uint64_t)MOTE_BOARD_UART_BAUD << 32) / MOTE_BOARD_UART_CLOCK_HZ + 2048u) & \
                0xFFFFF000u))

void mote_port_uart_init(void)
{
    MOTE_NRF_UART_PSELTXD = MOTE_BOARD_UART_TX_PIN;
    MOTE_NRF_UART_PSELRXD = MOTE_BOARD_UART_RX_PIN;
    MOTE_NRF_UART_BAUDRATE = MOTE_NRF_UART_BAUD_REG;
    MOTE_NRF_UART_ENABLE = MOTE_NRF_UART_ENABLED;
    MOTE_NRF_UART_TXDRDY = 0u;
    MOTE_NRF_UART_RXDRDY = 0u;
    MOTE_NRF_UART_STARTTX = 1u;
    MOTE_NRF_UART_STARTRX = 1u;
}

void mote_port_putc(char c)
{
    MOTE_NRF_UART_TXD = (uint32_t)(uint8_t)c;
    while (MOTE_NRF_UART_TXDRDY == 0u) {
    }
    MOTE_NRF_UART_TXDRDY = 0u;
}

int mote_port_getc(void)
{
    while (MOTE_NRF_UART_RXDRDY == 0u) {
    }
    MOTE_NRF_UART_RXDRDY = 0u;
    return (int)(MOTE_NRF_UART_RXD & 0xFFu);
}
