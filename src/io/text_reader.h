/* A cursor over a text file held whole in memory (NUL-terminated), with
 * the line count that error messages name: what the line-oriented readers
 * of bipartite graphs share. Internal to src/io. */
#ifndef GCUT_IO_TEXT_READER_H
#define GCUT_IO_TEXT_READER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"

typedef struct gcut__text {
    gcut_context *ctx;
    const char *path;
    const char *p, *end; /* the cursor and the end of the text */
    int64_t line;        /* 1-based number of the line the cursor is on */
} gcut__text;

/* Read a whole file; the buffer (NUL-terminated, `*len` bytes before the
 * NUL) is the caller's to free. */
gcut_status gcut__read_file(gcut_context *ctx, const char *path, char **out, size_t *len);

/* "PATH:LINE: message" as the context's error; returns `status`. */
gcut_status gcut__text_fail(gcut__text *t, gcut_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline int gcut__text_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static inline void gcut__text_skip_spaces(gcut__text *t)
{
    while (t->p < t->end && gcut__text_is_space(*t->p))
        t->p++;
}

/* After skipping spaces: nothing more on this line. */
static inline int gcut__text_at_line_end(gcut__text *t)
{
    gcut__text_skip_spaces(t);
    return t->p >= t->end || *t->p == '\n';
}

static inline void gcut__text_next_line(gcut__text *t)
{
    const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
    t->p = nl ? nl + 1 : t->end;
    t->line++;
}

/* The token at the cursor ends here (a space, the line's end or the text's). */
static inline int gcut__text_token_end(const gcut__text *t, const char *q)
{
    return q >= t->end || gcut__text_is_space(*q) || *q == '\n';
}

/* A signed decimal integer token; 1 on success, 0 when the token is not
 * one. Magnitudes past 10^17 saturate there (outside every range checked). */
static inline int gcut__text_int(gcut__text *t, int64_t *out)
{
    gcut__text_skip_spaces(t);
    const char *q = t->p;
    int neg = 0;
    if (q < t->end && (*q == '-' || *q == '+'))
        neg = *q++ == '-';
    if (q >= t->end || *q < '0' || *q > '9')
        return 0;
    int64_t v = 0;
    for (; q < t->end && *q >= '0' && *q <= '9'; q++)
        v = v < 100000000000000000LL ? v * 10 + (*q - '0') : v;
    if (!gcut__text_token_end(t, q))
        return 0;
    t->p = q;
    *out = neg ? -v : v;
    return 1;
}

/* A real number token (strtod's syntax): 1 on success, 0 when the token is
 * not a number; *finite says whether it is finite (not NaN, not infinite,
 * not past the double range). */
static inline int gcut__text_real(gcut__text *t, int *finite)
{
    gcut__text_skip_spaces(t);
    if (gcut__text_token_end(t, t->p))
        return 0;
    char *q = NULL;
    double v = strtod(t->p, &q);
    if (q == t->p || !gcut__text_token_end(t, q))
        return 0;
    t->p = q;
    *finite = v - v == 0.0; /* false for NaN and +-inf */
    return 1;
}

#endif
