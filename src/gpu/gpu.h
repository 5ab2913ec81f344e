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

/* The device buffers sized for `g`, for a caller that writes the graph on
 * the device itself (segment_gpu.cu) and then marks it as uploaded. */
gcut_status gcut__gpu_grid_reserve(gcut_grid *g);

/* One cycle of a tiled run (a global relabel and the push phase after it),
 * from the counters the host reads anyway: nothing is added to the solve. */
#define GCUT_GPU_GRID_CYCLES 64
typedef struct gcut__gpu_grid_cycle {
    long long active_pixels, active_tiles; /* left by the relabel */
    long long visits;    /* the relabel's tile visits (persistent relabel; else -1) */
    long long kept;      /* KEEP: tiles whose heights its exact pass kept at first */
    long long checks;    /* KEEP: its first pass's queue claims (0 from scratch) */
    long long tile_runs; /* of the push phase after it */
    int launches;        /* push launches after it */
    float relabel_ms;    /* the relabel and the active count (CUDA events) */
    float start_ms;      /* when the relabel started, from the run's start: the push
                            phase before it took start_ms - the last one's end */
} gcut__gpu_grid_cycle;

/* Statistics of the last run: milliseconds (CUDA events), push-relabel
 * launches, BFS launches, global relabels; the device bytes in use; the
 * knobs (see gcut__gpu_grid_tune); the first GCUT_GPU_GRID_CYCLES cycles
 * (`cycles` of them kept). */
typedef struct gcut__gpu_grid_stats {
    double run_ms, relabel_ms; /* relabel_ms: the part spent in global relabels */
    long long push_launches, bfs_launches, relabels;
    size_t device_bytes;
    int sweeps, pushes_per_relabel, bfs_batch, lockfree_cycles;
    int relabel_worklist, shared_res, push_worklist;
    long long tile_runs; /* tiles run by the pushes (each up to `sweeps` sweeps) */
    int relabel_variant;       /* GCUT_RELABEL_* bits of the persistent relabel, -1 rounds */
    long long relabel_visits;  /* tiles taken by the persistent relabels */
    int cycles;
    gcut__gpu_grid_cycle cycle[GCUT_GPU_GRID_CYCLES];
} gcut__gpu_grid_stats;
gcut_status gcut__gpu_grid_stats_get(gcut_context *ctx, gcut__gpu_grid_stats *stats);

/* Knobs for tuning runs: local sweeps per tiled launch, tiled launches per
 * global relabel, cycles per lock-free launch, BFS launches per read of the
 * convergence counter; values <= 0 keep the current. */
gcut_status gcut__gpu_grid_tune(gcut_context *ctx, int sweeps, int pushes_per_relabel,
                                int lockfree_cycles, int bfs_batch);

/* Variants of the tiled solver's parts, for measuring one against the
 * other: the global relabel as one persistent worklist launch (1, the
 * default parts; 2 + GCUT_RELABEL_* bits of grid_kernels.h for others) or
 * as rounds of launches (0); where pushes keep the in-tile residuals, a
 * GCUT_PUSH_* value of grid_kernels.h (1, the default, is the measured
 * fastest; 0 global memory; 2-6 the shared-memory variants by name); each
 * push phase as pushes_per_relabel launches (0, the default way: 7, and 8
 * on 8-connected grids of 1024 tiles or more; the stats give the one used), one
 * persistent worklist launch (1), launches with the host's read of the
 * count and memsets between (2, as profiled), with nothing between (3),
 * or that and each a programmatic dependent of the one before (4); 4 with
 * twice the launches after a relabel that leaves few active tiles (5),
 * with the push kernel built for 4 blocks a multiprocessor (6), or both
 * (7), or 7 with the rest of a push phase on few active tiles as one
 * worklist launch (8; src/gpu/grid_gpu.cu); values < 0 keep the current. */
gcut_status gcut__gpu_grid_mode(gcut_context *ctx, int relabel_worklist, int shared_res,
                                int push_worklist);

/* The relabel_worklist value of the default relabel with every relabel
 * after a run's first started from the last one's heights (the KEEP part
 * forced, grid_kernels.h), for the checks. */
#define GCUT_GPU_GRID_RELABEL_KEEP_ALWAYS (2 + 4 + 8 + 16 + 64)

/* The relabel_worklist value of the default relabel with SWEEP's first pass
 * in every relabel from scratch (the SWEEP part forced, grid_kernels.h),
 * for the checks. */
#define GCUT_GPU_GRID_RELABEL_SWEEP_ALWAYS (2 + 4 + 8 + 16 + 128 + 256)
/* The same with KEEP forced too (each relabel after a run's first from the
 * last one's heights, so only the first sweeps). */
#define GCUT_GPU_GRID_RELABEL_SWEEP_KEEP_ALWAYS (2 + 4 + 8 + 16 + 64 + 128 + 256)

/* The push_worklist value of the tail worklist mode (8 above), for the checks. */
#define GCUT_GPU_GRID_PUSH_TAIL_WL 8

/* Device-to-device copy bandwidth in GB/s (bytes read + written per second)
 * over a buffer of `bytes`, the median of `reps` copies. */
gcut_status gcut__gpu_copy_bandwidth(gcut_context *ctx, size_t bytes, int reps, double *gbps);

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

/* Knobs; negative values keep the current (defaults in graph_gpu.cu); 0
 * means adaptive for gr_freq and group, off for gr_lifts, gr_lift_floor
 * and profile, and keeps the others. */
typedef struct gcut__gpu_graph_knobs {
    int batch;        /* push iterations per persistent launch (counters read between) */
    int gr_freq;      /* push iterations between global relabels; 0 = adaptive */
    int gr_lifts;     /* also relabel once lifts since the last one pass n * this / 4 */
    int rounds;       /* push-or-lift rounds per node per launch (worklist) */
    int async_cycles; /* KERNEL_CYCLES of the asynchronous variant */
    int color_cycles; /* cycles of the precoloring variant between global relabels */
    int occupancy;    /* blocks of 256 threads per SM in the persistent launches */
    int group;        /* lanes per node (4, 8, 16, 32; default 32); 0 = from the mean degree */
    int light;        /* split push: a thread per node of at most this degree (<= 12; 0 = off) */
    int heavy;        /* split push: a block per node of at least this degree (0 = none) */
    int spread;       /* split push: 1 = push to every lower neighbour, 0 = to the lowest only */
    int aggregate;    /* split push: 1 = one worklist-append atomic per warp, 0 = per node */
    int order;        /* split push: neighbours of equal height by arc code (1), scan order (0) */
    int adapt;        /* 1 = the push kind and order from the graph (graph_gpu.cu), 0 = as set */
    int chase;        /* split push: a thread follows its excess this many nodes a step (0 = off) */
    int lean;         /* split push, light nodes: 1 reuse the first round's loads, 2 one append,
                       * 8 (with 1, 2, not 4, and tie order 0) loops bounded by the degree,
                       * 256 (with 8) loads four entries at a time, 512 (with 256) eight;
                       * heavy nodes: 4 arcs staged once, one scan a round; 16 the light
                       * worklist dealt a lane per warp round the grid; 64 worklist sizes
                       * read once a block; 128 the relabel's BFS ended once every active
                       * node has its distance; 4096 a BFS level's first frontier node
                       * read with its size; 16384 (with 512) a light entry's header loaded
                       * with its claim; 131072 (with 4, not 1, 2) the heavy instance built
                       * for 3 blocks an SM; 524288 a relabel enqueued behind the push batch
                       * that reaches the relabel frequency; 1024 the solve started by its
                       * first relabel; 2048 the side, value and stop clock taken from the
                       * last relabel and counters read (graph_gpu.cu, gcut__dgraph) */
    int gr_floor;     /* gr_freq 0: the frequency's floor grows with n (n / 400, from 16) up
                       * to this */
    int bfs_team;     /* global relabel: 1 = batched entries, warps per node of small frontiers */
    int profile;      /* 1 = time the push steps and BFS levels (stats.prof; slower), 0 = off */
    int gr_lift_floor; /* with gr_lifts: the lift trigger is at least min(3 n, this) lifts;
                        * 0 = none */
} gcut__gpu_graph_knobs;

/* Slots of the profile buffer (gcut__dgraph.prof, general_kernels/; knob
 * `profile`): where a push step's and a BFS level's time goes, from the
 * device clock. A step's (level's) work runs from block 0's start to the
 * last block's end of work, its barrier from there to block 0's next
 * start; the light-node phases are SM cycles summed over the light nodes
 * (hops) discharged. */
enum {
    GCUT_GPROF_STEPS = 0,      /* push steps timed */
    GCUT_GPROF_STEP_WORK = 1,  /* ns: block 0's step start to the last block's end of work */
    GCUT_GPROF_STEP_BAR = 2,   /* ns: that end to block 0's next step start */
    GCUT_GPROF_BLOCK_WORK = 3, /* ns: each block's own step work, summed over blocks */
    GCUT_GPROF_LEVELS = 4,     /* BFS levels timed */
    GCUT_GPROF_LEVEL_WORK = 5, /* ns, as STEP_WORK */
    GCUT_GPROF_LEVEL_BAR = 6,  /* ns, as STEP_BAR */
    GCUT_GPROF_HOPS = 7,       /* light nodes discharged (worklist entries and chased nodes) */
    GCUT_GPROF_LOAD_CYC = 8,   /* cycles: a node's start to its first round's lowest key */
    GCUT_GPROF_ROUND_CYC = 9,  /* cycles: from there to the end of its rounds' pushes */
    GCUT_GPROF_APPEND_CYC = 10, /* cycles: its appends (stamps, list) */
    GCUT_GPROF_ENTRY_CYC = 11, /* cycles: whole light entries (chase and claims included) */
    GCUT_GPROF_ENTRY_MAX = 12, /* cycles: the longest light entry */
    GCUT_GPROF_ENTRIES = 13,   /* light entries */
    GCUT_GPROF_LAST0 = 14,     /* two slots: the last end of work of a step or level (scratch) */
    GCUT_GPROF_SLOTS = 16
};

/* What the last run did. Milliseconds from CUDA events. */
typedef struct gcut__gpu_graph_stats {
    double upload_ms, run_ms, phase2_ms, download_ms, color_ms;
    /* push iterations (worklist), cycles (color), launches (async) */
    long long push_launches, bfs_levels, relabels, lifts, pushes;
    int gr_freq, colors;
    size_t device_bytes;
    /* of run_ms: time in the global relabel and the push kernels (device clock) */
    double relabel_ms, push_ms;
    long long items; /* worklist entries over all push steps */
    int split, order; /* the push that ran: split (graph_split.cu) or warp per node; tie order */
    /* with the profile knob: the GCUT_GPROF_* slots above; the SM clock in
     * kHz, for their cycle counts; the blocks of the push launches */
    unsigned long long prof[GCUT_GPROF_SLOTS];
    int sm_khz, prof_blocks;
} gcut__gpu_graph_stats;

gcut_status gcut__gpu_graph_tune(gcut_context *ctx, const gcut__gpu_graph_knobs *knobs);
gcut_status gcut__gpu_graph_stats_get(gcut_context *ctx, gcut__gpu_graph_stats *stats);

/* Free the general-graph buffers and state (called by gcut__gpu_release). */
void gcut__gpu_release_graph(gcut_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
