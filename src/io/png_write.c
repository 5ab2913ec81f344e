/* 8-bit PNG writing through libpng (masks, and overlays where the build has
 * no stb_image_write). */
#include <png.h>
#include <setjmp.h>

#include "io/image.h"
#include "io/png_error.h"

gcut_status gcut__png_write(gcut_context *ctx, const char *path, FILE *fp, const uint8_t *pixels,
                            int width, int height, int channels, size_t stride_bytes)
{
    static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    gcut__png_error err = {{0}};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, gcut__png_on_error,
                                             gcut__png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(png ? &png : NULL, NULL);
        return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return gcut__fail(ctx, GCUT_E_IO, "cannot write %s: %s", path, err.message);
    }
    png_init_io(png, fp);
    /* Masks and overlays are written once and read often: a fast level is
     * enough, the filter choice matters more than the zlib effort. */
    png_set_compression_level(png, 3);
    /* Grey images here are masks and label maps: flat runs, where "up" alone
     * compresses as well as trying all five filters per row, at a fifth of
     * the work. */
    if (channels <= 2) {
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
        png_set_compression_level(png, 1);
    }
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_types[channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride_bytes));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return GCUT_OK;
}
