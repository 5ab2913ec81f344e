/* Interactive segmentation: the Boykov-Jolly energy with GrabCut's iterated
 * colour models, cut on the grid graph.
 *
 * Y. Boykov, M.-P. Jolly, "Interactive Graph Cuts for Optimal Boundary &
 * Region Segmentation of Objects in N-D Images", ICCV 2001 (hard
 * constraints, K, the boundary term); C. Rother, V. Kolmogorov, A. Blake,
 * "GrabCut", SIGGRAPH 2004 (GMM colour models, beta, iterated estimation).
 *
 * Scaling: every term is multiplied by GCUT_SEGMENT_SCALE and rounded. A
 * pixel's n-links sum to at most lambda * (4 + 4/sqrt 2) * SCALE < 7e7 (with
 * lambda <= GCUT_SEGMENT_MAX_LAMBDA), its region term to at most
 * GCUT_SEGMENT_MAX_REGION * SCALE, and K = 1 + the largest n-link sum, so
 * the capacities at any pixel (terminals + arcs out + arcs in) stay under
 * 3 * 7e7 + 1e5, far below INT32_MAX; set_up_nlinks checks it anyway. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/grid.h"
#include "vision/color_model.h"

/* Defaults, chosen on the whole GrabCut benchmark (bench/segment_quality.py),
 * never per image. */
#define DEFAULT_LAMBDA 75.0
#define DEFAULT_ITERATIONS 5
#define DEFAULT_COMPONENTS 5
/* d2 = |Ip - Iq|^2 of 8-bit RGB is an integer in 0..3*255^2: the n-link
 * weight of every pair comes from a table. */
#define MAX_D2 (3 * 255 * 255)

void gcut_segment_options_init(gcut_segment_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->model = GCUT_MODEL_GMM;
    o->components = DEFAULT_COMPONENTS;
    o->iterations = DEFAULT_ITERATIONS;
    o->lambda = DEFAULT_LAMBDA;
    o->connectivity = 8;
}

static gcut_status check_options(gcut_context *ctx, const gcut_segment_options *o)
{
    if (o->model != GCUT_MODEL_GMM && o->model != GCUT_MODEL_HIST)
        return gcut__fail(ctx, GCUT_E_INVALID, "unknown colour model %d", (int)o->model);
    if (o->components < 1 || o->components > GCUT__GMM_MAX_K)
        return gcut__fail(ctx, GCUT_E_INVALID, "components %d is not in 1..%d",
                          o->components, GCUT__GMM_MAX_K);
    if (o->iterations < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "iterations %d is not positive",
                          o->iterations);
    if (!(o->lambda >= 0 && o->lambda <= GCUT_SEGMENT_MAX_LAMBDA))
        return gcut__fail(ctx, GCUT_E_INVALID, "lambda %g is not in 0..%g", o->lambda,
                          GCUT_SEGMENT_MAX_LAMBDA);
    if (o->connectivity != 4 && o->connectivity != 8)
        return gcut__fail(ctx, GCUT_E_INVALID, "connectivity %d is not 4 or 8",
                          o->connectivity);
    return GCUT_OK;
}

typedef struct seg_state {
    gcut_context *ctx;
    int width, height;
    int64_t n;
    uint8_t *rgb;      /* 3 bytes per pixel */
    const uint8_t *seeds;
    int32_t *a, *b;    /* n-link scratch: one direction and its opposite */
    int32_t *nsum;     /* a pixel's n-link capacities, summed */
    int32_t *source, *sink;
    float *cost_fg, *cost_bg;
    uint8_t *fit_label; /* 1 fit to foreground, 0 to background, 2 neither */
    uint8_t *mask, *best;
    int32_t *best_source, *best_sink; /* only with save_graph */
    gcut_grid *grid;
    double beta;
    int32_t hard_cap;
} seg_state;

static void pack_rgb(seg_state *s, const uint8_t *pixels, int channels, size_t stride)
{
    for (int y = 0; y < s->height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        uint8_t *out = s->rgb + (size_t)y * (size_t)s->width * 3;
        for (int x = 0; x < s->width; x++) {
            const uint8_t *p = row + (size_t)x * (size_t)channels;
            int colour = channels >= 3;
            out[3 * x] = p[0];
            out[3 * x + 1] = colour ? p[1] : p[0];
            out[3 * x + 2] = colour ? p[2] : p[0];
        }
    }
}

static inline int32_t d2_at(const uint8_t *rgb, int64_t p, int64_t q)
{
    int d0 = rgb[3 * p] - rgb[3 * q], d1 = rgb[3 * p + 1] - rgb[3 * q + 1],
        d2 = rgb[3 * p + 2] - rgb[3 * q + 2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* GrabCut's beta = 1 / (2 <|Ip - Iq|^2>) over the neighbour pairs used. */
static double contrast_beta(const seg_state *s, int ndirs)
{
    double sum = 0;
    int64_t pairs = 0;
    int w = s->width, h = s->height;
    for (int d = 0; d < ndirs; d += 2) { /* E, S, NE, SE: each pair once */
        int dx, dy;
        gcut_dir_offset((gcut_dir)(d == 4 ? GCUT_DIR_NE : d == 6 ? GCUT_DIR_SE : d), &dx, &dy);
        for (int y = (dy < 0); y < h - (dy > 0); y++) {
            int64_t rowsum = 0;
            for (int x = 0; x < w - dx; x++) {
                int64_t p = (int64_t)y * w + x, q = (int64_t)(y + dy) * w + x + dx;
                rowsum += d2_at(s->rgb, p, q);
            }
            sum += (double)rowsum;
            pairs += w - dx;
        }
    }
    double mean = pairs ? sum / (double)pairs : 0;
    /* A flat image has no contrast to weigh: any beta gives the same weights. */
    return mean > 0 ? 1.0 / (2.0 * mean) : 0.0;
}

/* n-links in every direction, their per-pixel sums, and K. */
static gcut_status set_up_nlinks(seg_state *s, const gcut_segment_options *o)
{
    int w = s->width, h = s->height, ndirs = o->connectivity;
    s->beta = contrast_beta(s, ndirs);
    int32_t *table[2];
    table[0] = malloc((MAX_D2 + 1) * sizeof(int32_t));
    table[1] = malloc((MAX_D2 + 1) * sizeof(int32_t));
    if (!table[0] || !table[1]) {
        free(table[0]);
        free(table[1]);
        return gcut__fail(s->ctx, GCUT_E_NOMEM, "out of memory");
    }
    for (int d2 = 0; d2 <= MAX_D2; d2++) {
        double wt = o->lambda * exp(-s->beta * d2) * GCUT_SEGMENT_SCALE;
        table[0][d2] = (int32_t)lround(wt);
        table[1][d2] = (int32_t)lround(wt / sqrt(2.0)); /* diagonal: dist = sqrt 2 */
    }
    memset(s->nsum, 0, (size_t)s->n * sizeof(int32_t));
    gcut_status st = GCUT_OK;
    static const gcut_dir forward[4] = {GCUT_DIR_E, GCUT_DIR_S, GCUT_DIR_NE, GCUT_DIR_SE};
    for (int f = 0; f < ndirs / 2 && !st; f++) {
        gcut_dir d = forward[f];
        int dx, dy;
        gcut_dir_offset(d, &dx, &dy);
        const int32_t *tab = table[dx != 0 && dy != 0];
        memset(s->a, 0, (size_t)s->n * sizeof(int32_t));
        memset(s->b, 0, (size_t)s->n * sizeof(int32_t));
        int x0 = dx < 0 ? 1 : 0, x1 = dx > 0 ? w - 1 : w;
        int y0 = dy < 0 ? 1 : 0, y1 = dy > 0 ? h - 1 : h;
        int64_t off = (int64_t)dy * w + dx;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++) {
                int64_t p = (int64_t)y * w + x;
                int32_t c = tab[d2_at(s->rgb, p, p + off)];
                s->a[p] = c;
                s->b[p + off] = c; /* the same pair seen from q: symmetric */
                s->nsum[p] += c;
                s->nsum[p + off] += c;
            }
        st = gcut_grid_set_edges(s->grid, d, s->a);
        if (!st)
            st = gcut_grid_set_edges(s->grid, (gcut_dir)(d ^ 1), s->b);
    }
    free(table[0]);
    free(table[1]);
    if (st)
        return st;
    int32_t largest = 0;
    for (int64_t i = 0; i < s->n; i++)
        largest = s->nsum[i] > largest ? s->nsum[i] : largest;
    /* The bound of the header comment, checked: K + arcs out + arcs in. */
    int64_t worst = 1 + 3 * (int64_t)largest + (int64_t)(GCUT_SEGMENT_MAX_REGION * GCUT_SEGMENT_SCALE);
    if (worst > INT32_MAX)
        return gcut__fail(s->ctx, GCUT_E_OVERFLOW,
                          "n-link sums up to %d would overflow int32 capacities "
                          "(lambda %g too large)",
                          largest, o->lambda);
    s->hard_cap = largest + 1;
    return GCUT_OK;
}

/* Terminal capacities from the region costs and the seeds; returns the
 * energy's constant part (sum of each free pixel's smaller cost). */
static double set_terminals(seg_state *s)
{
    const double max_scaled = GCUT_SEGMENT_MAX_REGION * GCUT_SEGMENT_SCALE;
    double constant = 0;
    for (int64_t i = 0; i < s->n; i++) {
        if (s->seeds[i] == GCUT_SEED_FG) {
            s->source[i] = s->hard_cap, s->sink[i] = 0;
        } else if (s->seeds[i] == GCUT_SEED_BG) {
            s->source[i] = 0, s->sink[i] = s->hard_cap;
        } else {
            /* Source arc = cost of the background label, sink arc = cost of
             * foreground; only the difference matters to the cut. */
            double diff = ((double)s->cost_bg[i] - (double)s->cost_fg[i]) * GCUT_SEGMENT_SCALE;
            if (diff > max_scaled)
                diff = max_scaled;
            if (diff < -max_scaled)
                diff = -max_scaled;
            int32_t c = (int32_t)lround(fabs(diff));
            s->source[i] = diff > 0 ? c : 0;
            s->sink[i] = diff > 0 ? 0 : c;
            constant += diff > 0 ? s->cost_fg[i] : s->cost_bg[i];
        }
    }
    return constant;
}

static gcut_status fit_models(seg_state *s, gcut__color_model *fg, gcut__color_model *bg)
{
    gcut_status st = gcut__color_model_fit(s->ctx, fg, s->rgb, s->fit_label, 1, s->n);
    if (!st)
        st = gcut__color_model_fit(s->ctx, bg, s->rgb, s->fit_label, 0, s->n);
    if (!st) {
        gcut__color_model_cost(fg, s->rgb, s->n, s->cost_fg);
        gcut__color_model_cost(bg, s->rgb, s->n, s->cost_bg);
    }
    return st;
}

static void free_state(seg_state *s)
{
    free(s->rgb);
    free(s->a);
    free(s->b);
    free(s->nsum);
    free(s->source);
    free(s->sink);
    free(s->cost_fg);
    free(s->cost_bg);
    free(s->fit_label);
    free(s->mask);
    free(s->best);
    free(s->best_source);
    free(s->best_sink);
    gcut_grid_destroy(s->grid);
}

static gcut_status segment(seg_state *s, const gcut_segment_options *o, uint8_t *mask_out,
                           gcut_segment_info *info)
{
    gcut_context *ctx = s->ctx;
    int64_t fg_seeds = 0, bg_seeds = 0;
    for (int64_t i = 0; i < s->n; i++) {
        fg_seeds += s->seeds[i] == GCUT_SEED_FG;
        bg_seeds += s->seeds[i] == GCUT_SEED_BG;
    }
    if (bg_seeds == 0)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "no background seeds (scribble some background, or give a box)");
    if (fg_seeds + bg_seeds == s->n)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "every pixel is seeded, nothing is left to segment");
    /* Without foreground seeds (a box alone), the foreground model starts
     * from every unseeded pixel, as GrabCut's rectangle does. */
    for (int64_t i = 0; i < s->n; i++)
        s->fit_label[i] = s->seeds[i] == GCUT_SEED_FG   ? 1
                          : s->seeds[i] == GCUT_SEED_BG ? 0
                          : fg_seeds == 0               ? 1
                                                        : 2;

    gcut__color_model fg = {0}, bg = {0};
    fg.kind = bg.kind = o->model;
    fg.k = bg.k = o->components;
    double t0 = gcut__now_ms();
    gcut_status st = fit_models(s, &fg, &bg);
    double t1 = gcut__now_ms();
    info->time_model_ms += t1 - t0;
    if (!st)
        st = gcut_grid_create(ctx, s->width, s->height, o->connectivity, &s->grid);
    if (!st)
        st = set_up_nlinks(s, o);
    info->time_graph_ms += gcut__now_ms() - t1;

    double best_energy = INFINITY;
    const char *algo = o->algo;
    for (int it = 0; it < o->iterations && !st; it++) {
        double t2 = gcut__now_ms();
        double constant = set_terminals(s);
        st = gcut_grid_set_terminals(s->grid, s->source, s->sink);
        double t3 = gcut__now_ms();
        info->time_graph_ms += t3 - t2;
        gcut_solve_info si;
        if (!st)
            st = gcut_grid_solve(s->grid, algo, &si);
        if (!st && o->verify)
            st = gcut_grid_verify(s->grid, NULL);
        if (!st)
            st = gcut_grid_labels(s->grid, s->mask);
        info->time_cut_ms += gcut__now_ms() - t3;
        if (st)
            break;
        info->device = si.device;
        info->algo = si.algo;
        algo = si.algo; /* the same solver again, without repeating the device notice */
        /* Hard constraints: K exceeds any cut through a pixel's n-links, so
         * a seeded pixel on the wrong side would mean a solver bug. */
        double seeded = 0;
        for (int64_t i = 0; i < s->n; i++) {
            if (s->seeds[i] == GCUT_SEED_NONE)
                continue;
            int want = s->seeds[i] == GCUT_SEED_FG;
            if (s->mask[i] != want) {
                st = gcut__fail(ctx, GCUT_E_VERIFY,
                                "seeded pixel (%lld, %lld) ended on the %s side",
                                (long long)(i % s->width), (long long)(i / s->width),
                                want ? "background" : "foreground");
                break;
            }
            seeded += want ? s->cost_fg[i] : s->cost_bg[i];
        }
        if (st)
            break;
        /* After a minimum cut the flow is the cut's capacity: the free
         * pixels' region terms above their constant, plus the boundary. */
        double energy = constant + seeded + (double)si.flow / GCUT_SEGMENT_SCALE;
        info->iterations = it + 1;
        if (energy >= best_energy)
            break; /* GrabCut's iteration has stopped improving: keep the best */
        best_energy = energy;
        info->flow = si.flow;
        memcpy(s->best, s->mask, (size_t)s->n);
        if (s->best_source) {
            memcpy(s->best_source, s->source, (size_t)s->n * sizeof(int32_t));
            memcpy(s->best_sink, s->sink, (size_t)s->n * sizeof(int32_t));
        }
        if (it + 1 == o->iterations)
            break;
        /* Re-estimate the models from this segmentation. */
        double t4 = gcut__now_ms();
        memcpy(s->fit_label, s->mask, (size_t)s->n);
        st = fit_models(s, &fg, &bg);
        info->time_model_ms += gcut__now_ms() - t4;
    }
    gcut__color_model_free(&fg);
    gcut__color_model_free(&bg);
    if (st)
        return st;
    info->energy = best_energy;
    info->beta = s->beta;
    info->hard_cap = s->hard_cap;
    int64_t count = 0;
    for (int64_t i = 0; i < s->n; i++)
        count += s->best[i];
    info->foreground = count;
    memcpy(mask_out, s->best, (size_t)s->n);
    if (o->save_graph) {
        /* The saved graph is the one whose cut is the mask: a later, worse
         * iteration may have replaced its terminals. */
        st = gcut_grid_set_terminals(s->grid, s->best_source, s->best_sink);
        if (!st)
            st = gcut_grid_write_dimacs(s->grid, o->save_graph);
    }
    return st;
}

gcut_status gcut_segment_image(gcut_context *ctx, const uint8_t *pixels, int width, int height,
                               int channels, size_t stride_bytes, const uint8_t *seeds,
                               const gcut_segment_options *options, uint8_t *mask,
                               gcut_segment_info *info)
{
    gcut__clear_error(ctx);
    gcut_segment_options defaults;
    gcut_segment_options_init(&defaults);
    const gcut_segment_options *o = options ? options : &defaults;
    gcut_segment_info local;
    gcut_segment_info *out = info ? info : &local;
    memset(out, 0, sizeof *out);
    if (!pixels || !seeds || !mask)
        return gcut__fail(ctx, GCUT_E_INVALID, "no %s given",
                          !pixels ? "pixels" : !seeds ? "seeds" : "mask");
    if (width < 1 || height < 1 || channels < 1 || channels > 4)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "%dx%d pixels of %d channels (need 1 to 4 channels)", width,
                          height, channels);
    if ((int64_t)width * height > GCUT_IMAGE_MAX_PIXELS)
        return gcut__fail(ctx, GCUT_E_RANGE, "%dx%d is over the limit of %lld pixels",
                          width, height, (long long)GCUT_IMAGE_MAX_PIXELS);
    if (stride_bytes < (size_t)width * (size_t)channels)
        return gcut__fail(ctx, GCUT_E_INVALID, "stride %zu is under a row of %d bytes",
                          stride_bytes, width * channels);
    gcut_status st = check_options(ctx, o);
    if (st)
        return st;
    int64_t n = (int64_t)width * height;
    for (int64_t i = 0; i < n; i++)
        if (seeds[i] > GCUT_SEED_BG)
            return gcut__fail(ctx, GCUT_E_INVALID, "seed value %d at pixel (%lld, %lld)",
                              seeds[i], (long long)(i % width), (long long)(i / width));

    seg_state s = {0};
    s.ctx = ctx;
    s.width = width;
    s.height = height;
    s.n = n;
    s.seeds = seeds;
    size_t un = (size_t)n;
    s.rgb = malloc(un * 3);
    s.a = malloc(un * sizeof(int32_t));
    s.b = malloc(un * sizeof(int32_t));
    s.nsum = malloc(un * sizeof(int32_t));
    s.source = malloc(un * sizeof(int32_t));
    s.sink = malloc(un * sizeof(int32_t));
    s.cost_fg = malloc(un * sizeof(float));
    s.cost_bg = malloc(un * sizeof(float));
    s.fit_label = malloc(un);
    s.mask = malloc(un);
    s.best = malloc(un);
    if (o->save_graph) {
        s.best_source = malloc(un * sizeof(int32_t));
        s.best_sink = malloc(un * sizeof(int32_t));
    }
    if ((o->save_graph && (!s.best_source || !s.best_sink)) || !s.rgb || !s.a || !s.b || !s.nsum || !s.source || !s.sink || !s.cost_fg || !s.cost_bg ||
        !s.fit_label || !s.mask || !s.best) {
        free_state(&s);
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory for %dx%d pixels", width,
                          height);
    }
    double t0 = gcut__now_ms();
    pack_rgb(&s, pixels, channels, stride_bytes);
    out->time_model_ms += gcut__now_ms() - t0;
    st = segment(&s, o, mask, out);
    free_state(&s);
    return st;
}
