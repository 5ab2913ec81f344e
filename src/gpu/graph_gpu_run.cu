/* The GPU general-graph solve loops: phase 1 of the worklist, asynchronous
 * and precoloring variants, and the shared phase 2 on the device.
 *
 * Termination is decided on exact heights only: a global relabel (a BFS to
 * convergence) gives every node that can reach the target its distance and
 * every other node hmax; when it leaves no node other than s and t with
 * excess and a finite height, no augmenting path is left (phase 1), or all
 * excess is back at the source (phase 2). Phase 1 then holds a maximum
 * preflow: its value is the sink's excess, and the nodes of height hmax
 * (cut off from the sink) are the source side of a minimum cut. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/graph_gpu_state.h"

typedef struct gcut__gpu_graph gpu_graph;

/* Bounds so that a bug shows as an error, not a hang. */
#define MAX_PUSH_LAUNCHES 200000000LL

/* Push iterations per persistent launch (the counters read between), and
 * push-or-lift rounds per node and iteration. */
#define BATCH 32
#define ROUNDS 4

/* Cycles of the asynchronous kernel per launch, and of the precoloring
 * variant between global relabels. */
#define ASYNC_CYCLES 500
#define COLOR_CYCLES 16

/* Start a solve: flow and excess zero, stamps and counters reset, the
 * source's arcs saturated. Records s->start. Where the relabel runs on the
 * device only the clock: the solve's first relabel does the rest in its
 * own launch (graph_kernels.h). */
static gcut_status start(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    if (!gs->host_relabel)
        return GCUT_OK;
    if (d->m > 0)
        GPU_CHECK(ctx, cudaMemsetAsync(d->flow, 0, (size_t)d->m * sizeof(int32_t), s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d->excess, 0, (size_t)d->n * sizeof(long long), s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d->stamp, 0, (size_t)d->n * sizeof(int32_t), s->stream));
    if (d->chase > 0)
        GPU_CHECK(ctx, cudaMemsetAsync(d->claim, 0, (size_t)d->n * sizeof(int32_t), s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d->counters, 0, GCUT_GCNT_SLOTS * sizeof(unsigned long long),
                                   s->stream));
    GPU_CHECK(ctx, gcut__graph_init_launch(d, s->stream));
    if (d->split)
        GPU_CHECK(ctx, gcut__graph_class_launch(d, s->stream));
fail:
    return st;
}

/* Stop the clock started by start() into *ms (waits). */
static gcut_status stop(gcut_context *ctx, gcut__gpu *s, double *ms)
{
    gcut_status st = GCUT_OK;
    float t = 0;
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    GPU_CHECK(ctx, cudaEventSynchronize(s->stop));
    GPU_CHECK(ctx, cudaEventElapsedTime(&t, s->start, s->stop));
    *ms = t;
fail:
    return st;
}

/* ---- the run's record (graph_gpu_state.h, gcut__gpu_graph_trace) ---- */

/* Append a relabel's cause and worklist (`cause` >= 0) or its depth. */
static void trace_note(struct gcut__gpu_graph_trace *t, int cause, long long value)
{
    static const char letter[GCUT__RL_CAUSES] = {'S', 'D', 'L', 'Y', 'A'};
    const size_t room = sizeof t->line - t->len;
    if (room < 32) {
        if (room > 4 && (t->len < 3 || strcmp(t->line + t->len - 3, "...") != 0))
            t->len += (size_t)snprintf(t->line + t->len, room, "...");
        return;
    }
    int k;
    if (cause >= 0)
        k = snprintf(t->line + t->len, room, "%c%lld", letter[cause], value);
    else if (value >= 0)
        k = snprintf(t->line + t->len, room, "/%lld ", value);
    else
        k = snprintf(t->line + t->len, room, "/? ");
    if (k > 0 && (size_t)k < room)
        t->len += (size_t)k;
}

static void trace_reset(struct gcut__gpu_graph_trace *t)
{
    memset(t->by_cause, 0, sizeof t->by_cause);
    t->relabel_ms = t->certify_ms = 0;
    t->active_max = t->active_sum = t->reads = 0;
    t->pending = 0;
    t->depth_due = 0;
    t->len = 0;
    t->line[0] = 0;
}

/* Events around a launch of `kind` (0 relabel, 1 proof); a launch beyond
 * the pending room goes untimed (the counts stay whole). */
static gcut_status trace_open(gcut_context *ctx, gcut__gpu *s, struct gcut__gpu_graph_trace *t,
                              int *slot)
{
    gcut_status st = GCUT_OK;
    *slot = -1;
    if (!t->ev_ready || t->pending >= GCUT__TRACE_PENDING)
        return GCUT_OK;
    GPU_CHECK(ctx, cudaEventRecord(t->ev[2 * t->pending], s->stream));
    *slot = t->pending;
fail:
    return st;
}

static gcut_status trace_close(gcut_context *ctx, gcut__gpu *s, struct gcut__gpu_graph_trace *t,
                               int slot, int kind)
{
    gcut_status st = GCUT_OK;
    if (slot < 0)
        return GCUT_OK;
    GPU_CHECK(ctx, cudaEventRecord(t->ev[2 * slot + 1], s->stream));
    t->pending_kind[slot] = kind;
    t->pending = slot + 1;
fail:
    return st;
}

/* After a read of the counters (the stream has reached it): the pending
 * launches' times, the worklist's size, the last relabel's depth. */
static gcut_status trace_read(gcut_context *ctx, struct gcut__gpu_graph_trace *t,
                              unsigned long long active, unsigned long long depth)
{
    gcut_status st = GCUT_OK;
    for (int k = 0; k < t->pending; k++) {
        float ms = 0;
        GPU_CHECK(ctx, cudaEventElapsedTime(&ms, t->ev[2 * k], t->ev[2 * k + 1]));
        if (t->pending_kind[k])
            t->certify_ms += ms;
        else
            t->relabel_ms += ms;
    }
    t->pending = 0;
    t->active_sum += active;
    t->last_active = active;
    t->active_max = active > t->active_max ? active : t->active_max;
    t->reads++;
    if (t->depth_due)
        trace_note(t, -1, (long long)depth);
    t->depth_due = 0;
fail:
    return st;
}

/* The exact global relabel on the GPU (one cooperative launch): BFS from
 * the target to convergence, then the active nodes as the current
 * worklist. Nothing is read back here. */
static gcut_status global_relabel(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs, int phase2,
                                  int cause)
{
    gcut_status st = GCUT_OK;
    struct gcut__gpu_graph_trace *t = &gs->trace;
    int slot = -1;
    const gcut__dgraph *d = &gs->dg;
    const int32_t hmax = phase2 ? GCUT_GRAPH_HEIGHT_INF : d->n;
    const int32_t target = phase2 ? d->source : d->sink;
    const int32_t excluded = phase2 ? d->sink : d->source;
    /* Distinct and decreasing within a solve (graph_kernels.h). */
    const int32_t bfs_id = (int32_t)(-1 - gs->stats.relabels);
    /* (A warm re-solve, d->deficits, starts from the state it found.) */
    const int fresh = bfs_id == -1 && !phase2 && !d->deficits;
    if ((st = trace_open(ctx, s, t, &slot)))
        return st;
    GPU_CHECK(ctx, gcut__graph_relabel_launch(d, target, excluded, hmax, bfs_id, phase2, fresh,
                                              s->stream));
    if ((st = trace_close(ctx, s, t, slot, 0)))
        return st;
    gs->stats.relabels++;
    t->by_cause[cause]++;
    if (t->depth_due)
        trace_note(t, -1, -1);
    /* the worklist as last read (none before the run's first read) */
    trace_note(t, cause, t->reads ? (long long)t->last_active : -1);
    t->depth_due = 1;
fail:
    return st;
}

/* Read the counters; *active = the current worklist's size. The stop
 * clock is recorded behind the read, so that the read that ends the phase
 * has already timed it (finish_phase1). */
static gcut_status read_active(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs,
                               unsigned long long *active)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemcpyAsync(gs->h_counters, gs->dg.counters,
                                   GCUT_GCNT_SLOTS * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    GPU_CHECK(ctx, cudaEventSynchronize(s->stop));
    {
        const unsigned long long *c = gs->h_counters;
        const unsigned long long now = c[GCUT_GCNT_SEQ] % 3;
        *active = c[GCUT_GCNT_SIZE0 + now] + c[GCUT_GCNT_MSIZE0 + now] + c[GCUT_GCNT_HSIZE0 + now];
        gs->stats.push_launches = (long long)c[GCUT_GCNT_STEPS];
        st = trace_read(ctx, &gs->trace, *active, c[GCUT_GCNT_DEPTH]);
    }
fail:
    return st;
}

/* ECL-MaxFlow's relabel frequency, max(floor, n^2 / (1000 m)) push
 * iterations. ECL's floor is 100; here it grows with n (n / 400) from
 * GR_FLOOR_LEAST up to GR_FLOOR_MOST: from 262 k nodes on, fewer relabels
 * measured 20-30 % faster on genrmf, while on graphs of a few thousand
 * nodes, whose BFS is a few levels deep, a relabel every 16 steps instead
 * of 100 measured 1.4-2.9x faster (acyclic-dense 2000 and three matrices;
 * bench/results). */
#define GR_FLOOR_LEAST 16
#define GR_FLOOR_MOST 600

static int gr_frequency(const gpu_graph *gs)
{
    const double n = gs->dg.n, m = gs->dg.m > 0 ? gs->dg.m : 1;
    double least = n / 400 > GR_FLOOR_LEAST ? n / 400 : GR_FLOOR_LEAST;
    least = least < GR_FLOOR_MOST ? least : GR_FLOOR_MOST;
    const double f = n * n / (1000.0 * m);
    return f > least ? (f < 1e6 ? (int)f : 1000000) : (int)least;
}

/* Lifts since the last global relabel that call for the next one: the
 * heights have drifted far from the distances after n of them; on graphs
 * under a million nodes n came too soon (2-3 n took 3-9 % off RLG and
 * genrmf, while 2 M nodes and more lost with more than n), hence at least
 * min(3 n, LIFT_FLOOR). */
#define LIFT_FLOOR 1500000ull

static unsigned long long lift_limit(const gpu_graph *gs)
{
    const unsigned long long n = (unsigned long long)gs->dg.n;
    const unsigned long long least = LIFT_FLOOR < 3 * n ? LIFT_FLOOR : 3 * n;
    return least > n + 1 ? least : n + 1;
}

/* The proof that phase 1 is over from the heights as they are
 * (graph_certify.cu); *proved = 1 where it held, the counters then read
 * (the value's parts in them) and the stop clock recorded. */
static gcut_status certify(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs, int *proved)
{
    gcut_status st = GCUT_OK;
    unsigned long long active = 0;
    int slot = -1;
    *proved = 0;
    if ((st = trace_open(ctx, s, &gs->trace, &slot)))
        return st;
    GPU_CHECK(ctx, gcut__graph_certify_launch(&gs->dg, s->stream));
    if ((st = trace_close(ctx, s, &gs->trace, slot, 1)))
        return st;
    gs->stats.certify++;
    if ((st = read_active(ctx, s, gs, &active)))
        return st;
    *proved = gs->h_counters[GCUT_GCNT_CERT] == 1;
    gs->stats.proved += *proved;
fail:
    return st;
}

/* A warm re-solve's push iterations between global relabels: WARM_GR_DEPTHS
 * times the depth of the last one, within [BATCH, the solve's frequency]:
 * its relabels stop once the active nodes have their heights (bfs_stop),
 * so a shallow one is cheap and worth repeating before the heights go
 * stale (a deficit filled: the excess around it climbs a height at a
 * time), while one that had to run deep spaces out the next. Measured
 * (bench/results, H200, 0.1 % batches): relabels of 160-450 levels on
 * genrmf, so about the fixed frequency; 0.84-1.53x the device time of the
 * fixed frequency, 1.3-1.5x on lowered batches. */
#define WARM_GR_DEPTHS 2

static int warm_due(const gpu_graph *gs, int freq)
{
    const unsigned long long depth = gs->h_counters[GCUT_GCNT_DEPTH];
    const unsigned long long due = WARM_GR_DEPTHS * depth;
    return due < BATCH ? BATCH : due > (unsigned long long)freq ? freq : (int)due;
}

/* Worklist push-relabel to the end of one phase: runs of BATCH push
 * iterations (one cooperative launch each, ending early if the worklist
 * empties), with the counters read after each run. A global relabel comes
 * at the relabel frequency, or sooner when the lifts pass lift_limit(), or
 * when the worklist runs dry; the phase ends when one leaves nothing
 * active. A batch that reaches the frequency has its relabel enqueued
 * behind it, before the counters are read (small graphs, whose frequency
 * is a batch: a host round trip less a relabel, and no empty push launch
 * after the last). */
static gcut_status worklist_phase(gcut_graph *g, gcut__gpu *s, gpu_graph *gs, int phase2)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    const int32_t hmax = phase2 ? GCUT_GRAPH_HEIGHT_INF : d->n;
    const int freq = gr_frequency(gs);
    const int batch = BATCH < freq ? BATCH : freq;
    const unsigned long long lifts_due = lift_limit(gs);
    /* the warm re-solve's relabels as often as they are shallow, and its
     * end proved without a BFS where the heights allow (graph_certify.cu) */
    const int adapt = d->deficits && !phase2 && gs->warm_policy != GCUT__WARM_GLOBAL;
    const int prove = adapt && gs->warm_policy == GCUT__WARM_PROVE;
    int due = freq;
    unsigned long long active = 0, lifts_at_gr = 0;
    long long steps_at_gr = gs->stats.push_launches;
    if ((st = global_relabel(ctx, s, gs, phase2, GCUT__RL_START)))
        return st;
    for (;;) {
        if (d->split)
            GPU_CHECK(ctx, gcut__graph_split_push_launch(d, batch, hmax, phase2, ROUNDS,
                                                         s->stream));
        else
            GPU_CHECK(ctx, gcut__graph_push_launch(d, batch, hmax, phase2, ROUNDS, s->stream));
        /* This batch ends at the relabel frequency, or sooner with an
         * empty worklist: a relabel follows either way, so it goes out
         * before the counters are read. It is exact: nothing active after
         * it ends the phase. */
        /* (not in a warm re-solve: an empty worklist there goes to the
         * proof first, not to a BFS of the whole graph) */
        const int ahead = !prove && gs->stats.push_launches - steps_at_gr + batch >= due;
        if (ahead && (st = global_relabel(ctx, s, gs, phase2, GCUT__RL_AHEAD)))
            return st;
        if ((st = read_active(ctx, s, gs, &active)))
            return st;
        if (adapt)
            due = warm_due(gs, freq);
        const unsigned long long lifts = gs->h_counters[GCUT_GCNT_LIFTS];
        if (ahead) {
            if (active == 0)
                break;
        } else if (active == 0 && gs->stats.push_launches == steps_at_gr) {
            /* Not a step since the last relabel, which was exact and left
             * nothing active: it is over, without another BFS. */
            break;
        } else if (active == 0) {
            /* Empty worklist: only an exact relabel, or the proof, can say
             * it is over. */
            int proved = 0;
            if (prove && (st = certify(ctx, s, gs, &proved)))
                return st;
            if (proved)
                break;
            if ((st = global_relabel(ctx, s, gs, phase2, GCUT__RL_DRY)) ||
                (st = read_active(ctx, s, gs, &active)))
                return st;
            if (active == 0)
                break;
        } else if (gs->stats.push_launches - steps_at_gr >= due ||
                   lifts - lifts_at_gr >= lifts_due) {
            const int cause = gs->stats.push_launches - steps_at_gr >= due ? GCUT__RL_DUE
                                                                          : GCUT__RL_LIFTS;
            if ((st = global_relabel(ctx, s, gs, phase2, cause)))
                return st;
        } else {
            continue;
        }
        steps_at_gr = gs->stats.push_launches;
        lifts_at_gr = lifts;
        if (gs->stats.push_launches > MAX_PUSH_LAUNCHES) {
            st = gcut__fail(ctx, GCUT_E_DEVICE,
                            "gpu: push-relabel did not finish in %lld iterations on %d nodes",
                            MAX_PUSH_LAUNCHES, d->n);
            goto fail;
        }
    }
fail:
    return st;
}

/* After phase 1: the flow value and the stop clock. Where the relabel
 * runs on the device the GPU has nothing left to do: the phase ended at a
 * read of the counters just behind its last relabel, which wrote the side
 * from its exact heights and the sink's excess into the counters, and the
 * read recorded the stop clock. With the host's relabel (async) the side
 * is on the host already and the value is the sink's excess. */
static gcut_status finish_phase1(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    if (!gs->host_relabel) {
        float t = 0;
        GPU_CHECK(ctx, cudaEventElapsedTime(&t, s->start, s->stop));
        gs->stats.run_ms = t;
        gs->stats.levels = (long long)gs->h_counters[GCUT_GCNT_LEVELS];
        gs->flow_value = (int64_t)gs->h_counters[GCUT_GCNT_SINK];
    } else {
        /* The sink's excess rides in a pinned slot that no one reads now. */
        GPU_CHECK(ctx, cudaMemcpyAsync(gs->h_counters + GCUT_GCNT_LEFT, d->excess + d->sink,
                                       sizeof(long long), cudaMemcpyDeviceToHost, s->stream));
        if ((st = stop(ctx, s, &gs->stats.run_ms)))
            return st;
        gs->flow_value = (int64_t)gs->h_counters[GCUT_GCNT_LEFT];
    }
fail:
    return st;
}

gcut_status gcut__gpu_graph_run_worklist(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    trace_reset(&gs->trace);
    gcut_status st = start(g->ctx, s, gs);
    if (!st)
        st = worklist_phase(g, s, gs, 0);
    if (!st)
        st = finish_phase1(g->ctx, s, gs);
    return st;
}

gcut_status gcut__gpu_graph_run_warm(gcut_graph *g, gcut__gpu *s, gpu_graph *gs, int64_t count)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    gcut__dgraph *d = &gs->dg;
    trace_reset(&gs->trace);
    /* Stamps, claims and counters start again (a solve's step numbers and
     * BFS ids count from the start); flow and excess stay. */
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d->stamp, 0, (size_t)d->n * sizeof(int32_t), s->stream));
    if (d->chase > 0)
        GPU_CHECK(ctx, cudaMemsetAsync(d->claim, 0, (size_t)d->n * sizeof(int32_t), s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d->counters, 0, GCUT_GCNT_SLOTS * sizeof(unsigned long long),
                                   s->stream));
    if (d->split)
        GPU_CHECK(ctx, gcut__graph_class_launch(d, s->stream));
    GPU_CHECK(ctx, gcut__graph_update_launch(d, gs->d_updates, count, s->stream));
    GPU_CHECK(ctx, gcut__graph_resaturate_launch(d, s->stream));
    d->deficits = 1;
    d->keep_heights = gs->warm_policy == GCUT__WARM_PROVE;
    d->warm_stop = gs->phase1_heights && gs->warm_policy != GCUT__WARM_GLOBAL;
    {
        /* From the heights the last phase 1 left, a batch that leaves
         * nothing to push (raised arcs inside T or inside S) is over once
         * the proof holds, without a BFS. */
        int proved = 0;
        if (d->warm_stop && d->keep_heights && (st = certify(ctx, s, gs, &proved)))
            goto fail;
        st = proved ? GCUT_OK : worklist_phase(g, s, gs, 0);
    }
    d->deficits = 0;
    d->warm_stop = d->keep_heights = 0;
    if (!st)
        st = finish_phase1(ctx, s, gs);
    if (!st)
        gs->flow_value -= (int64_t)gs->h_counters[GCUT_GCNT_DEFICIT];
fail:
    d->deficits = 0;
    d->warm_stop = d->keep_heights = 0;
    return st;
}

void gcut__gpu_graph_trace_log(gcut_context *ctx, const gpu_graph *gs, const char *what)
{
    const struct gcut__gpu_graph_trace *t = &gs->trace;
    if (!ctx->options.log || ctx->options.verbosity < 3)
        return;
    const double rest = gs->stats.run_ms + gs->stats.phase2_ms - t->relabel_ms - t->certify_ms;
    gcut__log(ctx, 3,
              "gpu worklist %s: %.3f ms on the device: %lld push steps; %lld relabels %.3f ms, "
              "%lld levels (start %lld, due %lld, lifts %lld, dry %lld, ahead %lld); %lld proofs "
              "%.3f ms, %lld held; the rest (pushes) %.3f ms; worklist at the reads: max %llu, "
              "mean %.0f; relabels (cause worklist/depth): %s",
              what, gs->stats.run_ms + gs->stats.phase2_ms, gs->stats.push_launches,
              gs->stats.relabels, t->relabel_ms, gs->stats.levels, t->by_cause[GCUT__RL_START],
              t->by_cause[GCUT__RL_DUE], t->by_cause[GCUT__RL_LIFTS], t->by_cause[GCUT__RL_DRY],
              t->by_cause[GCUT__RL_AHEAD], gs->stats.certify, t->certify_ms, gs->stats.proved,
              rest, t->active_max, t->reads ? (double)t->active_sum / (double)t->reads : 0.0,
              t->len ? t->line : "none");
}

gcut_status gcut__gpu_graph_run_phase2(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    if ((st = worklist_phase(g, s, gs, 1)))
        return st;
    GPU_CHECK(ctx, cudaMemsetAsync(d->counters + GCUT_GCNT_LEFT, 0, sizeof(unsigned long long),
                                   s->stream));
    GPU_CHECK(ctx, gcut__graph_count_left_launch(d, s->stream));
    if ((st = stop(ctx, s, &gs->stats.phase2_ms)) ||
        (st = gcut__gpu_graph_read_counters(ctx, s, gs)))
        return st;
    if (gs->h_counters[GCUT_GCNT_LEFT] != 0)
        return gcut__fail(ctx, GCUT_E_DEVICE,
                          "gpu: %llu nodes kept excess after returning it to the source",
                          gs->h_counters[GCUT_GCNT_LEFT]);
    gs->is_flow = 1;
fail:
    return st;
}

/* ---- the precoloring variant ------------------------------------------- */

/* Greedy arc colouring on the host (Wu, He and Hong, 5.3): each arc gets the
 * smallest colour not yet on an arc at either end, so arcs of one colour
 * share no node. At most 2 * maxdeg - 1 colours. */
static gcut_status color_arcs(gcut_graph *g, int32_t *color, int *colors)
{
    const int32_t n = g->n;
    int32_t maxdeg = 0, worst = 0;
    for (int32_t v = 0; v < n; v++) {
        const int32_t deg = g->out_start[v + 1] - g->out_start[v] + g->in_start[v + 1] -
                            g->in_start[v];
        if (deg > maxdeg) {
            maxdeg = deg;
            worst = v;
        }
    }
    if (maxdeg > 512)
        return gcut__fail(g->ctx, GCUT_E_UNSUPPORTED,
                          "color: node %d has %d arcs; the precoloring variant runs a step per "
                          "colour (up to twice that) and takes nodes of at most 512 arcs; use "
                          "worklist",
                          worst + 1, maxdeg);
    int32_t *seen = (int32_t *)malloc((size_t)(2 * maxdeg + 1) * sizeof *seen);
    if (!seen)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "color: out of memory");
    for (int32_t c = 0; c < 2 * maxdeg + 1; c++)
        seen[c] = -1;
    for (int32_t a = 0; a < g->m; a++)
        color[a] = -1;
    int used = 0;
    for (int32_t a = 0; a < g->m; a++) {
        const int32_t ends[2] = {g->arc_tail[a], g->out_head[a]};
        for (int e = 0; e < 2; e++) {
            const int32_t v = ends[e];
            for (int32_t k = g->out_start[v]; k < g->out_start[v + 1]; k++)
                if (color[k] >= 0)
                    seen[color[k]] = a;
            for (int32_t j = g->in_start[v]; j < g->in_start[v + 1]; j++)
                if (color[g->in_arc[j]] >= 0)
                    seen[color[g->in_arc[j]]] = a;
        }
        int32_t c = 0;
        while (seen[c] == a)
            c++;
        color[a] = c;
        if (c + 1 > used)
            used = c + 1;
    }
    free(seen);
    *colors = used;
    return GCUT_OK;
}

/* Colour the uploaded graph once per upload (timed apart from the run). */
static gcut_status ensure_colors(gcut_graph *g, gpu_graph *gs)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    int32_t *color = NULL;
    if (gs->colors > 0 || g->m == 0)
        return GCUT_OK;
    gcut__dgraph *d = &gs->dg;
    if (!gs->color_room) {
        GPU_CHECK(ctx, cudaMalloc((void **)&d->color, (size_t)gs->m_room * sizeof(int32_t)));
        gs->color_room = 1;
    }
    color = (int32_t *)malloc((size_t)g->m * sizeof *color);
    if (!color)
        return gcut__fail(ctx, GCUT_E_NOMEM, "color: out of memory");
    if ((st = color_arcs(g, color, &gs->colors)))
        goto fail;
    GPU_CHECK(ctx, cudaMemcpy((void *)d->color, color, (size_t)g->m * sizeof(int32_t),
                              cudaMemcpyHostToDevice));
fail:
    if (st)
        gs->colors = 0;
    free(color);
    return st;
}

gcut_status gcut__gpu_graph_run_color(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = ensure_colors(g, gs);
    if (st)
        return st;
    const gcut__dgraph *d = &gs->dg;
    long long cycles = 0;
    unsigned long long active = 0;
    if ((st = start(ctx, s, gs)) || (st = global_relabel(ctx, s, gs, 0, GCUT__RL_START)) ||
        (st = read_active(ctx, s, gs, &active)))
        return st;
    while (active > 0) {
        for (int c = 0; c < COLOR_CYCLES; c++) {
            GPU_CHECK(ctx, gcut__graph_color_choose_launch(d, d->n, s->stream));
            for (int32_t k = 0; k < gs->colors; k++)
                GPU_CHECK(ctx, gcut__graph_color_push_launch(d, k, s->stream));
            GPU_CHECK(ctx, gcut__graph_color_lift_launch(d, s->stream));
            cycles++;
        }
        if ((st = global_relabel(ctx, s, gs, 0, GCUT__RL_DUE)) ||
            (st = read_active(ctx, s, gs, &active)))
            return st;
        gs->stats.push_launches = cycles;
        if (gs->stats.push_launches > MAX_PUSH_LAUNCHES) {
            st = gcut__fail(ctx, GCUT_E_DEVICE, "gpu: color did not finish in %lld cycles",
                            MAX_PUSH_LAUNCHES);
            goto fail;
        }
    }
    st = finish_phase1(ctx, s, gs);
    gs->stats.push_launches = cycles;
fail:
    return st;
}

/* ---- the asynchronous variant: global relabel on the host --------------- */

/* Hong's global-relabel-CPU (Wu, He and Hong, Algorithm 4) on the downloaded
 * flows: BFS from the sink over residual arcs; nodes it does not reach get
 * height n (the caller takes their excess out of ExcessTotal: they can
 * never reach the sink again). The exact distances make the labelling
 * valid, so Algorithm 4's first loop (saturating arcs that break it) has
 * nothing to do. */
static void host_relabel(const gcut_graph *g, const int32_t *flow, int32_t *height, int32_t *queue)
{
    const int32_t n = g->n;
    for (int32_t v = 0; v < n; v++)
        height[v] = n;
    int32_t head = 0, tail = 0;
    height[g->sink] = 0;
    queue[tail++] = g->sink;
    while (head < tail) {
        const int32_t x = queue[head++];
        for (int32_t j = g->in_start[x]; j < g->in_start[x + 1]; j++) {
            const int32_t u = g->in_tail[j], a = g->in_arc[j];
            if (height[u] == n && u != g->source && flow[a] < g->out_cap[a]) {
                height[u] = height[x] + 1;
                queue[tail++] = u;
            }
        }
        for (int32_t k = g->out_start[x]; k < g->out_start[x + 1]; k++) {
            const int32_t u = g->out_head[k];
            if (height[u] == n && u != g->source && flow[k] > 0) {
                height[u] = height[x] + 1;
                queue[tail++] = u;
            }
        }
    }
}

gcut_status gcut__gpu_graph_run_async(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    const int32_t n = g->n;
    if (gs->h_room < n) {
        free(gs->h_height);
        free(gs->h_queue);
        gs->h_height = (int32_t *)malloc((size_t)n * sizeof(int32_t));
        gs->h_queue = (int32_t *)malloc((size_t)n * sizeof(int32_t));
        gs->h_room = gs->h_height && gs->h_queue ? n : 0;
        if (!gs->h_room)
            return gcut__fail(ctx, GCUT_E_NOMEM, "async: out of memory for %d nodes", n);
    }
    /* Flows come back through the pinned staging, excess into a host array. */
    int32_t *h_flow = (int32_t *)gs->pinned;
    long long *h_excess = (long long *)malloc((size_t)n * sizeof(long long));
    if (!h_excess)
        return gcut__fail(ctx, GCUT_E_NOMEM, "async: out of memory for %d nodes", n);
    long long total = 0; /* ExcessTotal: what the source sent out */
    for (int32_t k = g->out_start[g->source]; k < g->out_start[g->source + 1]; k++)
        total += g->out_cap[k];
    if ((st = start(ctx, s, gs)))
        goto done;
    for (;;) {
        if (g->m > 0)
            GPU_CHECK(ctx, cudaMemcpyAsync(h_flow, d->flow, (size_t)g->m * sizeof(int32_t),
                                           cudaMemcpyDeviceToHost, s->stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(h_excess, d->excess, (size_t)n * sizeof(long long),
                                       cudaMemcpyDeviceToHost, s->stream));
        GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
        host_relabel(g, h_flow, gs->h_height, gs->h_queue);
        gs->stats.relabels++;
        /* Hong's test: e(s) + e(t) = ExcessTotal, ExcessTotal less the excess
         * on nodes the relabel found cut off from the sink. The source keeps
         * height n, so nothing returns to it in phase 1: e(s) = 0. */
        long long stranded = 0;
        for (int32_t v = 0; v < n; v++)
            if (v != g->source && v != g->sink && gs->h_height[v] >= n)
                stranded += h_excess[v];
        if (h_excess[g->sink] == total - stranded)
            break;
        GPU_CHECK(ctx, cudaMemcpyAsync(d->height, gs->h_height, (size_t)n * sizeof(int32_t),
                                       cudaMemcpyHostToDevice, s->stream));
        GPU_CHECK(ctx, gcut__graph_async_launch(d, ASYNC_CYCLES, s->stream));
        gs->stats.push_launches++;
        if (gs->stats.push_launches > MAX_PUSH_LAUNCHES) {
            st = gcut__fail(ctx, GCUT_E_DEVICE, "gpu: async did not finish in %lld launches",
                            MAX_PUSH_LAUNCHES);
            goto fail;
        }
    }
    /* The side from the last relabel's exact heights. */
    for (int32_t v = 0; v < n; v++)
        g->side[v] = gs->h_height[v] >= n;
    st = finish_phase1(ctx, s, gs);
fail:
done:
    free(h_excess);
    return st;
}
