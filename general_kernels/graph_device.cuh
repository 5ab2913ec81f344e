/* Device helpers shared by the worklist kernels (graph_push_warp.cu,
 * graph_push_split.cu, graph_relabel.cu): warp-aggregated appends, the
 * worklist's step sizes, shuffle reductions, 64-bit excess updates.
 * Included by .cu files only. */
#ifndef GCUT_GENERAL_KERNELS_GRAPH_DEVICE_CUH
#define GCUT_GENERAL_KERNELS_GRAPH_DEVICE_CUH

#include "graph_kernels.h"

#define THREADS 256
#define FULL_MASK 0xffffffffu
#define NO_ARC 0xffffffffffffffffull

/* Append `item` for every lane with `want`, one atomic per warp. All 32
 * lanes must call it. */
static __device__ __forceinline__ void warp_append(bool want, int32_t item, int32_t *out,
                                                   unsigned long long *size)
{
    const unsigned mask = __ballot_sync(FULL_MASK, want);
    if (!mask)
        return;
    const int lane = threadIdx.x & 31;
    unsigned long long base = 0;
    if (lane == 0)
        base = atomicAdd(size, (unsigned long long)__popc(mask));
    base = __shfl_sync(FULL_MASK, base, 0);
    if (want)
        out[base + __popc(mask & ((1u << lane) - 1u))] = item;
}

/* The top of worklist step `seq` (graph_kernels.h) on the three sizes at
 * `sizes`: returns the size of the step's input list; `first` (one thread
 * of the grid) zeroes the output size of step seq + 1, which was the input
 * size of step seq - 1, read by all before the last barrier. */
static __device__ __forceinline__ unsigned long long step_size(unsigned long long *sizes,
                                                               unsigned long long seq, bool first)
{
    if (first)
        sizes[(seq + 2) % 3] = 0;
    return __ldcg(&sizes[seq % 3]);
}

/* step_size() for a whole block: thread 0 reads, the block shares it
 * through `slot`, so that the size's line, which every warp of the grid
 * reads at every step (2 k requests to one L2 slice), gets one request per
 * block. All threads of the block call it; `slot` is only rewritten after
 * the grid barrier that ends the step, when every thread has read it. */
static __device__ __forceinline__ unsigned long long block_step_size(unsigned long long *sizes,
                                                                     unsigned long long seq,
                                                                     bool first,
                                                                     unsigned long long *slot)
{
    if (threadIdx.x == 0)
        *slot = step_size(sizes, seq, first);
    __syncthreads();
    return *slot;
}

/* The minimum over each group of W lanes (all 32 lanes call it). */
template <int W>
static __device__ __forceinline__ unsigned long long group_min(unsigned long long x)
{
    for (int off = W / 2; off > 0; off >>= 1) {
        const unsigned long long y = __shfl_xor_sync(FULL_MASK, x, off, W);
        x = y < x ? y : x;
    }
    return x;
}

static __device__ __forceinline__ int warp_max(int x)
{
    for (int off = 16; off > 0; off >>= 1) {
        const int y = __shfl_xor_sync(FULL_MASK, x, off);
        x = y > x ? y : x;
    }
    return x;
}

static __device__ __forceinline__ void add_excess(long long *excess, int32_t v, long long d)
{
    atomicAdd((unsigned long long *)&excess[v], (unsigned long long)d);
}

/* v's degree class for the split push (graph_kernels.h). */
static __device__ __forceinline__ uint8_t degree_class(const gcut__dgraph &g, int32_t v)
{
    const int32_t deg = g.out_start[v + 1] - g.out_start[v] + g.in_start[v + 1] - g.in_start[v];
    return deg <= GCUT_LIGHT_MAX ? 0 : deg >= GCUT_HEAVY_MIN ? 2 : 1;
}

/* The end of a push launch, by one thread of the grid: where the steps
 * got to (the next launch's seq) and how many ran, for the host. */
static __device__ __forceinline__ void record_push_launch(const gcut__dgraph &g,
                                                          unsigned long long seq, int steps)
{
    g.counters[GCUT_GCNT_SEQ] = seq;
    g.counters[GCUT_GCNT_STEPS] += (unsigned long long)steps;
}

#endif
