/* "pbk": an exact maximum flow on the grid on several CPU threads.
 *
 * J. Liu, J. Sun, "Parallel Graph-cuts by Adaptive Bottom-up Merging",
 * CVPR 2010. The grid is cut into P row strips. Each strip runs
 * Boykov–Kolmogorov (src/cpu/bk_grid_core.h, the core of src/cpu/bk_grid.c
 * too) on its own thread with the arcs that cross a strip border held at
 * zero residual: every strip's flow is a flow of the whole graph, and so
 * is their union. Then neighbouring regions (strips, or strips already
 * merged) merge pairwise: a merge gives the arcs across the shared border
 * their capacity back (no flow ran on them), wakes the tree nodes of the
 * two border rows, and BK goes on from the two regions' search trees,
 * which stay valid: a tree only uses arcs inside its region, and BK's
 * invariant (a passive node has residual arcs only into its own tree) is
 * restored by making every border node that may break it active. The last
 * merge is a BK on the whole residual graph, so it ends with a maximum
 * flow, the sink tree holding exactly the pixels that can still reach the
 * sink: the labels are the same set as a sequential BK's, whatever the
 * strips or the order of the merges.
 *
 * Strips differ in work by several times, so there are more of them than
 * threads (GCUT__PBK_STRIPS_PER_THREAD) and the tasks go to the threads as
 * they come free: first every strip, then the merges of a fixed binary
 * tree, each as soon as its two regions are done rather than round by
 * round (a round waited for its slowest merge while the other threads
 * idled: 17-21% off the 16-thread time of the 4 MP segmentation graphs,
 * bench/results/grid_cpu_parallel_h100.md). What still limits the
 * speed-up is a border that much of the flow must cross, whose merge runs
 * on one thread.
 *
 * Threads never touch each other's data: a region reads and writes only its
 * own rows' nodes and arcs. The one exception would be reading a
 * neighbour's tag across the border; every such read is guarded by a
 * residual test first, and the residuals across a held border are zero
 * (every strip is started before any runs) and written by nobody until the
 * merge, which takes both sides only once both are done (the scheduler's
 * lock orders it after their last writes). (ThreadSanitizer agrees on
 * gcut-check's grids.)
 */
#include "cpu/bk_grid_parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/bk_grid_core.h"
#include "core/big_alloc.h"
#include "core/parallel.h"

/* Steps between looks at the stop flag, and between progress reports. */
#define STOP_POLL_MASK 0xffff
#define PROGRESS_MASK 0xfffff

struct pbk_shared;

/* One region: pixel rows [y0, y1), nodes [bk.lo, bk.hi) of the padded
 * raster (the first region also owns the top padding row, the last the
 * bottom one), and its BK state. */
typedef struct strip {
    bk_core bk;
    struct pbk_shared *sh;
    int y0, y1;
    int reports; /* runs on the calling thread: may call the progress callback */
} strip;

/* A merge of the fixed tree: region `left` (strips [left, right)) with
 * region `right` (strips [right, end)). */
typedef struct planned_merge {
    int left, right, end;
} planned_merge;

enum { PENDING, RUNNING, DONE };

typedef struct pbk_shared {
    gcut_grid *g;
    bk_node *node;
    uint8_t *tag;
    int32_t *orphan;
    atomic_int stop;
    int threads, strips;
    strip *region; /* region[k]: the region whose first strip is k */
    /* The scheduler; everything below is read and written under lock. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int *end;       /* region k covers strips [k, end[k]) */
    uint8_t *state; /* of region k */
    planned_merge *plan;
    int planned;
    int next_strip, strips_done, merges_done, completed, finished;
    gcut_status status;
    double strips_done_ms, strip_work_ms, merge_work_ms, last_merge_ms;
    int64_t flow[GCUT__MAX_THREADS];
} pbk_shared;

/* ---- BK on one region (src/cpu/bk_grid_core.h) ------------------------- */

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

static gcut_status run_region(strip *s)
{
    s->bk.owner = s;
    return s->sh->g->ndirs == 4 ? run4(&s->bk) : run8(&s->bk);
}

/* ---- regions: start, merge ---------------------------------------------- */

static void region_bounds(strip *s, const gcut_grid *g, int y0, int y1)
{
    s->y0 = y0;
    s->y1 = y1;
    s->bk.lo = y0 == 0 ? 0 : (int32_t)(y0 + 1) * g->pitch;
    s->bk.hi = y1 == g->height ? g->n_padded : (int32_t)(y1 + 1) * g->pitch;
    bk_ring_start(&s->bk.orphans, s->sh->orphan + s->bk.lo, s->bk.hi - s->bk.lo);
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

/* Join region b (below) to region a, in a: the border's arcs get their
 * capacity back and the tree nodes of the two border rows wake up (their
 * new arcs may lead out of their tree). The trees, residuals and terminal
 * residuals stay. */
static void merge_into(strip *a, const strip *b)
{
    const gcut_grid *g = a->sh->g;
    /* Every distance stale: a time later than both regions'. */
    int32_t time = a->bk.time > b->bk.time ? a->bk.time : b->bk.time;
    region_bounds(a, g, a->y0, b->y1);
    a->bk.time = time;
    bk_advance_time(&a->bk);
    a->bk.steps += b->bk.steps;
    a->bk.augmentations += b->bk.augmentations;
    int yb = b->y0;
    set_crossing(g, a->bk.res, yb - 1, 1, 0);
    set_crossing(g, a->bk.res, yb, -1, 0);
    for (int y = yb - 1; y <= yb; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++)
            if (a->bk.tag[row + x] & PARENT_MASK)
                bk_set_active(&a->bk, row + x);
    }
}

/* ---- the scheduler ------------------------------------------------------ */

/* The fixed binary tree of merges (regions 2k and 2k + 1 of each round;
 * an odd last one waits for the next round as it is), in round order:
 * balanced, so the regions merged late are as small as they can be. */
static void plan_tree(pbk_shared *sh, int *first, int *last)
{
    int count = sh->strips;
    for (int k = 0; k < count; k++) {
        first[k] = k;
        last[k] = k + 1;
    }
    sh->planned = 0;
    while (count > 1) {
        int merges = count / 2;
        for (int m = 0; m < merges; m++) {
            planned_merge *p = &sh->plan[sh->planned++];
            p->left = first[2 * m];
            p->right = first[2 * m + 1];
            p->end = last[2 * m + 1];
            first[m] = p->left;
            last[m] = p->end;
        }
        if (count & 1) {
            first[merges] = first[count - 1];
            last[merges] = last[count - 1];
        }
        count = merges + (count & 1);
    }
}

/* A free thread's next task: a strip not yet run (every strip first: they
 * are most of the work and independent), else a planned merge whose two
 * regions are done. Returns the first strip of the region to run and sets
 * *right to the region merged into it (-1: none); -1 when nothing is
 * ready. */
static int take_task(pbk_shared *sh, int *right)
{
    *right = -1;
    if (sh->next_strip < sh->strips) {
        sh->state[sh->next_strip] = RUNNING;
        return sh->next_strip++;
    }
    int left = -1;
    for (int m = 0; m < sh->planned; m++) {
        const planned_merge *p = &sh->plan[m];
        if (sh->state[p->left] == DONE && sh->end[p->left] == p->right &&
            sh->state[p->right] == DONE && sh->end[p->right] == p->end) {
            left = p->left;
            break;
        }
    }
    if (left >= 0) {
        *right = sh->end[left];
        sh->state[left] = sh->state[*right] = RUNNING;
    }
    return left;
}

static void task_done(pbk_shared *sh, int k, int right, gcut_status st, double ms)
{
    if (right >= 0) {
        sh->end[k] = sh->end[right];
        sh->merges_done++;
        sh->merge_work_ms += ms;
        sh->last_merge_ms = ms;
    } else {
        sh->strip_work_ms += ms;
        if (++sh->strips_done == sh->strips)
            sh->strips_done_ms = gcut__now_ms();
    }
    sh->state[k] = DONE;
    if (st && !sh->status) {
        sh->status = st;
        atomic_store(&sh->stop, 1);
    }
    /* Strips and merges: 2 * strips - 1 tasks in all. */
    if (++sh->completed == 2 * sh->strips - 1 || sh->status)
        sh->finished = 1;
    pthread_cond_broadcast(&sh->wake);
}

/* Each thread takes tasks until the whole grid is one done region (or a
 * stop was asked). */
static void work(void *arg, int64_t begin, int64_t end, int part)
{
    pbk_shared *sh = arg;
    (void)begin, (void)end;
    pthread_mutex_lock(&sh->lock);
    while (!sh->finished) {
        int right, k = take_task(sh, &right);
        if (k < 0) {
            pthread_cond_wait(&sh->wake, &sh->lock);
            continue;
        }
        pthread_mutex_unlock(&sh->lock);
        double t0 = gcut__now_ms();
        strip *s = &sh->region[k];
        if (right >= 0)
            merge_into(s, &sh->region[right]);
        s->reports = part == 0;
        gcut_status st = run_region(s);
        double ms = gcut__now_ms() - t0;
        pthread_mutex_lock(&sh->lock);
        task_done(sh, k, right, st, ms);
    }
    pthread_mutex_unlock(&sh->lock);
}

/* ---- the solve ------------------------------------------------------------ */

/* Every strip starts before any runs: a running strip reads the held
 * residuals of its neighbours' border rows, which must be zero by then. */
static void start_strips(void *arg, int64_t begin, int64_t end, int part)
{
    pbk_shared *sh = arg;
    (void)part;
    for (int64_t k = begin; k < end; k++)
        start_strip(&sh->region[k]);
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
    gcut__grid_forget_warm(g); /* its trees will not match these residuals */

    size_t n = (size_t)g->n_padded, p = (size_t)strips;
    pbk_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.g = g;
    sh.threads = threads;
    sh.strips = strips;
    atomic_init(&sh.stop, 0);
    sh.node = gcut__big_alloc(n * sizeof *sh.node);
    sh.tag = gcut__big_alloc(n);
    sh.orphan = gcut__big_alloc(n * sizeof *sh.orphan);
    sh.region = calloc(p, sizeof *sh.region);
    sh.end = calloc(p, sizeof *sh.end);
    sh.state = calloc(p, 1);
    sh.plan = calloc(p, sizeof *sh.plan);
    int *scratch = calloc(2 * p, sizeof *scratch);
    gcut_status st = GCUT_OK;
    if (!sh.node || !sh.tag || !sh.orphan || !sh.region || !sh.end || !sh.state || !sh.plan ||
        !scratch) {
        st = gcut__fail(g->ctx, GCUT_E_NOMEM, "pbk: out of memory for %dx%d pixels", g->width,
                        g->height);
        goto done;
    }
    /* Starting and finishing stream over the arrays: threads there only
     * for large grids (gcut__thread_count's rule for such loops). */
    int stream_parts = gcut__thread_count(0, (int64_t)g->width * g->height);
    if (stream_parts > threads)
        stream_parts = threads;
    double t0 = gcut__now_ms();
    for (int k = 0; k < strips; k++) {
        strip *s = &sh.region[k];
        s->sh = &sh;
        s->bk.node = sh.node;
        s->bk.tag = sh.tag;
        for (int d = 0; d < GCUT__MAX_DIRS; d++) {
            s->bk.off[d] = g->offset[d];
            s->bk.res[d] = d < g->ndirs ? g->res[d] : NULL;
        }
        region_bounds(s, g, (int)((int64_t)g->height * k / strips),
                      (int)((int64_t)g->height * (k + 1) / strips));
        sh.end[k] = k + 1;
        sh.state[k] = PENDING;
    }
    plan_tree(&sh, scratch, scratch + p);
    gcut__parallel_for(stream_parts < strips ? stream_parts : strips, strips, start_strips, &sh);
    double t1 = gcut__now_ms();
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.wake, NULL);
    int workers = threads < strips ? threads : strips;
    gcut__parallel_for(workers, workers, work, &sh);
    pthread_cond_destroy(&sh.wake);
    pthread_mutex_destroy(&sh.lock);
    if (times) {
        memset(times, 0, sizeof *times);
        times->start_ms = t1 - t0;
        times->strips_ms = sh.strips_done_ms - t1;
        times->merges_ms = gcut__now_ms() - sh.strips_done_ms;
        times->strip_work_ms = sh.strip_work_ms;
        times->merge_work_ms = sh.merge_work_ms;
        times->last_merge_ms = sh.last_merge_ms;
        times->merges = sh.merges_done;
    }
    if (sh.status) {
        st = gcut__fail(g->ctx, GCUT_E_INTERRUPTED, "grid: the solve was stopped by the caller");
        goto done;
    }
    int parts = stream_parts < g->height ? stream_parts : g->height;
    gcut__parallel_for(parts, g->height, finish, &sh);
    g->flow = 0;
    for (int q = 0; q < parts; q++)
        g->flow += sh.flow[q];
    *iterations = sh.region[0].bk.augmentations;
done:
    free(sh.node);
    free(sh.tag);
    free(sh.orphan);
    free(sh.region);
    free(sh.end);
    free(sh.state);
    free(sh.plan);
    free(scratch);
    return st;
}

gcut_status gcut__pbk_grid_solve(gcut_grid *g, int64_t *iterations)
{
    int threads = gcut__pbk_grid_threads(g);
    int strips = threads > 1 ? gcut__pbk_grid_strips(g, threads) : 1;
    return gcut__pbk_grid_run(g, threads, strips, iterations, NULL);
}
