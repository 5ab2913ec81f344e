/* gcut-check: the plain-C checks, runnable where Criterion is absent (the
 * device machine). Runs every check in the table below, one line each, then
 * "N passed, N failed[, N skipped]"; exits 0 iff nothing failed. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_api.h"
#include "check_assign.h"
#include "check_bipartite.h"
#include "check_common.h"
#include "check_flow.h"
#include "check_graph.h"
#include "check_graph_gpu.h"
#include "check_graph_update.h"
#include "check_segment_session.h"
#include "check_grid.h"
#include "check_grid_gpu.h"
#include "check_grid_e2e.h"
#include "check_grid_gpu_update.h"
#include "check_grid_parallel.h"
#include "check_parallel.h"
#include "check_match.h"
#include "check_match_gpu.h"
#include "check_hostile.h"
#include "check_segment_gpu.h"
#include "check_color_price.h"

typedef void (*check_fn)(check_report *r, int count, uint64_t seed);

typedef struct check_entry {
    const char *name;
    int count;       /* instances by default */
    int quick_count; /* with --quick: a few seconds under ASan for all checks */
    check_fn run;
} check_entry;

/* ---- the table of checks ----------------------------------------------
 * One row per check. GPU checks (GPU solver against the CPU, on the same
 * check_grid_random() grids) are added here; without a usable GPU they
 * count their instances as skipped rather than failed. */
static const check_entry checks[] = {
    {"grid.bk_vs_reference", 800, 200, check_grid_bk_vs_reference},
    {"api.contracts", 200, 40, check_api_contracts},
    {"api.interrupted", 2, 1, check_api_interrupted},
    {"grid.bk_resolve", 400, 100, check_grid_bk_resolve},
    {"grid.pbk_vs_reference", 270, 45, check_grid_pbk_vs_reference},
    {"core.parallel_for", 400, 60, check_parallel_for},
    {"graph.solvers_vs_reference", 4000, 400, check_graph_solvers_vs_reference},
    {"graph.families_vs_reference", 400, 40, check_graph_families_vs_reference},
    {"bipartite.build", 2000, 300, check_bipartite_build},
    {"bipartite.read", 1, 1, check_bipartite_read},
    {"match.cpu_vs_reference", 3000, 300, check_match_cpu_vs_reference},
    {"match.matrices", 1000, 1000, check_match_matrices},
    {"match.verify_refuses", 1, 1, check_match_verify_refuses},
    {"hostile.graph_tamper", 300, 60, check_hostile_graph_tamper},
    {"hostile.grid_tamper", 200, 40, check_hostile_grid_tamper},
    {"hostile.dimacs_limits", 1, 1, check_hostile_dimacs_limits},
    {"hostile.image_limits", 1, 1, check_hostile_image_limits},
    {"hostile.memory_budget", 1, 1, check_hostile_memory_budget},
    {"hostile.atomic_writer", 1, 1, check_hostile_atomic_writer},
    {"hostile.segment_energy", 64, 16, check_hostile_segment_energy},
    {"flow.synthetic", 24, 8, check_flow_synthetic},
    {"flow.degenerate", 140, 28, check_flow_degenerate},
    {"flow.assignment_exact", 300, 40, check_flow_assignment_exact},
    {"flow.flo_files", 100, 20, check_flow_flo_files},
    {"flow.measures", 1, 1, check_flow_measures},
    {"graph.update_sequences", 2000, 200, check_graph_update_sequences},
    {"graph.update_families", 200, 24, check_graph_update_families},
    {"graph.update_kept_labels", 200, 25, check_graph_update_kept_labels},
    {"graph.update_refused", 20, 5, check_graph_update_refused},
    {"graph.update_parser", 2000, 200, check_graph_update_parser},
    {"segment.session_vs_image", 120, 20, check_segment_session_vs_image},
    {"grid.warm_device", 30, 6, check_grid_warm_device},
    {"hostile.matrix_limits", 1, 1, check_hostile_matrix_limits},
    /* GPU checks: add rows here. */
    {"grid.gpu_tiled_vs_cpu", 500, 40, check_grid_gpu_tiled_vs_cpu},
    {"grid.gpu_lockfree_vs_cpu", 300, 20, check_grid_gpu_lockfree_vs_cpu},
    {"grid.gpu_tiled_large_vs_cpu", 24, 2, check_grid_gpu_large_vs_cpu},
    {"grid.gpu_residuals_on_demand", 100, 10, check_grid_gpu_residuals_on_demand},
    {"grid.gpu_overflow", 40, 8, check_grid_gpu_overflow},
    {"grid.gpu_knobs_vs_cpu", 300, 20, check_grid_gpu_knobs_vs_cpu},
    {"grid.gpu_snapshot", 40, 5, check_grid_gpu_snapshot},
    {"grid.gpu_tiled_resolve", 300, 40, check_grid_gpu_resolve},
    {"grid.gpu_tiled_resolve_large", 12, 2, check_grid_gpu_resolve_large},
    {"segment.session_gpu", 60, 12, check_segment_session_gpu},
    {"grid.gpu_seg_reparam", 200, 24, check_grid_gpu_reparam},
    {"graph.gpu_worklist_vs_cpu", 2000, 60, check_graph_gpu_worklist_vs_cpu},
    {"graph.gpu_worklist_shapes_vs_cpu", 200, 10, check_graph_gpu_worklist_shapes_vs_cpu},
    {"graph.gpu_async_vs_cpu", 600, 30, check_graph_gpu_async_vs_cpu},
    {"graph.gpu_color_vs_cpu", 600, 30, check_graph_gpu_color_vs_cpu},
    {"segment.gpu_vs_cpu", 54, 9, check_segment_gpu_vs_cpu},
    {"assign.csa_vs_hungarian", 3000, 300, check_assign_csa_vs_hungarian},
    {"assign.csa_knobs", 1000, 100, check_assign_csa_knobs},
    {"assign.csa_dense", 400, 40, check_assign_csa_dense},
    {"assign.csa_candidates", 800, 80, check_assign_csa_candidates},
    {"assign.ssp_vs_hungarian", 3000, 300, check_assign_ssp_vs_hungarian},
    {"assign.read", 1, 1, check_assign_read},
    {"assign.gpu_vs_hungarian", 2000, 100, check_assign_gpu_vs_hungarian},
    {"assign.gpu_vs_cpu", 60, 6, check_assign_gpu_vs_cpu},
    {"assign.gpu_knobs", 1200, 60, check_assign_gpu_knobs},
    {"assign.gpu_candidates", 400, 40, check_assign_gpu_candidates},
    {"match.gpu_vs_cpu", 2000, 100, check_match_gpu_vs_cpu},
    {"match.gpu_matrices", 1, 1, check_match_gpu_matrices},
    {"graph.gpu_update_sequences", 150, 50, check_graph_update_gpu},
    {"graph.gpu_update_small_batches", 12, 6, check_graph_update_gpu_small},
    {"flow.gpu_synthetic", 24, 4, check_flow_gpu_synthetic},
    {"flow.gpu_assignment", 400, 40, check_flow_gpu_assignment},
    {"flow.gpu_rubberwhale", 1, 1, check_flow_gpu_rubberwhale},
    {"color.price_host", 300, 40, check_color_price_host},
    {"color.price_gpu_vs_cpu", 300, 40, check_color_price_gpu_vs_cpu},
    {"color.fit_pair", 120, 20, check_color_fit_pair},
    {"color.refit_gpu_vs_cpu", 200, 24, check_color_refit_gpu_vs_cpu},
};
static const int n_checks = (int)(sizeof checks / sizeof checks[0]);

/* Under the sanitizers (gcut-check built with GCUT_CHECK_SANITIZED, see
 * tests/CMakeLists.txt) the checks whose every instance solves a whole
 * image pair or matrix run their quick counts unless --full is given: at
 * full counts they alone would take the ASan run past ten minutes on a
 * two-core machine, while their instances stay as varied at the quick ones
 * (the same generators, sizes and kinds, fewer seeds). */
static int slow_when_sanitized(const char *name)
{
#ifdef GCUT_CHECK_SANITIZED
    static const char *const prefixes[] = {"flow.", "assign.", "match."};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
        if (!strncmp(name, prefixes[k], strlen(prefixes[k])))
            return 1;
#else
    (void)name;
#endif
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gcut-check [OPTIONS]\n"
            "Runs gcut's solver checks (solvers against independent references, GPU\n"
            "against CPU) on generated instances.\n\n"
            "  -q, --quick      a small number of instances per check\n"
            "  -f, --full       the full numbers, also where a sanitized build lowers\n"
            "                   them by default (the flow, assign and match checks)\n"
            "  -n, --count N    N instances per check\n"
            "  -s, --seed S     the seed of the generated instances (default 1)\n"
            "  -o, --only NAME  only the checks whose name starts with NAME\n"
            "  -h, --help       this help\n\n"
            "Prints one line per check and then 'N passed, N failed'; exits 0 iff\n"
            "no check failed, 1 if one did, 2 on a usage error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "gcut-check: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'gcut-check --help'.\n");
    return 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static const struct option long_options[] = {{"quick", no_argument, NULL, 'q'},
                                                 {"full", no_argument, NULL, 'f'},
                                                 {"count", required_argument, NULL, 'n'},
                                                 {"seed", required_argument, NULL, 's'},
                                                 {"only", required_argument, NULL, 'o'},
                                                 {"help", no_argument, NULL, 'h'},
                                                 {NULL, 0, NULL, 0}};
    int quick = 0, full = 0;
    long count = -1;
    uint64_t seed = 1;
    const char *only = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "qfn:s:o:h", long_options, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'q':
            quick = 1;
            break;
        case 'f':
            full = 1;
            break;
        case 'n':
            errno = 0;
            count = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || count < 0 || count > 10000000)
                return usage_error("--count must be a whole number from 0 to 10000000, not '%s'",
                                   optarg);
            break;
        case 's':
            errno = 0;
            seed = strtoull(optarg, &end, 0);
            if (errno || end == optarg || *end || optarg[0] == '-')
                return usage_error("--seed must be a non-negative whole number, not '%s'", optarg);
            break;
        case 'o':
            only = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            fprintf(stderr, "Try 'gcut-check --help'.\n");
            return 2;
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);

    printf("gcut-check: seed %llu\n", (unsigned long long)seed);
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < n_checks; i++) {
        const check_entry *e = &checks[i];
        if (only && strncmp(e->name, only, strlen(only)) != 0)
            continue;
        int n = count >= 0                                         ? (int)count
                : quick || (!full && slow_when_sanitized(e->name)) ? e->quick_count
                                                                   : e->count;
        check_report r;
        memset(&r, 0, sizeof r);
        double t0 = now_s();
        e->run(&r, n, seed);
        double t1 = now_s();
        const char *verdict = r.failed ? "FAIL" : r.passed ? "ok  " : "skip";
        printf("%s %-28s %d passed, %d failed", verdict, e->name, r.passed, r.failed);
        if (r.skipped)
            printf(", %d skipped", r.skipped);
        printf(" (%.2f s)\n", t1 - t0);
        if (r.failed)
            printf("     first failure: %s\n", r.first_failure);
        fflush(stdout);
        passed += r.passed;
        failed += r.failed;
        skipped += r.skipped;
    }
    printf("%d passed, %d failed", passed, failed);
    if (skipped)
        printf(", %d skipped", skipped);
    printf("\n");
    return failed ? 1 : 0;
}
