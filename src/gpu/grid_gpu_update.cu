/* Warm GPU grid re-solves: the residual state of the last solve stays on
 * the device, with the capacities it belongs to, and the next solve starts
 * from it (grid_kernels/grid_update.h says how a change is applied and why
 * the result is exact). Two callers:
 * - the library's "tiled" solver (gcut__gpu_grid_tiled_warm): the grid's
 *   setters tell the kept state which pixels and pairs changed (grid.h's
 *   gcut__grid_warm hooks), and only those go up, as sparse lists;
 * - the segmentation energy (graph/grid_energy.c): the n-links stay, and
 *   each cut's terminals are written on the device from the colour table,
 *   applied to the last flow with Kohli and Torr's reparametrisation
 *   (grid_update.h), so that no deficit is left and the cut never needs
 *   the pull sweeps: the flow reported is the state's less the raises.
 * Anything that writes the device grid otherwise (an upload, another
 * grid's solve, a segmentation build) clears gcut__gpu.grid_warm, and the
 * next solve starts cold; so does a change the pull sweeps do not settle
 * within their bound. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_state.h"
#include "graph/grid.h"
#include "grid_update.h"

/* Pull sweeps per host check, and at most in all before a cold start. */
#define PULL_BATCH 4
#define PULL_MAX (GCUT_UPD_SLOTS - GCUT_UPD_SWEEPS)

typedef struct warm_state {
    gcut__grid_warm hooks; /* first: g->warm is its address */
    gcut_grid *g;
    int valid;     /* the device's state is this grid's (with gcut__gpu.grid_warm) */
    int have_caps; /* dc holds the graph's capacities */
    int64_t flow;  /* the flow value of the device's state (of the graph as used) */
    int64_t offset; /* the sum of dc.offset: the graph as used cuts that much more */
    int64_t solves; /* tiled solves of this grid */
    size_t nodes;  /* device raster nodes of dc */
    int ndirs;
    gcut__dcaps dc;
    unsigned long long *d_counters, h_counters[GCUT_UPD_SLOTS];

    /* Changes noted since the last solve: per host node, bit 0 its
     * terminals, bit 1 + e/2 the pair in even direction e from it. */
    uint8_t *mark;
    int32_t *noted;
    int32_t noted_count, noted_cap;
    gcut__terminal_change *h_tch, *d_tch;
    gcut__pair_change *h_pch, *d_pch;
    int32_t tch_cap, pch_cap;

    /* Segmentation: each pixel's colour, the seeds, the terminal table. */
    uint32_t *d_colour;
    uint8_t *d_seeds;
    int32_t *d_tcap;
    int64_t colors;
    double cut_began;    /* host clock when the cut's terminals began */
    double terminals_ms; /* how long they took */
    int cut_warm;        /* the cut starts from the last flow */
} warm_state;

static warm_state *warm_of(gcut_grid *g);

static void note(warm_state *w, int32_t i, uint8_t bit)
{
    if (!w->mark[i]) {
        if (w->noted_count == w->noted_cap) {
            int32_t cap = w->noted_cap ? 2 * w->noted_cap : 1024;
            int32_t *more = (int32_t *)realloc(w->noted, (size_t)cap * sizeof *more);
            if (!more) { /* no room to remember: start cold next */
                w->valid = 0;
                return;
            }
            w->noted = more;
            w->noted_cap = cap;
        }
        w->noted[w->noted_count++] = i;
    }
    w->mark[i] |= bit;
}

static void note_terminal(gcut_grid *g, int32_t i)
{
    warm_state *w = warm_of(g);
    if (w->valid)
        note(w, i, 1);
}

static void note_edge(gcut_grid *g, int32_t i, int d, int32_t cap)
{
    (void)cap;
    warm_state *w = warm_of(g);
    if (!w->valid)
        return;
    if (d & 1) { /* the pair is kept under its even direction */
        i += g->offset[d];
        d ^= 1;
    }
    note(w, i, (uint8_t)(2 << (d / 2)));
}

static void clear_notes(warm_state *w)
{
    for (int32_t k = 0; k < w->noted_count; k++)
        w->mark[w->noted[k]] = 0;
    w->noted_count = 0;
}

static gcut__gpu *gpu_of(gcut_grid *g)
{
    return g->ctx ? (gcut__gpu *)g->ctx->gpu : NULL;
}

static void forget(gcut_grid *g)
{
    warm_state *w = warm_of(g);
    w->valid = 0;
    clear_notes(w);
    gcut__gpu *s = gpu_of(g);
    if (s && s->grid_warm == w)
        s->grid_warm = NULL;
}

static void free_device(warm_state *w)
{
    for (int d = 0; d < 8; d++)
        cudaFree(w->dc.cap[d]);
    cudaFree(w->dc.source);
    cudaFree(w->dc.sink);
    cudaFree(w->dc.offset);
    memset(&w->dc, 0, sizeof w->dc);
    w->nodes = 0;
    w->have_caps = 0;
}

static void release(gcut_grid *g)
{
    warm_state *w = warm_of(g);
    forget(g);
    free_device(w);
    cudaFree(w->d_counters);
    cudaFree(w->d_tch);
    cudaFree(w->d_pch);
    cudaFree(w->d_colour);
    cudaFree(w->d_seeds);
    cudaFree(w->d_tcap);
    cudaGetLastError();
    free(w->h_tch);
    free(w->h_pch);
    free(w->mark);
    free(w->noted);
    free(w);
    g->warm = NULL;
}

static warm_state *warm_of(gcut_grid *g)
{
    return (warm_state *)g->warm;
}

/* Bytes of one int32 array of the device raster. */
static size_t raster_bytes(const gcut__gpu *s)
{
    return (size_t)s->dg.pitch * s->dg.rows * sizeof(int32_t);
}

/* The grid's warm state, created (and another solver's released) when
 * it is not ours. */
static gcut_status attach(gcut_grid *g, warm_state **out)
{
    if (g->warm && g->warm->release != release)
        g->warm->release(g);
    if (!g->warm) {
        warm_state *w = (warm_state *)calloc(1, sizeof *w);
        if (w)
            w->mark = (uint8_t *)calloc((size_t)g->n_padded, 1);
        if (!w || !w->mark) {
            free(w);
            return gcut__fail(g->ctx, GCUT_E_NOMEM, "gpu: out of memory for a warm grid state");
        }
        w->hooks.note_terminal = note_terminal;
        w->hooks.note_edge = note_edge;
        w->hooks.forget = forget;
        w->hooks.release = release;
        w->g = g;
        g->warm = &w->hooks;
    }
    *out = warm_of(g);
    return GCUT_OK;
}

/* Device capacity arrays for the current device raster. */
static gcut_status reserve_caps(warm_state *w, gcut__gpu *s)
{
    gcut_context *ctx = w->g->ctx;
    gcut_status st = GCUT_OK;
    const size_t nodes = (size_t)s->dg.pitch * s->dg.rows;
    if (!w->d_counters)
        GPU_CHECK(ctx,
                  cudaMalloc((void **)&w->d_counters, GCUT_UPD_SLOTS * sizeof(unsigned long long)));
    if (w->nodes >= nodes && w->ndirs == s->dg.ndirs)
        return GCUT_OK;
    free_device(w);
    for (int d = 0; d < s->dg.ndirs; d++)
        GPU_CHECK(ctx, cudaMalloc((void **)&w->dc.cap[d], nodes * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&w->dc.source, nodes * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&w->dc.sink, nodes * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&w->dc.offset, nodes * sizeof(int32_t)));
    w->nodes = nodes;
    w->ndirs = s->dg.ndirs;
    return GCUT_OK;
fail:
    free_device(w);
    return st;
}

/* Keep the graph the device grid holds now (before any run: residuals =
 * capacities, excess = source, sink = sink) as the state's capacities. */
static gcut_status snapshot(warm_state *w, gcut__gpu *s, int terminals)
{
    gcut_context *ctx = w->g->ctx;
    gcut_status st = reserve_caps(w, s);
    if (st)
        return st;
    const size_t bytes = raster_bytes(s);
    for (int d = 0; d < s->dg.ndirs; d++)
        GPU_CHECK(ctx, cudaMemcpyAsync(w->dc.cap[d], s->dg.res[d], bytes, cudaMemcpyDeviceToDevice,
                                       s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(w->dc.offset, 0, bytes, s->stream));
    w->offset = 0;
    if (terminals) {
        GPU_CHECK(ctx, cudaMemcpyAsync(w->dc.source, s->dg.excess, bytes, cudaMemcpyDeviceToDevice,
                                       s->stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(w->dc.sink, s->dg.sink, bytes, cudaMemcpyDeviceToDevice,
                                       s->stream));
    }
    w->have_caps = 1;
    return GCUT_OK;
fail:
    w->have_caps = 0;
    return st;
}

/* A change's counters, on the host, into the state's flow and offset. */
static void account(warm_state *w)
{
    const unsigned long long *c = w->h_counters;
    w->flow -= (int64_t)c[GCUT_UPD_UNSENT];
    w->offset += (int64_t)c[GCUT_UPD_RAISED] - (int64_t)c[GCUT_UPD_DROPPED];
}

/* The pull sweeps after a change, with the counters already zeroed and the
 * change enqueued: *settled = 1 when no deficit is left (then the flow
 * value is lowered by what came back from the sink arcs). */
static gcut_status pull(warm_state *w, gcut__gpu *s, int *settled)
{
    gcut_context *ctx = w->g->ctx;
    gcut_status st = GCUT_OK;
    *settled = 0;
    int pulled = 0; /* sweeps that found deficits */
    for (int first = 0; first < PULL_MAX && !*settled; first += PULL_BATCH) {
        for (int k = first; k < first + PULL_BATCH; k++)
            GPU_CHECK(ctx, gcut__grid_pull_launch(&s->dg, &w->dc, k, w->d_counters, s->stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(w->h_counters, w->d_counters, sizeof w->h_counters,
                                       cudaMemcpyDeviceToHost, s->stream));
        GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
        for (int k = first; k < first + PULL_BATCH && !*settled; k++) {
            if (w->h_counters[GCUT_UPD_SWEEPS + k] == 0)
                *settled = 1;
            else
                pulled++;
        }
    }
    if (*settled) {
        account(w);
        s->warm_starts++;
        gcut__log(ctx, 3, "gpu: the solve starts from the last flow after %d pull sweeps (%llu "
                  "deficit pixels at first, %llu of flow back from the sink arcs)",
                  pulled, w->h_counters[GCUT_UPD_SWEEPS], w->h_counters[GCUT_UPD_UNSENT]);
    } else
        gcut__log(ctx, 2, "gpu: deficits left after %d pull sweeps: the solve starts from no flow",
                  PULL_MAX);
fail:
    return st;
}

static gcut_status grow(gcut_context *ctx, void **host, void **dev, int32_t *cap, int32_t need,
                        size_t size)
{
    gcut_status st = GCUT_OK;
    if (need <= *cap)
        return GCUT_OK;
    int32_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void *h = realloc(*host, (size_t)n * size);
    if (!h)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory for %d changes", need);
    *host = h;
    cudaFree(*dev);
    *dev = NULL;
    *cap = 0;
    GPU_CHECK(ctx, cudaMalloc(dev, (size_t)n * size));
    *cap = n;
fail:
    return st;
}

/* The noted changes, as sparse lists, onto the device state. */
static gcut_status apply_notes(warm_state *w, gcut__gpu *s, int *settled)
{
    gcut_grid *g = w->g;
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    int32_t nt = 0, np = 0;
    /* No upload checks this graph for overflow: the changed pixels and the
     * far ends of their changed pairs are checked here (the cold path's
     * check on the device passed for the rest). A refusal ends the warm
     * state, and the next solve starts cold. */
    for (int32_t k = 0; k < w->noted_count; k++) {
        const int32_t i = w->noted[k];
        const uint8_t m = w->mark[i];
        if ((st = gcut__grid_check_overflow_node(g, i)))
            return st;
        for (int e = 0; e < g->ndirs; e += 2) {
            const int32_t j = i + g->offset[e];
            const int x = j % g->pitch - 1, y = j / g->pitch - 1;
            if ((m & (2 << (e / 2))) && x >= 0 && x < g->width && y >= 0 && y < g->height &&
                (st = gcut__grid_check_overflow_node(g, j)))
                return st;
        }
        nt += m & 1;
        for (int b = 1; b < 5; b++)
            np += (m >> b) & 1;
    }
    if ((st = grow(ctx, (void **)&w->h_tch, (void **)&w->d_tch, &w->tch_cap, nt,
                   sizeof *w->h_tch)) ||
        (st = grow(ctx, (void **)&w->h_pch, (void **)&w->d_pch, &w->pch_cap, np, sizeof *w->h_pch)))
        return st;
    nt = np = 0;
    for (int32_t k = 0; k < w->noted_count; k++) {
        const int32_t i = w->noted[k];
        const uint8_t m = w->mark[i];
        const int x = i % g->pitch - 1, y = i / g->pitch - 1;
        const int32_t node = (y + 1) * s->dg.pitch + x + 1;
        if (m & 1)
            w->h_tch[nt++] = {node, g->source_cap[i], g->sink_cap[i]};
        for (int e = 0; e < g->ndirs; e += 2)
            if (m & (2 << (e / 2)))
                w->h_pch[np++] = {node, e, g->cap[e][i], g->cap[e ^ 1][i + g->offset[e]]};
    }
    GPU_CHECK(ctx, cudaMemsetAsync(w->d_counters, 0, sizeof w->h_counters, s->stream));
    if (np) {
        GPU_CHECK(ctx, cudaMemcpyAsync(w->d_pch, w->h_pch, (size_t)np * sizeof *w->h_pch,
                                       cudaMemcpyHostToDevice, s->stream));
        GPU_CHECK(ctx, gcut__grid_update_pairs_launch(&s->dg, &w->dc, w->d_pch, np, s->stream));
    }
    if (nt) {
        GPU_CHECK(ctx, cudaMemcpyAsync(w->d_tch, w->h_tch, (size_t)nt * sizeof *w->h_tch,
                                       cudaMemcpyHostToDevice, s->stream));
        GPU_CHECK(ctx, gcut__grid_update_terminals_launch(&s->dg, &w->dc, w->d_tch, nt,
                                                          w->d_counters, s->stream));
    }
    return pull(w, s, settled);
fail:
    return st;
}

/* The state after a successful run: the device holds it. */
static void kept(warm_state *w, gcut__gpu *s, int64_t run_flow)
{
    w->flow += run_flow;
    w->g->flow = w->flow - w->offset;
    w->valid = 1;
    s->grid_warm = w;
    clear_notes(w);
}

static void lost(warm_state *w, gcut__gpu *s)
{
    w->valid = 0;
    clear_notes(w);
    if (s && s->grid_warm == w)
        s->grid_warm = NULL;
}

/* Heights to zero before a run from a kept state, as an upload leaves them. */
static gcut_status run_from_state(gcut_grid *g, gcut__gpu *s, int64_t *iterations)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(g->ctx, cudaMemsetAsync(s->dg.height, 0, raster_bytes(s), s->stream));
    s->grid_owner = g;
    return gcut__gpu_grid_run(g, GCUT__GPU_GRID_TILED, iterations);
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_tiled_warm(gcut_grid *g, int64_t *iterations)
{
    warm_state *w = NULL;
    gcut__gpu *s = NULL;
    gcut_status st = attach(g, &w);
    if (!st)
        st = gcut__gpu_acquire(g->ctx, &s);
    if (st)
        return st;
    int settled = 0;
    if (w->valid && w->have_caps && s->grid_warm == w && s->dg.img_w == g->width &&
        s->dg.img_h == g->height && s->dg.ndirs == g->ndirs) {
        st = apply_notes(w, s, &settled);
        if (!st && settled)
            st = run_from_state(g, s, iterations);
    }
    if (!st && !settled) { /* cold: the graph as set, from zero flow */
        w->flow = 0;
        w->offset = 0;
        s->cold_starts++;
        st = gcut__gpu_grid_upload(g);
        /* The copy of the capacities that a warm start needs costs
         * (ndirs + 2) x 4 bytes a pixel: taken only once the grid is solved
         * again, so that a one-shot solve stays within its memory. */
        if (!st && w->solves > 0)
            st = snapshot(w, s, 1);
        if (!st)
            st = gcut__gpu_grid_run(g, GCUT__GPU_GRID_TILED, iterations);
    }
    w->solves++;
    if (!st)
        st = gcut__gpu_grid_finish(g);
    if (st) {
        lost(w, s);
        return st;
    }
    kept(w, s, g->flow);
    return GCUT_OK;
}

/* ---- the segmentation energy ---------------------------------------------- */

extern "C" gcut_status gcut__gpu_warm_seg_begin(gcut_grid *g, const uint32_t *colour_of_pixel,
                                                int64_t colors)
{
    warm_state *w = NULL;
    gcut__gpu *s = NULL;
    gcut_status st = attach(g, &w);
    if (!st)
        st = gcut__gpu_acquire(g->ctx, &s);
    if (st)
        return st;
    gcut_context *ctx = g->ctx;
    const size_t n = (size_t)g->width * g->height;
    lost(w, s);
    cudaFree(w->d_colour);
    cudaFree(w->d_seeds);
    cudaFree(w->d_tcap);
    w->d_colour = NULL;
    w->d_seeds = NULL;
    w->d_tcap = NULL;
    GPU_CHECK(ctx, cudaMalloc((void **)&w->d_colour, n * sizeof(uint32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&w->d_seeds, n));
    GPU_CHECK(ctx, cudaMalloc((void **)&w->d_tcap, (size_t)(colors + 2) * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMemcpyAsync(w->d_colour, colour_of_pixel, n * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(w->d_seeds, 0, n, s->stream));
    w->colors = colors;
    /* The device grid holds the n-links just written (gcut__seg_gpu_set_nlinks). */
    if ((st = snapshot(w, s, 0)))
        return st;
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    return GCUT_OK;
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_warm_seg_seeds(gcut_grid *g, const uint8_t *seeds)
{
    warm_state *w = warm_of(g);
    gcut__gpu *s = gpu_of(g);
    gcut_status st = GCUT_OK;
    if (!w || w->hooks.release != release || !w->d_seeds || !s)
        return gcut__fail(g->ctx, GCUT_E_STATE, "gpu: no segmentation state for new seeds");
    GPU_CHECK(g->ctx, cudaMemcpyAsync(w->d_seeds, seeds, (size_t)g->width * g->height,
                                      cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(g->ctx, cudaStreamSynchronize(s->stream));
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_warm_seg_terminals(gcut_grid *g, const int32_t *tcap)
{
    warm_state *w = warm_of(g);
    gcut__gpu *s = gpu_of(g);
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    if (!w || w->hooks.release != release || !w->d_tcap || !s)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no segmentation state for terminals");
    w->cut_began = gcut__now_ms();
    int settled = 0;
    /* Pageable source: the copy is done when the call returns. */
    GPU_CHECK(ctx, cudaMemcpyAsync(w->d_tcap, tcap, (size_t)(w->colors + 2) * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(w->d_counters, 0, sizeof w->h_counters, s->stream));
    if (w->valid && s->grid_warm == w) {
        /* Reparametrised: no deficit is left, so no pull sweep runs; only
         * a raise past int32 (counted as refused) sends the cut cold. */
        GPU_CHECK(ctx, gcut__grid_update_table_launch(&s->dg, &w->dc, w->d_colour, w->d_seeds,
                                                      (uint32_t)w->colors, w->d_tcap, 0,
                                                      w->d_counters, s->stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(w->h_counters, w->d_counters, sizeof w->h_counters,
                                       cudaMemcpyDeviceToHost, s->stream));
        GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
        if (w->h_counters[GCUT_UPD_REFUSED] == 0) {
            account(w);
            settled = 1;
            s->warm_starts++;
        } else {
            gcut__log(ctx, 2, "gpu: %llu pixels' raised terminals would pass int32: the cut "
                      "starts from no flow", w->h_counters[GCUT_UPD_REFUSED]);
        }
    }
    if (!settled) { /* cold: the n-links kept, the terminals as given, no flow */
        if (!w->have_caps) {
            st = gcut__fail(ctx, GCUT_E_STATE, "gpu: no n-links kept for the segmentation");
            goto fail;
        }
        /* Another graph may have used the device grid meanwhile: its layout
         * back to this grid's (the same raster, so the kept arrays fit). */
        if ((st = gcut__gpu_grid_reserve(g)))
            goto fail;
        const size_t bytes = raster_bytes(s);
        for (int d = 0; d < s->dg.ndirs; d++)
            GPU_CHECK(ctx, cudaMemcpyAsync(s->dg.res[d], w->dc.cap[d], bytes,
                                           cudaMemcpyDeviceToDevice, s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(s->dg.excess, 0, bytes, s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(s->dg.sink, 0, bytes, s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(w->dc.source, 0, bytes, s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(w->dc.sink, 0, bytes, s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(w->dc.offset, 0, bytes, s->stream));
        GPU_CHECK(ctx, gcut__grid_update_table_launch(&s->dg, &w->dc, w->d_colour, w->d_seeds,
                                                      (uint32_t)w->colors, w->d_tcap, 1,
                                                      w->d_counters, s->stream));
        w->flow = 0;
        w->offset = 0;
        s->cold_starts++;
    }
    w->cut_warm = settled;
    GPU_CHECK(ctx, cudaMemsetAsync(s->dg.height, 0, raster_bytes(s), s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    /* A valid preflow of the graph as now used: the device holds it. */
    w->valid = 1;
    s->grid_warm = w;
    s->grid_owner = g;
    w->terminals_ms = gcut__now_ms() - w->cut_began;
    return GCUT_OK;
fail:
    lost(w, s);
    return st;
}

extern "C" void gcut__gpu_warm_seg_solved(gcut_grid *g, gcut_status st)
{
    warm_state *w = warm_of(g);
    gcut__gpu *s = gpu_of(g);
    if (!w || w->hooks.release != release)
        return;
    if (st) {
        lost(w, s);
        return;
    }
    kept(w, s, g->flow);
    /* Where a cut's time goes (the session bench reads this line): the
     * terminals, the push-relabel run on the device's clock, and the rest
     * (the labels on the device and their copy to the host). */
    const double all = gcut__now_ms() - w->cut_began;
    const gcut__gpu_grid_stats *t = &s->grid_stats;
    gcut__log(g->ctx, 3,
              "gpu: segmentation cut from %s: %.3f ms in all, terminals %.3f ms, run %.3f ms "
              "(%lld relabels, %lld push launches), labels and the rest %.3f ms; offset %lld",
              w->cut_warm ? "the last flow" : "no flow", all, w->terminals_ms, t->run_ms,
              t->relabels, t->push_launches, all - w->terminals_ms - t->run_ms,
              (long long)w->offset);
}

/* The graph as used (as_set 0: the raised terminals, with g->terminal_offset
 * their sum, what gcut_grid_verify() checks the flow against) or as set (1:
 * the raises taken off again) into the grid's host capacities. */
static gcut_status fetch_graph(gcut_grid *g, int as_set)
{
    warm_state *w = warm_of(g);
    gcut__gpu *s = gpu_of(g);
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    int32_t *offset = NULL;
    if (!w || w->hooks.release != release || !w->have_caps || !s)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no warm graph to fetch");
    const size_t row = (size_t)g->pitch * sizeof(int32_t);
    const size_t dpitch = (size_t)s->dg.pitch * sizeof(int32_t);
    if (as_set && w->offset != 0) {
        offset = (int32_t *)malloc((size_t)g->n_padded * sizeof *offset);
        if (!offset)
            return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory for the terminals' raises");
        GPU_CHECK(ctx, cudaMemcpy2DAsync(offset, row, w->dc.offset, dpitch, row,
                                         (size_t)g->height + 2, cudaMemcpyDeviceToHost,
                                         s->stream));
    }
    for (int d = 0; d < g->ndirs; d++)
        GPU_CHECK(ctx, cudaMemcpy2DAsync(g->cap[d], row, w->dc.cap[d], dpitch, row,
                                         (size_t)g->height + 2, cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaMemcpy2DAsync(g->source_cap, row, w->dc.source, dpitch, row,
                                     (size_t)g->height + 2, cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaMemcpy2DAsync(g->sink_cap, row, w->dc.sink, dpitch, row,
                                     (size_t)g->height + 2, cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    g->terminal_offset = w->offset;
    if (offset) {
        for (int y = 0; y < g->height; y++)
            for (int x = 0; x < g->width; x++) {
                const int32_t i = gcut__grid_node(g, x, y);
                g->source_cap[i] -= offset[i];
                g->sink_cap[i] -= offset[i];
            }
    }
    if (as_set) {
        /* The residuals belong to the raised graph, not to this one. */
        g->terminal_offset = 0;
        g->solved = 0;
    }
    /* The host arrays were written past the setters: nothing is noted. */
    clear_notes(w);
fail:
    free(offset);
    return st;
}

extern "C" gcut_status gcut__gpu_warm_fetch_graph(gcut_grid *g)
{
    return fetch_graph(g, 0);
}

extern "C" gcut_status gcut__gpu_warm_fetch_graph_as_set(gcut_grid *g)
{
    return fetch_graph(g, 1);
}

extern "C" void gcut__gpu_warm_counts(gcut_context *ctx, long long *warm, long long *cold)
{
    const gcut__gpu *s = ctx ? (const gcut__gpu *)ctx->gpu : NULL;
    *warm = s ? s->warm_starts : 0;
    *cold = s ? s->cold_starts : 0;
}
