/* Generators of the benchmark families (`gcut gen`, gcut_graph_generate()),
 * written from the published descriptions. Internal to libgcut; every generator is
 * deterministic given its seed and returns a gcut_graph whose arc count
 * (stats.arcs_in, and arcs, since no arcs repeat) follows the family's
 * formula, given beside each. */
#ifndef GCUT_GRAPH_GEN_H
#define GCUT_GRAPH_GEN_H

#include <stdint.h>

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: small, fast, and good enough for random instances. */
typedef struct gcut__rng {
    uint64_t state;
} gcut__rng;

void gcut__rng_seed(gcut__rng *rng, uint64_t seed, uint64_t stream);
uint64_t gcut__rng_next(gcut__rng *rng);
/* Uniform in [lo, hi] (lo <= hi), without modulo bias. */
int64_t gcut__rng_range(gcut__rng *rng, int64_t lo, int64_t hi);
/* Uniform in [0, 1). */
double gcut__rng_unit(gcut__rng *rng);

/* An arc list being built, then turned into a graph. */
typedef struct gcut__arc_list {
    int64_t m, size;
    int32_t *tail, *head, *cap;
} gcut__arc_list;

gcut_status gcut__arc_list_init(gcut_context *ctx, gcut__arc_list *list, int64_t size);
/* Room was reserved by init: no check here. */
static inline void gcut__arc_list_add(gcut__arc_list *list, int32_t u, int32_t v, int32_t cap)
{
    list->tail[list->m] = u;
    list->head[list->m] = v;
    list->cap[list->m] = cap;
    list->m++;
}
/* Build the graph and free the list. */
gcut_status gcut__arc_list_finish(gcut_context *ctx, gcut__arc_list *list, int32_t n,
                                  int32_t source, int32_t sink, gcut_graph **out);

/* genrmf (Goldfarb–Grigoriadis, as in the DIMACS challenge and ECL-MaxFlow):
 * b frames of a x a grids; neighbours in a frame joined both ways with
 * capacity c2*a*a; node i of a frame joined to node perm(i) of the next
 * (a random permutation per frame pair) with capacity in [c1, c2]. Source:
 * the first frame's corner; sink: the last frame's opposite corner.
 * n = a*a*b, m = 4*a*(a-1)*b + a*a*(b-1). */
gcut_status gcut__gen_genrmf(gcut_context *ctx, int32_t a, int32_t b, int32_t c1, int32_t c2,
                             uint64_t seed, gcut_graph **out);
int64_t gcut__gen_genrmf_arcs(int64_t a, int64_t b);

/* Washington random level graph: `cols` levels of `rows` nodes; every node
 * joined to min(3, rows) distinct random nodes of the next level with
 * capacity in [1, range]; the source to every node of the first level and
 * every node of the last to the sink with capacity 3*range. Node 0 is the
 * source, node n-1 the sink. n = rows*cols + 2,
 * m = 2*rows + (cols-1)*rows*min(3, rows). */
gcut_status gcut__gen_rlg(gcut_context *ctx, int32_t rows, int32_t cols, int32_t range,
                          uint64_t seed, gcut_graph **out);
int64_t gcut__gen_rlg_arcs(int64_t rows, int64_t cols);

/* Acyclic-dense: the complete DAG on n nodes (i -> j for every i < j) with
 * capacities in [1, 10000]; source 0, sink n-1. m = n*(n-1)/2. */
gcut_status gcut__gen_acyclic_dense(gcut_context *ctx, int32_t n, uint64_t seed, gcut_graph **out);
int64_t gcut__gen_acyclic_dense_arcs(int64_t n);

/* Vision-like grid: a synthetic noisy image of a few bright ellipses on a
 * dark background; neighbour arcs both ways (4 or 8 neighbours) with a
 * contrast-sensitive capacity (BK's boundary term), and for
 * round(density * width * height) randomly chosen pixels a source arc and a
 * sink arc with the data costs. Pixel (x, y) is node y*width + x, the
 * source width*height, the sink width*height + 1: the numbering of the grid
 * graph files, so `gcut grid` reads the result too.
 * m = 2*pairs + 2*round(density*width*height), pairs = (w-1)h + w(h-1)
 * (+ 2(w-1)(h-1) for 8 neighbours). */
gcut_status gcut__gen_vision(gcut_context *ctx, int32_t width, int32_t height, int32_t connectivity,
                             double density, uint64_t seed, gcut_graph **out);
int64_t gcut__gen_vision_arcs(int64_t width, int64_t height, int connectivity, double density);

#ifdef __cplusplus
}
#endif

#endif
