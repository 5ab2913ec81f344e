/* Allocation of large per-pixel arrays (images, graphs, solver and segmentation state).
 * Internal to libgcut.
 *
 * A 4-megapixel image needs about a hundred megabytes of fresh arrays, and
 * the first touch of each 4 KiB page is a page fault: measured on the dev VM,
 * touching 180 MB took 300 ms in 4 KiB pages and under half that in 2 MiB
 * pages. So large arrays are aligned to 2 MiB and offered to the kernel for
 * transparent huge pages (where it has them). Release with free(). */
#ifndef GCUT_CORE_BIG_ALLOC_H
#define GCUT_CORE_BIG_ALLOC_H

#include <stddef.h>

/* `bytes` of uninitialised memory, or NULL. */
void *gcut__big_alloc(size_t bytes);

#endif
