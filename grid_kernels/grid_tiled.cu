/* Tiled push-relabel for 4- and 8-connected grids (the default GPU grid
 * solver).
 *
 * A block owns a 32x16 tile, one thread per pixel, and runs up to `sweeps`
 * synchronous sweeps per launch: a push phase, then a relabel phase. The
 * heights of the tile and its one-pixel halo sit in shared memory, frozen
 * during a push phase; a pixel pushes only to strictly lower neighbours, so
 * two pixels of a tile never push to each other in the same phase and an
 * arc between them has one writer at a time: plain loads and stores suffice.
 * Flow arriving from inside the tile collects in shared memory (atomics),
 * and the owner folds it into its excess after the barrier. Arcs that cross
 * the tile border are shared with a block running concurrently, so both
 * residuals and the neighbour's excess change by global atomics; only the
 * owner of an arc ever lowers its residual, which therefore never goes
 * negative. A block writes back its excess as a delta (atomicAdd), keeping
 * what other blocks added meanwhile.
 *
 * Halo heights are read once per launch and may be stale; that can break
 * the labelling's validity for a while but never the preflow, and the next
 * global relabel (exact BFS) repairs the heights. Exactness rests on the
 * preflow and on the termination test, which uses exact heights. */
#include "grid_device.cuh"

template <int NDIR>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS) void tiled_kernel(gcut__dgrid g, int in,
                                                                        int sweeps)
{
    __shared__ int32_t sh_h[HALO_N];
    __shared__ int32_t sh_in[GCUT_TILE_PIXELS]; /* flow arrived from tile-mates this phase */
    const int tile = blockIdx.x;
    if (!g.flag[in][tile])
        return;
    const int out = 1 - in;
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    const long long origin = (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
    const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
    const int me = (ly + 1) * HALO_W + lx + 1;

    for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS)
        sh_h[i] = g.height[origin + (long long)(i / HALO_W) * g.pitch + i % HALO_W];
    sh_in[tid] = 0;
    const int e_start = load_volatile(&g.excess[p]);
    int e = e_start;
    int sink_res = g.sink[p];
    __syncthreads();
    int h = sh_h[me];

    int active = e > 0 && h < GCUT_HEIGHT_INF;
    for (int s = 0; s < sweeps; s++) {
        /* Push: to the sink first, then to every lower neighbour. */
        if (active) {
            if (sink_res > 0) {
                int delta = e < sink_res ? e : sink_res;
                sink_res -= delta;
                e -= delta;
            }
#pragma unroll
            for (int d = 0; d < NDIR; d++) {
                const int dx = dir_dx(d), dy = dir_dy(d);
                if (e > 0 && sh_h[me + dx + dy * HALO_W] < h) {
                    int32_t *arc = &g.res[d][p];
                    const int nx = lx + dx, ny = ly + dy;
                    const int inside = nx >= 0 && ny >= 0 && nx < GCUT_TILE_W && ny < GCUT_TILE_H;
                    const long long q = p + dx + (long long)dy * g.pitch;
                    const int r = inside ? *arc : load_volatile(arc);
                    if (r > 0) {
                        const int delta = e < r ? e : r;
                        e -= delta;
                        if (inside) {
                            *arc = r - delta;
                            g.res[d ^ 1][q] += delta;
                            atomicAdd(&sh_in[ny * GCUT_TILE_W + nx], delta);
                        } else {
                            atomicSub(arc, delta);
                            atomicAdd(&g.res[d ^ 1][q], delta);
                            atomicAdd(&g.excess[q], delta);
                            const int ntx = tx + (nx < 0 ? -1 : nx >= GCUT_TILE_W ? 1 : 0);
                            const int nty = ty + (ny < 0 ? -1 : ny >= GCUT_TILE_H ? 1 : 0);
                            g.flag[out][nty * g.tiles_x + ntx] = 1;
                        }
                    }
                }
            }
        }
        __syncthreads();
        e += sh_in[tid];
        sh_in[tid] = 0;

        /* Relabel: a pixel with excess left and no lower residual neighbour
         * rises to one above its lowest residual neighbour (infinite when it
         * has none: it cannot reach the sink). */
        int h_new = h;
        if (e > 0 && h < GCUT_HEIGHT_INF) {
            int low = sink_res > 0 ? 0 : GCUT_HEIGHT_INF;
#pragma unroll
            for (int d = 0; d < NDIR; d++) {
                const int hq = sh_h[me + dir_dx(d) + dir_dy(d) * HALO_W];
                if (hq < low && load_volatile(&g.res[d][p]) > 0)
                    low = hq;
            }
            if (low >= h)
                h_new = low >= GCUT_HEIGHT_INF ? GCUT_HEIGHT_INF : low + 1;
        }
        __syncthreads(); /* every height read of this sweep is done */
        h = h_new;
        sh_h[me] = h;
        active = e > 0 && h < GCUT_HEIGHT_INF;
        if (!__syncthreads_or(active))
            break;
    }

    g.height[p] = h;
    g.sink[p] = sink_res;
    if (e != e_start)
        atomicAdd(&g.excess[p], e - e_start);
    if (__syncthreads_or(active) && tid == 0)
        g.flag[out][tile] = 1;
}

extern "C" cudaError_t gcut__grid_tiled_launch(const gcut__dgrid *g, int in, int sweeps,
                                               cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    const unsigned tiles = (unsigned)(g->tiles_x * g->tiles_y);
    if (g->ndirs == 8)
        tiled_kernel<8><<<tiles, block, 0, stream>>>(*g, in, sweeps);
    else
        tiled_kernel<4><<<tiles, block, 0, stream>>>(*g, in, sweeps);
    return cudaPeekAtLastError();
}
