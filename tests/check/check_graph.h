/* General-graph solver checks in plain C (no Criterion): random small
 * directed graphs in several regimes and small instances of every generator
 * family, each solved by every CPU solver and compared with the independent
 * reference (Dinic, ref_maxflow.h), with the solver's proof checked both by
 * gcut_graph_verify() and independently here.
 *
 * A graph is named by (seed, index): the same pair always builds the same
 * arc list, so a GPU-vs-CPU check can hand both solvers identical input. */
#ifndef GCUT_TESTS_CHECK_GRAPH_H
#define GCUT_TESTS_CHECK_GRAPH_H

#include <stdint.h>

#include "check_common.h"
#include "gcut.h"

typedef enum check_graph_regime {
    CHECK_GRAPH_SPARSE = 0, /* about 2 arcs per node, capacities 0..100 */
    CHECK_GRAPH_DENSE,      /* most ordered pairs joined, capacities 0..1000 */
    CHECK_GRAPH_NO_PATH,    /* the sink unreachable from the source: flow 0 */
    CHECK_GRAPH_ZERO_CAPS,  /* most capacities 0 */
    CHECK_GRAPH_PARALLEL,   /* many parallel arcs and self-loops, also at s and t */
    CHECK_GRAPH_TINY_CAPS,  /* capacities 0..3: many ties */
    CHECK_GRAPH_NEAR_LIMIT, /* capacities near INT32_MAX (sums need int64) */
    CHECK_GRAPH_LAYERED,    /* long paths through narrow layers, arcs into s and out of t */
    CHECK_GRAPH_TERMINALS,  /* vision-like: most nodes joined to s and t, pairs between them */
    CHECK_GRAPH_REGIMES
} check_graph_regime;

/* An arc list as given to gcut_graph_create_from_arcs(). */
typedef struct check_graph_arcs {
    int32_t n, source, sink;
    int64_t m;
    int32_t *tail, *head, *cap;
} check_graph_arcs;

const char *check_graph_regime_name(int regime);

/* Arc list number `index` of the stream `seed` (regime index % REGIMES,
 * 2 to 40 nodes). Free with check_graph_arcs_free(). 0 on success. */
int check_graph_random_arcs(uint64_t seed, int index, check_graph_arcs *out);
void check_graph_arcs_free(check_graph_arcs *arcs);

/* The arc list of a built graph, through the public getters (generators
 * repeat no arc). Free with check_graph_arcs_free(). 0 on success. */
int check_graph_arcs_of(const gcut_graph *graph, check_graph_arcs *arcs);

/* The reference maximum flow of an arc list; ref_side (n entries, may be
 * NULL) gets the residual-reachable source side of the reference's cut,
 * which lies inside the source side of every minimum cut. -1 on failure. */
int64_t check_graph_reference(const check_graph_arcs *arcs, uint8_t *ref_side);

/* Check one solved graph against the arc list it was built from and the
 * reference's answer: the flow, gcut_graph_verify(), an independent check
 * of the arc flows (capacities of the summed arcs, conservation, value), the
 * cut side (s in, t out, capacity summed over the original arcs equal to the
 * flow, the reference side inside). Returns 1 if all held, else records the
 * failure in r and returns 0. */
int check_graph_solution(check_report *r, gcut_graph *g, const check_graph_arcs *arcs,
                         int64_t want_flow, const uint8_t *ref_side, const char *what);

/* Every CPU solver ("prf", "bk") against the reference on `count` random
 * graphs cycling through the regimes; also that both report the same cut
 * side (the set of nodes that cannot reach the sink is the same for every
 * maximum flow). */
void check_graph_solvers_vs_reference(check_report *r, int count, uint64_t seed);

/* The same on small instances of every generator family (genrmf, rlg,
 * acyclic-dense, vision), also checking each family's size formula. */
void check_graph_families_vs_reference(check_report *r, int count, uint64_t seed);

#endif
