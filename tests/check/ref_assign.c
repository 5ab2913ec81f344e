/* Successive shortest augmenting paths for the assignment (see ref_assign.h).
 * Invariant: for a row i on column j, c(i,j) - v(j) <= c(i,k) - v(k) for
 * every arc (i,k), so the search from a free row sees non-negative reduced
 * edge weights after its first step and Dijkstra applies. */
#include "ref_assign.h"

#include <stdlib.h>
#include <string.h>

typedef struct heap_item {
    int64_t dist;
    int32_t col;
} heap_item;

typedef struct heap {
    heap_item *a;
    int64_t n, cap;
} heap;

static int heap_push(heap *h, int64_t dist, int32_t col)
{
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 64;
        heap_item *a = realloc(h->a, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        h->a = a, h->cap = cap;
    }
    int64_t i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2].dist > dist) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i].dist = dist, h->a[i].col = col;
    return 0;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->a[0], last = h->a[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->a[c + 1].dist < h->a[c].dist)
            c++;
        if (h->a[c].dist >= last.dist)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

int ref_assign_csr(int32_t rows, int32_t cols, const int64_t *row_ptr, const int32_t *col_idx,
                   const int32_t *cost, int32_t *row_to_col, int64_t *total)
{
    int64_t *price = calloc((size_t)cols + 1, sizeof *price);
    int64_t *dist = malloc(((size_t)cols + 1) * sizeof *dist);
    int64_t *pred_arc = malloc(((size_t)cols + 1) * sizeof *pred_arc);
    int32_t *pred_row = malloc(((size_t)cols + 1) * sizeof *pred_row);
    int64_t *row_arc = malloc(((size_t)rows + 1) * sizeof *row_arc);
    int32_t *col_to_row = malloc(((size_t)cols + 1) * sizeof *col_to_row);
    int32_t *seen = calloc((size_t)cols + 1, sizeof *seen); /* search id that reached it */
    int32_t *final = calloc((size_t)cols + 1, sizeof *final);
    int32_t *done = malloc(((size_t)cols + 1) * sizeof *done);
    heap h = {NULL, 0, 0};
    int rc = 0;
    if (!price || !dist || !pred_arc || !pred_row || !row_arc || !col_to_row || !seen || !final || !done) {
        rc = -1;
        goto out;
    }
    for (int32_t j = 0; j < cols; j++)
        col_to_row[j] = -1;
    for (int32_t s = 0; s < rows && !rc; s++) {
        int32_t search = s + 1, sink = -1, n_done = 0;
        h.n = 0;
        for (int64_t k = row_ptr[s]; k < row_ptr[s + 1] && !rc; k++) {
            int32_t j = col_idx[k];
            int64_t d = (int64_t)cost[k] - price[j];
            if (seen[j] != search || d < dist[j]) {
                seen[j] = search, dist[j] = d, pred_arc[j] = k, pred_row[j] = s;
                rc = heap_push(&h, d, j);
            }
        }
        while (h.n && !rc) {
            heap_item it = heap_pop(&h);
            int32_t j = it.col;
            if (final[j] == search || it.dist != dist[j])
                continue;
            final[j] = search;
            done[n_done++] = j;
            if (col_to_row[j] < 0) {
                sink = j;
                break;
            }
            int32_t i = col_to_row[j];
            int64_t base = dist[j] - ((int64_t)cost[row_arc[i]] - price[j]);
            for (int64_t k = row_ptr[i]; k < row_ptr[i + 1] && !rc; k++) {
                int32_t c = col_idx[k];
                if (final[c] == search)
                    continue;
                int64_t d = base + (int64_t)cost[k] - price[c];
                if (seen[c] != search || d < dist[c]) {
                    seen[c] = search, dist[c] = d, pred_arc[c] = k, pred_row[c] = i;
                    rc = heap_push(&h, d, c);
                }
            }
        }
        if (rc)
            break;
        if (sink < 0) {
            rc = 1;
            break;
        }
        int64_t big = dist[sink];
        for (int32_t t = 0; t < n_done; t++)
            price[done[t]] += dist[done[t]] - big;
        /* Augment: each column on the path takes the row that reached it. */
        for (int32_t j = sink;;) {
            int64_t k = pred_arc[j];
            int32_t i = pred_row[j];
            int32_t prev = i == s ? -1 : col_idx[row_arc[i]];
            row_arc[i] = k;
            col_to_row[j] = i;
            if (i == s)
                break;
            j = prev;
        }
    }
    if (!rc) {
        int64_t sum = 0;
        for (int32_t i = 0; i < rows; i++) {
            row_to_col[i] = col_idx[row_arc[i]];
            sum += cost[row_arc[i]];
        }
        *total = sum;
    }
out:
    free(price), free(dist), free(pred_arc), free(pred_row), free(row_arc), free(col_to_row), free(seen);
    free(final), free(done), free(h.a);
    return rc;
}
