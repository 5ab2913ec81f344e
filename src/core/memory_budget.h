/* The memory budget: what one call may allocate on the host. Readers and
 * solvers estimate their need from the sizes they were given (a header's
 * width and height, a graph's node and arc counts) and ask here before
 * allocating, so that a small hostile file cannot make the process grow
 * until the kernel kills it. Internal to libgcut. */
#ifndef GCUT_CORE_MEMORY_BUDGET_H
#define GCUT_CORE_MEMORY_BUDGET_H

#include <stdint.h>

#include "core/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The machine's available memory in bytes (MemAvailable of /proc/meminfo,
 * else the free physical pages), or -1 when neither can be read. */
int64_t gcut__memory_available(void);

/* The budget of `ctx` in bytes: options.max_memory when set (> 0), else the
 * machine's available memory at the time of the call; INT64_MAX when
 * neither is known. A NULL context has the default budget. */
int64_t gcut__memory_budget(const gcut_context *ctx);

/* GCUT_OK when `bytes` fits the budget; else GCUT_E_NOMEM with the message
 * "WHAT needs about X, over the memory budget of Y (...)". */
gcut_status gcut__memory_check(gcut_context *ctx, const char *what, int64_t bytes);

/* a*b + c for sizes, saturating at INT64_MAX (estimates from hostile
 * headers must not wrap round to something small). All >= 0. */
int64_t gcut__memory_mul_add(int64_t a, int64_t b, int64_t c);

/* "1.5 GiB", "300 MiB", "12 KiB", "80 bytes" into buf. */
void gcut__memory_format(int64_t bytes, char *buf, int size);

#ifdef __cplusplus
}
#endif

#endif
