/* The stages of optical flow by assignment (gcut_flow_frames in flow.c):
 * the image pyramid, the assignment's arcs and costs, the sub-pixel
 * refinement of the matched vectors, the densification of the field and its
 * variational refinement. Internal to libgcut.
 *
 * Images are grey floats in [0, 1], row-major, width*height; flow fields are
 * u, v interleaved per pixel. Every stage writes each pixel from exactly
 * one thread and sums in a fixed order, so the result does not depend on
 * the number of threads. */
#ifndef GCUT_VISION_FLOW_INTERNAL_H
#define GCUT_VISION_FLOW_INTERNAL_H

#include <stdint.h>

#include "gcut.h"

/* A level is not made smaller than this (pixels on its shorter side). */
#define FLOW_MIN_LEVEL_SIDE 12

/* The refinement's weights, relative to brightness constancy (DIS's
 * variational refinement uses gamma = 2 delta too); the smoothness option
 * is alpha / delta in grey levels, hence the / 255 for [0, 1] images. Edge:
 * a grey step of 50 levels divides the smoothness across it by e. The CPU
 * (flow.c) and the GPU (src/gpu/flow_gpu.cu) use the same. */
#define REFINE_DELTA 1.0f
#define REFINE_GAMMA 2.0f
#define REFINE_EDGE 0.02f
#define REFINE_SOR_SWEEPS 5

/* Bilinear sample at (x, y), clamped to the image. */
static inline float gcut__flow_sample(const float *img, int w, int h, float x, float y)
{
    if (x < 0.0f)
        x = 0.0f;
    if (y < 0.0f)
        y = 0.0f;
    if (x > (float)(w - 1))
        x = (float)(w - 1);
    if (y > (float)(h - 1))
        y = (float)(h - 1);
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    const float *r0 = img + (int64_t)y0 * w, *r1 = img + (int64_t)y1 * w;
    float top = r0[x0] + fx * (r0[x1] - r0[x0]);
    float bottom = r1[x0] + fx * (r1[x1] - r1[x0]);
    return top + fy * (bottom - top);
}

/* ---- flow_pyramid.c ---------------------------------------------------- */

/* Luminance of 8-bit pixels (1-4 channels; alpha ignored), scaled to [0, 1]. */
void gcut__flow_grey(const uint8_t *pixels, int w, int h, int channels, size_t stride,
                     float *grey);

/* Blur with the binomial kernel [1 4 6 4 1]/16 (separable), edges clamped. */
void gcut__flow_blur5(const float *src, int w, int h, float *tmp, float *dst, int threads);

/* Half size: blur and take every second sample; the result is
 * (w + 1) / 2 x (h + 1) / 2. `tmp` holds w*h floats. */
void gcut__flow_downsample(const float *src, int w, int h, float *tmp, float *dst, int threads);

/* Bilinear upsampling of a coarse flow to wf x hf (pixel centres aligned),
 * the vectors scaled by the size ratio. */
void gcut__flow_upsample(const float *coarse, int wc, int hc, float *fine, int wf, int hf,
                         int threads);

/* Central-difference gradients (one-sided at the edges). */
void gcut__flow_gradient(const float *img, int w, int h, float *gx, float *gy, int threads);

/* ---- flow_match.c ------------------------------------------------------ */

/* The assignment of one pyramid level: rows are the pixels of frame 0,
 * columns the pixels of frame 1 followed by one occlusion dummy per row. */
typedef struct gcut__flow_arcs {
    int32_t rows, cols;
    int64_t *row_ptr; /* rows + 1 */
    int32_t *col;     /* row_ptr[rows] */
    int32_t *cost;
} gcut__flow_arcs;

/* Census signatures over patch x patch (patch odd, 3..7): bit k set when
 * the k-th neighbour (row-major, centre skipped) is darker than the centre. */
void gcut__flow_census(const float *img, int w, int h, int patch, uint64_t *sig, int threads);

/* The arcs and costs of one level. Row p = (x, y) may take the frame-1
 * pixels within `radius` (Chebyshev) of p + round(prior_p), at the patch
 * dissimilarity plus `motion_penalty` per pixel of |d|_1 away from that
 * centre, or its own dummy at `occlusion_cost`. prior may be NULL (zero).
 * sig0/sig1: census signatures (GCUT_FLOW_CENSUS), else unused. */
gcut_status gcut__flow_arcs_build(gcut_context *ctx, const float *i0, const float *i1,
                                  const uint64_t *sig0, const uint64_t *sig1, int w, int h,
                                  const float *prior, const gcut_flow_options *opt, int threads,
                                  gcut__flow_arcs *arcs);

void gcut__flow_arcs_free(gcut__flow_arcs *arcs);

/* The vectors of an assignment: flow[2p], flow[2p+1] the integer motion of
 * each matched pixel; matched[p] = 0 for a pixel on its dummy, else 1.
 * Returns the number of pixels on their dummy. */
int64_t gcut__flow_from_assignment(const int32_t *row_to_col, int w, int h, float *flow,
                                   uint8_t *matched);

/* Sub-pixel refinement of the matched vectors by inverse-compositional
 * Lucas-Kanade on a patch x patch window (a few Gauss-Newton steps, kept
 * within one pixel of the integer match). residual[p] gets the patch's mean
 * absolute difference after the refinement (a confidence). gx, gy: frame
 * 0's gradients. */
void gcut__flow_subpixel(const float *i0, const float *i1, const float *gx, const float *gy,
                         int w, int h, int patch, const uint8_t *matched, float *flow,
                         float *residual, int threads);

/* ---- flow_densify.c ---------------------------------------------------- */

/* A dense field from the matched vectors: each pixel takes the average of
 * the matched vectors in its 5 x 5 window, weighted by grey similarity to
 * the pixel (edge-aware) and by the vectors' confidence; a pixel with no
 * matched vector near keeps `prior` (or zero). out: 2*w*h. */
void gcut__flow_densify(const float *i0, int w, int h, const float *flow,
                        const uint8_t *matched, const float *residual, const float *prior,
                        float *out, int threads);

/* ---- flow_median.c ----------------------------------------------------- */

/* Each component of `in` replaced by its median over a 5 x 5 window
 * (clipped at the border). out: 2*w*h, not `in`. */
void gcut__flow_median(const float *in, int w, int h, float *out, int threads);

/* ---- flow_variational.c ------------------------------------------------- */

typedef struct gcut__flow_refine_params {
    int iterations;     /* fixed-point iterations (each re-warps frame 1) */
    int sor_sweeps;     /* red-black SOR sweeps per fixed-point iteration */
    float alpha;        /* smoothness weight */
    float gamma;        /* gradient-constancy weight */
    float delta;        /* brightness-constancy weight */
    float edge;         /* edge-aware smoothness: weight exp(-edge * |grad I0|) */
} gcut__flow_refine_params;

/* Minimise, from the given flow, a robust (Charbonnier) energy of
 * brightness and gradient constancy plus an edge-aware robust smoothness
 * term, by fixed-point iterations of the linearised Euler-Lagrange
 * equations solved with red-black SOR (Brox et al. 2004). `occluded`
 * (optional) pixels get a tenth of the data weight. */
gcut_status gcut__flow_refine(gcut_context *ctx, const float *i0, const float *i1, int w, int h,
                              const uint8_t *occluded, const gcut__flow_refine_params *p,
                              float *flow, int threads);

#endif
