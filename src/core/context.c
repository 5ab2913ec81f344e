/* Context, status strings, version, error and log plumbing. */
#define _POSIX_C_SOURCE 200809L
#include "core/context.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu.h"
#include "core/parallel.h"

const char *gcut_version(void)
{
    return GCUT_VERSION_STRING;
}

const char *gcut_status_str(gcut_status status)
{
    switch (status) {
    case GCUT_OK: return "ok";
    case GCUT_E_INVALID: return "invalid argument";
    case GCUT_E_NOMEM: return "out of memory";
    case GCUT_E_IO: return "input/output error";
    case GCUT_E_FORMAT: return "malformed file";
    case GCUT_E_RANGE: return "value out of range";
    case GCUT_E_OVERFLOW: return "capacity overflow";
    case GCUT_E_NOTGRID: return "not a grid graph";
    case GCUT_E_TRUNCATED: return "truncated file";
    case GCUT_E_NODEVICE: return "no usable GPU";
    case GCUT_E_DEVICE: return "GPU error";
    case GCUT_E_DEVICE_NOMEM: return "out of GPU memory";
    case GCUT_E_UNSUPPORTED: return "not supported";
    case GCUT_E_STATE: return "call out of order";
    case GCUT_E_VERIFY: return "verification failed";
    case GCUT_E_INTERRUPTED: return "interrupted by the caller";
    case GCUT_E_INFEASIBLE: return "no assignment of every row";
    }
    return "unknown status";
}

void gcut_options_init(gcut_options *options)
{
    if (!options)
        return;
    memset(options, 0, sizeof *options);
    options->device = GCUT_DEVICE_AUTO;
    options->threads = 0; /* one per online CPU */
}

gcut_status gcut_context_create(const gcut_options *options, gcut_context **out)
{
    if (!out)
        return GCUT_E_INVALID;
    *out = NULL;
    gcut_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return GCUT_E_NOMEM;
    if (options)
        ctx->options = *options;
    else
        gcut_options_init(&ctx->options);
    if (ctx->options.device > GCUT_DEVICE_GPU || ctx->options.gpu_index < 0 ||
        ctx->options.threads < 0 || ctx->options.threads > GCUT__MAX_THREADS ||
        ctx->options.max_memory < 0) {
        free(ctx);
        return GCUT_E_INVALID;
    }
    ctx->device_count = -1;
    *out = ctx;
    return GCUT_OK;
}

void gcut_context_destroy(gcut_context *ctx)
{
    if (!ctx)
        return;
    gcut__gpu_release(ctx); /* may still copy through the staging pool */
    if (ctx->stage_pool_free)
        ctx->stage_pool_free(ctx->stage_pool);
    free(ctx);
}

gcut_status gcut_context_warm_device(gcut_context *ctx)
{
    if (!ctx)
        return GCUT_E_INVALID;
    return gcut__gpu_warm_start(ctx);
}

gcut_status gcut_context_device_times(const gcut_context *ctx, double *start_ms,
                                      double *wait_ms)
{
    if (!ctx)
        return GCUT_E_INVALID;
    if (start_ms)
        *start_ms = ctx->device_start_ms;
    if (wait_ms)
        *wait_ms = ctx->device_wait_ms;
    return GCUT_OK;
}

const gcut_options *gcut_context_options(const gcut_context *ctx)
{
    return ctx ? &ctx->options : NULL;
}

const char *gcut_last_error(const gcut_context *ctx)
{
    return ctx ? ctx->error : "";
}

void gcut__clear_error(gcut_context *ctx)
{
    if (ctx)
        ctx->error[0] = '\0';
}

gcut_status gcut__fail(gcut_context *ctx, gcut_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
        va_end(ap);
    }
    return status;
}

void gcut__log(const gcut_context *ctx, int level, const char *fmt, ...)
{
    if (!ctx || !ctx->options.log || level > ctx->options.verbosity)
        return;
    char msg[GCUT__ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx->options.log(ctx->options.log_user, level, msg);
}

int gcut__progress(const gcut_context *ctx, const char *stage, double fraction)
{
    if (!ctx || !ctx->options.progress)
        return 0;
    return ctx->options.progress(ctx->options.progress_user, stage, fraction);
}

double gcut_clock_ms(void)
{
    return gcut__now_ms();
}

double gcut__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

gcut_status gcut_device_count(gcut_context *ctx, int *count)
{
    if (!ctx || !count)
        return GCUT_E_INVALID;
    if (ctx->device_count < 0)
        ctx->device_count = gcut__gpu_count();
    *count = ctx->device_count;
    return GCUT_OK;
}

gcut_status gcut_device_name(gcut_context *ctx, int index, char *buf, size_t buf_size)
{
    if (!ctx || !buf || buf_size == 0)
        return GCUT_E_INVALID;
    int count = 0;
    gcut_device_count(ctx, &count);
    if (index < 0 || index >= count)
        return gcut__fail(ctx, GCUT_E_NODEVICE, "no GPU with index %d (%d found)", index, count);
    return gcut__gpu_name(ctx, index, buf, buf_size);
}

/* A GPU's name for gcut_solve_info.device, which callers may keep after
 * the context is gone: each name is copied once into storage that lives
 * as long as the process (a GPU's name does not change while it runs). */
#define NAMED_GPUS 64
static char gpu_names[NAMED_GPUS][256];
static pthread_mutex_t gpu_names_lock = PTHREAD_MUTEX_INITIALIZER;

const char *gcut__device_label(gcut_context *ctx)
{
    int index = ctx ? ctx->options.gpu_index : 0;
    if (index < 0 || index >= NAMED_GPUS)
        return "gpu";
    pthread_mutex_lock(&gpu_names_lock);
    char *name = gpu_names[index];
    if (!name[0]) {
        char error[GCUT__ERROR_MAX];
        if (ctx)
            memcpy(error, ctx->error, sizeof error); /* a name is no failure */
        if (gcut__gpu_name(ctx, index, name, sizeof gpu_names[0]) != GCUT_OK)
            name[0] = '\0';
        if (ctx)
            memcpy(ctx->error, error, sizeof error);
    }
    const char *label = name[0] ? name : "gpu";
    pthread_mutex_unlock(&gpu_names_lock);
    return label;
}
