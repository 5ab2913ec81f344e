/* The segmentation's reported energy against one computed here from the
 * definition in gcut.h: E(L) = sum_p D_p(L_p) + sum_{p~q, L_p != L_q} w_pq,
 * with D_p the colour models' cost (the difference of a free pixel's two
 * costs clamped to GCUT_SEGMENT_MAX_REGION, a seeded pixel priced under its
 * own label) and w_pq = lambda exp(-beta |I_p - I_q|^2) / dist(p, q). The
 * models are fitted here by the same internal fit to the same pixels (the
 * seeds' labels after one cut), so what is checked independently is how
 * the energy is assembled: which terminal prices which seed, the clamp,
 * the boundary. The library's capacities are rounded to 1/SCALE, so the
 * two agree within half a unit per term. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_hostile.h"
#include "vision/color_model.h"

typedef struct energy_case {
    int width, height, conn, fg_seeds;
    gcut_color_model model;
    int components;
    double lambda;
} energy_case;

/* An image with a disc of one colour on a background of another, noise
 * and a few stray pixels of the other colour. */
static void make_image(uint8_t *rgb, int w, int h, uint64_t *s)
{
    int cx = w / 2, cy = h / 2, rad = (w < h ? w : h) / 3;
    uint8_t fg[3] = {200, 60, 40}, bg[3] = {30, 90, 170};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int inside = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= rad * rad;
            if (check_mix(s) % 17 == 0)
                inside = !inside;
            for (int c = 0; c < 3; c++) {
                int v = (inside ? fg[c] : bg[c]) + (int)(check_mix(s) % 41) - 20;
                rgb[3 * ((size_t)y * w + x) + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
}

static double expected_energy(const energy_case *c, const uint8_t *rgb, const uint8_t *seeds,
                              const uint8_t *mask, const float *cost_fg, const float *cost_bg,
                              double beta)
{
    const double clamp = GCUT_SEGMENT_MAX_REGION;
    double e = 0;
    int w = c->width, h = c->height;
    for (int i = 0; i < w * h; i++) {
        double cf = cost_fg[i], cb = cost_bg[i];
        if (seeds[i] == GCUT_SEED_FG) {
            e += cf;
        } else if (seeds[i] == GCUT_SEED_BG) {
            e += cb;
        } else {
            double lo = cf < cb ? cf : cb, d = fabs(cf - cb);
            int cheaper = cf < cb ? 1 : cf > cb ? 0 : mask[i];
            e += lo + (mask[i] == cheaper ? 0 : (d < clamp ? d : clamp));
        }
    }
    /* Each unordered neighbour pair once: E, S, and for 8 also SE and SW. */
    static const int dx[4] = {1, 0, 1, -1}, dy[4] = {0, 1, 1, 1};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int d = 0; d < (c->conn == 8 ? 4 : 2); d++) {
                int nx = x + dx[d], ny = y + dy[d];
                if (nx < 0 || nx >= w || ny >= h || mask[y * w + x] == mask[ny * w + nx])
                    continue;
                const uint8_t *p = rgb + 3 * (y * w + x), *q = rgb + 3 * (ny * w + nx);
                double d2 = 0;
                for (int k = 0; k < 3; k++)
                    d2 += (double)(p[k] - q[k]) * (p[k] - q[k]);
                e += c->lambda * exp(-beta * d2) / (d < 2 ? 1.0 : sqrt(2.0));
            }
    return e;
}

static void one_case(check_report *r, gcut_context *ctx, const energy_case *c, uint64_t seed,
                     int index)
{
    int w = c->width, h = c->height, n = w * h;
    uint8_t *rgb = malloc((size_t)n * 3), *seeds = calloc((size_t)n, 1), *mask = malloc((size_t)n);
    uint8_t *label = malloc((size_t)n);
    float *cost_fg = malloc((size_t)n * sizeof *cost_fg),
          *cost_bg = malloc((size_t)n * sizeof *cost_bg);
    gcut__color_model fg = {0}, bg = {0};
    if (!rgb || !seeds || !mask || !label || !cost_fg || !cost_bg) {
        check_fail(r, "energy %d: out of memory", index);
        goto done;
    }
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)index + 1;
    make_image(rgb, w, h, &s);
    /* Background seeds: the border (a box); foreground seeds: a cross in
     * the middle, when the case has them. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                seeds[y * w + x] = GCUT_SEED_BG;
    if (c->fg_seeds)
        for (int k = -2; k <= 2; k++) {
            seeds[(h / 2) * w + w / 2 + k] = GCUT_SEED_FG;
            seeds[(h / 2 + k) * w + w / 2] = GCUT_SEED_FG;
        }

    gcut_segment_options o;
    gcut_segment_options_init(&o);
    o.model = c->model;
    o.components = c->components;
    o.lambda = c->lambda;
    o.connectivity = c->conn;
    o.iterations = 1;
    gcut_segment_info info;
    gcut_status st = gcut_segment_image(ctx, rgb, w, h, 3, (size_t)w * 3, seeds, &o, mask, &info);
    if (st) {
        check_fail(r, "energy %d: %s", index, gcut_last_error(ctx));
        goto done;
    }
    /* The first cut's models: fitted to the seeds, and without foreground
     * seeds to every unseeded pixel (GrabCut's rectangle). */
    for (int i = 0; i < n; i++)
        label[i] = seeds[i] == GCUT_SEED_FG   ? 1
                   : seeds[i] == GCUT_SEED_BG ? 0
                   : c->fg_seeds              ? 2
                                              : 1;
    fg.kind = bg.kind = c->model;
    fg.k = bg.k = c->components;
    st = gcut__color_model_fit(ctx, &fg, rgb, label, 1, n);
    if (!st)
        st = gcut__color_model_fit(ctx, &bg, rgb, label, 0, n);
    if (st) {
        check_fail(r, "energy %d: fit: %s", index, gcut_last_error(ctx));
        goto done;
    }
    gcut__color_model_cost(&fg, rgb, n, cost_fg);
    gcut__color_model_cost(&bg, rgb, n, cost_bg);
    double want = expected_energy(c, rgb, seeds, mask, cost_fg, cost_bg, info.beta);
    int pairs = (w - 1) * h + w * (h - 1) + (c->conn == 8 ? 2 * (w - 1) * (h - 1) : 0);
    double tol = 0.5 / GCUT_SEGMENT_SCALE * (n + pairs) + 1e-5 * fabs(want);
    if (!(fabs(info.energy - want) <= tol))
        check_fail(r,
                   "energy %d (%dx%d, %d-connected, %s, lambda %g, %s): reported %.4f, computed "
                   "%.4f (tolerance %.4f)",
                   index, w, h, c->conn, c->model == GCUT_MODEL_GMM ? "gmm" : "hist", c->lambda,
                   c->fg_seeds ? "seeds" : "box", info.energy, want, tol);
    else
        r->passed++;
done:
    gcut__color_model_free(&fg);
    gcut__color_model_free(&bg);
    free(rgb);
    free(seeds);
    free(mask);
    free(label);
    free(cost_fg);
    free(cost_bg);
}

void check_hostile_segment_energy(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "no context");
        return;
    }
    static const double lambdas[] = {0, 5, 50, 400};
    for (int i = 0; i < count; i++) {
        energy_case c = {12 + i % 13,
                         9 + (i * 7) % 11,
                         i % 2 ? 8 : 4,
                         (i / 2) % 2,
                         (i / 4) % 2 ? GCUT_MODEL_HIST : GCUT_MODEL_GMM,
                         1 + i % 5,
                         lambdas[(i / 8) % 4]};
        one_case(r, ctx, &c, seed, i);
    }
    gcut_context_destroy(ctx);
}
