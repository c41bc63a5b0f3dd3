/*
 * mote/slot.h - a model slot: a program that arrives after the firmware was
 * built (a flash region written on its own, `aot pack` / `aot flash
 * --model-only`), checked completely before anything of it runs.
 *
 * A firmware built for a slot (`aot build MODEL --board B --slot ...`,
 * slot.json in the build folder) carries a kernel registry (the operator set
 * of its slot), reserved memory (arena, runtime state, mutable buffers,
 * scratch) and the inputs/outputs its application feeds and reads. The slot
 * image is untrusted: mote_slot_load verifies, in this order, and refuses at
 * the first failure with a report (mote_slot_report_line prints it as one
 * line, "MOTE ERROR slot <reason> ..."):
 *
 *   empty     the region is erased (0xFF) or zero: no image was written
 *   header    magic, header size, header CRC-32, sizes inside the region
 *   version   image format version, then the .pte format version
 *             (MOTE_PTE_FORMAT_VERSION) against this runtime's
 *   crc       the program's CRC-32 (mote_program_crc32), then the trailer's
 *   program   the verifying loader (mote_program_load) refuses the .pte
 *   methods   not exactly one method
 *   operator  a kernel this firmware lacks (the first one, by name)
 *   arenas / arena / mutable / state   the plan needs more than reserved
 *   init      mote_method_init refuses the method (write proof, scratch plan ...)
 *   inputs / outputs / input / output  count, dtype or shape differ from the
 *             application's (mote_slot_io_t)
 *   selftest  the embedded cases do not match the method's inputs/outputs
 *
 * Live state: the slot has two banks (runtime state and mutable-buffer arena
 * each); a new image is initialised in the bank that is not active and
 * becomes active only when every check passed. A refused image leaves the
 * active model (if any) exactly as it was: its state, its mutable buffers
 * and its program. The activation arena (memory id 1) and the kernel scratch
 * are shared: init writes neither (an output read before the load stays
 * valid until the next run). The image's bytes are used in place (the
 * program is never copied): they must stay unchanged while the model they
 * hold is active, so a firmware rewrites the region it runs from only with
 * no model active (after a reset), or loads from a second region (A/B).
 *
 * Image layout (little-endian u32 fields; MOTE_SLOT_HEADER_BYTES = 64):
 *   [0:4]   magic "MOTS"
 *   [4:8]   image format version (MOTE_SLOT_IMAGE_VERSION)
 *   [8:12]  header bytes (64)
 *   [12:16] .pte format version the program was written for (its eh00 stamp; 0:
 *           unstamped, ExecuTorch's own); above MOTE_PTE_FORMAT_VERSION is refused
 *           before the CRCs, a value other than the program's stamp after the load
 *   [16:20] P: program bytes; the .pte is at offset 64 (16-byte aligned when
 *           the image is)
 *   [20:24] CRC-32 of the program's P bytes
 *   [24:28] S: planned kernel scratch slots (mote_scratch_slot_t, 12 bytes:
 *           instruction, offset, size), at T = 64 + P rounded up to 16
 *   [28:32] C: self-test cases
 *   [32:36] I: bytes of one case's inputs (all inputs back to back)
 *   [36:40] E: bytes of the expected-output blob (runtime/embed/mote_selftest.h)
 *   [40:44] trailer bytes: 12 S, padded to 8, C I, padded to 8, E
 *   [44:48] CRC-32 of the trailer
 *   [48:60] zero
 *   [60:64] CRC-32 of header bytes [0:60]
 * aot/deploy/slot.py writes it (`aot pack`).
 *
 * C99, no heap: all memory is the caller's (mote_slot_memory_t). Not
 * reentrant: one thread loads and runs a slot.
 */
#ifndef MOTE_SLOT_H
#define MOTE_SLOT_H

#include "mote/method.h"
#include "mote/program.h"
#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Slot image format version this runtime reads (header bytes [4:8]). */
#define MOTE_SLOT_IMAGE_VERSION 1u
/** Bytes of the image header; the .pte follows it. */
#define MOTE_SLOT_HEADER_BYTES 64u
/** Bytes of one scratch slot entry in the trailer. */
#define MOTE_SLOT_SCRATCH_ENTRY_BYTES 12u

/** An input or output the application expects: dtype (mote_dtype_t) and sizes. */
typedef struct mote_slot_io {
    uint8_t dtype;
    uint8_t dim;
    int32_t sizes[MOTE_MAX_DIM];
} mote_slot_io_t;

/**
 * The firmware's side of the contract: reserved memory and the application's
 * inputs/outputs. arena: memory id 1 (activations and planned scratch), 16-byte
 * aligned; state[b], mutable_arena[b]: bank b's runtime state (8-byte aligned)
 * and memory id 2 (mutable buffers, 16-byte aligned; size 0: models with
 * mutable buffers are refused); scratch: for kernel calls without a planned
 * slot (may be empty). The reserved sizes are these buffers' sizes.
 */
typedef struct mote_slot_memory {
    mote_buffer_t arena;
    mote_buffer_t scratch;
    mote_buffer_t state[2];
    mote_buffer_t mutable_arena[2];
    const mote_slot_io_t *inputs;
    uint32_t num_inputs;
    const mote_slot_io_t *outputs;
    uint32_t num_outputs;
} mote_slot_memory_t;

/** Why an image was refused (mote_slot_report_t.reason). */
typedef enum mote_slot_reason {
    MOTE_SLOT_OK = 0,
    MOTE_SLOT_EMPTY,      /* nothing written */
    MOTE_SLOT_HEADER,     /* detail: "magic", "size", "crc", "layout" */
    MOTE_SLOT_VERSION,    /* detail: "image" or "pte"; need: the image's, have: this runtime's */
    MOTE_SLOT_CRC,        /* detail: "program" or "trailer"; need: the header's, have: computed */
    MOTE_SLOT_PROGRAM,    /* err: the loader's code */
    MOTE_SLOT_METHODS,    /* need: the program's methods, have: 1 */
    MOTE_SLOT_OPERATOR,   /* op_name / op_overload: the first operator without a kernel */
    MOTE_SLOT_ARENAS,     /* need: planned arenas, have: arenas reserved */
    MOTE_SLOT_ARENA,      /* need / have: bytes of memory id 1 */
    MOTE_SLOT_MUTABLE,    /* need / have: bytes of memory id 2 */
    MOTE_SLOT_STATE,      /* need / have: runtime state bytes */
    MOTE_SLOT_INIT,       /* err: mote_method_init's code; index: failing instruction or -1 */
    MOTE_SLOT_INPUTS,     /* need: the program's inputs, have: the application's */
    MOTE_SLOT_OUTPUTS,
    MOTE_SLOT_INPUT,      /* index; got_*: the program's tensor; the application's: mote_slot_memory_t */
    MOTE_SLOT_OUTPUT,
    MOTE_SLOT_SELFTEST    /* detail: "inputs" or "expected"; need: the header's bytes, have: the method's */
} mote_slot_reason_t;

/** A refusal (or MOTE_SLOT_OK: then need is the program's bytes, have the image's), as mote_slot_load found it. */
typedef struct mote_slot_report {
    mote_err_t err;          /* what mote_slot_load returned */
    uint8_t reason;          /* mote_slot_reason_t */
    const char *detail;      /* static text, or NULL */
    int64_t index;           /* input/output index, failing instruction */
    uint64_t need, have;     /* see the reasons */
    const char *op_name, *op_overload; /* inside the image (verified strings), or NULL */
    uint8_t got_dtype, got_dim;
    int32_t got_sizes[MOTE_MAX_DIM];
    const mote_slot_io_t *want; /* the application's tensor (INPUT/OUTPUT), or NULL */
} mote_slot_report_t;

/** A slot: its memory, two banks, the active one. Treat the fields as private. */
typedef struct mote_slot {
    mote_slot_memory_t mem;
    mote_program_t prog[2];
    mote_method_t method[2];
    const uint8_t *selftest_inputs[2];
    const uint8_t *selftest_expected[2];
    uint32_t selftest_cases[2];
    int32_t active;          /* bank of the active model, -1: none */
    uint32_t magic;
} mote_slot_t;

/**
 * Prepares `s` over the caller's memory (copied; the buffers must stay
 * valid). No model is active afterwards. Errors: INVALID_ARGUMENT (NULL,
 * an io table NULL with entries, a dim above MOTE_MAX_DIM),
 * MEMORY_ALIGNMENT.
 */
MOTE_NODISCARD mote_err_t mote_slot_init(mote_slot_t *s, const mote_slot_memory_t *mem);

/**
 * Verifies the image at `image` (`region_bytes` readable bytes: the slot's
 * reserved flash; the header says how many of them the image uses) as the
 * file comment lists, initialises it in the inactive bank and makes it the
 * active model only when everything passed. `report` (may be NULL) says why
 * not. Returns MOTE_OK, or the refusal's code: CHECKSUM (crc, header crc),
 * FORMAT_VERSION, BAD_HEADER (empty, header), TRUNCATED, the loader's codes,
 * UNSUPPORTED (methods, arenas), OP_NOT_FOUND, MEMORY_TOO_SMALL (arena,
 * mutable, state), mote_method_init's codes, INPUT_INDEX (inputs/outputs
 * count), INPUT_DTYPE / INPUT_SHAPE (input/output), BAD_SEGMENT (selftest),
 * NOT_INITIALIZED, INVALID_ARGUMENT, MEMORY_ALIGNMENT (image not 16-byte aligned).
 */
MOTE_NODISCARD mote_err_t mote_slot_load(mote_slot_t *s, const void *image, size_t region_bytes,
                                         mote_slot_report_t *report);

/** The active model's method (run it with mote/method.h), or NULL when none is active. */
mote_method_t *mote_slot_method(mote_slot_t *s);
/** The active model's program (for mote/program.h's queries), or NULL when none is active. */
const mote_program_t *mote_slot_program(const mote_slot_t *s);

/**
 * The active image's self-test: *cases (0: none), the input sets (*cases sets
 * of the method's input bytes back to back) and the expected-output blob for
 * runtime/embed/mote_selftest.h, both checked against the method at load.
 * Errors: NOT_INITIALIZED (no model active), INVALID_ARGUMENT.
 */
MOTE_NODISCARD mote_err_t mote_slot_selftest(const mote_slot_t *s, uint32_t *cases, const uint8_t **inputs,
                                             const uint8_t **expected);

/**
 * Writes the report as one NUL-terminated line without a newline into `buf`
 * (`size` bytes; cut short to fit): "MOTE ERROR slot <reason> ...", or
 * "MOTE SLOT ok" for MOTE_SLOT_OK. Returns the characters written.
 */
size_t mote_slot_report_line(const mote_slot_report_t *r, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* MOTE_SLOT_H */
