/* Checks of optical flow by assignment: recovery of known motions on
 * synthetic pairs, the exactness of each level's assignment against an
 * independent solver, the .flo reader and writer (malformed files
 * included), the error measures and the colour wheel. */
#include "check_flow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_rng.h"
#include "ref_assign.h"
#include "gpu/flow_gpu.h"
#include "vision/flow_internal.h"

/* ---- synthetic pairs -------------------------------------------------- */

/* A smooth random texture: a sum of sinusoids in [0, 1], so that a moved
 * frame can be rendered exactly at any real position. Frequencies are
 * log-uniform over 0.03..0.9 radians a pixel, as natural images have
 * structure at every scale: the pyramid's coarse levels need some to find
 * a large motion (a texture of fine waves only is ambiguous there). */
#define WAVES 12
typedef struct texture {
    double fx[WAVES], fy[WAVES], phase[WAVES], amp[WAVES];
} texture;

static void texture_make(texture *t, rng *r)
{
    for (int k = 0; k < WAVES; k++) {
        double f = 0.03 * pow(30.0, (double)rng_below(r, 1000) / 1000.0);
        double a = 6.2831853 * (double)rng_below(r, 1000) / 1000.0;
        t->fx[k] = f * cos(a), t->fy[k] = f * sin(a);
        t->phase[k] = 6.2831853 * (double)rng_below(r, 1000) / 1000.0;
        t->amp[k] = 0.45 / WAVES * (0.5 + (double)rng_below(r, 1000) / 1000.0);
    }
}

static uint8_t texture_at(const texture *t, double x, double y)
{
    double v = 0.5;
    for (int k = 0; k < WAVES; k++)
        v += t->amp[k] * sin(t->fx[k] * x + t->fy[k] * y + t->phase[k]);
    long q = lround(v * 255.0);
    return (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
}

/* The motion of a pair: frame 1 at q shows frame 0's texture at A^-1(q),
 * A(p) = c + R(p - c) + shift, so the true flow at p is A(p) - p. */
typedef struct motion {
    double shift_x, shift_y, angle; /* angle in radians about the centre */
} motion;

static void motion_apply(const motion *m, int w, int h, double x, double y, double *ox,
                         double *oy)
{
    double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1), c = cos(m->angle), s = sin(m->angle);
    *ox = cx + c * (x - cx) - s * (y - cy) + m->shift_x;
    *oy = cy + s * (x - cx) + c * (y - cy) + m->shift_y;
}

static void motion_invert(const motion *m, int w, int h, double x, double y, double *ox,
                          double *oy)
{
    double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1), c = cos(m->angle), s = sin(m->angle);
    double dx = x - m->shift_x - cx, dy = y - m->shift_y - cy;
    *ox = cx + c * dx + s * dy;
    *oy = cy - s * dx + c * dy;
}

/* The EPE of `flow` over the pixels at least `margin` from the border whose
 * true target is too; -1 if out of memory or the flow fails. */
static double synthetic_epe(check_report *r, gcut_context *ctx, const char *algo,
                            const texture *t, const motion *m, int w, int h, int margin,
                            const char *what)
{
    uint8_t *f0 = malloc((size_t)w * h), *f1 = malloc((size_t)w * h);
    float *flow = malloc((size_t)w * h * 2 * sizeof *flow);
    double sum = 0;
    int64_t count = 0;
    if (!f0 || !f1 || !flow) {
        check_fail(r, "%s: out of memory", what);
        free(f0), free(f1), free(flow);
        return -1;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sx, sy;
            f0[y * w + x] = texture_at(t, x, y);
            motion_invert(m, w, h, x, y, &sx, &sy);
            f1[y * w + x] = texture_at(t, sx, sy);
        }
    gcut_flow_options o;
    gcut_flow_options_init(&o);
    o.algo = algo;
    gcut_status st = gcut_flow_frames(ctx, f0, f1, w, h, 1, (size_t)w, &o, flow, NULL);
    if (st) {
        check_fail(r, "%s: gcut_flow_frames: %s", what, gcut_last_error(ctx));
        sum = -1;
    } else {
        for (int y = margin; y < h - margin; y++)
            for (int x = margin; x < w - margin; x++) {
                double tx, ty;
                motion_apply(m, w, h, x, y, &tx, &ty);
                if (tx < margin || ty < margin || tx > w - 1 - margin || ty > h - 1 - margin)
                    continue;
                double du = flow[2 * (y * w + x)] - (tx - x);
                double dv = flow[2 * (y * w + x) + 1] - (ty - y);
                sum += sqrt(du * du + dv * dv);
                count++;
            }
        sum = count ? sum / (double)count : -1;
    }
    free(f0), free(f1), free(flow);
    return sum;
}

/* Kinds cycle: integer shift, sub-pixel shift, small rotation, and a large
 * shift that only the pyramid reaches (beyond one level's R). */
static const char *const synthetic_kinds[4] = {"integer shift", "sub-pixel shift", "rotation",
                                               "large shift"};
static const double synthetic_bound[4] = {0.05, 0.08, 0.15, 0.05};

/* Synthetic case i of a seed: its texture, motion and size; returns its kind. */
static int synthetic_case(uint64_t seed, int i, texture *t, motion *m, int *w, int *h,
                          char *what, size_t what_size)
{
    rng g = {seed * 7919 + (uint64_t)i};
    texture_make(t, &g);
    int kind = i % 4;
    *w = 112 + (int)rng_below(&g, 32), *h = 88 + (int)rng_below(&g, 24);
    m->shift_x = m->shift_y = m->angle = 0;
    if (kind == 0 || kind == 3) {
        int span = kind == 0 ? 3 : 12;
        m->shift_x = (double)rng_range(&g, -span, span);
        m->shift_y = (double)rng_range(&g, -span, span);
        if (kind == 3 && fabs(m->shift_x) < 8)
            m->shift_x = m->shift_x < 0 ? -9 : 9;
    } else if (kind == 1) {
        m->shift_x = (double)rng_range(&g, -300, 300) / 100.0;
        m->shift_y = (double)rng_range(&g, -300, 300) / 100.0;
    } else {
        m->angle = (double)rng_range(&g, -30, 30) / 1000.0; /* up to 1.7 degrees */
        m->shift_x = (double)rng_range(&g, -100, 100) / 100.0;
    }
    snprintf(what, what_size, "%s (%.2f, %.2f, %.3f rad) on %dx%d, seed %llu",
             synthetic_kinds[kind], m->shift_x, m->shift_y, m->angle, *w, *h,
             (unsigned long long)(seed * 7919 + (uint64_t)i));
    return kind;
}

void check_flow_synthetic(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    for (int i = 0; i < count; i++) {
        texture t;
        motion m;
        int w, h;
        char what[160];
        int kind = synthetic_case(seed, i, &t, &m, &w, &h, what, sizeof what);
        double epe = synthetic_epe(r, ctx, NULL, &t, &m, w, h, 14, what);
        if (epe < 0)
            continue;
        if (epe > synthetic_bound[kind])
            check_fail(r, "%s: EPE %.4f over %.2f", what, epe, synthetic_bound[kind]);
        else
            r->passed++;
    }
    gcut_context_destroy(ctx);
}

/* Degenerate shapes and contents (one pixel, one row or column, flat or
 * noise frames, every option's extreme): a finite flow, never a crash. */
void check_flow_degenerate(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    static const int sizes[][2] = {{1, 1}, {1, 7}, {9, 1}, {2, 2}, {13, 5}, {40, 3}, {3, 40}};
    int n_sizes = (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < count; i++) {
        rng g = {seed * 613 + (uint64_t)i};
        int w = sizes[i % n_sizes][0], h = sizes[i % n_sizes][1], ch = 1 + (int)rng_below(&g, 4);
        int flat = rng_below(&g, 3) == 0;
        size_t n = (size_t)w * h;
        uint8_t *f0 = malloc(n * ch), *f1 = malloc(n * ch);
        float *flow = malloc(2 * n * sizeof *flow);
        if (!f0 || !f1 || !flow) {
            check_fail(r, "out of memory");
            free(f0), free(f1), free(flow);
            continue;
        }
        for (size_t k = 0; k < n * ch; k++) {
            f0[k] = flat ? 77 : (uint8_t)rng_below(&g, 256);
            f1[k] = flat ? 77 : (uint8_t)rng_below(&g, 256);
        }
        gcut_flow_options o;
        gcut_flow_options_init(&o);
        o.radius = 1 + (int)rng_below(&g, 16);
        o.levels = 1 + (int)rng_below(&g, 10);
        o.patch = 3 + 2 * (int)rng_below(&g, 3);
        o.cost = rng_below(&g, 2) ? GCUT_FLOW_SAD : GCUT_FLOW_CENSUS;
        o.occlusion_cost = rng_below(&g, 2) ? 1 : 1000000;
        o.motion_penalty = rng_below(&g, 2) ? 0 : 10000;
        o.refine_iterations = (int)rng_below(&g, 3) * 25;
        gcut_status st = gcut_flow_frames(ctx, f0, f1, w, h, ch, (size_t)w * ch, &o, flow, NULL);
        /* Flat frames: zero flow when motion costs (without the penalty
         * every motion of a flat frame is as good). */
        int finite = 1;
        for (size_t k = 0; k < 2 * n && !st; k++)
            finite &= isfinite(flow[k]) && fabsf(flow[k]) <= (float)(w > h ? w : h);
        if (st)
            check_fail(r, "%dx%d, %d channels: %s", w, h, ch, gcut_last_error(ctx));
        else if (!finite)
            check_fail(r, "%dx%d, %d channels: a vector is not finite or leaves the frame", w,
                       h, ch);
        else if (flat && o.motion_penalty > 0 && (flow[0] != 0.0f || flow[1] != 0.0f))
            check_fail(r, "%dx%d flat frames: flow (%g, %g), not 0", w, h, flow[0], flow[1]);
        else
            r->passed++;
        free(f0), free(f1), free(flow);
    }
    /* Bad arguments are refused with a message. */
    uint8_t px[4] = {0};
    float out[8];
    gcut_flow_options o;
    gcut_flow_options_init(&o);
    o.patch = 4;
    if (gcut_flow_frames(ctx, px, px, 2, 2, 1, 2, &o, out, NULL) != GCUT_E_INVALID ||
        !strstr(gcut_last_error(ctx), "patch 4"))
        check_fail(r, "an even patch was not refused by name");
    else
        r->passed++;
    if (gcut_flow_frames(ctx, px, px, 2, 2, 1, 1, NULL, out, NULL) != GCUT_E_INVALID)
        check_fail(r, "a stride shorter than a row was not refused");
    else
        r->passed++;
    gcut_context_destroy(ctx);
}

/* ---- each level's assignment is optimal --------------------------------- */

void check_flow_assignment_exact(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    for (int i = 0; i < count; i++) {
        rng g = {seed * 104729 + (uint64_t)i};
        int w = 8 + (int)rng_below(&g, 40), h = 6 + (int)rng_below(&g, 30);
        size_t n = (size_t)w * h;
        float *i0 = malloc(n * sizeof *i0), *i1 = malloc(n * sizeof *i1);
        float *prior = malloc(2 * n * sizeof *prior);
        uint64_t *s0 = malloc(n * sizeof *s0), *s1 = malloc(n * sizeof *s1);
        int32_t *lib = malloc(n * sizeof *lib), *ref = malloc(n * sizeof *ref);
        gcut_flow_options o;
        gcut_flow_options_init(&o);
        o.radius = 1 + (int)rng_below(&g, 3);
        o.patch = 3 + 2 * (int)rng_below(&g, 3);
        o.cost = rng_below(&g, 2) ? GCUT_FLOW_SAD : GCUT_FLOW_CENSUS;
        o.occlusion_cost = 1 + (int)rng_below(&g, 80);
        o.motion_penalty = (int)rng_below(&g, 4);
        /* Flat images make ties everywhere; noisy ones make distinct costs. */
        int levels = rng_below(&g, 3) == 0 ? 2 : 256;
        if (!i0 || !i1 || !prior || !s0 || !s1 || !lib || !ref) {
            check_fail(r, "out of memory");
        } else {
            for (size_t p = 0; p < n; p++) {
                i0[p] = (float)rng_below(&g, levels) / (float)(levels - 1);
                i1[p] = (float)rng_below(&g, levels) / (float)(levels - 1);
                prior[2 * p] = (float)rng_range(&g, -30, 30) / 10.0f;
                prior[2 * p + 1] = (float)rng_range(&g, -30, 30) / 10.0f;
            }
            gcut__flow_census(i0, w, h, o.patch, s0, 1);
            gcut__flow_census(i1, w, h, o.patch, s1, 1);
            gcut__flow_arcs arcs;
            gcut_status st = gcut__flow_arcs_build(ctx, i0, i1, s0, s1, w, h,
                                                   rng_below(&g, 2) ? prior : NULL, &o, 1, &arcs);
            int64_t lib_cost = 0, ref_cost = 0;
            if (!st)
                st = gcut_assign_csr(ctx, arcs.rows, arcs.cols, arcs.row_ptr, arcs.col,
                                     arcs.cost, 0, "csa", lib, &lib_cost, NULL);
            int rc = st ? 0
                        : ref_assign_csr(arcs.rows, arcs.cols, arcs.row_ptr, arcs.col, arcs.cost,
                                         ref, &ref_cost);
            if (st)
                check_fail(r, "instance %d (%dx%d): %s", i, w, h, gcut_last_error(ctx));
            else if (rc)
                check_fail(r, "instance %d (%dx%d): the reference found no assignment", i, w, h);
            else if (lib_cost != ref_cost)
                check_fail(r, "instance %d (%dx%d, R %d, P %d): cost %lld, reference %lld", i, w,
                           h, o.radius, o.patch, (long long)lib_cost, (long long)ref_cost);
            else
                r->passed++;
            if (!st)
                gcut__flow_arcs_free(&arcs);
        }
        free(i0), free(i1), free(prior), free(s0), free(s1), free(lib), free(ref);
    }
    gcut_context_destroy(ctx);
}

/* ---- .flo files ------------------------------------------------------- */

static int write_bytes(const char *path, const void *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    size_t put = fwrite(data, 1, size, fp);
    return fclose(fp) == 0 && put == size ? 0 : -1;
}

/* A header: the tag's bytes (or others), then width and height. */
static void header(uint8_t *b, const char *tag, int32_t w, int32_t h)
{
    memcpy(b, tag, 4);
    memcpy(b + 4, &w, 4);
    memcpy(b + 8, &h, 4);
}

static void expect_read_fails(check_report *r, gcut_context *ctx, const char *path,
                              gcut_status want, const char *needle, const char *what)
{
    int w = -1, h = -1;
    float *f = (float *)&w; /* must come back NULL */
    gcut_status st = gcut_flow_read(ctx, path, &w, &h, &f);
    if (st != want)
        check_fail(r, "%s: status %s, not %s (%s)", what, gcut_status_str(st),
                   gcut_status_str(want), gcut_last_error(ctx));
    else if (!strstr(gcut_last_error(ctx), path) || !strstr(gcut_last_error(ctx), needle))
        check_fail(r, "%s: message '%s' lacks the file or '%s'", what, gcut_last_error(ctx),
                   needle);
    else if (f || w || h)
        check_fail(r, "%s: outputs not cleared", what);
    else
        r->passed++;
}

void check_flow_flo_files(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    char dir[] = "/tmp/gcut-check-flo-XXXXXX";
    if (!ctx || !mkdtemp(dir)) {
        check_fail(r, "no context or temporary folder");
        gcut_context_destroy(ctx);
        return;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/f.flo", dir);
    /* Round trips of random fields, unknown values included. */
    for (int i = 0; i < count; i++) {
        rng g = {seed * 31 + (uint64_t)i};
        int w = 1 + (int)rng_below(&g, 70), h = 1 + (int)rng_below(&g, 50);
        size_t n = (size_t)w * h * 2;
        float *f = malloc(n * sizeof *f), *back = NULL;
        int bw = 0, bh = 0;
        if (!f) {
            check_fail(r, "out of memory");
            continue;
        }
        for (size_t k = 0; k < n; k++)
            f[k] = rng_below(&g, 10) == 0 ? 1e10f : (float)rng_range(&g, -100000, 100000) / 997.0f;
        gcut_status st = gcut_flow_write(ctx, path, f, w, h);
        if (!st)
            st = gcut_flow_read(ctx, path, &bw, &bh, &back);
        if (st)
            check_fail(r, "round trip %dx%d: %s", w, h, gcut_last_error(ctx));
        else if (bw != w || bh != h || memcmp(f, back, n * sizeof *f))
            check_fail(r, "round trip %dx%d: read back %dx%d, or other values", w, h, bw, bh);
        else
            r->passed++;
        free(f);
        gcut_flow_free(back);
    }
    /* Malformed files: each fails with its status and a message naming the
     * file and what is wrong. */
    uint8_t b[64];
    memset(b, 0, sizeof b);
    header(b, "PIEX", 2, 2);
    if (!write_bytes(path, b, 12 + 32))
        expect_read_fails(r, ctx, path, GCUT_E_FORMAT, "not a .flo file", "bad tag");
    if (!write_bytes(path, "PI", 2))
        expect_read_fails(r, ctx, path, GCUT_E_TRUNCATED, "inside the tag", "cut in the tag");
    if (!write_bytes(path, "", 0))
        expect_read_fails(r, ctx, path, GCUT_E_FORMAT, "not a .flo file", "empty file");
    header(b, "PIEH", 2, 2);
    if (!write_bytes(path, b, 9))
        expect_read_fails(r, ctx, path, GCUT_E_TRUNCATED, "inside the header", "cut header");
    header(b, "PIEH", 0, 5);
    if (!write_bytes(path, b, 12))
        expect_read_fails(r, ctx, path, GCUT_E_FORMAT, "must be positive", "zero width");
    header(b, "PIEH", 3, -1);
    if (!write_bytes(path, b, 12))
        expect_read_fails(r, ctx, path, GCUT_E_FORMAT, "must be positive", "negative height");
    header(b, "PIEH", 2147483647, 2147483647);
    if (!write_bytes(path, b, 12))
        expect_read_fails(r, ctx, path, GCUT_E_FORMAT, "over the limit", "huge size");
    header(b, "PIEH", 16000, 16000); /* under the pixel limit, 2 GB announced */
    if (!write_bytes(path, b, 20))
        expect_read_fails(r, ctx, path, GCUT_E_TRUNCATED, "need 2048000012 bytes",
                          "large size, short file");
    header(b, "PIEH", 2, 2);
    if (!write_bytes(path, b, 12 + 31))
        expect_read_fails(r, ctx, path, GCUT_E_TRUNCATED, "ends at byte 43", "cut data");
    if (!write_bytes(path, b, 12 + 33))
        expect_read_fails(r, ctx, path, GCUT_E_FORMAT, "data after", "trailing byte");
    snprintf(path, sizeof path, "%s/missing.flo", dir);
    expect_read_fails(r, ctx, path, GCUT_E_IO, "cannot read", "missing file");
    /* A write into a missing folder fails and leaves nothing. */
    snprintf(path, sizeof path, "%s/no/such/f.flo", dir);
    float one[2] = {1, 2};
    if (gcut_flow_write(ctx, path, one, 1, 1) != GCUT_E_IO)
        check_fail(r, "write into a missing folder did not fail with GCUT_E_IO");
    else
        r->passed++;
    snprintf(path, sizeof path, "%s/f.flo", dir);
    unlink(path);
    rmdir(dir);
    gcut_context_destroy(ctx);
}

/* ---- error measures and the colour wheel -------------------------------- */

static int near(double a, double b) { return fabs(a - b) <= 1e-6 * (1 + fabs(b)); }

void check_flow_measures(check_report *r, int count, uint64_t seed)
{
    (void)count, (void)seed;
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    /* Two known pixels and one unknown: EPE (|(3,4)| + 0) / 2; AAE: the
     * angle between (3,4,1) and (0,0,1), and 0. */
    float flow[6] = {3, 4, 1, 1, 7, 7}, truth[6] = {0, 0, 1, 1, 2e9f, 0};
    double epe = 0, aae = 0;
    int64_t known = 0;
    gcut_status st = gcut_flow_error(ctx, flow, truth, 3, 1, &epe, &aae, &known);
    double want_aae = acos(1.0 / sqrt(26.0)) * 180.0 / 3.14159265358979323846 / 2;
    if (st || known != 2 || !near(epe, 2.5) || !near(aae, want_aae))
        check_fail(r, "error measures: status %d, known %lld, EPE %g (2.5), AAE %g (%g)", st,
                   (long long)known, epe, aae, want_aae);
    else
        r->passed++;
    float unknown[2] = {2e9f, 2e9f};
    if (gcut_flow_error(ctx, flow, unknown, 1, 1, &epe, &aae, &known) != GCUT_E_INVALID)
        check_fail(r, "error measures: no known pixel did not fail");
    else
        r->passed++;
    /* The wheel: no motion is white, unknown black, rightward red,
     * leftward cyan-blue, downward (+v) green-yellow; full saturation at the
     * largest motion. */
    float f[10] = {0, 0, 5, 0, -5, 0, 0, 5, 1e10f, 0};
    uint8_t rgb[15];
    st = gcut_flow_colorize(ctx, f, 5, 1, 0, rgb);
    int ok = !st && rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255 && rgb[3] > 200 &&
             rgb[4] < 60 && rgb[5] < 60 && rgb[6] < 60 && rgb[8] > 200 && rgb[10] > 150 &&
             rgb[11] < 60 && rgb[12] == 0 && rgb[13] == 0 && rgb[14] == 0;
    if (!ok)
        check_fail(r, "colour wheel: white %d,%d,%d right %d,%d,%d left %d,%d,%d down %d,%d,%d "
                   "unknown %d,%d,%d", rgb[0], rgb[1], rgb[2], rgb[3], rgb[4], rgb[5], rgb[6],
                   rgb[7], rgb[8], rgb[9], rgb[10], rgb[11], rgb[12], rgb[13], rgb[14]);
    else
        r->passed++;
    gcut_context_destroy(ctx);
}

/* ---- the GPU path against the CPU's --------------------------------------- */

/* A synthetic pair on the GPU: the motion recovered within the CPU's bound. */
static void one_gpu_synthetic(check_report *r, gcut_context *cpu, gcut_context *gpu,
                              const char *algo, uint64_t seed, int index)
{
    (void)cpu;
    texture t;
    motion m;
    int w, h;
    char what[160];
    int kind = synthetic_case(seed, index, &t, &m, &w, &h, what, sizeof what);
    double epe = synthetic_epe(r, gpu, algo, &t, &m, w, h, 14, what);
    if (epe < 0)
        return;
    if (epe > synthetic_bound[kind])
        check_fail(r, "gpu: %s: EPE %.4f over %.2f", what, epe, synthetic_bound[kind]);
    else
        r->passed++;
}

void check_flow_gpu_synthetic(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, one_gpu_synthetic, GCUT__FLOW_GPU_ALGO, count, seed);
}

/* Row p's column q is one of its arcs in the CPU's instance: its cost, or -1. */
static int64_t arc_cost_of(const gcut__flow_arcs *a, int32_t p, int32_t q)
{
    int64_t best = -1;
    for (int64_t k = a->row_ptr[p]; k < a->row_ptr[p + 1]; k++)
        if (a->col[k] == q && (best < 0 || a->cost[k] < best))
            best = a->cost[k];
    return best;
}

/* One windowed instance: the GPU's assignment is one of the CPU instance's,
 * its cost is the CPU solver's optimum, and its prices pass
 * gcut_assign_verify on the CPU's instance. */
static void one_gpu_assignment(check_report *r, gcut_context *cpu, gcut_context *gpu,
                               const char *algo, uint64_t seed, int index)
{
    (void)algo;
    rng g = {seed * 15485863 + (uint64_t)index};
    /* Mostly small; every tenth a level of a real size; one row or column
     * now and then. */
    int w = 4 + (int)rng_below(&g, 44), h = 3 + (int)rng_below(&g, 32);
    if (index % 10 == 9)
        w = 160 + (int)rng_below(&g, 60), h = 120 + (int)rng_below(&g, 40);
    if (index % 17 == 5)
        h = 1;
    size_t n = (size_t)w * h;
    float *i0 = malloc(n * sizeof *i0), *i1 = malloc(n * sizeof *i1);
    float *prior = malloc(2 * n * sizeof *prior);
    uint64_t *s0 = malloc(n * sizeof *s0), *s1 = malloc(n * sizeof *s1);
    int32_t *mine = malloc(n * sizeof *mine), *ref = malloc(n * sizeof *ref);
    uint8_t *taken = calloc(2 * n, 1);
    int64_t *prices = malloc(3 * n * sizeof *prices);
    gcut_flow_options o;
    gcut_flow_options_init(&o);
    o.radius = 1 + (int)rng_below(&g, 3);
    o.patch = 3 + 2 * (int)rng_below(&g, 3);
    o.cost = rng_below(&g, 2) ? GCUT_FLOW_SAD : GCUT_FLOW_CENSUS;
    o.occlusion_cost = 1 + (int)rng_below(&g, 80);
    o.motion_penalty = (int)rng_below(&g, 4);
    int levels = rng_below(&g, 3) == 0 ? 2 : 256; /* flat: ties everywhere */
    /* Now and then priors past the radius: some windows lie wholly outside
     * frame 1 (a row with its dummy alone, which the settle of prices
     * places at 0). */
    const int far = index % 7 == 3 ? 80 : 30;
    if (!i0 || !i1 || !prior || !s0 || !s1 || !mine || !ref || !taken || !prices) {
        check_fail(r, "out of memory");
        goto done;
    }
    for (size_t p = 0; p < n; p++) {
        i0[p] = (float)rng_below(&g, levels) / (float)(levels - 1);
        i1[p] = (float)rng_below(&g, levels) / (float)(levels - 1);
        prior[2 * p] = (float)rng_range(&g, -far, far) / 10.0f;
        prior[2 * p + 1] = (float)rng_range(&g, -far, far) / 10.0f;
    }
    const float *pr = rng_below(&g, 2) ? prior : NULL;
    gcut__flow_census(i0, w, h, o.patch, s0, 1);
    gcut__flow_census(i1, w, h, o.patch, s1, 1);
    gcut__flow_arcs arcs;
    gcut_status st = gcut__flow_arcs_build(cpu, i0, i1, s0, s1, w, h, pr, &o, 1, &arcs);
    if (st) {
        check_fail(r, "instance %d: arcs: %s", index, gcut_last_error(cpu));
        goto done;
    }
    int64_t cpu_cost = 0, gpu_cost = 0, sum = 0, gap = 0;
    char what[128];
    snprintf(what, sizeof what, "instance %d (%dx%d, R %d, P %d, %s%s)", index, w, h, o.radius,
             o.patch, o.cost == GCUT_FLOW_SAD ? "sad" : "census", pr ? ", prior" : "");
    st = gcut_assign_csr(cpu, arcs.rows, arcs.cols, arcs.row_ptr, arcs.col, arcs.cost, 0, "ssp",
                         ref, &cpu_cost, NULL);
    if (st) {
        check_fail(r, "%s: cpu: %s", what, gcut_last_error(cpu));
    } else if ((st = gcut__flow_gpu_assign_level(gpu, i0, i1, w, h, pr, &o, mine, &gpu_cost,
                                                 prices))) {
        check_fail(r, "%s: gpu: %s", what, gcut_last_error(gpu));
    } else {
        int ok = 1;
        for (size_t p = 0; p < n && ok; p++) {
            int64_t c = mine[p] >= 0 && mine[p] < 2 * (int32_t)n && !taken[mine[p]]
                            ? arc_cost_of(&arcs, (int32_t)p, mine[p])
                            : -1;
            if (c < 0) {
                check_fail(r, "%s: gpu row %zu takes column %d, not a free arc of it", what, p,
                           mine[p]);
                ok = 0;
            } else {
                taken[mine[p]] = 1;
                sum += c;
            }
        }
        if (!ok) {
        } else if (sum != gpu_cost || gpu_cost != cpu_cost) {
            check_fail(r, "%s: gpu cost %lld (its arcs sum to %lld), cpu %lld", what,
                       (long long)gpu_cost, (long long)sum, (long long)cpu_cost);
        } else if (gcut_assign_verify(cpu, arcs.rows, arcs.cols, arcs.row_ptr, arcs.col,
                                      arcs.cost, 0, mine, gpu_cost, prices, &gap)) {
            check_fail(r, "%s: the GPU's proof: %s", what, gcut_last_error(cpu));
        } else {
            r->passed++;
        }
    }
    gcut__flow_arcs_free(&arcs);
done:
    free(i0), free(i1), free(prior), free(s0), free(s1), free(mine), free(ref), free(taken);
    free(prices);
}

void check_flow_gpu_assignment(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, one_gpu_assignment, NULL, count, seed);
}

/* Where RubberWhale is: $GCUT_MIDDLEBURY, or the shared data beside the tree. */
static const char *middlebury_dir(void)
{
    static char found[512];
    const char *env = getenv("GCUT_MIDDLEBURY");
    const char *candidates[] = {
        env,
#ifdef GCUT_CHECK_SOURCE_DIR
        GCUT_CHECK_SOURCE_DIR "/../shared/data/middlebury",
        GCUT_CHECK_SOURCE_DIR "/../../.devshared/data/middlebury",
#endif
        "../shared/data/middlebury",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i])
            continue;
        snprintf(found, sizeof found, "%s/RubberWhale/flow10.flo", candidates[i]);
        if (access(found, R_OK) == 0) {
            snprintf(found, sizeof found, "%s", candidates[i]);
            return found;
        }
    }
    return NULL;
}

/* The EPE of the GPU's and the CPU's flows on RubberWhale within this of
 * each other (CPU 0.106; ties between optimal assignments broken otherwise
 * on the GPU move a few integer matches). */
#define RUBBERWHALE_EPE_MARGIN 0.01
/* The two fields' mean endpoint difference under this (pixels). */
#define RUBBERWHALE_FIELD_MARGIN 0.1

static void one_gpu_rubberwhale(check_report *r, gcut_context *cpu, gcut_context *gpu,
                                const char *algo, uint64_t seed, int index)
{
    (void)seed, (void)index;
    const char *dir = middlebury_dir();
    if (!dir) {
        r->skipped++;
        return;
    }
    char p0[600], p1[600], pg[600];
    snprintf(p0, sizeof p0, "%s/RubberWhale/frame10.png", dir);
    snprintf(p1, sizeof p1, "%s/RubberWhale/frame11.png", dir);
    snprintf(pg, sizeof pg, "%s/RubberWhale/flow10.flo", dir);
    gcut_image *a = NULL, *b = NULL;
    float *truth = NULL, *fc = NULL, *fg = NULL;
    int tw = 0, th = 0;
    if (gcut_image_load(cpu, p0, &a) || gcut_image_load(cpu, p1, &b) ||
        gcut_flow_read(cpu, pg, &tw, &th, &truth)) {
        check_fail(r, "RubberWhale: %s", gcut_last_error(cpu));
        goto done;
    }
    int w = gcut_image_width(a), h = gcut_image_height(a), ch = gcut_image_channels(a);
    fc = malloc((size_t)w * h * 2 * sizeof *fc);
    fg = malloc((size_t)w * h * 2 * sizeof *fg);
    double epe_c = 0, epe_g = 0, aae = 0, diff = 0;
    gcut_flow_options o;
    gcut_flow_options_init(&o);
    if (!fc || !fg || tw != w || th != h) {
        check_fail(r, "RubberWhale: out of memory or a ground truth of another size");
    } else if (gcut_flow_frames(cpu, gcut_image_pixels(a), gcut_image_pixels(b), w, h, ch,
                                (size_t)w * ch, NULL, fc, NULL) ||
               gcut_flow_error(cpu, fc, truth, w, h, &epe_c, &aae, NULL)) {
        check_fail(r, "RubberWhale cpu: %s", gcut_last_error(cpu));
    } else if ((o.algo = algo, 0) ||
               gcut_flow_frames(gpu, gcut_image_pixels(a), gcut_image_pixels(b), w, h, ch,
                                (size_t)w * ch, &o, fg, NULL) ||
               gcut_flow_error(gpu, fg, truth, w, h, &epe_g, &aae, NULL)) {
        check_fail(r, "RubberWhale gpu: %s", gcut_last_error(gpu));
    } else {
        for (size_t p = 0; p < (size_t)w * h; p++)
            diff += hypot(fg[2 * p] - fc[2 * p], fg[2 * p + 1] - fc[2 * p + 1]);
        diff /= (double)w * h;
        if (fabs(epe_g - epe_c) > RUBBERWHALE_EPE_MARGIN || diff > RUBBERWHALE_FIELD_MARGIN)
            check_fail(r, "RubberWhale: EPE gpu %.4f, cpu %.4f; fields %.4f px apart", epe_g,
                       epe_c, diff);
        else
            r->passed++;
    }
done:
    gcut_image_destroy(a), gcut_image_destroy(b);
    gcut_flow_free(truth);
    free(fc), free(fg);
}

void check_flow_gpu_rubberwhale(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, one_gpu_rubberwhale, GCUT__FLOW_GPU_ALGO, count, seed);
}
