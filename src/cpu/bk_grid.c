/* Boykov–Kolmogorov max-flow on the grid layout, with warm re-solves.
 *
 * Y. Boykov, V. Kolmogorov, "An Experimental Comparison of Min-Cut/Max-Flow
 * Algorithms for Energy Minimization in Vision", PAMI 26(9), 2004: two
 * search trees S (from the source) and T (to the sink) grow until they
 * touch (growth), flow is pushed along the path found (augmentation), and
 * nodes cut off from their tree look for a new parent or become free
 * (adoption). Distances with time stamps keep the trees shallow (section
 * 3.2.3's heuristics, as in BK's maxflow v3).
 *
 * Neighbours are implicit: a node's neighbour in direction d is at index
 * i + offset[d] of the padded raster, and the residual of that arc is
 * res[d][i]. A tree node stores the direction to its parent (one byte), not
 * a pointer. Border nodes are never in a tree and their arcs have zero
 * residual, so no step needs a bounds check. (A byte per node saying which
 * arcs have residual, kept in sync on every augmentation, was measured: it
 * made growth no faster and augmentation slower, so it is not used.)
 *
 * Re-solves (P. Kohli, P. Torr, "Dynamic Graph Cuts for Efficient Inference
 * in Markov Random Fields", PAMI 29(12), 2007): the trees, the residuals and
 * each node's terminal residual tr are kept after a solve. A capacity change
 * marks the pixels it touches (gcut__bk_grid_note_*); the next solve
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
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"
#include "io/big_alloc.h"

#if defined(__GNUC__)
#define BK_INLINE static inline __attribute__((always_inline))
#define BK_NOINLINE static __attribute__((noinline))
#else
#define BK_INLINE static inline
#define BK_NOINLINE static
#endif

/* parent: 0 = free node, 1..8 = (direction to the parent) + 1. */
enum { PARENT_FREE = 0, PARENT_TERMINAL = 9, PARENT_ORPHAN = 10 };

/* A node's tag byte: the parent code in the low four bits, the tree
 * (SINK_TREE set for T) when the node is not free, and DIRTY between a
 * capacity change and the next solve. Tags live in their own byte array:
 * growth tests many neighbours' tags but touches few neighbours' other
 * fields, so the dense array keeps the hot loop in cache. */
#define PARENT_MASK 15
#define SINK_TREE 16
#define DIRTY 32

typedef struct bk_node {
    int32_t next; /* next in the active queue; 0 = not queued, itself = last */
    int32_t ts;   /* time stamp at which dist was known to be right */
    int32_t dist; /* distance to the terminal along the tree */
    int32_t tr;   /* terminal residual: > 0 from the source, < 0 to the sink */
} bk_node;

/* What is kept between solves (grid.h's gcut_grid.bk). */
struct gcut__bk_grid {
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

typedef struct bk_state {
    bk_node *node;
    uint8_t *tag;
    int ndirs;
    int32_t *res[GCUT__MAX_DIRS];
    int32_t off[GCUT__MAX_DIRS];
    int32_t queue_first, queue_last; /* the active nodes, FIFO */
    int32_t *orphan;
    int32_t orphan_head, orphan_count, orphan_size;
    int32_t time;
    int64_t augmentations;
} bk_state;

BK_INLINE void set_active(bk_state *s, int32_t i)
{
    bk_node *n = &s->node[i];
    if (n->next)
        return;
    if (s->queue_last)
        s->node[s->queue_last].next = i;
    else
        s->queue_first = i;
    s->queue_last = i;
    n->next = i;
}

/* Pop active nodes until one still in a tree is found; 0 when none is left. */
BK_INLINE int32_t next_active(bk_state *s)
{
    for (;;) {
        int32_t i = s->queue_first;
        if (!i)
            return 0;
        bk_node *n = &s->node[i];
        if (n->next == i)
            s->queue_first = s->queue_last = 0;
        else
            s->queue_first = n->next;
        n->next = 0;
        if (s->tag[i] & PARENT_MASK)
            return i;
    }
}

BK_INLINE void make_orphan(bk_state *s, int32_t i)
{
    s->tag[i] = (uint8_t)((s->tag[i] & SINK_TREE) | PARENT_ORPHAN);
    int32_t slot = s->orphan_head + s->orphan_count;
    if (slot >= s->orphan_size)
        slot -= s->orphan_size;
    s->orphan[slot] = i;
    s->orphan_count++;
}

BK_INLINE int32_t pop_orphan(bk_state *s)
{
    int32_t i = s->orphan[s->orphan_head];
    if (++s->orphan_head == s->orphan_size)
        s->orphan_head = 0;
    s->orphan_count--;
    return i;
}

/* Push the bottleneck along source -> ... -> from -> to -> ... -> sink,
 * where the middle arc leaves `from` in direction d. Nodes whose arc to
 * their parent saturates become orphans. */
BK_INLINE void augment(bk_state *s, int32_t from, int32_t to, int d)
{
    bk_node *node = s->node;
    const uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;

    int32_t b = res[d][from];
    for (int32_t i = from;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            if (node[i].tr < b)
                b = node[i].tr;
            break;
        }
        int32_t j = i + off[p - 1];
        if (res[(p - 1) ^ 1][j] < b)
            b = res[(p - 1) ^ 1][j];
        i = j;
    }
    for (int32_t i = to;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            if (-node[i].tr < b)
                b = -node[i].tr;
            break;
        }
        if (res[p - 1][i] < b)
            b = res[p - 1][i];
        i += off[p - 1];
    }

    res[d][from] -= b;
    res[d ^ 1][to] += b;
    for (int32_t i = from;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            node[i].tr -= b;
            if (node[i].tr == 0)
                make_orphan(s, i);
            break;
        }
        int pd = p - 1;
        int32_t j = i + off[pd];
        res[pd][i] += b;
        res[pd ^ 1][j] -= b;
        if (res[pd ^ 1][j] == 0)
            make_orphan(s, i);
        i = j;
    }
    for (int32_t i = to;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            node[i].tr += b;
            if (node[i].tr == 0)
                make_orphan(s, i);
            break;
        }
        int pd = p - 1;
        int32_t j = i + off[pd];
        res[pd ^ 1][j] += b;
        res[pd][i] -= b;
        if (res[pd][i] == 0)
            make_orphan(s, i);
        i = j;
    }
    s->augmentations++;
}

/* Distance from j to its tree's terminal, or INT_MAX if the path meets an
 * orphan; marks the nodes on the way with the current time stamp. */
BK_INLINE int32_t origin_distance(bk_state *s, int32_t j)
{
    bk_node *node = s->node;
    const uint8_t *tag = s->tag;
    const int32_t *off = s->off;
    int32_t dist = 0;
    for (int32_t k = j;;) {
        bk_node *nk = &node[k];
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

/* Adoption of orphan i (section 3.2.3): the closest valid parent in its own
 * tree, or else i becomes free and its children orphans. */
BK_INLINE void adopt(bk_state *s, int32_t i, const int ndirs)
{
    bk_node *node = s->node;
    uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;
    const int tree = tag[i] & SINK_TREE;
    const int sink = tree != 0;

    int best = -1;
    int32_t best_dist = INT_MAX;
    for (int d = 0; d < ndirs; d++) {
        int32_t j = i + off[d];
        /* S tree: the arc j -> i must have residual; T tree: i -> j. */
        int32_t r = sink ? res[d][i] : res[d ^ 1][j];
        int tj = tag[j];
        if (r > 0 && (tj & PARENT_MASK) != PARENT_FREE && (tj & SINK_TREE) == tree) {
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
        int tj = tag[j];
        int p = tj & PARENT_MASK;
        if (p == PARENT_FREE || (tj & SINK_TREE) != tree)
            continue;
        if ((sink ? res[d][i] : res[d ^ 1][j]) > 0)
            set_active(s, j);
        if (p != PARENT_TERMINAL && p != PARENT_ORPHAN && j + off[p - 1] == i)
            make_orphan(s, j);
    }
    tag[i] = PARENT_FREE;
}

/* Time stamps are int32: before they could wrap, start them again. */
static void advance_time(bk_state *s, int32_t n)
{
    if (s->time < INT32_MAX - 1) {
        s->time++;
        return;
    }
    for (int32_t i = 0; i < n; i++)
        s->node[i].ts = 0;
    s->time = 1;
}

BK_INLINE gcut_status run(bk_state *s, gcut_grid *g, const int ndirs)
{
    bk_node *node = s->node;
    uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;
    int32_t current = 0;
    int64_t steps = 0;

    for (;;) {
        int32_t i = current;
        if (i) {
            node[i].next = 0;
            if ((tag[i] & PARENT_MASK) == PARENT_FREE)
                i = 0;
        }
        if (!i && !(i = next_active(s)))
            break;
        if ((++steps & 0xfffff) == 0 && gcut__progress(g->ctx, "cut", -1.0))
            return gcut__fail(g->ctx, GCUT_E_STATE, "grid: the solve was stopped by the caller");

        /* Growth: claim free neighbours; stop at an arc into the other tree.
         * (BK v3 also re-parents a same-tree neighbour that i would bring
         * closer to the terminal; reading every such neighbour's distance
         * cost more than the shallower trees saved: 0-11% slower on the
         * benchmark graphs, so only adoption uses distances.) */
        bk_node *ni = &node[i];
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
        advance_time(s, g->n_padded);

        if (dir < 0) {
            current = 0;
            continue;
        }
        /* Keep i as the current node (marked queued) and grow from it again
         * next time: its other arcs may still reach the other tree. */
        ni->next = i;
        current = i;
        augment(s, from, to, dir);
        while (s->orphan_count)
            adopt(s, pop_orphan(s), ndirs);
    }
    return GCUT_OK;
}

BK_NOINLINE gcut_status run4(bk_state *s, gcut_grid *g) { return run(s, g, 4); }
BK_NOINLINE gcut_status run8(bk_state *s, gcut_grid *g) { return run(s, g, 8); }

/* ---- state kept between solves ---------------------------------------- */

void gcut__bk_grid_free(gcut_grid *g)
{
    struct gcut__bk_grid *bk = g ? g->bk : NULL;
    if (!bk)
        return;
    free(bk->node);
    free(bk->tag);
    free(bk->queue);
    free(bk->dirty);
    free(bk->seen);
    free(bk);
    g->bk = NULL;
}

void gcut__bk_grid_forget(gcut_grid *g)
{
    struct gcut__bk_grid *bk = g ? g->bk : NULL;
    if (!bk)
        return;
    for (int32_t k = 0; k < bk->dirty_count; k++)
        bk->tag[bk->dirty[k]] &= (uint8_t)~DIRTY;
    bk->dirty_count = 0;
    bk->warm = 0;
}

gcut_status gcut__bk_grid_prepare(gcut_grid *g)
{
    if (g->bk)
        return GCUT_OK;
    size_t n = (size_t)g->n_padded;
    struct gcut__bk_grid *bk = calloc(1, sizeof *bk);
    if (bk) {
        bk->node = gcut__big_alloc(n * sizeof *bk->node);
        bk->tag = gcut__big_alloc(n);
        bk->queue = gcut__big_alloc(n * sizeof *bk->queue);
        bk->dirty = gcut__big_alloc(n * sizeof *bk->dirty);
    }
    g->bk = bk;
    if (!bk || !bk->node || !bk->tag || !bk->queue || !bk->dirty) {
        gcut__bk_grid_free(g);
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

void gcut__bk_grid_note_terminal(gcut_grid *g, int32_t i)
{
    if (g->bk && g->bk->warm)
        mark_dirty(g->bk, i);
}

void gcut__bk_grid_note_edge(gcut_grid *g, int32_t i, int d, int32_t cap)
{
    struct gcut__bk_grid *bk = g->bk;
    if (!bk || !bk->warm)
        return;
    int32_t j = i + g->offset[d];
    int64_t back = g->cap[d ^ 1][j];
    if ((int64_t)cap + back > INT32_MAX) {
        /* The solve will refuse this graph; the next one starts afresh. */
        gcut__bk_grid_forget(g);
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
static void start_cold(bk_state *s, gcut_grid *g)
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
                set_active(s, i);
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
static int repair(bk_state *s, gcut_grid *g, struct gcut__bk_grid *bk, int32_t i, int64_t deficit,
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
            for (int d = 0; d < s->ndirs; d++) {
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
static void check_children(bk_state *s, int32_t i)
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
            make_orphan(s, j);
    }
}

/* The marked pixels: new tr, repairs, then their place in the trees. */
static int start_warm(bk_state *s, gcut_grid *g, struct gcut__bk_grid *bk)
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
    advance_time(s, g->n_padded);
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
            make_orphan(s, i);
        } else if (p != PARENT_FREE && p != PARENT_ORPHAN) {
            int pd = p - 1;
            int32_t parent_res = (ti & SINK_TREE) ? s->res[pd][i] : s->res[pd ^ 1][i + s->off[pd]];
            if (parent_res == 0)
                make_orphan(s, i);
        }
        if (tag[i] & PARENT_MASK)
            set_active(s, i);
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
                set_active(s, j);
        }
    }
    bk->dirty_count = 0;
    /* A marked node may have been orphaned and then made a root. */
    while (s->orphan_count) {
        int32_t i = pop_orphan(s);
        if ((tag[i] & PARENT_MASK) == PARENT_ORPHAN)
            adopt(s, i, ndirs);
    }
    return 1;
}

gcut_status gcut__bk_grid_solve(gcut_grid *g, int64_t *iterations)
{
    gcut_status st = gcut__bk_grid_prepare(g);
    if (st)
        return st;
    struct gcut__bk_grid *bk = g->bk;
    bk_state s;
    memset(&s, 0, sizeof s);
    s.node = bk->node;
    s.tag = bk->tag;
    s.ndirs = g->ndirs;
    s.orphan = bk->queue;
    s.orphan_size = g->n_padded;
    for (int d = 0; d < GCUT__MAX_DIRS; d++)
        s.off[d] = g->offset[d];
    for (int d = 0; d < g->ndirs; d++)
        s.res[d] = g->res[d];
    if (!bk->warm || !start_warm(&s, g, bk)) {
        gcut__bk_grid_forget(g);
        s.orphan_head = s.orphan_count = 0;
        s.queue_first = s.queue_last = 0;
        start_cold(&s, g);
    }
    bk->warm = 0;
    st = g->ndirs == 4 ? run4(&s, g) : run8(&s, g);
    bk->time = s.time;
    if (st)
        return st;

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
