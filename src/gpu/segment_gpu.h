/* The segmentation energy built on the GPU: the device side of
 * graph/grid_energy.h, used when the solver table picks a GPU solver. The
 * image goes to the device once, and every cut's graph is written there,
 * straight into the solver's residual arrays, from the two small tables the
 * host computes (the n-link weight per squared colour difference, the
 * terminal capacity per colour). Only the labels come back. Internal to
 * libgcut; only under GCUT_HAVE_CUDA. */
#ifndef GCUT_GPU_SEGMENT_GPU_H
#define GCUT_GPU_SEGMENT_GPU_H

#include <stdint.h>

#include "graph/grid.h"
#include "vision/color_price.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcut__seg_gpu gcut__seg_gpu;

/* Size the device grid for `g` (whose host arrays stay untouched unless
 * fetched) and upload the n packed RGB pixels, the seeds and each pixel's
 * colour number (of `colors` distinct ones). A pixel's terminal entry is
 * its colour's, or entry colors for a foreground seed, colors + 1 for a
 * background one. GCUT_E_DEVICE_NOMEM when it does not fit. */
gcut_status gcut__seg_gpu_create(gcut_grid *g, const uint8_t *rgb, const uint8_t *seeds,
                                 const uint32_t *colour_of_pixel, int64_t colors,
                                 gcut__seg_gpu **out);
void gcut__seg_gpu_destroy(gcut__seg_gpu *sg);

/* The exact sum of |Ip - Iq|^2 over the neighbour pairs (each once). */
gcut_status gcut__seg_gpu_d2_sum(gcut__seg_gpu *sg, int64_t *sum);

/* Keep the n-link table (entries [0, len): axis-aligned weight by squared
 * difference, [len, 2 len): diagonal) on the device, write the n-links and
 * return the largest sum of a pixel's n-link capacities. */
gcut_status gcut__seg_gpu_set_nlinks(gcut__seg_gpu *sg, const int32_t *table, int len,
                                     int32_t *largest);

/* Write the whole graph of a cut into the device grid: n-links from the
 * table, terminal capacity tcap[entry] (> 0 to the source, < 0 to the
 * sink; colors + 2 entries; NULL: the table the device priced last,
 * gcut__seg_gpu_price) and zero heights, ready for gcut__gpu_grid_run. */
gcut_status gcut__seg_gpu_build(gcut__seg_gpu *sg, const int32_t *tcap);

/* Copy the built graph (before a solve) into the host grid's cap,
 * source_cap and sink_cap, for --verify, --save-graph and the tests. */
gcut_status gcut__seg_gpu_fetch_graph(gcut__seg_gpu *sg);

/* Solve the built graph (variant 0 tiled, 1 lockfree), set g->flow, and
 * copy the labels (1 = cannot reach the sink: the source side) into
 * mask (width * height bytes). */
gcut_status gcut__seg_gpu_solve(gcut__seg_gpu *sg, int variant, uint8_t *mask,
                                int64_t *iterations);

/* Pricing on the device (color_price.h, the host's routine compiled for
 * the device): the distinct colours (colors x RGB, in colour-number order)
 * go up once, the per-colour counts of free, foreground- and
 * background-seeded pixels once per seed state, with K (the seeds'
 * terminal entries). */
gcut_status gcut__seg_gpu_price_begin(gcut__seg_gpu *sg, const uint8_t *colours,
                                      const uint32_t *n_free, const uint32_t *n_fg_seed,
                                      const uint32_t *n_bg_seed, int32_t hard_cap);

/* Price every colour under fg and bg (host models; a histogram's table
 * goes up with it, a GMM's parameters travel as kernel arguments), write
 * the terminal table on the device (for gcut__seg_gpu_build(sg, NULL)) and
 * give the energy's scaled constant part, the host's numbers bit for bit. */
gcut_status gcut__seg_gpu_price(gcut__seg_gpu *sg, const gcut__price_model *fg,
                                const gcut__price_model *bg, int64_t *constant);

/* The terminal table priced last (colors + 2 entries) into host memory. */
gcut_status gcut__seg_gpu_tcap_to_host(gcut__seg_gpu *sg, int32_t *tcap);

/* The device's pricing on its own, for the checks and the bench: price
 * `count` colours under fg and bg on the context's GPU, with the given
 * counts (n_fg_seed, n_bg_seed may be NULL: none) and K, and bring back the
 * prices, the terminal table (count + 2 entries) and the constant;
 * *kernel_ms: the pricing on the device (CUDA events), transfers apart. */
gcut_status gcut__seg_gpu_price_check(gcut_context *ctx, const uint8_t *colours, int64_t count,
                                      const gcut__price_model *fg, const gcut__price_model *bg,
                                      const uint32_t *n_free, const uint32_t *n_fg_seed,
                                      const uint32_t *n_bg_seed, int32_t hard_cap,
                                      float *cost_fg, float *cost_bg, int32_t *tcap,
                                      int64_t *constant, double *kernel_ms);

/* ---- GrabCut's refits on the device, beside the graph ----
 *
 * Between two cuts the colour models are fitted again to the cut (GrabCut's
 * iteration): the fit labels (the cut's foreground that a foreground path
 * joins to a foreground seed, vision/segment.c), each side's even subsample
 * (every step-th pixel of the side in pixel order, vision/color_model.c)
 * and each refinement round's assignment of the samples to components with
 * their sums. All of it runs here on the cut's labels where the solve left
 * them; only the sides' sizes and the rounds' integer sums (a few KB) come
 * back, and the host re-estimates the models from them (color_model.c):
 * the host's models, bit for bit, so the masks are the CPU path's. */
typedef struct gcut__seg_refit gcut__seg_refit;

/* On the context's GPU: the n = width * height packed RGB pixels go up. */
gcut_status gcut__seg_refit_create(gcut_context *ctx, const uint8_t *rgb, int width, int height,
                                   int connectivity, gcut__seg_refit **out);
void gcut__seg_refit_destroy(gcut__seg_refit *r);

/* A seed state's foreground seeds (pixel numbers, `count` of them), where
 * the fit labels' flood fill starts; none: the fit labels are the cut. */
gcut_status gcut__seg_refit_seeds(gcut__seg_refit *r, const int32_t *fg_seeds, int64_t count);

/* The fit labels of a cut and each side's size: side[0] the object's
 * pixels, side[1] the rest. The cut's labels are those of g's last solve
 * when it ran on this context's GPU and the device still holds its
 * heights, else `cut` (width * height bytes, 1 = foreground) goes up. */
gcut_status gcut__seg_refit_labels(gcut__seg_refit *r, const gcut_grid *g, const uint8_t *cut,
                                   int64_t side[2]);

/* Each side's samples from the fit labels: every step[t]-th pixel of side
 * t in pixel order, ns[t] of them (vision/color_model.c's selection). */
gcut_status gcut__seg_refit_select(gcut__seg_refit *r, const int64_t step[2],
                                   const int64_t ns[2]);

/* One round's assignment of the selected samples (gcut__gmm_assign_fn). */
gcut_status gcut__seg_refit_assign(gcut__seg_refit *r, const gcut__price_model models[2],
                                   gcut__gmm_sums sums[2][GCUT__PRICE_MAX_K]);

/* The fit labels (width * height bytes) into host memory, for the checks. */
gcut_status gcut__seg_refit_labels_to_host(gcut__seg_refit *r, uint8_t *labels);

#ifdef __cplusplus
}
#endif

#endif
