#include "check_common.h"

#include <stdarg.h>
#include <stdio.h>

void check_fail(check_report *r, const char *fmt, ...)
{
    r->failed++;
    if (r->failed > 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->first_failure, sizeof r->first_failure, fmt, ap);
    va_end(ap);
}

gcut_context *check_context(gcut_device device)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = device;
    gcut_context *ctx = NULL;
    return gcut_context_create(&opt, &ctx) == GCUT_OK ? ctx : NULL;
}

uint64_t check_mix(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

void check_gpu_run(check_report *r, check_gpu_instance one, const char *algo, int count,
                   uint64_t seed)
{
    gcut_context *cpu = check_context(GCUT_DEVICE_CPU);
    gcut_context *gpu = check_context(GCUT_DEVICE_GPU);
    int devices = 0;
    if (!cpu || !gpu) {
        check_fail(r, "could not create the contexts");
    } else if (!gcut_cuda_built() || gcut_device_count(gpu, &devices) != GCUT_OK || devices == 0) {
        r->skipped += count; /* no usable GPU here */
    } else {
        for (int i = 0; i < count; i++)
            one(r, cpu, gpu, algo, seed, i);
    }
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
}
