/* The parallel CPU grid cut "pbk": exact against the reference and BK for
 * every thread count, its strip plan, the thread option, and its hand-over
 * with BK's warm re-solves. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "check_grid_parallel.h"
#include "cpu/bk_grid_parallel.h" /* the strip plan and the explicit-strips entry */
#include "gcut.h"
#include "graph/grid.h"

static gcut_context *context_with_threads(int threads)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    opt.threads = threads;
    gcut_context *ctx = NULL;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_OK);
    return ctx;
}

/* A w x h grid with blobs of source and sink preference over n-links of
 * pseudo-random capacity: flow has to cross many strip borders. */
static gcut_grid *blob_grid(gcut_context *ctx, int w, int h, int conn, uint32_t salt)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, w, h, conn, &g), GCUT_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t v = ((uint32_t)x * 73856093u) ^ ((uint32_t)y * 19349663u) ^ (salt * 83492791u);
            v ^= v >> 13;
            v *= 0x5bd1e995u;
            v ^= v >> 15;
            int fg = ((x / 23) + (y / 17)) % 3 == 0;
            int32_t a = (int32_t)(v % 500), b = (int32_t)(v / 500 % 500);
            cr_assert_eq(gcut_grid_set_terminal(g, x, y, fg ? a : a / 5, fg ? b / 5 : b), GCUT_OK);
            for (int d = 0; d < conn; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx >= 0 && y + dy >= 0 && x + dx < w && y + dy < h)
                    cr_assert_eq(gcut_grid_set_edge(g, x, y, (gcut_dir)d,
                                                    (int32_t)(v / 250000u % 40 + (uint32_t)d)),
                                 GCUT_OK);
            }
        }
    return g;
}

Test(grid_parallel, matches_reference_for_1_to_8_threads_on_every_regime)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_grid_pbk_vs_reference(&r, 90, 20261121);
    cr_assert_eq(r.failed, 0, "%d of 90 grids failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 90);
}

Test(grid_parallel, any_strip_count_gives_bk_flow_and_labels)
{
    /* Strips from 1 row each up to one per thread, on 1 to 5 threads, with
     * the merges' odd carries: always BK's flow and BK's labels, and the
     * residuals pass verify. */
    gcut_context *ctx = context_with_threads(0);
    for (int conn = 4; conn <= 8; conn += 4) {
        gcut_grid *g = blob_grid(ctx, 97, 61, conn, (uint32_t)conn);
        gcut_solve_info info;
        cr_assert_eq(gcut_grid_solve(g, "bk", &info), GCUT_OK);
        uint8_t *want = malloc(97 * 61), *got = malloc(97 * 61);
        cr_assert(want && got);
        cr_assert_eq(gcut_grid_labels(g, want), GCUT_OK);
        static const int strips[] = {2, 3, 5, 7, 16, 33, 61};
        for (int threads = 1; threads <= 5; threads++)
            for (size_t k = 0; k < sizeof strips / sizeof strips[0]; k++) {
                int64_t iterations = 0;
                gcut__pbk_times times;
                gcut__grid_forget_warm(g);
                cr_assert_eq(gcut__pbk_grid_run(g, threads, strips[k], &iterations, &times),
                             GCUT_OK);
                cr_assert_eq(g->flow, info.flow,
                             "%d-connected, %d threads, %d strips: flow %lld, "
                             "BK %lld",
                             conn, threads, strips[k], (long long)g->flow, (long long)info.flow);
                cr_assert_eq(gcut_grid_labels(g, got), GCUT_OK);
                cr_assert_eq(memcmp(got, want, 97 * 61), 0, "%d threads, %d strips: labels differ",
                             threads, strips[k]);
                cr_assert_eq(gcut_grid_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
                /* The scheduler ran every merge of the plan, once. */
                cr_assert_eq(times.merges, strips[k] - 1, "%d threads, %d strips: %d merges",
                             threads, strips[k], times.merges);
            }
        free(want);
        free(got);
        gcut_grid_destroy(g);
    }
    gcut_context_destroy(ctx);
}

Test(grid_parallel, strip_plan_follows_the_thread_option)
{
    gcut_context *auto_ctx = context_with_threads(0), *six = context_with_threads(6);
    gcut_grid *small = NULL, *tall = NULL, *big = NULL;
    cr_assert_eq(gcut_grid_create(auto_ctx, 64, 64, 8, &small), GCUT_OK);
    cr_assert_eq(gcut_grid_create(six, 40, 3, 4, &tall), GCUT_OK);
    cr_assert_eq(gcut_grid_create(auto_ctx, 1024, 1024, 4, &big), GCUT_OK);
    /* Automatic: a small grid is plain BK; a large one gets a thread per
     * CPU within the per-thread pixel and row limits. */
    cr_assert_eq(gcut__pbk_grid_threads(small), 1);
    int t = gcut__pbk_grid_threads(big);
    cr_assert(t >= 1 && t <= 16, "%d threads for 1024x1024", t);
    /* Asked for: as many as asked, but never more than one per row. */
    cr_assert_eq(gcut__pbk_grid_threads(tall), 3);
    cr_assert_eq(gcut__pbk_grid_strips(tall, 3), 3);
    cr_assert_eq(gcut__pbk_grid_strips(big, 4), 4 * GCUT__PBK_STRIPS_PER_THREAD);
    cr_assert_leq(gcut__pbk_grid_strips(big, 64), 1024 / GCUT__PBK_MIN_ROWS);
    gcut_grid_destroy(small);
    gcut_grid_destroy(tall);
    gcut_grid_destroy(big);
    gcut_context_destroy(auto_ctx);
    gcut_context_destroy(six);
}

Test(grid_parallel, thread_option_out_of_range_is_refused)
{
    gcut_options opt;
    gcut_options_init(&opt);
    cr_assert_eq(opt.threads, 0);
    gcut_context *ctx = NULL;
    opt.threads = -1;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_E_INVALID);
    cr_assert_null(ctx);
    opt.threads = 65;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_E_INVALID);
    opt.threads = 64;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_OK);
    gcut_context_destroy(ctx);
}

Test(grid_parallel, alternates_with_warm_bk_resolves_exactly)
{
    /* pbk leaves no BK state behind: a BK solve after it starts cold, and
     * a BK re-solve after capacity changes stays exact; then pbk again. */
    gcut_context *ctx = context_with_threads(4);
    gcut_grid *g = blob_grid(ctx, 80, 72, 8, 7u);
    const char *order[] = {"pbk", "bk", "bk", "pbk", "bk", "pbk"};
    for (int step = 0; step < 6; step++) {
        if (step > 0) /* change a band of terminals: up, down, to zero */
            for (int x = 0; x < 80; x++)
                cr_assert_eq(gcut_grid_set_terminal(g, x, 10 + 9 * step, (step * 37 + x) % 300,
                                                    x % (step + 2) ? 0 : 500),
                             GCUT_OK);
        int64_t want = 0;
        uint8_t *side = malloc(80 * 72), *got = malloc(80 * 72);
        cr_assert(side && got);
        cr_assert_eq(check_grid_reference(g, &want, side), GCUT_OK);
        gcut_solve_info info;
        cr_assert_eq(gcut_grid_solve(g, order[step], &info), GCUT_OK, "%s", gcut_last_error(ctx));
        cr_assert_str_eq(info.algo, order[step]);
        cr_assert_eq(info.flow, want, "step %d (%s): flow %lld, reference %lld", step, order[step],
                     (long long)info.flow, (long long)want);
        cr_assert_eq(gcut_grid_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
        cr_assert_eq(gcut_grid_labels(g, got), GCUT_OK);
        cr_assert_eq(memcmp(got, side, 80 * 72), 0, "step %d (%s): labels differ", step,
                     order[step]);
        free(side);
        free(got);
    }
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
}
