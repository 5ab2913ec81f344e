/* Hopcroft-Karp matching on the CPU (Hopcroft and Karp 1973), from the
 * Karp-Sipser start. Each phase: a breadth-first search from every free
 * column along alternating paths, stopped at the level of the first free
 * row (the shortest augmenting length), then depth-first searches from the
 * free columns along that layering, each augmenting along the first path
 * it finds; a column that leads nowhere is cut from the layering for the
 * rest of the phase. The DFS keeps its own stack: augmenting paths can be
 * as long as the graph. */
#include <stdlib.h>

#include "graph/match.h"

typedef struct hk {
    const gcut_bipartite *b;
    int32_t *rmatch, *cmatch;
    int32_t *dist;  /* columns' BFS level, `inf` when unreached or cut */
    int32_t *queue; /* the BFS queue of columns */
    int32_t *next;  /* each column's next edge to try in this phase's DFS */
    int32_t *stack; /* the DFS path of columns */
    int32_t inf;
} hk;

/* Levels from the free columns; the length (in columns) of the shortest
 * augmenting path, or inf when there is none. */
static int32_t bfs(hk *h)
{
    const gcut_bipartite *b = h->b;
    int32_t head = 0, tail = 0, found = h->inf;
    for (int32_t c = 0; c < b->cols; c++) {
        h->dist[c] = h->cmatch[c] < 0 ? 0 : h->inf;
        if (h->cmatch[c] < 0)
            h->queue[tail++] = c;
    }
    while (head < tail) {
        const int32_t v = h->queue[head++];
        if (h->dist[v] >= found)
            break; /* the queue is in level order */
        for (int32_t e = b->col_start[v]; e < b->col_start[v + 1]; e++) {
            const int32_t w = h->rmatch[b->col_row[e]];
            if (w < 0) {
                found = h->dist[v];
            } else if (h->dist[w] == h->inf) {
                h->dist[w] = h->dist[v] + 1;
                h->queue[tail++] = w;
            }
        }
    }
    return found;
}

/* Depth-first from the free column s along the layering; 1 when an
 * augmenting path was found and applied. */
static int dfs(hk *h, int32_t s, int32_t found)
{
    const gcut_bipartite *b = h->b;
    int32_t top = 0;
    h->stack[0] = s;
    while (top >= 0) {
        const int32_t v = h->stack[top];
        int descended = 0;
        for (; h->next[v] < b->col_start[v + 1]; h->next[v]++) {
            const int32_t u = b->col_row[h->next[v]], w = h->rmatch[u];
            if (w < 0 && h->dist[v] == found) {
                /* Augment: each column on the stack takes the row it was trying. */
                for (int32_t k = top; k >= 0; k--) {
                    const int32_t c = h->stack[k], r = b->col_row[h->next[c]];
                    h->rmatch[r] = c;
                    h->cmatch[c] = r;
                }
                return 1;
            }
            if (w >= 0 && h->dist[v] < found && h->dist[w] == h->dist[v] + 1) {
                h->stack[++top] = w;
                descended = 1;
                break;
            }
        }
        if (descended)
            continue;
        h->dist[v] = h->inf; /* a dead end for the rest of the phase */
        if (--top >= 0)
            h->next[h->stack[top]]++;
    }
    return 0;
}

gcut_status gcut__match_hk(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                           gcut__match_stats *stats)
{
    gcut_status st = gcut__match_karp_sipser(b, rmatch, cmatch, &stats->initial_size);
    if (st)
        return st;
    const size_t n = (size_t)b->cols + 1;
    hk h = {b,
            rmatch,
            cmatch,
            malloc(n * sizeof(int32_t)),
            malloc(n * sizeof(int32_t)),
            malloc(n * sizeof(int32_t)),
            malloc(n * sizeof(int32_t)),
            b->rows + b->cols};
    if (!h.dist || !h.queue || !h.next || !h.stack) {
        st = gcut__fail(b->ctx, GCUT_E_NOMEM, "match: out of memory for Hopcroft-Karp");
        goto done;
    }
    int64_t phases = 0;
    for (;;) {
        const int32_t found = bfs(&h);
        if (found == h.inf)
            break;
        phases++;
        for (int32_t c = 0; c < b->cols; c++)
            h.next[c] = b->col_start[c];
        for (int32_t c = 0; c < b->cols; c++)
            if (cmatch[c] < 0 && h.dist[c] == 0)
                dfs(&h, c, found);
    }
    stats->iterations = phases;
done:
    free(h.dist);
    free(h.queue);
    free(h.next);
    free(h.stack);
    return st;
}
