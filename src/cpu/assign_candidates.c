/* CPU cost scaling on a dense square request, first on a sparse problem of
 * each row's k cheapest arcs, then priced out over the whole matrix.
 *
 * On most cost families the optimum uses only a few of each row's cheapest
 * arcs (on uniform random costs, arcs of rank O(log n)), so CSA on the n
 * (k + 1) candidate arcs finds it in far less work than on n^2 arcs, and
 * from a first eps of the candidates' cost range, not the matrix's (fewer
 * phases). Its prices then prove it or not in one pass over the matrix,
 * the pass that proves every dense solve anyway: every arc's c' checked
 * against its row's. Each row also keeps its own column (the diagonal), so
 * the sparse problem always has a perfect assignment.
 *
 * Where the candidates cannot hold the optimum the whole matrix is solved
 * (gcut__assign_csa_dense), so the answer is always optimal with that
 * path's proof:
 * - the arcs chosen by cost hold no perfect assignment (the cheap arcs of
 *   many rows are on the same few columns, as with costs a_i b_j, or the
 *   optimum reaches far down the rows, as with |x_i - y_j|): found by a
 *   matching search on the n k arcs before any solve;
 * - the sparse solve passes its budget of double pushes (a long price war
 *   on them);
 * - after the price-out, more than 1 / REPAIR_SHARE of the rows are beaten
 *   by an arc outside, or some still are after REPAIR_ROUNDS repairs: then
 *   from the found prices, 1-optimal on the matrix once those rows are free.
 * Else each beaten row gets its cheapest arcs under the found prices (the
 * beating arcs first) and loses its column, and the sparse solve goes on
 * warm from those prices (1-optimal on the larger problem), its phases from
 * the worst violation down. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory_budget.h"
#include "core/parallel.h"
#include "cpu/assign_candidates.h"
#include "cpu/assign_csa_dense.h"

#define CAND_MAX 63 /* the row scan's two-pass bound holds up to 64 wanted */
/* Repairs while at most 1 / REPAIR_SHARE of the rows are beaten, for at
 * most REPAIR_ROUNDS rounds. A sparse solve gives up after 4 n^2 / (k + 1)
 * double pushes: each looks at about k + 1 arcs, so about four passes over
 * the matrix, the least the whole matrix's solve takes (a scan of every
 * row in each of its three to six phases). */
#define REPAIR_ROUNDS 2
#define REPAIR_SHARE 8
#define INF64 INT64_MAX

#define LANES 64
#define CHUNK 16
/* as in assign_csa_dense.c: an AVX2 clone of the scans, picked at load */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SCAN_CLONES __attribute__((target_clones("avx2", "default")))
#define CHUNK_LOOP _Pragma("GCC unroll 1")
#else
#define SCAN_CLONES
#define CHUNK_LOOP
#endif

/* 16 arcs a row from n = 256 (measured on the five cost families of
 * bench/assign_bench.py, bench/results/assign_csa_dev-vm-2core.md): 8
 * lost most of dense 2000^2 [0, 1000] to repairs and the whole matrix,
 * 32 was slower on every family it held; below 256 rows the whole matrix
 * is as fast. 16 also stays above 2 ln n (the random k cheapest columns of
 * n rows all covered) up to n = 2980, and above ln n to n = 8.8e6. */
int gcut__assign_candidates_default(int32_t n)
{
    return n >= 256 ? 16 : 0;
}

int64_t gcut__assign_candidates_bytes(int32_t n, const gcut__assign_knobs *knobs)
{
    int k =
        !knobs || knobs->candidates == 0 ? gcut__assign_candidates_default(n) : knobs->candidates;
    if (k <= 0)
        return 0;
    k = k > CAND_MAX ? CAND_MAX : k;
    /* A row's arcs (12 bytes each): t, then up to t more each repair, the
     * old and the new problem side by side while one is made (5 t); the
     * sparse solver's state with a cache of 8 (about 140 bytes); the
     * rows' violations, marks and the matching's scratch (about 40). */
    return gcut__memory_mul_add((int64_t)n + 1, 60 * ((int64_t)k + 1) + 180, 0);
}

/* The price-out pass, one entry a part. */
typedef struct price_out {
    const gcut__assign_dense *p;
    const int64_t *price;
    const int32_t *row_col;
    int64_t *dual, *over;
    int64_t gap[GCUT__MAX_THREADS];
} price_out;

/* One row's least c' (a loop that vectorizes: AVX2's 64-bit compares). */
SCAN_CLONES static int64_t row_min(const int32_t *row, int32_t n, int64_t mul, const int64_t *price)
{
    int64_t u = INF64;
    for (int32_t y = 0; y < n; y++) {
        const int64_t v = row[y] * mul - price[y];
        u = v < u ? v : u;
    }
    return u;
}

static void price_out_rows(void *arg, int64_t begin, int64_t end, int part)
{
    price_out *q = arg;
    const int32_t n = q->p->n;
    const int64_t mul = q->p->sign * q->p->scale, scale = q->p->scale;
    int64_t gap = 0;
    for (int64_t x = begin; x < end; x++) {
        const int32_t *row = q->p->cost + x * n;
        const int64_t u = row_min(row, n, mul, q->price);
        q->dual[x] = u;
        const int32_t c = q->row_col[x];
        const int64_t term = c >= 0 && c < n ? row[c] * mul - q->price[c] - u : INF64;
        if (q->over)
            q->over[x] = term;
        gap += term < scale ? term : scale;
    }
    q->gap[part] = gap;
}

void gcut__assign_dense_price_out(gcut_context *ctx, const gcut__assign_dense *p,
                                  const int64_t *price, const int32_t *row_col, int64_t *dual,
                                  int64_t *over, int64_t *gap)
{
    const int32_t n = p->n;
    price_out q;
    q.p = p;
    q.price = price;
    q.row_col = row_col;
    q.dual = dual;
    q.over = over;
    int parts = gcut__thread_count(ctx ? ctx->options.threads : 0, (int64_t)n * n);
    if (parts > n)
        parts = n;
    gcut__parallel_for(parts, n, price_out_rows, &q);
    *gap = 0;
    for (int i = 0; i < parts; i++)
        *gap += q.gap[i]; /* each part's at most n * scale: no overflow */
}

/* Insert (v, y) into the sorted best list bkey/bc of at most `want`. */
static inline void insert_key(int32_t *bkey, int32_t *bc, int *len, int want, int32_t v, int32_t y)
{
    int i = *len < want ? (*len)++ : want - 1;
    while (i > 0 && bkey[i - 1] > v) {
        bkey[i] = bkey[i - 1];
        bc[i] = bc[i - 1];
        i--;
    }
    bkey[i] = v;
    bc[i] = y;
}

/* The `want` (<= LANES) least keys row[y] ^ flip of a row of n (flip 0,
 * or -1 to maximize: ~c orders as -c without overflow), the least first,
 * ties to the lower column; returns how many. At prices 0 this is
 * gcut__assign_dense_row_best on the 32-bit costs: twice the lanes a
 * vector, no prices read, no products. */
SCAN_CLONES static int row_keys_best(const int32_t *row, int32_t n, int32_t flip, int want,
                                     int32_t *bkey, int32_t *bc)
{
    int len = 0;
    const int32_t full = n / LANES * LANES;
    int32_t lim = INT32_MAX; /* keys above it are not among the `want` best */
    if (full > 0) {
        int32_t m[LANES];
        for (int j = 0; j < LANES; j++)
            m[j] = INT32_MAX;
        for (int32_t y0 = 0; y0 < full; y0 += LANES)
            for (int j = 0; j < LANES; j++) {
                const int32_t v = row[y0 + j] ^ flip;
                m[j] = v < m[j] ? v : m[j];
            }
        for (int j = 0; j < LANES; j++)
            if (len < want || m[j] < bkey[want - 1])
                insert_key(bkey, bc, &len, want, m[j], 0);
        lim = bkey[want - 1];
        len = 0;
    }
    for (int32_t y0 = 0; y0 < n; y0 += CHUNK) {
        const int c = n - y0 < CHUNK ? n - y0 : CHUNK;
        int hits = 0;
        if (c == CHUNK) {
            CHUNK_LOOP
            for (int j = 0; j < CHUNK; j++)
                hits |= (row[y0 + j] ^ flip) <= lim;
            if (!hits)
                continue;
        }
        for (int j = 0; j < c; j++) {
            const int32_t v = row[y0 + j] ^ flip;
            if (v > lim)
                continue;
            insert_key(bkey, bc, &len, want, v, y0 + j);
            if (len == want) {
                if (bkey[want - 1] == INT32_MIN)
                    return len; /* nothing is less */
                lim = bkey[want - 1] - 1;
            }
        }
    }
    return len;
}

/* The candidate selection, one entry a part: row x's arcs are
 * col/cost[x t, x t + t). */
typedef struct select_job {
    const gcut__assign_dense *p;
    int32_t t; /* arcs a row keeps: min(k + 1, n) */
    int32_t *col;
    int64_t *cost;   /* scaled */
    uint8_t *forced; /* 1: the row's last arc is its own column, not chosen */
    int64_t lo[GCUT__MAX_THREADS], hi[GCUT__MAX_THREADS]; /* the chosen arcs' range */
} select_job;

/* Each row's t cheapest arcs, or its t - 1 cheapest and its own column
 * where that is not among them (the diagonal: a perfect assignment). */
static void select_rows(void *arg, int64_t begin, int64_t end, int part)
{
    select_job *j = arg;
    const int32_t n = j->p->n, t = j->t;
    const int32_t mul = (int32_t)(j->p->sign * j->p->scale);
    const int32_t flip = mul < 0 ? -1 : 0;
    int64_t lo = INF64, hi = -INF64;
    int64_t bval[CAND_MAX + 1];
    int32_t bkey[CAND_MAX + 1], bc[CAND_MAX + 1];
    for (int64_t x = begin; x < end; x++) {
        const int32_t *row = j->p->cost + x * n;
        const int len = row_keys_best(row, n, flip, t, bkey, bc);
        for (int i = 0; i < len; i++)
            bval[i] = (int64_t)row[bc[i]] * mul;
        int chosen = len; /* the arcs chosen by cost, not forced */
        if (len < n) {
            int has_own = 0;
            for (int i = 0; i < len - 1; i++)
                has_own |= bc[i] == x;
            if (!has_own) {
                bc[len - 1] = (int32_t)x;
                chosen = len - 1;
            }
        }
        j->forced[x] = chosen < len;
        int32_t *col = j->col + x * t;
        int64_t *cost = j->cost + x * t;
        for (int i = 0; i < len; i++) {
            col[i] = bc[i];
            cost[i] = (int64_t)row[bc[i]] * mul; /* bval[i] but where forced */
        }
        if (chosen > 0) {
            lo = bval[0] < lo ? bval[0] : lo;
            hi = bval[chosen - 1] > hi ? bval[chosen - 1] : hi;
        }
    }
    j->lo[part] = lo;
    j->hi[part] = hi;
}

/* The sparse problem's arrays, rebuilt with each repair. */
typedef struct cand_problem {
    gcut__assign_problem prob;
    int64_t *row_ptr;
    int32_t *col;
    int64_t *cost;
} cand_problem;

static void cand_free(cand_problem *c)
{
    free(c->row_ptr);
    free(c->col);
    free(c->cost);
    memset(c, 0, sizeof *c);
}

/* One augmenting-path search from the free row x0 on the arcs col (row x's
 * first lim(x)): depth first, each row's arcs first scanned for a free
 * column before any is followed (a look-ahead: most paths end one row
 * down). Rows are marked with `stamp` as they are stacked, so a search
 * skips rows that one with the same stamp already found no path from.
 * Returns 1 (the path's rows each took the column they went on by), 0 (no
 * path through rows not marked), -1 (the budget ran out). */
static int augment(int32_t x0, int32_t t, const int32_t *col, const uint8_t *forced, int32_t *owner,
                   int32_t *row_col, int32_t *seen, int32_t stamp, int32_t *stack, int32_t *next,
                   int64_t *work, int64_t budget)
{
    int top = 0;
    stack[0] = x0;
    next[0] = 0;
    seen[x0] = stamp;
    while (top >= 0) {
        if (*work > budget)
            return -1;
        const int32_t x = stack[top];
        const int32_t lim = t - (forced ? forced[x] : 0);
        const int32_t *arcs = col + (int64_t)x * t;
        if (next[top] == 0) {
            int32_t i = 0;
            while (i < lim && owner[arcs[i]] >= 0)
                i++;
            *work += i + 1;
            if (i < lim) {
                next[top] = i + 1;
                for (int k = top; k >= 0; k--) {
                    const int32_t r = stack[k];
                    const int32_t yr = col[(int64_t)r * t + next[k] - 1];
                    owner[yr] = r;
                    row_col[r] = yr;
                }
                return 1;
            }
        }
        if (next[top] == lim) {
            top--;
            continue;
        }
        /* every column of x is owned (the look-ahead found none free, and
         * owners change only when a path is found) */
        const int32_t o = owner[arcs[next[top]++]];
        (*work)++;
        if (seen[o] != stamp) {
            seen[o] = stamp;
            stack[++top] = o;
            next[top] = 0;
        }
    }
    return 0;
}

/* (declared in assign_candidates.h) Greedy, then one augmenting-path
 * search a free row (augment), the rows' marks shared by the searches, so
 * that the pass is near linear. A search that fails on shared marks is
 * proof of nothing (a marked row may lead to a free column now); it runs
 * again at once with fresh marks, and if that fails too there is no
 * augmenting path from its row, so no perfect assignment (Berge): *perfect
 * 0 is exact. The searches stop after 4 n t arcs (-1, undecided): a safety
 * net, the pass takes well under n t on every cost family measured. */
gcut_status gcut__assign_candidates_match(gcut_context *ctx, int32_t n, int32_t t,
                                          const int32_t *col, const uint8_t *forced, int32_t *owner,
                                          int *perfect)
{
    int32_t *row_col = malloc((size_t)n * sizeof *row_col);
    int32_t *seen = malloc((size_t)n * sizeof *seen);
    int32_t *stack = malloc((size_t)n * sizeof *stack);
    int32_t *next = malloc((size_t)n * sizeof *next); /* a stacked row's next arc */
    if (!row_col || !seen || !stack || !next) {
        free(row_col);
        free(seen);
        free(stack);
        free(next);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
    }
    for (int32_t y = 0; y < n; y++)
        owner[y] = -1;
    for (int32_t x = 0; x < n; x++) {
        row_col[x] = -1;
        seen[x] = -1;
        for (int32_t i = 0; i < t - (forced ? forced[x] : 0); i++) {
            const int32_t y = col[(int64_t)x * t + i];
            if (owner[y] < 0) {
                owner[y] = x;
                row_col[x] = y;
                break;
            }
        }
    }
    const int64_t budget = 4 * (int64_t)n * t;
    int64_t work = 0;
    int32_t stamp = 0; /* at most one more a free row: no overflow */
    *perfect = 1;
    for (int32_t x0 = 0; x0 < n && *perfect == 1; x0++) {
        if (row_col[x0] >= 0)
            continue;
        int r =
            augment(x0, t, col, forced, owner, row_col, seen, stamp, stack, next, &work, budget);
        if (r == 0) {
            stamp++;
            r = augment(x0, t, col, forced, owner, row_col, seen, stamp, stack, next, &work,
                        budget);
        }
        *perfect = r;
    }
    free(row_col);
    free(seen);
    free(stack);
    free(next);
    return GCUT_OK;
}

/* The first problem: each row's t arcs (select_rows), on the threads, and
 * whether the arcs chosen by cost hold a perfect assignment
 * (gcut__assign_candidates_match;
 * mark: n scratch). */
static gcut_status cand_first(gcut_context *ctx, const gcut__assign_dense *p, int32_t t,
                              int32_t *mark, cand_problem *c, int *perfect)
{
    const int32_t n = p->n;
    const int64_t m = (int64_t)n * t;
    memset(c, 0, sizeof *c);
    c->row_ptr = malloc(((size_t)n + 1) * sizeof *c->row_ptr);
    c->col = malloc((size_t)m * sizeof *c->col);
    c->cost = malloc((size_t)m * sizeof *c->cost);
    uint8_t *forced = malloc((size_t)n);
    select_job *j = malloc(sizeof *j);
    if (!c->row_ptr || !c->col || !c->cost || !forced || !j) {
        free(forced);
        free(j);
        cand_free(c);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
    }
    j->p = p;
    j->t = t;
    j->col = c->col;
    j->cost = c->cost;
    j->forced = forced;
    int parts = gcut__thread_count(ctx ? ctx->options.threads : 0, (int64_t)n * n);
    if (parts > n)
        parts = n;
    gcut__parallel_for(parts, n, select_rows, j);
    int64_t lo = INF64, hi = -INF64;
    for (int i = 0; i < parts; i++) {
        lo = j->lo[i] < lo ? j->lo[i] : lo;
        hi = j->hi[i] > hi ? j->hi[i] : hi;
    }
    free(j);
    const gcut_status st = gcut__assign_candidates_match(ctx, n, t, c->col, forced, mark, perfect);
    free(forced);
    if (st) {
        cand_free(c);
        return st;
    }
    for (int32_t x = 0; x <= n; x++)
        c->row_ptr[x] = (int64_t)x * t;
    memset(&c->prob, 0, sizeof c->prob);
    c->prob.n = n;
    c->prob.m = m;
    c->prob.row_ptr = c->row_ptr;
    c->prob.col = c->col;
    c->prob.cost = c->cost;
    /* The range of the arcs chosen by cost, not of the forced diagonals:
     * the first eps only, and any first eps is correct from a state of
     * free rows. */
    c->prob.cost_min = lo <= hi ? lo : 0;
    c->prob.cost_max = lo <= hi ? hi : 0;
    return GCUT_OK;
}

/* Give each violating row (over[x] > 1) its `want` cheapest arcs under
 * `price` beside the ones it has, and free it. */
static gcut_status cand_repair(gcut_context *ctx, const gcut__assign_dense *p, const int64_t *price,
                               const int64_t *over, int want, int32_t *row_col, int32_t *mark,
                               cand_problem *c)
{
    const int32_t n = p->n;
    const int32_t mul = (int32_t)(p->sign * p->scale);
    int64_t violators = 0;
    for (int32_t x = 0; x < n; x++)
        violators += over[x] > 1;
    const int64_t m = c->prob.m + violators * want;
    int64_t *row_ptr = malloc(((size_t)n + 1) * sizeof *row_ptr);
    int32_t *col = malloc((size_t)m * sizeof *col);
    int64_t *cost = malloc((size_t)m * sizeof *cost);
    if (!row_ptr || !col || !cost) {
        free(row_ptr);
        free(col);
        free(cost);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %lld arcs", (long long)m);
    }
    int64_t bval[CAND_MAX + 1];
    int32_t bc[CAND_MAX + 1];
    int64_t at = 0;
    for (int32_t y = 0; y < n; y++)
        mark[y] = -1; /* mark[y] == x: row x has column y */
    for (int32_t x = 0; x < n; x++) {
        row_ptr[x] = at;
        for (int64_t a = c->row_ptr[x]; a < c->row_ptr[x + 1]; a++) {
            col[at] = c->col[a];
            cost[at++] = c->cost[a];
        }
        if (over[x] <= 1)
            continue;
        row_col[x] = -1;
        const int32_t *row = p->cost + (int64_t)x * n;
        for (int64_t a = row_ptr[x]; a < at; a++)
            mark[col[a]] = x;
        const int len = gcut__assign_dense_row_best(row, n, mul, price, want, bval, bc);
        for (int i = 0; i < len; i++)
            if (mark[bc[i]] != x) {
                col[at] = bc[i];
                cost[at++] = (int64_t)row[bc[i]] * mul;
            }
    }
    row_ptr[n] = at;
    free(c->row_ptr);
    free(c->col);
    free(c->cost);
    c->row_ptr = row_ptr;
    c->col = col;
    c->cost = cost;
    c->prob.m = at;
    c->prob.row_ptr = row_ptr;
    c->prob.col = col;
    c->prob.cost = cost;
    return GCUT_OK;
}

/* The whole matrix from the start (today's dense solve), and its proof.
 * Not from the candidates' lists as row caches: that saves a scan a row but
 * breaks ties in another order, and on near-tied costs (|x_i - y_j|) the
 * order moves the solve by -20 % to +80 %. */
static gcut_status whole_matrix(gcut_context *ctx, const gcut__assign_dense *p,
                                const gcut__assign_knobs *knobs, cand_problem *c,
                                gcut__assign_result *res, int64_t *dual, int64_t *gap)
{
    cand_free(c);
    const gcut_status st = gcut__assign_csa_dense(ctx, p, knobs, res);
    if (!st)
        gcut__assign_dense_price_out(ctx, p, res->price, res->row_col, dual, NULL, gap);
    return st;
}

gcut_status gcut__assign_csa_candidates(gcut_context *ctx, const gcut__assign_dense *p,
                                        const gcut__assign_knobs *knobs, int k,
                                        gcut__assign_result *res, int64_t *dual, int64_t *gap)
{
    const int32_t n = p->n;
    const double t0 = gcut__now_ms();
    if (k > CAND_MAX)
        k = CAND_MAX;
    const int32_t t = k + 1 < n ? k + 1 : n;
    /* the sparse solve takes the alpha knob; its cache is its own */
    gcut__assign_knobs sk;
    memset(&sk, 0, sizeof sk);
    sk.alpha = knobs ? knobs->alpha : 0;
    const int64_t budget = 4 * (int64_t)n * n / t + 1;
    int64_t *over = malloc((size_t)n * sizeof *over);
    int32_t *mark = malloc((size_t)n * sizeof *mark);
    cand_problem c;
    memset(&c, 0, sizeof c);
    int perfect = 1;
    gcut_status st = GCUT_OK;
    if (!over || !mark)
        st = gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
    if (!st)
        st = cand_first(ctx, p, t, mark, &c, &perfect);
    if (!st && !perfect) {
        /* some rows would hold their own column, at any cost: the cheap
         * arcs of many rows are on the same few columns */
        gcut__log(ctx, 3,
                  "assign: candidates %d a row: no perfect assignment on them: the "
                  "whole matrix",
                  k);
        st = whole_matrix(ctx, p, knobs, &c, res, dual, gap);
        goto done;
    }
    if (!st) {
        for (int32_t y = 0; y < n; y++)
            res->price[y] = 0;
        for (int32_t x = 0; x < n; x++)
            res->row_col[x] = -1;
        const int64_t range = c.prob.cost_max - c.prob.cost_min;
        st = gcut__assign_csa_warm(ctx, &c.prob, &sk, range > 1 ? range : 1, budget, res);
    }
    for (int round = 0; !st || st == GCUT_E_UNSUPPORTED || st == GCUT_E_OVERFLOW; round++) {
        if (st) {
            /* a long price war on the candidates: their optimum is far (or
             * the forced columns' costs took a price past the limit, which
             * the whole matrix may keep within) */
            gcut__clear_error(ctx);
            char why[64] = "a price past -2^60";
            if (st == GCUT_E_UNSUPPORTED)
                snprintf(why, sizeof why, "past %lld pushes", (long long)budget);
            gcut__log(ctx, 3, "assign: candidates %d a row, round %d: %s: the whole matrix", k,
                      round, why);
            st = whole_matrix(ctx, p, knobs, &c, res, dual, gap);
            break;
        }
        gcut__assign_dense_price_out(ctx, p, res->price, res->row_col, dual, over, gap);
        int64_t worst = 0, violators = 0;
        for (int32_t x = 0; x < n; x++)
            if (over[x] > 1) {
                violators++;
                worst = over[x] > worst ? over[x] : worst;
            }
        gcut__log(ctx, 3,
                  "assign: candidates %d a row, round %d: %lld arcs, %lld rows beaten "
                  "by an arc outside (the worst by %lld), gap %lld (scale %lld), %.1f ms",
                  k, round, (long long)c.prob.m, (long long)violators, (long long)worst,
                  (long long)*gap, (long long)p->scale, gcut__now_ms() - t0);
        if (*gap < p->scale)
            break;
        res->repairs++;
        if (round == REPAIR_ROUNDS || violators > n / REPAIR_SHARE) {
            /* the whole matrix from these prices, 1-optimal on it once the
             * beaten rows are free */
            gcut__log(ctx, 3, "assign: candidates: the whole matrix, warm");
            for (int32_t x = 0; x < n; x++)
                if (over[x] > 1)
                    res->row_col[x] = -1;
            st = gcut__assign_csa_dense_warm(ctx, p, knobs, worst, res);
            cand_free(&c);
            if (!st)
                gcut__assign_dense_price_out(ctx, p, res->price, res->row_col, dual, NULL, gap);
            break;
        }
        st = cand_repair(ctx, p, res->price, over, t, res->row_col, mark, &c);
        if (!st)
            st = gcut__assign_csa_warm(ctx, &c.prob, &sk, worst, budget, res);
    }
done:
    cand_free(&c);
    free(over);
    free(mark);
    return st;
}
