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

/* ---- the segmentation's reparametrised terminals ------------------------ */

#ifdef GCUT_HAVE_CUDA
#include <string.h>

#include "graph/grid_energy.h"

#define D2_LEN (3 * 255 * 255 + 1)

/* Over the whole check: the largest raise seen, so that the reparametrised
 * path is known to have run. */
static int64_t largest_offset;

/* A segmentation graph on `ctx` with `algo`: the grid, its energy with
 * the n-links set and, on the GPU, kept warm. */
static gcut_status open_seg(gcut_context *ctx, const char *algo, int w, int h, int conn,
                            const gcut__energy_image *im, const int32_t *table, int keep,
                            gcut_grid **g, gcut__grid_energy **e, int32_t *largest)
{
    gcut_status st = gcut_grid_create(ctx, w, h, conn, g);
    if (!st)
        st = gcut__grid_energy_open(*g, algo, "bk", im, keep, e);
    if (!st)
        st = gcut__grid_energy_set_nlinks(*e, table, D2_LEN, largest);
    if (!st && keep)
        st = gcut__grid_energy_keep_warm(*e);
    return st;
}

/* New terminals for every colour: with probability about a half a colour
 * changes side (which leaves deficits wherever its pixels sent flow), else
 * it grows, shrinks or zeroes; `scale` sets the magnitudes. */
static void next_tcap(rng *r, int32_t *tcap, int colors, int64_t scale, int32_t hard, int first)
{
    for (int k = 0; k < colors; k++) {
        int64_t kind = first ? 0 : rng_below(r, 6);
        int64_t v = rng_range(r, 0, scale);
        tcap[k] = kind <= 2 ? (int32_t)(tcap[k] > 0 ? -v : v) /* flip */
                  : kind == 3 ? tcap[k] / 2
                  : kind == 4 ? 0
                              : (int32_t)(tcap[k] >= 0 ? tcap[k] + v : tcap[k] - v);
        if (first)
            tcap[k] = (int32_t)rng_range(r, -scale, scale);
    }
    tcap[colors] = hard;
    tcap[colors + 1] = -hard;
}

static void reparam_one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                        uint64_t seed, int index)
{
    rng rg = {seed * 0x9e3779b97f4a7c15ull + (uint64_t)index * 0xd6e8feb86659fd93ull + 5};
    rng_next(&rg);
    const int big = index % 4 == 3;
    const int w = (int)rng_range(&rg, 1, big ? 300 : 48), h = (int)rng_range(&rg, 1, big ? 200 : 48);
    const int conn = rng_below(&rg, 2) ? 8 : 4;
    const int colors = (int)rng_range(&rg, 1, 12);
    static const int64_t scales[4] = {1, 60, 5000, 1000000};
    const int64_t scale = scales[rng_below(&rg, 4)];
    const int64_t weight = rng_below(&rg, 5) == 0 ? 0 : rng_range(&rg, 1, 400);
    const size_t n = (size_t)w * (size_t)h;
    uint8_t *rgb = malloc(3 * n), *seeds = calloc(n, 1), *labels = malloc(n);
    uint32_t *colour = malloc(n * sizeof *colour);
    int32_t *table = malloc(2 * (size_t)D2_LEN * sizeof *table);
    int32_t *tcap = calloc((size_t)colors + 2, sizeof *tcap);
    gcut_grid *g = NULL, *gc = NULL;
    gcut__grid_energy *e = NULL, *ec = NULL;
    char what[200];
    snprintf(what, sizeof what, "%s: seed %llu index %d (%dx%d, %d-connected, %d colours, "
             "terminals up to %lld, n-links up to %lld)", algo, (unsigned long long)seed, index, w,
             h, conn, colors, (long long)scale, (long long)weight);
    int ok = rgb && seeds && labels && colour && table && tcap;
    if (!ok) {
        check_fail(r, "%s: out of memory", what);
        goto done;
    }
    /* Patches of one colour with noise, so that a colour's pixels touch. */
    const int patch = (int)rng_range(&rg, 1, 16);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            colour[i] = (uint32_t)(((x / patch) * 7 + (y / patch) * 3 +
                                    (rng_below(&rg, 8) == 0 ? (int)rng_below(&rg, colors) : 0)) %
                                   colors);
            for (int c = 0; c < 3; c++)
                rgb[3 * i + (size_t)c] = (uint8_t)(colour[i] * 37 + (uint32_t)rng_below(&rg, 40));
        }
    for (int t = 0; t < 2; t++)
        for (int d2 = 0; d2 < D2_LEN; d2++)
            table[(size_t)t * D2_LEN + (size_t)d2] =
                (int32_t)(weight * 2000 / (2000 + d2) / (t ? 2 : 1));
    gcut__energy_image im = {rgb, seeds, colour, colors, 1};
    int32_t largest = 0, largest_c = 0;
    if (open_seg(gpu, algo, w, h, conn, &im, table, 1, &g, &e, &largest) ||
        open_seg(cpu, "bk", w, h, conn, &im, table, 0, &gc, &ec, &largest_c)) {
        check_fail(r, "%s: the graphs could not be set up: %s / %s", what, gcut_last_error(gpu),
                   gcut_last_error(cpu));
        ok = 0;
        goto done;
    }
    const int32_t hard = largest + 1;
    const int states = (int)rng_range(&rg, 4, 9);
    for (int k = 0; k < states && ok; k++) {
        next_tcap(&rg, tcap, colors, scale, hard, k == 0);
        if (k > 0 && rng_below(&rg, 2)) { /* a few seeds more */
            for (int m = (int)rng_range(&rg, 1, 6); m > 0; m--)
                seeds[rng_below(&rg, (int64_t)n)] =
                    rng_below(&rg, 2) ? GCUT_SEED_FG : GCUT_SEED_BG;
            if (gcut__grid_energy_set_seeds(e, seeds) || gcut__grid_energy_set_seeds(ec, seeds)) {
                check_fail(r, "%s, state %d: new seeds refused: %s", what, k, gcut_last_error(gpu));
                ok = 0;
                break;
            }
        }
        gcut_solve_info info, fresh;
        int64_t cut = 0;
        if (gcut__grid_energy_set_terminals(e, tcap) ||
            gcut__grid_energy_solve(e, labels, &info)) {
            check_fail(r, "%s, state %d: the warm cut failed: %s", what, k, gcut_last_error(gpu));
            ok = 0;
        } else if (gcut__grid_energy_set_terminals(ec, tcap) ||
                   gcut__grid_energy_solve(ec, labels, &fresh)) {
            check_fail(r, "%s, state %d: the fresh CPU cut failed: %s", what, k,
                       gcut_last_error(cpu));
            ok = 0;
        } else if (gcut_grid_verify(g, &cut) != GCUT_OK) {
            check_fail(r, "%s, state %d: the proof failed: %s", what, k, gcut_last_error(gpu));
            ok = 0;
        } else if (info.flow != fresh.flow || cut != info.flow) {
            check_fail(r, "%s, state %d: flow %lld (cut %lld, raised by %lld), fresh %lld", what,
                       k, (long long)info.flow, (long long)cut, (long long)g->terminal_offset,
                       (long long)fresh.flow);
            ok = 0;
        }
        if (ok && g->terminal_offset > largest_offset)
            largest_offset = g->terminal_offset;
        /* The graph as set, raises taken off, equals the CPU's. */
        if (ok && k == states - 1) {
            if (gcut__grid_energy_to_host(e) != GCUT_OK) {
                check_fail(r, "%s: the graph as set did not come back: %s", what,
                           gcut_last_error(gpu));
                ok = 0;
            }
            for (int32_t i = 0; i < g->n_padded && ok; i++)
                if (g->source_cap[i] != gc->source_cap[i] || g->sink_cap[i] != gc->sink_cap[i]) {
                    check_fail(r, "%s: node %d's terminals as set are %d/%d, not %d/%d", what,
                               (int)i, g->source_cap[i], g->sink_cap[i], gc->source_cap[i],
                               gc->sink_cap[i]);
                    ok = 0;
                }
        }
    }
done:
    if (ok)
        r->passed++;
    note_starts(gpu);
    gcut__grid_energy_close(e);
    gcut__grid_energy_close(ec);
    gcut_grid_destroy(g);
    gcut_grid_destroy(gc);
    free(rgb);
    free(seeds);
    free(labels);
    free(colour);
    free(table);
    free(tcap);
}
#endif

void check_grid_gpu_reparam(check_report *r, int count, uint64_t seed)
{
#ifdef GCUT_HAVE_CUDA
    largest_offset = 0;
    check_gpu_run(r, reparam_one, "tiled", count, seed);
    /* Each instance's first cut is from no flow, every later one warm. */
    if (r->passed > 0 && r->failed == 0 && cold_seen != r->passed)
        check_fail(r, "grid.gpu_seg_reparam: %lld cuts started from no flow, %d expected",
                   cold_seen, r->passed);
    if (r->passed > 4 && largest_offset == 0)
        check_fail(r, "grid.gpu_seg_reparam: no cut raised a terminal");
    check_warm_ran(r, "grid.gpu_seg_reparam");
#else
    r->skipped += count;
    (void)seed;
#endif
}
