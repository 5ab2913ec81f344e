/* General-graph solves: choosing the solver, running it, and reading the
 * result (flows, the cut side). */
#include <string.h>

#include "graph/csr.h"

typedef gcut_status (*graph_solver_fn)(gcut_graph *g, int64_t *iterations);

typedef struct graph_solver {
    const char *name;
    graph_solver_fn solve;
} graph_solver;

/* CPU only for now; the first one is the default. */
static const graph_solver solvers[] = {
    {"prf", gcut__prf_solve},
    {"bk", gcut__bk_graph_solve},
};
static const int n_solvers = (int)(sizeof solvers / sizeof solvers[0]);

const char *gcut_graph_algorithms(void)
{
    return "prf,bk";
}

static gcut_status pick_solver(gcut_graph *g, const char *algo, const graph_solver **out)
{
    gcut_context *ctx = g->ctx;
    gcut_device want = ctx ? ctx->options.device : GCUT_DEVICE_CPU;
    if (want == GCUT_DEVICE_GPU)
        return gcut__fail(ctx, GCUT_E_UNSUPPORTED,
                          "graph: no GPU solver for general graphs yet; use the CPU (%s)",
                          gcut_graph_algorithms());
    const graph_solver *s = &solvers[0];
    if (algo) {
        s = NULL;
        for (int i = 0; i < n_solvers && !s; i++)
            if (strcmp(solvers[i].name, algo) == 0)
                s = &solvers[i];
        if (!s)
            return gcut__fail(ctx, GCUT_E_INVALID, "graph: unknown algorithm '%s' (have: %s)", algo,
                              gcut_graph_algorithms());
    }
    if (want == GCUT_DEVICE_AUTO && ctx) {
        /* Worth a notice only where a GPU sits unused. */
        int devices = 0;
        gcut_device_count(ctx, &devices);
        gcut__log(ctx, devices > 0 ? 1 : 2,
                  "solving on the CPU: there is no GPU solver for general graphs yet");
    }
    *out = s;
    return GCUT_OK;
}

gcut_status gcut_graph_solve(gcut_graph *g, const char *algo, unsigned flags, gcut_solve_info *info)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    if (flags & ~GCUT_GRAPH_SOLVE_FLOW)
        return gcut__fail(g->ctx, GCUT_E_INVALID, "graph: unknown solve flags 0x%x", flags);
    const graph_solver *s = NULL;
    gcut_status st = pick_solver(g, algo, &s);
    if (!st)
        st = gcut__graph_alloc_solution(g);
    if (st)
        return st;

    g->solved = 0;
    g->flow_stored = g->is_flow = 0;
    int64_t iterations = 0;
    double t0 = gcut__now_ms();
    st = s->solve(g, &iterations);
    if (!st && !g->is_flow && (flags & GCUT_GRAPH_SOLVE_FLOW))
        st = gcut__prf_return_excess(g);
    double t1 = gcut__now_ms();
    if (st)
        return st;
    g->solved = 1;
    g->info.flow = g->flow_value;
    g->info.time_ms = t1 - t0;
    g->info.device = "cpu";
    g->info.algo = s->name;
    g->info.iterations = iterations;
    if (info)
        *info = g->info;
    return GCUT_OK;
}

gcut_status gcut__graph_need_flow(gcut_graph *g)
{
    if (!g->solved)
        return gcut__fail(g->ctx, GCUT_E_STATE, "graph: flows asked for before a solve");
    if (g->is_flow)
        return GCUT_OK;
    return gcut__prf_return_excess(g); /* stores the flow too */
}

gcut_status gcut_graph_arc_flows(gcut_graph *g, int32_t *flow)
{
    if (!g || !flow)
        return g ? gcut__fail(g->ctx, GCUT_E_INVALID, "graph: no flow array") : GCUT_E_INVALID;
    gcut_status st = gcut__graph_need_flow(g);
    if (!st)
        memcpy(flow, g->flow, (size_t)g->m * sizeof *flow);
    return st;
}

gcut_status gcut_graph_cut_side(const gcut_graph *g, uint8_t *side)
{
    if (!g || !side)
        return g ? gcut__fail(g->ctx, GCUT_E_INVALID, "graph: no side array") : GCUT_E_INVALID;
    if (!g->solved)
        return gcut__fail(g->ctx, GCUT_E_STATE, "graph: the cut asked for before a solve");
    memcpy(side, g->side, (size_t)g->n);
    return GCUT_OK;
}

gcut_status gcut_graph_cut_capacity(const gcut_graph *g, const uint8_t *side, int64_t *capacity)
{
    if (!g || !side || !capacity)
        return g ? gcut__fail(g->ctx, GCUT_E_INVALID, "graph: no side array") : GCUT_E_INVALID;
    int64_t cut = 0;
    for (int32_t a = 0; a < g->m; a++)
        if (side[g->arc_tail[a]] && !side[g->out_head[a]])
            cut += g->out_cap[a];
    *capacity = cut;
    return GCUT_OK;
}
