/* Host side of the GPU cost-scaling assignment: the problem moved to the
 * device, the phases (eps divided by alpha down to 1), each a loop of
 * rounds (general_kernels/assign_csa.cu) until no row is active, the
 * solution moved back. The host reads the active count every few rounds
 * (empty rounds cost two small launches); the first phase also watches
 * the rows whose price fell past the feasibility bound (see
 * src/cpu/assign_csa.c) and the rows without arcs. */
#include <stdlib.h>
#include <string.h>

#include "assign_kernels.h"
#include "core/context.h"
#include "gpu/gpu_state.h"
#include "graph/assign_problem.h"

/* Rounds between reads of the active count. */
#define ROUNDS_PER_READ 8

extern "C" gcut_status gcut__gpu_assign(gcut_context *ctx, gcut__assign_problem *p,
                                        const gcut__assign_knobs *knobs,
                                        gcut__assign_result *res, const char **device)
{
    gcut__gpu *s = NULL;
    gcut_status st = gcut__gpu_acquire(ctx, &s);
    if (st)
        return st;
    *device = s->name;
    const int32_t n = p->n;
    const size_t nn = (size_t)(n > 0 ? n : 1), mm = (size_t)(p->m > 0 ? p->m : 1);
    const int alpha = knobs && knobs->alpha > 1 ? knobs->alpha : 10;
    cudaStream_t stream = s->stream;
    gcut__dassign d;
    memset(&d, 0, sizeof d);
    d.n = n;
    long long *row_ptr = NULL, *cost = NULL, *start_min = NULL;
    int32_t *col = NULL;
    int32_t *h_count = NULL;
    long long *h_start = NULL;
    int sms = 0;
    int64_t round = 0;
    if (n == 0)
        return GCUT_OK;
    GPU_CHECK(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->device));
    GPU_CHECK(ctx, cudaMalloc((void **)&row_ptr, (nn + 1) * sizeof *row_ptr));
    GPU_CHECK(ctx, cudaMalloc((void **)&col, mm * sizeof *col));
    GPU_CHECK(ctx, cudaMalloc((void **)&cost, mm * sizeof *cost));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.price, nn * sizeof *d.price));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.row_col, nn * sizeof *d.row_col));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.col_row, nn * sizeof *d.col_row));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.won, nn * sizeof *d.won));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.bid_col, nn * sizeof *d.bid_col));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.bid_price, nn * sizeof *d.bid_price));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.list[0], nn * sizeof *d.list[0]));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.list[1], nn * sizeof *d.list[1]));
    GPU_CHECK(ctx, cudaMalloc((void **)&d.count, 4 * sizeof *d.count));
    GPU_CHECK(ctx, cudaMallocHost((void **)&h_count, 4 * sizeof *h_count));
    d.row_ptr = row_ptr;
    d.col = col;
    d.cost = cost;
    GPU_CHECK(ctx, cudaMemcpyAsync(row_ptr, p->row_ptr, (nn + 1) * sizeof *row_ptr,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(col, p->col, (size_t)p->m * sizeof *col,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(cost, p->cost, (size_t)p->m * sizeof *cost,
                                   cudaMemcpyHostToDevice, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d.price, 0, nn * sizeof *d.price, stream));
    GPU_CHECK(ctx, cudaMemsetAsync(d.won, 0, nn * sizeof *d.won, stream));
    {
        const int32_t none[4] = {0, 0, -1, -1};
        GPU_CHECK(ctx, cudaMemcpy(d.count, none, sizeof none, cudaMemcpyHostToDevice));
    }
    {
        /* lanes a row from the mean degree: a warp for dense rows */
        const double mean = (double)p->m / n;
        const int lanes = mean >= 48 ? 32 : mean >= 12 ? 8 : 4;
        const int64_t range = p->cost_max - p->cost_min;
        const int64_t eps0 = range > 0 ? range : 1;
        int64_t eps = eps0;
        int first = 1;
        if (p->may_be_infeasible) {
            h_start = (long long *)malloc(nn * sizeof *h_start);
            if (!h_start) {
                st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
                goto fail;
            }
            for (int32_t x = 0; x < n; x++) {
                long long b = INT64_MAX;
                for (int64_t a = p->row_ptr[x]; a < p->row_ptr[x + 1]; a++)
                    if (p->cost[a] < b)
                        b = p->cost[a];
                h_start[x] = b;
            }
            GPU_CHECK(ctx, cudaMalloc((void **)&start_min, nn * sizeof *start_min));
            GPU_CHECK(ctx, cudaMemcpy(start_min, h_start, nn * sizeof *start_min,
                                      cudaMemcpyHostToDevice));
        }
        do {
            eps = eps / alpha > 1 ? eps / alpha : 1;
            d.start_min = first && p->may_be_infeasible ? start_min : NULL;
            d.drop_bound = eps0 + eps > INT64_MAX / (2 * (int64_t)n + 2)
                               ? INT64_MAX
                               : (2 * (int64_t)n + 2) * (eps0 + eps);
            GPU_CHECK(ctx, gcut__assign_reset(&d, stream));
            int cur = 0;
            for (;;) {
                for (int k = 0; k < ROUNDS_PER_READ; k++) {
                    round++;
                    if (round >= INT32_MAX) {
                        st = gcut__fail(ctx, GCUT_E_STATE, "assign: the GPU solve ran 2^31 rounds");
                        goto fail;
                    }
                    GPU_CHECK(ctx, gcut__assign_round(&d, cur, eps, lanes, (int)round, sms,
                                                      stream));
                    cur ^= 1;
                }
                GPU_CHECK(ctx, cudaMemcpyAsync(h_count, d.count, 4 * sizeof *h_count,
                                               cudaMemcpyDeviceToHost, stream));
                GPU_CHECK(ctx, cudaStreamSynchronize(stream));
                if (h_count[2] >= 0 || h_count[3] >= 0) {
                    res->stuck_row = h_count[3] >= 0 ? h_count[3] : h_count[2];
                    GPU_CHECK(ctx, cudaMemcpy(res->row_col, d.row_col, nn * sizeof *res->row_col,
                                              cudaMemcpyDeviceToHost));
                    st = GCUT_E_INFEASIBLE;
                    goto fail;
                }
                if (h_count[cur] == 0)
                    break;
            }
            res->refines++;
            first = 0;
        } while (eps > 1);
        res->pushes += round;
    }
    GPU_CHECK(ctx, cudaMemcpyAsync(res->row_col, d.row_col, nn * sizeof *res->row_col,
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaMemcpyAsync(res->price, d.price, nn * sizeof *res->price,
                                   cudaMemcpyDeviceToHost, stream));
    GPU_CHECK(ctx, cudaStreamSynchronize(stream));
fail:
    cudaFree(row_ptr);
    cudaFree(col);
    cudaFree(cost);
    cudaFree(start_min);
    cudaFree(d.price);
    cudaFree(d.row_col);
    cudaFree(d.col_row);
    cudaFree(d.won);
    cudaFree(d.bid_col);
    cudaFree(d.bid_price);
    cudaFree(d.list[0]);
    cudaFree(d.list[1]);
    cudaFree(d.count);
    cudaFreeHost(h_count);
    free(h_start);
    cudaGetLastError();
    return st;
}
