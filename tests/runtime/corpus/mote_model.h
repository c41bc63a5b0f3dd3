/*
 * mote_model.h for the corpus firmware (corpus_app.c): memory for any corpus
 * program (one method, up to two arenas); the checksum is the entry's.
 */
#ifndef MOTE_MODEL_H
#define MOTE_MODEL_H
#include <stdint.h>

extern uint32_t mote_corpus_crc;

#define MOTE_MODEL_STATE_BYTES 262144
#define MOTE_MODEL_NUM_ARENAS 2
#define MOTE_MODEL_ARENA0_BYTES 524288
#define MOTE_MODEL_ARENA1_BYTES 65536
#define MOTE_MODEL_SCRATCH_BYTES 65536
#define MOTE_MODEL_NUM_METHODS 1u
#define MOTE_MODEL_DEFAULT_METHOD 0u
#define MOTE_MODEL_CRC32 mote_corpus_crc

#endif
