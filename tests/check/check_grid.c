/* Random grid graphs, the reference max-flow on them, and the checks of the
 * CPU grid solver against it (see check_grid.h). */
#include "check_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_rng.h"
#include "ref_maxflow.h"

/* ---- deterministic random numbers ----------------------------------- */

static rng rng_for(uint64_t seed, int index, int regime)
{
    rng r = {seed};
    r.state = rng_next(&r) ^ ((uint64_t)(uint32_t)index * 0xd1b54a32d192ed03ULL);
    r.state = rng_next(&r) ^ ((uint64_t)(uint32_t)regime * 0x8cb92ba72f3d8dd7ULL);
    rng_next(&r);
    return r;
}

/* ---- the generator ---------------------------------------------------- */

static const char *const regime_names[CHECK_GRID_REGIMES] = {
    "zero", "tiny", "medium", "near-limit", "asymmetric", "sparse", "no-path", "maze", "thin"};

const char *check_grid_regime_name(int regime)
{
    return regime >= 0 && regime < CHECK_GRID_REGIMES ? regime_names[regime] : "?";
}

/* Capacities being built, row-major, before they are handed to the grid.
 * arc[d][p] is the arc leaving p in direction d; 0 where the neighbour is
 * outside. */
typedef struct spec {
    int w, h, conn;
    int32_t *source, *sink;
    int32_t *arc[8];
} spec;

static int spec_neighbour(const spec *s, int p, int d, int *q)
{
    int dx, dy;
    gcut_dir_offset((gcut_dir)d, &dx, &dy);
    int x = p % s->w + dx, y = p / s->w + dy;
    if (x < 0 || y < 0 || x >= s->w || y >= s->h)
        return 0;
    *q = y * s->w + x;
    return 1;
}

/* Most grids small (fast under sanitizers), some up to 64. */
static int pick_side(rng *r)
{
    int64_t c = rng_below(r, 8);
    if (c == 0)
        return (int)rng_range(r, 1, 3);
    if (c <= 4)
        return (int)rng_range(r, 2, 20);
    if (c <= 6)
        return (int)rng_range(r, 20, 48);
    return (int)rng_range(r, 56, 64);
}

/* Every in-grid arc gets a value in [0, max] (0 with probability zero_in). */
static void fill_arcs(spec *s, rng *r, int64_t max, int zero_in)
{
    int n = s->w * s->h;
    for (int d = 0; d < s->conn; d++)
        for (int p = 0; p < n; p++) {
            int q;
            if (spec_neighbour(s, p, d, &q) && (zero_in <= 0 || rng_below(r, zero_in) != 0))
                s->arc[d][p] = (int32_t)rng_below(r, max + 1);
        }
}

/* Terminals: source-only, sink-only, both, or none, each in [0, max]. */
static void fill_terminals(spec *s, rng *r, int64_t max)
{
    for (int p = 0; p < s->w * s->h; p++) {
        int64_t kind = rng_below(r, 6);
        if (kind <= 1 || kind == 4)
            s->source[p] = (int32_t)rng_below(r, max + 1);
        if (kind == 2 || kind == 3 || kind == 4)
            s->sink[p] = (int32_t)rng_below(r, max + 1);
    }
}

static void gen_tiny(spec *s, rng *r)
{
    fill_arcs(s, r, 3, 0);
    for (int p = 0; p < s->w * s->h; p++) {
        s->source[p] = (int32_t)rng_below(r, 4);
        s->sink[p] = (int32_t)rng_below(r, 4);
    }
}

static void gen_medium(spec *s, rng *r)
{
    fill_arcs(s, r, 1000, 8);
    fill_terminals(s, r, 10000);
}

/* Budget per pixel: INT32_MAX minus what its arcs (in and out) already
 * use. Each arc takes a share of the smaller budget of its two ends, then
 * the terminals take what is left (all of it, or nearly), so many pixels sit
 * exactly at the overflow rule's limit. */
static void gen_near_limit(spec *s, rng *r)
{
    int n = s->w * s->h;
    int64_t *left = malloc((size_t)n * sizeof *left);
    if (!left)
        return; /* the grid stays all zero: still a valid grid */
    for (int p = 0; p < n; p++)
        left[p] = INT32_MAX;
    const int64_t even_split = 2 * s->conn + 2;
    for (int p = 0; p < n; p++)
        for (int d = 0; d < s->conn; d++) {
            int q;
            if (!spec_neighbour(s, p, d, &q))
                continue;
            int64_t room = left[p] < left[q] ? left[p] : left[q];
            int64_t k = rng_below(r, 8);
            int64_t div = k < 4 ? even_split : k < 6 ? s->conn : k < 7 ? 2 : 1;
            int64_t c = room / div - rng_below(r, 1000);
            if (rng_below(r, 10) == 0 || c < 0)
                c = 0;
            s->arc[d][p] = (int32_t)c;
            left[p] -= c;
            left[q] -= c;
        }
    int fill_all = rng_below(r, 2) == 0;
    for (int p = 0; p < n; p++) {
        int64_t room = fill_all ? left[p] : left[p] - rng_below(r, 1000);
        if (room < 0)
            room = 0;
        int64_t kind = rng_below(r, 4);
        int64_t src = kind == 0 ? room : kind == 1 ? 0 : rng_below(r, room + 1);
        s->source[p] = (int32_t)src;
        s->sink[p] = (int32_t)(room - src);
    }
    free(left);
}

/* Each direction its own scale, and p->q independent of q->p. */
static void gen_asymmetric(spec *s, rng *r)
{
    static const int64_t scales[4] = {0, 10, 1000, 100000};
    int n = s->w * s->h;
    for (int d = 0; d < s->conn; d++) {
        int64_t max = scales[rng_below(r, 4)];
        for (int p = 0; p < n; p++) {
            int q;
            if (spec_neighbour(s, p, d, &q) && rng_below(r, 3) != 0)
                s->arc[d][p] = (int32_t)rng_below(r, max + 1);
        }
    }
    fill_terminals(s, r, 200000);
}

/* A few seeds, as scribbles give: flow travels far through the n-links. */
static void gen_sparse(spec *s, rng *r)
{
    int n = s->w * s->h;
    fill_arcs(s, r, 100, 10);
    int seeds = (int)rng_range(r, 1, 3);
    for (int k = 0; k < seeds; k++) {
        s->source[rng_below(r, n)] = (int32_t)rng_range(r, 1, 1000000);
        s->sink[rng_below(r, n)] = (int32_t)rng_range(r, 1, 1000000);
    }
}

/* No s-t path at all, in one of four ways. */
static void gen_no_path(spec *s, rng *r)
{
    int n = s->w * s->h;
    int64_t mode = rng_below(r, 4);
    if (s->w < 3 && mode >= 2)
        mode = rng_below(r, 2);
    fill_arcs(s, r, 1000, 4);
    if (mode == 0 || mode == 1) {
        /* One terminal side entirely zero. */
        for (int p = 0; p < n; p++) {
            int32_t v = (int32_t)rng_below(r, 10001);
            if (mode == 0)
                s->source[p] = v;
            else
                s->sink[p] = v;
        }
        return;
    }
    /* Sources left of column `wall`, sinks right of it (mode 2) or from it
     * on (mode 3). Mode 2: every arc at the wall is 0. Mode 3: every arc
     * going right (E, NE, SE) is 0, so x never grows along a path. */
    int wall = (int)rng_range(r, 1, s->w - 2);
    for (int p = 0; p < n; p++) {
        int x = p % s->w;
        if (x < wall)
            s->source[p] = (int32_t)rng_below(r, 10001);
        else if (x > wall || mode == 3)
            s->sink[p] = (int32_t)rng_below(r, 10001);
    }
    for (int d = 0; d < s->conn; d++)
        for (int p = 0; p < n; p++) {
            int q, dx;
            gcut_dir_offset((gcut_dir)d, &dx, NULL);
            if (!spec_neighbour(s, p, d, &q))
                continue;
            if (mode == 2 ? (p % s->w == wall || q % s->w == wall) : dx > 0)
                s->arc[d][p] = 0;
        }
}

/* Even rows are corridors, odd rows walls with one opening at alternate
 * ends, so the corridor snakes from the top-left to the bottom: long
 * augmenting paths and deep search trees. Arcs only between open pixels. */
static int maze_open(const spec *s, int p)
{
    int x = p % s->w, y = p / s->w;
    return y % 2 == 0 || x == ((y / 2) % 2 == 0 ? s->w - 1 : 0);
}

static void gen_maze(spec *s, rng *r)
{
    int n = s->w * s->h;
    for (int d = 0; d < s->conn; d++)
        for (int p = 0; p < n; p++) {
            int q;
            if (spec_neighbour(s, p, d, &q) && maze_open(s, p) && maze_open(s, q))
                s->arc[d][p] = (int32_t)rng_range(r, 1, 100);
        }
    s->source[0] = (int32_t)rng_range(r, 1, 1000000);
    for (int p = n - 1; p >= 0; p--)
        if (maze_open(s, p)) {
            s->sink[p] = (int32_t)rng_range(r, 1, 1000000);
            break;
        }
    for (int p = 0; p < n; p++)
        if (maze_open(s, p) && rng_below(r, 50) == 0) {
            if (rng_below(r, 2))
                s->source[p] = (int32_t)rng_range(r, 1, 200);
            else
                s->sink[p] = (int32_t)rng_range(r, 1, 200);
        }
}

/* Allocate a spec's arrays; 0 on out of memory. */
static int spec_alloc(spec *s)
{
    size_t n = (size_t)s->w * (size_t)s->h;
    int ok = (s->source = calloc(n, sizeof(int32_t))) != NULL;
    ok &= (s->sink = calloc(n, sizeof(int32_t))) != NULL;
    for (int d = 0; d < s->conn; d++)
        ok &= (s->arc[d] = calloc(n, sizeof(int32_t))) != NULL;
    return ok;
}

static void spec_free(spec *s)
{
    free(s->source);
    free(s->sink);
    for (int d = 0; d < 8; d++)
        free(s->arc[d]);
}

gcut_status check_grid_random_in(gcut_context *ctx, uint64_t seed, int index, int regime,
                                 gcut_grid **out)
{
    if (!out || regime < 0 || regime >= CHECK_GRID_REGIMES)
        return GCUT_E_INVALID;
    *out = NULL;
    rng r = rng_for(seed, index, regime);
    spec s;
    memset(&s, 0, sizeof s);
    /* Alternate the connectivity whether indices step by 1 or by the
     * number of regimes. */
    s.conn = ((index ^ (index / CHECK_GRID_REGIMES)) & 1) ? 8 : 4;
    if (regime == CHECK_GRID_THIN) {
        int64_t shape = rng_below(&r, 3);
        int len = (int)rng_range(&r, 2, 64);
        s.w = shape == 1 ? len : 1;
        s.h = shape == 2 ? len : 1;
    } else {
        s.w = pick_side(&r);
        s.h = pick_side(&r);
    }
    if (!spec_alloc(&s)) {
        spec_free(&s);
        return GCUT_E_NOMEM;
    }
    switch (regime) {
    case CHECK_GRID_ZERO:
        break;
    case CHECK_GRID_TINY:
        gen_tiny(&s, &r);
        break;
    case CHECK_GRID_MEDIUM:
        gen_medium(&s, &r);
        break;
    case CHECK_GRID_NEAR_LIMIT:
        gen_near_limit(&s, &r);
        break;
    case CHECK_GRID_ASYMMETRIC:
        gen_asymmetric(&s, &r);
        break;
    case CHECK_GRID_SPARSE:
        gen_sparse(&s, &r);
        break;
    case CHECK_GRID_NO_PATH:
        gen_no_path(&s, &r);
        break;
    case CHECK_GRID_MAZE:
        gen_maze(&s, &r);
        break;
    default: { /* thin: any of the magnitudes */
        int64_t k = rng_below(&r, 3);
        if (k == 0)
            gen_tiny(&s, &r);
        else if (k == 1)
            gen_medium(&s, &r);
        else
            gen_near_limit(&s, &r);
        break;
    }
    }

    gcut_grid *g = NULL;
    gcut_status st = gcut_grid_create(ctx, s.w, s.h, s.conn, &g);
    /* Both ways of setting capacities: whole arrays, or pixel by pixel. */
    int by_pixel = rng_below(&r, 4) == 0;
    if (!st && !by_pixel) {
        st = gcut_grid_set_terminals(g, s.source, s.sink);
        for (int d = 0; d < s.conn && !st; d++)
            st = gcut_grid_set_edges(g, (gcut_dir)d, s.arc[d]);
    }
    for (int p = 0; p < s.w * s.h && !st && by_pixel; p++) {
        int x = p % s.w, y = p / s.w, q;
        st = gcut_grid_set_terminal(g, x, y, s.source[p], s.sink[p]);
        for (int d = 0; d < s.conn && !st; d++)
            if (spec_neighbour(&s, p, d, &q))
                st = gcut_grid_set_edge(g, x, y, (gcut_dir)d, s.arc[d][p]);
    }
    spec_free(&s);
    if (st) {
        gcut_grid_destroy(g);
        return st;
    }
    *out = g;
    return GCUT_OK;
}

gcut_status check_grid_random(gcut_context *ctx, uint64_t seed, int index, gcut_grid **out)
{
    int regime = (int)((unsigned)index % CHECK_GRID_REGIMES);
    return check_grid_random_in(ctx, seed, index, regime, out);
}

/* ---- the reference ---------------------------------------------------- */

gcut_status check_grid_reference(const gcut_grid *g, int64_t *flow, uint8_t *ref_side)
{
    if (!g || !flow)
        return GCUT_E_INVALID;
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    int n = w * h, s = n, t = n + 1;
    ref_graph *rg = ref_graph_create(n + 2);
    if (!rg)
        return GCUT_E_NOMEM;
    int bad = 0;
    for (int y = 0; y < h && !bad; y++)
        for (int x = 0; x < w && !bad; x++) {
            int p = y * w + x;
            int32_t src = 0, snk = 0;
            bad |= gcut_grid_get_terminal(g, x, y, &src, &snk) != GCUT_OK;
            bad |= ref_graph_add_arc(rg, s, p, src) != 0;
            bad |= ref_graph_add_arc(rg, p, t, snk) != 0;
            for (int d = 0; d < conn && !bad; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                int nx = x + dx, ny = y + dy;
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                int32_t c = 0;
                bad |= gcut_grid_get_edge(g, x, y, (gcut_dir)d, &c) != GCUT_OK;
                if (c > 0)
                    bad |= ref_graph_add_arc(rg, p, ny * w + nx, c) != 0;
            }
        }
    int64_t f = bad ? -1 : ref_graph_maxflow(rg, s, t);
    if (f >= 0 && ref_side)
        for (int p = 0; p < n; p++)
            ref_side[p] = (uint8_t)!ref_graph_reaches_sink(rg, p);
    ref_graph_destroy(rg);
    if (f < 0)
        return GCUT_E_NOMEM;
    *flow = f;
    return GCUT_OK;
}

/* The capacity of the cut given by labels, summed here from the getters
 * rather than by the library. */
static int64_t independent_cut(const gcut_grid *g, const uint8_t *labels)
{
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    int64_t cut = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int32_t src = 0, snk = 0;
            gcut_grid_get_terminal(g, x, y, &src, &snk);
            if (!labels[y * w + x]) {
                cut += src;
                continue;
            }
            cut += snk;
            for (int d = 0; d < conn; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                int nx = x + dx, ny = y + dy;
                int32_t c = 0;
                if (nx >= 0 && ny >= 0 && nx < w && ny < h && !labels[ny * w + nx] &&
                    gcut_grid_get_edge(g, x, y, (gcut_dir)d, &c) == GCUT_OK)
                    cut += c;
            }
        }
    return cut;
}

/* ---- the checks ------------------------------------------------------- */

int check_grid_solution(check_report *r, gcut_context *ctx, gcut_grid *g, int64_t solved_flow,
                        int64_t want_flow, const uint8_t *ref_side, const char *what)
{
    int w = gcut_grid_width(g), h = gcut_grid_height(g);
    if (solved_flow != want_flow) {
        check_fail(r, "%s: flow %lld, the reference says %lld", what, (long long)solved_flow,
                   (long long)want_flow);
        return 0;
    }
    int64_t verified_cut = -1;
    gcut_status st = gcut_grid_verify(g, &verified_cut);
    if (st) {
        check_fail(r, "%s: verify failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(ctx));
        return 0;
    }
    if (verified_cut != want_flow) {
        check_fail(r, "%s: verify reports a cut of %lld for a flow of %lld", what,
                   (long long)verified_cut, (long long)want_flow);
        return 0;
    }
    uint8_t *labels = malloc((size_t)w * (size_t)h);
    if (!labels) {
        check_fail(r, "%s: out of memory", what);
        return 0;
    }
    int ok = 0;
    int64_t cut = -1;
    if ((st = gcut_grid_labels(g, labels)) != GCUT_OK) {
        check_fail(r, "%s: labels failed (%s)", what, gcut_status_str(st));
    } else if ((st = gcut_grid_cut_capacity(g, labels, &cut)) != GCUT_OK) {
        check_fail(r, "%s: cut capacity failed (%s)", what, gcut_status_str(st));
    } else if (cut != want_flow) {
        check_fail(r, "%s: the labels' cut has capacity %lld, the flow is %lld", what,
                   (long long)cut, (long long)want_flow);
    } else if ((cut = independent_cut(g, labels)) != want_flow) {
        check_fail(r, "%s: the labels' cut sums to %lld here, the flow is %lld", what,
                   (long long)cut, (long long)want_flow);
    } else {
        ok = 1;
        /* The source side every solver returns: the pixels that cannot reach
         * the sink after a maximum flow (the same set for every maximum
         * flow, so CPU and GPU masks agree even where minimum cuts tie). */
        for (int p = 0; ref_side && p < w * h; p++)
            if (ref_side[p] != labels[p]) {
                check_fail(r,
                           "%s: pixel (%d, %d) %s the sink after the reference's flow, "
                           "but is labelled %d",
                           what, p % w, p / w, ref_side[p] ? "cannot reach" : "reaches",
                           labels[p]);
                ok = 0;
                break;
            }
    }
    free(labels);
    return ok;
}

static void check_one(check_report *r, gcut_context *ctx, uint64_t seed, int index, int regime)
{
    char what[200];
    gcut_grid *g = NULL;
    uint8_t *ref_side = NULL;
    gcut_status st = check_grid_random_in(ctx, seed, index, regime, &g);
    if (st) {
        check_fail(r, "seed %llu index %d (%s): the generator failed (%s): %s",
                   (unsigned long long)seed, index, check_grid_regime_name(regime),
                   gcut_status_str(st), gcut_last_error(ctx));
        return;
    }
    int w = gcut_grid_width(g), h = gcut_grid_height(g);
    snprintf(what, sizeof what, "seed %llu index %d (%s, %dx%d, %d-connected)",
             (unsigned long long)seed, index, check_grid_regime_name(regime), w, h,
             gcut_grid_connectivity(g));

    int64_t want = 0;
    gcut_solve_info info;
    ref_side = malloc((size_t)w * (size_t)h);
    if (!ref_side || check_grid_reference(g, &want, ref_side) != GCUT_OK) {
        check_fail(r, "%s: the reference ran out of memory", what);
        goto done;
    }
    if ((regime == CHECK_GRID_ZERO || regime == CHECK_GRID_NO_PATH) && want != 0) {
        check_fail(r, "%s: the reference finds a flow of %lld where there is no s-t path", what,
                   (long long)want);
        goto done;
    }
    if ((st = gcut_grid_solve(g, "bk", &info)) != GCUT_OK) {
        check_fail(r, "%s: solve failed (%s): %s", what, gcut_status_str(st), gcut_last_error(ctx));
        goto done;
    }
    if (!info.algo || strcmp(info.algo, "bk") != 0 || info.flow < 0) {
        check_fail(r, "%s: solve reports algo '%s', flow %lld", what,
                   info.algo ? info.algo : "(null)", (long long)info.flow);
        goto done;
    }
    if (!check_grid_solution(r, ctx, g, info.flow, want, ref_side, what))
        goto done;
    /* A second solve with nothing changed (warm, nothing to redo): same answer. */
    if ((st = gcut_grid_solve(g, "bk", &info)) != GCUT_OK) {
        check_fail(r, "%s: the second solve failed (%s): %s", what, gcut_status_str(st),
                   gcut_last_error(ctx));
        goto done;
    }
    char again[240];
    snprintf(again, sizeof again, "%s, solved again", what);
    if (check_grid_solution(r, ctx, g, info.flow, want, ref_side, again))
        r->passed++;
done:
    free(ref_side);
    gcut_grid_destroy(g);
}

static gcut_context *cpu_context(check_report *r)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx) != GCUT_OK)
        check_fail(r, "could not create a CPU context");
    return ctx;
}

void check_grid_bk_vs_reference_in(check_report *r, int regime, int count, uint64_t seed)
{
    gcut_context *ctx = cpu_context(r);
    if (!ctx)
        return;
    for (int i = 0; i < count; i++)
        check_one(r, ctx, seed, i, regime);
    gcut_context_destroy(ctx);
}

void check_grid_bk_vs_reference(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = cpu_context(r);
    if (!ctx)
        return;
    for (int i = 0; i < count; i++)
        check_one(r, ctx, seed, i, (int)((unsigned)i % CHECK_GRID_REGIMES));
    gcut_context_destroy(ctx);
}

/* ---- re-solves after capacity changes --------------------------------- */

/* A copy of g made through the public getters and setters only. */
static gcut_grid *copy_grid(gcut_context *ctx, const gcut_grid *g)
{
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    gcut_grid *c = NULL;
    if (gcut_grid_create(ctx, w, h, conn, &c) != GCUT_OK)
        return NULL;
    gcut_status st = GCUT_OK;
    for (int y = 0; y < h && !st; y++)
        for (int x = 0; x < w && !st; x++) {
            int32_t src = 0, snk = 0, cap = 0;
            st = gcut_grid_get_terminal(g, x, y, &src, &snk);
            if (!st)
                st = gcut_grid_set_terminal(c, x, y, src, snk);
            for (int d = 0; d < conn && !st; d++) {
                int dx, dy;
                gcut_dir_offset((gcut_dir)d, &dx, &dy);
                if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
                    continue;
                st = gcut_grid_get_edge(g, x, y, (gcut_dir)d, &cap);
                if (!st)
                    st = gcut_grid_set_edge(c, x, y, (gcut_dir)d, cap);
            }
        }
    if (st) {
        gcut_grid_destroy(c);
        return NULL;
    }
    return c;
}

/* A new capacity for one that was `old`: zero, lower, or (when `up`)
 * higher, each about equally often. */
static int32_t changed_capacity(rng *r, int32_t old, int up)
{
    int64_t kind = rng_below(r, up ? 3 : 2);
    if (kind == 0)
        return 0;
    if (kind == 1)
        return (int32_t)rng_range(r, 0, old > 0 ? old - 1 : 0);
    return (int32_t)rng_range(r, old, 2 * (int64_t)old + 20);
}

/* Change some capacities of g: terminals and n-links, up, down or to zero,
 * either pixel by pixel or through the whole-array setters. Increases only
 * where the grid's capacities are small (never near the int32 rule). */
static gcut_status change_capacities(gcut_grid *g, rng *r, int up)
{
    int w = gcut_grid_width(g), h = gcut_grid_height(g), conn = gcut_grid_connectivity(g);
    int n = w * h;
    /* How many pixels: one, a few, a tenth, or all. */
    int64_t scope = rng_below(r, 4);
    int64_t per_mille = scope == 0 ? 0 : scope == 1 ? 30 : scope == 2 ? 100 : 1000;
    int terminals = rng_below(r, 4) != 0, edges = rng_below(r, 2) == 0;
    int bulk = rng_below(r, 2) == 0;
    int32_t *src = malloc((size_t)n * sizeof *src), *snk = malloc((size_t)n * sizeof *snk);
    int32_t *arc = malloc((size_t)n * sizeof *arc);
    gcut_status st = src && snk && arc ? GCUT_OK : GCUT_E_NOMEM;
    for (int p = 0; p < n && !st; p++)
        st = gcut_grid_get_terminal(g, p % w, p / w, &src[p], &snk[p]);
    int single = (int)rng_below(r, n);
    for (int p = 0; p < n && !st && terminals; p++) {
        if (per_mille ? rng_below(r, 1000) >= per_mille : p != single)
            continue;
        int64_t which = rng_below(r, 3); /* source, sink, both */
        if (which != 1)
            src[p] = changed_capacity(r, src[p], up);
        if (which != 0)
            snk[p] = changed_capacity(r, snk[p], up);
        if (!bulk)
            st = gcut_grid_set_terminal(g, p % w, p / w, src[p], snk[p]);
    }
    if (!st && terminals && bulk)
        st = gcut_grid_set_terminals(g, src, snk);
    for (int d = 0; d < conn && !st && edges; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        for (int p = 0; p < n && !st; p++) {
            int x = p % w, y = p / w;
            arc[p] = 0;
            if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h)
                continue;
            st = gcut_grid_get_edge(g, x, y, (gcut_dir)d, &arc[p]);
            if (st || (per_mille ? rng_below(r, 1000) >= per_mille : p != single))
                continue;
            arc[p] = changed_capacity(r, arc[p], up);
            if (!bulk)
                st = gcut_grid_set_edge(g, x, y, (gcut_dir)d, arc[p]);
        }
        if (!st && bulk)
            st = gcut_grid_set_edges(g, (gcut_dir)d, arc);
    }
    free(src);
    free(snk);
    free(arc);
    return st;
}

static void check_resolve_one(check_report *r, gcut_context *ctx, uint64_t seed, int index,
                              int regime, int rounds)
{
    check_grid_resolve_with(r, ctx, "bk", ctx, seed, index, regime, rounds);
}

void check_grid_resolve_with(check_report *r, gcut_context *ctx, const char *algo,
                             gcut_context *ref_ctx, uint64_t seed, int index, int regime,
                             int rounds)
{
    char what[240];
    gcut_grid *g = NULL, *fresh = NULL;
    uint8_t *ref_side = NULL;
    gcut_status st = check_grid_random_in(ctx, seed, index, regime, &g);
    if (st) {
        check_fail(r, "seed %llu index %d (%s): the generator failed (%s): %s",
                   (unsigned long long)seed, index, check_grid_regime_name(regime),
                   gcut_status_str(st), gcut_last_error(ctx));
        return;
    }
    int w = gcut_grid_width(g), h = gcut_grid_height(g);
    int up = regime != CHECK_GRID_NEAR_LIMIT && regime != CHECK_GRID_THIN;
    rng changes = rng_for(seed ^ 0x7265736f6c7665ULL, index, regime);
    ref_side = malloc((size_t)w * (size_t)h);
    int ok = ref_side != NULL;
    if (!ok)
        check_fail(r, "seed %llu index %d: out of memory", (unsigned long long)seed, index);
    for (int round = 0; round <= rounds && ok; round++) {
        snprintf(what, sizeof what, "%s: seed %llu index %d (%s, %dx%d, %d-connected), round %d",
                 algo, (unsigned long long)seed, index, check_grid_regime_name(regime), w, h,
                 gcut_grid_connectivity(g), round);
        if (round > 0 && (st = change_capacities(g, &changes, up)) != GCUT_OK) {
            check_fail(r, "%s: changing capacities failed (%s): %s", what, gcut_status_str(st),
                       gcut_last_error(ctx));
            ok = 0;
            break;
        }
        int64_t want = 0;
        gcut_solve_info info, fresh_info;
        if (check_grid_reference(g, &want, ref_side) != GCUT_OK) {
            check_fail(r, "%s: the reference ran out of memory", what);
            ok = 0;
        } else if ((st = gcut_grid_solve(g, algo, &info)) != GCUT_OK) {
            check_fail(r, "%s: re-solve failed (%s): %s", what, gcut_status_str(st),
                       gcut_last_error(ctx));
            ok = 0;
        } else if (!check_grid_solution(r, ctx, g, info.flow, want, ref_side, what)) {
            ok = 0;
        } else if (!(fresh = copy_grid(ref_ctx, g)) ||
                   gcut_grid_solve(fresh, "bk", &fresh_info) != GCUT_OK) {
            check_fail(r, "%s: the fresh copy could not be solved: %s", what,
                       gcut_last_error(ref_ctx));
            ok = 0;
        } else if (fresh_info.flow != info.flow) {
            check_fail(r, "%s: re-solve flow %lld, a fresh solve %lld", what, (long long)info.flow,
                       (long long)fresh_info.flow);
            ok = 0;
        }
        gcut_grid_destroy(fresh);
        fresh = NULL;
    }
    if (ok)
        r->passed++;
    free(ref_side);
    gcut_grid_destroy(g);
}

void check_grid_bk_resolve(check_report *r, int count, uint64_t seed)
{
    gcut_context *ctx = cpu_context(r);
    if (!ctx)
        return;
    for (int i = 0; i < count; i++)
        check_resolve_one(r, ctx, seed, i, (int)((unsigned)i % CHECK_GRID_REGIMES), 4);
    gcut_context_destroy(ctx);
}

gcut_status check_grid_disc(gcut_context *ctx, uint64_t s, int conn, const check_disc_shape *shape,
                            gcut_grid **out)
{
    for (int i = 0; i < 4; i++)
        check_mix(&s);
    int w = shape->w_min + (int)(check_mix(&s) % (uint64_t)shape->w_span);
    int h = shape->h_min + (int)(check_mix(&s) % (uint64_t)shape->h_span);
    int arc_max = 1 + (int)(check_mix(&s) % (uint64_t)shape->arc_span);
    gcut_status st = gcut_grid_create(ctx, w, h, conn, out);
    if (st)
        return st;
    double cx = (double)(check_mix(&s) % (uint64_t)w), cy = (double)(check_mix(&s) % (uint64_t)h);
    double rad = shape->rad_min + (double)(check_mix(&s) % (uint64_t)(w < h ? w : h));
    for (int y = 0; y < h && !st; y++)
        for (int x = 0; x < w && !st; x++) {
            double dx = x - cx, dy = y - cy;
            int inside = dx * dx + dy * dy < rad * rad;
            int32_t a = (int32_t)(check_mix(&s) % 1000), b = (int32_t)(check_mix(&s) % 1000);
            st = gcut_grid_set_terminal(*out, x, y, inside ? a : a / shape->weak,
                                        inside ? b / shape->weak : b);
            for (int d = 0; d < conn && !st; d++) {
                int ox, oy;
                gcut_dir_offset((gcut_dir)d, &ox, &oy);
                if (x + ox < 0 || y + oy < 0 || x + ox >= w || y + oy >= h)
                    continue;
                st = gcut_grid_set_edge(*out, x, y, (gcut_dir)d,
                                        (int32_t)(check_mix(&s) % (uint64_t)(arc_max + 1)));
            }
        }
    if (st) {
        gcut_grid_destroy(*out);
        *out = NULL;
    }
    return st;
}
