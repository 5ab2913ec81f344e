/* The GPU push-relabel kernels for general (CSR) graphs, as the host side
 * (src/gpu/graph_gpu*.cu) sees them: the device copy of a graph and one
 * C-linkage launcher per kernel. Each launcher enqueues on `stream` and
 * returns the launch's error without synchronising.
 *
 * Layout: the graph's forward CSR and reverse CSR with the map to the
 * forward arc (csr.h, the RCSR of ECL-MaxFlow). Flow is stored once per
 * forward arc; the residual of arc k is cap[k] - flow[k] forwards and
 * flow[k] backwards. Excess is 64-bit (a node may receive many int32 arcs).
 *
 * Worklists: the kernels that process a worklist are persistent
 * cooperative launches that run many steps (BFS levels, push iterations)
 * with a grid-wide barrier between steps. Steps are numbered by `seq`,
 * kept on the device (counters[GCUT_GCNT_SEQ]) so that the host never has
 * to know it: step `seq` reads list[seq & 1] with size counters[seq % 3],
 * appends to list[(seq + 1) & 1] with size counters[(seq + 1) % 3], and
 * zeroes counters[(seq + 2) % 3], the output size of step seq + 1 (nobody
 * reads it any more: it was the input size of step seq - 1, read before the
 * barrier). One barrier per step suffices, and the host reads the counters
 * only when it must decide something (a global relabel, the end).
 *
 * De-duplication (ECL-MaxFlow): stamp[v] holds the last push step that
 * appended v (positive, increasing: atomicMax with seq) or the last BFS that
 * visited v (negative, decreasing: atomicMin), so it is never reset within
 * a solve. */
#ifndef GCUT_GENERAL_KERNELS_GRAPH_KERNELS_H
#define GCUT_GENERAL_KERNELS_GRAPH_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>


#ifdef __cplusplus
extern "C" {
#endif

/* Height of a node cut off from the target in phase 2 (phase 1 uses n). */
#define GCUT_GRAPH_HEIGHT_INF 0x3fffffff

/* Slots of the counters array (unsigned long long each). */
enum {
    GCUT_GCNT_SIZE0 = 0,  /* the three worklist sizes */
    GCUT_GCNT_LIFTS = 3,  /* local relabels (the host relabels after n of them) */
    GCUT_GCNT_LEFT = 4,   /* nodes other than s and t with excess (after phase 2) */
    GCUT_GCNT_SEQ = 5,    /* the current step (see above) */
    GCUT_GCNT_STEPS = 6,  /* push steps run */
    GCUT_GCNT_BFS_ACTIVE = 7, /* bfs_stop: active nodes the relabel must label */
    GCUT_GCNT_BFS_FOUND0 = 8, /* bfs_stop: three counts of them labelled, by level */
    GCUT_GCNT_MSIZE0 = 11, /* the three sizes of the warp-per-node worklist (split push) */
    GCUT_GCNT_HSIZE0 = 14, /* the three sizes of the block-per-node worklist */
    GCUT_GCNT_SINK = 17,  /* the sink's excess at the end of the last global relabel (after
                           * phase 1: the flow value) */
    GCUT_GCNT_DEFICIT = 18, /* with `deficits`: minus the deficits left at the end of the
                             * last global relabel (the value is SINK less this) */
    GCUT_GCNT_LEVELS = 19, /* BFS levels of the global relabels since the solve began */
    GCUT_GCNT_DEPTH = 20,  /* BFS levels of the last global relabel */
    GCUT_GCNT_CERT = 21,   /* certify: 1 when the heights proved the phase over */
    GCUT_GCNT_CBAD = 22,   /* certify: the conditions its proof found broken */
    GCUT_GCNT_CFLAG0 = 23, /* certify: three counts of nodes changed, by round */
    GCUT_GCNT_SLOTS = 26
};

/* The split push's degree classes: a thread per node of at most
 * GCUT_LIGHT_MAX arcs (the registers a thread holds its arcs in), a block
 * per node of at least GCUT_HEAVY_MIN, a warp for the rest. */
#define GCUT_LIGHT_MAX 12
#define GCUT_HEAVY_MIN 1024

typedef struct gcut__dgraph {
    int32_t n, m, source, sink;
    int blocks;              /* blocks of 256 threads for grid-wide launches */
    int coop_blocks;         /* blocks of the cooperative (persistent) launches */
    int split_blocks;        /* the same for the split push (graph_push_split.cu) */
    int dense_blocks;        /* the same for its dense-graph instance */
    int split;               /* the split push by degree (else a warp per node) */
    int dense;               /* split push: most nodes are not light (the dense instance) */
    int chase;               /* split push: light nodes a thread follows its excess to a step */
    int warp_chase;          /* warp push: nodes a warp follows its excess to a step (0: none;
                              * warm re-solves, graph_push_warp.cu) */
    int bfs_team;            /* global relabel: entries four a lane at a time, and whole
                              * warps per node of a small frontier */
    int bfs_stop;            /* global relabel: stop once every active node has its
                              * distance (graph_relabel.cu) */
    int deficits;            /* a warm re-solve: phase 1's relabels start from the sink and
                              * every node with a negative excess (graph_update.cu) */
    int warm_stop;           /* with deficits: the heights are those a phase 1 left, so that
                              * even the first relabel may stop early (graph_relabel.cu) */
    int keep_heights;        /* bfs_stop relabels leave the nodes they do not reach at
                              * max(their height, D + 1), not D + 1 (graph_certify.cu) */
    int32_t *cert;           /* n: graph_certify.cu's work array (and the relabel's, to keep
                              * heights) */
    const int32_t *out_start, *out_head, *out_cap; /* forward CSR */
    const int32_t *in_start, *in_tail, *in_arc;    /* reverse CSR, map to forward */
    int32_t *flow;           /* m */
    long long *excess;       /* n */
    int32_t *height;         /* n */
    int32_t *stamp;          /* n */
    int32_t *list[2];        /* n each */
    int32_t *mlist[2], *hlist[2]; /* n each: the split push's warp and block worklists */
    uint8_t *dclass;         /* n: 0 thread, 1 warp, 2 block per node (split push) */
    int32_t *claim;          /* n: the last push step + 1 that took the node (chase) */
    uint8_t *side;           /* n: 1 = cannot reach the sink (after phase 1) */
    unsigned long long *counters; /* GCUT_GCNT_SLOTS */
    /* precoloring variant */
    const int32_t *color;    /* m: colour of each forward arc */
    int32_t *choice;         /* n: the arc each node pushes on this cycle, or -1 */
    int32_t *lift_to;        /* n: the height a node lifts to when it cannot push */
} gcut__dgraph;

/* Saturate the source's arcs: flow = cap, the heads' excess raised. */
cudaError_t gcut__graph_init_launch(const gcut__dgraph *g, cudaStream_t stream);

/* The global relabel, one cooperative launch (graph_relabel.cu): heights =
 * BFS distance to `target` over residual arcs, level by level with the
 * lanes of a warp per frontier node, its in- and out-arcs scanned in one
 * pass (phase 1, towards the sink, follows both CSRs; phase 2, towards the
 * source, only arcs that carry flow), hmax where the BFS does not reach
 * (with bfs_stop it may end once the active nodes have theirs); `excluded`
 * is never relabelled; in phase 1 the cut side and the sink's excess
 * (GCUT_GCNT_SINK) as of these heights; then the active nodes (not s or t,
 * excess > 0, height < hmax) become the current worklist, with g->split
 * the worklist of their degree class. `bfs_id` < 0 must decrease from one
 * call to the next within a solve. With `fresh` (a solve's first relabel,
 * bfs_id -1, phase 1) it first starts the solve itself: flow, excess,
 * stamps, claims and counters zeroed, the degree classes set, the source's
 * arcs saturated. */
cudaError_t gcut__graph_relabel_launch(const gcut__dgraph *g, int32_t target, int32_t excluded,
                                       int32_t hmax, int32_t bfs_id, int phase2, int fresh,
                                       cudaStream_t stream);

/* Blocks per SM (at most per_sm) at which the relabel kernel stays
 * resident: a bound on the cooperative launches that share its grid. */
int gcut__graph_relabel_occupancy(int per_sm);

/* Dynamic re-solves (graph_update.cu; Kannappan, Kumar and Nasre,
 * "Scalable Maxflow Processing for Dynamic Graphs", section 4). One entry
 * of a batch: forward arc `arc` (tail -> its head) now has capacity `cap`. */
typedef struct gcut__dupdate {
    int32_t arc, tail, cap, pad;
} gcut__dupdate;

/* Apply `count` updates to the device state a solve left: each arc takes
 * its new capacity; flow above it is cut back, which leaves the tail an
 * excess and the head a deficit of the difference. An arc listed more
 * than once must carry the same capacity each time (its final one): the
 * cut is made once. */
cudaError_t gcut__graph_update_launch(const gcut__dgraph *g, const gcut__dupdate *updates,
                                      int64_t count, cudaStream_t stream);

/* Saturate the source's arcs again where they have room (raised, or flow
 * returned by phase 2): flow = cap, the heads' excess raised by the room. */
cudaError_t gcut__graph_resaturate_launch(const gcut__dgraph *g, cudaStream_t stream);

/* dclass[v] from v's degree (in + out). */
cudaError_t gcut__graph_class_launch(const gcut__dgraph *g, cudaStream_t stream);

/* Up to `steps` push-relabel iterations with the work split by degree
 * (graph_push_split.cu): a thread per node of the light worklist, a warp
 * per node of the medium one, a block per node of the heavy one; each node
 * discharges up to `rounds` times. One cooperative launch, ending early
 * when the worklists empty. */
cudaError_t gcut__graph_split_push_launch(const gcut__dgraph *g, int steps, int32_t hmax,
                                          int phase2, int rounds, cudaStream_t stream);

/* Up to `steps` push-relabel iterations over the worklist, a warp per
 * active node (graph_push_warp.cu), one cooperative launch, ending early
 * when the worklist empties. */
cudaError_t gcut__graph_push_launch(const gcut__dgraph *g, int steps, int32_t hmax, int phase2,
                                    int rounds, cudaStream_t stream);

/* Blocks of 256 threads of the cooperative launches that fit on the
 * device at once, at most `cap` per SM (0 on error): of the warp push and
 * the relabel, of the split push and the relabel, of the split push's
 * dense instance. */
int gcut__graph_coop_blocks(int device, int cap);
int gcut__graph_split_blocks(int device, int cap);
int gcut__graph_dense_blocks(int device, int cap);

/* Try to prove phase 1 over without a BFS (graph_certify.cu): from the
 * heights as they are (n = cut off), repair the nodes whose chain of
 * lower residual neighbours no longer ends at a target, then check in one
 * pass over the arcs that every node below n has a residual arc to a
 * lower node or is a target (the sink, a deficit), that nothing residual
 * leaves the nodes at n, and that every excess sits there. Where it holds,
 * GCUT_GCNT_CERT = 1 and, like a phase-1 relabel, the cut side, the sink's
 * excess and the deficits left are written; else the heights are left
 * repaired as far as it went and a global relabel must follow. */
cudaError_t gcut__graph_certify_launch(const gcut__dgraph *g, cudaStream_t stream);

/* Count into GCUT_GCNT_LEFT the nodes other than s and t with non-zero
 * excess (must be none after phase 2). */
cudaError_t gcut__graph_count_left_launch(const gcut__dgraph *g, cudaStream_t stream);

/* Hong's asynchronous lock-free kernel (Wu, He and Hong, Algorithm 2): a thread
 * per node, `cycles` rounds of push-to-lowest-neighbour or lift, with
 * atomics; heights from the host's global relabel. */
cudaError_t gcut__graph_async_launch(const gcut__dgraph *g, int cycles, cudaStream_t stream);

/* The precoloring variant (Wu, He and Hong, Algorithm 3), one cycle in three
 * steps: choose (each active node picks its lowest residual neighbour:
 * an arc to push on if lower, else the height to lift to), push colour
 * `color` (only arcs of that colour: they share no node, so plain
 * arithmetic suffices), lift. */
cudaError_t gcut__graph_color_choose_launch(const gcut__dgraph *g, int32_t hmax,
                                            cudaStream_t stream);
cudaError_t gcut__graph_color_push_launch(const gcut__dgraph *g, int32_t color,
                                          cudaStream_t stream);
cudaError_t gcut__graph_color_lift_launch(const gcut__dgraph *g, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
