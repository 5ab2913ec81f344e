/* GPU cost scaling for the assignment problem: the lock-free parallel
 * refine of seed 001 section 5.3 in its assignment form. Every active row
 * (a group of lanes) finds its lowest part-reduced cost c' = c - p(y) and
 * second lowest over its arcs, and pushes to the lowest column by lowering
 * that column's price with one atomicMin to c - c'_2 - eps (the relabel
 * p = -(min c' + eps) folded into the push, as the CPU's double push). The
 * lowest bid a column receives in a round wins it (an atomicMax on the
 * column's round stamp breaks ties); the owner it had becomes active. Bids
 * read prices other rows are lowering at the same moment: a stale price is
 * only ever higher, so a winner's c' is still within eps of its best once
 * the round is over, and eps-optimality holds (seed 001 lemma 5.5). */
#include "assign_kernels.h"

#define ASSIGN_BLOCK 256
#define INF64 0x7fffffffffffffffLL

/* One active row per `lanes` lanes: its best two c' and the best column. */
template <int lanes>
static __global__ __launch_bounds__(ASSIGN_BLOCK) void bid_kernel(gcut__dassign d, int cur,
                                                                   long long eps)
{
    const int lane = threadIdx.x % lanes;
    const int groups = gridDim.x * (ASSIGN_BLOCK / lanes);
    const int count = d.count[cur];
    for (int i = (blockIdx.x * blockDim.x + threadIdx.x) / lanes; i < count; i += groups) {
        const int32_t x = d.list[cur][i];
        long long b1 = INF64, b2 = INF64, c1 = 0;
        int32_t y1 = -1;
        for (long long a = d.row_ptr[x] + lane; a < d.row_ptr[x + 1]; a += lanes) {
            const int32_t y = d.col[a];
            const long long c = d.cost[a];
            const long long v = c - d.price[y];
            if (v < b1) {
                b2 = b1;
                b1 = v;
                c1 = c;
                y1 = y;
            } else if (v < b2) {
                b2 = v;
            }
        }
        /* the group's best two: a butterfly merge of (b1, b2, y1, c1) */
#pragma unroll
        for (int off = lanes / 2; off > 0; off /= 2) {
            const long long o1 = __shfl_xor_sync(0xffffffffu, b1, off, lanes);
            const long long o2 = __shfl_xor_sync(0xffffffffu, b2, off, lanes);
            const long long oc = __shfl_xor_sync(0xffffffffu, c1, off, lanes);
            const int32_t oy = __shfl_xor_sync(0xffffffffu, y1, off, lanes);
            /* ties by column id, so every lane agrees */
            if (o1 < b1 || (o1 == b1 && oy >= 0 && (y1 < 0 || oy < y1))) {
                b2 = min(b1, o2);
                b1 = o1;
                c1 = oc;
                y1 = oy;
            } else {
                b2 = min(b2, o1);
            }
        }
        if (lane != 0)
            continue;
        if (y1 < 0) { /* no arc at all */
            atomicExch(&d.count[3], x);
            d.bid_col[x] = -1;
            continue;
        }
        if (d.start_min && b1 - d.start_min[x] > d.drop_bound)
            atomicExch(&d.count[2], x);
        if (b2 == INF64)
            b2 = b1; /* one arc: the smallest drop (see src/cpu/assign_csa.c) */
        const long long bid = c1 - b2 - eps;
        d.bid_col[x] = y1;
        d.bid_price[x] = bid;
        atomicMin(&d.price[y1], bid);
    }
}

/* The lowest bid wins its column; losers and the evicted go to the next list. */
static __global__ __launch_bounds__(ASSIGN_BLOCK) void resolve_kernel(gcut__dassign d, int cur,
                                                                       int round)
{
    const int next = cur ^ 1;
    const int count = d.count[cur];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        const int32_t x = d.list[cur][i];
        const int32_t y = d.bid_col[x];
        if (y < 0)
            continue; /* a row without arcs: the host stops the solve */
        int won = 0;
        if (*(volatile long long *)&d.price[y] == d.bid_price[x])
            won = atomicMax(&d.won[y], round) < round;
        if (won) {
            const int32_t old = d.col_row[y];
            d.col_row[y] = x;
            d.row_col[x] = y;
            if (old >= 0) {
                d.row_col[old] = -1;
                d.list[next][atomicAdd(&d.count[next], 1)] = old;
            }
        } else {
            d.list[next][atomicAdd(&d.count[next], 1)] = x;
        }
    }
}

static __global__ void reset_kernel(gcut__dassign d)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += gridDim.x * blockDim.x) {
        d.row_col[i] = -1;
        d.col_row[i] = -1;
        d.list[0][i] = i;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        d.count[0] = d.n;
        d.count[1] = 0;
    }
}

cudaError_t gcut__assign_reset(const gcut__dassign *d, cudaStream_t stream)
{
    const int blocks = (int)((d->n + ASSIGN_BLOCK - 1) / ASSIGN_BLOCK);
    reset_kernel<<<blocks > 0 ? blocks : 1, ASSIGN_BLOCK, 0, stream>>>(*d);
    return cudaGetLastError();
}

cudaError_t gcut__assign_round(const gcut__dassign *d, int cur, long long eps, int lanes_per_row,
                               int round, int sms, cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(&d->count[cur ^ 1], 0, sizeof(int32_t), stream);
    if (err != cudaSuccess)
        return err;
    /* A grid of a few blocks per SM strides over the device-side count. */
    const int blocks = sms * 8;
    if (lanes_per_row == 32)
        bid_kernel<32><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, cur, eps);
    else if (lanes_per_row == 8)
        bid_kernel<8><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, cur, eps);
    else
        bid_kernel<4><<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, cur, eps);
    err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    resolve_kernel<<<blocks, ASSIGN_BLOCK, 0, stream>>>(*d, cur, round);
    return cudaGetLastError();
}
