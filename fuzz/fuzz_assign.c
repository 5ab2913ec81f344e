/* Fuzz target "assign": the assignment reader (Matrix Market coordinate or
 * array with integer or real costs, or the dense cost matrix), with a scale
 * taken from the first byte so that real costs are read too. A small
 * problem it accepts is solved by the CPU solver: a minimum-cost assignment
 * must pass the proof checker (prices eps-optimal, the total its own) or
 * the problem be infeasible, and the partial solve, which always has an
 * answer, must agree on the cost when every row was assigned. */
#include <stdlib.h>

#include "fuzz_common.h"

/* Solve and check; GCUT_OK or GCUT_E_INFEASIBLE (the latter never with
 * GCUT_ASSIGN_PARTIAL). */
static gcut_status solve_verified(gcut_context *ctx, const gcut_assign_input *in, unsigned flags,
                                  int32_t *row_to_col, int64_t *prices, int64_t *total)
{
    gcut_status st = gcut_assign_csr(ctx, in->rows, in->cols, in->row_ptr, in->col_idx, in->cost,
                                     flags, "csa", row_to_col, total, prices);
    if (st == GCUT_E_INFEASIBLE && !(flags & GCUT_ASSIGN_PARTIAL))
        return st;
    if (st != GCUT_OK ||
        gcut_assign_verify(ctx, in->rows, in->cols, in->row_ptr, in->col_idx, in->cost, flags,
                           row_to_col, *total, prices, NULL) != GCUT_OK)
        abort();
    return GCUT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gcut_context *ctx = fuzz_context();
    /* 0 (integers only) or a scale from 1/16 to 15.9375. */
    const double scale = data[0] & 0x80 ? (double)(data[0] & 0x7f) / 8.0 : 0.0;
    const char *path = fuzz_temp_file(data + 1, size - 1);
    gcut_assign_input *in = NULL;
    if (!path || gcut_assign_read(ctx, path, scale, &in) != GCUT_OK)
        return 0;
    if (in->rows <= 64 && in->cols <= 64 && in->arcs <= 4096) {
        int32_t *row_to_col = malloc(((size_t)in->rows + 1) * sizeof *row_to_col);
        int64_t *prices = malloc(((size_t)in->rows + in->cols + 1) * sizeof *prices);
        if (!row_to_col || !prices)
            abort();
        int64_t total = 0, partial_total = 0;
        gcut_status st = solve_verified(ctx, in, 0, row_to_col, prices, &total);
        solve_verified(ctx, in, GCUT_ASSIGN_PARTIAL, row_to_col, prices, &partial_total);
        if (st == GCUT_OK && total != partial_total)
            abort();
        free(row_to_col);
        free(prices);
    }
    gcut_assign_input_destroy(in);
    return 0;
}
