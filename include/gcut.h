/*
 * gcut: exact minimum cut / maximum flow for computer vision.
 *
 * The one public header of libgcut. Conventions (see STYLE.md):
 * - opaque handles; constructors return them through `T **out`; every
 *   `_destroy` accepts NULL;
 * - every call that can fail returns a gcut_status, and gcut_last_error()
 *   gives a one-line message naming the value, file or line at fault;
 * - capacities are int32_t >= 0, flow totals int64_t; anything that could
 *   overflow is refused when the graph is built (GCUT_E_OVERFLOW);
 * - the caller owns its buffers; the library copies what it keeps;
 * - the library never prints and never exits: messages for a person go
 *   through the optional log callback of the context.
 */
#ifndef GCUT_H
#define GCUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GCUT_VERSION_MAJOR 0
#define GCUT_VERSION_MINOR 1
#define GCUT_VERSION_PATCH 0

/* ------------------------------------------------------------------------
 * Status codes
 * ---------------------------------------------------------------------- */

typedef enum gcut_status {
    GCUT_OK = 0,
    GCUT_E_INVALID,     /* an argument is NULL, out of range or inconsistent */
    GCUT_E_NOMEM,       /* host memory could not be allocated */
    GCUT_E_IO,          /* a file could not be opened, read or written */
    GCUT_E_FORMAT,      /* a file is malformed: bad header, unknown line */
    GCUT_E_RANGE,       /* a value in a file is out of range (node id, negative capacity) */
    GCUT_E_OVERFLOW,    /* a capacity or a sum of capacities would overflow */
    GCUT_E_NOTGRID,     /* a graph file is not a grid graph (no hint, non-grid arc) */
    GCUT_E_TRUNCATED,   /* a file ends before all it announced was read */
    GCUT_E_NODEVICE,    /* no usable GPU (none, no driver, or not built with CUDA) */
    GCUT_E_DEVICE,      /* a GPU call failed */
    GCUT_E_DEVICE_NOMEM,/* the GPU has not enough free memory */
    GCUT_E_UNSUPPORTED, /* this build or this solver lacks the feature asked for */
    GCUT_E_STATE,       /* the call is out of order (e.g. labels before a solve) */
    GCUT_E_VERIFY       /* a solution's proof did not check */
} gcut_status;

/* A short fixed name for a status, e.g. "invalid argument". */
const char *gcut_status_str(gcut_status status);

/* "MAJOR.MINOR.PATCH". */
const char *gcut_version(void);

/* 1 when this library was built with CUDA support, else 0. */
int gcut_cuda_built(void);

/* ------------------------------------------------------------------------
 * Context: options, devices, the last error
 * ---------------------------------------------------------------------- */

typedef struct gcut_context gcut_context;

typedef enum gcut_device {
    GCUT_DEVICE_AUTO = 0, /* the GPU when one is usable, else the CPU (and say so) */
    GCUT_DEVICE_CPU,
    GCUT_DEVICE_GPU       /* fail with GCUT_E_NODEVICE when no GPU is usable */
} gcut_device;

/* Progress: `stage` names the work, `fraction` is in [0, 1] (or -1 if unknown).
 * Return non-zero to ask the library to stop early (it then returns
 * GCUT_E_STATE from the running call). */
typedef int (*gcut_progress_fn)(void *user, const char *stage, double fraction);

/* Messages for a person (e.g. "no GPU: running on the CPU"), level 1 = notice,
 * 2 = detail, 3 = debug; only levels <= verbosity are passed. */
typedef void (*gcut_log_fn)(void *user, int level, const char *message);

typedef struct gcut_options {
    gcut_device device;        /* default GCUT_DEVICE_AUTO */
    int gpu_index;             /* which GPU, default 0 */
    int verbosity;             /* 0 silent (default), 1 notices, 2 details, 3 debug */
    gcut_log_fn log;           /* may be NULL */
    void *log_user;
    gcut_progress_fn progress; /* may be NULL */
    void *progress_user;
    int threads;               /* CPU threads of the parallel grid cut ("pbk"), 0..64;
                                  0 (default) = one per online CPU, and plain BK on
                                  grids too small to pay for threads. The answer is
                                  the same for any number. */
} gcut_options;

/* Fill `options` with the defaults. */
void gcut_options_init(gcut_options *options);

/* Create a context; `options` may be NULL for the defaults. */
gcut_status gcut_context_create(const gcut_options *options, gcut_context **out);

/* Release a context and every device buffer it keeps. NULL is a no-op. */
void gcut_context_destroy(gcut_context *ctx);

/* The options the context was made with. */
const gcut_options *gcut_context_options(const gcut_context *ctx);

/* The message of the last failed call on this context ("" if none). Valid
 * until the next call on the context. */
const char *gcut_last_error(const gcut_context *ctx);

/* Number of usable GPUs; 0 (and GCUT_OK) when there is none, no driver, or
 * no CUDA in this build. */
gcut_status gcut_device_count(gcut_context *ctx, int *count);

/* The name of GPU `index`, e.g. "NVIDIA H100 80GB HBM3". */
gcut_status gcut_device_name(gcut_context *ctx, int index, char *buf, size_t buf_size);

/* ------------------------------------------------------------------------
 * Grid graphs (Kolmogorov style): width x height pixels, 4 or 8 neighbours,
 * a source and a sink. Pixel (x, y) is node y*width + x.
 * ---------------------------------------------------------------------- */

typedef struct gcut_grid gcut_grid;

/* Directions of an arc from a pixel to its neighbour. Opposites differ in the
 * lowest bit: opposite(d) == d ^ 1. 4-connected grids use the first four. */
typedef enum gcut_dir {
    GCUT_DIR_E = 0,  /* (x+1, y)   */
    GCUT_DIR_W = 1,  /* (x-1, y)   */
    GCUT_DIR_S = 2,  /* (x, y+1)   */
    GCUT_DIR_N = 3,  /* (x, y-1)   */
    GCUT_DIR_NE = 4, /* (x+1, y-1) */
    GCUT_DIR_SW = 5, /* (x-1, y+1) */
    GCUT_DIR_SE = 6, /* (x+1, y+1) */
    GCUT_DIR_NW = 7  /* (x-1, y-1) */
} gcut_dir;

/* The neighbour offset of a direction. */
void gcut_dir_offset(gcut_dir dir, int *dx, int *dy);

/* Create a grid with all capacities zero. connectivity is 4 or 8. */
gcut_status gcut_grid_create(gcut_context *ctx, int width, int height, int connectivity,
                             gcut_grid **out);

/* Release a grid. NULL is a no-op. */
void gcut_grid_destroy(gcut_grid *grid);

int gcut_grid_width(const gcut_grid *grid);
int gcut_grid_height(const gcut_grid *grid);
int gcut_grid_connectivity(const gcut_grid *grid);

/* Terminal capacities of one pixel: source -> pixel and pixel -> sink
 * (replacing earlier values, as BK's add_tweights would add them). */
gcut_status gcut_grid_set_terminal(gcut_grid *grid, int x, int y, int32_t source_cap,
                                   int32_t sink_cap);

/* Terminal capacities of every pixel from two row-major arrays of
 * width*height values; either may be NULL to leave that side unchanged. */
gcut_status gcut_grid_set_terminals(gcut_grid *grid, const int32_t *source_caps,
                                    const int32_t *sink_caps);

/* Capacity of the arc from pixel (x, y) to its neighbour in direction `dir`.
 * The neighbour must lie inside the grid. */
gcut_status gcut_grid_set_edge(gcut_grid *grid, int x, int y, gcut_dir dir, int32_t cap);

/* Capacities of every arc in direction `dir` from a row-major array of
 * width*height values (the arc leaving each pixel); entries whose neighbour
 * falls outside the grid must be 0. */
gcut_status gcut_grid_set_edges(gcut_grid *grid, gcut_dir dir, const int32_t *caps);

/* Read back what was set. */
gcut_status gcut_grid_get_terminal(const gcut_grid *grid, int x, int y, int32_t *source_cap,
                                   int32_t *sink_cap);
gcut_status gcut_grid_get_edge(const gcut_grid *grid, int x, int y, gcut_dir dir, int32_t *cap);

/* What a solve reports. */
typedef struct gcut_solve_info {
    int64_t flow;        /* the maximum flow value = the minimum cut capacity */
    double time_ms;      /* the solver's time, graph setup excluded */
    const char *device;  /* "cpu" or the GPU's name (static storage) */
    const char *algo;    /* the solver that ran, e.g. "bk" */
    int64_t iterations;  /* solver-specific: augmentations (bk), sweeps (GPU) */
} gcut_solve_info;

/* The grid solvers this build has, comma-separated (e.g. "bk"). */
const char *gcut_grid_algorithms(void);

/* Solve: maximum flow and a minimum cut. `algo` NULL picks the default for
 * the context's device; `info` may be NULL. Refuses a graph whose capacities
 * could overflow (GCUT_E_OVERFLOW, naming the pixel). The grid keeps the
 * result (flow, labels, residuals) until the next solve or change.
 * Re-solves are incremental with "bk": after a BK solve the grid keeps BK's
 * flow and search trees, and a later BK solve on the same grid, after any
 * capacity changes through the setters (terminals or n-links, up or down),
 * starts from them (Kohli-Torr dynamic cuts: flows above a lowered
 * capacity are cut back and repaired) instead of from zero. The answer is
 * as exact as a fresh solve's: the maximum flow of the new capacities, with
 * a proof gcut_grid_verify() accepts. A solve by another algorithm (a GPU
 * one, or pbk) ends this: the next BK solve starts fresh. The kept state
 * costs about 30 bytes per pixel until gcut_grid_destroy().
 * "pbk" is BK on gcut_options.threads CPU threads (Liu and Sun, CVPR 2010:
 * BK in row strips, then pairwise merges continuing BK to one exact
 * maximum flow); the same flow value and labels as "bk" for any thread
 * count, every solve from zero, plain BK where threads would not pay. */
gcut_status gcut_grid_solve(gcut_grid *grid, const char *algo, gcut_solve_info *info);

/* Shorthand for gcut_grid_solve(grid, NULL, ...) returning the flow. */
gcut_status gcut_grid_maxflow(gcut_grid *grid, int64_t *flow);

/* After a solve: labels[y*width + x] = 1 for pixels on the source side of
 * the minimum cut, 0 for the sink side. The source side is the pixels that
 * cannot reach the sink in the final residual graph, the largest source
 * side of any minimum cut: one set, whichever solver or device ran. */
gcut_status gcut_grid_labels(const gcut_grid *grid, uint8_t *labels);

/* Check the last solve's proof: the residuals describe a feasible flow
 * (capacities and conservation) whose value equals the reported flow, and
 * the labels' cut has that same capacity. GCUT_E_VERIFY with the first
 * violation named otherwise. `cut_capacity` may be NULL. */
gcut_status gcut_grid_verify(gcut_grid *grid, int64_t *cut_capacity);

/* Capacity of the cut given by `labels` (1 = source side) on this grid. */
gcut_status gcut_grid_cut_capacity(const gcut_grid *grid, const uint8_t *labels,
                                   int64_t *capacity);

/* ------------------------------------------------------------------------
 * Grid graph files: DIMACS max-flow with a grid hint.
 *   c grid W H CONN      (CONN 4 or 8)
 *   p max N M            N = W*H + 2
 *   n W*H+1 s / n W*H+2 t
 *   a u v cap            pixel->pixel arcs between neighbours, s->p, p->t
 * Parallel arcs add up. Errors name the line.
 * ---------------------------------------------------------------------- */

/* Read a grid graph file. */
gcut_status gcut_grid_read_dimacs(gcut_context *ctx, const char *path, gcut_grid **out);

/* Write a grid graph file (to a temporary, renamed into place). */
gcut_status gcut_grid_write_dimacs(const gcut_grid *grid, const char *path);

/* ------------------------------------------------------------------------
 * General graphs: a directed graph with a source and a sink, int32
 * capacities >= 0, nodes 0..n-1 (DIMACS files number them from 1).
 * Parallel arcs are summed and self-loops dropped when the graph is built;
 * both are counted in the stats. The graph's arcs are the distinct
 * (tail, head) pairs that remain, numbered 0..arcs-1 in order of tail, then
 * head.
 * ---------------------------------------------------------------------- */

typedef struct gcut_graph gcut_graph;

typedef struct gcut_graph_stats {
    int32_t nodes;
    int64_t arcs_in;         /* arcs given (file lines or array entries) */
    int32_t arcs;            /* distinct arcs kept */
    int64_t parallel_merged; /* arcs summed into an earlier arc with the same ends */
    int64_t self_loops;      /* arcs u -> u dropped */
    int32_t source, sink;
} gcut_graph_stats;

/* Build a graph of n >= 2 nodes from m arcs tail[i] -> head[i] of capacity
 * cap[i] >= 0 (0-based ids; the arrays are copied). GCUT_E_RANGE naming the
 * arc for a bad id or capacity; GCUT_E_OVERFLOW when parallel arcs sum past
 * INT32_MAX or there are 2^30 distinct arcs or more. */
gcut_status gcut_graph_create_from_arcs(gcut_context *ctx, int32_t n, int64_t m,
                                        const int32_t *tail, const int32_t *head,
                                        const int32_t *cap, int32_t source, int32_t sink,
                                        gcut_graph **out);

/* Read a DIMACS max-flow file: "c" comments, one "p max N M", "n ID s",
 * "n ID t", then M lines "a U V CAP". Errors name PATH:LINE with distinct
 * statuses: GCUT_E_IO (cannot read), GCUT_E_FORMAT (bad or unknown line,
 * missing or repeated p/s/t, more arcs than announced), GCUT_E_RANGE (node
 * id outside 1..N, negative capacity), GCUT_E_OVERFLOW (capacity or sum of
 * parallel capacities past INT32_MAX, too many nodes or arcs),
 * GCUT_E_TRUNCATED (fewer arcs than announced). */
gcut_status gcut_graph_read_dimacs(gcut_context *ctx, const char *path, gcut_graph **out);

/* Write the graph as DIMACS (to a temporary, renamed into place). */
gcut_status gcut_graph_write_dimacs(const gcut_graph *graph, const char *path);

/* Release a graph. NULL is a no-op. */
void gcut_graph_destroy(gcut_graph *graph);

int32_t gcut_graph_nodes(const gcut_graph *graph);
int32_t gcut_graph_arcs(const gcut_graph *graph);
int32_t gcut_graph_source(const gcut_graph *graph);
int32_t gcut_graph_sink(const gcut_graph *graph);
gcut_status gcut_graph_get_stats(const gcut_graph *graph, gcut_graph_stats *stats);

/* Arc `arc` (0..arcs-1): its ends and (summed) capacity. */
gcut_status gcut_graph_arc(const gcut_graph *graph, int32_t arc, int32_t *tail, int32_t *head,
                           int32_t *cap);

/* The general-graph solvers this build has, comma-separated: "prf,bk", and
 * with CUDA also the GPU solvers "worklist,async,color". */
const char *gcut_graph_algorithms(void);

/* Ask a solve for a feasible flow on every arc, not only the cut and value
 * (push-relabel then runs its second phase inside the timed solve). */
#define GCUT_GRAPH_SOLVE_FLOW 1u

/* Solve: maximum flow value and a minimum cut. `algo` NULL picks the
 * default for the context's device: "worklist" on a usable GPU (auto or
 * gpu), else "prf"; GCUT_DEVICE_AUTO without a usable GPU, or without room
 * on it, runs on the CPU and says so through the log; GCUT_DEVICE_GPU
 * without one fails with GCUT_E_NODEVICE. A named algorithm must run on the
 * device asked for (GCUT_E_INVALID otherwise). GPU solvers: "worklist"
 * (ECL-MaxFlow-style worklist push-relabel, the default), "async" (Hong's
 * lock-free kernel, host global relabel), "color" (precoloring, nodes of at
 * most 512 arcs, else GCUT_E_UNSUPPORTED). `flags` 0 or
 * GCUT_GRAPH_SOLVE_FLOW; `info` may be NULL (info->device is "cpu" or the
 * GPU's name). The graph keeps the result until the next solve.
 * info->iterations counts relabels (prf), augmentations (bk), push-relabel
 * iterations (worklist), cycles (color) or kernel launches (async). */
gcut_status gcut_graph_solve(gcut_graph *graph, const char *algo, unsigned flags,
                             gcut_solve_info *info);

/* After a solve: flow[a] for every arc (a feasible maximum flow; computed
 * here if the solve did not ask for it). */
gcut_status gcut_graph_arc_flows(gcut_graph *graph, int32_t *flow);

/* After a solve: side[v] = 1 for nodes on the source side of the minimum
 * cut (those that cannot reach the sink in the residual graph), else 0. */
gcut_status gcut_graph_cut_side(const gcut_graph *graph, uint8_t *side);

/* Capacity of the cut given by `side` (1 = source side). */
gcut_status gcut_graph_cut_capacity(const gcut_graph *graph, const uint8_t *side,
                                    int64_t *capacity);

/* Check the last solve's proof: every arc's flow within [0, cap],
 * conservation at every node but the source and the sink, the flow's value
 * equal to the reported value, the source on the source side, the sink not,
 * and the cut's capacity equal to the value. GCUT_E_VERIFY naming the first
 * violation otherwise. Computes the feasible flow first if needed.
 * `cut_capacity` may be NULL. */
gcut_status gcut_graph_verify(gcut_graph *graph, int64_t *cut_capacity);

/* Write the solution (after a solve, to temporaries renamed into place):
 * the flow as DIMACS solution lines ("s VALUE", then "f U V X" per arc,
 * 1-based) and the source side of the cut (one 1-based node id a line). */
gcut_status gcut_graph_write_flow(gcut_graph *graph, const char *path);
gcut_status gcut_graph_write_cut(const gcut_graph *graph, const char *path);

/* ------------------------------------------------------------------------
 * Images: PNG (libpng: 1-16 bits; grey, grey+alpha, RGB, RGBA, palette),
 * JPEG (libjpeg-turbo) and binary PNM (P5/P6, maxval up to 65535) in;
 * PNG, PNM, and with stb_image_write also JPEG and BMP, out. In memory an
 * image has 8 bits per sample (16-bit files are rounded), rows packed.
 * ---------------------------------------------------------------------- */

typedef struct gcut_image gcut_image;

/* Images over this many pixels are refused before anything is allocated. */
#define GCUT_IMAGE_MAX_PIXELS ((int64_t)1 << 28)

/* Load an image, recognised by its content. Malformed, truncated or corrupt
 * files give GCUT_E_FORMAT with a message naming the file. */
gcut_status gcut_image_load(gcut_context *ctx, const char *path, gcut_image **out);

/* Release an image. NULL is a no-op. */
void gcut_image_destroy(gcut_image *image);

int gcut_image_width(const gcut_image *image);
int gcut_image_height(const gcut_image *image);
/* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (palette files: RGB, or RGBA with tRNS). */
int gcut_image_channels(const gcut_image *image);
/* Bits per sample in the file (1, 2, 4, 8, 12 or 16). */
int gcut_image_bit_depth(const gcut_image *image);
/* width*height*channels samples, row-major, stride width*channels. */
const uint8_t *gcut_image_pixels(const gcut_image *image);
/* Palette images: the palette index of each pixel (width*height); else NULL. */
const uint8_t *gcut_image_indices(const gcut_image *image);
/* The path it was loaded from. */
const char *gcut_image_path(const gcut_image *image);

/* Save caller-owned pixels (1-4 channels of 8 bits) by the path's extension:
 * .png, .pgm, .ppm, and .jpg/.jpeg (quality 95) and .bmp when
 * gcut_image_stb_built(). PNG goes through stb_image_write when built in,
 * else libpng. Written to a temporary and renamed: never a partial file. */
gcut_status gcut_image_save(gcut_context *ctx, const char *path, const uint8_t *pixels,
                            int width, int height, int channels, size_t stride_bytes);

/* Save as PNG through libpng, whatever the extension. */
gcut_status gcut_image_save_png(gcut_context *ctx, const char *path, const uint8_t *pixels,
                                int width, int height, int channels, size_t stride_bytes);

/* 1 when this library has stb_image_write (JPEG and BMP output), else 0. */
int gcut_image_stb_built(void);

/* ------------------------------------------------------------------------
 * Segmentation: image + seeds -> foreground mask (Boykov-Jolly 2001 energy,
 * GrabCut's iterated colour models, Rother et al. 2004).
 *
 * Seeds are one byte per pixel, row-major: GCUT_SEED_NONE, GCUT_SEED_FG or
 * GCUT_SEED_BG. The energy of a labelling L (1 = foreground) is
 *   E(L) = sum_p D_p(L_p) + sum_{p~q, L_p != L_q} w_pq
 *   D_p(l) = -log P(I_p | colour model of l), w_pq = lambda *
 *   exp(-beta |I_p - I_q|^2) / dist(p, q), beta = 1 / (2 mean |I_p - I_q|^2),
 * seeded pixels fixed by terminal capacity K = 1 + the largest sum of a
 * pixel's n-link capacities. Capacities are the terms times
 * GCUT_SEGMENT_SCALE, rounded to int32; region terms are clamped to
 * GCUT_SEGMENT_MAX_REGION nats and lambda to GCUT_SEGMENT_MAX_LAMBDA, so
 * that no pixel's capacities can add up past INT32_MAX (and it is checked).
 * ---------------------------------------------------------------------- */

typedef enum gcut_seed {
    GCUT_SEED_NONE = 0, /* unknown: the cut decides */
    GCUT_SEED_FG = 1,   /* foreground (the source side), fixed */
    GCUT_SEED_BG = 2    /* background (the sink side), fixed */
} gcut_seed;

/* Capacities are energies (nats) times this, rounded. */
#define GCUT_SEGMENT_SCALE 1024.0
/* The largest region term -log P kept (nats); larger ones are clamped. */
#define GCUT_SEGMENT_MAX_REGION 80.0
/* The largest lambda accepted. */
#define GCUT_SEGMENT_MAX_LAMBDA 10000.0

/* Add scribbles to `seeds` (width*height). A palette image: index 1 marks
 * foreground, 2 background (the GrabCut benchmark's scribble files); any
 * other image: pixels of colour `fg_rgb` foreground, `bg_rgb` background
 * (NULL: pure red and pure blue; grey images compare their grey level with
 * the colour's red). A size that differs from width x height is an error
 * naming both sizes; so is a pixel marked both ways by two seed sources. */
gcut_status gcut_seeds_add_scribbles(gcut_context *ctx, uint8_t *seeds, int width, int height,
                                     const gcut_image *scribbles, const uint8_t *fg_rgb,
                                     const uint8_t *bg_rgb);

/* Add a trimap (first channel: 0 background, 255 foreground, else unknown). */
gcut_status gcut_seeds_add_trimap(gcut_context *ctx, uint8_t *seeds, int width, int height,
                                  const gcut_image *trimap);

/* GrabCut's rectangle: every pixel outside x1..x2, y1..y2 (inclusive) is
 * background, unless already marked foreground. The box must lie inside the
 * image, with x1 <= x2 and y1 <= y2. */
gcut_status gcut_seeds_add_box(gcut_context *ctx, uint8_t *seeds, int width, int height, int x1,
                               int y1, int x2, int y2);

typedef enum gcut_color_model {
    GCUT_MODEL_GMM = 0, /* full-covariance Gaussian mixtures (GrabCut) */
    GCUT_MODEL_HIST     /* smoothed colour histograms (Boykov-Jolly) */
} gcut_color_model;

typedef struct gcut_segment_options {
    gcut_color_model model; /* default GCUT_MODEL_GMM */
    int components;         /* GMM components per model, 1..32, default 5 */
    int iterations;         /* at most this many cuts (GrabCut re-estimation), >= 1;
                               between cuts the foreground model is re-fitted to the
                               cut's foreground joined to a foreground seed, the
                               background model to the rest */
    double lambda;          /* weight of the boundary term, 0..GCUT_SEGMENT_MAX_LAMBDA */
    int connectivity;       /* 4 or 8 (default) */
    int verify;             /* check every cut's proof (gcut_grid_verify) */
    const char *algo;       /* grid solver; NULL: the GPU's default on a GPU, else "pbk"
                               (BK on the CPU's threads) */
    const char *save_graph; /* when set, the last cut's graph is written there (DIMACS grid) */
    int threads;            /* CPU threads for the colour models, the graph and the cut,
                               0..64; 0 (default) = the context's count (one per online
                               CPU unless set). The result is the same for any number. */
} gcut_segment_options;

/* What a segmentation reports. Times in milliseconds. */
typedef struct gcut_segment_info {
    int64_t flow;          /* maximum flow of the last cut (scaled capacities) */
    double energy;         /* E(L) of the result, nats, under the last models */
    int64_t foreground;    /* foreground pixel count */
    int iterations;        /* cuts made */
    double beta;           /* the contrast constant used */
    int32_t hard_cap;      /* K, the seeds' terminal capacity */
    double time_model_ms;  /* fitting and evaluating colour models */
    double time_graph_ms;  /* n-links, terminals, graph set-up */
    double time_cut_ms;    /* the solver */
    const char *device;    /* where the cuts ran: "cpu" or the GPU's name */
    const char *algo;      /* the solver */
} gcut_segment_info;

/* Fill `options` with the defaults. */
void gcut_segment_options_init(gcut_segment_options *options);

/* Segment caller-owned pixels (channels 1-4 of 8 bits; alpha is ignored)
 * given `seeds` (width*height, at least one background seed, and at least
 * one foreground seed or one unseeded pixel). Writes mask[y*width + x] = 1
 * for foreground, 0 for background; `options` and `info` may be NULL. */
gcut_status gcut_segment_image(gcut_context *ctx, const uint8_t *pixels, int width, int height,
                               int channels, size_t stride_bytes, const uint8_t *seeds,
                               const gcut_segment_options *options, uint8_t *mask,
                               gcut_segment_info *info);

/* ------------------------------------------------------------------------
 * Dynamic general graphs: capacity changes after a solve, and a re-solve
 * from the last flow instead of from zero (Kannappan et al., "Scalable
 * Maxflow Processing for Dynamic Graphs").
 * ---------------------------------------------------------------------- */

/* With gcut_graph_update(): arcs that do not exist yet are added (with the
 * new capacity) instead of refused. */
#define GCUT_GRAPH_UPDATE_ADD 1u

/* With gcut_graph_solve(): start from zero even after an update. */
#define GCUT_GRAPH_SOLVE_SCRATCH 2u

/* Set the capacity of the arcs tails[i] -> heads[i] (0-based) to
 * new_capacities[i] >= 0, for i in 0..count-1, in order (a repeated arc
 * takes its last value). Raises, cuts and zeroes alike; parallel arcs were
 * summed when the graph was built, so the new value is the pair's total.
 * GCUT_E_RANGE naming the update for a node outside 0..n-1, a self-loop, a
 * negative capacity, or (without GCUT_GRAPH_UPDATE_ADD) an arc the graph
 * does not have; a refused batch changes nothing. Adding arcs renumbers
 * the arcs (gcut_graph_arc) and costs a rebuild of the graph.
 * After a solve the graph keeps that solve's flow through the update (flow
 * above a lowered capacity is cut back to it), and the next
 * gcut_graph_solve() with "prf" (the CPU default) continues from it: only
 * the work the changes cause, and the same exact answer as a fresh solve
 * (the flow value, the same cut side, a feasible flow on request, a proof
 * gcut_graph_verify() accepts). Other solvers start from zero. The last
 * result is gone until the next solve. */
gcut_status gcut_graph_update(gcut_graph *graph, int64_t count, const int32_t *tails,
                              const int32_t *heads, const int32_t *new_capacities, unsigned flags);

/* The index of the arc tail -> head (0-based) in *arc; GCUT_E_RANGE when
 * the graph has no such arc or a node is out of range. */
gcut_status gcut_graph_find_arc(const gcut_graph *graph, int32_t tail, int32_t head,
                                int32_t *arc);

#ifdef __cplusplus
}
#endif

#endif /* GCUT_H */
