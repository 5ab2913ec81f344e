/* A device copy of an uploaded grid, for benchmarks that time many runs
 * of one graph: putting the copy back is a device-to-device copy (a
 * fraction of a millisecond at 8 MP) where an upload moves every array
 * across the bus again (tens of milliseconds). A run reads only the
 * residuals, the excess and the sink residuals the upload wrote (the
 * heights, direction bytes, flags and queue are set by its first global
 * relabel), so those are what the copy holds. */
#include "graph/grid.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

/* The arrays the copy holds, in order: the residuals, excess, sink. */
static int32_t *snapshot_array(gcut__gpu *s, int k)
{
    const int ndirs = s->dg.ndirs;
    return k < ndirs ? s->dg.res[k] : k == ndirs ? s->dg.excess : s->dg.sink;
}

extern "C" gcut_status gcut__gpu_grid_snapshot(gcut_grid *g, int op)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    const size_t nodes = (size_t)s->dg.pitch * s->dg.rows;
    const int arrays = s->dg.ndirs + 2;
    if (op == 0) {
        if (s->grid_snapshot)
            GPU_CHECK(ctx, cudaFree(s->grid_snapshot));
        s->grid_snapshot = NULL;
        s->grid_snapshot_nodes = 0;
        return GCUT_OK;
    }
    if (op == 1) {
        if (s->grid_owner != g)
            return gcut__fail(ctx, GCUT_E_STATE, "gpu: snapshot of a grid that is not uploaded");
        if (s->grid_snapshot && s->grid_snapshot_nodes < nodes * (size_t)arrays) {
            GPU_CHECK(ctx, cudaFree(s->grid_snapshot));
            s->grid_snapshot = NULL;
        }
        if (!s->grid_snapshot) {
            GPU_CHECK(ctx, cudaMalloc((void **)&s->grid_snapshot,
                                      nodes * (size_t)arrays * sizeof(int32_t)));
            s->grid_snapshot_nodes = nodes * (size_t)arrays;
        }
    } else if (!s->grid_snapshot || s->grid_snapshot_nodes < nodes * (size_t)arrays) {
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no grid snapshot to restore");
    }
    for (int k = 0; k < arrays; k++) {
        int32_t *copy = s->grid_snapshot + (size_t)k * nodes, *live = snapshot_array(s, k);
        GPU_CHECK(ctx, cudaMemcpyAsync(op == 1 ? copy : live, op == 1 ? live : copy,
                                       nodes * sizeof(int32_t), cudaMemcpyDeviceToDevice,
                                       s->stream));
    }
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    s->grid_owner = g;
fail:
    return st;
}
