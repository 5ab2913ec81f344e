/* The GPU kernels of optical flow by assignment, as the host side
 * (src/gpu/flow_gpu.cu) sees them: one C-linkage launcher per kernel, each
 * enqueued on `stream` and returning the launch's error (no synchronising).
 * Every kernel does what the CPU stage of the same name in src/vision/flow_*.c
 * does, pixel for pixel (images grey floats in [0, 1], row-major; flow u, v
 * interleaved), so the two paths differ only by float rounding and by which
 * of several optimal assignments each solver finds.
 *
 * The windowed assignment (flow_assign.cu) is a forward/reverse auction with
 * eps-scaling, exact, whose prices are an LP proof (see that file); its
 * chains are carried by whole warps. */
#ifndef GCUT_FLOW_KERNELS_H
#define GCUT_FLOW_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- flow_image.cu ---------------------------------------------------- */

/* Luminance of 8-bit pixels (1-4 channels, rows `stride` bytes apart). */
cudaError_t gcut__flow_grey_launch(const uint8_t *pixels, int w, int h, int channels,
                                   size_t stride, float *grey, cudaStream_t stream);
/* Blur [1 4 6 4 1]/16 and keep every second sample: (w+1)/2 x (h+1)/2.
 * tmp: w*h floats. */
cudaError_t gcut__flow_downsample_launch(const float *src, int w, int h, float *tmp,
                                         float *dst, cudaStream_t stream);
/* Census signatures over patch x patch. */
cudaError_t gcut__flow_census_launch(const float *img, int w, int h, int patch, uint64_t *sig,
                                     cudaStream_t stream);
/* Central-difference gradients (one-sided at the edges). */
cudaError_t gcut__flow_gradient_launch(const float *img, int w, int h, float *gx, float *gy,
                                       cudaStream_t stream);
/* Bilinear upsampling of a wc x hc flow to wf x hf, vectors scaled. */
cudaError_t gcut__flow_upsample_launch(const float *coarse, int wc, int hc, float *fine,
                                       int wf, int hf, cudaStream_t stream);
/* Inverse-compositional Lucas-Kanade on the matched vectors. */
cudaError_t gcut__flow_subpixel_launch(const float *i0, const float *i1, const float *gx,
                                       const float *gy, int w, int h, int patch,
                                       const uint8_t *matched, float *flow, float *residual,
                                       cudaStream_t stream);
/* Edge-aware, confidence-weighted densification; prior may be NULL. */
cudaError_t gcut__flow_densify_launch(const float *i0, int w, int h, const float *flow,
                                      const uint8_t *matched, const float *residual,
                                      const float *prior, float *out, cudaStream_t stream);
/* 5 x 5 median of each component. out != in. */
cudaError_t gcut__flow_median_launch(const float *in, int w, int h, float *out,
                                     cudaStream_t stream);

/* ---- flow_refine.cu --------------------------------------------------- */

/* The refinement's constants (src/vision/flow_variational.c's). */
typedef struct gcut__flow_drefine {
    float alpha, gamma, delta, edge;
    int iterations, sor_sweeps;
} gcut__flow_drefine;

/* Number of w*h float planes the refinement needs as scratch. */
int gcut__flow_refine_planes(void);

/* The variational refinement of `flow` in place; occluded may be NULL;
 * planes: gcut__flow_refine_planes() * w * h floats. */
cudaError_t gcut__flow_refine_launch(const float *i0, const float *i1, int w, int h,
                                     const uint8_t *occluded, const gcut__flow_drefine *p,
                                     float *flow, float *planes, cudaStream_t stream);

/* ---- flow_assign.cu --------------------------------------------------- */

/* One level's windowed assignment on the device: rows 0..n-1 are the pixels
 * of frame 0; objects 0..n-1 the pixels of frame 1, n..2n-1 the rows'
 * occlusion dummies (object n + p is row p's alone). */
typedef struct gcut__flow_dassign {
    int w, h, n;
    int radius, patch, sad, occlusion_cost, motion_penalty;
    int32_t *row_ptr;     /* n + 1 */
    int32_t *arc_col;     /* arcs: window arcs and the dummy, row by row */
    int32_t *arc_cost;    /* arcs, unscaled */
    int32_t *count;       /* n + 1: arcs a row, then the scan's input */
    int32_t *t_row;       /* 2 n (2R+1)^2: pixel object q's rows (the transpose):
                           * the first (2R+1)^2 at q (2R+1)^2 (-1 after the last),
                           * any more (a prior can crowd windows) at
                           * n (2R+1)^2 + t_over[q] */
    int32_t *t_cost;      /* as t_row: the cost of each transpose entry's arc */
    int32_t *t_over;      /* n + 1: the scan of the entries past (2R+1)^2 */
    int32_t *tcount;      /* n + 1: each pixel's rows, then those past (2R+1)^2 */
    int32_t *fill;        /* n: the transpose's fill positions */
    int4 *row_win;        /* n: each row's first arc, its window's left and top, and
                           * width | height << 16 (an arc's column without a load) */
    unsigned long long *object;   /* 2n: price << id_bits | (owner + 1) */
    unsigned long long *row_word; /* n: in the reverse steps, the row's value (scale
                                   * cost + price of what it holds) << GCUT_FLOW_LOCAL_BITS
                                   * | its arc's index within the row; before them, only the
                                   * index (GCUT_FLOW_LOCAL_FREE: the row holds nothing) */
    long long *scalars;   /* GCUT_FLOW_SCALARS, device */
    long long *dist;      /* 2n: the settled prices (shortest paths to the free objects) */
    long long *settle_flags; /* GCUT_FLOW_SETTLE_FLAGS: each sweep's change, and failure */
    long long *phase_stats; /* NULL, or GCUT_FLOW_STAT_PHASES x GCUT_FLOW_STATS (bench only) */
    void *scan_temp;      /* CUB's scratch */
    size_t scan_temp_bytes;
} gcut__flow_dassign;

/* The scalars a level leaves on the device (read back with one copy). */
enum {
    GCUT_FLOW_S_ARCS = 0,   /* arcs of the level's problem */
    GCUT_FLOW_S_OVERFLOW,   /* 1 when a price passed the packing's limit */
    GCUT_FLOW_S_STALLED,    /* 1 when a thread reached its step cap */
    GCUT_FLOW_S_UNOWNED,    /* rows and objects whose words disagree after the solve */
    GCUT_FLOW_S_GAP_OVER,   /* 1 when the duality gap reached the scale */
    GCUT_FLOW_S_GAP,        /* the duality gap, units of 1/scale */
    GCUT_FLOW_S_COST,       /* the assignment's cost */
    GCUT_FLOW_S_OCCLUDED,   /* rows on their dummy */
    GCUT_FLOW_S_ROW_ARCS,   /* arcs of the rows (the same as ARCS) */
    GCUT_FLOW_S_DONE,       /* 1 once a phase's proof holds: the phases left do nothing */
    GCUT_FLOW_S_PHASES,     /* eps phases run */
    GCUT_FLOW_SCALARS
};

/* The settle's launches (flow_assign.cu: Bellman-Ford sweeps of the
 * prices that prove an assignment optimal) and its flags: one a launch,
 * then one for a failure. */
#define GCUT_FLOW_SETTLE_LAUNCHES 32
#define GCUT_FLOW_SETTLE_FLAGS (GCUT_FLOW_SETTLE_LAUNCHES + 2)

/* Per-phase statistics of the auction, recorded only where phase_stats is
 * set (a bench's diagnosis: where a phase's time goes); times are the
 * device's global timer in ns. */
enum {
    GCUT_FLOW_ST_START = 0, /* the phase begins */
    GCUT_FLOW_ST_FORWARD,   /* the forward auction ended */
    GCUT_FLOW_ST_REVERSE,   /* the reverse steps ended */
    GCUT_FLOW_ST_PROOF,     /* the proof's sums done */
    GCUT_FLOW_ST_FWD_CHAIN, /* the longest forward chain (counted from 8 steps) */
    GCUT_FLOW_ST_REV_CHAIN, /* the longest reverse chain (likewise) */
    GCUT_FLOW_ST_EPS,       /* the phase's eps */
    GCUT_FLOW_ST_SKIPPED,   /* 1 when the proof held before it (it did nothing) */
    GCUT_FLOW_ST_TIGHTEN,   /* the tightening after it ended (0: none) */
    GCUT_FLOW_STATS
};
#define GCUT_FLOW_STAT_PHASES 64

/* A row word's arc index bits: a row has at most 33^2 + 1 arcs (radius 16). */
#define GCUT_FLOW_LOCAL_BITS 11
#define GCUT_FLOW_LOCAL_FREE ((1 << GCUT_FLOW_LOCAL_BITS) - 1)

/* Bytes CUB's scan needs for n + 1 entries. */
cudaError_t gcut__flow_assign_scan_bytes(int n, size_t *bytes);

/* Count each row's arcs (the window around p + round(prior) that lies in
 * frame 1, plus the dummy) and each pixel's rows, then the exclusive scans
 * into row_ptr and t_over; the total lands in the scalars. The arc arrays
 * must hold n ((2R+1)^2 + 1), the transpose's 2 n (2R+1)^2. */
cudaError_t gcut__flow_assign_count_launch(gcut__flow_dassign *a, const float *prior,
                                           cudaStream_t stream);
/* Write the arcs and costs (census signatures or grey frames) and the
 * transpose. */
cudaError_t gcut__flow_assign_fill_launch(gcut__flow_dassign *a, const float *i0,
                                          const float *i1, const uint64_t *sig0,
                                          const uint64_t *sig1, const float *prior,
                                          cudaStream_t stream);
/* The forward/reverse auction with eps-scaling (costs scaled by 3n + 1),
 * its proof checked on the device after every phase until it holds (at
 * eps = 1 at the latest): scalars UNOWNED, GAP, GAP_OVER, COST, PHASES (and
 * OVERFLOW, STALLED from the auction). maxcost: a bound on the arc costs
 * (eps starts at most at scale * maxcost / alpha^2); prices settled (when
 * settle is non-zero) and tightened after each phase from the
 * tighten_from-th on; *phases gets the number of eps phases enqueued
 * (PHASES: those run). */
cudaError_t gcut__flow_assign_solve_launch(gcut__flow_dassign *a, long long maxcost, int alpha,
                                           int tighten_from, int settle, int *phases,
                                           cudaStream_t stream);
/* The rows' vectors: flow (integer motions, 0 on a dummy), matched flags
 * and their negation (occluded). */
cudaError_t gcut__flow_assign_vectors_launch(const gcut__flow_dassign *a, float *flow,
                                             uint8_t *matched, uint8_t *occluded,
                                             cudaStream_t stream);
/* The assignment (row_to_col: n, the CPU's columns) and its proof in
 * gcut_assign_verify's form (prices: 3n, u of the rows, then v = -price of
 * the 2n objects). */
cudaError_t gcut__flow_assign_prices_launch(const gcut__flow_dassign *a, long long *prices,
                                            int32_t *row_to_col, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
