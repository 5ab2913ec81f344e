/* Device-side helpers shared by the grid kernels: direction offsets as
 * compile-time constants (the loops over directions are unrolled, so every
 * call folds to a literal), volatile access for values other blocks write
 * while a kernel runs, and a block-wide 64-bit sum. */
#ifndef GCUT_GRID_DEVICE_CUH
#define GCUT_GRID_DEVICE_CUH

#include "grid_kernels.h"

/* E W S N NE SW SE NW, as gcut_dir; opposite(d) == d ^ 1. */
static __device__ __forceinline__ int dir_dx(int d)
{
    return (d == 0 || d == 4 || d == 6) ? 1 : (d == 1 || d == 5 || d == 7) ? -1 : 0;
}

static __device__ __forceinline__ int dir_dy(int d)
{
    return (d == 2 || d == 5 || d == 6) ? 1 : (d == 3 || d == 4 || d == 7) ? -1 : 0;
}

/* The shared-memory tile with a one-pixel halo. */
#define HALO_W (GCUT_TILE_W + 2)
#define HALO_H (GCUT_TILE_H + 2)
#define HALO_N (HALO_W * HALO_H)

static __device__ __forceinline__ int load_volatile(const int32_t *p)
{
    return *(const volatile int32_t *)p;
}

static __device__ __forceinline__ void store_volatile(int32_t *p, int32_t v)
{
    *(volatile int32_t *)p = v;
}

/* Add `value` of every thread of the block into *sum (one atomic per warp). */
static __device__ __forceinline__ void block_add(unsigned long long *sum, unsigned long long value)
{
    for (int o = 16; o > 0; o >>= 1)
        value += __shfl_down_sync(0xffffffffu, value, o);
    if ((threadIdx.x & 31) == 0 && value)
        atomicAdd(sum, value);
}

/* Flag `tile` in flag[out] and, the first time, append it to list[out]. */
static __device__ __forceinline__ void gcut__mark_tile(const gcut__dgrid &g, int out, int tile)
{
    if (atomicExch(&g.flag[out][tile], 1) == 0)
        g.list[out][atomicAdd(&g.counters[GCUT_CNT_LIST0 + out], 1ull)] = tile;
}

/* What the worklist's slot j holds when it carries `tile`: the tag
 * (j + 1) << 32 tells a taker of slot j from one a lap of the queue
 * earlier; 0 is an empty slot. */
static __device__ __forceinline__ unsigned long long gcut__slot_value(unsigned long long j,
                                                                      long long tile)
{
    return (((j + 1) & 0xffffffffull) << 32) | (unsigned long long)tile;
}

/* Store `tile` in the claimed slot j once that slot is empty (a lapped
 * queue). */
static __device__ __forceinline__ void gcut__fill_slot(const gcut__dgrid &g, unsigned long long j,
                                                       int tile)
{
    unsigned long long *slot = &g.queue[j % (unsigned long long)g.queue_cap];
    while (atomicCAS(slot, 0ull, gcut__slot_value(j, tile)) != 0ull)
        __nanosleep(64);
}

/* Put `tile` on the worklist (grid_relabel.cu, grid_tiled.cu) unless its
 * queued flag is set: count it pending, claim slot j from the tail and
 * fill it. */
static __device__ __forceinline__ void gcut__put_tile(const gcut__dgrid &g, int tile)
{
    if (atomicExch(&g.queued[tile], 1) != 0)
        return;
    atomicAdd(&g.counters[GCUT_CNT_PENDING], 1ull);
    gcut__fill_slot(g, atomicAdd(&g.counters[GCUT_CNT_TAIL], 1ull), tile);
}

#endif
