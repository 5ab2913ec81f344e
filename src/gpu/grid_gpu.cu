/* Host side of the GPU grid solvers: the device buffers kept in the
 * context (grown on demand, reused), moving a grid to the device and the
 * solution back through pinned staging, and the entry points. The solve
 * loop is in grid_gpu_run.cu, the kernels in grid_kernels/. */
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

/* Slots of the relabel's tile queue: more than the tiles, so that a
 * producer hardly ever waits for a slot to be taken. */
static size_t queue_slots(size_t tiles)
{
    return 4 * tiles + 16384; /* a run queues at most 9 tiles, and 528 blocks run at once */
}

static size_t grid_bytes(size_t nodes, int ndirs, size_t tiles)
{
    return nodes * sizeof(int32_t) * (size_t)(ndirs + 3) + nodes * sizeof(uint8_t) +
           7 * tiles * sizeof(int32_t) + queue_slots(tiles) * sizeof(unsigned long long) +
           GCUT_CNT_SLOTS * sizeof(unsigned long long);
}

/* Make the device buffers fit `g` (grow only), and the pinned staging. */
static gcut_status reserve(gcut_grid *g, gcut__gpu *s)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const int tiles_x = (g->width + GCUT_TILE_W - 1) / GCUT_TILE_W;
    const int tiles_y = (g->height + GCUT_TILE_H - 1) / GCUT_TILE_H;
    const int pitch = tiles_x * GCUT_TILE_W + 2, rows = tiles_y * GCUT_TILE_H + 2;
    const size_t nodes = (size_t)pitch * rows, tiles = (size_t)tiles_x * tiles_y;
    const size_t half = (size_t)g->n_padded * sizeof(int32_t);

    s->grid_warm = NULL; /* the buffers are about to hold another graph */

    if (nodes > s->grid_nodes || g->ndirs > s->grid_ndirs || tiles > s->grid_tiles ||
        half > s->pinned_half) {
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
        /* queued, dirty, touched: one allocation, freed through queued. */
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queued, 3 * tiles * sizeof(int32_t)));
        s->dg.dirty = s->dg.queued + tiles;
        s->dg.touched = s->dg.queued + 2 * tiles;
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queue,
                                  queue_slots(tiles) * sizeof(unsigned long long)));
        s->dg.queue_cap = (long long)queue_slots(tiles);
        GPU_CHECK(ctx, cudaMallocHost((void **)&s->pinned, 2 * half));
        s->grid_nodes = nodes;
        s->grid_ndirs = g->ndirs;
        s->grid_tiles = tiles;
        s->pinned_half = half;
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

/* Host padded array (pitch width+2) -> device raster, through pinned half k. */
static gcut_status upload_array(gcut_grid *g, gcut__gpu *s, int k, int32_t *d_dst,
                                const int32_t *src)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const size_t host_row = (size_t)g->pitch * sizeof(int32_t);
    unsigned char *stage = s->pinned + (size_t)k * s->pinned_half;
    GPU_CHECK(ctx, cudaEventSynchronize(s->staged[k]));
    memcpy(stage, src, (size_t)g->n_padded * sizeof(int32_t));
    GPU_CHECK(ctx, cudaMemcpy2DAsync(d_dst, (size_t)s->dg.pitch * sizeof(int32_t), stage,
                                     host_row, host_row, (size_t)g->height + 2,
                                     cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->staged[k], s->stream));
fail:
    return st;
}

/* Device raster -> host padded array, through pinned half 0. */
static gcut_status download_array(gcut_grid *g, gcut__gpu *s, void *dst, const int32_t *d_src)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    const size_t host_row = (size_t)g->pitch * sizeof(int32_t);
    GPU_CHECK(ctx, cudaMemcpy2DAsync(s->pinned, host_row, d_src,
                                     (size_t)s->dg.pitch * sizeof(int32_t), host_row,
                                     (size_t)g->height + 2, cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    memcpy(dst, s->pinned, (size_t)g->n_padded * sizeof(int32_t));
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_upload(gcut_grid *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if ((st = reserve(g, s)))
        return st;
    const size_t bytes = s->grid_nodes * sizeof(int32_t);
    for (int d = 0; d < g->ndirs; d++)
        GPU_CHECK(ctx, cudaMemsetAsync(s->dg.res[d], 0, bytes, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(s->dg.excess, 0, bytes, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(s->dg.sink, 0, bytes, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(s->dg.height, 0, bytes, s->stream));
    for (int d = 0; d < g->ndirs && !st; d++)
        st = upload_array(g, s, d & 1, s->dg.res[d], g->cap[d]);
    if (!st)
        st = upload_array(g, s, 0, s->dg.excess, g->source_cap);
    if (!st)
        st = upload_array(g, s, 1, s->dg.sink, g->sink_cap);
    if (st)
        goto fail;
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
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

extern "C" gcut_status gcut__gpu_grid_download(gcut_grid *g)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    for (int d = 0; d < g->ndirs && !st; d++)
        st = download_array(g, s, g->res[d], s->dg.res[d]);
    if (st)
        return st;
    /* Labels from the exact heights of the last global relabel. */
    if ((st = download_array(g, s, s->pinned + s->pinned_half, s->dg.height)))
        return st;
    const int32_t *h = (const int32_t *)(s->pinned + s->pinned_half);
    memset(g->label, 0, (size_t)g->n_padded);
    for (int y = 0; y < g->height; y++) {
        const int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++)
            g->label[row + x] = h[row + x] >= GCUT_HEIGHT_INF;
    }
    return GCUT_OK;
}

static gcut_status solve(gcut_grid *g, int variant, int64_t *iterations)
{
    gcut_status st = gcut__gpu_grid_upload(g);
    if (!st)
        st = gcut__gpu_grid_run(g, variant, iterations);
    if (!st)
        st = gcut__gpu_grid_download(g);
    return st;
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
