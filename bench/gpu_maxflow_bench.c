/* gpu-maxflow-bench: the GPU general-graph solvers (worklist, async, color)
 * against the CPU's prf on the benchmark families and on sparse
 * matrices turned into flow networks.
 *
 * Graphs (-g, repeatable; default: all of the list): genrmf-long
 * AxB and genrmf-wide A (b = a), Washington RLG wide N (N x N) and long RxC,
 * acyclic-dense N, all from the library's generators (gcut gen) with seed
 * 1 and the default capacities; and with -m DIR the LIMIT largest Matrix
 * Market files there (pattern or valued, general or symmetric), symmetrised
 * (an arc each way per off-diagonal entry, capacity 1 + hash % 10000), the
 * node of highest degree as source and the next as sink.
 *
 * Per graph: prf's solve time on the CPU (phase 1 only: value and cut);
 * for each GPU variant the run time with the graph already on the device
 * (CUDA events, the best of --reps runs for worklist), the upload and
 * download apart (host clock), the push launches and global relabels; and
 * worklist's phase 2 (a feasible flow) in one more run. Every GPU value
 * must equal prf's and the downloaded cut and flow must pass
 * gcut_graph_verify(), else the exit status is 1.
 *
 * Usage: gpu-maxflow-bench -o OUT.md [-g SPEC]... [-m DIR] [--mtx-limit N]
 *        [--reps N] [--variants LIST] [--async-max-arcs N] [--color-max-arcs N]
 * SPEC: genrmf-long:32x256, genrmf-wide:96, rlg-wide:1536, rlg-long:512x1024,
 *       acyclic-dense:2000. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gcut.h"
#include "gpu/gpu.h"
#include "graph/csr.h"
#include "graph/gen.h"
#include "bench_util.h"

static const char *const default_specs[] = {
    "genrmf-long:32x256", "genrmf-long:64x512", "genrmf-wide:64",     "genrmf-wide:96",
    "genrmf-wide:128",    "rlg-wide:1024",      "rlg-wide:1536",      "rlg-wide:2560",
    "rlg-long:512x1024",  "rlg-long:1280x2560", "acyclic-dense:2000", "acyclic-dense:4000"};

/* ECL-MaxFlow on an RTX 4090 (seed 003, Table), seconds; 0 = none. */
static double anchor_s(const char *spec)
{
    if (strcmp(spec, "genrmf-wide:96") == 0)
        return 3.28;
    if (strcmp(spec, "rlg-wide:1536") == 0)
        return 1.57;
    if (strcmp(spec, "rlg-wide:2560") == 0)
        return 7.37;
    return 0;
}

/* Decimals of a time in the tables: two under 10 ms (acyclic-dense 2000
 * takes ~0.6 ms, where one decimal hides a 15 % change). */
static int ms_digits(double ms)
{
    return ms < 10 ? 2 : 1;
}

static gcut_status make_graph(gcut_context *ctx, const char *spec, gcut_graph **out)
{
    int a = 0, b = 0;
    if (sscanf(spec, "genrmf-long:%dx%d", &a, &b) == 2)
        return gcut__gen_genrmf(ctx, a, b, 100, 10000, 1, out);
    if (sscanf(spec, "genrmf-wide:%d", &a) == 1)
        return gcut__gen_genrmf(ctx, a, a, 100, 10000, 1, out);
    if (sscanf(spec, "rlg-long:%dx%d", &a, &b) == 2)
        return gcut__gen_rlg(ctx, a, b, 10000, 1, out);
    if (sscanf(spec, "rlg-wide:%d", &a) == 1)
        return gcut__gen_rlg(ctx, a, a, 10000, 1, out);
    if (sscanf(spec, "acyclic-dense:%d", &a) == 1)
        return gcut__gen_acyclic_dense(ctx, a, 1, out);
    fprintf(stderr, "gpu-maxflow-bench: unknown graph '%s'\n", spec);
    return GCUT_E_INVALID;
}

/* A Matrix Market file as a symmetric flow network (see the top). */
static gcut_status read_mtx(gcut_context *ctx, const char *path, gcut_graph **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return GCUT_E_IO;
    char line[1024];
    long rows = 0, cols = 0, nnz = 0;
    gcut_status st = GCUT_E_FORMAT;
    int32_t *tail = NULL, *head = NULL, *cap = NULL, *deg = NULL;
    while (fgets(line, sizeof line, f))
        if (line[0] != '%')
            break;
    if (sscanf(line, "%ld %ld %ld", &rows, &cols, &nnz) != 3 || rows < 2 || nnz < 1)
        goto done;
    const long n = rows > cols ? rows : cols;
    tail = malloc((size_t)(2 * nnz) * sizeof *tail);
    head = malloc((size_t)(2 * nnz) * sizeof *head);
    cap = malloc((size_t)(2 * nnz) * sizeof *cap);
    deg = calloc((size_t)n, sizeof *deg);
    if (!tail || !head || !cap || !deg) {
        st = GCUT_E_NOMEM;
        goto done;
    }
    int64_t m = 0;
    for (long k = 0; k < nnz && fgets(line, sizeof line, f); k++) {
        long i, j;
        if (sscanf(line, "%ld %ld", &i, &j) != 2 || i < 1 || j < 1 || i > n || j > n)
            goto done;
        if (i == j)
            continue;
        const uint64_t h = ((uint64_t)i * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)j * 0xbf58476d1ce4e5b9ull);
        const int32_t c = 1 + (int32_t)((h >> 17) % 10000);
        tail[m] = (int32_t)(i - 1), head[m] = (int32_t)(j - 1), cap[m++] = c;
        tail[m] = (int32_t)(j - 1), head[m] = (int32_t)(i - 1), cap[m++] = c;
        deg[i - 1]++;
        deg[j - 1]++;
    }
    int32_t s = 0, t = 1;
    for (int32_t v = 0; v < n; v++)
        if (deg[v] > deg[s])
            s = v;
    t = s == 0 ? 1 : 0;
    for (int32_t v = 0; v < n; v++)
        if (v != s && deg[v] > deg[t])
            t = v;
    st = gcut_graph_create_from_arcs(ctx, (int32_t)n, m, tail, head, cap, s, t, out);
done:
    fclose(f);
    free(tail);
    free(head);
    free(cap);
    free(deg);
    return st;
}

typedef struct bench_opts {
    int reps;
    int variants; /* bit per GPU variant */
    long long async_max_arcs, color_max_arcs;
    FILE *md;
    int failures;
} bench_opts;

static const char *const variant_names[3] = {"worklist", "async", "color"};

/* One GPU variant on the uploaded graph: best of `reps` runs; checks the
 * value and, after download, the proof. Prints one table row. */
static void bench_variant(gcut_context *gpu, gcut_graph *g, const char *name, int variant,
                          int reps, int64_t want, double prf_ms, double up_ms, bench_opts *o)
{
    gcut__gpu_graph_stats best, stats;
    int64_t it = 0;
    memset(&best, 0, sizeof best);
    best.run_ms = -1;
    for (int r = 0; r < reps; r++) {
        gcut_status st = gcut__gpu_graph_run(g, variant, 0, &it);
        if (st) {
            printf("%-24s %-8s %s\n", name, variant_names[variant], gcut_last_error(gpu));
            fprintf(o->md, "| %s | %s | %s | | | | | |\n", name, variant_names[variant],
                    gcut_last_error(gpu));
            if (st != GCUT_E_UNSUPPORTED)
                o->failures++;
            return;
        }
        gcut__gpu_graph_stats_get(gpu, &stats);
        if (best.run_ms < 0 || stats.run_ms < best.run_ms)
            best = stats;
    }
    double t0 = bench_now_ms();
    gcut_status st = gcut__gpu_graph_download(g);
    double down_ms = bench_now_ms() - t0;
    g->solved = 1; /* what gcut_graph_solve() would mark, for verify */
    int64_t cut = -1;
    const char *verdict = "ok";
    /* The download leaves a preflow; verify finishes it on the CPU. */
    if (st || (st = gcut_graph_verify(g, &cut)) || cut != want) {
        verdict = "WRONG";
        o->failures++;
        fprintf(stderr, "%s %s: %s (cut %lld, prf %lld)\n", name, variant_names[variant],
                gcut_last_error(gpu), (long long)cut, (long long)want);
    }
    /* which worklist push ran: split by degree or a warp per node */
    const char *push = variant != GCUT__GPU_WORKLIST ? ""
                       : best.split                 ? " (split push)"
                                                    : " (warp push)";
    printf("%-24s %-8s %9.3f ms (x%.1f vs prf)  upload %.1f  download %.1f  launches %lld  "
           "relabels %lld  %s%s\n",
           name, variant_names[variant], best.run_ms, prf_ms / best.run_ms, up_ms, down_ms,
           best.push_launches, best.relabels, verdict, push);
    fprintf(o->md, "| %s | %s%s | %.*f | %.1fx | %.1f | %.1f | %lld / %lld | %s |\n", name,
            variant_names[variant], push, ms_digits(best.run_ms), best.run_ms,
            prf_ms / best.run_ms, up_ms, down_ms, best.push_launches, best.relabels, verdict);
    fflush(stdout);
}

static void bench_graph(gcut_context *cpu, gcut_context *gpu, const char *name, gcut_graph *cg,
                        gcut_graph *gg, bench_opts *o)
{
    gcut_solve_info info;
    if (gcut_graph_solve(cg, "prf", 0, &info)) {
        fprintf(stderr, "%s: prf: %s\n", name, gcut_last_error(cpu));
        o->failures++;
        return;
    }
    const double prf_ms = info.time_ms;
    const double anchor = anchor_s(name);
    printf("%-24s n %d m %d flow %lld prf %.2f ms%s\n", name, gcut_graph_nodes(cg),
           gcut_graph_arcs(cg), (long long)info.flow, prf_ms,
           anchor > 0 ? " (ECL-MaxFlow anchor on an RTX 4090 below)" : "");
    fprintf(o->md,
            "| **%s** n=%d m=%d | prf (CPU) | %.*f | 1x | | | relabels %lld | flow %lld%s |\n",
            name, gcut_graph_nodes(cg), gcut_graph_arcs(cg), ms_digits(prf_ms), prf_ms,
            (long long)info.iterations, (long long)info.flow, anchor > 0 ? "" : "");
    if (anchor > 0)
        fprintf(o->md, "| %s | ECL-MaxFlow, RTX 4090 (paper) | %.0f | | | | | goal: %.0f ms |\n",
                name, anchor * 1000, anchor * 500);
    if (gcut__gpu_graph_upload(gg)) {
        fprintf(stderr, "%s: upload: %s\n", name, gcut_last_error(gpu));
        o->failures++;
        return;
    }
    for (int v = 0; v < 3; v++) {
        if (!(o->variants & (1 << v)))
            continue;
        const long long m = gcut_graph_arcs(gg);
        if ((v == 1 && m > o->async_max_arcs) || (v == 2 && m > o->color_max_arcs)) {
            fprintf(o->md, "| %s | %s | skipped: %lld arcs, over the limit set for this run | | | | | |\n",
                    name, variant_names[v], m);
            continue;
        }
        /* the device may hold another graph after a failed variant */
        const double t0 = bench_now_ms();
        if (gcut__gpu_graph_upload(gg)) {
            o->failures++;
            return;
        }
        const double up_ms = bench_now_ms() - t0;
        bench_variant(gpu, gg, name, v, v == 0 ? o->reps : 1, info.flow, prf_ms, up_ms, o);
    }
    if (o->variants & 1) {
        /* Phase 2 on the GPU: a feasible flow, checked. */
        gcut__gpu_graph_stats stats;
        int64_t it = 0, cut = -1;
        if (gcut__gpu_graph_upload(gg) || gcut__gpu_graph_run(gg, GCUT__GPU_WORKLIST,
                                                               GCUT_GRAPH_SOLVE_FLOW, &it) ||
            gcut__gpu_graph_stats_get(gpu, &stats) || gcut__gpu_graph_download(gg) ||
            (gg->solved = 1, gcut_graph_verify(gg, &cut)) || cut != info.flow) {
            fprintf(stderr, "%s: worklist --flow: %s\n", name, gcut_last_error(gpu));
            o->failures++;
            return;
        }
        printf("%-24s worklist --flow: phase 1 %.1f ms + phase 2 %.1f ms, verified\n", name,
               stats.run_ms, stats.phase2_ms);
        fprintf(o->md, "| %s | worklist, phase 2 (feasible flow) | +%.1f | | | | | verified |\n",
                name, stats.phase2_ms);
    }
    fflush(o->md);
}

static int by_size_desc(const void *a, const void *b)
{
    const long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"output", required_argument, NULL, 'o'},   {"graph", required_argument, NULL, 'g'},
        {"mtx", required_argument, NULL, 'm'},      {"mtx-limit", required_argument, NULL, 'L'},
        {"reps", required_argument, NULL, 'r'},     {"variants", required_argument, NULL, 'v'},
        {"async-max-arcs", required_argument, NULL, 'A'},
        {"color-max-arcs", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    const char *out = NULL, *mtx = NULL;
    const char *specs[64];
    int nspecs = 0, mtx_limit = 8;
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.reps = 3;
    o.variants = 7;
    o.async_max_arcs = 3000000;
    o.color_max_arcs = 30000000;
    int c;
    while ((c = getopt_long(argc, argv, "o:g:m:L:r:v:A:C:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'g':
            if (nspecs < 64)
                specs[nspecs++] = optarg;
            break;
        case 'm': mtx = optarg; break;
        case 'L': mtx_limit = atoi(optarg); break;
        case 'r': o.reps = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
        case 'v':
            o.variants = (strstr(optarg, "worklist") ? 1 : 0) | (strstr(optarg, "async") ? 2 : 0) |
                         (strstr(optarg, "color") ? 4 : 0);
            break;
        case 'A': o.async_max_arcs = atoll(optarg); break;
        case 'C': o.color_max_arcs = atoll(optarg); break;
        case 'h':
            printf("Usage: gpu-maxflow-bench -o OUT.md [-g SPEC]... [-m DIR] [--mtx-limit N] "
                   "[--reps N]\n  [--variants LIST] [--async-max-arcs N] [--color-max-arcs N]\n");
            return 0;
        default:
            fprintf(stderr, "Try 'gpu-maxflow-bench --help'.\n");
            return 2;
        }
    }
    if (!out) {
        fprintf(stderr, "gpu-maxflow-bench: -o OUT.md is required\n");
        return 2;
    }
    if (nspecs == 0 && !mtx)
        for (size_t i = 0; i < sizeof default_specs / sizeof *default_specs; i++)
            specs[nspecs++] = default_specs[i];

    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = GCUT_DEVICE_CPU;
    gcut_context *cpu = NULL, *gpu = NULL;
    gcut_context_create(&opt, &cpu);
    opt.device = GCUT_DEVICE_GPU;
    gcut_context_create(&opt, &gpu);
    char devname[256] = "?";
    int devices = 0;
    if (gcut_device_count(gpu, &devices) || devices == 0 ||
        gcut_device_name(gpu, 0, devname, sizeof devname)) {
        fprintf(stderr, "gpu-maxflow-bench: no usable GPU\n");
        return 1;
    }
    o.md = fopen(out, "w");
    if (!o.md) {
        perror(out);
        return 1;
    }
    fprintf(o.md, "# GPU max-flow on general graphs: %s\n\n", devname);
    fprintf(o.md, "Command: `gpu-maxflow-bench");
    for (int i = 1; i < argc; i++)
        fprintf(o.md, " %s", argv[i]);
    fprintf(o.md, "`. GPU times: CUDA events, graph already on the device, phase 1 (value and "
                  "cut), best of %d runs for worklist; prf: the CPU solve (phase 1) in the same "
                  "process. Every GPU value equals prf's and its cut and flow pass "
                  "gcut_graph_verify().\n\n",
            o.reps);
    fprintf(o.md, "| graph | solver | ms | vs prf | upload ms | download ms | launches / "
                  "relabels | check |\n|---|---|---|---|---|---|---|---|\n");

    for (int i = 0; i < nspecs; i++) {
        gcut_graph *cg = NULL, *gg = NULL;
        double t0 = bench_now_ms();
        if (make_graph(cpu, specs[i], &cg) || make_graph(gpu, specs[i], &gg) ||
            gcut__graph_alloc_solution(gg)) {
            o.failures++;
            continue;
        }
        fprintf(stderr, "%s: generated twice in %.0f ms\n", specs[i], bench_now_ms() - t0);
        bench_graph(cpu, gpu, specs[i], cg, gg, &o);
        gcut_graph_destroy(cg);
        gcut_graph_destroy(gg);
    }
    if (mtx) {
        DIR *dir = opendir(mtx);
        struct dirent *e;
        long long sizes[512];
        char names[512][256];
        int nf = 0;
        while (dir && (e = readdir(dir)) && nf < 512) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0 || len >= 200)
                continue;
            char path[1024];
            struct stat sb;
            snprintf(path, sizeof path, "%s/%s", mtx, e->d_name);
            if (stat(path, &sb) == 0) {
                sizes[nf] = (long long)sb.st_size * 1024 + nf; /* index rides along */
                snprintf(names[nf], sizeof names[nf], "%s", e->d_name);
                nf++;
            }
        }
        if (dir)
            closedir(dir);
        qsort(sizes, (size_t)nf, sizeof *sizes, by_size_desc);
        for (int k = 0; k < nf && k < mtx_limit; k++) {
            const char *name = names[sizes[k] % 1024];
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", mtx, name);
            gcut_graph *cg = NULL, *gg = NULL;
            if (read_mtx(cpu, path, &cg) || read_mtx(gpu, path, &gg) ||
                gcut__graph_alloc_solution(gg)) {
                fprintf(stderr, "%s: cannot read\n", path);
                o.failures++;
                continue;
            }
            bench_graph(cpu, gpu, name, cg, gg, &o);
            gcut_graph_destroy(cg);
            gcut_graph_destroy(gg);
        }
    }
    fclose(o.md);
    gcut_context_destroy(cpu);
    gcut_context_destroy(gpu);
    printf("%s\n", o.failures ? "FAILURES" : "all GPU results equal prf's and verified");
    return o.failures ? 1 : 0;
}
