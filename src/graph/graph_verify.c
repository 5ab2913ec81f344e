/* The proof of a general-graph solve, checked from first principles: a
 * feasible flow (capacities, conservation) of value F and a cut separating
 * the source from the sink of capacity F. Any flow's value is at most any
 * cut's capacity, so equality proves both optimal. */
#include <stdlib.h>

#include "graph/csr.h"

gcut_status gcut_graph_verify(gcut_graph *g, int64_t *cut_capacity)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_status st = gcut__graph_need_flow(g);
    if (st)
        return st;
    gcut_context *ctx = g->ctx;
    int64_t *net = calloc((size_t)g->n, sizeof *net); /* inflow - outflow */
    if (!net)
        return gcut__fail(ctx, GCUT_E_NOMEM, "graph: out of memory while verifying");

    for (int32_t a = 0; a < g->m; a++) {
        int32_t f = g->flow[a];
        if (f < 0 || f > g->out_cap[a]) {
            st = gcut__fail(ctx, GCUT_E_VERIFY,
                            "graph: verify: arc %d -> %d carries %d, outside [0, %d]",
                            g->arc_tail[a] + 1, g->out_head[a] + 1, f, g->out_cap[a]);
            goto done;
        }
        net[g->out_head[a]] += f;
        net[g->arc_tail[a]] -= f;
    }
    for (int32_t v = 0; v < g->n; v++) {
        if (v != g->source && v != g->sink && net[v] != 0) {
            st = gcut__fail(ctx, GCUT_E_VERIFY,
                            "graph: verify: node %d receives %lld more than it sends", v + 1,
                            (long long)net[v]);
            goto done;
        }
    }
    if (net[g->sink] != g->flow_value || -net[g->source] != g->flow_value) {
        st = gcut__fail(ctx, GCUT_E_VERIFY,
                        "graph: verify: the sink receives %lld and the source sends %lld, but the "
                        "reported flow is %lld",
                        (long long)net[g->sink], (long long)-net[g->source],
                        (long long)g->flow_value);
        goto done;
    }
    if (!g->side[g->source] || g->side[g->sink]) {
        st = gcut__fail(ctx, GCUT_E_VERIFY,
                        "graph: verify: the cut does not separate the source from the sink");
        goto done;
    }
    int64_t cut = 0;
    gcut_graph_cut_capacity(g, g->side, &cut);
    if (cut != g->flow_value) {
        st = gcut__fail(ctx, GCUT_E_VERIFY,
                        "graph: verify: the cut's capacity %lld differs from the flow %lld",
                        (long long)cut, (long long)g->flow_value);
        goto done;
    }
    if (cut_capacity)
        *cut_capacity = cut;
done:
    free(net);
    return st;
}
