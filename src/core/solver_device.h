/* Which device a solve runs on: the rule every solver table shares
 * (auto takes a usable GPU, else runs on the CPU and says so;
 * gpu without one fails; a named algorithm must run on the device asked
 * for). Internal to libgcut. */
#ifndef GCUT_CORE_SOLVER_DEVICE_H
#define GCUT_CORE_SOLVER_DEVICE_H

#include "core/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `module` names the caller in messages ("grid", "graph"). algo_on_gpu:
 * 1 or 0 for a named algorithm `algo` that runs on the GPU or the CPU, -1
 * when none is named; have_gpu_solver: whether this build has a GPU solver
 * for the module. Sets *on_gpu to where the solve runs, or fails. */
gcut_status gcut__solver_device(gcut_context *ctx, const char *module, const char *algo,
                                int algo_on_gpu, int have_gpu_solver, int *on_gpu);

#ifdef __cplusplus
}
#endif

#endif
