/* GPU grid solvers against the CPU reference and BK (check_grid_gpu.h). */
#include "check_grid_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "gcut.h"

/* A larger grid: blobs of source and sink preference over random n-links,
 * so that flow has to travel across many tiles. */
static gcut_status large_grid(gcut_context *ctx, uint64_t seed, int index, gcut_grid **out)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index * 0xbf58476d1ce4e5b9ull + 1;
    for (int i = 0; i < 4; i++)
        check_mix(&s);
    int w = 33 + (int)(check_mix(&s) % 668), h = 17 + (int)(check_mix(&s) % 384);
    int conn = (index / 10) % 2 ? 8 : 4;
    int arc_max = 1 + (int)(check_mix(&s) % 200);
    gcut_status st = gcut_grid_create(ctx, w, h, conn, out);
    if (st)
        return st;
    double cx = (double)(check_mix(&s) % (uint64_t)w), cy = (double)(check_mix(&s) % (uint64_t)h);
    double rad = 5.0 + (double)(check_mix(&s) % (uint64_t)(w < h ? w : h));
    for (int y = 0; y < h && !st; y++)
        for (int x = 0; x < w && !st; x++) {
            double dx = x - cx, dy = y - cy;
            int inside = dx * dx + dy * dy < rad * rad;
            int32_t a = (int32_t)(check_mix(&s) % 1000), b = (int32_t)(check_mix(&s) % 1000);
            st = gcut_grid_set_terminal(*out, x, y, inside ? a : a / 8, inside ? b / 8 : b);
            for (int d = 0; d < conn && !st; d++) {
                int ox, oy;
                gcut_dir_offset((gcut_dir)d, &ox, &oy);
                if (x + ox < 0 || y + oy < 0 || x + ox >= w || y + oy >= h)
                    continue;
                st = gcut_grid_set_edge(*out, x, y, (gcut_dir)d,
                                        (int32_t)(check_mix(&s) % (uint64_t)(arc_max + 1)));
            }
        }
    if (st) {
        gcut_grid_destroy(*out);
        *out = NULL;
    }
    return st;
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
