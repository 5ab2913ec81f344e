/* The row cache both CPU cost-scaling solvers keep (assign_csa.c on CSR,
 * assign_csa_dense.c on a matrix): a row's k cheapest arcs at the last scan
 * and the bound below which no uncached arc's reduced cost c' lies. Prices
 * only fall, so an uncached arc's c' only rises and the bound stays true.
 * Internal to libgcut. */
#ifndef GCUT_CPU_ASSIGN_CSA_CACHE_H
#define GCUT_CPU_ASSIGN_CSA_CACHE_H

#include <stdint.h>

/* The two least c' = cost - price[col] among the len cached arcs: *b1 and
 * *b2 (INT64_MAX where there is none); returns the index of the least. */
static inline int gcut__csa_cached_two(const int32_t *col, const int64_t *cost, int len,
                                       const int64_t *price, int64_t *b1, int64_t *b2)
{
    int64_t v1 = INT64_MAX, v2 = INT64_MAX;
    int i1 = 0;
    for (int i = 0; i < len; i++) {
        const int64_t v = cost[i] - price[col[i]];
        if (v < v1) {
            v2 = v1;
            v1 = v;
            i1 = i;
        } else if (v < v2) {
            v2 = v;
        }
    }
    *b1 = v1;
    *b2 = v2;
    return i1;
}

/* Whether the cached two are the row's true two: both within the bound
 * (b2 = INT64_MAX only when no arc is uncached). */
static inline int gcut__csa_cache_holds(int64_t b2, int64_t bound)
{
    return b2 <= bound || (b2 == INT64_MAX && bound == INT64_MAX);
}

#endif
