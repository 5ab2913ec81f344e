/* genrmf: D. Goldfarb, M. D. Grigoriadis, "A computational comparison of the
 * Dinic and network simplex methods for maximum flow", Annals of OR 13,
 * 1988; the DIMACS challenge generator as ECL-MaxFlow describes it
 * (seeds/003, section V.C). */
#include "core/context.h"
#include "graph/gen.h"

#include <stdlib.h>

int64_t gcut__gen_genrmf_arcs(int64_t a, int64_t b)
{
    return 4 * a * (a - 1) * b + a * a * (b - 1);
}

gcut_status gcut__gen_genrmf(gcut_context *ctx, int32_t a, int32_t b, int32_t c1, int32_t c2,
                             uint64_t seed, gcut_graph **out)
{
    *out = NULL;
    if (a < 1 || b < 1 || (int64_t)a * a * b < 2)
        return gcut__fail(ctx, GCUT_E_INVALID, "genrmf: a=%d, b=%d: need a, b >= 1 and a*a*b >= 2",
                          a, b);
    if (c1 < 0 || c2 < c1)
        return gcut__fail(ctx, GCUT_E_INVALID, "genrmf: need 0 <= c1 <= c2, not c1=%d c2=%d", c1,
                          c2);
    int64_t frame = (int64_t)a * a, n = frame * b;
    int64_t inner = (int64_t)c2 * frame;
    if (n > INT32_MAX || inner > INT32_MAX || gcut__gen_genrmf_arcs(a, b) > INT32_MAX / 2)
        return gcut__fail(ctx, GCUT_E_OVERFLOW,
                          "genrmf: a=%d, b=%d, c2=%d: too many nodes or arcs, or c2*a*a past "
                          "int32",
                          a, b, c2);
    int32_t *perm = malloc((size_t)frame * sizeof *perm);
    if (!perm)
        return gcut__fail(ctx, GCUT_E_NOMEM, "genrmf: out of memory");
    gcut__arc_list list;
    gcut_status st = gcut__arc_list_init(ctx, &list, gcut__gen_genrmf_arcs(a, b));
    if (st) {
        free(perm);
        return st;
    }
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 1);
    for (int32_t f = 0; f < b; f++) {
        int32_t base = (int32_t)(f * frame);
        for (int32_t y = 0; y < a; y++) {
            for (int32_t x = 0; x < a; x++) {
                int32_t v = base + y * a + x;
                if (x + 1 < a) {
                    gcut__arc_list_add(&list, v, v + 1, (int32_t)inner);
                    gcut__arc_list_add(&list, v + 1, v, (int32_t)inner);
                }
                if (y + 1 < a) {
                    gcut__arc_list_add(&list, v, v + a, (int32_t)inner);
                    gcut__arc_list_add(&list, v + a, v, (int32_t)inner);
                }
            }
        }
        if (f + 1 == b)
            break;
        /* Fisher-Yates: a fresh permutation to the next frame. */
        for (int32_t i = 0; i < frame; i++)
            perm[i] = i;
        for (int32_t i = (int32_t)frame - 1; i > 0; i--) {
            int32_t j = (int32_t)gcut__rng_range(&rng, 0, i);
            int32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int32_t i = 0; i < frame; i++)
            gcut__arc_list_add(&list, base + i, base + (int32_t)frame + perm[i],
                               (int32_t)gcut__rng_range(&rng, c1, c2));
    }
    free(perm);
    return gcut__arc_list_finish(ctx, &list, (int32_t)n, 0, (int32_t)(n - 1), out);
}
