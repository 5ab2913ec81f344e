/* Assignment checks (check_assign.h). The reference is the textbook O(n^3)
 * Hungarian method with potentials on a dense square matrix, written here
 * and sharing nothing with the library: missing arcs and padding cost MISS,
 * larger than any difference of real totals, so its optimum has the most
 * real arcs and, among those, the least cost. */
#include "check_assign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_rng.h"
#include "gcut.h"
#include "graph/assign_problem.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

/* An instance: CSR over rows, as gcut_assign_csr takes it. */
typedef struct instance {
    int32_t rows, cols;
    int64_t *row_ptr;
    int32_t *col;
    int32_t *cost;
    unsigned flags;
    char name[160];
} instance;

static void instance_free(instance *in)
{
    free(in->row_ptr);
    free(in->col);
    free(in->cost);
    memset(in, 0, sizeof *in);
}

/* Shapes and cost ranges by index, so that every kind comes up often. */
static int make_instance(instance *in, uint64_t seed, int index, int max_side)
{
    rng g = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index * 0x632be59bd9b4e019ULL + 1};
    memset(in, 0, sizeof *in);
    const int shape = index % 6, costs = (index / 6) % 5;
    int32_t rows = (int32_t)rng_range(&g, 1, max_side), cols = rows;
    if (shape == 3 || shape == 4) /* rectangular */
        cols = (int32_t)rng_range(&g, 1, max_side);
    if (shape == 5 && rng_below(&g, 4) == 0) /* empty sides now and then */
        rows = (int32_t)rng_below(&g, 2), cols = (int32_t)rng_below(&g, 3);
    /* density: 0 dense, 1 sparse, 2 very sparse (often infeasible) */
    const int density = shape == 0 ? 0 : shape == 1 ? 1 : shape == 2 ? 2 : (int)rng_below(&g, 3);
    /* half the dense squares as a row-major matrix (every row's columns
     * once, in order): the GPU's dense path takes those from the caller */
    const int in_order = shape == 0 && (index / 6) % 2 == 0;
    if (in_order && (index / 12) % 2 == 1) /* across one and two warps, 32 and 64 among them */
        rows = cols = (int32_t)rng_range(&g, 30, 70);
    /* half the sparse ones with every row's columns increasing, none twice:
     * the GPU takes those as they are, without a problem built */
    const int ascending = (shape == 1 || shape == 2 || shape == 5) && (index / 6) % 2 == 1;
    int64_t lo, hi;
    switch (costs) {
    case 0: lo = 0, hi = 1000; break;
    case 1: lo = 0, hi = 3; break; /* many ties */
    case 2: lo = -1000, hi = 1000; break;
    case 3: lo = INT32_MIN, hi = INT32_MAX; break;
    default: lo = INT32_MAX - 5, hi = INT32_MAX; break; /* huge and tied */
    }
    if (costs == 4 && index % 2)
        lo = INT32_MIN, hi = INT32_MIN + 5;
    in->rows = rows;
    in->cols = cols;
    in->row_ptr = malloc(((size_t)rows + 1) * sizeof *in->row_ptr);
    const int64_t room = (int64_t)rows * (cols + 2) + 1;
    in->col = malloc((size_t)room * sizeof *in->col);
    in->cost = malloc((size_t)room * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
    int64_t m = 0;
    in->row_ptr[0] = 0;
    for (int32_t r = 0; r < rows; r++) {
        for (int32_t c = 0; c < cols; c++) {
            const int keep = density == 0 ? 1 : density == 1 ? rng_below(&g, 2) == 0
                                                            : rng_below(&g, 5) == 0;
            if (!keep)
                continue;
            in->col[m] = c;
            in->cost[m++] = (int32_t)rng_range(&g, lo, hi);
            if (!in_order && !ascending && rng_below(&g, 40) == 0) { /* a repeated pair */
                in->col[m] = c;
                in->cost[m++] = (int32_t)rng_range(&g, lo, hi);
            }
        }
        /* shuffle the row's arcs: the library takes them in any order */
        for (int64_t k = in->row_ptr[r]; !in_order && !ascending && k + 1 < m; k++) {
            const int64_t j = k + rng_below(&g, m - k);
            const int32_t tc = in->col[k], tk = in->cost[k];
            in->col[k] = in->col[j], in->cost[k] = in->cost[j];
            in->col[j] = tc, in->cost[j] = tk;
        }
        in->row_ptr[r + 1] = m;
    }
    in->flags = 0;
    if (rng_below(&g, 3) == 0)
        in->flags |= GCUT_ASSIGN_MAXIMIZE;
    if (shape == 4 || (shape != 0 && rng_below(&g, 3) == 0))
        in->flags |= GCUT_ASSIGN_PARTIAL;
    snprintf(in->name, sizeof in->name, "instance %d: %dx%d%s, %lld arcs, costs %lld..%lld%s%s",
             index, rows, cols, in_order ? " row-major" : ascending ? " ascending" : "",
             (long long)m, (long long)lo,
             (long long)hi,
             in->flags & GCUT_ASSIGN_MAXIMIZE ? ", maximize" : "",
             in->flags & GCUT_ASSIGN_PARTIAL ? ", partial" : "");
    return 1;
}

/* The reference: Hungarian method (potentials, shortest augmenting paths)
 * on the padded N x N matrix. *cards = real arcs used, *cost = their cost. */
static int hungarian(const instance *in, int32_t *cards, int64_t *cost_out)
{
    const int32_t n = in->rows > in->cols ? in->rows : in->cols;
    const int64_t sign = in->flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    if (n == 0) {
        *cards = 0;
        *cost_out = 0;
        return 1;
    }
    int64_t cmax = 1;
    for (int64_t k = 0; k < in->row_ptr[in->rows]; k++) {
        const int64_t c = in->cost[k] < 0 ? -(int64_t)in->cost[k] : in->cost[k];
        if (c > cmax)
            cmax = c;
    }
    const int64_t miss = 2 * (int64_t)(n + 1) * (2 * cmax + 1);
    const size_t nn = (size_t)n;
    int64_t *a = malloc((nn + 1) * (nn + 1) * sizeof *a);
    char *real = calloc((nn + 1) * (nn + 1), 1);
    int64_t *u = calloc(nn + 1, sizeof *u), *v = calloc(nn + 1, sizeof *v),
            *minv = malloc((nn + 1) * sizeof *minv);
    int32_t *p = calloc(nn + 1, sizeof *p), *way = calloc(nn + 1, sizeof *way);
    char *used = malloc(nn + 1);
    int ok = a && real && u && v && minv && p && way && used;
    if (ok) {
        for (size_t i = 0; i < (nn + 1) * (nn + 1); i++)
            a[i] = miss;
        for (int32_t r = 0; r < in->rows; r++)
            for (int64_t k = in->row_ptr[r]; k < in->row_ptr[r + 1]; k++) {
                const size_t at = (size_t)(r + 1) * (nn + 1) + (size_t)(in->col[k] + 1);
                const int64_t c = sign * in->cost[k];
                if (!real[at] || c < a[at])
                    a[at] = c;
                real[at] = 1;
            }
        /* e-maxx formulation, 1-based; p[j] = row of column j. */
        for (int32_t i = 1; i <= n; i++) {
            p[0] = i;
            int32_t j0 = 0;
            for (int32_t j = 0; j <= n; j++)
                minv[j] = INT64_MAX, used[j] = 0;
            do {
                used[j0] = 1;
                const int32_t i0 = p[j0];
                int64_t delta = INT64_MAX;
                int32_t j1 = 0;
                for (int32_t j = 1; j <= n; j++) {
                    if (used[j])
                        continue;
                    const int64_t cur = a[(size_t)i0 * (nn + 1) + (size_t)j] - u[i0] - v[j];
                    if (cur < minv[j])
                        minv[j] = cur, way[j] = j0;
                    if (minv[j] < delta)
                        delta = minv[j], j1 = j;
                }
                for (int32_t j = 0; j <= n; j++) {
                    if (used[j])
                        u[p[j]] += delta, v[j] -= delta;
                    else
                        minv[j] -= delta;
                }
                j0 = j1;
            } while (p[j0] != 0);
            do {
                const int32_t j1 = way[j0];
                p[j0] = p[j1];
                j0 = j1;
            } while (j0);
        }
        int32_t count = 0;
        int64_t total = 0;
        for (int32_t j = 1; j <= n; j++) {
            const size_t at = (size_t)p[j] * (nn + 1) + (size_t)j;
            if (p[j] >= 1 && p[j] <= in->rows && j <= in->cols && real[at]) {
                count++;
                total += sign * a[at];
            }
        }
        *cards = count;
        *cost_out = total;
    }
    free(a);
    free(real);
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    return ok;
}

/* The Hall violator named in `msg`: "the K rows {...} ... the J columns {...}".
 * Checks K > J and, when both lists are whole, that every arc of the named
 * rows goes to a named column. */
static int hall_message_ok(const instance *in, const char *msg)
{
    if (strstr(msg, "rows but only"))
        return in->rows > in->cols;
    const char *at = strstr(msg, "the ");
    int k = 0, j = 0;
    if (!at || sscanf(at, "the %d rows", &k) != 1)
        return 0;
    const char *cat = strstr(msg, "only the ");
    if (!cat || sscanf(cat, "only the %d columns", &j) != 1 || k <= j)
        return 0;
    if (k > 8 || j > 8)
        return 1;
    int rows_named[8], cols_named[8];
    const char *s = strchr(at, '{');
    for (int i = 0; i < k; i++) {
        if (!s || sscanf(s + 1, "%d", &rows_named[i]) != 1)
            return 0;
        s = strchr(s + 1, i + 1 < k ? ',' : '}');
    }
    s = strchr(cat, '{');
    for (int i = 0; i < j; i++) {
        if (!s || sscanf(s + 1, "%d", &cols_named[i]) != 1)
            return 0;
        s = strchr(s + 1, i + 1 < j ? ',' : '}');
    }
    for (int i = 0; i < k; i++) {
        const int32_t r = rows_named[i] - 1;
        if (r < 0 || r >= in->rows)
            return 0;
        for (int64_t e = in->row_ptr[r]; e < in->row_ptr[r + 1]; e++) {
            int named = 0;
            for (int q = 0; q < j; q++)
                named |= cols_named[q] - 1 == in->col[e];
            if (!named)
                return 0;
        }
    }
    return 1;
}

/* gcut_assign_verify on tampered copies of a proven solution: each must
 * fail with the first failure a row-by-row check meets (the arcs are
 * checked on several threads where the context has them), and the
 * untampered one pass. Returns 0 (with a failure reported) or 1. */
static int tampered_fail(check_report *r, gcut_context *ctx, const instance *in,
                         const int32_t *row_to_col, int64_t total, const int64_t *prices,
                         const char *what, const char *needle)
{
    const gcut_status st = gcut_assign_verify(ctx, in->rows, in->cols, in->row_ptr, in->col,
                                              in->cost, in->flags, row_to_col, total, prices, NULL);
    if (st == GCUT_E_VERIFY && strstr(gcut_last_error(ctx), needle))
        return 1;
    check_fail(r, "%s, %s: verify gives '%s' (%s), want '%s'", in->name, what, gcut_status_str(st),
               st ? gcut_last_error(ctx) : "", needle);
    return 0;
}

static int verify_rejects_tampering(check_report *r, gcut_context *ctx, const instance *in,
                                    int32_t *row_to_col, int64_t total, int64_t *prices)
{
    /* two assigned rows a < b, the last and the first */
    int32_t a = -1, b = -1;
    for (int32_t x = 0; x < in->rows; x++)
        if (row_to_col[x] >= 0)
            b = x, a = a < 0 ? x : a;
    if (a < 0 || a == b)
        return 1;
    const int64_t sign = in->flags & GCUT_ASSIGN_MAXIMIZE ? -1 : 1;
    const int partial = (in->flags & GCUT_ASSIGN_PARTIAL) != 0;
    const int64_t scale = in->rows == in->cols && !partial ? (int64_t)in->rows + 1
                                                           : (int64_t)in->rows + in->cols + 1;
    const int64_t big = partial ? gcut_assign_partial_weight(in->rows, in->cols, in->row_ptr,
                                                             in->col, in->cost, in->flags)
                                : 0;
    /* a's least reduced cost over its arcs, and the first arc that has it:
     * raising u_a one past it makes that arc the first to fail, by 1 */
    int64_t slack = INT64_MAX;
    int32_t first = -1;
    for (int64_t k = in->row_ptr[a]; k < in->row_ptr[a + 1]; k++) {
        const int64_t reduced = sign * in->cost[k] * scale - big * scale - prices[a] -
                                prices[in->rows + in->col[k]];
        if (reduced < slack)
            slack = reduced, first = in->col[k];
    }
    char needle[96];
    int ok = 1;
    const int32_t ca = row_to_col[a], cb = row_to_col[b];
    const int64_t ua = prices[a];
    prices[a] = ua + slack + 1;
    row_to_col[b] = ca; /* and b takes a's column: a's prices fail first */
    if (partial && prices[a] > 0) /* a row's own test comes before its arcs' */
        snprintf(needle, sizeof needle, "row %d has a positive price", a + 1);
    else
        snprintf(needle, sizeof needle, "row %d, column %d: the prices exceed the cost by 1/",
                 a + 1, first + 1);
    ok &= tampered_fail(r, ctx, in, row_to_col, total, prices, "a price and a column", needle);
    prices[a] = ua;
    snprintf(needle, sizeof needle, "column %d is taken by rows %d and %d", ca + 1, a + 1, b + 1);
    ok &= tampered_fail(r, ctx, in, row_to_col, total, prices, "a column twice", needle);
    row_to_col[b] = in->cols;
    snprintf(needle, sizeof needle, "row %d takes column %d, outside", b + 1, in->cols + 1);
    ok &= tampered_fail(r, ctx, in, row_to_col, total, prices, "a column out of range", needle);
    row_to_col[b] = cb;
    ok &= tampered_fail(r, ctx, in, row_to_col, total + 1, prices, "the total", "the total cost is");
    if (ok && gcut_assign_verify(ctx, in->rows, in->cols, in->row_ptr, in->col, in->cost,
                                 in->flags, row_to_col, total, prices, NULL) != GCUT_OK) {
        check_fail(r, "%s, undone: %s", in->name, gcut_last_error(ctx));
        ok = 0;
    }
    return ok;
}

/* One instance against the reference on `ctx` with `algo`. `gpu_only`:
 * a feasible instance must also be solved on the GPU, not on the CPU after
 * it (a GPU first phase that took a feasible problem for infeasible is put
 * right by the exact Hall search and a CPU solve, which the cost alone
 * does not show). */
static void one_vs_hungarian(check_report *r, gcut_context *ctx, const char *algo,
                             const gcut__assign_knobs *knobs, const instance *in, int gpu_only)
{
    int32_t ref_cards = 0;
    int64_t ref_cost = 0;
    if (!hungarian(in, &ref_cards, &ref_cost)) {
        check_fail(r, "%s: the reference ran out of memory", in->name);
        return;
    }
    int32_t *row_to_col = malloc(((size_t)in->rows + 1) * sizeof *row_to_col);
    int64_t *prices = malloc(((size_t)in->rows + in->cols + 1) * sizeof *prices);
    int64_t total = 0, gap = -1;
    gcut_assign_info info;
    const gcut_status st =
        gcut__assign_run(ctx, in->rows, in->cols, in->row_ptr, in->col, in->cost, in->flags, algo,
                         knobs, row_to_col, &total, prices, &info);
    const int feasible = ref_cards == in->rows || (in->flags & GCUT_ASSIGN_PARTIAL);
    if (!feasible) {
        if (st != GCUT_E_INFEASIBLE)
            check_fail(r, "%s (%s): status '%s', the reference finds only %d of %d rows", in->name,
                       algo, gcut_status_str(st), ref_cards, in->rows);
        else if (!hall_message_ok(in, gcut_last_error(ctx)))
            check_fail(r, "%s (%s): not a Hall violator: %s", in->name, algo,
                       gcut_last_error(ctx));
        else
            r->passed++;
    } else if (st != GCUT_OK) {
        check_fail(r, "%s (%s): %s", in->name, algo, gcut_last_error(ctx));
    } else if (total != ref_cost || info.assigned != ref_cards) {
        check_fail(r, "%s (%s): cost %lld with %d rows, the reference %lld with %d", in->name,
                   algo, (long long)total, info.assigned, (long long)ref_cost, ref_cards);
    } else if (gcut_assign_verify(ctx, in->rows, in->cols, in->row_ptr, in->col, in->cost,
                                  in->flags, row_to_col, total, prices, &gap) != GCUT_OK) {
        check_fail(r, "%s (%s): %s", in->name, algo, gcut_last_error(ctx));
    } else if (!verify_rejects_tampering(r, ctx, in, row_to_col, total, prices)) {
        /* reported */
    } else if (gpu_only && (!info.device || !strcmp(info.device, "cpu"))) {
        check_fail(r, "%s (%s): solved on the CPU, not on the GPU", in->name, algo);
    } else if (algo && !strcmp(algo, "ssp") && (gap != 0 || strcmp(info.algo, "ssp"))) {
        /* shortest paths are exact: gap 0, and no fallback on these costs */
        check_fail(r, "%s (ssp): gap %lld/%lld, solved by %s", in->name, (long long)gap,
                   (long long)info.scale, info.algo);
    } else {
        r->passed++;
    }
    free(row_to_col);
    free(prices);
}

static void run_vs_hungarian(check_report *r, int count, uint64_t seed, gcut_context *ctx,
                             const char *algo, const gcut__assign_knobs *knobs, int salt)
{
    for (int i = 0; i < count; i++) {
        instance in;
        /* mostly tiny (every corner), a tenth up to 40 a side */
        const int side = i % 10 == 9 ? 40 : 9;
        if (!make_instance(&in, seed + (uint64_t)salt, i, side)) {
            check_fail(r, "out of memory");
            instance_free(&in);
            return;
        }
        one_vs_hungarian(r, ctx, algo, knobs, &in, 0);
        instance_free(&in);
    }
}

void check_assign_csa_vs_hungarian(check_report *r, int count, uint64_t seed)
{
    /* three threads: the proof's and the verify's passes split even tiny
     * requests into parts */
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    opt.threads = 3;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx) != GCUT_OK)
        ctx = NULL;
    if (!ctx) {
        check_fail(r, "could not create a context");
        return;
    }
    run_vs_hungarian(r, count, seed, ctx, "csa", NULL, 0);
    gcut_context_destroy(ctx);
}

void check_assign_ssp_vs_hungarian(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "could not create a context");
        return;
    }
    run_vs_hungarian(r, count, seed, ctx, "ssp", NULL, 3);
    gcut_context_destroy(ctx);
}

void check_assign_csa_knobs(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "could not create a context");
        return;
    }
    static const gcut__assign_knobs variants[] = {
        /* alpha 10, price updates, safe arc fixing */
        {.alpha = 10, .update_every = 4, .fix_factor = 16, .cache = 4},
        {.update_every = 1, .fix_factor = -1}, /* frequent price updates */
        /* aggressive fixing (repairs), the smallest cache */
        {.update_every = -1, .fix_factor = 1, .cache = 2},
        {.alpha = 2, .update_every = 1, .fix_factor = 4, .cache = 8}, /* alpha 2, both heuristics */
        {.cache = 32}, /* the largest cache (the default where rows are long) */
        {0}, /* the defaults */
    };
    const int nv = (int)(sizeof variants / sizeof variants[0]);
    for (int v = 0; v < nv; v++)
        run_vs_hungarian(r, (count + nv - 1) / nv, seed, ctx, "csa", &variants[v], 17 + v);
    gcut_context_destroy(ctx);
}

/* A dense square matrix (rows list the columns 0..n-1 in order: the CPU's
 * dense path on the caller's matrix), n across the scan's rounds of 16 and
 * 64 arcs and its chunks of 16; costs by index: uniform, ties, signed,
 * the whole int32 range, huge and tied at either end, one value. With
 * `reversed`, each row's arcs in the opposite order: the CSR path. */
static int make_dense(instance *in, uint64_t seed, int index, int reversed)
{
    rng g = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index * 0x2545f4914f6cdd1dULL + 7};
    memset(in, 0, sizeof *in);
    static const int32_t sides[] = {1, 2, 3, 7, 15, 16, 17, 31, 63, 64, 65, 100, 127, 128, 129};
    const int nsides = (int)(sizeof sides / sizeof sides[0]);
    const int32_t n = index % 7 == 6 ? (int32_t)rng_range(&g, 130, 200)
                                     : sides[rng_below(&g, nsides)];
    int64_t lo, hi;
    switch ((index / 7) % 6) {
    case 0: lo = 0, hi = 1000; break;
    case 1: lo = 0, hi = 3; break;
    case 2: lo = -1000, hi = 1000; break;
    case 3: lo = INT32_MIN, hi = INT32_MAX; break;
    case 4: lo = index % 2 ? INT32_MIN : INT32_MAX - 5, hi = lo + 5; break;
    default: lo = hi = (int64_t)rng_range(&g, -50, 50); break;
    }
    in->rows = in->cols = n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)n * n * sizeof *in->col);
    in->cost = malloc((size_t)n * n * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
    for (int32_t r = 0; r <= n; r++)
        in->row_ptr[r] = (int64_t)r * n;
    for (int32_t r = 0; r < n; r++)
        for (int32_t c = 0; c < n; c++) {
            const int64_t k = (int64_t)r * n + (reversed ? n - 1 - c : c);
            in->col[k] = c;
            in->cost[k] = (int32_t)rng_range(&g, lo, hi);
        }
    in->flags = rng_below(&g, 3) == 0 ? GCUT_ASSIGN_MAXIMIZE : 0;
    snprintf(in->name, sizeof in->name, "dense %d: %dx%d%s, costs %lld..%lld%s", index, n, n,
             reversed ? " reversed" : "", (long long)lo, (long long)hi,
             in->flags & GCUT_ASSIGN_MAXIMIZE ? ", maximize" : "");
    return 1;
}

void check_assign_csa_dense(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "could not create a context");
        return;
    }
    /* the defaults, the smallest cache, caches of 16 and 32 (the large-n
     * defaults, whose rounds of 64 arcs start at n = 64), alpha 2 and 7 */
    static const gcut__assign_knobs variants[] = {
        {0}, {.cache = 2}, {.cache = 16},
        {.cache = 32}, {.alpha = 2}, {.alpha = 7, .cache = 16},
    };
    const int nv = (int)(sizeof variants / sizeof variants[0]);
    for (int i = 0; i < count; i++) {
        for (int reversed = 0; reversed < 2; reversed++) {
            instance in;
            if (!make_dense(&in, seed, i, reversed)) {
                check_fail(r, "out of memory");
                instance_free(&in);
                return;
            }
            one_vs_hungarian(r, ctx, "csa", reversed ? NULL : &variants[i % nv], &in, 0);
            instance_free(&in);
        }
    }
    gcut_context_destroy(ctx);
}

/* A windowed instance like optical flow's, with the ties that make its
 * phases long: every pixel of a w x h "frame" of a few flat grey regions
 * may take the pixels of the next frame (the same regions shifted by up to
 * a pixel) within radius R, at cost |grey difference| + k (dx^2 + dy^2),
 * small integers, so neighbours of a region have equal costs (price wars
 * among tied rows, regions that must move as a whole). Borders cut the
 * windows, so every row still has its own pixel: always feasible. */
static int make_window_ties_within(instance *in, uint64_t seed, int index, int32_t w_max,
                                   int32_t h_max)
{
    rng g = {seed * 0xbf58476d1ce4e5b9ULL + (uint64_t)index * 0x94d049bb133111ebULL + 3};
    memset(in, 0, sizeof *in);
    const int32_t w = (int32_t)rng_range(&g, 2, w_max), h = (int32_t)rng_range(&g, 1, h_max);
    const int32_t radius = (int32_t)rng_range(&g, 1, 3), n = w * h;
    const int32_t k = (int32_t)rng_range(&g, 0, 4), levels = (int32_t)rng_range(&g, 1, 4);
    const int32_t sx = (int32_t)rng_range(&g, -1, 1), sy = (int32_t)rng_range(&g, -1, 1);
    /* regions: vertical and horizontal bands of a few grey levels */
    const int32_t bx = (int32_t)rng_range(&g, 1, w), by = (int32_t)rng_range(&g, 1, h > 1 ? h : 1);
    const int32_t side = 2 * radius + 1;
    in->rows = in->cols = n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)n * (size_t)(side * side) * sizeof *in->col);
    in->cost = malloc((size_t)n * (size_t)(side * side) * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
#define GREY(X, Y) ((((X) / bx) + 2 * ((Y) / by)) % (levels + 1))
    int64_t m = 0;
    in->row_ptr[0] = 0;
    for (int32_t r = 0; r < n; r++) {
        const int32_t x = r % w, y = r / w;
        const int32_t g0 = GREY(x, y);
        for (int32_t dy = -radius; dy <= radius; dy++)
            for (int32_t dx = -radius; dx <= radius; dx++) {
                const int32_t xx = x + dx, yy = y + dy;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                    continue;
                /* frame 1 is frame 0 moved by (sx, sy), clamped at the borders */
                int32_t ox = xx - sx, oy = yy - sy;
                ox = ox < 0 ? 0 : ox >= w ? w - 1 : ox;
                oy = oy < 0 ? 0 : oy >= h ? h - 1 : oy;
                const int32_t g1 = GREY(ox, oy);
                in->col[m] = yy * w + xx;
                in->cost[m++] = (g0 > g1 ? g0 - g1 : g1 - g0) + k * (dx * dx + dy * dy);
            }
        in->row_ptr[r + 1] = m;
    }
#undef GREY
    in->flags = rng_below(&g, 4) == 0 ? GCUT_ASSIGN_MAXIMIZE : 0;
    snprintf(in->name, sizeof in->name,
             "window with ties %d: %dx%d R=%d, %lld arcs, bands %dx%d of %d levels, shift "
             "(%d,%d), k %d%s",
             index, w, h, radius, (long long)m, bx, by, levels + 1, sx, sy, k,
             in->flags ? ", maximize" : "");
    return 1;
}

static int make_window_ties(instance *in, uint64_t seed, int index)
{
    return make_window_ties_within(in, seed, index, 18, 16);
}

/* A window graph (as make_window_ties_within's, up to 20 x 14, radius R
 * of 1 or 2) with a Hall violator deep inside: the rows of a k x k block
 * (k = R + 1, two pixels or more from every border) keep only their arcs
 * into the same block, one of its columns left out, so k^2 rows can take
 * only k^2 - 1 columns while every other row keeps its whole window. The
 * first phase then runs on, bids and price updates, until its bound stops
 * it at a bid or at an update. By index: square; square with the block's
 * column kept (feasible, so the bound must never stop it); more columns
 * than rows; partial (the most rows, n - 1). Costs: ties (0..3 plus the
 * squared motion), 0..1000, or -1000..1000. */
static int make_deep_hall(instance *in, uint64_t seed, int index)
{
    rng g = {seed * 0x2545f4914f6cdd1dULL + (uint64_t)index * 0xbf58476d1ce4e5b9ULL + 11};
    memset(in, 0, sizeof *in);
    const int kind = index % 4, costs = (index / 4) % 3;
    const int32_t radius = (int32_t)rng_range(&g, 1, 2), k = radius + 1;
    const int32_t w = (int32_t)rng_range(&g, k + 4, 20), h = (int32_t)rng_range(&g, k + 4, 14);
    const int32_t n = w * h, extra = kind == 2 ? (int32_t)rng_range(&g, 1, w) : 0;
    const int32_t bx = (int32_t)rng_range(&g, 2, w - k - 2);
    const int32_t by = (int32_t)rng_range(&g, 2, h - k - 2);
    const int32_t gone = kind == 1 ? -1
                                   : (by + (int32_t)rng_below(&g, k)) * w + bx +
                                         (int32_t)rng_below(&g, k);
    const int32_t side = 2 * radius + 1;
    in->rows = n;
    in->cols = n + extra;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)n * (size_t)(side * side + 1) * sizeof *in->col);
    in->cost = malloc((size_t)n * (size_t)(side * side + 1) * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
#define IN_BLOCK(X, Y) ((X) >= bx && (X) < bx + k && (Y) >= by && (Y) < by + k)
    int64_t m = 0;
    in->row_ptr[0] = 0;
    for (int32_t r = 0; r < n; r++) {
        const int32_t x = r % w, y = r / w;
        const int inside = IN_BLOCK(x, y);
        for (int32_t dy = -radius; dy <= radius; dy++)
            for (int32_t dx = -radius; dx <= radius; dx++) {
                const int32_t xx = x + dx, yy = y + dy, c = yy * w + xx;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h ||
                    (inside && (!IN_BLOCK(xx, yy) || c == gone)))
                    continue;
                in->col[m] = c;
                in->cost[m++] = (int32_t)(costs == 0   ? rng_range(&g, 0, 3) + dx * dx + dy * dy
                                          : costs == 1 ? rng_range(&g, 0, 1000)
                                                       : rng_range(&g, -1000, 1000));
            }
        if (extra && !inside && rng_below(&g, 4) == 0) {
            in->col[m] = n + (int32_t)rng_below(&g, extra);
            in->cost[m++] = (int32_t)rng_range(&g, costs == 2 ? -1000 : 0, costs == 0 ? 3 : 1000);
        }
        in->row_ptr[r + 1] = m;
    }
#undef IN_BLOCK
    in->flags = rng_below(&g, 4) == 0 ? GCUT_ASSIGN_MAXIMIZE : 0;
    if (kind == 3)
        in->flags |= GCUT_ASSIGN_PARTIAL;
    snprintf(in->name, sizeof in->name,
             "deep Hall %d: %dx%d R=%d%s, block %dx%d at (%d,%d)%s, %lld arcs, costs %s%s%s", index,
             w, h, radius, extra ? " and more columns" : "", k, k, bx, by,
             kind == 1 ? " whole (feasible)" : "", (long long)m,
             costs == 0 ? "tied" : costs == 1 ? "0..1000" : "-1000..1000",
             in->flags & GCUT_ASSIGN_MAXIMIZE ? ", maximize" : "",
             kind == 3 ? ", partial" : "");
    return 1;
}

/* The GPU checks' instances: every fifth a dense square from make_dense
 * (up to 200 a side, ties, signed and extreme costs: the dense device
 * path, whose price updates relax frontiers instead of whole rows), every
 * fifth a tie-heavy window graph (flat regions, small integer costs: price
 * updates whose shortest paths run long), the rest make_instance's. */
static int make_gpu_instance(instance *in, uint64_t seed, int index)
{
    return index % 5 == 2   ? make_dense(in, seed, index / 5, 0)
           : index % 5 == 4 ? make_window_ties(in, seed + 206, index)
                            : make_instance(in, seed, index, index % 10 == 9 ? 40 : 9);
}

static void gpu_vs_hungarian_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                                 const char *algo, uint64_t seed, int index)
{
    (void)cpu;
    instance in;
    if (!make_gpu_instance(&in, seed + 101, index)) {
        check_fail(r, "out of memory");
    } else {
        one_vs_hungarian(r, gpu, algo, NULL, &in, 0);
    }
    instance_free(&in);
}

/* make_deep_hall's instances: the Hall violator named, or the cost and
 * the proof, and a feasible one solved on the GPU itself. */
static void gpu_deep_hall_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                              const char *algo, uint64_t seed, int index)
{
    (void)cpu;
    instance in;
    if (!make_deep_hall(&in, seed + 401, index))
        check_fail(r, "out of memory");
    else
        one_vs_hungarian(r, gpu, algo, NULL, &in, 1);
    instance_free(&in);
}

void check_assign_gpu_vs_hungarian(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, gpu_vs_hungarian_one, "gpu-csa", count, seed);
    check_gpu_run(r, gpu_deep_hall_one, "gpu-csa", (count + 9) / 10, seed);
}

/* The GPU's own knobs against the reference: whole-block bids forced on
 * short rows (so every small instance runs the block kernels), price
 * updates off or at other intervals, other eps schedules. */
static const gcut__assign_knobs gpu_variants[] = {
    {.update_every = -1, .gpu_group = 128}, /* block of 128 a row, no price updates */
    {.gpu_group = 1024}, /* block of 1024 a row: most threads scan nothing */
    {.update_every = -1}, /* no price updates */
    {.alpha = 4, .update_every = 1, .gpu_group = 512}, /* alpha 4, updates and blocks of 512 */
    {.alpha = 3, .gpu_group = 8}, /* alpha 3, tiles of 8 lanes (dense keeps 32) */
    {.alpha = 30, .update_every = 2}, /* alpha 30, updates every 2n bids */
    {.gpu_host_build = 1}, /* dense requests through the host-built square problem */
    {.alpha = 5, .gpu_eps_start = 100}, /* a first eps 100 times smaller */
};

static void gpu_knobs_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                          const char *algo, uint64_t seed, int index)
{
    (void)cpu;
    instance in;
    const int nv = (int)(sizeof gpu_variants / sizeof gpu_variants[0]);
    if (!make_gpu_instance(&in, seed + 211, index))
        check_fail(r, "out of memory");
    else
        one_vs_hungarian(r, gpu, algo, &gpu_variants[index % nv], &in, 0);
    instance_free(&in);
}

static void gpu_against_cpu(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, const gcut__assign_knobs *knobs, instance *in,
                            int feasible);

/* A dense n x n request in CSR form (row-major arcs, every column in
 * order: the GPU's path on the caller's matrix), costs uniform in lo..hi,
 * minimised or maximised; the caller names it. */
static int make_dense_square(instance *in, rng *g, int32_t n, int64_t lo, int64_t hi)
{
    memset(in, 0, sizeof *in);
    in->rows = in->cols = n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)n * (size_t)n * sizeof *in->col);
    in->cost = malloc((size_t)n * (size_t)n * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
    for (int32_t x = 0; x <= n; x++)
        in->row_ptr[x] = (int64_t)x * n;
    for (int64_t a = 0; a < (int64_t)n * n; a++) {
        in->col[a] = (int32_t)(a % n);
        in->cost[a] = (int32_t)rng_range(g, lo, hi);
    }
    in->flags = rng_below(g, 3) == 0 ? GCUT_ASSIGN_MAXIMIZE : 0;
    return 1;
}

/* A dense n x n request of uniform (0..1000), tied (0..3) or signed wide
 * (-10^6..10^6) costs, from its index alone (so that it can be made
 * again). */
static int make_dense_loop(instance *in, uint64_t seed, int index)
{
    rng g = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index * 0xbf58476d1ce4e5b9ULL + 11};
    const int32_t n = (int32_t)rng_range(&g, 150, 900);
    const int kind = index % 3;
    const int64_t lo = kind == 2 ? -1000000 : 0, hi = kind == 0 ? 1000 : kind == 1 ? 3 : 1000000;
    if (!make_dense_square(in, &g, n, lo, hi))
        return 0;
    snprintf(in->name, sizeof in->name, "dense loop %d: n=%d, costs %lld..%lld%s", index, n,
             (long long)lo, (long long)hi, in->flags ? ", maximize" : "");
    return 1;
}

/* Dense requests of hundreds of rows, whose later phases pause for many
 * price updates: each solved with those phases driven on the device (the
 * default: cycles queued in batches, the kernels deciding what the host
 * loop decides) and again with the host driving them
 * (knob gpu_host_loop), both against the CPU, with the GPU's
 * proof. */
static void gpu_dense_loops(check_report *r, int count, uint64_t seed)
{
    gcut__assign_knobs host_loop;
    memset(&host_loop, 0, sizeof host_loop);
    host_loop.gpu_host_loop = 1;
    gcut_context *cpu = check_context(GCUT_DEVICE_CPU), *gpu = check_context(GCUT_DEVICE_GPU);
    int devices = 0;
    if (!cpu || !gpu) {
        check_fail(r, "could not create the contexts");
    } else if (!gcut_cuda_built() || gcut_device_count(gpu, &devices) != GCUT_OK ||
               devices == 0) {
        r->skipped += 2 * count; /* no usable GPU here */
    } else {
        for (int i = 0; i < 2 * count; i++) {
            const int host = i % 2;
            instance in;
            if (!make_dense_loop(&in, seed + 223, i / 2)) {
                check_fail(r, "out of memory");
                instance_free(&in);
                continue;
            }
            gpu_against_cpu(r, cpu, gpu, "gpu-csa", host ? &host_loop : NULL, &in, 1);
        }
    }
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
}

void check_assign_gpu_knobs(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, gpu_knobs_one, "gpu-csa", count, seed);
    gpu_dense_loops(r, count / 40 > 2 ? count / 40 : 2, seed);
}

/* A larger instance: dense, random sparse of a few arcs a row (often
 * infeasible unless partial), or a window graph like optical flow's. Every
 * tenth is of a million arcs or more (the sizes the GPU solver is for). */
static int make_large(instance *in, uint64_t seed, int index)
{
    rng g = {seed * 0xd1342543de82ef95ULL + (uint64_t)index * 0x9e3779b97f4a7c15ULL + 7};
    memset(in, 0, sizeof *in);
    const int kind = index % 3, huge = index % 10 == 9;
    int32_t n = (int32_t)rng_range(&g, 100, kind == 0 ? 600 : 3000);
    if (huge)
        n = (int32_t)(kind == 0 ? rng_range(&g, 1000, 1500) : rng_range(&g, 100000, 200000));
    int64_t degree = kind == 0 ? n : kind == 1 ? rng_range(&g, huge ? 10 : 3, 20) : 0;
    int32_t w = 0, radius = 0;
    if (kind == 2) {
        w = (int32_t)(huge ? rng_range(&g, 150, 250) : rng_range(&g, 10, 60));
        radius = (int32_t)(huge ? rng_range(&g, 3, 5) : rng_range(&g, 1, 3));
        n = w * (int32_t)(huge ? rng_range(&g, 100, 200) : rng_range(&g, 10, 50));
        degree = (2 * radius + 1) * (2 * radius + 1);
    }
    const int64_t hi = rng_below(&g, 2) ? 1000 : 100000;
    in->rows = in->cols = n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)n * (size_t)degree * sizeof *in->col);
    in->cost = malloc((size_t)n * (size_t)degree * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
    int64_t m = 0;
    in->row_ptr[0] = 0;
    for (int32_t r = 0; r < n; r++) {
        if (kind == 0) {
            for (int32_t c = 0; c < n; c++)
                in->col[m] = c, in->cost[m++] = (int32_t)rng_range(&g, 0, hi);
        } else if (kind == 1) {
            in->col[m] = r, in->cost[m++] = (int32_t)rng_range(&g, 0, hi); /* feasible */
            for (int64_t k = 1; k < degree; k++)
                in->col[m] = (int32_t)rng_below(&g, n), in->cost[m++] = (int32_t)rng_range(&g, 0, hi);
        } else {
            const int32_t h = n / w, x = r % w, y = r / w;
            for (int32_t dy = -radius; dy <= radius; dy++)
                for (int32_t dx = -radius; dx <= radius; dx++) {
                    const int32_t xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                        continue;
                    in->col[m] = yy * w + xx;
                    in->cost[m++] = (int32_t)(rng_range(&g, 0, hi) + 10 * (dx * dx + dy * dy));
                }
        }
        in->row_ptr[r + 1] = m;
    }
    in->flags = rng_below(&g, 4) == 0 ? GCUT_ASSIGN_MAXIMIZE : 0;
    snprintf(in->name, sizeof in->name, "large %d: %s n=%d, %lld arcs, costs 0..%lld%s", index,
             kind == 0 ? "dense" : kind == 1 ? "sparse" : "window", n, (long long)m,
             (long long)hi, in->flags ? ", maximize" : "");
    return 1;
}

/* `in` solved by CPU csa and by `algo` on the GPU: the same status (both
 * solved where `feasible`, the GPU's on the GPU itself, as in
 * one_vs_hungarian), the same cost, and the GPU's proof. Frees `in`. */
static void gpu_against_cpu(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, const gcut__assign_knobs *knobs, instance *in,
                            int feasible)
{
    int32_t *a = malloc((size_t)in->rows * sizeof *a), *b = malloc((size_t)in->rows * sizeof *b);
    int64_t *pb = malloc(((size_t)in->rows + in->cols) * sizeof *pb);
    int64_t ca = 0, cb = 0;
    if (!a || !b || !pb) {
        check_fail(r, "out of memory");
        goto done;
    }
    const gcut_status sa = gcut_assign_csr(cpu, in->rows, in->cols, in->row_ptr, in->col,
                                           in->cost, in->flags, "csa", a, &ca, NULL);
    gcut_assign_info info;
    memset(&info, 0, sizeof info);
    const gcut_status sb = gcut__assign_run(gpu, in->rows, in->cols, in->row_ptr, in->col,
                                            in->cost, in->flags, algo, knobs, b, &cb, pb, &info);
    if (sa != sb || (feasible && sa != GCUT_OK))
        check_fail(r, "%s: CPU '%s' (%s), GPU '%s' (%s)", in->name, gcut_status_str(sa),
                   gcut_last_error(cpu), gcut_status_str(sb), gcut_last_error(gpu));
    else if (feasible && (!info.device || !strcmp(info.device, "cpu")))
        check_fail(r, "%s: solved on the CPU, not on the GPU", in->name);
    else if (sa == GCUT_OK && ca != cb)
        check_fail(r, "%s: CPU cost %lld, GPU %lld", in->name, (long long)ca, (long long)cb);
    else if (sb == GCUT_OK && gcut_assign_verify(gpu, in->rows, in->cols, in->row_ptr, in->col,
                                                 in->cost, in->flags, b, cb, pb, NULL) != GCUT_OK)
        check_fail(r, "%s: the GPU's proof: %s", in->name, gcut_last_error(gpu));
    else
        r->passed++;
done:
    free(a);
    free(b);
    free(pb);
    instance_free(in);
}

static void gpu_vs_cpu_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                           const char *algo, uint64_t seed, int index)
{
    instance in;
    if (!make_large(&in, seed, index)) {
        check_fail(r, "out of memory");
        instance_free(&in);
        return;
    }
    gpu_against_cpu(r, cpu, gpu, algo, NULL, &in, 0);
}

/* Tie-heavy window graphs of thousands of rows (up to 150 x 100): price
 * updates whose shortest paths cross flat regions in hundreds of passes
 * (the CSR rows' frontier update), always feasible. */
static void gpu_window_ties_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                                const char *algo, uint64_t seed, int index)
{
    instance in;
    if (!make_window_ties_within(&in, seed + 307, index, 150, 100)) {
        check_fail(r, "out of memory");
        instance_free(&in);
        return;
    }
    gpu_against_cpu(r, cpu, gpu, algo, NULL, &in, 1);
}

#ifdef GCUT_HAVE_CUDA
/* A dense n x n request (the GPU's path on the caller's matrix), costs in
 * 0..hi, minimised or maximised. */
static int make_dense_sized(instance *in, rng *g, int32_t n, int index)
{
    const int64_t hi = rng_below(g, 2) ? 1000 : 1000000;
    if (!make_dense_square(in, g, n, 0, hi))
        return 0;
    snprintf(in->name, sizeof in->name, "dense kept %d: n=%d, costs 0..%lld%s", index, n,
             (long long)hi, in->flags ? ", maximize" : "");
    return 1;
}
#endif

/* Dense requests of changing sizes (growing and shrinking) on one GPU
 * context, which keeps its buffers between solves (reused, or grown to
 * the largest), and on one whose memory budget (max_memory) is below
 * them, which keeps none: both against the CPU, with the GPU's proof. */
static void gpu_dense_kept(check_report *r, int count, uint64_t seed)
{
#ifdef GCUT_HAVE_CUDA

    /* the solve's own need (440 bytes a row) fits, 4 n^2 kept bytes do not */
    const int64_t tight_bytes = 480 << 10;
    gcut_context *cpu = check_context(GCUT_DEVICE_CPU), *gpu = check_context(GCUT_DEVICE_GPU);
    gcut_context *tight = NULL;
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_GPU;
    opt.max_memory = tight_bytes;
    int devices = 0;
    if (!cpu || !gpu || gcut_context_create(&opt, &tight) != GCUT_OK) {
        check_fail(r, "could not create the contexts");
    } else if (gcut_device_count(gpu, &devices) != GCUT_OK || devices == 0) {
        r->skipped += count; /* no usable GPU here */
    } else {
        rng g = {seed * 0x9e3779b97f4a7c15ULL + 0x5eed};
        size_t largest = 0;
        for (int i = 0; i < count; i++) {
            const int on_tight = i % 2 == 1;
            const int32_t n = (int32_t)(on_tight ? rng_range(&g, 400, 700)
                                                 : rng_range(&g, 100, 1200));
            instance in;
            if (!make_dense_sized(&in, &g, n, i)) {
                check_fail(r, "out of memory");
                instance_free(&in);
                continue;
            }
            gpu_against_cpu(r, cpu, on_tight ? tight : gpu, "gpu-csa", NULL, &in, 1);
            const size_t kept = gcut__gpu_assign_kept_bytes(on_tight ? tight : gpu);
            const size_t matrix = (size_t)n * (size_t)n * sizeof(int32_t);
            largest = !on_tight && matrix > largest ? matrix : largest;
            if (on_tight && kept != 0)
                check_fail(r, "dense kept %d: %zu bytes kept under a budget of %lld", i, kept,
                           (long long)tight_bytes);
            else if (!on_tight && kept < largest)
                check_fail(r, "dense kept %d: %zu bytes kept, less than the largest matrix "
                           "(%zu bytes)", i, kept, largest);
            else
                r->passed++;
        }
    }
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
    gcut_context_destroy(tight);
#else
    (void)seed;
    r->skipped += count;
#endif
}

/* Requests of the dense shape (n arcs a row), which the GPU checks in its
 * upload, with one arc out of place: two columns of a row swapped, a
 * column twice in a row (another one missing), a column out of range, at
 * a random arc of a random row (so in any chunk of the upload, the last
 * included), or none: the same status and cost as the CPU's, which checks
 * on the host, and the message naming the arc out of range. */
static void gpu_dense_shaped_one(check_report *r, gcut_context *cpu, gcut_context *gpu,
                                 const char *algo, uint64_t seed, int index)
{
    rng g = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index * 0x94d049bb133111ebULL + 17};
    const int kind = index % 4;
    const int32_t n = (int32_t)rng_range(&g, 2, index % 8 == 7 ? 1200 : 400);
    instance in;
    if (!make_dense_square(&in, &g, n, 0, rng_below(&g, 2) ? 1000 : 1000000)) {
        check_fail(r, "out of memory");
        instance_free(&in);
        return;
    }
    const int64_t row = rng_below(&g, 4) == 0 ? n - 1 : (int64_t)rng_below(&g, n);
    const int64_t at = row * n + (rng_below(&g, 4) == 0 ? n - 1 : (int64_t)rng_below(&g, n));
    const int64_t next = at % n == n - 1 ? at - 1 : at + 1; /* another arc of the row */
    if (kind == 1) {
        const int32_t y = in.col[at];
        in.col[at] = in.col[next];
        in.col[next] = y;
    } else if (kind == 2) {
        in.col[at] = in.col[next];
    } else if (kind == 3) {
        in.col[at] = rng_below(&g, 2) ? n : -1;
    }
    snprintf(in.name, sizeof in.name, "dense shaped %d: n=%d, %s at arc %lld%s", index, n,
             kind == 0   ? "nothing"
             : kind == 1 ? "two columns swapped"
             : kind == 2 ? "a column twice"
                         : "a column out of range",
             (long long)at, in.flags ? ", maximize" : "");
    char name[sizeof in.name];
    memcpy(name, in.name, sizeof name);
    const int passed = r->passed;
    /* a column twice leaves one out: feasible while another row has it */
    gpu_against_cpu(r, cpu, gpu, algo, NULL, &in, kind != 3 && n > 1);
    if (kind == 3 && r->passed > passed && !strstr(gcut_last_error(gpu), "outside")) {
        r->passed--;
        check_fail(r, "%s: the message '%s' names no arc outside the columns", name,
                   gcut_last_error(gpu));
    }
}

void check_assign_gpu_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, gpu_vs_cpu_one, "gpu-csa", count, seed);
    check_gpu_run(r, gpu_window_ties_one, "gpu-csa", count, seed);
    check_gpu_run(r, gpu_dense_shaped_one, "gpu-csa", count, seed);
    gpu_dense_kept(r, count / 3 > 2 ? count / 3 : 2, seed);
}

/* gcut_assign_read: good files give the arcs; every malformed one fails
 * with its status and a message naming PATH:LINE. */
void check_assign_read(check_report *r, int count, uint64_t seed)
{
    (void)count;
    (void)seed;
    static const struct {
        const char *text;
        double scale;
        gcut_status want;
        const char *where; /* ":LINE:" expected in the message, or NULL */
        int64_t arcs;      /* for a good file */
    } cases[] = {
        {"2 2\n1 2\n3 4\n", 0, GCUT_OK, NULL, 4},
        {"# costs\n2 3\n1 - 2\n\n- 4 -5\n", 0, GCUT_OK, NULL, 4},
        {"1 1\n1.5\n", 2, GCUT_OK, NULL, 1},
        {"%%MatrixMarket matrix coordinate integer general\n% c\n2 2 3\n1 1 5\n2 1 -3\n1 2 7\n", 0,
         GCUT_OK, NULL, 3},
        {"%%MatrixMarket matrix array real general\n2 1\n0.5\n1.25\n", 4, GCUT_OK, NULL, 2},
        {"", 0, GCUT_E_TRUNCATED, NULL, 0},
        {"2 x\n", 0, GCUT_E_FORMAT, ":1:", 0},
        {"2 2\n1 2\n3\n", 0, GCUT_E_FORMAT, ":3:", 0},
        {"2 2\n1 2\n3 4 5\n", 0, GCUT_E_FORMAT, ":3:", 0},
        {"2 2\n1 2\n", 0, GCUT_E_TRUNCATED, NULL, 0},
        {"1 2\n1 2\n3 4\n", 0, GCUT_E_FORMAT, ":3:", 0},
        {"1 1\n1.5\n", 0, GCUT_E_FORMAT, ":2:", 0},
        {"1 1\n99999999999\n", 0, GCUT_E_OVERFLOW, ":2:", 0},
        {"1 1\n1e12\n", 1, GCUT_E_OVERFLOW, ":2:", 0},
        {"1 1\nnan\n", 1, GCUT_E_FORMAT, ":2:", 0},
        {"-1 2\n", 0, GCUT_E_FORMAT, ":1:", 0},
        {"%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n", 0, GCUT_E_FORMAT, ":1:",
         0},
        {"%%MatrixMarket matrix coordinate integer symmetric\n1 1 1\n1 1 1\n", 0, GCUT_E_FORMAT,
         ":1:", 0},
        {"%%MatrixMarket vector coordinate integer general\n", 0, GCUT_E_FORMAT, ":1:", 0},
        {"%%MatrixMarket matrix coordinate integer general\n2 2\n", 0, GCUT_E_FORMAT, ":2:", 0},
        {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n3 1 4\n", 0, GCUT_E_RANGE,
         ":3:", 0},
        {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 4 5\n", 0, GCUT_E_FORMAT,
         ":3:", 0},
        {"%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 4\n", 0, GCUT_E_TRUNCATED,
         NULL, 0},
        {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 4\n2 2 1\n", 0,
         GCUT_E_FORMAT, ":4:", 0},
        {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 x\n", 0, GCUT_E_FORMAT,
         ":3:", 0},
    };
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    char path[] = "/tmp/gcut-assign-read-XXXXXX";
    const int fd = ctx ? mkstemp(path) : -1;
    if (fd < 0) {
        check_fail(r, "no temporary file");
        gcut_context_destroy(ctx);
        return;
    }
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "wb");
        if (!f) {
            check_fail(r, "cannot write %s", path);
            break;
        }
        fputs(cases[i].text, f);
        fclose(f);
        gcut_assign_input *in = NULL;
        const gcut_status st = gcut_assign_read(ctx, path, cases[i].scale, &in);
        const char *msg = gcut_last_error(ctx);
        if (st != cases[i].want)
            check_fail(r, "case %zu: status '%s', want '%s' (%s)", i, gcut_status_str(st),
                       gcut_status_str(cases[i].want), msg);
        else if (st && (!strstr(msg, path) || (cases[i].where && !strstr(msg, cases[i].where))))
            check_fail(r, "case %zu: the message does not name %s%s: %s", i, path,
                       cases[i].where ? cases[i].where : "", msg);
        else if (!st && (in->arcs != cases[i].arcs || in->row_ptr[in->rows] != in->arcs))
            check_fail(r, "case %zu: %lld arcs, want %lld", i, (long long)in->arcs,
                       (long long)cases[i].arcs);
        else
            r->passed++;
        gcut_assign_input_destroy(in);
    }
    remove(path);
    gcut_context_destroy(ctx);
}

/* CPU CSA on a dense square request through each row's cheapest arcs
 * (src/cpu/assign_candidates.c): its paths, told apart by its log. */
typedef struct candidate_paths {
    int direct;   /* proved on the first candidates */
    int repaired; /* a repair round */
    int no_match; /* the candidates hold no perfect assignment: the whole matrix */
    int pushes;   /* the sparse solve gave up: the whole matrix */
    int beaten;   /* too many rows beaten, or beaten again: the whole matrix */
} candidate_paths;

static void candidate_log(void *user, int level, const char *message)
{
    candidate_paths *c = user;
    (void)level;
    if (strstr(message, "round 0:") && strstr(message, " 0 rows beaten"))
        c->direct++;
    if (strstr(message, "round 1:"))
        c->repaired++;
    if (strstr(message, "no perfect assignment on them"))
        c->no_match++;
    if (strstr(message, "pushes: the whole matrix"))
        c->pushes++;
    if (strstr(message, "candidates: the whole matrix"))
        c->beaten++;
}

/* Dense n x n matrices made to pass and to defeat the candidates: uniform,
 * every row's cheap arcs on the same three columns, constant rows, a_i b_j
 * (the optimum pairs the rows' costly arcs), the whole int32 range, huge
 * and tied at either end, |x_i - y_j| (the optimum far down the rows),
 * tiny signed ties; n = 1, 2 and 3 often. And a trap (n >= 40): row 0's
 * 16 cheapest columns (cost 1) are each the one cheap column (cost 0) of
 * another row, its own column costs 1000 and the others 2..50, the other
 * rows 100..1000: on the candidates row 0 takes a needy row's column or
 * its own, the optimum gives it one outside at 2..50 (a repair). */
static int make_candidate_dense(instance *in, uint64_t seed, int index)
{
    rng g = {seed * 0xd1b54a32d192ed03ULL + (uint64_t)index * 0x9e3779b97f4a7c15ULL + 11};
    memset(in, 0, sizeof *in);
    const int family = (index / 20) % 9;
    const int32_t n = family == 8            ? (int32_t)rng_range(&g, 40, 150)
                      : (index / 5) % 4 == 0 ? (int32_t)rng_range(&g, 1, 3)
                                             : (int32_t)rng_range(&g, 4, 150);
    static const char *const names[] = {"uniform", "crowded", "constant rows", "a_i b_j", "int32",
                                        "extreme", "line",    "signed ties",   "trap"};
    in->rows = in->cols = n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)n * n * sizeof *in->col);
    in->cost = malloc((size_t)n * n * sizeof *in->cost);
    int64_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!in->row_ptr || !in->col || !in->cost || !a || !b) {
        free(a);
        free(b);
        return 0;
    }
    const int32_t cheap[3] = {(int32_t)rng_below(&g, n), (int32_t)rng_below(&g, n),
                              (int32_t)rng_below(&g, n)};
    const int64_t ext = rng_below(&g, 2) ? INT32_MIN : (int64_t)INT32_MAX - 5;
    for (int32_t i = 0; i < n; i++) {
        a[i] = family == 6 ? rng_range(&g, 0, 100000) : rng_range(&g, -50, 1000);
        b[i] = family == 6 ? rng_range(&g, 0, 100000) : rng_range(&g, 0, 1000);
    }
    for (int32_t r = 0; r <= n; r++)
        in->row_ptr[r] = (int64_t)r * n;
    for (int32_t r = 0; r < n; r++)
        for (int32_t c = 0; c < n; c++) {
            int64_t v;
            switch (family) {
            case 0:
                v = rng_range(&g, 0, 1000);
                break;
            case 1:
                v = c == cheap[0] || c == cheap[1] || c == cheap[2] ? rng_range(&g, 0, 5)
                                                                    : rng_range(&g, 500, 1000);
                break;
            case 2:
                v = a[r];
                break;
            case 3:
                v = a[r] * b[c];
                break;
            case 4:
                v = rng_range(&g, INT32_MIN, INT32_MAX);
                break;
            case 5:
                v = rng_range(&g, ext, ext + 5);
                break;
            case 6:
                v = a[r] > b[c] ? a[r] - b[c] : b[c] - a[r];
                break;
            case 7:
                v = rng_range(&g, -3, 3);
                break;
            default: /* the trap: needy rows 1..16 on columns 1..16 */
                v = r == 0    ? (c == 0    ? 1000
                                 : c <= 16 ? 1
                                           : rng_range(&g, 2, 50))
                    : r <= 16 ? (c == r ? 0 : rng_range(&g, 500, 1000))
                              : rng_range(&g, 100, 1000);
                break;
            }
            in->col[(int64_t)r * n + c] = c;
            in->cost[(int64_t)r * n + c] = (int32_t)v;
        }
    free(a);
    free(b);
    in->flags = rng_below(&g, 3) == 0 ? GCUT_ASSIGN_MAXIMIZE : 0;
    snprintf(in->name, sizeof in->name, "candidates %d: %dx%d %s%s", index, n, n, names[family],
             in->flags & GCUT_ASSIGN_MAXIMIZE ? ", maximize" : "");
    return 1;
}

void check_assign_csa_candidates(check_report *r, int count, uint64_t seed)
{
    candidate_paths paths;
    memset(&paths, 0, sizeof paths);
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    opt.threads = 3; /* the selection and the price-out split even tiny matrices */
    opt.verbosity = 3;
    opt.log = candidate_log;
    opt.log_user = &paths;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx) != GCUT_OK) {
        check_fail(r, "could not create a context");
        return;
    }
    /* k = 1, 2, 16 candidates a row, every arc from the start, the default */
    static const int ks[] = {1, 2, 16, -1, 0};
    for (int i = 0; i < count; i++) {
        instance in;
        if (!make_candidate_dense(&in, seed, i)) {
            check_fail(r, "out of memory");
            instance_free(&in);
            break;
        }
        gcut__assign_knobs knobs;
        memset(&knobs, 0, sizeof knobs);
        knobs.candidates = ks[i % 5];
        snprintf(in.name + strlen(in.name), sizeof in.name - strlen(in.name), ", k %d",
                 knobs.candidates);
        one_vs_hungarian(r, ctx, "csa", &knobs, &in, 0);
        instance_free(&in);
    }
    /* every path at full counts (the quick ones may miss some) */
    if (count >= 400) {
        const struct {
            const char *what;
            int n;
        } seen[] = {{"proved on the first candidates", paths.direct},
                    {"a repair round", paths.repaired},
                    {"no perfect assignment on the candidates", paths.no_match},
                    {"a sparse solve past its pushes", paths.pushes},
                    {"too many rows beaten", paths.beaten}};
        for (size_t j = 0; j < sizeof seen / sizeof seen[0]; j++)
            if (seen[j].n == 0)
                check_fail(r, "no instance took the candidates' path: %s", seen[j].what);
            else
                r->passed++;
    }
    gcut_context_destroy(ctx);
}

/* The GPU's dense requests through their candidate arcs (knob candidates:
 * each row's k cheapest and one more, then the dense proof over every arc,
 * a repair or the dense solve where it fails), against the reference, on
 * matrices made to defeat the candidates: every row's cheap arcs on the
 * same few columns, constant rows, rank one (the optimum on each row's
 * dearer arcs), points on a line with more room on one side (long arcs),
 * huge, negative and tied costs, products modulo a prime, and n = 1, 2, 3;
 * k = 1, 2, 3, 16 and -1 (the dense solve). The path each solve took comes
 * from the GPU's log: every one of them must come up over a full run. */
typedef struct gpu_candidate_log {
    char path[256]; /* the last solve's candidate line ("" where none) */
} gpu_candidate_log;

static void gpu_candidate_log_fn(void *user, int level, const char *message)
{
    gpu_candidate_log *l = user;
    (void)level;
    if (strstr(message, "gpu candidates:"))
        snprintf(l->path, sizeof l->path, "%s", message);
}

static int make_candidate_instance(instance *in, uint64_t seed, int index)
{
    rng g = {seed * 0x9e3779b97f4a7c15ULL + (uint64_t)index * 0xc2b2ae3d27d4eb4fULL + 13};
    const int kind = index % 8;
    int32_t n = index % 10 == 7 ? (int32_t)rng_range(&g, 1, 3) : (int32_t)rng_range(&g, 4, 220);
    if (kind == 7 && n > 3)
        n = (int32_t)rng_range(&g, 100, 400);
    if (!make_dense_square(in, &g, n, 0, 1000))
        return 0;
    static const char *const names[] = {"uniform",      "cheap columns shared", "constant rows",
                                        "rank one",     "line, one-sided",      "huge",
                                        "product mod p", "ties 0..3"};
    const int64_t huge_lo = rng_below(&g, 3) == 0   ? INT32_MIN
                            : rng_below(&g, 2) == 0 ? INT32_MAX - 5
                                                    : INT32_MIN;
    const int64_t huge_hi = huge_lo == INT32_MIN && rng_below(&g, 2) ? INT32_MIN + 5 : INT32_MAX;
    const int64_t p = 97;
    int64_t *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    for (int32_t i = 0; i < n; i++) {
        a[i] = kind == 4 ? rng_range(&g, 0, 1000) : rng_range(&g, 0, 999);
        b[i] = kind == 4 ? rng_range(&g, 0, 3000) : rng_range(&g, 0, 999);
    }
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++) {
            int64_t v = in->cost[(int64_t)i * n + j];
            switch (kind) {
            case 1: v = j < 4 ? rng_range(&g, 0, 3) : rng_range(&g, 500, 1000); break;
            case 2: v = a[i]; break;
            case 3: v = a[i] * b[j]; break;
            case 4: v = a[i] > b[j] ? a[i] - b[j] : b[j] - a[i]; break;
            case 5: v = rng_range(&g, huge_lo, huge_hi); break;
            case 6: v = ((int64_t)(i + 1) * (j + 1)) % p; break;
            case 7: v = rng_range(&g, 0, 3); break;
            default: break;
            }
            in->cost[(int64_t)i * n + j] = (int32_t)v;
        }
    free(a);
    free(b);
    snprintf(in->name, sizeof in->name, "candidates %d: %s n=%d%s", index, names[kind], n,
             in->flags ? ", maximize" : "");
    return 1;
}

void check_assign_gpu_candidates(check_report *r, int count, uint64_t seed)
{
    static const int ks[] = {1, 2, 16, -1, 3};
    static const char *const paths[] = {"optimal on the candidates", "repaired",
                                        "the dense solve after them", "cover few columns",
                                        "no perfect assignment"};
    int seen[5] = {0, 0, 0, 0, 0};
    gpu_candidate_log log = {""};
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_GPU;
    opt.verbosity = 3;
    opt.log = gpu_candidate_log_fn;
    opt.log_user = &log;
    gcut_context *gpu = NULL;
    int devices = 0;
    if (gcut_context_create(&opt, &gpu) != GCUT_OK) {
        check_fail(r, "could not create a context");
        return;
    }
    if (!gcut_cuda_built() || gcut_device_count(gpu, &devices) != GCUT_OK || devices == 0) {
        r->skipped += count; /* no usable GPU here */
        gcut_context_destroy(gpu);
        return;
    }
    for (int i = 0; i < count; i++) {
        instance in;
        if (!make_candidate_instance(&in, seed + 503, i)) {
            check_fail(r, "out of memory");
            instance_free(&in);
            continue;
        }
        gcut__assign_knobs knobs;
        memset(&knobs, 0, sizeof knobs);
        knobs.candidates = ks[(i / 8) % 5];
        log.path[0] = '\0';
        const int failed = r->failed;
        one_vs_hungarian(r, gpu, "gpu-csa", &knobs, &in, 1);
        if (r->failed == failed) {
            const int on = log.path[0] != '\0';
            if (on != (knobs.candidates > 0))
                check_fail(r, "%s, candidates %d: %s", in.name, knobs.candidates,
                           on ? log.path : "no candidate line in the log");
            for (int p = 0; p < 5; p++)
                seen[p] += on && strstr(log.path, paths[p]) != NULL;
        }
        instance_free(&in);
    }
    /* a full run (the quick one may miss a path) */
    for (int p = 0; p < 5 && count >= 200; p++)
        if (!seen[p])
            check_fail(r, "%d solves, none took the path '%s' (paths: %d, %d, %d, %d, %d)", count,
                       paths[p], seen[0], seen[1], seen[2], seen[3], seen[4]);
    gcut_context_destroy(gpu);
}
