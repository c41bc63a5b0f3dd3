/*
 * uart_pl011.c - Arm PrimeCell PL011 UART (RP2350 UART0/1).
 *
 * Registers (Arm PrimeCell UART (PL011) TRM; RP2350 datasheet 12.1):
 *   0x00 UARTDR    data
 *   0x18 UARTFR    bit 4 RXFE (receive FIFO empty), bit 5 TXFF (transmit FIFO full)
 *   0x24 UARTIBRD  integer baud divisor
 *   0x28 UARTFBRD  fractional baud divisor (6 bits)
 *   0x2c UARTLCR_H bits 6:5 WLEN (3 = 8 bits), bit 4 FEN (FIFOs on);
 *                  writing it latches IBRD/FBRD
 *   0x30 UARTCR    bit 0 UARTEN, bit 8 TXE, bit 9 RXE
 * Divisor = UARTCLK / (16 * baud) as 16.6 fixed point, rounded:
 * 150 MHz / (16 * 115200) = 81.38 -> IBRD 81, FBRD 24.
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"

#define MOTE_PL011_REG(off) (*(volatile uint32_t *)((uintptr_t)MOTE_BOARD_UART_BASE + (off)))
#define MOTE_PL011_DR MOTE_PL011_REG(0x00u)
#define MOTE_PL011_FR MOTE_PL011_REG(0x18u)
#define MOTE_PL011_IBRD MOTE_PL011_REG(0x24u)
#define MOTE_PL011_FBRD MOTE_PL011_REG(0x28u)
#define MOTE_PL011_LCR_H MOTE_PL011_REG(0x2cu)
#define MOTE_PL011_CR MOTE_PL011_REG(0x30u)

#define MOTE_PL011_FR_RXFE (1u << 4)
#define MOTE_PL011_FR_TXFF (1u << 5)

void mote_port_uart_init(void)
{
    /* 64 * UARTCLK / (16 * baud) = 4 * UARTCLK / baud, rounded to nearest. */
    uint32_t div64 = (uint32_t)((4u * (uint64_t)MOTE_BOARD_UART_CLOCK_HZ + MOTE_BOARD_UART_BAUD / 2u) /
                                MOTE_BOARD_UART_BAUD);
    MOTE_PL011_CR = 0u;
    MOTE_PL011_IBRD = div64 >> 6;
    MOTE_PL011_FBRD = div64 & 0x3fu;
    MOTE_PL011_LCR_H = (3u << 5) | (1u << 4); /* 8N1, FIFOs enabled */
    MOTE_PL011_CR = (1u << 0) | (1u << 8) | (1u << 9);
}

void mote_port_putc(char c)
{
    while ((MOTE_PL011_FR & MOTE_PL011_FR_TXFF) != 0u) {
    }
    MOTE_PL011_DR = (uint32_t)(uint8_t)c;
}

int mote_port_getc(void)
{
    while ((MOTE_PL011_FR & MOTE_PL011_FR_RXFE) != 0u) {
    }
    return (int)(MOTE_PL011_DR & 0xffu);
}
