/* The GPU grid solvers: against the CPU on random grids (skipped without a
 * usable GPU), and the device choice (auto falls back to the CPU and says
 * so; gpu fails clearly), which runs everywhere. */
#include <criterion/criterion.h>
#include <string.h>

#include "check_grid.h"
#include "check_grid_gpu.h"
#include "gcut.h"
#include "gpu_test.h"

Test(grid_gpu, tiled_equals_cpu_and_verifies_on_random_grids)
{
    run_gpu_check(check_grid_gpu_tiled_vs_cpu, 120, 11);
}

Test(grid_gpu, lockfree_equals_cpu_and_verifies_on_random_grids)
{
    run_gpu_check(check_grid_gpu_lockfree_vs_cpu, 60, 11);
}

Test(grid_gpu, tiled_runs_its_size_dependent_parts_on_large_grids_and_equals_bk)
{
    run_gpu_check(check_grid_gpu_large_vs_cpu, 6, 11);
}

Test(grid_gpu, algorithms_list_the_gpu_solvers_of_a_cuda_build)
{
    const char *algos = gcut_grid_algorithms();
    cr_assert(strstr(algos, "bk") != NULL);
    cr_assert_eq(strstr(algos, "tiled") != NULL, gcut_cuda_built() != 0, "%s", algos);
    cr_assert_eq(strstr(algos, "lockfree") != NULL, gcut_cuda_built() != 0, "%s", algos);
}

/* A 2x1 grid whose maximum flow is 3: s -5-> a -3-> b -4-> t. */
static gcut_grid *small_grid(gcut_context *ctx)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, 2, 1, 4, &g), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 5, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 1, 0, 0, 4), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 3), GCUT_OK);
    return g;
}

Test(grid_gpu, auto_solves_on_the_gpu_or_says_it_runs_on_the_cpu)
{
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_AUTO, &log);
    gcut_grid *g = small_grid(ctx);
    gcut_solve_info info;
    cr_assert_eq(gcut_grid_solve(g, NULL, &info), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(info.flow, 3);
    cr_assert_eq(gcut_grid_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
    if (have_gpu()) {
        cr_assert_str_neq(info.device, "cpu");
        cr_assert_str_eq(info.algo, "tiled");
    } else {
        cr_assert_str_eq(info.device, "cpu");
        cr_assert(strstr(log.text, "solving on the CPU") != NULL, "log: '%s'", log.text);
    }
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
}

Test(grid_gpu, gpu_without_a_device_fails_clearly)
{
    if (have_gpu())
        cr_skip_test("a GPU is present");
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_GPU, &log);
    gcut_grid *g = small_grid(ctx);
    cr_assert_eq(gcut_grid_solve(g, NULL, NULL), GCUT_E_NODEVICE);
    cr_assert(strstr(gcut_last_error(ctx), "GPU") != NULL, "%s", gcut_last_error(ctx));
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
}

Test(grid_gpu, a_gpu_algorithm_on_the_cpu_device_is_refused)
{
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_CPU, &log);
    gcut_grid *g = small_grid(ctx);
    cr_assert_eq(gcut_grid_solve(g, "tiled", NULL), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "tiled") != NULL, "%s", gcut_last_error(ctx));
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
}
