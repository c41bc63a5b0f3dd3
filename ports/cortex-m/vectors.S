/*
 * vectors.S - Cortex-M vector table and the common fault entry.
 *
 * Layout from the Armv7-M / Armv8-M Architecture Reference Manuals
 * ("The vector table"): word 0 is the initial main stack pointer, words 1-15
 * the system exceptions (7 = SecureFault on Armv8-M with the Security
 * Extension, 8-10 and 13 reserved), then one word per external interrupt
 * (MOTE_BOARD_IRQ_COUNT from the generated mote_board.h). The linker script
 * puts .vectors first in flash; the reset handler also writes VTOR.
 *
 * Armv6-M uses the same layout (4-6, 7, 12 are reserved there; the words
 * point at the fault entry, which is harmless).
 *
 * Every exception except Reset defaults (weakly) to mote_port_fault_entry,
 * which hands the stacked exception frame to mote_port_fault_report() (C).
 */
#include "mote_board.h"

    .syntax unified
    .thumb

    .section .vectors, "a", %progbits
    .align 2
    .global mote_port_vectors
    .type mote_port_vectors, %object
mote_port_vectors:
    .word __stack_top                   /* 0: initial MSP (end of RAM) */
    .word mote_port_reset_handler       /* 1: Reset */
    .word mote_port_nmi_handler         /* 2: NMI */
    .word mote_port_fault_entry         /* 3: HardFault */
    .word mote_port_memmanage_handler   /* 4: MemManage */
    .word mote_port_busfault_handler    /* 5: BusFault */
    .word mote_port_usagefault_handler  /* 6: UsageFault */
    .word mote_port_securefault_handler /* 7: SecureFault (Armv8-M), else reserved */
    .word 0                             /* 8: reserved */
    .word 0                             /* 9: reserved */
    .word 0                             /* 10: reserved */
    .word mote_port_svc_handler         /* 11: SVCall */
    .word mote_port_debugmon_handler    /* 12: DebugMonitor */
    .word 0                             /* 13: reserved */
    .word mote_port_pendsv_handler      /* 14: PendSV */
    .word mote_port_systick_handler     /* 15: SysTick */
    .rept MOTE_BOARD_IRQ_COUNT
    .word mote_port_irq_handler         /* 16+n: external interrupt n */
    .endr
    .size mote_port_vectors, . - mote_port_vectors

/*
 * Fault entry: EXC_RETURN bit 2 (SPSEL) says which stack holds the frame
 * {r0, r1, r2, r3, r12, lr, pc, xpsr}; pass that stack pointer and
 * EXC_RETURN to mote_port_fault_report(frame, exc_return), which never returns.
 */
    .section .text.mote_port_fault_entry, "ax", %progbits
    .align 1
    .global mote_port_fault_entry
    .thumb_func
    .type mote_port_fault_entry, %function
mote_port_fault_entry:
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* Lift the stack limit: after a stack overflow (UsageFault STKOF) the
       report itself must be able to push below MSPLIM instead of locking up. */
    movs r2, #0
    msr msplim, r2
#endif
#if defined(__ARM_ARCH_6M__)
    /* Armv6-M (Thumb-1): no TST #imm, no IT blocks, B reaches only +-2 KB. */
    movs r0, #4
    mov r1, lr
    tst r0, r1
    bne 1f
    mrs r0, msp
    b 2f
1:
    mrs r0, psp
2:
    ldr r2, =mote_port_fault_report
    bx r2
    .ltorg
#else
    tst lr, #4
    ite eq
    mrseq r0, msp
    mrsne r0, psp
    mov r1, lr
    b mote_port_fault_report
#endif
    .size mote_port_fault_entry, . - mote_port_fault_entry

    .weak mote_port_nmi_handler
    .thumb_set mote_port_nmi_handler, mote_port_fault_entry
    .weak mote_port_memmanage_handler
    .thumb_set mote_port_memmanage_handler, mote_port_fault_entry
    .weak mote_port_busfault_handler
    .thumb_set mote_port_busfault_handler, mote_port_fault_entry
    .weak mote_port_usagefault_handler
    .thumb_set mote_port_usagefault_handler, mote_port_fault_entry
    .weak mote_port_securefault_handler
    .thumb_set mote_port_securefault_handler, mote_port_fault_entry
    .weak mote_port_svc_handler
    .thumb_set mote_port_svc_handler, mote_port_fault_entry
    .weak mote_port_debugmon_handler
    .thumb_set mote_port_debugmon_handler, mote_port_fault_entry
    .weak mote_port_pendsv_handler
    .thumb_set mote_port_pendsv_handler, mote_port_fault_entry
    .weak mote_port_systick_handler
    .thumb_set mote_port_systick_handler, mote_port_fault_entry
    .weak mote_port_irq_handler
    .thumb_set mote_port_irq_handler, mote_port_fault_entry
