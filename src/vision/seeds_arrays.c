/* Seeds from caller-owned arrays instead of image files: scribbles given as
 * palette indices and trimaps given as grey levels, for embedders (the
 * Python package) that hold their seeds in memory. The same rules as
 * seeds.c: a pixel that two sources mark opposite ways is an error. */
#include "core/context.h"
#include "gcut.h"

static gcut_status check_args(gcut_context *ctx, const uint8_t *seeds, int width, int height,
                              const uint8_t *values, const char *what)
{
    if (!seeds || width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "seeds: no seed array, or size %dx%d", width,
                          height);
    if (!values)
        return gcut__fail(ctx, GCUT_E_INVALID, "seeds: no %s array given", what);
    return GCUT_OK;
}

/* Mark pixel i; conflicting with an earlier explicit mark is an error. */
static gcut_status mark(gcut_context *ctx, uint8_t *seeds, int width, size_t i, uint8_t value,
                        const char *what)
{
    if (seeds[i] != GCUT_SEED_NONE && seeds[i] != value)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "seeds: the %s marks pixel (%d, %d) %s, but it is already marked %s",
                          what, (int)(i % (size_t)width), (int)(i / (size_t)width),
                          value == GCUT_SEED_FG ? "foreground" : "background",
                          seeds[i] == GCUT_SEED_FG ? "foreground" : "background");
    seeds[i] = value;
    return GCUT_OK;
}

gcut_status gcut_seeds_add_indices(gcut_context *ctx, uint8_t *seeds, int width, int height,
                                   const uint8_t *indices)
{
    gcut__clear_error(ctx);
    gcut_status st = check_args(ctx, seeds, width, height, indices, "scribble index");
    size_t n = (size_t)width * (size_t)height;
    for (size_t i = 0; i < n && !st; i++) {
        if (indices[i] == 1)
            st = mark(ctx, seeds, width, i, GCUT_SEED_FG, "scribble array");
        else if (indices[i] == 2)
            st = mark(ctx, seeds, width, i, GCUT_SEED_BG, "scribble array");
    }
    return st;
}

gcut_status gcut_seeds_add_levels(gcut_context *ctx, uint8_t *seeds, int width, int height,
                                  const uint8_t *levels)
{
    gcut__clear_error(ctx);
    gcut_status st = check_args(ctx, seeds, width, height, levels, "trimap");
    size_t n = (size_t)width * (size_t)height;
    for (size_t i = 0; i < n && !st; i++) {
        if (levels[i] == 0)
            st = mark(ctx, seeds, width, i, GCUT_SEED_BG, "trimap array");
        else if (levels[i] == 255)
            st = mark(ctx, seeds, width, i, GCUT_SEED_FG, "trimap array");
    }
    return st;
}
