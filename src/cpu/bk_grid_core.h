/* Boykov–Kolmogorov's machinery on the grid layout, shared by the
 * sequential solver (src/cpu/bk_grid.c: the whole grid, warm re-solves)
 * and the parallel one (src/cpu/bk_grid_parallel.c: a row strip, or a
 * merged pair of strips, per thread). Internal to those two files.
 *
 * Y. Boykov, V. Kolmogorov, PAMI 26(9), 2004: search trees S and T grow
 * until they touch (growth), flow is pushed along the path found
 * (augmentation), and nodes cut off from their tree look for a new parent
 * or become free (adoption); distances with time stamps keep the trees
 * shallow (section 3.2.3, as in BK's maxflow v3).
 *
 * Neighbours are implicit: a node's neighbour in direction d is at index
 * i + off[d] of the padded raster, and the residual of that arc is
 * res[d][i]. A tree node stores the direction to its parent (one byte), not
 * a pointer. Border nodes are never in a tree and their arcs have zero
 * residual, so no step needs a bounds check.
 *
 * Everything here is static inline and forced inline on GCC/Clang: the
 * growth loop is the sequential solver's hot path (benchmarked against
 * PyMaxflow), and a call per neighbour would cost it. Where the two
 * solvers had written the same step differently (augmentation, the queue)
 * the sequential solver's form is kept, as measured; where they differed
 * in substance (which tags adoption may read) see bk_adopt.
 */
#ifndef GCUT_CPU_BK_GRID_CORE_H
#define GCUT_CPU_BK_GRID_CORE_H

#include <limits.h>
#include <stdint.h>

#include "cpu/bk_common.h"
#include "graph/grid.h"

/* A node's tag byte: the parent code in the low four bits (0 = free,
 * 1..8 = (direction to the parent) + 1, terminal, orphan) and SINK_TREE
 * when the node is in T. Bits 5-7 are the owner's (bk_grid.c: DIRTY).
 * Tags live in their own byte array: growth tests many neighbours' tags but
 * touches few neighbours' other fields, so the dense array keeps the hot
 * loop in cache. */
enum { PARENT_FREE = 0, PARENT_TERMINAL = 9, PARENT_ORPHAN = 10 };
#define PARENT_MASK 15
#define SINK_TREE 16

typedef struct bk_node {
    int32_t next; /* next in the active queue; 0 = not queued, itself = last */
    int32_t ts;   /* time stamp at which dist was known to be right */
    int32_t dist; /* distance to the terminal along the tree */
    int32_t tr;   /* terminal residual: > 0 from the source, < 0 to the sink */
} bk_node;

/* BK on the nodes [lo, hi) of the padded raster: the whole grid, or a
 * strip whose crossing arcs are held at zero residual. node, tag and res
 * are the whole raster's arrays; the orphan ring is this range's own. */
typedef struct bk_core {
    bk_node *node;
    uint8_t *tag;
    int32_t *res[GCUT__MAX_DIRS];
    int32_t off[GCUT__MAX_DIRS];
    int32_t lo, hi;
    int32_t queue_first, queue_last; /* the active nodes, FIFO */
    bk_ring orphans; /* hi - lo slots */
    int32_t time;
    int64_t steps, augmentations;
    void *owner; /* the solver's own state, for its poll function */
} bk_core;

BK_INLINE void bk_set_active(bk_core *s, int32_t i)
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
BK_INLINE int32_t bk_next_active(bk_core *s)
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

BK_INLINE void bk_make_orphan(bk_core *s, int32_t i)
{
    s->tag[i] = (uint8_t)((s->tag[i] & SINK_TREE) | PARENT_ORPHAN);
    bk_ring_push(&s->orphans, i);
}

/* Push the bottleneck along source -> ... -> from -> to -> ... -> sink,
 * where the middle arc leaves `from` in direction d. Nodes whose arc to
 * their parent saturates become orphans. */
BK_INLINE void bk_augment(bk_core *s, int32_t from, int32_t to, int d)
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
                bk_make_orphan(s, i);
            break;
        }
        int pd = p - 1;
        int32_t j = i + off[pd];
        res[pd][i] += b;
        res[pd ^ 1][j] -= b;
        if (res[pd ^ 1][j] == 0)
            bk_make_orphan(s, i);
        i = j;
    }
    for (int32_t i = to;;) {
        int p = tag[i] & PARENT_MASK;
        if (p == PARENT_TERMINAL) {
            node[i].tr += b;
            if (node[i].tr == 0)
                bk_make_orphan(s, i);
            break;
        }
        int pd = p - 1;
        int32_t j = i + off[pd];
        res[pd ^ 1][j] += b;
        res[pd][i] -= b;
        if (res[pd][i] == 0)
            bk_make_orphan(s, i);
        i = j;
    }
    s->augmentations++;
}

/* Distance from j to its tree's terminal, or INT_MAX if the path meets an
 * orphan; marks the nodes on the way with the current time stamp. */
BK_INLINE int32_t bk_origin_distance(bk_core *s, int32_t j)
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
 * tree, or else i becomes free, waking its tree neighbours and orphaning
 * its children.
 * A strip of the parallel solver must not read a tag of another strip:
 * another thread may be writing it. Such a neighbour is never a parent,
 * a child or one to wake (the arcs across a held border have zero residual
 * both ways), so the parent search reads a tag only across an arc with
 * residual, and the freeing loop skips neighbours outside [lo, hi) when
 * `bounded` says the range is not the whole raster (a constant: for the
 * sequential solver every neighbour is inside, and the test compiles
 * away). The freeing loop tests the range, not the residuals (pbk's first
 * form): two more loads per neighbour cost the sequential solver 2% more
 * instructions on a 0.25 MP segmentation graph, the range test 0.65%. */
BK_INLINE void bk_adopt(bk_core *s, int32_t i, const int ndirs, const int bounded)
{
    bk_node *node = s->node;
    uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;
    const int tree = tag[i] & SINK_TREE;

    int best = -1;
    int32_t best_dist = INT_MAX;
    for (int d = 0; d < ndirs; d++) {
        int32_t j = i + off[d];
        /* S tree: the arc j -> i must have residual; T tree: i -> j. */
        int32_t r = tree ? res[d][i] : res[d ^ 1][j];
        if (r <= 0)
            continue;
        int tj = tag[j];
        if ((tj & PARENT_MASK) != PARENT_FREE && (tj & SINK_TREE) == tree) {
            int32_t dist = bk_origin_distance(s, j);
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
    const uint32_t span = (uint32_t)(s->hi - s->lo);
    for (int d = 0; d < ndirs; d++) {
        int32_t j = i + off[d];
        if (bounded && (uint32_t)(j - s->lo) >= span)
            continue;
        int tj = tag[j];
        int p = tj & PARENT_MASK;
        if (p == PARENT_FREE || (tj & SINK_TREE) != tree)
            continue;
        if ((tree ? res[d][i] : res[d ^ 1][j]) > 0)
            bk_set_active(s, j);
        if (p != PARENT_TERMINAL && p != PARENT_ORPHAN && j + off[p - 1] == i)
            bk_make_orphan(s, j);
    }
    tag[i] = PARENT_FREE;
}

/* Time stamps are int32: before they could wrap, start them again (only
 * this range's nodes: the others may belong to other threads). */
BK_INLINE void bk_advance_time(bk_core *s)
{
    if (s->time < INT32_MAX - 1) {
        s->time++;
        return;
    }
    for (int32_t i = s->lo; i < s->hi; i++)
        s->node[i].ts = 0;
    s->time = 1;
}

/* Growth, augmentation and adoption until no active node is left. Every
 * poll_mask + 1 steps (a constant: the mask folds into the loop) `poll` is
 * asked whether to stop; then GCUT_E_INTERRUPTED is returned, the state left
 * consistent but unfinished. `bounded`: as for bk_adopt. */
BK_INLINE gcut_status bk_run(bk_core *s, const int ndirs, const int bounded,
                             const int64_t poll_mask, int (*poll)(bk_core *))
{
    bk_node *node = s->node;
    uint8_t *tag = s->tag;
    int32_t *const *res = s->res;
    const int32_t *off = s->off;
    int32_t current = 0;
    int64_t steps = s->steps;

    for (;;) {
        int32_t i = current;
        if (i) {
            node[i].next = 0;
            if ((tag[i] & PARENT_MASK) == PARENT_FREE)
                i = 0;
        }
        if (!i && !(i = bk_next_active(s)))
            break;
        if ((++steps & poll_mask) == 0) {
            s->steps = steps;
            if (poll(s))
                return GCUT_E_INTERRUPTED;
        }

        /* Growth: claim free neighbours; stop at an arc into the other tree.
         * (BK v3 also re-parents a same-tree neighbour that i would bring
         * closer to the terminal; reading every such neighbour's distance
         * cost more than the shallower trees saved: 0-11% slower on the
         * benchmark graphs, so only adoption uses distances.) A tag is read
         * only across an arc with residual, never across a held border. */
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
                    bk_set_active(s, j);
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
                    bk_set_active(s, j);
                } else if (!(tj & SINK_TREE)) {
                    from = j, to = i, dir = d ^ 1;
                    break;
                }
            }
        }
        bk_advance_time(s);

        if (dir < 0) {
            current = 0;
            continue;
        }
        /* Keep i as the current node (marked queued) and grow from it again
         * next time: its other arcs may still reach the other tree. */
        ni->next = i;
        current = i;
        bk_augment(s, from, to, dir);
        while (s->orphans.count)
            bk_adopt(s, bk_ring_pop(&s->orphans), ndirs, bounded);
    }
    s->steps = steps;
    return GCUT_OK;
}

#endif
