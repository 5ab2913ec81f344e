/* The GPU grid push-relabel kernels, as the host side (src/gpu) sees them:
 * the device copy of a grid and one C-linkage launcher per kernel. Each
 * launcher enqueues on `stream` and returns the launch's error (it does not
 * synchronise); the caller checks it with its CUDA-check macro.
 *
 * Device layout: the host's padded structure of arrays, with the raster
 * widened to whole tiles. Pixel (x, y) is node (y + 1) * pitch + x + 1,
 * pitch = tiles_x * GCUT_TILE_W + 2, rows = tiles_y * GCUT_TILE_H + 2. Nodes
 * outside the image (the one-node ring and the tail of the last tiles) have
 * every capacity zero, so a kernel steps to any neighbour without a bounds
 * check and such nodes never take part in the flow.
 *
 * Memory: ndirs residuals + excess + sink residual + height, all int32,
 * and a byte of residual directions: 45 bytes per node for 8-connectivity
 * (29 for 4), plus 32 bytes per tile and 8 per queue slot. */
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
    GCUT_CNT_ACTIVE,        /* active pixels (count) */
    GCUT_CNT_HEAD,          /* worklist: next slot to take */
    GCUT_CNT_TAIL,          /* worklist: next slot to fill */
    GCUT_CNT_PENDING,       /* worklist: tiles queued or in work */
    GCUT_CNT_TAKEN,         /* tile runs of pushes, over the whole solve */
    GCUT_CNT_LIST0,         /* entries of list[0] */
    GCUT_CNT_LIST1,         /* entries of list[1] */
    GCUT_CNT_DONE,          /* push launch: blocks finished (the last one resets its list) */
    GCUT_CNT_RESTART,       /* relabel (keep): tiles its second pass starts on */
    GCUT_CNT_CHECKS,        /* relabel (keep): the head its first pass left */
    GCUT_CNT_SWEEP,         /* relabel (sweep): next tile of its first pass */
    GCUT_CNT_BARRIER,       /* relabel (sweep): blocks past the pass's end */
    GCUT_CNT_HEIGHT_MAX,    /* the largest finite height the last relabel left (the cap's base) */
    GCUT_CNT_CUTOFF_PX,     /* diagnosis: pixels of infinite height */
    GCUT_CNT_CUTOFF_EXCESS, /* diagnosis: excess held by them (it stays on the source side) */
    GCUT_CNT_ACTIVE_EXCESS, /* diagnosis: excess held by active pixels */
    GCUT_CNT_SLOTS = 24
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
    int32_t *queued;     /* worklist: per tile, 1 while it is in the queue */
    int32_t *dirty;      /* per tile, 1 once a push changed a residual of it */
    int32_t *touched;    /* relabel (keep): per tile, 1 once its first pass reset a pixel */
    unsigned long long *queue; /* worklist: queue_cap slots (grid_relabel.cu) */
    long long queue_cap;
} gcut__dgrid;

/* Cancel min(source, sink) at every pixel into GCUT_CNT_CANCELLED and sum the
 * sink residuals left into GCUT_CNT_SINK_START. */
cudaError_t gcut__grid_init_launch(const gcut__dgrid *g, cudaStream_t stream);

/* The global relabel (grid_relabel.cu): heights = BFS distance to the sink
 * over residual arcs, exact on return, in one persistent (cooperative)
 * launch after a prep launch, with no host round trip. The prep rewrites
 * the direction bytes of the dirty tiles (of every tile with `all_dirty`:
 * a run's first relabel, or after lock-free pushes, which keep no dirty
 * flags) and zeroes GCUT_CNT_ACTIVE and both list counters.
 * `keep` (never with `all_dirty`): start from the heights the last relabel
 * of this run left in the clean tiles (every push since then must have kept
 * the dirty flags, as the tiled launches do). `sweep` (not with `keep`):
 * relax every tile once off the queue before the worklist. *blocks = the
 * blocks of the (last) persistent launch. */
cudaError_t gcut__grid_relabel_launch(const gcut__dgrid *g, int all_dirty, int keep, int sweep,
                                      int *blocks, cudaStream_t stream);

/* After the relabel: flag[out][tile] = tile has active pixels (finite
 * height and positive excess), flag[1 - out][tile] = 0, and the active
 * tiles appended to list[out] (emptied by the relabel's prep); their
 * number is added to GCUT_CNT_ACTIVE; each tile's dirty flag is left set
 * only if it has active pixels (the relabel before read them; a tile with
 * work keeps the flag even if no push runs it). With `height_max`, the
 * largest finite height into GCUT_CNT_HEIGHT_MAX (zeroed by the relabel's
 * prep), for the push launches' cap. */
cudaError_t gcut__grid_count_active_launch(const gcut__dgrid *g, int out, int height_max,
                                           cudaStream_t stream);

/* A diagnosis of the state after a relabel (not part of a solve): pixels
 * of infinite height and the excess they hold, and the excess of active
 * pixels, added into their GCUT_CNT_ slots (zeroed by the relabel's prep). */
cudaError_t gcut__grid_diagnose_launch(const gcut__dgrid *g, cudaStream_t stream);

/* Sum the final sink residuals into GCUT_CNT_SINK_END. */
cudaError_t gcut__grid_sink_sum_launch(const gcut__dgrid *g, cudaStream_t stream);

/* The tiled push-relabel (grid_tiled.cu): the resident blocks share out
 * the tiles of list[in]; each tile gets up to `sweeps` synchronous
 * push/relabel sweeps with heights, excess and residuals in shared memory;
 * with `cap_margin` > 0 a pixel whose relabel would lift it above the
 * last global relabel's largest finite height (GCUT_CNT_HEIGHT_MAX) plus
 * the margin goes to infinite height instead (it waits for the next
 * global relabel, which sets every height again);
 * the tiles that still have work or received flow go to flag[1 - in] and
 * list[1 - in], which must be empty (flag zero, count zero) on entry. On
 * return flag[in] is all zero and list[in]'s count is zero again, so
 * launches can follow one another with nothing between. `overlap` (only
 * right after another tiled launch in `stream`): launch as that one's
 * programmatic dependent, so that its blocks are placed while the other's
 * last tiles run and start the moment it completes. */
cudaError_t gcut__grid_tiled_launch(const gcut__dgrid *g, int in, int sweeps, int cap_margin,
                                    int overlap, cudaStream_t stream);

/* The blocks a tiled launch on `g` runs (its resident blocks, at most the
 * tiles). */
cudaError_t gcut__grid_tiled_blocks(const gcut__dgrid *g, int *blocks);

/* A push phase's rest as one persistent (cooperative) launch over the
 * worklist of tiles, which gcut__grid_enqueue_list_launch() fills; at most
 * until GCUT_CNT_TAKEN reaches `budget`, tile runs of up to `sweeps`
 * sweeps each (`cap_margin` as above). */
cudaError_t gcut__grid_tiled_worklist_launch(const gcut__dgrid *g, int sweeps, int cap_margin,
                                             long long budget, cudaStream_t stream);

/* Put the tiles of list[in] on the worklist, which must be empty (queue
 * slots and queued flags zero; head, tail and pending zero). */
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
