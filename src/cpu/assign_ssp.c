/* Exact minimum-cost assignment by successive shortest augmenting paths
 * (Jonker-Volgenant style, for sparse rectangular problems): the contract is
 * in src/graph/assign_problem.h.
 *
 * Column potentials v start at 0 and only ever decrease; a matched row's
 * dual is u_r = c(r, its column) - v(its column), the least c - v over its
 * arcs, so every reduced cost c - u - v is >= 0 and every matched arc's is
 * 0. A free row is placed by Dijkstra over the columns with those reduced
 * costs (column -> its row -> that row's arcs), stopping at the first free
 * column; the columns settled before it lower their potential by how much
 * nearer they were, which keeps the invariant (the classical argument).
 * Free columns are never settled before the search ends, so they keep v = 0:
 * that is the dual of "columns may stay free" (v <= 0, and 0 where free), and
 * the duals prove the assignment optimal with a gap of exactly 0.
 *
 * Rows are placed one by one on the request itself (rows <= columns), so the
 * work is one Dijkstra per row left free by the start, each usually short on
 * a sparse problem with many free columns (optical flow: every row has its
 * own occlusion column). PARTIAL adds one column per row at cost B (its
 * weight), which the request's proof absorbs as src/graph/assign.c explains.
 *
 * Values: costs after the sign are within 2^31 and B within 2^60 / S; the
 * potentials stay within rows * (cost range + B), which the caller bounds
 * (GCUT__SSP_LIMIT) before it calls. */
#include <stdlib.h>
#include <string.h>

#include "graph/assign_problem.h"

typedef struct heap_item {
    int64_t key;
    int32_t col;
} heap_item;

/* A binary min-heap with lazy deletion: a column may sit in it more than
 * once, the stale copies skipped when popped. */
typedef struct heap {
    heap_item *a;
    size_t size, room;
} heap;

static int heap_push(heap *h, int64_t key, int32_t col)
{
    if (h->size == h->room) {
        const size_t room = h->room ? 2 * h->room : 1024;
        heap_item *a = realloc(h->a, room * sizeof *a);
        if (!a)
            return 0;
        h->a = a;
        h->room = room;
    }
    size_t i = h->size++;
    while (i > 0) {
        const size_t up = (i - 1) / 2;
        if (h->a[up].key <= key)
            break;
        h->a[i] = h->a[up];
        i = up;
    }
    h->a[i].key = key;
    h->a[i].col = col;
    return 1;
}

static heap_item heap_pop(heap *h)
{
    const heap_item top = h->a[0], last = h->a[--h->size];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->size)
            break;
        if (child + 1 < h->size && h->a[child + 1].key < h->a[child].key)
            child++;
        if (h->a[child].key >= last.key)
            break;
        h->a[i] = h->a[child];
        i = child;
    }
    if (h->size)
        h->a[i] = last;
    return top;
}

gcut_status gcut__assign_ssp(gcut_context *ctx, const gcut__ssp_problem *p,
                             gcut__ssp_result *res)
{
    const int32_t rows = p->rows, cols = p->cols;
    const int32_t ncol = cols + (p->partial ? rows : 0); /* column cols + r: row r left over */
    const int64_t *row_ptr = p->row_ptr;
    const int32_t *col_idx = p->col_idx;
    const int32_t *cost = p->cost;
    const int64_t sign = p->sign, big = p->big;
    int64_t *v = res->v; /* ncol entries */
    int32_t *row_col = res->row_col;
    int32_t *col_row = malloc(((size_t)ncol + 1) * sizeof *col_row);
    int64_t *match_cost = malloc(((size_t)rows + 1) * sizeof *match_cost);
    int64_t *dist = malloc(((size_t)ncol + 1) * sizeof *dist);
    int64_t *via_cost = malloc(((size_t)ncol + 1) * sizeof *via_cost); /* arc cost into a column */
    int32_t *via_row = malloc(((size_t)ncol + 1) * sizeof *via_row);
    int32_t *stamp = malloc(((size_t)ncol + 1) * sizeof *stamp); /* the search that reached it */
    int32_t *settled = malloc(((size_t)ncol + 1) * sizeof *settled);
    char *is_settled = calloc((size_t)ncol + 1, 1);
    heap h = {NULL, 0, 0};
    gcut_status st = GCUT_OK;
    if (!col_row || !match_cost || !dist || !via_cost || !via_row || !stamp || !settled ||
        !is_settled) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d columns", ncol);
        goto done;
    }
    for (int32_t j = 0; j < ncol; j++)
        v[j] = 0, col_row[j] = -1, stamp[j] = -1;

    /* The start: each row takes its cheapest column where that is free
     * (with v = 0, that arc is tight and the row's dual its cost). */
    res->augmentations = 0;
    res->scanned = 0;
    for (int32_t r = 0; r < rows; r++) {
        row_col[r] = -1;
        int64_t best = p->partial ? big : INT64_MAX;
        int32_t at = p->partial ? cols + r : -1;
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
            const int64_t c = sign * cost[k];
            if (c < best)
                best = c, at = col_idx[k];
        }
        if (at >= 0 && col_row[at] < 0) {
            row_col[r] = at;
            col_row[at] = r;
            match_cost[r] = best;
        }
    }

    for (int32_t root = 0; root < rows; root++) {
        if (row_col[root] >= 0)
            continue;
        res->augmentations++;
        int32_t nsettled = 0, end = -1;
        h.size = 0;
        /* Row `root` has no dual yet: its arcs start at c - v. */
        int32_t r = root;
        int64_t base = 0; /* dist of the column r was reached by, less r's dual */
        for (;;) {
            const int64_t lo = row_ptr[r], hi = row_ptr[r + 1];
            res->scanned += hi - lo + (p->partial ? 1 : 0);
            for (int64_t k = lo; k <= hi; k++) {
                int32_t j;
                int64_t c;
                if (k < hi) {
                    j = col_idx[k];
                    c = sign * cost[k];
                } else if (p->partial) {
                    j = cols + r;
                    c = big;
                } else {
                    break;
                }
                if (is_settled[j])
                    continue;
                const int64_t d = base + c - v[j];
                if (stamp[j] == root && dist[j] <= d)
                    continue;
                stamp[j] = root;
                dist[j] = d;
                via_row[j] = r;
                via_cost[j] = c;
                if (!heap_push(&h, d, j)) {
                    st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for the search");
                    goto done;
                }
            }
            int32_t j = -1;
            while (h.size) {
                const heap_item top = heap_pop(&h);
                if (!is_settled[top.col] && top.key == dist[top.col]) {
                    j = top.col;
                    break;
                }
            }
            if (j < 0)
                break; /* no free column reachable: the caller names the Hall violator */
            is_settled[j] = 1;
            settled[nsettled++] = j;
            if (col_row[j] < 0) {
                end = j;
                break;
            }
            r = col_row[j];
            base = dist[j] - (match_cost[r] - v[j]);
        }
        if (end < 0) {
            for (int32_t i = 0; i < nsettled; i++)
                is_settled[settled[i]] = 0;
            res->stuck_row = root;
            st = GCUT_E_INFEASIBLE;
            goto done;
        }
        /* Settled columns come nearer by what they had to spare. */
        const int64_t mu = dist[end];
        for (int32_t i = 0; i < nsettled; i++) {
            const int32_t j = settled[i];
            v[j] += dist[j] - mu;
            is_settled[j] = 0;
        }
        for (int32_t j = end;;) {
            const int32_t x = via_row[j], next = row_col[x];
            row_col[x] = j;
            col_row[j] = x;
            match_cost[x] = via_cost[j];
            if (x == root)
                break;
            j = next;
        }
    }
    /* Rows left over by PARTIAL read back as -1. */
    for (int32_t r = 0; r < rows; r++)
        if (row_col[r] >= cols)
            row_col[r] = -1;
done:
    free(col_row);
    free(match_cost);
    free(dist);
    free(via_cost);
    free(via_row);
    free(stamp);
    free(settled);
    free(is_settled);
    free(h.a);
    return st;
}
