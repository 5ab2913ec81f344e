/* A dense square request solved first on each row's cheapest arcs, the
 * rest priced out against that solution (src/cpu/assign_candidates.c), and
 * the pass over the matrix that proves a dense solve. Internal to libgcut. */
#ifndef GCUT_CPU_ASSIGN_CANDIDATES_H
#define GCUT_CPU_ASSIGN_CANDIDATES_H

#include "graph/assign_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The proof of column prices and an assignment on p's matrix, on the
 * context's threads: dual[x] = min over y of c'(x, y) = cost * sign * scale
 * - price[y], and *gap the sum over rows of the assigned arc's c' above
 * dual[x], each term capped at the scale (the scale where a row has no
 * column): optimal when *gap < scale. over (NULL, or n entries) gets each
 * row's term uncapped (INT64_MAX where it has no column). */
void gcut__assign_dense_price_out(gcut_context *ctx, const gcut__assign_dense *p,
                                  const int64_t *price, const int32_t *row_col, int64_t *dual,
                                  int64_t *over, int64_t *gap);

/* The arcs a row keeps for the first solve when the knob leaves it to the
 * solver (knobs->candidates 0): 0 means the whole matrix from the start. */
int gcut__assign_candidates_default(int32_t n);

/* What gcut__assign_csa_candidates allocates beyond the dense path
 * (gcut__assign_dense_bytes) for n rows with these knobs (NULL: the
 * defaults), in bytes: 0 where the knobs or the size leave it off. */
int64_t gcut__assign_candidates_bytes(int32_t n, const gcut__assign_knobs *knobs);

/* Whether each row's arcs col[x t, x t + t) (less the last where forced
 * is set and forced[x]) hold a perfect assignment of the n rows into n
 * columns. *perfect: 1 yes, 0 no (a row is left without a column), -1
 * undecided (the search passed its budget of 4 n t arcs). owner: n
 * scratch. The CPU and the GPU candidate paths solve the whole matrix at
 * once where it is 0. */
gcut_status gcut__assign_candidates_match(gcut_context *ctx, int32_t n, int32_t t,
                                          const int32_t *col, const uint8_t *forced,
                                          int32_t *owner, int *perfect);

/* CPU cost scaling on p's matrix through a sparse problem of each row's
 * k cheapest arcs (k > 0) and its own column (a perfect assignment always
 * exists), then priced out over the whole matrix; rows that a cheaper arc
 * outside beats get their cheapest arcs under the found prices and the
 * solve goes on warm from those prices, two rounds at most. Where those
 * arcs hold no perfect assignment, the sparse solve runs long, or too many
 * rows are beaten, gcut__assign_csa_dense solves the whole matrix. res as
 * gcut__assign_csa_dense fills it, and the proof's dual and *gap as
 * gcut__assign_dense_price_out gives them (optimal when *gap < scale,
 * which the caller checks). */
gcut_status gcut__assign_csa_candidates(gcut_context *ctx, const gcut__assign_dense *p,
                                        const gcut__assign_knobs *knobs, int k,
                                        gcut__assign_result *res, int64_t *dual, int64_t *gap);

#ifdef __cplusplus
}
#endif

#endif
