/* The grid graph, as the CPU and GPU solvers read it. Internal to libgcut.
 *
 * Layout (ARCHITECTURE.md): structure of arrays over a padded raster. The pixel
 * (x, y) is node (y + 1) * pitch + (x + 1); a ring of border nodes, one pixel
 * wide, surrounds the image. Border nodes have every capacity zero, so a
 * solver can step to any neighbour of a pixel without bounds checks.
 *   cap[d][i]     capacity of the arc from node i in direction d (as set)
 *   source_cap[i], sink_cap[i]  terminal capacities (as set)
 * After a solve:
 *   res[d][i]     residual capacity of that arc; together with cap it gives
 *                 the flow on every arc (a flow, or for push-relabel a
 *                 preflow), which gcut_grid_verify() checks
 *   label[i]      1 = source side of the minimum cut
 */
#ifndef GCUT_GRAPH_GRID_H
#define GCUT_GRAPH_GRID_H

#include <stdint.h>

#include "core/context.h"
#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GCUT__MAX_DIRS 8

struct gcut_grid {
    gcut_context *ctx;
    int width, height, conn;
    int ndirs;           /* 4 or 8 */
    int pitch;           /* width + 2 */
    int32_t n_padded;    /* (height + 2) * pitch */
    int32_t offset[GCUT__MAX_DIRS]; /* node index step of each direction */
    int threads;         /* CPU threads of this grid's solves; 0: the context's */

    int32_t *cap[GCUT__MAX_DIRS];
    int32_t *source_cap;
    int32_t *sink_cap;

    /* solution, valid while `solved` */
    int solved;
    int64_t flow;
    int32_t *res[GCUT__MAX_DIRS];
    uint8_t *label;
    gcut_solve_info info;
    /* res is still on the device (a GPU solve's; gcut__gpu_grid_fetch_residuals()
     * brings it when asked for) */
    int res_on_device;

    /* A solver's state kept for a warm re-solve (BK's trees and flow,
     * src/cpu/bk_grid.c); NULL when none is kept. */
    struct gcut__grid_warm *warm;

    /* What the terminal capacities held here exceed the graph's by, summed
     * over the pixels: a warm GPU segmentation cut raises both terminals of
     * a pixel by the same amount (src/gpu/grid_gpu_update.cu), which adds
     * it to every cut; the flow is the raised graph's less this. 0 else. */
    int64_t terminal_offset;
};

/* The hooks of a kept solver state, so that the grid can tell it of
 * capacity changes without knowing the solver. The solver's state struct
 * starts with this one, and g->warm points at it. */
typedef struct gcut__grid_warm {
    /* pixel node i's terminal capacities change (before or after the write) */
    void (*note_terminal)(gcut_grid *g, int32_t i);
    /* the arc from node i in direction d gets capacity cap (before the write) */
    void (*note_edge)(gcut_grid *g, int32_t i, int d, int32_t cap);
    /* the grid's residuals no longer belong to the state: start cold next */
    void (*forget)(gcut_grid *g);
    /* free the state and set g->warm to NULL */
    void (*release)(gcut_grid *g);
} gcut__grid_warm;

/* Code that writes res, cap or the terminals other than through the
 * setters (another solver, a capacity fetched from the GPU) calls this:
 * the next warm solve starts cold. */
void gcut__grid_forget_warm(gcut_grid *g);

static inline int32_t gcut__grid_node(const gcut_grid *g, int x, int y)
{
    return (int32_t)(y + 1) * g->pitch + (x + 1);
}

/* "E", "W", ... for messages. */
const char *gcut__dir_name(int dir);

/* Allocate the solution arrays (res, label) if not yet there. */
gcut_status gcut__grid_alloc_solution(gcut_grid *g);

/* Allocate the label array alone if not yet there: a GPU solve leaves its
 * residuals on the device, and their host arrays are made when fetched. */
gcut_status gcut__grid_alloc_labels(gcut_grid *g);

/* Check that no pixel's incident capacity could overflow int32 during a
 * solve: for every pixel, source + sink + the sum over its arcs of
 * (out + in) capacity fits in int32. Names the pixel otherwise. */
gcut_status gcut__grid_check_overflow(gcut_grid *g);
/* The same rule at host node i alone (after a sparse change: the nodes
 * not changed passed it before). */
gcut_status gcut__grid_check_overflow_node(gcut_grid *g, int32_t i);

/* CPU Boykov–Kolmogorov on the grid layout (src/cpu/bk_grid.c): fills res,
 * label and flow, and keeps its state (g->warm) so that the next BK solve
 * starts from this flow. */
gcut_status gcut__bk_grid_solve(gcut_grid *g, int64_t *iterations);

/* BK's kept state allocated (and its pages touched) before the timed solve. */
gcut_status gcut__bk_grid_prepare(gcut_grid *g);

#ifdef __cplusplus
}
#endif

#endif
