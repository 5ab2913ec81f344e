/* Worklist push-relabel on CSR graphs, a warp per node (the ECL-MaxFlow
 * design: VanAusdal and Burtscher, "An Efficient
 * Push-Relabel Implementation for Max-Flow Computations on GPUs"): active-node worklists de-duplicated by timestamps,
 * shuffle reductions for the lowest residual neighbour, flow stored once
 * per forward arc (one atomic per push), global relabel as a BFS over
 * worklists (graph_relabel.cu). The BFS and runs of push iterations are
 * persistent cooperative kernels with a grid barrier between steps, so the
 * host neither launches nor waits per step (graph_kernels.h). The host
 * runs this push where arcs come in anti-parallel pairs (genrmf frames,
 * grids, symmetric matrices): ties among equal heights broken by arc code
 * (reverse entries mostly first) suit them, and a warp per node was 1.2 to
 * 3x ahead of the split push there (bench/results).
 *
 * Concurrency (Hong's argument, Wu, He and Hong): only v's warp takes excess from v
 * or raises v's height; others only add to v's excess. The residual of an
 * arc that v chose can only have grown since v read it (v's own pushes are
 * the only ones that shrink it), so a push of min(excess, residual read
 * again) never overdraws. Values other warps change are read with __ldcg
 * (from L2, not a stale L1 line). Exactness never rests on the heights
 * being valid: the host stops only after an exact BFS leaves no node with
 * excess that can reach the target. */
#include <cooperative_groups.h>

#include "graph_device.cuh"

namespace cg = cooperative_groups;

/* The lowest residual neighbour of v as (height << 32 | code), code = 2k
 * for forward arc k, 2j + 1 for reverse-CSR entry j; NO_ARC if none (or
 * v < 0: a group without a node, which still takes part in the shuffles). */
template <int W>
static __device__ __forceinline__ unsigned long long lowest_neighbour(const gcut__dgraph &g,
                                                                       int32_t v, int phase2,
                                                                       int lane)
{
    unsigned long long best = NO_ARC;
    if (v >= 0 && !phase2) {
        const int32_t last = g.out_start[v + 1];
        for (int32_t k = g.out_start[v] + lane; k < last; k += W) {
            if (__ldcg(&g.flow[k]) < g.out_cap[k]) {
                const unsigned long long key =
                    (unsigned long long)(uint32_t)__ldcg(&g.height[g.out_head[k]]) << 32 |
                    (uint32_t)(2 * k);
                best = key < best ? key : best;
            }
        }
    }
    const int32_t last = v >= 0 ? g.in_start[v + 1] : 0;
    for (int32_t j = v >= 0 ? g.in_start[v] + lane : 0; j < last; j += W) {
        if (__ldcg(&g.flow[g.in_arc[j]]) > 0) {
            const unsigned long long key =
                (unsigned long long)(uint32_t)__ldcg(&g.height[g.in_tail[j]]) << 32 |
                (uint32_t)(2 * j + 1);
            best = key < best ? key : best;
        }
    }
    return group_min<W>(best);
}

/* Push up to `ex` from v along `code`; returns the amount and the head. */
static __device__ __forceinline__ long long push_along(const gcut__dgraph &g, int32_t v,
                                                       uint32_t code, long long ex, int32_t *to)
{
    long long d;
    if (!(code & 1)) {
        const int32_t k = (int32_t)(code >> 1);
        const long long room = (long long)g.out_cap[k] - __ldcg(&g.flow[k]);
        d = ex < room ? ex : room;
        if (d > 0)
            atomicAdd(&g.flow[k], (int)d);
        *to = g.out_head[k];
    } else {
        const int32_t j = (int32_t)(code >> 1), a = g.in_arc[j];
        const long long back = __ldcg(&g.flow[a]);
        d = ex < back ? ex : back;
        if (d > 0)
            atomicSub(&g.flow[a], (int)d);
        *to = g.in_tail[j];
    }
    if (d > 0) {
        add_excess(g.excess, *to, d);
        add_excess(g.excess, v, -d);
    }
    return d > 0 ? d : 0;
}

/* Put u on the next step's worklist unless a push of this step has. */
static __device__ __forceinline__ void activate(const gcut__dgraph &g, int32_t u, int32_t iter,
                                                int32_t *out, unsigned long long *out_size)
{
    if (atomicMax(&g.stamp[u], iter) != iter)
        out[atomicAdd(out_size, 1ull)] = u;
}

/* Take v for push step iter: false when another warp has it. Only the
 * chase needs this (a worklist holds a node once a step); it keeps one
 * owner per node and step, so the concurrency argument above holds. */
static __device__ __forceinline__ bool take(const gcut__dgraph &g, int32_t v, int32_t iter)
{
    return atomicMax(&g.claim[v], iter + 1) < iter + 1;
}

/* Up to `steps` push iterations (graph_kernels.h), a warp per active
 * node (W lanes; fewer than 32 measured no faster, even on sparse graphs);
 * the step number is the de-duplication stamp. Shuffles need every lane
 * of the warp, so groups that are done keep looping without work until all
 * of the warp is.
 *
 * With g.warp_chase (warm re-solves, a benchmark knob: src/gpu/graph_gpu.cu
 * says why it is off), a warp that has discharged v goes on to the node
 * v's last push went to, up to warp_chase nodes a step, unless another
 * warp has taken that node in this step (claim), so that excess runs down
 * several arcs a step instead of one. */
static __global__ __launch_bounds__(THREADS) void push_kernel(gcut__dgraph g, int steps,
                                                              int32_t hmax, int phase2, int rounds)
{
    constexpr int W = 32, G = 32 / W;
    static_assert(G == 1, "the chase follows one node a warp");
    __shared__ unsigned long long size_slot;
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31, glane = lane % W, group = lane / W;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long warp = tid / 32, nwarps = (gridDim.x * blockDim.x) / 32;
    const int chase = g.warp_chase;
    unsigned long long seq = __ldcg(&g.counters[GCUT_GCNT_SEQ]);
    unsigned long long lifts = 0;
    int step = 0;
    for (; step < steps; step++, seq++) {
        const unsigned long long size =
            block_step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0, &size_slot);
        if (size == 0)
            break;
        const int32_t iter = (int32_t)seq;
        const int32_t *in = g.list[seq & 1];
        int32_t *out = g.list[(seq + 1) & 1];
        unsigned long long *out_size = &g.counters[(seq + 1) % 3];
        for (unsigned long long base = warp * G; base < size; base += nwarps * G) {
            const unsigned long long i = base + group;
            int32_t v = i < size ? __ldcg(&in[i]) : -1;
            if (chase) {
                /* a chase may have taken v in this step already */
                int mine = 0;
                if (v >= 0 && glane == 0)
                    mine = take(g, v, iter);
                if (!__shfl_sync(FULL_MASK, mine, 0))
                    v = -1;
            }
            for (int hop = 0; v >= 0; hop++) {
                const bool chasing = hop < chase;
                int32_t follow = -1; /* with chasing: the head of v's last push */
                long long ex = 0;
                int32_t h = hmax;
                if (glane == 0) {
                    ex = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
                    h = __ldcg(&g.height[v]);
                }
                ex = __shfl_sync(FULL_MASK, ex, 0, W);
                h = __shfl_sync(FULL_MASK, h, 0, W);
                bool go = ex > 0 && h < hmax;
                for (int r = 0; r < rounds && __any_sync(FULL_MASK, go); r++) {
                    const unsigned long long best =
                        lowest_neighbour<W>(g, go ? v : -1, phase2, glane);
                    if (go && best == NO_ARC) {
                        /* nothing residual leaves v: it cannot reach the target */
                        h = hmax;
                        if (glane == 0)
                            g.height[v] = h;
                        go = false;
                    }
                    if (go) {
                        const int32_t low = (int32_t)(best >> 32);
                        if (h <= low) {
                            /* lift just above the lowest neighbour, then push to it */
                            h = low + 1;
                            if (glane == 0) {
                                g.height[v] = h;
                                lifts++;
                            }
                            go = h < hmax;
                        }
                    }
                    if (go && glane == 0) {
                        int32_t to = 0;
                        const long long d = push_along(g, v, (uint32_t)best, ex, &to);
                        if (d > 0) {
                            ex -= d;
                            if (to != g.source && to != g.sink) {
                                if (!chasing) {
                                    activate(g, to, iter, out, out_size);
                                } else if (to != follow) {
                                    if (follow >= 0)
                                        activate(g, follow, iter, out, out_size);
                                    follow = to;
                                }
                            }
                        }
                    }
                    ex = __shfl_sync(FULL_MASK, ex, 0, W);
                    go = go && ex > 0;
                }
                int32_t next = -1;
                if (glane == 0) {
                    if (ex > 0 && h < hmax)
                        activate(g, v, iter, out, out_size);
                    if (follow >= 0) {
                        if (take(g, follow, iter))
                            next = follow;
                        else
                            activate(g, follow, iter, out, out_size);
                    }
                }
                v = __shfl_sync(FULL_MASK, next, 0);
            }
        }
        grid.sync();
    }
    if (tid == 0)
        record_push_launch(g, seq, step);
    if (glane == 0 && lifts)
        atomicAdd(&g.counters[GCUT_GCNT_LIFTS], lifts);
}

extern "C" cudaError_t gcut__graph_push_launch(const gcut__dgraph *g, int steps, int32_t hmax,
                                               int phase2, int rounds, cudaStream_t stream)
{
    gcut__dgraph copy = *g;
    void *args[] = {&copy, &steps, &hmax, &phase2, &rounds};
    return cudaLaunchCooperativeKernel((const void *)push_kernel, g->coop_blocks, THREADS, args,
                                       0, stream);
}

/* The blocks of the warp push's and the relabel's launches: the fewest per
 * SM (at most `cap`) that both keep resident, on every SM. */
extern "C" int gcut__graph_coop_blocks(int device, int cap)
{
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)push_kernel, THREADS,
                                                      0) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return sms * gcut__graph_relabel_occupancy(per_sm < cap ? per_sm : cap);
}
