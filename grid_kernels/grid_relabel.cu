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
 * tile's queued flag, then fences, then reads: with OVERLAP the taker is
 * warp 1, and the block reads after the barrier that follows the take).
 * So when the queue is empty and no block is working (`pending` == 0),
 * h(p) <= h(q) + 1 on every residual arc: the heights are the exact
 * distances, and infinite exactly where no path reaches the sink.
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
 * neighbours, count down) around about 11 relaxation steps. Where its
 * time goes (Nsight Compute, bench/results): a block waits mostly for
 * work. The take polls an empty slot some 10 times a visit (31% of the
 * stall samples sit after the take): the relabel is a chain of visits one
 * after another across the tiles, with most blocks idle, so only a shorter
 * chain helps, not more throughput. Tried and dropped, each measured
 * slower on the H100: closing rows and columns by warp scans, to need
 * fewer steps (25 to 85% slower); 2, 4 or 8 pixels a thread, so that more
 * tiles are in flight (more visits, and slower ones); skipping in a step
 * the rows with no change next to them in the step before (10% slower);
 * running the take of the next tile step by step during the relaxation
 * (more visits: a tile taken early misses changes that a later take would
 * have seen; 14% slower). Round 7 (2026-11-22) profiled it again (Nsight
 * Compute, 8.3 MP and 1 MP 8-connected, bench/results): 41 to 69% of the
 * stall samples sit at the loop's top barrier, blocks waiting for the
 * taker, which finds its slot empty 12 to 80 times a take; the relaxation
 * steps 10 to 38%, and there the wait is for barriers and shared loads'
 * latency (MIO throttle under 3% of a warp's cycles: the shared-memory
 * pipe is not the limit). Dropped that round: ROWS, a step's west, east
 * and diagonal neighbours taken off the lanes beside it by shuffles (two
 * shared loads a step instead of eight: each step's chain got longer,
 * the relabels 35 to 53% slower); FENCE, the worklist's fences as
 * fence.acq_rel.gpu instead of __threadfence()'s sequentially consistent
 * one (both wait on the same drain of outstanding writes, ERRBAR: the
 * relabels as fast, solves within the spread). Round 8 dropped GROUP: the
 * queue's unit a group of 2x2 tiles (64x32 pixels), a block of 512
 * threads relaxing it a visit (4 pixels a thread, the same pixel of each
 * tile), one halo load and one queueing a visit, as many blocks in flight
 * (exact by the same proof, a group for a tile): the hops fell to half
 * (8.3 MP 8-connected, heavy cycle: 28,100 group visits against 59,600
 * tile visits) but a visit took 5.7 times as long (49 against 8.6 us: a
 * wider area needs more steps, and each step relaxes 4 pixels a thread),
 * and at 1 MP, with fewer groups (486) than blocks, every group was in
 * flight at once and was visited 14 to 20 times a relabel; the relabels
 * 2.1 to 2.8 times slower 8-connected, 1.9 to 2.1 times 4-connected (code
 * kept in .devdata/grid_r8_group.patch). Round 9 dropped INIT12: the run's
 * first relabel skipped, its cycle started from h = 1 where a sink residual
 * is left, else 2 (set by the init; a valid labelling, so exact as before:
 * the pushes keep the preflow and the proof is still the last exact
 * relabel). It saves cycle 0's relabel (0.72 ms at 8.3 MP 8-connected), but
 * its push phase, as costly as one after a relabel, leaves the excess where
 * three heavy cycles are still needed to move it (the default needs two
 * after its first): one more heavy relabel and push phase, the solves 13 to
 * 15% slower 8-connected (8.3 MP 15.81 against 13.85 ms), 11 to 26%
 * 4-connected; with twice that phase's launches 18 to 41% slower (code kept
 * in .devdata/grid_r9_init.patch). Round 10 did not build CLUSTER (a
 * visit over 2x1 to 4x2 tiles by a thread block cluster, inner borders
 * through distributed shared memory): on the H100 a relaxation step with
 * a cluster barrier costs 2,250 to 3,870 cycles against 673 with
 * __syncthreads_or, so a group visit would take ~3.5 tile visits for half
 * the hops (.devdata/grid_r10_micro.cu). It dropped AUGMENT (a warp a
 * tail pixel walking a shortest residual path down the exact heights):
 * 90-96% of the pixels kept excess, solves 4-23% slower (bench/results,
 * .devdata/grid_r10_augment.patch).
 * - AHEAD: thread 0 claims its next head slot as soon as it has a tile, so
 *   the claim's round trip overlaps the relaxation (opt-in: within the
 *   spread).
 * - LAZY: the prep pass read every residual to write the direction bytes
 *   (41 bytes a node, at the DRAM roof); now the first visit of a tile
 *   reads its residuals (which no kernel changes during a relabel) and
 *   writes the bytes, and later visits read the bytes once mask_ready says
 *   they are there (a visit that finds them missing, because the first one
 *   is still running on another block, reads the residuals too and writes
 *   the same bytes). The prep moves 8 bytes a node. (Opt-in: within the
 *   spread.)
 * - OVERLAP (the default): two shared copies of the heights, a step
 *   reading one and writing the other, so one barrier a step instead of
 *   two; and the next tile taken by warp 1 while warp 0 queues the last
 *   one's neighbours, so that the two chains of round trips overlap.
 *   Also tried (bench/results): each half alone (one barrier a step: no
 *   gain; the overlapped take: about half the gain), with AHEAD (no
 *   change), and a block that goes on with one of the neighbour tiles it
 *   would queue, off the queue (4% slower at 8.3 MP: like an early take,
 *   it visits tiles before their other neighbours' changes arrive, 26%
 *   more visits in the profiled relabel).
 * - DIRTY (the default, with OVERLAP; 2026-11-22): the prep rewrites the
 *   direction bytes only of the tiles whose residuals changed since the
 *   last relabel (a push ran the tile or sent flow into it: the push
 *   kernels set its dirty flag), reading 8 instead of 41 bytes a node
 *   elsewhere; 4% off a solve at 8.3 MP. Also tried that day and dropped
 *   (bench/results): fewer blocks a multiprocessor (3 or 2: slower); the
 *   pending count read on every fourth empty poll only; the take without
 *   the mask_ready read and the queueing without the wait for an empty
 *   slot; the active count reading only the changed tiles (all three
 *   within the spread); warps whose pixels cannot fall skipping the
 *   relaxation steps (slower: more visits, as with every earlier take).
 * - KEEP (with OVERLAP and DIRTY; round 4 of 2026-11-22): a relabel after
 *   a push phase that changed few tiles starts from the last relabel's
 *   exact distances d (same run) instead of from scratch. Heights from
 *   scratch (1 next to the sink, else infinite) in the dirty tiles, d kept
 *   in the clean ones; then two persistent passes.
 *   Pass 1 (CHECK) resets to infinite, tile by tile to a fixed point over
 *   the grid, every pixel of finite height h > 1 that has no residual arc
 *   to a pixel of height h - 1; it starts on the clean tiles next to a
 *   dirty one and queues the neighbours of a tile whose border reset.
 *   Pass 2 is the relabel above, its queue the dirty tiles and those where
 *   pass 1 reset a pixel (the `touched` flags); the other tiles are off the
 *   queue until a fall next to them queues them.
 *   Why it is exact. Only push kernels ran since the last relabel, and they
 *   change a residual (or the excess, or a height) only in tiles that they
 *   flag dirty: a push p -> q lowers res(p, q), raises res(q, p), and the
 *   tiles of p and q are both flagged (the run's, and the notify bit's).
 *   So a clean tile's pixels keep their arcs (and sink arcs), their bytes
 *   and their heights d. (a) After pass 1 every finite height is the length
 *   of a residual path to the sink: h = 1 only next to the sink (from
 *   scratch, or d = 1 with its sink arc unchanged; a sink residual never
 *   rises), and a finite h > 1 kept by pass 1 has a residual arc to a pixel
 *   of height h - 1, down to 1. At the start only a pixel of a clean tile
 *   next to a dirty one can lack that arc (elsewhere its arc to d - 1 leads
 *   to a clean pixel that still holds d - 1), and those tiles are pass 1's
 *   queue. Pass 1 only raises values to infinity, so a pixel it kept had
 *   such an arc when it was last looked at and still has: a reset next to
 *   it queues its tile, which is then looked at again (the same queue
 *   protocol as pass 2). So all heights are upper bounds of the
 *   distances. (b) Every pixel of a tile left off pass 2's queue holds
 *   d(p), and each neighbour q holds at least d(q) (kept d; or scratch,
 *   which is infinite or 1 where d(q) = 1; or infinite by pass 1): so
 *   h(p) = d(p) <= d(q) + 1 <= h(q) + 1 on every residual arc, which is
 *   the relaxation's fixed point there; the pixels that may break it are
 *   in queued tiles. Pass 2 relaxes as from scratch (heights only fall;
 *   each fall queues the tiles that read it), so it ends, as above, with
 *   h(p) <= h(q) + 1 on every residual arc and every h an upper bound: the
 *   exact distances, infinite exactly where no path reaches the sink. The
 *   termination test and the cut rest on that, as before.
 *   Measured (bench/results, round 4): the tail's relabels visit 5 to 50
 *   times fewer tiles, yet 8-connected and at 1 MP they take as long or
 *   longer: their time is the chain of visits through the changed region
 *   (and three more launches), not the count; 9 to 11% off a solve at
 *   8.3 MP 4-connected. Hence the default's rule (src/gpu/grid_gpu.cu).
 *   Also measured this round and dropped: the dirty tiles keeping their
 *   push heights, which pass 1 then checks too (h = 1 against the sink
 *   arc): 6% slower at 8.3 MP 8-connected, pass 1's resets cascade; and
 *   CUTOFF, the tiles that the last relabel left all infinite kept off the
 *   queue (they stay cut off): 15% fewer visits, no faster (such a visit is
 *   one step).
 * - SWEEP (with OVERLAP and DIRTY; round 6 of 2026-11-22; by default on
 *   4-connected grids of 4096 tiles or more, src/gpu/grid_gpu.cu): a
 *   relabel from scratch starts with a pass in which the blocks share out
 *   every tile once, in raster order, off the queue (sweep_pass: no take,
 *   no fence, no queueing); after a barrier over the grid each block
 *   checks the borders of a run of tiles and queues those where a pixel p
 *   has a residual arc to q with h(p) > h(q) + 1 (queue_broken_tiles);
 *   then the worklist as above.
 *   Why it is exact. The pass relaxes each tile from its scratch heights
 *   against a halo of upper bounds (scratch, or a neighbour's result, each
 *   the length of a residual path), so its results are upper bounds too;
 *   only that tile's visit writes its pixels. After the barrier a tile is at
 *   its fixed point inside (its pixels and the halo values it read are what
 *   its relaxation ended on) and its halo only fell since, so h(p) <=
 *   h(q) + 1 can fail only at its border: the check finds every tile where
 *   it fails, and a tile off the queue satisfies it on every arc. From
 *   there the worklist runs as KEEP's pass 2 does (heights only fall, each
 *   fall queues the tiles that read it; blocks that start it while others
 *   still check are kept from ending by the checking blocks' count in
 *   `pending`), so it ends on the exact distances.
 *   Measured (bench/results, round 6): 8.3 MP tail relabels visit 21,800
 *   instead of 24,200 tiles (16,200 of them in the pass) and are only 2 to
 *   5% faster (0.30 to 0.32 ms): a visit of the pass costs about what a
 *   queued one does, so the queue's round trips are not what a visit's
 *   time is (by estimate, not profiled, the relaxation steps are: each
 *   reads every pixel's neighbours from shared memory, four blocks a
 *   multiprocessor). The 4-connected relabels gain more (2 to 12% at
 *   8.3 MP), their steps read half as many neighbours; 8-connected solves
 *   gained 0.1 to 1.1% at 8.3 MP (within the spread) and lost 1 to 6% at 1
 *   and 4 MP, so SWEEP stays off there. Also measured and dropped the
 *   same round: the tail push phase's worklist launch with 4 times or half
 *   its budget of tile runs, or with runs of 32 or 8 sweeps (grid_tiled.cu). */
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
    g.counters[GCUT_CNT_CHECKS] = 0;
}

/* The relabel's queue and counters, reset by the prep's blocks: every tile
 * queued; with SWEEP (`sweep_blocks` > 0, the relabel's blocks) none, and
 * those blocks counted pending until each has queued its share of the
 * tiles after the first pass. */
static __device__ __forceinline__ void reset_queue(const gcut__dgrid &g, int sweep_blocks)
{
    const long long tiles = sweep_blocks ? 0 : (long long)g.tiles_x * g.tiles_y;
    for (long long t = blockIdx.x * 256ll + threadIdx.x; t < g.queue_cap;
         t += (long long)gridDim.x * 256) {
        g.queue[t] = t < tiles ? gcut__slot_value((unsigned long long)t, t) : 0;
        if (t < (long long)g.tiles_x * g.tiles_y) {
            g.queued[t] = t < tiles;
            g.mask_ready[t] = 0;
        }
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
        if (!LAZY)
            g.mask[i] = direction_bits<NDIR>(g, i);
        g.height[i] = g.sink[i] > 0 ? 1 : GCUT_HEIGHT_INF;
    }
    reset_queue(g, 0);
}

/* DIRTY's prep: the heights reset everywhere, the direction bytes only in
 * the tiles whose flag is set (every tile with `all`): the rest hold
 * residuals that no kernel changed since their bytes were written. The
 * prep otherwise reads every residual (41 of its 41 bytes a node at 8.3 MP,
 * at the DRAM roof); now 8 bytes a node plus the changed tiles. A block
 * walks whole raster rows, so a node's tile needs no division; the ring of
 * nodes outside the image goes with the nearest tile (its bytes are zero
 * and written with `all`). */
/* `keep` (KEEP): the clean tiles keep the last relabel's heights, the
 * dirty ones get them from scratch; pass 1's tiles are marked queued and
 * the queue's counters reset (relabel_enqueue_kernel lists the tiles).
 * `sweep_blocks` (SWEEP, never with `keep`): the queue starts empty. */
template <int NDIR>
static __global__ __launch_bounds__(256) void relabel_prep_dirty_kernel(gcut__dgrid g, int all,
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

/* KEEP: a pass's queue, filled before the pass on a queue whose slots are
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
    if (pass && t == 0)
        g.counters[GCUT_CNT_CHECKS] = base;
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

/* KEEP's first pass, one step of a pixel: a finite height h > 1 with no
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

/* One step of the pass: the relaxation, or KEEP's check (CHECK). */
template <int NDIR, bool CHECK>
static __device__ __forceinline__ int pass_step(const int32_t *src, int me, unsigned mask, int &h)
{
    return CHECK ? check_step<NDIR>(src, me, mask, h) : relax_step<NDIR>(src, me, mask, h);
}

/* The pass's steps to a fixed point on two shared copies of the heights
 * (OVERLAP's DBUF half): two steps a turn, each reading one copy and
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

/* SWEEP's first pass: the blocks share out every tile once, in raster
 * order, each relaxing it from scratch to a fixed point against its halo
 * as read, and storing the falls: no take, no fence, no queueing (taken
 * for most of a visit's time; round 6 measured that they are not, the
 * header says). Only this visit writes the tile's pixels in the pass, so
 * plain stores suffice. A halo
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

/* SWEEP, after the first pass and a grid barrier: the tiles of this
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

/* CHECK (KEEP's first pass; with OVERLAP only): the same queue protocol
 * and fixed point, the step check_step() (heights only rise, to
 * infinity), and the touched flag set on a tile where a pixel rose. */
/* SWEEP (with OVERLAP only): the first pass and the queue of broken tiles
 * (sweep_pass, queue_broken_tiles) before the worklist; first in the
 * kernel, so that its registers are free before the worklist's are live. */
template <int NDIR, int V, bool CHECK = false, bool SWEEP = false>
static __global__ __launch_bounds__(GCUT_TILE_PIXELS, 4) void relabel_kernel(gcut__dgrid g)
{
    /* OVERLAP's two halves: one barrier a step (DBUF) and the take while
     * warp 0 queues (PAR); it comes without AHEAD and LAZY. */
    constexpr bool DBUF = (V & GCUT_RELABEL_OVERLAP) != 0;
    constexpr bool PAR = DBUF;
    constexpr bool AHEAD = (V & GCUT_RELABEL_AHEAD) != 0 && !PAR;
    constexpr bool LAZY = (V & GCUT_RELABEL_LAZY) != 0 && !PAR;
    /* PAR: thread TAKER (warp 1) takes the next tile while warp 0 queues
     * the neighbours of the last one; else thread 0 does both, in turn. */
    constexpr int TAKER = PAR ? 32 : 0;
    __shared__ int32_t sh_h[DBUF ? 2 : 1][HALO_N]; /* DBUF: a step reads one, writes the other */
    __shared__ int sh_tile, sh_fresh;
    __shared__ unsigned sh_notify; /* bit 3 * (dy + 1) + dx + 1: neighbour tile to queue */
    if constexpr (SWEEP && DBUF) {
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
    unsigned next = 0; /* AHEAD: thread 0's claimed slot (a relabel claims < 2^32) */
    if (AHEAD && tid == 0)
        next = (unsigned)claim_slot(g);
    if (PAR && tid == TAKER) {
        int fresh = 0;
        sh_tile = take_slot(g, claim_slot(g), &fresh);
        sh_fresh = fresh;
    }

    for (;;) {
        if (!PAR && tid == 0) {
            int fresh = 0;
            const int tile = take_slot(g, AHEAD ? next : claim_slot(g), &fresh);
            if (AHEAD && tile >= 0)
                next = (unsigned)claim_slot(g); /* its round trip overlaps this tile's work */
            sh_tile = tile;
            sh_fresh = fresh;
        }
        __syncthreads(); /* PAR: the take at the end of the last tile (or before the loop) */
        const int tile = sh_tile;
        if (tile < 0)
            return;
        if (tid == 0)
            sh_notify = 0; /* read by warp 0 before the barrier above; set after the next one */
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        const long long origin =
            (long long)ty * GCUT_TILE_H * g.pitch + (long long)tx * GCUT_TILE_W;
        const long long p = origin + (long long)(ly + 1) * g.pitch + lx + 1;
        const int fresh = LAZY && sh_fresh;
        unsigned mask = 0;
        if (fresh) {
            mask = direction_bits<NDIR>(g, p);
            g.mask[p] = (uint8_t)mask;
            __threadfence(); /* the bytes are visible before mask_ready */
        } else {
            mask = LAZY ? __ldcg(&g.mask[p]) : g.mask[p];
        }
        for (int i = tid; i < HALO_N; i += GCUT_TILE_PIXELS) {
            const int v = load_volatile(&g.height[origin + (long long)(i / HALO_W) * g.pitch +
                                                  i % HALO_W]);
            sh_h[0][i] = v;
            if (DBUF)
                sh_h[DBUF ? 1 : 0][i] = v; /* the halo, in both */
        }
        __syncthreads();
        if (fresh && tid == 0)
            store_volatile(&g.mask_ready[tile], 1);

        int h = sh_h[0][me];
        const int h_start = h;
        if constexpr (DBUF) {
            relax_two_copies<NDIR, CHECK>(sh_h, me, mask, h);
        } else {
            for (;;) {
                int hn = h;
                const int changed = relax_step<NDIR>(sh_h[0], me, mask, hn);
                __syncthreads(); /* every read of this step is done */
                if (changed) {
                    h = hn;
                    sh_h[0][me] = h;
                }
                if (!__syncthreads_or(changed))
                    break;
            }
        }
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
        } else if (PAR && tid == TAKER) {
            /* The next tile, while warp 0 queues. No deadlock: the wait
             * ends when a slot fills or nothing is pending, and this
             * tile's count falls in warp 0, which does not wait here. */
            int fresh = 0;
            sh_tile = take_slot(g, claim_slot(g), &fresh);
            sh_fresh = fresh;
        }
        if (!PAR)
            __syncthreads(); /* sh_tile and sh_h are reused */
        /* PAR: the barrier at the top of the loop. */
    }
}

static int prep_blocks(const gcut__dgrid *g)
{
    long long n = (long long)g->pitch * g->rows;
    long long blocks = (n + 255) / 256;
    return (int)(blocks < 4096 ? blocks : 4096);
}

/* The kernel of `variant` (GCUT_RELABEL_* bits; OVERLAP ignores AHEAD and
 * LAZY; DIRTY is the prep's). */
static void *relabel_kernel_for(int ndirs, int variant)
{
#define RELABEL_KERNELS(N)                                                                        \
    {                                                                                             \
        (void *)relabel_kernel<N, 0>, (void *)relabel_kernel<N, 1>, (void *)relabel_kernel<N, 2>, \
            (void *)relabel_kernel<N, 3>, (void *)relabel_kernel<N, GCUT_RELABEL_OVERLAP>         \
    }
    static void *const k4[] = RELABEL_KERNELS(4);
    static void *const k8[] = RELABEL_KERNELS(8);
#undef RELABEL_KERNELS
    void *const *k = ndirs == 8 ? k8 : k4;
    return k[(variant & GCUT_RELABEL_OVERLAP) ? 4 : variant & 3];
}

static void *sweep_kernel_for(int ndirs)
{
    return ndirs == 8 ? (void *)relabel_kernel<8, GCUT_RELABEL_OVERLAP, false, true>
                      : (void *)relabel_kernel<4, GCUT_RELABEL_OVERLAP, false, true>;
}

static void *check_kernel_for(int ndirs)
{
    return ndirs == 8 ? (void *)relabel_kernel<8, GCUT_RELABEL_OVERLAP, true>
                      : (void *)relabel_kernel<4, GCUT_RELABEL_OVERLAP, true>;
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

extern "C" cudaError_t gcut__grid_relabel_launch(const gcut__dgrid *g, int variant, int all_dirty,
                                                 int incremental, int *blocks, int *swept,
                                                 cudaStream_t stream)
{
    const int tiles = g->tiles_x * g->tiles_y;
    /* As relabel_kernel_for() picks: OVERLAP comes without LAZY. */
    const int lazy = (variant & (GCUT_RELABEL_LAZY | GCUT_RELABEL_OVERLAP)) == GCUT_RELABEL_LAZY;
    const int dirty = !lazy && (variant & GCUT_RELABEL_DIRTY);
    const int keep = dirty && incremental && !all_dirty && (variant & GCUT_RELABEL_KEEP) &&
                     (variant & GCUT_RELABEL_OVERLAP);
    const int sweep = dirty && !keep && (variant & GCUT_RELABEL_SWEEP) &&
                      (variant & GCUT_RELABEL_OVERLAP);
    *swept = sweep;
    void *kernel = sweep ? sweep_kernel_for(g->ndirs) : relabel_kernel_for(g->ndirs, variant);
    cudaError_t err = resident(kernel, GCUT_TILE_PIXELS, tiles, blocks);
    if (err != cudaSuccess)
        return err;
    gcut__dgrid arg = *g;
    void *args[] = {&arg};
    const dim3 block(GCUT_TILE_W, GCUT_TILE_H);

    if (dirty) {
        const int rows = g->rows < 4096 ? g->rows : 4096;
        const int sweep_blocks = sweep ? *blocks : 0;
        if (g->ndirs == 8)
            relabel_prep_dirty_kernel<8>
                <<<rows, 256, 0, stream>>>(*g, all_dirty, keep, sweep_blocks);
        else
            relabel_prep_dirty_kernel<4>
                <<<rows, 256, 0, stream>>>(*g, all_dirty, keep, sweep_blocks);
    } else if (g->ndirs == 8 && lazy) {
        relabel_prep_kernel<8, true><<<prep_blocks(g), 256, 0, stream>>>(*g);
    } else if (g->ndirs == 8) {
        relabel_prep_kernel<8, false><<<prep_blocks(g), 256, 0, stream>>>(*g);
    } else if (lazy) {
        relabel_prep_kernel<4, true><<<prep_blocks(g), 256, 0, stream>>>(*g);
    } else {
        relabel_prep_kernel<4, false><<<prep_blocks(g), 256, 0, stream>>>(*g);
    }
    if ((err = cudaPeekAtLastError()) != cudaSuccess)
        return err;
    if (keep) {
        /* Pass 1 on its queue, then pass 2's queue; each pass's blocks end
         * when its queue is done. */
        void *check = check_kernel_for(g->ndirs);
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
