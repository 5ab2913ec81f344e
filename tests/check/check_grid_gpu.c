/* GPU grid solvers against the CPU reference and BK (check_grid_gpu.h). */
#include "check_grid_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "gcut.h"
#include "gpu/gpu.h"

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

/* check_one() with the GPU context in a forced mode (gcut__gpu_grid_mode's
 * values; -1 keeps the current), named in the failure. */
static void check_one_in_mode(check_report *r, gcut_context *cpu, gcut_context *gpu,
                              const char *algo, uint64_t seed, int index, int relabel, int push,
                              const char *mode)
{
#ifdef GCUT_HAVE_CUDA
    if (gcut__gpu_grid_mode(gpu, relabel, -1, push) != GCUT_OK) {
        check_fail(r, "tiled (%s): setting the mode failed: %s", mode, gcut_last_error(gpu));
        return;
    }
#else
    (void)relabel, (void)push, (void)mode;
#endif
    check_one(r, cpu, gpu, algo, seed, index);
}

/* The tiled solver with every relabel after a run's first started from the
 * last one's heights (KEEP forced; by default only on large 4-connected
 * grids after push phases that changed few tiles, which small grids seldom
 * reach). */
static void check_one_keep(check_report *r, gcut_context *cpu, gcut_context *gpu,
                           const char *algo, uint64_t seed, int index)
{
    check_one_in_mode(r, cpu, gpu, algo, seed, index, GCUT_GPU_GRID_RELABEL_KEEP_ALWAYS, -1,
                      "KEEP forced");
}

void check_grid_gpu_keep_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_keep, "tiled", count, seed);
}

/* The tiled solver with the rest of a push phase on few active tiles as
 * one worklist launch (push mode 8, forced: by default only on 8-connected
 * grids of 1024 tiles or more, larger than these). */
static void check_one_tail_wl(check_report *r, gcut_context *cpu, gcut_context *gpu,
                              const char *algo, uint64_t seed, int index)
{
    check_one_in_mode(r, cpu, gpu, algo, seed, index, -1, GCUT_GPU_GRID_PUSH_TAIL_WL,
                      "tail worklist");
}

void check_grid_gpu_tail_wl_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_tail_wl, "tiled", count, seed);
}

/* The tiled solver with SWEEP's first pass in every relabel from scratch
 * (by default only on large grids, grid_kernels.h); on odd instances with
 * KEEP forced as well, so that incremental relabels follow a swept one, as
 * they do by default on large 4-connected grids. */
static void check_one_sweep(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, uint64_t seed, int index)
{
    const int odd = index % 2;
    check_one_in_mode(r, cpu, gpu, algo, seed, index,
                      odd ? GCUT_GPU_GRID_RELABEL_SWEEP_KEEP_ALWAYS
                          : GCUT_GPU_GRID_RELABEL_SWEEP_ALWAYS,
                      -1, odd ? "SWEEP and KEEP forced" : "SWEEP forced");
}

void check_grid_gpu_sweep_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_sweep, "tiled", count, seed);
}
