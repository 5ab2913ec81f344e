/* The small kernels around a general-graph solve: the source's arcs
 * saturated (and the degree classes of the split push) where the relabel
 * does not start the solve, and the count of nodes left with excess after
 * phase 2. Grid-stride loops, a thread per node or arc. */
#include "graph_device.cuh"

static __global__ __launch_bounds__(THREADS) void init_kernel(gcut__dgraph g)
{
    const int32_t first = g.out_start[g.source], last = g.out_start[g.source + 1];
    for (int32_t k = first + blockIdx.x * blockDim.x + threadIdx.x; k < last;
         k += gridDim.x * blockDim.x) {
        const int32_t c = g.out_cap[k];
        g.flow[k] = c;
        if (c > 0)
            add_excess(g.excess, g.out_head[k], c);
    }
}

static __global__ __launch_bounds__(THREADS) void class_kernel(gcut__dgraph g)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n;
         v += gridDim.x * blockDim.x)
        g.dclass[v] = degree_class(g, v);
}

static __global__ __launch_bounds__(THREADS) void count_left_kernel(gcut__dgraph g)
{
    unsigned long long left = 0;
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n; v += gridDim.x * blockDim.x)
        left += v != g.source && v != g.sink && g.excess[v] != 0;
    if (left)
        atomicAdd(&g.counters[GCUT_GCNT_LEFT], left);
}

extern "C" cudaError_t gcut__graph_init_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    init_kernel<<<g->blocks, THREADS, 0, stream>>>(*g);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_class_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    class_kernel<<<g->blocks, THREADS, 0, stream>>>(*g);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_count_left_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    count_left_kernel<<<g->blocks, THREADS, 0, stream>>>(*g);
    return cudaGetLastError();
}
