/* Ending a warm re-solve's phase 1 without a BFS over the whole graph
 * (graph_kernels.h, gcut__graph_certify_launch).
 *
 * The proof: heights h with h < n on T and h >= n on S, where
 *  (a) every node of T that is not a target (the sink, a node with a
 *      deficit) has a residual arc to a node of lower height,
 *  (b) no residual arc leaves S, and the source is in S,
 *  (c) every node but s and t with excess is in S, every target in T.
 * By (a), by induction on the height, every node of T reaches a target;
 * by (b) no node of S does. So S is exactly the set that cannot reach a
 * target (the canonical source side the relabel's BFS would give), and by
 * (c) no augmenting path is left: the preflow is maximum. The check is one
 * pass over the arcs, against a BFS's hundreds of dependent levels (2.4 ms
 * on genrmf-long, 6.7 ms on the 512x1024 RLG: bench/results).
 *
 * The heights a warm re-solve ends with mostly satisfy (a) already: the
 * last solve's exact distances, and relabels that kept them beyond the
 * levels they reached (keep_heights). Where pushes saturated a node's last
 * arc down, or a deficit filled up and stopped being a target, the chain
 * breaks. Before checking, the kernel repairs that: it follows each node's
 * lowest lower residual neighbour to the end by pointer jumping (the
 * heights fall along it, so it ends), marks the nodes whose chain ends at
 * a non-target, then relabels those and the nodes at n from the certified
 * nodes outwards, a round a layer (a BFS confined to the broken region
 * and the edge of S), and gives the broken ones it cannot reach height
 * n. Only the final check decides; the repair just makes it pass
 * more often, and a failed check costs the caller one global relabel. */
#include <cooperative_groups.h>

#include "graph_device.cuh"

namespace cg = cooperative_groups;

/* cert[v] during the kernel: a node (pointer jumping toward the end of
 * v's chain), or one of these. */
#define CERT_YES (-1)     /* a target, or its chain ends at one */
#define CERT_NO (-2)      /* below n, its chain ends at a non-target */
#define CERT_SIDE (-3)    /* at n or above */
#define CERT_EDGE (-4)    /* at n or above, a residual arc to a node that is or may become
                           * certified: the repair tries it */
#define CERT_NEW (-5)     /* certified in the current repair round */

/* Repair rounds at most (layers of the broken region). */
#define CERT_ROUNDS 64

#define NO_KEY 0xffffffffffffffffull

static __device__ __forceinline__ bool is_target(const gcut__dgraph &g, int32_t v)
{
    return v == g.sink ||
           (v != g.source && (long long)__ldcg((const unsigned long long *)&g.excess[v]) < 0);
}

/* The least (height << 32 | node) over v's residual neighbours that pass
 * `keep`, reduced over the W lanes of v's group. Heights are read as unsigned: a negative one
 * (never left by a relabel) sorts last and fails the check. */
template <int W, typename Keep>
static __device__ __forceinline__ unsigned long long lowest(const gcut__dgraph &g, int32_t v,
                                                            int lane, Keep keep)
{
    unsigned long long best = NO_KEY;
    {
        const int32_t os = g.out_start[v], oe = g.out_start[v + 1];
        for (int32_t k = os + lane; k < oe; k += W) {
            const int32_t u = g.out_head[k];
            if (__ldcg(&g.flow[k]) < g.out_cap[k] && keep(u)) {
                const unsigned long long key =
                    (unsigned long long)(uint32_t)__ldcg(&g.height[u]) << 32 | (uint32_t)u;
                best = key < best ? key : best;
            }
        }
        const int32_t is = g.in_start[v], ie = g.in_start[v + 1];
        for (int32_t j = is + lane; j < ie; j += W) {
            const int32_t u = g.in_tail[j];
            if (__ldcg(&g.flow[g.in_arc[j]]) > 0 && keep(u)) {
                const unsigned long long key =
                    (unsigned long long)(uint32_t)__ldcg(&g.height[u]) << 32 | (uint32_t)u;
                best = key < best ? key : best;
            }
        }
    }
    if (W > 1)
        best = group_min<W>(best);
    return best;
}

struct any_node {
    __device__ bool operator()(int32_t) const { return true; }
};

struct certified_node {
    const int32_t *cert;
    __device__ bool operator()(int32_t u) const { return __ldcg(&cert[u]) == CERT_YES; }
};

/* Each node v once, by a group of W lanes (W = 1: a thread; W = 32: a
 * warp, for dense graphs), calling f(v, lane) with every lane of the
 * group (the lanes of a warp share v, so they join the shuffles
 * together). */
template <int W, typename F>
static __device__ __forceinline__ void each_node(const gcut__dgraph &g, F f)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    for (int32_t v = tid / W; v < g.n; v += stride / W)
        f(v, tid % W);
}

template <int W>
static __device__ void certify(const gcut__dgraph &g, cg::grid_group &grid)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const int32_t n = g.n;
    unsigned long long *const flags = &g.counters[GCUT_GCNT_CFLAG0];
    unsigned long long *const bad = &g.counters[GCUT_GCNT_CBAD];
    if (tid == 0) {
        g.counters[GCUT_GCNT_CERT] = 0;
        *bad = 0;
        flags[0] = flags[1] = flags[2] = 0;
        g.counters[GCUT_GCNT_DEFICIT] = 0;
    }
    /* Quick refusal: an active node, or a target cut off, means the
     * phase is not over (or needs a relabel) whatever the repair does. */
    unsigned long long wrong = 0;
    for (int32_t v = tid; v < n; v += stride) {
        if (v == g.source)
            continue;
        const long long e = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
        const int32_t h = __ldcg(&g.height[v]);
        if (v == g.sink || e < 0)
            wrong += h >= n || h < 0;
        else if (e > 0)
            wrong += h < n;
    }
    grid.sync();
    if (wrong)
        atomicAdd(bad, wrong);
    grid.sync();
    if (__ldcg(bad))
        return;

    /* Each node's state: targets certified, S apart (its edge, with a
     * residual arc to a node below n, marked), the rest pointing at its
     * lowest lower residual neighbour (none: its chain ends here,
     * uncertified). */
    each_node<W>(g, [&](int32_t v, int lane) {
        const unsigned long long key = lowest<W>(g, v, lane, any_node{});
        if (lane != 0)
            return;
        const int32_t h = __ldcg(&g.height[v]);
        int32_t c;
        if (is_target(g, v))
            c = CERT_YES;
        else if (h >= n)
            c = key != NO_KEY && (int64_t)(key >> 32) < n ? CERT_EDGE : CERT_SIDE;
        else
            c = key != NO_KEY && (int64_t)(key >> 32) < h ? (int32_t)(uint32_t)key : CERT_NO;
        g.cert[v] = c;
    });
    grid.sync();

    /* Pointer jumping to each chain's end (heights fall along a chain, so
     * there are no cycles; a round halves what is left of each). Slot
     * r % 3 counts round r's unresolved nodes; slot (r + 1) % 3, read in
     * round r - 2, is cleared for round r + 1. */
    for (int r = 1;; r++) {
        if (tid == 0)
            flags[(r + 1) % 3] = 0;
        unsigned long long left = 0;
        for (int32_t v = tid; v < n; v += stride) {
            const int32_t c = __ldcg(&g.cert[v]);
            if (c >= 0) {
                const int32_t next = __ldcg(&g.cert[c]);
                g.cert[v] = next;
                left += next >= 0;
            }
        }
        left = __reduce_add_sync(FULL_MASK, (unsigned)left);
        if (left && (threadIdx.x & 31) == 0)
            atomicAdd(&flags[r % 3], left);
        grid.sync();
        if (__ldcg(&flags[r % 3]) == 0)
            break;
    }
    if (tid == 0)
        flags[0] = flags[1] = flags[2] = 0;
    grid.sync();

    /* Repair, a layer a round: an uncertified node (below n with a broken
     * chain, or on the edge of S) with a residual arc to a node certified
     * before this round takes one above the lowest such (a node at n that
     * can reach a target is not cut off: if it holds excess, the check
     * below fails and the caller's relabel makes it active). The nodes at
     * n with a residual arc to one certified in a round join the edge for
     * the next, so that the rest of S is not scanned every round. */
    for (int r = 1; r <= CERT_ROUNDS; r++) {
        if (tid == 0)
            flags[(r + 1) % 3] = 0;
        unsigned long long fixed = 0;
        each_node<W>(g, [&](int32_t v, int lane) {
            const int32_t c = __ldcg(&g.cert[v]);
            if ((c != CERT_NO && c != CERT_EDGE) || v == g.source)
                return; /* the same for every lane of v's group */
            const unsigned long long key = lowest<W>(g, v, lane, certified_node{g.cert});
            if (lane == 0 && key != NO_KEY && (int64_t)(key >> 32) + 1 < n) {
                g.height[v] = (int32_t)(key >> 32) + 1;
                g.cert[v] = CERT_NEW;
                fixed++;
            }
        });
        grid.sync();
        each_node<W>(g, [&](int32_t v, int lane) {
            if (__ldcg(&g.cert[v]) != CERT_NEW)
                return; /* the same for every lane of v's group */
            /* u -> v residual: forward arcs into v with room, v's own arcs
             * with flow */
            for (int32_t j = g.in_start[v] + lane; j < g.in_start[v + 1]; j += W) {
                const int32_t a = g.in_arc[j], u = g.in_tail[j];
                if (__ldcg(&g.flow[a]) < g.out_cap[a] && __ldcg(&g.cert[u]) == CERT_SIDE)
                    g.cert[u] = CERT_EDGE;
            }
            for (int32_t k = g.out_start[v] + lane; k < g.out_start[v + 1]; k += W) {
                const int32_t u = g.out_head[k];
                if (__ldcg(&g.flow[k]) > 0 && __ldcg(&g.cert[u]) == CERT_SIDE)
                    g.cert[u] = CERT_EDGE;
            }
            if (W > 1)
                __syncwarp();
            if (lane == 0)
                g.cert[v] = CERT_YES;
        });
        if (fixed)
            atomicAdd(&flags[r % 3], fixed);
        grid.sync();
        if (__ldcg(&flags[r % 3]) == 0)
            break;
    }
    /* What the repair did not reach cannot reach a target through
     * certified nodes: cut off, if the check agrees. */
    for (int32_t v = tid; v < n; v += stride)
        if (__ldcg(&g.cert[v]) == CERT_NO)
            g.height[v] = n;
    grid.sync();

    /* The proof (see the top): one pass, heights as they now are. */
    each_node<W>(g, [&](int32_t v, int lane) {
        const unsigned long long key = lowest<W>(g, v, lane, any_node{});
        if (lane != 0)
            return;
        const int32_t h = __ldcg(&g.height[v]);
        const bool target = is_target(g, v);
        const long long e = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
        bool ok;
        if (h < 0)
            ok = false;
        else if (h >= n)
            ok = !target && (key == NO_KEY || (int64_t)(key >> 32) >= n);
        else if (target)
            ok = v != g.source;
        else
            ok = v != g.source && !(v != g.sink && e > 0) && key != NO_KEY &&
                 (int64_t)(key >> 32) < h;
        if (!ok)
            atomicAdd(bad, 1ull);
    });
    grid.sync();
    if (__ldcg(bad))
        return;
    /* Proved: the cut side, the value's parts, as a phase-1 relabel
     * leaves them. */
    for (int32_t v = tid; v < n; v += stride) {
        g.side[v] = __ldcg(&g.height[v]) >= n;
        const long long e = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
        if (e < 0 && v != g.source && v != g.sink)
            atomicAdd(&g.counters[GCUT_GCNT_DEFICIT], (unsigned long long)-e);
    }
    if (tid == 0) {
        g.counters[GCUT_GCNT_SINK] =
            (unsigned long long)__ldcg((const unsigned long long *)&g.excess[g.sink]);
        g.counters[GCUT_GCNT_CERT] = 1;
    }
}

static __global__ __launch_bounds__(THREADS, 4) void certify_kernel(gcut__dgraph g)
{
    cg::grid_group grid = cg::this_grid();
    if (g.bfs_team)
        certify<32>(g, grid);
    else
        certify<1>(g, grid);
}

extern "C" cudaError_t gcut__graph_certify_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)certify_kernel,
                                                            THREADS, 0);
    if (err != cudaSuccess)
        return err;
    int blocks = sms * (per_sm < 4 ? per_sm : 4);
    /* a thread a node, or a warp a node where the relabel works in teams
     * (dense graphs): one block for 8 nodes there, not for 256 */
    const int64_t lanes = (int64_t)g->n * (g->bfs_team ? 32 : 1);
    const int want = (int)((lanes + THREADS - 1) / THREADS);
    blocks = blocks < want ? blocks : want;
    blocks = blocks > 0 ? blocks : 1;
    gcut__dgraph copy = *g;
    void *args[] = {&copy};
    return cudaLaunchCooperativeKernel((const void *)certify_kernel, blocks, THREADS, args, 0,
                                       stream);
}
