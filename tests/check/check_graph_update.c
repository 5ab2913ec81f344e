/* Dynamic general graphs (see check_graph_update.h): random sequences of
 * capacity batches, each re-solve checked against the reference on the
 * graph as it now stands and against a fresh solve of a copy. */
#include "check_graph_update.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_graph.h"
#include "check_rng.h"
#include "graph/csr.h"
#include "graph/gen.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

static rng rng_for(uint64_t seed, int index)
{
    rng r = {seed ^ 0x3c6ef372fe94f82bULL};
    r.state = rng_next(&r) ^ ((uint64_t)(uint32_t)index * 0x9e3779b97f4a7c15ULL);
    rng_next(&r);
    return r;
}

/* Batch kinds, cycled so that every sequence sees each. */
enum { RAISE, LOWER, ZERO, MIXED, ADD, KINDS };
static const char *const kind_names[KINDS] = {"raise", "lower", "zero", "mixed", "add"};

/* A batch of k updates of kind `kind` on g (existing arcs, or new pairs for
 * ADD), capacities drawn up to `cmax`. */
static int64_t make_batch(rng *r, const gcut_graph *g, int kind, int32_t cmax, int64_t k,
                          int32_t *tail, int32_t *head, int32_t *cap)
{
    int32_t n = gcut_graph_nodes(g), m = gcut_graph_arcs(g);
    int64_t made = 0;
    for (int64_t i = 0; i < k; i++) {
        int32_t u, v, c, old = 0;
        if (kind == ADD) {
            u = (int32_t)rng_below(r, n);
            v = (int32_t)rng_below(r, n);
            if (u == v)
                continue;
            int32_t a = -1;
            if (gcut_graph_find_arc(g, u, v, &a) == GCUT_OK)
                gcut_graph_arc(g, a, NULL, NULL, &old);
        } else {
            gcut_graph_arc(g, (int32_t)rng_below(r, m), &u, &v, &old);
        }
        int k2 = kind == MIXED || kind == ADD ? (int)rng_below(r, 3) : kind;
        if (k2 == RAISE)
            c = old + (int32_t)rng_range(r, 0, cmax - old > 0 ? cmax - old : 0);
        else if (k2 == LOWER)
            c = (int32_t)rng_range(r, 0, old);
        else
            c = 0;
        tail[made] = u;
        head[made] = v;
        cap[made++] = c;
    }
    return made;
}

/* The CPU's two warm solvers; on the GPU the worklist solver, with prf
 * now and then between (the next GPU solve then starts from zero). */
static const char *const cpu_pair[2] = {"prf", "bk"};
static const char *const gpu_pair[2] = {"worklist", "prf"};

/* After a re-solve of g by `algo` (info its result): the flow against the
 * reference max-flow of the graph as it now stands, the cut side against a
 * fresh solve's (made in cpu_ctx), and now and then by rg (only when `last`
 * without rg: a proof drops prf's kept labels) the whole proof; the proof
 * makes the flow feasible, so skipping it sometimes lets deficits carry
 * into the next batch. The three side arrays
 * hold n bytes each. Returns 1 if all held. */
static int check_resolve(check_report *r, gcut_context *ctx, gcut_context *cpu_ctx, gcut_graph *g,
                         const gcut_solve_info *info, const char *algo, unsigned flags, rng *rg,
                         int last, const char *what, uint8_t *ref_side, uint8_t *side,
                         uint8_t *fresh_side)
{
    check_graph_arcs a;
    if (check_graph_arcs_of(g, &a) != 0) {
        check_fail(r, "%s: out of memory", what);
        return 0;
    }
    int64_t want = check_graph_reference(&a, ref_side);
    gcut_graph *fresh = NULL;
    int same = 0;
    gcut_status fst = gcut_graph_create_from_arcs(cpu_ctx, a.n, a.m, a.tail, a.head, a.cap,
                                                  a.source, a.sink, &fresh);
    if (!fst)
        fst = gcut_graph_solve(fresh, "prf", 0, NULL);
    if (!fst && gcut_graph_cut_side(fresh, fresh_side) == GCUT_OK &&
        gcut_graph_cut_side(g, side) == GCUT_OK)
        same = memcmp(side, fresh_side, (size_t)a.n) == 0;
    gcut_graph_destroy(fresh);
    int good = 1;
    if (fst) {
        check_fail(r, "%s: the fresh solve: %s", what, gcut_last_error(cpu_ctx));
        good = 0;
    } else if (info->flow != want ||
               (strcmp(info->algo, algo) != 0 &&
                !((flags & GCUT_GRAPH_SOLVE_BOUNDED) && !strcmp(info->algo, "prf")))) {
        check_fail(r, "%s: flow %lld, reference %lld", what, (long long)info->flow,
                   (long long)want);
        good = 0;
    } else if (!same) {
        check_fail(r, "%s: the cut side differs from a fresh solve's", what);
        good = 0;
    } else if ((rg && rng_below(rg, 2)) || last) {
        int64_t cut = -1;
        if (gcut_graph_verify(g, &cut) != GCUT_OK) {
            check_fail(r, "%s: verify: %s", what, gcut_last_error(ctx));
            good = 0;
        } else {
            good = check_graph_solution(r, g, &a, want, ref_side, what);
        }
    }
    check_graph_arcs_free(&a);
    return good;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether a batch of lowered capacities lowers every arc it names: an arc
 * named twice may be raised by its second entry above its first. -1 when
 * out of memory. */
static int lowers_only(int kind, const int32_t *tail, const int32_t *head, int64_t k)
{
    if (kind != LOWER && kind != ZERO)
        return 0;
    uint64_t *keys = malloc((size_t)(k ? k : 1) * sizeof *keys);
    if (!keys)
        return -1;
    for (int64_t i = 0; i < k; i++)
        keys[i] = (uint64_t)(uint32_t)tail[i] << 32 | (uint32_t)head[i];
    qsort(keys, (size_t)k, sizeof *keys, compare_keys);
    int once = 1;
    for (int64_t i = 1; i < k && once; i++)
        once = keys[i] != keys[i - 1];
    free(keys);
    return once;
}

/* After an update of a warm graph: the pseudo-flow its repairs (detours,
 * pulls, walks) left is one: every arc's flow within its capacity and
 * every node's excess its inflow less its outflow; and where the batch
 * only lowered capacities (lowered_only: such a change opens no residual
 * arc, and the repairs move flow inside one side of the last cut), no
 * residual arc from the last cut's source side to its sink side. Returns
 * 1 if all held. */
static int check_repaired(check_report *r, const gcut_graph *g, int lowered_only,
                          const char *what)
{
    if (lowered_only < 0) {
        check_fail(r, "%s: out of memory", what);
        return 0;
    }
    if (!g->warm)
        return 1;
    int64_t *balance = calloc((size_t)g->n, sizeof *balance);
    if (!balance) {
        check_fail(r, "%s: out of memory", what);
        return 0;
    }
    const uint8_t *side = lowered_only ? g->side : NULL;
    int ok = 1;
    for (int32_t u = 0; u < g->n && ok; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1] && ok; a++) {
            int32_t v = g->out_head[a], p = g->res_first[u] + (a - g->out_start[u]);
            int32_t fwd = g->res[p], back = g->res[g->res_rev[p]];
            if (fwd < 0 || back < 0 || (int64_t)fwd + back != g->out_cap[a]) {
                check_fail(r, "%s: after the update arc %d -> %d has residuals %d and %d for "
                              "capacity %d",
                           what, u, v, fwd, back, g->out_cap[a]);
                ok = 0;
            } else if (side && ((side[u] && !side[v] && fwd > 0) ||
                                (side[v] && !side[u] && back > 0))) {
                check_fail(r, "%s: after the update a residual arc joins the last cut's source "
                              "side to its sink side (%d -> %d)",
                           what, u, v);
                ok = 0;
            }
            balance[v] += back;
            balance[u] -= back;
        }
    for (int32_t v = 0; v < g->n && ok; v++)
        if (v != g->source && balance[v] != g->excess[v]) {
            check_fail(r, "%s: after the update node %d keeps an excess of %lld, its flow says "
                          "%lld",
                       what, v, (long long)g->excess[v], (long long)balance[v]);
            ok = 0;
        }
    free(balance);
    return ok;
}

/* One sequence on graph g (in ctx): `batches` batches, each re-solve
 * checked, the fresh solve it is compared with made in cpu_ctx. The solves
 * take pair[base] (the other one now and then). Returns 1 if all held. */
static int run_sequence(check_report *r, gcut_context *ctx, gcut_context *cpu_ctx, gcut_graph *g,
                        rng *rg, int batches, int32_t cmax, const char *name,
                        const char *const pair[2], int base)
{
    int32_t n = gcut_graph_nodes(g);
    int64_t room = 4 * (int64_t)gcut_graph_arcs(g) + 2 * (int64_t)n + 16;
    int32_t *tail = malloc((size_t)room * sizeof *tail);
    int32_t *head = malloc((size_t)room * sizeof *head);
    int32_t *cap = malloc((size_t)room * sizeof *cap);
    uint8_t *ref_side = malloc((size_t)n), *side = malloc((size_t)n), *fresh_side = malloc((size_t)n);
    int ok = 0;
    char what[256];
    if (!tail || !head || !cap || !ref_side || !side || !fresh_side) {
        check_fail(r, "%s: out of memory", name);
        goto done;
    }
    gcut_solve_info info;
    if (gcut_graph_solve(g, pair[base], 0, &info) != GCUT_OK) {
        check_fail(r, "%s: first solve: %s", name, gcut_last_error(ctx));
        goto done;
    }
    for (int b = 0; b < batches; b++) {
        int kind = (int)rng_below(rg, KINDS);
        int32_t m = gcut_graph_arcs(g);
        /* From one arc to a few times the graph. */
        int64_t k = rng_range(rg, 1, rng_below(rg, 3) ? 3 : (m > 0 ? 2 * (int64_t)m : 4));
        if (k > room)
            k = room;
        if (m == 0)
            kind = ADD;
        k = make_batch(rg, g, kind, cmax, k, tail, head, cap);
        snprintf(what, sizeof what, "%s, batch %d (%s, %lld updates, %s)", name, b,
                 kind_names[kind], (long long)k, pair[base]);
        gcut_status st =
            gcut_graph_update(g, k, tail, head, cap, kind == ADD ? GCUT_GRAPH_UPDATE_ADD : 0);
        if (st != GCUT_OK) {
            check_fail(r, "%s: update: %s", what, gcut_last_error(ctx));
            goto done;
        }
        if (!check_repaired(r, g, lowers_only(kind, tail, head, k), what))
            goto done;
        /* Sequences alternate between the two warm solvers, and now and
         * then the other one runs in between: the next solve then continues
         * from that solver's state. */
        const char *algo = pair[(base + (rng_below(rg, 6) == 0)) % 2];
        unsigned flags = rng_below(rg, 2) ? GCUT_GRAPH_SOLVE_FLOW : 0;
        if (rng_below(rg, 2))
            flags |= GCUT_GRAPH_SOLVE_BOUNDED;
        /* After a worklist solve (and no arcs added) the GPU continues from
         * its device state, which leaves the flow there (g->gpu_flow) unless
         * a feasible flow is asked for. */
        int from_device = g->gpu_warm && !strcmp(algo, "worklist");
        if ((st = gcut_graph_solve(g, algo, flags, &info)) != GCUT_OK) {
            check_fail(r, "%s: re-solve (%s): %s", what, algo, gcut_last_error(ctx));
            goto done;
        }
        if (from_device && !(flags & GCUT_GRAPH_SOLVE_FLOW) && !g->gpu_flow) {
            check_fail(r, "%s: the GPU re-solve did not start from the device state", what);
            goto done;
        }
        if (!check_resolve(r, ctx, cpu_ctx, g, &info, algo, flags, rg, b == batches - 1, what,
                           ref_side, side, fresh_side))
            goto done;
    }
    ok = 1;
done:
    free(tail);
    free(head);
    free(cap);
    free(ref_side);
    free(side);
    free(fresh_side);
    return ok;
}

/* Batch shapes a random sequence rarely draws, in this order: an empty
 * batch; a few lowered, a few raised arcs (the repairs on both sides of the
 * last cut: saturated crossings, source-side pulls, sink-side walks); every
 * arc out of the source and some others raised to INT32_MAX; every arc
 * zeroed; every arc back to its capacity before the sequence; a few mixed
 * changes; a few lowered arcs twice, with the last solve from zero's work
 * record set so that the re-solve gives up for a solve from zero after its
 * first global relabel, then within its first discharge. Each
 * batch re-solved by prf and checked like a random sequence's. Returns 1
 * if all held. */
enum {
    X_EMPTY,
    X_LOWER,
    X_RAISE,
    X_HUGE,
    X_ZERO_ALL,
    X_RESTORE,
    X_MIXED,
    X_GIVE_UP,
    X_FROM_ZERO,
    X_SHAPES
};

static int extreme_sequence(check_report *r, gcut_context *ctx, gcut_graph *g, rng *rg,
                            const char *name)
{
    const int32_t n = gcut_graph_nodes(g), m = gcut_graph_arcs(g), src = gcut_graph_source(g);
    size_t room = (size_t)(m > 0 ? m : 1);
    int32_t *tail = malloc(room * sizeof *tail), *head = malloc(room * sizeof *head);
    int32_t *cap = malloc(room * sizeof *cap), *orig = malloc(room * sizeof *orig);
    uint8_t *ref_side = malloc((size_t)n), *side = malloc((size_t)n),
            *fresh_side = malloc((size_t)n);
    int ok = 0;
    char what[256];
    gcut_solve_info info;
    if (!tail || !head || !cap || !orig || !ref_side || !side || !fresh_side) {
        check_fail(r, "%s: out of memory", name);
        goto done;
    }
    for (int32_t a = 0; a < m; a++)
        gcut_graph_arc(g, a, NULL, NULL, &orig[a]);
    if (gcut_graph_solve(g, "prf", 0, &info) != GCUT_OK) {
        check_fail(r, "%s: first solve: %s", name, gcut_last_error(ctx));
        goto done;
    }
    for (int x = 0; x < X_SHAPES; x++) {
        int64_t k = 0, few = 1 + m / 50;
        for (int32_t a = 0; a < m && x != X_EMPTY; a++) {
            int32_t u, v, old;
            gcut_graph_arc(g, a, &u, &v, &old);
            int pick = x == X_ZERO_ALL || x == X_RESTORE || (x == X_HUGE && u == src) ||
                       rng_below(rg, m) < few;
            if (!pick)
                continue;
            int32_t c;
            if (x == X_ZERO_ALL)
                c = 0;
            else if (x == X_RESTORE)
                c = orig[a];
            else if (x == X_HUGE)
                c = INT32_MAX;
            else if (x == X_RAISE || (x == X_MIXED && rng_below(rg, 2)))
                c = old + (int32_t)rng_range(rg, 0, old < 1000 ? 1000 : old);
            else
                c = (int32_t)rng_range(rg, 0, old);
            tail[k] = u;
            head[k] = v;
            cap[k++] = c;
        }
        snprintf(what, sizeof what, "%s, extreme batch %d (%lld updates)", name, x, (long long)k);
        if (gcut_graph_update(g, k, tail, head, cap, 0) != GCUT_OK) {
            check_fail(r, "%s: update: %s", what, gcut_last_error(ctx));
            goto done;
        }
        if (x == X_GIVE_UP) {
            g->prf_fresh_work = 2 * ((int64_t)n + 2 * (int64_t)m) + 4;
            g->prf_repair_work = 0;
        } else if (x == X_FROM_ZERO) {
            g->prf_fresh_work = 1;
        }
        unsigned flags = rng_below(rg, 2) ? GCUT_GRAPH_SOLVE_FLOW : 0;
        if (gcut_graph_solve(g, "prf", flags, &info) != GCUT_OK) {
            check_fail(r, "%s: re-solve: %s", what, gcut_last_error(ctx));
            goto done;
        }
        if (!check_resolve(r, ctx, ctx, g, &info, "prf", flags, rg, x == X_SHAPES - 1, what,
                           ref_side, side, fresh_side))
            goto done;
    }
    ok = 1;
done:
    free(tail);
    free(head);
    free(cap);
    free(orig);
    free(ref_side);
    free(side);
    free(fresh_side);
    return ok;
}

/* The generated families the checks draw their graphs from, and the
 * bounds each one's sides are drawn between. */
enum { GENRMF, RLG, ACYCLIC, VISION };
typedef struct family_sizes {
    int32_t genrmf_a[2], genrmf_b[2], rlg_rows[2], rlg_cols[2], acyclic_n[2], vision[2];
    int32_t cap; /* genrmf's largest frame-to-frame capacity, RLG's range */
} family_sizes;

/* An instance of `family` in ctx from seed gseed, its sides drawn from rg
 * within z; `prefix` starts its name; *cmax is the largest capacity its
 * batches draw. */
static gcut_status family_instance(gcut_context *ctx, rng *rg, int family, const family_sizes *z,
                                   uint64_t gseed, const char *prefix, gcut_graph **g,
                                   int32_t *cmax, char *name, size_t room)
{
    unsigned long long gs = (unsigned long long)gseed;
    switch (family) {
    case GENRMF: {
        int32_t a = (int32_t)rng_range(rg, z->genrmf_a[0], z->genrmf_a[1]),
                b = (int32_t)rng_range(rg, z->genrmf_b[0], z->genrmf_b[1]);
        snprintf(name, room, "%sgenrmf a=%d b=%d seed=%llu", prefix, a, b, gs);
        *cmax = z->cap * a * a;
        return gcut__gen_genrmf(ctx, a, b, 1, z->cap, gseed, g);
    }
    case RLG: {
        int32_t rows = (int32_t)rng_range(rg, z->rlg_rows[0], z->rlg_rows[1]),
                cols = (int32_t)rng_range(rg, z->rlg_cols[0], z->rlg_cols[1]);
        snprintf(name, room, "%srlg rows=%d cols=%d seed=%llu", prefix, rows, cols, gs);
        *cmax = 3 * z->cap;
        return gcut__gen_rlg(ctx, rows, cols, z->cap, gseed, g);
    }
    case ACYCLIC: {
        int32_t n = (int32_t)rng_range(rg, z->acyclic_n[0], z->acyclic_n[1]);
        snprintf(name, room, "%sacyclic-dense n=%d seed=%llu", prefix, n, gs);
        *cmax = 10000;
        return gcut__gen_acyclic_dense(ctx, n, gseed, g);
    }
    default: {
        int32_t w = (int32_t)rng_range(rg, z->vision[0], z->vision[1]),
                h = (int32_t)rng_range(rg, z->vision[0], z->vision[1]);
        int conn = rng_range(rg, 0, 1) ? 8 : 4;
        snprintf(name, room, "%svision %dx%d conn=%d seed=%llu", prefix, w, h, conn, gs);
        *cmax = 1000;
        return gcut__gen_vision(ctx, w, h, conn, 0.5, gseed, g);
    }
    }
}

/* Random arcs of regime `regime` (instance `arcs_index` from arcs_seed,
 * named after `number`) in ctx; *cmax their largest capacity. */
static gcut_status random_instance(gcut_context *ctx, uint64_t arcs_seed, int arcs_index,
                                   int number, int regime, uint64_t seed, const char *prefix,
                                   gcut_graph **g, int32_t *cmax, char *name, size_t room)
{
    check_graph_arcs a;
    snprintf(name, room, "%sgraph %d (%s, seed %llu)", prefix, number,
             check_graph_regime_name(regime), (unsigned long long)seed);
    if (check_graph_random_arcs(arcs_seed, arcs_index, &a) != 0)
        return GCUT_E_NOMEM;
    *cmax = 1;
    for (int64_t k = 0; k < a.m; k++)
        if (a.cap[k] > *cmax)
            *cmax = a.cap[k];
    gcut_status st =
        gcut_graph_create_from_arcs(ctx, a.n, a.m, a.tail, a.head, a.cap, a.source, a.sink, g);
    check_graph_arcs_free(&a);
    return st;
}

void check_graph_update_sequences(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK) {
        check_fail(r, "cannot create a context");
        return;
    }
    for (int i = 0; i < count; i++) {
        char name[128];
        int32_t cmax;
        gcut_graph *g = NULL;
        rng rg = rng_for(seed, i);
        gcut_status st = random_instance(ctx, seed ^ 0xd1ce, i, i, i % CHECK_GRAPH_REGIMES, seed,
                                         "", &g, &cmax, name, sizeof name);
        if (st != GCUT_OK)
            check_fail(r, "%s: create: %s", name,
                       st == GCUT_E_NOMEM ? "out of memory" : gcut_last_error(ctx));
        else {
            int batches = (int)rng_range(&rg, 1, 8);
            int base = (int)rng_below(&rg, 2);
            if (run_sequence(r, ctx, ctx, g, &rg, batches, cmax, name, cpu_pair, base))
                r->passed++;
        }
        gcut_graph_destroy(g);
    }
    gcut_context_destroy(ctx);
}

void check_graph_update_families(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK) {
        check_fail(r, "cannot create a context");
        return;
    }
    for (int i = 0; i < count; i++) {
        rng rg = rng_for(seed ^ 0xfa111e5ULL, i);
        uint64_t gseed = rng_next(&rg);
        gcut_graph *g = NULL;
        gcut_status st;
        int32_t cmax;
        char name[128];
        /* Every fifth instance of a family is larger (its repairs search
         * further); only the extreme batches run on it. */
        const int big = i % 20 >= 16;
        static const family_sizes small = {{2, 6}, {2, 6}, {1, 8}, {1, 8}, {2, 24}, {1, 9}, 100};
        static const family_sizes large = {{2, 10}, {2, 24}, {1, 32}, {1, 32}, {2, 96}, {1, 32},
                                           100};
        st = family_instance(ctx, &rg, i % 4, big ? &large : &small, gseed, "", &g, &cmax, name,
                             sizeof name);
        if (st != GCUT_OK)
            check_fail(r, "%s: %s", name, gcut_last_error(ctx));
        else {
            int batches = (int)rng_range(&rg, 2, 6);
            int base = (int)rng_below(&rg, 2);
            if ((big || run_sequence(r, ctx, ctx, g, &rg, batches, cmax, name, cpu_pair, base)) &&
                extreme_sequence(r, ctx, g, &rg, name))
                r->passed++;
        }
        gcut_graph_destroy(g);
    }
    gcut_context_destroy(ctx);
}

/* One long prf sequence on g: `batches` batches of raised, lowered,
 * zeroed and mixed arcs (1 arc to 2 % of them), each re-solved with no
 * flow asked for and no proof in between, so that every re-solve can
 * continue from the labels the last one kept (prf.c); each checked against
 * the reference flow and a fresh solve's cut side, the last one through
 * the whole proof. *kept counts the re-solves that started from kept
 * labels. Returns 1 if all held. */
static int kept_labels_sequence(check_report *r, gcut_context *ctx, gcut_graph *g, rng *rg,
                                int batches, int32_t cmax, const char *name, int64_t *kept)
{
    int32_t n = gcut_graph_nodes(g), m = gcut_graph_arcs(g);
    int64_t room = m / 50 + 1;
    int32_t *tail = malloc((size_t)room * sizeof *tail);
    int32_t *head = malloc((size_t)room * sizeof *head);
    int32_t *cap = malloc((size_t)room * sizeof *cap);
    uint8_t *ref_side = malloc((size_t)n), *side = malloc((size_t)n),
            *fresh_side = malloc((size_t)n);
    int ok = 0;
    char what[256];
    gcut_solve_info info;
    if (!tail || !head || !cap || !ref_side || !side || !fresh_side) {
        check_fail(r, "%s: out of memory", name);
        goto done;
    }
    if (gcut_graph_solve(g, "prf", 0, &info) != GCUT_OK) {
        check_fail(r, "%s: first solve: %s", name, gcut_last_error(ctx));
        goto done;
    }
    for (int b = 0; b < batches; b++) {
        int kind = (int)rng_below(rg, MIXED + 1);
        int64_t k = rng_below(rg, 2) ? rng_range(rg, 1, 3) : rng_range(rg, 1, room);
        if (k > room)
            k = room;
        k = make_batch(rg, g, kind, cmax, k, tail, head, cap);
        snprintf(what, sizeof what, "%s, kept-label batch %d (%s, %lld updates)", name, b,
                 kind_names[kind], (long long)k);
        if (gcut_graph_update(g, k, tail, head, cap, 0) != GCUT_OK) {
            check_fail(r, "%s: update: %s", what, gcut_last_error(ctx));
            goto done;
        }
        if (!check_repaired(r, g, lowers_only(kind, tail, head, k), what))
            goto done;
        *kept += g->prf_labels;
        if (gcut_graph_solve(g, "prf", 0, &info) != GCUT_OK) {
            check_fail(r, "%s: re-solve: %s", what, gcut_last_error(ctx));
            goto done;
        }
        if (!check_resolve(r, ctx, ctx, g, &info, "prf", 0, NULL, b == batches - 1, what, ref_side,
                           side, fresh_side))
            goto done;
    }
    ok = 1;
done:
    free(tail);
    free(head);
    free(cap);
    free(ref_side);
    free(side);
    free(fresh_side);
    return ok;
}

void check_graph_update_kept_labels(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK) {
        check_fail(r, "cannot create a context");
        return;
    }
    int64_t kept = 0, resolves = 0;
    for (int i = 0; i < count; i++) {
        rng rg = rng_for(seed ^ 0x1abe15ULL, i);
        uint64_t gseed = rng_next(&rg);
        gcut_graph *g = NULL;
        gcut_status st;
        int32_t cmax;
        char name[128];
        static const family_sizes sizes = {{2, 8},  {2, 16}, {2, 24}, {2, 24},
                                           {3, 60}, {2, 24}, 100};
        if (i % 5 < 4)
            st = family_instance(ctx, &rg, i % 5, &sizes, gseed, "", &g, &cmax, name, sizeof name);
        else
            st = random_instance(ctx, seed ^ 0x1abe1, i / 5, i, (i / 5) % CHECK_GRAPH_REGIMES, seed,
                                 "", &g, &cmax, name, sizeof name);
        if (st != GCUT_OK) {
            check_fail(r, "%s: %s", name,
                       st == GCUT_E_NOMEM ? "out of memory" : gcut_last_error(ctx));
        } else if (gcut_graph_arcs(g) > 0) {
            int batches = (int)rng_range(&rg, 10, 40);
            resolves += batches;
            if (kept_labels_sequence(r, ctx, g, &rg, batches, cmax, name, &kept))
                r->passed++;
        } else {
            r->passed++;
        }
        gcut_graph_destroy(g);
    }
    /* Most re-solves should have started from kept labels (the first after
     * a solve from zero, and one after each that gave up, cannot). */
    if (resolves >= 40 && kept * 2 < resolves)
        check_fail(r, "only %lld of %lld re-solves started from kept labels", (long long)kept,
                   (long long)resolves);
    gcut_context_destroy(ctx);
}

/* Instance `index` of every family in turn (random arcs of each regime,
 * genrmf, RLG, acyclic-dense, vision) in `gpu`, its sides up to `scale`
 * times those of the plain GPU sequences; *cmax the largest capacity its
 * batches draw. */
static gcut_status gpu_instance(gcut_context *gpu, rng *rg, uint64_t seed, int index, int scale,
                                gcut_graph **g, int32_t *cmax, char *name, size_t room)
{
    uint64_t gseed = rng_next(rg);
    if (index % 5 == 0)
        return random_instance(gpu, seed ^ 0x6b1u, index / 5, index,
                               (index / 5) % CHECK_GRAPH_REGIMES, seed, "gpu: ", g, cmax, name,
                               room);
    const family_sizes sizes = {{2, 9 + scale},     {2, 12 * scale},  {1, 48 * scale},
                                {1, 48 * scale},    {2, 160 * scale}, {1, 40 * scale},
                                1000};
    static const int family[5] = {0, GENRMF, RLG, ACYCLIC, VISION};
    return family_instance(gpu, rg, family[index % 5], &sizes, gseed, "gpu: ", g, cmax, name,
                           room);
}

/* One GPU sequence on instance `index`, re-solved by the worklist solver
 * from its device state. The graph lives in a context of device "auto"
 * (the GPU one would refuse the prf solves between). */
static void gpu_sequence(check_report *r, gcut_context *cpu, gcut_context *gpu_only,
                         const char *algo, uint64_t seed, int index)
{
    (void)algo;
    (void)gpu_only;
    gcut_context *gpu = check_context(GCUT_DEVICE_AUTO);
    if (!gpu) {
        check_fail(r, "gpu: instance %d: no context", index);
        return;
    }
    rng rg = rng_for(seed ^ 0x6b0u, index);
    gcut_graph *g = NULL;
    int32_t cmax = 1;
    char name[160];
    gcut_status st = gpu_instance(gpu, &rg, seed, index, 1, &g, &cmax, name, sizeof name);
    if (st != GCUT_OK) {
        check_fail(r, "%s: %s", name, gcut_last_error(gpu));
    } else {
        int batches = (int)rng_range(&rg, 2, 8);
        if (run_sequence(r, gpu, cpu, g, &rg, batches, cmax, name, gpu_pair, 0))
            r->passed++;
    }
    gcut_graph_destroy(g);
    gcut_context_destroy(gpu);
}

/* Small batches (0.1 to 3 % of the arcs: raised, lowered, mixed) on larger
 * instances, each re-solved from the device state with the warm policy of
 * the instance (GCUT__WARM_PROVE, _ADAPT and _GLOBAL in turn),
 * now and then after a solve from zero with a feasible flow (phase 2 on the
 * device: the heights it leaves are not phase 1's, so the next warm solve
 * must not start from them). Each re-solve: the flow equals the reference,
 * the cut side a fresh prf solve's, the run started from the device state;
 * the last one's whole proof verified. */
static void gpu_small_batches(check_report *r, gcut_context *cpu, gcut_context *gpu_only,
                              const char *algo, uint64_t seed, int index)
{
    (void)algo;
    (void)gpu_only;
    gcut_context *gpu = check_context(GCUT_DEVICE_AUTO);
    if (!gpu) {
        check_fail(r, "gpu: instance %d: no context", index);
        return;
    }
    rng rg = rng_for(seed ^ 0x10ca1u, index);
    gcut_graph *g = NULL;
    int32_t cmax = 1, *tail = NULL, *head = NULL, *cap = NULL;
    uint8_t *ref_side = NULL, *side = NULL, *fresh_side = NULL;
    char name[160], what[256];
    static const char *const policies[3] = {"prove", "adapt", "global"};
    const int policy = index % 3;
    gcut_status st = gpu_instance(gpu, &rg, seed, index, 3, &g, &cmax, name, sizeof name);
    if (st != GCUT_OK) {
        check_fail(r, "%s: %s", name, gcut_last_error(gpu));
        goto done;
    }
#ifdef GCUT_HAVE_CUDA
    /* GCUT__WARM_PROVE, _ADAPT, _GLOBAL are 0, 1, 2 */
    if ((st = gcut__gpu_graph_set_warm_policy(gpu, policy)) != GCUT_OK) {
        check_fail(r, "%s: %s", name, gcut_last_error(gpu));
        goto done;
    }
#endif
    const int32_t n = gcut_graph_nodes(g), m = gcut_graph_arcs(g);
    const int64_t room = m / 30 + 2;
    tail = malloc((size_t)room * sizeof *tail);
    head = malloc((size_t)room * sizeof *head);
    cap = malloc((size_t)room * sizeof *cap);
    ref_side = malloc((size_t)n);
    side = malloc((size_t)n);
    fresh_side = malloc((size_t)n);
    gcut_solve_info info;
    if (!tail || !head || !cap || !ref_side || !side || !fresh_side) {
        check_fail(r, "%s: out of memory", name);
        goto done;
    }
    if (gcut_graph_solve(g, "worklist", 0, &info) != GCUT_OK) {
        check_fail(r, "%s: first solve: %s", name, gcut_last_error(gpu));
        goto done;
    }
    const int batches = (int)rng_range(&rg, 3, 10);
    for (int b = 0; b < batches; b++) {
        static const int kinds[3] = {RAISE, LOWER, MIXED};
        const int kind = kinds[b % 3];
        /* 0.1, 1 or 3 % of the arcs */
        static const int per_mille[3] = {1, 10, 30};
        int64_t k = 1 + (int64_t)m * per_mille[rng_below(&rg, 3)] / 1000;
        k = k > room ? room : k;
        if (m == 0)
            break;
        k = make_batch(&rg, g, kind, cmax, k, tail, head, cap);
        const int restart = rng_below(&rg, 5) == 0;
        snprintf(what, sizeof what, "%s, batch %d (%s, %lld updates, warm %s%s)", name, b,
                 kind_names[kind], (long long)k, policies[policy],
                 restart ? ", after a solve from zero with a flow" : "");
        if (restart && gcut_graph_solve(g, "worklist", GCUT_GRAPH_SOLVE_FLOW | GCUT_GRAPH_SOLVE_SCRATCH,
                                        &info) != GCUT_OK) {
            check_fail(r, "%s: solve from zero: %s", what, gcut_last_error(gpu));
            goto done;
        }
        if ((st = gcut_graph_update(g, k, tail, head, cap, 0)) != GCUT_OK) {
            check_fail(r, "%s: update: %s", what, gcut_last_error(gpu));
            goto done;
        }
        const int from_device = g->gpu_warm;
        if ((st = gcut_graph_solve(g, "worklist", 0, &info)) != GCUT_OK) {
            check_fail(r, "%s: re-solve: %s", what, gcut_last_error(gpu));
            goto done;
        }
        if (!from_device || !g->gpu_flow) {
            check_fail(r, "%s: the re-solve did not start from the device state", what);
            goto done;
        }
        if (!check_resolve(r, gpu, cpu, g, &info, "worklist", 0, NULL, b == batches - 1, what,
                           ref_side, side, fresh_side))
            goto done;
    }
    r->passed++;
done:
    free(tail);
    free(head);
    free(cap);
    free(ref_side);
    free(side);
    free(fresh_side);
    gcut_graph_destroy(g);
    gcut_context_destroy(gpu);
}

void check_graph_update_gpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, gpu_sequence, "worklist", count, seed);
}

void check_graph_update_gpu_small(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, gpu_small_batches, "worklist", count, seed);
}

/* Refused updates: each names the problem with GCUT_E_RANGE and leaves the
 * graph as it was (the next solve gives the same flow). */
void check_graph_update_refused(check_report *r, int count, uint64_t seed)
{
    (void)seed;
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK) {
        check_fail(r, "cannot create a context");
        return;
    }
    /* s=0 -> 1 -> 2=t and 0 -> 2. */
    const int32_t tail[] = {0, 1, 0}, head[] = {1, 2, 2}, cap[] = {5, 3, 2};
    static const struct {
        int32_t u, v, c;
        const char *says;
    } bad[] = {{1, 0, 4, "no arc 1 -> 0"},   {0, 3, 1, "outside 0..2"}, {-1, 1, 1, "outside 0..2"},
               {1, 1, 1, "self-loop"},       {0, 1, -2, "capacity -2"}};
    const int n_bad = (int)(sizeof bad / sizeof bad[0]);
    for (int i = 0; i < count; i++) {
        gcut_graph *g = NULL;
        gcut_solve_info info;
        int k = i % n_bad;
        if (gcut_graph_create_from_arcs(ctx, 3, 3, tail, head, cap, 0, 2, &g) != GCUT_OK ||
            gcut_graph_solve(g, "prf", 0, &info) != GCUT_OK || info.flow != 5) {
            check_fail(r, "the 3-node graph: %s", gcut_last_error(ctx));
            gcut_graph_destroy(g);
            continue;
        }
        /* A good update first in the batch: refused with the rest. */
        int32_t bt[2] = {0, bad[k].u}, bh[2] = {1, bad[k].v}, bc[2] = {0, bad[k].c};
        gcut_status st = gcut_graph_update(g, 2, bt, bh, bc, 0);
        if (st != GCUT_E_RANGE || !strstr(gcut_last_error(ctx), bad[k].says) ||
            !strstr(gcut_last_error(ctx), "update 1")) {
            check_fail(r, "update %d -> %d cap %d: %s, \"%s\" (want GCUT_E_RANGE naming '%s')",
                       bad[k].u, bad[k].v, bad[k].c, gcut_status_str(st), gcut_last_error(ctx),
                       bad[k].says);
        } else if (gcut_graph_cut_side(g, (uint8_t[3]){0}) != GCUT_OK ||
                   gcut_graph_solve(g, "prf", 0, &info) != GCUT_OK || info.flow != 5) {
            check_fail(r, "after the refused update %d: flow %lld, want 5", k,
                       (long long)info.flow);
        } else {
            r->passed++;
        }
        gcut_graph_destroy(g);
    }
    gcut_context_destroy(ctx);
}

/* The update-file parser: random valid files (comments, blank lines,
 * spaces, empty batches) parse back to what was written; every random
 * mutation of one either parses or fails with a message naming NAME:LINE;
 * the fuzz entry takes them all. */
void check_graph_update_parser(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK) {
        check_fail(r, "cannot create a context");
        return;
    }
    enum { MAXU = 64 };
    const int32_t n = 50;
    for (int i = 0; i < count; i++) {
        rng rg = rng_for(seed ^ 0x9a75e5ULL, i);
        int32_t tail[MAXU], head[MAXU], cap[MAXU];
        int32_t batch_of[MAXU];
        char text[MAXU * 48 + 512];
        size_t len = 0;
        int batches = 0, k = 0;
        int want_batches = (int)rng_range(&rg, 0, 6);
        for (int b = 0; b < want_batches; b++) {
            if (rng_below(&rg, 3) == 0)
                len += (size_t)snprintf(text + len, sizeof text - len, "c batch %d\n\n", b);
            len += (size_t)snprintf(text + len, sizeof text - len, "%sb\n",
                                    rng_below(&rg, 4) ? "" : "  ");
            batches++;
            int per = (int)rng_range(&rg, 0, 10);
            for (int j = 0; j < per && k < MAXU; j++, k++) {
                tail[k] = (int32_t)rng_below(&rg, n);
                head[k] = (int32_t)rng_below(&rg, n);
                cap[k] = rng_below(&rg, 5) ? (int32_t)rng_below(&rg, 1000) : INT32_MAX;
                batch_of[k] = b;
                len += (size_t)snprintf(text + len, sizeof text - len, "%d\t%d  %d%s\n",
                                        tail[k] + 1, head[k] + 1, cap[k],
                                        rng_below(&rg, 4) ? "" : " \r");
            }
        }
        gcut_updates *u = NULL;
        gcut_status st = gcut_updates_parse(ctx, text, len, "u.txt", n, &u);
        int good = st == GCUT_OK && gcut_updates_batches(u) == batches;
        /* Batch by batch, in order: the updates as written. */
        for (int b = 0, j = 0; good && b < batches; b++) {
            int64_t count = 0;
            const int32_t *t = NULL, *h = NULL, *c = NULL;
            good = gcut_updates_batch(u, b, &count, &t, &h, &c, NULL) == GCUT_OK;
            for (int64_t q = 0; good && q < count; q++, j++)
                good = j < k && batch_of[j] == b && t[q] == tail[j] && h[q] == head[j] &&
                       c[q] == cap[j];
            if (good && b == batches - 1)
                good = j == k;
        }
        gcut_updates_destroy(u);
        if (!good) {
            check_fail(r, "parser %d: a valid file of %d batches, %d updates: %s", i, batches, k,
                       st ? gcut_last_error(ctx) : "parsed differently");
            continue;
        }
        /* Mutations: a few bytes changed, dropped or cut off. */
        int bad_message = 0;
        for (int t = 0; t < 8 && len > 0; t++) {
            char mutated[sizeof text];
            memcpy(mutated, text, len);
            size_t mlen = len;
            int edits = (int)rng_range(&rg, 1, 4);
            for (int e = 0; e < edits; e++) {
                size_t at = (size_t)rng_below(&rg, (int64_t)mlen);
                static const char alphabet[] = "0123456789 -+bcxq\n\t\r\0";
                if (rng_below(&rg, 4) == 0)
                    mlen = at; /* cut off */
                else
                    mutated[at] = alphabet[rng_below(&rg, (int64_t)sizeof alphabet - 1)];
                if (mlen == 0)
                    break;
            }
            gcut_fuzz_updates((const uint8_t *)mutated, mlen);
            u = NULL;
            st = gcut_updates_parse(ctx, mutated, mlen, "u.txt", n, &u);
            gcut_updates_destroy(u);
            if (st != GCUT_OK && (strncmp(gcut_last_error(ctx), "u.txt:", 6) != 0 || st == GCUT_E_NOMEM))
                bad_message = 1;
        }
        if (bad_message)
            check_fail(r, "parser %d: a malformed file failed without naming u.txt:LINE: %s", i,
                       gcut_last_error(ctx));
        else
            r->passed++;
    }
    gcut_context_destroy(ctx);
}
