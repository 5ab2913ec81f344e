/* One pyramid level's windowed assignment on the GPU, exact, with its proof.
 *
 * The problem (src/vision/flow_match.c): row p (a pixel of frame 0) takes a
 * pixel q of frame 1 in its window at cost(p, q), or its own occlusion
 * dummy D_p at the occlusion cost; every row is assigned, a pixel of frame 1
 * at most once. It is rectangular (n rows, 2n columns), and an auction with
 * eps-scaling is exact only on a square problem (on a rectangular one a
 * column left free may keep a price from an earlier phase, and the prices no
 * longer prove anything). So it is solved in the standard square form: one
 * slack row S_q per pixel q of frame 1, with arcs to q and to the dummy D_p
 * of every row p whose window holds q, all at cost 0. A perfect assignment
 * of the square problem restricted to the rows is an assignment of the
 * original at the same cost, and every assignment of the original extends
 * to one (S_q takes q when q is free, else the dummy of the row that took q),
 * so the two optima are equal.
 *
 * The auction (Bertsekas; asynchronous, as Bertsekas and Castanon show it
 * converges): costs scaled by S = 2n + 1; an object's price and owner share
 * one 64-bit word, so a bid is one compare-and-swap that succeeds only if
 * the price it was computed from is still there. A thread bids for its
 * person; when its bid displaces an owner, it goes on bidding for that
 * person; it stops when it takes a free object. Prices only rise, so a bid
 * computed from older prices of the other objects is still eps-complementary
 * (its second-best value can only have risen). eps is divided by alpha per
 * phase down to 1; at eps = 1 every person is within 1 of its best, the gap
 * is at most 2n < S and the assignment is optimal (gcut.h's proof: u[r] =
 * min over r's arcs of S cost + price, v = -price).
 *
 * The proof is checked here on the device (the gap, each person owning one
 * object) and the host reads those scalars; gcut_assign_verify checks the
 * same prices in the tests (gcut__flow_assign_prices_launch). */
#include <cub/device/device_scan.cuh>

#include "flow_kernels.h"
#include "gcut.h"

static unsigned blocks_for(long long count) { return (unsigned)((count + 255) / 256); }

/* The window's centre for pixel p: p + round(prior_p). */
static __device__ __forceinline__ void window_centre(const float *prior, int w, int x, int y,
                                                     int *cx, int *cy)
{
    *cx = x, *cy = y;
    if (prior) {
        *cx += (int)lrintf(prior[2 * ((size_t)y * w + x)]);
        *cy += (int)lrintf(prior[2 * ((size_t)y * w + x) + 1]);
    }
}

static __device__ __forceinline__ void window_bounds(int c, int r, int size, int *lo, int *hi)
{
    *lo = c - r < 0 ? 0 : c - r;
    *hi = c + r >= size ? size - 1 : c + r;
}

/* One thread a pixel: slack rows start with their own pixel's arc. */
static __global__ void count_init_kernel(gcut__flow_dassign a)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= a.n)
        return;
    a.count[a.n + q] = 1;
    a.fill[q] = 0;
    if (q == 0)
        a.count[2 * a.n] = 0;
}

/* One thread a row: its window and dummy, and one more arc for the slack
 * row of every pixel in the window. */
static __global__ void count_kernel(gcut__flow_dassign a, const float *__restrict__ prior)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.n)
        return;
    int x = p % a.w, y = p / a.w, cx, cy, x0, x1, y0, y1;
    window_centre(prior, a.w, x, y, &cx, &cy);
    window_bounds(cx, a.radius, a.w, &x0, &x1);
    window_bounds(cy, a.radius, a.h, &y0, &y1);
    int inside = 0;
    for (int qy = y0; qy <= y1; qy++)
        for (int qx = x0; qx <= x1; qx++) {
            atomicAdd(&a.count[a.n + qy * a.w + qx], 1);
            inside++;
        }
    a.count[p] = inside + 1;
}

/* One thread: the arc totals into the scalars. */
static __global__ void totals_kernel(gcut__flow_dassign a)
{
    a.scalars[GCUT_FLOW_S_ARCS] = a.row_ptr[2 * a.n];
    a.scalars[GCUT_FLOW_S_ROW_ARCS] = a.row_ptr[a.n];
}

/* Mean absolute grey difference over the patch, as patch_sad in
 * src/vision/flow_match.c. */
static __device__ int32_t patch_sad(const float *i0, const float *i1, int w, int h, int x, int y,
                                    int qx, int qy, int half)
{
    float sum = 0;
    for (int dy = -half; dy <= half; dy++) {
        int ya = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
        int yb = qy + dy < 0 ? 0 : qy + dy >= h ? h - 1 : qy + dy;
        for (int dx = -half; dx <= half; dx++) {
            int xa = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            int xb = qx + dx < 0 ? 0 : qx + dx >= w ? w - 1 : qx + dx;
            sum += fabsf(i0[(size_t)ya * w + xa] - i1[(size_t)yb * w + xb]);
        }
    }
    int side = 2 * half + 1;
    return (int32_t)lrintf(__fdiv_rn(__fmul_rn(sum, 255.0f), (float)(side * side)));
}

/* One thread a row: its arcs in the CPU's order (window row by row, then
 * the dummy), its dummy into the slack rows of the window's pixels, and the
 * head arc of the slack row of its own index. */
static __global__ void fill_kernel(gcut__flow_dassign a, const float *__restrict__ i0,
                                   const float *__restrict__ i1, const uint64_t *__restrict__ sig0,
                                   const uint64_t *__restrict__ sig1,
                                   const float *__restrict__ prior)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.n)
        return;
    const int n = a.n, w = a.w;
    int x = p % w, y = p / w, cx, cy, x0, x1, y0, y1;
    window_centre(prior, w, x, y, &cx, &cy);
    window_bounds(cx, a.radius, w, &x0, &x1);
    window_bounds(cy, a.radius, a.h, &y0, &y1);
    int k = a.row_ptr[p];
    for (int qy = y0; qy <= y1; qy++)
        for (int qx = x0; qx <= x1; qx++) {
            int q = qy * w + qx;
            int data = a.sad ? patch_sad(i0, i1, w, a.h, x, y, qx, qy, a.patch / 2)
                             : GCUT_FLOW_CENSUS_BIT * __popcll(sig0[p] ^ sig1[q]);
            a.arc_col[k] = q;
            a.arc_cost[k] = data + a.motion_penalty * (abs(qx - cx) + abs(qy - cy));
            k++;
            int slot = a.row_ptr[n + q] + 1 + atomicAdd(&a.fill[q], 1);
            a.arc_col[slot] = n + p;
            a.arc_cost[slot] = 0;
        }
    a.arc_col[k] = n + p;
    a.arc_cost[k] = a.occlusion_cost;
    a.arc_col[a.row_ptr[n + p]] = p;
    a.arc_cost[a.row_ptr[n + p]] = 0;
}

/* One thread an object: every owner cleared, prices kept (a new phase);
 * with `reset_prices` the prices too (a new level). */
static __global__ void clear_owners_kernel(unsigned long long *object, int objects,
                                           unsigned long long id_mask, int reset_prices)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < objects)
        object[j] = reset_prices ? 0ull : object[j] & ~id_mask;
}

/* One thread a starting person, then every person its bids displace (see
 * the top of the file). */
static __global__ void __launch_bounds__(256)
    auction_kernel(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ arc_col,
                   const int32_t *__restrict__ arc_cost, int persons, long long scale,
                   unsigned long long *object, int id_bits, unsigned long long price_limit,
                   long long eps, long long *scalars)
{
    const unsigned long long id_mask = (1ull << id_bits) - 1;
    for (int start = blockIdx.x * blockDim.x + threadIdx.x; start < persons;
         start += gridDim.x * blockDim.x) {
        int r = start;
        while (r >= 0) {
            long long d1 = LLONG_MAX, d2 = LLONG_MAX;
            int best = -1;
            unsigned long long best_word = 0;
            for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
                int j = arc_col[k];
                unsigned long long word = *(volatile unsigned long long *)&object[j];
                long long value = (long long)arc_cost[k] * scale + (long long)(word >> id_bits);
                if (value < d1 || (value == d1 && j < best)) {
                    d2 = d1, d1 = value, best = j, best_word = word;
                } else if (value < d2) {
                    d2 = value;
                }
            }
            if (d2 == LLONG_MAX) /* one arc: its object is this person's alone */
                d2 = d1;
            unsigned long long price = (best_word >> id_bits) + (unsigned long long)(d2 - d1) +
                                       (unsigned long long)eps;
            if (price >= price_limit) {
                scalars[GCUT_FLOW_S_OVERFLOW] = 1;
                break;
            }
            unsigned long long bid = price << id_bits | (unsigned long long)(r + 1);
            unsigned long long old = atomicCAS(&object[best], best_word, bid);
            if (old != best_word)
                continue; /* the price moved: bid again from the new one */
            r = (int)(old & id_mask) - 1; /* the displaced owner, or -1 */
        }
    }
}

/* One thread an object: its owner's object, a second owner or a free
 * object counted (neither can happen after a finished auction). */
static __global__ void owners_kernel(gcut__flow_dassign a, int id_bits)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= 2 * a.n)
        return;
    unsigned long long id_mask = (1ull << id_bits) - 1;
    int owner = (int)(a.object[j] & id_mask) - 1;
    if (owner < 0 || atomicExch(&a.person_object[owner], j) != -1)
        atomicAdd((unsigned long long *)&a.scalars[GCUT_FLOW_S_UNOWNED], 1ull);
}

/* u[r]: min over r's arcs of scale * cost + price (the dual that makes
 * every arc feasible); the cost of r's arc to `to` (the cheapest) in *taken. */
static __device__ long long person_dual(const gcut__flow_dassign &a, int r, long long scale,
                                        int id_bits, int to, long long *taken)
{
    long long u = LLONG_MAX;
    *taken = -1;
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) {
        int j = a.arc_col[k];
        long long value =
            (long long)a.arc_cost[k] * scale + (long long)(a.object[j] >> id_bits);
        u = value < u ? value : u;
        if (j == to && (*taken < 0 || a.arc_cost[k] < *taken))
            *taken = a.arc_cost[k];
    }
    return u;
}

/* One thread a person: the proof's gap (scale cost + price - u of its arc,
 * each >= 0), the cost, and persons without exactly one object. */
static __global__ void proof_kernel(gcut__flow_dassign a, long long scale, int id_bits)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= 2 * a.n)
        return;
    int j = a.person_object[r];
    long long taken;
    long long u = j < 0 ? 0 : person_dual(a, r, scale, id_bits, j, &taken);
    if (j < 0 || taken < 0) { /* none, or an object it has no arc to */
        atomicAdd((unsigned long long *)&a.scalars[GCUT_FLOW_S_UNOWNED], 1ull);
        return;
    }
    long long slack = taken * scale + (long long)(a.object[j] >> id_bits) - u;
    atomicAdd((unsigned long long *)&a.scalars[GCUT_FLOW_S_GAP], (unsigned long long)slack);
    if (taken)
        atomicAdd((unsigned long long *)&a.scalars[GCUT_FLOW_S_COST], (unsigned long long)taken);
}

/* One thread: the gap against the scale. */
static __global__ void gap_kernel(long long *scalars, long long scale)
{
    scalars[GCUT_FLOW_S_GAP_OVER] = scalars[GCUT_FLOW_S_GAP] >= scale;
}

/* One thread a row of frame 0: its vector (0 on its dummy). */
static __global__ void vectors_kernel(gcut__flow_dassign a, float *__restrict__ flow,
                                      uint8_t *__restrict__ matched,
                                      uint8_t *__restrict__ occluded)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.n)
        return;
    int q = a.person_object[p];
    if (q < 0 || q >= a.n) {
        matched[p] = 0;
        occluded[p] = 1;
        flow[2 * (size_t)p] = flow[2 * (size_t)p + 1] = 0;
        atomicAdd((unsigned long long *)&a.scalars[GCUT_FLOW_S_OCCLUDED], 1ull);
        return;
    }
    matched[p] = 1;
    occluded[p] = 0;
    flow[2 * (size_t)p] = (float)(q % a.w - p % a.w);
    flow[2 * (size_t)p + 1] = (float)(q / a.w - p / a.w);
}

/* One thread a person and an object: prices in gcut_assign_verify's form. */
static __global__ void prices_kernel(gcut__flow_dassign a, long long scale, int id_bits,
                                     long long *prices)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 2 * a.n)
        return;
    long long taken;
    prices[i] = person_dual(a, i, scale, id_bits, -1, &taken);
    prices[2 * a.n + i] = -(long long)(a.object[i] >> id_bits);
}

/* Bits for owner ids 1..persons. */
static int id_bits_for(int persons)
{
    int b = 1;
    while ((1ll << b) <= (long long)persons)
        b++;
    return b;
}

extern "C" cudaError_t gcut__flow_assign_scan_bytes(int n, size_t *bytes)
{
    *bytes = 0;
    return cub::DeviceScan::ExclusiveSum(NULL, *bytes, (int32_t *)NULL, (int32_t *)NULL,
                                         2 * n + 1);
}

extern "C" cudaError_t gcut__flow_assign_count_launch(gcut__flow_dassign *a, const float *prior,
                                                      cudaStream_t stream)
{
    count_init_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a);
    count_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, prior);
    cudaError_t err = cudaPeekAtLastError();
    if (err)
        return err;
    err = cub::DeviceScan::ExclusiveSum(a->scan_temp, a->scan_temp_bytes, a->count, a->row_ptr,
                                        2 * a->n + 1, stream);
    if (err)
        return err;
    totals_kernel<<<1, 1, 0, stream>>>(*a);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_fill_launch(gcut__flow_dassign *a, const float *i0,
                                                     const float *i1, const uint64_t *sig0,
                                                     const uint64_t *sig1, const float *prior,
                                                     cudaStream_t stream)
{
    fill_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, i0, i1, sig0, sig1, prior);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_solve_launch(gcut__flow_dassign *a, long long maxcost,
                                                      int alpha, int *phases,
                                                      cudaStream_t stream)
{
    const int persons = 2 * a->n, id_bits = id_bits_for(persons);
    const long long scale = (long long)persons + 1;
    const unsigned long long id_mask = (1ull << id_bits) - 1;
    const unsigned long long price_limit = 1ull << (63 - id_bits);
    const unsigned blocks = blocks_for(persons);
    long long eps = maxcost * scale / alpha;
    eps = eps < 1 ? 1 : eps;
    *phases = 0;
    clear_owners_kernel<<<blocks, 256, 0, stream>>>(a->object, persons, id_mask, 1);
    for (;;) {
        auction_kernel<<<blocks, 256, 0, stream>>>(a->row_ptr, a->arc_col, a->arc_cost, persons,
                                                   scale, a->object, id_bits, price_limit, eps,
                                                   a->scalars);
        ++*phases;
        if (eps == 1)
            break;
        eps = eps / alpha < 1 ? 1 : eps / alpha;
        clear_owners_kernel<<<blocks, 256, 0, stream>>>(a->object, persons, id_mask, 0);
    }
    cudaError_t err = cudaMemsetAsync(a->person_object, 0xff, (size_t)persons * sizeof(int32_t),
                                      stream);
    if (err)
        return err;
    owners_kernel<<<blocks, 256, 0, stream>>>(*a, id_bits);
    proof_kernel<<<blocks, 256, 0, stream>>>(*a, scale, id_bits);
    gap_kernel<<<1, 1, 0, stream>>>(a->scalars, scale);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_vectors_launch(const gcut__flow_dassign *a, float *flow,
                                                        uint8_t *matched, uint8_t *occluded,
                                                        cudaStream_t stream)
{
    vectors_kernel<<<blocks_for(a->n), 256, 0, stream>>>(*a, flow, matched, occluded);
    return cudaPeekAtLastError();
}

extern "C" cudaError_t gcut__flow_assign_prices_launch(const gcut__flow_dassign *a,
                                                       long long *prices, cudaStream_t stream)
{
    const int persons = 2 * a->n;
    prices_kernel<<<blocks_for(persons), 256, 0, stream>>>(*a, (long long)persons + 1,
                                                           id_bits_for(persons), prices);
    return cudaPeekAtLastError();
}
