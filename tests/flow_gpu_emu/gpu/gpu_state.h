/* The context's GPU state as the flow needs it, on the CPU (tests/flow_gpu_emu/run.sh). */
#pragma once
#include <cuda_runtime.h>
#include "core/context.h"
typedef struct gcut__gpu { int device; char name[16]; cudaStream_t stream; } gcut__gpu;
#define GPU_CHECK(ctx, call) do { cudaError_t e_ = (call); if (e_) { st = gcut__fail((ctx), GCUT_E_DEVICE, "emu: %s", #call); goto fail; } } while (0)
static inline gcut_status gcut__gpu_acquire(gcut_context *ctx, gcut__gpu **out) { (void)ctx; static gcut__gpu g; *out = &g; return GCUT_OK; }
