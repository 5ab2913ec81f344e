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
#include "graph/assign_problem.h"

/* Prices beyond this cannot come from the solvers (their costs and prices
 * stay within 2^60; a dual is a sum of two). */
#define PRICE_LIMIT ((int64_t)1 << 62)

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
    if (!owner)
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign verify: out of memory");
    for (int32_t c = 0; c < cols; c++)
        owner[c] = -1;
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
        int64_t taken = INT64_MAX; /* the cheapest arc (r, c) after the sign */
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
            const int32_t y = col_idx[k];
            if (y < 0 || y >= cols)
                FAIL("assign verify: arc %lld of row %d has column %d, outside 1..%d",
                     (long long)k, r + 1, y + 1, cols);
            const int64_t cs = sign * cost[k];
            if (cs > GCUT__ASSIGN_LIMIT / scale || cs < -GCUT__ASSIGN_LIMIT / scale) {
                st = gcut__fail(ctx, GCUT_E_OVERFLOW,
                                "assign verify: cost %d times the scale %lld passes 2^60", cost[k],
                                (long long)scale);
                goto done;
            }
            const int64_t reduced = cs * scale - big_scaled - u[r] - v[y];
            if (reduced < 0)
                FAIL("assign verify: row %d, column %d: the prices exceed the cost by %lld/%lld",
                     r + 1, y + 1, (long long)-reduced, (long long)scale);
            if (y == c && cs < taken)
                taken = cs;
        }
        if (c < 0)
            continue;
        if (taken == INT64_MAX)
            FAIL("assign verify: row %d takes column %d, which is not one of its arcs", r + 1,
                 c + 1);
        total += sign * taken;
        const int64_t term = taken * scale - big_scaled - u[r] - v[c];
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
    return st;
}
