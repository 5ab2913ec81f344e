/* GPU general-graph solvers against the reference and prf
 * (check_graph_gpu.h). */
#include "check_graph_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_graph.h"
#include "gcut.h"
#include "graph/gen.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

/* A random graph around a hub joined to every other node, both ways (or
 * one way, alternating, with `one_way`), plus random sparse arcs; the hub
 * is sometimes the source or the sink. */
static gcut_status hub_graph(gcut_context *ctx, gcut__rng *rng, int32_t n, int one_way,
                             gcut_graph **out)
{
    const int64_t extra = 3 * (int64_t)n, room = 2 * (int64_t)n + extra;
    int32_t *tail = malloc((size_t)room * sizeof *tail),
            *head = malloc((size_t)room * sizeof *head);
    int32_t *cap = malloc((size_t)room * sizeof *cap);
    gcut_status st = GCUT_E_NOMEM;
    if (tail && head && cap) {
        const int32_t hub = (int32_t)gcut__rng_range(rng, 0, n - 1);
        int32_t s = (int32_t)gcut__rng_range(rng, 0, n - 1), t;
        do
            t = (int32_t)gcut__rng_range(rng, 0, n - 1);
        while (t == s);
        int64_t m = 0;
        for (int32_t v = 0; v < n; v++) {
            if (v == hub)
                continue;
            if (!one_way || v % 2)
                tail[m] = hub, head[m] = v, cap[m++] = (int32_t)gcut__rng_range(rng, 0, 20);
            if (!one_way || !(v % 2))
                tail[m] = v, head[m] = hub, cap[m++] = (int32_t)gcut__rng_range(rng, 0, 20);
        }
        for (int64_t i = 0; i < extra; i++) {
            tail[m] = (int32_t)gcut__rng_range(rng, 0, n - 1);
            head[m] = (int32_t)gcut__rng_range(rng, 0, n - 1);
            cap[m++] = (int32_t)gcut__rng_range(rng, 0, 100);
        }
        st = gcut_graph_create_from_arcs(ctx, n, m, tail, head, cap, s, t, out);
    }
    free(tail);
    free(head);
    free(cap);
    return st;
}

/* Larger instance `index` (every tenth), built in `ctx`. */
static gcut_status large_graph(gcut_context *ctx, const char *algo, uint64_t seed, int index,
                               gcut_graph **out, char *name, size_t name_size)
{
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 0x6a7a0000u + (uint64_t)index);
    const uint64_t gseed = gcut__rng_next(&rng);
    /* The precoloring variant takes nodes of at most 512 arcs. */
    const int small_hubs = strcmp(algo, "color") == 0;
    switch ((index / 10) % 5) {
    case 0: {
        int32_t a = (int32_t)gcut__rng_range(&rng, 3, 12),
                b = (int32_t)gcut__rng_range(&rng, 4, 40);
        snprintf(name, name_size, "genrmf a=%d b=%d seed=%llu", a, b, (unsigned long long)gseed);
        return gcut__gen_genrmf(ctx, a, b, 1, 1000, gseed, out);
    }
    case 1: {
        int32_t rows = (int32_t)gcut__rng_range(&rng, 4, small_hubs ? 256 : 200);
        int32_t cols = (int32_t)gcut__rng_range(&rng, 4, 80);
        snprintf(name, name_size, "rlg %dx%d seed=%llu", rows, cols, (unsigned long long)gseed);
        return gcut__gen_rlg(ctx, rows, cols, 10000, gseed, out);
    }
    case 2: {
        int32_t n = (int32_t)gcut__rng_range(&rng, 20, 250);
        snprintf(name, name_size, "acyclic-dense n=%d seed=%llu", n, (unsigned long long)gseed);
        return gcut__gen_acyclic_dense(ctx, n, gseed, out);
    }
    case 3: {
        int32_t w = (int32_t)gcut__rng_range(&rng, 20, 160),
                h = (int32_t)gcut__rng_range(&rng, 20, 120);
        int conn = gcut__rng_range(&rng, 0, 1) ? 8 : 4;
        /* color: the terminals' arcs make the source's degree */
        const double density = small_hubs && w * h > 900 ? 450.0 / (w * h) : 0.5;
        snprintf(name, name_size, "vision %dx%d conn=%d density=%.3f seed=%llu", w, h, conn,
                 density, (unsigned long long)gseed);
        return gcut__gen_vision(ctx, w, h, conn, density, gseed, out);
    }
    default: {
        int32_t n = (int32_t)gcut__rng_range(&rng, 50, small_hubs ? 240 : 3000);
        snprintf(name, name_size, "hub n=%d seed=%llu", n, (unsigned long long)gseed);
        return hub_graph(ctx, &rng, n, 0, out);
    }
    }
}

/* Small generator instance `index`, built in `ctx`. */
static gcut_status small_family(gcut_context *ctx, uint64_t seed, int index, gcut_graph **out,
                                char *name, size_t name_size)
{
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 0x5a11f000u + (uint64_t)index);
    const uint64_t gseed = gcut__rng_next(&rng);
    switch ((index / 3) % 4) {
    case 0: {
        int32_t a = (int32_t)gcut__rng_range(&rng, 1, 5), b = (int32_t)gcut__rng_range(&rng, 2, 6);
        snprintf(name, name_size, "genrmf a=%d b=%d seed=%llu", a, b, (unsigned long long)gseed);
        return gcut__gen_genrmf(ctx, a, b, 0, 60, gseed, out);
    }
    case 1: {
        int32_t rows = (int32_t)gcut__rng_range(&rng, 1, 8),
                cols = (int32_t)gcut__rng_range(&rng, 1, 8);
        snprintf(name, name_size, "rlg %dx%d seed=%llu", rows, cols, (unsigned long long)gseed);
        return gcut__gen_rlg(ctx, rows, cols, 100, gseed, out);
    }
    case 2: {
        int32_t n = (int32_t)gcut__rng_range(&rng, 2, 24);
        snprintf(name, name_size, "acyclic-dense n=%d seed=%llu", n, (unsigned long long)gseed);
        return gcut__gen_acyclic_dense(ctx, n, gseed, out);
    }
    default: {
        int32_t w = (int32_t)gcut__rng_range(&rng, 1, 9), h = (int32_t)gcut__rng_range(&rng, 1, 9);
        int conn = gcut__rng_range(&rng, 0, 1) ? 8 : 4;
        double density = (double)gcut__rng_range(&rng, 0, 4) / 4.0;
        snprintf(name, name_size, "vision %dx%d conn=%d density=%g seed=%llu", w, h, conn, density,
                 (unsigned long long)gseed);
        return gcut__gen_vision(ctx, w, h, conn, density, gseed, out);
    }
    }
}

/* Solve `gg` on the GPU with `algo`; its value must be `want`, its proof
 * must check, and its side must equal `cpu_side`. Small instances (`arcs`
 * given) are also checked independently against the reference. */
static int check_gpu_solve(check_report *r, gcut_context *gpu, gcut_graph *gg, const char *algo,
                           unsigned flags, int64_t want, const uint8_t *cpu_side,
                           const check_graph_arcs *arcs, const uint8_t *ref_side, const char *what)
{
    gcut_solve_info info;
    gcut_status st = gcut_graph_solve(gg, algo, flags, &info);
    if (st != GCUT_OK) {
        check_fail(r, "%s: the GPU solve failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(gpu));
        return 0;
    }
    if (!info.device || strcmp(info.device, "cpu") == 0 || !info.algo ||
        strcmp(info.algo, algo) != 0) {
        check_fail(r, "%s: the solve reports device '%s', algo '%s'", what,
                   info.device ? info.device : "(null)", info.algo ? info.algo : "(null)");
        return 0;
    }
    if (info.flow != want) {
        check_fail(r, "%s: GPU flow %lld, CPU %lld", what, (long long)info.flow, (long long)want);
        return 0;
    }
    const int32_t n = gcut_graph_nodes(gg);
    uint8_t *side = malloc((size_t)n);
    int ok = 0;
    if (!side) {
        check_fail(r, "%s: out of memory", what);
        return 0;
    }
    gcut_graph_cut_side(gg, side);
    if (memcmp(side, cpu_side, (size_t)n) != 0) {
        int32_t v = 0;
        while (side[v] == cpu_side[v])
            v++;
        check_fail(r, "%s: node %d is on side %d on the GPU, %d with prf", what, v, side[v],
                   cpu_side[v]);
        goto done;
    }
    if (arcs) {
        ok = check_graph_solution(r, gg, arcs, want, ref_side, what);
        goto done;
    }
    int64_t cut = -1;
    if ((st = gcut_graph_verify(gg, &cut)) != GCUT_OK || cut != want) {
        check_fail(r, "%s: verify: %s (cut %lld, want %lld)", what, gcut_status_str(st),
                   (long long)cut, (long long)want);
        goto done;
    }
    ok = 1;
done:
    free(side);
    return ok;
}

static void check_one(check_report *r, gcut_context *cpu, gcut_context *gpu, const char *algo,
                      uint64_t seed, int index)
{
    const int large = index % 10 == 9;
    const unsigned flags = (index / 2) % 2 ? GCUT_GRAPH_SOLVE_FLOW : 0;
    check_graph_arcs arcs;
    memset(&arcs, 0, sizeof arcs);
    gcut_graph *cg = NULL, *gg = NULL;
    uint8_t *ref_side = NULL, *cpu_side = NULL;
    char name[160], what[240];
    gcut_status st;
    if (large) {
        st = large_graph(cpu, algo, seed, index, &cg, name, sizeof name);
        if (!st)
            st = large_graph(gpu, algo, seed, index, &gg, name, sizeof name);
    } else if (index % 3 == 2) {
        st = small_family(cpu, seed, index, &cg, name, sizeof name);
        if (!st)
            st = check_graph_arcs_of(cg, &arcs) ? GCUT_E_NOMEM : GCUT_OK;
    } else {
        snprintf(name, sizeof name, "random %s graph",
                 check_graph_regime_name(index % CHECK_GRAPH_REGIMES));
        st = check_graph_random_arcs(seed, index, &arcs) ? GCUT_E_NOMEM : GCUT_OK;
        if (!st)
            st = gcut_graph_create_from_arcs(cpu, arcs.n, arcs.m, arcs.tail, arcs.head, arcs.cap,
                                             arcs.source, arcs.sink, &cg);
    }
    if (!st && !large)
        st = gcut_graph_create_from_arcs(gpu, arcs.n, arcs.m, arcs.tail, arcs.head, arcs.cap,
                                         arcs.source, arcs.sink, &gg);
    snprintf(what, sizeof what, "%s%s: seed %llu index %d (%s)", algo, flags ? " --flow" : "",
             (unsigned long long)seed, index, name);
    if (st) {
        check_fail(r, "%s: building the graph failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(cpu));
        goto done;
    }
    const int32_t n = gcut_graph_nodes(cg);
    int64_t want = -1;
    ref_side = malloc((size_t)n);
    cpu_side = malloc((size_t)n);
    if (!ref_side || !cpu_side) {
        check_fail(r, "%s: out of memory", what);
        goto done;
    }
    if (!large && (want = check_graph_reference(&arcs, ref_side)) < 0) {
        check_fail(r, "%s: the reference failed", what);
        goto done;
    }
    gcut_solve_info cinfo;
    if ((st = gcut_graph_solve(cg, "prf", 0, &cinfo)) != GCUT_OK) {
        check_fail(r, "%s: prf failed (%s): %s", what, gcut_status_str(st), gcut_last_error(cpu));
        goto done;
    }
    if (large)
        want = cinfo.flow;
    else if (cinfo.flow != want) {
        check_fail(r, "%s: prf's flow %lld differs from the reference's %lld", what,
                   (long long)cinfo.flow, (long long)want);
        goto done;
    }
    gcut_graph_cut_side(cg, cpu_side);
    if (check_gpu_solve(r, gpu, gg, algo, flags, want, cpu_side, large ? NULL : &arcs,
                        large ? NULL : ref_side, what))
        r->passed++;
done:
    free(ref_side);
    free(cpu_side);
    check_graph_arcs_free(&arcs);
    gcut_graph_destroy(cg);
    gcut_graph_destroy(gg);
}

void check_graph_gpu_worklist_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one, "worklist", count, seed);
}

/* Shape `index % 5` of the worklist solver's push choices (graph_gpu.cu
 * picks them from the graph), built in `ctx`; *split = the push it must
 * pick. RLG: the split push's light instance, chase included; a one-way
 * hub of over 1024 arcs: its block per heavy node; acyclic-dense of over
 * 1024 nodes: the dense instance with its staged heavy nodes; a small
 * acyclic-dense: the dense instance's warps; genrmf (arcs in pairs): a
 * warp per node. */
static gcut_status shape_graph(gcut_context *ctx, uint64_t seed, int index, gcut_graph **out,
                               char *name, size_t name_size, int *split)
{
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 0x5ba9e000u + (uint64_t)index);
    const uint64_t gseed = gcut__rng_next(&rng);
    *split = 1;
    switch (index % 5) {
    case 0: {
        int32_t rows = (int32_t)gcut__rng_range(&rng, 4, 200);
        int32_t cols = (int32_t)gcut__rng_range(&rng, 4, 80);
        snprintf(name, name_size, "rlg %dx%d seed=%llu", rows, cols, (unsigned long long)gseed);
        return gcut__gen_rlg(ctx, rows, cols, 10000, gseed, out);
    }
    case 1: {
        int32_t n = (int32_t)gcut__rng_range(&rng, 1100, 3000);
        snprintf(name, name_size, "one-way hub n=%d seed=%llu", n, (unsigned long long)gseed);
        return hub_graph(ctx, &rng, n, 1, out);
    }
    case 2: {
        int32_t n = (int32_t)gcut__rng_range(&rng, 1030, 1200);
        snprintf(name, name_size, "acyclic-dense n=%d seed=%llu", n, (unsigned long long)gseed);
        return gcut__gen_acyclic_dense(ctx, n, gseed, out);
    }
    case 3: {
        int32_t n = (int32_t)gcut__rng_range(&rng, 14, 250);
        snprintf(name, name_size, "acyclic-dense n=%d seed=%llu", n, (unsigned long long)gseed);
        return gcut__gen_acyclic_dense(ctx, n, gseed, out);
    }
    default: {
        int32_t a = (int32_t)gcut__rng_range(&rng, 3, 12),
                b = (int32_t)gcut__rng_range(&rng, 4, 40);
        snprintf(name, name_size, "genrmf a=%d b=%d seed=%llu", a, b, (unsigned long long)gseed);
        *split = 0;
        return gcut__gen_genrmf(ctx, a, b, 1, 1000, gseed, out);
    }
    }
}

/* One shape against prf: the value, the proof, the side, and the push the
 * solver picked. Alternate pairs of instances ask for the flow inside the
 * solve (phase 2 on the GPU). */
static void check_one_shape(check_report *r, gcut_context *cpu, gcut_context *gpu,
                            const char *algo, uint64_t seed, int index)
{
    const unsigned flags = (index / 5) % 2 ? GCUT_GRAPH_SOLVE_FLOW : 0;
    gcut_graph *cg = NULL, *gg = NULL;
    uint8_t *cpu_side = NULL;
    char name[160], what[240];
    int want_split = 0;
    gcut_status st = shape_graph(cpu, seed, index, &cg, name, sizeof name, &want_split);
    if (!st)
        st = shape_graph(gpu, seed, index, &gg, name, sizeof name, &want_split);
    snprintf(what, sizeof what, "%s%s: seed %llu index %d (%s)", algo, flags ? " --flow" : "",
             (unsigned long long)seed, index, name);
    if (st) {
        check_fail(r, "%s: building the graph failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(cpu));
        goto done;
    }
    gcut_solve_info cinfo;
    if ((st = gcut_graph_solve(cg, "prf", 0, &cinfo)) != GCUT_OK) {
        check_fail(r, "%s: prf failed (%s): %s", what, gcut_status_str(st), gcut_last_error(cpu));
        goto done;
    }
    cpu_side = malloc((size_t)gcut_graph_nodes(cg));
    if (!cpu_side) {
        check_fail(r, "%s: out of memory", what);
        goto done;
    }
    gcut_graph_cut_side(cg, cpu_side);
    if (!check_gpu_solve(r, gpu, gg, algo, flags, cinfo.flow, cpu_side, NULL, NULL, what))
        goto done;
#ifdef GCUT_HAVE_CUDA
    {
        gcut__gpu_graph_stats stats = {0};
        if (gcut__gpu_graph_stats_get(gpu, &stats) != GCUT_OK || stats.split != want_split) {
            check_fail(r, "%s: the solver ran the %s push, not the %s one", what,
                       stats.split ? "split" : "warp", want_split ? "split" : "warp");
            goto done;
        }
    }
#endif
    r->passed++;
done:
    free(cpu_side);
    gcut_graph_destroy(cg);
    gcut_graph_destroy(gg);
}

void check_graph_gpu_worklist_shapes_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_shape, "worklist", count, seed);
}

void check_graph_gpu_async_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one, "async", count, seed);
}

void check_graph_gpu_color_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one, "color", count, seed);
}

/* The warm re-solve's chase depth (GCUT_GPU_WARM_CHASE, read when a
 * context first uses the GPU for a graph) of instance `index`: none (the
 * default), one node, three, and far deeper, so that each path of the warp
 * push's chase and of the split push's deeper light chase runs. */
static const char *const warm_chase_depths[4] = {"0", "1", "3", "64"};

/* Instance `index`: genrmf and vision (arcs in pairs: the warp push) and
 * RLG (the split push), in `ctx`; *cmax the largest capacity a batch draws. */
static gcut_status chase_graph(gcut_context *ctx, uint64_t seed, int index, gcut_graph **out,
                               int32_t *cmax, char *name, size_t name_size)
{
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 0xc4a5e000u + (uint64_t)index);
    const uint64_t gseed = gcut__rng_next(&rng);
    switch ((index / 4) % 3) {
    case 0: {
        int32_t a = (int32_t)gcut__rng_range(&rng, 3, 10),
                b = (int32_t)gcut__rng_range(&rng, 8, 64);
        snprintf(name, name_size, "genrmf a=%d b=%d seed=%llu", a, b, (unsigned long long)gseed);
        *cmax = 1000 * a * a;
        return gcut__gen_genrmf(ctx, a, b, 1, 1000, gseed, out);
    }
    case 1: {
        int32_t rows = (int32_t)gcut__rng_range(&rng, 8, 160),
                cols = (int32_t)gcut__rng_range(&rng, 8, 96);
        snprintf(name, name_size, "rlg %dx%d seed=%llu", rows, cols, (unsigned long long)gseed);
        *cmax = 30000;
        return gcut__gen_rlg(ctx, rows, cols, 10000, gseed, out);
    }
    default: {
        int32_t w = (int32_t)gcut__rng_range(&rng, 16, 120),
                h = (int32_t)gcut__rng_range(&rng, 16, 120);
        snprintf(name, name_size, "vision %dx%d conn=4 seed=%llu", w, h, (unsigned long long)gseed);
        *cmax = 1000;
        return gcut__gen_vision(ctx, w, h, 4, 0.5, gseed, out);
    }
    }
}

/* Warm re-solves of one instance with its chase depth: batches of 0.1 to
 * 3 % of the arcs (raised, lowered, mixed, in turn), each re-solved by the
 * worklist solver from its device state; the same batches on a twin in a
 * CPU context, solved by prf from zero. Each value and cut side must
 * equal the twin's, and the last re-solve's proof must verify. */
static void check_one_warm_chase(check_report *r, gcut_context *cpu, gcut_context *gpu_plain,
                                 const char *algo, uint64_t seed, int index)
{
    (void)gpu_plain;
    const char *depth = warm_chase_depths[index % 4];
    const char *before = getenv("GCUT_GPU_WARM_CHASE");
    char *saved = before ? strdup(before) : NULL;
    setenv("GCUT_GPU_WARM_CHASE", depth, 1);
    gcut_context *gpu = check_context(GCUT_DEVICE_AUTO);
    gcut_graph *g = NULL, *twin = NULL;
    int32_t cmax = 1, *tail = NULL, *head = NULL, *cap = NULL;
    uint8_t *side = NULL, *twin_side = NULL;
    char name[160], what[280];
    gcut_status st = gpu ? chase_graph(gpu, seed, index, &g, &cmax, name, sizeof name)
                         : GCUT_E_NODEVICE;
    if (!st)
        st = chase_graph(cpu, seed, index, &twin, &cmax, name, sizeof name);
    if (st) {
        check_fail(r, "%s chase %s: instance %d: %s", algo, depth, index,
                   gpu ? gcut_last_error(gpu) : "no GPU context");
        goto done;
    }
    const int32_t n = gcut_graph_nodes(g), m = gcut_graph_arcs(g);
    const int64_t room = m / 30 + 2;
    tail = malloc((size_t)room * sizeof *tail);
    head = malloc((size_t)room * sizeof *head);
    cap = malloc((size_t)room * sizeof *cap);
    side = malloc((size_t)n);
    twin_side = malloc((size_t)n);
    gcut_solve_info info, tinfo;
    if (!tail || !head || !cap || !side || !twin_side) {
        check_fail(r, "%s: out of memory", name);
        goto done;
    }
    if (gcut_graph_solve(g, algo, 0, &info) != GCUT_OK) {
        check_fail(r, "%s: first solve: %s", name, gcut_last_error(gpu));
        goto done;
    }
    gcut__rng rng;
    gcut__rng_seed(&rng, seed, 0xc4a5f000u + (uint64_t)index);
    const int batches = (int)gcut__rng_range(&rng, 3, 7);
    for (int b = 0; b < batches && m > 0; b++) {
        static const int per_mille[3] = {1, 10, 30};
        const int kind = b % 3; /* raise, lower, mixed */
        int64_t k = 1 + (int64_t)m * per_mille[gcut__rng_range(&rng, 0, 2)] / 1000;
        k = k > room ? room : k;
        for (int64_t i = 0; i < k; i++) {
            int32_t old = 0;
            gcut_graph_arc(g, (int32_t)gcut__rng_range(&rng, 0, (int64_t)m - 1), &tail[i],
                           &head[i], &old);
            const int up = kind == 0 || (kind == 2 && gcut__rng_range(&rng, 0, 1));
            const int64_t c = up ? old + 1 + (int64_t)gcut__rng_range(&rng, 0, cmax)
                                 : (int64_t)gcut__rng_range(&rng, 0, old);
            cap[i] = c > INT32_MAX ? INT32_MAX : (int32_t)c;
        }
        snprintf(what, sizeof what, "%s chase %s: %s, batch %d (%s, %lld updates)", algo, depth,
                 name, b, kind == 0 ? "raise" : kind == 1 ? "lower" : "mixed", (long long)k);
        if (gcut_graph_update(g, k, tail, head, cap, 0) != GCUT_OK ||
            gcut_graph_update(twin, k, tail, head, cap, 0) != GCUT_OK) {
            check_fail(r, "%s: update: %s / %s", what, gcut_last_error(gpu),
                       gcut_last_error(cpu));
            goto done;
        }
        if (gcut_graph_solve(g, algo, 0, &info) != GCUT_OK ||
            gcut_graph_solve(twin, "prf", GCUT_GRAPH_SOLVE_SCRATCH, &tinfo) != GCUT_OK) {
            check_fail(r, "%s: solve: %s / %s", what, gcut_last_error(gpu),
                       gcut_last_error(cpu));
            goto done;
        }
        if (!info.device || strcmp(info.device, "cpu") == 0) {
            check_fail(r, "%s: the re-solve ran on '%s'", what,
                       info.device ? info.device : "(null)");
            goto done;
        }
        if (info.flow != tinfo.flow) {
            check_fail(r, "%s: warm flow %lld, prf from zero %lld", what, (long long)info.flow,
                       (long long)tinfo.flow);
            goto done;
        }
        if (gcut_graph_cut_side(g, side) != GCUT_OK ||
            gcut_graph_cut_side(twin, twin_side) != GCUT_OK ||
            memcmp(side, twin_side, (size_t)n) != 0) {
            check_fail(r, "%s: the cut side differs from prf's", what);
            goto done;
        }
        int64_t cut = -1;
        if (b == batches - 1 && (gcut_graph_verify(g, &cut) != GCUT_OK || cut != info.flow)) {
            check_fail(r, "%s: verify: %s (cut %lld)", what, gcut_last_error(gpu),
                       (long long)cut);
            goto done;
        }
    }
    r->passed++;
done:
    free(tail);
    free(head);
    free(cap);
    free(side);
    free(twin_side);
    gcut_graph_destroy(g);
    gcut_graph_destroy(twin);
    gcut_context_destroy(gpu);
    if (saved) {
        setenv("GCUT_GPU_WARM_CHASE", saved, 1);
        free(saved);
    } else {
        unsetenv("GCUT_GPU_WARM_CHASE");
    }
}

void check_graph_gpu_warm_chase_vs_cpu(check_report *r, int count, uint64_t seed)
{
    check_gpu_run(r, check_one_warm_chase, "worklist", count, seed);
}
