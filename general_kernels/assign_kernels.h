/* Kernels of the GPU cost-scaling assignment (general_kernels/assign_csa.cu)
 * and their launchers, called by src/gpu/assign_gpu.cu. Each returns the
 * launch's error (cudaSuccess when queued). */
#ifndef GCUT_GENERAL_KERNELS_ASSIGN_KERNELS_H
#define GCUT_GENERAL_KERNELS_ASSIGN_KERNELS_H

#include <cuda_runtime.h>
#include <stdint.h>

/* The square problem and the solver's state on the device. */
typedef struct gcut__dassign {
    int32_t n;
    const long long *row_ptr; /* n + 1 */
    const int32_t *col;       /* m */
    const long long *cost;    /* m, scaled */
    long long *price;         /* n columns; also the bid target (atomicMin) */
    int32_t *row_col;         /* matched column of each row, -1 */
    int32_t *col_row;         /* owner of each column, -1 */
    int32_t *won;             /* the last round a column was won in */
    int32_t *bid_col;         /* this round's bid of each active row */
    long long *bid_price;
    int32_t *list[2];         /* active rows: this round's and the next */
    int32_t *count;           /* [2] list sizes, [2] the infeasible row (-1), [3] rows without arcs */
    const long long *start_min; /* first phase: a row's best c' at prices 0 (NULL: no test) */
    long long drop_bound;
} gcut__dassign;

/* Every row unmatched and active (list 0), every column free. */
cudaError_t gcut__assign_reset(const gcut__dassign *d, cudaStream_t stream);

/* One round over list[cur]: every active row bids for its best column
 * (lanes_per_row lanes a row: 4, 8 or 32), then the lowest bid of each
 * column wins it, evicting its owner; losers and evicted rows go to
 * list[cur ^ 1] (its count zeroed first). */
cudaError_t gcut__assign_round(const gcut__dassign *d, int cur, long long eps, int lanes_per_row,
                               int round, int sms, cudaStream_t stream);

#endif
