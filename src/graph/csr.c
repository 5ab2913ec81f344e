/* General graph construction: arc lists to forward + reverse CSR, the
 * residual network the CPU solvers run on, and accessors. */
#include "graph/csr.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_budget.h"

/* Bytes to build and solve a graph, per node and per arc given: the CSR
 * arrays, the residual network, the solution, the sort's temporaries and
 * the largest CPU solver's per-node state (prf's 55 bytes kept between
 * re-solves; BK's 44). */
#define GRAPH_BYTES_PER_NODE 76
#define GRAPH_BYTES_PER_ARC 64

void gcut_graph_destroy(gcut_graph *g)
{
    if (!g)
        return;
    free(g->out_start);
    free(g->out_head);
    free(g->out_cap);
    free(g->arc_tail);
    free(g->in_start);
    free(g->in_tail);
    free(g->in_arc);
    free(g->res_first);
    free(g->res_head);
    free(g->res_rev);
    free(g->res);
    free(g->flow);
    free(g->side);
    free(g->excess);
    free(g->dirty);
    free(g->gpu_pending);
    gcut__bk_keep_free(g->bk);
    gcut__prf_keep_free(g->prf_keep);
    free(g->prf_touched);
    free(g);
}

static gcut_status build_topology(gcut_graph *g);
static void fill_res(gcut_graph *g, const int32_t *flow);

/* Stable counting sort of the indices `in` by key[in[i]] into `out`;
 * `count` has nkeys + 1 zeroed entries. */
static void counting_sort(const int32_t *key, int32_t nkeys, const int64_t *in, int64_t m,
                          int64_t *out, int64_t *count)
{
    for (int64_t i = 0; i < m; i++)
        count[key[in ? in[i] : i] + 1]++;
    for (int32_t k = 0; k < nkeys; k++)
        count[k + 1] += count[k];
    for (int64_t i = 0; i < m; i++) {
        int64_t e = in ? in[i] : i;
        out[count[key[e]]++] = e;
    }
}

gcut_status gcut__graph_build(gcut_context *ctx, int32_t n, int64_t m, const int32_t *tail,
                              const int32_t *head, const int32_t *cap, int32_t source, int32_t sink,
                              const char *what, gcut_graph **out)
{
    *out = NULL;
    char what_size[300];
    snprintf(what_size, sizeof what_size, "%s: a graph of %d nodes and %lld arcs", what, n,
             (long long)m);
    int64_t need = gcut__memory_mul_add(n, GRAPH_BYTES_PER_NODE,
                                        gcut__memory_mul_add(m, GRAPH_BYTES_PER_ARC, 0));
    gcut_status budget = gcut__memory_check(ctx, what_size, need);
    if (budget)
        return budget;
    gcut_graph *g = calloc(1, sizeof *g);
    int64_t *by_head = malloc((size_t)(m ? m : 1) * sizeof *by_head);
    int64_t *order = malloc((size_t)(m ? m : 1) * sizeof *order);
    int64_t *count = calloc((size_t)n + 1, sizeof *count);
    gcut_status st = GCUT_OK;
    if (!g || !by_head || !order || !count)
        goto nomem;
    g->ctx = ctx;
    g->n = n;
    g->source = source;
    g->sink = sink;

    /* Sorted by (tail, head) with two stable counting sorts, so that
     * parallel arcs sit next to each other. */
    counting_sort(head, n, NULL, m, by_head, count);
    memset(count, 0, ((size_t)n + 1) * sizeof *count);
    counting_sort(tail, n, by_head, m, order, count);
    free(by_head);
    by_head = NULL;

    /* Count distinct non-loop arcs, checking sums as we go. */
    int64_t kept = 0, merged = 0, loops = 0;
    for (int64_t i = 0; i < m;) {
        int64_t e = order[i];
        int64_t sum = cap[e];
        int64_t j = i + 1;
        while (j < m && tail[order[j]] == tail[e] && head[order[j]] == head[e])
            sum += cap[order[j++]];
        if (tail[e] == head[e]) {
            loops += j - i;
        } else {
            if (sum > INT32_MAX) {
                st = gcut__fail(ctx, GCUT_E_OVERFLOW,
                                "%s: the %lld parallel arcs %d -> %d sum to %lld, past the "
                                "int32 capacity limit %d",
                                what, (long long)(j - i), tail[e] + 1, head[e] + 1, (long long)sum,
                                INT32_MAX);
                goto fail;
            }
            kept++;
            merged += j - i - 1;
        }
        i = j;
    }
    if (kept > GCUT__GRAPH_MAX_ARCS) {
        st = gcut__fail(ctx, GCUT_E_OVERFLOW, "%s: %lld distinct arcs, more than the %lld allowed",
                        what, (long long)kept, (long long)GCUT__GRAPH_MAX_ARCS);
        goto fail;
    }
    g->m = (int32_t)kept;
    size_t nm = (size_t)(kept ? kept : 1);
    g->out_start = calloc((size_t)n + 1, sizeof(int32_t));
    g->in_start = calloc((size_t)n + 1, sizeof(int32_t));
    g->out_head = malloc(nm * sizeof(int32_t));
    g->out_cap = malloc(nm * sizeof(int32_t));
    g->arc_tail = malloc(nm * sizeof(int32_t));
    g->in_tail = malloc(nm * sizeof(int32_t));
    g->in_arc = malloc(nm * sizeof(int32_t));
    if (!g->out_start || !g->in_start || !g->out_head || !g->out_cap || !g->arc_tail ||
        !g->in_tail || !g->in_arc)
        goto nomem;

    int32_t a = 0;
    for (int64_t i = 0; i < m;) {
        int64_t e = order[i];
        int64_t sum = cap[e];
        int64_t j = i + 1;
        while (j < m && tail[order[j]] == tail[e] && head[order[j]] == head[e])
            sum += cap[order[j++]];
        if (tail[e] != head[e]) {
            g->arc_tail[a] = tail[e];
            g->out_head[a] = head[e];
            g->out_cap[a] = (int32_t)sum;
            g->out_start[tail[e] + 1]++;
            g->in_start[head[e] + 1]++;
            a++;
        }
        i = j;
    }
    for (int32_t v = 0; v < n; v++) {
        g->out_start[v + 1] += g->out_start[v];
        g->in_start[v + 1] += g->in_start[v];
    }
    /* Forward arcs are in tail order, so each reverse list comes out sorted
     * by tail. */
    int32_t *fill = (int32_t *)count; /* n int32 fit in n+1 int64 */
    memcpy(fill, g->in_start, (size_t)n * sizeof(int32_t));
    for (int32_t k = 0; k < g->m; k++) {
        int32_t slot = fill[g->out_head[k]]++;
        g->in_tail[slot] = g->arc_tail[k];
        g->in_arc[slot] = k;
    }

    if ((st = build_topology(g)))
        goto fail;
    g->stats.nodes = n;
    g->stats.arcs_in = m;
    g->stats.arcs = g->m;
    g->stats.parallel_merged = merged;
    g->stats.self_loops = loops;
    g->stats.source = source;
    g->stats.sink = sink;
    free(order);
    free(count);
    *out = g;
    return GCUT_OK;

nomem:
    st = gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory for %d nodes and %lld arcs", what, n,
                    (long long)m);
fail:
    free(by_head);
    free(order);
    free(count);
    gcut_graph_destroy(g);
    return st;
}

gcut_status gcut_graph_create_from_arcs(gcut_context *ctx, int32_t n, int64_t m,
                                        const int32_t *tail, const int32_t *head,
                                        const int32_t *cap, int32_t source, int32_t sink,
                                        gcut_graph **out)
{
    gcut__clear_error(ctx);
    if (!out)
        return gcut__fail(ctx, GCUT_E_INVALID, "graph: no place for the result");
    *out = NULL;
    if (n < 2)
        return gcut__fail(ctx, GCUT_E_INVALID, "graph: %d nodes; a source and a sink need 2", n);
    if (m < 0 || (m > 0 && (!tail || !head || !cap)))
        return gcut__fail(ctx, GCUT_E_INVALID, "graph: %lld arcs but no arc arrays", (long long)m);
    if (source < 0 || source >= n || sink < 0 || sink >= n || source == sink)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "graph: source %d and sink %d must be distinct nodes in 0..%d", source,
                          sink, n - 1);
    for (int64_t i = 0; i < m; i++) {
        if (tail[i] < 0 || tail[i] >= n || head[i] < 0 || head[i] >= n)
            return gcut__fail(ctx, GCUT_E_RANGE,
                              "graph: arc %lld (%d -> %d) has a node outside 0..%d", (long long)i,
                              tail[i], head[i], n - 1);
        if (cap[i] < 0)
            return gcut__fail(ctx, GCUT_E_RANGE, "graph: arc %lld (%d -> %d) has capacity %d < 0",
                              (long long)i, tail[i], head[i], cap[i]);
    }
    return gcut__graph_build(ctx, n, m, tail, head, cap, source, sink, "graph", out);
}

int32_t gcut_graph_nodes(const gcut_graph *g)
{
    return g ? g->n : 0;
}
int32_t gcut_graph_arcs(const gcut_graph *g)
{
    return g ? g->m : 0;
}
int32_t gcut_graph_source(const gcut_graph *g)
{
    return g ? g->source : -1;
}
int32_t gcut_graph_sink(const gcut_graph *g)
{
    return g ? g->sink : -1;
}

gcut_status gcut_graph_get_stats(const gcut_graph *g, gcut_graph_stats *stats)
{
    if (!g || !stats)
        return GCUT_E_INVALID;
    *stats = g->stats;
    return GCUT_OK;
}

gcut_status gcut_graph_arc(const gcut_graph *g, int32_t arc, int32_t *tail, int32_t *head,
                           int32_t *cap)
{
    if (!g)
        return GCUT_E_INVALID;
    if (arc < 0 || arc >= g->m)
        return gcut__fail(g->ctx, GCUT_E_INVALID, "graph: arc %d outside 0..%d", arc, g->m - 1);
    if (tail)
        *tail = g->arc_tail[arc];
    if (head)
        *head = g->out_head[arc];
    if (cap)
        *cap = g->out_cap[arc];
    return GCUT_OK;
}

gcut_status gcut__graph_alloc_solution(gcut_graph *g)
{
    if (!g->flow)
        g->flow = malloc((size_t)(g->m ? g->m : 1) * sizeof *g->flow);
    if (!g->side)
        g->side = malloc((size_t)g->n);
    if (!g->flow || !g->side)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory for the solution");
    return GCUT_OK;
}

/* first/head/rev of the residual network: per node its forward arcs, then
 * the reverses of its entering arcs. */
static gcut_status build_topology(gcut_graph *g)
{
    int32_t n = g->n;
    size_t arcs = 2 * (size_t)g->m + 1;
    g->res_first = malloc(((size_t)n + 1) * sizeof(int32_t));
    g->res_head = malloc(arcs * sizeof(int32_t));
    g->res_rev = malloc(arcs * sizeof(int32_t));
    g->res = malloc(arcs * sizeof(int32_t));
    if (!g->res_first || !g->res_head || !g->res_rev || !g->res)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory for the residual network");
    int32_t *first = g->res_first, *head = g->res_head, *rev = g->res_rev;
    for (int32_t u = 0; u <= n; u++)
        first[u] = g->out_start[u] + g->in_start[u];
    for (int32_t u = 0; u < n; u++) {
        int32_t out_deg = g->out_start[u + 1] - g->out_start[u];
        memcpy(head + first[u], g->out_head + g->out_start[u], (size_t)out_deg * sizeof(int32_t));
        int32_t pos = first[u] + out_deg;
        for (int32_t k = g->in_start[u]; k < g->in_start[u + 1]; k++, pos++) {
            int32_t a = g->in_arc[k], w = g->in_tail[k];
            int32_t fwd = first[w] + (a - g->out_start[w]);
            head[pos] = w;
            rev[pos] = fwd;
            rev[fwd] = pos;
        }
    }
    fill_res(g, NULL);
    g->res_fresh = 1;
    return GCUT_OK;
}

static void fill_res(gcut_graph *g, const int32_t *flow)
{
    int32_t *res = g->res;
    for (int32_t u = 0; u < g->n; u++) {
        int32_t pos = g->res_first[u];
        int32_t out_deg = g->out_start[u + 1] - g->out_start[u];
        if (flow) {
            for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++, pos++)
                res[pos] = g->out_cap[a] - flow[a];
            for (int32_t k = g->in_start[u]; k < g->in_start[u + 1]; k++, pos++)
                res[pos] = flow[g->in_arc[k]];
        } else {
            memcpy(res + pos, g->out_cap + g->out_start[u], (size_t)out_deg * sizeof(int32_t));
            memset(res + pos + out_deg, 0,
                   (size_t)(g->in_start[u + 1] - g->in_start[u]) * sizeof(int32_t));
        }
    }
}

void gcut__resnet_view(gcut_graph *g, gcut__resnet *rn)
{
    g->prf_labels = 0; /* the caller may move the residuals under them */
    rn->n = g->n;
    rn->first = g->res_first;
    rn->head = g->res_head;
    rn->rev = g->res_rev;
    rn->res = g->res;
}

gcut_status gcut__resnet_build(gcut_graph *g, const int32_t *flow, gcut__resnet *rn)
{
    gcut__resnet_view(g, rn);
    if (flow || !g->res_fresh)
        fill_res(g, flow);
    g->res_fresh = 0;
    return GCUT_OK;
}

void gcut__resnet_store_flow(const gcut_graph *g, const gcut__resnet *rn, int32_t *flow)
{
    for (int32_t u = 0; u < g->n; u++) {
        int32_t pos = rn->first[u];
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++, pos++)
            flow[a] = g->out_cap[a] - rn->res[pos];
    }
}

void gcut__resnet_free(gcut__resnet *rn)
{
    memset(rn, 0, sizeof *rn);
}

gcut_status gcut__graph_mark_side(gcut_graph *g)
{
    int32_t *queue = malloc((size_t)g->n * sizeof *queue);
    if (!queue)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "graph: out of memory marking the cut");
    /* side = 1 until reached backwards from the sink. */
    memset(g->side, 1, (size_t)g->n);
    int32_t qh = 0, qt = 0;
    queue[qt++] = g->sink;
    g->side[g->sink] = 0;
    while (qh < qt) {
        int32_t w = queue[qh++];
        /* u -> w residual: a forward arc u->w not full... */
        for (int32_t k = g->in_start[w]; k < g->in_start[w + 1]; k++) {
            int32_t u = g->in_tail[k], a = g->in_arc[k];
            if (g->side[u] && g->flow[a] < g->out_cap[a]) {
                g->side[u] = 0;
                queue[qt++] = u;
            }
        }
        /* ...or a forward arc w->u carrying flow. */
        for (int32_t a = g->out_start[w]; a < g->out_start[w + 1]; a++) {
            int32_t u = g->out_head[a];
            if (g->side[u] && g->flow[a] > 0) {
                g->side[u] = 0;
                queue[qt++] = u;
            }
        }
    }
    free(queue);
    return GCUT_OK;
}
