/* The grid API: construction, capacities, errors, solves with known answers
 * (computed by hand), the CPU solver against the reference on random grids,
 * and the proof checker catching tampered results. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check_grid.h"
#include "gcut.h"
#include "graph/grid.h" /* only for the tampering tests of gcut_grid_verify() */

static gcut_context *ctx;

static void setup(void)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    cr_assert_eq(gcut_context_create(&opt, &ctx), GCUT_OK);
}

static void teardown(void)
{
    gcut_context_destroy(ctx);
}

TestSuite(grid, .init = setup, .fini = teardown);

static gcut_grid *make_grid(int w, int h, int conn)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, w, h, conn, &g), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_not_null(g);
    return g;
}

static void assert_error(gcut_status got, gcut_status want, const char *needle)
{
    cr_assert_eq(got, want, "status %s, expected %s (%s)", gcut_status_str(got),
                 gcut_status_str(want), gcut_last_error(ctx));
    cr_assert(strstr(gcut_last_error(ctx), needle) != NULL, "message '%s' lacks '%s'",
              gcut_last_error(ctx), needle);
}

static int64_t solve(gcut_grid *g)
{
    gcut_solve_info info;
    cr_assert_eq(gcut_grid_solve(g, "bk", &info), GCUT_OK, "%s", gcut_last_error(ctx));
    int64_t cut = -1;
    cr_assert_eq(gcut_grid_verify(g, &cut), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(cut, info.flow);
    return info.flow;
}

static void assert_labels(const gcut_grid *g, const uint8_t *want, int n)
{
    uint8_t got[64];
    cr_assert_leq(n, 64);
    cr_assert_eq(gcut_grid_labels(g, got), GCUT_OK);
    for (int i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "label of pixel %d is %d, expected %d", i, got[i], want[i]);
}

/* ---- construction ------------------------------------------------------ */

Test(grid, creates_and_reports_its_shape)
{
    gcut_grid *g = make_grid(7, 3, 8);
    cr_assert_eq(gcut_grid_width(g), 7);
    cr_assert_eq(gcut_grid_height(g), 3);
    cr_assert_eq(gcut_grid_connectivity(g), 8);
    int32_t s = -1, t = -1, c = -1;
    cr_assert_eq(gcut_grid_get_terminal(g, 6, 2, &s, &t), GCUT_OK);
    cr_assert_eq(s, 0);
    cr_assert_eq(t, 0);
    cr_assert_eq(gcut_grid_get_edge(g, 3, 1, GCUT_DIR_NW, &c), GCUT_OK);
    cr_assert_eq(c, 0);
    gcut_grid_destroy(g);
    gcut_grid_destroy(NULL);
}

Test(grid, create_refuses_bad_sizes_connectivity_and_null_out)
{
    gcut_grid *g = (gcut_grid *)&ctx; /* must be reset to NULL on failure */
    assert_error(gcut_grid_create(ctx, 0, 5, 4, &g), GCUT_E_INVALID, "0x5");
    cr_assert_null(g);
    assert_error(gcut_grid_create(ctx, 5, -1, 4, &g), GCUT_E_INVALID, "5x-1");
    assert_error(gcut_grid_create(ctx, 5, 5, 6, &g), GCUT_E_INVALID, "connectivity 6");
    assert_error(gcut_grid_create(ctx, 5, 5, 0, &g), GCUT_E_INVALID, "connectivity 0");
    assert_error(gcut_grid_create(ctx, 5, 5, 4, NULL), GCUT_E_INVALID, "no place");
    assert_error(gcut_grid_create(ctx, 70000, 70000, 4, &g), GCUT_E_OVERFLOW, "70000x70000");
    cr_assert_null(g);
}

/* ---- capacities ---------------------------------------------------------- */

Test(grid, terminals_round_trip_and_refuse_bad_pixels)
{
    gcut_grid *g = make_grid(3, 2, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 2, 1, 11, 22), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 2, 1, 5, 6), GCUT_OK); /* replaces */
    int32_t s, t;
    cr_assert_eq(gcut_grid_get_terminal(g, 2, 1, &s, &t), GCUT_OK);
    cr_assert_eq(s, 5);
    cr_assert_eq(t, 6);
    assert_error(gcut_grid_set_terminal(g, -1, 0, 1, 1), GCUT_E_INVALID, "(-1, 0)");
    assert_error(gcut_grid_set_terminal(g, 3, 0, 1, 1), GCUT_E_INVALID, "(3, 0)");
    assert_error(gcut_grid_set_terminal(g, 0, 2, 1, 1), GCUT_E_INVALID, "(0, 2)");
    assert_error(gcut_grid_get_terminal(g, 0, -1, &s, &t), GCUT_E_INVALID, "(0, -1)");
    assert_error(gcut_grid_set_terminal(g, 1, 1, -1, 0), GCUT_E_INVALID, "(1, 1)");
    assert_error(gcut_grid_set_terminal(g, 1, 1, 0, -7), GCUT_E_INVALID, "negative");
    cr_assert_eq(gcut_grid_get_terminal(g, 1, 1, &s, &t), GCUT_OK);
    cr_assert_eq(s, 0, "a refused call changed the grid");
    cr_assert_eq(t, 0);
    gcut_grid_destroy(g);
}

Test(grid, edges_round_trip_and_refuse_bad_directions_and_neighbours)
{
    gcut_grid *g4 = make_grid(4, 3, 4);
    gcut_grid *g8 = make_grid(4, 3, 8);
    int32_t c = -1;
    cr_assert_eq(gcut_grid_set_edge(g4, 1, 1, GCUT_DIR_E, 9), GCUT_OK);
    cr_assert_eq(gcut_grid_get_edge(g4, 1, 1, GCUT_DIR_E, &c), GCUT_OK);
    cr_assert_eq(c, 9);
    cr_assert_eq(gcut_grid_get_edge(g4, 2, 1, GCUT_DIR_W, &c), GCUT_OK);
    cr_assert_eq(c, 0, "the reverse arc is its own capacity");
    cr_assert_eq(gcut_grid_set_edge(g8, 0, 2, GCUT_DIR_NE, 13), GCUT_OK);
    cr_assert_eq(gcut_grid_get_edge(g8, 0, 2, GCUT_DIR_NE, &c), GCUT_OK);
    cr_assert_eq(c, 13);

    assert_error(gcut_grid_set_edge(g4, 1, 1, GCUT_DIR_NE, 1), GCUT_E_INVALID, "4-connected");
    assert_error(gcut_grid_get_edge(g4, 1, 1, GCUT_DIR_SW, &c), GCUT_E_INVALID, "4-connected");
    assert_error(gcut_grid_set_edge(g8, 1, 1, (gcut_dir)8, 1), GCUT_E_INVALID, "direction 8");
    assert_error(gcut_grid_set_edge(g8, 1, 1, (gcut_dir)-1, 1), GCUT_E_INVALID, "direction -1");
    assert_error(gcut_grid_set_edge(g4, 3, 0, GCUT_DIR_E, 1), GCUT_E_INVALID, "outside");
    assert_error(gcut_grid_set_edge(g4, 0, 0, GCUT_DIR_N, 1), GCUT_E_INVALID, "(0, 0)");
    assert_error(gcut_grid_set_edge(g8, 0, 1, GCUT_DIR_NW, 1), GCUT_E_INVALID, "NW");
    assert_error(gcut_grid_set_edge(g8, 3, 2, GCUT_DIR_SE, 1), GCUT_E_INVALID, "outside");
    assert_error(gcut_grid_set_edge(g4, 4, 0, GCUT_DIR_W, 1), GCUT_E_INVALID, "(4, 0)");
    assert_error(gcut_grid_set_edge(g4, 1, 1, GCUT_DIR_S, -3), GCUT_E_INVALID, "-3");
    cr_assert_eq(gcut_grid_get_edge(g4, 1, 1, GCUT_DIR_S, &c), GCUT_OK);
    cr_assert_eq(c, 0, "a refused call changed the grid");
    cr_assert_eq(gcut_grid_get_edge(g4, 1, 1, GCUT_DIR_S, NULL), GCUT_E_INVALID);
    gcut_grid_destroy(g4);
    gcut_grid_destroy(g8);
}

Test(grid, set_terminals_from_arrays)
{
    gcut_grid *g = make_grid(3, 2, 4);
    int32_t src[6] = {1, 2, 3, 4, 5, 6}, snk[6] = {60, 50, 40, 30, 20, 10};
    cr_assert_eq(gcut_grid_set_terminals(g, src, snk), GCUT_OK);
    int32_t s, t;
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(gcut_grid_get_terminal(g, i % 3, i / 3, &s, &t), GCUT_OK);
        cr_assert_eq(s, src[i]);
        cr_assert_eq(t, snk[i]);
    }
    /* NULL leaves that side as it was. */
    int32_t snk2[6] = {7, 7, 7, 7, 7, 7};
    cr_assert_eq(gcut_grid_set_terminals(g, NULL, snk2), GCUT_OK);
    cr_assert_eq(gcut_grid_get_terminal(g, 2, 1, &s, &t), GCUT_OK);
    cr_assert_eq(s, 6);
    cr_assert_eq(t, 7);
    /* A negative entry is refused, naming the pixel, and nothing is copied. */
    int32_t bad[6] = {9, 9, 9, 9, -1, 9};
    assert_error(gcut_grid_set_terminals(g, bad, NULL), GCUT_E_INVALID, "(1, 1)");
    cr_assert_eq(gcut_grid_get_terminal(g, 0, 0, &s, &t), GCUT_OK);
    cr_assert_eq(s, 1);
    assert_error(gcut_grid_set_terminals(g, NULL, bad), GCUT_E_INVALID, "sink");
    gcut_grid_destroy(g);
}

Test(grid, set_edges_from_arrays_refuses_capacity_leaving_the_grid)
{
    gcut_grid *g = make_grid(3, 2, 8);
    /* E arcs: the last column's neighbour is outside, so it must be 0. */
    int32_t east[6] = {1, 2, 0, 4, 5, 0};
    cr_assert_eq(gcut_grid_set_edges(g, GCUT_DIR_E, east), GCUT_OK);
    int32_t c;
    cr_assert_eq(gcut_grid_get_edge(g, 1, 1, GCUT_DIR_E, &c), GCUT_OK);
    cr_assert_eq(c, 5);
    int32_t leaving[6] = {1, 2, 3, 4, 5, 0};
    assert_error(gcut_grid_set_edges(g, GCUT_DIR_E, leaving), GCUT_E_INVALID, "(2, 0)");
    cr_assert_eq(gcut_grid_get_edge(g, 0, 0, GCUT_DIR_E, &c), GCUT_OK);
    cr_assert_eq(c, 1, "a refused call changed the grid");
    /* NE from the top row leaves the grid. */
    int32_t ne[6] = {0, 0, 0, 7, 7, 0};
    cr_assert_eq(gcut_grid_set_edges(g, GCUT_DIR_NE, ne), GCUT_OK);
    ne[1] = 1;
    assert_error(gcut_grid_set_edges(g, GCUT_DIR_NE, ne), GCUT_E_INVALID, "(1, 0)");
    int32_t neg[6] = {0, -5, 0, 0, 0, 0};
    assert_error(gcut_grid_set_edges(g, GCUT_DIR_W, neg), GCUT_E_INVALID, "-5");
    assert_error(gcut_grid_set_edges(g, GCUT_DIR_W, NULL), GCUT_E_INVALID, "no capacity");
    gcut_grid *g4 = make_grid(3, 2, 4);
    int32_t zero[6] = {0};
    assert_error(gcut_grid_set_edges(g4, GCUT_DIR_SE, zero), GCUT_E_INVALID, "4-connected");
    gcut_grid_destroy(g4);
    gcut_grid_destroy(g);
}

/* ---- solve: order, algorithm, device, overflow --------------------------- */

Test(grid, labels_and_verify_before_a_solve_are_out_of_order)
{
    gcut_grid *g = make_grid(2, 2, 4);
    uint8_t labels[4];
    assert_error(gcut_grid_labels(g, labels), GCUT_E_STATE, "before a solve");
    assert_error(gcut_grid_verify(g, NULL), GCUT_E_STATE, "before a solve");
    cr_assert_eq(gcut_grid_solve(g, "bk", NULL), GCUT_OK);
    cr_assert_eq(gcut_grid_labels(g, labels), GCUT_OK);
    /* A change makes the old result stale. */
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 1, 0), GCUT_OK);
    assert_error(gcut_grid_labels(g, labels), GCUT_E_STATE, "before a solve");
    assert_error(gcut_grid_labels(g, NULL), GCUT_E_INVALID, "label");
    gcut_grid_destroy(g);
}

Test(grid, unknown_algorithm_is_refused)
{
    gcut_grid *g = make_grid(2, 2, 4);
    assert_error(gcut_grid_solve(g, "no-such-solver", NULL), GCUT_E_INVALID, "no-such-solver");
    cr_assert(strstr(gcut_grid_algorithms(), "bk") != NULL);
    gcut_grid_destroy(g);
}

Test(grid, gpu_context_without_a_gpu_fails_with_a_message)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_GPU;
    gcut_context *gctx = NULL;
    cr_assert_eq(gcut_context_create(&opt, &gctx), GCUT_OK);
    int count = 0;
    cr_assert_eq(gcut_device_count(gctx, &count), GCUT_OK);
    if (count > 0) {
        gcut_context_destroy(gctx);
        cr_skip_test("a GPU is present");
    }
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(gctx, 3, 3, 4, &g), GCUT_OK);
    gcut_status st = gcut_grid_solve(g, NULL, NULL);
    cr_assert_eq(st, GCUT_E_NODEVICE, "status %s", gcut_status_str(st));
    cr_assert(strstr(gcut_last_error(gctx), "GPU") != NULL, "message '%s'", gcut_last_error(gctx));
    int64_t flow;
    cr_assert_eq(gcut_grid_maxflow(g, &flow), GCUT_E_NODEVICE);
    /* Asking for the CPU solver on a GPU-only context is refused too. */
    cr_assert_eq(gcut_grid_solve(g, "bk", NULL), GCUT_E_INVALID);
    cr_assert_str_neq(gcut_last_error(gctx), "");
    gcut_grid_destroy(g);
    gcut_context_destroy(gctx);
}

Test(grid, overflow_is_refused_at_solve_naming_the_pixel)
{
    /* Pixel (1, 0) receives 2^30 from the west and 2^30 - 2 from the east:
     * with a sink capacity of 1 its total is exactly INT32_MAX, allowed. */
    gcut_grid *g = make_grid(3, 1, 4);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 1 << 30), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 2, 0, GCUT_DIR_W, (1 << 30) - 2), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 5, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 1, 0, 0, 1), GCUT_OK);
    cr_assert_eq(solve(g), 1);
    /* One more unit is over the limit. */
    cr_assert_eq(gcut_grid_set_terminal(g, 1, 0, 0, 2), GCUT_OK);
    assert_error(gcut_grid_solve(g, "bk", NULL), GCUT_E_OVERFLOW, "(1, 0)");
    assert_error(gcut_grid_labels(g, (uint8_t[3]){0}), GCUT_E_STATE, "before a solve");
    /* A single pixel: source + sink alone. */
    gcut_grid *one = make_grid(1, 1, 8);
    cr_assert_eq(gcut_grid_set_terminal(one, 0, 0, INT32_MAX, 1), GCUT_OK);
    assert_error(gcut_grid_solve(one, "bk", NULL), GCUT_E_OVERFLOW, "(0, 0)");
    cr_assert_eq(gcut_grid_set_terminal(one, 0, 0, INT32_MAX, 0), GCUT_OK);
    cr_assert_eq(solve(one), 0);
    gcut_grid_destroy(one);
    gcut_grid_destroy(g);
}

/* ---- solves with answers computed by hand ----------------------------- */

Test(grid, one_pixel_flow_is_the_smaller_terminal)
{
    gcut_grid *g = make_grid(1, 1, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 7, 5), GCUT_OK);
    cr_assert_eq(solve(g), 5);
    assert_labels(g, (const uint8_t[]){1}, 1); /* cutting the sink arc (5) is the min */
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 3, 9), GCUT_OK);
    cr_assert_eq(solve(g), 3);
    assert_labels(g, (const uint8_t[]){0}, 1);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 0, 0), GCUT_OK);
    cr_assert_eq(solve(g), 0);
    gcut_grid_destroy(g);
}

Test(grid, two_pixel_chain_respects_arc_direction)
{
    /* s -10-> p0 -3-> p1 -10-> t, with p1 -100-> p0 unused: flow 3, and the
     * only minimum cut is the arc p0 -> p1. */
    gcut_grid *g = make_grid(2, 1, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 10, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 1, 0, 0, 10), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 3), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_W, 100), GCUT_OK);
    cr_assert_eq(solve(g), 3);
    assert_labels(g, (const uint8_t[]){1, 0}, 2);
    /* Terminals swapped: the flow goes p1 -> p0 over the 100 arc, limited
     * by the terminals to 10. */
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 0, 10), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 1, 0, 10, 0), GCUT_OK);
    cr_assert_eq(solve(g), 10);
    int64_t flow = 0;
    cr_assert_eq(gcut_grid_maxflow(g, &flow), GCUT_OK); /* the default solver */
    cr_assert_eq(flow, 10);
    gcut_grid_destroy(g);
}

Test(grid, min_cut_through_n_links)
{
    /* s -5-> p0 -2-> p1 -4-> p2 -5-> t: cuts cost 5, 2, 4, 5; the min is 2. */
    gcut_grid *g = make_grid(3, 1, 8);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 5, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 2, 0, 0, 5), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 2), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_E, 4), GCUT_OK);
    gcut_solve_info info;
    cr_assert_eq(gcut_grid_solve(g, "bk", &info), GCUT_OK);
    cr_assert_eq(info.flow, 2);
    cr_assert_str_eq(info.algo, "bk");
    cr_assert_str_eq(info.device, "cpu");
    cr_assert_geq(info.time_ms, 0.0);
    assert_labels(g, (const uint8_t[]){1, 0, 0}, 3);
    int64_t cut = 0;
    cr_assert_eq(gcut_grid_cut_capacity(g, (const uint8_t[]){1, 1, 0}, &cut), GCUT_OK);
    cr_assert_eq(cut, 4);
    cr_assert_eq(gcut_grid_cut_capacity(g, (const uint8_t[]){0, 0, 0}, &cut), GCUT_OK);
    cr_assert_eq(cut, 5);
    gcut_grid_destroy(g);
}

Test(grid, diagonal_arcs_carry_flow_in_8_connectivity)
{
    /* 2x2: s -9-> (0,0), (1,1) -9-> t; (0,0) -SE 4-> (1,1) and
     * (0,0) -E 3-> (1,0) -S 2-> (1,1). 8-connected: 4 + min(3, 2) = 6, min
     * cut {(0,0), (1,0)} (4 + 2). 4-connected (no diagonal): 2. */
    gcut_grid *g8 = make_grid(2, 2, 8);
    gcut_grid *g4 = make_grid(2, 2, 4);
    for (int k = 0; k < 2; k++) {
        gcut_grid *g = k ? g4 : g8;
        cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 9, 0), GCUT_OK);
        cr_assert_eq(gcut_grid_set_terminal(g, 1, 1, 0, 9), GCUT_OK);
        cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 3), GCUT_OK);
        cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_S, 2), GCUT_OK);
    }
    cr_assert_eq(gcut_grid_set_edge(g8, 0, 0, GCUT_DIR_SE, 4), GCUT_OK);
    /* (0,1) has no arcs; a sink capacity pins it to the sink side. */
    cr_assert_eq(gcut_grid_set_terminal(g8, 0, 1, 0, 1), GCUT_OK);
    cr_assert_eq(solve(g8), 6);
    assert_labels(g8, (const uint8_t[]){1, 1, 0, 0}, 4);
    cr_assert_eq(solve(g4), 2);
    gcut_grid_destroy(g8);
    gcut_grid_destroy(g4);
}

Test(grid, flow_total_beyond_int32_is_exact)
{
    /* Four pixels each with source = sink = 2^30 - 1 (total under the
     * limit): flow 4 * (2^30 - 1) = 4294967292 > INT32_MAX. */
    gcut_grid *g = make_grid(4, 1, 4);
    for (int x = 0; x < 4; x++)
        cr_assert_eq(gcut_grid_set_terminal(g, x, 0, (1 << 30) - 1, (1 << 30) - 1), GCUT_OK);
    cr_assert_eq(solve(g), 4294967292LL);
    gcut_grid_destroy(g);
}

/* A 3-pixel chain p0 -> p1 -> p2, source 5 at p0, sink 5 at p2, the two
 * E arcs of capacity e01 and e12, solved: flow min(e01, e12). */
static gcut_grid *solved_chain_of(int32_t e01, int32_t e12)
{
    gcut_grid *g = make_grid(3, 1, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 5, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 2, 0, 0, 5), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, e01), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_E, e12), GCUT_OK);
    cr_assert_eq(solve(g), e01 < e12 ? e01 : e12);
    return g;
}

/* The chain of min_cut_through_n_links: flow 2, arcs p0 -E-> p1 saturated,
 * p1 -E-> p2 carrying 2 of 4. */
static gcut_grid *solved_chain(void)
{
    return solved_chain_of(2, 4);
}

Test(grid, solving_after_a_change_gives_the_new_answer)
{
    gcut_grid *g = solved_chain_of(2, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 2, 0, 0, 1), GCUT_OK);
    cr_assert_eq(solve(g), 1);
    assert_labels(g, (const uint8_t[]){1, 1, 1}, 3);
    gcut_grid_destroy(g);
}

/* ---- warm re-solves after capacity changes ----------------------------- */

Test(grid, resolve_after_a_source_cut_below_its_flow)
{
    /* The chain carries 2 out of p0's source arc; cutting that arc to 1
     * leaves p0 sending out more than it gets, which the re-solve repairs. */
    gcut_grid *g = solved_chain_of(2, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 1, 0), GCUT_OK);
    cr_assert_eq(solve(g), 1);
    assert_labels(g, (const uint8_t[]){0, 0, 0}, 3);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 0, 0), GCUT_OK);
    cr_assert_eq(solve(g), 0);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 9, 0), GCUT_OK);
    cr_assert_eq(solve(g), 2);
    assert_labels(g, (const uint8_t[]){1, 0, 0}, 3);
    gcut_grid_destroy(g);
}

Test(grid, resolve_after_an_n_link_cut_below_its_flow)
{
    gcut_grid *g = solved_chain_of(4, 3);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_E, 1), GCUT_OK);
    cr_assert_eq(solve(g), 1);
    assert_labels(g, (const uint8_t[]){1, 1, 0}, 3);
    /* The reverse arc alone carries nothing from p0's side. */
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_E, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 2, 0, GCUT_DIR_W, 7), GCUT_OK);
    cr_assert_eq(solve(g), 0);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_E, 6), GCUT_OK);
    cr_assert_eq(solve(g), 4);
    assert_labels(g, (const uint8_t[]){1, 0, 0}, 3);
    gcut_grid_destroy(g);
}

Test(grid, resolve_after_a_refused_graph_starts_over_and_is_exact)
{
    gcut_grid *g = make_grid(2, 1, 4);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 7, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 1, 0, 0, 7), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 3), GCUT_OK);
    cr_assert_eq(solve(g), 3);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_W, INT32_MAX), GCUT_OK);
    assert_error(gcut_grid_solve(g, "bk", NULL), GCUT_E_OVERFLOW, "(0, 0)");
    cr_assert_eq(gcut_grid_set_edge(g, 1, 0, GCUT_DIR_W, 1), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 0, 0, GCUT_DIR_E, 5), GCUT_OK);
    cr_assert_eq(solve(g), 5);
    gcut_grid_destroy(g);
}

Test(grid, resolve_after_removing_every_source_on_a_long_chain)
{
    /* Every pixel of a 1x200 chain sends one unit to the sink at its end.
     * Removing all sources leaves 200 pixels each sending out one unit
     * more than they get, with the spare 200 pixels away: the repair's
     * searches would take quadratic time, so the solve starts cold. Either
     * way the answer must be exact. */
    enum { N = 200 };
    gcut_grid *g = make_grid(N, 1, 4);
    int32_t src[N], snk[N] = {0};
    for (int x = 0; x < N; x++) {
        src[x] = 1;
        if (x + 1 < N)
            cr_assert_eq(gcut_grid_set_edge(g, x, 0, GCUT_DIR_E, 1000), GCUT_OK);
    }
    snk[N - 1] = 1000;
    cr_assert_eq(gcut_grid_set_terminals(g, src, snk), GCUT_OK);
    cr_assert_eq(solve(g), N);
    for (int x = 0; x < N; x++)
        src[x] = 0;
    cr_assert_eq(gcut_grid_set_terminals(g, src, NULL), GCUT_OK);
    cr_assert_eq(solve(g), 0);
    for (int x = 0; x < N; x++)
        src[x] = x % 2 ? 3 : 0;
    cr_assert_eq(gcut_grid_set_terminals(g, src, NULL), GCUT_OK);
    cr_assert_eq(solve(g), 3 * (N / 2));
    for (int x = 0; x < N; x++)
        src[x] = x < N / 2;
    cr_assert_eq(gcut_grid_set_terminals(g, src, NULL), GCUT_OK);
    cr_assert_eq(solve(g), N / 2);
    gcut_grid_destroy(g);
}

Test(grid, resolve_of_one_changed_pixel_reuses_the_flow)
{
    /* A 64x64 grid: a cold solve needs many augmentations; after one
     * pixel's terminals change, the warm one needs few, and agrees with a
     * fresh solve of the same capacities. */
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, 64, 64, 8, &g), GCUT_OK);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            uint32_t h = (uint32_t)(x * 73856093u) ^ (uint32_t)(y * 19349663u);
            cr_assert_eq(gcut_grid_set_terminal(g, x, y, (int32_t)(h % 50), (int32_t)(h / 50 % 50)),
                         GCUT_OK);
            for (int d = 0; d < 8; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx >= 0 && y + dy >= 0 && x + dx < 64 && y + dy < 64)
                    cr_assert_eq(gcut_grid_set_edge(g, x, y, (gcut_dir)d, (int32_t)(h / 2500 % 9)),
                                 GCUT_OK);
            }
        }
    gcut_solve_info cold, warm, fresh;
    cr_assert_eq(gcut_grid_solve(g, "bk", &cold), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 30, 30, 0, 1000), GCUT_OK);
    cr_assert_eq(gcut_grid_solve(g, "bk", &warm), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_grid_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));

    gcut_grid *f = make_grid(64, 64, 8);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            int32_t a, b;
            gcut_grid_get_terminal(g, x, y, &a, &b);
            gcut_grid_set_terminal(f, x, y, a, b);
            for (int d = 0; d < 8; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx >= 0 && y + dy >= 0 && x + dx < 64 && y + dy < 64) {
                    gcut_grid_get_edge(g, x, y, (gcut_dir)d, &a);
                    gcut_grid_set_edge(f, x, y, (gcut_dir)d, a);
                }
            }
        }
    cr_assert_eq(gcut_grid_solve(f, "bk", &fresh), GCUT_OK);
    cr_assert_eq(warm.flow, fresh.flow);
    cr_assert_gt(cold.iterations, 100);
    cr_assert_lt(warm.iterations * 10, cold.iterations, "warm %lld, cold %lld augmentations",
                 (long long)warm.iterations, (long long)cold.iterations);
    gcut_grid_destroy(f);
    gcut_grid_destroy(g);
}

Test(grid, bk_resolves_match_reference_and_fresh_solves)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_grid_bk_resolve(&r, 180, 20261121);
    cr_assert_eq(r.failed, 0, "%d of 180 grids failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 180);
}

/* ---- the CPU solver against the reference, per regime ---------------- */

static void run_regime(int regime, int count)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_grid_bk_vs_reference_in(&r, regime, count, 20261121);
    cr_assert_eq(r.failed, 0, "%d of %d %s grids failed; first: %s", r.failed, count,
                 check_grid_regime_name(regime), r.first_failure);
    cr_assert_eq(r.passed, count);
}

Test(grid, bk_matches_reference_zero_capacities)
{
    run_regime(CHECK_GRID_ZERO, 100);
}
Test(grid, bk_matches_reference_tiny_capacities)
{
    run_regime(CHECK_GRID_TINY, 100);
}
Test(grid, bk_matches_reference_medium_capacities)
{
    run_regime(CHECK_GRID_MEDIUM, 150);
}
Test(grid, bk_matches_reference_near_limit)
{
    run_regime(CHECK_GRID_NEAR_LIMIT, 150);
}
Test(grid, bk_matches_reference_asymmetric_n_links)
{
    run_regime(CHECK_GRID_ASYMMETRIC, 150);
}
Test(grid, bk_matches_reference_sparse_terminals)
{
    run_regime(CHECK_GRID_SPARSE, 150);
}
Test(grid, bk_matches_reference_no_s_t_path)
{
    run_regime(CHECK_GRID_NO_PATH, 100);
}
Test(grid, bk_matches_reference_long_maze_paths)
{
    run_regime(CHECK_GRID_MAZE, 100);
}
Test(grid, bk_matches_reference_thin_and_one_pixel)
{
    run_regime(CHECK_GRID_THIN, 150);
}

Test(grid, generator_is_deterministic)
{
    for (int i = 0; i < 2 * CHECK_GRID_REGIMES; i++) {
        gcut_grid *a = NULL, *b = NULL;
        cr_assert_eq(check_grid_random(ctx, 99, i, &a), GCUT_OK);
        cr_assert_eq(check_grid_random(ctx, 99, i, &b), GCUT_OK);
        int w = gcut_grid_width(a), h = gcut_grid_height(a), conn = gcut_grid_connectivity(a);
        cr_assert_eq(gcut_grid_width(b), w);
        cr_assert_eq(gcut_grid_height(b), h);
        cr_assert_eq(gcut_grid_connectivity(b), conn);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int32_t sa, ta, sb, tb;
                gcut_grid_get_terminal(a, x, y, &sa, &ta);
                gcut_grid_get_terminal(b, x, y, &sb, &tb);
                cr_assert(sa == sb && ta == tb, "grid %d pixel (%d, %d)", i, x, y);
                for (int d = 0; d < conn; d++) {
                    int32_t ca = 0, cb = 0;
                    gcut_grid_get_edge(a, x, y, (gcut_dir)d, &ca);
                    gcut_grid_get_edge(b, x, y, (gcut_dir)d, &cb);
                    cr_assert_eq(ca, cb, "grid %d pixel (%d, %d) dir %d", i, x, y, d);
                }
            }
        gcut_grid_destroy(a);
        gcut_grid_destroy(b);
    }
}

/* ---- the proof checker catches wrong answers -------------------------- */

static void assert_verify_fails(gcut_grid *g, const char *needle)
{
    assert_error(gcut_grid_verify(g, NULL), GCUT_E_VERIFY, needle);
}

Test(grid, verify_catches_a_residual_that_breaks_a_capacity)
{
    gcut_grid *g = solved_chain();
    int32_t p1 = gcut__grid_node(g, 1, 0);
    g->res[GCUT_DIR_E][p1] += 1; /* the pair's residuals no longer sum to the capacities */
    assert_verify_fails(g, "(1, 0)");
    g->res[GCUT_DIR_E][p1] -= 1;
    cr_assert_eq(gcut_grid_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
    /* A negative residual, even with the right sum. */
    int32_t p2 = gcut__grid_node(g, 2, 0);
    int32_t e = g->res[GCUT_DIR_E][p1], w = g->res[GCUT_DIR_W][p2];
    g->res[GCUT_DIR_E][p1] = -1;
    g->res[GCUT_DIR_W][p2] = e + w + 1;
    assert_verify_fails(g, "residuals -1");
    gcut_grid_destroy(g);
}

Test(grid, verify_catches_flow_not_conserved)
{
    gcut_grid *g = solved_chain();
    /* One more unit p1 -> p2 than p1 receives: p1 has no source arc. */
    int32_t p1 = gcut__grid_node(g, 1, 0), p2 = gcut__grid_node(g, 2, 0);
    g->res[GCUT_DIR_E][p1] -= 1;
    g->res[GCUT_DIR_W][p2] += 1;
    assert_verify_fails(g, "pixel (1, 0) sends 1");
    gcut_grid_destroy(g);
}

Test(grid, verify_catches_a_wrong_flow_value)
{
    gcut_grid *g = solved_chain();
    g->flow += 1;
    assert_verify_fails(g, "not the reported 3");
    g->flow -= 2;
    assert_verify_fails(g, "not the reported 1");
    gcut_grid_destroy(g);
}

Test(grid, verify_catches_a_feasible_but_not_maximum_flow)
{
    /* Take one unit off the whole path: a valid flow of 1 with a matching
     * value, but the labels' cut (2) proves it is not maximum. */
    gcut_grid *g = solved_chain();
    int32_t p0 = gcut__grid_node(g, 0, 0), p1 = gcut__grid_node(g, 1, 0),
            p2 = gcut__grid_node(g, 2, 0);
    g->res[GCUT_DIR_E][p0] += 1;
    g->res[GCUT_DIR_W][p1] -= 1;
    g->res[GCUT_DIR_E][p1] += 1;
    g->res[GCUT_DIR_W][p2] -= 1;
    g->flow = 1;
    assert_verify_fails(g, "cut's capacity 2");
    gcut_grid_destroy(g);
}

Test(grid, verify_catches_wrong_labels)
{
    gcut_grid *g = solved_chain();
    g->label[gcut__grid_node(g, 1, 0)] = 1; /* cut {p0, p1}: capacity 4 */
    assert_verify_fails(g, "cut's capacity 4");
    g->label[gcut__grid_node(g, 1, 0)] = 0;
    g->label[gcut__grid_node(g, 0, 0)] = 0; /* cut {}: capacity 5 */
    assert_verify_fails(g, "cut's capacity 5");
    gcut_grid_destroy(g);
}

Test(grid, verify_catches_tampering_on_random_grids)
{
    for (int i = 0; i < 40; i++) {
        gcut_grid *g = NULL;
        cr_assert_eq(check_grid_random_in(ctx, 5, i, CHECK_GRID_MEDIUM, &g), GCUT_OK);
        int64_t flow = solve(g);
        /* Break one pair's residual sum, on an arc with capacity. */
        int done = 0;
        for (int y = 0; y < g->height && !done; y++)
            for (int x = 0; x < g->width && !done; x++)
                for (int d = 0; d < g->ndirs && !done; d++) {
                    int32_t p = gcut__grid_node(g, x, y);
                    if (g->cap[d][p] > 0 && g->res[d][p] > 0) {
                        g->res[d][p] -= 1;
                        assert_verify_fails(g, "verify:");
                        g->res[d][p] += 1;
                        done = 1;
                    }
                }
        cr_assert_eq(gcut_grid_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
        g->flow = flow + 1;
        assert_verify_fails(g, "verify:");
        g->flow = flow;
        /* Move every pixel to the sink side: a cut of the total source
         * capacity, larger than the flow unless the flow saturates it. */
        int64_t all_source = 0;
        for (int y = 0; y < g->height; y++)
            for (int x = 0; x < g->width; x++) {
                int32_t p = gcut__grid_node(g, x, y);
                all_source += g->source_cap[p];
                g->label[p] = 0;
            }
        if (all_source != flow)
            assert_verify_fails(g, "cut's capacity");
        gcut_grid_destroy(g);
    }
}
