/* gcut_assign_csr: checking a request, making it the square problem the
 * cost-scaling solvers take, running one, and turning its prices into the
 * caller's proof.
 *
 * Square, not partial: solved as given (S = rows + 1).
 * Anything else (rows < cols, or GCUT_ASSIGN_PARTIAL): a square problem of
 * rows + cols on each side (S = rows + cols + 1), always perfect when the
 * request is feasible:
 *   real row r:     its arcs to real columns (cost c), and with PARTIAL an
 *                   arc to its own dummy column d_r at cost B;
 *   dummy row e_c:  one per real column c: an arc to c (cost 0) and an arc
 *                   to d_r (cost 0) for every arc (r, c) of the request.
 * An assignment M of the request is e_c -> c for the columns M leaves free,
 * e_M(r) -> d_r for the rows it assigns and r -> d_r for the others, at the
 * cost of M plus B per row left over, and every perfect assignment of the
 * square problem reads back as one of the request. Its duals U, V give the
 * request's: u_r = U(r) + V(d_r) - B, v_c = V(c) + U(e_c), with the same gap
 * (every bracket is an arc constraint of the square problem).
 *
 * No perfect assignment: the first phase of cost scaling says so (see
 * src/cpu/assign_csa.c) and an augmenting-path search from the solver's
 * assignment names the Hall violator: the rows an unassigned row reaches by
 * alternating paths, and the fewer columns they reach. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_budget.h"
#include "core/parallel.h"
#include "core/solver_device.h"
#include "cpu/assign_candidates.h"
#include "cpu/assign_csa_dense.h"
#include "gpu/gpu.h"
#include "graph/assign_problem.h"

/* --device auto's arcs for the GPU: its device up, or still to start. */
#define AUTO_GPU_ARCS_WARM 1000000
#define AUTO_GPU_ARCS_COLD 4000000

const char *gcut_assign_algorithms(void)
{
#ifdef GCUT_HAVE_CUDA
    return "csa,ssp,gpu-csa";
#else
    return "csa,ssp";
#endif
}

/* The CPU solver when none is named: shortest paths on rectangular and
 * partial requests, where their many free columns keep every search short;
 * cost scaling on square ones (measured: bench/results/assign_ssp_dev-vm-2core.md). */
static int ssp_by_default(int32_t rows, int32_t cols, unsigned flags)
{
    return rows != cols || (flags & GCUT_ASSIGN_PARTIAL);
}

/* What check_request needs from a range of rows' arcs, one entry a part. */
typedef struct arc_scan {
    const int64_t *row_ptr;
    const int32_t *col_idx, *cost;
    int32_t cols;
    int64_t sign;
    int64_t *row_min; /* NULL, or each row's least sign * cost (INT64_MAX: no arcs) */
    struct {
        int32_t lo, hi; /* the raw costs' least and largest */
        int any, bad, in_order, sorted;
    } part[GCUT__MAX_THREADS];
} arc_scan;

static void scan_rows(void *arg, int64_t begin, int64_t end, int part)
{
    arc_scan *a = arg;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    int bad = 0, order = 1, unsorted = 0;
    for (int64_t r = begin; r < end; r++) {
        const int64_t first = a->row_ptr[r], last = a->row_ptr[r + 1];
        /* min, max and the column tests without branches, so that the
         * loops vectorize: they read every arc, n^2 of them when dense */
        int moved = 0;
        int32_t rlo = INT32_MAX, rhi = INT32_MIN;
        for (int64_t k = first; k < last; k++) {
            const int32_t y = a->col_idx[k], c = a->cost[k];
            bad |= (uint32_t)y >= (uint32_t)a->cols;
            moved |= y != (int32_t)(k - first);
            rlo = c < rlo ? c : rlo;
            rhi = c > rhi ? c : rhi;
        }
        for (int64_t k = first + 1; k < last; k++) /* the row's cache lines, still near */
            unsorted |= a->col_idx[k] <= a->col_idx[k - 1];
        order &= !moved && last - first == a->cols;
        lo = rlo < lo ? rlo : lo;
        hi = rhi > hi ? rhi : hi;
        if (a->row_min)
            a->row_min[r] = last == first ? INT64_MAX : a->sign > 0 ? (int64_t)rlo : -(int64_t)rhi;
    }
    a->part[part].lo = lo;
    a->part[part].hi = hi;
    a->part[part].any = a->row_ptr[end] > a->row_ptr[begin];
    a->part[part].bad = bad;
    a->part[part].in_order = order;
    a->part[part].sorted = !unsorted;
}

/* The request's arcs checked, its cost range after the sign, *in_order:
 * every row lists the columns 0..cols-1 once each, in order (a dense
 * matrix, row-major), and *sorted: every row's columns strictly increase
 * (no column twice). With row_min (rows entries, or NULL), each row's
 * least cost after the sign (INT64_MAX for a row without arcs). The arcs
 * are read once, on the context's threads (a dense request's n^2 of them
 * were most of the GPU path's set-up). */
static gcut_status check_request(gcut_context *ctx, int32_t rows, int32_t cols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const int32_t *cost, unsigned flags, int64_t *cmin,
                                 int64_t *cmax, int *in_order, int *sorted, int64_t **row_min)
{
    if (rows < 0 || cols < 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "assign: %d rows and %d columns", rows, cols);
    if ((int64_t)rows + cols >= INT32_MAX - 1)
        return gcut__fail(ctx, GCUT_E_OVERFLOW,
                          "assign: %d rows and %d columns: more than 2^31 - 3 together", rows,
                          cols);
    if (flags & ~(GCUT_ASSIGN_MAXIMIZE | GCUT_ASSIGN_PARTIAL))
        return gcut__fail(ctx, GCUT_E_INVALID, "assign: unknown flags 0x%x", flags);
    if (!row_ptr || (rows > 0 && row_ptr[rows] > 0 && (!col_idx || !cost)))
        return gcut__fail(ctx, GCUT_E_INVALID, "assign: a NULL array");
    if (row_ptr[0] != 0)
        return gcut__fail(ctx, GCUT_E_INVALID, "assign: row_ptr[0] is %lld, not 0",
                          (long long)row_ptr[0]);
    for (int32_t r = 0; r < rows; r++) {
        if (row_ptr[r + 1] < row_ptr[r])
            return gcut__fail(ctx, GCUT_E_INVALID, "assign: row_ptr decreases at row %d", r);
        if (row_ptr[r + 1] > (int64_t)1 << 40)
            return gcut__fail(ctx, GCUT_E_OVERFLOW, "assign: more than 2^40 arcs");
    }
    arc_scan *scan = malloc(sizeof *scan);
    if (!scan)
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory");
    /* without room for it the row minima are left to the solver */
    if (row_min && rows > 0)
        *row_min = malloc((size_t)rows * sizeof **row_min);
    scan->row_ptr = row_ptr;
    scan->col_idx = col_idx;
    scan->cost = cost;
    scan->cols = cols;
    scan->sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    scan->row_min = row_min ? *row_min : NULL;
    int parts = gcut__thread_count(ctx ? ctx->options.threads : 0, rows > 0 ? row_ptr[rows] : 0);
    if (parts > rows)
        parts = rows > 0 ? rows : 1;
    gcut__parallel_for(parts, rows, scan_rows, scan);
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    int bad = 0, order = 1, any = 0, ascending = 1;
    *cmin = INT64_MAX;
    *cmax = INT64_MIN;
    for (int i = 0; i < parts && rows > 0; i++) {
        bad |= scan->part[i].bad;
        order &= scan->part[i].in_order;
        ascending &= scan->part[i].sorted;
        if (!scan->part[i].any)
            continue;
        any = 1;
        const int64_t a = sign * scan->part[i].lo, b = sign * scan->part[i].hi;
        const int64_t mn = a < b ? a : b, mx = a < b ? b : a; /* b < a when maximizing */
        if (mn < *cmin)
            *cmin = mn;
        if (mx > *cmax)
            *cmax = mx;
    }
    free(scan);
    /* the first arc out of range, for the message */
    for (int32_t r = 0; r < rows && bad; r++)
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
            if (col_idx[k] < 0 || col_idx[k] >= cols)
                return gcut__fail(ctx, GCUT_E_RANGE,
                                  "assign: arc %lld of row %d: column %d outside 0..%d",
                                  (long long)k, r, col_idx[k], cols - 1);
    *in_order = order;
    *sorted = ascending;
    if (!any)
        *cmin = *cmax = 0;
    return GCUT_OK;
}

int64_t gcut_assign_partial_weight(int32_t rows, int32_t cols, const int64_t *row_ptr,
                                   const int32_t *col_idx, const int32_t *cost, unsigned flags)
{
    (void)col_idx;
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    int64_t lo = 0, hi = 0;
    int any = 0;
    for (int64_t k = 0; rows > 0 && k < row_ptr[rows]; k++) {
        const int64_t c = sign * cost[k];
        if (!any || c < lo)
            lo = c;
        if (!any || c > hi)
            hi = c;
        any = 1;
    }
    const int64_t k = (rows < cols ? rows : cols) - 1;
    return (k > 0 ? k : 0) * (hi - lo) + (hi < 0 ? -hi : hi) + 1;
}

int64_t gcut__assign_bytes(int32_t rows, int32_t cols, int64_t arcs, unsigned flags)
{
    const int partial = (flags & GCUT_ASSIGN_PARTIAL) != 0;
    const int square = rows == cols && !partial;
    const int64_t n = square ? rows : (int64_t)rows + cols;
    const int64_t room =
        square ? arcs : gcut__memory_mul_add(arcs, 2, (int64_t)cols + (partial ? rows : 0));
    /* Per arc: the problem's column and cost (12 bytes; the default knobs
     * make no price updates, whose transpose would double it). Per node:
     * row_ptr, the CPU solver's state with its cache of 8 arcs, the result
     * and the request's prices (208 bytes, rounded up; 24 more arcs of
     * cache, 288 bytes, where rows average 4096 arcs: assign_csa.c). Per
     * column: build_problem's lookup. */
    const int64_t per_node = room >= 4096 * n ? 208 + 288 : 208;
    return gcut__memory_mul_add(
        room, 12, gcut__memory_mul_add(n + 1, per_node, gcut__memory_mul_add(cols, 12, 0)));
}

/* The square problem of a request (see the top of the file). */
static gcut_status build_problem(gcut_context *ctx, int32_t rows, int32_t cols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const int32_t *cost, unsigned flags, int64_t scale, int64_t big,
                                 gcut__assign_problem *p)
{
    const int square = rows == cols && !(flags & GCUT_ASSIGN_PARTIAL);
    const int partial = (flags & GCUT_ASSIGN_PARTIAL) != 0;
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    const int64_t m_in = rows > 0 ? row_ptr[rows] : 0;
    const int32_t n = square ? rows : rows + cols;
    const int64_t room = square ? m_in : 2 * m_in + cols + (partial ? rows : 0);
    memset(p, 0, sizeof *p);
    p->n = n;
    p->row_ptr = malloc(((size_t)n + 1) * sizeof *p->row_ptr);
    p->col = malloc((size_t)(room ? room : 1) * sizeof *p->col);
    p->cost = malloc((size_t)(room ? room : 1) * sizeof *p->cost);
    int64_t *where = malloc(((size_t)cols + 1) * sizeof *where); /* a column's arc in this row */
    int32_t *stamp = malloc(((size_t)cols + 1) * sizeof *stamp);
    if (!p->row_ptr || !p->col || !p->cost || !where || !stamp) {
        free(where);
        free(stamp);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %lld arcs",
                          (long long)room);
    }
    for (int32_t c = 0; c < cols; c++)
        stamp[c] = -1;
    /* Real rows: one arc per column, the cheapest of repeated ones. */
    int64_t m = 0;
    p->row_ptr[0] = 0;
    for (int32_t r = 0; r < rows; r++) {
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
            const int32_t c = col_idx[k];
            const int64_t v = sign * cost[k] * scale;
            if (stamp[c] == r) {
                if (v < p->cost[where[c]])
                    p->cost[where[c]] = v;
                continue;
            }
            stamp[c] = r;
            where[c] = m;
            p->col[m] = c;
            p->cost[m++] = v;
        }
        if (partial) {
            p->col[m] = cols + r;
            p->cost[m++] = big * scale;
        }
        p->row_ptr[r + 1] = m;
    }
    if (!square) {
        /* Dummy rows: e_c -> c, then e_c -> d_r for the (deduplicated) arcs
         * (r, c), by counting the real arcs per column. */
        const int64_t real_end = m;
        int64_t *count = where; /* reused: cols + 1 entries */
        memset(count, 0, ((size_t)cols + 1) * sizeof *count);
        for (int32_t r = 0; r < rows; r++)
            for (int64_t k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++)
                if (p->col[k] < cols)
                    count[p->col[k] + 1]++;
        for (int32_t c = 0; c < cols; c++) {
            p->row_ptr[rows + c + 1] = p->row_ptr[rows + c] + 1 + count[c + 1];
            count[c + 1] = 0;
        }
        for (int32_t c = 0; c < cols; c++) {
            const int64_t at = p->row_ptr[rows + c];
            p->col[at] = c;
            p->cost[at] = 0;
            count[c] = at + 1; /* next free slot of e_c */
        }
        for (int32_t r = 0; r < rows; r++)
            for (int64_t k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) {
                const int32_t c = p->col[k];
                if (c >= cols)
                    continue;
                const int64_t at = count[c]++;
                p->col[at] = cols + r;
                p->cost[at] = 0;
            }
        m = p->row_ptr[n];
        (void)real_end;
    }
    p->m = m;
    p->cost_min = INT64_MAX;
    p->cost_max = INT64_MIN;
    for (int64_t k = 0; k < m; k++) {
        if (p->cost[k] < p->cost_min)
            p->cost_min = p->cost[k];
        if (p->cost[k] > p->cost_max)
            p->cost_max = p->cost[k];
    }
    if (m == 0)
        p->cost_min = p->cost_max = 0;
    p->may_be_infeasible = !partial;
    free(where);
    free(stamp);
    return GCUT_OK;
}

static void free_problem(gcut__assign_problem *p)
{
    if (p->cost32) /* a view: the arrays are the caller's */
        return;
    free(p->row_ptr);
    free(p->col);
    free(p->cost);
}

/* A square request whose rows list each column at most once is its own
 * square problem: the GPU takes it as it is, its arcs the caller's arrays
 * and its costs the caller's times the signed scale (the kernels multiply),
 * so that nothing of the size of the arcs is built or copied on the host.
 * On the R = 5 window (27 M arcs, H100 host) the set-up before the GPU's
 * phases went from 505 ms (the build, the 32-bit compaction and the row
 * minima, serial passes each) to 44
 * (bench/results/assign_NVIDIA_H100_80GB_HBM3.md). The CPU solver, which
 * reorders arcs and takes 64-bit costs, gets the built problem instead
 * (problem_for_cpu). */
static void problem_view(int32_t n, const int64_t *row_ptr, const int32_t *col_idx,
                         const int32_t *cost, int64_t sign, int64_t scale, int64_t cmin,
                         int64_t cmax, gcut__assign_problem *p)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->m = row_ptr[n];
    p->row_ptr = (int64_t *)row_ptr; /* read only: the GPU path never writes the problem */
    p->col = (int32_t *)col_idx;
    p->cost32 = cost;
    p->unit32 = sign * scale;
    p->cost_min = cmin * scale;
    p->cost_max = cmax * scale;
    p->may_be_infeasible = 1;
}

/* The problem the CPU solver takes: built from the request where `p` is a
 * view (a GPU solve that falls back, or a repair after its infeasibility
 * test); the row minima stay. */
static gcut_status problem_for_cpu(gcut_context *ctx, int32_t rows, int32_t cols,
                                   const int64_t *row_ptr, const int32_t *col_idx,
                                   const int32_t *cost, unsigned flags, int64_t scale,
                                   int64_t big, gcut__assign_problem *p)
{
    if (!p->cost32)
        return GCUT_OK;
    const int64_t *row_min = p->row_min;
    gcut_status st = build_problem(ctx, rows, cols, row_ptr, col_idx, cost, flags, scale, big, p);
    p->row_min = row_min;
    return st;
}

/* Print up to 8 ids (1-based) of list[0..count) into buf. */
static void id_list(char *buf, size_t size, const int32_t *list, int32_t count)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < count && i < 8 && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%d", i ? ", " : "", list[i] + 1);
    if (count > 8 && at < size)
        snprintf(buf + at, size - at, ", ...");
}

/* Augmenting paths from the solver's assignment until a row has none; that
 * row's alternating tree is the Hall violator. Returns GCUT_E_INFEASIBLE
 * with the message, or GCUT_OK when every row could be assigned (the
 * solver's first-phase test was wrong: the caller solves again without it). */
static gcut_status hall_violator(gcut_context *ctx, int32_t rows, int32_t cols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const int32_t *start_col)
{
    int32_t *row_col = malloc(((size_t)rows + 1) * sizeof *row_col);
    int32_t *col_row = malloc(((size_t)cols + 1) * sizeof *col_row);
    int32_t *pred = malloc(((size_t)cols + 1) * sizeof *pred); /* row a column was reached from */
    int32_t *seen = malloc(((size_t)cols + 1) * sizeof *seen);
    int32_t *queue = malloc(((size_t)rows + 1) * sizeof *queue);
    int32_t *cols_seen = malloc(((size_t)cols + 1) * sizeof *cols_seen);
    gcut_status st = GCUT_OK;
    if (!row_col || !col_row || !pred || !seen || !queue || !cols_seen) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for the Hall search");
        goto done;
    }
    for (int32_t c = 0; c < cols; c++)
        col_row[c] = -1, seen[c] = -1;
    for (int32_t r = 0; r < rows; r++) {
        const int32_t c = start_col ? start_col[r] : -1;
        row_col[r] = c >= 0 && c < cols && col_row[c] < 0 ? c : -1;
        if (row_col[r] >= 0)
            col_row[c] = r;
    }
    for (int32_t root = 0; root < rows; root++) {
        if (row_col[root] >= 0)
            continue;
        int32_t head = 0, tail = 0, ncols = 0, found = -1;
        queue[tail++] = root;
        while (head < tail && found < 0) {
            const int32_t r = queue[head++];
            for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
                const int32_t c = col_idx[k];
                if (seen[c] == root)
                    continue;
                seen[c] = root;
                pred[c] = r;
                cols_seen[ncols++] = c;
                if (col_row[c] < 0) {
                    found = c;
                    break;
                }
                queue[tail++] = col_row[c];
            }
        }
        if (found < 0) {
            char rbuf[160], cbuf[160];
            id_list(rbuf, sizeof rbuf, queue, tail);
            id_list(cbuf, sizeof cbuf, cols_seen, ncols);
            st = gcut__fail(ctx, GCUT_E_INFEASIBLE,
                            "assign: no assignment of every row: the %d rows {%s} (1-based) can "
                            "take only the %d columns {%s}",
                            tail, rbuf, ncols, ncols ? cbuf : "");
            goto done;
        }
        for (int32_t c = found;;) {
            const int32_t r = pred[c], next = row_col[r];
            row_col[r] = c;
            col_row[c] = r;
            if (r == root)
                break;
            c = next;
        }
    }
done:
    free(row_col);
    free(col_row);
    free(pred);
    free(seen);
    free(queue);
    free(cols_seen);
    return st;
}

/* A rectangular or partial request's proof from the square problem's
 * column prices V: the row duals U(x) = min over x's arcs of c - V, then
 * the mapping at the top. */
static void request_prices(const gcut__assign_problem *p, int32_t rows, int32_t cols,
                           int64_t big_scaled, const int64_t *V, int64_t *out)
{
    for (int32_t x = 0; x < p->n; x++) {
        int64_t u = INT64_MAX;
        for (int64_t k = p->row_ptr[x]; k < p->row_ptr[x + 1]; k++) {
            const int64_t v = p->cost[k] - V[p->col[k]];
            if (v < u)
                u = v;
        }
        if (u == INT64_MAX)
            u = 0; /* a row without arcs (never assigned; infeasible unless partial) */
        if (x < rows)
            out[x] = u + V[cols + x] - big_scaled;
        else /* e_c: out[rows + c] */
            out[x] = V[x - rows] + u;
    }
}

/* The proof of a square request's solve, from the caller's arrays and the
 * solver's column prices V, in one pass over the arcs on the context's
 * threads (as the dense path's proof does): each row's dual u(x) =
 * min over its arcs of c * S - V (so that every reduced cost is >= 0 by
 * its making), its column's cheapest arc, and that arc's reduced cost above
 * u, capped at the scale; optimal when their sum, the gap, is below the
 * scale (gcut_assign_verify's test, whose other checks take n reads here:
 * one column a row, prices within 2^62). Three serial passes (the total,
 * the duals, gcut_assign_verify) took 124 ms on R = 5's 27 M arcs, this
 * one 5 ms on 16 threads; --verify still runs gcut_assign_verify on what
 * comes back. */
typedef struct square_proof {
    const int64_t *row_ptr;
    const int32_t *col_idx, *cost, *row_col;
    int64_t sign, scale;
    const int64_t *V;
    int64_t *u; /* out: the row duals */
    struct {
        int64_t total, gap;
        int32_t bad; /* the part's first row without its column's arc (-1: none) */
    } part[GCUT__MAX_THREADS];
} square_proof;

static void square_proof_rows(void *arg, int64_t begin, int64_t end, int part)
{
    square_proof *q = arg;
    const int64_t sign = q->sign, scale = q->scale;
    int64_t total = 0, gap = 0;
    int32_t bad = -1;
    for (int64_t x = begin; x < end; x++) {
        const int32_t c = q->row_col[x];
        int64_t u = INT64_MAX, taken = INT64_MAX;
        for (int64_t k = q->row_ptr[x]; k < q->row_ptr[x + 1]; k++) {
            const int32_t y = q->col_idx[k];
            const int64_t cs = sign * q->cost[k];
            const int64_t r = cs * scale - q->V[y];
            u = r < u ? r : u;
            taken = y == c && cs < taken ? cs : taken;
        }
        q->u[x] = u == INT64_MAX ? 0 : u; /* a row without arcs is never assigned */
        if (c < 0 || taken == INT64_MAX) {
            bad = bad < 0 ? (int32_t)x : bad;
            continue;
        }
        total += sign * taken;
        const int64_t term = taken * scale - u - q->V[c];
        gap += term < scale ? term : scale;
    }
    q->part[part].total = total;
    q->part[part].gap = gap;
    q->part[part].bad = bad;
}

/* The square request's outputs from the solver's res: row_to_col, *total,
 * the prices (u then V) into `prices` (2n), checked as above. */
static gcut_status square_proof_run(gcut_context *ctx, int32_t n, const int64_t *row_ptr,
                                    const int32_t *col_idx, const int32_t *cost, unsigned flags,
                                    int64_t scale, const gcut__assign_result *res,
                                    int32_t *row_to_col, int64_t *total, int64_t *prices)
{
    square_proof *q = malloc(sizeof *q);
    int32_t *owner = malloc(((size_t)n + 1) * sizeof *owner);
    gcut_status st = GCUT_OK;
    if (!q || !owner) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
        goto done;
    }
    for (int32_t r = 0; r < n; r++)
        row_to_col[r] = res->row_col[r] >= 0 && res->row_col[r] < n ? res->row_col[r] : -1;
    q->row_ptr = row_ptr;
    q->col_idx = col_idx;
    q->cost = cost;
    q->row_col = row_to_col;
    q->sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    q->scale = scale;
    q->V = res->price;
    q->u = prices;
    int parts = gcut__thread_count(ctx ? ctx->options.threads : 0, row_ptr[n]);
    if (parts > n)
        parts = n;
    gcut__parallel_for(parts, n, square_proof_rows, q);
    int64_t gap = 0;
    *total = 0;
    for (int i = 0; i < parts; i++) {
        if (q->part[i].bad >= 0) {
            const int32_t r = q->part[i].bad;
            st = gcut__fail(ctx, GCUT_E_VERIFY,
                            row_to_col[r] < 0
                                ? "assign: internal: the solver's proof fails: row %d is not "
                                  "assigned"
                                : "assign: internal: the solver's proof fails: row %d takes "
                                  "column %d, which is not one of its arcs",
                            r + 1, row_to_col[r] + 1);
            goto done;
        }
        *total += q->part[i].total;
        gap += q->part[i].gap; /* each term at most the scale: at most n S < 2^63 */
    }
    /* each column once; prices within 2^62 (gcut_assign_verify's bound) */
    const int64_t limit = (int64_t)1 << 62;
    for (int32_t y = 0; y < n; y++)
        owner[y] = -1;
    for (int32_t r = 0; r < n; r++) {
        const int32_t c = row_to_col[r];
        if (owner[c] >= 0) {
            st = gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: the solver's proof fails: "
                            "column %d is taken by rows %d and %d", c + 1, owner[c] + 1, r + 1);
            goto done;
        }
        owner[c] = r;
        prices[n + r] = res->price[r];
        if (prices[r] > limit || prices[r] < -limit || prices[n + r] > limit ||
            prices[n + r] < -limit) {
            st = gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: the solver's proof fails: "
                            "a price of row or column %d is beyond 2^62", r + 1);
            goto done;
        }
    }
    if (gap >= scale)
        st = gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: the solver's proof fails: the "
                        "gap reaches the scale %lld (not optimal)", (long long)scale);
done:
    free(q);
    free(owner);
    return st;
}

/* A solved request's info: the solver's counts come from `res` where the
 * solver is cost scaling (NULL: none). */
static void fill_info(gcut_assign_info *info, int64_t total, int32_t assigned, int64_t scale,
                      double t0, const char *device, const char *algo,
                      const gcut__assign_result *res)
{
    if (!info)
        return;
    memset(info, 0, sizeof *info);
    info->cost = total;
    info->assigned = assigned;
    info->scale = scale;
    info->time_ms = gcut__now_ms() - t0;
    info->device = device;
    info->algo = algo;
    if (res) {
        info->refines = res->refines;
        info->pushes = res->pushes;
        info->price_updates = res->price_updates;
        info->arcs_fixed = res->arcs_fixed;
    }
}

/* The request solved by shortest augmenting paths (src/cpu/assign_ssp.c),
 * unsquared: the same proof as cost scaling's, exact (gap 0). Returns
 * GCUT_E_UNSUPPORTED (no message) when the potentials could pass int64 or
 * the prices' 2^62: the caller solves by cost scaling instead. */
static gcut_status run_ssp(gcut_context *ctx, int32_t rows, int32_t cols, const int64_t *row_ptr,
                           const int32_t *col_idx, const int32_t *cost, unsigned flags,
                           int64_t cmin, int64_t cmax, int64_t scale, int64_t big, double t0,
                           int32_t *row_to_col, int64_t *total_cost, int64_t *prices,
                           gcut_assign_info *info)
{
    const int partial = (flags & GCUT_ASSIGN_PARTIAL) != 0;
    const int64_t spread = (cmax > 0 ? cmax : -cmax) + (cmin > 0 ? cmin : -cmin) + big + 1;
    if ((int64_t)rows + 1 > GCUT__SSP_LIMIT / spread)
        return GCUT_E_UNSUPPORTED;
    const int32_t ncol = cols + (partial ? rows : 0);
    int64_t *own_prices = malloc(((size_t)rows + cols + 1) * sizeof *own_prices);
    gcut__ssp_problem p = {rows, cols, row_ptr, col_idx, cost,
                           flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1, big, partial};
    gcut__ssp_result res;
    memset(&res, 0, sizeof res);
    res.row_col = row_to_col;
    res.v = malloc(((size_t)ncol + 1) * sizeof *res.v);
    if (!res.v || !own_prices) {
        free(res.v);
        free(own_prices);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d columns", ncol);
    }
    gcut_status st = gcut__assign_ssp(ctx, &p, &res);
    if (st == GCUT_E_INFEASIBLE) {
        st = hall_violator(ctx, rows, cols, row_ptr, col_idx, row_to_col);
        if (!st)
            st = gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: ssp: row %d stuck, yet "
                            "augmentable", res.stuck_row + 1);
    }
    /* u_r = least c - v over r's arcs; with PARTIAL, u_r + v(d_r) - B (see the top). */
    const int64_t price_limit = ((int64_t)1 << 62) / scale;
    for (int32_t r = 0; r < rows && !st; r++) {
        int64_t u = partial ? big - res.v[cols + r] : INT64_MAX;
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
            const int64_t c = p.sign * cost[k] - res.v[col_idx[k]];
            if (c < u)
                u = c;
        }
        if (partial)
            u += res.v[cols + r] - big;
        if (u > price_limit || u < -price_limit)
            st = GCUT_E_UNSUPPORTED;
        own_prices[r] = u * scale;
    }
    for (int32_t c = 0; c < cols && !st; c++) {
        if (res.v[c] < -price_limit)
            st = GCUT_E_UNSUPPORTED;
        own_prices[rows + c] = res.v[c] * scale;
    }
    int64_t total = 0;
    int32_t assigned = 0;
    for (int32_t r = 0; r < rows && !st; r++) {
        int64_t best = INT64_MAX;
        for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
            if (col_idx[k] == row_to_col[r] && p.sign * cost[k] < best)
                best = p.sign * cost[k];
        if (row_to_col[r] >= 0)
            total += p.sign * best, assigned++;
    }
    if (!st && (st = gcut_assign_verify(ctx, rows, cols, row_ptr, col_idx, cost, flags,
                                        row_to_col, total, own_prices, NULL)))
        st = gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: the solver's proof fails: %s",
                        gcut_last_error(ctx));
    if (!st) {
        *total_cost = total;
        if (prices)
            memcpy(prices, own_prices, ((size_t)rows + cols) * sizeof *prices);
        fill_info(info, total, assigned, scale, t0, "cpu", "ssp", NULL);
        if (info)
            info->pushes = res.augmentations;
    }
    free(res.v);
    free(own_prices);
    return st;
}

int64_t gcut__assign_dense_bytes(int32_t n)
{
    /* Per row, CPU cost scaling on the matrix (assign_csa_dense.c): owner,
     * stack, a cache of up to 32 arcs (384 bytes), its length and bound;
     * then the result's price, dual and owner here (440 bytes, rounded
     * up). The proof's parts are a few kilobytes. */
    return gcut__memory_mul_add((int64_t)n + 1, 440, 4096);
}

/* The host's part of either dense path's proof: row_to_col a permutation
 * (who: the solver, for the message) and *total its arcs' cost. */
static gcut_status dense_permutation(gcut_context *ctx, int32_t n, const int32_t *cost,
                                     const int32_t *row_to_col, int32_t *owner, const char *who,
                                     int64_t *total)
{
    *total = 0;
    for (int32_t y = 0; y < n; y++)
        owner[y] = -1;
    for (int32_t r = 0; r < n; r++) {
        const int32_t c = row_to_col[r];
        if (c < 0 || c >= n || owner[c] >= 0)
            return gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: %s gives row %d column %d%s",
                              who, r + 1, c + 1, c >= 0 && c < n ? ", taken twice" : "");
        owner[c] = r;
        *total += cost[(int64_t)r * n + c];
    }
    return GCUT_OK;
}

/* Either dense path's outputs once its proof's gap is known: optimal when
 * the gap is below the scale. */
static gcut_status dense_outputs(gcut_context *ctx, int32_t n, int64_t total, int64_t gap,
                                 int64_t scale, const int64_t *dual,
                                 const gcut__assign_result *res, double t0, const char *device,
                                 const char *algo, int64_t *total_cost, int64_t *prices,
                                 gcut_assign_info *info)
{
    if (gap >= scale)
        return gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: the solver's proof fails: the "
                          "gap reaches the scale %lld (not optimal)", (long long)scale);
    *total_cost = total;
    if (prices) {
        memcpy(prices, dual, (size_t)n * sizeof *prices);
        memcpy(prices + n, res->price, (size_t)n * sizeof *prices);
    }
    fill_info(info, total, n, scale, t0, device, algo, res);
    return GCUT_OK;
}

/* A dense square request solved on the caller's matrix: by CPU cost
 * scaling (src/cpu/assign_csa_dense.c), its proof then checked here from
 * the matrix, or on the GPU (gcut__gpu_assign_dense), where the solve and
 * the proof's pass over the matrix run on the device. Here, either way,
 * only what takes n reads: the permutation, the total cost, the gap
 * against the scale. GCUT_E_UNSUPPORTED from the GPU (no message): prices
 * beyond its keys. */
static gcut_status run_dense(gcut_context *ctx, int on_gpu, int32_t n, const int32_t *cost,
                             unsigned flags, int64_t cmin, int64_t cmax, int64_t scale,
                             const gcut__assign_knobs *knobs, double t0, int32_t *row_to_col,
                             int64_t *total_cost, int64_t *prices, gcut_assign_info *info,
                             gcut__dense_check *check)
{
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    const gcut__assign_dense p = {n, cost, sign, scale, cmin, cmax, check};
    gcut__assign_result res;
    memset(&res, 0, sizeof res);
    res.row_col = row_to_col;
    res.price = malloc(((size_t)n + 1) * sizeof *res.price);
    int64_t *dual = malloc(((size_t)n + 1) * sizeof *dual);
    int32_t *owner = malloc(((size_t)n + 1) * sizeof *owner);
    const char *device = "cpu";
    int64_t total = 0, gap = 0;
    gcut_status st = GCUT_OK;
    if (!res.price || !dual || !owner)
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
    const double t_start = gcut__now_ms();
    /* CPU: first on each row's cheapest arcs where the knob or the size
     * asks for it (src/cpu/assign_candidates.c), which gives the proof */
    const int k = on_gpu                             ? 0
                  : !knobs || knobs->candidates == 0 ? gcut__assign_candidates_default(n)
                                                     : knobs->candidates;
    if (st) {
        /* reported */
    } else if (on_gpu) {
#ifdef GCUT_HAVE_CUDA
        st = gcut__gpu_assign_dense(ctx, &p, knobs, &res, dual, &gap, &device);
#endif
    } else if (k > 0) {
        st = gcut__assign_csa_candidates(ctx, &p, knobs, k, &res, dual, &gap);
    } else {
        st = gcut__assign_csa_dense(ctx, &p, knobs, &res);
    }
    if (check && !check->ok) { /* nothing solved: the caller checks the request */
        free(res.price);
        free(dual);
        free(owner);
        return st ? st : GCUT_E_UNSUPPORTED;
    }
    const double t_solved = gcut__now_ms();
    if (!st)
        st = dense_permutation(ctx, n, cost, row_to_col, owner, on_gpu ? "the GPU" : "csa",
                               &total);
    if (!st && !on_gpu && k <= 0)
        gcut__assign_dense_price_out(ctx, &p, res.price, row_to_col, dual, NULL, &gap);
    if (!st)
        st = dense_outputs(ctx, n, total, gap, scale, dual, &res, t0, device,
                           on_gpu ? "gpu-csa" : "csa", total_cost, prices, info);
    if (!st)
        gcut__log(ctx, 3, "assign: set-up %.2f ms, solve %.1f ms (%s), %s %.2f ms",
                  t_start - t0, t_solved - t_start,
                  on_gpu ? "and proof on the GPU" : "on the caller's matrix",
                  on_gpu ? "host check" : "proof", gcut__now_ms() - t_solved);
    free(res.price);
    free(dual);
    free(owner);
    return st;
}

#ifdef GCUT_HAVE_CUDA
/* Whether a dense GPU solve's status `st` hands the request to the CPU:
 * prices beyond the GPU's keys (GCUT_E_UNSUPPORTED), or, under --device
 * auto, a GPU without room or gone. Then it logs why and clears the
 * error; else the status is the caller's answer. */
static int gpu_gives_way(gcut_context *ctx, const char *algo, gcut_status st)
{
    const int fall_back = !algo && ctx && ctx->options.device == GCUT_DEVICE_AUTO &&
                          (st == GCUT_E_DEVICE_NOMEM || st == GCUT_E_NODEVICE);
    if (st != GCUT_E_UNSUPPORTED && !fall_back)
        return 0;
    gcut__log(ctx, 1, "%s: solving on the CPU",
              fall_back ? gcut_last_error(ctx) : "assign: gpu-csa: prices beyond the GPU's "
                                                 "key range");
    gcut__clear_error(ctx);
    return 1;
}

/* A GPU request whose every row has n arcs, which the GPU may check in its
 * upload (gcut__dense_check) instead of check_request's pass over the
 * arcs: its O(n) parts hold here (what fails them, the full check names),
 * no knob asks for the CSR solver, and the dense path's memory fits. Why:
 * that pass read 8 n^2 bytes before the upload read the 4 n^2 of costs
 * again; on an H100 the time outside the phases went from 1.8-1.9 to
 * 1.2-1.3 ms on dense 2000^2, 6.5 to 4.7 on 5000^2, 20 to 16 on 10000^2
 * (bench/results/assign_NVIDIA_H100_80GB_HBM3.md). */
static int dense_unchecked(gcut_context *ctx, int32_t rows, int32_t cols, const int64_t *row_ptr,
                           const int32_t *col_idx, const int32_t *cost, unsigned flags,
                           const gcut__assign_knobs *knobs)
{
    if (rows != cols || rows <= 0 ||
        (int64_t)rows + cols >= INT32_MAX - 1 || (flags & ~GCUT_ASSIGN_MAXIMIZE) || !row_ptr ||
        !col_idx || !cost || (int64_t)rows * rows > (int64_t)1 << 40 ||
        (knobs && (knobs->update_every > 0 || knobs->fix_factor > 0 || knobs->gpu_host_build)) ||
        gcut__assign_dense_bytes(rows) > gcut__memory_budget(ctx))
        return 0;
    for (int32_t r = 0; r <= rows; r++)
        if (row_ptr[r] != (int64_t)r * rows)
            return 0;
    return 1;
}
#endif

/* gcut__assign_run's work; *row_min, where check_request allocates it, is
 * the caller's to free. */
static gcut_status run_request(gcut_context *ctx, int32_t rows, int32_t cols,
                               const int64_t *row_ptr, const int32_t *col_idx,
                               const int32_t *cost, unsigned flags, const char *algo,
                               const gcut__assign_knobs *knobs, int32_t *row_to_col,
                               int64_t *total_cost, int64_t *prices, gcut_assign_info *info,
                               int64_t **row_min)
{
    gcut__clear_error(ctx);
    const double t0 = gcut__now_ms();
    if (!row_to_col || !total_cost)
        return gcut__fail(ctx, GCUT_E_INVALID, "assign: no row_to_col or total_cost output");
    int algo_on_gpu = -1, use_ssp = 0;
    if (algo) {
        if (!strcmp(algo, "csa"))
            algo_on_gpu = 0;
        else if (!strcmp(algo, "ssp"))
            algo_on_gpu = 0, use_ssp = 1;
#ifdef GCUT_HAVE_CUDA
        else if (!strcmp(algo, "gpu-csa"))
            algo_on_gpu = 1;
#endif
        else
            return gcut__fail(ctx, GCUT_E_INVALID, "assign: unknown algorithm '%s' (have: %s)",
                              algo, gcut_assign_algorithms());
    }
    /* "auto": the GPU from a million arcs once the context's device is up
     * (dense 1000 on the H200: gpu-csa 16.9 ms, CPU CSA 31.1), from four
     * million while starting it, about 200 ms, is still to pay (dense 2000:
     * 44 against 212 ms); below, the CPU (bench/results/assign_NVIDIA_H200.md). */
    if (!algo && ctx && ctx->options.device == GCUT_DEVICE_AUTO) {
        const int64_t arcs = rows > 0 && row_ptr ? row_ptr[rows] : 0;
        const int64_t from = ctx->gpu ? AUTO_GPU_ARCS_WARM : AUTO_GPU_ARCS_COLD;
        algo_on_gpu = arcs >= from ? -1 : 0;
    }
    int have_gpu = 0;
#ifdef GCUT_HAVE_CUDA
    have_gpu = 1;
#endif
    int on_gpu = 0;
    gcut_status st = gcut__solver_device(ctx, "assign", algo, algo_on_gpu, have_gpu, &on_gpu);
    if (st)
        return st;
    int64_t cmin = 0, cmax = 0;
    int in_order = 0, sorted = 0;
    /* a square request on the GPU: its rows' least costs, for the first
     * phase's infeasibility test, read with the check */
    const int gpu_square = on_gpu && rows == cols && !(flags & GCUT_ASSIGN_PARTIAL);
#ifdef GCUT_HAVE_CUDA
    /* a dense request checked in the GPU's upload; where that check fails
     * (a column out of place, costs past the limit) or the GPU does, the
     * request goes the way below from its start, which names what */
    if (gpu_square && dense_unchecked(ctx, rows, cols, row_ptr, col_idx, cost, flags, knobs)) {
        gcut__dense_check check = {col_idx, 0, 0, 0};
        st = run_dense(ctx, 1, rows, cost, flags, 0, 0, (int64_t)rows + 1, knobs, t0, row_to_col,
                       total_cost, prices, info, &check);
        if (check.ok) {
            if (!gpu_gives_way(ctx, algo, st))
                return st;
            /* the CPU's cost scaling on the matrix, checked already */
            return run_dense(ctx, 0, rows, cost, flags, check.cost_min, check.cost_max,
                             (int64_t)rows + 1, knobs, t0, row_to_col, total_cost, prices, info,
                             NULL);
        }
        gcut__clear_error(ctx);
    }
#endif
    st = check_request(ctx, rows, cols, row_ptr, col_idx, cost, flags, &cmin, &cmax, &in_order,
                       &sorted, gpu_square ? row_min : NULL);
    if (st)
        return st;
    const int partial = (flags & GCUT_ASSIGN_PARTIAL) != 0;
    const int square = rows == cols && !partial;
    if (!partial && rows > cols)
        return gcut__fail(ctx, GCUT_E_INFEASIBLE,
                          "assign: no assignment of every row: %d rows but only %d columns", rows,
                          cols);
    const int64_t scale = square ? (int64_t)rows + 1 : (int64_t)rows + cols + 1;
    const int64_t big = partial ? gcut_assign_partial_weight(rows, cols, row_ptr, col_idx, cost,
                                                             flags)
                                : 0;
    /* A dense square request is solved on the caller's matrix (below), by
     * the GPU or by CPU cost scaling, and builds no problem of its own;
     * shortest paths and knobs that ask for the CSR solver's heuristics
     * build one. */
    const int dense = square && in_order && rows > 0 && !use_ssp &&
                      !(knobs && (knobs->update_every > 0 || knobs->fix_factor > 0 ||
                                  knobs->gpu_host_build));
    char what[96];
    snprintf(what, sizeof what, "assign: %d rows, %d columns and %lld arcs", rows, cols,
             (long long)(rows > 0 ? row_ptr[rows] : 0));
    /* the CPU's dense path may first solve on each row's cheapest arcs */
    const int64_t need = dense
                             ? gcut__assign_dense_bytes(rows) +
                                   (on_gpu ? 0 : gcut__assign_candidates_bytes(rows, knobs))
                             : gcut__assign_bytes(rows, cols, rows > 0 ? row_ptr[rows] : 0, flags);
    if ((st = gcut__memory_check(ctx, what, need)))
        return st;
    /* Scaled costs within 2^60: |c| * S and B * S (B < 2^32 * min(rows, cols)). */
    const int64_t cabs = cmax > -cmin ? cmax : -cmin;
    const int64_t top = big > cabs ? big : cabs;
    if (top > GCUT__ASSIGN_LIMIT / scale)
        return gcut__fail(ctx, GCUT_E_OVERFLOW,
                          "assign: costs up to %lld%s times the scale %lld pass 2^60",
                          (long long)top, partial ? " (the partial weight)" : "", (long long)scale);

    /* Shortest paths where they win (measured: bench/results/assign_ssp_dev-vm-2core.md). */
    if (!algo && !on_gpu)
        use_ssp = ssp_by_default(rows, cols, flags);
    if (use_ssp) {
        st = run_ssp(ctx, rows, cols, row_ptr, col_idx, cost, flags, cmin, cmax, scale, big, t0,
                     row_to_col, total_cost, prices, info);
        if (st != GCUT_E_UNSUPPORTED)
            return st;
        gcut__log(ctx, 1, "assign: ssp: costs too wide for its potentials: solving by csa");
    }
#ifdef GCUT_HAVE_CUDA
    if (on_gpu && square && in_order && rows > 0 && !(knobs && knobs->gpu_host_build)) {
        st = run_dense(ctx, 1, rows, cost, flags, cmin, cmax, scale, knobs, t0, row_to_col,
                       total_cost, prices, info, NULL);
        if (!gpu_gives_way(ctx, algo, st))
            return st;
        on_gpu = 0;
    }
#endif
    /* A dense square request on the CPU: cost scaling on the caller's
     * matrix, nothing built (bench/results/assign_csa_dev-vm-2core.md);
     * price updates and arc fixing, when a knob asks for them, are the CSR
     * solver's. */
    if (!on_gpu && square && in_order && rows > 0 &&
        !(knobs && (knobs->update_every > 0 || knobs->fix_factor > 0)))
        return run_dense(ctx, 0, rows, cost, flags, cmin, cmax, scale, knobs, t0, row_to_col,
                         total_cost, prices, info, NULL);
    gcut__assign_problem p;
    const int64_t sign = flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    if (on_gpu && square && sorted && rows > 0)
        problem_view(rows, row_ptr, col_idx, cost, sign, scale, cmin, cmax, &p);
    else
        st = build_problem(ctx, rows, cols, row_ptr, col_idx, cost, flags, scale, big, &p);
    if (!st && square && *row_min) { /* scaled: within 2^60, checked above */
        for (int32_t r = 0; r < rows; r++)
            if ((*row_min)[r] != INT64_MAX)
                (*row_min)[r] *= scale;
        p.row_min = *row_min;
    }
    const double t_built = gcut__now_ms();
    gcut__assign_result res;
    memset(&res, 0, sizeof res);
    int64_t *own_prices = NULL;
    const char *device = "cpu";
    if (!st) {
        res.row_col = malloc(((size_t)p.n + 1) * sizeof *res.row_col);
        res.price = malloc(((size_t)p.n + 1) * sizeof *res.price);
        own_prices = malloc(((size_t)rows + cols + 1) * sizeof *own_prices);
        if (!res.row_col || !res.price || !own_prices)
            st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", p.n);
    }
    if (!st) {
#ifdef GCUT_HAVE_CUDA
        if (on_gpu) {
            st = gcut__gpu_assign(ctx, &p, knobs, &res, &device);
            /* Prices past what the GPU's 64-bit column keys hold (huge costs
             * on many columns): the CPU, whose prices go to -2^60. */
            if (st == GCUT_E_UNSUPPORTED) {
                gcut__log(ctx, 1, "assign: gpu-csa: prices beyond the GPU's key range: "
                          "solving on the CPU");
                st = GCUT_OK;
                on_gpu = 0;
                device = "cpu";
                memset(&res.refines, 0, sizeof res - offsetof(gcut__assign_result, refines));
            }
            /* --device auto: a GPU without room (or gone) means the CPU. */
            if (!algo && ctx && ctx->options.device == GCUT_DEVICE_AUTO &&
                (st == GCUT_E_DEVICE_NOMEM || st == GCUT_E_NODEVICE)) {
                gcut__log(ctx, 1, "%s: solving on the CPU", gcut_last_error(ctx));
                gcut__clear_error(ctx);
                on_gpu = 0;
                device = "cpu";
                memset(&res.refines, 0, sizeof res - offsetof(gcut__assign_result, refines));
            }
        }
#endif
        if (!on_gpu && !(st = problem_for_cpu(ctx, rows, cols, row_ptr, col_idx, cost, flags,
                                              scale, big, &p)))
            st = gcut__assign_csa(ctx, &p, knobs, 0, &res);
    }
    if (st == GCUT_E_INFEASIBLE) {
        /* The solver's real rows and columns are the request's. */
        for (int32_t r = 0; r < rows; r++)
            row_to_col[r] = res.row_col[r] < cols ? res.row_col[r] : -1;
        st = hall_violator(ctx, rows, cols, row_ptr, col_idx, row_to_col);
        if (!st) {
            /* Every row can be assigned after all: solve without the test. */
            memset(&res.refines, 0, sizeof res - offsetof(gcut__assign_result, refines));
            on_gpu = 0;
            device = "cpu";
            if (!(st = problem_for_cpu(ctx, rows, cols, row_ptr, col_idx, cost, flags, scale,
                                       big, &p))) {
                p.may_be_infeasible = 0;
                st = gcut__assign_csa(ctx, &p, knobs, 0, &res);
            }
        }
    }
    int64_t total = 0;
    int32_t assigned = 0;
    const double t_solved = gcut__now_ms();
    if (!st && square) {
        st = square_proof_run(ctx, rows, row_ptr, col_idx, cost, flags, scale, &res, row_to_col,
                              &total, own_prices);
        assigned = rows;
    } else if (!st) {
        for (int32_t r = 0; r < rows; r++) {
            const int32_t c = res.row_col[r] < cols ? res.row_col[r] : -1;
            row_to_col[r] = c;
            if (c < 0)
                continue;
            assigned++;
            int64_t best = INT64_MAX;
            for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
                if (col_idx[k] == c && sign * cost[k] < best)
                    best = sign * cost[k];
            total += sign * best;
        }
        request_prices(&p, rows, cols, big * scale, res.price, own_prices);
        int64_t gap = 0;
        st = gcut_assign_verify(ctx, rows, cols, row_ptr, col_idx, cost, flags, row_to_col, total,
                                own_prices, &gap);
        if (st)
            st = gcut__fail(ctx, GCUT_E_VERIFY, "assign: internal: the solver's proof fails: %s",
                            gcut_last_error(ctx));
    }
    if (!st) {
        /* where the time goes: what the solvers' speed-ups are bounded by */
        gcut__log(ctx, 3, "assign: set-up %.1f ms, solve %.1f ms, proof %.1f ms", t_built - t0,
                  t_solved - t_built, gcut__now_ms() - t_solved);
        *total_cost = total;
        if (prices)
            memcpy(prices, own_prices, ((size_t)rows + cols) * sizeof *prices);
        fill_info(info, total, assigned, scale, t0, device, on_gpu ? "gpu-csa" : "csa", &res);
    }
    free_problem(&p);
    free(res.row_col);
    free(res.price);
    free(own_prices);
    return st;
}

gcut_status gcut__assign_run(gcut_context *ctx, int32_t rows, int32_t cols, const int64_t *row_ptr,
                             const int32_t *col_idx, const int32_t *cost, unsigned flags,
                             const char *algo, const gcut__assign_knobs *knobs,
                             int32_t *row_to_col, int64_t *total_cost, int64_t *prices,
                             gcut_assign_info *info)
{
    int64_t *row_min = NULL;
    const gcut_status st = run_request(ctx, rows, cols, row_ptr, col_idx, cost, flags, algo, knobs,
                                       row_to_col, total_cost, prices, info, &row_min);
    free(row_min);
    return st;
}

gcut_status gcut_assign_csr_info(gcut_context *ctx, int32_t rows, int32_t cols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const int32_t *cost, unsigned flags, const char *algo,
                                 int32_t *row_to_col, int64_t *total_cost, int64_t *prices,
                                 gcut_assign_info *info)
{
    return gcut__assign_run(ctx, rows, cols, row_ptr, col_idx, cost, flags, algo, NULL,
                            row_to_col, total_cost, prices, info);
}

gcut_status gcut_assign_csr(gcut_context *ctx, int32_t rows, int32_t cols, const int64_t *row_ptr,
                            const int32_t *col_idx, const int32_t *cost, unsigned flags,
                            const char *algo, int32_t *row_to_col, int64_t *total_cost,
                            int64_t *prices)
{
    return gcut__assign_run(ctx, rows, cols, row_ptr, col_idx, cost, flags, algo, NULL,
                            row_to_col, total_cost, prices, NULL);
}
