/* G-PR on the GPU against the CPU, in plain C (gcut-check runs these on the
 * device machine; without a usable GPU every instance counts as skipped). */
#ifndef GCUT_TESTS_CHECK_MATCH_GPU_H
#define GCUT_TESTS_CHECK_MATCH_GPU_H

#include <stdint.h>

#include "check_common.h"

/* On `count` instances: the generated graphs of check_match_instance()
 * against the independent reference, and every fifth instance a larger one
 * (uniform or power-law random, a 2-D or 3-D mesh pattern with entries
 * removed, up to some 10^5 edges) against "pr" on the CPU: the same size,
 * the proof checked here and by gcut_match_verify(), the GPU named. */
void check_match_gpu_vs_cpu(check_report *r, int count, uint64_t seed);

/* G-PR on every shared matrix (skipped where the data or a GPU is absent). */
void check_match_gpu_matrices(check_report *r, int count, uint64_t seed);

#endif
