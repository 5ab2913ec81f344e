/* Overlay writing through stb_image_write (PNG, JPEG, BMP), into an open
 * stream so that the atomic-file helper owns the file. Only built with the
 * implementation where Debian's libstb-dev is present (GCUT_HAVE_STB). */
#include "io/image.h"

#ifdef GCUT_HAVE_STB
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void to_stream(void *context, void *data, int size)
{
    fwrite(data, 1, (size_t)size, (FILE *)context);
}

int gcut_image_stb_built(void) { return 1; }

gcut_status gcut__stb_write(gcut_context *ctx, const char *path, FILE *fp, const char *format,
                            const uint8_t *pixels, int width, int height, int channels,
                            size_t stride_bytes)
{
    int ok;
    const uint8_t *packed = pixels;
    uint8_t *copy = NULL;
    size_t row = (size_t)width * (size_t)channels;
    /* stb's JPEG and BMP writers take packed rows only. */
    if (strcmp(format, "png") && stride_bytes != row) {
        copy = malloc(row * (size_t)height);
        if (!copy)
            return gcut__fail(ctx, GCUT_E_NOMEM, "%s: out of memory", path);
        for (int y = 0; y < height; y++)
            memcpy(copy + (size_t)y * row, pixels + (size_t)y * stride_bytes, row);
        packed = copy;
    }
    if (!strcmp(format, "png"))
        ok = stbi_write_png_to_func(to_stream, fp, width, height, channels, pixels,
                                    (int)stride_bytes);
    else if (!strcmp(format, "jpg"))
        ok = stbi_write_jpg_to_func(to_stream, fp, width, height, channels, packed, 95);
    else
        ok = stbi_write_bmp_to_func(to_stream, fp, width, height, channels, packed);
    free(copy);
    if (!ok)
        return gcut__fail(ctx, GCUT_E_IO, "cannot write %s: the %s encoder failed", path,
                          format);
    return GCUT_OK;
}

#else

int gcut_image_stb_built(void) { return 0; }

gcut_status gcut__stb_write(gcut_context *ctx, const char *path, FILE *fp, const char *format,
                            const uint8_t *pixels, int width, int height, int channels,
                            size_t stride_bytes)
{
    (void)fp, (void)pixels, (void)width, (void)height, (void)channels, (void)stride_bytes;
    return gcut__fail(ctx, GCUT_E_UNSUPPORTED, "%s: this build has no %s writer (no stb)", path,
                      format);
}

#endif
