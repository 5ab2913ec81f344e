/* The warm re-solve's kernels (grid_update.h): capacity changes applied to
 * the device's residual state, and the pull sweeps that clear the deficits
 * they leave. */
#include "grid_device.cuh"
#include "grid_update.h"

#include "gcut.h"

#define THREADS 256

static unsigned blocks_for(long long n)
{
    long long b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

static __device__ __forceinline__ long long node_offset(const gcut__dgrid &g, int d)
{
    return (long long)dir_dy(d) * g.pitch + dir_dx(d);
}

/* What a terminal change adds to the update's counters. */
typedef struct terminal_sums {
    unsigned long long unsent, raised, dropped, refused;
} terminal_sums;

/* New terminals (s, t), as set, at node p, whose terminals as used are the
 * old ones plus offset[p]: that raise is dropped with them. The sink arc
 * keeps at most its new capacity of flow (the rest comes back as excess),
 * and a negative excess first takes back what p's own sink arc carries.
 * What is left negative is, with `raise`, lifted by raising both terminals
 * by it (grid_update.h: no deficit is left), else a deficit for the pull
 * sweeps. A raise past int32 is refused (counted; the caller then starts
 * from no flow) and nothing is written. */
static __device__ void set_terminals(const gcut__dgrid &g, const gcut__dcaps &c, long long p,
                                     int32_t s, int32_t t, int raise, terminal_sums &sums)
{
    const long long s0 = c.source[p], t0 = c.sink[p], off0 = c.offset[p];
    if (s + off0 == s0 && t + off0 == t0)
        return;
    long long e = (long long)g.excess[p] + ((long long)s - s0);
    long long r = (long long)g.sink[p] + ((long long)t - t0);
    unsigned long long unsent = 0;
    if (r < 0) { /* the flow to the sink exceeds the new t */
        unsent += (unsigned long long)-r;
        e += -r;
        r = 0;
    }
    if (e < 0) {
        long long take = (long long)t - r; /* the flow to the sink */
        take = take < -e ? take : -e;
        r += take;
        e += take;
        unsent += (unsigned long long)take;
    }
    long long up = 0;
    if (raise && e < 0) {
        up = -e;
        e = 0;
        r += up;
    }
    if ((long long)s + up > INT32_MAX || (long long)t + up > INT32_MAX) {
        sums.refused++;
        return;
    }
    g.excess[p] = (int32_t)e;
    g.sink[p] = (int32_t)r;
    c.source[p] = (int32_t)(s + up);
    c.sink[p] = (int32_t)(t + up);
    c.offset[p] = (int32_t)up;
    sums.unsent += unsent;
    sums.raised += (unsigned long long)up;
    sums.dropped += (unsigned long long)off0;
}

static __device__ __forceinline__ void add_sums(unsigned long long *counters,
                                                const terminal_sums &sums)
{
    block_add(&counters[GCUT_UPD_UNSENT], sums.unsent);
    block_add(&counters[GCUT_UPD_RAISED], sums.raised);
    block_add(&counters[GCUT_UPD_DROPPED], sums.dropped);
    block_add(&counters[GCUT_UPD_REFUSED], sums.refused);
}

static __global__ __launch_bounds__(THREADS) void pairs_kernel(gcut__dgrid g, gcut__dcaps c,
                                                               const gcut__pair_change *changes,
                                                               int count)
{
    const int k = blockIdx.x * THREADS + threadIdx.x;
    if (k >= count)
        return;
    const gcut__pair_change ch = changes[k];
    const long long p = ch.node;
    const int d = ch.dir;
    long long q = 0;
    /* The loop over directions unrolls, so the offsets stay literals. */
#pragma unroll
    for (int e = 0; e < 8; e += 2)
        if (e == d)
            q = p + node_offset(g, e);
    const long long f = (long long)c.cap[d][p] - g.res[d][p]; /* net flow p -> q */
    long long nf = f < -(long long)ch.rev_cap ? -(long long)ch.rev_cap : f;
    nf = nf > ch.cap ? ch.cap : nf;
    g.res[d][p] = (int32_t)(ch.cap - nf);
    g.res[d ^ 1][q] = (int32_t)(ch.rev_cap + nf);
    c.cap[d][p] = ch.cap;
    c.cap[d ^ 1][q] = ch.rev_cap;
    if (nf != f) { /* p keeps what it no longer sends, q misses it */
        atomicAdd(&g.excess[p], (int32_t)(f - nf));
        atomicSub(&g.excess[q], (int32_t)(f - nf));
    }
}

static __global__
__launch_bounds__(THREADS) void terminals_kernel(gcut__dgrid g, gcut__dcaps c,
                                                 const gcut__terminal_change *changes, int count,
                                                 unsigned long long *counters)
{
    const int k = blockIdx.x * THREADS + threadIdx.x;
    terminal_sums sums = {0, 0, 0, 0};
    if (k < count) {
        const gcut__terminal_change ch = changes[k];
        set_terminals(g, c, ch.node, ch.source, ch.sink, 0, sums);
    }
    add_sums(counters, sums);
}

static __global__ __launch_bounds__(THREADS) void table_kernel(
    gcut__dgrid g, gcut__dcaps c, const uint32_t *colour, const uint8_t *seeds, uint32_t colors,
    const int32_t *tcap, int fresh, unsigned long long *counters)
{
    const long long n = (long long)g.img_w * g.img_h;
    terminal_sums sums = {0, 0, 0, 0};
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS) {
        const uint8_t seed = seeds[i];
        const uint32_t entry = seed == GCUT_SEED_FG   ? colors
                               : seed == GCUT_SEED_BG ? colors + 1
                                                      : colour[i];
        const int32_t t = tcap[entry];
        const int32_t s = t > 0 ? t : 0, k = t > 0 ? 0 : -t;
        const long long p = (i / g.img_w + 1) * (long long)g.pitch + i % g.img_w + 1;
        if (fresh) {
            g.excess[p] = s;
            g.sink[p] = k;
            c.source[p] = s;
            c.sink[p] = k;
            c.offset[p] = 0;
        } else {
            set_terminals(g, c, p, s, k, 1, sums);
        }
    }
    add_sums(counters, sums);
}

/* A node with a deficit takes flow back: first from its own sink arc, then
 * from the arcs that carry flow out of it (their heads miss that inflow,
 * which may pass the deficit on toward where the flow went). Only p writes
 * the pairs where its net outflow is positive, and it leaves that flow
 * non-negative, so no two threads write one pair; excesses change through
 * atomics, and a deficit another thread deepens meanwhile waits for the
 * next sweep. Each sweep lowers the total flow carried, so they end. */
static __global__ __launch_bounds__(THREADS) void pull_kernel(gcut__dgrid g, gcut__dcaps c,
                                                              unsigned long long *counters,
                                                              int slot)
{
    const long long n = (long long)g.pitch * g.rows;
    unsigned long long found = 0, unsent = 0;
    for (long long p = blockIdx.x * (long long)THREADS + threadIdx.x; p < n;
         p += (long long)gridDim.x * THREADS) {
        const int32_t e = load_volatile(&g.excess[p]);
        if (e >= 0)
            continue;
        found++;
        long long need = -(long long)e;
        const int32_t sent = c.sink[p] - g.sink[p];
        if (sent > 0) {
            const long long take = sent < need ? sent : need;
            g.sink[p] += (int32_t)take;
            need -= take;
            unsent += (unsigned long long)take;
        }
#pragma unroll
        for (int d = 0; d < 8; d++) {
            if (d >= g.ndirs || need == 0)
                continue;
            const long long f = (long long)c.cap[d][p] - g.res[d][p];
            if (f <= 0)
                continue;
            const long long take = f < need ? f : need;
            const long long q = p + node_offset(g, d);
            g.res[d][p] += (int32_t)take;
            g.res[d ^ 1][q] -= (int32_t)take;
            atomicSub(&g.excess[q], (int32_t)take);
            need -= take;
        }
        atomicAdd(&g.excess[p], (int32_t)(-(long long)e - need));
    }
    block_add(&counters[GCUT_UPD_SWEEPS + slot], found);
    block_add(&counters[GCUT_UPD_UNSENT], unsent);
}

extern "C" cudaError_t gcut__grid_update_pairs_launch(const gcut__dgrid *g, const gcut__dcaps *c,
                                                      const gcut__pair_change *changes, int count,
                                                      cudaStream_t stream)
{
    if (count <= 0)
        return cudaSuccess;
    pairs_kernel<<<(unsigned)((count + THREADS - 1) / THREADS), THREADS, 0, stream>>>(
        *g, *c, changes, count);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_update_terminals_launch(const gcut__dgrid *g,
                                                          const gcut__dcaps *c,
                                                          const gcut__terminal_change *changes,
                                                          int count, unsigned long long *counters,
                                                          cudaStream_t stream)
{
    if (count <= 0)
        return cudaSuccess;
    terminals_kernel<<<(unsigned)((count + THREADS - 1) / THREADS), THREADS, 0, stream>>>(
        *g, *c, changes, count, counters);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_update_table_launch(const gcut__dgrid *g, const gcut__dcaps *c,
                                                      const uint32_t *colour, const uint8_t *seeds,
                                                      uint32_t colors, const int32_t *tcap,
                                                      int fresh, unsigned long long *counters,
                                                      cudaStream_t stream)
{
    table_kernel<<<blocks_for((long long)g->img_w * g->img_h), THREADS, 0, stream>>>(
        *g, *c, colour, seeds, colors, tcap, fresh, counters);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__grid_pull_launch(const gcut__dgrid *g, const gcut__dcaps *c, int slot,
                                              unsigned long long *counters, cudaStream_t stream)
{
    pull_kernel<<<blocks_for((long long)g->pitch * g->rows), THREADS, 0, stream>>>(*g, *c, counters,
                                                                                   slot);
    return cudaPeekAtLastError();
}
