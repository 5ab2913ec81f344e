/* The alternating search from the unmatched rows (match.h): push-relabel's
 * global relabel (exact distances to a free row) and the search behind the
 * König cover. */
#include "graph/match.h"

int32_t gcut__match_levels(const gcut_bipartite *b, const int32_t *rmatch, const int32_t *cmatch,
                           int32_t inf, int32_t *row_level, int32_t *col_level, int32_t *queue)
{
    int32_t head = 0, tail = 0, top = 0;
    for (int32_t r = 0; r < b->rows; r++) {
        row_level[r] = rmatch[r] < 0 ? 0 : inf;
        if (rmatch[r] < 0)
            queue[tail++] = r;
    }
    for (int32_t c = 0; c < b->cols; c++)
        col_level[c] = inf;
    while (head < tail) {
        const int32_t r = queue[head++], next = row_level[r] + 1;
        for (int32_t e = b->row_start[r]; e < b->row_start[r + 1]; e++) {
            const int32_t c = b->row_col[e];
            if (col_level[c] != inf)
                continue;
            col_level[c] = next;
            top = next;
            const int32_t w = cmatch[c];
            if (w >= 0 && row_level[w] == inf) {
                row_level[w] = next + 1;
                queue[tail++] = w;
            }
        }
    }
    return top + 1;
}
