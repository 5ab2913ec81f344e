/* Segmentation sessions against one-shot segmentations
 * (check_segment_session.h). */
#include "check_segment_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_rng.h"
#include "gcut.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

/* A disk of one colour over a gradient of another, with noise. */
static void make_image(rng *r, int w, int h, int channels, size_t stride, uint8_t *pixels)
{
    int cx = (int)rng_range(r, w / 4, 3 * w / 4), cy = (int)rng_range(r, h / 4, 3 * h / 4);
    int rad = (int)rng_range(r, 2, (w < h ? w : h) / 3 + 2);
    uint8_t in[3], out[3];
    for (int c = 0; c < 3; c++) {
        in[c] = (uint8_t)rng_range(r, 0, 255);
        out[c] = (uint8_t)rng_range(r, 0, 255);
    }
    int noise = (int)rng_range(r, 0, 60);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int inside = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= rad * rad;
            for (int c = 0; c < channels; c++) {
                int base = inside ? in[c % 3] : out[c % 3] + (x * 40) / (w + 1);
                int v = base + (noise ? (int)rng_range(r, -noise, noise) : 0);
                pixels[(size_t)y * stride + (size_t)x * (size_t)channels + (size_t)c] =
                    (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
}

/* A random short stroke of label `label` (a run of pixels). */
static void add_stroke(rng *r, int w, int h, uint8_t *seeds, uint8_t label)
{
    int x = (int)rng_below(r, w), y = (int)rng_below(r, h);
    int len = (int)rng_range(r, 1, w + h);
    for (int k = 0; k < len; k++) {
        seeds[(size_t)y * (size_t)w + (size_t)x] = label;
        int step = (int)rng_range(r, -1, 1);
        if (rng_below(r, 2))
            x = x + step < 0 ? 0 : x + step >= w ? w - 1 : x + step;
        else
            y = y + step < 0 ? 0 : y + step >= h ? h - 1 : y + step;
    }
}

/* Sessions on `ctx` against one-shot segmentations on `ref` and, when not
 * NULL, on `ref2` (another device); `large`: every fourth image spans
 * several GPU tiles. */
static void run_sessions(check_report *r, int count, uint64_t seed, gcut_context *ctx,
                         gcut_context *ref, gcut_context *ref2, int large)
{
    for (int i = 0; i < count; i++) {
        rng rg = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0x632be59bd9b4e019ULL + 17};
        rng_next(&rg);
        int big = large && i % 4 == 3;
        int w = (int)rng_range(&rg, 2, big ? 300 : 40), h = (int)rng_range(&rg, 2, big ? 200 : 40);
        int channels = (int)rng_range(&rg, 1, 4);
        size_t stride = (size_t)w * (size_t)channels + (size_t)rng_below(&rg, 5);
        size_t n = (size_t)w * (size_t)h;
        uint8_t *pixels = malloc(stride * (size_t)h), *orig = malloc(stride * (size_t)h);
        uint8_t *seeds = calloc(n, 1);
        uint8_t *mask = malloc(n), *want = malloc(n);
        char name[160];
        gcut_segment_options o;
        gcut_segment_options_init(&o);
        o.model = rng_below(&rg, 2) ? GCUT_MODEL_GMM : GCUT_MODEL_HIST;
        o.connectivity = rng_below(&rg, 2) ? 8 : 4;
        o.components = (int)rng_range(&rg, 1, 5);
        o.iterations = (int)rng_range(&rg, 1, 5);
        o.lambda = (double)rng_range(&rg, 0, 200);
        o.threads = (int)rng_range(&rg, 1, 3);
        o.verify = ref2 && i % 2; /* the warm GPU cuts' proofs, checked on the host */
        snprintf(name, sizeof name, "session %d: %dx%d, %d channels, %s, %d-conn, lambda %g", i, w,
                 h, channels, o.model == GCUT_MODEL_GMM ? "gmm" : "hist", o.connectivity,
                 o.lambda);
        gcut_segment_session *ss = NULL;
        int ok = pixels && orig && seeds && mask && want;
        if (!ok) {
            check_fail(r, "%s: out of memory", name);
            goto next;
        }
        make_image(&rg, w, h, channels, stride, pixels);
        if (gcut_segment_session_create(ctx, pixels, w, h, channels, stride, &o, &ss) != GCUT_OK) {
            check_fail(r, "%s: create: %s", name, gcut_last_error(ctx));
            ok = 0;
            goto next;
        }
        /* The session copied the pixels: the caller's may change after create. */
        memcpy(orig, pixels, stride * (size_t)h);
        memset(pixels, 0x5a, stride * (size_t)h);
        int states = (int)rng_range(&rg, 3, 6);
        for (int k = 0; k < states && ok; k++) {
            /* Background first (a stroke, sometimes the frame), then strokes of either kind. */
            if (k == 0) {
                add_stroke(&rg, w, h, seeds, GCUT_SEED_BG);
                if (rng_below(&rg, 2))
                    for (int x = 0; x < w; x++)
                        seeds[x] = GCUT_SEED_BG;
            } else {
                add_stroke(&rg, w, h, seeds, rng_below(&rg, 2) ? GCUT_SEED_FG : GCUT_SEED_BG);
            }
            gcut_segment_info got;
            gcut_status st1 = gcut_segment_session_update(ss, seeds, mask, &got);
            char err1[256];
            snprintf(err1, sizeof err1, "%s", gcut_last_error(ctx));
            for (int pass = 0; pass < (ref2 ? 2 : 1) && ok; pass++) {
                gcut_context *one = pass ? ref2 : ref;
                gcut_segment_info want_info;
                gcut_status st2 = gcut_segment_image(one, orig, w, h, channels, stride, seeds, &o,
                                                     want, &want_info);
                if (st1 != st2) {
                    check_fail(r, "%s, state %d: session %s (%s), one-shot (%s) %s (%s)", name, k,
                               gcut_status_str(st1), err1, want_info.device ? want_info.device : "?",
                               gcut_status_str(st2), gcut_last_error(one));
                    ok = 0;
                } else if (st1 == GCUT_OK &&
                           (memcmp(mask, want, n) != 0 || got.flow != want_info.flow ||
                            got.iterations != want_info.iterations ||
                            got.foreground != want_info.foreground)) {
                    check_fail(r, "%s, state %d: session (%s) mask/flow %lld/cuts %d differ from "
                               "the one-shot's (%s) %lld/%d",
                               name, k, got.device ? got.device : "?", (long long)got.flow,
                               got.iterations, want_info.device ? want_info.device : "?",
                               (long long)want_info.flow, want_info.iterations);
                    ok = 0;
                }
            }
        }
    next:
        if (ok)
            r->passed++;
        gcut_segment_session_destroy(ss);
        free(pixels);
        free(orig);
        free(seeds);
        free(mask);
        free(want);
    }
}

void check_segment_session_vs_image(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "cannot create a context");
        return;
    }
    run_sessions(r, count, seed, ctx, ctx, NULL, 0);
    gcut_context_destroy(ctx);
}

void check_segment_session_gpu(check_report *r, int count, uint64_t seed)
{
    gcut_context *cpu = check_context(GCUT_DEVICE_CPU);
    gcut_context *gpu = check_context(GCUT_DEVICE_GPU);
    int devices = 0;
    if (!cpu || !gpu)
        check_fail(r, "could not create the contexts");
    else if (!gcut_cuda_built() || gcut_device_count(gpu, &devices) != GCUT_OK || devices == 0)
        r->skipped += count; /* no usable GPU here */
    else {
        run_sessions(r, count, seed, gpu, cpu, gpu, 1);
#ifdef GCUT_HAVE_CUDA
        /* The sessions' cuts after their first must have started warm at times. */
        long long warm = 0, cold = 0;
        gcut__gpu_warm_counts(gpu, &warm, &cold);
        if (r->passed > 0 && warm == 0)
            check_fail(r, "no GPU session cut started from the kept flow (%lld from no flow)",
                       cold);
#endif
    }
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
}
