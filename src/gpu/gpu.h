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

/* The GPU grid solvers (src/gpu/grid_gpu*.cu): push-relabel on the device,
 * variant "tiled" (the default) or "lockfree" (the papers' baseline). They
 * fill the grid's solution like the CPU solver: residuals (a preflow),
 * labels (1 = cannot reach the sink in the final residual graph) and the
 * flow; `iterations` = push-relabel launches. GCUT_E_DEVICE_NOMEM when the
 * graph does not fit on the GPU. */
gcut_status gcut__gpu_grid_tiled(gcut_grid *g, int64_t *iterations);
gcut_status gcut__gpu_grid_lockfree(gcut_grid *g, int64_t *iterations);

/* Variants of gcut__gpu_grid_run(). */
enum { GCUT__GPU_GRID_TILED = 0, GCUT__GPU_GRID_LOCKFREE = 1 };

/* The same in three steps, for benchmarks that time the solve alone:
 * upload the graph, run (timed with CUDA events from the first kernel to
 * the flow value), download the solution. run() may be repeated after each
 * upload(). */
gcut_status gcut__gpu_grid_upload(gcut_grid *g);
gcut_status gcut__gpu_grid_run(gcut_grid *g, int variant, int64_t *iterations);
gcut_status gcut__gpu_grid_download(gcut_grid *g);

/* The device buffers sized for `g`, for a caller that writes the graph on
 * the device itself (segment_gpu.cu) and then marks it as uploaded. */
gcut_status gcut__gpu_grid_reserve(gcut_grid *g);

/* What the last grid run did: its time (CUDA events), its push launches
 * and global relabels, and how often the size-dependent parts of the
 * tiled solver ran (src/gpu/grid_gpu_run.cu): relabels started from the
 * last one's heights, relabels that swept every tile first, push phases
 * ended by a worklist launch. Device bytes of the grid buffers. */
typedef struct gcut__gpu_grid_stats {
    double run_ms;
    long long push_launches, relabels;
    long long kept_relabels, swept_relabels, worklist_phases;
    size_t device_bytes;
} gcut__gpu_grid_stats;
gcut_status gcut__gpu_grid_stats_get(gcut_context *ctx, gcut__gpu_grid_stats *stats);

/* Free the grid buffers only (the state stays). */
void gcut__gpu_release_grid(gcut_context *ctx);

/* ---- general graphs (src/gpu/graph_gpu*.cu, general_kernels/) ---------- */

/* Variants of the GPU general-graph solver. */
enum { GCUT__GPU_WORKLIST = 0, GCUT__GPU_ASYNC = 1, GCUT__GPU_COLOR = 2 };

/* Solve on the GPU: upload, phase 1 (maximum preflow, value and cut), phase
 * 2 on the device when `flags` has GCUT_GRAPH_SOLVE_FLOW (a feasible flow),
 * download. Fills g->flow, flow_value, is_flow, side like the CPU solvers;
 * `iterations` = push-relabel iterations (see the stats below).
 * GCUT_E_DEVICE_NOMEM when the graph does not fit; GCUT_E_UNSUPPORTED for
 * "color" on a node of more than 512 arcs. */
gcut_status gcut__gpu_graph_solve(struct gcut_graph *g, int variant, unsigned flags,
                                  int64_t *iterations);

/* The same in three steps, for benchmarks that time the solve alone. run()
 * may be repeated after one upload(); its time (CUDA events) excludes the
 * transfers and the precoloring. */
gcut_status gcut__gpu_graph_upload(struct gcut_graph *g);
gcut_status gcut__gpu_graph_run(struct gcut_graph *g, int variant, unsigned flags,
                                int64_t *iterations);
gcut_status gcut__gpu_graph_download(struct gcut_graph *g);

/* A warm re-solve with the worklist variant after gcut_graph_update()
 * (Kannappan et al., section 4): only the arcs in g->gpu_pending go up, a
 * kernel applies them to the flow and excesses the last GPU solve of `g`
 * left on the device, and phase 1 runs again from there with the
 * deficient nodes as extra targets; the result comes back like a solve's,
 * but for the flow: the cut side and the value come back, the flow stays
 * on the device (g->gpu_flow) until asked for (gcut__gpu_graph_fetch).
 * Without that state on the device (another graph went up since) it
 * solves from zero. `flags` as for a solve; a feasible flow is left to
 * the CPU (gcut__prf_return_excess: deficits first). */
gcut_status gcut__gpu_graph_resolve(struct gcut_graph *g, unsigned flags, int64_t *iterations);

/* Where g->gpu_flow: bring the warm re-solve's pseudo-flow from the device
 * (flow[], g->excess, the CPU's residuals; g->warm set), for a feasible
 * flow or a CPU solve from it. */
gcut_status gcut__gpu_graph_fetch(struct gcut_graph *g);

/* What the last run did: phase 1's and phase 2's time (CUDA events),
 * push iterations (worklist), cycles (color) or launches (async), global
 * relabels, and which push ran (1: the split by degree, 0: a warp a node;
 * src/gpu/graph_gpu.cu picks it from the graph). */
typedef struct gcut__gpu_graph_stats {
    double run_ms, phase2_ms;
    long long push_launches, relabels;
    int split;
} gcut__gpu_graph_stats;
gcut_status gcut__gpu_graph_stats_get(gcut_context *ctx, gcut__gpu_graph_stats *stats);

/* Free the general-graph buffers and state (called by gcut__gpu_release). */
void gcut__gpu_release_graph(gcut_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
