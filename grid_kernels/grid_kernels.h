/* The GPU grid push-relabel kernels, as the host side (src/gpu) sees them:
 * the device copy of a grid and one C-linkage launcher per kernel. Each
 * launcher enqueues on `stream` and returns the launch's error (it does not
 * synchronise); the caller checks it with its CUDA-check macro.
 *
 * Device layout: the host's padded structure of arrays (DESIGN.md), with the
 * raster widened to whole tiles. Pixel (x, y) is node (y + 1) * pitch + x + 1,
 * pitch = tiles_x * GCUT_TILE_W + 2, rows = tiles_y * GCUT_TILE_H + 2. Nodes
 * outside the image (the one-node ring and the tail of the last tiles) have
 * every capacity zero, so a kernel steps to any neighbour without a bounds
 * check and such nodes never take part in the flow.
 *
 * Memory: ndirs residuals + excess + sink residual + height, all int32,
 * and a byte of residual directions: 45 bytes per node for 8-connectivity
 * (29 for 4), plus 32 bytes per tile and 8 per relabel queue slot. */
#ifndef GCUT_GRID_KERNELS_H
#define GCUT_GRID_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A tile is 32 pixels wide (one warp per row, coalesced) and 16 tall: 512
 * threads, one per pixel. */
#define GCUT_TILE_W 32
#define GCUT_TILE_H 16
#define GCUT_TILE_PIXELS (GCUT_TILE_W * GCUT_TILE_H)

/* Height of a node that cannot reach the sink (the gap / cut-off rule). */
#define GCUT_HEIGHT_INF 0x3fffffff

/* Slots of the counters array. */
enum {
    GCUT_CNT_CANCELLED = 0, /* sum of min(source, sink), sent straight through */
    GCUT_CNT_SINK_START,    /* sum of sink residuals after the cancel */
    GCUT_CNT_SINK_END,      /* sum of sink residuals at the end */
    GCUT_CNT_WORK,          /* tiles whose border heights moved (BFS) */
    GCUT_CNT_ACTIVE,        /* active pixels (count) */
    GCUT_CNT_HEAD,          /* relabel worklist: next slot to take */
    GCUT_CNT_TAIL,          /* relabel worklist: next slot to fill */
    GCUT_CNT_PENDING,       /* relabel worklist: tiles queued or in work */
    GCUT_CNT_TAKEN,         /* tile runs of pushes (push worklist: of this phase) */
    GCUT_CNT_LIST0,         /* entries of list[0] */
    GCUT_CNT_LIST1,         /* entries of list[1] */
    GCUT_CNT_DONE,          /* push launch: blocks finished (the last one resets its list) */
    GCUT_CNT_RESTART,       /* relabel (KEEP): tiles its exact pass starts on */
    GCUT_CNT_CHECKS,        /* relabel (KEEP): queue slots its first pass claimed */
    GCUT_CNT_SWEEP,         /* relabel (SWEEP): next tile of its first pass */
    GCUT_CNT_BARRIER,       /* relabel (SWEEP): blocks past the pass's end */
    GCUT_CNT_SLOTS = 16
};

typedef struct gcut__dgrid {
    int img_w, img_h, ndirs; /* the image, in pixels */
    int pitch, rows;     /* device raster, in nodes */
    int tiles_x, tiles_y;
    int32_t *res[8];     /* res[d][p]: residual of the arc p -> p + offset(d) */
    int32_t *excess;     /* set to the source capacity before init */
    int32_t *sink;       /* sink residual; set to the sink capacity before init */
    int32_t *height;
    int32_t *flag[2];    /* per-tile work flags, double-buffered */
    int32_t *list[2];    /* the flagged tiles of flag[k], GCUT_CNT_LIST0 + k of them */
    unsigned long long *counters; /* GCUT_CNT_SLOTS */
    uint8_t *mask;       /* relabel: bit d set when res[d] > 0, per node */
    int32_t *queued;     /* relabel: per tile, 1 while it is in the queue */
    int32_t *mask_ready; /* relabel (LAZY): per tile, 1 once its mask bytes are written */
    int32_t *dirty;      /* per tile, 1 once a push changed a residual of it (DIRTY) */
    int32_t *touched;    /* relabel (KEEP): per tile, 1 once its first pass reset a pixel */
    unsigned long long *queue; /* relabel: queue_cap slots (grid_relabel.cu) */
    long long queue_cap;
} gcut__dgrid;

/* Cancel min(source, sink) at every pixel into GCUT_CNT_CANCELLED and sum the
 * sink residuals left into GCUT_CNT_SINK_START. */
cudaError_t gcut__grid_init_launch(const gcut__dgrid *g, cudaStream_t stream);

/* One round of the global relabel: heights = BFS distance to the sink over
 * residual arcs, computed tile-locally to convergence. `first` starts from
 * scratch (1 next to the sink, else infinite) on every tile; later rounds
 * work on the tiles flagged in flag[in] and flag the tiles whose halo they
 * changed in flag[1 - in]. Adds the tiles whose border moved to
 * GCUT_CNT_WORK: a round that moves none means the heights are exact. */
cudaError_t gcut__grid_bfs_launch(const gcut__dgrid *g, int first, int in, cudaStream_t stream);

/* Parts of the persistent relabel (grid_relabel.cu says more), as bits of
 * its `variant`: a block claims its next queue slot while it works on a
 * tile (AHEAD); the direction bytes are made by the first visit of each
 * tile instead of a pass over the grid (LAZY); one barrier a relaxation
 * step, and the next tile taken by warp 1 while warp 0 queues the
 * neighbours of the last (OVERLAP: the default, src/gpu/grid_gpu.cu; it
 * comes without the other two). 0 is the kernel as profiled in 2026-11.
 * DIRTY (default, with OVERLAP): the prep rewrites the direction bytes
 * only of the tiles whose residuals a push changed since the last relabel
 * (the per-tile dirty flags), not of every tile.
 * KEEP (with OVERLAP and DIRTY; 2026-11-22, round 4): when the launcher
 * asks for it (`incremental`), the relabel starts from the last relabel's
 * exact heights in the tiles that no push changed, minus those whose
 * shortest paths the pushes may have cut (a first pass finds them), and
 * relaxes only from the changed tiles (grid_relabel.cu proves it exact).
 * SWEEP (with OVERLAP and DIRTY; round 6): a relabel from scratch first
 * relaxes every tile once with no queue (no take, no queueing), then
 * queues only the tiles whose border breaks h(p) <= h(q) + 1 against the
 * halo, and runs the worklist from those (grid_relabel.cu). The launcher
 * runs it whenever the bit is set; the host sets it on the grids where it
 * paid (src/gpu/grid_gpu.cu), or on every grid with SWEEP_ANY. */
enum {
    GCUT_RELABEL_AHEAD = 1,
    GCUT_RELABEL_LAZY = 2,
    GCUT_RELABEL_OVERLAP = 4,
    GCUT_RELABEL_DIRTY = 8,
    GCUT_RELABEL_KEEP = 16,        /* on the grids where it paid (src/gpu/grid_gpu.cu) */
    GCUT_RELABEL_KEEP_ANY = 32,    /* KEEP on every grid */
    GCUT_RELABEL_KEEP_ALWAYS = 64, /* KEEP after every push phase (the checks) */
    GCUT_RELABEL_SWEEP = 128,      /* on the grids where it paid (src/gpu/grid_gpu.cu) */
    GCUT_RELABEL_SWEEP_ANY = 256,  /* SWEEP on every grid (the checks) */
    GCUT_RELABEL_MAX = 511
};

/* The global relabel in one persistent (cooperative) launch after a prep
 * launch: exact BFS heights on return, with no host round trip
 * (grid_relabel.cu). Uses mask, mask_ready, queue, queued and the worklist
 * counters; the prep also zeroes GCUT_CNT_ACTIVE and both list counters.
 * *blocks = the blocks launched (each ends on one failed take, so the
 * tile visits are GCUT_CNT_HEAD - *blocks). With DIRTY, `all_dirty` makes
 * the prep rewrite every tile's bytes (the first relabel of a run, or after
 * pushes that keep no dirty flags); the active count clears the flags.
 * With KEEP, `incremental` (never with `all_dirty`) makes it start from
 * the heights that the last relabel of this run left in the tiles whose
 * dirty flag is clear: every push since then must have kept the dirty
 * flags (tiled launches do). Then *blocks is the blocks of the exact pass,
 * GCUT_CNT_RESTART the tiles it starts on, GCUT_CNT_CHECKS the
 * first pass's claims (its visits plus its blocks). *swept = 1 when the
 * relabel ran SWEEP's first pass (one visit a tile besides the queue's). */
cudaError_t gcut__grid_relabel_launch(const gcut__dgrid *g, int variant, int all_dirty,
                                      int incremental, int *blocks, int *swept,
                                      cudaStream_t stream);

/* After a converged BFS (GCUT_CNT_WORK == 0, else it does nothing):
 * flag[out][tile] = tile has active pixels (finite height and positive
 * excess), flag[1 - out][tile] = 0, and the active tiles appended to
 * list[out] (emptied by the caller or the relabel prep);
 * their number is added to GCUT_CNT_ACTIVE; each tile's dirty flag is
 * left set only if it has active pixels (the relabel before read them; a
 * tile with work keeps the flag even if no push runs it). With `enqueue`, such
 * tiles also go on the worklist, which must be empty (queue slots zero,
 * head, tail and pending zero). */
cudaError_t gcut__grid_count_active_launch(const gcut__dgrid *g, int out, int enqueue,
                                           cudaStream_t stream);

/* Sum the final sink residuals into GCUT_CNT_SINK_END. */
cudaError_t gcut__grid_sink_sum_launch(const gcut__dgrid *g, cudaStream_t stream);

/* Values of the push launchers' `shared_res`: residuals in global memory;
 * in shared memory, the default way (GCUT_PUSH_SHARED_DEFAULT); in shared
 * memory with one thread per pixel; the same with the active pixels run
 * from a per-tile list on the first threads; and both of those with the
 * branch-free push and relabel step (_BF); the one-thread-per-pixel
 * branch-free step with the tile-mate's reverse arc raised by a shared
 * atomic (_AR, the default). grid_tiled.cu says more. */
enum {
    GCUT_PUSH_GLOBAL = 0,
    GCUT_PUSH_SHARED = 1,
    GCUT_PUSH_SHARED_PIXEL = 2,
    GCUT_PUSH_SHARED_LIST = 3,
    GCUT_PUSH_SHARED_PIXEL_BF = 4,
    GCUT_PUSH_SHARED_LIST_BF = 5,
    GCUT_PUSH_SHARED_PIXEL_BF_AR = 6
};

/* What GCUT_PUSH_SHARED means (bench/results: the faster, measured). */
#define GCUT_PUSH_SHARED_DEFAULT GCUT_PUSH_SHARED_PIXEL_BF_AR

/* The tiled push-relabel: the resident blocks share out the tiles of
 * list[in]; each tile gets up to `sweeps` synchronous push/relabel sweeps
 * with heights and excess in shared memory (and its residuals too when
 * `shared_res`); the tiles that still have work or received flow go to
 * flag[1 - in] and list[1 - in], which must be empty (flag zero, count
 * zero) on entry. On return flag[in] is all zero and list[in]'s count is
 * zero again, so launches can follow one another with nothing between.
 * `overlap` (only right after another tiled launch in `stream`): launch as
 * that one's programmatic dependent, so that its blocks are placed while
 * the other's last tiles run and start the moment it completes.
 * `wide` (opt-in): the default push step built for 4 resident blocks a
 * multiprocessor instead of 3 (grid_tiled.cu). */
cudaError_t gcut__grid_tiled_launch(const gcut__dgrid *g, int in, int sweeps, int shared_res,
                                    int wide, int overlap, cudaStream_t stream);

/* The blocks a tiled launch on `g` runs (its resident blocks, at most the
 * tiles). */
cudaError_t gcut__grid_tiled_blocks(const gcut__dgrid *g, int shared_res, int wide, int *blocks);

/* The push phase as one persistent (cooperative) launch over a worklist
 * of tiles, which gcut__grid_count_active_launch(..., enqueue = 1) fills;
 * at most `budget` tile runs of up to `sweeps` sweeps each. */
cudaError_t gcut__grid_tiled_worklist_launch(const gcut__dgrid *g, int sweeps, int shared_res,
                                             long long budget, cudaStream_t stream);

/* Put the tiles of list[in] on the push worklist, which must be empty
 * (queue slots and queued flags zero; head, tail and pending zero). */
cudaError_t gcut__grid_enqueue_list_launch(const gcut__dgrid *g, int in, cudaStream_t stream);

/* How many blocks of 512 threads of `kernel` fit on the device at once
 * (a cooperative launch's limit), at most `tiles`. */
cudaError_t gcut__resident_blocks(const void *kernel, int tiles, int *blocks);

/* The lock-free baseline (Hong; Łupińska for grids): one thread per pixel,
 * `cycles` asynchronous push-to-the-lowest-neighbour / relabel steps. */
cudaError_t gcut__grid_lockfree_launch(const gcut__dgrid *g, int cycles, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
