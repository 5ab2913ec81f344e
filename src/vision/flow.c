/* gcut_flow_frames: optical flow by assignment, coarse to fine.
 *
 * At each pyramid level, from the coarsest: every pixel of frame 0 is
 * assigned to a distinct pixel of frame 1 within a window around the
 * coarser level's flow, or to its own occlusion dummy (a minimum-cost
 * perfect assignment on the rows, gcut_assign_csr); the matched vectors are
 * refined to sub-pixel precision, densified over the occluded pixels by an
 * edge-aware average, and refined by a variational energy started from
 * them. The assignment gives the large, one-to-one displacements; the
 * refinement what a window of integer moves cannot: sub-pixel accuracy and
 * smooth regions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/memory_budget.h"
#include "core/solver_device.h"
#include "graph/assign_problem.h"
#include "gpu/flow_gpu.h"
#include "vision/flow_internal.h"


void gcut_flow_options_init(gcut_flow_options *o)
{
    memset(o, 0, sizeof *o);
    o->radius = 2;
    o->levels = 5;
    o->patch = 5;
    o->cost = GCUT_FLOW_CENSUS;
    o->occlusion_cost = 40;
    o->motion_penalty = 1;
    o->refine_iterations = 5;
    o->smoothness = 10.0;
    o->algo = NULL;
    o->threads = 0;
}

static gcut_status check_options(gcut_context *ctx, const gcut_flow_options *o)
{
    if (o->radius < 1 || o->radius > 16)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: radius %d is not in 1..16", o->radius);
    if (o->levels < 1 || o->levels > 10)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: levels %d is not in 1..10", o->levels);
    if (o->patch < 3 || o->patch > 7 || o->patch % 2 == 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: patch %d is not 3, 5 or 7", o->patch);
    if (o->cost != GCUT_FLOW_CENSUS && o->cost != GCUT_FLOW_SAD)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: unknown cost %d", (int)o->cost);
    if (o->occlusion_cost < 1 || o->occlusion_cost > 1000000)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: occlusion cost %d is not in 1..1000000",
                          o->occlusion_cost);
    if (o->motion_penalty < 0 || o->motion_penalty > 10000)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: motion penalty %d is not in 0..10000",
                          o->motion_penalty);
    if (o->refine_iterations < 0 || o->refine_iterations > 50)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: refinement iterations %d is not in 0..50",
                          o->refine_iterations);
    if (!(o->smoothness > 0 && o->smoothness <= 1e6))
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: smoothness %g is not in (0, 1e6]",
                          o->smoothness);
    if (o->threads < 0 || o->threads > 64)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: threads %d is not in 0..64", o->threads);
    return GCUT_OK;
}

/* One pyramid level: both frames in grey, and the flow found there. */
typedef struct flow_level {
    int w, h;
    float *i0, *i1, *flow;
} flow_level;

/* The scratch of one level's matching, sized for the finest level. */
typedef struct flow_scratch {
    uint64_t *sig0, *sig1;
    float *prior, *matched_flow, *residual, *gx, *gy;
    uint8_t *matched;
    int32_t *row_to_col;
} flow_scratch;

static void scratch_free(flow_scratch *s)
{
    free(s->sig0), free(s->sig1), free(s->prior), free(s->matched_flow), free(s->residual);
    free(s->gx), free(s->gy), free(s->matched), free(s->row_to_col);
}

static gcut_status scratch_alloc(gcut_context *ctx, flow_scratch *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->sig0 = malloc(n * sizeof *s->sig0);
    s->sig1 = malloc(n * sizeof *s->sig1);
    s->prior = malloc(2 * n * sizeof *s->prior);
    s->matched_flow = malloc(2 * n * sizeof *s->matched_flow);
    s->residual = malloc(n * sizeof *s->residual);
    s->gx = malloc(n * sizeof *s->gx);
    s->gy = malloc(n * sizeof *s->gy);
    s->matched = malloc(n);
    s->row_to_col = malloc(n * sizeof *s->row_to_col);
    if (!s->sig0 || !s->sig1 || !s->prior || !s->matched_flow || !s->residual || !s->gx ||
        !s->gy || !s->matched || !s->row_to_col) {
        scratch_free(s);
        return gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory for %zu pixels", n);
    }
    return GCUT_OK;
}

/* The levels: level 0 is the frames themselves, each next one half the
 * size, while the shorter side stays at least FLOW_MIN_LEVEL_SIDE. */
static gcut_status pyramid_build(gcut_context *ctx, const uint8_t *f0, const uint8_t *f1, int w,
                                 int h, int channels, size_t stride, int want, int threads,
                                 flow_level *lv, int *levels)
{
    size_t n = (size_t)w * (size_t)h;
    float *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory for %d x %d frames", w, h);
    int count = 0;
    gcut_status st = GCUT_OK;
    for (int l = 0; l < want; l++) {
        int lw = l ? (lv[l - 1].w + 1) / 2 : w, lh = l ? (lv[l - 1].h + 1) / 2 : h;
        if (l && (lw < FLOW_MIN_LEVEL_SIDE || lh < FLOW_MIN_LEVEL_SIDE))
            break;
        size_t ln = (size_t)lw * (size_t)lh;
        lv[l].w = lw, lv[l].h = lh;
        lv[l].i0 = malloc(ln * sizeof(float));
        lv[l].i1 = malloc(ln * sizeof(float));
        lv[l].flow = malloc(2 * ln * sizeof(float));
        count = l + 1;
        if (!lv[l].i0 || !lv[l].i1 || !lv[l].flow) {
            st = gcut__fail(ctx, GCUT_E_NOMEM, "flow: out of memory for pyramid level %d", l);
            break;
        }
        if (l == 0) {
            gcut__flow_grey(f0, w, h, channels, stride, lv[0].i0);
            gcut__flow_grey(f1, w, h, channels, stride, lv[0].i1);
        } else {
            gcut__flow_downsample(lv[l - 1].i0, lv[l - 1].w, lv[l - 1].h, tmp, lv[l].i0,
                                  threads);
            gcut__flow_downsample(lv[l - 1].i1, lv[l - 1].w, lv[l - 1].h, tmp, lv[l].i1,
                                  threads);
        }
    }
    free(tmp);
    *levels = count;
    return st;
}

/* One level: assignment, sub-pixel, densification, refinement; the result
 * in lv->flow. prior: the coarser level's flow at this size, or NULL. */
static gcut_status level_solve(gcut_context *ctx, flow_level *lv, const float *prior,
                               const gcut_flow_options *o, const char *algo, int threads,
                               flow_scratch *s, gcut_flow_info *info, int finest)
{
    int w = lv->w, h = lv->h;
    double t0 = gcut__now_ms();
    if (o->cost == GCUT_FLOW_CENSUS) {
        gcut__flow_census(lv->i0, w, h, o->patch, s->sig0, threads);
        gcut__flow_census(lv->i1, w, h, o->patch, s->sig1, threads);
    }
    gcut__flow_arcs arcs;
    gcut_status st =
        gcut__flow_arcs_build(ctx, lv->i0, lv->i1, s->sig0, s->sig1, w, h, prior, o, threads,
                              &arcs);
    if (st)
        return st;
    double t1 = gcut__now_ms();
    int64_t total = 0;
    st = gcut_assign_csr(ctx, arcs.rows, arcs.cols, arcs.row_ptr, arcs.col, arcs.cost, 0, algo,
                         s->row_to_col, &total, NULL);
    double t2 = gcut__now_ms();
    info->arcs += arcs.row_ptr[arcs.rows];
    gcut__flow_arcs_free(&arcs);
    if (st)
        return st;
    int64_t occluded = gcut__flow_from_assignment(s->row_to_col, w, h, s->matched_flow,
                                                  s->matched);
    gcut__flow_gradient(lv->i0, w, h, s->gx, s->gy, threads);
    gcut__flow_subpixel(lv->i0, lv->i1, s->gx, s->gy, w, h, o->patch, s->matched,
                        s->matched_flow, s->residual, threads);
    gcut__flow_densify(lv->i0, w, h, s->matched_flow, s->matched, s->residual, prior, lv->flow,
                       threads);
    /* The refinement down-weights the data term where the assignment chose
     * the dummy: those pixels have no match in frame 1. */
    for (size_t p = 0; p < (size_t)w * (size_t)h; p++)
        s->matched[p] = !s->matched[p];
    gcut__flow_refine_params rp = {o->refine_iterations, REFINE_SOR_SWEEPS,
                                   (float)(o->smoothness / 255.0), REFINE_GAMMA, REFINE_DELTA,
                                   REFINE_EDGE};
    st = gcut__flow_refine(ctx, lv->i0, lv->i1, w, h, s->matched, &rp, lv->flow, threads);
    if (!st) { /* outliers out before the next level starts from this one */
        gcut__flow_median(lv->flow, w, h, s->matched_flow, threads);
        memcpy(lv->flow, s->matched_flow, (size_t)w * (size_t)h * 2 * sizeof *lv->flow);
    }
    double t3 = gcut__now_ms();
    info->time_match_ms += t1 - t0;
    info->time_assign_ms += t2 - t1;
    info->time_refine_ms += t3 - t2;
    if (finest) {
        info->occluded = occluded;
        info->assign_cost = total;
    }
    return st;
}

/* What the finest level needs at its peak, in bytes: the scratch and the
 * pyramid all along (under 80 bytes a pixel), then either the assignment
 * (its arcs, one per window position and the dummy, and what
 * gcut_assign_csr allocates for them) or the refinement's 21 planes. */
static int64_t frames_bytes(int64_t n, int radius)
{
    const int64_t side = 2 * (int64_t)radius + 1;
    const int64_t arcs = gcut__memory_mul_add(n, side * side + 1, 0);
    int64_t assign = gcut__memory_mul_add(
        n + 1, 8,
        gcut__memory_mul_add(arcs, 8, gcut__assign_bytes((int32_t)n, (int32_t)(2 * n), arcs, 0)));
    int64_t refine = gcut__memory_mul_add(n, 21 * 4, 0);
    return gcut__memory_mul_add(n, 80, assign > refine ? assign : refine);
}

/* Where the assignment runs, by the rule every solver shares; the name of
 * the solver then given to gcut_assign_csr. */
static gcut_status pick_solver(gcut_context *ctx, const char *algo, gcut_flow_info *info,
                               const char **solver)
{
    /* "auto" takes a usable GPU, as every solver does: RubberWhale's whole
     * flow there is about 6x faster than the CPU's on 16 cores
     * (bench/results/flow_NVIDIA_H200.md). */
    int named_gpu = algo ? !strncmp(algo, "gpu", 3) : -1, on_gpu = 0;
    gcut_status st = gcut__solver_device(ctx, "flow", algo, named_gpu, gcut_cuda_built(),
                                         &on_gpu);
    if (st)
        return st;
    /* On the CPU, shortest paths: each pixel has its own free occlusion
     * column, so its searches stay short (cost scaling squares the problem,
     * which is also why gpu-csa, the general GPU assignment, is only taken by
     * name: over 5 s on RubberWhale). On the GPU, the whole flow there. */
    *solver = algo ? algo : on_gpu ? GCUT__FLOW_GPU_ALGO : "ssp";
    snprintf(info->device, sizeof info->device, "cpu");
    if (on_gpu &&
        gcut_device_name(ctx, ctx->options.gpu_index, info->device, sizeof info->device))
        snprintf(info->device, sizeof info->device, "gpu");
    info->algo = *solver;
    return GCUT_OK;
}

gcut_status gcut_flow_frames(gcut_context *ctx, const uint8_t *frame0, const uint8_t *frame1,
                             int width, int height, int channels, size_t stride_bytes,
                             const gcut_flow_options *options, float *flow,
                             gcut_flow_info *info)
{
    gcut__clear_error(ctx);
    double t_start = gcut__now_ms();
    gcut_flow_options o;
    if (options)
        o = *options;
    else
        gcut_flow_options_init(&o);
    gcut_flow_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    if (!frame0 || !frame1 || !flow)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: a frame or the flow buffer is NULL");
    if (width < 1 || height < 1 || (int64_t)width * height > GCUT_IMAGE_MAX_PIXELS)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: bad frame size %d x %d", width, height);
    if (channels < 1 || channels > 4 || stride_bytes < (size_t)width * (size_t)channels)
        return gcut__fail(ctx, GCUT_E_INVALID, "flow: %d channels with a stride of %zu bytes "
                          "for %d pixels a row", channels, stride_bytes, width);
    gcut_status st = check_options(ctx, &o);
    if (st)
        return st;
    int threads = o.threads ? o.threads : ctx ? ctx->options.threads : 0;
    const char *algo = NULL;
    if ((st = pick_solver(ctx, o.algo, info, &algo)))
        return st;

    if (!strcmp(algo, GCUT__FLOW_GPU_ALGO)) {
        st = gcut__flow_gpu_frames(ctx, frame0, frame1, width, height, channels, stride_bytes,
                                   &o, flow, info);
        info->time_total_ms = gcut__now_ms() - t_start;
        return st;
    }
    char what[96];
    snprintf(what, sizeof what, "flow: %d x %d frames with a window of radius %d", width, height,
             o.radius);
    if ((st = gcut__memory_check(ctx, what, frames_bytes((int64_t)width * height, o.radius))))
        return st;

    flow_level lv[10];
    memset(lv, 0, sizeof lv);
    int levels = 0;
    flow_scratch s;
    size_t n = (size_t)width * (size_t)height;
    if ((st = scratch_alloc(ctx, &s, n)))
        return st;
    st = pyramid_build(ctx, frame0, frame1, width, height, channels, stride_bytes, o.levels,
                       threads, lv, &levels);
    info->time_refine_ms += gcut__now_ms() - t_start;
    for (int l = levels - 1; l >= 0 && !st; l--) {
        const float *prior = NULL;
        if (l + 1 < levels) {
            double t0 = gcut__now_ms();
            gcut__flow_upsample(lv[l + 1].flow, lv[l + 1].w, lv[l + 1].h, s.prior, lv[l].w,
                                lv[l].h, threads);
            info->time_refine_ms += gcut__now_ms() - t0;
            prior = s.prior;
        }
        st = level_solve(ctx, &lv[l], prior, &o, algo, threads, &s, info, l == 0);
    }
    if (!st)
        memcpy(flow, lv[0].flow, 2 * n * sizeof *flow);
    for (int l = 0; l < levels; l++)
        free(lv[l].i0), free(lv[l].i1), free(lv[l].flow);
    scratch_free(&s);
    info->levels = levels;
    info->time_total_ms = gcut__now_ms() - t_start;
    return st;
}
