/* CPU cost scaling on a dense square request (src/cpu/assign_csa_dense.c).
 * Internal to libgcut. */
#ifndef GCUT_CPU_ASSIGN_CSA_DENSE_H
#define GCUT_CPU_ASSIGN_CSA_DENSE_H

#include "graph/assign_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The contract of gcut__assign_csa (start = 0) on p's matrix, whose scaled
 * costs are cost * sign * scale: res->row_col (n) and res->price (n column
 * prices, scaled), allocated by the caller; eps-optimal for eps = 1. The
 * knobs' alpha and cache apply; price updates and arc fixing are the CSR
 * solver's. Never GCUT_E_INFEASIBLE (every row has every column). */
gcut_status gcut__assign_csa_dense(gcut_context *ctx, const gcut__assign_dense *p,
                                   const gcut__assign_knobs *knobs, gcut__assign_result *res);

/* The same from a state in res (row_col, -1 for a free row, and the column
 * prices) that is eps-optimal on the matrix: phases from eps / alpha down
 * to 1, each row keeping its column while it stays within the phase's eps. */
gcut_status gcut__assign_csa_dense_warm(gcut_context *ctx, const gcut__assign_dense *p,
                                        const gcut__assign_knobs *knobs, int64_t eps,
                                        gcut__assign_result *res);

/* The `want` least c' = row[y] * mul - price[y] of a row of n costs, the
 * least first (ties to the lower column), into bval and bc (`want` each);
 * returns how many, min(want, n). Two vectorized passes (a bound from the
 * least of each of 16 or 64 lanes, then the arcs within it) while want <=
 * 64; every arc is inserted above. */
int gcut__assign_dense_row_best(const int32_t *row, int32_t n, int32_t mul, const int64_t *price,
                                int want, int64_t *bval, int32_t *bc);

#ifdef __cplusplus
}
#endif

#endif
