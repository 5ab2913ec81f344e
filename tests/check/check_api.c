/* Checks of the public API's contracts (check_api.h). */
#include "check_api.h"

#include <stdlib.h>
#include <string.h>

#include "graph/csr.h"
#include "graph/gen.h"

typedef struct stopper {
    int stop;  /* what the callback answers */
    int calls; /* how often it was asked */
} stopper;

static int on_progress(void *user, const char *stage, double fraction)
{
    (void)stage;
    (void)fraction;
    stopper *s = user;
    s->calls++;
    return s->stop;
}

/* Every pixel gets a terminal arc, so BK has over 2^20 active nodes to
 * take, past the step count at which it first polls the callback. */
static gcut_grid *big_grid(check_report *r, gcut_context *ctx, uint64_t *state)
{
    const int w = 1024, h = 1100;
    gcut_grid *g = NULL;
    if (gcut_grid_create(ctx, w, h, 4, &g) != GCUT_OK) {
        check_fail(r, "interrupted: cannot create a %dx%d grid", w, h);
        return NULL;
    }
    size_t n = (size_t)w * h;
    int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    gcut_status st = a && b ? GCUT_OK : GCUT_E_NOMEM;
    for (size_t i = 0; !st && i < n; i++) {
        uint64_t v = check_mix(state);
        int32_t c = 1 + (int32_t)(v % 1000);
        a[i] = v >> 32 & 1 ? c : 0;
        b[i] = v >> 32 & 1 ? 0 : c;
    }
    if (!st)
        st = gcut_grid_set_terminals(g, a, b);
    for (int d = 0; !st && d < 4; d++) {
        int dx, dy;
        gcut_dir_offset((gcut_dir)d, &dx, &dy);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int inside = x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h;
                a[(size_t)y * w + x] = inside ? 1 + (int32_t)(check_mix(state) % 300) : 0;
            }
        st = gcut_grid_set_edges(g, (gcut_dir)d, a);
    }
    free(a);
    free(b);
    if (st) {
        check_fail(r, "interrupted: cannot set up the grid (%s)", gcut_status_str(st));
        gcut_grid_destroy(g);
        return NULL;
    }
    return g;
}

static void interrupted_one(check_report *r, const char *algo, uint64_t *state)
{
    stopper stop = {1, 0};
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    opt.threads = 2;
    opt.progress = on_progress;
    opt.progress_user = &stop;
    gcut_context *ctx = NULL;
    if (gcut_context_create(&opt, &ctx) != GCUT_OK) {
        check_fail(r, "interrupted: no context");
        return;
    }
    gcut_grid *g = big_grid(r, ctx, state);
    if (!g) {
        gcut_context_destroy(ctx);
        return;
    }
    uint8_t label;
    gcut_status st = gcut_grid_solve(g, algo, NULL);
    int failed = r->failed;
    if (st != GCUT_E_INTERRUPTED)
        check_fail(r, "interrupted %s: the stopped solve returned '%s', not interrupted", algo,
                   gcut_status_str(st));
    else if (!strstr(gcut_last_error(ctx), "stopped"))
        check_fail(r, "interrupted %s: the message '%s' does not say it was stopped", algo,
                   gcut_last_error(ctx));
    else if (stop.calls != 1)
        check_fail(r, "interrupted %s: the callback was asked %d times after a stop", algo,
                   stop.calls);
    else if (gcut_grid_labels(g, &label) != GCUT_E_STATE)
        check_fail(r, "interrupted %s: labels were given after a stopped solve", algo);
    /* Not stopped, the same grid: the exact flow, as a fresh grid's. */
    stop.stop = 0;
    gcut_solve_info again, fresh;
    st = gcut_grid_solve(g, algo, &again);
    if (!st)
        st = gcut_grid_verify(g, NULL);
    if (st)
        check_fail(r, "interrupted %s: the solve after the stop failed: %s", algo,
                   gcut_last_error(ctx));
    else if (gcut_grid_solve(g, "bk", &fresh) == GCUT_OK && fresh.flow != again.flow)
        check_fail(r, "interrupted %s: flow %lld after the stop, %lld solved again", algo,
                   (long long)again.flow, (long long)fresh.flow);
    if (r->failed == failed)
        r->passed++;
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
}

void check_api_interrupted(check_report *r, int count, uint64_t seed)
{
    uint64_t state = seed | 1;
    for (int i = 0; i < count; i++) {
        /* "pbk" polls per strip, each far under 2^20 steps at this size:
         * the same status through the same code, not exercised here. */
        interrupted_one(r, "bk", &state);
    }
}

/* gcut_graph_generate gives what the internal generator gives, and names
 * what is wrong with its arguments. */
static void generate_contracts(check_report *r, gcut_context *ctx, uint64_t *state)
{
    int32_t w = 2 + (int32_t)(check_mix(state) % 30), h = 2 + (int32_t)(check_mix(state) % 30);
    uint64_t seed = check_mix(state);
    double params[4] = {w, h, 8, 0.5};
    gcut_graph *pub = NULL, *internal = NULL;
    gcut_status a = gcut_graph_generate(ctx, "vision", params, 4, seed, &pub);
    gcut_status b = gcut__gen_vision(ctx, w, h, 8, 0.5, seed, &internal);
    int failed = r->failed;
    if (a || b)
        check_fail(r, "generate: vision %dx%d failed (%s, %s)", w, h, gcut_status_str(a),
                   gcut_status_str(b));
    else if (gcut_graph_arcs(pub) != gcut_graph_arcs(internal))
        check_fail(r, "generate: vision %dx%d has %d arcs, the generator's %d", w, h,
                   gcut_graph_arcs(pub), gcut_graph_arcs(internal));
    for (int32_t k = 0; !a && !b && r->failed == failed && k < gcut_graph_arcs(pub); k++) {
        int32_t t1, h1, c1, t2, h2, c2;
        gcut_graph_arc(pub, k, &t1, &h1, &c1);
        gcut_graph_arc(internal, k, &t2, &h2, &c2);
        if (t1 != t2 || h1 != h2 || c1 != c2)
            check_fail(r, "generate: vision %dx%d arc %d differs", w, h, k);
    }
    gcut_graph_destroy(pub);
    gcut_graph_destroy(internal);

    static const struct {
        const char *family;
        double params[4];
        int count;
        const char *says;
    } bad[] = {
        {"nosuch", {1}, 1, "unknown family"},
        {"rlg", {4, 4}, 2, "takes 3 parameters"},
        {"genrmf", {2.5, 3, 1, 10}, 4, "not an integer"},
        {"acyclic-dense", {3e10}, 1, "not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gcut_graph *g = NULL;
        gcut_status st = gcut_graph_generate(ctx, bad[i].family, bad[i].params, bad[i].count, 1, &g);
        if (st != GCUT_E_INVALID || g || !strstr(gcut_last_error(ctx), bad[i].says))
            check_fail(r, "generate: %s gave '%s' ('%s'), not invalid saying '%s'",
                       bad[i].family, gcut_status_str(st), gcut_last_error(ctx), bad[i].says);
        gcut_graph_destroy(g);
    }
    if (r->failed == failed)
        r->passed++;
}

/* The overlay: seeds red and blue, foreground half its colour plus half
 * green, the rest as it was; grey images as grey. */
static void overlay_contracts(check_report *r, gcut_context *ctx, uint64_t *state)
{
    enum { W = 7, H = 5 };
    int channels = 1 + (int)(check_mix(state) % 4);
    uint8_t px[W * H * 4], mask[W * H], seeds[W * H], rgb[W * H * 3];
    for (int i = 0; i < W * H * channels; i++)
        px[i] = (uint8_t)check_mix(state);
    for (int i = 0; i < W * H; i++) {
        mask[i] = (uint8_t)(check_mix(state) & 1);
        seeds[i] = (uint8_t)(check_mix(state) % 3);
    }
    int failed = r->failed;
    gcut_status st = gcut_segment_overlay(ctx, px, W, H, channels, (size_t)W * channels, mask,
                                          seeds, rgb);
    if (st)
        check_fail(r, "overlay: %s", gcut_last_error(ctx));
    for (int i = 0; !st && i < W * H && r->failed == failed; i++) {
        const uint8_t *p = px + i * channels;
        uint8_t c[3] = {p[0], channels >= 3 ? p[1] : p[0], channels >= 3 ? p[2] : p[0]};
        uint8_t want[3];
        if (seeds[i] == GCUT_SEED_FG)
            want[0] = 255, want[1] = 0, want[2] = 0;
        else if (seeds[i] == GCUT_SEED_BG)
            want[0] = 0, want[1] = 0, want[2] = 255;
        else if (mask[i])
            want[0] = c[0] / 2, want[1] = (uint8_t)(c[1] / 2 + 128), want[2] = c[2] / 2;
        else
            memcpy(want, c, 3);
        if (memcmp(want, rgb + 3 * i, 3))
            check_fail(r, "overlay: pixel %d of %d channels is %d,%d,%d, not %d,%d,%d", i,
                       channels, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], want[0], want[1],
                       want[2]);
    }
    if (gcut_segment_overlay(ctx, px, W, H, channels, 1, mask, NULL, rgb) != GCUT_E_INVALID)
        check_fail(r, "overlay: a stride under a row was accepted");
    if (r->failed == failed)
        r->passed++;
}

/* The CPU solve's device string outlives the context (static storage). */
static void device_string_contract(check_report *r)
{
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    gcut_grid *g = NULL;
    gcut_solve_info info = {0};
    if (!ctx || gcut_grid_create(ctx, 3, 2, 4, &g) || gcut_grid_set_terminal(g, 0, 0, 5, 0) ||
        gcut_grid_set_terminal(g, 2, 1, 0, 5) || gcut_grid_solve(g, "bk", &info)) {
        check_fail(r, "device string: the solve failed");
    } else {
        gcut_grid_destroy(g);
        g = NULL;
        gcut_context_destroy(ctx);
        ctx = NULL;
        if (!info.device || strcmp(info.device, "cpu") != 0)
            check_fail(r, "device string: '%s' after the context is gone, not 'cpu'",
                       info.device ? info.device : "(null)");
        else
            r->passed++;
    }
    gcut_grid_destroy(g);
    gcut_context_destroy(ctx);
}

void check_api_contracts(check_report *r, int count, uint64_t seed)
{
    uint64_t state = seed | 1;
    gcut_context *ctx = check_context(GCUT_DEVICE_CPU);
    if (!ctx) {
        check_fail(r, "api: no context");
        return;
    }
    for (int i = 0; i < count; i++) {
        generate_contracts(r, ctx, &state);
        overlay_contracts(r, ctx, &state);
    }
    gcut_context_destroy(ctx);
    device_string_contract(r);
    const char *interrupted = gcut_status_str(GCUT_E_INTERRUPTED);
    if (strcmp(interrupted, "unknown status") == 0 ||
        strcmp(interrupted, gcut_status_str(GCUT_E_STATE)) == 0)
        check_fail(r, "api: GCUT_E_INTERRUPTED has no name of its own ('%s')", interrupted);
    else if (strcmp(gcut_version(), GCUT_VERSION_STRING) != 0)
        check_fail(r, "api: gcut_version() '%s' is not the generated '%s'", gcut_version(),
                   GCUT_VERSION_STRING);
    else
        r->passed++;
}
