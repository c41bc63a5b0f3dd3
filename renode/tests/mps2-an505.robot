*** Comments ***
Mote's firmware self-test on the mps2-an505-like Cortex-M33 (renode/mps2-an505.repl).
Build the firmware first, from the repository root:
    aot build zoo/small_cnn.py --board mps2-an505 --selftest -o build/renode/an505
Renode:        renode-test renode/tests/*.robot   (renode-test takes files, not a folder)
QEMU:          see docs/testing.md, "Renode" (the same file, keywords from renode/sim_keywords).
Another ELF:   --variable AN505_ELF:/path/to/firmware.elf

*** Settings ***
Suite Setup       Setup
Suite Teardown    Teardown
Test Setup        Reset Emulation
Test Teardown     Test Teardown
Resource          ${RENODEKEYWORDS}

*** Variables ***
${AN505_ELF}      ${CURDIR}/../../build/renode/an505/firmware.elf
${PLATFORM}       ${CURDIR}/../mps2-an505.repl
${UART}           sysbus.uart0

*** Test Cases ***
Self-Test Should Pass
    Execute Command               $elf=@${AN505_ELF}
    Execute Command               mach create "mote-an505"
    Execute Command               machine LoadPlatformDescription @${PLATFORM}
    Execute Command               sysbus LoadELF $elf
    Create Terminal Tester        ${UART}    timeout=120
    Register Failing Uart String  MOTE SELFTEST FAIL
    Register Failing Uart String  MOTE ERROR
    Start Emulation
    Wait For Line On Uart         MOTE BOOT mps2-an505
    Wait For Line On Uart         MOTE SELFTEST PASS
