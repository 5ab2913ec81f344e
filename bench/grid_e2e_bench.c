/* grid-e2e-bench: gcut_grid_solve() on the GPU from host arrays to labels,
 * against its kernel time and the transfer floor.
 *
 * Usage: grid-e2e-bench --link [--hold MB] [--exit-now]
 *        grid-e2e-bench [--reps N] [--conn 4|8] [--bk] [--dump FILE] [--trace]
 *                       IMAGE SEEDS
 *
 * --link: CUDA's start-up in this fresh process (cudaFree(0) before any
 * other CUDA call), then the host<->device bandwidth of 64 MiB copies,
 * pageable and pinned, each the median of 9, and the time main() took (so
 * that the caller can tell the process's start and exit apart): one JSON
 * line. --hold MB: the process ends holding MB of device memory in 16
 * buffers, a stream and 1 MiB pinned, as `gcut segment` does at 4 MP;
 * --exit-now: it ends by _exit() after the line, without CUDA's teardown
 * (as the gcut command does): the caller's wall time less main_ms, with and
 * without, is what the teardown costs.
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
 * staging ring) is reported apart; every solve's flow must equal the first's,
 * whose proof gcut_grid_verify() checks (fetching the residuals, before
 * the timed solves). --bk: BK on the same graph too (flow compared). --dump FILE:
 * the graph in gpu_grid_pymaxflow.py's raw format. --trace: where the
 * timed solve of the median e2e time spent it ("trace": host stamps in ms
 * from the call, the copies' span on the stream by CUDA events, the host
 * threads' copy and wait times; src/gpu/grid_gpu.cu records them).
 * One JSON line. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gcut.h"
#include "gpu/gpu.h"
#include "bench_util.h"

/* Bench-only hooks of src/gpu/grid_gpu.cu (declared in gpu/gpu_state.h,
 * a CUDA header). */
gcut_status gcut__gpu_grid_xfer_trace_json(gcut_context *ctx, double t0, char *buf, size_t size);

#define TRACE_CHARS 640

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

static int link_main(int hold_mb, int exit_now)
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
    /* What a segmentation leaves for the exit to tear down. */
    cudaStream_t stream = NULL;
    void *held[16] = {NULL}, *held_pinned = NULL;
    if (hold_mb > 0) {
        size_t each = ((size_t)hold_mb << 20) / 16;
        int ok = cudaStreamCreate(&stream) == cudaSuccess &&
                 cudaMallocHost(&held_pinned, (size_t)1 << 20) == cudaSuccess;
        for (int k = 0; k < 16 && ok; k++)
            ok = cudaMalloc(&held[k], each) == cudaSuccess &&
                 cudaMemsetAsync(held[k], 0, each, stream) == cudaSuccess;
        if (!ok || cudaStreamSynchronize(stream) != cudaSuccess) {
            fprintf(stderr, "grid-e2e-bench: cannot hold %d MB\n", hold_mb);
            return 1;
        }
    }
    /* main_ms: from main() to its return; the caller's wall time of the
     * process less this is the process's start and exit (CUDA's teardown). */
    printf("{\"device\": \"%s\", \"cuda_start_ms\": %.1f, \"h2d_pageable_gbs\": %.2f, "
           "\"h2d_pinned_gbs\": %.2f, \"d2h_pageable_gbs\": %.2f, \"d2h_pinned_gbs\": %.2f, "
           "\"hold_mb\": %d, \"exit_now\": %s, \"main_ms\": %.1f}\n",
           prop.name, start_ms, h2d_pageable, h2d_pinned, d2h_pageable, d2h_pinned, hold_mb,
           exit_now ? "true" : "false", bench_now_ms() - entered);
    if (fflush(stdout) != 0)
        return 1;
    if (exit_now)
        _exit(0);
    return 0; /* the held buffers go with CUDA's teardown at exit */
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

/* The capacities of a segmentation-style graph, computed once: a fresh
 * grid of them costs its creation and copies only. */
typedef struct graph_arrays {
    int w, h, conn;
    int32_t *src, *snk, *arc[8];
} graph_arrays;

static void arrays_free(graph_arrays *a)
{
    free(a->src);
    free(a->snk);
    for (int d = 0; d < 8; d++)
        free(a->arc[d]);
}

/* The graph of packed RGB `px` with seeds `seed` (0, 1 fg, 2 bg). */
static int compute_arrays(const uint8_t *px, const uint8_t *seed, int w, int h, int conn,
                          graph_arrays *a)
{
    const size_t n = (size_t)w * h;
    memset(a, 0, sizeof *a);
    a->w = w, a->h = h, a->conn = conn;
    double *hist = calloc(2 * 4096, sizeof *hist), total[2] = {4096, 4096};
    double *wt = malloc((3 * 255 * 255 + 1) * sizeof *wt);
    a->src = malloc(n * sizeof *a->src);
    a->snk = malloc(n * sizeof *a->snk);
    int ok = hist && wt && a->src && a->snk;
    for (int d = 0; d < conn && ok; d++)
        ok = (a->arc[d] = malloc(n * sizeof *a->arc[d])) != NULL;
    for (size_t i = 0; i < n && ok; i++)
        if (seed[i]) {
            hist[(seed[i] - 1) * 4096 + bin_of(px + 3 * i)] += 1;
            total[seed[i] - 1] += 1;
        }
    double beta = 0;
    for (int y = 0; y < h && ok; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (x + 1 < w)
                beta += dist2(px + 3 * i, px + 3 * (i + 1));
            if (y + 1 < h)
                beta += dist2(px + 3 * i, px + 3 * (i + w));
        }
    beta = beta / (2.0 * n) + 1e-9;
    const int32_t hard = (int32_t)(conn * LAMBDA * SCALE * 2 + 1);
    for (size_t i = 0; i < n && ok; i++) {
        int b = bin_of(px + 3 * i);
        double efg = -log((hist[b] + 1) / total[0]), ebg = -log((hist[4096 + b] + 1) / total[1]);
        efg = efg > MAX_REGION ? MAX_REGION : efg;
        ebg = ebg > MAX_REGION ? MAX_REGION : ebg;
        /* Cutting the source arc puts the pixel in the background. */
        a->src[i] = seed[i] == 1 ? hard : seed[i] == 2 ? 0 : (int32_t)lround(ebg * SCALE);
        a->snk[i] = seed[i] == 2 ? hard : seed[i] == 1 ? 0 : (int32_t)lround(efg * SCALE);
    }
    for (int d = 0; d < conn && ok; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        double inv_len = (dx && dy) ? 1.0 / sqrt(2.0) : 1.0;
        for (int k = 0; k <= 3 * 255 * 255; k++) /* the weight by |dI|^2 */
            wt[k] = LAMBDA * SCALE * inv_len * exp(-k / (2 * beta));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                int nx = x + dx, ny = y + dy;
                a->arc[d][i] = nx < 0 || ny < 0 || nx >= w || ny >= h
                                   ? 0
                                   : (int32_t)lround(wt[(int)dist2(
                                         px + 3 * i, px + 3 * ((size_t)ny * w + nx))]);
            }
    }
    free(hist);
    free(wt);
    if (!ok) {
        fprintf(stderr, "grid-e2e-bench: out of memory\n");
        arrays_free(a);
    }
    return ok ? 0 : -1;
}

/* The arrays in gpu_grid_pymaxflow.py's raw format. */
static int dump_arrays(const graph_arrays *a, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return -1;
    }
    const size_t n = (size_t)a->w * a->h;
    const int32_t head[3] = {a->w, a->h, a->conn};
    fwrite(head, sizeof head, 1, f);
    fwrite(a->src, sizeof *a->src, n, f);
    fwrite(a->snk, sizeof *a->snk, n, f);
    for (int d = 0; d < a->conn; d++)
        fwrite(a->arc[d], sizeof *a->arc[d], n, f);
    if (fclose(f)) {
        perror(path);
        return -1;
    }
    return 0;
}

/* A grid made afresh from the arrays (host arrays only, nothing solved). */
static gcut_grid *make_grid(gcut_context *ctx, const graph_arrays *a)
{
    gcut_grid *g = NULL;
    gcut_status st = gcut_grid_create(ctx, a->w, a->h, a->conn, &g);
    if (!st)
        st = gcut_grid_set_terminals(g, a->src, a->snk);
    for (int d = 0; d < a->conn && !st; d++)
        st = gcut_grid_set_edges(g, (gcut_dir)d, a->arc[d]);
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
    int reps = 9, conn = 8, bk = 0, link = 0, hold_mb = 0, exit_now = 0, trace = 0;
    const char *dump_path = NULL, *image = NULL, *seeds = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link"))
            link = 1;
        else if (!strcmp(argv[i], "--hold") && i + 1 < argc)
            hold_mb = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--exit-now"))
            exit_now = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--conn") && i + 1 < argc)
            conn = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bk"))
            bk = 1;
        else if (!strcmp(argv[i], "--trace"))
            trace = 1;
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump_path = argv[++i];
        else if (!image)
            image = argv[i];
        else if (!seeds)
            seeds = argv[i];
    }
    if (link)
        return link_main(hold_mb, exit_now);
    if (!image || !seeds || reps < 1 || (conn != 4 && conn != 8)) {
        fprintf(stderr, "Usage: grid-e2e-bench --link [--hold MB] [--exit-now]\n"
                        "       grid-e2e-bench [--reps N] [--conn 4|8] [--bk] [--dump FILE] "
                        "[--trace] IMAGE SEEDS\n");
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
    graph_arrays arrays;
    if (compute_arrays(px, seed, w, h, conn, &arrays) ||
        (dump_path && dump_arrays(&arrays, dump_path)))
        return 1;
    gcut_grid *g = make_grid(ctx, &arrays);
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
    char *traces = trace ? calloc((size_t)reps, TRACE_CHARS) : NULL;
    if (trace && !traces)
        return 1;
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
        gcut_grid *fresh = make_grid(ctx, &arrays);
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
        if (trace) { /* the stamps, when the call returned, the run's event time */
            char *t = traces + (size_t)r * TRACE_CHARS;
            if (gcut__gpu_grid_xfer_trace_json(ctx, t0, t, TRACE_CHARS - 64)) {
                fprintf(stderr, "grid-e2e-bench: %s\n", gcut_last_error(ctx));
                return 1;
            }
            size_t len = strlen(t);
            if (len > 0 && t[len - 1] == '}')
                snprintf(t + len - 1, 64, ", \"returned\": %.3f, \"kernel_ms\": %.3f}", e2e[r],
                         kernel[r]);
        }
        same &= info.flow == flow;
        worst_e2e = e2e[r] > worst_e2e ? e2e[r] : worst_e2e;
        worst_over = e2e[r] - kernel[r] > worst_over ? e2e[r] - kernel[r] : worst_over;
    }
    double *over = calloc((size_t)reps, sizeof *over);
    for (int r = 0; r < reps && over; r++)
        over[r] = e2e[r] - kernel[r];
    int mid = 0; /* the solve of the median e2e time (the upper one of an even count) */
    for (int r = 0; r < reps; r++) {
        int below = 0;
        for (int q = 0; q < reps; q++)
            below += e2e[q] < e2e[r] || (e2e[q] == e2e[r] && q < r);
        if (below == reps / 2)
            mid = r;
    }
    double bk_ms = -1;
    int bk_same = 1;
    if (bk) { /* a fresh grid too: not a warm start from the GPU's flow */
        gcut_solve_info bi;
        gcut_grid *fresh = make_grid(ctx, &arrays);
        if (!fresh || gcut_grid_solve(fresh, "bk", &bi)) {
            fprintf(stderr, "grid-e2e-bench: BK: %s\n", gcut_last_error(ctx));
            return 1;
        }
        gcut_grid_destroy(fresh);
        bk_ms = bi.time_ms;
        bk_same = bi.flow == flow;
    }
    /* A padded raster of (w + 2) x (h + 2) nodes: conn residuals, source and
     * sink capacities up (int32), one label byte down. */
    const double nodes = (double)(w + 2) * (h + 2);
    printf("{\"image\": \"%s\", \"width\": %d, \"height\": %d, \"conn\": %d, \"flow\": %lld, "
           "\"first_ms\": %.3f, \"e2e_ms\": %.3f, \"e2e_worst_ms\": %.3f, \"kernel_ms\": %.3f, "
           "\"over_ms\": %.3f, \"over_worst_ms\": %.3f, \"bytes_up\": %.0f, \"bytes_down\": %.0f, "
           "\"verify_ms\": %.1f, \"bk_ms\": %.1f, \"ok\": %s%s%s}\n",
           image, w, h, conn, (long long)flow, first_ms, bench_median(e2e, reps), worst_e2e,
           bench_median(kernel, reps), bench_median(over, reps), worst_over, nodes * 4 * (conn + 2), nodes,
           verify_ms, bk_ms, verified && same && bk_same ? "true" : "false",
           trace ? ", \"trace\": " : "", trace ? traces + (size_t)mid * TRACE_CHARS : "");
    free(traces);
    free(e2e);
    free(kernel);
    free(over);
    free(px);
    free(seed);
    arrays_free(&arrays);
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
    return verified && same && bk_same ? 0 : 1;
}
