/* grid-e2e-bench: gcut_grid_solve() on the GPU from host arrays to labels,
 * against its kernel time and the transfer floor.
 *
 * Usage: grid-e2e-bench --link
 *        grid-e2e-bench [--reps N] [--conn 4|8] [--bk] [--dump FILE] IMAGE SEEDS
 *
 * --link: CUDA's start-up in this fresh process (cudaFree(0) before any
 * other CUDA call), then the host<->device bandwidth of 64 MiB copies,
 * pageable and pinned, each the median of 9, and the time main() took (so
 * that the caller can tell the process's start and exit apart): one JSON
 * line.
 *
 * Else: the segmentation-style graph of IMAGE with SEEDS (palette index 1
 * foreground, 2 background; terminals from 16^3-bin colour histograms of
 * the seeds, n-links lambda exp(-|dI|^2 / 2 beta) / distance, as
 * gpu_grid_bench.c builds them), solved on the GPU (tiled) --reps times
 * from the host arrays, each of a grid built afresh (the graph of the same
 * image, as a pipeline's next frame): for each solve the wall time of
 * gcut_grid_solve() (e2e) and the run's CUDA-event time (kernel), and the
 * bytes a solve moves (the capacities up, one label byte a node down). The
 * first solve (which also allocates the device buffers and the pinned
 * halves) is reported apart; every solve's flow must equal the first's,
 * whose proof gcut_grid_verify() checks (fetching the residuals, before
 * the timed solves). --bk: BK on the same graph too (flow compared). --dump FILE:
 * the graph in gpu_grid_pymaxflow.py's raw format. One JSON line. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcut.h"
#include "gpu/gpu.h"
#include "bench_util.h"

#define SCALE 64.0
#define LAMBDA 50.0
#define MAX_REGION 40.0
#define LINK_BYTES ((size_t)64 << 20)
#define LINK_REPS 9

/* GB/s of `bytes` copied `kind`, the median of LINK_REPS copies. */
static double link_rate(void *dst, const void *src, enum cudaMemcpyKind kind)
{
    double ms[LINK_REPS];
    for (int r = 0; r < LINK_REPS; r++) {
        double t0 = bench_now_ms();
        if (cudaMemcpy(dst, src, LINK_BYTES, kind) != cudaSuccess)
            return -1;
        ms[r] = bench_now_ms() - t0;
    }
    return (double)LINK_BYTES / (bench_median(ms, LINK_REPS) * 1e6);
}

static int link_main(void)
{
    const double entered = bench_now_ms();
    double t0 = bench_now_ms();
    cudaError_t err = cudaFree(0);
    double start_ms = bench_now_ms() - t0;
    if (err != cudaSuccess) {
        fprintf(stderr, "grid-e2e-bench: no device: %s\n", cudaGetErrorString(err));
        return 1;
    }
    void *dev = NULL, *pinned = NULL;
    unsigned char *pageable = malloc(LINK_BYTES);
    if (!pageable || cudaMalloc(&dev, LINK_BYTES) != cudaSuccess ||
        cudaMallocHost(&pinned, LINK_BYTES) != cudaSuccess) {
        fprintf(stderr, "grid-e2e-bench: out of memory\n");
        return 1;
    }
    memset(pageable, 1, LINK_BYTES); /* touched: no page faults in the copies */
    memset(pinned, 1, LINK_BYTES);
    double h2d_pageable = link_rate(dev, pageable, cudaMemcpyHostToDevice);
    double h2d_pinned = link_rate(dev, pinned, cudaMemcpyHostToDevice);
    double d2h_pageable = link_rate(pageable, dev, cudaMemcpyDeviceToHost);
    double d2h_pinned = link_rate(pinned, dev, cudaMemcpyDeviceToHost);
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    cudaFree(dev);
    cudaFreeHost(pinned);
    free(pageable);
    /* main_ms: from main() to its return; the caller's wall time of the
     * process less this is the process's start and exit (CUDA's teardown). */
    printf("{\"device\": \"%s\", \"cuda_start_ms\": %.1f, \"h2d_pageable_gbs\": %.2f, "
           "\"h2d_pinned_gbs\": %.2f, \"d2h_pageable_gbs\": %.2f, \"d2h_pinned_gbs\": %.2f, "
           "\"main_ms\": %.1f}\n",
           prop.name, start_ms, h2d_pageable, h2d_pinned, d2h_pageable, d2h_pinned,
           bench_now_ms() - entered);
    fflush(stdout);
    return 0;
}

static int bin_of(const uint8_t *c)
{
    return ((c[0] >> 4) * 16 + (c[1] >> 4)) * 16 + (c[2] >> 4);
}

static double dist2(const uint8_t *a, const uint8_t *b)
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* The graph of packed RGB `px` with seeds `seed` (0, 1 fg, 2 bg). */
static gcut_grid *build_graph(gcut_context *ctx, const uint8_t *px, const uint8_t *seed, int w,
                              int h, int conn, FILE *dump)
{
    const size_t n = (size_t)w * h;
    gcut_grid *g = NULL;
    if (gcut_grid_create(ctx, w, h, conn, &g))
        return NULL;
    double *hist = calloc(2 * 4096, sizeof *hist), total[2] = {4096, 4096};
    int32_t *src = malloc(n * sizeof *src), *snk = malloc(n * sizeof *snk);
    int32_t *arc = malloc(n * sizeof *arc);
    double *wt = malloc((3 * 255 * 255 + 1) * sizeof *wt);
    gcut_status st = hist && src && snk && arc && wt ? GCUT_OK : GCUT_E_NOMEM;
    for (size_t i = 0; i < n && !st; i++)
        if (seed[i]) {
            hist[(seed[i] - 1) * 4096 + bin_of(px + 3 * i)] += 1;
            total[seed[i] - 1] += 1;
        }
    double beta = 0;
    for (int y = 0; y < h && !st; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (x + 1 < w)
                beta += dist2(px + 3 * i, px + 3 * (i + 1));
            if (y + 1 < h)
                beta += dist2(px + 3 * i, px + 3 * (i + w));
        }
    beta = beta / (2.0 * n) + 1e-9;
    const int32_t hard = (int32_t)(conn * LAMBDA * SCALE * 2 + 1);
    for (size_t i = 0; i < n && !st; i++) {
        int b = bin_of(px + 3 * i);
        double efg = -log((hist[b] + 1) / total[0]), ebg = -log((hist[4096 + b] + 1) / total[1]);
        efg = efg > MAX_REGION ? MAX_REGION : efg;
        ebg = ebg > MAX_REGION ? MAX_REGION : ebg;
        /* Cutting the source arc puts the pixel in the background. */
        src[i] = seed[i] == 1 ? hard : seed[i] == 2 ? 0 : (int32_t)lround(ebg * SCALE);
        snk[i] = seed[i] == 2 ? hard : seed[i] == 1 ? 0 : (int32_t)lround(efg * SCALE);
    }
    if (!st)
        st = gcut_grid_set_terminals(g, src, snk);
    if (!st && dump) {
        const int32_t head[3] = {w, h, conn};
        fwrite(head, sizeof head, 1, dump);
        fwrite(src, sizeof *src, n, dump);
        fwrite(snk, sizeof *snk, n, dump);
    }
    for (int d = 0; d < conn && !st; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        double inv_len = (dx && dy) ? 1.0 / sqrt(2.0) : 1.0;
        for (int k = 0; k <= 3 * 255 * 255; k++) /* the weight by |dI|^2 */
            wt[k] = LAMBDA * SCALE * inv_len * exp(-k / (2 * beta));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                int nx = x + dx, ny = y + dy;
                arc[i] = nx < 0 || ny < 0 || nx >= w || ny >= h
                             ? 0
                             : (int32_t)lround(wt[(int)dist2(px + 3 * i,
                                                             px + 3 * ((size_t)ny * w + nx))]);
            }
        st = gcut_grid_set_edges(g, (gcut_dir)d, arc);
        if (!st && dump)
            fwrite(arc, sizeof *arc, n, dump);
    }
    free(hist);
    free(src);
    free(snk);
    free(arc);
    free(wt);
    if (st) {
        fprintf(stderr, "grid-e2e-bench: %s\n", gcut_last_error(ctx));
        gcut_grid_destroy(g);
        return NULL;
    }
    return g;
}

/* Packed RGB and seeds from the files. */
static int load_inputs(gcut_context *ctx, const char *image, const char *seeds, uint8_t **px,
                       uint8_t **seed, int *w, int *h)
{
    gcut_image *im = NULL, *an = NULL;
    if (gcut_image_load(ctx, image, &im) || gcut_image_load(ctx, seeds, &an) ||
        !gcut_image_indices(an) || gcut_image_width(an) != gcut_image_width(im) ||
        gcut_image_height(an) != gcut_image_height(im)) {
        fprintf(stderr, "grid-e2e-bench: %s / %s: %s\n", image, seeds,
                gcut_last_error(ctx)[0] ? gcut_last_error(ctx) : "no palette seeds of its size");
        gcut_image_destroy(im);
        gcut_image_destroy(an);
        return -1;
    }
    *w = gcut_image_width(im);
    *h = gcut_image_height(im);
    const int c = gcut_image_channels(im);
    const size_t n = (size_t)*w * *h;
    *px = malloc(3 * n);
    *seed = malloc(n);
    const uint8_t *p = gcut_image_pixels(im), *ix = gcut_image_indices(an);
    for (size_t i = 0; i < n && *px && *seed; i++) {
        for (int k = 0; k < 3; k++)
            (*px)[3 * i + k] = p[i * c + (c >= 3 ? k : 0)];
        (*seed)[i] = ix[i] == 1 ? 1 : ix[i] == 2 ? 2 : 0;
    }
    gcut_image_destroy(im);
    gcut_image_destroy(an);
    return *px && *seed ? 0 : -1;
}

int main(int argc, char **argv)
{
    int reps = 9, conn = 8, bk = 0;
    const char *dump_path = NULL, *image = NULL, *seeds = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link"))
            return link_main();
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--conn") && i + 1 < argc)
            conn = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bk"))
            bk = 1;
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump_path = argv[++i];
        else if (!image)
            image = argv[i];
        else if (!seeds)
            seeds = argv[i];
    }
    if (!image || !seeds || reps < 1 || (conn != 4 && conn != 8)) {
        fprintf(stderr, "Usage: grid-e2e-bench --link\n"
                        "       grid-e2e-bench [--reps N] [--conn 4|8] [--bk] [--dump FILE] "
                        "IMAGE SEEDS\n");
        return 2;
    }
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_GPU;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx))
        return 1;
    gcut_context_warm_device(ctx);
    uint8_t *px = NULL, *seed = NULL;
    int w = 0, h = 0;
    if (load_inputs(ctx, image, seeds, &px, &seed, &w, &h))
        return 1;
    FILE *dump = dump_path ? fopen(dump_path, "wb") : NULL;
    if (dump_path && !dump) {
        perror(dump_path);
        return 1;
    }
    gcut_grid *g = build_graph(ctx, px, seed, w, h, conn, dump);
    if (dump && fclose(dump)) {
        perror(dump_path);
        return 1;
    }
    if (!g)
        return 1;

    gcut_solve_info info;
    double t0 = bench_now_ms();
    gcut_status st = gcut_grid_solve(g, "tiled", &info);
    const double first_ms = bench_now_ms() - t0;
    if (st) {
        fprintf(stderr, "grid-e2e-bench: %s: %s\n", image, gcut_last_error(ctx));
        return 1;
    }
    const int64_t flow = info.flow;
    gcut__gpu_grid_stats stats;
    double *e2e = calloc((size_t)reps, sizeof *e2e), *kernel = calloc((size_t)reps, sizeof *kernel);
    double worst_e2e = 0, worst_over = 0;
    int same = 1;
    /* The first grid's proof first: its residuals come back now, not inside
     * a timed solve of the next grid that takes the device buffers. */
    int64_t cut = 0;
    t0 = bench_now_ms();
    const int verified = gcut_grid_verify(g, &cut) == GCUT_OK && cut == flow;
    const double verify_ms = bench_now_ms() - t0;
    if (!verified)
        fprintf(stderr, "grid-e2e-bench: %s: verify: %s\n", image, gcut_last_error(ctx));
    /* Each timed solve is of a grid built afresh, as a user's next image is:
     * solving the same grid again would start from its kept flow (a warm
     * re-solve with nothing changed), not from the host arrays. */
    for (int r = 0; r < reps && e2e && kernel; r++) {
        gcut_grid *fresh = build_graph(ctx, px, seed, w, h, conn, NULL);
        if (!fresh)
            return 1;
        t0 = bench_now_ms();
        st = gcut_grid_solve(fresh, "tiled", &info);
        e2e[r] = bench_now_ms() - t0;
        gcut_grid_destroy(fresh);
        if (st || gcut__gpu_grid_stats_get(ctx, &stats)) {
            fprintf(stderr, "grid-e2e-bench: %s: %s\n", image, gcut_last_error(ctx));
            return 1;
        }
        kernel[r] = stats.run_ms;
        same &= info.flow == flow;
        worst_e2e = e2e[r] > worst_e2e ? e2e[r] : worst_e2e;
        worst_over = e2e[r] - kernel[r] > worst_over ? e2e[r] - kernel[r] : worst_over;
    }
    double *over = calloc((size_t)reps, sizeof *over);
    for (int r = 0; r < reps && over; r++)
        over[r] = e2e[r] - kernel[r];
    double bk_ms = -1;
    int bk_same = 1;
    if (bk) {
        gcut_solve_info bi;
        if (gcut_grid_solve(g, "bk", &bi)) {
            fprintf(stderr, "grid-e2e-bench: BK: %s\n", gcut_last_error(ctx));
            return 1;
        }
        bk_ms = bi.time_ms;
        bk_same = bi.flow == flow;
    }
    /* A padded raster of (w + 2) x (h + 2) nodes: conn residuals, source and
     * sink capacities up (int32), one label byte down. */
    const double nodes = (double)(w + 2) * (h + 2);
    printf("{\"image\": \"%s\", \"width\": %d, \"height\": %d, \"conn\": %d, \"flow\": %lld, "
           "\"first_ms\": %.3f, \"e2e_ms\": %.3f, \"e2e_worst_ms\": %.3f, \"kernel_ms\": %.3f, "
           "\"over_ms\": %.3f, \"over_worst_ms\": %.3f, \"bytes_up\": %.0f, \"bytes_down\": %.0f, "
           "\"verify_ms\": %.1f, \"bk_ms\": %.1f, \"ok\": %s}\n",
           image, w, h, conn, (long long)flow, first_ms, bench_median(e2e, reps), worst_e2e,
           bench_median(kernel, reps), bench_median(over, reps), worst_over, nodes * 4 * (conn + 2), nodes,
           verify_ms, bk_ms, verified && same && bk_same ? "true" : "false");
    free(e2e);
    free(kernel);
    free(over);
    free(px);
    free(seed);
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
    return verified && same && bk_same ? 0 : 1;
}
