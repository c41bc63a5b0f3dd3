/*
 * board.c - Raspberry Pi Pico (RP2040) set-up: 125 MHz clk_sys from the
 * 12 MHz crystal, clk_peri = clk_sys, UART0 on GP0 (TX) / GP1 (RX).
 *
 * Register facts from the RP2040 datasheet:
 *  2.2 address map: CLOCKS 0x40008000, RESETS 0x4000c000, IO_BANK0
 *      0x40014000, PADS_BANK0 0x4001c000, XOSC 0x40024000, PLL_SYS 0x40028000.
 *  2.1.2 atomic register access: +0x2000 = bitmask set, +0x3000 = bitmask clear.
 *  2.14 RESETS: RESET 0x0, RESET_DONE 0x8; bits IO_BANK0 5, PADS_BANK0 8,
 *      PLL_SYS 12, UART0 22.
 *  2.16 XOSC: CTRL 0x00 (FREQ_RANGE 11:0 = 0xaa0 for 1-15 MHz, ENABLE 23:12 =
 *      0xfab), STATUS 0x04 (bit 31 STABLE), STARTUP 0x0c (DELAY 13:0, units
 *      of 256 XOSC cycles).
 *  2.18 PLL: CS 0x0 (REFDIV 5:0, bit 31 LOCK), PWR 0x4 (bit 0 PD, bit 3
 *      POSTDIVPD, bit 5 VCOPD), FBDIV_INT 0x8, PRIM 0xc (POSTDIV1 18:16,
 *      POSTDIV2 14:12). FOUT = 12 MHz / REFDIV * FBDIV / (POSTDIV1 * POSTDIV2)
 *      = 12 * 125 / (6 * 2) = 125 MHz, VCO 1500 MHz (within 750-1600 MHz).
 *  2.15 CLOCKS: CLK_REF_CTRL 0x30 (SRC 1:0, 2 = xosc), CLK_REF_SELECTED 0x38
 *      (one-hot), CLK_SYS_CTRL 0x3c (SRC bit 0: 1 = aux; AUXSRC 7:5, 0 =
 *      pll_sys), CLK_SYS_DIV 0x40 (INT 31:8, FRAC 7:0), CLK_SYS_SELECTED
 *      0x44, CLK_PERI_CTRL 0x48 (ENABLE bit 11, AUXSRC 7:5, 0 = clk_sys).
 *  2.19 IO_BANK0: GPIOn_CTRL at 0x004 + 8n, FUNCSEL 4:0, function 2 = UART
 *      (GP0 UART0 TX, GP1 UART0 RX). PADS_BANK0: GPIOn at 0x04 + 4n; bit 7
 *      OD, bit 6 IE, bit 3 PUE.
 * The PL011 driver (ports/pico2/uart_pl011.c) serves UART0 at 0x40034000.
 */
#include <stdint.h>

#include "mote_board.h"
#include "mote_port.h"

#define MOTE_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define MOTE_SET(addr) MOTE_REG((addr) + 0x2000u)
#define MOTE_CLR(addr) MOTE_REG((addr) + 0x3000u)

#define MOTE_CLOCKS_BASE 0x40008000u
#define MOTE_RESETS_BASE 0x4000c000u
#define MOTE_IO_BANK0_BASE 0x40014000u
#define MOTE_PADS_BANK0_BASE 0x4001c000u
#define MOTE_XOSC_BASE 0x40024000u
#define MOTE_PLL_SYS_BASE 0x40028000u

#define MOTE_RESETS_RESET (MOTE_RESETS_BASE + 0x0u)
#define MOTE_RESETS_RESET_DONE (MOTE_RESETS_BASE + 0x8u)
#define MOTE_RESET_IO_BANK0 (1u << 5)
#define MOTE_RESET_PADS_BANK0 (1u << 8)
#define MOTE_RESET_PLL_SYS (1u << 12)
#define MOTE_RESET_UART0 (1u << 22)

#define MOTE_XOSC_CTRL (MOTE_XOSC_BASE + 0x00u)
#define MOTE_XOSC_STATUS (MOTE_XOSC_BASE + 0x04u)
#define MOTE_XOSC_STARTUP (MOTE_XOSC_BASE + 0x0cu)
#define MOTE_XOSC_FREQ_1_15MHZ 0xaa0u
#define MOTE_XOSC_ENABLE (0xfabu << 12)
#define MOTE_XOSC_STABLE (1u << 31)
/* ~1 ms of 12 MHz crystal cycles in units of 256: 12e6 * 0.001 / 256 = 47. */
#define MOTE_XOSC_STARTUP_DELAY 47u

#define MOTE_PLL_CS (MOTE_PLL_SYS_BASE + 0x0u)
#define MOTE_PLL_PWR (MOTE_PLL_SYS_BASE + 0x4u)
#define MOTE_PLL_FBDIV_INT (MOTE_PLL_SYS_BASE + 0x8u)
#define MOTE_PLL_PRIM (MOTE_PLL_SYS_BASE + 0xcu)
#define MOTE_PLL_CS_LOCK (1u << 31)
#define MOTE_PLL_PWR_PD (1u << 0)
#define MOTE_PLL_PWR_POSTDIVPD (1u << 3)
#define MOTE_PLL_PWR_VCOPD (1u << 5)
#define MOTE_PLL_REFDIV 1u
#define MOTE_PLL_FBDIV 125u
#define MOTE_PLL_POSTDIV1 6u
#define MOTE_PLL_POSTDIV2 2u

#define MOTE_CLK_REF_CTRL (MOTE_CLOCKS_BASE + 0x30u)
#define MOTE_CLK_REF_SELECTED (MOTE_CLOCKS_BASE + 0x38u)
#define MOTE_CLK_SYS_CTRL (MOTE_CLOCKS_BASE + 0x3cu)
#define MOTE_CLK_SYS_DIV (MOTE_CLOCKS_BASE + 0x40u)
#define MOTE_CLK_SYS_SELECTED (MOTE_CLOCKS_BASE + 0x44u)
#define MOTE_CLK_PERI_CTRL (MOTE_CLOCKS_BASE + 0x48u)
#define MOTE_CLK_REF_SRC_XOSC 2u
#define MOTE_CLK_SYS_SRC_AUX 1u
#define MOTE_CLK_PERI_ENABLE (1u << 11)

#define MOTE_GPIO_FUNC_UART 2u
#define MOTE_PAD_OD (1u << 7)
#define MOTE_PAD_IE (1u << 6)
#define MOTE_PAD_PUE (1u << 3)

void mote_port_cycles_init(void);

static void mote_rp2040_unreset(uint32_t mask)
{
    MOTE_CLR(MOTE_RESETS_RESET) = mask;
    while ((MOTE_REG(MOTE_RESETS_RESET_DONE) & mask) != mask) {
    }
}

static void mote_rp2040_clocks_init(void)
{
    MOTE_REG(MOTE_XOSC_STARTUP) = MOTE_XOSC_STARTUP_DELAY;
    MOTE_REG(MOTE_XOSC_CTRL) = MOTE_XOSC_FREQ_1_15MHZ | MOTE_XOSC_ENABLE;
    while ((MOTE_REG(MOTE_XOSC_STATUS) & MOTE_XOSC_STABLE) == 0u) {
    }
    /* clk_sys back to clk_ref (glitchless), then clk_ref onto the crystal. */
    MOTE_CLR(MOTE_CLK_SYS_CTRL) = MOTE_CLK_SYS_SRC_AUX;
    while (MOTE_REG(MOTE_CLK_SYS_SELECTED) != 0x1u) {
    }
    MOTE_REG(MOTE_CLK_REF_CTRL) = (MOTE_REG(MOTE_CLK_REF_CTRL) & ~0x3u) | MOTE_CLK_REF_SRC_XOSC;
    while (MOTE_REG(MOTE_CLK_REF_SELECTED) != (1u << MOTE_CLK_REF_SRC_XOSC)) {
    }
    /* PLL_SYS: reset, dividers, VCO on, lock, post dividers. */
    MOTE_SET(MOTE_RESETS_RESET) = MOTE_RESET_PLL_SYS;
    mote_rp2040_unreset(MOTE_RESET_PLL_SYS);
    MOTE_REG(MOTE_PLL_CS) = MOTE_PLL_REFDIV;
    MOTE_REG(MOTE_PLL_FBDIV_INT) = MOTE_PLL_FBDIV;
    MOTE_CLR(MOTE_PLL_PWR) = MOTE_PLL_PWR_PD | MOTE_PLL_PWR_VCOPD;
    while ((MOTE_REG(MOTE_PLL_CS) & MOTE_PLL_CS_LOCK) == 0u) {
    }
    MOTE_REG(MOTE_PLL_PRIM) = (MOTE_PLL_POSTDIV1 << 16) | (MOTE_PLL_POSTDIV2 << 12);
    MOTE_CLR(MOTE_PLL_PWR) = MOTE_PLL_PWR_POSTDIVPD;
    /* clk_sys = aux source pll_sys (AUXSRC 0) / 1 (INT is bits 31:8). */
    MOTE_REG(MOTE_CLK_SYS_DIV) = 1u << 8;
    MOTE_CLR(MOTE_CLK_SYS_CTRL) = 0x7u << 5;
    MOTE_SET(MOTE_CLK_SYS_CTRL) = MOTE_CLK_SYS_SRC_AUX;
    while (MOTE_REG(MOTE_CLK_SYS_SELECTED) != 0x2u) {
    }
    /* clk_peri (UART clock) = clk_sys: stop, select, restart. */
    MOTE_REG(MOTE_CLK_PERI_CTRL) = 0u;
    MOTE_REG(MOTE_CLK_PERI_CTRL) = MOTE_CLK_PERI_ENABLE;
}

static void mote_rp2040_uart_pins_init(void)
{
    mote_rp2040_unreset(MOTE_RESET_IO_BANK0 | MOTE_RESET_PADS_BANK0);
    MOTE_REG(MOTE_PADS_BANK0_BASE + 0x04u + 4u * MOTE_BOARD_UART_TX_PIN) &= ~MOTE_PAD_OD;
    MOTE_REG(MOTE_PADS_BANK0_BASE + 0x04u + 4u * MOTE_BOARD_UART_RX_PIN) =
        (MOTE_REG(MOTE_PADS_BANK0_BASE + 0x04u + 4u * MOTE_BOARD_UART_RX_PIN) & ~MOTE_PAD_OD)
        | MOTE_PAD_IE | MOTE_PAD_PUE;
    MOTE_REG(MOTE_IO_BANK0_BASE + 0x004u + 8u * MOTE_BOARD_UART_TX_PIN) = MOTE_GPIO_FUNC_UART;
    MOTE_REG(MOTE_IO_BANK0_BASE + 0x004u + 8u * MOTE_BOARD_UART_RX_PIN) = MOTE_GPIO_FUNC_UART;
    MOTE_SET(MOTE_RESETS_RESET) = MOTE_RESET_UART0;
    mote_rp2040_unreset(MOTE_RESET_UART0);
}

void mote_port_board_init(void)
{
    mote_rp2040_clocks_init();
    mote_rp2040_uart_pins_init();
    mote_port_uart_init();
    mote_port_cycles_init();
}
