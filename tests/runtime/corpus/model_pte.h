/*
 * model_pte.h for the corpus firmware (corpus_app.c): the program the
 * embedding API loads is the corpus entry under test, in place in the blob.
 */
#ifndef MOTE_MODEL_PTE_H
#define MOTE_MODEL_PTE_H
#include <stddef.h>
#include <stdint.h>

extern const uint8_t *mote_corpus_pte; /* 16-byte aligned, inside mote_corpus_blob */
extern size_t mote_corpus_size;        /* bytes */
extern uint32_t mote_corpus_crc;       /* what the checksum option compares with */

#define MOTE_MODEL_PTE_ALIGN 16
#define mote_model_pte mote_corpus_pte
#define MOTE_MODEL_PTE_SIZE mote_corpus_size

#endif
