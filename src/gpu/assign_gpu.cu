/* Host side of the GPU cost-scaling assignment: the problem moved to the
 * device in its smallest layout, the phases (eps divided by alpha down to
 * 1), each one launch (general_kernels/assign_csa.cu) and one read of its
 * stop code, the solution moved back.
 *
 * Layout: build_problem's costs are the caller's times the scale n + 1, so
 * they travel as 32-bit quotients when those fit (the kernel multiplies
 * back); a problem with every pair (dense) travels as an n x n cost matrix
 * without column ids. Both cut the bytes a scan reads, which is what a
 * phase spends its time on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign_kernels.h"
#include "core/context.h"
extern "C" {
#include "core/parallel.h" /* a C header without C++ guards */
}
#include "core/memory_budget.h"
#include "cpu/assign_candidates.h"
#include "gpu/gpu.h"
#include "gpu/gpu_state.h"
#include "gpu/staging.h"
#include "graph/assign_problem.h"

/* A phase that runs longer than this is stopped (an error, not a hang). */
#define PHASE_LIMIT_NS (60LL * 1000 * 1000 * 1000)

/* A price update gives up (prices unchanged) past this many Bellman-Ford
 * passes without reaching the fixed point; the next one of the solve may
 * run twice as many, up to UPDATE_PASSES_MAX. An update takes as many
 * passes as the longest shortest path has arcs, and on windowed
 * (optical-flow) graphs with flat, tied regions those run across the
 * image (500-650 passes on RubberWhale): 64 passes left every phase's last
 * update out, and the phase ended in one chain of millions of bids, each
 * lowering a tied price by one eps. On an H100 the window R = 3 went from
 * 15-44 s to 7.2-8.8 s, R = 5 from 26-65 s to 16-17 s, sparse 10^6 arcs
 * from 307 to 215 ms (medians; bench/results/assign_NVIDIA_H100_80GB_HBM3.md).
 * The frontier updates' passes (dense and CSR) are Jacobi or nearly (a
 * row sees the labels of the pass before, where the full passes may read
 * those of the same pass) and a fraction of the cost, so they get twice
 * the limit. */
#define UPDATE_PASSES 64
#define UPDATE_PASSES_MAX 4096

/* A built problem's costs as 32-bit quotients by `unit` (dense: scattered
 * into the n x n matrix) and, where row_min is not NULL, each row's least
 * cost, in one pass on the context's threads (a serial pass with its
 * divisions was most of the GPU set-up on 10^7 arcs). */
typedef struct compact_job {
    const gcut__assign_problem *p;
    int64_t unit;
    int dense;
    int32_t *out;
    long long *row_min;
    int fits[GCUT__MAX_THREADS]; /* 0: some cost of the part is not a multiple or does not fit */
} compact_job;

static void compact_rows(void *arg, int64_t begin, int64_t end, int part)
{
    compact_job *j = (compact_job *)arg;
    const gcut__assign_problem *p = j->p;
    int fits = 1;
    for (int64_t x = begin; x < end; x++) {
        long long b = INT64_MAX;
        for (int64_t a = p->row_ptr[x]; a < p->row_ptr[x + 1]; a++) {
            const int64_t c = p->cost[a];
            b = c < b ? c : b;
            if (!fits || c % j->unit != 0 || c / j->unit > INT32_MAX || c / j->unit < INT32_MIN) {
                fits = 0;
                continue;
            }
            j->out[j->dense ? x * p->n + p->col[a] : a] = (int32_t)(c / j->unit);
        }
        if (j->row_min)
            j->row_min[x] = b;
    }
    j->fits[part] = fits;
}

/* Returns 1 when every cost fits (out filled), 0 when not, -1 out of
 * memory. */
static int compact_costs(gcut_context *ctx, const gcut__assign_problem *p, int64_t unit, int dense,
                         int32_t *out, long long *row_min)
{
    compact_job *j = (compact_job *)malloc(sizeof *j);
    if (!j)
        return -1;
    j->p = p;
    j->unit = unit;
    j->dense = dense;
    j->out = out;
    j->row_min = row_min;
    int parts = gcut__thread_count(ctx ? ctx->options.threads : 0, p->m);
    if (parts > p->n)
        parts = p->n;
    gcut__parallel_for(parts, p->n, compact_rows, j);
    int fits = 1;
    for (int i = 0; i < (parts > 0 ? parts : 1); i++)
        fits &= j->fits[i];
    free(j);
    return fits;
}

/* Every row has all n columns (build_problem keeps one arc a pair). */
static int is_dense(const gcut__assign_problem *p)
{
    if (p->m != (int64_t)p->n * p->n)
        return 0;
    for (int32_t x = 0; x <= p->n; x++)
        if (p->row_ptr[x] != (int64_t)x * p->n)
            return 0;
    return 1;
}

/* Where a solver's buffers come from: carved out of a device block and a
 * pinned one that the dense path keeps in the context (dense_keep), or,
 * arena NULL, each its own allocation, freed by solver_free. */
typedef struct arena {
    unsigned char *dev, *host;
    size_t dev_cap, host_cap, dev_used, host_used;
} arena;

#define ARENA_ALIGN 256

static cudaError_t arena_take(unsigned char *base, size_t cap, size_t *used, void **p,
                              size_t bytes)
{
    const size_t at = (*used + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    if (at > cap || bytes > cap - at)
        return cudaErrorMemoryAllocation; /* the sizes below are wrong: a bug, not the device */
    *p = base + at;
    *used = at + bytes;
    return cudaSuccess;
}

/* The solver's device state, whichever layout the costs came in. */
typedef struct solver {
    gcut__dassign d;
    arena *arena;                  /* NULL: buffers of their own */
    long long *price;              /* n column prices */
    int32_t *row_col;              /* n */
    int32_t *scratch;              /* 7: the price update's (general_kernels/assign_csa.cu) */
    int32_t *h_state, *h_update;   /* pinned (h_update: 4, the update's result) */
    unsigned updates;              /* price updates launched (their claims' numbers) */
    int update_passes;             /* an update's pass limit (grows where one falls short) */
    unsigned long long *h_bids;    /* pinned */
    int group, workers, update_blocks, update_every, alpha, start_div;
    /* dense phases driven on the device (see solver_phases): the loop's state (NULL: the
     * host drives every phase), its pinned copy, the update's grid, the refines of the last
     * such phase (the next one's first batch) */
    gcut__dense_loop *loop, *h_loop;
    int loop_blocks, loop_refines;
} solver;

/* The CSR frontier update's buffers (general_kernels/assign_kernels.h). */
static void csr_frontier_free(gcut__dassign *d)
{
    cudaFree(d->t_ptr);
    cudaFree(d->t_row);
    cudaFree(d->t_cost);
    cudaFree(d->lkey);
    cudaFree(d->held);
    cudaFree(d->fmark);
    cudaFree(d->flist);
    cudaFree(d->fcount);
    d->t_ptr = d->held = NULL;
    d->t_row = d->t_cost = d->fmark = d->flist = d->fcount = NULL;
    d->lkey = NULL;
}

/* The CSR frontier update's buffers and transpose of the `m` arcs: 8 (n +
 * 1) + 8 m + 28 n bytes on the device. Where they do not fit, the price
 * updates take the full passes (cudaSuccess, d->csr_frontier cleared). */
static cudaError_t csr_frontier_init(gcut__dassign *d, long long m, cudaStream_t stream)
{
    const size_t nn = (size_t)d->n, mm = (size_t)(m > 0 ? m : 1);
    cudaError_t err;
    if ((err = cudaMalloc((void **)&d->t_ptr, (nn + 1) * sizeof *d->t_ptr)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->t_row, mm * sizeof *d->t_row)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->t_cost, mm * sizeof *d->t_cost)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->lkey, nn * sizeof *d->lkey)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->held, nn * sizeof *d->held)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->fmark, nn * sizeof *d->fmark)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->flist, 2 * nn * sizeof *d->flist)) != cudaSuccess ||
        (err = cudaMalloc((void **)&d->fcount, 3 * sizeof *d->fcount)) != cudaSuccess) {
        csr_frontier_free(d);
        d->csr_frontier = 0;
        if (err != cudaErrorMemoryAllocation)
            return err;
        cudaGetLastError(); /* out of memory: the full passes */
        return cudaSuccess;
    }
    return gcut__assign_transpose(d, m, stream);
}

static cudaError_t dev_alloc(solver *sv, void **p, size_t bytes)
{
    arena *a = sv->arena;
    return a ? arena_take(a->dev, a->dev_cap, &a->dev_used, p, bytes) : cudaMalloc(p, bytes);
}

static cudaError_t host_alloc(solver *sv, void **p, size_t bytes)
{
    arena *a = sv->arena;
    return a ? arena_take(a->host, a->host_cap, &a->host_used, p, bytes)
             : cudaMallocHost(p, bytes);
}

/* An arena's sizes for n rows: on the device about 57 bytes a row (keys,
 * lists, labels, holders, via, claims, frontier masks, prices, the
 * assignment, the proof's duals) and the small arrays; pinned, the small
 * results and the solution on its way to the caller (20 bytes a row);
 * each with room for the alignment of its 18 buffers at most. */
static size_t arena_dev_bytes(size_t n)
{
    return 64 * n + 18 * ARENA_ALIGN + 4096;
}

static size_t arena_host_bytes(size_t n)
{
    return 24 * n + 18 * ARENA_ALIGN + 1024;
}

static void solver_free(solver *sv)
{
    if (sv->arena) { /* the arena's owner frees it */
        csr_frontier_free(&sv->d);
        memset(sv, 0, sizeof *sv);
        return;
    }
    cudaFree(sv->price);
    cudaFree(sv->row_col);
    cudaFree(sv->scratch);
    cudaFree(sv->d.key);
    cudaFree(sv->d.list);
    cudaFree(sv->d.resume);
    cudaFree(sv->d.label);
    cudaFree(sv->d.holder);
    cudaFree(sv->d.via);
    cudaFree(sv->d.claim);
    cudaFree(sv->d.front);
    csr_frontier_free(&sv->d);
    cudaFree(sv->d.state);
    cudaFree(sv->d.bids);
    cudaFreeHost(sv->h_state);
    cudaFreeHost(sv->h_update);
    cudaFreeHost(sv->h_bids);
    cudaFree(sv->loop);
    cudaFreeHost(sv->h_loop);
    memset(sv, 0, sizeof *sv);
}

/* The buffers of an n-row problem whose cost layout (d.dense, d.unit) the
 * caller set, every column free at price 0, and the launch shape. */
static gcut_status solver_init(gcut_context *ctx, gcut__gpu *s, solver *sv, double mean_degree,
                               const gcut__assign_knobs *knobs)
{
    gcut_status st = GCUT_OK;
    gcut__dassign *d = &sv->d;
    const size_t nn = (size_t)d->n;
    int sms = 0;
    unsigned long long *h_key = NULL;
    /* Dense rows: alpha 16 from the range over 160 (fewer phases; each
     * is driven on the device, so a phase's fixed cost is its updates).
     * On an H100 over five cost families at 1000-5000 it took the median
     * solve to 0.88x of alpha 10 from the range over 10, the worst 1.02x;
     * alpha 24 lost 1.3-1.4x on the structured families
     * (bench/results/assign_NVIDIA_H100_80GB_HBM3.md). CSR rows keep 10. */
    sv->alpha = knobs && knobs->alpha > 1 ? knobs->alpha : d->dense ? 16 : 10;
    sv->start_div = knobs && knobs->gpu_eps_start > 0 ? knobs->gpu_eps_start
                    : d->dense                        ? 10
                                                      : 1;
    /* GPU price updates: one at the start of each phase after the first
     * and one whenever a launch has made update_every * n bids (it pauses;
     * see general_kernels/assign_csa.cu). Every n bids by default: on the
     * H200 that cut dense 2000^2 from 165 to 102 ms, dense 5000^2 from 932
     * to 763 ms and sparse 10^6 arcs from 704 to 296 ms (against every 4n:
     * 93, 850 and 417 ms; bench/results/assign_NVIDIA_H200.md). */
    sv->update_passes = UPDATE_PASSES;
    sv->update_every = !knobs || knobs->update_every == 0 ? 1
                       : knobs->update_every > 0          ? knobs->update_every
                                                          : 0;
    /* The key: owner ids below 2^bits - 1 (which means free), the price
     * offset above; prices stay within -2^60 as on the CPU. */
    d->bits = 1;
    while ((1LL << d->bits) - 1 < (long long)d->n)
        d->bits++;
    d->pmin = -(long long)((1ULL << (64 - d->bits)) - 1);
    if (d->pmin < -GCUT__ASSIGN_LIMIT) {
        /* up to 7 rows: the keys of price 0 are not all ones */
        d->pmin = -GCUT__ASSIGN_LIMIT;
        h_key = (unsigned long long *)malloc(nn * sizeof *h_key);
        if (!h_key)
            return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d columns", d->n);
        for (size_t y = 0; y < nn; y++) /* price 0, free */
            h_key[y] = (unsigned long long)(-d->pmin) << d->bits | ((1ULL << d->bits) - 1);
    }
    d->time_limit_ns = PHASE_LIMIT_NS;

    GPU_CHECK(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->device));
    sv->group = gcut__assign_group(d->dense, mean_degree);
    if (knobs && (knobs->gpu_group == 4 || knobs->gpu_group == 8 || knobs->gpu_group == 32 ||
                  knobs->gpu_group == 128 || knobs->gpu_group == 512 || knobs->gpu_group == 1024))
        sv->group = d->dense && knobs->gpu_group < 32 ? 32 : knobs->gpu_group;
    GPU_CHECK(ctx, gcut__assign_workers(sv->group, d->dense, sms, &sv->workers));
    if (sv->workers > d->n)
        sv->workers = d->n;
    if (sv->update_every > 0) {
        /* the price update is one cooperative launch; without them the
         * phases bid on without updates (as exact, slower) */
        int cooperative = 0;
        GPU_CHECK(ctx, cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch,
                                              s->device));
        if (cooperative)
            GPU_CHECK(ctx, gcut__assign_update_blocks(d, sv->group, sms, &sv->update_blocks));
        if (!cooperative || sv->update_blocks < 1)
            sv->update_every = 0;
    }
    GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->key, nn * sizeof *d->key));
    GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->state, 5 * sizeof *d->state));
    GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->bids, 5 * sizeof *d->bids));
    GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->list, nn * sizeof *d->list));
    if (!sv->price) /* (the dense path's are in its packed results) */
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&sv->price, nn * sizeof *sv->price));
    if (!sv->row_col)
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&sv->row_col, nn * sizeof *sv->row_col));
    GPU_CHECK(ctx, host_alloc(sv, (void **)&sv->h_state, 5 * sizeof *sv->h_state));
    GPU_CHECK(ctx, host_alloc(sv, (void **)&sv->h_bids, 3 * sizeof *sv->h_bids));
    if (sv->update_every > 0) {
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->resume, nn * sizeof *d->resume));
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->label, nn * sizeof *d->label));
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->holder, nn * sizeof *d->holder));
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->via, 2 * nn * sizeof *d->via));
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->claim, nn * sizeof *d->claim));
        GPU_CHECK(ctx, cudaMemsetAsync(d->claim, 0, nn * sizeof *d->claim, s->stream));
        if (d->frontier)
            GPU_CHECK(ctx, dev_alloc(sv, (void **)&d->front,
                                      3 * ((nn + 31) / 32) * sizeof *d->front));
        GPU_CHECK(ctx, dev_alloc(sv, (void **)&sv->scratch, 7 * sizeof *sv->scratch));
        GPU_CHECK(ctx, host_alloc(sv, (void **)&sv->h_update, 4 * sizeof *sv->h_update));
        /* the host drives a dense phase as a CSR one where a knob asks
         * (gpu_host_loop: the checks' and benchmarks' comparison) */
        if (d->dense && d->frontier && !(knobs && knobs->gpu_host_loop > 0)) {
            GPU_CHECK(ctx, dev_alloc(sv, (void **)&sv->loop, sizeof *sv->loop));
            GPU_CHECK(ctx, host_alloc(sv, (void **)&sv->h_loop, sizeof *sv->h_loop));
        }
    }
    GPU_CHECK(ctx, cudaMemsetAsync(d->bids, 0, 5 * sizeof *d->bids, s->stream));
    if (h_key) {
        GPU_CHECK(ctx, cudaMemcpyAsync(d->key, h_key, nn * sizeof *d->key,
                                       cudaMemcpyHostToDevice, s->stream));
        /* h_key is read by the copy above before it is freed */
        GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    } else {
        /* price 0 and free: (-pmin) << bits = 2^64 - 2^bits, with the
         * owner none = 2^bits - 1 every bit set; no host array, no wait */
        GPU_CHECK(ctx, cudaMemsetAsync(d->key, 0xff, nn * sizeof *d->key, s->stream));
    }
fail:
    free(h_key);
    return st;
}

/* A later phase of dense rows (frontier updates, 32-bit costs) driven on
 * the device: the host queues its cycles (a price update, a refine, the
 * resume after a pause) in batches without waiting for any, the kernels
 * taking what the host loop in solver_phases decides (the lists, the
 * budget, the pass limit, whether to update at all) from sv->loop, and
 * waits once a batch (the refines of the last such phase and two more,
 * then three: the cycles queued past the phase's end do nothing, a few
 * launches each, where a wait costs a round trip and the device idles).
 * The host loop waits twice a cycle (dense 2000^2: about 31 cycles in 6
 * phases); driven here, the phases of dense 1000^2, 2000^2 and 5000^2 went
 * from 5.6 to 4.6, 11.5 to 10.3 and 27.6 to 26.8 ms on an H100 (medians;
 * bench/results/assign_NVIDIA_H100_80GB_HBM3.md). The refines' tail is
 * the pause's cost measured on the device (loop_after_update in
 * general_kernels/assign_csa.cu), with no round trip in it. *batches: the batches queued (0: the
 * update's grid does not fit, nothing queued, sv->loop_blocks set to -1:
 * the host drives the phases). On return sv->h_loop, h_state and h_bids
 * hold the phase's end. */
static gcut_status dense_phase_on_device(gcut_context *ctx, gcut__gpu *s, solver *sv, int64_t eps,
                                         int *batches)
{
    gcut_status st = GCUT_OK;
    gcut__dassign *d = &sv->d;
    cudaStream_t stream = s->stream;
    int cycles = sv->loop_refines > 0 ? sv->loop_refines + 2 : 6;
    *batches = 0;
    d->loop = sv->loop;
    GPU_CHECK(ctx, gcut__assign_dense_loop_start(
                       d, 1, (unsigned long long)sv->update_every * (unsigned long long)d->n,
                       sv->update_passes, UPDATE_PASSES_MAX, sv->updates + 1, stream));
    for (;;) {
        const cudaError_t err = gcut__assign_dense_cycles(
            d, eps, sv->group, sv->workers, sv->update_blocks, &sv->loop_blocks, cycles,
            sv->row_col, sv->scratch, stream);
        if (err == cudaErrorCooperativeLaunchTooLarge && *batches == 0) {
            cudaGetLastError(); /* nothing of the phase queued */
            sv->loop_blocks = -1;
            d->loop = NULL;
            return GCUT_OK;
        }
        GPU_CHECK(ctx, err);
        ++*batches;
        GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_loop, sv->loop, sizeof *sv->h_loop,
                                       cudaMemcpyDeviceToHost, stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_state, d->state, 5 * sizeof *sv->h_state,
                                       cudaMemcpyDeviceToHost, stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_bids, d->bids, 3 * sizeof *sv->h_bids,
                                       cudaMemcpyDeviceToHost, stream));
        GPU_CHECK(ctx, cudaStreamSynchronize(stream));
        if (sv->h_loop->done)
            break;
        cycles = 3;
    }
    sv->update_passes = sv->h_loop->update_passes;
    sv->updates = sv->h_loop->seq - 1;
    sv->loop_refines = sv->h_loop->launches;
fail:
    d->loop = NULL;
    return st;
}

/* The phases, eps from eps0 / alpha down to 1 (start_min: the first
 * phase's infeasibility test, or NULL), then the solution unpacked into
 * sv->price and sv->row_col on the device. GCUT_E_INFEASIBLE: res->row_col
 * holds the partial assignment and res->stuck_row a row left over. `warm`:
 * the keys hold an eps0-optimal state (prices and a perfect assignment)
 * to go on from, so every phase is a later one: its rows still within the
 * phase's eps keep their columns. */
static gcut_status solver_phases(gcut_context *ctx, gcut__gpu *s, solver *sv, int64_t eps0,
                                 const long long *start_min, int warm, gcut__assign_result *res)
{
    gcut_status st = GCUT_OK;
    gcut__dassign *d = &sv->d;
    const int32_t n = d->n;
    const size_t nn = (size_t)n;
    cudaStream_t stream = s->stream;
    unsigned long long bids_before = 0;
    int64_t eps = eps0 > 0 ? eps0 : 1;
    int first = !warm;
    do {
        const double t0 = gcut__now_ms();
        const int64_t div = first ? (int64_t)sv->alpha * sv->start_div : sv->alpha;
        eps = eps / div > 1 ? eps / div : 1;
        d->start_min = first ? start_min : NULL;
        d->drop_bound = eps0 + eps > INT64_MAX / (2 * (int64_t)n + 2)
                            ? INT64_MAX
                            : (2 * (int64_t)n + 2) * (eps0 + eps);
        GPU_CHECK(ctx, gcut__assign_phase_start(d, first, eps, sv->group, sv->row_col, stream));
        GPU_CHECK(ctx, cudaMemsetAsync(d->bids + 2, 0, 2 * sizeof *d->bids, stream));
        /* Price updates where eps times a label fits the prices, in
         * every phase: the first phase's infeasibility test holds for
         * any eps-optimal state that keeps the free columns' prices,
         * which an update leaves (past_bound in
         * general_kernels/assign_csa.cu tests it at the update too).
         * Without them the first phase ends in one chain of evictions.
         * On an H100 its longest chain fell from 46-51 k bids to 1.0 k on
         * sparse 10^6 arcs (solve median 187 -> 92 ms) and from 209 k to
         * 2.8 k on the window R = 3 (phase 493 -> 64 ms), whose later
         * phases then took as much back (total +1-2 %, within the runs'
         * spread; bench/results/assign_NVIDIA_H100_80GB_HBM3.md). */
        const long long cap = GCUT__ASSIGN_LIMIT / eps - 1;
        d->label_cap = cap > (1 << 30) ? (1 << 30) : (int32_t)cap;
        int updating = sv->update_every > 0 && d->label_cap >= 2;
        int launches = 0, updates_here = 0, passes_here = 0, placed_here = 0, failed_here = 0;
        double update_ms = 0;
        /* The first phase's first launch: no update before it (every
         * column is free: an update's paths would be the rows' own first
         * bids), a budget of n more bids (each of its n rows bids at
         * least once, which no update saves) and no tail pause (no
         * update told yet how long one takes; the budget ends its
         * tail). Dense rows' first phases stay under 2n bids (1.1-1.3 n
         * on 1000^2-5000^2) and make no update. */
        if (first)
            d->tail_ns = 0;
        int on_device = 0, batches = 0, bids_read = 0;
        char waits[16] = "";
        if (!first && updating && sv->loop && sv->loop_blocks >= 0 && d->cost32) {
            st = dense_phase_on_device(ctx, s, sv, eps, &batches);
            if (st)
                goto fail;
            on_device = batches > 0;
            snprintf(waits, sizeof waits, "%d", batches);
        }
        if (on_device) {
            const gcut__dense_loop *l = sv->h_loop;
            launches = l->launches;
            updates_here = l->updates;
            passes_here = l->passes;
            placed_here = l->placed;
            failed_here = l->failed;
            update_ms = (double)l->update_ns / 1e6;
            res->price_updates += l->updates;
        }
        for (; !on_device;) {
            if (updating && (!first || launches > 0)) {
                const double tu = gcut__now_ms();
                GPU_CHECK(ctx, gcut__assign_price_update(d, eps, sv->group, sv->update_blocks,
                                                         d->frontier || d->csr_frontier
                                                             ? 2 * sv->update_passes
                                                             : sv->update_passes,
                                                         ++sv->updates,
                                                         sv->row_col, sv->scratch, sv->h_update,
                                                         stream));
                const int passes = sv->h_update[0], applied = sv->h_update[1] > 0;
                update_ms += gcut__now_ms() - tu;
                if (sv->h_update[1] < 0) {
                    bids_read = 0;
                    /* a row past the first phase's bound (d->state names it) */
                    GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_state, d->state,
                                                   5 * sizeof *sv->h_state,
                                                   cudaMemcpyDeviceToHost, stream));
                    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
                    break;
                }
                /* a launch's tail may run as long as the last update took
                 * (see update_due in general_kernels/assign_csa.cu) */
                d->tail_ns = (long long)((gcut__now_ms() - tu) * 1e6);
                res->price_updates += applied;
                updates_here += applied;
                passes_here += passes;
                gcut__log(ctx, 4, "assign: gpu price update, eps %lld: %d passes, %s, %d rows "
                          "placed by its paths, %d left", (long long)eps, passes,
                          applied ? "applied" : "left out", applied ? sv->h_update[3] : 0,
                          applied ? sv->h_update[2] : -1);
                if (applied) { /* the rows left active are the next list */
                    placed_here += sv->h_update[3];
                    int32_t *swap = d->list;
                    d->list = d->resume;
                    d->resume = swap;
                } else if (passes >= (d->frontier || d->csr_frontier ? 2 : 1) * sv->update_passes &&
                           sv->update_passes < UPDATE_PASSES_MAX) {
                    /* short of the fixed point: the next update (after
                     * this launch's pause) may run twice the passes; the
                     * pause waits as long as this one took, so the passes
                     * wasted stay within the bids' time */
                    sv->update_passes *= 2;
                    failed_here++;
                } else {
                    updating = 0; /* no fixed point in reach: bid on without pauses */
                }
            }
            d->bid_budget = updating ? ((unsigned long long)sv->update_every +
                                        (first && launches == 0 ? 1 : 0)) *
                                           (unsigned long long)n
                                     : 0;
            GPU_CHECK(ctx, gcut__assign_refine(d, eps, sv->group, sv->workers, stream));
            launches++;
            /* the bid counters with the state: the phase's last launch
             * needs no wait of its own for them */
            GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_state, d->state, 5 * sizeof *sv->h_state,
                                           cudaMemcpyDeviceToHost, stream));
            GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_bids, d->bids, 3 * sizeof *sv->h_bids,
                                           cudaMemcpyDeviceToHost, stream));
            GPU_CHECK(ctx, cudaStreamSynchronize(stream));
            bids_read = 1;
            if (sv->h_state[1] != GCUT__DASSIGN_PAUSE)
                break;
            GPU_CHECK(ctx, gcut__assign_resume(d, stream));
            int32_t *swap = d->list;
            d->list = d->resume;
            d->resume = swap;
        }
        if (!on_device && !bids_read) { /* (read with the state where a launch ended it) */
            GPU_CHECK(ctx, cudaMemcpyAsync(sv->h_bids, d->bids, 3 * sizeof *sv->h_bids,
                                           cudaMemcpyDeviceToHost, stream));
            GPU_CHECK(ctx, cudaStreamSynchronize(stream));
        }
        /* the longest chain against the bids tells whether a phase's
         * time is its tail (a few chains alone) or its volume */
        gcut__log(ctx, 3, "assign: gpu phase %lld, eps %lld: %.3f ms, %llu bids, longest "
                  "chain %llu, %d launches, %d price updates (%d passes, %d rows placed by paths, "
                  "%.3f ms; %d short of the fixed point, pass limit now %d), stop %d%s%s",
                  (long long)res->refines + 1, (long long)eps, gcut__now_ms() - t0,
                  sv->h_bids[1] - bids_before, sv->h_bids[2], launches, updates_here, passes_here,
                  placed_here, update_ms, failed_here, sv->update_passes, sv->h_state[1],
                  on_device ? ", driven on the device, waits: " : "", waits);
        bids_before = sv->h_bids[1];
        if (sv->h_state[1] == GCUT__DASSIGN_INFEASIBLE) {
            res->stuck_row = sv->h_state[2];
            GPU_CHECK(ctx, gcut__assign_unpack(d, sv->price, sv->row_col, stream));
            GPU_CHECK(ctx, cudaMemcpyAsync(res->row_col, sv->row_col, nn * sizeof *res->row_col,
                                           cudaMemcpyDeviceToHost, stream));
            GPU_CHECK(ctx, cudaStreamSynchronize(stream));
            return GCUT_E_INFEASIBLE;
        }
        if (sv->h_state[1] == GCUT__DASSIGN_RANGE) {
            /* Past -2^60: the CPU's error. Past the key's range only:
             * the caller solves on the CPU. */
            return d->pmin == -GCUT__ASSIGN_LIMIT
                       ? gcut__fail(ctx, GCUT_E_OVERFLOW, "assign: a price passed -2^60 "
                                    "(costs too large for this size)")
                       : GCUT_E_UNSUPPORTED;
        }
        if (sv->h_state[1] != GCUT__DASSIGN_RUNNING)
            return gcut__fail(ctx, GCUT_E_STATE, "assign: a GPU phase (eps %lld) ran past %lld s",
                              (long long)eps, PHASE_LIMIT_NS / 1000000000LL);
        res->refines++;
        first = 0;
    } while (eps > 1);
    res->pushes += (int64_t)sv->h_bids[1];
    GPU_CHECK(ctx, gcut__assign_unpack(d, sv->price, sv->row_col, stream));
fail:
    return st;
}

extern "C" gcut_status gcut__gpu_assign(gcut_context *ctx, gcut__assign_problem *p,
                                        const gcut__assign_knobs *knobs,
                                        gcut__assign_result *res, const char **device)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    *device = s->name;
    const int32_t n = p->n;
    if (n == 0)
        return GCUT_OK;
    for (int32_t x = 0; x < n; x++)
        if (p->row_ptr[x + 1] == p->row_ptr[x]) { /* a row without arcs */
            for (int32_t i = 0; i < n; i++)
                res->row_col[i] = -1;
            res->stuck_row = x;
            return GCUT_E_INFEASIBLE;
        }
    const size_t nn = (size_t)n, mm = (size_t)(p->m > 0 ? p->m : 1);
    cudaStream_t stream = s->stream;
    solver sv;
    memset(&sv, 0, sizeof sv);
    gcut__dassign *d = &sv.d;
    d->n = n;
    long long *row_ptr = NULL, *cost64 = NULL, *start_min = NULL;
    int32_t *col = NULL, *cost32 = NULL;
    int32_t *h_cost32 = NULL;
    long long *h_start = NULL;
    const int dense_in = is_dense(p);
    const double t_setup = gcut__now_ms();
    double t_phases = t_setup, t_host = t_setup, t_copied = t_setup;

    /* the first phase's test: each row's least cost (given with a view) */
    if (p->may_be_infeasible && !p->row_min) {
        h_start = (long long *)malloc(nn * sizeof *h_start);
        if (!h_start) {
            st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
            goto fail;
        }
    }
    if (p->cost32) { /* a view: the caller's costs times the signed scale */
        d->unit = (long long)p->unit32;
        d->dense = dense_in;
        for (int32_t x = 0; h_start && x < n; x++) { /* the row minima were not had */
            long long b = INT64_MAX;
            for (int64_t a = p->row_ptr[x]; a < p->row_ptr[x + 1]; a++)
                b = p->cost32[a] * d->unit < b ? p->cost32[a] * d->unit : b;
            h_start[x] = b;
        }
    } else {
        h_cost32 = (int32_t *)malloc(mm * sizeof *h_cost32);
        const int fits = h_cost32 ? compact_costs(ctx, p, (int64_t)n + 1, dense_in, h_cost32,
                                                  h_start)
                                  : -1;
        if (fits < 0) {
            st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %lld arcs",
                            (long long)mm);
            goto fail;
        }
        if (fits) {
            d->unit = (long long)n + 1;
            d->dense = dense_in;
        } else {
            free(h_cost32);
            h_cost32 = NULL;
        }
    }
    t_host = gcut__now_ms();
    if ((st = solver_init(ctx, s, &sv, (double)p->m / n, knobs)))
        goto fail;
    /* The arcs (8 bytes a CSR arc, the bulk of the set-up's bytes) go up
     * through the context's pinned staging: the driver's own staging of
     * pageable memory ran at about 7 GB/s (31 of R = 5's 38 ms). */
    if (p->cost32 || h_cost32) {
        GPU_CHECK(ctx, cudaMalloc((void **)&cost32, mm * sizeof *cost32));
        if ((st = gcut__stage_upload(ctx, s, cost32, p->cost32 ? p->cost32 : h_cost32,
                                     (size_t)p->m * sizeof *cost32)))
            goto fail;
        d->cost32 = cost32;
    } else {
        GPU_CHECK(ctx, cudaMalloc((void **)&cost64, mm * sizeof *cost64));
        if ((st = gcut__stage_upload(ctx, s, cost64, p->cost, (size_t)p->m * sizeof *cost64)))
            goto fail;
        d->cost64 = cost64;
    }
    if (!d->dense) {
        GPU_CHECK(ctx, cudaMalloc((void **)&row_ptr, (nn + 1) * sizeof *row_ptr));
        GPU_CHECK(ctx, cudaMalloc((void **)&col, mm * sizeof *col));
        if ((st = gcut__stage_upload(ctx, s, row_ptr, p->row_ptr, (nn + 1) * sizeof *row_ptr)) ||
            (st = gcut__stage_upload(ctx, s, col, p->col, (size_t)p->m * sizeof *col)))
            goto fail;
        d->row_ptr = row_ptr;
        d->col = col;
    }
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    t_copied = gcut__now_ms();
    if (d->csr_frontier && (!d->cost32 || sv.update_every <= 0))
        d->csr_frontier = 0; /* 64-bit costs, or no price updates */
    if (d->csr_frontier)
        GPU_CHECK(ctx, csr_frontier_init(d, (long long)p->m, stream));
    if (p->may_be_infeasible) {
        GPU_CHECK(ctx, cudaMalloc((void **)&start_min, nn * sizeof *start_min));
        GPU_CHECK(ctx, cudaMemcpyAsync(start_min, p->row_min ? (const long long *)p->row_min
                                                             : h_start,
                                       nn * sizeof *start_min, cudaMemcpyHostToDevice, stream));
    }
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    t_phases = gcut__now_ms();
    {
        const int64_t range = p->cost_max - p->cost_min;
        st = solver_phases(ctx, s, &sv, range > 0 ? range : 1, start_min, 0, res);
        if (st)
            goto fail;
    }
    GPU_CHECK(ctx, cudaMemcpyAsync(res->row_col, sv.row_col, nn * sizeof *res->row_col,
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(res->price, sv.price, nn * sizeof *res->price,
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    gcut__log(ctx, 3, "assign: gpu: %d threads a row, %d workers, %s, %s costs%s, %llu chains, "
              "%llu bids, set-up %.1f ms (host arrays %.1f, buffers and copies %.1f, transpose "
              "and row minima %.1f)", sv.group, sv.workers, d->dense ? "dense" : "csr",
              d->cost32 ? "32-bit" : "64-bit", p->cost32 ? " (the caller's)" : "", sv.h_bids[0],
              sv.h_bids[1], t_phases - t_setup, t_host - t_setup, t_copied - t_host,
              t_phases - t_copied);
fail:
    cudaFree(row_ptr);
    cudaFree(col);
    cudaFree(cost32);
    cudaFree(cost64);
    cudaFree(start_min);
    solver_free(&sv);
    free(h_cost32);
    free(h_start);
    cudaGetLastError();
    return st;
}

/* The dense path's device buffers (the cost matrix, the solver's arena)
 * and its pinned ones, kept in the context between solves (the staging
 * pool's keep slot) where they fit: grown to the largest request, never
 * shrunk, freed with the context. Allocated afresh, a solve of dense
 * 2000^2 paid cudaMalloc and cudaMallocHost (and their frees) for about
 * 15 buffers on top of its 16 MB upload. */
typedef struct dense_keep {
    size_t cost_bytes;
    int32_t *cost;
    arena ar;
} dense_keep;

static void dense_keep_free(void *p)
{
    dense_keep *k = (dense_keep *)p;
    if (!k)
        return;
    cudaFree(k->cost);
    cudaFree(k->ar.dev);
    cudaFreeHost(k->ar.host);
    cudaGetLastError();
    free(k);
}

static size_t size_max(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Buffers for n rows (and the arena's extra_dev and extra_host bytes:
 * the candidate path's): the context's where they are large enough; else
 * new ones (as large as the kept ones were, at least), kept in their
 * place where the whole fits the context's memory budget and an eighth of
 * the device (the other GPU paths' room), else *own set: the caller frees
 * them after the solve. */
static gcut_status dense_buffers(gcut_context *ctx, gcut__gpu *s, size_t nn, size_t extra_dev,
                                 size_t extra_host, dense_keep **out, int *own)
{
    gcut_status st = GCUT_OK;
    const size_t cost_bytes = nn * nn * sizeof(int32_t);
    const size_t dev_bytes = arena_dev_bytes(nn) + extra_dev;
    const size_t host_bytes = arena_host_bytes(nn) + extra_host;
    dense_keep *k = (dense_keep *)gcut__stage_kept(ctx, GCUT__KEEP_ASSIGN_DENSE);
    size_t free_b = 0, total_b = 0;
    *own = 0;
    if (k && k->cost_bytes >= cost_bytes && k->ar.dev_cap >= dev_bytes &&
        k->ar.host_cap >= host_bytes) {
        *out = k;
        return GCUT_OK;
    }
    dense_keep *fresh = (dense_keep *)calloc(1, sizeof *fresh);
    if (!fresh)
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory");
    fresh->cost_bytes = size_max(cost_bytes, k ? k->cost_bytes : 0);
    fresh->ar.dev_cap = size_max(dev_bytes, k ? k->ar.dev_cap : 0);
    fresh->ar.host_cap = size_max(host_bytes, k ? k->ar.host_cap : 0);
    if (k) { /* too small: gone before the larger ones come */
        GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
        if ((st = gcut__stage_keep(ctx, s, GCUT__KEEP_ASSIGN_DENSE, NULL, NULL)))
            goto fail;
        dense_keep_free(k);
    }
    GPU_CHECK(ctx, cudaMemGetInfo(&free_b, &total_b));
    {
        const size_t kept = fresh->cost_bytes + fresh->ar.dev_cap + fresh->ar.host_cap;
        const int keep = (int64_t)kept <= gcut__memory_budget(ctx) &&
                         fresh->cost_bytes + fresh->ar.dev_cap <= total_b / 8;
        if (!keep) { /* this request's sizes only */
            fresh->cost_bytes = cost_bytes;
            fresh->ar.dev_cap = dev_bytes;
            fresh->ar.host_cap = host_bytes;
        }
        GPU_CHECK(ctx, cudaMalloc((void **)&fresh->cost, fresh->cost_bytes));
        GPU_CHECK(ctx, cudaMalloc((void **)&fresh->ar.dev, fresh->ar.dev_cap));
        GPU_CHECK(ctx, cudaMallocHost((void **)&fresh->ar.host, fresh->ar.host_cap));
        if (keep) {
            if ((st = gcut__stage_keep(ctx, s, GCUT__KEEP_ASSIGN_DENSE, fresh, dense_keep_free)))
                goto fail;
        } else {
            *own = 1;
        }
    }
    *out = fresh;
    return GCUT_OK;
fail:
    dense_keep_free(fresh);
    return st;
}

extern "C" size_t gcut__gpu_assign_kept_bytes(gcut_context *ctx)
{
    const dense_keep *k = (const dense_keep *)gcut__stage_kept(ctx, GCUT__KEEP_ASSIGN_DENSE);
    return k ? k->cost_bytes + k->ar.dev_cap + k->ar.host_cap : 0;
}

/* A dense request's check in its upload (gcut__dense_check): each
 * staging thread's least and largest cost and whether a column was out of
 * place, a cache line a thread. */
typedef struct dense_scan {
    const int32_t *cost, *col;
    int32_t n;
    struct {
        int32_t lo, hi;
        int bad;
        char pad[52];
    } part[GCUT__STAGE_THREADS_MAX];
} dense_scan;

/* A staged chunk of the matrix: its costs (read from the pinned copy, in
 * the thread's cache) and the caller's columns of the same arcs, row piece
 * by row piece so that the loop vectorizes. */
static void dense_scan_chunk(void *arg, const unsigned char *host, const unsigned char *staged,
                             size_t bytes, int part)
{
    dense_scan *sc = (dense_scan *)arg;
    const int64_t k0 = (const int32_t *)(const void *)host - sc->cost;
    const int64_t count = (int64_t)(bytes / sizeof(int32_t));
    const int32_t *c = (const int32_t *)(const void *)staged, *col = sc->col + k0;
    const int32_t n = sc->n;
    int32_t lo = sc->part[part].lo, hi = sc->part[part].hi, y0 = (int32_t)(k0 % n);
    int bad = 0;
    for (int64_t i = 0; i < count;) {
        const int64_t seg = n - y0 < count - i ? n - y0 : count - i;
        for (int64_t t = 0; t < seg; t++) {
            const int32_t v = c[i + t];
            bad |= col[i + t] != y0 + (int32_t)t;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        i += seg;
        y0 = 0;
    }
    sc->part[part].lo = lo;
    sc->part[part].hi = hi;
    sc->part[part].bad |= bad;
}

/* The results that go back to the host, packed so that they go in one
 * copy: the gap's two words, the column prices, the row duals, the
 * assignment. */
static size_t dense_out_bytes(size_t nn)
{
    return 2 * sizeof(unsigned long long) + 2 * nn * sizeof(long long) + nn * sizeof(int32_t);
}

typedef struct dense_out {
    unsigned long long *gap;
    long long *price, *dual;
    int32_t *row_col;
} dense_out;

static dense_out dense_out_at(unsigned char *base, size_t nn)
{
    dense_out o;
    o.gap = (unsigned long long *)(void *)base;
    o.price = (long long *)(void *)(base + 2 * sizeof(unsigned long long));
    o.dual = o.price + nn;
    o.row_col = (int32_t *)(void *)(o.dual + nn);
    return o;
}

/* Dense requests on their candidate arcs. Most cost matrices' optimal
 * assignments use only arcs among each row's few cheapest: the CSR solver
 * places the rows on each row's k + 1 cheapest arcs
 * (general_kernels/assign_candidates.cu), on a cost range (the first eps)
 * far below the matrix's for most families, where the host's matching
 * test on their columns (gcut__assign_candidates_match, the CPU path's)
 * finds a perfect assignment on them; where it finds none (product
 * (i j) mod 1001, |x_i - y_j|: the candidate solve would be lost), the
 * dense solve at once; where it cannot tell within its budget, each row's
 * k cheapest and its diagonal (a perfect assignment for sure). One pass
 * over the whole matrix, the dense proof itself, tells whether its prices
 * prove that solution optimal for every arc. Where not, a repair: the
 * graph made again from each row's k cheapest reduced costs at those
 * prices (and the column it holds), the solve resumed from its
 * state at the eps its worst row needs (the phases keep the rows still
 * within it), at most CANDIDATE_ROUNDS times; past that, or where many
 * rows fall short, the dense solve from the start (resumed from the
 * candidates' prices instead, it took as long or longer: line 1000^2
 * 17.4 ms against 17.2, product 2000^2 8.8-9.8 against 7.2). Where the
 * rows' cheapest arcs cover fewer than half the columns (a rank-one
 * matrix: every row's cheapest on the same few columns), at least half the
 * rows must go off them: the dense solve at once. Whatever the path, the
 * proof is the dense one over every arc.
 *
 * On by default from n = 2000 with k = 16 (knob candidates -1: off, k > 0:
 * on with k at any n). On an H100 against the dense solve
 * (bench/results/assign_NVIDIA_H100_80GB_HBM3.md): k = 8 fell short on
 * uniform costs, 32 was no faster; uniform 2000^2 0.72-0.85x, 5000^2
 * 0.36-0.41x, 10000^2 0.29x, wide 0.84x and 0.60x; the matching test
 * decides every family in under 0.1 ms of host time, sending product and
 * line 2000^2-5000^2 to the dense solve at once (lowrank goes by the
 * coverage test): over the five families at 2000^2 and 5000^2 median
 * 0.94x, worst 1.05x, inside main's own spread between two rounds
 * (0.81-1.07). Below 2000 no gain (the CSR solve's phases and updates
 * cost as much as the dense ones), and (i j) mod 1001 at 1000^2 holds a
 * perfect assignment on its cheapest arcs but not the optimum: a lost
 * candidate solve, 4.1x. */
#define CANDIDATE_ROUNDS 2

/* The arcs a row takes besides its guarantee (at most n - 1), or -1: the
 * dense solve on every arc from the start (the default: see above). */
static int candidate_count(int32_t n, const gcut__assign_knobs *knobs)
{
    const int knob = knobs ? knobs->candidates : 0;
    const int want = knob > 0 ? knob : knob == 0 && n >= 2000 ? 16 : -1;
    if (want < 0)
        return -1;
    return want < n - 1 ? want : n - 1;
}

/* The candidate path's room in the dense arena for n rows of k + 1 arcs:
 * the CSR solver's own buffers (as arena_dev_bytes), the graph (row
 * starts, columns, costs), the CSR frontier update's buffers and
 * transpose (csr_frontier_init's sizes), the column flags, the stats. */
static size_t candidates_dev_bytes(size_t n, int k)
{
    const size_t m = n * (size_t)(k + 1);
    return arena_dev_bytes(n) + 16 * (n + 1) + 16 * m + 36 * n + 64 + 16 * ARENA_ALIGN;
}

/* Pinned: the stats and the first graph's columns (the matching test). */
static size_t candidates_host_bytes(size_t n, int k)
{
    return 4 * n * (size_t)(k + 1) + 8 * ARENA_ALIGN + 1024;
}

/* The CSR frontier update's buffers (csr_frontier_init's) from the arena. */
static cudaError_t candidates_frontier(solver *cs, size_t m)
{
    gcut__dassign *d = &cs->d;
    const size_t nn = (size_t)d->n;
    cudaError_t err;
    if ((err = dev_alloc(cs, (void **)&d->t_ptr, (nn + 1) * sizeof *d->t_ptr)) != cudaSuccess ||
        (err = dev_alloc(cs, (void **)&d->t_row, m * sizeof *d->t_row)) != cudaSuccess ||
        (err = dev_alloc(cs, (void **)&d->t_cost, m * sizeof *d->t_cost)) != cudaSuccess ||
        (err = dev_alloc(cs, (void **)&d->lkey, nn * sizeof *d->lkey)) != cudaSuccess ||
        (err = dev_alloc(cs, (void **)&d->held, nn * sizeof *d->held)) != cudaSuccess ||
        (err = dev_alloc(cs, (void **)&d->fmark, nn * sizeof *d->fmark)) != cudaSuccess ||
        (err = dev_alloc(cs, (void **)&d->flist, 2 * nn * sizeof *d->flist)) != cudaSuccess)
        return err;
    return dev_alloc(cs, (void **)&d->fcount, 3 * sizeof *d->fcount);
}

/* The solve of a dense request (sv: its dense solver, the matrix on the
 * device) through its k candidates a row, the solution left in sv->price
 * and sv->row_col as solver_phases leaves it. *proved: dual and d_gap
 * hold that solution's dense proof (h_gap: pinned room for its copy). */
static gcut_status dense_by_candidates(gcut_context *ctx, gcut__gpu *s, solver *sv,
                                       const gcut__assign_dense *p,
                                       const gcut__assign_knobs *knobs, int k, int64_t range,
                                       long long *dual, unsigned long long *d_gap,
                                       unsigned long long *h_gap, int *proved,
                                       gcut__assign_result *res)
{
    gcut_status st = GCUT_OK;
    gcut__dassign *d = &sv->d;
    const int32_t n = d->n;
    const size_t nn = (size_t)n, mm = nn * (size_t)(k + 1);
    cudaStream_t stream = s->stream;
    const int64_t scale = p->scale;
    solver cs;
    memset(&cs, 0, sizeof cs);
    cs.arena = sv->arena;
    cs.d.n = n;
    cs.d.unit = d->unit;
    gcut__candidates c;
    memset(&c, 0, sizeof c);
    gcut__candidate_stats *stats = NULL, *h_stats = NULL;
    int32_t *h_col = NULL, *owner = NULL;
    unsigned long long covered = 0, violators = 0, worst = 0;
    int rounds = 0, perfect = 1;
    const char *path = "";
    const double t0 = gcut__now_ms();
    double t_built = t0, t_first = t0;
    *proved = 0;

    if ((st = solver_init(ctx, s, &cs, (double)(k + 1), knobs)))
        goto fail;
    /* The candidates' solve takes the dense rows' schedule, alpha 16 from
     * the range over 160, not the CSR rows' 10 from the range over 10: its
     * time is its phases' launches, updates and chains, not its short rows.
     * On an H100, uniform and wide costs at 2000-10000, two rounds: median
     * 0.81x, worst 0.98x (uniform 2000^2 9.3 -> 7.1 ms;
     * bench/results/assign_NVIDIA_H100_80GB_HBM3.md). */
    if (!(knobs && knobs->alpha > 1))
        cs.alpha = 16;
    if (!(knobs && knobs->gpu_eps_start > 0))
        cs.start_div = 10;
    c.n = n;
    c.k = k;
    c.cost = d->cost32;
    c.sign = (long long)p->sign;
    c.unit = d->unit;
    GPU_CHECK(ctx, dev_alloc(&cs, (void **)&c.row_ptr, (nn + 1) * sizeof *c.row_ptr));
    GPU_CHECK(ctx, dev_alloc(&cs, (void **)&c.col, mm * sizeof *c.col));
    GPU_CHECK(ctx, dev_alloc(&cs, (void **)&c.cost_out, mm * sizeof *c.cost_out));
    GPU_CHECK(ctx, dev_alloc(&cs, (void **)&c.covered, nn * sizeof *c.covered));
    GPU_CHECK(ctx, dev_alloc(&cs, (void **)&stats, sizeof *stats));
    GPU_CHECK(ctx, host_alloc(&cs, (void **)&h_stats, sizeof *h_stats));
    GPU_CHECK(ctx, host_alloc(&cs, (void **)&h_col, mm * sizeof *h_col));
    c.stats = stats;
    if (cs.d.csr_frontier && cs.update_every > 0)
        GPU_CHECK(ctx, candidates_frontier(&cs, mm));
    else
        cs.d.csr_frontier = 0;
    cs.d.row_ptr = c.row_ptr;
    cs.d.col = c.col;
    cs.d.cost32 = c.cost_out;

    /* first each row's k + 1 cheapest arcs alone, and the test on the host
     * (n (k + 1) columns down) whether they hold a perfect assignment */
    GPU_CHECK(ctx, gcut__assign_candidates(&c, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(h_stats, stats, sizeof *h_stats, cudaMemcpyDeviceToHost,
                                   stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(h_col, c.col, mm * sizeof *h_col, cudaMemcpyDeviceToHost,
                                   stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    covered = h_stats->covered;
    if (covered < nn / 2) {
        path = "the dense solve (the cheapest arcs cover few columns)";
        t_first = t_built = gcut__now_ms();
        st = solver_phases(ctx, s, sv, range, NULL, 0, res);
        goto done;
    }
    owner = (int32_t *)malloc(nn * sizeof *owner);
    if (!owner) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
        goto fail;
    }
    if ((st = gcut__assign_candidates_match(ctx, n, k + 1, h_col, NULL, owner, &perfect)))
        goto fail;
    t_built = gcut__now_ms();
    if (perfect == 0) {
        /* many rows' cheap arcs on the same few columns, or an optimum far
         * down the rows (as with |x_i - y_j|): the candidate solve would
         * be lost */
        path = "the dense solve (no perfect assignment on the cheapest arcs)";
        t_first = t_built;
        st = solver_phases(ctx, s, sv, range, NULL, 0, res);
        goto done;
    }
    if (perfect < 0) {
        /* undecided: the graph again with the diagonal, a perfect
         * assignment for sure */
        c.guard = 1;
        GPU_CHECK(ctx, gcut__assign_candidates(&c, stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(h_stats, stats, sizeof *h_stats, cudaMemcpyDeviceToHost,
                                       stream));
        GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    }
    if (cs.d.csr_frontier)
        GPU_CHECK(ctx, gcut__assign_transpose(&cs.d, (long long)mm, stream));
    {
        /* the first eps from the cheapest arcs' range (uniform [0, 1000]
         * at k = 16: about 10-20, not 1000); with the diagonal, at least
         * 2^-10 of the matrix's: rows that must take it may need prices
         * that far down */
        const int64_t cheap = h_stats->hi >= h_stats->lo ? (h_stats->hi - h_stats->lo) * scale : 0;
        const int64_t floor = c.guard ? range >> 10 : 1;
        st = solver_phases(ctx, s, &cs, cheap > floor ? cheap : floor, NULL, 0, res);
    }
    t_first = gcut__now_ms();
    while (!st) {
        GPU_CHECK(ctx, gcut__assign_dense_proof(d, cs.price, cs.row_col, scale, dual, d_gap,
                                                stream));
        GPU_CHECK(ctx, gcut__assign_violations(d, cs.price, cs.row_col, dual, 1, stats, stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(h_gap, d_gap, 2 * sizeof *h_gap, cudaMemcpyDeviceToHost,
                                       stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(h_stats, stats, sizeof *h_stats, cudaMemcpyDeviceToHost,
                                       stream));
        GPU_CHECK(ctx, cudaStreamSynchronize(stream));
        if (h_gap[1] == 0 && h_gap[0] < (unsigned long long)scale) {
            path = rounds ? "repaired" : "optimal on the candidates";
            GPU_CHECK(ctx, cudaMemcpyAsync(sv->price, cs.price, nn * sizeof *sv->price,
                                           cudaMemcpyDeviceToDevice, stream));
            GPU_CHECK(ctx, cudaMemcpyAsync(sv->row_col, cs.row_col, nn * sizeof *sv->row_col,
                                           cudaMemcpyDeviceToDevice, stream));
            *proved = 1;
            break;
        }
        violators = h_stats->violators;
        worst = h_stats->worst > 1 ? h_stats->worst : 2;
        if (rounds >= CANDIDATE_ROUNDS || violators > nn / 4) {
            /* sv's keys are still solver_init's: today's dense solve */
            path = "the dense solve after them";
            st = solver_phases(ctx, s, sv, range, NULL, 0, res);
            break;
        }
        rounds++;
        c.guard = 1;
        c.price = cs.price;
        c.dual = dual;
        c.row_col = cs.row_col;
        c.covered = NULL;
        GPU_CHECK(ctx, gcut__assign_candidates(&c, stream));
        if (cs.d.csr_frontier)
            GPU_CHECK(ctx, gcut__assign_transpose(&cs.d, (long long)mm, stream));
        st = solver_phases(ctx, s, &cs, (int64_t)worst, NULL, 1, res);
    }
done:
    gcut__log(ctx, 3, "assign: gpu candidates: %d a row and one more%s, %llu of %d columns among "
              "the cheapest, %s; %d repair rounds, %llu rows above eps (worst %llu) before the "
              "last step; build and test %.3f ms, first solve %.3f ms, the rest %.3f ms", k,
              c.guard && !rounds ? " (the diagonal)" : "", covered, n, path, rounds, violators,
              worst, t_built - t0, t_first - t_built, gcut__now_ms() - t_first);
fail:
    /* (the arena's: not freed by solver_free) */
    cs.d.t_ptr = cs.d.held = NULL;
    cs.d.t_row = cs.d.t_cost = cs.d.fmark = cs.d.flist = cs.d.fcount = NULL;
    cs.d.lkey = NULL;
    solver_free(&cs);
    free(owner);
    return st;
}

/* A dense square request straight from the caller's matrix: the costs go
 * up as they are (32-bit, row-major: the kernels' dense layout) and the
 * kernels multiply by the signed scale, so the host builds nothing; the
 * proof's row duals and gap come from one pass on the device
 * (general_kernels/assign_dense_proof.cu) instead of the CPU's passes over
 * the request. On dense 2000^2 the host's build, compaction and proof
 * were 46 of 138 ms (bench/results/assign_NVIDIA_H200.md). The matrix goes
 * up through the context's pinned staging (src/gpu/staging.cu) into the
 * kept buffers: from the caller's pageable memory in one copy, into
 * buffers allocated a solve, buffers and upload took (medians on an H100)
 * 3.3 ms on dense 2000^2, 13.1 on 5000^2, 54.5 on 10000^2; now 1.4, 3.2
 * and 9.4 (a context's first solve of a size pays the allocations and the
 * staging's pinning: 6.1, 15.1, 18.9). With p->check the staging threads
 * also check the request's columns and take its cost range (the host's
 * own pass over the 8 n^2 bytes of columns and costs is then left out:
 * the upload takes 1.07 instead of 0.99 ms on 2000^2, where that pass
 * took 0.5; at 10000^2 the host's memory bounds both, 15.8 against 8.7
 * ms, where the pass took 10). The first phase is queued behind the
 * upload without a wait, and the results come back in one copy. */
extern "C" gcut_status gcut__gpu_assign_dense(gcut_context *ctx, const gcut__assign_dense *p,
                                              const gcut__assign_knobs *knobs,
                                              gcut__assign_result *res, int64_t *row_dual,
                                              int64_t *gap, const char **device)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    *device = s->name;
    const int32_t n = p->n;
    if (n == 0) {
        *gap = 0;
        if (p->check) {
            p->check->ok = 1;
            p->check->cost_min = p->check->cost_max = 0;
        }
        return GCUT_OK;
    }
    const size_t nn = (size_t)n;
    cudaStream_t stream = s->stream;
    solver sv;
    memset(&sv, 0, sizeof sv);
    gcut__dassign *d = &sv.d;
    d->n = n;
    d->dense = 1;
    d->unit = (long long)(p->sign * p->scale);
    dense_keep *keep = NULL;
    int own = 0, proved = 0;
    unsigned char *out_dev = NULL, *out_host = NULL;
    dense_out od, oh;
    dense_scan *scan = NULL;
    int64_t cost_min = p->cost_min, cost_max = p->cost_max;
    float upload_ms = -1;
    const double t0 = gcut__now_ms();
    double t_init = t0, t_up = t0, t_set = t0, t_solved = t0;

    if (p->check) {
        p->check->ok = 0;
        scan = (dense_scan *)malloc(sizeof *scan);
        if (!scan)
            return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory");
        scan->cost = p->cost;
        scan->col = p->check->col;
        scan->n = n;
        for (int k = 0; k < GCUT__STAGE_THREADS_MAX; k++) {
            scan->part[k].lo = INT32_MAX;
            scan->part[k].hi = INT32_MIN;
            scan->part[k].bad = 0;
        }
    }
    const int k = candidate_count(n, knobs);
    if ((st = dense_buffers(ctx, s, nn, k >= 0 ? candidates_dev_bytes(nn, k) : 0,
                            k >= 0 ? candidates_host_bytes(nn, k) : 0, &keep, &own))) {
        free(scan);
        return st;
    }
    keep->ar.dev_used = keep->ar.host_used = 0;
    sv.arena = &keep->ar;
    GPU_CHECK(ctx, dev_alloc(&sv, (void **)&out_dev, dense_out_bytes(nn)));
    GPU_CHECK(ctx, host_alloc(&sv, (void **)&out_host, dense_out_bytes(nn)));
    od = dense_out_at(out_dev, nn);
    oh = dense_out_at(out_host, nn);
    sv.price = od.price;
    sv.row_col = od.row_col;
    t_init = gcut__now_ms();
    if ((st = gcut__stage_upload_scan(ctx, s, keep->cost, p->cost, nn * nn * sizeof(int32_t),
                                      scan ? dense_scan_chunk : NULL, scan)))
        goto fail;
    t_up = gcut__now_ms();
    if (scan) {
        int bad = 0;
        int32_t lo = INT32_MAX, hi = INT32_MIN;
        for (int k = 0; k < GCUT__STAGE_THREADS_MAX; k++) {
            bad |= scan->part[k].bad;
            lo = scan->part[k].lo < lo ? scan->part[k].lo : lo;
            hi = scan->part[k].hi > hi ? scan->part[k].hi : hi;
        }
        const int64_t a = p->sign * lo, b = p->sign * hi;
        cost_min = a < b ? a : b;
        cost_max = a < b ? b : a;
        const int64_t top = cost_max > -cost_min ? cost_max : -cost_min;
        if (bad || top > GCUT__ASSIGN_LIMIT / p->scale) {
            st = GCUT_E_UNSUPPORTED; /* the caller's check says what */
            goto fail;
        }
        p->check->ok = 1;
        p->check->cost_min = cost_min;
        p->check->cost_max = cost_max;
    }
    /* The solver's set-up (its queries and first values) after the upload,
     * so that its calls overlap the last copies; no wait after either: the
     * first phase's launches queue behind them. */
    if ((st = solver_init(ctx, s, &sv, (double)n, knobs)))
        goto fail;
    d->cost32 = keep->cost;
    t_set = gcut__now_ms();
    /* a complete bipartite graph always has a perfect assignment */
    {
        const int64_t spread = (cost_max - cost_min) * p->scale;
        const int64_t range = spread > 0 ? spread : 1;
        st = k >= 0 ? dense_by_candidates(ctx, s, &sv, p, knobs, k, range, od.dual, od.gap,
                                          oh.gap, &proved, res)
                    : solver_phases(ctx, s, &sv, range, NULL, 0, res);
    }
    if (st)
        goto fail;
    t_solved = gcut__now_ms();
    if (!proved) /* (the candidate path's last proof is of this solution) */
        GPU_CHECK(ctx, gcut__assign_dense_proof(d, od.price, od.row_col, p->scale, od.dual,
                                                od.gap, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(out_host, out_dev, dense_out_bytes(nn),
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    memcpy(res->row_col, oh.row_col, nn * sizeof *res->row_col);
    memcpy(res->price, oh.price, nn * sizeof *res->price);
    memcpy(row_dual, oh.dual, nn * sizeof *row_dual);
    /* gap[1]: rows without a column; a gap capped at the scale per row
     * (the check needs only "below the scale") */
    *gap = oh.gap[1] ? p->scale : (int64_t)oh.gap[0];
    if (gcut__stage_upload_span_ms(ctx, &upload_ms) != GCUT_OK)
        upload_ms = -1;
    gcut__log(ctx, 3, "assign: gpu dense: %d threads a row, %d workers; buffers %.2f ms, upload "
              "%.2f ms queued (%.2f ms on the stream)%s, set-up %.2f ms, phases %.1f ms, proof "
              "and results %.2f ms", sv.group, sv.workers, t_init - t0, t_up - t_init, upload_ms,
              scan ? " with the request's check" : "", t_set - t_up, t_solved - t_set,
              gcut__now_ms() - t_solved);
fail:
    if (st)
        cudaStreamSynchronize(stream); /* nothing queued still uses the buffers */
    solver_free(&sv);
    if (own) {
        cudaStreamSynchronize(stream);
        dense_keep_free(keep);
    }
    free(scan);
    cudaGetLastError();
    return st;
}
