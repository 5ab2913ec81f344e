/* The bipartite graph, as the matching and assignment solvers read it.
 * Internal to libgcut.
 *
 * Layout: contiguous int32 arrays, one entry per distinct (row, col) pair
 * (duplicates merged when the graph is built).
 *   row_start[rows+1], row_col[edges], row_cost[edges]   CSR over rows: the
 *       edges of row r are row_start[r] .. row_start[r+1]-1, sorted by
 *       column; edge e is (row of e, row_col[e]) with cost row_cost[e]
 *       (row_cost is NULL for a graph without costs);
 *   col_start[cols+1], col_row[edges], col_edge[edges]   the transpose: the
 *       edges of column c sorted by row, each with its index e in the row
 *       CSR (so row_cost[col_edge[k]] is its cost).
 * Edges number at most GCUT__BIPARTITE_MAX_EDGES, so every index fits int32.
 */
#ifndef GCUT_GRAPH_BIPARTITE_H
#define GCUT_GRAPH_BIPARTITE_H

#include <stdint.h>

#include "core/context.h"
#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GCUT__BIPARTITE_MAX_EDGES ((int64_t)INT32_MAX - 1)

/* The readers refuse a file whose sizes leave more rows (or columns) than
 * this without any entry: such ids cost memory per row while the file says
 * nothing about them, so a three-line file could otherwise ask for
 * gigabytes (the DIMACS reader's isolated-node limit, for the same reason). */
#define GCUT__BIPARTITE_EMPTY_MAX ((int64_t)1 << 20)

/* What gcut__bipartite_build allocates for these sizes, in bytes (an
 * estimate for the memory budget; saturates, never wraps). */
int64_t gcut__bipartite_bytes(int64_t rows, int64_t cols, int64_t nnz, int with_cost);

struct gcut_bipartite {
    gcut_context *ctx;
    int32_t rows, cols, edges;
    int32_t *row_start, *row_col, *row_cost;
    int32_t *col_start, *col_row, *col_edge;
    gcut_bipartite_stats stats;
};

/* Build from entry arrays with 0-based ids already checked to lie in range
 * (costs may be NULL); `what` names the origin for messages (a path or
 * "edges"). Duplicates are merged, keeping the smallest cost. */
gcut_status gcut__bipartite_build(gcut_context *ctx, int32_t rows, int32_t cols, int64_t nnz,
                                  const int32_t *row_idx, const int32_t *col_idx,
                                  const int32_t *costs, const char *what, gcut_bipartite **out);

/* The readers (src/io/): parse `len` bytes of `text` (NUL-terminated) read
 * from `path`. Errors name PATH:LINE. */
gcut_status gcut__mtx_parse(gcut_context *ctx, const char *path, const char *text, size_t len,
                            unsigned flags, gcut_bipartite **out);
gcut_status gcut__edge_list_parse(gcut_context *ctx, const char *path, const char *text, size_t len,
                                  unsigned flags, gcut_bipartite **out);

#ifdef __cplusplus
}
#endif

#endif
