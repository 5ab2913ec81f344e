/* gcut_grid_solve_device() in a build without CUDA: GPU memory cannot be read. */
#include "graph/grid.h"

gcut_status gcut_grid_solve_device(gcut_grid *grid, const int32_t *d_source,
                                   const int32_t *d_sink, const int32_t *const *d_edges,
                                   uint8_t *d_labels, const char *algo, void *stream,
                                   gcut_solve_info *info)
{
    (void)d_source, (void)d_sink, (void)d_edges, (void)d_labels, (void)algo, (void)stream,
        (void)info;
    if (!grid)
        return GCUT_E_INVALID;
    return gcut__fail(grid->ctx, GCUT_E_NODEVICE,
                      "grid: gcut was built without CUDA, so it cannot read GPU arrays");
}
