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
#include <stdlib.h>
#include <string.h>

#include "gpu/graph_gpu_state.h"

typedef struct gcut__gpu_graph gpu_graph;

/* Bounds so that a bug shows as an error, not a hang. */
#define MAX_PUSH_LAUNCHES 200000000LL

/* Start a solve: flow and excess zero, stamps and counters reset, the
 * source's arcs saturated. Records s->start. With gs->fresh (lean bit
 * 1024, graph_gpu.cu) only the clock: the solve's first relabel does the
 * rest in its own launch (graph_kernels.h), in place of four memsets and
 * two small launches. */
static gcut_status start(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    if (gs->fresh)
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
    if (d->light_max > 0)
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

/* The exact global relabel on the GPU (one cooperative launch): BFS from
 * the target to convergence, then the active nodes as the current
 * worklist. Nothing is read back here. */
static gcut_status global_relabel(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs, int phase2)
{
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    const int32_t hmax = phase2 ? GCUT_GRAPH_HEIGHT_INF : d->n;
    const int32_t target = phase2 ? d->source : d->sink;
    const int32_t excluded = phase2 ? d->sink : d->source;
    /* Distinct and decreasing within a solve (graph_kernels.h). */
    const int32_t bfs_id = (int32_t)(-1 - gs->stats.relabels);
    const int fresh = gs->fresh && bfs_id == -1 && !phase2;
    GPU_CHECK(ctx, gcut__graph_relabel_launch(d, target, excluded, hmax, bfs_id, phase2,
                                              d->light_max > 0, fresh, s->stream));
    gs->stats.relabels++;
fail:
    return st;
}

/* Read the counters; *active = the current worklist's size. With
 * gs->finish_ahead the stop clock is recorded behind the read, so that the
 * read that ends the phase has already timed it (finish_phase1). */
static gcut_status read_active(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs,
                               unsigned long long *active)
{
    gcut_status st = GCUT_OK;
    if (gs->finish_ahead) {
        GPU_CHECK(ctx, cudaMemcpyAsync(gs->h_counters, gs->dg.counters,
                                       GCUT_GCNT_SLOTS * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, s->stream));
        GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
        GPU_CHECK(ctx, cudaEventSynchronize(s->stop));
    } else {
        st = gcut__gpu_graph_read_counters(ctx, s, gs);
    }
    if (!st) {
        const unsigned long long *c = gs->h_counters;
        const unsigned long long now = c[GCUT_GCNT_SEQ] % 3;
        *active = c[GCUT_GCNT_SIZE0 + now] + c[GCUT_GCNT_MSIZE0 + now] + c[GCUT_GCNT_HSIZE0 + now];
        gs->stats.push_launches = (long long)c[GCUT_GCNT_STEPS];
        gs->stats.bfs_levels = (long long)c[GCUT_GCNT_LEVELS];
    }
fail:
    return st;
}

/* Lean bit 524288 (graph_gpu.cu): a push batch that reaches the relabel
 * frequency has its relabel enqueued behind it, before the counters are
 * read (worklist_phase). */
#define RELABEL_AHEAD 524288

/* The least floor of the relabel frequency (graphs under 6400 nodes). */
#define GR_FLOOR_LEAST 16

/* ECL-MaxFlow's relabel frequency, max(floor, n^2 / (1000 m)) push
 * launches, unless a knob fixes it. ECL's floor is 100; here it grows with
 * n (n / 400) from 16 up to the gr_floor knob (600): from 262 k nodes on,
 * fewer relabels measured 20-30 % faster on genrmf (bench/results), while
 * on graphs of a few thousand nodes, whose BFS is a few levels deep, a
 * relabel every 16 steps instead of 100 measured 1.4-2.9x faster (round
 * 6: acyclic-dense 2000 and three matrices), and 600 up to 3.4x slower.
 * Round 11 measured a floor of 12 below 16384 nodes: on sparse graphs
 * (under 64 arcs a node) 6-26 % faster on five matrices but 26 % slower on
 * a sixth; on all, acyclic-dense 2000 61 % slower: not adopted. */
static int gr_frequency(const gpu_graph *gs)
{
    if (gs->knobs.gr_freq > 0)
        return gs->knobs.gr_freq;
    const double n = gs->dg.n, m = gs->dg.m > 0 ? gs->dg.m : 1;
    double least = n / 400 > GR_FLOOR_LEAST ? n / 400 : GR_FLOOR_LEAST;
    least = least < gs->knobs.gr_floor ? least : gs->knobs.gr_floor;
    const double f = n * n / (1000.0 * m);
    return f > least ? (f < 1e6 ? (int)f : 1000000) : (int)least;
}

/* Worklist push-relabel to the end of one phase: runs of `batch` push
 * iterations (one cooperative launch each, ending early if the worklist
 * empties), with the counters read after each run. A global relabel comes
 * every gr_freq iterations, or sooner when the lifts since the last one
 * pass n * gr_lifts / 4, or min(3 n, gr_lift_floor) if more (the heights
 * have drifted far from the distances), or when the worklist runs dry;
 * the phase ends when one leaves nothing active. With RELABEL_AHEAD, a
 * batch that reaches the frequency has its relabel enqueued behind it
 * (round 10, one call: acyclic-dense n = 2000 0.659 -> 0.619 ms, and
 * 0.591 -> 0.562-0.593 with the heavy-wide instance; within noise on
 * n = 4000 and the matrices). */
static gcut_status worklist_phase(gcut_graph *g, gcut__gpu *s, gpu_graph *gs, int phase2)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    const int32_t hmax = phase2 ? GCUT_GRAPH_HEIGHT_INF : d->n;
    const int freq = gr_frequency(gs);
    const int batch = gs->knobs.batch < freq ? gs->knobs.batch : freq;
    unsigned long long lift_limit =
        gs->knobs.gr_lifts > 0 ? (unsigned long long)d->n * gs->knobs.gr_lifts / 4 + 1 : ~0ull;
    if (gs->knobs.gr_lifts > 0 && gs->knobs.gr_lift_floor > 0) {
        const unsigned long long cap = 3ull * (unsigned long long)d->n;
        const unsigned long long least = (unsigned long long)gs->knobs.gr_lift_floor < cap
                                             ? (unsigned long long)gs->knobs.gr_lift_floor
                                             : cap;
        lift_limit = least > lift_limit ? least : lift_limit;
    }
    unsigned long long active = 0, lifts_at_gr = 0;
    long long steps_at_gr = gs->stats.push_launches;
    gs->stats.gr_freq = freq;
    if ((st = global_relabel(ctx, s, gs, phase2)))
        return st;
    for (;;) {
        if (d->light_max > 0)
            GPU_CHECK(ctx, gcut__graph_split_push_launch(d, batch, hmax, phase2, gs->knobs.rounds,
                                                         s->stream));
        else
            GPU_CHECK(ctx, gcut__graph_push_launch(d, batch, hmax, phase2, gs->knobs.rounds,
                                                   s->stream));
        /* RELABEL_AHEAD: this batch ends at the relabel frequency, or
         * sooner with an empty worklist: a relabel follows either way, so
         * it goes out before the counters are read (small graphs, whose
         * frequency is a batch: a host round trip less a relabel, and no
         * empty push launch after the last). It is exact: nothing active
         * after it ends the phase. */
        const int ahead = (d->lean & RELABEL_AHEAD) &&
                          gs->stats.push_launches - steps_at_gr + batch >= freq;
        if (ahead && (st = global_relabel(ctx, s, gs, phase2)))
            return st;
        if ((st = read_active(ctx, s, gs, &active)))
            return st;
        const unsigned long long lifts = gs->h_counters[GCUT_GCNT_LIFTS];
        if (ahead) {
            if (active == 0)
                break;
        } else if (active == 0 && gs->stats.push_launches == steps_at_gr) {
            /* Not a step since the last relabel, which was exact and left
             * nothing active: it is over, without another BFS. */
            break;
        } else if (active == 0) {
            /* Empty worklist: only an exact relabel can say it is over. */
            if ((st = global_relabel(ctx, s, gs, phase2)) ||
                (st = read_active(ctx, s, gs, &active)))
                return st;
            if (active == 0)
                break;
        } else if (gs->stats.push_launches - steps_at_gr >= freq ||
                   lifts - lifts_at_gr >= lift_limit) {
            if ((st = global_relabel(ctx, s, gs, phase2)))
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

/* After phase 1: the cut side from the exact heights, the value from the
 * sink's excess, the statistics. With gs->finish_ahead (lean bit 2048) the
 * GPU has nothing left to do: the phase ended at a read of the counters
 * just behind its last relabel, which wrote the side from its exact
 * heights (side_ahead) and the sink's excess into the counters, and the
 * read recorded the stop clock. Exact by construction: the same heights,
 * the same rule, the same value; only a launch, a copy and a host round
 * trip fewer. */
static gcut_status finish_phase1(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = GCUT_OK;
    const gcut__dgraph *d = &gs->dg;
    if (gs->finish_ahead && !gs->side_on_host) {
        float t = 0;
        GPU_CHECK(ctx, cudaEventElapsedTime(&t, s->start, s->stop));
        gs->stats.run_ms = t;
        gs->flow_value = (int64_t)gs->h_counters[GCUT_GCNT_SINK];
    } else {
        if (!gs->side_on_host)
            GPU_CHECK(ctx, gcut__graph_side_launch(d, s->stream));
        /* The sink's excess (the flow value) rides in a pinned slot that the
         * counters read below overwrites. */
        GPU_CHECK(ctx, cudaMemcpyAsync(gs->h_counters + GCUT_GCNT_LEFT, d->excess + d->sink,
                                       sizeof(long long), cudaMemcpyDeviceToHost, s->stream));
        if ((st = stop(ctx, s, &gs->stats.run_ms)))
            return st;
        gs->flow_value = (int64_t)gs->h_counters[GCUT_GCNT_LEFT];
        if ((st = gcut__gpu_graph_read_counters(ctx, s, gs)))
            return st;
    }
    gs->stats.lifts = (long long)gs->h_counters[GCUT_GCNT_LIFTS];
    gs->stats.pushes = (long long)gs->h_counters[GCUT_GCNT_PUSHES];
    gs->stats.bfs_levels = (long long)gs->h_counters[GCUT_GCNT_LEVELS];
    gs->stats.relabel_ms = (double)gs->h_counters[GCUT_GCNT_BFS_NS] / 1e6;
    gs->stats.push_ms = (double)gs->h_counters[GCUT_GCNT_PUSH_NS] / 1e6;
    gs->stats.items = (long long)gs->h_counters[GCUT_GCNT_ITEMS];
    if (gs->stats.push_launches < (long long)gs->h_counters[GCUT_GCNT_STEPS])
        gs->stats.push_launches = (long long)gs->h_counters[GCUT_GCNT_STEPS];
    if (d->prof)
        GPU_CHECK(ctx, cudaMemcpy(gs->stats.prof, d->prof,
                                  GCUT_GPROF_SLOTS * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost));
fail:
    return st;
}

gcut_status gcut__gpu_graph_run_worklist(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = start(g->ctx, s, gs);
    if (!st)
        st = worklist_phase(g, s, gs, 0);
    if (!st)
        st = finish_phase1(g->ctx, s, gs);
    return st;
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

/* Greedy arc colouring on the host (seed 000, 5.3): each arc gets the
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
    const double t0 = gcut__now_ms();
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
    gs->stats.color_ms = gcut__now_ms() - t0;
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
    gs->stats.colors = gs->colors;
    long long cycles = 0;
    unsigned long long active = 0;
    if ((st = start(ctx, s, gs)) || (st = global_relabel(ctx, s, gs, 0)) ||
        (st = read_active(ctx, s, gs, &active)))
        return st;
    while (active > 0) {
        for (int c = 0; c < gs->knobs.color_cycles; c++) {
            GPU_CHECK(ctx, gcut__graph_color_choose_launch(d, d->n, s->stream));
            for (int32_t k = 0; k < gs->colors; k++)
                GPU_CHECK(ctx, gcut__graph_color_push_launch(d, k, s->stream));
            GPU_CHECK(ctx, gcut__graph_color_lift_launch(d, s->stream));
            cycles++;
        }
        if ((st = global_relabel(ctx, s, gs, 0)) || (st = read_active(ctx, s, gs, &active)))
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

/* Hong's global-relabel-CPU (seed 000, Algorithm 4) on the downloaded
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
        GPU_CHECK(ctx, gcut__graph_async_launch(d, gs->knobs.async_cycles, s->stream));
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
    gs->side_on_host = 1;
    st = finish_phase1(ctx, s, gs);
fail:
done:
    free(h_excess);
    return st;
}
