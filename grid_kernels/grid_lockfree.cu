/* The lock-free push-relabel baseline for 4- and 8-connected grids.
 *
 * Hong's asynchronous algorithm (Wu, He and Hong, "Efficient CUDA Algorithms for
 * the Maximum Network Flow Problem", Algorithm 2), on the CudaCuts
 * grid layout as Łupińska runs it ("Parallel implementation of
 * flow and matching algorithms", section 4): one thread per
 * pixel, `cycles` steps per launch; each step finds the lowest neighbour
 * over residual arcs (the sink counts as height 0) and either pushes to it
 * or relabels to one above it. Only a pixel's own thread lowers its excess,
 * its sink residual and its residuals, so none goes negative; what others
 * add arrives by atomics. The global relabel between launches (the BFS of
 * grid_relabel.cu, on the GPU instead of the papers' CPU) keeps the heights
 * exact and marks pixels cut off from the sink as infinite. */
#include "grid_device.cuh"

template <int NDIR>
static __global__ __launch_bounds__(256) void lockfree_kernel(gcut__dgrid g, int cycles)
{
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= g.img_w || y >= g.img_h)
        return;
    const long long p = (long long)(y + 1) * g.pitch + x + 1;
    long long off[NDIR];
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        off[d] = dir_dx(d) + (long long)dir_dy(d) * g.pitch;

    int sink_res = g.sink[p];
    for (int c = 0; c < cycles; c++) {
        const int e = load_volatile(&g.excess[p]);
        const int h = load_volatile(&g.height[p]);
        if (e <= 0 || h >= GCUT_HEIGHT_INF)
            break;
        int low = sink_res > 0 ? 0 : GCUT_HEIGHT_INF;
        int low_dir = sink_res > 0 ? NDIR : -1;
#pragma unroll
        for (int d = 0; d < NDIR; d++) {
            if (load_volatile(&g.res[d][p]) > 0) {
                const int hq = load_volatile(&g.height[p + off[d]]);
                if (hq < low) {
                    low = hq;
                    low_dir = d;
                }
            }
        }
        if (low_dir < 0) { /* no residual arc at all: cut off from the sink */
            store_volatile(&g.height[p], GCUT_HEIGHT_INF);
            break;
        }
        if (h > low) {
            if (low_dir == NDIR) {
                const int delta = e < sink_res ? e : sink_res;
                sink_res -= delta;
                atomicSub(&g.excess[p], delta);
            } else {
#pragma unroll
                for (int d = 0; d < NDIR; d++)
                    if (d == low_dir) {
                        const int r = load_volatile(&g.res[d][p]);
                        const int delta = e < r ? e : r;
                        atomicSub(&g.res[d][p], delta);
                        atomicAdd(&g.res[d ^ 1][p + off[d]], delta);
                        atomicSub(&g.excess[p], delta);
                        atomicAdd(&g.excess[p + off[d]], delta);
                    }
            }
        } else {
            store_volatile(&g.height[p], low >= GCUT_HEIGHT_INF ? GCUT_HEIGHT_INF : low + 1);
        }
    }
    g.sink[p] = sink_res;
}

extern "C" cudaError_t gcut__grid_lockfree_launch(const gcut__dgrid *g, int cycles,
                                                  cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)((g->img_w + 31) / 32), (unsigned)((g->img_h + 7) / 8));
    if (g->ndirs == 8)
        lockfree_kernel<8><<<grid, block, 0, stream>>>(*g, cycles);
    else
        lockfree_kernel<4><<<grid, block, 0, stream>>>(*g, cycles);
    return cudaPeekAtLastError();
}
