/*
 * crc32.c - CRC-32 of program bytes (IEEE 802.3, as zlib.crc32), for the
 * firmware's boot-time check of its model against MOTE_MODEL_CRC32.
 *
 * Reflected polynomial 0xEDB88320, processed four bits at a time with a
 * 16-entry table (64 bytes of flash instead of the usual 1 KiB).
 */
#include "mote/program.h"

/* CRC of each 4-bit value: kNibble[i] = i shifted through the polynomial 4 times. */
static const uint32_t kNibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t mote_program_crc32(const void *data, size_t size)
{
    const uint8_t *p = (const uint8_t *)data;
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;

    if (p == NULL) {
        return 0u;
    }
    for (i = 0; i < size; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ kNibble[crc & 15u];
        crc = (crc >> 4) ^ kNibble[crc & 15u];
    }
    return crc ^ 0xFFFFFFFFu;
}

mote_err_t mote_program_verify_crc32(const void *data, size_t size, uint32_t expected)
{
    MOTE_CHECK(data != NULL || size == 0u, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(mote_program_crc32(data, size) == expected, MOTE_ERR_CHECKSUM);
    return MOTE_OK;
}
