/* Fuzz target "seeds": an image loaded by content (PNG, JPEG or PNM) and
 * read as scribbles and as a trimap, at its own size (accepted) and at
 * another (refused with both sizes named). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcut_context *ctx = fuzz_context();
    const char *path = fuzz_temp_file(data, size);
    gcut_image *im = NULL;
    if (!path || gcut_image_load(ctx, path, &im) != GCUT_OK)
        return 0;
    int w = gcut_image_width(im), h = gcut_image_height(im);
    uint8_t *seeds = calloc((size_t)w * (size_t)h + 1, 1);
    if (seeds) {
        gcut_seeds_add_scribbles(ctx, seeds, w, h, im, NULL, NULL);
        memset(seeds, 0, (size_t)w * (size_t)h);
        gcut_seeds_add_trimap(ctx, seeds, w, h, im);
        /* A pixel marked both ways by two sources is an error, not a crash. */
        gcut_seeds_add_scribbles(ctx, seeds, w, h, im, NULL, NULL);
        if (gcut_seeds_add_trimap(ctx, seeds, w + 1, h, im) == GCUT_OK)
            abort();
    }
    free(seeds);
    gcut_image_destroy(im);
    return 0;
}
