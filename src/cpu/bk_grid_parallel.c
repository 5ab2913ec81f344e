/* "pbk": an exact maximum flow on the grid on several CPU threads.
 *
 * J. Liu, J. Sun, "Parallel Graph-cuts by Adaptive Bottom-up Merging",
 * CVPR 2010. The grid is cut into P row strips. Each strip runs
 * Boykov–Kolmogorov (src/cpu/bk_grid_core.h, the core of src/cpu/bk_grid.c
 * too) on its own thread with the arcs that cross a strip border held at
 * zero residual: every strip's flow is a flow of the whole graph, and so
 * is their union. Then
 * neighbouring strips merge pairwise, in parallel, log2 P rounds: a merge
 * gives the arcs across the shared border their capacity back (no flow ran
 * on them), wakes the tree nodes of the two border rows, and BK goes on from
 * the two strips' search trees, which stay valid: a tree only uses arcs
 * inside its strip, and BK's invariant (a passive node has residual arcs
 * only into its own tree) is restored by making every border node that may
 * break it active. The last merge is a BK on the whole residual graph, so
 * it ends with a maximum flow, the sink tree holding exactly the pixels
 * that can still reach the sink: the labels are the same set as a
 * sequential BK's, whatever P.
 *
 * Strips differ in work by several times, so there are more of them than
 * threads (GCUT__PBK_STRIPS_PER_THREAD) and each round hands its strips or
 * merges to the threads as they come free. On the 4 MP segmentation graphs
 * most of the flow is found inside the strips; what limits the speed-up is
 * a border that much of the flow must cross, whose merge runs on one thread
 * (bench/results/grid_cpu_parallel_h100.md).
 *
 * Threads never touch each other's data: a strip reads and writes only its
 * own rows' nodes and arcs. The one exception would be reading a
 * neighbour's tag across the border; every such read is guarded by a
 * residual test first, and the residuals across a held border are zero
 * (every strip is started before any runs) and written by nobody until the
 * merge. (ThreadSanitizer agrees on gcut-check's grids.)
 */
#include "cpu/bk_grid_parallel.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/bk_grid_core.h"
#include "io/big_alloc.h"
#include "vision/parallel.h"

/* Steps between looks at the stop flag, and between progress reports. */
#define STOP_POLL_MASK 0xffff
#define PROGRESS_MASK 0xfffff

struct pbk_shared;

/* One strip: pixel rows [y0, y1), nodes [bk.lo, bk.hi) of the padded
 * raster (the first strip also owns the top padding row, the last the
 * bottom one), and its BK state. */
typedef struct strip {
    bk_core bk;
    struct pbk_shared *sh;
    int y0, y1;
    int reports; /* runs on the calling thread: may call the progress callback */
    gcut_status status;
} strip;

typedef struct pbk_shared {
    gcut_grid *g;
    bk_node *node;
    uint8_t *tag;
    int32_t *orphan;
    atomic_int stop;
    int threads;
    strip *strips;    /* this round's strips */
    const strip *src; /* a merge round: the strips being merged, in pairs */
    atomic_int next_task;
    int tasks;
    int64_t flow[GCUT__MAX_THREADS];
} pbk_shared;

/* ---- BK on one strip (src/cpu/bk_grid_core.h) ------------------------- */

/* Every few thousand steps: the calling thread reports progress (and may
 * be asked to stop); every thread looks whether a stop was asked. */
static int should_stop(bk_core *bk)
{
    strip *s = bk->owner;
    if (s->reports && (bk->steps & PROGRESS_MASK) == 0 &&
        gcut__progress(s->sh->g->ctx, "cut", -1.0))
        atomic_store(&s->sh->stop, 1);
    return atomic_load_explicit(&s->sh->stop, memory_order_relaxed);
}

BK_NOINLINE gcut_status run4(bk_core *bk)
{
    return bk_run(bk, 4, 1, STOP_POLL_MASK, should_stop);
}
BK_NOINLINE gcut_status run8(bk_core *bk)
{
    return bk_run(bk, 8, 1, STOP_POLL_MASK, should_stop);
}

/* The strip's state may have been copied (merges, an odd strip carried
 * to the next round): point its owner at where it is now. */
static gcut_status run_strip(strip *s)
{
    s->bk.owner = s;
    return s->sh->g->ndirs == 4 ? run4(&s->bk) : run8(&s->bk);
}

/* ---- strips: start, border, merge -------------------------------------- */

static void strip_bounds(strip *s, const gcut_grid *g, int y0, int y1)
{
    s->y0 = y0;
    s->y1 = y1;
    s->bk.lo = y0 == 0 ? 0 : (int32_t)(y0 + 1) * g->pitch;
    s->bk.hi = y1 == g->height ? g->n_padded : (int32_t)(y1 + 1) * g->pitch;
    s->bk.orphan = s->sh->orphan + s->bk.lo;
    s->bk.orphan_size = s->bk.hi - s->bk.lo;
    s->bk.orphan_head = s->bk.orphan_count = 0;
    s->bk.queue_first = s->bk.queue_last = 0;
}

/* Set the residuals of the arcs from pixel row y that cross to row y + dy
 * (dy = -1 or 1): to zero (held) or back to their capacity. */
static void set_crossing(const gcut_grid *g, int32_t *const *res, int y, int dy, int hold)
{
    int32_t row = gcut__grid_node(g, 0, y);
    for (int d = 0; d < g->ndirs; d++) {
        int ddx, ddy;
        gcut_dir_offset((gcut_dir)d, &ddx, &ddy);
        if (ddy != dy)
            continue;
        if (hold)
            memset(res[d] + row, 0, (size_t)g->width * sizeof(int32_t));
        else
            memcpy(res[d] + row, g->cap[d] + row, (size_t)g->width * sizeof(int32_t));
    }
}

/* A cold start of one strip (BK's: residuals = capacities, min(source,
 * sink) of each pixel straight into the flow, the rest seeding the trees),
 * with the arcs across its borders held. Touching the strip's share of the
 * fresh arrays here, on its own thread, also spreads the page faults. */
static void start_strip(strip *s)
{
    const gcut_grid *g = s->sh->g;
    size_t n = (size_t)(s->bk.hi - s->bk.lo);
    for (int d = 0; d < g->ndirs; d++)
        memcpy(s->bk.res[d] + s->bk.lo, g->cap[d] + s->bk.lo, n * sizeof(int32_t));
    if (s->y0 > 0)
        set_crossing(g, s->bk.res, s->y0, -1, 1);
    if (s->y1 < g->height)
        set_crossing(g, s->bk.res, s->y1 - 1, 1, 1);
    memset(s->bk.tag + s->bk.lo, 0, n);
    memset(s->bk.node + s->bk.lo, 0, n * sizeof *s->bk.node);
    s->bk.time = 0;
    for (int y = s->y0; y < s->y1; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            int32_t i = row + x;
            int32_t tr = g->source_cap[i] - g->sink_cap[i];
            s->bk.node[i].dist = 1;
            s->bk.node[i].tr = tr;
            if (tr != 0) {
                s->bk.tag[i] = (uint8_t)((tr < 0 ? SINK_TREE : 0) | PARENT_TERMINAL);
                bk_set_active(&s->bk, i);
            }
        }
    }
}

/* Join strip b (below) to strip a: the border's arcs get their capacity
 * back and the tree nodes of the two border rows wake up (their new arcs
 * may lead out of their tree). The trees, residuals and terminal
 * residuals stay. */
static void merge_strips(strip *out, const strip *a, const strip *b)
{
    const gcut_grid *g = a->sh->g;
    *out = *a;
    strip_bounds(out, g, a->y0, b->y1);
    /* Every distance stale: a time later than both strips'. */
    out->bk.time = a->bk.time > b->bk.time ? a->bk.time : b->bk.time;
    bk_advance_time(&out->bk);
    out->bk.steps = a->bk.steps + b->bk.steps;
    out->bk.augmentations = a->bk.augmentations + b->bk.augmentations;
    out->status = GCUT_OK;
    int yb = b->y0;
    set_crossing(g, out->bk.res, yb - 1, 1, 0);
    set_crossing(g, out->bk.res, yb, -1, 0);
    for (int y = yb - 1; y <= yb; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++)
            if (out->bk.tag[row + x] & PARENT_MASK)
                bk_set_active(&out->bk, row + x);
    }
}

/* ---- the rounds --------------------------------------------------------- */

/* Every strip starts before any runs: a running strip reads the held
 * residuals of its neighbours' border rows, which must be zero by then. */
static void start_round(void *arg, int64_t begin, int64_t end, int part)
{
    pbk_shared *sh = arg;
    (void)part;
    for (int64_t k = begin; k < end; k++)
        start_strip(&sh->strips[k]);
}

/* A round's tasks (strips to run, or pairs to merge and run) go to the
 * threads one at a time, as they come free: strips differ in work by
 * several times, so a fixed share would leave threads idle. */
static void work_round(void *arg, int64_t begin, int64_t end, int part)
{
    pbk_shared *sh = arg;
    (void)begin, (void)end;
    for (;;) {
        int k = atomic_fetch_add(&sh->next_task, 1);
        if (k >= sh->tasks)
            break;
        strip *s = &sh->strips[k];
        if (sh->src)
            merge_strips(s, &sh->src[2 * k], &sh->src[2 * k + 1]);
        s->reports = part == 0;
        s->status = run_strip(s);
    }
}

static void run_round(pbk_shared *sh, int tasks)
{
    atomic_store(&sh->next_task, 0);
    sh->tasks = tasks;
    int parts = sh->threads < tasks ? sh->threads : tasks;
    gcut__parallel_for(parts, parts, work_round, sh);
}

/* Labels (source side = not in the sink tree: at the end the sink tree is
 * every pixel that can reach the sink) and the flow (what the source arcs
 * carry). */
static void finish(void *arg, int64_t begin, int64_t end, int part)
{
    pbk_shared *sh = arg;
    gcut_grid *g = sh->g;
    int64_t flow = 0;
    for (int y = (int)begin; y < (int)end; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            int32_t i = row + x;
            int32_t tr = sh->node[i].tr;
            uint8_t t = sh->tag[i];
            flow += (int64_t)g->source_cap[i] - (tr > 0 ? tr : 0);
            g->label[i] = (t & PARENT_MASK) == PARENT_FREE || !(t & SINK_TREE);
        }
    }
    sh->flow[part] = flow;
}

int gcut__pbk_grid_threads(const gcut_grid *g)
{
    int requested = g->threads > 0 ? g->threads : g->ctx ? g->ctx->options.threads : 0;
    if (requested > 0)
        return gcut__thread_count(requested, g->height);
    /* One per CPU, while each has enough pixels to pay for it and at least
     * 16 rows (else the strip borders are most of the work). */
    int threads = gcut__thread_count(0, INT64_MAX);
    int64_t most = (int64_t)g->width * g->height / GCUT__PBK_MIN_PIXELS_PER_THREAD;
    if (most > g->height / 16)
        most = g->height / 16;
    return threads < most ? threads : most < 1 ? 1 : (int)most;
}

int gcut__pbk_grid_strips(const gcut_grid *g, int threads)
{
    int64_t strips = (int64_t)threads * GCUT__PBK_STRIPS_PER_THREAD;
    if (strips > g->height / GCUT__PBK_MIN_ROWS)
        strips = g->height / GCUT__PBK_MIN_ROWS;
    if (strips < threads)
        strips = threads < g->height ? threads : g->height;
    return (int)strips;
}

gcut_status gcut__pbk_grid_run(gcut_grid *g, int threads, int strips, int64_t *iterations,
                               gcut__pbk_times *times)
{
    if (threads > GCUT__MAX_THREADS)
        threads = GCUT__MAX_THREADS;
    if (strips > g->height)
        strips = g->height;
    if (threads <= 1 && strips <= 1)
        return gcut__bk_grid_solve(g, iterations);
    if (threads < 1)
        threads = 1;
    if (strips < 1)
        strips = 1;
    gcut__bk_grid_forget(g); /* its trees will not match these residuals */

    size_t n = (size_t)g->n_padded;
    pbk_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.g = g;
    sh.threads = threads;
    atomic_init(&sh.stop, 0);
    atomic_init(&sh.next_task, 0);
    sh.node = gcut__big_alloc(n * sizeof *sh.node);
    sh.tag = gcut__big_alloc(n);
    sh.orphan = gcut__big_alloc(n * sizeof *sh.orphan);
    strip *a = calloc((size_t)strips, sizeof *a), *b = calloc((size_t)strips, sizeof *b);
    gcut_status st = GCUT_OK;
    if (!sh.node || !sh.tag || !sh.orphan || !a || !b) {
        st = gcut__fail(g->ctx, GCUT_E_NOMEM, "pbk: out of memory for %dx%d pixels", g->width,
                        g->height);
        goto done;
    }
    for (int k = 0; k < strips; k++) {
        strip *s = &a[k];
        s->sh = &sh;
        s->bk.node = sh.node;
        s->bk.tag = sh.tag;
        for (int d = 0; d < GCUT__MAX_DIRS; d++) {
            s->bk.off[d] = g->offset[d];
            s->bk.res[d] = d < g->ndirs ? g->res[d] : NULL;
        }
        strip_bounds(s, g, (int)((int64_t)g->height * k / strips),
                     (int)((int64_t)g->height * (k + 1) / strips));
    }
    /* Starting and finishing stream over the arrays: threads there only
     * for large grids (gcut__thread_count's rule for such loops). */
    int stream_parts = gcut__thread_count(0, (int64_t)g->width * g->height);
    if (stream_parts > threads)
        stream_parts = threads;
    double t0 = gcut__now_ms();
    sh.strips = a;
    gcut__parallel_for(stream_parts < strips ? stream_parts : strips, strips, start_round, &sh);
    double t1 = gcut__now_ms();
    run_round(&sh, strips);
    double t2 = gcut__now_ms();
    if (times) {
        memset(times, 0, sizeof *times);
        times->start_ms = t1 - t0;
        times->strips_ms = t2 - t1;
    }
    /* Pairwise merges: strips 2k and 2k+1 become strip k; an odd last one
     * waits for the next round as it is. */
    for (int count = strips; count > 1;) {
        for (int k = 0; k < count; k++)
            if (sh.strips[k].status)
                st = sh.strips[k].status;
        if (st)
            break;
        int merges = count / 2;
        sh.src = sh.strips;
        sh.strips = sh.strips == a ? b : a;
        double t3 = gcut__now_ms();
        run_round(&sh, merges);
        if (times && times->rounds < GCUT__PBK_MAX_ROUNDS)
            times->merge_ms[times->rounds++] = gcut__now_ms() - t3;
        if (count & 1)
            sh.strips[merges] = sh.src[count - 1];
        count = merges + (count & 1);
    }
    if (!st && sh.strips[0].status)
        st = sh.strips[0].status;
    if (st) {
        st = gcut__fail(g->ctx, GCUT_E_STATE, "grid: the solve was stopped by the caller");
        goto done;
    }
    int parts = stream_parts < g->height ? stream_parts : g->height;
    gcut__parallel_for(parts, g->height, finish, &sh);
    g->flow = 0;
    for (int p = 0; p < parts; p++)
        g->flow += sh.flow[p];
    *iterations = sh.strips[0].bk.augmentations;
done:
    free(sh.node);
    free(sh.tag);
    free(sh.orphan);
    free(a);
    free(b);
    return st;
}

gcut_status gcut__pbk_grid_solve(gcut_grid *g, int64_t *iterations)
{
    int threads = gcut__pbk_grid_threads(g);
    int strips = threads > 1 ? gcut__pbk_grid_strips(g, threads) : 1;
    return gcut__pbk_grid_run(g, threads, strips, iterations, NULL);
}
