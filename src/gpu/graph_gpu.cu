/* Host side of the GPU general-graph solvers: the device buffers kept in
 * the context (grown on demand, reused), moving a graph to the device and
 * the solution back through pinned staging on the context's one stream,
 * the entry points, knobs and statistics. The solve loops are in
 * graph_gpu_run.cu, the kernels in general_kernels/. */
#include <stdlib.h>
#include <string.h>

#include "gpu/graph_gpu_state.h"

typedef struct gcut__gpu_graph gpu_graph;

/* Device bytes for n nodes and m arcs (colours not included). */
static size_t graph_bytes(int64_t n, int64_t m)
{
    return (size_t)m * 5 * sizeof(int32_t) +
           (size_t)n * (13 * sizeof(int32_t) + sizeof(long long) + 2) +
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
    cudaFreeHost(gs->pinned);
    const int blocks = d->blocks, coop_blocks = d->coop_blocks, split_blocks = d->split_blocks;
    const int wide_blocks = d->wide_blocks;
    memset(d, 0, sizeof *d);
    d->blocks = blocks;
    d->coop_blocks = coop_blocks;
    d->split_blocks = split_blocks;
    d->wide_blocks = wide_blocks;
    gs->pinned = NULL;
    gs->half = 0;
    gs->n_room = gs->m_room = 0;
    gs->color_room = 0;
    gs->owner = NULL;
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
    cudaFreeHost(gs->h_counters);
    for (int k = 0; k < 2; k++)
        if (gs->staged[k])
            cudaEventDestroy(gs->staged[k]);
    free(gs->h_height);
    free(gs->h_queue);
    cudaFree(gs->d_prof);
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
    gs->knobs.batch = 32;
    gs->knobs.gr_freq = 0;
    gs->knobs.gr_lifts = 4;
    /* Round 7 (bench/results): on graphs under a million nodes a relabel
     * after n lifts came too soon; 2-3 n lifts took 3-9 % off RLG long
     * 512x1024, RLG wide 1024^2 and genrmf 32x256 / 64, while graphs of
     * 2 M nodes and more lost 1-14 % with more than n. A floor of 1.5 M
     * lifts (at most 3 n) keeps n from there on. */
    gs->knobs.gr_lift_floor = 1500000;
    gs->knobs.rounds = 4;
    gs->knobs.async_cycles = 500;
    gs->knobs.color_cycles = 16;
    gs->knobs.occupancy = 4;
    gs->knobs.group = 32;
    gs->knobs.light = 12;
    gs->knobs.heavy = 1024;
    gs->knobs.spread = 1;
    gs->knobs.aggregate = 1;
    gs->knobs.order = 0;
    gs->knobs.adapt = 1;
    /* Measured in round 3 (bench/results/gpu_maxflow_NVIDIA_H100_80GB_HBM3.md):
     * chase 2 and lean 3 take 10-28 % off RLG, a relabel floor of up to
     * 600 iterations (graph_gpu_run.cu) 20-33 % off genrmf; round 4: lean
     * bit 4 (heavy nodes) 10 % off acyclic-dense's push steps; round 5:
     * bit 16 (light items dealt round every warp) 15-40 % off RLG's, bits
     * 64 and 128 (sizes read once a block, the relabel's BFS ended once
     * the active nodes have their distances) up to 30 % off its relabels;
     * round 7: bit 8 (a light node's loops end at its degree) 15-24 % off
     * RLG's push steps, bits 256 and 512 (its loads eight entries at a
     * time) 13 % more; round 8: bit 16384 (a light entry's header loaded
     * with its claim) 3-5 % off RLG's push time, with bit 4096 (a BFS
     * level's first frontier node read with the level's size: up to 8 %
     * off the relabels of RLG and genrmf in one call, even in the other):
     * RLG long 512x1024 74.4 -> 71.0 ms; round 10: bit 131072 (the heavy
     * instance built for 3 blocks an SM) 12-14 % off acyclic-dense's push
     * time, bit 524288 (a small graph's relabel enqueued behind the push
     * batch that reaches the frequency, graph_gpu_run.cu); round 11: bits
     * 1024 (the first relabel starts the solve) and 2048 (the side, value
     * and stop clock from the last relabel and counters read) half of the
     * fixed cost of a solve (75 -> 38 us on a graph with nothing to push),
     * acyclic-dense 2000 0.551-0.568 -> 0.534-0.544 ms in two calls. */
    gs->knobs.chase = 2;
    gs->knobs.lean =
        7 | 8 | 16 | 64 | 128 | 256 | 512 | 1024 | 2048 | 4096 | 16384 | 131072 | 524288;
    gs->knobs.gr_floor = 600;
    gs->knobs.bfs_team = 1;
    {
        /* Enough warps to fill the GPU: 8 blocks of 256 threads per SM. */
        int sms = 0;
        GPU_CHECK(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->device));
        gs->dg.blocks = 8 * (sms > 0 ? sms : 1);
    }
    /* The persistent kernels need every block resident; a few per SM keep
     * the grid barrier cheap. */
    gs->dg.coop_blocks = gcut__graph_coop_blocks(s->device, gs->knobs.occupancy);
    gs->dg.split_blocks = gcut__graph_split_blocks(s->device, gs->knobs.occupancy);
    gs->dg.wide_blocks = gcut__graph_wide_blocks(s->device, gs->knobs.occupancy);
    if (gs->dg.coop_blocks <= 0 || gs->dg.split_blocks <= 0) {
        st = gcut__fail(ctx, GCUT_E_DEVICE, "gpu: %s cannot run the cooperative kernels", s->name);
        goto fail;
    }
    GPU_CHECK(ctx, cudaEventCreateWithFlags(&gs->staged[0], cudaEventDisableTiming));
    GPU_CHECK(ctx, cudaEventCreateWithFlags(&gs->staged[1], cudaEventDisableTiming));
    GPU_CHECK(ctx, cudaMallocHost((void **)&gs->h_counters,
                                  GCUT_GCNT_SLOTS * sizeof(unsigned long long)));
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
    gs->colors = 0;
    gs->paired = paired_share(g) >= 0.25;
    if ((st = reserve(g, s, gs)))
        return st;
    gcut__dgraph *d = &gs->dg;
    const size_t nb = ((size_t)g->n + 1) * sizeof(int32_t), mb = (size_t)g->m * sizeof(int32_t);
    float ms = 0;
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    if ((st = stage_up(ctx, s, gs, 0, (void *)d->out_start, g->out_start, nb)) ||
        (st = stage_up(ctx, s, gs, 1, (void *)d->in_start, g->in_start, nb)))
        goto fail;
    if (g->m > 0 && ((st = stage_up(ctx, s, gs, 0, (void *)d->out_head, g->out_head, mb)) ||
                     (st = stage_up(ctx, s, gs, 1, (void *)d->out_cap, g->out_cap, mb)) ||
                     (st = stage_up(ctx, s, gs, 0, (void *)d->in_tail, g->in_tail, mb)) ||
                     (st = stage_up(ctx, s, gs, 1, (void *)d->in_arc, g->in_arc, mb))))
        goto fail;
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    GPU_CHECK(ctx, cudaEventElapsedTime(&ms, s->start, s->stop));
    gs->stats.upload_ms = ms;
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
    const double upload_ms = gs->stats.upload_ms, color_ms = gs->stats.color_ms;
    memset(&gs->stats, 0, sizeof gs->stats);
    gs->stats.upload_ms = upload_ms;
    gs->stats.color_ms = color_ms;
    gs->stats.device_bytes = graph_bytes(gs->n_room, gs->m_room) +
                             (gs->color_room ? (size_t)gs->m_room * sizeof(int32_t) : 0);
    gs->is_flow = 0;
    gs->side_on_host = 0;
    {
        /* Lanes per node: enough for a node of mean degree (in + out) in
         * one pass; a whole warp for dense graphs. */
        int group = gs->knobs.group;
        if (group <= 0) {
            const double mean = g->n > 0 ? 2.0 * g->m / g->n : 0;
            group = mean <= 4 ? 4 : mean <= 8 ? 8 : mean <= 16 ? 16 : 32;
        }
        gs->dg.group = group;
        gs->dg.light_max = gs->knobs.light;
        gs->dg.heavy_min = gs->knobs.heavy;
        gs->dg.spread = gs->knobs.spread;
        gs->dg.aggregate = gs->knobs.aggregate;
        gs->dg.order = gs->knobs.order;
        if (gs->knobs.adapt) {
            /* Measured (bench/results/gpu_maxflow_NVIDIA_H100_80GB_HBM3.md):
             * where arcs come in anti-parallel pairs (genrmf frames, grids,
             * symmetric matrices) the warp-per-node push with ties by arc
             * code is fastest, 1.2-3x ahead of the split push; on networks
             * without them (Washington RLG, acyclic-dense) the split push
             * with forward arcs first among equal heights is 1.5-3x ahead:
             * there a reverse entry only sends excess back to where it came
             * from. */
            gs->dg.light_max = gs->paired ? 0 : gs->knobs.light;
            gs->dg.order = 0;
        }
        gs->dg.chase = gs->dg.light_max > 0 ? gs->knobs.chase : 0;
        gs->dg.lean = gs->knobs.lean;
        gs->dg.bfs_team = gs->knobs.bfs_team;
        if (gs->knobs.adapt && 2.0 * g->m <= 16.0 * g->n) {
            /* Measured (bench/results/gpu_maxflow_NVIDIA_H100_80GB_HBM3.md,
             * round 4): the batched BFS takes the relabel of acyclic-dense
             * from 0.3 to 0.1 ms (n = 2000) and is as fast on the matrices
             * of mean degree 28-82, but costs 29-33 % more relabel time
             * on RLG and genrmf (mean degree 6-10) and Rajat (11). */
            gs->dg.bfs_team = 0;
        }
        if (gs->knobs.adapt && 2.0 * g->m > (double)gs->dg.light_max * g->n) {
            /* Chase and lean 1, 2 act on light nodes only, and where few
             * nodes are light (acyclic-dense) the lean kernel measured 10 %
             * slower: only the heavy nodes' bit stays. */
            gs->dg.chase = 0;
            gs->dg.lean &= ~3;
        } else if (gs->knobs.adapt) {
            /* No heavy node to stage on such graphs; the instance without
             * the stage's 35 KB of shared memory is the one measured there. */
            gs->dg.lean &= ~4;
        }
        /* Bits 16, 64, 128 and 4096 are runtime switches of the kernels
         * (graph_kernels.h), not instances: 16 the light worklist dealt round
         * every warp, 64 the worklist sizes read once a block, 128 the
         * relabel's BFS ended once every active node has its distance
         * (worklist only), 4096 a level's first frontier node read with its
         * size. Bits 8, 256, 512 and 16384 pick the light instances of
         * bounded loops, loads in groups and an entry's header loaded with
         * its claim (graph_split.cu, split_push_choose) where bits 1, 2 are
         * set and 4 is not, with tie order 0: RLG's, not acyclic-dense's;
         * bit 131072 the heavy instance built for 3 blocks an SM where bit 4
         * is set and 1, 2 are not: acyclic-dense's. Bit 524288 is the host
         * loop's (graph_gpu_run.cu), and so are bits 1024 (the first relabel
         * starts the solve: no memsets, init or class launch), 2048 (the
         * side and value from the last relabel, the stop clock with the
         * last counters read: no side launch, copy or host round trip after
         * it); neither for async, whose relabel is on the host. */
        gs->dg.deal = (gs->dg.lean & 16) != 0;
        gs->dg.shared_sizes = (gs->dg.lean & 64) != 0;
        gs->dg.bfs_stop = (gs->dg.lean & 128) != 0 && variant == GCUT__GPU_WORKLIST;
        gs->dg.bfs_ahead = (gs->dg.lean & 4096) != 0;
        gs->fresh = (gs->dg.lean & 1024) != 0 && variant != GCUT__GPU_ASYNC;
        gs->finish_ahead = (gs->dg.lean & 2048) != 0 && variant != GCUT__GPU_ASYNC;
        gs->dg.side_ahead = gs->finish_ahead;
        gs->stats.split = gs->dg.light_max > 0;
        gs->stats.order = gs->dg.light_max > 0 ? gs->dg.order : 1;
    }
    gs->dg.prof = NULL;
    if (gs->knobs.profile) {
        /* Timing stamps and their atomics cost time: never in a plain run. */
        if (!gs->d_prof)
            GPU_CHECK(ctx, cudaMalloc((void **)&gs->d_prof,
                                      GCUT_GPROF_SLOTS * sizeof(unsigned long long)));
        GPU_CHECK(ctx, cudaMemsetAsync(gs->d_prof, 0, GCUT_GPROF_SLOTS * sizeof(unsigned long long),
                                       s->stream));
        GPU_CHECK(ctx, cudaDeviceGetAttribute(&gs->stats.sm_khz, cudaDevAttrClockRate, s->device));
        gs->stats.prof_blocks = gs->dg.light_max > 0 ? gs->dg.split_blocks : gs->dg.coop_blocks;
        gs->dg.prof = gs->d_prof;
    }
    gs->seq = 0;
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
fail:
    if (st) {
        cudaStreamSynchronize(s->stream);
        cudaGetLastError();
        return st;
    }
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
    const double t0 = gcut__now_ms();
    if (g->m > 0 &&
        (st = stage_down(ctx, s, gs, g->flow, gs->dg.flow, (size_t)g->m * sizeof(int32_t))))
        return st;
    if (!gs->side_on_host && (st = stage_down(ctx, s, gs, g->side, gs->dg.side, (size_t)g->n)))
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
    gs->stats.download_ms = gcut__now_ms() - t0;
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

extern "C" gcut_status gcut__gpu_graph_tune(gcut_context *ctx, const gcut__gpu_graph_knobs *k)
{
    gcut__gpu *s = NULL;
    gpu_graph *gs = NULL;
    gcut_status st = gcut__gpu_graph_state(ctx, &s, &gs);
    if (st)
        return st;
    gcut__gpu_graph_knobs *c = &gs->knobs;
    if (k->batch > 0)
        c->batch = k->batch;
    if (k->gr_freq >= 0)
        c->gr_freq = k->gr_freq;
    if (k->gr_lifts >= 0)
        c->gr_lifts = k->gr_lifts;
    if (k->rounds > 0)
        c->rounds = k->rounds;
    if (k->async_cycles > 0)
        c->async_cycles = k->async_cycles;
    if (k->color_cycles > 0)
        c->color_cycles = k->color_cycles;
    if (k->group >= 0)
        c->group = k->group;
    if (k->light >= 0) {
        if (k->light > 12)
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "gpu: light=%d: a thread takes nodes of at most 12 arcs", k->light);
        c->light = k->light;
    }
    if (k->heavy >= 0)
        c->heavy = k->heavy;
    if (k->spread >= 0)
        c->spread = k->spread != 0;
    if (k->aggregate >= 0)
        c->aggregate = k->aggregate != 0;
    if (k->order >= 0)
        c->order = k->order != 0;
    if (k->adapt >= 0)
        c->adapt = k->adapt != 0;
    if (k->chase >= 0)
        c->chase = k->chase;
    if (k->lean >= 0)
        c->lean = k->lean & 1048575;
    if (k->gr_floor > 0)
        c->gr_floor = k->gr_floor;
    if (k->bfs_team >= 0)
        c->bfs_team = k->bfs_team != 0;
    if (k->profile >= 0)
        c->profile = k->profile != 0;
    if (k->gr_lift_floor >= 0)
        c->gr_lift_floor = k->gr_lift_floor;
    if (k->occupancy > 0) {
        const int blocks = gcut__graph_coop_blocks(s->device, k->occupancy);
        const int split_blocks = gcut__graph_split_blocks(s->device, k->occupancy);
        if (blocks <= 0 || split_blocks <= 0)
            return gcut__fail(ctx, GCUT_E_DEVICE, "gpu: no cooperative launch of %d blocks per SM",
                              k->occupancy);
        c->occupancy = k->occupancy;
        gs->dg.coop_blocks = blocks;
        gs->dg.split_blocks = split_blocks;
        gs->dg.wide_blocks = gcut__graph_wide_blocks(s->device, k->occupancy);
    }
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_graph_stats_get(gcut_context *ctx, gcut__gpu_graph_stats *stats)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s || !s->graph)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no GPU graph run yet");
    *stats = s->graph->stats;
    return GCUT_OK;
}
