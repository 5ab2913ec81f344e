/* One pyramid level's windowed assignment on the GPU, exact, with its proof.
 *
 * The problem (src/vision/flow_match.c): row p (a pixel of frame 0) takes a
 * pixel q of frame 1 in its window at cost(p, q), or its own occlusion
 * dummy (object n + p) at the occlusion cost; every row is assigned, an
 * object at most once. n rows, 2n objects: an asymmetric assignment.
 *
 * Solved by the forward/reverse auction with eps-scaling for asymmetric
 * problems (Bertsekas and Castanon 1992): costs scaled by S = 3n + 1 (the
 * scale gcut_assign_verify uses for a rectangular problem); per phase, a
 * forward auction until every row holds an object, then reverse steps until
 * no free object keeps a positive price (a free object lowers its price just
 * enough to take the row that gains most from it; that row's old object is
 * freed). eps is divided by alpha per phase. After a phase every row is
 * within eps of its best and free objects have price 0; with u[r] = min over
 * r's arcs of S cost + price and v = -price the duality gap is the rows'
 * slacks summed. It is computed on the device after every phase, and once it
 * is below S the assignment is optimal (gcut.h's proof, checked again by
 * gcut_assign_verify in the checks) and the phases left return at once;
 * at eps = 1 it is at most n < S, so the schedule always ends proven.
 *
 * A new phase keeps each row that is within the new eps of its best on its
 * object (about half of them on RubberWhale, those that hold their best
 * outright); only the others bid again.
 *
 * Both auctions are asynchronous, one warp carrying one bidder at a time,
 * its lanes scanning the row's arcs (or the object's rows) at once, so a
 * step costs one round of loads and a warp reduction, not one load an arc.
 * A phase lasts as long as its longest chain of steps (measured: the
 * kernels are their one-warp tails), so a step keeps its dependent round
 * trips to memory to two:
 * - forward: an object's price and owner share one 64-bit word, a bid is one
 *   compare-and-swap that succeeds only on the price it was computed from;
 *   a bid that displaces an owner goes on with that row. Prices only rise
 *   during it, so a second-best value read earlier is still a lower bound
 *   and the row is eps-happy when it lands.
 * - reverse: a free object with a positive price is claimed by one warp
 *   (owner CLAIMED); a row's state is one 64-bit word (its value, scale
 *   cost + price of what it holds, and its arc's index), taken by one
 *   compare-and-swap on the word the gains were computed from; the freed
 *   object is claimed by the same warp, which goes on with it.
 * Each chain has a step cap: a stuck auction ends with a flag, never a hang. */
#include <cub/device/device_scan.cuh>

#include "flow_kernels.h"
#include "gcut.h"

/* Steps one warp may take in one chain before it gives up (a flag the
 * host turns into an error, never a hang): some seconds of one warp's
 * work. A sequential run (tests/flow_gpu_emu), where each chain runs to its
 * end before the next starts, needs up to a few million on binary noise;
 * RubberWhale stays under a million. */
#define CHAIN_CAP (1 << 24)

/* Lanes that scan one bid's arcs (or one object's rows) together: a warp.
 * The CPU emulation (tests/flow_gpu_emu) runs the kernels with one. */
#ifndef FLOW_LANES
#define FLOW_LANES 32
#endif
#define FULL_MASK 0xffffffffu

/* After each phase from a level's tighten_from-th on (2: after the first
 * the assignment is rarely optimal yet), prices are tightened
 * (tighten_kernel) in up to TIGHTEN_ROUNDS rounds of TIGHTEN_SWEEPS sweeps,
 * the proof after each round. Emulated on RubberWhale (sweeps in place or
 * Jacobi alike): 25 -> 14 phases, the phases' longest chains summed forward
 * 11.5 k -> 10.0 k and reverse 18.8 k -> 4.1 k. Measured on an H100:
 * RubberWhale 66.6 -> 36.7 ms, the 640x480 pair 114.0 -> 63.7 (25 -> 15
 * phases, reverse kernels 72.6 -> 15.0 ms; the sweeps and their proofs
 * 10.8 ms, 9.5 of them at the finest level: bench/results/flow_h100.md).
 * A sweep reads columns from the row's window and words with plain loads
 * (row_least): the 640x480 pair 66.6 -> 54.6 ms. Ending a phase's rounds at
 * one that does not halve the gap (13 -> 9 rounds on RubberWhale, emulated)
 * left higher prices and more reverse steps: slower on three of the four
 * pairs, not taken. */
#ifndef TIGHTEN_SWEEPS /* the emulation may set these */
#define TIGHTEN_SWEEPS 4
#endif
#ifndef TIGHTEN_ROUNDS
#define TIGHTEN_ROUNDS 4
#endif

/* The eps the schedule is laid out to end on (eps falls by alpha each phase
 * and reaches it exactly; below it only if the proof does not hold yet).
 * After a phase the duality gap is about 0.4 n eps (RubberWhale, every level,
 * emulated), below the scale 3n + 1 for eps up to about 7, so the proof
 * usually holds at 6 and the phases at eps < 6 are not needed. */
#ifndef FLOW_EPS_END /* the emulation may set it */
#define FLOW_EPS_END 6
#endif

/* Counts for the CPU emulation's sequential runs (tests/flow_gpu_emu with
 * EMU_TRACE=1): bids, reverse steps and the longest chain of each phase. */
#ifdef FLOW_ASSIGN_TRACE
static long long trace_bids, trace_rev, trace_chain;
#define TRACE(x) x
#else
#define TRACE(x)
#endif

/* Chains at least this long are counted in the per-phase statistics (bench
 * only: GCUT_FLOW_AUCTION_STATS, src/gpu/flow_gpu.cu); shorter ones would
 * only add atomics. */
#define CHAIN_STAT_MIN 8

static unsigned blocks_for(long long count) { return (unsigned)((count + 255) / 256); }

static __device__ __forceinline__ unsigned long long load_word(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

static __device__ __forceinline__ void store_word(unsigned long long *p, unsigned long long v)
{
    *(volatile unsigned long long *)p = v;
}

/* The window's centre for pixel p: p + round(prior_p). */
static __device__ __forceinline__ void window_centre(const float *prior, int w, int x, int y,
                                                     int *cx, int *cy)
{
    *cx = x, *cy = y;
    if (prior) {
        *cx += (int)lrintf(prior[2 * ((size_t)y * w + x)]);
        *cy += (int)lrintf(prior[2 * ((size_t)y * w + x) + 1]);
    }
}

static __device__ __forceinline__ void window_bounds(int c, int r, int size, int *lo, int *hi)
{
    *lo = c - r < 0 ? 0 : c - r;
    *hi = c + r >= size ? size - 1 : c + r;
}

/* One thread a pixel: counters cleared. */
static __global__ void count_init_kernel(gcut__flow_dassign a)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q > a.n)
        return;
    a.tcount[q] = 0;
    if (q < a.n)
        a.fill[q] = 0;
    else
        a.count[q] = 0;
}

/* One thread a row: its window and dummy; one more row for each pixel of
 * the window's transpose. */
static __global__ void count_kernel(gcut__flow_dassign a, const float *__restrict__ prior)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.n)
        return;
    int x = p % a.w, y = p / a.w, cx, cy, x0, x1, y0, y1;
    window_centre(prior, a.w, x, y, &cx, &cy);
    window_bounds(cx, a.radius, a.w, &x0, &x1);
    window_bounds(cy, a.radius, a.h, &y0, &y1);
    int inside = 0;
    for (int qy = y0; qy <= y1; qy++)
        for (int qx = x0; qx <= x1; qx++) {
            atomicAdd(&a.tcount[qy * a.w + qx], 1);
            inside++;
        }
    a.count[p] = inside + 1;
}

/* One thread a pixel: its rows past the transpose's fixed (2R+1)^2. */
static __global__ void over_count_kernel(gcut__flow_dassign a)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    const int side2 = (2 * a.radius + 1) * (2 * a.radius + 1);
    if (q < a.n)
        a.tcount[q] = a.tcount[q] > side2 ? a.tcount[q] - side2 : 0;
}

/* One thread: the arc total into the scalars. */
static __global__ void totals_kernel(gcut__flow_dassign a)
{
    a.scalars[GCUT_FLOW_S_ARCS] = a.row_ptr[a.n];
    a.scalars[GCUT_FLOW_S_ROW_ARCS] = a.row_ptr[a.n];
}

/* Mean absolute grey difference over the patch, as patch_sad in
 * src/vision/flow_match.c. */
static __device__ int32_t patch_sad(const float *i0, const float *i1, int w, int h, int x, int y,
                                    int qx, int qy, int half)
{
    float sum = 0;
    for (int dy = -half; dy <= half; dy++) {
        int ya = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
        int yb = qy + dy < 0 ? 0 : qy + dy >= h ? h - 1 : qy + dy;
        for (int dx = -half; dx <= half; dx++) {
            int xa = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            int xb = qx + dx < 0 ? 0 : qx + dx >= w ? w - 1 : qx + dx;
            sum += fabsf(i0[(size_t)ya * w + xa] - i1[(size_t)yb * w + xb]);
        }
    }
    int side = 2 * half + 1;
    return (int32_t)lrintf(__fdiv_rn(__fmul_rn(sum, 255.0f), (float)(side * side)));
}

/* One thread a row: its arcs in the CPU's order (window row by row, then
 * the dummy), and each window arc into its pixel's transpose (a fixed
 * stride of (2R+1)^2 entries a pixel, so a reverse step finds an object's
 * rows without a load). */
static __global__ void fill_kernel(gcut__flow_dassign a, const float *__restrict__ i0,
                                   const float *__restrict__ i1, const uint64_t *__restrict__ sig0,
                                   const uint64_t *__restrict__ sig1,
                                   const float *__restrict__ prior)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.n)
        return;
    const int w = a.w;
    int x = p % w, y = p / w, cx, cy, x0, x1, y0, y1;
    window_centre(prior, w, x, y, &cx, &cy);
    window_bounds(cx, a.radius, w, &x0, &x1);
    window_bounds(cy, a.radius, a.h, &y0, &y1);
    int k = a.row_ptr[p];
    int4 win;
    /* A window wholly outside frame 1 (a prior pointing out) is empty. */
    const int wx = x1 < x0 || y1 < y0 ? 0 : x1 - x0 + 1, wy = wx ? y1 - y0 + 1 : 0;
    win.x = k, win.y = x0, win.z = y0, win.w = wx | wy << 16;
    a.row_win[p] = win;
    for (int qy = y0; qy <= y1; qy++)
        for (int qx = x0; qx <= x1; qx++) {
            int q = qy * w + qx;
            int data = a.sad ? patch_sad(i0, i1, w, a.h, x, y, qx, qy, a.patch / 2)
                             : GCUT_FLOW_CENSUS_BIT * __popcll(sig0[p] ^ sig1[q]);
            a.arc_col[k] = q;
            a.arc_cost[k] = data + a.motion_penalty * (abs(qx - cx) + abs(qy - cy));
            const int side2 = (2 * a.radius + 1) * (2 * a.radius + 1);
            const int at = atomicAdd(&a.fill[q], 1);
            const long long slot = at < side2 ? (long long)q * side2 + at
                                              : (long long)a.n * side2 + a.t_over[q] + at - side2;
            a.t_cost[slot] = a.arc_cost[k];
            a.t_row[slot] = p;
            k++;
        }
    a.arc_col[k] = a.n + p;
    a.arc_cost[k] = a.occlusion_cost;
}

/* A row word's arc index, and the arc it names (row_ptr[r] + index; the
 * dummy's for a row that holds nothing, which a solved level has not). */
#define LOCAL_MASK ((unsigned long long)GCUT_FLOW_LOCAL_FREE)

static __device__ __forceinline__ int row_arc(const gcut__flow_dassign &a, int r)
{
    const int local = (int)(a.row_word[r] & LOCAL_MASK);
    return local == GCUT_FLOW_LOCAL_FREE ? a.row_ptr[r + 1] - 1 : a.row_ptr[r] + local;
}

/* One thread an object: owners and prices cleared (a new level). */
static __global__ void clear_objects_kernel(unsigned long long *object, int objects)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < objects)
        object[j] = 0;
}

/* The least of scale * cost + price over row r's arcs but its skip-th (-1:
 * none; LLONG_MAX when there is no other). The columns come from the row's
 * window (fill_kernel's order: the window row by row, then the dummy), so a
 * scan loads costs and object words only, and neighbouring rows read
 * neighbouring objects together. */
static __device__ __forceinline__ long long row_least(const gcut__flow_dassign &a, int4 win,
                                                      int r, long long scale, int id_bits,
                                                      int skip)
{
    const int wx = win.w & 0xffff, wy = win.w >> 16, cells = wx * wy;
    const int32_t *cost = a.arc_cost + win.x;
    long long u = LLONG_MAX;
    for (int yy = 0, local = 0; yy < wy; yy++) {
        const unsigned long long *words = a.object + (size_t)(win.z + yy) * a.w + win.y;
        for (int xx = 0; xx < wx; xx++, local++) {
            if (local == skip)
                continue;
            const long long value =
                (long long)cost[local] * scale + (long long)(words[xx] >> id_bits);
            u = value < u ? value : u;
        }
    }
    if (skip != cells) {
        const long long value =
            (long long)cost[cells] * scale + (long long)(a.object[a.n + r] >> id_bits);
        u = value < u ? value : u;
    }
    return u;
}

/* u[r]: min over r's arcs of scale * cost + price (the dual that makes
 * every arc feasible). */
static __device__ long long row_dual(const gcut__flow_dassign &a, int r, long long scale,
                                     int id_bits)
{
    return row_least(a, a.row_win[r], r, scale, id_bits, -1);
}

/* One thread a row, at a new phase (eps the new one): a row within eps of
 * its best keeps its object, so the forward auction starts from a partial
 * assignment that is eps-optimal already; any other row lets its object go
 * (the price stays) and is marked free, a starting row of the auction. */
static __global__ void release_kernel(gcut__flow_dassign a, long long scale, int id_bits,
                                      long long eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= a.n || a.scalars[GCUT_FLOW_S_DONE])
        return;
    int k = row_arc(a, r);
    int j = a.arc_col[k];
    unsigned long long word = a.object[j];
    long long own = (long long)a.arc_cost[k] * scale + (long long)(word >> id_bits);
    if (own - row_dual(a, r, scale, id_bits) <= eps)
        return;
    a.object[j] = word & ~((1ull << id_bits) - 1);
    a.row_word[r] = LOCAL_MASK;
}

/* The least of the lanes' x, and the lowest lane holding it: two 32-bit
 * warp reductions and a ballot (a butterfly of shuffles costs five
 * dependent rounds, as much as a load). One lane (the emulation): its own. */
static __device__ __forceinline__ unsigned long long warp_min(unsigned long long x)
{
#if FLOW_LANES > 1
    const unsigned hi = __reduce_min_sync(FULL_MASK, (unsigned)(x >> 32));
    const unsigned lo = __reduce_min_sync(FULL_MASK, (unsigned)(x >> 32) == hi ? (unsigned)x
                                                                                : 0xffffffffu);
    return (unsigned long long)hi << 32 | lo;
#else
    return x;
#endif
}

static __device__ __forceinline__ unsigned long long warp_argmin(unsigned long long x, int *lane)
{
    const unsigned long long m = warp_min(x);
#if FLOW_LANES > 1
    *lane = __ffs(__ballot_sync(FULL_MASK, x == m)) - 1;
#else
    *lane = 0;
#endif
    return m;
}

/* The best and second-best arc of one bid, ties to the lower arc within a
 * lane's share (so the lower column, as arcs go up by column within a row)
 * and to the lower lane between lanes (the same for a window of at most a
 * warp's arcs); a lane's share merged in, then the lanes'. */
struct bid_best {
    long long d1, d2;
    int k;
};

static __device__ __forceinline__ void bid_merge(bid_best *a, long long d1, long long d2, int k)
{
    if (d1 < a->d1 || (d1 == a->d1 && k < a->k)) {
        a->d2 = a->d1 < d2 ? a->d1 : d2;
        a->d1 = d1, a->k = k;
    } else if (d1 < a->d2) {
        a->d2 = d1;
    }
}

/* The lanes' shares merged (values are >= 0, LLONG_MAX for none) by warp
 * reductions; every lane gets d1 and d2, and the lane whose arc is best
 * (against a butterfly of shuffles: bench/results/flow_h100.md). */
static __device__ __forceinline__ int bid_reduce(bid_best *a)
{
    int best_lane;
    const long long d1 = (long long)warp_argmin((unsigned long long)a->d1, &best_lane);
    const int lane = (int)(threadIdx.x % FLOW_LANES);
    a->d2 = (long long)warp_min((unsigned long long)(lane == best_lane ? a->d2 : a->d1));
    a->d1 = d1;
    return best_lane;
}

/* The column of row i's arc k, from the row's window (fill_kernel's order:
 * the window row by row, then the dummy). */
static __device__ __forceinline__ int window_col(int4 win, int k, int w, int n, int i)
{
    const int local = k - win.x, wx = win.w & 0xffff, wy = win.w >> 16;
    return local < wx * wy ? (win.z + local / wx) * w + win.y + local % wx : n + i;
}

/* Forward auction: one warp a free row, then every row its bids displace
 * (see the top of the file); the lanes scan a row's arcs together,
 * lane 0 places the bid. A step's dependent round trips are what a chain
 * costs, so an arc's column comes from the row's window (row_win, no
 * load), its cost and its object's word load together, and the window of
 * the row a bid would displace (the owner in the word the bid replaces)
 * loads beside the compare-and-swap: two round trips a step. Scanning that
 * row before the compare-and-swap answers hides only the atomic's excess
 * over a load (the scan waits for the window), and was slower on an H100
 * (the 640x480 pair 54.3 -> 59.2 ms). */
static __global__ void __launch_bounds__(256)
    forward_kernel(const int4 *__restrict__ row_win, const int32_t *__restrict__ arc_cost,
                   int rows, int w, long long scale,
                   const unsigned long long *__restrict__ row_word,
                   unsigned long long *object, int id_bits, unsigned long long price_limit,
                   long long eps, long long *scalars, long long *chain_max)
{
    const unsigned long long id_mask = (1ull << id_bits) - 1;
    const int lane = (int)(threadIdx.x % FLOW_LANES);
    const long long warps = (long long)gridDim.x * blockDim.x / FLOW_LANES;
    if (scalars[GCUT_FLOW_S_DONE])
        return;
    for (long long start = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / FLOW_LANES;
         start < rows; start += warps) {
        if ((row_word[start] & LOCAL_MASK) != LOCAL_MASK)
            continue; /* kept from the phase before */
        int r = (int)start, steps = 0;
        int4 win = row_win[r];
        for (; r >= 0; steps++) {
            if (steps == CHAIN_CAP) {
                if (lane == 0)
                    scalars[GCUT_FLOW_S_STALLED] = 1;
                break;
            }
            const int k0 = win.x, k1 = k0 + (win.w & 0xffff) * (win.w >> 16) + 1;
            bid_best b = {LLONG_MAX, LLONG_MAX, INT_MAX};
            unsigned long long best_word = 0;
            int best_col = -1;
            for (int k = k0 + lane; k < k1; k += FLOW_LANES) {
                const int col = window_col(win, k, w, rows, r);
                unsigned long long word = load_word(&object[col]);
                long long value = (long long)arc_cost[k] * scale + (long long)(word >> id_bits);
                if (value < b.d1)
                    best_word = word, best_col = col;
                bid_merge(&b, value, LLONG_MAX, k);
            }
            /* The winning arc's word and object, from the lane that read them. */
            const int src = bid_reduce(&b);
            best_word = __shfl_sync(FULL_MASK, best_word, src);
            const int best = __shfl_sync(FULL_MASK, best_col, src);
            if (b.d2 == LLONG_MAX) /* one arc: the dummy, this row's alone */
                b.d2 = b.d1;
            unsigned long long price = (best_word >> id_bits) +
                                       (unsigned long long)(b.d2 - b.d1) +
                                       (unsigned long long)eps;
            if (price >= price_limit) {
                if (lane == 0)
                    scalars[GCUT_FLOW_S_OVERFLOW] = 1;
                break;
            }
            TRACE(if (lane == 0) { trace_bids++; if (steps > trace_chain) trace_chain = steps; })
            unsigned long long bid = price << id_bits | (unsigned long long)(r + 1), old = 0;
            /* The row this bid displaces if it lands, or -1. */
            const int next = (int)(best_word & id_mask) - 1;
            int4 next_win = win;
            if (next >= 0)
                next_win = row_win[next];
            if (lane == 0)
                old = atomicCAS(&object[best], best_word, bid);
            old = __shfl_sync(FULL_MASK, old, 0);
            __syncwarp();
            if (old != best_word)
                continue; /* the price moved: bid again from the new one */
            r = next, win = next_win;
        }
        if (chain_max && lane == 0 && steps >= CHAIN_STAT_MIN)
            atomicMax(chain_max, (long long)steps);
    }
}

/* One thread an object: each owner's row word (its value and its arc's
 * index), after a forward auction; a value past the word's bits is an
 * overflow. */
static __global__ void rows_from_owners_kernel(gcut__flow_dassign a, long long scale,
                                               int id_bits)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= 2 * a.n || a.scalars[GCUT_FLOW_S_DONE])
        return;
    const unsigned long long word = a.object[j];
    int owner = (int)(word & ((1ull << id_bits) - 1)) - 1;
    if (owner < 0)
        return;
    int k = a.row_ptr[owner + 1] - 1; /* the dummy's arc, unless a pixel's */
    if (j < a.n)
        for (k = a.row_ptr[owner]; a.arc_col[k] != j; k++)
            ;
    const unsigned long long value =
        (unsigned long long)a.arc_cost[k] * (unsigned long long)scale + (word >> id_bits);
    if (value >> (63 - GCUT_FLOW_LOCAL_BITS))
        a.scalars[GCUT_FLOW_S_OVERFLOW] = 1;
    a.row_word[owner] = value << GCUT_FLOW_LOCAL_BITS | (unsigned)(k - a.row_ptr[owner]);
}

/* The row that gains most from an object and the second gain, ties to the
 * lower transpose entry; merged as bid_best. */
struct rev_best {
    long long b1, b2;
    int t;
};

static __device__ __forceinline__ void rev_merge(rev_best *a, long long b1, long long b2, int t)
{
    if (b1 > a->b1 || (b1 == a->b1 && t < a->t)) {
        a->b2 = a->b1 > b2 ? a->b1 : b2;
        a->b1 = b1, a->t = t;
    } else if (b1 > a->b2) {
        a->b2 = b1;
    }
}

/* A gain as a key whose least is the greatest gain (LLONG_MIN, none, the
 * greatest key), and back. */
static __device__ __forceinline__ unsigned long long gain_key(long long g)
{
    return ~((unsigned long long)g ^ 0x8000000000000000ull);
}

static __device__ __forceinline__ long long key_gain(unsigned long long k)
{
    return (long long)(~k ^ 0x8000000000000000ull);
}

/* The lanes' shares merged as bid_reduce does (ties to the lower lane); t
 * becomes INT_MAX when no lane has a row. */
static __device__ __forceinline__ int rev_reduce(rev_best *a)
{
    int best_lane;
    const unsigned long long k1 = warp_argmin(gain_key(a->b1), &best_lane);
    const int lane = (int)(threadIdx.x % FLOW_LANES);
    a->b2 = key_gain(warp_min(gain_key(lane == best_lane ? a->b2 : a->b1)));
    a->b1 = key_gain(k1);
    a->t = a->b1 == LLONG_MIN ? INT_MAX : 0;
    return best_lane;
}

/* The rows with an arc to object j, as a reverse step scans them: slots
 * 0..slots-1, this lane's first (its row, -1 for none, and the arc's cost)
 * loaded beforehand. A pixel object's are its transpose's (side2 at a fixed
 * stride, with no load to find them, then its overflow, over0 on); a
 * dummy's its own row alone. */
struct rev_rows {
    int row, cost, slots, over0;
};

static __device__ __forceinline__ void rev_rows_first(const gcut__flow_dassign &a, int j,
                                                      int side2, int lane, rev_rows *e)
{
    e->row = -1, e->cost = 0, e->slots = 1, e->over0 = 0;
    if (j >= a.n) {
        if (lane == 0)
            e->row = j - a.n, e->cost = a.occlusion_cost;
        return;
    }
    const int o0 = a.t_over[j], o1 = a.t_over[j + 1];
    e->slots = side2 + o1 - o0, e->over0 = o0;
    if (lane < side2) {
        const long long t = (long long)j * side2 + lane;
        e->row = a.t_row[t], e->cost = a.t_cost[t];
    } else if (lane < e->slots) { /* an overflow entry (a crowded pixel only) */
        const long long t = (long long)a.n * side2 + o0 + lane - side2;
        e->row = a.t_row[t], e->cost = a.t_cost[t];
    }
}

/* Transpose slot `slot` of pixel object j (rev_rows' numbering). */
static __device__ __forceinline__ long long rev_slot(const gcut__flow_dassign &a, int j,
                                                     int side2, int over0, int slot)
{
    return slot < side2 ? (long long)j * side2 + slot
                        : (long long)a.n * side2 + over0 + slot - side2;
}

/* Lane 0 of a reverse step: finish a claim of object j whose first
 * compare-and-swap (expecting `held`) saw `seen`; nothing to do when held is
 * 0 (no claim pending) or the first try took it. 0 at the step cap. */
static __device__ __forceinline__ int claim_wait(const gcut__flow_dassign *a, int j,
                                                 unsigned long long held,
                                                 unsigned long long after,
                                                 unsigned long long seen)
{
    for (int spins = 0; held && seen != held; spins++) {
        if (spins == CHAIN_CAP)
            return 0;
        seen = atomicCAS(&a->object[j], held, after);
    }
    return 1;
}

/* Reverse steps: one warp a free object with a positive price, then every
 * object its steps free (see the top of the file); the lanes scan the
 * object's rows together, lane 0 moves the words. A row's word holds its
 * value (scale cost + price of what it holds: an owned object's price does
 * not move here) and its arc's index, so a scan reads one word a row (with
 * the row's window, which turns the index into the object it frees), and a
 * row is taken by one compare-and-swap on that word: equal words are equal
 * states, so no version is needed. The freed object's rows (fixed stride)
 * load beside that compare-and-swap: two round trips a step. */
static __global__ void __launch_bounds__(256)
    reverse_kernel(gcut__flow_dassign a, long long scale, int id_bits, long long eps,
                   long long *chain_max)
{
    const unsigned long long id_mask = (1ull << id_bits) - 1, claimed = id_mask;
    const int n = a.n, w = a.w, lane = (int)(threadIdx.x % FLOW_LANES);
    const int side2 = (2 * a.radius + 1) * (2 * a.radius + 1);
    const long long warps = (long long)gridDim.x * blockDim.x / FLOW_LANES;
    if (a.scalars[GCUT_FLOW_S_DONE])
        return;
    for (long long start = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / FLOW_LANES;
         start < 2ll * n; start += warps) {
        /* Lane 0's reading for all: a lane that read after lane 0's claim
         * below would see the object claimed and leave the warp. */
        const unsigned long long word = __shfl_sync(FULL_MASK, load_word(&a.object[start]), 0);
        if ((word & id_mask) || !(word >> id_bits))
            continue;
        unsigned long long seen = 0;
        if (lane == 0)
            seen = atomicCAS(&a.object[start], word, word | claimed);
        if (__shfl_sync(FULL_MASK, seen, 0) != word)
            continue;
        int j = (int)start, steps = 0;
        /* Lane 0's claim of the object it goes on with (see below): the
         * word it expects, the word it writes, and what its first try saw. */
        unsigned long long claim_held = 0, claim_after = 0, claim_seen = 0;
        rev_rows e;
        rev_rows_first(a, j, side2, lane, &e);
        for (;; steps++) {
            if (steps == CHAIN_CAP) {
                if (lane == 0)
                    a.scalars[GCUT_FLOW_S_STALLED] = 1;
                break;
            }
            TRACE(if (lane == 0) { trace_rev++; if (steps > trace_chain) trace_chain = steps; })
            rev_best b = {LLONG_MIN, LLONG_MIN, INT_MAX};
            int best_row = -1, best_cost = 0;
            unsigned long long best_rw = 0;
            int4 best_win;
            best_win.x = best_win.y = best_win.z = best_win.w = 0;
            for (int slot = lane; slot < e.slots; slot += FLOW_LANES) {
                int i = e.row, cost = e.cost;
                if (slot >= FLOW_LANES) {
                    const long long t = rev_slot(a, j, side2, e.over0, slot);
                    i = a.t_row[t], cost = a.t_cost[t];
                }
                if (i < 0)
                    continue;
                const unsigned long long rw = load_word(&a.row_word[i]);
                const int4 win = a.row_win[i];
                if ((rw & LOCAL_MASK) == LOCAL_MASK)
                    continue; /* holds nothing: only after a stalled auction */
                const long long gain =
                    (long long)(rw >> GCUT_FLOW_LOCAL_BITS) - (long long)cost * scale;
                if (gain > b.b1)
                    best_row = i, best_cost = cost, best_rw = rw, best_win = win;
                rev_merge(&b, gain, LLONG_MIN, slot);
            }
            const int src = rev_reduce(&b);
            int stalled = 0;
            if (lane == 0 && !claim_wait(&a, j, claim_held, claim_after, claim_seen))
                a.scalars[GCUT_FLOW_S_STALLED] = 1, stalled = 1;
            claim_held = claim_seen = 0;
            if (__shfl_sync(FULL_MASK, stalled, 0))
                break;
            if (b.t == INT_MAX || b.b1 - eps <= 0) { /* no row gains from it: price 0, free */
                if (lane == 0)
                    atomicExch(&a.object[j], 0ull);
                break;
            }
            /* The winning row's words, from the lane that read them. */
            best_row = __shfl_sync(FULL_MASK, best_row, src);
            best_cost = __shfl_sync(FULL_MASK, best_cost, src);
            best_rw = __shfl_sync(FULL_MASK, best_rw, src);
            best_win.x = __shfl_sync(FULL_MASK, best_win.x, src);
            best_win.y = __shfl_sync(FULL_MASK, best_win.y, src);
            best_win.z = __shfl_sync(FULL_MASK, best_win.z, src);
            best_win.w = __shfl_sync(FULL_MASK, best_win.w, src);
            const long long lowered = b.b2 == LLONG_MIN || b.b2 - eps < 0 ? 0 : b.b2 - eps;
            /* The object the row frees, and the index of its arc to j. */
            const int own = best_win.x + (int)(best_rw & LOCAL_MASK);
            const int freed = window_col(best_win, own, w, n, best_row);
            const int wx = best_win.w & 0xffff, wy = best_win.w >> 16;
            const int local_j = j >= n ? wx * wy : (j / w - best_win.z) * wx + (j % w - best_win.y);
            const unsigned long long taken =
                (unsigned long long)(lowered + (long long)best_cost * scale)
                    << GCUT_FLOW_LOCAL_BITS |
                (unsigned long long)local_j;
            /* The freed object's first rows and the row's cost to it load while
             * lane 0 moves the words. */
            rev_rows next;
            rev_rows_first(a, freed, side2, lane, &next);
            const long long own_cost = a.arc_cost[own];
            int moved = 0;
            if (lane == 0) {
                moved = atomicCAS(&a.row_word[best_row], best_rw, taken) != best_rw;
                if (!moved) /* j is this warp's: nobody else writes it */
                    store_word(&a.object[j], (unsigned long long)lowered << id_bits |
                                                 (unsigned long long)(best_row + 1));
            }
            moved = __shfl_sync(FULL_MASK, moved, 0);
            __syncwarp();
            if (moved)
                continue; /* the row moved meanwhile: look again */
            const unsigned long long freed_price =
                (best_rw >> GCUT_FLOW_LOCAL_BITS) - (unsigned long long)(own_cost * scale);
            if (lane == 0) {
                /* The row's old object is free now; this warp goes on with it. Its
                 * owner may still be on its way (the warp that gave it to the row
                 * writes it just after its compare-and-swap on the row), so the
                 * claim is a compare-and-swap on the word that write leaves. Its
                 * first try overlaps the scan of the object's rows (which reads no
                 * word of it); a retry, if any, waits until the scan is done and
                 * before anything is written to the object. */
                claim_held = freed_price << id_bits | (unsigned long long)(best_row + 1);
                claim_after = freed_price ? freed_price << id_bits | claimed : 0ull;
                claim_seen = atomicCAS(&a.object[freed], claim_held, claim_after);
            }
            if (!freed_price) { /* the freed object is free at price 0: the chain ends */
                if (lane == 0 && !claim_wait(&a, freed, claim_held, claim_after, claim_seen))
                    a.scalars[GCUT_FLOW_S_STALLED] = 1;
                break;
            }
            j = freed, e = next;
        }
        if (chain_max && lane == 0 && steps >= CHAIN_STAT_MIN)
            atomicMax(chain_max, (long long)steps);
    }
}

/* A warp's values summed into *dst with one atomic (a whole RubberWhale
 * level's sums on one address, one atomic a thread, cost half a
 * millisecond a phase). Every lane of the warp calls it. */
static __device__ __forceinline__ void warp_add(long long *dst, unsigned long long v)
{
    for (int off = FLOW_LANES / 2; off > 0; off /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, off);
    if (threadIdx.x % FLOW_LANES == 0 && v)
        atomicAdd((unsigned long long *)dst, v);
}

/* One thread an object: a free object's price into the gap; an owner that
 * does not hold it (by its word) counted. */
static __global__ void objects_proof_kernel(gcut__flow_dassign a, int id_bits)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (a.scalars[GCUT_FLOW_S_DONE])
        return;
    unsigned long long gap = 0, unowned = 0;
    if (j < 2 * a.n) {
        unsigned long long word = a.object[j], id_mask = (1ull << id_bits) - 1;
        int owner = (int)(word & id_mask) - 1;
        if (owner < 0)
            gap = word >> id_bits;
        else if (owner >= a.n || (a.row_word[owner] & LOCAL_MASK) == LOCAL_MASK ||
                 a.arc_col[row_arc(a, owner)] != j)
            unowned = 1;
    }
    warp_add(&a.scalars[GCUT_FLOW_S_GAP], gap);
    warp_add(&a.scalars[GCUT_FLOW_S_UNOWNED], unowned);
}

/* One thread a row: its arc's slack (scale cost + price - u, >= 0) into
 * the gap, its cost into the total; a row whose object is not its own
 * counted. */
static __global__ void rows_proof_kernel(gcut__flow_dassign a, long long scale, int id_bits)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (a.scalars[GCUT_FLOW_S_DONE])
        return;
    unsigned long long gap = 0, cost = 0, unowned = 0;
    if (r < a.n) {
        int k = row_arc(a, r);
        unsigned long long id_mask = (1ull << id_bits) - 1;
        if (k < a.row_ptr[r] || k >= a.row_ptr[r + 1] ||
            (int)(a.object[a.arc_col[k]] & id_mask) != r + 1) {
            unowned = 1;
        } else {
            gap = (unsigned long long)((long long)a.arc_cost[k] * scale +
                                       (long long)(a.object[a.arc_col[k]] >> id_bits) -
                                       row_dual(a, r, scale, id_bits));
            cost = (unsigned long long)(long long)a.arc_cost[k];
        }
    }
    warp_add(&a.scalars[GCUT_FLOW_S_GAP], gap);
    warp_add(&a.scalars[GCUT_FLOW_S_COST], cost);
    warp_add(&a.scalars[GCUT_FLOW_S_UNOWNED], unowned);
}

/* One thread a row, after a phase whose proof failed: the price of the
 * object the row holds lowered to the least that keeps the row on its
 * cheapest arc (never below 0; free objects stay). Repeated, this is
 * Bellman-Ford towards the greatest prices that make every row exactly
 * happy: if the assignment is optimal already (on RubberWhale it is from
 * the first or second phase of every level, the later phases only tighten
 * the prices), a few sweeps bring the gap under the scale and the phases
 * left are not needed. Rows and objects are not moved, so the proof after
 * it is the usual one; any prices are a valid start for the next phase. */
static __global__ void tighten_kernel(gcut__flow_dassign a, long long scale, int id_bits)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= a.n || a.scalars[GCUT_FLOW_S_DONE])
        return;
    const int4 win = a.row_win[r];
    const int cells = (win.w & 0xffff) * (win.w >> 16);
    const int local = (int)(a.row_word[r] & LOCAL_MASK);
    const int held = local == GCUT_FLOW_LOCAL_FREE ? cells : local;
    const int h = window_col(win, win.x + held, a.w, a.n, r);
    /* Plain loads: a price another row lowers in this sweep may be read
     * before or after (prices only fall here, so a stale one leaves this
     * price higher than it could be, never invalid); the proof after the
     * sweeps is a kernel of its own and reads them all. */
    const long long m = row_least(a, win, r, scale, id_bits, held);
    const unsigned long long word = a.object[h];
    long long p = m == LLONG_MAX ? 0 : m - (long long)a.arc_cost[win.x + held] * scale;
    p = p < 0 ? 0 : p;
    if ((unsigned long long)p < word >> id_bits) /* the owner alone writes its object here */
        a.object[h] = (unsigned long long)p << id_bits | (word & ((1ull << id_bits) - 1));
}

/* Settling the prices of an assignment that is optimal already but not
 * proven so (on RubberWhale the finest level's is after its second phase;
 * its prices lie below any proof's there and tightening only lowers them).
 * The greatest prices that make every row exactly happy, free objects at 0,
 * are each held object's shortest path to a free object, the arc j -> k
 * (k another object of j's owner X) weighing scale (cost(X, k) -
 * cost(X, j)). Found by Bellman-Ford from above (held objects at infinity),
 * one thread a row writing its object's distance alone, so sweeps run in
 * place: a sweep reads a mix of its own and earlier values, each the
 * length of a path, and a launch whose sweeps change nothing has reached
 * the fixpoint. A negative distance means the assignment is not optimal (a
 * cheaper path to a free object, or a negative cycle whose distances fall
 * without end): the settle gives up and the auction goes on from its own
 * prices, untouched. Converged, the distances become the prices (free
 * objects at 0) and the usual proof follows, gap 0. The fixpoint is unique,
 * so the prices do not depend on the sweeps' timing, and only prices move.
 * Emulated (EMU_TRACE=1, sequential), it converges after 6-49 sweeps (65
 * with each sweep reading only the last one's values, Jacobi) where the
 * proof otherwise needed one or two more phases: the finest level after
 * its second phase and level 1 after its phase at eps 3072 on RubberWhale,
 * Dimetrodon, Venus and the 640x480 pair (14 -> 11 phases each; not yet
 * timed on a device: bench/results/flow_h100.md). */
#define SETTLE_INF (LLONG_MAX / 4)
#define SETTLE_FAIL (GCUT_FLOW_SETTLE_LAUNCHES + 1)
/* Sweeps in one launch (a row's later sweeps read what other rows wrote
 * meanwhile), so that most settles end within a few launches. */
#define SETTLE_PASSES 4
/* Launches of each launch's sweeps: on a GPU one (its threads' sweeps
 * interleave); in the sequential emulation (one lane) a thread's later
 * sweeps would see no other row's news, so each sweep is a launch of its
 * own there, which the GPU's in-launch sweeps approach. */
#if FLOW_LANES > 1
#define SETTLE_SEQUENTIAL_SWEEPS 1
#else
#define SETTLE_SEQUENTIAL_SWEEPS SETTLE_PASSES
#endif

/* One thread an object: held ones at infinity, free ones at 0; the
 * flags cleared (the launch before the first "changed"). */
static __global__ void settle_init_kernel(gcut__flow_dassign a, int id_bits)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (a.scalars[GCUT_FLOW_S_DONE])
        return;
    if (j < 2 * a.n)
        a.dist[j] = a.object[j] & ((1ull << id_bits) - 1) ? SETTLE_INF : 0;
    if (j < GCUT_FLOW_SETTLE_FLAGS)
        a.settle_flags[j] = j == 0;
}

/* One thread a row, launch t (1..GCUT_FLOW_SETTLE_LAUNCHES), SETTLE_PASSES
 * sweeps: its object's distance lowered to the least over its other arcs
 * (volatile loads: the other rows' writes of this launch); nothing once a
 * launch changed nothing or a sweep failed. */
static __global__ void settle_sweep_kernel(gcut__flow_dassign a, long long scale, int t)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= a.n || a.scalars[GCUT_FLOW_S_DONE] || !a.settle_flags[t - 1] ||
        a.settle_flags[SETTLE_FAIL])
        return;
    const int4 win = a.row_win[r];
    const int wx = win.w & 0xffff, wy = win.w >> 16, cells = wx * wy;
    const int local = (int)(a.row_word[r] & LOCAL_MASK);
    if (local == GCUT_FLOW_LOCAL_FREE) { /* a row without an object: no proof to settle */
        a.settle_flags[SETTLE_FAIL] = 1;
        return;
    }
    const int32_t *cost = a.arc_cost + win.x;
    const volatile long long *dist = a.dist;
    const int h = window_col(win, win.x + local, a.w, a.n, r);
    long long own = dist[h];
    for (int pass = 0; pass < SETTLE_PASSES; pass++) {
        long long m = SETTLE_INF;
        for (int yy = 0, k = 0; yy < wy; yy++) {
            const volatile long long *d = dist + (size_t)(win.z + yy) * a.w + win.y;
            for (int xx = 0; xx < wx; xx++, k++)
                if (k != local) {
                    const long long v = (long long)cost[k] * scale + d[xx];
                    m = v < m ? v : m;
                }
        }
        if (local != cells) {
            const long long v = (long long)cost[cells] * scale + dist[a.n + r];
            m = v < m ? v : m;
        }
        if (m >= SETTLE_INF && cells)
            continue; /* no other arc reached yet */
        /* A row with its dummy alone (a window wholly outside frame 1) is
         * happy at any price: 0. */
        const long long d = cells ? m - (long long)cost[local] * scale : 0;
        if (d < own) {
            own = d;
            a.dist[h] = d;
            a.settle_flags[t] = 1;
            if (d < 0) {
                a.settle_flags[SETTLE_FAIL] = 1;
                return;
            }
        }
    }
}

/* One thread an object, once the sweeps are done: converged (the last
 * sweep changed nothing) but a held object's distance past the prices'
 * packing is a failure too, found before any price is written. */
static __global__ void settle_check_kernel(gcut__flow_dassign a, int id_bits,
                                           unsigned long long price_limit)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= 2 * a.n || a.scalars[GCUT_FLOW_S_DONE] || a.settle_flags[SETTLE_FAIL] ||
        a.settle_flags[GCUT_FLOW_SETTLE_LAUNCHES])
        return;
    if ((a.object[j] & ((1ull << id_bits) - 1)) && (unsigned long long)a.dist[j] >= price_limit)
        a.settle_flags[SETTLE_FAIL] = 1;
}

/* One thread an object: converged and checked, its distance is its price
 * (0 for a free object); the owners stay. */
static __global__ void settle_apply_kernel(gcut__flow_dassign a, int id_bits)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= 2 * a.n || a.scalars[GCUT_FLOW_S_DONE] || a.settle_flags[SETTLE_FAIL] ||
        a.settle_flags[GCUT_FLOW_SETTLE_LAUNCHES])
        return;
    const unsigned long long id_mask = (1ull << id_bits) - 1, word = a.object[j];
    const unsigned long long price = word & id_mask ? (unsigned long long)a.dist[j] : 0;
    a.object[j] = price << id_bits | (word & id_mask);
}

/* One thread, after a phase (unless done): the phase counted; done when
 * the proof holds already (rows and objects agree, the gap below the
 * scale: the assignment is optimal, whatever eps the phase had), else the
 * proof's sums cleared for the next phase. */
static __global__ void phase_end_kernel(long long *scalars, long long scale, int last)
{
    if (scalars[GCUT_FLOW_S_DONE])
        return;
    scalars[GCUT_FLOW_S_PHASES]++;
    if (!scalars[GCUT_FLOW_S_UNOWNED] && scalars[GCUT_FLOW_S_GAP] < scale) {
        scalars[GCUT_FLOW_S_DONE] = 1;
        return;
    }
    if (!last) /* the last phase's sums are the level's proof, failed or not */
        scalars[GCUT_FLOW_S_UNOWNED] = scalars[GCUT_FLOW_S_GAP] = scalars[GCUT_FLOW_S_COST] = 0;
}

/* One thread, after the proof of tightened prices: as phase_end_kernel,
 * no phase counted. */
static __global__ void proof_end_kernel(long long *scalars, long long scale)
{
    if (scalars[GCUT_FLOW_S_DONE])
        return;
    if (!scalars[GCUT_FLOW_S_UNOWNED] && scalars[GCUT_FLOW_S_GAP] < scale) {
        scalars[GCUT_FLOW_S_DONE] = 1;
        return;
    }
    scalars[GCUT_FLOW_S_UNOWNED] = scalars[GCUT_FLOW_S_GAP] = scalars[GCUT_FLOW_S_COST] = 0;
}

/* One thread: the gap against the scale. */
static __global__ void gap_kernel(long long *scalars, long long scale)
{
    scalars[GCUT_FLOW_S_GAP_OVER] = scalars[GCUT_FLOW_S_GAP] >= scale;
}

/* One thread a row: its vector (0 on its dummy). */
static __global__ void vectors_kernel(gcut__flow_dassign a, float *__restrict__ flow,
                                      uint8_t *__restrict__ matched,
                                      uint8_t *__restrict__ occluded)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.n)
        return;
    int q = a.arc_col[row_arc(a, p)];
    if (q >= a.n) {
        matched[p] = 0;
        occluded[p] = 1;
        flow[2 * (size_t)p] = flow[2 * (size_t)p + 1] = 0;
        atomicAdd((unsigned long long *)&a.scalars[GCUT_FLOW_S_OCCLUDED], 1ull);
        return;
    }
    matched[p] = 1;
    occluded[p] = 0;
    flow[2 * (size_t)p] = (float)(q % a.w - p % a.w);
    flow[2 * (size_t)p + 1] = (float)(q / a.w - p / a.w);
}

/* One thread a row and two objects: the columns taken and the prices in
 * gcut_assign_verify's form. */
static __global__ void prices_kernel(gcut__flow_dassign a, long long scale, int id_bits,
                                     long long *prices, int32_t *row_to_col)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n)
        return;
    prices[i] = row_dual(a, i, scale, id_bits);
    prices[a.n + i] = -(long long)(a.object[i] >> id_bits);
    prices[2 * a.n + i] = -(long long)(a.object[a.n + i] >> id_bits);
    row_to_col[i] = a.arc_col[row_arc(a, i)];
}

/* One thread: a phase statistic's time stamp (and, at the phase's start,
 * its eps, whether it is skipped, the chain maxima cleared). */
static __global__ void phase_stat_kernel(long long *st, int which, long long eps,
                                         const long long *scalars)
{
#ifdef __CUDA_ARCH__
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    st[which] = (long long)t;
#else
    st[which] = 0;
#endif
    if (which == GCUT_FLOW_ST_START) {
        st[GCUT_FLOW_ST_EPS] = eps;
        st[GCUT_FLOW_ST_SKIPPED] = scalars[GCUT_FLOW_S_DONE];
        st[GCUT_FLOW_ST_FWD_CHAIN] = st[GCUT_FLOW_ST_REV_CHAIN] = 0;
    }
}

/* Bits for owner ids 1..rows and the claimed mark (all ones). */
static int id_bits_for(int rows)
{
    int b = 1;
    while ((1ll << b) <= (long long)rows + 1)
        b++;
    return b;
}

extern "C" cudaError_t gcut__flow_assign_scan_bytes(int n, size_t *bytes)
{
    *bytes = 0;
    return cub::DeviceScan::ExclusiveSum(NULL, *bytes, (int32_t *)NULL, (int32_t *)NULL, n + 1);
}

extern "C" cudaError_t gcut__flow_assign_count_launch(gcut__flow_dassign *a, const float *prior,
                                                      cudaStream_t stream)
{
    count_init_kernel<<<blocks_for(a->n + 1), 256, 0, stream>>>(*a);
    count_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, prior);
    cudaError_t err = cudaPeekAtLastError();
    if (err)
        return err;
    over_count_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a);
    if ((err = cudaPeekAtLastError()) ||
        (err = cub::DeviceScan::ExclusiveSum(a->scan_temp, a->scan_temp_bytes, a->count,
                                             a->row_ptr, a->n + 1, stream)) ||
        (err = cub::DeviceScan::ExclusiveSum(a->scan_temp, a->scan_temp_bytes, a->tcount,
                                             a->t_over, a->n + 1, stream)))
        return err;
    totals_kernel<<<1, 1, 0, stream>>>(*a);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_fill_launch(gcut__flow_dassign *a, const float *i0,
                                                     const float *i1, const uint64_t *sig0,
                                                     const uint64_t *sig1, const float *prior,
                                                     cudaStream_t stream)
{
    const size_t side = 2 * (size_t)a->radius + 1;
    cudaError_t err = cudaMemsetAsync(a->t_row, 0xff, (size_t)a->n * side * side *
                                                          sizeof *a->t_row, stream);
    if (err)
        return err;
    fill_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, i0, i1, sig0, sig1, prior);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_solve_launch(gcut__flow_dassign *a, long long maxcost,
                                                      int alpha, int tighten_from,
                                                      int settle, int *phases,
                                                      cudaStream_t stream)
{
    const int rows = a->n, objects = 2 * a->n, id_bits = id_bits_for(rows);
    const long long scale = 3ll * rows + 1;
    /* A price fits the object word beside the owner, and a row's value
     * (scale cost + price) its word beside the arc index. */
    const long long value_room = (1ll << (63 - GCUT_FLOW_LOCAL_BITS)) - maxcost * scale;
    const unsigned long long price_limit =
        value_room < 1 ? 1ull
                       : (unsigned long long)value_room < 1ull << (63 - id_bits)
                             ? (unsigned long long)value_room
                             : 1ull << (63 - id_bits);
    /* The first eps: at most the cost bound over alpha squared, on the
     * schedule that reaches FLOW_EPS_END. A first phase at the bound over
     * alpha settles nothing the next one keeps: emulated, starting one phase
     * lower takes a fifth fewer steps on RubberWhale (5.07 M -> 3.94 M, the
     * phases' longest chains summed 49 k -> 44 k) and on the checks' random
     * instances; two phases lower is worse on the random ones. Ending at 6
     * with the proof checked after every phase: 33 -> 25 phases, the longest
     * chains summed 44 k -> 30 k (alpha 10: 22 phases, 33 k); on an H200 the
     * whole RubberWhale flow 105.7 / 93.1 -> 90.3 / 83.4 ms (two medians of
     * five each, alternating, in one process each). A level with a prior
     * started one phase lower: 2.2-2.5x the bids at RubberWhale's two finest
     * levels (emulated). Each row first on its window's centre (the coarser level's
     * displacement) where that is within eps of its best: 852 k -> 812 k bids
     * in the finest level's first phase (emulated), slower on three of four
     * pairs on an H100 (the 640x480 pair 54.3 -> 57.4 ms). */
    long long top = maxcost * scale / ((long long)alpha * alpha);
    top = top < 1 ? 1 : top;
    long long eps = FLOW_EPS_END < top ? FLOW_EPS_END : top;
    while (eps * alpha <= top)
        eps *= alpha;
    *phases = 0;
    /* Every row free, every object free at price 0. */
    cudaError_t err = cudaMemsetAsync(a->row_word, 0xff, (size_t)rows * sizeof *a->row_word,
                                      stream);
    if (err)
        return err;
    clear_objects_kernel<<<blocks_for(objects), 256, 0, stream>>>(a->object, objects);
    for (;;) {
        long long *st = a->phase_stats && *phases < GCUT_FLOW_STAT_PHASES
                            ? a->phase_stats + (size_t)*phases * GCUT_FLOW_STATS
                            : NULL;
        if (st)
            phase_stat_kernel<<<1, 1, 0, stream>>>(st, GCUT_FLOW_ST_START, eps, a->scalars);
        forward_kernel<<<blocks_for((long long)rows * FLOW_LANES), 256, 0, stream>>>(
            a->row_win, a->arc_cost, rows, a->w, scale, a->row_word, a->object, id_bits,
            price_limit, eps, a->scalars, st ? st + GCUT_FLOW_ST_FWD_CHAIN : NULL);
        if (st)
            phase_stat_kernel<<<1, 1, 0, stream>>>(st, GCUT_FLOW_ST_FORWARD, eps, a->scalars);
        TRACE(fprintf(stderr, "n %d eps %lld: bids %lld longest chain %lld", rows, eps,
                      trace_bids, trace_chain);
              trace_bids = trace_chain = 0;)
        rows_from_owners_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, scale, id_bits);
        reverse_kernel<<<blocks_for((long long)objects * FLOW_LANES), 256, 0, stream>>>(
            *a, scale, id_bits, eps, st ? st + GCUT_FLOW_ST_REV_CHAIN : NULL);
        if (st)
            phase_stat_kernel<<<1, 1, 0, stream>>>(st, GCUT_FLOW_ST_REVERSE, eps, a->scalars);
        TRACE(fprintf(stderr, " | reverse steps %lld longest chain %lld\n", trace_rev,
                      trace_chain);
              trace_rev = trace_chain = 0;)
        ++*phases;
        /* The proof after every phase: its sums stay as the level's once it
         * holds, and every later launch returns at once. */
        objects_proof_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, id_bits);
        rows_proof_kernel<<<blocks_for(rows), 256, 0, stream>>>(*a, scale, id_bits);
        TRACE(fprintf(stderr, "n %d eps %lld: cost %lld gap %lld of scale %lld%s\n", rows, eps,
                      a->scalars[GCUT_FLOW_S_COST],
                      a->scalars[GCUT_FLOW_S_DONE] ? 0 : a->scalars[GCUT_FLOW_S_GAP], scale,
                      a->scalars[GCUT_FLOW_S_DONE] ? " (done before)" : "");)
        if (st)
            phase_stat_kernel<<<1, 1, 0, stream>>>(st, GCUT_FLOW_ST_PROOF, eps, a->scalars);
        phase_end_kernel<<<1, 1, 0, stream>>>(a->scalars, scale, eps == 1);
        if (eps == 1)
            break;
        if (settle && *phases >= tighten_from) {
            settle_init_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, id_bits);
            for (int t = 1; t <= GCUT_FLOW_SETTLE_LAUNCHES; t++)
                for (int s = 0; s < SETTLE_SEQUENTIAL_SWEEPS; s++)
                    settle_sweep_kernel<<<blocks_for(rows), 256, 0, stream>>>(*a, scale, t);
            TRACE(if (!a->scalars[GCUT_FLOW_S_DONE]) {
                int t = 1;
                while (t <= GCUT_FLOW_SETTLE_LAUNCHES && a->settle_flags[t])
                    t++;
                fprintf(stderr, "n %d eps %lld: settle %s after %d launches\n", rows, eps,
                        a->settle_flags[SETTLE_FAIL]             ? "failed"
                        : t > GCUT_FLOW_SETTLE_LAUNCHES ? "unfinished"
                                                        : "converged",
                        t);
            })
            settle_check_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, id_bits,
                                                                         price_limit);
            settle_apply_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, id_bits);
            objects_proof_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, id_bits);
            rows_proof_kernel<<<blocks_for(rows), 256, 0, stream>>>(*a, scale, id_bits);
            TRACE(fprintf(stderr, "n %d eps %lld: settled, gap %lld%s\n", rows, eps,
                          a->scalars[GCUT_FLOW_S_DONE] ? 0 : a->scalars[GCUT_FLOW_S_GAP],
                          a->scalars[GCUT_FLOW_S_DONE] ? " (done before)" : "");)
            proof_end_kernel<<<1, 1, 0, stream>>>(a->scalars, scale);
        }
        if (*phases >= tighten_from)
            for (int round = 0; round < TIGHTEN_ROUNDS; round++) {
                for (int t = 0; t < TIGHTEN_SWEEPS; t++)
                    tighten_kernel<<<blocks_for(rows), 256, 0, stream>>>(*a, scale, id_bits);
                objects_proof_kernel<<<blocks_for(objects), 256, 0, stream>>>(*a, id_bits);
                rows_proof_kernel<<<blocks_for(rows), 256, 0, stream>>>(*a, scale, id_bits);
                TRACE(fprintf(stderr, "n %d eps %lld: tightened, gap %lld%s\n", rows, eps,
                              a->scalars[GCUT_FLOW_S_DONE] ? 0 : a->scalars[GCUT_FLOW_S_GAP],
                              a->scalars[GCUT_FLOW_S_DONE] ? " (done before)" : "");)
                proof_end_kernel<<<1, 1, 0, stream>>>(a->scalars, scale);
            }
        if (st && *phases >= tighten_from)
            phase_stat_kernel<<<1, 1, 0, stream>>>(st, GCUT_FLOW_ST_TIGHTEN, eps, a->scalars);
        eps = eps / alpha < 1 ? 1 : eps / alpha;
        release_kernel<<<blocks_for(rows), 256, 0, stream>>>(*a, scale, id_bits, eps);
    }
    gap_kernel<<<1, 1, 0, stream>>>(a->scalars, scale);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_vectors_launch(const gcut__flow_dassign *a, float *flow,
                                                        uint8_t *matched, uint8_t *occluded,
                                                        cudaStream_t stream)
{
    vectors_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, flow, matched, occluded);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_prices_launch(const gcut__flow_dassign *a,
                                                       long long *prices, int32_t *row_to_col,
                                                       cudaStream_t stream)
{
    prices_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, 3ll * a->n + 1, id_bits_for(a->n),
                                                        prices, row_to_col);
    return cudaPeekAtLastError();
}
