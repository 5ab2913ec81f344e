/* CPU cost scaling for the assignment problem: Goldberg and Kennedy's CSA
 * ("An efficient cost scaling algorithm for the assignment problem", Math.
 * Programming 71, 1995), as seed 001 section 5 describes it.
 *
 * Prices live on columns only; a row's price is implicit, -min over its
 * arcs of the part-reduced cost c'(x, y) = c(x, y) - p(y). A pseudoflow is
 * eps-optimal when every matched row holds a column within eps of its best
 * c'. Each phase (refine) divides eps by alpha, unmatches every row and
 * places the rows again by double pushes: the row takes its best column y
 * (evicting y's owner, who becomes active) and y's price drops so that c'
 * of y becomes the row's second best plus eps, the relabel of seed 001
 * Algorithm 5.2 folded into the push. Prices only ever fall.
 *
 * Heuristics:
 * - quick minima (CSA-Q): each row keeps its `cache` best arcs and a lower
 *   bound on c' of the others from its last scan; since prices only fall,
 *   c' only rises, so the cached two best stand while they are within the
 *   bound and a full scan is needed only then;
 * - global price updates (seed 001 Algorithm 5.3): a Dial-bucket shortest
 *   path from the free columns over the residual graph in units of eps,
 *   once the double pushes have looked at update_every times as many arcs
 *   as an update does (the live ones), lowering each column by eps times
 *   its distance (truncated at the last bucket scanned, which keeps
 *   eps-optimality);
 * - arc fixing: at the start of a phase, arcs whose reduced cost exceeds
 *   fix_factor * eps move to the row's tail and are no longer scanned.
 *   Goldberg-Kennedy's safe bound is 2n eps; a smaller factor is a guess,
 *   so after the last phase every arc is checked, and a wrong guess (a
 *   repair) brings all arcs back and scales on from the state's actual
 *   eps, which keeps the answer exact whatever the factor.
 *
 * Infeasibility: in the first phase every deficit column keeps its initial
 * price, so in a feasible problem a row's best c' rises by at most
 * (2n + 2)(eps0 + eps) (the path argument of Goldberg-Tarjan against a
 * perfect assignment); past that, or when a price update finds an active
 * row that reaches no free column, the problem has no perfect assignment
 * and the caller's exact search names a Hall violator. Later phases start
 * from a perfect assignment, so they cannot fail. */
#include <stdlib.h>
#include <string.h>

#include "cpu/assign_csa_cache.h"
#include "graph/assign_problem.h"

#define CACHE_MAX 32
#define INF64 INT64_MAX

typedef struct csa {
    int32_t n;
    const int64_t *row_ptr;
    int32_t *col;
    int64_t *cost;
    int64_t *live_end;   /* arcs [row_ptr[x], live_end[x]) are scanned */
    int64_t *price;      /* columns */
    int32_t *row_col;    /* matched column of each row, -1 */
    int64_t *row_cost;   /* the matched arc's cost */
    int32_t *col_row;    /* owner of each column, -1 */
    int32_t *stack;      /* active rows */
    int32_t top;
    /* quick minima */
    int cache;
    int32_t *cache_col;  /* n * cache */
    int64_t *cache_cost; /* n * cache */
    uint8_t *cache_len;  /* 0: scan needed */
    int64_t *cache_bound;
    /* first-phase infeasibility bound */
    int detect;
    int64_t *start_min; /* a row's best c' at the start of the first phase */
    int64_t drop_bound;
    int32_t stuck_row;
    int64_t range;      /* cost_max - cost_min */
    /* price update scratch: transpose of the live arcs and Dial buckets */
    int64_t *t_ptr;
    int32_t *t_row;
    int64_t *t_cost;
    int32_t *label, *bucket_next, *bucket_prev, *bucket_head, *row_min_tmp;
    int64_t *row_min;
    int32_t n_buckets;
    int64_t live_arcs;  /* sum of the live slices */
    int64_t work;       /* arcs looked at by double pushes since the last update */
    /* counts */
    int64_t pushes, updates, fixed, repairs;
    int64_t max_pushes; /* 0, or the pushes after which the solve gives up */
} csa;

/* Full scan of row x's live arcs: keep its `cache` best and the bound. */
static void scan_row(csa *s, int32_t x)
{
    const int k = s->cache;
    int32_t bc[CACHE_MAX + 1];
    int64_t bcost[CACHE_MAX + 1], bval[CACHE_MAX + 1];
    int len = 0;
    int64_t worst = INF64; /* value of the (k+1)-th best so far */
    const int64_t *price = s->price;
    s->work += s->live_end[x] - s->row_ptr[x];
    for (int64_t a = s->row_ptr[x], end = s->live_end[x]; a < end; a++) {
        const int32_t y = s->col[a];
        const int64_t v = s->cost[a] - price[y];
        if (len > k && v >= worst)
            continue;
        int i = len < k + 1 ? len++ : k;
        while (i > 0 && bval[i - 1] > v) {
            bval[i] = bval[i - 1];
            bc[i] = bc[i - 1];
            bcost[i] = bcost[i - 1];
            i--;
        }
        bval[i] = v;
        bc[i] = y;
        bcost[i] = s->cost[a];
        if (len == k + 1)
            worst = bval[k];
    }
    const int keep = len < k ? len : k;
    for (int i = 0; i < keep; i++) {
        s->cache_col[(int64_t)x * k + i] = bc[i];
        s->cache_cost[(int64_t)x * k + i] = bcost[i];
    }
    s->cache_len[x] = (uint8_t)keep;
    s->cache_bound[x] = len > k ? bval[k] : INF64;
}

/* The two best c' of row x: v1 (column *y1, arc cost *c1) and v2 (INF64
 * when the row has one arc). Returns 0 when the row has no live arc. */
static int best_two(csa *s, int32_t x, int32_t *y1, int64_t *c1, int64_t *v1, int64_t *v2)
{
    const int k = s->cache;
    for (int pass = 0; pass < 2; pass++) {
        if (s->cache_len[x] == 0 || pass == 1)
            scan_row(s, x);
        const int len = s->cache_len[x];
        if (len == 0)
            return 0;
        const int32_t *cc = s->cache_col + (int64_t)x * k;
        const int64_t *ck = s->cache_cost + (int64_t)x * k;
        int64_t b1, b2;
        const int i1 = gcut__csa_cached_two(cc, ck, len, s->price, &b1, &b2);
        if (gcut__csa_cache_holds(b2, s->cache_bound[x])) {
            *y1 = cc[i1];
            *c1 = ck[i1];
            *v1 = b1;
            *v2 = b2;
            return 1;
        }
    }
    return 0;
}

static void push_active(csa *s, int32_t x) { s->stack[s->top++] = x; }

/* Build the transpose of the live arcs (rows by column, with costs). */
static void build_transpose(csa *s)
{
    const int32_t n = s->n;
    memset(s->t_ptr, 0, (size_t)(n + 1) * sizeof *s->t_ptr);
    for (int32_t x = 0; x < n; x++)
        for (int64_t a = s->row_ptr[x]; a < s->live_end[x]; a++)
            s->t_ptr[s->col[a] + 1]++;
    for (int32_t y = 0; y < n; y++)
        s->t_ptr[y + 1] += s->t_ptr[y];
    int64_t *fill = (int64_t *)s->row_min; /* scratch of n entries */
    for (int32_t y = 0; y < n; y++)
        fill[y] = s->t_ptr[y];
    for (int32_t x = 0; x < n; x++)
        for (int64_t a = s->row_ptr[x]; a < s->live_end[x]; a++) {
            const int64_t at = fill[s->col[a]]++;
            s->t_row[at] = x;
            s->t_cost[at] = s->cost[a];
        }
}

static void bucket_insert(csa *s, int32_t v, int32_t b)
{
    s->bucket_prev[v] = -1;
    s->bucket_next[v] = s->bucket_head[b];
    if (s->bucket_head[b] >= 0)
        s->bucket_prev[s->bucket_head[b]] = v;
    s->bucket_head[b] = v;
}

static void bucket_remove(csa *s, int32_t v, int32_t b)
{
    if (s->bucket_prev[v] >= 0)
        s->bucket_next[s->bucket_prev[v]] = s->bucket_next[v];
    else
        s->bucket_head[b] = s->bucket_next[v];
    if (s->bucket_next[v] >= 0)
        s->bucket_prev[s->bucket_next[v]] = s->bucket_prev[v];
}

/* Global price update. Nodes: columns 0..n-1, active rows n..2n-1. A
 * column's label is its distance in eps units to a free column; a matched
 * row x' owning z passes a scanned column w's label l(w) on to z as
 * l(w) + floor((c'(x', w) - c'(x', z) + eps) / eps), which is what keeps
 * c'(x', z) within eps of c'(x', w) once both prices drop by eps * label.
 * Returns 0, or 1 when an active row reaches no free column (infeasible). */
static int price_update(csa *s, int64_t eps)
{
    const int32_t n = s->n, L = s->n_buckets;
    build_transpose(s);
    int32_t *label = s->label;
    for (int32_t v = 0; v < 2 * n; v++)
        label[v] = L; /* unreached */
    for (int32_t b = 0; b < L; b++)
        s->bucket_head[b] = -1;
    int32_t active = 0;
    for (int32_t i = 0; i < s->top; i++) {
        const int32_t x = s->stack[i];
        int32_t y1;
        int64_t c1, v1, v2;
        if (!best_two(s, x, &y1, &c1, &v1, &v2)) {
            s->stuck_row = x;
            return 1;
        }
        s->row_min[x] = v1;
        active++;
    }
    for (int32_t y = 0; y < n; y++)
        if (s->col_row[y] < 0) {
            label[y] = 0;
            bucket_insert(s, y, 0);
        }
    int32_t last = 0, remaining = active;
    for (int32_t b = 0; b < L; b++) {
        if (s->bucket_head[b] < 0) {
            if (remaining == 0)
                break;
            continue;
        }
        last = b;
        while (s->bucket_head[b] >= 0) {
            const int32_t v = s->bucket_head[b];
            bucket_remove(s, v, b);
            label[v] = -1 - b; /* scanned: -1 - label */
            if (v >= n) {
                remaining--;
                continue;
            }
            const int64_t pw = s->price[v];
            for (int64_t t = s->t_ptr[v]; t < s->t_ptr[v + 1]; t++) {
                const int32_t x = s->t_row[t];
                const int64_t cw = s->t_cost[t] - pw;
                const int32_t z = s->row_col[x];
                int32_t target;
                int64_t d;
                if (z >= 0) {
                    if (z == v)
                        continue;
                    target = z;
                    d = (cw - (s->row_cost[x] - s->price[z]) + eps) / eps;
                } else {
                    target = n + x;
                    d = (cw - s->row_min[x]) / eps;
                }
                if (d < 0)
                    d = 0;
                const int64_t cand = b + d;
                if (label[target] < 0 || cand >= label[target])
                    continue;
                if (label[target] < L)
                    bucket_remove(s, target, label[target]);
                label[target] = (int32_t)cand;
                bucket_insert(s, target, (int32_t)cand);
            }
        }
        if (remaining == 0)
            break;
    }
    if (remaining > 0 && s->detect) {
        /* An active row no free column can be reached from. */
        for (int32_t i = 0; i < s->top; i++)
            if (label[n + s->stack[i]] >= 0) {
                s->stuck_row = s->stack[i];
                return 1;
            }
    }
    /* Unscanned columns: last + 1 (truncation keeps eps-optimality). */
    for (int32_t y = 0; y < n; y++) {
        const int64_t l = label[y] < 0 ? -1 - (int64_t)label[y] : (int64_t)last + 1;
        s->price[y] -= eps * l;
    }
    s->updates++;
    return 0;
}

/* Fix the arcs of every row whose reduced cost exceeds `limit`, never the
 * arc a row holds: the last phase's assignment stays among the live arcs,
 * so every phase has a perfect assignment to find and ends. */
static void fix_arcs(csa *s, int64_t limit)
{
    for (int32_t x = 0; x < s->n; x++) {
        const int64_t begin = s->row_ptr[x];
        int64_t end = s->live_end[x];
        if (end - begin <= 2)
            continue;
        int64_t best = INF64;
        for (int64_t a = begin; a < end; a++) {
            const int64_t v = s->cost[a] - s->price[s->col[a]];
            if (v < best)
                best = v;
        }
        for (int64_t a = begin; a < end;) {
            const int64_t v = s->cost[a] - s->price[s->col[a]];
            if (v - best > limit && s->col[a] != s->row_col[x]) {
                end--;
                const int32_t tc = s->col[a];
                const int64_t tk = s->cost[a];
                s->col[a] = s->col[end];
                s->cost[a] = s->cost[end];
                s->col[end] = tc;
                s->cost[end] = tk;
                s->fixed++;
            } else {
                a++;
            }
        }
        if (end < s->live_end[x])
            s->cache_len[x] = 0; /* the cache may hold a fixed arc: scan again */
        s->live_arcs -= s->live_end[x] - end;
        s->live_end[x] = end;
    }
}

/* Double pushes until no row is active. Returns GCUT_OK, GCUT_E_INFEASIBLE
 * (s->stuck_row set), GCUT_E_OVERFLOW or GCUT_E_UNSUPPORTED (past
 * max_pushes). */
static gcut_status discharge(csa *s, int64_t eps, int64_t update_every, gcut_context *ctx)
{
    s->work = 0;
    while (s->top > 0) {
        /* An update costs about one look at every live arc: it runs once
         * the double pushes have looked at update_every times as many. */
        if (update_every > 0 && s->work >= update_every * (s->live_arcs + s->n)) {
            s->work = 0;
            if (price_update(s, eps))
                return GCUT_E_INFEASIBLE;
        }
        const int32_t x = s->stack[--s->top];
        int32_t y;
        int64_t c1, v1, v2;
        if (!best_two(s, x, &y, &c1, &v1, &v2)) {
            s->stuck_row = x;
            return GCUT_E_INFEASIBLE;
        }
        /* One live arc: the smallest drop (eps), as a relabel to the highest
         * price eps-optimality allows; a larger jump shifts every contested
         * price at once and can cycle (the per-phase bound assumes it). */
        if (v2 == INF64)
            v2 = v1;
        if (s->detect && v1 - s->start_min[x] > s->drop_bound) {
            s->stuck_row = x;
            return GCUT_E_INFEASIBLE;
        }
        const int64_t np = c1 - v2 - eps;
        if (np < -GCUT__ASSIGN_LIMIT)
            return gcut__fail(ctx, GCUT_E_OVERFLOW,
                              "assign: a price passed -2^60 (costs too large for this size)");
        s->price[y] = np;
        const int32_t old = s->col_row[y];
        s->col_row[y] = x;
        s->row_col[x] = y;
        s->row_cost[x] = c1;
        if (old >= 0) {
            s->row_col[old] = -1;
            push_active(s, old);
        }
        s->pushes++;
        s->work += s->cache;
        if (s->pushes == s->max_pushes)
            return GCUT_E_UNSUPPORTED;
    }
    return GCUT_OK;
}

/* After the last phase: rows beaten by more than eps by one of their arcs
 * (fixed ones included) get all their arcs back. Returns how far the worst
 * was from its best arc (0 when every row is within eps). */
static int64_t unfix_violators(csa *s, int64_t eps)
{
    int64_t worst = 0;
    for (int32_t x = 0; x < s->n; x++) {
        if (s->row_col[x] < 0)
            continue;
        int64_t best = INF64;
        for (int64_t a = s->row_ptr[x]; a < s->row_ptr[x + 1]; a++) {
            const int64_t v = s->cost[a] - s->price[s->col[a]];
            if (v < best)
                best = v;
        }
        const int64_t over = s->row_cost[x] - s->price[s->row_col[x]] - best;
        if (over <= eps)
            continue;
        if (over > worst)
            worst = over;
        s->live_arcs += s->row_ptr[x + 1] - s->live_end[x];
        s->live_end[x] = s->row_ptr[x + 1];
        s->cache_len[x] = 0;
    }
    return worst;
}

/* One phase at `eps`. `keep` (the rows hold an assignment from the last
 * phase): a row whose column is still within the new eps of its best c'
 * keeps it, as eps-optimality asks nothing more of it, and only the others
 * are unmatched and placed again (most rows, late in the scaling, keep
 * theirs). Else every row is unmatched. */
static gcut_status refine(csa *s, int64_t eps, int keep, int64_t update_every, gcut_context *ctx)
{
    const int k = s->cache;
    for (int32_t y = 0; y < s->n; y++)
        s->col_row[y] = -1;
    s->top = 0;
    for (int32_t x = s->n - 1; x >= 0; x--) {
        const int32_t y = s->row_col[x];
        if (keep && y >= 0) {
            scan_row(s, x); /* the cache's first entry is the best c' */
            if (s->cache_len[x] > 0) {
                const int64_t best = s->cache_cost[(int64_t)x * k] -
                                     s->price[s->cache_col[(int64_t)x * k]];
                if (s->row_cost[x] - s->price[y] <= best + eps) {
                    s->col_row[y] = x;
                    continue;
                }
            }
        }
        s->row_col[x] = -1;
        push_active(s, x);
    }
    return discharge(s, eps, update_every, ctx);
}

static void csa_free(csa *s)
{
    free(s->live_end);
    free(s->row_cost);
    free(s->col_row);
    free(s->stack);
    free(s->cache_col);
    free(s->cache_cost);
    free(s->cache_len);
    free(s->cache_bound);
    free(s->start_min);
    free(s->t_ptr);
    free(s->t_row);
    free(s->t_cost);
    free(s->label);
    free(s->bucket_next);
    free(s->bucket_prev);
    free(s->bucket_head);
    free(s->row_min);
}

/* gcut__assign_csa's work; warm_eps > 1 (with start): res holds a state
 * that is warm_eps-optimal, scaled down from there, giving up after
 * max_pushes (gcut__assign_csa_warm). */
static gcut_status csa_solve(gcut_context *ctx, gcut__assign_problem *p,
                             const gcut__assign_knobs *knobs, int start, int64_t warm_eps,
                             int64_t max_pushes, gcut__assign_result *res)
{
    const int32_t n = p->n;
    /* Defaults measured on random dense and sparse instances
     * (bench/results/assign_*): alpha 50 beat 10 and 20 (fewer phases, each
     * re-placing every row), and both heuristics lost time there (arc
     * fixing by repairs, price updates by their own cost; fixing at the
     * safe 2n eps gained 10% on dense n = 3000 but set off price wars of
     * 10^8 pushes on sparse n = 10^5), so they are off unless asked for. A
     * cache of 8 arcs a row beat 4 (dense n = 1000: 158 ms against 268;
     * n = 3000: 2.2 s against 2.9; sparse 10^6 arcs: 3.6 s against 3.8, on
     * a 2-core VM): fewer full scans of long rows. */
    const int alpha = knobs && knobs->alpha > 1 ? knobs->alpha : 50;
    const int update_factor = knobs && knobs->update_every ? knobs->update_every : -1;
    const int fix_factor = knobs && knobs->fix_factor ? knobs->fix_factor : -1;
    /* Two at least: the cached pair must be able to hold the best two. A
     * miss costs a scan of the whole row, so long rows keep more: 32 where
     * rows average 4096 arcs or more (dense n = 10000: 2.3 s against 12.3 s
     * with 8; n = 5000: 0.64 s against 0.84), 8 below, where the larger
     * cache's memory costs more than its scans save (sparse 10 arcs a row:
     * 0.36 s against 0.21; RubberWhale's window: 12.0 s against 10.2; rows
     * of 1500-3000 arcs: within 10 % either way; a 2-core VM). */
    const int64_t arcs = n > 0 ? p->row_ptr[n] : 0;
    const int cache = knobs && knobs->cache > 1 ? (knobs->cache > CACHE_MAX ? CACHE_MAX : knobs->cache)
                      : arcs >= (int64_t)4096 * n ? 32
                                                  : 8;
    csa s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.row_ptr = p->row_ptr;
    s.col = p->col;
    s.cost = p->cost;
    s.price = res->price;
    s.row_col = res->row_col;
    s.cache = cache;
    s.stuck_row = -1;
    s.range = p->cost_max - p->cost_min;
    s.max_pushes = max_pushes;
    if (n == 0)
        return GCUT_OK;
    const size_t nn = (size_t)n;
    s.live_end = malloc(nn * sizeof *s.live_end);
    s.row_cost = malloc(nn * sizeof *s.row_cost);
    s.col_row = malloc(nn * sizeof *s.col_row);
    s.stack = malloc(nn * sizeof *s.stack);
    s.cache_col = malloc(nn * (size_t)cache * sizeof *s.cache_col);
    s.cache_cost = malloc(nn * (size_t)cache * sizeof *s.cache_cost);
    s.cache_len = calloc(nn, 1);
    s.cache_bound = malloc(nn * sizeof *s.cache_bound);
    s.row_min = malloc(nn * sizeof *s.row_min);
    if (!s.live_end || !s.row_cost || !s.col_row || !s.stack || !s.cache_col || !s.cache_cost ||
        !s.cache_len || !s.cache_bound || !s.row_min) {
        csa_free(&s);
        return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
    }
    if (update_factor > 0) {
        s.n_buckets = n + 2 < (1 << 22) ? 2 * n + 4 : (1 << 23);
        s.t_ptr = malloc((nn + 1) * sizeof *s.t_ptr);
        s.t_row = malloc((size_t)(p->m ? p->m : 1) * sizeof *s.t_row);
        s.t_cost = malloc((size_t)(p->m ? p->m : 1) * sizeof *s.t_cost);
        s.label = malloc(2 * nn * sizeof *s.label);
        s.bucket_next = malloc(2 * nn * sizeof *s.bucket_next);
        s.bucket_prev = malloc(2 * nn * sizeof *s.bucket_prev);
        s.bucket_head = malloc((size_t)s.n_buckets * sizeof *s.bucket_head);
        if (!s.t_ptr || !s.t_row || !s.t_cost || !s.label || !s.bucket_next || !s.bucket_prev ||
            !s.bucket_head) {
            csa_free(&s);
            return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %lld arcs",
                              (long long)p->m);
        }
    }
    for (int32_t x = 0; x < n; x++)
        s.live_end[x] = p->row_ptr[x + 1];
    const int64_t update_every = update_factor > 0 ? update_factor : 0;
    s.live_arcs = p->m;

    gcut_status st = GCUT_OK;
    int64_t eps;
    if (start) {
        /* Finish another solver's eps = 1 state: only the repair below. */
        for (int32_t y = 0; y < n; y++)
            s.col_row[y] = -1;
        for (int32_t x = 0; x < n; x++) {
            if (res->row_col[x] < 0) {
                push_active(&s, x);
                continue;
            }
            s.col_row[res->row_col[x]] = x;
            /* the matched arc's cost: the cheapest arc to that column */
            int64_t c = INF64;
            for (int64_t a = p->row_ptr[x]; a < p->row_ptr[x + 1]; a++)
                if (p->col[a] == res->row_col[x] && p->cost[a] < c)
                    c = p->cost[a];
            s.row_cost[x] = c;
        }
        if (warm_eps > 1) {
            /* prices far from the new arcs' need move in large steps first */
            eps = warm_eps;
            do {
                eps = eps / alpha > 1 ? eps / alpha : 1;
                st = refine(&s, eps, 1, update_every, ctx);
                res->refines++;
            } while (!st && eps > 1);
        } else {
            eps = 1;
            st = discharge(&s, eps, update_every, ctx);
        }
    } else {
        for (int32_t y = 0; y < n; y++)
            s.price[y] = 0;
        const int64_t eps0 = s.range > 0 ? s.range : 1;
        eps = eps0;
        if (p->may_be_infeasible) {
            s.start_min = malloc(nn * sizeof *s.start_min);
            if (!s.start_min) {
                csa_free(&s);
                return gcut__fail(ctx, GCUT_E_NOMEM, "assign: out of memory for %d rows", n);
            }
            for (int32_t x = 0; x < n; x++) {
                int64_t b = INF64;
                for (int64_t a = p->row_ptr[x]; a < p->row_ptr[x + 1]; a++)
                    if (p->cost[a] < b)
                        b = p->cost[a];
                s.start_min[x] = b;
            }
            s.detect = 1;
        }
        int first = 1;
        do {
            const int64_t eps_prev = eps;
            eps = eps / alpha > 1 ? eps / alpha : 1;
            if (first) /* saturating: past int64 the bound cannot be reached anyway */
                s.drop_bound = eps0 + eps > INT64_MAX / (2 * (int64_t)n + 2)
                                   ? INF64
                                   : (2 * (int64_t)n + 2) * (eps0 + eps);
            if (!first && fix_factor > 0)
                /* fix_factor 16: 2n eps_prev, Goldberg-Kennedy's safe bound */
                fix_arcs(&s, fix_factor * ((int64_t)n + 1) / 8 * eps_prev);
            st = refine(&s, eps, !first, update_every, ctx);
            res->refines++;
            if (first)
                s.detect = 0;
            first = 0;
        } while (!st && eps > 1);
    }
    /* Exact whatever the fixing guessed: when a fixed arc beats a row by
     * more than eps, that row gets its arcs back, the state is only
     * `worst`-optimal, and scaling goes on from there without fixing (each
     * round gives some row all its arcs back, so this ends). */
    for (;;) {
        const int64_t worst = st ? 0 : unfix_violators(&s, 1);
        if (worst == 0)
            break;
        s.repairs++;
        eps = worst;
        do {
            eps = eps / alpha > 1 ? eps / alpha : 1;
            st = refine(&s, eps, 1, update_every, ctx);
            res->refines++;
        } while (!st && eps > 1);
    }
    res->pushes += s.pushes;
    res->price_updates += s.updates;
    res->arcs_fixed = s.fixed;
    res->repairs += s.repairs;
    res->stuck_row = s.stuck_row;
    csa_free(&s);
    return st;
}

gcut_status gcut__assign_csa(gcut_context *ctx, gcut__assign_problem *p,
                             const gcut__assign_knobs *knobs, int start,
                             gcut__assign_result *res)
{
    return csa_solve(ctx, p, knobs, start, 0, 0, res);
}

gcut_status gcut__assign_csa_warm(gcut_context *ctx, gcut__assign_problem *p,
                                  const gcut__assign_knobs *knobs, int64_t eps, int64_t max_pushes,
                                  gcut__assign_result *res)
{
    return csa_solve(ctx, p, knobs, 1, eps, max_pushes, res);
}
