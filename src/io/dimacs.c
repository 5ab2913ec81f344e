/* DIMACS max-flow files for general graphs: reading (through the lexer
 * shared with grid files, dimacs_lex.h: stdio's scanf would cost more than
 * the solve on big graphs), writing graphs, flows and cuts. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/csr.h"
#include "io/atomic_file.h"
#include "io/dimacs_lex.h"

/* Nodes that no arc line and neither 'n' line names: legal, but each costs
 * the solver as much as any other, so a file of a few lines must not
 * declare 10^8 of them. At most this many are accepted (64 MiB of solver
 * state); the 2M arcs' ends and s, t come on top. */
#define DIMACS_UNTOUCHED_NODES_MAX ((int64_t)1 << 20)

/* ---- reading ---------------------------------------------------------- */

/* What the header lines said, and the arcs so far. */
typedef struct graph_state {
    int64_t n, m, arcs; /* n < 0 until the p line */
    int64_t source, sink;
    int32_t *tail, *head, *cap;
    int64_t room;
} graph_state;

/* Double the arc arrays (up to m); 0 on success. */
static int grow(graph_state *s)
{
    int64_t bigger = s->room * 2 < s->m ? s->room * 2 : s->m;
    int32_t **arrays[3] = {&s->tail, &s->head, &s->cap};
    for (int k = 0; k < 3; k++) {
        int32_t *p = realloc(*arrays[k], (size_t)bigger * sizeof(int32_t));
        if (!p)
            return -1;
        *arrays[k] = p;
    }
    s->room = bigger;
    return 0;
}

static gcut_status add_arc(const gcut__dimacs_lexer *r, graph_state *s, int64_t u, int64_t v,
                           int64_t c)
{
    if (s->n < 0)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "arc before the 'p max N M' line");
    if (u < 1 || u > s->n || v < 1 || v > s->n)
        return gcut__dimacs_fail(r, GCUT_E_RANGE, "arc %lld -> %lld: node id outside 1..%lld",
                                 (long long)u, (long long)v, (long long)s->n);
    if (c < 0)
        return gcut__dimacs_fail(r, GCUT_E_RANGE, "arc %lld -> %lld: negative capacity %lld",
                                 (long long)u, (long long)v, (long long)c);
    if (c > INT32_MAX)
        return gcut__dimacs_fail(r, GCUT_E_OVERFLOW,
                                 "arc %lld -> %lld: capacity %lld is past the int32 limit %d",
                                 (long long)u, (long long)v, (long long)c, INT32_MAX);
    if (s->arcs >= s->m)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT,
                                 "more arcs than the %lld announced by the 'p' line",
                                 (long long)s->m);
    if (s->arcs == s->room && grow(s))
        return gcut__dimacs_fail(r, GCUT_E_NOMEM, "out of memory for %lld arcs",
                                 (long long)s->arcs);
    s->tail[s->arcs] = (int32_t)(u - 1);
    s->head[s->arcs] = (int32_t)(v - 1);
    s->cap[s->arcs] = (int32_t)c;
    s->arcs++;
    return GCUT_OK;
}

/* "p max N M". */
static gcut_status parse_problem(const gcut__dimacs_lexer *r, graph_state *s, const char *p,
                                 const char **next)
{
    const char *word;
    size_t len;
    int64_t n, m;
    gcut_status st = GCUT_OK;
    if (s->n >= 0)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "a second 'p' line");
    if (!(p = gcut__dimacs_word(r, p, "'max' in 'p max N M'", &word, &len, &st)))
        return st;
    if (!gcut__dimacs_word_is(word, len, "max"))
        return gcut__dimacs_fail(r, GCUT_E_FORMAT,
                                 "expected 'p max N M' (only max-flow problems), not 'p %.*s'",
                                 (int)(len < 16 ? len : 16), word);
    if (!(p = gcut__dimacs_int(r, p, "N in 'p max N M'", &n, &st)) ||
        !(p = gcut__dimacs_int(r, p, "M in 'p max N M'", &m, &st)))
        return st;
    if ((st = gcut__dimacs_line_end(r, p, next)))
        return st;
    if (n < 2 || m < 0)
        return gcut__dimacs_fail(r, GCUT_E_RANGE,
                                 "'p max %lld %lld': need N >= 2 nodes and M >= 0 arcs",
                                 (long long)n, (long long)m);
    if (n > INT32_MAX || m > 8 * GCUT__GRAPH_MAX_ARCS)
        return gcut__dimacs_fail(r, GCUT_E_OVERFLOW,
                                 "'p max %lld %lld': too big (at most %d nodes, %lld arcs)",
                                 (long long)n, (long long)m, INT32_MAX,
                                 (long long)(8 * GCUT__GRAPH_MAX_ARCS));
    if (n > 2 * m + 2 + DIMACS_UNTOUCHED_NODES_MAX)
        return gcut__dimacs_fail(r, GCUT_E_RANGE,
                                 "'p max %lld %lld': %lld arc%s, the source and the sink name at "
                                 "most %lld of the %lld nodes, and at most %lld more (isolated) "
                                 "are accepted",
                                 (long long)n, (long long)m, (long long)m, m == 1 ? "" : "s",
                                 (long long)(2 * m + 2), (long long)n,
                                 (long long)DIMACS_UNTOUCHED_NODES_MAX);
    /* The header alone does not get to reserve gigabytes: start small,
     * grow as the arcs arrive. */
    s->n = n;
    s->m = m;
    s->room = m < (1 << 20) ? (m ? m : 1) : (1 << 20);
    s->tail = malloc((size_t)s->room * sizeof *s->tail);
    s->head = malloc((size_t)s->room * sizeof *s->head);
    s->cap = malloc((size_t)s->room * sizeof *s->cap);
    if (!s->tail || !s->head || !s->cap)
        return gcut__dimacs_fail(r, GCUT_E_NOMEM, "out of memory for %lld arcs", (long long)m);
    return GCUT_OK;
}

/* "n ID s" or "n ID t". */
static gcut_status parse_node(const gcut__dimacs_lexer *r, graph_state *s, const char *p,
                              const char **next)
{
    const char *word;
    size_t len;
    int64_t id;
    gcut_status st = GCUT_OK;
    if (s->n < 0)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "node line before the 'p max N M' line");
    if (!(p = gcut__dimacs_int(r, p, "ID in 'n ID s' or 'n ID t'", &id, &st)) ||
        !(p = gcut__dimacs_word(r, p, "'s' or 't' in 'n ID s' or 'n ID t'", &word, &len, &st)))
        return st;
    if ((st = gcut__dimacs_line_end(r, p, next)))
        return st;
    int is_s = gcut__dimacs_word_is(word, len, "s");
    if (!is_s && !gcut__dimacs_word_is(word, len, "t"))
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "expected 'n ID s' or 'n ID t', not '%.*s'",
                                 (int)(len < 16 ? len : 16), word);
    if (id < 1 || id > s->n)
        return gcut__dimacs_fail(r, GCUT_E_RANGE, "node id %lld outside 1..%lld", (long long)id,
                                 (long long)s->n);
    int64_t *slot = is_s ? &s->source : &s->sink;
    if (*slot >= 0)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "a second %s node", is_s ? "source" : "sink");
    *slot = id - 1;
    if (s->source == s->sink)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "node %lld is both the source and the sink",
                                 (long long)id);
    return GCUT_OK;
}

/* One line starting at p (it ends at a '\n' inside the buffer). */
static gcut_status parse_line(const gcut__dimacs_lexer *r, graph_state *s, const char *p,
                              const char **next)
{
    p = gcut__dimacs_skip_blanks(p);
    char type = *p;
    if (type == '\n' || type == 'c') { /* blank, or a comment */
        *next = (const char *)memchr(p, '\n', (size_t)(r->buf + r->lim - p)) + 1;
        return GCUT_OK;
    }
    int alone = gcut__dimacs_is_blank(p[1]) || p[1] == '\n'; /* a type of one letter */
    if (type == 'a' && alone) {
        int64_t u, v, c;
        gcut_status st = GCUT_OK;
        if (!(p = gcut__dimacs_int(r, p + 1, "U in 'a U V CAP'", &u, &st)) ||
            !(p = gcut__dimacs_int(r, p, "V in 'a U V CAP'", &v, &st)) ||
            !(p = gcut__dimacs_int(r, p, "CAP in 'a U V CAP'", &c, &st)))
            return st;
        if ((st = gcut__dimacs_line_end(r, p, next)))
            return st;
        return add_arc(r, s, u, v, c);
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
    return gcut__dimacs_fail(r, GCUT_E_FORMAT,
                             "unknown line type '%.*s' (expected c, p, n or a)", (int)len, p);
}

/* After the last line: everything announced must have come. Errors about
 * what is missing name the last line. */
static gcut_status check_complete(const gcut__dimacs_lexer *r, const graph_state *s)
{
    if (s->n < 0)
        return r->line == 0
                   ? gcut__fail(r->ctx, GCUT_E_TRUNCATED, "%s:1: empty file", r->path)
                   : gcut__dimacs_fail(r, GCUT_E_FORMAT, "no 'p max N M' line");
    if (s->source < 0 || s->sink < 0)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "no '%s' line",
                                 s->source < 0 ? "n ID s" : "n ID t");
    if (s->arcs < s->m)
        return gcut__dimacs_fail(r, GCUT_E_TRUNCATED,
                                 "the file ends after %lld of the %lld arcs announced",
                                 (long long)s->arcs, (long long)s->m);
    return GCUT_OK;
}

gcut_status gcut_graph_read_dimacs(gcut_context *ctx, const char *path, gcut_graph **out)
{
    gcut__clear_error(ctx);
    if (!out || !path)
        return gcut__fail(ctx, GCUT_E_INVALID, "graph: no path or no place for the result");
    *out = NULL;
    graph_state s = {.n = -1, .m = -1, .source = -1, .sink = -1};
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
    if (!st)
        st = gcut__graph_build(ctx, (int32_t)s.n, s.m, s.tail, s.head, s.cap, (int32_t)s.source,
                               (int32_t)s.sink, path, out);
    gcut__dimacs_close(&r);
    free(s.tail);
    free(s.head);
    free(s.cap);
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

gcut_status gcut_graph_write_dimacs_commented(const gcut_graph *g, const char *path,
                                              const char *comment)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    return gcut__graph_write_dimacs(g, path, comment);
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
