/* The colour pricing, host against a plain formula and device against host
 * (check_color_price.h). */
#include "check_color_price.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_rng.h"
#include "vision/color_model.h"
#include "vision/color_price.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#include "gpu/segment_gpu.h"
#endif

/* One instance: two models and the colours to price with their counts. */
typedef struct price_case {
    char what[96];
    gcut__color_model model[2];
    gcut__price_model price[2];
    int64_t count;
    uint8_t *colours;
    uint32_t *counts[3]; /* free, fg-seeded, bg-seeded */
} price_case;

static void case_free(price_case *c)
{
    gcut__color_model_free(&c->model[0]);
    gcut__color_model_free(&c->model[1]);
    free(c->colours);
    for (int k = 0; k < 3; k++)
        free(c->counts[k]);
    memset(c, 0, sizeof *c);
}

static double uniform(rng *r)
{
    return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

/* A GMM fitted to a cloud of random blobs (the library's own fit, so the
 * parameters are those a segmentation prices with). */
static int fitted_gmm(rng *r, gcut__color_model *m, int k)
{
    int64_t ns = rng_range(r, 1, 3000);
    float *x = malloc((size_t)ns * 3 * sizeof *x);
    if (!x)
        return 0;
    int blobs = (int)rng_range(r, 1, 6);
    double centre[6][3], spread[6];
    for (int b = 0; b < blobs; b++) {
        for (int c = 0; c < 3; c++)
            centre[b][c] = uniform(r) * 255;
        spread[b] = rng_below(r, 4) == 0 ? 0 : uniform(r) * 40;
    }
    for (int64_t i = 0; i < ns; i++) {
        int b = (int)rng_below(r, blobs);
        for (int c = 0; c < 3; c++) {
            double v = centre[b][c] + spread[b] * (uniform(r) - 0.5) * 2;
            x[3 * i + c] = (float)(int)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    memset(m, 0, sizeof *m);
    m->kind = GCUT_MODEL_GMM;
    m->k = k;
    m->threads = 1;
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    int ok = ctx && gcut__color_model_fit_samples(ctx, m, x, ns) == GCUT_OK;
    gcut_context_destroy(ctx);
    free(x);
    return ok;
}

/* A GMM with parameters no fit gives but the pricing must take: inverse
 * covariances from 1e-6 to 1e6 (off-diagonals of either sign), means off
 * the cube, normalisers from 0 to 1e4. */
static void extreme_gmm(rng *r, gcut__color_model *m, int k)
{
    memset(m, 0, sizeof *m);
    m->kind = GCUT_MODEL_GMM;
    m->k = k;
    m->fitted = 1;
    for (int j = 0; j < k; j++) {
        m->weight[j] = rng_below(r, 5) == 0 && j > 0 ? 0 : 1.0 / k;
        for (int c = 0; c < 3; c++)
            m->mean[j][c] = uniform(r) * 400 - 70;
        double scale = pow(10, uniform(r) * 12 - 6);
        for (int e = 0; e < 6; e++) {
            int diag = e == 0 || e == 3 || e == 5;
            m->inv_cov[j][e] = diag ? scale * (0.5 + uniform(r)) : scale * (uniform(r) - 0.5);
        }
        m->log_norm[j] = uniform(r) * (rng_below(r, 3) == 0 ? 1e4 : 20);
    }
}

static int histogram(rng *r, gcut__color_model *m)
{
    int64_t n = rng_range(r, 1, 4000);
    uint8_t *rgb = malloc((size_t)n * 3), *label = calloc((size_t)n, 1);
    if (!rgb || !label) {
        free(rgb);
        free(label);
        return 0;
    }
    for (int64_t i = 0; i < 3 * n; i++)
        rgb[i] = (uint8_t)rng_below(r, 256);
    memset(m, 0, sizeof *m);
    m->kind = GCUT_MODEL_HIST;
    m->threads = 1;
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    int ok = ctx && gcut__color_model_fit(ctx, m, rgb, label, 0, n) == GCUT_OK;
    gcut_context_destroy(ctx);
    free(rgb);
    free(label);
    return ok;
}

static int make_case(price_case *c, uint64_t seed, int index)
{
    memset(c, 0, sizeof *c);
    rng r = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index + 1};
    const char *kind[2];
    for (int side = 0; side < 2; side++) {
        int pick = (int)rng_below(&r, 6), k = (int)rng_range(&r, 1, GCUT__GMM_MAX_K);
        int ok;
        if (pick == 0) {
            ok = histogram(&r, &c->model[side]);
            kind[side] = "histogram";
        } else if (pick == 1) {
            extreme_gmm(&r, &c->model[side], k);
            ok = 1;
            kind[side] = "extreme GMM";
        } else {
            ok = fitted_gmm(&r, &c->model[side], pick == 2 ? 1 : k);
            kind[side] = "fitted GMM";
        }
        if (!ok)
            return 0;
        gcut__price_model_from(&c->model[side], &c->price[side]);
    }
    int64_t random = rng_range(&r, 0, 20000);
    c->count = 8 + 2 * GCUT__GMM_MAX_K + random;
    c->colours = malloc((size_t)c->count * 3);
    for (int k = 0; k < 3; k++)
        c->counts[k] = malloc((size_t)c->count * sizeof(uint32_t));
    if (!c->colours || !c->counts[0] || !c->counts[1] || !c->counts[2])
        return 0;
    int64_t u = 0;
    for (int corner = 0; corner < 8; corner++, u++)
        for (int ch = 0; ch < 3; ch++)
            c->colours[3 * u + ch] = (corner >> ch) & 1 ? 255 : 0;
    for (int side = 0; side < 2; side++)
        for (int j = 0; j < GCUT__GMM_MAX_K; j++, u++)
            for (int ch = 0; ch < 3; ch++) {
                double v = j < c->model[side].k ? c->model[side].mean[j][ch] : 128;
                c->colours[3 * u + ch] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
            }
    for (; u < c->count; u++)
        for (int ch = 0; ch < 3; ch++)
            c->colours[3 * u + ch] = (uint8_t)rng_below(&r, 256);
    /* Counts: small, or near the largest image's pixel count. */
    int huge = rng_below(&r, 4) == 0;
    for (int64_t v = 0; v < c->count; v++)
        for (int k = 0; k < 3; k++)
            c->counts[k][v] = huge && v < 3 ? (uint32_t)(GCUT_IMAGE_MAX_PIXELS / 3)
                                            : (uint32_t)rng_below(&r, rng_below(&r, 3) ? 50 : 2);
    snprintf(c->what, sizeof c->what, "instance %d: %s / %s, %lld colours", index, kind[0],
             kind[1], (long long)c->count);
    return 1;
}

/* GrabCut's price written out plainly: the cheapest component's
 * norm + q / 2, in float, in the order the library always summed it. */
static float plain_price(const gcut__color_model *m, const uint8_t *rgb)
{
    if (m->kind == GCUT_MODEL_HIST) {
        int s = 8 - GCUT__HIST_BITS;
        return m->neg_log[((rgb[0] >> s) << (2 * GCUT__HIST_BITS)) |
                          ((rgb[1] >> s) << GCUT__HIST_BITS) | (rgb[2] >> s)];
    }
    float best = FLT_MAX;
    for (int k = 0; k < m->k; k++) {
        if (m->weight[k] <= 0)
            continue;
        float d0 = rgb[0] - (float)m->mean[k][0], d1 = rgb[1] - (float)m->mean[k][1],
              d2 = rgb[2] - (float)m->mean[k][2];
        float v[6];
        for (int e = 0; e < 6; e++)
            v[e] = (float)m->inv_cov[k][e];
        float q = v[0] * d0 * d0 + v[3] * d1 * d1 + v[5] * d2 * d2 +
                  2 * (v[1] * d0 * d1 + v[2] * d0 * d2 + v[4] * d1 * d2);
        float c = (float)m->log_norm[k] + 0.5f * q;
        if (c < best)
            best = c;
    }
    return best;
}

/* The same in double, from the float parameters (how far float strays);
 * *size: the largest sum of a component's terms' magnitudes (what the
 * rounding error scales with). */
static double double_price(const gcut__color_model *m, const uint8_t *rgb, double *size)
{
    double best = INFINITY;
    *size = 0;
    for (int k = 0; k < m->k; k++) {
        if (m->weight[k] <= 0)
            continue;
        double d[3], v[6];
        for (int ch = 0; ch < 3; ch++)
            d[ch] = rgb[ch] - (double)(float)m->mean[k][ch];
        for (int e = 0; e < 6; e++)
            v[e] = (float)m->inv_cov[k][e];
        double q = v[0] * d[0] * d[0] + v[3] * d[1] * d[1] + v[5] * d[2] * d[2] +
                   2 * (v[1] * d[0] * d[1] + v[2] * d[0] * d[2] + v[4] * d[1] * d[2]);
        double c = (double)(float)m->log_norm[k] + 0.5 * q;
        best = c < best ? c : best;
        double mag = fabs(v[0] * d[0] * d[0]) + fabs(v[3] * d[1] * d[1]) +
                     fabs(v[5] * d[2] * d[2]) +
                     2 * (fabs(v[1] * d[0] * d[1]) + fabs(v[2] * d[0] * d[2]) +
                          fabs(v[4] * d[1] * d[2]));
        mag = fabs((double)(float)m->log_norm[k]) + 0.5 * mag;
        *size = mag > *size ? mag : *size;
    }
    return best;
}

/* The terminal entry and constant part by their definitions. */
static int64_t plain_terminal(float fg, float bg, const uint32_t n[3], int32_t *tcap)
{
    double diff = ((double)bg - (double)fg) * GCUT_SEGMENT_SCALE;
    double cap = GCUT_SEGMENT_MAX_REGION * GCUT_SEGMENT_SCALE;
    diff = diff > cap ? cap : diff < -cap ? -cap : diff;
    *tcap = (int32_t)(diff > 0 ? lround(diff) : -lround(-diff));
    double f = fg < 0 ? 0 : fg > GCUT__PRICE_CONSTANT_CAP ? GCUT__PRICE_CONSTANT_CAP : fg;
    double b = bg < 0 ? 0 : bg > GCUT__PRICE_CONSTANT_CAP ? GCUT__PRICE_CONSTANT_CAP : bg;
    int64_t fs = llround(f * GCUT_SEGMENT_SCALE), bs = llround(b * GCUT_SEGMENT_SCALE);
    return (int64_t)n[0] * (diff > 0 ? fs : bs) + (int64_t)n[1] * fs + (int64_t)n[2] * bs;
}

void check_color_price_host(check_report *r, int count, uint64_t seed)
{
    for (int i = 0; i < count; i++) {
        price_case c;
        if (!make_case(&c, seed, i)) {
            check_fail(r, "instance %d: out of memory or a fit failed", i);
            case_free(&c);
            continue;
        }
        int bad = 0;
        int64_t constant = 0, want_constant = 0;
        for (int64_t u = 0; u < c.count && !bad; u++) {
            const uint8_t *rgb = c.colours + 3 * u;
            float p[2];
            for (int side = 0; side < 2 && !bad; side++) {
                p[side] = gcut__price_colour(&c.price[side], rgb);
                float want = plain_price(&c.model[side], rgb);
                if (memcmp(&p[side], &want, sizeof want) != 0) {
                    check_fail(r, "%s: colour %lld model %d priced %.9g, the plain formula %.9g",
                               c.what, (long long)u, side, p[side], want);
                    bad = 1;
                }
                if (c.model[side].kind == GCUT_MODEL_GMM) {
                    double size, d = double_price(&c.model[side], rgb, &size);
                    if (!(fabs(p[side] - d) <= 1e-5 * size + 1e-3)) {
                        check_fail(r, "%s: colour %lld model %d priced %.9g, in double %.9g",
                                   c.what, (long long)u, side, p[side], d);
                        bad = 1;
                    }
                }
            }
            if (bad)
                break;
            uint32_t n[3] = {c.counts[0][u], c.counts[1][u], c.counts[2][u]};
            int32_t t, want_t;
            constant += gcut__price_terminal(p[0], p[1], n[0], n[1], n[2], &t);
            want_constant += plain_terminal(p[0], p[1], n, &want_t);
            if (t != want_t) {
                check_fail(r, "%s: colour %lld's terminal %d, by definition %d", c.what,
                           (long long)u, t, want_t);
                bad = 1;
            }
        }
        if (!bad && constant != want_constant) {
            check_fail(r, "%s: constant %lld, by definition %lld", c.what, (long long)constant,
                       (long long)want_constant);
            bad = 1;
        }
        if (!bad)
            r->passed++;
        case_free(&c);
    }
}

#ifdef GCUT_HAVE_CUDA
static void price_on_device(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, uint64_t seed, int index)
{
    (void)cpu, (void)algo;
    price_case c;
    if (!make_case(&c, seed, index)) {
        check_fail(r, "instance %d: out of memory or a fit failed", index);
        case_free(&c);
        return;
    }
    const int32_t hard_cap = (int32_t)(1 + (seed + (uint64_t)index) % 200000000);
    size_t u = (size_t)c.count;
    float *host[2] = {malloc(u * sizeof(float)), malloc(u * sizeof(float))};
    float *dev[2] = {malloc(u * sizeof(float)), malloc(u * sizeof(float))};
    int32_t *tcap = malloc((u + 2) * sizeof(int32_t)), *dev_tcap = malloc((u + 2) * sizeof(int32_t));
    int64_t constant = 0, dev_constant = -1;
    double ms = 0;
    if (!host[0] || !host[1] || !dev[0] || !dev[1] || !tcap || !dev_tcap) {
        check_fail(r, "%s: out of memory", c.what);
        goto done;
    }
    for (size_t v = 0; v < u; v++) {
        host[0][v] = gcut__price_colour(&c.price[0], c.colours + 3 * v);
        host[1][v] = gcut__price_colour(&c.price[1], c.colours + 3 * v);
        constant += gcut__price_terminal(host[0][v], host[1][v], c.counts[0][v], c.counts[1][v],
                                         c.counts[2][v], &tcap[v]);
    }
    tcap[u] = hard_cap;
    tcap[u + 1] = -hard_cap;
    if (gcut__seg_gpu_price_check(gpu, c.colours, c.count, &c.price[0], &c.price[1],
                                  c.counts[0], c.counts[1], c.counts[2], hard_cap, dev[0],
                                  dev[1], dev_tcap, &dev_constant, &ms) != GCUT_OK) {
        check_fail(r, "%s: the device's pricing failed: %s", c.what, gcut_last_error(gpu));
        goto done;
    }
    for (int side = 0; side < 2; side++)
        for (size_t v = 0; v < u; v++)
            if (memcmp(&host[side][v], &dev[side][v], sizeof(float)) != 0) {
                check_fail(r, "%s: colour %zu model %d: host %.9g, device %.9g", c.what, v,
                           side, host[side][v], dev[side][v]);
                goto done;
            }
    for (size_t v = 0; v < u + 2; v++)
        if (tcap[v] != dev_tcap[v]) {
            check_fail(r, "%s: terminal entry %zu: host %d, device %d", c.what, v, tcap[v],
                       dev_tcap[v]);
            goto done;
        }
    if (constant != dev_constant) {
        check_fail(r, "%s: constant: host %lld, device %lld", c.what, (long long)constant,
                   (long long)dev_constant);
        goto done;
    }
    r->passed++;
done:
    free(host[0]);
    free(host[1]);
    free(dev[0]);
    free(dev[1]);
    free(tcap);
    free(dev_tcap);
    case_free(&c);
}
#endif

void check_color_price_gpu_vs_cpu(check_report *r, int count, uint64_t seed)
{
#ifdef GCUT_HAVE_CUDA
    check_gpu_run(r, price_on_device, NULL, count, seed);
#else
    (void)seed;
    r->skipped += count;
#endif
}

/* Two models equal field by field (the parameters a fit sets). */
static int same_model(const gcut__color_model *a, const gcut__color_model *b)
{
    if (a->kind != b->kind || a->k != b->k || a->fitted != b->fitted)
        return 0;
    if (a->kind == GCUT_MODEL_HIST)
        return memcmp(a->neg_log, b->neg_log,
                      sizeof(float) << (3 * GCUT__HIST_BITS)) == 0;
    return memcmp(a->weight, b->weight, sizeof a->weight) == 0 &&
           memcmp(a->mean, b->mean, sizeof a->mean) == 0 &&
           memcmp(a->inv_cov, b->inv_cov, sizeof a->inv_cov) == 0 &&
           memcmp(a->log_norm, b->log_norm, sizeof a->log_norm) == 0;
}

void check_color_fit_pair(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no CPU context");
        return;
    }
    for (int i = 0; i < count; i++) {
        rng g = {seed * 0x2545f4914f6cdd1dULL + (uint64_t)i + 7};
        /* Large enough now and then for several threads' parts and a step > 1. */
        int64_t n = rng_below(&g, 8) == 0 ? rng_range(&g, 70000, 150000) : rng_range(&g, 1, 3000);
        uint8_t *rgb = malloc((size_t)n * 3), *label = malloc((size_t)n);
        if (!rgb || !label) {
            check_fail(r, "instance %d: out of memory", i);
            free(rgb);
            free(label);
            continue;
        }
        int palette = (int)rng_range(&g, 1, 40);
        uint8_t colours[40][3];
        for (int c = 0; c < palette; c++)
            for (int ch = 0; ch < 3; ch++)
                colours[c][ch] = (uint8_t)rng_below(&g, 256);
        int64_t p_fg = rng_below(&g, 100), p_bg = rng_below(&g, 100);
        for (int64_t p = 0; p < n; p++) {
            const uint8_t *c = colours[rng_below(&g, palette)];
            for (int ch = 0; ch < 3; ch++)
                rgb[3 * p + ch] = (uint8_t)(c[ch] + rng_below(&g, 9));
            int64_t roll = rng_below(&g, 100 + p_fg + p_bg);
            label[p] = roll < p_fg ? 1 : roll < p_fg + p_bg ? 0 : 2;
        }
        gcut_color_model kind = rng_below(&g, 4) == 0 ? GCUT_MODEL_HIST : GCUT_MODEL_GMM;
        int k = (int)rng_range(&g, 1, GCUT__GMM_MAX_K);
        int threads = rng_below(&g, 2) ? 1 : (int)rng_range(&g, 2, 8);
        gcut__color_model m[4];
        memset(m, 0, sizeof m);
        for (int j = 0; j < 4; j++) {
            m[j].kind = kind;
            m[j].k = k;
            m[j].threads = j < 2 ? threads : 1 + (threads % 3);
        }
        char one[256] = "", pair[256] = "";
        gcut_status a = gcut__color_model_fit(ctx, &m[0], rgb, label, 1, n);
        if (!a)
            a = gcut__color_model_fit(ctx, &m[1], rgb, label, 0, n);
        if (a)
            snprintf(one, sizeof one, "%s", gcut_last_error(ctx));
        gcut_status b = gcut__color_model_fit_pair(ctx, &m[2], &m[3], rgb, label, n);
        if (b)
            snprintf(pair, sizeof pair, "%s", gcut_last_error(ctx));
        if (a != b || strcmp(one, pair) != 0)
            check_fail(r, "instance %d (n %lld): two fits: %d '%s', the pair: %d '%s'", i,
                       (long long)n, (int)a, one, (int)b, pair);
        else if (!a && (!same_model(&m[0], &m[2]) || !same_model(&m[1], &m[3])))
            check_fail(r, "instance %d (n %lld, %s, k %d, threads %d/%d): the pair's models "
                          "differ from two fits'",
                       i, (long long)n, kind == GCUT_MODEL_HIST ? "hist" : "gmm", k, threads,
                       m[2].threads);
        else
            r->passed++;
        for (int j = 0; j < 4; j++)
            gcut__color_model_free(&m[j]);
        free(rgb);
        free(label);
    }
    gcut_context_destroy(ctx);
}

#ifdef GCUT_HAVE_CUDA
/* The fit labels by a plain breadth-first search: the cut's foreground
 * pixels a foreground path (4- or 8-connected) joins to one of the seeds;
 * without seeds, the cut. */
static void reach_from_seeds(const uint8_t *cut, int w, int h, int diagonal,
                             const int32_t *seeds, int64_t count, uint8_t *out, int32_t *queue)
{
    const int64_t n = (int64_t)w * h;
    if (count == 0) {
        memcpy(out, cut, (size_t)n);
        return;
    }
    memset(out, 0, (size_t)n);
    int64_t head = 0, tail = 0;
    for (int64_t k = 0; k < count; k++)
        if (cut[seeds[k]] && !out[seeds[k]]) {
            out[seeds[k]] = 1;
            queue[tail++] = seeds[k];
        }
    while (head < tail) {
        const int32_t p = queue[head++];
        const int x = p % w, y = p / w;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int nx = x + dx, ny = y + dy;
                if ((!dx && !dy) || (!diagonal && dx && dy) || nx < 0 || nx >= w || ny < 0 ||
                    ny >= h)
                    continue;
                const int32_t q = ny * w + nx;
                if (cut[q] && !out[q]) {
                    out[q] = 1;
                    queue[tail++] = q;
                }
            }
    }
}

static gcut_status assign_on_device(void *arg, const gcut__price_model models[2],
                                    gcut__gmm_sums sums[2][GCUT__GMM_MAX_K])
{
    return gcut__seg_refit_assign(arg, models, sums);
}

static int same_model(const gcut__color_model *a, const gcut__color_model *b);

/* One refit on the device against the host's: a random image and cut
 * (discs, stripes and noise, or all one side), foreground seeds on the cut's
 * foreground (none at times), GMMs fitted beforehand to random labels. */
static void refit_on_device(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, uint64_t seed, int index)
{
    (void)algo;
    rng g = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index * 0xd1b54a32d192ed03ULL + 3};
    /* Every fourth instance: many selection tiles and a sample step > 1. */
    const int big = index % 4 == 3;
    const int w = (int)rng_range(&g, 1, big ? 520 : 90), h = (int)rng_range(&g, 1, big ? 400 : 70);
    const int64_t n = (int64_t)w * h;
    const int diagonal = (int)rng_below(&g, 2);
    const int k = rng_below(&g, 5) ? (int)rng_range(&g, 1, 6) : (int)rng_range(&g, 1, 32);
    uint8_t *rgb = malloc((size_t)n * 3), *cut = malloc((size_t)n), *want = malloc((size_t)n);
    uint8_t *got = malloc((size_t)n), *label = malloc((size_t)n);
    int32_t *seeds = malloc((size_t)n * sizeof(int32_t)), *queue = malloc((size_t)n * sizeof(int32_t));
    gcut__seg_refit *rf = NULL;
    gcut__color_model host[2], dev[2];
    memset(host, 0, sizeof host);
    char what[160];
    snprintf(what, sizeof what, "instance %d (%dx%d, %d-connected, k %d)", index, w, h,
             diagonal ? 8 : 4, k);
    if (!rgb || !cut || !want || !got || !label || !seeds || !queue) {
        check_fail(r, "%s: out of memory", what);
        goto done;
    }
    uint8_t palette[8][3];
    for (int c = 0; c < 8; c++)
        for (int ch = 0; ch < 3; ch++)
            palette[c][ch] = (uint8_t)rng_below(&g, 256);
    const int shape = (int)rng_below(&g, 8); /* 0: all background, 1: all foreground */
    const int discs = (int)rng_range(&g, 1, 12), noise = (int)rng_below(&g, 20);
    int cx[12], cy[12], rad[12];
    for (int d = 0; d < discs; d++) {
        cx[d] = (int)rng_below(&g, w);
        cy[d] = (int)rng_below(&g, h);
        rad[d] = (int)rng_range(&g, 0, (w + h) / 6 + 1);
    }
    for (int64_t p = 0; p < n; p++) {
        const int x = (int)(p % w), y = (int)(p / w);
        int in = shape == 1;
        for (int d = 0; d < discs && shape > 1; d++)
            in |= (x - cx[d]) * (x - cx[d]) + (y - cy[d]) * (y - cy[d]) <= rad[d] * rad[d];
        if (shape > 1 && shape % 3 == 0)
            in |= (x + 2 * y) % 7 == 0; /* thin diagonal stripes: 8- and 4-connectivity differ */
        if (shape > 1 && noise && rng_below(&g, 100) < noise)
            in = !in;
        cut[p] = (uint8_t)in;
        const uint8_t *c = palette[(in ? 0 : 4) + rng_below(&g, 4)];
        for (int ch = 0; ch < 3; ch++)
            rgb[3 * p + ch] = (uint8_t)(c[ch] + rng_below(&g, 12));
        label[p] = (uint8_t)rng_below(&g, 3);
    }
    label[0] = 1; /* both sides of the first fit have pixels */
    label[n - 1] = 0;
    int64_t count = 0;
    const int64_t want_seeds = rng_below(&g, 4) == 0 ? 0 : rng_range(&g, 1, 30);
    for (int64_t p = 0; p < n && count < want_seeds; p += 1 + rng_below(&g, n / 20 + 1))
        if (cut[p])
            seeds[count++] = (int32_t)p;
    for (int t = 0; t < 2; t++) {
        host[t].kind = GCUT_MODEL_GMM;
        host[t].k = k;
        host[t].threads = 1 + (int)rng_below(&g, 3);
    }
    if (n < 2 || gcut__color_model_fit_pair(cpu, &host[0], &host[1], rgb, label, n)) {
        if (n < 2) /* one pixel cannot be both sides of the first fit */
            r->passed++;
        else
            check_fail(r, "%s: the first fit failed: %s", what, gcut_last_error(cpu));
        goto done;
    }
    dev[0] = host[0];
    dev[1] = host[1];
    reach_from_seeds(cut, w, h, diagonal, seeds, count, want, queue);
    int64_t side[2] = {0, 0}, want_side[2] = {0, 0};
    for (int64_t p = 0; p < n; p++)
        want_side[0] += want[p];
    want_side[1] = n - want_side[0];
    if (gcut__seg_refit_create(gpu, rgb, w, h, diagonal ? 8 : 4, &rf) ||
        gcut__seg_refit_seeds(rf, seeds, count) ||
        gcut__seg_refit_labels(rf, NULL, cut, side) || gcut__seg_refit_labels_to_host(rf, got)) {
        check_fail(r, "%s: the device's fit labels failed: %s", what, gcut_last_error(gpu));
        goto done;
    }
    if (memcmp(got, want, (size_t)n) != 0 || side[0] != want_side[0] || side[1] != want_side[1]) {
        int64_t p = 0;
        while (p < n && got[p] == want[p])
            p++;
        check_fail(r, "%s, %lld seeds: fit labels: %lld / %lld object pixels (device / host), "
                      "the first difference at (%lld, %lld)",
                   what, (long long)count, (long long)side[0], (long long)want_side[0],
                   (long long)(p % w), (long long)(p / w));
        goto done;
    }
    if (side[0] == 0 || side[1] == 0) { /* nothing to refit: segment.c stops there */
        r->passed++;
        goto done;
    }
    int64_t step[2], ns[2];
    for (int t = 0; t < 2; t++) {
        step[t] = gcut__color_model_sample_step(side[t]);
        ns[t] = (side[t] + step[t] - 1) / step[t];
    }
    if (gcut__color_model_fit_pair(cpu, &host[0], &host[1], rgb, want, n)) {
        check_fail(r, "%s: the host's refit failed: %s", what, gcut_last_error(cpu));
        goto done;
    }
    if (gcut__seg_refit_select(rf, step, ns) ||
        gcut__color_model_refine_pair(&dev[0], &dev[1], ns, assign_on_device, rf)) {
        check_fail(r, "%s: the device's refit failed: %s", what, gcut_last_error(gpu));
        goto done;
    }
    if (!same_model(&host[0], &dev[0]) || !same_model(&host[1], &dev[1]))
        check_fail(r, "%s, %lld seeds, sides %lld / %lld (steps %lld / %lld): the device's "
                      "models differ from the host's",
                   what, (long long)count, (long long)side[0], (long long)side[1],
                   (long long)step[0], (long long)step[1]);
    else
        r->passed++;
done:
    gcut__seg_refit_destroy(rf);
    free(rgb);
    free(cut);
    free(want);
    free(got);
    free(label);
    free(seeds);
    free(queue);
}
#endif

void check_color_refit_gpu_vs_cpu(check_report *r, int count, uint64_t seed)
{
#ifdef GCUT_HAVE_CUDA
    check_gpu_run(r, refit_on_device, NULL, count, seed);
#else
    (void)seed;
    r->skipped += count;
#endif
}
