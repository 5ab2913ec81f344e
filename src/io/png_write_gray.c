/* 8-bit grey PNG output through libpng and the atomic-file helper. */
#include "io/png_write_gray.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>

#include "core/context.h"
#include "io/atomic_file.h"

/* libpng reports errors by longjmp; keep its message for ours. */
typedef struct png_error_sink {
    char message[200];
} png_error_sink;

static void on_png_error(png_structp png, png_const_charp message)
{
    png_error_sink *sink = png_get_error_ptr(png);
    snprintf(sink->message, sizeof sink->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

gcut_status gcut__png_write_gray(gcut_context *ctx, const char *path, const uint8_t *pixels,
                                 int width, int height, size_t stride)
{
    if (!pixels || width < 1 || height < 1 || stride < (size_t)width)
        return gcut__fail(ctx, GCUT_E_INVALID, "png: bad image %dx%d (stride %zu) for %s", width,
                          height, stride, path ? path : "");
    /* PNG's own limit on dimensions. */
    if (width > 0x7fffffff / 2 || height > 0x7fffffff / 2)
        return gcut__fail(ctx, GCUT_E_INVALID, "png: %dx%d is too large for PNG", width, height);
    gcut__atomic_file af;
    gcut_status st = gcut__atomic_open(ctx, path, &af);
    if (st)
        return st;

    png_error_sink sink = {""};
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        gcut__atomic_abort(&af);
        return gcut__fail(ctx, GCUT_E_NOMEM, "png: out of memory writing %s", path);
    }
    /* png, info and af are not changed after this point, so they are still
     * valid when libpng longjmps back here. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        gcut__atomic_abort(&af);
        return gcut__fail(ctx, GCUT_E_IO, "cannot write %s: %s", path, sink.message);
    }
    png_init_io(png, af.fp);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return gcut__atomic_commit(ctx, &af);
}
