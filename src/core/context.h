/* The context: options, the last error message, and state kept across calls
 * (device buffers). Internal to libgcut. */
#ifndef GCUT_CORE_CONTEXT_H
#define GCUT_CORE_CONTEXT_H

#include "gcut.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GCUT__ERROR_MAX 512

struct gcut_context {
    gcut_options options;
    char error[GCUT__ERROR_MAX];
    int device_count;   /* -1 until probed */
    void *gpu;          /* GPU state owned by src/gpu (NULL until first used) */
    void *gpu_warm;     /* the device's start-up thread (src/gpu/device.cu), or NULL */
    double device_start_ms, device_wait_ms; /* gcut_context_device_times() */
    /* The pinned staging of host<->device copies (src/gpu/staging.cu),
     * kept for the context's later grids; freed by stage_pool_free. */
    void *stage_pool;
    void (*stage_pool_free)(void *pool);
};

/* Record a formatted message as the context's last error and return
 * `status`, so that callers can write `return gcut__fail(ctx, ...)`. A NULL
 * context is allowed (the message is dropped). */
gcut_status gcut__fail(gcut_context *ctx, gcut_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Pass a message to the context's log callback if its level is enabled. */
void gcut__log(const gcut_context *ctx, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Report progress; returns non-zero when the callback asked to stop. */
int gcut__progress(const gcut_context *ctx, const char *stage, double fraction);

/* Clear the last error (called on entry by calls that may set it). */
void gcut__clear_error(gcut_context *ctx);

/* Monotonic time in milliseconds (gcut_clock_ms() for callers outside). */
double gcut__now_ms(void);

/* The name of the context's GPU in storage that outlives the context (for
 * gcut_solve_info.device); "gpu" when it cannot be read. */
const char *gcut__device_label(gcut_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
