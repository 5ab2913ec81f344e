/* The GPU entry points of a build without CUDA: no device, ever. */
#include <stdio.h>

#include "core/context.h"
#include "gpu/gpu.h"

int gcut_cuda_built(void) { return 0; }

int gcut__gpu_count(void) { return 0; }

gcut_status gcut__gpu_name(gcut_context *ctx, int index, char *buf, size_t buf_size)
{
    (void)buf;
    (void)buf_size;
    return gcut__fail(ctx, GCUT_E_NODEVICE, "no GPU %d: gcut was built without CUDA", index);
}

void gcut__gpu_release(gcut_context *ctx) { (void)ctx; }

gcut_status gcut__gpu_warm_start(gcut_context *ctx)
{
    (void)ctx;
    return GCUT_OK;
}

/* Without CUDA no grid has residuals on a device. */
gcut_status gcut__gpu_grid_fetch_residuals(gcut_grid *g)
{
    (void)g;
    return GCUT_OK;
}

void gcut__gpu_grid_forget(gcut_grid *g) { (void)g; }
