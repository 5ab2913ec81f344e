/* Assignment checks: the cost-scaling solvers against an independent
 * Hungarian method (tests/check/check_assign.c) on generated instances, and
 * the GPU solver against the CPU on larger ones. */
#ifndef GCUT_TESTS_CHECK_ASSIGN_H
#define GCUT_TESTS_CHECK_ASSIGN_H

#include <stdint.h>

#include "check_common.h"

/* CPU CSA against the Hungarian reference: cost, feasibility, cardinality,
 * the proof (gcut_assign_verify) and the Hall violator named. */
void check_assign_csa_vs_hungarian(check_report *r, int count, uint64_t seed);

/* Shortest augmenting paths (ssp) against the Hungarian reference, as
 * csa is checked, and exact: the proof's gap is 0. */
void check_assign_ssp_vs_hungarian(check_report *r, int count, uint64_t seed);

/* CSA with its heuristics on (price updates, arc fixing safe and
 * aggressive), the smallest quick-minima cache, alpha 2 and 10: the same costs. */
void check_assign_csa_knobs(check_report *r, int count, uint64_t seed);

/* CSA on dense square matrices (the CPU's path on the caller's matrix,
 * with its knobs) and on the same matrices with each row's arcs reversed
 * (the CSR path) against the Hungarian reference. */
void check_assign_csa_dense(check_report *r, int count, uint64_t seed);

/* CSA on dense square matrices through each row's cheapest arcs (the
 * knob at 1, 2, 16, off and the default), on matrices made to defeat them,
 * against the Hungarian reference; every repair and fallback path taken. */
void check_assign_csa_candidates(check_report *r, int count, uint64_t seed);

/* GPU cost scaling against the Hungarian reference (skipped without a GPU). */
void check_assign_gpu_vs_hungarian(check_report *r, int count, uint64_t seed);

/* GPU against CPU on instances of a few hundred to a few thousand rows
 * (skipped without a GPU). */
void check_assign_gpu_vs_cpu(check_report *r, int count, uint64_t seed);

/* gpu-csa with its knobs (block size, price updates, alpha) against the
 * Hungarian reference on small instances. */
void check_assign_gpu_knobs(check_report *r, int count, uint64_t seed);

/* gpu-csa's dense requests through their candidate arcs (knob candidates: k = 1, 2, 3, 16
 * and -1) against the Hungarian reference, on matrices made to defeat the candidates; every
 * path (optimal on the candidates, repaired, the dense solve after them, the dense solve
 * from the start where the cheapest arcs cover few columns or hold no perfect assignment)
 * must come up (skipped without a GPU). */
void check_assign_gpu_candidates(check_report *r, int count, uint64_t seed);

/* gcut_assign_read on good and malformed files (statuses, PATH:LINE). */
void check_assign_read(check_report *r, int count, uint64_t seed);

#endif
