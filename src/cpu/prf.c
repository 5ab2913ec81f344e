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
 */
#include <stdlib.h>
#include <string.h>

#include "graph/csr.h"

/* Global relabel when the relabel work since the last one exceeds
 * 2 (GR_ALPHA n + 2m) (work: GR_BETA per relabel plus the arcs it scans),
 * the weights of Cherkassky and Goldberg's implementation. */
#define GR_ALPHA 6
#define GR_BETA 12

typedef struct prf_state {
    int32_t n;
    const int32_t *first, *head, *rev;
    int32_t *res;
    int64_t *excess;
    int32_t *label; /* n = out of the computation (cannot reach the target) */
    int32_t *cur;   /* current arc */
    int32_t *bnext, *bprev;
    int32_t *active;   /* active[d]: stack of active nodes with label d */
    int32_t *inactive; /* inactive[d]: doubly linked list of the others */
    int32_t *queue;
    int32_t amax, dmax; /* highest label with an active node / with any node */
    int32_t target, frozen;
    int64_t work, work_limit;
    int64_t relabels, global_updates;
} prf_state;

static inline void add_active(prf_state *s, int32_t v)
{
    int32_t d = s->label[v];
    s->bnext[v] = s->active[d];
    s->active[d] = v;
    if (d > s->amax)
        s->amax = d;
    if (d > s->dmax)
        s->dmax = d;
}

static inline void add_inactive(prf_state *s, int32_t v)
{
    int32_t d = s->label[v];
    int32_t first = s->inactive[d];
    s->bnext[v] = first;
    s->bprev[v] = -1;
    if (first >= 0)
        s->bprev[first] = v;
    s->inactive[d] = v;
    if (d > s->dmax)
        s->dmax = d;
}

static inline void remove_inactive(prf_state *s, int32_t v)
{
    int32_t next = s->bnext[v], prev = s->bprev[v];
    if (prev >= 0)
        s->bnext[prev] = next;
    else
        s->inactive[s->label[v]] = next;
    if (next >= 0)
        s->bprev[next] = prev;
}

/* Exact distances to the target in the residual graph; buckets rebuilt. */
static void global_update(prf_state *s)
{
    const int32_t n = s->n;
    for (int32_t d = 0; d <= s->dmax && d < n; d++)
        s->active[d] = s->inactive[d] = -1;
    for (int32_t v = 0; v < n; v++)
        s->label[v] = n;
    s->amax = s->dmax = 0;
    s->label[s->target] = 0;
    int32_t qh = 0, qt = 0;
    s->queue[qt++] = s->target;
    while (qh < qt) {
        int32_t w = s->queue[qh++];
        int32_t dnext = s->label[w] + 1;
        for (int32_t a = s->first[w]; a < s->first[w + 1]; a++) {
            int32_t x = s->head[a];
            if (s->label[x] == n && x != s->frozen && s->res[s->rev[a]] > 0) {
                s->label[x] = dnext;
                s->cur[x] = s->first[x];
                if (s->excess[x] > 0)
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

/* No node is left with label k: nodes above it cannot reach the target. */
static void gap(prf_state *s, int32_t k)
{
    for (int32_t d = k + 1; d <= s->dmax; d++) {
        for (int32_t v = s->active[d]; v >= 0; v = s->bnext[v])
            s->label[v] = s->n;
        for (int32_t v = s->inactive[d]; v >= 0; v = s->bnext[v])
            s->label[v] = s->n;
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
    int32_t *res = s->res, *label = s->label;
    int64_t *excess = s->excess;
    const int32_t begin = s->first[v], end = s->first[v + 1];
    int32_t d = label[v];

    for (;;) {
        for (int32_t a = s->cur[v]; a < end; a++) {
            int32_t r = res[a];
            if (r <= 0)
                continue;
            int32_t w = head[a];
            if (label[w] != d - 1)
                continue;
            int32_t delta = excess[v] < r ? (int32_t)excess[v] : r;
            res[a] = r - delta;
            res[rev[a]] += delta;
            if (excess[w] == 0 && w != s->target) {
                remove_inactive(s, w);
                add_active(s, w);
            }
            excess[w] += delta;
            excess[v] -= delta;
            if (excess[v] == 0) {
                s->cur[v] = a;
                add_inactive(s, v);
                return;
            }
        }

        /* Relabel. If v was alone on its level, that level is a gap. */
        if (s->active[d] < 0 && s->inactive[d] < 0) {
            gap(s, d);
            label[v] = n;
            return;
        }
        int32_t best = n, best_arc = begin;
        for (int32_t a = begin; a < end; a++) {
            if (res[a] > 0 && label[head[a]] < best) {
                best = label[head[a]];
                best_arc = a;
            }
        }
        s->work += GR_BETA + (end - begin);
        s->relabels++;
        d = best + 1;
        if (d >= n) {
            label[v] = n;
            return;
        }
        label[v] = d;
        s->cur[v] = best_arc;
        if (d > s->dmax)
            s->dmax = d;
    }
}

static gcut_status run(prf_state *s, gcut_context *ctx)
{
    global_update(s);
    int64_t steps = 0;
    while (s->amax > 0) {
        int32_t v = s->active[s->amax];
        if (v < 0) {
            s->amax--;
            continue;
        }
        s->active[s->amax] = s->bnext[v];
        discharge(s, v);
        if (s->work > s->work_limit)
            global_update(s);
        if ((++steps & 0xfffff) == 0 && gcut__progress(ctx, "maxflow", -1.0))
            return gcut__fail(ctx, GCUT_E_STATE, "prf: the solve was stopped by the caller");
    }
    return GCUT_OK;
}

static void state_free(prf_state *s)
{
    free(s->excess);
    free(s->label);
    free(s->cur);
    free(s->bnext);
    free(s->bprev);
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
    s->excess = calloc(n, sizeof *s->excess);
    s->label = malloc(n * sizeof *s->label);
    s->cur = malloc(n * sizeof *s->cur);
    s->bnext = malloc(n * sizeof *s->bnext);
    s->bprev = malloc(n * sizeof *s->bprev);
    s->active = malloc((n + 1) * sizeof *s->active);
    s->inactive = malloc((n + 1) * sizeof *s->inactive);
    s->queue = malloc(n * sizeof *s->queue);
    if (!s->excess || !s->label || !s->cur || !s->bnext || !s->bprev || !s->active ||
        !s->inactive || !s->queue) {
        state_free(s);
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "prf: out of memory for %d nodes", g->n);
    }
    for (size_t d = 0; d <= n; d++)
        s->active[d] = s->inactive[d] = -1;
    s->dmax = s->n - 1;
    /* hi_pr's update frequency 0.5 over ALPHA n + (its residual arcs, 2m). */
    s->work_limit = 2 * (GR_ALPHA * (int64_t)g->n + 2 * (int64_t)g->m);
    return GCUT_OK;
}

/* Vision graphs give most nodes an arc from the source and one to the
 * sink: send what v just received straight on along s -> v -> t (a
 * shortest augmenting path, as BK's add_tweights cancels it), so that v
 * never needs a discharge. The forward arcs of v are sorted by head. */
static void pass_to_sink(prf_state *s, const gcut_graph *g, int32_t v)
{
    if (v == g->sink)
        return;
    int32_t lo = g->out_start[v], hi = g->out_start[v + 1] - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (g->out_head[mid] < g->sink)
            lo = mid + 1;
        else if (g->out_head[mid] > g->sink)
            hi = mid - 1;
        else {
            int32_t a = s->first[v] + (mid - g->out_start[v]);
            int32_t r = s->res[a];
            int32_t delta = s->excess[v] < r ? (int32_t)s->excess[v] : r;
            s->res[a] -= delta;
            s->res[s->rev[a]] += delta;
            s->excess[v] -= delta;
            s->excess[g->sink] += delta;
            return;
        }
    }
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
    s.target = g->sink;
    s.frozen = g->source;
    for (int32_t a = rn.first[g->source]; a < rn.first[g->source + 1]; a++) {
        int32_t r = rn.res[a];
        if (r > 0) {
            rn.res[a] = 0;
            rn.res[rn.rev[a]] += r;
            s.excess[rn.head[a]] += r;
            pass_to_sink(&s, g, rn.head[a]);
        }
    }
    st = run(&s, g->ctx);
    if (!st) {
        /* The cut: exact distances once more; label n = cannot reach the sink. */
        global_update(&s);
        for (int32_t v = 0; v < g->n; v++)
            g->side[v] = s.label[v] >= g->n;
        g->flow_value = s.excess[g->sink];
        g->is_flow = 0;
        g->flow_stored = 0; /* it stays in res until asked for */
        *iterations = s.relabels;
    }
    state_free(&s);
    gcut__resnet_free(&rn);
    return st;
}

gcut_status gcut__prf_return_excess(gcut_graph *g)
{
    gcut__resnet rn;
    prf_state s;
    /* The graph's residuals are still phase 1's: only a new solve changes
     * them, and that starts over. */
    gcut__resnet_view(g, &rn);
    if (!g->flow_stored)
        gcut__resnet_store_flow(g, &rn, g->flow);
    gcut_status st;
    if ((st = state_init(&s, g, &rn))) {
        gcut__resnet_free(&rn);
        return st;
    }
    for (int32_t a = 0; a < g->m; a++) {
        s.excess[g->out_head[a]] += g->flow[a];
        s.excess[g->arc_tail[a]] -= g->flow[a];
    }
    s.excess[g->source] = s.excess[g->sink] = 0;
    s.target = g->source;
    s.frozen = g->sink;
    st = run(&s, g->ctx);
    for (int32_t v = 0; !st && v < g->n; v++)
        if (v != g->source && v != g->sink && s.excess[v] != 0)
            st = gcut__fail(g->ctx, GCUT_E_STATE,
                            "prf: node %d kept an excess of %lld after returning flow to the "
                            "source (the preflow was not valid)",
                            v + 1, (long long)s.excess[v]);
    if (!st) {
        gcut__resnet_store_flow(g, &rn, g->flow);
        g->is_flow = 1;
        g->flow_stored = 1;
    }
    state_free(&s);
    gcut__resnet_free(&rn);
    return st;
}
