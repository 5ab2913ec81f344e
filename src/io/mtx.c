/* Matrix Market coordinate files as bipartite graphs: the matrix's rows and
 * columns are the two sides, its entries the edges (gcut.h,
 * gcut_bipartite_read). A hand-written parser over the file in memory. */
#include <limits.h>
#include <stdio.h>
#include <strings.h>

#include "core/memory_budget.h"
#include "graph/bipartite.h"
#include "io/entry_list.h"
#include "io/text_reader.h"

#define FAIL(...) gcut__text_fail(t, __VA_ARGS__)

enum field { FIELD_PATTERN, FIELD_INTEGER, FIELD_REAL, FIELD_COMPLEX };
enum symmetry { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW, SYM_HERMITIAN };

/* The next word on the line (case-insensitive compare against `names`):
 * its index, or -1. */
static int word(gcut__text *t, const char *const *names, int count)
{
    gcut__text_skip_spaces(t);
    const char *q = t->p;
    while (!gcut__text_token_end(t, q))
        q++;
    size_t len = (size_t)(q - t->p);
    for (int k = 0; k < count; k++)
        if (strlen(names[k]) == len && strncasecmp(t->p, names[k], len) == 0) {
            t->p = q;
            return k;
        }
    return -1;
}

static gcut_status banner(gcut__text *t, enum field *field, enum symmetry *sym)
{
    static const char *const object[] = {"matrix"}, *const format[] = {"coordinate", "array"};
    static const char *const fields[] = {"pattern", "integer", "real", "complex"};
    static const char *const syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
    static const char magic[] = "%%MatrixMarket";
    if (t->end - t->p < (long)sizeof magic - 1 || memcmp(t->p, magic, sizeof magic - 1) != 0 ||
        !gcut__text_token_end(t, t->p + sizeof magic - 1))
        return FAIL(GCUT_E_FORMAT, "bad banner: expected '%s matrix coordinate FIELD SYMMETRY'",
                    magic);
    t->p += sizeof magic - 1;
    if (word(t, object, 1) < 0)
        return FAIL(GCUT_E_FORMAT, "bad banner: expected '%s matrix coordinate FIELD SYMMETRY'",
                    magic);
    int f = word(t, format, 2);
    if (f == 1)
        return FAIL(GCUT_E_FORMAT, "bad banner: 'array' (dense) matrices are not taken, only "
                                   "'coordinate' ones");
    if (f < 0)
        return FAIL(GCUT_E_FORMAT, "bad banner: expected 'coordinate' after 'matrix'");
    int k = word(t, fields, 4);
    if (k < 0)
        return FAIL(GCUT_E_FORMAT,
                    "bad banner: the field must be pattern, integer, real or complex");
    *field = (enum field)k;
    k = word(t, syms, 4);
    if (k < 0)
        return FAIL(GCUT_E_FORMAT, "bad banner: the symmetry must be general, symmetric, "
                                   "skew-symmetric or hermitian");
    *sym = (enum symmetry)k;
    if (!gcut__text_at_line_end(t))
        return FAIL(GCUT_E_FORMAT, "bad banner: unexpected text after the symmetry");
    if (*field == FIELD_PATTERN && (*sym == SYM_SKEW || *sym == SYM_HERMITIAN))
        return FAIL(GCUT_E_FORMAT, "bad banner: a pattern matrix cannot be %s",
                    *sym == SYM_SKEW ? "skew-symmetric" : "hermitian");
    if (*sym == SYM_HERMITIAN && *field != FIELD_COMPLEX)
        return FAIL(GCUT_E_FORMAT, "bad banner: only a complex matrix can be hermitian");
    return GCUT_OK;
}

/* Skip comment ('%') and blank lines; 1 when a data line is at the cursor. */
static int data_line(gcut__text *t)
{
    while (t->p < t->end) {
        if (gcut__text_at_line_end(t) || *t->p == '%') {
            gcut__text_next_line(t);
            continue;
        }
        return 1;
    }
    return 0;
}

/* The size line's promises, checked before anything is allocated for
 * them. An entry is 2 to 4 numbers of a character and a space or newline
 * at least: *room gets how many entries the bytes after the size line can
 * hold, all the reader reserves up front (a file that declares more ends,
 * truncated, before the graph is built). Rows and columns no entry can
 * name are limited (GCUT__BIPARTITE_EMPTY_MAX), and what a file that holds
 * its entries will need is asked of the memory budget. */
static gcut_status check_sizes(gcut__text *t, enum field field, int mirrored, int with_cost,
                               int64_t rows, int64_t cols, int64_t nnz, int64_t *room)
{
    const int64_t named = nnz * (mirrored ? 2 : 1); /* rows (columns) the entries can name */
    const int64_t empty = (rows > cols ? rows : cols) - named;
    if (empty > GCUT__BIPARTITE_EMPTY_MAX)
        return FAIL(GCUT_E_RANGE,
                    "%lld x %lld with %lld entries: at least %lld %s would have no entry, "
                    "and at most %lld are accepted",
                    (long long)rows, (long long)cols, (long long)nnz, (long long)empty,
                    rows >= cols ? "rows" : "columns", (long long)GCUT__BIPARTITE_EMPTY_MAX);
    const int64_t numbers = field == FIELD_PATTERN ? 2 : field == FIELD_COMPLEX ? 4 : 3;
    const int64_t left = t->p < t->end ? (int64_t)(t->end - t->p) - 1 : 0;
    const int64_t fits = (left + 1) / (2 * numbers);
    *room = (nnz < fits ? nnz : fits) * (mirrored ? 2 : 1);
    if (nnz > fits)
        return GCUT_OK;
    /* The entry list (up to twice its size while it grows) and the graph. */
    int64_t need = gcut__memory_mul_add(named, 2 * 4 * (with_cost ? 3 : 2),
                                        gcut__bipartite_bytes(rows, cols, named, with_cost));
    char what[300];
    snprintf(what, sizeof what, "%s:%lld: a %lld x %lld matrix with %lld entries", t->path,
             (long long)t->line, (long long)rows, (long long)cols, (long long)nnz);
    return gcut__memory_check(t->ctx, what, need);
}

/* One entry's value(s) after "I J": *cost set for integers. */
static gcut_status value(gcut__text *t, enum field field, int64_t *cost)
{
    *cost = 0;
    if (field == FIELD_PATTERN) {
        /* Some published pattern files carry a value anyway (SuiteSparse's
         * Pajek/Ragusa16): numbers there are dropped, other text refused. */
        int finite = 0;
        while (!gcut__text_at_line_end(t))
            if (!gcut__text_real(t, &finite) || !finite)
                return FAIL(GCUT_E_FORMAT, "unexpected text after the entry 'I J' of a pattern "
                                           "matrix");
        return GCUT_OK;
    }
    if (field == FIELD_INTEGER) {
        if (!gcut__text_int(t, cost))
            return FAIL(GCUT_E_FORMAT, "expected 'I J VALUE' with an integer VALUE");
        if (*cost < INT32_MIN || *cost > INT32_MAX)
            return FAIL(GCUT_E_OVERFLOW, "value %lld is outside the int32 range", (long long)*cost);
        return GCUT_OK;
    }
    for (int part = 0; part < (field == FIELD_COMPLEX ? 2 : 1); part++) {
        int finite = 0;
        if (!gcut__text_real(t, &finite))
            return FAIL(GCUT_E_FORMAT, field == FIELD_COMPLEX
                                           ? "expected 'I J REAL IMAG' with two numbers"
                                           : "expected 'I J VALUE' with a real VALUE");
        if (!finite)
            return FAIL(GCUT_E_FORMAT, "value is not a finite number (NaN, infinite or past "
                                       "the double range)");
    }
    return GCUT_OK;
}

gcut_status gcut__mtx_parse(gcut_context *ctx, const char *path, const char *text, size_t len,
                            unsigned flags, gcut_bipartite **out)
{
    gcut__text tt = {ctx, path, text, text + len, 1}, *t = &tt;
    gcut__entries e;
    memset(&e, 0, sizeof e);
    enum field field = FIELD_PATTERN;
    enum symmetry sym = SYM_GENERAL;
    gcut_status st;
    if (len == 0)
        return FAIL(GCUT_E_TRUNCATED, "empty file");
    if ((st = banner(t, &field, &sym)))
        return st;
    gcut__text_next_line(t);

    if (!data_line(t)) {
        t->line = t->line > 1 ? t->line - 1 : 1; /* name the last line */
        return FAIL(GCUT_E_TRUNCATED, "the file ends before the size line 'ROWS COLS NNZ'");
    }
    int64_t rows, cols, nnz;
    if (!gcut__text_int(t, &rows) || !gcut__text_int(t, &cols) || !gcut__text_int(t, &nnz))
        return FAIL(GCUT_E_FORMAT, "bad size line: expected 'ROWS COLS NNZ'");
    if (!gcut__text_at_line_end(t))
        return FAIL(GCUT_E_FORMAT, "bad size line: unexpected text after 'ROWS COLS NNZ'");
    if (rows < 0 || cols < 0 || nnz < 0)
        return FAIL(GCUT_E_FORMAT, "bad size line: negative size in '%lld %lld %lld'",
                    (long long)rows, (long long)cols, (long long)nnz);
    if (rows > INT32_MAX - 1 || cols > INT32_MAX - 1)
        return FAIL(GCUT_E_OVERFLOW, "%lld x %lld: at most %d rows and columns", (long long)rows,
                    (long long)cols, INT32_MAX - 1);
    const int mirrored = sym != SYM_GENERAL;
    if (mirrored && rows != cols)
        return FAIL(GCUT_E_FORMAT, "a %s matrix must be square, not %lld x %lld",
                    sym == SYM_SYMMETRIC ? "symmetric"
                    : sym == SYM_SKEW    ? "skew-symmetric"
                                         : "hermitian",
                    (long long)rows, (long long)cols);
    if (nnz > GCUT__BIPARTITE_MAX_EDGES / (mirrored ? 2 : 1))
        return FAIL(GCUT_E_OVERFLOW, "%lld entries: at most %lld are taken", (long long)nnz,
                    (long long)(GCUT__BIPARTITE_MAX_EDGES / (mirrored ? 2 : 1)));
    const int with_cost = field == FIELD_INTEGER && !(flags & GCUT_BIPARTITE_NO_COSTS);
    int64_t room = 0;
    if ((st = check_sizes(t, field, mirrored, with_cost, rows, cols, nnz, &room)))
        return st;
    gcut__text_next_line(t);

    if (gcut__entries_init(&e, with_cost, room))
        return FAIL(GCUT_E_NOMEM, "out of memory for %lld entries", (long long)nnz);
    int64_t seen = 0;
    while (data_line(t)) {
        int64_t i, j, cost;
        if (seen == nnz) {
            st = FAIL(GCUT_E_FORMAT, "more entries than the %lld announced by the size line",
                      (long long)nnz);
            goto fail;
        }
        if (!gcut__text_int(t, &i) || !gcut__text_int(t, &j)) {
            st = FAIL(GCUT_E_FORMAT, "expected an entry 'I J%s'",
                      field == FIELD_PATTERN ? "" : " VALUE");
            goto fail;
        }
        if ((st = value(t, field, &cost)))
            goto fail;
        if (!gcut__text_at_line_end(t)) {
            st = FAIL(GCUT_E_FORMAT, "unexpected text after the entry");
            goto fail;
        }
        if (i < 1 || i > rows || j < 1 || j > cols) {
            st = FAIL(GCUT_E_RANGE, "entry (%lld, %lld) is outside 1..%lld x 1..%lld", (long long)i,
                      (long long)j, (long long)rows, (long long)cols);
            goto fail;
        }
        if (sym == SYM_SKEW && i == j) {
            st = FAIL(GCUT_E_FORMAT,
                      "a skew-symmetric matrix has no diagonal entries, but "
                      "(%lld, %lld) is one",
                      (long long)i, (long long)j);
            goto fail;
        }
        if (sym == SYM_SKEW && with_cost && cost == INT32_MIN) {
            st = FAIL(GCUT_E_OVERFLOW, "value %lld: its mirror -value is past int32",
                      (long long)cost);
            goto fail;
        }
        if (gcut__entries_push(&e, (int32_t)(i - 1), (int32_t)(j - 1), (int32_t)cost) ||
            (mirrored && i != j &&
             gcut__entries_push(&e, (int32_t)(j - 1), (int32_t)(i - 1),
                                (int32_t)(sym == SYM_SKEW ? -cost : cost)))) {
            st = FAIL(GCUT_E_NOMEM, "out of memory for %lld entries", (long long)nnz);
            goto fail;
        }
        seen++;
        gcut__text_next_line(t);
    }
    if (seen < nnz) {
        t->line = t->line > 1 ? t->line - 1 : 1; /* name the last line */
        st = FAIL(GCUT_E_TRUNCATED, "the file ends after %lld of the %lld entries announced",
                  (long long)seen, (long long)nnz);
        goto fail;
    }
    st = gcut__bipartite_build(ctx, (int32_t)rows, (int32_t)cols, e.n, e.row, e.col, e.cost, path,
                               out);
fail:
    gcut__entries_free(&e);
    return st;
}
