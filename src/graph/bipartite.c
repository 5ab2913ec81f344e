/* Bipartite graph construction: entry lists to row CSR and its transpose
 * (duplicates merged), and accessors. */
#include "graph/bipartite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_budget.h"

void gcut_bipartite_destroy(gcut_bipartite *b)
{
    if (!b)
        return;
    free(b->row_start);
    free(b->row_col);
    free(b->row_cost);
    free(b->col_start);
    free(b->col_row);
    free(b->col_edge);
    free(b);
}

/* Positions of the entries in order of key (stable): count[] has nkeys + 1
 * zeroed entries and ends holding each key's end. `in` NULL is 0..m-1. */
static void counting_sort(const int32_t *key, int32_t nkeys, const int32_t *in, int32_t m,
                          int32_t *out, int32_t *count)
{
    for (int32_t i = 0; i < m; i++)
        count[key[in ? in[i] : i] + 1]++;
    for (int32_t k = 0; k < nkeys; k++)
        count[k + 1] += count[k];
    for (int32_t i = 0; i < m; i++) {
        int32_t e = in ? in[i] : i;
        out[count[key[e]]++] = e;
    }
}

static void fill_stats(gcut_bipartite *b, int64_t nnz)
{
    gcut_bipartite_stats *s = &b->stats;
    memset(s, 0, sizeof *s);
    s->rows = b->rows;
    s->cols = b->cols;
    s->entries_in = nnz;
    s->edges = b->edges;
    s->duplicates_merged = nnz - b->edges;
    s->has_costs = b->row_cost != NULL;
    for (int32_t r = 0; r < b->rows; r++) {
        int32_t d = b->row_start[r + 1] - b->row_start[r];
        s->empty_rows += d == 0;
        s->max_row_degree = d > s->max_row_degree ? d : s->max_row_degree;
    }
    for (int32_t c = 0; c < b->cols; c++) {
        int32_t d = b->col_start[c + 1] - b->col_start[c];
        s->empty_cols += d == 0;
        s->max_col_degree = d > s->max_col_degree ? d : s->max_col_degree;
    }
}

int64_t gcut__bipartite_bytes(int64_t rows, int64_t cols, int64_t nnz, int with_cost)
{
    /* row_start, col_start and the sort's counts; per entry: row_col,
     * col_row, col_edge, the two sort orders and the cost. */
    const int64_t wide = rows > cols ? rows : cols;
    int64_t ids = gcut__memory_mul_add(rows + cols + wide + 3, 4, 0);
    return gcut__memory_mul_add(nnz, 4 * (5 + (with_cost ? 1 : 0)),
                                gcut__memory_mul_add(1, ids, sizeof(gcut_bipartite)));
}

gcut_status gcut__bipartite_build(gcut_context *ctx, int32_t rows, int32_t cols, int64_t nnz,
                                  const int32_t *row_idx, const int32_t *col_idx,
                                  const int32_t *costs, const char *what, gcut_bipartite **out)
{
    *out = NULL;
    if (nnz > GCUT__BIPARTITE_MAX_EDGES)
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "%s: %lld entries: at most %lld are taken", what,
                          (long long)nnz, (long long)GCUT__BIPARTITE_MAX_EDGES);
    char what_size[320];
    snprintf(what_size, sizeof what_size,
             "%s: a bipartite graph of %d rows, %d columns and %lld entries", what, rows, cols,
             (long long)nnz);
    gcut_status budget =
        gcut__memory_check(ctx, what_size, gcut__bipartite_bytes(rows, cols, nnz, costs != NULL));
    if (budget)
        return budget;
    const int32_t m = (int32_t)nnz;
    const size_t room = (size_t)(m ? m : 1);
    gcut_bipartite *b = calloc(1, sizeof *b);
    int32_t *by_col = malloc(room * sizeof *by_col);
    int32_t *order = malloc(room * sizeof *order);
    int32_t *count = calloc((size_t)(rows > cols ? rows : cols) + 1, sizeof *count);
    if (!b || !by_col || !order || !count)
        goto nomem;
    b->ctx = ctx;
    b->rows = rows;
    b->cols = cols;
    b->row_start = calloc((size_t)rows + 1, sizeof *b->row_start);
    b->row_col = malloc(room * sizeof *b->row_col);
    b->col_start = calloc((size_t)cols + 1, sizeof *b->col_start);
    if (costs)
        b->row_cost = malloc(room * sizeof *b->row_cost);
    if (!b->row_start || !b->row_col || !b->col_start || (costs && !b->row_cost))
        goto nomem;

    /* By column, then stably by row: the entries in (row, col) order. */
    counting_sort(col_idx, cols, NULL, m, by_col, count);
    memset(count, 0, ((size_t)(rows > cols ? rows : cols) + 1) * sizeof *count);
    counting_sort(row_idx, rows, by_col, m, order, count);

    int32_t edges = 0, last_row = -1;
    for (int32_t k = 0; k < m; k++) {
        const int32_t i = order[k], r = row_idx[i], c = col_idx[i];
        if (r == last_row && b->row_col[edges - 1] == c) {
            if (costs && costs[i] < b->row_cost[edges - 1])
                b->row_cost[edges - 1] = costs[i];
            continue;
        }
        b->row_col[edges] = c;
        if (costs)
            b->row_cost[edges] = costs[i];
        edges++;
        b->row_start[r + 1] = edges;
        last_row = r;
    }
    /* Rows without edges end where the row before them ends. */
    for (int32_t r = 0; r < rows; r++)
        if (b->row_start[r + 1] < b->row_start[r])
            b->row_start[r + 1] = b->row_start[r];
    b->edges = edges;

    /* The transpose: edge ids by column (stable, so sorted by row). */
    const size_t eroom = (size_t)(edges ? edges : 1);
    b->col_row = malloc(eroom * sizeof *b->col_row);
    b->col_edge = malloc(eroom * sizeof *b->col_edge);
    if (!b->col_row || !b->col_edge)
        goto nomem;
    for (int32_t c = 0; c < cols; c++)
        b->col_start[c + 1] = 0;
    for (int32_t e = 0; e < edges; e++)
        b->col_start[b->row_col[e] + 1]++;
    for (int32_t c = 0; c < cols; c++)
        b->col_start[c + 1] += b->col_start[c];
    memcpy(count, b->col_start, (size_t)cols * sizeof *count);
    for (int32_t r = 0; r < rows; r++)
        for (int32_t e = b->row_start[r]; e < b->row_start[r + 1]; e++) {
            int32_t k = count[b->row_col[e]]++;
            b->col_row[k] = r;
            b->col_edge[k] = e;
        }
    fill_stats(b, nnz);
    free(by_col);
    free(order);
    free(count);
    *out = b;
    return GCUT_OK;
nomem:
    free(by_col);
    free(order);
    free(count);
    gcut_bipartite_destroy(b);
    return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory for %lld entries", what,
                      (long long)nnz);
}

gcut_status gcut_bipartite_create_from_edges(gcut_context *ctx, int32_t rows, int32_t cols,
                                             int64_t nnz, const int32_t *row_idx,
                                             const int32_t *col_idx, const int32_t *costs,
                                             gcut_bipartite **out)
{
    gcut__clear_error(ctx);
    if (!out)
        return gcut__fail(ctx, GCUT_E_INVALID, "bipartite: no place for the result");
    *out = NULL;
    if (rows < 0 || cols < 0 || rows == INT32_MAX || cols == INT32_MAX || nnz < 0)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "bipartite: %d rows, %d columns, %lld entries: need 0..%d rows and "
                          "columns and nnz >= 0",
                          rows, cols, (long long)nnz, INT32_MAX - 1);
    if (nnz > 0 && (!row_idx || !col_idx))
        return gcut__fail(ctx, GCUT_E_INVALID, "bipartite: %lld entries but no index arrays",
                          (long long)nnz);
    for (int64_t i = 0; i < nnz; i++)
        if (row_idx[i] < 0 || row_idx[i] >= rows || col_idx[i] < 0 || col_idx[i] >= cols)
            return gcut__fail(ctx, GCUT_E_RANGE,
                              "bipartite: entry %lld is (%d, %d), outside %d rows x %d columns",
                              (long long)i, row_idx[i], col_idx[i], rows, cols);
    return gcut__bipartite_build(ctx, rows, cols, nnz, row_idx, col_idx, costs, "edges", out);
}

int32_t gcut_bipartite_rows(const gcut_bipartite *b)
{
    return b ? b->rows : 0;
}
int32_t gcut_bipartite_cols(const gcut_bipartite *b)
{
    return b ? b->cols : 0;
}
int32_t gcut_bipartite_edges(const gcut_bipartite *b)
{
    return b ? b->edges : 0;
}
int gcut_bipartite_has_costs(const gcut_bipartite *b)
{
    return b && b->row_cost;
}

gcut_status gcut_bipartite_get_stats(const gcut_bipartite *b, gcut_bipartite_stats *stats)
{
    if (!b || !stats)
        return GCUT_E_INVALID;
    *stats = b->stats;
    return GCUT_OK;
}

gcut_status gcut_bipartite_edge(const gcut_bipartite *b, int32_t edge, int32_t *row, int32_t *col,
                                int32_t *cost)
{
    if (!b)
        return GCUT_E_INVALID;
    if (edge < 0 || edge >= b->edges)
        return gcut__fail(b->ctx, GCUT_E_RANGE, "bipartite: edge %d outside 0..%d", edge,
                          b->edges - 1);
    /* The row whose range holds `edge`: binary search over row_start. */
    int32_t lo = 0, hi = b->rows - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (b->row_start[mid] <= edge)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (row)
        *row = lo;
    if (col)
        *col = b->row_col[edge];
    if (cost)
        *cost = b->row_cost ? b->row_cost[edge] : 0;
    return GCUT_OK;
}
