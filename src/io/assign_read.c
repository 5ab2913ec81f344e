/* Reading an assignment problem (gcut_assign_read): Matrix Market
 * coordinate or array files with integer or real values, or the plain dense
 * cost matrix (include/gcut.h gives both). Errors name PATH:LINE. Real
 * values are taken only with a scale (value * scale, rounded to the nearest
 * integer, which must fit int32). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/context.h"
#include "io/text_reader.h"
#include "core/memory_budget.h"
#include "graph/bipartite.h"

typedef struct reader {
    gcut_context *ctx;
    const char *path;
    char *text;
    const char *end; /* the text's end */
    char *at;    /* the next line */
    long line;   /* the current line's number */
    double scale;
} reader;

/* The next line that is not a comment or blank (NULL at the end); `comment`
 * is the comment character ('%' or '#'). */
static char *next_line(reader *r, char comment)
{
    while (r->at && *r->at) {
        char *s = r->at;
        char *nl = strchr(s, '\n');
        if (nl) {
            *nl = '\0';
            r->at = nl + 1;
        } else {
            r->at = NULL;
        }
        r->line++;
        size_t len = strlen(s);
        if (len && s[len - 1] == '\r')
            s[len - 1] = '\0';
        const char *t = s + strspn(s, " \t");
        if (*t == '\0' || *t == comment)
            continue;
        return s;
    }
    return NULL;
}

static gcut_status bad(reader *r, gcut_status st, const char *what)
{
    return gcut__fail(r->ctx, st, "%s:%ld: %s", r->path, r->line, what);
}

/* One cost token: an integer, or with a scale a real number scaled and
 * rounded. *end after it. */
static gcut_status cost_value(reader *r, char *s, char **end, int32_t *out)
{
    errno = 0;
    char *e = NULL;
    long long v = strtoll(s, &e, 10);
    if (e != s && (*e == '\0' || *e == ' ' || *e == '\t')) {
        if (errno || v < INT32_MIN || v > INT32_MAX)
            return bad(r, GCUT_E_OVERFLOW, "a cost past int32");
        if (r->scale > 0) {
            const double x = (double)v * r->scale;
            if (!(x >= INT32_MIN && x <= INT32_MAX))
                return bad(r, GCUT_E_OVERFLOW, "a scaled cost past int32");
            v = llround(x);
        }
        *out = (int32_t)v;
        *end = e;
        return GCUT_OK;
    }
    const double d = strtod(s, &e);
    if (e == s || (*e != '\0' && *e != ' ' && *e != '\t'))
        return bad(r, GCUT_E_FORMAT, "not a number where a cost should be");
    if (!isfinite(d))
        return bad(r, GCUT_E_FORMAT, "a cost that is not a finite number");
    if (r->scale <= 0)
        return bad(r, GCUT_E_FORMAT, "a real cost: give a scale (--scale S) to round it");
    const double x = d * r->scale;
    if (!(x >= INT32_MIN && x <= INT32_MAX))
        return bad(r, GCUT_E_OVERFLOW, "a scaled cost past int32");
    *out = (int32_t)llround(x);
    *end = e;
    return GCUT_OK;
}

/* A non-negative integer token (a size or an id) into *out. */
static int count_value(char **s, long long *out)
{
    char *e = NULL;
    errno = 0;
    while (**s == ' ' || **s == '\t')
        (*s)++;
    /* A digit first: strtoll would skip other white space ('\r', '\v')
     * and then take a sign, so "0 \r-2" would give -2 columns. */
    if (**s < '0' || **s > '9')
        return 0;
    long long v = strtoll(*s, &e, 10);
    if (e == *s || errno || (*e != '\0' && *e != ' ' && *e != '\t'))
        return 0;
    *s = e;
    *out = v;
    return 1;
}

static int rest_blank(const char *s) { return s[strspn(s, " \t")] == '\0'; }

/* The size line's promises, checked before anything is allocated for
 * them. `arcs`: the most arcs the file declares (a coordinate file's
 * entries, every cell of a dense one), each written with `numbers` numbers
 * of a character and a space or newline at least; *room gets how many of
 * them the bytes after the size line can hold, which is all the reader ever
 * allocates for: a file that declares more ends, truncated, before it
 * reaches them. Rows and columns no arc can name are limited as in the
 * bipartite readers (GCUT__BIPARTITE_EMPTY_MAX), and what a file that holds
 * what it declares will need is asked of the memory budget. */
static gcut_status check_sizes(reader *r, long long rows, long long cols, long long arcs,
                               int numbers, int bytes_per_arc, long long *room)
{
    char msg[300];
    const long long empty = (rows > cols ? rows : cols) - arcs;
    if (empty > GCUT__BIPARTITE_EMPTY_MAX) {
        snprintf(msg, sizeof msg,
                 "%lld x %lld with %lld arcs at most: at least %lld %s would have no arc, and at "
                 "most %lld are accepted",
                 rows, cols, arcs, empty, rows >= cols ? "rows" : "columns",
                 (long long)GCUT__BIPARTITE_EMPTY_MAX);
        return bad(r, GCUT_E_RANGE, msg);
    }
    const long long left = r->at ? (long long)(r->end - r->at) : 0;
    const long long fits = (left + 1) / (2 * numbers);
    *room = arcs < fits ? arcs : fits;
    if (arcs > fits)
        return GCUT_OK;
    /* row_ptr, and per arc what the caller says: the column and cost, and
     * for a Matrix Market file sorted by row its row and the sorted copies. */
    snprintf(msg, sizeof msg, "%s:%ld: a %lld x %lld cost matrix with %lld arcs", r->path, r->line,
             rows, cols, arcs);
    return gcut__memory_check(
        r->ctx, msg,
        gcut__memory_mul_add(arcs, bytes_per_arc, gcut__memory_mul_add(rows + 1, 8, 0)));
}

/* The arrays for `room` arcs. */
static gcut_status alloc_arcs(reader *r, long long room, gcut_assign_input *in)
{
    in->col_idx = malloc((size_t)(room ? room : 1) * sizeof *in->col_idx);
    in->cost = malloc((size_t)(room ? room : 1) * sizeof *in->cost);
    if (!in->col_idx || !in->cost)
        return gcut__fail(r->ctx, GCUT_E_NOMEM, "%s: out of memory for %lld arcs", r->path, room);
    return GCUT_OK;
}

static gcut_status too_big(reader *r)
{
    return bad(r, GCUT_E_OVERFLOW, "more than 2^31 - 3 rows and columns");
}

/* Matrix Market: the banner is line 1. */
static gcut_status read_mtx(reader *r, char *banner, gcut_assign_input *in)
{
    char object[32], format[32], field[32], symmetry[32];
    if (sscanf(banner, "%%%%MatrixMarket %31s %31s %31s %31s", object, format, field, symmetry) != 4)
        return bad(r, GCUT_E_FORMAT, "bad banner (want %%MatrixMarket matrix FORMAT FIELD SYMMETRY)");
    if (strcasecmp(object, "matrix"))
        return bad(r, GCUT_E_FORMAT, "not a matrix");
    const int array = !strcasecmp(format, "array");
    if (!array && strcasecmp(format, "coordinate"))
        return bad(r, GCUT_E_FORMAT, "format must be coordinate or array");
    if (strcasecmp(field, "integer") && strcasecmp(field, "real"))
        return bad(r, GCUT_E_FORMAT, "field must be integer or real (costs are needed)");
    if (strcasecmp(symmetry, "general"))
        return bad(r, GCUT_E_FORMAT, "symmetry must be general");
    char *s = next_line(r, '%');
    if (!s)
        return bad(r, GCUT_E_TRUNCATED, "no size line");
    long long rows, cols, nnz = 0;
    if (!count_value(&s, &rows) || !count_value(&s, &cols) || (!array && !count_value(&s, &nnz)) ||
        !rest_blank(s))
        return bad(r, GCUT_E_FORMAT, array ? "bad size line (want ROWS COLS)"
                                           : "bad size line (want ROWS COLS NNZ)");
    if (rows > INT32_MAX - 2 || cols > INT32_MAX - 2 || rows + cols > INT32_MAX - 2)
        return too_big(r);
    if (array)
        nnz = rows * cols; /* under 2^60: rows + cols < 2^31 */
    if (nnz > ((long long)1 << 40))
        return bad(r, GCUT_E_OVERFLOW, "more than 2^40 arcs");
    in->rows = (int32_t)rows;
    in->cols = (int32_t)cols;
    long long room = 0;
    gcut_status st = check_sizes(r, rows, cols, nnz, array ? 1 : 3, 20, &room);
    if (st || (st = alloc_arcs(r, room, in)))
        return st;
    int32_t *row = malloc((size_t)(room ? room : 1) * sizeof *row);
    if (!row)
        return gcut__fail(r->ctx, GCUT_E_NOMEM, "%s: out of memory", r->path);
    int32_t *col = in->col_idx, *cost = in->cost;
    for (long long k = 0; k < nnz; k++) {
        s = next_line(r, '%');
        if (!s) {
            free(row);
            return gcut__fail(r->ctx, GCUT_E_TRUNCATED, "%s:%ld: %lld entries of %lld", r->path,
                              r->line, k, nnz);
        }
        long long i, j;
        if (array) { /* column-major */
            i = k % rows + 1;
            j = k / rows + 1;
        } else if (!count_value(&s, &i) || !count_value(&s, &j)) {
            free(row);
            return bad(r, GCUT_E_FORMAT, "bad entry (want I J VALUE)");
        }
        if (i < 1 || i > rows || j < 1 || j > cols) {
            free(row);
            return bad(r, GCUT_E_RANGE, "an index outside the matrix");
        }
        s += strspn(s, " \t");
        char *e = NULL;
        int32_t c = 0;
        st = cost_value(r, s, &e, &c);
        if (!st && !rest_blank(e))
            st = bad(r, GCUT_E_FORMAT, "text after an entry");
        /* Past room the file would be longer than it is (check_sizes). */
        if (!st && k >= room)
            st = bad(r, GCUT_E_TRUNCATED, "more entries than the file can hold");
        if (st) {
            free(row);
            return st;
        }
        cost[k] = c;
        row[k] = (int32_t)(i - 1);
        col[k] = (int32_t)(j - 1);
    }
    if (next_line(r, '%')) {
        free(row);
        return bad(r, GCUT_E_FORMAT, "more entries than announced");
    }
    /* Sort the entries by row (counting), in place through a copy. The
     * file held them all, so rows <= nnz + GCUT__BIPARTITE_EMPTY_MAX. */
    in->row_ptr = calloc((size_t)rows + 1, sizeof *in->row_ptr);
    int32_t *c2 = malloc((size_t)(nnz ? nnz : 1) * sizeof *c2);
    int32_t *k2 = malloc((size_t)(nnz ? nnz : 1) * sizeof *k2);
    if (!in->row_ptr || !c2 || !k2) {
        free(row);
        free(c2);
        free(k2);
        return gcut__fail(r->ctx, GCUT_E_NOMEM, "%s: out of memory", r->path);
    }
    for (long long k = 0; k < nnz; k++)
        in->row_ptr[row[k] + 1]++;
    for (long long x = 0; x < rows; x++)
        in->row_ptr[x + 1] += in->row_ptr[x];
    for (long long k = 0; k < nnz; k++) {
        const int64_t at = in->row_ptr[row[k]]++;
        c2[at] = col[k];
        k2[at] = cost[k];
    }
    for (long long x = rows; x > 0; x--)
        in->row_ptr[x] = in->row_ptr[x - 1];
    in->row_ptr[0] = 0;
    free(row);
    free(in->col_idx);
    free(in->cost);
    in->col_idx = c2;
    in->cost = k2;
    in->arcs = nnz;
    return GCUT_OK;
}

/* The dense matrix: "ROWS COLS", then ROWS lines of COLS costs ('-' for no arc). */
static gcut_status read_dense(reader *r, char *s, gcut_assign_input *in)
{
    long long rows, cols;
    if (!count_value(&s, &rows) || !count_value(&s, &cols) || !rest_blank(s))
        return bad(r, GCUT_E_FORMAT, "bad size line (want ROWS COLS, or a Matrix Market banner)");
    if (rows > INT32_MAX - 2 || cols > INT32_MAX - 2 || rows + cols > INT32_MAX - 2)
        return too_big(r);
    in->rows = (int32_t)rows;
    in->cols = (int32_t)cols;
    /* A row is a line even without a column: count it as one number. */
    const long long width = cols ? cols : 1;
    long long room = 0;
    gcut_status st = check_sizes(r, rows, cols, rows * width, 1, 8, &room);
    if (st)
        return st;
    const long long row_room = room / width; /* the rows the file can hold */
    in->row_ptr = calloc((size_t)row_room + 1, sizeof *in->row_ptr);
    if (!in->row_ptr || (st = alloc_arcs(r, room, in)))
        return st ? st : gcut__fail(r->ctx, GCUT_E_NOMEM, "%s: out of memory", r->path);
    int64_t m = 0;
    for (long long x = 0; x < rows; x++) {
        s = next_line(r, '#');
        if (!s)
            return gcut__fail(r->ctx, GCUT_E_TRUNCATED, "%s:%ld: %lld rows of %lld", r->path,
                              r->line, x, rows);
        for (long long y = 0; y < cols; y++) {
            s += strspn(s, " \t");
            if (*s == '\0')
                return bad(r, GCUT_E_FORMAT, "fewer costs than columns");
            if (*s == '-' && (s[1] == '\0' || s[1] == ' ' || s[1] == '\t')) {
                s++;
                continue;
            }
            char *e = NULL;
            int32_t c = 0;
            if ((st = cost_value(r, s, &e, &c)))
                return st;
            /* Past room the file would be longer than it is (check_sizes). */
            if (m >= room)
                return bad(r, GCUT_E_TRUNCATED, "more costs than the file can hold");
            in->cost[m] = c;
            in->col_idx[m++] = (int32_t)y;
            s = e;
        }
        if (!rest_blank(s))
            return bad(r, GCUT_E_FORMAT, "more costs than columns");
        if (x >= row_room)
            return bad(r, GCUT_E_TRUNCATED, "more rows than the file can hold");
        in->row_ptr[x + 1] = m;
    }
    if (next_line(r, '#'))
        return bad(r, GCUT_E_FORMAT, "more rows than announced");
    in->arcs = m;
    return GCUT_OK;
}

void gcut_assign_input_destroy(gcut_assign_input *in)
{
    if (!in)
        return;
    free(in->row_ptr);
    free(in->col_idx);
    free(in->cost);
    free(in);
}

gcut_status gcut_assign_read(gcut_context *ctx, const char *path, double scale,
                             gcut_assign_input **out)
{
    gcut__clear_error(ctx);
    if (!path || !out)
        return gcut__fail(ctx, GCUT_E_INVALID, "assign read: no path or output");
    *out = NULL;
    if (!(scale >= 0) || !isfinite(scale))
        return gcut__fail(ctx, GCUT_E_INVALID, "assign read: the scale must be >= 0");
    char *text;
    size_t len;
    gcut_status read = gcut__read_file(ctx, path, &text, &len);
    if (read)
        return read;
    if (memchr(text, '\0', len)) {
        free(text);
        return gcut__fail(ctx, GCUT_E_FORMAT, "%s: not a text file (a NUL byte)", path);
    }
    reader r = {ctx, path, text, text + len, text, 0, scale};
    gcut_assign_input *in = calloc(1, sizeof *in);
    gcut_status st = GCUT_OK;
    if (!in) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
    } else if (!strncmp(text, "%%MatrixMarket", 14)) {
        char *banner = next_line(&r, '\0');
        st = read_mtx(&r, banner, in);
    } else {
        char *first = next_line(&r, '#');
        st = first ? read_dense(&r, first, in)
                   : gcut__fail(ctx, GCUT_E_TRUNCATED, "%s: empty (no size line)", path);
    }
    free(text);
    if (st) {
        gcut_assign_input_destroy(in);
        return st;
    }
    *out = in;
    return GCUT_OK;
}
