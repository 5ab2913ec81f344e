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

#endif
