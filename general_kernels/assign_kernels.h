/* Kernels of the GPU cost-scaling assignment (general_kernels/assign_csa.cu)
 * and their launchers, called by src/gpu/assign_gpu.cu. Each returns the
 * launch's error (cudaSuccess when queued). */
#ifndef GCUT_GENERAL_KERNELS_ASSIGN_KERNELS_H
#define GCUT_GENERAL_KERNELS_ASSIGN_KERNELS_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Why a refine stopped before every row was placed (state[1]). */
enum {
    GCUT__DASSIGN_RUNNING = 0,
    GCUT__DASSIGN_INFEASIBLE = 1, /* a first-phase row's best c' rose past the bound */
    GCUT__DASSIGN_RANGE = 2,      /* a bid fell below the lowest price a key holds */
    GCUT__DASSIGN_TIMEOUT = 3,    /* the phase ran past its time limit */
    GCUT__DASSIGN_PAUSE = 4       /* the bids passed bid_budget: a price update is due */
};

/* The square problem and the solver's state on the device.
 *
 * A column's price and owner are one 64-bit key,
 * (price - pmin) << bits | owner (owner `none` = 2^bits - 1 when free), so
 * that a bid takes the column and sets its price with one atomicMin. */
typedef struct gcut__dassign {
    int32_t n;
    int dense;                   /* row x's arcs are columns 0..n-1 in order at x * n */
    const long long *row_ptr;    /* n + 1 (not read when dense) */
    const int32_t *col;          /* m (NULL when dense) */
    const int32_t *cost32;       /* m costs divided by `unit`, or NULL */
    const long long *cost64;     /* m scaled costs, when cost32 is NULL */
    long long unit;
    unsigned long long *key;     /* n columns */
    int bits;
    long long pmin;              /* price of key offset 0, <= 0 */
    int32_t *list;               /* n: the rows a phase starts to place */
    int32_t *resume;             /* n: the rows a paused launch gave back */
    int32_t *state;              /* [0] rows taken from the list, [1] stop code, [2] the row that
                                    stopped it, [3] rows on the list, [4] rows given back */
    unsigned long long *bids;    /* [0] chains (rows taken), [1] bids in all, [2] the longest
                                    chain (bids), [3] bids of this launch (with a budget),
                                    [4] the time (ns) its list was used up (~0: not yet) */
    unsigned long long bid_budget; /* a launch pauses past this many bids (0: never) */
    long long tail_ns;             /* or this long after its list was used up (0: never) */
    int32_t *label;              /* n: the price update's column distances (in eps) */
    int32_t *holder;             /* n: the price update's copy of the columns' rows (-1: free) */
    int32_t *via;                /* 2n: the next column of a column's shortest path, then an
                                    active row's first column (-1: none) */
    unsigned *claim;             /* n: the update that claimed a column for a path (0: none) */
    unsigned *front;             /* 3 masks of n bits: the columns whose label fell in a pass
                                    (the frontier update's; dense only) */
    int frontier;                /* dense rows take the frontier update (set by
                                    gcut__assign_update_blocks) */
    /* CSR rows' frontier update (csr_frontier: set by gcut__assign_update_blocks, the
     * buffers by the caller, the transpose by gcut__assign_transpose): */
    int csr_frontier;
    long long *t_ptr;            /* n + 1: the arcs entering column y at t_ptr[y] .. t_ptr[y+1]-1 */
    int32_t *t_row;              /* m: an entering arc's row */
    int32_t *t_cost;             /* m: its cost (as cost32) */
    unsigned long long *lkey;    /* n: a column's label, stamp and via column in one key */
    long long *held;             /* n: c'(x, z) of the column z row x holds */
    int32_t *fmark;              /* n: the last pass that queued the column */
    int32_t *flist;              /* 2n: the frontiers of two passes */
    int32_t *fcount;             /* 3: their lengths (rotating) */
    int32_t label_cap;           /* labels stop here (eps * label_cap fits the prices) */
    const long long *start_min;  /* first phase: a row's best c' at prices 0 (NULL: no test) */
    long long drop_bound;
    long long time_limit_ns;     /* a phase's wall-clock limit */
    /* Dense rows' phase driven on the device (gcut__assign_dense_cycles): NULL where the host
     * drives it (launch, wait, decide) */
    struct gcut__dense_loop *loop;
} gcut__dassign;

/* A dense phase's loop state on the device: what the host keeps between an update and a
 * refine when it drives the phase, read and written by the kernels instead, so that the host
 * queues cycles (update, refine, resume) without waiting for one. */
typedef struct gcut__dense_loop {
    int32_t *list, *resume;      /* the phase's list and the rows given back (swapped here) */
    unsigned long long bid_budget; /* a refine's budget while updating */
    long long tail_ns;           /* a pause's cost as last measured (update_due's tail) */
    long long pause_start;       /* when the current pause (or the phase) began */
    long long update_ns;         /* this phase's pauses in all (from pause_start to update end) */
    unsigned seq;                /* the next update's number (claims) */
    int32_t done;                /* 1: the phase's last refine ended without a pause */
    int32_t updating;            /* 0: no fixed point in reach, bid on without pauses */
    int32_t update_passes;       /* an update's pass limit (doubled where one falls short) */
    int32_t update_passes_max;
    int32_t launches, updates, passes, placed, failed; /* this phase's, for the log */
} gcut__dense_loop;

/* Threads that scan and bid for one row together (a worker): 4, 8 or 32
 * lanes of a warp, or a block of 128, 512 or 1024, from the rows' mean
 * degree. */
int gcut__assign_group(int dense, double mean_degree);

/* Start of a phase: the first makes every column free (prices 0) and
 * lists every row; a later one frees the columns of the rows that are not
 * eps-optimal at the new `eps` and lists those rows (row_col: n entries of
 * scratch). state = {0, 0, -1, rows listed}. */
cudaError_t gcut__assign_phase_start(const gcut__dassign *d, int first, long long eps, int group,
                                     int32_t *row_col, cudaStream_t stream);

/* The most workers of `group` threads (dense or CSR) resident at once on
 * `sms` multiprocessors. */
cudaError_t gcut__assign_workers(int group, int dense, int sms, int *workers_max);

/* One phase (refine) at `eps` in one launch of `workers` workers: it ends
 * when every row holds a column or a stop code is set. */
cudaError_t gcut__assign_refine(const gcut__dassign *d, long long eps, int group, int workers,
                                cudaStream_t stream);

/* After a launch paused (GCUT__DASSIGN_PAUSE): the rows it gave back and
 * those left on its list into d->resume, state set for a launch on it
 * (the caller then swaps list and resume). */
cudaError_t gcut__assign_resume(const gcut__dassign *d, cudaStream_t stream);

/* The most blocks of the price update (group and layout as the refine's)
 * resident at once on `sms` multiprocessors: its launch is cooperative.
 * Sets d->frontier: 1 where dense rows take the frontier update (its list
 * fits a block's shared memory), which then needs d->front; and
 * d->csr_frontier: 1 where CSR rows may take theirs (column ids fit its
 * keys), which then needs its buffers and gcut__assign_transpose. */
cudaError_t gcut__assign_update_blocks(gcut__dassign *d, int group, int sms, int *blocks_max);

/* CSR rows' frontier update: once the caller allocated its buffers (t_ptr
 * to fcount, sizes above), the transpose of the `m` arcs (per column, the
 * arcs entering it) from row_ptr, col and cost32. */
cudaError_t gcut__assign_transpose(const gcut__dassign *d, long long m, cudaStream_t stream);

/* The global price update at `eps`, from the keys, in one cooperative
 * launch of at most `blocks_max` blocks, then the augmentation along its
 * shortest paths (row_col: n entries of scratch, scratch: 7 ints; seq: a
 * number no earlier update of this solve used, above 0). It runs
 * Bellman-Ford passes, up to `max_passes` (over every arc, or, where
 * d->frontier or d->csr_frontier, over the columns whose label fell in
 * the pass before).
 * Waits for the launch and sets h_result (4 pinned ints): [0] passes, [1]
 * 1 when they reached the fixed point and every column's price was lowered
 * by eps times its label (0: prices unchanged), and then [2] the list's
 * rows left active, written to d->resume (the caller swaps list and
 * resume), [3] the rows placed. */
cudaError_t gcut__assign_price_update(const gcut__dassign *d, long long eps, int group,
                                      int blocks_max, int max_passes, unsigned seq,
                                      int32_t *row_col, int32_t *scratch, int32_t *h_result,
                                      cudaStream_t stream);

/* Dense rows with the frontier update (d->dense, d->frontier, d->cost32; d->loop set and
 * started by gcut__assign_dense_loop_start): queue `cycles` cycles of a phase without a wait,
 * each a price update, a refine and its resume, every kernel a no-op once the phase is done
 * (loop->done) and the update one while loop->updating is 0. *blocks: the update's grid (0 the
 * first time: found here, halved where fewer blocks fit). */
cudaError_t gcut__assign_dense_loop_start(const gcut__dassign *d, int updating,
                                          unsigned long long bid_budget, int update_passes,
                                          int update_passes_max, unsigned seq,
                                          cudaStream_t stream);
cudaError_t gcut__assign_dense_cycles(const gcut__dassign *d, long long eps, int group,
                                      int workers, int blocks_max, int *blocks, int cycles,
                                      int32_t *row_col, int32_t *scratch, cudaStream_t stream);

/* The solution from the keys: price[y] (unless price is NULL) and
 * row_col[x] (-1 for a row without a column; cleared here first). */
cudaError_t gcut__assign_unpack(const gcut__dassign *d, long long *price, int32_t *row_col,
                                cudaStream_t stream);

/* The proof of a dense solution (d->dense, d->cost32 at d->unit = sign *
 * scale): dual[x] = min over y of c(x, y) - price[y] (the row duals that
 * make every reduced cost >= 0), gap[0] += min(c(x, row_col[x]) -
 * price[row_col[x]] - dual[x], scale) over the rows (>= scale: not
 * optimal), gap[1] = rows without a column. gap[0..1] cleared here. */
cudaError_t gcut__assign_dense_proof(const gcut__dassign *d, const long long *price,
                                     const int32_t *row_col, long long scale, long long *dual,
                                     unsigned long long *gap, cudaStream_t stream);

/* The candidate graph of a dense request (general_kernels/assign_candidates.cu): CSR rows of
 * k + 1 arcs, row x at x (k + 1), columns increasing: the row's k cheapest arcs (ties to the
 * lower column) and its guarantee arc (the diagonal, or row_col[x] where price is set), or
 * its k + 1 cheapest where the guarantee is among the k cheapest or guard is 0. Ranked by
 * the cost times sign, or, where price is set, by c * unit - price[y] - dual[x]. */
typedef struct gcut__candidate_stats {
    long long lo, hi;            /* the cheapest arcs' costs times sign (the guarantee's left
                                    out where it was added) */
    unsigned long long covered;  /* columns among some row's cheapest (where covered is set) */
    unsigned long long worst;    /* gcut__assign_violations: the largest held reduced cost
                                    above its row's dual */
    unsigned long long violators; /* and the rows where it passes eps */
} gcut__candidate_stats;

typedef struct gcut__candidates {
    int32_t n, k;                /* 0 <= k <= n - 1 */
    int32_t guard;               /* 0: no guarantee arc (the k + 1 cheapest); set with price */
    const int32_t *cost;         /* n x n, row-major, the caller's units */
    long long sign, unit;        /* unit = sign * scale */
    const long long *price;      /* NULL: rank by cost */
    const long long *dual;       /* n: with price, each row's least reduced cost */
    const int32_t *row_col;      /* n: with price, the guarantee arcs (a perfect assignment) */
    long long *row_ptr;          /* n + 1 */
    int32_t *col, *cost_out;     /* n (k + 1) each; cost_out in the caller's units */
    unsigned *covered;           /* n flags, or NULL */
    gcut__candidate_stats *stats;
} gcut__candidates;

/* Build the candidate graph (stats cleared first). */
cudaError_t gcut__assign_candidates(const gcut__candidates *c, cudaStream_t stream);

/* A dense solution (price, row_col) against the proof's duals (gcut__assign_dense_proof on d):
 * stats->worst and stats->violators (rows above eps), cleared first. */
cudaError_t gcut__assign_violations(const gcut__dassign *d, const long long *price,
                                    const int32_t *row_col, const long long *dual, long long eps,
                                    gcut__candidate_stats *stats, cudaStream_t stream);

#endif
