/* Maximum-cardinality bipartite matching: what the solvers share.
 * Internal to libgcut.
 *
 * A matching is two arrays: rmatch[r] = the column matched to row r, or -1;
 * cmatch[c] = the row matched to column c, or -1. Every solver starts from
 * a greedy matching and ends with a maximum one; the proof (a König vertex
 * cover of the same size) comes from one alternating search from the
 * unmatched rows (gcut__match_levels).
 */
#ifndef GCUT_GRAPH_MATCH_H
#define GCUT_GRAPH_MATCH_H

#include <stdint.h>

#include "graph/bipartite.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run reports beyond the matching. */
typedef struct gcut__match_stats {
    int32_t initial_size; /* pairs of the greedy start */
    int64_t iterations;   /* pr: pushes; hk: phases; gpr: push launches */
    int64_t relabels;     /* global relabels (pr, gpr) */
    double solve_ms;      /* gpr: the device run (CUDA events); CPU solvers leave 0 */
    double transfer_ms;   /* gpr: allocation, upload and download */
    const char *device;   /* gpr: the GPU's name (kept by the context); else NULL */
} gcut__match_stats;

/* Karp-Sipser greedy start: vertices of one remaining unmatched neighbour
 * are matched first (no maximum matching is lost by doing so), then any
 * free edge. rmatch and cmatch are written whole; *size gets the pairs. */
gcut_status gcut__match_karp_sipser(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                                    int32_t *size);

/* Alternating search from every unmatched row (row -> any edge -> column ->
 * its matched row): row_level[r] and col_level[c] get the distance (rows
 * even, columns odd) or `inf` when not reached. `queue` holds `rows`
 * entries. Returns the largest level reached plus one. This is push-relabel's
 * global relabel and the proof's search: with a maximum matching the
 * König cover is the unreached rows and the reached columns. */
int32_t gcut__match_levels(const gcut_bipartite *b, const int32_t *rmatch, const int32_t *cmatch,
                           int32_t inf, int32_t *row_level, int32_t *col_level, int32_t *queue);

/* The CPU solvers: from the greedy start (computed inside) to a maximum
 * matching. GCUT_E_NOMEM on failure to allocate. */
gcut_status gcut__match_pr(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                           gcut__match_stats *stats);
gcut_status gcut__match_hk(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                           gcut__match_stats *stats);

/* G-PR on the GPU (src/gpu/match_gpu.cu): the same contract; without CUDA
 * it is never called. */
gcut_status gcut__match_gpr(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                            gcut__match_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
