/* The grid solver table: which solver runs a cut, on which device, and the
 * run itself. gcut_grid_solve() and the segmentation energy
 * (grid_energy.h) both go through it. Internal to libgcut. */
#ifndef GCUT_GRAPH_GRID_SOLVE_H
#define GCUT_GRAPH_GRID_SOLVE_H

#include "graph/grid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcut__grid_solver {
    const char *name;
    int gpu_variant; /* -1: a CPU solver; else the GPU push-relabel variant it runs */
    gcut_status (*solve)(gcut_grid *g, int64_t *iterations);
} gcut__grid_solver;

/* The solver named `algo`, or with `algo` NULL the default for the
 * context's device: the first GPU solver on the GPU, else `cpu_default`
 * ("bk" when NULL). Applies solver_device.h's rule (and its errors). */
gcut_status gcut__grid_pick_solver(gcut_grid *g, const char *algo, const char *cpu_default,
                                   const gcut__grid_solver **out);

/* The solver to fall back on when the default GPU solver finds no room
 * under GCUT_DEVICE_AUTO: `cpu_default` ("bk" when NULL), after saying so
 * through the log; NULL when `st` and the options allow no fallback. */
const gcut__grid_solver *gcut__grid_fallback(gcut_grid *g, const gcut__grid_solver *s,
                                             const char *algo, const char *cpu_default,
                                             gcut_status st);

/* Run `s` on the grid as set: checks, the solve, the solution in the grid
 * (res, label, flow, g->solved) and in `info` (may be NULL). */
gcut_status gcut__grid_run_solver(gcut_grid *g, const gcut__grid_solver *s,
                                  gcut_solve_info *info);

#ifdef __cplusplus
}
#endif

#endif
