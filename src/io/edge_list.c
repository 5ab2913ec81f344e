/* Plain edge lists as bipartite graphs: "R C" or "R C COST" a line,
 * 1-based, '#' or '%' comments (gcut.h, gcut_bipartite_read). */
#include <limits.h>

#include "graph/bipartite.h"
#include "io/entry_list.h"
#include "io/text_reader.h"

#define FAIL(...) gcut__text_fail(t, __VA_ARGS__)

gcut_status gcut__edge_list_parse(gcut_context *ctx, const char *path, const char *text, size_t len,
                                  unsigned flags, gcut_bipartite **out)
{
    gcut__text tt = {ctx, path, text, text + len, 1}, *t = &tt;
    gcut__entries e;
    memset(&e, 0, sizeof e);
    gcut_status st = GCUT_OK;
    if (len == 0)
        return FAIL(GCUT_E_TRUNCATED, "empty file");
    int fields = 0; /* 2 or 3, from the first entry */
    int64_t rows = 0, cols = 0, first_line = 0, rows_line = 0, cols_line = 0;
    while (t->p < t->end) {
        if (gcut__text_at_line_end(t) || *t->p == '#' || *t->p == '%') {
            gcut__text_next_line(t);
            continue;
        }
        int64_t r, c, cost = 0;
        if (!gcut__text_int(t, &r) || !gcut__text_int(t, &c)) {
            st = FAIL(GCUT_E_FORMAT, "expected an edge 'R C' or 'R C COST'");
            goto fail;
        }
        int here = gcut__text_at_line_end(t) ? 2 : 3;
        if (here == 3 && !gcut__text_int(t, &cost)) {
            st = FAIL(GCUT_E_FORMAT, "expected an edge 'R C' or 'R C COST' with an integer COST");
            goto fail;
        }
        if (!gcut__text_at_line_end(t)) {
            st = FAIL(GCUT_E_FORMAT, "unexpected text after the edge");
            goto fail;
        }
        if (!fields) {
            fields = here;
            first_line = t->line;
            if (gcut__entries_init(&e, here == 3 && !(flags & GCUT_BIPARTITE_NO_COSTS), 0)) {
                st = FAIL(GCUT_E_NOMEM, "out of memory");
                goto fail;
            }
        } else if (here != fields) {
            st = FAIL(GCUT_E_FORMAT, "an edge with%s a cost, unlike line %lld",
                      here == 3 ? "" : "out", (long long)first_line);
            goto fail;
        }
        if (r < 1 || c < 1) {
            st =
                FAIL(GCUT_E_RANGE, "edge (%lld, %lld): ids start at 1", (long long)r, (long long)c);
            goto fail;
        }
        if (r > INT32_MAX - 1 || c > INT32_MAX - 1) {
            st = FAIL(GCUT_E_OVERFLOW, "edge (%lld, %lld): ids go up to %d", (long long)r,
                      (long long)c, INT32_MAX - 1);
            goto fail;
        }
        if (cost < INT32_MIN || cost > INT32_MAX) {
            st = FAIL(GCUT_E_OVERFLOW, "cost %lld is outside the int32 range", (long long)cost);
            goto fail;
        }
        if (e.n >= GCUT__BIPARTITE_MAX_EDGES) {
            st =
                FAIL(GCUT_E_OVERFLOW, "more than %lld edges", (long long)GCUT__BIPARTITE_MAX_EDGES);
            goto fail;
        }
        if (gcut__entries_push(&e, (int32_t)(r - 1), (int32_t)(c - 1), (int32_t)cost)) {
            st = FAIL(GCUT_E_NOMEM, "out of memory for %lld edges", (long long)e.n + 1);
            goto fail;
        }
        if (r > rows)
            rows = r, rows_line = t->line;
        if (c > cols)
            cols = c, cols_line = t->line;
        gcut__text_next_line(t);
    }
    /* The largest id sets the size: one line must not make a graph of
     * gigabytes of ids no edge names (GCUT__BIPARTITE_EMPTY_MAX). */
    if (rows - e.n > GCUT__BIPARTITE_EMPTY_MAX || cols - e.n > GCUT__BIPARTITE_EMPTY_MAX) {
        const int by_row = rows - e.n > GCUT__BIPARTITE_EMPTY_MAX;
        t->line = by_row ? rows_line : cols_line;
        st = FAIL(GCUT_E_RANGE,
                  "%s id %lld with %lld edges in all: at least %lld %s would have no edge, and "
                  "at most %lld are accepted",
                  by_row ? "row" : "column", (long long)(by_row ? rows : cols), (long long)e.n,
                  (long long)((by_row ? rows : cols) - e.n), by_row ? "rows" : "columns",
                  (long long)GCUT__BIPARTITE_EMPTY_MAX);
        goto fail;
    }
    st = gcut__bipartite_build(ctx, (int32_t)rows, (int32_t)cols, e.n, e.row, e.col, e.cost, path,
                               out);
fail:
    gcut__entries_free(&e);
    return st;
}
