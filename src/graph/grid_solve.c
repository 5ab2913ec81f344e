/* Grid solves: choosing the solver for the device asked for, running it,
 * and reading the result (labels). */
#include <string.h>

#include "graph/grid.h"
#include "gpu/gpu.h"

typedef gcut_status (*grid_solver_fn)(gcut_grid *g, int64_t *iterations);

typedef struct grid_solver {
    const char *name;
    int on_gpu;
    grid_solver_fn solve;
} grid_solver;

/* The first GPU entry is the default GPU solver. */
static const grid_solver solvers[] = {
    {"bk", 0, gcut__bk_grid_solve},
#ifdef GCUT_HAVE_CUDA
    {"tiled", 1, gcut__gpu_grid_tiled},
    {"lockfree", 1, gcut__gpu_grid_lockfree},
#endif
};
static const int n_solvers = (int)(sizeof solvers / sizeof solvers[0]);

const char *gcut_grid_algorithms(void)
{
#ifdef GCUT_HAVE_CUDA
    return "bk,tiled,lockfree";
#else
    return "bk";
#endif
}

static const grid_solver *find_solver(const char *name)
{
    for (int i = 0; i < n_solvers; i++)
        if (strcmp(solvers[i].name, name) == 0)
            return &solvers[i];
    return NULL;
}

/* The default solver for the context's device: a GPU one when a GPU is
 * asked for or usable, else BK. */
static gcut_status pick_solver(gcut_grid *g, const char *algo, const grid_solver **out)
{
    gcut_context *ctx = g->ctx;
    gcut_device want = ctx ? ctx->options.device : GCUT_DEVICE_CPU;
    int devices = 0;
    if (want != GCUT_DEVICE_CPU && ctx)
        gcut_device_count(ctx, &devices);

    if (algo) {
        const grid_solver *s = find_solver(algo);
        if (!s)
            return gcut__fail(ctx, GCUT_E_INVALID, "grid: unknown algorithm '%s' (have: %s)",
                              algo, gcut_grid_algorithms());
        if (s->on_gpu && want == GCUT_DEVICE_CPU)
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "grid: algorithm '%s' runs on the GPU, but the CPU was asked for",
                              algo);
        if (!s->on_gpu && want == GCUT_DEVICE_GPU)
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "grid: algorithm '%s' runs on the CPU, but the GPU was asked for",
                              algo);
        if (s->on_gpu && devices == 0)
            return gcut__fail(ctx, GCUT_E_NODEVICE, "grid: algorithm '%s' needs a GPU, and %s",
                              algo,
                              gcut_cuda_built() ? "none is usable" : "gcut was built without CUDA");
        *out = s;
        return GCUT_OK;
    }
    const grid_solver *gpu = NULL;
    for (int i = 0; i < n_solvers && !gpu; i++)
        if (solvers[i].on_gpu)
            gpu = &solvers[i];
    if (want == GCUT_DEVICE_GPU) {
        if (!gcut_cuda_built())
            return gcut__fail(ctx, GCUT_E_NODEVICE, "grid: no GPU: gcut was built without CUDA");
        if (devices == 0)
            return gcut__fail(ctx, GCUT_E_NODEVICE, "grid: no usable GPU was found");
        if (!gpu)
            return gcut__fail(ctx, GCUT_E_UNSUPPORTED, "grid: this build has no GPU grid solver");
        *out = gpu;
        return GCUT_OK;
    }
    if (want == GCUT_DEVICE_AUTO && gpu && devices > 0) {
        *out = gpu;
        return GCUT_OK;
    }
    /* DESIGN.md: auto without a GPU runs on the CPU and says so. */
    if (want == GCUT_DEVICE_AUTO)
        gcut__log(ctx, 1, "%s: solving on the CPU",
                  !gcut_cuda_built() ? "no GPU (gcut was built without CUDA)"
                  : devices == 0     ? "no usable GPU"
                                     : "no GPU grid solver in this build");
    *out = find_solver("bk");
    return GCUT_OK;
}

gcut_status gcut_grid_solve(gcut_grid *g, const char *algo, gcut_solve_info *info)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    const grid_solver *s = NULL;
    gcut_status st = pick_solver(g, algo, &s);
    if (!st)
        st = gcut__grid_check_overflow(g);
    if (!st)
        st = gcut__grid_alloc_solution(g);
    /* BK keeps its flow and trees for a warm re-solve; any other solver's
     * residuals end that. */
    if (!st && s->solve == gcut__bk_grid_solve)
        st = gcut__bk_grid_prepare(g);
    else
        gcut__bk_grid_forget(g);
    if (st)
        return st;

    g->solved = 0;
    int64_t iterations = 0;
    double t0 = gcut__now_ms();
    st = s->solve(g, &iterations);
    /* --device auto: a GPU without room for the graph (or gone) means the CPU. */
    if (s->on_gpu && !algo && g->ctx && g->ctx->options.device == GCUT_DEVICE_AUTO &&
        (st == GCUT_E_DEVICE_NOMEM || st == GCUT_E_NODEVICE)) {
        gcut__log(g->ctx, 1, "%s: solving on the CPU", gcut_last_error(g->ctx));
        gcut__clear_error(g->ctx);
        s = find_solver("bk");
        iterations = 0;
        st = s->solve(g, &iterations);
    }
    double t1 = gcut__now_ms();
    if (st)
        return st;
    g->solved = 1;
    g->info.flow = g->flow;
    g->info.time_ms = t1 - t0;
    g->info.algo = s->name;
    g->info.iterations = iterations;
    if (!s->on_gpu)
        g->info.device = "cpu";
    if (info)
        *info = g->info;
    return GCUT_OK;
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
