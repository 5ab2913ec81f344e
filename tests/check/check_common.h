/* Shared by the plain-C checks: a result tally and a failure reporter, so
 * that a check runs the same under Criterion and under gcut-check. */
#ifndef GCUT_TESTS_CHECK_COMMON_H
#define GCUT_TESTS_CHECK_COMMON_H

#include <stddef.h>

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

#endif
