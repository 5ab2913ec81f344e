/* General-graph DIMACS files: round trips, parallel arcs and self-loops,
 * solution files, and every malformed case with its status and line. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcut.h"
#include "temp_dir.h"

static gcut_context *ctx;
static char dir[64];

static void setup(void)
{
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    temp_dir_make(dir, sizeof dir, "gdimacs");
}

static void teardown(void)
{
    temp_dir_remove(dir);
    gcut_context_destroy(ctx);
}

TestSuite(graph_dimacs, .init = setup, .fini = teardown);

static const char *path_of(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static const char *write_text(const char *name, const char *text)
{
    const char *path = path_of(name);
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

/* The whole file as a string (caller frees). */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s", path);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static const char *diamond = "c a diamond with a parallel arc and a self-loop\n"
                             "p max 4 7\n"
                             "n 1 s\n"
                             "n 4 t\n"
                             "a 1 2 3\n"
                             "a 1 3 2\n"
                             "a 2 4 2\n"
                             "a 3 4 4\n"
                             "a 2 3 1\n"
                             "a 1 2 2\n"
                             "a 3 3 9\n";

Test(graph_dimacs, reads_a_graph_summing_parallel_arcs_and_dropping_self_loops)
{
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_read_dimacs(ctx, write_text("d.max", diamond), &g), GCUT_OK, "%s",
                 gcut_last_error(ctx));
    gcut_graph_stats st;
    cr_assert_eq(gcut_graph_get_stats(g, &st), GCUT_OK);
    cr_assert_eq(st.nodes, 4);
    cr_assert_eq(st.arcs_in, 7);
    cr_assert_eq(st.arcs, 5);
    cr_assert_eq(st.parallel_merged, 1);
    cr_assert_eq(st.self_loops, 1);
    cr_assert_eq(gcut_graph_source(g), 0);
    cr_assert_eq(gcut_graph_sink(g), 3);
    /* Arcs sorted by tail then head: 1->2 (3+2), 1->3, 2->3, 2->4, 3->4. */
    int32_t u, v, c;
    cr_assert_eq(gcut_graph_arc(g, 0, &u, &v, &c), GCUT_OK);
    cr_assert(u == 0 && v == 1 && c == 5);
    gcut_graph_arc(g, 2, &u, &v, &c);
    cr_assert(u == 1 && v == 2 && c == 1);
    cr_assert_eq(gcut_graph_arc(g, 5, &u, &v, &c), GCUT_E_INVALID);

    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, NULL, 0, &info), GCUT_OK);
    cr_assert_eq(info.flow, 5); /* 2 by 2->4, 3 by 3->4 (fed by 1->3 and 2->3) */
    gcut_graph_destroy(g);
}

Test(graph_dimacs, write_then_read_gives_the_same_graph)
{
    gcut_graph *g = NULL, *h = NULL;
    cr_assert_eq(gcut_graph_read_dimacs(ctx, write_text("d.max", diamond), &g), GCUT_OK);
    cr_assert_eq(gcut_graph_write_dimacs(g, path_of("out.max")), GCUT_OK, "%s",
                 gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_read_dimacs(ctx, path_of("out.max"), &h), GCUT_OK, "%s",
                 gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_nodes(h), gcut_graph_nodes(g));
    cr_assert_eq(gcut_graph_arcs(h), gcut_graph_arcs(g));
    cr_assert_eq(gcut_graph_source(h), gcut_graph_source(g));
    cr_assert_eq(gcut_graph_sink(h), gcut_graph_sink(g));
    for (int32_t k = 0; k < gcut_graph_arcs(g); k++) {
        int32_t a[3], b[3];
        gcut_graph_arc(g, k, &a[0], &a[1], &a[2]);
        gcut_graph_arc(h, k, &b[0], &b[1], &b[2]);
        cr_assert(a[0] == b[0] && a[1] == b[1] && a[2] == b[2], "arc %d", k);
    }
    gcut_graph_destroy(g);
    gcut_graph_destroy(h);
}

Test(graph_dimacs, writes_the_flow_and_the_cut)
{
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_read_dimacs(ctx, write_text("d.max", diamond), &g), GCUT_OK);
    cr_assert_eq(gcut_graph_write_flow(g, path_of("f.sol")), GCUT_E_STATE);
    cr_assert_eq(gcut_graph_write_cut(g, path_of("c.txt")), GCUT_E_STATE);
    cr_assert_eq(access(path_of("f.sol"), F_OK), -1, "no file after a failure");
    cr_assert_eq(gcut_graph_solve(g, "prf", 0, NULL), GCUT_OK);
    cr_assert_eq(gcut_graph_write_flow(g, path_of("f.sol")), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_graph_write_cut(g, path_of("c.txt")), GCUT_OK, "%s", gcut_last_error(ctx));

    /* The flow file: "s 5", then one "f" line per arc that conserves flow. */
    char *text = slurp(path_of("f.sol"));
    cr_assert_not_null(strstr(text, "\ns 5\n"), "%s", text);
    int64_t net[5] = {0};
    int lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int u, v, x;
        if (sscanf(line, "f %d %d %d", &u, &v, &x) == 3) {
            cr_assert(u >= 1 && u <= 4 && v >= 1 && v <= 4 && x >= 0);
            net[v] += x;
            net[u] -= x;
            lines++;
        }
    }
    cr_assert_eq(lines, 5);
    cr_assert(net[1] == -5 && net[2] == 0 && net[3] == 0 && net[4] == 5);
    free(text);

    /* The cut: the 1-based ids of the source side, as gcut_graph_cut_side()
     * has it, of capacity 5 ({1, 2}: 1->3, 2->3, 2->4 = 2 + 1 + 2). */
    text = slurp(path_of("c.txt"));
    uint8_t side[4];
    cr_assert_eq(gcut_graph_cut_side(g, side), GCUT_OK);
    int64_t cap = 0;
    cr_assert_eq(gcut_graph_cut_capacity(g, side, &cap), GCUT_OK);
    cr_assert_eq(cap, 5);
    cr_assert(side[0] && side[1] && !side[2] && !side[3]);
    int listed[5] = {0};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int id;
        if (line[0] != 'c' && sscanf(line, "%d", &id) == 1) {
            cr_assert(id >= 1 && id <= 4);
            listed[id] = 1;
        }
    }
    for (int v = 0; v < 4; v++)
        cr_assert_eq(listed[v + 1], side[v], "node %d", v + 1);
    free(text);
    gcut_graph_destroy(g);
}

/* One malformed file: its status and "PATH:LINE:" in the message. */
static void expect_error(const char *text, gcut_status want, int line, const char *fragment)
{
    const char *path = write_text("bad.max", text);
    gcut_graph *g = (gcut_graph *)1;
    gcut_status st = gcut_graph_read_dimacs(ctx, path, &g);
    cr_assert_eq(st, want, "status %s, want %s: %s", gcut_status_str(st), gcut_status_str(want),
                 gcut_last_error(ctx));
    cr_assert_null(g);
    char where[160];
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    cr_assert_not_null(strstr(gcut_last_error(ctx), where), "'%s' lacks '%s'", gcut_last_error(ctx),
                       where);
    if (fragment)
        cr_assert_not_null(strstr(gcut_last_error(ctx), fragment), "'%s' lacks '%s'",
                           gcut_last_error(ctx), fragment);
}

Test(graph_dimacs, names_the_line_of_each_format_error)
{
    expect_error("p max 3 1\nn 1 s\nn 3 t\nx 1 2 3\n", GCUT_E_FORMAT, 4, "unknown line");
    expect_error("a 1 2 3\np max 3 1\n", GCUT_E_FORMAT, 1, "before");
    expect_error("c hi\np min 3 1\n", GCUT_E_FORMAT, 2, "p max");
    expect_error("p max 3\n", GCUT_E_FORMAT, 1, "p max");
    expect_error("p max 3 1\np max 3 1\n", GCUT_E_FORMAT, 2, "second");
    expect_error("p max 3 1\nn 1 s\nn 2 s\n", GCUT_E_FORMAT, 3, "second source");
    expect_error("p max 3 1\nn 1 s\nn 1 t\n", GCUT_E_FORMAT, 3, "both");
    expect_error("p max 3 1\nn 1 x\n", GCUT_E_FORMAT, 2, NULL);
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2\n", GCUT_E_FORMAT, 4, "a U V CAP");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 3 4\n", GCUT_E_FORMAT, 4, "after");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 x3\n", GCUT_E_FORMAT, 4, NULL);
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 3\na 2 3 3\n", GCUT_E_FORMAT, 5, "more arcs");
    expect_error("p max 3 1\nn 1 s\na 1 3 3\n", GCUT_E_FORMAT, 3, "n ID t");
    expect_error("c only comments\n\n", GCUT_E_FORMAT, 2, "no 'p max");
}

/* What the lexer shared with grid files gives general graphs too. */
Test(graph_dimacs, names_what_the_shared_lexer_finds)
{
    /* A last line cut short, without its '\n': truncated, not malformed. */
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2", GCUT_E_TRUNCATED, 4, "CAP");
    expect_error("p max 3 1 extra\n", GCUT_E_FORMAT, 1, "after the last field");
    expect_error("p max 3 1\nn 1 s\nn 3 t\nab 1 2 3\n", GCUT_E_FORMAT, 4, "'ab'");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 3\x01\n", GCUT_E_FORMAT, 4, "0x01");
    expect_error("p max 3 1\nn 1 s\nn 3 st\n", GCUT_E_FORMAT, 3, "'st'");
    expect_error("", GCUT_E_TRUNCATED, 1, "empty");
}

Test(graph_dimacs, names_the_line_of_each_range_and_overflow_error)
{
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 4 3\n", GCUT_E_RANGE, 4, "outside 1..3");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 0 2 3\n", GCUT_E_RANGE, 4, "outside");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 -5\n", GCUT_E_RANGE, 4, "negative");
    expect_error("p max 3 1\nn 9 s\n", GCUT_E_RANGE, 2, "outside");
    expect_error("p max 1 0\n", GCUT_E_RANGE, 1, "N >= 2");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 2147483648\n", GCUT_E_OVERFLOW, 4, "int32");
    expect_error("p max 3 1\nn 1 s\nn 3 t\na 1 2 99999999999999999999999\n", GCUT_E_OVERFLOW, 4,
                 NULL);
    expect_error("p max 3000000000 1\n", GCUT_E_OVERFLOW, 1, "too big");
}

Test(graph_dimacs, refuses_parallel_arcs_summing_past_int32)
{
    const char *path = write_text("sum.max", "p max 3 2\nn 1 s\nn 3 t\n"
                                             "a 1 2 2000000000\na 1 2 2000000000\n");
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_read_dimacs(ctx, path, &g), GCUT_E_OVERFLOW);
    cr_assert_null(g);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "1 -> 2"), "%s", gcut_last_error(ctx));
    cr_assert_not_null(strstr(gcut_last_error(ctx), path), "%s", gcut_last_error(ctx));
}

Test(graph_dimacs, reports_truncation_and_unreadable_files)
{
    expect_error("p max 3 2\nn 1 s\nn 3 t\na 1 2 3\n", GCUT_E_TRUNCATED, 4, "1 of the 2");
    expect_error("", GCUT_E_TRUNCATED, 1, "empty");
    gcut_graph *g = NULL;
    cr_assert_eq(gcut_graph_read_dimacs(ctx, path_of("missing.max"), &g), GCUT_E_IO);
    cr_assert_not_null(strstr(gcut_last_error(ctx), "missing.max"));
    cr_assert_eq(gcut_graph_read_dimacs(ctx, dir, &g), GCUT_E_IO, "a directory: %s",
                 gcut_last_error(ctx));
}

Test(graph_dimacs, accepts_crlf_tabs_and_comments_anywhere)
{
    gcut_graph *g = NULL;
    const char *path = write_text("ok.max", "c top\r\np\tmax 3 2\r\nc mid\r\nn 1 s\r\n\r\n"
                                            "n 3 t\r\n  a 1 2 5\r\na\t2 3 4\r\nc end");
    cr_assert_eq(gcut_graph_read_dimacs(ctx, path, &g), GCUT_OK, "%s", gcut_last_error(ctx));
    gcut_solve_info info;
    cr_assert_eq(gcut_graph_solve(g, "bk", 0, &info), GCUT_OK);
    cr_assert_eq(info.flow, 4);
    gcut_graph_destroy(g);
}
