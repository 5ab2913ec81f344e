/* The device choice shared by the grid and general-graph solver tables. */
#include "core/solver_device.h"

gcut_status gcut__solver_device(gcut_context *ctx, const char *module, const char *algo,
                                int algo_on_gpu, int have_gpu_solver, int *on_gpu)
{
    gcut_device want = ctx ? ctx->options.device : GCUT_DEVICE_CPU;
    int devices = 0;
    if (want != GCUT_DEVICE_CPU && ctx)
        gcut_device_count(ctx, &devices);

    if (algo_on_gpu >= 0) {
        if (algo_on_gpu && want == GCUT_DEVICE_CPU)
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "%s: algorithm '%s' runs on the GPU, but the CPU was asked for",
                              module, algo);
        if (!algo_on_gpu && want == GCUT_DEVICE_GPU)
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "%s: algorithm '%s' runs on the CPU, but the GPU was asked for",
                              module, algo);
        if (algo_on_gpu && devices == 0)
            return gcut__fail(ctx, GCUT_E_NODEVICE, "%s: algorithm '%s' needs a GPU, and %s",
                              module, algo,
                              gcut_cuda_built() ? "none is usable" : "gcut was built without CUDA");
        *on_gpu = algo_on_gpu;
        return GCUT_OK;
    }
    if (want == GCUT_DEVICE_GPU) {
        if (!gcut_cuda_built())
            return gcut__fail(ctx, GCUT_E_NODEVICE, "%s: no GPU: gcut was built without CUDA",
                              module);
        if (devices == 0)
            return gcut__fail(ctx, GCUT_E_NODEVICE, "%s: no usable GPU was found", module);
        if (!have_gpu_solver)
            return gcut__fail(ctx, GCUT_E_UNSUPPORTED, "%s: this build has no GPU %s solver",
                              module, module);
        *on_gpu = 1;
        return GCUT_OK;
    }
    *on_gpu = want == GCUT_DEVICE_AUTO && have_gpu_solver && devices > 0;
    if (want == GCUT_DEVICE_AUTO && !*on_gpu)
        gcut__log(ctx, 1, "%s: solving on the CPU",
                  !gcut_cuda_built() ? "no GPU (gcut was built without CUDA)"
                  : devices == 0     ? "no usable GPU"
                                     : "no GPU solver of this kind in this build");
    return GCUT_OK;
}
