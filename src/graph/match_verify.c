/* gcut_match_verify: a matching and its König cover checked against the
 * graph alone (nothing of the solver's state is trusted). */
#include <stdlib.h>

#include "graph/match.h"

/* Whether (r, c) is an edge: the row's columns are sorted. */
static int is_edge(const gcut_bipartite *b, int32_t r, int32_t c)
{
    int32_t lo = b->row_start[r], hi = b->row_start[r + 1];
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (b->row_col[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->row_start[r + 1] && b->row_col[lo] == c;
}

gcut_status gcut_match_verify(const gcut_bipartite *b, const int32_t *row_match,
                              const int32_t *col_match, const uint8_t *row_cover,
                              const uint8_t *col_cover, int32_t *size)
{
    if (!b)
        return GCUT_E_INVALID;
    gcut_context *ctx = b->ctx;
    gcut__clear_error(ctx);
    if (!row_match || !row_cover || !col_cover)
        return gcut__fail(ctx, GCUT_E_INVALID, "match: verify needs the matching and the cover");
    int32_t *owner = malloc(((size_t)b->cols + 1) * sizeof *owner);
    if (!owner)
        return gcut__fail(ctx, GCUT_E_NOMEM, "match: out of memory verifying");
    for (int32_t c = 0; c < b->cols; c++)
        owner[c] = -1;
    gcut_status st = GCUT_OK;
    int32_t pairs = 0;
    for (int32_t r = 0; r < b->rows && !st; r++) {
        const int32_t c = row_match[r];
        if (c == -1)
            continue;
        if (c < -1 || c >= b->cols)
            st = gcut__fail(ctx, GCUT_E_VERIFY, "match: row %d is matched to %d, not a column",
                            r + 1, c + 1);
        else if (owner[c] >= 0)
            st = gcut__fail(ctx, GCUT_E_VERIFY, "match: column %d is matched to rows %d and %d",
                            c + 1, owner[c] + 1, r + 1);
        else if (!is_edge(b, r, c))
            st =
                gcut__fail(ctx, GCUT_E_VERIFY, "match: pair (%d, %d) is not an edge", r + 1, c + 1);
        else
            owner[c] = r, pairs++;
    }
    for (int32_t c = 0; c < b->cols && !st && col_match; c++)
        if (col_match[c] != owner[c])
            st = gcut__fail(ctx, GCUT_E_VERIFY,
                            "match: column %d is matched to row %d, but row_match says %d", c + 1,
                            col_match[c] + 1, owner[c] + 1);
    int64_t covered = 0;
    for (int32_t r = 0; r < b->rows && !st; r++) {
        covered += row_cover[r] != 0;
        if (row_cover[r])
            continue;
        for (int32_t e = b->row_start[r]; e < b->row_start[r + 1]; e++)
            if (!col_cover[b->row_col[e]]) {
                st = gcut__fail(ctx, GCUT_E_VERIFY, "match: edge (%d, %d) is not covered", r + 1,
                                b->row_col[e] + 1);
                break;
            }
    }
    for (int32_t c = 0; c < b->cols && !st; c++)
        covered += col_cover[c] != 0;
    if (!st && covered != pairs)
        st = gcut__fail(ctx, GCUT_E_VERIFY,
                        "match: the cover has %lld vertices but the matching %d pairs: %s",
                        (long long)covered, pairs,
                        covered > pairs ? "the matching is not shown maximum"
                                        : "no cover is smaller than a matching");
    free(owner);
    if (!st && size)
        *size = pairs;
    return st;
}
