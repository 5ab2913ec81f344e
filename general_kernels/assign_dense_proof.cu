/* The proof of a dense assignment on the device: one pass over the n x n
 * costs gives every row's dual (its least reduced cost under the column
 * prices) and the gap of its assigned arc above it. The host then needs
 * only n reads of the request for the total cost and the permutation. The
 * duals make every arc's reduced cost c - u - v >= 0 by construction, so
 * the assignment is optimal exactly when the gap's sum is below the scale
 * (gcut_assign_verify's test, src/graph/assign_verify.c). */
#include "assign_kernels.h"

#define PROOF_BLOCK 256
#define INF64 0x7fffffffffffffffLL

/* One block a row: its threads take the row's columns in turn (loads of
 * consecutive costs), then a warp and a block minimum. */
static __global__ __launch_bounds__(PROOF_BLOCK) void dense_proof_kernel(
    gcut__dassign d, const long long *price, const int32_t *row_col, long long scale,
    long long *dual, unsigned long long *gap)
{
    __shared__ long long s_min[PROOF_BLOCK / 32];
    for (int32_t x = blockIdx.x; x < d.n; x += gridDim.x) {
        const int32_t *row = d.cost32 + (long long)x * d.n;
        long long u = INF64;
        for (int32_t y = threadIdx.x; y < d.n; y += PROOF_BLOCK)
            u = min(u, (long long)__ldg(&row[y]) * d.unit - price[y]);
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            u = min(u, __shfl_xor_sync(0xffffffffu, u, off));
        if (threadIdx.x % 32 == 0)
            s_min[threadIdx.x / 32] = u;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < PROOF_BLOCK / 32; w++)
                u = min(u, s_min[w]);
            dual[x] = u;
            const int32_t y = row_col[x];
            if (y < 0 || y >= d.n) {
                atomicAdd(&gap[1], 1ull);
            } else {
                const long long term = (long long)row[y] * d.unit - price[y] - u;
                atomicAdd(&gap[0], (unsigned long long)(term < scale ? term : scale));
            }
        }
        __syncthreads(); /* s_min is reused by the next row */
    }
}

cudaError_t gcut__assign_dense_proof(const gcut__dassign *d, const long long *price,
                                     const int32_t *row_col, long long scale, long long *dual,
                                     unsigned long long *gap, cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(gap, 0, 2 * sizeof *gap, stream);
    if (err != cudaSuccess)
        return err;
    const int blocks = d->n < 65536 ? d->n : 65536;
    dense_proof_kernel<<<blocks > 0 ? blocks : 1, PROOF_BLOCK, 0, stream>>>(*d, price, row_col,
                                                                          scale, dual, gap);
    return cudaGetLastError();
}
