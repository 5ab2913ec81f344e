/* Seeds from scribble images (palette and colour), trimaps and boxes; sizes
 * that differ and bad boxes are errors naming what is wrong. */
#include <criterion/criterion.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcut.h"
#include "temp_dir.h"

static gcut_context *ctx;
static char dir[64];

static void setup(void)
{
    cr_assert_eq(gcut_context_create(NULL, &ctx), GCUT_OK);
    temp_dir_make(dir, sizeof dir, "seeds");
}

static void teardown(void)
{
    temp_dir_remove(dir);
    gcut_context_destroy(ctx);
}

TestSuite(seeds, .init = setup, .fini = teardown);

/* Save pixels as PNG and load them back as a gcut_image. */
static gcut_image *image_of(const char *name, const uint8_t *px, int w, int h, int c)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(gcut_image_save_png(ctx, path, px, w, h, c, (size_t)w * c), GCUT_OK);
    gcut_image *im = NULL;
    cr_assert_eq(gcut_image_load(ctx, path, &im), GCUT_OK, "%s", gcut_last_error(ctx));
    return im;
}

/* A palette PNG of indices, with the GrabCut benchmark's palette. */
static gcut_image *palette_image(const uint8_t *idx, int w, int h)
{
    char path[128];
    snprintf(path, sizeof path, "%s/pal.png", dir);
    FILE *fp = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert_eq(setjmp(png_jmpbuf(png)), 0);
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color pal[3] = {{0, 0, 0}, {255, 255, 207}, {219, 0, 0}};
    png_set_PLTE(png, info, pal, 3);
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, idx + y * w);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(fp);
    gcut_image *im = NULL;
    cr_assert_eq(gcut_image_load(ctx, path, &im), GCUT_OK, "%s", gcut_last_error(ctx));
    return im;
}

Test(seeds, palette_scribbles_use_indices_not_colours)
{
    /* Index 2 is drawn red in this palette, yet it means background. */
    uint8_t idx[6] = {0, 1, 2, 2, 1, 0};
    gcut_image *im = palette_image(idx, 3, 2);
    uint8_t seeds[6] = {0};
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 3, 2, im, NULL, NULL), GCUT_OK);
    uint8_t want[6] = {GCUT_SEED_NONE, GCUT_SEED_FG, GCUT_SEED_BG,
                       GCUT_SEED_BG,   GCUT_SEED_FG, GCUT_SEED_NONE};
    cr_assert_arr_eq(seeds, want, 6);
    gcut_image_destroy(im);
}

Test(seeds, colour_scribbles_red_and_blue_by_default_and_configurable)
{
    uint8_t px[4 * 3] = {255, 0, 0, 0, 0, 255, 254, 0, 0, 10, 200, 30};
    gcut_image *im = image_of("rgb.png", px, 4, 1, 3);
    uint8_t seeds[4] = {0};
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 4, 1, im, NULL, NULL), GCUT_OK);
    uint8_t want[4] = {GCUT_SEED_FG, GCUT_SEED_BG, GCUT_SEED_NONE, GCUT_SEED_NONE};
    cr_assert_arr_eq(seeds, want, 4);

    uint8_t fg[3] = {10, 200, 30}, bg[3] = {254, 0, 0}, s2[4] = {0};
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, s2, 4, 1, im, fg, bg), GCUT_OK);
    uint8_t want2[4] = {GCUT_SEED_NONE, GCUT_SEED_NONE, GCUT_SEED_BG, GCUT_SEED_FG};
    cr_assert_arr_eq(s2, want2, 4);
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, s2, 4, 1, im, fg, fg), GCUT_E_INVALID);
    gcut_image_destroy(im);
}

Test(seeds, transparent_rgba_pixels_are_not_seeds)
{
    uint8_t px[2 * 4] = {255, 0, 0, 0, 255, 0, 0, 255};
    gcut_image *im = image_of("rgba.png", px, 2, 1, 4);
    uint8_t seeds[2] = {0};
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 2, 1, im, NULL, NULL), GCUT_OK);
    cr_assert_eq(seeds[0], GCUT_SEED_NONE);
    cr_assert_eq(seeds[1], GCUT_SEED_FG);
    gcut_image_destroy(im);
}

Test(seeds, trimap_zero_background_255_foreground_else_unknown)
{
    uint8_t px[5] = {0, 255, 128, 1, 254};
    gcut_image *im = image_of("tri.png", px, 5, 1, 1);
    uint8_t seeds[5] = {0};
    cr_assert_eq(gcut_seeds_add_trimap(ctx, seeds, 5, 1, im), GCUT_OK);
    uint8_t want[5] = {GCUT_SEED_BG, GCUT_SEED_FG, 0, 0, 0};
    cr_assert_arr_eq(seeds, want, 5);
    gcut_image_destroy(im);
}

Test(seeds, size_mismatch_names_both_sizes)
{
    uint8_t px[6] = {0};
    gcut_image *im = image_of("small.png", px, 3, 2, 1);
    uint8_t seeds[20] = {0};
    cr_assert_eq(gcut_seeds_add_trimap(ctx, seeds, 5, 4, im), GCUT_E_INVALID);
    const char *msg = gcut_last_error(ctx);
    cr_assert(strstr(msg, "3x2") && strstr(msg, "5x4") && strstr(msg, "small.png"), "%s", msg);
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 5, 4, im, NULL, NULL), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "3x2") && strstr(gcut_last_error(ctx), "5x4"));
    gcut_image_destroy(im);
}

Test(seeds, conflicting_marks_are_an_error_naming_the_pixel)
{
    uint8_t tri[3] = {255, 128, 0};
    gcut_image *t = image_of("t.png", tri, 3, 1, 1);
    uint8_t px[9] = {0, 0, 0, 0, 0, 0, 0, 0, 255}; /* pixel 2 blue: background */
    gcut_image *s = image_of("s.png", px, 3, 1, 3);
    uint8_t red[9] = {255, 0, 0, 0, 0, 0, 0, 0, 0}; /* pixel 0 red: foreground */
    gcut_image *r = image_of("r.png", red, 3, 1, 3);
    uint8_t seeds[3] = {0};
    cr_assert_eq(gcut_seeds_add_trimap(ctx, seeds, 3, 1, t), GCUT_OK);
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 3, 1, s, NULL, NULL), GCUT_OK);
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 3, 1, r, NULL, NULL), GCUT_OK);
    uint8_t blue_fg[9] = {0, 0, 0, 0, 0, 0, 255, 0, 0}; /* pixel 2 red: foreground */
    gcut_image *c = image_of("c.png", blue_fg, 3, 1, 3);
    cr_assert_eq(gcut_seeds_add_scribbles(ctx, seeds, 3, 1, c, NULL, NULL), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "(2, 0)"), "%s", gcut_last_error(ctx));
    gcut_image_destroy(t);
    gcut_image_destroy(s);
    gcut_image_destroy(r);
    gcut_image_destroy(c);
}

Test(seeds, box_marks_the_outside_background_and_keeps_foreground)
{
    uint8_t seeds[5 * 4] = {0};
    seeds[0] = GCUT_SEED_FG; /* a correction outside the box wins */
    cr_assert_eq(gcut_seeds_add_box(ctx, seeds, 5, 4, 1, 1, 3, 2), GCUT_OK);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++) {
            int inside = x >= 1 && x <= 3 && y >= 1 && y <= 2;
            int want = (x == 0 && y == 0) ? GCUT_SEED_FG : inside ? GCUT_SEED_NONE : GCUT_SEED_BG;
            cr_assert_eq(seeds[y * 5 + x], want, "(%d,%d)", x, y);
        }
}

Test(seeds, bad_boxes_are_refused)
{
    uint8_t seeds[5 * 4] = {0};
    cr_assert_eq(gcut_seeds_add_box(ctx, seeds, 5, 4, 3, 1, 1, 2), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "x1 <= x2"));
    cr_assert_eq(gcut_seeds_add_box(ctx, seeds, 5, 4, 1, 1, 5, 2), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "5x4"), "%s", gcut_last_error(ctx));
    cr_assert_eq(gcut_seeds_add_box(ctx, seeds, 5, 4, -1, 0, 2, 2), GCUT_E_INVALID);
    cr_assert_eq(gcut_seeds_add_box(ctx, seeds, 5, 4, 0, 0, 4, 3), GCUT_E_INVALID);
    cr_assert(strstr(gcut_last_error(ctx), "whole image"));
    for (int i = 0; i < 20; i++)
        cr_assert_eq(seeds[i], GCUT_SEED_NONE, "a refused box changed pixel %d", i);
}
