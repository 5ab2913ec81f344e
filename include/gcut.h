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
 * result (flow, labels, residuals) until the next solve or change. */
gcut_status gcut_grid_solve(gcut_grid *grid, const char *algo, gcut_solve_info *info);

/* Shorthand for gcut_grid_solve(grid, NULL, ...) returning the flow. */
gcut_status gcut_grid_maxflow(gcut_grid *grid, int64_t *flow);

/* After a solve: labels[y*width + x] = 1 for pixels on the source side of
 * the minimum cut, 0 for the sink side. */
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

#ifdef __cplusplus
}
#endif

#endif /* GCUT_H */
