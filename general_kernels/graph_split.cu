/* Worklist push-relabel with the work split by degree (ECL-MaxFlow's
 * thread / warp / block split, seed 003): a node of the light worklist gets
 * one thread (its at most 12 arcs' residuals and heights in registers), a
 * node of the medium worklist a warp, a node of the heavy one a block (the
 * thousands of arcs of an acyclic-dense node take one warp dozens of
 * trips per scan: 3x faster there). Nodes join the worklist of their
 * degree class (dclass), so a step still needs one barrier. Each node
 * discharges up to `rounds` times: lift to one above its lowest residual
 * neighbour if it is not above it, push to that neighbour, then with
 * `spread` to every other lower one in entry order while excess is left.
 *
 * Which neighbour is "lowest" among equal heights decides the speed more
 * than the lanes do (bench/results/gpu_maxflow_NVIDIA_H100_80GB_HBM3.md):
 * forward arcs first (order 0) halves the time on Washington RLG, whose
 * reverse entries only lead back a level, and triples it on genrmf, whose
 * frames have arcs both ways; there the arc code (order 1, as in
 * graph_worklist.cu) is right, and the warp push is faster still. The host
 * picks (graph_gpu.cu, adapt).
 *
 * Also the global relabel with a frontier node's in- and out-arcs in one
 * scan and its loads issued together: a BFS level is a chain of dependent
 * loads, and this shortens it (20-30 % off the relabel time). A solve's
 * first relabel can start the solve (start_solve, lean 1024) and every
 * phase-1 relabel writes the cut side and the sink's excess (lean 2048),
 * so that a small graph's solve pays no launches but its relabels and push
 * batches (round 11: ~75 -> ~38 us of fixed cost).
 *
 * Chase: after a light node's discharge its thread goes on to the light
 * node its lowest push went to, up to `chase` nodes a step, unless another
 * thread has taken that node in this step (claim): excess moves several
 * arcs a step, so fewer steps, and fewer global relabels, which the host
 * counts in steps. Lean: a light node's later rounds reuse its first
 * round's loads, and its appends take one atomic per warp (bits 1, 2); a
 * heavy node's block stages its arcs once and scans them once a round (bit
 * 4, heavy_node). A step costs the latency of its longest chain, so a
 * short chase (2) is what pays; and a warp's lanes run in step, so the
 * light worklist is dealt a lane per warp round the grid (first_lane).
 * A light hop is bound by its instructions and its loads' round trips
 * (round 7 on RLG long: a step 35 us, of which ~1 us is the barrier; Nsight
 * Compute: ~600 warp instructions a hop, 3.5 lanes active a warp): its
 * loops end at its degree (bit 8) and its loads go out eight entries at a
 * time (bits 256, 512, load_light), and an entry's header loads go out
 * with its claim (bit 16384). Where nodes are mostly heavy (acyclic-dense)
 * an instance built for 3 blocks an SM (bit 131072) takes the heavy list,
 * a block a node, in one pass where 2 blocks an SM took two.
 *
 * Tried and dropped (bench/results/gpu_maxflow_NVIDIA_H100_80GB_HBM3.md,
 * rounds 2-10; numbers there): BFS levels of a small frontier on one block
 * (RLG's levels are a whole RLG level, 512-2560 nodes, too many for one
 * SM); two BFS levels a barrier; the relabel on one block an SM; a BFS
 * frontier carrying its nodes' CSR bounds; a light node's append stages
 * batched, its chased node claimed before its appends, a step's first
 * light item read with the sizes (each spilled); a chase deadline (chase 4
 * or 8 while a step is under 18-24 us old: RLG long -2 to -5 %, RLG wide
 * 1536^2 and long 1280x2560 +12 to +19 %); a heavy node's pushes batched
 * (three round trips a round, not a push: acyclic-dense n = 2000 -7 %,
 * 4000 +1 to +2 %, and slower than 3 blocks an SM alone), its stage eight
 * entries a thread at a time (within noise), 4 blocks an SM (spills;
 * slower than 3); a long BFS's levels on one thread block cluster of 16
 * (round 12: an RLG level 4.4 us against 4.1, its scattered loads walked
 * by 16 SMs; genrmf 3-5 %, not worth a second BFS); a push phase as one
 * launch over a ring of active nodes with per-node locks, no step
 * barriers (round 13: RLG long 93 against 72 ms, the ring's hot counters
 * and fences cost more than the wait at the barrier).
 *
 * Concurrency as in graph_worklist.cu: only v's thread, warp or block takes
 * excess from v or raises its height, so a residual v read can only have
 * grown when v pushes on it; exactness rests on the host's final exact BFS. */
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <stdint.h>

#include "graph_device.cuh"

namespace cg = cooperative_groups;

#define NO_HEIGHT 0x7fffffff
/* The most arcs of a light node (registers a thread holds its arcs in). */
#define LIGHT_REGS 12

static __device__ __forceinline__ unsigned long long *class_size(const gcut__dgraph &g, int c,
                                                                  unsigned long long seq)
{
    const int base = c == 0 ? GCUT_GCNT_SIZE0 : c == 1 ? GCUT_GCNT_MSIZE0 : GCUT_GCNT_HSIZE0;
    return &g.counters[base + (int)(seq % 3)];
}

static __device__ __forceinline__ int32_t *class_list(const gcut__dgraph &g, int c,
                                                      unsigned long long seq)
{
    return c == 0 ? g.list[seq & 1] : c == 1 ? g.mlist[seq & 1] : g.hlist[seq & 1];
}

/* The worklist item a thread (lane) or a warp (warp) takes first; the
 * next ones are a grid's threads or warps further. With g.deal the items go
 * round every warp of the grid first, a lane at a time, so that a short
 * worklist (RLG: ~5 k light nodes against 67 k threads) leaves a few lanes
 * in each warp: a warp's lanes run in step, so one that chases or lifts
 * longer holds the others' next hop back (40 % off RLG long's push steps,
 * where dealing round the blocks took 22 % and whole warps round the
 * blocks 2 %: bench/results). A permutation of the threads (warps), so
 * every item is still taken once. */
static __device__ __forceinline__ unsigned long long first_lane(int deal)
{
    const unsigned long long lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    if (deal)
        return lane * (gridDim.x * (blockDim.x >> 5)) + wib * gridDim.x + blockIdx.x;
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ unsigned long long first_warp(int deal)
{
    if (deal)
        return (unsigned long long)(threadIdx.x >> 5) * gridDim.x + blockIdx.x;
    return ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
}

/* Put u on the next step's worklist of its class unless it is there.
 * With `aggregate`, the lanes here that append to one class share one
 * atomic: the size counter is the step's one hot address. */
static __device__ __forceinline__ void activate(const gcut__dgraph &g, int32_t u,
                                                unsigned long long seq)
{
    if (u == g.source || u == g.sink || atomicMax(&g.stamp[u], (int32_t)seq) == (int32_t)seq)
        return;
    const int c = g.dclass[u];
    int32_t *list = class_list(g, c, seq + 1);
    unsigned long long *size = class_size(g, c, seq + 1);
    if (!g.aggregate) {
        list[atomicAdd(size, 1ull)] = u;
        return;
    }
    const cg::coalesced_group here = cg::coalesced_threads();
    const cg::coalesced_group same = cg::labeled_partition(here, c);
    unsigned long long base = 0;
    if (same.thread_rank() == 0)
        base = atomicAdd(size, (unsigned long long)same.size());
    base = same.shfl(base, 0);
    list[base + same.thread_rank()] = u;
}

/* Entry t of v's residual arcs in scan order: forward arcs first (dout of
 * them, none in phase 2), then the reverse-CSR entries. Sets the neighbour
 * and the forward arc; returns the residual as read now. */
static __device__ __forceinline__ int32_t arc_at(const gcut__dgraph &g, int32_t os, int32_t dout,
                                                 int32_t is, int32_t t, int32_t *u, int32_t *k)
{
    if (t < dout) {
        *k = os + t;
        *u = g.out_head[*k];
        return g.out_cap[*k] - __ldcg(&g.flow[*k]);
    }
    const int32_t j = is + t - dout;
    *k = g.in_arc[j];
    *u = g.in_tail[j];
    return __ldcg(&g.flow[*k]);
}

/* The neighbour and forward arc of entry t (as arc_at, without the flow). */
static __device__ __forceinline__ void arc_ends(const gcut__dgraph &g, int32_t os, int32_t dout,
                                                int32_t is, int32_t t, int32_t *u, int32_t *k)
{
    if (t < dout) {
        *k = os + t;
        *u = g.out_head[*k];
    } else {
        *k = g.in_arc[is + t - dout];
        *u = g.in_tail[is + t - dout];
    }
}

/* The order among neighbours of equal height: with `order`, the arc code
 * of graph_worklist.cu (2k forward, 2j + 1 reverse entry; on the generated
 * families in_start[v] < out_start[v], so mostly reverse entries first);
 * else the scan order, forward arcs first (see the top). */
static __device__ __forceinline__ uint32_t tie_code(const gcut__dgraph &g, int32_t os,
                                                    int32_t dout, int32_t is, int32_t t)
{
    if (!g.order)
        return (uint32_t)t;
    return t < dout ? 2u * (uint32_t)(os + t) : 2u * (uint32_t)(is + t - dout) + 1u;
}

/* Entry t of a tie code (its inverse). */
static __device__ __forceinline__ int32_t tie_entry(const gcut__dgraph &g, int32_t os,
                                                    int32_t dout, int32_t is, uint32_t code)
{
    if (!g.order)
        return (int32_t)code;
    return code & 1 ? dout + (int32_t)(code >> 1) - is : (int32_t)(code >> 1) - os;
}

/* Move d units from v to u along entry t (forward arc or reverse entry). */
static __device__ __forceinline__ void push_on(const gcut__dgraph &g, bool forward, int32_t k,
                                               int32_t u, long long d)
{
    if (forward)
        atomicAdd(&g.flow[k], (int)d);
    else
        atomicSub(&g.flow[k], (int)d);
    add_excess(g.excess, u, d);
}

/* Push min(excess, room) along entry t of a light node. */
static __device__ __forceinline__ void light_push(const gcut__dgraph &g, int32_t os, int32_t dout,
                                                  int32_t is, int t, int32_t *room, long long *ex,
                                                  long long *sent, unsigned *pushed_to,
                                                  unsigned long long *pushes)
{
    const long long d = *ex < *room ? *ex : *room;
    *room -= (int32_t)d;
    int32_t u = 0, k = 0;
    arc_ends(g, os, dout, is, t, &u, &k);
    push_on(g, t < dout, k, u, d);
    *ex -= d;
    *sent += d;
    *pushed_to |= 1u << t;
    (*pushes)++;
}

/* Append nb[t] for the set bits t of `fresh`, and `self` unless < 0, to
 * the next step's light worklist (they are stamped already): one atomic
 * for all the lanes here. */
template <int L, bool BOUNDED>
static __device__ __forceinline__ void append_light(const gcut__dgraph &g, const int32_t *nb,
                                                    unsigned fresh, int32_t self,
                                                    unsigned long long seq)
{
    const unsigned cnt = (unsigned)__popc(fresh) + (self >= 0 ? 1u : 0u);
    if (!cnt)
        return;
    const cg::coalesced_group here = cg::coalesced_threads();
    const unsigned before = cg::exclusive_scan(here, cnt);
    const unsigned total = here.shfl(before + cnt, here.size() - 1);
    unsigned long long base = 0;
    if (here.thread_rank() == 0)
        base = atomicAdd(class_size(g, 0, seq + 1), (unsigned long long)total);
    base = here.shfl(base, 0) + before;
    int32_t *list = class_list(g, 0, seq + 1);
#pragma unroll
    for (int t = 0; t < L; t++) {
        if constexpr (BOUNDED) {
            if (!(fresh >> t))
                break;
        }
        if (fresh >> t & 1)
            list[base++] = nb[t];
    }
    if (self >= 0)
        list[base] = self;
}

/* Take v for push step seq: false when another thread has it. Only chase
 * needs this (a worklist holds a node once per step); it keeps one owner
 * per node and step, so the concurrency argument at the top still holds. */
static __device__ __forceinline__ bool claim(const gcut__dgraph &g, int32_t v,
                                             unsigned long long seq)
{
    const int32_t mark = (int32_t)seq + 1;
    return atomicMax(&g.claim[v], mark) < mark;
}

/* After a node's discharge by a group: what it sent leaves its excess,
 * and it stays on the worklist while it keeps excess below hmax. */
static __device__ __forceinline__ void settle(const gcut__dgraph &g, int32_t v, long long sent,
                                              long long ex, int32_t h, int32_t hmax,
                                              unsigned long long seq)
{
    if (sent)
        add_excess(g.excess, v, -sent);
    if (ex > 0 && h < hmax)
        activate(g, v, seq);
}

/* v's height after its group found the lowest residual neighbour (`key`,
 * NO_ARC if none): hmax when nothing residual leaves v (it cannot reach
 * the target), one above the lowest when v is not above it. `writer` (one
 * thread of the group) stores it and counts the lift. Returns false when v
 * is done for this step (height hmax). */
static __device__ __forceinline__ bool lift_to_lowest(const gcut__dgraph &g, int32_t v,
                                                      unsigned long long key, int32_t hmax,
                                                      bool writer, int32_t *h,
                                                      unsigned long long *lifts)
{
    if (key == NO_ARC) {
        *h = hmax;
        if (writer)
            g.height[v] = hmax;
        return false;
    }
    const int32_t low = (int32_t)(key >> 32);
    if (*h <= low) {
        *h = low + 1;
        if (writer) {
            g.height[v] = *h;
            (*lifts)++;
        }
        if (*h >= hmax)
            return false;
    }
    return true;
}

/* A light node's residuals and heights (lean bit 256, with bit 8): entries
 * CH at a time, each stage's loads issued for all CH before any is used
 * (arcs and heads, then flows and heights), so a node of degree 6 waits
 * for four round trips with CH = 4 (two with 8), where an entry at a time
 * (arc_at, then its head's height) waits for two per entry. Entries at or
 * past `deg` are left as they are; the rest get (residual, height), or
 * (0, NO_HEIGHT) where nothing is residual. */
template <int L, int CH>
static __device__ __forceinline__ void load_light(const gcut__dgraph &g, int32_t os, int32_t dout,
                                                  int32_t is, int32_t deg, int32_t *res,
                                                  int32_t *hh)
{
#pragma unroll
    for (int c = 0; c < L; c += CH) {
        if (c >= deg)
            break;
        int32_t u[CH], k[CH], fl[CH], cap[CH];
#pragma unroll
        for (int q = 0; q < CH; q++) {
            const int32_t t = c + q;
            u[q] = -1;
            k[q] = -1;
            fl[q] = 0;
            cap[q] = 0;
            if (t < dout) {
                u[q] = g.out_head[os + t];
                cap[q] = g.out_cap[os + t];
                fl[q] = __ldcg(&g.flow[os + t]);
            } else if (t < deg) {
                k[q] = g.in_arc[is + t - dout];
                u[q] = g.in_tail[is + t - dout];
            }
        }
        int32_t hu[CH];
#pragma unroll
        for (int q = 0; q < CH; q++) {
            if (k[q] >= 0)
                fl[q] = __ldcg(&g.flow[k[q]]);
            hu[q] = u[q] >= 0 ? __ldcg(&g.height[u[q]]) : NO_HEIGHT;
        }
#pragma unroll
        for (int q = 0; q < CH; q++) {
            const int32_t t = c + q;
            if (t < L && t < deg) {
                const int32_t room = t < dout ? cap[q] - fl[q] : fl[q];
                res[t] = room > 0 ? room : 0;
                hh[t] = room > 0 ? hu[q] : NO_HEIGHT;
            }
        }
    }
}

/* A light node's phases in SM cycles (profiling instances only). */
struct light_prof {
    unsigned long long hops, load, round, append, entry, entry_max, entries;
};

/* Lean bit of the light instance that loads an entry's header with its
 * claim (light_entry). */
#define LEAN_ENTRY_AHEAD 16384

/* What a light node's discharge starts from: its excess, height, and where
 * its arcs are (independent loads: one round trip). */
struct light_head {
    long long ex;
    int32_t h, os, is, dout, deg;
};

static __device__ __forceinline__ void load_head(const gcut__dgraph &g, int32_t v, int phase2,
                                                 light_head *hd)
{
    hd->ex = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
    hd->h = __ldcg(&g.height[v]);
    hd->os = g.out_start[v];
    hd->is = g.in_start[v];
    hd->dout = phase2 ? 0 : g.out_start[v + 1] - hd->os;
    hd->deg = hd->dout + g.in_start[v + 1] - hd->is;
}

/* One node, one thread; its at most L arcs' residuals and heights in
 * registers (the loops unroll with constant bounds), its header from `pre`
 * if loaded already (lean 16384), else loaded here. With `chase`, the head
 * of the last push to the lowest neighbour, if a light node other than s
 * and t, is returned instead of put on the worklist: the caller follows the
 * excess there in this step. Else -1. */
template <int L, int LEAN, bool PROF>
static __device__ __forceinline__ int32_t light_node(const gcut__dgraph &g, int32_t v,
                                                     const light_head *pre, int32_t hmax,
                                                     int phase2, int rounds, bool chase,
                                                     unsigned long long seq,
                                                     unsigned long long *lifts,
                                                     unsigned long long *pushes, light_prof *lp)
{
    long long c0 = 0, c1 = 0;
    if constexpr (PROF)
        c0 = clock64();
    light_head hd;
    if (pre)
        hd = *pre;
    else
        load_head(g, v, phase2, &hd);
    long long ex = hd.ex;
    int32_t h = hd.h;
    const int32_t os = hd.os, is = hd.is, dout = hd.dout, deg = hd.deg;
    if (ex <= 0 || h >= hmax)
        return -1;
    /* lean & 8 (tie order 0 only): every loop ends at v's degree, and the
     * lowest is found by height alone (the first of equal heights is the
     * least tie code in scan order): a light hop was ~600 warp instructions,
     * many of them on the L - deg slots that v does not fill (RLG: deg ~6);
     * bounded, RLG's push steps took 15-24 % less time (round 7). */
    constexpr bool BOUNDED = (LEAN & 8) != 0;
    constexpr bool CHUNKED = BOUNDED && (LEAN & 256) != 0;
    int32_t res[L], hh[L];
    unsigned pushed_to = 0;
    long long sent = 0;
    int follow = -1; /* entry of the last push to the lowest neighbour */
    for (int r = 0; r < rounds; r++) {
        unsigned long long key = NO_ARC; /* (height << 32 | tie code) of the lowest */
        int best = -1;
        int32_t best_h = NO_HEIGHT;
        /* lean & 1: later rounds reuse the first round's residuals (less what
         * v pushed) and heights; residuals out of v only grow under others,
         * so the pushes stay within capacity; stale heights only cost speed */
        const bool load = r == 0 || !(LEAN & 1);
        if constexpr (CHUNKED) {
            if (load)
                load_light<L, (LEAN & 512) ? 8 : 4>(g, os, dout, is, deg, res, hh);
        }
#pragma unroll
        for (int t = 0; t < L; t++) {
            if constexpr (BOUNDED) {
                if (t >= deg)
                    break;
            }
            if (!CHUNKED && load) {
                res[t] = 0;
                hh[t] = NO_HEIGHT;
                if (t < deg) {
                    int32_t u = 0, k = 0;
                    const int32_t room = arc_at(g, os, dout, is, t, &u, &k);
                    const int32_t hu = __ldcg(&g.height[u]);
                    if (room > 0) {
                        res[t] = room;
                        hh[t] = hu;
                    }
                }
            }
            if constexpr (BOUNDED) {
                if (res[t] > 0 && hh[t] < best_h) {
                    best_h = hh[t];
                    best = t;
                }
            } else if (res[t] > 0) {
                const unsigned long long mine =
                    (unsigned long long)(uint32_t)hh[t] << 32 | tie_code(g, os, dout, is, t);
                if (mine < key) {
                    key = mine;
                    best = t;
                }
            }
        }
        if constexpr (BOUNDED) {
            if (best >= 0)
                key = (unsigned long long)(uint32_t)best_h << 32 | (uint32_t)best;
        }
        if constexpr (PROF) {
            if (r == 0) {
                c1 = clock64();
                lp->hops++;
                lp->load += (unsigned long long)(c1 - c0);
            }
        }
        if (!lift_to_lowest(g, v, key, hmax, true, &h, lifts))
            break;
        /* the lowest first; with spread then every other lower one */
#pragma unroll
        for (int t = 0; t < L; t++) {
            if constexpr (BOUNDED) {
                if (t >= deg)
                    break;
            }
            if (t == best && hh[t] < h) {
                light_push(g, os, dout, is, t, &res[t], &ex, &sent, &pushed_to, pushes);
                follow = t;
            }
        }
        if (g.spread) {
#pragma unroll
            for (int t = 0; t < L; t++) {
                if constexpr (BOUNDED) {
                    if (t >= deg || ex == 0)
                        break;
                }
                if (t < deg && t != best && ex > 0 && res[t] > 0 && hh[t] < h)
                    light_push(g, os, dout, is, t, &res[t], &ex, &sent, &pushed_to, pushes);
            }
        }
        if (ex == 0)
            break;
    }
    if (sent)
        add_excess(g.excess, v, -sent);
    if constexpr (PROF) {
        if (c1) {
            const long long c2 = clock64();
            lp->round += (unsigned long long)(c2 - c1);
            c1 = c2;
        }
    }
    /* The appends after all pushes, so that their atomics overlap. */
    int32_t next = -1;
    if constexpr ((LEAN & 2) != 0) {
        /* every stamp atomic first, then one append for all light nodes */
        int32_t nb[L];
        unsigned fresh = 0;
#pragma unroll
        for (int t = 0; t < L; t++) {
            if constexpr (BOUNDED) {
                if (!(pushed_to >> t))
                    break;
            }
            nb[t] = -1;
            if (pushed_to >> t & 1) {
                const int32_t u = t < dout ? g.out_head[os + t] : g.in_tail[is + t - dout];
                const bool light = u != g.source && u != g.sink && g.dclass[u] == 0;
                nb[t] = u;
                if (chase && t == follow && light)
                    next = u;
                else if (!light)
                    activate(g, u, seq);
                else if (atomicMax(&g.stamp[u], (int32_t)seq) != (int32_t)seq)
                    fresh |= 1u << t;
            }
        }
        const bool self =
            ex > 0 && h < hmax && atomicMax(&g.stamp[v], (int32_t)seq) != (int32_t)seq;
        append_light<L, BOUNDED>(g, nb, fresh, self ? v : -1, seq);
    } else {
#pragma unroll
        for (int t = 0; t < L; t++) {
            if constexpr (BOUNDED) {
                if (!(pushed_to >> t))
                    break;
            }
            if (pushed_to >> t & 1) {
                const int32_t u = t < dout ? g.out_head[os + t] : g.in_tail[is + t - dout];
                if (chase && t == follow && u != g.source && u != g.sink && g.dclass[u] == 0)
                    next = u;
                else
                    activate(g, u, seq);
            }
        }
        if (ex > 0 && h < hmax)
            activate(g, v, seq);
    }
    if constexpr (PROF) {
        if (c1)
            lp->append += (unsigned long long)(clock64() - c1);
    }
    return next;
}

/* A light worklist entry: v, then with chase the nodes its excess went to,
 * up to g.chase of them; a node another thread has already taken in this
 * step goes on the worklist instead (it got excess). */
template <int L, int LEAN, bool PROF>
static __device__ __forceinline__ void light_entry(const gcut__dgraph &g, int32_t v, int32_t hmax,
                                                   int phase2, int rounds, unsigned long long seq,
                                                   unsigned long long *lifts,
                                                   unsigned long long *pushes, light_prof *lp)
{
    long long c0 = 0;
    if constexpr (PROF)
        c0 = clock64();
    /* lean 16384: the entry's header loads go out with its claim, not
     * after it (wasted on an entry a chase has taken): one round trip less
     * an entry, 3-5 % off RLG's push time (round 8; and this instance
     * needs no spills, where the one without it spills ~100 B) */
    constexpr bool ENTRY_AHEAD = (LEAN & LEAN_ENTRY_AHEAD) != 0;
    light_head hd;
    if constexpr (ENTRY_AHEAD)
        load_head(g, v, phase2, &hd);
    if (g.chase && !claim(g, v, seq))
        return; /* a chase took it in this step */
    for (int hop = 0; v >= 0; hop++) {
        const light_head *pre = nullptr;
        if constexpr (ENTRY_AHEAD)
            pre = hop == 0 ? &hd : nullptr;
        const int32_t next = light_node<L, LEAN, PROF>(g, v, pre, hmax, phase2, rounds,
                                                       hop < g.chase, seq, lifts, pushes, lp);
        v = -1;
        if (next >= 0) {
            if (claim(g, next, seq))
                v = next;
            else
                activate(g, next, seq);
        }
    }
    if constexpr (PROF) {
        const unsigned long long c = (unsigned long long)(clock64() - c0);
        lp->entry += c;
        lp->entry_max = c > lp->entry_max ? c : lp->entry_max;
        lp->entries++;
    }
}

/* Minimum over a group of GS threads (a warp, or the block); sh holds
 * THREADS / 32 + 1 values. All threads of the group call it. */
template <int GS>
static __device__ __forceinline__ unsigned long long group_min_key(unsigned long long x,
                                                                   long long *sh)
{
    x = group_min<32>(x);
    if (GS == 32)
        return x;
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x >> 5] = (long long)x;
    __syncthreads();
    x = (unsigned long long)sh[0];
    for (int w = 1; w < GS / 32; w++)
        x = (unsigned long long)sh[w] < x ? (unsigned long long)sh[w] : x;
    return x;
}

/* Thread src's x to the whole group. */
template <int GS>
static __device__ __forceinline__ long long group_broadcast(long long x, int src, long long *sh)
{
    if (GS == 32)
        return __shfl_sync(FULL_MASK, x, src);
    __syncthreads();
    if ((int)threadIdx.x == src)
        sh[0] = x;
    __syncthreads();
    return sh[0];
}

/* Exclusive prefix sum over a group in thread order; *total = the sum. */
template <int GS>
static __device__ __forceinline__ long long group_exclusive_sum(long long x, long long *total,
                                                                long long *sh)
{
    const int lane = threadIdx.x & 31;
    long long incl = x;
    for (int off = 1; off < 32; off <<= 1) {
        const long long y = __shfl_up_sync(FULL_MASK, incl, off);
        if (lane >= off)
            incl += y;
    }
    if (GS == 32) {
        *total = __shfl_sync(FULL_MASK, incl, 31);
        return incl - x;
    }
    const int w = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 31)
        sh[w] = incl;
    __syncthreads();
    long long before = 0, all = 0;
    for (int i = 0; i < GS / 32; i++) {
        before += i < w ? sh[i] : 0;
        all += sh[i];
    }
    *total = all;
    return before + incl - x;
}

/* One node, a group of GS threads (a warp or the block; all call it with
 * the same v): the lowest residual neighbour by a reduction, then the
 * pushes to lower neighbours in arc order, split by a prefix sum of their
 * residuals so that the excess is never overdrawn. */
template <int GS>
static __device__ __forceinline__ void group_node(const gcut__dgraph &g, int32_t v, int32_t hmax,
                                                  int phase2, int rounds, unsigned long long seq,
                                                  unsigned long long *lifts,
                                                  unsigned long long *pushes, long long *sh)
{
    const int rank = GS == 32 ? (int)(threadIdx.x & 31) : (int)threadIdx.x;
    /* excess grows under us: one read, shared by the group */
    long long ex;
    if (GS == 32) {
        ex = rank == 0 ? (long long)__ldcg((const unsigned long long *)&g.excess[v]) : 0;
        ex = __shfl_sync(FULL_MASK, ex, 0);
    } else {
        __syncthreads();
        if (rank == 0)
            sh[GS / 32] = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
        __syncthreads();
        ex = sh[GS / 32];
    }
    int32_t h = __ldcg(&g.height[v]);
    const int32_t os = g.out_start[v], is = g.in_start[v];
    const int32_t dout = phase2 ? 0 : g.out_start[v + 1] - os;
    const int32_t deg = dout + g.in_start[v + 1] - is;
    if (ex <= 0 || h >= hmax)
        return;
    long long sent = 0;
    for (int r = 0; r < rounds; r++) {
        /* (height << 32 | entry) of the lowest residual neighbour */
        unsigned long long key = NO_ARC;
        for (int32_t t = rank; t < deg; t += GS) {
            int32_t u = 0, k = 0;
            const int32_t room = arc_at(g, os, dout, is, t, &u, &k);
            const unsigned long long mine = (unsigned long long)(uint32_t)__ldcg(&g.height[u])
                                                << 32 |
                                            tie_code(g, os, dout, is, t);
            if (room > 0 && mine < key)
                key = mine;
        }
        key = group_min_key<GS>(key, sh);
        const int32_t best = key == NO_ARC ? -1 : tie_entry(g, os, dout, is, (uint32_t)key);
        if (!lift_to_lowest(g, v, key, hmax, rank == 0, &h, lifts))
            break;
        {
            /* the lowest first, by the thread that holds its entry */
            long long d = 0;
            if (rank == best % GS) {
                int32_t u = 0, k = 0;
                const int32_t room = arc_at(g, os, dout, is, best, &u, &k);
                if (room > 0 && __ldcg(&g.height[u]) < h) {
                    d = ex < room ? ex : room;
                    push_on(g, best < dout, k, u, d);
                    activate(g, u, seq);
                    (*pushes)++;
                }
            }
            d = group_broadcast<GS>(d, best % GS, sh);
            ex -= d;
            sent += d;
        }
        /* with spread, every other lower neighbour in entry order */
        for (int32_t c = 0; g.spread && c < deg && ex > 0; c += GS) {
            const int32_t t = c + rank;
            int32_t u = 0, k = 0, room = 0;
            if (t < deg && t != best) {
                room = arc_at(g, os, dout, is, t, &u, &k);
                if (room <= 0 || __ldcg(&g.height[u]) >= h)
                    room = 0;
            }
            long long total = 0;
            const long long before = group_exclusive_sum<GS>(room, &total, sh);
            long long d = ex - before;
            d = d < 0 ? 0 : d < room ? d : room;
            if (d > 0) {
                push_on(g, t < dout, k, u, d);
                activate(g, u, seq);
                (*pushes)++;
            }
            const long long used = total < ex ? total : ex;
            ex -= used;
            sent += used;
        }
        if (ex == 0)
            break;
    }
    if (rank == 0)
        settle(g, v, sent, ex, h, hmax, seq);
}

/* The least key over the block, with the residual its thread paired with
 * it (keys are unique but for NO_ARC). sh holds 2 * (THREADS / 32) + 1. */
static __device__ __forceinline__ unsigned long long block_min_with(unsigned long long key,
                                                                    int32_t *res, long long *sh)
{
    for (int off = 16; off > 0; off >>= 1) {
        const unsigned long long other = __shfl_xor_sync(FULL_MASK, key, off);
        const int32_t other_res = __shfl_xor_sync(FULL_MASK, *res, off);
        if (other < key) {
            key = other;
            *res = other_res;
        }
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0) {
        sh[threadIdx.x >> 5] = (long long)key;
        sh[THREADS / 32 + 1 + (threadIdx.x >> 5)] = *res;
    }
    __syncthreads();
    key = (unsigned long long)sh[0];
    *res = (int32_t)sh[THREADS / 32 + 1];
    for (int w = 1; w < THREADS / 32; w++) {
        if ((unsigned long long)sh[w] < key) {
            key = (unsigned long long)sh[w];
            *res = (int32_t)sh[THREADS / 32 + 1 + w];
        }
    }
    return key;
}

/* Entries of a heavy node a thread holds in the stage (so heavy_node takes
 * nodes of up to 4096 arcs: acyclic-dense n = 4000 has 3999), and the
 * stride of a thread's slots (one more: no bank conflicts). */
#define STAGE_ENTRIES 16
#define STAGE_STRIDE (STAGE_ENTRIES + 1)

/* Lean bit 131072 (with 4): an instance built for 3 blocks an SM instead
 * of 2, launched on its own grid (gcut__graph_wide_blocks), its light
 * nodes a warp each (it has no registers for the thread per node; it runs
 * where few nodes are light): acyclic-dense has ~325 heavy nodes a step
 * against 264 blocks at 2 an SM, so a quarter of the blocks took two
 * nodes in a row and the step waited for them (round 10: push time -12 %
 * on n = 2000, -14 % on 4000). */
#define LEAN_HEAVY_WIDE 131072

/* One heavy node, the block (lean bit 4): group_node<THREADS> in one pass
 * over the arcs instead of one per round and chunk. The residuals and
 * heights are read once, coalesced, into shared memory, where thread r owns
 * the contiguous entries [r S, r S + S): a prefix sum in thread order is
 * then one in entry order, so a single block scan hands the excess out as
 * group_node's chunks do (the lowest neighbour first, then every lower one
 * in entry order; thread order sends it to the wrong ones, 8x slower on
 * acyclic-dense). Later rounds reuse the staged values: v's own pushes are
 * the only ones that shrink them, and stale heights only cost speed.
 * False, with nothing done, for a node of more entries than the stage. */
static __device__ __forceinline__ bool heavy_node(const gcut__dgraph &g, int32_t v, int32_t hmax,
                                                  int phase2, int rounds, unsigned long long seq,
                                                  unsigned long long *lifts,
                                                  unsigned long long *pushes, long long *sh)
{
    __shared__ int32_t stage_res[THREADS * STAGE_STRIDE], stage_h[THREADS * STAGE_STRIDE];
    const int rank = (int)threadIdx.x;
    const int32_t os = g.out_start[v], is = g.in_start[v];
    const int32_t dout = phase2 ? 0 : g.out_start[v + 1] - os;
    const int32_t deg = dout + g.in_start[v + 1] - is;
    if (deg > THREADS * STAGE_ENTRIES)
        return false;
    const int32_t per = (deg + THREADS - 1) / THREADS; /* entries a thread owns */
    __syncthreads(); /* the last node's stage and sh are read */
    if (rank == 0)
        sh[THREADS / 32] = (long long)__ldcg((const unsigned long long *)&g.excess[v]);
    int32_t h = __ldcg(&g.height[v]);
    for (int32_t base = 0; base < deg; base += 4 * THREADS) {
        /* four entries a thread at a time, their loads in flight together */
        int32_t room[4], hu[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int32_t t = base + q * THREADS + rank;
            room[q] = 0;
            hu[q] = NO_HEIGHT;
            if (t < deg) {
                int32_t u = 0, k = 0;
                room[q] = arc_at(g, os, dout, is, t, &u, &k);
                hu[q] = __ldcg(&g.height[u]);
            }
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int32_t t = base + q * THREADS + rank;
            if (t < deg) {
                const int32_t slot = t / per * STAGE_STRIDE + t % per;
                stage_res[slot] = room[q] > 0 ? room[q] : 0;
                stage_h[slot] = hu[q];
            }
        }
    }
    __syncthreads();
    long long ex = sh[THREADS / 32];
    if (ex <= 0 || h >= hmax)
        return true;
    const int32_t first = rank * per, mine = rank * STAGE_STRIDE;
    const int32_t last = first + per < deg ? first + per : deg;
    long long sent = 0;
    for (int r = 0; r < rounds; r++) {
        unsigned long long key = NO_ARC;
        int32_t key_res = 0;
        for (int32_t t = first; t < last; t++) {
            const int32_t room = stage_res[mine + t - first];
            const unsigned long long code =
                (unsigned long long)(uint32_t)stage_h[mine + t - first] << 32 |
                tie_code(g, os, dout, is, t);
            if (room > 0 && code < key) {
                key = code;
                key_res = room;
            }
        }
        key = block_min_with(key, &key_res, sh);
        const int32_t best = key == NO_ARC ? -1 : tie_entry(g, os, dout, is, (uint32_t)key);
        if (!lift_to_lowest(g, v, key, hmax, rank == 0, &h, lifts))
            break;
        /* the lowest takes what it can, the other lower ones the rest in
         * entry order: my slice starts `before` into theirs */
        const long long to_best = ex < key_res ? ex : key_res;
        long long lower = 0;
        for (int32_t t = first; t < last; t++)
            if (t != best && stage_res[mine + t - first] > 0 &&
                stage_h[mine + t - first] < h)
                lower += stage_res[mine + t - first];
        long long total = 0;
        const long long before = group_exclusive_sum<THREADS>(lower, &total, sh);
        long long left = ex - to_best - before;
        for (int32_t t = first; t < last; t++) {
            const int32_t slot = mine + t - first;
            long long d = 0;
            if (t == best)
                d = to_best;
            else if (left > 0 && stage_res[slot] > 0 && stage_h[slot] < h) {
                d = left < stage_res[slot] ? left : stage_res[slot];
                left -= d;
            }
            if (d > 0) {
                int32_t u = 0, k = 0;
                arc_ends(g, os, dout, is, t, &u, &k);
                push_on(g, t < dout, k, u, d);
                activate(g, u, seq);
                stage_res[slot] -= (int32_t)d;
                (*pushes)++;
            }
        }
        const long long used = to_best + (total < ex - to_best ? total : ex - to_best);
        ex -= used;
        sent += used;
        if (ex == 0)
            break;
    }
    if (rank == 0)
        settle(g, v, sent, ex, h, hmax, seq);
    return true;
}

/* Blocks an SM a split push instance is built for (launch bounds). */
#define SPLIT_PER_SM(LEAN) ((LEAN & LEAN_HEAVY_WIDE) ? 3 : 2)

/* Up to `steps` push steps (graph_kernels.h); each step takes the heavy
 * nodes a block each, the medium a warp each, the light a thread each,
 * then one grid barrier. Two blocks an SM (128 registers a thread): built
 * for four (64, spilling), RLG's push steps took 50-58 % longer. */
template <int LEAN, bool PROF>
static __global__ __launch_bounds__(THREADS, SPLIT_PER_SM(LEAN)) void split_push_kernel(
    gcut__dgraph g, int steps, int32_t hmax, int phase2, int rounds)
{
    constexpr int L = LIGHT_REGS;
    __shared__ long long sh[2 * (THREADS / 32) + 1];
    __shared__ unsigned long long size_slot[3];
    cg::grid_group grid = cg::this_grid();
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const unsigned long long nwarps = stride / 32;
    unsigned long long seq = __ldcg(&g.counters[GCUT_GCNT_SEQ]);
    unsigned long long lifts = 0, pushes = 0, items = 0;
    const unsigned long long t0 = tid == 0 ? clock_ns() : 0;
    light_prof lp = {};
    prof_clock pc = {};
    unsigned long long block_start = 0, block_work = 0;
    int step = 0;
    for (; step < steps; step++, seq++) {
        if constexpr (PROF) {
            if (tid == 0)
                prof_top(g, &pc, (unsigned long long)step);
            if (threadIdx.x == 0)
                block_start = clock_ns();
        }
        unsigned long long nl, nm, nh;
        if (g.shared_sizes) {
            /* as block_step_size (graph_device.cuh), the three at once */
            if (threadIdx.x == 0) {
                size_slot[0] = step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0);
                size_slot[1] = step_size(&g.counters[GCUT_GCNT_MSIZE0], seq, tid == 0);
                size_slot[2] = step_size(&g.counters[GCUT_GCNT_HSIZE0], seq, tid == 0);
            }
            __syncthreads();
            nl = size_slot[0];
            nm = size_slot[1];
            nh = size_slot[2];
        } else {
            nl = step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0);
            nm = step_size(&g.counters[GCUT_GCNT_MSIZE0], seq, tid == 0);
            nh = step_size(&g.counters[GCUT_GCNT_HSIZE0], seq, tid == 0);
        }
        if (nl + nm + nh == 0)
            break;
        items += nl + nm + nh;
        for (unsigned long long i = blockIdx.x; i < nh; i += gridDim.x) {
            const int32_t v = __ldcg(&g.hlist[seq & 1][i]);
            bool done = false;
            if constexpr ((LEAN & 4) != 0)
                done = heavy_node(g, v, hmax, phase2, rounds, seq, &lifts, &pushes, sh);
            if (!done)
                group_node<THREADS>(g, v, hmax, phase2, rounds, seq, &lifts, &pushes, sh);
        }
        for (unsigned long long i = first_warp(g.deal); i < nm; i += nwarps)
            group_node<32>(g, __ldcg(&g.mlist[seq & 1][i]), hmax, phase2, rounds, seq, &lifts,
                           &pushes, sh);
        if constexpr ((LEAN & LEAN_HEAVY_WIDE) != 0) {
            /* the heavy-wide instance has no registers for the thread per
             * node: its (few) light nodes get a warp, as medium ones */
            for (unsigned long long i = first_warp(g.deal); i < nl; i += nwarps)
                group_node<32>(g, __ldcg(&g.list[seq & 1][i]), hmax, phase2, rounds, seq,
                               &lifts, &pushes, sh);
        } else {
            for (unsigned long long i = first_lane(g.deal); i < nl; i += stride)
                light_entry<L, LEAN, PROF>(g, __ldcg(&g.list[seq & 1][i]), hmax, phase2, rounds,
                                           seq, &lifts, &pushes, &lp);
        }
        if constexpr (PROF)
            prof_block_done(g, (unsigned long long)step, block_start, &block_work);
        grid.sync();
    }
    if constexpr (PROF) {
        if (tid == 0) {
            if (step == steps)
                prof_top(g, &pc, (unsigned long long)step);
            atomicAdd(&g.prof[GCUT_GPROF_STEPS], pc.count);
            atomicAdd(&g.prof[GCUT_GPROF_STEP_WORK], pc.work);
            atomicAdd(&g.prof[GCUT_GPROF_STEP_BAR], pc.bar);
        }
        if (threadIdx.x == 0 && block_work)
            atomicAdd(&g.prof[GCUT_GPROF_BLOCK_WORK], block_work);
        if (lp.entries) {
            atomicAdd(&g.prof[GCUT_GPROF_HOPS], lp.hops);
            atomicAdd(&g.prof[GCUT_GPROF_LOAD_CYC], lp.load);
            atomicAdd(&g.prof[GCUT_GPROF_ROUND_CYC], lp.round);
            atomicAdd(&g.prof[GCUT_GPROF_APPEND_CYC], lp.append);
            atomicAdd(&g.prof[GCUT_GPROF_ENTRY_CYC], lp.entry);
            atomicMax(&g.prof[GCUT_GPROF_ENTRY_MAX], lp.entry_max);
            atomicAdd(&g.prof[GCUT_GPROF_ENTRIES], lp.entries);
        }
    }
    if (tid == 0)
        record_push_launch(g, seq, step, t0, items);
    if (lifts)
        atomicAdd(&g.counters[GCUT_GCNT_LIFTS], lifts);
    if (pushes)
        atomicAdd(&g.counters[GCUT_GCNT_PUSHES], pushes);
}

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

/* A solve's start inside its first relabel (`fresh`, lean bit 1024): what
 * the four memsets and the init and class launches did, in one launch.
 * Exact by construction: every array is written as those launches wrote it,
 * the zeroing finishes at a grid barrier before the source's arcs add to
 * any excess, and the relabel's own barrier orders the saturated arcs
 * before the BFS reads a residual. All threads of the grid call it. */
static __device__ __forceinline__ void start_solve(const gcut__dgraph &g, int split,
                                                   cg::grid_group &grid)
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
        if (split) {
            const int32_t deg =
                g.out_start[v + 1] - g.out_start[v] + g.in_start[v + 1] - g.in_start[v];
            g.dclass[v] = deg <= g.light_max ? 0 : g.heavy_min > 0 && deg >= g.heavy_min ? 2 : 1;
        }
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
 * x -> u (forward CSR: flow on it makes u -> x residual). W lanes per
 * frontier node. */
template <int W>
static __global__ __launch_bounds__(THREADS) void relabel_kernel(gcut__dgraph g, int32_t target,
                                                                  int32_t excluded, int32_t hmax,
                                                                  int32_t bfs_id, int phase2,
                                                                  int split, int fresh)
{
    constexpr int G = 32 / W;
    __shared__ unsigned long long size_slot[2];
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31, glane = lane % W, group = lane / W;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const unsigned long long warp = tid / 32, nwarps = stride / 32;
    if (fresh)
        start_solve(g, split, grid);
    const unsigned long long t0 = tid == 0 ? clock_ns() : 0;
    unsigned long long seq = fresh ? 0 : __ldcg(&g.counters[GCUT_GCNT_SEQ]);
    /* bfs_stop (not in a solve's first relabel, whose old heights mean
     * nothing): the BFS ends at the first level by which every active node
     * below hmax has its distance D; nodes below hmax it has not reached get
     * D + 1 (valid: one with a residual arc to a node of distance < D would
     * have been reached), nodes at hmax keep it (cut off earlier; only a
     * full BFS relabels them). A BFS with nothing to label, or that cannot
     * reach an active node, runs to the end, so the relabel that ends a
     * phase (nothing active left) is always exact. */
    const bool stop = g.bfs_stop && bfs_id != -1;
    int active = 0;
    for (int32_t v = tid; v < g.n; v += stride) {
        int32_t h = v == target ? 0 : hmax;
        if (stop && v != target && v != excluded && __ldcg(&g.height[v]) < hmax) {
            const bool act = v != g.source && v != g.sink &&
                             (long long)__ldcg((const unsigned long long *)&g.excess[v]) > 0;
            h = act ? PENDING_ACTIVE : PENDING;
            active += act;
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
        for (int c = 0; c < 3; c++) {
            g.counters[GCUT_GCNT_MSIZE0 + c] = 0;
            g.counters[GCUT_GCNT_HSIZE0 + c] = 0;
            g.counters[GCUT_GCNT_BFS_FOUND0 + c] = 0;
        }
    }
    grid.sync();
    /* read once, before any thread can leave the loop below and clear it */
    const unsigned long long must = stop ? __ldcg(&g.counters[GCUT_GCNT_BFS_ACTIVE]) : 0;
    unsigned long long labelled = 0;
    bool early = false;
    seq++;
    int32_t level = 1;
    prof_clock pc = {};
    unsigned long long block_start = 0, block_work = 0;
    for (;; level++, seq++) {
        if (g.prof) {
            if (tid == 0)
                prof_top(g, &pc, (unsigned long long)(level - 1));
            if (threadIdx.x == 0)
                block_start = clock_ns();
        }
        /* level - 1's count of active nodes labelled: written only in
         * level - 1, so every thread reads the same and takes the same
         * branch; the count of level + 1 was read in level - 2, before the
         * last barrier. With shared_sizes read once a block, with the size
         * (the same line: a second read a warp cost up to 40 % more
         * relabel time on genrmf). */
        unsigned long long *const last = &g.counters[GCUT_GCNT_BFS_FOUND0 + (level + 2) % 3];
        /* bfs_ahead (plain BFS): a warp's first frontier node read with the
         * size, not after it: one round trip less a level (round 8: 3-8 %
         * off the relabel time on RLG and genrmf in one call, within 1 % in
         * the other). Past the size it is a stale entry nobody uses: the
         * list was written before the last barrier and is rewritten only
         * after the next one. */
        const unsigned long long first = warp * G + group;
        int32_t first_x = -1;
        if (g.bfs_ahead && !g.bfs_team && first < (unsigned long long)g.n)
            first_x = __ldcg(&g.list[seq & 1][first]);
        unsigned long long size, got = 0;
        if (g.shared_sizes) {
            if (threadIdx.x == 0) {
                size_slot[0] = step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0);
                size_slot[1] = must ? __ldcg(last) : 0;
            }
            __syncthreads();
            size = size_slot[0];
            got = size_slot[1];
        } else {
            size = step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0);
            got = must ? __ldcg(last) : 0;
        }
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
                const int32_t x = i >= size                      ? -1
                                  : g.bfs_ahead && i == first ? first_x
                                                              : __ldcg(&in[i]);
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
        if (g.prof)
            prof_block_done(g, (unsigned long long)(level - 1), block_start, &block_work);
        grid.sync();
    }
    if (g.prof && tid == 0) {
        atomicAdd(&g.prof[GCUT_GPROF_LEVELS], pc.count);
        atomicAdd(&g.prof[GCUT_GPROF_LEVEL_WORK], pc.work);
        atomicAdd(&g.prof[GCUT_GPROF_LEVEL_BAR], pc.bar);
    }
    /* The active nodes, to the worklist of their class; whole blocks step
     * together so that warp_append sees full warps. */
    if (tid == 0) {
        g.counters[(seq + 2) % 3] = 0;
        g.counters[GCUT_GCNT_SEQ] = seq + 1;
        g.counters[GCUT_GCNT_LEVELS] += (unsigned long long)level;
        g.counters[GCUT_GCNT_BFS_NS] += clock_ns() - t0;
        g.counters[GCUT_GCNT_BFS_ACTIVE] = 0;
        /* no push runs during a relabel: the value as of its heights */
        g.counters[GCUT_GCNT_SINK] = (unsigned long long)__ldcg(
            (const unsigned long long *)&g.excess[g.sink]);
    }
    for (int32_t base = blockIdx.x * blockDim.x; base < g.n; base += stride) {
        const int32_t v = base + threadIdx.x;
        int32_t h = v < g.n ? __ldcg(&g.height[v]) : hmax;
        if (h < 0) {
            /* not reached: distance above the level it stopped at, or none */
            h = early ? level : hmax;
            g.height[v] = h;
        }
        if (g.side_ahead && !phase2 && v < g.n)
            g.side[v] = h >= g.n; /* side_kernel's rule, on the same heights */
        const bool want = v < g.n && v != g.source && v != g.sink &&
                          (long long)__ldcg((const unsigned long long *)&g.excess[v]) > 0 &&
                          h < hmax;
        const int c = want && split ? g.dclass[v] : 0;
        warp_append(want && c == 0, v, g.list[(seq + 1) & 1], &g.counters[(seq + 1) % 3]);
        if (split) {
            warp_append(want && c == 1, v, g.mlist[(seq + 1) & 1],
                        &g.counters[GCUT_GCNT_MSIZE0 + (seq + 1) % 3]);
            warp_append(want && c == 2, v, g.hlist[(seq + 1) & 1],
                        &g.counters[GCUT_GCNT_HSIZE0 + (seq + 1) % 3]);
        }
    }
}

static __global__ __launch_bounds__(THREADS) void class_kernel(gcut__dgraph g)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n;
         v += gridDim.x * blockDim.x) {
        const int32_t deg =
            g.out_start[v + 1] - g.out_start[v] + g.in_start[v + 1] - g.in_start[v];
        g.dclass[v] = deg <= g.light_max ? 0 : g.heavy_min > 0 && deg >= g.heavy_min ? 2 : 1;
    }
}

extern "C" cudaError_t gcut__graph_class_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    class_kernel<<<g->blocks, THREADS, 0, stream>>>(*g);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_relabel_launch(const gcut__dgraph *g, int32_t target,
                                                   int32_t excluded, int32_t hmax,
                                                   int32_t bfs_id, int phase2, int split,
                                                   int fresh, cudaStream_t stream)
{
    gcut__dgraph copy = *g;
    void *args[] = {&copy, &target, &excluded, &hmax, &bfs_id, &phase2, &split, &fresh};
    const void *k = g->group >= 32   ? (const void *)relabel_kernel<32>
                    : g->group >= 16 ? (const void *)relabel_kernel<16>
                    : g->group >= 8  ? (const void *)relabel_kernel<8>
                                     : (const void *)relabel_kernel<4>;
    return cudaLaunchCooperativeKernel(k, g->light_max > 0 ? g->split_blocks : g->coop_blocks,
                                       THREADS, args, 0, stream);
}

/* The split push kernel for the lean bits (one instance each, so that no
 * variant pays for another's registers or shared memory). */
static const void *split_push_pick(int lean)
{
    static const void *const kernels[8] = {
        (const void *)split_push_kernel<0, false>, (const void *)split_push_kernel<1, false>,
        (const void *)split_push_kernel<2, false>, (const void *)split_push_kernel<3, false>,
        (const void *)split_push_kernel<4, false>, (const void *)split_push_kernel<5, false>,
        (const void *)split_push_kernel<6, false>, (const void *)split_push_kernel<7, false>};
    return kernels[lean & 7];
}

/* The instances of the light nodes' bounded loops (lean bit 8, with lean 3
 * and tie order 0 only; else the bit does nothing), of the entry's header
 * loaded with its claim (bit 16384, on the eight-at-a-time loads; not in
 * profiling runs) and the profiling ones (g.prof, lean 3: RLG's). */
#define BOUNDED_LEAN (3 | 8)
#define CHUNKED_LEAN (3 | 8 | 256)
#define CHUNK8_LEAN (3 | 8 | 256 | 512)
#define ENTRY_LEAN (CHUNK8_LEAN | LEAN_ENTRY_AHEAD)

#define HEAVY_WIDE_LEAN (4 | LEAN_HEAVY_WIDE)

static const void *split_push_choose(const gcut__dgraph *g)
{
    if ((g->lean & 7) == 4 && (g->lean & LEAN_HEAVY_WIDE) && !g->prof)
        return (const void *)split_push_kernel<HEAVY_WIDE_LEAN, false>;
    const bool bounded = (g->lean & 15) == BOUNDED_LEAN && !g->order;
    const bool chunked = bounded && (g->lean & 256);
    if (g->prof && (g->lean & 7) == 3)
        return chunked ? (const void *)split_push_kernel<CHUNKED_LEAN, true>
               : bounded ? (const void *)split_push_kernel<BOUNDED_LEAN, true>
                         : (const void *)split_push_kernel<3, true>;
    if (chunked && (g->lean & 512) && (g->lean & LEAN_ENTRY_AHEAD) && !g->prof)
        return (const void *)split_push_kernel<ENTRY_LEAN, false>;
    if (chunked && (g->lean & 512))
        return g->prof ? (const void *)split_push_kernel<CHUNK8_LEAN, true>
                       : (const void *)split_push_kernel<CHUNK8_LEAN, false>;
    return chunked ? (const void *)split_push_kernel<CHUNKED_LEAN, false>
           : bounded ? (const void *)split_push_kernel<BOUNDED_LEAN, false>
                     : split_push_pick(g->lean);
}

extern "C" cudaError_t gcut__graph_split_push_launch(const gcut__dgraph *g, int steps,
                                                     int32_t hmax, int phase2, int rounds,
                                                     cudaStream_t stream)
{
    gcut__dgraph copy = *g;
    void *args[] = {&copy, &steps, &hmax, &phase2, &rounds};
    const void *k = split_push_choose(g);
    const bool wide = k == (const void *)split_push_kernel<HEAVY_WIDE_LEAN, false>;
    return cudaLaunchCooperativeKernel(k, wide && g->wide_blocks > 0 ? g->wide_blocks
                                                                     : g->split_blocks,
                                       THREADS, args, 0, stream);
}

/* The fewest blocks of THREADS per SM, at most `per_sm`, that each of the
 * n kernels keeps resident (0 on error). */
static int least_resident(const void *const *kernels, int n, int per_sm)
{
    for (int i = 0; i < n; i++) {
        int k = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, kernels[i], THREADS, 0) !=
            cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        per_sm = k < per_sm ? k : per_sm;
    }
    return per_sm;
}

extern "C" int gcut__graph_relabel_occupancy(int per_sm)
{
    const void *kernels[] = {(const void *)relabel_kernel<32>, (const void *)relabel_kernel<16>,
                             (const void *)relabel_kernel<8>, (const void *)relabel_kernel<4>};
    return least_resident(kernels, 4, per_sm);
}

/* Blocks of the heavy-wide instance's launches (lean bit 131072): as many
 * per SM (at most `per_sm`, and 3 by its launch bounds) as it keeps
 * resident; 0 on error. */
extern "C" int gcut__graph_wide_blocks(int device, int per_sm)
{
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    const void *wide[1] = {(const void *)split_push_kernel<HEAVY_WIDE_LEAN, false>};
    return sms * least_resident(wide, 1, per_sm);
}

/* Blocks of the split push's launches: the fewest per SM (at most `per_sm`)
 * that every kernel here can keep resident, on every SM. */
extern "C" int gcut__graph_split_blocks(int device, int per_sm)
{
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    const void *kernels[16];
    for (int i = 0; i < 8; i++)
        kernels[i] = split_push_pick(i);
    kernels[8] = (const void *)split_push_kernel<3, true>;
    kernels[9] = (const void *)split_push_kernel<BOUNDED_LEAN, false>;
    kernels[10] = (const void *)split_push_kernel<BOUNDED_LEAN, true>;
    kernels[11] = (const void *)split_push_kernel<CHUNKED_LEAN, false>;
    kernels[12] = (const void *)split_push_kernel<CHUNKED_LEAN, true>;
    kernels[13] = (const void *)split_push_kernel<CHUNK8_LEAN, false>;
    kernels[14] = (const void *)split_push_kernel<CHUNK8_LEAN, true>;
    kernels[15] = (const void *)split_push_kernel<ENTRY_LEAN, false>;
    return sms * gcut__graph_relabel_occupancy(least_resident(kernels, 16, per_sm));
}
