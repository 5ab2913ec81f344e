/* Host side of the GPU grid solvers: the device buffers kept in the
 * context (grown on demand, reused), moving a grid to the device and its
 * solution back, and the entry points. The solve loop is in
 * grid_gpu_run.cu, the kernels in grid_kernels/.
 *
 * What a solve moves: the capacities up ((ndirs + 2) int32 a node) and one
 * label byte a node down, computed on the device from the final heights.
 * The residuals stay on the device (s->res_owner) until something asks for
 * them (gcut_grid_verify(), or another grid about to take the buffers):
 * most callers want the cut alone. Transfers go through the context's
 * pinned staging pool (staging.cu), row by row into the device's pitch. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"
#include "gpu/staging.h"

#define THREADS 256

/* Slots of the relabel's tile queue: more than the tiles, so that a
 * producer hardly ever waits for a slot to be taken. */
static size_t queue_slots(size_t tiles)
{
    return 4 * tiles + 16384; /* a run queues at most 9 tiles, and 528 blocks run at once */
}

static size_t grid_bytes(size_t nodes, int ndirs, size_t tiles)
{
    return nodes * sizeof(int32_t) * (size_t)(ndirs + 3) + 2 * nodes * sizeof(uint8_t) +
           7 * tiles * sizeof(int32_t) + queue_slots(tiles) * sizeof(unsigned long long) +
           GCUT_CNT_SLOTS * sizeof(unsigned long long);
}

/* E W S N NE SW SE NW, as gcut_dir. */
static __device__ __forceinline__ int step_dx(int d)
{
    return (d == 0 || d == 4 || d == 6) ? 1 : (d == 1 || d == 5 || d == 7) ? -1 : 0;
}

static __device__ __forceinline__ int step_dy(int d)
{
    return (d == 2 || d == 5 || d == 6) ? 1 : (d == 3 || d == 4 || d == 7) ? -1 : 0;
}

/* The first pixel (row-major) whose capacities, terminals and arcs out and
 * in, add up past INT32_MAX (gcut__grid_check_overflow's rule, on the
 * uploaded graph; the setters refuse negative values), into *first. */
static __global__ void overflow_kernel(gcut__dgrid g, unsigned long long *first)
{
    const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (p >= (long long)g.img_w * g.img_h)
        return;
    const int x = (int)(p % g.img_w), y = (int)(p / g.img_w);
    const long long i = (long long)(y + 1) * g.pitch + x + 1;
    long long total = (long long)g.excess[i] + g.sink[i];
    for (int d = 0; d < g.ndirs; d++)
        total += (long long)g.res[d][i] + g.res[d ^ 1][i + step_dx(d) + step_dy(d) * g.pitch];
    if (total > INT_MAX)
        atomicMin(first, (unsigned long long)p);
}

/* labels over the host's padded raster (pitch img_w + 2, the ring 0):
 * 1 = the pixel cannot reach the sink (infinite height after the run's
 * last, exact global relabel). */
static __global__ void labels_kernel(gcut__dgrid g, uint8_t *labels)
{
    const long long host_pitch = g.img_w + 2;
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= host_pitch * (g.img_h + 2))
        return;
    const int x = (int)(i % host_pitch) - 1, y = (int)(i / host_pitch) - 1;
    const int pixel = x >= 0 && x < g.img_w && y >= 0 && y < g.img_h;
    labels[i] = pixel && g.height[(long long)(y + 1) * g.pitch + x + 1] >= GCUT_HEIGHT_INF;
}

static unsigned blocks_for(long long n)
{
    long long b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b > 0 ? b : 1);
}

/* Host -> device, `g`'s arrays; returns with the copies queued. */
static gcut_status xfer_up(gcut_grid *g, gcut__gpu *s, const gcut__xfer_array *a, int n)
{
    return gcut__stage_transfer(g->ctx, s, a, n, 1);
}

/* Device -> host, `g`'s arrays; done on return. */
static gcut_status xfer_down(gcut_grid *g, gcut__gpu *s, const gcut__xfer_array *a, int n)
{
    return gcut__stage_transfer(g->ctx, s, a, n, 0);
}

/* The grid's residual arrays as a transfer (the device's from `s`). */
static int residual_arrays(gcut_grid *g, gcut__gpu *s, gcut__xfer_array *a)
{
    const size_t row = (size_t)g->pitch * sizeof(int32_t);
    const size_t dev_pitch = (size_t)s->dg.pitch * sizeof(int32_t);
    for (int d = 0; d < g->ndirs; d++)
        a[d] = {(unsigned char *)g->res[d], (unsigned char *)s->dg.res[d], row, dev_pitch,
                (size_t)g->height + 2};
    return g->ndirs;
}

/* ---- whose graph the device buffers hold ------------------------------ */

gcut_status gcut__gpu_grid_save_residuals(gcut_context *ctx, gcut__gpu *s)
{
    gcut_grid *owner = (gcut_grid *)s->res_owner;
    if (!owner)
        return GCUT_OK;
    s->res_owner = NULL;
    owner->res_on_device = 0;
    gcut_status st = gcut__grid_alloc_solution(owner); /* owner->ctx is ctx */
    gcut__xfer_array a[GCUT__MAX_DIRS];
    const int n = residual_arrays(owner, s, a);
    if (!st)
        st = xfer_down(owner, s, a, n);
    (void)ctx;
    if (st)
        owner->solved = 0; /* its proof is gone: verify says so, never reads stale arrays */
    return st;
}

/* The device buffers are about to be written for `g`: another grid's
 * residuals still there go to its host arrays first. */
static gcut_status claim(gcut_grid *g, gcut__gpu *s)
{
    if (s->res_owner && s->res_owner != g)
        return gcut__gpu_grid_save_residuals(g->ctx, s);
    s->res_owner = NULL;
    return GCUT_OK;
}

/* Make the device buffers fit `g` (grow only); another grid's residuals
 * still there are saved first. */
static gcut_status reserve(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = claim(g, s);
    if (st)
        return st;
    const int tiles_x = (g->width + GCUT_TILE_W - 1) / GCUT_TILE_W;
    const int tiles_y = (g->height + GCUT_TILE_H - 1) / GCUT_TILE_H;
    const int pitch = tiles_x * GCUT_TILE_W + 2, rows = tiles_y * GCUT_TILE_H + 2;
    const size_t nodes = (size_t)pitch * rows, tiles = (size_t)tiles_x * tiles_y;

    s->grid_warm = NULL; /* the buffers are about to hold another graph */

    if (nodes > s->grid_nodes || g->ndirs > s->grid_ndirs || tiles > s->grid_tiles) {
        gcut__gpu_release_grid(ctx);
        size_t free_bytes = 0, total_bytes = 0;
        GPU_CHECK(ctx, cudaMemGetInfo(&free_bytes, &total_bytes));
        size_t need = grid_bytes(nodes, g->ndirs, tiles);
        if (need > free_bytes)
            return gcut__fail(ctx, GCUT_E_DEVICE_NOMEM,
                              "gpu: a %dx%d grid needs %zu MiB on %s, and %zu MiB are free",
                              g->width, g->height, need >> 20, s->name, free_bytes >> 20);
        for (int d = 0; d < g->ndirs; d++)
            GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.res[d], nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.excess, nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.sink, nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.height, nodes * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.flag[0], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.flag[1], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.list[0], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.list[1], tiles * sizeof(int32_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.counters,
                                  GCUT_CNT_SLOTS * sizeof(unsigned long long)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.mask, nodes * sizeof(uint8_t)));
        GPU_CHECK(ctx, cudaMalloc((void **)&s->d_labels, nodes * sizeof(uint8_t)));
        /* queued, dirty, touched: one allocation, freed through queued. */
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queued, 3 * tiles * sizeof(int32_t)));
        s->dg.dirty = s->dg.queued + tiles;
        s->dg.touched = s->dg.queued + 2 * tiles;
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queue,
                                  queue_slots(tiles) * sizeof(unsigned long long)));
        s->dg.queue_cap = (long long)queue_slots(tiles);
        s->grid_nodes = nodes;
        s->grid_ndirs = g->ndirs;
        s->grid_tiles = tiles;
    }
    s->dg.img_w = g->width;
    s->dg.img_h = g->height;
    s->dg.ndirs = g->ndirs;
    s->dg.pitch = pitch;
    s->dg.rows = rows;
    s->dg.tiles_x = tiles_x;
    s->dg.tiles_y = tiles_y;
    return GCUT_OK;
fail:
    gcut__gpu_release_grid(ctx);
    return st;
}

/* Zero what the upload leaves: the rows below the host's raster (the tail
 * of the last tiles; the columns right of the host's pitch come up zeroed
 * with their rows). */
static cudaError_t zero_margins(gcut_grid *g, gcut__gpu *s, int32_t *d)
{
    const size_t dev_pitch = (size_t)s->dg.pitch * sizeof(int32_t);
    const size_t host_rows = (size_t)g->height + 2;
    cudaError_t err = cudaSuccess;
    if ((size_t)s->dg.rows > host_rows)
        err = cudaMemsetAsync((unsigned char *)d + host_rows * dev_pitch, 0,
                              ((size_t)s->dg.rows - host_rows) * dev_pitch, s->stream);
    return err;
}

/* The device's overflow check of the uploaded graph; the message as the
 * host check words it, its total recomputed from the host arrays. */
static gcut_status check_overflow(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    unsigned long long *d_first = s->dg.counters; /* zeroed by the run */
    GPU_CHECK(ctx, cudaMemsetAsync(d_first, 0xff, sizeof *d_first, s->stream));
    overflow_kernel<<<blocks_for((long long)g->width * g->height), THREADS, 0, s->stream>>>(
        s->dg, d_first);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, d_first, sizeof *d_first,
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    if (s->h_counters[0] != ~0ull) {
        const long long p = (long long)s->h_counters[0];
        const int x = (int)(p % g->width), y = (int)(p / g->width);
        const int32_t i = gcut__grid_node(g, x, y);
        long long total = (long long)g->source_cap[i] + g->sink_cap[i];
        for (int d = 0; d < g->ndirs; d++)
            total += (long long)g->cap[d][i] + g->cap[d ^ 1][i + g->offset[d]];
        st = gcut__fail(ctx, GCUT_E_OVERFLOW,
                        "grid: the capacities at pixel (%d, %d) add up to %lld, over the int32 "
                        "limit %d",
                        x, y, total, INT32_MAX);
    }
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_upload(gcut_grid *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    const double entered = gcut__now_ms();
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    memset(&s->xfer_trace, 0, sizeof s->xfer_trace);
    s->xfer_trace.upload_in = entered;
    if ((st = reserve(g, s)))
        return st;
    s->xfer_trace.reserved = gcut__now_ms();
    s->grid_owner = NULL;
    {
        gcut__xfer_array a[GCUT__MAX_DIRS + 2];
        const size_t row = (size_t)g->pitch * sizeof(int32_t);
        const size_t dev_pitch = (size_t)s->dg.pitch * sizeof(int32_t);
        const size_t rows = (size_t)g->height + 2;
        int n = 0;
        for (int d = 0; d < g->ndirs; d++)
            a[n++] = {(unsigned char *)g->cap[d], (unsigned char *)s->dg.res[d], row, dev_pitch,
                      rows};
        a[n++] = {(unsigned char *)g->source_cap, (unsigned char *)s->dg.excess, row, dev_pitch,
                  rows};
        a[n++] = {(unsigned char *)g->sink_cap, (unsigned char *)s->dg.sink, row, dev_pitch, rows};
        for (int k = 0; k < n; k++)
            GPU_CHECK(ctx, zero_margins(g, s, (int32_t *)a[k].dev));
        GPU_CHECK(ctx, cudaMemsetAsync(s->dg.height, 0, s->grid_nodes * sizeof(int32_t),
                                       s->stream));
        if ((st = xfer_up(g, s, a, n)))
            goto fail;
    }
    s->xfer_trace.queued = gcut__now_ms();
    if ((st = check_overflow(g, s)))
        goto fail;
    s->xfer_trace.checked = gcut__now_ms();
    s->grid_owner = g;
    return GCUT_OK;
fail:
    s->grid_owner = NULL;
    return st;
}

/* For a graph built on the device (src/gpu/segment_gpu.cu): the buffers,
 * sized for `g`; the caller fills them and sets grid_owner. */
extern "C" gcut_status gcut__gpu_grid_reserve(gcut_grid *g)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(g->ctx, &s);
    if (!st)
        st = reserve(g, s);
    if (!st)
        s->grid_owner = NULL;
    return st;
}

extern "C" gcut_status gcut__gpu_grid_claim(gcut_grid *g)
{
    gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
    return s ? claim(g, s) : GCUT_OK;
}

/* The labels of the run just done into g->label (host padded raster). */
static gcut_status download_labels(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    labels_kernel<<<blocks_for((long long)g->n_padded), THREADS, 0, s->stream>>>(s->dg,
                                                                                s->d_labels);
    GPU_CHECK(ctx, cudaGetLastError());
    {
        const gcut__xfer_array a = {g->label, s->d_labels, (size_t)g->pitch, (size_t)g->pitch,
                                    (size_t)g->height + 2};
        st = xfer_down(g, s, &a, 1);
    }
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_download(gcut_grid *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if ((st = gcut__grid_alloc_solution(g)) || (st = download_labels(g, s)))
        return st;
    gcut__xfer_array a[GCUT__MAX_DIRS];
    const int n = residual_arrays(g, s, a);
    if ((st = xfer_down(g, s, a, n)))
        return st;
    g->res_on_device = 0;
    if (s->res_owner == g)
        s->res_owner = NULL;
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_grid_fetch_residuals(gcut_grid *g)
{
    if (!g->res_on_device)
        return GCUT_OK;
    gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
    if (!s || s->res_owner != g) {
        g->res_on_device = 0;
        g->solved = 0;
        return gcut__fail(g->ctx, GCUT_E_STATE,
                          "grid: the residuals of the last GPU solve are no longer on the device");
    }
    gcut_status st = GCUT_OK;
    GPU_CHECK(g->ctx, cudaSetDevice(s->device));
    st = gcut__gpu_grid_save_residuals(g->ctx, s);
fail:
    return st;
}

extern "C" void gcut__gpu_grid_forget(gcut_grid *g)
{
    gcut__gpu *s = g->ctx ? (gcut__gpu *)g->ctx->gpu : NULL;
    if (s && s->res_owner == g)
        s->res_owner = NULL;
    g->res_on_device = 0;
}

/* After a run: the labels down; the residuals stay on the device. */
extern "C" gcut_status gcut__gpu_grid_finish(gcut_grid *g)
{
    gcut__gpu *s = (gcut__gpu *)g->ctx->gpu;
    s->xfer_trace.finish_in = gcut__now_ms();
    gcut_status st = download_labels(g, s);
    s->xfer_trace.finish_out = gcut__now_ms();
    if (st)
        return st;
    s->res_owner = g;
    g->res_on_device = 1;
    return GCUT_OK;
}

static gcut_status solve(gcut_grid *g, int variant, int64_t *iterations)
{
    gcut_status st = gcut__gpu_grid_upload(g);
    if (!st)
        st = gcut__gpu_grid_run(g, variant, iterations);
    return st ? st : gcut__gpu_grid_finish(g);
}

extern "C" gcut_status gcut__gpu_grid_tiled(gcut_grid *g, int64_t *iterations)
{
    return solve(g, GCUT__GPU_GRID_TILED, iterations);
}

extern "C" gcut_status gcut__gpu_grid_lockfree(gcut_grid *g, int64_t *iterations)
{
    return solve(g, GCUT__GPU_GRID_LOCKFREE, iterations);
}

extern "C" gcut_status gcut__gpu_grid_stats_get(gcut_context *ctx, gcut__gpu_grid_stats *stats)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no GPU run yet");
    *stats = s->grid_stats;
    stats->device_bytes = grid_bytes(s->grid_nodes, s->grid_ndirs, s->grid_tiles);
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_grid_xfer_trace_json(gcut_context *ctx, double t0, char *buf,
                                                      size_t size)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s || !ctx->stage_pool || !s->xfer_trace.timed)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no grid uploaded from host arrays yet");
    const gcut__gpu_xfer_trace *t = &s->xfer_trace;
    float h2d_ms = -1; /* the stream from the first copy up to the last one's end */
    if (gcut__stage_upload_span_ms(ctx, &h2d_ms) != GCUT_OK)
        h2d_ms = -1;
    snprintf(buf, size,
             "{\"upload_in\": %.3f, \"reserved\": %.3f, \"queued\": %.3f, \"checked\": %.3f, "
             "\"finish_in\": %.3f, \"finish_out\": %.3f, \"h2d_span_ms\": %.3f, "
             "\"copy_ms\": %.3f, \"wait_ms\": %.3f, \"up_bytes\": %lld, \"chunks\": %d, "
             "\"threads\": %d}",
             t->upload_in - t0, t->reserved - t0, t->queued - t0, t->checked - t0,
             t->finish_in - t0, t->finish_out - t0, h2d_ms, t->copy_ms, t->wait_ms, t->up_bytes,
             t->chunks, t->workers);
    return GCUT_OK;
}
