/* Tiled push-relabel for 4- and 8-connected grids (the default GPU grid
 * solver).
 *
 * A block runs a 32x16 tile, one thread per pixel: up to `sweeps`
 * synchronous sweeps (a tile run), each a push phase, then a relabel phase. The
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
 * Halo heights (and residuals of border arcs, with SHARED_RES) are read
 * once per tile run and may be stale; that can break the labelling's
 * validity for a while but never the preflow, and the next global relabel
 * (exact BFS) repairs the heights. Exactness rests on the preflow and on
 * the termination test, which uses exact heights.
 *
 * Push step variants (GCUT_PUSH_*, grid_kernels.h): one thread per pixel
 * or the active pixels from a per-tile list, each with the branchy or the
 * branch-free step; one thread per pixel, branch-free, with the reverse
 * arcs inside the tile raised by shared atomics (AR), is the default.
 *
 * Two drivers: launches over a device-built list of active tiles (the
 * default), and one persistent launch over a worklist of tiles (opt-in:
 * faster on the largest graphs, with outliers on others; bench/results).
 *
 * Where a heavy launch's time goes (Nsight Compute, round 7 of 2026-11-22,
 * bench/results): 15 sweeps a tile run at 8.3 MP, 161 warp instructions a
 * warp and sweep at 12 of 32 lanes active, issue 0.67 a scheduler and
 * cycle; over a third of the stall samples wait at a sweep's barriers
 * (22% at the one after the push code, 8% at the next), behind the warps
 * whose few active pixels walk the eight directions. At 1 MP a launch is
 * one round of tile runs (468 for 528 resident blocks), issue 0.51. */
#include "grid_device.cuh"

/* SHARED_RES: the tile's residuals live in shared memory for a tile run
 * (read once; those of arcs inside the tile written back once), so a sweep
 * never waits on a global load. In a push phase the arc p -> q inside the
 * tile is lowered by p only when q is lower, and raised by q only when p is
 * lower: never both, and p reads it only in the first case. An arc that
 * crosses the border is also raised by the neighbour block, in global
 * memory only: the shared copy is then below the true residual, so a push
 * never exceeds it (the preflow holds), and a relabel that misses the
 * raise is at worst too high, which the next global relabel repairs, like
 * a stale halo height. Pushes across the border go to global memory by
 * atomics (fire and forget). */
/* LIST (with SHARED_RES; opt-in, measured slower: bench/results): the push
 * phase runs the active pixels from a per-tile list, packed on the first
 * threads, instead of each pixel on its own thread: about one pixel in
 * eight is active, so the per-direction push code ran on 1 to 4 lanes of
 * most warps (the Nsight Compute profile in bench/results).
 * Excess and sink residual then live in shared memory, so that any thread
 * can run any pixel. The list is built at the end of a sweep by warp
 * ballots (one shared atomic per warp) and published by the barrier that
 * ends the sweep; no barrier is added. Which thread runs a pixel is all
 * that changes: the pushes, and the one-writer-per-arc argument, are the
 * same. */
template <int NDIR, bool SHARED_RES, bool LIST>
struct tile_smem {
    int32_t h[HALO_N];
    int32_t in[GCUT_TILE_PIXELS]; /* flow arrived from tile-mates this phase */
    int32_t res[SHARED_RES ? NDIR : 1][GCUT_TILE_PIXELS];
    int32_t e[LIST ? GCUT_TILE_PIXELS : 1];    /* excess (LIST) */
    int32_t sink[LIST ? GCUT_TILE_PIXELS : 1]; /* sink residual (LIST) */
    int16_t list[LIST ? GCUT_TILE_PIXELS : 1]; /* the active pixels of this sweep (LIST) */
    int nlist;       /* entries of list; zero between tile runs */
    unsigned notify; /* bit 3 * (dy + 1) + dx + 1: flow went to that neighbour tile */
    int tile;
};

/* Push pixel (lx, ly) of the tile, node p, with excess e, sink residual
 * sink_res and height h: to the sink first, then to every lower neighbour. */
template <int NDIR, bool SHARED_RES, bool LIST>
static __device__ __forceinline__ void push_pixel(const gcut__dgrid &g,
                                                  tile_smem<NDIR, SHARED_RES, LIST> &sm, int lx,
                                                  int ly, long long p, int &e, int &sink_res)
{
    const int tid = ly * GCUT_TILE_W + lx, me = (ly + 1) * HALO_W + lx + 1;
    const int h = sm.h[me];
    if (sink_res > 0) {
        int delta = e < sink_res ? e : sink_res;
        sink_res -= delta;
        e -= delta;
    }
#pragma unroll
    for (int d = 0; d < NDIR; d++) {
        const int dx = dir_dx(d), dy = dir_dy(d);
        if (e > 0 && sm.h[me + dx + dy * HALO_W] < h) {
            int32_t *arc = &g.res[d][p];
            const int nx = lx + dx, ny = ly + dy;
            const int inside = nx >= 0 && ny >= 0 && nx < GCUT_TILE_W && ny < GCUT_TILE_H;
            const long long q = p + dx + (long long)dy * g.pitch;
            const int qt = ny * GCUT_TILE_W + nx;
            const int r = SHARED_RES ? sm.res[SHARED_RES ? d : 0][tid]
                          : inside   ? __ldcg(arc)
                                     : load_volatile(arc);
            if (r > 0) {
                const int delta = e < r ? e : r;
                e -= delta;
                if (SHARED_RES)
                    sm.res[SHARED_RES ? d : 0][tid] = r - delta;
                if (inside) {
                    if (SHARED_RES) {
                        sm.res[SHARED_RES ? d ^ 1 : 0][qt] += delta;
                    } else {
                        *arc = r - delta;
                        g.res[d ^ 1][q] = __ldcg(&g.res[d ^ 1][q]) + delta;
                    }
                    atomicAdd(&sm.in[qt], delta);
                } else {
                    atomicSub(arc, delta);
                    atomicAdd(&g.res[d ^ 1][q], delta);
                    atomicAdd(&g.excess[q], delta);
                    const int bx = nx < 0 ? 0 : nx >= GCUT_TILE_W ? 2 : 1;
                    const int by = ny < 0 ? 0 : ny >= GCUT_TILE_H ? 2 : 1;
                    atomicOr(&sm.notify, 1u << (3 * by + bx));
                }
            }
        }
    }
}

/* push_pixel without the branches on the way (BF, the default): the
 * neighbour heights and the residuals towards the lower neighbours are
 * loaded first, side by side, then the excess runs down the directions by
 * min, each push written as it is found. Same pushes, in the same order, as
 * push_pixel; a residual is read only towards a lower neighbour, as there
 * (a higher one may be raising it in this phase).
 * AR (the default): the tile-mate's reverse arc is raised by a shared
 * atomic whose result nobody waits for, instead of a load, an add and a
 * store, so a push no longer waits out a shared load (the push phase and
 * the wait at the barrier after it were 56% of a sweep's stall samples in
 * the profile of 2026-11-22). Only this pixel writes that arc in this
 * phase, and its owner does not read it then (it is the owner's arc
 * towards a higher pixel). */
template <int NDIR, bool LIST, bool AR>
static __device__ __forceinline__ void push_pixel_bf(const gcut__dgrid &g,
                                                     tile_smem<NDIR, true, LIST> &sm, int lx,
                                                     int ly, long long p, int &e, int &sink_res)
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
                if (AR)
                    atomicAdd(&sm.res[d ^ 1][qt], push);
                else
                    sm.res[d ^ 1][qt] += push;
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

/* Either push step, by the BF template argument (AR: push_pixel_bf). */
template <int NDIR, bool SHARED_RES, bool LIST, bool BF, bool AR>
static __device__ __forceinline__ void push_step(const gcut__dgrid &g,
                                                 tile_smem<NDIR, SHARED_RES, LIST> &sm, int lx,
                                                 int ly, long long p, int &e, int &sink_res)
{
    if constexpr (BF && SHARED_RES)
        push_pixel_bf<NDIR, LIST, AR>(g, sm, lx, ly, p, e, sink_res);
    else
        push_pixel(g, sm, lx, ly, p, e, sink_res);
}

/* Append this thread's pixel to sm.list when `active` (LIST): one shared
 * atomic per warp. Called by every thread of the block. */
template <int NDIR, bool SHARED_RES, bool LIST>
static __device__ __forceinline__ void list_append(tile_smem<NDIR, SHARED_RES, LIST> &sm,
                                                   int tid, int active)
{
    const unsigned lane = threadIdx.x & 31, ball = __ballot_sync(0xffffffffu, active);
    int base = 0;
    if (lane == 0 && ball)
        base = atomicAdd(&sm.nlist, __popc(ball));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (active)
        sm.list[base + __popc(ball & ((1u << lane) - 1u))] = (int16_t)tid;
}

/* Up to `sweeps` push/relabel sweeps on `tile` by the whole block; returns
 * (the same in every thread) whether pixels are still active, and leaves in
 * sm.notify (which the caller zeroes) the neighbour tiles that received
 * flow. With LIST, sm.nlist is zero on entry and on return. */
template <int NDIR, bool SHARED_RES, bool LIST, bool BF, bool AR>
static __device__ int push_tile(const gcut__dgrid &g, int tile, int sweeps,
                                tile_smem<NDIR, SHARED_RES, LIST> &sm)
{
    int32_t *sh_h = sm.h, *sh_in = sm.in;
    int32_t(*sh_res)[GCUT_TILE_PIXELS] = sm.res;
    const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    const long long origin = (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
    const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
    const int me = (ly + 1) * HALO_W + lx + 1;

    /* Loads through L2 only (__ldcg): in the persistent kernel another
     * block, on another multiprocessor, may have run this tile before, and
     * this multiprocessor's L1 could still hold what it read then. */
    for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS)
        sh_h[i] = __ldcg(&g.height[origin + (long long)(i / HALO_W) * g.pitch + i % HALO_W]);
    sh_in[tid] = 0;
    if (SHARED_RES) {
#pragma unroll
        for (int d = 0; d < NDIR; d++)
            sh_res[SHARED_RES ? d : 0][tid] = __ldcg(&g.res[d][p]);
    }
    const int e_start = load_volatile(&g.excess[p]);
    int e = e_start;
    int sink_res = __ldcg(&g.sink[p]);
    int h = __ldcg(&g.height[p]); /* the value this thread's halo load may not cover */
    int active = e > 0 && h < GCUT_HEIGHT_INF;
    if (LIST) {
        sm.e[LIST ? tid : 0] = e;
        sm.sink[LIST ? tid : 0] = sink_res;
        list_append(sm, tid, active); /* nlist was zero; the barrier publishes */
    }
    __syncthreads();

    for (int s = 0; s < sweeps; s++) {
        if (LIST) {
            /* Push: the listed pixels, on the first threads of the block. */
            if (tid < sm.nlist) {
                const int i = sm.list[LIST ? tid : 0];
                const int ix = i % GCUT_TILE_W, iy = i / GCUT_TILE_W;
                int ie = sm.e[LIST ? i : 0], isink = sm.sink[LIST ? i : 0];
                const long long ip = origin + (long long)(iy + 1) * g.pitch + ix + 1;
                push_step<NDIR, SHARED_RES, LIST, BF, AR>(g, sm, ix, iy, ip, ie, isink);
                sm.e[LIST ? i : 0] = ie;
                sm.sink[LIST ? i : 0] = isink;
            }
            __syncthreads();
            if (tid == 0)
                sm.nlist = 0; /* every read of it this sweep is done; appends follow a barrier */
            e = sm.e[LIST ? tid : 0];
            sink_res = sm.sink[LIST ? tid : 0];
        } else {
            if (active)
                push_step<NDIR, SHARED_RES, LIST, BF, AR>(g, sm, lx, ly, p, e, sink_res);
            __syncthreads();
        }
        e += sh_in[tid];
        sh_in[tid] = 0;

        /* Relabel: a pixel with excess left and no lower residual neighbour
         * rises to one above its lowest residual neighbour (infinite when it
         * has none: it cannot reach the sink). Only pixels with excess:
         * relabelling every pixel of finite height (a Jacobi step towards
         * the tile's local distances, round 12, bench/results) was slower
         * on 8-connected grids, the heights raised around circulating
         * excess walling it in. */
        int h_new = h;
        if (BF && SHARED_RES && e > 0 && h < GCUT_HEIGHT_INF) {
            /* The same minimum, every load issued up front. */
            int low = sink_res > 0 ? 0 : GCUT_HEIGHT_INF;
#pragma unroll
            for (int d = 0; d < NDIR; d++) {
                const int hq = sh_h[me + dir_dx(d) + dir_dy(d) * HALO_W];
                const int cand = sh_res[SHARED_RES ? d : 0][tid] > 0 ? hq : GCUT_HEIGHT_INF;
                low = cand < low ? cand : low;
            }
            if (low >= h)
                h_new = low >= GCUT_HEIGHT_INF ? GCUT_HEIGHT_INF : low + 1;
        } else if (e > 0 && h < GCUT_HEIGHT_INF) {
            int low = sink_res > 0 ? 0 : GCUT_HEIGHT_INF;
#pragma unroll
            for (int d = 0; d < NDIR; d++) {
                const int hq = sh_h[me + dir_dx(d) + dir_dy(d) * HALO_W];
                if (hq < low) {
                    const int r = SHARED_RES ? sh_res[SHARED_RES ? d : 0][tid]
                                             : load_volatile(&g.res[d][p]);
                    if (r > 0)
                        low = hq;
                }
            }
            if (low >= h)
                h_new = low >= GCUT_HEIGHT_INF ? GCUT_HEIGHT_INF : low + 1;
        }
        __syncthreads(); /* every height read of this sweep is done */
        h = h_new;
        sh_h[me] = h;
        active = e > 0 && h < GCUT_HEIGHT_INF;
        if (LIST) {
            sm.e[LIST ? tid : 0] = e;
            list_append(sm, tid, active); /* published by the barrier below */
        }
        if (!__syncthreads_or(active))
            break;
    }

    g.height[p] = h;
    g.sink[p] = sink_res;
    if (SHARED_RES) {
#pragma unroll
        for (int d = 0; d < NDIR; d++) {
            const int nx = lx + dir_dx(d), ny = ly + dir_dy(d);
            if (nx >= 0 && ny >= 0 && nx < GCUT_TILE_W && ny < GCUT_TILE_H)
                g.res[d][p] = sh_res[SHARED_RES ? d : 0][tid];
        }
    }
    if (e != e_start)
        atomicAdd(&g.excess[p], e - e_start);
    if (LIST && tid == 0)
        sm.nlist = 0; /* the last sweep's list is not run */
    return __syncthreads_or(active);
}

/* One launch over the tiles of list[in], shared out among the resident
 * blocks (a grid of all tiles spent tens of microseconds per launch on
 * blocks with nothing to do): each tile runs, then the tiles with work left
 * and those that received flow go to flag[1 - in] and list[1 - in]. A
 * launch leaves flag[in] and list[in] empty for the next launch's output
 * (the flags of the tiles it takes, set only for listed tiles; the count,
 * by the last block to finish, when every block has read it), so that no
 * memset runs between two launches. */
/* MINB: resident blocks a multiprocessor asks for: 3 (40 registers) or 4
 * (32 registers, a few bytes spilled; the default step's `wide` build, the
 * default since round 3 of 2026-11-22, bench/results), so that a launch of
 * up to 4 tiles a multiprocessor (at 1 MP most launches) is one round of
 * tile runs, not two. */
template <int NDIR, bool SHARED_RES, bool LIST, bool BF, bool AR, int MINB = 3>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, MINB) void tiled_kernel(gcut__dgrid g,
                                                                           int in, int sweeps)
{
    __shared__ tile_smem<NDIR, SHARED_RES, LIST> sm;
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
    if (tid == 0)
        sm.nlist = 0;
    __syncthreads();
    const long long count = (long long)g.counters[GCUT_CNT_LIST0 + in];
    if (blockIdx.x == 0 && tid == 0)
        atomicAdd(&g.counters[GCUT_CNT_TAKEN], (unsigned long long)count); /* tile runs */
    for (long long k = blockIdx.x; k < count; k += gridDim.x) {
        const int tile = g.list[in][k];
        if (tid == 0) {
            sm.notify = 0;
            g.flag[in][tile] = 0; /* no one marks flag[in] in this launch */
            g.dirty[tile] = 1;    /* its residuals change (the relabel's DIRTY parts) */
        }
        /* push_tile's first barrier orders this before any atomicOr. */
        const int active = push_tile<NDIR, SHARED_RES, LIST, BF, AR>(g, tile, sweeps, sm);
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
 * more when blocks take at the same time). The
 * tile's queued flag stays set while it is in work, so that no two blocks
 * hold one tile (their shared-memory residuals would overwrite each
 * other's). */
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
 * active tiles off the queue that the active count filled, run up to
 * `sweeps` sweeps on each, and queue the tiles that received flow and,
 * when pixels stay active, the tile itself. Flow crosses a tile border as
 * soon as a block is free, with no launch in between; halo heights are
 * read when a tile is taken, so they are fresher than a launch's. A tile is
 * unqueued only when its run is over, and then its pixels are checked once
 * more: flow that a neighbour pushed in meanwhile either shows in that
 * check or finds the flag clear and queues the tile. Ends when the queue
 * drains or after `budget` tile runs; what is left waits for the next
 * global relabel. As the tail's push phase (src/gpu/grid_gpu.cu, round 4)
 * its budget and `sweeps` were measured again in round 6 (bench/results):
 * 4 times the budget (a cycle fewer, 3 to 5% slower: the runs
 * past the budget presumably move excess that can no longer reach the sink),
 * half of it (1 to 9% slower), runs of 32 sweeps at half the budget (0 to
 * 5% slower) and runs of 8 sweeps at twice the budget (2 to 13% slower):
 * all dropped; so was (round 11) putting a neighbour tile after the sweep
 * that sends it flow instead of when the run ends (within the spread). */
template <int NDIR, bool SHARED_RES, bool LIST, bool BF, bool AR>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, 3) void tiled_worklist_kernel(
    gcut__dgrid g, int sweeps, long long budget)
{
    __shared__ tile_smem<NDIR, SHARED_RES, LIST> sm;
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    if (tid == 0)
        sm.nlist = 0; /* the first take's barrier publishes it */
    for (;;) {
        if (tid == 0) {
            sm.tile = take_push_tile(g, budget);
            sm.notify = 0;
        }
        __syncthreads();
        const int tile = sm.tile;
        if (tile < 0)
            return;
        if (tid == 0)
            g.dirty[tile] = 1; /* its residuals change (the relabel's DIRTY parts) */
        push_tile<NDIR, SHARED_RES, LIST, BF, AR>(g, tile, sweeps, sm);
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

/* The push kernels' variants by `shared_res` (GCUT_PUSH_*). */
#define PUSH_VARIANTS(K, NDIR)                                                                    \
    {                                                                                             \
        (void *)K<NDIR, false, false, false, false>, (void *)K<NDIR, true, false, false, false>,  \
            (void *)K<NDIR, true, true, false, false>, (void *)K<NDIR, true, false, true, false>, \
            (void *)K<NDIR, true, true, true, false>, (void *)K<NDIR, true, false, true, true>    \
    }

static int push_variant(int shared_res)
{
    if (shared_res == GCUT_PUSH_SHARED)
        shared_res = GCUT_PUSH_SHARED_DEFAULT;
    switch (shared_res) {
    case GCUT_PUSH_GLOBAL: return 0;
    case GCUT_PUSH_SHARED_PIXEL: return 1;
    case GCUT_PUSH_SHARED_LIST: return 2;
    case GCUT_PUSH_SHARED_PIXEL_BF: return 3;
    case GCUT_PUSH_SHARED_LIST_BF: return 4;
    default: return 5; /* GCUT_PUSH_SHARED_PIXEL_BF_AR */
    }
}

/* `wide`: the default step (AR) with 4 blocks a multiprocessor. */
static void *tiled_kernel_for(int ndirs, int shared_res, int wide)
{
    static void *const k4[] = PUSH_VARIANTS(tiled_kernel, 4);
    static void *const k8[] = PUSH_VARIANTS(tiled_kernel, 8);
    const int v = push_variant(shared_res);
    if (wide && v == push_variant(GCUT_PUSH_SHARED_PIXEL_BF_AR))
        return ndirs == 8 ? (void *)tiled_kernel<8, true, false, true, true, 4>
                          : (void *)tiled_kernel<4, true, false, true, true, 4>;
    return (ndirs == 8 ? k8 : k4)[v];
}

static void *worklist_kernel_for(int ndirs, int shared_res)
{
    static void *const k4[] = PUSH_VARIANTS(tiled_worklist_kernel, 4);
    static void *const k8[] = PUSH_VARIANTS(tiled_worklist_kernel, 8);
    return (ndirs == 8 ? k8 : k4)[push_variant(shared_res)];
}

extern "C" cudaError_t gcut__grid_tiled_launch(const gcut__dgrid *g, int in, int sweeps,
                                               int shared_res, int wide, int overlap,
                                               cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    void *kernel = tiled_kernel_for(g->ndirs, shared_res, wide);
    int blocks = 0;
    cudaError_t err = gcut__resident_blocks(kernel, g->tiles_x * g->tiles_y, &blocks);
    if (err != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg, &in, &sweeps};
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1] = {};
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = block;
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

extern "C" cudaError_t gcut__grid_tiled_blocks(const gcut__dgrid *g, int shared_res, int wide,
                                               int *blocks)
{
    return gcut__resident_blocks(tiled_kernel_for(g->ndirs, shared_res, wide),
                                 g->tiles_x * g->tiles_y, blocks);
}

extern "C" cudaError_t gcut__grid_tiled_worklist_launch(const gcut__dgrid *g, int sweeps,
                                                        int shared_res, long long budget,
                                                        cudaStream_t stream)
{
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    void *kernel = worklist_kernel_for(g->ndirs, shared_res);
    int blocks = 0;
    cudaError_t err = gcut__resident_blocks(kernel, g->tiles_x * g->tiles_y, &blocks);
    if (err != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg, &sweeps, &budget};
    return cudaLaunchCooperativeKernel(kernel, dim3((unsigned)blocks), block, args, 0, stream);
}
