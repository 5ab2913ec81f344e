/* G-PR: push-relabel matching on the GPU (match_kernels.h; Deveci et al.
 * 2013, Algorithms 4-9). One thread per row of a BFS frontier, per active
 * column of a push. */
#include "match_kernels.h"

#define THREADS 256
#define SMALL_THREADS 1024

static inline unsigned blocks_for(int64_t n)
{
    int64_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b);
}

/* ---- greedy start --------------------------------------------------------- */

/* Each free column proposes to its first free row from an offset of its
 * own (a hash), so that columns sharing rows spread over them; the last
 * proposal a row receives is the one it keeps. col_level holds the row
 * proposed to until the first global relabel. */
static __global__ __launch_bounds__(THREADS) void propose_kernel(gcut__dmatch m)
{
    const int32_t v = blockIdx.x * THREADS + threadIdx.x;
    if (v >= m.cols || m.cmatch[v] != -1)
        return;
    const int32_t start = m.col_start[v], deg = m.col_start[v + 1] - start;
    int32_t chosen = -1;
    if (deg > 0) {
        const int32_t off = (int32_t)((uint32_t)v * 2654435761u % (uint32_t)deg);
        for (int32_t k = 0; k < deg; k++) {
            int32_t j = off + k;
            j = j >= deg ? j - deg : j;
            const int32_t u = m.col_row[start + j];
            if (m.rmatch[u] == -1) {
                m.claim[u] = v;
                chosen = u;
                break;
            }
        }
    }
    m.col_level[v] = chosen;
}

static __global__ __launch_bounds__(THREADS) void accept_kernel(gcut__dmatch m)
{
    const int32_t v = blockIdx.x * THREADS + threadIdx.x;
    if (v >= m.cols || m.cmatch[v] != -1)
        return;
    const int32_t u = m.col_level[v];
    if (u >= 0 && m.claim[u] == v) {
        m.rmatch[u] = v;
        m.cmatch[v] = u;
    }
}

static __global__ __launch_bounds__(THREADS) void collect_kernel(gcut__dmatch m, int32_t *list)
{
    const int32_t v = blockIdx.x * THREADS + threadIdx.x;
    if (v < m.cols && m.cmatch[v] == -1 && m.col_start[v + 1] > m.col_start[v])
        list[atomicAdd(&m.counters[GCUT_MCNT_LIST], 1)] = v;
}

/* ---- global relabel (Algorithms 4 and 5) ---------------------------------- */

/* INITRELABEL: free rows at 0 (and the first frontier), all else inf. */
static __global__ __launch_bounds__(THREADS) void relabel_init_kernel(gcut__dmatch m)
{
    const int32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i < m.rows) {
        const int free_row = m.rmatch[i] == -1;
        m.row_level[i] = free_row ? 0 : m.inf;
        if (free_row)
            m.frontier[0][atomicAdd(&m.counters[GCUT_MCNT_FRONTIER0], 1)] = i;
    }
    if (i < m.cols)
        m.col_level[i] = m.inf;
}

/* One row of the frontier at `level`: its unreached columns get level + 1
 * (claimed by a compare-and-swap, so each is expanded once), and a
 * column's row, if the two agree, level + 2 and a place in `out`. */
static __device__ __forceinline__ void expand_row(const gcut__dmatch &m, int32_t u, int32_t level,
                                                  int32_t *out, int32_t *out_count)
{
    for (int32_t e = m.row_start[u]; e < m.row_start[u + 1]; e++) {
        const int32_t c = m.row_col[e];
        if (m.col_level[c] != m.inf || atomicCAS(&m.col_level[c], m.inf, level + 1) != m.inf)
            continue;
        const int32_t w = m.cmatch[c];
        if (w >= 0 && m.rmatch[w] == c) {
            m.row_level[w] = level + 2;
            out[atomicAdd(out_count, 1)] = w;
        }
    }
}

static __global__ __launch_bounds__(THREADS) void relabel_level_kernel(gcut__dmatch m,
                                                                       int32_t level, int32_t count)
{
    const int32_t i = blockIdx.x * THREADS + threadIdx.x;
    const int parity = (level >> 1) & 1;
    if (i < count)
        expand_row(m, m.frontier[parity][i], level, m.frontier[parity ^ 1],
                   &m.counters[GCUT_MCNT_FRONTIER0 + (parity ^ 1)]);
}

/* Levels in one block while the frontier stays small: the long, thin
 * searches of meshes would otherwise pay a launch and a read-back a level. */
static __global__ __launch_bounds__(SMALL_THREADS) void relabel_small_kernel(gcut__dmatch m,
                                                                             int32_t level,
                                                                             int32_t small_max)
{
    __shared__ int32_t size_in, size_out;
    int parity = (level >> 1) & 1;
    if (threadIdx.x == 0)
        size_in = m.counters[GCUT_MCNT_FRONTIER0 + parity];
    __syncthreads();
    for (;;) {
        if (threadIdx.x == 0)
            size_out = 0;
        __syncthreads();
        const int32_t *in = m.frontier[parity];
        for (int32_t k = threadIdx.x; k < size_in; k += SMALL_THREADS)
            expand_row(m, in[k], level, m.frontier[parity ^ 1], &size_out);
        __syncthreads();
        level += 2;
        parity ^= 1;
        if (threadIdx.x == 0)
            size_in = size_out;
        __syncthreads();
        if (size_in == 0 || size_in > small_max)
            break;
    }
    if (threadIdx.x == 0) {
        m.counters[GCUT_MCNT_LEVEL] = level;
        m.counters[GCUT_MCNT_PARITY] = parity;
        m.counters[GCUT_MCNT_FRONTIER0 + parity] = size_in;
    }
}

/* ---- push-relabel (Algorithms 8 and 9) ------------------------------------ */

/* The column slot i works on this loop: the one its last push displaced,
 * or, where that push was lost to another column or refused, the column
 * itself again (the rollback). */
static __device__ __forceinline__ int32_t next_active(const gcut__dmatch &m, const int32_t *cur,
                                                      const int32_t *prev, int32_t i)
{
    const int32_t p = prev[i];
    if (p != -1) {
        const int32_t u = m.cmatch[p];
        if (u < 0 || m.rmatch[u] != p)
            return p;
    }
    return cur[i];
}

static __global__ __launch_bounds__(THREADS) void init_kernel(gcut__dmatch m, int32_t *cur,
                                                              const int32_t *prev, int32_t count,
                                                              int32_t loop)
{
    const int32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= count)
        return;
    const int32_t v = next_active(m, cur, prev, i);
    cur[i] = v;
    if (v != -1) {
        m.stamp[v] = loop;
        m.counters[GCUT_MCNT_LAST_ACTIVE] = loop; /* every writer stores the same value */
    }
}

static __global__ __launch_bounds__(THREADS) void shrink_kernel(gcut__dmatch m, const int32_t *cur,
                                                                const int32_t *prev, int32_t *out,
                                                                int32_t count, int32_t loop)
{
    const int32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= count)
        return;
    const int32_t v = next_active(m, cur, prev, i);
    if (v != -1) {
        m.stamp[v] = loop;
        out[atomicAdd(&m.counters[GCUT_MCNT_LIST], 1)] = v;
    }
}

/* One active column: find its lowest-labelled row (stopping at the lower
 * bound level - 1), and take it, unless its column is active in this same
 * launch (then retry next loop). No row below inf: the column can reach no
 * free row and leaves the list for good (cmatch -2). */
static __global__ __launch_bounds__(THREADS) void push_kernel(gcut__dmatch m, int32_t *cur,
                                                              int32_t *prev, int32_t count,
                                                              int32_t loop)
{
    const int32_t i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= count)
        return;
    const int32_t v = cur[i];
    if (v == -1) {
        prev[i] = -1;
        return;
    }
    const int32_t want = m.col_level[v] - 1;
    int32_t best = m.inf, u = -1;
    for (int32_t e = m.col_start[v]; e < m.col_start[v + 1]; e++) {
        const int32_t r = m.col_row[e], level = m.row_level[r];
        if (level < best) {
            best = level;
            u = r;
            if (level == want)
                break;
        }
    }
    if (best < m.inf) {
        const int32_t w = m.rmatch[u];
        if (w == -1 || m.stamp[w] != loop) {
            m.rmatch[u] = v;
            m.cmatch[v] = u;
            m.col_level[v] = best + 1;
            m.row_level[u] = best + 2;
            prev[i] = w;
        } else {
            prev[i] = -1;
        }
    } else {
        m.cmatch[v] = -2;
        cur[i] = -1;
        prev[i] = -1;
    }
}

static __global__ __launch_bounds__(THREADS) void fix_kernel(gcut__dmatch m)
{
    const int32_t c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= m.cols)
        return;
    const int32_t u = m.cmatch[c];
    if (u < 0 || m.rmatch[u] != c)
        m.cmatch[c] = -1;
}

/* ---- launchers ------------------------------------------------------------ */

extern "C" cudaError_t gcut__gpr_propose_launch(const gcut__dmatch *m, cudaStream_t stream)
{
    propose_kernel<<<blocks_for(m->cols), THREADS, 0, stream>>>(*m);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_accept_launch(const gcut__dmatch *m, cudaStream_t stream)
{
    accept_kernel<<<blocks_for(m->cols), THREADS, 0, stream>>>(*m);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_collect_launch(const gcut__dmatch *m, int32_t *list,
                                                cudaStream_t stream)
{
    collect_kernel<<<blocks_for(m->cols), THREADS, 0, stream>>>(*m, list);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_relabel_init_launch(const gcut__dmatch *m, cudaStream_t stream)
{
    relabel_init_kernel<<<blocks_for(m->rows > m->cols ? m->rows : m->cols), THREADS, 0, stream>>>(
        *m);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_relabel_level_launch(const gcut__dmatch *m, int32_t level,
                                                      int32_t count, cudaStream_t stream)
{
    relabel_level_kernel<<<blocks_for(count), THREADS, 0, stream>>>(*m, level, count);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_relabel_small_launch(const gcut__dmatch *m, int32_t level,
                                                      int32_t small_max, cudaStream_t stream)
{
    relabel_small_kernel<<<1, SMALL_THREADS, 0, stream>>>(*m, level, small_max);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_init_launch(const gcut__dmatch *m, int32_t *cur,
                                             const int32_t *prev, int32_t count, int32_t loop,
                                             cudaStream_t stream)
{
    init_kernel<<<blocks_for(count), THREADS, 0, stream>>>(*m, cur, prev, count, loop);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_shrink_launch(const gcut__dmatch *m, const int32_t *cur,
                                               const int32_t *prev, int32_t *out, int32_t count,
                                               int32_t loop, cudaStream_t stream)
{
    shrink_kernel<<<blocks_for(count), THREADS, 0, stream>>>(*m, cur, prev, out, count, loop);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_push_launch(const gcut__dmatch *m, int32_t *cur, int32_t *prev,
                                             int32_t count, int32_t loop, cudaStream_t stream)
{
    push_kernel<<<blocks_for(count), THREADS, 0, stream>>>(*m, cur, prev, count, loop);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__gpr_fix_launch(const gcut__dmatch *m, cudaStream_t stream)
{
    fix_kernel<<<blocks_for(m->cols), THREADS, 0, stream>>>(*m);
    return cudaGetLastError();
}
