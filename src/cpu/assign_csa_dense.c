/* CPU cost scaling on a dense square request, straight on the caller's
 * n x n row-major int32 matrix: the algorithm of src/cpu/assign_csa.c
 * (Goldberg-Kennedy CSA with double pushes, quick minima, rows that stay
 * eps-optimal keeping their column) without the square CSR problem that
 * path builds, 12 bytes an arc written and read again, and without the
 * column indices: a row's scan reads its costs and the prices in order.
 * The scaled cost of (x, y) is cost[x n + y] * sign * S, made on the fly.
 *
 * A complete bipartite graph always has a perfect assignment, so there is
 * no infeasibility test, and arc fixing and price updates (off by default
 * in the CSR solver too, as they lost time there) are left to that
 * solver: the caller takes the CSR path when a knob asks for them. */
#include <stdlib.h>
#include <string.h>

#include "cpu/assign_csa_cache.h"
#include "cpu/assign_csa_dense.h"

#define CACHE_MAX 32
#define INF64 INT64_MAX
/* A row's scan is two passes over its costs and the prices, both loops
 * that vectorize: the first keeps the least c' of each of LANES lanes
 * (LANES_FEW where 16 or fewer are wanted; arc y in lane y % lanes), whose
 * want-th smallest bounds the row's want-th best from above (they are
 * `want` distinct arcs); the second takes the arcs within that bound, CHUNK
 * at a time, and inserts the few it finds. */
#define LANES 64
#define LANES_FEW 16 /* where 16 or fewer are wanted */
#define CHUNK 16

/* 64-bit vector compares need AVX2 (x86-64's baseline has none), so GCC on
 * Linux builds an AVX2 clone of the scan, chosen at load time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SCAN_CLONES __attribute__((target_clones("avx2", "default")))
/* GCC unrolls a CHUNK loop whole before its vectorizer would see it */
#define CHUNK_LOOP _Pragma("GCC unroll 1")
#else
#define SCAN_CLONES
#define CHUNK_LOOP
#endif

typedef struct dense_csa {
    int32_t n;
    const int32_t *cost;
    int32_t mul;      /* sign * S: the scaled cost is cost * mul */
    int64_t *price;   /* columns */
    int32_t *row_col; /* matched column of each row, -1 */
    int32_t *col_row; /* owner of each column, -1 */
    int32_t *stack;   /* active rows */
    int32_t top;
    int cache;
    int32_t *cache_col;  /* n * cache */
    int64_t *cache_cost; /* n * cache, scaled */
    uint8_t *cache_len;  /* 0: scan needed */
    int64_t *cache_bound;
    int64_t pushes;
} dense_csa;

/* Insert (v, y) into the sorted best list bval/bc of at most `want`. */
static inline void insert_best(int64_t *bval, int32_t *bc, int *len, int want, int64_t v, int32_t y)
{
    int i = *len < want ? (*len)++ : want - 1;
    while (i > 0 && bval[i - 1] > v) {
        bval[i] = bval[i - 1];
        bc[i] = bc[i - 1];
        i--;
    }
    bval[i] = v;
    bc[i] = y;
}

/* gcut__assign_dense_row_best, inlined into each of its callers' clones
 * (a call per scan cost the whole-matrix solve 5 % on dense 1000^2). */
static inline int row_best(const int32_t *row, int32_t n, int32_t mul, const int64_t *price,
                           int want, int64_t *bval, int32_t *bc)
{
    int len = 0;
    /* arcs [0, full) in whole rounds of LANES: the first pass's (none where
     * more are wanted than there are lanes: then every arc is inserted) */
    const int lanes = want <= LANES_FEW ? LANES_FEW : LANES;
    const int32_t full = want <= lanes ? n / lanes * lanes : 0;
    int64_t limit = INF64; /* arcs at or above it are not among the `want` best */
    if (full > 0) {
        int64_t m[LANES];
        for (int j = 0; j < lanes; j++)
            m[j] = INF64;
        for (int32_t y0 = 0; y0 < full; y0 += lanes)
            for (int j = 0; j < lanes; j++) {
                const int64_t v = (int64_t)row[y0 + j] * mul - price[y0 + j];
                m[j] = v < m[j] ? v : m[j];
            }
        for (int j = 0; j < lanes; j++)
            if (len < want || m[j] < bval[want - 1])
                insert_best(bval, bc, &len, want, m[j], 0);
        limit = bval[want - 1] + 1; /* |c'| < 2^62: no overflow */
        len = 0;
    }
    for (int32_t y0 = 0; y0 < full; y0 += CHUNK) {
        int64_t v[CHUNK];
        int hits = 0;
        CHUNK_LOOP
        for (int j = 0; j < CHUNK; j++) {
            v[j] = (int64_t)row[y0 + j] * mul - price[y0 + j];
            hits |= v[j] < limit;
        }
        if (!hits)
            continue;
        for (int j = 0; j < CHUNK; j++)
            if (v[j] < limit) {
                insert_best(bval, bc, &len, want, v[j], y0 + j);
                if (len == want)
                    limit = bval[want - 1];
            }
    }
    for (int32_t y = full; y < n; y++) {
        const int64_t v = (int64_t)row[y] * mul - price[y];
        if (v < limit) {
            insert_best(bval, bc, &len, want, v, y);
            if (len == want)
                limit = bval[want - 1];
        }
    }
    return len;
}

SCAN_CLONES int gcut__assign_dense_row_best(const int32_t *row, int32_t n, int32_t mul,
                                            const int64_t *price, int want, int64_t *bval,
                                            int32_t *bc)
{
    return row_best(row, n, mul, price, want, bval, bc);
}

/* Full scan of row x: keep its `cache` best (the least c', ties to the
 * lower column) and the (k+1)-th best as the bound on the others. */
SCAN_CLONES static void scan_row(dense_csa *s, int32_t x)
{
    const int k = s->cache;
    const int32_t n = s->n, mul = s->mul;
    const int32_t *row = s->cost + (int64_t)x * n;
    int32_t bc[CACHE_MAX + 1];
    int64_t bval[CACHE_MAX + 1];
    const int len = row_best(row, n, mul, s->price, k + 1, bval, bc);
    const int keep = len < k ? len : k;
    int32_t *cc = s->cache_col + (int64_t)x * k;
    int64_t *ck = s->cache_cost + (int64_t)x * k;
    for (int i = 0; i < keep; i++) {
        cc[i] = bc[i];
        ck[i] = (int64_t)row[bc[i]] * mul;
    }
    s->cache_len[x] = (uint8_t)keep;
    s->cache_bound[x] = len > k ? bval[k] : INF64;
}

/* The two best c' of row x (n >= 1): v1 at column *y1 of scaled cost *c1,
 * and v2 (INF64 when n = 1). The cache holds them while both are within
 * its bound (prices only fall, so an uncached arc's c' only rises). */
static void best_two(dense_csa *s, int32_t x, int32_t *y1, int64_t *c1, int64_t *v1, int64_t *v2)
{
    const int k = s->cache;
    for (int pass = 0;; pass++) {
        if (s->cache_len[x] == 0 || pass == 1)
            scan_row(s, x);
        const int len = s->cache_len[x];
        const int32_t *cc = s->cache_col + (int64_t)x * k;
        const int64_t *ck = s->cache_cost + (int64_t)x * k;
        int64_t b1, b2;
        const int i1 = gcut__csa_cached_two(cc, ck, len, s->price, &b1, &b2);
        if (pass == 1 || gcut__csa_cache_holds(b2, s->cache_bound[x])) {
            *y1 = cc[i1];
            *c1 = ck[i1];
            *v1 = b1;
            *v2 = b2;
            return;
        }
    }
}

/* Double pushes until no row is active (assign_csa.c's discharge). */
static gcut_status discharge(dense_csa *s, int64_t eps, gcut_context *ctx)
{
    while (s->top > 0) {
        const int32_t x = s->stack[--s->top];
        int32_t y;
        int64_t c1, v1, v2;
        best_two(s, x, &y, &c1, &v1, &v2);
        if (v2 == INF64) /* one column: the smallest drop */
            v2 = v1;
        const int64_t np = c1 - v2 - eps;
        if (np < -GCUT__ASSIGN_LIMIT)
            return gcut__fail(ctx, GCUT_E_OVERFLOW,
                              "assign: a price passed -2^60 (costs too large for this size)");
        s->price[y] = np;
        const int32_t old = s->col_row[y];
        s->col_row[y] = x;
        s->row_col[x] = y;
        if (old >= 0) {
            s->row_col[old] = -1;
            s->stack[s->top++] = old;
        }
        s->pushes++;
    }
    return GCUT_OK;
}

/* One phase at `eps`; with `keep`, a row whose column is within eps of its
 * best c' keeps it. Its best comes from the cache, which stays valid
 * across phases, so a row that keeps its column costs no scan. */
static gcut_status refine(dense_csa *s, int64_t eps, int keep, gcut_context *ctx)
{
    const int32_t n = s->n;
    for (int32_t y = 0; y < n; y++)
        s->col_row[y] = -1;
    s->top = 0;
    for (int32_t x = n - 1; x >= 0; x--) {
        const int32_t y = s->row_col[x];
        if (keep && y >= 0) {
            int32_t yb;
            int64_t cb, vb, v2;
            best_two(s, x, &yb, &cb, &vb, &v2);
            const int64_t held = (int64_t)s->cost[(int64_t)x * n + y] * s->mul - s->price[y];
            if (held <= vb + eps) {
                s->col_row[y] = x;
                continue;
            }
        }
        s->row_col[x] = -1;
        s->stack[s->top++] = x;
    }
    return discharge(s, eps, ctx);
}

/* gcut__assign_csa_dense's work; warm_eps > 0: from res's state
 * (gcut__assign_csa_dense_warm). */
static gcut_status dense_solve(gcut_context *ctx, const gcut__assign_dense *p,
                               const gcut__assign_knobs *knobs, int64_t warm_eps,
                               gcut__assign_result *res)
{
    const int32_t n = p->n;
    /* Alpha 50 as in the CSR solver (assign_csa.c). A cache miss costs a
     * scan of n arcs, so larger n keeps more: measured in CPU time on random
     * costs in [0, 1000] (2-core VM), cache 8 / 16 / 32: n = 1000 6.7 / 7.1
     * / 7.9 ms, 1500 17.7 / 15.2 / 18.4, 2000 39.0 / 31.1 / 29.6, 5000 - /
     * 294 / 238. */
    const int alpha = knobs && knobs->alpha > 1 ? knobs->alpha : 50;
    const int cache = knobs && knobs->cache > 1
                          ? (knobs->cache > CACHE_MAX ? CACHE_MAX : knobs->cache)
                      : n < 1200 ? 8
                      : n < 2000 ? 16
                                 : 32;
    if (n <= 0)
        return GCUT_OK;
    dense_csa s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.cost = p->cost;
    s.mul = (int32_t)(p->sign * p->scale);
    s.price = res->price;
    s.row_col = res->row_col;
    s.cache = cache;
    const size_t nn = (size_t)n;
    s.col_row = malloc(nn * sizeof *s.col_row);
    s.stack = malloc(nn * sizeof *s.stack);
    s.cache_col = malloc(nn * (size_t)cache * sizeof *s.cache_col);
    s.cache_cost = malloc(nn * (size_t)cache * sizeof *s.cache_cost);
    s.cache_len = calloc(nn, 1);
    s.cache_bound = malloc(nn * sizeof *s.cache_bound);
    gcut_status st = GCUT_OK;
    if (!s.col_row || !s.stack || !s.cache_col || !s.cache_cost || !s.cache_len || !s.cache_bound) {
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
        goto done;
    }
    if (!warm_eps) {
        for (int32_t y = 0; y < n; y++)
            s.price[y] = 0;
        for (int32_t x = 0; x < n; x++)
            s.row_col[x] = -1;
    }
    /* eps < 1 after scaling by S means optimal; start at the scaled range */
    const int64_t range = (p->cost_max - p->cost_min) * p->scale;
    int64_t eps = warm_eps ? warm_eps : range > 0 ? range : 1;
    int first = !warm_eps;
    do {
        eps = eps / alpha > 1 ? eps / alpha : 1;
        st = refine(&s, eps, !first, ctx);
        res->refines++;
        first = 0;
    } while (!st && eps > 1);
    res->pushes += s.pushes;
done:
    free(s.col_row);
    free(s.stack);
    free(s.cache_col);
    free(s.cache_cost);
    free(s.cache_len);
    free(s.cache_bound);
    return st;
}

gcut_status gcut__assign_csa_dense(gcut_context *ctx, const gcut__assign_dense *p,
                                   const gcut__assign_knobs *knobs, gcut__assign_result *res)
{
    return dense_solve(ctx, p, knobs, 0, res);
}

gcut_status gcut__assign_csa_dense_warm(gcut_context *ctx, const gcut__assign_dense *p,
                                        const gcut__assign_knobs *knobs, int64_t eps,
                                        gcut__assign_result *res)
{
    return dense_solve(ctx, p, knobs, eps > 1 ? eps : 1, res);
}
