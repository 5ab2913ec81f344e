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
 * The seed's global price updates and arc fixing (section 5.2) are not
 * built on the GPU: they would shorten long chains and rescans, at the cost
 * of a grid-wide step each.
 *
 * Exactness: prices only fall, and a scan reads each price at some instant
 * (__ldcg, from L2), so a value it read is at least the price when the bid
 * lands. The winner's c' at y is then c'_2 + eps <= its true second best +
 * eps, and later falls of other prices only raise its other arcs' c': every
 * matched row stays eps-optimal (seed 001 lemma 5.5). Every failed bid
 * means that some price fell by at least eps since the scan, so a feasible
 * phase ends; the first phase's bound on a row's rise of c' (see
 * src/cpu/assign_csa.c) stops an infeasible one. */
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

/* Row x's lowest c' (b1, at column y1 of arc cost c1) and second lowest b2
 * over the group, every lane getting the result. */
template <int lanes, bool dense>
static __device__ __forceinline__ void best_two(const gcut__dassign &d,
                                                const cg::thread_block_tile<lanes> &tile,
                                                int32_t x, long long &b1, long long &b2,
                                                long long &c1, int32_t &y1)
{
    const int lane = (int)tile.thread_rank();
    const long long begin = dense ? (long long)x * d.n : d.row_ptr[x];
    const long long end = dense ? begin + d.n : d.row_ptr[x + 1];
    const unsigned shift = (unsigned)d.bits;
    b1 = INF64;
    b2 = INF64;
    c1 = 0;
    y1 = -1;
#pragma unroll 4
    for (long long a = begin + lane; a < end; a += lanes) {
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
    /* the group's best two: a butterfly merge, ties by column id so that
     * every lane agrees */
#pragma unroll
    for (int off = lanes / 2; off > 0; off /= 2) {
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

/* Place row x and, in turn, every row its bids evict, until a bid takes a
 * free column or the phase is stopped. Returns the number of bids. */
template <int lanes, bool dense>
static __device__ unsigned long long place_chain(const gcut__dassign &d,
                                                 const cg::thread_block_tile<lanes> &tile,
                                                 int32_t x, long long eps, long long deadline)
{
    const unsigned long long none = (1ull << d.bits) - 1;
    unsigned long long bids = 0;
    for (;;) {
        long long b1, b2, c1;
        int32_t y1;
        best_two<lanes, dense>(d, tile, x, b1, b2, c1, y1);
        int next = x; /* the row to bid for next; -1: the chain is over */
        if (tile.thread_rank() == 0) {
            bids++;
            if (*(volatile int32_t *)&d.state[1] != GCUT__DASSIGN_RUNNING) {
                next = -1;
            } else if (y1 < 0 || (d.start_min && b1 - d.start_min[x] > d.drop_bound)) {
                stop(d, GCUT__DASSIGN_INFEASIBLE, x);
                next = -1;
            } else if ((bids & 63) == 0 && now_ns() > deadline) {
                stop(d, GCUT__DASSIGN_TIMEOUT, x);
                next = -1;
            } else {
                if (b2 == INF64)
                    b2 = b1; /* one arc: the smallest drop (see src/cpu/assign_csa.c) */
                const long long bid = c1 - b2 - eps;
                if (bid < d.pmin) {
                    stop(d, GCUT__DASSIGN_RANGE, x);
                    next = -1;
                } else {
                    const unsigned long long mine =
                        (unsigned long long)(bid - d.pmin) << d.bits | (unsigned long long)x;
                    const unsigned long long old = atomicMin(&d.key[y1], mine);
                    if (old > mine) { /* taken: go on with the owner it had */
                        const unsigned long long owner = old & none;
                        next = owner == none ? -1 : (int)owner;
                    } /* else lost: the price fell below the bid; scan again */
                }
            }
        }
        x = tile.shfl(next, 0);
        if (x < 0)
            return tile.thread_rank() == 0 ? bids : 0;
    }
}

template <int lanes, bool dense>
static __global__ __launch_bounds__(ASSIGN_BLOCK) void refine_kernel(gcut__dassign d, long long eps)
{
    const cg::thread_block_tile<lanes> tile = cg::tiled_partition<lanes>(cg::this_thread_block());
    const int lane = (int)tile.thread_rank();
    const long long deadline = now_ns() + d.time_limit_ns;
    const int32_t count = d.state[3];
    unsigned long long bids = 0, chains = 0;
    for (;;) {
        int32_t x = 0;
        if (lane == 0) {
            const int32_t i = *(volatile int32_t *)&d.state[1] == GCUT__DASSIGN_RUNNING
                                  ? atomicAdd(&d.state[0], 1)
                                  : count;
            x = i < count ? d.list[i] : -1;
        }
        x = tile.shfl(x, 0);
        if (x < 0)
            break;
        bids += place_chain<lanes, dense>(d, tile, x, eps, deadline);
        chains++;
    }
    if (lane == 0 && chains) {
        atomicAdd(&d.bids[0], chains);
        atomicAdd(&d.bids[1], bids);
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
    }
}

static __global__ void clear_state_kernel(gcut__dassign d)
{
    d.state[0] = 0;
    d.state[1] = GCUT__DASSIGN_RUNNING;
    d.state[2] = -1;
    d.state[3] = 0;
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

cudaError_t gcut__assign_phase_start(const gcut__dassign *d, int first, long long eps, int lanes,
                                     int32_t *row_col, cudaStream_t stream)
{
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

static const void *refine_fn(int lanes, int dense)
{
    if (dense)
        return (const void *)refine_kernel<32, true>;
    if (lanes == 32)
        return (const void *)refine_kernel<32, false>;
    if (lanes == 8)
        return (const void *)refine_kernel<8, false>;
    return (const void *)refine_kernel<4, false>;
}

cudaError_t gcut__assign_workers(int lanes, int sms, int *workers_max)
{
    int per_sm = 0;
    /* at 32 lanes, the smaller residency of the dense and CSR kernels */
    cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, refine_fn(lanes, 0),
                                                                    ASSIGN_BLOCK, 0);
    if (err != cudaSuccess)
        return err;
    if (lanes == 32) {
        int dense_sm = 0;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dense_sm, refine_fn(32, 1),
                                                            ASSIGN_BLOCK, 0);
        if (err != cudaSuccess)
            return err;
        per_sm = dense_sm < per_sm ? dense_sm : per_sm;
    }
    *workers_max = (per_sm > 0 ? per_sm : 1) * sms * (ASSIGN_BLOCK / lanes);
    return cudaSuccess;
}

cudaError_t gcut__assign_refine(const gcut__dassign *d, long long eps, int lanes, int workers,
                                cudaStream_t stream)
{
    const int per_block = ASSIGN_BLOCK / lanes;
    const int blocks = (workers + per_block - 1) / per_block;
    gcut__dassign copy = *d;
    void *args[] = {&copy, &eps};
    return cudaLaunchKernel(refine_fn(lanes, d->dense), dim3(blocks > 0 ? blocks : 1),
                            dim3(ASSIGN_BLOCK), args, 0, stream);
}
