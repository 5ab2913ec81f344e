/* The price of a colour under a colour model, and a colour's terminal
 * capacity and energy constant from its two prices: written once, compiled
 * for the host (vision/color_model.c, vision/segment.c) and for the device
 * (gpu/segment_gpu.cu), so that both compute the same bits.
 *
 * Why the same bits: the GPU segmentation must give the CPU's mask byte for
 * byte, and a price one ulp apart can round a terminal capacity the other
 * way. Every float and double operation is therefore a single IEEE
 * operation, rounded to nearest: on the device through the explicit
 * __fmul_rn / __fadd_rn intrinsics (which nvcc never fuses into an FMA), on
 * the host as plain C in ISO mode, where GCC does not contract a * b + c
 * either (-ffp-contract=off is also set for the files that include this).
 * No library function whose result could differ between the two is used:
 * only +, -, *, comparisons and lround (exact by definition). The energy's
 * constant part is summed in integers (scaled, rounded costs), so that any
 * order of summation, a GPU's atomics included, gives the same total.
 * Internal to libgcut. */
#ifndef GCUT_VISION_COLOR_PRICE_H
#define GCUT_VISION_COLOR_PRICE_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "gcut.h"

#ifdef __CUDACC__
#define GCUT__PRICE_FN static __host__ __device__ __forceinline__
#else
#define GCUT__PRICE_FN static inline
#endif

#define GCUT__PRICE_MAX_K 32
/* Bits per channel of a histogram bin (32 bins per channel). */
#define GCUT__PRICE_HIST_BITS 5
/* A price above this many nats counts as this many in the energy's constant
 * (far above any real one): the scaled costs times the pixel count stay
 * inside int64 for any image up to GCUT_IMAGE_MAX_PIXELS. */
#define GCUT__PRICE_CONSTANT_CAP 1048576.0

/* A colour model as the pricing reads it: the used components of a GMM in
 * float, or a histogram's -log P per bin (neg_log, on the side that prices:
 * a host or a device pointer). */
typedef struct gcut__price_model {
    int hist; /* 1: histogram, 0: GMM */
    int used; /* GMM components in use */
    const float *neg_log;
    float mean[GCUT__PRICE_MAX_K][3];
    float iv[GCUT__PRICE_MAX_K][6]; /* inverse covariance: xx xy xz yy yz zz */
    float norm[GCUT__PRICE_MAX_K];  /* -log weight + log det / 2 + 3 log(2 pi) / 2 */
    int index[GCUT__PRICE_MAX_K];   /* the model's component of each entry */
} gcut__price_model;

/* One GMM component's hard-assigned samples as integer sums: how many, the
 * sum of each channel and of each product of two channels (xx xy xz yy yz
 * zz). Every term is an 8-bit level or a product of two (< 2^16), so the
 * sums are exact in any order: a device's atomics give the host's numbers,
 * and as doubles (< 2^53) they are the host's double sums bit for bit. */
typedef struct gcut__gmm_sums {
    int64_t count, sum[3], sq[6];
} gcut__gmm_sums;

GCUT__PRICE_FN float gcut__price_fmul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

GCUT__PRICE_FN float gcut__price_fadd(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

GCUT__PRICE_FN float gcut__price_fsub(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

GCUT__PRICE_FN double gcut__price_dmul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

GCUT__PRICE_FN double gcut__price_dsub(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

GCUT__PRICE_FN int gcut__price_hist_bin(int r, int g, int b)
{
    const int s = 8 - GCUT__PRICE_HIST_BITS;
    return ((r >> s) << (2 * GCUT__PRICE_HIST_BITS)) | ((g >> s) << GCUT__PRICE_HIST_BITS) |
           (b >> s);
}

/* The cheapest GMM component for colour x: its entry (-1 when none is
 * used), and its cost -log (weight N(x)) in *cost (FLT_MAX when none):
 * norm + q / 2 with q = d' iv d, summed in a fixed order. */
GCUT__PRICE_FN int gcut__price_best(const gcut__price_model *m, float x0, float x1, float x2,
                                    float *cost)
{
    int best = -1;
    float best_cost = FLT_MAX;
    for (int u = 0; u < m->used; u++) {
        const float d0 = gcut__price_fsub(x0, m->mean[u][0]);
        const float d1 = gcut__price_fsub(x1, m->mean[u][1]);
        const float d2 = gcut__price_fsub(x2, m->mean[u][2]);
        const float *v = m->iv[u];
        float diag = gcut__price_fmul(gcut__price_fmul(v[0], d0), d0);
        diag = gcut__price_fadd(diag, gcut__price_fmul(gcut__price_fmul(v[3], d1), d1));
        diag = gcut__price_fadd(diag, gcut__price_fmul(gcut__price_fmul(v[5], d2), d2));
        float off = gcut__price_fmul(gcut__price_fmul(v[1], d0), d1);
        off = gcut__price_fadd(off, gcut__price_fmul(gcut__price_fmul(v[2], d0), d2));
        off = gcut__price_fadd(off, gcut__price_fmul(gcut__price_fmul(v[4], d1), d2));
        const float q = gcut__price_fadd(diag, gcut__price_fmul(2.0f, off));
        const float c = gcut__price_fadd(m->norm[u], gcut__price_fmul(0.5f, q));
        if (c < best_cost) {
            best_cost = c;
            best = u;
        }
    }
    *cost = best_cost;
    return best;
}

/* -log P(rgb | m): a GMM's cheapest component (GrabCut's energy minimises
 * over the component too), or the histogram's bin. */
GCUT__PRICE_FN float gcut__price_colour(const gcut__price_model *m, const uint8_t *rgb)
{
    if (m->hist)
        return m->neg_log[gcut__price_hist_bin(rgb[0], rgb[1], rgb[2])];
    float cost;
    gcut__price_best(m, (float)rgb[0], (float)rgb[1], (float)rgb[2], &cost);
    return cost;
}

/* A cost in the energy's constant: scaled and rounded, in [0, cap]. */
GCUT__PRICE_FN int64_t gcut__price_scaled(float cost)
{
    const double c = (double)cost;
    const double capped = c >= 0 ? (c < GCUT__PRICE_CONSTANT_CAP ? c : GCUT__PRICE_CONSTANT_CAP)
                                 : (c < 0 ? 0.0 : GCUT__PRICE_CONSTANT_CAP); /* NaN: the cap */
    return (int64_t)llround(gcut__price_dmul(capped, GCUT_SEGMENT_SCALE));
}

/* A colour's terminal capacity for a free pixel (> 0: to the source, the
 * background label's cost above the foreground's; < 0: to the sink), the
 * difference clamped to GCUT_SEGMENT_MAX_REGION nats; and the colour's part
 * of the energy's constant (scaled): its free pixels' cost under the label
 * the terminal favours, its seeded pixels' cost under their label. */
GCUT__PRICE_FN int64_t gcut__price_terminal(float cost_fg, float cost_bg, uint32_t n_free,
                                            uint32_t n_fg_seed, uint32_t n_bg_seed,
                                            int32_t *tcap)
{
    const double max_scaled = GCUT_SEGMENT_MAX_REGION * GCUT_SEGMENT_SCALE;
    double diff = gcut__price_dmul(gcut__price_dsub((double)cost_bg, (double)cost_fg),
                                   GCUT_SEGMENT_SCALE);
    if (diff > max_scaled)
        diff = max_scaled;
    if (diff < -max_scaled)
        diff = -max_scaled;
    const int32_t c = (int32_t)llround(fabs(diff));
    *tcap = diff > 0 ? c : -c;
    const int64_t fg = gcut__price_scaled(cost_fg), bg = gcut__price_scaled(cost_bg);
    return (int64_t)n_free * (diff > 0 ? fg : bg) + (int64_t)n_fg_seed * fg +
           (int64_t)n_bg_seed * bg;
}

#endif
