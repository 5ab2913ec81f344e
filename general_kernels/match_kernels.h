/* The G-PR matching kernels (Deveci, Kaya, Uçar and Çatalyürek, "A
 * push-relabel-based maximum cardinality bipartite matching algorithm on
 * GPUs", ICPP 2013) as the host side (src/gpu/match_gpu.cu) sees them: the
 * device copy of a bipartite graph and one C-linkage launcher per kernel.
 * Each launcher enqueues on `stream` and returns the launch's error
 * without synchronising.
 *
 * mu is rmatch/cmatch, psi is row_level/col_level. Pushes are lock- and
 * atomic-free: two columns may take the same row in one launch; the row
 * keeps one of them, and the other sees rmatch[cmatch[v]] != v at the next
 * launch and is rolled back (retried). Only the row side is always right;
 * the column side is repaired at the end (FIXMATCHING).
 *
 * Active columns: `cur` holds the columns one push launch works on (slot i,
 * -1 for none), and the push writes into `prev` the column each slot's
 * push displaced (-1 for none). The host swaps the two after each push, so
 * the next init launch sees the columns just processed in `prev` and those
 * they displaced in `cur`, and keeps, per slot, the displaced column, or
 * the processed one where its push was lost (the rollback). stamp[v] = the
 * loop in which v is active, so that a push never displaces a column that
 * is being processed in the same launch (the paper's iA).
 */
#ifndef GCUT_GENERAL_KERNELS_MATCH_KERNELS_H
#define GCUT_GENERAL_KERNELS_MATCH_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Slots of the counters array. */
enum {
    GCUT_MCNT_FRONTIER0 = 0, /* BFS frontier sizes, by level parity */
    GCUT_MCNT_FRONTIER1 = 1,
    GCUT_MCNT_LAST_ACTIVE = 2, /* the last loop whose init found an active column */
    GCUT_MCNT_LIST = 3,        /* size of a list being built (collect, shrink) */
    GCUT_MCNT_LEVEL = 4,       /* the small-frontier BFS: the level it stopped at */
    GCUT_MCNT_PARITY = 5,      /* ... and which frontier buffer holds the rest */
    GCUT_MCNT_SLOTS = 8
};

typedef struct gcut__dmatch {
    int32_t rows, cols, inf;            /* inf = rows + cols: "no free row reachable" */
    const int32_t *row_start, *row_col; /* rows' columns (the global relabel) */
    const int32_t *col_start, *col_row; /* columns' rows (the pushes) */
    int32_t *rmatch, *cmatch;
    int32_t *row_level, *col_level;
    int32_t *stamp;       /* cols: the loop in which the column is active */
    int32_t *claim;       /* rows: the greedy start's proposals */
    int32_t *frontier[2]; /* rows: the BFS frontiers */
    int32_t *counters;    /* GCUT_MCNT_SLOTS */
} gcut__dmatch;

/* The greedy start: each free column proposes to a free row (the first
 * from a column-dependent offset), and a proposal the row kept is matched. */
cudaError_t gcut__gpr_propose_launch(const gcut__dmatch *m, cudaStream_t stream);
cudaError_t gcut__gpr_accept_launch(const gcut__dmatch *m, cudaStream_t stream);

/* The free columns that have an edge, into `list` (size in
 * counters[LIST], which the caller zeroes). */
cudaError_t gcut__gpr_collect_launch(const gcut__dmatch *m, int32_t *list, cudaStream_t stream);

/* Global relabel: levels reset (free rows 0 and in frontier[0], with its
 * size; all else inf), then one level: rows of frontier[level/2 & 1]
 * (`count` of them, at level `level`) label their unreached columns
 * level + 1 and those columns' rows level + 2, appended to the other
 * frontier. The small variant runs levels in one block while the frontier
 * stays under `small_max`, leaving where it stopped in counters[LEVEL] and
 * counters[PARITY] and the frontier's size in counters[FRONTIER0 + parity]. */
cudaError_t gcut__gpr_relabel_init_launch(const gcut__dmatch *m, cudaStream_t stream);
cudaError_t gcut__gpr_relabel_level_launch(const gcut__dmatch *m, int32_t level, int32_t count,
                                           cudaStream_t stream);
cudaError_t gcut__gpr_relabel_small_launch(const gcut__dmatch *m, int32_t level, int32_t small_max,
                                           cudaStream_t stream);

/* G-PR-INITKRNL over `count` slots. */
cudaError_t gcut__gpr_init_launch(const gcut__dmatch *m, int32_t *cur, const int32_t *prev,
                                  int32_t count, int32_t loop, cudaStream_t stream);
/* G-PR-SHRKRNL: the same, the active columns written packed into `out`
 * (size in counters[LIST], which the caller zeroes). */
cudaError_t gcut__gpr_shrink_launch(const gcut__dmatch *m, const int32_t *cur, const int32_t *prev,
                                    int32_t *out, int32_t count, int32_t loop, cudaStream_t stream);
/* G-PR-PUSHKRNL over `count` slots. */
cudaError_t gcut__gpr_push_launch(const gcut__dmatch *m, int32_t *cur, int32_t *prev, int32_t count,
                                  int32_t loop, cudaStream_t stream);
/* FIXMATCHING: cmatch[c] = -1 wherever the row does not agree. */
cudaError_t gcut__gpr_fix_launch(const gcut__dmatch *m, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
