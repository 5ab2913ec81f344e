/* Random general graphs, small generator instances, and the checks of the
 * CPU general-graph solvers against the reference (see check_graph.h). */
#include "check_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/gen.h"
#include "check_rng.h"
#include "ref_maxflow.h"

/* ---- deterministic random numbers ----------------------------------- */

static rng rng_for(uint64_t seed, int index)
{
    rng r = {seed ^ 0x6a09e667f3bcc908ULL};
    r.state = rng_next(&r) ^ ((uint64_t)(uint32_t)index * 0xd1b54a32d192ed03ULL);
    rng_next(&r);
    return r;
}

/* ---- random arc lists ------------------------------------------------- */

static const char *const regime_names[CHECK_GRAPH_REGIMES] = {
    "sparse",    "dense",      "no-path", "zero-caps", "parallel",
    "tiny-caps", "near-limit", "layered", "terminals"};

const char *check_graph_regime_name(int regime)
{
    return regime >= 0 && regime < CHECK_GRAPH_REGIMES ? regime_names[regime] : "?";
}

void check_graph_arcs_free(check_graph_arcs *a)
{
    free(a->tail);
    free(a->head);
    free(a->cap);
    memset(a, 0, sizeof *a);
}

static int add(check_graph_arcs *a, int64_t room, int32_t u, int32_t v, int32_t c)
{
    if (a->m >= room)
        return 0;
    a->tail[a->m] = u;
    a->head[a->m] = v;
    a->cap[a->m] = c;
    a->m++;
    return 1;
}

int check_graph_random_arcs(uint64_t seed, int index, check_graph_arcs *out)
{
    memset(out, 0, sizeof *out);
    int regime = index % CHECK_GRAPH_REGIMES;
    rng r = rng_for(seed, index);
    int32_t n = (int32_t)rng_range(&r, 2, regime == CHECK_GRAPH_DENSE ? 16 : 40);
    int64_t room = (int64_t)n * n + 64;
    out->tail = malloc((size_t)room * sizeof(int32_t));
    out->head = malloc((size_t)room * sizeof(int32_t));
    out->cap = malloc((size_t)room * sizeof(int32_t));
    if (!out->tail || !out->head || !out->cap) {
        check_graph_arcs_free(out);
        return -1;
    }
    out->n = n;
    out->source = (int32_t)rng_range(&r, 0, n - 1);
    do
        out->sink = (int32_t)rng_range(&r, 0, n - 1);
    while (out->sink == out->source);
    const int32_t s = out->source, t = out->sink;

    switch (regime) {
    case CHECK_GRAPH_SPARSE:
    case CHECK_GRAPH_ZERO_CAPS:
    case CHECK_GRAPH_TINY_CAPS:
    case CHECK_GRAPH_NEAR_LIMIT: {
        int64_t m = rng_range(&r, 0, 3 * (int64_t)n);
        /* Near the limit, a repeated pair would sum past int32 (refused,
         * as tested elsewhere): keep pairs distinct there. */
        uint8_t *used = calloc((size_t)n * (size_t)n, 1);
        if (!used) {
            check_graph_arcs_free(out);
            return -1;
        }
        for (int64_t i = 0; i < m; i++) {
            int32_t u = (int32_t)rng_range(&r, 0, n - 1), v = (int32_t)rng_range(&r, 0, n - 1);
            if (u == v || (regime == CHECK_GRAPH_NEAR_LIMIT && used[(size_t)u * n + v]))
                continue;
            used[(size_t)u * n + v] = 1;
            int32_t c;
            if (regime == CHECK_GRAPH_ZERO_CAPS)
                c = rng_range(&r, 0, 3) ? 0 : (int32_t)rng_range(&r, 1, 50);
            else if (regime == CHECK_GRAPH_TINY_CAPS)
                c = (int32_t)rng_range(&r, 0, 3);
            else if (regime == CHECK_GRAPH_NEAR_LIMIT)
                c = (int32_t)rng_range(&r, INT32_MAX - 1000, INT32_MAX);
            else
                c = (int32_t)rng_range(&r, 0, 100);
            add(out, room, u, v, c);
        }
        free(used);
        break;
    }
    case CHECK_GRAPH_DENSE:
        for (int32_t u = 0; u < n; u++)
            for (int32_t v = 0; v < n; v++)
                if (u != v && rng_range(&r, 0, 9) < 8)
                    add(out, room, u, v, (int32_t)rng_range(&r, 0, 1000));
        break;
    case CHECK_GRAPH_NO_PATH: {
        /* Two halves: arcs from the sink's half never reach back... only
         * arcs inside a half and from the sink's half to the source's. */
        uint8_t *half = calloc((size_t)n, 1);
        if (!half) {
            check_graph_arcs_free(out);
            return -1;
        }
        for (int32_t v = 0; v < n; v++)
            half[v] = (uint8_t)rng_range(&r, 0, 1);
        half[s] = 0;
        half[t] = 1;
        int64_t m = rng_range(&r, 0, 4 * (int64_t)n);
        for (int64_t i = 0; i < m; i++) {
            int32_t u = (int32_t)rng_range(&r, 0, n - 1), v = (int32_t)rng_range(&r, 0, n - 1);
            if (u != v && !(half[u] == 0 && half[v] == 1))
                add(out, room, u, v, (int32_t)rng_range(&r, 1, 100));
        }
        free(half);
        break;
    }
    case CHECK_GRAPH_PARALLEL: {
        int64_t m = rng_range(&r, 0, 2 * (int64_t)n);
        for (int64_t i = 0; i < m; i++) {
            int32_t u = (int32_t)rng_range(&r, 0, n - 1), v = (int32_t)rng_range(&r, 0, n - 1);
            int copies = (int)rng_range(&r, 1, 4);
            for (int k = 0; k < copies; k++)
                add(out, room, u, v, (int32_t)rng_range(&r, 0, 30));
            if (rng_range(&r, 0, 3) == 0)
                add(out, room, u, u, (int32_t)rng_range(&r, 0, 30)); /* a self-loop */
        }
        add(out, room, s, s, 5);
        add(out, room, t, t, 5);
        add(out, room, s, t, (int32_t)rng_range(&r, 0, 10));
        add(out, room, s, t, (int32_t)rng_range(&r, 0, 10));
        break;
    }
    case CHECK_GRAPH_LAYERED: {
        /* s -> layer 0 -> layer 1 -> ... -> t, narrow layers, plus arcs
         * backwards, into s and out of t. */
        int32_t width = (int32_t)rng_range(&r, 1, 3);
        int32_t others = n - 2, k = 0;
        int32_t *order = malloc((size_t)n * sizeof *order);
        if (!order) {
            check_graph_arcs_free(out);
            return -1;
        }
        for (int32_t v = 0; v < n; v++)
            if (v != s && v != t)
                order[k++] = v;
        for (int32_t i = 0; i < others; i++) {
            int32_t layer = i / width;
            if (layer == 0)
                add(out, room, s, order[i], (int32_t)rng_range(&r, 1, 100));
            for (int32_t j = (layer + 1) * width; j < (layer + 2) * width && j < others; j++)
                add(out, room, order[i], order[j], (int32_t)rng_range(&r, 1, 100));
            if (i + width >= others)
                add(out, room, order[i], t, (int32_t)rng_range(&r, 1, 100));
            if (rng_range(&r, 0, 3) == 0 && i > 0)
                add(out, room, order[i], order[rng_range(&r, 0, i - 1)],
                    (int32_t)rng_range(&r, 1, 100));
        }
        if (others == 0)
            add(out, room, s, t, 7);
        add(out, room, t, s, 9);
        if (others > 0) {
            add(out, room, order[0], s, 11);
            add(out, room, t, order[others - 1], 13);
        }
        free(order);
        break;
    }
    case CHECK_GRAPH_TERMINALS: {
        /* A segmentation energy's shape: terminal arcs on most nodes (the
         * short s -> v -> t and s -> v -> w -> t paths that prf settles
         * before labelling), antiparallel pairs between nodes. */
        for (int32_t v = 0; v < n; v++) {
            if (v == s || v == t)
                continue;
            if (rng_range(&r, 0, 9) < 7)
                add(out, room, s, v, (int32_t)rng_range(&r, 0, 100));
            if (rng_range(&r, 0, 9) < 7)
                add(out, room, v, t, (int32_t)rng_range(&r, 0, 100));
        }
        int64_t pairs = rng_range(&r, 0, 2 * (int64_t)n);
        for (int64_t i = 0; i < pairs; i++) {
            int32_t u = (int32_t)rng_range(&r, 0, n - 1), v = (int32_t)rng_range(&r, 0, n - 1);
            if (u == v)
                continue;
            add(out, room, u, v, (int32_t)rng_range(&r, 0, 60));
            add(out, room, v, u, (int32_t)rng_range(&r, 0, 60));
        }
        if (rng_range(&r, 0, 3) == 0)
            add(out, room, s, t, (int32_t)rng_range(&r, 0, 50));
        break;
    }
    }
    return 0;
}

int64_t check_graph_reference(const check_graph_arcs *a, uint8_t *ref_side)
{
    ref_graph *rg = ref_graph_create(a->n);
    if (!rg)
        return -1;
    for (int64_t i = 0; i < a->m; i++) {
        if (ref_graph_add_arc(rg, a->tail[i], a->head[i], a->cap[i]) != 0) {
            ref_graph_destroy(rg);
            return -1;
        }
    }
    int64_t flow = ref_graph_maxflow(rg, a->source, a->sink);
    if (ref_side)
        for (int32_t v = 0; v < a->n; v++)
            ref_side[v] = (uint8_t)ref_graph_source_side(rg, v);
    ref_graph_destroy(rg);
    return flow;
}

/* ---- checking one solution -------------------------------------------- */

int check_graph_solution(check_report *r, gcut_graph *g, const check_graph_arcs *a,
                         int64_t want_flow, const uint8_t *ref_side, const char *what)
{
    gcut_solve_info info;
    int32_t n = a->n, m = gcut_graph_arcs(g);
    uint8_t *side = malloc((size_t)n);
    int32_t *flow = malloc((size_t)(m ? m : 1) * sizeof *flow);
    int64_t *net = calloc((size_t)n, sizeof *net);
    int ok = 0;
    if (!side || !flow || !net) {
        check_fail(r, "%s: out of memory in the check", what);
        goto done;
    }
    (void)info;
    if (gcut_graph_cut_side(g, side) != GCUT_OK) {
        check_fail(r, "%s: cut side: %s", what, "no side after a solve");
        goto done;
    }
    if (!side[a->source] || side[a->sink]) {
        check_fail(r, "%s: the cut side has source %d, sink %d", what, side[a->source],
                   side[a->sink]);
        goto done;
    }
    /* The cut's capacity over the arcs as given (parallel arcs one by one,
     * self-loops never cross). */
    int64_t cut = 0;
    for (int64_t i = 0; i < a->m; i++)
        if (side[a->tail[i]] && !side[a->head[i]])
            cut += a->cap[i];
    if (cut != want_flow) {
        check_fail(r, "%s: the cut's capacity %lld differs from the reference flow %lld", what,
                   (long long)cut, (long long)want_flow);
        goto done;
    }
    for (int32_t v = 0; ref_side && v < n; v++) {
        if (ref_side[v] && !side[v]) {
            check_fail(r,
                       "%s: node %d is reachable from the source in the reference's residual "
                       "graph but on the sink side",
                       what, v);
            goto done;
        }
    }
    int64_t cut_cap = -1;
    gcut_status st = gcut_graph_verify(g, &cut_cap);
    if (st != GCUT_OK || cut_cap != want_flow) {
        check_fail(r, "%s: verify: %s (cut %lld, want %lld)", what, gcut_status_str(st),
                   (long long)cut_cap, (long long)want_flow);
        goto done;
    }
    if ((st = gcut_graph_arc_flows(g, flow)) != GCUT_OK) {
        check_fail(r, "%s: arc flows: %s", what, gcut_status_str(st));
        goto done;
    }
    /* Independently: each kept arc's flow within the sum of the capacities
     * given for its (tail, head), and conservation. */
    for (int32_t k = 0; k < m; k++) {
        int32_t u, v, c;
        gcut_graph_arc(g, k, &u, &v, &c);
        int64_t given = 0;
        for (int64_t i = 0; i < a->m; i++)
            if (a->tail[i] == u && a->head[i] == v)
                given += a->cap[i];
        if (u == v || given != c || flow[k] < 0 || flow[k] > given) {
            check_fail(r, "%s: arc %d -> %d: capacity %d (given %lld), flow %d", what, u, v, c,
                       (long long)given, flow[k]);
            goto done;
        }
        net[v] += flow[k];
        net[u] -= flow[k];
    }
    for (int32_t v = 0; v < n; v++) {
        int64_t want = v == a->sink ? want_flow : v == a->source ? -want_flow : 0;
        if (net[v] != want) {
            check_fail(r, "%s: node %d: net inflow %lld, want %lld", what, v, (long long)net[v],
                       (long long)want);
            goto done;
        }
    }
    ok = 1;
done:
    free(side);
    free(flow);
    free(net);
    return ok;
}

/* Solve `g` with each CPU solver and check it; both must give the same
 * side. Counts one pass or one failure per solver. */
static void check_all_solvers(check_report *r, gcut_graph *g, const check_graph_arcs *a,
                              const char *name)
{
    static const char *const algos[] = {"prf", "bk"};
    uint8_t *ref_side = malloc((size_t)a->n);
    uint8_t *first_side = malloc((size_t)a->n);
    uint8_t *side = malloc((size_t)a->n);
    int64_t want = ref_side ? check_graph_reference(a, ref_side) : -1;
    if (!ref_side || !first_side || !side || want < 0) {
        check_fail(r, "%s: the reference failed (out of memory?)", name);
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        char what[160];
        snprintf(what, sizeof what, "%s [%s]", name, algos[k]);
        gcut_solve_info info;
        /* Alternate: a flow asked for in the solve, or computed later. */
        unsigned flags = (k + a->n) % 2 ? GCUT_GRAPH_SOLVE_FLOW : 0;
        gcut_status st = gcut_graph_solve(g, algos[k], flags, &info);
        if (st != GCUT_OK) {
            check_fail(r, "%s: solve: %s", what, gcut_status_str(st));
            continue;
        }
        if (info.flow != want || strcmp(info.algo, algos[k]) != 0) {
            check_fail(r, "%s: flow %lld, reference %lld", what, (long long)info.flow,
                       (long long)want);
            continue;
        }
        if (!check_graph_solution(r, g, a, want, ref_side, what))
            continue;
        gcut_graph_cut_side(g, side);
        if (k == 0) {
            memcpy(first_side, side, (size_t)a->n);
        } else if (memcmp(first_side, side, (size_t)a->n) != 0) {
            check_fail(r, "%s: the cut side differs from prf's", what);
            continue;
        }
        r->passed++;
    }
done:
    free(ref_side);
    free(first_side);
    free(side);
}

void check_graph_solvers_vs_reference(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = NULL;
    if (gcut_context_create(NULL, &ctx) != GCUT_OK) {
        check_fail(r, "cannot create a context");
        return;
    }
    for (int i = 0; i < count; i++) {
        check_graph_arcs a;
        char name[96];
        snprintf(name, sizeof name, "graph %d (%s, seed %llu)", i,
                 check_graph_regime_name(i % CHECK_GRAPH_REGIMES), (unsigned long long)seed);
        if (check_graph_random_arcs(seed, i, &a) != 0) {
            check_fail(r, "%s: out of memory", name);
            continue;
        }
        gcut_graph *g = NULL;
        gcut_status st =
            gcut_graph_create_from_arcs(ctx, a.n, a.m, a.tail, a.head, a.cap, a.source, a.sink, &g);
        if (st != GCUT_OK)
            check_fail(r, "%s: create: %s", name, gcut_last_error(ctx));
        else
            check_all_solvers(r, g, &a, name);
        gcut_graph_destroy(g);
        check_graph_arcs_free(&a);
    }
    gcut_context_destroy(ctx);
}

/* ---- generator families ------------------------------------------------ */

int check_graph_arcs_of(const gcut_graph *g, check_graph_arcs *a)
{
    memset(a, 0, sizeof *a);
    int32_t m = gcut_graph_arcs(g);
    a->n = gcut_graph_nodes(g);
    a->m = m;
    a->source = gcut_graph_source(g);
    a->sink = gcut_graph_sink(g);
    a->tail = malloc((size_t)(m ? m : 1) * sizeof(int32_t));
    a->head = malloc((size_t)(m ? m : 1) * sizeof(int32_t));
    a->cap = malloc((size_t)(m ? m : 1) * sizeof(int32_t));
    if (!a->tail || !a->head || !a->cap) {
        check_graph_arcs_free(a);
        return -1;
    }
    for (int32_t k = 0; k < m; k++)
        gcut_graph_arc(g, k, &a->tail[k], &a->head[k], &a->cap[k]);
    return 0;
}

void check_graph_families_vs_reference(check_report *r, int count, uint64_t seed)
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
        int64_t want_n, want_m;
        char name[128];
        switch (i % 4) {
        case 0: {
            int32_t a = (int32_t)rng_range(&rg, 1, 5), b = (int32_t)rng_range(&rg, 2, 5);
            int32_t c1 = (int32_t)rng_range(&rg, 0, 50), c2 = c1 + (int32_t)rng_range(&rg, 0, 50);
            snprintf(name, sizeof name, "genrmf a=%d b=%d c1=%d c2=%d seed=%llu", a, b, c1, c2,
                     (unsigned long long)gseed);
            st = gcut__gen_genrmf(ctx, a, b, c1, c2, gseed, &g);
            want_n = (int64_t)a * a * b;
            want_m = gcut__gen_genrmf_arcs(a, b);
            break;
        }
        case 1: {
            int32_t rows = (int32_t)rng_range(&rg, 1, 7), cols = (int32_t)rng_range(&rg, 1, 7);
            int32_t range = (int32_t)rng_range(&rg, 1, 100);
            snprintf(name, sizeof name, "rlg rows=%d cols=%d range=%d seed=%llu", rows, cols, range,
                     (unsigned long long)gseed);
            st = gcut__gen_rlg(ctx, rows, cols, range, gseed, &g);
            want_n = (int64_t)rows * cols + 2;
            want_m = gcut__gen_rlg_arcs(rows, cols);
            break;
        }
        case 2: {
            int32_t n = (int32_t)rng_range(&rg, 2, 24);
            snprintf(name, sizeof name, "acyclic-dense n=%d seed=%llu", n,
                     (unsigned long long)gseed);
            st = gcut__gen_acyclic_dense(ctx, n, gseed, &g);
            want_n = n;
            want_m = gcut__gen_acyclic_dense_arcs(n);
            break;
        }
        default: {
            int32_t w = (int32_t)rng_range(&rg, 1, 9), h = (int32_t)rng_range(&rg, 1, 9);
            int conn = rng_range(&rg, 0, 1) ? 8 : 4;
            double density = (double)rng_range(&rg, 0, 4) / 4.0;
            snprintf(name, sizeof name, "vision %dx%d conn=%d density=%g seed=%llu", w, h, conn,
                     density, (unsigned long long)gseed);
            st = gcut__gen_vision(ctx, w, h, conn, density, gseed, &g);
            want_n = (int64_t)w * h + 2;
            want_m = gcut__gen_vision_arcs(w, h, conn, density);
            break;
        }
        }
        if (st != GCUT_OK) {
            check_fail(r, "%s: %s", name, gcut_last_error(ctx));
            continue;
        }
        gcut_graph_stats stats;
        gcut_graph_get_stats(g, &stats);
        if (gcut_graph_nodes(g) != want_n || stats.arcs_in != want_m || stats.arcs != want_m ||
            stats.parallel_merged || stats.self_loops) {
            check_fail(r, "%s: %d nodes and %lld arcs (%d kept), the formula says %lld and %lld",
                       name, gcut_graph_nodes(g), (long long)stats.arcs_in, stats.arcs,
                       (long long)want_n, (long long)want_m);
            gcut_graph_destroy(g);
            continue;
        }
        check_graph_arcs a;
        if (check_graph_arcs_of(g, &a) != 0)
            check_fail(r, "%s: out of memory", name);
        else
            check_all_solvers(r, g, &a, name);
        check_graph_arcs_free(&a);
        gcut_graph_destroy(g);
    }
    gcut_context_destroy(ctx);
}
