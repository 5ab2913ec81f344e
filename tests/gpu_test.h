/* For the Criterion files of the GPU solvers: whether a GPU is usable, and
 * running one of the gcut-check GPU checks as a test (skipped without a
 * GPU, failed on the first wrong instance). */
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

#endif
