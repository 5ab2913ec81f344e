/* A segmentation drawn for a person to look at (gcut_segment_overlay). */
#include <string.h>

#include "core/context.h"

gcut_status gcut_segment_overlay(gcut_context *ctx, const uint8_t *pixels, int width, int height,
                                 int channels, size_t stride_bytes, const uint8_t *mask,
                                 const uint8_t *seeds, uint8_t *rgb)
{
    gcut__clear_error(ctx);
    if (!pixels || !mask || !rgb)
        return gcut__fail(ctx, GCUT_E_INVALID, "overlay: no %s given",
                          !pixels ? "pixels" : !mask ? "mask" : "output");
    if (width < 1 || height < 1 || channels < 1 || channels > 4 ||
        stride_bytes < (size_t)width * (size_t)channels)
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "overlay: %dx%d pixels of %d channels, stride %zu", width, height,
                          channels, stride_bytes);
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride_bytes;
        for (int x = 0; x < width; x++) {
            size_t i = (size_t)y * (size_t)width + (size_t)x;
            const uint8_t *p = row + (size_t)x * (size_t)channels;
            uint8_t *o = rgb + 3 * i;
            int colour = channels >= 3;
            uint8_t r = p[0], g = colour ? p[1] : p[0], b = colour ? p[2] : p[0];
            if (seeds && seeds[i] == GCUT_SEED_FG) {
                o[0] = 255, o[1] = 0, o[2] = 0;
            } else if (seeds && seeds[i] == GCUT_SEED_BG) {
                o[0] = 0, o[1] = 0, o[2] = 255;
            } else if (mask[i]) {
                /* Half the colour, plus half of full green. */
                o[0] = (uint8_t)(r / 2), o[1] = (uint8_t)(g / 2 + 128), o[2] = (uint8_t)(b / 2);
            } else {
                o[0] = r, o[1] = g, o[2] = b;
            }
        }
    }
    return GCUT_OK;
}
