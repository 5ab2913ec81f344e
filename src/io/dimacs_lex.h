/* The DIMACS lexer both readers share (dimacs.c for general graphs,
 * dimacs_grid.c for grids): big chunks read in place, lines handed out one
 * by one, fields parsed by hand (a file of 40 million lines must not cost
 * a stdio call a line), and every error "PATH:LINE: message" naming what
 * was expected. Internal to libgcut. */
#ifndef GCUT_IO_DIMACS_LEX_H
#define GCUT_IO_DIMACS_LEX_H

#include <stdint.h>
#include <stdio.h>

#include "core/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes read per chunk; also the longest line accepted. */
#define GCUT__DIMACS_CHUNK ((size_t)4 << 20)
/* Any parsed magnitude above this is "huge"; it keeps v * 10 + 9 in uint64. */
#define GCUT__DIMACS_HUGE 1000000000000000000ULL

typedef struct gcut__dimacs_lexer {
    gcut_context *ctx;
    const char *path;
    FILE *fp;
    char *buf;  /* GCUT__DIMACS_CHUNK + 1: room for a '\n' sentinel */
    size_t len; /* bytes in buf */
    size_t pos; /* start of the next line */
    size_t lim; /* one past the last complete line's '\n' */
    int eof;
    int partial;  /* the line in [0, lim) is the file's last, with no '\n' */
    int64_t line; /* number of the line being parsed, 1-based */
} gcut__dimacs_lexer;

/* Open `path` for reading (GCUT_E_IO naming it when it cannot be). */
gcut_status gcut__dimacs_open(gcut_context *ctx, const char *path, gcut__dimacs_lexer *r);
void gcut__dimacs_close(gcut__dimacs_lexer *r);

/* Fail with "PATH:LINE: message" (the line being parsed). */
gcut_status gcut__dimacs_fail(const gcut__dimacs_lexer *r, gcut_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Make the next complete lines available in [pos, lim) of buf. *more = 0
 * at the end of the file. A last line without '\n' gets a sentinel '\n'
 * and sets `partial`. The caller takes a line at buf + pos, counts it
 * (line++), and sets pos past its '\n'. */
gcut_status gcut__dimacs_refill(gcut__dimacs_lexer *r, int *more);

/* The next line to parse, counted in r->line; NULL at the end of the file
 * or on a read error (*st set). The caller moves r->pos past the line. */
static inline const char *gcut__dimacs_next_line(gcut__dimacs_lexer *r, gcut_status *st)
{
    if (r->pos >= r->lim) {
        int more;
        if ((*st = gcut__dimacs_refill(r, &more)) || !more)
            return NULL;
    }
    r->line++;
    return r->buf + r->pos;
}

/* The error for a field that is missing or malformed at p. Running into
 * the end of a last line that has no '\n' means the file was cut there. */
gcut_status gcut__dimacs_bad_field(const gcut__dimacs_lexer *r, const char *p, const char *what);

static inline int gcut__dimacs_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static inline const char *gcut__dimacs_skip_blanks(const char *p)
{
    while (gcut__dimacs_is_blank(*p))
        p++;
    return p;
}

/* One integer field: blanks, an optional sign, digits, then a blank or the
 * line's end. Magnitudes past GCUT__DIMACS_HUGE saturate (they are out of every
 * range anyway). Returns the position after it, or NULL with *st set. */
static inline const char *gcut__dimacs_int(const gcut__dimacs_lexer *r, const char *p, const char *what,
                                    int64_t *out, gcut_status *st)
{
    if (!gcut__dimacs_is_blank(*p)) {
        *st = gcut__dimacs_bad_field(r, p, what);
        return NULL;
    }
    p = gcut__dimacs_skip_blanks(p);
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if ((unsigned)(*p - '0') > 9) {
        *st = gcut__dimacs_bad_field(r, p, what);
        return NULL;
    }
    uint64_t v = 0;
    do {
        if (v <= GCUT__DIMACS_HUGE)
            v = v * 10 + (uint64_t)(*p - '0');
        p++;
    } while ((unsigned)(*p - '0') <= 9);
    if (!gcut__dimacs_is_blank(*p) && *p != '\n') {
        *st = gcut__dimacs_bad_field(r, p, what);
        return NULL;
    }
    if (v > GCUT__DIMACS_HUGE)
        v = GCUT__DIMACS_HUGE + 1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return p;
}

/* One word field (e.g. "max", "s"): its start and length; the position
 * after it, or NULL with *st set. */
const char *gcut__dimacs_word(const gcut__dimacs_lexer *r, const char *p, const char *what,
                              const char **word, size_t *len, gcut_status *st);

/* Whether the word [w, w + len) is s. */
int gcut__dimacs_word_is(const char *w, size_t len, const char *s);

/* Nothing but blanks may follow the last field; *next is the next line. */
gcut_status gcut__dimacs_line_end(const gcut__dimacs_lexer *r, const char *p, const char **next);

/* Digits at p; x wraps on very long numbers, which the caller refuses by
 * their length. */
static inline const char *gcut__dimacs_digits(const char *p, uint64_t *out)
{
    uint64_t x = 0;
    while ((unsigned)(*p - '0') <= 9)
        x = x * 10 + (uint64_t)(*p++ - '0');
    *out = x;
    return p;
}

/* The common line "a U V CAP\n": single spaces, at most 18 digits a number.
 * Returns the next line, or NULL to leave the line to the general path. */
static inline const char *gcut__dimacs_fast_arc(const char *p, int64_t field[3])
{
    if (p[0] != 'a' || p[1] != ' ')
        return NULL;
    p += 2;
    for (int k = 0; k < 3; k++) {
        uint64_t x;
        const char *end = gcut__dimacs_digits(p, &x);
        if (end == p || end - p > 18 || *end != (k < 2 ? ' ' : '\n'))
            return NULL;
        field[k] = (int64_t)x;
        p = end + 1;
    }
    return p;
}

#ifdef __cplusplus
}
#endif

#endif
