/* Host side of the GPU path: what the rest of libgcut may ask of it. Built
 * from device.cu when CUDA is on, from nogpu.c otherwise. */
#ifndef GCUT_GPU_GPU_H
#define GCUT_GPU_GPU_H

#include <stddef.h>

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable GPUs; any runtime error (no driver, no device) counts as 0. */
int gcut__gpu_count(void);

/* Name of GPU `index` into buf. */
gcut_status gcut__gpu_name(gcut_context *ctx, int index, char *buf, size_t buf_size);

/* Free the device buffers the context keeps (ctx->gpu). */
void gcut__gpu_release(gcut_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
