/* GPU grid solves from host arrays (check_grid_e2e.h). */
#include "check_grid_e2e.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "gcut.h"

/* BK's flow of grid `index` of `seed`, built in the CPU context. */
static gcut_status bk_flow(gcut_context *cpu, uint64_t seed, int index, int64_t *flow)
{
    gcut_grid *g = NULL;
    gcut_solve_info info;
    gcut_status st = check_grid_random(cpu, seed, index, &g);
    if (!st)
        st = gcut_grid_solve(g, "bk", &info);
    if (!st)
        *flow = info.flow;
    gcut_grid_destroy(g);
    return st;
}

static int solve_and_check(check_report *r, gcut_context *ctx, gcut_grid *g, const char *algo,
                           int64_t want, const char *what)
{
    gcut_solve_info info;
    gcut_status st = gcut_grid_solve(g, algo, &info);
    if (st) {
        check_fail(r, "%s: %s solve failed (%s): %s", what, algo, gcut_status_str(st),
                   gcut_last_error(ctx));
        return 0;
    }
    if (info.flow != want) {
        check_fail(r, "%s: %s flow %lld, BK %lld", what, algo, (long long)info.flow,
                   (long long)want);
        return 0;
    }
    return 1;
}

static int verify(check_report *r, gcut_context *ctx, gcut_grid *g, int64_t want,
                  const char *what)
{
    int64_t cut = 0;
    gcut_status st = gcut_grid_verify(g, &cut);
    if (st || cut != want) {
        check_fail(r, "%s: verify %s (cut %lld, flow %lld): %s", what, gcut_status_str(st),
                   (long long)cut, (long long)want, gcut_last_error(ctx));
        return 0;
    }
    return 1;
}

static void residuals_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                          const char *algo, uint64_t seed, int index)
{
    const int ia = 2 * index, ib = 2 * index + 1;
    int64_t fa = 0, fb = 0;
    gcut_grid *a = NULL, *b = NULL, *c = NULL;
    char what[160];
    snprintf(what, sizeof what, "seed %llu pair %d", (unsigned long long)seed, index);
    if (bk_flow(cpu, seed, ia, &fa) || bk_flow(cpu, seed, ib, &fb) ||
        check_grid_random(gpu, seed, ia, &a) || check_grid_random(gpu, seed, ib, &b)) {
        check_fail(r, "%s: the generator failed", what);
        goto done;
    }
    int ok = solve_and_check(r, gpu, a, algo, fa, what) &&
             solve_and_check(r, gpu, b, algo, fb, what) && verify(r, gpu, a, fa, what) &&
             verify(r, gpu, b, fb, what) && verify(r, gpu, a, fa, what) &&
             solve_and_check(r, gpu, a, algo, fa, what);
    if (!ok)
        goto done;
    gcut_grid_destroy(a); /* its residuals are still on the device */
    a = NULL;
    if (check_grid_random(gpu, seed, ib, &c)) {
        check_fail(r, "%s: the generator failed", what);
        goto done;
    }
    /* (A GPU context refuses the CPU's solvers.) c takes the device buffers
     * where the destroyed a left its residuals; b's proof still holds. */
    if (solve_and_check(r, gpu, c, algo, fb, what) && verify(r, gpu, c, fb, what) &&
        verify(r, gpu, b, fb, what))
        r->passed++;
done:
    gcut_grid_destroy(a);
    gcut_grid_destroy(b);
    gcut_grid_destroy(c);
}

/* A context started beside the caller solves as any other; one started
 * and never used goes away cleanly. */
static void warm_contexts(check_report *r, gcut_context *cpu, uint64_t seed)
{
    gcut_context *warm = check_context(GCUT_DEVICE_GPU), *idle = check_context(GCUT_DEVICE_GPU);
    gcut_context *cpu_only = check_context(GCUT_DEVICE_CPU);
    gcut_grid *g = NULL;
    int64_t want = 0;
    if (!warm || !idle || !cpu_only || gcut_context_warm_device(warm) ||
        gcut_context_warm_device(idle) || gcut_context_warm_device(cpu_only) ||
        gcut_context_warm_device(NULL) != GCUT_E_INVALID) {
        check_fail(r, "warm contexts: creating or warming failed");
    } else if (bk_flow(cpu, seed, 7, &want) || check_grid_random(warm, seed, 7, &g)) {
        check_fail(r, "warm contexts: the generator failed");
    } else if (solve_and_check(r, warm, g, "tiled", want, "warm context") &&
               verify(r, warm, g, want, "warm context")) {
        r->passed++;
    }
    gcut_grid_destroy(g);
    gcut_context_destroy(warm);
    gcut_context_destroy(idle);
    gcut_context_destroy(cpu_only);
}

/* The labels of two solved grids of the same size are equal: 1. */
static int same_labels(check_report *r, gcut_grid *a, gcut_grid *b, const char *what)
{
    const size_t n = (size_t)gcut_grid_width(a) * (size_t)gcut_grid_height(a);
    uint8_t *la = malloc(n), *lb = malloc(n);
    int ok = la && lb && !gcut_grid_labels(a, la) && !gcut_grid_labels(b, lb);
    if (!ok)
        check_fail(r, "%s: labels could not be read", what);
    else if (memcmp(la, lb, n)) {
        check_fail(r, "%s: the GPU's labels differ from BK's", what);
        ok = 0;
    }
    free(la);
    free(lb);
    return ok;
}

/* Fresh grids growing and shrinking in one GPU context of `threads`
 * threads (the staging pool and the device buffers kept from grid to grid,
 * grown for a larger one; several chunks a thread at the larger sizes):
 * each grid's flow and labels are BK's, and its proof verifies after the
 * next grid took the device buffers (its residuals saved through the pool). */
static void sizes_in_context(check_report *r, gcut_context *cpu, uint64_t seed, int threads)
{
    static const int dims[][2] = {{300, 200}, {96, 70}, {420, 330}, {301, 199}, {33, 700}};
    const int n = (int)(sizeof dims / sizeof dims[0]);
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_GPU;
    opt.threads = threads;
    gcut_context *gpu = NULL;
    gcut_grid *prev = NULL;
    int64_t prev_flow = 0;
    int failed = 0;
    if (gcut_context_create(&opt, &gpu)) {
        check_fail(r, "sizes (%d threads): no GPU context", threads);
        return;
    }
    for (int k = 0; k < n && !failed; k++) {
        const check_disc_shape shape = {dims[k][0], 1, dims[k][1], 1, 20, 4, 3};
        const uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)(100 + k);
        const int conn = k % 2 ? 4 : 8;
        gcut_grid *cg = NULL, *gg = NULL;
        gcut_solve_info ci;
        char what[128];
        snprintf(what, sizeof what, "sizes (%d threads): %dx%d %d-connected", threads, dims[k][0],
                 dims[k][1], conn);
        failed = 1;
        if (check_grid_disc(cpu, s, conn, &shape, &cg) || check_grid_disc(gpu, s, conn, &shape, &gg))
            check_fail(r, "%s: the generator failed", what);
        else if (gcut_grid_solve(cg, "bk", &ci))
            check_fail(r, "%s: BK failed: %s", what, gcut_last_error(cpu));
        else if (solve_and_check(r, gpu, gg, "tiled", ci.flow, what) &&
                 same_labels(r, cg, gg, what) &&
                 (!prev || verify(r, gpu, prev, prev_flow, what)))
            failed = 0;
        gcut_grid_destroy(cg);
        gcut_grid_destroy(prev);
        prev = gg;
        prev_flow = ci.flow;
    }
    if (!failed && prev && verify(r, gpu, prev, prev_flow, "sizes: the last grid"))
        r->passed++;
    gcut_grid_destroy(prev);
    gcut_context_destroy(gpu);
}

void check_grid_gpu_residuals_on_demand(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, residuals_one, "tiled", count, seed);
    if (r->skipped == 0 && count > 0) {
        gcut_context *cpu = check_context(GCUT_DEVICE_CPU);
        if (cpu) {
            warm_contexts(r, cpu, seed);
            sizes_in_context(r, cpu, seed, 1);
            sizes_in_context(r, cpu, seed, 0);
        }
        gcut_context_destroy(cpu);
    }
}

/* A grid of w x h with capacities at pixel (x, y) adding up past INT32_MAX
 * (with `source` INT32_MAX - 3; a small `source` gives the same grid
 * without the overflow, and *px the pixel). */
static gcut_status overflow_grid_with(gcut_context *ctx, uint64_t seed, int index, int32_t source,
                                      int *px, int *py, gcut_grid **out)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index + 1;
    const int conn = index % 2 ? 8 : 4, w = 2 + (int)(check_mix(&s) % 40),
              h = 2 + (int)(check_mix(&s) % 40);
    const int x = (int)(check_mix(&s) % (uint64_t)(w - 1)), y = (int)(check_mix(&s) % (uint64_t)h);
    gcut_status st = gcut_grid_create(ctx, w, h, conn, out);
    if (!st)
        st = gcut_grid_set_terminal(*out, x, y, source, 2);
    if (!st)
        st = gcut_grid_set_edge(*out, x, y, GCUT_DIR_E, 2 + (int32_t)(check_mix(&s) % 100));
    *px = x;
    *py = y;
    return st;
}

static gcut_status overflow_grid(gcut_context *ctx, uint64_t seed, int index, gcut_grid **out)
{
    int x, y;
    return overflow_grid_with(ctx, seed, index, INT32_MAX - 3, &x, &y, out);
}

/* The same refusal when the overflowing change comes to a grid the GPU
 * solved twice before (its next solve would start warm, with no upload
 * to check the graph): 1 when it holds. */
static int overflow_warm(check_report *r, gcut_context *gpu, const char *algo, uint64_t seed,
                         int index, const char *cpu_msg)
{
    gcut_grid *g = NULL;
    int x = 0, y = 0, ok = 0;
    gcut_status st = overflow_grid_with(gpu, seed, index, 2, &x, &y, &g);
    if (!st)
        st = gcut_grid_solve(g, algo, NULL);
    if (!st)
        st = gcut_grid_solve(g, algo, NULL);
    if (!st)
        st = gcut_grid_set_terminal(g, x, y, INT32_MAX - 3, 2);
    if (st)
        check_fail(r, "overflow grid %d (warm): set-up: %s", index, gcut_last_error(gpu));
    else if ((st = gcut_grid_solve(g, algo, NULL)) != GCUT_E_OVERFLOW ||
             strcmp(cpu_msg, gcut_last_error(gpu)))
        check_fail(r, "overflow grid %d (warm): BK '%s', %s %s '%s'", index, cpu_msg, algo,
                   gcut_status_str(st), gcut_last_error(gpu));
    else
        ok = 1;
    gcut_grid_destroy(g);
    return ok;
}

static void overflow_one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                         uint64_t seed, int index)
{
    gcut_grid *cg = NULL, *gg = NULL;
    char cpu_msg[512];
    if (overflow_grid(cpu, seed, index, &cg) || overflow_grid(gpu, seed, index, &gg)) {
        check_fail(r, "overflow grid %d: the generator failed", index);
        goto done;
    }
    gcut_status cs = gcut_grid_solve(cg, "bk", NULL);
    snprintf(cpu_msg, sizeof cpu_msg, "%s", gcut_last_error(cpu));
    gcut_status gs = gcut_grid_solve(gg, algo, NULL);
    if (cs != GCUT_E_OVERFLOW || gs != GCUT_E_OVERFLOW || strcmp(cpu_msg, gcut_last_error(gpu)))
        check_fail(r, "overflow grid %d: BK %s '%s', %s %s '%s'", index, gcut_status_str(cs),
                   cpu_msg, algo, gcut_status_str(gs), gcut_last_error(gpu));
    else if (overflow_warm(r, gpu, algo, seed, index, cpu_msg))
        r->passed++;
done:
    gcut_grid_destroy(cg);
    gcut_grid_destroy(gg);
}

void check_grid_gpu_overflow(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, overflow_one, "tiled", count, seed);
}

/* The start-up's times: none for a context never started beside (cold),
 * none for a CPU context, a start that took time once a GPU solve joined
 * it, and never negative. */
static int device_times_ok(const gcut_context *warm, const gcut_context *cold, int on_gpu)
{
    double ws = -1, ww = -1, cs = -1, cw = -1;
    if (gcut_context_device_times(warm, &ws, &ww) || gcut_context_device_times(cold, &cs, &cw))
        return 0;
    if (cs != 0 || cw != 0 || ws < 0 || ww < 0)
        return 0;
    if (gcut_context_options(warm)->device == GCUT_DEVICE_CPU && (ws != 0 || ww != 0))
        return 0;
    return !on_gpu || ws > 0;
}

void check_grid_warm_device(check_report *r, int count, uint64_t seed)
{
    static const gcut_device devices[3] = {GCUT_DEVICE_CPU, GCUT_DEVICE_AUTO, GCUT_DEVICE_GPU};
    gcut_context *cpu = check_context(GCUT_DEVICE_CPU);
    if (!cpu || gcut_context_warm_device(NULL) != GCUT_E_INVALID ||
        gcut_context_device_times(NULL, NULL, NULL) != GCUT_E_INVALID) {
        check_fail(r, "warm device: no CPU context, or NULL not refused");
        gcut_context_destroy(cpu);
        return;
    }
    for (int i = 0; i < count; i++) {
        const gcut_device device = devices[i % 3];
        gcut_context *warm = check_context(device), *cold = check_context(device);
        gcut_context *idle = check_context(device);
        gcut_grid *gw = NULL, *gc = NULL;
        int64_t want = 0;
        char what[96];
        snprintf(what, sizeof what, "warm device: seed %llu grid %d (device %d)",
                 (unsigned long long)seed, i, (int)device);
        if (!warm || !cold || !idle || gcut_context_warm_device(warm) ||
            gcut_context_warm_device(warm) || gcut_context_warm_device(idle) ||
            bk_flow(cpu, seed, i, &want) || check_grid_random(warm, seed, i, &gw) ||
            check_grid_random(cold, seed, i, &gc)) {
            check_fail(r, "%s: setting up failed", what);
        } else {
            gcut_solve_info wi, ci;
            gcut_status ws = gcut_grid_solve(gw, NULL, &wi), cs = gcut_grid_solve(gc, NULL, &ci);
            if (ws != cs)
                check_fail(r, "%s: status %s started beside, %s not", what, gcut_status_str(ws),
                           gcut_status_str(cs));
            else if (ws == GCUT_OK && (wi.flow != want || strcmp(wi.device, ci.device)))
                check_fail(r, "%s: flow %lld on %s, BK %lld (not started beside: %s)", what,
                           (long long)wi.flow, wi.device, (long long)want, ci.device);
            else if (ws == GCUT_OK && !verify(r, warm, gw, want, what))
                ; /* verify() said why */
            else if (!device_times_ok(warm, cold, ws == GCUT_OK && strcmp(wi.device, "cpu")))
                check_fail(r, "%s: gcut_context_device_times() inconsistent", what);
            else
                r->passed++;
        }
        gcut_grid_destroy(gw);
        gcut_grid_destroy(gc);
        gcut_context_destroy(warm);
        gcut_context_destroy(cold);
        gcut_context_destroy(idle);
    }
    gcut_context_destroy(cpu);
}
