/* For the Criterion files of the GPU solvers: whether a GPU is usable,
 * running one of the gcut-check GPU checks as a test (skipped without a
 * GPU, failed on the first wrong instance), and a context for a device
 * choice whose notices are captured. */
#ifndef GCUT_TESTS_GPU_TEST_H
#define GCUT_TESTS_GPU_TEST_H

#include <criterion/criterion.h>
#include <string.h>

#include "check_common.h"
#include "gcut.h"

static inline int have_gpu(void)
{
    gcut_context *ctx = NULL;
    int count = 0;
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    gcut_device_count(ctx, &count);
    gcut_context_destroy(ctx);
    return gcut_cuda_built() && count > 0;
}

static inline void run_gpu_check(void (*check)(check_report *, int, uint64_t), int count,
                                 uint64_t seed)
{
    if (!have_gpu())
        cr_skip_test("no usable GPU");
    check_report r;
    memset(&r, 0, sizeof r);
    check(&r, count, seed);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, count);
}

typedef struct log_capture {
    char text[1024];
} log_capture;

static inline void capture_log(void *user, int level, const char *message)
{
    log_capture *c = user;
    (void)level;
    strncat(c->text, message, sizeof c->text - strlen(c->text) - 2);
    strcat(c->text, "\n");
}

/* A context for `device` whose notices (level 1) go to `log`. */
static inline gcut_context *logging_context(gcut_device device, log_capture *log)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = device;
    opt.verbosity = 1;
    opt.log = capture_log;
    opt.log_user = log;
    gcut_context *ctx = NULL;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_OK);
    return ctx;
}

#endif
