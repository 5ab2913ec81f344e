/* gcut_grid_solve_device(): a grid whose capacities the caller already holds
 * in GPU memory (a PyTorch or CuPy array) is checked and written into the
 * tiled solver's device raster by kernels, solved there, and its labels
 * written back into the caller's device buffer: nothing crosses to the host
 * but the flow value. Uses the GPU grid interface as segment_gpu.cu does:
 * gcut__gpu_acquire, gcut__gpu_grid_reserve, then the raster filled here and
 * marked as uploaded, gcut__gpu_grid_run. */
#include <limits.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_state.h"
#include "graph/grid.h"

#define THREADS 256

/* The caller's per-direction arrays, passed to kernels by value. */
typedef struct edge_arrays {
    const int32_t *e[GCUT__MAX_DIRS];
} edge_arrays;

/* E W S N NE SW SE NW, as gcut_dir. */
static __device__ __forceinline__ int dir_dx(int d)
{
    return (d == 0 || d == 4 || d == 6) ? 1 : (d == 1 || d == 5 || d == 7) ? -1 : 0;
}

static __device__ __forceinline__ int dir_dy(int d)
{
    return (d == 2 || d == 5 || d == 6) ? 1 : (d == 3 || d == 4 || d == 7) ? -1 : 0;
}

/* What the first fault is, in the order the host setters and the solve
 * check (every source value, every sink value, each direction's values,
 * then the sums): the smallest key wins an atomicMin. */
enum { FAULT_SOURCE = 1, FAULT_SINK = 2, FAULT_EDGE = 3, FAULT_SUM = 4 };

static __device__ __forceinline__ unsigned long long fault_key(int kind, int dir, long long p)
{
    return ((unsigned long long)kind << 60) | ((unsigned long long)dir << 56) |
           (unsigned long long)p;
}

static __device__ __forceinline__ int inside(int x, int y, int w, int h)
{
    return x >= 0 && x < w && y >= 0 && y < h;
}

/* A negative capacity, a capacity on an arc that leaves the grid, or a
 * pixel whose capacities (terminals, arcs out and in) add up past INT32_MAX
 * (gcut__grid_check_overflow's rule): the smallest fault key into *fault. */
static __global__ void check_kernel(const int32_t *src, const int32_t *snk, edge_arrays ea,
                                    int w, int h, int ndirs, unsigned long long *fault)
{
    const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (p >= (long long)w * h)
        return;
    const int x = (int)(p % w), y = (int)(p / w);
    unsigned long long key = ~0ull;
    long long total = 0;
    const int32_t s = src ? src[p] : 0, t = snk ? snk[p] : 0;
    if (s < 0)
        key = fault_key(FAULT_SOURCE, 0, p);
    else if (t < 0)
        key = fault_key(FAULT_SINK, 0, p);
    total = (long long)s + t;
    for (int d = 0; d < ndirs && key == ~0ull; d++) {
        const int nx = x + dir_dx(d), ny = y + dir_dy(d);
        const int32_t c = ea.e[d] ? ea.e[d][p] : 0;
        if (c < 0 || (c != 0 && !inside(nx, ny, w, h))) {
            key = fault_key(FAULT_EDGE, d, p);
            break;
        }
        total += c;
        if (inside(nx, ny, w, h) && ea.e[d ^ 1]) {
            const int32_t in = ea.e[d ^ 1][(long long)ny * w + nx];
            total += in > 0 ? in : 0; /* a negative one is that pixel's fault */
        }
    }
    if (key == ~0ull && total > INT_MAX)
        key = fault_key(FAULT_SUM, 0, p);
    if (key != ~0ull)
        atomicMin(fault, key);
}

/* Every node of the device raster: the caller's capacities for pixels,
 * zero on the border ring and the padding, height 0. */
static __global__ void fill_kernel(gcut__dgrid g, const int32_t *src, const int32_t *snk,
                                   edge_arrays ea)
{
    const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (i >= (long long)g.pitch * g.rows)
        return;
    const int x = (int)(i % g.pitch) - 1, y = (int)(i / g.pitch) - 1;
    const int pixel = inside(x, y, g.img_w, g.img_h);
    const long long p = (long long)y * g.img_w + x;
    for (int d = 0; d < g.ndirs; d++)
        g.res[d][i] = pixel && ea.e[d] ? ea.e[d][p] : 0;
    g.excess[i] = pixel && src ? src[p] : 0;
    g.sink[i] = pixel && snk ? snk[p] : 0;
    g.height[i] = 0;
}

/* labels[p] = the pixel cannot reach the sink (infinite height after the
 * run's last, exact global relabel). */
static __global__ void labels_kernel(gcut__dgrid g, uint8_t *labels)
{
    const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
    if (p >= (long long)g.img_w * g.img_h)
        return;
    const int x = (int)(p % g.img_w), y = (int)(p / g.img_w);
    labels[p] = g.height[(long long)(y + 1) * g.pitch + x + 1] >= GCUT_HEIGHT_INF;
}

static unsigned blocks_for(long long n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

/* The pointer is memory that GPU `device` can read as its own. */
static gcut_status check_pointer(gcut_context *ctx, const void *p, const char *what, int device,
                                 const char *name)
{
    cudaPointerAttributes a;
    cudaError_t err = cudaPointerGetAttributes(&a, p);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: the %s array is not GPU memory (%s)", what,
                          cudaGetErrorString(err));
    }
    if ((a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) || a.device != device)
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: the %s array is not memory of GPU %d (%s)",
                          what, device, name);
    return GCUT_OK;
}

static int32_t read_value(const int32_t *d_p)
{
    int32_t v = 0;
    if (d_p && cudaMemcpy(&v, d_p, sizeof v, cudaMemcpyDeviceToHost) != cudaSuccess)
        cudaGetLastError();
    return v;
}

/* The message of a fault key, worded as the host setters and solve word it. */
static gcut_status report_fault(gcut_context *ctx, unsigned long long key, const int32_t *src,
                                const int32_t *snk, const edge_arrays *ea, int w, int h,
                                int ndirs)
{
    const int kind = (int)(key >> 60), d = (int)((key >> 56) & 15);
    const long long p = (long long)(key & ((1ull << 56) - 1));
    const int x = (int)(p % w), y = (int)(p / w);
    if (kind == FAULT_SOURCE || kind == FAULT_SINK)
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: negative %s capacity at pixel (%d, %d)",
                          kind == FAULT_SOURCE ? "source" : "sink", x, y);
    if (kind == FAULT_EDGE) {
        const int32_t c = read_value(ea->e[d] + p);
        if (c < 0)
            return gcut__fail(ctx, GCUT_E_INVALID,
                              "grid: negative capacity %d on the %s arc of pixel (%d, %d)", c,
                              gcut__dir_name(d), x, y);
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "grid: capacity %d on the %s arc of pixel (%d, %d), whose neighbour "
                          "is outside the grid",
                          c, gcut__dir_name(d), x, y);
    }
    long long total = (long long)(src ? read_value(src + p) : 0) + (snk ? read_value(snk + p) : 0);
    for (int k = 0; k < ndirs; k++) {
        int dx = 0, dy = 0;
        gcut_dir_offset((gcut_dir)k, &dx, &dy);
        if (ea->e[k])
            total += read_value(ea->e[k] + p);
        if (x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h && ea->e[k ^ 1])
            total += read_value(ea->e[k ^ 1] + (long long)(y + dy) * w + (x + dx));
    }
    return gcut__fail(ctx, GCUT_E_OVERFLOW,
                      "grid: the capacities at pixel (%d, %d) add up to %lld, over the int32 "
                      "limit %d",
                      x, y, total, INT32_MAX);
}

/* Check the caller's arrays and write them into the reserved raster on the
 * state's stream, after what the caller queued on `user`. */
static gcut_status build(gcut_grid *g, gcut__gpu *s, const int32_t *src, const int32_t *snk,
                         const edge_arrays *ea, cudaStream_t user)
{
    gcut_context *ctx = g->ctx;
    gcut_status st = GCUT_OK;
    cudaEvent_t written = NULL;
    const long long n = (long long)g->width * g->height;
    unsigned long long *d_fault = (unsigned long long *)s->dg.counters; /* zeroed by the run */
    unsigned long long fault = 0;
    GPU_CHECK(ctx, cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    GPU_CHECK(ctx, cudaEventRecord(written, user));
    GPU_CHECK(ctx, cudaStreamWaitEvent(s->stream, written, 0));
    GPU_CHECK(ctx, cudaMemsetAsync(d_fault, 0xff, sizeof *d_fault, s->stream));
    check_kernel<<<blocks_for(n), THREADS, 0, s->stream>>>(src, snk, *ea, g->width, g->height,
                                                          g->ndirs, d_fault);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaMemcpyAsync(s->h_counters, d_fault, sizeof fault, cudaMemcpyDeviceToHost,
                                   s->stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    fault = s->h_counters[0];
    if (fault != ~0ull) {
        st = report_fault(ctx, fault, src, snk, ea, g->width, g->height, g->ndirs);
        goto fail;
    }
    fill_kernel<<<blocks_for((long long)s->dg.pitch * s->dg.rows), THREADS, 0, s->stream>>>(
        s->dg, src, snk, *ea);
    GPU_CHECK(ctx, cudaGetLastError());
    s->grid_owner = g; /* what gcut__gpu_grid_upload would have left */
fail:
    if (written)
        cudaEventDestroy(written);
    return st;
}

static gcut_status solve(gcut_grid *g, const int32_t *src, const int32_t *snk,
                         const edge_arrays *ea, uint8_t *d_labels, int variant,
                         cudaStream_t user, gcut_solve_info *info)
{
    gcut_context *ctx = g->ctx;
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    const void *arrays[2 + GCUT__MAX_DIRS] = {src, snk, d_labels};
    const char *names[2 + GCUT__MAX_DIRS] = {"source", "sink", "labels"};
    for (int k = 0; k < 3 + g->ndirs && !st; k++) {
        const void *p = k < 3 ? arrays[k] : ea->e[k - 3];
        if (p)
            st = check_pointer(ctx, p, k < 3 ? names[k] : gcut__dir_name(k - 3), s->device,
                               s->name);
    }
    if (!st)
        st = gcut__gpu_grid_reserve(g);
    if (!st)
        st = build(g, s, src, snk, ea, user);
    if (st)
        return st;
    int64_t iterations = 0;
    const double t0 = gcut__now_ms();
    if ((st = gcut__gpu_grid_run(g, variant, &iterations)))
        return st;
    const double t1 = gcut__now_ms();
    labels_kernel<<<blocks_for((long long)g->width * g->height), THREADS, 0, s->stream>>>(
        s->dg, d_labels);
    GPU_CHECK(ctx, cudaGetLastError());
    GPU_CHECK(ctx, cudaStreamSynchronize(s->stream));
    if (info) {
        info->flow = g->flow;
        info->time_ms = t1 - t0;
        info->device = s->name;
        info->algo = variant ? "lockfree" : "tiled";
        info->iterations = iterations;
    }
fail:
    return st;
}

extern "C" gcut_status gcut_grid_solve_device(gcut_grid *g, const int32_t *d_source,
                                              const int32_t *d_sink,
                                              const int32_t *const *d_edges, uint8_t *d_labels,
                                              const char *algo, void *stream,
                                              gcut_solve_info *info)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_context *ctx = g->ctx;
    gcut__clear_error(ctx);
    if (!d_labels)
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: no device label array");
    int variant = 0;
    if (algo && !strcmp(algo, "lockfree"))
        variant = 1;
    else if (algo && strcmp(algo, "tiled"))
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "grid: '%s' is not a GPU grid solver (tiled, lockfree)", algo);
    if (ctx && ctx->options.device == GCUT_DEVICE_CPU)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "grid: the arrays are in GPU memory but the context asks for the CPU");
    edge_arrays ea;
    memset(&ea, 0, sizeof ea);
    for (int d = 0; d < g->ndirs && d_edges; d++)
        ea.e[d] = d_edges[d];
    /* The host's solution no longer describes the grid's last solve. */
    gcut__grid_forget_warm(g);
    gcut__gpu_grid_forget(g);
    g->solved = 0;
    int before = -1;
    if (cudaGetDevice(&before) != cudaSuccess)
        cudaGetLastError();
    gcut_status st = solve(g, d_source, d_sink, &ea, d_labels, variant, (cudaStream_t)stream,
                           info);
    if (before >= 0)
        cudaSetDevice(before); /* the caller's (e.g. PyTorch's) current device */
    return st;
}
