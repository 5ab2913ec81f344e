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
 * 3 * 7e7 + 1e5, far below INT32_MAX; set_up_nlinks checks it anyway.
 *
 * Speed: region terms depend only on a pixel's colour, so they are priced
 * once per distinct colour (color_index.h); n-links come from a table of
 * exp() per squared difference. The graph of each cut is built from those
 * two tables where the solver the table picks runs (graph/grid_energy.h:
 * the grid's arrays on the CPU, the device on the GPU); the per-pixel
 * passes run on threads with results independent of their number. One
 * graph serves every cut, only its terminals changing between cuts. With
 * the graph on a GPU, GrabCut's GMM refits between cuts run there too, on
 * the cut's labels where the solve left them (gpu/segment_gpu.h): the
 * host's models bit for bit, so the masks are the CPU path's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/big_alloc.h"
#include "core/context.h"
#include "core/memory_budget.h"
#include "core/parallel.h"
#include "graph/grid_energy.h"
#include "vision/color_index.h"
#include "vision/color_model.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/segment_gpu.h"
#endif

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
    if (o->threads < 0 || o->threads > GCUT__MAX_THREADS)
        return gcut__fail(ctx, GCUT_E_INVALID, "threads %d is not in 0..%d", o->threads,
                          GCUT__MAX_THREADS);
    return GCUT_OK;
}

typedef struct seg_state {
    gcut_context *ctx;
    int width, height;
    int threads;       /* for the per-pixel stages; results do not depend on it */
    int64_t n;
    const uint8_t *rgb; /* 3 bytes per pixel: the caller's pixels when packed RGB */
    uint8_t *rgb_copy;  /* else ours */
    const uint8_t *seeds;
    gcut__color_index colors;
    /* Per distinct colour: how many free, foreground-seeded and
     * background-seeded pixels have it, its region costs, and the signed
     * terminal capacity of a free pixel of that colour (> 0: to the source). */
    uint32_t *n_free, *n_fg_seed, *n_bg_seed;
    float *cost_fg, *cost_bg;
    int64_t *constant_of; /* each colour's part of the energy's constant, scaled */
    int32_t *tcap;      /* colors + 2 entries: then the seeds' (grid_energy.h) */
    uint8_t *fit_label; /* 1 fit to foreground, 0 to background, 2 neither */
    uint8_t *mask, *best;
    int32_t *best_tcap; /* the best cut's terminal table (only with save_graph) */
    int32_t *runs;      /* n + height numbers: fit_labels_from_cut's stack */
    int32_t *seed_list; /* the seeded pixels: foreground ones first */
    int64_t n_fg_seeds, n_seeds;
    int save_graph;     /* keep the best cut's terminal table to write its graph */
    gcut_grid *grid;
    gcut__grid_energy *energy; /* the graph, where the solver runs */
#ifdef GCUT_HAVE_CUDA
    gcut__seg_refit *refit;    /* GMM refits on the graph's GPU, or NULL: on the host */
#endif
    double beta;
    int32_t hard_cap;
} seg_state;

static void pack_rgb(seg_state *s, const uint8_t *pixels, int channels, size_t stride)
{
    for (int y = 0; y < s->height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        uint8_t *out = s->rgb_copy + (size_t)y * (size_t)s->width * 3;
        if (channels == 3) {
            memcpy(out, row, (size_t)s->width * 3);
            continue;
        }
        for (int x = 0; x < s->width; x++) {
            const uint8_t *p = row + (size_t)x * (size_t)channels;
            int colour = channels >= 3;
            out[3 * x] = p[0];
            out[3 * x + 1] = colour ? p[1] : p[0];
            out[3 * x + 2] = colour ? p[2] : p[0];
        }
    }
}

/* beta from the exact sum of d2 over the pairs, and the n-link weight of
 * each d2 (entries [0, MAX_D2]: axis-aligned, then diagonal); NULL when out
 * of memory. */
static int32_t *nlink_table(seg_state *s, const gcut_segment_options *o, int64_t sum,
                            int64_t pairs)
{
    double mean = pairs ? (double)sum / (double)pairs : 0;
    /* A flat image has no contrast to weigh: any beta gives the same weights. */
    s->beta = mean > 0 ? 1.0 / (2.0 * mean) : 0.0;

    int32_t *table = malloc(2 * (MAX_D2 + 1) * sizeof(int32_t));
    if (!table)
        return NULL;
    int d2 = 0;
    for (; d2 <= MAX_D2; d2++) {
        double wt = o->lambda * exp(-s->beta * d2) * GCUT_SEGMENT_SCALE;
        table[d2] = (int32_t)lround(wt);
        table[MAX_D2 + 1 + d2] = (int32_t)lround(wt / sqrt(2.0)); /* diagonal: dist = sqrt 2 */
        if (table[d2] == 0)
            break; /* the weight only falls from here: the rest rounds to 0 too */
    }
    for (d2++; d2 <= MAX_D2; d2++)
        table[d2] = table[MAX_D2 + 1 + d2] = 0;
    return table;
}

static gcut_status set_hard_cap(seg_state *s, const gcut_segment_options *o, int32_t largest);

/* n-links in every direction and K. GrabCut's beta = 1 / (2 <|Ip - Iq|^2>)
 * over the neighbour pairs used. */
static gcut_status set_up_nlinks(seg_state *s, const gcut_segment_options *o)
{
    int w = s->width, h = s->height;
    int64_t sum = 0, pairs = (int64_t)(w - 1) * h + (int64_t)w * (h - 1);
    if (o->connectivity == 8)
        pairs += 2 * (int64_t)(w - 1) * (h - 1);
    gcut_status st = gcut__grid_energy_d2_sum(s->energy, &sum);
    if (st)
        return st;
    int32_t *table = nlink_table(s, o, sum, pairs), largest = 0;
    if (!table)
        return gcut__fail(s->ctx, GCUT_E_NOMEM, "out of memory");
    st = gcut__grid_energy_set_nlinks(s->energy, table, MAX_D2 + 1, &largest);
    free(table);
    return st ? st : set_hard_cap(s, o, largest);
}

/* K from the largest n-link sum. */
static gcut_status set_hard_cap(seg_state *s, const gcut_segment_options *o, int32_t largest)
{
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

/* The terminal capacity of a free pixel of colours [begin, end) from the
 * region costs, and each colour's part of the energy that does not depend
 * on the cut (color_price.h, the device's routine too). */
static void colour_terminal_range(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    seg_state *s = arg;
    for (int64_t u = begin; u < end; u++)
        s->constant_of[u] = gcut__price_terminal(s->cost_fg[u], s->cost_bg[u], s->n_free[u],
                                                 s->n_fg_seed[u], s->n_bg_seed[u], &s->tcap[u]);
}

/* The terminal table (colours on threads) and the energy's constant part,
 * scaled: an integer sum, the same for any order. */
static int64_t colour_terminals(seg_state *s)
{
    gcut__parallel_for(gcut__thread_count(s->threads, s->colors.count), s->colors.count,
                       colour_terminal_range, s);
    int64_t constant = 0;
    for (int64_t u = 0; u < s->colors.count; u++)
        constant += s->constant_of[u];
    s->tcap[s->colors.count] = s->hard_cap;
    s->tcap[s->colors.count + 1] = -s->hard_cap;
    return constant;
}

typedef struct cost_job {
    const gcut__color_model *fg, *bg;
    seg_state *s;
} cost_job;

static void colour_costs(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    cost_job *j = arg;
    const uint8_t *c = j->s->colors.colors + 3 * begin;
    gcut__color_model_cost(j->fg, c, end - begin, j->s->cost_fg + begin);
    gcut__color_model_cost(j->bg, c, end - begin, j->s->cost_bg + begin);
}

/* Fit both models to the pixels fit_label marks. */
static gcut_status fit_models(seg_state *s, gcut__color_model *fg, gcut__color_model *bg)
{
    return gcut__color_model_fit_pair(s->ctx, fg, bg, s->rgb, s->fit_label, s->n);
}

/* Price every colour under both models and set the graph's terminals from
 * the prices; *constant: the energy's scaled constant part. On a GPU the
 * device prices (the same routine, the same bits) and keeps the table,
 * unless the best cut's table must stay on the host to be written out. */
static gcut_status price_terminals(seg_state *s, const gcut__color_model *fg,
                                   const gcut__color_model *bg, int64_t *constant)
{
    if (gcut__grid_energy_prices_on_device(s->energy) && !s->save_graph) {
        gcut__price_model pf, pb;
        gcut__price_model_from(fg, &pf);
        gcut__price_model_from(bg, &pb);
        return gcut__grid_energy_price_terminals(s->energy, &pf, &pb, constant, s->tcap);
    }
    cost_job job = {fg, bg, s};
    /* A colour costs two models' components, many times a pixel's work
     * elsewhere: weigh it so when deciding how many threads pay. */
    int parts = gcut__thread_count(s->threads, 16 * s->colors.count);
    gcut__parallel_for(parts, s->colors.count, colour_costs, &job);
    *constant = colour_terminals(s);
    return gcut__grid_energy_set_terminals(s->energy, s->tcap);
}

/* Mark the maximal run of unmarked foreground through (x, y) and push it
 * (its first and last pixel numbers) for its neighbour rows to be scanned. */
static void fill_run(seg_state *s, const uint8_t *cut, int y, int x, int32_t *stack,
                     int64_t *top)
{
    const uint8_t *fg = cut + (int64_t)y * s->width;
    uint8_t *mark = s->fit_label + (int64_t)y * s->width;
    int l = x, r = x;
    while (l > 0 && fg[l - 1] && !mark[l - 1])
        l--;
    while (r < s->width - 1 && fg[r + 1] && !mark[r + 1])
        r++;
    memset(mark + l, 1, (size_t)(r - l + 1));
    stack[(*top)++] = (int32_t)((int64_t)y * s->width + l);
    stack[(*top)++] = (int32_t)((int64_t)y * s->width + r);
}

/* The labels to re-fit the models to after a cut: the foreground that a
 * path of foreground pixels joins to a foreground seed is the object; a
 * foreground blob that no seed reaches is scenery that merely looks like it
 * (grass beside a green bush), and the background model must learn its
 * colours, or the next cut keeps it. Without foreground seeds (a box) the
 * cut is taken as it is. A scanline flood fill: every maximal run is pushed
 * once, so the stack holds at most (n + height) / 2 runs of two numbers. */
static void fit_labels_from_cut(seg_state *s, const uint8_t *cut, int connectivity)
{
    if (s->n_fg_seeds == 0) {
        memcpy(s->fit_label, cut, (size_t)s->n);
        return;
    }
    memset(s->fit_label, 0, (size_t)s->n);
    int w = s->width, h = s->height, reach = connectivity == 8;
    int32_t *stack = s->runs;
    int64_t top = 0;
    for (int64_t k = 0; k < s->n_fg_seeds; k++) {
        int32_t p = s->seed_list[k];
        if (!s->fit_label[p])
            fill_run(s, cut, p / w, p % w, stack, &top);
        while (top > 0) {
            int32_t last = stack[--top], first = stack[--top];
            int ry = first / w, l = first % w, r = last % w;
            for (int ny = ry - 1; ny <= ry + 1; ny += 2) {
                if (ny < 0 || ny >= h)
                    continue;
                const uint8_t *fg = cut + (int64_t)ny * w;
                const uint8_t *mark = s->fit_label + (int64_t)ny * w;
                int x1 = r + reach < w - 1 ? r + reach : w - 1;
                for (int nx = l - reach > 0 ? l - reach : 0; nx <= x1; nx++)
                    if (fg[nx] && !mark[nx])
                        fill_run(s, cut, ny, nx, stack, &top);
            }
        }
    }
}

/* The first fit of a seed state: both models to the seeds (without
 * foreground seeds, a box, the foreground is every unseeded pixel, which
 * fit_label marks). A GMM's samples come straight from the seed list, where
 * each side's seeds are in pixel order as the selection over fit_label
 * would meet them: the same samples, without a pass over the image. */
static gcut_status fit_to_seeds(seg_state *s, gcut__color_model *fg, gcut__color_model *bg)
{
    if (fg->kind != GCUT_MODEL_GMM || s->n_fg_seeds == 0)
        return fit_models(s, fg, bg);
    gcut_status st = GCUT_OK;
    for (int t = 0; t < 2 && !st; t++) {
        const int32_t *list = s->seed_list + (t ? s->n_fg_seeds : 0);
        int64_t count = t ? s->n_seeds - s->n_fg_seeds : s->n_fg_seeds;
        int64_t step = gcut__color_model_sample_step(count), ns = (count + step - 1) / step;
        float *x = malloc((size_t)ns * 3 * sizeof *x);
        if (!x)
            return gcut__fail(s->ctx, GCUT_E_NOMEM, "out of memory fitting a colour model");
        for (int64_t j = 0; j < ns; j++)
            for (int c = 0; c < 3; c++)
                x[3 * j + c] = s->rgb[3 * (int64_t)list[j * step] + c];
        st = gcut__color_model_fit_samples(s->ctx, t ? bg : fg, x, ns);
        free(x);
    }
    return st;
}

#ifdef GCUT_HAVE_CUDA
static gcut_status assign_on_device(void *arg, const gcut__price_model models[2],
                                    gcut__gmm_sums sums[2][GCUT__GMM_MAX_K])
{
    return gcut__seg_refit_assign(arg, models, sums);
}

/* refit_models on the GPU that holds the cut (segment_gpu.h): fit labels,
 * samples and the rounds' sums there, the models from the sums here. */
static gcut_status refit_on_device(seg_state *s, gcut__color_model *fg, gcut__color_model *bg,
                                   int *stop)
{
    int64_t side[2], step[2], ns[2];
    gcut_status st = gcut__seg_refit_labels(s->refit, s->grid, s->best, side);
    if (st)
        return st;
    if (side[0] == 0 || side[1] == 0) {
        *stop = 1;
        return GCUT_OK;
    }
    for (int t = 0; t < 2; t++) {
        step[t] = gcut__color_model_sample_step(side[t]);
        ns[t] = (side[t] + step[t] - 1) / step[t];
    }
    st = gcut__seg_refit_select(s->refit, step, ns);
    return st ? st : gcut__color_model_refine_pair(fg, bg, ns, assign_on_device, s->refit);
}
#endif

/* Re-estimate the models from the best cut, s->best (GrabCut's
 * iteration); *stop when the cut left one side empty: that model has
 * nothing to learn from, and the cut stands as the answer (an empty or
 * full mask is one). */
static gcut_status refit_models(seg_state *s, int connectivity, gcut__color_model *fg,
                                gcut__color_model *bg, int *stop)
{
#ifdef GCUT_HAVE_CUDA
    if (s->refit)
        return refit_on_device(s, fg, bg, stop);
#endif
    fit_labels_from_cut(s, s->best, connectivity);
    if (!memchr(s->fit_label, 1, (size_t)s->n) || !memchr(s->fit_label, 0, (size_t)s->n)) {
        *stop = 1;
        return GCUT_OK;
    }
    return fit_models(s, fg, bg);
}

static void free_state(seg_state *s)
{
    free(s->rgb_copy);
    gcut__color_index_free(&s->colors);
    free(s->n_free);
    free(s->n_fg_seed);
    free(s->n_bg_seed);
    free(s->cost_fg);
    free(s->cost_bg);
    free(s->constant_of);
    free(s->tcap);
    free(s->fit_label);
    free(s->mask);
    free(s->best);
    free(s->best_tcap);
    free(s->runs);
    free(s->seed_list);
#ifdef GCUT_HAVE_CUDA
    gcut__seg_refit_destroy(s->refit);
#endif
    gcut__grid_energy_close(s->energy);
    gcut_grid_destroy(s->grid);
}

/* The colour index and the per-colour arrays. */
static gcut_status index_colours(seg_state *s)
{
    gcut_status st = gcut__color_index_build(s->ctx, s->rgb, s->n, s->threads, &s->colors);
    if (st)
        return st;
    size_t u = (size_t)s->colors.count;
    s->n_free = calloc(u, sizeof(uint32_t));
    s->n_fg_seed = calloc(u, sizeof(uint32_t));
    s->n_bg_seed = calloc(u, sizeof(uint32_t));
    s->cost_fg = malloc(u * sizeof(float));
    s->cost_bg = malloc(u * sizeof(float));
    s->constant_of = malloc(u * sizeof(int64_t));
    s->tcap = malloc((u + 2) * sizeof(int32_t));
    if (s->save_graph)
        s->best_tcap = malloc((u + 2) * sizeof(int32_t));
    if (!s->n_free || !s->n_fg_seed || !s->n_bg_seed || !s->cost_fg || !s->cost_bg ||
        !s->constant_of || !s->tcap ||
        (s->save_graph && !s->best_tcap))
        return gcut__fail(s->ctx, GCUT_E_NOMEM, "out of memory for %lld colours",
                          (long long)s->colors.count);
    return GCUT_OK;
}

/* How many free, foreground- and background-seeded pixels each colour has:
 * the seeds' counts from the seed list, the free ones the rest of the
 * colour's pixels (counted once per image), so a seed state costs its
 * seeds, not a pass over the image. */
static void count_seeds(seg_state *s)
{
    size_t u = (size_t)s->colors.count;
    memset(s->n_fg_seed, 0, u * sizeof(uint32_t));
    memset(s->n_bg_seed, 0, u * sizeof(uint32_t));
    const uint32_t *of = s->colors.of_pixel;
    for (int64_t k = 0; k < s->n_seeds; k++) {
        uint32_t *count = k < s->n_fg_seeds ? s->n_fg_seed : s->n_bg_seed;
        count[of[s->seed_list[k]]]++;
    }
    for (size_t c = 0; c < u; c++)
        s->n_free[c] = s->colors.pixels_of[c] - s->n_fg_seed[c] - s->n_bg_seed[c];
}

/* The seeds in two passes over parts: each part's foreground and
 * background seeds counted, then (knowing where its seeds start in the
 * list: foreground ones first, in pixel order, as a serial scan puts them)
 * listed, with each pixel's label for the first fit. */
typedef struct seed_job {
    seg_state *s;
    int parts;
    int labels; /* fit_label too: the first fit reads it (fit_to_seeds) */
    int64_t fg[GCUT__MAX_THREADS + 1], bg[GCUT__MAX_THREADS + 1]; /* counts, then starts */
} seed_job;

static void count_seed_range(void *arg, int64_t begin, int64_t end, int part)
{
    seed_job *j = arg;
    const uint8_t *seeds = j->s->seeds;
    int64_t fg = 0, bg = 0;
    for (int64_t i = begin; i < end; i++) {
        fg += seeds[i] == GCUT_SEED_FG;
        bg += seeds[i] == GCUT_SEED_BG;
    }
    j->fg[part] = fg;
    j->bg[part] = bg;
}

static void list_seed_range(void *arg, int64_t begin, int64_t end, int part)
{
    seed_job *j = arg;
    seg_state *s = j->s;
    const uint8_t *seeds = s->seeds;
    int64_t f = j->fg[part], b = j->bg[part];
    /* Without foreground seeds (a box alone), the foreground model starts
     * from every unseeded pixel, as GrabCut's rectangle does. */
    const uint8_t free_label = s->n_fg_seeds == 0 ? 1 : 2;
    if (!j->labels) {
        for (int64_t i = begin; i < end; i++)
            if (seeds[i] == GCUT_SEED_FG)
                s->seed_list[f++] = (int32_t)i;
            else if (seeds[i] == GCUT_SEED_BG)
                s->seed_list[b++] = (int32_t)i;
        return;
    }
    for (int64_t i = begin; i < end; i++) {
        if (seeds[i] == GCUT_SEED_FG) {
            s->seed_list[f++] = (int32_t)i;
            s->fit_label[i] = 1;
        } else if (seeds[i] == GCUT_SEED_BG) {
            s->seed_list[b++] = (int32_t)i;
            s->fit_label[i] = 0;
        } else {
            s->fit_label[i] = free_label;
        }
    }
}

/* The grid and the energy where its solver runs, the n-links and K.
 * `cpu_default`: the CPU solver when none is named. */
static gcut_status open_energy(seg_state *s, const gcut_segment_options *o,
                               const char *cpu_default, gcut_segment_info *info)
{
    double t1 = gcut__now_ms();
    gcut_status st = GCUT_OK;
    if (!s->grid)
        st = gcut_grid_create(s->ctx, s->width, s->height, o->connectivity, &s->grid);
    if (!st) {
        /* The cut runs where the solver table says: the GPU's default on a
         * GPU, else cpu_default. */
        gcut__energy_image image = {s->rgb, s->seeds, s->colors.of_pixel, s->colors.count,
                                    s->threads};
        st = gcut__grid_energy_open(s->grid, o->algo, cpu_default, &image, o->verify, &s->energy);
    }
    if (!st)
        st = set_up_nlinks(s, o);
#ifdef GCUT_HAVE_CUDA
    /* GMMs are refitted beside the graph when it is on a GPU: the host's
     * models bit for bit (segment_gpu.h). Without room there the host
     * refits them: slower, never different. */
    if (!st && !s->refit && o->model == GCUT_MODEL_GMM &&
        gcut__grid_energy_prices_on_device(s->energy) &&
        gcut__seg_refit_create(s->ctx, s->rgb, s->width, s->height, o->connectivity, &s->refit))
        gcut__log(s->ctx, 2, "segmentation: colour models refitted on the host: %s",
                  gcut_last_error(s->ctx));
#endif
    info->time_graph_ms += gcut__now_ms() - t1;
    return st;
}

/* What depends on the image alone: the colour index, and with
 * `with_energy` the energy (else segment() opens it after the first
 * models: a GPU still starting up, gcut_context_warm_device(), is then
 * waited for as late as can be). */
static gcut_status prepare_image(seg_state *s, const gcut_segment_options *o,
                                 const char *cpu_default, int with_energy,
                                 gcut_segment_info *info)
{
    double t0 = gcut__now_ms();
    gcut_status st = index_colours(s);
    info->time_model_ms += gcut__now_ms() - t0;
    if (!st && with_energy)
        st = open_energy(s, o, cpu_default, info);
    return st;
}

/* The foreground pixels of the best cut, on threads: per part an integer
 * count (the same total for any number of parts). */
typedef struct count_job {
    const uint8_t *mask;
    int64_t count[GCUT__MAX_THREADS];
} count_job;

static void count_range(void *arg, int64_t begin, int64_t end, int part)
{
    count_job *j = arg;
    int64_t count = 0;
    for (int64_t i = begin; i < end; i++)
        count += j->mask[i];
    j->count[part] = count;
}

static int64_t count_foreground(const seg_state *s)
{
    count_job job;
    job.mask = s->best;
    int parts = gcut__thread_count(s->threads, s->n);
    gcut__parallel_for(parts, s->n, count_range, &job);
    int64_t count = 0;
    for (int p = 0; p < parts; p++)
        count += job.count[p];
    return count;
}

/* The seeds' part: models fitted to them, then GrabCut's cuts on the
 * prepared graph; the best cut's labels into mask_out. */
static gcut_status segment(seg_state *s, const gcut_segment_options *o, uint8_t *mask_out,
                           gcut_segment_info *info)
{
    gcut_context *ctx = s->ctx;
    seed_job *seeds = calloc(1, sizeof *seeds);
    if (!seeds)
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory");
    seeds->s = s;
    seeds->parts = gcut__thread_count(s->threads, s->n);
    gcut__parallel_for(seeds->parts, s->n, count_seed_range, seeds);
    int64_t fg_seeds = 0, bg_seeds = 0;
    for (int p = 0; p < seeds->parts; p++) {
        fg_seeds += seeds->fg[p];
        bg_seeds += seeds->bg[p];
    }
    gcut_status st = GCUT_OK;
    if (bg_seeds == 0)
        st = gcut__fail(ctx, GCUT_E_INVALID,
                        "no background seeds (scribble some background, or give a box)");
    else if (fg_seeds + bg_seeds == s->n)
        st = gcut__fail(ctx, GCUT_E_INVALID, "every pixel is seeded, nothing is left to segment");
    if (!st) {
        free(s->seed_list);
        s->seed_list = gcut__big_alloc((size_t)(fg_seeds + bg_seeds) * sizeof(int32_t));
        if (!s->seed_list)
            st = gcut__fail(ctx, GCUT_E_NOMEM, "out of memory for %lld seeds",
                            (long long)(fg_seeds + bg_seeds));
    }
    if (st) {
        free(seeds);
        return st;
    }
    s->n_fg_seeds = fg_seeds;
    s->n_seeds = fg_seeds + bg_seeds;
    int64_t f = 0, b = 0;
    for (int p = 0; p < seeds->parts; p++) {
        int64_t fp = seeds->fg[p], bp = seeds->bg[p];
        seeds->fg[p] = f; /* where the part's first seeds go in the list */
        seeds->bg[p] = fg_seeds + b;
        f += fp, b += bp;
    }
    seeds->labels = o->model != GCUT_MODEL_GMM || fg_seeds == 0;
    gcut__parallel_for(seeds->parts, s->n, list_seed_range, seeds);
    free(seeds);

    gcut__color_model fg = {0}, bg = {0};
    fg.kind = bg.kind = o->model;
    fg.k = bg.k = o->components;
    fg.threads = bg.threads = s->threads;
    double t0 = gcut__now_ms();
    count_seeds(s);
    st = fit_to_seeds(s, &fg, &bg);
    info->time_model_ms += gcut__now_ms() - t0;
    if (!st && !s->energy)
        st = open_energy(s, o, "pbk", info);
#ifdef GCUT_HAVE_CUDA
    /* The device's refits start their fills from this state's foreground seeds. */
    if (!st && s->refit)
        st = gcut__seg_refit_seeds(s->refit, s->seed_list, s->n_fg_seeds);
#endif
    /* The device that prices learns this state's seeds per colour. */
    if (!st && gcut__grid_energy_prices_on_device(s->energy) && !s->save_graph)
        st = gcut__grid_energy_price_begin(s->energy, s->colors.colors, s->n_free, s->n_fg_seed,
                                           s->n_bg_seed, s->hard_cap);

    /* One graph for every cut: only the terminals change between cuts, so a
     * solver that keeps its residual graph can start from the last flow. */
    double best_energy = INFINITY;
    for (int it = 0; it < o->iterations && !st; it++) {
        double t2 = gcut__now_ms();
        int64_t constant = 0;
        gcut_solve_info si;
        st = price_terminals(s, &fg, &bg, &constant);
        double t3 = gcut__now_ms();
        info->time_graph_ms += t3 - t2;
        if (!st)
            st = gcut__grid_energy_solve(s->energy, s->mask, &si);
        double t5 = gcut__now_ms();
        if (t5 - t2 > info->time_recut_max_ms)
            info->time_recut_max_ms = t5 - t2;
        if (!st && o->verify)
            st = gcut_grid_verify(s->grid, NULL);
        info->time_cut_ms += gcut__now_ms() - t3;
        if (st)
            break;
        info->device = si.device;
        info->algo = si.algo;
        /* Hard constraints: K exceeds any cut through a pixel's n-links, so
         * a seeded pixel on the wrong side would mean a solver bug. */
        for (int64_t k = 0; k < s->n_seeds; k++) {
            int32_t i = s->seed_list[k];
            if (s->mask[i] == (k < s->n_fg_seeds))
                continue;
            st = gcut__fail(ctx, GCUT_E_VERIFY, "seeded pixel (%d, %d) ended on the %s side",
                            i % s->width, i / s->width,
                            k < s->n_fg_seeds ? "background" : "foreground");
            break;
        }
        if (st)
            break;
        /* After a minimum cut the flow is the cut's capacity: the free
         * pixels' region terms above their constant, plus the boundary;
         * all scaled integers, so the comparison below is exact. */
        double energy = (double)(constant + si.flow) / GCUT_SEGMENT_SCALE;
        info->iterations = it + 1;
        if (energy >= best_energy)
            break; /* GrabCut's iteration has stopped improving: keep the best */
        best_energy = energy;
        info->flow = si.flow;
        /* The best cut kept by a swap: the next cut goes to the other buffer. */
        uint8_t *cut = s->mask;
        s->mask = s->best;
        s->best = cut;
        if (s->best_tcap)
            memcpy(s->best_tcap, s->tcap, (size_t)(s->colors.count + 2) * sizeof(int32_t));
        if (it + 1 == o->iterations)
            break;
        double t4 = gcut__now_ms();
        int stop = 0;
        st = refit_models(s, o->connectivity, &fg, &bg, &stop);
        info->time_model_ms += gcut__now_ms() - t4;
        if (stop)
            break;
    }
    gcut__color_model_free(&fg);
    gcut__color_model_free(&bg);
    if (st)
        return st;
    info->energy = best_energy;
    info->beta = s->beta;
    info->hard_cap = s->hard_cap;
    int64_t count = count_foreground(s);
    info->foreground = count;
    if (count == 0 || count == s->n)
        gcut__log(ctx, 1, "the cut's foreground is %s",
                  count ? "the whole image" : "empty (the mask is all background)");
    memcpy(mask_out, s->best, (size_t)s->n);
    if (o->save_graph) {
        /* The saved graph is the one whose cut is the mask: a later, worse
         * iteration may have replaced its terminals. */
        st = gcut__grid_energy_set_terminals(s->energy, s->best_tcap);
        if (!st)
            st = gcut__grid_energy_to_host(s->energy);
        if (!st)
            st = gcut_grid_write_dimacs(s->grid, o->save_graph);
    }
    return st;
}

/* The first seed that is no seed value, or -1. Why blocks: a loop that
 * returns at the first bad byte cannot be vectorised, and at 4 MP it cost
 * milliseconds of every update; a block's OR of the tests can. */
static int64_t first_bad_seed(const uint8_t *seeds, int64_t n)
{
    enum { BLOCK = 4096 };
    for (int64_t b = 0; b < n; b += BLOCK) {
        int64_t e = b + BLOCK < n ? b + BLOCK : n;
        unsigned any = 0;
        for (int64_t i = b; i < e; i++)
            any |= seeds[i] > GCUT_SEED_BG;
        if (any)
            for (int64_t i = b; i < e; i++)
                if (seeds[i] > GCUT_SEED_BG)
                    return i;
    }
    return -1;
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
    int64_t bad = first_bad_seed(seeds, n);
    if (bad >= 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "seed value %d at pixel (%lld, %lld)",
                          seeds[bad], (long long)(bad % width), (long long)(bad / width));
    /* All a segmentation allocates, per pixel: the grid with its solver's
     * state (8 bytes per direction and 40), and the colour index and
     * tables, masks and labels (80 at most: measured 101 and 133 bytes a
     * pixel in all, 4- and 8-connected, on noise, where every colour is
     * new). Asked before anything is allocated. */
    char what[80];
    snprintf(what, sizeof what, "segmentation: %dx%d pixels, %d-connected,", width, height,
             o->connectivity);
    if ((st = gcut__memory_check(ctx, what, n * (8 * o->connectivity + 120))))
        return st;

    seg_state s = {0};
    s.ctx = ctx;
    s.width = width;
    s.height = height;
    s.n = n;
    s.seeds = seeds;
    s.threads = o->threads;
    size_t un = (size_t)n;
    /* Packed RGB is read where it is; anything else is packed first. */
    int packed = channels == 3 && stride_bytes == (size_t)width * 3;
    if (!packed)
        s.rgb_copy = gcut__big_alloc(un * 3);
    s.save_graph = o->save_graph != NULL;
    s.fit_label = gcut__big_alloc(un);
    s.mask = gcut__big_alloc(un);
    s.best = gcut__big_alloc(un);
    s.runs = gcut__big_alloc((un + (size_t)height) * sizeof(int32_t));
    if ((!packed && !s.rgb_copy) || !s.fit_label || !s.mask || !s.best || !s.runs) {
        free_state(&s);
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory for %dx%d pixels", width,
                          height);
    }
    double t0 = gcut__now_ms();
    if (!packed)
        pack_rgb(&s, pixels, channels, stride_bytes);
    s.rgb = packed ? pixels : s.rgb_copy;
    out->time_model_ms += gcut__now_ms() - t0;
    /* BK on all threads ("pbk": the same flow and labels as BK, several
     * times faster on a multi-core machine) when no solver is named. */
    st = prepare_image(&s, o, "pbk", 0, out);
    if (!st)
        st = segment(&s, o, mask, out);
    free_state(&s);
    return st;
}

/* ---- sessions: the image prepared once, one segmentation per seeds ---- */

struct gcut_segment_session {
    seg_state s;
    gcut_segment_options options;
    char *algo, *save_graph; /* the options' strings, copied */
    uint8_t *seeds;          /* the current seeds (the energy reads them) */
    double prepare_ms;       /* the image's part, reported with the first update */
    int updates;
};

void gcut_segment_session_destroy(gcut_segment_session *ss)
{
    if (!ss)
        return;
    free_state(&ss->s);
    free(ss->seeds);
    free(ss->algo);
    free(ss->save_graph);
    free(ss);
}

static char *copy_string(const char *text)
{
    if (!text)
        return NULL;
    size_t len = strlen(text) + 1;
    char *copy = malloc(len);
    if (copy)
        memcpy(copy, text, len);
    return copy;
}

gcut_status gcut_segment_session_create(gcut_context *ctx, const uint8_t *pixels, int width,
                                        int height, int channels, size_t stride_bytes,
                                        const gcut_segment_options *options,
                                        gcut_segment_session **out)
{
    gcut__clear_error(ctx);
    if (!out)
        return gcut__fail(ctx, GCUT_E_INVALID, "no place for the session");
    *out = NULL;
    gcut_segment_options defaults;
    gcut_segment_options_init(&defaults);
    const gcut_segment_options *o = options ? options : &defaults;
    if (!pixels)
        return gcut__fail(ctx, GCUT_E_INVALID, "no pixels given");
    if (width < 1 || height < 1 || channels < 1 || channels > 4)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "%dx%d pixels of %d channels (need 1 to 4 channels)", width, height,
                          channels);
    if ((int64_t)width * height > GCUT_IMAGE_MAX_PIXELS)
        return gcut__fail(ctx, GCUT_E_RANGE, "%dx%d is over the limit of %lld pixels", width,
                          height, (long long)GCUT_IMAGE_MAX_PIXELS);
    if (stride_bytes < (size_t)width * (size_t)channels)
        return gcut__fail(ctx, GCUT_E_INVALID, "stride %zu is under a row of %d bytes",
                          stride_bytes, width * channels);
    gcut_status st = check_options(ctx, o);
    if (st)
        return st;

    gcut_segment_session *ss = calloc(1, sizeof *ss);
    if (!ss)
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory for a session");
    ss->options = *o;
    ss->algo = copy_string(o->algo);
    ss->save_graph = copy_string(o->save_graph);
    ss->options.algo = ss->algo;
    ss->options.save_graph = ss->save_graph;
    int64_t n = (int64_t)width * height;
    size_t un = (size_t)n;
    seg_state *s = &ss->s;
    s->ctx = ctx;
    s->width = width;
    s->height = height;
    s->n = n;
    s->threads = o->threads;
    s->save_graph = o->save_graph != NULL;
    /* The session keeps its own copy of the pixels: the caller's may go. */
    s->rgb_copy = gcut__big_alloc(un * 3);
    ss->seeds = calloc(un, 1);
    s->fit_label = gcut__big_alloc(un);
    s->mask = gcut__big_alloc(un);
    s->best = gcut__big_alloc(un);
    s->runs = gcut__big_alloc((un + (size_t)height) * sizeof(int32_t));
    if (!s->rgb_copy || !ss->seeds || !s->fit_label || !s->mask || !s->best || !s->runs ||
        (o->algo && !ss->algo) || (o->save_graph && !ss->save_graph)) {
        gcut_segment_session_destroy(ss);
        return gcut__fail(ctx, GCUT_E_NOMEM, "out of memory for %dx%d pixels", width, height);
    }
    gcut_segment_info info;
    memset(&info, 0, sizeof info);
    double t0 = gcut__now_ms();
    pack_rgb(s, pixels, channels, stride_bytes);
    s->rgb = s->rgb_copy;
    s->seeds = ss->seeds;
    /* The one-shot default ("pbk") when no solver is named: the models are
     * fitted to each state's seeds afresh, so every pixel's terminals
     * change between updates, and plain BK warm from the last cut was
     * measured slower than pbk from zero (bench/segment_session_bench.c). */
    st = prepare_image(s, &ss->options, "pbk", 1, &info);
    /* Same image, same n-links: every cut of every state can start from
     * the last flow (on the GPU, where the solver keeps it on the device). */
    if (!st)
        st = gcut__grid_energy_keep_warm(s->energy);
    ss->prepare_ms = gcut__now_ms() - t0;
    if (st) {
        gcut_segment_session_destroy(ss);
        return st;
    }
    *out = ss;
    return GCUT_OK;
}

gcut_status gcut_segment_session_update(gcut_segment_session *ss, const uint8_t *seeds,
                                        uint8_t *mask, gcut_segment_info *info)
{
    if (!ss)
        return GCUT_E_INVALID;
    seg_state *s = &ss->s;
    gcut_context *ctx = s->ctx;
    gcut__clear_error(ctx);
    gcut_segment_info local;
    gcut_segment_info *out = info ? info : &local;
    memset(out, 0, sizeof *out);
    if (!seeds || !mask)
        return gcut__fail(ctx, GCUT_E_INVALID, "no %s given", !seeds ? "seeds" : "mask");
    int64_t bad = first_bad_seed(seeds, s->n);
    if (bad >= 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "seed value %d at pixel (%lld, %lld)",
                          seeds[bad], (long long)(bad % s->width), (long long)(bad / s->width));
    memcpy(ss->seeds, seeds, (size_t)s->n);
    double t0 = gcut__now_ms();
    gcut_status st = GCUT_OK;
    if (gcut__grid_energy_needs_reopen(s->energy)) {
        /* The device took the seeds with the image: a new energy there. */
        gcut__grid_energy_close(s->energy);
        s->energy = NULL;
        gcut__energy_image image = {s->rgb, s->seeds, s->colors.of_pixel, s->colors.count,
                                    s->threads};
        st = gcut__grid_energy_open(s->grid, ss->options.algo, "pbk", &image, ss->options.verify,
                                    &s->energy);
        if (!st)
            st = set_up_nlinks(s, &ss->options);
    } else {
        /* Only the seeds go to the energy (with a warm GPU cut: up to the device). */
        st = gcut__grid_energy_set_seeds(s->energy, s->seeds);
    }
    out->time_graph_ms += gcut__now_ms() - t0;
    if (!st)
        st = segment(s, &ss->options, mask, out);
    if (ss->updates++ == 0)
        out->time_graph_ms += ss->prepare_ms;
    return st;
}
