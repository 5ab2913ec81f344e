/* gcut_bipartite_read: the file's format from the flags, the name or the
 * content, then the Matrix Market or edge-list parser. */
#include <string.h>

#include "graph/bipartite.h"
#include "io/text_reader.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

gcut_status gcut_bipartite_read(gcut_context *ctx, const char *path, unsigned flags,
                                gcut_bipartite **out)
{
    gcut__clear_error(ctx);
    if (!out || !path)
        return gcut__fail(ctx, GCUT_E_INVALID, "bipartite: no path or no place for the result");
    *out = NULL;
    unsigned format = flags & 3u;
    if (format == 3u || (flags & ~7u))
        return gcut__fail(ctx, GCUT_E_INVALID, "bipartite: unknown flags 0x%x", flags);
    char *text = NULL;
    size_t len = 0;
    gcut_status st = gcut__read_file(ctx, path, &text, &len);
    if (st)
        return st;
    /* "%%" opens a Matrix Market banner, so a misspelt banner is reported as
     * one rather than read as an edge list's comment. */
    if (format == GCUT_BIPARTITE_AUTO)
        format = ends_with(path, ".mtx") || (len >= 2 && text[0] == '%' && text[1] == '%')
                     ? GCUT_BIPARTITE_MTX
                     : GCUT_BIPARTITE_EDGES;
    st = format == GCUT_BIPARTITE_MTX ? gcut__mtx_parse(ctx, path, text, len, flags, out)
                                      : gcut__edge_list_parse(ctx, path, text, len, flags, out);
    free(text);
    return st;
}
