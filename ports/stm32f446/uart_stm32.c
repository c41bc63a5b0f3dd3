/*
 * uart_stm32.c - STM32F4 USART (NUCLEO-F446RE: USART2, the ST-Link virtual COM port).
 *
 * Registers (RM0390, 25.6 USART registers), offsets from MOTE_BOARD_UART_BASE:
 *   0x00 SR   bit 5 RXNE (byte received), bit 7 TXE (transmit data register empty)
 *   0x04 DR   data
 *   0x08 BRR  baud divisor (stm32f446_clock.h: f_PCLK1 / baud, oversampling by 16)
 *   0x0C CR1  bit 2 RE, bit 3 TE, bit 13 UE; M = 0 (8 data bits), no parity
 * CR2 STOP = 0 (1 stop bit) at reset: 115200 8N1.
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"
#include "stm32f446_clock.h"

#define MOTE_USART_REG(off) (*(volatile uint32_t *)((uintptr_t)MOTE_BOARD_UART_BASE + (off)))
#define MOTE_USART_SR MOTE_USART_REG(0x00u)
#define MOTE_USART_DR MOTE_USART_REG(0x04u)
#define MOTE_USART_BRR MOTE_USART_REG(0x08u)
#define MOTE_USART_CR1 MOTE_USART_REG(0x0Cu)

#define MOTE_USART_SR_RXNE (1u << 5)
#define MOTE_USART_SR_TXE (1u << 7)
#define MOTE_USART_CR1_RE (1u << 2)
#define MOTE_USART_CR1_TE (1u << 3)
#define MOTE_USART_CR1_UE (1u << 13)

void mote_port_uart_init(void)
{
    MOTE_USART_CR1 = 0u;
    MOTE_USART_BRR = MOTE_STM32_USART_BRR;
    MOTE_USART_CR1 = MOTE_USART_CR1_UE | MOTE_USART_CR1_TE | MOTE_USART_CR1_RE;
}

void mote_port_putc(char c)
{
    while ((MOTE_USART_SR & MOTE_USART_SR_TXE) == 0u) {
    }
    MOTE_USART_DR = (uint32_t)(uint8_t)c;
}

int mote_port_getc(void)
{
    while ((MOTE_USART_SR & MOTE_USART_SR_RXNE) == 0u) {
    }
    return (int)(MOTE_USART_DR & 0xFFu);
}
