/* "pbk": an exact maximum flow on the grid on several CPU threads.
 *
 * J. Liu, J. Sun, "Parallel Graph-cuts by Adaptive Bottom-up Merging",
 * CVPR 2010. The grid is cut into P row strips. Each strip runs
 * Boykov–Kolmogorov (the algorithm of src/cpu/bk_grid.c) on its own thread
 * with the arcs that cross a strip border held at zero residual: every
 * strip's flow is a flow of the whole graph, and so is their union. Then
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

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "io/big_alloc.h"
#include "vision/parallel.h"

#if defined(__GNUC__)
#define PBK_INLINE static inline __attribute__((always_inline))
#define PBK_NOINLINE static __attribute__((noinline))
#else
#define PBK_INLINE static inline
#define PBK_NOINLINE static
#endif

/* Tags as in bk_grid.c: the parent code in the low four bits (0 free,
 * 1..8 the direction to the parent + 1, terminal, orphan) and the tree. */
enum { PARENT_FREE = 0, PARENT_TERMINAL = 9, PARENT_ORPHAN = 10 };
#define PARENT_MASK 15
#define SINK_TREE 16

/* Steps between looks at the stop flag, and between progress reports. */
#define STOP_POLL_MASK 0xffff
#define PROGRESS_MASK 0xfffff

typedef struct pbk_node {
    int32_t next; /* next in the strip's active queue; 0 = not queued, itself = last */
    int32_t ts;   /* time stamp at which dist was known to be right */
    int32_t dist; /* distance to the terminal along the tree */
    int32_t tr;   /* terminal residual: > 0 from the source, < 0 to the sink */
} pbk_node;

struct pbk_shared;

/* One strip: pixel rows [y0, y1), nodes [lo, hi) of the padded raster (the
 * first strip also owns the top padding row, the last the bottom one). */
typedef struct strip {
    struct pbk_shared *sh;
    pbk_node *node;
    uint8_t *tag;
    int32_t *res[GCUT__MAX_DIRS];
    int32_t off[GCUT__MAX_DIRS];
    int y0, y1;
    int32_t lo, hi;
    int32_t queue_first, queue_last;
    int32_t *orphan; /* a ring over this strip's slice of the orphan array */
    int32_t orphan_size, orphan_head, orphan_count;
    int32_t time;
    int reports; /* runs on the calling thread: may call the progress callback */
    int64_t steps, augmentations;
    gcut_status status;
} strip;

typedef struct pbk_shared {
    gcut_grid *g;
    pbk_node *node;
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

/* ---- BK on one strip -------------------------------------------------- */

PBK_INLINE void set_active(strip *s, int32_t i)
{
    pbk_node *n = &s->node[i];
    if (n->next)
        return;
    if (s->queue_last)
        s->node[s->queue_last].next = i;
    else
        s->queue_first = i;
    s->queue_last = i;
    n->next = i;
}

/* The next active node still in a tree, or 0. */
PBK_INLINE int32_t next_active(strip *s)
{
    for (;;) {
        int32_t i = s->queue_first;
        if (!i)
            return 0;
        pbk_node *n = &s->node[i];
        s->queue_first = n->next == i ? 0 : n->next;
        if (!s->queue_first)
            s->queue_last = 0;
        n->next = 0;
        if (s->tag[i] & PARENT_MASK)
            return i;
    }
}

/* A node is in the ring at most once (its tag says orphan until it is
 * popped), so a ring of the strip's node count never overflows. */
PBK_INLINE void make_orphan(strip *s, int32_t i)
{
    s->tag[i] = (uint8_t)((s->tag[i] & SINK_TREE) | PARENT_ORPHAN);
    int32_t slot = s->orphan_head + s->orphan_count;
    if (slot >= s->orphan_size)
        slot -= s->orphan_size;
    s->orphan[slot] = i;
    s->orphan_count++;
}

PBK_INLINE int32_t pop_orphan(strip *s)
{
    int32_t i = s->orphan[s->orphan_head];
    if (++s->orphan_head == s->orphan_size)
        s->orphan_head = 0;
    s->orphan_count--;
    return i;
}

/* Send the bottleneck along source -> ... -> from -(d)-> to -> ... -> sink;
 * nodes whose arc toward their root saturates become orphans. */
PBK_INLINE void augment(strip *s, int32_t from, int32_t to, int d)
{
    pbk_node *node = s->node;
    const uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;

    int32_t b = res[d][from];
    int32_t i = from;
    for (int p; (p = tag[i] & PARENT_MASK) != PARENT_TERMINAL; i += off[p - 1]) {
        int32_t r = res[(p - 1) ^ 1][i + off[p - 1]];
        b = r < b ? r : b;
    }
    b = node[i].tr < b ? node[i].tr : b;
    i = to;
    for (int p; (p = tag[i] & PARENT_MASK) != PARENT_TERMINAL; i += off[p - 1]) {
        int32_t r = res[p - 1][i];
        b = r < b ? r : b;
    }
    b = -node[i].tr < b ? -node[i].tr : b;

    res[d][from] -= b;
    res[d ^ 1][to] += b;
    for (i = from;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            if ((node[i].tr -= b) == 0)
                make_orphan(s, i);
            break;
        }
        int pd = p - 1;
        int32_t j = i + off[pd];
        res[pd][i] += b;
        if ((res[pd ^ 1][j] -= b) == 0)
            make_orphan(s, i);
        i = j;
    }
    for (i = to;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            if ((node[i].tr += b) == 0)
                make_orphan(s, i);
            break;
        }
        int pd = p - 1;
        int32_t j = i + off[pd];
        res[pd ^ 1][j] += b;
        if ((res[pd][i] -= b) == 0)
            make_orphan(s, i);
        i = j;
    }
    s->augmentations++;
}

/* Distance from j to its terminal, or INT_MAX through an orphan; stamps
 * the nodes on the way. */
PBK_INLINE int32_t origin_distance(strip *s, int32_t j)
{
    pbk_node *node = s->node;
    const uint8_t *tag = s->tag;
    const int32_t *off = s->off;
    int32_t dist = 0;
    for (int32_t k = j;;) {
        pbk_node *nk = &node[k];
        if (nk->ts == s->time) {
            dist += nk->dist;
            break;
        }
        int p = tag[k] & PARENT_MASK;
        dist++;
        if (p == PARENT_TERMINAL) {
            nk->ts = s->time;
            nk->dist = 1;
            break;
        }
        if (p == PARENT_ORPHAN)
            return INT_MAX;
        k += off[p - 1];
    }
    int32_t d = dist;
    for (int32_t k = j; node[k].ts != s->time; k += off[(tag[k] & PARENT_MASK) - 1]) {
        node[k].ts = s->time;
        node[k].dist = d--;
    }
    return dist;
}

/* Orphan i takes the closest valid parent of its tree, or else becomes
 * free, waking its tree neighbours and orphaning its children. A neighbour
 * is looked at only across an arc with residual one way or the other: a
 * child's tree arc always has some, and across a held border there is
 * none (so no tag of another strip is read). */
PBK_INLINE void adopt(strip *s, int32_t i, const int ndirs)
{
    pbk_node *node = s->node;
    uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;
    const int tree = tag[i] & SINK_TREE;

    int best = -1;
    int32_t best_dist = INT_MAX;
    for (int d = 0; d < ndirs; d++) {
        int32_t j = i + off[d];
        int32_t r = tree ? res[d][i] : res[d ^ 1][j]; /* the arc a parent must give */
        if (r <= 0)
            continue;
        int tj = tag[j];
        if ((tj & PARENT_MASK) != PARENT_FREE && (tj & SINK_TREE) == tree) {
            int32_t dist = origin_distance(s, j);
            if (dist < best_dist) {
                best_dist = dist;
                best = d;
            }
        }
    }
    if (best >= 0) {
        tag[i] = (uint8_t)(tree | (best + 1));
        node[i].ts = s->time;
        node[i].dist = best_dist + 1;
        return;
    }
    for (int d = 0; d < ndirs; d++) {
        int32_t j = i + off[d];
        int32_t toward = tree ? res[d][i] : res[d ^ 1][j];
        int32_t away = tree ? res[d ^ 1][j] : res[d][i];
        if (toward <= 0 && away <= 0)
            continue;
        int tj = tag[j];
        int p = tj & PARENT_MASK;
        if (p == PARENT_FREE || (tj & SINK_TREE) != tree)
            continue;
        if (toward > 0)
            set_active(s, j);
        if (p != PARENT_TERMINAL && p != PARENT_ORPHAN && j + off[p - 1] == i)
            make_orphan(s, j);
    }
    tag[i] = PARENT_FREE;
}

/* Time stamps are int32: before they wrap, start them again (only this
 * strip's nodes: the others belong to other threads). */
PBK_INLINE void advance_time(strip *s)
{
    if (s->time < INT32_MAX - 1) {
        s->time++;
        return;
    }
    for (int32_t i = s->lo; i < s->hi; i++)
        s->node[i].ts = 0;
    s->time = 1;
}

/* Every few thousand steps: the calling thread reports progress (and may
 * be asked to stop); every thread looks whether a stop was asked. */
PBK_NOINLINE int should_stop(strip *s)
{
    if (s->reports && (s->steps & PROGRESS_MASK) == 0 && gcut__progress(s->sh->g->ctx, "cut", -1.0))
        atomic_store(&s->sh->stop, 1);
    return atomic_load_explicit(&s->sh->stop, memory_order_relaxed);
}

/* BK's growth, augmentation and adoption until no active node is left. */
PBK_INLINE gcut_status run(strip *s, const int ndirs)
{
    pbk_node *node = s->node;
    uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;
    int32_t current = 0;

    for (;;) {
        int32_t i = current;
        if (i) {
            node[i].next = 0;
            if ((tag[i] & PARENT_MASK) == PARENT_FREE)
                i = 0;
        }
        if (!i && !(i = next_active(s)))
            break;
        if ((++s->steps & STOP_POLL_MASK) == 0 && should_stop(s))
            return GCUT_E_STATE;

        pbk_node *ni = &node[i];
        int32_t from = 0, to = 0;
        int dir = -1;
        if (!(tag[i] & SINK_TREE)) {
            for (int d = 0; d < ndirs; d++) {
                if (res[d][i] <= 0)
                    continue;
                int32_t j = i + off[d];
                int tj = tag[j];
                if ((tj & PARENT_MASK) == PARENT_FREE) {
                    tag[j] = (uint8_t)((d ^ 1) + 1);
                    node[j].ts = ni->ts;
                    node[j].dist = ni->dist + 1;
                    set_active(s, j);
                } else if (tj & SINK_TREE) {
                    from = i, to = j, dir = d;
                    break;
                }
            }
        } else {
            for (int d = 0; d < ndirs; d++) {
                int32_t j = i + off[d];
                if (res[d ^ 1][j] <= 0)
                    continue;
                int tj = tag[j];
                if ((tj & PARENT_MASK) == PARENT_FREE) {
                    tag[j] = (uint8_t)(SINK_TREE | ((d ^ 1) + 1));
                    node[j].ts = ni->ts;
                    node[j].dist = ni->dist + 1;
                    set_active(s, j);
                } else if (!(tj & SINK_TREE)) {
                    from = j, to = i, dir = d ^ 1;
                    break;
                }
            }
        }
        advance_time(s);
        if (dir < 0) {
            current = 0;
            continue;
        }
        /* i stays current (marked queued): its other arcs may still reach
         * the other tree. */
        ni->next = i;
        current = i;
        augment(s, from, to, dir);
        while (s->orphan_count)
            adopt(s, pop_orphan(s), ndirs);
    }
    return GCUT_OK;
}

PBK_NOINLINE gcut_status run4(strip *s)
{
    return run(s, 4);
}
PBK_NOINLINE gcut_status run8(strip *s)
{
    return run(s, 8);
}

static gcut_status run_strip(strip *s)
{
    return s->sh->g->ndirs == 4 ? run4(s) : run8(s);
}

/* ---- strips: start, border, merge -------------------------------------- */

static void strip_bounds(strip *s, const gcut_grid *g, int y0, int y1)
{
    s->y0 = y0;
    s->y1 = y1;
    s->lo = y0 == 0 ? 0 : (int32_t)(y0 + 1) * g->pitch;
    s->hi = y1 == g->height ? g->n_padded : (int32_t)(y1 + 1) * g->pitch;
    s->orphan = s->sh->orphan + s->lo;
    s->orphan_size = s->hi - s->lo;
    s->orphan_head = s->orphan_count = 0;
    s->queue_first = s->queue_last = 0;
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
    size_t n = (size_t)(s->hi - s->lo);
    for (int d = 0; d < g->ndirs; d++)
        memcpy(s->res[d] + s->lo, g->cap[d] + s->lo, n * sizeof(int32_t));
    if (s->y0 > 0)
        set_crossing(g, s->res, s->y0, -1, 1);
    if (s->y1 < g->height)
        set_crossing(g, s->res, s->y1 - 1, 1, 1);
    memset(s->tag + s->lo, 0, n);
    memset(s->node + s->lo, 0, n * sizeof *s->node);
    s->time = 0;
    for (int y = s->y0; y < s->y1; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            int32_t i = row + x;
            int32_t tr = g->source_cap[i] - g->sink_cap[i];
            s->node[i].dist = 1;
            s->node[i].tr = tr;
            if (tr != 0) {
                s->tag[i] = (uint8_t)((tr < 0 ? SINK_TREE : 0) | PARENT_TERMINAL);
                set_active(s, i);
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
    out->time = (a->time > b->time ? a->time : b->time) + 1; /* every distance stale */
    if (out->time >= INT32_MAX - 1) {
        for (int32_t i = out->lo; i < out->hi; i++)
            out->node[i].ts = 0;
        out->time = 1;
    }
    out->steps = a->steps + b->steps;
    out->augmentations = a->augmentations + b->augmentations;
    out->status = GCUT_OK;
    int yb = b->y0;
    set_crossing(g, out->res, yb - 1, 1, 0);
    set_crossing(g, out->res, yb, -1, 0);
    for (int y = yb - 1; y <= yb; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++)
            if (out->tag[row + x] & PARENT_MASK)
                set_active(out, row + x);
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
    int requested = g->ctx ? g->ctx->options.threads : 0;
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
        s->node = sh.node;
        s->tag = sh.tag;
        for (int d = 0; d < GCUT__MAX_DIRS; d++) {
            s->off[d] = g->offset[d];
            s->res[d] = d < g->ndirs ? g->res[d] : NULL;
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
    *iterations = sh.strips[0].augmentations;
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
