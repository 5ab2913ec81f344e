/* The GPU grid push-relabel main loop: a global relabel, the termination
 * test, a push phase; again. The host reads the device once per global
 * relabel (the active count), while the first push launch after the
 * relabel runs; the launches clean up after themselves, so the device
 * never waits for the host or for a memset between two launches.
 *
 * Termination is decided on exact heights only: after a global relabel (BFS
 * from the sink to convergence), a pixel of finite height can reach the
 * sink, so "no pixel of finite height has excess" means no augmenting path
 * is left. Then the pixels of infinite height (cut off from the sink) are
 * the source side of a minimum cut, every arc leaving them is saturated, and
 * the flow into the sink (plus what the initial cancel sent straight
 * through) equals that cut's capacity. */
#include <string.h>

#include "graph/grid.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"

/* A bound on main-loop rounds, so that a bug shows as an error, not a hang. */
#define MAX_ROUNDS 1000000

/* Sweeps of a tile run and tiled launches per push phase (twice as many
 * when the relabel left few active tiles): the fastest pair measured on the
 * GrabCut graphs from 1 to 8.3 MP (bench/results). */
#define SWEEPS 16
#define PUSH_LAUNCHES 8

/* The push launches' height cap (grid_tiled.cu): a pixel whose local
 * relabel would lift it more than CAP_MARGIN above the last global
 * relabel's largest finite height goes to infinite height until the next
 * global relabel. On the whole GrabCut set (bench/results/gpu_grid_all_*)
 * 95 to 99% of the excess ends stranded on pixels cut off from the sink,
 * and on 8-connected grids the tail's worklist phases let a handful of
 * such pixels pass flow around for up to a few milliseconds (its budget);
 * the cap ends that. On 8-connected grids with the tail worklist (below)
 * only: on 4-connected grids it measured within the spread. Measured and
 * dropped (bench/results): the cap above each tile's largest height, and
 * push phases that double while relabels leave more than half the active
 * pixels of the one before (fewer relabels, more launches, slower). */
#define CAP_MARGIN 16

/* Cycles of a lock-free launch between global relabels. */
#define LOCKFREE_CYCLES 256

/* The parts of the tiled solver that pay only on some grids, decided by
 * size and connectivity (measured, bench/results):
 * - keep, a relabel started from the last one's heights after a push
 *   phase that left few active tiles (a sixteenth or fewer): 9% faster at
 *   8.3 MP 4-connected; 8-connected and at 1 MP its extra launches cost
 *   more than the tiles it skips. So on 4-connected grids of 4096 tiles
 *   (2 MP) or more.
 * - sweep, every tile relaxed once off the queue before a relabel's
 *   worklist: 2 to 6% faster on 4-connected grids of 4 and 8.3 MP, whose
 *   steps read half the neighbours, so the queue's round trips are a larger
 *   part of a visit; slower 8-connected at 1 and 4 MP. The same grids.
 * - tail worklist, the rest of a push phase that starts on few active
 *   tiles as one persistent worklist launch: 0 to 5% faster on 8-connected
 *   grids of 1024 tiles (0.5 MP) or more, 5 to 12% slower 4-connected.
 * Keep and the tail worklist never meet: keep's passes take queue entries
 * that a worklist launch left as empty slots. */
#define LARGE_TILES_4 4096
#define LARGE_TILES_8 1024

/* The tail worklist launch's budget: the tile runs of the launches it
 * stands for, each counted as at least TAIL_RUNS. A tail's few tiles
 * mostly pass stranded excess across their borders, one tile run at a
 * time, until the budget ends the phase: on the 18 GrabCut images at 1, 4
 * and 8.3 MP 8-connected, 16 against 64 measured 13, 8 and 4% faster on
 * the median and no slower on the worst (an H200, bench/results/
 * gpu_grid_all_NVIDIA_H200.md); with no floor (a launch counted as its
 * listed tiles) the median fell too but the worst rose up to 10%. */
#define TAIL_RUNS 16

typedef struct plan {
    int tiled;          /* else lock-free pushes */
    int keep, sweep, tail_worklist;
    long long tiles;
    int push_blocks;    /* resident blocks of a tiled launch */
    int sweeps, push_launches, cap_margin;
    int trace;
} plan;

/* A knob's value: the default for 0, off (0) for a negative value. */
static int knob(int value, int fallback)
{
    return value > 0 ? value : value < 0 ? 0 : fallback;
}

/* The global relabel, enqueued: the persistent launch, the count of active
 * pixels (their tiles in flag[0] and list[0]), and the counters' copy to
 * the host, which relabel_collect() waits for (s->stop marks it: the run's
 * end records it again). `all_dirty`: every tile's direction bytes are
 * stale (the run's first relabel, or lock-free pushes, which keep no dirty
 * flags). */
static gcut_status relabel_enqueue(gcut_context *ctx, gcut__gpu *s, const plan *pl, int all_dirty,
                                   int keep)
{
    gcut_status st = GCUT_OK;
    int blocks = 0;
    GPU_CHECK(ctx, gcut__grid_relabel_launch(&s->dg, all_dirty, keep, pl->sweep, &blocks,
                                             s->stream));
    GPU_CHECK(ctx, gcut__grid_count_active_launch(&s->dg, 0, pl->cap_margin > 0 || pl->trace,
                                                  s->stream));
    if (pl->trace)
        GPU_CHECK(ctx, gcut__grid_diagnose_launch(&s->dg, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, s->dg.counters,
                                   GCUT_CNT_SLOTS * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    s->grid_stats.relabels++;
    s->grid_stats.kept_relabels += keep && !all_dirty;
    s->grid_stats.swept_relabels += pl->sweep && !(keep && !all_dirty);
fail:
    return st;
}

/* Wait for relabel_enqueue()'s counters. */
static gcut_status relabel_collect(gcut_context *ctx, gcut__gpu *s)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaEventSynchronize(s->stop));
fail:
    return st;
}

/* The rest of a tiled push phase, after its first launch (which ran while
 * the host read the count). With few active tiles (a quarter of the
 * resident blocks or fewer) each launch is one short round, cheaper than
 * the relabel and the cycle that what is left would otherwise wait for:
 * twice the launches, or on the tail worklist's grids one worklist launch
 * over the tiles the first launch left (list[1]) with as many tile runs as
 * those launches would have had at most, each counted as at least
 * TAIL_RUNS (GCUT_CNT_TAKEN counts every run of the solve; the first launch
 * adds `listed` to the count read). */
static gcut_status push_phase_rest(gcut_context *ctx, gcut__gpu *s, const plan *pl)
{
    gcut_status st = GCUT_OK;
    const gcut__dgrid *dg = &s->dg;
    const unsigned long long *c = s->h_counters;
    const long long listed = (long long)c[GCUT_CNT_LIST0];
    const int few = 4 * listed <= pl->push_blocks;
    const int launches = few ? 2 * pl->push_launches : pl->push_launches;
    if (few && pl->tail_worklist) {
        const long long runs = listed > TAIL_RUNS ? listed : TAIL_RUNS;
        const long long budget = (long long)c[GCUT_CNT_TAKEN] + listed + (launches - 1) * runs;
        GPU_CHECK(ctx, cudaMemsetAsync(dg->queue, 0, (size_t)dg->queue_cap * sizeof *dg->queue,
                                       s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(dg->queued, 0, (size_t)pl->tiles * sizeof(int32_t),
                                       s->stream));
        GPU_CHECK(ctx, cudaMemsetAsync(&dg->counters[GCUT_CNT_HEAD], 0,
                                       3 * sizeof(unsigned long long), s->stream));
        GPU_CHECK(ctx, gcut__grid_enqueue_list_launch(dg, 1, s->stream));
        GPU_CHECK(ctx, gcut__grid_tiled_worklist_launch(dg, pl->sweeps, pl->cap_margin, budget,
                                                        s->stream));
        s->grid_stats.push_launches++;
        s->grid_stats.worklist_phases++;
        return GCUT_OK;
    }
    for (int k = 1; k < launches; k++) {
        GPU_CHECK(ctx, gcut__grid_tiled_launch(dg, k & 1, pl->sweeps, pl->cap_margin, 1, s->stream));
        s->grid_stats.push_launches++;
    }
fail:
    return st;
}

/* A traced run's record of one cycle: waits for the push phase enqueued
 * after the relabel (mark[0] before the relabel, s->stop after its count,
 * mark[1] after the phase), with the relabel's counters already read. */
static gcut_status trace_cycle(gcut_context *ctx, gcut__gpu *s, cudaEvent_t *mark,
                               long long launches)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaEventRecord(mark[1], s->stream));
    GPU_CHECK(ctx, cudaEventSynchronize(mark[1]));
    if (s->grid_trace_n < GCUT__GPU_GRID_TRACE_MAX) {
        const unsigned long long *c = s->h_counters;
        gcut__gpu_grid_cycle *t = &s->grid_trace[s->grid_trace_n++];
        t->active_px = (long long)c[GCUT_CNT_ACTIVE];
        t->active_tiles = (long long)c[GCUT_CNT_LIST0];
        t->active_excess = (long long)c[GCUT_CNT_ACTIVE_EXCESS];
        t->cutoff_px = (long long)c[GCUT_CNT_CUTOFF_PX];
        t->cutoff_excess = (long long)c[GCUT_CNT_CUTOFF_EXCESS];
        t->height_max = (long long)c[GCUT_CNT_HEIGHT_MAX];
        t->push_launches = (int)launches;
        GPU_CHECK(ctx, cudaEventElapsedTime(&t->relabel_ms, mark[0], s->stop));
        GPU_CHECK(ctx, cudaEventElapsedTime(&t->push_ms, s->stop, mark[1]));
    }
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
    memset(&s->grid_stats, 0, sizeof s->grid_stats);
    const gcut__dgrid *dg = &s->dg;
    plan pl;
    pl.tiled = variant == GCUT__GPU_GRID_TILED;
    pl.tiles = (long long)dg->tiles_x * dg->tiles_y;
    pl.keep = pl.tiled && g->ndirs == 4 && pl.tiles >= LARGE_TILES_4;
    pl.sweep = g->ndirs == 4 && pl.tiles >= LARGE_TILES_4;
    pl.tail_worklist = pl.tiled && g->ndirs == 8 && pl.tiles >= LARGE_TILES_8;
    pl.push_blocks = 0;
    pl.sweeps = knob(s->grid_knobs.sweeps, SWEEPS);
    pl.push_launches = knob(s->grid_knobs.push_launches, PUSH_LAUNCHES);
    pl.cap_margin = pl.tiled ? knob(s->grid_knobs.cap_margin,
                                    pl.tail_worklist ? CAP_MARGIN : 0)
                             : 0;
    pl.trace = s->grid_knobs.trace;
    s->grid_trace_n = 0;
    cudaEvent_t mark[2] = {NULL, NULL}; /* a traced run: the relabel's start, the phase's end */
    if (pl.trace) {
        GPU_CHECK(ctx, cudaEventCreate(&mark[0]));
        GPU_CHECK(ctx, cudaEventCreate(&mark[1]));
    }
    GPU_CHECK(ctx, gcut__grid_tiled_blocks(dg, &pl.push_blocks));

    GPU_CHECK(ctx, cudaMemsetAsync(dg->counters, 0, GCUT_CNT_SLOTS * sizeof(unsigned long long),
                                   s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    GPU_CHECK(ctx, gcut__grid_init_launch(dg, s->stream));
    for (long long round = 0, active_tiles = 0;; round++) {
        if (round == MAX_ROUNDS) {
            st = gcut__fail(ctx, GCUT_E_DEVICE,
                            "gpu: push-relabel did not finish in %d rounds on a %dx%d grid",
                            MAX_ROUNDS, g->width, g->height);
            goto fail;
        }
        const int keep = pl.keep && active_tiles * 16 <= pl.tiles;
        if (pl.trace)
            GPU_CHECK(ctx, cudaEventRecord(mark[0], s->stream));
        if ((st = relabel_enqueue(ctx, s, &pl, !pl.tiled || round == 0, keep)))
            goto fail;
        /* The first push launch runs while the host reads the count; after
         * the last relabel it finds no active tile and ends. */
        if (pl.tiled)
            GPU_CHECK(ctx, gcut__grid_tiled_launch(dg, 0, pl.sweeps, pl.cap_margin, 0,
                                                   s->stream));
        if ((st = relabel_collect(ctx, s)))
            goto fail;
        active_tiles = (long long)s->h_counters[GCUT_CNT_LIST0];
        const long long launches_before = s->grid_stats.push_launches;
        if (s->h_counters[GCUT_CNT_ACTIVE] != 0) {
            s->grid_stats.push_launches++;
            if (!pl.tiled)
                GPU_CHECK(ctx, gcut__grid_lockfree_launch(dg, LOCKFREE_CYCLES, s->stream));
            else if ((st = push_phase_rest(ctx, s, &pl)))
                goto fail;
        }
        if (pl.trace && (st = trace_cycle(ctx, s, mark, s->grid_stats.push_launches -
                                                            launches_before)))
            goto fail;
        if (s->h_counters[GCUT_CNT_ACTIVE] == 0)
            break;
    }
    GPU_CHECK(ctx, gcut__grid_sink_sum_launch(dg, s->stream));
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, dg->counters,
                                   GCUT_CNT_SLOTS * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    {
        float ms = 0;
        GPU_CHECK(ctx, cudaEventElapsedTime(&ms, s->start, s->stop));
        s->grid_stats.run_ms = ms;
        const unsigned long long *c = s->h_counters;
        g->flow = (int64_t)(c[GCUT_CNT_CANCELLED] + c[GCUT_CNT_SINK_START] - c[GCUT_CNT_SINK_END]);
    }
    if (iterations)
        *iterations = s->grid_stats.push_launches;
    g->info.device = s->name;
fail:
    if (st) {
        cudaStreamSynchronize(s->stream);
        cudaGetLastError();
    }
    if (mark[0])
        cudaEventDestroy(mark[0]);
    if (mark[1])
        cudaEventDestroy(mark[1]);
    return st;
}

extern "C" gcut_status gcut__gpu_grid_knobs_set(gcut_context *ctx,
                                                const gcut__gpu_grid_knobs *knobs)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (!st)
        s->grid_knobs = *knobs;
    return st;
}

extern "C" gcut_status gcut__gpu_grid_trace_get(gcut_context *ctx,
                                                const gcut__gpu_grid_cycle **cycles, int *n)
{
    const gcut__gpu *s = (const gcut__gpu *)ctx->gpu;
    if (!s)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no GPU run yet");
    *cycles = s->grid_trace;
    *n = s->grid_trace_n;
    return GCUT_OK;
}
