/* Host side of the GPU general-graph solvers: the device buffers kept in
 * the context (grown on demand, reused), moving a graph to the device and
 * the solution back through pinned staging on the context's one stream,
 * the choice of kernels from the graph, and the entry points. The solve
 * loops are in graph_gpu_run.cu, the kernels in general_kernels/. */
#include <stdlib.h>
#include <string.h>

#include "gpu/graph_gpu_state.h"

typedef struct gcut__gpu_graph gpu_graph;

/* Device bytes for n nodes and m arcs (colours not included). */
static size_t graph_bytes(int64_t n, int64_t m)
{
    return (size_t)m * 5 * sizeof(int32_t) +
           (size_t)n * (14 * sizeof(int32_t) + sizeof(long long) + 2) +
           2 * sizeof(int32_t) + GCUT_GCNT_SLOTS * sizeof(unsigned long long);
}

static void free_buffers(gpu_graph *gs)
{
    gcut__dgraph *d = &gs->dg;
    cudaFree((void *)d->out_start);
    cudaFree((void *)d->out_head);
    cudaFree((void *)d->out_cap);
    cudaFree((void *)d->in_start);
    cudaFree((void *)d->in_tail);
    cudaFree((void *)d->in_arc);
    cudaFree(d->flow);
    cudaFree(d->excess);
    cudaFree(d->height);
    cudaFree(d->stamp);
    cudaFree(d->list[0]);
    cudaFree(d->list[1]);
    for (int k = 0; k < 2; k++) {
        cudaFree(d->mlist[k]);
        cudaFree(d->hlist[k]);
    }
    cudaFree(d->dclass);
    cudaFree(d->claim);
    cudaFree(d->side);
    cudaFree(d->counters);
    cudaFree((void *)d->color);
    cudaFree(d->choice);
    cudaFree(d->lift_to);
    cudaFree(d->cert);
    cudaFreeHost(gs->pinned);
    const int blocks = d->blocks, coop_blocks = d->coop_blocks, split_blocks = d->split_blocks;
    const int dense_blocks = d->dense_blocks;
    memset(d, 0, sizeof *d);
    d->blocks = blocks;
    d->coop_blocks = coop_blocks;
    d->split_blocks = split_blocks;
    d->dense_blocks = dense_blocks;
    gs->pinned = NULL;
    gs->half = 0;
    gs->n_room = gs->m_room = 0;
    gs->color_room = 0;
    gs->owner = NULL;
    gs->solved = NULL;
    gs->phase1_heights = 0;
    gs->colors = 0;
}

extern "C" void gcut__gpu_release_graph(gcut_context *ctx)
{
    gcut__gpu *s = ctx ? (gcut__gpu *)ctx->gpu : NULL;
    if (!s || !s->graph)
        return;
    gpu_graph *gs = s->graph;
    cudaSetDevice(s->device);
    cudaStreamSynchronize(s->stream);
    free_buffers(gs);
    cudaFree(gs->d_updates);
    cudaFreeHost(gs->h_counters);
    for (int k = 0; k < 2; k++)
        if (gs->staged[k])
            cudaEventDestroy(gs->staged[k]);
    for (int k = 0; k < 2 * GCUT__TRACE_PENDING; k++)
        if (gs->trace.ev[k])
            cudaEventDestroy(gs->trace.ev[k]);
    free(gs->h_height);
    free(gs->h_queue);
    cudaGetLastError();
    free(gs);
    s->graph = NULL;
}

gcut_status gcut__gpu_graph_state(gcut_context *ctx, gcut__gpu **gpu, gpu_graph **out)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    *gpu = s;
    if (s->graph) {
        *out = s->graph;
        return GCUT_OK;
    }
    gpu_graph *gs = (gpu_graph *)calloc(1, sizeof *gs);
    if (!gs)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory");
    s->graph = gs;
    {
        /* Enough warps to fill the GPU: 8 blocks of 256 threads per SM. */
        int sms = 0;
        GPU_CHECK(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->device));
        gs->dg.blocks = 8 * (sms > 0 ? sms : 1);
    }
    /* The persistent kernels need every block resident; at most 4 an SM
     * keep the grid barrier cheap. */
    gs->dg.coop_blocks = gcut__graph_coop_blocks(s->device, 4);
    gs->dg.split_blocks = gcut__graph_split_blocks(s->device, 4);
    gs->dg.dense_blocks = gcut__graph_dense_blocks(s->device, 4);
    if (gs->dg.coop_blocks <= 0 || gs->dg.split_blocks <= 0) {
        st = gcut__fail(ctx, GCUT_E_DEVICE, "gpu: %s cannot run the cooperative kernels", s->name);
        goto fail;
    }
    GPU_CHECK(ctx, cudaEventCreateWithFlags(&gs->staged[0], cudaEventDisableTiming));
    GPU_CHECK(ctx, cudaEventCreateWithFlags(&gs->staged[1], cudaEventDisableTiming));
    GPU_CHECK(ctx, cudaMallocHost((void **)&gs->h_counters,
                                  GCUT_GCNT_SLOTS * sizeof(unsigned long long)));
    for (int k = 0; k < 2 * GCUT__TRACE_PENDING; k++)
        GPU_CHECK(ctx, cudaEventCreate(&gs->trace.ev[k]));
    gs->trace.ev_ready = 1;
    *out = gs;
    return GCUT_OK;
fail:
    gcut__gpu_release_graph(ctx);
    return st;
}

/* Make the device arrays hold `g` (grow only) and the pinned staging. */
static gcut_status reserve(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const int64_t n = g->n, m = g->m > 0 ? g->m : 1;
    const size_t half = (size_t)(m > n + 1 ? m : n + 1) * sizeof(int32_t);
    if (n <= gs->n_room && m <= gs->m_room && half <= gs->half)
        return GCUT_OK;
    gcut__dgraph *d = &gs->dg;
    cudaStreamSynchronize(s->stream);
    free_buffers(gs);
    size_t free_bytes = 0, total_bytes = 0;
    GPU_CHECK(ctx, cudaMemGetInfo(&free_bytes, &total_bytes));
    if (graph_bytes(n, m) > free_bytes)
        return gcut__fail(ctx, GCUT_E_DEVICE_NOMEM,
                          "gpu: a graph of %lld nodes and %lld arcs needs %zu MiB on %s, and %zu "
                          "MiB are free",
                          (long long)n, (long long)g->m, graph_bytes(n, m) >> 20, s->name,
                          free_bytes >> 20);
    GPU_CHECK(ctx, cudaMalloc((void **)&d->out_start, (size_t)(n + 1) * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->in_start, (size_t)(n + 1) * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->out_head, (size_t)m * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->out_cap, (size_t)m * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->in_tail, (size_t)m * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->in_arc, (size_t)m * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->flow, (size_t)m * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->excess, (size_t)n * sizeof(long long)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->height, (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->stamp, (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->list[0], (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->list[1], (size_t)n * sizeof(int32_t)));
    for (int k = 0; k < 2; k++) {
        GPU_CHECK(ctx, cudaMalloc((void **)&d->mlist[k], (size_t)n * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&d->hlist[k], (size_t)n * sizeof(int32_t)));
    }
    GPU_CHECK(ctx, cudaMalloc((void **)&d->dclass, (size_t)n));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->claim, (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->choice, (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->lift_to, (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->cert, (size_t)n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->side, (size_t)n));
    GPU_CHECK(ctx, cudaMalloc((void **)&d->counters,
                              GCUT_GCNT_SLOTS * sizeof(unsigned long long)));
    GPU_CHECK(ctx, cudaMallocHost((void **)&gs->pinned, 2 * half));
    gs->n_room = n;
    gs->m_room = m;
    gs->half = half;
    return GCUT_OK;
fail:
    free_buffers(gs);
    return st;
}

/* Host array -> device through pinned half k (waits until the half's last
 * copy is done before refilling it). */
static gcut_status stage_up(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs, int k, void *d_dst,
                            const void *src, size_t bytes)
{
    gcut_status st = GCUT_OK;
    unsigned char *stage = gs->pinned + (size_t)k * gs->half;
    GPU_CHECK(ctx, cudaEventSynchronize(gs->staged[k]));
    memcpy(stage, src, bytes);
    GPU_CHECK(ctx, cudaMemcpyAsync(d_dst, stage, bytes, cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(gs->staged[k], s->stream));
fail:
    return st;
}

/* Device -> host array through pinned half 0 (waits). */
static gcut_status stage_down(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs, void *dst,
                              const void *d_src, size_t bytes)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemcpyAsync(gs->pinned, d_src, bytes, cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    memcpy(dst, gs->pinned, bytes);
fail:
    return st;
}

gcut_status gcut__gpu_graph_read_counters(gcut_context *ctx, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemcpyAsync(gs->h_counters, gs->dg.counters,
                                   GCUT_GCNT_SLOTS * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
fail:
    return st;
}

/* The share of arcs u -> v for which v -> u is an arc too, over an even
 * sample of at most 4096 arcs (the CSR is sorted by tail, then head). */
static double paired_share(const gcut_graph *g)
{
    const int64_t m = g->m, samples = m < 4096 ? m : 4096;
    int64_t twins = 0;
    for (int64_t i = 0; i < samples; i++) {
        const int64_t a = i * m / samples;
        const int32_t u = g->arc_tail[a], v = g->out_head[a];
        int32_t lo = g->out_start[v], hi = g->out_start[v + 1];
        while (lo < hi) {
            const int32_t mid = lo + (hi - lo) / 2;
            if (g->out_head[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        twins += lo < g->out_start[v + 1] && g->out_head[lo] == u;
    }
    return samples > 0 ? (double)twins / (double)samples : 0.0;
}

extern "C" gcut_status gcut__gpu_graph_upload(gcut_graph *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    gcut_status st = gcut__gpu_graph_state(ctx, &s, &gs);
    if (st)
        return st;
    gs->owner = NULL;
    gs->solved = NULL;
    gs->phase1_heights = 0;
    gs->colors = 0;
    gs->paired = paired_share(g) >= 0.25;
    if ((st = reserve(g, s, gs)))
        return st;
    gcut__dgraph *d = &gs->dg;
    const size_t nb = ((size_t)g->n + 1) * sizeof(int32_t), mb = (size_t)g->m * sizeof(int32_t);
    if ((st = stage_up(ctx, s, gs, 0, (void *)d->out_start, g->out_start, nb)) ||
        (st = stage_up(ctx, s, gs, 1, (void *)d->in_start, g->in_start, nb)))
        goto fail;
    if (g->m > 0 && ((st = stage_up(ctx, s, gs, 0, (void *)d->out_head, g->out_head, mb)) ||
                     (st = stage_up(ctx, s, gs, 1, (void *)d->out_cap, g->out_cap, mb)) ||
                     (st = stage_up(ctx, s, gs, 0, (void *)d->in_tail, g->in_tail, mb)) ||
                     (st = stage_up(ctx, s, gs, 1, (void *)d->in_arc, g->in_arc, mb))))
        goto fail;
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    d->n = g->n;
    d->m = g->m;
    d->source = g->source;
    d->sink = g->sink;
    gs->owner = g;
    return GCUT_OK;
fail:
    cudaStreamSynchronize(s->stream);
    cudaGetLastError();
    return st;
}

/* The context's graph state, refused unless `g` is the graph on the device. */
static gcut_status uploaded_state(gcut_graph *g, gcut__gpu **s, gpu_graph **gs)
{
    gcut_status st = gcut__gpu_graph_state(g->ctx, s, gs);
    if (!st && (*gs)->owner != g)
        st = gcut__fail(g->ctx, GCUT_E_STATE,
                        "gpu: this graph is not on the device (upload first)");
    return st;
}

/* The kernels for `g`, from its shape (measured on the benchmark families
 * and matrices, bench/results):
 * - where most arcs have an anti-parallel twin (genrmf frames, grids,
 *   symmetric matrices) the warp-per-node push, with ties by arc code, is
 *   1.2-3x ahead of the split push; on networks without them (Washington
 *   RLG, acyclic-dense) the split push by degree with forward arcs first
 *   among equal heights is 1.5-3x ahead: there a reverse entry only sends
 *   excess back to where it came from;
 * - the split push's dense instance where the mean degree passes the light
 *   limit (most nodes heavy: acyclic-dense), the light one with a chase of
 *   two nodes elsewhere (10-28 % off RLG; deeper chases lost on the larger
 *   RLGs);
 * - the relabel's batched, team-per-node BFS above mean degree 16 (in and
 *   out arcs): it takes
 *   acyclic-dense's relabel from 0.3 to 0.1 ms and is as fast on the
 *   matrices of mean degree 28-82, but costs 29-33 % on RLG and genrmf
 *   (mean degree 6-10) and Rajat (11);
 * - the relabel's early stop for the worklist variant's phases, whose
 *   pushes need only the active nodes' heights (color's lift step reads
 *   every node's). */
static void choose_push(const gcut_graph *g, gpu_graph *gs, int variant)
{
    gcut__dgraph *d = &gs->dg;
    const double mean_degree = g->n > 0 ? 2.0 * g->m / g->n : 0;
    d->split = !gs->paired;
    d->dense = d->split && mean_degree > GCUT_LIGHT_MAX;
    d->chase = d->split && !d->dense ? 2 : 0;
    d->bfs_team = mean_degree > 16;
    d->bfs_stop = variant == GCUT__GPU_WORKLIST;
    gs->stats.split = d->split;
}

extern "C" gcut_status gcut__gpu_graph_run(gcut_graph *g, int variant, unsigned flags,
                                           int64_t *iterations)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    gcut_status st = uploaded_state(g, &s, &gs);
    if (st)
        return st;
    if ((st = gcut__graph_alloc_solution(g)))
        return st;
    memset(&gs->stats, 0, sizeof gs->stats);
    gs->is_flow = 0;
    gs->solved = NULL;
    gs->phase1_heights = 0;
    gs->host_relabel = variant == GCUT__GPU_ASYNC;
    choose_push(g, gs, variant);
    switch (variant) {
    case GCUT__GPU_WORKLIST:
        st = gcut__gpu_graph_run_worklist(g, s, gs);
        break;
    case GCUT__GPU_ASYNC:
        st = gcut__gpu_graph_run_async(g, s, gs);
        break;
    case GCUT__GPU_COLOR:
        st = gcut__gpu_graph_run_color(g, s, gs);
        break;
    default:
        return gcut__fail(ctx, GCUT_E_INVALID, "gpu: unknown graph variant %d", variant);
    }
    if (!st && (flags & GCUT_GRAPH_SOLVE_FLOW))
        st = gcut__gpu_graph_run_phase2(g, s, gs);
    if (st) {
        cudaStreamSynchronize(s->stream);
        cudaGetLastError();
        return st;
    }
    if (variant == GCUT__GPU_WORKLIST) {
        gs->solved = g;
        /* phase 2 leaves distances to the source and its flow returned */
        gs->phase1_heights = !(flags & GCUT_GRAPH_SOLVE_FLOW);
    }
    if (variant == GCUT__GPU_WORKLIST)
        gcut__gpu_graph_trace_log(ctx, gs, "from zero");
    if (iterations)
        *iterations = gs->stats.push_launches;
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_graph_download(gcut_graph *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    gcut_status st = uploaded_state(g, &s, &gs);
    if (st)
        return st;
    if (g->m > 0 &&
        (st = stage_down(ctx, s, gs, g->flow, gs->dg.flow, (size_t)g->m * sizeof(int32_t))))
        return st;
    if (!gs->host_relabel && (st = stage_down(ctx, s, gs, g->side, gs->dg.side, (size_t)g->n)))
        return st;
    g->flow_value = gs->flow_value;
    g->is_flow = gs->is_flow;
    g->flow_stored = 1;
    if (!g->is_flow) {
        /* Phase 2 on the CPU later (gcut__graph_need_flow) reads the
         * residual network: make it match the preflow. */
        gcut__resnet rn;
        if ((st = gcut__resnet_build(g, g->flow, &rn)))
            return st;
        gcut__resnet_free(&rn);
    }
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_graph_solve(gcut_graph *g, int variant, unsigned flags,
                                             int64_t *iterations)
{
    gcut_status st = gcut__gpu_graph_upload(g);
    if (!st)
        st = gcut__gpu_graph_run(g, variant, flags, iterations);
    if (!st)
        st = gcut__gpu_graph_download(g);
    if (!st) {
        gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
        g->info.device = s->name;
    }
    return st;
}

/* The pending updates of `g` as device entries (arc, tail, final
 * capacity), sent up through the pinned halves in turn. */
static gcut_status send_updates(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const int64_t count = g->gpu_pending_count;
    if (count > gs->upd_room) {
        cudaStreamSynchronize(s->stream);
        cudaFree(gs->d_updates);
        gs->d_updates = NULL;
        gs->upd_room = 0;
        const int64_t room = count > 1024 ? count : 1024;
        GPU_CHECK(ctx, cudaMalloc((void **)&gs->d_updates, (size_t)room * sizeof(gcut__dupdate)));
        gs->upd_room = room;
    }
    {
        const int64_t per = (int64_t)(gs->half / sizeof(gcut__dupdate));
        for (int64_t done = 0, k = 0; done < count; done += per, k ^= 1) {
            const int64_t chunk = count - done < per ? count - done : per;
            gcut__dupdate *stage = (gcut__dupdate *)(gs->pinned + (size_t)k * gs->half);
            GPU_CHECK(ctx, cudaEventSynchronize(gs->staged[k]));
            for (int64_t i = 0; i < chunk; i++) {
                const int32_t a = g->gpu_pending[done + i];
                stage[i] = gcut__dupdate{a, g->arc_tail[a], g->out_cap[a], 0};
            }
            GPU_CHECK(ctx, cudaMemcpyAsync(gs->d_updates + done, stage,
                                           (size_t)chunk * sizeof(gcut__dupdate),
                                           cudaMemcpyHostToDevice, s->stream));
            GPU_CHECK(ctx, cudaEventRecord(gs->staged[k], s->stream));
        }
    }
fail:
    return st;
}

/* The warm re-solve's result on the host: the cut side and the value. Its
 * flow stays on the device until asked for (gcut__gpu_graph_fetch): a
 * batch of updates needs none of it on the host. */
static gcut_status download_warm(gcut_graph *g, gcut__gpu *s, gpu_graph *gs)
{
    gcut_status st = stage_down(g->ctx, s, gs, g->side, gs->dg.side, (size_t)g->n);
    if (st)
        return st;
    g->flow_value = gs->flow_value;
    g->is_flow = 0;
    g->flow_stored = 0;
    g->warm = 0;
    g->gpu_flow = 1;
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_graph_fetch(gcut_graph *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    gcut_status st = uploaded_state(g, &s, &gs);
    if (st)
        return st;
    if (gs->solved != g)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: the flow of this graph's last solve is gone");
    if (!g->excess && !(g->excess = (int64_t *)malloc((size_t)g->n * sizeof *g->excess)))
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory for %d excesses", g->n);
    if (g->m > 0 &&
        (st = stage_down(ctx, s, gs, g->flow, gs->dg.flow, (size_t)g->m * sizeof(int32_t))))
        return st;
    /* The excesses (deficits included) through the pinned half, in turn. */
    const size_t per = gs->half / sizeof(long long);
    for (size_t done = 0; done < (size_t)g->n; done += per) {
        const size_t chunk = (size_t)g->n - done < per ? (size_t)g->n - done : per;
        if ((st = stage_down(ctx, s, gs, g->excess + done, gs->dg.excess + done,
                             chunk * sizeof(long long))))
            return st;
    }
    g->excess[g->source] = 0;
    gcut__resnet rn;
    if ((st = gcut__resnet_build(g, g->flow, &rn)))
        return st;
    gcut__resnet_free(&rn);
    g->flow_stored = 1;
    g->warm = 1;
    g->gpu_flow = 0;
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_graph_resolve(gcut_graph *g, unsigned flags, int64_t *iterations)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    gcut_status st = gcut__gpu_graph_state(ctx, &s, &gs);
    if (st)
        return st;
    if (gs->owner != g || gs->solved != g)
        return gcut__gpu_graph_solve(g, GCUT__GPU_WORKLIST, flags, iterations);
    if ((st = gcut__graph_alloc_solution(g)))
        return st;
    gs->solved = NULL; /* until this run ends cleanly */
    const int phase1_heights = gs->phase1_heights;
    gs->phase1_heights = 0;
    memset(&gs->stats, 0, sizeof gs->stats);
    gs->is_flow = 0;
    gs->host_relabel = 0;
    choose_push(g, gs, GCUT__GPU_WORKLIST);
    gs->phase1_heights = phase1_heights;
    if (!(st = send_updates(g, s, gs)) &&
        !(st = gcut__gpu_graph_run_warm(g, s, gs, g->gpu_pending_count)) &&
        !(st = download_warm(g, s, gs))) {
        gs->solved = g;
        gs->phase1_heights = 1; /* the warm run is a phase 1 */
        g->info.device = s->name;
        gcut__gpu_graph_trace_log(ctx, gs, "warm");
        if (iterations)
            *iterations = gs->stats.push_launches;
        return GCUT_OK;
    }
    cudaStreamSynchronize(s->stream);
    cudaGetLastError();
    return st;
}

extern "C" gcut_status gcut__gpu_graph_set_warm_policy(gcut_context *ctx, int policy)
{
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    if (policy != GCUT__WARM_PROVE && policy != GCUT__WARM_ADAPT && policy != GCUT__WARM_GLOBAL)
        return gcut__fail(ctx, GCUT_E_INVALID, "gpu: unknown warm policy %d", policy);
    gcut_status st = gcut__gpu_graph_state(ctx, &s, &gs);
    if (!st)
        gs->warm_policy = policy;
    return st;
}

extern "C" gcut_status gcut__gpu_graph_stats_get(gcut_context *ctx, gcut__gpu_graph_stats *stats)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s || !s->graph)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no GPU graph run yet");
    *stats = s->graph->stats;
    return GCUT_OK;
}
