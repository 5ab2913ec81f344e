/* GPU cost scaling for the assignment problem: the lock-free parallel
 * refine of seed 001 section 5.3 in its assignment form, one launch a
 * phase with no host step inside it.
 *
 * A phase starts from a compacted list of the rows to place: all of them
 * in the first phase; later, the rows whose column is no longer within the
 * new eps of their best c' (keep_kernel; the others keep theirs, as
 * eps-optimality asks nothing more of them). Every worker (a group of
 * `lanes` lanes) takes rows from the list one by one through a shared
 * counter. A row finds its lowest part-reduced cost c' = c - p(y) and
 * second lowest over its arcs and pushes to the lowest column y with one
 * atomicMin on y's key (price << bits | owner), bidding price
 * c - c'_2 - eps: the push and the relabel p(x) = -(min c' + eps) of seed
 * 001 Algorithm 5.4 in one step, as the CPU's double push. The atomic is
 * the lock-free part: the bid takes y only if it is lower than y's price at
 * that instant, and the old value names the owner it replaced, which the
 * same worker places next (it is active and no other thread holds it). A
 * bid that lost (the price fell below it meanwhile) scans again. So the
 * active rows are exactly the rows in the workers' hands plus those still
 * on the list: no worklist to scan, no round, and a chain of evictions runs
 * at the speed of one worker, not of one grid-wide step. A chain ends when
 * a bid takes a free column; the launch ends when the list is used up and
 * every chain ended, i.e. when every row holds a column.
 *
 * A worker is a tile of 4, 8 or 32 lanes for short rows, a whole block
 * (128 to 1024 threads) for rows of hundreds of arcs and more: a bid costs
 * the latency of one round of loads of n / group arcs, and in the tail of
 * a phase, where a few chains run alone, bids follow one another and that
 * latency is the phase's time.
 *
 * Global price updates (section 5.2, knob update_every): a launch with a
 * bid budget pauses once the budget is spent, or once its list is used up
 * and the chains left ran as long as the last update took (the rows in
 * the workers' hands go back on a list); one cooperative launch gives
 * every column its distance in eps to a free column (Bellman-Ford
 * passes), lowers the prices by eps times it and shifts the rows along
 * the shortest paths of the active rows that do not meet
 * (price_update_kernel), and the phase goes on with the rows left. On
 * dense rows the host queues a later phase's cycles (update, refine,
 * resume) without waiting for each, the kernels taking its decisions
 * from d.loop (gcut__assign_dense_cycles). Arc fixing is not built on the
 * GPU.
 *
 * Exactness: prices only fall, and a scan reads each price at some instant
 * (__ldcg, from L2), so a value it read is at least the price when the bid
 * lands. The winner's c' at y is then c'_2 + eps <= its true second best +
 * eps, and later falls of other prices only raise its other arcs' c': every
 * matched row stays eps-optimal (seed 001 lemma 5.5). Every failed bid
 * means that some price fell by at least eps since the scan, so a feasible
 * phase ends; the first phase's bound on a row's rise of c' (see
 * src/cpu/assign_csa.c) stops an infeasible one, tested at each bid and,
 * on the active rows, at each price update (past_bound). */
#include <cooperative_groups.h>

#include "assign_kernels.h"

namespace cg = cooperative_groups;

#define ASSIGN_BLOCK 256
#define INF64 0x7fffffffffffffffLL

static __device__ __forceinline__ long long now_ns(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Set the stop code (the first one wins) and the row that set it. */
static __device__ void stop(const gcut__dassign &d, int code, int32_t row)
{
    if (atomicCAS(&d.state[1], GCUT__DASSIGN_RUNNING, code) == GCUT__DASSIGN_RUNNING)
        atomicExch(&d.state[2], row);
}

/* This thread's share of row x (arcs first, first + stride, ...): its
 * lowest c' (b1, at column y1 of arc cost c1) and second lowest b2. */
template <bool dense>
static __device__ __forceinline__ void scan_part(const gcut__dassign &d, int32_t x, int first,
                                                 int stride, long long &b1, long long &b2,
                                                 long long &c1, int32_t &y1)
{
    const long long begin = dense ? (long long)x * d.n : d.row_ptr[x];
    const long long end = dense ? begin + d.n : d.row_ptr[x + 1];
    const unsigned shift = (unsigned)d.bits;
    b1 = INF64;
    b2 = INF64;
    c1 = 0;
    y1 = -1;
#pragma unroll 4
    for (long long a = begin + first; a < end; a += stride) {
        const int32_t y = dense ? (int32_t)(a - begin) : __ldg(&d.col[a]);
        const long long c = d.cost32 ? (long long)__ldg(&d.cost32[a]) * d.unit : __ldg(&d.cost64[a]);
        const long long p = (long long)(__ldcg(&d.key[y]) >> shift) + d.pmin;
        const long long v = c - p;
        if (v < b1) {
            b2 = b1;
            b1 = v;
            c1 = c;
            y1 = y;
        } else if (v < b2) {
            b2 = v;
        }
    }
}

/* The best two of a tile's lanes, every lane getting the result: a
 * butterfly merge, ties by column id so that every lane agrees. With
 * first_off below lanes / 2, lanes 0..2 first_off - 1 merge among
 * themselves (the others hold nothing). */
template <unsigned lanes, int first_off = (int)lanes / 2>
static __device__ __forceinline__ void merge_tile(const cg::thread_block_tile<lanes> &tile,
                                                  long long &b1, long long &b2, long long &c1,
                                                  int32_t &y1)
{
#pragma unroll
    for (int off = first_off; off > 0; off /= 2) {
        const long long o1 = tile.shfl_xor(b1, off);
        const long long o2 = tile.shfl_xor(b2, off);
        const long long oc = tile.shfl_xor(c1, off);
        const int32_t oy = tile.shfl_xor(y1, off);
        if (o1 < b1 || (o1 == b1 && oy >= 0 && (y1 < 0 || oy < y1))) {
            b2 = min(b1, o2);
            b1 = o1;
            c1 = oc;
            y1 = oy;
        } else {
            b2 = min(b2, o1);
        }
    }
}

/* Row x's best two over a group of `group` threads: a tile of up to 32
 * lanes (every lane gets the result), or the whole block (a warp merge,
 * then warp 0 merges the warps' results: only thread 0 gets them). The
 * block form is for long rows: a bid's latency is one round of loads of
 * n / group arcs each, not n / 32, and in the tail of a phase, where a
 * few eviction chains run alone, that latency is the phase's time. */
template <int group, bool dense>
static __device__ __forceinline__ void best_two(const gcut__dassign &d, int32_t x, long long &b1,
                                                long long &b2, long long &c1, int32_t &y1)
{
    const cg::thread_block block = cg::this_thread_block();
    if (group <= 32) {
        const cg::thread_block_tile<(group <= 32 ? group : 32)> tile =
            cg::tiled_partition<(group <= 32 ? group : 32)>(block);
        scan_part<dense>(d, x, (int)tile.thread_rank(), group, b1, b2, c1, y1);
        merge_tile(tile, b1, b2, c1, y1);
        return;
    }
    constexpr int warps = group > 32 ? group / 32 : 1;
    __shared__ long long s_b1[warps], s_b2[warps], s_c1[warps];
    __shared__ int32_t s_y1[warps];
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    scan_part<dense>(d, x, (int)threadIdx.x, group, b1, b2, c1, y1);
    merge_tile(warp, b1, b2, c1, y1);
    const int w = (int)(threadIdx.x / 32), lane = (int)warp.thread_rank();
    if (lane == 0) {
        s_b1[w] = b1;
        s_b2[w] = b2;
        s_c1[w] = c1;
        s_y1[w] = y1;
    }
    block.sync();
    if (w == 0) {
        b1 = lane < warps ? s_b1[lane] : INF64;
        b2 = lane < warps ? s_b2[lane] : INF64;
        c1 = lane < warps ? s_c1[lane] : 0;
        y1 = lane < warps ? s_y1[lane] : -1;
        /* only the warps' results: log2(warps) steps, not 5 (a bid's
         * latency is the tail's time) */
        merge_tile<32, (warps >= 2 ? warps / 2 : 1)>(warp, b1, b2, c1, y1);
    }
}

/* One bid of row x from its best two, by one thread (`running`: the stop
 * code as read before x's scan): returns the row to
 * bid for next (x again when the bid lost and x must scan again; the
 * evicted owner when it took an owned column), -1 when the chain is over
 * (it took a free column, or the bid stopped the phase) or -2 when the
 * phase was stopped before it: x holds no column. */
static __device__ int32_t bid(const gcut__dassign &d, int32_t x, long long b1, long long b2,
                              long long c1, int32_t y1, long long eps, long long deadline,
                              unsigned long long bids, int32_t running)
{
    const unsigned long long none = (1ull << d.bits) - 1;
    if (running != GCUT__DASSIGN_RUNNING)
        return -2;
    if (y1 < 0 || (d.start_min && b1 - d.start_min[x] > d.drop_bound)) {
        stop(d, GCUT__DASSIGN_INFEASIBLE, x);
        return -1;
    }
    if ((bids & 63) == 0 && now_ns() > deadline) {
        stop(d, GCUT__DASSIGN_TIMEOUT, x);
        return -1;
    }
    if (b2 == INF64)
        b2 = b1; /* one arc: the smallest drop (see src/cpu/assign_csa.c) */
    const long long price = c1 - b2 - eps;
    if (price < d.pmin) {
        stop(d, GCUT__DASSIGN_RANGE, x);
        return -1;
    }
    const unsigned long long mine = (unsigned long long)(price - d.pmin) << d.bits |
                                    (unsigned long long)x;
    const unsigned long long old = atomicMin(&d.key[y1], mine);
    if (old <= mine)
        return x; /* lost: the price fell below the bid; scan again */
    const unsigned long long owner = old & none; /* taken: go on with the owner it had */
    return owner == none ? -1 : (int32_t)owner;
}

/* The next row from the phase's list, or -1 when it is used up (or the
 * phase is stopped). The worker that finds it used up first notes the
 * time (bids[4]): the launch's tail starts. */
static __device__ int32_t take_row(const gcut__dassign &d, const int32_t *list, int32_t count,
                                   unsigned long long budget)
{
    const int32_t i = *(volatile int32_t *)&d.state[1] == GCUT__DASSIGN_RUNNING
                          ? atomicAdd(&d.state[0], 1)
                          : count + 1;
    if (i == count && budget > 0)
        atomicExch(&d.bids[4], (unsigned long long)now_ns());
    return i < count ? list[i] : -1;
}

/* A price update is due: the launch made bid_budget bids (`made`), or its
 * tail, the chains left once its list was used up, ran tail_ns. An
 * update's paths place a tail's rows at once, where its chains bid one at
 * a time; waiting as long as an update takes before paying for one costs
 * at most twice the better choice where the update ends the tail (the
 * ski-rental rule). On an H100 the longest chain fell 4-22x on dense
 * 1000^2-5000^2 (bench/results/assign_NVIDIA_H100_80GB_HBM3.md). */
static __device__ bool update_due(const gcut__dassign &d, unsigned long long made,
                                  unsigned long long budget, long long tail_ns)
{
    if (made >= budget)
        return true;
    const unsigned long long drained = *(volatile unsigned long long *)&d.bids[4];
    return tail_ns > 0 && drained != ~0ull &&
           (long long)((unsigned long long)now_ns() - drained) >= tail_ns;
}

/* A phase: every worker (a group of `group` threads: a tile of 4, 8 or 32
 * lanes, or a whole block of 128 to 1024) takes rows from the list and
 * places each one and, in turn, every row its bids evict, until a bid
 * takes a free column. The group's rank-0 thread bids and hands the next
 * row to the others (a shuffle in a tile, shared memory in a block). */
template <int group, bool dense>
static __global__ __launch_bounds__(group > 32 ? group : ASSIGN_BLOCK) void refine_kernel(
    gcut__dassign d, long long eps)
{
    constexpr bool whole_block = group > 32;
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<(group <= 32 ? group : 32)> tile =
        cg::tiled_partition<(group <= 32 ? group : 32)>(block);
    const bool leader = whole_block ? threadIdx.x == 0 : tile.thread_rank() == 0;
    __shared__ int32_t s_next;
    const long long deadline = now_ns() + d.time_limit_ns;
    const int32_t *list = d.list;
    int32_t *resume = d.resume;
    unsigned long long budget = d.bid_budget;
    long long tail_ns = d.tail_ns;
    if (d.loop) { /* a cycle queued by gcut__assign_dense_cycles */
        const gcut__dense_loop *loop = d.loop;
        if (*(volatile int32_t *)&loop->done)
            return; /* the phase ended in an earlier cycle: the same in every block */
        list = loop->list;
        resume = loop->resume;
        budget = loop->updating ? loop->bid_budget : 0;
        tail_ns = loop->tail_ns;
        if (blockIdx.x == 0 && threadIdx.x == 0)
            atomicAdd(&d.loop->launches, 1);
    }
    const int32_t count = d.state[3];
    unsigned long long bids = 0, chains = 0, longest = 0;
    /* every thread of the group gets the leader's row */
    auto share = [&](int32_t v) -> int32_t {
        if (!whole_block)
            return tile.shfl(v, 0);
        if (leader)
            s_next = v;
        block.sync();
        return s_next;
    };
    for (;;) {
        if (whole_block)
            block.sync(); /* every thread read the last s_next */
        int32_t x = share(leader ? take_row(d, list, count, budget) : 0);
        if (x < 0)
            break;
        unsigned long long chain = 0;
        while (x >= 0) {
            long long b1, b2, c1;
            int32_t y1;
            /* The stop code is loaded before the scan so that its round
             * trip overlaps the scan's instead of adding to the bid's; a
             * bid on a code read that early is as correct as any other
             * (the phase's end waits for every chain to end). */
            const int32_t running = leader ? *(volatile int32_t *)&d.state[1] : 0;
            best_two<group, dense>(d, x, b1, b2, c1, y1);
            int32_t next = -1;
            if (leader) {
                chain++;
                next = bid(d, x, b1, b2, c1, y1, eps, deadline, bids + chain, running);
                if (next == -2) {
                    /* paused for a price update: x goes back on the list */
                    chain--;
                    if (*(volatile int32_t *)&d.state[1] == GCUT__DASSIGN_PAUSE)
                        resume[atomicAdd(&d.state[4], 1)] = x;
                    next = -1;
                } else if (budget > 0 && ((bids + chain) & 15) == 0 &&
                           update_due(d, atomicAdd(&d.bids[3], 16ull) + 16, budget, tail_ns)) {
                    stop(d, GCUT__DASSIGN_PAUSE, x);
                }
            }
            x = share(next);
        }
        bids += chain;
        chains++;
        longest = chain > longest ? chain : longest;
    }
    if (leader && chains) {
        atomicAdd(&d.bids[0], chains);
        atomicAdd(&d.bids[1], bids);
        atomicMax(&d.bids[2], longest);
    }
}

/* First phase: every column free (price 0 kept), every row on the list. */
static __global__ void first_phase_kernel(gcut__dassign d)
{
    const unsigned long long none = (1ull << d.bits) - 1;
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += gridDim.x * blockDim.x) {
        d.key[i] |= none;
        d.list[i] = i;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        d.state[0] = 0;
        d.state[1] = GCUT__DASSIGN_RUNNING;
        d.state[2] = -1;
        d.state[3] = d.n;
        d.state[4] = 0;
        d.bids[4] = ~0ull;
    }
}

static __global__ void clear_state_kernel(gcut__dassign d)
{
    d.state[0] = 0;
    d.state[1] = GCUT__DASSIGN_RUNNING;
    d.state[2] = -1;
    d.state[3] = 0;
    d.state[4] = 0;
    d.bids[3] = 0;
    d.bids[4] = ~0ull;
}

/* Later phases: row x keeps its column y while c'(x, y) <= min c' + eps
 * (eps-optimal at the new eps); else y is freed and x goes on the list. */
template <int lanes, bool dense>
static __global__ __launch_bounds__(ASSIGN_BLOCK) void keep_kernel(gcut__dassign d, long long eps,
                                                                     const int32_t *row_col)
{
    const cg::thread_block_tile<lanes> tile = cg::tiled_partition<lanes>(cg::this_thread_block());
    const unsigned long long none = (1ull << d.bits) - 1;
    const unsigned shift = (unsigned)d.bits;
    const int32_t groups = (int32_t)(gridDim.x * (ASSIGN_BLOCK / lanes));
    for (int32_t x = (int32_t)((blockIdx.x * blockDim.x + threadIdx.x) / lanes); x < d.n;
         x += groups) {
        const int32_t y = row_col[x];
        const long long begin = dense ? (long long)x * d.n : d.row_ptr[x];
        const long long end = dense ? begin + d.n : d.row_ptr[x + 1];
        long long best = INF64, held = INF64;
        for (long long a = begin + tile.thread_rank(); a < end; a += lanes) {
            const int32_t z = dense ? (int32_t)(a - begin) : __ldg(&d.col[a]);
            const long long c =
                d.cost32 ? (long long)__ldg(&d.cost32[a]) * d.unit : __ldg(&d.cost64[a]);
            const long long v = c - ((long long)(d.key[z] >> shift) + d.pmin);
            best = min(best, v);
            if (z == y)
                held = min(held, v);
        }
#pragma unroll
        for (int off = lanes / 2; off > 0; off /= 2) {
            best = min(best, tile.shfl_xor(best, off));
            held = min(held, tile.shfl_xor(held, off));
        }
        if (tile.thread_rank() == 0 && (y < 0 || held > best + eps)) {
            if (y >= 0)
                d.key[y] |= none;
            d.list[atomicAdd(&d.state[3], 1)] = x;
        }
    }
}

/* After a pause: the rows the list still held join the rows the workers
 * gave back (resume), which becomes the next launch's list. */
static __global__ void resume_kernel(gcut__dassign d)
{
    const int32_t count = d.state[3];
    const int32_t taken = min(d.state[0], count), back = d.state[4];
    for (int32_t i = taken + blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x)
        d.resume[back + i - taken] = d.list[i];
}

/* A resumed launch's state: `left` rows on its list, none taken, running,
 * its bids and drain time cleared. */
static __device__ void state_resume(const gcut__dassign &d, int32_t left)
{
    d.state[3] = left;
    d.state[0] = 0;
    d.state[1] = GCUT__DASSIGN_RUNNING;
    d.state[2] = -1;
    d.state[4] = 0;
    d.bids[3] = 0;
    d.bids[4] = ~0ull;
}

static __global__ void resume_state_kernel(gcut__dassign d)
{
    const int32_t count = d.state[3];
    const int32_t taken = min(d.state[0], count);
    state_resume(d, d.state[4] + count - taken);
}

/* A dense phase driven on the device (gcut__assign_dense_cycles): its
 * loop state at the phase's start (one thread). */
static __global__ void dense_loop_start_kernel(gcut__dassign d, int updating,
                                               unsigned long long bid_budget, int update_passes,
                                               int update_passes_max, unsigned seq)
{
    gcut__dense_loop *const loop = d.loop;
    loop->list = d.list;
    loop->resume = d.resume;
    loop->bid_budget = bid_budget;
    loop->tail_ns = 0;
    loop->pause_start = now_ns();
    loop->update_ns = 0;
    loop->seq = seq;
    loop->done = 0;
    loop->updating = updating;
    loop->update_passes = update_passes;
    loop->update_passes_max = update_passes_max;
    loop->launches = loop->updates = loop->passes = loop->placed = loop->failed = 0;
}

/* After a queued refine (one block): paused, the rows it gave back and
 * those left on its list become the list (resume_kernel and
 * resume_state_kernel, with the lists swapped here), and the pause's cost
 * is counted from now; not paused (every row placed, or a stop code), the
 * phase is done and the cycles queued after it do nothing. */
static __global__ void dense_loop_resume_kernel(gcut__dassign d)
{
    gcut__dense_loop *const loop = d.loop;
    const int32_t done = *(volatile int32_t *)&loop->done;
    const int32_t code = *(volatile int32_t *)&d.state[1];
    __syncthreads(); /* every thread read both before thread 0 writes them */
    if (done)
        return;
    if (code != GCUT__DASSIGN_PAUSE) {
        if (threadIdx.x == 0)
            loop->done = 1;
        return;
    }
    const int32_t count = d.state[3];
    const int32_t taken = min(d.state[0], count), back = d.state[4];
    int32_t *const list = loop->list, *const resume = loop->resume;
    for (int32_t i = taken + (int32_t)threadIdx.x; i < count; i += (int32_t)blockDim.x)
        resume[back + i - taken] = list[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        state_resume(d, back + count - taken);
        loop->list = resume;
        loop->resume = list;
        loop->pause_start = now_ns();
    }
}

/* Global price update (seed 001 section 5.2) in one cooperative launch,
 * then an augmentation along its shortest paths.
 *
 * Labels: the label of column z held by row x is min over x's other arcs
 * v of label[v] + floor((c'(x, v) - c'(x, z)) / eps) + 1 (via[z] = the
 * arg min), free columns 0, capped at d.label_cap, found by Bellman-Ford
 * passes with a grid-wide barrier between them and the fixed-point test on
 * the device. Launched one pass at a time, an update cost a launch and a
 * host round trip a pass: on an H100, 0.88 ms an update on dense 2000^2
 * against 0.38 ms in one launch (bench/results/assign_NVIDIA_H100_80GB_HBM3.md,
 * median 43.1 -> 29.5 ms). A column is written only by its holder's
 * worker, labels only fall, so in-place passes converge; a pass that
 * changes nothing is the fixed point, where
 * label[z] = label[via[z]] + the length of z -> via[z] with the final
 * labels.
 *
 * Augmentation: after prices fall by eps times the labels (capped at the
 * active rows' reach), an active row's best column u0 (the arg min of its
 * reach) starts a path u0, via[u0], ... down to a free column. Moving u0's
 * holder h to via[u0] keeps h eps-optimal: with the new prices c'(h,
 * via[u0]) - c'(h, u0) = delta - eps (floor(delta / eps) + 1) < 0 for delta
 * = the old difference, and u0 was within eps of h's best; so does every
 * later step, and the active row takes its best column. Shifting every row
 * of the path one step places the active row with no bid and no price
 * change, as the Hungarian method's augmentation does; where the auction
 * would walk that path one bid (a few us) a step, one thread walks it in a
 * load a step. Paths of different rows may meet: a row claims its path's
 * columns (claim[u] = this update's `seq`, by atomicCAS) and shifts it only
 * if it claimed all of them; the others stay on the list for the bids.
 * The paths alone did not pay (the chains between two updates still ran
 * to their ends); with the tail pauses (update_due) they end the late
 * phases' chains: medians against the update alone, dense 2000^2 29.5 ->
 * 26.3 ms, 5000^2 85.7 -> 57.3 ms, sparse 10^6 arcs 329 -> 252 ms.
 *
 * Labels, the assignment and the claims are written during the launch, so
 * they are read through L2 (__ldcg, volatile), never from a block's L1. */

/* The minimum of a (with its index ia, ties to the lower index) and of b
 * over a row's group of `lanes` threads (a tile, or the whole block when
 * lanes > 32), valid in the group's rank-0 thread. Every thread of the
 * group calls it. */
template <int lanes>
static __device__ __forceinline__ void group_min_arg(long long &a, int32_t &ia, long long &b)
{
    auto take = [&](long long oa, int32_t oi, long long ob) {
        if (oa < a || (oa == a && oi < ia)) {
            a = oa;
            ia = oi;
        }
        b = min(b, ob);
    };
    if constexpr (lanes <= 32) {
        const cg::thread_block_tile<lanes> tile =
            cg::tiled_partition<lanes>(cg::this_thread_block());
#pragma unroll
        for (int off = lanes / 2; off > 0; off /= 2)
            take(tile.shfl_xor(a, off), tile.shfl_xor(ia, off), tile.shfl_xor(b, off));
    } else {
        __shared__ long long s_a[lanes / 32], s_b[lanes / 32];
        __shared__ int32_t s_i[lanes / 32];
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            take(__shfl_xor_sync(0xffffffffu, a, off), __shfl_xor_sync(0xffffffffu, ia, off),
                 __shfl_xor_sync(0xffffffffu, b, off));
        if (threadIdx.x % 32 == 0) {
            s_a[threadIdx.x / 32] = a;
            s_i[threadIdx.x / 32] = ia;
            s_b[threadIdx.x / 32] = b;
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int w = 1; w < lanes / 32; w++)
                take(s_a[w], s_i[w], s_b[w]);
        __syncthreads(); /* the arrays are reused by the group's next row */
    }
}

/* scratch: [0] the largest label of an active row, [1] 1 when a new price
 * would pass pmin, [2] the last pass that changed a label, [3] passes run,
 * [4] 1 when the prices were lowered (then the list's rows left active are
 * in d.resume, state[3] of them), [5] those rows, [6] rows placed by the
 * augmentation. */

/* Row x's share (arcs rank, rank + lanes, ...) of its reach over the
 * columns other than z: the least c'(x, v) + eps label[v] over the
 * labelled v (arg: that v), with c'(x, z) (held) and the least c' over
 * the other columns (low). A pass of the updates below and the active
 * rows' scan both read a row through it. */
template <int lanes, bool dense>
static __device__ __forceinline__ void reach_part(const gcut__dassign &d, int32_t x, int32_t z,
                                                  int32_t rank, long long eps, long long &reach,
                                                  int32_t &arg, long long &held, long long &low)
{
    const unsigned shift = (unsigned)d.bits;
    const long long begin = dense ? (long long)x * d.n : d.row_ptr[x];
    const long long end = dense ? begin + d.n : d.row_ptr[x + 1];
    reach = INF64;
    arg = -1;
    held = INF64;
    low = INF64;
    for (long long a = begin + rank; a < end; a += lanes) {
        const int32_t v = dense ? (int32_t)(a - begin) : __ldg(&d.col[a]);
        const long long c =
            d.cost32 ? (long long)__ldg(&d.cost32[a]) * d.unit : __ldg(&d.cost64[a]);
        const long long w = c - ((long long)(d.key[v] >> shift) + d.pmin);
        if (v == z) {
            held = min(held, w);
            continue;
        }
        low = min(low, w);
        const int32_t l = __ldcg(&d.label[v]);
        if (l < d.label_cap && w + eps * l < reach) {
            reach = w + eps * l;
            arg = v;
        }
    }
}

/* Start of an update: labels 0 at free columns, label_cap elsewhere; the
 * assignment both ways (holder, row_col); scratch cleared. */
static __device__ void update_start(const gcut__dassign &d, int32_t *row_col, int32_t *scratch,
                                    const cg::grid_group &grid)
{
    const unsigned long long none = (1ull << d.bits) - 1;
    const int32_t tid = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    const int32_t threads = (int32_t)(gridDim.x * blockDim.x);
    for (int32_t y = tid; y < d.n; y += threads) {
        const unsigned long long k = d.key[y];
        d.label[y] = (k & none) == none ? 0 : d.label_cap;
        d.holder[y] = (k & none) == none ? -1 : (int32_t)(k & none);
        row_col[y] = -1;
    }
    if (tid == 0)
        for (int i = 0; i < 7; i++)
            scratch[i] = 0;
    grid.sync();
    for (int32_t y = tid; y < d.n; y += threads) {
        const int32_t h = __ldcg(&d.holder[y]);
        if (h >= 0)
            row_col[h] = y;
    }
    grid.sync();
}

/* The first phase's infeasibility test at an update (d.start_min set) on
 * an active row x, from its reach and best c' at the old prices: once
 * they fall by eps times min(label, top), x's best c' is at least
 * min(reach, best + eps label_cap). A column labelled below the cap and
 * the top falls by eps times its label, so its c' reaches at least the
 * reach; one at the top or past it falls by eps top, and top > (reach -
 * best) / eps unless the top is the cap + 1 (a row with a longer reach, or
 * none: no free column within the cap); one at the cap falls by eps
 * label_cap. The lowered state is eps-optimal and keeps the free columns'
 * prices, which is all that the path argument behind drop_bound asks of a
 * state (src/cpu/assign_csa.c): in a feasible problem no active row passes
 * the bound there, so a row that would proves infeasibility, as the bids'
 * test does, whether or not the update is applied. An active row that
 * reaches no free column at all (its columns' labels stay at the cap)
 * stops the phase at this update wherever eps label_cap is past the bound
 * (2n + 2)(eps0 + eps): label_cap = 2^30 > (2n + 2)(alpha + 1) at the
 * first eps, n up to 48 million at alpha 10; past that the bids' test
 * finds it, as without updates. */
static __device__ bool past_bound(const gcut__dassign &d, int32_t x, long long reach,
                                  long long best, long long eps)
{
    const long long s = d.start_min[x];
    return (reach == INF64 || reach - s > d.drop_bound) &&
           best - s > d.drop_bound - eps * (long long)d.label_cap;
}

/* After the passes reached the fixed point (labels and via final, `pass`
 * passes): the active rows' reach, the prices lowered, the paths claimed
 * and shifted (see above). A row is scanned by a group of `lanes` threads
 * (a tile, or the whole block when lanes > 32). */
template <int lanes, bool dense>
static __device__ void update_finish(const gcut__dassign &d, long long eps, unsigned seq,
                                     int32_t *row_col, int32_t *scratch, int pass,
                                     const cg::grid_group &grid)
{
    const unsigned long long none = (1ull << d.bits) - 1;
    const unsigned shift = (unsigned)d.bits;
    const int32_t rank = lanes > 32 ? (int32_t)threadIdx.x
                                    : (int32_t)(threadIdx.x % (unsigned)lanes);
    const int32_t groups = (int32_t)(gridDim.x * (blockDim.x / lanes));
    const int32_t first_row = (int32_t)((blockIdx.x * blockDim.x + threadIdx.x) / lanes);
    const int32_t tid = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    const int32_t threads = (int32_t)(gridDim.x * blockDim.x);
    int32_t *const via_row = d.via + d.n; /* an active row's best column */

    /* The largest label of an active row (min over its arcs of label[v] +
     * floor((c'(x, v) - min c') / eps)); columns past it get it + 1, as
     * the bucket update leaves unscanned nodes. An active row's path
     * starts at the arg min, where that label is below the cap (so that
     * the arg min is the row's best column at the new prices). */
    for (int32_t x = first_row; x < d.n; x += groups) {
        if (__ldcg(&row_col[x]) >= 0)
            continue;
        long long reach, held, best;
        int32_t arg;
        reach_part<lanes, dense>(d, x, -1, rank, eps, reach, arg, held, best);
        group_min_arg<lanes>(reach, arg, best);
        if (rank == 0) {
            const long long l = reach == INF64 ? d.label_cap : (reach - best) / eps;
            atomicMax(&scratch[0], (int32_t)min(l, (long long)d.label_cap));
            via_row[x] = l < d.label_cap ? arg : -1;
            if (d.start_min && past_bound(d, x, reach, best, eps)) {
                stop(d, GCUT__DASSIGN_INFEASIBLE, x);
                scratch[1] = 1; /* prices unchanged: the phase ends here */
            }
        }
    }
    grid.sync();
    const long long top = (long long)__ldcg(&scratch[0]) + 1;
    for (int32_t y = tid; y < d.n; y += threads) {
        const long long l = min((long long)__ldcg(&d.label[y]), top);
        if ((long long)(d.key[y] >> shift) < eps * l)
            scratch[1] = 1; /* the update is left out */
    }
    grid.sync();
    if (__ldcg(&scratch[1]) != 0) {
        if (tid == 0) {
            scratch[3] = pass;
            if (*(volatile int32_t *)&d.state[1] == GCUT__DASSIGN_INFEASIBLE)
                scratch[4] = -1;
        }
        return;
    }
    for (int32_t y = tid; y < d.n; y += threads) {
        const long long l = min((long long)__ldcg(&d.label[y]), top);
        d.key[y] -= (unsigned long long)(eps * l) << shift;
    }

    /* Each active row (the list's, holding no column) claims its path; a
     * row that did not claim it all clears its via_row. */
    const int32_t count = d.state[3];
    for (int32_t i = tid; i < count; i += threads) {
        const int32_t x = d.list[i];
        int32_t u = __ldcg(&via_row[x]);
        if (u < 0 || __ldcg(&row_col[x]) >= 0)
            continue; /* (a row on the list holds none; row_col[x] >= 0 is never seen) */
        for (;;) {
            const unsigned old = __ldcg(&d.claim[u]);
            if (old == seq || atomicCAS(&d.claim[u], old, seq) != old) {
                u = -1; /* met another path, or its own */
                break;
            }
            if (__ldcg(&d.holder[u]) < 0)
                break; /* a free column: the path is whole */
            u = __ldcg(&d.via[u]);
            if (u < 0)
                break; /* no next column (cannot happen at the fixed point) */
        }
        if (u < 0)
            via_row[x] = -1;
    }
    grid.sync();
    /* The placed rows shift their paths (each column is one path's); the
     * others go to d.resume, the next refine's list. */
    for (int32_t i = tid; i < count; i += threads) {
        const int32_t x = d.list[i];
        if (__ldcg(&row_col[x]) >= 0 || __ldcg(&via_row[x]) < 0) {
            d.resume[atomicAdd(&scratch[5], 1)] = x;
            continue;
        }
        int32_t u = __ldcg(&via_row[x]), owner = x;
        for (;;) {
            const int32_t h = __ldcg(&d.holder[u]);
            /* through L2: another block lowered this price above */
            d.key[u] = (__ldcg(&d.key[u]) & ~none) | (unsigned long long)owner;
            if (h < 0)
                break;
            owner = h;
            u = __ldcg(&d.via[u]);
        }
        atomicAdd(&scratch[6], 1);
    }
    grid.sync();
    if (tid == 0) {
        d.state[3] = __ldcg(&scratch[5]);
        scratch[3] = pass;
        scratch[4] = 1;
    }
}

/* The update with full passes: every matched row reads all its arcs a
 * pass, labels in place (a row may see labels lowered earlier in the same
 * pass). The CSR layout's, and dense rows' where the frontier update's
 * block does not fit (frontier_update_kernel). */
template <int lanes, bool dense>
static __global__ __launch_bounds__(ASSIGN_BLOCK) void price_update_kernel(
    gcut__dassign d, long long eps, int max_passes, unsigned seq, int32_t *row_col,
    int32_t *scratch)
{
    const cg::grid_group grid = cg::this_grid();
    const int32_t rank = lanes > 32 ? (int32_t)threadIdx.x
                                    : (int32_t)(threadIdx.x % (unsigned)lanes);
    const int32_t groups = (int32_t)(gridDim.x * (ASSIGN_BLOCK / lanes));
    const int32_t first_row = (int32_t)((blockIdx.x * blockDim.x + threadIdx.x) / lanes);

    update_start(d, row_col, scratch, grid);
    int converged = 0, pass = 0;
    while (pass < max_passes && !converged) {
        ++pass;
        for (int32_t x = first_row; x < d.n; x += groups) {
            const int32_t z = __ldcg(&row_col[x]);
            if (z < 0)
                continue; /* the same for the whole group */
            long long reach, held, low;
            int32_t arg;
            reach_part<lanes, dense>(d, x, z, rank, eps, reach, arg, held, low);
            group_min_arg<lanes>(reach, arg, held);
            if (rank == 0 && reach != INF64) {
                const long long gap = reach - held + eps; /* >= 0 when eps-optimal */
                const long long l = gap > 0 ? gap / eps : 0;
                if (l < *(volatile int32_t *)&d.label[z]) {
                    *(volatile int32_t *)&d.label[z] = (int32_t)l;
                    d.via[z] = arg;
                    /* the pass numbers only grow, so a block that reads
                     * this after the barrier sees it or a later one */
                    *(volatile int32_t *)&scratch[2] = pass;
                }
            }
        }
        grid.sync();
        converged = *(volatile int32_t *)&scratch[2] < pass;
    }
    if (!converged) { /* the same in every block: prices unchanged */
        if (blockIdx.x == 0 && threadIdx.x == 0)
            scratch[3] = pass;
        return;
    }
    update_finish<lanes, dense>(d, eps, seq, row_col, scratch, pass, grid);
}

/* The update on dense rows by frontiers: the same labels, via and result
 * as price_update_kernel, from a fraction of its reads.
 *
 * Prices are fixed during the passes, so a row's reach only falls where
 * a label falls: a row keeps its reach and arg min from pass to pass
 * (shared memory) and each pass relaxes only the columns whose label fell
 * in the pass before (the frontier; the first pass's: the free columns).
 * A column's label falling sets its bit in a mask; every block lists the
 * set bits in column order (so the gathers of a wide frontier are
 * contiguous) with eps label[v] - p(v) beside each, and a warp a row
 * scans that list. Passes are Jacobi (a row reads the labels of the pass
 * before; one lowered in this pass is seen now or in the next pass, as
 * its bit is set then), each label is the length of a path, and a row's
 * reach takes the least over every value it saw, so the fixed point (a
 * pass that lowers nothing) is the full passes' fixed point; the final
 * reach is met at the final label of its arg min, which makes via[z] a
 * tight arc as the augmentation needs. The full passes read the whole
 * matrix and every price and label each pass (14-25 passes an update on
 * dense 2000^2, 57 % of its phases' time on an H100); here a pass reads
 * the frontier's arcs and n / 32 mask words a block.
 *
 * The masks rotate over three buffers: pass k reads mask k % 3, sets bits
 * in mask (k + 1) % 3 and clears mask (k + 2) % 3 (read in pass k - 1,
 * written in pass k + 1: the barriers order both). */
#define FRONTIER_BLOCK 512
#define FRONTIER_WARPS (FRONTIER_BLOCK / 32)
#define FRONTIER_ROWS 8 /* rows a warp at most */

/* Exclusive prefix sum of v over the block (total: the sum, to every
 * thread). */
static __device__ __forceinline__ int32_t block_exclusive_sum(int32_t v, int32_t &total)
{
    __shared__ int32_t s_warp[FRONTIER_WARPS];
    const int lane = (int)(threadIdx.x % 32), w = (int)(threadIdx.x / 32);
    int32_t inc = v;
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
        const int32_t o = __shfl_up_sync(0xffffffffu, inc, off);
        if (lane >= off)
            inc += o;
    }
    if (lane == 31)
        s_warp[w] = inc;
    __syncthreads();
    int32_t before = 0;
    total = 0;
    for (int i = 0; i < FRONTIER_WARPS; i++) {
        const int32_t s = s_warp[i];
        before += i < w ? s : 0;
        total += s;
    }
    __syncthreads(); /* s_warp is reused by the next call */
    return before + inc - v;
}

/* After an update queued by gcut__assign_dense_cycles (one thread, its
 * result in scratch as update_finish left it): what the host's loop does
 * with an update's result in solver_phases (src/gpu/assign_gpu.cu), and
 * the pause's cost, from the pause's start to now, as the next refines'
 * tail (update_due): with no host between them, a pause costs the update
 * and a few launches, not the round trips of a host that waits. */
static __device__ void loop_after_update(const gcut__dassign &d, const int32_t *scratch,
                                         int max_passes)
{
    gcut__dense_loop *const loop = d.loop;
    const int32_t passes = *(volatile const int32_t *)&scratch[3];
    const long long spent = now_ns() - loop->pause_start;
    loop->seq++;
    loop->passes += passes;
    loop->tail_ns = spent;
    loop->update_ns += spent;
    if (*(volatile const int32_t *)&scratch[4] > 0) {
        /* applied: the rows left active (in resume) are the next list */
        int32_t *const swap = loop->list;
        loop->list = loop->resume;
        loop->resume = swap;
        loop->updates++;
        loop->placed += *(volatile const int32_t *)&scratch[6];
    } else if (passes >= max_passes && loop->update_passes < loop->update_passes_max) {
        loop->update_passes *= 2; /* short of the fixed point: twice the passes next */
        loop->failed++;
    } else {
        loop->updating = 0; /* no fixed point in reach: bid on without pauses */
    }
}

static __global__ __launch_bounds__(FRONTIER_BLOCK) void frontier_update_kernel(
    gcut__dassign d, long long eps, int max_passes, unsigned seq, int32_t *row_col,
    int32_t *scratch)
{
    extern __shared__ long long s_q[];           /* n: eps label[v] - p(v) of the list */
    int32_t *const s_ids = (int32_t *)(s_q + d.n); /* n: the list's columns, in order */
    __shared__ long long s_reach[FRONTIER_WARPS * FRONTIER_ROWS],
        s_held[FRONTIER_WARPS * FRONTIER_ROWS];
    __shared__ int32_t s_z[FRONTIER_WARPS * FRONTIER_ROWS], s_via[FRONTIER_WARPS * FRONTIER_ROWS],
        s_label[FRONTIER_WARPS * FRONTIER_ROWS];
    const cg::grid_group grid = cg::this_grid();
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    const unsigned shift = (unsigned)d.bits;
    const unsigned long long none = (1ull << d.bits) - 1;
    const int32_t n = d.n, words = (n + 31) / 32;
    const int lane = (int)warp.thread_rank(), w = (int)(threadIdx.x / 32);
    const int32_t warps = (int32_t)(gridDim.x * FRONTIER_WARPS);
    const int32_t gwarp = (int32_t)(blockIdx.x * FRONTIER_WARPS) + w;
    const int32_t tid = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    const int32_t threads = (int32_t)(gridDim.x * blockDim.x);
    const int32_t *const cost = d.cost32;
    /* update_finish's lists: the loop's where a cycle queued this update */
    gcut__dassign fin = d;
    if (d.loop) {
        /* Read by every block before its first barrier; written by thread
         * 0 only after the last one: the same in every block. */
        const gcut__dense_loop *loop = d.loop;
        if (*(volatile const int32_t *)&loop->done || !*(volatile const int32_t *)&loop->updating)
            return;
        max_passes = 2 * *(volatile const int32_t *)&loop->update_passes;
        seq = *(volatile const unsigned *)&loop->seq;
        fin.list = loop->list;
        fin.resume = loop->resume;
    }

    update_start(d, row_col, scratch, grid);
    /* mask 1 (pass 1's frontier): the free columns; masks 0 and 2 clear */
    for (int32_t i = gwarp; i < words; i += warps) {
        const int32_t y = i * 32 + lane;
        const unsigned bits =
            warp.ballot(y < n && (__ldcg(&d.key[y]) & none) == none);
        if (lane == 0) {
            d.front[i] = 0;
            d.front[words + i] = bits;
            d.front[2 * words + i] = 0;
        }
    }
    /* this warp's rows: c'(x, z) of the column held, nothing reached */
    for (int r = 0; r < FRONTIER_ROWS; r++) {
        const int32_t x = gwarp + r * warps, s = w * FRONTIER_ROWS + r;
        if (lane == 0 && x < n) {
            const int32_t z = __ldcg(&row_col[x]);
            s_z[s] = z;
            s_reach[s] = INF64;
            s_via[s] = -1;
            s_label[s] = d.label_cap;
            s_held[s] = z < 0 ? 0
                              : (long long)__ldg(&cost[(long long)x * n + z]) * d.unit -
                                    ((long long)(__ldcg(&d.key[z]) >> shift) + d.pmin);
        }
    }
    grid.sync();

    int converged = 0, pass = 0;
    while (pass < max_passes && !converged) {
        ++pass;
        const unsigned *const front = d.front + (pass % 3) * words;
        unsigned *const next = d.front + ((pass + 1) % 3) * words;
        unsigned *const old = d.front + ((pass + 2) % 3) * words;
        for (int32_t i = tid; i < words; i += threads)
            old[i] = 0;
        /* The frontier in column order: each thread lists the set bits of
         * a run of words, at its offset in the block's sum. */
        const int32_t per = (words + FRONTIER_BLOCK - 1) / FRONTIER_BLOCK;
        const int32_t w0 = (int32_t)threadIdx.x * per;
        const unsigned first = w0 < words ? __ldcg(&front[w0]) : 0u; /* per is 1 to n = 16384 */
        int32_t mine = __popc(first);
        for (int32_t i = w0 + 1; i < w0 + per && i < words; i++)
            mine += __popc(__ldcg(&front[i]));
        int32_t size;
        int32_t at = block_exclusive_sum(mine, size);
        for (int32_t i = w0; i < w0 + per && i < words; i++)
            for (unsigned b = i == w0 ? first : __ldcg(&front[i]); b; b &= b - 1)
                s_ids[at++] = i * 32 + __ffs((int)b) - 1;
        __syncthreads();
        for (int32_t j = (int32_t)threadIdx.x; j < size; j += FRONTIER_BLOCK) {
            const int32_t v = s_ids[j];
            s_q[j] = eps * (long long)__ldcg(&d.label[v]) -
                     ((long long)(__ldg(&d.key[v]) >> shift) + d.pmin);
        }
        __syncthreads();
        for (int r = 0; r < FRONTIER_ROWS; r++) {
            const int32_t x = gwarp + r * warps, s = w * FRONTIER_ROWS + r;
            if (x >= n)
                break;
            const int32_t z = s_z[s];
            if (z < 0 || size == 0)
                continue; /* the same for the whole warp */
            const int32_t *const row = cost + (long long)x * n;
            long long best = INF64;
            int32_t arg = -1;
#pragma unroll 8
            for (int32_t j = lane; j < size; j += 32) {
                const int32_t v = s_ids[j];
                const long long cand = (long long)__ldg(&row[v]) * d.unit + s_q[j];
                if (v != z && cand < best) {
                    best = cand;
                    arg = v;
                }
            }
            long long unused = 0;
            group_min_arg<32>(best, arg, unused);
            if (lane == 0 && best < s_reach[s]) {
                s_reach[s] = best;
                s_via[s] = arg;
                const long long gap = best - s_held[s] + eps; /* >= 0 when eps-optimal */
                const long long l = gap > 0 ? gap / eps : 0;
                if (l < s_label[s]) {
                    s_label[s] = (int32_t)l;
                    __stcg(&d.label[z], (int32_t)l);
                    atomicOr(&next[z / 32], 1u << (z % 32));
                    *(volatile int32_t *)&scratch[2] = pass;
                }
            }
        }
        grid.sync();
        converged = __ldcg(&scratch[2]) < pass;
    }
    if (!converged) { /* the same in every block: prices unchanged */
        if (tid == 0) {
            scratch[3] = pass;
            scratch[4] = 0;
            if (d.loop)
                loop_after_update(d, scratch, max_passes);
        }
        return;
    }
    for (int r = 0; r < FRONTIER_ROWS; r++) {
        const int32_t x = gwarp + r * warps, s = w * FRONTIER_ROWS + r;
        if (lane == 0 && x < n && s_z[s] >= 0 && s_label[s] < d.label_cap)
            d.via[s_z[s]] = s_via[s];
    }
    grid.sync();
    /* the active rows a block each: their scans are the whole rows */
    update_finish<FRONTIER_BLOCK, true>(fin, eps, seq, row_col, scratch, pass, grid);
    if (d.loop && tid == 0) /* after update_finish's last barrier (both of its ends) */
        loop_after_update(d, scratch, max_passes);
}

/* The update on CSR rows by frontiers: the same labels and prices as
 * price_update_kernel, from the arcs entering the columns whose label fell.
 *
 * A pass of the full update reads every arc, while on windowed graphs a
 * label falls only on a thin front crossing flat, tied regions (hundreds
 * of passes an update, ~2/3 of a RubberWhale solve's time on an H100).
 * Here a pass pushes instead of pulls: for each column v of the frontier
 * (pass 1: the free columns; then those whose label fell in the pass
 * before) and each arc (x, v) entering it (the transpose, built once a
 * solve) of a row x holding z != v, label[z] takes label[v] +
 * floor((c'(x, v) - c'(x, z)) / eps) + 1 by one atomicMin, the formula of
 * the full passes per arc (a floor of a monotone reach), so labels only
 * fall and the fixed point (an empty frontier) is the same: a column's
 * last fall queues it, and the pass after relaxes its arcs at its final
 * label.
 *
 * via[z] rides in the same 64-bit key, (label, stamp, v): the
 * augmentation walks via, so it must be a tight arc at the fixed point
 * (it is: a later fall of label[v] would have lowered label[z]) and
 * acyclic, which zero-length arcs (c' differences within eps) could break
 * were ties settled by column id alone. The stamp is the proposer's stamp
 * + 1 (free columns 0): among equal labels the lower stamp wins, and a
 * key only falls, so along via stamps fall strictly. Stamps stay below
 * the passes + 2 (the launcher bounds max_passes by the stamp's bits).
 * Where a frontier is wide, a pass pulls instead (below): the same keys,
 * the same next frontier. */
#define LKEY_LABEL_SHIFT 33 /* a label (at most 2^30) above the stamp and the column */
/* A pass pulls over every row's arcs where the frontier has more than
 * n / CSR_FRONTIER_WIDE columns: a pushed arc costs a few gathers and an
 * atomic where a pulled one is read in order (the first passes of an
 * update on random sparse rows, whose frontiers cover most columns). */
#define CSR_FRONTIER_WIDE 4
#define CSR_FRONTIER_PARTS 8
#define CSR_FRONTIER_STAMP_BITS 14 /* stamps for 2 * 4096 passes (src/gpu/assign_gpu.cu) */

static __device__ __forceinline__ unsigned long long lkey_pack(const gcut__dassign &d,
                                                               long long label,
                                                               unsigned long long stamp,
                                                               unsigned long long v)
{
    return (unsigned long long)label << LKEY_LABEL_SHIFT | stamp << d.bits | v;
}

template <int lanes>
static __global__ __launch_bounds__(ASSIGN_BLOCK) void csr_frontier_update_kernel(
    gcut__dassign d, long long eps, int max_passes, unsigned seq, int32_t *row_col,
    int32_t *scratch)
{
    const cg::grid_group grid = cg::this_grid();
    const unsigned shift = (unsigned)d.bits;
    const unsigned long long none = (1ull << d.bits) - 1; /* also the via field's mask */
    const unsigned long long stamp_max = (1ull << (LKEY_LABEL_SHIFT - d.bits)) - 1;
    const int32_t n = d.n;
    const int32_t rank = (int32_t)(threadIdx.x % (unsigned)lanes);
    const int32_t groups = (int32_t)(gridDim.x * (ASSIGN_BLOCK / lanes));
    const int32_t first = (int32_t)((blockIdx.x * blockDim.x + threadIdx.x) / lanes);
    const int32_t tid = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    const int32_t threads = (int32_t)(gridDim.x * blockDim.x);

    update_start(d, row_col, scratch, grid);
    /* keys: label 0 at the free columns (pass 1's frontier; fcount was
     * cleared by the launcher), the cap elsewhere */
    for (int32_t y = tid; y < n; y += threads) {
        const bool is_free = __ldcg(&d.holder[y]) < 0;
        d.lkey[y] = is_free ? 0ull : lkey_pack(d, d.label_cap, stamp_max, none);
        d.fmark[y] = 0;
        if (is_free)
            d.flist[n + atomicAdd(&d.fcount[1], 1)] = y;
    }
    /* each matched row's c' at its column (a row may list it twice) */
    for (int32_t x = first; x < n; x += groups) {
        const int32_t z = __ldcg(&row_col[x]);
        if (z < 0)
            continue; /* the same for the whole group */
        long long reach, held, low;
        int32_t arg;
        reach_part<lanes, false>(d, x, z, rank, eps, reach, arg, held, low);
        group_min_arg<lanes>(reach, arg, held);
        if (rank == 0)
            d.held[x] = held;
    }
    grid.sync();

    int converged = 0, pass = 0;
    for (;;) {
        const int32_t count = __ldcg(&d.fcount[(pass + 1) % 3]);
        if (count == 0) {
            converged = 1;
            break;
        }
        if (pass == max_passes)
            break;
        ++pass;
        /* pass k reads list k % 2 (count k % 3), fills list (k + 1) % 2
         * (count (k + 1) % 3) and clears count (k + 2) % 3, read in pass
         * k - 1: the barriers order both */
        const int32_t *const list = d.flist + (pass & 1) * n;
        int32_t *const next = d.flist + ((pass + 1) & 1) * n;
        int32_t *const next_count = &d.fcount[(pass + 1) % 3];
        if (tid == 0)
            d.fcount[(pass + 2) % 3] = 0;
        if (count > n / CSR_FRONTIER_WIDE) {
            /* a wide frontier: every row pulls over its own arcs, as a
             * full pass (sequential reads, no atomics), taking the least
             * key; only z's holder writes it in such a pass */
            for (int32_t x = first; x < n; x += groups) {
                const int32_t z = __ldcg(&row_col[x]);
                if (z < 0)
                    continue; /* the same for the whole group */
                const long long hx = __ldcg(&d.held[x]);
                unsigned long long best = ~0ull;
                for (long long a = d.row_ptr[x] + rank; a < d.row_ptr[x + 1]; a += lanes) {
                    const int32_t v = __ldg(&d.col[a]);
                    if (v == z)
                        continue;
                    const unsigned long long kv = *(volatile unsigned long long *)&d.lkey[v];
                    const long long lv = (long long)(kv >> LKEY_LABEL_SHIFT);
                    if (lv >= d.label_cap)
                        continue;
                    const long long gap = (long long)__ldg(&d.cost32[a]) * d.unit -
                                          ((long long)(d.key[v] >> shift) + d.pmin) +
                                          eps * lv + eps - hx;
                    const long long l = gap > 0 ? gap / eps : 0;
                    const unsigned long long stamp_v = (kv >> shift) & stamp_max;
                    const unsigned long long k = lkey_pack(
                        d, l, stamp_v < stamp_max ? stamp_v + 1 : stamp_max, (unsigned long long)v);
                    if (l < d.label_cap && k < best)
                        best = k;
                }
                const cg::thread_block_tile<lanes> tile =
                    cg::tiled_partition<lanes>(cg::this_thread_block());
#pragma unroll
                for (int off = lanes / 2; off > 0; off /= 2) {
                    const unsigned long long o = tile.shfl_xor(best, off);
                    best = o < best ? o : best;
                }
                if (rank == 0 && best != ~0ull) {
                    const unsigned long long old = atomicMin(&d.lkey[z], best);
                    if ((old >> LKEY_LABEL_SHIFT) > (best >> LKEY_LABEL_SHIFT) &&
                        atomicExch(&d.fmark[z], pass) != pass)
                        next[atomicAdd(next_count, 1)] = z;
                }
            }
            grid.sync();
            continue;
        }
        /* a thin frontier: a column's arcs split over up to
         * CSR_FRONTIER_PARTS groups, so that a pass's latency is about one
         * arc's chain of loads and atomics, not a row's */
        const int32_t parts =
            count < groups ? min(groups / count, (int32_t)CSR_FRONTIER_PARTS) : 1;
        for (int32_t i = first; i < count * parts; i += groups) {
            const int32_t v = __ldcg(&list[i / parts]), part = i % parts;
            const unsigned long long kv = *(volatile unsigned long long *)&d.lkey[v];
            const long long lv = (long long)(kv >> LKEY_LABEL_SHIFT);
            const unsigned long long stamp_v = (kv >> shift) & stamp_max;
            const unsigned long long stamp = stamp_v < stamp_max ? stamp_v + 1 : stamp_max;
            const long long q = eps * lv + eps - ((long long)(d.key[v] >> shift) + d.pmin);
            const long long end = d.t_ptr[v + 1];
            for (long long a = d.t_ptr[v] + part * lanes + rank; a < end; a += lanes * parts) {
                const int32_t x = __ldg(&d.t_row[a]);
                const int32_t z = __ldcg(&row_col[x]);
                if (z < 0 || z == v)
                    continue;
                /* c'(x, v) + eps label[v] - c'(x, z) + eps, as the full
                 * passes' gap */
                const long long gap =
                    (long long)__ldg(&d.t_cost[a]) * d.unit + q - __ldcg(&d.held[x]);
                const long long l = gap > 0 ? gap / eps : 0;
                if (l >= d.label_cap)
                    continue;
                const unsigned long long old =
                    atomicMin(&d.lkey[z], lkey_pack(d, l, stamp, (unsigned long long)v));
                if ((long long)(old >> LKEY_LABEL_SHIFT) > l && atomicExch(&d.fmark[z], pass) != pass)
                    next[atomicAdd(next_count, 1)] = z;
            }
        }
        grid.sync();
    }
    if (!converged) { /* the same in every block: prices unchanged */
        if (tid == 0)
            scratch[3] = pass;
        return;
    }
    for (int32_t y = tid; y < n; y += threads) {
        const unsigned long long k = __ldcg(&d.lkey[y]);
        const int32_t l = (int32_t)(k >> LKEY_LABEL_SHIFT);
        d.label[y] = l;
        if (l < d.label_cap && __ldcg(&d.holder[y]) >= 0)
            d.via[y] = (int32_t)(k & none);
    }
    grid.sync();
    update_finish<lanes, false>(d, eps, seq, row_col, scratch, pass, grid);
}

/* The transpose of the CSR arcs, once a solve: t_ptr[y + 1] counts the
 * arcs entering y (t_ptr cleared by the caller), one block sums them in
 * place (d.held: a copy of the starts, the fill's cursors), the fill
 * places each arc. */
#define TRANSPOSE_SCAN_BLOCK 1024

static __global__ void transpose_count_kernel(gcut__dassign d, long long m)
{
    for (long long a = (long long)blockIdx.x * blockDim.x + threadIdx.x; a < m;
         a += (long long)gridDim.x * blockDim.x)
        atomicAdd((unsigned long long *)&d.t_ptr[d.col[a] + 1], 1ull);
}

static __global__ __launch_bounds__(TRANSPOSE_SCAN_BLOCK) void transpose_scan_kernel(
    gcut__dassign d)
{
    __shared__ long long s_sum[TRANSPOSE_SCAN_BLOCK];
    const int32_t n = d.n;
    const int32_t per = (n + TRANSPOSE_SCAN_BLOCK - 1) / TRANSPOSE_SCAN_BLOCK;
    const int32_t lo = (int32_t)threadIdx.x * per + 1;
    const int32_t hi = lo + per < n + 1 ? lo + per : n + 1;
    long long sum = 0;
    for (int32_t i = lo; i < hi; i++)
        sum += d.t_ptr[i];
    s_sum[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long run = 0;
        for (int i = 0; i < TRANSPOSE_SCAN_BLOCK; i++) {
            const long long s = s_sum[i];
            s_sum[i] = run;
            run += s;
        }
        d.held[0] = 0;
    }
    __syncthreads();
    long long run = s_sum[threadIdx.x];
    for (int32_t i = lo; i < hi; i++) {
        run += d.t_ptr[i];
        d.t_ptr[i] = run;
        if (i < n)
            d.held[i] = run;
    }
}

static __global__ void transpose_fill_kernel(gcut__dassign d)
{
    for (int32_t x = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x); x < d.n;
         x += (int32_t)(gridDim.x * blockDim.x))
        for (long long a = d.row_ptr[x]; a < d.row_ptr[x + 1]; a++) {
            const long long at =
                (long long)atomicAdd((unsigned long long *)&d.held[d.col[a]], 1ull);
            d.t_row[at] = x;
            d.t_cost[at] = d.cost32[a];
        }
}

static __global__ void unpack_kernel(gcut__dassign d, long long *price, int32_t *row_col)
{
    const unsigned long long none = (1ull << d.bits) - 1;
    for (int32_t y = blockIdx.x * blockDim.x + threadIdx.x; y < d.n; y += gridDim.x * blockDim.x) {
        const unsigned long long k = d.key[y];
        if (price)
            price[y] = (long long)(k >> d.bits) + d.pmin;
        if ((k & none) != none)
            row_col[k & none] = y;
    }
}

static int blocks_for(int32_t n)
{
    const long long b = ((long long)n + ASSIGN_BLOCK - 1) / ASSIGN_BLOCK;
    return b < 1 ? 1 : b > 4096 ? 4096 : (int)b;
}

/* Blocks for one `lanes`-lane tile a row. */
static int row_blocks(int32_t n, int lanes)
{
    const long long groups = ((long long)n * lanes + ASSIGN_BLOCK - 1) / ASSIGN_BLOCK;
    return groups < 1 ? 1 : groups > 8192 ? 8192 : (int)groups;
}

cudaError_t gcut__assign_resume(const gcut__dassign *d, cudaStream_t stream)
{
    resume_kernel<<<blocks_for(d->n), ASSIGN_BLOCK, 0, stream>>>(*d);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    resume_state_kernel<<<1, 1, 0, stream>>>(*d);
    return cudaGetLastError();
}

static const void *csr_frontier_fn(int group)
{
    if (group >= 32)
        return (const void *)csr_frontier_update_kernel<32>;
    return group == 8 ? (const void *)csr_frontier_update_kernel<8>
                      : (const void *)csr_frontier_update_kernel<4>;
}

cudaError_t gcut__assign_transpose(const gcut__dassign *d, long long m, cudaStream_t stream)
{
    cudaError_t err =
        cudaMemsetAsync(d->t_ptr, 0, ((size_t)d->n + 1) * sizeof *d->t_ptr, stream);
    if (err != cudaSuccess)
        return err;
    const long long b = (m + ASSIGN_BLOCK - 1) / ASSIGN_BLOCK;
    transpose_count_kernel<<<b < 1 ? 1 : b > 8192 ? 8192 : (int)b, ASSIGN_BLOCK, 0, stream>>>(*d,
                                                                                           m);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return err;
    transpose_scan_kernel<<<1, TRANSPOSE_SCAN_BLOCK, 0, stream>>>(*d);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return err;
    transpose_fill_kernel<<<blocks_for(d->n), ASSIGN_BLOCK, 0, stream>>>(*d);
    return cudaGetLastError();
}

static const void *price_update_fn(int group, int dense)
{
    if (dense)
        return (const void *)price_update_kernel<ASSIGN_BLOCK, true>;
    if (group >= 32)
        return (const void *)price_update_kernel<32, false>;
    return group == 8 ? (const void *)price_update_kernel<8, false>
                      : (const void *)price_update_kernel<4, false>;
}

/* Threads a row of the price update: a whole block for dense rows (n
 * arcs; a row's scan is the pass's latency), else the bid's tile of up to
 * 32 lanes. */
static int update_lanes(int group, int dense)
{
    return dense ? ASSIGN_BLOCK : group < 32 ? group : 32;
}

/* Dynamic shared memory of the frontier update: the list's columns and
 * their eps label - price. */
static size_t frontier_smem(int32_t n)
{
    return (size_t)n * (sizeof(long long) + sizeof(int32_t));
}

cudaError_t gcut__assign_update_blocks(gcut__dassign *d, int group, int sms, int *blocks_max)
{
    int per_sm = 0;
    cudaError_t err;
    d->frontier = 0;
    if (d->dense) {
        /* the frontier update where its list fits a block's shared memory
         * and the grid's warps hold every row (FRONTIER_ROWS each) */
        int device = 0, smem_max = 0;
        const size_t smem = frontier_smem(d->n);
        if ((err = cudaGetDevice(&device)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                          device)) != cudaSuccess)
            return err;
        if (smem + 8192 <= (size_t)smem_max) {
            if ((err = cudaFuncSetAttribute((const void *)frontier_update_kernel,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)smem)) != cudaSuccess ||
                (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     &per_sm, (const void *)frontier_update_kernel, FRONTIER_BLOCK, smem)) !=
                    cudaSuccess)
                return err;
            if ((long long)per_sm * sms * FRONTIER_WARPS * FRONTIER_ROWS >= d->n) {
                d->frontier = 1;
                *blocks_max = per_sm * sms;
                return cudaSuccess;
            }
        }
    }
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, price_update_fn(group, d->dense),
                                                        ASSIGN_BLOCK, 0);
    if (err != cudaSuccess)
        return err;
    /* CSR rows: the frontier update where a column id leaves its key's
     * stamp room for the most passes an update runs (see
     * csr_frontier_update_kernel); its grid is the full passes' */
    d->csr_frontier = 0;
    if (!d->dense && LKEY_LABEL_SHIFT - d->bits >= CSR_FRONTIER_STAMP_BITS) {
        int frontier_sm = 0;
        if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &frontier_sm, csr_frontier_fn(group), ASSIGN_BLOCK, 0)) != cudaSuccess)
            return err;
        if (frontier_sm > 0) {
            d->csr_frontier = 1;
            per_sm = frontier_sm < per_sm ? frontier_sm : per_sm;
        }
    }
    *blocks_max = per_sm * sms;
    return cudaSuccess;
}

cudaError_t gcut__assign_price_update(const gcut__dassign *d, long long eps, int group,
                                      int blocks_max, int max_passes, unsigned seq,
                                      int32_t *row_col, int32_t *scratch, int32_t *h_result,
                                      cudaStream_t stream)
{
    gcut__dassign copy = *d;
    void *args[] = {&copy, &eps, &max_passes, &seq, &row_col, &scratch};
    cudaError_t err = cudaErrorCooperativeLaunchTooLarge;
    if (d->frontier && d->cost32) {
        /* a warp a row, FRONTIER_ROWS rows a warp at most */
        const long long least = ((long long)d->n + FRONTIER_WARPS * FRONTIER_ROWS - 1) /
                                (FRONTIER_WARPS * FRONTIER_ROWS);
        const long long needed = ((long long)d->n + FRONTIER_WARPS - 1) / FRONTIER_WARPS;
        long long blocks = needed < blocks_max ? needed : blocks_max;
        while (blocks >= least && blocks >= 1 &&
               (err = cudaLaunchCooperativeKernel((const void *)frontier_update_kernel,
                                                  dim3((unsigned)blocks), dim3(FRONTIER_BLOCK),
                                                  args, frontier_smem(d->n), stream)) ==
                   cudaErrorCooperativeLaunchTooLarge) {
            cudaGetLastError();
            blocks /= 2;
        }
    }
    if (d->csr_frontier && !d->dense && d->cost32 && d->lkey) {
        /* a stamp below 2^CSR_FRONTIER_STAMP_BITS - 1 (see the kernel) */
        const int most = (1 << CSR_FRONTIER_STAMP_BITS) - 3;
        int passes = max_passes < most ? max_passes : most;
        void *frontier_args[] = {&copy, &eps, &passes, &seq, &row_col, &scratch};
        const int needed = row_blocks(d->n, update_lanes(group, 0));
        int blocks = needed < blocks_max ? needed : blocks_max;
        if ((err = cudaMemsetAsync(d->fcount, 0, 3 * sizeof *d->fcount, stream)) != cudaSuccess)
            return err;
        while ((err = cudaLaunchCooperativeKernel(csr_frontier_fn(group),
                                                  dim3(blocks > 0 ? blocks : 1),
                                                  dim3(ASSIGN_BLOCK), frontier_args, 0,
                                                  stream)) == cudaErrorCooperativeLaunchTooLarge &&
               blocks > 1) {
            cudaGetLastError();
            blocks /= 2;
        }
    }
    if (err == cudaErrorCooperativeLaunchTooLarge) {
        /* the full passes: CSR rows without the frontier's buffers, or a
         * grid too small for the frontier's */
        const int needed = row_blocks(d->n, update_lanes(group, d->dense));
        int blocks = needed < blocks_max ? needed : blocks_max;
        /* fewer blocks where fewer fit than the occupancy said (a tool's
         * instrumented kernels): the loops stride over any grid */
        while ((err = cudaLaunchCooperativeKernel(price_update_fn(group, d->dense),
                                                  dim3(blocks > 0 ? blocks : 1),
                                                  dim3(ASSIGN_BLOCK), args, 0, stream)) ==
                   cudaErrorCooperativeLaunchTooLarge &&
               blocks > 1) {
            cudaGetLastError();
            blocks /= 2;
        }
    }
    if (err != cudaSuccess ||
        (err = cudaMemcpyAsync(h_result, scratch + 3, 4 * sizeof *h_result,
                               cudaMemcpyDeviceToHost, stream)) != cudaSuccess)
        return err;
    return cudaStreamSynchronize(stream);
}

cudaError_t gcut__assign_dense_loop_start(const gcut__dassign *d, int updating,
                                          unsigned long long bid_budget, int update_passes,
                                          int update_passes_max, unsigned seq,
                                          cudaStream_t stream)
{
    if (!d->loop)
        return cudaErrorInvalidValue;
    dense_loop_start_kernel<<<1, 1, 0, stream>>>(*d, updating, bid_budget, update_passes,
                                                 update_passes_max, seq);
    return cudaGetLastError();
}

cudaError_t gcut__assign_dense_cycles(const gcut__dassign *d, long long eps, int group,
                                      int workers, int blocks_max, int *blocks, int cycles,
                                      int32_t *row_col, int32_t *scratch, cudaStream_t stream)
{
    if (!d->loop || !d->dense || !d->frontier || !d->cost32)
        return cudaErrorInvalidValue;
    gcut__dassign copy = *d;
    int max_passes = 0; /* the kernels take the limit and the number from d->loop */
    unsigned seq = 0;
    void *args[] = {&copy, &eps, &max_passes, &seq, &row_col, &scratch};
    /* a warp a row, FRONTIER_ROWS rows a warp at most */
    const long long least = ((long long)d->n + FRONTIER_WARPS * FRONTIER_ROWS - 1) /
                            (FRONTIER_WARPS * FRONTIER_ROWS);
    if (*blocks <= 0) {
        const long long needed = ((long long)d->n + FRONTIER_WARPS - 1) / FRONTIER_WARPS;
        *blocks = (int)(needed < blocks_max ? needed : blocks_max);
    }
    for (int c = 0; c < cycles; c++) {
        cudaError_t err;
        while ((err = cudaLaunchCooperativeKernel((const void *)frontier_update_kernel,
                                                  dim3((unsigned)*blocks), dim3(FRONTIER_BLOCK),
                                                  args, frontier_smem(d->n), stream)) ==
                   cudaErrorCooperativeLaunchTooLarge &&
               *blocks / 2 >= least && *blocks / 2 >= 1) {
            cudaGetLastError(); /* fewer fit than the occupancy said (a tool's kernels) */
            *blocks /= 2;
        }
        if (err != cudaSuccess ||
            (err = gcut__assign_refine(d, eps, group, workers, stream)) != cudaSuccess)
            return err;
        dense_loop_resume_kernel<<<1, 1024, 0, stream>>>(*d);
        if ((err = cudaGetLastError()) != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

cudaError_t gcut__assign_phase_start(const gcut__dassign *d, int first, long long eps, int group,
                                     int32_t *row_col, cudaStream_t stream)
{
    const int lanes = group < 32 ? group : 32;
    if (first) {
        first_phase_kernel<<<blocks_for(d->n), ASSIGN_BLOCK, 0, stream>>>(*d);
        return cudaGetLastError();
    }
    cudaError_t err = gcut__assign_unpack(d, NULL, row_col, stream);
    if (err != cudaSuccess)
        return err;
    clear_state_kernel<<<1, 1, 0, stream>>>(*d);
    const long long groups = ((long long)d->n * lanes + ASSIGN_BLOCK - 1) / ASSIGN_BLOCK;
    const int blocks = groups < 1 ? 1 : groups > 8192 ? 8192 : (int)groups;
    if (d->dense)
        keep_kernel<32, true><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, eps, row_col);
    else if (lanes == 32)
        keep_kernel<32, false><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, eps, row_col);
    else if (lanes == 8)
        keep_kernel<8, false><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, eps, row_col);
    else
        keep_kernel<4, false><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, eps, row_col);
    return cudaGetLastError();
}

cudaError_t gcut__assign_unpack(const gcut__dassign *d, long long *price, int32_t *row_col,
                                cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(row_col, 0xff, (size_t)d->n * sizeof *row_col, stream);
    if (err != cudaSuccess)
        return err;
    unpack_kernel<<<blocks_for(d->n), ASSIGN_BLOCK, 0, stream>>>(*d, price, row_col);
    return cudaGetLastError();
}

static const void *refine_fn(int group, int dense)
{
    switch (group) {
    case 1024:
        return dense ? (const void *)refine_kernel<1024, true> : (const void *)refine_kernel<1024, false>;
    case 512:
        return dense ? (const void *)refine_kernel<512, true> : (const void *)refine_kernel<512, false>;
    case 128:
        return dense ? (const void *)refine_kernel<128, true> : (const void *)refine_kernel<128, false>;
    case 32:
        return dense ? (const void *)refine_kernel<32, true> : (const void *)refine_kernel<32, false>;
    case 8:
        return (const void *)refine_kernel<8, false>;
    default:
        return (const void *)refine_kernel<4, false>;
    }
}

/* Threads a block of the refine: a whole-block worker's size, else the
 * common block of tiles. */
static int refine_block(int group)
{
    return group > 32 ? group : ASSIGN_BLOCK;
}

int gcut__assign_group(int dense, double mean_degree)
{
    /* A whole block for rows of hundreds of arcs and more (a few arcs a
     * thread, so a bid costs about one round of loads), a warp or a
     * smaller tile below. Dense rows never take tiles under 32: their
     * kernels are built for 32 and up. */
    if (mean_degree >= 4096)
        return 1024;
    if (mean_degree >= 1024)
        return 512;
    if (mean_degree >= 256)
        return 128;
    if (dense || mean_degree >= 48)
        return 32;
    return mean_degree >= 12 ? 8 : 4;
}

cudaError_t gcut__assign_workers(int group, int dense, int sms, int *workers_max)
{
    int per_sm = 0;
    const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, refine_fn(group, dense), refine_block(group), 0);
    if (err != cudaSuccess)
        return err;
    *workers_max = (per_sm > 0 ? per_sm : 1) * sms * (refine_block(group) / group);
    return cudaSuccess;
}

cudaError_t gcut__assign_refine(const gcut__dassign *d, long long eps, int group, int workers,
                                cudaStream_t stream)
{
    const int per_block = refine_block(group) / group;
    const int blocks = (workers + per_block - 1) / per_block;
    gcut__dassign copy = *d;
    void *args[] = {&copy, &eps};
    return cudaLaunchKernel(refine_fn(group, d->dense), dim3(blocks > 0 ? blocks : 1),
                            dim3(refine_block(group)), args, 0, stream);
}
