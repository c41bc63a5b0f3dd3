/*
 * binary_info.c - Raspberry Pi binary info of RP2040 / RP2350 images: what
 * `picotool info -a` shows (program name, version, build date, description,
 * binary end, the UART pins). Data only: no code runs.
 *
 * Layout (Pico-series C/C++ SDK, pico_binary_info; aot/deploy/binary_info.py
 * holds every constant and writes them, with this image's strings, into the
 * generated mote_binary_info.h):
 *  - a 5-word header (MOTE_BI_MARKER_START, first entry pointer, end of the
 *    entry pointers, address mapping table, MOTE_BI_MARKER_END) in section
 *    MOTE_BI_HEADER_SECTION, which the generated linker script places after
 *    the vector table (pico2: after the IMAGE_DEF block) and asserts inside the
 *    window picotool searches: RP2040 the 256 bytes after boot2 (RP2040
 *    datasheet 2.8.1: boot2 is the first 256 bytes of flash), RP2350 the first
 *    1024 bytes of the image;
 *  - an array of 32-bit pointers to the entries;
 *  - entries: a core {uint16 type, uint16 tag} and the type's fields, each
 *    field 32-bit and naturally aligned (the structs below have no padding);
 *  - the address mapping table (rows {image address, runtime start, runtime
 *    end}, ended by a row whose first word is 0): every entry and string here
 *    is const data in flash, so the table is its terminating 0 alone.
 */
#include <stdint.h>

#include "mote_binary_info.h"

typedef struct {
    uint16_t type; /* MOTE_BI_TYPE_* */
    uint16_t tag;  /* MOTE_BI_TAG_RASPBERRY_PI */
} mote_bi_core_t;

/* ID_AND_STRING: a well-known id and a NUL-terminated string. */
typedef struct {
    mote_bi_core_t core;
    uint32_t id;
    const char *value;
} mote_bi_id_and_string_t;

/* ID_AND_INT whose 32-bit int is an address (the image's end in flash). */
typedef struct {
    mote_bi_core_t core;
    uint32_t id;
    const void *value;
} mote_bi_id_and_address_t;

/* PINS_WITH_FUNC: pins and their GPIO function in one encoded word. */
typedef struct {
    mote_bi_core_t core;
    uint32_t pin_encoding;
} mote_bi_pins_with_func_t;

typedef struct {
    uint32_t marker_start;
    const void *const *entries;     /* first entry pointer */
    const void *const *entries_end; /* one past the last */
    const uint32_t *mapping;        /* address mapping table */
    uint32_t marker_end;
} mote_bi_header_t;

/* The first flash address after the image (generated linker script). */
extern const uint8_t __mote_flash_binary_end__[];

static const mote_bi_id_and_string_t mote_bi_program_name = {
    {MOTE_BI_TYPE_ID_AND_STRING, MOTE_BI_TAG_RASPBERRY_PI}, MOTE_BI_ID_PROGRAM_NAME, MOTE_BI_PROGRAM_NAME};
static const mote_bi_id_and_string_t mote_bi_program_version = {
    {MOTE_BI_TYPE_ID_AND_STRING, MOTE_BI_TAG_RASPBERRY_PI}, MOTE_BI_ID_PROGRAM_VERSION_STRING,
    MOTE_BI_PROGRAM_VERSION};
static const mote_bi_id_and_string_t mote_bi_program_build_date = {
    {MOTE_BI_TYPE_ID_AND_STRING, MOTE_BI_TAG_RASPBERRY_PI}, MOTE_BI_ID_PROGRAM_BUILD_DATE_STRING,
    MOTE_BI_PROGRAM_BUILD_DATE};
static const mote_bi_id_and_string_t mote_bi_program_description = {
    {MOTE_BI_TYPE_ID_AND_STRING, MOTE_BI_TAG_RASPBERRY_PI}, MOTE_BI_ID_PROGRAM_DESCRIPTION,
    MOTE_BI_PROGRAM_DESCRIPTION};
static const mote_bi_id_and_address_t mote_bi_binary_end = {
    {MOTE_BI_TYPE_ID_AND_INT, MOTE_BI_TAG_RASPBERRY_PI}, MOTE_BI_ID_BINARY_END, __mote_flash_binary_end__};
static const mote_bi_pins_with_func_t mote_bi_uart_pins = {
    {MOTE_BI_TYPE_PINS_WITH_FUNC, MOTE_BI_TAG_RASPBERRY_PI}, MOTE_BI_UART_PINS};

static const void *const mote_bi_entries[] = {
    &mote_bi_program_name, &mote_bi_program_version, &mote_bi_program_build_date,
    &mote_bi_program_description, &mote_bi_binary_end, &mote_bi_uart_pins,
};

static const uint32_t mote_bi_mapping[1] = {0u};

static const mote_bi_header_t mote_bi_header
    __attribute__((section(MOTE_BI_HEADER_SECTION), used, aligned(4))) = {
        MOTE_BI_MARKER_START,
        mote_bi_entries,
        mote_bi_entries + sizeof mote_bi_entries / sizeof mote_bi_entries[0],
        mote_bi_mapping,
        MOTE_BI_MARKER_END,
};
