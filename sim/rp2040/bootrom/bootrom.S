/*
 * bootrom.S - Mote's stand-in for the RP2040 bootrom, for the rp2040js
 * simulator (which ships none). Written from the RP2040 datasheet's
 * description of the bootrom (2.8 "Bootrom"); it does only what a flash boot
 * needs and nothing that chapter does not describe.
 *
 * Layout (datasheet 2.8.3, "Bootrom Contents"), all at the start of the ROM:
 *   0x00  initial stack pointer          0x04  reset handler
 *   0x08  NMI handler                    0x0c  HardFault handler
 *   0x10  magic 'M' 'u' 0x01, then the version byte at 0x13
 *   0x14  16-bit pointer to the public function table
 *   0x16  16-bit pointer to the public data table
 *   0x18  16-bit pointer to rom_table_lookup(table, code)
 * A table is a list of {16-bit code, 16-bit pointer} pairs ended by code 0;
 * a code is two ASCII characters, the first in the low byte ('C' | 'X' << 8).
 * Function pointers carry the Thumb bit (callers BLX them).
 *
 * Functions in the table (the flash routines a boot2 calls):
 *   'IF' connect_internal_flash  QSPI pins to the SSI (IO_QSPI FUNCSEL 0 = xip)
 *   'EX' flash_exit_xip          SSI back to plain serial (8-bit frames)
 *   'CX' flash_enter_cmd_xip     SSI in EEPROM-read mode with a 03h serial read
 *                                command and a 24-bit address: XIP with defaults
 *   'FC' flash_flush_cache       XIP_CTRL FLUSH (a read of it waits until done)
 *
 * Flash boot (datasheet 2.8.1, 2.8.1.3): connect the flash, read its first
 * 256 bytes into SRAM at 0x20041f00, and enter them (Thumb, at 0x20041f01)
 * only if their last word is the CRC-32 of the first 252 bytes (polynomial
 * 0x04c11db7, initial value 0xffffffff, most significant bit first, no final
 * XOR: the check ports/rp2040/boot2.S and aot/deploy/firmware.py's
 * boot2_crc32 describe). The SSI is left in serial mode (flash_exit_xip), as
 * a boot2 expects. The real bootrom retries the read with other SSI settings
 * and then falls back to USB boot (BOOTSEL); here there is no USB: a bad
 * boot2 parks the core in mote_rom_usb_boot, which the runner watches for.
 *
 * Simulator notes: rp2040js serves the XIP window (0x10000000) from its flash
 * array whatever the SSI state, so the SSI writes below only set the
 * registers the datasheet names. The stack sits just below boot2's copy.
 * Armv6-M (Cortex-M0+) instructions only.
 */
    .syntax unified
    .cpu cortex-m0plus
    .thumb

    .equ SRAM_BOOT2,      0x20041f00   /* where boot2 is copied and run */
    .equ BOOT2_BYTES,     256
    .equ XIP_BASE,        0x10000000
    .equ XIP_CTRL_BASE,   0x14000000   /* CTRL 0x00, FLUSH 0x04, STAT 0x08 */
    .equ XIP_SSI_BASE,    0x18000000   /* CTRLR0 0x00, CTRLR1 0x04, SSIENR 0x08, SPI_CTRLR0 0xf4 */
    .equ IO_QSPI_BASE,    0x40018000   /* GPIO_QSPI_<pin>_CTRL at 0x04 + 8 * n, n = SCLK SS SD0..SD3 */
    .equ CRC_POLY,        0x04c11db7

    .section .text.rom, "ax", %progbits
    .global rom_start
rom_start:
    .word SRAM_BOOT2                      /* 0x00 initial SP (below boot2's copy) */
    .word mote_rom_reset + 1              /* 0x04 */
    .word mote_rom_nmi + 1                /* 0x08 */
    .word mote_rom_hardfault + 1          /* 0x0c */
    .byte 'M', 'u', 0x01                  /* 0x10 magic */
    .byte 0x01                            /* 0x13 version (the stand-in's own) */
    .hword rom_func_table                 /* 0x14 */
    .hword rom_data_table                 /* 0x16 */
    .hword rom_table_lookup + 1           /* 0x18 */
    .hword 0                              /* 0x1a pad */

    .align 2
rom_func_table:
    .hword 'I' | ('F' << 8), connect_internal_flash + 1
    .hword 'E' | ('X' << 8), flash_exit_xip + 1
    .hword 'C' | ('X' << 8), flash_enter_cmd_xip + 1
    .hword 'F' | ('C' << 8), flash_flush_cache + 1
    .hword 0, 0
rom_data_table:
    .hword 0, 0

/* r0 = table, r1 = code -> r0 = the entry's pointer, or 0 when absent. */
    .align 1
rom_table_lookup:
    ldrh r2, [r0]
    ldrh r3, [r0, #2]
    cmp r2, r1
    beq 1f
    adds r0, #4
    cmp r2, #0
    bne rom_table_lookup
    movs r0, #0
    bx lr
1:  movs r0, r3
    bx lr

connect_internal_flash:
    ldr r0, =IO_QSPI_BASE + 0x04
    movs r1, #0                           /* FUNCSEL 0: xip */
    movs r2, #6                           /* SCLK, SS, SD0, SD1, SD2, SD3 */
1:  str r1, [r0]
    adds r0, #8
    subs r2, #1
    bne 1b
    bx lr

flash_exit_xip:
    ldr r0, =XIP_SSI_BASE
    movs r1, #0
    str r1, [r0, #0x08]                   /* SSIENR = 0 */
    ldr r1, =(7 << 16)                    /* CTRLR0: DFS_32 = 7 (8-bit), TMOD 0, standard SPI */
    str r1, [r0, #0x00]
    movs r1, #1
    str r1, [r0, #0x08]                   /* SSIENR = 1 */
    bx lr

flash_enter_cmd_xip:
    ldr r0, =XIP_SSI_BASE
    movs r1, #0
    str r1, [r0, #0x08]                   /* SSIENR = 0 */
    ldr r1, =(31 << 16) | (3 << 8)        /* CTRLR0: DFS_32 = 31, TMOD 3 = EEPROM read */
    str r1, [r0, #0x00]
    movs r1, #0
    str r1, [r0, #0x04]                   /* CTRLR1: NDF = 0 (one frame) */
    ldr r1, =(0x03 << 24) | (2 << 8) | (6 << 2)  /* SPI_CTRLR0: XIP_CMD 03h, INST_L 8 bits, ADDR_L 24 bits */
    ldr r2, =XIP_SSI_BASE + 0xf4
    str r1, [r2]
    movs r1, #1
    str r1, [r0, #0x08]                   /* SSIENR = 1 */
    bx lr

flash_flush_cache:
    ldr r0, =XIP_CTRL_BASE
    movs r1, #1
    str r1, [r0, #0x04]                   /* FLUSH */
    ldr r1, [r0, #0x04]                   /* reading FLUSH waits for the flush */
    bx lr

mote_rom_reset:
    ldr r0, =SRAM_BOOT2
    mov sp, r0
    bl connect_internal_flash
    bl flash_exit_xip
    bl flash_enter_cmd_xip
    /* copy the first 256 bytes of flash to SRAM_BOOT2 */
    ldr r0, =XIP_BASE
    ldr r1, =SRAM_BOOT2
    movs r2, #BOOT2_BYTES / 4
1:  ldmia r0!, {r3}
    stmia r1!, {r3}
    subs r2, #1
    bne 1b
    bl flash_exit_xip                     /* boot2 starts from serial mode */
    /* CRC-32 of the copy's first 252 bytes against its last word */
    ldr r0, =SRAM_BOOT2
    movs r1, #BOOT2_BYTES - 4
    movs r2, #0
    mvns r2, r2                           /* crc = 0xffffffff */
    ldr r4, =CRC_POLY
2:  ldrb r3, [r0]
    adds r0, #1
    lsls r3, r3, #24
    eors r2, r3
    movs r5, #8
3:  lsls r2, r2, #1                       /* C = the bit shifted out */
    bcc 4f
    eors r2, r4
4:  subs r5, #1
    bne 3b
    subs r1, #1
    bne 2b
    ldr r3, [r0]                          /* r0 = SRAM_BOOT2 + 252 */
    cmp r2, r3
    bne mote_rom_usb_boot
    ldr r0, =SRAM_BOOT2 + 1
    blx r0
    /* boot2 returned: nothing else to boot */

/* No bootable boot2: the real bootrom would start USB boot here. */
    .global mote_rom_usb_boot
mote_rom_usb_boot:
    wfi
    b mote_rom_usb_boot

    .global mote_rom_nmi
mote_rom_nmi:
    b mote_rom_nmi

    .global mote_rom_hardfault
mote_rom_hardfault:
    b mote_rom_hardfault

    .ltorg
