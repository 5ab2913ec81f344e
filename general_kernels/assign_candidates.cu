/* The candidate graph of a dense request: each row's k cheapest arcs and
 * one arc that keeps a perfect assignment in reach, as CSR rows of k + 1
 * arcs in increasing column order, so that the CSR solver places the rows
 * on a few percent of the matrix and one pass over the whole of it (the
 * dense proof) tells whether that solution is optimal for every arc.
 *
 * One block a row. Every arc gets a 32-bit key whose order is the order to
 * rank by: the cost in the sign the solver minimises (no prices), or the
 * reduced cost above the row's dual, capped at 2^32 - 1 (with the prices
 * of a solve, for a repair: an arc that far above the dual is no candidate
 * anyway). Ties go to the lower column: the k smallest (key, column)
 * pairs are found by a radix select on the keys (the k-th smallest key T,
 * then how many keys equal to T to take) and taken in one ordered pass,
 * the block's ballots giving each its place. Keys are kept in shared
 * memory where the row fits, so the passes read the matrix once.
 *
 * The guarantee arc g (the diagonal, or the column a row held in the solve
 * being repaired: either set is a perfect assignment) joins the k cheapest
 * when it is not among them; when it is, or without a guarantee (c.guard
 * 0: the host's matching test found a perfect assignment on the k + 1
 * cheapest), the k + 1 cheapest are taken, so that every row has k + 1
 * arcs and row x starts at x (k + 1). */
#include "assign_kernels.h"

#define CAND_BLOCK 256
#define CAND_WARPS (CAND_BLOCK / 32)
/* keys of rows up to this many columns are kept in shared memory */
#define CAND_CACHED_MAX (11 * 1024)

template <bool priced>
static __device__ __forceinline__ uint32_t arc_key(const gcut__candidates &c, const int32_t *row,
                                                   int32_t y, long long base)
{
    const int32_t v = __ldg(&row[y]);
    if (!priced) {
        /* the int32 order as unsigned; reversed to maximize */
        const uint32_t k = (uint32_t)v ^ 0x80000000u;
        return c.sign < 0 ? ~k : k;
    }
    const long long r = (long long)v * c.unit - c.price[y] - base;
    return r <= 0 ? 0u : r >= 0xffffffffLL ? 0xffffffffu : (uint32_t)r;
}

/* The number of threads of the block whose p is set (the total) and, in
 * *before, of those below this one. Every thread calls it. */
static __device__ __forceinline__ unsigned block_count(bool p, unsigned *before, unsigned *s_warp)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned b = __ballot_sync(0xffffffffu, p);
    if (lane == 0)
        s_warp[warp] = __popc(b);
    __syncthreads();
    unsigned below = 0, total = 0;
#pragma unroll
    for (unsigned w = 0; w < CAND_WARPS; w++) {
        const unsigned v = s_warp[w];
        below += w < warp ? v : 0;
        total += v;
    }
    __syncthreads(); /* s_warp is reused by the next call */
    *before = below + __popc(b & ((1u << lane) - 1));
    return total;
}

/* The sum of a, the minimum of lo and the maximum of hi over the block,
 * in every thread. */
static __device__ __forceinline__ void block_reduce(unsigned &a, uint32_t &lo, uint32_t &hi,
                                                    unsigned *s_red)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        a += __shfl_xor_sync(0xffffffffu, a, off);
        lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, off));
        hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, off));
    }
    const unsigned warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
        s_red[warp] = a;
        s_red[CAND_WARPS + warp] = lo;
        s_red[2 * CAND_WARPS + warp] = hi;
    }
    __syncthreads();
    a = 0;
    lo = 0xffffffffu;
    hi = 0;
#pragma unroll
    for (int w = 0; w < CAND_WARPS; w++) {
        a += s_red[w];
        lo = min(lo, s_red[CAND_WARPS + w]);
        hi = max(hi, s_red[2 * CAND_WARPS + w]);
    }
    __syncthreads();
}

template <bool priced, bool cached>
static __global__ __launch_bounds__(CAND_BLOCK) void candidates_kernel(gcut__candidates c)
{
    extern __shared__ uint32_t s_key[]; /* n keys where cached */
    __shared__ unsigned s_hist[256];
    __shared__ unsigned s_red[3 * CAND_WARPS];
    __shared__ unsigned s_pick[2];
    const int32_t n = c.n, k = c.k, tid = (int32_t)threadIdx.x;
    const int32_t width = k + 1;
    /* over this block's rows: the cheapest arcs' signed costs (not the
     * guarantee's where it was added) and the columns first covered */
    long long v_lo = INT64_MAX, v_hi = INT64_MIN;
    unsigned long long fresh = 0;
    for (int32_t x = blockIdx.x; x < n; x += gridDim.x) {
        const int32_t *row = c.cost + (long long)x * n;
        const long long base = priced ? c.dual[x] : 0;
        int32_t g = priced ? c.row_col[x] : x;
        if (g < 0 || g >= n)
            g = x; /* (a solve's rows all hold a column) */
        if (cached) {
            for (int32_t y = tid; y < n; y += CAND_BLOCK)
                s_key[y] = arc_key<priced>(c, row, y, base);
            __syncthreads();
        }
        auto key_at = [&](int32_t y) -> uint32_t {
            return cached ? s_key[y] : arc_key<priced>(c, row, y, base);
        };
        const uint32_t kg = key_at(g);
        /* g's rank in (key, column) order, and the keys' range */
        unsigned below = 0;
        uint32_t lo = 0xffffffffu, hi = 0;
        for (int32_t y = tid; y < n; y += CAND_BLOCK) {
            const uint32_t u = key_at(y);
            below += u < kg || (u == kg && y < g);
            lo = min(lo, u);
            hi = max(hi, u);
        }
        block_reduce(below, lo, hi, s_red);
        const bool add_g = c.guard && below >= (unsigned)k; /* g is not among the k cheapest */
        const unsigned t = add_g ? (unsigned)k : (unsigned)k + 1; /* the cheapest to take */
        /* the t-th smallest key T and how many keys equal to T to take */
        uint32_t T = lo;
        unsigned need = t;
        if (t > 0 && lo != hi) {
            const int top = 31 - __clz(lo ^ hi); /* the highest bit where keys differ */
            uint32_t mask = ~((2u << top) - 1u), prefix = lo & mask;
            unsigned want = t;
            for (int shift = top / 8 * 8; shift >= 0; shift -= 8) {
                for (int i = tid; i < 256; i += CAND_BLOCK)
                    s_hist[i] = 0;
                __syncthreads();
                for (int32_t y = tid; y < n; y += CAND_BLOCK) {
                    const uint32_t u = key_at(y);
                    if ((u & mask) == prefix)
                        atomicAdd(&s_hist[(u >> shift) & 255u], 1u);
                }
                __syncthreads();
                if (tid < 32) {
                    /* lane l holds bins 8l..8l+7: the first bin where the
                     * running count reaches want */
                    unsigned mine = 0;
#pragma unroll
                    for (int i = 0; i < 8; i++)
                        mine += s_hist[8 * tid + i];
                    unsigned run = mine;
#pragma unroll
                    for (int off = 1; off < 32; off *= 2) {
                        const unsigned o = __shfl_up_sync(0xffffffffu, run, off);
                        run += tid >= off ? o : 0;
                    }
                    const unsigned reach = __ballot_sync(0xffffffffu, run >= want);
                    if (tid == __ffs(reach) - 1) {
                        unsigned before = run - mine;
                        int b = 8 * tid;
                        while (before + s_hist[b] < want)
                            before += s_hist[b++];
                        s_pick[0] = (unsigned)b;
                        s_pick[1] = before;
                    }
                }
                __syncthreads();
                prefix |= s_pick[0] << shift;
                mask |= 255u << shift;
                want -= s_pick[1];
                __syncthreads(); /* s_pick and s_hist are rewritten next pass */
            }
            T = prefix;
            need = want;
        }
        /* the ordered pass: keys below T, the first `need` equal to T, g */
        unsigned taken = 0, equal_seen = 0;
        const long long at = (long long)x * width;
        for (int32_t y0 = 0; y0 < n; y0 += CAND_BLOCK) {
            const int32_t y = y0 + tid;
            const uint32_t u = y < n ? key_at(y) : 0xffffffffu;
            const bool equal = y < n && t > 0 && u == T;
            unsigned equal_before = 0, sel_before = 0;
            const unsigned equal_total = block_count(equal, &equal_before, s_red);
            const bool cheap =
                y < n && t > 0 && (u < T || (equal && equal_seen + equal_before < need));
            const bool sel = cheap || (add_g && y == g);
            const unsigned sel_total = block_count(sel, &sel_before, s_red);
            if (sel) {
                const long long a = at + taken + sel_before;
                const int32_t v = row[y];
                c.col[a] = y;
                c.cost_out[a] = v;
                if (cheap) {
                    const long long sv = c.sign < 0 ? -(long long)v : (long long)v;
                    v_lo = min(v_lo, sv);
                    v_hi = max(v_hi, sv);
                    if (c.covered && atomicExch(&c.covered[y], 1u) == 0u)
                        fresh++;
                }
            }
            taken += sel_total;
            equal_seen += equal_total;
        }
        if (tid == 0) {
            c.row_ptr[x + 1] = at + width;
            if (x == 0)
                c.row_ptr[0] = 0;
        }
        __syncthreads(); /* s_key is rewritten by the next row */
    }
    /* one atomic a warp */
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        v_lo = min(v_lo, __shfl_xor_sync(0xffffffffu, v_lo, off));
        v_hi = max(v_hi, __shfl_xor_sync(0xffffffffu, v_hi, off));
        fresh += __shfl_xor_sync(0xffffffffu, fresh, off);
    }
    if (tid % 32 == 0) {
        if (v_lo != INT64_MAX)
            atomicMin(&c.stats->lo, v_lo);
        if (v_hi != INT64_MIN)
            atomicMax(&c.stats->hi, v_hi);
        if (fresh)
            atomicAdd(&c.stats->covered, fresh);
    }
}

static __global__ void stats_clear_kernel(gcut__candidate_stats *s)
{
    s->lo = INT64_MAX;
    s->hi = INT64_MIN;
    s->covered = 0;
    s->worst = 0;
    s->violators = 0;
}

/* A solution's rows against the dense proof's duals: the largest reduced
 * cost of a held arc above its row's dual, and the rows where it passes
 * eps. */
static __global__ void violations_kernel(gcut__dassign d, const long long *price,
                                         const int32_t *row_col, const long long *dual,
                                         long long eps, gcut__candidate_stats *s)
{
    unsigned long long worst = 0, over = 0;
    for (int32_t x = blockIdx.x * blockDim.x + threadIdx.x; x < d.n; x += gridDim.x * blockDim.x) {
        const int32_t y = row_col[x];
        if (y < 0 || y >= d.n) {
            over++;
            worst = ~0ull >> 1;
            continue;
        }
        const long long term =
            (long long)d.cost32[(long long)x * d.n + y] * d.unit - price[y] - dual[x];
        worst = term > 0 && (unsigned long long)term > worst ? (unsigned long long)term : worst;
        over += term > eps;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        worst = max(worst, __shfl_xor_sync(0xffffffffu, worst, off));
        over += __shfl_xor_sync(0xffffffffu, over, off);
    }
    if (threadIdx.x % 32 == 0) {
        if (worst)
            atomicMax(&s->worst, worst);
        if (over)
            atomicAdd(&s->violators, over);
    }
}

cudaError_t gcut__assign_candidates(const gcut__candidates *c, cudaStream_t stream)
{
    cudaError_t err;
    if (c->k < 0 || c->k >= c->n || (c->price && (!c->dual || !c->row_col || !c->guard)))
        return cudaErrorInvalidValue;
    stats_clear_kernel<<<1, 1, 0, stream>>>(c->stats);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return err;
    if (c->covered && (err = cudaMemsetAsync(c->covered, 0, (size_t)c->n * sizeof *c->covered,
                                             stream)) != cudaSuccess)
        return err;
    const int blocks = c->n < 65536 ? c->n : 65536;
    const bool cached = c->n <= CAND_CACHED_MAX;
    const size_t smem = cached ? (size_t)c->n * sizeof(uint32_t) : 0;
    if (c->price)
        (cached ? candidates_kernel<true, true>
                : candidates_kernel<true, false>)<<<blocks, CAND_BLOCK, smem, stream>>>(*c);
    else
        (cached ? candidates_kernel<false, true>
                : candidates_kernel<false, false>)<<<blocks, CAND_BLOCK, smem, stream>>>(*c);
    return cudaGetLastError();
}

cudaError_t gcut__assign_violations(const gcut__dassign *d, const long long *price,
                                    const int32_t *row_col, const long long *dual, long long eps,
                                    gcut__candidate_stats *stats, cudaStream_t stream)
{
    const cudaError_t err = cudaMemsetAsync(&stats->worst, 0, 2 * sizeof stats->worst, stream);
    if (err != cudaSuccess)
        return err;
    const long long b = ((long long)d->n + CAND_BLOCK - 1) / CAND_BLOCK;
    violations_kernel<<<b<1 ? 1 : b> 4096 ? 4096 : (int)b, CAND_BLOCK, 0, stream>>>(
        *d, price, row_col, dual, eps, stats);
    return cudaGetLastError();
}
