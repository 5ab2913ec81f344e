/* The parts of the GPU grid solvers that both variants share: the initial
 * cancel of terminal capacities, the count of active pixels that decides
 * termination, the final sum that gives the flow value, and the filling
 * of the push worklist. */
#include "grid_device.cuh"

/* Grid-stride over every node of the raster; nodes outside the image hold
 * zeros and add nothing. */
static __global__ __launch_bounds__(256) void init_kernel(gcut__dgrid g)
{
    const long long n = (long long)g.pitch * g.rows;
    unsigned long long cancelled = 0, sink_left = 0;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += (long long)gridDim.x * 256) {
        int32_t src = g.excess[i], snk = g.sink[i];
        int32_t m = src < snk ? src : snk;
        g.excess[i] = src - m;
        g.sink[i] = snk - m;
        cancelled += (unsigned long long)m;
        sink_left += (unsigned long long)(snk - m);
    }
    block_add(&g.counters[GCUT_CNT_CANCELLED], cancelled);
    block_add(&g.counters[GCUT_CNT_SINK_START], sink_left);
}

static __global__ __launch_bounds__(256) void sink_sum_kernel(gcut__dgrid g)
{
    const long long n = (long long)g.pitch * g.rows;
    unsigned long long left = 0;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += (long long)gridDim.x * 256)
        left += (unsigned long long)g.sink[i];
    block_add(&g.counters[GCUT_CNT_SINK_END], left);
}

/* One block per tile, one thread per pixel. */
static __global__ __launch_bounds__(GCUT_TILE_PIXELS) void count_active_kernel(gcut__dgrid g,
                                                                               int out,
                                                                               int height_max)
{
    __shared__ int sh_max;
    const int tile = blockIdx.x;
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const long long p = ((long long)ty * GCUT_TILE_H + threadIdx.y + 1) * g.pitch +
                        (long long)tx * GCUT_TILE_W + threadIdx.x + 1;
    const int h = g.height[p];
    const int active = h < GCUT_HEIGHT_INF && g.excess[p] > 0;
    if (height_max && threadIdx.x == 0 && threadIdx.y == 0)
        sh_max = 0;
    const int n = __syncthreads_count(active);
    if (height_max) {
        const int m = __reduce_max_sync(0xffffffffu, h < GCUT_HEIGHT_INF ? h : 0);
        if (threadIdx.x == 0 && m)
            atomicMax(&sh_max, m);
        __syncthreads();
        if (threadIdx.x == 0 && threadIdx.y == 0 && sh_max)
            atomicMax(&g.counters[GCUT_CNT_HEIGHT_MAX], (unsigned long long)sh_max);
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        g.flag[out][tile] = n > 0;
        g.flag[1 - out][tile] = 0; /* the first push launch's out: no memset needed */
        g.dirty[tile] = n > 0;     /* read by the relabel before; kept while it has work */
        if (n) {
            atomicAdd(&g.counters[GCUT_CNT_ACTIVE], (unsigned long long)n);
            g.list[out][atomicAdd(&g.counters[GCUT_CNT_LIST0 + out], 1ull)] = tile;
        }
    }
}

/* One block per tile: the pixels of the image only (the tail of the last
 * tiles has infinite height too). */
static __global__ __launch_bounds__(GCUT_TILE_PIXELS) void diagnose_kernel(gcut__dgrid g)
{
    const int tile = blockIdx.x;
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const int x = tx * GCUT_TILE_W + threadIdx.x, y = ty * GCUT_TILE_H + threadIdx.y;
    const long long p = (long long)(y + 1) * g.pitch + x + 1;
    const int inside = x < g.img_w && y < g.img_h;
    const int h = g.height[p], e = g.excess[p];
    const int cut = inside && h >= GCUT_HEIGHT_INF;
    const int n = __syncthreads_count(cut);
    if (threadIdx.x == 0 && threadIdx.y == 0 && n)
        atomicAdd(&g.counters[GCUT_CNT_CUTOFF_PX], (unsigned long long)n);
    block_add(&g.counters[GCUT_CNT_CUTOFF_EXCESS],
              cut && e > 0 ? (unsigned long long)e : 0ull);
    block_add(&g.counters[GCUT_CNT_ACTIVE_EXCESS],
              inside && !cut && e > 0 ? (unsigned long long)e : 0ull);
}

/* The tiles of list[in] onto the push worklist (gcut__put_tile). */
static __global__ __launch_bounds__(256) void enqueue_list_kernel(gcut__dgrid g, int in)
{
    const long long n = (long long)g.counters[GCUT_CNT_LIST0 + in];
    for (long long k = blockIdx.x * 256ll + threadIdx.x; k < n; k += (long long)gridDim.x * 256)
        gcut__put_tile(g, g.list[in][k]);
}

static int stream_blocks(const gcut__dgrid *g)
{
    long long n = (long long)g->pitch * g->rows;
    long long blocks = (n + 255) / 256;
    return (int)(blocks < 4096 ? blocks : 4096);
}

extern "C" cudaError_t gcut__grid_init_launch(const gcut__dgrid *g, cudaStream_t stream)
{
    init_kernel<<<stream_blocks(g), 256, 0, stream>>>(*g);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_sink_sum_launch(const gcut__dgrid *g, cudaStream_t stream)
{
    sink_sum_kernel<<<stream_blocks(g), 256, 0, stream>>>(*g);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_count_active_launch(const gcut__dgrid *g, int out,
                                                      int height_max, cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    count_active_kernel<<<(unsigned)(g->tiles_x * g->tiles_y), block, 0, stream>>>(*g, out,
                                                                                   height_max);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_diagnose_launch(const gcut__dgrid *g, cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    diagnose_kernel<<<(unsigned)(g->tiles_x * g->tiles_y), block, 0, stream>>>(*g);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_enqueue_list_launch(const gcut__dgrid *g, int in,
                                                      cudaStream_t stream)
{
    const int tiles = g->tiles_x * g->tiles_y;
    enqueue_list_kernel<<<(unsigned)((tiles + 255) / 256), 256, 0, stream>>>(*g, in);
    return cudaPeekAtLastError();
}
