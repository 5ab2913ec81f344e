/* Highest-label push-relabel with global and gap relabelling (the hi_pr
 * class).
 *
 * A. V. Goldberg, R. E. Tarjan, "A new approach to the maximum-flow
 * problem", JACM 35(4), 1988; B. V. Cherkassky, A. V. Goldberg, "On
 * implementing the push-relabel method for the maximum flow problem",
 * Algorithmica 19, 1997: active nodes are processed highest label first
 * from buckets; a global relabel (a backward breadth-first search from the
 * target in the residual graph) sets exact distances whenever the relabel
 * work since the last one exceeds a share of n and m; when a label level
 * empties (a gap), every node above it can no longer reach the target and
 * leaves the computation.
 *
 * Two phases on the same machinery. Phase 1 (target = sink) saturates the
 * source's arcs and pushes towards the sink: it ends with a maximum
 * preflow, whose value is the sink's excess and whose residual graph gives
 * the minimum cut. Phase 2 (target = source, the sink frozen) returns the
 * excess left on nodes that cannot reach the sink to the source, which
 * turns the preflow into a feasible flow of the same value. In a preflow
 * every node with excess has a residual path to the source, so phase 2
 * always finishes with no excess anywhere.
 *
 * Phase 1 starts, before any labels, by augmenting along the shortest
 * paths s -> v -> t and s -> v -> w -> t (exact: plain augmentations of the
 * preflow, which the first global relabel then labels). On vision graphs
 * most flow is settled there; on vision grids what remains is mostly the
 * excess inside regions that end on the source side, which climbs until a
 * gap or a global relabel removes it. The cut at the end is a plain
 * backward search from the sink, not a global relabel.
 *
 * Dynamic re-solves (gcut__prf_resolve; S. Kannappan, A. Kumar, R. Nasre,
 * "Scalable Maxflow Processing for Dynamic Graphs", section 4): after a
 * batch of capacity changes the pseudo-flow the last solve left is kept;
 * flow above a lowered capacity was cut back, leaving an excess at the
 * arc's tail and a deficit at its head. Phase 1 runs again from there with
 * every deficient node as an extra sink (label 0, absorbing flow), so only
 * the part of the graph the changes touch does work. A deficit left at
 * the end lies on the sink side; it is cancelled back along flow paths
 * into the sink only when a feasible flow is asked for. Most deficits
 * never get here: gcut_graph_update repairs a batch inside each side of
 * the last cut first (graph_update.c), so that the excess stranded on the
 * source side stays out of the re-solve. A re-solve that scans more arcs
 * than the last solve from zero (less those repairs) gives up for one.
 *
 * A re-solve keeps its labels, buckets and current arcs for the next one
 * (struct gcut__prf_keep), exact distances at its end. The next batch
 * changes residuals at the nodes the update noted: only the labels a new
 * residual arc breaks are lowered (in label order, spreading backwards
 * as far as validity needs), the run starts without a global relabel, and
 * at its end only the nodes it changed are checked for a residual path
 * down the labels (settle_labels), which also moves them across the cut.
 * So a batch that touches a few nodes costs about what it changes, not a
 * breadth-first search of the graph; where the changes spread too far
 * (past the arcs of one global relabel) a global relabel takes over.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/csr.h"
#include "core/big_alloc.h"

/* Global relabel when the relabel work since the last one exceeds
 * 2 (GR_ALPHA n + 2m) (work: GR_BETA per relabel plus the arcs it scans),
 * the weights of Cherkassky and Goldberg's implementation. */
#define GR_ALPHA 6
#define GR_BETA 12

/* A node's working data in one record: a push or a relabel touches all of
 * it, and separate arrays cost a cache miss each. */
typedef struct prf_node {
    int64_t excess;
    int32_t label; /* n = out of the computation (cannot reach the target) */
    int32_t cur;   /* current arc */
    int32_t bnext, bprev;
} prf_node;

typedef struct prf_state {
    int32_t n;
    const int32_t *first, *head, *rev;
    int32_t *res;
    prf_node *node;
    int32_t *active;   /* active[d]: stack of active nodes with label d */
    int32_t *inactive; /* inactive[d]: doubly linked list of the others */
    int32_t *queue;
    int32_t amax, dmax; /* highest label with an active node / with any node */
    int32_t target, frozen;
    /* Re-solves: the nodes that were deficient at the start; those still
     * deficient are extra targets (label 0) at each global relabel. */
    const int32_t *deficient;
    int32_t n_deficient;
    int64_t work, work_limit;
    int64_t relabels, global_updates;
    /* All arcs scanned (pushes, relabels, global relabels); a re-solve
     * stops (gave_up) when it passes give_up (0: never). */
    int64_t scanned, give_up;
    int gave_up;
    /* Re-solves from kept labels (NULL otherwise): the nodes whose label or
     * residual arcs changed, each listed once (stamp[v] == mark), and
     * raised[v] for those relabelled. */
    int32_t *cand, n_cand, *stamp, mark;
    uint8_t *raised;
} prf_state;

static inline void add_active(prf_state *s, int32_t v)
{
    int32_t d = s->node[v].label;
    s->node[v].bnext = s->active[d];
    s->active[d] = v;
    if (d > s->amax)
        s->amax = d;
    if (d > s->dmax)
        s->dmax = d;
}

static inline void add_inactive(prf_state *s, int32_t v)
{
    int32_t d = s->node[v].label;
    int32_t first = s->inactive[d];
    s->node[v].bnext = first;
    s->node[v].bprev = -1;
    if (first >= 0)
        s->node[first].bprev = v;
    s->inactive[d] = v;
    if (d > s->dmax)
        s->dmax = d;
}

static inline void remove_inactive(prf_state *s, int32_t v)
{
    int32_t next = s->node[v].bnext, prev = s->node[v].bprev;
    if (prev >= 0)
        s->node[prev].bnext = next;
    else
        s->inactive[s->node[v].label] = next;
    if (next >= 0)
        s->node[next].bprev = prev;
}

/* Exact distances to the target in the residual graph; buckets rebuilt. */
static void global_update(prf_state *s)
{
    const int32_t n = s->n;
    for (int32_t d = 0; d <= s->dmax && d < n; d++)
        s->active[d] = s->inactive[d] = -1;
    prf_node *node = s->node;
    for (int32_t v = 0; v < n; v++)
        node[v].label = n;
    s->amax = s->dmax = 0;
    node[s->target].label = 0;
    int32_t qh = 0, qt = 0;
    s->queue[qt++] = s->target;
    for (int32_t k = 0; k < s->n_deficient; k++) {
        int32_t v = s->deficient[k];
        if (node[v].excess < 0) {
            node[v].label = 0;
            /* Its current arc too: one that receives more than its deficit
             * is discharged from there (left at 0, its scan would start at
             * the residual network's first arc). */
            node[v].cur = s->first[v];
            add_inactive(s, v);
            s->queue[qt++] = v;
        }
    }
    while (qh < qt) {
        int32_t w = s->queue[qh++];
        int32_t dnext = node[w].label + 1;
        s->scanned += s->first[w + 1] - s->first[w];
        for (int32_t a = s->first[w]; a < s->first[w + 1]; a++) {
            int32_t x = s->head[a];
            if (node[x].label == n && x != s->frozen && s->res[s->rev[a]] > 0) {
                node[x].label = dnext;
                node[x].cur = s->first[x];
                if (node[x].excess > 0)
                    add_active(s, x);
                else
                    add_inactive(s, x);
                s->queue[qt++] = x;
            }
        }
    }
    s->work = 0;
    s->global_updates++;
}

/* A re-solve from kept labels lists v among the nodes it changed. */
static inline void note_changed(prf_state *s, int32_t v)
{
    if (s->cand && s->stamp[v] != s->mark) {
        s->stamp[v] = s->mark;
        s->cand[s->n_cand++] = v;
    }
}

/* No node is left with label k: nodes above it cannot reach the target. */
static void gap(prf_state *s, int32_t k)
{
    for (int32_t d = k + 1; d <= s->dmax; d++) {
        for (int32_t v = s->active[d]; v >= 0; v = s->node[v].bnext) {
            s->node[v].label = s->n;
            note_changed(s, v);
        }
        for (int32_t v = s->inactive[d]; v >= 0; v = s->node[v].bnext) {
            s->node[v].label = s->n;
            note_changed(s, v);
        }
        s->active[d] = s->inactive[d] = -1;
    }
    s->dmax = k - 1;
    if (s->amax > k - 1)
        s->amax = k - 1;
}

/* Push v's excess along admissible arcs, relabelling as needed, until it
 * is gone or v leaves the computation. v is in no bucket on entry. */
static void discharge(prf_state *s, int32_t v)
{
    const int32_t n = s->n;
    const int32_t *head = s->head, *rev = s->rev;
    int32_t *res = s->res;
    prf_node *node = s->node, *nv = &s->node[v];
    const int32_t begin = s->first[v], end = s->first[v + 1];
    int32_t d = nv->label;

    for (;;) {
        s->scanned += end - nv->cur;
        for (int32_t a = nv->cur; a < end; a++) {
            int32_t r = res[a];
            if (r <= 0)
                continue;
            int32_t w = head[a];
            prf_node *nw = &node[w];
            if (nw->label != d - 1)
                continue;
            int32_t delta = nv->excess < r ? (int32_t)nv->excess : r;
            res[a] = r - delta;
            res[rev[a]] += delta;
            /* A deficient node (a re-solve's extra target) turns active only
             * once it has received more than its deficit. */
            if (nw->excess <= 0 && nw->excess + delta > 0 && w != s->target) {
                remove_inactive(s, w);
                add_active(s, w);
            }
            nw->excess += delta;
            nv->excess -= delta;
            if (nv->excess == 0) {
                nv->cur = a;
                add_inactive(s, v);
                return;
            }
        }

        /* Relabel. If v was alone on its level, that level is a gap (never
         * level 0: the target is there, outside the buckets). */
        if (d > 0 && s->active[d] < 0 && s->inactive[d] < 0) {
            gap(s, d);
            nv->label = n;
            return;
        }
        int32_t best = n, best_arc = begin;
        for (int32_t a = begin; a < end; a++) {
            if (res[a] > 0 && node[head[a]].label < best) {
                best = node[head[a]].label;
                best_arc = a;
            }
        }
        s->work += GR_BETA + (end - begin);
        s->scanned += end - begin;
        s->relabels++;
        d = best + 1;
        if (d >= n) {
            nv->label = n;
            return;
        }
        nv->label = d;
        nv->cur = best_arc;
        if (d > s->dmax)
            s->dmax = d;
    }
}

/* Phase 1's loop; `labelled`: the labels and buckets are already valid
 * (kept from the last solve and repaired), else a global relabel sets them. */
static gcut_status run(prf_state *s, gcut_context *ctx, int labelled)
{
    if (!labelled)
        global_update(s);
    int64_t steps = 0;
    /* Level 0 too: a former deficient node that received more than its
     * deficit is active there. */
    while (s->amax >= 0) {
        int32_t v = s->active[s->amax];
        if (v < 0) {
            s->amax--;
            continue;
        }
        s->active[s->amax] = s->node[v].bnext;
        if (s->cand) {
            /* A re-solve from kept labels lists what it changes. */
            int32_t before = s->node[v].label;
            discharge(s, v);
            note_changed(s, v);
            if (s->node[v].label != before)
                s->raised[v] = 1;
        } else {
            discharge(s, v);
        }
        if (s->work > s->work_limit)
            global_update(s);
        if (s->give_up && s->scanned > s->give_up) {
            s->gave_up = 1; /* not an error: the caller solves from zero */
            return GCUT_OK;
        }
        if ((++steps & 0xfffff) == 0 && gcut__progress(ctx, "maxflow", -1.0))
            return gcut__fail(ctx, GCUT_E_INTERRUPTED, "prf: the solve was stopped by the caller");
    }
    return GCUT_OK;
}

static void state_free(prf_state *s)
{
    free(s->node);
    free(s->active);
    free(s->inactive);
    free(s->queue);
}

static gcut_status state_init(prf_state *s, const gcut_graph *g, gcut__resnet *rn)
{
    memset(s, 0, sizeof *s);
    size_t n = (size_t)g->n;
    s->n = g->n;
    s->first = rn->first;
    s->head = rn->head;
    s->rev = rn->rev;
    s->res = rn->res;
    /* Huge pages: a solve touches every page of these, and on vision-sized
     * graphs 4 KiB page faults cost as much as a global relabel. */
    s->node = gcut__big_alloc(n * sizeof *s->node);
    s->active = gcut__big_alloc((n + 1) * sizeof *s->active);
    s->inactive = gcut__big_alloc((n + 1) * sizeof *s->inactive);
    s->queue = gcut__big_alloc(n * sizeof *s->queue);
    if (!s->node || !s->active || !s->inactive || !s->queue) {
        state_free(s);
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "prf: out of memory for %d nodes", g->n);
    }
    memset(s->node, 0, n * sizeof *s->node);
    /* All bytes 0xff: every bucket empty (-1). */
    memset(s->active, 0xff, (n + 1) * sizeof *s->active);
    memset(s->inactive, 0xff, (n + 1) * sizeof *s->inactive);
    s->dmax = 0;
    /* hi_pr's update frequency 0.5 over ALPHA n + (its residual arcs, 2m). */
    s->work_limit = 2 * (GR_ALPHA * (int64_t)g->n + 2 * (int64_t)g->m);
    return GCUT_OK;
}

/* Augment along v -> t: min(excess of v, residual of v -> t). */
static inline void push_to_sink(prf_state *s, const int32_t *sink_slot, int32_t v)
{
    int32_t a = sink_slot[v];
    int32_t r = a >= 0 ? s->res[a] : 0;
    if (r <= 0 || s->node[v].excess <= 0)
        return;
    int32_t delta = s->node[v].excess < r ? (int32_t)s->node[v].excess : r;
    s->res[a] = r - delta;
    s->res[s->rev[a]] += delta;
    s->node[v].excess -= delta;
    s->node[s->target].excess += delta;
}

/* Before any labels: the shortest augmenting paths s -> v -> t and
 * s -> v -> w -> t, found from the source's heads alone. Vision graphs give
 * most pixels terminal arcs, and this settles most of their flow locally
 * (as BK's add_tweights cancels s -> v -> t), so that few nodes need a
 * discharge. sink_slot[v] is v's arc into the sink (or -1). */
static void augment_short_paths(prf_state *s, const gcut_graph *g, const int32_t *sink_slot)
{
    const int32_t src = g->source;
    const int32_t *first = s->first, *head = s->head, *rev = s->rev;
    int32_t *res = s->res;
    for (int32_t k = first[src]; k < first[src + 1]; k++) {
        int32_t v = head[k];
        if (v == g->sink)
            continue;
        push_to_sink(s, sink_slot, v);
        int32_t a = first[v];
        for (; a < first[v + 1] && s->node[v].excess > 0; a++) {
            int32_t w = head[a], wt = sink_slot[w];
            if (res[a] <= 0 || wt < 0 || res[wt] <= 0 || w == src)
                continue;
            int32_t delta = res[a] < res[wt] ? res[a] : res[wt];
            if (s->node[v].excess < delta)
                delta = (int32_t)s->node[v].excess;
            res[a] -= delta;
            res[rev[a]] += delta;
            res[wt] -= delta;
            res[rev[wt]] += delta;
            s->node[v].excess -= delta;
            s->node[s->target].excess += delta;
        }
        s->scanned += a - first[v];
    }
}

/* side[v] = 1 for the nodes that cannot reach the sink (or, in a
 * re-solve, a node still deficient) in the residual graph: the source side
 * of the minimum cut. A plain search, no labels. Cancelling the deficits
 * later moves flow only among the nodes found here, and leaves each of
 * them a residual path to the sink, so the side is the canonical one. */
static void mark_cut(prf_state *s, const gcut_graph *g)
{
    const int32_t *first = s->first, *head = s->head, *rev = s->rev, *res = s->res;
    uint8_t *side = g->side;
    int32_t *queue = s->queue;
    memset(side, 1, (size_t)g->n);
    side[g->sink] = 0;
    int32_t qh = 0, qt = 0;
    queue[qt++] = g->sink;
    for (int32_t k = 0; k < s->n_deficient; k++) {
        int32_t v = s->deficient[k];
        if (s->node[v].excess < 0 && side[v]) {
            side[v] = 0;
            queue[qt++] = v;
        }
    }
    while (qh < qt) {
        int32_t w = queue[qh++];
        for (int32_t a = first[w]; a < first[w + 1]; a++) {
            int32_t x = head[a];
            if (side[x] && res[rev[a]] > 0) {
                side[x] = 0;
                queue[qt++] = x;
            }
        }
    }
}

/* Keep the nodes' excesses with the residuals: the warm state a later
 * re-solve starts from. */
static gcut_status keep_excess(gcut_graph *g, const prf_state *s)
{
    if (!g->excess && !(g->excess = malloc((size_t)g->n * sizeof *g->excess)))
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "prf: out of memory for %d excesses", g->n);
    for (int32_t v = 0; v < g->n; v++)
        g->excess[v] = s->node[v].excess;
    g->excess[g->source] = 0;
    g->warm = 1;
    return GCUT_OK;
}

gcut_status gcut__prf_solve(gcut_graph *g, int64_t *iterations)
{
    gcut__resnet rn;
    prf_state s;
    gcut_status st = gcut__resnet_build(g, NULL, &rn);
    if (st)
        return st;
    if ((st = state_init(&s, g, &rn))) {
        gcut__resnet_free(&rn);
        return st;
    }
    /* Phase 1: saturate the source's arcs, push towards the sink. */
    const int32_t src = g->source, snk = g->sink;
    s.target = snk;
    s.frozen = src;
    for (int32_t a = rn.first[src]; a < rn.first[src + 1]; a++) {
        int32_t r = rn.res[a];
        rn.res[a] = 0;
        rn.res[rn.rev[a]] += r;
        s.node[rn.head[a]].excess += r;
    }
    /* The queue is free until the first global relabel. */
    int32_t *sink_slot = s.queue;
    for (int32_t v = 0; v < g->n; v++)
        sink_slot[v] = -1;
    for (int32_t k = g->in_start[snk]; k < g->in_start[snk + 1]; k++) {
        int32_t v = g->in_tail[k];
        sink_slot[v] = rn.first[v] + (g->in_arc[k] - g->out_start[v]);
    }
    augment_short_paths(&s, g, sink_slot);
    st = run(&s, g->ctx, 0);
    g->prf_fresh_work = s.scanned;
    if (!st) {
        mark_cut(&s, g);
        g->flow_value = s.node[g->sink].excess;
        g->is_flow = 0;
        g->flow_stored = 0; /* it stays in res until asked for */
        *iterations = s.relabels;
        st = keep_excess(g, &s);
    }
    state_free(&s);
    gcut__resnet_free(&rn);
    return st;
}

/* The arcs a re-solve may scan before it gives up for a solve from zero
 * (0: no limit, where no solve from zero was recorded): what its batches'
 * repairs left of that solve's scans, so that a warm solve costs at most
 * about two from zero. Excess that cannot reach the sink climbs a label at
 * a time until a gap or a global relabel, which a re-solve of many changes
 * cannot amortise; a limit of half a solve gave up on re-solves of 0.1 % of
 * the arcs that would have beaten a solve from zero
 * (bench/results/dynamic_maxflow_cpu_vm.md). */
static int64_t resolve_limit(const gcut_graph *g)
{
    if (g->prf_fresh_work <= 0)
        return 0;
    int64_t limit = g->prf_fresh_work - g->prf_repair_work;
    return limit > g->prf_fresh_work / 8 ? limit : g->prf_fresh_work / 8 + 1;
}

/* What a prf re-solve keeps for the next one: its state (labels exact at
 * the end, buckets, current arcs, excesses), the nodes still deficient
 * (the extra targets, flagged in is_target), and scratch for the repairs
 * (stamps, a queue flag, the list of nodes they saw). */
struct gcut__prf_keep {
    prf_node *node;
    int32_t *active, *inactive, *queue;
    int32_t dmax;
    int32_t *deficient, n_deficient;
    uint8_t *is_target, *queued;
    int32_t *stamp, stamp_now;
    int32_t note_mark; /* the stamp of the nodes noted since the last re-solve */
    int32_t *seen, n_seen;
    int32_t *link;
    uint8_t *raised;
    int64_t *order, order_count, order_room; /* the lowering's order (order_push) */
    int64_t relabel_scans;                   /* the arcs the last global relabel scanned */
};

/* The update's notes for the kept labels (graph_update.c): e >= 0 a node
 * whose excess or residual arcs changed, e < 0 the residual arc -1 - e,
 * which opened (its residual grew from zero). */
void gcut__prf_note(gcut_graph *g, int32_t e)
{
    struct gcut__prf_keep *k = g->prf_keep;
    if (!g->prf_labels || !k)
        return;
    /* A node once per batch (the repairs' paths overlap); arcs as they
     * come (each is checked once, in O(1)). */
    if (e >= 0) {
        if (k->stamp[e] == k->note_mark)
            return;
        k->stamp[e] = k->note_mark;
    }
    /* Past about n / 16 entries (nodes and arcs together) the re-solve
     * relabels all: the labels of a batch that touches that much move so
     * far that repairing them cost more than a global relabel (raised
     * batches of 1 % of the arcs on genrmf and RLG, past n / 32 nodes:
     * bench/results/dynamic_maxflow_cpu_vm.md). */
    if (g->prf_touched_count == g->prf_touched_room) {
        int64_t room = g->prf_touched_room ? 2 * g->prf_touched_room : 256;
        int32_t *bigger = room <= (int64_t)g->n / 16 + 512
                              ? realloc(g->prf_touched, (size_t)room * sizeof *bigger)
                              : NULL;
        if (!bigger) {
            g->prf_labels = 0;
            return;
        }
        g->prf_touched = bigger;
        g->prf_touched_room = room;
    }
    g->prf_touched[g->prf_touched_count++] = e;
}

void gcut__prf_keep_free(struct gcut__prf_keep *k)
{
    if (!k)
        return;
    free(k->node);
    free(k->active);
    free(k->inactive);
    free(k->queue);
    free(k->deficient);
    free(k->is_target);
    free(k->queued);
    free(k->stamp);
    free(k->seen);
    free(k->link);
    free(k->raised);
    free(k->order);
    free(k);
}

static struct gcut__prf_keep *keep_alloc(const gcut_graph *g)
{
    size_t n = (size_t)g->n;
    struct gcut__prf_keep *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->node = gcut__big_alloc(n * sizeof *k->node);
    k->active = gcut__big_alloc((n + 1) * sizeof *k->active);
    k->inactive = gcut__big_alloc((n + 1) * sizeof *k->inactive);
    k->queue = gcut__big_alloc(n * sizeof *k->queue);
    k->deficient = malloc(n * sizeof *k->deficient);
    k->is_target = calloc(n, 1);
    k->queued = calloc(n, 1);
    k->stamp = calloc(n, sizeof *k->stamp);
    k->seen = malloc(n * sizeof *k->seen);
    k->link = malloc(n * sizeof *k->link);
    k->raised = calloc(n, 1);
    if (!k->node || !k->active || !k->inactive || !k->queue || !k->deficient || !k->is_target ||
        !k->queued || !k->stamp || !k->seen || !k->link || !k->raised) {
        gcut__prf_keep_free(k);
        return NULL;
    }
    memset(k->node, 0, n * sizeof *k->node);
    memset(k->active, 0xff, (n + 1) * sizeof *k->active);
    memset(k->inactive, 0xff, (n + 1) * sizeof *k->inactive);
    return k;
}

/* The state of a re-solve on the kept arrays. */
static void state_from_keep(prf_state *s, const gcut_graph *g, struct gcut__prf_keep *k)
{
    memset(s, 0, sizeof *s);
    s->n = g->n;
    s->first = g->res_first;
    s->head = g->res_head;
    s->rev = g->res_rev;
    s->res = g->res;
    s->node = k->node;
    s->active = k->active;
    s->inactive = k->inactive;
    s->queue = k->queue;
    s->dmax = k->dmax;
    s->amax = -1;
    s->target = g->sink;
    s->frozen = g->source;
    s->deficient = k->deficient;
    s->work_limit = 2 * (GR_ALPHA * (int64_t)g->n + 2 * (int64_t)g->m);
}

/* A node the repairs below look at, once each (stamped). */
static void see(struct gcut__prf_keep *k, int32_t *n_seen, int32_t v)
{
    if (k->stamp[v] != k->stamp_now) {
        k->stamp[v] = k->stamp_now;
        k->seen[(*n_seen)++] = v;
    }
}

/* Move v (not the sink, in an inactive bucket when its label is below n)
 * to label d, with its current arc at its first arc. */
static void set_label(prf_state *s, int32_t v, int32_t d)
{
    if (s->node[v].label < s->n)
        remove_inactive(s, v);
    s->node[v].label = d;
    s->node[v].cur = s->first[v];
    if (d < s->n)
        add_inactive(s, v);
}

/* The lowering's order: per label a list (its head in bucket[label]) of
 * entries ((next entry + 1) << 32 | node) in k->order; 0 where it cannot
 * grow. */
static int order_push(struct gcut__prf_keep *k, int32_t *bucket, int32_t label, int32_t v)
{
    if (k->order_count == k->order_room) {
        int64_t room = k->order_room ? 2 * k->order_room : 1024;
        int64_t *bigger =
            room <= INT32_MAX ? realloc(k->order, (size_t)room * sizeof *bigger) : NULL;
        if (!bigger)
            return 0;
        k->order = bigger;
        k->order_room = room;
    }
    k->order[k->order_count] = (int64_t)(bucket[label] + 1) << 32 | (uint32_t)v;
    bucket[label] = (int32_t)k->order_count++;
    return 1;
}

/* After a batch, from the labels the last re-solve left (exact then):
 * the update changed residuals and excesses only at the nodes it noted,
 * and listed the residual arcs that opened (gcut__prf_note). A new residual
 * arc u -> v may break validity (d(u) <= d(v) + 1): such labels are
 * lowered, and the lowering spreads backwards along residual arcs as far
 * as it breaks validity, like a breadth-first search from those arcs
 * alone.
 * Labels only fall, so they stay lower bounds of the distances; an arc
 * that the lowering makes admissible moves its tail's current arc back
 * to it (so that a node never relabels past an admissible arc, which the
 * gap test relies on). The nodes with excess and a label below n become
 * active. A lowering that scans as many arcs as the last global relabel
 * stops (a new shortcut can lower most of the graph: on genrmf a raised
 * arc between frames lowers thousands of labels) and returns 0, as does a
 * new deficit (a target at label 0 lowers all around it, and the flood
 * that follows is a global relabel's work anyway): the labels are then
 * left to a global relabel. Returns 1 when done. */
static int repair_labels(prf_state *s, gcut_graph *g, struct gcut__prf_keep *k)
{
    const int32_t n = g->n, src = g->source, snk = g->sink;
    const int32_t *first = s->first, *head = s->head, *rev = s->rev;
    int32_t *res = s->res;
    prf_node *node = s->node;
    int32_t n_seen = 0, new_deficits = 0;
    if (++k->stamp_now == 0) {
        memset(k->stamp, 0, (size_t)n * sizeof *k->stamp);
        k->stamp_now = 1;
    }
    /* The source's arcs that the batch raised, saturated (its label is n:
     * it must reach no target). */
    for (int32_t a = first[src]; a < first[src + 1]; a++) {
        int32_t r = res[a];
        if (r > 0) {
            res[a] = 0;
            res[rev[a]] += r;
            g->excess[head[a]] += r;
            see(k, &n_seen, head[a]);
        }
    }
    int64_t n_open = 0;
    for (int64_t i = 0; i < g->prf_touched_count; i++) {
        int32_t e = g->prf_touched[i];
        if (e < 0)
            n_open++;
        else if (e != src)
            see(k, &n_seen, e);
    }
    for (int32_t i = 0; i < n_seen; i++) {
        int32_t v = k->seen[i];
        node[v].excess = g->excess[v];
        if (v != snk && node[v].excess < 0 && !k->is_target[v]) {
            k->is_target[v] = 1;
            k->deficient[k->n_deficient++] = v;
            new_deficits = 1;
        }
    }
    s->n_deficient = k->n_deficient;
    if (new_deficits)
        return 0;
    s->scanned += n_seen + n_open;
    const int64_t limit = s->scanned + k->relabel_scans;
    int32_t *bucket = s->active; /* empty until the end: the order's lists */
    int32_t lo = n, hi = -1, ok = 1;
    k->order_count = 0;
    /* Only an arc whose residual grew from zero can break validity (the
     * others kept theirs), and only an opened arc or a lowered head can
     * make an arc admissible; so the opened arcs alone are checked, not
     * every arc of every noted node (on acyclic-dense that alone passed a
     * global relabel's scans). */
    for (int64_t i = 0; i < g->prf_touched_count && ok; i++) {
        int32_t e = g->prf_touched[i];
        if (e >= 0)
            continue;
        int32_t p = -1 - e, x = head[rev[p]];
        prf_node *nx = &node[x];
        if (res[p] <= 0 || x == snk || x == src)
            continue;
        int32_t d = nx->excess < 0 ? 0 : node[head[p]].label + 1;
        if (d == nx->label && p < nx->cur)
            nx->cur = p;
        if (d >= nx->label)
            continue;
        set_label(s, x, d);
        nx->cur = p;
        see(k, &n_seen, x); /* to become active below */
        if (!order_push(k, bucket, d, x)) {
            ok = 0;
            break;
        }
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    /* In the order of the new labels, so that each node falls once (the
     * lists are emptied to the end even when the lowering stops). */
    for (int32_t l = lo; l <= hi && l < n; l++) {
        while (bucket[l] >= 0) {
            int64_t e = k->order[bucket[l]];
            int32_t x = (int32_t)(e & 0xffffffff);
            bucket[l] = (int32_t)(e >> 32) - 1;
            if (!ok || node[x].label != l)
                continue; /* stopped, or fell further since */
            if (s->scanned > limit) {
                ok = 0;
                continue;
            }
            s->scanned += first[x + 1] - first[x];
            for (int32_t a = first[x]; a < first[x + 1]; a++) {
                int32_t w = head[a], b = rev[a]; /* b: w -> x */
                if (res[b] <= 0 || w == src || w == snk)
                    continue;
                prf_node *nw = &node[w];
                if (nw->label > l + 1) {
                    if (nw->label == n)
                        g->side[w] = 0;
                    set_label(s, w, l + 1);
                    nw->cur = b;
                    if (nw->excess > 0)
                        see(k, &n_seen, w); /* to become active below */
                    if (!order_push(k, bucket, l + 1, w)) {
                        ok = 0;
                        break;
                    }
                    hi = l + 1 > hi ? l + 1 : hi;
                } else if (nw->label == l + 1 && b < nw->cur) {
                    nw->cur = b;
                }
            }
        }
    }
    if (!ok)
        return 0;
    for (int32_t i = 0; i < n_seen; i++) {
        int32_t v = k->seen[i];
        if (v != snk && node[v].excess > 0 && node[v].label < n) {
            remove_inactive(s, v);
            add_active(s, v);
        }
    }
    k->n_seen = n_seen;
    return 1;
}

/* Exact labels again after a re-solve from kept labels, without a global
 * relabel: a node's label is exact when it has a residual arc to a node
 * one label below whose label is exact (its support), down to a target.
 * The labels were exact before the batch; since, only the nodes listed
 * in s->cand changed a label or lost a residual arc, so only they, and
 * the nodes one label above a relabelled one (which may have leant on
 * it), can have lost their support. These are checked in the order of
 * their labels (the Even-Shiloach tree's repair): one without support is
 * raised to one above its lowest residual neighbour (validity holds) and
 * checked again there, and the nodes one label above its old one are
 * checked in turn; one that reaches n leaves the source side's complement.
 * Labels only rise, to at most n. Past the arcs of one global relabel it
 * stops and returns 0 (the caller relabels all); else the cut side of
 * every changed node follows its label and it returns 1. */
static int settle_labels(prf_state *s, gcut_graph *g, struct gcut__prf_keep *k)
{
    const int32_t n = g->n, src = g->source, snk = g->sink;
    const int32_t *first = s->first, *head = s->head, *rev = s->rev, *res = s->res;
    prf_node *node = s->node;
    int32_t *bucket = s->active; /* empty after the run: the order's buckets */
    int32_t *link = k->link;
    uint8_t *in = k->queued, *side = g->side;
    int32_t lo = n, hi = -1;
    const int64_t limit = s->scanned + k->relabel_scans / 2;
#define SETTLE_PUSH(v)                                                                             \
    do {                                                                                           \
        int32_t v_ = (v), l_ = node[v_].label;                                                     \
        if (!in[v_]) {                                                                             \
            in[v_] = 1;                                                                            \
            link[v_] = bucket[l_];                                                                 \
            bucket[l_] = v_;                                                                       \
            lo = l_ < lo ? l_ : lo;                                                                \
            hi = l_ > hi ? l_ : hi;                                                                \
        }                                                                                          \
    } while (0)
    for (int32_t i = 0; i < s->n_cand; i++) {
        int32_t c = s->cand[i];
        int raised = k->raised[c];
        k->raised[c] = 0;
        if (c == snk || c == src || k->is_target[c])
            continue;
        if (node[c].label < n)
            SETTLE_PUSH(c);
        if (!raised)
            continue;
        /* (Relabelled to n too: the nodes that leant on it stay below.) */
        s->scanned += first[c + 1] - first[c];
        for (int32_t a = first[c]; a < first[c + 1]; a++) {
            int32_t w = head[a];
            if (res[rev[a]] > 0 && w != src && w != snk && node[w].label <= node[c].label &&
                node[w].label < n && !k->is_target[w])
                SETTLE_PUSH(w);
        }
    }
    int ok = 1;
    for (int32_t l = lo; l <= hi && l < n; l++) {
        if (ok && l >= 2 && s->inactive[l - 1] < 0 && l <= s->dmax) {
            /* No node is left on level l - 1 (the nodes below are exact):
             * none above can reach a target. */
            for (int32_t d = l; d <= s->dmax; d++) {
                for (int32_t v = s->inactive[d]; v >= 0; v = node[v].bnext) {
                    node[v].label = n;
                    side[v] = 1;
                }
                s->inactive[d] = -1;
            }
            s->dmax = l - 1;
        }
        while (bucket[l] >= 0) {
            int32_t y = bucket[l];
            bucket[l] = link[y];
            in[y] = 0;
            if (!ok || node[y].label != l)
                continue; /* emptying the buckets, or above a gap */
            if (s->scanned > limit) {
                ok = 0;
                continue;
            }
            int32_t best = n;
            s->scanned += first[y + 1] - first[y];
            for (int32_t a = first[y]; a < first[y + 1]; a++)
                if (res[a] > 0 && node[head[a]].label < best) {
                    best = node[head[a]].label;
                    if (best == l - 1)
                        break;
                }
            if (best == l - 1)
                continue; /* supported */
            if (best < l - 1) {
                ok = 0; /* not valid labels: never after a run, but a relabel all is safe */
                continue;
            }
            int32_t d = best + 1 < n ? best + 1 : n;
            remove_inactive(s, y);
            node[y].label = d;
            node[y].cur = first[y];
            if (d < n) {
                add_inactive(s, y);
                SETTLE_PUSH(y);
            } else {
                side[y] = 1;
            }
            s->scanned += first[y + 1] - first[y];
            for (int32_t a = first[y]; a < first[y + 1]; a++) {
                int32_t w = head[a];
                if (res[rev[a]] > 0 && node[w].label == l + 1 && w != src && w != snk &&
                    !k->is_target[w])
                    SETTLE_PUSH(w);
            }
        }
    }
#undef SETTLE_PUSH
    if (!ok)
        return 0;
    for (int32_t i = 0; i < s->n_cand; i++)
        side[s->cand[i]] = node[s->cand[i]].label == n;
    side[snk] = 0;
    return 1;
}

/* The end of a re-solve: exact labels (a global relabel, kept for the
 * next re-solve), the cut side from them (label n: no residual path to
 * the sink or a deficient node), the excesses into the graph's warm
 * state, the value. */
static gcut_status finish_resolve(prf_state *s, gcut_graph *g, struct gcut__prf_keep *k,
                                  int64_t *iterations)
{
    const int32_t n = g->n;
    int32_t kept = 0;
    for (int32_t i = 0; i < k->n_deficient; i++) {
        int32_t v = k->deficient[i];
        if (s->node[v].excess < 0) {
            k->deficient[kept++] = v;
        } else {
            k->is_target[v] = 0;
            note_changed(s, v); /* no longer a target: its label 0 is too low */
        }
    }
    k->n_deficient = s->n_deficient = kept;
    int settled = 0;
    /* (Many relabels: the labels moved too far for a repair to pay.) */
    if (s->cand && s->global_updates == 0 &&
        s->relabels * (2 * (int64_t)g->m / (g->n ? g->n : 1) + 1) < k->relabel_scans / 2) {
        settled = settle_labels(s, g, k);
    } else if (s->cand) {
        /* (A global relabel in the run changed labels without listing
         * them.) */
        for (int32_t i = 0; i < s->n_cand; i++)
            k->raised[s->cand[i]] = 0;
    }
    if (!settled) {
        int64_t before = s->scanned;
        global_update(s);
        k->relabel_scans = s->scanned - before;
        for (int32_t v = 0; v < n; v++)
            g->side[v] = s->node[v].label == n;
    }
    int64_t value = s->node[g->sink].excess;
    for (int32_t i = 0; i < kept; i++)
        value += s->node[k->deficient[i]].excess;
    k->dmax = s->dmax;
    g->flow_value = value;
    g->is_flow = 0;
    g->flow_stored = 0;
    *iterations = s->relabels;
    gcut_status st = GCUT_OK;
    if (settled) {
        /* Only the listed nodes, the sink and the deficient ones changed
         * their excess (a node that receives a push turns active and is
         * listed when discharged; the others are deficient). */
        for (int32_t i = 0; i < s->n_cand; i++)
            g->excess[s->cand[i]] = s->node[s->cand[i]].excess;
        for (int32_t i = 0; i < kept; i++)
            g->excess[k->deficient[i]] = s->node[k->deficient[i]].excess;
        g->excess[g->sink] = s->node[g->sink].excess;
        g->excess[g->source] = 0;
        g->warm = 1;
    } else {
        st = keep_excess(g, s);
    }
    if (!st) {
        g->prf_labels = 1;
        g->prf_touched_count = 0;
        /* A fresh stamp for the next batch's notes (the repair takes the
         * next one). */
        if (++k->stamp_now == 0) {
            memset(k->stamp, 0, (size_t)n * sizeof *k->stamp);
            k->stamp_now = 1;
        }
        k->note_mark = k->stamp_now;
    }
    return st;
}

gcut_status gcut__prf_resolve(gcut_graph *g, int64_t *iterations)
{
    /* From zero after many changed arcs (the update skipped its repairs
     * then): continuing cannot pay. */
    int64_t limit = resolve_limit(g);
    if (limit > 0 && g->changed_arcs > (int64_t)g->m / GCUT__LARGE_BATCH) {
        g->warm = 0;
        return gcut__prf_solve(g, iterations);
    }
    int labelled = g->prf_labels && g->prf_keep;
    g->prf_labels = 0; /* until the run below ends cleanly */
    g->warm = 0;
    if (!g->prf_keep && !(g->prf_keep = keep_alloc(g)))
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "prf: out of memory for %d nodes", g->n);
    struct gcut__prf_keep *k = g->prf_keep;
    prf_state s;
    state_from_keep(&s, g, k);
    s.give_up = limit;
    g->prf_repair_work = 0;
    const int32_t src = g->source, snk = g->sink;
    if (labelled && (labelled = repair_labels(&s, g, k))) {
        s.cand = k->seen;
        s.n_cand = k->n_seen;
        s.stamp = k->stamp;
        s.mark = k->stamp_now;
        s.raised = k->raised;
    } else {
        /* Labels from a global relabel in run() (buckets emptied first:
         * a run that stopped early leaves some); the deficient nodes from
         * the excesses. */
        memset(k->active, 0xff, ((size_t)g->n + 1) * sizeof *k->active);
        memset(k->inactive, 0xff, ((size_t)g->n + 1) * sizeof *k->inactive);
        s.dmax = 0;
        for (int32_t i = 0; i < k->n_deficient; i++)
            k->is_target[k->deficient[i]] = 0;
        k->n_deficient = 0;
        for (int32_t v = 0; v < g->n; v++) {
            s.node[v].excess = v == src ? 0 : g->excess[v];
            if (v != src && v != snk && g->excess[v] < 0) {
                k->deficient[k->n_deficient++] = v;
                k->is_target[v] = 1;
            }
        }
        s.n_deficient = k->n_deficient;
        /* The source's residual arcs saturated again (raised arcs out of
         * it, flow that phase 2 returned), so that it reaches no target. */
        for (int32_t a = s.first[src]; a < s.first[src + 1]; a++) {
            int32_t r = s.res[a];
            if (r > 0) {
                s.res[a] = 0;
                s.res[s.rev[a]] += r;
                s.node[s.head[a]].excess += r;
            }
        }
    }
    gcut_status st = run(&s, g->ctx, labelled);
    if (!st && s.gave_up)
        return gcut__prf_solve(g, iterations);
    if (st) {
        g->prf_touched_count = 0;
        return st;
    }
    return finish_resolve(&s, g, k, iterations);
}

gcut_status gcut__prf_cancel_deficits(gcut_graph *g)
{
    if (!g->warm)
        return GCUT_OK;
    const int32_t src = g->source, snk = g->sink;
    int64_t total = 0;
    for (int32_t v = 0; v < g->n; v++)
        if (v != src && v != snk && g->excess[v] < 0)
            total -= g->excess[v];
    if (total == 0)
        return GCUT_OK;
    g->bk_trees = 0; /* the residuals move under BK's trees */

    /* Phase 1 on the mirrored residual network (each arc carrying its
     * opposite's residual): there a deficit is an excess, and pushing it
     * towards the sink is pushing flow from the sink back to the deficient
     * node in the real network. */
    gcut__resnet rn, mirror;
    gcut__resnet_view(g, &rn);
    size_t arcs = 2 * (size_t)g->m;
    int32_t *res = malloc((arcs ? arcs : 1) * sizeof *res);
    if (!res)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "prf: out of memory cancelling deficits");
    for (size_t a = 0; a < arcs; a++)
        res[a] = rn.res[rn.rev[a]];
    mirror = rn;
    mirror.res = res;
    prf_state s;
    gcut_status st = state_init(&s, g, &mirror);
    if (st) {
        free(res);
        return st;
    }
    for (int32_t v = 0; v < g->n; v++)
        s.node[v].excess = v != src && v != snk && g->excess[v] < 0 ? -g->excess[v] : 0;
    s.target = snk;
    s.frozen = src;
    st = run(&s, g->ctx, 0);
    for (int32_t v = 0; !st && v < g->n; v++)
        if (v != snk && s.node[v].excess != 0)
            st = gcut__fail(g->ctx, GCUT_E_STATE,
                            "prf: node %d kept a deficit of %lld that no flow path into the "
                            "sink could carry back (the state was not valid)",
                            v + 1, (long long)s.node[v].excess);
    if (!st) {
        for (size_t a = 0; a < arcs; a++)
            rn.res[a] = res[rn.rev[a]];
        for (int32_t v = 0; v < g->n; v++)
            if (v != src && v != snk && g->excess[v] < 0)
                g->excess[v] = 0;
        g->excess[snk] -= total;
        g->flow_stored = 0;
    }
    state_free(&s);
    free(res);
    return st;
}

gcut_status gcut__prf_return_excess(gcut_graph *g)
{
    gcut__resnet rn;
    prf_state s;
    /* The graph's residuals are still phase 1's: only a new solve changes
     * them (a re-solve continues from them). */
    gcut_status st = gcut__prf_cancel_deficits(g);
    if (st)
        return st;
    g->bk_trees = 0; /* the residuals move under BK's trees */
    gcut__resnet_view(g, &rn);
    if (!g->flow_stored)
        gcut__resnet_store_flow(g, &rn, g->flow);
    if ((st = state_init(&s, g, &rn))) {
        gcut__resnet_free(&rn);
        return st;
    }
    for (int32_t a = 0; a < g->m; a++) {
        s.node[g->out_head[a]].excess += g->flow[a];
        s.node[g->arc_tail[a]].excess -= g->flow[a];
    }
    s.node[g->source].excess = s.node[g->sink].excess = 0;
    s.target = g->source;
    s.frozen = g->sink;
    st = run(&s, g->ctx, 0);
    for (int32_t v = 0; !st && v < g->n; v++)
        if (v != g->source && v != g->sink && s.node[v].excess != 0)
            st = gcut__fail(g->ctx, GCUT_E_STATE,
                            "prf: node %d kept an excess of %lld after returning flow to the "
                            "source (the preflow was not valid)",
                            v + 1, (long long)s.node[v].excess);
    if (!st) {
        gcut__resnet_store_flow(g, &rn, g->flow);
        g->is_flow = 1;
        g->flow_stored = 1;
        if (g->warm)
            for (int32_t v = 0; v < g->n; v++)
                g->excess[v] = v == g->sink ? g->flow_value : 0;
    }
    state_free(&s);
    gcut__resnet_free(&rn);
    return st;
}
