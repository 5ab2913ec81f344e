/* The general graph, as the CPU and GPU solvers read it. Internal to libgcut.
 *
 * Layout (the RCSR of ECL-MaxFlow): contiguous int32 arrays.
 *   out_start[n+1], out_head[m], out_cap[m]   forward CSR: the arcs leaving
 *       u are out_start[u] .. out_start[u+1]-1, sorted by head, one arc per
 *       (tail, head) pair (parallel arcs summed, self-loops dropped);
 *   arc_tail[m]                               the tail of each forward arc;
 *   in_start[n+1], in_tail[m], in_arc[m]      reverse CSR: the arcs entering
 *       v, sorted by tail, each with the index of its forward arc.
 * Flow is stored once per forward arc (flow[a]); residuals are derived:
 * cap - flow forwards, flow backwards. Arcs u->v and v->u are two forward
 * arcs, each with its own flow.
 * After a solve:
 *   flow[m]     the flow on each forward arc: a feasible flow when
 *               `is_flow`, else a preflow (push-relabel's phase 1)
 *   side[n]     1 = source side of the minimum cut: the nodes that cannot
 *               reach the sink in the residual graph (the same set for every
 *               maximum flow, so all solvers report the same cut)
 */
#ifndef GCUT_GRAPH_CSR_H
#define GCUT_GRAPH_CSR_H

#include <stdint.h>

#include "core/context.h"
#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Forward arcs at most: the residual network holds 2m arcs with int32
 * indices. */
#define GCUT__GRAPH_MAX_ARCS ((int64_t)(INT32_MAX / 2))

/* Past this share of the arcs (1 / 20) changed since the last solve, a
 * prf solve from zero costs less than continuing (graph_update.c). */
#define GCUT__LARGE_BATCH 20

struct gcut_graph {
    gcut_context *ctx;
    int32_t n, m;
    int32_t source, sink;
    int32_t *out_start, *out_head, *out_cap, *arc_tail;
    int32_t *in_start, *in_tail, *in_arc;
    /* The residual network's topology (gcut__resnet), built with the graph
     * so that solves only fill in residuals. */
    int32_t *res_first, *res_head, *res_rev;
    /* The residuals themselves, allocated (and the pages touched) with the
     * graph too; `res_fresh` while they still equal the capacities. */
    int32_t *res;
    int res_fresh;
    gcut_graph_stats stats;

    /* solution, valid while `solved` */
    int solved;
    int is_flow;
    int flow_stored; /* flow[] is filled in; else the flow lives in res */
    int64_t flow_value;
    int32_t *flow;
    uint8_t *side;
    gcut_solve_info info;

    /* Dynamic re-solves (graph_update.c). While `warm`, res holds the
     * pseudo-flow a solve left (consistent with out_cap) and excess[v] its
     * inflow - outflow at every node but the source: negative at deficient
     * nodes after a lowered arc, positive only at nodes that cannot reach
     * the sink or a deficient node. `updated`: capacities changed since the
     * last solve, so the next prf solve continues from this state. */
    int warm;
    int updated;
    int64_t *excess;
    /* The work (arcs scanned) of the last prf solve from zero; a prf
     * re-solve whose work and its batches' repairs pass it gives up for a
     * solve from zero (0: no record, no limit). */
    int64_t prf_fresh_work;
    /* The arcs the repairs of the batches since the last solve scanned
     * (graph_update.c); the next re-solve's limit is lowered by them. */
    int64_t prf_repair_work;
    /* Arc changes since the last solve: past m / GCUT__LARGE_BATCH the
     * batches skip their repairs and the next prf solve starts from zero. */
    int64_t changed_arcs;
    /* BK's trees and terminal residuals after a BK solve, valid for res
     * while `bk_trees`; the nodes an update touched since (dirty) are
     * where the next BK re-solve repairs them. */
    struct gcut__bk_keep *bk;
    int bk_trees;
    int32_t *dirty;
    int64_t dirty_count, dirty_room;
    /* The GPU worklist solver's warm state (src/gpu/graph_gpu.cu): while
     * `gpu_warm` the device holds the flow and excesses this graph's last
     * solve left there, and gpu_pending lists the arcs updated since (an
     * arc may repeat); the next GPU solve sends only those. */
    int gpu_warm;
    /* After a GPU warm re-solve: the flow is on the device only (flow[] and
     * res stale), until gcut__gpu_graph_fetch() brings it when asked for. */
    int gpu_flow;
    int32_t *gpu_pending;
    int64_t gpu_pending_count, gpu_pending_room;
    /* prf's distance labels, buckets and current arcs, kept after a prf
     * re-solve (prf.c) and valid for res while `prf_labels`: every other
     * access to the residuals goes through gcut__resnet_view or _build,
     * which clear it. The update lists in prf_touched the nodes whose
     * excess or residual arcs it changed (v >= 0, once a batch) and the
     * residual arcs that opened (-1 - p); the next re-solve repairs the
     * labels there instead of relabelling all. */
    struct gcut__prf_keep *prf_keep;
    int prf_labels;
    int32_t *prf_touched;
    int64_t prf_touched_count, prf_touched_room;
};

/* The residual network the CPU solvers work on: for node u, the arcs
 * first[u] .. first[u+1]-1 are its forward arcs (in forward CSR order)
 * followed by the reverses of its entering arcs (in reverse CSR order).
 * rev[a] is the opposite arc, res[a] the residual capacity. */
typedef struct gcut__resnet {
    int32_t n;
    const int32_t *first; /* n + 1, the graph's */
    const int32_t *head;  /* 2m, the graph's */
    const int32_t *rev;   /* 2m, the graph's */
    int32_t *res;         /* 2m, the graph's */
} gcut__resnet;

/* The residual network of `g` for `flow` (all zero when NULL), in the
 * graph's own res array. */
gcut_status gcut__resnet_build(gcut_graph *g, const int32_t *flow, gcut__resnet *rn);

/* The graph's residual network as it stands (after a solve). */
void gcut__resnet_view(gcut_graph *g, gcut__resnet *rn);

/* flow[a] = cap[a] - residual of a's forward position, for every arc. */
void gcut__resnet_store_flow(const gcut_graph *g, const gcut__resnet *rn, int32_t *flow);

void gcut__resnet_free(gcut__resnet *rn);

/* Build the graph from arc arrays with 0-based ids already checked to lie in
 * [0, n) and capacities >= 0; `what` names the origin for messages (a path
 * or "arcs"). Sums parallel arcs (GCUT_E_OVERFLOW if a sum leaves int32),
 * drops self-loops. */
gcut_status gcut__graph_build(gcut_context *ctx, int32_t n, int64_t m, const int32_t *tail,
                              const int32_t *head, const int32_t *cap, int32_t source, int32_t sink,
                              const char *what, gcut_graph **out);

/* Allocate flow and side if not yet there. */
gcut_status gcut__graph_alloc_solution(gcut_graph *g);

/* side[] from g->flow: nodes that cannot reach the sink in the residual
 * graph get 1. Works for flows and preflows. */
gcut_status gcut__graph_mark_side(gcut_graph *g);

/* Write a graph as DIMACS with an optional comment block (lines without
 * the leading "c "; NULL for none). */
gcut_status gcut__graph_write_dimacs(const gcut_graph *g, const char *path, const char *comment);

/* CPU solvers. Each fills g->flow (a preflow for prf, a flow for bk),
 * g->flow_value, g->is_flow and g->side. */
gcut_status gcut__prf_solve(gcut_graph *g, int64_t *iterations);
gcut_status gcut__bk_graph_solve(gcut_graph *g, int64_t *iterations);

/* Dynamic re-solve with prf (Kannappan et al., section 4): from the warm
 * pseudo-flow, deficient nodes act as extra sinks; ends like a solve (the
 * flow value, the canonical cut side, a pseudo-flow kept in res). */
gcut_status gcut__prf_resolve(gcut_graph *g, int64_t *iterations);

/* The same with BK: the pseudo-flow's excesses and deficits join the
 * source's and the sink's residuals as BK's terminal capacities; the last
 * BK solve's trees are reused where g->bk_trees. With work_limit > 0 it
 * gives up (*gave_up, the state lost) after that many growth steps and
 * adoptions. */
gcut_status gcut__bk_graph_resolve(gcut_graph *g, int64_t work_limit, int *gave_up,
                                   int64_t *iterations);
void gcut__bk_keep_free(struct gcut__bk_keep *keep);

void gcut__prf_keep_free(struct gcut__prf_keep *keep);

/* Note node e >= 0, or the residual arc -1 - e that opened, in
 * g->prf_touched while prf's labels are kept (past about n / 16 + 512
 * entries, or without room, they are dropped: the next re-solve relabels
 * all). */
void gcut__prf_note(gcut_graph *g, int32_t e);

/* Make the warm pseudo-flow a preflow of the same value: every deficit is
 * cancelled along residual paths from the sink (flow paths into the sink
 * carry it back), so no node keeps a negative excess. */
gcut_status gcut__prf_cancel_deficits(gcut_graph *g);

/* The arc tail -> head (0-based), or -1 when the graph has none. */
int32_t gcut__graph_find_arc(const gcut_graph *g, int32_t tail, int32_t head);

/* Bring res and excess up to date with the last solve (from g->flow when
 * the solver kept its flow there) and mark the graph warm. */
gcut_status gcut__graph_make_warm(gcut_graph *g);

/* After a solve: make g->flow a feasible flow if it is still a preflow. */
gcut_status gcut__graph_need_flow(gcut_graph *g);

/* Push-relabel's phase 2: turn the preflow in g->flow into a feasible flow
 * of the same value by returning every excess to the source. */
gcut_status gcut__prf_return_excess(gcut_graph *g);

#ifdef __cplusplus
}
#endif

#endif
