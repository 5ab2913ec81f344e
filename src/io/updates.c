/* Capacity-update files (gcut.h's gcut_updates): a hand-written parser
 * over the whole text in memory, in the manner of the DIMACS reader, and
 * the application of one batch to a graph. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "io/text_reader.h"
#include "graph/csr.h"

struct gcut_updates {
    char *name;           /* the path, for messages */
    int32_t batches;
    int64_t count;        /* updates in all */
    int64_t *batch_start; /* batches + 1: batch b is batch_start[b] .. [b+1]-1 */
    int32_t *tail, *head; /* 0-based */
    int32_t *cap;
    int64_t *line; /* the line each update came from */
};

typedef struct reader {
    gcut_context *ctx;
    const char *name;
    const char *p, *end;
    int64_t line;
} reader;

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

/* A signed decimal integer ending at a space or the line's end; 1 on
 * success. Values past +-10^17 stop growing (out of every range anyway). */
static int read_int(reader *r, int64_t *out)
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

/* "NAME:LINE: message". */
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
    return gcut__fail(r->ctx, status, "%s:%lld: %s", r->name, (long long)r->line, msg);
}

void gcut_updates_destroy(gcut_updates *u)
{
    if (!u)
        return;
    free(u->name);
    free(u->batch_start);
    free(u->tail);
    free(u->head);
    free(u->cap);
    free(u->line);
    free(u);
}

/* Room for one more update (1) or one more batch (0); -1 out of memory. */
static int grow(gcut_updates *u, int64_t *room, int32_t *batch_room, int batch)
{
    if (batch) {
        if (u->batches + 1 < *batch_room)
            return 0;
        if (*batch_room > INT32_MAX / 2)
            return -1;
        int32_t bigger = *batch_room * 2;
        int64_t *p = realloc(u->batch_start, (size_t)bigger * sizeof *p);
        if (!p)
            return -1;
        u->batch_start = p;
        *batch_room = bigger;
        return 0;
    }
    if (u->count < *room)
        return 0;
    int64_t bigger = *room * 2;
    int32_t *t = realloc(u->tail, (size_t)bigger * sizeof *t);
    if (t)
        u->tail = t;
    int32_t *h = realloc(u->head, (size_t)bigger * sizeof *h);
    if (h)
        u->head = h;
    int32_t *c = realloc(u->cap, (size_t)bigger * sizeof *c);
    if (c)
        u->cap = c;
    int64_t *l = realloc(u->line, (size_t)bigger * sizeof *l);
    if (l)
        u->line = l;
    if (!t || !h || !c || !l)
        return -1;
    *room = bigger;
    return 0;
}

gcut_status gcut_updates_parse(gcut_context *ctx, const char *text, size_t len, const char *name,
                               int32_t n, gcut_updates **result)
{
    gcut__clear_error(ctx);
    if (!result)
        return gcut__fail(ctx, GCUT_E_INVALID, "updates: no place for the result");
    *result = NULL;
    if (!name)
        name = "updates";
    if (!text && len)
        return gcut__fail(ctx, GCUT_E_INVALID, "%s: no text", name);
    reader rd = {ctx, name, text, text + len, 1}, *r = &rd;
    int64_t room = 64;
    int32_t batch_room = 16;
    gcut_status st = GCUT_OK;
    gcut_updates *out = calloc(1, sizeof *out);
    if (out) {
        out->name = malloc(strlen(name) + 1);
        out->batch_start = malloc((size_t)batch_room * sizeof *out->batch_start);
        out->tail = malloc((size_t)room * sizeof *out->tail);
        out->head = malloc((size_t)room * sizeof *out->head);
        out->cap = malloc((size_t)room * sizeof *out->cap);
        out->line = malloc((size_t)room * sizeof *out->line);
    }
    if (!out || !out->name || !out->batch_start || !out->tail || !out->head || !out->cap ||
        !out->line) {
        gcut_updates_destroy(out);
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", name);
    }
    memcpy(out->name, name, strlen(name) + 1);
    out->batch_start[0] = 0;

    while (r->p < r->end) {
        skip_spaces(r);
        if (at_line_end(r) || *r->p == 'c') {
            next_line(r);
            continue;
        }
        if (*r->p == 'b') {
            r->p++;
            skip_spaces(r);
            if (!at_line_end(r)) {
                st = fail_at(r, GCUT_E_FORMAT, "unexpected text after 'b'");
                goto fail;
            }
            if (grow(out, &room, &batch_room, 1)) {
                st = fail_at(r, GCUT_E_NOMEM, "out of memory for %d batches", out->batches + 1);
                goto fail;
            }
            out->batches++;
            out->batch_start[out->batches] = out->count;
            next_line(r);
            continue;
        }
        int64_t u, v, c;
        if (!read_int(r, &u) || !read_int(r, &v) || !read_int(r, &c)) {
            st = fail_at(r, GCUT_E_FORMAT, "expected 'b', a comment 'c ...' or 'U V CAP'");
            goto fail;
        }
        skip_spaces(r);
        if (!at_line_end(r)) {
            st = fail_at(r, GCUT_E_FORMAT, "unexpected text after 'U V CAP'");
            goto fail;
        }
        if (out->batches == 0) {
            st = fail_at(r, GCUT_E_FORMAT, "an update before the first 'b' line");
            goto fail;
        }
        if (u < 1 || u > n || v < 1 || v > n) {
            st = fail_at(r, GCUT_E_RANGE, "arc %lld -> %lld: node id outside 1..%d", (long long)u,
                         (long long)v, n);
            goto fail;
        }
        if (c < 0) {
            st = fail_at(r, GCUT_E_RANGE, "arc %lld -> %lld: negative capacity %lld", (long long)u,
                         (long long)v, (long long)c);
            goto fail;
        }
        if (c > INT32_MAX) {
            st = fail_at(r, GCUT_E_OVERFLOW, "arc %lld -> %lld: capacity %lld is past the int32 limit %d",
                         (long long)u, (long long)v, (long long)c, INT32_MAX);
            goto fail;
        }
        if (grow(out, &room, &batch_room, 0)) {
            st = fail_at(r, GCUT_E_NOMEM, "out of memory for %lld updates", (long long)out->count);
            goto fail;
        }
        out->tail[out->count] = (int32_t)(u - 1);
        out->head[out->count] = (int32_t)(v - 1);
        out->cap[out->count] = (int32_t)c;
        out->line[out->count] = r->line;
        out->count++;
        out->batch_start[out->batches] = out->count;
        next_line(r);
    }
    *result = out;
    return GCUT_OK;
fail:
    gcut_updates_destroy(out);
    return st;
}

gcut_status gcut_updates_read(gcut_context *ctx, const char *path, int32_t n, gcut_updates **out)
{
    gcut__clear_error(ctx);
    if (!out || !path)
        return gcut__fail(ctx, GCUT_E_INVALID, "updates: no path or no place for the result");
    *out = NULL;
    char *buf;
    size_t len;
    gcut_status read = gcut__read_file(ctx, path, &buf, &len);
    if (read)
        return read;
    gcut_status st = gcut_updates_parse(ctx, buf, len, path, n, out);
    free(buf);
    return st;
}

int32_t gcut_updates_batches(const gcut_updates *u)
{
    return u ? u->batches : 0;
}

gcut_status gcut_updates_batch(const gcut_updates *u, int32_t b, int64_t *count,
                               const int32_t **tails, const int32_t **heads,
                               const int32_t **capacities, const int64_t **lines)
{
    if (!u || b < 0 || b >= u->batches)
        return GCUT_E_INVALID;
    int64_t first = u->batch_start[b];
    if (count)
        *count = u->batch_start[b + 1] - first;
    if (tails)
        *tails = u->tail + first;
    if (heads)
        *heads = u->head + first;
    if (capacities)
        *capacities = u->cap + first;
    if (lines)
        *lines = u->line + first;
    return GCUT_OK;
}

gcut_status gcut_updates_apply(const gcut_updates *u, int32_t b, gcut_graph *g, unsigned flags)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut__clear_error(g->ctx);
    if (!u || b < 0 || b >= u->batches)
        return gcut__fail(g->ctx, GCUT_E_INVALID, "updates: no batch %d (have %d)", b + 1,
                          u ? u->batches : 0);
    int64_t first = u->batch_start[b], count = u->batch_start[b + 1] - first;
    for (int64_t i = first; i < first + count; i++) {
        if (u->tail[i] >= g->n || u->head[i] >= g->n)
            return gcut__fail(g->ctx, GCUT_E_RANGE, "%s:%lld: arc %d -> %d: node id outside 1..%d",
                              u->name, (long long)u->line[i], u->tail[i] + 1, u->head[i] + 1,
                              g->n);
        if (u->tail[i] == u->head[i])
            return gcut__fail(g->ctx, GCUT_E_RANGE, "%s:%lld: arc %d -> %d is a self-loop",
                              u->name, (long long)u->line[i], u->tail[i] + 1, u->head[i] + 1);
        if (!(flags & GCUT_GRAPH_UPDATE_ADD) && gcut__graph_find_arc(g, u->tail[i], u->head[i]) < 0)
            return gcut__fail(g->ctx, GCUT_E_RANGE,
                              "%s:%lld: no arc %d -> %d in the graph (--add-arcs adds it)",
                              u->name, (long long)u->line[i], u->tail[i] + 1, u->head[i] + 1);
    }
    return gcut_graph_update(g, count, u->tail + first, u->head + first, u->cap + first, flags);
}

int gcut_fuzz_updates(const uint8_t *data, size_t size)
{
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK)
        return 0;
    gcut_updates *u = NULL;
    if (gcut_updates_parse(ctx, (const char *)data, size, "fuzz", 1000, &u) == GCUT_OK)
        gcut_updates_destroy(u);
    gcut_context_destroy(ctx);
    return 0;
}
