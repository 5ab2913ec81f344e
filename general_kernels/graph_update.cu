/* Dynamic re-solves on the device (S. Kannappan, A. Kumar, R. Nasre,
 * "Scalable Maxflow Processing for Dynamic Graphs", section 4, Algorithm
 * 5): a batch of capacity changes applied to the flow and excesses the
 * last solve left. The re-solve that follows is the worklist solver's
 * phase 1 with the deficient nodes as extra targets (graph_kernels.h's
 * `deficits`; the relabel seeds them and counts what they still miss).
 *
 * Cutting an arc's flow back to a lower capacity is Algorithm 5's repair
 * of a negative residual: the flow that no longer fits stays at the tail
 * (an excess, pushed on by the re-solve) and is missed at the head (a
 * deficit, which absorbs flow like the sink). */
#include "graph_device.cuh"

/* A thread per update. atomicMin makes an arc listed twice (with its one
 * final capacity) cut once: the second thread finds the flow at the
 * capacity already. (An excess left at the source is never read.) */
static __global__ __launch_bounds__(THREADS) void update_kernel(gcut__dgraph g,
                                                                const gcut__dupdate *updates,
                                                                int64_t count)
{
    int32_t *const cap = const_cast<int32_t *>(g.out_cap);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        const gcut__dupdate u = updates[i];
        cap[u.arc] = u.cap;
        const int32_t old = atomicMin(&g.flow[u.arc], u.cap);
        if (old > u.cap) {
            add_excess(g.excess, u.tail, (long long)old - u.cap);
            add_excess(g.excess, g.out_head[u.arc], (long long)u.cap - old);
        }
    }
}

/* Phase 1 starts with the source's arcs saturated: the raised ones, and
 * those whose flow phase 2 returned, fill up again (a thread per arc). */
static __global__ __launch_bounds__(THREADS) void resaturate_kernel(gcut__dgraph g)
{
    const int32_t first = g.out_start[g.source], last = g.out_start[g.source + 1];
    for (int32_t k = first + blockIdx.x * blockDim.x + threadIdx.x; k < last;
         k += gridDim.x * blockDim.x) {
        const int32_t room = g.out_cap[k] - g.flow[k];
        if (room > 0) {
            g.flow[k] = g.out_cap[k];
            add_excess(g.excess, g.out_head[k], room);
        }
    }
}

extern "C" cudaError_t gcut__graph_update_launch(const gcut__dgraph *g,
                                                 const gcut__dupdate *updates, int64_t count,
                                                 cudaStream_t stream)
{
    if (count <= 0)
        return cudaSuccess;
    const int64_t want = (count + THREADS - 1) / THREADS;
    const int blocks = want < g->blocks ? (int)want : g->blocks;
    update_kernel<<<blocks, THREADS, 0, stream>>>(*g, updates, count);
    return cudaGetLastError();
}

extern "C" cudaError_t gcut__graph_resaturate_launch(const gcut__dgraph *g, cudaStream_t stream)
{
    resaturate_kernel<<<g->blocks, THREADS, 0, stream>>>(*g);
    return cudaGetLastError();
}

