/* DIMACS max-flow files for general graphs: reading (a hand-written parser
 * over the whole file in memory, since stdio's scanf costs more than the
 * solve on big graphs), writing graphs, flows and cuts. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/csr.h"
#include "io/atomic_file.h"

/* Nodes that no arc line and neither 'n' line names: legal, but each costs
 * the solver as much as any other, so a file of a few lines must not
 * declare 10^8 of them. At most this many are accepted (64 MiB of solver
 * state); the 2M arcs' ends and s, t come on top. */
#define DIMACS_UNTOUCHED_NODES_MAX ((int64_t)1 << 20)

/* ---- reading ---------------------------------------------------------- */

typedef struct reader {
    gcut_context *ctx;
    const char *path;
    const char *start, *p, *end; /* the buffer, the cursor, the buffer's end */
    int64_t line;
} reader;

static gcut_status read_all(gcut_context *ctx, const char *path, char **out, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gcut__fail(ctx, GCUT_E_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            fclose(fp);
            return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory reading the file", path);
        }
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap)
            break;
        cap *= 2;
        char *bigger = realloc(buf, cap + 1);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return gcut__fail(ctx, GCUT_E_IO, "%s: read error", path);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return GCUT_OK;
}

static inline int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static inline void skip_spaces(reader *r)
{
    while (r->p < r->end && is_space(*r->p))
        r->p++;
}

static inline int at_line_end(const reader *r)
{
    return r->p >= r->end || *r->p == '\n';
}

/* A signed decimal integer; 1 on success, 0 when none is there. Values
 * past +-10^17 stop growing (they are out of every range checked later). */
static inline int read_int(reader *r, int64_t *out)
{
    skip_spaces(r);
    const char *p = r->p;
    int neg = 0;
    if (p < r->end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    if (p >= r->end || *p < '0' || *p > '9')
        return 0;
    int64_t v = 0;
    for (; p < r->end && *p >= '0' && *p <= '9'; p++)
        v = v < 100000000000000000LL ? v * 10 + (*p - '0') : v;
    if (p < r->end && !is_space(*p) && *p != '\n')
        return 0;
    r->p = p;
    *out = neg ? -v : v;
    return 1;
}

static void next_line(reader *r)
{
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    r->p = nl ? nl + 1 : r->end;
    r->line++;
}

#define FAIL(status, ...) fail_at(r, status, __VA_ARGS__)

/* "PATH:LINE: message". */
static gcut_status fail_at(reader *r, gcut_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static gcut_status fail_at(reader *r, gcut_status status, const char *fmt, ...)
{
    char msg[GCUT__ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gcut__fail(r->ctx, status, "%s:%lld: %s", r->path, (long long)r->line, msg);
}

/* Double the arc arrays (up to m); 0 on success. */
static int grow(int32_t **tail, int32_t **head, int32_t **cap, int64_t *room, int64_t m)
{
    int64_t bigger = *room * 2 < m ? *room * 2 : m;
    int32_t **arrays[3] = {tail, head, cap};
    for (int k = 0; k < 3; k++) {
        int32_t *p = realloc(*arrays[k], (size_t)bigger * sizeof(int32_t));
        if (!p)
            return -1;
        *arrays[k] = p;
    }
    *room = bigger;
    return 0;
}

static gcut_status parse(reader *r, gcut_graph **out)
{
    int64_t n = -1, m = -1, arcs = 0;
    int64_t source = -1, sink = -1;
    int32_t *tail = NULL, *head = NULL, *cap = NULL;
    int64_t room = 0;
    gcut_status st = GCUT_OK;

    r->line = 1;
    while (r->p < r->end) {
        skip_spaces(r);
        if (at_line_end(r) || *r->p == 'c') {
            next_line(r);
            continue;
        }
        char kind = *r->p++;
        if (kind == 'a') {
            int64_t u, v, c;
            if (n < 0) {
                st = FAIL(GCUT_E_FORMAT, "arc before the 'p max N M' line");
                goto fail;
            }
            if (!read_int(r, &u) || !read_int(r, &v) || !read_int(r, &c)) {
                st = FAIL(GCUT_E_FORMAT, "expected 'a U V CAP'");
                goto fail;
            }
            skip_spaces(r);
            if (!at_line_end(r)) {
                st = FAIL(GCUT_E_FORMAT, "unexpected text after 'a U V CAP'");
                goto fail;
            }
            if (u < 1 || u > n || v < 1 || v > n) {
                st = FAIL(GCUT_E_RANGE, "arc %lld -> %lld: node id outside 1..%lld", (long long)u,
                          (long long)v, (long long)n);
                goto fail;
            }
            if (c < 0) {
                st = FAIL(GCUT_E_RANGE, "arc %lld -> %lld: negative capacity %lld", (long long)u,
                          (long long)v, (long long)c);
                goto fail;
            }
            if (c > INT32_MAX) {
                st = FAIL(GCUT_E_OVERFLOW,
                          "arc %lld -> %lld: capacity %lld is past the int32 "
                          "limit %d",
                          (long long)u, (long long)v, (long long)c, INT32_MAX);
                goto fail;
            }
            if (arcs >= m) {
                st = FAIL(GCUT_E_FORMAT, "more arcs than the %lld announced by the 'p' line",
                          (long long)m);
                goto fail;
            }
            if (arcs == room && grow(&tail, &head, &cap, &room, m)) {
                st = FAIL(GCUT_E_NOMEM, "out of memory for %lld arcs", (long long)arcs);
                goto fail;
            }
            tail[arcs] = (int32_t)(u - 1);
            head[arcs] = (int32_t)(v - 1);
            cap[arcs] = (int32_t)c;
            arcs++;
        } else if (kind == 'p') {
            skip_spaces(r);
            if (n >= 0) {
                st = FAIL(GCUT_E_FORMAT, "a second 'p' line");
                goto fail;
            }
            if (r->end - r->p < 3 || memcmp(r->p, "max", 3) != 0 ||
                (r->end - r->p > 3 && !is_space(r->p[3]))) {
                st = FAIL(GCUT_E_FORMAT, "expected 'p max N M' (only max-flow problems)");
                goto fail;
            }
            r->p += 3;
            if (!read_int(r, &n) || !read_int(r, &m)) {
                n = -1;
                st = FAIL(GCUT_E_FORMAT, "expected 'p max N M'");
                goto fail;
            }
            skip_spaces(r);
            if (!at_line_end(r)) {
                st = FAIL(GCUT_E_FORMAT, "unexpected text after 'p max N M'");
                goto fail;
            }
            if (n < 2 || m < 0) {
                st = FAIL(GCUT_E_RANGE, "'p max %lld %lld': need N >= 2 nodes and M >= 0 arcs",
                          (long long)n, (long long)m);
                goto fail;
            }
            if (n > INT32_MAX || m > 8 * GCUT__GRAPH_MAX_ARCS) {
                st = FAIL(GCUT_E_OVERFLOW,
                          "'p max %lld %lld': too big (at most %d nodes, "
                          "%lld arcs)",
                          (long long)n, (long long)m, INT32_MAX,
                          (long long)(8 * GCUT__GRAPH_MAX_ARCS));
                goto fail;
            }
            if (n > 2 * m + 2 + DIMACS_UNTOUCHED_NODES_MAX) {
                st = FAIL(GCUT_E_RANGE,
                          "'p max %lld %lld': %lld arcs, the source and the sink name at most "
                          "%lld of the %lld nodes, and at most %lld more (isolated) are accepted",
                          (long long)n, (long long)m, (long long)m, (long long)(2 * m + 2),
                          (long long)n, (long long)DIMACS_UNTOUCHED_NODES_MAX);
                goto fail;
            }
            /* The header alone does not get to reserve gigabytes: start
             * small, grow as the arcs arrive. */
            room = m < (1 << 20) ? (m ? m : 1) : (1 << 20);
            tail = malloc((size_t)room * sizeof *tail);
            head = malloc((size_t)room * sizeof *head);
            cap = malloc((size_t)room * sizeof *cap);
            if (!tail || !head || !cap) {
                st = FAIL(GCUT_E_NOMEM, "out of memory for %lld arcs", (long long)m);
                goto fail;
            }
        } else if (kind == 'n') {
            int64_t id;
            if (n < 0) {
                st = FAIL(GCUT_E_FORMAT, "node line before the 'p max N M' line");
                goto fail;
            }
            if (!read_int(r, &id)) {
                st = FAIL(GCUT_E_FORMAT, "expected 'n ID s' or 'n ID t'");
                goto fail;
            }
            skip_spaces(r);
            char which = r->p < r->end ? *r->p++ : '\0';
            skip_spaces(r);
            if ((which != 's' && which != 't') || !at_line_end(r)) {
                st = FAIL(GCUT_E_FORMAT, "expected 'n ID s' or 'n ID t'");
                goto fail;
            }
            if (id < 1 || id > n) {
                st =
                    FAIL(GCUT_E_RANGE, "node id %lld outside 1..%lld", (long long)id, (long long)n);
                goto fail;
            }
            int64_t *slot = which == 's' ? &source : &sink;
            if (*slot >= 0) {
                st = FAIL(GCUT_E_FORMAT, "a second %s node", which == 's' ? "source" : "sink");
                goto fail;
            }
            *slot = id - 1;
            if (source == sink) {
                st =
                    FAIL(GCUT_E_FORMAT, "node %lld is both the source and the sink", (long long)id);
                goto fail;
            }
        } else {
            st = FAIL(GCUT_E_FORMAT, "unknown line type '%c' (expected c, p, n or a)", kind);
            goto fail;
        }
        next_line(r);
    }
    /* Errors about what is missing name the last line. */
    r->line = r->line > 1 ? r->line - 1 : 1;
    if (n < 0) {
        st = r->end == r->start ? FAIL(GCUT_E_TRUNCATED, "empty file")
                                : FAIL(GCUT_E_FORMAT, "no 'p max N M' line");
        goto fail;
    }
    if (source < 0 || sink < 0) {
        st = FAIL(GCUT_E_FORMAT, "no '%s' line", source < 0 ? "n ID s" : "n ID t");
        goto fail;
    }
    if (arcs < m) {
        st = FAIL(GCUT_E_TRUNCATED, "the file ends after %lld of the %lld arcs announced",
                  (long long)arcs, (long long)m);
        goto fail;
    }
    st = gcut__graph_build(r->ctx, (int32_t)n, m, tail, head, cap, (int32_t)source, (int32_t)sink,
                           r->path, out);
fail:
    free(tail);
    free(head);
    free(cap);
    return st;
}

gcut_status gcut_graph_read_dimacs(gcut_context *ctx, const char *path, gcut_graph **out)
{
    gcut__clear_error(ctx);
    if (!out || !path)
        return gcut__fail(ctx, GCUT_E_INVALID, "graph: no path or no place for the result");
    *out = NULL;
    char *buf = NULL;
    size_t len = 0;
    gcut_status st = read_all(ctx, path, &buf, &len);
    if (st)
        return st;
    reader r = {ctx, path, buf, buf, buf + len, 1};
    st = parse(&r, out);
    free(buf);
    return st;
}

/* ---- writing ---------------------------------------------------------- */

/* Decimal digits of v (>= 0) at p; returns the end. */
static char *put_uint(char *p, uint64_t v)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        *p++ = tmp[--k];
    return p;
}

static char *put_line3(char *p, char kind, int64_t x, int64_t y, int64_t z)
{
    *p++ = kind;
    *p++ = ' ';
    p = put_uint(p, (uint64_t)x);
    *p++ = ' ';
    p = put_uint(p, (uint64_t)y);
    *p++ = ' ';
    p = put_uint(p, (uint64_t)z);
    *p++ = '\n';
    return p;
}

/* Buffered lines: stdio per line is the slow part of writing big graphs. */
typedef struct line_buffer {
    char buf[1 << 16];
    char *p;
} line_buffer;

static void flush_if_full(line_buffer *lb, FILE *fp)
{
    if (lb->p - lb->buf > (int)sizeof lb->buf - 128) {
        fwrite(lb->buf, 1, (size_t)(lb->p - lb->buf), fp);
        lb->p = lb->buf;
    }
}

static void flush_all(line_buffer *lb, FILE *fp)
{
    fwrite(lb->buf, 1, (size_t)(lb->p - lb->buf), fp);
    lb->p = lb->buf;
}

/* One line "KIND tail head value" per arc after what af holds already, then
 * the file is committed (or removed on failure). */
static gcut_status write_arc_lines(const gcut_graph *g, gcut__atomic_file *af, const char *path,
                                   char kind, const int32_t *value)
{
    line_buffer *lb = malloc(sizeof *lb);
    if (!lb) {
        gcut__atomic_abort(af);
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "out of memory writing %s", path);
    }
    lb->p = lb->buf;
    for (int32_t a = 0; a < g->m; a++) {
        lb->p = put_line3(lb->p, kind, g->arc_tail[a] + 1, g->out_head[a] + 1, value[a]);
        flush_if_full(lb, af->fp);
    }
    flush_all(lb, af->fp);
    free(lb);
    return gcut__atomic_commit(g->ctx, af);
}

gcut_status gcut__graph_write_dimacs(const gcut_graph *g, const char *path, const char *comment)
{
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(g->ctx, path, &af);
    if (st)
        return st;
    for (const char *c = comment; c && *c;) {
        const char *nl = strchr(c, '\n');
        size_t len = nl ? (size_t)(nl - c) : strlen(c);
        fprintf(af.fp, "c %.*s\n", (int)len, c);
        c += len + (nl != NULL);
    }
    fprintf(af.fp, "p max %d %d\nn %d s\nn %d t\n", g->n, g->m, g->source + 1, g->sink + 1);
    return write_arc_lines(g, &af, path, 'a', g->out_cap);
}

gcut_status gcut_graph_write_dimacs(const gcut_graph *g, const char *path)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    return gcut__graph_write_dimacs(g, path, NULL);
}

gcut_status gcut_graph_write_flow(gcut_graph *g, const char *path)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    gcut_status st = gcut__graph_need_flow(g);
    if (st)
        return st;
    gcut__atomic_file af;
    if ((st = gcut__atomic_open(g->ctx, path, &af)))
        return st;
    fprintf(af.fp, "c gcut maximum flow: %d nodes, %d arcs, source %d, sink %d\ns %lld\n", g->n,
            g->m, g->source + 1, g->sink + 1, (long long)g->flow_value);
    return write_arc_lines(g, &af, path, 'f', g->flow);
}

gcut_status gcut_graph_write_cut(const gcut_graph *g, const char *path)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    if (!g->solved)
        return gcut__fail(g->ctx, GCUT_E_STATE, "graph: the cut asked for before a solve");
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(g->ctx, path, &af);
    if (st)
        return st;
    int32_t count = 0;
    for (int32_t v = 0; v < g->n; v++)
        count += g->side[v];
    fprintf(af.fp,
            "c gcut minimum cut: the %d nodes on the source side (1-based ids), capacity %lld\n",
            count, (long long)g->flow_value);
    for (int32_t v = 0; v < g->n; v++)
        if (g->side[v])
            fprintf(af.fp, "%d\n", v + 1);
    return gcut__atomic_commit(g->ctx, &af);
}
