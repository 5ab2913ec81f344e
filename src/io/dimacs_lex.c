/* The DIMACS lexer (dimacs_lex.h). */
#include "io/dimacs_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

gcut_status gcut__dimacs_open(gcut_context *ctx, const char *path, gcut__dimacs_lexer *r)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->path = path;
    r->fp = fopen(path, "rb");
    if (!r->fp)
        return gcut__fail(ctx, GCUT_E_IO, "cannot open %s: %s", path, strerror(errno));
    r->buf = malloc(GCUT__DIMACS_CHUNK + 1);
    if (!r->buf) {
        fclose(r->fp);
        r->fp = NULL;
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory reading %s", path);
    }
    return GCUT_OK;
}

void gcut__dimacs_close(gcut__dimacs_lexer *r)
{
    if (r->fp)
        fclose(r->fp);
    free(r->buf);
    r->fp = NULL;
    r->buf = NULL;
}

gcut_status gcut__dimacs_fail(const gcut__dimacs_lexer *r, gcut_status status, const char *fmt, ...)
{
    char msg[GCUT__ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gcut__fail(r->ctx, status, "%s:%lld: %s", r->path, (long long)r->line, msg);
}

/* Make the next complete lines available in [pos, lim). *more = 0 at the
 * end of the file. A last line without '\n' gets a sentinel '\n' (the
 * buffer has a spare byte) and sets `partial`. */
gcut_status gcut__dimacs_refill(gcut__dimacs_lexer *r, int *more)
{
    *more = 0;
    if (r->partial)
        return GCUT_OK;
    size_t rest = r->pos < r->len ? r->len - r->pos : 0;
    memmove(r->buf, r->buf + r->pos, rest);
    r->len = rest;
    r->pos = 0;
    while (!r->eof) {
        if (r->len == GCUT__DIMACS_CHUNK) {
            r->line++;
            return gcut__dimacs_fail(r, GCUT_E_FORMAT, "line longer than %zu bytes", GCUT__DIMACS_CHUNK);
        }
        size_t old = r->len, want = GCUT__DIMACS_CHUNK - r->len;
        size_t got = fread(r->buf + r->len, 1, want, r->fp);
        r->len += got;
        if (got < want) {
            if (ferror(r->fp))
                return gcut__fail(r->ctx, GCUT_E_IO, "cannot read %s after line %lld: %s", r->path,
                                  (long long)r->line, strerror(errno));
            r->eof = 1;
        }
        /* Lines are short: the last '\n' is near the end of the new bytes. */
        for (size_t i = r->len; i > old; i--) {
            if (r->buf[i - 1] == '\n') {
                r->lim = i;
                *more = 1;
                return GCUT_OK;
            }
        }
    }
    if (r->len == 0)
        return GCUT_OK;
    r->buf[r->len] = '\n';
    r->lim = r->len + 1;
    r->partial = 1;
    *more = 1;
    return GCUT_OK;
}

/* A field that is missing or malformed. Running into the end of a last line
 * that has no '\n' means the file was cut there. */
gcut_status gcut__dimacs_bad_field(const gcut__dimacs_lexer *r, const char *p, const char *what)
{
    if (*p == '\n' && r->partial)
        return gcut__dimacs_fail(r, GCUT_E_TRUNCATED, "the file ends in the middle of this line, before %s",
                       what);
    if (*p == '\n')
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "the line ends where %s was expected", what);
    if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "byte 0x%02x where %s was expected",
                       (unsigned)(unsigned char)*p, what);
    return gcut__dimacs_fail(r, GCUT_E_FORMAT, "'%c' where %s was expected", *p, what);
}

/* One word field (e.g. "max", "s"); returns its start and length. */
const char *gcut__dimacs_word(const gcut__dimacs_lexer *r, const char *p, const char *what,
                              const char **word, size_t *len, gcut_status *st)
{
    if (!gcut__dimacs_is_blank(*p)) {
        *st = gcut__dimacs_bad_field(r, p, what);
        return NULL;
    }
    p = gcut__dimacs_skip_blanks(p);
    const char *w = p;
    while (*p != '\n' && !gcut__dimacs_is_blank(*p))
        p++;
    if (p == w) {
        *st = gcut__dimacs_bad_field(r, p, what);
        return NULL;
    }
    *word = w;
    *len = (size_t)(p - w);
    return p;
}

int gcut__dimacs_word_is(const char *w, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(w, s, len) == 0;
}

/* Nothing but blanks may follow the last field. */
gcut_status gcut__dimacs_line_end(const gcut__dimacs_lexer *r, const char *p, const char **next)
{
    p = gcut__dimacs_skip_blanks(p);
    if (*p != '\n')
        return gcut__dimacs_fail(r, GCUT_E_FORMAT, "unexpected '%c' after the last field",
                       (unsigned char)*p >= 0x20 ? *p : '?');
    *next = p + 1;
    return GCUT_OK;
}
