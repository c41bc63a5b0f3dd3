/*
 * method_internal.h - internal: what the method files share.
 *   method_init.c    requirements, structure verification, init
 *   method_verify.c  init's write proof (mote/method.h, "Write proof")
 *   method_exec.c    execute loop, inputs and outputs
 */
#ifndef MOTE_METHOD_INTERNAL_H
#define MOTE_METHOD_INTERNAL_H

#include "mote/method.h"
#include "mote/port.h"
#include "program_internal.h"

#define MOTE_METHOD_MAGIC 0x4d455448u /* "METH": set by a successful init */

/* Init writes the state into the caller's buffer (no method image); never in a
 * build without MOTE_RUNTIME_STATE (mote/config.h), whose init requires an image. */
#define MOTE_WRITES_STATE(m) (MOTE_RUNTIME_STATE && (m)->image == NULL)

/*
 * The write proof, called by init as it resolves the method (values are
 * parsed; instructions are resolved in order, et_view outputs get their
 * input's storage as each view is met).
 */

/* Is `t`'s storage constant (in the program, or in the attached .ptd)? Never written. */
bool mote_method_is_constant(const mote_method_t *m, const mote_tensor_t *t);

/* MoveCall from value `from` to value `to`. Errors: BAD_VALUE_TYPE, ALIAS_NOT_WRITABLE, ALIAS_MISMATCH. */
MOTE_NODISCARD mote_err_t mote_method_verify_move(const mote_method_t *m, uint32_t from, uint32_t to);

/*
 * et_view of `in` as `out`; on success `out` aliases `in`'s storage (with a
 * method image: already does). Errors: ALIAS_MISMATCH, BAD_ALLOCATION (in
 * has no storage yet), ALIAS_NOT_WRITABLE, BAD_IMAGE.
 */
MOTE_NODISCARD mote_err_t mote_method_verify_view(const mote_method_t *m, mote_tensor_t *in, mote_tensor_t *out);

/*
 * The last `nouts` of a kernel call's `nargs` arguments (what its kernel
 * writes). Errors: BAD_INSTRUCTION (nargs < nouts), OUTPUT_NOT_WRITABLE.
 */
MOTE_NODISCARD mote_err_t mote_method_verify_outputs(const mote_method_t *m, mote_value_t *const *args,
                                                     uint32_t nargs, uint32_t nouts);

/*
 * After every instruction: tensor inputs have planned, writable storage
 * (UNSUPPORTED: unplanned; INPUT_NOT_WRITABLE: a constant) and every tensor
 * of non-zero size has storage (BAD_ALLOCATION).
 */
MOTE_NODISCARD mote_err_t mote_method_verify_storage(const mote_method_t *m);

#endif /* MOTE_METHOD_INTERNAL_H */
