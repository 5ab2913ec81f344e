/* The GPU flow run sequentially on the CPU (tests/flow_gpu_emu/run.sh):
 * each level's assignment against the CPU solver, its prices through
 * gcut_assign_verify; then RubberWhale, CPU against the emulated GPU. */
#include "gcut.h"
#include "gpu/flow_gpu.h"
#include "vision/flow_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t st_ = 88172645463325252ull;
static uint64_t rnd(void)
{
    st_ ^= st_ << 13;
    st_ ^= st_ >> 7;
    st_ ^= st_ << 17;
    return st_;
}

/* RubberWhale (frame10, frame11, flow10.flo in `dir`) by the CPU and the
 * emulated GPU: 0 when both run, the EPEs are within 0.01 of each other
 * and the fields 0.1 px apart on average (the bounds of gcut-check's
 * flow.gpu_rubberwhale). */
static int sequence(gcut_context *ctx, const char *dir)
{
    char p0[512], p1[512], pg[512];
    snprintf(p0, sizeof p0, "%s/frame10.png", dir);
    snprintf(p1, sizeof p1, "%s/frame11.png", dir);
    snprintf(pg, sizeof pg, "%s/flow10.flo", dir);
    gcut_image *A = NULL, *B = NULL;
    float *gt = NULL, *fc = NULL, *fg = NULL;
    int tw = 0, th = 0, failed = 1;
    if (gcut_image_load(ctx, p0, &A) || gcut_image_load(ctx, p1, &B) ||
        gcut_flow_read(ctx, pg, &tw, &th, &gt)) {
        printf("%s: %s\n", dir, gcut_last_error(ctx));
        goto done;
    }
    const int w = gcut_image_width(A), h = gcut_image_height(A), ch = gcut_image_channels(A);
    fc = malloc(8 * (size_t)w * h);
    fg = malloc(8 * (size_t)w * h);
    gcut_flow_options o;
    gcut_flow_options_init(&o);
    gcut_flow_info ic, ig;
    memset(&ig, 0, sizeof ig);
    double ec, eg, ac, ag, diff = 0;
    if (!fc || !fg || tw != w || th != h ||
        gcut_flow_frames(ctx, gcut_image_pixels(A), gcut_image_pixels(B), w, h, ch,
                         (size_t)w * ch, &o, fc, &ic) ||
        gcut__flow_gpu_frames(ctx, gcut_image_pixels(A), gcut_image_pixels(B), w, h, ch,
                              (size_t)w * ch, &o, fg, &ig) ||
        gcut_flow_error(ctx, fc, gt, w, h, &ec, &ac, NULL) ||
        gcut_flow_error(ctx, fg, gt, w, h, &eg, &ag, NULL)) {
        printf("RubberWhale: %s\n", gcut_last_error(ctx));
        goto done;
    }
    for (size_t p = 0; p < (size_t)w * h; p++)
        diff += hypot(fg[2 * p] - fc[2 * p], fg[2 * p + 1] - fc[2 * p + 1]);
    diff /= (double)w * h;
    printf("RubberWhale: cpu EPE %.4f AAE %.3f cost %lld occluded %lld arcs %lld | emulated "
           "gpu EPE %.4f AAE %.3f cost %lld occluded %lld arcs %lld | fields %.4f px apart\n",
           ec, ac, (long long)ic.assign_cost, (long long)ic.occluded, (long long)ic.arcs, eg, ag,
           (long long)ig.assign_cost, (long long)ig.occluded, (long long)ig.arcs, diff);
    failed = fabs(eg - ec) > 0.01 || diff > 0.1;
    if (failed)
        printf("RubberWhale: the emulated GPU flow is too far from the CPU's\n");
done:
    gcut_image_destroy(A);
    gcut_image_destroy(B);
    gcut_flow_free(gt);
    free(fc);
    free(fg);
    return failed;
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 100;
    gcut_context *ctx = NULL;
    gcut_options co;
    gcut_options_init(&co);
    if (gcut_context_create(&co, &ctx))
        return 1;
    int bad = 0;
    for (int i = 0; i < count; i++) {
        int w = 4 + rnd() % 44, h = 3 + rnd() % 32;
        if (i % 10 == 9)
            w = 160 + rnd() % 60, h = 120 + rnd() % 40;
        if (i % 17 == 5)
            h = 1;
        size_t n = (size_t)w * h;
        float *i0 = malloc(n * 4), *i1 = malloc(n * 4), *prior = malloc(8 * n);
        uint64_t *s0 = malloc(8 * n), *s1 = malloc(8 * n);
        int32_t *mine = malloc(4 * n), *ref = malloc(4 * n);
        int64_t *prices = malloc(24 * n);
        gcut_flow_options o;
        gcut_flow_options_init(&o);
        o.radius = 1 + rnd() % 3;
        o.patch = 3 + 2 * (rnd() % 3);
        o.cost = rnd() % 2 ? GCUT_FLOW_SAD : GCUT_FLOW_CENSUS;
        o.occlusion_cost = 1 + rnd() % 80;
        o.motion_penalty = rnd() % 4;
        int levels = rnd() % 3 == 0 ? 2 : 256;
        /* Now and then priors past the radius: windows wholly outside frame 1. */
        const int far = i % 7 == 3 ? 80 : 30;
        for (size_t p = 0; p < n; p++) {
            i0[p] = (float)(rnd() % levels) / (levels - 1);
            i1[p] = (float)(rnd() % levels) / (levels - 1);
            prior[2 * p] = (float)((int)(rnd() % (2 * far + 1)) - far) / 10;
            prior[2 * p + 1] = (float)((int)(rnd() % (2 * far + 1)) - far) / 10;
        }
        const float *pr = rnd() % 2 ? prior : NULL;
        gcut__flow_census(i0, w, h, o.patch, s0, 1);
        gcut__flow_census(i1, w, h, o.patch, s1, 1);
        gcut__flow_arcs a;
        memset(&a, 0, sizeof a);
        int64_t cc = 0, gc = 0, gap = 0;
        if (!i0 || !i1 || !prior || !s0 || !s1 || !mine || !ref || !prices ||
            gcut__flow_arcs_build(ctx, i0, i1, s0, s1, w, h, pr, &o, 1, &a) ||
            gcut_assign_csr(ctx, a.rows, a.cols, a.row_ptr, a.col, a.cost, 0, "ssp", ref, &cc,
                            NULL)) {
            printf("%d (%dx%d): the CPU reference: %s\n", i, w, h, gcut_last_error(ctx));
            return 1;
        }
        gcut_status st = gcut__flow_gpu_assign_level(ctx, i0, i1, w, h, pr, &o, mine, &gc, prices);
        if (getenv("EMU_VERBOSE"))
            printf("%d: %dx%d R %d P %d %s occ %d pen %d levels %d prior %d\n", i, w, h, o.radius,
                   o.patch, o.cost == GCUT_FLOW_SAD ? "sad" : "census", o.occlusion_cost,
                   o.motion_penalty, levels, pr != NULL);
        if (st) {
            printf("%d (%dx%d): %s\n", i, w, h, gcut_last_error(ctx));
            bad++;
        } else if (gc != cc) {
            printf("%d (%dx%d): cost %lld cpu %lld\n", i, w, h, (long long)gc, (long long)cc);
            bad++;
        } else if (gcut_assign_verify(ctx, a.rows, a.cols, a.row_ptr, a.col, a.cost, 0, mine, gc,
                                      prices, &gap)) {
            printf("%d: verify: %s\n", i, gcut_last_error(ctx));
            bad++;
        }
        gcut__flow_arcs_free(&a);
        free(i0);
        free(i1);
        free(prior);
        free(s0);
        free(s1);
        free(mine);
        free(ref);
        free(prices);
    }
    printf("assignment: %d of %d bad\n", bad, count);
    if (argc > 2 && sequence(ctx, argv[2]))
        bad++;
    gcut_context_destroy(ctx);
    return bad != 0;
}
