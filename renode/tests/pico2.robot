*** Comments ***
Mote's pico2 firmware self-test on renode/pico2.repl, a Cortex-M33 with the
Pico 2's memory map (a memory-map stand-in: Renode models no RP2350).
Build the firmware first, from the repository root:
    aot build zoo/small_cnn.py --board pico2 --selftest -o build/renode/pico2
Renode:        renode-test renode/tests/*.robot   (renode-test takes files, not a folder)
Without Renode (renode/sim_keywords): skipped at "machine LoadPlatformDescription":
               boards/pico2.json names no simulator (no QEMU machine, no RP2350 model).
Another ELF:   --variable PICO2_ELF:/path/to/firmware.elf

*** Settings ***
Suite Setup       Setup
Suite Teardown    Teardown
Test Setup        Reset Emulation
Test Teardown     Test Teardown
Resource          ${RENODEKEYWORDS}

*** Variables ***
${PICO2_ELF}      ${CURDIR}/../../build/renode/pico2/firmware.elf
${PLATFORM}       ${CURDIR}/../pico2.repl
${UART}           sysbus.uart0

*** Test Cases ***
Self-Test Should Pass
    Execute Command               $elf=@${PICO2_ELF}
    Execute Command               mach create "mote-pico2"
    Execute Command               machine LoadPlatformDescription @${PLATFORM}
    Execute Command               sysbus LoadELF $elf
    Create Terminal Tester        ${UART}    timeout=120
    Register Failing Uart String  MOTE SELFTEST FAIL
    Register Failing Uart String  MOTE ERROR
    Start Emulation
    Wait For Line On Uart         MOTE BOOT pico2
    Wait For Line On Uart         MOTE SELFTEST PASS
