/* The distinct colours of an image and each pixel's number among them.
 * Internal to libgcut.
 *
 * Every per-pixel term of the segmentation energy that depends only on the
 * colour (the region terms, hence the terminal capacities) is computed once
 * per distinct colour and gathered: the same numbers as pixel by pixel, and
 * a photograph has several times fewer colours than pixels. */
#ifndef GCUT_VISION_COLOR_INDEX_H
#define GCUT_VISION_COLOR_INDEX_H

#include <stdint.h>

#include "core/context.h"
#include "gcut.h"

typedef struct gcut__color_index {
    int64_t count;      /* distinct colours */
    uint8_t *colors;    /* count x RGB, in increasing order of 0xRRGGBB */
    uint32_t *of_pixel; /* n: the number of each pixel's colour */
    uint32_t *pixels_of; /* count: how many pixels have each colour */
} gcut__color_index;

/* Index the n packed RGB pixels `rgb`, with up to `threads` threads. */
gcut_status gcut__color_index_build(gcut_context *ctx, const uint8_t *rgb, int64_t n,
                                    int threads, gcut__color_index *out);

/* Release what build allocated; a zeroed index is fine. */
void gcut__color_index_free(gcut__color_index *ci);

#endif
