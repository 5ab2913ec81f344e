/* Dynamic max-flow: batches of capacity changes on large generated
 * graphs, each re-solved from the last flow (after gcut_graph_update) and,
 * in the same run on a twin of the graph given the same batches, from zero
 * (GCUT_GRAPH_SOLVE_SCRATCH; the twin lives in a context of its own, so
 * that the warm graph's state, on the device too, is untouched by other
 * solves); all flows must agree. Prints a markdown table: per instance,
 * batch size (share of the arcs) and kind (raise, lower, mixed), the
 * median times and the speed-up, and the device of the warm solves.
 *
 * Usage: dynamic-maxflow-bench [--quick] [--batches N] [--only NAME]
 *                              [--kind raise|lower|mixed]
 *                              [--algo bk|prf|worklist] [--skip-same]
 *                              [--no-prf] [--max-share F] [--seed S]
 *                              [--shares P,P,...] [--warm prove|adapt|global]
 * --algo worklist: the GPU worklist solver, warm from its device state,
 * against itself from zero (both on the GPU, transfers included).
 * --warm: how its warm re-solve relabels and ends (src/gpu/gpu.h,
 * GCUT__WARM_*): prove (the default), adapt, or global (as a solve from
 * scratch), to compare them.
 * --shares: the batch sizes, in percent of the arcs (default 0.01, 0.1, 1,
 * 10).
 * --no-prf: leave out prf from zero (the CPU default) where the warm
 * solver is another.
 * Columns: "update ms" is gcut_graph_update() alone (part of the warm
 * time); on the GPU "device ms" is the warm run's time on the device
 * (CUDA events: the batch applied and phase 1), the rest of the warm time
 * being the update, the sparse upload and the cut side's download;
 * "steps / relabels / levels / proved" the warm run's push iterations,
 * global relabels, their BFS levels all together, and 1 where its end was
 * proved without a BFS (graph_certify.cu) (medians).
 * --max-share F: batch shares up to F only (of 0.0001, 0.001, 0.01, 0.1).
 * --bounded: warm solves with GCUT_GRAPH_SOLVE_BOUNDED (bk gives up past
 * its budget and prf solves from zero; the time counts both).
 * The warm solver (default bk) is timed against itself from zero and, when
 * it is not prf, against prf from zero (the CPU default); --skip-same
 * leaves out the former (BK from zero takes seconds on the large graphs).
 * --why: the library's debug line after each GPU worklist run on stderr
 * (its global relabels by cause with their worklists and depths, relabel,
 * proof and push times, worklist sizes: src/gpu/graph_gpu_run.cu),
 * prefixed by the row and batch it belongs to.
 * Exit status 1 if a warm and a fresh flow differ or a proof fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcut.h"
#include "bench_util.h"
#include "graph/gen.h"
#ifdef GCUT_HAVE_CUDA
#include "gpu/gpu.h"
#endif

typedef struct instance {
    const char *name;
    int family; /* 0 genrmf, 1 rlg, 2 acyclic-dense */
    int32_t p1, p2;
} instance;

static const instance full[] = {
    {"genrmf-long a=32 b=256", 0, 32, 256},
    {"genrmf-wide a=64 b=64", 0, 64, 64},
    {"washington-rlg 512x1024", 1, 512, 1024},
    {"acyclic-dense n=2000", 2, 2000, 0},
};
static const instance quick[] = {
    {"genrmf a=16 b=64", 0, 16, 64},
    {"washington-rlg 128x256", 1, 128, 256},
    {"acyclic-dense n=500", 2, 500, 0},
};

static gcut_status build(gcut_context *ctx, const instance *in, uint64_t seed, gcut_graph **g)
{
    switch (in->family) {
    case 0:
        return gcut__gen_genrmf(ctx, in->p1, in->p2, 1, 10000, seed, g);
    case 1:
        return gcut__gen_rlg(ctx, in->p1, in->p2, 10000, seed, g);
    default:
        return gcut__gen_acyclic_dense(ctx, in->p1, seed, g);
    }
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* --why: the row and batch of the library's debug lines (why_log). */
static char why_row[160] = "set-up";
static void why_log(void *user, int level, const char *message)
{
    (void)user;
    (void)level;
    fprintf(stderr, "%s | %s\n", why_row, message);
}

enum { RAISE, LOWER, MIXED };
static const char *const kind_names[] = {"raise", "lower", "mixed"};

int main(int argc, char **argv)
{
    int use_quick = 0, batches = 5, skip_same = 0, no_prf = 0, max_shares = 4, warm_policy = 0;
    static double shares[8] = {0.0001, 0.001, 0.01, 0.1};
    unsigned warm_flags = 0;
    const char *only = NULL, *only_kind = NULL, *algo = "bk";
    uint64_t seed = 1;
    int why = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            use_quick = 1;
        else if (!strcmp(argv[i], "--why"))
            why = 1;
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-share") && i + 1 < argc) {
            double top = atof(argv[++i]);
            max_shares = top >= 0.1 ? 4 : top >= 0.01 ? 3 : top >= 0.001 ? 2 : 1;
        } else if (!strcmp(argv[i], "--bounded"))
            warm_flags = GCUT_GRAPH_SOLVE_BOUNDED;
        else if (!strcmp(argv[i], "--skip-same"))
            skip_same = 1;
        else if (!strcmp(argv[i], "--no-prf"))
            no_prf = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--kind") && i + 1 < argc)
            only_kind = argv[++i];
        else if (!strcmp(argv[i], "--algo") && i + 1 < argc)
            algo = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--warm") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "prove") || !strcmp(argv[i + 1], "adapt") ||
                  !strcmp(argv[i + 1], "global"))) {
            i++;
            warm_policy = !strcmp(argv[i], "prove") ? 0 : !strcmp(argv[i], "adapt") ? 1 : 2;
        }
        else if (!strcmp(argv[i], "--shares") && i + 1 < argc) {
            char *p = argv[++i], *end = NULL;
            max_shares = 0;
            while (*p && max_shares < 8) {
                double pct = strtod(p, &end);
                if (end == p || pct <= 0 || pct > 100)
                    break;
                shares[max_shares++] = pct / 100;
                p = *end == ',' ? end + 1 : end;
            }
            if (*p || max_shares == 0) {
                fprintf(stderr, "dynamic-maxflow-bench: --shares takes percents in (0, 100], "
                                "comma-separated, at most 8\n");
                return 2;
            }
        } else {
            fprintf(stderr,
                    "usage: %s [--quick] [--batches N] [--only NAME] [--kind K] [--algo A] "
                    "[--skip-same] [--no-prf] [--bounded] [--max-share F] [--seed S] "
                    "[--shares P,P,...] [--warm prove|adapt|global]\n",
                    argv[0]);
            return 2;
        }
    }
    if (batches < 1 || batches > 1000) {
        fprintf(stderr, "dynamic-maxflow-bench: --batches must be 1..1000\n");
        return 2;
    }
    const instance *list = use_quick ? quick : full;
    int count = use_quick ? (int)(sizeof quick / sizeof *quick) : (int)(sizeof full / sizeof *full);

    /* One context for the warm graph, one for its twin: a context keeps
     * one graph on the device. With the GPU solver the device is "auto",
     * so that prf (named) runs on the CPU in the same contexts. */
    const int on_gpu = !strcmp(algo, "worklist");
    gcut_context *ctx = NULL, *twin_ctx = NULL;
    gcut_options opt;
    gcut_options_init(&opt);
    opt.device = on_gpu ? GCUT_DEVICE_AUTO : GCUT_DEVICE_CPU;
    opt.verbosity = 0;
    if (why) {
        opt.verbosity = 3;
        opt.log = why_log;
    }
    if (gcut_context_create(&opt, &ctx) != GCUT_OK ||
        gcut_context_create(&opt, &twin_ctx) != GCUT_OK) {
        fprintf(stderr, "dynamic-maxflow-bench: no context\n");
        return 1;
    }
#ifdef GCUT_HAVE_CUDA
    /* GCUT__WARM_PROVE, _ADAPT, _GLOBAL in the order of the option's words */
    if (on_gpu && gcut__gpu_graph_set_warm_policy(ctx, warm_policy) != GCUT_OK) {
        fprintf(stderr, "dynamic-maxflow-bench: %s\n", gcut_last_error(ctx));
        return 1;
    }
#else
    (void)warm_policy;
#endif
    int bad = 0;
    int also_prf = strcmp(algo, "prf") != 0 && !no_prf;
    if (no_prf)
        skip_same = 0;
    const char *device = NULL;
    printf("| graph | arcs | batch | kind | updates | fresh %s ms |%s warm %s ms (update + solve) | "
           "update ms |%s speed-up |%s\n|---|---:|---:|---|---:|---:|%s---:|---:|%s---:|%s\n",
           algo, also_prf ? " fresh prf ms |" : "", algo,
           on_gpu ? " device ms | steps / relabels / levels / proved |" : "", also_prf ? " vs fresh prf |" : "",
           also_prf ? "---:|" : "", on_gpu ? "---:|---:|" : "",
           also_prf ? "---:|" : "");
    fflush(stdout);
    double *fresh = malloc((size_t)batches * sizeof *fresh);
    double *warm = malloc((size_t)batches * sizeof *warm);
    double *fresh_prf = malloc((size_t)batches * sizeof *fresh_prf);
    double *update = malloc((size_t)batches * sizeof *update);
    double *on_device = malloc((size_t)batches * sizeof *on_device);
    double *steps = malloc((size_t)batches * sizeof *steps);
    double *relabels = malloc((size_t)batches * sizeof *relabels);
    double *levels = malloc((size_t)batches * sizeof *levels);
    double *proved = malloc((size_t)batches * sizeof *proved);
    for (int k = 0; k < count; k++) {
        const instance *in = &list[k];
        if (only && !strstr(in->name, only))
            continue;
        for (int kind = RAISE; kind <= MIXED; kind++) {
            if (only_kind && strcmp(only_kind, kind_names[kind]))
                continue;
            for (int sh = 0; sh < max_shares; sh++) {
                gcut_graph *g = NULL, *twin = NULL;
                if (build(ctx, in, seed, &g) != GCUT_OK ||
                    build(twin_ctx, in, seed, &twin) != GCUT_OK) {
                    fprintf(stderr, "%s: %s\n", in->name, gcut_last_error(ctx));
                    return 1;
                }
                int32_t m = gcut_graph_arcs(g);
                int64_t per = (int64_t)(shares[sh] * m + 0.5);
                if (per < 1)
                    per = 1;
                int32_t *tail = malloc((size_t)per * sizeof *tail);
                int32_t *head = malloc((size_t)per * sizeof *head);
                int32_t *cap = malloc((size_t)per * sizeof *cap);
                snprintf(why_row, sizeof why_row, "%s | %.2f%% | %s | set-up", in->name,
                         100 * shares[sh], kind_names[kind]);
                gcut_solve_info info;
                /* The first solve from zero by prf (BK from zero takes
                 * minutes on the large graphs; the GPU solver is its own
                 * first), then an empty batch lets the warm solver set up
                 * its state, untimed. */
                if (!tail || !head || !cap ||
                    gcut_graph_solve(g, on_gpu ? algo : "prf", 0, &info) != GCUT_OK ||
                    gcut_graph_update(g, 0, NULL, NULL, NULL, 0) != GCUT_OK ||
                    gcut_graph_solve(g, algo, 0, &info) != GCUT_OK) {
                    fprintf(stderr, "%s: %s\n", in->name, gcut_last_error(ctx));
                    return 1;
                }
                uint64_t rs = seed * 1000003u + (uint64_t)(k * 16 + kind * 4 + sh);
                for (int b = 0; b < batches; b++) {
                    for (int64_t i = 0; i < per; i++) {
                        int32_t old;
                        gcut_graph_arc(g, (int32_t)(mix(&rs) % (uint64_t)m), &tail[i], &head[i],
                                       &old);
                        int up = kind == RAISE || (kind == MIXED && (mix(&rs) & 1));
                        int64_t c = up ? old + 1 + (int64_t)(mix(&rs) % (uint64_t)(old + 1))
                                       : (int64_t)(mix(&rs) % (uint64_t)(old + 1));
                        cap[i] = c > INT32_MAX ? INT32_MAX : (int32_t)c;
                    }
                    snprintf(why_row, sizeof why_row, "%s | %.2f%% | %s | batch %d", in->name,
                             100 * shares[sh], kind_names[kind], b);
                    double t0 = bench_now_ms();
                    gcut_status st = gcut_graph_update(g, per, tail, head, cap, 0);
                    double t1 = bench_now_ms();
                    if (!st)
                        st = gcut_graph_update(twin, per, tail, head, cap, 0);
                    gcut_solve_info wi, fi;
                    if (!st)
                        st = gcut_graph_solve(g, algo, warm_flags, &wi);
                    /* The flow value alone is what both report; the proof
                     * of the warm one is checked on the last batch. */
                    if (!st && b == batches - 1)
                        st = gcut_graph_verify(g, NULL);
                    gcut_solve_info pi = {0};
                    if (!st && also_prf)
                        st = gcut_graph_solve(twin, "prf", GCUT_GRAPH_SOLVE_SCRATCH, &pi);
                    if (!st && !(skip_same && also_prf))
                        st = gcut_graph_solve(twin, algo, GCUT_GRAPH_SOLVE_SCRATCH, &fi);
                    else
                        fi = pi;
                    if (st) {
                        fprintf(stderr, "%s: %s / %s\n", in->name, gcut_last_error(ctx),
                                gcut_last_error(twin_ctx));
                        return 1;
                    }
                    device = wi.device;
                    if (wi.flow != fi.flow || (also_prf && pi.flow != fi.flow)) {
                        fprintf(stderr, "%s, %s batch %d: warm flow %lld, fresh %lld\n", in->name,
                                kind_names[kind], b, (long long)wi.flow, (long long)fi.flow);
                        bad = 1;
                    }
                    warm[b] = (t1 - t0) + wi.time_ms;
                    update[b] = t1 - t0;
                    on_device[b] = steps[b] = relabels[b] = levels[b] = proved[b] = 0;
#ifdef GCUT_HAVE_CUDA
                    gcut__gpu_graph_stats gst;
                    if (on_gpu && gcut__gpu_graph_stats_get(ctx, &gst) == GCUT_OK) {
                        on_device[b] = gst.run_ms;
                        steps[b] = (double)gst.push_launches;
                        relabels[b] = (double)gst.relabels;
                        levels[b] = (double)gst.levels;
                        proved[b] = (double)gst.proved;
                    }
#endif
                    fresh[b] = fi.time_ms;
                    fresh_prf[b] = pi.time_ms;
                }
                double f = bench_median(fresh, batches), w = bench_median(warm, batches);
                double fp = bench_median(fresh_prf, batches);
                printf("| %s | %d | %.2f%% | %s | %lld |", in->name, m, 100 * shares[sh],
                       kind_names[kind], (long long)per);
                int same = !(skip_same && also_prf);
                if (same)
                    printf(" %.2f |", f);
                else
                    printf(" - |");
                if (also_prf)
                    printf(" %.2f |", fp);
                printf(" %.3f | %.3f |", w, bench_median(update, batches));
                if (on_gpu)
                    printf(" %.3f | %.0f / %.0f / %.0f / %.0f |", bench_median(on_device, batches),
                           bench_median(steps, batches), bench_median(relabels, batches),
                           bench_median(levels, batches), bench_median(proved, batches));
                if (same)
                    printf(" %.1fx |", f / w);
                else
                    printf(" - |");
                if (also_prf)
                    printf(" %.1fx |", fp / w);
                printf("\n");
                fflush(stdout);
                free(tail);
                free(head);
                free(cap);
                gcut_graph_destroy(g);
                gcut_graph_destroy(twin);
            }
        }
    }
    free(fresh);
    free(warm);
    free(fresh_prf);
    free(update);
    free(on_device);
    free(steps);
    free(relabels);
    free(levels);
    free(proved);
    if (device)
        printf("\nWarm solves (%s) ran on: %s.\n", algo, device);
    gcut_context_destroy(ctx);
    gcut_context_destroy(twin_ctx);
    return bad;
}
