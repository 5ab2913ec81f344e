/* Fuzz target "bipartite": the bipartite graph reader (a Matrix Market
 * coordinate file when the text starts with "%%", else an edge list). A
 * small graph it accepts is matched by both CPU solvers, which must find
 * matchings of one size, each passing the proof checker with its König
 * cover: a reader bug that builds a wrong graph shows up there. */
#include <stdlib.h>

#include "fuzz_common.h"

/* Matching, cover and proof by one solver; the matching's size. */
static int32_t match_verified(gcut_bipartite *b, const char *algo, int32_t *rm, int32_t *cm,
                              uint8_t *rc, uint8_t *cc)
{
    gcut_match_info info;
    int32_t size = -1;
    if (gcut_match(b, algo, rm, cm, rc, cc, &info) != GCUT_OK ||
        gcut_match_verify(b, rm, cm, rc, cc, &size) != GCUT_OK || size != info.size)
        abort();
    return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcut_context *ctx = fuzz_context();
    const char *path = fuzz_temp_file(data, size);
    gcut_bipartite *b = NULL;
    if (!path || gcut_bipartite_read(ctx, path, GCUT_BIPARTITE_AUTO, &b) != GCUT_OK)
        return 0;
    const int32_t rows = gcut_bipartite_rows(b), cols = gcut_bipartite_cols(b);
    if ((int64_t)rows + cols <= (1 << 14) && gcut_bipartite_edges(b) <= (1 << 16)) {
        int32_t *rm = malloc(((size_t)rows + 1) * sizeof *rm);
        int32_t *cm = malloc(((size_t)cols + 1) * sizeof *cm);
        uint8_t *rc = malloc((size_t)rows + 1), *cc = malloc((size_t)cols + 1);
        if (!rm || !cm || !rc || !cc)
            abort();
        if (match_verified(b, "pr", rm, cm, rc, cc) != match_verified(b, "hk", rm, cm, rc, cc))
            abort();
        free(rm), free(cm), free(rc), free(cc);
    }
    gcut_bipartite_destroy(b);
    return 0;
}
