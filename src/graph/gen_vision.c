/* Vision-like grids: the graphs of binary segmentation (Boykov–Kolmogorov,
 * PAMI 2004, section 5): a noisy synthetic image, a contrast-sensitive
 * boundary term between neighbours and data terms on a share of the pixels
 * (all of them for a full energy, a few for sparse seeds). */
#include <math.h>
#include <stdlib.h>

#include "core/context.h"
#include "graph/gen.h"

/* Boundary capacities: LAMBDA * exp(-dI^2 / (2 SIGMA^2)) / distance, and
 * data capacities DATA_SCALE * (I - mean)^2; intensities in [0, 1]. */
#define LAMBDA 1000.0
#define SIGMA 0.1
#define DATA_SCALE 10000.0
#define FG_MEAN 0.7
#define BG_MEAN 0.3

static int64_t terminal_pixels(int64_t width, int64_t height, double density)
{
    return (int64_t)llround(density * (double)(width * height));
}

int64_t gcut__gen_vision_arcs(int64_t width, int64_t height, int connectivity, double density)
{
    int64_t pairs = (width - 1) * height + width * (height - 1);
    if (connectivity == 8)
        pairs += 2 * (width - 1) * (height - 1);
    return 2 * pairs + 2 * terminal_pixels(width, height, density);
}

gcut_status gcut__gen_vision(gcut_context *ctx, int32_t width, int32_t height, int32_t connectivity,
                             double density, uint64_t seed, gcut_graph **out)
{
    *out = NULL;
    if (width < 1 || height < 1 || (connectivity != 4 && connectivity != 8) ||
        !(density >= 0.0 && density <= 1.0))
        return gcut__fail(ctx, GCUT_E_INVALID,
                          "vision: width=%d, height=%d, connectivity=%d, density=%g: need sizes "
                          ">= 1, connectivity 4 or 8, density in [0, 1]",
                          width, height, connectivity, density);
    int64_t pixels = (int64_t)width * height;
    if (pixels + 2 > INT32_MAX ||
        gcut__gen_vision_arcs(width, height, connectivity, density) > INT32_MAX / 2)
        return gcut__fail(ctx, GCUT_E_OVERFLOW, "vision: %dx%d: too many nodes or arcs", width,
                          height);
    double *image = malloc((size_t)pixels * sizeof *image);
    int32_t *order = malloc((size_t)pixels * sizeof *order);
    gcut__arc_list list = {0};
    gcut_status st = GCUT_OK;
    if (!image || !order) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "vision: out of memory for %dx%d", width, height);
        goto done;
    }
    if ((st = gcut__arc_list_init(ctx, &list,
                                  gcut__gen_vision_arcs(width, height, connectivity, density))))
        goto done;

    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 4);
    /* A few bright ellipses on a dark background, plus noise (a sum of
     * uniforms, roughly Gaussian with deviation 0.1). */
    enum { MAX_BLOBS = 6 };
    double cx[MAX_BLOBS], cy[MAX_BLOBS], rx[MAX_BLOBS], ry[MAX_BLOBS];
    int blobs = 2 + (int)gcut__rng_range(&rng, 0, MAX_BLOBS - 2);
    for (int k = 0; k < blobs; k++) {
        cx[k] = gcut__rng_unit(&rng) * width;
        cy[k] = gcut__rng_unit(&rng) * height;
        rx[k] = (0.08 + 0.2 * gcut__rng_unit(&rng)) * width + 1.0;
        ry[k] = (0.08 + 0.2 * gcut__rng_unit(&rng)) * height + 1.0;
    }
    for (int32_t y = 0; y < height; y++) {
        for (int32_t x = 0; x < width; x++) {
            int inside = 0;
            for (int k = 0; k < blobs && !inside; k++) {
                double dx = (x - cx[k]) / rx[k], dy = (y - cy[k]) / ry[k];
                inside = dx * dx + dy * dy <= 1.0;
            }
            double noise = gcut__rng_unit(&rng) + gcut__rng_unit(&rng) + gcut__rng_unit(&rng) - 1.5;
            image[(int64_t)y * width + x] = (inside ? FG_MEAN : BG_MEAN) + 0.2 * noise;
        }
    }

    static const int dxs[4] = {1, 0, 1, -1}, dys[4] = {0, 1, 1, 1};
    int forward_dirs = connectivity == 8 ? 4 : 2;
    for (int32_t y = 0; y < height; y++) {
        for (int32_t x = 0; x < width; x++) {
            int32_t p = y * width + x;
            for (int d = 0; d < forward_dirs; d++) {
                int32_t nx = x + dxs[d], ny = y + dys[d];
                if (nx < 0 || nx >= width || ny >= height)
                    continue;
                int32_t q = ny * width + nx;
                double di = image[p] - image[q];
                double dist = d < 2 ? 1.0 : sqrt(2.0);
                int32_t c = (int32_t)lround(LAMBDA * exp(-di * di / (2 * SIGMA * SIGMA)) / dist);
                gcut__arc_list_add(&list, p, q, c);
                gcut__arc_list_add(&list, q, p, c);
            }
        }
    }

    /* Terminal pixels: the first k of a random permutation. */
    int64_t k = terminal_pixels(width, height, density);
    for (int32_t i = 0; i < pixels; i++)
        order[i] = i;
    for (int64_t i = 0; i < k; i++) {
        int32_t j = (int32_t)gcut__rng_range(&rng, i, pixels - 1);
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    const int32_t source = (int32_t)pixels, sink = (int32_t)pixels + 1;
    for (int64_t i = 0; i < k; i++) {
        int32_t p = order[i];
        double fg = image[p] - FG_MEAN, bg = image[p] - BG_MEAN;
        /* Source arc = cost of the background label, sink arc = of the
         * foreground label. */
        gcut__arc_list_add(&list, source, p, (int32_t)lround(DATA_SCALE * bg * bg));
        gcut__arc_list_add(&list, p, sink, (int32_t)lround(DATA_SCALE * fg * fg));
    }
    st = gcut__arc_list_finish(ctx, &list, (int32_t)pixels + 2, source, sink, out);
done:
    free(image);
    free(order);
    if (st && list.tail) {
        free(list.tail);
        free(list.head);
        free(list.cap);
    }
    return st;
}
