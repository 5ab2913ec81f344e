/* The global relabel as one persistent launch: heights = BFS distance to
 * the sink over residual arcs, by tile-local relaxation driven by a
 * worklist of tiles instead of rounds of launches.
 *
 * Why: the heights of large segments are hundreds of pixels deep, so a
 * relabel by rounds (one tile hop per launch, grid_common.cu) needs tens of
 * launches and host reads. Here every block of one cooperative launch (all
 * resident, so spinning is safe) takes a tile off a FIFO queue, relaxes its
 * heights to a fixed point in shared memory against the halo as it is now,
 * and queues the neighbour tiles whose halo it changed; a tile already
 * queued is not queued twice. Information crosses a tile border as soon as
 * a block is free, with no barrier over the grid.
 *
 * Why it is exact: heights start at 1 next to the sink and infinite
 * elsewhere and only ever fall (atomicMin), each value being the length of
 * some residual path, so they stay upper bounds of the distance. A fall at
 * a pixel is followed by a relaxation of every pixel with an arc into it
 * that reads the new value: inside the tile by the same block's loop, across
 * the border by a processing of the neighbour tile that starts after the
 * fall is visible (the writer fences before it queues; the taker clears the
 * tile's queued flag, then fences, then reads). So when the queue is empty
 * and no block is working (`pending` == 0), h(p) <= h(q) + 1 on every
 * residual arc: the heights are the exact distances, and infinite exactly
 * where no path reaches the sink.
 *
 * The queue starts with every tile. Slot j % cap holds (j + 1) << 32 |
 * tile, 0 when empty. A producer claims j from the tail and waits for its
 * slot to be empty; a taker claims i from the head and waits for the value
 * tagged i + 1, or for `pending` to reach 0 (then nothing more will come).
 *
 * The variant (GCUT_RELABEL_*, grid_kernels.h), each part measured
 * against the kernel without it (bench/results). A relabel visits each
 * tile 2 to 3 times; a visit is a chain of round trips to L2 (take a slot,
 * clear it and the queued flag, fence, read the halo; fence, queue the
 * neighbours, count down) around about 12 relaxation steps of two block
 * barriers each. Tried and dropped, each measured slower on the H100
 * (bench/results): closing rows and columns by warp scans, to need fewer
 * steps (25 to 85% slower); 2, 4 or 8 pixels a thread, so that more tiles
 * are in flight (more visits, and slower ones); skipping in a step the
 * rows with no change next to them in the step before (10% slower).
 * AHEAD and LAZY are opt-in: within the run-to-run spread.
 * - AHEAD: thread 0 claims its next head slot as soon as it has a tile, so
 *   the claim's round trip overlaps the relaxation instead of stalling the
 *   block (31% of the profiled relabel's stall samples sat after the take).
 * - LAZY: the prep pass read every residual to write the direction bytes
 *   (41 bytes a node, at the DRAM roof); now the first visit of a tile
 *   reads its residuals (which no kernel changes during a relabel) and
 *   writes the bytes, and later visits read the bytes once mask_ready says
 *   they are there (a visit that finds them missing, because the first one
 *   is still running on another block, reads the residuals too and writes
 *   the same bytes). The prep moves 8 bytes a node. */
#include "grid_device.cuh"

/* Heights reset (1 next to the sink, else infinite); without LAZY, the
 * residual directions of every node as bits, so that the relaxation reads a
 * byte per pixel instead of ndirs int32 residuals; every tile queued.
 * (Queueing only the tiles that hold or see a pixel next to the sink, so
 * that unreachable tiles are never visited, was measured slower: 0.9
 * against 0.55 ms per relabel at 8.3 MP.) */
template <int NDIR, bool LAZY>
static __global__ __launch_bounds__(256) void relabel_prep_kernel(gcut__dgrid g)
{
    const long long n = (long long)g.pitch * g.rows;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += (long long)gridDim.x * 256) {
        if (!LAZY) {
            unsigned m = 0;
#pragma unroll
            for (int d = 0; d < NDIR; d++)
                m |= (g.res[d][i] > 0 ? 1u : 0u) << d;
            g.mask[i] = (uint8_t)m;
        }
        g.height[i] = g.sink[i] > 0 ? 1 : GCUT_HEIGHT_INF;
    }
    const long long tiles = (long long)g.tiles_x * g.tiles_y;
    for (long long t = blockIdx.x * 256ll + threadIdx.x; t < g.queue_cap;
         t += (long long)gridDim.x * 256) {
        g.queue[t] = t < tiles ? ((unsigned long long)(t + 1) << 32) | (unsigned long long)t : 0;
        if (t < tiles) {
            g.queued[t] = 1;
            g.mask_ready[t] = 0;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        g.counters[GCUT_CNT_HEAD] = 0;
        g.counters[GCUT_CNT_TAIL] = (unsigned long long)tiles;
        g.counters[GCUT_CNT_PENDING] = (unsigned long long)tiles;
        /* For the active count that follows, and the push launches after it. */
        g.counters[GCUT_CNT_ACTIVE] = 0;
        g.counters[GCUT_CNT_LIST0] = 0;
        g.counters[GCUT_CNT_LIST1] = 0;
    }
}

/* Claim the next head slot (thread 0). */
static __device__ __forceinline__ unsigned long long claim_slot(const gcut__dgrid &g)
{
    return atomicAdd(&g.counters[GCUT_CNT_HEAD], 1ull);
}

/* Wait for claimed slot i (thread 0): its tile, or -1 when all is done.
 * *fresh = the tile's direction bytes are not known to be written (its
 * first visit, from the initial slots, or that visit still running). */
static __device__ int take_slot(const gcut__dgrid &g, unsigned long long i, int *fresh)
{
    unsigned long long *slot = &g.queue[i % (unsigned long long)g.queue_cap];
    const unsigned long long tag = (i + 1) & 0xffffffffull;
    for (;;) {
        const unsigned long long v = *(volatile unsigned long long *)slot;
        if ((v >> 32) == tag) {
            const int tile = (int)(v & 0xffffffffull);
            atomicExch(slot, 0ull);
            atomicExch(&g.queued[tile], 0); /* later changes queue it again */
            *fresh = i < (unsigned long long)g.tiles_x * g.tiles_y ||
                     !load_volatile(&g.mask_ready[tile]);
            __threadfence(); /* ...and are read after this, as are the bytes */
            return tile;
        }
        if (*(volatile unsigned long long *)&g.counters[GCUT_CNT_PENDING] == 0)
            return -1;
        __nanosleep(64);
    }
}

template <int NDIR, bool AHEAD, bool LAZY>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, 4) void relabel_kernel(gcut__dgrid g)
{
    __shared__ int32_t sh_h[HALO_N];
    __shared__ int sh_tile, sh_fresh;
    __shared__ unsigned sh_notify; /* bit 3 * (dy + 1) + dx + 1: neighbour tile to queue */
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
    unsigned next = 0; /* AHEAD: thread 0's claimed slot (a relabel claims < 2^32) */
    if (AHEAD && tid == 0)
        next = (unsigned)claim_slot(g);

    for (;;) {
        if (tid == 0) {
            int fresh = 0;
            const int tile = take_slot(g, AHEAD ? next : claim_slot(g), &fresh);
            if (AHEAD && tile >= 0)
                next = (unsigned)claim_slot(g); /* its round trip overlaps this tile's work */
            sh_tile = tile;
            sh_fresh = fresh;
            sh_notify = 0;
        }
        __syncthreads();
        const int tile = sh_tile;
        if (tile < 0)
            return;
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        const long long origin =
            (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
        const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
        const int fresh = LAZY && sh_fresh;
        unsigned mask = 0;
        if (fresh) {
#pragma unroll
            for (int d = 0; d < NDIR; d++)
                mask |= (g.res[d][p] > 0 ? 1u : 0u) << d;
            g.mask[p] = (uint8_t)mask;
            __threadfence(); /* the bytes are visible before mask_ready */
        } else {
            mask = LAZY ? __ldcg(&g.mask[p]) : g.mask[p];
        }
        for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS)
            sh_h[i] = load_volatile(&g.height[origin + (long long)(i / HALO_W) * g.pitch +
                                              i % HALO_W]);
        __syncthreads();
        if (fresh && tid == 0)
            store_volatile(&g.mask_ready[tile], 1);

        int h = sh_h[me];
        const int h_start = h;
        for (;;) {
            int best = h;
#pragma unroll
            for (int d = 0; d < NDIR; d++)
                if (mask & (1u << d)) {
                    const int hq = sh_h[me + dir_dx(d) + dir_dy(d) * HALO_W] + 1;
                    best = hq < best ? hq : best;
                }
            const int changed = best < h;
            __syncthreads(); /* every read of this step is done */
            if (changed) {
                h = best;
                sh_h[me] = h;
            }
            if (!__syncthreads_or(changed))
                break;
        }
        if (h < h_start) {
            atomicMin(&g.height[p], h);
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
        }
        __syncthreads(); /* sh_tile and sh_h are reused */
    }
}

static int prep_blocks(const gcut__dgrid *g)
{
    long long n = (long long)g->pitch * g->rows;
    long long blocks = (n + 255) / 256;
    return (int)(blocks < 4096 ? blocks : 4096);
}

#define RELABEL_VARIANTS(NDIR)                                                                    \
    {                                                                                             \
        (void *)relabel_kernel<NDIR, false, false>, (void *)relabel_kernel<NDIR, true, false>,    \
            (void *)relabel_kernel<NDIR, false, true>, (void *)relabel_kernel<NDIR, true, true>   \
    }

/* The kernel of `variant` (GCUT_RELABEL_* bits). */
static void *relabel_kernel_for(int ndirs, int variant)
{
    static void *const k4[] = RELABEL_VARIANTS(4);
    static void *const k8[] = RELABEL_VARIANTS(8);
    return (ndirs == 8 ? k8 : k4)[variant & GCUT_RELABEL_MAX];
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

extern "C" cudaError_t gcut__grid_relabel_launch(const gcut__dgrid *g, int variant, int *blocks,
                                                 cudaStream_t stream)
{
    const int tiles = g->tiles_x * g->tiles_y;
    void *kernel = relabel_kernel_for(g->ndirs, variant);
    cudaError_t err = resident(kernel, GCUT_TILE_PIXELS, tiles, blocks);
    if (err != cudaSuccess)
        return err;

    const int lazy = (variant & GCUT_RELABEL_LAZY) != 0;
    if (g->ndirs == 8 && lazy)
        relabel_prep_kernel<8, true><<<prep_blocks(g), 256, 0, stream>>>(*g);
    else if (g->ndirs == 8)
        relabel_prep_kernel<8, false><<<prep_blocks(g), 256, 0, stream>>>(*g);
    else if (lazy)
        relabel_prep_kernel<4, true><<<prep_blocks(g), 256, 0, stream>>>(*g);
    else
        relabel_prep_kernel<4, false><<<prep_blocks(g), 256, 0, stream>>>(*g);
    if ((err = cudaPeekAtLastError()) != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg};
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);
    return cudaLaunchCooperativeKernel(kernel, dim3((unsigned)*blocks), block, args, 0, stream);
}

extern "C" cudaError_t gcut__resident_blocks(const void *kernel, int tiles, int *blocks)
{
    return resident(kernel, GCUT_TILE_PIXELS, tiles, blocks);
}
