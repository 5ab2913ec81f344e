/* The square assignment problem the cost-scaling solvers (CPU and GPU)
 * solve, and what they give back. Internal to libgcut.
 *
 * gcut_assign_csr() turns every request into one of these: n rows, n
 * columns, CSR over rows with costs already scaled by S (so that eps = 1
 * is eps < 1/n in the caller's units) and one arc per (row, column) pair.
 * Rectangular and partial requests are made square by the construction in
 * src/graph/assign.c. The solvers may reorder the arcs inside a row (arc
 * fixing moves fixed arcs to the row's tail), never across rows.
 *
 * The solution: row_col[x] the column of row x (or -1), and column prices
 * p[y] such that every matched row is eps-optimal for eps = 1 over all of
 * its arcs: c(x, row_col[x]) - p[row_col[x]] <= min over its arcs of
 * (c(x, y) - p[y]) + 1. */
#ifndef GCUT_GRAPH_ASSIGN_PROBLEM_H
#define GCUT_GRAPH_ASSIGN_PROBLEM_H

#include <stdint.h>

#include "core/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scaled costs and prices stay within +-2^60 (checked), so a reduced cost
 * c - p, and a difference of two, never leaves int64. */
#define GCUT__ASSIGN_LIMIT ((int64_t)1 << 60)

typedef struct gcut__assign_problem {
    int32_t n;          /* rows = columns */
    int64_t m;          /* arcs */
    int64_t *row_ptr;   /* n + 1 */
    int32_t *col;       /* m */
    int64_t *cost;      /* m, scaled */
    int64_t cost_min, cost_max; /* over the arcs, scaled */
    int may_be_infeasible; /* 0 when the construction guarantees a perfect assignment */
    /* A square request taken as it is by the GPU (src/graph/assign.c's
     * problem_view): where cost32 is not NULL, the costs are cost32[k] *
     * unit32, cost is NULL and row_ptr, col and cost32 are the caller's
     * arrays (read only). */
    const int32_t *cost32;
    int64_t unit32;
    /* NULL, or each row's least scaled cost (INT64_MAX: no arcs), for the
     * first phase's infeasibility test */
    const int64_t *row_min;
} gcut__assign_problem;

/* Knobs of the cost-scaling solvers; 0 keeps the default. */
typedef struct gcut__assign_knobs {
    int alpha;          /* eps divisor between phases (default 10; the GPU's dense rows 16) */
    int update_every;   /* CPU: a global price update once double pushes have looked
                           at this many times the live arcs; -1 = never. GPU: one a phase
                           start and one each update_every * n bids (default 1) */
    int fix_factor;     /* arc fixing: fix arcs whose reduced cost exceeds
                           fix_factor * (n + 1) / 8 times the last phase's eps
                           (16: Goldberg-Kennedy's safe 2n eps); -1 = never */
    int cache;          /* CPU quick minima: arcs kept per row (2..32) */
    int gpu_group;      /* GPU: threads a row's bid takes (4, 8, 32, 128, 512 or 1024;
                           0: from the rows' mean degree) */
    int gpu_host_build; /* GPU, dense square requests: 1 builds the square problem on the
                           host and checks the proof on the CPU, as for any other request
                           (the path the dense device path replaced; for benchmarks) */
    int gpu_eps_start;  /* GPU: the first phase's eps is the cost range over alpha times
                           this (0: the default, 1 on CSR rows, 10 on dense rows) */
    int gpu_host_loop;  /* GPU, dense rows: 1 has the host drive the later phases (launch,
                           wait, decide), as for CSR rows, instead of the device (for the
                           checks and benchmarks) */
    int candidates;     /* dense square requests: solve first on each row's `candidates`
                           cheapest arcs and price the other arcs out against that
                           solution's prices (0: the default, -1: every arc from the start;
                           for the checks and benchmarks) */
} gcut__assign_knobs;

typedef struct gcut__assign_result {
    int32_t *row_col;   /* n */
    int64_t *price;     /* n column prices */
    int64_t refines, pushes, price_updates, arcs_fixed, repairs;
    int32_t stuck_row;  /* with GCUT_E_INFEASIBLE: a row the solver could not place */
} gcut__assign_result;

/* CPU cost scaling (src/cpu/assign_csa.c). Fills `res` (arrays allocated
 * by the caller). GCUT_E_INFEASIBLE (message not set) when the first phase
 * shows that no perfect assignment exists: res->stuck_row is a row left
 * over. `start` non-zero: res already holds an eps = 1 state from another
 * solver to finish (repair), not a fresh start. */
gcut_status gcut__assign_csa(gcut_context *ctx, gcut__assign_problem *p,
                             const gcut__assign_knobs *knobs, int start,
                             gcut__assign_result *res);

/* The same from a state in res (row_col, -1 for a free row, and prices)
 * that is eps-optimal on p's arcs: phases from eps / alpha down to 1, each
 * row keeping its column while it stays within the phase's eps. max_pushes
 * > 0: GCUT_E_UNSUPPORTED (message not set, res a partial state) once the
 * double pushes reach it. */
gcut_status gcut__assign_csa_warm(gcut_context *ctx, gcut__assign_problem *p,
                                  const gcut__assign_knobs *knobs, int64_t eps, int64_t max_pushes,
                                  gcut__assign_result *res);

#ifdef GCUT_HAVE_CUDA
/* GPU cost scaling (src/gpu/assign_gpu.cu), the same contract as the CPU's
 * (start = 0); *device gets the GPU's name. */
gcut_status gcut__gpu_assign(gcut_context *ctx, gcut__assign_problem *p,
                             const gcut__assign_knobs *knobs, gcut__assign_result *res,
                             const char **device);
#endif

/* A square request whose every row lists the columns 0..n-1 in order:
 * the GPU solves it from the caller's n x n matrix, nothing built on the
 * host (src/gpu/assign_gpu.cu). */
typedef struct gcut__dense_check gcut__dense_check;

typedef struct gcut__assign_dense {
    int32_t n;
    const int32_t *cost;        /* n x n, row-major, the caller's units */
    int64_t sign;               /* -1 to maximize */
    int64_t scale;              /* n + 1 */
    int64_t cost_min, cost_max; /* after the sign, unscaled (not read with `check`) */
    gcut__dense_check *check;   /* NULL: the caller has read the arcs */
} gcut__assign_dense;

/* A request that has the dense shape (n arcs a row) whose arcs the caller
 * has not read: the GPU reads them in its upload instead (the staging
 * threads, gcut__gpu_assign_dense), so that the matrix is read once. On
 * return `ok`: every row lists the columns 0..n-1 in order and the scaled
 * costs stay within GCUT__ASSIGN_LIMIT, cost_min and cost_max the range
 * after the sign; not ok, nothing solved (GCUT_E_UNSUPPORTED, no message):
 * the caller checks the request itself. */
struct gcut__dense_check {
    const int32_t *col; /* n x n */
    int ok;
    int64_t cost_min, cost_max;
};

#ifdef GCUT_HAVE_CUDA
/* GPU cost scaling on a dense request: res->row_col and res->price (the
 * column prices, scaled) as gcut__gpu_assign gives them, and the proof's
 * rest from the device: row_dual[x] = min over y of sign * c(x, y) * scale
 * - price[y], and *gap the sum over rows of the assigned arc's reduced
 * cost above its row's dual, each term capped at the scale (the scale
 * itself when a row has no column): optimal when *gap < scale. */
gcut_status gcut__gpu_assign_dense(gcut_context *ctx, const gcut__assign_dense *p,
                                   const gcut__assign_knobs *knobs, gcut__assign_result *res,
                                   int64_t *row_dual, int64_t *gap, const char **device);
#endif

/* The request as the shortest-augmenting-path solver takes it: no squaring,
 * rows <= cols (with `partial`, one more column per row, cols + r, at cost
 * big: row r left over). Costs are sign * cost[k], in the caller's units. */
typedef struct gcut__ssp_problem {
    int32_t rows, cols;
    const int64_t *row_ptr;
    const int32_t *col_idx;
    const int32_t *cost;
    int64_t sign;       /* -1 to maximize */
    int64_t big;        /* B of GCUT_ASSIGN_PARTIAL */
    int partial;
} gcut__ssp_problem;

/* Potentials beyond this are not trusted to the solver (the caller falls back
 * to cost scaling): rows * (cost range + B) must stay under it. */
#define GCUT__SSP_LIMIT ((int64_t)1 << 61)

typedef struct gcut__ssp_result {
    int32_t *row_col;   /* rows: a real column or -1 (left over, with partial) */
    int64_t *v;         /* cols (+ rows with partial) column potentials, <= 0, 0 where free */
    int64_t augmentations, scanned;
    int32_t stuck_row;  /* with GCUT_E_INFEASIBLE: the row no free column is reachable from */
} gcut__ssp_result;

/* CPU successive shortest paths (src/cpu/assign_ssp.c): an optimal
 * assignment and column potentials with a gap of 0. GCUT_E_INFEASIBLE
 * (message not set, res->row_col a partial matching) when a row reaches no
 * free column. */
gcut_status gcut__assign_ssp(gcut_context *ctx, const gcut__ssp_problem *p,
                             gcut__ssp_result *res);

/* gcut_assign_csr_info with knobs (NULL: the defaults), for tuning runs,
 * benchmarks and checks (src/graph/assign.c). */
gcut_status gcut__assign_run(gcut_context *ctx, int32_t rows, int32_t cols, const int64_t *row_ptr,
                             const int32_t *col_idx, const int32_t *cost, unsigned flags,
                             const char *algo, const gcut__assign_knobs *knobs,
                             int32_t *row_to_col, int64_t *total_cost, int64_t *prices,
                             gcut_assign_info *info);

/* What gcut_assign_csr allocates on the host for a request of `arcs` arcs,
 * in bytes: the square problem, the solver's per-node state and price
 * updates, the result (an estimate for the memory budget; saturates). */
int64_t gcut__assign_bytes(int32_t rows, int32_t cols, int64_t arcs, unsigned flags);

/* The same for a dense square request solved on the caller's matrix
 * (n rows, no problem built). */
int64_t gcut__assign_dense_bytes(int32_t n);

#ifdef __cplusplus
}
#endif

#endif
