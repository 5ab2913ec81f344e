/* grid-parallel-bench: the cut time of one grid graph by BK and by the
 * parallel "pbk" at several thread counts, each checked against BK.
 *
 *   grid-parallel-bench [-r REPEAT] [-t 1,2,4,8,16] [-k 1,2,4,8] FILE...
 *
 * Reads each DIMACS grid file once, then times REPEAT cold solves of each
 * kind and prints one markdown row per solver and thread count: the
 * median and best solve time, the median time of the strip phase and of
 * the merges (from the solver's own clock), and whether the flow and the
 * labels equal BK's (and gcut_grid_verify() passes). The rows with -k
 * vary the strips per thread at the largest thread count of -t (pbk's
 * default is GCUT__PBK_STRIPS_PER_THREAD), with the phases: start, strips
 * (until the last strip is done), merges (from then to the end), the
 * merges' summed work and the last merge alone.
 * Reads internal headers: BK's kept state must be dropped before each
 * timed BK solve so that every solve starts cold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/bk_grid_parallel.h"
#include "gcut.h"
#include "graph/grid.h"
#include "bench_util.h"

#define MAX_LIST 16
#define MAX_REPEAT 64

static int parse_list(const char *s, int *out)
{
    int n = 0;
    while (*s && n < MAX_LIST) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 64)
            return -1;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

typedef struct result {
    double total[MAX_REPEAT], start[MAX_REPEAT], strips[MAX_REPEAT], merges[MAX_REPEAT],
        merge_work[MAX_REPEAT], last_merge[MAX_REPEAT];
    int64_t flow;
    int same_flow, same_labels, verified;
} result;

/* One timed solve: BK (threads 0), pbk by the public call (strips_per 0),
 * or pbk with `strips_per` strips per thread; phases into res[r]. */
static gcut_status solve_once(gcut_grid *g, int threads, int strips_per, result *res, int r)
{
    res->start[r] = res->strips[r] = res->merges[r] = res->merge_work[r] = res->last_merge[r] = 0;
    gcut__grid_forget_warm(g);
    if (threads == 0 || strips_per == 0) {
        g->ctx->options.threads = threads;
        gcut_solve_info info;
        gcut_status st = gcut_grid_solve(g, threads ? "pbk" : "bk", &info);
        res->total[r] = info.time_ms;
        return st;
    }
    gcut__pbk_times times;
    int64_t iterations = 0;
    int strips = threads * strips_per;
    double t0 = gcut__now_ms();
    gcut_status st = gcut__pbk_grid_run(g, threads, strips, &iterations, &times);
    res->total[r] = gcut__now_ms() - t0;
    res->start[r] = times.start_ms;
    res->strips[r] = times.strips_ms;
    res->merges[r] = times.merges_ms;
    res->merge_work[r] = times.merge_work_ms;
    res->last_merge[r] = times.last_merge_ms;
    return st;
}

/* One repeat of one configuration, checked against BK's flow and labels. */
static int run_once(gcut_grid *g, int threads, int strips_per, int r, const uint8_t *bk_labels,
                    int64_t bk_flow, uint8_t *labels, result *res)
{
    size_t n = (size_t)g->width * (size_t)g->height;
    if (r == 0) {
        memset(res, 0, sizeof *res);
        res->same_flow = res->same_labels = res->verified = 1;
    }
    gcut_status st = solve_once(g, threads, strips_per, res, r);
    if (st) {
        fprintf(stderr, "grid-parallel-bench: solve failed: %s\n", gcut_last_error(g->ctx));
        return 1;
    }
    res->flow = g->flow;
    res->same_flow &= g->flow == bk_flow;
    if (bk_labels && gcut_grid_labels(g, labels) == GCUT_OK)
        res->same_labels &= memcmp(labels, bk_labels, n) == 0;
    if (r == 0)
        res->verified = gcut_grid_verify(g, NULL) == GCUT_OK;
    return 0;
}

static int run_config(gcut_grid *g, int threads, int strips_per, int repeat,
                      const uint8_t *bk_labels, int64_t bk_flow, uint8_t *labels, result *res)
{
    for (int r = 0; r < repeat; r++)
        if (run_once(g, threads, strips_per, r, bk_labels, bk_flow, labels, res))
            return 1;
    return 0;
}

static void print_row(const char *file, const char *algo, int threads, int strips, int repeat,
                      result *res, double bk_median)
{
    double best = res->total[0];
    for (int r = 1; r < repeat; r++)
        best = res->total[r] < best ? res->total[r] : best;
    double med = bench_median(res->total, repeat);
    /* The phases are timed only where the strips are set (the internal call). */
    char phases[160] = "- | - | - | - | -";
    if (strstr(algo, "strips set"))
        snprintf(phases, sizeof phases, "%.1f | %.1f | %.1f | %.1f | %.1f",
                 bench_median(res->start, repeat), bench_median(res->strips, repeat),
                 bench_median(res->merges, repeat), bench_median(res->merge_work, repeat),
                 bench_median(res->last_merge, repeat));
    printf("| %s | %s | %d | %d | %.1f | %.1f | %.2f | %s | %lld | %s | %s |\n", file, algo,
           threads, strips, med, best, bk_median / med, phases, (long long)res->flow,
           !strcmp(algo, "bk")                  ? "-"
           : res->same_flow && res->same_labels ? "yes"
                                                : "NO",
           res->verified ? "yes" : "NO");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int repeat = 3, threads[MAX_LIST] = {1, 2, 4, 8, 16}, nthreads = 5, per[MAX_LIST] = {0},
        nper = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "grid-parallel-bench: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "-r")) {
            repeat = atoi(argv[i + 1]);
            if (repeat < 1 || repeat > MAX_REPEAT) {
                fprintf(stderr, "grid-parallel-bench: -r must be 1..%d\n", MAX_REPEAT);
                return 2;
            }
        } else if (!strcmp(argv[i], "-t") || !strcmp(argv[i], "-k")) {
            int *list = argv[i][1] == 't' ? threads : per;
            int m = parse_list(argv[i + 1], list);
            if (m < 1) {
                fprintf(stderr, "grid-parallel-bench: bad list '%s'\n", argv[i + 1]);
                return 2;
            }
            *(argv[i][1] == 't' ? &nthreads : &nper) = m;
        } else {
            fprintf(stderr, "grid-parallel-bench: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: grid-parallel-bench [-r REPEAT] [-t LIST] [-k LIST] FILE...\n");
        return 2;
    }
    printf("| graph | solver | threads | strips | median ms | best ms | speed-up vs bk | start ms "
           "| strips ms | merges ms | merge work ms | last merge ms | flow | = bk (flow, labels) "
           "| verified |\n");
    printf(
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| --- | --- |\n");
    int rc = 0;
    for (; i < argc && !rc; i++) {
        gcut_context *ctx = NULL;
        gcut_grid *g = NULL;
        if (gcut_context_create(NULL, &ctx) || gcut_grid_read_dimacs(ctx, argv[i], &g)) {
            fprintf(stderr, "grid-parallel-bench: %s: %s\n", argv[i], gcut_last_error(ctx));
            gcut_context_destroy(ctx);
            return 1;
        }
        ctx->options.device = GCUT_DEVICE_CPU;
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        size_t n = (size_t)g->width * (size_t)g->height;
        uint8_t *bk_labels = malloc(n), *labels = malloc(n);
        result res;
        rc = !bk_labels || !labels;
        /* BK first: its flow and labels are what every other solve must give. */
        if (!rc && !(rc = run_config(g, 0, 0, repeat, NULL, 0, labels, &res))) {
            int64_t bk_flow = res.flow;
            rc = gcut_grid_labels(g, bk_labels) != GCUT_OK;
            double bk_median = bench_median(res.total, repeat);
            print_row(name, "bk", 1, 1, repeat, &res, bk_median);
            for (int t = 0; t < nthreads && !rc; t++) {
                int used = threads[t] > 1 ? gcut__pbk_grid_strips(g, threads[t]) : 1;
                rc = run_config(g, threads[t], 0, repeat, bk_labels, bk_flow, labels, &res);
                if (!rc)
                    print_row(name, "pbk", threads[t], used, repeat, &res, bk_median);
                int largest = 1;
                for (int u = 0; u < nthreads; u++)
                    largest = threads[u] > largest ? threads[u] : largest;
                for (int k = 0; k < nper && !rc && threads[t] == largest && largest > 1; k++) {
                    rc =
                        run_config(g, threads[t], per[k], repeat, bk_labels, bk_flow, labels, &res);
                    if (!rc)
                        print_row(name, "pbk (strips set)", threads[t], threads[t] * per[k], repeat,
                                  &res, bk_median);
                }
            }
        }
        free(bk_labels);
        free(labels);
        gcut_grid_destroy(g);
        gcut_context_destroy(ctx);
    }
    return rc;
}
