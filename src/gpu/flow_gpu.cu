/* Host side of the GPU flow: the frames uploaded once, every stage of
 * gcut_flow_frames enqueued on the context's stream (grid_kernels/flow_*.cu),
 * the flow and a few scalars per level (the assignment's proof, counts)
 * downloaded once at the end. One device block holds every buffer, carved
 * in 256-byte aligned pieces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "flow_kernels.h"
#include "gpu/flow_gpu.h"
#include "gpu/gpu_state.h"

extern "C" {
#include "vision/flow_internal.h"
}

/* eps is divided by this between auction phases (Goldberg-Kennedy's and
 * Lupinska's alpha is 10; the asynchronous auction's work per phase grows
 * with it, its phases shrink with it). RubberWhale, emulated (EMU_TRACE=1),
 * bids and reverse steps / the phases' longest chains summed, eps starting
 * at the cost bound over alpha: alpha 4 6.9 M / 39 k, 8 5.1 M / 49 k, 16
 * 4.1 M / 64 k, 32 3.9 M / 85 k. */
#ifndef AUCTION_ALPHA /* the emulation may set it */
#define AUCTION_ALPHA 8
#endif

/* Prices are tightened after each phase from a level's this-th on
 * (grid_kernels/flow_assign.cu). From the first instead: on an H100, slower
 * on RubberWhale (43.1 against 36.7 ms), Dimetrodon and the 640x480 pair,
 * faster on Venus (bench/results/flow_h100.md). */
#ifndef AUCTION_TIGHTEN_FROM /* the emulation may set it */
#define AUCTION_TIGHTEN_FROM 2
#endif

/* The device buffers of one call, sized for the finest level. */
typedef struct flow_dev {
    void *block;
    uint8_t *raw[2];
    float *pyramid; /* level l: i0 at offset[l], i1 at offset[l] + w_l h_l */
    float *tmp, *prior, *level_flow, *match_flow, *residual, *gx, *gy, *planes;
    uint64_t *sig[2];
    uint8_t *matched, *occluded;
    gcut__flow_dassign a;
    long long *scalars; /* GCUT_FLOW_SCALARS a level */
    long long *stats;   /* GCUT_FLOW_STAT_PHASES x GCUT_FLOW_STATS a level */
} flow_dev;

/* Carves aligned pieces out of one allocation; a first pass (base NULL)
 * only adds the sizes up. */
typedef struct carver {
    char *base;
    size_t used;
} carver;

static void *carve(carver *c, size_t bytes)
{
    void *p = c->base ? c->base + c->used : NULL;
    c->used += (bytes + 255) & ~(size_t)255;
    return p;
}

/* The most arcs of a level: each row its whole window and its dummy. */
static int64_t arcs_bound(int64_t n, int radius)
{
    int64_t side = 2 * (int64_t)radius + 1;
    return n * (side * side + 1);
}

/* A bound on the arc costs: the data term's largest, plus the penalty at
 * the window's corner, or the dummy's. */
static long long cost_bound(const gcut_flow_options *o)
{
    long long data = o->cost == GCUT_FLOW_SAD ? 255
                                               : (long long)GCUT_FLOW_CENSUS_BIT *
                                                     (o->patch * o->patch - 1);
    long long arc = data + (long long)o->motion_penalty * 2 * o->radius;
    return arc > o->occlusion_cost ? arc : o->occlusion_cost;
}

static void layout(carver *c, flow_dev *d, int64_t n, size_t raw_bytes, int64_t pyramid_floats,
                   int levels, int radius, size_t scan_bytes)
{
    const size_t nn = (size_t)n, arcs = (size_t)arcs_bound(n, radius);
    d->block = c->base;
    d->raw[0] = (uint8_t *)carve(c, raw_bytes);
    d->raw[1] = (uint8_t *)carve(c, raw_bytes);
    d->pyramid = (float *)carve(c, (size_t)pyramid_floats * sizeof(float));
    d->tmp = (float *)carve(c, nn * sizeof(float));
    d->prior = (float *)carve(c, 2 * nn * sizeof(float));
    d->level_flow = (float *)carve(c, 2 * nn * sizeof(float));
    d->match_flow = (float *)carve(c, 2 * nn * sizeof(float));
    d->residual = (float *)carve(c, nn * sizeof(float));
    d->gx = (float *)carve(c, nn * sizeof(float));
    d->gy = (float *)carve(c, nn * sizeof(float));
    d->planes = (float *)carve(c, (size_t)gcut__flow_refine_planes() * nn * sizeof(float));
    d->sig[0] = (uint64_t *)carve(c, nn * sizeof(uint64_t));
    d->sig[1] = (uint64_t *)carve(c, nn * sizeof(uint64_t));
    d->matched = (uint8_t *)carve(c, nn);
    d->occluded = (uint8_t *)carve(c, nn);
    d->a.row_ptr = (int32_t *)carve(c, (nn + 1) * sizeof(int32_t));
    d->a.count = (int32_t *)carve(c, (nn + 1) * sizeof(int32_t));
    d->a.t_over = (int32_t *)carve(c, (nn + 1) * sizeof(int32_t));
    d->a.tcount = (int32_t *)carve(c, (nn + 1) * sizeof(int32_t));
    d->a.fill = (int32_t *)carve(c, nn * sizeof(int32_t));
    d->a.row_win = (int4 *)carve(c, nn * sizeof(int4));
    d->a.arc_col = (int32_t *)carve(c, arcs * sizeof(int32_t));
    d->a.arc_cost = (int32_t *)carve(c, arcs * sizeof(int32_t));
    d->a.t_cost = (int32_t *)carve(c, 2 * arcs * sizeof(int32_t));
    d->a.t_row = (int32_t *)carve(c, 2 * arcs * sizeof(int32_t));
    d->a.object = (unsigned long long *)carve(c, 2 * nn * sizeof(unsigned long long));
    d->a.row_word = (unsigned long long *)carve(c, nn * sizeof(unsigned long long));
    d->a.dist = (long long *)carve(c, 2 * nn * sizeof(long long));
    d->a.settle_flags = (long long *)carve(c, GCUT_FLOW_SETTLE_FLAGS * sizeof(long long));
    d->a.scan_temp = carve(c, scan_bytes);
    d->a.scan_temp_bytes = scan_bytes;
    d->scalars = (long long *)carve(c, (size_t)levels * GCUT_FLOW_SCALARS * sizeof(long long));
    d->stats = (long long *)carve(c, (size_t)levels * GCUT_FLOW_STAT_PHASES * GCUT_FLOW_STATS *
                                         sizeof(long long));
}

/* Allocate the block for n pixels (the finest level) and lay it out. */
static gcut_status dev_alloc(gcut_context *ctx, flow_dev *d, int64_t n, size_t raw_bytes,
                             int64_t pyramid_floats, int levels, const gcut_flow_options *o)
{
    gcut_status st = GCUT_OK;
    memset(d, 0, sizeof *d);
    if (arcs_bound(n, o->radius) > INT32_MAX)
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "flow: %lld pixels with a window of radius %d "
                          "is too many arcs for the GPU assignment's int32 offsets",
                          (long long)n, o->radius);
    size_t scan_bytes = 0;
    carver c = {NULL, 0};
    GPU_CHECK(ctx, gcut__flow_assign_scan_bytes((int)n, &scan_bytes));
    layout(&c, d, n, raw_bytes, pyramid_floats, levels, o->radius, scan_bytes);
    GPU_CHECK(ctx, cudaMalloc(&c.base, c.used));
    c.used = 0;
    layout(&c, d, n, raw_bytes, pyramid_floats, levels, o->radius, scan_bytes);
    return GCUT_OK;
fail:
    return st;
}

/* The proof of a level's assignment, as the device left it. */
static gcut_status check_level(gcut_context *ctx, const long long *sc, int level)
{
    if (sc[GCUT_FLOW_S_OVERFLOW])
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "flow: level %d: an auction price passed the "
                          "packing's limit on the GPU", level);
    if (sc[GCUT_FLOW_S_STALLED])
        return gcut__fail(ctx, GCUT_E_DEVICE, "flow: level %d: the GPU auction reached its step "
                          "cap", level);
    if (sc[GCUT_FLOW_S_UNOWNED] || sc[GCUT_FLOW_S_GAP_OVER])
        return gcut__fail(ctx, GCUT_E_VERIFY, "flow: level %d: the GPU assignment's proof fails "
                          "(%lld rows and objects disagree, duality gap %lld)", level,
                          sc[GCUT_FLOW_S_UNOWNED], sc[GCUT_FLOW_S_GAP]);
    return GCUT_OK;
}

/* A benchmark's diagnosis of the auction (bench/flow_device.sh): with
 * GCUT_FLOW_AUCTION_STATS=FILE in the environment, each phase's times and
 * longest chains on the device are appended to FILE, one line a phase;
 * nothing changes otherwise (no statistics are recorded). */
static const char *stats_path(void)
{
    return getenv("GCUT_FLOW_AUCTION_STATS");
}

/* A benchmark's variant of the auction, to compare in one process tree
 * on the device: GCUT_FLOW_AUCTION_ALPHA=A (2..64) divides eps by A
 * between phases instead of AUCTION_ALPHA. */
static int auction_alpha(void)
{
    const char *v = getenv("GCUT_FLOW_AUCTION_ALPHA");
    int alpha = v ? atoi(v) : 0;
    return alpha >= 2 && alpha <= 64 ? alpha : AUCTION_ALPHA;
}

/* A benchmark's variant: GCUT_FLOW_AUCTION_SETTLE=0 leaves out the settle
 * of prices after each phase (grid_kernels/flow_assign.cu), to compare
 * with and without it in one binary. */
static int auction_settle(void)
{
    const char *v = getenv("GCUT_FLOW_AUCTION_SETTLE");
    return !(v && !strcmp(v, "0"));
}

/* Enqueue one level's assignment: arcs, auction, proof. */
static cudaError_t assign_enqueue(gcut__flow_dassign *a, int w, int h, const float *i0,
                                  const float *i1, const uint64_t *sig0, const uint64_t *sig1,
                                  const float *prior, const gcut_flow_options *o,
                                  long long *scalars, cudaEvent_t matched_event, int *phases,
                                  cudaStream_t stream)
{
    a->w = w, a->h = h, a->n = w * h;
    a->radius = o->radius, a->patch = o->patch, a->sad = o->cost == GCUT_FLOW_SAD;
    a->occlusion_cost = o->occlusion_cost, a->motion_penalty = o->motion_penalty;
    a->scalars = scalars;
    cudaError_t err;
    if (a->phase_stats &&
        (err = cudaMemsetAsync(a->phase_stats, 0, GCUT_FLOW_STAT_PHASES * GCUT_FLOW_STATS *
                                                      sizeof(long long), stream)))
        return err;
    if ((err = cudaMemsetAsync(scalars, 0, GCUT_FLOW_SCALARS * sizeof *scalars, stream)) ||
        (err = gcut__flow_assign_count_launch(a, prior, stream)) ||
        (err = gcut__flow_assign_fill_launch(a, i0, i1, sig0, sig1, prior, stream)))
        return err;
    if (matched_event && (err = cudaEventRecord(matched_event, stream)))
        return err;
    return gcut__flow_assign_solve_launch(a, cost_bound(o), auction_alpha(),
                                          AUCTION_TIGHTEN_FROM, auction_settle(), phases,
                                          stream);
}

static void stats_append(const char *path, const long long *st, int level, int n, int phases)
{
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    for (int p = 0; p < phases && p < GCUT_FLOW_STAT_PHASES; p++) {
        const long long *q = st + (size_t)p * GCUT_FLOW_STATS;
        if (q[GCUT_FLOW_ST_SKIPPED])
            continue;
        fprintf(f, "level %d n %d phase %d eps %lld forward_us %.1f reverse_us %.1f "
                   "proof_us %.1f tighten_us %.1f forward_chain %lld reverse_chain %lld\n",
                level, n, p, q[GCUT_FLOW_ST_EPS],
                (q[GCUT_FLOW_ST_FORWARD] - q[GCUT_FLOW_ST_START]) / 1e3,
                (q[GCUT_FLOW_ST_REVERSE] - q[GCUT_FLOW_ST_FORWARD]) / 1e3,
                (q[GCUT_FLOW_ST_PROOF] - q[GCUT_FLOW_ST_REVERSE]) / 1e3,
                q[GCUT_FLOW_ST_TIGHTEN] ? (q[GCUT_FLOW_ST_TIGHTEN] - q[GCUT_FLOW_ST_PROOF]) / 1e3
                                        : 0.0,
                q[GCUT_FLOW_ST_FWD_CHAIN], q[GCUT_FLOW_ST_REV_CHAIN]);
    }
    fclose(f);
}

/* Level sizes by the CPU's rule (flow.c's pyramid_build). */
static int level_sizes(int w, int h, int want, int *lw, int *lh)
{
    int count = 0;
    for (int l = 0; l < want; l++) {
        int cw = l ? (lw[l - 1] + 1) / 2 : w, ch = l ? (lh[l - 1] + 1) / 2 : h;
        if (l && (cw < FLOW_MIN_LEVEL_SIDE || ch < FLOW_MIN_LEVEL_SIDE))
            break;
        lw[l] = cw, lh[l] = ch;
        count = l + 1;
    }
    return count;
}

/* Events a level records: start, arcs written, assignment solved, done. */
enum { EV_START, EV_MATCHED, EV_ASSIGNED, EV_DONE, EV_PER_LEVEL };

extern "C" gcut_status gcut__flow_gpu_frames(gcut_context *ctx, const uint8_t *frame0,
                                             const uint8_t *frame1, int width, int height,
                                             int channels, size_t stride_bytes,
                                             const gcut_flow_options *o, float *flow,
                                             gcut_flow_info *info)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    cudaStream_t stream = s->stream;
    int lw[10], lh[10], level_phases[10];
    const int levels = level_sizes(width, height, o->levels, lw, lh);
    int64_t offset[10], pyramid_floats = 0;
    for (int l = 0; l < levels; l++) {
        offset[l] = pyramid_floats;
        pyramid_floats += 2 * (int64_t)lw[l] * lh[l];
    }
    const int64_t n = (int64_t)width * height;
    const size_t raw_bytes = stride_bytes * (size_t)(height - 1) + (size_t)width * channels;
    flow_dev d;
    cudaEvent_t ev[10 * EV_PER_LEVEL + 1];
    int events = 0;
    long long *h_scalars = (long long *)malloc((size_t)levels * GCUT_FLOW_SCALARS *
                                               sizeof(long long));
    const size_t stats_count = (size_t)levels * GCUT_FLOW_STAT_PHASES * GCUT_FLOW_STATS;
    long long *h_stats = stats_path() ? (long long *)malloc(stats_count * sizeof *h_stats)
                                      : NULL;
    if (!h_scalars || (stats_path() && !h_stats)) {
        free(h_scalars);
        free(h_stats);
        return gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory");
    }
    memset(&d, 0, sizeof d);
    if ((st = dev_alloc(ctx, &d, n, raw_bytes, pyramid_floats, levels, o)))
        goto done;
    for (; events < levels * EV_PER_LEVEL + 1; events++)
        GPU_CHECK(ctx, cudaEventCreate(&ev[events]));
    GPU_CHECK(ctx, cudaEventRecord(ev[levels * EV_PER_LEVEL], stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(d.raw[0], frame0, raw_bytes, cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(d.raw[1], frame1, raw_bytes, cudaMemcpyHostToDevice, stream));
    for (int f = 0; f < 2; f++) {
        float *level0 = d.pyramid + offset[0] + (f ? n : 0);
        GPU_CHECK(ctx, gcut__flow_grey_launch(d.raw[f], width, height, channels, stride_bytes,
                                              level0, stream));
        for (int l = 1; l < levels; l++) {
            int64_t prev_n = (int64_t)lw[l - 1] * lh[l - 1], ln = (int64_t)lw[l] * lh[l];
            GPU_CHECK(ctx, gcut__flow_downsample_launch(
                               d.pyramid + offset[l - 1] + (f ? prev_n : 0), lw[l - 1],
                               lh[l - 1], d.tmp, d.pyramid + offset[l] + (f ? ln : 0), stream));
        }
    }
    {
        gcut__flow_drefine rp = {(float)(o->smoothness / 255.0), REFINE_GAMMA, REFINE_DELTA,
                                 REFINE_EDGE, o->refine_iterations, REFINE_SOR_SWEEPS};
        for (int l = levels - 1; l >= 0; l--) {
            const int w = lw[l], h = lh[l];
            const float *i0 = d.pyramid + offset[l], *i1 = i0 + (int64_t)w * h;
            cudaEvent_t *e = ev + l * EV_PER_LEVEL;
            const float *prior = NULL;
            int phases = 0;
            d.a.phase_stats = stats_path() ? d.stats + (size_t)l * GCUT_FLOW_STAT_PHASES *
                                                          GCUT_FLOW_STATS
                                           : NULL;
            level_phases[l] = 0;
            GPU_CHECK(ctx, cudaEventRecord(e[EV_START], stream));
            if (l + 1 < levels) {
                GPU_CHECK(ctx, gcut__flow_upsample_launch(d.level_flow, lw[l + 1], lh[l + 1],
                                                          d.prior, w, h, stream));
                prior = d.prior;
            }
            if (o->cost == GCUT_FLOW_CENSUS) {
                GPU_CHECK(ctx, gcut__flow_census_launch(i0, w, h, o->patch, d.sig[0], stream));
                GPU_CHECK(ctx, gcut__flow_census_launch(i1, w, h, o->patch, d.sig[1], stream));
            }
            GPU_CHECK(ctx, assign_enqueue(&d.a, w, h, i0, i1, d.sig[0], d.sig[1], prior, o,
                                          d.scalars + l * GCUT_FLOW_SCALARS, e[EV_MATCHED],
                                          &phases, stream));
            level_phases[l] = phases;
            GPU_CHECK(ctx, cudaEventRecord(e[EV_ASSIGNED], stream));
            GPU_CHECK(ctx, gcut__flow_assign_vectors_launch(&d.a, d.match_flow, d.matched,
                                                            d.occluded, stream));
            GPU_CHECK(ctx, gcut__flow_gradient_launch(i0, w, h, d.gx, d.gy, stream));
            GPU_CHECK(ctx, gcut__flow_subpixel_launch(i0, i1, d.gx, d.gy, w, h, o->patch,
                                                      d.matched, d.match_flow, d.residual,
                                                      stream));
            GPU_CHECK(ctx, gcut__flow_densify_launch(i0, w, h, d.match_flow, d.matched,
                                                     d.residual, prior, d.level_flow, stream));
            GPU_CHECK(ctx, gcut__flow_refine_launch(i0, i1, w, h, d.occluded, &rp, d.level_flow,
                                                    d.planes, stream));
            /* Outliers out before the next level starts from this one. */
            GPU_CHECK(ctx, gcut__flow_median_launch(d.level_flow, w, h, d.match_flow, stream));
            GPU_CHECK(ctx, cudaMemcpyAsync(d.level_flow, d.match_flow,
                                           2 * (size_t)w * h * sizeof(float),
                                           cudaMemcpyDeviceToDevice, stream));
            GPU_CHECK(ctx, cudaEventRecord(e[EV_DONE], stream));
        }
    }
    GPU_CHECK(ctx, cudaMemcpyAsync(flow, d.level_flow, 2 * (size_t)n * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(h_scalars, d.scalars,
                                   (size_t)levels * GCUT_FLOW_SCALARS * sizeof(long long),
                                   cudaMemcpyDeviceToHost, stream));
    if (h_stats)
        GPU_CHECK(ctx, cudaMemcpyAsync(h_stats, d.stats, stats_count * sizeof *h_stats,
                                       cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    for (int l = levels - 1; h_stats && l >= 0; l--)
        stats_append(stats_path(), h_stats + (size_t)l * GCUT_FLOW_STAT_PHASES * GCUT_FLOW_STATS,
                     l, lw[l] * lh[l], level_phases[l]);
    for (int l = levels - 1; l >= 0 && !st; l--) {
        const long long *sc = h_scalars + l * GCUT_FLOW_SCALARS;
        const cudaEvent_t *e = ev + l * EV_PER_LEVEL;
        float match_ms = 0, assign_ms = 0, refine_ms = 0;
        st = check_level(ctx, sc, l);
        GPU_CHECK(ctx, cudaEventElapsedTime(&match_ms, e[EV_START], e[EV_MATCHED]));
        GPU_CHECK(ctx, cudaEventElapsedTime(&assign_ms, e[EV_MATCHED], e[EV_ASSIGNED]));
        GPU_CHECK(ctx, cudaEventElapsedTime(&refine_ms, e[EV_ASSIGNED], e[EV_DONE]));
        info->time_match_ms += match_ms;
        info->time_assign_ms += assign_ms;
        info->time_refine_ms += refine_ms;
        info->arcs += sc[GCUT_FLOW_S_ROW_ARCS];
        if (l == 0) {
            info->occluded = sc[GCUT_FLOW_S_OCCLUDED];
            info->assign_cost = sc[GCUT_FLOW_S_COST];
        }
    }
    if (!st) { /* the pyramid and the upload count with the refinement, as on the CPU */
        float pyramid_ms = 0;
        GPU_CHECK(ctx, cudaEventElapsedTime(&pyramid_ms, ev[levels * EV_PER_LEVEL],
                                            ev[(levels - 1) * EV_PER_LEVEL + EV_START]));
        info->time_refine_ms += pyramid_ms;
    }
    info->levels = levels;
    goto done;
fail:
    cudaStreamSynchronize(stream);
done:
    for (int k = 0; k < events; k++)
        cudaEventDestroy(ev[k]);
    cudaFree(d.block);
    free(h_scalars);
    free(h_stats);
    return st;
}

extern "C" gcut_status gcut__flow_gpu_assign_level(gcut_context *ctx, const float *i0,
                                                   const float *i1, int w, int h,
                                                   const float *prior,
                                                   const gcut_flow_options *o,
                                                   int32_t *row_to_col, int64_t *total_cost,
                                                   int64_t *prices)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    cudaStream_t stream = s->stream;
    const int64_t n = (int64_t)w * h;
    flow_dev d;
    long long sc[GCUT_FLOW_SCALARS];
    long long *d_prices = NULL;
    int32_t *d_cols = NULL;
    int phases = 0;
    memset(&d, 0, sizeof d);
    if ((st = dev_alloc(ctx, &d, n, 1, 2 * n, 1, o)))
        return st;
    GPU_CHECK(ctx, cudaMalloc((void **)&d_prices, 3 * (size_t)n * sizeof *d_prices));
    GPU_CHECK(ctx, cudaMalloc((void **)&d_cols, (size_t)n * sizeof *d_cols));
    {
        float *d_i0 = d.pyramid, *d_i1 = d.pyramid + n;
        GPU_CHECK(ctx, cudaMemcpyAsync(d_i0, i0, (size_t)n * sizeof *i0, cudaMemcpyHostToDevice,
                                       stream));
        GPU_CHECK(ctx, cudaMemcpyAsync(d_i1, i1, (size_t)n * sizeof *i1, cudaMemcpyHostToDevice,
                                       stream));
        if (prior)
            GPU_CHECK(ctx, cudaMemcpyAsync(d.prior, prior, 2 * (size_t)n * sizeof *prior,
                                           cudaMemcpyHostToDevice, stream));
        if (o->cost == GCUT_FLOW_CENSUS) {
            GPU_CHECK(ctx, gcut__flow_census_launch(d_i0, w, h, o->patch, d.sig[0], stream));
            GPU_CHECK(ctx, gcut__flow_census_launch(d_i1, w, h, o->patch, d.sig[1], stream));
        }
        GPU_CHECK(ctx, assign_enqueue(&d.a, w, h, d_i0, d_i1, d.sig[0], d.sig[1],
                                      prior ? d.prior : NULL, o, d.scalars, NULL, &phases,
                                      stream));
    }
    GPU_CHECK(ctx, gcut__flow_assign_prices_launch(&d.a, d_prices, d_cols, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(row_to_col, d_cols, (size_t)n * sizeof *row_to_col,
                                   cudaMemcpyDeviceToHost, stream));
    if (prices)
        GPU_CHECK(ctx, cudaMemcpyAsync(prices, d_prices, 3 * (size_t)n * sizeof *prices,
                                       cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(sc, d.scalars, sizeof sc, cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    if (!(st = check_level(ctx, sc, 0)))
        *total_cost = sc[GCUT_FLOW_S_COST];
    goto done;
fail:
    cudaStreamSynchronize(stream);
done:
    cudaFree(d_prices);
    cudaFree(d_cols);
    cudaFree(d.block);
    return st;
}
