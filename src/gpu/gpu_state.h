/* What the GPU path keeps in a context (ctx->gpu) between calls, and the
 * one CUDA-check macro. Internal to src/gpu. */
#ifndef GCUT_GPU_GPU_STATE_H
#define GCUT_GPU_GPU_STATE_H

#include <cuda_runtime.h>

#include "core/context.h"
#include "gpu/gpu.h"
#include "grid_kernels.h"

/* Where the last grid from host arrays spent its time (grid_gpu.cu), for
 * the e2e bench's trace: host clock stamps (gcut__now_ms) at the upload's
 * entry, its buffers reserved, the copies queued, the overflow check back,
 * the labels' start and end; the copies' own record. */
typedef struct gcut__gpu_xfer_trace {
    double upload_in, reserved, queued, checked, finish_in, finish_out;
    double copy_ms, wait_ms;   /* host copies and waits for a slot, summed over threads */
    long long up_bytes;        /* bytes up, device margins included */
    int chunks, workers, timed; /* timed: the pool's marks hold the upload's copies */
} gcut__gpu_xfer_trace;

typedef struct gcut__gpu {
    int device;
    char name[256];
    cudaStream_t stream;
    cudaEvent_t start, stop;

    /* The grid's device buffers, grown on demand and reused across solves. */
    gcut__dgrid dg;
    size_t grid_nodes;       /* nodes each array holds */
    int grid_ndirs;          /* residual arrays allocated */
    size_t grid_tiles;       /* entries of each flag array */
    const void *grid_owner;  /* the gcut_grid whose graph is on the device */
    /* The gcut_grid whose last solve's residuals the buffers hold and its
     * host arrays do not (grid_gpu.cu fetches them on demand), or NULL. */
    const void *res_owner;
    uint8_t *d_labels;       /* grid_nodes bytes: the last solve's labels */

    /* The warm state (grid_gpu_update.cu) whose flow the grid buffers hold;
     * NULL once anything else writes them. */
    void *grid_warm;
    long long warm_starts, cold_starts; /* warm re-solves' starts, over the context's life */

    unsigned long long *h_counters; /* pinned, GCUT_CNT_SLOTS */
    gcut__gpu_xfer_trace xfer_trace;

    /* General graphs' buffers and state (src/gpu/graph_gpu*.cu), or NULL. */
    struct gcut__gpu_graph *graph;

    /* The last grid run's record (gcut__gpu_grid_stats). */
    gcut__gpu_grid_stats grid_stats;

    /* Benchmark knobs of the grid run, the last traced run's cycles, and
     * the grid snapshot (src/gpu/grid_gpu_snapshot.cu). */
    gcut__gpu_grid_knobs grid_knobs;
    gcut__gpu_grid_cycle grid_trace[GCUT__GPU_GRID_TRACE_MAX];
    int grid_trace_n;
    int32_t *grid_snapshot;          /* freed by gcut__gpu_grid_snapshot(g, 0) only */
    size_t grid_snapshot_nodes;
} gcut__gpu;

/* Record a failed CUDA call (call text, file:line, CUDA's message) as the
 * context's error, clear CUDA's sticky error, and return the status:
 * GCUT_E_DEVICE_NOMEM for an allocation failure, GCUT_E_NODEVICE when there
 * is no usable device, else GCUT_E_DEVICE. */
gcut_status gcut__gpu_fail(gcut_context *ctx, cudaError_t err, const char *call,
                           const char *file, int line);

/* Inside a function with `gcut_status st` and a `fail:` label. */
#define GPU_CHECK(ctx, call)                                                  \
    do {                                                                      \
        cudaError_t gpu_err_ = (call);                                        \
        if (gpu_err_ != cudaSuccess) {                                        \
            st = gcut__gpu_fail((ctx), gpu_err_, #call, __FILE__, __LINE__);  \
            goto fail;                                                        \
        }                                                                     \
    } while (0)

/* Save the residuals of s->res_owner into its host arrays (before the
 * buffers are written for another grid or freed). */
gcut_status gcut__gpu_grid_save_residuals(gcut_context *ctx, gcut__gpu *s);

/* The context's GPU state, created on first use (device chosen by the
 * context's gpu_index, stream, events, pinned counters). */
gcut_status gcut__gpu_acquire(gcut_context *ctx, gcut__gpu **out);

#ifdef __cplusplus
extern "C" {
#endif
/* Bench only (grid-e2e-bench declares it too): the last grid's transfer
 * trace as one JSON object, its stamps in ms after `t0`. */
gcut_status gcut__gpu_grid_xfer_trace_json(gcut_context *ctx, double t0, char *buf, size_t size);
#ifdef __cplusplus
}
#endif

#endif
