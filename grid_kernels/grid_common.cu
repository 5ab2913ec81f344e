/* The parts of the GPU grid solvers that both variants share: the initial
 * cancel of terminal capacities, the global relabel (a BFS from the sink over
 * residual arcs, run tile by tile), the count of active pixels that decides
 * termination, and the final sum that gives the flow value. */
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

/* One block per tile, one thread per pixel. Each pixel relaxes its height to
 * 1 + the lowest height among the neighbours its residual arcs reach, until
 * nothing in the tile changes. Heights only decrease and every value is the
 * length of some residual path, so the fixed point over all tiles is the
 * exact BFS distance; nodes that no path joins to the sink stay infinite.
 * After the first round the halo is re-read from global memory on every
 * step, so changes cross tile borders within the same launch. */
template <int NDIR>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS) void bfs_kernel(gcut__dgrid g, int first,
                                                                      int in)
{
    __shared__ int32_t sh_h[HALO_N];
    const int tile = blockIdx.x;
    if (!first && !g.flag[in][tile])
        return;
    const int out = 1 - in;
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    const long long origin = (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
    const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
    const int me = (ly + 1) * HALO_W + lx + 1;

    unsigned mask = 0;
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        if (g.res[d][p] > 0)
            mask |= 1u << d;

    for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS) {
        long long q = origin + (long long)(i / HALO_W) * g.pitch + i % HALO_W;
        sh_h[i] = first ? (g.sink[q] > 0 ? 1 : GCUT_HEIGHT_INF) : load_volatile(&g.height[q]);
    }
    __syncthreads();

    int h = sh_h[me];
    const int h_start = h;
    for (;;) {
        int best = h;
#pragma unroll
        for (int d = 0; d < NDIR; d++)
            if (mask & (1u << d)) {
                int hq = sh_h[me + dir_dx(d) + dir_dy(d) * HALO_W] + 1;
                best = hq < best ? hq : best;
            }
        const int changed = best < h;
        __syncthreads(); /* every read of this step is done */
        if (changed) {
            h = best;
            sh_h[me] = h;
            if (!first)
                store_volatile(&g.height[p], h);
        }
        if (!first)
            for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS) {
                int hx = i % HALO_W, hy = i / HALO_W;
                if (hx == 0 || hy == 0 || hx == HALO_W - 1 || hy == HALO_H - 1)
                    sh_h[i] = load_volatile(&g.height[origin + (long long)hy * g.pitch + hx]);
            }
        if (!__syncthreads_or(changed))
            break;
    }
    if (first)
        g.height[p] = h;

    /* Neighbours read this tile's border as their halo: if it moved, they
     * must run again. */
    const int on_border =
        lx == 0 || ly == 0 || lx == GCUT_TILE_W - 1 || ly == GCUT_TILE_H - 1;
    if (__syncthreads_or(on_border && h != h_start) && tid == 0) {
        atomicAdd(&g.counters[GCUT_CNT_WORK], 1ull);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nx = tx + dx, ny = ty + dy;
                if ((dx || dy) && nx >= 0 && ny >= 0 && nx < g.tiles_x && ny < g.tiles_y)
                    g.flag[out][ny * g.tiles_x + nx] = 1;
            }
    }
}

static __global__ __launch_bounds__(GCUT_TILE_PIXELS) void count_active_kernel(gcut__dgrid g,
                                                                               int out,
                                                                               int enqueue)
{
    /* Launched after every batch of BFS rounds: it counts only once the
     * last round moved nothing, and costs a pass over the grid only then. */
    if (*(volatile unsigned long long *)&g.counters[GCUT_CNT_WORK] != 0)
        return;
    const int tile = blockIdx.x;
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const long long p = ((long long)ty * GCUT_TILE_H + threadIdx.y + 1) * g.pitch +
                        (long long)tx * GCUT_TILE_W + threadIdx.x + 1;
    const int active = g.height[p] < GCUT_HEIGHT_INF && g.excess[p] > 0;
    const int n = __syncthreads_count(active);
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        g.flag[out][tile] = n > 0;
        g.flag[1 - out][tile] = 0; /* the first push launch's out: no memset needed */
        g.dirty[tile] = n > 0;     /* read by the relabel before; kept while it has work */
        if (n) {
            atomicAdd(&g.counters[GCUT_CNT_ACTIVE], (unsigned long long)n);
            g.list[out][atomicAdd(&g.counters[GCUT_CNT_LIST0 + out], 1ull)] = tile;
        }
        if (n && enqueue)
            gcut__put_tile(g, tile);
    }
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

extern "C" cudaError_t gcut__grid_bfs_launch(const gcut__dgrid *g, int first, int in,
                                             cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    const unsigned tiles = (unsigned)(g->tiles_x * g->tiles_y);
    if (g->ndirs == 8)
        bfs_kernel<8><<<tiles, block, 0, stream>>>(*g, first, in);
    else
        bfs_kernel<4><<<tiles, block, 0, stream>>>(*g, first, in);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_count_active_launch(const gcut__dgrid *g, int out,
                                                      int enqueue, cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    count_active_kernel<<<(unsigned)(g->tiles_x * g->tiles_y), block, 0, stream>>>(*g, out,
                                                                                   enqueue);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_enqueue_list_launch(const gcut__dgrid *g, int in,
                                                      cudaStream_t stream)
{
    const int tiles = g->tiles_x * g->tiles_y;
    enqueue_list_kernel<<<(unsigned)((tiles + 255) / 256), 256, 0, stream>>>(*g, in);
    return cudaPeekAtLastError();
}
