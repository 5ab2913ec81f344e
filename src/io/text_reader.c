/* Whole-file reading and PATH:LINE errors for the text readers. */
#include "io/text_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

gcut_status gcut__read_file(gcut_context *ctx, const char *path, char **out, size_t *len)
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

gcut_status gcut__text_fail(gcut__text *t, gcut_status status, const char *fmt, ...)
{
    char msg[GCUT__ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gcut__fail(t->ctx, status, "%s:%lld: %s", t->path, (long long)t->line, msg);
}
