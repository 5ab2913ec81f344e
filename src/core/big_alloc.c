/* Large arrays in transparent huge pages (see big_alloc.h). */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE (Linux) */
#include "core/big_alloc.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *gcut__big_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE)
        return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes))
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Only advice: where the kernel says no, 4 KiB pages still work. */
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}
