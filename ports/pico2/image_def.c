/*
 * image_def.c - RP2350 boot block: the minimum Arm IMAGE_DEF.
 *
 * RP2350 datasheet, 5.9.5.1 "Minimum Arm IMAGE_DEF" and 5.9.3.1 (image type
 * item). The bootrom accepts a flash image only if a block loop starting in
 * its first 4 KB holds a valid IMAGE_DEF; the generated linker script puts
 * section .mote_image_def right after the vector table and asserts it ends
 * within 4 KB. With no VECTOR_TABLE/ENTRY_POINT item the bootrom enters the
 * image through the vector table at the start of the image (initial SP in
 * word 0, reset handler in word 1).
 *
 * Words:
 *   0xffffded3  PICOBIN_BLOCK_MARKER_START
 *   0x10210142  item 0x42 IMAGE_TYPE (1BS), 1 word, flags 0x1021:
 *               image type EXE (bits 3:0 = 1), security Secure (bits 5:4 = 2),
 *               CPU Arm (bits 10:8 = 0), chip RP2350 (bits 14:12 = 1)
 *   0x000001ff  item 0xff LAST (2BS): 1 word of items precede it
 *   0x00000000  relative link to the next block: 0 = a loop of this block only
 *   0xab123579  PICOBIN_BLOCK_MARKER_END
 */
#include <stdint.h>

#define MOTE_PICOBIN_BLOCK_MARKER_START 0xffffded3u
#define MOTE_PICOBIN_BLOCK_MARKER_END 0xab123579u
#define MOTE_PICOBIN_ITEM_IMAGE_TYPE 0x42u
#define MOTE_PICOBIN_ITEM_LAST 0xffu
#define MOTE_IMAGE_TYPE_EXE 0x0001u
#define MOTE_IMAGE_TYPE_SECURE (2u << 4)
#define MOTE_IMAGE_TYPE_CPU_ARM (0u << 8)
#define MOTE_IMAGE_TYPE_CHIP_RP2350 (1u << 12)

extern const uint32_t mote_pico2_image_def[5];

__attribute__((section(".mote_image_def"), used, aligned(4)))
const uint32_t mote_pico2_image_def[5] = {
    MOTE_PICOBIN_BLOCK_MARKER_START,
    ((MOTE_IMAGE_TYPE_EXE | MOTE_IMAGE_TYPE_SECURE | MOTE_IMAGE_TYPE_CPU_ARM |
      MOTE_IMAGE_TYPE_CHIP_RP2350) << 16) | (1u << 8) | MOTE_PICOBIN_ITEM_IMAGE_TYPE,
    (1u << 8) | MOTE_PICOBIN_ITEM_LAST,
    0u,
    MOTE_PICOBIN_BLOCK_MARKER_END,
};
