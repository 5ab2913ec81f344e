/* Fuzz target "flo": the Middlebury .flo reader. A small flow it accepts
 * (any floats: NaN, infinities, the "unknown" 1e9 marks) is written back
 * and read again, bit for bit the same, and goes through the consumers of
 * such files: the error measures against itself and the colour wheel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcut_context *ctx = fuzz_context();
    const char *path = fuzz_temp_file(data, size);
    int w = 0, h = 0;
    float *flow = NULL;
    if (!path || gcut_flow_read(ctx, path, &w, &h, &flow) != GCUT_OK)
        return 0;
    const size_t n = (size_t)w * (size_t)h;
    if (n <= (1 << 16)) {
        char again[96];
        snprintf(again, sizeof again, "%s-again.flo", path);
        int w2 = 0, h2 = 0;
        float *flow2 = NULL;
        if (gcut_flow_write(ctx, again, flow, w, h) != GCUT_OK ||
            gcut_flow_read(ctx, again, &w2, &h2, &flow2) != GCUT_OK || w2 != w || h2 != h ||
            memcmp(flow, flow2, 2 * n * sizeof *flow) != 0)
            abort();
        unlink(again);
        gcut_flow_free(flow2);
        double epe = -1, aae = -1;
        int64_t known = -1;
        if (gcut_flow_error(ctx, flow, flow, w, h, &epe, &aae, &known) == GCUT_OK && known > 0 &&
            epe != 0)
            abort();
        uint8_t *rgb = malloc(3 * n);
        if (!rgb)
            abort();
        gcut_flow_colorize(ctx, flow, w, h, 0, rgb);
        free(rgb);
    }
    gcut_flow_free(flow);
    return 0;
}
