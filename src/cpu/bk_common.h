/* What the two Boykov–Kolmogorov solvers share whatever their layout: the
 * grid core (src/cpu/bk_grid_core.h, implicit neighbours by direction) and
 * the general-graph one (src/cpu/bk_graph.c, CSR arcs). Their growth,
 * augmentation and adoption walk different layouts (a parent direction
 * byte against a parent arc) and stay each in its own file: the grid's is
 * the hot path measured against PyMaxflow, and a layout-generic form would
 * need an indirection or macros per neighbour. */
#ifndef GCUT_CPU_BK_COMMON_H
#define GCUT_CPU_BK_COMMON_H

#include <stdint.h>

#if defined(__GNUC__)
#define BK_INLINE static inline __attribute__((always_inline))
#define BK_NOINLINE static __attribute__((noinline))
#else
#define BK_INLINE static inline
#define BK_NOINLINE static
#endif

/* The orphans, first in first out, in a ring of `size` slots: a node is in
 * it at most once (marked orphan until popped), so one slot a node of the
 * range suffices. */
typedef struct bk_ring {
    int32_t *slot;
    int32_t head, count, size;
} bk_ring;

BK_INLINE void bk_ring_start(bk_ring *r, int32_t *slot, int32_t size)
{
    r->slot = slot;
    r->size = size;
    r->head = r->count = 0;
}

BK_INLINE void bk_ring_push(bk_ring *r, int32_t i)
{
    int32_t at = r->head + r->count;
    if (at >= r->size)
        at -= r->size;
    r->slot[at] = i;
    r->count++;
}

BK_INLINE int32_t bk_ring_pop(bk_ring *r)
{
    int32_t i = r->slot[r->head];
    if (++r->head == r->size)
        r->head = 0;
    r->count--;
    return i;
}

#endif
