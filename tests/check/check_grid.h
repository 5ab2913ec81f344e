/* Grid solver checks in plain C (no Criterion): a deterministic generator of
 * random grid graphs in several capacity regimes, an independent reference
 * (Dinic on an explicit arc list, ref_maxflow.h), and checks that compare a
 * solver with it and check the solver's proof.
 *
 * A grid is named by (seed, index, regime): the same triple always builds
 * the same grid, whatever the context's device, so a GPU-vs-CPU check can
 * call check_grid_random_in() twice and hand both solvers identical input. */
#ifndef GCUT_TESTS_CHECK_GRID_H
#define GCUT_TESTS_CHECK_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "check_common.h"
#include "gcut.h"

typedef enum check_grid_regime {
    CHECK_GRID_ZERO = 0,   /* every capacity 0 */
    CHECK_GRID_TINY,       /* capacities 0..3: many ties and saturations */
    CHECK_GRID_MEDIUM,     /* n-links up to 1000, terminals up to 10000 */
    CHECK_GRID_NEAR_LIMIT, /* pixels whose total capacity is at or near INT32_MAX */
    CHECK_GRID_ASYMMETRIC, /* p->q and q->p independent, often one of them 0 */
    CHECK_GRID_SPARSE,     /* a few source and sink seeds, long paths between */
    CHECK_GRID_NO_PATH,    /* no s-t path: expected flow 0 */
    CHECK_GRID_MAZE,       /* a serpentine corridor: paths thousands of pixels long */
    CHECK_GRID_THIN,       /* 1x1 pixels and 1-pixel-wide strips */
    CHECK_GRID_REGIMES     /* the number of regimes */
} check_grid_regime;

/* "zero", "tiny", ... ("?" if out of range). */
const char *check_grid_regime_name(int regime);

/* Build grid number `index` of the stream `seed` in `regime` (sizes 1x1 up
 * to 64x64, 4- and 8-connected, capacities within the overflow rule). */
gcut_status check_grid_random_in(gcut_context *ctx, uint64_t seed, int index, int regime,
                                 gcut_grid **out);

/* The same with the regime chosen by index (index % CHECK_GRID_REGIMES), so
 * that consecutive indices cycle through every regime. */
gcut_status check_grid_random(gcut_context *ctx, uint64_t seed, int index, gcut_grid **out);

/* The shape of a larger grid: a disc of source preference in a field of
 * sink preference (the weaker terminal divided by `weak`) over random
 * n-links of 0..arc_max, so that flow travels across the whole grid. */
typedef struct check_disc_shape {
    int w_min, w_span, h_min, h_span; /* width w_min + 0..w_span-1, height alike */
    int arc_span;                     /* arc_max = 1 + 0..arc_span-1 */
    int rad_min;                      /* radius rad_min + 0..min(w, h)-1 */
    int weak;
} check_disc_shape;

/* Build such a grid, `conn`-connected, from the random state `s` (already
 * seeded by the caller's stream). */
gcut_status check_grid_disc(gcut_context *ctx, uint64_t s, int conn, const check_disc_shape *shape,
                            gcut_grid **out);

/* The reference maximum flow of `grid` (read through the public getters
 * only), and optionally the source side every solver must return
 * (ref_side[y*width+x] = 1): the pixels that cannot reach the sink in the
 * reference's residual graph. GCUT_E_NOMEM when the reference fails. */
gcut_status check_grid_reference(const gcut_grid *grid, int64_t *flow, uint8_t *ref_side);

/* Check the CPU solver "bk" against the reference on `count` grids of the
 * stream `seed`, cycling through every regime. Per grid: the flow equals the
 * reference's; gcut_grid_verify() passes; the labels' cut capacity (library
 * and an independent sum) equals the flow; the labels contain the
 * reference's residual source side; a second solve gives the same flow. */
void check_grid_bk_vs_reference(check_report *r, int count, uint64_t seed);

/* The same on `count` grids of one regime. */
void check_grid_bk_vs_reference_in(check_report *r, int regime, int count, uint64_t seed);

/* Check warm re-solves of "bk" on `count` grids of the stream `seed`,
 * cycling through every regime: each grid is solved, then four times has
 * capacities changed at random (terminals and n-links; up, down, to zero;
 * one pixel, some, or all; pixel by pixel or whole arrays) and is solved
 * again on the same handle. Every solve must pass the checks of
 * check_grid_bk_vs_reference against the reference on the new capacities
 * and give the flow of a fresh solve of a copy. */
void check_grid_bk_resolve(check_report *r, int count, uint64_t seed);

/* One grid of that check (grid `index` of `regime`, `rounds` batches of
 * changes), solved with `algo` on `ctx`'s device, the fresh copies with
 * "bk" on `ref_ctx`. */
void check_grid_resolve_with(check_report *r, gcut_context *ctx, const char *algo,
                             gcut_context *ref_ctx, uint64_t seed, int index, int regime,
                             int rounds);

/* Check one solved grid against a known flow: flow, verify, cut capacity
 * (library and independent), reference side inside the labels. `what`
 * names the grid in messages; `ctx` is the grid's context (for its last
 * error). Returns 1 if all held, else records the
 * failure in r and returns 0 (r's counters are left to the caller). For
 * reuse by checks of other solvers. */
int check_grid_solution(check_report *r, gcut_context *ctx, gcut_grid *grid, int64_t solved_flow,
                        int64_t want_flow, const uint8_t *ref_side, const char *what);

#endif
