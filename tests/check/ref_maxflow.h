/* An independent reference max-flow for the tests: Dinic's algorithm on an
 * explicit arc list, kept deliberately simple (no heuristics shared with any
 * solver under test). The DFS is iterative so that long augmenting paths on
 * 64x64 grids cannot exhaust the stack. */
#ifndef GCUT_TESTS_REF_MAXFLOW_H
#define GCUT_TESTS_REF_MAXFLOW_H

#include <stdint.h>

typedef struct ref_graph ref_graph;

/* A graph of n nodes 0..n-1 and no arcs; NULL on bad n or out of memory. */
ref_graph *ref_graph_create(int n);

/* Add the arc u -> v of capacity cap >= 0. Parallel arcs are allowed.
 * 0 on success, -1 on bad arguments or out of memory. */
int ref_graph_add_arc(ref_graph *g, int u, int v, int64_t cap);

/* The maximum flow from s to t (0 when s == t or arguments are bad; -1 on
 * out of memory). Leaves the residual graph in place for
 * ref_graph_source_side(). May be called once per graph. */
int64_t ref_graph_maxflow(ref_graph *g, int s, int t);

/* After ref_graph_maxflow(): 1 if v is reachable from s in the residual
 * graph (the source side of a minimum cut), else 0. */
int ref_graph_source_side(const ref_graph *g, int v);

/* After ref_graph_maxflow(): 1 if v can reach t in the residual graph. The
 * nodes that cannot form the largest source side of a minimum cut, the
 * same for every maximum flow: the side gcut's solvers return. */
int ref_graph_reaches_sink(const ref_graph *g, int v);

/* Release a graph. NULL is a no-op. */
void ref_graph_destroy(ref_graph *g);

#endif
