/* Dynamic graphs: a batch of capacity changes applied to a solved graph so
 * that the next solve continues from the last flow instead of from zero
 * (S. Kannappan, A. Kumar, R. Nasre, "Scalable Maxflow Processing for
 * Dynamic Graphs", section 4).
 *
 * The residuals follow each change at once: a raised or lowered capacity
 * moves the arc's forward residual; a capacity below the arc's flow cuts
 * the flow back to it, which leaves the arc's tail an excess and its head
 * a deficit of the difference. The solver then starts from that
 * pseudo-flow (gcut__prf_resolve). Arcs that do not exist are refused, or
 * with GCUT_GRAPH_UPDATE_ADD joined to the graph first (a rebuild of the
 * CSR that carries every arc's flow over). */
#include <stdlib.h>
#include <string.h>

#include "graph/csr.h"

int32_t gcut__graph_find_arc(const gcut_graph *g, int32_t tail, int32_t head)
{
    int32_t lo = g->out_start[tail], hi = g->out_start[tail + 1];
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (g->out_head[mid] < head)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->out_start[tail + 1] && g->out_head[lo] == head ? lo : -1;
}

gcut_status gcut_graph_find_arc(const gcut_graph *g, int32_t tail, int32_t head, int32_t *arc)
{
    if (!g || !arc)
        return GCUT_E_INVALID;
    if (tail < 0 || tail >= g->n || head < 0 || head >= g->n)
        return gcut__fail(g->ctx, GCUT_E_RANGE, "graph: arc %d -> %d has a node outside 0..%d",
                          tail, head, g->n - 1);
    *arc = gcut__graph_find_arc(g, tail, head);
    return *arc >= 0 ? GCUT_OK
                     : gcut__fail(g->ctx, GCUT_E_RANGE, "graph: no arc %d -> %d", tail, head);
}

gcut_status gcut__graph_make_warm(gcut_graph *g)
{
    /* (After a GPU warm re-solve the flow stays on the device: the CPU's
     * state is left cold, and the update only notes the arcs for it.) */
    if (g->warm || !g->solved || g->gpu_flow)
        return GCUT_OK;
    /* The solver kept its flow (or preflow) in g->flow: the residuals and
     * excesses follow from it. */
    if (!g->flow_stored)
        return gcut__fail(g->ctx, GCUT_E_STATE, "graph: the last solve kept no flow");
    if (!g->excess && !(g->excess = malloc((size_t)g->n * sizeof *g->excess)))
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory for %d excesses", g->n);
    gcut__resnet rn;
    gcut_status st = gcut__resnet_build(g, g->flow, &rn);
    if (st)
        return st;
    memset(g->excess, 0, (size_t)g->n * sizeof *g->excess);
    for (int32_t a = 0; a < g->m; a++) {
        g->excess[g->out_head[a]] += g->flow[a];
        g->excess[g->arc_tail[a]] -= g->flow[a];
    }
    g->excess[g->source] = 0;
    g->warm = 1;
    return GCUT_OK;
}

/* Rebuild the graph with the arcs `add` (k pairs, capacity 0 for now),
 * carrying every existing arc's flow (when warm) to its new index. */
static gcut_status add_arcs(gcut_graph *g, int64_t k, const int32_t *add_tail,
                            const int32_t *add_head)
{
    int64_t m = (int64_t)g->m + k;
    int32_t *tail = malloc((size_t)m * sizeof *tail);
    int32_t *head = malloc((size_t)m * sizeof *head);
    int32_t *cap = malloc((size_t)m * sizeof *cap);
    int32_t *flow = NULL;
    gcut_graph *ng = NULL;
    gcut_status st = GCUT_OK;
    if (!tail || !head || !cap) {
        st = gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory adding %lld arcs",
                        (long long)k);
        goto done;
    }
    memcpy(tail, g->arc_tail, (size_t)g->m * sizeof *tail);
    memcpy(head, g->out_head, (size_t)g->m * sizeof *head);
    memcpy(cap, g->out_cap, (size_t)g->m * sizeof *cap);
    memcpy(tail + g->m, add_tail, (size_t)k * sizeof *tail);
    memcpy(head + g->m, add_head, (size_t)k * sizeof *head);
    memset(cap + g->m, 0, (size_t)k * sizeof *cap);
    /* Repeated pairs among the new arcs sum to 0 and merge. */
    if ((st = gcut__graph_build(g->ctx, g->n, m, tail, head, cap, g->source, g->sink,
                                "graph update", &ng)))
        goto done;
    if (g->warm) {
        if (!(flow = calloc((size_t)ng->m, sizeof *flow))) {
            st = gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory adding %lld arcs",
                            (long long)k);
            goto done;
        }
        gcut__resnet rn;
        gcut__resnet_view(g, &rn);
        for (int32_t u = 0; u < g->n; u++)
            for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
                int32_t pos = g->res_first[u] + (a - g->out_start[u]);
                flow[gcut__graph_find_arc(ng, u, g->out_head[a])] = g->out_cap[a] - rn.res[pos];
            }
    }
    /* The new topology moves into g; the old one leaves with ng (and BK's
     * trees, which name residual positions, with it). */
    g->bk_trees = 0;
    gcut_graph old = *g;
    g->m = ng->m;
    g->out_start = ng->out_start, ng->out_start = old.out_start;
    g->out_head = ng->out_head, ng->out_head = old.out_head;
    g->out_cap = ng->out_cap, ng->out_cap = old.out_cap;
    g->arc_tail = ng->arc_tail, ng->arc_tail = old.arc_tail;
    g->in_start = ng->in_start, ng->in_start = old.in_start;
    g->in_tail = ng->in_tail, ng->in_tail = old.in_tail;
    g->in_arc = ng->in_arc, ng->in_arc = old.in_arc;
    g->res_first = ng->res_first, ng->res_first = old.res_first;
    g->res_head = ng->res_head, ng->res_head = old.res_head;
    g->res_rev = ng->res_rev, ng->res_rev = old.res_rev;
    g->res = ng->res, ng->res = old.res;
    g->res_fresh = ng->res_fresh;
    g->stats.arcs = ng->m;
    g->stats.arcs_in += k;
    /* The solution arrays are sized by the old arc count. */
    free(g->flow);
    g->flow = NULL;
    g->flow_stored = 0;
    if (g->warm) {
        gcut__resnet rn;
        st = gcut__resnet_build(g, flow, &rn);
    }
done:
    free(tail);
    free(head);
    free(cap);
    free(flow);
    gcut_graph_destroy(ng);
    return st;
}

/* Add `by` to residual arc p. An arc that opens (from no residual) is
 * noted for prf's kept labels, in their list as -1 - p beside the nodes:
 * only such an arc can break their validity (one that only grows was
 * valid already), and noting it once keeps the list short where repeated
 * paths share arcs. */
static void grow_residual(gcut_graph *g, int32_t p, int32_t by)
{
    if (g->res[p] <= 0 && by > 0)
        gcut__prf_note(g, -1 - p);
    g->res[p] += by;
}

/* Note node v for the next BK re-solve's tree repair (without room the
 * trees are given up: that solve grows them anew) and for prf's kept
 * labels. */
static void note_dirty(gcut_graph *g, int32_t v)
{
    gcut__prf_note(g, v);
    if (!g->bk_trees)
        return;
    if (g->dirty_count == g->dirty_room) {
        int64_t room = g->dirty_room ? 2 * g->dirty_room : 256;
        int32_t *bigger = realloc(g->dirty, (size_t)room * sizeof *bigger);
        if (!bigger) {
            g->bk_trees = 0;
            return;
        }
        g->dirty = bigger;
        g->dirty_room = room;
    }
    g->dirty[g->dirty_count++] = v;
}

/* Note arc a for the next GPU re-solve, which sends the device only the
 * arcs listed; without room the device state is given up (that solve
 * starts from zero). */
static void note_gpu(gcut_graph *g, int32_t a)
{
    if (!g->gpu_warm)
        return;
    if (g->gpu_pending_count == g->gpu_pending_room) {
        int64_t room = g->gpu_pending_room ? 2 * g->gpu_pending_room : 256;
        int32_t *bigger = realloc(g->gpu_pending, (size_t)room * sizeof *bigger);
        if (!bigger) {
            g->gpu_warm = 0;
            return;
        }
        g->gpu_pending = bigger;
        g->gpu_pending_room = room;
    }
    g->gpu_pending[g->gpu_pending_count++] = a;
}

/* Set arc a's capacity to c, keeping the warm pseudo-flow within it. */
static void set_capacity(gcut_graph *g, int32_t a, int32_t c)
{
    note_dirty(g, g->arc_tail[a]);
    note_dirty(g, g->out_head[a]);
    note_gpu(g, a);
    if (g->warm) {
        int32_t u = g->arc_tail[a];
        int32_t p = g->res_first[u] + (a - g->out_start[u]);
        int32_t q = g->res_rev[p];
        int32_t f = g->res[q]; /* the arc's flow */
        if (f <= c) {
            grow_residual(g, p, c - f - g->res[p]);
        } else {
            /* Cut back to the new capacity: the tail keeps what it can no
             * longer send, the head misses it. */
            g->res[p] = 0;
            g->res[q] = c;
            g->excess[u] += f - c;
            g->excess[g->out_head[a]] -= f - c;
        }
    }
    g->out_cap[a] = c;
}

/* The arcs a batch's repairs (detours, pulls, walks, in this order) may
 * scan together: a quarter of the last prf solve from zero's scans, or the
 * graph's size without one. What they leave is the re-solve's, whose own
 * limit is what remains of a solve from zero (gcut__prf_resolve). */
static int64_t repair_budget(const gcut_graph *g)
{
    return g->prf_fresh_work > 0 ? g->prf_fresh_work / 4 : (int64_t)g->n + g->m;
}

/* Residual arcs one detour search may scan: enough for a way around a
 * lowered arc through its neighbourhood, little beside a re-solve. */
#define DETOUR_SCANS 65536

/* Send m along the path's arcs (positions in path[0..len)). */
static void send_along(gcut_graph *g, const int32_t *path, int32_t len, int64_t m)
{
    for (int32_t i = 0; i < len; i++) {
        g->res[path[i]] -= (int32_t)m;
        grow_residual(g, g->res_rev[path[i]], (int32_t)m);
        note_dirty(g, g->res_head[path[i]]);
    }
}

/* A batch's cut-backs leave pairs of an excess (the tail) and a deficit
 * (the head). Where a short residual path joins an excess to a deficit,
 * send the flow along it now: the value is kept and the re-solve finds
 * nothing left to do there (left to it, a few such pairs cost genrmf up to
 * half a solve from zero: the excess crosses a frame one saturated arc at
 * a time, relabelling the frame behind each). Each pair is searched from
 * both ends at once, inside its side of the last cut: forwards from the
 * excess along residual arcs, backwards from the deficit, one node at a
 * time from the smaller frontier, until they meet, or the forward search
 * finds any deficit, or the backward one any excess. A search from one
 * end grows with the degree to the power of the path's length (on
 * Washington RLG, batches of 0.1 % of the arcs lowered spent 3-8 ms in
 * them); two halves meet after about the square root of that. Bounded to
 * DETOUR_SCANS arcs a search, four searches a pair; what they cannot
 * settle stays for the re-solve. `seen` holds n stamps (a forward mark is
 * even, a backward one odd), `queue` n entries (the forward queue from
 * the front, the backward one from the back), `via` n entries (the arc
 * into a forward node, out of a backward one) and `path` n entries. */
static void settle_detours(gcut_graph *g, const int32_t *tails, const int32_t *heads,
                           int64_t count, const uint8_t *side, int32_t *seen, int32_t *queue,
                           int32_t *via, int32_t *path, int32_t *stamp_io, int64_t *budget_io)
{
    const int32_t *first = g->res_first, *head = g->res_head, *rev = g->res_rev;
    const int32_t *res = g->res;
    const int32_t n = g->n, src = g->source, snk = g->sink;
    int32_t stamp = *stamp_io;
    int64_t budget = *budget_io;
    for (int64_t k = 0; k < count && budget > 0; k++) {
        int32_t u = tails[k], v = heads[k];
        if (u == src || u == snk || v == src || v == snk || (side && side[u] != side[v]))
            continue;
        for (int tries = 0; tries < 4 && g->excess[u] > 0 && g->excess[v] < 0 && budget > 0;
             tries++) {
            const int32_t fwd = stamp += 2, bwd = fwd + 1;
            int32_t fh = 0, ft = 0, bh = n - 1, bt = n - 1;
            int32_t from = -1, to = -1, bridge = -1; /* the path: from ~> (bridge) ~> to */
            int64_t scanned = 0;
            seen[u] = fwd;
            seen[v] = bwd;
            queue[ft++] = u;
            queue[bt--] = v;
            while (from < 0 && scanned < DETOUR_SCANS && fh < ft && bh > bt) {
                if (ft - fh <= bh - bt) {
                    int32_t x = queue[fh++];
                    scanned += first[x + 1] - first[x];
                    for (int32_t p = first[x]; p < first[x + 1]; p++) {
                        int32_t y = head[p];
                        if (res[p] <= 0 || seen[y] == fwd || y == src || y == snk ||
                            (side && side[y] != side[u]))
                            continue;
                        if (seen[y] == bwd) {
                            from = u, to = v, bridge = p;
                            break;
                        }
                        seen[y] = fwd;
                        via[y] = p;
                        if (g->excess[y] < 0) {
                            from = u, to = y;
                            break;
                        }
                        queue[ft++] = y;
                    }
                } else {
                    int32_t y = queue[bh--];
                    scanned += first[y + 1] - first[y];
                    for (int32_t p = first[y]; p < first[y + 1]; p++) {
                        int32_t w = head[p], q = rev[p]; /* q: the arc w -> y */
                        if (res[q] <= 0 || seen[w] == bwd || w == src || w == snk ||
                            (side && side[w] != side[u]))
                            continue;
                        if (seen[w] == fwd) {
                            from = u, to = v, bridge = q;
                            break;
                        }
                        seen[w] = bwd;
                        via[w] = q;
                        if (g->excess[w] > 0) {
                            from = w, to = v;
                            break;
                        }
                        queue[bt--] = w;
                    }
                }
            }
            budget -= scanned;
            if (from < 0)
                break;
            /* The arcs in order: the forward part back from its end, then
             * the bridge, then the backward part on to the deficit. */
            int32_t len = 0, x = bridge >= 0 ? head[rev[bridge]] : from == u ? to : from;
            if (from == u)
                for (int32_t z = x; z != u; z = head[rev[via[z]]])
                    path[len++] = via[z];
            for (int32_t i = 0; i < len / 2; i++) {
                int32_t t = path[i];
                path[i] = path[len - 1 - i];
                path[len - 1 - i] = t;
            }
            if (bridge >= 0)
                path[len++] = bridge;
            if (to == v)
                for (int32_t z = bridge >= 0 ? head[bridge] : from; z != v; z = head[via[z]])
                    path[len++] = via[z];
            int64_t m = g->excess[from] < -g->excess[to] ? g->excess[from] : -g->excess[to];
            for (int32_t i = 0; i < len; i++)
                if (res[path[i]] < m)
                    m = res[path[i]];
            send_along(g, path, len, m);
            note_dirty(g, from); /* (found by the search when not u) */
            g->excess[from] -= m;
            g->excess[to] += m;
        }
    }
    *stamp_io = stamp;
    *budget_io = budget;
}

/* A deficit left by a cut-back is flow that the head still sends on but no
 * longer receives. Cancel it where that flow goes: walk from the deficient
 * node along arcs carrying flow (to nodes not yet on the walk) until the
 * sink, the source or a node with excess, and take the walk's smallest flow
 * (and the end's excess) off every arc of it. The pseudo-flow stays
 * balanced everywhere else, so the re-solve starts from a preflow: without
 * deficits as extra sinks, the excess the last solve left on the source
 * side (unable to reach the sink) is not drawn into them, which costs more
 * relabels than a solve from zero once deficits are many. A walk that ends
 * nowhere leaves its deficit to the re-solve; all walks together scan about
 * the graph's size. `path` holds n entries. */
static void walk_deficits(gcut_graph *g, const int32_t *nodes, int64_t count,
                          const uint8_t *side, int32_t *seen, int32_t *path, int32_t *stamp_io,
                          int64_t *budget_io)
{
    const int32_t *first = g->res_first, *head = g->res_head, *rev = g->res_rev;
    int32_t *res = g->res;
    int32_t stamp = *stamp_io;
    int64_t budget = *budget_io;
    for (int64_t k = 0; k < count && budget > 0; k++) {
        int32_t v = nodes[k];
        if (side && side[v])
            continue; /* pulled from the source side instead */
        while (g->excess[v] < 0 && budget > 0) {
            int32_t x = v, len = 0, end = -1;
            int64_t amount = -g->excess[v];
            seen[v] = ++stamp;
            while (end < 0) {
                /* x's forward arcs come first among its residual arcs; the
                 * residual of an arc's reverse is its flow. */
                int32_t p = first[x], last = p + (g->out_start[x + 1] - g->out_start[x]);
                while (p < last && (res[rev[p]] <= 0 || seen[head[p]] == stamp ||
                                    (side && side[head[p]])))
                    p++;
                budget -= p - first[x] + 1;
                if (p == last)
                    break;
                int32_t y = head[p];
                seen[y] = stamp;
                path[len++] = p;
                if (res[rev[p]] < amount)
                    amount = res[rev[p]];
                if (y == g->sink || y == g->source)
                    end = y;
                else if (g->excess[y] > 0) {
                    end = y;
                    if (g->excess[y] < amount)
                        amount = g->excess[y];
                }
                x = y;
            }
            if (end < 0)
                break; /* a dead end: the re-solve keeps this node as a sink */
            for (int32_t i = 0; i < len; i++) {
                grow_residual(g, path[i], (int32_t)amount);
                res[rev[path[i]]] -= (int32_t)amount;
                note_dirty(g, head[path[i]]);
            }
            g->excess[v] += amount;
            if (end != g->source)
                g->excess[end] -= amount;
        }
    }
    *stamp_io = stamp;
    *budget_io = budget;
}

/* A deficit on the source side of the last cut: fill it from that side's
 * supply, the excess the last solve left there (which cannot reach the
 * sink) or the source itself, along a residual path found by a
 * breadth-first search backwards from the deficient node through source
 * side nodes. The flow moves inside the source side only, so the cut's
 * arcs stay saturated and the re-solve has nothing to do there; left to
 * it, the deficit would be an extra sink that draws all that side's
 * excess, the amount it needs and more, which then has to climb back. */
static void pull_deficits(gcut_graph *g, const int32_t *nodes, int64_t count, const uint8_t *side,
                          uint8_t *dry, int32_t *seen, int32_t *queue, int32_t *via,
                          int32_t *stamp_io, int64_t *budget_io)
{
    const int32_t *first = g->res_first, *head = g->res_head, *rev = g->res_rev;
    int32_t *res = g->res;
    int32_t stamp = *stamp_io;
    int64_t budget = *budget_io;
    for (int64_t k = 0; k < count && budget > 0; k++) {
        int32_t x = nodes[k];
        if (!side[x] || dry[x])
            continue;
        int64_t moved = 1;
        while (g->excess[x] < 0 && budget > 0 && moved > 0) {
            /* One search finds supplies until they cover the deficit; the
             * queue's front holds the nodes searched, its back (from n
             * down) the supplies found. */
            int32_t qh = 0, qt = 0, n_found = 0;
            int64_t supply = 0, need = -g->excess[x];
            seen[x] = ++stamp;
            queue[qt++] = x;
            while (qh < qt && supply < need && budget > 0) {
                int32_t y = queue[qh++];
                budget -= first[y + 1] - first[y];
                for (int32_t p = first[y]; p < first[y + 1] && supply < need; p++) {
                    int32_t w = head[p], q = rev[p]; /* q: the arc w -> y */
                    if (res[q] <= 0 || seen[w] == stamp || !side[w] || dry[w])
                        continue;
                    seen[w] = stamp;
                    via[w] = q;
                    if (w == g->source || g->excess[w] > 0) {
                        queue[g->n - 1 - n_found++] = w;
                        supply += w == g->source ? need : g->excess[w];
                    } else {
                        queue[qt++] = w;
                    }
                }
            }
            /* A search that ran out of nodes found every node that can
             * still send to x: none of them has supply, so a later search
             * that meets one need not go on from it. */
            if (n_found == 0 && qh == qt)
                for (int32_t i = 0; i < qt; i++)
                    dry[queue[i]] = 1;
            /* Each supply along its tree path, as much as the path still
             * carries (earlier paths may have used shared arcs). */
            moved = 0;
            for (int32_t i = 0; i < n_found && g->excess[x] < 0; i++) {
                int32_t found = queue[g->n - 1 - i];
                int64_t amount = -g->excess[x];
                if (found != g->source && g->excess[found] < amount)
                    amount = g->excess[found];
                for (int32_t w = found; w != x && amount > 0; w = head[via[w]])
                    if (res[via[w]] < amount)
                        amount = res[via[w]];
                if (amount <= 0)
                    continue;
                for (int32_t w = found; w != x; w = head[via[w]]) {
                    res[via[w]] -= (int32_t)amount;
                    grow_residual(g, rev[via[w]], (int32_t)amount);
                    note_dirty(g, w);
                }
                g->excess[x] += amount;
                if (found != g->source)
                    g->excess[found] -= amount;
                moved += amount;
            }
        }
    }
    *stamp_io = stamp;
    *budget_io = budget;
}

/* An arc from the source side of the last cut to the sink side that the
 * batch left with residual capacity (a raise): saturate it now. Its head
 * gets the excess to push on towards the sink, its tail a deficit that
 * pull_deficits fills from the source side; the cut stays saturated, so
 * the re-solve's labels leave the whole source side out. Returns the
 * tail's deficit (0 for none or for the source, whose supply is free). */
static int32_t saturate_crossing(gcut_graph *g, int32_t a)
{
    int32_t u = g->arc_tail[a], v = g->out_head[a];
    int32_t p = g->res_first[u] + (a - g->out_start[u]);
    int32_t r = g->res[p];
    if (r <= 0)
        return 0;
    g->res[p] = 0;
    grow_residual(g, g->res_rev[p], r);
    g->excess[v] += r;
    if (u == g->source)
        return 0;
    g->excess[u] -= r;
    return r;
}

/* What the pulls could not fill of a saturated crossing arc's tail deficit
 * goes back over the arc (at most the `pushed` it carried more, and what
 * its head still holds of it): without supply on the source side the
 * raise cannot add flow, and left as it is the head would push on towards
 * the sink what the tail then misses. */
static void unsaturate_unfilled(gcut_graph *g, int32_t a, int32_t pushed)
{
    int32_t u = g->arc_tail[a], v = g->out_head[a];
    int64_t back = -g->excess[u];
    if (back > pushed)
        back = pushed;
    if (v != g->sink && back > g->excess[v])
        back = g->excess[v];
    if (back <= 0)
        return;
    int32_t p = g->res_first[u] + (a - g->out_start[u]);
    grow_residual(g, p, (int32_t)back);
    g->res[g->res_rev[p]] -= (int32_t)back;
    g->excess[u] += back;
    g->excess[v] -= back;
}

gcut_status gcut_graph_update(gcut_graph *g, int64_t count, const int32_t *tails,
                              const int32_t *heads, const int32_t *new_capacities, unsigned flags)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    if (flags & ~GCUT_GRAPH_UPDATE_ADD)
        return gcut__fail(g->ctx, GCUT_E_INVALID, "graph: unknown update flags 0x%x", flags);
    if (count < 0 || (count > 0 && (!tails || !heads || !new_capacities)))
        return gcut__fail(g->ctx, GCUT_E_INVALID, "graph: %lld updates but no update arrays",
                          (long long)count);
    /* Everything checked before anything changes: a refused batch leaves
     * the graph and its state as they were. The arcs found are kept for
     * the changes (without room for them, they are searched again). */
    int32_t *found = count > 0 ? malloc((size_t)count * sizeof *found) : NULL;
    int64_t missing = 0;
    gcut_status st = GCUT_OK;
    for (int64_t i = 0; i < count && !st; i++) {
        int32_t u = tails[i], v = heads[i], a;
        if (u < 0 || u >= g->n || v < 0 || v >= g->n)
            st = gcut__fail(g->ctx, GCUT_E_RANGE,
                            "graph: update %lld (%d -> %d) has a node outside 0..%d",
                            (long long)i, u, v, g->n - 1);
        else if (u == v)
            st = gcut__fail(g->ctx, GCUT_E_RANGE,
                            "graph: update %lld (%d -> %d) is a self-loop, which is no arc",
                            (long long)i, u, v);
        else if (new_capacities[i] < 0)
            st = gcut__fail(g->ctx, GCUT_E_RANGE,
                            "graph: update %lld (%d -> %d) has capacity %d < 0", (long long)i, u, v,
                            new_capacities[i]);
        else if ((a = gcut__graph_find_arc(g, u, v)) < 0 && !(flags & GCUT_GRAPH_UPDATE_ADD))
            st = gcut__fail(g->ctx, GCUT_E_RANGE,
                            "graph: update %lld: no arc %d -> %d in the graph (add it with "
                            "GCUT_GRAPH_UPDATE_ADD)",
                            (long long)i, u, v);
        else {
            missing += a < 0;
            if (found)
                found[i] = a;
        }
    }
    if (!st && missing && (int64_t)g->m + missing > GCUT__GRAPH_MAX_ARCS)
        st = gcut__fail(g->ctx, GCUT_E_OVERFLOW,
                        "graph: adding %lld arcs to %d would pass the %lld allowed",
                        (long long)missing, g->m, (long long)GCUT__GRAPH_MAX_ARCS);
    if (!st)
        st = gcut__graph_make_warm(g);
    if (st) {
        free(found);
        return st;
    }
    if (missing) {
        /* Arc numbers change: the device graph goes up again. */
        g->gpu_warm = g->gpu_flow = 0;
        int32_t *add_tail = malloc((size_t)missing * sizeof *add_tail);
        int32_t *add_head = malloc((size_t)missing * sizeof *add_head);
        int64_t k = 0;
        if (!add_tail || !add_head) {
            free(add_tail);
            free(add_head);
            free(found);
            return gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory adding %lld arcs",
                              (long long)missing);
        }
        for (int64_t i = 0; i < count; i++)
            if (gcut__graph_find_arc(g, tails[i], heads[i]) < 0) {
                add_tail[k] = tails[i];
                add_head[k++] = heads[i];
            }
        st = add_arcs(g, k, add_tail, add_head);
        free(add_tail);
        free(add_head);
        /* The arcs are numbered anew. */
        free(found);
        found = NULL;
        if (st)
            return st;
    }
    /* A large share of the arcs changed since the last solve: a prf solve
     * from zero costs less than continuing (measured on every generated
     * family at 10 % of the arcs, bench/results/dynamic_maxflow_cpu_*.md),
     * so the repairs are skipped, unless BK's trees are kept: a BK re-solve
     * continues from them, and without the repairs it took 5.6 times as
     * long (genrmf, 10 % of the arcs lowered: 718 against 127 ms). */
    g->changed_arcs += count;
    const int large = g->changed_arcs > (int64_t)g->m / GCUT__LARGE_BATCH && !g->bk_trees;
    /* The last solve's cut, while the warm state keeps it: no residual arc
     * from its source side to its sink side and no flow back (every
     * repair below moves flow inside one side). */
    const uint8_t *side = g->warm && g->side ? g->side : NULL;
    /* (Without room for the lists, the re-solve copes without repairs.)
     * The cut-back arcs' tails; the deficient nodes: the cut-back arcs'
     * heads and the tails of saturated crossing arcs (room for both,
     * though an arc a batch leaves saturated ends on no cut-back); the
     * batch's arcs and what each saturation pushed. */
    int32_t *cut = g->warm && !large ? malloc((size_t)(count ? count : 1) * 5 * sizeof *cut)
                                     : NULL;
    int32_t *deficient = cut ? cut + count : NULL, *arcs = cut ? cut + 3 * count : NULL;
    int32_t *saturated = cut ? cut + 4 * count : NULL;
    int64_t n_cut = 0, n_deficient = 0;
    for (int64_t i = 0; i < count; i++) {
        int32_t a = found ? found[i] : gcut__graph_find_arc(g, tails[i], heads[i]);
        int32_t u = g->arc_tail[a];
        int64_t before = g->warm ? g->excess[u] : 0;
        set_capacity(g, a, new_capacities[i]);
        if (cut) {
            arcs[i] = a;
            if (g->excess[u] != before) {
                cut[n_cut++] = u;
                deficient[n_deficient++] = g->out_head[a];
            }
        }
    }
    if (cut && side)
        for (int64_t i = 0; i < count; i++) {
            saturated[i] = 0;
            if (side[g->arc_tail[arcs[i]]] && !side[g->out_head[arcs[i]]] &&
                (saturated[i] = saturate_crossing(g, arcs[i])) > 0)
                deficient[n_deficient++] = g->arc_tail[arcs[i]];
        }
    if (n_deficient) {
        int32_t *seen = calloc((size_t)g->n, sizeof *seen);
        int32_t *queue = malloc((size_t)g->n * sizeof *queue);
        int32_t *via = malloc((size_t)g->n * sizeof *via);
        int32_t *path = malloc((size_t)g->n * sizeof *path);
        uint8_t *dry = NULL;
        int32_t stamp = 0;
        int64_t budget = repair_budget(g);
        if (seen && queue && via && path) {
            settle_detours(g, cut, deficient, n_cut, side, seen, queue, via, path, &stamp,
                           &budget);
            if (side && (dry = calloc((size_t)g->n, 1))) {
                pull_deficits(g, deficient, n_deficient, side, dry, seen, queue, via, &stamp,
                              &budget);
                for (int64_t i = 0; i < count; i++)
                    if (saturated[i] > 0)
                        unsaturate_unfilled(g, arcs[i], saturated[i]);
            }
            walk_deficits(g, deficient, n_deficient, side, seen, queue, &stamp, &budget);
        }
        g->prf_repair_work += repair_budget(g) - (budget > 0 ? budget : 0);
        free(dry);
        free(seen);
        free(queue);
        free(via);
        free(path);
    }
    free(cut);
    free(found);
    /* Without a warm state the next solve starts from the new capacities. */
    if (!g->warm)
        g->res_fresh = 0;
    g->updated = 1;
    g->solved = 0; /* the last result no longer belongs to this graph */
    return GCUT_OK;
}
