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
 *        [--conn 4|8] [--min-mp X]
 *
 * --conn and --min-mp keep only the graphs of that connectivity and of at
 * least X megapixels. */
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
    double run_ms, solve_ms;
    long long push, relabels;
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
    double *ms = calloc((size_t)reps, sizeof *ms);
    gcut__gpu_grid_stats stats = {0};
    const int variant = strcmp(algo, "tiled") ? GCUT__GPU_GRID_LOCKFREE : GCUT__GPU_GRID_TILED;
    for (int i = 0; i < reps; i++) {
        int64_t it = 0;
        if (gcut__gpu_grid_upload(g) || gcut__gpu_grid_run(g, variant, &it) ||
            gcut__gpu_grid_stats_get(ctx, &stats)) {
            fprintf(stderr, "gpu-grid-bench: %s %s: %s\n", label, algo, gcut_last_error(ctx));
            r.ok = 0;
            break;
        }
        ms[i] = stats.run_ms;
        if (gcut__gpu_grid_download(g) == GCUT_OK && i == 0) {
            /* The timed runs must give the verified answer too. */
            if (gcut_grid_verify(g, NULL) != GCUT_OK) {
                fprintf(stderr, "gpu-grid-bench: %s %s: timed run failed to verify: %s\n",
                        label, algo, gcut_last_error(ctx));
                r.ok = 0;
            }
        }
    }
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    r.run_ms = ms[reps / 2];
    r.push = stats.push_launches;
    r.relabels = stats.relabels;
    free(ms);
    return r;
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
    FILE *out = fopen(out_path, "w");
    if (!out) {
        perror(out_path);
        return 1;
    }
    fprintf(out, "# GPU grid cut on %s\n\n", devname);
    fprintf(out, "GPU ms: the tiled solve with the graph already on the device (CUDA events, "
                 "median of %d runs); BK ms: the CPU solver, one run, in this process; "
                 "speed-up: BK ms / GPU ms; PyMaxflow ms: PyMaxflow's maxflow() on the same "
                 "graph, one run (flow checked against BK); solve e2e ms: the whole "
                 "gcut_grid_solve() with transfers; segment ms: the wall time of `gcut segment "
                 "IMAGE -s SEEDS -N CONN --device gpu` (its own energy: GMM colour models, up to "
                 "its default iterations; cuts in brackets); launches: push launches / global "
                 "relabels; lockfree ms: the lock-free variant, median of up to 3 runs; flow "
                 "ok: GPU flow = BK flow and gcut_grid_verify() passed on the first and on a "
                 "timed run.\n\n", reps);
    fprintf(out, "| graph | size | conn | BK ms | GPU ms | speed-up | PyMaxflow ms | solve e2e ms "
                 "| segment ms | launches push/relabels | lockfree ms | flow ok |\n");
    fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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
            int ok = t.ok && (!have_lockfree || l.ok);

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
            fprintf(out, "| %s | %s | %d | %.1f | %.3f | %.0fx | %s | %.1f | %s | %lld/%lld | %s "
                         "| %s |\n",
                    label, size, conn, bk_ms, t.run_ms, bk_ms / t.run_ms, pm, t.solve_ms, sg,
                    t.push, t.relabels, lf, ok ? "yes" : "NO");
            printf("%-16s %-10s %4d %9.1f %9.3f %6.0fx %9s %8.1f %12s %6lld/%5lld %9s %s\n",
                   label, size, conn, bk_ms, t.run_ms, bk_ms / t.run_ms, pm, t.solve_ms, sg,
                   t.push, t.relabels, lf, ok ? "yes" : "NO");
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
