/* Boykov–Kolmogorov max-flow on the grid layout, with warm re-solves.
 *
 * The algorithm itself (growth, augmentation, adoption on the padded
 * raster) is src/cpu/bk_grid_core.h, shared with the parallel solver; this
 * file runs it on the whole grid and keeps its state between solves. (A
 * byte per node saying which arcs have residual, kept in sync on every
 * augmentation, was measured: it made growth no faster and augmentation
 * slower, so it is not used.)
 *
 * Re-solves (P. Kohli, P. Torr, "Dynamic Graph Cuts for Efficient Inference
 * in Markov Random Fields", PAMI 29(12), 2007): the trees, the residuals and
 * each node's terminal residual tr are kept after a solve. A capacity change
 * marks the pixels it touches (the grid calls note_terminal and
 * note_edge, grid.h's gcut__grid_warm hooks); the next solve
 * recomputes tr = source - sink - (net n-link outflow) for them, which is
 * Kohli–Torr's reparametrisation: any tr is the residual of a flow in the
 * graph with a constant added to both terminal arcs of a pixel, which
 * changes every cut by the same amount. To keep the flow feasible in the
 * caller's own graph (what gcut_grid_verify() checks), a pixel that sends
 * out more than its source arc can supply (tr < -sink) gets flow sent back
 * to it from pixels with spare (repair). Then only the trees around the
 * marked pixels are fixed (orphans, new roots, active nodes) and BK goes on
 * from there.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/bk_grid_core.h"
#include "graph/grid.h"
#include "core/big_alloc.h"

/* In a tag byte, beside the core's bits: marked between a capacity change
 * and the next solve. */
#define DIRTY 32

/* What is kept between solves (grid.h's gcut_grid.warm points at hooks). */
struct gcut__bk_grid {
    gcut__grid_warm hooks; /* first: g->warm is its address */
    int warm; /* the trees, tr and the grid's res arrays belong together */
    bk_node *node;
    uint8_t *tag;
    int32_t *queue; /* orphans (FIFO ring), or the repair search's queue */
    int32_t *dirty; /* the pixels marked since the last solve */
    int32_t dirty_count;
    int32_t time;
    /* The repair search's marks, (stamp << 3) | direction, apart from
     * ts/dist: those steer growth and must stay consistent. */
    uint32_t *seen;
    uint32_t stamp;
};

/* Every 2^20 steps: report progress; the callback may ask to stop. */
static int poll_progress(bk_core *s)
{
    const gcut_grid *g = s->owner;
    return gcut__progress(g->ctx, "cut", -1.0);
}

BK_NOINLINE gcut_status run4(bk_core *s) { return bk_run(s, 4, 0, 0xfffff, poll_progress); }
BK_NOINLINE gcut_status run8(bk_core *s) { return bk_run(s, 8, 0, 0xfffff, poll_progress); }

/* ---- state kept between solves ---------------------------------------- */

static struct gcut__bk_grid *bk_of(const gcut_grid *g)
{
    return (struct gcut__bk_grid *)g->warm;
}

static void bk_release(gcut_grid *g)
{
    struct gcut__bk_grid *bk = bk_of(g);
    if (!bk)
        return;
    free(bk->node);
    free(bk->tag);
    free(bk->queue);
    free(bk->dirty);
    free(bk->seen);
    free(bk);
    g->warm = NULL;
}

static void bk_forget(gcut_grid *g)
{
    struct gcut__bk_grid *bk = bk_of(g);
    if (!bk)
        return;
    for (int32_t k = 0; k < bk->dirty_count; k++)
        bk->tag[bk->dirty[k]] &= (uint8_t)~DIRTY;
    bk->dirty_count = 0;
    bk->warm = 0;
}

static void bk_note_terminal(gcut_grid *g, int32_t i);
static void bk_note_edge(gcut_grid *g, int32_t i, int d, int32_t cap);

gcut_status gcut__bk_grid_prepare(gcut_grid *g)
{
    if (g->warm && g->warm->release == bk_release)
        return GCUT_OK;
    if (g->warm)
        g->warm->release(g); /* another solver's: not one BK can start from */
    size_t n = (size_t)g->n_padded;
    struct gcut__bk_grid *bk = calloc(1, sizeof *bk);
    if (bk) {
        bk->node = gcut__big_alloc(n * sizeof *bk->node);
        bk->tag = gcut__big_alloc(n);
        bk->queue = gcut__big_alloc(n * sizeof *bk->queue);
        bk->dirty = gcut__big_alloc(n * sizeof *bk->dirty);
    }
    if (bk) {
        bk->hooks = (gcut__grid_warm){bk_note_terminal, bk_note_edge, bk_forget, bk_release};
        g->warm = &bk->hooks;
    }
    if (!bk || !bk->node || !bk->tag || !bk->queue || !bk->dirty) {
        if (bk)
            bk_release(g);
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "bk: out of memory for %dx%d pixels", g->width,
                          g->height);
    }
    /* Zeroed here, outside the timed solve: fresh memory's page faults are
     * allocation, not solving (every later solve reuses these pages). */
    memset(bk->node, 0, n * sizeof *bk->node);
    memset(bk->tag, 0, n);
    memset(bk->queue, 0, n * sizeof *bk->queue);
    for (int d = 0; d < g->ndirs; d++)
        memset(g->res[d], 0, n * sizeof(int32_t));
    return GCUT_OK;
}

static void mark_dirty(struct gcut__bk_grid *bk, int32_t i)
{
    if (bk->tag[i] & DIRTY)
        return;
    bk->tag[i] |= DIRTY;
    bk->dirty[bk->dirty_count++] = i;
}

static void bk_note_terminal(gcut_grid *g, int32_t i)
{
    if (bk_of(g)->warm)
        mark_dirty(bk_of(g), i);
}

static void bk_note_edge(gcut_grid *g, int32_t i, int d, int32_t cap)
{
    struct gcut__bk_grid *bk = bk_of(g);
    if (!bk->warm)
        return;
    int32_t j = i + g->offset[d];
    int64_t back = g->cap[d ^ 1][j];
    if ((int64_t)cap + back > INT32_MAX) {
        /* The solve will refuse this graph; the next one starts afresh. */
        bk_forget(g);
        return;
    }
    /* Kohli–Torr: a flow above the new capacity is cut down to it; the
     * imbalance this leaves at i and j is settled by the next solve. */
    int64_t flow = (int64_t)g->cap[d][i] - g->res[d][i]; /* net i -> j */
    if (flow > cap)
        flow = cap;
    g->res[d][i] = (int32_t)(cap - flow);
    g->res[d ^ 1][j] = (int32_t)(back + flow);
    mark_dirty(bk, i);
    mark_dirty(bk, j);
}

/* ---- a cold start --------------------------------------------------------- */

/* Residuals = capacities; each pixel's min(source, sink) goes straight into
 * the flow (BK's add_tweights) and the rest seeds the two trees. */
static void start_cold(bk_core *s, gcut_grid *g)
{
    const int ndirs = g->ndirs;
    const size_t n = (size_t)g->n_padded;
    for (int d = 0; d < ndirs; d++)
        memcpy(s->res[d], g->cap[d], n * sizeof(int32_t));
    s->time = 0;
    for (int y = 0; y < g->height; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            int32_t i = row + x;
            int32_t tr = g->source_cap[i] - g->sink_cap[i];
            bk_node *nd = &s->node[i];
            nd->next = 0;
            nd->ts = 0;
            nd->dist = 1;
            nd->tr = tr;
            if (tr != 0) {
                s->tag[i] = (uint8_t)((tr < 0 ? SINK_TREE : 0) | PARENT_TERMINAL);
                bk_set_active(s, i);
            } else {
                s->tag[i] = PARENT_FREE;
            }
        }
    }
}

/* ---- a warm start ----------------------------------------------------------- */

/* Send `deficit` units back to pixel i, which sends out that much more than
 * it receives, from pixels with spare (tr > -sink), along residual paths
 * found breadth-first backwards from i. Such paths exist: the flow leaving
 * i reaches the sink somewhere, and reversing it is a residual path.
 * Returns 0 if none was found, or when the searches have together visited
 * more than `*budget` nodes (then a cold start is cheaper, and as exact). */
static int repair(bk_core *s, gcut_grid *g, struct gcut__bk_grid *bk, int32_t i, int64_t deficit,
                  int64_t *budget)
{
    const size_t n = (size_t)g->n_padded;
    if (!bk->seen && !(bk->seen = calloc(n, sizeof *bk->seen)))
        return 0;
    uint32_t *seen = bk->seen;
    bk_node *node = s->node;
    int32_t *queue = bk->queue;
    while (deficit > 0) {
        if (++bk->stamp >= (1u << 28)) {
            memset(seen, 0, n * sizeof *seen);
            bk->stamp = 1;
        }
        const uint32_t mark = bk->stamp << 3;
        int32_t head = 0, tail = 0, found = 0;
        seen[i] = mark;
        queue[tail++] = i;
        while (head < tail && !found) {
            int32_t k = queue[head++];
            for (int d = 0; d < g->ndirs; d++) {
                int32_t j = k + s->off[d];
                if (s->res[d ^ 1][j] <= 0 || (seen[j] & ~7u) == mark)
                    continue;
                seen[j] = mark | (uint32_t)(d ^ 1); /* j's arc toward i */
                if ((int64_t)node[j].tr + g->sink_cap[j] > 0) {
                    found = j;
                    break;
                }
                queue[tail++] = j;
            }
        }
        *budget -= tail;
        if (!found || *budget < 0)
            return 0;
        int64_t b = (int64_t)node[found].tr + g->sink_cap[found];
        if (deficit < b)
            b = deficit;
        for (int32_t k = found; k != i; k += s->off[seen[k] & 7])
            if (s->res[seen[k] & 7][k] < b)
                b = s->res[seen[k] & 7][k];
        for (int32_t k = found; k != i;) {
            int d = (int)(seen[k] & 7);
            int32_t j = k + s->off[d];
            s->res[d][k] -= (int32_t)b;
            s->res[d ^ 1][j] += (int32_t)b;
            mark_dirty(bk, k);
            k = j;
        }
        node[found].tr -= (int32_t)b;
        node[i].tr += (int32_t)b;
        deficit -= b;
    }
    return 1;
}

/* Orphan j (a child of i) unless its arc to i still has residual and i is
 * in j's tree. */
static void check_children(bk_core *s, int32_t i)
{
    uint8_t *tag = s->tag;
    int ti = tag[i];
    for (int d = 0; d < 8; d++) {
        int32_t j = i + s->off[d];
        int tj = tag[j];
        int p = tj & PARENT_MASK;
        if (p == PARENT_FREE || p == PARENT_TERMINAL || p == PARENT_ORPHAN || (p - 1) != (d ^ 1))
            continue;
        /* j's parent is i, in direction d ^ 1 from j. */
        int keep = (ti & PARENT_MASK) != PARENT_FREE && (ti & SINK_TREE) == (tj & SINK_TREE) &&
                   ((tj & SINK_TREE) ? s->res[d ^ 1][j] : s->res[d][i]) > 0;
        if (!keep)
            bk_make_orphan(s, j);
    }
}

/* The marked pixels: new tr, repairs, then their place in the trees. */
static int start_warm(bk_core *s, gcut_grid *g, struct gcut__bk_grid *bk)
{
    bk_node *node = s->node;
    uint8_t *tag = s->tag;
    const int ndirs = g->ndirs;
    const int32_t marked = bk->dirty_count;
    s->time = bk->time;
    for (int32_t k = 0; k < marked; k++) {
        int32_t i = bk->dirty[k];
        int64_t out = 0;
        for (int d = 0; d < ndirs; d++)
            out += (int64_t)g->cap[d][i] - s->res[d][i];
        node[i].tr = (int32_t)((int64_t)g->source_cap[i] - g->sink_cap[i] - out);
    }
    int64_t budget = 2 * (int64_t)g->n_padded;
    for (int32_t k = 0; k < marked; k++) {
        int32_t i = bk->dirty[k];
        int64_t deficit = -(int64_t)g->sink_cap[i] - node[i].tr;
        if (deficit > 0 && !repair(s, g, bk, i, deficit, &budget))
            return 0;
    }
    bk_advance_time(s);
    /* Trees: a pixel with tr != 0 is a root of its sign's tree; a root
     * left with tr = 0, or a node whose parent arc lost its residual, is an
     * orphan; children whose arc to a marked pixel broke are orphans. */
    for (int32_t k = 0; k < bk->dirty_count; k++) {
        int32_t i = bk->dirty[k];
        tag[i] &= (uint8_t)~DIRTY;
        int ti = tag[i], p = ti & PARENT_MASK;
        int32_t tr = node[i].tr;
        if (tr != 0) {
            tag[i] = (uint8_t)((tr < 0 ? SINK_TREE : 0) | PARENT_TERMINAL);
            node[i].ts = s->time;
            node[i].dist = 1;
        } else if (p == PARENT_TERMINAL) {
            bk_make_orphan(s, i);
        } else if (p != PARENT_FREE && p != PARENT_ORPHAN) {
            int pd = p - 1;
            int32_t parent_res = (ti & SINK_TREE) ? s->res[pd][i] : s->res[pd ^ 1][i + s->off[pd]];
            if (parent_res == 0)
                bk_make_orphan(s, i);
        }
        if (tag[i] & PARENT_MASK)
            bk_set_active(s, i);
    }
    /* BK's invariant: a passive S node has residual arcs only into S (and
     * T alike). Marked pixels may have left a tree: wake their neighbours
     * across residual arcs. */
    for (int32_t k = 0; k < bk->dirty_count; k++) {
        int32_t i = bk->dirty[k];
        check_children(s, i);
        for (int d = 0; d < ndirs; d++) {
            int32_t j = i + s->off[d];
            if ((tag[j] & PARENT_MASK) && (s->res[d][i] > 0 || s->res[d ^ 1][j] > 0))
                bk_set_active(s, j);
        }
    }
    bk->dirty_count = 0;
    /* A marked node may have been orphaned and then made a root. */
    while (s->orphans.count) {
        int32_t i = bk_ring_pop(&s->orphans);
        if ((tag[i] & PARENT_MASK) == PARENT_ORPHAN)
            bk_adopt(s, i, ndirs, 0);
    }
    return 1;
}

gcut_status gcut__bk_grid_solve(gcut_grid *g, int64_t *iterations)
{
    gcut_status st = gcut__bk_grid_prepare(g);
    if (st)
        return st;
    struct gcut__bk_grid *bk = bk_of(g);
    bk_core s;
    memset(&s, 0, sizeof s);
    s.node = bk->node;
    s.tag = bk->tag;
    s.owner = g;
    s.lo = 0;
    s.hi = g->n_padded;
    bk_ring_start(&s.orphans, bk->queue, g->n_padded);
    for (int d = 0; d < GCUT__MAX_DIRS; d++)
        s.off[d] = g->offset[d];
    for (int d = 0; d < g->ndirs; d++)
        s.res[d] = g->res[d];
    if (!bk->warm || !start_warm(&s, g, bk)) {
        bk_forget(g);
        bk_ring_start(&s.orphans, bk->queue, g->n_padded);
        s.queue_first = s.queue_last = 0;
        start_cold(&s, g);
    }
    bk->warm = 0;
    st = g->ndirs == 4 ? run4(&s) : run8(&s);
    bk->time = s.time;
    if (st)
        return gcut__fail(g->ctx, GCUT_E_INTERRUPTED, "grid: the solve was stopped by the caller");

    /* Flow = what the source arcs carry: sum of source - (source residual). */
    int64_t flow = 0;
    for (int y = 0; y < g->height; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            int32_t i = row + x;
            int32_t tr = s.node[i].tr;
            flow += (int64_t)g->source_cap[i] - (tr > 0 ? tr : 0);
            /* Source side = not in the sink tree: at the end the sink tree
             * is every pixel that can still reach the sink, so this is the
             * set the GPU solvers return too (the largest source side). */
            g->label[i] = (s.tag[i] & PARENT_MASK) == PARENT_FREE || !(s.tag[i] & SINK_TREE);
        }
    }
    g->flow = flow;
    *iterations = s.augmentations;
    bk->warm = 1;
    return GCUT_OK;
}
