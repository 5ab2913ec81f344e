/* Device helpers shared by the worklist kernels (graph_worklist.cu,
 * graph_split.cu): warp-aggregated appends, shuffle reductions, the
 * device clock, 64-bit excess updates. Included by .cu files only. */
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

/* step_size() for a whole block with `shared` (g.shared_sizes): thread 0
 * reads, the block shares it through `slot`, so that the size's line, which
 * every warp of the grid reads at every step (2 k requests to one L2
 * slice), gets one request per block. All threads of the block call it;
 * `slot` is only rewritten after the grid barrier that ends the step,
 * when every thread has read it. */
static __device__ __forceinline__ unsigned long long block_step_size(bool shared,
                                                                     unsigned long long *sizes,
                                                                     unsigned long long seq,
                                                                     bool first,
                                                                     unsigned long long *slot)
{
    if (!shared)
        return step_size(sizes, seq, first);
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

/* The device's nanosecond clock (for the relabel / push time split). */
static __device__ __forceinline__ unsigned long long clock_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Profiling (g.prof, knob `profile`): block 0's thread 0 times each step
 * or level of a persistent kernel against the last block's end of work. */
struct prof_clock {
    unsigned long long start, work, bar, count;
};

/* At the top of step `step` (after the barrier that ended step - 1), by
 * thread 0 of block 0: step - 1's work and barrier time. */
static __device__ __forceinline__ void prof_top(const gcut__dgraph &g, prof_clock *p,
                                                unsigned long long step)
{
    const unsigned long long t = clock_ns();
    if (step > 0) {
        /* written in step - 1 by every block; rewritten only in step + 1 */
        const unsigned long long last =
            atomicExch(&g.prof[GCUT_GPROF_LAST0 + ((step - 1) & 1)], 0ull);
        p->work += last > p->start ? last - p->start : 0;
        p->bar += t > last ? t - last : 0;
        p->count++;
    }
    p->start = t;
}

/* The end of a block's work in step `step` (all its threads call it);
 * *own (thread 0's) sums the block's own work time from `start`. */
static __device__ __forceinline__ void prof_block_done(const gcut__dgraph &g,
                                                       unsigned long long step,
                                                       unsigned long long start,
                                                       unsigned long long *own)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned long long t = clock_ns();
        atomicMax(&g.prof[GCUT_GPROF_LAST0 + (step & 1)], t);
        *own += t - start;
    }
}

static __device__ __forceinline__ void add_excess(long long *excess, int32_t v, long long d)
{
    atomicAdd((unsigned long long *)&excess[v], (unsigned long long)d);
}

/* The end of a push launch, by one thread of the grid: where the steps
 * got to (the next launch's seq) and what they cost, for the host. */
static __device__ __forceinline__ void record_push_launch(const gcut__dgraph &g,
                                                          unsigned long long seq, int steps,
                                                          unsigned long long t0,
                                                          unsigned long long items)
{
    g.counters[GCUT_GCNT_SEQ] = seq;
    g.counters[GCUT_GCNT_STEPS] += (unsigned long long)steps;
    g.counters[GCUT_GCNT_PUSH_NS] += clock_ns() - t0;
    g.counters[GCUT_GCNT_ITEMS] += items;
}

#endif
