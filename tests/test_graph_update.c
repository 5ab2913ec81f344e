/* Dynamic general graphs: capacity batches and warm re-solves (prf and bk)
 * against the reference on random sequences and every generator family;
 * the update API's contracts; the update-file parser. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "check_graph_update.h"
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

TestSuite(graph_update, .init = setup, .fini = teardown);

Test(graph_update, random_sequences_match_the_reference_after_every_batch)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_graph_update_sequences(&r, 1500, 11);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 1500);
}

Test(graph_update, every_generator_family_matches_the_reference)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_graph_update_families(&r, 120, 11);
    cr_assert_eq(r.failed, 0, "%d failed; first: %s", r.failed, r.first_failure);
    cr_assert_eq(r.passed, 120);
}

Test(graph_update, refused_batches_name_the_update_and_change_nothing)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_graph_update_refused(&r, 10, 1);
    cr_assert_eq(r.failed, 0, "%s", r.first_failure);
}

/* s=0 -> 1 -> 3=t, 0 -> 2 -> 3. */
static gcut_graph *diamond(void)
{
    const int32_t tail[] = {0, 1, 0, 2}, head[] = {1, 3, 2, 3}, cap[] = {5, 4, 3, 6};
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_create_from_arcs(ctx, 4, 4, tail, head, cap, 0, 3, &g), GCUT_OK);
    return g;
}

Test(graph_update, a_lowered_arc_and_a_raised_one_give_the_new_flow_warm)
{
    const char *const algos[] = {"prf", "bk"};
    for (int k = 0; k < 2; k++) {
        gcut_graph *g = diamond();
        gcut_solve_info info;
        cr_assert_eq(gcut_graph_solve(g, algos[k], 0, &info), GCUT_OK);
        cr_assert_eq(info.flow, 7);
        /* 1 -> 3 cut below its flow of 4, 0 -> 2 raised: 1 + 6. */
        int32_t t[] = {1, 0}, h[] = {3, 2}, c[] = {1, 9};
        cr_assert_eq(gcut_graph_update(g, 2, t, h, c, 0), GCUT_OK);
        cr_assert_eq(gcut_graph_cut_side(g, (uint8_t[4]){0}), GCUT_E_STATE,
                     "the old result is gone after an update");
        cr_assert_eq(gcut_graph_solve(g, algos[k], GCUT_GRAPH_SOLVE_FLOW, &info), GCUT_OK);
        cr_assert_eq(info.flow, 7, "%s", algos[k]);
        int64_t cut = 0;
        cr_assert_eq(gcut_graph_verify(g, &cut), GCUT_OK, "%s", gcut_last_error(ctx));
        cr_assert_eq(cut, 7);
        int32_t flow[4];
        cr_assert_eq(gcut_graph_arc_flows(g, flow), GCUT_OK);
        int32_t a13 = -1;
        cr_assert_eq(gcut_graph_find_arc(g, 1, 3, &a13), GCUT_OK);
        cr_assert_leq(flow[a13], 1);
        /* Zero the source's arcs: flow 0, from zero or warm alike. */
        int32_t zt[] = {0, 0}, zh[] = {1, 2}, zc[] = {0, 0};
        cr_assert_eq(gcut_graph_update(g, 2, zt, zh, zc, 0), GCUT_OK);
        cr_assert_eq(gcut_graph_solve(g, algos[k], 0, &info), GCUT_OK);
        cr_assert_eq(info.flow, 0);
        cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
        gcut_graph_destroy(g);
    }
}

Test(graph_update, missing_arcs_are_refused_or_added)
{
    gcut_graph *g = diamond();
    cr_assert_eq(gcut_graph_solve(g, NULL, 0, NULL), GCUT_OK);
    int32_t t[] = {0}, h[] = {3}, c[] = {10};
    cr_assert_eq(gcut_graph_update(g, 1, t, h, c, 0), GCUT_E_RANGE);
    cr_assert(strstr(gcut_last_error(ctx), "no arc 0 -> 3"), "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_update(g, 1, t, h, c, GCUT_GRAPH_UPDATE_ADD), GCUT_OK);
    cr_assert_eq(gcut_graph_arcs(g), 5);
    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, NULL, 0, &info), GCUT_OK);
    cr_assert_eq(info.flow, 17);
    cr_assert_eq(gcut_graph_verify(g, NULL), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_update(g, 1, t, h, c, 7u), GCUT_E_INVALID);
    gcut_graph_destroy(g);
}

Test(graph_update, from_scratch_gives_the_same_answer)
{
    gcut_graph *g = diamond();
    cr_assert_eq(gcut_graph_solve(g, "prf", 0, NULL), GCUT_OK);
    int32_t t[] = {2}, h[] = {3}, c[] = {1};
    cr_assert_eq(gcut_graph_update(g, 1, t, h, c, 0), GCUT_OK);
    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, "prf", GCUT_GRAPH_SOLVE_SCRATCH, &info), GCUT_OK);
    cr_assert_eq(info.flow, 5);
    gcut_graph_destroy(g);
}

Test(graph_update, the_parser_round_trips_and_names_bad_lines)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_graph_update_parser(&r, 500, 5);
    cr_assert_eq(r.failed, 0, "%s", r.first_failure);

    static const struct {
        const char *text, *says;
        gcut_status status;
    } bad[] = {
        {"1 2 3\n", "u.txt:1: an update before the first 'b' line", GCUT_E_FORMAT},
        {"b\n1 2\n", "u.txt:2: expected", GCUT_E_FORMAT},
        {"b\n1 2 3 4\n", "u.txt:2: unexpected text", GCUT_E_FORMAT},
        {"b\nbx\n", "u.txt:2: unexpected text after 'b'", GCUT_E_FORMAT},
        {"c\nb\n0 1 1\n", "u.txt:3: arc 0 -> 1: node id outside 1..4", GCUT_E_RANGE},
        {"b\n1 2 -5\n", "u.txt:2: arc 1 -> 2: negative capacity -5", GCUT_E_RANGE},
        {"b\n1 2 2147483648\n", "u.txt:2: arc 1 -> 2: capacity 2147483648", GCUT_E_OVERFLOW},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gcut_updates *u = NULL;
        gcut_status st = gcut_updates_parse(ctx, bad[i].text, strlen(bad[i].text), "u.txt", 4, &u);
        cr_assert_eq(st, bad[i].status, "%s: %s", bad[i].text, gcut_status_str(st));
        cr_assert(strstr(gcut_last_error(ctx), bad[i].says), "%s", gcut_last_error(ctx));
        cr_assert_null(u);
    }
    /* A missing arc is named with its line when the batch is applied. */
    gcut_updates *u = NULL;
    const char *text = "b\n1 2 1\nc\nb\n\n2 1 3\n";
    cr_assert_eq(gcut_updates_parse(ctx, text, strlen(text), "u.txt", 4, &u), GCUT_OK);
    cr_assert_eq(gcut_updates_batches(u), 2);
    gcut_graph *g = diamond();
    cr_assert_eq(gcut_updates_apply(u, 0, g, 0), GCUT_OK);
    cr_assert_eq(gcut_updates_apply(u, 1, g, 0), GCUT_E_RANGE);
    cr_assert(strstr(gcut_last_error(ctx), "u.txt:6: no arc 2 -> 1"), "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_updates_apply(u, 2, g, 0), GCUT_E_INVALID);
    gcut_graph_destroy(g);
    gcut_updates_destroy(u);
    cr_assert_eq(gcut_updates_read(ctx, "/nonexistent/u.txt", 4, &u), GCUT_E_IO);
    cr_assert(strstr(gcut_last_error(ctx), "/nonexistent/u.txt: cannot open"));
}
