/*
 * corpus_crc.c - the embedding API (runtime/embed/mote_model.c) a second time
 * in one image, built with the checksum option (MOTE_VERIFY_CHECKSUM): its
 * global names get the prefix mote_crc_ (corpus_crc.h), its memory is its own.
 */
#define MOTE_VERIFY_CHECKSUM 1
#define mote_model_init mote_crc_model_init
#define mote_model_select_method mote_crc_model_select_method
#define mote_model_num_inputs mote_crc_model_num_inputs
#define mote_model_num_outputs mote_crc_model_num_outputs
#define mote_model_set_input mote_crc_model_set_input
#define mote_model_run mote_crc_model_run
#define mote_model_reset_state mote_crc_model_reset_state
#define mote_model_get_output mote_crc_model_get_output
#define mote_model_method mote_crc_model_method
#define mote_model_program mote_crc_model_program
#define mote_model_selftest mote_crc_model_selftest
#define mote_embed_arena0 mote_crc_embed_arena0
#define mote_embed_arena1 mote_crc_embed_arena1
#include "mote_model.c"
