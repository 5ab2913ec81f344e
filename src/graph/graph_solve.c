/* General-graph solves: choosing the solver for the device asked for,
 * running it, and reading the result (flows, the cut side). */
#include <string.h>

#include "core/solver_device.h"
#include "graph/csr.h"
#include "gpu/gpu.h"

typedef gcut_status (*graph_solver_fn)(gcut_graph *g, int64_t *iterations);

typedef struct graph_solver {
    const char *name;
    int gpu_variant;       /* -1 for a CPU solver */
    graph_solver_fn solve; /* CPU solvers */
} graph_solver;

/* The first CPU entry is the CPU default, the first GPU entry the GPU one. */
static const graph_solver solvers[] = {
    {"prf", -1, gcut__prf_solve},
    {"bk", -1, gcut__bk_graph_solve},
#ifdef GCUT_HAVE_CUDA
    {"worklist", GCUT__GPU_WORKLIST, NULL},
    {"async", GCUT__GPU_ASYNC, NULL},
    {"color", GCUT__GPU_COLOR, NULL},
#endif
};
static const int n_solvers = (int)(sizeof solvers / sizeof solvers[0]);

const char *gcut_graph_algorithms(void)
{
#ifdef GCUT_HAVE_CUDA
    return "prf,bk,worklist,async,color";
#else
    return "prf,bk";
#endif
}

static const graph_solver *find_solver(const char *name)
{
    for (int i = 0; i < n_solvers; i++)
        if (strcmp(solvers[i].name, name) == 0)
            return &solvers[i];
    return NULL;
}

/* A named solver, or the default for the context's device: the first GPU
 * entry when the solve runs on the GPU, else prf. */
static gcut_status pick_solver(gcut_graph *g, const char *algo, const graph_solver **out)
{
    const graph_solver *named = NULL, *gpu = NULL;
    if (algo && !(named = find_solver(algo)))
        return gcut__fail(g->ctx, GCUT_E_INVALID, "graph: unknown algorithm '%s' (have: %s)",
                          algo, gcut_graph_algorithms());
    for (int i = 0; i < n_solvers && !gpu; i++)
        if (solvers[i].gpu_variant >= 0)
            gpu = &solvers[i];
    int on_gpu = 0;
    gcut_status st = gcut__solver_device(g->ctx, "graph", algo,
                                         named ? named->gpu_variant >= 0 : -1, gpu != NULL, &on_gpu);
    if (!st)
        *out = named ? named : on_gpu ? gpu : &solvers[0];
    return st;
}

#ifdef GCUT_HAVE_CUDA
static gcut_status run_solver(gcut_graph *g, const graph_solver *s, unsigned flags,
                              int64_t *iterations)
{
    if (s->gpu_variant >= 0)
        return gcut__gpu_graph_solve(g, s->gpu_variant, flags, iterations);
    return s->solve(g, iterations);
}
#else
static gcut_status run_solver(gcut_graph *g, const graph_solver *s, unsigned flags,
                              int64_t *iterations)
{
    (void)flags;
    return s->solve(g, iterations);
}
#endif

gcut_status gcut_graph_solve(gcut_graph *g, const char *algo, unsigned flags, gcut_solve_info *info)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    if (flags & ~(GCUT_GRAPH_SOLVE_FLOW | GCUT_GRAPH_SOLVE_SCRATCH | GCUT_GRAPH_SOLVE_BOUNDED))
        return gcut__fail(g->ctx, GCUT_E_INVALID, "graph: unknown solve flags 0x%x", flags);
    const graph_solver *s = NULL;
    gcut_status st = pick_solver(g, algo, &s);
    if (!st)
        st = gcut__graph_alloc_solution(g);
    if (st)
        return st;

    /* After gcut_graph_update(), prf and bk continue from the last flow;
     * any other solve starts from zero and ends the warm state. */
    int resume = g->warm && g->updated && !(flags & GCUT_GRAPH_SOLVE_SCRATCH) &&
                 (s->solve == gcut__prf_solve || s->solve == gcut__bk_graph_solve);
    /* The GPU worklist solver continues from the state its last solve of
     * this graph left on the device (the CPU's warm state is not used). */
    int gpu_resume = g->gpu_warm && g->updated && !(flags & GCUT_GRAPH_SOLVE_SCRATCH) &&
                     s->gpu_variant == GCUT__GPU_WORKLIST;
    g->solved = 0;
    g->flow_stored = g->is_flow = 0;
    g->gpu_flow = 0;
    if (!resume)
        g->warm = 0;
    if (s->solve != gcut__bk_graph_solve)
        g->bk_trees = 0; /* another solver moves the residuals under them */
    int64_t iterations = 0;
    double t0 = gcut__now_ms();
    int gave_up = 0;
#ifdef GCUT_HAVE_CUDA
    if (gpu_resume) {
        st = gcut__gpu_graph_resolve(g, flags, &iterations);
    } else
#else
    (void)gpu_resume;
#endif
    if (resume && s->solve == gcut__prf_solve) {
        st = gcut__prf_resolve(g, &iterations);
    } else if (resume) {
        /* Bounded: four scans of every residual arc's worth of growth and
         * adoption (measured on the generated families: the re-solves that
         * beat a fresh prf stay below; past it a solve from zero by prf is
         * the cheaper bet). */
        int64_t limit =
            flags & GCUT_GRAPH_SOLVE_BOUNDED ? 4 * ((int64_t)g->n + 2 * (int64_t)g->m) : 0;
        st = gcut__bk_graph_resolve(g, limit, &gave_up, &iterations);
        if (!st && gave_up) {
            s = &solvers[0];
            g->warm = g->bk_trees = 0;
            iterations = 0;
            st = run_solver(g, s, flags, &iterations);
        }
    } else {
        st = run_solver(g, s, flags, &iterations);
    }
    /* --device auto: a GPU without room for the graph (or gone) means the CPU. */
    if (s->gpu_variant >= 0 && !algo && g->ctx && g->ctx->options.device == GCUT_DEVICE_AUTO &&
        (st == GCUT_E_DEVICE_NOMEM || st == GCUT_E_NODEVICE)) {
        gcut__log(g->ctx, 1, "%s: solving on the CPU", gcut_last_error(g->ctx));
        gcut__clear_error(g->ctx);
        s = &solvers[0];
        iterations = 0;
        st = run_solver(g, s, flags, &iterations);
    }
    /* Only a worklist solve leaves the device a state to continue from. */
    g->gpu_warm = !st && s->gpu_variant == GCUT__GPU_WORKLIST;
    g->gpu_pending_count = 0;
#ifdef GCUT_HAVE_CUDA
    if (!st && g->gpu_flow && (flags & GCUT_GRAPH_SOLVE_FLOW))
        st = gcut__gpu_graph_fetch(g);
#endif
    if (!st && !g->is_flow && (flags & GCUT_GRAPH_SOLVE_FLOW))
        st = gcut__prf_return_excess(g);
    g->prf_repair_work = 0; /* counted against the next prf re-solve only */
    g->changed_arcs = 0;
    double t1 = gcut__now_ms();
    if (st)
        return st;
    g->solved = 1;
    g->updated = 0;
    g->info.flow = g->flow_value;
    g->info.time_ms = t1 - t0;
    g->info.device = s->gpu_variant < 0 ? "cpu" : gcut__device_label(g->ctx);
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
#ifdef GCUT_HAVE_CUDA
    if (g->gpu_flow) {
        gcut_status st = gcut__gpu_graph_fetch(g);
        if (st)
            return st;
    }
#endif
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
