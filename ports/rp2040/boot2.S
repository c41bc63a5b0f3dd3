/*
 * boot2.S - RP2040 second-stage boot (Mote's own, minimal).
 *
 * RP2040 datasheet, 2.8.1 (boot sequence) and 2.8.3 (bootrom contents):
 *  - the bootrom reads the first 256 bytes of flash into SRAM at 0x20041f00
 *    and enters them (Thumb) if the last word is the CRC-32 of the first 252
 *    bytes (polynomial 0x04c11db7, initial value 0xffffffff, no reflection,
 *    no final XOR); aot/deploy/firmware.py appends that CRC;
 *  - the bootrom has left the SSI in serial mode (flash_exit_xip); its
 *    function table (16-bit pointer at 0x14) and lookup function (16-bit
 *    pointer at 0x18, called as lookup(table, code)) give flash_enter_cmd_xip,
 *    code 'C' | 'X' << 8, which sets XIP up with the bootrom's defaults (a
 *    plain 03h serial read, any flash chip);
 *  - then the image is entered through its vector table at 0x10000100:
 *    VTOR (0xE000ED08) = table, MSP = word 0, jump to word 1.
 * Position independent: it runs from SRAM, its literals are plain constants.
 * Armv6-M (Cortex-M0+) instructions only.
 */
    .syntax unified
    .cpu cortex-m0plus
    .thumb

    .section .text.mote_boot2, "ax", %progbits
    .align 2
    .global mote_boot2_entry
    .thumb_func
mote_boot2_entry:
    movs r0, #0x14
    ldrh r0, [r0]           /* r0 = ROM function table */
    movs r3, #0x18
    ldrh r3, [r3]           /* r3 = rom_table_lookup */
    ldr r1, =0x5843         /* 'C' | 'X' << 8: flash_enter_cmd_xip */
    blx r3
    blx r0                  /* XIP on, bootrom defaults */
    ldr r0, =0x10000100     /* the image's vector table, right after boot2 */
    ldr r1, =0xE000ED08     /* VTOR */
    str r0, [r1]
    ldmia r0!, {r1, r2}     /* r1 = initial MSP, r2 = reset handler */
    msr msp, r1
    bx r2
    .ltorg
