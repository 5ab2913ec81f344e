/* gpu-grid-bench: the GPU grid solvers against BK on segmentation graphs.
 *
 * Graphs: each image of DATA/images with its scribbles DATA/scribbles1
 * (NAME-anno.png, palette index 1 foreground, 2 background), 4- and
 * 8-connected, at its own size; then one image upscaled (bilinear; seeds
 * nearest) to about 1 and 4 megapixels and to 3840x2160. Energy
 * (Boykov-Jolly): terminals -log P(colour | model) from 16^3-bin colour
 * histograms of the scribbles (add-one smoothing), scribbled pixels tied to
 * their terminal; n-links lambda * exp(-|dI|^2 / (2 beta)) / distance with
 * beta the mean |dI|^2 (contrast-sensitive); capacities are energies times
 * SCALE, rounded.
 *
 * Per graph: BK's solve time (CPU), the GPU's run time with the graph
 * already on the device (CUDA events, median of --reps runs, upload not
 * counted) and its part in global relabels, the whole GPU solve with
 * transfers, launches and tile runs, and the fraction of the
 * memory-bandwidth floor: (bytes the tile runs and relabels must move) /
 * time, against the device-to-device copy bandwidth measured here (the
 * table's header says what is counted). Every GPU flow is checked against
 * BK's and gcut_grid_verify() runs on the GPU's solution; a mismatch makes
 * the exit status 1.
 *
 * With --pymaxflow SCRIPT (gpu_grid_pymaxflow.py), each graph is also written
 * to the scratch folder and PyMaxflow times it; with --segment GCUT, the
 * image and its seeds go to the scratch folder and `GCUT segment --device
 * gpu` is timed on them.
 *
 * Usage: gpu-grid-bench DATA OUT.md [--reps N] [--upscale NAME] [--lockfree-max-mp X]
 *        [--only NAME] [--tune 1..5] [--sweeps N] [--pushes N] [--relabel-worklist 0..513]
 *        [--shared-res 0..6] [--push-worklist 0..8] [--pymaxflow SCRIPT] [--segment GCUT]
 *        [--scratch DIR] [--conn 4|8] [--min-mp X] [--modes A,B,...]
 *
 * --conn and --min-mp keep only the graphs of that connectivity and of at
 * least X megapixels (a profiler run on one graph: bench/gpu_device_profile.sh). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcut.h"
#include "gpu/gpu.h"

#define SCALE 64.0
#define LAMBDA 50.0
#define MAX_REGION 40.0

typedef struct rgb_image {
    int w, h;
    float *rgb;     /* w*h*3 */
    uint8_t *seed;  /* 0 none, 1 fg, 2 bg */
} rgb_image;

static int load_pair(gcut_context *ctx, const char *data, const char *name, rgb_image *out)
{
    char path[1024];
    gcut_image *im = NULL, *an = NULL;
    snprintf(path, sizeof path, "%s/images/%s.jpg", data, name);
    if (gcut_image_load(ctx, path, &im)) {
        fprintf(stderr, "gpu-grid-bench: %s\n", gcut_last_error(ctx));
        return -1;
    }
    snprintf(path, sizeof path, "%s/scribbles1/%s-anno.png", data, name);
    if (gcut_image_load(ctx, path, &an) || !gcut_image_indices(an) ||
        gcut_image_width(an) != gcut_image_width(im) ||
        gcut_image_height(an) != gcut_image_height(im)) {
        fprintf(stderr, "gpu-grid-bench: %s: no usable palette scribbles\n", path);
        gcut_image_destroy(im);
        gcut_image_destroy(an);
        return -1;
    }
    int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
    out->w = w;
    out->h = h;
    out->rgb = malloc((size_t)w * h * 3 * sizeof(float));
    out->seed = malloc((size_t)w * h);
    const uint8_t *px = gcut_image_pixels(im), *ix = gcut_image_indices(an);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        for (int k = 0; k < 3; k++)
            out->rgb[i * 3 + k] = px[i * c + (c >= 3 ? k : 0)];
        out->seed[i] = ix[i] == 1 ? 1 : ix[i] == 2 ? 2 : 0;
    }
    gcut_image_destroy(im);
    gcut_image_destroy(an);
    return 0;
}

static rgb_image upscale(const rgb_image *src, int w, int h)
{
    rgb_image r = {w, h, malloc((size_t)w * h * 3 * sizeof(float)), malloc((size_t)w * h)};
    for (int y = 0; y < h; y++) {
        double sy = (y + 0.5) * src->h / h - 0.5;
        int y0 = sy < 0 ? 0 : (int)sy, y1 = y0 + 1 < src->h ? y0 + 1 : y0;
        double fy = sy < 0 ? 0 : sy - y0;
        for (int x = 0; x < w; x++) {
            double sx = (x + 0.5) * src->w / w - 0.5;
            int x0 = sx < 0 ? 0 : (int)sx, x1 = x0 + 1 < src->w ? x0 + 1 : x0;
            double fx = sx < 0 ? 0 : sx - x0;
            for (int k = 0; k < 3; k++) {
                double a = src->rgb[((size_t)y0 * src->w + x0) * 3 + k];
                double b = src->rgb[((size_t)y0 * src->w + x1) * 3 + k];
                double c = src->rgb[((size_t)y1 * src->w + x0) * 3 + k];
                double d = src->rgb[((size_t)y1 * src->w + x1) * 3 + k];
                r.rgb[((size_t)y * w + x) * 3 + k] =
                    (float)((a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy);
            }
            int nx = (int)((x + 0.5) * src->w / w), ny = (int)((y + 0.5) * src->h / h);
            r.seed[(size_t)y * w + x] = src->seed[(size_t)ny * src->w + nx];
        }
    }
    return r;
}

static int bin_of(const float *c)
{
    int r = (int)c[0] >> 4, g = (int)c[1] >> 4, b = (int)c[2] >> 4;
    r = r > 15 ? 15 : r;
    g = g > 15 ? 15 : g;
    b = b > 15 ? 15 : b;
    return (r * 16 + g) * 16 + b;
}

static double dist2(const float *a, const float *b)
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* The graph of `im`; with `dump`, also its capacities in the raw format
 * that gpu_grid_pymaxflow.py reads (header, source, sink, each direction). */
static gcut_grid *build_graph(gcut_context *ctx, const rgb_image *im, int conn, FILE *dump)
{
    const int w = im->w, h = im->h;
    const size_t n = (size_t)w * h;
    gcut_grid *g = NULL;
    if (gcut_grid_create(ctx, w, h, conn, &g))
        return NULL;
    double *hist[2] = {calloc(4096, sizeof(double)), calloc(4096, sizeof(double))};
    double total[2] = {4096, 4096};
    for (size_t i = 0; i < n; i++)
        if (im->seed[i]) {
            hist[im->seed[i] - 1][bin_of(im->rgb + i * 3)] += 1;
            total[im->seed[i] - 1] += 1;
        }
    double beta = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (x + 1 < w)
                beta += dist2(im->rgb + i * 3, im->rgb + (i + 1) * 3);
            if (y + 1 < h)
                beta += dist2(im->rgb + i * 3, im->rgb + (i + w) * 3);
        }
    beta = beta / (2.0 * n) + 1e-9;
    int32_t *src = malloc(n * sizeof(int32_t)), *snk = malloc(n * sizeof(int32_t));
    int32_t *arc = malloc(n * sizeof(int32_t));
    const int32_t hard = (int32_t)(conn * LAMBDA * SCALE * 2 + 1);
    for (size_t i = 0; i < n; i++) {
        int b = bin_of(im->rgb + i * 3);
        double efg = -log((hist[0][b] + 1) / total[0]), ebg = -log((hist[1][b] + 1) / total[1]);
        efg = efg > MAX_REGION ? MAX_REGION : efg;
        ebg = ebg > MAX_REGION ? MAX_REGION : ebg;
        /* Cutting the source arc puts the pixel in the background. */
        src[i] = im->seed[i] == 1 ? hard : im->seed[i] == 2 ? 0 : (int32_t)lround(ebg * SCALE);
        snk[i] = im->seed[i] == 2 ? hard : im->seed[i] == 1 ? 0 : (int32_t)lround(efg * SCALE);
    }
    gcut_status st = gcut_grid_set_terminals(g, src, snk);
    if (dump) {
        const int32_t head[3] = {w, h, conn};
        fwrite(head, sizeof head, 1, dump);
        fwrite(src, sizeof *src, n, dump);
        fwrite(snk, sizeof *snk, n, dump);
    }
    for (int d = 0; d < conn && !st; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        double inv_len = (dx && dy) ? 1.0 / sqrt(2.0) : 1.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                int nx = x + dx, ny = y + dy;
                if (nx < 0 || ny < 0 || nx >= w || ny >= h) {
                    arc[i] = 0;
                    continue;
                }
                double e = dist2(im->rgb + i * 3, im->rgb + ((size_t)ny * w + nx) * 3);
                arc[i] = (int32_t)lround(LAMBDA * SCALE * inv_len * exp(-e / (2 * beta)));
            }
        st = gcut_grid_set_edges(g, (gcut_dir)d, arc);
        if (dump)
            fwrite(arc, sizeof *arc, n, dump);
    }
    free(hist[0]);
    free(hist[1]);
    free(src);
    free(snk);
    free(arc);
    if (st) {
        fprintf(stderr, "gpu-grid-bench: %s\n", gcut_last_error(ctx));
        gcut_grid_destroy(g);
        return NULL;
    }
    return g;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct gpu_result {
    double run_ms, solve_ms, relabel_ms;
    long long push, bfs, relabels, tile_runs, relabel_visits;
    int64_t flow;
    int ok;
} gpu_result;

/* Median run time of `reps` runs (graph uploaded before each, not timed),
 * after one full solve that is verified against BK's flow. */
static gpu_result time_gpu(gcut_context *ctx, gcut_grid *g, const char *algo, int reps,
                           int64_t want, const char *label)
{
    gpu_result r = {0};
    gcut_solve_info info;
    gcut_status st = gcut_grid_solve(g, algo, &info);
    if (st) {
        fprintf(stderr, "gpu-grid-bench: %s %s: %s\n", label, algo, gcut_last_error(ctx));
        return r;
    }
    r.flow = info.flow;
    r.solve_ms = info.time_ms;
    int64_t cut = 0;
    st = gcut_grid_verify(g, &cut);
    r.ok = !st && info.flow == want;
    if (!r.ok)
        fprintf(stderr, "gpu-grid-bench: %s %s: flow %lld, BK %lld, verify: %s\n", label, algo,
                (long long)info.flow, (long long)want, st ? gcut_last_error(ctx) : "ok");
    double *ms = calloc((size_t)reps, sizeof *ms), *rl = calloc((size_t)reps, sizeof *rl);
    gcut__gpu_grid_stats stats = {0};
    for (int i = 0; i < reps; i++) {
        int64_t it = 0;
        if (gcut__gpu_grid_upload(g) || gcut__gpu_grid_run(g, strcmp(algo, "tiled") ? 1 : 0, &it) ||
            gcut__gpu_grid_stats_get(ctx, &stats)) {
            fprintf(stderr, "gpu-grid-bench: %s %s: %s\n", label, algo, gcut_last_error(ctx));
            r.ok = 0;
            break;
        }
        ms[i] = stats.run_ms;
        rl[i] = stats.relabel_ms;
        if (g && gcut__gpu_grid_download(g) == GCUT_OK && i == 0) {
            /* The timed runs must give the verified answer too. */
            if (gcut_grid_verify(g, NULL) != GCUT_OK) {
                fprintf(stderr, "gpu-grid-bench: %s %s: timed run failed to verify: %s\n",
                        label, algo, gcut_last_error(ctx));
                r.ok = 0;
            }
        }
    }
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    qsort(rl, (size_t)reps, sizeof *rl, cmp_double);
    r.run_ms = ms[reps / 2];
    r.relabel_ms = rl[reps / 2];
    r.push = stats.push_launches;
    r.bfs = stats.bfs_launches;
    r.relabels = stats.relabels;
    r.tile_runs = stats.tile_runs;
    r.relabel_visits = stats.relabel_visits;
    free(ms);
    free(rl);
    return r;
}

/* --tune 1: the tiled solver's variants and knobs on the upscaled 1 MP and
 * 8.3 MP graphs, 8- and 4-connected, one line per setting (no table
 * written): relabel by rounds (0), by the default persistent worklist
 * launch (1) or with the parts 2 + GCUT_RELABEL_* bits; in-tile residuals
 * in global (0) or shared (1: the default; 2: one thread per pixel; 3: the
 * active-pixel list; 4, 5: those with the branch-free step) memory; push
 * launches the default way (0), as a persistent worklist (1), with the
 * host's read and memsets between (2), nothing between (3), or that
 * with each launch a programmatic dependent of the one before (4); local sweeps
 * per launch, launches per relabel. --tune 2: the push launch modes and the
 * relabel's opt-in parts against the kernels as profiled (2, 1, 2, 16, 8),
 * the first three sets twice, to show the spread. --tune 3: the relabel as
 * profiled in 2026-11 (2) against the default (1: OVERLAP), alternating,
 * three times each. --tune 4 (2026-11-22): the default (relabel with
 * OVERLAP and DIRTY, push step with the reverse arc raised by a shared
 * atomic) against the push step as before (shared 4) and the relabel
 * without DIRTY (6), alternating, three times each. */
static const int tune_knobs[][5] = {
    {0, 0, 0, 16, 8}, {1, 1, 0, 16, 8}, {1, 1, 0, 16, 16}, {1, 1, 0, 8, 8},
    {1, 1, 0, 8, 16}, {1, 1, 0, 32, 4}, {1, 1, 0, 32, 8},  {1, 1, 0, 16, 4},
    {1, 1, 0, 4, 16}, {1, 1, 1, 16, 4}, {1, 1, 1, 8, 8},   {1, 1, 0, 16, 8},
};
static const int tune_parts[][5] = {
    {2, 1, 2, 16, 8}, {2, 1, 3, 16, 8}, {2, 1, 4, 16, 8}, {5, 1, 4, 16, 8},
    {2, 1, 2, 16, 8}, {2, 1, 3, 16, 8}, {2, 1, 4, 16, 8},
};

static const int tune_session[][5] = {
    {2, 1, 0, 16, 8}, {1, 1, 0, 16, 8}, {2, 1, 0, 16, 8},
    {1, 1, 0, 16, 8}, {2, 1, 0, 16, 8}, {1, 1, 0, 16, 8},
};

static const int tune_parts4[][5] = {
    {1, 1, 0, 16, 8}, {1, 4, 0, 16, 8}, {6, 1, 0, 16, 8}, {1, 1, 0, 16, 8}, {1, 4, 0, 16, 8},
    {6, 1, 0, 16, 8}, {1, 1, 0, 16, 8}, {1, 4, 0, 16, 8}, {6, 1, 0, 16, 8},
};

/* The body of a tuning mode for one graph: the image, its connectivity,
 * the grid on the GPU context and BK's solve of the same graph. Returns
 * the solves it found wrong, or -1 when it could not run. */
typedef int (*graph_body)(gcut_context *gpu, const rgb_image *im, int conn, gcut_grid *gg,
                          const gcut_solve_info *bk, void *user);

/* The tuning modes' loop: NAME upscaled to each of `dims` (those under
 * `min_mp` megapixels skipped), 8- then 4-connected (only `only_conn` when
 * set), both grids built, BK's solve printed as "PREFIX WxH conn C BK ms",
 * then `body`. Exit status: 0, or 1 when a solve was wrong or failed. */
static int for_each_upscaled(gcut_context *cpu, gcut_context *gpu, const char *data,
                             const char *name, const int (*dims)[2], int n_dims, int only_conn,
                             double min_mp, const char *prefix, graph_body body, void *user)
{
    rgb_image base;
    if (load_pair(cpu, data, name, &base))
        return 1;
    int wrong = 0, failed = 0;
    for (int k = 0; k < n_dims && !failed; k++) {
        if ((double)dims[k][0] * dims[k][1] < min_mp * 1e6)
            continue;
        rgb_image im = upscale(&base, dims[k][0], dims[k][1]);
        for (int conn = 8; conn >= 4 && !failed; conn -= 4) {
            if (only_conn && conn != only_conn)
                continue;
            gcut_grid *gc = build_graph(cpu, &im, conn, NULL),
                      *gg = build_graph(gpu, &im, conn, NULL);
            gcut_solve_info bk;
            if (!gc || !gg || gcut_grid_solve(gc, "bk", &bk)) {
                fprintf(stderr, "gpu-grid-bench: %s %dx%d: building or BK's solve failed\n", name,
                        im.w, im.h);
                failed = 1;
            } else {
                printf("%s %dx%d conn %d BK %.1f ms\n", prefix, im.w, im.h, conn, bk.time_ms);
                const int w = body(gpu, &im, conn, gg, &bk, user);
                failed = w < 0;
                wrong += w > 0 ? w : 0;
            }
            gcut_grid_destroy(gc);
            gcut_grid_destroy(gg);
        }
        free(im.rgb);
        free(im.seed);
    }
    free(base.rgb);
    free(base.seed);
    return wrong || failed ? 1 : 0;
}

typedef struct tune_set {
    const int (*set)[5];
    size_t n;
    int reps;
    const char *name;
} tune_set;

static int tune_body(gcut_context *gpu, const rgb_image *im, int conn, gcut_grid *gg,
                     const gcut_solve_info *bk, void *user)
{
    const tune_set *ts = user;
    int wrong = 0;
    for (size_t c = 0; c < ts->n; c++) {
        const int *k = ts->set[c];
        gcut__gpu_grid_mode(gpu, k[0], k[1], k[2]);
        gcut__gpu_grid_tune(gpu, k[3], k[4], 0, 0);
        gpu_result t = time_gpu(gpu, gg, "tiled", ts->reps, bk->flow, ts->name);
        wrong += !t.ok;
        printf("tune %dx%d conn %d relabel-wl %d shared %d push-wl %d sweeps %3d pushes "
               "%2d: %8.3f ms (relabel %7.3f) push %lld bfs %lld relabels %lld tile-runs "
               "%lld visits %.1f %s\n",
               im->w, im->h, conn, k[0], k[1], k[2], k[3], k[4], t.run_ms, t.relabel_ms, t.push,
               t.bfs, t.relabels, t.tile_runs,
               t.relabels ? (double)t.relabel_visits / t.relabels /
                                (((im->w + 31) / 32) * ((im->h + 15) / 16))
                          : 0.0,
               t.ok ? "ok" : "WRONG");
        fflush(stdout);
    }
    return wrong;
}

static int tune_run(gcut_context *cpu, gcut_context *gpu, const char *data, const char *name,
                    int reps, int which)
{
    /* GCUT_RELABEL_* bits (grid_kernels.h): 1 take ahead, 2 lazy mask, 4 overlap, 8 dirty */
    tune_set ts = {tune_knobs, sizeof tune_knobs / sizeof tune_knobs[0], reps, name};
    if (which == 4)
        ts.set = tune_parts4, ts.n = sizeof tune_parts4 / sizeof tune_parts4[0];
    else if (which == 3)
        ts.set = tune_session, ts.n = sizeof tune_session / sizeof tune_session[0];
    else if (which == 2)
        ts.set = tune_parts, ts.n = sizeof tune_parts / sizeof tune_parts[0];
    static const int dims[][2] = {{1152, 864}, {3840, 2160}};
    return for_each_upscaled(cpu, gpu, data, name, dims, 2, 0, 0, "tune", tune_body, &ts);
}

/* --tune 5 (2026-11-22, round 2): the solver's path, solve by solve, in
 * the mode that the other options set. On the upscaled 1 MP and 8.3 MP
 * graphs, 8- and 4-connected, `reps` solves, one line each: time, relabel
 * time, push launches, relabels, tile runs, relabel visits a tile; every
 * solve verified (gcut_grid_verify()) with its cut equal to BK's flow.
 * Medians hide the slow path that every variant sometimes takes
 * (bench/results); these lines show how often, and where its extra work
 * goes. With --modes A,B,... (round 3), each rep solves once in each of
 * those push modes (--push-worklist values), in turn, for A/B runs that
 * share the graphs and BK's solve; an entry P:R also sets the relabel
 * (--relabel-worklist R) for its solves (round 4). After each solve's line,
 * one line a cycle (round 4): the active pixels and tiles the relabel left,
 * its time and tile visits (of its exact pass), with KEEP the tiles that
 * pass kept at first and the first pass's claims, and the push phase's
 * launches, tile runs and time. Round 5: also the 4 MP graph (2304x1728);
 * --conn keeps one connectivity and --min-mp skips the smaller graphs, as
 * in the table; an entry P:R:S also sets the push step (--shared-res S). */
typedef struct path_set {
    const int *modes, *rmodes, *smodes;
    int n_modes, reps;
    const char *name;
} path_set;

static int path_body(gcut_context *gpu, const rgb_image *im, int conn, gcut_grid *gg,
                     const gcut_solve_info *bk, void *user)
{
    const path_set *ps = user;
    const double tiles = (double)((im->w + 31) / 32) * ((im->h + 15) / 16);
    gcut_solve_info ginfo; /* a first solve sizes the grid's result arrays */
    if (gcut_grid_solve(gg, "tiled", &ginfo) || ginfo.flow != bk->flow) {
        fprintf(stderr, "gpu-grid-bench: %s: the first GPU solve failed\n", ps->name);
        return -1;
    }
    int wrong = 0;
    for (int solve = 0; solve < ps->reps * ps->n_modes; solve++) {
        const int rep = solve / ps->n_modes, m = solve % ps->n_modes;
        if (ps->modes[0] >= 0)
            gcut__gpu_grid_mode(gpu, ps->rmodes[m], ps->smodes[m], ps->modes[m]);
        gcut__gpu_grid_stats st = {0};
        int64_t cut = -1;
        const int ok = !gcut__gpu_grid_upload(gg) && !gcut__gpu_grid_run(gg, 0, NULL) &&
                       !gcut__gpu_grid_stats_get(gpu, &st) && !gcut__gpu_grid_download(gg) &&
                       !gcut_grid_verify(gg, &cut) && cut == bk->flow;
        wrong += !ok;
        printf("path %dx%d conn %d shared %d push-wl %d relabel-wl %d rep %2d: %8.3f ms "
               "(relabel %7.3f) push %lld relabels %lld tile-runs %lld visits %.2f %s\n",
               im->w, im->h, conn, st.shared_res, st.push_worklist,
               st.relabel_worklist ? 2 + st.relabel_variant : 0, rep, st.run_ms, st.relabel_ms,
               st.push_launches, st.relabels, st.tile_runs,
               st.relabels ? (double)st.relabel_visits / st.relabels / tiles : 0.0,
               ok ? "ok" : "WRONG");
        /* Where the cycles go: one line each, from the run's own counters. */
        for (int c = 0; c < st.cycles; c++) {
            const gcut__gpu_grid_cycle *y = &st.cycle[c];
            /* The push phase: to the next relabel's start, or the run's end. */
            const double end = c + 1 < st.cycles ? st.cycle[c + 1].start_ms : st.run_ms;
            printf("  cycle %2d: active %8lld px %5lld tiles  relabel %.3f ms visits "
                   "%6lld kept %5lld checks %5lld  push launches %2d tile runs %6lld "
                   "%.3f ms\n",
                   c, y->active_pixels, y->active_tiles, y->relabel_ms, y->visits, y->kept,
                   y->checks, y->launches, y->tile_runs, end - y->start_ms - y->relabel_ms);
        }
        fflush(stdout);
    }
    return wrong;
}

static int path_run(gcut_context *cpu, gcut_context *gpu, const char *data, const char *name,
                    int reps, const int *modes, const int *rmodes, const int *smodes, int n_modes,
                    int only_conn, double min_mp)
{
    static const int dims[][2] = {{1152, 864}, {2304, 1728}, {3840, 2160}};
    path_set ps = {modes, rmodes, smodes, n_modes, reps, name};
    return for_each_upscaled(cpu, gpu, data, name, dims, 3, only_conn, min_mp, "path", path_body,
                             &ps);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "Usage: gpu-grid-bench DATA OUT.md [--reps N] [--upscale NAME] "
                        "[--lockfree-max-mp X] [--only NAME]\n");
        return 2;
    }
    const char *data = argv[1], *out_path = argv[2];
    int reps = 9;
    const char *up_name = "flower", *only = NULL;
    const char *pymaxflow = NULL, *segment = NULL, *scratch = "/tmp/gcut-gpu-bench";
    double lockfree_max_mp = 1.1, min_mp = 0;
    int only_conn = 0;
    int tune = 0, sweeps = 0, pushes = 0, cycles = 0, batch = 0, worklist = -1, shared = -1;
    int push_wl = -1, modes[8] = {-1}, rmodes[8] = {-1}, smodes[8] = {-1}, n_modes = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--tune"))
            tune = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sweeps"))
            sweeps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pushes"))
            pushes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--relabel-worklist"))
            worklist = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--push-worklist"))
            push_wl = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--modes")) {
            char *end = argv[i + 1];
            for (n_modes = 0; n_modes < 8 && *end;) {
                char *start = end;
                modes[n_modes] = (int)strtol(start, &end, 10);
                if (end == start)
                    break;
                rmodes[n_modes] = smodes[n_modes] = -1; /* P:R also sets --relabel-worklist R */
                if (*end == ':')
                    rmodes[n_modes] = (int)strtol(end + 1, &end, 10);
                if (*end == ':') /* P:R:S also sets --shared-res S (round 5) */
                    smodes[n_modes] = (int)strtol(end + 1, &end, 10);
                n_modes++;
                if (*end == ',')
                    end++;
            }
            if (n_modes == 0)
                modes[n_modes++] = -1;
        } else if (!strcmp(argv[i], "--shared-res"))
            shared = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch"))
            batch = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cycles"))
            cycles = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--upscale"))
            up_name = argv[i + 1];
        else if (!strcmp(argv[i], "--lockfree-max-mp"))
            lockfree_max_mp = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--pymaxflow"))
            pymaxflow = argv[i + 1];
        else if (!strcmp(argv[i], "--segment"))
            segment = argv[i + 1];
        else if (!strcmp(argv[i], "--scratch"))
            scratch = argv[i + 1];
        else if (!strcmp(argv[i], "--conn"))
            only_conn = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-mp"))
            min_mp = atof(argv[i + 1]);
    }
    if (reps < 1)
        reps = 1;
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    gcut_context *cpu = NULL, *gpu = NULL;
    gcut_context_create(&opt, &cpu);
    opt.device = GCUT_DEVICE_GPU;
    gcut_context_create(&opt, &gpu);
    char devname[256] = "none";
    if (gcut_device_name(gpu, 0, devname, sizeof devname)) {
        fprintf(stderr, "gpu-grid-bench: no GPU: %s\n", gcut_last_error(gpu));
        return 1;
    }
    gcut__gpu_grid_tune(gpu, sweeps, pushes, cycles, batch);
    gcut__gpu_grid_mode(gpu, worklist, shared, push_wl);
    if (tune == 5)
        return path_run(cpu, gpu, data, up_name, reps, modes, rmodes, smodes, n_modes, only_conn,
                        min_mp);
    if (tune)
        return tune_run(cpu, gpu, data, up_name, reps, tune);
    double gbps = 0;
    if (gcut__gpu_copy_bandwidth(gpu, (size_t)1 << 30, 20, &gbps)) {
        fprintf(stderr, "gpu-grid-bench: %s\n", gcut_last_error(gpu));
        return 1;
    }
    FILE *out = fopen(out_path, "w");
    if (!out) {
        perror(out_path);
        return 1;
    }
    fprintf(out, "# GPU grid cut on %s\n\n", devname);
    fprintf(out, "Device-to-device copy bandwidth measured here: %.0f GB/s (read + write, "
                 "median of 20 copies of 1 GiB).\n\n", gbps);
    fprintf(out, "GPU ms: solve with the graph already on the device (CUDA events, median of "
                 "%d runs), and the part of it spent in global relabels; BK ms: the CPU "
                 "solver, one run, in this process; speed-up: BK ms / GPU ms; PyMaxflow ms: "
                 "PyMaxflow's maxflow() on the same graph, one run (flow checked against BK); "
                 "solve e2e ms: the whole gcut_grid_solve() with transfers; segment ms: the "
                 "wall time of `gcut segment IMAGE -s SEEDS -N CONN --device gpu` (its own "
                 "energy: GMM colour models, up to its default iterations; cuts in "
                 "brackets); launches: tiled push-relabel launches / relabel launches / global "
                 "relabels; tile runs: tiles of 512 pixels run by the push launches, each up "
                 "to the knob's local sweeps (the sweeps performed, in tiles); floor %%: the "
                 "bytes these must move at least (a tile run reads and writes its pixels' "
                 "residuals, excess, sink residual and height once: 2 x (dirs + 3) x 4 bytes a "
                 "pixel; a relabel reads every node's residuals and sink, writes its direction "
                 "byte and height, reads and writes the heights and reads the bytes once more, "
                 "and counts the active pixels: (dirs + 1) x 4 + 5 + 9 + 8 bytes a node) over "
                 "the time, as a share of the copy bandwidth. flow ok: GPU flow = BK flow and "
                 "gcut_grid_verify() passed on the first and on a timed run; visits: tiles "
                 "taken by the persistent relabels, per relabel and tile (each a relaxation "
                 "of the tile to its fixed point).\n\n", reps);
    {
        gcut__gpu_grid_stats k;
        gcut__gpu_grid_stats_get(gpu, &k);
        fprintf(out, "Knobs: %d local sweeps per tiled launch, %d tiled launches per global "
                     "relabel, relabel by %s (parts: %s%s%s%s%s%s%s), push launches %s, in-tile "
                     "residuals in %s during a push launch, %d cycles per lock-free launch.\n\n",
                k.sweeps, k.pushes_per_relabel,
                k.relabel_worklist ? "a persistent worklist launch" : "rounds of launches",
                /* GCUT_RELABEL_AHEAD, _LAZY, _OVERLAP (grid_kernels.h) */
                k.relabel_variant > 0 && (k.relabel_variant & 4)
                    ? "one barrier a relaxation step, the next tile taken while warp 0 queues"
                    : "",
                k.relabel_variant > 0 && (k.relabel_variant & 5) == 1 ? "take ahead " : "",
                k.relabel_variant > 0 && (k.relabel_variant & 6) == 2 ? "lazy mask" : "",
                k.relabel_variant > 0 && (k.relabel_variant & 8) ? ", direction bytes of the "
                                                                    "changed tiles only" : "",
                k.relabel_variant > 0 && (k.relabel_variant & 28) == 28
                    ? ", from the last relabel's heights after a phase that changed few tiles "
                      "(4-connected, 2 MP and more)"
                    : "",
                /* GCUT_RELABEL_SWEEP (round 6) */
                k.relabel_variant > 0 && (k.relabel_variant & 128)
                    ? ", a relabel from scratch first over every tile off the queue "
                      "(4-connected, 2 MP and more)"
                    : "",
                k.relabel_variant <= 0 ? "as profiled" : "",
                k.push_worklist == 1   ? "as one persistent worklist launch"
                : k.push_worklist == 2 ? "with the host's count read and memsets between"
                : k.push_worklist == 3 ? "with nothing between them"
                : k.push_worklist == 4 ? "with nothing between them, each after the first a "
                                         "programmatic dependent of the one before"
                : k.push_worklist == 5 ? "as 4, twice the launches after a relabel that "
                                         "leaves a quarter of the resident blocks' tiles or fewer"
                : k.push_worklist == 6 ? "as 4, the push kernel at 4 blocks a multiprocessor"
                : k.push_worklist == 8 ? "as 7, the rest of a push phase on few active tiles as "
                                         "one persistent worklist launch"
                                       : "as 4, twice the launches after a relabel that leaves "
                                         "a quarter of the resident blocks' tiles or fewer, the "
                                         "push kernel at 4 blocks a multiprocessor",
                k.shared_res == 0   ? "global memory"
                : k.shared_res == 2 ? "shared memory, one thread per pixel"
                : k.shared_res == 3 ? "shared memory, the active pixels run from a per-tile list"
                : k.shared_res == 4 ? "shared memory, one thread per pixel, branch-free push step"
                : k.shared_res == 6 ? "shared memory, one thread per pixel, branch-free push step, "
                                      "tile-mates' reverse arcs raised by shared atomics"
                                    : "shared memory, per-tile active list, branch-free push step",
                k.lockfree_cycles);
    }
    fprintf(out, "| graph | size | conn | BK ms | GPU ms | relabel ms | speed-up | PyMaxflow ms "
                 "| solve e2e ms | segment ms | launches push/relabel/relabels | tile runs "
                 "| floor %% | lockfree ms | flow ok | visits |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("%-16s %-10s %4s %9s %9s %9s %7s %9s %8s %12s %14s %6s %9s %s %s\n", "graph", "size",
           "conn", "BK ms", "GPU ms", "relabel", "speedup", "PyMaxflow", "e2e ms", "segment",
           "push/rl/rels", "floor%", "lockfree", "ok", "visits");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", scratch);
    if (system(cmd) != 0) {
        fprintf(stderr, "gpu-grid-bench: cannot make %s\n", scratch);
        return 1;
    }

    /* The list of images, sorted. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/images", data);
    DIR *dp = opendir(dir);
    if (!dp) {
        perror(dir);
        return 1;
    }
    char names[64][64];
    int n_names = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && n_names < 64) {
        size_t len = strlen(de->d_name);
        if (len > 4 && len < 60 && !strcmp(de->d_name + len - 4, ".jpg")) {
            memcpy(names[n_names], de->d_name, len - 4);
            names[n_names++][len - 4] = '\0';
        }
    }
    closedir(dp);
    qsort(names, (size_t)n_names, sizeof names[0], (int (*)(const void *, const void *))strcmp);

    int failures = 0;
    const int sizes[][2] = {{0, 0}, {1152, 864}, {2304, 1728}, {3840, 2160}};
    for (int k = 0; k < n_names + 3; k++) {
        const char *name = k < n_names ? names[k] : up_name;
        if (only && strcmp(only, name))
            continue;
        rgb_image base;
        if (load_pair(cpu, data, name, &base))
            return 1;
        const double pixels = k < n_names ? (double)base.w * base.h
                                          : (double)sizes[k - n_names + 1][0] *
                                                sizes[k - n_names + 1][1];
        if (pixels < min_mp * 1e6) {
            free(base.rgb);
            free(base.seed);
            continue;
        }
        rgb_image im = base;
        if (k >= n_names) {
            im = upscale(&base, sizes[k - n_names + 1][0], sizes[k - n_names + 1][1]);
            free(base.rgb);
            free(base.seed);
        }
        /* The image and seeds as files for `gcut segment`. */
        char img_path[1024], seed_path[1024];
        if (segment) {
            snprintf(img_path, sizeof img_path, "%s/images/%s.jpg", data, name);
            snprintf(seed_path, sizeof seed_path, "%s/%s_%dx%d_seeds.png", scratch, name, im.w,
                     im.h);
            uint8_t *px = malloc((size_t)im.w * im.h * 3), *sd = calloc((size_t)im.w * im.h, 3);
            for (size_t i = 0; i < (size_t)im.w * im.h; i++) {
                for (int c = 0; c < 3; c++)
                    px[i * 3 + c] = (uint8_t)lround(im.rgb[i * 3 + c]);
                if (im.seed[i] == 1)
                    sd[i * 3] = 255;
                else if (im.seed[i] == 2)
                    sd[i * 3 + 2] = 255;
            }
            if (k >= n_names) {
                snprintf(img_path, sizeof img_path, "%s/%s_%dx%d.png", scratch, name, im.w, im.h);
                if (gcut_image_save(cpu, img_path, px, im.w, im.h, 3, (size_t)im.w * 3))
                    fprintf(stderr, "gpu-grid-bench: %s\n", gcut_last_error(cpu));
            }
            if (gcut_image_save(cpu, seed_path, sd, im.w, im.h, 3, (size_t)im.w * 3))
                fprintf(stderr, "gpu-grid-bench: %s\n", gcut_last_error(cpu));
            free(px);
            free(sd);
        }
        for (int conn = 4; conn <= 8; conn += 4) {
            if (only_conn && conn != only_conn)
                continue;
            char label[128], size[32], graph_path[1024];
            snprintf(label, sizeof label, "%s%s", name, k >= n_names ? " (up)" : "");
            snprintf(size, sizeof size, "%dx%d", im.w, im.h);
            snprintf(graph_path, sizeof graph_path, "%s/graph.bin", scratch);
            FILE *dump = pymaxflow ? fopen(graph_path, "wb") : NULL;
            if (pymaxflow && !dump) {
                perror(graph_path);
                return 1;
            }
            gcut_grid *gc = build_graph(cpu, &im, conn, dump), *gg = build_graph(gpu, &im, conn, NULL);
            if (dump && fclose(dump)) {
                perror(graph_path);
                return 1;
            }
            if (!gc || !gg)
                return 1;
            gcut_solve_info info;
            if (gcut_grid_solve(gc, "bk", &info)) {
                fprintf(stderr, "gpu-grid-bench: BK: %s\n", gcut_last_error(cpu));
                return 1;
            }
            double bk_ms = info.time_ms;
            int64_t want = info.flow;
            gpu_result t = time_gpu(gpu, gg, "tiled", reps, want, label);
            double mp = (double)im.w * im.h / 1e6;
            gpu_result l = {0};
            int have_lockfree = mp <= lockfree_max_mp;
            if (have_lockfree)
                l = time_gpu(gpu, gg, "lockfree", reps < 3 ? reps : 3, want, label);
            double nodes = (double)(((im.w + 31) / 32) * 32 + 2) * (((im.h + 15) / 16) * 16 + 2);
            double run_bytes = 2.0 * (conn + 3) * 4 * 512; /* one tile run */
            double relabel_bytes = ((conn + 1) * 4.0 + 5 + 9 + 8) * nodes;
            double moved = (double)t.tile_runs * run_bytes + (double)t.relabels * relabel_bytes;
            double floor_pct = t.run_ms > 0 ? 100.0 * moved / (t.run_ms * 1e-3) / (gbps * 1e9) : 0;
            int ok = t.ok && (!have_lockfree || l.ok);
            const double tiles = (double)((im.w + 31) / 32) * ((im.h + 15) / 16);
            const double visits =
                t.relabels > 0 ? (double)t.relabel_visits / (double)t.relabels / tiles : 0;

            char pm[64] = "-";
            if (pymaxflow) {
                snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", pymaxflow, graph_path);
                FILE *pp = popen(cmd, "r");
                long long pflow = -1;
                double pms = 0;
                if (!pp || fscanf(pp, "%lld %lf", &pflow, &pms) != 2)
                    pflow = -1;
                if (pp)
                    pclose(pp);
                if (pflow != want) {
                    fprintf(stderr, "gpu-grid-bench: %s: PyMaxflow's flow %lld, BK %lld\n",
                            label, pflow, (long long)want);
                    ok = 0;
                    snprintf(pm, sizeof pm, "WRONG");
                } else {
                    snprintf(pm, sizeof pm, "%.1f", pms);
                }
                remove(graph_path);
            }
            char sg[64] = "-";
            if (segment) {
                snprintf(cmd, sizeof cmd,
                         "'%s' segment '%s' -s '%s' -N %d --device gpu --json -q -o '%s/mask.png'",
                         segment, img_path, seed_path, conn, scratch);
                double t0 = now_ms();
                FILE *pp = popen(cmd, "r");
                char json[4096] = "";
                size_t got = pp ? fread(json, 1, sizeof json - 1, pp) : 0;
                json[got] = '\0';
                int rc = pp ? pclose(pp) : -1;
                double wall = now_ms() - t0;
                const char *it = strstr(json, "\"iterations\": ");
                const char *dev = strstr(json, "\"device\": \"cpu\"");
                if (rc != 0 || !it || dev) {
                    fprintf(stderr, "gpu-grid-bench: %s: gcut segment failed (%d): %s\n", label, rc,
                            json);
                    snprintf(sg, sizeof sg, "failed");
                } else {
                    snprintf(sg, sizeof sg, "%.0f (%d)", wall, atoi(it + 14));
                }
            }
            failures += !ok;
            char lf[32] = "-";
            if (have_lockfree)
                snprintf(lf, sizeof lf, "%.2f", l.run_ms);
            fprintf(out, "| %s | %s | %d | %.1f | %.3f | %.3f | %.0fx | %s | %.1f | %s | "
                         "%lld/%lld/%lld | %lld | %.1f | %s | %s | %.1f |\n",
                    label, size, conn, bk_ms, t.run_ms, t.relabel_ms, bk_ms / t.run_ms, pm,
                    t.solve_ms, sg, t.push, t.bfs, t.relabels, t.tile_runs, floor_pct, lf,
                    ok ? "yes" : "NO", visits);
            printf("%-16s %-10s %4d %9.1f %9.3f %9.3f %6.0fx %9s %8.1f %12s %5lld/%3lld/%3lld "
                   "%6.1f %9s %s %.1f\n",
                   label, size, conn, bk_ms, t.run_ms, t.relabel_ms, bk_ms / t.run_ms, pm,
                   t.solve_ms, sg, t.push, t.bfs, t.relabels, floor_pct, lf, ok ? "yes" : "NO",
                   visits);
            fflush(stdout);
            fflush(out);
            gcut_grid_destroy(gc);
            gcut_grid_destroy(gg);
        }
        free(im.rgb);
        free(im.seed);
    }
    gcut__gpu_grid_stats stats;
    if (!gcut__gpu_grid_stats_get(gpu, &stats))
        fprintf(out, "\nDevice memory of the last graph: %zu bytes.\n", stats.device_bytes);
    fclose(out);
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
    return failures ? 1 : 0;
}
