/* Seeds of a segmentation from scribble images, trimaps and GrabCut's box.
 * Several sources may be combined; a pixel that two of them mark opposite
 * ways is an error, except that the box yields to a foreground mark. */
#include <string.h>

#include "io/image.h"

static gcut_status check_args(gcut_context *ctx, const uint8_t *seeds, int width, int height,
                              const gcut_image *img, const char *what)
{
    if (!seeds || width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "seeds: no seed array, or size %dx%d", width,
                          height);
    if (!img)
        return gcut__fail(ctx, GCUT_E_INVALID, "seeds: no %s image given", what);
    if (img->width != width || img->height != height)
        return gcut__fail(ctx, GCUT_E_INVALID, "%s: the %s is %dx%d but the image is %dx%d",
                          img->path, what, img->width, img->height, width, height);
    return GCUT_OK;
}

/* Mark pixel i; conflicting with an earlier explicit mark is an error. */
static gcut_status mark(gcut_context *ctx, uint8_t *seeds, int width, size_t i, uint8_t value,
                        const char *path, const char *what)
{
    if (seeds[i] != GCUT_SEED_NONE && seeds[i] != value)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "%s: the %s marks pixel (%d, %d) %s, but it is already marked %s",
                          path, what, (int)(i % (size_t)width), (int)(i / (size_t)width),
                          value == GCUT_SEED_FG ? "foreground" : "background",
                          seeds[i] == GCUT_SEED_FG ? "foreground" : "background");
    seeds[i] = value;
    return GCUT_OK;
}

gcut_status gcut_seeds_add_scribbles(gcut_context *ctx, uint8_t *seeds, int width, int height,
                                     const gcut_image *img, const uint8_t *fg_rgb,
                                     const uint8_t *bg_rgb)
{
    static const uint8_t red[3] = {255, 0, 0}, blue[3] = {0, 0, 255};
    gcut__clear_error(ctx);
    gcut_status st = check_args(ctx, seeds, width, height, img, "scribble image");
    if (st)
        return st;
    const uint8_t *fg = fg_rgb ? fg_rgb : red, *bg = bg_rgb ? bg_rgb : blue;
    if (!memcmp(fg, bg, 3))
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "seeds: the foreground and background colours are the same");
    size_t n = (size_t)width * (size_t)height;
    int c = img->channels;
    for (size_t i = 0; i < n && !st; i++) {
        uint8_t v = GCUT_SEED_NONE;
        if (img->indices) {
            if (img->indices[i] == 1)
                v = GCUT_SEED_FG;
            else if (img->indices[i] == 2)
                v = GCUT_SEED_BG;
        } else {
            const uint8_t *p = img->pixels + i * (size_t)c;
            /* Grey scribbles compare their level with each colour's red. */
            int transparent = (c == 2 || c == 4) && p[c - 1] == 0;
            uint8_t rgb[3] = {p[0], c >= 3 ? p[1] : p[0], c >= 3 ? p[2] : p[0]};
            const uint8_t fgc[3] = {fg[0], c >= 3 ? fg[1] : fg[0], c >= 3 ? fg[2] : fg[0]};
            const uint8_t bgc[3] = {bg[0], c >= 3 ? bg[1] : bg[0], c >= 3 ? bg[2] : bg[0]};
            if (transparent)
                v = GCUT_SEED_NONE;
            else if (!memcmp(rgb, fgc, 3))
                v = GCUT_SEED_FG;
            else if (!memcmp(rgb, bgc, 3))
                v = GCUT_SEED_BG;
        }
        if (v)
            st = mark(ctx, seeds, width, i, v, img->path, "scribble image");
    }
    return st;
}

gcut_status gcut_seeds_add_trimap(gcut_context *ctx, uint8_t *seeds, int width, int height,
                                  const gcut_image *img)
{
    gcut__clear_error(ctx);
    gcut_status st = check_args(ctx, seeds, width, height, img, "trimap");
    if (st)
        return st;
    size_t n = (size_t)width * (size_t)height;
    for (size_t i = 0; i < n && !st; i++) {
        uint8_t level = img->pixels[i * (size_t)img->channels];
        if (level == 0)
            st = mark(ctx, seeds, width, i, GCUT_SEED_BG, img->path, "trimap");
        else if (level == 255)
            st = mark(ctx, seeds, width, i, GCUT_SEED_FG, img->path, "trimap");
    }
    return st;
}

gcut_status gcut_seeds_add_box(gcut_context *ctx, uint8_t *seeds, int width, int height, int x1,
                               int y1, int x2, int y2)
{
    gcut__clear_error(ctx);
    if (!seeds || width < 1 || height < 1)
        return gcut__fail(ctx, GCUT_E_INVALID, "seeds: no seed array, or size %dx%d", width,
                          height);
    if (x1 > x2 || y1 > y2)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "box %d,%d,%d,%d: needs x1 <= x2 and y1 <= y2", x1, y1, x2, y2);
    if (x1 < 0 || y1 < 0 || x2 >= width || y2 >= height)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "box %d,%d,%d,%d: not inside the %dx%d image (x 0..%d, y 0..%d)", x1,
                          y1, x2, y2, width, height, width - 1, height - 1);
    if (x1 == 0 && y1 == 0 && x2 == width - 1 && y2 == height - 1)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "box %d,%d,%d,%d: covers the whole image, so it marks no background",
                          x1, y1, x2, y2);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            if (x >= x1 && x <= x2 && y >= y1 && y <= y2)
                continue;
            uint8_t *s = &seeds[(size_t)y * (size_t)width + (size_t)x];
            /* A foreground scribble outside the box is the user correcting it. */
            if (*s == GCUT_SEED_NONE)
                *s = GCUT_SEED_BG;
        }
    return GCUT_OK;
}
