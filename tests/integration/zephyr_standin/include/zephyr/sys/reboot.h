/*
 * STAND-IN, not Zephyr's header: sys_reboot with Zephyr's signature and
 * reboot types, declarations only.
 */
#ifndef ZEPHYR_STANDIN_SYS_REBOOT_H
#define ZEPHYR_STANDIN_SYS_REBOOT_H

#define SYS_REBOOT_WARM 0
#define SYS_REBOOT_COLD 1

void sys_reboot(int type) __attribute__((noreturn));

#endif /* ZEPHYR_STANDIN_SYS_REBOOT_H */
