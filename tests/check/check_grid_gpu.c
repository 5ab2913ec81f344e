/* GPU grid solvers against the CPU reference and BK (check_grid_gpu.h). */
#include "check_grid_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "gcut.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

/* A larger grid whose flow has to travel across many tiles. */
static gcut_status large_grid(gcut_context *ctx, uint64_t seed, int index, gcut_grid **out)
{
    static const check_disc_shape shape = {33, 668, 17, 384, 200, 5, 8};
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index * 0xbf58476d1ce4e5b9ull + 1;
    return check_grid_disc(ctx, s, (index / 10) % 2 ? 8 : 4, &shape, out);
}

static void check_one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                      uint64_t seed, int index)
{
    const int large = index % 10 == 9; /* 10, not 8: every regime still comes up */
    gcut_grid *cg = NULL, *gg = NULL;
    uint8_t *ref_side = NULL;
    char what[240];
    gcut_status st =
        large ? large_grid(cpu, seed, index, &cg) : check_grid_random(cpu, seed, index, &cg);
    if (!st)
        st = large ? large_grid(gpu, seed, index, &gg) : check_grid_random(gpu, seed, index, &gg);
    if (st) {
        check_fail(r, "seed %llu index %d: the generator failed (%s)", (unsigned long long)seed,
                   index, gcut_status_str(st));
        goto done;
    }
    int w = gcut_grid_width(gg), h = gcut_grid_height(gg);
    snprintf(what, sizeof what, "%s: seed %llu index %d (%s, %dx%d, %d-connected)", algo,
             (unsigned long long)seed, index,
             large ? "large" : check_grid_regime_name(index % CHECK_GRID_REGIMES), w, h,
             gcut_grid_connectivity(gg));

    int64_t want = 0;
    if (!large) {
        ref_side = malloc((size_t)w * (size_t)h);
        if (!ref_side || check_grid_reference(cg, &want, ref_side) != GCUT_OK) {
            check_fail(r, "%s: the reference ran out of memory", what);
            goto done;
        }
    }
    gcut_solve_info cinfo, ginfo;
    if ((st = gcut_grid_solve(cg, "bk", &cinfo)) != GCUT_OK) {
        check_fail(r, "%s: BK failed (%s): %s", what, gcut_status_str(st), gcut_last_error(cpu));
        goto done;
    }
    if (large)
        want = cinfo.flow;
    else if (cinfo.flow != want) {
        check_fail(r, "%s: BK's flow %lld differs from the reference's %lld", what,
                   (long long)cinfo.flow, (long long)want);
        goto done;
    }
    if ((st = gcut_grid_solve(gg, algo, &ginfo)) != GCUT_OK) {
        check_fail(r, "%s: the GPU solve failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(gpu));
        goto done;
    }
    if (!ginfo.device || strcmp(ginfo.device, "cpu") == 0 || !ginfo.algo ||
        strcmp(ginfo.algo, algo) != 0) {
        check_fail(r, "%s: the solve reports device '%s', algo '%s'", what,
                   ginfo.device ? ginfo.device : "(null)", ginfo.algo ? ginfo.algo : "(null)");
        goto done;
    }
    if (check_grid_solution(r, gpu, gg, ginfo.flow, want, ref_side, what))
        r->passed++;
done:
    free(ref_side);
    gcut_grid_destroy(cg);
    gcut_grid_destroy(gg);
}

void check_grid_gpu_tiled_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one, "tiled", count, seed);
}

void check_grid_gpu_lockfree_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one, "lockfree", count, seed);
}

/* Grids large enough for the tiled solver's size rules (grid_gpu_run.cu):
 * 4-connected of 4096 tiles or more (its relabels sweep every tile first,
 * and after push phases that leave few active tiles start from the last
 * relabel's heights) and 8-connected of 1024 tiles or more (a push phase
 * on few active tiles ends in a worklist launch), against BK. Over the
 * check, each of those parts must have run: the counts come from the
 * solver's record of its runs. */
typedef struct large_parts {
    long long kept, swept, worklist;
} large_parts;

static large_parts parts_seen;

static void check_one_large(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, uint64_t seed, int index)
{
    static const check_disc_shape shape4 = {2017, 200, 1009, 120, 300, 5, 8};
    static const check_disc_shape shape8 = {993, 300, 497, 200, 150, 5, 8};
    const int conn = index % 2 ? 8 : 4;
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index * 0x94d049bb133111ebull + 7;
    gcut_grid *cg = NULL, *gg = NULL;
    char what[240];
    gcut_status st = check_grid_disc(cpu, s, conn, conn == 4 ? &shape4 : &shape8, &cg);
    if (!st)
        st = check_grid_disc(gpu, s, conn, conn == 4 ? &shape4 : &shape8, &gg);
    if (st) {
        check_fail(r, "seed %llu index %d: the generator failed (%s)", (unsigned long long)seed,
                   index, gcut_status_str(st));
        goto done;
    }
    snprintf(what, sizeof what, "%s: seed %llu index %d (large, %dx%d, %d-connected)", algo,
             (unsigned long long)seed, index, gcut_grid_width(gg), gcut_grid_height(gg), conn);
    gcut_solve_info cinfo, ginfo;
    if ((st = gcut_grid_solve(cg, "bk", &cinfo)) != GCUT_OK) {
        check_fail(r, "%s: BK failed (%s): %s", what, gcut_status_str(st), gcut_last_error(cpu));
        goto done;
    }
    if ((st = gcut_grid_solve(gg, algo, &ginfo)) != GCUT_OK) {
        check_fail(r, "%s: the GPU solve failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(gpu));
        goto done;
    }
    if (!check_grid_solution(r, gpu, gg, ginfo.flow, cinfo.flow, NULL, what))
        goto done;
#ifdef GCUT_HAVE_CUDA
    {
        gcut__gpu_grid_stats stats = {0};
        if (gcut__gpu_grid_stats_get(gpu, &stats) != GCUT_OK) {
            check_fail(r, "%s: no record of the run: %s", what, gcut_last_error(gpu));
            goto done;
        }
        parts_seen.kept += stats.kept_relabels;
        parts_seen.swept += stats.swept_relabels;
        parts_seen.worklist += stats.worklist_phases;
    }
#endif
    r->passed++;
done:
    gcut_grid_destroy(cg);
    gcut_grid_destroy(gg);
}

void check_grid_gpu_large_vs_cpu(check_report *r, int count, uint64_t seed)
{
    memset(&parts_seen, 0, sizeof parts_seen);
    check_gpu_run(r, check_one_large, "tiled", count, seed);
    /* Six instances are enough for each part to come up (three of each
     * connectivity); fewer may not reach a tail that keeps or queues. */
    if (r->passed >= 6 && r->failed == 0 &&
        (!parts_seen.kept || !parts_seen.swept || !parts_seen.worklist))
        check_fail(r, "over %d large grids the tiled solver ran %lld relabels from the last "
                      "heights, %lld swept relabels and %lld worklist push phases; each must "
                      "run at least once",
                   r->passed, parts_seen.kept, parts_seen.swept, parts_seen.worklist);
}

#ifdef GCUT_HAVE_CUDA
/* The knobs of instance `index`: the height cap at margins from 1 up, or
 * none; from 1 to 3 push launches a phase and 1 to 16 sweeps a tile run,
 * so that cycles end in every state; every fourth instance traced. */
static gcut__gpu_grid_knobs knobs_of(int index)
{
    static const int margins[] = {1, 2, 8, 64, -1};
    static const int sweeps[] = {1, 3, 16};
    gcut__gpu_grid_knobs k = {0};
    k.cap_margin = margins[index % 5];
    k.push_launches = 1 + index % 3;
    k.sweeps = sweeps[(index / 3) % 3];
    k.trace = index % 4 == 0;
    return k;
}

/* A traced run's record must account for the run: one cycle a relabel,
 * the last one leaving no active pixel, and at every cycle the excess held
 * by active and cut-off pixels no more than after the first relabel (the
 * rest went to the sink; pushes only move it). */
static int check_trace(check_report *r, gcut_context *gpu, const char *what)
{
    const gcut__gpu_grid_cycle *c = NULL;
    gcut__gpu_grid_stats stats = {0};
    int n = 0;
    if (gcut__gpu_grid_trace_get(gpu, &c, &n) != GCUT_OK ||
        gcut__gpu_grid_stats_get(gpu, &stats) != GCUT_OK) {
        check_fail(r, "%s: no trace: %s", what, gcut_last_error(gpu));
        return 0;
    }
    if (n != stats.relabels || n < 1 || c[n - 1].active_px != 0 || c[n - 1].active_excess != 0) {
        check_fail(r, "%s: the trace has %d cycles for %lld relabels, the last leaving %lld active "
                      "pixels", what, n, stats.relabels, n ? c[n - 1].active_px : -1ll);
        return 0;
    }
    const long long total = c[0].active_excess + c[0].cutoff_excess;
    for (int k = 1; k < n; k++)
        if (c[k].active_excess + c[k].cutoff_excess > total || c[k].cutoff_px < c[k - 1].cutoff_px) {
            check_fail(r, "%s: cycle %d holds %lld excess (the first %lld) and %lld cut-off pixels "
                          "(the one before %lld)", what, k, c[k].active_excess + c[k].cutoff_excess,
                       total, c[k].cutoff_px, c[k - 1].cutoff_px);
            return 0;
        }
    return 1;
}
#endif

/* check_one() with the tiled solver's knobs set per instance (knobs_of),
 * then the trace's record checked, and the graph run again from the
 * solver's device copy: the same flow. */
static void check_one_knobs(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, uint64_t seed, int index)
{
#ifdef GCUT_HAVE_CUDA
    const gcut__gpu_grid_knobs k = knobs_of(index), none = {0};
    char what[160];
    snprintf(what, sizeof what, "knobs: seed %llu index %d (cap %d, %d launches, %d sweeps)",
             (unsigned long long)seed, index, k.cap_margin, k.push_launches, k.sweeps);
    if (gcut__gpu_grid_knobs_set(gpu, &k) != GCUT_OK) {
        check_fail(r, "%s: %s", what, gcut_last_error(gpu));
        return;
    }
    const int failed = r->failed;
    check_one(r, cpu, gpu, algo, seed, index);
    if (r->failed == failed && k.trace && !check_trace(r, gpu, what))
        r->passed--;
    gcut__gpu_grid_knobs_set(gpu, &none);
#else
    check_one(r, cpu, gpu, algo, seed, index);
#endif
}

void check_grid_gpu_knobs_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_knobs, "tiled", count, seed);
}

/* A run from the bench's device copy of the graph gives the first run's
 * flow, and so does a traced one. */
static void check_one_snapshot(check_report *r, gcut_context *cpu, gcut_context *gpu,
                               const char *algo, uint64_t seed, int index)
{
    (void)cpu;
    (void)algo;
#ifdef GCUT_HAVE_CUDA
    gcut_grid *g = NULL;
    char what[120];
    snprintf(what, sizeof what, "snapshot: seed %llu index %d", (unsigned long long)seed, index);
    gcut_status st = check_grid_random(gpu, seed, index, &g);
    gcut_solve_info info;
    if (!st)
        st = gcut_grid_solve(g, "tiled", &info);
    if (st) {
        check_fail(r, "%s: %s", what, gcut_last_error(gpu));
        gcut_grid_destroy(g);
        return;
    }
    gcut__gpu_grid_knobs k = {0};
    k.trace = 1;
    int ok = 1;
    for (int pass = 0; pass < 2 && ok; pass++) {
        int64_t it = 0, cut = 0;
        ok = gcut__gpu_grid_upload(g) == GCUT_OK && gcut__gpu_grid_snapshot(g, 1) == GCUT_OK &&
             gcut__gpu_grid_run(g, GCUT__GPU_GRID_TILED, &it) == GCUT_OK &&
             gcut__gpu_grid_knobs_set(gpu, &k) == GCUT_OK &&
             gcut__gpu_grid_snapshot(g, 2) == GCUT_OK &&
             gcut__gpu_grid_run(g, GCUT__GPU_GRID_TILED, &it) == GCUT_OK &&
             gcut__gpu_grid_download(g) == GCUT_OK && gcut_grid_verify(g, &cut) == GCUT_OK &&
             cut == info.flow;
        k.trace = 0;
        gcut__gpu_grid_knobs_set(gpu, &k);
        if (!ok)
            check_fail(r, "%s: the run from the copy: cut %lld, first solve %lld (%s)", what,
                       (long long)cut, (long long)info.flow, gcut_last_error(gpu));
    }
    gcut__gpu_grid_snapshot(g, 0);
    gcut_grid_destroy(g);
    if (ok)
        r->passed++;
#else
    (void)r;
    (void)gpu;
    (void)seed;
    (void)index;
#endif
}

void check_grid_gpu_snapshot(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_snapshot, "tiled", count, seed);
}
