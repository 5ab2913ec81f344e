/* The GPU general-graph solvers: against the reference and prf on every
 * regime and family (skipped without a usable GPU), and the device choice
 * (auto falls back to the CPU and says so; gpu fails clearly; a GPU
 * algorithm on the CPU device is refused), which runs everywhere. */
#include <criterion/criterion.h>
#include <string.h>

#include "check_graph_gpu.h"
#include "gcut.h"
#include "gpu_test.h"

Test(graph_gpu, worklist_equals_the_reference_and_prf_and_verifies)
{
    run_gpu_check(check_graph_gpu_worklist_vs_cpu, 200, 17);
}

Test(graph_gpu, worklist_picks_each_push_by_shape_and_equals_prf)
{
    run_gpu_check(check_graph_gpu_worklist_shapes_vs_cpu, 20, 19);
}

Test(graph_gpu, async_equals_the_reference_and_prf_and_verifies)
{
    run_gpu_check(check_graph_gpu_async_vs_cpu, 60, 17);
}

Test(graph_gpu, color_equals_the_reference_and_prf_and_verifies)
{
    run_gpu_check(check_graph_gpu_color_vs_cpu, 60, 17);
}

Test(graph_gpu, algorithms_list_the_gpu_solvers_of_a_cuda_build)
{
    const char *algos = gcut_graph_algorithms();
    cr_assert(strstr(algos, "prf") != NULL, "%s", algos);
    for (int k = 0; k < 3; k++) {
        const char *name = k == 0 ? "worklist" : k == 1 ? "async" : "color";
        cr_assert_eq(strstr(algos, name) != NULL, gcut_cuda_built() != 0, "%s", algos);
    }
}

/* s -5-> a -3-> t and s -2-> t: maximum flow 5. */
static gcut_graph *small_graph(gcut_context *ctx)
{
    const int32_t tail[] = {0, 2, 0}, head[] = {2, 1, 1}, cap[] = {5, 3, 2};
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 3, 3, tail, head, cap, 0, 1, &g), GCUT_OK);
    return g;
}

Test(graph_gpu, auto_solves_on_the_gpu_or_says_it_runs_on_the_cpu)
{
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_AUTO, &log);
    gcut_graph *g = small_graph(ctx);
    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, NULL, GCUT_GRAPH_SOLVE_FLOW, &info), GCUT_OK, "%s",
                 gcut_last_error(ctx));
    cr_assert_eq(info.flow, 5);
    cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
    if (have_gpu()) {
        cr_assert_str_neq(info.device, "cpu");
        cr_assert_str_eq(info.algo, "worklist");
    } else {
        cr_assert_str_eq(info.device, "cpu");
        cr_assert_str_eq(info.algo, "prf");
        cr_assert(strstr(log.text, "solving on the CPU") != NULL, "log: '%s'", log.text);
    }
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
}

Test(graph_gpu, gpu_without_a_device_fails_clearly_and_computes_nothing)
{
    if (have_gpu())
        cr_skip_test("a GPU is present");
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_GPU, &log);
    gcut_graph *g = small_graph(ctx);
    cr_assert_eq(gcut_graph_solve(g, NULL, 0, NULL), GCUT_E_NODEVICE);
    cr_assert(strstr(gcut_last_error(ctx), "GPU") != NULL, "%s", gcut_last_error(ctx));
    uint8_t side[3];
    cr_assert_eq(gcut_graph_cut_side(g, side), GCUT_E_STATE);
    if (gcut_cuda_built()) {
        cr_assert_eq(gcut_graph_solve(g, "async", 0, NULL), GCUT_E_NODEVICE);
        cr_assert(strstr(gcut_last_error(ctx), "async") != NULL, "%s", gcut_last_error(ctx));
    }
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
}

Test(graph_gpu, a_gpu_algorithm_on_the_cpu_device_is_refused)
{
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_CPU, &log);
    gcut_graph *g = small_graph(ctx);
    /* "runs on the GPU" in a CUDA build, "unknown algorithm" without */
    cr_assert_eq(gcut_graph_solve(g, "worklist", 0, NULL), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "worklist") != NULL, "%s", gcut_last_error(ctx));
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
}

Test(graph_gpu, color_refuses_a_node_of_too_high_a_degree_by_name)
{
    if (!have_gpu())
        cr_skip_test("no usable GPU");
    log_capture log = {""};
    gcut_context *ctx = logging_context(GCUT_DEVICE_GPU, &log);
    /* a star: node 0 joined to 600 others */
    enum { LEAVES = 600 };
    int32_t tail[LEAVES], head[LEAVES], cap[LEAVES];
    for (int i = 0; i < LEAVES; i++)
        tail[i] = 0, head[i] = i + 1, cap[i] = 1;
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, LEAVES + 1, LEAVES, tail, head, cap, 0, 1, &g),
                 GCUT_OK);
    cr_assert_eq(gcut_graph_solve(g, "color", 0, NULL), GCUT_E_UNSUPPORTED);
    cr_assert(strstr(gcut_last_error(ctx), "node 1 has 600 arcs") != NULL, "%s",
              gcut_last_error(ctx));
    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, "worklist", 0, &info), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(info.flow, 1);
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
}
