/* The GPU flow in a build without CUDA: no device, ever. */
#include "core/context.h"
#include "gpu/flow_gpu.h"

gcut_status gcut__flow_gpu_frames(gcut_context *ctx, const uint8_t *frame0,
                                  const uint8_t *frame1, int width, int height, int channels,
                                  size_t stride_bytes, const gcut_flow_options *o, float *flow,
                                  gcut_flow_info *info)
{
    (void)frame0, (void)frame1, (void)width, (void)height, (void)channels;
    (void)stride_bytes, (void)o, (void)flow, (void)info;
    return gcut__fail(ctx, GCUT_E_NODEVICE, "flow: gcut was built without CUDA");
}

gcut_status gcut__flow_gpu_assign_level(gcut_context *ctx, const float *i0, const float *i1,
                                        int w, int h, const float *prior,
                                        const gcut_flow_options *o, int32_t *row_to_col,
                                        int64_t *total_cost, int64_t *prices)
{
    (void)i0, (void)i1, (void)w, (void)h, (void)prior, (void)o, (void)row_to_col;
    (void)total_cost, (void)prices;
    return gcut__fail(ctx, GCUT_E_NODEVICE, "flow: gcut was built without CUDA");
}
