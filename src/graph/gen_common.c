/* What the generators share: the random number generator and arc lists. */
#include <stdlib.h>

#include "core/context.h"
#include "graph/csr.h"
#include "graph/gen.h"

void gcut__rng_seed(gcut__rng *rng, uint64_t seed, uint64_t stream)
{
    /* Different families from one seed get unrelated sequences. */
    rng->state = seed ^ (stream * 0xd1b54a32d192ed03ULL);
}

uint64_t gcut__rng_next(gcut__rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t gcut__rng_range(gcut__rng *rng, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    if (span == 0)
        return (int64_t)gcut__rng_next(rng);
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do
        x = gcut__rng_next(rng);
    while (x >= limit);
    return lo + (int64_t)(x % span);
}

double gcut__rng_unit(gcut__rng *rng)
{
    return (double)(gcut__rng_next(rng) >> 11) * 0x1.0p-53;
}

gcut_status gcut__arc_list_init(gcut_context *ctx, gcut__arc_list *list, int64_t size)
{
    list->m = 0;
    list->size = size;
    size_t k = (size_t)(size ? size : 1);
    list->tail = malloc(k * sizeof(int32_t));
    list->head = malloc(k * sizeof(int32_t));
    list->cap = malloc(k * sizeof(int32_t));
    if (!list->tail || !list->head || !list->cap) {
        free(list->tail);
        free(list->head);
        free(list->cap);
        list->tail = list->head = list->cap = NULL;
        return gcut__fail(ctx, GCUT_E_NOMEM, "gen: out of memory for %lld arcs", (long long)size);
    }
    return GCUT_OK;
}

gcut_status gcut__arc_list_finish(gcut_context *ctx, gcut__arc_list *list, int32_t n,
                                  int32_t source, int32_t sink, gcut_graph **out)
{
    gcut_status st = gcut__graph_build(ctx, n, list->m, list->tail, list->head, list->cap, source,
                                       sink, "gen", out);
    free(list->tail);
    free(list->head);
    free(list->cap);
    list->tail = list->head = list->cap = NULL;
    return st;
}
