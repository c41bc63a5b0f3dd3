/*
 * Mote digits sample for Zephyr: initialise the model the Mote module
 * compiled at build time (CONFIG_MOTE_MODEL), then run its embedded self-test
 * cases (CONFIG_MOTE_SELFTEST) or, without them, one inference on zeroed
 * inputs. Every line follows Mote's UART protocol (aot/deploy/protocol.py),
 * so `aot monitor` and `aot test --target serial:PORT` read this board too:
 *
 *   MOTE BOOT zephyr:<board>
 *   MOTE MODEL pte=<bytes> state=<bytes> arena=<bytes>
 *   MOTE SELFTEST CASE ...      (one per case and output)
 *   MOTE SELFTEST PASS n=<cases> max_abs_err=<e>     (or MOTE SELFTEST FAIL ...)
 *   MOTE ERROR <stage> <code>   (on an error: init, selftest, input, run)
 */
#include <stdint.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "mote/model.h"
#include "mote/port.h"
#include "mote_model.h"

#ifndef MOTE_MODEL_SELFTEST_CASES
#if MOTE_MODEL_NUM_INPUTS != 1
#error "without CONFIG_MOTE_SELFTEST this sample feeds one input: extend run_once() for your model"
#endif
static uint8_t input0[MOTE_MODEL_INPUT0_BYTES] __attribute__((aligned(8)));

/* One inference on zeroed inputs; prints its system-timer cycles. */
static void run_once(void)
{
    mote_err_t err = mote_model_set_input(0, input0, sizeof input0);

    if (err != MOTE_OK) {
        printk("MOTE ERROR input %d\n", (int)err);
        return;
    }
    uint32_t t0 = mote_port_ticks();
    err = mote_model_run();
    uint32_t t1 = mote_port_ticks();
    if (err != MOTE_OK) {
        printk("MOTE ERROR run %d\n", (int)err);
        return;
    }
    printk("MOTE DONE 1 cycles=%u\n", (unsigned)(t1 - t0));
}
#endif

int main(void)
{
    mote_err_t err;

    printk("MOTE BOOT zephyr:%s\n", CONFIG_BOARD);
    printk("MOTE MODEL pte=%u state=%u arena=%u\n", (unsigned)MOTE_MODEL_PTE_BYTES,
           (unsigned)MOTE_MODEL_STATE_BYTES, (unsigned)MOTE_MODEL_ARENA0_BYTES);
    err = mote_model_init();
    if (err != MOTE_OK) {
        printk("MOTE ERROR init %d\n", (int)err);
        return 0;
    }
#ifdef MOTE_MODEL_SELFTEST_CASES
    /* prints the CASE lines and the PASS/FAIL verdict itself */
    err = mote_model_selftest();
    if (err != MOTE_OK) {
        printk("MOTE ERROR selftest %d\n", (int)err);
    }
#else
    run_once();
#endif
    return 0;
}
