/* Shared by the plain-C checks: a result tally and a failure reporter, so
 * that a check runs the same under Criterion and under gcut-check. */
#ifndef GCUT_TESTS_CHECK_COMMON_H
#define GCUT_TESTS_CHECK_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "gcut.h"

typedef struct check_report {
    int passed, failed, skipped;
    char first_failure[512]; /* the first failure's message */
} check_report;

/* Record a failure (printf-style message); keeps the first one. */
void check_fail(check_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A quiet context for `device`, or NULL. */
gcut_context *check_context(gcut_device device);

/* One step of a xorshift64 stream (the state must not be 0). */
uint64_t check_mix(uint64_t *state);

/* One instance of a GPU-against-CPU check. */
typedef void (*check_gpu_instance)(check_report *r, gcut_context *cpu, gcut_context *gpu,
                                   const char *algo, uint64_t seed, int index);

/* Run `one` on instances 0..count-1 with a CPU and a GPU context; where no
 * GPU is usable, count them as skipped instead. */
void check_gpu_run(check_report *r, check_gpu_instance one, const char *algo, int count,
                   uint64_t seed);

#endif
