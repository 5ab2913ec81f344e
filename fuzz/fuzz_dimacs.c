/* Fuzz target "dimacs": the general-graph DIMACS reader. A graph it accepts
 * is solved by both CPU solvers, which must agree and pass the proof
 * checker: a reader bug that builds a wrong graph shows up there. */
#include <stdlib.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcut_context *ctx = fuzz_context();
    const char *path = fuzz_temp_file(data, size);
    gcut_graph *g = NULL;
    if (!path || gcut_graph_read_dimacs(ctx, path, &g) != GCUT_OK)
        return 0;
    if (gcut_graph_nodes(g) <= (1 << 16)) {
        gcut_solve_info prf, bk;
        if (gcut_graph_solve(g, "prf", 0, &prf) != GCUT_OK || gcut_graph_verify(g, NULL) != GCUT_OK)
            abort();
        if (gcut_graph_solve(g, "bk", 0, &bk) != GCUT_OK || gcut_graph_verify(g, NULL) != GCUT_OK)
            abort();
        if (prf.flow != bk.flow)
            abort();
    }
    gcut_graph_destroy(g);
    return 0;
}
