/* Grid graph files: DIMACS max-flow with a grid hint (see gcut.h).
 *
 * A 4-megapixel 8-connected file has about 40 million lines, so the reader
 * takes them from the shared lexer (dimacs_lex.h: big chunks parsed in
 * place), and the writer formats integers by hand into a big buffer; no
 * stdio per line. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"
#include "io/atomic_file.h"
#include "io/dimacs_lex.h"

/* What the header lines said, and what the body has given so far. */
typedef struct dimacs_state {
    int have_hint, have_p, have_s, have_t;
    int64_t hint_line;
    int width, height, conn;
    int64_t npix;  /* width * height */
    int64_t nodes; /* npix + 2 */
    int64_t arcs_announced, arcs_read;
    gcut_grid *g;
    int32_t row, row_start; /* the last pixel row looked up, and its first pixel */
} dimacs_state;

/* "c grid W H CONN". Other comments are skipped by the caller. */
static gcut_status parse_hint(const gcut__dimacs_lexer *r, dimacs_state *s, const char *p,
                              const char **next)
{
    gcut_status st = GCUT_OK;
    int64_t w, h, conn;
    if (s->have_p)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "the grid hint must come before the p line");
    if (s->have_hint)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "a second grid hint (the first is on line %lld)",
                       (long long)s->hint_line);
    if (!(p = gcut__dimacs_int(r, p, "the grid width", &w, &st)) ||
        !(p = gcut__dimacs_int(r, p, "the grid height", &h, &st)) ||
        !(p = gcut__dimacs_int(r, p, "the connectivity (4 or 8)", &conn, &st)))
        return st;
    if ((st = gcut__dimacs_line_end(r, p, next)))
        return st;
    if (w < 1 || h < 1)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "grid hint: size %lldx%lld is not positive", (long long)w,
                       (long long)h);
    if (conn != 4 && conn != 8)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "grid hint: connectivity %lld is not 4 or 8",
                       (long long)conn);
    /* The same limit as gcut_grid_create: the padded raster indexes with int32. */
    if (w > INT32_MAX - 2 || h > INT32_MAX - 2 || (w + 2) * (h + 2) > INT32_MAX)
        return gcut__dimacs_fail(r, GCUT_E_OVERFLOW, "grid hint: %lldx%lld has too many pixels", (long long)w,
                       (long long)h);
    s->have_hint = 1;
    s->hint_line = r->line;
    s->width = (int)w;
    s->height = (int)h;
    s->conn = (int)conn;
    s->npix = w * h;
    s->nodes = s->npix + 2;
    return GCUT_OK;
}

/* "p max N M": needs the hint before it; creates the grid. */
static gcut_status parse_problem(const gcut__dimacs_lexer *r, dimacs_state *s, const char *p,
                                 const char **next)
{
    gcut_status st = GCUT_OK;
    const char *word;
    size_t len;
    int64_t n, m;
    if (s->have_p)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "a second p line");
    if (!(p = gcut__dimacs_word(r, p, "the problem type 'max'", &word, &len, &st)))
        return st;
    if (!gcut__dimacs_word_is(word, len, "max"))
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "problem type '%.*s' is not 'max'",
                       (int)(len > 32 ? 32 : len), word);
    if (!(p = gcut__dimacs_int(r, p, "the node count", &n, &st)) ||
        !(p = gcut__dimacs_int(r, p, "the arc count", &m, &st)))
        return st;
    if ((st = gcut__dimacs_line_end(r, p, next)))
        return st;
    if (!s->have_hint)
        return gcut__dimacs_fail(r, GCUT_E_NOTGRID,
                       "no grid hint 'c grid W H CONN' before the p line: not a grid graph");
    if (n != s->nodes)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT,
                       "the p line says %lld nodes, but the %dx%d grid of the hint (line %lld) "
                       "has %lld (pixels, source and sink)",
                       (long long)n, s->width, s->height, (long long)s->hint_line,
                       (long long)s->nodes);
    if (m < 0)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "the p line's arc count %lld is negative", (long long)m);
    gcut_status cst = gcut_grid_create(r->ctx, s->width, s->height, s->conn, &s->g);
    if (cst)
        return gcut__dimacs_fail(r, cst, "%s", gcut_last_error(r->ctx)); /* the size and why */
    s->have_p = 1;
    s->arcs_announced = m;
    return GCUT_OK;
}

/* "n ID s" or "n ID t": the ids are fixed by the grid. */
static gcut_status parse_node(const gcut__dimacs_lexer *r, dimacs_state *s, const char *p,
                              const char **next)
{
    gcut_status st = GCUT_OK;
    int64_t id;
    const char *word;
    size_t len;
    if (!s->have_p)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "an n line before the p line");
    if (!(p = gcut__dimacs_int(r, p, "a node id", &id, &st)) ||
        !(p = gcut__dimacs_word(r, p, "'s' or 't'", &word, &len, &st)))
        return st;
    if ((st = gcut__dimacs_line_end(r, p, next)))
        return st;
    int is_s = gcut__dimacs_word_is(word, len, "s");
    if (!is_s && !gcut__dimacs_word_is(word, len, "t"))
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "node type '%.*s' is not 's' or 't'",
                       (int)(len > 32 ? 32 : len), word);
    int64_t want = is_s ? s->npix + 1 : s->npix + 2;
    if (id != want)
        return gcut__dimacs_fail(r, GCUT_E_RANGE, "the %s must be node %lld in a %dx%d grid graph, not %lld",
                       is_s ? "source" : "sink", (long long)want, s->width, s->height,
                       (long long)id);
    int *have = is_s ? &s->have_s : &s->have_t;
    if (*have)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "a second n line for the %s", is_s ? "source" : "sink");
    *have = 1;
    return GCUT_OK;
}

/* dir_of[dy + 1][dx + 1]: the direction from a pixel to its neighbour. */
static const int dir_of[3][3] = {
    {GCUT_DIR_NW, GCUT_DIR_N, GCUT_DIR_NE},
    {GCUT_DIR_W, -1, GCUT_DIR_E},
    {GCUT_DIR_SW, GCUT_DIR_S, GCUT_DIR_SE},
};

/* Pixel p (0-based, row-major) as (x, y). Arcs come mostly in row order, so
 * the row of the last look-up usually holds p and no division is needed. */
static inline void pixel_xy(dimacs_state *s, int32_t p, int32_t *x, int32_t *y)
{
    int32_t off = p - s->row_start;
    if (off < 0 || off >= s->width) {
        s->row = p / s->width;
        s->row_start = s->row * s->width;
        off = p - s->row_start;
    }
    *x = off;
    *y = s->row;
}

/* Add `cap` to one capacity slot, refusing an int32 overflow. */
static gcut_status add_cap(const gcut__dimacs_lexer *r, int32_t *slot, int64_t cap, int64_t u, int64_t v)
{
    int64_t sum = (int64_t)*slot + cap;
    if (sum > INT32_MAX)
        return gcut__dimacs_fail(r, GCUT_E_OVERFLOW,
                       "the arcs %lld -> %lld add up to %lld, over the int32 limit %d",
                       (long long)u, (long long)v, (long long)sum, INT32_MAX);
    *slot = (int32_t)sum;
    return GCUT_OK;
}

/* The arc u -> v of capacity cap, as parsed: check it and add it. */
static inline gcut_status add_arc(const gcut__dimacs_lexer *r, dimacs_state *s, int64_t u, int64_t v,
                                  int64_t cap)
{
    if (!s->have_p)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "an arc before the p line");
    if (s->arcs_read == s->arcs_announced)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "more arcs than the %lld the p line announced",
                       (long long)s->arcs_announced);
    s->arcs_read++;
    if (u < 1 || u > s->nodes || v < 1 || v > s->nodes)
        return gcut__dimacs_fail(r, GCUT_E_RANGE, "arc %lld -> %lld: node %lld is out of range 1..%lld",
                       (long long)u, (long long)v, (long long)(u < 1 || u > s->nodes ? u : v),
                       (long long)s->nodes);
    if (cap < 0)
        return gcut__dimacs_fail(r, GCUT_E_RANGE, "arc %lld -> %lld: negative capacity %lld", (long long)u,
                       (long long)v, (long long)cap);
    if (cap > INT32_MAX)
        return gcut__dimacs_fail(r, GCUT_E_OVERFLOW,
                       "arc %lld -> %lld: capacity %s%lld does not fit in int32 (at most %d)",
                       (long long)u, (long long)v, cap > (int64_t)GCUT__DIMACS_HUGE ? "over " : "",
                       (long long)(cap > (int64_t)GCUT__DIMACS_HUGE ? (int64_t)GCUT__DIMACS_HUGE : cap),
                       INT32_MAX);
    gcut_grid *g = s->g;
    int64_t src = s->npix + 1, snk = s->npix + 2;
    if (u <= s->npix && v <= s->npix) {
        int32_t ux, uy;
        pixel_xy(s, (int32_t)(u - 1), &ux, &uy);
        /* v's place relative to the start of u's row: rows uy-1..uy+1 only. */
        int64_t off = (v - 1) - s->row_start;
        int32_t dy = off < 0 ? -1 : off >= s->width ? 1 : 0;
        int64_t dx = off - (int64_t)dy * s->width - ux;
        int dir = off >= -(int64_t)s->width && off < 2 * (int64_t)s->width && dx >= -1 && dx <= 1
                      ? dir_of[dy + 1][dx + 1]
                      : -1;
        if (u == v)
            return gcut__dimacs_fail(r, GCUT_E_NOTGRID, "arc %lld -> %lld is a self loop", (long long)u,
                           (long long)v);
        if (dir < 0 || dir >= s->conn) {
            int32_t vy = (int32_t)((v - 1) / s->width), vx = (int32_t)((v - 1) % s->width);
            return gcut__dimacs_fail(r, GCUT_E_NOTGRID,
                           "arc %lld -> %lld joins pixels (%d, %d) and (%d, %d), which are not "
                           "neighbours in the %d-connected grid",
                           (long long)u, (long long)v, (int)ux, (int)uy, (int)vx, (int)vy, s->conn);
        }
        return add_cap(r, &g->cap[dir][gcut__grid_node(g, ux, uy)], cap, u, v);
    }
    int32_t x, y;
    if (u == src && v <= s->npix) {
        pixel_xy(s, (int32_t)(v - 1), &x, &y);
        return add_cap(r, &g->source_cap[gcut__grid_node(g, x, y)], cap, u, v);
    }
    if (u <= s->npix && v == snk) {
        pixel_xy(s, (int32_t)(u - 1), &x, &y);
        return add_cap(r, &g->sink_cap[gcut__grid_node(g, x, y)], cap, u, v);
    }
    const char *why = u == v                 ? "is a self loop"
                      : u == src && v == snk ? "goes from the source straight to the sink"
                      : v == src             ? "goes into the source"
                                             : "leaves the sink";
    return gcut__dimacs_fail(r, GCUT_E_NOTGRID, "arc %lld -> %lld %s: not a grid graph arc", (long long)u,
                   (long long)v, why);
}

/* "a U V CAP" in general: any blanks, signs, huge values. */
static gcut_status parse_arc(const gcut__dimacs_lexer *r, dimacs_state *s, const char *p,
                             const char **next)
{
    gcut_status st = GCUT_OK;
    int64_t u, v, cap;
    if (!(p = gcut__dimacs_int(r, p, "the arc's tail node", &u, &st)) ||
        !(p = gcut__dimacs_int(r, p, "the arc's head node", &v, &st)) ||
        !(p = gcut__dimacs_int(r, p, "the arc's capacity", &cap, &st)))
        return st;
    if ((st = gcut__dimacs_line_end(r, p, next)))
        return st;
    return add_arc(r, s, u, v, cap);
}

/* One line starting at p (it ends at a '\n' inside the buffer). */
static gcut_status parse_line(const gcut__dimacs_lexer *r, dimacs_state *s, const char *p,
                              const char **next)
{
    p = gcut__dimacs_skip_blanks(p);
    char type = *p;
    if (type == '\n') { /* blank line */
        *next = p + 1;
        return GCUT_OK;
    }
    int alone = gcut__dimacs_is_blank(p[1]) || p[1] == '\n'; /* the type is a word of one letter */
    if (type == 'a' && alone)
        return parse_arc(r, s, p + 1, next);
    if (type == 'c' && alone) {
        const char *q = gcut__dimacs_skip_blanks(p + 1);
        if (q[0] == 'g' && q[1] == 'r' && q[2] == 'i' && q[3] == 'd' &&
            (gcut__dimacs_is_blank(q[4]) || q[4] == '\n'))
            return parse_hint(r, s, q + 4, next);
        *next = (const char *)memchr(q, '\n', (size_t)(r->buf + r->lim - q)) + 1;
        return GCUT_OK;
    }
    if (type == 'p' && alone)
        return parse_problem(r, s, p + 1, next);
    if (type == 'n' && alone)
        return parse_node(r, s, p + 1, next);
    if ((unsigned char)type < 0x20 || (unsigned char)type >= 0x7f)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "unknown line type (byte 0x%02x)",
                       (unsigned)(unsigned char)type);
    size_t len = 0;
    while (len < 16 && p[len] != '\n' && !gcut__dimacs_is_blank(p[len]))
        len++;
    return gcut__dimacs_fail(r, GCUT_E_FORMAT, "unknown line type '%.*s' (expected c, p, n or a)", (int)len,
                   p);
}

/* After the last line: everything announced must have come. */
static gcut_status check_complete(const gcut__dimacs_lexer *r, const dimacs_state *s)
{
    if (!s->have_p) {
        if (r->line == 0)
            return gcut__fail(r->ctx, GCUT_E_FORMAT, "%s:1: the file is empty (no p line)",
                              r->path);
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "the file ends without a p line ('p max N M')");
    }
    if (s->arcs_read < s->arcs_announced)
        return gcut__dimacs_fail(r, GCUT_E_TRUNCATED,
                       "the file ends after %lld of the %lld arcs the p line announced",
                       (long long)s->arcs_read, (long long)s->arcs_announced);
    if (!s->have_s || !s->have_t)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "the file has no 'n %lld %c' line naming the %s",
                       (long long)(s->have_s ? s->npix + 2 : s->npix + 1), s->have_s ? 't' : 's',
                       s->have_s ? "sink" : "source");
    return GCUT_OK;
}

gcut_status gcut_grid_read_dimacs(gcut_context *ctx, const char *path, gcut_grid **out)
{
    gcut__clear_error(ctx);
    if (!out || !path)
        return gcut__fail(ctx, GCUT_E_INVALID, "read grid graph: no path or no place for it");
    *out = NULL;
    dimacs_state s;
    memset(&s, 0, sizeof s);
    gcut__dimacs_lexer r;
    gcut_status st = gcut__dimacs_open(ctx, path, &r);
    if (st)
        return st;

    const char *line;
    while ((line = gcut__dimacs_next_line(&r, &st))) {
        const char *next;
        int64_t field[3];
        if ((next = gcut__dimacs_fast_arc(line, field)))
            st = add_arc(&r, &s, field[0], field[1], field[2]);
        else
            st = parse_line(&r, &s, line, &next);
        if (st)
            break;
        r.pos = (size_t)(next - r.buf);
    }
    if (!st)
        st = check_complete(&r, &s);
    gcut__dimacs_close(&r);
    if (st) {
        gcut_grid_destroy(s.g);
        return st;
    }
    *out = s.g;
    return GCUT_OK;
}

/* ------------------------------------------------------------------------
 * Writing
 * ---------------------------------------------------------------------- */

#define OUT_BYTES ((size_t)1 << 20)

typedef struct dimacs_writer {
    FILE *fp;
    char *buf;
    size_t len;
    int failed;
} dimacs_writer;

static void out_flush(dimacs_writer *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->fp) != w->len)
        w->failed = 1;
    w->len = 0;
}

/* "00" "01" ... "99": two digits per division, as the writer is bound by
 * integer formatting. */
static const char digit_pairs[201] = "0001020304050607080910111213141516171819"
                                     "2021222324252627282930313233343536373839"
                                     "4041424344454647484950515253545556575859"
                                     "6061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Decimal digits of v, written by hand (no printf per line). */
static inline void out_uint(dimacs_writer *w, uint32_t v)
{
    int n = v < 10           ? 1
            : v < 100        ? 2
            : v < 1000       ? 3
            : v < 10000      ? 4
            : v < 100000     ? 5
            : v < 1000000    ? 6
            : v < 10000000   ? 7
            : v < 100000000  ? 8
            : v < 1000000000 ? 9
                             : 10;
    char *end = w->buf + w->len + n, *p = end;
    while (v >= 100) {
        uint32_t q = v / 100;
        p -= 2;
        memcpy(p, digit_pairs + 2 * (v - q * 100), 2);
        v = q;
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    w->len += (size_t)n;
}

/* "a U V CAP\n"; node ids are below 2^32 (the grid's pixels fit int32). */
static inline void out_arc(dimacs_writer *w, int64_t u, int64_t v, int32_t cap)
{
    if (w->len > OUT_BYTES - 40)
        out_flush(w);
    w->buf[w->len++] = 'a';
    w->buf[w->len++] = ' ';
    out_uint(w, (uint32_t)u);
    w->buf[w->len++] = ' ';
    out_uint(w, (uint32_t)v);
    w->buf[w->len++] = ' ';
    out_uint(w, (uint32_t)cap);
    w->buf[w->len++] = '\n';
}

gcut_status gcut_grid_write_dimacs(const gcut_grid *g, const char *path)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_context *ctx = g->ctx;
    gcut__clear_error(ctx);
    int64_t npix = (int64_t)g->width * g->height;
    int64_t src = npix + 1, snk = npix + 2;

    /* The p line comes first, so count the non-zero arcs before writing. */
    int64_t arcs = 0;
    for (int y = 0; y < g->height; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            arcs += (g->source_cap[row + x] != 0) + (g->sink_cap[row + x] != 0);
            for (int d = 0; d < g->ndirs; d++)
                arcs += g->cap[d][row + x] != 0;
        }
    }

    dimacs_writer w = {NULL, malloc(OUT_BYTES), 0, 0};
    if (!w.buf)
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory writing %s", path ? path : "");
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(ctx, path, &af);
    if (st) {
        free(w.buf);
        return st;
    }
    w.fp = af.fp;
    w.len = (size_t)snprintf(
        w.buf, OUT_BYTES, "c grid %d %d %d\np max %lld %lld\nn %lld s\nn %lld t\n", g->width,
        g->height, g->conn, (long long)(npix + 2), (long long)arcs, (long long)src, (long long)snk);
    int64_t step[GCUT__MAX_DIRS]; /* node id step to the neighbour in each direction */
    for (int d = 0; d < g->ndirs; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        step[d] = dx + (int64_t)dy * g->width;
    }
    for (int y = 0; y < g->height; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++) {
            int32_t i = row + x;
            int64_t u = (int64_t)y * g->width + x + 1;
            if (g->source_cap[i])
                out_arc(&w, src, u, g->source_cap[i]);
            for (int d = 0; d < g->ndirs; d++)
                if (g->cap[d][i])
                    out_arc(&w, u, u + step[d], g->cap[d][i]);
            if (g->sink_cap[i])
                out_arc(&w, u, snk, g->sink_cap[i]);
        }
    }
    out_flush(&w);
    free(w.buf);
    if (w.failed) {
        gcut__atomic_abort(&af);
        return gcut__fail(ctx, GCUT_E_IO, "cannot write %s: %s", path, strerror(errno));
    }
    return gcut__atomic_commit(ctx, &af);
}
