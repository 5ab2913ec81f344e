/* Push-relabel matching on the CPU (Kaya, Langguth, Manne and Uçar 2013,
 * "Push-relabel based algorithms for the maximum transversal problem"):
 * FIFO order of the active (unmatched) columns, a global relabel (exact
 * distances by an alternating search from the free rows) at the start and
 * after every k*(rows+cols) pushes. Labels are lower bounds on the distance
 * to a free row: a column pushes to its lowest-labelled row, taking it from
 * that row's column, which becomes active; a column whose rows are all at
 * rows+cols or beyond can reach no free row and is dropped. */
#include <stdlib.h>

#include "graph/match.h"

/* Relabel frequency: k = 1 pushes per vertex (Kaya et al. measured 0.5 to
 * 2 as about equal; 1 is their default). */
#define RELABEL_K 1.0

gcut_status gcut__match_pr(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                           gcut__match_stats *stats)
{
    const int32_t rows = b->rows, cols = b->cols;
    const int32_t inf = rows + cols; /* gcut_match keeps inf + 1 within int32 */
    gcut_status st = gcut__match_karp_sipser(b, rmatch, cmatch, &stats->initial_size);
    if (st)
        return st;
    int32_t *row_level = malloc((size_t)(rows + 1) * sizeof *row_level);
    int32_t *col_level = malloc((size_t)(cols + 1) * sizeof *col_level);
    int32_t *queue = malloc((size_t)(rows > cols ? rows : cols) * sizeof *queue + 4);
    if (!row_level || !col_level || !queue) {
        st = gcut__fail(b->ctx, GCUT_E_NOMEM, "match: out of memory for push-relabel");
        goto done;
    }
    /* The FIFO of active columns, a ring of cols + 1 slots: a column is in
     * it at most once (it is unmatched while queued and only a matched
     * column can be displaced into it). */
    int32_t *fifo = malloc((size_t)(cols + 1) * sizeof *fifo);
    if (!fifo) {
        st = gcut__fail(b->ctx, GCUT_E_NOMEM, "match: out of memory for push-relabel");
        goto done;
    }
    int64_t head = 0, tail = 0;
    const int64_t ring = (int64_t)cols + 1;
    for (int32_t c = 0; c < cols; c++)
        if (cmatch[c] < 0)
            fifo[tail++] = c;
    gcut__match_levels(b, rmatch, cmatch, inf, row_level, col_level, queue);
    stats->relabels = 1;
    const int64_t relabel_every = (int64_t)(RELABEL_K * ((double)rows + cols)) + 1;
    int64_t pushes = 0, since = 0;
    while (head != tail) {
        const int32_t v = fifo[head];
        head = head + 1 == ring ? 0 : head + 1;
        if (col_level[v] >= inf)
            continue;
        const int32_t want = col_level[v] - 1; /* the lowest a neighbour can be */
        int32_t best = inf, u = -1;
        for (int32_t e = b->col_start[v]; e < b->col_start[v + 1]; e++) {
            const int32_t r = b->col_row[e], level = row_level[r];
            if (level < best) {
                best = level;
                u = r;
                if (level == want)
                    break;
            }
        }
        if (best >= inf) {
            col_level[v] = inf; /* no free row is reachable from v */
            continue;
        }
        const int32_t w = rmatch[u];
        rmatch[u] = v;
        cmatch[v] = u;
        col_level[v] = best + 1;
        row_level[u] = best + 2;
        if (w >= 0) {
            cmatch[w] = -1;
            fifo[tail] = w;
            tail = tail + 1 == ring ? 0 : tail + 1;
        }
        pushes++;
        if (++since >= relabel_every) {
            gcut__match_levels(b, rmatch, cmatch, inf, row_level, col_level, queue);
            stats->relabels++;
            since = 0;
        }
    }
    stats->iterations = pushes;
    free(fifo);
done:
    free(row_level);
    free(col_level);
    free(queue);
    return st;
}
