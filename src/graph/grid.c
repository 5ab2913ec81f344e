/* Grid graph construction and access: create, set and read capacities. */
#include "graph/grid.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/big_alloc.h"
#include "core/memory_budget.h"
#include "gpu/gpu.h"

/* Bytes to build and solve a grid, per padded pixel and direction (a
 * capacity and a residual) and per padded pixel (two terminal capacities,
 * the label, BK's kept state of about 30 bytes). */
#define GRID_BYTES_PER_ARC 8
#define GRID_BYTES_PER_PIXEL 40

static const int dir_dx[GCUT__MAX_DIRS] = {1, -1, 0, 0, 1, -1, 1, -1};
static const int dir_dy[GCUT__MAX_DIRS] = {0, 0, 1, -1, -1, 1, 1, -1};
static const char *const dir_names[GCUT__MAX_DIRS] = {"E", "W", "S", "N", "NE", "SW", "SE", "NW"};

void gcut_dir_offset(gcut_dir dir, int *dx, int *dy)
{
    int d = (int)dir & 7;
    if (dx)
        *dx = dir_dx[d];
    if (dy)
        *dy = dir_dy[d];
}

const char *gcut__dir_name(int dir) { return dir_names[dir & 7]; }

gcut_status gcut_grid_create(gcut_context *ctx, int width, int height, int connectivity,
                             gcut_grid **out)
{
    if (!out)
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: no place for the result");
    *out = NULL;
    if (width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: size %dx%d is not positive", width,
                          height);
    if (connectivity != 4 && connectivity != 8)
        return gcut__fail(ctx, GCUT_E_INVALID, "grid: connectivity %d is not 4 or 8",
                          connectivity);
    /* Node indices are int32: the padded raster must fit. */
    int64_t padded = ((int64_t)width + 2) * ((int64_t)height + 2);
    if (padded > INT32_MAX)
        return gcut__fail(ctx, GCUT_E_OVERFLOW,
                          "grid: %dx%d has too many pixels (at most about 2^31)", width, height);
    char what[96];
    snprintf(what, sizeof what, "grid: %dx%d pixels, %d-connected,", width, height, connectivity);
    gcut_status budget = gcut__memory_check(
        ctx, what, padded * (GRID_BYTES_PER_ARC * connectivity + GRID_BYTES_PER_PIXEL));
    if (budget)
        return budget;

    gcut_grid *g = calloc(1, sizeof *g);
    if (!g)
        return gcut__fail(ctx, GCUT_E_NOMEM, "grid: out of memory");
    g->ctx = ctx;
    g->width = width;
    g->height = height;
    g->conn = connectivity;
    g->ndirs = connectivity;
    g->pitch = width + 2;
    g->n_padded = (int32_t)padded;
    for (int d = 0; d < GCUT__MAX_DIRS; d++)
        g->offset[d] = dir_dx[d] + dir_dy[d] * g->pitch;

    size_t n = (size_t)padded;
    int ok = 1;
    for (int d = 0; d < g->ndirs; d++)
        ok &= (g->cap[d] = calloc(n, sizeof(int32_t))) != NULL;
    ok &= (g->source_cap = calloc(n, sizeof(int32_t))) != NULL;
    ok &= (g->sink_cap = calloc(n, sizeof(int32_t))) != NULL;
    if (!ok) {
        gcut_grid_destroy(g);
        return gcut__fail(ctx, GCUT_E_NOMEM, "grid: out of memory for %dx%d pixels", width,
                          height);
    }
    *out = g;
    return GCUT_OK;
}

void gcut_grid_destroy(gcut_grid *g)
{
    if (!g)
        return;
    if (g->res_on_device)
        gcut__gpu_grid_forget(g);
    for (int d = 0; d < GCUT__MAX_DIRS; d++) {
        free(g->cap[d]);
        free(g->res[d]);
    }
    free(g->source_cap);
    free(g->sink_cap);
    free(g->label);
    if (g->warm)
        g->warm->release(g);
    free(g);
}

void gcut__grid_forget_warm(gcut_grid *g)
{
    if (g && g->warm)
        g->warm->forget(g);
}

int gcut_grid_width(const gcut_grid *g) { return g ? g->width : 0; }
int gcut_grid_height(const gcut_grid *g) { return g ? g->height : 0; }
int gcut_grid_connectivity(const gcut_grid *g) { return g ? g->conn : 0; }

static gcut_status check_pixel(const gcut_grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->width || y >= g->height)
        return gcut__fail(g->ctx, GCUT_E_INVALID, "grid: pixel (%d, %d) is outside %dx%d", x, y,
                          g->width, g->height);
    return GCUT_OK;
}

static gcut_status check_dir(const gcut_grid *g, int x, int y, gcut_dir dir)
{
    if ((int)dir < 0 || (int)dir >= g->ndirs)
        return gcut__fail(g->ctx, GCUT_E_INVALID,
                          "grid: direction %d is not one of a %d-connected grid", (int)dir,
                          g->conn);
    int nx = x + dir_dx[dir], ny = y + dir_dy[dir];
    if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height)
        return gcut__fail(g->ctx, GCUT_E_INVALID,
                          "grid: the %s neighbour of pixel (%d, %d) is outside %dx%d",
                          dir_names[dir], x, y, g->width, g->height);
    return GCUT_OK;
}

gcut_status gcut_grid_set_terminal(gcut_grid *g, int x, int y, int32_t source_cap,
                                   int32_t sink_cap)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_status st = check_pixel(g, x, y);
    if (st)
        return st;
    if (source_cap < 0 || sink_cap < 0)
        return gcut__fail(g->ctx, GCUT_E_INVALID,
                          "grid: negative terminal capacity at pixel (%d, %d)", x, y);
    int32_t i = gcut__grid_node(g, x, y);
    if (g->warm && (g->source_cap[i] != source_cap || g->sink_cap[i] != sink_cap))
        g->warm->note_terminal(g, i);
    g->source_cap[i] = source_cap;
    g->sink_cap[i] = sink_cap;
    g->solved = 0;
    return GCUT_OK;
}

/* Copy one row-major array into a padded one, refusing negative values. */
static gcut_status copy_terminals(gcut_grid *g, int32_t *dst, const int32_t *src,
                                  const char *what)
{
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++)
            if (src[(size_t)y * g->width + x] < 0)
                return gcut__fail(g->ctx, GCUT_E_INVALID,
                                  "grid: negative %s capacity at pixel (%d, %d)", what, x, y);
    /* After a warm solve, the next one redoes only the pixels that change. */
    if (g->warm)
        for (int y = 0; y < g->height; y++) {
            int32_t row = gcut__grid_node(g, 0, y);
            for (int x = 0; x < g->width; x++)
                if (dst[row + x] != src[(size_t)y * g->width + x])
                    g->warm->note_terminal(g, row + x);
        }
    for (int y = 0; y < g->height; y++)
        memcpy(dst + gcut__grid_node(g, 0, y), src + (size_t)y * g->width,
               (size_t)g->width * sizeof(int32_t));
    return GCUT_OK;
}

gcut_status gcut_grid_set_terminals(gcut_grid *g, const int32_t *source_caps,
                                    const int32_t *sink_caps)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_status st = GCUT_OK;
    if (source_caps)
        st = copy_terminals(g, g->source_cap, source_caps, "source");
    if (!st && sink_caps)
        st = copy_terminals(g, g->sink_cap, sink_caps, "sink");
    g->solved = 0;
    return st;
}

gcut_status gcut_grid_set_edge(gcut_grid *g, int x, int y, gcut_dir dir, int32_t cap)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_status st = check_pixel(g, x, y);
    if (!st)
        st = check_dir(g, x, y, dir);
    if (st)
        return st;
    if (cap < 0)
        return gcut__fail(g->ctx, GCUT_E_INVALID,
                          "grid: negative capacity %d on the %s arc of pixel (%d, %d)", cap,
                          dir_names[dir], x, y);
    int32_t i = gcut__grid_node(g, x, y);
    if (g->warm && g->cap[dir][i] != cap)
        g->warm->note_edge(g, i, (int)dir, cap);
    g->cap[dir][i] = cap;
    g->solved = 0;
    return GCUT_OK;
}

gcut_status gcut_grid_set_edges(gcut_grid *g, gcut_dir dir, const int32_t *caps)
{
    if (!g || !caps)
        return g ? gcut__fail(g->ctx, GCUT_E_INVALID, "grid: no capacity array") : GCUT_E_INVALID;
    if ((int)dir < 0 || (int)dir >= g->ndirs)
        return gcut__fail(g->ctx, GCUT_E_INVALID,
                          "grid: direction %d is not one of a %d-connected grid", (int)dir,
                          g->conn);
    for (int y = 0; y < g->height; y++) {
        int ny = y + dir_dy[dir];
        for (int x = 0; x < g->width; x++) {
            int32_t c = caps[(size_t)y * g->width + x];
            if (c < 0)
                return gcut__fail(g->ctx, GCUT_E_INVALID,
                                  "grid: negative capacity %d on the %s arc of pixel (%d, %d)",
                                  c, dir_names[dir], x, y);
            int nx = x + dir_dx[dir];
            if (c != 0 && (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height))
                return gcut__fail(g->ctx, GCUT_E_INVALID,
                                  "grid: capacity %d on the %s arc of pixel (%d, %d), whose "
                                  "neighbour is outside the grid",
                                  c, dir_names[dir], x, y);
        }
    }
    /* After a warm solve, each changed arc trims its flow to the new capacity. */
    if (g->warm)
        for (int y = 0; y < g->height; y++) {
            int32_t row = gcut__grid_node(g, 0, y);
            for (int x = 0; x < g->width; x++) {
                int32_t c = caps[(size_t)y * g->width + x];
                if (g->cap[dir][row + x] != c) {
                    g->warm->note_edge(g, row + x, (int)dir, c);
                    g->cap[dir][row + x] = c;
                }
            }
        }
    for (int y = 0; y < g->height; y++)
        memcpy(g->cap[dir] + gcut__grid_node(g, 0, y), caps + (size_t)y * g->width,
               (size_t)g->width * sizeof(int32_t));
    g->solved = 0;
    return GCUT_OK;
}

gcut_status gcut_grid_get_terminal(const gcut_grid *g, int x, int y, int32_t *source_cap,
                                   int32_t *sink_cap)
{
    if (!g)
        return GCUT_E_INVALID;
    gcut_status st = check_pixel(g, x, y);
    if (st)
        return st;
    int32_t i = gcut__grid_node(g, x, y);
    if (source_cap)
        *source_cap = g->source_cap[i];
    if (sink_cap)
        *sink_cap = g->sink_cap[i];
    return GCUT_OK;
}

gcut_status gcut_grid_get_edge(const gcut_grid *g, int x, int y, gcut_dir dir, int32_t *cap)
{
    if (!g || !cap)
        return GCUT_E_INVALID;
    gcut_status st = check_pixel(g, x, y);
    if (st)
        return st;
    if ((int)dir < 0 || (int)dir >= g->ndirs)
        return gcut__fail(g->ctx, GCUT_E_INVALID,
                          "grid: direction %d is not one of a %d-connected grid", (int)dir,
                          g->conn);
    *cap = g->cap[dir][gcut__grid_node(g, x, y)];
    return GCUT_OK;
}

gcut_status gcut__grid_alloc_labels(gcut_grid *g)
{
    if (!g->label && !(g->label = malloc((size_t)g->n_padded)))
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "grid: out of memory for the labels");
    return GCUT_OK;
}

gcut_status gcut__grid_alloc_solution(gcut_grid *g)
{
    size_t n = (size_t)g->n_padded;
    for (int d = 0; d < g->ndirs; d++)
        if (!g->res[d] && !(g->res[d] = gcut__big_alloc(n * sizeof(int32_t))))
            return gcut__fail(g->ctx, GCUT_E_NOMEM, "grid: out of memory for the residuals");
    return gcut__grid_alloc_labels(g);
}

gcut_status gcut__grid_check_overflow_node(gcut_grid *g, int32_t i)
{
    int64_t total = (int64_t)g->source_cap[i] + g->sink_cap[i];
    for (int d = 0; d < g->ndirs; d++)
        total += (int64_t)g->cap[d][i] + g->cap[d ^ 1][i + g->offset[d]];
    if (total <= INT32_MAX)
        return GCUT_OK;
    return gcut__fail(g->ctx, GCUT_E_OVERFLOW,
                      "grid: the capacities at pixel (%d, %d) add up to %lld, over the int32 "
                      "limit %d",
                      i % g->pitch - 1, i / g->pitch - 1, (long long)total, INT32_MAX);
}

gcut_status gcut__grid_check_overflow(gcut_grid *g)
{
    /* Row by row and direction by direction, so every array streams. */
    int64_t *total = malloc((size_t)g->width * sizeof *total);
    if (!total)
        return gcut__fail(g->ctx, GCUT_E_NOMEM, "grid: out of memory");
    gcut_status st = GCUT_OK;
    for (int y = 0; y < g->height && !st; y++) {
        int32_t row = gcut__grid_node(g, 0, y);
        for (int x = 0; x < g->width; x++)
            total[x] = (int64_t)g->source_cap[row + x] + g->sink_cap[row + x];
        for (int d = 0; d < g->ndirs; d++) {
            const int32_t *out = g->cap[d] + row;
            const int32_t *in = g->cap[d ^ 1] + row + g->offset[d];
            for (int x = 0; x < g->width; x++)
                total[x] += (int64_t)out[x] + in[x];
        }
        for (int x = 0; x < g->width; x++) {
            if (total[x] > INT32_MAX) {
                st = gcut__fail(g->ctx, GCUT_E_OVERFLOW,
                                "grid: the capacities at pixel (%d, %d) add up to %lld, over "
                                "the int32 limit %d",
                                x, y, (long long)total[x], INT32_MAX);
                break;
            }
        }
    }
    free(total);
    return st;
}
