/* Host side of the GPU path: what the rest of libgcut may ask of it. Built
 * from the .cu files of src/gpu when CUDA is on, from device_nogpu.c otherwise (which
 * has only the calls up to gcut__gpu_grid_forget(): the rest is called only
 * under GCUT_HAVE_CUDA). */
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

/* Start the context's GPU on a thread of its own (CUDA's start-up), so
 * that it runs beside what the caller does next; the first GPU call joins
 * it (gcut_context_warm_device()). Nothing to do without CUDA or a GPU. */
gcut_status gcut__gpu_warm_start(gcut_context *ctx);

/* After a GPU grid solve the residuals stay on the device
 * (g->res_on_device): fetch them into g->res (gcut_grid_verify() does), or
 * forget them (the grid is destroyed or solved again). */
gcut_status gcut__gpu_grid_fetch_residuals(gcut_grid *g);
void gcut__gpu_grid_forget(gcut_grid *g);

/* The GPU grid solvers (src/gpu/grid_gpu*.cu): push-relabel on the device,
 * variant "tiled" (the default) or "lockfree" (the papers' baseline). They
 * fill the grid's solution like the CPU solver: labels (1 = cannot reach
 * the sink in the final residual graph) and the flow, and the residuals (a
 * preflow) left on the device until fetched (g->res_on_device);
 * `iterations` = push-relabel launches. They check the capacities for
 * overflow on the device, as gcut__grid_check_overflow() does on the host.
 * GCUT_E_DEVICE_NOMEM when the graph does not fit on the GPU. */
gcut_status gcut__gpu_grid_tiled(gcut_grid *g, int64_t *iterations);
gcut_status gcut__gpu_grid_lockfree(gcut_grid *g, int64_t *iterations);

/* Variants of gcut__gpu_grid_run(). */
enum { GCUT__GPU_GRID_TILED = 0, GCUT__GPU_GRID_LOCKFREE = 1 };

/* The same in three steps, for benchmarks that time the solve alone:
 * upload the graph (and check it for overflow on the device), run (timed
 * with CUDA events from the first kernel to the flow value), download the
 * solution (labels and residuals). run() may be repeated after each
 * upload(). */
gcut_status gcut__gpu_grid_upload(gcut_grid *g);
gcut_status gcut__gpu_grid_run(gcut_grid *g, int variant, int64_t *iterations);
gcut_status gcut__gpu_grid_download(gcut_grid *g);
/* After a run: the labels down, the residuals left on the device. */
gcut_status gcut__gpu_grid_finish(gcut_grid *g);

/* The device buffers sized for `g`, for a caller that writes the graph on
 * the device itself (segment_gpu.cu) and then marks it as uploaded. */
gcut_status gcut__gpu_grid_reserve(gcut_grid *g);

/* Before writing the reserved buffers again for `g`: another grid's
 * residuals still on the device go to its host arrays first. */
gcut_status gcut__gpu_grid_claim(gcut_grid *g);

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

/* A record of each global relabel of a traced grid run (gcut__gpu_grid_knobs'
 * trace): what it left (active pixels and tiles, the excess they hold, the
 * pixels cut off from the sink and the excess stranded on them, the largest
 * finite height), its time and the push phase's after it (the run waits for
 * each, so a traced run is slower than an untraced one). */
typedef struct gcut__gpu_grid_cycle {
    long long active_px, active_tiles, active_excess;
    long long cutoff_px, cutoff_excess, height_max;
    int push_launches;
    float relabel_ms, push_ms;
} gcut__gpu_grid_cycle;
#define GCUT__GPU_GRID_TRACE_MAX 256

/* Knobs of the tiled grid run for benchmarks (src/gpu/grid_gpu_run.cu);
 * 0 keeps the default, a negative value turns a part off. Kept in the
 * context for its later runs. `trace`: fill gcut__gpu_grid_trace_get()'s
 * record. */
typedef struct gcut__gpu_grid_knobs {
    int sweeps;        /* sweeps of a tile run */
    int push_launches; /* tiled launches a push phase */
    int cap_margin;    /* the push launches' height cap above the relabel's largest height */
    int trace;
} gcut__gpu_grid_knobs;
gcut_status gcut__gpu_grid_knobs_set(gcut_context *ctx, const gcut__gpu_grid_knobs *knobs);

/* The last traced run's cycles (at most GCUT__GPU_GRID_TRACE_MAX): *n, and
 * the initial cancel's flow (what the terminals sent straight through). */
gcut_status gcut__gpu_grid_trace_get(gcut_context *ctx, const gcut__gpu_grid_cycle **cycles,
                                     int *n);

/* For benchmarks: keep a device copy of the uploaded graph (`op` 1), put
 * it back so that the graph counts as uploaded again (2, after a run), or
 * free it (0). The copy takes (ndirs + 2) x 4 bytes a node besides the
 * solver's buffers. */
gcut_status gcut__gpu_grid_snapshot(gcut_grid *g, int op);
/* Warm re-solves (src/gpu/grid_gpu_update.cu). The "tiled" solver of the
 * library: as gcut__gpu_grid_tiled, but it keeps the flow on the device
 * (g->warm) and starts the next solve from it, sending up only the
 * terminals and pairs the grid's setters changed; cold when the device
 * grid was used for anything else meanwhile. */
gcut_status gcut__gpu_grid_tiled_warm(gcut_grid *g, int64_t *iterations);

/* The segmentation energy's warm cuts (graph/grid_energy.c): begin right
 * after gcut__seg_gpu_set_nlinks (the n-links are kept from the device
 * grid, each pixel's colour goes up); seeds with every new state; then per
 * cut the terminals from the colour table (tcap, colors + 2 entries),
 * applied to the last flow, or written afresh when there is none, after
 * which gcut__seg_gpu_solve runs the cut; solved() takes its status and
 * makes g->flow the whole flow. fetch_graph copies the graph as set into
 * the grid's host capacities. */
gcut_status gcut__gpu_warm_seg_begin(gcut_grid *g, const uint32_t *colour_of_pixel,
                                     int64_t colors);
gcut_status gcut__gpu_warm_seg_seeds(gcut_grid *g, const uint8_t *seeds);
gcut_status gcut__gpu_warm_seg_terminals(gcut_grid *g, const int32_t *tcap);
void gcut__gpu_warm_seg_solved(gcut_grid *g, gcut_status st);
gcut_status gcut__gpu_warm_fetch_graph(gcut_grid *g);
/* The same with the terminals as set (the raises of the reparametrised
 * cuts taken off), for writing the graph out; the grid no longer counts as
 * solved. fetch_graph gives the terminals as used and their raises' sum in
 * g->terminal_offset, for gcut_grid_verify(). */
gcut_status gcut__gpu_warm_fetch_graph_as_set(gcut_grid *g);

/* How many of the context's warm-capable GPU solves started from the kept
 * flow and how many from no flow (for the checks: the warm path must run). */
void gcut__gpu_warm_counts(gcut_context *ctx, long long *warm, long long *cold);

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
    long long levels; /* BFS levels of phase 1's global relabels, all together */
    long long certify, proved; /* a warm re-solve's proofs tried, and held */
} gcut__gpu_graph_stats;
gcut_status gcut__gpu_graph_stats_get(gcut_context *ctx, gcut__gpu_graph_stats *stats);

/* For benchmarks and checks: how the warm re-solve relabels and ends.
 * PROVE (the default): from the heights the last phase 1 left, relabels
 * that stop once the active nodes have theirs and keep the heights beyond,
 * as often as they are shallow, and the end proved from the heights
 * without a BFS where they allow (general_kernels/graph_certify.cu);
 * ADAPT: the same relabels (heights beyond set to the depth plus one), the
 * end by a BFS of the whole graph; GLOBAL: as a solve from scratch, a
 * whole-graph BFS first and then at the fixed frequency. */
enum { GCUT__WARM_PROVE = 0, GCUT__WARM_ADAPT = 1, GCUT__WARM_GLOBAL = 2 };
gcut_status gcut__gpu_graph_set_warm_policy(gcut_context *ctx, int policy);

/* Free the general-graph buffers and state (called by gcut__gpu_release). */
void gcut__gpu_release_graph(gcut_context *ctx);

/* ---- assignment (src/gpu/assign_gpu.cu) ------------------------------- */

/* Bytes (device and pinned) of the dense assignment's buffers that the
 * context keeps between solves; 0 when none are kept (for the checks). */
size_t gcut__gpu_assign_kept_bytes(gcut_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
