/* The segmentation energy on the GPU (segment_gpu.h): the image, seeds,
 * colour numbers and the distinct colours go up once; per cut the host
 * sends the two colour models' parameters (or, on the host's pricing
 * path, the terminal capacity of each colour), the device prices every
 * colour with the host's routine (vision/color_price.h: the same bits),
 * and every capacity of the graph is written on the device, in the
 * solver's layout, from the same integer tables as the CPU path, so the
 * two graphs are equal entry for entry. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_state.h"
#include "gpu/segment_gpu.h"

#define THREADS 256

/* What the device's pricing keeps: the colours, their counts by seed kind,
 * the histogram tables of the last models that were histograms, and the
 * constant's sum. */
typedef struct price_buffers {
    int64_t count;
    uint8_t *d_colours;             /* count x RGB */
    uint32_t *d_counts;             /* 3 x count: free, fg-seeded, bg-seeded pixels */
    float *d_neg_log[2];            /* histogram -log P per bin, fg and bg */
    unsigned long long *d_constant; /* the scaled constant part */
    int colours_up;
} price_buffers;

struct gcut__seg_gpu {
    gcut_grid *g;
    gcut__gpu *s;
    int64_t n, colors;
    int table_len;
    uint8_t *d_rgb;     /* n x RGB */
    uint32_t *d_entry;  /* n: the pixel's terminal entry */
    uint8_t *d_labels;  /* n: the seeds on the way up, the labels on the way down */
    int32_t *d_table;   /* 2 x table_len n-link weights */
    int32_t *d_tcap;    /* colors + 2 terminal capacities */
    unsigned long long *d_sum; /* [0]: d2 sum, [1]: largest n-link sum */
    price_buffers price;
};

/* E W S N NE SW SE NW, as gcut_dir. */
static __device__ __forceinline__ int seg_dx(int d)
{
    return (d == 0 || d == 4 || d == 6) ? 1 : (d == 1 || d == 5 || d == 7) ? -1 : 0;
}

static __device__ __forceinline__ int seg_dy(int d)
{
    return (d == 2 || d == 5 || d == 6) ? 1 : (d == 3 || d == 4 || d == 7) ? -1 : 0;
}

static __device__ __forceinline__ int32_t d2_of(const uint8_t *rgb, long long p, long long q)
{
    const int a = rgb[3 * p] - rgb[3 * q], b = rgb[3 * p + 1] - rgb[3 * q + 1],
              c = rgb[3 * p + 2] - rgb[3 * q + 2];
    return a * a + b * b + c * c;
}

static unsigned blocks_for(long long n)
{
    long long b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b > 0 ? b : 1);
}

/* entry = colour number, or colors / colors + 1 for a fg / bg seed; the
 * seeds arrive in `seeds`, the colour numbers already in `entry`. */
static __global__ void entry_kernel(uint32_t *entry, const uint8_t *seeds, long long n,
                                    uint32_t colors)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= n)
        return;
    if (seeds[i] == GCUT_SEED_FG)
        entry[i] = colors;
    else if (seeds[i] == GCUT_SEED_BG)
        entry[i] = colors + 1;
}

/* Sum of d2 over the pairs (p, p + forward direction), each pair once. */
static __global__ void d2_sum_kernel(const uint8_t *rgb, int w, int h, int ndirs,
                                     unsigned long long *sum)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    unsigned long long v = 0;
    if (i < (long long)w * h) {
        const int x = (int)(i % w), y = (int)(i / w);
        for (int d = 0; d < ndirs; d += 2) { /* E, S, NE, SE */
            const int nx = x + seg_dx(d), ny = y + seg_dy(d);
            if (nx >= 0 && nx < w && ny >= 0 && ny < h)
                v += (unsigned long long)d2_of(rgb, i, (long long)ny * w + nx);
        }
    }
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v)
        atomicAdd(sum, v);
}

/* Every node of the device raster: its n-links from the table (zero where
 * the neighbour is outside the image, and everywhere outside the image),
 * its terminal capacity from tcap (zero when tcap is NULL), height 0; with
 * `largest`, the largest sum of a pixel's n-links. */
static __global__ void energy_kernel(gcut__dgrid g, const uint8_t *rgb, const uint32_t *entry,
                                     const int32_t *table, int len, const int32_t *tcap,
                                     unsigned long long *largest)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    const long long nodes = (long long)g.pitch * g.rows;
    if (i >= nodes)
        return;
    const int x = (int)(i % g.pitch) - 1, y = (int)(i / g.pitch) - 1;
    const int inside = x >= 0 && x < g.img_w && y >= 0 && y < g.img_h;
    const long long p = (long long)y * g.img_w + x;
    int32_t sum = 0; /* < 7e7: segment.c's header bound */
    for (int d = 0; d < g.ndirs; d++) {
        const int nx = x + seg_dx(d), ny = y + seg_dy(d);
        int32_t c = 0;
        if (inside && nx >= 0 && nx < g.img_w && ny >= 0 && ny < g.img_h)
            c = table[(d >= 4) * len + d2_of(rgb, p, (long long)ny * g.img_w + nx)];
        g.res[d][i] = c;
        sum += c;
    }
    const int32_t t = inside && tcap ? tcap[entry[p]] : 0;
    g.excess[i] = t > 0 ? t : 0;
    g.sink[i] = t > 0 ? 0 : -t;
    g.height[i] = 0;
    if (largest && sum > 0)
        atomicMax(largest, (unsigned long long)sum);
}

/* Pixel (x, y)'s label after a solve: 1 when it cannot reach the sink
 * (infinite height after the last, exact global relabel). */
static __device__ __forceinline__ uint8_t cut_label(const gcut__dgrid &g, int x, int y)
{
    return g.height[(long long)(y + 1) * g.pitch + x + 1] >= GCUT_HEIGHT_INF;
}

static __global__ void labels_kernel(gcut__dgrid g, uint8_t *labels)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= (long long)g.img_w * g.img_h)
        return;
    labels[i] = cut_label(g, (int)(i % g.img_w), (int)(i / g.img_w));
}

/* The block's copy of the two colour models, a word a thread (the
 * caller syncs before reading it). */
static __device__ __forceinline__ void load_models(gcut__price_model *models,
                                                   const gcut__price_model &fg,
                                                   const gcut__price_model &bg)
{
    const int words = (int)(sizeof(gcut__price_model) / sizeof(int));
    const int *from_fg = (const int *)&fg, *from_bg = (const int *)&bg;
    int *to = (int *)models;
    for (int k = threadIdx.x; k < words; k += blockDim.x) {
        to[k] = from_fg[k];
        to[words + k] = from_bg[k];
    }
}

/* Every colour's prices under both models, its terminal capacity and its
 * part of the constant (color_price.h), the parts summed in integers (any
 * order gives the same sum). The models go to shared memory first:
 * indexed by component, they would otherwise be read from local memory. */
static __global__ void price_kernel(gcut__price_model fg, gcut__price_model bg,
                                    const uint8_t *colours, long long count,
                                    const uint32_t *counts, int32_t *tcap, float *cost_fg,
                                    float *cost_bg, unsigned long long *constant)
{
    __shared__ gcut__price_model models[2];
    load_models(models, fg, bg);
    __syncthreads();
    const long long u = blockIdx.x * (long long)THREADS + threadIdx.x;
    unsigned long long part = 0;
    if (u < count) {
        const uint8_t c[3] = {colours[3 * u], colours[3 * u + 1], colours[3 * u + 2]};
        const float a = gcut__price_colour(&models[0], c);
        const float b = gcut__price_colour(&models[1], c);
        if (cost_fg) {
            cost_fg[u] = a;
            cost_bg[u] = b;
        }
        int32_t t;
        part = (unsigned long long)gcut__price_terminal(a, b, counts[u], counts[count + u],
                                                        counts[2 * count + u], &t);
        tcap[u] = t;
    }
    for (int o = 16; o > 0; o >>= 1)
        part += __shfl_down_sync(0xffffffffu, part, o);
    if ((threadIdx.x & 31) == 0 && part)
        atomicAdd(constant, part);
}

static void price_free(price_buffers *pb)
{
    cudaFree(pb->d_colours);
    cudaFree(pb->d_counts);
    cudaFree(pb->d_neg_log[0]);
    cudaFree(pb->d_neg_log[1]);
    cudaFree(pb->d_constant);
    memset(pb, 0, sizeof *pb);
}

static gcut_status price_alloc(gcut_context *ctx, price_buffers *pb, int64_t count)
{
    gcut_status st = GCUT_OK;
    pb->count = count;
    const size_t u = (size_t)(count > 0 ? count : 1);
    GPU_CHECK(ctx, cudaMalloc((void **)&pb->d_colours, 3 * u));
    GPU_CHECK(ctx, cudaMalloc((void **)&pb->d_counts, 3 * u * sizeof(uint32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&pb->d_constant, sizeof(unsigned long long)));
fail:
    return st;
}

/* Counts up (NULL: none of that kind). Pageable sources: each copy is done
 * when its call returns. */
static gcut_status price_counts(gcut_context *ctx, price_buffers *pb, cudaStream_t stream,
                                const uint32_t *n_free, const uint32_t *n_fg_seed,
                                const uint32_t *n_bg_seed)
{
    gcut_status st = GCUT_OK;
    const size_t bytes = (size_t)pb->count * sizeof(uint32_t);
    const uint32_t *from[3] = {n_free, n_fg_seed, n_bg_seed};
    for (int k = 0; k < 3; k++) {
        if (from[k])
            GPU_CHECK(ctx, cudaMemcpyAsync(pb->d_counts + (size_t)k * pb->count, from[k], bytes,
                                           cudaMemcpyHostToDevice, stream));
        else
            GPU_CHECK(ctx, cudaMemsetAsync(pb->d_counts + (size_t)k * pb->count, 0, bytes,
                                           stream));
    }
fail:
    return st;
}

/* Launch the pricing of every colour into d_tcap (and the prices, when
 * d_cost_fg is given); a histogram model's table goes up first. */
static gcut_status price_launch(gcut_context *ctx, price_buffers *pb, cudaStream_t stream,
                                const gcut__price_model *fg, const gcut__price_model *bg,
                                int32_t *d_tcap, float *d_cost_fg, float *d_cost_bg)
{
    gcut_status st = GCUT_OK;
    gcut__price_model m[2] = {*fg, *bg};
    const size_t bins = (size_t)1 << (3 * GCUT__PRICE_HIST_BITS);
    for (int k = 0; k < 2; k++) {
        if (!m[k].hist)
            continue;
        if (!pb->d_neg_log[k])
            GPU_CHECK(ctx, cudaMalloc((void **)&pb->d_neg_log[k], bins * sizeof(float)));
        GPU_CHECK(ctx, cudaMemcpyAsync(pb->d_neg_log[k], m[k].neg_log, bins * sizeof(float),
                                       cudaMemcpyHostToDevice, stream));
        m[k].neg_log = pb->d_neg_log[k];
    }
    GPU_CHECK(ctx, cudaMemsetAsync(pb->d_constant, 0, sizeof(unsigned long long), stream));
    if (pb->count > 0)
        price_kernel<<<blocks_for(pb->count), THREADS, 0, stream>>>(
            m[0], m[1], pb->d_colours, pb->count, pb->d_counts, d_tcap, d_cost_fg, d_cost_bg,
            pb->d_constant);
    GPU_CHECK(ctx, cudaGetLastError());
fail:
    return st;
}

extern "C" void gcut__seg_gpu_destroy(gcut__seg_gpu *sg)
{
    if (!sg)
        return;
    price_free(&sg->price);
    cudaFree(sg->d_rgb);
    cudaFree(sg->d_entry);
    cudaFree(sg->d_labels);
    cudaFree(sg->d_table);
    cudaFree(sg->d_tcap);
    cudaFree(sg->d_sum);
    free(sg);
}

extern "C" gcut_status gcut__seg_gpu_create(gcut_grid *g, const uint8_t *rgb,
                                            const uint8_t *seeds,
                                            const uint32_t *colour_of_pixel, int64_t colors,
                                            gcut__seg_gpu **out)
{
    gcut_context *ctx = g->ctx;
    *out = NULL;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    if ((st = gcut__gpu_grid_reserve(g)))
        return st;
    gcut__seg_gpu *sg = (gcut__seg_gpu *)calloc(1, sizeof *sg);
    if (!sg)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory");
    sg->g = g;
    sg->s = s;
    sg->n = (int64_t)g->width * g->height;
    sg->colors = colors;
    const size_t n = (size_t)sg->n;
    {
        size_t free_bytes = 0, total_bytes = 0;
        const size_t need = n * (3 + 4 + 1) + (size_t)(colors + 2) * 4;
        GPU_CHECK(ctx, cudaMemGetInfo(&free_bytes, &total_bytes));
        if (need + (16u << 20) > free_bytes) {
            st = gcut__fail(ctx, GCUT_E_DEVICE_NOMEM,
                            "gpu: the %dx%d image needs %zu MiB more on %s, and %zu MiB are free",
                            g->width, g->height, need >> 20, s->name, free_bytes >> 20);
            goto fail;
        }
    }
    GPU_CHECK(ctx, cudaMalloc((void **)&sg->d_rgb, 3 * n));
    GPU_CHECK(ctx, cudaMalloc((void **)&sg->d_entry, n * sizeof(uint32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&sg->d_labels, n));
    GPU_CHECK(ctx, cudaMalloc((void **)&sg->d_tcap, (size_t)(colors + 2) * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&sg->d_sum, 2 * sizeof(unsigned long long)));
    GPU_CHECK(ctx, cudaMemcpyAsync(sg->d_rgb, rgb, 3 * n, cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(sg->d_entry, colour_of_pixel, n * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(sg->d_labels, seeds, n, cudaMemcpyHostToDevice, s->stream));
    entry_kernel<<<blocks_for(sg->n), THREADS, 0, s->stream>>>(sg->d_entry, sg->d_labels,
                                                               sg->n, (uint32_t)colors);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    *out = sg;
    return GCUT_OK;
fail:
    gcut__seg_gpu_destroy(sg);
    return st;
}

extern "C" gcut_status gcut__seg_gpu_d2_sum(gcut__seg_gpu *sg, int64_t *sum)
{
    gcut_context *ctx = sg->g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = GCUT_OK;
    unsigned long long h = 0;
    GPU_CHECK(ctx, cudaMemsetAsync(sg->d_sum, 0, sizeof(unsigned long long), s->stream));
    d2_sum_kernel<<<blocks_for(sg->n), THREADS, 0, s->stream>>>(
        sg->d_rgb, sg->g->width, sg->g->height, sg->g->ndirs, sg->d_sum);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(&h, sg->d_sum, sizeof h, cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    *sum = (int64_t)h;
fail:
    return st;
}

/* The energy kernel over the whole device raster. */
static cudaError_t launch_energy(gcut__seg_gpu *sg, const int32_t *d_tcap,
                                 unsigned long long *d_largest)
{
    const gcut__dgrid *dg = &sg->s->dg;
    sg->s->grid_warm = NULL; /* a new graph replaces any kept flow */
    energy_kernel<<<blocks_for((long long)dg->pitch * dg->rows), THREADS, 0, sg->s->stream>>>(
        *dg, sg->d_rgb, sg->d_entry, sg->d_table, sg->table_len, d_tcap, d_largest);
    return cudaGetLastError();
}

extern "C" gcut_status gcut__seg_gpu_set_nlinks(gcut__seg_gpu *sg, const int32_t *table, int len,
                                                int32_t *largest)
{
    gcut_context *ctx = sg->g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = GCUT_OK;
    unsigned long long h = 0;
    if (sg->d_table && sg->table_len != len) {
        cudaFree(sg->d_table);
        sg->d_table = NULL;
    }
    if (!sg->d_table)
        GPU_CHECK(ctx, cudaMalloc((void **)&sg->d_table, 2 * (size_t)len * sizeof(int32_t)));
    sg->table_len = len;
    GPU_CHECK(ctx, cudaMemcpyAsync(sg->d_table, table, 2 * (size_t)len * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, cudaMemsetAsync(sg->d_sum + 1, 0, sizeof(unsigned long long), s->stream));
    GPU_CHECK(ctx, launch_energy(sg, NULL, sg->d_sum + 1));
    GPU_CHECK(ctx, cudaMemcpyAsync(&h, sg->d_sum + 1, sizeof h, cudaMemcpyDeviceToHost,
                                   s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    *largest = (int32_t)h;
fail:
    return st;
}

extern "C" gcut_status gcut__seg_gpu_build(gcut__seg_gpu *sg, const int32_t *tcap)
{
    gcut_context *ctx = sg->g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = GCUT_OK;
    if (!sg->d_table)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: segmentation graph built before its n-links");
    if ((st = gcut__gpu_grid_claim(sg->g)))
        return st;
    /* Pageable source: the copy is done when the call returns. */
    if (tcap)
        GPU_CHECK(ctx, cudaMemcpyAsync(sg->d_tcap, tcap,
                                       (size_t)(sg->colors + 2) * sizeof(int32_t),
                                       cudaMemcpyHostToDevice, s->stream));
    GPU_CHECK(ctx, launch_energy(sg, sg->d_tcap, NULL));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    s->grid_owner = sg->g; /* what gcut__gpu_grid_upload would have left */
fail:
    return st;
}

/* Device raster rows -> the host grid's padded rows (pitch width + 2). */
static cudaError_t fetch_array(gcut__seg_gpu *sg, int32_t *dst, const int32_t *d_src)
{
    const gcut_grid *g = sg->g;
    const size_t row = (size_t)g->pitch * sizeof(int32_t);
    return cudaMemcpy2DAsync(dst, row, d_src, (size_t)sg->s->dg.pitch * sizeof(int32_t), row,
                             (size_t)g->height + 2, cudaMemcpyDeviceToHost, sg->s->stream);
}

extern "C" gcut_status gcut__seg_gpu_fetch_graph(gcut__seg_gpu *sg)
{
    gcut_grid *g = sg->g;
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = GCUT_OK;
    if (s->grid_owner != g)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: no segmentation graph on the device to fetch");
    gcut__grid_forget_warm(g); /* the host capacities change under any kept BK state */
    for (int d = 0; d < g->ndirs; d++)
        GPU_CHECK(ctx, fetch_array(sg, g->cap[d], s->dg.res[d]));
    GPU_CHECK(ctx, fetch_array(sg, g->source_cap, s->dg.excess));
    GPU_CHECK(ctx, fetch_array(sg, g->sink_cap, s->dg.sink));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
fail:
    return st;
}

extern "C" gcut_status gcut__seg_gpu_solve(gcut__seg_gpu *sg, int variant, uint8_t *mask,
                                           int64_t *iterations)
{
    gcut_grid *g = sg->g;
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = gcut__gpu_grid_run(g, variant, iterations);
    if (st)
        return st;
    labels_kernel<<<blocks_for(sg->n), THREADS, 0, s->stream>>>(s->dg, sg->d_labels);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(mask, sg->d_labels, (size_t)sg->n, cudaMemcpyDeviceToHost,
                                   s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
fail:
    return st;
}

extern "C" gcut_status gcut__seg_gpu_price_begin(gcut__seg_gpu *sg, const uint8_t *colours,
                                                 const uint32_t *n_free,
                                                 const uint32_t *n_fg_seed,
                                                 const uint32_t *n_bg_seed, int32_t hard_cap)
{
    gcut_context *ctx = sg->g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = GCUT_OK;
    const int32_t seeds[2] = {hard_cap, -hard_cap};
    if (!sg->price.d_colours && (st = price_alloc(ctx, &sg->price, sg->colors)))
        return st;
    if (!sg->price.colours_up) {
        GPU_CHECK(ctx, cudaMemcpyAsync(sg->price.d_colours, colours, 3 * (size_t)sg->colors,
                                       cudaMemcpyHostToDevice, s->stream));
        sg->price.colours_up = 1;
    }
    if ((st = price_counts(ctx, &sg->price, s->stream, n_free, n_fg_seed, n_bg_seed)))
        return st;
    GPU_CHECK(ctx, cudaMemcpyAsync(sg->d_tcap + sg->colors, seeds, sizeof seeds,
                                   cudaMemcpyHostToDevice, s->stream));
fail:
    return st;
}

extern "C" gcut_status gcut__seg_gpu_price(gcut__seg_gpu *sg, const gcut__price_model *fg,
                                           const gcut__price_model *bg, int64_t *constant)
{
    gcut_context *ctx = sg->g->ctx;
    gcut__gpu *s = sg->s;
    unsigned long long h = 0;
    if (!sg->price.colours_up)
        return gcut__fail(ctx, GCUT_E_STATE, "gpu: colours priced before they went up");
    gcut_status st = price_launch(ctx, &sg->price, s->stream, fg, bg, sg->d_tcap, NULL, NULL);
    if (st)
        return st;
    GPU_CHECK(ctx, cudaMemcpyAsync(&h, sg->price.d_constant, sizeof h, cudaMemcpyDeviceToHost,
                                   s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    *constant = (int64_t)h;
fail:
    return st;
}

extern "C" gcut_status gcut__seg_gpu_tcap_to_host(gcut__seg_gpu *sg, int32_t *tcap)
{
    gcut_context *ctx = sg->g->ctx;
    gcut__gpu *s = sg->s;
    gcut_status st = GCUT_OK;
    GPU_CHECK(ctx, cudaMemcpyAsync(tcap, sg->d_tcap, (size_t)(sg->colors + 2) * sizeof(int32_t),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
fail:
    return st;
}

extern "C" gcut_status gcut__seg_gpu_price_check(
    gcut_context *ctx, const uint8_t *colours, int64_t count, const gcut__price_model *fg,
    const gcut__price_model *bg, const uint32_t *n_free, const uint32_t *n_fg_seed,
    const uint32_t *n_bg_seed, int32_t hard_cap, float *cost_fg, float *cost_bg, int32_t *tcap,
    int64_t *constant, double *kernel_ms)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    price_buffers pb;
    memset(&pb, 0, sizeof pb);
    int32_t *d_tcap = NULL;
    float *d_cost = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    unsigned long long h = 0;
    float ms = 0;
    const size_t u = (size_t)(count > 0 ? count : 1);
    const int32_t seeds[2] = {hard_cap, -hard_cap};
    if ((st = price_alloc(ctx, &pb, count)))
        goto fail;
    GPU_CHECK(ctx, cudaMalloc((void **)&d_tcap, (u + 2) * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&d_cost, 2 * u * sizeof(float)));
    GPU_CHECK(ctx, cudaEventCreate(&ev[0]));
    GPU_CHECK(ctx, cudaEventCreate(&ev[1]));
    GPU_CHECK(ctx, cudaMemcpyAsync(pb.d_colours, colours, 3 * (size_t)count,
                                   cudaMemcpyHostToDevice, s->stream));
    if ((st = price_counts(ctx, &pb, s->stream, n_free, n_fg_seed, n_bg_seed)))
        goto fail;
    GPU_CHECK(ctx, cudaMemcpyAsync(d_tcap + count, seeds, sizeof seeds, cudaMemcpyHostToDevice,
                                   s->stream));
    GPU_CHECK(ctx, cudaEventRecord(ev[0], s->stream));
    if ((st = price_launch(ctx, &pb, s->stream, fg, bg, d_tcap, d_cost, d_cost + u)))
        goto fail;
    GPU_CHECK(ctx, cudaEventRecord(ev[1], s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(cost_fg, d_cost, (size_t)count * sizeof(float),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(cost_bg, d_cost + u, (size_t)count * sizeof(float),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(tcap, d_tcap, ((size_t)count + 2) * sizeof(int32_t),
                                   cudaMemcpyDeviceToHost, s->stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(&h, pb.d_constant, sizeof h, cudaMemcpyDeviceToHost,
                                   s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    GPU_CHECK(ctx, cudaEventElapsedTime(&ms, ev[0], ev[1]));
    *constant = (int64_t)h;
    *kernel_ms = ms;
fail:
    if (ev[0])
        cudaEventDestroy(ev[0]);
    if (ev[1])
        cudaEventDestroy(ev[1]);
    cudaFree(d_tcap);
    cudaFree(d_cost);
    price_free(&pb);
    return st;
}

/* ---- GrabCut's refits on the device (segment_gpu.h) ----
 *
 * The fit labels: a union-find forest over the cut's foreground (each
 * pixel linked to its left neighbour when that is foreground, then joined
 * to the row above: N, or NW and NE when N is background and the grid is
 * 8-connected; joins by atomicMin, as in Playne and Hawick, "A New
 * Algorithm for Parallel Connected-Component Labelling on GPUs", IEEE TPDS
 * 2018), the roots of the foreground seeds' trees marked, and a pixel kept
 * when its root is marked: the set the host's flood fill reaches, whatever
 * order the joins ran in. The selection: per tile of REFIT_TILE pixels its
 * object count, an exclusive scan of the counts, then each pixel's number
 * on its side, so that every step-th one is taken where a serial scan
 * would put it. The rounds: each sample priced under its side's model
 * (color_price.h, the host's bits), its terms summed per component in
 * integers (exact in any order). */

#define REFIT_THREADS 256
#define REFIT_RUN 16 /* consecutive pixels per thread in the selection */
#define REFIT_TILE (REFIT_THREADS * REFIT_RUN)
#define SUM_TERMS 10 /* count, 3 channel sums, 6 products */
#define SUM_SLOTS (2 * GCUT__PRICE_MAX_K * SUM_TERMS)

struct gcut__seg_refit {
    gcut_context *ctx;
    gcut__gpu *s;
    int w, h, diagonal;
    int64_t n, tiles;
    uint8_t *d_rgb;    /* n x RGB */
    uint8_t *d_fit;    /* n: the cut's labels, then the fit labels */
    int32_t *d_parent; /* n: the union-find forest (-1 off the foreground) */
    uint8_t *d_reach;  /* n: 1 at the roots a foreground seed's tree has */
    int32_t *d_seeds;  /* the foreground seeds */
    int64_t seeds, seeds_cap;
    int32_t *d_tile;   /* per tile: its object count, then the object's pixels before it */
    uint8_t *d_samples; /* side t's j-th sample at 3 * (t * samples_cap + j) */
    int64_t samples_cap, ns[2];
    unsigned long long *d_sums; /* [0]: the object's pixels; then SUM_SLOTS */
    unsigned long long *h_sums; /* pinned, as d_sums */
};

static __device__ __forceinline__ int32_t uf_find(const int32_t *parent, int32_t i)
{
    const volatile int32_t *p = parent; /* other threads lower entries meanwhile */
    int32_t up = p[i];
    while (up != i) {
        i = up;
        up = p[i];
    }
    return i;
}

/* Join the trees of a and b: the larger root goes under the smaller one,
 * retried from the new roots when another join got there first. Every
 * entry only falls and parent[i] <= i throughout. */
static __device__ void uf_unite(int32_t *parent, int32_t a, int32_t b)
{
    for (;;) {
        a = uf_find(parent, a);
        b = uf_find(parent, b);
        if (a == b)
            return;
        if (a < b) {
            const int32_t old = atomicMin(&parent[b], a);
            if (old == b)
                return;
            b = old;
        } else {
            const int32_t old = atomicMin(&parent[a], b);
            if (old == a)
                return;
            a = old;
        }
    }
}

/* The cut's labels into fit (from the solve's heights when from_grid, else
 * already there) and each foreground pixel's first link: its left
 * neighbour when foreground, else itself. */
static __global__ void fill_init_kernel(gcut__dgrid g, int from_grid, uint8_t *fit,
                                        int32_t *parent, int w, long long n)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= n)
        return;
    const int x = (int)(i % w), y = (int)(i / w);
    uint8_t fg, left;
    if (from_grid) {
        fg = cut_label(g, x, y);
        left = x > 0 && cut_label(g, x - 1, y);
        fit[i] = fg;
    } else {
        fg = fit[i];
        left = x > 0 && fit[i - 1];
    }
    parent[i] = !fg ? -1 : left ? (int32_t)(i - 1) : (int32_t)i;
}

/* Join each foreground pixel to the foreground above it: N, or (8-connected)
 * NW and NE when N is background (with N foreground they are N's row
 * neighbours, joined already). */
static __global__ void fill_merge_kernel(const uint8_t *fit, int32_t *parent, int w, long long n,
                                         int diagonal)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= n || i < w || !fit[i])
        return;
    const int x = (int)(i % w);
    const int32_t up = (int32_t)(i - w);
    if (fit[up]) {
        uf_unite(parent, (int32_t)i, up);
        return;
    }
    if (diagonal && x > 0 && fit[up - 1])
        uf_unite(parent, (int32_t)i, up - 1);
    if (diagonal && x < w - 1 && fit[up + 1])
        uf_unite(parent, (int32_t)i, up + 1);
}

/* Every foreground pixel straight to its root (roots no longer change). */
static __global__ void fill_root_kernel(const uint8_t *fit, int32_t *parent, long long n)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i < n && fit[i])
        parent[i] = uf_find(parent, (int32_t)i);
}

static __global__ void fill_seed_kernel(const int32_t *seeds, long long count, const uint8_t *fit,
                                        const int32_t *parent, uint8_t *reach)
{
    const long long k = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (k >= count)
        return;
    const int32_t p = seeds[k];
    if (fit[p]) /* always: the host checked the seeds' sides */
        reach[parent[p]] = 1;
}

static __global__ void fill_keep_kernel(uint8_t *fit, const int32_t *parent, const uint8_t *reach,
                                        long long n)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i < n && fit[i])
        fit[i] = reach[parent[i]];
}

/* Each tile's object count, and the total. */
static __global__ void side_count_kernel(const uint8_t *fit, long long n, int32_t *tile,
                                         unsigned long long *total)
{
    __shared__ int32_t warp_sum[REFIT_THREADS / 32];
    const long long base = blockIdx.x * (long long)REFIT_TILE;
    int32_t c = 0;
    for (int j = threadIdx.x; j < REFIT_TILE; j += REFIT_THREADS)
        if (base + j < n)
            c += fit[base + j];
    for (int o = 16; o > 0; o >>= 1)
        c += __shfl_down_sync(0xffffffffu, c, o);
    if ((threadIdx.x & 31) == 0)
        warp_sum[threadIdx.x / 32] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        int32_t sum = 0;
        for (int k = 0; k < REFIT_THREADS / 32; k++)
            sum += warp_sum[k];
        tile[blockIdx.x] = sum;
        if (sum)
            atomicAdd(total, (unsigned long long)sum);
    }
}

/* tile[b] = the object's pixels in tiles before b: one block of 1024
 * threads, 1024 tiles a pass. */
static __global__ void tile_scan_kernel(int32_t *tile, long long tiles)
{
    __shared__ int32_t buf[1024];
    int32_t carry = 0;
    for (long long base = 0; base < tiles; base += 1024) {
        const long long b = base + threadIdx.x;
        const int32_t v = b < tiles ? tile[b] : 0;
        buf[threadIdx.x] = v;
        __syncthreads();
        for (int off = 1; off < 1024; off <<= 1) {
            const int32_t add = threadIdx.x >= (unsigned)off ? buf[threadIdx.x - off] : 0;
            __syncthreads();
            buf[threadIdx.x] += add;
            __syncthreads();
        }
        if (b < tiles)
            tile[b] = carry + buf[threadIdx.x] - v;
        carry += buf[1023];
        __syncthreads();
    }
}

/* The samples: pixel i is the (number)-th of its side in pixel order
 * (side 0 the object, 1 the rest), taken when the number is a multiple of
 * the side's step, to slot number / step. */
static __global__ void take_kernel(const uint8_t *fit, const uint8_t *rgb, long long n,
                                   const int32_t *tile, unsigned step0, unsigned step1,
                                   uint8_t *samples, long long cap)
{
    __shared__ int32_t scan[REFIT_THREADS];
    const long long first = blockIdx.x * (long long)REFIT_TILE + (long long)threadIdx.x * REFIT_RUN;
    int32_t ones = 0;
    for (int j = 0; j < REFIT_RUN; j++)
        if (first + j < n)
            ones += fit[first + j];
    scan[threadIdx.x] = ones;
    __syncthreads();
    for (int off = 1; off < REFIT_THREADS; off <<= 1) {
        const int32_t add = threadIdx.x >= (unsigned)off ? scan[threadIdx.x - off] : 0;
        __syncthreads();
        scan[threadIdx.x] += add;
        __syncthreads();
    }
    unsigned number[2];
    number[0] = (unsigned)(tile[blockIdx.x] + scan[threadIdx.x] - ones);
    number[1] = (unsigned)(first - number[0]);
    const unsigned step[2] = {step0, step1};
    for (int j = 0; j < REFIT_RUN && first + j < n; j++) {
        const long long i = first + j;
        const int t = fit[i] ? 0 : 1;
        if (number[t] % step[t] == 0) {
            uint8_t *out = samples + 3 * ((long long)t * cap + number[t] / step[t]);
            out[0] = rgb[3 * i];
            out[1] = rgb[3 * i + 1];
            out[2] = rgb[3 * i + 2];
        }
        number[t]++;
    }
}

/* One round's assignment: each sample (side 0's ns0, then side 1's ns1) to
 * its cheapest component under its side's model, its ten terms added to
 * that component's sums: per warp, the lanes of one component add up first
 * (sm_80 on), per block in shared memory, then once into `sums`. The
 * models go to shared memory as in price_kernel. */
static __global__ void assign_kernel(gcut__price_model fg, gcut__price_model bg,
                                     const uint8_t *samples, long long cap, long long ns0,
                                     long long ns1, unsigned long long *sums)
{
    __shared__ gcut__price_model models[2];
    __shared__ unsigned long long acc[SUM_SLOTS];
    load_models(models, fg, bg);
    for (int k = threadIdx.x; k < SUM_SLOTS; k += blockDim.x)
        acc[k] = 0;
    __syncthreads();
    const long long total = ns0 + ns1;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31;
    /* Warp-uniform loop: every lane reaches the warp's collectives. */
    for (long long base = blockIdx.x * (long long)blockDim.x + (threadIdx.x & ~31u);
         base < total; base += stride) {
        const long long q = base + lane;
        int key = -1;
        unsigned v[SUM_TERMS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (q < total) {
            const int t = q >= ns0;
            const uint8_t *x = samples + 3 * ((long long)t * cap + (t ? q - ns0 : q));
            float cost;
            const int u = gcut__price_best(&models[t], (float)x[0], (float)x[1], (float)x[2],
                                           &cost);
            key = t * GCUT__PRICE_MAX_K + (u < 0 ? 0 : models[t].index[u]);
            const unsigned r = x[0], g = x[1], b = x[2];
            v[0] = 1;
            v[1] = r, v[2] = g, v[3] = b;
            v[4] = r * r, v[5] = r * g, v[6] = r * b, v[7] = g * g, v[8] = g * b, v[9] = b * b;
        }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        const unsigned peers = __match_any_sync(0xffffffffu, key);
        if (key >= 0) {
            const int leader = __ffs(peers) - 1;
            for (int e = 0; e < SUM_TERMS; e++) {
                /* At most 32 terms under 2^16 each: no overflow. */
                const unsigned s = __reduce_add_sync(peers, v[e]);
                if (lane == leader)
                    atomicAdd(&acc[key * SUM_TERMS + e], (unsigned long long)s);
            }
        }
#else
        if (key >= 0)
            for (int e = 0; e < SUM_TERMS; e++)
                atomicAdd(&acc[key * SUM_TERMS + e], (unsigned long long)v[e]);
#endif
    }
    __syncthreads();
    for (int k = threadIdx.x; k < SUM_SLOTS; k += blockDim.x)
        if (acc[k])
            atomicAdd(&sums[k], acc[k]);
}

extern "C" void gcut__seg_refit_destroy(gcut__seg_refit *r)
{
    if (!r)
        return;
    cudaFree(r->d_rgb);
    cudaFree(r->d_fit);
    cudaFree(r->d_parent);
    cudaFree(r->d_reach);
    cudaFree(r->d_seeds);
    cudaFree(r->d_tile);
    cudaFree(r->d_samples);
    cudaFree(r->d_sums);
    cudaFreeHost(r->h_sums);
    free(r);
}

extern "C" gcut_status gcut__seg_refit_create(gcut_context *ctx, const uint8_t *rgb, int width,
                                              int height, int connectivity,
                                              gcut__seg_refit **out)
{
    *out = NULL;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    gcut__seg_refit *r = (gcut__seg_refit *)calloc(1, sizeof *r);
    if (!r)
        return gcut__fail(ctx, GCUT_E_NOMEM, "gpu: out of memory");
    r->ctx = ctx;
    r->s = s;
    r->w = width;
    r->h = height;
    r->diagonal = connectivity == 8;
    r->n = (int64_t)width * height;
    r->tiles = (r->n + REFIT_TILE - 1) / REFIT_TILE;
    const size_t n = (size_t)r->n;
    GPU_CHECK(ctx, cudaMalloc((void **)&r->d_rgb, 3 * n));
    GPU_CHECK(ctx, cudaMalloc((void **)&r->d_fit, n));
    GPU_CHECK(ctx, cudaMalloc((void **)&r->d_parent, n * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&r->d_reach, n));
    GPU_CHECK(ctx, cudaMalloc((void **)&r->d_tile, (size_t)r->tiles * sizeof(int32_t)));
    GPU_CHECK(ctx, cudaMalloc((void **)&r->d_sums, (1 + SUM_SLOTS) * sizeof(unsigned long long)));
    GPU_CHECK(ctx, cudaMallocHost((void **)&r->h_sums, (1 + SUM_SLOTS) * sizeof(unsigned long long)));
    /* Pageable source: the copy is done when the call returns. */
    GPU_CHECK(ctx, cudaMemcpyAsync(r->d_rgb, rgb, 3 * n, cudaMemcpyHostToDevice, s->stream));
    *out = r;
    return GCUT_OK;
fail:
    gcut__seg_refit_destroy(r);
    return st;
}

extern "C" gcut_status gcut__seg_refit_seeds(gcut__seg_refit *r, const int32_t *fg_seeds,
                                             int64_t count)
{
    gcut_status st = GCUT_OK;
    r->seeds = 0;
    if (count > r->seeds_cap) {
        cudaFree(r->d_seeds);
        r->d_seeds = NULL;
        r->seeds_cap = 0;
        GPU_CHECK(r->ctx, cudaMalloc((void **)&r->d_seeds, (size_t)count * sizeof(int32_t)));
        r->seeds_cap = count;
    }
    if (count > 0)
        GPU_CHECK(r->ctx, cudaMemcpyAsync(r->d_seeds, fg_seeds, (size_t)count * sizeof(int32_t),
                                          cudaMemcpyHostToDevice, r->s->stream));
    r->seeds = count;
fail:
    return st;
}

extern "C" gcut_status gcut__seg_refit_labels(gcut__seg_refit *r, const gcut_grid *g,
                                              const uint8_t *cut, int64_t side[2])
{
    gcut_context *ctx = r->ctx;
    gcut__gpu *s = r->s;
    gcut_status st = GCUT_OK;
    cudaStream_t stream = s->stream;
    const unsigned blocks = blocks_for(r->n);
    /* The solve's heights are the cut while nothing else wrote the grid. */
    const int from_grid = g && s->grid_owner == (const void *)g && s->dg.height &&
                          s->dg.img_w == r->w && s->dg.img_h == r->h;
    gcut__dgrid none;
    memset(&none, 0, sizeof none);
    if (!from_grid)
        GPU_CHECK(ctx, cudaMemcpyAsync(r->d_fit, cut, (size_t)r->n, cudaMemcpyHostToDevice,
                                       stream));
    fill_init_kernel<<<blocks, THREADS, 0, stream>>>(from_grid ? s->dg : none, from_grid,
                                                     r->d_fit, r->d_parent, r->w, r->n);
    GPU_CHECK(ctx, cudaGetLastError());
    if (r->seeds > 0) {
        fill_merge_kernel<<<blocks, THREADS, 0, stream>>>(r->d_fit, r->d_parent, r->w, r->n,
                                                          r->diagonal);
        GPU_CHECK(ctx, cudaGetLastError());
        fill_root_kernel<<<blocks, THREADS, 0, stream>>>(r->d_fit, r->d_parent, r->n);
        GPU_CHECK(ctx, cudaGetLastError());
        GPU_CHECK(ctx, cudaMemsetAsync(r->d_reach, 0, (size_t)r->n, stream));
        fill_seed_kernel<<<blocks_for(r->seeds), THREADS, 0, stream>>>(
            r->d_seeds, r->seeds, r->d_fit, r->d_parent, r->d_reach);
        GPU_CHECK(ctx, cudaGetLastError());
        fill_keep_kernel<<<blocks, THREADS, 0, stream>>>(r->d_fit, r->d_parent, r->d_reach, r->n);
        GPU_CHECK(ctx, cudaGetLastError());
    }
    GPU_CHECK(ctx, cudaMemsetAsync(r->d_sums, 0, sizeof(unsigned long long), stream));
    side_count_kernel<<<(unsigned)r->tiles, REFIT_THREADS, 0, stream>>>(r->d_fit, r->n, r->d_tile,
                                                                        r->d_sums);
    GPU_CHECK(ctx, cudaGetLastError());
    tile_scan_kernel<<<1, 1024, 0, stream>>>(r->d_tile, r->tiles);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(r->h_sums, r->d_sums, sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    side[0] = (int64_t)r->h_sums[0];
    side[1] = r->n - side[0];
fail:
    return st;
}

extern "C" gcut_status gcut__seg_refit_select(gcut__seg_refit *r, const int64_t step[2],
                                              const int64_t ns[2])
{
    gcut_context *ctx = r->ctx;
    gcut_status st = GCUT_OK;
    const int64_t need = ns[0] > ns[1] ? ns[0] : ns[1];
    if (step[0] < 1 || step[1] < 1 || step[0] > UINT32_MAX || step[1] > UINT32_MAX)
        return gcut__fail(ctx, GCUT_E_INVALID, "gpu: sample steps %lld and %lld",
                          (long long)step[0], (long long)step[1]);
    if (need > r->samples_cap) {
        cudaFree(r->d_samples);
        r->d_samples = NULL;
        r->samples_cap = 0;
        GPU_CHECK(ctx, cudaMalloc((void **)&r->d_samples, 2 * 3 * (size_t)need));
        r->samples_cap = need;
    }
    take_kernel<<<(unsigned)r->tiles, REFIT_THREADS, 0, r->s->stream>>>(
        r->d_fit, r->d_rgb, r->n, r->d_tile, (unsigned)step[0], (unsigned)step[1], r->d_samples,
        r->samples_cap);
    GPU_CHECK(ctx, cudaGetLastError());
    r->ns[0] = ns[0];
    r->ns[1] = ns[1];
fail:
    return st;
}

extern "C" gcut_status gcut__seg_refit_assign(gcut__seg_refit *r,
                                              const gcut__price_model models[2],
                                              gcut__gmm_sums sums[2][GCUT__PRICE_MAX_K])
{
    gcut_context *ctx = r->ctx;
    cudaStream_t stream = r->s->stream;
    gcut_status st = GCUT_OK;
    if (models[0].hist || models[1].hist)
        return gcut__fail(ctx, GCUT_E_INVALID, "gpu: the refits' models are GMMs");
    const long long total = r->ns[0] + r->ns[1];
    long long blocks = (total + REFIT_THREADS - 1) / REFIT_THREADS;
    blocks = blocks < 1 ? 1 : blocks > 256 ? 256 : blocks;
    GPU_CHECK(ctx, cudaMemsetAsync(r->d_sums + 1, 0, SUM_SLOTS * sizeof(unsigned long long),
                                   stream));
    assign_kernel<<<(unsigned)blocks, REFIT_THREADS, 0, stream>>>(
        models[0], models[1], r->d_samples, r->samples_cap, r->ns[0], r->ns[1], r->d_sums + 1);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(r->h_sums + 1, r->d_sums + 1,
                                   SUM_SLOTS * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                   stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < GCUT__PRICE_MAX_K; k++) {
            const unsigned long long *a = r->h_sums + 1 + (t * GCUT__PRICE_MAX_K + k) * SUM_TERMS;
            gcut__gmm_sums *o = &sums[t][k];
            o->count = (int64_t)a[0];
            for (int c = 0; c < 3; c++)
                o->sum[c] = (int64_t)a[1 + c];
            for (int e = 0; e < 6; e++)
                o->sq[e] = (int64_t)a[4 + e];
        }
fail:
    return st;
}

extern "C" gcut_status gcut__seg_refit_labels_to_host(gcut__seg_refit *r, uint8_t *labels)
{
    gcut_status st = GCUT_OK;
    GPU_CHECK(r->ctx, cudaMemcpyAsync(labels, r->d_fit, (size_t)r->n, cudaMemcpyDeviceToHost,
                                      r->s->stream));
    GPU_CHECK(r->ctx, cudaStreamSynchronize(r->s->stream));
fail:
    return st;
}
