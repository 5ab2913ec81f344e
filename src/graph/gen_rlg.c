/* Washington random level graphs (R. Anderson's generator for the first
 * DIMACS challenge), as described by Wu, He and Hong (seeds/000, 5.4) and
 * ECL-MaxFlow (seeds/003, V.C): levels of nodes, each node joined to three
 * random nodes of the next level. Their counts (524,290 nodes and 1,572,352
 * arcs for 512 x 1024) fix the reading: `rows` nodes per level, `cols`
 * levels. */
#include "core/context.h"
#include "graph/gen.h"

static int32_t fanout(int64_t rows)
{
    return rows < 3 ? (int32_t)rows : 3;
}

int64_t gcut__gen_rlg_arcs(int64_t rows, int64_t cols)
{
    return 2 * rows + (cols - 1) * rows * fanout(rows);
}

gcut_status gcut__gen_rlg(gcut_context *ctx, int32_t rows, int32_t cols, int32_t range,
                          uint64_t seed, gcut_graph **out)
{
    *out = NULL;
    if (rows < 1 || cols < 1 || range < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "rlg: rows=%d, cols=%d, range=%d: all must be >= 1",
                          rows, cols, range);
    int64_t n = (int64_t)rows * cols + 2;
    if (n > INT32_MAX || (int64_t)range * 3 > INT32_MAX ||
        gcut__gen_rlg_arcs(rows, cols) > INT32_MAX / 2)
        return gcut__fail(ctx, GCUT_E_OVERFLOW,
                          "rlg: rows=%d, cols=%d, range=%d: too many nodes or arcs, or 3*range "
                          "past int32",
                          rows, cols, range);
    gcut__arc_list list;
    gcut_status st = gcut__arc_list_init(ctx, &list, gcut__gen_rlg_arcs(rows, cols));
    if (st)
        return st;
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 2);
    const int32_t source = 0, sink = (int32_t)(n - 1), big = 3 * range;
    for (int32_t i = 0; i < rows; i++)
        gcut__arc_list_add(&list, source, 1 + i, big);
    for (int32_t l = 0; l + 1 < cols; l++) {
        int32_t level = 1 + l * rows, next = level + rows;
        for (int32_t i = 0; i < rows; i++) {
            int32_t pick[3];
            int k = 0;
            while (k < fanout(rows)) {
                int32_t j = (int32_t)gcut__rng_range(&rng, 0, rows - 1);
                int dup = 0;
                for (int q = 0; q < k; q++)
                    dup |= pick[q] == j;
                if (!dup)
                    pick[k++] = j;
            }
            for (int q = 0; q < k; q++)
                gcut__arc_list_add(&list, level + i, next + pick[q],
                                   (int32_t)gcut__rng_range(&rng, 1, range));
        }
    }
    int32_t last = 1 + (cols - 1) * rows;
    for (int32_t i = 0; i < rows; i++)
        gcut__arc_list_add(&list, last + i, sink, big);
    return gcut__arc_list_finish(ctx, &list, (int32_t)n, source, sink, out);
}
