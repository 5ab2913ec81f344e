/* Boykov–Kolmogorov max-flow on a general graph (the residual network of
 * the CSR graph).
 *
 * Y. Boykov, V. Kolmogorov, "An Experimental Comparison of Min-Cut/Max-Flow
 * Algorithms for Energy Minimization in Vision", PAMI 26(9), 2004: the same
 * growth / augmentation / adoption loop as the grid version
 * (src/cpu/bk_grid_core.h), with the same names; here a tree node stores the
 * residual arc to its parent instead of a direction, which is why the loop
 * is written again on this layout (src/cpu/bk_common.h says more).
 *
 * Arcs leaving the source and entering the sink become terminal residuals
 * (BK's add_tweights: source and sink capacities of a node cancel into the
 * flow); the residual arcs touching the source or the sink are zeroed so
 * the trees never enter them. Arcs into the source or out of the sink never
 * carry flow.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/bk_common.h"
#include "graph/csr.h"

/* parent: >= 0 the residual arc to the parent; else one of these. */
enum { PARENT_FREE = -1, PARENT_TERMINAL = -2, PARENT_ORPHAN = -3 };

typedef struct bk_node {
    int32_t next;    /* next in the active queue; -1 = not queued, itself = last */
    int32_t ts;      /* time stamp at which dist was known to be right */
    int32_t dist;    /* distance to the terminal along the tree */
    int32_t parent;  /* see the enum above */
    int64_t tr;      /* terminal residual: > 0 from the source, < 0 to the sink */
    uint8_t is_sink; /* tree membership when parent != PARENT_FREE */
} bk_node;

typedef struct bk_state {
    bk_node *node;
    const int32_t *first, *head, *rev;
    int32_t *res;
    int32_t queue_first, queue_last; /* the active nodes, FIFO; -1 = empty */
    bk_ring orphans;                 /* n slots */
    int32_t time;
    int32_t n;
    int32_t src, snk; /* only for the re-solve's tree repair */
    /* A re-solve's budget: residual arcs scanned by growth and adoption
     * (0: none); past it run() stops with gave_up set. */
    int64_t work_limit, work;
    int gave_up;
    int64_t flow;
    int64_t augmentations;
} bk_state;

BK_INLINE void set_active(bk_state *s, int32_t i)
{
    bk_node *n = &s->node[i];
    if (n->next >= 0)
        return;
    if (s->queue_last >= 0)
        s->node[s->queue_last].next = i;
    else
        s->queue_first = i;
    s->queue_last = i;
    n->next = i;
}

/* What a BK solve leaves for the next (csr.h's gcut_graph.bk): the trees
 * and each node's terminal residual tr, valid while g->bk_trees. */
struct gcut__bk_keep {
    bk_node *node;
    int32_t *ring; /* n orphan slots */
    int32_t time;
};

/* Pop active nodes until one still in a tree is found; -1 when none is left. */
BK_INLINE int32_t next_active(bk_state *s)
{
    for (;;) {
        int32_t i = s->queue_first;
        if (i < 0)
            return -1;
        bk_node *n = &s->node[i];
        if (n->next == i)
            s->queue_first = s->queue_last = -1;
        else
            s->queue_first = n->next;
        n->next = -1;
        if (n->parent != PARENT_FREE)
            return i;
    }
}

BK_INLINE void make_orphan(bk_state *s, int32_t i)
{
    s->node[i].parent = PARENT_ORPHAN;
    bk_ring_push(&s->orphans, i);
}

/* Push the bottleneck along source -> ... -> from -(arc)-> to -> ... -> sink.
 * Nodes whose arc to their parent saturates become orphans. */
static void augment(bk_state *s, int32_t from, int32_t to, int32_t arc)
{
    bk_node *node = s->node;
    int32_t *res = s->res;
    const int32_t *head = s->head, *rev = s->rev;

    int64_t b = res[arc];
    for (int32_t i = from;;) {
        int32_t p = node[i].parent;
        if (p == PARENT_TERMINAL) {
            if (node[i].tr < b)
                b = node[i].tr;
            break;
        }
        if (res[rev[p]] < b)
            b = res[rev[p]];
        i = head[p];
    }
    for (int32_t i = to;;) {
        int32_t p = node[i].parent;
        if (p == PARENT_TERMINAL) {
            if (-node[i].tr < b)
                b = -node[i].tr;
            break;
        }
        if (res[p] < b)
            b = res[p];
        i = head[p];
    }

    int32_t b32 = (int32_t)b; /* b <= res[arc], an int32 */
    res[arc] -= b32;
    res[rev[arc]] += b32;
    for (int32_t i = from;;) {
        int32_t p = node[i].parent;
        if (p == PARENT_TERMINAL) {
            node[i].tr -= b;
            if (node[i].tr == 0)
                make_orphan(s, i);
            break;
        }
        res[p] += b32;
        res[rev[p]] -= b32;
        if (res[rev[p]] == 0)
            make_orphan(s, i);
        i = head[p];
    }
    for (int32_t i = to;;) {
        int32_t p = node[i].parent;
        if (p == PARENT_TERMINAL) {
            node[i].tr += b;
            if (node[i].tr == 0)
                make_orphan(s, i);
            break;
        }
        res[rev[p]] += b32;
        res[p] -= b32;
        if (res[p] == 0)
            make_orphan(s, i);
        i = head[p];
    }
    s->flow += b;
    s->augmentations++;
}

/* Distance from j to its tree's terminal, or INT_MAX if the path meets an
 * orphan; marks the nodes on the way with the current time stamp. */
BK_INLINE int32_t origin_distance(bk_state *s, int32_t j)
{
    bk_node *node = s->node;
    const int32_t *head = s->head;
    int32_t dist = 0;
    for (int32_t k = j;;) {
        bk_node *nk = &node[k];
        if (nk->ts == s->time) {
            dist += nk->dist;
            break;
        }
        int32_t p = nk->parent;
        dist++;
        if (p == PARENT_TERMINAL) {
            nk->ts = s->time;
            nk->dist = 1;
            break;
        }
        if (p == PARENT_ORPHAN)
            return INT_MAX;
        k = head[p];
    }
    int32_t d = dist;
    for (int32_t k = j; node[k].ts != s->time; k = head[node[k].parent]) {
        node[k].ts = s->time;
        node[k].dist = d--;
    }
    return dist;
}

/* Adoption of orphan i (section 3.2.3): the closest valid parent in its own
 * tree, or else i becomes free and its children orphans. */
static void adopt(bk_state *s, int32_t i)
{
    bk_node *node = s->node;
    const int32_t *res = s->res, *head = s->head, *rev = s->rev;
    bk_node *ni = &node[i];
    const int sink = ni->is_sink;
    const int32_t begin = s->first[i], end = s->first[i + 1];

    int32_t best = -1;
    int32_t best_dist = INT_MAX;
    for (int32_t a = begin; a < end; a++) {
        /* S tree: the arc j -> i must have residual; T tree: i -> j. */
        int32_t r = sink ? res[a] : res[rev[a]];
        if (r <= 0)
            continue;
        bk_node *nj = &node[head[a]];
        if (nj->parent != PARENT_FREE && nj->is_sink == sink) {
            int32_t dist = origin_distance(s, head[a]);
            if (dist < best_dist) {
                best_dist = dist;
                best = a;
            }
        }
    }
    if (best >= 0) {
        ni->parent = best;
        ni->ts = s->time;
        ni->dist = best_dist + 1;
        return;
    }
    for (int32_t a = begin; a < end; a++) {
        int32_t j = head[a];
        bk_node *nj = &node[j];
        int32_t p = nj->parent;
        if (p == PARENT_FREE || nj->is_sink != sink)
            continue;
        if ((sink ? res[a] : res[rev[a]]) > 0)
            set_active(s, j);
        if (p >= 0 && head[p] == i)
            make_orphan(s, j);
    }
    ni->parent = PARENT_FREE;
}

/* Time stamps are int32: before they could wrap, start them again. */
static void advance_time(bk_state *s)
{
    if (s->time < INT32_MAX - 1) {
        s->time++;
        return;
    }
    for (int32_t i = 0; i < s->n; i++)
        s->node[i].ts = 0;
    s->time = 1;
}

static gcut_status run(bk_state *s, gcut_graph *g)
{
    bk_node *node = s->node;
    const int32_t *res = s->res, *head = s->head, *rev = s->rev;
    int32_t current = -1;
    int64_t steps = 0;

    for (;;) {
        int32_t i = current;
        if (i >= 0) {
            node[i].next = -1;
            if (node[i].parent == PARENT_FREE)
                i = -1;
        }
        if (i < 0 && (i = next_active(s)) < 0)
            break;
        if ((++steps & 0xfffff) == 0 && gcut__progress(g->ctx, "maxflow", -1.0))
            return gcut__fail(g->ctx, GCUT_E_INTERRUPTED, "bk: the solve was stopped by the caller");
        if (s->work_limit && (s->work += s->first[i + 1] - s->first[i]) > s->work_limit) {
            s->gave_up = 1;
            return GCUT_OK;
        }

        /* Growth: claim free neighbours; stop at an arc into the other tree. */
        bk_node *ni = &node[i];
        int32_t from = -1, to = -1, arc = -1;
        const int32_t end = s->first[i + 1];
        if (!ni->is_sink) {
            for (int32_t a = s->first[i]; a < end; a++) {
                if (res[a] <= 0)
                    continue;
                int32_t j = head[a];
                bk_node *nj = &node[j];
                if (nj->parent == PARENT_FREE) {
                    nj->is_sink = 0;
                    nj->parent = rev[a];
                    nj->ts = ni->ts;
                    nj->dist = ni->dist + 1;
                    set_active(s, j);
                } else if (nj->is_sink) {
                    from = i, to = j, arc = a;
                    break;
                } else if (nj->ts <= ni->ts && nj->dist > ni->dist) {
                    nj->parent = rev[a];
                    nj->ts = ni->ts;
                    nj->dist = ni->dist + 1;
                }
            }
        } else {
            for (int32_t a = s->first[i]; a < end; a++) {
                if (res[rev[a]] <= 0)
                    continue;
                int32_t j = head[a];
                bk_node *nj = &node[j];
                if (nj->parent == PARENT_FREE) {
                    nj->is_sink = 1;
                    nj->parent = rev[a];
                    nj->ts = ni->ts;
                    nj->dist = ni->dist + 1;
                    set_active(s, j);
                } else if (!nj->is_sink) {
                    from = j, to = i, arc = rev[a];
                    break;
                } else if (nj->ts <= ni->ts && nj->dist > ni->dist) {
                    nj->parent = rev[a];
                    nj->ts = ni->ts;
                    nj->dist = ni->dist + 1;
                }
            }
        }
        advance_time(s);

        if (arc < 0) {
            current = -1;
            continue;
        }
        /* Keep i as the current node (marked queued) and grow from it again
         * next time: its other arcs may still reach the other tree. */
        ni->next = i;
        current = i;
        augment(s, from, to, arc);
        while (s->orphans.count) {
            int32_t o = bk_ring_pop(&s->orphans);
            adopt(s, o);
            s->work += s->first[o + 1] - s->first[o];
        }
    }
    return GCUT_OK;
}

static gcut_status keep_alloc(gcut_graph *g);

gcut_status gcut__bk_graph_solve(gcut_graph *g, int64_t *iterations)
{
    gcut__resnet rn;
    g->bk_trees = 0;
    gcut_status st = gcut__resnet_build(g, NULL, &rn);
    if (!st)
        st = keep_alloc(g); /* the trees stay for a re-solve */
    if (st)
        return st;
    bk_state s;
    memset(&s, 0, sizeof s);
    s.n = g->n;
    s.node = g->bk->node;
    int32_t *orphan_slots = g->bk->ring;
    int64_t *src_cap = calloc((size_t)g->n, sizeof *src_cap);
    int64_t *snk_cap = calloc((size_t)g->n, sizeof *snk_cap);
    if (!src_cap || !snk_cap) {
        st = gcut__fail(g->ctx, GCUT_E_NOMEM, "bk: out of memory for %d nodes", g->n);
        goto done;
    }
    s.first = rn.first;
    s.head = rn.head;
    s.rev = rn.rev;
    s.res = rn.res;
    bk_ring_start(&s.orphans, orphan_slots, g->n);
    s.queue_first = s.queue_last = -1;
    for (int32_t i = 0; i < g->n; i++) {
        s.node[i] = (bk_node){.next = -1, .parent = PARENT_FREE};
    }

    /* Terminal arcs leave the residual network; their capacities seed the
     * trees. Zeroing both directions of every arc at s or t keeps the trees
     * away from the terminals themselves. */
    const int32_t src = g->source, snk = g->sink;
    int64_t direct = 0; /* s -> t arcs: saturated outright */
    for (int32_t a = 0; a < g->m; a++) {
        int32_t u = g->arc_tail[a], v = g->out_head[a];
        if (u == src && v == snk)
            direct += g->out_cap[a];
        else if (u == src)
            src_cap[v] += g->out_cap[a];
        else if (v == snk)
            snk_cap[u] += g->out_cap[a];
    }
    for (int32_t t = 0; t < 2; t++) {
        int32_t x = t ? snk : src;
        for (int32_t a = rn.first[x]; a < rn.first[x + 1]; a++)
            rn.res[a] = rn.res[rn.rev[a]] = 0;
    }
    s.flow = direct;
    for (int32_t i = 0; i < g->n; i++) {
        if (i == src || i == snk)
            continue;
        s.flow += src_cap[i] < snk_cap[i] ? src_cap[i] : snk_cap[i];
        bk_node *n = &s.node[i];
        n->tr = src_cap[i] - snk_cap[i];
        if (n->tr != 0) {
            n->is_sink = n->tr < 0;
            n->parent = PARENT_TERMINAL;
            n->dist = 1;
            set_active(&s, i);
        }
    }

    st = run(&s, g);
    if (st)
        goto done;

    /* Flows: inner arcs from the residuals (a terminal arc's residual was
     * zeroed, so fix those next); a node's terminal residual tr then gives
     * how much of its source and sink capacity was used. */
    gcut__resnet_store_flow(g, &rn, g->flow);
    for (int32_t a = 0; a < g->m; a++) {
        int32_t u = g->arc_tail[a], v = g->out_head[a];
        if (u == src && v == snk)
            g->flow[a] = g->out_cap[a];
        else if (u == src)
            g->flow[a] = (int32_t)(s.node[v].tr >= 0 ? src_cap[v] - s.node[v].tr : src_cap[v]);
        else if (v == snk)
            g->flow[a] = (int32_t)(s.node[u].tr < 0 ? snk_cap[u] + s.node[u].tr : snk_cap[u]);
        else if (u == snk || v == src)
            g->flow[a] = 0;
    }
    g->flow_value = s.flow;
    g->is_flow = 1;
    g->flow_stored = 1;
    st = gcut__graph_mark_side(g);
    *iterations = s.augmentations;
    g->bk_trees = !st;
    g->bk->time = s.time;
    g->dirty_count = 0;

done:
    free(src_cap);
    free(snk_cap);
    gcut__resnet_free(&rn);
    return st;
}

/* ---- dynamic re-solves ------------------------------------------------ */


void gcut__bk_keep_free(struct gcut__bk_keep *k)
{
    if (!k)
        return;
    free(k->node);
    free(k->ring);
    free(k);
}

static gcut_status keep_alloc(gcut_graph *g)
{
    if (!g->bk && !(g->bk = calloc(1, sizeof *g->bk)))
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "bk: out of memory");
    if (!g->bk->node)
        g->bk->node = malloc((size_t)g->n * sizeof *g->bk->node);
    if (!g->bk->ring)
        g->bk->ring = malloc((size_t)g->n * sizeof *g->bk->ring);
    if (!g->bk->node || !g->bk->ring)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "bk: out of memory for %d nodes", g->n);
    return GCUT_OK;
}

static void orphan_once(bk_state *s, int32_t i)
{
    if (s->node[i].parent != PARENT_ORPHAN)
        make_orphan(s, i);
}

/* The trees around the nodes a batch touched (Kohli–Torr, as in
 * bk_grid.c): a node with tr != 0 is a root of its sign's tree; a root left
 * with tr = 0, or a node whose arc to its parent lost its residual, is an
 * orphan, and so are children whose arc to a touched node broke; the
 * touched nodes and their neighbours across residual arcs are woken, since
 * BK's passive nodes have residual arcs only inside their own tree. */
static void repair_trees(bk_state *s, const int32_t *dirty, int64_t count)
{
    bk_node *node = s->node;
    const int32_t *res = s->res, *head = s->head, *rev = s->rev;
    advance_time(s);
    for (int64_t k = 0; k < count; k++) {
        int32_t i = dirty[k];
        bk_node *ni = &node[i];
        if (i == s->src || i == s->snk)
            continue;
        if (ni->tr != 0) {
            ni->is_sink = ni->tr < 0;
            ni->parent = PARENT_TERMINAL;
            ni->ts = s->time;
            ni->dist = 1;
        } else if (ni->parent == PARENT_TERMINAL) {
            orphan_once(s, i);
        } else if (ni->parent >= 0) {
            int32_t p = ni->parent;
            if ((ni->is_sink ? res[p] : res[rev[p]]) == 0 ||
                node[head[p]].parent == PARENT_FREE || node[head[p]].is_sink != ni->is_sink)
                orphan_once(s, i);
        }
    }
    for (int64_t k = 0; k < count; k++) {
        int32_t i = dirty[k];
        bk_node *ni = &node[i];
        if (i == s->src || i == s->snk)
            continue;
        for (int32_t a = s->first[i]; a < s->first[i + 1]; a++) {
            int32_t j = head[a];
            bk_node *nj = &node[j];
            if (nj->parent >= 0 && head[nj->parent] == i) {
                int keep = ni->parent != PARENT_FREE && ni->parent != PARENT_ORPHAN &&
                           ni->is_sink == nj->is_sink &&
                           (nj->is_sink ? res[nj->parent] : res[a]) > 0;
                if (!keep)
                    orphan_once(s, j);
            }
            if (nj->parent != PARENT_FREE && (res[a] > 0 || res[rev[a]] > 0))
                set_active(s, j);
        }
        if (ni->parent != PARENT_FREE)
            set_active(s, i);
    }
    while (s->orphans.count) {
        int32_t i = bk_ring_pop(&s->orphans);
        if (s->node[i].parent == PARENT_ORPHAN)
            adopt(s, i);
    }
}

/* Dynamic re-solve (after gcut_graph_update): BK continues from the warm
 * pseudo-flow instead of from zero. Its terminals are the source's and the
 * sink's residual arcs as they stand plus the pseudo-flow's imbalances: a
 * node's excess is more supply (flow already out of the source), a
 * deficit more demand (flow already counted into the sink). Only new
 * augmenting paths carry flow (push-relabel's re-solve would flood the
 * graph from the source again). When the last solve was BK, its trees are
 * kept and only repaired around the touched nodes (Kohli and Torr's
 * dynamic cuts), else they grow from every terminal node. Afterwards each
 * node's used supply comes first out of its excess and its used demand
 * first into its deficit; the rest moves the residuals of its arcs at the
 * source and the sink, so the state is again a plain pseudo-flow. */
gcut_status gcut__bk_graph_resolve(gcut_graph *g, int64_t work_limit, int *gave_up,
                                   int64_t *iterations)
{
    *gave_up = 0;
    gcut__resnet rn;
    gcut__resnet_view(g, &rn);
    const int32_t src = g->source, snk = g->sink, n = g->n;
    const int32_t s0 = rn.first[src], s1 = rn.first[src + 1];
    const int32_t t0 = rn.first[snk], t1 = rn.first[snk + 1];
    const int incremental = g->bk_trees;
    bk_state s;
    memset(&s, 0, sizeof s);
    int64_t *supply = NULL, *demand = NULL;
    int32_t *saved = NULL;
    gcut_status st = keep_alloc(g);
    g->warm = 0; /* until this ends cleanly */
    g->bk_trees = 0;
    if (st)
        return st;
    supply = malloc((size_t)n * sizeof *supply);
    demand = malloc((size_t)n * sizeof *demand);
    /* The residuals at the source and the sink, both directions, kept
     * while the trees run with them zeroed. */
    saved = malloc((2 * (size_t)((s1 - s0) + (t1 - t0)) + 1) * sizeof *saved);
    if (!supply || !demand || !saved) {
        st = gcut__fail(g->ctx, GCUT_E_NOMEM, "bk: out of memory for %d nodes", n);
        goto done;
    }
    s.n = n;
    s.node = g->bk->node;
    s.first = rn.first;
    s.head = rn.head;
    s.rev = rn.rev;
    s.res = rn.res;
    s.time = incremental ? g->bk->time : 0;
    s.src = src;
    s.snk = snk;
    s.work_limit = work_limit;
    bk_ring_start(&s.orphans, g->bk->ring, n);
    s.queue_first = s.queue_last = -1;

    /* Source -> sink residual: augmented outright. */
    for (int32_t a = s0; a < s1; a++) {
        if (rn.head[a] == snk && rn.res[a] > 0) {
            int32_t r = rn.res[a];
            rn.res[a] = 0;
            rn.res[rn.rev[a]] += r;
            g->excess[snk] += r;
        }
    }
    /* Each node's supply and demand: untouched nodes kept theirs in tr
     * (a node never keeps both); touched ones count them again. */
    if (incremental) {
        for (int32_t i = 0; i < n; i++) {
            int64_t tr = s.node[i].tr;
            supply[i] = tr > 0 ? tr : 0;
            demand[i] = tr < 0 ? -tr : 0;
        }
        for (int64_t k = 0; k < g->dirty_count; k++) {
            int32_t i = g->dirty[k];
            if (i == src || i == snk)
                continue;
            /* (A node may be listed more than once: this is idempotent.) */
            int64_t sup = 0, dem = 0, e = g->excess[i];
            for (int32_t a = rn.first[i]; a < rn.first[i + 1]; a++) {
                if (rn.head[a] == src)
                    sup += rn.res[rn.rev[a]];
                else if (rn.head[a] == snk)
                    dem += rn.res[a];
            }
            supply[i] = sup + (e > 0 ? e : 0);
            demand[i] = dem + (e < 0 ? -e : 0);
            s.node[i].tr = supply[i] - demand[i];
        }
    } else {
        memset(supply, 0, (size_t)n * sizeof *supply);
        memset(demand, 0, (size_t)n * sizeof *demand);
        /* (Arcs between the source and the sink are no node's terminals.) */
        for (int32_t a = s0; a < s1; a++)
            if (rn.head[a] != snk)
                supply[rn.head[a]] += rn.res[a];
        for (int32_t a = t0; a < t1; a++)
            if (rn.head[a] != src)
                demand[rn.head[a]] += rn.res[rn.rev[a]];
    }
    size_t k = 0;
    for (int32_t x = 0; x < 2; x++)
        for (int32_t a = x ? t0 : s0; a < (x ? t1 : s1); a++) {
            saved[k++] = rn.res[a];
            saved[k++] = rn.res[rn.rev[a]];
            rn.res[a] = rn.res[rn.rev[a]] = 0;
        }
    if (incremental) {
        s.node[src] = s.node[snk] = (bk_node){.next = -1, .parent = PARENT_FREE};
        repair_trees(&s, g->dirty, g->dirty_count);
    } else {
        for (int32_t i = 0; i < n; i++) {
            bk_node *nd = &s.node[i];
            *nd = (bk_node){.next = -1, .parent = PARENT_FREE};
            if (i == src || i == snk)
                continue;
            int64_t e = g->excess[i];
            if (e > 0)
                supply[i] += e;
            else
                demand[i] -= e;
            nd->tr = supply[i] - demand[i];
            if (nd->tr != 0) {
                nd->is_sink = nd->tr < 0;
                nd->parent = PARENT_TERMINAL;
                nd->dist = 1;
                set_active(&s, i);
            }
        }
    }
    if ((st = run(&s, g)))
        goto done;
    if (s.gave_up) {
        /* The state is half-way through: the caller solves from zero. */
        *gave_up = 1;
        goto done;
    }

    /* Restore the terminal residuals (last saved first: an arc between the
     * source and the sink was saved twice, the second time already
     * zeroed), then spend each node's usage. */
    for (int32_t x = 1; x >= 0; x--)
        for (int32_t a = (x ? t1 : s1) - 1; a >= (x ? t0 : s0); a--) {
            rn.res[rn.rev[a]] = saved[--k];
            rn.res[a] = saved[--k];
        }
    for (int32_t i = 0; i < n; i++) {
        if (i == src || i == snk)
            continue;
        int64_t tr = s.node[i].tr;
        int64_t used_sup = supply[i] - (tr > 0 ? tr : 0);
        int64_t used_dem = demand[i] - (tr < 0 ? -tr : 0);
        int64_t e = g->excess[i];
        if (e > 0) {
            int64_t from_excess = used_sup < e ? used_sup : e;
            e -= from_excess;
            used_sup -= from_excess;
        } else if (e < 0) {
            int64_t into_deficit = used_dem < -e ? used_dem : -e;
            e += into_deficit;
            used_dem -= into_deficit;
        }
        g->excess[i] = e;
        supply[i] = used_sup; /* still to take from the source's arcs */
        demand[i] = used_dem; /* still to give to the sink's arcs */
    }
    supply[snk] = demand[src] = 0;
    for (int32_t a = s0; a < s1; a++) {
        int32_t v = rn.head[a];
        int64_t take = supply[v] < rn.res[a] ? supply[v] : rn.res[a];
        rn.res[a] -= (int32_t)take;
        rn.res[rn.rev[a]] += (int32_t)take;
        supply[v] -= take;
    }
    for (int32_t a = t0; a < t1; a++) {
        int32_t v = rn.head[a], into = rn.rev[a];
        int64_t take = demand[v] < rn.res[into] ? demand[v] : rn.res[into];
        rn.res[into] -= (int32_t)take;
        rn.res[a] += (int32_t)take;
        demand[v] -= take;
        g->excess[snk] += take;
    }
    /* The cut: BK ends with every node that can reach a node with demand
     * left (unused sink residual, or a deficit) in the sink's tree, and
     * no other: the canonical side is the rest. */
    int64_t value = g->excess[snk];
    for (int32_t i = 0; i < n; i++) {
        g->side[i] = !(s.node[i].parent != PARENT_FREE && s.node[i].is_sink);
        if (i == src || i == snk)
            continue;
        if (supply[i] || demand[i]) {
            st = gcut__fail(g->ctx, GCUT_E_STATE,
                            "bk: node %d used more terminal capacity than it had", i + 1);
            goto done;
        }
        if (g->excess[i] < 0)
            value += g->excess[i];
    }
    g->side[src] = 1;
    g->side[snk] = 0;
    g->flow_value = value;
    g->is_flow = 0;
    g->flow_stored = 0;
    g->warm = 1;
    g->bk_trees = 1;
    g->bk->time = s.time;
    g->dirty_count = 0;
    *iterations = s.augmentations;

done:
    free(supply);
    free(demand);
    free(saved);
    return st;
}
