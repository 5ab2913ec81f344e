/* GPU grid solvers against the CPU, in plain C (gcut-check runs these on the
 * device machine; without a usable GPU every instance counts as skipped). */
#ifndef GCUT_TESTS_CHECK_GRID_GPU_H
#define GCUT_TESTS_CHECK_GRID_GPU_H

#include <stdint.h>

#include "check_common.h"

/* On `count` grids of the stream `seed` (check_grid_random(): every regime,
 * 1x1 to 64x64, 4- and 8-connected) plus, every tenth instance, a larger
 * grid of up to 700x400 pixels whose width is rarely a multiple of the
 * tile: the GPU solver's flow equals the independent reference's (small
 * grids) and BK's, gcut_grid_verify() passes on the GPU's residuals and
 * labels, the labels' cut equals the flow and contains the reference's
 * residual source side, and the solve reports the GPU's name as device. */
void check_grid_gpu_tiled_vs_cpu(check_report *r, int count, uint64_t seed);
void check_grid_gpu_lockfree_vs_cpu(check_report *r, int count, uint64_t seed);
/* On `count` grids large enough for the tiled solver's size-dependent
 * parts (2 MP 4-connected, 0.5 MP 8-connected, alternating): the flow
 * equals BK's and the solution checks as above; over the check, each part
 * (relabels from the last heights, swept relabels, worklist push phases)
 * ran at least once. */
void check_grid_gpu_large_vs_cpu(check_report *r, int count, uint64_t seed);
/* As check_grid_gpu_tiled_vs_cpu() with the tiled solver's benchmark knobs
 * set per instance (the height cap at small margins, short push phases and
 * tile runs), and on every fourth instance a traced run whose record
 * accounts for the run (a cycle a relabel, the excess conserved). */
void check_grid_gpu_knobs_vs_cpu(check_report *r, int count, uint64_t seed);
/* Runs from the benchmarks' device copy of an uploaded grid, traced or
 * not, give the first solve's flow and verify. */
void check_grid_gpu_snapshot(check_report *r, int count, uint64_t seed);

#endif
