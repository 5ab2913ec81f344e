/* Images in memory and the per-format readers and writers. Internal to
 * libgcut; the public calls are gcut_image_* in gcut.h. */
#ifndef GCUT_IO_IMAGE_H
#define GCUT_IO_IMAGE_H

#include <stdio.h>

#include "core/context.h"
#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gcut_image {
    int width, height;
    int channels;      /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
    int bit_depth;     /* as stored in the file */
    uint8_t *pixels;   /* 8 bits per sample, rows packed */
    uint8_t *indices;  /* palette images: one index per pixel, else NULL */
    char *path;        /* for messages */
};

/* A zeroed image of that size, refused before allocating when it would not
 * fit (GCUT_IMAGE_MAX_PIXELS, or a byte count over SIZE_MAX). */
gcut_status gcut__image_alloc(gcut_context *ctx, const char *path, int64_t width,
                              int64_t height, int channels, int with_indices, gcut_image **out);

/* The readers: `fp` is open at the start of the file. */
gcut_status gcut__png_read(gcut_context *ctx, const char *path, FILE *fp, gcut_image **out);
gcut_status gcut__jpeg_read(gcut_context *ctx, const char *path, FILE *fp, gcut_image **out);
gcut_status gcut__pnm_read(gcut_context *ctx, const char *path, FILE *fp, gcut_image **out);

/* 8-bit PNG of 1-4 channels to an open stream; `path` names it in messages. */
gcut_status gcut__png_write(gcut_context *ctx, const char *path, FILE *fp, const uint8_t *pixels,
                            int width, int height, int channels, size_t stride_bytes);

/* With stb_image_write (GCUT_HAVE_STB): "png", "jpg" or "bmp" to a stream.
 * Without it, GCUT_E_UNSUPPORTED. */
gcut_status gcut__stb_write(gcut_context *ctx, const char *path, FILE *fp, const char *format,
                            const uint8_t *pixels, int width, int height, int channels,
                            size_t stride_bytes);

#ifdef __cplusplus
}
#endif

#endif
