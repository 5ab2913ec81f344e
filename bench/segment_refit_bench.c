/* Where a GrabCut refit goes between two cuts, per GrabCut image upscaled
 * (nearest neighbour, as segment-session-bench does) to about --megapixels:
 * the image's distinct colours and the time to index them (once per image),
 * then for a refit of both GMMs to a cut's labels (the ground truth stands
 * for the cut): the sample selection over every pixel, the hard-assignment
 * rounds on the samples, the pricing of every distinct colour under both
 * models and the terminal table (with the energy's constant part) from the
 * prices, each the median of --repeats. With a GPU (--device gpu), the
 * device's pricing of the same colours and models too, and its prices and
 * table must be the host's, bit for bit (exit 1 otherwise).
 *
 * With --session N, then a segmentation session per image on the device
 * (the first state its scribbles1 seeds, then N robot-user additions: a
 * disk of the truth's label on a mislabelled pixel, as
 * segment-session-bench adds them) and, per update, its wall time and
 * gcut_segment_info's split: model (colour index, fits), graph (seeds,
 * pricing and terminals, n-links), cut (the cuts with their labels back),
 * and the rest (the update's passes over the pixels and seeds). The first
 * state is also segmented by gcut_segment_image() on the same device (the
 * one-shot path: colour index, fits and cuts from nothing), whose mask
 * must be the session's; its wall and model times are reported.
 *
 * Usage: segment-refit-bench DATA_DIR [--megapixels M] [--repeats R]
 *                            [--only NAME] [--threads T] [--device cpu|gpu]
 *                            [--session N]
 * Prints markdown tables (per image, then the medians). Reads internal
 * headers. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcut.h"
#include "bench_util.h"
#include "robot_user.h"
#include "core/context.h"
#include "core/parallel.h"
#include "vision/color_index.h"
#include "vision/color_model.h"
#include "vision/color_price.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/segment_gpu.h"
#endif

typedef struct price_job {
    const gcut__price_model *fg, *bg;
    const uint8_t *colors;
    float *cost_fg, *cost_bg;
} price_job;

static void price_range(void *arg, int64_t begin, int64_t end, int part)
{
    (void)part;
    price_job *j = arg;
    for (int64_t u = begin; u < end; u++) {
        j->cost_fg[u] = gcut__price_colour(j->fg, j->colors + 3 * u);
        j->cost_bg[u] = gcut__price_colour(j->bg, j->colors + 3 * u);
    }
}

#define MAX_IMAGES 64
#define MAX_UPDATES 101
enum { S_UPDATE, S_MODEL, S_GRAPH, S_CUT, S_REST, S_CUTS, S_COLS };
static const char *const s_names[S_COLS] = {"update", "model", "graph", "cut", "rest", "cuts"};
/* The one-shot segmentation of the first state: wall, model, graph, cut. */
enum { O_WALL, O_MODEL, O_GRAPH, O_CUT, O_COLS };

/* One session on `ctx` through its first state and up to `additions` more;
 * the additions' medians into med[S_COLS] (the first state's times into
 * first[S_COLS]); how many additions ran, or -1 on an error. */
static int run_session(gcut_context *ctx, const char *name, const uint8_t *pix, int W, int H,
                       int c, uint8_t *seeds, const uint8_t *truth, int radius, int additions,
                       uint64_t rs, double first[S_COLS], double med[S_COLS],
                       double *all[S_COLS], int *all_n, double one[O_COLS])
{
    gcut_segment_options so;
    gcut_segment_options_init(&so);
    gcut_segment_session *ss = NULL;
    uint8_t *mask = malloc((size_t)W * H);
    double v[S_COLS][MAX_UPDATES];
    int states = 0;
    if (!mask || gcut_segment_session_create(ctx, pix, W, H, c, (size_t)W * c, &so, &ss)) {
        fprintf(stderr, "%s: %s\n", name, gcut_last_error(ctx));
        free(mask);
        return -1;
    }
    for (int s = 0; s <= additions; s++) {
        if (s > 0 && !bench_add_disk(&rs, truth, mask, seeds, W, H, radius))
            break;
        gcut_segment_info info;
        double t0 = bench_now_ms();
        if (gcut_segment_session_update(ss, seeds, mask, &info)) {
            fprintf(stderr, "%s: %s\n", name, gcut_last_error(ctx));
            gcut_segment_session_destroy(ss);
            free(mask);
            return -1;
        }
        double wall = bench_now_ms() - t0;
        if (s == 0) {
            uint8_t *want = malloc((size_t)W * H);
            gcut_segment_info oi;
            double t1 = bench_now_ms();
            gcut_status st = want ? gcut_segment_image(ctx, pix, W, H, c, (size_t)W * c, seeds,
                                                       &so, want, &oi)
                                  : GCUT_E_NOMEM;
            one[O_WALL] = bench_now_ms() - t1;
            one[O_MODEL] = oi.time_model_ms;
            one[O_GRAPH] = oi.time_graph_ms;
            one[O_CUT] = oi.time_cut_ms;
            int same = !st && memcmp(want, mask, (size_t)W * H) == 0;
            free(want);
            if (!same) {
                fprintf(stderr, "%s: the one-shot segmentation %s\n", name,
                        st ? gcut_last_error(ctx) : "differs from the session's first mask");
                gcut_segment_session_destroy(ss);
                free(mask);
                return -1;
            }
        }
        v[S_UPDATE][states] = wall;
        v[S_MODEL][states] = info.time_model_ms;
        v[S_GRAPH][states] = info.time_graph_ms;
        v[S_CUT][states] = info.time_cut_ms;
        v[S_REST][states] = wall - info.time_model_ms - info.time_graph_ms - info.time_cut_ms;
        v[S_CUTS][states] = info.iterations;
        states++;
    }
    for (int q = 0; q < S_COLS; q++) {
        first[q] = v[q][0];
        for (int s = 1; s < states; s++)
            all[q][*all_n + s - 1] = v[q][s];
        med[q] = bench_median(v[q] + 1, states - 1);
    }
    *all_n += states - 1;
    gcut_segment_session_destroy(ss);
    free(mask);
    return states - 1;
}
#define MAX_REPEATS 64
enum { C_INDEX, C_SELECT, C_ROUNDS, C_PRICE, C_TERMINALS, C_GPU_PRICE, C_COLS };

/* The --session table: per image, a session's first state and the medians
 * of its additions; then the medians over every addition of every image. */
static int session_tables(gcut_context *ctx, const char *dir, char *const *names, int count,
                          const char *only, double megapixels, int additions)
{
    double *all[S_COLS], ones[O_COLS][MAX_IMAGES];
    int all_n = 0, one_n = 0, bad = 0;
    for (int q = 0; q < S_COLS; q++)
        all[q] = malloc((size_t)count * MAX_UPDATES * sizeof(double));
    printf("\n| image | pixels | one-shot ms | one-shot model ms | one-shot graph ms | one-shot "
           "cut ms | additions | first update ms | first model ms | first cuts |");
    for (int q = 0; q < S_COLS; q++)
        printf(" %s%s (median) |", s_names[q], q == S_CUTS ? "" : " ms");
    printf("\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < count; k++) {
        if (only && !strstr(names[k], only))
            continue;
        gcut_image *im = NULL, *sc = NULL, *gt = NULL;
        char ip[1024], sp[1024], gp[1024];
        snprintf(ip, sizeof ip, "%s/images/%s.jpg", dir, names[k]);
        snprintf(sp, sizeof sp, "%s/scribbles1/%s-anno.png", dir, names[k]);
        snprintf(gp, sizeof gp, "%s/gt/%s.png", dir, names[k]);
        if (gcut_image_load(ctx, ip, &im) || gcut_image_load(ctx, sp, &sc) ||
            gcut_image_load(ctx, gp, &gt)) {
            fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
            gcut_image_destroy(im);
            gcut_image_destroy(sc);
            gcut_image_destroy(gt);
            bad = 1;
            continue;
        }
        int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
        int gc = gcut_image_channels(gt);
        uint8_t *seeds0 = calloc((size_t)w * h, 1), *truth0 = malloc((size_t)w * h);
        gcut_seeds_add_scribbles(ctx, seeds0, w, h, sc, NULL, NULL);
        for (int i = 0; i < w * h; i++)
            truth0[i] = gcut_image_pixels(gt)[(size_t)i * gc];
        double f = sqrt(megapixels * 1e6 / (w * h));
        if (f < 1)
            f = 1;
        int W, H;
        uint8_t *pix = bench_upscale(gcut_image_pixels(im), w, h, c, f, &W, &H);
        uint8_t *seeds = bench_upscale(seeds0, w, h, 1, f, &W, &H);
        uint8_t *truth = bench_upscale(truth0, w, h, 1, f, &W, &H);
        double first[S_COLS], med[S_COLS], one[O_COLS];
        int ran = run_session(ctx, names[k], pix, W, H, c, seeds, truth, (int)(4 * f) + 2,
                              additions, 12345 + (uint64_t)k, first, med, all, &all_n, one);
        if (ran < 0) {
            bad = 1;
        } else {
            for (int q = 0; q < O_COLS; q++)
                ones[q][one_n] = one[q];
            one_n++;
            printf("| %s | %dx%d | %.1f | %.1f | %.1f | %.1f | %d | %.1f | %.1f | %.0f |", names[k],
                   W, H, one[O_WALL], one[O_MODEL], one[O_GRAPH], one[O_CUT], ran,
                   first[S_UPDATE], first[S_MODEL], first[S_CUTS]);
            for (int q = 0; q < S_COLS; q++)
                printf(q == S_CUTS ? " %.0f |" : " %.1f |", med[q]);
            printf("\n");
            fflush(stdout);
        }
        free(pix);
        free(seeds);
        free(truth);
        free(seeds0);
        free(truth0);
        gcut_image_destroy(im);
        gcut_image_destroy(sc);
        gcut_image_destroy(gt);
    }
    printf("\nOne-shot over %d images (medians): wall %.1f ms; model %.1f ms; graph %.1f ms; "
           "cut %.1f ms\n", one_n, bench_median(ones[O_WALL], one_n),
           bench_median(ones[O_MODEL], one_n), bench_median(ones[O_GRAPH], one_n),
           bench_median(ones[O_CUT], one_n));
    printf("\nSession over all %d additions (medians):", all_n);
    for (int q = 0; q < S_COLS; q++)
        printf(" %s %.1f%s;", s_names[q], bench_median(all[q], all_n), q == S_CUTS ? "" : " ms");
    printf("\n");
    for (int q = 0; q < S_COLS; q++)
        free(all[q]);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [--megapixels M] [--repeats R] [--only NAME] "
                        "[--threads T] [--device cpu|gpu]\n",
                argv[0]);
        return 2;
    }
    const char *dir = argv[1], *only = NULL, *device = "cpu";
    double megapixels = 4.0;
    int repeats = 5, threads = 0, session = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--megapixels") && i + 1 < argc)
            megapixels = atof(argv[++i]);
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--session") && i + 1 < argc)
            session = atoi(argv[++i]);
        else {
            fprintf(stderr, "segment-refit-bench: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (repeats < 1 || repeats > MAX_REPEATS || !(megapixels > 0 && megapixels <= 64) ||
        threads < 0 || threads > GCUT__MAX_THREADS || session < 0 || session >= MAX_UPDATES) {
        fprintf(stderr, "segment-refit-bench: --repeats 1..%d, --megapixels (0, 64], "
                        "--threads 0..%d, --session 0..%d\n", MAX_REPEATS, GCUT__MAX_THREADS,
                MAX_UPDATES - 1);
        return 2;
    }
    int gpu = !strcmp(device, "gpu");
#ifndef GCUT_HAVE_CUDA
    if (gpu) {
        fprintf(stderr, "segment-refit-bench: built without CUDA\n");
        return 1;
    }
#endif
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = gpu ? GCUT_DEVICE_GPU : GCUT_DEVICE_CPU;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx) != GCUT_OK)
        return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/scribbles1", dir);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "segment-refit-bench: no %s\n", path);
        return 1;
    }
    char *names[MAX_IMAGES];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < MAX_IMAGES;) {
        const char *suffix = strstr(e->d_name, "-anno.png");
        if (suffix && suffix[9] == '\0') {
            names[count] = malloc((size_t)(suffix - e->d_name) + 1);
            memcpy(names[count], e->d_name, (size_t)(suffix - e->d_name));
            names[count][suffix - e->d_name] = '\0';
            count++;
        }
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, bench_cmp_name);

    static double col[C_COLS][MAX_IMAGES];
    double colours[MAX_IMAGES];
    int rows = 0, bad = 0;
    printf("| image | pixels | distinct colours | index ms | selection ms | rounds ms | "
           "pricing ms | terminals ms | refit ms (sel+rounds+pricing+terminals) | "
           "table bytes | device pricing ms |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < count; k++) {
        if (only && !strstr(names[k], only))
            continue;
        gcut_image *im = NULL, *gt = NULL;
        char ip[1024], gp[1024];
        snprintf(ip, sizeof ip, "%s/images/%s.jpg", dir, names[k]);
        snprintf(gp, sizeof gp, "%s/gt/%s.png", dir, names[k]);
        if (gcut_image_load(ctx, ip, &im) || gcut_image_load(ctx, gp, &gt)) {
            fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
            gcut_image_destroy(im);
            gcut_image_destroy(gt);
            continue;
        }
        int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
        int gc = gcut_image_channels(gt);
        uint8_t *label0 = malloc((size_t)w * h);
        for (int i = 0; i < w * h; i++)
            label0[i] = gcut_image_pixels(gt)[(size_t)i * gc] > 128;
        double f = sqrt(megapixels * 1e6 / (w * h));
        if (f < 1)
            f = 1;
        int W, H;
        uint8_t *pix = bench_upscale(gcut_image_pixels(im), w, h, c, f, &W, &H);
        uint8_t *label = bench_upscale(label0, w, h, 1, f, &W, &H);
        int64_t n = (int64_t)W * H;
        if (c != 3) {
            fprintf(stderr, "%s: %d channels, the bench takes RGB\n", names[k], c);
            return 1;
        }
        double t[C_COLS][MAX_REPEATS];
        gcut__color_index ci = {0};
        for (int r = 0; r < repeats; r++) {
            gcut__color_index_free(&ci);
            double t0 = bench_now_ms();
            if (gcut__color_index_build(ctx, pix, n, threads, &ci)) {
                fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
                return 1;
            }
            t[C_INDEX][r] = bench_now_ms() - t0;
        }
        int64_t u = ci.count;
        gcut__color_model fg = {0}, bg = {0};
        fg.kind = bg.kind = GCUT_MODEL_GMM;
        fg.k = bg.k = 5;
        fg.threads = bg.threads = threads;
        float *cost_fg = malloc((size_t)u * sizeof(float)), *cost_bg = malloc((size_t)u * sizeof(float));
        float *dev_fg = malloc((size_t)u * sizeof(float)), *dev_bg = malloc((size_t)u * sizeof(float));
        int32_t *tcap = malloc((size_t)(u + 2) * sizeof(int32_t));
        int32_t *dev_tcap = malloc((size_t)(u + 2) * sizeof(int32_t));
        uint32_t *n_free = calloc((size_t)u, sizeof(uint32_t));
        uint32_t *zero = calloc((size_t)u, sizeof(uint32_t));
        for (int64_t i = 0; i < n; i++)
            n_free[ci.of_pixel[i]]++;
        for (int r = 0; r < repeats; r++) {
            float *x[2];
            int64_t ns[2];
            double t0 = bench_now_ms();
            if (gcut__color_model_samples_pair(ctx, threads, pix, label, n, x, ns)) {
                fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
                return 1;
            }
            float *xf = x[0], *xb = x[1];
            int64_t nf = ns[0], nb = ns[1];
            double t1 = bench_now_ms();
            /* A refit (the models were fitted before): the rounds alone, as between cuts. */
            if (r == 0) {
                gcut__color_model_fit_samples(ctx, &fg, xf, nf);
                gcut__color_model_fit_samples(ctx, &bg, xb, nb);
                t1 = bench_now_ms();
            }
            gcut__color_model_fit_samples(ctx, &fg, xf, nf);
            gcut__color_model_fit_samples(ctx, &bg, xb, nb);
            double t2 = bench_now_ms();
            gcut__price_model pf, pb;
            gcut__price_model_from(&fg, &pf);
            gcut__price_model_from(&bg, &pb);
            price_job job = {&pf, &pb, ci.colors, cost_fg, cost_bg};
            gcut__parallel_for(gcut__thread_count(threads, 16 * u), u, price_range, &job);
            double t3 = bench_now_ms();
            int64_t constant = 0;
            for (int64_t v = 0; v < u; v++)
                constant += gcut__price_terminal(cost_fg[v], cost_bg[v], n_free[v], 0, 0,
                                                 &tcap[v]);
            tcap[u] = 1000, tcap[u + 1] = -1000;
            double t4 = bench_now_ms();
            t[C_SELECT][r] = t1 - t0;
            t[C_ROUNDS][r] = t2 - t1;
            t[C_PRICE][r] = t3 - t2;
            t[C_TERMINALS][r] = t4 - t3;
            t[C_GPU_PRICE][r] = 0;
#ifdef GCUT_HAVE_CUDA
            if (gpu) {
                int64_t dev_constant = 0;
                double dt = 0;
                if (gcut__seg_gpu_price_check(ctx, ci.colors, u, &pf, &pb, n_free, zero, zero,
                                              1000, dev_fg, dev_bg, dev_tcap, &dev_constant,
                                              &dt)) {
                    fprintf(stderr, "%s: %s\n", names[k], gcut_last_error(ctx));
                    return 1;
                }
                t[C_GPU_PRICE][r] = dt;
                if (memcmp(dev_fg, cost_fg, (size_t)u * 4) || memcmp(dev_bg, cost_bg, (size_t)u * 4) ||
                    memcmp(dev_tcap, tcap, (size_t)(u + 2) * 4) || dev_constant != constant) {
                    fprintf(stderr, "%s: the device's prices differ from the host's\n", names[k]);
                    bad = 1;
                }
            }
#endif
            free(xf);
            free(xb);
        }
        double m[C_COLS];
        for (int q = 0; q < C_COLS; q++)
            col[q][rows] = m[q] = bench_median(t[q], repeats);
        colours[rows] = (double)u;
        char gpu_col[32] = "-";
        if (gpu)
            snprintf(gpu_col, sizeof gpu_col, "%.3f", m[C_GPU_PRICE]);
        printf("| %s | %dx%d | %lld | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %lld | %s |\n",
               names[k], W, H, (long long)u, m[C_INDEX], m[C_SELECT], m[C_ROUNDS], m[C_PRICE],
               m[C_TERMINALS], m[C_SELECT] + m[C_ROUNDS] + m[C_PRICE] + m[C_TERMINALS],
               (long long)(u + 2) * 4, gpu_col);
        fflush(stdout);
        rows++;
        gcut__color_model_free(&fg);
        gcut__color_model_free(&bg);
        gcut__color_index_free(&ci);
        free(cost_fg);
        free(cost_bg);
        free(dev_fg);
        free(dev_bg);
        free(tcap);
        free(dev_tcap);
        free(n_free);
        free(zero);
        free(pix);
        free(label);
        free(label0);
        gcut_image_destroy(im);
        gcut_image_destroy(gt);
    }
    if (rows) {
        double m[C_COLS];
        for (int q = 0; q < C_COLS; q++)
            m[q] = bench_median(col[q], rows);
        printf("| **median of %d** | | %.0f | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | | %s |\n",
               rows, bench_median(colours, rows), m[C_INDEX], m[C_SELECT], m[C_ROUNDS],
               m[C_PRICE], m[C_TERMINALS], m[C_SELECT] + m[C_ROUNDS] + m[C_PRICE] + m[C_TERMINALS],
               "");
        if (gpu)
            printf("\ndevice pricing median: %.3f ms\n", m[C_GPU_PRICE]);
    }
    if (session > 0 && session_tables(ctx, dir, names, count, only, megapixels, session))
        bad = 1;
    for (int k = 0; k < count; k++)
        free(names[k]);
    gcut_context_destroy(ctx);
    return bad;
}
