/* Worklist push-relabel with the work split by degree (ECL-MaxFlow's
 * thread / warp / block split: VanAusdal and Burtscher,
 * "An Efficient Push-Relabel Implementation for Max-Flow Computations on
 * GPUs"): a node of the light worklist gets
 * one thread (its at most GCUT_LIGHT_MAX arcs' residuals and heights in
 * registers), a node of the medium worklist a warp, a node of the heavy one
 * a block (the thousands of arcs of an acyclic-dense node take one warp
 * dozens of trips per scan: 3x faster there). Nodes join the worklist of
 * their degree class (dclass), so a step still needs one barrier. Each node
 * discharges up to `rounds` times: lift to one above its lowest residual
 * neighbour if it is not above it, push to that neighbour, then to every
 * other lower one in entry order while excess is left. Among equal heights
 * the first entry wins, forward arcs first: on networks without
 * anti-parallel pairs (Washington RLG, acyclic-dense) a reverse entry only
 * sends excess back a level, and this order halves RLG's time; the host
 * runs this push on such graphs (src/gpu/graph_gpu.cu).
 *
 * Two instances. The light one (RLG-like graphs, most nodes light): a
 * light node's later rounds reuse its first round's loads, its loops end at
 * its degree, its loads go out eight entries at a time (a light hop is
 * bound by its loads' round trips), its appends take one atomic a warp,
 * and the light worklist is dealt a lane per warp round the grid (a warp's
 * lanes run in step, so one that chases longer holds the others back).
 * Chase: after a light node's discharge its thread goes on to the light
 * node its lowest push went to, up to `chase` nodes a step, unless another
 * thread has taken that node in this step (claim): excess moves several
 * arcs a step, so fewer steps and fewer global relabels. The dense one
 * (mostly heavy nodes, acyclic-dense): a heavy node's block stages its
 * arcs once and scans them once a round (heavy_node); built for 3 blocks an
 * SM so that a step's heavy nodes take one pass; its few light nodes get a
 * warp each. Each measured against the other choices in bench/results.
 *
 * Concurrency as in graph_push_warp.cu: only v's thread, warp or block
 * takes excess from v or raises its height, so a residual v read can only
 * have grown when v pushes on it; exactness rests on the host's final exact
 * BFS. */
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <stdint.h>

#include "graph_device.cuh"

namespace cg = cooperative_groups;

#define NO_HEIGHT 0x7fffffff

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
 * next ones are a grid's threads or warps further. The items go round
 * every warp of the grid first, a lane at a time, so that a short worklist
 * (RLG: ~5 k light nodes against 67 k threads) leaves a few lanes in each
 * warp (40 % off RLG long's push steps). A permutation of the threads
 * (warps), so every item is still taken once. */
static __device__ __forceinline__ unsigned long long first_lane()
{
    const unsigned long long lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    return lane * (gridDim.x * (blockDim.x >> 5)) + wib * gridDim.x + blockIdx.x;
}

static __device__ __forceinline__ unsigned long long first_warp()
{
    return (unsigned long long)(threadIdx.x >> 5) * gridDim.x + blockIdx.x;
}

/* Put u on the next step's worklist of its class unless it is there. The
 * lanes here that append to one class share one atomic: the size counter
 * is the step's one hot address. */
static __device__ __forceinline__ void activate(const gcut__dgraph &g, int32_t u,
                                                unsigned long long seq)
{
    if (u == g.source || u == g.sink || atomicMax(&g.stamp[u], (int32_t)seq) == (int32_t)seq)
        return;
    const int c = g.dclass[u];
    int32_t *list = class_list(g, c, seq + 1);
    unsigned long long *size = class_size(g, c, seq + 1);
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
                                                  long long *sent, unsigned *pushed_to)
{
    const long long d = *ex < *room ? *ex : *room;
    *room -= (int32_t)d;
    int32_t u = 0, k = 0;
    arc_ends(g, os, dout, is, t, &u, &k);
    push_on(g, t < dout, k, u, d);
    *ex -= d;
    *sent += d;
    *pushed_to |= 1u << t;
}

/* Append nb[t] for the set bits t of `fresh`, and `self` unless < 0, to
 * the next step's light worklist (they are stamped already): one atomic
 * for all the lanes here. */
template <int L>
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
        if (!(fresh >> t))
            break;
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

/* A light node's residuals and heights: entries CH at a time, each stage's
 * loads issued for all CH before any is used (arcs and heads, then flows
 * and heights), so a node of degree 6 waits for two round trips with CH =
 * 8, where an entry at a time (arc_at, then its head's height) waits for
 * two per entry. Entries at or
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
 * registers (the loops unroll with constant bounds and end at its degree),
 * its header from `pre` if loaded already, else loaded here. Later rounds
 * reuse the first round's residuals (less what v pushed) and heights:
 * residuals out of v only grow under others, so the pushes stay within
 * capacity; stale heights only cost speed. With `chase`, the head of the
 * last push to the lowest neighbour, if a light node other than s and t,
 * is returned instead of put on the worklist: the caller follows the
 * excess there in this step. Else -1. */
template <int L>
static __device__ __forceinline__ int32_t light_node(const gcut__dgraph &g, int32_t v,
                                                     const light_head *pre, int32_t hmax,
                                                     int phase2, int rounds, bool chase,
                                                     unsigned long long seq,
                                                     unsigned long long *lifts)
{
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
    int32_t res[L], hh[L];
    unsigned pushed_to = 0;
    long long sent = 0;
    int follow = -1; /* entry of the last push to the lowest neighbour */
    for (int r = 0; r < rounds; r++) {
        unsigned long long key = NO_ARC; /* (height << 32 | entry) of the lowest */
        int best = -1;
        int32_t best_h = NO_HEIGHT;
        if (r == 0)
            load_light<L, 8>(g, os, dout, is, deg, res, hh);
#pragma unroll
        for (int t = 0; t < L; t++) {
            if (t >= deg)
                break;
            if (res[t] > 0 && hh[t] < best_h) {
                best_h = hh[t];
                best = t;
            }
        }
        if (best >= 0)
            key = (unsigned long long)(uint32_t)best_h << 32 | (uint32_t)best;
        if (!lift_to_lowest(g, v, key, hmax, true, &h, lifts))
            break;
        /* the lowest first, then every other lower one */
#pragma unroll
        for (int t = 0; t < L; t++) {
            if (t >= deg)
                break;
            if (t == best && hh[t] < h) {
                light_push(g, os, dout, is, t, &res[t], &ex, &sent, &pushed_to);
                follow = t;
            }
        }
#pragma unroll
        for (int t = 0; t < L; t++) {
            if (t >= deg || ex == 0)
                break;
            if (t < deg && t != best && ex > 0 && res[t] > 0 && hh[t] < h)
                light_push(g, os, dout, is, t, &res[t], &ex, &sent, &pushed_to);
        }
        if (ex == 0)
            break;
    }
    if (sent)
        add_excess(g.excess, v, -sent);
    /* The appends after all pushes, so that their atomics overlap: every
     * stamp atomic first, then one append for all light nodes. */
    int32_t next = -1;
    int32_t nb[L];
    unsigned fresh = 0;
#pragma unroll
    for (int t = 0; t < L; t++) {
        if (!(pushed_to >> t))
            break;
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
    const bool self = ex > 0 && h < hmax && atomicMax(&g.stamp[v], (int32_t)seq) != (int32_t)seq;
    append_light<L>(g, nb, fresh, self ? v : -1, seq);
    return next;
}

/* A light worklist entry: v, then with chase the nodes its excess went to,
 * up to g.chase of them; a node another thread has already taken in this
 * step goes on the worklist instead (it got excess). The entry's header
 * loads go out with its claim, not after it (wasted on an entry a chase
 * has taken): one round trip less an entry, 3-5 % off RLG's push time. */
template <int L>
static __device__ __forceinline__ void light_entry(const gcut__dgraph &g, int32_t v, int32_t hmax,
                                                   int phase2, int rounds, unsigned long long seq,
                                                   unsigned long long *lifts)
{
    light_head hd;
    load_head(g, v, phase2, &hd);
    if (g.chase && !claim(g, v, seq))
        return; /* a chase took it in this step */
    for (int hop = 0; v >= 0; hop++) {
        const int32_t next = light_node<L>(g, v, hop == 0 ? &hd : nullptr, hmax, phase2, rounds,
                                           hop < g.chase, seq, lifts);
        v = -1;
        if (next >= 0) {
            if (claim(g, next, seq))
                v = next;
            else
                activate(g, next, seq);
        }
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
                                                  unsigned long long *lifts, long long *sh)
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
            const unsigned long long mine =
                (unsigned long long)(uint32_t)__ldcg(&g.height[u]) << 32 | (uint32_t)t;
            if (room > 0 && mine < key)
                key = mine;
        }
        key = group_min_key<GS>(key, sh);
        const int32_t best = key == NO_ARC ? -1 : (int32_t)(uint32_t)key;
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
                }
            }
            d = group_broadcast<GS>(d, best % GS, sh);
            ex -= d;
            sent += d;
        }
        /* then every other lower neighbour in entry order */
        for (int32_t c = 0; c < deg && ex > 0; c += GS) {
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

/* One heavy node, the block (the dense instance): group_node<THREADS> in one pass
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
                                                  unsigned long long *lifts, long long *sh)
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
                (unsigned long long)(uint32_t)stage_h[mine + t - first] << 32 | (uint32_t)t;
            if (room > 0 && code < key) {
                key = code;
                key_res = room;
            }
        }
        key = block_min_with(key, &key_res, sh);
        const int32_t best = key == NO_ARC ? -1 : (int32_t)(uint32_t)key;
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

/* Up to `steps` push steps (graph_kernels.h); each step takes the heavy
 * nodes a block each, the medium a warp each, the light a thread each (a
 * warp each in the dense instance, which has no registers for the thread
 * per node), then one grid barrier. The light instance is built for two
 * blocks an SM (128 registers a thread: built for four, spilling, RLG's
 * push steps took 50-58 % longer); the dense one for three, so that
 * acyclic-dense's ~325 heavy nodes a step take one pass of its blocks
 * (12-14 % off its push time). */
template <bool DENSE>
static __global__ __launch_bounds__(THREADS, DENSE ? 3 : 2) void split_push_kernel(
    gcut__dgraph g, int steps, int32_t hmax, int phase2, int rounds)
{
    constexpr int L = GCUT_LIGHT_MAX;
    __shared__ long long sh[2 * (THREADS / 32) + 1];
    __shared__ unsigned long long size_slot[3];
    cg::grid_group grid = cg::this_grid();
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const unsigned long long nwarps = stride / 32;
    unsigned long long seq = __ldcg(&g.counters[GCUT_GCNT_SEQ]);
    unsigned long long lifts = 0;
    int step = 0;
    for (; step < steps; step++, seq++) {
        /* as block_step_size (graph_device.cuh), the three at once */
        if (threadIdx.x == 0) {
            size_slot[0] = step_size(&g.counters[GCUT_GCNT_SIZE0], seq, tid == 0);
            size_slot[1] = step_size(&g.counters[GCUT_GCNT_MSIZE0], seq, tid == 0);
            size_slot[2] = step_size(&g.counters[GCUT_GCNT_HSIZE0], seq, tid == 0);
        }
        __syncthreads();
        const unsigned long long nl = size_slot[0], nm = size_slot[1], nh = size_slot[2];
        if (nl + nm + nh == 0)
            break;
        for (unsigned long long i = blockIdx.x; i < nh; i += gridDim.x) {
            const int32_t v = __ldcg(&g.hlist[seq & 1][i]);
            bool done = false;
            if constexpr (DENSE)
                done = heavy_node(g, v, hmax, phase2, rounds, seq, &lifts, sh);
            if (!done)
                group_node<THREADS>(g, v, hmax, phase2, rounds, seq, &lifts, sh);
        }
        for (unsigned long long i = first_warp(); i < nm; i += nwarps)
            group_node<32>(g, __ldcg(&g.mlist[seq & 1][i]), hmax, phase2, rounds, seq, &lifts,
                           sh);
        if constexpr (DENSE) {
            for (unsigned long long i = first_warp(); i < nl; i += nwarps)
                group_node<32>(g, __ldcg(&g.list[seq & 1][i]), hmax, phase2, rounds, seq,
                               &lifts, sh);
        } else {
            for (unsigned long long i = first_lane(); i < nl; i += stride)
                light_entry<L>(g, __ldcg(&g.list[seq & 1][i]), hmax, phase2, rounds, seq,
                               &lifts);
        }
        grid.sync();
    }
    if (tid == 0)
        record_push_launch(g, seq, step);
    if (lifts)
        atomicAdd(&g.counters[GCUT_GCNT_LIFTS], lifts);
}

extern "C" cudaError_t gcut__graph_split_push_launch(const gcut__dgraph *g, int steps,
                                                     int32_t hmax, int phase2, int rounds,
                                                     cudaStream_t stream)
{
    gcut__dgraph copy = *g;
    void *args[] = {&copy, &steps, &hmax, &phase2, &rounds};
    if (g->dense)
        return cudaLaunchCooperativeKernel((const void *)split_push_kernel<true>,
                                           g->dense_blocks > 0 ? g->dense_blocks
                                                               : g->split_blocks,
                                           THREADS, args, 0, stream);
    return cudaLaunchCooperativeKernel((const void *)split_push_kernel<false>, g->split_blocks,
                                       THREADS, args, 0, stream);
}

/* Blocks per SM of `kernel`, at most `per_sm` (0 on error). */
static int resident(const void *kernel, int per_sm)
{
    int k = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, kernel, THREADS, 0) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return k < per_sm ? k : per_sm;
}

static int sm_count(int device)
{
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return sms;
}

/* The light instance and the relabel share a grid (the fewest blocks an SM
 * that both keep resident); the dense instance has its own. */
extern "C" int gcut__graph_split_blocks(int device, int per_sm)
{
    return sm_count(device) *
           gcut__graph_relabel_occupancy(resident((const void *)split_push_kernel<false>, per_sm));
}

extern "C" int gcut__graph_dense_blocks(int device, int per_sm)
{
    return sm_count(device) * resident((const void *)split_push_kernel<true>, per_sm);
}
