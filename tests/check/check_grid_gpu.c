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
