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

/* labels[p] = the pixel cannot reach the sink (infinite height after the
 * last, exact global relabel). */
static __global__ void labels_kernel(gcut__dgrid g, uint8_t *labels)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= (long long)g.img_w * g.img_h)
        return;
    const int x = (int)(i % g.img_w), y = (int)(i / g.img_w);
    labels[i] = g.height[(long long)(y + 1) * g.pitch + x + 1] >= GCUT_HEIGHT_INF;
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
    {
        const int words = (int)(sizeof(gcut__price_model) / sizeof(int));
        const int *from_fg = (const int *)&fg, *from_bg = (const int *)&bg;
        int *to = (int *)models;
        for (int k = threadIdx.x; k < words; k += blockDim.x) {
            to[k] = from_fg[k];
            to[words + k] = from_bg[k];
        }
    }
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
