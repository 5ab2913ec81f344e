/* The memory budget (memory_budget.h): the machine's available memory read
 * when a check is made, or the caller's own limit. */
#define _POSIX_C_SOURCE 200809L
#include "core/memory_budget.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int64_t gcut__memory_available(void)
{
    /* MemAvailable counts the page cache the kernel would give back, which
     * free pages alone do not; it is what a new allocation can really get. */
    FILE *fp = fopen("/proc/meminfo", "r");
    if (fp) {
        char line[128];
        long long kib = -1;
        while (fgets(line, sizeof line, fp))
            if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
                break;
        fclose(fp);
        if (kib >= 0)
            return (int64_t)kib * 1024;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        return gcut__memory_mul_add(pages, page, 0);
    return -1;
}

int64_t gcut__memory_budget(const gcut_context *ctx)
{
    if (ctx && ctx->options.max_memory > 0)
        return ctx->options.max_memory;
    int64_t avail = gcut__memory_available();
    return avail >= 0 ? avail : INT64_MAX;
}

int64_t gcut__memory_mul_add(int64_t a, int64_t b, int64_t c)
{
    if (a < 0 || b < 0 || c < 0)
        return INT64_MAX;
    if (a != 0 && b > (INT64_MAX - c) / a)
        return INT64_MAX;
    return a * b + c;
}

void gcut__memory_format(int64_t bytes, char *buf, int size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, (size_t)size, "%lld bytes", (long long)bytes);
        return;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, (size_t)size, v < 10.0 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

gcut_status gcut__memory_check(gcut_context *ctx, const char *what, int64_t bytes)
{
    int64_t budget = gcut__memory_budget(ctx);
    if (bytes <= budget)
        return GCUT_OK;
    char need[32], limit[32];
    gcut__memory_format(bytes, need, sizeof need);
    gcut__memory_format(budget, limit, sizeof limit);
    int set = ctx && ctx->options.max_memory > 0;
    return gcut__fail(ctx, GCUT_E_NOMEM, "%s needs about %s, over the memory budget of %s (%s)",
                      what, need, limit,
                      set ? "the max_memory option" : "the memory available on this machine");
}
