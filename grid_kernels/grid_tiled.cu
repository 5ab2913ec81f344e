/* Tiled push-relabel for 4- and 8-connected grids (the default GPU grid
 * solver).
 *
 * A block runs a 32x16 tile, one thread per pixel: up to `sweeps`
 * synchronous sweeps (a tile run), each a push phase, then a relabel phase.
 * The heights of the tile and its one-pixel halo sit in shared memory,
 * frozen during a push phase; a pixel pushes only to strictly lower
 * neighbours, so two pixels of a tile never push to each other in the same
 * phase and an arc between them has one writer at a time. Flow arriving
 * from inside the tile collects in shared memory (atomics), and the owner
 * folds it into its excess after the barrier. Arcs that cross the tile
 * border are shared with a block running concurrently, so both residuals
 * and the neighbour's excess change by global atomics; only the owner of an
 * arc ever lowers its residual, which therefore never goes negative. A
 * block writes back its excess as a delta (atomicAdd), keeping what other
 * blocks added meanwhile.
 *
 * The tile's residuals live in shared memory for a tile run (read once;
 * those of arcs inside the tile written back once), so a sweep never waits
 * on a global load. In a push phase the arc p -> q inside the tile is
 * lowered by p only when q is lower, and raised by q only when p is lower:
 * never both, and p reads it only in the first case. An arc that crosses
 * the border is also raised by the neighbour block, in global memory only:
 * the shared copy is then below the true residual, so a push never exceeds
 * it (the preflow holds), and a relabel that misses the raise is at worst
 * too high, like a stale halo height.
 *
 * Halo heights are read once per tile run and may be stale; that can break
 * the labelling's validity for a while but never the preflow, and the next
 * global relabel (exact BFS) repairs the heights. Exactness rests on the
 * preflow and on the termination test, which uses exact heights.
 *
 * Two drivers: launches over a device-built list of active tiles, and one
 * persistent launch over a worklist of tiles (the tail of a push phase on
 * large 8-connected grids, src/gpu/grid_gpu_run.cu). */
#include "grid_device.cuh"

template <int NDIR>
struct tile_smem {
    int32_t h[HALO_N];
    int32_t in[GCUT_TILE_PIXELS]; /* flow arrived from tile-mates this phase */
    int32_t res[NDIR][GCUT_TILE_PIXELS];
    unsigned notify; /* bit 3 * (dy + 1) + dx + 1: flow went to that neighbour tile */
    int tile;
    int cap; /* a relabel to this height or above goes to infinity (tile_cap) */
};

/* The height from which a local relabel gives up on a pixel: infinity, or
 * with `cap_margin` > 0 the largest finite height of the last global
 * relabel plus the margin. A pixel lifted that far holds excess that the
 * last relabel's shortest paths no longer carry (mostly excess circling in
 * a region about to be cut off, each sweep lifting it by one); it stops
 * pushing until the next global relabel, which sets every height again
 * from scratch or from exact values, so this costs no exactness. */
static __device__ __forceinline__ int tile_cap(const gcut__dgrid &g, int cap_margin)
{
    if (cap_margin <= 0)
        return GCUT_HEIGHT_INF;
    const long long c = (long long)__ldcg(&g.counters[GCUT_CNT_HEIGHT_MAX]) + cap_margin;
    return c < GCUT_HEIGHT_INF ? (int)c : GCUT_HEIGHT_INF;
}

/* Push pixel (lx, ly) of the tile, node p, with excess e and sink residual
 * sink_res: to the sink first, then to every lower neighbour. The
 * neighbour heights and the residuals towards the lower neighbours are
 * loaded first, side by side, then the excess runs down the directions by
 * min, each push written as it is found; a residual is read only towards a
 * lower neighbour (a higher one may be raising it in this phase). The
 * tile-mate's reverse arc is raised by a shared atomic whose result nobody
 * waits for, so a push never waits out a shared load: only this pixel
 * writes that arc in this phase, and its owner does not read it then (it
 * is the owner's arc towards a higher pixel). */
template <int NDIR>
static __device__ __forceinline__ void push_pixel(const gcut__dgrid &g, tile_smem<NDIR> &sm,
                                                  int lx, int ly, long long p, int &e,
                                                  int &sink_res)
{
    const int tid = ly * GCUT_TILE_W + lx, me = (ly + 1) * HALO_W + lx + 1;
    const int h = sm.h[me];
    const int to_sink = e < sink_res ? e : sink_res;
    sink_res -= to_sink;
    e -= to_sink;
    int delta[NDIR]; /* first the residual towards a lower neighbour, else 0 */
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        delta[d] = sm.h[me + dir_dx(d) + dir_dy(d) * HALO_W] < h ? sm.res[d][tid] : 0;
#pragma unroll
    for (int d = 0; d < NDIR; d++) {
        const int r = delta[d];
        const int push = e < r ? e : r;
        e -= push;
        if (push > 0) {
            sm.res[d][tid] = r - push;
            const int dx = dir_dx(d), dy = dir_dy(d);
            const int nx = lx + dx, ny = ly + dy;
            if (nx >= 0 && ny >= 0 && nx < GCUT_TILE_W && ny < GCUT_TILE_H) {
                const int qt = ny * GCUT_TILE_W + nx;
                atomicAdd(&sm.res[d ^ 1][qt], push);
                atomicAdd(&sm.in[qt], push);
            } else {
                const long long q = p + dx + (long long)dy * g.pitch;
                atomicSub(&g.res[d][p], push);
                atomicAdd(&g.res[d ^ 1][q], push);
                atomicAdd(&g.excess[q], push);
                const int bx = nx < 0 ? 0 : nx >= GCUT_TILE_W ? 2 : 1;
                const int by = ny < 0 ? 0 : ny >= GCUT_TILE_H ? 2 : 1;
                atomicOr(&sm.notify, 1u << (3 * by + bx));
            }
        }
    }
}

/* Up to `sweeps` push/relabel sweeps on `tile` by the whole block; returns
 * (the same in every thread) whether pixels are still active, and leaves in
 * sm.notify (which the caller zeroes) the neighbour tiles that received
 * flow. */
template <int NDIR>
static __device__ int push_tile(const gcut__dgrid &g, int tile, int sweeps, tile_smem<NDIR> &sm)
{
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    const long long origin = (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
    const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
    const int me = (ly + 1) * HALO_W + lx + 1;

    /* Loads through L2 only (__ldcg): in the persistent kernel another
     * block, on another multiprocessor, may have run this tile before, and
     * this multiprocessor's L1 could still hold what it read then. */
    for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS)
        sm.h[i] = __ldcg(&g.height[origin + (long long)(i / HALO_W) * g.pitch + i % HALO_W]);
    sm.in[tid] = 0;
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        sm.res[d][tid] = __ldcg(&g.res[d][p]);
    const int e_start = load_volatile(&g.excess[p]);
    int e = e_start;
    int sink_res = __ldcg(&g.sink[p]);
    int h = __ldcg(&g.height[p]); /* the value this thread's halo load may not cover */
    int active = e > 0 && h < GCUT_HEIGHT_INF;
    __syncthreads();

    for (int s = 0; s < sweeps; s++) {
        if (active)
            push_pixel<NDIR>(g, sm, lx, ly, p, e, sink_res);
        __syncthreads();
        e += sm.in[tid];
        sm.in[tid] = 0;

        /* Relabel: a pixel with excess left and no lower residual neighbour
         * rises to one above its lowest residual neighbour (infinite when it
         * has none: it cannot reach the sink). Only pixels with excess:
         * relabelling every pixel of finite height was slower on
         * 8-connected grids, the heights raised around circulating excess
         * walling it in (bench/results). Every load issued up front. */
        int h_new = h;
        if (e > 0 && h < GCUT_HEIGHT_INF) {
            int low = sink_res > 0 ? 0 : GCUT_HEIGHT_INF;
#pragma unroll
            for (int d = 0; d < NDIR; d++) {
                const int hq = sm.h[me + dir_dx(d) + dir_dy(d) * HALO_W];
                const int cand = sm.res[d][tid] > 0 ? hq : GCUT_HEIGHT_INF;
                low = cand < low ? cand : low;
            }
            if (low >= h)
                h_new = low >= sm.cap ? GCUT_HEIGHT_INF : low + 1;
        }
        __syncthreads(); /* every height read of this sweep is done */
        h = h_new;
        sm.h[me] = h;
        active = e > 0 && h < GCUT_HEIGHT_INF;
        if (!__syncthreads_or(active))
            break;
    }

    g.height[p] = h;
    g.sink[p] = sink_res;
#pragma unroll
    for (int d = 0; d < NDIR; d++) {
        const int nx = lx + dir_dx(d), ny = ly + dir_dy(d);
        if (nx >= 0 && ny >= 0 && nx < GCUT_TILE_W && ny < GCUT_TILE_H)
            g.res[d][p] = sm.res[d][tid];
    }
    if (e != e_start)
        atomicAdd(&g.excess[p], e - e_start);
    return __syncthreads_or(active);
}

/* One launch over the tiles of list[in], shared out among the resident
 * blocks (a grid of all tiles spent tens of microseconds per launch on
 * blocks with nothing to do): each tile runs, then the tiles with work left
 * and those that received flow go to flag[1 - in] and list[1 - in]. A
 * launch leaves flag[in] and list[in] empty for the next launch's output
 * (the flags of the tiles it takes, set only for listed tiles; the count,
 * by the last block to finish, when every block has read it), so that no
 * memset runs between two launches. Built for 4 resident blocks a
 * multiprocessor (32 registers, a few bytes spilled), not 3: a launch of up
 * to 4 tiles a multiprocessor (at 1 MP most launches) is then one round of
 * tile runs, not two. */
template <int NDIR>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, 4) void tiled_kernel(gcut__dgrid g, int in,
                                                                           int sweeps,
                                                                           int cap_margin)
{
    __shared__ tile_smem<NDIR> sm;
    const int out = 1 - in, tid = threadIdx.y * GCUT_TILE_W + threadIdx.x;
    /* Let a launch queued as this one's programmatic dependent be placed
     * now; then wait for the launch before this one, if this is such a
     * dependent, to complete with its memory visible (both no-ops
     * otherwise). Nothing is read before the wait. Hopper and later only:
     * older GPUs have no programmatic launches (the host asks for none). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    const long long count = (long long)g.counters[GCUT_CNT_LIST0 + in];
    if (blockIdx.x == 0 && tid == 0)
        atomicAdd(&g.counters[GCUT_CNT_TAKEN], (unsigned long long)count); /* tile runs */
    for (long long k = blockIdx.x; k < count; k += gridDim.x) {
        const int tile = g.list[in][k];
        if (tid == 0) {
            sm.notify = 0;
            sm.cap = tile_cap(g, cap_margin);
            g.flag[in][tile] = 0; /* no one marks flag[in] in this launch */
            g.dirty[tile] = 1;    /* its residuals change (the relabel's prep reads it) */
        }
        /* push_tile's first barrier orders this before any atomicOr. */
        const int active = push_tile<NDIR>(g, tile, sweeps, sm);
        if (tid < 9) {
            const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
            const int nx = tx + tid % 3 - 1, ny = ty + tid / 3 - 1;
            const int sent = tid != 4 && ((sm.notify >> tid) & 1);
            if ((tid == 4 ? active : sent) && nx >= 0 && ny >= 0 && nx < g.tiles_x &&
                ny < g.tiles_y) {
                gcut__mark_tile(g, out, ny * g.tiles_x + nx);
                if (sent)
                    g.dirty[ny * g.tiles_x + nx] = 1; /* its border arcs and excess rose */
            }
        }
        __syncthreads(); /* sm is reused */
    }
    if (tid == 0 && atomicAdd(&g.counters[GCUT_CNT_DONE], 1ull) == gridDim.x - 1ull) {
        g.counters[GCUT_CNT_LIST0 + in] = 0;
        g.counters[GCUT_CNT_DONE] = 0;
    }
}

/* Take the next tile of the push worklist (thread 0): -1 once the queue is
 * empty with no block at work, or once `budget` tiles were taken (a few
 * more when blocks take at the same time). The tile's queued flag stays
 * set while it is in work, so that no two blocks hold one tile (their
 * shared-memory residuals would overwrite each other's). */
static __device__ int take_push_tile(const gcut__dgrid &g, long long budget)
{
    unsigned long long *taken = &g.counters[GCUT_CNT_TAKEN];
    if ((long long)*(volatile unsigned long long *)taken >= budget)
        return -1;
    const unsigned long long i = atomicAdd(&g.counters[GCUT_CNT_HEAD], 1ull);
    unsigned long long *slot = &g.queue[i % (unsigned long long)g.queue_cap];
    const unsigned long long tag = (i + 1) & 0xffffffffull;
    for (;;) {
        const unsigned long long v = *(volatile unsigned long long *)slot;
        if ((v >> 32) == tag) {
            atomicExch(slot, 0ull);
            atomicAdd(taken, 1ull); /* only runs count against the budget, not waits */
            __threadfence();
            return (int)(v & 0xffffffffull);
        }
        if (*(volatile unsigned long long *)&g.counters[GCUT_CNT_PENDING] == 0 ||
            (long long)*(volatile unsigned long long *)taken >= budget)
            return -1;
        __nanosleep(64);
    }
}

/* The push phase as one persistent (cooperative) launch: blocks take
 * active tiles off the queue, run up to `sweeps` sweeps on each, and queue
 * the tiles that received flow and, when pixels stay active, the tile
 * itself. Flow crosses a tile border as soon as a block is free, with no
 * launch in between; halo heights are read when a tile is taken, so they
 * are fresher than a launch's. A tile is unqueued only when its run is
 * over, and then its pixels are checked once more: flow that a neighbour
 * pushed in meanwhile either shows in that check or finds the flag clear
 * and queues the tile. Ends when the queue drains or after `budget` tile
 * runs; what is left waits for the next global relabel (a larger budget
 * measured slower: the runs past it move excess that can no longer reach
 * the sink). */
template <int NDIR>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, 3) void tiled_worklist_kernel(
    gcut__dgrid g, int sweeps, int cap_margin, long long budget)
{
    __shared__ tile_smem<NDIR> sm;
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    for (;;) {
        if (tid == 0) {
            sm.tile = take_push_tile(g, budget);
            sm.notify = 0;
            sm.cap = tile_cap(g, cap_margin);
        }
        __syncthreads();
        const int tile = sm.tile;
        if (tile < 0)
            return;
        if (tid == 0)
            g.dirty[tile] = 1; /* its residuals change (the relabel's prep reads it) */
        push_tile<NDIR>(g, tile, sweeps, sm);
        __threadfence(); /* this run's writes are visible before the tile is unqueued */
        __syncthreads();
        if (tid == 0) {
            atomicExch(&g.queued[tile], 0);
            __threadfence();
        }
        __syncthreads();
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        const long long p = ((long long)ty * GCUT_TILE_H + ly + 1) * g.pitch +
                            (long long)tx * GCUT_TILE_W + lx + 1;
        const int active = __syncthreads_or(load_volatile(&g.excess[p]) > 0 &&
                                            sm.h[(ly + 1) * HALO_W + lx + 1] < GCUT_HEIGHT_INF);
        if (tid < 32) {
            const int nx = tx + tid % 3 - 1, ny = ty + tid / 3 - 1;
            const int sent = tid < 9 && tid != 4 && ((sm.notify >> tid) & 1);
            if (tid < 9 && (tid == 4 ? active : sent) && nx >= 0 && ny >= 0 && nx < g.tiles_x &&
                ny < g.tiles_y) {
                if (sent)
                    g.dirty[ny * g.tiles_x + nx] = 1; /* its border arcs and excess rose */
                gcut__put_tile(g, ny * g.tiles_x + nx);
            }
            __threadfence(); /* the queueing is counted before this run is done */
            __syncwarp();
            if (tid == 0)
                atomicAdd(&g.counters[GCUT_CNT_PENDING], ~0ull); /* minus one */
        }
        __syncthreads(); /* sm is reused */
    }
}

static void *tiled_kernel_for(int ndirs)
{
    return ndirs == 8 ? (void *)tiled_kernel<8> : (void *)tiled_kernel<4>;
}

extern "C" cudaError_t gcut__grid_tiled_launch(const gcut__dgrid *g, int in, int sweeps,
                                               int cap_margin, int overlap, cudaStream_t stream)
{
    void *kernel = tiled_kernel_for(g->ndirs);
    int blocks = 0;
    cudaError_t err = gcut__resident_blocks(kernel, g->tiles_x * g->tiles_y, &blocks);
    if (err != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg, &in, &sweeps, &cap_margin};
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1] = {};
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = dim3(GCUT_TILE_W, GCUT_TILE_H);
    config.stream = stream;
    int device = 0, major = 0;
    if (overlap && cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
        major >= 9) {
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        config.attrs = attr;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelExC(&config, kernel, args);
}

extern "C" cudaError_t gcut__grid_tiled_blocks(const gcut__dgrid *g, int *blocks)
{
    return gcut__resident_blocks(tiled_kernel_for(g->ndirs), g->tiles_x * g->tiles_y, blocks);
}

extern "C" cudaError_t gcut__grid_tiled_worklist_launch(const gcut__dgrid *g, int sweeps,
                                                        int cap_margin, long long budget,
                                                        cudaStream_t stream)
{
    void *kernel = g->ndirs == 8 ? (void *)tiled_worklist_kernel<8>
                                 : (void *)tiled_worklist_kernel<4>;
    int blocks = 0;
    cudaError_t err = gcut__resident_blocks(kernel, g->tiles_x * g->tiles_y, &blocks);
    if (err != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg, &sweeps, &cap_margin, &budget};
    return cudaLaunchCooperativeKernel(kernel, dim3((unsigned)blocks),
                                       dim3(GCUT_TILE_W, GCUT_TILE_H), args, 0, stream);
}
