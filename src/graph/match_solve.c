/* gcut_match: choosing the solver for the device asked for, running it,
 * and the proof (the König cover from one alternating search). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_budget.h"
#include "core/solver_device.h"
#include "graph/match.h"

typedef gcut_status (*match_solver_fn)(const gcut_bipartite *b, int32_t *rmatch, int32_t *cmatch,
                                       gcut__match_stats *stats);

typedef struct match_solver {
    const char *name;
    int on_gpu;
    match_solver_fn solve;
} match_solver;

/* The first CPU entry is the CPU default, the first GPU entry the GPU one. */
static const match_solver solvers[] = {
    {"pr", 0, gcut__match_pr},
    {"hk", 0, gcut__match_hk},
#ifdef GCUT_HAVE_CUDA
    {"gpr", 1, gcut__match_gpr},
#endif
};
static const int n_solvers = (int)(sizeof solvers / sizeof solvers[0]);

const char *gcut_match_algorithms(void)
{
#ifdef GCUT_HAVE_CUDA
    return "pr,hk,gpr";
#else
    return "pr,hk";
#endif
}

/* --device auto runs graphs of fewer edges on the CPU. */
#define AUTO_GPU_MIN_EDGES 200000

static const match_solver *pick(gcut_context *ctx, const char *algo, int32_t edges, gcut_status *st)
{
    const match_solver *named = NULL, *gpu = NULL;
    for (int i = 0; i < n_solvers; i++) {
        if (algo && strcmp(solvers[i].name, algo) == 0)
            named = &solvers[i];
        if (solvers[i].on_gpu && !gpu)
            gpu = &solvers[i];
    }
    if (algo && !named) {
        *st = gcut__fail(ctx, GCUT_E_INVALID, "match: unknown algorithm '%s' (have: %s)", algo,
                         gcut_match_algorithms());
        return NULL;
    }
    int on_gpu = 0;
    *st = gcut__solver_device(ctx, "match", algo, named ? named->on_gpu : -1, gpu != NULL, &on_gpu);
    if (*st)
        return NULL;
    /* --device auto on a small graph: the CPU is faster (a G-PR run costs
     * some 0.1-3 ms of launches and transfers, more than pr takes below
     * about 1e5 edges; bench/results/match_*.md). */
    if (!named && on_gpu && ctx && ctx->options.device == GCUT_DEVICE_AUTO &&
        edges < AUTO_GPU_MIN_EDGES) {
        gcut__log(ctx, 2, "match: %d edges: solving on the CPU, faster than the GPU at this size",
                  edges);
        on_gpu = 0;
    }
    return named ? named : on_gpu ? gpu : &solvers[0];
}

/* The cover from one alternating search from the free rows: the rows it
 * does not reach and the columns it does. */
static gcut_status cover(const gcut_bipartite *b, const int32_t *rmatch, const int32_t *cmatch,
                         uint8_t *row_cover, uint8_t *col_cover)
{
    const int32_t inf = b->rows + b->cols;
    int32_t *row_level = malloc(((size_t)b->rows + 1) * sizeof *row_level);
    int32_t *col_level = malloc(((size_t)b->cols + 1) * sizeof *col_level);
    int32_t *queue = malloc(((size_t)b->rows + 1) * sizeof *queue);
    gcut_status st = GCUT_OK;
    if (!row_level || !col_level || !queue) {
        st = gcut__fail(b->ctx, GCUT_E_NOMEM, "match: out of memory for the cover");
    } else {
        gcut__match_levels(b, rmatch, cmatch, inf, row_level, col_level, queue);
        for (int32_t r = 0; r < b->rows; r++)
            row_cover[r] = row_level[r] == inf;
        for (int32_t c = 0; c < b->cols; c++)
            col_cover[c] = col_level[c] != inf;
    }
    free(row_level);
    free(col_level);
    free(queue);
    return st;
}

gcut_status gcut_match(gcut_bipartite *b, const char *algo, int32_t *row_match, int32_t *col_match,
                       uint8_t *row_cover, uint8_t *col_cover, gcut_match_info *info)
{
    if (!b)
        return GCUT_E_INVALID;
    gcut_context *ctx = b->ctx;
    gcut__clear_error(ctx);
    if ((int64_t)b->rows + b->cols + 2 > INT32_MAX)
        return gcut__fail(ctx, GCUT_E_OVERFLOW,
                          "match: %d rows + %d columns: at most %d vertices in all", b->rows,
                          b->cols, INT32_MAX - 2);
    gcut_status st;
    const match_solver *s = pick(ctx, algo, b->edges, &st);
    if (!s)
        return st;
    /* The solvers' and the cover's state: a few int32 arrays per vertex. */
    char what[96];
    snprintf(what, sizeof what, "match: %d rows and %d columns", b->rows, b->cols);
    if ((st = gcut__memory_check(ctx, what, ((int64_t)b->rows + b->cols + 2) * 64)))
        return st;
    int32_t *rmatch = row_match ? row_match : malloc(((size_t)b->rows + 1) * sizeof *rmatch);
    int32_t *cmatch = col_match ? col_match : malloc(((size_t)b->cols + 1) * sizeof *cmatch);
    if (!rmatch || !cmatch) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "match: out of memory");
        goto done;
    }
    gcut__match_stats stats;
    memset(&stats, 0, sizeof stats);
    double t0 = gcut__now_ms();
    st = s->solve(b, rmatch, cmatch, &stats);
    /* --device auto: a GPU without room for the graph (or gone) means the CPU. */
    if (s->on_gpu && !algo && ctx && ctx->options.device == GCUT_DEVICE_AUTO &&
        (st == GCUT_E_DEVICE_NOMEM || st == GCUT_E_NODEVICE)) {
        gcut__log(ctx, 1, "%s: solving on the CPU", gcut_last_error(ctx));
        gcut__clear_error(ctx);
        s = &solvers[0];
        memset(&stats, 0, sizeof stats);
        t0 = gcut__now_ms();
        st = s->solve(b, rmatch, cmatch, &stats);
    }
    double t1 = gcut__now_ms();
    if (st)
        goto done;
    int32_t size = 0;
    for (int32_t r = 0; r < b->rows; r++)
        size += rmatch[r] >= 0;
    double cover_ms = 0;
    if (row_cover || col_cover) {
        uint8_t *rc = row_cover ? row_cover : malloc((size_t)b->rows + 1);
        uint8_t *cc = col_cover ? col_cover : malloc((size_t)b->cols + 1);
        if (!rc || !cc)
            st = gcut__fail(ctx, GCUT_E_NOMEM, "match: out of memory for the cover");
        else
            st = cover(b, rmatch, cmatch, rc, cc);
        cover_ms = gcut__now_ms() - t1;
        if (rc != row_cover)
            free(rc);
        if (cc != col_cover)
            free(cc);
        if (st)
            goto done;
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->size = size;
        info->initial_size = stats.initial_size;
        info->total_ms = t1 - t0;
        info->time_ms = s->on_gpu ? stats.solve_ms : t1 - t0;
        info->cover_ms = cover_ms;
        info->device = stats.device ? stats.device : "cpu";
        info->algo = s->name;
        info->iterations = stats.iterations;
        info->relabels = stats.relabels;
    }
done:
    if (rmatch != row_match)
        free(rmatch);
    if (cmatch != col_match)
        free(cmatch);
    return st;
}

gcut_status gcut_match_arrays(gcut_context *ctx, int32_t rows, int32_t cols, int64_t nnz,
                              const int32_t *row_idx, const int32_t *col_idx, const char *algo,
                              int32_t *row_match, int32_t *col_match, uint8_t *row_cover,
                              uint8_t *col_cover, gcut_match_info *info)
{
    gcut_bipartite *b = NULL;
    gcut_status st =
        gcut_bipartite_create_from_edges(ctx, rows, cols, nnz, row_idx, col_idx, NULL, &b);
    if (!st)
        st = gcut_match(b, algo, row_match, col_match, row_cover, col_cover, info);
    gcut_bipartite_destroy(b);
    return st;
}
