/*
 * stm32f446_clock.h - register values for the STM32F446 clock set-up, computed
 * from the board file's clock_tree (MOTE_BOARD_CLOCK_* in mote_board.h). Pure
 * macros, so a host test can compile this header and check the numbers.
 *
 * RM0390 (STM32F446xx reference manual):
 *  6.3.2 RCC_PLLCFGR: PLLM 5:0, PLLN 14:6, PLLP 17:16 (0 = /2, 1 = /4, 2 = /6,
 *        3 = /8), PLLSRC bit 22 (0 = HSI), PLLQ 27:24, PLLR 30:28.
 *  6.3.3 RCC_CFGR: SW 1:0 (2 = PLL_P), SWS 3:2, HPRE 7:4 (0 = /1), PPRE1 12:10,
 *        PPRE2 15:13 (0 = /1, 4 = /2, 5 = /4, 6 = /8, 7 = /16).
 *  3.8.1 FLASH_ACR: LATENCY 3:0, PRFTEN bit 8, ICEN bit 9, DCEN bit 10.
 *  25.6.3 USART_BRR (oversampling by 16): DIV_Mantissa 15:4, DIV_Fraction 3:0,
 *        i.e. BRR = f_PCLK / baud rounded to the nearest integer.
 */
#ifndef MOTE_STM32F446_CLOCK_H
#define MOTE_STM32F446_CLOCK_H

#include "mote_board.h"

#define MOTE_STM32_PLLR 2u /* reset value; the R output is unused */
#define MOTE_STM32_PLLCFGR                                                                  \
    ((MOTE_BOARD_CLOCK_PLL_M << 0) | (MOTE_BOARD_CLOCK_PLL_N << 6) |                        \
     (((MOTE_BOARD_CLOCK_PLL_P / 2u) - 1u) << 16) | (0u << 22) /* PLLSRC = HSI */ |         \
     (MOTE_BOARD_CLOCK_PLL_Q << 24) | (MOTE_STM32_PLLR << 28))

#define MOTE_STM32_PPRE(div) \
    ((div) == 1u ? 0u : (div) == 2u ? 4u : (div) == 4u ? 5u : (div) == 8u ? 6u : 7u)
#define MOTE_STM32_CFGR_SW_PLL 2u
#define MOTE_STM32_CFGR                                                                     \
    (MOTE_STM32_CFGR_SW_PLL | (0u << 4) /* HPRE /1 */ |                                     \
     (MOTE_STM32_PPRE(MOTE_BOARD_CLOCK_APB1_DIV) << 10) |                                   \
     (MOTE_STM32_PPRE(MOTE_BOARD_CLOCK_APB2_DIV) << 13))

#define MOTE_STM32_FLASH_ACR \
    (MOTE_BOARD_CLOCK_FLASH_WAIT_STATES | (1u << 8) | (1u << 9) | (1u << 10))

#define MOTE_STM32_USART_BRR \
    ((MOTE_BOARD_UART_CLOCK_HZ + MOTE_BOARD_UART_BAUD / 2u) / MOTE_BOARD_UART_BAUD)

#endif /* MOTE_STM32F446_CLOCK_H */
