/* Colour models of the segmentation energy: GrabCut's Gaussian mixtures and
 * Boykov-Jolly's smoothed histograms, over packed 8-bit RGB. Internal. */
#ifndef GCUT_VISION_COLOR_MODEL_H
#define GCUT_VISION_COLOR_MODEL_H

#include <stdint.h>

#include "core/context.h"
#include "gcut.h"
#include "vision/color_price.h"

#define GCUT__GMM_MAX_K GCUT__PRICE_MAX_K
#define GCUT__HIST_BITS GCUT__PRICE_HIST_BITS /* 32 bins per channel */
#define GCUT__HIST_BINS (1 << (3 * GCUT__HIST_BITS))

typedef struct gcut__color_model {
    gcut_color_model kind;
    /* GMM: k components; a component with weight 0 is unused. */
    int k;
    double weight[GCUT__GMM_MAX_K];
    double mean[GCUT__GMM_MAX_K][3];
    double inv_cov[GCUT__GMM_MAX_K][6]; /* symmetric: xx xy xz yy yz zz */
    double log_norm[GCUT__GMM_MAX_K];   /* -log weight + log det / 2 + 3 log(2 pi) / 2 */
    int fitted;
    int threads; /* CPU threads of a fit (0: one per online CPU); the fit is the same for any */
    /* Histogram: -log P(bin), filled by the fit. */
    float *neg_log;
} gcut__color_model;

/* Fit `m` to the pixels i with label[i] == want (rgb: 3 bytes per pixel, n
 * pixels). A GMM that was fitted before is refined from where it is
 * (GrabCut's re-estimation); a new one starts by Orchard-Bouman splitting. */
gcut_status gcut__color_model_fit(gcut_context *ctx, gcut__color_model *m, const uint8_t *rgb,
                                  const uint8_t *label, uint8_t want, int64_t n);

/* The fit's even subsample of the pixels with label[i] == want: every
 * step-th of them in pixel order (step = gcut__color_model_sample_step of
 * their count), as floats, 3 per sample, into *samples (the caller frees
 * it). GCUT_E_INVALID when there are none. */
gcut_status gcut__color_model_samples(gcut_context *ctx, const gcut__color_model *m,
                                      const uint8_t *rgb, const uint8_t *label, uint8_t want,
                                      int64_t n, float **samples, int64_t *count);
int64_t gcut__color_model_sample_step(int64_t count);

/* Fit a GMM to ns samples (3 floats each), as gcut__color_model_fit does
 * after taking them. */
gcut_status gcut__color_model_fit_samples(gcut_context *ctx, gcut__color_model *m,
                                          const float *x, int64_t ns);

/* Both sides' samples in one pass over the labels: x[0], ns[0] of label 1,
 * x[1], ns[1] of label 0 (as gcut__color_model_samples would give them). */
gcut_status gcut__color_model_samples_pair(gcut_context *ctx, int threads, const uint8_t *rgb,
                                           const uint8_t *label, int64_t n, float *x[2],
                                           int64_t ns[2]);

/* Fit fg to the pixels with label 1 and bg to those with label 0 (others
 * are neither), as two gcut__color_model_fit calls would, with one pass
 * over the labels for both GMMs' samples. */
gcut_status gcut__color_model_fit_pair(gcut_context *ctx, gcut__color_model *fg,
                                       gcut__color_model *bg, const uint8_t *rgb,
                                       const uint8_t *label, int64_t n);

/* GrabCut's assignment step (step 1) of a refinement round, done where the
 * samples are (a GPU beside the graph): each sample of side t (0: the
 * foreground model's, 1: the background's) goes to its cheapest component
 * under models[t] (gcut__price_best; the model's component index[u], 0 when
 * none is used), whose sums[t][component] it is added to. The sums come
 * zeroed. */
typedef gcut_status (*gcut__gmm_assign_fn)(void *arg, const gcut__price_model models[2],
                                           gcut__gmm_sums sums[2][GCUT__GMM_MAX_K]);

/* The refinement rounds of a fitted GMM pair on ns[0] foreground and ns[1]
 * background samples, each round's assignment by `assign`, the
 * re-estimation here: the models gcut__color_model_fit_pair gives a fitted
 * pair on the same samples, bit for bit. */
gcut_status gcut__color_model_refine_pair(gcut__color_model *fg, gcut__color_model *bg,
                                          const int64_t ns[2], gcut__gmm_assign_fn assign,
                                          void *arg);

/* cost[i] = -log P(rgb_i | m), for i in [0, n). For a GMM, the cost of the
 * best component (GrabCut's energy minimises over the component too). */
void gcut__color_model_cost(const gcut__color_model *m, const uint8_t *rgb, int64_t n,
                            float *cost);

/* The model as the pricing (color_price.h) reads it; a histogram's table
 * stays m's. */
void gcut__price_model_from(const gcut__color_model *m, gcut__price_model *p);

void gcut__color_model_free(gcut__color_model *m);

#endif
