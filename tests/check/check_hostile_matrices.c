/* The limits of the matrix readers (Matrix Market and edge lists as
 * bipartite graphs, the assignment formats, .flo files) and the memory
 * budget of the matching, assignment and flow solvers: sizes declared far
 * past what the file holds end at the truncation, sizes that leave more
 * than 2^20 rows or columns without an entry are refused (at the limit
 * accepted, one past it refused), and what a file or a call needs is asked
 * of the budget (under a budget of a few bytes: refused, naming what). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_hostile.h"

typedef enum reader_kind { READ_BIPARTITE, READ_ASSIGN } reader_kind;

typedef struct matrix_case {
    reader_kind reader;
    const char *name; /* the file's name: its extension picks the format */
    const char *text;
    gcut_status want;
    const char *needle; /* in the message when refused */
} matrix_case;

#define MTX_PATTERN "%%MatrixMarket matrix coordinate pattern general\n"
#define MTX_INTEGER "%%MatrixMarket matrix coordinate integer general\n"
#define MTX_ARRAY "%%MatrixMarket matrix array integer general\n"

static const matrix_case cases[] = {
    /* 10^9 x 10^9: 10^12 entries are past the format's limit; 10^9 in three
     * lines end at the truncation; one entry leaves 10^9 - 1 rows empty. */
    {READ_BIPARTITE, "g.mtx", MTX_PATTERN "1000000000 1000000000 1000000000000\n1 1\n",
     GCUT_E_OVERFLOW, "1000000000000 entries: at most 2147483646"},
    {READ_BIPARTITE, "g.mtx", MTX_PATTERN "1000000000 1000000000 1000000000\n1 1\n",
     GCUT_E_TRUNCATED, "g.mtx:3: the file ends after 1 of the 1000000000 entries"},
    {READ_BIPARTITE, "g.mtx", MTX_PATTERN "1000000000 1000000000 1\n1 1\n", GCUT_E_RANGE,
     "g.mtx:2: 1000000000 x 1000000000 with 1 entries: at least 999999999 rows"},
    /* Empty rows (columns): 2^20 accepted, 2^20 + 1 refused. */
    {READ_BIPARTITE, "g.mtx", MTX_PATTERN "1048577 1 1\n1 1\n", GCUT_OK, NULL},
    {READ_BIPARTITE, "g.mtx", MTX_PATTERN "1048578 1 1\n1 1\n", GCUT_E_RANGE,
     "at least 1048577 rows would have no entry, and at most 1048576"},
    {READ_BIPARTITE, "g.mtx", MTX_PATTERN "1 1048578 1\n1 1\n", GCUT_E_RANGE,
     "1048577 columns would have no entry"},
    /* A symmetric entry names two rows. */
    {READ_BIPARTITE, "g.mtx",
     "%%MatrixMarket matrix coordinate pattern symmetric\n1048578 1048578 1\n1 2\n", GCUT_OK, NULL},
    {READ_BIPARTITE, "g.edges", "1 1048577\n", GCUT_OK, NULL},
    {READ_BIPARTITE, "g.edges", "1 1\n1 1048579\n", GCUT_E_RANGE,
     "g.edges:2: column id 1048579 with 2 edges in all: at least 1048577 columns"},
    {READ_BIPARTITE, "g.edges", "1 1\n1048579 1\n", GCUT_E_RANGE,
     "g.edges:2: row id 1048579 with 2 edges in all: at least 1048577 rows"},
    {READ_BIPARTITE, "g.edges", "2000000000 1\n", GCUT_E_RANGE, "row id 2000000000"},
    /* The assignment reader: the same in its three formats. */
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "1000000000 1000000000 1000000000\n1 1 5\n",
     GCUT_E_TRUNCATED, "a.mtx:3: 1 entries of 1000000000"},
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "1000000000 1000000000 1\n1 1 5\n", GCUT_E_RANGE,
     "a.mtx:2: 1000000000 x 1000000000 with 1 arcs at most: at least 999999999 rows"},
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "1048577 1 1\n1 1 5\n", GCUT_OK, NULL},
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "1048578 1 1\n1 1 5\n", GCUT_E_RANGE,
     "at least 1048577 rows would have no arc"},
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "1 1 2000000000000\n1 1 5\n", GCUT_E_OVERFLOW,
     "more than 2^40 arcs"},
    {READ_ASSIGN, "a.mtx", MTX_ARRAY "1000000 1000000\n5\n", GCUT_E_TRUNCATED,
     "a.mtx:3: 1 entries of 1000000000000"},
    {READ_ASSIGN, "a.mtx", MTX_ARRAY "1048576 0\n", GCUT_OK, NULL},
    {READ_ASSIGN, "a.mtx", MTX_ARRAY "1048577 0\n", GCUT_E_RANGE, "1048577 rows would have"},
    {READ_ASSIGN, "a.txt", "2000000000 1\n7\n", GCUT_E_TRUNCATED, "a.txt:2: 1 rows of 2000000000"},
    {READ_ASSIGN, "a.txt", "0 2000000000\n", GCUT_E_RANGE, "2000000000 columns would have no arc"},
    {READ_ASSIGN, "a.txt", "3000000000 3000000000\n1\n", GCUT_E_OVERFLOW, "2^31 - 3"},
    /* A sign behind a carriage return (found by the fuzzer: -2 columns). */
    {READ_ASSIGN, "a.txt", "0 \r-2\n", GCUT_E_FORMAT, "a.txt:1: bad size line"},
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "2 \v-2 1\n1 1 5\n", GCUT_E_FORMAT,
     "a.mtx:2: bad size line"},
    {READ_ASSIGN, "a.mtx", MTX_INTEGER "2 2 1\n1 \r-1 5\n", GCUT_E_FORMAT, "a.mtx:3: bad entry"},
    /* A dense row with no column is still a line: 3 declared, 2 given. */
    {READ_ASSIGN, "a.txt", "3 0\n\n\n\n", GCUT_E_TRUNCATED, "0 rows of 3"},
};

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

static gcut_status read_case(gcut_context *ctx, const matrix_case *c, const char *path)
{
    if (c->reader == READ_BIPARTITE) {
        gcut_bipartite *b = NULL;
        unsigned format = strstr(c->name, ".mtx") ? GCUT_BIPARTITE_MTX : GCUT_BIPARTITE_EDGES;
        gcut_status st = gcut_bipartite_read(ctx, path, format | GCUT_BIPARTITE_NO_COSTS, &b);
        gcut_bipartite_destroy(b);
        return st;
    }
    gcut_assign_input *in = NULL;
    gcut_status st = gcut_assign_read(ctx, path, 0, &in);
    gcut_assign_input_destroy(in);
    return st;
}

static gcut_context *context_with_budget(int64_t max_memory)
{
    gcut_options o;
    gcut_options_init(&o);
    o.device = GCUT_DEVICE_CPU;
    o.verbosity = 0;
    o.max_memory = max_memory;
    gcut_context *ctx = NULL;
    return gcut_context_create(&o, &ctx) == GCUT_OK ? ctx : NULL;
}

/* Under a budget of `budget` bytes, `st` must be the budget's refusal
 * naming `needle`. */
static void expect_budget(check_report *r, gcut_context *ctx, gcut_status st, const char *needle,
                          const char *what)
{
    if (check_hostile_expect(r, ctx, st, GCUT_E_NOMEM, needle, what) &&
        check_hostile_expect(r, ctx, st, GCUT_E_NOMEM, "over the memory budget", what))
        r->passed++;
}

static void dense_within_budget(check_report *r)
{
    enum { N = 300 };
    gcut_context *half = context_with_budget((int64_t)512 << 10);
    int64_t *row_ptr = malloc((N + 1) * sizeof *row_ptr);
    int32_t *col_idx = malloc((size_t)N * N * sizeof *col_idx);
    int32_t *cost = malloc((size_t)N * N * sizeof *cost),
            *row_to_col = malloc(N * sizeof *row_to_col);
    if (!half || !row_ptr || !col_idx || !cost || !row_to_col) {
        check_fail(r, "out of memory for the dense budget case");
        goto done;
    }
    for (int32_t x = 0; x < N; x++)
        for (int32_t y = 0; y < N; y++) {
            col_idx[x * N + y] = y;
            cost[x * N + y] = (x * 7919 + y * 104729) % 1000;
        }
    for (int32_t x = 0; x <= N; x++)
        row_ptr[x] = (int64_t)x * N;
    int64_t total = -1;
    if (check_hostile_expect(
            r, half,
            gcut_assign_csr(half, N, N, row_ptr, col_idx, cost, 0, "csa", row_to_col, &total, NULL),
            GCUT_OK, NULL, "dense 300 x 300 in 512 KiB"))
        r->passed++;
    /* Rows of N - 1 arcs (column x left out of row x): a sparse request. */
    for (int32_t x = 0, k = 0; x < N; x++) {
        row_ptr[x] = k;
        for (int32_t y = 0; y < N; y++)
            if (y != x) {
                col_idx[k] = y;
                cost[k++] = (x * 7919 + y * 104729) % 1000;
            }
        row_ptr[x + 1] = k;
    }
    expect_budget(
        r, half,
        gcut_assign_csr(half, N, N, row_ptr, col_idx, cost, 0, "csa", row_to_col, &total, NULL),
        "assign: 300 rows, 300 columns and 89700 arcs needs about", "sparse 300 x 300 in 512 KiB");
done:
    gcut_context_destroy(half);
    free(row_ptr), free(col_idx), free(cost), free(row_to_col);
}

static void budget_cases(check_report *r, const char *dir)
{
    char path[160];
    gcut_context *tiny = context_with_budget(100), *ample = context_with_budget((int64_t)64 << 20);
    if (!tiny || !ample) {
        check_fail(r, "cannot make the budget contexts");
        goto done;
    }
    /* The readers. */
    snprintf(path, sizeof path, "%s/b.mtx", dir);
    write_text(path, MTX_PATTERN "3 3 2\n1 1\n2 2\n");
    gcut_bipartite *b = NULL;
    expect_budget(r, tiny, gcut_bipartite_read(tiny, path, GCUT_BIPARTITE_AUTO, &b),
                  "b.mtx:2: a 3 x 3 matrix with 2 entries needs about", "Matrix Market");
    gcut_bipartite_destroy(b);
    b = NULL;
    snprintf(path, sizeof path, "%s/b.edges", dir);
    write_text(path, "1 1\n2 2\n3 3\n");
    expect_budget(r, tiny, gcut_bipartite_read(tiny, path, GCUT_BIPARTITE_EDGES, &b),
                  "a bipartite graph of 3 rows, 3 columns and 3 entries needs about", "edge list");
    gcut_bipartite_destroy(b);
    b = NULL;
    snprintf(path, sizeof path, "%s/a.txt", dir);
    write_text(path, "4 4\n1 2 3 4\n5 6 7 8\n9 0 1 2\n3 4 5 6\n");
    gcut_assign_input *in = NULL;
    expect_budget(r, tiny, gcut_assign_read(tiny, path, 0, &in),
                  "a.txt:1: a 4 x 4 cost matrix with 16 arcs needs about", "dense costs");
    gcut_assign_input_destroy(in);
    in = NULL;
    /* A .flo of 4 x 4 vectors: 128 bytes of data. */
    snprintf(path, sizeof path, "%s/f.flo", dir);
    FILE *fp = fopen(path, "wb");
    if (fp) {
        const float tag = 202021.25f, zero[32] = {0};
        const int32_t side[2] = {4, 4};
        fwrite(&tag, 4, 1, fp);
        fwrite(side, 4, 2, fp);
        fwrite(zero, 4, 32, fp);
        fclose(fp);
    }
    int w = 0, h = 0;
    float *flow = NULL;
    expect_budget(r, tiny, gcut_flow_read(tiny, path, &w, &h, &flow), "4 x 4 flow vectors", ".flo");
    gcut_flow_free(flow);
    flow = NULL;
    if (check_hostile_expect(r, ample, gcut_flow_read(ample, path, &w, &h, &flow), GCUT_OK, NULL,
                             ".flo in an ample budget"))
        r->passed++;
    gcut_flow_free(flow);

    /* The solvers: a graph built within the budget, a solve past it. */
    const int32_t rows[] = {0, 1, 2}, cols[] = {0, 1, 2};
    gcut_context *graph_only = context_with_budget(300);
    if (graph_only && check_hostile_expect(r, graph_only,
                                           gcut_bipartite_create_from_edges(graph_only, 3, 3, 3,
                                                                            rows, cols, NULL, &b),
                                           GCUT_OK, NULL, "a 3 x 3 graph in 300 bytes")) {
        int32_t rm[3], cm[3];
        expect_budget(r, graph_only, gcut_match(b, "hk", rm, cm, NULL, NULL, NULL),
                      "match: 3 rows and 3 columns needs about", "matching");
    }
    gcut_bipartite_destroy(b);
    b = NULL;
    gcut_context_destroy(graph_only);
    expect_budget(r, tiny, gcut_bipartite_create_from_edges(tiny, 3, 3, 3, rows, cols, NULL, &b),
                  "edges: a bipartite graph of 3 rows, 3 columns and 3 entries", "from edges");
    gcut_bipartite_destroy(b);
    const int64_t row_ptr[] = {0, 2, 4};
    const int32_t col_idx[] = {0, 1, 0, 1}, cost[] = {1, 2, 3, 4};
    int32_t row_to_col[2];
    int64_t total = 0;
    expect_budget(
        r, tiny,
        gcut_assign_csr(tiny, 2, 2, row_ptr, col_idx, cost, 0, "csa", row_to_col, &total, NULL),
        "assign: 2 rows, 2 columns and 4 arcs needs about", "assignment");
    if (check_hostile_expect(r, ample,
                             gcut_assign_csr(ample, 2, 2, row_ptr, col_idx, cost, 0, "csa",
                                             row_to_col, &total, NULL),
                             GCUT_OK, NULL, "assignment in an ample budget") &&
        total == 5)
        r->passed++;
    else if (total != 5)
        check_fail(r, "assignment in an ample budget: cost %lld, not 5", (long long)total);
    /* A dense square request is solved on the caller's matrix: its
     * estimate is a few hundred bytes a row, not the CSR problem's 12 a
     * arc, so 300 x 300 fits 512 KiB; the same request less one arc a row
     * builds a problem and does not fit. */
    dense_within_budget(r);
    /* Flow: 64 x 64 frames with the default window need a few MiB. */
    enum { S = 64 };
    uint8_t *f0 = calloc(S * S, 1), *f1 = calloc(S * S, 1);
    float *uv = malloc(2 * S * S * sizeof *uv);
    gcut_context *small = context_with_budget((int64_t)1 << 20);
    if (f0 && f1 && uv && small)
        expect_budget(r, small, gcut_flow_frames(small, f0, f1, S, S, 1, S, NULL, uv, NULL),
                      "flow: 64 x 64 frames with a window of radius", "flow frames");
    else
        check_fail(r, "out of memory for the flow frames");
    gcut_context_destroy(small);
    free(f0), free(f1), free(uv);
done:
    gcut_context_destroy(tiny);
    gcut_context_destroy(ample);
}

void check_hostile_matrix_limits(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    char dir[96], path[200];
    if (check_hostile_temp_dir(dir, "matrices")) {
        check_fail(r, "cannot make a temporary folder");
        return;
    }
    /* A budget of 64 MiB: what is accepted at the limits fits it, and a
     * reservation per declared row would not. */
    gcut_context *ctx = context_with_budget((int64_t)64 << 20);
    for (int i = 0; ctx && i < (int)(sizeof cases / sizeof cases[0]); i++) {
        const matrix_case *c = &cases[i];
        snprintf(path, sizeof path, "%s/%s", dir, c->name);
        write_text(path, c->text);
        char what[200];
        snprintf(what, sizeof what, "%s case %d ('%.50s...')",
                 c->reader == READ_BIPARTITE ? "bipartite" : "assign", i, c->text);
        if (check_hostile_expect(r, ctx, read_case(ctx, c, path), c->want, c->needle, what))
            r->passed++;
    }
    if (!ctx)
        check_fail(r, "cannot make a context");
    gcut_context_destroy(ctx);
    budget_cases(r, dir);
    check_hostile_remove_dir(dir);
}
