/* General-graph solvers: every CPU solver against the reference on
 * thousands of small random graphs and on every generator family, with the
 * proofs checked; and the API's contracts (errors, states, devices). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "check_graph.h"
#include "gcut.h"

static gcut_context *ctx;

static void setup(void)
{
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
}
static void teardown(void)
{
    gcut_context_destroy(ctx);
}

TestSuite(graph_maxflow, .init = setup, .fini = teardown);

Test(graph_maxflow, every_solver_matches_the_reference_on_random_graphs)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_graph_solvers_vs_reference(&r, 3000, 7);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 2 * 3000);
}

Test(graph_maxflow, every_regime_is_exercised)
{
    /* Each regime gives what it promises: no-path graphs have flow 0,
     * parallel graphs have parallel arcs and self-loops, others mostly
     * carry flow. */
    int with_flow[CHECK_GRAPH_REGIMES] = {0}, parallel = 0, loops = 0;
    for (int i = 0; i < 40 * CHECK_GRAPH_REGIMES; i++) {
        check_graph_arcs a;
        cr_assert_eq(check_graph_random_arcs(3, i, &a), 0);
        int64_t f = check_graph_reference(&a, NULL);
        int regime = i % CHECK_GRAPH_REGIMES;
        if (regime == CHECK_GRAPH_NO_PATH)
            cr_assert_eq(f, 0, "graph %d", i);
        with_flow[regime] += f > 0;
        if (regime == CHECK_GRAPH_PARALLEL) {
            gcut_graph *g = NULL;
            cr_assert_eq(gcut_graph_create_from_arcs(ctx, a.n, a.m, a.tail, a.head, a.cap, a.source,
                                                     a.sink, &g),
                         GCUT_OK);
            gcut_graph_stats st;
            gcut_graph_get_stats(g, &st);
            parallel += st.parallel_merged > 0;
            loops += st.self_loops > 0;
            cr_assert_eq(st.arcs_in, a.m);
            cr_assert_eq(st.arcs + st.parallel_merged + st.self_loops, a.m);
            gcut_graph_destroy(g);
        }
        check_graph_arcs_free(&a);
    }
    cr_assert_eq(parallel, 40);
    cr_assert_eq(loops, 40);
    cr_assert_gt(with_flow[CHECK_GRAPH_DENSE], 30);
    cr_assert_gt(with_flow[CHECK_GRAPH_LAYERED], 30);
    cr_assert_gt(with_flow[CHECK_GRAPH_NEAR_LIMIT], 5);
    cr_assert_gt(with_flow[CHECK_GRAPH_TERMINALS], 30);
}

Test(graph_maxflow, every_solver_matches_the_reference_on_every_family)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_graph_families_vs_reference(&r, 200, 11);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 2 * 200);
}

static gcut_graph *diamond(void)
{
    /* s=0 -> 1 (3), s -> 2 (2), 1 -> 3 (2), 2 -> 3 (4), 1 -> 2 (1): flow 5. */
    const int32_t tail[] = {0, 0, 1, 2, 1}, head[] = {1, 2, 3, 3, 2}, cap[] = {3, 2, 2, 4, 1};
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 5, tail, head, cap, 0, 3, &g), GCUT_OK);
    return g;
}

Test(graph_maxflow, solves_a_known_graph_with_each_solver)
{
    gcut_graph *g = diamond();
    const char *algos[] = {"prf", "bk"};
    for (int k = 0; k < 2; k++) {
        gcut_solve_info info;
        cr_assert_eq(gcut_graph_solve(g, algos[k], GCUT_GRAPH_SOLVE_FLOW, &info), GCUT_OK);
        cr_assert_eq(info.flow, 5);
        cr_assert_str_eq(info.algo, algos[k]);
        cr_assert_str_eq(info.device, "cpu");
        cr_assert_geq(info.time_ms, 0.0);
        int64_t cut = 0;
        cr_assert_eq(gcut_graph_verify(g, &cut), GCUT_OK, "%s", gcut_last_error(ctx));
        cr_assert_eq(cut, 5);
        /* 1 -> 2 and 1 -> 3 are full, 2 -> 3 is not: {s, 1} cannot reach
         * the sink, and 0->2 + 1->2 + 1->3 = 2 + 1 + 2 = 5. */
        uint8_t side[4];
        cr_assert_eq(gcut_graph_cut_side(g, side), GCUT_OK);
        cr_assert(side[0] && side[1] && !side[2] && !side[3]);
    }
    /* The CPU solvers first (GPU ones follow in CUDA builds). */
    cr_assert_eq(strncmp(gcut_graph_algorithms(), "prf,bk", 6), 0, "%s", gcut_graph_algorithms());
    gcut_graph_destroy(g);
}

Test(graph_maxflow, settles_terminal_paths_exactly_before_labelling)
{
    /* prf augments s -> v -> t and s -> v -> w -> t before its first
     * global relabel: here s -> t 5, s -> a -> t 2, s -> a -> b -> t 1 and
     * s -> b -> t 4 are the whole flow (every arc into t full); a keeps an
     * excess of 1 and b of 2, which phase 2 returns to s. */
    const int32_t tail[] = {0, 0, 1, 1, 0, 2, 2}, head[] = {3, 1, 3, 2, 2, 3, 1};
    const int32_t cap[] = {5, 4, 2, 1, 6, 5, 9};
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 7, tail, head, cap, 0, 3, &g), GCUT_OK);
    const char *algos[] = {"prf", "bk"};
    for (int k = 0; k < 2; k++) {
        gcut_solve_info info;
        cr_assert_eq(gcut_graph_solve(g, algos[k], k ? GCUT_GRAPH_SOLVE_FLOW : 0, &info), GCUT_OK);
        cr_assert_eq(info.flow, 5 + 2 + 5, "%s", algos[k]);
        int64_t cut = 0;
        cr_assert_eq(gcut_graph_verify(g, &cut), GCUT_OK, "%s", gcut_last_error(ctx));
        cr_assert_eq(cut, 12);
        /* a and b both reach the sink no more: the cut is {s, a, b}. */
        uint8_t side[4];
        cr_assert_eq(gcut_graph_cut_side(g, side), GCUT_OK);
        cr_assert(side[0] && side[1] && side[2] && !side[3], "%s", algos[k]);
    }
    gcut_graph_destroy(g);
}

Test(graph_maxflow, flows_come_after_a_solve_and_preflows_are_completed)
{
    gcut_graph *g = diamond();
    int32_t flow[5];
    uint8_t side[4];
    cr_assert_eq(gcut_graph_arc_flows(g, flow), GCUT_E_STATE);
    cr_assert_eq(gcut_graph_cut_side(g, side), GCUT_E_STATE);
    cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_E_STATE);
    /* prf without a flow asked for: phase 2 runs when flows are read. */
    cr_assert_eq(gcut_graph_solve(g, NULL, 0, NULL), GCUT_OK);
    cr_assert_eq(gcut_graph_arc_flows(g, flow), GCUT_OK, "%s", gcut_last_error(ctx));
    int64_t net[4] = {0};
    for (int32_t k = 0; k < 5; k++) {
        int32_t u, v, c;
        gcut_graph_arc(g, k, &u, &v, &c);
        cr_assert(flow[k] >= 0 && flow[k] <= c);
        net[v] += flow[k];
        net[u] -= flow[k];
    }
    cr_assert(net[0] == -5 && net[1] == 0 && net[2] == 0 && net[3] == 5);
    cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK);
    gcut_graph_destroy(g);
}

Test(graph_maxflow, refuses_bad_arguments_with_messages)
{
    const int32_t tail[] = {0, 5}, head[] = {1, 2}, cap[] = {1, 1}, neg[] = {1, -1};
    gcut_graph *g = (gcut_graph *)1;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 1, 0, NULL, NULL, NULL, 0, 0, &g),
                 GCUT_E_INVALID);
    cr_assert_null(g);
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 2, tail, head, cap, 0, 0, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 2, tail, head, cap, 0, 3, &g), GCUT_E_RANGE);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "arc 1"), "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 6, 2, tail, head, neg, 0, 3, &g), GCUT_E_RANGE);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "capacity -1"), "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 2, NULL, head, cap, 0, 3, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 0, NULL, NULL, NULL, 0, 3, &g), GCUT_OK);
    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, "nope", 0, &info), GCUT_E_INVALID);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "nope"));
    cr_assert_eq(gcut_graph_solve(g, NULL, 99, &info), GCUT_E_INVALID);
    cr_assert_eq(gcut_graph_solve(g, NULL, 0, &info), GCUT_OK);
    cr_assert_eq(info.flow, 0);
    cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK);
    gcut_graph_destroy(g);
    gcut_graph_destroy(NULL);
}

Test(graph_maxflow, refuses_parallel_sums_past_int32)
{
    const int32_t tail[] = {0, 0, 0}, head[] = {1, 1, 1};
    const int32_t cap[] = {INT32_MAX, 0, 1};
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 2, 3, tail, head, cap, 0, 1, &g),
                 GCUT_E_OVERFLOW);
    cr_assert_null(g);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "1 -> 2"), "%s", gcut_last_error(ctx));
    /* At the limit exactly it is fine, and flows past int32 in total are. */
    const int32_t t2[] = {0, 0, 2, 3}, h2[] = {2, 3, 1, 1};
    const int32_t c2[] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 4, t2, h2, c2, 0, 1, &g), GCUT_OK);
    for (int k = 0; k < 2; k++) {
        gcut_solve_info info;
        cr_assert_eq(gcut_graph_solve(g, k ? "bk" : "prf", 0, &info), GCUT_OK);
        cr_assert_eq(info.flow, 2 * (int64_t)INT32_MAX);
        cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
    }
    gcut_graph_destroy(g);
}

Test(graph_maxflow, gpu_runs_where_there_is_one_and_is_refused_clearly_elsewhere)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_GPU;
    gcut_context *gpu = NULL;
    cr_assert_eq(gcut_context_create(&opt, &gpu), GCUT_OK);
    int devices = 0;
    gcut_device_count(gpu, &devices);
    const int32_t tail[] = {0}, head[] = {1}, cap[] = {4};
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(gpu, 2, 1, tail, head, cap, 0, 1, &g), GCUT_OK);
    gcut_solve_info info;
    if (gcut_cuda_built() && devices > 0) {
        cr_assert_eq(gcut_graph_solve(g, NULL, 0, &info), GCUT_OK, "%s", gcut_last_error(gpu));
        cr_assert_str_eq(info.device, "gpu");
        cr_assert_eq(info.flow, 4);
    } else {
        cr_assert_eq(gcut_graph_solve(g, NULL, 0, NULL), GCUT_E_NODEVICE);
        cr_assert_not_null(strstr(gcut_last_error(gpu), "GPU"), "%s", gcut_last_error(gpu));
    }
    /* A CPU solver named on a GPU context is a contradiction, not a fallback. */
    cr_assert_eq(gcut_graph_solve(g, "prf", 0, NULL), GCUT_E_INVALID);
    cr_assert_not_null(strstr(gcut_last_error(gpu), "prf"), "%s", gcut_last_error(gpu));
    gcut_graph_destroy(g);
    gcut_context_destroy(gpu);

    gcut_graph *h = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 2, 1, tail, head, cap, 0, 1, &h), GCUT_OK);
    cr_assert_eq(gcut_graph_solve(h, NULL, 0, &info), GCUT_OK);
    if (!(gcut_cuda_built() && devices > 0)) {
        cr_assert_str_eq(info.device, "cpu");
        cr_assert_str_eq(info.algo, "prf");
    }
    cr_assert_eq(info.flow, 4);
    gcut_graph_destroy(h);
}

Test(graph_maxflow, solving_again_gives_the_same_answer)
{
    check_graph_arcs a;
    cr_assert_eq(check_graph_random_arcs(5, 1, &a), 0); /* a dense one */
    gcut_graph *g = NULL;
    cr_assert_eq(
        gcut_graph_create_from_arcs(ctx, a.n, a.m, a.tail, a.head, a.cap, a.source, a.sink, &g),
        GCUT_OK);
    int64_t want = check_graph_reference(&a, NULL);
    const char *order[] = {"prf", "prf", "bk", "prf", "bk", "bk"};
    for (int k = 0; k < 6; k++) {
        gcut_solve_info info;
        cr_assert_eq(gcut_graph_solve(g, order[k], k % 2 ? GCUT_GRAPH_SOLVE_FLOW : 0, &info),
                     GCUT_OK);
        cr_assert_eq(info.flow, want, "solve %d (%s)", k, order[k]);
        cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK, "solve %d: %s", k, gcut_last_error(ctx));
    }
    gcut_graph_destroy(g);
    check_graph_arcs_free(&a);
}
