/* Device helpers the flow's kernels share. */
#ifndef GCUT_FLOW_DEVICE_CUH
#define GCUT_FLOW_DEVICE_CUH

#include <stdint.h>

/* Bilinear sample at (x, y), clamped to the image: gcut__flow_sample of
 * src/vision/flow_internal.h. */
static __device__ __forceinline__ float flow_sample(const float *img, int w, int h, float x,
                                                   float y)
{
    x = x < 0.0f ? 0.0f : x > (float)(w - 1) ? (float)(w - 1) : x;
    y = y < 0.0f ? 0.0f : y > (float)(h - 1) ? (float)(h - 1) : y;
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    const float *r0 = img + (size_t)y0 * w, *r1 = img + (size_t)y1 * w;
    float top = r0[x0] + fx * (r0[x1] - r0[x0]);
    float bottom = r1[x0] + fx * (r1[x1] - r1[x0]);
    return top + fy * (bottom - top);
}

#endif
