/* The device's copy bandwidth, the ceiling a memory-bound kernel is held
 * against (METHOD.md: count bytes read plus bytes written). */
#include <stdlib.h>

#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

extern "C" gcut_status gcut__gpu_copy_bandwidth(gcut_context *ctx, size_t bytes, int reps,
                                                double *gbps)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    void *d_a = NULL, *d_b = NULL;
    float *ms = (float *)calloc((size_t)(reps > 0 ? reps : 1), sizeof *ms);
    if (!ms)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory");
    GPU_CHECK(ctx, cudaMalloc(&d_a, bytes));
    GPU_CHECK(ctx, cudaMalloc(&d_b, bytes));
    GPU_CHECK(ctx, cudaMemsetAsync(d_a, 1, bytes, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, s->stream));
    for (int i = 0; i < reps; i++) {
        GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(i & 1 ? d_a : d_b, i & 1 ? d_b : d_a, bytes,
                                       cudaMemcpyDeviceToDevice, s->stream));
        GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
        GPU_CHECK(ctx, cudaEventSynchronize(s->stop));
        GPU_CHECK(ctx, cudaEventElapsedTime(&ms[i], s->start, s->stop));
    }
    qsort(ms, (size_t)reps, sizeof *ms, compare_float);
    *gbps = reps > 0 ? 2.0 * (double)bytes / (ms[reps / 2] * 1e-3) / 1e9 : 0.0;
fail:
    cudaFree(d_a);
    cudaFree(d_b);
    free(ms);
    return st;
}
