/* The GPU grid solve from host arrays (src/gpu/grid_gpu.cu): residuals left
 * on the device until asked for, the overflow check on the device, the
 * device started beside the caller. Plain C (gcut-check runs these on the
 * device machine; without a usable GPU every instance counts as skipped). */
#ifndef GCUT_TESTS_CHECK_GRID_E2E_H
#define GCUT_TESTS_CHECK_GRID_E2E_H

#include <stdint.h>

#include "check_common.h"

/* On `count` pairs of random grids (check_grid_random()) in one GPU
 * context: A solved, then B (which takes the device buffers, so A's
 * residuals must be saved to A first), then both verified with flows equal
 * to BK's; A solved on the GPU again and destroyed, and a new grid of the
 * same context solved with BK verifies (no GPU residuals are fetched for
 * it); a context started with gcut_context_warm_device() solves like any
 * other, and one warmed and never used is destroyed cleanly. */
void check_grid_gpu_residuals_on_demand(check_report *r, int count, uint64_t seed);

/* On `count` small grids whose capacities at one pixel add up past
 * INT32_MAX: the GPU solve refuses them with GCUT_E_OVERFLOW and the same
 * message (naming the pixel and the total) as BK's host check. */
void check_grid_gpu_overflow(check_report *r, int count, uint64_t seed);

/* On any machine: contexts for each device, started with
 * gcut_context_warm_device() (twice: the second is a no-op), solve
 * `count` random grids with the default solver exactly as contexts not
 * started so (the same status, and where they solve, BK's flow and a
 * verified proof); NULL is refused; a context started and never used is
 * destroyed cleanly (the start-up thread joined); gcut_context_device_times()
 * says 0 for contexts not started beside, and a start that took time once a
 * GPU solve waited for it. */
void check_grid_warm_device(check_report *r, int count, uint64_t seed);

#endif
