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
 * Per graph: BK's solve time (CPU, in a thread while the GPU runs), the
 * GPU's run time with the graph already on the device (CUDA events, median
 * of --reps runs, each from a device copy of the uploaded graph, upload not
 * counted), the whole GPU solve with transfers, push launches and global
 * relabels. Every GPU flow is checked against BK's and gcut_grid_verify()
 * runs on the GPU's solution; a mismatch makes the exit status 1.
 *
 * With --pymaxflow SCRIPT (gpu_grid_pymaxflow.py), each graph is also written
 * to the scratch folder and PyMaxflow times it; with --segment GCUT, the
 * image and its seeds go to the scratch folder and `GCUT segment --device
 * gpu` is timed on them.
 *
 * Usage: gpu-grid-bench DATA OUT.md [--reps N] [--upscale NAME] [--lockfree-max-mp X]
 *        [--only NAME] [--pymaxflow SCRIPT] [--segment GCUT] [--scratch DIR]
 *        [--conn 4|8] [--min-mp X] [--set up] [--sizes WxH,...] [--modes M,...]
 *        [--trace FILE]
 *
 * --conn and --min-mp keep only the graphs of that connectivity and of at
 * least X megapixels. --set up: every image upscaled to each of --sizes
 * (default 1152x864, 2304x1728, 3840x2160: 1, 4 and 8.3 MP) instead, and a
 * summary per size and connectivity (median and worst over the images).
 * --modes: the tiled solver's knobs (gcut__gpu_grid_knobs) to time each
 * graph in, alternating, e.g. d,c16,p16 (lists take ',' or '/'). --trace:
 * one traced run a graph, its per-relabel diagnosis to FILE. --bk 0: no BK
 * (the GPU's proof alone checks it; BK ms shows as nan). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcut.h"
#include "gpu/gpu.h"
#include "graph/grid.h"
#include "bench_util.h"

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

/* The energy of an image, computed once for the graphs of both
 * connectivities and both contexts: clamped terminal energies and the
 * n-link capacities of all 8 directions (arc[d][p] of p -> p + offset(d);
 * the reverse direction holds the same capacity seen from the other end). */
typedef struct energy {
    int w, h;
    const uint8_t *seed; /* the image's */
    float *efg, *ebg;
    int32_t *arc[8];
} energy;

static void energy_free(energy *en)
{
    free(en->efg);
    free(en->ebg);
    for (int d = 0; d < 8; d++)
        free(en->arc[d]);
    memset(en, 0, sizeof *en);
}

static int energy_make(const rgb_image *im, energy *en)
{
    const int w = im->w, h = im->h;
    const size_t n = (size_t)w * h;
    memset(en, 0, sizeof *en);
    en->w = w;
    en->h = h;
    en->seed = im->seed;
    en->efg = malloc(n * sizeof(float));
    en->ebg = malloc(n * sizeof(float));
    for (int d = 0; d < 8; d++)
        en->arc[d] = calloc(n, sizeof(int32_t));
    double *hist[2] = {calloc(4096, sizeof(double)), calloc(4096, sizeof(double))};
    int bad = !en->efg || !en->ebg || !hist[0] || !hist[1];
    for (int d = 0; d < 8; d++)
        bad |= !en->arc[d];
    if (bad) {
        free(hist[0]);
        free(hist[1]);
        energy_free(en);
        return -1;
    }
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
    for (size_t i = 0; i < n; i++) {
        int b = bin_of(im->rgb + i * 3);
        double efg = -log((hist[0][b] + 1) / total[0]), ebg = -log((hist[1][b] + 1) / total[1]);
        en->efg[i] = (float)(efg > MAX_REGION ? MAX_REGION : efg);
        en->ebg[i] = (float)(ebg > MAX_REGION ? MAX_REGION : ebg);
    }
    /* Directions 0, 2, 4, 6 computed, their opposites mirrored. */
    for (int d = 0; d < 8; d += 2) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        double inv_len = (dx && dy) ? 1.0 / sqrt(2.0) : 1.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int nx = x + dx, ny = y + dy;
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                size_t i = (size_t)y * w + x, j = (size_t)ny * w + nx;
                double e = dist2(im->rgb + i * 3, im->rgb + j * 3);
                int32_t c = (int32_t)lround(LAMBDA * SCALE * inv_len * exp(-e / (2 * beta)));
                en->arc[d][i] = c;
                en->arc[d ^ 1][j] = c;
            }
    }
    free(hist[0]);
    free(hist[1]);
    return 0;
}

/* The graph of `en` at `conn` in `ctx`; with `dump`, also its capacities in
 * the raw format that gpu_grid_pymaxflow.py reads (header, source, sink,
 * each direction). Energy (Boykov-Jolly) as the header says. */
static gcut_grid *build_graph(gcut_context *ctx, const energy *en, int conn, FILE *dump)
{
    const int w = en->w, h = en->h;
    const size_t n = (size_t)w * h;
    gcut_grid *g = NULL;
    if (gcut_grid_create(ctx, w, h, conn, &g))
        return NULL;
    int32_t *src = malloc(n * sizeof(int32_t)), *snk = malloc(n * sizeof(int32_t));
    if (!src || !snk) {
        free(src);
        free(snk);
        gcut_grid_destroy(g);
        return NULL;
    }
    const int32_t hard = (int32_t)(conn * LAMBDA * SCALE * 2 + 1);
    for (size_t i = 0; i < n; i++) {
        /* Cutting the source arc puts the pixel in the background. */
        const uint8_t sd = en->seed[i];
        src[i] = sd == 1 ? hard : sd == 2 ? 0 : (int32_t)lround((double)en->ebg[i] * SCALE);
        snk[i] = sd == 2 ? hard : sd == 1 ? 0 : (int32_t)lround((double)en->efg[i] * SCALE);
    }
    gcut_status st = gcut_grid_set_terminals(g, src, snk);
    if (dump) {
        const int32_t head[3] = {w, h, conn};
        fwrite(head, sizeof head, 1, dump);
        fwrite(src, sizeof *src, n, dump);
        fwrite(snk, sizeof *snk, n, dump);
    }
    for (int d = 0; d < conn && !st; d++) {
        st = gcut_grid_set_edges(g, (gcut_dir)d, en->arc[d]);
        if (dump)
            fwrite(en->arc[d], sizeof(int32_t), n, dump);
    }
    free(src);
    free(snk);
    if (st) {
        fprintf(stderr, "gpu-grid-bench: %s\n", gcut_last_error(ctx));
        gcut_grid_destroy(g);
        return NULL;
    }
    return g;
}

#define MAX_MODES 8

/* One graph's results. The diagnosis comes from one traced run of the first
 * mode: cycles (global relabels), the heavy ones (those leaving at least 1%
 * of the first relabel's active pixels), the share of the excess that ended
 * stranded on pixels cut off from the sink (it stays on the source side),
 * and the relabels' share of the traced run's time. */
typedef struct row {
    char name[64];
    int w, h, conn, ok;
    double bk_ms, solve_ms;
    double ms[MAX_MODES];
    long long push[MAX_MODES], relabels[MAX_MODES];
    int cycles, heavy;
    double stranded_pct, relabel_pct;
} row;

typedef struct bk_job {
    gcut_grid *g;
    gcut_solve_info info;
    gcut_status st;
} bk_job;

static void *bk_thread(void *arg)
{
    bk_job *j = arg;
    j->st = gcut_grid_solve(j->g, "bk", &j->info);
    return NULL;
}

/* Parse a mode: "d" (the defaults), or letters with values: p (push
 * launches a phase), s (sweeps a tile run), c (the height cap's margin
 * above the relabel's largest height); a negative value turns a part off;
 * e.g. "p16c32". */
static int parse_mode(const char *text, gcut__gpu_grid_knobs *k)
{
    memset(k, 0, sizeof *k);
    if (!strcmp(text, "d"))
        return 0;
    const char *c = text;
    while (*c) {
        char key = *c++;
        char *end = NULL;
        long v = strtol(c, &end, 10);
        if (end == c)
            return -1;
        c = end;
        if (key == 'p')
            k->push_launches = (int)v;
        else if (key == 's')
            k->sweeps = (int)v;
        else if (key == 'c')
            k->cap_margin = (int)v;
        else
            return -1;
    }
    return 0;
}

/* Write one traced run's cycles to `trace` and fill r's diagnosis. */
static void write_trace(FILE *trace, row *r, const char *label, const gcut__gpu_grid_cycle *c,
                        int n)
{
    if (n == 0)
        return;
    const double total0 = (double)(c[0].active_excess + c[0].cutoff_excess);
    double rel = 0, push = 0;
    r->cycles = n;
    r->heavy = 0;
    for (int k = 0; k < n; k++) {
        rel += c[k].relabel_ms;
        push += c[k].push_ms;
        r->heavy += c[k].active_px * 100 >= c[0].active_px;
    }
    r->stranded_pct = total0 > 0 ? 100.0 * (double)c[n - 1].cutoff_excess / total0 : 0;
    r->relabel_pct = rel + push > 0 ? 100.0 * rel / (rel + push) : 0;
    if (!trace)
        return;
    fprintf(trace, "\n### %s, %dx%d, %d-connected\n\n", label, r->w, r->h, r->conn);
    fprintf(trace, "%d cycles (%d heavy), traced run %.2f ms (relabels %.2f, pushes %.2f); "
                   "excess after the first relabel %.0f, stranded at the end %.1f%%\n\n",
            n, r->heavy, rel + push, rel, push, total0, r->stranded_pct);
    fprintf(trace, "| cycle | relabel ms | push ms | launches | active px | active tiles | active "
                   "excess | cut-off px | stranded excess | sunk so far %% | max height |\n");
    fprintf(trace, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        const double sunk = total0 - (double)c[k].active_excess - (double)c[k].cutoff_excess;
        fprintf(trace, "| %d | %.3f | %.3f | %d | %lld | %lld | %lld | %lld | %lld | %.2f | %lld |\n",
                k, c[k].relabel_ms, c[k].push_ms, c[k].push_launches, c[k].active_px,
                c[k].active_tiles, c[k].active_excess, c[k].cutoff_px, c[k].cutoff_excess,
                total0 > 0 ? 100.0 * sunk / total0 : 0, c[k].height_max);
    }
    fflush(trace);
}

/* The tiled solver in each mode: one whole verified solve (transfers
 * included, the first mode), then `reps` rounds in which every mode runs
 * once from a device copy of the uploaded graph (the modes alternate, so a
 * drift of the clock hits all alike); per mode the median run time, its
 * launches, every run's flow equal to the first solve's, and the first
 * run's solution downloaded and verified. Then one traced run of the first
 * mode for the diagnosis. */
static int time_modes(gcut_context *ctx, gcut_grid *g, const gcut__gpu_grid_knobs *modes,
                      int nmodes, int reps, row *r, const char *label, FILE *trace,
                      int64_t *flow)
{
    int ok = 1;
    gcut_solve_info info;
    gcut__gpu_grid_stats stats = {0};
    double *ms = calloc((size_t)reps * nmodes, sizeof *ms);
    if (!ms || gcut__gpu_grid_knobs_set(ctx, &modes[0]) || gcut_grid_solve(g, "tiled", &info)) {
        fprintf(stderr, "gpu-grid-bench: %s tiled: %s\n", label, gcut_last_error(ctx));
        free(ms);
        return 0;
    }
    *flow = info.flow;
    r->solve_ms = info.time_ms;
    if (gcut_grid_verify(g, NULL) != GCUT_OK) {
        fprintf(stderr, "gpu-grid-bench: %s: verify: %s\n", label, gcut_last_error(ctx));
        ok = 0;
    }
    if (gcut__gpu_grid_upload(g) || gcut__gpu_grid_snapshot(g, 1)) {
        fprintf(stderr, "gpu-grid-bench: %s: %s\n", label, gcut_last_error(ctx));
        free(ms);
        return 0;
    }
    for (int i = 0; i < reps && ok; i++)
        for (int m = 0; m < nmodes && ok; m++) {
            int64_t it = 0;
            if (gcut__gpu_grid_knobs_set(ctx, &modes[m]) || gcut__gpu_grid_snapshot(g, 2) ||
                gcut__gpu_grid_run(g, GCUT__GPU_GRID_TILED, &it) ||
                gcut__gpu_grid_stats_get(ctx, &stats)) {
                fprintf(stderr, "gpu-grid-bench: %s mode %d: %s\n", label, m,
                        gcut_last_error(ctx));
                ok = 0;
                break;
            }
            ms[m * reps + i] = stats.run_ms;
            r->push[m] = stats.push_launches;
            r->relabels[m] = stats.relabels;
            if (g->flow != *flow) {
                fprintf(stderr, "gpu-grid-bench: %s mode %d: flow %lld, first solve %lld\n",
                        label, m, (long long)g->flow, (long long)*flow);
                ok = 0;
            }
            if (i == 0 && (gcut__gpu_grid_download(g) || gcut_grid_verify(g, NULL))) {
                fprintf(stderr, "gpu-grid-bench: %s mode %d: timed run failed to verify: %s\n",
                        label, m, gcut_last_error(ctx));
                ok = 0;
            }
        }
    for (int m = 0; m < nmodes; m++)
        r->ms[m] = bench_median(ms + m * reps, reps);
    free(ms);
    gcut__gpu_grid_knobs k = modes[0];
    k.trace = 1;
    const gcut__gpu_grid_cycle *cycles = NULL;
    int n = 0;
    if (ok && (gcut__gpu_grid_knobs_set(ctx, &k) || gcut__gpu_grid_snapshot(g, 2) ||
               gcut__gpu_grid_run(g, GCUT__GPU_GRID_TILED, NULL) ||
               gcut__gpu_grid_trace_get(ctx, &cycles, &n))) {
        fprintf(stderr, "gpu-grid-bench: %s traced: %s\n", label, gcut_last_error(ctx));
        ok = 0;
    }
    if (ok && g->flow != *flow) {
        fprintf(stderr, "gpu-grid-bench: %s traced: flow %lld, first solve %lld\n", label,
                (long long)g->flow, (long long)*flow);
        ok = 0;
    }
    if (ok)
        write_trace(trace, r, label, cycles, n);
    gcut__gpu_grid_knobs_set(ctx, &modes[0]);
    return ok;
}

/* The lock-free variant: median of `reps` runs, uploaded before each, the
 * first one's solution verified. */
static int time_lockfree(gcut_context *ctx, gcut_grid *g, int reps, int64_t want, double *out_ms,
                         const char *label)
{
    int ok = 1;
    gcut__gpu_grid_stats stats = {0};
    double *ms = calloc((size_t)reps, sizeof *ms);
    for (int i = 0; i < reps && ok; i++) {
        int64_t it = 0;
        if (gcut__gpu_grid_upload(g) || gcut__gpu_grid_run(g, GCUT__GPU_GRID_LOCKFREE, &it) ||
            gcut__gpu_grid_stats_get(ctx, &stats)) {
            fprintf(stderr, "gpu-grid-bench: %s lockfree: %s\n", label, gcut_last_error(ctx));
            ok = 0;
            break;
        }
        ms[i] = stats.run_ms;
        if (g->flow != want) {
            fprintf(stderr, "gpu-grid-bench: %s lockfree: flow %lld, BK %lld\n", label,
                    (long long)g->flow, (long long)want);
            ok = 0;
        }
        if (i == 0 && (gcut__gpu_grid_download(g) || gcut_grid_verify(g, NULL))) {
            fprintf(stderr, "gpu-grid-bench: %s lockfree: failed to verify: %s\n", label,
                    gcut_last_error(ctx));
            ok = 0;
        }
    }
    *out_ms = bench_median(ms, reps);
    free(ms);
    return ok;
}

/* The summary of the whole set: per size, connectivity and mode, the
 * median and the worst over the images. */
static void write_summary(FILE *out, const row *rows, int n_rows, char modes[][32], int nmodes)
{
    fprintf(out, "\n## Summary over the images\n\n");
    fprintf(out, "Per size and connectivity, over the images: the median and the worst (largest) "
                 "GPU ms of each mode, the median and the worst of its push launches and global "
                 "relabels, BK's median, the median speed-up (BK ms / GPU ms, image by image); "
                 "for the modes after the first, the median and the worst of their time over the "
                 "first mode's, image by image; the diagnosis (first mode): median cycles "
                 "(heavy), stranded excess and relabel share.\n\n");
    fprintf(out, "| size | conn | images | BK median ms | mode | GPU median ms | GPU worst ms "
                 "(image) | launches median (worst) | relabels median (worst) | speed-up median "
                 "| vs first: median (worst) | cycles (heavy) median | stranded %% median | "
                 "relabel %% median |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    double *v = malloc((size_t)(n_rows + 1) * sizeof *v), *u = malloc((size_t)(n_rows + 1) * sizeof *u);
    for (int a = 0; a < n_rows; a++) {
        int seen = 0; /* the first row of each (size, conn) writes its group */
        for (int b = 0; b < a; b++)
            seen |= rows[b].w == rows[a].w && rows[b].h == rows[a].h && rows[b].conn == rows[a].conn;
        if (seen)
            continue;
        int idx[512], k = 0;
        for (int b = a; b < n_rows && k < 512; b++)
            if (rows[b].w == rows[a].w && rows[b].h == rows[a].h && rows[b].conn == rows[a].conn)
                idx[k++] = b;
        for (int i = 0; i < k; i++)
            v[i] = rows[idx[i]].bk_ms;
        const double bk = bench_median(v, k);
        for (int m = 0; m < nmodes; m++) {
            int worst = idx[0], worst_rel = idx[0];
            long long worst_push = 0;
            for (int i = 0; i < k; i++) {
                const row *r = &rows[idx[i]];
                v[i] = r->ms[m];
                if (r->ms[m] > rows[worst].ms[m])
                    worst = idx[i];
                if (r->relabels[m] > rows[worst_rel].relabels[m])
                    worst_rel = idx[i];
                if (r->push[m] > worst_push)
                    worst_push = r->push[m];
            }
            const double med = bench_median(v, k);
            for (int i = 0; i < k; i++)
                v[i] = (double)rows[idx[i]].push[m];
            const double push = bench_median(v, k);
            for (int i = 0; i < k; i++)
                v[i] = (double)rows[idx[i]].relabels[m];
            const double rel = bench_median(v, k);
            for (int i = 0; i < k; i++)
                v[i] = rows[idx[i]].bk_ms / rows[idx[i]].ms[m];
            const double speed = bench_median(v, k);
            char vs[64] = "-";
            if (m > 0) {
                double worst_ratio = 0;
                for (int i = 0; i < k; i++) {
                    u[i] = rows[idx[i]].ms[m] / rows[idx[i]].ms[0];
                    worst_ratio = u[i] > worst_ratio ? u[i] : worst_ratio;
                }
                snprintf(vs, sizeof vs, "%.3f (%.3f)", bench_median(u, k), worst_ratio);
            }
            char diag[96] = "- | - | -";
            if (m == 0) {
                double c[3];
                for (int i = 0; i < k; i++)
                    v[i] = rows[idx[i]].cycles, u[i] = rows[idx[i]].heavy;
                c[0] = bench_median(v, k);
                c[1] = bench_median(u, k);
                for (int i = 0; i < k; i++)
                    v[i] = rows[idx[i]].stranded_pct, u[i] = rows[idx[i]].relabel_pct;
                c[2] = bench_median(v, k);
                snprintf(diag, sizeof diag, "%.0f (%.0f) | %.1f | %.0f", c[0], c[1], c[2],
                         bench_median(u, k));
            }
            fprintf(out, "| %dx%d | %d | %d | %.1f | %s | %.3f | %.3f (%s) | %.0f (%lld) | %.0f "
                         "(%lld, %s) | %.0fx | %s | %s |\n",
                    rows[a].w, rows[a].h, rows[a].conn, k, bk, modes[m], med, rows[worst].ms[m],
                    rows[worst].name, push, worst_push, rel, rows[worst_rel].relabels[m],
                    rows[worst_rel].name, speed, vs, diag);
        }
    }
    free(v);
    free(u);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "Usage: gpu-grid-bench DATA OUT.md [--reps N] [--upscale NAME] "
                        "[--lockfree-max-mp X] [--only NAME] [--pymaxflow SCRIPT] [--segment GCUT] "
                        "[--scratch DIR] [--conn 4|8] [--min-mp X] [--set up] [--sizes WxH,...] "
                        "[--modes M,...] [--trace FILE] [--bk 0]\n");
        return 2;
    }
    const char *data = argv[1], *out_path = argv[2];
    int reps = 9;
    const char *up_name = "flower", *only = NULL, *set = NULL, *trace_path = NULL;
    const char *pymaxflow = NULL, *segment = NULL, *scratch = "/tmp/gcut-gpu-bench";
    const char *sizes_arg = "1152x864,2304x1728,3840x2160", *modes_arg = "d";
    double lockfree_max_mp = 1.1, min_mp = 0;
    int only_conn = 0, run_bk = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps"))
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
        else if (!strcmp(argv[i], "--set"))
            set = argv[i + 1];
        else if (!strcmp(argv[i], "--sizes"))
            sizes_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--modes"))
            modes_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--trace"))
            trace_path = argv[i + 1];
        else if (!strcmp(argv[i], "--bk"))
            run_bk = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "gpu-grid-bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    if (set && strcmp(set, "up")) {
        fprintf(stderr, "gpu-grid-bench: --set takes 'up'\n");
        return 2;
    }
    /* The sizes of the upscaled graphs. */
    int sizes[8][2], n_sizes = 0;
    for (const char *c = sizes_arg; *c && n_sizes < 8;) {
        int w = 0, h = 0, used = 0;
        if (sscanf(c, "%dx%d%n", &w, &h, &used) != 2 || w < 1 || h < 1) {
            fprintf(stderr, "gpu-grid-bench: bad --sizes %s\n", sizes_arg);
            return 2;
        }
        sizes[n_sizes][0] = w;
        sizes[n_sizes++][1] = h;
        c += used;
        if (*c == ',' || *c == '/')
            c++;
    }
    /* The modes (knob sets) every graph is timed in. */
    char modes[MAX_MODES][32];
    gcut__gpu_grid_knobs knobs[MAX_MODES];
    int nmodes = 0;
    for (const char *c = modes_arg; *c && nmodes < MAX_MODES;) {
        size_t len = strcspn(c, ",/");
        if (len == 0 || len >= sizeof modes[0]) {
            fprintf(stderr, "gpu-grid-bench: bad --modes %s\n", modes_arg);
            return 2;
        }
        memcpy(modes[nmodes], c, len);
        modes[nmodes][len] = '\0';
        if (parse_mode(modes[nmodes], &knobs[nmodes])) {
            fprintf(stderr, "gpu-grid-bench: bad mode '%s' (d, or pN sN cN: e.g. p16c32)\n",
                    modes[nmodes]);
            return 2;
        }
        nmodes++;
        c += len;
        if (*c == ',' || *c == '/')
            c++;
    }
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
    FILE *out = fopen(out_path, "w");
    if (!out) {
        perror(out_path);
        return 1;
    }
    FILE *trace = NULL;
    if (trace_path && !(trace = fopen(trace_path, "w"))) {
        perror(trace_path);
        return 1;
    }
    fprintf(out, "# GPU grid cut on %s\n\n", devname);
    fprintf(out, "GPU ms: the tiled solve with the graph already on the device (CUDA events, "
                 "median of %d runs, each from a device copy of the uploaded graph; with several "
                 "modes, the modes' runs alternate); BK ms: the CPU solver, one run, in this "
                 "process (in a thread, while the GPU runs); "
                 "speed-up: BK ms / GPU ms; PyMaxflow ms: PyMaxflow's maxflow() on the same "
                 "graph, one run (flow checked against BK); solve e2e ms: the whole "
                 "gcut_grid_solve() with transfers; segment ms: the wall time of `gcut segment "
                 "IMAGE -s SEEDS -N CONN --device gpu` (its own energy: GMM colour models, up to "
                 "its default iterations; cuts in brackets); launches: push launches / global "
                 "relabels; lockfree ms: the lock-free variant, median of up to 3 runs; flow "
                 "ok: every run's flow = BK's flow and gcut_grid_verify() passed on the first "
                 "solve and on each mode's first timed run; cycles (heavy), stranded %%, relabel "
                 "%%: from one traced run of the first mode (global relabels, those leaving at "
                 "least 1%% of the first relabel's active pixels, the share of the excess left on "
                 "pixels cut off from the sink, the relabels' share of the traced time).\n\n",
            reps);
    fprintf(out, "Modes:");
    for (int m = 0; m < nmodes; m++)
        fprintf(out, " %s%s", modes[m], m ? "" : " (GPU ms)");
    fprintf(out, " (d: the defaults; pN: N push launches a phase; sN: N sweeps a tile run; cN: "
                 "the height cap N above the relabel's largest height; -1: off).\n\n");
    fprintf(out, "| graph | size | conn | BK ms | GPU ms | speed-up | PyMaxflow ms | solve e2e ms "
                 "| segment ms | launches push/relabels | lockfree ms | flow ok |");
    for (int m = 1; m < nmodes; m++)
        fprintf(out, " %s ms (launches) |", modes[m]);
    fprintf(out, " cycles (heavy) | stranded %% | relabel %% |\n|---|---|---|---|---|---|---|---|"
                 "---|---|---|---|");
    for (int m = 1; m < nmodes; m++)
        fprintf(out, "---|");
    fprintf(out, "---|---|---|\n");
    if (trace)
        fprintf(trace, "# Per-relabel diagnosis on %s\n\nOne traced run of mode %s a graph (the "
                       "run waits for each phase, so its times are a little above an untraced "
                       "run's). A row per global relabel: its time and the push phase's after "
                       "it, what it left: active pixels (finite height, excess) and tiles, the "
                       "excess they hold, the pixels cut off from the sink (infinite height) and "
                       "the excess stranded on them, the share of the excess (after the first "
                       "relabel) that reached the sink so far, the largest finite height.\n",
                devname, modes[0]);
    printf("%-16s %-10s %4s %9s %9s %7s %9s %8s %12s %12s %9s %s\n", "graph", "size", "conn",
           "BK ms", "GPU ms", "speedup", "PyMaxflow", "e2e ms", "segment", "push/rels", "lockfree",
           "ok");
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

    /* The graphs: without --set, every image at its own size, then
     * --upscale's image at each size; with --set up, every image at each
     * size (size by size). */
    typedef struct job {
        const char *name;
        int size; /* index into sizes, -1 for the image's own */
    } job;
    job *jobs = malloc(sizeof(job) * (size_t)(n_names * (n_sizes + 1) + n_sizes));
    int n_jobs = 0;
    if (set) {
        for (int z = 0; z < n_sizes; z++)
            for (int k = 0; k < n_names; k++)
                jobs[n_jobs++] = (job){names[k], z};
    } else {
        for (int k = 0; k < n_names; k++)
            jobs[n_jobs++] = (job){names[k], -1};
        for (int z = 0; z < n_sizes; z++)
            jobs[n_jobs++] = (job){up_name, z};
    }
    row *rows = calloc((size_t)n_jobs * 2, sizeof *rows);
    int n_rows = 0;

    int failures = 0;
    for (int jb = 0; jb < n_jobs; jb++) {
        const char *name = jobs[jb].name;
        const int z = jobs[jb].size;
        if (only && strcmp(only, name))
            continue;
        if (z >= 0 && (double)sizes[z][0] * sizes[z][1] < min_mp * 1e6)
            continue;
        rgb_image base;
        if (load_pair(cpu, data, name, &base))
            return 1;
        if (z < 0 && (double)base.w * base.h < min_mp * 1e6) {
            free(base.rgb);
            free(base.seed);
            continue;
        }
        rgb_image im = base;
        if (z >= 0) {
            im = upscale(&base, sizes[z][0], sizes[z][1]);
            free(base.rgb);
            free(base.seed);
        }
        energy en;
        if (energy_make(&im, &en)) {
            fprintf(stderr, "gpu-grid-bench: out of memory\n");
            return 1;
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
            if (z >= 0) {
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
            snprintf(label, sizeof label, "%s%s", name, z >= 0 && !set ? " (up)" : "");
            snprintf(size, sizeof size, "%dx%d", im.w, im.h);
            snprintf(graph_path, sizeof graph_path, "%s/graph.bin", scratch);
            FILE *dump = pymaxflow ? fopen(graph_path, "wb") : NULL;
            if (pymaxflow && !dump) {
                perror(graph_path);
                return 1;
            }
            gcut_grid *gc = build_graph(cpu, &en, conn, dump), *gg = build_graph(gpu, &en, conn, NULL);
            if (dump && fclose(dump)) {
                perror(graph_path);
                return 1;
            }
            if (!gc || !gg)
                return 1;
            row *r = &rows[n_rows++];
            snprintf(r->name, sizeof r->name, "%s", name);
            r->w = im.w;
            r->h = im.h;
            r->conn = conn;
            /* BK on the CPU while the GPU runs; the flows are compared after. */
            /* Without BK (--bk 0) the proof alone checks the GPU: every
             * mode's flow equal and its solution verified. */
            bk_job bk = {gc, {0}, GCUT_OK};
            pthread_t bk_tid;
            if (run_bk && pthread_create(&bk_tid, NULL, bk_thread, &bk)) {
                fprintf(stderr, "gpu-grid-bench: cannot start the BK thread\n");
                return 1;
            }
            int64_t gpu_flow = 0;
            int ok = time_modes(gpu, gg, knobs, nmodes, reps, r, label, trace, &gpu_flow);
            if (run_bk)
                pthread_join(bk_tid, NULL);
            if (bk.st) {
                fprintf(stderr, "gpu-grid-bench: BK: %s\n", gcut_last_error(cpu));
                return 1;
            }
            const int64_t want = run_bk ? bk.info.flow : gpu_flow;
            r->bk_ms = run_bk ? bk.info.time_ms : NAN;
            if (gpu_flow != want) {
                fprintf(stderr, "gpu-grid-bench: %s: GPU flow %lld, BK %lld\n", label,
                        (long long)gpu_flow, (long long)want);
                ok = 0;
            }
            double mp = (double)im.w * im.h / 1e6, lf_ms = 0;
            int have_lockfree = mp <= lockfree_max_mp;
            if (have_lockfree)
                ok &= time_lockfree(gpu, gg, reps < 3 ? reps : 3, want, &lf_ms, label);

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
                double t0 = bench_now_ms();
                FILE *pp = popen(cmd, "r");
                char json[4096] = "";
                size_t got = pp ? fread(json, 1, sizeof json - 1, pp) : 0;
                json[got] = '\0';
                int rc = pp ? pclose(pp) : -1;
                double wall = bench_now_ms() - t0;
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
            r->ok = ok;
            failures += !ok;
            char lf[32] = "-";
            if (have_lockfree)
                snprintf(lf, sizeof lf, "%.2f", lf_ms);
            fprintf(out, "| %s | %s | %d | %.1f | %.3f | %.0fx | %s | %.1f | %s | %lld/%lld | %s "
                         "| %s |",
                    label, size, conn, r->bk_ms, r->ms[0], r->bk_ms / r->ms[0], pm, r->solve_ms,
                    sg, r->push[0], r->relabels[0], lf, ok ? "yes" : "NO");
            for (int m = 1; m < nmodes; m++)
                fprintf(out, " %.3f (%lld/%lld) |", r->ms[m], r->push[m], r->relabels[m]);
            fprintf(out, " %d (%d) | %.1f | %.0f |\n", r->cycles, r->heavy, r->stranded_pct,
                    r->relabel_pct);
            printf("%-16s %-10s %4d %9.1f %9.3f %6.0fx %9s %8.1f %12s %6lld/%5lld %9s %s", label,
                   size, conn, r->bk_ms, r->ms[0], r->bk_ms / r->ms[0], pm, r->solve_ms, sg,
                   r->push[0], r->relabels[0], lf, ok ? "yes" : "NO");
            for (int m = 1; m < nmodes; m++)
                printf("  %s %.3f (%lld/%lld)", modes[m], r->ms[m], r->push[m], r->relabels[m]);
            printf("  cycles %d (%d) stranded %.1f%%\n", r->cycles, r->heavy, r->stranded_pct);
            fflush(stdout);
            fflush(out);
            gcut_grid_destroy(gc);
            gcut_grid_destroy(gg);
        }
        energy_free(&en);
        free(im.rgb);
        free(im.seed);
    }
    if (set)
        write_summary(out, rows, n_rows, modes, nmodes);
    gcut__gpu_grid_stats stats;
    if (!gcut__gpu_grid_stats_get(gpu, &stats))
        fprintf(out, "\nDevice memory of the last graph: %zu bytes (the solver's buffers; the "
                     "bench's device copy of the graph not counted).\n", stats.device_bytes);
    fclose(out);
    if (trace)
        fclose(trace);
    free(rows);
    free(jobs);
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
    return failures ? 1 : 0;
}
