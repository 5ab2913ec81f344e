/* What the general-graph GPU path keeps in the context's GPU state between
 * calls (device buffers grown on demand and reused, pinned staging, the
 * last run's record). Internal to src/gpu/graph_gpu*.cu. */
#ifndef GCUT_GPU_GRAPH_GPU_STATE_H
#define GCUT_GPU_GRAPH_GPU_STATE_H

#include <cuda_runtime.h>

#include "gpu/gpu.h"
#include "gpu/gpu_state.h"
#include "graph/csr.h"
#include "graph_kernels.h"

/* Why a worklist run's global relabel ran (graph_gpu_run.cu): the run's
 * first, the step count due, the lifts past their limit, the worklist
 * empty (after a failed proof in a warm re-solve), enqueued ahead of the
 * counters' read at the frequency. */
enum { GCUT__RL_START, GCUT__RL_DUE, GCUT__RL_LIFTS, GCUT__RL_DRY, GCUT__RL_AHEAD,
       GCUT__RL_CAUSES };

/* Relabels and proofs whose CUDA events are not yet read (at most). */
#define GCUT__TRACE_PENDING 4

/* A worklist run's record for the debug log (gcut__log level 3): the
 * relabels by cause, their device time and that of the proofs (CUDA
 * events around each launch, read at the next read of the counters), the
 * worklist sizes at the reads, and each relabel as its cause's letter
 * with its depth and the worklist before it. */
struct gcut__gpu_graph_trace {
    long long by_cause[GCUT__RL_CAUSES];
    double relabel_ms, certify_ms;
    unsigned long long active_max, active_sum, reads, last_active;
    cudaEvent_t ev[2 * GCUT__TRACE_PENDING];
    int ev_ready;               /* the events are created */
    int pending;                /* event pairs recorded, not yet read */
    int pending_kind[GCUT__TRACE_PENDING]; /* 0 a relabel, 1 a proof */
    int depth_due;              /* a relabel's depth is to be noted at the next read */
    char line[768];             /* "S462:3 D455:120 ..." (cut short with "...") */
    size_t len;
};

struct gcut__gpu_graph {
    gcut__dgraph dg;
    int64_t n_room, m_room;     /* nodes and arcs the device arrays hold */
    int color_room;             /* 1 when dg.color is allocated for m_room arcs */
    const gcut_graph *owner;    /* the graph on the device, NULL if none */
    int paired;                 /* most arcs of the uploaded graph have an anti-parallel twin */

    /* Pinned staging, two halves used in turn, each of `half` bytes. */
    unsigned char *pinned;
    size_t half;
    cudaEvent_t staged[2];
    unsigned long long *h_counters; /* pinned, GCUT_GCNT_SLOTS */

    /* Host work arrays of the asynchronous variant's global relabel. */
    int32_t *h_height, *h_queue;
    int64_t h_room;

    /* Warm re-solves (graph_update.cu): `solved` is the graph whose last
     * worklist solve left its flow and excesses in dg (NULL if none), the
     * batch buffer holds `upd_room` updates. */
    const gcut_graph *solved;
    gcut__dupdate *d_updates;
    int64_t upd_room;
    /* dg.height holds what the exact relabel that ended `solved`'s phase 1
     * or proved (no phase 2 since): distances to the targets, or heights
     * that fall to one along residual arcs, n where cut off; warm_policy:
     * GCUT__WARM_* (gcut__gpu_graph_set_warm_policy). */
    int phase1_heights;
    int warm_policy;

    /* Colours of the precoloring variant, for the graph uploaded last. */
    int colors;                 /* 0 until computed */

    /* The run: the global relabel on the host (async) or on the device,
     * which then also starts the solve and leaves the cut side and the
     * flow value (graph_relabel.cu). The last run's result and record. */
    int host_relabel;
    gcut__gpu_graph_stats stats;
    struct gcut__gpu_graph_trace trace;
    int64_t flow_value;
    int is_flow;
};

/* The graph state of the context's GPU state, created on first use. */
gcut_status gcut__gpu_graph_state(gcut_context *ctx, gcut__gpu **gpu, struct gcut__gpu_graph **out);

/* Read the counters into gs->h_counters (waits for the stream). */
gcut_status gcut__gpu_graph_read_counters(gcut_context *ctx, gcut__gpu *s,
                                          struct gcut__gpu_graph *gs);

/* The solve loops (graph_gpu_run.cu): phase 1 of each variant, and the
 * shared phase 2 on the device. */
gcut_status gcut__gpu_graph_run_worklist(gcut_graph *g, gcut__gpu *s, struct gcut__gpu_graph *gs);
gcut_status gcut__gpu_graph_run_async(gcut_graph *g, gcut__gpu *s, struct gcut__gpu_graph *gs);
gcut_status gcut__gpu_graph_run_color(gcut_graph *g, gcut__gpu *s, struct gcut__gpu_graph *gs);
gcut_status gcut__gpu_graph_run_phase2(gcut_graph *g, gcut__gpu *s, struct gcut__gpu_graph *gs);

/* The last run's record (gcut__gpu_graph_trace) as one debug line
 * (gcut__log level 3), `what` naming the run. */
void gcut__gpu_graph_trace_log(gcut_context *ctx, const struct gcut__gpu_graph *gs,
                               const char *what);

/* Phase 1 again from the state the last solve of `g` left in gs->dg, after
 * the `count` updates in gs->d_updates: the worklist solver with the
 * deficient nodes as extra targets; the value is the sink's excess less
 * the deficits left. */
gcut_status gcut__gpu_graph_run_warm(gcut_graph *g, gcut__gpu *s, struct gcut__gpu_graph *gs,
                                     int64_t count);

#endif
