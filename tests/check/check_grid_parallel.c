/* "pbk" against the reference and BK, for every thread count 1..8 (see
 * check_grid_parallel.h). */
#include "check_grid_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "gcut.h"

#define MAX_THREADS 8

/* A larger grid whose flow crosses many strip borders. */
static gcut_status large_grid(gcut_context *ctx, uint64_t seed, int index, gcut_grid **out)
{
    static const check_disc_shape shape = {20, 281, 40, 161, 300, 4, 6};
    uint64_t s = seed * 0xd1b54a32d192ed03ull + (uint64_t)index * 0x9e3779b97f4a7c15ull + 7;
    return check_grid_disc(ctx, s, (index / 10) % 2 ? 8 : 4, &shape, out);
}

static gcut_status make_grid(gcut_context *ctx, uint64_t seed, int index, int large,
                             gcut_grid **out)
{
    return large ? large_grid(ctx, seed, index, out) : check_grid_random(ctx, seed, index, out);
}

/* The flow and source side every solve must give: the reference's on small
 * grids, BK's (itself checked against the reference elsewhere) on large
 * ones. Returns 0 after recording a failure. */
static int expected(check_report *r, gcut_context *ctx, uint64_t seed, int index, int large,
                    int64_t *want, uint8_t *side, const char *what)
{
    gcut_grid *g = NULL;
    gcut_status st = make_grid(ctx, seed, index, large, &g);
    int ok = 0;
    if (st) {
        check_fail(r, "%s: the generator failed (%s)", what, gcut_status_str(st));
    } else if (!large) {
        ok = check_grid_reference(g, want, side) == GCUT_OK;
        if (!ok)
            check_fail(r, "%s: the reference ran out of memory", what);
    } else {
        gcut_solve_info info;
        ok = (st = gcut_grid_solve(g, "bk", &info)) == GCUT_OK &&
             (st = gcut_grid_verify(g, NULL)) == GCUT_OK &&
             (st = gcut_grid_labels(g, side)) == GCUT_OK;
        if (!ok)
            check_fail(r, "%s: BK failed (%s): %s", what, gcut_status_str(st),
                       gcut_last_error(ctx));
        *want = info.flow;
    }
    gcut_grid_destroy(g);
    return ok;
}

static void check_one(check_report *r, gcut_context *const *ctx, uint64_t seed, int index)
{
    const int large = index % 10 == 9; /* 10, not 9: every regime still comes up */
    char what[240];
    snprintf(what, sizeof what, "pbk: seed %llu index %d (%s)", (unsigned long long)seed, index,
             large ? "large" : check_grid_regime_name(index % CHECK_GRID_REGIMES));
    gcut_grid *g = NULL;
    gcut_status st = make_grid(ctx[0], seed, index, large, &g);
    if (st) {
        check_fail(r, "%s: the generator failed (%s)", what, gcut_status_str(st));
        return;
    }
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    gcut_grid_destroy(g);
    g = NULL;
    size_t n = (size_t)w * (size_t)h;
    uint8_t *side = malloc(n);
    int64_t want = 0;
    int ok = side && expected(r, ctx[0], seed, index, large, &want, side, what);
    for (int t = 1; t <= MAX_THREADS && ok; t++) {
        snprintf(what, sizeof what, "pbk: seed %llu index %d (%s, %dx%d, %d-connected), %d threads",
                 (unsigned long long)seed, index,
                 large ? "large" : check_grid_regime_name(index % CHECK_GRID_REGIMES), w, h, conn,
                 t);
        gcut_solve_info info;
        ok = 0;
        if ((st = make_grid(ctx[t], seed, index, large, &g)) != GCUT_OK)
            check_fail(r, "%s: the generator failed (%s)", what, gcut_status_str(st));
        else if ((st = gcut_grid_solve(g, "pbk", &info)) != GCUT_OK)
            check_fail(r, "%s: solve failed (%s): %s", what, gcut_status_str(st),
                       gcut_last_error(ctx[t]));
        else if (!info.algo || strcmp(info.algo, "pbk") != 0 || !info.device ||
                 strcmp(info.device, "cpu") != 0)
            check_fail(r, "%s: the solve reports algo '%s' on '%s'", what,
                       info.algo ? info.algo : "(null)", info.device ? info.device : "(null)");
        else
            ok = check_grid_solution(r, ctx[t], g, info.flow, want, side, what);
        gcut_grid_destroy(g);
        g = NULL;
    }
    if (ok)
        r->passed++;
    else if (!side)
        check_fail(r, "%s: out of memory", what);
    free(side);
}

void check_grid_pbk_vs_reference(check_report *r, int count, uint64_t seed)
{
    /* ctx[0] for the references, ctx[t] solves with t threads. */
    gcut_context *ctx[MAX_THREADS + 1] = {NULL};
    int ok = 1;
    for (int t = 0; t <= MAX_THREADS && ok; t++) {
        gcut_options opt;
        gcut_options_init(&opt);
        opt.device = GCUT_DEVICE_CPU;
        opt.threads = t;
        ok = gcut_context_create(&opt, &ctx[t]) == GCUT_OK;
    }
    if (!ok)
        check_fail(r, "could not create the CPU contexts");
    for (int i = 0; i < count && ok; i++)
        check_one(r, ctx, seed, i);
    for (int t = 0; t <= MAX_THREADS; t++)
        gcut_context_destroy(ctx[t]);
}
