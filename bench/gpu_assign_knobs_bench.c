/* gpu-assign-knobs-bench: gpu-csa's knobs (eps divisor alpha, threads a
 * bid takes, price updates) on the instance families, to choose
 * the defaults; bench/assign_bench.py compares the defaults with scipy.
 *
 * Instances (seeded, made here): dense N x N costs uniform in [0, 1000]
 * (-d N, repeatable) and sparse N rows of D arcs, a random permutation
 * (so that a perfect assignment exists) and D - 1 random columns, costs
 * in [1, 1000] (-s NxD), and the windowed flow assignment of two frames
 * (-w R with --frames DIR holding frame10.png and frame11.png: every pixel
 * of frame 10 to the pixels of frame 11 within (2R+1)^2, the instance of
 * bench/assign_bench.py's --window, cost for cost). Per instance: CPU CSA
 * once (the reference cost; --no-cpu leaves it out, and the first
 * variant's cost is the reference then), then each variant: the median of
 * --reps runs of time_ms (set-up, solve and proof check), its phases, bids
 * and price updates. Every run checks its proof (gcut_assign_csr does); a
 * cost unlike the reference is marked and makes the exit status 1.
 *
 * Dense instances come in the cost families of assign_bench.py (--costs,
 * one or more of uniform, wide [0, 10^6], product (i j) mod 1001, line
 * |x_i - y_j| on [0, 10^5), lowrank a_i b_j on [0, 1000); the same shapes,
 * not the same numbers).
 *
 * Usage: gpu-assign-knobs-bench -o OUT.md [-d N]... [-s NxD]... [-w R --frames DIR]...
 *        [--costs F,...] [--reps R] [--variants A/G/U[/H[/S[/L[/K]]]],...] [--no-cpu]
 *        [--verbose]
 * A/G/U/H/S/L: alpha (0: the default), threads a row (0: from the degree; 4, 8,
 * 32, 128, 512, 1024), price updates every U * n bids (0: the default,
 * every n; -1: none), H 1: dense requests through the host-built square
 * problem and the CPU's proof check (the path before the dense device
 * path; 0 or left out: the default), S: the first phase's eps is the cost
 * range over alpha times S (0 or left out: the default, S 1 on CSR rows and
 * 10 on dense ones), L 1: the host drives
 * dense rows' later phases (knob gpu_host_loop; 0: the device), K: dense
 * requests solved first on each row's K cheapest arcs (knob candidates;
 * 0: the default, -1: every arc). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcut.h"
#include "graph/assign_problem.h"
#include "bench_util.h"

#define MAX_ITEMS 16
#define MAX_VARIANTS 48

typedef struct instance {
    char name[64];
    int32_t n;
    int64_t *row_ptr;
    int32_t *col;
    int32_t *cost;
} instance;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static const char *const families[] = {"uniform", "wide", "product", "line", "lowrank"};
#define FAMILIES 5

/* Dense costs of `family` (an index into families) for (x, k), a and b:
 * the rows' and columns' own random values. */
static int32_t family_cost(int family, uint64_t *s, int32_t x, int64_t k, const int32_t *a,
                           const int32_t *b)
{
    switch (family) {
    case 1: return (int32_t)(splitmix(s) % 1000001);
    case 2: return (int32_t)(((int64_t)x * k) % 1001);
    case 3: return a[x] > b[k] ? a[x] - b[k] : b[k] - a[x];
    case 4: return a[x] * b[k];
    default: return (int32_t)(splitmix(s) % 1001);
    }
}

static int make_instance(instance *in, int32_t n, int32_t degree, uint64_t seed, int family)
{
    memset(in, 0, sizeof *in);
    const int dense = degree <= 0;
    const int64_t d = dense ? n : degree, m = (int64_t)n * d;
    in->n = n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)m * sizeof *in->col);
    in->cost = malloc((size_t)m * sizeof *in->cost);
    int32_t *perm = dense ? NULL : malloc((size_t)n * sizeof *perm);
    int32_t *fa = malloc((size_t)n * sizeof *fa), *fb = malloc((size_t)n * sizeof *fb);
    if (!in->row_ptr || !in->col || !in->cost || (!dense && !perm) || !fa || !fb) {
        free(perm);
        free(fa);
        free(fb);
        return 0;
    }
    uint64_t s = seed;
    for (int32_t i = 0; i < n; i++) {
        fa[i] = (int32_t)(splitmix(&s) % (family == 3 ? 100000 : 1000));
        fb[i] = (int32_t)(splitmix(&s) % (family == 3 ? 100000 : 1000));
    }
    if (!dense) {
        for (int32_t i = 0; i < n; i++)
            perm[i] = i;
        for (int32_t i = n - 1; i > 0; i--) {
            const int32_t j = (int32_t)(splitmix(&s) % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    for (int32_t x = 0; x <= n; x++)
        in->row_ptr[x] = (int64_t)x * d;
    for (int32_t x = 0; x < n; x++)
        for (int64_t k = 0; k < d; k++) {
            const int64_t a = (int64_t)x * d + k;
            in->col[a] = dense ? (int32_t)k
                               : k == 0 ? perm[x] : (int32_t)(splitmix(&s) % (uint64_t)n);
            in->cost[a] = dense ? family_cost(family, &s, x, k, fa, fb)
                                : (int32_t)(splitmix(&s) % 1001) + 1;
        }
    free(perm);
    free(fa);
    free(fb);
    if (dense)
        snprintf(in->name, sizeof in->name, "dense %dx%d %s", n, n, families[family]);
    else
        snprintf(in->name, sizeof in->name, "sparse n=%d deg %d", n, degree);
    return 1;
}

/* A frame as assign_bench.py's Gcut.grey makes it, value for value: for
 * RGB the luma (77 R + 150 G + 29 B) >> 8, so that the window costs and
 * the optimum are the script's; grey files: the first channel. */
static uint8_t *load_grey(gcut_context *ctx, const char *dir, const char *file, int *w, int *h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    gcut_image *img = NULL;
    if (gcut_image_load(ctx, path, &img) != GCUT_OK) {
        fprintf(stderr, "gpu-assign-knobs-bench: %s\n", gcut_last_error(ctx));
        return NULL;
    }
    *w = gcut_image_width(img);
    *h = gcut_image_height(img);
    const int ch = gcut_image_channels(img);
    const uint8_t *px = gcut_image_pixels(img);
    const size_t npx = (size_t)*w * (size_t)*h;
    uint8_t *g = malloc(npx);
    if (g)
        for (size_t i = 0; i < npx; i++) {
            const uint8_t *p = px + i * (size_t)ch;
            g[i] = ch >= 3 ? (uint8_t)((77 * (int32_t)p[0] + 150 * (int32_t)p[1] +
                                        29 * (int32_t)p[2]) >> 8)
                           : p[0];
        }
    gcut_image_destroy(img);
    return g;
}

static int clampi(int v, int hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* assign_bench.py's window_instance: row p = (x, y) of f0 takes column
 * (x + dx, y + dy) of f1 for |dx|, |dy| <= radius inside the frame (dy
 * outer, dx inner: ascending columns), at 1 + the 3x3 SAD (both frames'
 * edges clamped) + 4 (dx^2 + dy^2). The zero motion makes it feasible. */
static int make_window(instance *in, const uint8_t *f0, const uint8_t *f1, int w, int h,
                       int radius, const char *frames)
{
    memset(in, 0, sizeof *in);
    const int side = 2 * radius + 1;
    const int64_t n = (int64_t)w * h, cap = n * side * side;
    in->n = (int32_t)n;
    in->row_ptr = malloc(((size_t)n + 1) * sizeof *in->row_ptr);
    in->col = malloc((size_t)cap * sizeof *in->col);
    in->cost = malloc((size_t)cap * sizeof *in->cost);
    if (!in->row_ptr || !in->col || !in->cost)
        return 0;
    int64_t m = 0;
    in->row_ptr[0] = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            for (int dy = -radius; dy <= radius; dy++)
                for (int dx = -radius; dx <= radius; dx++) {
                    const int tx = x + dx, ty = y + dy;
                    if (tx < 0 || tx >= w || ty < 0 || ty >= h)
                        continue;
                    int32_t sad = 0;
                    for (int qy = -1; qy <= 1; qy++)
                        for (int qx = -1; qx <= 1; qx++) {
                            const int a = f0[(size_t)clampi(y + qy, h - 1) * (size_t)w +
                                             (size_t)clampi(x + qx, w - 1)];
                            const int b = f1[(size_t)clampi(ty + qy, h - 1) * (size_t)w +
                                             (size_t)clampi(tx + qx, w - 1)];
                            sad += a > b ? a - b : b - a;
                        }
                    in->col[m] = ty * w + tx;
                    in->cost[m++] = 1 + sad + 4 * (dx * dx + dy * dy);
                }
            in->row_ptr[(int64_t)y * w + x + 1] = m;
        }
    const char *base = strrchr(frames, '/');
    snprintf(in->name, sizeof in->name, "window R=%d %.24s %dx%d", radius,
             base && base[1] ? base + 1 : frames, w, h);
    return 1;
}

static void instance_free(instance *in)
{
    free(in->row_ptr);
    free(in->col);
    free(in->cost);
}

static void print_log(void *user, int level, const char *message)
{
    (void)user;
    (void)level;
    fprintf(stderr, "    [gcut] %s\n", message);
}

static gcut_context *context(gcut_device device, int verbose)
{
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = device;
    if (verbose) {
        opt.verbosity = 3;
        opt.log = print_log;
    }
    gcut_context *ctx = NULL;
    return gcut_context_create(&opt, &ctx) == GCUT_OK ? ctx : NULL;
}

static void usage(FILE *out)
{
    fprintf(out, "Usage: gpu-assign-knobs-bench -o OUT.md [-d N]... [-s NxD]...\n"
                 "       [-w R --frames DIR]... [--costs F,...] [--reps R]\n"
                 "       [--variants A/G/U[/H[/S[/L[/K]]]],...]\n"
                 "       [--no-cpu] [--verbose]\n");
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"out", required_argument, NULL, 'o'},      {"dense", required_argument, NULL, 'd'},
        {"sparse", required_argument, NULL, 's'},   {"reps", required_argument, NULL, 'r'},
        {"variants", required_argument, NULL, 'V'}, {"no-cpu", no_argument, NULL, 'C'},
        {"verbose", no_argument, NULL, 'v'},        {"help", no_argument, NULL, 'h'},
        {"window", required_argument, NULL, 'w'},   {"frames", required_argument, NULL, 'F'},
        {"costs", required_argument, NULL, 'c'},    {NULL, 0, NULL, 0}};
    const char *out_path = NULL, *variants = "0/0/0", *frames = NULL;
    /* kinds[i]: 'd' dense, 's' sparse, 'w' window (sizes[i] its radius) */
    int32_t sizes[MAX_ITEMS], degrees[MAX_ITEMS];
    char kinds[MAX_ITEMS];
    int items = 0, reps = 3, no_cpu = 0, verbose = 0, c;
    int fams[FAMILIES] = {0}, nfam = 0;
    while ((c = getopt_long(argc, argv, "o:d:s:w:r:V:c:Cvh", long_options, NULL)) != -1) {
        if (c == 'o') {
            out_path = optarg;
        } else if (c == 'd' || c == 's' || c == 'w') {
            int n = 0, deg = 0;
            if (items == MAX_ITEMS || ((c == 'd' || c == 'w') && sscanf(optarg, "%d", &n) != 1) ||
                (c == 's' && sscanf(optarg, "%dx%d", &n, &deg) != 2) || n < 1 ||
                (c == 's' && deg < 1) || (c == 'w' && n > 64)) {
                fprintf(stderr, "gpu-assign-knobs-bench: bad instance '%s' (at most %d)\n",
                        optarg, MAX_ITEMS);
                return 2;
            }
            kinds[items] = (char)c;
            sizes[items] = n;
            degrees[items++] = c == 's' ? deg : 0;
        } else if (c == 'F') {
            frames = optarg;
        } else if (c == 'c') {
            for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
                int f = 0;
                while (f < FAMILIES && strcmp(tok, families[f]))
                    f++;
                if (f == FAMILIES || nfam == FAMILIES) {
                    fprintf(stderr, "gpu-assign-knobs-bench: --costs: no family '%s'\n", tok);
                    return 2;
                }
                fams[nfam++] = f;
            }
        } else if (c == 'r') {
            reps = atoi(optarg);
        } else if (c == 'V') {
            variants = optarg;
        } else if (c == 'C') {
            no_cpu = 1;
        } else if (c == 'v') {
            verbose = 1;
        } else if (c == 'h') {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    int windows = 0;
    for (int i = 0; i < items; i++)
        windows += kinds[i] == 'w';
    if (!out_path || items == 0 || reps < 1 || (windows && !frames)) {
        usage(stderr);
        return 2;
    }
    gcut__assign_knobs knobs[MAX_VARIANTS];
    char label[MAX_VARIANTS][48];
    int nv = 0;
    for (const char *p = variants; *p;) {
        if (nv == MAX_VARIANTS) {
            fprintf(stderr, "gpu-assign-knobs-bench: more than %d variants\n", MAX_VARIANTS);
            return 2;
        }
        memset(&knobs[nv], 0, sizeof knobs[nv]);
        const int got = sscanf(p, "%d/%d/%d/%d/%d/%d/%d", &knobs[nv].alpha, &knobs[nv].gpu_group,
                               &knobs[nv].update_every, &knobs[nv].gpu_host_build,
                               &knobs[nv].gpu_eps_start, &knobs[nv].gpu_host_loop,
                               &knobs[nv].candidates);
        if (got < 3) {
            fprintf(stderr, "gpu-assign-knobs-bench: bad variant at '%s'\n", p);
            return 2;
        }
        snprintf(label[nv], sizeof label[nv], "%d/%d/%d/%d/%d/%d/%d%s", knobs[nv].alpha,
                 knobs[nv].gpu_group, knobs[nv].update_every, knobs[nv].gpu_host_build,
                 knobs[nv].gpu_eps_start, knobs[nv].gpu_host_loop, knobs[nv].candidates,
                 knobs[nv].gpu_host_build ? " (host build)" : "");
        nv++;
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    gcut_context *cpu = context(GCUT_DEVICE_CPU, 0), *gpu = context(GCUT_DEVICE_GPU, verbose);
    if (!cpu || !gpu) {
        fprintf(stderr, "gpu-assign-knobs-bench: no GPU context\n");
        return 1;
    }
    {
        /* CUDA's start and the kernels' first loads belong to no variant:
         * paid on a 2 x 2 problem before anything is timed (its failure
         * shows again, reported, at the first timed run) */
        static const int64_t wp[] = {0, 2, 4};
        static const int32_t wc[] = {0, 1, 0, 1}, wk[] = {1, 2, 2, 1};
        int32_t wrc[2];
        int64_t wt = 0;
        gcut_assign_info wi;
        (void)gcut__assign_run(gpu, 2, 2, wp, wc, wk, 0, "gpu-csa", NULL, wrc, &wt, NULL, &wi);
    }
    uint8_t *f0 = NULL, *f1 = NULL;
    int fw = 0, fh = 0, fw1 = 0, fh1 = 0;
    if (windows) {
        f0 = load_grey(cpu, frames, "frame10.png", &fw, &fh);
        f1 = f0 ? load_grey(cpu, frames, "frame11.png", &fw1, &fh1) : NULL;
        if (!f1)
            return 1;
        if (fw1 != fw || fh1 != fh) {
            fprintf(stderr, "gpu-assign-knobs-bench: %s: frame11.png is %dx%d, frame10.png %dx%d\n",
                    frames, fw1, fh1, fw, fh);
            return 1;
        }
    }
    FILE *out = fopen(out_path, "w");
    if (!out) {
        fprintf(stderr, "gpu-assign-knobs-bench: cannot write %s\n", out_path);
        return 1;
    }
    fprintf(out, "| instance | arcs | alpha / threads a row / updates every n bids / host build / "
                 "first eps divisor / host loop / candidates | device | "
                 "ms (median of %d) | runs | phases | bids | price updates | cost | same cost as %s |\n"
                 "| --- | ---: | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- |\n",
            reps, no_cpu ? "the first variant" : "CPU CSA");
    fflush(out);
    int bad = 0;
    if (nfam == 0)
        fams[nfam++] = 0;
    for (int item = 0; item < items * nfam; item++) {
        /* every dense size in each family; the others once */
        const int i = item / nfam, family = fams[item % nfam];
        if (kinds[i] != 'd' && item % nfam != 0)
            continue;
        instance in;
        if (!(kinds[i] == 'w' ? make_window(&in, f0, f1, fw, fh, sizes[i], frames)
                              : make_instance(&in, sizes[i], degrees[i], 1000 + (uint64_t)i,
                                              family))) {
            fprintf(stderr, "gpu-assign-knobs-bench: out of memory\n");
            return 1;
        }
        const int64_t arcs = in.row_ptr[in.n];
        int32_t *rc = malloc((size_t)in.n * sizeof *rc);
        int64_t ref = 0;
        int have_ref = 0;
        gcut_assign_info info;
        if (!no_cpu) {
            if (gcut__assign_run(cpu, in.n, in.n, in.row_ptr, in.col, in.cost, 0, "csa", NULL, rc,
                                 &ref, NULL, &info) != GCUT_OK) {
                fprintf(stderr, "%s: csa: %s\n", in.name, gcut_last_error(cpu));
                return 1;
            }
            have_ref = 1;
            fprintf(out, "| %s | %lld | csa (defaults) | cpu | %.1f | %.1f | %lld | %lld | %lld | "
                         "%lld | ref |\n",
                    in.name, (long long)arcs, info.time_ms, info.time_ms, (long long)info.refines,
                    (long long)info.pushes, (long long)info.price_updates, (long long)ref);
            fflush(out);
        }
        for (int v = 0; v < nv; v++) {
            double t[64];
            char runs[256] = "";
            int64_t total = 0;
            int ok = 1;
            for (int k = 0; k < reps && k < 64; k++) {
                if (verbose)
                    fprintf(stderr, "%s, variant %s, run %d\n", in.name, label[v], k + 1);
                if (gcut__assign_run(gpu, in.n, in.n, in.row_ptr, in.col, in.cost, 0, "gpu-csa",
                                     &knobs[v], rc, &total, NULL, &info) != GCUT_OK) {
                    fprintf(stderr, "%s: gpu-csa %s: %s\n", in.name, label[v],
                            gcut_last_error(gpu));
                    ok = 0;
                    break;
                }
                t[k] = info.time_ms;
                const size_t len = strlen(runs);
                snprintf(runs + len, sizeof runs - len, "%s%.1f", k ? ", " : "", info.time_ms);
            }
            if (!ok) {
                bad = 1;
                fprintf(out, "| %s | %lld | %s | gpu | error | | | | | | |\n", in.name,
                        (long long)arcs, label[v]);
                fflush(out);
                continue;
            }
            if (!have_ref) {
                ref = total;
                have_ref = 1;
            }
            if (total != ref)
                bad = 1;
            fprintf(out, "| %s | %lld | %s | %s | %.1f | %s | %lld | %lld | %lld | %lld | %s |\n",
                    in.name, (long long)arcs, label[v], info.device, bench_median(t, reps > 64 ? 64 : reps),
                    runs, (long long)info.refines, (long long)info.pushes,
                    (long long)info.price_updates, (long long)total, total == ref ? "yes" : "**NO**");
            fflush(out);
            printf("%s %s: %.1f ms, cost %lld%s\n", in.name, label[v], t[0], (long long)total,
                   total == ref ? "" : " MISMATCH");
            fflush(stdout);
        }
        free(rc);
        instance_free(&in);
    }
    fclose(out);
    free(f0);
    free(f1);
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
    return bad;
}
