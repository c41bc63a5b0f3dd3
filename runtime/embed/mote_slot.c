/*
 * mote_slot.c - a program arriving in a model slot (mote/slot.h): the image
 * header, its CRC-32s and format versions, the verifying loader, the
 * operator set, the reserved memory and the application's inputs/outputs,
 * all checked in the inactive bank before the image becomes the active model.
 *
 * Generic: no generated header. The firmware app for a slot
 * (ports/cortex-m/app/mote_slot_app.c) gives it static buffers of the
 * reserved sizes from mote_slot_config.h (aot/deploy/slot.py).
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/slot.h"

#define SLOT_MAGIC 0x53544F4Du /* "MOTS" as a little-endian u32 */
#define SLOT_OBJECT_MAGIC 0x4D534C54u

/* mote_scratch_slot_t is read in place from the trailer: three u32, no padding. */
typedef char slot_scratch_entry_is_12_bytes[sizeof(mote_scratch_slot_t) == MOTE_SLOT_SCRATCH_ENTRY_BYTES ? 1 : -1];

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t pad(uint64_t n, uint64_t a)
{
    return (n + (a - 1u)) & ~(a - 1u);
}

/* Records a refusal and returns its code. */
static mote_err_t refuse(mote_slot_report_t *r, mote_err_t err, mote_slot_reason_t reason, const char *detail,
                         uint64_t need, uint64_t have)
{
    r->err = err;
    r->reason = (uint8_t)reason;
    r->detail = detail;
    r->need = need;
    r->have = have;
    return err;
}

static bool io_valid(const mote_slot_io_t *io, uint32_t n)
{
    uint32_t i;
    if (n > 0u && io == NULL) {
        return false;
    }
    for (i = 0; i < n; i++) {
        if (io[i].dim > MOTE_MAX_DIM) {
            return false;
        }
    }
    return true;
}

static bool aligned(const void *p, uintptr_t a)
{
    return ((uintptr_t)p & (a - 1u)) == 0u;
}

mote_err_t mote_slot_init(mote_slot_t *s, const mote_slot_memory_t *mem)
{
    uint32_t b;

    MOTE_CHECK(s != NULL && mem != NULL, MOTE_ERR_INVALID_ARGUMENT);
    s->magic = 0;
    s->active = -1;
    MOTE_CHECK(io_valid(mem->inputs, mem->num_inputs) && io_valid(mem->outputs, mem->num_outputs),
               MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(aligned(mem->arena.ptr, MOTE_ARENA_ALIGN), MOTE_ERR_MEMORY_ALIGNMENT);
    for (b = 0; b < 2u; b++) {
        MOTE_CHECK(aligned(mem->state[b].ptr, MOTE_STATE_ALIGN) && aligned(mem->mutable_arena[b].ptr, MOTE_ARENA_ALIGN),
                   MOTE_ERR_MEMORY_ALIGNMENT);
        s->method[b].magic = 0;
        s->prog[b].magic = 0;
        s->selftest_cases[b] = 0;
        s->selftest_inputs[b] = NULL;
        s->selftest_expected[b] = NULL;
    }
    s->mem = *mem;
    s->magic = SLOT_OBJECT_MAGIC;
    return MOTE_OK;
}

/* The fields of a verified header. */
typedef struct slot_header {
    uint32_t pte_version, program_bytes, program_crc;
    uint32_t scratch_slots, cases, case_inputs, expected_bytes, trailer_bytes, trailer_crc;
    uint64_t trailer_pos;
} slot_header_t;

/* Header: emptiness, magic, CRC, versions, the layout inside `size` bytes, both CRCs. */
static mote_err_t slot_header(const uint8_t *p, size_t size, slot_header_t *h, mote_slot_report_t *r)
{
    uint32_t i, hcrc, version;
    uint64_t want;

    if (size >= 4u && (rd32(p) == 0xFFFFFFFFu || rd32(p) == 0u)) {
        return refuse(r, MOTE_ERR_BAD_HEADER, MOTE_SLOT_EMPTY, NULL, 0u, 0u);
    }
    if (size < MOTE_SLOT_HEADER_BYTES) {
        return refuse(r, MOTE_ERR_TRUNCATED, MOTE_SLOT_HEADER, "size", MOTE_SLOT_HEADER_BYTES, size);
    }
    if (rd32(p) != SLOT_MAGIC) {
        return refuse(r, MOTE_ERR_BAD_HEADER, MOTE_SLOT_HEADER, "magic", SLOT_MAGIC, rd32(p));
    }
    hcrc = mote_program_crc32(p, MOTE_SLOT_HEADER_BYTES - 4u);
    if (hcrc != rd32(p + 60)) {
        return refuse(r, MOTE_ERR_CHECKSUM, MOTE_SLOT_HEADER, "crc", rd32(p + 60), hcrc);
    }
    version = rd32(p + 4);
    if (version != MOTE_SLOT_IMAGE_VERSION) {
        return refuse(r, version > MOTE_SLOT_IMAGE_VERSION ? MOTE_ERR_FORMAT_VERSION : MOTE_ERR_BAD_HEADER,
                      MOTE_SLOT_VERSION, "image", version, MOTE_SLOT_IMAGE_VERSION);
    }
    h->pte_version = rd32(p + 12); /* 0: an unstamped program (ExecuTorch's own); the stamp is compared after load */
    if (h->pte_version > (uint32_t)MOTE_PTE_FORMAT_VERSION) {
        return refuse(r, MOTE_ERR_FORMAT_VERSION, MOTE_SLOT_VERSION, "pte", h->pte_version, MOTE_PTE_FORMAT_VERSION);
    }
    h->program_bytes = rd32(p + 16);
    h->program_crc = rd32(p + 20);
    h->scratch_slots = rd32(p + 24);
    h->cases = rd32(p + 28);
    h->case_inputs = rd32(p + 32);
    h->expected_bytes = rd32(p + 36);
    h->trailer_bytes = rd32(p + 40);
    h->trailer_crc = rd32(p + 44);
    for (i = 48; i < 60u; i++) {
        if (p[i] != 0u) {
            return refuse(r, MOTE_ERR_BAD_HEADER, MOTE_SLOT_HEADER, "layout", 0u, p[i]);
        }
    }
    if (rd32(p + 8) != MOTE_SLOT_HEADER_BYTES) {
        return refuse(r, MOTE_ERR_BAD_HEADER, MOTE_SLOT_HEADER, "layout", MOTE_SLOT_HEADER_BYTES, rd32(p + 8));
    }
    /* every term below fits 64 bits: u32 * u32 and sums of a few of them */
    want = pad((uint64_t)h->scratch_slots * MOTE_SLOT_SCRATCH_ENTRY_BYTES, 8u) +
           pad((uint64_t)h->cases * h->case_inputs, 8u) + h->expected_bytes;
    if (want != h->trailer_bytes || (h->cases == 0u && (h->case_inputs != 0u || h->expected_bytes != 0u))) {
        return refuse(r, MOTE_ERR_BAD_HEADER, MOTE_SLOT_HEADER, "layout", want, h->trailer_bytes);
    }
    h->trailer_pos = MOTE_SLOT_HEADER_BYTES + pad(h->program_bytes, MOTE_PROGRAM_ALIGN);
    if (h->trailer_pos + h->trailer_bytes > (uint64_t)size) {
        return refuse(r, MOTE_ERR_TRUNCATED, MOTE_SLOT_HEADER, "size", h->trailer_pos + h->trailer_bytes, size);
    }
    hcrc = mote_program_crc32(p + MOTE_SLOT_HEADER_BYTES, h->program_bytes);
    if (hcrc != h->program_crc) {
        return refuse(r, MOTE_ERR_CHECKSUM, MOTE_SLOT_CRC, "program", h->program_crc, hcrc);
    }
    hcrc = mote_program_crc32(p + h->trailer_pos, h->trailer_bytes);
    if (hcrc != h->trailer_crc) {
        return refuse(r, MOTE_ERR_CHECKSUM, MOTE_SLOT_CRC, "trailer", h->trailer_crc, hcrc);
    }
    return MOTE_OK;
}

/* Does tensor `t` match the application's `want`? Records the program's side in r. */
static bool io_match(const mote_tensor_t *t, const mote_slot_io_t *want, mote_slot_report_t *r)
{
    uint32_t d;
    bool same = t->dtype == want->dtype && t->dim == want->dim;

    r->got_dtype = t->dtype;
    r->got_dim = t->dim <= MOTE_MAX_DIM ? t->dim : (uint8_t)MOTE_MAX_DIM;
    for (d = 0; d < r->got_dim; d++) {
        r->got_sizes[d] = t->sizes[d];
        same = same && t->sizes[d] == want->sizes[d];
    }
    r->want = want;
    return same;
}

/* Inputs and outputs of the initialised method `m` against the application's. */
static mote_err_t slot_io(const mote_slot_memory_t *mem, const mote_method_t *m, mote_slot_report_t *r,
                          uint64_t *input_bytes, uint64_t *expected_case)
{
    const mote_tensor_t *t;
    uint32_t i, n;

    n = mote_method_num_inputs(m);
    if (n != mem->num_inputs) {
        return refuse(r, MOTE_ERR_INPUT_INDEX, MOTE_SLOT_INPUTS, NULL, n, mem->num_inputs);
    }
    *input_bytes = 0;
    for (i = 0; i < n; i++) {
        mote_err_t err = mote_method_input_tensor(m, i, &t);
        r->index = i;
        if (err != MOTE_OK || !io_match(t, &mem->inputs[i], r)) {
            return refuse(r, err != MOTE_OK ? err : t->dtype != mem->inputs[i].dtype ? MOTE_ERR_INPUT_DTYPE
                                                                                         : MOTE_ERR_INPUT_SHAPE,
                          MOTE_SLOT_INPUT, NULL, 0u, 0u);
        }
        *input_bytes += t->nbytes;
    }
    n = mote_method_num_outputs(m);
    if (n != mem->num_outputs) {
        return refuse(r, MOTE_ERR_INPUT_INDEX, MOTE_SLOT_OUTPUTS, NULL, n, mem->num_outputs);
    }
    *expected_case = pad(4u * (uint64_t)n, 8u);
    for (i = 0; i < n; i++) {
        mote_err_t err = mote_method_get_output(m, i, &t);
        r->index = i;
        if (err != MOTE_OK || !io_match(t, &mem->outputs[i], r)) {
            return refuse(r, err != MOTE_OK ? err : t->dtype != mem->outputs[i].dtype ? MOTE_ERR_INPUT_DTYPE
                                                                                          : MOTE_ERR_INPUT_SHAPE,
                          MOTE_SLOT_OUTPUT, NULL, 0u, 0u);
        }
        *expected_case += pad(t->nbytes, 8u);
    }
    r->index = -1;
    r->want = NULL;
    return MOTE_OK;
}

/* The program in bank b: the verifying loader, its stamp against the header's, one method, and
 * every operator with a kernel in this firmware (the first missing one named). */
static mote_err_t slot_program(mote_slot_t *s, uint32_t b, const uint8_t *p, const slot_header_t *h,
                               mote_slot_report_t *r)
{
    mote_err_t err;
    int32_t missing;
    uint32_t methods;

    err = mote_program_load(&s->prog[b], p + MOTE_SLOT_HEADER_BYTES, h->program_bytes);
    if (err != MOTE_OK) {
        return refuse(r, err, MOTE_SLOT_PROGRAM, NULL, 0u, 0u);
    }
    if (mote_program_format_version(&s->prog[b]) != h->pte_version) {
        return refuse(r, MOTE_ERR_BAD_HEADER, MOTE_SLOT_VERSION, "stamp", h->pte_version,
                      mote_program_format_version(&s->prog[b]));
    }
    methods = mote_program_method_count(&s->prog[b]);
    if (methods != 1u) {
        return refuse(r, MOTE_ERR_UNSUPPORTED, MOTE_SLOT_METHODS, NULL, methods, 1u);
    }
    err = mote_method_missing_operator(&s->prog[b], 0, &missing);
    if (err != MOTE_OK) {
        return refuse(r, err, MOTE_SLOT_PROGRAM, NULL, 0u, 0u);
    }
    if (missing >= 0) {
        err = mote_program_operator_name(&s->prog[b], 0, (uint32_t)missing, &r->op_name, &r->op_overload);
        if (err != MOTE_OK) {
            return refuse(r, err, MOTE_SLOT_PROGRAM, NULL, 0u, 0u);
        }
        r->index = missing;
        return refuse(r, MOTE_ERR_OP_NOT_FOUND, MOTE_SLOT_OPERATOR, NULL, 0u, 0u);
    }
    return MOTE_OK;
}

/* The plan of bank b's program within the memory the firmware reserved; on success `mem` is
 * that memory (the shared activation arena, bank b's state and mutable buffers). */
static mote_err_t slot_memory(const mote_slot_t *s, uint32_t b, mote_memory_t *mem, mote_slot_report_t *r)
{
    const uint32_t reserved = s->mem.mutable_arena[b].size > 0u ? 2u : 1u;
    mote_method_requirements_t req;
    mote_err_t err;

    err = mote_method_memory_requirements(&s->prog[b], 0, &req);
    if (err != MOTE_OK) {
        return refuse(r, err, MOTE_SLOT_PROGRAM, NULL, 0u, 0u);
    }
    if (req.num_arenas > reserved) {
        return refuse(r, MOTE_ERR_UNSUPPORTED, MOTE_SLOT_ARENAS, NULL, req.num_arenas, reserved);
    }
    if (req.num_arenas > 0u && req.arena_size[0] > s->mem.arena.size) {
        return refuse(r, MOTE_ERR_MEMORY_TOO_SMALL, MOTE_SLOT_ARENA, NULL, req.arena_size[0], s->mem.arena.size);
    }
    if (req.num_arenas > 1u && req.arena_size[1] > s->mem.mutable_arena[b].size) {
        return refuse(r, MOTE_ERR_MEMORY_TOO_SMALL, MOTE_SLOT_MUTABLE, NULL, req.arena_size[1],
                      s->mem.mutable_arena[b].size);
    }
    if (req.state_size > s->mem.state[b].size) {
        return refuse(r, MOTE_ERR_MEMORY_TOO_SMALL, MOTE_SLOT_STATE, NULL, req.state_size, s->mem.state[b].size);
    }
    *mem = (mote_memory_t){0};
    mem->state = s->mem.state[b];
    mem->num_arenas = req.num_arenas;
    if (req.num_arenas > 0u) {
        mem->arenas[0] = s->mem.arena;
    }
    if (req.num_arenas > 1u) {
        mem->arenas[1] = s->mem.mutable_arena[b];
    }
    mem->scratch = s->mem.scratch;
    return MOTE_OK;
}

/* The initialised method's inputs/outputs against the application's, and the image's
 * self-test table against the method's input and output bytes. */
static mote_err_t slot_interface(const mote_slot_t *s, uint32_t b, const slot_header_t *h, mote_slot_report_t *r)
{
    uint64_t input_bytes, expected_case;
    mote_err_t err;

    err = slot_io(&s->mem, &s->method[b], r, &input_bytes, &expected_case);
    if (err == MOTE_OK && h->cases > 0u && input_bytes != h->case_inputs) {
        err = refuse(r, MOTE_ERR_BAD_SEGMENT, MOTE_SLOT_SELFTEST, "inputs", h->case_inputs, input_bytes);
    }
    if (err == MOTE_OK && (uint64_t)h->cases * expected_case != h->expected_bytes) {
        err = refuse(r, MOTE_ERR_BAD_SEGMENT, MOTE_SLOT_SELFTEST, "expected", h->expected_bytes,
                     (uint64_t)h->cases * expected_case);
    }
    return err;
}

mote_err_t mote_slot_load(mote_slot_t *s, const void *image, size_t region_bytes, mote_slot_report_t *report)
{
    mote_slot_report_t scratch_report;
    mote_slot_report_t *r = report != NULL ? report : &scratch_report;
    const uint8_t *p = (const uint8_t *)image;
    mote_memory_t mem;
    slot_header_t h;
    mote_err_t err;
    uint32_t b, skip;

    *r = (mote_slot_report_t){0};
    r->index = -1;
    if (s == NULL || s->magic != SLOT_OBJECT_MAGIC) {
        return refuse(r, MOTE_ERR_NOT_INITIALIZED, MOTE_SLOT_HEADER, "slot", 0u, 0u);
    }
    if (p == NULL) {
        return refuse(r, MOTE_ERR_INVALID_ARGUMENT, MOTE_SLOT_HEADER, "size", MOTE_SLOT_HEADER_BYTES, 0u);
    }
    if (!aligned(p, MOTE_PROGRAM_ALIGN)) {
        return refuse(r, MOTE_ERR_MEMORY_ALIGNMENT, MOTE_SLOT_HEADER, "alignment", MOTE_PROGRAM_ALIGN,
                      (uintptr_t)p & (MOTE_PROGRAM_ALIGN - 1u));
    }
    MOTE_TRY(slot_header(p, region_bytes, &h, r));

    /* Everything from here on happens in bank b, which is not the active model's. */
    b = s->active == 0 ? 1u : 0u;
    mote_method_destroy(&s->method[b]);
    s->prog[b].magic = 0;
    MOTE_TRY(slot_program(s, b, p, &h, r));
    MOTE_TRY(slot_memory(s, b, &mem, r));
    mem.scratch_slots = (const mote_scratch_slot_t *)(const void *)(p + h.trailer_pos);
    mem.num_scratch_slots = h.scratch_slots;
    err = mote_method_init(&s->method[b], &s->prog[b], 0, &mem);
    if (err != MOTE_OK) {
        (void)refuse(r, err, MOTE_SLOT_INIT, NULL, 0u, 0u);
        r->index = mote_method_failed_instruction(&s->method[b]);
        return err;
    }
    err = slot_interface(s, b, &h, r);
    if (err != MOTE_OK) {
        mote_method_destroy(&s->method[b]);
        return err;
    }
    skip = (uint32_t)pad((uint64_t)h.scratch_slots * MOTE_SLOT_SCRATCH_ENTRY_BYTES, 8u);
    s->selftest_cases[b] = h.cases;
    s->selftest_inputs[b] = p + h.trailer_pos + skip;
    s->selftest_expected[b] = p + h.trailer_pos + skip + pad((uint64_t)h.cases * h.case_inputs, 8u);
    /* every check passed: the image becomes the active model; the old bank is the spare now */
    s->active = (int32_t)b;
    r->need = h.program_bytes;
    r->have = h.trailer_pos + h.trailer_bytes;
    return MOTE_OK;
}

const mote_program_t *mote_slot_program(const mote_slot_t *s)
{
    if (s == NULL || s->magic != SLOT_OBJECT_MAGIC || s->active < 0) {
        return NULL;
    }
    return &s->prog[s->active];
}

mote_method_t *mote_slot_method(mote_slot_t *s)
{
    if (s == NULL || s->magic != SLOT_OBJECT_MAGIC || s->active < 0) {
        return NULL;
    }
    return &s->method[s->active];
}

mote_err_t mote_slot_selftest(const mote_slot_t *s, uint32_t *cases, const uint8_t **inputs, const uint8_t **expected)
{
    MOTE_CHECK(cases != NULL && inputs != NULL && expected != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(s != NULL && s->magic == SLOT_OBJECT_MAGIC && s->active >= 0, MOTE_ERR_NOT_INITIALIZED);
    *cases = s->selftest_cases[s->active];
    *inputs = s->selftest_inputs[s->active];
    *expected = s->selftest_expected[s->active];
    return MOTE_OK;
}

/* ------------------------------------------------------------------ the report line */

typedef struct line {
    char *buf;
    size_t size, len;
} line_t;

static void put_s(line_t *l, const char *s)
{
    uint32_t k;
    /* strings from the image are NUL-terminated inside it (verified by the loader); bounded
     * anyway, and anything but printable ASCII shows as '?' (a line, never control bytes) */
    for (k = 0; s != NULL && s[k] != '\0' && k < 200u; k++) {
        if (l->len + 1u < l->size) {
            l->buf[l->len++] = s[k] >= 0x20 && s[k] <= 0x7e ? s[k] : '?';
        }
    }
}

static void put_u(line_t *l, uint64_t v)
{
    char d[21];
    uint32_t n = 0;
    do {
        d[n++] = (char)('0' + (v % 10u));
        v /= 10u;
    } while (v != 0u);
    while (n > 0u) {
        char c[2] = {d[--n], '\0'};
        put_s(l, c);
    }
}

static void put_i(line_t *l, int64_t v)
{
    if (v < 0) {
        put_s(l, "-");
        put_u(l, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u(l, (uint64_t)v);
    }
}

static void put_x(line_t *l, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    int32_t k;
    put_s(l, "0x");
    for (k = 28; k >= 0; k -= 4) {
        char c[2] = {hex[(v >> k) & 15u], '\0'};
        put_s(l, c);
    }
}

static void put_tensor(line_t *l, uint8_t dtype, uint8_t dim, const int32_t *sizes)
{
    uint32_t d;
    put_s(l, "dtype=");
    put_u(l, dtype);
    put_s(l, " sizes=");
    for (d = 0; d < dim; d++) {
        if (d > 0u) {
            put_s(l, "x");
        }
        put_i(l, sizes[d]);
    }
    if (dim == 0u) {
        put_s(l, "scalar");
    }
}

static void put_need(line_t *l, const char *a, uint64_t need, const char *b, uint64_t have)
{
    put_s(l, a);
    put_u(l, need);
    put_s(l, b);
    put_u(l, have);
}

size_t mote_slot_report_line(const mote_slot_report_t *r, char *buf, size_t size)
{
    static const char *const names[] = {"ok", "empty", "header", "version", "crc", "program", "methods",
                                        "operator", "arenas", "arena", "mutable", "state", "init", "inputs",
                                        "outputs", "input", "output", "selftest"};
    line_t l = {buf, size, 0};

    if (buf == NULL || size == 0u) {
        return 0u;
    }
    if (r == NULL || r->reason == MOTE_SLOT_OK || r->reason >= sizeof(names) / sizeof(names[0])) {
        put_s(&l, r == NULL || r->reason == MOTE_SLOT_OK ? "MOTE SLOT ok" : "MOTE ERROR slot unknown");
        buf[l.len] = '\0';
        return l.len;
    }
    put_s(&l, "MOTE ERROR slot ");
    put_s(&l, names[r->reason]);
    switch ((mote_slot_reason_t)r->reason) {
    case MOTE_SLOT_HEADER:
        put_s(&l, " ");
        put_s(&l, r->detail);
        if (r->detail != NULL && (r->detail[0] == 'm' || r->detail[0] == 'c')) {
            /* "magic" ("MOTS" reads 0x53544f4d little-endian), "crc": words, in hex */
            put_s(&l, " need=");
            put_x(&l, r->need);
            put_s(&l, " have=");
            put_x(&l, r->have);
        } else if (r->need != 0u || r->have != 0u) {
            put_need(&l, " need=", r->need, " have=", r->have);
        }
        break;
    case MOTE_SLOT_VERSION:
        put_s(&l, " ");
        put_s(&l, r->detail);
        if (r->detail != NULL && r->detail[0] == 's') { /* "stamp": the header's against the program's own */
            put_need(&l, " header=", r->need, " program=", r->have);
        } else {
            put_need(&l, "=", r->need, " firmware=", r->have);
        }
        break;
    case MOTE_SLOT_CRC:
        put_s(&l, " ");
        put_s(&l, r->detail);
        put_s(&l, " header=");
        put_x(&l, r->need);
        put_s(&l, " computed=");
        put_x(&l, r->have);
        break;
    case MOTE_SLOT_PROGRAM:
        put_s(&l, " ");
        put_s(&l, mote_err_name(r->err));
        break;
    case MOTE_SLOT_METHODS:
    case MOTE_SLOT_ARENAS:
        put_need(&l, " ", r->need, r->reason == MOTE_SLOT_METHODS ? " firmware=" : " reserved=", r->have);
        break;
    case MOTE_SLOT_OPERATOR:
        put_s(&l, " ");
        put_s(&l, r->op_name);
        if (r->op_overload != NULL && r->op_overload[0] != '\0') {
            put_s(&l, ".");
            put_s(&l, r->op_overload);
        }
        put_s(&l, " missing");
        break;
    case MOTE_SLOT_ARENA:
    case MOTE_SLOT_MUTABLE:
    case MOTE_SLOT_STATE:
        put_need(&l, " need=", r->need, " reserved=", r->have);
        break;
    case MOTE_SLOT_INIT:
        put_s(&l, " ");
        put_s(&l, mote_err_name(r->err));
        put_s(&l, " instruction=");
        put_i(&l, r->index);
        break;
    case MOTE_SLOT_INPUTS:
    case MOTE_SLOT_OUTPUTS:
        put_need(&l, " ", r->need, " application=", r->have);
        break;
    case MOTE_SLOT_INPUT:
    case MOTE_SLOT_OUTPUT:
        put_s(&l, " ");
        put_i(&l, r->index);
        put_s(&l, " ");
        put_tensor(&l, r->got_dtype, r->got_dim, r->got_sizes);
        if (r->want != NULL) {
            put_s(&l, " application ");
            put_tensor(&l, r->want->dtype, r->want->dim, r->want->sizes);
        }
        break;
    case MOTE_SLOT_SELFTEST:
        put_s(&l, " ");
        put_s(&l, r->detail);
        put_need(&l, " bytes=", r->need, " method=", r->have);
        break;
    case MOTE_SLOT_OK:
    case MOTE_SLOT_EMPTY:
    default:
        break;
    }
    buf[l.len] = '\0';
    return l.len;
}
