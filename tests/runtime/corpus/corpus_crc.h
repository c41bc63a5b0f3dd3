/*
 * corpus_crc.h - the names of the second embedding-API instance in the
 * corpus firmware (corpus_crc.c: mote_model.c built with MOTE_VERIFY_CHECKSUM).
 */
#ifndef MOTE_CORPUS_CRC_H
#define MOTE_CORPUS_CRC_H
#include "mote/types.h"

mote_err_t mote_crc_model_init(void);
mote_err_t mote_crc_model_run(void);
extern uint8_t mote_crc_embed_arena0[];
extern uint8_t mote_crc_embed_arena1[];

#endif
