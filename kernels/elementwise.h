/*
 * kernels/elementwise.h - dtype-generic elementwise engine of the "binary"
 * family (comparisons, logical, bitwise, shifts, pow, atan2, fmod,
 * remainder, rounding divisions, maximum/minimum, rsub, clamp.Tensor, where,
 * masked_fill). Internal.
 *
 * Operands are tensors (contiguous, numpy broadcasting to out's exact shape)
 * or Scalars (Int / Double / Bool values, taken as 0-dim "wrapped numbers").
 * The result dtype follows torch's type promotion (c10 result_type: dim
 * tensors > 0-dim tensors > wrapped numbers within the highest category,
 * bool < integer < floating; a Double scalar counts as float32, an Int as
 * int64). Each input is converted to the op's compute domain - float (fp32),
 * int64 (every integer dtype; results are stored back wrapping to the
 * result's width) or bool (0/1 bytes) - in chunks on the stack; a row
 * function of the op computes one contiguous run. Supported input dtypes:
 * bool, uint8, int8, int16, int32, int64, float32 (float64 only as a 0-dim
 * lifted constant next to a float32 tensor).
 */
#ifndef MOTE_ELEMENTWISE_H
#define MOTE_ELEMENTWISE_H

#include "kutil.h"

#define MOTE_EW_MAX_IN 3

/** Parameters handed to a row function (shared by every op of the family). */
typedef struct mote_ew_param {
    double alpha;      /* rsub's alpha (float domain) */
    int64_t ialpha;    /* rsub's alpha (int domain) */
    uint32_t bits;     /* width of the result dtype in bits (shifts) */
    uint32_t is_unsigned; /* result dtype is uint8 (shifts) */
    uint32_t flags;    /* op specific (clamp: which bounds are present) */
    int mode;          /* op specific (pow exponent class, ...) */
    double scalar;     /* op specific scalar (masked_fill value, pow exponent) */
    int64_t iscalar;
    mote_err_t err;    /* set by a row function (integer division by zero) */
} mote_ew_param_t;

/**
 * Row function: out[i] = f(in[0][i*st[0]], in[1][i*st[1]], ...) for i < n;
 * st[k] is 0 (broadcast) or 1. Inputs are in the compute domain's type
 * (float, int64_t or uint8_t 0/1), out in the row's result type.
 */
typedef void (*mote_ew_row_fn)(void *out, const void *const *in, const size_t *st, size_t n,
                               mote_ew_param_t *p);

/** How an op's result and compute domain follow from the promoted dtype R. */
typedef enum mote_ew_kind {
    MOTE_EW_ARITH,   /* out dtype R; domain of R (float32 / int / bool) */
    MOTE_EW_CMP,     /* out bool; domain of R (bool computes as int64) */
    MOTE_EW_LOGICAL, /* out bool; every input read as bool (nonzero) */
    MOTE_EW_BITWISE, /* R integer or bool, out R; int64 domain */
    MOTE_EW_SHIFT,   /* R integer (not bool), out R; int64 domain, p->bits = width of R */
    MOTE_EW_FLOAT    /* float32 out: R float32, or an integer/bool R computed as float32 */
} mote_ew_kind_t;

/** An op: its kind and row functions per domain (NULL: dtype not implemented). */
typedef struct mote_ew_op {
    mote_ew_kind_t kind;
    mote_ew_row_fn f32; /* float inputs, out float (CMP/LOGICAL: out uint8 0/1) */
    mote_ew_row_fn i64; /* int64 inputs, out int64 (CMP: out uint8 0/1) */
    mote_ew_row_fn b8;  /* uint8 0/1 inputs, out uint8 (LOGICAL, ARITH on bool) */
} mote_ew_op_t;

/** Operand forms of a binary overload: which of args[0], args[1] are Scalars. */
#define MOTE_EW_TT 0u /* Tensor, Tensor */
#define MOTE_EW_TS 1u /* Tensor, Scalar */
#define MOTE_EW_ST 2u /* Scalar, Tensor */

/**
 * A binary op on out-variant arguments args[0] (self), args[1] (other),
 * out = args[nargs_expected - 1]; the arguments between are the caller's
 * (already parsed into p). Checks count/tags (ARGS), dtypes (DTYPE: result
 * dtype per `op->kind`, out's dtype, a NULL row function), shapes (SHAPE:
 * out is exactly the broadcast shape), then runs. Returns p->err if a row
 * function set it.
 */
mote_err_t mote_ew_binary(mote_value_t *const *args, uint32_t nargs, uint32_t nargs_expected,
                          unsigned form, const mote_ew_op_t *op, mote_ew_param_t *p);

/** Operand description for mote_ew_result_type. */
typedef struct mote_ew_operand {
    uint8_t dtype;
    uint8_t kind; /* 0 = tensor with dim > 0, 1 = 0-dim tensor, 2 = wrapped Scalar */
} mote_ew_operand_t;

/** Category of a supported input dtype: 0 bool, 1 integer, 2 float; -1 unsupported. */
int mote_ew_category(uint8_t dtype);

/** torch's result_type over n operands (MOTE_EW_UNDEF if none / unsupported). */
uint8_t mote_ew_result_type(const mote_ew_operand_t *ops, uint32_t n);

#define MOTE_EW_UNDEF 255u

/** Operand kind of a tensor (0-dim or not). */
uint8_t mote_ew_tensor_kind(const mote_tensor_t *t);

/**
 * A Scalar argument as a 0-dim tensor `t` over `buf` (int64 for Int, float64
 * for Double, bool for Bool). ARGS if v is not a Scalar.
 */
mote_err_t mote_ew_scalar_tensor(const mote_value_t *v, mote_tensor_t *t, uint8_t *buf);

/**
 * The core: numpy-broadcast `in[0..nin-1]` to out's exact shape (SHAPE
 * otherwise), convert input k from its dtype to ct[k] (float32, int64 or
 * bool), call fn on contiguous runs writing dtype rt, and convert to out's
 * dtype (rt int64 -> any integer or bool out; otherwise out must be rt).
 * Exact aliasing of out with a same-dtype full-shape input is safe.
 */
mote_err_t mote_ew_map(mote_tensor_t *const *in, const uint8_t *ct, uint32_t nin,
                       mote_tensor_t *out, uint8_t rt, mote_ew_row_fn fn, mote_ew_param_t *p);

/** Compute domain of a result dtype: FLOAT32, INT64 (integers) or BOOL. */
uint8_t mote_ew_domain(uint8_t dtype);

/*
 * Row-function bodies. MOTE_EW_LOOP2(TI, TO, EXPR): out (TO) = EXPR of x, y
 * (TI) read from in[0], in[1]; contiguous and broadcast cases get their own
 * loops so the compiler vectorises them.
 */
#define MOTE_EW_LOOP2(TI, TO, EXPR)                                              \
    do {                                                                         \
        TO *o_ = (TO *)out;                                                      \
        const TI *a_ = (const TI *)in[0];                                        \
        const TI *b_ = (const TI *)in[1];                                        \
        size_t i_;                                                               \
        (void)p;                                                                 \
        if (st[0] && st[1]) {                                                    \
            for (i_ = 0; i_ < n; i_++) {                                         \
                const TI x = a_[i_], y = b_[i_];                                 \
                o_[i_] = (TO)(EXPR);                                             \
            }                                                                    \
        } else if (st[0]) {                                                      \
            const TI y = b_[0];                                                  \
            for (i_ = 0; i_ < n; i_++) {                                         \
                const TI x = a_[i_];                                             \
                o_[i_] = (TO)(EXPR);                                             \
            }                                                                    \
        } else if (st[1]) {                                                      \
            const TI x = a_[0];                                                  \
            for (i_ = 0; i_ < n; i_++) {                                         \
                const TI y = b_[i_];                                             \
                o_[i_] = (TO)(EXPR);                                             \
            }                                                                    \
        } else {                                                                 \
            const TI x = a_[0], y = b_[0];                                       \
            const TO v_ = (TO)(EXPR);                                            \
            for (i_ = 0; i_ < n; i_++) {                                         \
                o_[i_] = v_;                                                     \
            }                                                                    \
        }                                                                        \
    } while (0)

/** Define a static row function NAME with body MOTE_EW_LOOP2(TI, TO, EXPR). */
#define MOTE_EW_ROW2(NAME, TI, TO, EXPR)                                         \
    static void NAME(void *out, const void *const *in, const size_t *st, size_t n, \
                     mote_ew_param_t *p)                                         \
    {                                                                            \
        MOTE_EW_LOOP2(TI, TO, EXPR);                                             \
    }

/*
 * A comparison kernel: float and int64 rows writing bool; NAME is the
 * kernel symbol, FORM MOTE_EW_TT or MOTE_EW_TS, OP the C operator.
 */
#define MOTE_EW_CMP_KERNEL(NAME, FORM, OP)                                       \
    MOTE_EW_ROW2(NAME##_f32, float, uint8_t, x OP y)                             \
    MOTE_EW_ROW2(NAME##_i64, int64_t, uint8_t, x OP y)                           \
    MOTE_K_DECLARE(NAME);                                                        \
    mote_err_t NAME(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs) \
    {                                                                            \
        static const mote_ew_op_t op_ = {MOTE_EW_CMP, NAME##_f32, NAME##_i64, NULL}; \
        mote_ew_param_t p_ = {0};                                                \
        (void)ctx;                                                               \
        return mote_ew_binary(args, nargs, 3, FORM, &op_, &p_);                  \
    }

/*
 * Ops shared by several overloads (row functions in elementwise.c):
 * kind ARITH unless noted. Integer division/remainder by zero sets
 * p->err = MOTE_ERR_KERNEL_ARGS (torch raises ZeroDivisionError).
 */
extern const mote_ew_op_t mote_ew_op_fmod;       /* C fmod: sign of the dividend */
extern const mote_ew_op_t mote_ew_op_remainder;  /* Python %: sign of the divisor */
extern const mote_ew_op_t mote_ew_op_div_floor;  /* Python //, floor of the quotient */
extern const mote_ew_op_t mote_ew_op_div_trunc;  /* quotient rounded toward zero */
extern const mote_ew_op_t mote_ew_op_div_true;   /* kind FLOAT: x / y */
extern const mote_ew_op_t mote_ew_op_pow;        /* powf; integer power with wrapping */
/* as pow; fp32 exponents 2, 3, 0.5, -0.5, -1, -2 as x*x, x*x*x, sqrtf, ... like torch */
extern const mote_ew_op_t mote_ew_op_pow_scalar;
extern const mote_ew_op_t mote_ew_op_bitwise_and; /* kind BITWISE */
extern const mote_ew_op_t mote_ew_op_bitwise_or;
extern const mote_ew_op_t mote_ew_op_bitwise_xor;
extern const mote_ew_op_t mote_ew_op_lshift;     /* kind SHIFT: 0 outside [0, bits) */
extern const mote_ew_op_t mote_ew_op_rshift;     /* kind SHIFT: sign fill outside [0, width-1) */

/**
 * rounding_mode argument of div.out_mode / div.Scalar_mode_out: None -> 0,
 * "trunc" -> 1, "floor" -> 2; anything else ARGS.
 */
mote_err_t mote_ew_rounding_mode(const mote_value_t *v, int *mode);

/** The op of a rounding mode (0 true division, 1 trunc, 2 floor). */
const mote_ew_op_t *mote_ew_div_op(int mode);

/* Integer helpers with torch's semantics (no undefined behaviour). */

/** Truncating a / b; b == -1 wraps (INT64_MIN / -1 = INT64_MIN). b != 0. */
static inline int64_t mote_ew_idiv(int64_t a, int64_t b)
{
    return b == -1 ? (int64_t)(0u - (uint64_t)a) : a / b;
}

/** C remainder a % b (sign of a); b == -1 gives 0. b != 0. */
static inline int64_t mote_ew_irem(int64_t a, int64_t b)
{
    return b == -1 ? 0 : a % b;
}

#endif /* MOTE_ELEMENTWISE_H */
