/*
 * board.c - STM32F446 (NUCLEO-F446RE) set-up: SYSCLK 180 MHz from the 16 MHz
 * HSI through the main PLL with the regulator's over-drive on, then USART2
 * on PA2/PA3 and the DWT cycle counter. Register values: stm32f446_clock.h.
 *
 * Register facts from RM0390:
 *  2.2.2 memory map: PWR 0x40007000, GPIOA 0x40020000, RCC 0x40023800,
 *        FLASH interface 0x40023C00.
 *  6.3.1 RCC_CR 0x00: HSION bit 0, HSIRDY bit 1, PLLON bit 24, PLLRDY bit 25.
 *  6.3.2 RCC_PLLCFGR 0x04; 6.3.3 RCC_CFGR 0x08 (SWS 3:2, 2 = PLL).
 *  6.3.10 RCC_AHB1ENR 0x30: GPIOAEN bit 0.
 *  6.3.13 RCC_APB1ENR 0x40: USART2EN bit 17, PWREN bit 28.
 *  5.4.1 PWR_CR 0x00: VOS 15:14 (3 = scale 1), ODEN bit 16, ODSWEN bit 17.
 *  5.4.2 PWR_CSR 0x04: VOSRDY bit 14, ODRDY bit 16, ODSWRDY bit 17.
 *  5.1.4 entering over-drive: HSI/HSE as SYSCLK, configure and enable the
 *        PLL, set ODEN and wait for ODRDY, set ODSWEN and wait for ODSWRDY,
 *        then flash latency and prescalers, then switch SYSCLK to the PLL.
 *  3.4.1 FLASH_ACR: LATENCY must be set before raising HCLK (read it back).
 *  7.4 GPIO: MODER 0x00 (2 bits/pin, 2 = alternate function), OSPEEDR 0x08,
 *        PUPDR 0x0C (1 = pull-up), AFRL 0x20 (4 bits/pin); PA2 = USART2_TX,
 *        PA3 = USART2_RX in AF7 (datasheet DS10693, alternate function map).
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"
#include "stm32f446_clock.h"

#define MOTE_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define MOTE_PWR_BASE 0x40007000u
#define MOTE_GPIOA_BASE 0x40020000u
#define MOTE_RCC_BASE 0x40023800u
#define MOTE_FLASH_BASE 0x40023C00u

#define MOTE_RCC_CR MOTE_REG(MOTE_RCC_BASE + 0x00u)
#define MOTE_RCC_PLLCFGR MOTE_REG(MOTE_RCC_BASE + 0x04u)
#define MOTE_RCC_CFGR MOTE_REG(MOTE_RCC_BASE + 0x08u)
#define MOTE_RCC_AHB1ENR MOTE_REG(MOTE_RCC_BASE + 0x30u)
#define MOTE_RCC_APB1ENR MOTE_REG(MOTE_RCC_BASE + 0x40u)
#define MOTE_PWR_CR MOTE_REG(MOTE_PWR_BASE + 0x00u)
#define MOTE_PWR_CSR MOTE_REG(MOTE_PWR_BASE + 0x04u)
#define MOTE_FLASH_ACR MOTE_REG(MOTE_FLASH_BASE + 0x00u)
#define MOTE_GPIOA_MODER MOTE_REG(MOTE_GPIOA_BASE + 0x00u)
#define MOTE_GPIOA_OSPEEDR MOTE_REG(MOTE_GPIOA_BASE + 0x08u)
#define MOTE_GPIOA_PUPDR MOTE_REG(MOTE_GPIOA_BASE + 0x0Cu)
#define MOTE_GPIOA_AFRL MOTE_REG(MOTE_GPIOA_BASE + 0x20u)

#define MOTE_RCC_CR_HSION (1u << 0)
#define MOTE_RCC_CR_HSIRDY (1u << 1)
#define MOTE_RCC_CR_PLLON (1u << 24)
#define MOTE_RCC_CR_PLLRDY (1u << 25)
#define MOTE_RCC_CFGR_SWS_PLL (2u << 2)
#define MOTE_RCC_AHB1ENR_GPIOAEN (1u << 0)
#define MOTE_RCC_APB1ENR_USART2EN (1u << 17)
#define MOTE_RCC_APB1ENR_PWREN (1u << 28)
#define MOTE_PWR_CR_VOS_SCALE1 (3u << 14)
#define MOTE_PWR_CR_ODEN (1u << 16)
#define MOTE_PWR_CR_ODSWEN (1u << 17)
#define MOTE_PWR_CSR_ODRDY (1u << 16)
#define MOTE_PWR_CSR_ODSWRDY (1u << 17)
#define MOTE_GPIO_AF_USART2 7u

void mote_port_cycles_init(void);

static void mote_stm32_clocks_init(void)
{
    /* SYSCLK is the HSI after reset; make sure it runs. */
    MOTE_RCC_CR |= MOTE_RCC_CR_HSION;
    while ((MOTE_RCC_CR & MOTE_RCC_CR_HSIRDY) == 0u) {
    }
    /* Regulator scale 1 (VOS may change only while the PLL is off). */
    MOTE_RCC_APB1ENR |= MOTE_RCC_APB1ENR_PWREN;
    (void)MOTE_RCC_APB1ENR; /* the enable takes effect before the next access */
    MOTE_PWR_CR = (MOTE_PWR_CR & ~(3u << 14)) | MOTE_PWR_CR_VOS_SCALE1;
    /* Main PLL: HSI / M * N / P. */
    MOTE_RCC_PLLCFGR = MOTE_STM32_PLLCFGR;
    MOTE_RCC_CR |= MOTE_RCC_CR_PLLON;
    /* Over-drive, as RM0390 5.1.4 orders it. */
    MOTE_PWR_CR |= MOTE_PWR_CR_ODEN;
    while ((MOTE_PWR_CSR & MOTE_PWR_CSR_ODRDY) == 0u) {
    }
    MOTE_PWR_CR |= MOTE_PWR_CR_ODSWEN;
    while ((MOTE_PWR_CSR & MOTE_PWR_CSR_ODSWRDY) == 0u) {
    }
    /* Flash wait states before the clock goes up. */
    MOTE_FLASH_ACR = MOTE_STM32_FLASH_ACR;
    while ((MOTE_FLASH_ACR & 0xFu) != MOTE_BOARD_CLOCK_FLASH_WAIT_STATES) {
    }
    while ((MOTE_RCC_CR & MOTE_RCC_CR_PLLRDY) == 0u) {
    }
    /* Prescalers and SYSCLK = PLL_P in one write; wait for the switch. */
    MOTE_RCC_CFGR = MOTE_STM32_CFGR;
    while ((MOTE_RCC_CFGR & (3u << 2)) != MOTE_RCC_CFGR_SWS_PLL) {
    }
}

static void mote_stm32_uart_pins_init(void)
{
    const uint32_t tx = MOTE_BOARD_UART_TX_PIN;
    const uint32_t rx = MOTE_BOARD_UART_RX_PIN;
    MOTE_RCC_AHB1ENR |= MOTE_RCC_AHB1ENR_GPIOAEN;
    MOTE_RCC_APB1ENR |= MOTE_RCC_APB1ENR_USART2EN;
    (void)MOTE_RCC_APB1ENR;
    MOTE_GPIOA_AFRL = (MOTE_GPIOA_AFRL & ~((0xFu << (4u * tx)) | (0xFu << (4u * rx))))
                    | (MOTE_GPIO_AF_USART2 << (4u * tx)) | (MOTE_GPIO_AF_USART2 << (4u * rx));
    MOTE_GPIOA_OSPEEDR |= (2u << (2u * tx)); /* fast speed on TX */
    MOTE_GPIOA_PUPDR = (MOTE_GPIOA_PUPDR & ~(3u << (2u * rx))) | (1u << (2u * rx)); /* RX pull-up */
    MOTE_GPIOA_MODER = (MOTE_GPIOA_MODER & ~((3u << (2u * tx)) | (3u << (2u * rx))))
                     | (2u << (2u * tx)) | (2u << (2u * rx));
}

void mote_port_board_init(void)
{
    mote_stm32_clocks_init();
    mote_stm32_uart_pins_init();
    mote_port_uart_init();
    mote_port_cycles_init();
}
