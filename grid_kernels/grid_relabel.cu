/* The global relabel as one persistent launch: heights = BFS distance to
 * the sink over residual arcs, by tile-local relaxation driven by a
 * worklist of tiles instead of rounds of launches.
 *
 * Why: the heights of large segments are hundreds of pixels deep, so a
 * relabel by rounds (one tile hop per launch) needs tens of launches and
 * host reads. Here every block of one cooperative launch (all resident, so
 * spinning is safe) takes a tile off a FIFO queue, relaxes its heights to a
 * fixed point in shared memory against the halo as it is now, and queues
 * the neighbour tiles whose halo it changed; a tile already queued is not
 * queued twice. Information crosses a tile border as soon as a block is
 * free, with no barrier over the grid. The prep launch resets the heights
 * (1 next to the sink, else infinite) and writes each node's residual
 * directions as a byte, so that a relaxation step reads a byte per pixel
 * instead of ndirs residuals; only in the tiles a push changed since the
 * last relabel (their dirty flags), since no kernel changed the others'.
 *
 * Why it is exact: heights start at 1 next to the sink and infinite
 * elsewhere and only ever fall (atomicMin), each value being the length of
 * some residual path, so they stay upper bounds of the distance. A fall at
 * a pixel is followed by a relaxation of every pixel with an arc into it
 * that reads the new value: inside the tile by the same block's loop,
 * across the border by a processing of the neighbour tile that starts after
 * the fall is visible (the writer fences before it queues; the taker, warp
 * 1, clears the tile's queued flag, then fences, and the block reads after
 * the barrier that follows the take). So when the queue is empty and no
 * block is working (`pending` == 0), h(p) <= h(q) + 1 on every residual
 * arc: the heights are the exact distances, and infinite exactly where no
 * path reaches the sink.
 *
 * The queue: slot j % cap holds (j + 1) << 32 | tile, 0 when empty. A
 * producer claims j from the tail and waits for its slot to be empty; a
 * taker claims i from the head and waits for the value tagged i + 1, or for
 * `pending` to reach 0 (then nothing more will come). A relaxation keeps
 * two shared copies of the heights, a step reading one and writing the
 * other, so one barrier a step; warp 1 takes the next tile while warp 0
 * queues the last one's neighbours, so the two chains of round trips
 * overlap (a block mostly waits for work: a relabel is a chain of visits
 * across the tiles).
 *
 * Keep (the host asks for it after a push phase that changed few tiles,
 * src/gpu/grid_gpu_run.cu): start from the last relabel's exact distances
 * d (same run) instead of from scratch. Heights from scratch in the dirty
 * tiles, d kept in the clean ones; then two persistent passes. Pass 1
 * (CHECK) resets to infinite, tile by tile to a fixed point over the grid,
 * every pixel of finite height h > 1 that has no residual arc to a pixel of
 * height h - 1; it starts on the clean tiles next to a dirty one and
 * queues the neighbours of a tile whose border reset. Pass 2 is the
 * relabel above, its queue the dirty tiles and those where pass 1 reset a
 * pixel (`touched`); the other tiles are off the queue until a fall next
 * to them queues them.
 * Why it is exact. Only push kernels ran since the last relabel, and they
 * change a residual (or the excess, or a height) only in tiles that they
 * flag dirty: a push p -> q lowers res(p, q), raises res(q, p), and the
 * tiles of p and q are both flagged. So a clean tile's pixels keep their
 * arcs, their bytes and their heights d. (a) After pass 1 every finite
 * height is the length of a residual path to the sink: h = 1 only next to
 * the sink (a sink residual never rises), and a finite h > 1 kept by pass
 * 1 has a residual arc to a pixel of height h - 1, down to 1. At the start
 * only a pixel of a clean tile next to a dirty one can lack that arc, and
 * those tiles are pass 1's queue; pass 1 only raises values, and a reset
 * next to a pixel queues its tile again. So all heights are upper bounds
 * of the distances. (b) Every pixel of a tile left off pass 2's queue
 * holds d(p), and each neighbour q holds at least d(q), so h(p) = d(p) <=
 * d(q) + 1 <= h(q) + 1 on every residual arc; the pixels that may break it
 * are in queued tiles. Pass 2 relaxes as from scratch, so it ends, as
 * above, on the exact distances.
 *
 * Sweep (the host asks for it on large 4-connected grids): a relabel from
 * scratch starts with a pass in which the blocks share out every tile
 * once, in raster order, off the queue (no take, no fence, no queueing);
 * after a barrier over the grid each block checks the borders of a run of
 * tiles and queues those where a pixel p has a residual arc to q with
 * h(p) > h(q) + 1; then the worklist as above.
 * Why it is exact. The pass relaxes each tile from its scratch heights
 * against a halo of upper bounds, so its results are upper bounds too;
 * only that tile's visit writes its pixels. After the barrier a tile is at
 * its fixed point inside and its halo only fell since, so h(p) <= h(q) + 1
 * can fail only at its border: the check finds every tile where it fails.
 * From there the worklist runs as pass 2 does (blocks that start it while
 * others still check are kept from ending by the checking blocks' count in
 * `pending`), so it ends on the exact distances. */
#include "grid_device.cuh"

/* The counters a relabel uses (one thread): the queue's head at 0, its
 * tail and pending count as given, the rest zero (the active count that
 * follows and the push launches after it start from the zero list
 * counters). */
static __device__ __forceinline__ void reset_counters(const gcut__dgrid &g,
                                                      unsigned long long tail,
                                                      unsigned long long pending)
{
    g.counters[GCUT_CNT_HEAD] = 0;
    g.counters[GCUT_CNT_TAIL] = tail;
    g.counters[GCUT_CNT_PENDING] = pending;
    g.counters[GCUT_CNT_SWEEP] = 0;
    g.counters[GCUT_CNT_BARRIER] = 0;
    g.counters[GCUT_CNT_ACTIVE] = 0;
    g.counters[GCUT_CNT_LIST0] = 0;
    g.counters[GCUT_CNT_LIST1] = 0;
    g.counters[GCUT_CNT_RESTART] = 0;
    g.counters[GCUT_CNT_HEIGHT_MAX] = 0;
    g.counters[GCUT_CNT_CUTOFF_PX] = 0;
    g.counters[GCUT_CNT_CUTOFF_EXCESS] = 0;
    g.counters[GCUT_CNT_ACTIVE_EXCESS] = 0;
}

/* The relabel's queue and counters, reset by the prep's blocks: every tile
 * queued; with sweep (`sweep_blocks` > 0, the relabel's blocks) none, and
 * those blocks counted pending until each has queued its share of the
 * tiles after the first pass. */
static __device__ __forceinline__ void reset_queue(const gcut__dgrid &g, int sweep_blocks)
{
    const long long tiles = sweep_blocks ? 0 : (long long)g.tiles_x * g.tiles_y;
    for (long long t = blockIdx.x * 256ll + threadIdx.x; t < g.queue_cap;
         t += (long long)gridDim.x * 256) {
        g.queue[t] = t < tiles ? gcut__slot_value((unsigned long long)t, t) : 0;
        if (t < (long long)g.tiles_x * g.tiles_y)
            g.queued[t] = t < tiles;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        reset_counters(g, (unsigned long long)tiles, (unsigned long long)(tiles + sweep_blocks));
}

/* Node i's residual directions as bits: bit d set when res[d][i] > 0. */
template <int NDIR>
static __device__ __forceinline__ uint8_t direction_bits(const gcut__dgrid &g, long long i)
{
    unsigned m = 0;
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        m |= (g.res[d][i] > 0 ? 1u : 0u) << d;
    return (uint8_t)m;
}

/* The prep: the heights reset everywhere, the direction bytes only in the
 * tiles whose dirty flag is set (every tile with `all`): the rest hold
 * residuals that no kernel changed since their bytes were written (reading
 * every residual, 41 bytes a node, is at the DRAM roof; this reads 8 plus
 * the changed tiles). A block walks whole raster rows, so a node's tile
 * needs no division; the ring of nodes outside the image goes with the
 * nearest tile (its bytes are zero and written with `all`).
 * `keep`: the clean tiles keep the last relabel's heights, the dirty ones
 * get them from scratch; pass 1's tiles are marked queued and the queue's
 * counters reset (relabel_enqueue_kernel lists the tiles). `sweep_blocks`
 * (never with `keep`): the queue starts empty. */
template <int NDIR>
static __global__ __launch_bounds__(256) void relabel_prep_kernel(gcut__dgrid g, int all,
                                                                        int keep,
                                                                        int sweep_blocks)
{
    const int last_x = g.tiles_x * GCUT_TILE_W - 1, last_y = g.tiles_y * GCUT_TILE_H - 1;
    for (int y = blockIdx.x; y < g.rows; y += gridDim.x) {
        const int py = min(max(y - 1, 0), last_y);
        const int32_t *dirty_row = g.dirty + (py / GCUT_TILE_H) * g.tiles_x;
        const long long row = (long long)y * g.pitch;
        for (int x = threadIdx.x; x < g.pitch; x += 256) {
            const long long i = row + x;
            const int changed = all || dirty_row[min(max(x - 1, 0), last_x) / GCUT_TILE_W];
            if (changed)
                g.mask[i] = direction_bits<NDIR>(g, i);
            if (changed || !keep)
                g.height[i] = g.sink[i] > 0 ? 1 : GCUT_HEIGHT_INF;
        }
    }
    if (!keep) {
        reset_queue(g, sweep_blocks);
        return;
    }
    /* Pass 1's tiles: the clean ones next to a dirty tile, one block a row
     * of tiles. */
    for (int ty = blockIdx.x; ty < g.tiles_y; ty += gridDim.x)
        for (int tx = threadIdx.x; tx < g.tiles_x; tx += 256) {
            const int t = ty * g.tiles_x + tx;
            int want = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int nx = tx + dx, ny = ty + dy;
                    want |= nx >= 0 && ny >= 0 && nx < g.tiles_x && ny < g.tiles_y &&
                            g.dirty[ny * g.tiles_x + nx];
                }
            g.queued[t] = want && !g.dirty[t];
            g.touched[t] = 0;
        }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        reset_counters(g, 0, 0); /* relabel_enqueue_kernel fills the queue */
}

/* Keep: a pass's queue, filled before the pass on a queue whose slots are
 * empty from `base` on (every slot a relabel fills is taken and emptied;
 * those that failed takes claimed were never filled). Pass 1 (`pass` 0):
 * the tiles the prep marked queued, from slot 0 (the prep reset the
 * counters). Pass 2: the dirty tiles and those pass 1 touched, from the
 * head that pass 1 left (its blocks' last claims went past its tail);
 * their queued flags, all clear after pass 1, are set. One thread a tile,
 * one atomic a warp. */
static __global__ __launch_bounds__(256) void relabel_enqueue_kernel(gcut__dgrid g, int pass)
{
    const int tiles = g.tiles_x * g.tiles_y;
    const int t = blockIdx.x * 256 + threadIdx.x;
    int want = 0;
    if (t < tiles)
        want = pass ? g.dirty[t] || g.touched[t] : g.queued[t];
    const unsigned long long base = pass ? g.counters[GCUT_CNT_HEAD] : 0; /* stable: no taker */
    const unsigned ballot = __ballot_sync(0xffffffffu, want);
    if (!ballot)
        return;
    const int lane = threadIdx.x & 31, n = __popc(ballot);
    unsigned long long first = 0;
    if (lane == 0) {
        first = base + atomicAdd(&g.counters[pass ? GCUT_CNT_RESTART : GCUT_CNT_TAIL],
                                 (unsigned long long)n);
        atomicAdd(&g.counters[GCUT_CNT_PENDING], (unsigned long long)n);
        if (pass)
            atomicMax(&g.counters[GCUT_CNT_TAIL], first + n);
    }
    first = __shfl_sync(0xffffffffu, first, 0);
    if (want) {
        const unsigned long long j = first + __popc(ballot & ((1u << lane) - 1u));
        if (pass)
            g.queued[t] = 1;
        g.queue[j % (unsigned long long)g.queue_cap] = gcut__slot_value(j, t);
    }
}

/* Claim the next head slot (thread 0). */
static __device__ __forceinline__ unsigned long long claim_slot(const gcut__dgrid &g)
{
    return atomicAdd(&g.counters[GCUT_CNT_HEAD], 1ull);
}

/* Wait for claimed slot i (thread 0): its tile, or -1 when all is done. */
static __device__ int take_slot(const gcut__dgrid &g, unsigned long long i)
{
    unsigned long long *slot = &g.queue[i % (unsigned long long)g.queue_cap];
    const unsigned long long tag = (i + 1) & 0xffffffffull;
    for (;;) {
        const unsigned long long v = *(volatile unsigned long long *)slot;
        if ((v >> 32) == tag) {
            const int tile = (int)(v & 0xffffffffull);
            atomicExch(slot, 0ull);
            atomicExch(&g.queued[tile], 0); /* later changes queue it again */
            __threadfence();                /* ...and are read after this */
            return tile;
        }
        if (*(volatile unsigned long long *)&g.counters[GCUT_CNT_PENDING] == 0)
            return -1;
        __nanosleep(64);
    }
}

/* One relaxation step of a pixel: h falls to 1 + the lowest height that
 * `src` holds among the neighbours its residual arcs reach. Returns
 * whether it fell. */
template <int NDIR>
static __device__ __forceinline__ int relax_step(const int32_t *src, int me, unsigned mask, int &h)
{
    int best = h;
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        if (mask & (1u << d)) {
            const int hq = src[me + dir_dx(d) + dir_dy(d) * HALO_W] + 1;
            best = hq < best ? hq : best;
        }
    const int changed = best < h;
    h = best;
    return changed;
}

/* Keep's first pass, one step of a pixel: a finite height h > 1 with no
 * residual arc to a neighbour that `src` holds at h - 1 has lost what it
 * rested on, and goes to infinity. Returns whether it went. */
template <int NDIR>
static __device__ __forceinline__ int check_step(const int32_t *src, int me, unsigned mask, int &h)
{
    if (h <= 1 || h >= GCUT_HEIGHT_INF)
        return 0;
    int held = 0;
#pragma unroll
    for (int d = 0; d < NDIR; d++)
        held |= (mask & (1u << d)) && src[me + dir_dx(d) + dir_dy(d) * HALO_W] == h - 1;
    if (held)
        return 0;
    h = GCUT_HEIGHT_INF;
    return 1;
}

/* One step of the pass: the relaxation, or keep's check (CHECK). */
template <int NDIR, bool CHECK>
static __device__ __forceinline__ int pass_step(const int32_t *src, int me, unsigned mask, int &h)
{
    return CHECK ? check_step<NDIR>(src, me, mask, h) : relax_step<NDIR>(src, me, mask, h);
}

/* The pass's steps to a fixed point on two shared copies of the heights:
 * two steps a turn, each reading one copy and
 * writing the other (every pixel, changed or not), so one barrier a step.
 * Inlined, so every address stays a constant offset into the block's
 * shared arrays. */
template <int NDIR, bool CHECK = false>
static __device__ __forceinline__ void relax_two_copies(int32_t (*sh_h)[HALO_N], int me,
                                                        unsigned mask, int &h)
{
    for (;;) {
        int changed = pass_step<NDIR, CHECK>(sh_h[0], me, mask, h);
        sh_h[1][me] = h;
        if (!__syncthreads_or(changed))
            break;
        changed = pass_step<NDIR, CHECK>(sh_h[1], me, mask, h);
        sh_h[0][me] = h;
        if (!__syncthreads_or(changed))
            break;
    }
}

/* Sweep's first pass: the blocks share out every tile once, in raster
 * order, each relaxing it from scratch to a fixed point against its halo
 * as read, and storing the falls: no take, no fence, no queueing. Only this
 * visit writes the tile's pixels in the pass, so plain stores suffice. A
 * halo
 * value read before or after a neighbour's visit is either way the length
 * of a residual path (heights only fall), so every height stays an upper
 * bound of the distance. */
template <int NDIR>
static __device__ void sweep_pass(const gcut__dgrid &g, int32_t (*sh_h)[HALO_N], int *sh_next)
{
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    const int me = (ly + 1) * HALO_W + lx + 1;
    const int tiles = g.tiles_x * g.tiles_y;
    if (tid == 0)
        *sh_next = (int)atomicAdd(&g.counters[GCUT_CNT_SWEEP], 1ull);
    __syncthreads();
    for (;;) {
        const int tile = *sh_next;
        if (tile >= tiles)
            return;
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        const long long origin =
            (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
        const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
        const unsigned mask = g.mask[p];
        for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS) {
            const int v = load_volatile(&g.height[origin + (long long)(i / HALO_W) * g.pitch +
                                                  i % HALO_W]);
            sh_h[0][i] = v;
            sh_h[1][i] = v;
        }
        __syncthreads(); /* every thread has read *sh_next */
        if (tid == 0) /* the next tile's claim overlaps this one's steps */
            *sh_next = (int)atomicAdd(&g.counters[GCUT_CNT_SWEEP], 1ull);
        int h = sh_h[0][me];
        const int h_start = h;
        relax_two_copies<NDIR>(sh_h, me, mask, h); /* ends on a barrier: *sh_next is set */
        if (h < h_start)
            store_volatile(&g.height[p], h);
    }
}

/* Every block of the launch (cooperative: all resident) waits here for
 * the others; what each wrote before is visible to all after. */
static __device__ void grid_barrier(const gcut__dgrid &g)
{
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        __threadfence();
        atomicAdd(&g.counters[GCUT_CNT_BARRIER], 1ull);
        while (*(volatile unsigned long long *)&g.counters[GCUT_CNT_BARRIER] < gridDim.x)
            __nanosleep(32);
        __threadfence();
    }
    __syncthreads();
}

/* Pixel i of a tile's border (2 * TILE_W + 2 * (TILE_H - 2) of them). */
#define BORDER_N (2 * GCUT_TILE_W + 2 * (GCUT_TILE_H - 2))
static __device__ __forceinline__ void border_pixel(int i, int &x, int &y)
{
    if (i < 2 * GCUT_TILE_W) {
        x = i % GCUT_TILE_W;
        y = i < GCUT_TILE_W ? 0 : GCUT_TILE_H - 1;
    } else {
        i -= 2 * GCUT_TILE_W;
        x = i < GCUT_TILE_H - 2 ? 0 : GCUT_TILE_W - 1;
        y = 1 + i % (GCUT_TILE_H - 2);
    }
}

/* Sweep, after the first pass and a grid barrier: the tiles of this
 * block's share (consecutive tiles, a warp a tile) where a border pixel p
 * has a residual arc to a pixel q with h(p) > h(q) + 1 go on the queue.
 * Inside a tile the pass's fixed point still holds (no one else wrote its
 * pixels) and its halo only fell since it was read, so the border is the
 * only place where it can be broken; a tile left off the queue is at the
 * relaxation's fixed point. Blocks done with their share already work
 * the queue (falls queue their neighbours as usual); this block's own
 * count in `pending` (the prep's) keeps them from ending before its share
 * is queued, and goes when it is. */
template <int NDIR>
static __device__ void queue_broken_tiles(const gcut__dgrid &g, int *sh_count,
                                          unsigned long long *sh_slot)
{
    const int lane = threadIdx.x, warp = threadIdx.y, tid = warp * GCUT_TILE_W + lane;
    const long long tiles = (long long)g.tiles_x * g.tiles_y;
    const int first = (int)(tiles * blockIdx.x / gridDim.x);
    const int last = (int)(tiles * (blockIdx.x + 1) / gridDim.x);
    for (int base = first; base < last; base += GCUT_TILE_H) {
        const int tile = base + warp;
        int broken = 0;
        if (tile < last) {
            const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
            const long long origin =
                (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
#pragma unroll 1
            for (int i = lane; i < BORDER_N; i += 32) {
                int x = 0, y = 0;
                border_pixel(i, x, y);
                const long long p = origin + (long long)(y + 1) * g.pitch + x + 1;
                const unsigned mask = g.mask[p];
                const int32_t *hp = g.height + p;
                const int h = __ldcg(hp);
#pragma unroll
                for (int d = 0; d < NDIR; d++)
                    broken |= (mask & (1u << d)) &&
                              __ldcg(hp + dir_dx(d) + dir_dy(d) * g.pitch) + 1 < h;
            }
        }
        broken = __any_sync(0xffffffffu, broken);
        if (tid == 0)
            *sh_count = 0;
        __syncthreads();
        int rank = -1; /* the queued flag as gcut__put_tile: a fall may have queued it */
        if (lane == 0 && broken && atomicExch(&g.queued[tile], 1) == 0)
            rank = atomicAdd(sh_count, 1);
        __syncthreads();
        if (tid == 0 && *sh_count) {
            atomicAdd(&g.counters[GCUT_CNT_PENDING], (unsigned long long)*sh_count);
            *sh_slot = atomicAdd(&g.counters[GCUT_CNT_TAIL], (unsigned long long)*sh_count);
        }
        __syncthreads();
        if (rank >= 0)
            gcut__fill_slot(g, *sh_slot + (unsigned long long)rank, tile);
        __syncthreads(); /* *sh_count and *sh_slot are reused */
    }
    if (tid == 0) {
        __threadfence(); /* this share's pending counts are in before this block's goes */
        atomicAdd(&g.counters[GCUT_CNT_PENDING], ~0ull);
    }
}

/* CHECK: keep's first pass, with the same queue protocol and fixed point,
 * the step check_step() (heights only rise, to infinity), and the touched
 * flag set on a tile where a pixel rose. SWEEP: the first pass and the
 * queue of broken tiles (sweep_pass, queue_broken_tiles) before the
 * worklist; first in the kernel, so that its registers are free before the
 * worklist's are live. */
template <int NDIR, bool CHECK = false, bool SWEEP = false>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, 4) void relabel_kernel(gcut__dgrid g)
{
    /* Thread TAKER (warp 1) takes the next tile while warp 0 queues the
     * neighbours of the last one. */
    constexpr int TAKER = 32;
    __shared__ int32_t sh_h[2][HALO_N]; /* a step reads one, writes the other */
    __shared__ int sh_tile;
    __shared__ unsigned sh_notify; /* bit 3 * (dy + 1) + dx + 1: neighbour tile to queue */
    if constexpr (SWEEP) {
        __shared__ int sh_count;
        __shared__ unsigned long long sh_slot;
        sweep_pass<NDIR>(g, sh_h, &sh_count);
        grid_barrier(g);
        queue_broken_tiles<NDIR>(g, &sh_count, &sh_slot);
    }
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * GCUT_TILE_W + lx;
    const int me = (ly + 1) * HALO_W + lx + 1;
    /* The neighbour tiles whose halo holds this pixel. */
    unsigned my_bits = 0;
    {
        const int x0 = lx == 0 ? -1 : 0, x1 = lx == GCUT_TILE_W - 1 ? 1 : 0;
        const int y0 = ly == 0 ? -1 : 0, y1 = ly == GCUT_TILE_H - 1 ? 1 : 0;
        for (int dy = y0; dy <= y1; dy++)
            for (int dx = x0; dx <= x1; dx++)
                if (dx || dy)
                    my_bits |= 1u << (3 * (dy + 1) + dx + 1);
    }
    if (tid == TAKER)
        sh_tile = take_slot(g, claim_slot(g));

    for (;;) {
        __syncthreads(); /* the take at the end of the last tile (or before the loop) */
        const int tile = sh_tile;
        if (tile < 0)
            return;
        if (tid == 0)
            sh_notify = 0; /* read by warp 0 before the barrier above; set after the next one */
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        const long long origin =
            (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
        const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
        const unsigned mask = g.mask[p];
        for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS) {
            const int v = load_volatile(&g.height[origin + (long long)(i / HALO_W) * g.pitch +
                                                  i % HALO_W]);
            sh_h[0][i] = v;
            sh_h[1][i] = v; /* the halo, in both */
        }
        __syncthreads();

        int h = sh_h[0][me];
        const int h_start = h;
        relax_two_copies<NDIR, CHECK>(sh_h, me, mask, h);
        if (CHECK ? h != h_start : h < h_start) {
            if (CHECK) {
                atomicMax(&g.height[p], h);
                g.touched[tile] = 1; /* pass 2 starts here */
            } else {
                atomicMin(&g.height[p], h);
            }
            if (my_bits) {
                __threadfence(); /* the fall is visible before a neighbour is queued */
                atomicOr(&sh_notify, my_bits);
            }
        }
        __syncthreads();
        if (tid < 32) {
            const unsigned notify = sh_notify;
            const int dx = tid % 3 - 1, dy = tid / 3 - 1;
            const int nx = tx + dx, ny = ty + dy;
            if (tid < 9 && (notify & (1u << tid)) && nx >= 0 && ny >= 0 && nx < g.tiles_x &&
                ny < g.tiles_y)
                gcut__put_tile(g, ny * g.tiles_x + nx);
            __threadfence(); /* the queueing is counted before this tile is done */
            __syncwarp();
            if (tid == 0)
                atomicAdd(&g.counters[GCUT_CNT_PENDING], ~0ull); /* minus one */
        } else if (tid == TAKER) {
            /* The next tile, while warp 0 queues. No deadlock: the wait
             * ends when a slot fills or nothing is pending, and this
             * tile's count falls in warp 0, which does not wait here. */
            sh_tile = take_slot(g, claim_slot(g));
        }
        /* sh_tile and sh_h are reused after the barrier at the top. */
    }
}

template <int NDIR>
static void *relabel_kernel_for(int keep_check, int sweep)
{
    return keep_check ? (void *)relabel_kernel<NDIR, true>
           : sweep    ? (void *)relabel_kernel<NDIR, false, true>
                      : (void *)relabel_kernel<NDIR>;
}

static void *kernel_for(int ndirs, int keep_check, int sweep)
{
    return ndirs == 8 ? relabel_kernel_for<8>(keep_check, sweep)
                      : relabel_kernel_for<4>(keep_check, sweep);
}

/* Blocks of `threads` threads of `kernel` resident at once, at most `tiles`. */
static cudaError_t resident(const void *kernel, int threads, int tiles, int *blocks)
{
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
    if (err != cudaSuccess)
        return err;
    if (per_sm < 1)
        return cudaErrorCooperativeLaunchTooLarge;
    *blocks = per_sm * sms < tiles ? per_sm * sms : tiles;
    return cudaSuccess;
}

extern "C" cudaError_t gcut__grid_relabel_launch(const gcut__dgrid *g, int all_dirty, int keep,
                                                 int sweep, int *blocks, cudaStream_t stream)
{
    const int tiles = g->tiles_x * g->tiles_y;
    keep = keep && !all_dirty;
    sweep = sweep && !keep;
    void *kernel = kernel_for(g->ndirs, 0, sweep);
    cudaError_t err = resident(kernel, GCUT_TILE_PIXELS, tiles, blocks);
    if (err != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg};
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);

    const int rows = g->rows < 4096 ? g->rows : 4096;
    const int sweep_blocks = sweep ? *blocks : 0;
    if (g->ndirs == 8)
        relabel_prep_kernel<8><<<rows, 256, 0, stream>>>(*g, all_dirty, keep, sweep_blocks);
    else
        relabel_prep_kernel<4><<<rows, 256, 0, stream>>>(*g, all_dirty, keep, sweep_blocks);
    if ((err = cudaPeekAtLastError()) != cudaSuccess)
        return err;
    if (keep) {
        /* Pass 1 on its queue, then pass 2's queue; each pass's blocks end
         * when its queue is done. */
        void *check = kernel_for(g->ndirs, 1, 0);
        int check_blocks = 0;
        if ((err = resident(check, GCUT_TILE_PIXELS, tiles, &check_blocks)) != cudaSuccess)
            return err;
        const unsigned tile_blocks = (unsigned)(tiles + 255) / 256;
        relabel_enqueue_kernel<<<tile_blocks, 256, 0, stream>>>(*g, 0);
        if ((err = cudaPeekAtLastError()) != cudaSuccess)
            return err;
        err = cudaLaunchCooperativeKernel(check, dim3((unsigned)check_blocks), block, args, 0,
                                          stream);
        if (err != cudaSuccess)
            return err;
        relabel_enqueue_kernel<<<tile_blocks, 256, 0, stream>>>(*g, 1);
        if ((err = cudaPeekAtLastError()) != cudaSuccess)
            return err;
    }
    return cudaLaunchCooperativeKernel(kernel, dim3((unsigned)*blocks), block, args, 0, stream);
}

extern "C" cudaError_t gcut__resident_blocks(const void *kernel, int tiles, int *blocks)
{
    return resident(kernel, GCUT_TILE_PIXELS, tiles, blocks);
}
