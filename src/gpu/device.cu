/* Device discovery and the context's GPU state for a CUDA build. Any runtime
 * error while probing (no driver, driver too old, no device) means "no
 * device", never a crash. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

extern "C" int gcut_cuda_built(void) { return 1; }

extern "C" int gcut__gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky error */
        return 0;
    }
    return count;
}

extern "C" gcut_status gcut__gpu_name(gcut_context *ctx, int index, char *buf, size_t buf_size)
{
    cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, index);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gcut__fail(ctx, GCUT_E_DEVICE, "cudaGetDeviceProperties(%d): %s", index,
                          cudaGetErrorString(err));
    }
    strncpy(buf, prop.name, buf_size - 1);
    buf[buf_size - 1] = '\0';
    return GCUT_OK;
}

gcut_status gcut__gpu_fail(gcut_context *ctx, cudaError_t err, const char *call,
                           const char *file, int line)
{
    cudaGetLastError();
    gcut_status st = GCUT_E_DEVICE;
    if (err == cudaErrorMemoryAllocation)
        st = GCUT_E_DEVICE_NOMEM;
    else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        st = GCUT_E_NODEVICE;
    return gcut__fail(ctx, st, "gpu: %s failed at %s:%d: %s", call, file, line,
                      cudaGetErrorString(err));
}

/* Free the grid buffers (not the state itself). */
static void free_grid_buffers(gcut__gpu *s)
{
    for (int d = 0; d < 8; d++)
        cudaFree(s->dg.res[d]);
    cudaFree(s->dg.excess);
    cudaFree(s->dg.sink);
    cudaFree(s->dg.height);
    cudaFree(s->dg.flag[0]);
    cudaFree(s->dg.flag[1]);
    cudaFree(s->dg.list[0]);
    cudaFree(s->dg.list[1]);
    cudaFree(s->dg.counters);
    cudaFree(s->dg.mask);
    cudaFree(s->dg.queued);
    cudaFree(s->dg.queue);
    cudaFree(s->d_labels);
    memset(&s->dg, 0, sizeof s->dg);
    s->grid_nodes = 0;
    s->grid_ndirs = 0;
    s->grid_tiles = 0;
    s->grid_owner = NULL;
    s->res_owner = NULL;
    s->d_labels = NULL;
    s->grid_warm = NULL;
}

/* ---- the start-up beside the caller (gcut_context_warm_device) -------- */

typedef struct gpu_warm {
    pthread_t thread;
    int index;
    double begun_ms, ready_ms; /* gcut__now_ms(): asked to start, and the context made */
} gpu_warm;

/* CUDA's start-up: the driver, and the device's primary context, which
 * every later call of any thread on that device shares. Errors are left
 * for the first real call to meet and report. */
static void *warm_device(void *arg)
{
    gpu_warm *w = (gpu_warm *)arg;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && w->index < count &&
        cudaSetDevice(w->index) == cudaSuccess)
        cudaFree(0);
    cudaGetLastError(); /* this thread's sticky error */
    w->ready_ms = gcut__now_ms();
    return NULL;
}

extern "C" gcut_status gcut__gpu_warm_start(gcut_context *ctx)
{
    if (ctx->gpu || ctx->gpu_warm || ctx->options.device == GCUT_DEVICE_CPU)
        return GCUT_OK;
    gpu_warm *w = (gpu_warm *)calloc(1, sizeof *w);
    if (!w)
        return GCUT_OK; /* no start-up beside: the first call starts the device */
    w->index = ctx->options.gpu_index;
    w->begun_ms = gcut__now_ms();
    if (pthread_create(&w->thread, NULL, warm_device, w) != 0) {
        free(w);
        return GCUT_OK;
    }
    ctx->gpu_warm = w;
    return GCUT_OK;
}

/* Wait for the start-up thread, if one runs, and keep how long it took
 * and how long this waited for it. */
static void warm_join(gcut_context *ctx)
{
    gpu_warm *w = (gpu_warm *)ctx->gpu_warm;
    if (!w)
        return;
    double t0 = gcut__now_ms();
    pthread_join(w->thread, NULL);
    ctx->device_wait_ms += gcut__now_ms() - t0;
    ctx->device_start_ms = w->ready_ms - w->begun_ms;
    free(w);
    ctx->gpu_warm = NULL;
}

gcut_status gcut__gpu_acquire(gcut_context *ctx, gcut__gpu **out)
{
    gcut_status st = GCUT_OK;
    warm_join(ctx);
    gcut__gpu *s = (gcut__gpu *)ctx->gpu;
    if (s) {
        GPU_CHECK(ctx, cudaSetDevice(s->device));
        *out = s;
        return GCUT_OK;
    }
    s = (gcut__gpu *)calloc(1, sizeof *s);
    if (!s)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory");
    s->device = ctx->options.gpu_index;
    {
        int count = gcut__gpu_count();
        if (s->device >= count) {
            free(s);
            return gcut__fail(ctx, GCUT_E_NODEVICE, "gpu: no GPU with index %d (%d found)",
                              ctx->options.gpu_index, count);
        }
    }
    GPU_CHECK(ctx, cudaSetDevice(s->device));
    {
        cudaDeviceProp prop;
        GPU_CHECK(ctx, cudaGetDeviceProperties(&prop, s->device));
        snprintf(s->name, sizeof s->name, "%s", prop.name);
    }
    GPU_CHECK(ctx, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    GPU_CHECK(ctx, cudaEventCreate(&s->start));
    GPU_CHECK(ctx, cudaEventCreate(&s->stop));
    GPU_CHECK(ctx, cudaMallocHost((void **)&s->h_counters,
                                  GCUT_CNT_SLOTS * sizeof(unsigned long long)));
    ctx->gpu = s;
    *out = s;
    return GCUT_OK;
fail:
    ctx->gpu = s; /* let release free what was made */
    gcut__gpu_release(ctx);
    return st;
}

extern "C" void gcut__gpu_release(gcut_context *ctx)
{
    if (ctx)
        warm_join(ctx);
    gcut__gpu *s = ctx ? (gcut__gpu *)ctx->gpu : NULL;
    if (!s)
        return;
    cudaSetDevice(s->device);
    if (s->stream)
        cudaStreamSynchronize(s->stream);
    gcut__gpu_grid_save_residuals(ctx, s); /* a grid may outlive its context's buffers */
    free_grid_buffers(s);
    gcut__gpu_release_graph(ctx);
    cudaFreeHost(s->h_counters);
    if (s->start)
        cudaEventDestroy(s->start);
    if (s->stop)
        cudaEventDestroy(s->stop);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    cudaGetLastError();
    free(s);
    ctx->gpu = NULL;
}

extern "C" void gcut__gpu_release_grid(gcut_context *ctx)
{
    gcut__gpu *s = ctx ? (gcut__gpu *)ctx->gpu : NULL;
    if (!s)
        return;
    cudaSetDevice(s->device);
    cudaStreamSynchronize(s->stream);
    gcut__gpu_grid_save_residuals(ctx, s);
    free_grid_buffers(s);
    cudaGetLastError();
}
