/* The generators: the papers' size formulas, determinism given the seed,
 * capacities as described, and the parameter checks. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "gcut.h"
#include "graph/gen.h"

static gcut_context *ctx;

static void setup(void)
{
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
}
static void teardown(void)
{
    gcut_context_destroy(ctx);
}

TestSuite(graph_gen, .init = setup, .fini = teardown);

Test(graph_gen, formulas_give_the_papers_sizes)
{
    /* ECL-MaxFlow's table I (seeds/003) and Wu, He, Hong 5.4 (seeds/000). */
    cr_assert_eq(gcut__gen_genrmf_arcs(32, 256), 1276928);
    cr_assert_eq(gcut__gen_genrmf_arcs(64, 64), 1290240);
    cr_assert_eq(gcut__gen_genrmf_arcs(48, 384), 4347648);
    cr_assert_eq(gcut__gen_genrmf_arcs(192, 192), 35205120);
    cr_assert_eq(gcut__gen_rlg_arcs(512, 1024), 1572352);
    cr_assert_eq(gcut__gen_rlg_arcs(1024, 1024), 3144704);
    cr_assert_eq(gcut__gen_rlg_arcs(512, 512), 785920);
    cr_assert_eq(gcut__gen_acyclic_dense_arcs(2000), 1999000);
    cr_assert_eq(gcut__gen_acyclic_dense_arcs(10000), 49995000);
    /* 4x3 grid: 17 pairs (4-conn) + 12 diagonals; 6 terminal pixels. */
    cr_assert_eq(gcut__gen_vision_arcs(4, 3, 4, 0.5), 2 * 17 + 2 * 6);
    cr_assert_eq(gcut__gen_vision_arcs(4, 3, 8, 1.0), 2 * 29 + 2 * 12);
}

/* Nodes, arcs (given and kept) of a generated graph. */
static void sizes(gcut_graph *g, int64_t n, int64_t m)
{
    gcut_graph_stats st;
    cr_assert_eq(gcut_graph_get_stats(g, &st), GCUT_OK);
    cr_assert_eq(st.nodes, n);
    cr_assert_eq(st.arcs_in, m);
    cr_assert_eq(st.arcs, m, "no arc repeats");
    cr_assert_eq(st.self_loops, 0);
}

Test(graph_gen, generated_graphs_have_the_formula_sizes)
{
    gcut_graph *g = NULL;
    cr_assert_eq(gcut__gen_genrmf(ctx, 6, 5, 100, 10000, 1, &g), GCUT_OK);
    sizes(g, 6 * 6 * 5, gcut__gen_genrmf_arcs(6, 5));
    cr_assert_eq(gcut_graph_source(g), 0);
    cr_assert_eq(gcut_graph_sink(g), 6 * 6 * 5 - 1);
    gcut_graph_destroy(g);
    cr_assert_eq(gcut__gen_rlg(ctx, 10, 7, 10000, 1, &g), GCUT_OK);
    sizes(g, 10 * 7 + 2, gcut__gen_rlg_arcs(10, 7));
    gcut_graph_destroy(g);
    cr_assert_eq(gcut__gen_rlg(ctx, 2, 4, 5, 1, &g), GCUT_OK);
    sizes(g, 10, 2 * 2 + 3 * 2 * 2);
    gcut_graph_destroy(g);
    cr_assert_eq(gcut__gen_acyclic_dense(ctx, 50, 1, &g), GCUT_OK);
    sizes(g, 50, 50 * 49 / 2);
    gcut_graph_destroy(g);
    cr_assert_eq(gcut__gen_vision(ctx, 17, 9, 8, 0.3, 1, &g), GCUT_OK);
    sizes(g, 17 * 9 + 2, gcut__gen_vision_arcs(17, 9, 8, 0.3));
    cr_assert_eq(gcut_graph_source(g), 17 * 9);
    cr_assert_eq(gcut_graph_sink(g), 17 * 9 + 1);
    gcut_graph_destroy(g);
}

Test(graph_gen, capacities_follow_the_descriptions)
{
    gcut_graph *g = NULL;
    cr_assert_eq(gcut__gen_genrmf(ctx, 4, 3, 100, 200, 9, &g), GCUT_OK);
    int inner = 0, cross = 0;
    for (int32_t k = 0; k < gcut_graph_arcs(g); k++) {
        int32_t u, v, c;
        gcut_graph_arc(g, k, &u, &v, &c);
        if (u / 16 == v / 16) {
            cr_assert_eq(c, 200 * 16, "in-frame arc %d -> %d", u, v);
            inner++;
        } else {
            cr_assert_eq(v / 16, u / 16 + 1, "cross arcs go to the next frame");
            cr_assert(c >= 100 && c <= 200);
            cross++;
        }
    }
    cr_assert_eq(inner, 4 * 4 * 3 * 3);
    cr_assert_eq(cross, 16 * 2);
    gcut_graph_destroy(g);

    cr_assert_eq(gcut__gen_rlg(ctx, 5, 4, 50, 9, &g), GCUT_OK);
    for (int32_t k = 0; k < gcut_graph_arcs(g); k++) {
        int32_t u, v, c;
        gcut_graph_arc(g, k, &u, &v, &c);
        if (u == 0 || v == 21)
            cr_assert_eq(c, 150);
        else
            cr_assert(c >= 1 && c <= 50 && (v - 1) / 5 == (u - 1) / 5 + 1);
    }
    gcut_graph_destroy(g);
}

/* Two graphs equal arc for arc. */
static int same(gcut_graph *a, gcut_graph *b)
{
    if (gcut_graph_arcs(a) != gcut_graph_arcs(b))
        return 0;
    for (int32_t k = 0; k < gcut_graph_arcs(a); k++) {
        int32_t x[3], y[3];
        gcut_graph_arc(a, k, &x[0], &x[1], &x[2]);
        gcut_graph_arc(b, k, &y[0], &y[1], &y[2]);
        if (memcmp(x, y, sizeof x))
            return 0;
    }
    return 1;
}

Test(graph_gen, the_seed_decides_the_graph)
{
    gcut_graph *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(gcut__gen_genrmf(ctx, 5, 4, 1, 100, 42, &a), GCUT_OK);
    cr_assert_eq(gcut__gen_genrmf(ctx, 5, 4, 1, 100, 42, &b), GCUT_OK);
    cr_assert_eq(gcut__gen_genrmf(ctx, 5, 4, 1, 100, 43, &c), GCUT_OK);
    cr_assert(same(a, b));
    cr_assert_not(same(a, c));
    gcut_graph_destroy(a);
    gcut_graph_destroy(b);
    gcut_graph_destroy(c);
    cr_assert_eq(gcut__gen_vision(ctx, 20, 20, 4, 0.5, 1, &a), GCUT_OK);
    cr_assert_eq(gcut__gen_vision(ctx, 20, 20, 4, 0.5, 1, &b), GCUT_OK);
    cr_assert_eq(gcut__gen_vision(ctx, 20, 20, 4, 0.5, 2, &c), GCUT_OK);
    cr_assert(same(a, b));
    cr_assert_not(same(a, c));
    gcut_graph_destroy(a);
    gcut_graph_destroy(b);
    gcut_graph_destroy(c);
}

Test(graph_gen, refuses_bad_parameters)
{
    gcut_graph *g = NULL;
    cr_assert_eq(gcut__gen_genrmf(ctx, 0, 4, 1, 2, 1, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut__gen_genrmf(ctx, 3, 3, 5, 2, 1, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut__gen_genrmf(ctx, 1000, 3, 1, 10000, 1, &g), GCUT_E_OVERFLOW);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "c2*a*a"), "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut__gen_rlg(ctx, 0, 3, 1, 1, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut__gen_rlg(ctx, 3, 3, 1000000000, 1, &g), GCUT_E_OVERFLOW);
    cr_assert_eq(gcut__gen_acyclic_dense(ctx, 1, 1, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut__gen_acyclic_dense(ctx, 100000, 1, &g), GCUT_E_OVERFLOW);
    cr_assert_eq(gcut__gen_vision(ctx, 4, 4, 6, 0.5, 1, &g), GCUT_E_INVALID);
    cr_assert_eq(gcut__gen_vision(ctx, 4, 4, 4, 1.5, 1, &g), GCUT_E_INVALID);
    cr_assert_null(g);
}
