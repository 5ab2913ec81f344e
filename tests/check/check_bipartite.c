/* Bipartite graphs: building from entries against a naive dense merge, and
 * the readers on good files and on every malformed case (check_bipartite.h). */
#include "check_bipartite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_rng.h"

/* ---- building ------------------------------------------------------------ */

void check_bipartite_build(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    for (int index = 0; index < count; index++) {
        rng g = {seed * 0x9e3779b97f4a7c15ULL + 0xb1b0000u + (uint64_t)index};
        int32_t rows = (int32_t)rng_range(&g, 0, 30), cols = (int32_t)rng_range(&g, 0, 30);
        int64_t nnz = rows && cols ? rng_range(&g, 0, 3 * (rows + cols)) : 0;
        int with_cost = index % 2;
        int32_t *ri = malloc((size_t)(nnz + 1) * sizeof *ri), *ci = malloc((size_t)(nnz + 1) * 4),
                *cost = malloc((size_t)(nnz + 1) * 4);
        /* Dense reference: the minimum cost per cell, INT32_MAX+1 = none. */
        int64_t *cell = malloc((size_t)(rows * cols + 1) * sizeof *cell);
        for (int64_t k = 0; k < (int64_t)rows * cols; k++)
            cell[k] = INT64_MAX;
        int64_t distinct = 0;
        for (int64_t i = 0; i < nnz; i++) {
            ri[i] = (int32_t)rng_below(&g, rows);
            /* Many duplicates: columns from a narrow band half the time. */
            ci[i] = (int32_t)(i % 2 ? rng_below(&g, cols) : rng_below(&g, cols < 3 ? cols : 3));
            cost[i] = (int32_t)rng_range(&g, -5, 5) * (index % 4 == 1 ? 400000000 : 1);
            int64_t *c = &cell[(int64_t)ri[i] * cols + ci[i]];
            distinct += *c == INT64_MAX;
            if (cost[i] < *c)
                *c = cost[i];
        }
        gcut_bipartite *b = NULL;
        gcut_status st = gcut_bipartite_create_from_edges(ctx, rows, cols, nnz, ri, ci,
                                                          with_cost ? cost : NULL, &b);
        gcut_bipartite_stats s;
        int bad = 0;
        if (st || gcut_bipartite_get_stats(b, &s)) {
            check_fail(r, "build %d: %s", index, gcut_last_error(ctx));
            bad = 1;
        } else if (s.edges != distinct || s.entries_in != nnz ||
                   s.duplicates_merged != nnz - distinct || s.has_costs != with_cost ||
                   s.rows != rows || s.cols != cols) {
            check_fail(r, "build %d: stats %d edges / %lld merged, expected %lld / %lld", index,
                       s.edges, (long long)s.duplicates_merged, (long long)distinct,
                       (long long)(nnz - distinct));
            bad = 1;
        } else {
            /* Edges in (row, col) order, each a cell of the reference with its cost. */
            int64_t last = -1;
            for (int32_t e = 0; e < s.edges && !bad; e++) {
                int32_t er, ec, ecost;
                gcut_bipartite_edge(b, e, &er, &ec, &ecost);
                int64_t key = (int64_t)er * cols + ec;
                if (key <= last || cell[key] == INT64_MAX || (with_cost && ecost != cell[key]) ||
                    (!with_cost && ecost != 0)) {
                    check_fail(r, "build %d: edge %d = (%d, %d, %d) is wrong", index, e, er, ec,
                               ecost);
                    bad = 1;
                }
                last = key;
            }
        }
        if (!bad)
            r->passed++;
        gcut_bipartite_destroy(b);
        free(ri);
        free(ci);
        free(cost);
        free(cell);
    }
    /* Bad arguments. */
    gcut_bipartite *b = NULL;
    int32_t one = 1, minus = -1;
    if (gcut_bipartite_create_from_edges(ctx, 1, 1, 1, &one, &minus, NULL, &b) != GCUT_E_RANGE ||
        !strstr(gcut_last_error(ctx), "entry 0"))
        check_fail(r, "an id out of range was not refused by name: %s", gcut_last_error(ctx));
    else if (gcut_bipartite_create_from_edges(ctx, -1, 1, 0, NULL, NULL, NULL, &b) !=
             GCUT_E_INVALID)
        check_fail(r, "negative rows were not refused");
    else
        r->passed++;
    gcut_context_destroy(ctx);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct read_case {
    const char *name; /* file name: the extension picks the format */
    const char *text;
    gcut_status status;
    int line;                                  /* the line named (0 for a good file) */
    const char *phrase;                        /* in the message */
    int32_t rows, cols, edges, merged_or_cost; /* good files: sizes, duplicates merged */
} read_case;

#define MM "%%MatrixMarket matrix coordinate "

static const read_case cases[] = {
    /* Good files. */
    {"pattern.mtx", MM "pattern general\n% c\n3 4 4\n1 1\n3 4\n1 1\n2 2\n", GCUT_OK, 0, NULL, 3, 4,
     3, 1},
    {"sym.mtx", MM "real symmetric\n3 3 3\n1 1 1.5\n2 1 -2e3\n3 2 .5\n", GCUT_OK, 0, NULL, 3, 3, 5,
     0},
    {"skew.mtx", MM "integer skew-symmetric\n2 2 1\n2 1 7\n", GCUT_OK, 0, NULL, 2, 2, 2, 0},
    {"cplx.mtx", MM "complex hermitian\n2 2 2\n1 1 1 0\n2 1 1 -1\n", GCUT_OK, 0, NULL, 2, 2, 3, 0},
    {"int.mtx", MM "INTEGER General\n\n2 3 2\n\n1 3 -2147483648\n2 1 2147483647\n", GCUT_OK, 0,
     NULL, 2, 3, 2, 0},
    {"empty.mtx", MM "pattern general\n0 5 0\n", GCUT_OK, 0, NULL, 0, 5, 0, 0},
    {"crlf.mtx", MM "pattern general\r\n2 2 1\r\n2 2\r\n", GCUT_OK, 0, NULL, 2, 2, 1, 0},
    {"no_newline.mtx", MM "pattern general\n2 2 1\n2 2", GCUT_OK, 0, NULL, 2, 2, 1, 0},
    {"list.txt", "# r c\n1 2\n\n3 1\n1 2\n", GCUT_OK, 0, NULL, 3, 2, 2, 1},
    {"costs.txt", "% with costs\n1 1 5\n1 1 -3\n2 2 0\n", GCUT_OK, 0, NULL, 2, 2, 2, 1},
    {"pattern_value.mtx", MM "pattern general\n3 3 1\n1 1 2.5\n", GCUT_OK, 0, NULL, 3, 3, 1, 0},
    {"banner.dat", MM "pattern general\n1 1 1\n1 1\n", GCUT_OK, 0, NULL, 1, 1, 1, 0},
    /* Malformed files, each with the line named. */
    {"empty_file.mtx", "", GCUT_E_TRUNCATED, 1, "empty file", 0, 0, 0, 0},
    {"empty_file.txt", "", GCUT_E_TRUNCATED, 1, "empty file", 0, 0, 0, 0},
    {"nobanner.mtx", "3 3 1\n1 1\n", GCUT_E_FORMAT, 1, "banner", 0, 0, 0, 0},
    {"misspelt.txt", "%%MatrixMarkt matrix coordinate pattern general\n1 1 1\n1 1\n", GCUT_E_FORMAT,
     1, "banner", 0, 0, 0, 0},
    {"array.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n", GCUT_E_FORMAT, 1, "array",
     0, 0, 0, 0},
    {"field.mtx", MM "boolean general\n1 1 1\n1 1\n", GCUT_E_FORMAT, 1, "field", 0, 0, 0, 0},
    {"symmetry.mtx", MM "real lower\n1 1 1\n1 1 1\n", GCUT_E_FORMAT, 1, "symmetry", 0, 0, 0, 0},
    {"banner_tail.mtx", MM "real general extra\n1 1 1\n1 1 1\n", GCUT_E_FORMAT, 1, "after", 0, 0, 0,
     0},
    {"pattern_skew.mtx", MM "pattern skew-symmetric\n1 1 0\n", GCUT_E_FORMAT, 1, "pattern", 0, 0, 0,
     0},
    {"real_herm.mtx", MM "real hermitian\n1 1 0\n", GCUT_E_FORMAT, 1, "complex", 0, 0, 0, 0},
    {"no_size.mtx", MM "real general\n% only comments\n", GCUT_E_TRUNCATED, 2, "size line", 0, 0, 0,
     0},
    {"size_short.mtx", MM "real general\n3 3\n", GCUT_E_FORMAT, 2, "size line", 0, 0, 0, 0},
    {"size_word.mtx", MM "real general\n3 x 3\n", GCUT_E_FORMAT, 2, "size line", 0, 0, 0, 0},
    {"size_tail.mtx", MM "real general\n3 3 1 4\n1 1 1\n", GCUT_E_FORMAT, 2, "size line", 0, 0, 0,
     0},
    {"size_neg.mtx", MM "real general\n-3 3 1\n1 1 1\n", GCUT_E_FORMAT, 2, "negative", 0, 0, 0, 0},
    {"size_big.mtx", MM "pattern general\n3000000000 3 1\n1 1\n", GCUT_E_OVERFLOW, 2, "rows", 0, 0,
     0, 0},
    {"nnz_big.mtx", MM "pattern general\n3 3 4000000000\n1 1\n", GCUT_E_OVERFLOW, 2, "entries", 0,
     0, 0, 0},
    {"sym_rect.mtx", MM "pattern symmetric\n3 4 1\n1 1\n", GCUT_E_FORMAT, 2, "square", 0, 0, 0, 0},
    {"row_range.mtx", MM "pattern general\n3 3 2\n1 1\n4 1\n", GCUT_E_RANGE, 4, "outside", 0, 0, 0,
     0},
    {"col_zero.mtx", MM "pattern general\n3 3 2\n1 1\n1 0\n", GCUT_E_RANGE, 4, "outside", 0, 0, 0,
     0},
    {"huge_id.mtx", MM "pattern general\n3 3 1\n99999999999999999999999 1\n", GCUT_E_RANGE, 3,
     "outside", 0, 0, 0, 0},
    {"truncated.mtx", MM "pattern general\n3 3 3\n1 1\n2 2\n", GCUT_E_TRUNCATED, 4, "2 of the 3", 0,
     0, 0, 0},
    {"too_many.mtx", MM "pattern general\n3 3 1\n1 1\n2 2\n", GCUT_E_FORMAT, 4, "more entries", 0,
     0, 0, 0},
    {"trailing.mtx", MM "pattern general\n3 3 1\n1 1 junk\n", GCUT_E_FORMAT, 3, "after", 0, 0, 0,
     0},
    {"pattern_nan.mtx", MM "pattern general\n3 3 1\n1 1 nan\n", GCUT_E_FORMAT, 3, "after", 0, 0, 0,
     0},
    {"missing_value.mtx", MM "real general\n3 3 1\n1 1\n", GCUT_E_FORMAT, 3, "real VALUE", 0, 0, 0,
     0},
    {"bad_real.mtx", MM "real general\n3 3 1\n1 1 1.5x\n", GCUT_E_FORMAT, 3, "real VALUE", 0, 0, 0,
     0},
    {"nan.mtx", MM "real general\n3 3 2\n1 1 1\n2 2 nan\n", GCUT_E_FORMAT, 4, "finite", 0, 0, 0, 0},
    {"inf.mtx", MM "real general\n3 3 1\n1 1 -inf\n", GCUT_E_FORMAT, 3, "finite", 0, 0, 0, 0},
    {"past_double.mtx", MM "real general\n3 3 1\n1 1 1e999\n", GCUT_E_FORMAT, 3, "finite", 0, 0, 0,
     0},
    {"complex_half.mtx", MM "complex general\n3 3 1\n1 1 1.0\n", GCUT_E_FORMAT, 3, "two", 0, 0, 0,
     0},
    {"int_real.mtx", MM "integer general\n3 3 1\n1 1 1.5\n", GCUT_E_FORMAT, 3, "integer", 0, 0, 0,
     0},
    {"int_big.mtx", MM "integer general\n3 3 1\n1 1 2147483648\n", GCUT_E_OVERFLOW, 3, "int32", 0,
     0, 0, 0},
    {"skew_min.mtx", MM "integer skew-symmetric\n3 3 1\n2 1 -2147483648\n", GCUT_E_OVERFLOW, 3,
     "mirror", 0, 0, 0, 0},
    {"skew_diag.mtx", MM "real skew-symmetric\n3 3 1\n2 2 1\n", GCUT_E_FORMAT, 3, "diagonal", 0, 0,
     0, 0},
    {"nul.mtx", MM "pattern general\n3 3 1\n1\0 1\n", GCUT_E_FORMAT, 3, "entry", 0, 0, 0, 0},
    {"list_word.txt", "1 2\nx y\n", GCUT_E_FORMAT, 2, "edge", 0, 0, 0, 0},
    {"list_one.txt", "1 2\n3\n", GCUT_E_FORMAT, 2, "edge", 0, 0, 0, 0},
    {"list_tail.txt", "1 2 3 4\n", GCUT_E_FORMAT, 1, "after", 0, 0, 0, 0},
    {"list_mixed.txt", "1 2\n2 2 5\n", GCUT_E_FORMAT, 2, "line 1", 0, 0, 0, 0},
    {"list_zero.txt", "1 2\n0 2\n", GCUT_E_RANGE, 2, "start at 1", 0, 0, 0, 0},
    {"list_big.txt", "1 2\n2147483648 2\n", GCUT_E_OVERFLOW, 2, "ids", 0, 0, 0, 0},
    {"list_cost.txt", "1 2 1\n2 2 -2147483649\n", GCUT_E_OVERFLOW, 2, "int32", 0, 0, 0, 0},
};

/* The number of bytes of a case's text (one case holds a NUL). */
static size_t case_len(const read_case *c)
{
    return strcmp(c->name, "nul.mtx") == 0 ? strlen(MM "pattern general\n3 3 1\n1") + 4
                                           : strlen(c->text);
}

void check_bipartite_read(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/gcut-bipread-XXXXXX");
    if (!ctx || !mkdtemp(dir)) {
        check_fail(r, "no context or no temporary folder");
        gcut_context_destroy(ctx);
        return;
    }
    const int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        const read_case *c = &cases[i];
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, c->name);
        FILE *fp = fopen(path, "wb");
        if (!fp || fwrite(c->text, 1, case_len(c), fp) != case_len(c)) {
            check_fail(r, "%s: cannot write", path);
            if (fp)
                fclose(fp);
            continue;
        }
        fclose(fp);
        gcut_bipartite *b = NULL;
        gcut_status st = gcut_bipartite_read(ctx, path, GCUT_BIPARTITE_AUTO, &b);
        char where[160];
        snprintf(where, sizeof where, "%s:%d:", path, c->line);
        gcut_bipartite_stats s;
        if (st != c->status) {
            check_fail(r, "%s: status %s, expected %s (%s)", c->name, gcut_status_str(st),
                       gcut_status_str(c->status), gcut_last_error(ctx));
        } else if (st && (!strstr(gcut_last_error(ctx), where) ||
                          !strstr(gcut_last_error(ctx), c->phrase))) {
            check_fail(r, "%s: message '%s' lacks '%s' or '%s'", c->name, gcut_last_error(ctx),
                       where, c->phrase);
        } else if (!st &&
                   (gcut_bipartite_get_stats(b, &s) || s.rows != c->rows || s.cols != c->cols ||
                    s.edges != c->edges || s.duplicates_merged != c->merged_or_cost)) {
            check_fail(r, "%s: read %d x %d, %d edges, %lld merged; expected %d x %d, %d, %d",
                       c->name, s.rows, s.cols, s.edges, (long long)s.duplicates_merged, c->rows,
                       c->cols, c->edges, c->merged_or_cost);
        } else if (st && b) {
            check_fail(r, "%s: a graph was returned with an error", c->name);
        } else {
            r->passed++;
        }
        /* Costs: kept from integer files (the minimum of duplicates;
         * skew mirrors negated), dropped elsewhere and with NO_COSTS. */
        if (!st && (!strcmp(c->name, "costs.txt") || !strcmp(c->name, "skew.mtx"))) {
            int32_t row, col, cost0, cost1;
            gcut_bipartite_edge(b, 0, &row, &col, &cost0);
            gcut_bipartite_edge(b, 1, &row, &col, &cost1);
            int want0 = !strcmp(c->name, "costs.txt") ? -3 : -7,
                want1 = !strcmp(c->name, "costs.txt") ? 0 : 7;
            if (!gcut_bipartite_has_costs(b) || cost0 != want0 || cost1 != want1)
                check_fail(r, "%s: costs %d, %d, expected %d, %d", c->name, cost0, cost1, want0,
                           want1);
            gcut_bipartite *nc = NULL;
            if (gcut_bipartite_read(ctx, path, GCUT_BIPARTITE_NO_COSTS, &nc) ||
                gcut_bipartite_has_costs(nc))
                check_fail(r, "%s: NO_COSTS kept the costs", c->name);
            gcut_bipartite_destroy(nc);
        }
        if (!st && !strcmp(c->name, "sym.mtx") && gcut_bipartite_has_costs(b))
            check_fail(r, "sym.mtx: real values were kept as costs");
        gcut_bipartite_destroy(b);
        unlink(path);
    }
    /* A missing file and forced formats. */
    gcut_bipartite *b = NULL;
    char path[128];
    snprintf(path, sizeof path, "%s/absent.mtx", dir);
    if (gcut_bipartite_read(ctx, path, 0, &b) != GCUT_E_IO || !strstr(gcut_last_error(ctx), path))
        check_fail(r, "a missing file: %s", gcut_last_error(ctx));
    else if (gcut_bipartite_read(ctx, path, 3u, &b) != GCUT_E_INVALID)
        check_fail(r, "bad flags were taken");
    else
        r->passed++;
    rmdir(dir);
    gcut_context_destroy(ctx);
}
