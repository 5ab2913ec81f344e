/* Grid solves: choosing the solver for the device asked for, running it,
 * and reading the result (labels). */
#include "graph/grid_solve.h"

#include <string.h>

#include "core/solver_device.h"
#include "cpu/bk_grid_parallel.h"
#include "gpu/gpu.h"

/* The first GPU entry is the default GPU solver. */
static const gcut__grid_solver solvers[] = {
    {"bk", -1, gcut__bk_grid_solve},
    {"pbk", -1, gcut__pbk_grid_solve},
#ifdef GCUT_HAVE_CUDA
    {"tiled", 0, gcut__gpu_grid_tiled_warm}, /* keeps its flow for the next solve */
    {"lockfree", 1, gcut__gpu_grid_lockfree},
#endif
};
static const int n_solvers = (int)(sizeof solvers / sizeof solvers[0]);

const char *gcut_grid_algorithms(void)
{
#ifdef GCUT_HAVE_CUDA
    return "bk,pbk,tiled,lockfree";
#else
    return "bk,pbk";
#endif
}

static const gcut__grid_solver *find_solver(const char *name)
{
    for (int i = 0; i < n_solvers; i++)
        if (strcmp(solvers[i].name, name) == 0)
            return &solvers[i];
    return NULL;
}

gcut_status gcut__grid_pick_solver(gcut_grid *g, const char *algo, const char *cpu_default,
                                   const gcut__grid_solver **out)
{
    const gcut__grid_solver *named = NULL, *gpu = NULL;
    if (algo && !(named = find_solver(algo)))
        return gcut__fail(g->ctx, GCUT_E_INVALID, "grid: unknown algorithm '%s' (have: %s)", algo,
                          gcut_grid_algorithms());
    for (int i = 0; i < n_solvers && !gpu; i++)
        if (solvers[i].gpu_variant >= 0)
            gpu = &solvers[i];
    int on_gpu = 0;
    gcut_status st = gcut__solver_device(g->ctx, "grid", algo,
                                         named ? named->gpu_variant >= 0 : -1, gpu != NULL,
                                         &on_gpu);
    if (!st)
        *out = named ? named : on_gpu ? gpu : find_solver(cpu_default ? cpu_default : "bk");
    return st;
}

const gcut__grid_solver *gcut__grid_fallback(gcut_grid *g, const gcut__grid_solver *s,
                                             const char *algo, const char *cpu_default,
                                             gcut_status st)
{
    if (s->gpu_variant < 0 || algo || !g->ctx || g->ctx->options.device != GCUT_DEVICE_AUTO ||
        (st != GCUT_E_DEVICE_NOMEM && st != GCUT_E_NODEVICE))
        return NULL;
    gcut__log(g->ctx, 1, "%s: solving on the CPU", gcut_last_error(g->ctx));
    gcut__clear_error(g->ctx);
    return find_solver(cpu_default ? cpu_default : "bk");
}

gcut_status gcut__grid_run_solver(gcut_grid *g, const gcut__grid_solver *s,
                                  gcut_solve_info *info)
{
    /* The residuals of a GPU solve left on the device are no longer this
     * grid's; a GPU solver checks for overflow on the device. */
    if (g->res_on_device)
        gcut__gpu_grid_forget(g);
    gcut_status st = s->gpu_variant < 0 ? gcut__grid_check_overflow(g) : GCUT_OK;
    /* A GPU solve's residuals stay on the device until fetched: making their
     * host arrays here cost most of a millisecond at 1 MP for nothing. */
    if (!st)
        st = s->gpu_variant < 0 ? gcut__grid_alloc_solution(g) : gcut__grid_alloc_labels(g);
    /* BK keeps its flow and trees for a warm re-solve, the GPU's tiled
     * solver its flow on the device; any other solver's residuals end that. */
    if (!st && s->solve == gcut__bk_grid_solve)
        st = gcut__bk_grid_prepare(g);
#ifdef GCUT_HAVE_CUDA
    else if (!st && s->solve == gcut__gpu_grid_tiled_warm) {
        /* the warm GPU solve keeps or replaces the state itself */
    }
#endif
    else
        gcut__grid_forget_warm(g);
    if (st)
        return st;

    g->solved = 0;
    int64_t iterations = 0;
    double t0 = gcut__now_ms();
    st = s->solve(g, &iterations);
    double t1 = gcut__now_ms();
    if (st)
        return st;
    g->solved = 1;
    g->info.flow = g->flow;
    g->info.time_ms = t1 - t0;
    g->info.algo = s->name;
    g->info.iterations = iterations;
    g->info.device = s->gpu_variant < 0 ? "cpu" : gcut__device_label(g->ctx);
    if (info)
        *info = g->info;
    return GCUT_OK;
}

gcut_status gcut_grid_solve(gcut_grid *g, const char *algo, gcut_solve_info *info)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    const gcut__grid_solver *s = NULL;
    gcut_status st = gcut__grid_pick_solver(g, algo, NULL, &s);
    if (!st)
        st = gcut__grid_run_solver(g, s, info);
    /* --device auto: a GPU without room for the graph (or gone) means the CPU. */
    const gcut__grid_solver *cpu = st && s ? gcut__grid_fallback(g, s, algo, NULL, st) : NULL;
    if (cpu)
        st = gcut__grid_run_solver(g, cpu, info);
    return st;
}

gcut_status gcut_grid_maxflow(gcut_grid *g, int64_t *flow)
{
    gcut_status st = gcut_grid_solve(g, NULL, NULL);
    if (!st && flow)
        *flow = g->flow;
    return st;
}

gcut_status gcut_grid_labels(const gcut_grid *g, uint8_t *labels)
{
    if (!g || !labels)
        return g ? gcut__fail(g->ctx, GCUT_E_INVALID, "grid: no label array") : GCUT_E_INVALID;
    if (!g->solved)
        return gcut__fail(g->ctx, GCUT_E_STATE, "grid: labels asked for before a solve");
    for (int y = 0; y < g->height; y++)
        memcpy(labels + (size_t)y * g->width, g->label + gcut__grid_node(g, 0, y),
               (size_t)g->width);
    return GCUT_OK;
}
