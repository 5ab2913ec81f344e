/* The global relabel for general graphs: heights = BFS distance to the
 * target over residual arcs, one cooperative launch, level by level over
 * worklists with a grid barrier between levels. A frontier node's in- and
 * out-arcs are scanned in one pass and their loads issued together: a BFS
 * level is a chain of dependent loads, and this shortens it (20-30 % off
 * the relabel time). A solve's first relabel can start the solve
 * (start_solve), and every phase-1 relabel writes the cut side and the
 * sink's excess, so that a small graph's solve pays no launches but its
 * relabels and push batches.
 *
 * bfs_stop ends the BFS early once every active node has its distance: a
 * push phase needs the active nodes' heights exact, not the rest (up to
 * 30 % off RLG's relabels). bfs_team (dense graphs) walks a frontier
 * node's arcs four a lane at a time and gives a small frontier whole warps
 * per node (acyclic-dense: the sink's n - 1 in-arcs). */
#include <cooperative_groups.h>

#include "graph_device.cuh"

namespace cg = cooperative_groups;

/* Heights a bfs_stop relabel gives the nodes it has not reached yet (the
 * ones it labels unless they stay cut off): active, or not. */
#define PENDING_ACTIVE (-2)
#define PENDING (-1)

/* Entries lane, lane + width, ... of frontier node x (x < 0: none), `trips`
 * of them (the same for every lane of the warp): the unvisited nodes they
 * reach over residual arcs get `level` and go to `out`; with `count`, the
 * active ones among them (PENDING_ACTIVE) are counted there. Four entries a lane
 * at a time, so that their loads and atomics are in flight together (a
 * node of thousands of arcs otherwise takes a chain of round trips per
 * `width` of them). */
static __device__ __forceinline__ void bfs_node(const gcut__dgraph &g, int32_t x, int phase2,
                                                int32_t lane, int32_t width, int trips,
                                                int32_t bfs_id, int32_t level, int32_t *out,
                                                unsigned long long *out_size,
                                                unsigned long long *count)
{
    int32_t os = 0, is = 0, dout = 0, din = 0;
    if (x >= 0) {
        os = g.out_start[x];
        is = g.in_start[x];
        dout = g.out_start[x + 1] - os;
        din = phase2 ? 0 : g.in_start[x + 1] - is;
    }
    for (int trip = 0; trip < trips; trip += 4) {
        int32_t u[4], seen[4], old_h[4];
        bool want[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int32_t t = (trip + q) * width + lane;
            bool room = false;
            u[q] = 0;
            if (t < din) {
                const int32_t a = g.in_arc[is + t];
                u[q] = g.in_tail[is + t];
                room = g.flow[a] < g.out_cap[a];
            } else if (t < din + dout) {
                const int32_t k = os + t - din;
                u[q] = g.out_head[k];
                room = g.flow[k] > 0;
            }
            seen[q] = room ? __ldcg(&g.stamp[u[q]]) : bfs_id;
            old_h[q] = room && count ? __ldcg(&g.height[u[q]]) : 0;
        }
#pragma unroll
        for (int q = 0; q < 4; q++)
            want[q] = seen[q] != bfs_id && atomicMin(&g.stamp[u[q]], bfs_id) != bfs_id;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            if (want[q] && old_h[q] == PENDING_ACTIVE)
                atomicAdd(count, 1ull);
            if (want[q])
                g.height[u[q]] = level;
            if (trip + q < trips)
                warp_append(want[q], u[q], out, out_size);
        }
    }
}

/* A solve's start inside its first relabel (`fresh`): what four memsets
 * and the init and class launches would do, in one launch (half the fixed
 * cost of a small graph's solve, bench/results).
 * Exact by construction: every array is written as those launches wrote it,
 * the zeroing finishes at a grid barrier before the source's arcs add to
 * any excess, and the relabel's own barrier orders the saturated arcs
 * before the BFS reads a residual. All threads of the grid call it. */
static __device__ __forceinline__ void start_solve(const gcut__dgraph &g, cg::grid_group &grid)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const int32_t quads = g.m / 4;
    int4 *const flow4 = reinterpret_cast<int4 *>(g.flow); /* cudaMalloc: 256-byte aligned */
    for (int32_t i = tid; i < quads; i += stride)
        flow4[i] = make_int4(0, 0, 0, 0);
    for (int32_t k = 4 * quads + tid; k < g.m; k += stride)
        g.flow[k] = 0;
    for (int32_t v = tid; v < g.n; v += stride) {
        g.excess[v] = 0;
        g.stamp[v] = 0;
        if (g.chase > 0)
            g.claim[v] = 0;
        if (g.split)
            g.dclass[v] = degree_class(g, v);
    }
    if (tid < GCUT_GCNT_SLOTS)
        g.counters[tid] = 0;
    grid.sync();
    const int32_t first = g.out_start[g.source], last = g.out_start[g.source + 1];
    for (int32_t k = first + tid; k < last; k += stride) {
        const int32_t c = g.out_cap[k];
        g.flow[k] = c;
        if (c > 0)
            add_excess(g.excess, g.out_head[k], c);
    }
}

/* The global relabel (graph_kernels.h) with one scan per frontier node:
 * entry t < din is u -> x (reverse CSR: a forward arc with room), the rest
 * x -> u (forward CSR: flow on it makes u -> x residual). A warp (W lanes)
 * per frontier node. */
static __global__ __launch_bounds__(THREADS) void relabel_kernel(gcut__dgraph g, int32_t target,
                                                                  int32_t excluded, int32_t hmax,
                                                                  int32_t bfs_id, int phase2,
                                                                  int fresh)
{
    constexpr int W = 32, G = 32 / W;
    __shared__ unsigned long long size_slot[2];
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31, glane = lane % W, group = lane / W;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const unsigned long long warp = tid / 32, nwarps = stride / 32;
    if (fresh)
        start_solve(g, grid);
    unsigned long long seq = fresh ? 0 : __ldcg(&g.counters[GCUT_GCNT_SEQ]);
    /* bfs_stop (not in a solve's first relabel, whose old heights mean
     * nothing): the BFS ends at the first level by which every active node
     * below hmax has its distance D; nodes below hmax it has not reached get
     * D + 1 (valid: one with a residual arc to a node of distance < D would
     * have been reached), nodes at hmax keep it (cut off earlier; only a
     * full BFS relabels them). A BFS with nothing to label, or that cannot
     * reach an active node, runs to the end, so the relabel that ends a
     * phase (nothing active left) is always exact. A warm re-solve whose
     * heights a phase 1 left (warm_stop) may stop early from its first
     * relabel: the nodes that phase found cut off keep hmax unless this BFS
     * reaches them, so that the excess stranded there waits for the exact
     * relabel that ends the phase instead of making every BFS run to the
     * end. */
    const bool stop = g.bfs_stop && (bfs_id != -1 || g.warm_stop);
    /* A warm re-solve's phase 1: the deficient nodes are targets too. */
    const bool deficits = g.deficits && !phase2;
    int active = 0;
    for (int32_t v = tid; v < g.n; v += stride) {
        int32_t h = v == target ? 0 : hmax;
        if (deficits && v != g.source && v != g.sink &&
            (long long)__ldcg((const unsigned long long *)&g.excess[v]) < 0) {
            g.height[v] = 0;
            continue;
        }
        const int32_t old_h = stop ? __ldcg(&g.height[v]) : hmax;
        if (stop && v != target && v != excluded && old_h < hmax) {
            const bool act = v != g.source && v != g.sink &&
                             (long long)__ldcg((const unsigned long long *)&g.excess[v]) > 0;
            h = act ? PENDING_ACTIVE : PENDING;
            active += act;
            if (g.keep_heights)
                g.cert[v] = old_h;
        }
        g.height[v] = h;
    }
    if (stop) {
        active = __reduce_add_sync(FULL_MASK, active);
        if (active && lane == 0)
            atomicAdd(&g.counters[GCUT_GCNT_BFS_ACTIVE], (unsigned long long)active);
    }
    if (tid == 0) {
        g.stamp[target] = bfs_id;
        g.stamp[excluded] = bfs_id;
        g.list[(seq + 1) & 1][0] = target;
        g.counters[(seq + 1) % 3] = 1;
        g.counters[(seq + 2) % 3] = 0;
        g.counters[GCUT_GCNT_DEFICIT] = 0;
        for (int c = 0; c < 3; c++) {
            g.counters[GCUT_GCNT_MSIZE0 + c] = 0;
            g.counters[GCUT_GCNT_HSIZE0 + c] = 0;
            g.counters[GCUT_GCNT_BFS_FOUND0 + c] = 0;
        }
    }
    grid.sync();
    if (deficits) {
        /* The deficient nodes join the first level beside the target
         * (whole blocks step together for warp_append). */
        for (int32_t base = blockIdx.x * blockDim.x; base < g.n; base += stride) {
            const int32_t v = base + threadIdx.x;
            const bool seed = v < g.n && v != g.source && v != g.sink &&
                              (long long)__ldcg((const unsigned long long *)&g.excess[v]) < 0;
            if (seed)
                g.stamp[v] = bfs_id;
            warp_append(seed, v, g.list[(seq + 1) & 1], &g.counters[(seq + 1) % 3]);
        }
        grid.sync();
    }
    /* read once, before any thread can leave the loop below and clear it */
    const unsigned long long must = stop ? __ldcg(&g.counters[GCUT_GCNT_BFS_ACTIVE]) : 0;
    unsigned long long labelled = 0;
    bool early = false;
    seq++;
    int32_t level = 1;
    for (;; level++, seq++) {
        /* level - 1's count of active nodes labelled: written only in
         * level - 1, so every thread reads the same and takes the same
         * branch; the count of level + 1 was read in level - 2, before the
         * last barrier. Read once a block, with the size (the same line: a
         * second read a warp cost up to 40 % more relabel time on
         * genrmf). */
        unsigned long long *const last = &g.counters[GCUT_GCNT_BFS_FOUND0 + (level + 2) % 3];
        /* Plain BFS: a warp's first frontier node read with the size, not
         * after it: one round trip less a level (3-8 % off the relabel time
         * on RLG and genrmf). Past the size it is a stale entry nobody uses:
         * the list was written before the last barrier and is rewritten
         * only after the next one. */
        const unsigned long long first = warp * G + group;
        int32_t first_x = -1;
        if (!g.bfs_team && first < (unsigned long long)g.n)
            first_x = __ldcg(&g.list[seq & 1][first]);
        if (threadIdx.x == 0) {
            size_slot[0] = step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0);
            size_slot[1] = must ? __ldcg(last) : 0;
        }
        __syncthreads();
        const unsigned long long size = size_slot[0], got = size_slot[1];
        unsigned long long *found = NULL;
        if (must) {
            labelled += got;
            found = &g.counters[GCUT_GCNT_BFS_FOUND0 + level % 3];
            if (tid == 0)
                g.counters[GCUT_GCNT_BFS_FOUND0 + (level + 1) % 3] = 0;
            if (labelled >= must) {
                early = true;
                break;
            }
        }
        if (size == 0 || level > g.n + 1)
            break;
        const int32_t *in = g.list[seq & 1];
        int32_t *out = g.list[(seq + 1) & 1];
        unsigned long long *out_size = &g.counters[(seq + 1) % 3];
        if (g.bfs_team && size * 64 <= (unsigned long long)stride) {
            /* A frontier this small would leave most warps idle while each
             * of its nodes walks its arcs W at a time (acyclic-dense: the
             * sink's n - 1 in-arcs): a team of whole warps per node, as
             * many lanes as the grid has for it. */
            unsigned long long lanes = 64;
            while (lanes * 2 * size <= (unsigned long long)stride)
                lanes <<= 1;
            const unsigned long long i = (unsigned long long)tid / lanes;
            if (i < size) {
                const int32_t x = __ldcg(&in[i]);
                const int32_t deg = g.out_start[x + 1] - g.out_start[x] +
                                    (phase2 ? 0 : g.in_start[x + 1] - g.in_start[x]);
                bfs_node(g, x, phase2, (int32_t)(tid % lanes), (int32_t)lanes,
                         (int)((deg + (int32_t)lanes - 1) / (int32_t)lanes), bfs_id, level, out,
                         out_size, found);
            }
        } else if (g.bfs_team) {
            for (unsigned long long base = warp * G; base < size; base += nwarps * G) {
                const unsigned long long i = base + group;
                const int32_t x = i < size ? __ldcg(&in[i]) : -1;
                const int32_t deg = x < 0 ? 0
                                          : g.out_start[x + 1] - g.out_start[x] +
                                                (phase2 ? 0 : g.in_start[x + 1] - g.in_start[x]);
                bfs_node(g, x, phase2, glane, W, warp_max((deg + W - 1) / W), bfs_id, level,
                         out, out_size, found);
            }
        } else {
            for (unsigned long long base = warp * G; base < size; base += nwarps * G) {
                const unsigned long long i = base + group;
                const int32_t x = i >= size ? -1 : i == first ? first_x : __ldcg(&in[i]);
                int32_t os = 0, is = 0, dout = 0, din = 0;
                if (x >= 0) {
                    os = g.out_start[x];
                    is = g.in_start[x];
                    dout = g.out_start[x + 1] - os;
                    din = phase2 ? 0 : g.in_start[x + 1] - is;
                }
                const int trips = warp_max((din + dout + W - 1) / W);
                for (int trip = 0; trip < trips; trip++) {
                    const int32_t t = trip * W + glane;
                    bool want = false;
                    int32_t u = 0;
                    if (t < din + dout) {
                        bool room;
                        if (t < din) {
                            const int32_t a = g.in_arc[is + t];
                            u = g.in_tail[is + t];
                            room = g.flow[a] < g.out_cap[a];
                        } else {
                            const int32_t k = os + t - din;
                            u = g.out_head[k];
                            room = g.flow[k] > 0;
                        }
                        const int32_t seen = __ldcg(&g.stamp[u]);
                        const int32_t old_h = room && found ? __ldcg(&g.height[u]) : 0;
                        if (room && seen != bfs_id && atomicMin(&g.stamp[u], bfs_id) != bfs_id) {
                            g.height[u] = level;
                            want = true;
                            if (old_h == PENDING_ACTIVE)
                                atomicAdd(found, 1ull);
                        }
                    }
                    warp_append(want, u, out, out_size);
                }
            }
        }
        grid.sync();
    }
    /* The active nodes, to the worklist of their class; whole blocks step
     * together so that warp_append sees full warps. */
    if (tid == 0) {
        g.counters[(seq + 2) % 3] = 0;
        g.counters[GCUT_GCNT_SEQ] = seq + 1;
        g.counters[GCUT_GCNT_BFS_ACTIVE] = 0;
        g.counters[GCUT_GCNT_LEVELS] += (unsigned long long)level;
        g.counters[GCUT_GCNT_DEPTH] = (unsigned long long)level;
        /* no push runs during a relabel: the value as of its heights */
        g.counters[GCUT_GCNT_SINK] = (unsigned long long)__ldcg(
            (const unsigned long long *)&g.excess[g.sink]);
    }
    if (deficits) {
        /* Minus the deficits left, for the value: flow counted into the
         * sink that no longer arrives (zeroed at the start, before the
         * first barrier). */
        for (int32_t v = tid; v < g.n; v += stride) {
            const long long e = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
            if (e < 0 && v != g.source && v != g.sink)
                atomicAdd(&g.counters[GCUT_GCNT_DEFICIT], (unsigned long long)-e);
        }
    }
    for (int32_t base = blockIdx.x * blockDim.x; base < g.n; base += stride) {
        const int32_t v = base + threadIdx.x;
        int32_t h = v < g.n ? __ldcg(&g.height[v]) : hmax;
        if (h < 0) {
            /* not reached: distance above the level it stopped at, or none;
             * with keep_heights a height above that level stays (it keeps
             * the chains graph_certify.cu checks; where a batch's new
             * targets made it too high, only speed rests on it) */
            h = early ? level : hmax;
            if (early && g.keep_heights) {
                const int32_t kept = __ldcg(&g.cert[v]);
                h = kept > h ? kept : h;
            }
            g.height[v] = h;
        }
        if (!phase2 && v < g.n)
            g.side[v] = h >= g.n; /* side_kernel's rule, on the same heights */
        const bool want = v < g.n && v != g.source && v != g.sink &&
                          (long long)__ldcg((const unsigned long long *)&g.excess[v]) > 0 &&
                          h < hmax;
        const int c = want && g.split ? g.dclass[v] : 0;
        warp_append(want && c == 0, v, g.list[(seq + 1) & 1], &g.counters[(seq + 1) % 3]);
        if (g.split) {
            warp_append(want && c == 1, v, g.mlist[(seq + 1) & 1],
                        &g.counters[GCUT_GCNT_MSIZE0 + (seq + 1) % 3]);
            warp_append(want && c == 2, v, g.hlist[(seq + 1) & 1],
                        &g.counters[GCUT_GCNT_HSIZE0 + (seq + 1) % 3]);
        }
    }
}

extern "C" cudaError_t gcut__graph_relabel_launch(const gcut__dgraph *g, int32_t target,
                                                   int32_t excluded, int32_t hmax,
                                                   int32_t bfs_id, int phase2, int fresh,
                                                   cudaStream_t stream)
{
    gcut__dgraph copy = *g;
    void *args[] = {&copy, &target, &excluded, &hmax, &bfs_id, &phase2, &fresh};
    return cudaLaunchCooperativeKernel((const void *)relabel_kernel,
                                       g->split ? g->split_blocks : g->coop_blocks, THREADS, args,
                                       0, stream);
}

extern "C" int gcut__graph_relabel_occupancy(int per_sm)
{
    int k = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, (const void *)relabel_kernel, THREADS,
                                                      0) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return k < per_sm ? k : per_sm;
}
