/*
 * corpus_app.c - the malformed-program corpus through the embedding API
 * (mote/model.h), on a board (QEMU) and on the host, one boot for all.
 *
 * The corpus (tests/runtime/test_corpus_qemu.py) is one blob linked into the
 * image (corpus_blob.S: flash on a board): "MCRP", u32 count, then count
 * entries {u32 offset, u32 size, u32 crc_self, u32 crc_base} (offsets from
 * the blob's start, each 16-byte aligned), then the programs. Each program is
 * given to the embedding API in place (model_pte.h names it), three ways:
 *   off: mote_model_init without the checksum option;
 *   on:  the embedding API built with MOTE_VERIFY_CHECKSUM (corpus_crc.c),
 *        MOTE_MODEL_CRC32 = the program's own CRC-32;
 *   bad: the same, MOTE_MODEL_CRC32 = the CRC-32 of the unmutated base.
 * After a successful init the method runs once on zeroed arenas. One line
 * per program:  CASE <i> <off init> <off run> <on init> <on run> <bad init> <bad run>
 * (a run not attempted prints 1), then "CORPUS DONE <count>".
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "corpus_crc.h"
#include "model_pte.h"
#include "mote/model.h"
#include "mote_model.h"
#include "mote_port.h"

extern const uint8_t mote_corpus_blob[];
extern uint8_t mote_embed_arena0[];
extern uint8_t mote_embed_arena1[];

const uint8_t *mote_corpus_pte;
size_t mote_corpus_size;
uint32_t mote_corpus_crc;

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* init, then (if it succeeded) one run, on zeroed arenas; prints both codes. */
static void try_one(mote_err_t (*init)(void), mote_err_t (*run)(void), uint8_t *a0, uint8_t *a1)
{
    mote_err_t err, ran = (mote_err_t)1;

    memset(a0, 0, MOTE_MODEL_ARENA0_BYTES);
    memset(a1, 0, MOTE_MODEL_ARENA1_BYTES);
    err = init();
    if (err == MOTE_OK) {
        ran = run();
    }
    mote_port_puts(" ");
    mote_port_put_i32((int32_t)err);
    mote_port_puts(" ");
    mote_port_put_i32((int32_t)ran);
}

int main(void)
{
    const uint8_t *b = mote_corpus_blob;
    uint32_t i, n;

    mote_port_uart_init();
    if (rd32(b) != 0x5052434du) { /* "MCRP" */
        mote_port_puts("CORPUS BAD BLOB\n");
        return 1;
    }
    n = rd32(b + 4);
    for (i = 0; i < n; i++) {
        const uint8_t *e = b + 8u + 16u * i;
        mote_corpus_pte = b + rd32(e);
        mote_corpus_size = (size_t)rd32(e + 4);
        mote_port_puts("CASE ");
        mote_port_put_u32(i);
        mote_corpus_crc = rd32(e + 8);
        try_one(mote_model_init, mote_model_run, mote_embed_arena0, mote_embed_arena1);
        try_one(mote_crc_model_init, mote_crc_model_run, mote_crc_embed_arena0, mote_crc_embed_arena1);
        mote_corpus_crc = rd32(e + 12);
        try_one(mote_crc_model_init, mote_crc_model_run, mote_crc_embed_arena0, mote_crc_embed_arena1);
        mote_port_puts("\n");
    }
    mote_port_puts("CORPUS DONE ");
    mote_port_put_u32(n);
    mote_port_puts("\n");
    return 0;
}
