/* Grid graph files (DIMACS with a grid hint): round trips, parallel arcs,
 * and every malformed case with its own status and the line named. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcut.h"
#include "temp_dir.h"

static gcut_context *ctx;
static char dir[64];

static void setup(void)
{
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    temp_dir_make(dir, sizeof dir, "dimacs");
}

/* Remove every file in the temp dir, then the dir. */
static void teardown(void)
{
    temp_dir_remove(dir);
    gcut_context_destroy(ctx);
}

TestSuite(dimacs_grid, .init = setup, .fini = teardown);

/* Write `text` to DIR/name; returns the path (static storage, one at a time). */
static const char *write_text(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(text, 1, strlen(text), fp), strlen(text));
    cr_assert_eq(fclose(fp), 0);
    return path;
}

static uint64_t rng_state;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A random grid: about a third of the capacities zero, the rest in 1..max. */
static gcut_grid *random_grid(int w, int h, int conn, int32_t max)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, w, h, conn, &g), GCUT_OK);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int32_t s = rng() % 3 ? (int32_t)(rng() % (uint32_t)max) + 1 : 0;
            int32_t t = rng() % 3 ? (int32_t)(rng() % (uint32_t)max) + 1 : 0;
            cr_assert_eq(gcut_grid_set_terminal(g, x, y, s, t), GCUT_OK);
            for (int d = 0; d < conn; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
                    continue;
                int32_t c = rng() % 3 ? (int32_t)(rng() % (uint32_t)max) + 1 : 0;
                cr_assert_eq(gcut_grid_set_edge(g, x, y, (gcut_dir)d, c), GCUT_OK);
            }
        }
    }
    return g;
}

static void assert_same_capacities(const gcut_grid *a, const gcut_grid *b)
{
    int w = gcut_grid_width(a), h = gcut_grid_height(a), conn = gcut_grid_connectivity(a);
    cr_assert_eq(gcut_grid_width(b), w);
    cr_assert_eq(gcut_grid_height(b), h);
    cr_assert_eq(gcut_grid_connectivity(b), conn);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int32_t sa, ta, sb, tb;
            cr_assert_eq(gcut_grid_get_terminal(a, x, y, &sa, &ta), GCUT_OK);
            cr_assert_eq(gcut_grid_get_terminal(b, x, y, &sb, &tb), GCUT_OK);
            cr_assert_eq(sa, sb, "source capacity at (%d, %d): %d vs %d", x, y, sa, sb);
            cr_assert_eq(ta, tb, "sink capacity at (%d, %d): %d vs %d", x, y, ta, tb);
            for (int d = 0; d < conn; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
                    continue;
                int32_t ca, cb;
                cr_assert_eq(gcut_grid_get_edge(a, x, y, (gcut_dir)d, &ca), GCUT_OK);
                cr_assert_eq(gcut_grid_get_edge(b, x, y, (gcut_dir)d, &cb), GCUT_OK);
                cr_assert_eq(ca, cb, "arc %d of (%d, %d): %d vs %d", d, x, y, ca, cb);
            }
        }
    }
}

/* Solve and check the proof; returns the flow. */
static int64_t solved_flow(gcut_grid *g)
{
    gcut_solve_info info;
    cr_assert_eq(gcut_grid_solve(g, "bk", &info), GCUT_OK, "%s", gcut_last_error(ctx));
    int64_t cut = -1;
    cr_assert_eq(gcut_grid_verify(g, &cut), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(cut, info.flow);
    return info.flow;
}

static void round_trip(int w, int h, int conn, int32_t max, int solve)
{
    char path[128];
    snprintf(path, sizeof path, "%s/g-%dx%d-%d.max", dir, w, h, conn);
    gcut_grid *g = random_grid(w, h, conn, max);
    cr_assert_eq(gcut_grid_write_dimacs(g, path), GCUT_OK, "%s", gcut_last_error(ctx));
    gcut_grid *back = NULL;
    cr_assert_eq(gcut_grid_read_dimacs(ctx, path, &back), GCUT_OK, "%s", gcut_last_error(ctx));
    assert_same_capacities(g, back);
    if (solve)
        cr_assert_eq(solved_flow(g), solved_flow(back), "%dx%d %d-connected", w, h, conn);
    gcut_grid_destroy(g);
    gcut_grid_destroy(back);
    cr_assert_eq(unlink(path), 0);
}

Test(dimacs_grid, random_grids_round_trip_with_the_same_capacities_and_flow)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {16, 16}, {37, 23}};
    rng_state = 0x9e3779b97f4a7c15ULL;
    for (int conn = 4; conn <= 8; conn += 4)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int rep = 0; rep < 3; rep++)
                round_trip(sizes[i][0], sizes[i][1], conn, rep == 0 ? 3 : 1000, 1);
}

Test(dimacs_grid, near_limit_capacities_round_trip)
{
    rng_state = 12345;
    round_trip(9, 6, 4, INT32_MAX - 1, 0);
    round_trip(6, 9, 8, INT32_MAX - 1, 0);
}

Test(dimacs_grid, written_file_has_the_hint_and_only_nonzero_arcs)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, 3, 2, 8, &g), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 0, 0, 7, 0), GCUT_OK);
    cr_assert_eq(gcut_grid_set_terminal(g, 2, 1, 0, 9), GCUT_OK);
    cr_assert_eq(gcut_grid_set_edge(g, 1, 1, GCUT_DIR_NE, 5), GCUT_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/w.max", dir);
    cr_assert_eq(gcut_grid_write_dimacs(g, path), GCUT_OK);
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    char text[512] = "";
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    /* (1, 1) is pixel 5, its NE neighbour (2, 0) pixel 3; (2, 1) is pixel 6. */
    cr_assert_str_eq(text, "c grid 3 2 8\np max 8 3\nn 7 s\nn 8 t\n"
                           "a 7 1 7\na 5 3 5\na 6 8 9\n");
    gcut_grid_destroy(g);
}

Test(dimacs_grid, writing_into_a_missing_folder_fails_and_leaves_nothing)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_create(ctx, 2, 2, 4, &g), GCUT_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/no-such-dir/g.max", dir);
    cr_assert_eq(gcut_grid_write_dimacs(g, path), GCUT_E_IO);
    cr_assert(strstr(gcut_last_error(ctx), path) != NULL, "%s", gcut_last_error(ctx));
    struct stat sb;
    cr_assert_neq(stat(path, &sb), 0);
    gcut_grid_destroy(g);
}

Test(dimacs_grid, parallel_arcs_add_up)
{
    const char *path = write_text("par.max", "c grid 2 2 8\n"
                                             "p max 6 9\n"
                                             "n 5 s\n"
                                             "n 6 t\n"
                                             "a 5 1 3\n"
                                             "a 1 2 4\n"
                                             "a 5 1 10\n"
                                             "a 1 2 6\n"
                                             "a 4 6 1\n"
                                             "a 4 6 2\n"
                                             "a 2 3 8\n"
                                             "a 2 3 0\n"
                                             "a 1 2 2147483637\n");
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_read_dimacs(ctx, path, &g), GCUT_OK, "%s", gcut_last_error(ctx));
    int32_t s, t, c;
    cr_assert_eq(gcut_grid_get_terminal(g, 0, 0, &s, &t), GCUT_OK);
    cr_assert_eq(s, 13);
    cr_assert_eq(t, 0);
    cr_assert_eq(gcut_grid_get_terminal(g, 1, 1, &s, &t), GCUT_OK);
    cr_assert_eq(t, 3);
    cr_assert_eq(gcut_grid_get_edge(g, 0, 0, GCUT_DIR_E, &c), GCUT_OK);
    cr_assert_eq(c, INT32_MAX); /* 4 + 6 + 2147483637: exactly the limit */
    cr_assert_eq(gcut_grid_get_edge(g, 1, 0, GCUT_DIR_SW, &c), GCUT_OK);
    cr_assert_eq(c, 8);
    gcut_grid_destroy(g);
}

Test(dimacs_grid, comments_blank_lines_tabs_and_crlf_are_accepted)
{
    const char *path = write_text("ok.max", "c made by hand\r\n"
                                            "\r\n"
                                            "c grid\t2 1 4\r\n"
                                            "c another comment\n"
                                            "p  max 4\t3  \n"
                                            "\n"
                                            "n 3 s\n"
                                            "n 4 t\n"
                                            "c\n"
                                            "a 3 1 5\r\n"
                                            "  a 1 2 4\n"
                                            "a\t2 4 9"); /* a complete last line without '\n' */
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_read_dimacs(ctx, path, &g), GCUT_OK, "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_grid_width(g), 2);
    cr_assert_eq(gcut_grid_height(g), 1);
    cr_assert_eq(solved_flow(g), 4);
    gcut_grid_destroy(g);
}

/* One malformed file: its status, and the line the message must name. */
typedef struct bad_case {
    const char *what;
    const char *text;
    gcut_status status;
    int line;
} bad_case;

#define HEAD_2X2 "c grid 2 2 4\np max 6 1\nn 5 s\nn 6 t\n" /* lines 1-4, one arc */
#define HEAD_3X3_8 "c grid 3 3 8\np max 11 1\nn 10 s\nn 11 t\n"

static const bad_case bad_cases[] = {
    {"empty file", "", GCUT_E_FORMAT, 1},
    {"hint with a word for the height", "c grid 2 x 4\np max 6 0\n", GCUT_E_FORMAT, 1},
    {"hint with connectivity 6", "c grid 2 2 6\np max 6 0\n", GCUT_E_FORMAT, 1},
    {"hint with width 0", "c grid 0 2 4\np max 2 0\n", GCUT_E_FORMAT, 1},
    {"hint with a fourth number", "c grid 2 2 4 1\np max 6 0\n", GCUT_E_FORMAT, 1},
    {"hint too large", "c grid 100000 100000 4\np max 10000000002 0\n", GCUT_E_OVERFLOW, 1},
    {"a second hint", "c grid 2 2 4\nc grid 2 2 4\np max 6 0\n", GCUT_E_FORMAT, 2},
    {"hint after the p line", "c grid 2 2 4\np max 6 0\nc grid 2 2 4\n", GCUT_E_FORMAT, 3},
    {"no hint", "c plain DIMACS\np max 6 1\nn 5 s\nn 6 t\na 5 1 3\n", GCUT_E_NOTGRID, 2},
    {"problem type min", "c grid 2 2 4\np min 6 0\n", GCUT_E_FORMAT, 2},
    {"p line without counts", "c grid 2 2 4\np max\nn 5 s\n", GCUT_E_FORMAT, 2},
    {"p line with the wrong node count", "c grid 2 2 4\np max 7 0\n", GCUT_E_FORMAT, 2},
    {"p line with a negative arc count", "c grid 2 2 4\np max 6 -1\n", GCUT_E_FORMAT, 2},
    {"a second p line", "c grid 2 2 4\np max 6 0\np max 6 0\n", GCUT_E_FORMAT, 3},
    {"no p line", "c grid 2 2 4\nc nothing else\n", GCUT_E_FORMAT, 2},
    {"n line before the p line", "c grid 2 2 4\nn 5 s\np max 6 0\n", GCUT_E_FORMAT, 2},
    {"arc before the p line", "c grid 2 2 4\na 5 1 1\np max 6 0\n", GCUT_E_FORMAT, 2},
    {"unknown line type", HEAD_2X2 "x 1 2 3\na 5 1 1\n", GCUT_E_FORMAT, 5},
    {"unknown word line", HEAD_2X2 "arc 5 1 1\n", GCUT_E_FORMAT, 5},
    {"stray byte", HEAD_2X2 "\001\n", GCUT_E_FORMAT, 5},
    {"source on the wrong node", "c grid 2 2 4\np max 6 0\nn 4 s\nn 6 t\n", GCUT_E_RANGE, 3},
    {"sink on the source's node", "c grid 2 2 4\np max 6 0\nn 5 s\nn 5 t\n", GCUT_E_RANGE, 4},
    {"n line of type x", "c grid 2 2 4\np max 6 0\nn 5 x\n", GCUT_E_FORMAT, 3},
    {"two source lines", "c grid 2 2 4\np max 6 0\nn 5 s\nn 5 s\n", GCUT_E_FORMAT, 4},
    {"no sink line", "c grid 2 2 4\np max 6 1\nn 5 s\na 5 1 2\n", GCUT_E_FORMAT, 4},
    {"node id above N", HEAD_2X2 "a 1 7 3\n", GCUT_E_RANGE, 5},
    {"node id 0", HEAD_2X2 "a 0 1 3\n", GCUT_E_RANGE, 5},
    {"negative node id", HEAD_2X2 "a -1 1 3\n", GCUT_E_RANGE, 5},
    {"negative capacity", HEAD_2X2 "a 5 1 -3\n", GCUT_E_RANGE, 5},
    {"capacity just over int32", HEAD_2X2 "a 5 1 2147483648\n", GCUT_E_OVERFLOW, 5},
    {"capacity of 25 digits", HEAD_2X2 "a 5 1 9999999999999999999999999\n", GCUT_E_OVERFLOW, 5},
    {"parallel arcs overflowing",
     "c grid 2 2 4\np max 6 3\nn 5 s\nn 6 t\na 1 2 2000000000\na 1 3 1\na 1 2 147483648\n",
     GCUT_E_OVERFLOW, 7},
    {"capacity with a letter", HEAD_2X2 "a 5 1 3x\n", GCUT_E_FORMAT, 5},
    {"arc with a fourth number", HEAD_2X2 "a 5 1 3 4\n", GCUT_E_FORMAT, 5},
    {"arc with two numbers", HEAD_2X2 "a 5 1\na 5 2 1\n", GCUT_E_FORMAT, 5},
    {"diagonal arc in a 4-connected grid", HEAD_2X2 "a 1 4 3\n", GCUT_E_NOTGRID, 5},
    {"arc two columns apart", HEAD_3X3_8 "a 1 3 3\n", GCUT_E_NOTGRID, 5},
    {"arc across a row's end", HEAD_3X3_8 "a 3 4 3\n", GCUT_E_NOTGRID, 5},
    {"arc two rows apart", HEAD_3X3_8 "a 2 8 3\n", GCUT_E_NOTGRID, 5},
    {"source to sink arc", HEAD_2X2 "a 5 6 3\n", GCUT_E_NOTGRID, 5},
    {"pixel to source arc", HEAD_2X2 "a 1 5 3\n", GCUT_E_NOTGRID, 5},
    {"sink to pixel arc", HEAD_2X2 "a 6 1 3\n", GCUT_E_NOTGRID, 5},
    {"pixel self loop", HEAD_2X2 "a 2 2 3\n", GCUT_E_NOTGRID, 5},
    {"source self loop", HEAD_2X2 "a 5 5 3\n", GCUT_E_NOTGRID, 5},
    {"more arcs than announced", HEAD_2X2 "a 5 1 3\na 5 2 3\n", GCUT_E_FORMAT, 6},
    {"fewer arcs than announced", "c grid 2 2 4\np max 6 3\nn 5 s\nn 6 t\na 5 1 3\na 2 6 3\n\n",
     GCUT_E_TRUNCATED, 7},
    {"last line cut after a node", HEAD_2X2 "a 5 1", GCUT_E_TRUNCATED, 5},
    {"last line cut after a blank", HEAD_2X2 "a 5 ", GCUT_E_TRUNCATED, 5},
    {"last line cut after its type", HEAD_2X2 "a", GCUT_E_TRUNCATED, 5},
    {"p line cut", "c grid 2 2 4\np max 6", GCUT_E_TRUNCATED, 2},
};

Test(dimacs_grid, every_malformed_file_gets_its_status_and_line)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char name[32];
        snprintf(name, sizeof name, "bad%zu.max", i);
        const char *path = write_text(name, c->text);
        gcut_grid *g = (gcut_grid *)&g;
        gcut_status st = gcut_grid_read_dimacs(ctx, path, &g);
        const char *msg = gcut_last_error(ctx);
        cr_expect_eq(st, c->status, "%s: status %s, want %s (%s)", c->what, gcut_status_str(st),
                     gcut_status_str(c->status), msg);
        cr_expect_null(g, "%s: no grid on failure", c->what);
        char want[160];
        snprintf(want, sizeof want, "%s:%d: ", path, c->line);
        cr_expect(strncmp(msg, want, strlen(want)) == 0, "%s: message '%s' should start '%s'",
                  c->what, msg, want);
        cr_expect(strlen(msg) > strlen(want) + 10, "%s: message '%s' says too little", c->what,
                  msg);
        gcut_grid_destroy(g);
    }
}

Test(dimacs_grid, a_missing_file_is_an_io_error_naming_it)
{
    char path[128];
    snprintf(path, sizeof path, "%s/none.max", dir);
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_read_dimacs(ctx, path, &g), GCUT_E_IO);
    cr_assert_null(g);
    cr_assert(strstr(gcut_last_error(ctx), path) != NULL, "%s", gcut_last_error(ctx));
}

Test(dimacs_grid, the_bundled_sample_reads_and_solves_to_its_known_flow)
{
    gcut_grid *g = NULL;
    cr_assert_eq(gcut_grid_read_dimacs(ctx, GCUT_SOURCE_DIR "/samples/tiny.max", &g), GCUT_OK, "%s",
                 gcut_last_error(ctx));
    cr_assert_eq(gcut_grid_width(g), 3);
    cr_assert_eq(gcut_grid_height(g), 2);
    int32_t c;
    cr_assert_eq(gcut_grid_get_edge(g, 0, 0, GCUT_DIR_E, &c), GCUT_OK);
    cr_assert_eq(c, 4); /* two parallel arcs, 3 + 1 */
    cr_assert_eq(solved_flow(g), 8);
    gcut_grid_destroy(g);
}
