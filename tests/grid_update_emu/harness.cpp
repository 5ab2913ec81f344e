/* The warm GPU grid updates (grid_kernels/grid_update.cu) run on the CPU
 * (tests/grid_update_emu/run.sh): random grids, each solved and then
 * changed round after round the way the two callers change them, the
 * segmentation's colour table (terminals reparametrised: no deficit may be
 * left) and the general grid's sparse lists (pairs and terminals, then the
 * pull sweeps until no deficit is left). After every change the state must
 * be a preflow of the graph as used (every residual within its pair,
 * conservation at every pixel, no excess or sink residual below zero), its
 * flow must have dropped by what the update reported, and the raises must
 * sum to what the counters say; after a push-relabel run from that state
 * (below, sequential), its flow less the raises must equal a fresh CPU BK
 * solve of the graph as set.
 *
 * Usage: harness [INSTANCES] */
#include "gcut.h"
#include "grid_update.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static long long range(long long lo, long long hi)
{
    return lo + (long long)(rnd() % (uint64_t)(hi - lo + 1));
}

static const int DX[8] = {1, -1, 0, 0, 1, -1, 1, -1}, DY[8] = {0, 0, 1, -1, -1, 1, 1, -1};

typedef struct instance {
    int w, h, ndirs, colors;
    long long nodes;
    long long off[8];
    gcut__dgrid g;
    gcut__dcaps c;
    unsigned long long counters[GCUT_UPD_SLOTS];
    uint32_t *colour;
    uint8_t *seeds;
    int32_t *tcap;
    int64_t offset_sum; /* the raises, as the counters told them */
} instance;

static long long node_of(const instance *in, int x, int y)
{
    return (long long)(y + 1) * in->g.pitch + x + 1;
}

static int inside(const instance *in, int x, int y)
{
    return x >= 0 && y >= 0 && x < in->w && y < in->h;
}

/* The flow into the sink of the state. */
static int64_t state_flow(const instance *in)
{
    int64_t f = 0;
    for (int y = 0; y < in->h; y++)
        for (int x = 0; x < in->w; x++) {
            long long p = node_of(in, x, y);
            f += (int64_t)in->c.sink[p] - in->g.sink[p];
        }
    return f;
}

/* The state is a preflow of the graph as used; the raises sum to what the
 * counters said. Returns a message, or NULL. */
static const char *check_state(const instance *in, char *why, size_t len)
{
    int64_t offsets = 0;
    for (int y = 0; y < in->h; y++)
        for (int x = 0; x < in->w; x++) {
            long long p = node_of(in, x, y);
            int64_t out = 0;
            for (int d = 0; d < in->ndirs; d++) {
                long long q = p + in->off[d];
                int64_t cap = in->c.cap[d][p], res = in->g.res[d][p];
                if (res < 0 || (inside(in, x + DX[d], y + DY[d]) &&
                                res + in->g.res[d ^ 1][q] != cap + in->c.cap[d ^ 1][q])) {
                    snprintf(why, len, "pixel (%d, %d) dir %d: residual %lld of a pair that holds "
                             "%lld", x, y, d, (long long)res,
                             (long long)(cap + in->c.cap[d ^ 1][q]));
                    return why;
                }
                out += cap - res;
            }
            const int64_t to_sink = (int64_t)in->c.sink[p] - in->g.sink[p];
            if (in->g.excess[p] < 0 || in->g.sink[p] < 0 || to_sink < 0 || in->c.offset[p] < 0 ||
                in->c.source[p] < in->c.offset[p] || in->c.sink[p] < in->c.offset[p] ||
                in->g.excess[p] != (int64_t)in->c.source[p] - to_sink - out) {
                snprintf(why, len, "pixel (%d, %d): excess %d, sink residual %d, terminals %d/%d "
                         "raised by %d, net outflow %lld", x, y, in->g.excess[p], in->g.sink[p],
                         in->c.source[p], in->c.sink[p], in->c.offset[p], (long long)out);
                return why;
            }
            offsets += in->c.offset[p];
        }
    if (offsets != in->offset_sum) {
        snprintf(why, len, "the raises sum to %lld, the counters say %lld", (long long)offsets,
                 (long long)in->offset_sum);
        return why;
    }
    return NULL;
}

/* Push-relabel from the state to a maximum preflow of the graph as used,
 * one pixel at a time (heights: the sink 0; a pixel whose height passes
 * the pixel count cannot reach the sink and keeps its excess, as on the
 * GPU). */
static void solve(instance *in)
{
    const int32_t n = (int32_t)(in->w * in->h), inf = n + 1;
    int32_t *hgt = in->g.height;
    long long *queue = (long long *)malloc((size_t)in->nodes * sizeof *queue);
    for (long long i = 0; i < in->nodes; i++)
        hgt[i] = inf;
    /* Exact heights to start: a backward BFS from the pixels with sink residual. */
    long long head = 0, tail = 0;
    for (int y = 0; y < in->h; y++)
        for (int x = 0; x < in->w; x++) {
            long long p = node_of(in, x, y);
            if (in->g.sink[p] > 0) {
                hgt[p] = 1;
                queue[tail++] = p;
            }
        }
    while (head < tail) {
        long long p = queue[head++];
        int x = (int)(p % in->g.pitch) - 1, y = (int)(p / in->g.pitch) - 1;
        for (int d = 0; d < in->ndirs; d++) {
            long long q = p + in->off[d];
            if (inside(in, x + DX[d], y + DY[d]) && hgt[q] == inf && in->g.res[d ^ 1][q] > 0) {
                hgt[q] = hgt[p] + 1;
                queue[tail++] = q;
            }
        }
    }
    for (int active = 1; active;) {
        active = 0;
        for (int y = 0; y < in->h; y++)
            for (int x = 0; x < in->w; x++) {
                long long p = node_of(in, x, y);
                while (in->g.excess[p] > 0 && hgt[p] < inf) {
                    active = 1;
                    if (in->g.sink[p] > 0 && hgt[p] == 1) {
                        int32_t m = in->g.excess[p] < in->g.sink[p] ? in->g.excess[p]
                                                                    : in->g.sink[p];
                        in->g.excess[p] -= m;
                        in->g.sink[p] -= m;
                    }
                    int32_t low = in->g.sink[p] > 0 ? 1 : inf;
                    for (int d = 0; d < in->ndirs && in->g.excess[p] > 0; d++) {
                        long long q = p + in->off[d];
                        if (!inside(in, x + DX[d], y + DY[d]) || in->g.res[d][p] <= 0)
                            continue;
                        if (hgt[p] == hgt[q] + 1) {
                            int32_t m = in->g.excess[p] < in->g.res[d][p] ? in->g.excess[p]
                                                                          : in->g.res[d][p];
                            in->g.res[d][p] -= m;
                            in->g.res[d ^ 1][q] += m;
                            in->g.excess[p] -= m;
                            in->g.excess[q] += m;
                        }
                        if (in->g.res[d][p] > 0 && hgt[q] + 1 < low)
                            low = hgt[q] + 1;
                    }
                    if (in->g.excess[p] > 0)
                        hgt[p] = low > n ? inf : low;
                }
            }
    }
    free(queue);
}

/* A fresh CPU BK solve of the graph as set (the raises taken off). */
static int64_t fresh_flow(gcut_context *ctx, const instance *in)
{
    gcut_grid *g = NULL;
    gcut_solve_info info;
    if (gcut_grid_create(ctx, in->w, in->h, in->ndirs, &g))
        return -1;
    gcut_status st = GCUT_OK;
    for (int y = 0; y < in->h && !st; y++)
        for (int x = 0; x < in->w && !st; x++) {
            long long p = node_of(in, x, y);
            st = gcut_grid_set_terminal(g, x, y, in->c.source[p] - in->c.offset[p],
                                        in->c.sink[p] - in->c.offset[p]);
            for (int d = 0; d < in->ndirs && !st; d++)
                if (inside(in, x + DX[d], y + DY[d]))
                    st = gcut_grid_set_edge(g, x, y, (gcut_dir)d, in->c.cap[d][p]);
        }
    if (!st)
        st = gcut_grid_solve(g, "bk", &info);
    gcut_grid_destroy(g);
    return st ? -1 : info.flow;
}

static void new_table(instance *in, long long scale, int first)
{
    for (int k = 0; k < in->colors; k++) {
        long long v = range(0, scale);
        long long kind = first ? 5 : range(0, 4);
        in->tcap[k] = kind <= 1 ? (int32_t)(in->tcap[k] > 0 ? -v : v) /* flip */
                      : kind == 2 ? in->tcap[k] / 2
                      : kind == 3 ? 0
                                  : (int32_t)range(-scale, scale);
    }
}

/* The counters of one update into the running raise sum. */
static void take_counters(instance *in)
{
    in->offset_sum += (int64_t)in->counters[GCUT_UPD_RAISED] -
                      (int64_t)in->counters[GCUT_UPD_DROPPED];
}

/* One random instance; 0 when every round passed. */
static int run_instance(gcut_context *ctx, int index, long long *raised_rounds)
{
    instance in;
    memset(&in, 0, sizeof in);
    in.w = (int)range(1, 24);
    in.h = (int)range(1, 24);
    in.ndirs = range(0, 1) ? 8 : 4;
    in.colors = (int)range(1, 6);
    in.g.img_w = in.w;
    in.g.img_h = in.h;
    in.g.ndirs = in.ndirs;
    in.g.pitch = in.w + 2;
    in.g.rows = in.h + 2;
    in.nodes = (long long)in.g.pitch * in.g.rows;
    for (int d = 0; d < 8; d++)
        in.off[d] = (long long)DY[d] * in.g.pitch + DX[d];
    size_t bytes = (size_t)in.nodes * sizeof(int32_t);
    for (int d = 0; d < in.ndirs; d++) {
        in.g.res[d] = (int32_t *)calloc(1, bytes);
        in.c.cap[d] = (int32_t *)calloc(1, bytes);
    }
    in.g.excess = (int32_t *)calloc(1, bytes);
    in.g.sink = (int32_t *)calloc(1, bytes);
    in.g.height = (int32_t *)calloc(1, bytes);
    in.c.source = (int32_t *)calloc(1, bytes);
    in.c.sink = (int32_t *)calloc(1, bytes);
    in.c.offset = (int32_t *)calloc(1, bytes);
    in.colour = (uint32_t *)calloc((size_t)in.w * in.h, sizeof *in.colour);
    in.seeds = (uint8_t *)calloc((size_t)in.w * in.h, 1);
    in.tcap = (int32_t *)calloc((size_t)in.colors + 2, sizeof *in.tcap);
    static const long long scales[4] = {1, 20, 3000, 1000000};
    const long long scale = scales[range(0, 3)], ncap = range(0, 4) == 0 ? 0 : range(1, 300);
    const long long patch = range(1, 6);
    for (int y = 0; y < in.h; y++)
        for (int x = 0; x < in.w; x++) {
            in.colour[y * in.w + x] = (uint32_t)((x / patch * 5 + y / patch * 3 +
                                                  (range(0, 7) == 0 ? range(0, in.colors) : 0)) %
                                                 in.colors);
            long long p = node_of(&in, x, y);
            for (int d = 0; d < in.ndirs; d++)
                if (inside(&in, x + DX[d], y + DY[d]))
                    in.c.cap[d][p] = in.g.res[d][p] = (int32_t)range(0, ncap);
        }
    int32_t hard = (int32_t)(16 * ncap + 1);
    new_table(&in, scale, 1);
    in.tcap[in.colors] = hard;
    in.tcap[in.colors + 1] = -hard;
    char why[256];
    int failed = 0, raised = 0;
    const int rounds = (int)range(3, 8);
    for (int round = 0; round <= rounds && !failed; round++) {
        memset(in.counters, 0, sizeof in.counters);
        const int64_t before = state_flow(&in);
        const char *kind = "the colour table, fresh";
        if (round == 0) {
            gcut__grid_update_table_launch(&in.g, &in.c, in.colour, in.seeds, (uint32_t)in.colors,
                                           in.tcap, 1, in.counters, NULL);
        } else if (range(0, 2) > 0) {
            kind = "the colour table, reparametrised";
            new_table(&in, scale, 0);
            for (long long m = range(0, 3); m > 0; m--)
                in.seeds[range(0, (long long)in.w * in.h - 1)] =
                    (uint8_t)(range(0, 1) ? GCUT_SEED_FG : GCUT_SEED_BG);
            gcut__grid_update_table_launch(&in.g, &in.c, in.colour, in.seeds, (uint32_t)in.colors,
                                           in.tcap, 0, in.counters, NULL);
        } else {
            kind = "sparse pairs and terminals, then pull sweeps";
            /* Distinct pairs (p, even e) and distinct pixels. */
            int n = in.w * in.h;
            uint8_t *mark = (uint8_t *)calloc((size_t)in.nodes, 1);
            gcut__pair_change *pch = (gcut__pair_change *)malloc((size_t)n * 4 * sizeof *pch);
            gcut__terminal_change *tch = (gcut__terminal_change *)malloc((size_t)n * sizeof *tch);
            int np = 0, nt = 0;
            for (long long k = range(0, n); k > 0; k--) {
                int x = (int)range(0, in.w - 1), y = (int)range(0, in.h - 1);
                int e = 2 * (int)range(0, in.ndirs / 2 - 1);
                long long p = node_of(&in, x, y);
                if (!inside(&in, x + DX[e], y + DY[e]) || (mark[p] & (2 << (e / 2))))
                    continue;
                mark[p] |= (uint8_t)(2 << (e / 2));
                long long how = range(0, 3);
                int32_t cap = in.c.cap[e][p], rev = in.c.cap[e ^ 1][p + in.off[e]];
                pch[np++] = {(int32_t)p, e, how == 0 ? 0 : how == 1 ? cap / 3 : (int32_t)range(0, ncap),
                             how == 0 ? 0 : how == 1 ? rev / 2 : (int32_t)range(0, ncap)};
            }
            for (long long k = range(0, n); k > 0; k--) {
                int x = (int)range(0, in.w - 1), y = (int)range(0, in.h - 1);
                long long p = node_of(&in, x, y);
                if (mark[p] & 1)
                    continue;
                mark[p] |= 1;
                tch[nt++] = {(int32_t)p, (int32_t)range(0, scale), (int32_t)range(0, scale)};
            }
            gcut__grid_update_pairs_launch(&in.g, &in.c, pch, np, NULL);
            gcut__grid_update_terminals_launch(&in.g, &in.c, tch, nt, in.counters, NULL);
            int slot = 0, sweeps = 0;
            for (;; sweeps++) {
                in.counters[GCUT_UPD_SWEEPS + slot] = 0;
                gcut__grid_pull_launch(&in.g, &in.c, slot, in.counters, NULL);
                if (in.counters[GCUT_UPD_SWEEPS + slot] == 0 || sweeps > 100000)
                    break;
            }
            free(mark);
            free(pch);
            free(tch);
        }
        take_counters(&in);
        raised += in.counters[GCUT_UPD_RAISED] > 0;
        const char *bad = check_state(&in, why, sizeof why);
        int64_t after = state_flow(&in);
        if (!bad && after != before - (int64_t)in.counters[GCUT_UPD_UNSENT]) {
            snprintf(why, sizeof why, "the flow went from %lld to %lld, the update took back %llu",
                     (long long)before, (long long)after, in.counters[GCUT_UPD_UNSENT]);
            bad = why;
        }
        if (!bad && in.counters[GCUT_UPD_REFUSED]) {
            snprintf(why, sizeof why, "%llu raises refused", in.counters[GCUT_UPD_REFUSED]);
            bad = why;
        }
        if (!bad) {
            solve(&in);
            bad = check_state(&in, why, sizeof why);
        }
        int64_t got = state_flow(&in) - in.offset_sum, want = fresh_flow(ctx, &in);
        if (!bad && got != want) {
            snprintf(why, sizeof why, "flow %lld (raised by %lld), a fresh BK solve %lld",
                     (long long)got, (long long)in.offset_sum, (long long)want);
            bad = why;
        }
        if (bad) {
            printf("FAIL instance %d (%dx%d, %d-connected, %d colours, terminals up to %lld, "
                   "n-links up to %lld), round %d (%s): %s\n", index, in.w, in.h, in.ndirs,
                   in.colors, scale, ncap, round, kind, bad);
            failed = 1;
        }
    }
    *raised_rounds += raised;
    for (int d = 0; d < in.ndirs; d++) {
        free(in.g.res[d]);
        free(in.c.cap[d]);
    }
    free(in.g.excess);
    free(in.g.sink);
    free(in.g.height);
    free(in.c.source);
    free(in.c.sink);
    free(in.c.offset);
    free(in.colour);
    free(in.seeds);
    free(in.tcap);
    return failed;
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 200;
    gcut_context *ctx = NULL;
    gcut_options o;
    gcut_options_init(&o);
    o.device = GCUT_DEVICE_CPU;
    if (gcut_context_create(&o, &ctx)) {
        printf("no context\n");
        return 1;
    }
    int failed = 0;
    long long raised = 0;
    for (int i = 0; i < count; i++)
        failed += run_instance(ctx, i, &raised);
    gcut_context_destroy(ctx);
    if (!failed && count > 10 && raised == 0) {
        printf("FAIL no update raised a terminal\n");
        failed = 1;
    }
    printf("grid_update emulated: %d instances, %d failed, %lld rounds raised terminals\n", count,
           failed, raised);
    return failed ? 1 : 0;
}
