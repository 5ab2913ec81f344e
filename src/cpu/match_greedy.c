/* The greedy start of every matching solver: Karp-Sipser (Karp and Sipser
 * 1981; the variant of Duff, Kaya and Uçar 2011, "cheap matching" with the
 * degree-one rule). A vertex with one unmatched neighbour left can be
 * matched to it without losing a maximum matching, so those go first; when
 * there are none, the next free column takes its first free row. */
#include <stdlib.h>

#include "graph/match.h"

#define MATCHED INT32_MIN

typedef struct ks {
    const gcut_bipartite *b;
    int32_t *rmatch, *cmatch;
    int32_t *deg;   /* unmatched neighbours left: rows 0..rows-1, then columns;
                       MATCHED once matched, so that one array answers both
                       questions (the scans here are bound by cache misses) */
    int32_t *queue; /* vertices whose deg fell to 1 (rows, then rows + c) */
    int64_t head, tail;
} ks;

/* One side's vertex just got matched: its unmatched neighbours (of the
 * other side, numbered from `other`) lose one. */
static void drop_neighbours(ks *k, const int32_t *start, const int32_t *adj, int32_t v,
                            int32_t other)
{
    int32_t *deg = k->deg + other;
    for (int32_t e = start[v]; e < start[v + 1]; e++) {
        int32_t w = adj[e];
        if (deg[w] > 0 && --deg[w] == 1)
            k->queue[k->tail++] = other + w;
    }
}

static void match(ks *k, int32_t r, int32_t c)
{
    const gcut_bipartite *b = k->b;
    k->rmatch[r] = c;
    k->cmatch[c] = r;
    k->deg[r] = MATCHED;
    k->deg[b->rows + c] = MATCHED;
    drop_neighbours(k, b->row_start, b->row_col, r, b->rows);
    drop_neighbours(k, b->col_start, b->col_row, c, 0);
}

/* The first unmatched neighbour of a vertex (-1 if none); `deg` is the
 * other side's part of ks.deg. */
static int32_t free_neighbour(const int32_t *start, const int32_t *adj, int32_t v,
                              const int32_t *deg)
{
    for (int32_t e = start[v]; e < start[v + 1]; e++)
        if (deg[adj[e]] != MATCHED)
            return adj[e];
    return -1;
}

gcut_status gcut__match_karp_sipser(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                                    int32_t *size)
{
    const int32_t rows = b->rows, cols = b->cols;
    const int64_t n = (int64_t)rows + cols;
    ks k = {b, rmatch, cmatch, malloc((size_t)(n + 1) * sizeof(int32_t)), NULL, 0, 0};
    /* Each vertex enters the queue at most once per fall to 1: at most once. */
    k.queue = malloc((size_t)(n + 1) * sizeof(int32_t));
    if (!k.deg || !k.queue) {
        free(k.deg);
        free(k.queue);
        return gcut__fail(b->ctx, GCUT_E_NOMEM, "match: out of memory for the greedy start");
    }
    for (int32_t r = 0; r < rows; r++) {
        rmatch[r] = -1;
        k.deg[r] = b->row_start[r + 1] - b->row_start[r];
        if (k.deg[r] == 1)
            k.queue[k.tail++] = r;
    }
    for (int32_t c = 0; c < cols; c++) {
        cmatch[c] = -1;
        k.deg[rows + c] = b->col_start[c + 1] - b->col_start[c];
        if (k.deg[rows + c] == 1)
            k.queue[k.tail++] = rows + c;
    }
    int32_t pairs = 0, next_col = 0;
    for (;;) {
        while (k.head < k.tail) {
            int32_t v = k.queue[k.head++];
            if (v < rows) {
                if (k.deg[v] != 1)
                    continue;
                int32_t c = free_neighbour(b->row_start, b->row_col, v, k.deg + rows);
                if (c >= 0)
                    match(&k, v, c), pairs++;
            } else {
                int32_t c = v - rows;
                if (k.deg[v] != 1)
                    continue;
                int32_t r = free_neighbour(b->col_start, b->col_row, c, k.deg);
                if (r >= 0)
                    match(&k, r, c), pairs++;
            }
        }
        /* No vertex of degree one: the next free column with a free row. */
        while (next_col < cols && k.deg[rows + next_col] <= 0)
            next_col++;
        if (next_col == cols)
            break;
        int32_t r = free_neighbour(b->col_start, b->col_row, next_col, k.deg);
        match(&k, r, next_col);
        pairs++;
    }
    free(k.deg);
    free(k.queue);
    *size = pairs;
    return GCUT_OK;
}
