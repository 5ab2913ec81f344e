/* Warm GPU grid re-solves against fresh CPU solves (check_grid_gpu_update.h). */
#include "check_grid_gpu_update.h"

#include <stdio.h>
#include <stdlib.h>

#include "check_grid.h"
#include "check_rng.h"
#include "gcut.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

/* The GPU context's warm and cold starts so far (it lives through a whole
 * check): the warm path must have run, or the check proved nothing of it. */
static long long warm_seen, cold_seen;

static void note_starts(gcut_context *gpu)
{
#ifdef GCUT_HAVE_CUDA
    gcut__gpu_warm_counts(gpu, &warm_seen, &cold_seen);
#else
    (void)gpu;
#endif
}

static void check_warm_ran(check_report *r, const char *check)
{
    if (r->passed > 0 && warm_seen == 0)
        check_fail(r, "%s: no re-solve started from the kept flow (%lld from no flow)", check,
                   cold_seen);
    warm_seen = cold_seen = 0;
}

static void resolve_one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                        uint64_t seed, int index)
{
    check_grid_resolve_with(r, gpu, algo, cpu, seed, index,
                            (int)((unsigned)index % CHECK_GRID_REGIMES), 4);
    note_starts(gpu);
}

void check_grid_gpu_resolve(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, resolve_one, "tiled", count, seed);
    check_warm_ran(r, "grid.gpu_tiled_resolve");
}

/* A copy of g on ctx, through the public getters. */
static gcut_grid *copy_of(gcut_context *ctx, gcut_grid *g)
{
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    gcut_grid *c = NULL;
    if (gcut_grid_create(ctx, w, h, conn, &c) != GCUT_OK)
        return NULL;
    gcut_status st = GCUT_OK;
    for (int y = 0; y < h && !st; y++)
        for (int x = 0; x < w && !st; x++) {
            int32_t a = 0, b = 0;
            st = gcut_grid_get_terminal(g, x, y, &a, &b);
            if (!st)
                st = gcut_grid_set_terminal(c, x, y, a, b);
            for (int d = 0; d < conn && !st; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
                    continue;
                st = gcut_grid_get_edge(g, x, y, (gcut_dir)d, &a);
                if (!st)
                    st = gcut_grid_set_edge(c, x, y, (gcut_dir)d, a);
            }
        }
    if (st) {
        gcut_grid_destroy(c);
        return NULL;
    }
    return c;
}

/* One batch: a disc of terminals flipped (source and sink swapped) or
 * zeroed, and a scatter of n-links raised, lowered or zeroed. */
static gcut_status perturb(gcut_grid *g, rng *r)
{
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    int cx = (int)rng_below(r, w), cy = (int)rng_below(r, h);
    int rad = (int)rng_range(r, 1, 60);
    int zero = rng_below(r, 3) == 0;
    gcut_status st = GCUT_OK;
    for (int y = cy - rad; y <= cy + rad && !st; y++)
        for (int x = cx - rad; x <= cx + rad && !st; x++) {
            if (x < 0 || y < 0 || x >= w || y >= h ||
                (x - cx) * (x - cx) + (y - cy) * (y - cy) > rad * rad)
                continue;
            int32_t a = 0, b = 0;
            st = gcut_grid_get_terminal(g, x, y, &a, &b);
            if (!st)
                st = gcut_grid_set_terminal(g, x, y, zero ? 0 : b, zero ? a / 2 : a);
        }
    int64_t arcs = (int64_t)rng_range(r, 0, (int64_t)w * h / 20);
    for (int64_t k = 0; k < arcs && !st; k++) {
        int x = (int)rng_below(r, w), y = (int)rng_below(r, h);
        gcut_dir d = (gcut_dir)rng_below(r, conn);
        int dx, dy;
        gcut_dir_offset(d, &dx, &dy);
        if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
            continue;
        int32_t c = 0;
        st = gcut_grid_get_edge(g, x, y, d, &c);
        int64_t kind = rng_below(r, 3);
        int32_t nc = kind == 0 ? 0 : kind == 1 ? c / 3 : c + (int32_t)rng_range(r, 1, 50);
        if (!st)
            st = gcut_grid_set_edge(g, x, y, d, nc);
    }
    return st;
}

static void large_one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                      uint64_t seed, int index)
{
    static const check_disc_shape shape = {300, 500, 200, 300, 100, 20, 8};
    gcut_grid *g[2] = {NULL, NULL};
    uint64_t s0 = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index * 0xc2b2ae3d27d4eb4full + 3;
    rng changes = {s0 ^ 0x5bd1e995ull};
    rng_next(&changes);
    int ok = 1;
    for (int k = 0; k < 2 && ok; k++)
        if (check_grid_disc(gpu, s0 + (uint64_t)k, (index + k) % 2 ? 8 : 4, &shape, &g[k]) !=
            GCUT_OK) {
            check_fail(r, "seed %llu index %d: the generator failed", (unsigned long long)seed,
                       index);
            ok = 0;
        }
    for (int round = 0; round < 8 && ok; round++) {
        gcut_grid *gg = g[(round / 2) % 2];
        char what[200];
        snprintf(what, sizeof what,
                 "%s: seed %llu index %d, grid %d (%dx%d, %d-connected), "
                 "round %d",
                 algo, (unsigned long long)seed, index, (round / 2) % 2, gcut_grid_width(gg),
                 gcut_grid_height(gg), gcut_grid_connectivity(gg), round);
        gcut_solve_info info, fresh_info;
        gcut_grid *fresh = NULL;
        gcut_status st = round < 2 ? GCUT_OK : perturb(gg, &changes);
        if (st) {
            check_fail(r, "%s: the changes failed: %s", what, gcut_last_error(gpu));
            ok = 0;
        } else if ((st = gcut_grid_solve(gg, algo, &info)) != GCUT_OK) {
            check_fail(r, "%s: the solve failed (%s): %s", what, gcut_status_str(st),
                       gcut_last_error(gpu));
            ok = 0;
        } else if (!(fresh = copy_of(cpu, gg)) ||
                   gcut_grid_solve(fresh, "bk", &fresh_info) != GCUT_OK) {
            check_fail(r, "%s: the fresh copy could not be solved", what);
            ok = 0;
        } else {
            ok = check_grid_solution(r, gpu, gg, info.flow, fresh_info.flow, NULL, what);
        }
        gcut_grid_destroy(fresh);
    }
    if (ok)
        r->passed++;
    note_starts(gpu);
    gcut_grid_destroy(g[0]);
    gcut_grid_destroy(g[1]);
}

void check_grid_gpu_resolve_large(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, large_one, "tiled", count, seed);
    check_warm_ran(r, "grid.gpu_tiled_resolve_large");
}
