/* The fork-join loop of core/parallel.c (a pool of workers kept across
 * loops), in plain C (run by gcut-check and the Criterion suite). */
#ifndef GCUT_TESTS_CHECK_PARALLEL_H
#define GCUT_TESTS_CHECK_PARALLEL_H

#include <stdint.h>

#include "check_common.h"

/* On `count` random loops (1 to 64 parts, 0 to 100000 items): every index
 * is visited exactly once, by the part whose contiguous range holds it;
 * the same with loops started from four threads at once and with a loop
 * run inside each range of another (both find the pool busy and start
 * threads of their own); and once per run, loops in a fork()ed child of a
 * process whose pool has workers. */
void check_parallel_for(check_report *r, int count, uint64_t seed);

#endif
