/* Boykov–Kolmogorov max-flow on the grid layout.
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
 * residual, so no step needs a bounds check.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"

#if defined(__GNUC__)
#define BK_INLINE static inline __attribute__((always_inline))
#define BK_NOINLINE static __attribute__((noinline))
#else
#define BK_INLINE static inline
#define BK_NOINLINE static
#endif

/* parent: 0 = free node, 1..8 = (direction to the parent) + 1. */
enum { PARENT_FREE = 0, PARENT_TERMINAL = 9, PARENT_ORPHAN = 10 };

/* A node's tag byte: the parent code in the low four bits, and the tree
 * (SINK_TREE set for T) when the node is not free. Tags live in their own
 * byte array: growth and adoption test many neighbours' tags but touch few
 * neighbours' other fields, so the dense array keeps the hot loop in cache. */
#define PARENT_MASK 15
#define SINK_TREE 16

typedef struct bk_node {
    int32_t next; /* next in the active queue; 0 = not queued, itself = last */
    int32_t ts;   /* time stamp at which dist was known to be right */
    int32_t dist; /* distance to the terminal along the tree */
    int32_t tr;   /* terminal residual: > 0 from the source, < 0 to the sink */
} bk_node;

typedef struct bk_state {
    bk_node *node;
    uint8_t *tag;
    int32_t *res[GCUT__MAX_DIRS];
    int32_t off[GCUT__MAX_DIRS];
    int32_t queue_first, queue_last; /* the active nodes, FIFO */
    int32_t *orphan;                 /* ring buffer of orphans, FIFO */
    int32_t orphan_head, orphan_count, orphan_size;
    int32_t time;
    int64_t flow;
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
    s->flow += b;
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

        /* Growth: claim free neighbours; stop at an arc into the other tree. */
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
                } else if (node[j].ts <= ni->ts && node[j].dist > ni->dist) {
                    tag[j] = (uint8_t)((d ^ 1) + 1);
                    node[j].ts = ni->ts;
                    node[j].dist = ni->dist + 1;
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
                } else if (node[j].ts <= ni->ts && node[j].dist > ni->dist) {
                    tag[j] = (uint8_t)(SINK_TREE | ((d ^ 1) + 1));
                    node[j].ts = ni->ts;
                    node[j].dist = ni->dist + 1;
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

gcut_status gcut__bk_grid_solve(gcut_grid *g, int64_t *iterations)
{
    bk_state s;
    memset(&s, 0, sizeof s);
    s.node = calloc((size_t)g->n_padded, sizeof *s.node);
    s.tag = calloc((size_t)g->n_padded, 1);
    s.orphan = malloc((size_t)g->n_padded * sizeof *s.orphan);
    if (!s.node || !s.tag || !s.orphan) {
        free(s.node);
        free(s.tag);
        free(s.orphan);
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "bk: out of memory for %dx%d pixels", g->width,
                          g->height);
    }
    s.orphan_size = g->n_padded;
    for (int d = 0; d < g->ndirs; d++) {
        s.res[d] = g->res[d];
        s.off[d] = g->offset[d];
        memcpy(s.res[d], g->cap[d], (size_t)g->n_padded * sizeof(int32_t));
    }

    /* Terminals: cancel min(source, sink) into the flow (BK's add_tweights);
     * what remains seeds the two trees. */
    for (int y = 0; y < g->height; y++) {
        int32_t i = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++, i++) {
            int32_t src = g->source_cap[i], snk = g->sink_cap[i];
            s.flow += src < snk ? src : snk;
            bk_node *n = &s.node[i];
            n->tr = src - snk;
            if (n->tr != 0) {
                s.tag[i] = (uint8_t)((n->tr < 0 ? SINK_TREE : 0) | PARENT_TERMINAL);
                n->dist = 1;
                set_active(&s, i);
            }
        }
    }

    gcut_status st = g->ndirs == 4 ? run4(&s, g) : run8(&s, g);
    if (!st) {
        for (int32_t i = 0; i < g->n_padded; i++)
            g->label[i] = (s.tag[i] & PARENT_MASK) != PARENT_FREE && !(s.tag[i] & SINK_TREE);
        g->flow = s.flow;
        *iterations = s.augmentations;
    }
    free(s.node);
    free(s.tag);
    free(s.orphan);
    return st;
}
