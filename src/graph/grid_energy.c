/* The segmentation energy (grid_energy.h): the CPU build, and the GPU one
 * behind the same calls when the solver table picks a GPU solver. */
#include "graph/grid_energy.h"

#include <stdlib.h>

#include "core/big_alloc.h"
#include "core/parallel.h"
#include "graph/grid_solve.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#include "gpu/segment_gpu.h"
#endif

struct gcut__grid_energy {
    gcut_grid *g;
    gcut__energy_image im;
    const gcut__grid_solver *solver;
    int keep_solution;
    int parts;               /* ranges of the per-pixel passes; results do not depend on it */
    const int32_t *table[2]; /* n-link weight by d2: axis-aligned, diagonal (during set) */
    const int32_t *tcap;     /* terminal capacity by entry (during set) */
    int32_t *source, *sink;  /* CPU: row-major terminal capacities */
    int64_t d2_sum[GCUT__MAX_THREADS]; /* per range: exact, so the total is too */
    int32_t largest[GCUT__MAX_THREADS];
#ifdef GCUT_HAVE_CUDA
    gcut__seg_gpu *gpu; /* the graph on the device; NULL on the CPU */
    int warm;           /* GPU: cuts start from the last flow (keep_warm) */
#endif
};

/* The arcs of a pair (p, q) once: from p to E, S, NE and SE. */
static const gcut_dir forward[4] = {GCUT_DIR_E, GCUT_DIR_S, GCUT_DIR_NE, GCUT_DIR_SE};

static inline int32_t d2_at(const uint8_t *rgb, int64_t p, int64_t q)
{
    int d0 = rgb[3 * p] - rgb[3 * q], d1 = rgb[3 * p + 1] - rgb[3 * q + 1],
        d2 = rgb[3 * p + 2] - rgb[3 * q + 2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* The pixels [*x0, *x1) of row y whose neighbour in direction (dx, dy) lies
 * inside the image; 0 when there are none. */
static int dir_span(int w, int h, int y, int dx, int dy, int *x0, int *x1)
{
    if (y + dy < 0 || y + dy >= h)
        return 0;
    *x0 = dx < 0 ? 1 : 0;
    *x1 = dx > 0 ? w - 1 : w;
    return *x0 < *x1;
}

/* Sum of d2 over the pairs whose first pixel is in rows [y0, y1). */
static void sum_d2_rows(void *arg, int64_t y0, int64_t y1, int part)
{
    gcut__grid_energy *e = arg;
    const gcut_grid *g = e->g;
    int64_t sum = 0;
    for (int64_t y = y0; y < y1; y++)
        for (int f = 0; f < g->ndirs / 2; f++) {
            int dx, dy, x0, x1;
            gcut_dir_offset(forward[f], &dx, &dy);
            if (!dir_span(g->width, g->height, (int)y, dx, dy, &x0, &x1))
                continue;
            int64_t p0 = y * g->width, off = (int64_t)dy * g->width + dx;
            for (int64_t p = p0 + x0; p < p0 + x1; p++)
                sum += d2_at(e->im.rgb, p, p + off);
        }
    e->d2_sum[part] = sum;
}

/* The arcs of the pairs whose first pixel is in rows [y0, y1), written
 * straight into the grid's capacity arrays: one table entry gives both arcs
 * of a pair, so they are equal. Each arc is written by exactly one pair, so
 * ranges never write the same entry. */
static void nlink_rows(void *arg, int64_t y0, int64_t y1, int part)
{
    (void)part;
    gcut__grid_energy *e = arg;
    gcut_grid *g = e->g;
    int w = g->width;
    for (int64_t y = y0; y < y1; y++)
        for (int f = 0; f < g->ndirs / 2; f++) {
            gcut_dir d = forward[f];
            int dx, dy, x0, x1;
            gcut_dir_offset(d, &dx, &dy);
            if (!dir_span(w, g->height, (int)y, dx, dy, &x0, &x1))
                continue;
            const int32_t *tab = e->table[dx != 0 && dy != 0];
            int32_t node = gcut__grid_node(g, 0, (int)y);
            int32_t *out = g->cap[d] + node, *back = g->cap[d ^ 1] + node + g->offset[d];
            int64_t p0 = y * w, off = (int64_t)dy * w + dx;
            for (int x = x0; x < x1; x++) {
                int32_t c = tab[d2_at(e->im.rgb, p0 + x, p0 + x + off)];
                out[x] = c;
                back[x] = c;
            }
        }
}

/* The largest sum of a pixel's arcs over rows [y0, y1). */
static void nlink_sums(void *arg, int64_t y0, int64_t y1, int part)
{
    gcut__grid_energy *e = arg;
    const gcut_grid *g = e->g;
    int32_t largest = 0;
    for (int64_t y = y0; y < y1; y++) {
        int32_t node = gcut__grid_node(g, 0, (int)y);
        for (int x = 0; x < g->width; x++) {
            int64_t sum = 0;
            for (int d = 0; d < g->ndirs; d++)
                sum += g->cap[d][node + x];
            /* The caller's table keeps this far below INT32_MAX; clamp anyway,
             * so that its overflow check sees a number past any limit. */
            sum = sum > INT32_MAX ? INT32_MAX : sum;
            largest = (int32_t)sum > largest ? (int32_t)sum : largest;
        }
    }
    e->largest[part] = largest;
}

static void pixel_terminals(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    gcut__grid_energy *e = arg;
    const uint32_t *of = e->im.colour_of_pixel;
    const uint8_t *seeds = e->im.seeds;
    const int64_t colors = e->im.colors;
    for (int64_t i = begin; i < end; i++) {
        int64_t entry = seeds[i] == GCUT_SEED_FG   ? colors
                        : seeds[i] == GCUT_SEED_BG ? colors + 1
                                                   : (int64_t)of[i];
        int32_t t = e->tcap[entry];
        e->source[i] = t > 0 ? t : 0;
        e->sink[i] = t > 0 ? 0 : -t;
    }
}

void gcut__grid_energy_close(gcut__grid_energy *e)
{
    if (!e)
        return;
    free(e->source);
    free(e->sink);
#ifdef GCUT_HAVE_CUDA
    gcut__seg_gpu_destroy(e->gpu);
#endif
    free(e);
}

gcut_status gcut__grid_energy_open(gcut_grid *g, const char *algo, const char *cpu_default,
                                   const gcut__energy_image *image, int keep_solution,
                                   gcut__grid_energy **out)
{
    *out = NULL;
    gcut__grid_energy *e = calloc(1, sizeof *e);
    if (!e)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "out of memory");
    e->g = g;
    e->im = *image;
    e->keep_solution = keep_solution;
    g->threads = image->threads; /* the per-pixel passes' count is the cut's too */
    int64_t n = (int64_t)g->width * g->height;
    e->parts = gcut__thread_count(image->threads, n);
    gcut_status st = gcut__grid_pick_solver(g, algo, cpu_default, &e->solver);
#ifdef GCUT_HAVE_CUDA
    if (!st && e->solver->gpu_variant >= 0) {
        st = gcut__seg_gpu_create(g, image->rgb, image->seeds, image->colour_of_pixel,
                                  image->colors, &e->gpu);
        /* --device auto: a GPU without room for the image means the CPU. */
        const gcut__grid_solver *cpu =
            st ? gcut__grid_fallback(g, e->solver, algo, cpu_default, st) : NULL;
        if (cpu) {
            e->solver = cpu;
            st = GCUT_OK;
        }
    }
#endif
    if (!st && e->solver->gpu_variant < 0) {
        e->source = gcut__big_alloc((size_t)n * sizeof(int32_t));
        e->sink = gcut__big_alloc((size_t)n * sizeof(int32_t));
        if (!e->source || !e->sink)
            st = gcut__fail(g->ctx, GCUT_E_NOMEM, "out of memory for %dx%d terminals", g->width,
                            g->height);
    }
    if (st) {
        gcut__grid_energy_close(e);
        return st;
    }
    *out = e;
    return GCUT_OK;
}

gcut_status gcut__grid_energy_d2_sum(gcut__grid_energy *e, int64_t *sum)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu)
        return gcut__seg_gpu_d2_sum(e->gpu, sum);
#endif
    gcut__parallel_for(e->parts, e->g->height, sum_d2_rows, e);
    *sum = 0;
    for (int p = 0; p < e->parts; p++)
        *sum += e->d2_sum[p];
    return GCUT_OK;
}

gcut_status gcut__grid_energy_set_nlinks(gcut__grid_energy *e, const int32_t *table, int len,
                                         int32_t *largest)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu)
        return gcut__seg_gpu_set_nlinks(e->gpu, table, len, largest);
#endif
    gcut__grid_forget_warm(e->g); /* written past the setters */
    e->g->solved = 0;
    e->table[0] = table;
    e->table[1] = table + len;
    gcut__parallel_for(e->parts, e->g->height, nlink_rows, e);
    gcut__parallel_for(e->parts, e->g->height, nlink_sums, e);
    e->table[0] = e->table[1] = NULL;
    *largest = 0;
    for (int p = 0; p < e->parts; p++)
        *largest = e->largest[p] > *largest ? e->largest[p] : *largest;
    return GCUT_OK;
}

gcut_status gcut__grid_energy_set_terminals(gcut__grid_energy *e, const int32_t *tcap)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu && e->warm) {
        gcut_status st = gcut__gpu_warm_seg_terminals(e->g, tcap);
        if (!st && e->keep_solution)
            st = gcut__gpu_warm_fetch_graph(e->g);
        return st;
    }
    if (e->gpu) {
        gcut_status st = gcut__seg_gpu_build(e->gpu, tcap);
        /* The proof is checked on the host: the graph comes up too. */
        if (!st && e->keep_solution)
            st = gcut__seg_gpu_fetch_graph(e->gpu);
        return st;
    }
#endif
    e->tcap = tcap;
    gcut__parallel_for(e->parts, (int64_t)e->g->width * e->g->height, pixel_terminals, e);
    e->tcap = NULL;
    /* Through the setter: a kept BK state learns which pixels changed. */
    return gcut_grid_set_terminals(e->g, e->source, e->sink);
}

#ifdef GCUT_HAVE_CUDA
static gcut_status solve_gpu(gcut__grid_energy *e, uint8_t *labels, gcut_solve_info *info)
{
    gcut_grid *g = e->g;
    int64_t iterations = 0;
    g->solved = 0;
    double t0 = gcut__now_ms();
    gcut_status st = gcut__seg_gpu_solve(e->gpu, e->solver->gpu_variant, labels, &iterations);
    if (e->warm)
        gcut__gpu_warm_seg_solved(g, st); /* g->flow: the whole flow, not this run's */
    double t1 = gcut__now_ms();
    if (!st && e->keep_solution) {
        st = gcut__grid_alloc_solution(g);
        if (!st)
            st = gcut__gpu_grid_download(g);
        g->solved = !st;
    }
    if (st)
        return st;
    g->info.flow = g->flow;
    g->info.time_ms = t1 - t0;
    g->info.device = gcut__device_label(g->ctx);
    g->info.algo = e->solver->name;
    g->info.iterations = iterations;
    *info = g->info;
    return GCUT_OK;
}
#endif

gcut_status gcut__grid_energy_solve(gcut__grid_energy *e, uint8_t *labels, gcut_solve_info *info)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu)
        return solve_gpu(e, labels, info);
#endif
    gcut_status st = gcut__grid_run_solver(e->g, e->solver, info);
    return st ? st : gcut_grid_labels(e->g, labels);
}

int gcut__grid_energy_needs_reopen(const gcut__grid_energy *e)
{
#ifdef GCUT_HAVE_CUDA
    return e->gpu != NULL && !e->warm;
#else
    (void)e;
    return 0;
#endif
}

gcut_status gcut__grid_energy_to_host(gcut__grid_energy *e)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu && e->warm)
        return gcut__gpu_warm_fetch_graph_as_set(e->g);
    if (e->gpu)
        return gcut__seg_gpu_fetch_graph(e->gpu);
#endif
    (void)e;
    return GCUT_OK;
}

gcut_status gcut__grid_energy_keep_warm(gcut__grid_energy *e)
{
#ifdef GCUT_HAVE_CUDA
    /* Only the tiled solver starts from a kept flow. */
    if (e->gpu && e->solver->solve == gcut__gpu_grid_tiled_warm) {
        gcut_status st =
            gcut__gpu_warm_seg_begin(e->g, e->im.colour_of_pixel, e->im.colors);
        if (!st)
            st = gcut__gpu_warm_seg_seeds(e->g, e->im.seeds);
        e->warm = !st;
        return st;
    }
#endif
    (void)e;
    return GCUT_OK;
}

gcut_status gcut__grid_energy_set_seeds(gcut__grid_energy *e, const uint8_t *seeds)
{
    e->im.seeds = seeds;
#ifdef GCUT_HAVE_CUDA
    if (e->gpu && e->warm)
        return gcut__gpu_warm_seg_seeds(e->g, seeds);
#endif
    return GCUT_OK;
}

int gcut__grid_energy_prices_on_device(const gcut__grid_energy *e)
{
#ifdef GCUT_HAVE_CUDA
    return e->gpu != NULL;
#else
    (void)e;
    return 0;
#endif
}

gcut_status gcut__grid_energy_price_begin(gcut__grid_energy *e, const uint8_t *colours,
                                          const uint32_t *n_free, const uint32_t *n_fg_seed,
                                          const uint32_t *n_bg_seed, int32_t hard_cap)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu)
        return gcut__seg_gpu_price_begin(e->gpu, colours, n_free, n_fg_seed, n_bg_seed,
                                         hard_cap);
#endif
    (void)colours, (void)n_free, (void)n_fg_seed, (void)n_bg_seed, (void)hard_cap;
    return gcut__fail(e->g->ctx, GCUT_E_STATE, "colours priced on a device the energy is not on");
}

gcut_status gcut__grid_energy_price_terminals(gcut__grid_energy *e, const gcut__price_model *fg,
                                              const gcut__price_model *bg, int64_t *constant,
                                              int32_t *tcap_scratch)
{
#ifdef GCUT_HAVE_CUDA
    if (e->gpu) {
        gcut_status st = gcut__seg_gpu_price(e->gpu, fg, bg, constant);
        if (st)
            return st;
        if (e->warm) {
            /* The warm cut takes its terminal table from the host. */
            st = gcut__seg_gpu_tcap_to_host(e->gpu, tcap_scratch);
            if (!st)
                st = gcut__gpu_warm_seg_terminals(e->g, tcap_scratch);
            if (!st && e->keep_solution)
                st = gcut__gpu_warm_fetch_graph(e->g);
            return st;
        }
        st = gcut__seg_gpu_build(e->gpu, NULL);
        if (!st && e->keep_solution)
            st = gcut__seg_gpu_fetch_graph(e->gpu);
        return st;
    }
#endif
    (void)fg, (void)bg, (void)constant, (void)tcap_scratch;
    return gcut__fail(e->g->ctx, GCUT_E_STATE, "colours priced on a device the energy is not on");
}
