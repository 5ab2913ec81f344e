/* Matching results as text files, written whole or not at all. */
#include <stdio.h>

#include "core/context.h"
#include "io/atomic_file.h"

gcut_status gcut_match_write_pairs(gcut_context *ctx, const char *path, int32_t rows,
                                   const int32_t *row_match)
{
    gcut__clear_error(ctx);
    if (!row_match || rows < 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "match: no matching to write");
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(ctx, path, &af);
    if (st)
        return st;
    for (int32_t r = 0; r < rows; r++)
        if (row_match[r] >= 0)
            fprintf(af.fp, "%d %d\n", r + 1, row_match[r] + 1);
    return gcut__atomic_commit(ctx, &af);
}

gcut_status gcut_match_write_cover(gcut_context *ctx, const char *path, int32_t rows, int32_t cols,
                                   const uint8_t *row_cover, const uint8_t *col_cover)
{
    gcut__clear_error(ctx);
    if (!row_cover || !col_cover || rows < 0 || cols < 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "match: no cover to write");
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(ctx, path, &af);
    if (st)
        return st;
    for (int32_t r = 0; r < rows; r++)
        if (row_cover[r])
            fprintf(af.fp, "r %d\n", r + 1);
    for (int32_t c = 0; c < cols; c++)
        if (col_cover[c])
            fprintf(af.fp, "c %d\n", c + 1);
    return gcut__atomic_commit(ctx, &af);
}
