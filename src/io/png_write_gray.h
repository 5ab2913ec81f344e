/* A plain 8-bit grey PNG writer (masks, labels). Internal to libgcut. */
#ifndef GCUT_IO_PNG_WRITE_GRAY_H
#define GCUT_IO_PNG_WRITE_GRAY_H

#include <stddef.h>
#include <stdint.h>

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write `height` rows of `width` grey bytes, `stride` bytes apart, as an
 * 8-bit grey PNG at `path`: to a temporary, renamed into place, so that no
 * partial file is ever left. The caller owns `pixels`. */
gcut_status gcut__png_write_gray(gcut_context *ctx, const char *path, const uint8_t *pixels,
                                 int width, int height, size_t stride);

#ifdef __cplusplus
}
#endif

#endif
