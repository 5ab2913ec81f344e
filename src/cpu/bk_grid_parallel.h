/* The parallel grid cut "pbk" (src/cpu/bk_grid_parallel.c). Internal to
 * libgcut. */
#ifndef GCUT_CPU_BK_GRID_PARALLEL_H
#define GCUT_CPU_BK_GRID_PARALLEL_H

#include <stdint.h>

#include "graph/grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* With the automatic thread count (gcut_options.threads == 0), a thread
 * for every this many pixels at most: below it BK alone is faster. */
#define GCUT__PBK_MIN_PIXELS_PER_THREAD 65536
/* Strips per thread, and the fewest rows a strip may have when there are
 * more strips than threads (measured: bench/results/grid_cpu_parallel_*). */
#define GCUT__PBK_STRIPS_PER_THREAD 4
#define GCUT__PBK_MIN_ROWS 16

/* The threads a solve of g uses: the grid's own count, else the context's
 * options.threads, when positive (at most one per row), else one per
 * online CPU within the limits above. 1 means plain BK. */
int gcut__pbk_grid_threads(const gcut_grid *g);

/* The row strips for `threads` threads: GCUT__PBK_STRIPS_PER_THREAD each
 * while strips keep GCUT__PBK_MIN_ROWS rows, and never fewer than the
 * threads (nor than one row each). */
int gcut__pbk_grid_strips(const gcut_grid *g, int threads);

/* Where a solve's time went, in milliseconds (for the benchmark). */
typedef struct gcut__pbk_times {
    double start_ms;      /* residuals, trees and queues of every strip */
    double strips_ms;     /* from then until the last strip is done */
    double merges_ms;     /* from then until the last merge is done */
    double strip_work_ms; /* BK in the strips, summed over the strips */
    double merge_work_ms; /* summed over the merges */
    double last_merge_ms; /* the last merge alone */
    int merges;           /* merges run */
} gcut__pbk_times;

/* The solve with `strips` row strips on `threads` threads (1 and 1: plain
 * BK). Any numbers give the same exact answer. `times` may be NULL. */
gcut_status gcut__pbk_grid_run(gcut_grid *g, int threads, int strips, int64_t *iterations,
                               gcut__pbk_times *times);

/* Maximum flow and minimum cut, exact: gcut__pbk_grid_run() with the
 * threads and strips above. Fills res, label and flow like
 * gcut__bk_grid_solve(), with the same labels (the pixels that cannot
 * reach the sink after a maximum flow). */
gcut_status gcut__pbk_grid_solve(gcut_grid *g, int64_t *iterations);

#ifdef __cplusplus
}
#endif

#endif
