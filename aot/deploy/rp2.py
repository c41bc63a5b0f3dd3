"""Facts of Raspberry Pi's RP2040 and RP2350 that Mote's tools read images and
pins with: how each chip's bootrom recognises a flash image, and the GPIO
function table's UART column.

How the bootrom recognises a flash image (the image's first byte at the flash origin):

- RP2040 (datasheet 2.8.1.3): the first BOOT2_BYTES (256) bytes are boot2; the
  bootrom runs it only if their last word (little endian) is the CRC-32 of the
  first 252 (``boot2_crc32``).
- RP2350 (datasheet 5.9.5): a block in the first BLOCK_SEARCH_BYTES (4 KiB),
  word aligned::

      PICOBIN_BLOCK_MARKER_START 0xffffded3
      items: each a header word (byte 0 the item type; bit 7 of it set: the
             item's size in words is bytes 1-2, else byte 1) and its words
      LAST item (type 0xff): size = the words of the items before it
      a relative link to the next block (0: a loop of this block alone)
      PICOBIN_BLOCK_MARKER_END   0xab123579

  An IMAGE_DEF is a block whose IMAGE_TYPE item (0x42) has image type EXE;
  the item's flags (bits 31:16 of its header) name the chip in bits 14:12
  (0 RP2040, 1 RP2350) and the CPU in bits 10:8 (0 Arm, 1 RISC-V).
  ports/pico2/image_def.c writes Mote's.

GPIO functions (the FUNCSEL values of IO_BANK0 GPIOn_CTRL, the columns F1..F11 of
the function tables: RP2040 datasheet 2.19.2, RP2350 datasheet 9.4): UART is F2
on both chips, where GPIO n carries UART ((n + 4) // 8) % 2's TX, RX, CTS or RTS
by n % 4 (GPIO0 UART0 TX, GPIO4 UART1 TX, GPIO8 UART1 TX, GPIO12 UART0 TX, ...;
GPIO0-29, every user GPIO of the RP2040 and of the RP2350A). The RP2350 also has
F11 (UART auxiliary): TX on the CTS pins (n % 4 == 2), RX on the RTS pins (n % 4 == 3).
The binary info's PINS_WITH_FUNC entries (aot.deploy.binary_info) carry these numbers.
"""
from __future__ import annotations

import struct
from typing import Optional

#: the RP2040's boot2: the first 256 bytes of flash, the last 4 its CRC-32
BOOT2_BYTES = 256
#: where the RP2350 bootrom looks for the image's first block: the first 4 KiB
BLOCK_SEARCH_BYTES = 4096
BLOCK_MARKER_START = 0xFFFFDED3
BLOCK_MARKER_END = 0xAB123579
ITEM_IMAGE_TYPE = 0x42
ITEM_LAST = 0xFF
IMAGE_TYPE_EXE = 1
#: IMAGE_TYPE's chip field (flags bits 14:12) and CPU field (bits 10:8)
IMAGE_TYPE_CHIPS = {0: "RP2040", 1: "RP2350"}
IMAGE_TYPE_CPUS = {0: "Arm", 1: "RISC-V"}

CHIPS = ("RP2040", "RP2350")

#: GPIO function number -> name, per chip (RP2040 datasheet 2.19.2, RP2350 datasheet 9.4)
GPIO_FUNCTIONS = {
    "RP2040": {0: "XIP", 1: "SPI", 2: "UART", 3: "I2C", 4: "PWM", 5: "SIO", 6: "PIO0", 7: "PIO1",
               8: "GPCK", 9: "USB", 31: "NULL"},
    "RP2350": {0: "HSTX", 1: "SPI", 2: "UART", 3: "I2C", 4: "PWM", 5: "SIO", 6: "PIO0", 7: "PIO1",
               8: "PIO2", 9: "GPCK", 10: "USB", 11: "UART_AUX", 31: "NULL"},
}
GPIO_FUNC_UART = 2
GPIO_FUNC_UART_AUX = 11
#: the GPIOs whose UART signal uart_signal names (the RP2040's all, the RP2350A's all)
UART_NAMED_PINS = range(30)
UART_SIGNALS = ("TX", "RX", "CTS", "RTS")


def boot2_crc32(data: bytes) -> int:
    """CRC-32 as the RP2040 bootrom checks boot2 (datasheet 2.8.1.3.1): polynomial
    0x04c11db7, initial value 0xffffffff, input and output not reflected, no final XOR."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else (crc << 1)
            crc &= 0xFFFFFFFF
    return crc


def boot2_valid(image: bytes) -> bool:
    """True when `image` (flash from its origin) starts with a boot2 the RP2040 bootrom runs."""
    if len(image) < BOOT2_BYTES:
        return False
    return boot2_crc32(image[:BOOT2_BYTES - 4]) == struct.unpack_from("<I", image, BOOT2_BYTES - 4)[0]


def _block_items(image: bytes, at: int) -> Optional[list]:
    """The items [(type, header word, [words])] of a well-formed block whose start marker
    is at byte `at` of `image`, else None."""
    words = len(image) // 4
    i = at // 4 + 1
    used = 0  # words of the items before LAST
    items = []
    while i < words:
        header = struct.unpack_from("<I", image, 4 * i)[0]
        type_ = header & 0xFF
        size = (header >> 8) & 0xFFFF if type_ & 0x80 else (header >> 8) & 0xFF
        if type_ == ITEM_LAST:
            if size != used or i + 2 >= words:
                return None
            if struct.unpack_from("<I", image, 4 * (i + 2))[0] != BLOCK_MARKER_END:
                return None
            return items
        if size == 0 or i + size > words:
            return None
        items.append((type_, header, struct.unpack_from("<%dI" % (size - 1), image, 4 * (i + 1))))
        used += size
        i += size
    return None


def image_def(image: bytes) -> Optional[tuple]:
    """(offset, chip, cpu, security bits) of the first IMAGE_DEF block in the first
    BLOCK_SEARCH_BYTES of `image` (flash from its origin), else None."""
    area = image[:BLOCK_SEARCH_BYTES]
    for at in range(0, len(area) - 3, 4):
        if struct.unpack_from("<I", area, at)[0] != BLOCK_MARKER_START:
            continue
        for type_, header, _ in _block_items(area, at) or ():
            flags = header >> 16
            if type_ == ITEM_IMAGE_TYPE and flags & 0xF == IMAGE_TYPE_EXE:
                return (at, IMAGE_TYPE_CHIPS.get((flags >> 12) & 7), IMAGE_TYPE_CPUS.get((flags >> 8) & 7),
                        (flags >> 4) & 3)
    return None


def image_chip(image: bytes) -> tuple:
    """(chip, evidence) of a flash image (its bytes from the flash origin): ("RP2350",
    "an IMAGE_DEF block at +0x110") when an RP2350 bootrom finds an Arm IMAGE_DEF for
    the RP2350, ("RP2040", "a boot2 with its CRC-32") when the RP2040 bootrom would run
    its boot2, else (None, what was found instead)."""
    found = image_def(image)
    if found is not None:
        at, chip, cpu, _ = found
        where = f"an IMAGE_DEF block at +0x{at:x}"
        if chip == "RP2350" and cpu == "Arm":
            return "RP2350", where
        if chip == "RP2040" and boot2_valid(image):
            return "RP2040", "a boot2 with its CRC-32"
        return None, f"{where} for {chip or 'an unknown chip'} ({cpu or 'an unknown'} CPU)"
    if boot2_valid(image):
        return "RP2040", "a boot2 with its CRC-32"
    return None, (f"neither an RP2040 boot2 (the first {BOOT2_BYTES} bytes, ending in their CRC-32) "
                  f"nor an RP2350 IMAGE_DEF block (in the first {BLOCK_SEARCH_BYTES} bytes)")


def function_name(chip: str, func: int) -> str:
    """The name of GPIO function `func` on `chip` ("UART"), or "F<func>" for a number the table lacks."""
    return GPIO_FUNCTIONS[chip].get(func, f"F{func}")


def uart_signal(chip: str, pin: int, func: int) -> Optional[str]:
    """"UART0 TX" / "UART1 RX" / "UART0 CTS" ...: what GPIO `pin` carries with function
    `func` (F2 UART, RP2350 F11 UART auxiliary) on `chip`, None when that is not a UART
    signal of the table (another function, a pin outside UART_NAMED_PINS, an F11 pin
    without a signal)."""
    if pin not in UART_NAMED_PINS:
        return None
    uart = f"UART{((pin + 4) // 8) % 2}"
    if func == GPIO_FUNC_UART:
        return f"{uart} {UART_SIGNALS[pin % 4]}"
    if chip == "RP2350" and func == GPIO_FUNC_UART_AUX and pin % 4 in (2, 3):
        return f"{uart} {'TX' if pin % 4 == 2 else 'RX'}"
    return None


def pin_label(chip: str, pin: int, func: int) -> str:
    """What `picotool info` names a pin's function: its UART signal ("UART0 TX"), else
    the function's name ("SPI", "F12" for an unknown number)."""
    return uart_signal(chip, pin, func) or function_name(chip, func)


def pin_name(pin: int) -> str:
    """"GP0": the name of GPIO `pin` on the Pico boards' pinouts."""
    return f"GP{pin}"
