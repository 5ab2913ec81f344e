/* Host side of the GPU path: what the rest of libgcut may ask of it. Built
 * from the .cu files of src/gpu when CUDA is on, from device_nogpu.c otherwise (which
 * has only the first three: the rest is called only under GCUT_HAVE_CUDA). */
#ifndef GCUT_GPU_GPU_H
#define GCUT_GPU_GPU_H

#include <stddef.h>

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable GPUs; any runtime error (no driver, no device) counts as 0. */
int gcut__gpu_count(void);

/* Name of GPU `index` into buf. */
gcut_status gcut__gpu_name(gcut_context *ctx, int index, char *buf, size_t buf_size);

/* Free the device buffers the context keeps (ctx->gpu). */
void gcut__gpu_release(gcut_context *ctx);

/* The GPU grid solvers (src/gpu/grid_gpu.cu): push-relabel on the device,
 * variant "tiled" (the default) or "lockfree" (the papers' baseline). They
 * fill the grid's solution like the CPU solver: residuals (a preflow),
 * labels (1 = cannot reach the sink in the final residual graph) and the
 * flow; `iterations` = push-relabel launches. GCUT_E_DEVICE_NOMEM when the
 * graph does not fit on the GPU. */
gcut_status gcut__gpu_grid_tiled(gcut_grid *g, int64_t *iterations);
gcut_status gcut__gpu_grid_lockfree(gcut_grid *g, int64_t *iterations);

/* The same in three steps, for benchmarks that time the solve alone:
 * upload the graph, run (variant 0 tiled, 1 lockfree; timed with CUDA
 * events from the first kernel to the flow value), download the solution.
 * run() may be repeated after each upload(). */
gcut_status gcut__gpu_grid_upload(gcut_grid *g);
gcut_status gcut__gpu_grid_run(gcut_grid *g, int variant, int64_t *iterations);
gcut_status gcut__gpu_grid_download(gcut_grid *g);

/* Statistics of the last run: milliseconds (CUDA events), push-relabel
 * launches, BFS launches, global relabels; the device bytes in use; the
 * knobs (see gcut__gpu_grid_tune). */
typedef struct gcut__gpu_grid_stats {
    double run_ms;
    long long push_launches, bfs_launches, relabels;
    size_t device_bytes;
    int sweeps, pushes_per_relabel, bfs_batch, lockfree_cycles;
} gcut__gpu_grid_stats;
gcut_status gcut__gpu_grid_stats_get(gcut_context *ctx, gcut__gpu_grid_stats *stats);

/* Knobs for tuning runs: local sweeps per tiled launch, tiled launches per
 * global relabel, cycles per lock-free launch, BFS launches per read of the
 * convergence counter; values <= 0 keep the current. */
gcut_status gcut__gpu_grid_tune(gcut_context *ctx, int sweeps, int pushes_per_relabel,
                                int lockfree_cycles, int bfs_batch);

/* Device-to-device copy bandwidth in GB/s (bytes read + written per second)
 * over a buffer of `bytes`, the median of `reps` copies. */
gcut_status gcut__gpu_copy_bandwidth(gcut_context *ctx, size_t bytes, int reps, double *gbps);

/* Free the grid buffers only (the state stays). */
void gcut__gpu_release_grid(gcut_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
