/* gcut_assign_write_pairs: an assignment as "ROW COL COST" lines. */
#include <stdio.h>

#include "core/context.h"
#include "io/atomic_file.h"

gcut_status gcut_assign_write_pairs(gcut_context *ctx, const char *path, int32_t rows,
                                    const int64_t *row_ptr, const int32_t *col_idx,
                                    const int32_t *cost, unsigned flags,
                                    const int32_t *row_to_col)
{
    if (!path || rows < 0 || (rows > 0 && (!row_ptr || !row_to_col)))
        return gcut__fail(ctx, GCUT_E_INVALID, "assign: nothing to write");
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(ctx, path, &af);
    if (st)
        return st;
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    for (int32_t r = 0; r < rows; r++) {
        const int32_t c = row_to_col[r];
        if (c < 0)
            continue;
        int64_t best = INT64_MAX;
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
            if (col_idx[k] == c && sign * cost[k] < best)
                best = sign * cost[k];
        if (best == INT64_MAX) {
            gcut__atomic_abort(&af);
            return gcut__fail(ctx, GCUT_E_INVALID, "assign: row %d takes column %d, not an arc",
                              r + 1, c + 1);
        }
        fprintf(af.fp, "%d %d %lld\n", r + 1, c + 1, (long long)(sign * best));
    }
    return gcut__atomic_commit(ctx, &af);
}
