/* Kernels of the warm GPU grid re-solve (grid_update.cu): capacity changes
 * applied to the residual state a solve left on the device, so that the
 * next run starts from the last flow. Host side: src/gpu/grid_gpu_update.cu.
 *
 * The state is a preflow of the graph as last set: every source arc
 * saturated, excess[p] = source(p) - (flow to the sink at p) - (net n-link
 * outflow of p), sink[p] = sink(p) - (flow to the sink at p), res[d][p] =
 * cap(p, d) - (net flow on the pair). The kernels keep the graph's
 * capacities beside it (caps), so that the flow on each arc is known. A
 * change keeps every residual in [0, capacity of the pair] (a lowered
 * n-link or sink arc gives back the flow it can no longer carry), which
 * may leave a node with negative excess (a deficit); the pull sweeps then
 * take that flow back along the arcs that carried it, down to the sink arc
 * or an excess, until no deficit is left. The result is again a preflow of
 * the new graph, from which push-relabel is exact.
 *
 * The segmentation's terminals (the table kernel) never leave a deficit:
 * where the new terminals would, both of the pixel's terminal capacities
 * are raised by the same amount (Kohli and Torr's reparametrisation).
 * Every s-t cut cuts exactly one of the two arcs, so every cut, the
 * minimum cut included, grows by that amount, and the cut is unchanged:
 * the state is a preflow of the raised graph, no pull sweep is needed, and
 * the flow of the graph as set is the state's flow less the sum of the
 * raises (offset[], per pixel, kept so that the next change drops it). */
#ifndef GCUT_GRID_UPDATE_H
#define GCUT_GRID_UPDATE_H

#include "grid_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The capacities of the graph the state belongs to (device raster). */
typedef struct gcut__dcaps {
    int32_t *cap[8];
    int32_t *source, *sink; /* as used: the terminals as set plus offset */
    int32_t *offset;        /* the raise of both terminals of each pixel (>= 0) */
} gcut__dcaps;

/* Slots of the update's counters. */
enum {
    GCUT_UPD_UNSENT = 0, /* flow taken back from the sink arcs (the flow value drops by it) */
    GCUT_UPD_RAISED = 1, /* the raises added, */
    GCUT_UPD_DROPPED = 2, /* and those dropped (the offset's change is their difference) */
    GCUT_UPD_REFUSED = 3, /* pixels whose raised terminals would not fit int32 */
    GCUT_UPD_SWEEPS = 4, /* from here: per pull sweep, the deficits it found */
    GCUT_UPD_SLOTS = 4 + 64
};

/* A changed neighbour pair: node p (device raster) and an even direction
 * d, with the new capacities of p -> p + d and of its reverse. */
typedef struct gcut__pair_change {
    int32_t node, dir, cap, rev_cap;
} gcut__pair_change;

/* A changed pixel's new terminal capacities. */
typedef struct gcut__terminal_change {
    int32_t node, source, sink;
} gcut__terminal_change;

/* Apply `count` pair changes (distinct pairs). */
cudaError_t gcut__grid_update_pairs_launch(const gcut__dgrid *g, const gcut__dcaps *c,
                                           const gcut__pair_change *changes, int count,
                                           cudaStream_t stream);

/* Apply `count` terminal changes (distinct pixels), after the pairs. */
cudaError_t gcut__grid_update_terminals_launch(const gcut__dgrid *g, const gcut__dcaps *c,
                                               const gcut__terminal_change *changes, int count,
                                               unsigned long long *counters, cudaStream_t stream);

/* Every pixel's terminals from a segmentation table (graph/grid_energy.h):
 * entry = colors for a foreground seed, colors + 1 for a background one,
 * else the pixel's colour; tcap[entry] > 0 to the source, < 0 to the sink.
 * With `fresh`, the state is a new graph (no flow): excess and sink are
 * the capacities, offsets 0; else the change is applied to the flow, with
 * the raises above where it would leave a deficit (none is left). */
cudaError_t gcut__grid_update_table_launch(const gcut__dgrid *g, const gcut__dcaps *c,
                                           const uint32_t *colour, const uint8_t *seeds,
                                           uint32_t colors, const int32_t *tcap, int fresh,
                                           unsigned long long *counters, cudaStream_t stream);

/* One pull sweep over the raster, counting the deficits it found into
 * counters[GCUT_UPD_SWEEPS + slot]. */
cudaError_t gcut__grid_pull_launch(const gcut__dgrid *g, const gcut__dcaps *c, int slot,
                                   unsigned long long *counters, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
