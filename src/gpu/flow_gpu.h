/* Optical flow by assignment on the GPU (src/gpu/flow_gpu.cu): the whole
 * pipeline of gcut_flow_frames on the device, frames up and flow down once.
 * A build without CUDA has flow_gpu_nogpu.c instead (no device). Internal to
 * libgcut. */
#ifndef GCUT_GPU_FLOW_GPU_H
#define GCUT_GPU_FLOW_GPU_H

#include <stdint.h>

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The whole flow on the GPU, with its own exact windowed assignment
 * (grid_kernels/flow_assign.cu): `--algo gpu-auction`. */
#define GCUT__FLOW_GPU_ALGO "gpu-auction"

/* gcut_flow_frames on the GPU, same arguments (options already checked).
 * Each level's assignment is proved optimal on the device (its prices leave
 * a duality gap below the scale); GCUT_E_VERIFY if one were not. Fills
 * info's counts and times (CUDA events); info->device is the caller's. */
gcut_status gcut__flow_gpu_frames(gcut_context *ctx, const uint8_t *frame0,
                                  const uint8_t *frame1, int width, int height, int channels,
                                  size_t stride_bytes, const gcut_flow_options *o, float *flow,
                                  gcut_flow_info *info);

/* One level's assignment on the GPU, for the checks: frames i0, i1 (grey,
 * w x h), the window centres p + round(prior) (prior may be NULL), options
 * o. row_to_col gets the CPU's columns (pixel q, or n + p for p's dummy),
 * total_cost the assignment's cost, prices (3n, may be NULL) its proof in
 * gcut_assign_verify's form for the CPU's instance of the same level
 * (gcut__flow_arcs_build). */
gcut_status gcut__flow_gpu_assign_level(gcut_context *ctx, const float *i0, const float *i1,
                                        int w, int h, const float *prior,
                                        const gcut_flow_options *o, int32_t *row_to_col,
                                        int64_t *total_cost, int64_t *prices);

#ifdef __cplusplus
}
#endif

#endif
