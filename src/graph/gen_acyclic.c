/* Acyclic-dense graphs (first DIMACS challenge; seeds/000 5.4, seeds/003
 * V.C): the complete DAG, capacities in [1, 10000]. */
#include "core/context.h"
#include "graph/gen.h"

int64_t gcut__gen_acyclic_dense_arcs(int64_t n)
{
    return n * (n - 1) / 2;
}

gcut_status gcut__gen_acyclic_dense(gcut_context *ctx, int32_t n, uint64_t seed, gcut_graph **out)
{
    *out = NULL;
    if (n < 2)
        return gcut__fail(ctx, GCUT_E_INVALID, "acyclic-dense: n=%d: need n >= 2", n);
    if (gcut__gen_acyclic_dense_arcs(n) > INT32_MAX / 2)
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "acyclic-dense: n=%d: too many arcs", n);
    gcut__arc_list list;
    gcut_status st = gcut__arc_list_init(ctx, &list, gcut__gen_acyclic_dense_arcs(n));
    if (st)
        return st;
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 3);
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i + 1; j < n; j++)
            gcut__arc_list_add(&list, i, j, (int32_t)gcut__rng_range(&rng, 1, 10000));
    return gcut__arc_list_finish(ctx, &list, n, 0, n - 1, out);
}
