*** Comments ***
Mote's pico firmware self-test. In Renode: on renode/pico.repl, a Cortex-M0+
with the Pico's memory map (a memory-map stand-in: Renode models no RP2040).
Without Renode (renode/sim_keywords): on rp2040js, a model of the RP2040, booting
the UF2 a user flashes (firmware.uf2 beside the ELF, checked to be the ELF's)
through the bootrom stand-in and the image's own boot2; timeouts are virtual
time there too (seconds x boards/pico.json clock_hz core cycles).
Build the firmware first, from the repository root:
    aot build zoo/small_cnn.py --board pico --selftest -o build/renode/pico
Renode:        renode-test renode/tests/*.robot   (renode-test takes files, not a folder)
rp2040js:      see docs/testing.md, "Renode" (the same file, keywords from renode/sim_keywords).
Another ELF:   --variable PICO_ELF:/path/to/firmware.elf

*** Settings ***
Suite Setup       Setup
Suite Teardown    Teardown
Test Setup        Reset Emulation
Test Teardown     Test Teardown
Resource          ${RENODEKEYWORDS}

*** Variables ***
${PICO_ELF}       ${CURDIR}/../../build/renode/pico/firmware.elf
${PLATFORM}       ${CURDIR}/../pico.repl
${UART}           sysbus.uart0

*** Test Cases ***
Self-Test Should Pass
    Execute Command               $elf=@${PICO_ELF}
    Execute Command               mach create "mote-pico"
    Execute Command               machine LoadPlatformDescription @${PLATFORM}
    Execute Command               sysbus LoadELF $elf
    Execute Command               sysbus.cpu0 VectorTableOffset 0x10000100
    Create Terminal Tester        ${UART}    timeout=120
    Register Failing Uart String  MOTE SELFTEST FAIL
    Register Failing Uart String  MOTE ERROR
    Start Emulation
    Wait For Line On Uart         MOTE BOOT pico
    Wait For Line On Uart         MOTE SELFTEST PASS
