/* A fork-join loop over an index range on pthreads, for the per-pixel
 * stages of segmentation and the CPU solvers. Internal to libgcut.
 *
 * Results must not depend on the number of threads: callers write each
 * element from exactly one range and reduce only with order-free operations
 * (integer sums, maxima), never floating-point sums. */
#ifndef GCUT_CORE_PARALLEL_H
#define GCUT_CORE_PARALLEL_H

#include <stdint.h>

/* Work on [begin, end): one of `parts` contiguous ranges, numbered `part`. */
typedef void (*gcut__range_fn)(void *arg, int64_t begin, int64_t end, int part);

/* The number of threads for `work` items: `requested` when positive (at
 * most one per item), else one per online CPU, at most GCUT__MAX_THREADS and
 * fewer when the work is too little to pay for starting them. */
#define GCUT__MAX_THREADS 64
int gcut__thread_count(int requested, int64_t work);

/* Split [0, count) into `parts` contiguous ranges and run fn on each, part 0
 * on the calling thread and the others on threads of their own; returns
 * when all are done. If a thread cannot be started its range runs on the
 * calling thread: slower, never different. */
void gcut__parallel_for(int parts, int64_t count, gcut__range_fn fn, void *arg);

#endif
