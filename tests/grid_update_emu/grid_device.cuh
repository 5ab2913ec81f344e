/* Stand-in for grid_kernels/grid_device.cuh under the CPU emulation
 * (tests/grid_update_emu/run.sh): the helpers grid_update.cu uses, with
 * the block-wide sum done by one atomic per thread (a sequential launch
 * has no warps to shuffle across). */
#ifndef GCUT_GRID_DEVICE_CUH
#define GCUT_GRID_DEVICE_CUH

#include "grid_kernels.h"

static inline int dir_dx(int d)
{
    return (d == 0 || d == 4 || d == 6) ? 1 : (d == 1 || d == 5 || d == 7) ? -1 : 0;
}

static inline int dir_dy(int d)
{
    return (d == 2 || d == 5 || d == 6) ? 1 : (d == 3 || d == 4 || d == 7) ? -1 : 0;
}

static inline int load_volatile(const int32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static inline int atomicSub(int *p, int v)
{
    return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}

static inline void block_add(unsigned long long *sum, unsigned long long value)
{
    if (value)
        atomicAdd(sum, value);
}

#endif
