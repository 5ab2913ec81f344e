/* The two variants of Wu, He and Hong ("Efficient CUDA Algorithms for the
 * Maximum Network Flow Problem") on CSR graphs: the
 * asynchronous lock-free kernel (Algorithm 2) and the precoloring-based
 * synchronous one (Algorithm 3). A thread per node; flow stored once per
 * forward arc as in graph_push_warp.cu, so both read the same device graph. */
#include "graph_kernels.h"

#define THREADS 256
#define NO_ARC 0xffffffffffffffffull

/* The lowest residual neighbour of v, scanned by one thread:
 * (height << 32 | code), code 2k forward arc k, 2j + 1 reverse entry j. */
static __device__ unsigned long long lowest_neighbour(const gcut__dgraph &g, int32_t v)
{
    unsigned long long best = NO_ARC;
    for (int32_t k = g.out_start[v]; k < g.out_start[v + 1]; k++) {
        if (__ldcg(&g.flow[k]) < g.out_cap[k]) {
            const unsigned long long key =
                (unsigned long long)(uint32_t)__ldcg(&g.height[g.out_head[k]]) << 32 |
                (uint32_t)(2 * k);
            best = key < best ? key : best;
        }
    }
    for (int32_t j = g.in_start[v]; j < g.in_start[v + 1]; j++) {
        if (__ldcg(&g.flow[g.in_arc[j]]) > 0) {
            const unsigned long long key =
                (unsigned long long)(uint32_t)__ldcg(&g.height[g.in_tail[j]]) << 32 |
                (uint32_t)(2 * j + 1);
            best = key < best ? key : best;
        }
    }
    return best;
}

/* Algorithm 2: push to the lowest neighbour with atomics, or lift. Only
 * v's thread takes excess from v or changes its height, so the residual
 * read just before a push can only have grown (see graph_push_warp.cu). */
static __global__ __launch_bounds__(THREADS) void async_kernel(gcut__dgraph g, int cycles)
{
    unsigned long long lifts = 0;
    for (int c = 0; c < cycles; c++) {
        for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n;
             v += gridDim.x * blockDim.x) {
            if (v == g.source || v == g.sink)
                continue;
            const long long ex = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
            const int32_t h = g.height[v];
            if (ex <= 0 || h >= g.n)
                continue;
            const unsigned long long best = lowest_neighbour(g, v);
            if (best == NO_ARC) {
                g.height[v] = g.n;
                continue;
            }
            const int32_t low = (int32_t)(best >> 32);
            if (h <= low) {
                g.height[v] = low + 1;
                lifts++;
                continue;
            }
            const uint32_t code = (uint32_t)best;
            long long d;
            int32_t to;
            if (!(code & 1)) {
                const int32_t k = (int32_t)(code >> 1);
                const long long room = (long long)g.out_cap[k] - __ldcg(&g.flow[k]);
                d = ex < room ? ex : room;
                if (d > 0)
                    atomicAdd(&g.flow[k], (int)d);
                to = g.out_head[k];
            } else {
                const int32_t j = (int32_t)(code >> 1), a = g.in_arc[j];
                const long long back = __ldcg(&g.flow[a]);
                d = ex < back ? ex : back;
                if (d > 0)
                    atomicSub(&g.flow[a], (int)d);
                to = g.in_tail[j];
            }
            if (d > 0) {
                atomicAdd((unsigned long long *)&g.excess[to], (unsigned long long)d);
                atomicAdd((unsigned long long *)&g.excess[v], (unsigned long long)-d);
            }
        }
    }
    if (lifts)
        atomicAdd(&g.counters[GCUT_GCNT_LIFTS], lifts);
}

/* Algorithm 3, step 1: each active node chooses. Heights do not change
 * until the lift step, so every choice sees the same heights: two ends of
 * one arc can never both choose it (each would have to be the lower). */
static __global__ __launch_bounds__(THREADS) void color_choose_kernel(gcut__dgraph g, int32_t hmax)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n;
         v += gridDim.x * blockDim.x) {
        int32_t choice = -1, lift = -1;
        if (v != g.source && v != g.sink && g.excess[v] > 0 && g.height[v] < hmax) {
            const unsigned long long best = lowest_neighbour(g, v);
            if (best == NO_ARC) {
                lift = hmax;
            } else {
                const int32_t low = (int32_t)(best >> 32);
                if (g.height[v] > low)
                    choice = (int32_t)(uint32_t)best;
                else
                    lift = low + 1;
            }
        }
        g.choice[v] = choice;
        g.lift_to[v] = lift;
    }
}

/* Step 2, one colour: arcs of one colour share no node, so each node's
 * excess and each arc's flow is touched by at most one thread here. */
static __global__ __launch_bounds__(THREADS) void color_push_kernel(gcut__dgraph g, int32_t color)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n;
         v += gridDim.x * blockDim.x) {
        const int32_t code = g.choice[v];
        if (code < 0)
            continue;
        const long long ex = g.excess[v];
        long long d;
        int32_t to;
        if (!(code & 1)) {
            const int32_t k = code >> 1;
            if (g.color[k] != color)
                continue;
            const long long room = (long long)g.out_cap[k] - g.flow[k];
            d = ex < room ? ex : room;
            g.flow[k] += (int32_t)d;
            to = g.out_head[k];
        } else {
            const int32_t j = code >> 1, a = g.in_arc[j];
            if (g.color[a] != color)
                continue;
            const long long back = g.flow[a];
            d = ex < back ? ex : back;
            g.flow[a] -= (int32_t)d;
            to = g.in_tail[j];
        }
        g.excess[to] += d;
        g.excess[v] -= d;
    }
}

/* Step 3: the nodes that found no lower neighbour lift. */
static __global__ __launch_bounds__(THREADS) void color_lift_kernel(gcut__dgraph g)
{
    unsigned long long lifts = 0;
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n;
         v += gridDim.x * blockDim.x) {
        if (g.lift_to[v] >= 0) {
            g.height[v] = g.lift_to[v];
            lifts++;
        }
    }
    if (lifts)
        atomicAdd(&g.counters[GCUT_GCNT_LIFTS], lifts);
}

extern "C" cudaError_t gcut__graph_async_launch(const gcut__dgraph *g, int cycles,
                                                cudaStream_t stream)
{
    async_kernel<<<g->blocks, THREADS, 0, stream>>>(*g, cycles);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_color_choose_launch(const gcut__dgraph *g, int32_t hmax,
                                                       cudaStream_t stream)
{
    color_choose_kernel<<<g->blocks, THREADS, 0, stream>>>(*g, hmax);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_color_push_launch(const gcut__dgraph *g, int32_t color,
                                                     cudaStream_t stream)
{
    color_push_kernel<<<g->blocks, THREADS, 0, stream>>>(*g, color);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_color_lift_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    color_lift_kernel<<<g->blocks, THREADS, 0, stream>>>(*g);
    return cudaGetLastError();
}
