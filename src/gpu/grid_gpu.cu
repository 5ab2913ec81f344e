/* Host side of the GPU grid solvers: moving a grid to the device and back,
 * and the push-relabel main loop (global relabel, termination test, pushes).
 * The host reads the device once per global relabel (the active count);
 * the relabel itself is one persistent launch, the pushes a fixed number of
 * launches over device-built lists of active tiles. By default the host
 * reads the count while the first push launch after the relabel runs, and
 * the launches clean up after themselves, so the device never waits for
 * the host or for a memset between two launches.
 *
 * Termination is decided on exact heights only: after a global relabel (BFS
 * from the sink to convergence), a pixel of finite height can reach the
 * sink, so "no pixel of finite height has excess" means no augmenting path
 * is left. Then the pixels of infinite height (cut off from the sink) are
 * the source side of a minimum cut, every arc leaving them is saturated, and
 * the flow into the sink (plus what the initial cancel sent straight
 * through) equals that cut's capacity. */
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

/* A bound on main-loop rounds, so that a bug shows as an error, not a hang. */
#define MAX_ROUNDS 1000000

/* How the push launches are driven (the push_worklist knob): 0 means the
 * default, PUSH_WIDE_TAIL (bench/results: the fastest measured); the
 * persistent worklist launch; launches with a memset before each and the
 * relabel's count read before the first (PUSH_SYNC, as profiled); launches
 * with nothing between them, the first enqueued before the count is read
 * (PUSH_AHEAD); the same with each launch after the first a programmatic
 * dependent of the one before (PUSH_OVERLAP); PUSH_OVERLAP with twice the
 * launches in a push phase that starts on few active tiles (PUSH_TAIL),
 * with the push kernel built for 4 resident blocks a multiprocessor
 * instead of 3 (PUSH_WIDE), or with both (PUSH_WIDE_TAIL, round 3 of
 * 2026-11-22); PUSH_WIDE_TAIL whose push phase on few active tiles is,
 * after its first launch, one persistent worklist launch (PUSH_TAIL_WL,
 * round 4: flow crosses a tile border as soon as a block is free instead
 * of at the next launch). Round 6 measured PUSH_TAIL_WL's worklist launch
 * with four times and half its budget of tile runs, and with runs of
 * twice and half the sweeps (at half and twice the budget): all slower
 * (bench/results). */
enum {
    PUSH_DEFAULT = 0,
    PUSH_WORKLIST = 1,
    PUSH_SYNC = 2,
    PUSH_AHEAD = 3,
    PUSH_OVERLAP = 4,
    PUSH_TAIL = 5,
    PUSH_WIDE = 6,
    PUSH_WIDE_TAIL = 7,
    PUSH_TAIL_WL = 8
};

/* The relabel's parts (GCUT_RELABEL_* bits) that relabel_worklist = 1
 * means; relabel_worklist = 2 + bits picks others (bench/results). A
 * build can set other default parts (-DGCUT_GRID_RELABEL_PARTS=BITS), so
 * that bench/gpu_device_pick.sh runs the checks on either default. */
#ifndef GCUT_GRID_RELABEL_PARTS
#define GCUT_GRID_RELABEL_PARTS                                                                   \
    (GCUT_RELABEL_OVERLAP | GCUT_RELABEL_DIRTY | GCUT_RELABEL_KEEP | GCUT_RELABEL_SWEEP)
#endif
#define RELABEL_DEFAULT GCUT_GRID_RELABEL_PARTS

static_assert(GCUT_GPU_GRID_RELABEL_KEEP_ALWAYS ==
                  2 + (GCUT_RELABEL_OVERLAP | GCUT_RELABEL_DIRTY | GCUT_RELABEL_KEEP |
                       GCUT_RELABEL_KEEP_ALWAYS),
              "gpu.h's forced-KEEP mode names these parts");
static_assert(GCUT_GPU_GRID_PUSH_TAIL_WL == PUSH_TAIL_WL, "gpu.h names the tail worklist mode");
static_assert(GCUT_GPU_GRID_RELABEL_SWEEP_ALWAYS ==
                  2 + (GCUT_RELABEL_OVERLAP | GCUT_RELABEL_DIRTY | GCUT_RELABEL_KEEP |
                       GCUT_RELABEL_SWEEP | GCUT_RELABEL_SWEEP_ANY),
              "gpu.h's forced-SWEEP mode names these parts");
static_assert(GCUT_GPU_GRID_RELABEL_SWEEP_KEEP_ALWAYS ==
                  GCUT_GPU_GRID_RELABEL_SWEEP_ALWAYS + GCUT_RELABEL_KEEP_ALWAYS,
              "gpu.h's forced SWEEP-and-KEEP mode names these parts");

/* The push mode as set, PUSH_DEFAULT resolved. */
static int push_mode_raw(const gcut__gpu *s)
{
    return s->push_worklist == PUSH_DEFAULT ? PUSH_WIDE_TAIL : s->push_worklist;
}

/* The push mode, with PUSH_OVERLAP and the modes over it as PUSH_AHEAD
 * plus the overlap flag. */
static int push_mode_of(const gcut__gpu *s, int *overlap)
{
    const int mode = push_mode_raw(s);
    if (overlap)
        *overlap = mode >= PUSH_OVERLAP;
    return mode >= PUSH_OVERLAP ? PUSH_AHEAD : mode;
}

static int push_mode(const gcut__gpu *s)
{
    return push_mode_of(s, NULL);
}

static int relabel_variant(const gcut__gpu *s)
{
    return s->relabel_worklist == 1 ? RELABEL_DEFAULT : s->relabel_worklist - 2;
}

/* Slots of the relabel's tile queue: more than the tiles, so that a
 * producer hardly ever waits for a slot to be taken. */
static size_t queue_slots(size_t tiles)
{
    return 4 * tiles + 16384; /* a run queues at most 9 tiles, and 528 blocks run at once */
}

static size_t grid_bytes(size_t nodes, int ndirs, size_t tiles)
{
    return nodes * sizeof(int32_t) * (size_t)(ndirs + 3) + nodes * sizeof(uint8_t) +
           8 * tiles * sizeof(int32_t) + queue_slots(tiles) * sizeof(unsigned long long) +
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
        /* queued, mask_ready, dirty, touched: one allocation, freed through queued. */
        GPU_CHECK(ctx, cudaMalloc((void **)&s->dg.queued, 4 * tiles * sizeof(int32_t)));
        s->dg.mask_ready = s->dg.queued + tiles;
        s->dg.dirty = s->dg.queued + 2 * tiles;
        s->dg.touched = s->dg.queued + 3 * tiles;
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

/* Read the counters back (waits for the stream). */
static gcut_status read_counters(gcut_context *ctx, gcut__gpu *s)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, s->dg.counters,
                                   GCUT_CNT_SLOTS * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
fail:
    return st;
}

/* Count the active pixels into flag[out] and GCUT_CNT_ACTIVE; for the
 * push worklist, also queue their tiles on an emptied queue. */
static gcut_status count_active(gcut_context *ctx, gcut__gpu *s, int out)
{
    gcut_status st = GCUT_OK;
    const gcut__dgrid *dg = &s->dg;
    const size_t tiles = (size_t)dg->tiles_x * dg->tiles_y;
    if (!(s->relabel_worklist && push_mode(s) == PUSH_AHEAD)) { /* else the relabel prep did */
        GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_ACTIVE], 0,
                                       sizeof(unsigned long long), s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_LIST0 + out], 0,
                                       sizeof(unsigned long long), s->stream));
    }
    if (push_mode(s) == PUSH_WORKLIST) {
        GPU_CHECK(ctx, cudaMemsetAsync(dg->queue, 0, (size_t)dg->queue_cap * sizeof *dg->queue,
                                       s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(dg->queued, 0, tiles * sizeof(int32_t), s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_HEAD], 0,
                                       3 * sizeof(unsigned long long), s->stream));
    }
    GPU_CHECK(ctx, gcut__grid_count_active_launch(dg, out, push_mode(s) == PUSH_WORKLIST,
                                                  s->stream));
fail:
    return st;
}

/* Whether the relabel after this push phase starts from the last one's
 * heights (the KEEP part, grid_relabel.cu): when that one left few active
 * tiles (a sixteenth of the tiles or fewer), the pushes change few tiles,
 * and a relabel from scratch walks the whole grid again for them. By
 * default (KEEP) on 4-connected grids of 4096 tiles (2 MP) or more only:
 * measured at 8.3 MP 9% faster 4-connected, 2% slower 8-connected, and 2
 * to 6% slower at 1 MP (its extra launches; bench/results); KEEP_ANY on
 * every grid, KEEP_ALWAYS after every push phase (the checks). */
static int relabel_incremental(const gcut__gpu *s)
{
    const int v = relabel_variant(s);
    const long long tiles = (long long)s->dg.tiles_x * s->dg.tiles_y;
    /* The push worklist leaves entries on the queue, which KEEP's passes
     * take as empty. */
    if (!s->relabel_worklist || !(v & GCUT_RELABEL_KEEP) || push_mode(s) == PUSH_WORKLIST ||
        s->queue_used)
        return 0;
    if (v & GCUT_RELABEL_KEEP_ALWAYS)
        return 1;
    if (!(v & GCUT_RELABEL_KEEP_ANY) && (s->dg.ndirs != 4 || tiles < 4096))
        return 0;
    return s->last_active_tiles * 16 <= tiles;
}

/* The parts the next relabel runs: the set ones, with SWEEP (a first pass
 * over every tile off the queue, grid_relabel.cu) only where it paid. It
 * saves the queue's round trips on every tile's first visit and costs a
 * barrier over the grid, whose wait does not shrink with the grid, and a
 * check of the tiles' borders: measured 2 to 6% faster on 4-connected
 * grids of 4 and 8.3 MP and 0.1 to 1.1% at 8.3 MP 8-connected, but 1 to 6%
 * slower 8-connected at 1 and 4 MP and mixed at 1 MP 4-connected
 * (bench/results, round 6). A 4-connected step reads half the neighbours,
 * so the round trips are a larger part of a visit there. Hence
 * 4-connected grids of 4096 tiles (2 MP) or more (8-connected: its gain at
 * 8.3 MP was within the spread and it lost at 4 MP, so not there); SWEEP_ANY
 * on every grid (the checks). */
static int relabel_parts(const gcut__gpu *s)
{
    int v = relabel_variant(s);
    const long long tiles = (long long)s->dg.tiles_x * s->dg.tiles_y;
    if (v & GCUT_RELABEL_SWEEP_ANY)
        return v | GCUT_RELABEL_SWEEP;
    if (s->dg.ndirs != 4 || tiles < 4096)
        v &= ~GCUT_RELABEL_SWEEP;
    return v;
}

/* The persistent relabel, enqueued: the launch, the count of active pixels
 * (their tiles in flag[0] and list[0]), and the counters' copy to the host,
 * which relabel_collect() waits for (s->stop marks it: the run's end
 * records it again). `all_dirty`: every tile's direction bytes are stale
 * (the run's first relabel, or lock-free pushes, which keep no flags);
 * else the relabel may start from the last one's heights (KEEP). */
static gcut_status relabel_enqueue(gcut_context *ctx, gcut__gpu *s, int all_dirty)
{
    gcut_status st = GCUT_OK;
    s->relabel_incremental = !all_dirty && relabel_incremental(s);
    s->queue_used = 0;
    GPU_CHECK(ctx, cudaEventRecord(s->relabel_start, s->stream));
    GPU_CHECK(ctx, gcut__grid_relabel_launch(&s->dg, relabel_parts(s), all_dirty,
                                             s->relabel_incremental, &s->relabel_blocks,
                                             &s->relabel_swept, s->stream));
    s->bfs_launches++;
    if ((st = count_active(ctx, s, 0)))
        return st;
    GPU_CHECK(ctx, cudaEventRecord(s->relabel_stop, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, s->dg.counters,
                                   GCUT_CNT_SLOTS * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
fail:
    return st;
}

/* What the relabel's statistics and the caller need from the counters;
 * `visits`: the relabel's tile visits, -1 when not counted. The cycle's
 * record (the first GCUT_GPU_GRID_CYCLES) reads the same counters. */
static gcut_status relabel_account(gcut_context *ctx, gcut__gpu *s, unsigned long long *active,
                                   long long visits)
{
    gcut_status st = GCUT_OK;
    const unsigned long long *c = s->h_counters;
    *active = c[GCUT_CNT_ACTIVE];
    s->last_active_tiles = (long long)c[GCUT_CNT_LIST0];
    const long long k = s->relabels;
    gcut__gpu_grid_cycle *cyc = k < GCUT_GPU_GRID_CYCLES ? &s->cycle[k] : NULL;
    {
        /* Tile runs: of the push phase before this relabel (push worklist),
         * or of all launches so far. */
        const long long taken = (long long)c[GCUT_CNT_TAKEN];
        const long long phase = push_mode(s) == PUSH_WORKLIST ? taken : taken - s->taken_before;
        s->tile_runs = push_mode(s) == PUSH_WORKLIST ? s->tile_runs + taken : taken;
        s->taken_before = taken;
        if (k >= 1 && k - 1 < GCUT_GPU_GRID_CYCLES)
            s->cycle[k - 1].tile_runs = phase;
    }
    s->relabels++;
    {
        float ms = 0;
        GPU_CHECK(ctx, cudaEventElapsedTime(&ms, s->relabel_start, s->relabel_stop));
        s->relabel_ms += ms;
        if (cyc) {
            float at = 0; /* both events are done: the host waited for a later one */
            GPU_CHECK(ctx, cudaEventElapsedTime(&at, s->start, s->relabel_start));
            memset(cyc, 0, sizeof *cyc);
            cyc->start_ms = at;
            cyc->active_pixels = (long long)c[GCUT_CNT_ACTIVE];
            cyc->active_tiles = (long long)c[GCUT_CNT_LIST0]; /* the persistent relabel's list */
            cyc->visits = visits;
            if (s->relabel_incremental) {
                const long long tiles = (long long)s->dg.tiles_x * s->dg.tiles_y;
                cyc->kept = tiles - (long long)c[GCUT_CNT_RESTART];
                cyc->checks = (long long)c[GCUT_CNT_CHECKS];
            }
            cyc->relabel_ms = ms;
        }
    }
fail:
    return st;
}

/* Wait for relabel_enqueue()'s counters: the active pixels. */
static gcut_status relabel_collect(gcut_context *ctx, gcut__gpu *s, unsigned long long *active)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaEventSynchronize(s->stop));
    if (s->h_counters[GCUT_CNT_WORK] != 0)
        return gcut__fail(ctx, GCUT_E_DEVICE, "gpu: the relabel's convergence counter is %llu",
                          s->h_counters[GCUT_CNT_WORK]);
    {
        /* Each block ends on one take that finds the queue done; KEEP's
         * second pass claims from where the first left the head; SWEEP's
         * first pass visits every tile once, off the queue. */
        const unsigned long long *c = s->h_counters;
        const long long first = s->relabel_incremental ? (long long)c[GCUT_CNT_CHECKS] : 0;
        const long long swept =
            s->relabel_swept ? (long long)s->dg.tiles_x * s->dg.tiles_y : 0;
        const long long visits =
            (long long)c[GCUT_CNT_HEAD] - first - s->relabel_blocks + swept;
        s->relabel_visits += visits;
        return relabel_account(ctx, s, active, visits);
    }
fail:
    return st;
}

/* Global relabel: BFS rounds until no tile border moves, then the count of
 * active pixels, whose tile flags end in flag[*flags] for the pushes. The
 * rounds go in batches of bfs_batch launches between reads of the counter,
 * which only the last of a batch adds to: a launch that moves no border
 * leaves no tile flagged, so the launches after it in the batch return at
 * once. The count of active pixels rides along with every read (into the
 * flag array the next BFS launch clears first) and is used once the BFS
 * converged. */
static gcut_status global_relabel(gcut_context *ctx, gcut__gpu *s, unsigned long long *active,
                                  int *flags, int all_dirty)
{
    gcut_status st = GCUT_OK;
    const gcut__dgrid *dg = &s->dg;
    const size_t flag_bytes = (size_t)dg->tiles_x * dg->tiles_y * sizeof(int32_t);
    unsigned long long *work = &s->dg.counters[GCUT_CNT_WORK];
    int in = 0, first = 1;
    if (s->relabel_worklist) {
        /* One persistent launch converges; then one count (WORK stays 0). */
        *flags = 0;
        if ((st = relabel_enqueue(ctx, s, all_dirty)))
            return st;
        return relabel_collect(ctx, s, active);
    }
    GPU_CHECK(ctx, cudaEventRecord(s->relabel_start, s->stream));
    for (;;) {
        for (int k = 0; k < s->bfs_batch; k++) {
            GPU_CHECK(ctx, cudaMemsetAsync(dg->flag[1 - in], 0, flag_bytes, s->stream));
            if (k == s->bfs_batch - 1)
                GPU_CHECK(ctx, cudaMemsetAsync(work, 0, sizeof *work, s->stream));
            GPU_CHECK(ctx, gcut__grid_bfs_launch(dg, first, in, s->stream));
            s->bfs_launches++;
            first = 0;
            in = 1 - in;
        }
        if ((st = count_active(ctx, s, 1 - in)))
            return st;
        GPU_CHECK(ctx, cudaEventRecord(s->relabel_stop, s->stream));
        if ((st = read_counters(ctx, s)))
            return st;
        if (s->h_counters[GCUT_CNT_WORK] == 0)
            break;
    }
    *flags = 1 - in;
    return relabel_account(ctx, s, active, -1);
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_grid_run(gcut_grid *g, int variant, int64_t *iterations)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if (s->grid_owner != g)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: this grid is not on the device (upload first)");
    s->grid_owner = NULL; /* the run consumes the uploaded capacities */
    s->push_launches = s->bfs_launches = s->relabels = 0;
    s->tile_runs = s->relabel_visits = s->taken_before = 0;
    s->relabel_ms = 0;
    const gcut__dgrid *dg = &s->dg;
    const size_t flag_bytes = (size_t)dg->tiles_x * dg->tiles_y * sizeof(int32_t);
    /* PUSH_AHEAD: the relabel's prep zeroes the counters the pushes append
     * to, the active count clears flag[1], each push launch empties its
     * input for the next one. */
    const int ahead = variant == 0 && s->relabel_worklist && push_mode(s) == PUSH_AHEAD;
    /* The default on 8-connected grids of 1024 tiles (0.5 MP) or more:
     * PUSH_TAIL_WL, measured 0 to 5% faster there at 1 and 8.3 MP and 5 to
     * 12% slower 4-connected (bench/results, round 4). */
    const int raw = s->push_worklist == PUSH_DEFAULT && g->ndirs == 8 &&
                            (long long)dg->tiles_x * dg->tiles_y >= 1024
                        ? PUSH_TAIL_WL
                        : push_mode_raw(s);
    s->push_mode_run = raw;
    const int wide = raw == PUSH_WIDE || raw == PUSH_WIDE_TAIL || raw == PUSH_TAIL_WL;
    const int tail = raw == PUSH_TAIL || raw == PUSH_WIDE_TAIL || raw == PUSH_TAIL_WL;
    int push_blocks = 0;
    GPU_CHECK(ctx, gcut__grid_tiled_blocks(dg, s->shared_res, wide, &push_blocks));

    GPU_CHECK(ctx, cudaMemsetAsync(dg->counters, 0, GCUT_CNT_SLOTS * sizeof(unsigned long long),
                                   s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    GPU_CHECK(ctx, gcut__grid_init_launch(dg, s->stream));
    for (int round = 0;; round++) {
        unsigned long long active = 0;
        int in = 0;
        if (round == MAX_ROUNDS) {
            st = gcut__fail(ctx, GCUT_E_DEVICE,
                            "gpu: push-relabel did not finish in %d rounds on a %dx%d grid",
                            MAX_ROUNDS, g->width, g->height);
            goto fail;
        }
        if (ahead) {
            /* The first push launch runs while the host reads the count;
             * after the last relabel it finds no active tile and ends. */
            if ((st = relabel_enqueue(ctx, s, round == 0)))
                goto fail;
            GPU_CHECK(ctx, gcut__grid_tiled_launch(dg, 0, s->sweeps, s->shared_res, wide, 0,
                                                   s->stream));
            if ((st = relabel_collect(ctx, s, &active)))
                goto fail;
        } else if ((st = global_relabel(ctx, s, &active, &in, round == 0 || variant != 0))) {
            goto fail;
        }
        if (active == 0)
            break;
        if (ahead) {
            int overlap = 0;
            push_mode_of(s, &overlap);
            s->push_launches++;
            int launches = s->pushes_per_relabel;
            /* Few active tiles (a quarter of the resident blocks or fewer):
             * each launch is one short round, cheaper than the relabel and
             * the cycle that what is left would otherwise wait for. */
            const long long listed = (long long)s->h_counters[GCUT_CNT_LIST0];
            if (tail && 4 * listed <= push_blocks)
                launches *= 2;
            if (tail && 4 * listed <= push_blocks && raw == PUSH_TAIL_WL) {
                /* The rest of the phase as one worklist launch over the
                 * tiles the first launch left (list[1]), with as many tile
                 * runs as the launches would have had at most over the
                 * tiles listed now (TAKEN counts every run of the solve: the
                 * first launch added `listed` to the count read). */
                const long long budget = (long long)s->h_counters[GCUT_CNT_TAKEN] + listed +
                                         (long long)(launches - 1) * (listed > 64 ? listed : 64);
                GPU_CHECK(ctx, cudaMemsetAsync(dg->queue, 0,
                                               (size_t)dg->queue_cap * sizeof *dg->queue,
                                               s->stream));
                GPU_CHECK(ctx, cudaMemsetAsync(dg->queued, 0, flag_bytes, s->stream));
                GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_HEAD], 0,
                                               3 * sizeof(unsigned long long), s->stream));
                GPU_CHECK(ctx, gcut__grid_enqueue_list_launch(dg, 1, s->stream));
                GPU_CHECK(ctx, gcut__grid_tiled_worklist_launch(dg, s->sweeps, s->shared_res,
                                                                budget, s->stream));
                s->push_launches++;
                s->queue_used = 1; /* the next relabel from scratch */
                if (s->relabels <= GCUT_GPU_GRID_CYCLES)
                    s->cycle[s->relabels - 1].launches = 2;
                continue;
            }
            for (int k = 1; k < launches; k++) {
                GPU_CHECK(ctx, gcut__grid_tiled_launch(dg, k & 1, s->sweeps, s->shared_res, wide,
                                                       overlap, s->stream));
                s->push_launches++;
            }
            if (s->relabels <= GCUT_GPU_GRID_CYCLES)
                s->cycle[s->relabels - 1].launches = launches;
        } else if (variant == 0 && push_mode(s) == PUSH_WORKLIST) {
            /* Tile runs: pushes_per_relabel per tile queued at the start
             * (as many as that many launches over those tiles would do),
             * and a floor so that a few active tiles may spread. */
            const long long queued = (long long)s->h_counters[GCUT_CNT_TAIL];
            const long long budget =
                (long long)s->pushes_per_relabel * (queued > 256 ? queued : 256);
            GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_TAKEN], 0,
                                           sizeof(unsigned long long), s->stream));
            GPU_CHECK(ctx, gcut__grid_tiled_worklist_launch(dg, s->sweeps, s->shared_res, budget,
                                                            s->stream));
            s->push_launches++;
        } else if (variant == 0) {
            for (int k = 0; k < s->pushes_per_relabel; k++) {
                GPU_CHECK(ctx, cudaMemsetAsync(dg->flag[1 - in], 0, flag_bytes, s->stream));
                GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_LIST0 + 1 - in], 0,
                                               sizeof(unsigned long long), s->stream));
                GPU_CHECK(ctx,
                          gcut__grid_tiled_launch(dg, in, s->sweeps, s->shared_res, 0, 0,
                                                  s->stream));
                s->push_launches++;
                in = 1 - in;
            }
        } else {
            GPU_CHECK(ctx, gcut__grid_lockfree_launch(dg, s->lockfree_cycles, s->stream));
            s->push_launches++;
        }
    }
    GPU_CHECK(ctx, gcut__grid_sink_sum_launch(dg, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    if ((st = read_counters(ctx, s)))
        goto fail;
    GPU_CHECK(ctx, cudaEventElapsedTime(&s->run_ms, s->start, s->stop));
    {
        const unsigned long long *c = s->h_counters;
        g->flow = (int64_t)(c[GCUT_CNT_CANCELLED] + c[GCUT_CNT_SINK_START] - c[GCUT_CNT_SINK_END]);
    }
    if (iterations)
        *iterations = s->push_launches;
    g->info.device = s->name;
    return GCUT_OK;
fail:
    cudaStreamSynchronize(s->stream);
    cudaGetLastError();
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
    return solve(g, 0, iterations);
}

extern "C" gcut_status gcut__gpu_grid_lockfree(gcut_grid *g, int64_t *iterations)
{
    return solve(g, 1, iterations);
}

extern "C" gcut_status gcut__gpu_grid_stats_get(gcut_context *ctx, gcut__gpu_grid_stats *stats)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no GPU run yet");
    stats->run_ms = s->run_ms;
    stats->relabel_ms = s->relabel_ms;
    stats->relabel_worklist = s->relabel_worklist;
    stats->push_worklist = s->push_mode_run;
    stats->relabel_variant = s->relabel_worklist ? relabel_variant(s) : -1;
    stats->relabel_visits = s->relabel_visits;
    stats->tile_runs = s->tile_runs;
    stats->shared_res =
        s->shared_res == GCUT_PUSH_SHARED ? GCUT_PUSH_SHARED_DEFAULT : s->shared_res;
    stats->push_launches = s->push_launches;
    stats->bfs_launches = s->bfs_launches;
    stats->relabels = s->relabels;
    stats->device_bytes = grid_bytes(s->grid_nodes, s->grid_ndirs, s->grid_tiles);
    stats->sweeps = s->sweeps;
    stats->pushes_per_relabel = s->pushes_per_relabel;
    stats->bfs_batch = s->bfs_batch;
    stats->lockfree_cycles = s->lockfree_cycles;
    stats->cycles = s->relabels < GCUT_GPU_GRID_CYCLES ? (int)s->relabels : GCUT_GPU_GRID_CYCLES;
    memcpy(stats->cycle, s->cycle, (size_t)stats->cycles * sizeof s->cycle[0]);
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_grid_tune(gcut_context *ctx, int sweeps, int pushes_per_relabel,
                                           int lockfree_cycles, int bfs_batch)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if (sweeps > 0)
        s->sweeps = sweeps;
    if (pushes_per_relabel > 0)
        s->pushes_per_relabel = pushes_per_relabel;
    if (lockfree_cycles > 0)
        s->lockfree_cycles = lockfree_cycles;
    if (bfs_batch > 0)
        s->bfs_batch = bfs_batch;
    return GCUT_OK;
}

extern "C" gcut_status gcut__gpu_grid_mode(gcut_context *ctx, int relabel_worklist, int shared_res,
                                           int push_worklist)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if (relabel_worklist >= 0)
        s->relabel_worklist = relabel_worklist > 2 + GCUT_RELABEL_MAX ? 1 : relabel_worklist;
    if (shared_res >= 0)
        s->shared_res = shared_res > GCUT_PUSH_SHARED_PIXEL_BF_AR ? GCUT_PUSH_SHARED : shared_res;
    if (push_worklist >= 0)
        s->push_worklist = push_worklist > PUSH_TAIL_WL ? PUSH_DEFAULT : push_worklist;
    return GCUT_OK;
}
