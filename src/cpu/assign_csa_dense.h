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

#ifdef __cplusplus
}
#endif

#endif
