/* gcut_assign_verify: an assignment and its LP-duality proof, checked from
 * the request alone (include/gcut.h gives the statement).
 *
 * The gap, c'(M) - sum(u) - sum(v), is summed as non-negative terms: c' - u
 * - v of each assigned arc, -u of each row left over and -v of each free
 * column (each >= 0 once the prices are feasible), so it is checked against
 * S term by term and never overflows. */
#include <stddef.h>
#include <stdlib.h>

#include "core/context.h"
#include "core/parallel.h"
#include "graph/assign_problem.h"

/* Prices beyond this cannot come from the solvers (their costs and prices
 * stay within 2^60; a dual is a sum of two). */
#define PRICE_LIMIT ((int64_t)1 << 62)

/* The arcs' part of the check, a range of rows a part: every arc's column
 * in range, its cost times the scale within 2^60 and its reduced cost >= 0,
 * and taken[r], the cheapest arc (r, row_to_col[r]) after the sign
 * (INT64_MAX: none). A part stops at its first failing arc. */
typedef struct arc_check {
    const int64_t *row_ptr;
    const int32_t *col_idx, *cost, *row_to_col;
    int32_t cols;
    int64_t sign, scale, big_scaled;
    const int64_t *u, *v;
    int64_t *taken;
    struct {
        int32_t bad_row; /* -1: none */
        int overflow;    /* the failing arc's cost passes 2^60 once scaled */
        int64_t k, reduced;
    } part[GCUT__MAX_THREADS];
} arc_check;

static void check_arcs(void *arg, int64_t begin, int64_t end, int part)
{
    arc_check *a = arg;
    const int64_t limit = GCUT__ASSIGN_LIMIT / a->scale;
    a->part[part].bad_row = -1;
    for (int64_t r = begin; r < end; r++) {
        const int32_t c = a->row_to_col[r];
        int64_t taken = INT64_MAX;
        for (int64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
            const int32_t y = a->col_idx[k];
            const int64_t cs = a->sign * a->cost[k];
            int64_t reduced = 0;
            const int overflow = cs > limit || cs < -limit;
            if (y >= 0 && y < a->cols && !overflow)
                reduced = cs * a->scale - a->big_scaled - a->u[r] - a->v[y];
            if (y < 0 || y >= a->cols || overflow || reduced < 0) {
                a->part[part].bad_row = (int32_t)r;
                a->part[part].overflow = y >= 0 && y < a->cols && overflow;
                a->part[part].k = k;
                a->part[part].reduced = reduced;
                return;
            }
            taken = y == c && cs < taken ? cs : taken;
        }
        a->taken[r] = taken;
    }
}

gcut_status gcut_assign_verify(gcut_context *ctx, int32_t rows, int32_t cols,
                               const int64_t *row_ptr, const int32_t *col_idx,
                               const int32_t *cost, unsigned flags, const int32_t *row_to_col,
                               int64_t total_cost, const int64_t *prices, int64_t *gap_out)
{
    gcut__clear_error(ctx);
    if (rows < 0 || cols < 0 || !row_ptr || !row_to_col || !prices ||
        (rows > 0 && row_ptr[rows] > 0 && (!col_idx || !cost)))
        return gcut__fail(ctx, GCUT_E_INVALID, "assign verify: a NULL array or a negative size");
    if (flags & ~(GCUT_ASSIGN_MAXIMIZE | GCUT_ASSIGN_PARTIAL))
        return gcut__fail(ctx, GCUT_E_INVALID, "assign verify: unknown flags 0x%x", flags);
    const int partial = (flags & GCUT_ASSIGN_PARTIAL) != 0;
    const int square = rows == cols && !partial;
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    const int64_t scale = square ? (int64_t)rows + 1 : (int64_t)rows + cols + 1;
    const int64_t big =
        partial ? gcut_assign_partial_weight(rows, cols, row_ptr, col_idx, cost, flags) : 0;
    if (big > GCUT__ASSIGN_LIMIT / scale)
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "assign verify: the partial weight %lld times "
                          "the scale %lld passes 2^60", (long long)big, (long long)scale);
    const int64_t big_scaled = big * scale;
    for (int32_t i = 0; i < rows + cols; i++)
        if (prices[i] > PRICE_LIMIT || prices[i] < -PRICE_LIMIT)
            return gcut__fail(ctx, GCUT_E_VERIFY, "assign verify: the price of %s %d is beyond 2^62",
                              i < rows ? "row" : "column", (i < rows ? i : i - rows) + 1);
    const int64_t *u = prices, *v = prices + rows;

    int32_t *owner = malloc(((size_t)cols + 1) * sizeof *owner);
    int64_t *taken = malloc(((size_t)rows + 1) * sizeof *taken);
    arc_check *ac = malloc(sizeof *ac);
    if (!owner || !taken || !ac) {
        free(owner);
        free(taken);
        free(ac);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign verify: out of memory");
    }
    for (int32_t c = 0; c < cols; c++)
        owner[c] = -1;
    /* the arcs on the context's threads; the rows' own tests below, in
     * order, so that the first failure named is the one a row-by-row check
     * meets first */
    ac->row_ptr = row_ptr;
    ac->col_idx = col_idx;
    ac->cost = cost;
    ac->row_to_col = row_to_col;
    ac->cols = cols;
    ac->sign = sign;
    ac->scale = scale;
    ac->big_scaled = big_scaled;
    ac->u = u;
    ac->v = v;
    ac->taken = taken;
    int parts = gcut__thread_count(ctx ? ctx->options.threads : 0,
                                   rows > 0 ? row_ptr[rows] : 0);
    if (parts > rows)
        parts = rows > 0 ? rows : 1;
    gcut__parallel_for(parts, rows, check_arcs, ac);
    int32_t bad_row = rows; /* the first row with a failing arc (rows: none) */
    int bad_part = 0;
    for (int i = 0; i < parts && bad_row == rows; i++)
        if (ac->part[i].bad_row >= 0)
            bad_row = ac->part[i].bad_row, bad_part = i;
    gcut_status st = GCUT_OK;
    int64_t total = 0, gap = 0;
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        st = gcut__fail(ctx, GCUT_E_VERIFY, __VA_ARGS__);                                          \
        goto done;                                                                                 \
    } while (0)
    for (int32_t r = 0; r < rows; r++) {
        const int32_t c = row_to_col[r];
        if (c < -1 || c >= cols)
            FAIL("assign verify: row %d takes column %d, outside 1..%d", r + 1, c + 1, cols);
        if (partial && u[r] > 0)
            FAIL("assign verify: row %d has a positive price", r + 1);
        if (c < 0) {
            if (!partial)
                FAIL("assign verify: row %d is not assigned", r + 1);
            if (-u[r] >= scale || gap - u[r] >= scale)
                FAIL("assign verify: the gap reaches the scale %lld at row %d, left over",
                     (long long)scale, r + 1);
            gap += -u[r];
        } else if (owner[c] >= 0) {
            FAIL("assign verify: column %d is taken by rows %d and %d", c + 1, owner[c] + 1, r + 1);
        } else {
            owner[c] = r;
        }
        if (r == bad_row) {
            const int64_t k = ac->part[bad_part].k;
            const int32_t y = col_idx[k];
            if (y < 0 || y >= cols)
                FAIL("assign verify: arc %lld of row %d has column %d, outside 1..%d",
                     (long long)k, r + 1, y + 1, cols);
            if (ac->part[bad_part].overflow) {
                st = gcut__fail(ctx, GCUT_E_OVERFLOW,
                                "assign verify: cost %d times the scale %lld passes 2^60", cost[k],
                                (long long)scale);
                goto done;
            }
            FAIL("assign verify: row %d, column %d: the prices exceed the cost by %lld/%lld",
                 r + 1, y + 1, (long long)-ac->part[bad_part].reduced, (long long)scale);
        }
        if (c < 0)
            continue;
        if (taken[r] == INT64_MAX)
            FAIL("assign verify: row %d takes column %d, which is not one of its arcs", r + 1,
                 c + 1);
        total += sign * taken[r];
        const int64_t term = taken[r] * scale - big_scaled - u[r] - v[c];
        if (term >= scale || gap + term >= scale)
            FAIL("assign verify: the gap reaches the scale %lld at row %d (not optimal)",
                 (long long)scale, r + 1);
        gap += term;
    }
    for (int32_t c = 0; c < cols; c++) {
        if (square)
            break; /* every column is taken: v is free */
        if (v[c] > 0)
            FAIL("assign verify: column %d has a positive price", c + 1);
        if (owner[c] >= 0)
            continue;
        if (-v[c] >= scale || gap - v[c] >= scale)
            FAIL("assign verify: the gap reaches the scale %lld at free column %d",
                 (long long)scale, c + 1);
        gap -= v[c];
    }
    if (total != total_cost)
        FAIL("assign verify: the total cost is %lld, not %lld", (long long)total,
             (long long)total_cost);
    if (gap_out)
        *gap_out = gap;
#undef FAIL
done:
    free(owner);
    free(taken);
    free(ac);
    return st;
}
