/* Checks of optical flow by assignment (check_flow.c). */
#ifndef GCUT_TESTS_CHECK_FLOW_H
#define GCUT_TESTS_CHECK_FLOW_H

#include "check_common.h"

/* Known motions (integer and sub-pixel shifts, small rotations, shifts
 * beyond one level's window) recovered within an EPE bound. */
void check_flow_synthetic(check_report *r, int count, uint64_t seed);
/* One pixel, one row, flat frames, extreme options: a finite flow; bad
 * arguments refused. */
void check_flow_degenerate(check_report *r, int count, uint64_t seed);
/* The flow's windowed assignment instances (census and SAD, ties, priors)
 * solved by gcut_assign_csr at the cost of an independent solver. */
void check_flow_assignment_exact(check_report *r, int count, uint64_t seed);
/* .flo round trips, and malformed files refused with a message. */
void check_flow_flo_files(check_report *r, int count, uint64_t seed);
/* EPE and AAE on a hand-computed case; the colour wheel's hues. */
void check_flow_measures(check_report *r, int count, uint64_t seed);
/* The GPU flow (skipped without a GPU): known motions recovered within the
 * CPU's bounds; each level's windowed assignment on the device at the CPU
 * solver's cost, its square problem's prices passing gcut_assign_verify;
 * RubberWhale's EPE within a margin of the CPU's. */
void check_flow_gpu_synthetic(check_report *r, int count, uint64_t seed);
void check_flow_gpu_assignment(check_report *r, int count, uint64_t seed);
void check_flow_gpu_rubberwhale(check_report *r, int count, uint64_t seed);

#endif
