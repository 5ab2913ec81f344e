/* Host side of G-PR (general_kernels/match_gpr.cu): device buffers for one
 * solve, the main loop of Algorithm 7 (a global relabel every
 * k * maxLevel loops, the active list shrunk after each relabel, init and
 * push launches), FIXMATCHING, and the result back. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_state.h"
#include "graph/match.h"
#include "match_kernels.h"

/* The adaptive relabel frequency: the next global relabel after
 * k * maxLevel loops; the paper's best measured k. */
#define GPR_K 0.7
/* Shrink the active list after a relabel only from this size (the paper's
 * 512: below it the compaction costs more than the idle threads). */
#define SHRINK_MIN 512
/* A frontier this small is searched by one block, levels in a loop. */
#define SMALL_FRONTIER 4096
/* Loops between two reads of the "any column active" flag. */
#define CHECK_EVERY 8
/* Greedy start rounds. */
#define GREEDY_ROUNDS 3

typedef struct gpr {
    gcut__dmatch m;
    int32_t *list[3];    /* the active lists: cur, prev and a spare for the shrink */
    int32_t *h_counters; /* pinned, GCUT_MCNT_SLOTS */
} gpr;

static void release(gpr *g)
{
    cudaFree((void *)g->m.row_start);
    cudaFree((void *)g->m.row_col);
    cudaFree((void *)g->m.col_start);
    cudaFree((void *)g->m.col_row);
    cudaFree(g->m.rmatch);
    cudaFree(g->m.cmatch);
    cudaFree(g->m.row_level);
    cudaFree(g->m.col_level);
    cudaFree(g->m.stamp);
    cudaFree(g->m.claim);
    cudaFree(g->m.frontier[0]);
    cudaFree(g->m.frontier[1]);
    cudaFree(g->m.counters);
    for (int k = 0; k < 3; k++)
        cudaFree(g->list[k]);
    cudaFreeHost(g->h_counters);
    cudaGetLastError();
}

/* Read counters[slot] (synchronising the stream). */
static gcut_status read_counter(gcut_context *ctx, gpr *g, cudaStream_t stream, int slot,
                                int32_t *value)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemcpyAsync(&g->h_counters[slot], &g->m.counters[slot], sizeof(int32_t),
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    *value = g->h_counters[slot];
    return GCUT_OK;
fail:
    return st;
}

static gcut_status zero_counter(gcut_context *ctx, gpr *g, cudaStream_t stream, int slot)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemsetAsync(&g->m.counters[slot], 0, sizeof(int32_t), stream));
    return GCUT_OK;
fail:
    return st;
}

/* G-GR (Algorithm 4): levels from the free rows; *max_level gets the
 * level past the last one reached. */
static gcut_status global_relabel(gcut_context *ctx, gpr *g, cudaStream_t stream,
                                  int32_t *max_level)
{
    gcut_status st = GCUT_OK;
    const gcut__dmatch *m = &g->m;
    int32_t level = 0, count = 0;
    if ((st = zero_counter(ctx, g, stream, GCUT_MCNT_FRONTIER0)))
        return st;
    GPU_CHECK(ctx, gcut__gpr_relabel_init_launch(m, stream));
    if ((st = read_counter(ctx, g, stream, GCUT_MCNT_FRONTIER0, &count)))
        return st;
    while (count > 0) {
        if (count <= SMALL_FRONTIER) {
            GPU_CHECK(ctx, gcut__gpr_relabel_small_launch(m, level, SMALL_FRONTIER, stream));
            GPU_CHECK(ctx,
                      cudaMemcpyAsync(g->h_counters, m->counters, GCUT_MCNT_SLOTS * sizeof(int32_t),
                                      cudaMemcpyDeviceToHost, stream));
            GPU_CHECK(ctx, cudaStreamSynchronize(stream));
            level = g->h_counters[GCUT_MCNT_LEVEL];
            count = g->h_counters[GCUT_MCNT_FRONTIER0 + g->h_counters[GCUT_MCNT_PARITY]];
            continue;
        }
        const int out = GCUT_MCNT_FRONTIER0 + (((level >> 1) & 1) ^ 1);
        if ((st = zero_counter(ctx, g, stream, out)))
            return st;
        GPU_CHECK(ctx, gcut__gpr_relabel_level_launch(m, level, count, stream));
        level += 2;
        if ((st = read_counter(ctx, g, stream, out, &count)))
            return st;
    }
    *max_level = level;
    return GCUT_OK;
fail:
    return st;
}

/* The greedy start and the first active list, in list[0]; *count its size. */
static gcut_status greedy_start(gcut_context *ctx, gpr *g, cudaStream_t stream, int32_t *count)
{
    gcut_status st = GCUT_OK;
    for (int round = 0; round < GREEDY_ROUNDS; round++) {
        GPU_CHECK(ctx, gcut__gpr_propose_launch(&g->m, stream));
        GPU_CHECK(ctx, gcut__gpr_accept_launch(&g->m, stream));
    }
    if ((st = zero_counter(ctx, g, stream, GCUT_MCNT_LIST)))
        return st;
    GPU_CHECK(ctx, gcut__gpr_collect_launch(&g->m, g->list[0], stream));
    return read_counter(ctx, g, stream, GCUT_MCNT_LIST, count);
fail:
    return st;
}

/* Algorithm 7 from the greedy start to FIXMATCHING. */
static gcut_status run(gcut_context *ctx, gpr *g, cudaStream_t stream, int32_t empty_cols,
                       gcut__match_stats *stats)
{
    gcut_status st = GCUT_OK;
    const gcut__dmatch *m = &g->m;
    int32_t active = 0;
    if ((st = greedy_start(ctx, g, stream, &active)))
        return st;
    stats->initial_size = m->cols - active - empty_cols;
    int32_t *cur = g->list[0], *prev = g->list[1], *spare = g->list[2];
    int32_t loop = 0, next_relabel = 0, last_init = -1;
    int shrink = 0;
    /* No column was processed before the first loop: every slot keeps its
     * column. */
    GPU_CHECK(ctx, cudaMemsetAsync(prev, 0xff, (size_t)(active + 1) * sizeof(int32_t), stream));
    GPU_CHECK(ctx,
              cudaMemsetAsync(&m->counters[GCUT_MCNT_LAST_ACTIVE], 0xff, sizeof(int32_t), stream));
    while (active > 0) {
        if (loop == next_relabel) {
            /* Stop first if the last loops found nothing active. */
            if (last_init >= 0) {
                int32_t seen = 0;
                if ((st = read_counter(ctx, g, stream, GCUT_MCNT_LAST_ACTIVE, &seen)))
                    return st;
                if (seen < last_init)
                    break;
            }
            int32_t max_level = 0;
            if ((st = global_relabel(ctx, g, stream, &max_level)))
                return st;
            stats->relabels++;
            int32_t every = (int32_t)(GPR_K * max_level);
            next_relabel = loop + (every < 1 ? 1 : every);
            shrink = 1;
        }
        if (shrink && active >= SHRINK_MIN) {
            if ((st = zero_counter(ctx, g, stream, GCUT_MCNT_LIST)))
                return st;
            GPU_CHECK(ctx, gcut__gpr_shrink_launch(m, cur, prev, spare, active, loop, stream));
            if ((st = read_counter(ctx, g, stream, GCUT_MCNT_LIST, &active)))
                return st;
            int32_t *t = cur;
            cur = spare;
            spare = t;
            shrink = 0;
            if (active == 0)
                break;
        } else {
            GPU_CHECK(ctx, gcut__gpr_init_launch(m, cur, prev, active, loop, stream));
            last_init = loop;
        }
        GPU_CHECK(ctx, gcut__gpr_push_launch(m, cur, prev, active, loop, stream));
        stats->iterations++;
        int32_t *t = cur;
        cur = prev;
        prev = t;
        loop++;
        if (last_init >= 0 && loop % CHECK_EVERY == 0) {
            int32_t seen = 0;
            if ((st = read_counter(ctx, g, stream, GCUT_MCNT_LAST_ACTIVE, &seen)))
                return st;
            if (seen < last_init)
                break;
        }
    }
    GPU_CHECK(ctx, gcut__gpr_fix_launch(m, stream));
    return GCUT_OK;
fail:
    return st;
}

static gcut_status alloc_and_upload(gcut_context *ctx, const gcut_bipartite *b, gpr *g,
                                    cudaStream_t stream)
{
    gcut_status st = GCUT_OK;
    const size_t rows = (size_t)b->rows + 1, cols = (size_t)b->cols + 1,
                 edges = (size_t)b->edges + 1, i4 = sizeof(int32_t);
    gcut__dmatch *m = &g->m;
    m->rows = b->rows;
    m->cols = b->cols;
    m->inf = b->rows + b->cols;
    GPU_CHECK(ctx, cudaMalloc((void **)&m->row_start, rows * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->row_col, edges * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->col_start, cols * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->col_row, edges * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->rmatch, rows * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->cmatch, cols * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->row_level, rows * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->col_level, cols * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->stamp, cols * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->claim, rows * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->frontier[0], rows * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->frontier[1], rows * i4));
    GPU_CHECK(ctx, cudaMalloc((void **)&m->counters, GCUT_MCNT_SLOTS * i4));
    for (int k = 0; k < 3; k++)
        GPU_CHECK(ctx, cudaMalloc((void **)&g->list[k], cols * i4));
    GPU_CHECK(ctx, cudaMallocHost((void **)&g->h_counters, GCUT_MCNT_SLOTS * i4));
    GPU_CHECK(ctx, cudaMemcpyAsync((void *)m->row_start, b->row_start, rows * i4,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync((void *)m->row_col, b->row_col, (size_t)b->edges * i4,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync((void *)m->col_start, b->col_start, cols * i4,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync((void *)m->col_row, b->col_row, (size_t)b->edges * i4,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(m->rmatch, 0xff, rows * i4, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(m->cmatch, 0xff, cols * i4, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(m->claim, 0xff, rows * i4, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(m->stamp, 0xff, cols * i4, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(m->counters, 0, GCUT_MCNT_SLOTS * i4, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    return GCUT_OK;
fail:
    return st;
}

extern "C" gcut_status gcut__match_gpr(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                                       gcut__match_stats *stats)
{
    gcut_context *ctx = b->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    gpr g;
    memset(&g, 0, sizeof g);
    const double t0 = gcut__now_ms();
    float run_ms = 0;
    if ((st = alloc_and_upload(ctx, b, &g, s->stream)))
        goto fail;
    GPU_CHECK(ctx, cudaEventRecord(s->start, s->stream));
    if ((st = run(ctx, &g, s->stream, b->stats.empty_cols, stats)))
        goto fail;
    GPU_CHECK(ctx, cudaEventRecord(s->stop, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(rmatch, g.m.rmatch, (size_t)b->rows * sizeof(int32_t),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(cmatch, g.m.cmatch, (size_t)b->cols * sizeof(int32_t),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    GPU_CHECK(ctx, cudaEventElapsedTime(&run_ms, s->start, s->stop));
    stats->solve_ms = run_ms;
    stats->device = s->name;
    release(&g);
    stats->transfer_ms = gcut__now_ms() - t0 - run_ms;
    /* Every row must agree with its column after FIXMATCHING (the paper's
     * claim; checked, since the answer rests on it). */
    for (int32_t r = 0; r < b->rows; r++)
        if (rmatch[r] >= 0 && (rmatch[r] >= b->cols || cmatch[rmatch[r]] != r))
            return gcut__fail(ctx, GCUT_E_DEVICE,
                              "match: gpr left row %d matched to column %d, which disagrees", r + 1,
                              rmatch[r] + 1);
    return GCUT_OK;
fail:
    release(&g);
    return st;
}
